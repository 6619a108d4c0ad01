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
message         one message (every row of one                ``SymmetricIdDistance(message_id)``, 1
                ``message_id``: its recipients and text),    identifier
                added or removed (edge DP on the
                multigraph of messages)
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
default ``keep="sample"`` fails at release in OpenDP 0.16 ("multiple fields with name ...
found"). A row-level unit instead rests on a *declared* public bound (``max_messages`` per pair
or per person), which is part of the input domain: the context checks it on the table and
rejects a table outside it, like the graph queries reject a graph outside their domain.

**Preconditions on the table** (every unit, and :func:`~opendp_graph.polars.rows_per_person`,
:func:`~opendp_graph.polars.rows_per_pair`, :meth:`PrivacyUnit.check`,
:func:`~opendp_graph.polars.check_privacy_unit`, :func:`~opendp_graph.polars.graph_from_polars`):
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
:func:`~opendp_graph.polars.check_privacy_unit` (``frame=`` is then required).

**One class per kind.** Each row of the table is a class, built by its constructor function or
by calling the class with the same arguments: :class:`EdgeUnit` (:func:`edge_unit`),
:class:`EdgeGroupUnit` (:func:`edge_group_unit`), :class:`EdgeContentUnit`
(:func:`edge_content_unit`), :class:`MessageUnit` (:func:`message_unit`), :class:`PersonUnit`
(:func:`person_unit`) and :class:`PufferfishUnit` (:func:`pufferfish_unit`), all of them a :class:`PrivacyUnit`. A unit's fields are those
arguments, checked when it is built; its metric and ``d_in`` (the last column of the table) are
properties derived from them, so a unit cannot claim a ``d_in`` its own bound does not give.
The table checks (:func:`~opendp_graph.polars.rows_per_person`,
:func:`~opendp_graph.polars.rows_per_pair` and what :meth:`PrivacyUnit.check` runs) are in
:mod:`opendp_graph.polars._table_checks`; :func:`~opendp_graph.polars.check_privacy_unit`, which
compares a hand-written OpenDP unit with a unit, is in :mod:`opendp_graph.polars._unit_checks`.

Why a person cannot be an OpenDP identifier: a message row involves two people. With
``identifier="sender"`` OpenDP protects everything a person *sent*, but the messages they
*received* belong to other identifiers (their senders), so one person's change touches up to
``1 + 2·D`` identifiers, not one. :func:`~opendp_graph.polars.check_privacy_unit` rejects that configuration.

Why the person bound is declared, not enforced by truncation: any rule that keeps at most ``D``
rows per person must choose, for each correspondent ``w`` of a person ``v``, which of ``w``'s rows
survive; rewiring ``v`` shifts those choices for every ``w``, so up to ``D`` rows of *each*
correspondent can change — the row distance is then bounded only by the number of people, not by
``D`` (a knock-on effect akin to the one that makes the degree projection of
:func:`~opendp_graph.make_degree_projection` unstable in edges). A declared cap that the context
verifies keeps the row distance at ``2·D``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import KW_ONLY, dataclass
from types import MappingProxyType
from typing import Any, ClassVar

import opendp.prelude as dp

from ..core._checks import positive_integer
from ._table_checks import _check_table, _column_name, pair_identifier

__all__ = [
    "PrivacyUnit",
    "EdgeUnit",
    "EdgeGroupUnit",
    "EdgeContentUnit",
    "MessageUnit",
    "PersonUnit",
    "PufferfishUnit",
    "edge_unit",
    "edge_group_unit",
    "edge_content_unit",
    "message_unit",
    "person_unit",
    "pufferfish_unit",
    "edge_label_table",
]

_NEIGHBOURING = ("replace", "add_remove")
_NO_EXTRA: Any = MappingProxyType({})


def _endpoints(src: Any, dst: Any) -> tuple[str, str]:
    src, dst = _column_name(src, "src"), _column_name(dst, "dst")
    if src == dst:
        raise ValueError(f"src and dst name the same column {src!r}")
    return src, dst


# ------------------------------------------------------------------------------ the units
def _freeze(unit: PrivacyUnit, **fields: Any) -> None:
    """Store the checked (normalised) arguments of a frozen unit, from its ``__post_init__``."""
    for name, value in fields.items():
        object.__setattr__(unit, name, value)


