"""An OpenDP ``Context`` whose privacy unit is a graph unit, with accounting in that unit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import opendp.prelude as dp
from opendp.mod import LazyFrameDomain

from ..core._checks import positive_integer
from ..measurements._context import check_privacy_loss
from ._convert import _as_lazy, _collect, _dtype_name, schema_of
from ._table_checks import _check_schema, pair_identifier
from ._unit_checks import _check_metric
from ._units import MessageUnit, PrivacyUnit, PufferfishUnit

__all__ = ["UnitContext", "compositor", "loss_for"]

# Passed by compositor() only: a UnitContext exists only around a table whose preconditions
# were checked, so no release can read an unchecked table.
_CHECKED = object()


def loss_for(measurement: Any, unit: PrivacyUnit, units: int = 1) -> Any:
    """The privacy loss of ``measurement`` (an OpenDP measurement on the table, or a Polars
    query of a context, which is resolved first) for tables that differ in ``units`` units.

    This is ``measurement.map(unit.d_in(units))``: OpenDP's own privacy map, evaluated at the
    ``d_in`` that covers ``units`` people/edges (as ``[dp.polars.Bound(per_group=d_in)]`` when
    the measurement's input metric is a ``FrameDistance``). First, as :func:`check_privacy_unit`
    does, the measurement's input metric must express the unit (``ValueError`` otherwise: a
    measurement built with ``dp.unit_of(identifier="sender")`` does not protect a person, who is
    in rows of up to ``1 + 2·D`` sender ids, so its map at one identifier is not a person's
    loss), and its input domain must not declare ``invariant="lengths"`` margins (group sizes that
    one unit changes) nor a ``keys``/``lengths`` invariant grouped by the unit's own id columns
    or the pair identifier written as such (``ValueError``; a derived expression such as
    ``pl.col("sender").str.to_lowercase()`` cannot be looked up here: build the measurement
    through :func:`compositor`, which refuses those too).

    The loss holds for tables in the unit's domain: for a unit with a declared bound, tables
    within ``max_messages`` (which :func:`compositor` checks on the table it releases on).

    >>> import polars as pl, opendp.prelude as dp, opendp_graph as dpg
    >>> log = pl.DataFrame({"sender": ["ann", "ann", "bob"], "recipient": ["bob", "cy", "cy"]})
    >>> person = dpg.polars.person_unit("sender", "recipient", max_messages=3)
    >>> by_sender = dp.Context.compositor(data=log.lazy(), privacy_unit=dp.unit_of(contributions=1, identifier="sender"),
    ...                                   privacy_loss=dp.loss_of(epsilon=1.0), split_evenly_over=1)
    >>> query = by_sender.query().truncate_per_group(1).select(dp.len(signed=False))
    >>> dpg.polars.loss_for(query, person)
    Traceback (most recent call last):
    ...
    ValueError: an identifier (col("sender")) does not protect a person: a message row involves two people, so one person's messages belong to up to 1 + 2·3 identifiers; use the row-level unit (metric SymmetricDistance(), d_in 6)
    """
    if not isinstance(unit, PrivacyUnit):
        raise TypeError(f"unit must be a PrivacyUnit, got {type(unit).__name__}")
    unit.validate()
    d_in = unit.d_in(units)
    if hasattr(measurement, "resolve") and not isinstance(measurement, dp.Measurement):
        measurement = measurement.resolve()
    if not isinstance(measurement, dp.Measurement):
        raise TypeError(f"expected an OpenDP measurement or a context query, got {type(measurement).__name__}")
    framed = _check_metric(measurement.input_metric, unit)
    domain = measurement.input_domain
    if isinstance(domain, LazyFrameDomain):
        _refuse_invariants_in_domain(domain, unit)
    return measurement.map([dp.polars.Bound(per_group=d_in)] if framed else d_in)


def _protected_columns(unit: PrivacyUnit) -> set[str]:
    """The columns whose values one unit can make appear or disappear: the endpoints (and the
    label column of an edge-label table, whose labels are the secrets; the message column of a
    message unit, whose values are the units)."""
    columns = {unit.src, unit.dst}
    if isinstance(unit, PufferfishUnit):
        columns.add(unit.label)
    if isinstance(unit, MessageUnit):
        columns.add(unit.message_id)
    return columns


def _grouping_reads(item: Any) -> set[str] | None:
    """The input columns a margin's ``by`` entry reads, or ``None`` when that cannot be told (a
    wildcard, a regex or several columns in one entry), which is then treated as reading all."""
    import polars as pl

    if isinstance(item, str):
        item = pl.col(item)
    if not isinstance(item, pl.Expr):
        raise TypeError(f"a margin's by must hold column names or Polars expressions, got {item!r}")
    meta = item.meta
    if meta.is_regex_projection() or meta.has_multiple_outputs():
        return None
    return set(meta.root_names())


def _by_text(by: Sequence[Any]) -> str:
    """A margin's ``by`` for a message: column names quoted, expressions as Polars prints them."""
    return "[" + ", ".join(repr(item) if isinstance(item, str) else str(item) for item in by) + "]"


