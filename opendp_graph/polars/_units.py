"""Privacy units on message tables: what "one edge", "one person", "k edges" and "one edge's
content" mean in rows (or identifiers) of a Polars table, in OpenDP's own metrics.

A message table has one row per message (or per (message, recipient)), with a sender column
``src`` and a recipient column ``dst``. Its graph (:func:`~opendp_graph.polars.graph_from_polars`)
joins ``u`` and ``v`` when a message went either way. The graph's neighbour notions translate to
the table as follows (the *unit* is what one neighbouring step changes):

==============  ==========================================  ===========================================
unit            the graph notion                            OpenDP metric and ``d_in`` per unit
==============  ==========================================  ===========================================
edge            :func:`~opendp_graph.edge_distance`: one     ``SymmetricIdDistance(pair)``, 1 identifier
                pair of people and all their messages,       (or, with ``max_messages=M`` declared,
                added or removed                             ``SymmetricDistance``, ``M`` rows)
k edges         :func:`~opendp_graph.group_distance` (k)     ``k`` identifiers (or ``k·M`` rows)
edge content    :func:`~opendp_graph.edge_label_distance`:   ``ChangeOneIdDistance(pair)``, 1 identifier
                the set of pairs is public, the messages     (or ``SymmetricDistance``, ``2·M`` rows)
                of one pair change
person          :func:`~opendp_graph.node_distance`: all     ``SymmetricDistance``, ``2·D`` rows
                the messages a person sent or received are   (``D`` for ``neighbouring="add_remove"``)
                rewired; each person is in at most ``D``
                rows (both roles counted)
secret label    :func:`~opendp_graph.pufferfish_distance`:   ``SymmetricDistance``, ``F`` rows of an
                one secret "edge i carries label a" under a  edge-label table (one row per edge and
                correlation model; ``F`` = its flip bound    label, :func:`edge_label_table`)
==============  ==========================================  ===========================================

``pair`` is the identifier expression :func:`pair_identifier` (the unordered pair of endpoints).
With an identifier OpenDP itself bounds each pair's rows: a query must truncate
(``.truncate_per_group(k)``, ``.truncate_num_groups(c, by=[...])``) before it aggregates, and
needs no assumption about the data. A row-level unit instead rests on a *declared* public bound
(``max_messages`` per pair or per person), which is part of the input domain: the context
checks it on the table and rejects a table outside it, like the graph queries reject a graph
outside their domain.

Why a person cannot be an OpenDP identifier: a message row involves two people. With
``identifier="sender"`` OpenDP protects everything a person *sent*, but the messages they
*received* belong to other identifiers (their senders), so one person's change touches up to
``1 + 2·D`` identifiers, not one. :func:`check_privacy_unit` rejects that configuration.

Why the person bound is declared, not enforced by truncation: any rule that keeps at most ``D``
rows per person must choose, for each correspondent ``w`` of a person ``v``, which of ``w``'s rows
survive; rewiring ``v`` shifts those choices for every ``w``, so up to ``D`` rows of *each*
correspondent can change — the row distance is then bounded only by the number of people, not by
``D`` (a knock-on effect akin to the one that makes the degree projection of
:func:`~opendp_graph.make_degree_projection` unstable in edges). A declared cap that the context
verifies keeps the row distance at ``2·D``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Integral
from typing import Any

import opendp.prelude as dp
from opendp.mod import ChangeOneIdDistance, FrameDistance, SymmetricIdDistance

from .._checks import positive_integer

__all__ = [
    "PrivacyUnit",
    "pair_identifier",
    "edge_unit",
    "edge_group_unit",
    "edge_content_unit",
    "person_unit",
    "pufferfish_unit",
    "edge_label_table",
    "rows_per_person",
    "rows_per_pair",
    "check_privacy_unit",
]

_NEIGHBOURING = ("replace", "add_remove")
_SEPARATOR = "\x1f"  # ASCII unit separator between the two endpoints of a pair key


def _column_name(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError(f"{name} must be a column name (non-empty str), got {value!r}")
    return value


def pair_identifier(src: str = "src", dst: str = "dst"):
    """The Polars expression naming the unordered pair ``{src, dst}`` of a row, as a string.

    Both endpoints are cast to strings and joined, smaller first, with the ASCII unit separator.
    Two different pairs could only share a key if a name contained that separator; then the
    two pairs form one identifier, which protects both together (coarser, still sound).

    >>> import polars as pl, opendp_graph as dpg
    >>> frame = pl.DataFrame({"s": [2, 1, 1], "r": [1, 2, 3]})
    >>> frame.select(dpg.polars.pair_identifier("s", "r").alias("pair"))["pair"].str.replace("\\x1f", "-").to_list()
    ['1-2', '1-2', '1-3']
    """
    import polars as pl

    a = pl.col(_column_name(src, "src")).cast(pl.String)
    b = pl.col(_column_name(dst, "dst")).cast(pl.String)
    return pl.concat_str(pl.min_horizontal(a, b), pl.max_horizontal(a, b), separator=_SEPARATOR)


def rows_per_person(frame: Any, src: str = "src", dst: str = "dst"):
    """For every person, the number of rows in which they are sender or recipient (a
    self-message counts once). Returns a Polars ``DataFrame`` with columns ``person, rows``.

    >>> import polars as pl, opendp_graph as dpg
    >>> t = pl.DataFrame({"s": ["a", "a", "b", "c"], "r": ["b", "c", "a", "c"]})
    >>> dpg.polars.rows_per_person(t, "s", "r").sort("person").rows()
    [('a', 3), ('b', 2), ('c', 2)]
    """
    import polars as pl

    from ._convert import _as_lazy

    lazy = _as_lazy(frame).select(pl.col(src).alias("_s"), pl.col(dst).alias("_r")).with_row_index("_row")
    roles = pl.concat(
        [lazy.select("_row", pl.col("_s").alias("person")), lazy.select("_row", pl.col("_r").alias("person"))]
    ).unique()
    return roles.group_by("person").agg(pl.len().cast(pl.Int64).alias("rows")).collect()


def rows_per_pair(frame: Any, src: str = "src", dst: str = "dst"):
    """For every unordered pair of people, the number of rows (messages either way).
    Returns a Polars ``DataFrame`` with columns ``pair, rows`` (``pair`` = :func:`pair_identifier`)."""
    import polars as pl

    from ._convert import _as_lazy

    lazy = _as_lazy(frame)
    return lazy.group_by(pair_identifier(src, dst).alias("pair")).agg(pl.len().cast(pl.Int64).alias("rows")).collect()


@dataclass(frozen=True, eq=False)
class PrivacyUnit:
    """One protected unit of a message table, as an OpenDP privacy unit.

    Build one with :func:`edge_unit`, :func:`edge_group_unit`, :func:`edge_content_unit` or
    :func:`person_unit`. ``privacy_unit`` is the ``(metric, d_in)`` pair for
    ``dp.Context.compositor``; :meth:`d_in` scales it to several units; :meth:`check` verifies
    the declared bound (if any) on a table.
    """

    unit: str
    """What one unit is, in the analyst's words ("edge", "person", ...)."""
    src: str
    dst: str
    metric: Any
    """The OpenDP metric on the table."""
    per_unit: int
    """OpenDP ``d_in`` (rows or identifiers) for one unit."""
    measured_in: str
    """``"rows"`` or ``"identifiers"``: what ``per_unit`` counts."""
    max_messages: int | None = None
    """Declared public bound on rows per pair (edge units) or per person (person unit)."""
    bound_on: str | None = None
    """``"pair"`` or ``"person"``: what ``max_messages`` bounds."""
    neighbouring: str = "add_remove"
    guarantee: str = ""
    """The guarantee in words."""
    extra: dict = field(default_factory=dict)

    @property
    def privacy_unit(self) -> tuple[Any, int]:
        """``(metric, d_in)`` for one unit, ready for ``dp.Context.compositor(privacy_unit=...)``."""
        return self.metric, self.per_unit

    def d_in(self, units: int = 1) -> int:
        """OpenDP ``d_in`` covering ``units`` units (``units * per_unit``; exact, since a
        change of ``units`` units is a sequence of ``units`` one-unit changes and each moves
        the table by at most ``per_unit``)."""
        return positive_integer("units", units) * self.per_unit

    def check(self, frame: Any) -> None:
        """Verify the declared bound on ``frame``; raise ``ValueError`` if it fails.

        Identifier units declare nothing and always pass. A failure means the table is not in
        the input domain the guarantee is stated for; the message names only the declared bound
        (whether the check fails is the one bit it reveals; :func:`rows_per_person` gives the
        curator the counts, outside any privacy guarantee).
        """
        from ._convert import _as_lazy

        schema = _as_lazy(frame).collect_schema()
        for name, role in ((self.src, "src"), (self.dst, "dst")):
            if name not in schema:
                raise ValueError(f"{role} column {name!r} is not in the table; its columns are {list(schema)}")
        if self.max_messages is None:
            return
        if self.bound_on == "edge label":
            _check_edge_label_table(frame, self.src, self.dst, self.extra["label"])
            return
        counts = rows_per_person(frame, self.src, self.dst) if self.bound_on == "person" else rows_per_pair(frame, self.src, self.dst)
        if int(counts["rows"].max() or 0) > self.max_messages:
            raise ValueError(
                f"the table violates the declared bound max_messages={self.max_messages} per {self.bound_on}, so the "
                f"{self.unit}-level guarantee would not hold. Declare a larger public bound, or use an identifier "
                "unit (max_messages=None) and truncate in the query"
            )

    def __repr__(self) -> str:
        if self.max_messages is None:
            bound = ""
        elif self.bound_on == "edge label":
            bound = ", one row per (edge, label)"
        else:
            bound = f", max_messages={self.max_messages} per {self.bound_on}"
        return (
            f"PrivacyUnit(unit={self.unit!r}, d_in={self.per_unit} {self.measured_in} under {self.metric}{bound}, "
            f"neighbouring={self.neighbouring!r})"
        )


