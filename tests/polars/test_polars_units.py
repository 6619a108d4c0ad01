"""Graph privacy units on message tables: brute-force checks of the rows-per-unit claims, and
rejection of configurations whose guarantee would be wrong."""

import itertools
from collections import Counter

import numpy as np
import opendp.prelude as dp
import polars as pl
from opendp.mod import SymmetricIdDistance
import pytest

import opendp_graph as dpg
from opendp_graph.polars import EdgeContentUnit, EdgeGroupUnit, EdgeUnit, MessageUnit, PersonUnit, PrivacyUnit, PufferfishUnit
from opendp_graph.polars import (
    check_privacy_unit,
    edge_content_unit,
    edge_group_unit,
    edge_unit,
    message_unit,
    pair_identifier,
    person_unit,
    rows_per_pair,
    rows_per_person,
)

# A tiny universe: three people, every directed message type (self-messages included), each
# type present 0, 1 or 2 times. A table is a count vector over the nine types.
PEOPLE = (0, 1, 2)
TYPES = [(s, r) for s in PEOPLE for r in PEOPLE]
DEPT = {0: "a", 1: "a", 2: "b"}  # department of the sender is the grouping column
ALL_TABLES = np.array(list(itertools.product(range(3), repeat=len(TYPES))), dtype=np.int64)
# INCIDENCE[v, t] = 1 when person v is the sender or the recipient of type t (once for a self-message)
INCIDENCE = np.array([[int(v in t) for t in TYPES] for v in PEOPLE], dtype=np.int64)
PAIR_OF = [frozenset(t) for t in TYPES]


def as_frame(counts) -> pl.DataFrame:
    rows = [t for t, c in zip(TYPES, counts) for _ in range(int(c))]
    return pl.DataFrame(
        {"s": [r[0] for r in rows], "r": [r[1] for r in rows], "dept": [DEPT[r[0]] for r in rows]},
        schema={"s": pl.Int64, "r": pl.Int64, "dept": pl.String},
    )


def in_person_domain(tables, bound):
    return (tables @ INCIDENCE.T <= bound).all(axis=1)


def neighbour_distances(tables, touched):
    """For tables that agree outside the types ``touched``, every pairwise L1 distance (=
    symmetric distance of the multisets) inside; yields (max distance, max distance from an
    empty inside) per group."""
    outside = ~touched
    keys = {}
    for row in tables:
        keys.setdefault(row[outside].tobytes(), []).append(row[touched])
    for group in keys.values():
        inside = np.array(group)
        pairwise = np.abs(inside[:, None, :] - inside[None, :, :]).sum(axis=2)
        sizes = inside.sum(axis=1)
        has_empty = (sizes == 0).any()
        yield int(pairwise.max()), int(sizes.max()) if has_empty else 0


@pytest.mark.parametrize("bound", [1, 2, 3])
def test_person_bound_by_brute_force(bound):
    """Tables in the domain (each person in <= D rows, both roles) that differ only in one
    person's rows are at symmetric distance <= 2D (replace) and <= D from the table without
    that person's rows (add/remove); both are attained, and counting only sent messages would
    not be enough."""
    domain = ALL_TABLES[in_person_domain(ALL_TABLES, bound)]
    replace = person_unit("s", "r", max_messages=bound).per_unit
    add_remove = person_unit("s", "r", max_messages=bound, neighbouring="add_remove").per_unit
    assert (replace, add_remove) == (2 * bound, bound)
    worst_replace = worst_add_remove = 0
    for v in PEOPLE:
        touched = INCIDENCE[v].astype(bool)
        for pair_max, from_empty in neighbour_distances(domain, touched):
            worst_replace = max(worst_replace, pair_max)
            worst_add_remove = max(worst_add_remove, from_empty)
    assert worst_replace == replace
    assert worst_add_remove == add_remove
    # a bound on *sent* rows only: the same person can change more rows than the bound
    sent = np.array([[int(t[0] == v) for t in TYPES] for v in PEOPLE])
    sent_domain = ALL_TABLES[(ALL_TABLES @ sent.T <= bound).all(axis=1)]
    worst = max(m for v in PEOPLE for m, _ in neighbour_distances(sent_domain, INCIDENCE[v].astype(bool)))
    assert worst > 2 * bound