class PrivacyUnit(ABC):
    """One protected unit of a message table, as an OpenDP privacy unit: the abstract base of
    :class:`EdgeUnit`, :class:`EdgeGroupUnit`, :class:`EdgeContentUnit`, :class:`MessageUnit`,
    :class:`PersonUnit` and :class:`PufferfishUnit`.

    Build one with :func:`edge_unit`, :func:`edge_group_unit`, :func:`edge_content_unit`,
    :func:`message_unit`, :func:`person_unit` or :func:`pufferfish_unit` (or the class, with the same arguments), and
    release through :func:`~opendp_graph.polars.compositor`, which checks the unit's
    preconditions (and its declared bound, if any) on the table its releases read. :meth:`d_in`
    scales the unit to several units; :meth:`check` verifies the preconditions on a table.

    **Consistent by construction.** A unit's fields are its constructor's arguments (the
    endpoint columns, ``max_messages``, ``k``, ``neighbouring``, the Pufferfish model, structure
    and label column), checked when it is built, with the constructor function's messages.
    What decides a release (:attr:`metric`, :attr:`per_unit`, :attr:`measured_in`,
    :attr:`bound_on`, :attr:`neighbouring`) is derived from them, never stored, so no unit can
    pair a metric or ``d_in`` with a bound that does not give it (a person unit with
    ``per_unit=1`` and no declared bound used to be accepted by hand and then claim ε for one
    person whose change moved any number of rows). Units are frozen values:
    ``dataclasses.replace`` builds a new one, checked again, and two units with equal fields are
    equal. The kinds are closed: a subclass outside this module is refused (``TypeError``), since
    :func:`~opendp_graph.polars.compositor` trusts a unit's metric and ``d_in``.
    """

    src: str
    """Sender (first endpoint) column."""
    dst: str
    """Recipient (second endpoint) column."""
    max_messages: int | None
    """Declared public bound on rows per pair (edge units) or per person (person unit); ``1`` for
    a Pufferfish unit (one row per edge and label); ``None`` for an identifier unit."""
    __dataclass_fields__: ClassVar[dict[str, Any]]  # every kind is a frozen dataclass (dataclasses.replace works on a unit)

    def __new__(cls, *args: Any, **kwargs: Any) -> PrivacyUnit:
        if cls in (PrivacyUnit, _PairUnit, _OnePairUnit, _RowUnit):
            raise TypeError(
                f"{cls.__name__} is abstract: build one kind of unit with dpg.polars.edge_unit, edge_group_unit, "
                "edge_content_unit, message_unit, person_unit or pufferfish_unit (or its class, EdgeUnit, EdgeGroupUnit, "
                "EdgeContentUnit, MessageUnit, PersonUnit, PufferfishUnit); its metric and d_in are derived from its fields, not given"
            )
        return super().__new__(cls)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__module__ != __name__:
            raise TypeError(
                f"{cls.__name__}: the kinds of PrivacyUnit are closed ('edge', 'group of k edges', 'edge content', "
                "'message', 'person', 'secret edge label'), as compositor trusts a unit's metric and d_in; build one with "
                "dpg.polars.edge_unit, edge_group_unit, edge_content_unit, message_unit, person_unit or pufferfish_unit"
            )

    def __post_init__(self) -> None:
        """Check (and normalise) the arguments, with the constructor function's messages."""
        dp.assert_features("contrib", "honest-but-curious")
        self._check_arguments()

    @abstractmethod
    def _check_arguments(self) -> None:
        """The kind's own checks of its fields (after OpenDP's features)."""

    _name: ClassVar[str]

    @property
    def unit(self) -> str:
        """What one unit is: ``"edge"``, ``"group of k edges"``, ``"edge content"``, ``"message"``,
        ``"person"`` or ``"secret edge label"`` (each the unit of one constructor)."""
        return self._name

    @property
    @abstractmethod
    def metric(self) -> Any:
        """The OpenDP metric on the table."""

    @property
    @abstractmethod
    def per_unit(self) -> int:
        """OpenDP ``d_in`` (rows or identifiers) for one unit."""

    @property
    @abstractmethod
    def measured_in(self) -> str:
        """``"rows"`` or ``"identifiers"``: what ``per_unit`` counts."""

    @property
    @abstractmethod
    def bound_on(self) -> str | None:
        """``"pair"``, ``"person"`` or ``"edge label"``: what ``max_messages`` bounds (``None``
        without a declared bound)."""

    @property
    def neighbouring(self) -> str:
        """``"add_remove"`` (a unit is added or removed) or ``"replace"`` (it is changed)."""
        return "add_remove"

    @property
    @abstractmethod
    def guarantee(self) -> str:
        """The guarantee in words."""

    @property
    def extra(self) -> Any:
        """Read-only details of the kind: ``{"k": k}`` for a group of edges; ``model``,
        ``label``, ``data_dependent``, ``W`` and ``structure`` for a Pufferfish unit; empty
        otherwise (each also a field or property of its class)."""
        return _NO_EXTRA

    def validate(self) -> None:
        """Check the fields again as the constructor does (same messages). A unit is consistent
        by construction (its metric and ``d_in`` are derived); this guards against fields
        changed with ``object.__setattr__``, and is run by
        :func:`~opendp_graph.polars.compositor`, :func:`~opendp_graph.polars.check_privacy_unit`
        and :func:`~opendp_graph.polars.loss_for` before they use the unit. Reads no data."""
        self.__post_init__()

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
        ``dp.Context`` yourself, first run :func:`~opendp_graph.polars.check_privacy_unit` with
        ``frame=`` (which requires it for these units) on the very table you pass, and never
        change that table afterwards. Identifier units declare no bound (OpenDP bounds a pair's rows itself, by
        refusing queries that do not truncate), but the id columns still need one integer or
        text dtype and no nulls (:meth:`check`).

        Design decision: this property does not raise for bounded units. It only describes the
        unit, like ``dp.unit_of(...)``; anyone can type ``(dp.symmetric_distance(), 2)`` by
        hand, so a refusal here would protect nothing, while the checked routes
        (:func:`~opendp_graph.polars.compositor`, :func:`~opendp_graph.polars.check_privacy_unit`
        with ``frame=``) are where the table is available and the bound can be verified.
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
        reveals; :func:`~opendp_graph.polars.rows_per_person` gives the curator the counts,
        outside any privacy guarantee. :func:`~opendp_graph.polars.compositor` runs this on the table its releases
        read; call it yourself only for a ``dp.Context`` you build by hand.
        """
        _check_table(self, frame)

    def __repr__(self) -> str:
        if self.max_messages is None:
            bound = ""
        elif self.bound_on == "edge label":
            bound = ", one row per (edge, label)"
        else:
            bound = f", max_messages={self.max_messages} per {self.bound_on}"
        return (
            f"PrivacyUnit(unit={self.unit!r}, d_in={self.per_unit} {self.measured_in} under {self.metric}{bound}, neighbouring={self.neighbouring!r})"
        )


class _PairUnit(PrivacyUnit):
    """A unit made of whole pairs of people (:class:`EdgeUnit`, :class:`EdgeGroupUnit`,
    :class:`EdgeContentUnit`): without a declared bound the pair is an OpenDP identifier
    (:func:`pair_identifier`), with ``max_messages=M`` rows per pair the unit is ``M`` rows per
    pair, twice that when the pair's rows are replaced rather than added or removed."""

    _replaced = False  # the pair's messages change (EdgeContentUnit) rather than come or go

    @property
    def _pairs(self) -> int:
        """How many pairs one unit is."""
        return 1

    def _check_arguments(self) -> None:
        _endpoints(self.src, self.dst)
        if self.max_messages is not None:
            _freeze(self, max_messages=positive_integer("max_messages", self.max_messages))

    @property
    def metric(self) -> Any:
        if self.max_messages is None:
            make = dp.change_one_id_distance if self._replaced else dp.symmetric_id_distance
            return make(pair_identifier(self.src, self.dst))
        return dp.symmetric_distance()

    @property
    def per_unit(self) -> int:
        if self.max_messages is None:
            return self._pairs
        return (2 if self._replaced else 1) * self._pairs * self.max_messages

    @property
    def measured_in(self) -> str:
        return "identifiers" if self.max_messages is None else "rows"

    @property
    def bound_on(self) -> str | None:
        return None if self.max_messages is None else "pair"

    @property
    def neighbouring(self) -> str:
        return "replace" if self._replaced else "add_remove"