def _check_margin(margin: Any, unit: PrivacyUnit) -> None:
    """Refuse a margin whose invariant one unit can break (public: reads the descriptor only)."""
    if not isinstance(margin, dp.polars.Margin):
        raise TypeError(f"margins must be dp.polars.Margin objects, got {type(margin).__name__}")
    by = list(margin.by)
    protected = _protected_columns(unit)
    touched: set[str] = set()
    unknown = False
    for item in by:
        reads = _grouping_reads(item)
        if reads is None:
            unknown = True
        else:
            touched |= reads & protected
    own = sorted(protected) if unknown else sorted(touched)
    names = "/".join(repr(c) for c in own)
    if margin.invariant == "lengths":
        hint = "drop the invariant"
        if not own:
            hint += (
                " and pass public group keys with .with_keys(...) (invariant='keys' suits group keys that are public "
                "whatever one unit does: every key occurs in every neighbouring table, which is not checked)"
            )
        raise ValueError(f"a margin with invariant='lengths' (by={_by_text(by)}) releases exact group sizes, which reveal one {unit.unit}; {hint}")
    if margin.invariant == "keys" and own:
        raise ValueError(
            f"a margin with invariant='keys' (by={_by_text(by)}) declares the values of {names} that occur in the table "
            f"public, but they are the {unit.unit}'s own: one {unit.unit} can add or remove one (a person in a single "
            "message would be revealed to exist). Drop the invariant and pass public keys in the query with "
            ".with_keys(...); invariant='keys' suits only keys that no single unit can add or remove (not checked: "
            "a department with one member breaks it)"
        )


def _refuse_invariants_in_domain(domain: Any, unit: PrivacyUnit) -> None:
    """Refuse invariants a measurement's input domain declares that one unit can break, as far
    as OpenDP's public ``get_margin`` can look them up: a ``lengths`` invariant anywhere (it
    implies one on the whole table), and ``keys``/``lengths`` by an id column or the pair."""
    if domain.get_margin([]).invariant == "lengths":
        raise ValueError(
            f"the measurement's domain declares a margin with invariant='lengths', which releases exact group sizes "
            f"that reveal one {unit.unit}; build it without the invariant"
        )
    owned = [[unit.src], [unit.dst], [pair_identifier(unit.src, unit.dst)]] + ([[unit.message_id]] if isinstance(unit, MessageUnit) else [])
    for by in owned:
        if domain.get_margin(by).invariant is not None:
            raise ValueError(
                f"the measurement's domain declares an invariant grouped by the {unit.unit}'s own id columns "
                f"{unit.src!r}/{unit.dst!r}, which one {unit.unit} can break; build it without the invariant"
            )


def _check_domain(domain: Any) -> None:
    """A ``domain=`` for :func:`compositor`: a LazyFrame domain without margins (public)."""
    if not isinstance(domain, LazyFrameDomain):
        raise TypeError(f"domain must be a dp.lazyframe_domain([...]), got {type(domain).__name__}")
    bare = dp.lazyframe_domain([domain.get_series_domain(c) for c in domain.columns])
    if bare != domain:
        raise ValueError(
            "the domain= carries margins, which compositor cannot check against the unit (a margin with "
            "invariant='lengths' by the sender column would release exact per-sender counts); pass the domain "
            "without margins (dp.lazyframe_domain([...])) and the margins as margins=[dp.polars.Margin(...)], "
            "where they are checked"
        )


