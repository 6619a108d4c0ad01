"""Yardsticks for releases whose cap is chosen inside ε (person-level totals, subgraph counts):
exact median errors of a fixed cap, and what one idealised decision could reach. No sampling: every
figure comes from Laplace distribution functions."""

from __future__ import annotations

import numpy as np


def mixture_median_error(parts) -> float:
    """The median of ``|bias − L|`` over releases that carry weight ``w``, bias ``bias`` and noise
    ``L ~ Laplace(scale)`` (``parts``: ``(w, bias, scale)``; the weights need not sum to 1)."""
    from scipy.optimize import brentq

    w, b, scale = (np.array(column, dtype=float) for column in zip(*parts))
    b = np.abs(b)

    def within(x):
        return float(w @ (laplace_cdf(b + x, scale) - laplace_cdf(b - x, scale)))

    return float(brentq(lambda x: within(x) - 0.5 * w.sum(), 0.0, float(np.max(b + 60 * scale))))


def laplace_cdf(x, scale):
    """Laplace's distribution function (location 0), in closed form: scipy's costs ~50 µs a call,
    and the tuning grid makes millions."""
    x = np.asarray(x, dtype=float)
    half = 0.5 * np.exp(-np.abs(x) / scale)
    return np.where(x < 0, half, 1.0 - half)


def laplace_median_error(bias: float, scale: float) -> float:
    """The exact median of ``|bias − L|``, ``L ~ Laplace(scale)``: a fixed cap's median error."""
    return abs(bias) if scale == 0 else mixture_median_error([(1.0, bias, scale)])


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
        ratio = mixture_median_error([(1 - q, bias_best, best_cap / e2), (q, bias_below, cap_below / e2)]) / reference
        if best is None or ratio < best[1]:
            best = (float(q), float(ratio), float(s))
    return best