def _check_edge_label_table(frame: Any, src: str, dst: str, label: str) -> None:
    import polars as pl

    from ._convert import _as_lazy

    lazy = _as_lazy(frame)
    if label not in lazy.collect_schema():
        raise ValueError(f"label column {label!r} is not in the table; build one with dpg.polars.edge_label_table(graph)")
    keys = lazy.select(pair_identifier(src, dst).alias("_pair"), pl.col(label).alias("_label")).collect()
    if keys["_label"].null_count() or keys.is_duplicated().any():
        raise ValueError(
            "the table is not an edge-label table (one row per edge and label, no nulls): a secret flip "
            "could move more rows than the flip bound; build it with dpg.polars.edge_label_table(graph)"
        )


def edge_unit(src: str = "src", dst: str = "dst", *, max_messages: int | None = None) -> PrivacyUnit:
    """Protect each edge: one pair of people and all the messages between them (either way).

    :param src: sender column.
    :param dst: recipient column.
    :param max_messages: ``None`` (default): the pair is an OpenDP identifier
        (:func:`pair_identifier`), ``d_in`` = 1 identifier, and queries must truncate
        (``truncate_per_group``) so OpenDP can bound the rows of a pair. An integer ``M``: a
        declared public bound "each pair exchanges at most ``M`` messages (rows)", checked on
        the table, ``d_in`` = ``M`` rows under ``SymmetricDistance``.

    **Privacy guarantee.** Neighbouring tables differ in the presence of one pair's messages
    (:class:`~opendp_graph.EdgeDistance` 1 between their graphs: edge DP with a public node
    set, the bounded flavour of paper 004 §3; "confidentiality" in paper 001 §1). With the identifier that is
    exactly OpenDP's ``SymmetricIdDistance`` 1 (one identifier added or removed). With the
    bound, the rows of the pair are all the rows that differ, at most ``M``, so the
    ``SymmetricDistance`` is at most ``M`` (and ``M`` is attained by a pair with ``M``
    messages). On an edge table (one row per edge, :func:`~opendp_graph.polars.graph_to_polars`)
    ``max_messages=1`` is exact edge-level DP. Changing an edge's messages is two steps
    (remove, add), as in :class:`~opendp_graph.EdgeDistance`: use ``d_in(2)`` or
    :func:`edge_content_unit`.

    >>> import opendp_graph as dpg
    >>> dpg.polars.edge_unit("sender", "recipient", max_messages=5).privacy_unit
    (SymmetricDistance(), 5)
    """
    dp.assert_features("contrib", "honest-but-curious")
    src, dst = _column_name(src, "src"), _column_name(dst, "dst")
    if max_messages is None:
        return PrivacyUnit(
            unit="edge",
            src=src,
            dst=dst,
            metric=dp.symmetric_id_distance(pair_identifier(src, dst)),
            per_unit=1,
            measured_in="identifiers",
            guarantee="all messages between one pair of people (either direction) may be added or removed",
        )
    m = positive_integer("max_messages", max_messages)
    return PrivacyUnit(
        unit="edge",
        src=src,
        dst=dst,
        metric=dp.symmetric_distance(),
        per_unit=m,
        measured_in="rows",
        max_messages=m,
        bound_on="pair",
        guarantee=f"all messages between one pair of people (at most {m} rows, declared) may be added or removed",
    )


