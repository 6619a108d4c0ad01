"""The one-call route dpg.text.private_language_model: the log → pair graph step moves the released
counts by no more than the constructor's map per unit (brute force over random small logs, every
pair), the call spends what the constructor says, the data is checked against the unit before any
text is read, and the refusals."""

from __future__ import annotations

import math
import random

import numpy as np
import opendp.prelude as dp
import polars as pl
import pytest

import opendp_graph as dpg
from opendp_graph.text._private_lm import unit_pair_graph
from opendp_graph.transformations.labels import label_count_map, make_label_count_map

dp.enable_features("contrib", "honest-but-curious")

WORDS = ["gas", "prices", "up"]
SNAPSHOT = ["gas prices", "gas prices up", "prices up"]
C = 3
L02INF = dp.l02inf_distance(dp.absolute_distance(T=dp.f64))


def units():
    return {
        "edge": (dpg.polars.edge_unit("sender", "recipient"), dpg.edge_distance()),
        "group": (dpg.polars.edge_group_unit(2, "sender", "recipient"), dpg.group_distance(2)),
        "content": (dpg.polars.edge_content_unit("sender", "recipient"), dpg.edge_label_distance()),
    }


def random_log(rng: random.Random, people: int = 4, messages: int = 6) -> pl.DataFrame:
    """Messages with one to three recipients (oneself included), texts over the vocabulary and an unknown word."""
    rows = []
    for m in range(messages):
        sender = rng.randrange(people)
        text = " ".join(rng.choice(WORDS + ["zzz"]) for _ in range(rng.randint(0, 4)))
        for recipient in rng.sample(range(people), rng.randint(1, 3)):
            rows.append((m, sender, recipient, text))
    return pl.DataFrame(rows, schema=["message_id", "sender", "recipient", "text"], orient="row")


def counts(log: pl.DataFrame, unit) -> dict[str, int]:
    if log.height == 0:
        return {}
    graph = unit_pair_graph(log, unit, text="text", analyzer=str.split, vocabulary=WORDS, order=2)
    return label_count_map(graph, C)


def moved(a: dict, b: dict) -> tuple[int, float, float]:
    keys = set(a) | set(b)
    diff = np.array([a.get(k, 0) - b.get(k, 0) for k in keys], dtype=float)
    diff = diff[diff != 0]
    return len(diff), float(np.sqrt((diff**2).sum())), float(np.abs(diff).max(initial=0.0))


def pair_rows(log: pl.DataFrame, pair: tuple[int, int]) -> pl.Expr:
    a, b = pair
    return ((pl.col("sender") == a) & (pl.col("recipient") == b)) | ((pl.col("sender") == b) & (pl.col("recipient") == a))


def within(change, bound) -> bool:
    return change[0] <= bound[0] and change[1] <= bound[1] + 1e-9 and change[2] <= bound[2]


@pytest.mark.parametrize("logs", [10, pytest.param(25, marks=pytest.mark.thorough)])  # 25 logs: 7 s
def test_removing_pairs_or_changing_a_pairs_text_moves_the_counts_within_the_constructors_map(logs):
    """Every pair of ``logs`` random logs: removing it (edge), removing it with any other pair (group
    of 2), and replacing its texts (content) move the counts the release reads by no more than
    make_label_count_map's map at one unit. Every non-empty label set holds ``</s>`` and the cap keeps
    the first ``c`` labels in sorted order, where ``</s>`` comes first: so the ℓ0 a change can reach
    here is ``c`` (edge), ``2c − 1`` (two pairs) and ``2c − 2`` (a replaced text), and ℓ∞ the bound's."""
    rng = random.Random(7)
    found = dict.fromkeys(units(), (0, 0.0, 0.0))
    for _ in range(logs):
        log = random_log(rng)
        for name, (unit, metric) in units().items():
            bound = make_label_count_map(dpg.graph_domain(labeled=True), metric, C, output_metric=L02INF).map(1)
            base = counts(log, unit)
            pairs = sorted({tuple(sorted(p)) for p in zip(log["sender"], log["recipient"]) if p[0] != p[1]})
            for pair in pairs:
                if name == "edge":
                    neighbours = [log.filter(~pair_rows(log, pair))]
                elif name == "group":
                    neighbours = [log.filter(~pair_rows(log, pair) & ~pair_rows(log, other)) for other in pairs if other != pair]
                else:
                    new_text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4)))
                    neighbours = [log.with_columns(pl.when(pair_rows(log, pair)).then(pl.lit(new_text)).otherwise(pl.col("text")).alias("text"))]
                for neighbour in neighbours:
                    change = moved(base, counts(neighbour, unit))
                    assert within(change, bound), (name, pair, change, bound)
                    found[name] = tuple(map(max, found[name], change))
    assert found["edge"][0] == C and found["edge"][2] == 1
    assert found["group"][2] == 2
    assert found["content"][2] == 1
    group = units()["group"][0]
    fresh = pl.DataFrame({"sender": [1, 3, 5], "recipient": [2, 4, 6], "text": ["gas prices up", "up up", "gas"]})
    assert moved(counts(fresh, group), counts(fresh.tail(1), group))[0] == 2 * C - 1
    content = units()["content"][0]
    before = pl.DataFrame({"sender": [1, 3], "recipient": [2, 4], "text": ["gas prices", "up"]})
    after = before.with_columns(pl.Series("text", ["up up", "up"]))
    assert moved(counts(before, content), counts(after, content))[0] == 2 * C - 2

