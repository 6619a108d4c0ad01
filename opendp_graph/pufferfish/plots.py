"""Plots of the models' CDFs (paper 001 Figures 3–5) and of the per-bucket table (Table 1).

Matplotlib is imported lazily (it is an optional dependency: ``pip install opendp-graph[plot]``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .models import ConditionalModel, CorrelationModel
from .models.base import WassersteinReport

__all__ = ["plot_cdfs", "plot_bucket_table"]


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("plotting needs matplotlib: pip install 'opendp-graph[plot]'") from exc
    return plt


def plot_cdfs(model: CorrelationModel, key: str | None = None, ax: Any = None, *, show_gap: bool = True):
    """Step plots of ``Pr(f ≤ w | s⁰)`` and ``Pr(f ≤ w | s¹)`` for one of the model's laws
    (``key`` from ``model.wasserstein().cdfs``; default: the one with the largest ``W∞``), with
    the largest horizontal gap marked. Returns the matplotlib ``Axes``."""
    plt = _pyplot()
    report = model.wasserstein()
    if not report.cdfs:
        raise ValueError(f"{type(model).__name__} has no CDFs to plot (a bound, not a fitted law)")
    if key is None:
        key = _widest(report)
    if key not in report.cdfs:
        raise KeyError(f"unknown CDF {key!r}; choose one of {sorted(report.cdfs)}")
    values, cdf0, cdf1 = report.cdfs[key]
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    ax.step(values, cdf0, where="post", label="given s⁰ (edge lacks a)")
    ax.step(values, cdf1, where="post", label="given s¹ (edge carries a)")
    if show_gap:
        t, x0, x1 = _widest_gap(values, cdf0, cdf1)
        if t is not None:
            ax.annotate("", xy=(x1, t), xytext=(x0, t), arrowprops={"arrowstyle": "<->", "color": "black"})
            ax.text((x0 + x1) / 2, t, f"visible gap {abs(x1 - x0)}", va="bottom", ha="center")
    ax.set_xlabel("w = edges of the closed neighbourhood carrying a")
    ax.set_ylabel("Pr(f ≤ w | secret)")
    ax.set_title(f"{model.name}: {key}\n(exact W of the model = {report.W}; tails count)")
    ax.legend(loc="lower right")
    return ax


def _widest(report: WassersteinReport) -> str:
    best: str | None = None
    best_gap = -1
    for k, (values, c0, c1) in report.cdfs.items():
        _, x0, x1 = _widest_gap(values, c0, c1)
        gap = abs(x1 - x0) if x0 is not None else 0
        if gap > best_gap:
            best, best_gap = k, gap
    assert best is not None  # the caller refused a report without CDFs
    return best


def _widest_gap(values, cdf0, cdf1):
    """The level and the two quantiles where the horizontal gap is largest (for display only:
    floating CDFs; the exact values are in the report)."""
    levels = np.union1d(cdf0, cdf1)
    levels = levels[(levels > 0) & (levels <= 1)]
    if levels.size == 0:
        return None, None, None
    q0 = values[np.minimum(np.searchsorted(cdf0, levels - 1e-12), values.size - 1)]
    q1 = values[np.minimum(np.searchsorted(cdf1, levels - 1e-12), values.size - 1)]
    i = int(np.argmax(np.abs(q1 - q0)))
    return float(levels[i]), int(q0[i]), int(q1[i])


def plot_bucket_table(model: ConditionalModel, ax: Any = None, *, value: str = "W_inf"):
    """Heat map of a per-bucket column (default ``W_inf``) of a :class:`~.models.ConditionalModel`
    by log-frequency × log-size bucket (paper Table 1). Returns the ``Axes``."""
    plt = _pyplot()
    rows = model.wasserstein().table
    if not rows or "log_freq" not in rows[0]:
        raise ValueError("plot_bucket_table needs a ConditionalModel")
    nf = max(r["log_freq"] for r in rows) + 1
    ns = max(r["log_size"] for r in rows) + 1
    grid = np.full((nf, ns), np.nan)
    for r in rows:
        grid[r["log_freq"], r["log_size"]] = np.nan if r[value] is None else r[value]
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 4))
    im = ax.imshow(grid, origin="lower", cmap="viridis", aspect="auto")
    for (i, j), v in np.ndenumerate(grid):
        if not np.isnan(v):
            ax.text(j, i, f"{v:g}", ha="center", va="center", color="white")
    ax.set_xlabel(f"log{model.base:g}(neighbourhood size)")
    ax.set_ylabel(f"log{model.base:g}(property frequency)")
    ax.set_title(f"Conditional model: {value} per bucket")
    ax.figure.colorbar(im, ax=ax)
    return ax