def edge_group_unit(k: int, src: str = "src", dst: str = "dst", *, max_messages: int | None = None) -> PrivacyUnit:
    """Protect groups of ``k`` edges (:func:`~opendp_graph.group_distance`): ``d_in`` = ``k``
    pair identifiers, or ``k·M`` rows with a declared ``max_messages=M`` per pair.

    **Privacy guarantee.** ``k`` added or removed pairs differ in ``k`` identifiers, or in at
    most ``k·M`` rows (each pair has at most ``M``).

    >>> import opendp_graph as dpg
    >>> dpg.polars.edge_group_unit(3, "s", "r", max_messages=2).privacy_unit
    (SymmetricDistance(), 6)
    """
    k = positive_integer("k", k)
    base = edge_unit(src, dst, max_messages=max_messages)
    return PrivacyUnit(
        unit=f"group of {k} edges",
        src=base.src,
        dst=base.dst,
        metric=base.metric,
        per_unit=k * base.per_unit,
        measured_in=base.measured_in,
        max_messages=base.max_messages,
        bound_on=base.bound_on,
        guarantee=f"the messages of any {k} pairs of people may be added or removed",
        extra={"k": k},
    )


def edge_content_unit(src: str = "src", dst: str = "dst", *, max_messages: int | None = None) -> PrivacyUnit:
    """Protect each edge's content: who talks to whom is public, what one pair wrote is not
    (the edge-label setting of :func:`~opendp_graph.edge_label_distance`; paper 001 §3.2 with
    independent edges).

    :param max_messages: ``None`` (default): ``ChangeOneIdDistance(pair)``, ``d_in`` = 1
        changed identifier (OpenDP: "identifiers that must be changed"); queries truncate per
        pair. An integer ``M``: the rows of the pair are replaced by at most ``M`` other rows,
        ``SymmetricDistance`` ``2·M``.

    **Privacy guarantee.** Neighbouring tables have the same pairs and differ only in the rows
    of one pair: one changed identifier; or, with at most ``M`` rows per pair on both sides, at
    most ``M`` rows removed and ``M`` added (``2·M``, attained when a pair with ``M`` messages
    gets ``M`` different ones).

    >>> import opendp_graph as dpg
    >>> dpg.polars.edge_content_unit("s", "r", max_messages=4).privacy_unit
    (SymmetricDistance(), 8)
    """
    dp.assert_features("contrib", "honest-but-curious")
    src, dst = _column_name(src, "src"), _column_name(dst, "dst")
    if max_messages is None:
        return PrivacyUnit(
            unit="edge content",
            src=src,
            dst=dst,
            metric=dp.change_one_id_distance(pair_identifier(src, dst)),
            per_unit=1,
            measured_in="identifiers",
            neighbouring="replace",
            guarantee="the messages of one pair of people may be replaced; which pairs communicate is public",
        )
    m = positive_integer("max_messages", max_messages)
    return PrivacyUnit(
        unit="edge content",
        src=src,
        dst=dst,
        metric=dp.symmetric_distance(),
        per_unit=2 * m,
        measured_in="rows",
        max_messages=m,
        bound_on="pair",
        neighbouring="replace",
        guarantee=f"the messages of one pair (at most {m} rows, declared) may be replaced; which pairs communicate is public",
    )


