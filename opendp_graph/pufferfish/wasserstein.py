"""The ∞-Wasserstein distance between distributions on the integers ``0..K``, computed exactly.

For distributions ``μ, ν`` on the real line, ``W∞(μ, ν) = inf_γ max_{(x, y) ∈ supp γ} |x − y|``
over couplings ``γ`` (paper 001, Definition 2.4). On the line the quantile (monotone) coupling is
optimal, so ``W∞ = sup_{t ∈ (0, 1)} |Q_μ(t) − Q_ν(t)|`` with ``Q(t) = min{x : F(x) ≥ t}``: the
largest *horizontal* gap between the two CDFs (paper 001 §4.4, Figure 3).

We need more than the absolute gap: the Pufferfish stability maps (see :mod:`~opendp_graph.pufferfish.metric`) use the
signed extremes of the quantile difference ``d(t) = Q_ν(t) − Q_μ(t)``,

* ``d_max = sup_t d(t) = max over atoms x of μ of  (Q_ν(F_μ(x)) − x)``,
* ``d_min = inf_t d(t) = −max over atoms y of ν of (Q_μ(F_ν(y)) − y)``,

and ``W∞ = max(d_max, −d_min)``. Proof of the atom formula: ``Q_μ`` equals ``x`` exactly on the
level interval ``(F_μ(x−1), F_μ(x)]`` (non-empty iff ``μ(x) > 0``), and ``Q_ν`` is non-decreasing,
so on that interval ``d`` is largest at the right end ``t = F_μ(x)``, where it is
``Q_ν(F_μ(x)) − x``. The same argument with the roles swapped gives ``d_min``.

Exactness: every comparison ``F_ν(y) ≥ F_μ(x)`` is done in exact rational arithmetic — integer
histograms are compared by cross-multiplying Python integers, and floating-point probability
vectors are read as the exact binary fractions they are (``fractions.Fraction``). There is no
tolerance, so ties (e.g. two CDFs both reaching 1/2 at different points) are resolved exactly.

The (ε, δ) relaxation — couplings allowed to leave the window with probability ``δ`` — is in
:mod:`.coupling`; at ``δ = 0`` it gives back exactly the quantities computed here.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import accumulate
from typing import Any

import numpy as np

__all__ = ["w_infinity", "quantile_gap_range", "QuantileGaps"]


class QuantileGaps(tuple):
    """``(d_min, d_max)``: the extremes of ``Q_ν(t) − Q_μ(t)`` over ``t ∈ (0, 1)``.

    A tuple of two integers (it unpacks and compares as one). ``μ`` is the law given ``s⁰``,
    ``ν`` the law given ``s¹`` in the correlation models, so ``d = Q_ν − Q_μ`` is the difference
    ``f¹ − f⁰`` of the quantile coupling. Where a model aggregates several pairs of laws
    (:attr:`.models.CorrelationModel.gaps`), the pair is the hull: the least ``d_min`` and the
    largest ``d_max``. From :func:`binomial_gap_range` it encloses the exact range (outward slack).
    """

    __slots__ = ()

    def __new__(cls, d_min: int, d_max: int):
        return super().__new__(cls, (int(d_min), int(d_max)))

    @property
    def d_min(self) -> int:
        """``inf_t (Q_ν(t) − Q_μ(t))`` (the first item): every quantile of ``ν`` is at least
        ``d_min`` above ``μ``'s (when negative: at most ``−d_min`` below)."""
        return self[0]

    @property
    def d_max(self) -> int:
        """``sup_t (Q_ν(t) − Q_μ(t))`` (the second item): every quantile of ``ν`` is at most
        ``d_max`` above ``μ``'s."""
        return self[1]

    @property
    def w_infinity(self) -> int:
        """``W∞(μ, ν) = max(d_max, −d_min)``: the quantile coupling is optimal on the line
        (module docstring)."""
        return max(self[1], -self[0])


def _exact_masses(p: Any, name: str) -> list:
    """Validate a probability (or count) vector on 0..K and return exact masses (ints or Fractions)."""
    arr = np.asarray(p)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a one-dimensional vector of masses on 0..K, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if arr.dtype == object and arr.size and all(isinstance(v, (int, Fraction)) and not isinstance(v, bool) for v in arr.tolist()):
        # exact weights (Python integers too large for int64, or Fractions): normalised exactly
        masses = list(arr.tolist())
        if any(m < 0 for m in masses):
            raise ValueError(f"{name} holds negative masses")
        if sum(masses) == 0:
            raise ValueError(f"{name} has no mass")
        return masses
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"{name} must hold numbers, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.floating):
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} holds NaN or infinite masses")
        masses = [Fraction(float(v)) for v in arr.tolist()]
    else:
        masses = [int(v) for v in arr.tolist()]
    if any(m < 0 for m in masses):
        raise ValueError(f"{name} holds negative masses")
    total = sum(masses)
    if total == 0:
        raise ValueError(f"{name} has no mass")
    if np.issubdtype(arr.dtype, np.floating) and abs(float(total) - 1.0) > 1e-9:
        raise ValueError(f"{name} must sum to 1 (got {float(total)!r}); pass integer counts to have them normalised")
    return masses