def _check_column_dtypes(schema: Any) -> None:
    """Every column must have a dtype OpenDP can describe, or OpenDP fails later with
    ``unrecognized dtype: List(String)``, naming no column. Schema only (public): each column is
    described alone by OpenDP's own inference, ``dp.domain_of(LazyFrame, infer=True)``."""
    import polars as pl

    unsupported, narrow_integers = [], []
    for name, dtype in schema.items():
        try:
            dp.domain_of(pl.LazyFrame(schema={name: dtype}), infer=True)
        except Exception:
            unsupported.append(f"{name!r} ({_dtype_name(dtype)})")  # an Enum's categories withheld
            if dtype in (pl.Int8, pl.Int16, pl.UInt8, pl.UInt16):
                narrow_integers.append(name)
    if unsupported:
        # 8- and 16-bit integers (an id column read from a small file, say): widening is exact
        widen = (
            f"; cast the integer column(s) it does need, such as an id of the unit, to 64 bits: "
            f"frame.cast({{{', '.join(f'{name!r}: pl.Int64' for name in narrow_integers)}}})"
            if narrow_integers
            else ""
        )
        raise TypeError(
            f"OpenDP {_opendp_version()} cannot describe the column(s) {', '.join(unsupported)} of this "
            "table. Drop the columns the release does not use (frame.drop(...) or frame.select(...)) before "
            "compositor; for the words of each message, a List(String) column, explode it into one row per word "
            f"(frame.explode(column)), as the Polars tutorial does{widen}"
        )


def _opendp_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("opendp")
    except PackageNotFoundError:  # pragma: no cover - opendp is a dependency
        return ""


def _check_domain_membership(domain: Any, frame: Any) -> None:
    """The data half of ``domain=``: OpenDP trusts a series domain's claims (bounds, no nulls,
    dtype) without looking, so every column it describes is checked on the snapshot. One fixed
    message, so a refusal reveals only that the table is outside the domain."""
    import warnings

    for name in domain.columns:
        try:
            # OpenDP's Domain.member warns "Value (<the whole column>) does not belong to ..." when
            # its check fails: that text quotes the data, so the warning is silenced here and the
            # fixed message below is all a refusal says
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                inside = name in frame.columns and bool(domain.get_series_domain(name).member(frame[name]))
        except Exception:
            inside = False
        if not inside:
            raise ValueError(
                "the table is not in the given domain= (a column is missing, or holds a value outside its declared "
                "dtype, bounds or nullability), so OpenDP's guarantee would not hold for it"
            )


def _check_margin_claims(margins: Sequence[Any], frame: Any) -> None:
    """The data half of ``margins=``: ``max_length`` (rows in one group) and ``max_groups`` are
    claims OpenDP trusts; each is checked on the snapshot, with one fixed message."""
    import polars as pl

    for margin in margins:
        if margin.max_length is None and margin.max_groups is None:
            continue
        by = list(margin.by)
        try:
            if by:
                sizes = frame.group_by(by).agg(pl.len().alias("_n"))["_n"]
                longest, groups = int(sizes.max() or 0), sizes.len()
            else:
                longest, groups = frame.height, 1
        except pl.exceptions.PolarsError:
            raise ValueError(f"the margin by={_by_text(by)} cannot be evaluated on the table (a column is missing?)") from None
        if (margin.max_length is not None and longest > margin.max_length) or (margin.max_groups is not None and groups > margin.max_groups):
            raise ValueError(
                f"the table violates the margin by={_by_text(by)} (max_length={margin.max_length}, max_groups="
                f"{margin.max_groups}), a claim OpenDP trusts; declare a larger public bound"
            )


