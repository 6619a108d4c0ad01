"""Exact Rényi divergences of discrete Gaussian releases under a correlation model, on small
labelled structures.

**What is computed.** A release ``q(G) + Z`` adds to an integer-valued query ``q`` independent
discrete Gaussian noise, ``Pr[Z_k = z] ∝ exp(−z²/(2σ_k²))`` on each coordinate ``k`` (OpenDP's
``make_gaussian`` on integer counts; ``σ`` is its ``scale``). For a secret pair ``(s⁰, s¹)`` and
an attacker ``θ`` the output laws are the mixtures

    P_j(ω) = Σ_G θ(G | sʲ) · Π_k N_ℤ(ω_k − q_k(G); σ_k),    j = 0, 1,

and ``D_α(P ‖ Q) = log(Σ_ω P(ω)^α Q(ω)^{1−α}) / (α − 1)`` for an order ``α > 1``.
:func:`discrete_gaussian_renyi` bounds it for two given mixtures; :func:`exact_renyi_divergence`
does so for every secret pair of a structure and every attacker of a model's class, in both
directions.

**The attackers enumerated** (:doc:`/guarantees`, *The class of attackers Θ_M*). For the
secret ``(i, a)`` of a labelled structure ``G`` (:func:`secret_laws`):

* ``f = f(i, a)``, the number of edges of the closed neighbourhood ``N[i]`` carrying ``a``, has
  the law the model gives under each secret, clamped to the feasible range ``[j, |N[i]| − 1 +
  j]`` (the mass outside moved to the nearest end);
* given ``f``, the other edges of ``N[i]`` carrying ``a`` are a uniform subset of the right size
  (exchangeability);
* every other label (``a`` outside ``N[i]``, every other property) is the one ``G`` has
  (locality). An attacker of the class may instead hold any law of these labels that is the
  same under both secrets and independent of ``a`` on ``N[i]``; its output laws are mixtures,
  over that law, of the fixed-background ones with common weights, and Rényi divergence is
  jointly quasi-convex (van Erven & Harremoës 2014, Theorem 13), so such an attacker diverges
  no more than its worst fixed background. Fixing the background is the strongest attacker
  for it; vary ``G``'s other labels to try several.

The laws of ``f`` per model: Binomial ``Binomial(nb, p0)`` and ``1 + Binomial(nb, p1)`` (``nb =
|N[i]| − 1``; for a DP fit, each corner of the ``(p0, p1)`` box, one attacker each); Global the
pooled histograms; Conditional the histograms of the edge's size bucket, for *every* frequency
bucket holding secrets (the model does not record which bucket a property is in, so every
candidate is tried); Edge-level ``f⁰ = 0``, ``f¹ = 1`` (its attackers believe the neighbours
independent of the secret, and a common law of theirs only mixes); Markov quilt, and a bucket
with an unobserved side (``unobserved="bound"``), any laws on the feasible ranges, of which the
point masses ``(0, |N[i]|)`` and ``(|N[i]| − 1, 1)`` are the extreme ones; an ignored bucket
(``unobserved="ignore"``) constrains nothing and is skipped.

**The sum, bounded above.** ``Σ_ω`` over ``ℤ^d`` is computed exactly on a box and the rest is
bounded. Take the part where ``ω_k > U`` (``U`` the box's upper edge in coordinate ``k``; the
lower edges are the mirror image, and the ``2d`` parts cover the outside). Let ``F`` be the
largest value of coordinate ``k`` among the points of ``P₀`` and ``F'`` among those of ``P₁``.
A point's kernel ratio ``g(ω_k − f)/g(ω_k − F) = e^{−(F − f)(2ω_k − f − F)/(2σ²)}`` decreases in
``ω_k``, so there ``P₀(ω) ≤ g(ω_k − F)·Ã(ω_{−k})``, ``Ã`` the mixture of the other coordinates
with each weight multiplied by its ratio at ``ω_k = U``; and ``P₁(ω) ≥ g(ω_k − F')·B(ω_{−k})``,
``B`` the part of ``P₁`` at ``F'``. As ``1 − α < 0``, ``P₀^α P₁^{1−α} ≤ g(ω_k − F)^α g(ω_k −
F')^{1−α} · Ã^α B^{1−α}``. With ``c = αF + (1 − α)F'``, ``α(ω − F)² + (1 − α)(ω − F')² = (ω −
c)² − α(α − 1)(F − F')²``, so the first factor summed over ``ω_k > U`` is ``e^{α(α−1)(F−F')²/(2σ²)}
· Σ_{ω>U} e^{−(ω−c)²/(2σ²)} / Z_σ``, ``Z_σ = Σ_{z∈ℤ} e^{−z²/(2σ²)} ≥ σ√(2π)`` (Poisson
summation); for ``U ≥ c`` the sum is at most the integral from ``U``, ``σ√(2π)·Φ̄((U − c)/σ)``,
and in any case at most ``Z_σ`` (Poisson summation again: ``Σ_ℤ e^{−(ω−c)²/(2σ²)}`` is largest at
integer ``c``). The second factor summed over ``ℤ^{d−1}`` is the same kind of sum one dimension
down (the masses of ``Ã`` and ``B`` to the powers ``α`` and ``1 − α`` times the sum for the
normalised mixtures), bounded the same way; in one dimension it is those masses alone. The box
holds every support point and the tilted centres ``αf + (1 − α)f'`` of the extreme points (the
smallest and the largest values of each side) with a margin of ``12σ``, doubled until the
tails are below ``10⁻¹²`` of the box's sum (or the grid limit is reached: the bound stays valid,
only looser). Inside the box every term is evaluated in the platform's extended precision
(``numpy.longdouble``), and the sum is raised by a relative allowance for rounding: ``8·eps``
times the largest magnitude of an exponent plus the number of terms. ``Z_σ`` is summed over
``|z| ≤ 38σ + 1`` (too small by under ``e^{−700}``: a conservative error). The result is an upper
bound on ``D_α``, above it by about ``10⁻¹²`` (relative) at most once the tails meet their
target. ``D_α`` is exactly ``α·Δ²/(2σ²)`` for two point masses ``Δ`` apart at an integer ``α``
(``(1 − α)Δ`` is then an integer shift), so a comparison with ``α·ρ`` needs a relative
tolerance of that order.

Coordinates on which every support point of both mixtures has the same value are dropped first:
their factors are the same kernel on both sides and sum to exactly 1.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from numbers import Real
from typing import Any

import numpy as np
import opendp.prelude as dp
from scipy import stats

from ..core.graph import Graph
from ..pufferfish._stats import log_bucket
from ..pufferfish.models import (
    BinomialModel,
    ConditionalModel,
    CorrelationModel,
    EdgeLevelModel,
    GlobalModel,
    MarkovQuiltModel,
)

__all__ = [
    "discrete_gaussian_renyi",
    "secret_laws",
    "SecretLaws",
    "exact_renyi_divergence",
    "ExactRenyi",
    "DEFAULT_ORDERS",
]

DEFAULT_ORDERS: tuple[float, ...] = (1.5, 2.0, 4.0, 16.0, 64.0)
"""The orders ``α`` :func:`exact_renyi_divergence` checks by default."""

_FLOAT = np.longdouble
_EPS = float(np.finfo(_FLOAT).eps)
_TAIL_TARGET = math.log(1e-12)
_FIRST_WIDTH = 12.0  # the box's first margin, in σ
_MAX_NEIGHBOURHOOD = 16  # closed neighbourhoods enumerated by secret_laws: 2^16 labellings at most


# ----------------------------------------------------------------------------- arguments
def _integer_points(values: Any, what: str) -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[0] == 0:
        raise ValueError(f"{what} must be a non-empty list of integers or of equal-length integer vectors")
    if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)) or np.any(np.abs(arr) > 2.0**52):
        raise ValueError(f"{what} must be integers (the discrete Gaussian adds integer noise to integer values)")
    return arr.astype(np.int64)


def _probabilities(weights: Any, size: int, what: str) -> np.ndarray:
    w = np.asarray(weights, dtype=float)
    if w.shape != (size,):
        raise ValueError(f"{what} must have one weight per value ({size}), got shape {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise ValueError(f"{what} must be non-negative and finite, with a positive total")
    return w / w.sum()


def _orders(alphas: Any) -> tuple[float, ...]:
    if isinstance(alphas, Real):
        alphas = [alphas]
    out = []
    for a in alphas:
        if isinstance(a, bool) or not isinstance(a, Real) or not math.isfinite(a) or a <= 1:
            raise ValueError(f"every order α must be a finite number above 1, got {a!r}")
        out.append(float(a))
    if not out:
        raise ValueError("give at least one order α")
    return tuple(out)


def _scales(scale: Any, dim: int) -> np.ndarray:
    if isinstance(scale, Real) and not isinstance(scale, bool):
        s = np.full(dim, float(scale))
    else:
        s = np.asarray(scale, dtype=float).reshape(-1)
        if s.shape != (dim,):
            raise ValueError(f"scale must be a number or one number per coordinate ({dim}), got {s.size}")
    if not np.all(np.isfinite(s)) or np.any(s <= 0):
        raise ValueError(f"scale must be positive and finite, got {scale!r}")
    return s


def _logsumexp(a: np.ndarray, axis: int) -> np.ndarray:
    top = np.max(a, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)
    return np.squeeze(top, axis=axis) + np.log(np.sum(np.exp(a - top), axis=axis))


def _merge_log(points: np.ndarray, log_weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Equal points merged (their weights added, in log space)."""
    uniq, inverse = np.unique(points, axis=0, return_inverse=True)
    inverse = np.asarray(inverse).reshape(-1)
    merged = np.array([_logsumexp(log_weights[inverse == g], axis=0) for g in range(len(uniq))], dtype=float)
    return uniq, merged