def test_rows_per_person_and_pair_match_brute_force():
    rng = np.random.default_rng(3)
    for counts in ALL_TABLES[rng.choice(len(ALL_TABLES), 60, replace=False)]:
        frame = as_frame(counts)
        got = dict(rows_per_person(frame, "s", "r").rows())
        want = {v: int(n) for v, n in zip(PEOPLE, INCIDENCE @ counts) if n}
        assert got == want
        pairs = Counter()
        for t, c in zip(TYPES, counts):
            pairs[PAIR_OF[TYPES.index(t)]] += int(c)
        keys = frame.select(pair_identifier("s", "r").alias("p"), pl.col("s"), pl.col("r")).rows()
        name = {p: frozenset((s, r)) for p, s, r in keys}
        assert {name[p]: n for p, n in rows_per_pair(frame, "s", "r").rows()} == {k: v for k, v in pairs.items() if v}


def test_pair_identifier_is_one_key_per_unordered_pair():
    frame = pl.DataFrame({"s": [1, 2, 12, 1, 3], "r": [2, 1, 3, 23, 3]})
    keys = frame.select(pair_identifier("s", "r"))[:, 0].to_list()
    assert keys[0] == keys[1]
    assert len({keys[0], keys[2], keys[3], keys[4]}) == 4  # "1"+"23" is not "12"+"3"


@pytest.mark.parametrize("max_messages", [1, 2])
def test_edge_units_by_brute_force(max_messages):
    """Tables with at most M rows per unordered pair, differing only in one pair's rows:
    add/remove of the pair is one identifier and <= M rows; replacing the pair's rows keeps the
    identifier set and moves <= 2M rows; groups of k pairs move <= k*M rows; all attained."""
    loops = [i for i, t in enumerate(TYPES) if t[0] == t[1]]
    pair_members = {}
    for i, p in enumerate(PAIR_OF):
        pair_members.setdefault(p, []).append(i)
    tables = ALL_TABLES[(ALL_TABLES[:, loops] == 0).all(axis=1)]  # edges need two people
    per_pair = np.stack([tables[:, idx].sum(axis=1) for p, idx in pair_members.items() if len(p) == 2], axis=1)
    domain = tables[(per_pair <= max_messages).all(axis=1)]
    add_remove = edge_unit("s", "r", max_messages=max_messages).per_unit
    content = edge_content_unit("s", "r", max_messages=max_messages).per_unit
    worst_add = worst_replace = 0
    for p, idx in pair_members.items():
        if len(p) != 2:
            continue
        touched = np.zeros(len(TYPES), dtype=bool)
        touched[idx] = True
        for pair_max, from_empty in neighbour_distances(domain, touched):
            worst_add = max(worst_add, from_empty)
        # content change: the pair is present on both sides
        present = domain[domain[:, idx].sum(axis=1) > 0]
        for pair_max, _ in neighbour_distances(present, touched):
            worst_replace = max(worst_replace, pair_max)
    assert worst_add == add_remove == max_messages
    assert worst_replace == content == 2 * max_messages
    assert edge_group_unit(3, "s", "r", max_messages=max_messages).per_unit == 3 * max_messages


def test_table_units_mean_the_graph_units():
    """Tables that differ in one person's rows give graphs at NodeDistance <= 1; tables that
    differ in one pair's rows give graphs at EdgeDistance <= 2 (<= 1 for add/remove)."""
    rng = np.random.default_rng(11)
    loops = [i for i, t in enumerate(TYPES) if t[0] == t[1]]
    tables = ALL_TABLES[(ALL_TABLES[:, loops] == 0).all(axis=1)]
    node, edge = dpg.NodeDistance(), dpg.EdgeDistance()

    def graph(counts):
        return dpg.polars.graph_from_polars(as_frame(counts), "s", "r", nodes=PEOPLE)

    for _ in range(150):
        x = tables[rng.integers(len(tables))]
        v = int(rng.integers(3))
        touched = INCIDENCE[v].astype(bool)
        y = x.copy()
        y[touched] = rng.integers(0, 3, touched.sum())
        y[loops] = 0
        assert node.distance(graph(x), graph(y)) <= 1
        p = PAIR_OF[int(rng.choice([i for i in range(9) if i not in loops]))]
        z = x.copy()
        idx = [i for i, q in enumerate(PAIR_OF) if q == p]
        z[idx] = 0
        assert edge.distance(graph(x), graph(z)) <= 1
        z[idx] = rng.integers(0, 3, len(idx))
        assert edge.distance(graph(x), graph(z)) <= 2


