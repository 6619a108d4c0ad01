"""Property test: on random small message tables (ints, strings, categoricals, floats; nulls and
NaN sometimes; two id dtypes sometimes) rows_per_person, rows_per_pair and graph_from_polars
either agree with a plain-Python computation or raise a clear TypeError/ValueError, never a
silent answer, and every privacy unit's check refuses exactly the same tables."""

import math
from collections import Counter

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opendp_graph.polars import (
    edge_content_unit,
    edge_unit,
    graph_from_polars,
    pair_identifier,
    person_unit,
    rows_per_pair,
    rows_per_person,
)

# id kinds: (polars dtype, values). "1" and "2" as strings collide with the ints 1 and 2 once
# cast to strings, which is how int/str tables used to merge two people into one.
KINDS = {
    "int64": (pl.Int64, [0, 1, 2, 3]),
    "int32": (pl.Int32, [0, 1, 2, 3]),
    "str": (pl.String, ["1", "2", "ann", "bob"]),
    "cat": (pl.Categorical, ["1", "2", "ann", "bob"]),
    "float": (pl.Float64, [0.0, -0.0, 1.0, 2.0, math.nan]),
}
SEP = "\x1f"


@st.composite
def message_tables(draw):
    src_kind = draw(st.sampled_from(sorted(KINDS)))
    # mostly one dtype for both columns, sometimes two
    dst_kind = src_kind if draw(st.integers(0, 3)) else draw(st.sampled_from(sorted(KINDS)))
    with_nulls = draw(st.booleans()) and draw(st.booleans())  # a quarter of the tables
    n = draw(st.integers(0, 10))

    def cell(kind):
        values = KINDS[kind][1]
        if with_nulls and draw(st.integers(0, 4)) == 0:
            return None
        return draw(st.sampled_from(values))

    rows = [(cell(src_kind), cell(dst_kind)) for _ in range(n)]
    frame = pl.DataFrame(
        {"s": [r[0] for r in rows], "r": [r[1] for r in rows]},
        schema={
            "s": pl.String if src_kind == "cat" else KINDS[src_kind][0],
            "r": pl.String if dst_kind == "cat" else KINDS[dst_kind][0],
        },
    )
    frame = frame.with_columns(*[pl.col(c).cast(pl.Categorical) for c, k in (("s", src_kind), ("r", dst_kind)) if k == "cat"])
    return src_kind, dst_kind, rows, frame


def expected_error(src_kind, dst_kind, rows):
    """What a table must be refused with, worked out from the kinds and the rows alone."""
    if "float" in (src_kind, dst_kind) or KINDS[src_kind][0] != KINDS[dst_kind][0]:
        return TypeError
    if any(a is None or b is None for a, b in rows):
        return ValueError
    return None


ERROR_MESSAGES = {TypeError: r"not floats|one id type", ValueError: r"contain nulls"}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(message_tables())
def test_counts_and_graphs_are_right_or_refused(table):
    src_kind, dst_kind, rows, frame = table
    error = expected_error(src_kind, dst_kind, rows)
    lazy = frame.lazy()
    units = [edge_unit("s", "r"), edge_content_unit("s", "r"), person_unit("s", "r", max_messages=100), edge_unit("s", "r", max_messages=100)]

    if error is not None:
        for call in (
            lambda: rows_per_person(frame, "s", "r"),
            lambda: rows_per_pair(lazy, "s", "r"),
            lambda: graph_from_polars(frame, "s", "r", self_loops="drop", nodes="from data"),
            *[lambda u=u: u.check(frame) for u in units],
        ):
            with pytest.raises(error, match=ERROR_MESSAGES[error]):
                call()
        return

    # valid ids: every unit accepts the table (the bounds are generous)
    for unit in units:
        unit.check(lazy)

    # rows per person: a row counts once for each distinct person in it
    want_person = Counter()
    for a, b in rows:
        for person in {a, b}:
            want_person[person] += 1
    assert dict(rows_per_person(frame, "s", "r").rows()) == dict(want_person)

    # rows per pair: the identifier of a row is a function of its unordered pair and tells
    # pairs apart; the counts per pair are those of the plain computation
    keys = frame.select(pair_identifier("s", "r"))[:, 0].to_list()
    pair_of_key: dict = {}
    for key, (a, b) in zip(keys, rows):
        assert key is not None
        pair_of_key.setdefault(key, frozenset((a, b)))
        assert pair_of_key[key] == frozenset((a, b))
    assert len(set(pair_of_key.values())) == len(pair_of_key)
    want_pair = Counter(frozenset((a, b)) for a, b in rows)
    assert {pair_of_key[k]: n for k, n in rows_per_pair(lazy, "s", "r").rows()} == dict(want_pair)

    # the graph (node set read from the data, opted into with nodes="from data"): people sorted,
    # one edge per unordered pair of two people, self-messages refused by default and dropped on request
    people = sorted({p for row in rows for p in row})
    if any(a == b for a, b in rows):
        with pytest.raises(ValueError, match="self-message"):
            graph_from_polars(frame, "s", "r", nodes="from data")
    g = graph_from_polars(frame, "s", "r", self_loops="drop", nodes="from data")
    assert list(g.node_ids or ()) == people
    edges = {frozenset((g.node_ids[u], g.node_ids[v])) for u, v in g.edges.tolist()}
    assert edges == {frozenset((a, b)) for a, b in rows if a != b}
    assert g.num_edges == len(edges)
    # with the public list of every possible person: the same edges, all the people as nodes
    public = KINDS[src_kind][1]
    h = graph_from_polars(frame, "s", "r", self_loops="drop", nodes=public)
    assert list(h.node_ids) == public
    assert {frozenset((h.node_ids[u], h.node_ids[v])) for u, v in h.edges.tolist()} == edges

