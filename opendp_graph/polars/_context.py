"""An OpenDP ``Context`` whose privacy unit is a graph unit, with accounting in that unit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import opendp.prelude as dp

from .._checks import positive_integer
from ._convert import _as_lazy
from ._units import PrivacyUnit

__all__ = ["UnitContext", "compositor", "loss_for"]


def loss_for(measurement: Any, unit: PrivacyUnit, units: int = 1) -> Any:
    """The privacy loss of ``measurement`` (an OpenDP measurement on the table, or a Polars
    query of a context, which is resolved first) for tables that differ in ``units`` units.

    This is ``measurement.map(unit.d_in(units))``: OpenDP's own privacy map, evaluated at the
    ``d_in`` that covers ``units`` people/edges.
    """
    if not isinstance(unit, PrivacyUnit):
        raise TypeError(f"unit must be a PrivacyUnit, got {type(unit).__name__}")
    if hasattr(measurement, "resolve") and not isinstance(measurement, dp.Measurement):
        measurement = measurement.resolve()
    if not isinstance(measurement, dp.Measurement):
        raise TypeError(f"expected an OpenDP measurement or a context query, got {type(measurement).__name__}")
    return measurement.map(unit.d_in(units))


class UnitContext(dp.Context):
    """A ``dp.Context`` (use it exactly like one: ``ctx.query()...release()``) that also knows
    its :class:`~opendp_graph.polars.PrivacyUnit`, so the losses read in people or edges.

    Build one with :func:`compositor`. ``d_in`` is the unit's ``per_unit``, so the budget and
    ``current_privacy_loss()`` are already *per unit*. :meth:`spent` re-evaluates the released
    queries' own OpenDP privacy maps at the ``d_in`` of several units (group privacy in OpenDP's
    terms: tables that differ in ``k`` people differ in at most ``k·per_unit`` rows) and adds
    them up (sequential composition: ε, ρ and (ε, δ) add).
    """

    def __init__(self, context: dp.Context, unit: PrivacyUnit):
        super().__init__(
            accountant=context.accountant,
            queryable=context.queryable,
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
        """The whole budget, per unit (OpenDP's map of the compositor at ``unit.per_unit``)."""
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
        """A Polars table: for each number of units, OpenDP's ``d_in`` and the loss spent so far."""
        import polars as pl

        rows = [
            {"unit": self.unit.unit, "units": int(k), "d_in": self.unit.d_in(k), "measured_in": self.unit.measured_in, "spent": str(self.spent(k))}
            for k in units
        ]
        return pl.DataFrame(rows)

    def __repr__(self) -> str:
        return (
            f"UnitContext(unit={self.unit.unit!r}: {self.unit.guarantee}; d_in={self.unit.per_unit} "
            f"{self.unit.measured_in}; budget per {self.unit.unit}={self.budget()}, spent={self.spent(1)})"
        )


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

    :param data: the message table, a Polars ``DataFrame`` or ``LazyFrame``.
    :param unit: from :func:`edge_unit`, :func:`edge_group_unit`, :func:`edge_content_unit` or
        :func:`person_unit`. Its declared bound (if any) is checked on ``data`` here.
    :param privacy_loss: ``dp.loss_of(...)``, the loss *per unit* (one person, one edge, ...).
    :param split_evenly_over: as in ``dp.Context.compositor``.
    :param split_by_weights: as in ``dp.Context.compositor``.
    :param margins: ``dp.polars.Margin`` descriptors (public facts about groups). A margin with
        ``invariant="lengths"`` is refused: it publishes exact group sizes, which no longer hide
        one person or edge.
    :param domain: optional OpenDP domain (default: inferred from the table's schema).
    :return: a :class:`UnitContext`.

    **Privacy guarantee.** Every release through the context satisfies the budget for tables
    that differ in one ``unit`` (OpenDP's guarantee at ``d_in = unit.per_unit``, which covers a
    unit by :func:`~opendp_graph.polars.person_unit` & co.), provided the table is in the
    declared domain, which is verified here.

    >>> import polars as pl, opendp.prelude as dp, opendp_graph as dpg
    >>> log = pl.DataFrame({"sender": [1, 1, 2], "recipient": [2, 3, 3], "dept": ["a", "a", "b"]})
    >>> ctx = dpg.polars.compositor(log, dpg.polars.person_unit("sender", "recipient", max_messages=2),
    ...                             dp.loss_of(epsilon=1.0), split_evenly_over=2)
    >>> counts = ctx.query().select(dp.len(signed=False)).release().collect()
    >>> ctx.budget(), ctx.spent(1), ctx.spent(3)
    (1.0, 0.5, 1.5)
    """
    dp.assert_features("contrib", "honest-but-curious")
    if not isinstance(unit, PrivacyUnit):
        raise TypeError(f"unit must be a PrivacyUnit (e.g. dpg.polars.person_unit(...)), got {type(unit).__name__}")
    lazy = _as_lazy(data, "data")
    if split_evenly_over is not None:
        positive_integer("split_evenly_over", split_evenly_over)
    for margin in margins or ():
        if not isinstance(margin, dp.polars.Margin):
            raise TypeError(f"margins must be dp.polars.Margin objects, got {type(margin).__name__}")
        if margin.invariant == "lengths":
            raise ValueError(
                f"a margin with invariant='lengths' (by={list(margin.by)}) releases exact group sizes, which "
                f"reveal one {unit.unit}; drop the invariant (or use invariant='keys' for public group keys)"
            )
    unit.check(lazy)
    context = dp.Context.compositor(
        data=lazy,
        privacy_unit=unit.privacy_unit,
        privacy_loss=privacy_loss,
        split_evenly_over=split_evenly_over,
        split_by_weights=split_by_weights,
        margins=list(margins) if margins else None,
        domain=domain,
    )
    return UnitContext(context, unit)