def test_units_as_opendp_privacy_units():
    assert person_unit("s", "r", max_messages=4).privacy_unit == (dp.symmetric_distance(), 8)
    unit = edge_unit("s", "r")
    metric, d_in = unit.privacy_unit
    assert d_in == 1 and isinstance(metric, SymmetricIdDistance)
    assert metric.identifier.meta.eq(pair_identifier("s", "r"))
    assert edge_group_unit(5, "s", "r").privacy_unit[1] == 5
    assert edge_content_unit("s", "r").privacy_unit[0] == dp.change_one_id_distance(pair_identifier("s", "r"))
    assert unit.d_in(3) == 3
    with pytest.raises(ValueError, match="positive integer"):
        person_unit("s", "r", max_messages=0)
    with pytest.raises(TypeError, match="positive integer"):
        person_unit("s", "r", max_messages=2.5)
    with pytest.raises(ValueError, match="neighbouring must be"):
        person_unit("s", "r", max_messages=2, neighbouring="bounded")
    with pytest.raises(TypeError, match="column name"):
        edge_unit(1, "r")
    with pytest.raises(ValueError, match="positive integer"):
        edge_group_unit(0)
    assert "max_messages=4 per person" in repr(person_unit("s", "r", max_messages=4))


def test_declared_bound_is_checked_on_the_table():
    frame = pl.DataFrame({"s": [1, 1, 2, 3, 3], "r": [2, 2, 1, 3, 1]})
    # rows per person: 1 -> 4, 2 -> 3, 3 -> 2 (the self-message once)
    person_unit("s", "r", max_messages=4).check(frame)
    with pytest.raises(ValueError, match=r"violates the declared bound max_messages=3 per person, so the person-level"):
        person_unit("s", "r", max_messages=3).check(frame)
    with pytest.raises(ValueError, match=r"make_private_total") as refusal:  # the path that works, not "truncate"
        person_unit("s", "r", max_messages=3).check(frame)
    assert "max_messages=None" not in str(refusal.value)
    edge_unit("s", "r", max_messages=3).check(frame)  # pair {1,2} has 3 rows
    with pytest.raises(ValueError, match="per pair"):
        edge_unit("s", "r", max_messages=2).check(frame.lazy())
    edge_unit("s", "r").check(frame)  # identifiers declare nothing
    with pytest.raises(ValueError, match="column 'x' is not in the table"):
        edge_unit("x", "r").check(frame)


def test_check_privacy_unit_accepts_what_opendp_means():
    person = person_unit("s", "r", max_messages=3)
    frame = pl.DataFrame({"s": [0, 1], "r": [1, 2]})
    check_privacy_unit(dp.unit_of(contributions=6), person, frame)
    check_privacy_unit(dp.unit_of(contributions=7), person, frame)
    check_privacy_unit(dp.unit_of(contributions=3), person_unit("s", "r", max_messages=3, neighbouring="add_remove"), frame)
    check_privacy_unit(dp.unit_of(contributions=[dp.polars.Bound(per_group=6)]), person, frame.lazy())
    check_privacy_unit(dp.unit_of(contributions=1, identifier=pair_identifier("s", "r")), edge_unit("s", "r"))
    check_privacy_unit(dp.unit_of(contributions=2, identifier=pair_identifier("s", "r")), edge_group_unit(2, "s", "r"))
    check_privacy_unit((dp.change_one_id_distance(pair_identifier("s", "r")), 1), edge_content_unit("s", "r"))