def person_unit(
    src: str = "src", dst: str = "dst", *, max_messages: int, neighbouring: str = "replace"
) -> PrivacyUnit:
    """Protect each person: everything they sent or received.

    :param src: sender column.
    :param dst: recipient column.
    :param max_messages: the declared public bound ``D``: every person is the sender or the
        recipient of at most ``D`` rows (a row counts once even when they are both). Checked on
        the table by the context; for an edge table (one row per edge) it is the maximum degree.
    :param neighbouring: ``"replace"`` (default, like :func:`~opendp_graph.node_distance`: the
        people are public, one person's messages are rewired): ``d_in`` = ``2·D`` rows.
        ``"add_remove"`` (one person and all their rows are added or removed): ``D`` rows.

    **Privacy guarantee.** Let ``R_v(x)`` be the rows of ``x`` in which ``v`` appears. Two
    tables that differ only in ``v``'s messages agree outside ``R_v``, so their symmetric
    distance is ``|R_v(x) Δ R_v(x')| ≤ |R_v(x)| + |R_v(x')| ≤ 2·D`` when both are in the domain
    (``D`` when ``R_v`` is empty on one side). Both bounds are attained (``v`` with ``D``
    messages replaced by ``D`` others). The count is over *both* roles: counting only what a
    person sent would leave the messages they received (up to ``D`` more rows) outside the
    bound. This is node DP on the communication graph in the two variants Hehir, Niu &
    Slavković describe (paper 004, §5 "Attributed graphs and node privacy": a node substituted,
    i.e. its incident edges rewired with the node set public, or added/removed), with the degree
    measured in message rows; paper 001 (§1) calls this individual privacy, as opposed to
    confidentiality.

    >>> import opendp_graph as dpg
    >>> dpg.polars.person_unit("sender", "recipient", max_messages=20).privacy_unit
    (SymmetricDistance(), 40)
    """
    dp.assert_features("contrib", "honest-but-curious")
    src, dst = _column_name(src, "src"), _column_name(dst, "dst")
    d = positive_integer("max_messages", max_messages)
    if neighbouring not in _NEIGHBOURING:
        raise ValueError(f"neighbouring must be one of {_NEIGHBOURING}, got {neighbouring!r}")
    factor = 2 if neighbouring == "replace" else 1
    verb = "rewired" if neighbouring == "replace" else "added or removed"
    return PrivacyUnit(
        unit="person",
        src=src,
        dst=dst,
        metric=dp.symmetric_distance(),
        per_unit=factor * d,
        measured_in="rows",
        max_messages=d,
        bound_on="person",
        neighbouring=neighbouring,
        guarantee=f"all messages one person sent or received (at most {d} rows, declared) may be {verb}",
    )


