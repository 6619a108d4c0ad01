"""Yardsticks for releases whose cap is chosen inside ε (person-level totals, subgraph counts):
exact median errors of a fixed cap, and what one idealised decision could reach. No sampling: every
figure comes from Laplace distribution functions."""

from __future__ import annotations

import numpy as np


def _laplace_cdf(z: np.ndarray, scale: np.ndarray) -> np.ndarray:
    u = np.asarray(z) / scale
    return np.where(u < 0, 0.5 * np.exp(np.minimum(u, 0)), 1 - 0.5 * np.exp(-np.maximum(u, 0)))


def mixture_median_error(parts, scale_of) -> float:
    """The median of ``|bias − L|`` over releases that use cap ``c`` with weight ``w`` (``parts``:
    ``(w, c, bias)``), ``L ~ Laplace(scale_of(c))``."""
    from scipy.optimize import brentq

    w = np.array([p[0] for p in parts], dtype=float)
    b = np.abs(np.array([p[2] for p in parts], dtype=float))
    scale = np.array([scale_of(p[1]) for p in parts], dtype=float)

    def within(x):
        return float(w @ (_laplace_cdf(x + b, scale) - _laplace_cdf(b - x, scale)))

    high = float(np.max(b + 60 * scale))
    return float(brentq(lambda x: within(x) - 0.5 * w.sum(), 0.0, high))


def laplace_median_error(bias: float, scale: float) -> float:
    """The exact median of ``|bias − L|``, ``L ~ Laplace(scale)``: a fixed cap's median error."""
    if scale == 0:
        return abs(bias)
    return mixture_median_error([(1.0, 0.0, abs(bias))], lambda _: scale)


SPLITS = tuple(np.arange(0.02, 0.9, 0.01))


def idealised_decision(statistic, threshold, bias_below, bias_best, cap_below, best_cap, epsilon, splits=SPLITS):
    """The best median error (as a ratio to the best cap's at the whole ``ε``) of a selection that
    makes one decision: it reads ``statistic`` (sensitivity 1; what the best cap keeps over the rung
    below, in units of one person) once with Laplace noise ``1/ε₁`` and takes the rung below when
    the reading is under ``threshold/ε₂`` (where the rung below would be as good). The rung below is
    then taken with probability ``q = ½·exp(−(statistic − threshold/ε₂)·ε₁)``, and the release at
    ``ε₂`` is a mixture of the two caps. Minimised over the split ``s = ε₁/ε``: returns
    ``(q, ratio, s)``. What making this one decision from the data costs; not a bound on a
    selection that avoids it (one that always takes a cap above the best, say)."""
    reference = laplace_median_error(bias_best, best_cap / epsilon)
    best = None
    for s in splits:
        e1, e2 = s * epsilon, (1 - s) * epsilon
        q = 0.5 * np.exp(-max(statistic - threshold / e2, 0.0) * e1)
        parts = [(1 - q, best_cap, bias_best), (q, cap_below, bias_below)]
        ratio = mixture_median_error(parts, lambda c, e2=e2: c / e2) / reference
        if best is None or ratio < best[1]:
            best = (float(q), float(ratio), float(s))
    return best