@pytest.mark.parametrize(
    "privacy_unit, unit, message",
    [
        (dp.unit_of(contributions=5), person_unit("s", "r", max_messages=3), r"2·3 = 6 rows"),
        (dp.unit_of(contributions=1, identifier="s"), person_unit("s", "r", max_messages=3), "does not protect a person"),
        (dp.unit_of(changes=6), person_unit("s", "r", max_messages=3), "same number of rows"),
        (dp.unit_of(contributions=1, identifier="s"), edge_unit("s", "r"), "not the pair of endpoints"),
        (dp.unit_of(contributions=1), edge_unit("s", "r"), "does not express one edge"),
        (dp.unit_of(contributions=1, identifier=pair_identifier("s", "r")), edge_group_unit(2, "s", "r"), "2 identifier"),
        (dp.unit_of(contributions=2), edge_content_unit("s", "r", max_messages=2), r"up to 4 rows"),
        (dp.unit_of(contributions=[dp.polars.Bound(per_group=5)]), person_unit("s", "r", max_messages=3), "6 rows"),
        (dp.unit_of(contributions=[dp.polars.Bound(by=["dept"], per_group=1)]), person_unit("s", "r", max_messages=3), "no total bound"),
        (
            dp.unit_of(contributions=[dp.polars.Bound(per_group=6), dp.polars.Bound(by=["dept"], per_group=2)]),
            person_unit("s", "r", max_messages=3),
            "pass frame=",
        ),
    ],
)
def test_check_privacy_unit_rejects_wrong_guarantees(privacy_unit, unit, message):
    with pytest.raises(ValueError, match=message):
        check_privacy_unit(privacy_unit, unit)


def test_check_privacy_unit_per_group_bounds_against_brute_force():
    """Per-group bounds (``Bound(by=["dept"], per_group=p, num_groups=g)``) are verified on the
    table: accepted exactly when p >= 2 * (largest rows of one person in one group) and
    g >= 2 * (largest number of groups of one person), computed here by hand."""
    rng = np.random.default_rng(5)
    person = person_unit("s", "r", max_messages=6)
    checked = 0
    for counts in ALL_TABLES[rng.choice(len(ALL_TABLES), 25, replace=False)]:
        frame = as_frame(counts)
        if not len(frame) or rows_per_person(frame, "s", "r")["rows"].max() > 6:
            continue
        per = Counter()
        groups: dict = {}
        for s, r, d in frame.rows():
            for v in {s, r}:
                per[(v, d)] += 1
                groups.setdefault(v, set()).add(d)
        rows, ngroups = max(per.values()), max(len(g) for g in groups.values())
        checked += 1
        for p in range(1, 2 * rows + 2):
            for g in range(1, 2 * ngroups + 2):
                unit = dp.unit_of(contributions=[dp.polars.Bound(per_group=12), dp.polars.Bound(by=["dept"], per_group=p, num_groups=g)])
                ok = p >= 2 * rows and g >= 2 * ngroups
                if ok:
                    check_privacy_unit(unit, person, frame)
                else:
                    with pytest.raises(ValueError, match="does not hold"):
                        check_privacy_unit(unit, person, frame)
    assert checked >= 10
    with pytest.raises(ValueError, match="identifier unit"):
        check_privacy_unit(
            dp.unit_of(contributions=[dp.polars.Bound(per_group=1), dp.polars.Bound(by=["dept"], per_group=1)], identifier=pair_identifier("s", "r")),
            edge_unit("s", "r"),
            as_frame(ALL_TABLES[5]),
        )


def test_check_privacy_unit_argument_errors():
    with pytest.raises(TypeError, match="PrivacyUnit"):
        check_privacy_unit(dp.unit_of(contributions=1), "person")
    with pytest.raises(TypeError, match="pair"):
        check_privacy_unit(dp.symmetric_distance(), edge_unit("s", "r"))
    with pytest.raises(TypeError, match="integer"):
        check_privacy_unit((dp.symmetric_distance(), 2.5), person_unit("s", "r", max_messages=1))


# ------------------------------------------------------------------ preconditions on the ids
SEP = "\x1f"
ALL_UNITS = [
    edge_unit("s", "r"),
    edge_unit("s", "r", max_messages=5),
    edge_group_unit(2, "s", "r"),
    edge_content_unit("s", "r"),
    edge_content_unit("s", "r", max_messages=5),
    person_unit("s", "r", max_messages=5),
    person_unit("s", "r", max_messages=5, neighbouring="add_remove"),
]
UNIT_IDS = ["edge-id", "edge-rows", "group-id", "content-id", "content-rows", "person", "person-add-remove"]


def test_pair_identifier_of_a_row_with_a_null_endpoint_is_null():
    """Polars' min/max_horizontal skip nulls: (null, c) used to become the pair c-c, joining the
    real self-pair (c, c); now its identifier is null."""
    frame = pl.DataFrame({"s": [None, "c", "c", "a"], "r": ["c", None, "c", None]})
    keys = frame.select(pair_identifier("s", "r").alias("p"))["p"].to_list()
    assert keys == [None, None, f"c{SEP}c", None]


