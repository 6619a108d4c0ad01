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
                one secret "edge i carries label a" under    edge-label table (one row per edge and
                a correlation model; ``F`` = its flip        label, :func:`edge_label_table`)
                bound
==============  ==========================================  ===========================================

``pair`` is the identifier expression :func:`pair_identifier` (the unordered pair of endpoints).
With an identifier OpenDP itself bounds each pair's rows: a query must truncate
(``.truncate_per_group(k, by=[...], keep="first")``, and to bound how many groups a pair touches
``.truncate_num_groups(c, by=[...], keep="first")`` before it) before it aggregates, and needs no
assumption about the data. Pass ``keep="first"`` (or ``"last"``) to ``truncate_num_groups``: its
default ``keep="sample"`` fails at release in OpenDP 0.16 ("multiple fields with name ... found"). A row-level unit instead rests on a *declared* public bound
(``max_messages`` per pair or per person), which is part of the input domain: the context
checks it on the table and rejects a table outside it, like the graph queries reject a graph
outside their domain.

**Preconditions on the table** (every unit, and :func:`rows_per_person`, :func:`rows_per_pair`,
:meth:`PrivacyUnit.check`, :func:`check_privacy_unit`, :func:`~opendp_graph.polars.graph_from_polars`):
a person is one value of the id columns, so ``src`` and ``dst`` must hold ids of one and the same
dtype, integers or text (``String``, ``Categorical``, ``Enum``), never floats, and never null.
With an int sender and a str recipient, ``1`` and ``"1"`` would be one person to the pair
identifier (which compares strings) and two people to everything else; a float id is ambiguous
(``NaN ≠ NaN``, ``-0.0 = 0.0``, ``"1.0" ≠ "1"``); a null endpoint is nobody, yet Polars'
``min_horizontal``/``max_horizontal`` skip it, which used to turn ``(null, "c")`` into the pair
``c–c``. The dtypes are schema, public, and refused (``TypeError``) before any value is read; a
null is a property of the data, refused (``ValueError``) with one message that names only the
fact. :func:`~opendp_graph.polars.compositor` enforces all of this, and the declared bounds, on
the very table its releases read. The pair identifier is also null-safe on its own (a row with a
null endpoint gets a null identifier, and OpenDP treats null as one identifier value, so such rows
are one unit together and never join a real pair), for a ``dp.Context`` built by hand.