def test_self_messages_are_left_out():
    unit = dpg.polars.edge_unit("sender", "recipient")
    log = pl.DataFrame({"sender": [1, 1], "recipient": [2, 1], "text": ["gas", "prices up"]})
    assert counts(log, unit) == counts(log.head(1), unit)


@pytest.mark.parametrize("name", ["edge", "group", "content"])
def test_the_call_spends_what_the_constructor_says(name):
    unit, metric = units()[name]
    log = pl.DataFrame({"sender": [1, 2, 3], "recipient": [2, 3, 1], "text": ["gas prices", "gas", "prices up"]})
    out = dpg.text.private_language_model(log, unit=unit, privacy_loss=dp.loss_of(epsilon=2.0, delta=1e-7), snapshot=SNAPSHOT, analyzer=str.split)
    snapshot_counts = dpg.text.ngram_counts([s.split() for s in SNAPSHOT], (1, 2))
    meas = dpg.text.make_private_language_model(
        dpg.graph_domain(labeled=True), metric, dp.loss_of(epsilon=2.0, delta=1e-7), snapshot_counts=snapshot_counts, vocabulary=WORDS
    )
    assert (out.epsilon, out.delta) == meas.map(1)
    assert out.epsilon <= 2.0 and out.delta <= 1e-7
    assert out.unit == unit.unit and out.vocabulary == tuple(WORDS) and out.left_out
    assert math.isclose(sum(out.model.prob(w, ["gas"]) for w in out.model.vocabulary), 1.0)


def test_a_frame_snapshot_is_one_text_per_message():
    log = pl.DataFrame({"sender": [1], "recipient": [2], "text": ["gas"]})
    # "up" is seen twice only if the two rows of message 0 were counted twice
    frame = pl.DataFrame({"message_id": [0, 0, 1, 2], "text": ["gas up", "gas up", "gas prices", "prices"]})
    out = dpg.text.private_language_model(log, unit=dpg.polars.edge_unit("sender", "recipient"), privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-6), snapshot=frame, analyzer=str.split)
    assert out.vocabulary == ("gas", "prices")


@pytest.mark.thorough  # a usefulness figure on the chat text (3 s)
def test_it_learns_on_the_chat_text_and_more_budget_does_not_hurt():
    from benchmarks import chat_text_lm as CT

    log = dpg.datasets.synthetic_chat_text(12_000, seed=2)
    snapshot, private, held = CT.split(log)
    unit = dpg.polars.edge_unit("sender", "recipient")
    out = {eps: dpg.text.private_language_model(private, unit=unit, privacy_loss=dp.loss_of(epsilon=eps, delta=1e-6), snapshot=snapshot, analyzer=lambda s: s.split(" "))
           for eps in (1.0, 10.0)}
    known = set(out[1.0].vocabulary)
    test = CT.tokens(held, known)
    snapshot_alone = out[1.0].model.models[1].perplexity(test)
    small, large = out[1.0].model.perplexity(test), out[10.0].model.perplexity(test)
    assert small < snapshot_alone and large <= small + 0.5