def test_opendp_treats_null_identifiers_as_one_identifier():
    """What OpenDP does with the null identifier of a hand-built dp.Context: all null-identifier
    rows form one group (truncate_per_group(1) keeps one of them), never a real pair's group.
    Rows (null, c) and (null, d) used to become the pairs c-c and d-d (two groups)."""
    frame = pl.DataFrame({"s": [None, None, "a"], "r": ["c", "d", "b"]})
    for metric in (dp.symmetric_id_distance, dp.change_one_id_distance):
        ctx = dp.Context.compositor(
            data=frame.lazy(),
            privacy_unit=(metric(pair_identifier("s", "r")), 1),
            privacy_loss=dp.loss_of(epsilon=1.0),
            split_evenly_over=1,
        )
        query = ctx.query().truncate_per_group(1, keep="first").select(dp.len(signed=False))
        domain, input_metric = ctx.accountant.input_space
        # a negligible noise scale: the noise is 0 except with probability ~exp(-1e6)
        m = dp.m.make_private_lazyframe(domain, input_metric, ctx.accountant.output_measure, lazyframe=query.polars_plan, global_scale=1e-6)
        assert m(frame.lazy()).collect().item() == 2  # {a, b} and the null identifier


@pytest.mark.parametrize(
    "frame, error, message",
    [
        (pl.DataFrame({"s": [None, "c"], "r": ["c", "d"]}), ValueError, r"the src/dst columns 's'/'r' contain nulls"),
        (pl.DataFrame({"s": ["a", "c"], "r": ["c", None]}), ValueError, r"the src/dst columns 's'/'r' contain nulls"),
        (pl.DataFrame({"s": [1, 2], "r": ["1", "3"]}), TypeError, r"src column 's' has dtype Int64 but the dst column 'r' has dtype String"),
        (pl.DataFrame({"s": [1.0, float("nan")], "r": [2.0, 3.0]}), TypeError, r"not floats"),
        (pl.DataFrame({"s": [1.0, 2.0], "r": [2.0, 3.0]}), TypeError, r"not floats"),
        (pl.DataFrame({"s": [1, 2], "r": [2.0, 3.0]}), TypeError, r"not floats"),
        (pl.DataFrame({"s": [1, 2], "r": [2, 3]}, schema={"s": pl.Int32, "r": pl.Int64}), TypeError, r"one id type"),
        (pl.DataFrame({"s": [True, False], "r": [True, True]}), TypeError, r"dtype Boolean: person ids must be integers or strings"),
    ],
    ids=["null-src", "null-dst", "int-str", "nan", "whole-floats", "int-float", "int32-int64", "bool"],
)
def test_invalid_ids_are_refused_everywhere(frame, error, message):
    """rows_per_person, rows_per_pair, every unit's check and check_privacy_unit(frame=) refuse
    null endpoints (ValueError) and ids of a float or of two dtypes (TypeError). They used to
    count a person "null", put (null, c) in the pair c-c, merge 1 and "1", or fail in Polars."""
    with pytest.raises(error, match=message):
        rows_per_person(frame, "s", "r")
    with pytest.raises(error, match=message):
        rows_per_pair(frame, "s", "r")
    for unit in ALL_UNITS:
        with pytest.raises(error, match=message):
            unit.check(frame)
        with pytest.raises(error, match=message):
            check_privacy_unit(unit.privacy_unit, unit, frame.lazy())


def test_refusal_message_does_not_depend_on_where_the_null_is():
    """The null message names the fact only: the same text whichever row or column holds it."""
    frames = [
        pl.DataFrame({"s": [None, "b", "c"], "r": ["b", "c", "a"]}),
        pl.DataFrame({"s": ["a", "b", "c"], "r": ["b", None, "a"]}),
        pl.DataFrame({"s": [None, None, None], "r": [None, None, None]}, schema={"s": pl.String, "r": pl.String}),
    ]
    for unit in ALL_UNITS:
        messages = set()
        for frame in frames:
            with pytest.raises(ValueError) as info:
                unit.check(frame)
            messages.add(str(info.value))
        assert len(messages) == 1


