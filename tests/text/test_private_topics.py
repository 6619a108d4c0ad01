"""Topics of the private period's own word co-occurrences (opendp_graph.text._private_topics): the
map is the union's at the boundary, the open-vocabulary graph moves the released counts within it
for every pair of random logs, a topic the snapshot never saw is learned, and the refusals."""

from __future__ import annotations

import random

import numpy as np
import opendp.prelude as dp
import polars as pl
import pytest

import opendp_graph as dpg
from opendp_graph.text import pair_cooccurrence_graph
from opendp_graph.text._private_lm import label_union
from opendp_graph.transformations.labels import label_count_map, make_label_count_map

dp.enable_features("contrib", "honest-but-curious")

SPACE = dpg.graph_domain(labeled=True), dpg.edge_distance()
SNAPSHOT = {"gas+price": 5.0, "gas+pipeline": 4.0, "pipeline+price": 3.0, "golf+lunch": 5.0, "lunch+party": 4.0}
WORDS = ["gas", "price", "pipeline", "golf", "lunch", "party"]


def test_the_map_is_the_unions_and_within_the_budget():
    meas = dpg.text.make_private_topics(*SPACE, dp.loss_of(epsilon=1.0, delta=1e-7), num_topics=2, snapshot_counts=SNAPSHOT, vocabulary=WORDS, keys="open")
    union = label_union(*SPACE, 16, 1.0, 1e-7)
    assert meas.map(1) == union.measurement.map(1) == (union.epsilon, union.delta)
    eps, delta = meas.map(1)
    assert eps <= 1.0 and delta <= 1e-7


def test_removing_a_pair_moves_the_open_vocabulary_counts_within_the_map():
    """Every pair of 40 random logs (words drawn from a dozen, some never in any vocabulary): the
    log without that pair's rows moves the co-occurrence counts by at most (c, √c, 1), reached."""
    rng = random.Random(3)
    c = 3
    bound = make_label_count_map(*SPACE, c, output_metric=dp.l02inf_distance(dp.absolute_distance(T=dp.f64))).map(1)
    words = [f"w{i}" for i in range(12)]
    reached = 0
    for _ in range(40):
        rows = []
        for m in range(6):
            sender = rng.randrange(4)
            text = " ".join(rng.choice(words) for _ in range(rng.randint(0, 5)))
            rows += [(m, sender, r, text) for r in rng.sample(range(4), rng.randint(1, 3))]
        log = pl.DataFrame(rows, schema=["message_id", "sender", "recipient", "subject"], orient="row")

        def counts(frame):
            return label_count_map(pair_cooccurrence_graph(frame, list(range(4)), None, analyzer=str.split)[0], c)

        base = counts(log)
        for a in range(4):
            for b in range(a + 1, 4):
                pair = ((pl.col("sender") == a) & (pl.col("recipient") == b)) | ((pl.col("sender") == b) & (pl.col("recipient") == a))
                other = counts(log.filter(~pair))
                diff = np.array([base.get(k, 0) - other.get(k, 0) for k in set(base) | set(other)], dtype=float)
                diff = diff[diff != 0]
                assert len(diff) <= bound[0] and np.sqrt((diff**2).sum()) <= bound[1] + 1e-9 and np.abs(diff).max(initial=0) <= bound[2]
                reached = max(reached, len(diff))
    assert reached == c


def test_a_topic_the_snapshot_never_saw_is_learned():
    """Forty pairs of people write about a topic whose words are in no vocabulary: at a large ε its
    word pairs clear the threshold, its words join the topics, and one topic is made of them."""
    new = ["solar", "panel", "roof", "install"]
    rows = [(i, 2 * i, 2 * i + 1, " ".join(new)) for i in range(40)] + [(100 + i, 200 + i, 300 + i, "gas price pipeline") for i in range(40)]
    log = pl.DataFrame(rows, schema=["message_id", "sender", "recipient", "subject"], orient="row")
    people = sorted(set(log["sender"]) | set(log["recipient"]))
    graph = pair_cooccurrence_graph(log, people, None, analyzer=str.split)[0]
    out = dpg.text.make_private_topics(*SPACE, dp.loss_of(epsilon=10.0, delta=1e-6), num_topics=2, snapshot_counts=SNAPSHOT, vocabulary=WORDS, keys="open")(graph)
    assert set(new) <= set(out.new_words)
    assert any(set(t[:4]) == set(new) for t in out.topics.top(4))
    assert all(v >= out.threshold for v in out.released.values())
    nothing = dpg.text.make_private_topics(*SPACE, dp.loss_of(epsilon=10.0, delta=1e-6), num_topics=2, snapshot_counts=SNAPSHOT, vocabulary=WORDS, keys="open")(
        pair_cooccurrence_graph(log.head(3), people, None, analyzer=str.split)[0])
    assert nothing.released == {} and nothing.new_words == ()


def test_malformed_released_keys_are_left_out():
    graph = dpg.Graph.from_edges(list(range(30)), list(range(30, 60)), num_nodes=60, labels=[["a+b+c", "+x", "gas+price", "price+gas"]] * 30)
    out = dpg.text.make_private_topics(*SPACE, dp.loss_of(epsilon=1e4, delta=0.1), num_topics=1, snapshot_counts=SNAPSHOT, vocabulary=WORDS, keys="open")(graph)
    assert set(out.released) == {"gas+price"}