class UnitContext(dp.Context):
    """A ``dp.Context`` (use it exactly like one: ``ctx.query()...release()``) that also knows
    its :class:`~opendp_graph.polars.PrivacyUnit`, so the losses read in people or edges.

    Build one with :func:`compositor`, which checks the unit's preconditions on the table
    before the context exists; constructing one directly around a ``dp.Context`` (whose data
    was never checked) is refused. ``d_in`` is the unit's ``per_unit``, so the budget and
    ``current_privacy_loss()`` are already *per unit*. :meth:`spent` re-evaluates the released
    queries' own OpenDP privacy maps at the ``d_in`` of several units (group privacy in OpenDP's
    terms: tables that differ in ``k`` people differ in at most ``k·per_unit`` rows) and adds
    them up (sequential composition: ε, ρ, (ε, δ) and (ρ, δ) add, each part separately, as
    OpenDP's compositors add them). Under zCDP the loss of ``k`` units is OpenDP's map at
    ``k·per_unit``: ``k²·ρ`` for Gaussian noise (its ℓ2 sensitivity grows ``k``-fold), not ``k·ρ``.
    """

    def __init__(self, context: dp.Context, unit: PrivacyUnit, *, _checked: Any = None):
        if _checked is not _CHECKED:
            raise TypeError(
                "build a UnitContext with dpg.polars.compositor(data, unit, ...), which checks the unit's "
                "preconditions on the data; wrapping an existing dp.Context would release on an unchecked table"
            )
        super().__init__(
            accountant=context.accountant,
            queryable=context.queryable,  # type: ignore[arg-type]  # OpenDP 0.16 types the attribute wider than __init__ (an OdometerQueryable too)
            d_in=context.d_in,
            d_mids=context.d_mids,
            d_out=context.d_out,
        )
        self.unit = unit
        self.released: list[dp.Measurement] = []
        """The measurements released so far, in order."""

    def __call__(self, query: dp.Measurement):
        answer = super().__call__(query)
        self.released.append(query)
        return answer

    def budget(self) -> Any:
        """The whole budget, per unit (OpenDP's map of the compositor at ``unit.per_unit``), in
        the context's measure: ε, ρ, (ε, δ) or (ρ, δ) as given to :func:`compositor`."""
        return self.accountant.map(self.unit.per_unit)

    def spent(self, units: int = 1) -> Any:
        """The privacy loss of everything released so far, for tables that differ in ``units``
        units: the sum over the released measurements of ``m.map(unit.d_in(units))``."""
        d_in = self.unit.d_in(units)
        total: Any = None
        for m in self.released:
            loss = m.map(d_in)
            if total is None:
                total = loss
            elif isinstance(loss, tuple):
                total = tuple(a + b for a, b in zip(total, loss))
            else:
                total = total + loss
        if total is None:
            zero = self.accountant.map(self.unit.per_unit)
            total = tuple(0.0 for _ in zero) if isinstance(zero, tuple) else 0.0
        return total

    def accounting(self, units: Sequence[int] = (1, 2)):
        """A Polars table: for each number of units, OpenDP's ``d_in`` and the loss spent so far,
        as numbers: an ``epsilon`` column (``rho`` under zCDP), and ``delta`` for an approximate
        measure.

        >>> import polars as pl, opendp.prelude as dp, opendp_graph as dpg
        >>> log = pl.DataFrame({"sender": [1, 1, 2], "recipient": [2, 3, 3]})
        >>> ctx = dpg.polars.compositor(log, dpg.polars.person_unit("sender", "recipient", max_messages=2),
        ...                             dp.loss_of(epsilon=1.0), split_evenly_over=2)
        >>> _ = ctx.query().select(dp.len(signed=False)).release().collect()
        >>> ctx.accounting().select("units", "d_in", "epsilon").rows()
        [(1, 4, 0.5), (2, 8, 1.0)]

        Under zCDP the column is ``rho``, and two people cost four times one (Gaussian noise):

        >>> ctx = dpg.polars.compositor(log, dpg.polars.person_unit("sender", "recipient", max_messages=2),
        ...                             dp.loss_of(rho=0.5), split_evenly_over=2)
        >>> _ = ctx.query().select(dp.len(signed=False)).release().collect()
        >>> [(units, round(rho, 9)) for units, rho in ctx.accounting().select("units", "rho").rows()]
        [(1, 0.25), (2, 1.0)]
        """
        import polars as pl

        measure = str(self.accountant.output_measure)
        name = "rho" if "ZeroConcentrated" in measure else "epsilon"
        rows = []
        for k in units:
            loss = self.spent(k)
            row = {"unit": self.unit.unit, "units": int(k), "d_in": self.unit.d_in(k), "measured_in": self.unit.measured_in}
            if isinstance(loss, tuple):
                row.update({name: float(loss[0]), "delta": float(loss[1])})
            else:
                row[name] = float(loss)
            rows.append(row)
        return pl.DataFrame(rows)

    def _loss_text(self, loss: Any) -> str:
        """``epsilon=1.0``, ``rho=0.5``, ``(epsilon, delta)=(1.0, 1e-06)``: a loss with its measure's names."""
        name = "rho" if "ZeroConcentrated" in str(self.accountant.output_measure) else "epsilon"
        return f"({name}, delta)={loss}" if isinstance(loss, tuple) else f"{name}={loss}"

    def __repr__(self) -> str:
        return (
            f"UnitContext(unit={self.unit.unit!r}: {self.unit.guarantee}; d_in={self.unit.per_unit} "
            f"{self.unit.measured_in}; budget per {self.unit.unit}: {self._loss_text(self.budget())}, "
            f"spent: {self._loss_text(self.spent(1))})"
        )