def test_text_ids_of_one_dtype_are_fine():
    frame = pl.DataFrame({"s": ["a", "b"], "r": ["b", "c"]}).with_columns(pl.col("s", "r").cast(pl.Categorical))
    assert dict(rows_per_person(frame, "s", "r").rows()) == {"a": 1, "b": 2, "c": 1}
    for unit in ALL_UNITS:
        unit.check(frame)
    with pytest.raises(TypeError, match="one id type"):
        rows_per_person(frame.with_columns(pl.col("r").cast(pl.String)), "s", "r")


def test_per_group_bounds_are_read_only_from_a_valid_table():
    """check_privacy_unit verifies per-group bounds on the frame only after the frame's
    preconditions: a null endpoint used to be counted as a person with its own groups."""
    person = person_unit("s", "r", max_messages=6)
    unit = dp.unit_of(contributions=[dp.polars.Bound(per_group=12), dp.polars.Bound(by=["dept"], per_group=12, num_groups=12)])
    frame = pl.DataFrame({"s": [0, None], "r": [1, 2], "dept": ["a", "b"]})
    check_privacy_unit(unit, person, frame.drop_nulls())
    with pytest.raises(ValueError, match="contain nulls"):
        check_privacy_unit(unit, person, frame)


def test_units_refuse_one_column_for_both_endpoints():
    for make in (edge_unit, edge_content_unit, lambda s, r: person_unit(s, r, max_messages=1), lambda s, r: edge_group_unit(2, s, r)):
        with pytest.raises(ValueError, match="same column 's'"):
            make("s", "s")


# ------------------------------------------------------------------ one class per kind of unit
PAIR = pair_identifier("s", "r")
# unit, its class, name, metric, d_in, measured in, bound on, neighbouring, its constructor's unit
KINDS = {
    "edge-id": (EdgeUnit("s", "r"), EdgeUnit, "edge", dp.symmetric_id_distance(PAIR), 1, "identifiers", None, "add_remove", edge_unit("s", "r")),
    "edge-rows": (EdgeUnit("s", "r", max_messages=5), EdgeUnit, "edge", dp.symmetric_distance(), 5, "rows", "pair", "add_remove", edge_unit("s", "r", max_messages=5)),
    "group-id": (EdgeGroupUnit(3, "s", "r"), EdgeGroupUnit, "group of 3 edges", dp.symmetric_id_distance(PAIR), 3, "identifiers", None, "add_remove", edge_group_unit(3, "s", "r")),
    "group-rows": (EdgeGroupUnit(3, "s", "r", max_messages=2), EdgeGroupUnit, "group of 3 edges", dp.symmetric_distance(), 6, "rows", "pair", "add_remove", edge_group_unit(3, "s", "r", max_messages=2)),
    "content-id": (EdgeContentUnit("s", "r"), EdgeContentUnit, "edge content", dp.change_one_id_distance(PAIR), 1, "identifiers", None, "replace", edge_content_unit("s", "r")),
    "content-rows": (EdgeContentUnit("s", "r", max_messages=4), EdgeContentUnit, "edge content", dp.symmetric_distance(), 8, "rows", "pair", "replace", edge_content_unit("s", "r", max_messages=4)),
    "message": (MessageUnit("s", "r"), MessageUnit, "message", dp.symmetric_id_distance(pl.col("message_id")), 1, "identifiers", None, "add_remove", message_unit("s", "r")),
    "person": (PersonUnit("s", "r", max_messages=4), PersonUnit, "person", dp.symmetric_distance(), 8, "rows", "person", "replace", person_unit("s", "r", max_messages=4)),
    "person-add-remove": (PersonUnit("s", "r", max_messages=4, neighbouring="add_remove"), PersonUnit, "person", dp.symmetric_distance(), 4, "rows", "person", "add_remove", person_unit("s", "r", max_messages=4, neighbouring="add_remove")),
}


@pytest.mark.parametrize("unit, cls, name, metric, per_unit, measured_in, bound_on, neighbouring, made", KINDS.values(), ids=KINDS.keys())
def test_each_kind_derives_its_metric_and_d_in(unit, cls, name, metric, per_unit, measured_in, bound_on, neighbouring, made):
    """A person with max_messages=D is SymmetricDistance, 2·D rows (D for add_remove); an edge is
    one pair identifier or M rows; a group of k edges k identifiers or k·M rows; an edge's content
    one changed identifier or 2·M rows. The constructor functions return these very classes."""
    assert type(unit) is cls and type(made) is cls and isinstance(unit, PrivacyUnit)
    assert unit == made and hash(unit) == hash(made)
    assert (unit.unit, unit.metric, unit.per_unit) == (name, metric, per_unit)
    assert (unit.measured_in, unit.bound_on, unit.neighbouring) == (measured_in, bound_on, neighbouring)
    assert unit.privacy_unit == (metric, per_unit)
    assert unit.d_in(3) == 3 * per_unit
    assert unit.guarantee == made.guarantee and repr(unit) == repr(made)