@dataclass(frozen=True, repr=False)
class _OnePairUnit(_PairUnit):
    """The fields of a unit of one pair (:class:`EdgeUnit`, :class:`EdgeContentUnit`), and its
    guarantee in words (without a bound, and with ``max_messages={m}``)."""

    src: str = "src"
    dst: str = "dst"
    _: KW_ONLY
    max_messages: int | None = None

    _says: ClassVar[tuple[str, str]]

    @property
    def guarantee(self) -> str:
        free, bounded = self._says
        return free if self.max_messages is None else bounded.format(m=self.max_messages)


@dataclass(frozen=True, repr=False)
class EdgeUnit(_OnePairUnit):
    """One edge: one pair of people and all their messages, added or removed (:func:`edge_unit`,
    whose docstring states the guarantee): ``SymmetricIdDistance(pair)``, 1 identifier, or
    ``SymmetricDistance``, ``M`` rows with ``max_messages=M``."""

    _name = "edge"
    _says = (
        "all messages between one pair of people (either direction) may be added or removed",
        "all messages between one pair of people (at most {m} rows, declared) may be added or removed",
    )


@dataclass(frozen=True, repr=False)
class EdgeGroupUnit(_PairUnit):
    """Any ``k`` edges, added or removed (:func:`edge_group_unit`): ``k`` pair identifiers, or
    ``k·M`` rows with ``max_messages=M``."""

    k: int
    src: str = "src"
    dst: str = "dst"
    _: KW_ONLY
    max_messages: int | None = None

    def __post_init__(self) -> None:
        _freeze(self, k=positive_integer("k", self.k))  # first, as edge_group_unit always did
        super().__post_init__()

    @property
    def _pairs(self) -> int:
        return self.k

    @property
    def unit(self) -> str:
        return f"group of {self.k} edges"

    @property
    def guarantee(self) -> str:
        return f"the messages of any {self.k} pairs of people may be added or removed"

    @property
    def extra(self) -> Any:
        return MappingProxyType({"k": self.k})