def test_the_log_is_checked_against_the_unit_before_any_text_is_read():
    """A null endpoint and a broken declared bound are refused with messages that name no id, count or text."""
    secret = "the merger closes friday"
    nulls = pl.DataFrame({"sender": [1, None], "recipient": [2, 3], "text": [secret, secret]})
    with pytest.raises(ValueError) as refused:
        dpg.text.private_language_model(nulls, unit=dpg.polars.edge_unit("sender", "recipient"), privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-6), snapshot=SNAPSHOT, analyzer=str.split)
    assert "merger" not in str(refused.value) and "3" not in str(refused.value)
    many = pl.DataFrame({"sender": [1, 1, 2], "recipient": [2, 2, 1], "text": [secret] * 3})
    with pytest.raises(ValueError) as refused:
        dpg.text.private_language_model(many, unit=dpg.polars.edge_unit("sender", "recipient", max_messages=2), privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-6),
                                        snapshot=SNAPSHOT, analyzer=str.split)
    assert "merger" not in str(refused.value)
    reads = []
    with pytest.raises(ValueError):
        dpg.text.private_language_model(nulls, unit=dpg.polars.edge_unit("sender", "recipient"), privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-6), snapshot=SNAPSHOT,
                                        analyzer=lambda s: reads.append(s) or s.split())
    assert secret not in reads  # only the snapshot was tokenised


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(unit="edge"), TypeError, "unit must be"),
        (dict(unit=None), TypeError, "unit must be"),
        (dict(text="body"), ValueError, "no column 'body'"),
        (dict(snapshot="gas prices"), TypeError, "snapshot must be"),
        (dict(snapshot=[1, 2]), TypeError, "list of texts"),
        (dict(snapshot=["gas"]), ValueError, "vocabulary is empty"),
        (dict(min_count=0), ValueError, "min_count"),
        (dict(privacy_loss=dp.loss_of(epsilon=0.0, delta=1e-6)), ValueError, "epsilon"),
        (dict(weight=1.0), ValueError, "weight"),
        (dict(analyzer=3), TypeError, "analyzer"),
    ],
)
def test_bad_arguments_are_refused(kwargs, error, match):
    log = pl.DataFrame({"sender": [1], "recipient": [2], "text": ["gas"]})
    arguments = dict(unit=dpg.polars.edge_unit("sender", "recipient"), privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-6), snapshot=SNAPSHOT, analyzer=str.split) | kwargs
    with pytest.raises(error, match=match):
        dpg.text.private_language_model(log, **arguments)


def test_a_pufferfish_unit_is_refused_with_the_route_to_use():
    structure = dpg.Graph.from_edges([0, 1], [1, 2])
    unit = dpg.polars.pufferfish_unit(dpg.pufferfish.EdgeLevelModel(), "sender", "recipient", structure=structure)
    with pytest.raises(ValueError, match="pufferfish_distance"):
        one_call(pl.DataFrame({"sender": [1], "recipient": [2], "text": ["gas"]}), unit)

def test_a_log_that_is_not_a_frame_or_has_no_text_column_type_is_refused():
    unit = dpg.polars.edge_unit("sender", "recipient")
    with pytest.raises(TypeError, match="Polars"):
        dpg.text.private_language_model([(1, 2, "gas")], unit=unit, privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-6), snapshot=SNAPSHOT, analyzer=str.split)
    with pytest.raises(TypeError, match="must hold text"):
        dpg.text.private_language_model(pl.DataFrame({"sender": [1], "recipient": [2], "text": [3]}), unit=unit, privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-6),
                                        snapshot=SNAPSHOT, analyzer=str.split)


def test_an_empty_log_gives_the_snapshot_model():
    log = pl.DataFrame({"sender": [], "recipient": [], "text": []}, schema={"sender": pl.Int64, "recipient": pl.Int64, "text": pl.String})
    out = dpg.text.private_language_model(log, unit=dpg.polars.edge_unit("sender", "recipient"), privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-6), snapshot=SNAPSHOT,
                                          analyzer=str.split, release_snapshot_keys=False)
    assert out.private_model is None and out.released == {}
    out = dpg.text.private_language_model(log, unit=dpg.polars.edge_unit("sender", "recipient"), privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-6), snapshot=SNAPSHOT,
                                          analyzer=str.split)
    assert set(out.released) == set(dpg.text.ngram_counts([s.split() for s in SNAPSHOT], (1, 2))) | {"<unk>"}



# --------------------------------------------------------------- red team of the one call (helper-13)
EDGE = dict(privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-6), snapshot=SNAPSHOT, analyzer=str.split)


def one_call(log, unit=None, **kwargs):
    return dpg.text.private_language_model(log, unit=unit or dpg.polars.edge_unit("sender", "recipient"), **(EDGE | kwargs))