def edge_label_table(graph: Any, *, src: str = "src", dst: str = "dst", label: str = "label"):
    """The labels of a graph as a Polars table with one row per (edge, label): ``src, dst, label``.

    This is the table on which :func:`pufferfish_unit` is stated (an edge without labels has no
    row; the structure is public anyway). Built from :func:`~opendp_graph.polars.graph_to_polars`.

    >>> import opendp_graph as dpg
    >>> g = dpg.Graph.from_edges([0, 1], [1, 2], labels=[["gas", "power"], []])
    >>> dpg.polars.edge_label_table(g).rows()
    [(0, 1, 'gas'), (0, 1, 'power')]
    """
    import polars as pl

    from ._convert import graph_to_polars

    if not getattr(graph, "is_labeled", False):
        raise ValueError("edge_label_table needs a labeled graph")
    table = graph_to_polars(graph, src=src, dst=dst, labels=label)
    return table.explode(label).filter(pl.col(label).is_not_null())


def pufferfish_unit(model: Any, src: str = "src", dst: str = "dst", *, label: str = "label") -> PrivacyUnit:
    """Protect each secret "edge ``i`` carries label ``a``" under a Pufferfish correlation model.

    :param model: a correlation model of :mod:`opendp_graph.pufferfish` (``BinomialModel``,
        ``GlobalModel``, ``ConditionalModel``, ``EdgeLevelModel``, ``MarkovQuiltModel``), which
        must describe this graph's public structure, as for :func:`~opendp_graph.pufferfish_distance`.
    :param src: first endpoint column.
    :param dst: second endpoint column.
    :param label: the label column of an *edge-label table*, one row per (edge, label) with no
        duplicates (:func:`edge_label_table`); checked by the context.
    :return: a row-level unit, ``SymmetricDistance`` with ``d_in = F``, the model's flip bound.

    **Privacy guarantee.** The unit is one secret pair ``(s⁰ᵢₐ, s¹ᵢₐ)`` of the Pufferfish
    instantiation of :func:`~opendp_graph.pufferfish_distance` (paper 001 §4.2; Song, Wang &
    Chaudhuri 2017, Theorem 3.2). Its coupling pairs labellings that differ only in label ``a``
    on at most ``F`` edges (the flip bound), so the two edge-label tables differ in at most ``F``
    rows ``(edge, a)``: ``SymmetricDistance ≤ F``. A measurement ``m`` with ``m.check(F, ε)``
    therefore satisfies ``Pr[m(T(G)) ∈ S] ≤ e^ε Pr[m(T(G')) ∈ S]`` for every coupled pair
    ``(G, G')``, and averaging over the coupling gives ε-Pufferfish privacy for the attackers
    ``Θ_M`` of the model (the argument of :mod:`opendp_graph.pufferfish.metric`, including its
    composition within one model). The table must hold each (edge, label) at most once: with
    duplicates one flip would move several rows. The count of one label moves by ``|d| ≤ W``
    while ``F`` rows change, so OpenDP's row bound ``F`` equals Song et al.'s ``W`` when the
    model's quantile gaps are at least 1 and exceeds it otherwise. If the model was fitted on the
    private graph, the noise scale depends on the private data and the guarantee holds only for
    the attacker class of that fitted model (``model.summary()``; recorded in the unit).

    >>> import opendp_graph as dpg
    >>> dpg.polars.pufferfish_unit(dpg.pufferfish.EdgeLevelModel()).privacy_unit
    (SymmetricDistance(), 1)
    """
    dp.assert_features("contrib", "honest-but-curious")
    from ..pufferfish import CorrelationModel

    if not isinstance(model, CorrelationModel):
        raise TypeError(f"model must be a correlation model from opendp_graph.pufferfish, got {type(model).__name__}")
    src, dst, label = _column_name(src, "src"), _column_name(dst, "dst"), _column_name(label, "label")
    flips = int(model.flip_bound)
    dependent = bool(model.data_dependent)
    note = " (model fitted on the private data: the guarantee holds for its own attacker class only)" if dependent else ""
    return PrivacyUnit(
        unit="secret edge label",
        src=src,
        dst=dst,
        metric=dp.symmetric_distance(),
        per_unit=flips,
        measured_in="rows",
        max_messages=1,
        bound_on="edge label",
        neighbouring="replace",
        guarantee=f"whether one edge carries one label, under {model!r} (at most {flips} edges flip together){note}",
        extra={"model": model, "label": label, "data_dependent": dependent, "W": int(model.W)},
    )


