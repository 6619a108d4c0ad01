"""Two pieces of :mod:`~opendp_graph.measurements.accuracy` that need nothing else from it:
:class:`SelectionAccuracy` (the statement for a selection of keys) and :func:`readable` (a
number as the statements print it). Re-exported there; their own module keeps that one short."""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral

__all__ = ["SelectionAccuracy", "readable"]


def readable(value: float) -> str:
    """A number as a person reads it: integers with thousands separators, other values to four
    significant figures (``320.00032000000004`` → ``320``, ``958.6352861716048`` → ``958.6``,
    ``12345.678`` → ``12,346``). For printed statements only; the fields keep full precision."""
    if isinstance(value, Integral) and not isinstance(value, bool):
        return f"{int(value):,}"
    x = float(value)
    if not math.isfinite(x):
        return str(x)
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.4g}"


@dataclass(frozen=True)
class SelectionAccuracy:
    """The accuracy of a selection (OpenDP's ``make_noisy_top_k`` / ``make_noisy_max``): it
    releases keys, not values, so its accuracy is about *which* keys: with probability at least
    ``1 − alpha``, every released key's true score is within ``half_width`` of the ``k``-th best
    true score (the ``k``-th largest; smallest with ``negate``), simultaneously for all ``k``.

    *Why.* Let every noise lie in ``[lo, hi]``. A key ``j`` scoring more than ``hi − lo`` below the
    ``k``-th best is beaten after noise by each of the ``k`` best keys (each one's noisy score is at
    least the ``k``-th best plus ``lo``; ``j``'s is below it minus ``hi − lo`` plus ``hi``), so it is
    not released. Under ``max_divergence`` OpenDP picks the ``k`` keys in ``k`` rounds of
    permute-and-flip (report-noisy-max with exponential noise of scale ``b``, fresh noise each
    round, over the keys not yet picked): a bad key picked in round ``r`` beats a best key still
    unpicked in that round, so it is enough that every noise of every round is in ``[0, hi]``;
    there are ``N = K + (K − 1) + … + (K − k + 1)`` of them, all below ``b·ln(N/alpha)`` with
    probability ``≥ 1 − alpha`` (a union bound on ``Pr[Z > t] = e^{−t/b}``). Under
    ``zero_concentrated_divergence`` the noise is Gumbel: ``Pr[Z > t] ≤ e^{−t/b}`` and ``Pr[Z < −t] =
    exp(−e^{t/b})``, so with ``L = ln(2K/alpha)`` all ``K`` noises lie in ``[−b·ln L, b·L]`` with
    probability ``≥ 1 − alpha`` and the margin is ``b·(L + ln L)``."""

    noise: str
    scale: float
    alpha: float
    k: int
    candidates: int
    half_width: float
    negate: bool
    not_included: str | None = None
    threshold: None = None

    @property
    def headline(self) -> str:
        best = "smallest" if self.negate else "largest"
        rank = "" if self.k == 1 else {2: "2nd ", 3: "3rd "}.get(self.k, f"{self.k}th ")
        return (
            f"{self.noise} noise of scale {readable(self.scale)} on {self.candidates} scores, the "
            f"{'bottom' if self.negate else 'top'} {self.k} released: "
            f"every released key's true score is within {readable(self.half_width)} of the {rank}{best} true score "
            f"with probability ≥ {readable(100 * (1 - self.alpha))} % (all keys at once)"
        )

    def __str__(self) -> str:
        return self.headline + (f"\nnot included: {self.not_included}" if self.not_included else "")