@dataclass(frozen=True, repr=False)
class EdgeContentUnit(_OnePairUnit):
    """One edge's content: the set of pairs is public, the messages of one pair are replaced
    (:func:`edge_content_unit`): ``ChangeOneIdDistance(pair)``, 1 identifier, or
    ``SymmetricDistance``, ``2·M`` rows with ``max_messages=M``."""

    _replaced = True
    _name = "edge content"
    _says = (
        "the messages of one pair of people may be replaced; which pairs communicate is public",
        "the messages of one pair (at most {m} rows, declared) may be replaced; which pairs communicate is public",
    )


@dataclass(frozen=True, repr=False)
class MessageUnit(PrivacyUnit):
    """One message: every row of one ``message_id`` (its recipients and its text), added or
    removed (:func:`message_unit`, whose docstring states the guarantee):
    ``SymmetricIdDistance(message_id)``, 1 identifier."""

    src: str = "src"
    dst: str = "dst"
    _: KW_ONLY
    message_id: str = "message_id"

    _name = "message"

    @property
    def max_messages(self) -> None:  # type: ignore[override]
        return None  # an identifier unit: OpenDP bounds a message's rows by truncation

    def _check_arguments(self) -> None:
        src, dst = _endpoints(self.src, self.dst)
        message_id = _column_name(self.message_id, "message_id")
        if message_id in (src, dst):
            raise ValueError(f"the message_id column {message_id!r} is also an endpoint column")

    @property
    def metric(self) -> Any:
        import polars as pl

        return dp.symmetric_id_distance(pl.col(self.message_id))

    @property
    def per_unit(self) -> int:
        return 1

    @property
    def measured_in(self) -> str:
        return "identifiers"

    @property
    def bound_on(self) -> None:
        return None

    @property
    def guarantee(self) -> str:
        return "one message (all its rows: its recipients and its text) may be added or removed; who writes to whom, and how often, is not protected"

    @property
    def extra(self) -> Any:
        return MappingProxyType({"message_id": self.message_id})