# ---------------------------------------------------------------------------------- checking
def _split_metric(metric: Any) -> tuple[Any, bool]:
    if isinstance(metric, FrameDistance):
        return metric.inner_metric, True
    return metric, False


def _metric_kind(metric: Any) -> str:
    if isinstance(metric, SymmetricIdDistance):
        return "SymmetricIdDistance"
    if isinstance(metric, ChangeOneIdDistance):
        return "ChangeOneIdDistance"
    try:
        return str(metric.type)
    except Exception:  # a user metric without a type name
        return repr(metric)


def _group_bounds(frame: Any, unit: PrivacyUnit, by: list[Any]) -> tuple[int, int]:
    """Largest rows in one group and largest number of groups, over every person (or pair)."""
    import polars as pl

    from ._convert import _as_lazy

    lazy = _as_lazy(frame).with_row_index("_row")
    keys = [pl.col(b) if isinstance(b, str) else b for b in by]
    names = [f"_by{i}" for i in range(len(keys))]
    base = lazy.select("_row", *[k.alias(n) for k, n in zip(keys, names)], pl.col(unit.src).alias("_s"), pl.col(unit.dst).alias("_r"))
    if unit.bound_on == "person":
        owners = pl.concat([base.select("_row", *names, pl.col("_s").alias("_who")), base.select("_row", *names, pl.col("_r").alias("_who"))]).unique()
    else:
        owners = base.select("_row", *names, pl.concat_str(pl.min_horizontal(pl.col("_s").cast(pl.String), pl.col("_r").cast(pl.String)), pl.max_horizontal(pl.col("_s").cast(pl.String), pl.col("_r").cast(pl.String)), separator=_SEPARATOR).alias("_who"))
    per_group = owners.group_by("_who", *names).agg(pl.len().alias("n")).collect()
    worst_rows = int(per_group["n"].max() or 0)
    worst_groups = int(per_group.group_by("_who").len()["len"].max() or 0)
    return worst_rows, worst_groups