def test_an_analyzer_that_fails_on_a_private_text_does_not_tell_that_the_text_is_there():
    """str.split on a null text raised, and only when that pair was in the log: now a text the
    analyzer cannot read has no words, so neighbouring logs both release."""
    with_null = pl.DataFrame({"sender": [1, 2, 4], "recipient": [2, 3, 5], "text": ["gas prices", "prices up", None]})
    one_call(with_null)
    one_call(with_null.head(2))
    self_null = pl.DataFrame({"sender": [1, 2, 9], "recipient": [2, 3, 9], "text": ["gas prices", "prices up", None]})
    one_call(self_null)
    ascii_only = pl.DataFrame({"sender": [1], "recipient": [2], "text": ["café prices"]})
    one_call(ascii_only, analyzer=lambda s: s.encode("ascii").decode().split())
    private_none = one_call(ascii_only, analyzer=lambda s: None if "é" in s else s.split())  # not a list: no words
    assert private_none.epsilon <= 1.0
    with pytest.raises(TypeError, match="must return a list of words"):  # on the public snapshot: said
        one_call(ascii_only, analyzer=lambda s: None)


def test_a_word_with_a_nul_or_a_space_is_not_in_the_vocabulary():
    """A snapshot word with NUL was accepted and then refused only when a pair used it."""
    snapshot = ["gas\x00x prices", "gas\x00x up", "prices up", "prices up"]
    used = pl.DataFrame({"sender": [1, 2], "recipient": [2, 3], "text": ["prices up", "gas\x00x"]})
    out = one_call(used, snapshot=snapshot)
    assert "gas\x00x" not in out.vocabulary and out.vocabulary == ("prices", "up")
    one_call(used.head(1), snapshot=snapshot)
    spaced = one_call(used.head(1), snapshot=["a b", "a b"], analyzer=lambda s: [s, "</s>", "<unk>", "up", "up"])
    assert spaced.vocabulary == ("up",)


def test_a_lazy_log_whose_evaluation_fails_is_withheld():
    lazy = pl.LazyFrame({"sender": ["7x-alice", "1"], "recipient": ["2", "3"], "text": ["gas", "secret diagnosis"]}).with_columns(
        pl.col("sender").cast(pl.Int64), pl.col("recipient").cast(pl.Int64))
    with pytest.raises(ValueError) as refused:
        one_call(lazy)
    assert "alice" not in str(refused.value) and "diagnosis" not in str(refused.value)
    fine = pl.LazyFrame({"sender": [1], "recipient": [2], "text": ["gas prices"]})
    assert one_call(fine).epsilon <= 1.0


def test_an_enum_id_dtype_refusal_does_not_list_the_people():
    people = pl.Enum(["alice", "bob", "carol"])
    log = pl.DataFrame({"sender": ["alice"], "recipient": ["bob"], "text": ["gas"]}).with_columns(pl.col("sender").cast(people))
    with pytest.raises(TypeError) as refused:
        one_call(log)
    assert "alice" not in str(refused.value) and "Enum" in str(refused.value)


def test_a_fraction_budget_just_below_a_float_is_not_rounded_up():
    from fractions import Fraction

    asked = Fraction(1, 10**6) - Fraction(1, 10**40)
    out = one_call(pl.DataFrame({"sender": [1], "recipient": [2], "text": ["gas"]}), privacy_loss=dp.loss_of(epsilon=1.0, delta=asked))
    assert out.delta <= asked
    near_one = one_call(pl.DataFrame({"sender": [1], "recipient": [2], "text": ["gas"]}), weight=1 - Fraction(1, 10**30))
    assert near_one.weight in (0.0, float(np.nextafter(1.0, 0.0)))  # below 1, as asked (0.0: nothing released)


def test_odd_columns_and_wide_ids_are_handled_or_refused_before_the_text_is_read():
    labels = pl.DataFrame({"labels": [1, 2], "to": [2, 3], "text": ["gas prices", "prices up"]})
    assert one_call(labels, dpg.polars.edge_unit("labels", "to")).epsilon <= 1.0
    reads = []
    wide = pl.DataFrame({"sender": [1], "recipient": [2], "text": ["gas"]}).cast({"sender": pl.Int128, "recipient": pl.Int128})
    with pytest.raises(TypeError, match="64 bits"):
        one_call(wide, analyzer=lambda s: reads.append(s) or s.split())
    assert reads == SNAPSHOT  # the snapshot only: the log was refused before its text was read
    with pytest.raises(ValueError, match="id column"):
        one_call(pl.DataFrame({"sender": [1], "recipient": [2], "text": ["gas"]}), text="sender")
    with pytest.raises(ValueError, match="below 2\\*\\*32"):
        one_call(pl.DataFrame({"sender": [1], "recipient": [2], "text": ["gas"]}), max_ngrams_per_pair=2**32)