# long: docstring (its guarantee, parameters and refusals) beside code of under 100 lines
def compositor(
    data: Any,
    unit: PrivacyUnit,
    privacy_loss: tuple[Any, Any],
    *,
    split_evenly_over: int | None = None,
    split_by_weights: Sequence[float] | None = None,
    margins: Sequence[Any] | None = None,
    domain: Any = None,
) -> UnitContext:
    """``dp.Context.compositor`` on a message table, with a graph privacy unit.

    :param data: the message table, a Polars ``DataFrame`` or ``LazyFrame``. A ``LazyFrame`` is
        collected once, here: the table that is checked is the table every release reads (a
        scanned file that changed later could otherwise be outside the checked domain).
    :param unit: from :func:`edge_unit`, :func:`edge_group_unit`, :func:`edge_content_unit`,
        :func:`person_unit` or :func:`pufferfish_unit`. Its preconditions are checked on
        ``data`` here (see below).
    :param privacy_loss: ``dp.loss_of(...)``, the loss *per unit* (one person, one edge, ...):
        ``dp.loss_of(epsilon=ε)``, ``dp.loss_of(rho=ρ)`` (zCDP), ``dp.loss_of(epsilon=ε,
        delta=δ)`` or ``dp.loss_of(rho=ρ, delta=δ)``, the losses OpenDP's Polars Context takes,
        with OpenDP's meaning (see *Noise* below). Anything else (a Rényi or smoothed measure, a
        negative or NaN loss, a δ outside ``[0, 1]`` or with a pure measure) is refused first,
        ``ValueError`` naming the problem.
    :param split_evenly_over: as in ``dp.Context.compositor``.
    :param split_by_weights: as in ``dp.Context.compositor``.
    :param margins: ``dp.polars.Margin`` descriptors (public facts about groups). A margin with
        ``invariant="lengths"`` is refused: it publishes exact group sizes, which no longer hide
        one person or edge. So is ``invariant="keys"`` grouped by the unit's own columns (the
        endpoints, the pair identifier or anything computed from them, and the label column of
        an edge-label table): one person, edge or secret can add or remove such a key, so the key
        set is not public. ``keys`` on another column is **your claim, not checked**: that every
        key occurs in every table one unit away (a department whose only member is one person
        breaks it, and the release then reveals that person's presence); prefer public keys in
        the query, ``.with_keys(...)``. ``max_length`` and ``max_groups`` are checked on the table.
    :param domain: optional ``dp.lazyframe_domain([...])`` (default: inferred from the table's
        schema). It must carry no margins (``ValueError``: pass them as ``margins=``, where they
        are checked; a margin inside the domain used to bypass the checks), and the table must
        be in it (bounds, nullability, dtypes: OpenDP trusts them without looking).
    :return: a :class:`UnitContext`.

    **Privacy guarantee.** Every release through the context satisfies the budget for tables
    that differ in one ``unit`` (OpenDP's guarantee at ``d_in = unit.per_unit``, which covers a
    unit by :func:`~opendp_graph.polars.person_unit` & co.), provided the table is in the
    declared domain, which is verified here, before the context (and so any release) exists:

    * public, before any value is read (``TypeError``/``ValueError``): the unit's fields pass
      its constructor's checks again (:meth:`PrivacyUnit.validate`); the id columns exist and
      hold one integer or text dtype (:meth:`PrivacyUnit.check`); the label column of an
      edge-label table holds one label per row; no ``invariant="lengths"`` margin, no
      ``invariant="keys"`` margin on the unit's own columns; a ``domain=`` without margins;
    * data, on the snapshot the releases read (``ValueError`` with a fixed message naming only
      the violated precondition): no null endpoint; the declared ``max_messages`` per pair or
      per person; the edge-label table shape for :func:`pufferfish_unit`; membership in
      ``domain=``; the margins' ``max_length``/``max_groups``.

    OpenDP does not check that data belongs to the domain when a compositor is invoked, so
    these checks are the only ones; what OpenDP *does* enforce at release is the row bound of
    an identifier unit (a query must ``truncate_per_group`` before it aggregates).

    **Noise** (OpenDP's Polars Context, unchanged: ``opendp.extras.polars``). ``dp.len()``,
    ``.dp.sum(...)``, ``.dp.mean(...)`` and ``.dp.noise()`` add the noise of the context's
    measure: Laplace under ``epsilon`` and ``(epsilon, delta)``, Gaussian under ``rho`` and
    ``(rho, delta)`` (its ℓ2 sensitivity: a person's ``2·D`` rows in one group cost
    ``(2·D)²/(2σ²)``). The δ of an approximate loss pays for what OpenDP releases with a
    threshold (the keys of a group-by without public keys), not for a conversion: unlike a
    ``.gaussian()`` query of :func:`~opendp_graph.context`, a Polars plan under ``(ε, δ)`` is
    **not** released through zCDP, and gets Laplace noise (OpenDP 0.16's ``.dp.gaussian()`` is
    a deprecated alias of ``.dp.noise()``, Laplace there too). For Gaussian noise give ``rho``
    (or ``(rho, delta)`` with thresholds); a ρ-zCDP release is also ``(ρ + 2√(ρ·ln(1/δ)), δ)``-DP
    for every δ (Bun & Steinke 2016, Proposition 1.3; OpenDP's ``make_zCDP_to_approxDP`` is
    tighter). :meth:`UnitContext.spent` and :meth:`UnitContext.accounting` report in the
    context's measure; ``query.summarize(alpha=...)`` or ``dpg.summarize(query)`` give each
    column's noise and accuracy.

    >>> import polars as pl, opendp.prelude as dp, opendp_graph as dpg
    >>> log = pl.DataFrame({"sender": [1, 1, 2], "recipient": [2, 3, 3], "dept": ["a", "a", "b"]})
    >>> ctx = dpg.polars.compositor(log, dpg.polars.person_unit("sender", "recipient", max_messages=2),
    ...                             dp.loss_of(epsilon=1.0), split_evenly_over=2)
    >>> counts = ctx.query().select(dp.len(signed=False)).release().collect()
    >>> ctx.budget(), ctx.spent(1), ctx.spent(3)
    (1.0, 0.5, 1.5)

    Under zCDP (``rho``), the same count gets Gaussian noise; one person moves it by at most
    ``2·2 = 4`` rows, so ``ρ = 0.25`` per query needs ``σ = 4/√0.5``:

    >>> ctx = dpg.polars.compositor(log, dpg.polars.person_unit("sender", "recipient", max_messages=2),
    ...                             dp.loss_of(rho=0.5), split_evenly_over=2)
    >>> query = ctx.query().select(dp.len(signed=False))
    >>> query.summarize(alpha=0.05).select("distribution", "scale").rows()
    [('Integer Gaussian', 5.656854249492381)]
    >>> counts = query.release().collect()
    >>> round(ctx.spent(1), 9), ctx.remaining_privacy_loss()
    (0.25, [0.25])
    """
    import polars as pl

    dp.assert_features("contrib", "honest-but-curious")
    if not isinstance(unit, PrivacyUnit):
        raise TypeError(f"unit must be a PrivacyUnit (e.g. dpg.polars.person_unit(...)), got {type(unit).__name__}")
    unit.validate()  # again: a frozen unit's fields change only by object.__setattr__, but cheaply sure
    check_privacy_loss(privacy_loss)  # public: one of the losses OpenDP's Polars Context composes
    lazy = _as_lazy(data, "data")
    if split_evenly_over is not None:
        positive_integer("split_evenly_over", split_evenly_over)
    margins = list(margins) if margins else []
    for margin in margins:
        _check_margin(margin, unit)
    if domain is not None:
        _check_domain(domain)
    schema = schema_of(lazy)
    _check_schema(unit, schema)  # public: refuse before reading any value
    if domain is None:  # else the domain's columns are what OpenDP reads, checked on the snapshot
        _check_column_dtypes(schema)
    # one snapshot: what is checked is what every release reads (a LazyFrame is re-evaluated
    # by each release; a DataFrame's .lazy() below is a snapshot: later in-place edits of the
    # frame, df[i, c] = v, replace its columns and do not reach it)
    frame = data if isinstance(data, pl.DataFrame) else _collect(lazy)
    unit.check(frame)
    if domain is not None:
        _check_domain_membership(domain, frame)
    _check_margin_claims(margins, frame)
    context = dp.Context.compositor(
        data=frame.lazy(),
        privacy_unit=unit.privacy_unit,
        privacy_loss=privacy_loss,
        split_evenly_over=split_evenly_over,
        split_by_weights=split_by_weights,
        margins=margins or None,
        domain=domain,
    )
    return UnitContext(context, unit, _checked=_CHECKED)