def test_public_keys_map_is_the_clipped_counts_gaussian_within_the_budget():
    """keys="snapshot": OpenDP's Gaussian on the clipped counts of every vocabulary pair, its zCDP
    at one pair of people within zcdp_budget(ε, δ) and the converted (ε', δ) within the budget."""
    from opendp_graph.measurements._context import zcdp_budget

    meas = dpg.text.make_private_topics(*SPACE, dp.loss_of(epsilon=1.0, delta=1e-7), num_topics=2, snapshot_counts=SNAPSHOT, vocabulary=WORDS)
    eps, delta = meas.map(1)
    assert eps <= 1.0 and delta <= 1e-7 and eps > 0.99  # the budget is used, not wasted
    keys = [dpg.text.cooccurrence_key(a, b) for i, a in enumerate(WORDS) for b in WORDS[i + 1 :]]
    counts = dpg.make_clipped_label_counts(*SPACE, keys, norm_bound=4.0)
    sigma = (counts.map(1) ** 2 / (2 * zcdp_budget(1.0, 1e-7))) ** 0.5
    assert (counts >> dp.m.then_gaussian(sigma * 1.001)).map(1) <= zcdp_budget(1.0, 1e-7)


def test_public_keys_learn_a_topic_the_snapshot_barely_holds():
    """Forty pairs of people write about golf and lunch (the snapshot has the words, not the pairs
    of this topic): at ε = 10 the released counts make a topic of them; a pair's six word pairs
    are all kept, scaled to norm C, not cut to the first c."""
    rows = [(i, 2 * i, 2 * i + 1, "golf lunch party price") for i in range(40)]
    log = pl.DataFrame(rows, schema=["message_id", "sender", "recipient", "subject"], orient="row")
    people = sorted(set(log["sender"]) | set(log["recipient"]))
    graph = pair_cooccurrence_graph(log, people, None, analyzer=str.split)[0]
    snapshot = {"gas+pipeline": 40.0, "pipeline+price": 1.0}
    out = dpg.text.make_private_topics(
        *SPACE, dp.loss_of(epsilon=10.0, delta=1e-6), num_topics=2, snapshot_counts=snapshot, vocabulary=WORDS, norm_bound=2.0
    )(graph)
    assert out.threshold == 0 and out.new_words == ()
    # six word pairs per pair of people at C = 2: each counts w = 2/√6 (rounded down), less σ
    assert abs(out.released["golf+lunch"] - (40 * 2 / 6**0.5 - out.scale)) < 6 * out.scale
    assert any({"golf", "lunch"} <= set(t[:4]) for t in out.topics.top(4))


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(num_topics=0), ValueError, "num_topics"),
        (dict(num_topics=7), ValueError, "at least num_topics"),
        (dict(new_words=-1), ValueError, "new_words"),
        (dict(new_words=True), ValueError, "new_words"),
        (dict(snapshot_counts=[("gas+price", 1)]), TypeError, "snapshot_counts"),
        (dict(vocabulary="gas price"), TypeError, "vocabulary"),
        (dict(max_pairs_per_edge=0), ValueError, "max_pairs_per_edge"),
        (dict(delta=0.0), ValueError, "delta"),
        (dict(epsilon=0.0), ValueError, "epsilon"),
        (dict(keys="all"), ValueError, "keys must be"),
        (dict(norm_bound=0.0), ValueError, "norm_bound"),
    ],
)
def test_bad_arguments_are_refused_when_built(kwargs, error, match):
    arguments = dict(epsilon=1.0, delta=1e-6, num_topics=2, snapshot_counts=SNAPSHOT, vocabulary=WORDS) | kwargs
    budget = dp.loss_of(epsilon=arguments.pop("epsilon"), delta=arguments.pop("delta"))
    with pytest.raises(error, match=match):
        dpg.text.make_private_topics(*SPACE, budget, **arguments)


def test_snapshot_and_vocabulary_are_checked_not_silently_dropped():
    """The red team: a snapshot key written "price+gas" was ignored, NaN counts dropped, inf crashed
    inside the NMF on the private data, and vocabulary entries that are not words vanished."""
    graph = dpg.Graph.from_edges(list(range(30)), list(range(30, 60)), num_nodes=60, labels=[["gas+price"]] * 30)
    make = dpg.text.make_private_topics
    budget = dp.loss_of(epsilon=10.0, delta=1e-6)
    from opendp_graph.text._private_topics import _snapshot_counts

    assert _snapshot_counts({"price+gas": 2, "gas+price": 1.5}) == {"gas+price": 3.5}
    out = make(*SPACE, budget, num_topics=1, snapshot_counts={"price+gas": 1e6}, vocabulary=["gas", "price"])(graph)
    assert out.topics.top(2)[0]  # the snapshot's pair is read: the topic is not empty
    for bad in ({"gas+price": float("nan")}, {"gas+price": float("inf")}, {"gas+price": -1.0}, {"gas": 1.0}, {"gas+gas": 1.0}):
        with pytest.raises(ValueError, match="snapshot_counts"):
            make(*SPACE, budget, num_topics=1, snapshot_counts=bad, vocabulary=["gas", "price"])
    for vocabulary in ([1, "gas", "price"], ["gas+x", "gas", "price"], ["", "gas", "price"]):
        with pytest.raises(ValueError, match="non-empty words"):
            make(*SPACE, budget, num_topics=1, snapshot_counts={}, vocabulary=vocabulary)
    with pytest.raises(ValueError, match="two for a word pair"):
        make(*SPACE, budget, num_topics=1, snapshot_counts={}, vocabulary=["gas"])