class _RowUnit(PrivacyUnit):
    """A unit that rests on a declared bound of rows (:class:`PersonUnit`, :class:`PufferfishUnit`):
    OpenDP's row metric, whatever the bound is on."""

    _bound_on: ClassVar[str]

    @property
    def metric(self) -> Any:
        return dp.symmetric_distance()

    @property
    def measured_in(self) -> str:
        return "rows"

    @property
    def bound_on(self) -> str:
        return self._bound_on


@dataclass(frozen=True, repr=False)
class PersonUnit(_RowUnit):
    """One person: everything they sent or received (:func:`person_unit`, whose docstring states
    the guarantee), under the declared bound ``max_messages=D`` rows per person:
    ``SymmetricDistance``, ``2·D`` rows (``D`` with ``neighbouring="add_remove"``)."""

    src: str = "src"
    dst: str = "dst"
    _: KW_ONLY
    max_messages: int
    neighbouring: str = "replace"

    _name = "person"
    _bound_on = "person"

    def _check_arguments(self) -> None:
        _endpoints(self.src, self.dst)
        if self.max_messages is None:
            raise ValueError(
                "person_unit needs a declared max_messages: a person is not one identifier column (a message has a "
                "sender and recipients), so OpenDP cannot truncate per person. To bound each person's messages "
                "without declaring a bound, use dpg.polars.message_log(table) with dpg.polars.make_private_total"
            )
        _freeze(self, max_messages=positive_integer("max_messages", self.max_messages))
        if self.neighbouring not in _NEIGHBOURING:
            raise ValueError(f"neighbouring must be one of {_NEIGHBOURING}, got {self.neighbouring!r}")

    @property
    def per_unit(self) -> int:
        return (2 if self.neighbouring == "replace" else 1) * self.max_messages

    @property
    def guarantee(self) -> str:
        verb = "rewired" if self.neighbouring == "replace" else "added or removed"
        return f"all messages one person sent or received (at most {self.max_messages} rows, declared) may be {verb}"


@dataclass(frozen=True, repr=False)
class PufferfishUnit(_RowUnit):
    """One secret "edge ``i`` carries label ``a``" under a Pufferfish correlation model, on an
    edge-label table (:func:`pufferfish_unit`, whose docstring states the guarantee):
    ``SymmetricDistance``, ``F`` rows, the model's flip bound. ``structure`` is kept without its
    labels."""

    model: Any
    src: str = "src"
    dst: str = "dst"
    _: KW_ONLY
    structure: Any
    label: str = "label"

    _name = "secret edge label"
    _bound_on = "edge label"

    def _check_arguments(self) -> None:
        from ..pufferfish import CorrelationModel

        if not isinstance(self.model, CorrelationModel):
            raise TypeError(f"model must be a correlation model from opendp_graph.pufferfish, got {type(self.model).__name__}")
        (src, dst), label = _endpoints(self.src, self.dst), _column_name(self.label, "label")
        if label in (src, dst):
            raise ValueError(f"the label column {label!r} is also an endpoint column")
        _freeze(self, structure=_covered_structure(self.model, self.structure))

    @property
    def max_messages(self) -> int:  # type: ignore[override]
        return 1

    @property
    def per_unit(self) -> int:
        return int(self.model.flip_bound)

    @property
    def neighbouring(self) -> str:
        return "replace"

    @property
    def data_dependent(self) -> bool:
        """Whether the model was fitted on the private data (then the guarantee holds for its own
        attacker class only)."""
        return bool(self.model.data_dependent)

    @property
    def guarantee(self) -> str:
        note = " (model fitted on the private data: the guarantee holds for its own attacker class only)" if self.data_dependent else ""
        return f"whether one edge carries one label, under {self.model!r} (at most {self.per_unit} edges flip together){note}"

    @property
    def extra(self) -> Any:
        return MappingProxyType(
            {"model": self.model, "label": self.label, "data_dependent": self.data_dependent, "W": int(self.model.W), "structure": self.structure}
        )


# ------------------------------------------------------------------------ constructors


def edge_unit(src: str = "src", dst: str = "dst", *, max_messages: int | None = None) -> EdgeUnit:
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
    return EdgeUnit(src, dst, max_messages=max_messages)


