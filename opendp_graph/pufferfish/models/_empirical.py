"""What the Global and Conditional models share: histograms of ``f`` given ``s⁰`` / ``s¹``
(:class:`_EmpiricalModel`, with the feasibility checks their guarantee rests on) and the exact
quantile gaps and δ-bounds of one bucket.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..coupling import DeltaBounds, delta_bounds
from ..wasserstein import QuantileGaps, quantile_gap_range
from ._validators import check_base, check_flag, check_text, count_array
from .base import CorrelationModel, flip_bound, frozen_model

__all__ = ["_EmpiricalModel", "_bucket_gaps", "_bucket_delta"]  # shared by the Global and Conditional models


@frozen_model
class _EmpiricalModel(CorrelationModel):
    """Histograms of ``f`` given ``s⁰`` / ``s¹`` per (frequency bucket, size bucket).

    The constructor checks what the guarantee rests on: counts are non-negative whole numbers
    (floats only if integral; never NaN), and every count is feasible for its neighbourhood —
    given ``s⁰`` at most ``N − 1`` of the other edges carry the property, given ``s¹`` between 1
    and ``N`` edges do (``N`` = the bucket's largest neighbourhood).
    """

    _HIST_AXES = 1

    hist0: np.ndarray
    """``hist0[..., f]``: how many secrets ``s⁰`` (the edge lacks the property) have statistic ``f``."""
    hist1: np.ndarray
    """``hist1[..., f]``: how many secrets ``s¹`` (the edge carries the property) have statistic ``f``."""
    max_size: np.ndarray
    """The largest closed neighbourhood (per size bucket for the Conditional model)."""
    base: float
    """The base of the log buckets."""

    def __init__(self, hist0: Any, hist1: Any, max_size: Any, base: float, *, fitted_on: str, data_dependent: bool):
        self._init(
            hist0=count_array(hist0, "hist0", self._HIST_AXES),
            hist1=count_array(hist1, "hist1", self._HIST_AXES),
            max_size=self._check_max_size(max_size),
            base=check_base(base),
            fitted_on=check_text(fitted_on, "fitted_on"),
            data_dependent=check_flag(data_dependent, "data_dependent"),
        )
        sizes = self.max_size if self._HIST_AXES > 1 else self.max_size[:1]
        for name, h, low, high in (("hist0", self.hist0, 0, sizes - 1), ("hist1", self.hist1, 1, sizes)):
            # (…, size bucket, f): three axes (annotated: numpy's stubs type reshape((-1,) + shape[-2:]) as zero axes)
            view: np.ndarray = h.reshape((-1,) + h.shape[-2:]) if h.ndim > 1 else h.reshape(1, 1, -1)
            k = np.arange(view.shape[-1])
            outside = (k[None, :] < low) | (k[None, :] > np.asarray(high).reshape(-1, 1))
            if outside.shape[0] != view.shape[1]:
                raise ValueError(f"max_size has {outside.shape[0]} size bucket(s) but {name} has {view.shape[1]}")
            if view[:, outside].any():
                side = "s⁰ (f ≤ N − 1)" if low == 0 else "s¹ (1 ≤ f ≤ N)"
                raise ValueError(f"{name} counts secrets whose f is infeasible given {side} for its neighbourhood size N (max_size)")

    def _check_max_size(self, max_size: Any) -> np.ndarray:  # pragma: no cover - subclasses override
        raise NotImplementedError

    def _content(self) -> list[Any]:
        return [self.hist0, self.hist1, self.max_size, self.base, self.data_dependent]


def _bucket_gaps(h0: np.ndarray, h1: np.ndarray, max_n: int) -> tuple[QuantileGaps, bool]:
    """Quantile gaps of one bucket; a bucket whose s⁰ or s¹ side was never observed gets the
    trivial range ``[2 − N, N]`` (any laws on ``[0, N−1]`` and ``[1, N]``), flagged ``False``."""
    if h0.sum() == 0 or h1.sum() == 0:
        return QuantileGaps(2 - max_n, max_n), False
    k0, k1 = np.flatnonzero(h0).max(), np.flatnonzero(h1).max()
    return quantile_gap_range(h0[: k0 + 1], h1[: k1 + 1]), True


def _bucket_delta(h0: np.ndarray, h1: np.ndarray, max_n: int, delta: float) -> tuple[DeltaBounds, bool]:
    """:func:`.coupling.delta_bounds` of one bucket (exact: integer histograms). An unobserved
    bucket keeps its trivial δ = 0 values at every δ < 1: its attacker may hold *any* laws on
    ``[0, N−1]`` and ``[1, N]``, among them the point masses at ``0`` and ``N`` (``d ≡ N``) and
    at ``N − 1`` and ``1`` (``d ≡ 2 − N``), which no coupling brings into a smaller window
    except with probability 1."""
    gaps, observed = _bucket_gaps(h0, h1, max_n)
    if not observed:
        return DeltaBounds(gaps.w_infinity, gaps.d_min, gaps.d_max, flip_bound(*gaps), delta, gaps), False
    k0, k1 = np.flatnonzero(h0).max(), np.flatnonzero(h1).max()
    return delta_bounds(h0[: k0 + 1], h1[: k1 + 1], delta), True