def _first_reaching(cum_a: list, tot_a, cum_b_values: list, tot_b) -> np.ndarray:
    """For each level ``cum_b/tot_b`` the least index ``i`` with ``cum_a[i]/tot_a ≥`` that level."""
    # cross-multiplied exact comparison: cum_a[i] * tot_b >= cum_b * tot_a; in int64 when no
    # product can overflow, else with Python integers (object arrays)
    if all(isinstance(t, int) for t in (tot_a, tot_b)) and tot_a * tot_b < 2**62:
        left = np.asarray(cum_a, dtype=np.int64) * np.int64(tot_b)
        right = np.asarray(cum_b_values, dtype=np.int64) * np.int64(tot_a)
        return np.searchsorted(left, right, side="left")
    left = np.empty(len(cum_a), dtype=object)
    left[:] = [c * tot_b for c in cum_a]
    right = np.empty(len(cum_b_values), dtype=object)
    right[:] = [c * tot_a for c in cum_b_values]
    return np.searchsorted(left, right, side="left")


def _small_counts(p: Any) -> np.ndarray | None:
    """``p`` as non-negative int64 counts whose partial sums fit in int64; ``None`` for anything
    else (the exact general path then validates it)."""
    if not isinstance(p, np.ndarray) or p.ndim != 1 or p.size == 0:
        return None
    if p.dtype == bool or not np.issubdtype(p.dtype, np.integer):
        return None
    lo, hi = int(p.min()), int(p.max())
    if lo < 0 or hi == 0 or hi * p.size >= 2**62:  # the partial sums cannot overflow int64
        return None
    return p.astype(np.int64, copy=False)


def _int64_gap_range(mu: Any, nu: Any) -> QuantileGaps | None:
    """:func:`quantile_gap_range` of two count vectors, in int64 (the same exact comparisons,
    ``cum_a · tot_b`` against ``cum_b · tot_a``, without Python integers), or ``None``."""
    a, b = _small_counts(mu), _small_counts(nu)
    if a is None or b is None:
        return None
    cum_a, cum_b = np.cumsum(a), np.cumsum(b)
    tot_a, tot_b = int(cum_a[-1]), int(cum_b[-1])
    if tot_a * tot_b >= 2**62:  # cum · tot could overflow int64: the Python-integer path
        return None
    atoms_a, atoms_b = np.flatnonzero(a), np.flatnonzero(b)
    left_b, left_a = cum_b * tot_a, cum_a * tot_b
    q_nu = np.searchsorted(left_b, cum_a[atoms_a] * tot_b, side="left")  # Q_ν at each atom's level of μ
    q_mu = np.searchsorted(left_a, cum_b[atoms_b] * tot_a, side="left")
    return QuantileGaps(-int(np.max(q_mu - atoms_b)), int(np.max(q_nu - atoms_a)))


def quantile_gap_range(mu: Any, nu: Any) -> QuantileGaps:
    """Exact ``(d_min, d_max)`` of ``Q_ν(t) − Q_μ(t)`` for two mass vectors on ``0..K``.

    ``mu``, ``nu``: probability vectors (floats summing to 1) or non-negative integer counts
    (normalised exactly; Python integers of any size and ``Fraction`` weights are taken exactly
    too). They may have different lengths (index = value).

    >>> quantile_gap_range([0.5, 0.5], [0.0, 0.5, 0.5])
    (1, 1)
    >>> quantile_gap_range([1, 0, 0, 1], [0, 1, 1, 0])
    (-1, 1)
    """
    fast = _int64_gap_range(mu, nu)
    if fast is not None:
        return fast
    a = _exact_masses(mu, "mu")
    b = _exact_masses(nu, "nu")
    cum_a, cum_b = list(accumulate(a)), list(accumulate(b))
    tot_a, tot_b = cum_a[-1], cum_b[-1]
    atoms_a = np.flatnonzero(np.asarray([m > 0 for m in a]))
    atoms_b = np.flatnonzero(np.asarray([m > 0 for m in b]))
    # d_max: atoms x of mu, Q_nu(F_mu(x)) - x
    q_nu = _first_reaching(cum_b, tot_b, [cum_a[x] for x in atoms_a.tolist()], tot_a)
    d_max = int(np.max(q_nu - atoms_a))
    q_mu = _first_reaching(cum_a, tot_a, [cum_b[y] for y in atoms_b.tolist()], tot_b)
    d_min = -int(np.max(q_mu - atoms_b))
    return QuantileGaps(d_min, d_max)