@cache
def _log_normaliser(sigma: float) -> Any:
    """``log Σ_{|z| ≤ 38σ + 1} e^{−z²/(2σ²)}``, below the full sum's log (conservative here)."""
    z = np.arange(-math.ceil(38 * sigma) - 1, math.ceil(38 * sigma) + 2, dtype=_FLOAT)
    return _logsumexp(-(z * z) / _FLOAT(2 * sigma * sigma), axis=0)


def _box_sum(v0, lw0, v1, lw1, sigma, alpha, lo, hi):
    """``log Σ_{ω in box} e^{α A(ω) + (1 − α) B(ω)}`` (``A``, ``B`` the unnormalised log mixtures),
    the largest exponent magnitude met, and the number of terms."""
    sizes = hi - lo + 1
    total = int(np.prod(sizes))
    axes = [np.arange(lo[k], hi[k] + 1, dtype=_FLOAT) for k in range(len(lo))]
    two_var = [_FLOAT(2 * s * s) for s in sigma]
    # per coordinate and support point: −(ω_k − v_k)²/(2σ_k²) over the box's axis
    e0 = [-((axes[k][None, :] - v0[:, k][:, None].astype(_FLOAT)) ** 2) / two_var[k] for k in range(len(lo))]
    e1 = [-((axes[k][None, :] - v1[:, k][:, None].astype(_FLOAT)) ** 2) / two_var[k] for k in range(len(lo))]
    lw0, lw1 = lw0.astype(_FLOAT), lw1.astype(_FLOAT)
    a, one_minus_a = _FLOAT(alpha), _FLOAT(1 - alpha)
    chunk = max(1, 400_000 // max(len(lw0), len(lw1)))
    pieces, magnitude = [], 0.0
    for start in range(0, total, chunk):
        flat = np.arange(start, min(total, start + chunk))
        index = np.unravel_index(flat, tuple(int(x) for x in sizes))
        ex0 = lw0[:, None] + sum(e0[k][:, index[k]] for k in range(len(lo)))
        ex1 = lw1[:, None] + sum(e1[k][:, index[k]] for k in range(len(lo)))
        A, B = _logsumexp(ex0, axis=0), _logsumexp(ex1, axis=0)
        magnitude = max(magnitude, float(np.max(a * np.abs(A) + (a - 1) * np.abs(B))))
        pieces.append(_logsumexp(a * A + one_minus_a * B, axis=0))
    return float(_logsumexp(np.asarray(pieces, dtype=_FLOAT), axis=0)), magnitude, total


def _side_tail(v0, lw0, v1, lw1, sigma, alpha, k, edge, max_grid):
    """Log of an upper bound on ``Σ P₀^α P₁^{1−α}`` over ``{ω : ω_k > edge}``, ``edge`` at least
    every support value of coordinate ``k`` (module docstring, *The sum, bounded above*)."""
    s2 = 2 * sigma[k] ** 2
    F, Fp = v0[:, k].max(), v1[:, k].max()
    centre = alpha * F + (1 - alpha) * Fp
    log_kernel = alpha * (alpha - 1) * (F - Fp) ** 2 / s2
    if edge >= centre:
        log_kernel += float(stats.norm.logsf((edge - centre) / sigma[k]))
    # P₀ ≤ g_k(ω_k − F)·Ã(ω_{−k}): each point's kernel ratio to the top one, at its largest (ω_k = edge)
    la = lw0 - (F - v0[:, k]) * (2 * edge - v0[:, k] - F) / s2
    top = v1[:, k] == Fp  # P₁ ≥ g_k(ω_k − F')·B(ω_{−k}): its points at the top value
    lb = lw1[top]
    mass_a, mass_b = float(_logsumexp(la, axis=0)), float(_logsumexp(lb, axis=0))
    rest = alpha * mass_a + (1 - alpha) * mass_b
    others = [j for j in range(v0.shape[1]) if j != k]
    if others:  # Σ over the other coordinates of Ã^α B^{1−α}: the same bound, one dimension down
        rest += _log_sum(v0[:, others], la - mass_a, v1[top][:, others], lb - mass_b, sigma[others], alpha, max_grid)
    return log_kernel + rest


def _log_sum(v0, lw0, v1, lw1, sigma, alpha, max_grid):
    """An upper bound on ``log Σ_{ω∈ℤ^d} P₀(ω)^α P₁(ω)^{1−α}`` for the normalised mixtures of
    points ``vj`` with log weights ``lwj``: the exact sum on a box, plus the bounded tails."""
    both = np.vstack([v0, v1])
    varying = np.flatnonzero((both != both[0]).any(axis=0))
    if varying.size == 0:
        return 0.0  # every coordinate's kernel is the same on both sides: it sums to 1
    v0, lw0 = _merge_log(v0[:, varying], lw0)
    v1, lw1 = _merge_log(v1[:, varying], lw1)
    sigma = sigma[varying]
    log_norm = float(sum(_log_normaliser(float(s)) for s in sigma))
    # where P₀^α P₁^{1−α} can be large: the support, and the tilted centres of the extreme points
    low = np.minimum(np.minimum(v0.min(axis=0), v1.min(axis=0)), alpha * v0.min(axis=0) + (1 - alpha) * v1.min(axis=0))
    high = np.maximum(np.maximum(v0.max(axis=0), v1.max(axis=0)), alpha * v0.max(axis=0) + (1 - alpha) * v1.max(axis=0))

    def box(width):
        return np.floor(low - width * sigma).astype(np.int64), np.ceil(high + width * sigma).astype(np.int64)

    width = _FIRST_WIDTH
    lo, hi = box(width)
    if int(np.prod(hi - lo + 1)) > max_grid:
        raise ValueError(
            f"the exact grid has {int(np.prod(hi - lo + 1))} points (> max_grid={max_grid}); "
            "use a larger scale, fewer coordinates, a smaller order or a larger max_grid"
        )
    while True:
        inside, magnitude, terms = _box_sum(v0, lw0, v1, lw1, sigma, alpha, lo, hi)
        inside -= log_norm
        sides = []
        for k in range(len(sigma)):
            sides.append(_side_tail(v0, lw0, v1, lw1, sigma, alpha, k, float(hi[k]), max_grid))
            mirror0, mirror1 = v0.copy(), v1.copy()
            mirror0[:, k], mirror1[:, k] = -v0[:, k], -v1[:, k]
            sides.append(_side_tail(mirror0, lw0, mirror1, lw1, sigma, alpha, k, float(-lo[k]), max_grid))
        tail = float(_logsumexp(np.asarray(sides), axis=0)) + math.log(2.0)  # ×2: slack for the tail's own rounding
        allowance = math.log1p(8 * _EPS * (magnitude + terms + 1))
        total = float(np.logaddexp(inside + allowance, tail))
        if tail - inside < _TAIL_TARGET:
            return total
        width *= 2
        lo, hi = box(width)
        if int(np.prod(hi - lo + 1)) > max_grid:
            return total  # the grid limit: a valid bound, only looser


def discrete_gaussian_renyi(
    values0: Any,
    weights0: Any,
    values1: Any,
    weights1: Any,
    scale: Any,
    alphas: Any = DEFAULT_ORDERS,
    *,
    max_grid: int = 4_000_000,
) -> tuple[float, ...]:
    """Upper bounds on ``D_α(P₀ ‖ P₁)``, one per order of ``alphas``, for the mixtures ``P_j =
    Σ weightsj · N_ℤ(· − valuesj)`` of product discrete Gaussians (module docstring: the sum on a
    box is exact, its tails and rounding are bounded and added).

    ``values*`` are integers or equal-length integer vectors (the query values of the support
    points), ``weights*`` their probabilities (normalised here), ``scale`` the noise's ``σ``: a
    number, or one per coordinate (for composed releases with different scales). ``max_grid``
    caps the number of lattice points summed for one order.

    >>> [round(d, 12) for d in discrete_gaussian_renyi([0], [1.0], [1], [1.0], scale=2.0, alphas=[2, 4])]
    [0.25, 0.5]
    >>> half = discrete_gaussian_renyi([0], [1.0], [0, 2], [0.5, 0.5], scale=2.0, alphas=[2])[0]
    >>> 0 < half < 2 * 2**2 / (2 * 2.0**2)  # below the point-mass shift by 2, its worst pair
    True
    """
    v0, v1 = _integer_points(values0, "values0"), _integer_points(values1, "values1")
    if v0.shape[1] != v1.shape[1]:
        raise ValueError(f"values0 and values1 have different dimensions ({v0.shape[1]} and {v1.shape[1]})")
    w0 = _probabilities(weights0, v0.shape[0], "weights0")
    w1 = _probabilities(weights1, v1.shape[0], "weights1")
    orders = _orders(alphas)
    sigma = _scales(scale, v0.shape[1])
    if isinstance(max_grid, bool) or not isinstance(max_grid, int) or max_grid < 1:
        raise ValueError(f"max_grid must be a positive integer, got {max_grid!r}")
    v0, w0 = v0[w0 > 0], w0[w0 > 0]
    v1, w1 = v1[w1 > 0], w1[w1 > 0]
    return tuple(_log_sum(v0, np.log(w0), v1, np.log(w1), sigma, a, max_grid) / (a - 1) for a in orders)


# ----------------------------------------------------------------------------- the attackers
@dataclass(frozen=True)
class SecretLaws:
    """One attacker's laws of the labellings under the two secrets of ``(edge, property)``
    (:func:`secret_laws`): ``labellings[n]`` has probability ``weights0[n]`` given ``s⁰`` (the
    edge lacks the property) and ``weights1[n]`` given ``s¹``."""

    edge: int
    """The central edge ``i`` of the secret (its index in the graph's edge order)."""
    property: str
    """The property ``a`` of the secret."""
    attacker: str
    """Which law of the model this is (e.g. ``"p0=0.1, p1=0.6"``, ``"pooled"``,
    ``"log_freq=0"``, ``"extreme f⁰=0, f¹=3"``)."""
    labellings: tuple[Graph, ...] = field(repr=False)
    """Every labelling of ``property`` on the closed neighbourhood of ``edge``, the rest as in
    the structure given."""
    weights0: np.ndarray = field(repr=False)
    """``θ(labelling | s⁰)``, one per labelling (summing to 1)."""
    weights1: np.ndarray = field(repr=False)
    """``θ(labelling | s¹)``, one per labelling (summing to 1)."""


def _closed_neighbourhood(graph: Graph, edge: int) -> list[int]:
    src, dst = graph.src.tolist(), graph.dst.tolist()
    ends = {src[edge], dst[edge]}
    return [j for j in range(graph.num_edges) if src[j] in ends or dst[j] in ends]


def _clamped(law: np.ndarray, secret: int, size: int) -> np.ndarray:
    """``law`` (a histogram over ``f = 0, 1, …``) normalised and clamped to ``[secret, size − 1 +
    secret]``, as a probability vector over ``0..size``."""
    law = np.asarray(law, dtype=float)
    out = np.zeros(size + 1)
    for f in np.flatnonzero(law):
        out[min(max(int(f), secret), size - 1 + secret)] += law[f]
    return out / out.sum()


def _point(value: int, size: int) -> np.ndarray:
    out = np.zeros(size + 1)
    out[value] = 1.0
    return out


def _extremes(size: int) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """The extreme pairs of laws on ``[0, size − 1]`` and ``[1, size]``: point masses with the
    largest difference each way."""
    pairs = {(0, size), (size - 1, 1)}
    return [(f"extreme f⁰={a}, f¹={b}", _point(a, size), _point(b, size)) for a, b in sorted(pairs)]


def _histogram_laws(h0: np.ndarray, h1: np.ndarray, size: int, label: str):
    if h0.sum() == 0 or h1.sum() == 0:  # an unobserved side: any laws (the trivial bound)
        return _extremes(size)
    return [(label, _clamped(h0, 0, size), _clamped(h1, 1, size))]


def _model_laws(model: CorrelationModel, size: int) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """``(attacker, law of f given s⁰, law given s¹)`` for an edge whose closed neighbourhood has
    ``size`` edges, each law a probability vector over ``f = 0..size``."""
    if isinstance(model, BinomialModel):
        nb = size - 1
        k = np.arange(nb + 1)
        laws = []
        for p0, p1 in sorted(set(itertools.product(model.p0_range, model.p1_range))):
            law0 = np.append(stats.binom.pmf(k, nb, p0), 0.0)
            law1 = np.insert(stats.binom.pmf(k, nb, p1), 0, 0.0)
            laws.append((f"p0={p0:g}, p1={p1:g}", law0 / law0.sum(), law1 / law1.sum()))
        return laws
    if isinstance(model, GlobalModel):
        return _histogram_laws(model.hist0, model.hist1, size, "pooled")
    if isinstance(model, ConditionalModel):
        sb = int(log_bucket(np.array([size]), model.base)[0])
        laws = []
        for fb in range(model.hist0.shape[0]):
            if model.pairs[fb, sb] == 0:
                continue
            h0, h1 = model.hist0[fb, sb], model.hist1[fb, sb]
            if (h0.sum() == 0 or h1.sum() == 0) and model.unobserved == "ignore":
                continue  # the fitted attacker gives this secret no prior mass: no constraint
            laws += [(f"log_freq={fb}, {name}", l0, l1) for name, l0, l1 in _histogram_laws(h0, h1, size, "observed")]
        return laws
    if isinstance(model, EdgeLevelModel):
        return [("independent", _point(0, size), _point(1, size))]
    if isinstance(model, MarkovQuiltModel):
        return _extremes(size)
    raise TypeError(f"no laws known for {type(model).__name__}: give a Binomial, Global, Conditional, Edge-level or Markov-quilt model")


def secret_laws(model: CorrelationModel, graph: Graph, edge: int, prop: str) -> list[SecretLaws]:
    """The laws of the labellings under the secrets ``s⁰``/``s¹`` of ``(edge, prop)``, one
    :class:`SecretLaws` per attacker of ``model``'s class that the module docstring enumerates,
    with every label outside ``prop`` on the closed neighbourhood of ``edge`` fixed to
    ``graph``'s.

    >>> import opendp_graph as dpg
    >>> g = dpg.Graph.from_edges([0, 1], [1, 2], labels=[["a"], []])
    >>> (law,) = secret_laws(dpg.pufferfish.BinomialModel(0.1, 0.6, [1]), g, 0, "a")
    >>> [sorted(h.label_sets()[1]) for h in law.labellings], law.weights0.round(3).tolist(), law.weights1.round(3).tolist()
    ([[], ['a'], [], ['a']], [0.9, 0.1, 0.0, 0.0], [0.0, 0.0, 0.4, 0.6])
    """
    if not isinstance(model, CorrelationModel):
        raise TypeError(f"model must be a correlation model from opendp_graph.pufferfish, got {type(model).__name__}")
    if not isinstance(graph, Graph) or not graph.is_labeled:
        raise TypeError("graph must be a labelled opendp_graph.Graph (its labels are the fixed background)")
    if not model.covers(graph):
        raise ValueError(f"{model!r} does not cover this structure: it gives no law for some of its secrets")
    if isinstance(edge, bool) or not isinstance(edge, (int, np.integer)) or not 0 <= edge < graph.num_edges:
        raise ValueError(f"edge must be an edge index in 0..{graph.num_edges - 1}, got {edge!r}")
    if not isinstance(prop, str) or not prop:
        raise ValueError(f"the property must be a non-empty string, got {prop!r}")
    edge = int(edge)
    hood = _closed_neighbourhood(graph, edge)
    others = [j for j in hood if j != edge]
    size = len(hood)
    if size > _MAX_NEIGHBOURHOOD:
        raise ValueError(
            f"edge {edge}'s closed neighbourhood has {size} edges: its 2^{size} labellings are too many to enumerate "
            f"(at most {_MAX_NEIGHBOURHOOD} edges)"
        )
    base = [set(s) for s in graph.label_sets()]
    bare = graph.without_labels()
    labellings, carried = [], []  # carried: (centre carries prop, how many others do)
    for centre in (0, 1):
        for mask in range(1 << len(others)):
            sets = [set(s) for s in base]
            chosen = [others[b] for b in range(len(others)) if mask >> b & 1]
            for j in hood:
                sets[j].discard(prop)
            for j in chosen + ([edge] if centre else []):
                sets[j].add(prop)
            labellings.append(bare.with_label_sets(sets))
            carried.append((centre, len(chosen)))
    out = []
    for attacker, law0, law1 in _model_laws(model, size):
        weights = []
        for secret, law in ((0, law0), (1, law1)):
            w = np.array([law[secret + k] / math.comb(len(others), k) if centre == secret else 0.0 for centre, k in carried])
            w = w / w.sum()
            w.setflags(write=False)  # a frozen value: its arrays are read-only too
            weights.append(w)
        out.append(SecretLaws(edge, prop, attacker, tuple(labellings), weights[0], weights[1]))
    return out


# ----------------------------------------------------------------------------- the check
@dataclass(frozen=True)
class ExactRenyi:
    """The result of :func:`exact_renyi_divergence`."""

    alphas: tuple[float, ...]
    """The orders ``α``."""
    divergence: tuple[float, ...]
    """Per order, the largest upper bound on ``D_α`` over the secret pairs, the attackers and
    both directions (``D_α(P₀ ‖ P₁)`` and ``D_α(P₁ ‖ P₀)``)."""
    secret: tuple[tuple, ...]
    """Per order, the ``(edge, property, attacker)`` attaining ``divergence`` (the first, on a tie)."""
    per_secret: dict = field(repr=False)
    """Maps ``(edge, property, attacker)`` to the per-order bounds (the larger direction)."""

    def within(self, rho: float, *, rtol: float = 1e-9) -> bool:
        """Whether ``D_α ≤ α·ρ·(1 + rtol)`` at every order: the zCDP-style Rényi Pufferfish
        guarantee of ``ρ`` on these secrets. ``rtol`` absorbs the rounding of two equal numbers
        (the bound is attained by point masses at integer orders: module docstring)."""
        return all(d <= a * rho * (1 + rtol) for a, d in zip(self.alphas, self.divergence))

    def __str__(self) -> str:
        parts = ", ".join(f"D_{a:g} ≤ {d:.6g}" for a, d in zip(self.alphas, self.divergence))
        return f"exact Rényi divergences: {parts}"


def _vector(value: Any) -> list[int]:
    items = value if isinstance(value, (list, tuple, np.ndarray)) else [value]
    out = []
    for v in items:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise ValueError(f"the query must return integers (the discrete Gaussian's input), got {v!r}")
        out.append(int(v))
    return out


def exact_renyi_divergence(
    query: Callable[[Graph], Any],
    model: CorrelationModel,
    graph: Graph,
    *,
    scale: Any,
    alphas: Any = DEFAULT_ORDERS,
    properties: Sequence[str] | None = None,
    edges: Sequence[int] | None = None,
    max_grid: int = 4_000_000,
) -> ExactRenyi:
    """Upper bounds (tight to rounding) on the Rényi divergences of ``query + discrete
    Gaussian(scale)`` between the two secrets of every pair ``(edge, property)`` of ``graph``, for
    every attacker of ``model``'s class that :func:`secret_laws` enumerates (module docstring).

    :param query: the deterministic query, ``Graph → int or list of int`` (e.g. the
        transformation before ``dp.m.then_gaussian``; it is called on every labelling); for
        composed releases, a function returning their outputs side by side.
    :param model: the correlation model whose attackers are enumerated.
    :param graph: the labelled structure: its labels are the background the attackers fix.
    :param scale: the Gaussian's ``σ`` (OpenDP's ``scale``), or one per output coordinate.
    :param alphas: the orders ``α > 1``.
    :param properties: the properties of the secrets (default: the model's vocabulary, else
        the graph's).
    :param edges: the central edges of the secrets (default: all).
    :return: :class:`ExactRenyi`; ``result.within(rho)`` checks ``D_α ≤ α·ρ`` at every order.

    :example:

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> g = dpg.Graph.from_edges([0, 1], [1, 2], labels=[["a"], []])
    >>> model = dpg.pufferfish.BinomialModel(p0=0.1, p1=0.6, neighbour_counts=[1])
    >>> space = dpg.graph_domain(labeled=True), dpg.pufferfish_distance(model)
    >>> counts = space >> dpg.then_label_counts(1, ["a"], output_metric=dp.l2_distance(T=dp.f64))
    >>> release = counts >> dp.m.then_gaussian(scale=2.0)
    >>> counts.map(1), release.map(1)  # W = 2: ρ = W²/(2σ²)
    (2.0, 0.5)
    >>> result = exact_renyi_divergence(counts, model, g, scale=2.0, alphas=[2, 16])
    >>> result.within(release.map(1)), [round(d / (a * 0.5), 3) for a, d in zip(result.alphas, result.divergence)]
    (True, [0.565, 0.456])
    """
    if isinstance(query, dp.Measurement):
        raise TypeError(
            "query must be the deterministic query (e.g. the Transformation before the noise), not a Measurement: "
            "exact_renyi_divergence adds the discrete Gaussian of `scale` itself"
        )
    if not callable(query):
        raise TypeError("query must be callable: Graph -> int or list of int")
    orders = _orders(alphas)
    if not isinstance(graph, Graph) or not graph.is_labeled:
        raise TypeError("graph must be a labelled opendp_graph.Graph")
    if properties is None:
        properties = model.vocabulary if model.vocabulary is not None else graph.vocabulary
        assert properties is not None  # the graph is labeled
    properties = list(properties)
    edge_list = range(graph.num_edges) if edges is None else list(edges)
    if not properties or not len(edge_list):
        raise ValueError("no secret to check: give at least one edge and one property")
    outputs: dict[Graph, list[int]] = {}
    per_secret: dict = {}
    for edge in edge_list:
        for prop in properties:
            for law in secret_laws(model, graph, edge, prop):
                values = []
                for h in law.labellings:
                    if h not in outputs:
                        outputs[h] = _vector(query(h))
                    values.append(outputs[h])
                forward = discrete_gaussian_renyi(values, law.weights0, values, law.weights1, scale, orders, max_grid=max_grid)
                backward = discrete_gaussian_renyi(values, law.weights1, values, law.weights0, scale, orders, max_grid=max_grid)
                per_secret[(law.edge, law.property, law.attacker)] = tuple(max(x, y) for x, y in zip(forward, backward))
    divergence, secret = [], []
    for k in range(len(orders)):
        key = max(per_secret, key=lambda s: per_secret[s][k])
        divergence.append(per_secret[key][k])
        secret.append(key)
    return ExactRenyi(alphas=orders, divergence=tuple(divergence), secret=tuple(secret), per_secret=per_secret)