def test_the_person_unit_follows_its_bound():
    for d in (1, 2, 7):
        assert PersonUnit(max_messages=d).privacy_unit == (dp.symmetric_distance(), 2 * d)
        assert PersonUnit(max_messages=d, neighbouring="add_remove").privacy_unit == (dp.symmetric_distance(), d)
        assert EdgeGroupUnit(2, max_messages=d).per_unit == EdgeUnit(max_messages=d).d_in(2) == 2 * d


def test_the_pufferfish_unit_derives_its_d_in_from_the_model():
    structure = dpg.Graph.from_edges([0, 1], [1, 2], labels=[["gas"], []])
    for model in (dpg.pufferfish.EdgeLevelModel(), dpg.pufferfish.MarkovQuiltModel(5)):
        unit = PufferfishUnit(model, structure=structure)
        assert unit == dpg.polars.pufferfish_unit(model, structure=structure)
        assert unit.privacy_unit == (dp.symmetric_distance(), int(model.flip_bound))
        assert (unit.unit, unit.max_messages, unit.bound_on, unit.neighbouring) == ("secret edge label", 1, "edge label", "replace")
        assert not unit.structure.is_labeled and unit.label == "label" and unit.extra["model"] is model


@pytest.mark.parametrize("unit", [entry[0] for entry in KINDS.values()], ids=KINDS.keys())
def test_units_are_immutable(unit):
    import dataclasses

    for name in ("src", "max_messages", "metric", "per_unit", "bound_on"):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(unit, name, 1)
    for derived in ("per_unit", "metric", "measured_in", "bound_on"):
        with pytest.raises(TypeError, match=f"unexpected keyword argument '{derived}'"):
            dataclasses.replace(unit, **{derived: 1})
    with pytest.raises(TypeError):
        unit.extra["k"] = 1
    moved = dataclasses.replace(unit, src="a", dst="b")  # a new unit, derived again
    assert (moved.src, moved.per_unit, unit.src) == ("a", unit.per_unit, "s")


def test_classes_check_their_arguments_as_the_constructors_do():
    """Calling a class is building a unit by hand: the same checks, the same messages."""
    g = dpg.Graph.from_edges([0, 1], [1, 2])
    model = dpg.pufferfish.EdgeLevelModel()
    cases = [
        (lambda: EdgeUnit(1, "r"), lambda: edge_unit(1, "r")),
        (lambda: EdgeUnit("s", "s"), lambda: edge_unit("s", "s")),
        (lambda: EdgeUnit("s", "r", max_messages=0), lambda: edge_unit("s", "r", max_messages=0)),
        (lambda: EdgeContentUnit("s", "r", max_messages=2.5), lambda: edge_content_unit("s", "r", max_messages=2.5)),
        (lambda: EdgeGroupUnit(0, "s", "s"), lambda: edge_group_unit(0, "s", "s")),
        (lambda: EdgeGroupUnit(2, "s", "s"), lambda: edge_group_unit(2, "s", "s")),
        (lambda: PersonUnit("s", "r", max_messages=True), lambda: person_unit("s", "r", max_messages=True)),
        (lambda: PersonUnit("s", "r", max_messages=2, neighbouring="bounded"), lambda: person_unit("s", "r", max_messages=2, neighbouring="bounded")),
        (lambda: PufferfishUnit("model", structure=g), lambda: dpg.polars.pufferfish_unit("model", structure=g)),
        (lambda: PufferfishUnit(model, structure=g, label="src"), lambda: dpg.polars.pufferfish_unit(model, structure=g, label="src")),
        (lambda: PufferfishUnit(model, structure="g"), lambda: dpg.polars.pufferfish_unit(model, structure="g")),
    ]
    for by_class, by_function in cases:
        with pytest.raises((TypeError, ValueError)) as from_class:
            by_class()
        with pytest.raises((TypeError, ValueError)) as from_function:
            by_function()
        assert (type(from_class.value), str(from_class.value)) == (type(from_function.value), str(from_function.value))