def w_infinity(p: Any, q: Any) -> int:
    """Exact ∞-Wasserstein distance between two distributions on the integers ``0..K``.

    ``p[k]`` (resp. ``q[k]``) is the mass at ``k``; floats must sum to 1, integer counts are
    normalised. The result is an integer (both supports are integers, and the optimal quantile
    coupling moves mass between atoms). Symmetric, zero iff ``p`` and ``q`` are the same
    distribution, and at least the 1-Wasserstein distance.

    >>> w_infinity([0.5, 0.5], [0.5, 0.5])
    0
    >>> w_infinity([1.0], [0.0, 0.0, 0.0, 1.0])
    3
    >>> w_infinity([0.9, 0.0, 0.0, 0.1], [1.0])   # a tiny mass far away still counts
    3
    """
    return quantile_gap_range(p, q).w_infinity


def binomial_gap_range(n: int, p0: float, p1: float, slack: float = 1e-9) -> QuantileGaps:
    """Conservative ``(d_min, d_max)`` between ``Binomial(n, p0)`` (law given ``s⁰``) and
    ``1 + Binomial(n, p1)`` (given ``s¹``, central edge counted), tails included.

    ``W∞`` is decided by the extreme tails (a mass of 1e-300 far away still counts), where CDFs
    in floating point all round to 1. So levels are compared on the log scale where they are
    accurate: ``log F`` for levels up to 1/2, ``log(1 − F)`` above, both accumulated with
    log-add-exp from the log-space pmf (no underflow for any ``n``). Each
    comparison gets ``slack`` (relative, in log space) in the direction that can only widen the
    range, so the result contains the exact one (equal to it except at near-ties).
    """
    from scipy import stats

    n = int(n)
    if n < 0:
        raise ValueError("n must be non-negative")
    if p0 == p1:  # the s¹ law is the s⁰ law shifted by one: every quantile gap is exactly 1
        return QuantileGaps(1, 1)
    v = np.arange(n + 2)

    def logs(p, shift):
        x = v - shift
        if p <= 0.0 or p >= 1.0:  # point mass at 0 or n (shifted)
            point = (0 if p <= 0.0 else n) + shift
            lc = np.where(v >= point, 0.0, -np.inf)
            ls = np.where(v >= point, -np.inf, 0.0)
            return lc, ls, np.array([point])
        # log pmf is computed in log space (no underflow); cumulative sums by log-add-exp
        logpmf = stats.binom.logpmf(np.arange(n + 1), n, p)
        lcdf = np.logaddexp.accumulate(logpmf)
        lsf = np.append(np.logaddexp.accumulate(logpmf[::-1])[::-1][1:], -np.inf)  # log Pr(X > k)
        lc = np.full(v.size, -np.inf)
        ls = np.zeros(v.size)
        inside = (x >= 0) & (x <= n)
        lc[inside] = lcdf[x[inside]]
        ls[inside] = lsf[x[inside]]
        lc[x > n] = 0.0
        ls[x > n] = -np.inf
        return lc, ls, np.arange(shift, n + 1 + shift)

    lc0, ls0, atoms0 = logs(p0, 0)
    lc1, ls1, atoms1 = logs(p1, 1)
    half = math.log(0.5)

    def first_reaching(lc_a, ls_a, atoms_b_last, lc_b, ls_b, xs):
        out = np.empty(xs.size, dtype=np.int64)
        low = lc_a[xs] <= half
        with np.errstate(invalid="ignore"):
            target = lc_a[xs] + slack * np.maximum(1.0, np.abs(lc_a[xs]))
            out[low] = np.searchsorted(lc_b, target[low], side="left")
            # upper half: first y with log(1 - F_b(y)) <= log(1 - F_a(x)) - slack
            t_up = -ls_a[xs] + slack * np.maximum(1.0, np.abs(ls_a[xs]))
            t_up = np.where(np.isinf(ls_a[xs]), np.inf, t_up)
            neg = -ls_b
            pos_up = np.searchsorted(neg, t_up[~low], side="left")
        out[~low] = pos_up
        return np.minimum(out, atoms_b_last)

    q1 = first_reaching(lc0, ls0, atoms1[-1], lc1, ls1, atoms0)
    q0 = first_reaching(lc1, ls1, atoms0[-1], lc0, ls0, atoms1)
    return QuantileGaps(-int(np.max(q0 - atoms1)), int(np.max(q1 - atoms0)))
