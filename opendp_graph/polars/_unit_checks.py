"""Whether an OpenDP privacy unit written by hand (``dp.unit_of(...)``, a measurement's input
metric) protects one of the package's units: :func:`check_privacy_unit`, and the metric half it
shares with :func:`~opendp_graph.polars.loss_for`. Unit logic, beside the units
(:mod:`opendp_graph.polars._units`), kept in a module of its own so that each stays readable."""

from __future__ import annotations

from numbers import Integral
from typing import Any

import opendp.prelude as dp
from opendp.mod import ChangeOneIdDistance, FrameDistance, SymmetricIdDistance

from ._convert import _collect
from ._table_checks import pair_identifier
from ._units import MessageUnit, PersonUnit, PrivacyUnit, PufferfishUnit

__all__ = ["check_privacy_unit"]


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
    if isinstance(unit, PersonUnit):
        owners = pl.concat(
            [base.select("_row", *names, pl.col("_s").alias("_who")), base.select("_row", *names, pl.col("_r").alias("_who"))]
        ).unique()
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
        if kind in ("SymmetricIdDistance", "ChangeOneIdDistance") and isinstance(unit, PersonUnit):
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
        if isinstance(unit, MessageUnit):
            raise ValueError(f"identifier {inner.identifier} is not the message: use pl.col({unit.message_id!r}), the unit's message_id column")
        raise ValueError(
            f"identifier {inner.identifier} is not the pair of endpoints: an edge's messages carry two people, "
            f"in either column; use dpg.polars.pair_identifier({unit.src!r}, {unit.dst!r})"
        )
    return framed


# long: docstring (its guarantee, parameters and refusals) beside code of under 100 lines
def check_privacy_unit(privacy_unit: tuple[Any, Any], unit: PrivacyUnit, frame: Any = None) -> None:
    """Check that an OpenDP privacy unit (e.g. from ``dp.unit_of``) really protects ``unit``.

    For an analyst who writes ``dp.unit_of(...)`` by hand and claims "this protects each
    person" (or edge, ...): raises ``ValueError`` saying why when OpenDP's semantics of
    ``privacy_unit`` do not cover one ``unit``. Checked, in OpenDP's own terms:

    * the metric: a row-level unit needs ``SymmetricDistance`` (``ChangeOneDistance`` would
      assume every person keeps the same number of rows; an identifier column such as
      ``"sender"`` names one of the two people of a row, so it does not protect a person);
      an identifier unit needs the same pair identifier;
    * ``d_in``: at least :attr:`~opendp_graph.polars.PrivacyUnit.per_unit` (``2·D`` rows for a
      rewired person); a list of ``dp.polars.Bound`` needs the total bound (``by=[]``) at least
      that large, and each per-group bound (``by=[...]``, ``per_group`` rows in one group,
      ``num_groups`` groups) to hold for every person/pair of ``frame`` (times 2 for a replaced
      unit), which is why ``frame`` is then required;
    * ``frame``: the unit's preconditions (id dtypes, no null endpoint) and the declared
      ``max_messages``, via :meth:`~opendp_graph.polars.PrivacyUnit.check`, before any
      per-group count is read. **Required** for a unit with a declared bound (``max_messages``
      set: :func:`~opendp_graph.polars.person_unit`, the edge units with ``max_messages=M``,
      :func:`~opendp_graph.polars.pufferfish_unit`): its ``d_in`` covers one
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
        if not total or any(b.per_group is None for b in total):
            raise ValueError(f"the bounds {d_in} give no total bound (Bound(per_group=...) with by=[]) for one {what}")
        # every total bound must cover the unit: OpenDP may read any of them (red team: a second
        # Bound(per_group=0) after a right one got a release with no noise at all)
        _check_total(min(int(b.per_group) for b in total), unit)
        if grouped:
            if isinstance(unit, PufferfishUnit):
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
            if isinstance(unit, PufferfishUnit):
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
    if isinstance(unit, PersonUnit) and unit.neighbouring == "replace":
        why = f"a rewired person changes up to 2·{unit.max_messages} = {unit.per_unit} rows"
    elif unit.measured_in == "rows":
        why = f"one {unit.unit} changes up to {unit.per_unit} rows"
    else:
        why = f"one {unit.unit} is {unit.per_unit} identifier(s)"
    raise ValueError(f"d_in={d_in} {unit.measured_in} does not cover one {unit.unit}: {why}")