def check_privacy_unit(privacy_unit: tuple[Any, Any], unit: PrivacyUnit, frame: Any = None) -> None:
    """Check that an OpenDP privacy unit (e.g. from ``dp.unit_of``) really protects ``unit``.

    For an analyst who writes ``dp.unit_of(...)`` by hand and claims "this protects each
    person" (or edge, ...): raises ``ValueError`` saying why when OpenDP's semantics of
    ``privacy_unit`` do not cover one ``unit``. Checked, in OpenDP's own terms:

    * the metric: a row-level unit needs ``SymmetricDistance`` (``ChangeOneDistance`` would
      assume every person keeps the same number of rows; an identifier column such as
      ``"sender"`` names one of the two people of a row, so it does not protect a person);
      an identifier unit needs the same pair identifier;
    * ``d_in``: at least :attr:`PrivacyUnit.per_unit` (``2·D`` rows for a rewired person); a
      list of ``dp.polars.Bound`` needs the total bound (``by=[]``) at least that large, and
      each per-group bound (``by=[...]``, ``per_group`` rows in one group, ``num_groups``
      groups) to hold for every person/pair of ``frame`` (times 2 for a replaced unit), which
      is why ``frame`` is then required;
    * ``frame`` (if given): the declared ``max_messages``, via :meth:`PrivacyUnit.check`.

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> person = dpg.polars.person_unit("sender", "recipient", max_messages=3)
    >>> dpg.polars.check_privacy_unit(dp.unit_of(contributions=6), person)
    >>> dpg.polars.check_privacy_unit(dp.unit_of(contributions=3), person)
    Traceback (most recent call last):
    ...
    ValueError: d_in=3 rows does not cover one person: a rewired person changes up to 2·3 = 6 rows
    >>> dpg.polars.check_privacy_unit(dp.unit_of(contributions=1, identifier="sender"), person)
    Traceback (most recent call last):
    ...
    ValueError: an identifier (col("sender")) does not protect a person: a message row involves two people, so one person's messages belong to up to 1 + 2·3 identifiers; use the row-level unit (metric SymmetricDistance(), d_in 6)
    """
    if not isinstance(unit, PrivacyUnit):
        raise TypeError(f"unit must be a PrivacyUnit (e.g. dpg.polars.person_unit(...)), got {type(unit).__name__}")
    if not (isinstance(privacy_unit, tuple) and len(privacy_unit) == 2):
        raise TypeError(f"privacy_unit must be a (metric, d_in) pair as returned by dp.unit_of, got {privacy_unit!r}")
    metric, d_in = privacy_unit
    inner, framed = _split_metric(metric)
    want_inner, _ = _split_metric(unit.metric)
    kind, want_kind = _metric_kind(inner), _metric_kind(want_inner)
    what = unit.unit

    if kind != want_kind:
        if kind in ("SymmetricIdDistance", "ChangeOneIdDistance") and unit.unit == "person":
            raise ValueError(
                f"an identifier ({inner.identifier}) does not protect a person: a message row involves two people, "
                f"so one person's messages belong to up to 1 + 2·{unit.max_messages} identifiers; use the row-level "
                f"unit (metric {unit.metric}, d_in {unit.per_unit})"
            )
        if kind == "ChangeOneDistance":
            raise ValueError(
                f"ChangeOneDistance assumes neighbouring tables have the same number of rows, but one {what} may "
                f"change how many rows there are; use {unit.metric} with d_in {unit.per_unit}"
            )
        raise ValueError(f"metric {inner} does not express one {what}; expected {unit.metric} with d_in {unit.per_unit}")
    if unit.measured_in == "identifiers" and not inner.identifier.meta.eq(want_inner.identifier):
        raise ValueError(
            f"identifier {inner.identifier} is not the pair of endpoints: an edge's messages carry two people, "
            f"in either column; use dpg.polars.pair_identifier({unit.src!r}, {unit.dst!r})"
        )

    factor = 2 if unit.neighbouring == "replace" and unit.measured_in == "rows" else 1
    if framed:
        if not isinstance(d_in, (list, tuple)) or not all(isinstance(b, dp.polars.Bound) for b in d_in):
            raise TypeError(f"a FrameDistance privacy unit needs a list of dp.polars.Bound as d_in, got {d_in!r}")
        total = [b for b in d_in if not list(b.by)]
        grouped = [b for b in d_in if list(b.by)]
        if not total or total[0].per_group is None:
            raise ValueError(f"the bounds {d_in} give no total bound (Bound(per_group=...) with by=[]) for one {what}")
        _check_total(total[0].per_group, unit)
        if grouped:
            if unit.bound_on == "edge label":
                raise ValueError(
                    "per-group bounds are not derived for a Pufferfish unit; give the total bound only "
                    "(one secret moves at most the flip bound of rows)"
                )
            if unit.measured_in == "identifiers":
                raise ValueError(
                    "per-group bounds on an identifier unit cannot be verified here; truncate in the query "
                    "(truncate_per_group / truncate_num_groups) and OpenDP derives them itself"
                )
            if frame is None:
                raise ValueError(f"per-group bounds {grouped} are claims about the data; pass frame= to verify them")
            for bound in grouped:
                rows, groups = _group_bounds(frame, unit, list(bound.by))
                if bound.per_group is not None and bound.per_group < factor * rows:
                    raise ValueError(
                        f"{bound} does not hold on this table: one {what} may change more than per_group rows of "
                        f"one group (a {unit.bound_on}'s rows in a group, times {factor})"
                    )
                if bound.num_groups is not None and bound.num_groups < factor * groups:
                    raise ValueError(
                        f"{bound} does not hold on this table: one {what} may touch more than num_groups groups "
                        f"(a {unit.bound_on}'s groups, times {factor})"
                    )
    else:
        if isinstance(d_in, bool) or not isinstance(d_in, Integral):
            raise TypeError(f"d_in must be an integer, got {d_in!r}")
        _check_total(int(d_in), unit)
    if frame is not None:
        unit.check(frame)


def _check_total(d_in: int, unit: PrivacyUnit) -> None:
    if d_in >= unit.per_unit:
        return
    if unit.unit == "person" and unit.neighbouring == "replace":
        why = f"a rewired person changes up to 2·{unit.max_messages} = {unit.per_unit} rows"
    elif unit.measured_in == "rows":
        why = f"one {unit.unit} changes up to {unit.per_unit} rows"
    else:
        why = f"one {unit.unit} is {unit.per_unit} identifier(s)"
    raise ValueError(f"d_in={d_in} {unit.measured_in} does not cover one {unit.unit}: {why}")