**Releasing.** Use :func:`~opendp_graph.polars.compositor`: it checks all of the above on the
table, and refuses margins one unit can break (``invariant="lengths"``; ``invariant="keys"`` on
the unit's own columns) and a ``domain=`` carrying margins. :attr:`PrivacyUnit.privacy_unit`
handed to ``dp.Context.compositor`` directly checks nothing: for a unit with a declared bound
its ``d_in`` is right only on tables within the bound, so verify the very table first with
:func:`check_privacy_unit` (``frame=`` is then required). A :class:`PrivacyUnit` built by hand
must have the fields its constructor would give it (:meth:`PrivacyUnit.validate`).

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

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from numbers import Integral
from types import MappingProxyType
from typing import Any

import opendp.prelude as dp
from opendp.mod import ChangeOneIdDistance, FrameDistance, SymmetricIdDistance

from ..core._checks import positive_integer
from ._convert import _collect

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


def _endpoints(src: Any, dst: Any) -> tuple[str, str]:
    src, dst = _column_name(src, "src"), _column_name(dst, "dst")
    if src == dst:
        raise ValueError(f"src and dst name the same column {src!r}")
    return src, dst


def pair_identifier(src: str = "src", dst: str = "dst"):
    """The Polars expression naming the unordered pair ``{src, dst}`` of a row, as a string.

    Both endpoints are cast to strings and joined, smaller first, with the ASCII unit separator.
    Two different pairs could only share a key if a name contained that separator; then the
    two pairs form one identifier, which protects both together (coarser, still sound).

    A row with a null endpoint gets a null identifier (not the pair of its other endpoint with
    itself). OpenDP groups null identifiers together, so all such rows form one identifier of
    their own. The units refuse such tables anyway (module docstring, *Preconditions*); the
    expression cannot see the schema, so the dtype rule (one id dtype in both columns) is checked
    with the table, by :meth:`PrivacyUnit.check` and :func:`~opendp_graph.polars.compositor`.

    >>> import polars as pl, opendp_graph as dpg
    >>> frame = pl.DataFrame({"s": [2, 1, 1, None], "r": [1, 2, 3, 3]})
    >>> frame.select(dpg.polars.pair_identifier("s", "r").alias("pair"))["pair"].str.replace("\\x1f", "-").to_list()
    ['1-2', '1-2', '1-3', None]
    """
    import polars as pl

    a = pl.col(_column_name(src, "src")).cast(pl.String)
    b = pl.col(_column_name(dst, "dst")).cast(pl.String)
    # when a or b is null the comparison is null, the otherwise branch runs and concat_str
    # propagates the null (min_/max_horizontal would skip it: (null, c) -> c-c)
    return pl.when(a <= b).then(pl.concat_str(a, b, separator=_SEPARATOR)).otherwise(pl.concat_str(b, a, separator=_SEPARATOR))


def rows_per_person(frame: Any, src: str = "src", dst: str = "dst"):
    """For every person, the number of rows in which they are sender or recipient (a
    self-message counts once). Returns a Polars ``DataFrame`` with columns ``person, rows``.

    The id columns must satisfy the preconditions of the module docstring (one integer or text
    dtype in both, no nulls): ``TypeError`` / ``ValueError`` otherwise, never a count for a
    "person" ``null``.

    >>> import polars as pl, opendp_graph as dpg
    >>> t = pl.DataFrame({"s": ["a", "a", "b", "c"], "r": ["b", "c", "a", "c"]})
    >>> dpg.polars.rows_per_person(t, "s", "r").sort("person").rows()
    [('a', 3), ('b', 2), ('c', 2)]
    >>> dpg.polars.rows_per_person(pl.DataFrame({"s": ["a", None], "r": ["b", "c"]}), "s", "r")
    Traceback (most recent call last):
    ...
    ValueError: the src/dst columns 's'/'r' contain nulls; every message needs a sender and a recipient
    """
    import polars as pl

    from ._convert import _valid_ids

    lazy = _valid_ids(frame, src, dst).select(pl.col(src).alias("_s"), pl.col(dst).alias("_r")).with_row_index("_row")
    roles = pl.concat(
        [lazy.select("_row", pl.col("_s").alias("person")), lazy.select("_row", pl.col("_r").alias("person"))]
    ).unique()
    return _collect(roles.group_by("person").agg(pl.len().cast(pl.Int64).alias("rows")))


def rows_per_pair(frame: Any, src: str = "src", dst: str = "dst"):
    """For every unordered pair of people, the number of rows (messages either way).
    Returns a Polars ``DataFrame`` with columns ``pair, rows`` (``pair`` = :func:`pair_identifier`).

    Same preconditions as :func:`rows_per_person` (``TypeError`` / ``ValueError``): a row with
    a null endpoint is not a message of any pair, and int/str columns would merge ``1`` and
    ``"1"``."""
    import polars as pl

    from ._convert import _valid_ids

    lazy = _valid_ids(frame, src, dst)
    return _collect(lazy.group_by(pair_identifier(src, dst).alias("pair")).agg(pl.len().cast(pl.Int64).alias("rows")))


@dataclass(frozen=True, eq=False)
class PrivacyUnit:
    """One protected unit of a message table, as an OpenDP privacy unit.

    Build one with :func:`edge_unit`, :func:`edge_group_unit`, :func:`edge_content_unit`,
    :func:`person_unit` or :func:`pufferfish_unit`, and release through
    :func:`~opendp_graph.polars.compositor`, which checks the unit's preconditions (and its
    declared bound, if any) on the table its releases read. :meth:`d_in` scales the unit to
    several units; :meth:`check` verifies the preconditions on a table.

    **Consistent fields.** The fields that decide a release (``metric``, ``per_unit``,
    ``measured_in``, ``max_messages``, ``bound_on``, ``neighbouring``, and ``extra``'s ``k``,
    ``model`` and ``label``) are derived from one another; a unit built by hand, or with
    ``dataclasses.replace``, must match what the constructor named by ``unit`` would build, or it
    is refused (``ValueError``/``TypeError``, :meth:`validate`). A ``PrivacyUnit(unit="person",
    ..., per_unit=1)`` without a declared bound used to be accepted and then claim ε for one
    person whose change moved any number of rows. ``extra`` is read-only.
    """

    unit: str
    """What one unit is: ``"edge"``, ``"group of k edges"``, ``"edge content"``, ``"person"``
    or ``"secret edge label"`` (each the unit of one constructor)."""
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
    """``"pair"``, ``"person"`` or ``"edge label"``: what ``max_messages`` bounds."""
    neighbouring: str = "add_remove"
    guarantee: str = ""
    """The guarantee in words."""
    extra: Mapping = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.extra, Mapping):
            raise TypeError(f"extra must be a mapping, got {type(self.extra).__name__}")
        object.__setattr__(self, "extra", MappingProxyType(dict(self.extra)))
        self.validate()

    def validate(self) -> None:
        """Check that the fields are consistent: ``metric``, ``per_unit``, ``measured_in``,
        ``bound_on`` and ``neighbouring`` are those the constructor of this ``unit`` derives
        from ``src``, ``dst``, ``max_messages`` and ``extra``. Run on construction, and again by
        :func:`~opendp_graph.polars.compositor`, :func:`check_privacy_unit` and
        :func:`~opendp_graph.polars.loss_for` before they use the unit. Reads no data.
        """
        _validate_unit(self)

    @property
    def privacy_unit(self) -> tuple[Any, int]:
        """``(metric, d_in)`` for one unit, in OpenDP's terms.

        Release through :func:`~opendp_graph.polars.compositor`, which checks the unit's
        preconditions on the table first. Handing this pair to ``dp.Context.compositor``
        directly checks nothing: for a unit with a declared bound (``max_messages`` set: the
        row-level :func:`person_unit`, :func:`edge_unit` / :func:`edge_content_unit` /
        :func:`edge_group_unit` with ``max_messages=M``, and :func:`pufferfish_unit`) ``d_in``
        covers one unit *only on tables within the bound*, and OpenDP does not look at the
        bound, so a table over it (e.g. ``max_messages=1`` where one person is in 3 rows) would
        silently get ε for a person whose change costs 3ε. If you must build the
        ``dp.Context`` yourself, first run :func:`check_privacy_unit` with ``frame=`` (which
        requires it for these units) on the very table you pass, and never change that table
        afterwards. Identifier units declare no bound (OpenDP bounds a pair's rows itself, by
        refusing queries that do not truncate), but the id columns still need one integer or
        text dtype and no nulls (:meth:`check`).

        Design decision: this property does not raise for bounded units. It only describes the
        unit, like ``dp.unit_of(...)``; anyone can type ``(dp.symmetric_distance(), 2)`` by
        hand, so a refusal here would protect nothing, while the checked routes
        (:func:`~opendp_graph.polars.compositor`, :func:`check_privacy_unit` with ``frame=``)
        are where the table is available and the bound can be verified.
        """
        return self.metric, self.per_unit

    def d_in(self, units: int = 1) -> int:
        """OpenDP ``d_in`` covering ``units`` units (``units * per_unit``; exact, since a
        change of ``units`` units is a sequence of ``units`` one-unit changes and each moves
        the table by at most ``per_unit``)."""
        return positive_integer("units", units) * self.per_unit

    def check(self, frame: Any) -> None:
        """Verify that ``frame`` is in the unit's input domain; raise if it is not.

        First the schema (public): the id columns exist and hold one integer or text dtype
        (``TypeError`` otherwise; an edge-label table also needs a ``String``/``Categorical``/``Enum``
        label column). Then the data, each failure with one fixed message that names only the
        violated precondition: no null endpoint (every unit, identifier units included), the
        declared ``max_messages`` bound, and for :func:`pufferfish_unit` the edge-label table
        shape. Whether the check fails (and which precondition fails first) is all a refusal
        reveals; :func:`rows_per_person` gives the curator the counts, outside any privacy
        guarantee. :func:`~opendp_graph.polars.compositor` runs this on the table its releases
        read; call it yourself only for a ``dp.Context`` you build by hand.
        """
        from ._convert import _as_lazy, _refuse_null_ids

        lazy = _as_lazy(frame)
        self._check_schema(lazy.collect_schema())
        _refuse_null_ids(lazy, self.src, self.dst)
        if self.max_messages is None:
            return
        if self.bound_on == "edge label":
            _check_edge_label_table(lazy, self.src, self.dst, self.extra["label"])
            _check_secrets_of_the_model(
                lazy, self.src, self.dst, self.extra["label"], self.extra["model"], self.extra["structure"]
            )
            return
        counts = rows_per_person(lazy, self.src, self.dst) if self.bound_on == "person" else rows_per_pair(lazy, self.src, self.dst)
        if int(counts["rows"].max() or 0) > self.max_messages:
            raise ValueError(
                f"the table violates the declared bound max_messages={self.max_messages} per {self.bound_on}, so the "
                f"{self.unit}-level guarantee would not hold. Declare a larger public bound, or use an identifier "
                "unit (max_messages=None) and truncate in the query"
            )

    def _check_schema(self, schema: Any) -> None:
        """The public half of :meth:`check`: columns and dtypes, no value read."""
        from ._convert import _check_id_columns, _id_kind

        _check_id_columns(schema, self.src, self.dst, "table")
        if self.bound_on == "edge label":
            label = self.extra["label"]
            if label not in schema:
                raise ValueError(f"label column {label!r} is not in the table; build one with dpg.polars.edge_label_table(graph)")
            if _id_kind(schema[label]) != "text":
                raise TypeError(
                    f"the label column {label!r} has dtype {schema[label]}: an edge-label table holds one label per row "
                    "(String, Categorical or Enum); explode a list column, or build the table with "
                    "dpg.polars.edge_label_table(graph)"
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


_GROUP = re.compile(r"group of ([1-9][0-9]*) edges")
_CONSTRUCTOR = {
    "edge": "edge_unit",
    "edge group": "edge_group_unit",
    "edge content": "edge_content_unit",
    "person": "person_unit",
    "secret edge label": "pufferfish_unit",
}


def _validate_unit(unit: PrivacyUnit) -> None:
    """The field-consistency rule of :class:`PrivacyUnit` (see :meth:`PrivacyUnit.validate`).

    From ``unit`` (which names the constructor), ``src``, ``dst``, ``max_messages`` and ``extra``
    it derives what the constructor would build and refuses any release-relevant field that
    differs. Public: reads the unit only."""
    if not isinstance(unit.unit, str):
        raise TypeError(f"unit must be a str naming the unit, got {unit.unit!r}")
    src, dst = _endpoints(unit.src, unit.dst)
    positive_integer("per_unit", unit.per_unit)
    if unit.max_messages is not None:
        positive_integer("max_messages", unit.max_messages)
    if unit.measured_in not in ("rows", "identifiers"):
        raise ValueError(f"measured_in must be 'rows' or 'identifiers', got {unit.measured_in!r}")
    if unit.neighbouring not in _NEIGHBOURING:
        raise ValueError(f"neighbouring must be one of {_NEIGHBOURING}, got {unit.neighbouring!r}")

    group = _GROUP.fullmatch(unit.unit)
    kind = "edge group" if group else unit.unit
    if kind not in _CONSTRUCTOR:
        raise ValueError(
            f"unknown unit {unit.unit!r}: a PrivacyUnit is one of 'edge', 'group of k edges', 'edge content', "
            "'person' or 'secret edge label'; build it with dpg.polars.edge_unit, edge_group_unit, edge_content_unit, "
            "person_unit or pufferfish_unit"
        )
    how = f"build it with dpg.polars.{_CONSTRUCTOR[kind]}(...)"

    def inconsistent(what: str) -> ValueError:
        return ValueError(f"inconsistent PrivacyUnit for one {unit.unit}: {what}; {how}")

    m = unit.max_messages
    if kind in ("edge", "edge group", "edge content"):
        k = 1
        if kind == "edge group":
            k = int(group.group(1))  # type: ignore[union-attr]
            if unit.extra.get("k") != k:
                raise inconsistent(f"extra['k'] = {unit.extra.get('k')!r} does not match the unit name ({k} edges)")
        neighbouring = "replace" if kind == "edge content" else "add_remove"
        if m is None:
            make = dp.change_one_id_distance if kind == "edge content" else dp.symmetric_id_distance
            want = {"metric": make(pair_identifier(src, dst)), "per_unit": k, "measured_in": "identifiers", "bound_on": None}
        else:
            factor = 2 if kind == "edge content" else 1
            want = {"metric": dp.symmetric_distance(), "per_unit": factor * k * m, "measured_in": "rows", "bound_on": "pair"}
    elif kind == "person":
        if m is None:
            raise inconsistent(
                "a person unit needs a declared bound max_messages (a message row involves two people, so no "
                "OpenDP identifier covers a person, and without a bound one person's rows are unbounded)"
            )
        neighbouring = unit.neighbouring
        factor = 2 if neighbouring == "replace" else 1
        want = {"metric": dp.symmetric_distance(), "per_unit": factor * m, "measured_in": "rows", "bound_on": "person"}
    else:  # secret edge label
        from ..pufferfish import CorrelationModel

        model, label = unit.extra.get("model"), unit.extra.get("label")
        if not isinstance(model, CorrelationModel):
            raise inconsistent(f"extra['model'] must be a correlation model, got {type(model).__name__}")
        if not isinstance(label, str) or not label or label in (src, dst):
            raise inconsistent(f"extra['label'] must name a label column other than the endpoints, got {label!r}")
        if m != 1:
            raise inconsistent(f"max_messages={m!r}, but an edge-label table has one row per (edge, label) (max_messages=1)")
        try:
            _covered_structure(model, unit.extra.get("structure"))
        except (TypeError, ValueError) as e:
            raise inconsistent(f"extra['structure']: {e}") from None
        neighbouring = "replace"
        want = {"metric": dp.symmetric_distance(), "per_unit": int(model.flip_bound), "measured_in": "rows", "bound_on": "edge label"}
    want["neighbouring"] = neighbouring

    for name, expected in want.items():
        actual = getattr(unit, name)
        same = actual == expected if name != "metric" else _same_metric(actual, expected)
        if not same:
            bound = "no declared bound" if m is None else f"max_messages={m} per {want['bound_on']}"
            raise inconsistent(f"{name}={actual!r}, but with {bound} it must be {expected!r}")


def _same_metric(actual: Any, expected: Any) -> bool:
    try:
        return bool(actual == expected)
    except Exception:  # a foreign object that cannot be compared with an OpenDP metric
        return False


def _check_edge_label_table(lazy: Any, src: str, dst: str, label: str) -> None:
    """The data half of the edge-label table's domain (the schema is checked before): no null
    label, no self-pair (``src == dst`` is not an edge), each (edge, label) once in either
    orientation. One message for all three, so a refusal reveals only that the table is not
    an edge-label table."""
    import polars as pl

    keys = _collect(lazy.select(
        pair_identifier(src, dst).alias("_pair"), pl.col(label).cast(pl.String).alias("_label"), (pl.col(src) == pl.col(dst)).alias("_loop")
    ))
    if keys["_label"].null_count() or keys["_loop"].any() or keys.select("_pair", "_label").is_duplicated().any():
        raise ValueError(
            "the table is not an edge-label table (one row per edge and label: no nulls, no self-pairs, no "
            "duplicates): a secret flip could move more rows than the flip bound; build it with "
            "dpg.polars.edge_label_table(graph)"
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

    **Preconditions** (checked by :func:`~opendp_graph.polars.compositor` on the table its
    releases read, and by :meth:`PrivacyUnit.check`): ``src`` and ``dst`` hold ids of one integer
    or text dtype (``TypeError``) and no nulls (``ValueError``: a row with a null endpoint
    belongs to no pair; with ``min``/``max`` it used to fall into the pair ``c–c``); with ``M``,
    every pair has at most ``M`` rows (``ValueError`` naming only the bound). Without ``M``
    nothing is declared: OpenDP bounds each pair's rows itself, by refusing a query that
    aggregates without ``truncate_per_group``, so no row bound is checked here. A self-message
    ``(c, c)`` is its own pair ``c–c`` (protected like one, though it is no edge of the graph).

    >>> import opendp_graph as dpg
    >>> dpg.polars.edge_unit("sender", "recipient", max_messages=5).privacy_unit
    (SymmetricDistance(), 5)
    """
    dp.assert_features("contrib", "honest-but-curious")
    src, dst = _endpoints(src, dst)
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

    **Preconditions**: those of :func:`edge_unit`.

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

    **Preconditions**: those of :func:`edge_unit`. The change-one-identifier reading needs
    every identifier to be one real pair: a null endpoint would make rows of *different* pairs
    share one identifier (refused, ``ValueError``), and so would ids of two dtypes (``1`` and
    ``"1"`` print alike; refused, ``TypeError``). With the identifier, OpenDP bounds a pair's
    rows itself (the query must ``truncate_per_group``); with ``M`` the bound is checked here.

    >>> import opendp_graph as dpg
    >>> dpg.polars.edge_content_unit("s", "r", max_messages=4).privacy_unit
    (SymmetricDistance(), 8)
    """
    dp.assert_features("contrib", "honest-but-curious")
    src, dst = _endpoints(src, dst)
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

    **Preconditions** (checked by :func:`~opendp_graph.polars.compositor` on the table its
    releases read): a person is one value of the id columns, so both columns hold one integer
    or text dtype (``TypeError``: with int senders and str recipients ``1`` and ``"1"`` would
    split one person in two, and each half could have ``D`` rows) and no nulls (``ValueError``:
    ``null`` is nobody, not a person with a bound); every person is in at most ``D`` rows,
    counted over both roles, a self-message ``(v, v)`` once (it is one row of ``v``; counting
    only sent messages would not bound ``R_v``). The bound is declared, not enforced by
    truncation (module docstring), so a table over it is refused, never truncated. One human
    with two ids is two people to this unit: merge such ids before the release.

    >>> import opendp_graph as dpg
    >>> dpg.polars.person_unit("sender", "recipient", max_messages=20).privacy_unit
    (SymmetricDistance(), 40)
    """
    dp.assert_features("contrib", "honest-but-curious")
    src, dst = _endpoints(src, dst)
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


def pufferfish_unit(
    model: Any, src: str = "src", dst: str = "dst", *, structure: Any, label: str = "label"
) -> PrivacyUnit:
    """Protect each secret "edge ``i`` carries label ``a``" under a Pufferfish correlation model.

    :param model: a correlation model of :mod:`opendp_graph.pufferfish` (``BinomialModel``,
        ``GlobalModel``, ``ConditionalModel``, ``EdgeLevelModel``, ``MarkovQuiltModel``), which
        must describe this graph's public structure, as for :func:`~opendp_graph.pufferfish_distance`.
    :param src: first endpoint column.
    :param dst: second endpoint column.
    :param structure: the public structure, a :class:`~opendp_graph.Graph` whose node ids are the
        table's ids (its labels, if any, are ignored). The model must cover it
        (``model.covers(structure)``, checked here: ``ValueError``), and every pair of the table
        must be one of its edges (checked on the table).
    :param label: the label column of an *edge-label table*, one row per (edge, label) with no
        duplicates (:func:`edge_label_table`); checked by the context (module docstring and
        **Preconditions** below).
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

    **Preconditions** (checked by :func:`~opendp_graph.polars.compositor` before any release):
    the id columns as for :func:`edge_unit` (one integer or text dtype, no nulls); the label
    column holds one label per row (``String``, ``Categorical`` or ``Enum``: ``TypeError`` for a
    list column, in which one row would carry several secrets); and the rows are an edge-label
    table: no null label, no self-pair ``(v, v)`` (not an edge, not a secret of the model), each
    (edge, label) once in either orientation (``(u, v, a)`` and ``(v, u, a)`` are one secret).
    Each violation would let one flip move more than ``F`` rows; one message covers all three.
    Coverage, as :class:`~opendp_graph.PufferfishDistance` checks it for graph queries: the model
    covers ``structure`` (at construction; the table has no rows for unlabeled edges, so the
    structure cannot be read from it), every pair of the table is an edge of ``structure`` (a
    secret of another pair is not one of the model's), and, for a model that describes only some
    properties (a ``ConditionalModel``'s ``vocabulary``), every label is one of them; filter the
    table first (``table.filter(pl.col("label").is_in(model.vocabulary))``, a public rule).

    >>> import opendp_graph as dpg
    >>> g = dpg.Graph.from_edges([0, 1], [1, 2])
    >>> dpg.polars.pufferfish_unit(dpg.pufferfish.EdgeLevelModel(), structure=g).privacy_unit
    (SymmetricDistance(), 1)
    """
    dp.assert_features("contrib", "honest-but-curious")
    from ..pufferfish import CorrelationModel

    if not isinstance(model, CorrelationModel):
        raise TypeError(f"model must be a correlation model from opendp_graph.pufferfish, got {type(model).__name__}")
    (src, dst), label = _endpoints(src, dst), _column_name(label, "label")
    if label in (src, dst):
        raise ValueError(f"the label column {label!r} is also an endpoint column")
    structure = _covered_structure(model, structure)
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
        extra={"model": model, "label": label, "data_dependent": dependent, "W": int(model.W), "structure": structure},
    )


def _covered_structure(model: Any, structure: Any) -> Any:
    """``structure`` without its labels, after checking that it is a Graph the model covers
    (public: the structure is public under a Pufferfish unit)."""
    from ..core._checks import not_a_graph
    from ..core.graph import Graph

    if not isinstance(structure, Graph):
        raise TypeError(f"structure must be the public graph structure: {not_a_graph(structure)}")
    if not model.covers(structure):
        raise ValueError(
            f"{model!r} does not cover this structure (some neighbourhood is outside what it was fitted on), so "
            "its W says nothing about these secrets; fit the model on this structure, or use one that covers it "
            "(MarkovQuiltModel.for_structure, EdgeLevelModel)"
        )
    return structure.without_labels() if structure.is_labeled else structure


def _check_secrets_of_the_model(lazy: Any, src: str, dst: str, label: str, model: Any, structure: Any) -> None:
    """The data half of a Pufferfish unit's coverage: every pair is an edge of the public
    structure, and every label one the model describes. Fixed messages (which pair or label is
    outside is not said)."""
    import numpy as np
    import polars as pl

    pairs = _collect(lazy.select(pl.col(src).alias("_s"), pl.col(dst).alias("_d")).unique())
    n = structure.num_nodes
    if structure.node_ids is None:
        index = None
    else:
        index = {name: i for i, name in enumerate(structure.node_ids)}
    ends = []
    for column in ("_s", "_d"):
        values = pairs[column].to_list()
        if index is None:
            ok = all(isinstance(v, int) and 0 <= v < n for v in values)
            positions = values if ok else None
        else:
            positions = [index.get(v, -1) for v in values]
            ok = all(p >= 0 for p in positions)
        ends.append(np.asarray(positions, dtype=np.int64) if ok else None)
    outside = ends[0] is None or ends[1] is None
    if not outside and pairs.height:
        lo, hi = np.minimum(*ends), np.maximum(*ends)
        keys = lo * np.int64(max(n, 1)) + hi
        outside = bool((lo == hi).any()) or not bool(np.isin(keys, structure.edge_keys).all())
    if outside:
        raise ValueError(
            "the table has rows on pairs that are not edges of the structure given to pufferfish_unit: the model's "
            "guarantee covers the secrets of that structure only; build the table with "
            "dpg.polars.edge_label_table(graph) and pass structure=graph"
        )
    vocabulary = getattr(model, "vocabulary", None)
    if isinstance(vocabulary, tuple):
        labels = _collect(lazy.select(pl.col(label).cast(pl.String).is_in(list(vocabulary)).all())).item()
        if not labels:
            raise ValueError(
                "the table has labels outside the model's vocabulary (the model describes only the properties it was "
                f"fitted on); keep those first: table.filter(pl.col({label!r}).is_in(model.vocabulary))"
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
    """Largest rows in one group and largest number of groups, over every person (or pair).
    Only called after ``unit.check(frame)`` (valid ids: no null person or pair)."""
    import polars as pl

    from ._convert import _as_lazy

    lazy = _as_lazy(frame).with_row_index("_row")
    keys = [pl.col(b) if isinstance(b, str) else b for b in by]
    names = [f"_by{i}" for i in range(len(keys))]
    base = lazy.select("_row", *[k.alias(n) for k, n in zip(keys, names)], pl.col(unit.src).alias("_s"), pl.col(unit.dst).alias("_r"))
    if unit.bound_on == "person":
        owners = pl.concat([base.select("_row", *names, pl.col("_s").alias("_who")), base.select("_row", *names, pl.col("_r").alias("_who"))]).unique()
    else:
        owners = base.select("_row", *names, pair_identifier("_s", "_r").alias("_who"))
    per_group = _collect(owners.group_by("_who", *names).agg(pl.len().alias("n")))
    worst_rows = int(per_group["n"].max() or 0)
    worst_groups = int(per_group.group_by("_who").len()["len"].max() or 0)
    return worst_rows, worst_groups


def _check_metric(metric: Any, unit: PrivacyUnit) -> bool:
    """Whether OpenDP's ``metric`` expresses one ``unit`` (the metric half of
    :func:`check_privacy_unit`, shared with :func:`~opendp_graph.polars.loss_for`); raises
    ``ValueError`` saying why not. Returns whether the metric is a ``FrameDistance`` (then
    ``d_in`` is a list of ``dp.polars.Bound``)."""
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
    return framed


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
    * ``frame``: the unit's preconditions (id dtypes, no null endpoint) and the declared
      ``max_messages``, via :meth:`PrivacyUnit.check`, before any per-group count is read.
      **Required** for a unit with a declared bound (``max_messages`` set: :func:`person_unit`,
      the edge units with ``max_messages=M``, :func:`pufferfish_unit`): its ``d_in`` covers one
      unit only on tables within the bound, which OpenDP never checks, so a check without the
      table would pass for a table that breaks the guarantee (``ValueError`` once the metric and
      ``d_in`` are found right). Optional for an identifier unit. A bound verified here holds for
      *this* ``frame``: pass the same table to ``dp.Context.compositor`` and do not change it,
      or use :func:`~opendp_graph.polars.compositor`, which does all of this itself.

    >>> import opendp.prelude as dp, polars as pl, opendp_graph as dpg
    >>> person = dpg.polars.person_unit("sender", "recipient", max_messages=3)
    >>> log = pl.DataFrame({"sender": ["ann", "bob"], "recipient": ["bob", "cy"]})
    >>> dpg.polars.check_privacy_unit(dp.unit_of(contributions=6), person, frame=log)
    >>> dpg.polars.check_privacy_unit(dp.unit_of(contributions=6), person)
    Traceback (most recent call last):
    ...
    ValueError: the guarantee for one person rests on the declared bound max_messages=3 per person, a claim about the data that OpenDP does not check; pass frame= (the very table you give dp.Context.compositor) to verify it, or release through dpg.polars.compositor, which checks it
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
    unit.validate()
    if not (isinstance(privacy_unit, tuple) and len(privacy_unit) == 2):
        raise TypeError(f"privacy_unit must be a (metric, d_in) pair as returned by dp.unit_of, got {privacy_unit!r}")
    metric, d_in = privacy_unit
    framed = _check_metric(metric, unit)
    what = unit.unit

    factor = 2 if unit.neighbouring == "replace" and unit.measured_in == "rows" else 1
    checked = False
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
                    "(truncate_num_groups(c, by=[...], keep='first') and truncate_per_group(k, by=[...], keep='first')) "
                    "and OpenDP derives them itself"
                )
            if frame is None:
                raise ValueError(f"per-group bounds {grouped} are claims about the data; pass frame= to verify them")
            unit.check(frame)  # the table's preconditions before its per-group counts are read
            checked = True
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
    if frame is None:
        if unit.max_messages is not None:
            if unit.bound_on == "edge label":
                claim = "on the table being an edge-label table (one row per (edge, label), no duplicates)"
            else:
                claim = f"on the declared bound max_messages={unit.max_messages} per {unit.bound_on}"
            raise ValueError(
                f"the guarantee for one {unit.unit} rests {claim}, a claim about the data that OpenDP does not check; "
                "pass frame= (the very table you give dp.Context.compositor) to verify it, or release through "
                "dpg.polars.compositor, which checks it"
            )
    elif not checked:
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