def test_snapshot_forms_and_the_private_log_as_snapshot():
    log = pl.DataFrame({"sender": [1, 2], "recipient": [2, 3], "text": ["gas prices", "prices up"]})
    assert one_call(log, snapshot=(t for t in SNAPSHOT)).vocabulary == tuple(WORDS)  # a generator is read once
    assert one_call(log, snapshot=SNAPSHOT + [None]).vocabulary == tuple(WORDS)
    with pytest.raises(ValueError, match="private log"):
        one_call(log, snapshot=log)
    with pytest.raises(TypeError, match="must hold text"):
        one_call(log, snapshot=pl.DataFrame({"text": [1, 2]}))
    with pytest.raises(TypeError, match="must hold text"):
        one_call(log.with_columns(pl.col("text").cast(pl.Categorical)))
    nulls = pl.DataFrame({"sender": [1], "recipient": [2], "text": [None]})
    one_call(nulls)  # an all-null text column is a log without words, not an error


# --------------------------------------------------------------------------- the person unit
def person_counts(log: pl.DataFrame, bound: int, keys: list[str], per_message: int):
    from opendp_graph.text._private_lm import _total_analyzer

    table = dpg.text.person_ngram_table(log, orders=(1, 2), text="text", analyzer=_total_analyzer(str.split), vocabulary=WORDS)
    counts = dpg.text.make_person_ngram_counts(dpg.text.person_text_domain(bound), dpg.polars.person_log_distance(), keys, per_message,
                                               output_metric=dp.l2_distance(T=dp.f64))
    return np.array(counts(table), dtype=float), counts


def test_removing_a_persons_rows_moves_the_person_counts_within_the_map():
    """Every person of 80 random logs (messages to one to three people, oneself included): the
    log without the rows they are in moves the per-message counts by at most D·√L in ℓ2 (the map
    at one person, D the most rows anyone is in), and D·√L is reached."""
    keys = sorted(dpg.text.ngram_counts([t.split() for t in SNAPSHOT], (1, 2)).keys() | {"<unk>", "up"})
    rng = random.Random(11)
    reached = 0.0
    for _ in range(80):
        log = random_log(rng)
        bound = int(dpg.polars.rows_per_person(log, "sender", "recipient")["rows"].max())
        base, counts = person_counts(log, bound, keys, 2)
        for person in set(log["sender"]) | set(log["recipient"]):
            neighbour = log.filter((pl.col("sender") != person) & (pl.col("recipient") != person))
            moved_by = float(np.linalg.norm(base - person_counts(neighbour, bound, keys, 2)[0]))
            assert moved_by <= counts.map(1) + 1e-9, (log, person, moved_by, counts.map(1))
            reached = max(reached, moved_by / counts.map(1))
    assert reached > 0.5  # random logs come near the bound; a person alone on D identical messages reaches it
    alone = pl.DataFrame({"message_id": [0, 1], "sender": [5, 5], "recipient": [5, 5], "text": ["gas prices", "gas prices"]})
    full, counts = person_counts(alone, 2, keys, 2)
    assert math.isclose(float(np.linalg.norm(full)), counts.map(1))


def test_the_person_route_spends_what_it_says_and_checks_the_bound_first():
    log = pl.DataFrame({"message_id": [1, 1, 2, 3], "sender": [1, 1, 2, 3], "recipient": [2, 3, 3, 3], "text": ["gas prices"] * 2 + ["prices up", "up"]})
    unit = dpg.polars.person_unit("sender", "recipient", max_messages=4, neighbouring="add_remove")
    out = one_call(log, unit, privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-7))
    assert out.unit == "person" and out.epsilon <= 1.0 and out.delta <= 1e-7 and out.threshold == 0
    assert set(out.released) == set(dpg.text.ngram_counts([t.split() for t in SNAPSHOT], (1, 2))) | {"<unk>"}
    assert any("max_ngrams_per_message" in reason for reason in out.left_out)
    replace = one_call(log, dpg.polars.person_unit("sender", "recipient", max_messages=4), privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-7))
    assert replace.scale > out.scale  # rewiring costs √2 more noise
    reads = []
    with pytest.raises(ValueError) as refused:  # person 3 is in 3 rows: above a bound of 2
        one_call(log, dpg.polars.person_unit("sender", "recipient", max_messages=2), analyzer=lambda s: reads.append(s) or s.split())
    assert reads == SNAPSHOT and "3" not in str(refused.value)
    with pytest.raises(ValueError, match="message_id"):
        one_call(log.drop("message_id"), unit)