def edge_group_unit(k: int, src: str = "src", dst: str = "dst", *, max_messages: int | None = None) -> EdgeGroupUnit:
    """Protect groups of ``k`` edges (:func:`~opendp_graph.group_distance`): ``d_in`` = ``k``
    pair identifiers, or ``k·M`` rows with a declared ``max_messages=M`` per pair.

    **Privacy guarantee.** ``k`` added or removed pairs differ in ``k`` identifiers, or in at
    most ``k·M`` rows (each pair has at most ``M``).

    **Preconditions**: those of :func:`edge_unit`.

    >>> import opendp_graph as dpg
    >>> dpg.polars.edge_group_unit(3, "s", "r", max_messages=2).privacy_unit
    (SymmetricDistance(), 6)
    """
    return EdgeGroupUnit(k, src, dst, max_messages=max_messages)


def edge_content_unit(src: str = "src", dst: str = "dst", *, max_messages: int | None = None) -> EdgeContentUnit:
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
    return EdgeContentUnit(src, dst, max_messages=max_messages)


def message_unit(src: str = "src", dst: str = "dst", *, message_id: str = "message_id") -> MessageUnit:
    """Protect each message: one message, with all its rows (one per recipient) and its text,
    added or removed. The weakest unit here, and the one that learns most from text: it is edge
    DP on the *multigraph* of messages (each message its own edge), the "event-level" notion of
    communication data, where :func:`edge_unit` protects a whole relationship.

    :param src: sender column.
    :param dst: recipient column.
    :param message_id: the column that names a message (one integer or text dtype, no nulls);
        every row with the same value is the same message.

    **Privacy guarantee.** Neighbouring tables differ in the rows of one ``message_id`` value:
    OpenDP's ``SymmetricIdDistance(message_id)`` 1 (one identifier added or removed), exactly.
    Queries must truncate per message (``truncate_per_group``), so OpenDP bounds a message's rows
    itself; nothing about the data is declared. **What it does not protect:** anything spread
    over several messages. A pair who exchanged 40 messages is protected only as a group of 40
    units (group privacy: ``40·ε``), so that they correspond, how often, and a subject they
    repeat are not hidden; use :func:`edge_unit` (a relationship) or :func:`person_unit` (a
    person) for those. Messages to oneself are messages, and are protected (and used) like others.

    **Preconditions** (checked by :func:`~opendp_graph.polars.compositor` and
    :meth:`PrivacyUnit.check`): those of :func:`edge_unit` on ``src`` and ``dst``, and the
    ``message_id`` column present, of one integer or text dtype (``TypeError``), never null
    (``ValueError``: a null would make unrelated rows one message in OpenDP's grouping).

    >>> import opendp_graph as dpg
    >>> dpg.polars.message_unit("sender", "recipient").privacy_unit
    (SymmetricIdDistance { identifier: col("message_id") }, 1)
    """
    return MessageUnit(src, dst, message_id=message_id)


def person_unit(src: str = "src", dst: str = "dst", *, max_messages: int, neighbouring: str = "replace") -> PersonUnit:
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
    return PersonUnit(src, dst, max_messages=max_messages, neighbouring=neighbouring)


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


def pufferfish_unit(model: Any, src: str = "src", dst: str = "dst", *, structure: Any, label: str = "label") -> PufferfishUnit:
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
    composition within one model). The averaging holds for every loss
    :func:`~opendp_graph.polars.compositor` takes, so the unit's guarantee is stated in the
    context's measure: ``(ε, δ)`` (``Pr[M ∈ S | s⁰] = Σ γ Pr[m(T(G)) ∈ S] ≤ Σ γ (e^ε Pr[m(T(G')) ∈ S] + δ)``);
    ρ-zCDP, since for every order ``α > 1`` the quantity ``exp((α − 1)·D_α(P‖Q)) = Σ p^α q^{1−α}`` is
    jointly convex in ``(P, Q)`` (the perspective of the convex ``t ↦ t^α``), so the two mixtures
    over the coupling are within ``D_α ≤ ρα`` when every coupled pair is; and ``(ρ, δ)`` in its
    decomposition form (each pair's outputs ``(1 − δ)·P′ + δ·P″`` and ``(1 − δ)·Q′ + δ·Q″`` with
    ``D_α(P′‖Q′) ≤ ρα``), whose parts mix with the same weights. The table must hold each (edge, label) at most once: with
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
    return PufferfishUnit(model, src, dst, structure=structure, label=label)


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
