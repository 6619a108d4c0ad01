"""The language model of a private period's own n-grams (opendp_graph.text._private_lm): its map
against OpenDP's own conversion of the union at the boundary, what it returns when nothing
survives, that it learns what the snapshot cannot, that more budget does not hurt on the chat
text, and the refusals."""

from __future__ import annotations

import collections

import opendp.prelude as dp
import pytest

import opendp_graph as dpg
from opendp_graph.text import NGramModel, ngram_counts, pair_ngram_graph
from opendp_graph.transformations.labels import make_label_count_map

dp.enable_features("contrib", "honest-but-curious")

SPACE = dpg.graph_domain(labeled=True), dpg.edge_distance()
SNAPSHOT = {"gas": 3.0, "prices": 2.0, "</s>": 3.0, "<s> gas": 3.0, "gas prices": 2.0, "prices </s>": 2.0}


@pytest.fixture(scope="module")
def chat():
    """The synthetic chat text cut at the benchmark's public dates, the snapshot's vocabulary and
    counts, and the private period's pair graph."""
    from benchmarks import chat_text_lm as CT

    log = dpg.datasets.synthetic_chat_text(12_000, seed=2)
    snapshot, private, held = CT.split(log)
    vocabulary = [w for w, c in collections.Counter(w for s in CT.tokens(snapshot) for w in s).items() if c >= 2]
    known = set(vocabulary)
    people = sorted(set(log["sender"].to_list()) | set(log["recipient"].to_list()))
    graph, _ = pair_ngram_graph(private, people, text="text", analyzer=lambda s: s.split(" "), vocabulary=vocabulary)
    return dict(vocabulary=vocabulary, snapshot=ngram_counts(CT.tokens(snapshot, known), (1, 2)), graph=graph,
                held=CT.tokens(held, known))


def test_the_map_is_openDPs_conversion_of_the_union_at_the_boundary():
    meas = dpg.text.make_private_language_model(*SPACE, dp.loss_of(epsilon=1.0, delta=1e-6), snapshot_counts=SNAPSHOT, vocabulary=["gas", "prices"])
    eps, delta = meas.map(1)
    assert eps <= 1.0 and delta <= 1e-6
    assert meas.check(1, (eps, 1e-6)) and not meas.check(1, (eps * 0.999, 1e-6)) and not meas.check(1, (eps, 0.9e-6))
    # the same union built by hand, converted by OpenDP: the same (ε, δ)
    l2 = dp.l02inf_distance(dp.absolute_distance(T=dp.f64))
    count_map = SPACE >> dpg.then_label_count_map(16, output_metric=l2)
    scale, threshold = dpg.calibrate_gaussian_threshold(count_map, 1, dpg.zcdp_budget(1.0, 5e-7), 5e-7)
    union = count_map >> dpg.then_corrected_gaussian_threshold(scale, threshold)
    assert dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(union), 1e-6).map(1) == (eps, delta)


def test_nothing_released_gives_the_snapshot_model():
    graph = dpg.Graph.from_edges([0], [1], num_nodes=3, labels=[["gas", "<s> gas"]])
    out = dpg.text.make_private_language_model(*SPACE, dp.loss_of(epsilon=0.5, delta=1e-6), snapshot_counts=SNAPSHOT, vocabulary=["gas", "prices"],
                                               release_snapshot_keys=False)(graph)
    assert out.private_model is None and out.weight == 0.0 and out.released == {} and out.snapshot_keys == 0
    assert out.model.prob("prices", ["gas"]) == NGramModel.from_counts(SNAPSHOT, order=2, vocabulary=["gas", "prices"]).prob("prices", ["gas"])


@pytest.mark.thorough  # a usefulness figure (4 s)
def test_it_learns_what_the_snapshot_cannot_and_more_budget_does_not_hurt(chat):
    alone = NGramModel.from_counts(chat["snapshot"], order=2, vocabulary=chat["vocabulary"]).perplexity(chat["held"])
    values = {}
    for eps in (1.0, 10.0):
        meas = dpg.text.make_private_language_model(*SPACE, dp.loss_of(epsilon=eps, delta=1e-6), snapshot_counts=chat["snapshot"], vocabulary=chat["vocabulary"])
        out = meas(chat["graph"])
        beyond = [v for g, v in out.released.items() if g not in chat["snapshot"] and " " in g]
        assert out.weight == 0.3 and all(v >= out.threshold for v in beyond)  # new n-grams cleared the threshold
        assert beyond or eps < 10  # at ε = 10 some bigram the snapshot never saw is learned
        assert out.snapshot_keys >= len(chat["vocabulary"])
        assert set(out.model.models[0].vocabulary) == set(out.model.models[1].vocabulary)
        values[eps] = out.model.perplexity(chat["held"])
    # measured on this log (12,000 messages): snapshot 46.1, ε = 1: 39.8, ε = 10: 39.7
    assert values[10.0] <= values[1.0] * 1.01 and values[1.0] < 0.95 * alone


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"epsilon": 0.0}, ValueError, "epsilon"),
        ({"delta": 1.0}, ValueError, "delta"),
        ({"max_ngrams_per_pair": 0}, ValueError, "max_ngrams_per_pair"),
        ({"snapshot_counts": {}}, ValueError, "snapshot_counts"),
        ({"vocabulary": []}, ValueError, "vocabulary"),
        ({"vocabulary": "gas prices"}, TypeError, "vocabulary"),
        ({"order": 0}, ValueError, "order"),
        ({"weight": 1.0}, ValueError, "weight"),
        ({"weight": True}, ValueError, "weight"),
    ],
)
def test_bad_arguments_are_refused_when_built(kwargs, error, match):
    arguments = {"epsilon": 1.0, "delta": 1e-6, "snapshot_counts": SNAPSHOT, "vocabulary": ["gas", "prices"], **kwargs}
    budget = dp.loss_of(epsilon=arguments.pop("epsilon"), delta=arguments.pop("delta"))
    with pytest.raises(error, match=match):
        dpg.text.make_private_language_model(*SPACE, budget, **arguments)