@pytest.mark.thorough  # a usefulness figure on the chat text (6 s)
def test_person_level_learns_on_the_chat_text_at_epsilon_ten():
    """Measured (60,000 messages, D = 1,024): the snapshot 182.6, person level at ε = 10 about
    173 (benchmarks/CHAT_TEXT_LM.txt); on 12,000 messages (a mixture did worse there, 54 against 46)
    it must at least not be worse than the snapshot, in the median of 3 releases (the issue's
    measure). A single release can be: 30 releases in a row equalled the snapshot exactly (nothing
    cleared the cleaning level), and one release in a full run of 2026-11-29 was more than 1 %
    worse (open, issue 41)."""
    from benchmarks import chat_text_lm as CT

    log = dpg.datasets.synthetic_chat_text(12_000, seed=2)
    snapshot, private, held = CT.split(log)
    busiest = int(dpg.polars.rows_per_person(private, "sender", "recipient")["rows"].max())
    unit = dpg.polars.person_unit("sender", "recipient", max_messages=1 << (busiest - 1).bit_length(), neighbouring="add_remove")
    outs = [
        dpg.text.private_language_model(
            private, unit=unit, privacy_loss=dp.loss_of(epsilon=10.0, delta=1e-6), snapshot=snapshot, analyzer=lambda s: s.split(" ")
        )
        for _ in range(3)
    ]
    known = set(outs[0].vocabulary)
    test = CT.tokens(held, known)
    alone = dpg.text.NGramModel.from_counts(dpg.text.ngram_counts(CT.tokens(snapshot, known), (1, 2)), order=2, vocabulary=outs[0].vocabulary)
    assert sorted(out.model.perplexity(test) for out in outs)[1] <= 1.01 * alone.perplexity(test)


# ------------------------------------------------------------- red team of the person route (helper-14)
def test_a_lazy_log_whose_schema_cannot_be_read_is_withheld(tmp_path):
    path = tmp_path / "log.ndjson"
    path.write_text('{"message_id": 1, "sender": 1, "recipient": 2, "text": "gas prices"}\n'
                    '{"message_id": 2, "sender": 2, "recipient": 3, "text": "SECRET merger" XX}\n')
    with pytest.raises(ValueError) as refused:
        one_call(pl.scan_ndjson(path))
    assert "SECRET" not in str(refused.value) and "'X'" not in str(refused.value) and "character" not in str(refused.value)


def test_a_message_whose_rows_disagree_is_refused_at_person_level_before_its_text_is_read():
    unit = dpg.polars.person_unit("sender", "recipient", max_messages=2, neighbouring="add_remove")
    log = pl.DataFrame({"message_id": [1, 1], "sender": ["A", "A"], "recipient": ["B", "v"], "text": ["gas prices", "merger"]})
    reads = []
    with pytest.raises(ValueError, match="different texts") as refused:
        one_call(log, unit, analyzer=lambda s: reads.append(s) or s.split())
    assert "merger" not in str(refused.value) and reads == SNAPSHOT


def test_nested_enum_dtypes_do_not_list_the_people():
    people = pl.Enum(["alice", "bob"])
    log = pl.DataFrame({"sender": [["alice"]], "recipient": [["bob"]], "text": ["gas"]}).cast(
        {"sender": pl.List(people), "recipient": pl.List(people)})
    with pytest.raises(TypeError) as refused:
        one_call(log)
    assert "alice" not in str(refused.value) and "List(Enum)" in str(refused.value)


def test_a_vocabulary_word_with_a_nul_or_a_space_is_refused_by_the_constructor():
    snapshot = {"gas": 3.0, "prices": 2.0, "</s>": 3.0}
    for bad in (["prices", "gas\x00"], ["gas prices"], ["gas", ""]):
        with pytest.raises(ValueError, match="whitespace or NUL"):
            dpg.text.make_private_language_model(dpg.graph_domain(labeled=True), dpg.edge_distance(), dp.loss_of(epsilon=1.0, delta=1e-6),
                                                 snapshot_counts=snapshot, vocabulary=bad)
    dpg.text.make_private_language_model(dpg.graph_domain(labeled=True), dpg.edge_distance(), dp.loss_of(epsilon=1.0, delta=1e-6), snapshot_counts=snapshot,
                                         vocabulary=["gas", "prices", "</s>", "<unk>"])  # the special tokens are the models'