# ------------------------------------------------------------------ the message unit
MESSAGES = pl.DataFrame({"message_id": [1, 1, 2, 3], "s": ["a", "a", "b", "c"], "r": ["b", "c", "a", "c"]})


def test_the_message_unit_is_opendps_identifier_of_the_message_column():
    """One message is one identifier of its message_id column: OpenDP's own SymmetricIdDistance, so
    a Polars release truncates per message itself; check_privacy_unit accepts exactly that."""
    unit = message_unit("s", "r", message_id="message_id")
    check_privacy_unit(dp.unit_of(contributions=1, identifier=pl.col("message_id")), unit, frame=MESSAGES)
    check_privacy_unit(dp.unit_of(contributions=1, identifier="message_id"), unit)  # nothing declared: no frame needed
    with pytest.raises(ValueError, match=r"is not the message: use pl.col\('message_id'\)"):
        check_privacy_unit(dp.unit_of(contributions=1, identifier="s"), unit)
    with pytest.raises(ValueError, match="does not express one message"):
        check_privacy_unit(dp.unit_of(contributions=1), unit)
    with pytest.raises(ValueError, match="does not cover one message"):
        check_privacy_unit(dp.unit_of(contributions=0, identifier="message_id"), unit)


def test_the_message_unit_releases_through_the_compositor_and_protects_its_column():
    unit = message_unit("s", "r")
    ctx = dpg.polars.compositor(MESSAGES, unit, dp.loss_of(epsilon=1.0), split_evenly_over=1)
    query = ctx.query().truncate_per_group(1, by=[]).select(dp.len(signed=True))
    assert query.summarize()["scale"].to_list() == [1.0]  # one message moves the count of messages by 1
    with pytest.raises(ValueError, match="invariant='keys'"):
        dpg.polars.compositor(MESSAGES, unit, dp.loss_of(epsilon=1.0), split_evenly_over=1,
                              margins=[dp.polars.Margin(by=["message_id"], invariant="keys")])


def test_the_message_column_is_checked_schema_first_then_nulls():
    unit = message_unit("s", "r")
    unit.check(MESSAGES)
    with pytest.raises(ValueError, match="message_id column 'message_id' is not in the table"):
        unit.check(MESSAGES.drop("message_id"))
    with pytest.raises(TypeError, match="must hold integer or text ids"):
        unit.check(MESSAGES.with_columns(pl.col("message_id").cast(pl.Float64)))
    with pytest.raises(ValueError) as refused:
        unit.check(MESSAGES.with_columns(pl.when(pl.col("s") == "b").then(None).otherwise(pl.col("message_id")).alias("message_id")))
    assert str(refused.value) == "the message_id column 'message_id' contains nulls; every row must name its message"
    for bad, error in (("s", ValueError), ("", TypeError), (3, TypeError)):
        with pytest.raises(error):
            message_unit("s", "r", message_id=bad)


def test_every_total_bound_must_cover_the_unit():
    """Red team: a second total bound of 0 after a right one passed the check, and OpenDP released
    with no noise at all. Every by=[] bound must cover one unit."""
    ident = dp.symmetric_id_distance(pl.col("message_id"))
    framed = dp.frame_distance(ident)
    good = [dp.polars.Bound(per_group=1)]
    check_privacy_unit((framed, good), message_unit("s", "r"))
    with pytest.raises(ValueError, match="does not cover one message"):
        check_privacy_unit((framed, [dp.polars.Bound(per_group=1), dp.polars.Bound(per_group=0)]), message_unit("s", "r"))
    pair = dp.frame_distance(dp.symmetric_id_distance(pair_identifier("s", "r")))
    with pytest.raises(ValueError, match="does not cover one edge"):
        check_privacy_unit((pair, [dp.polars.Bound(per_group=0), dp.polars.Bound(per_group=1)]), edge_unit("s", "r"))


def test_a_message_id_dtype_refusal_does_not_list_enum_categories():
    secret = ["alice@corp.com", "bob@corp.com"]
    frame = MESSAGES.with_columns(pl.Series("message_id", [["alice@corp.com"]] * 4, dtype=pl.List(pl.Enum(secret))))
    with pytest.raises(TypeError) as refused:
        message_unit("s", "r").check(frame)
    assert "alice" not in str(refused.value) and "integer or text ids" in str(refused.value)