def test_an_unlabelled_graph_domain_is_refused():
    with pytest.raises((TypeError, ValueError)):
        dpg.text.make_private_language_model(dpg.graph_domain(), dpg.edge_distance(), dp.loss_of(epsilon=1.0, delta=1e-6), snapshot_counts=SNAPSHOT,
                                             vocabulary=["gas"])


def test_blank_released_labels_do_not_break_the_post_processing():
    """The red team: a released label that is blank ('' or a tab) made the model's construction
    raise after the noise was drawn (a refusal depending on private content). Such keys are now
    left out of the model; the rest is used."""
    graph = dpg.Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 0], num_nodes=4, labels=[["", "\t", "gas"]] * 4)
    meas = dpg.text.make_private_language_model(*SPACE, dp.loss_of(epsilon=1e6, delta=0.5), snapshot_counts=SNAPSHOT, vocabulary=["gas", "prices"])
    out = meas(graph)
    assert out.private_model is not None and set(out.released) <= {"gas"} | set(SNAPSHOT) | {"<unk>"}


def test_a_changed_label_set_is_distance_two_under_edge_distance_and_one_under_edge_label_distance():
    meas = dpg.text.make_private_language_model(dpg.graph_domain(labeled=True), dpg.edge_label_distance(), dp.loss_of(epsilon=1.0, delta=1e-6),
                                                snapshot_counts=SNAPSHOT, vocabulary=["gas", "prices"])
    eps, delta = meas.map(1)
    assert eps <= 1.0 and delta <= 1e-6


def test_the_snapshot_keys_are_always_released_and_the_map_is_unchanged():
    """The snapshot's keys are lifted above the threshold before the noise: every one is in the
    release whatever the graph (here one no pair used), and the map is the one without them."""
    graph = dpg.Graph.from_edges([0], [1], num_nodes=3, labels=[["gas", "<s> gas"]])
    kwargs = dict(snapshot_counts=SNAPSHOT, vocabulary=["gas", "prices"])
    with_keys = dpg.text.make_private_language_model(*SPACE, dp.loss_of(epsilon=0.5, delta=1e-6), **kwargs)
    without = dpg.text.make_private_language_model(*SPACE, dp.loss_of(epsilon=0.5, delta=1e-6), release_snapshot_keys=False, **kwargs)
    assert with_keys.map(1) == without.map(1)
    out = with_keys(graph)
    public = set(SNAPSHOT) | {"<unk>", "gas", "prices"}
    assert set(out.released) == public and out.snapshot_keys == len(public)
    with pytest.raises(TypeError, match="release_snapshot_keys"):
        dpg.text.make_private_language_model(*SPACE, dp.loss_of(epsilon=0.5, delta=1e-6), release_snapshot_keys=1, **kwargs)


def test_lifting_the_snapshot_keys_keeps_every_distance_between_neighbours():
    """Brute force: for every graph of up to two labelled edges over three labels (two public) and
    every edge removed or relabelled, the lifted counts differ exactly as the counts do (ℓ0, ℓ2, ℓ∞)."""
    import itertools

    from opendp_graph.text._private_lm import _make_offset
    from opendp_graph.transformations.labels import label_count_map

    count_map = make_label_count_map(*SPACE, 2, output_metric=dp.l02inf_distance(dp.absolute_distance(T=dp.f64)))
    lift = _make_offset(count_map, frozenset({"gas", "prices"}), 1000)
    assert lift.map((2, 1.5, 1.0)) == (2, 1.5, 1.0)
    label_sets = [[], ["gas"], ["up"], ["gas", "up"], ["gas", "prices", "up"]]

    def distance(a, b):
        diff = [a.get(k, 0) - b.get(k, 0) for k in set(a) | set(b)]
        diff = [d for d in diff if d]
        return len(diff), sum(d * d for d in diff), max(map(abs, diff), default=0)

    def counts(edges):
        labels = [e for e in edges]
        graph = dpg.Graph.from_edges(list(range(len(labels))), [len(labels)] * len(labels), num_nodes=len(labels) + 1, labels=labels)
        return label_count_map(graph, 2) if labels else {}

    checked = 0
    for size in range(1, 3):
        for edges in itertools.product(label_sets, repeat=size):
            base = counts(list(edges))
            for i in range(size):
                for other in [None, *label_sets]:
                    changed = list(edges[:i]) + ([] if other is None else [other]) + list(edges[i + 1 :])
                    neighbour = counts(changed)
                    assert distance(lift(base), lift(neighbour)) == distance(base, neighbour)
                    checked += 1
    assert checked > 300
