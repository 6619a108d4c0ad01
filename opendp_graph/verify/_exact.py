"""Exact privacy loss on tiny graphs.

A :class:`GraphDistribution` lists every graph on ``n`` nodes (``2^C(n,2)`` of them, so ``n ≤ 7``)
with its probability.  Given a deterministic query ``f`` released with Laplace noise of scale
``b`` (continuous Laplace, or OpenDP's discrete Laplace for integer queries: both have density
proportional to ``exp(−|x − f|₁ / b)``), the output density under a secret ``s`` is the mixture

    p_s(ω) = Σ_g P(g | s) · Π_k exp(−|ω_k − f_k(g)| / b) / (2b)^d

and the exact privacy loss for a secret pair is ``sup_ω |log p₁(ω) / p₀(ω)|``.

**Why a finite set of points suffices.** Fix every coordinate of ω but the k-th.  Between two
consecutive values of ``{f_k(g)}``, each mixture is ``A e^{x/b} + B e^{−x/b}``, so the ratio
``(A₁ e^{2x/b} + B₁) / (A₀ e^{2x/b} + B₀)`` is monotone in ``x`` there; the supremum of the ratio
(and of its inverse) over a cell is reached at a cell end, i.e. at a value ``f_k(g)`` or as
``x → ±∞``.  Moving the coordinates one at a time, the supremum over ``ℝ^d`` (or ``ℤ^d``) is a
maximum over the grid ``Π_k ({f_k(g)} ∪ {±∞})``, where at ``±∞`` the kernel is replaced by its
limit ratio ``exp(±f_k(g)/b)`` (the common factor ``exp(∓ω/b)`` cancels).  This is exact, not a
fine-grid approximation.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np
import opendp.prelude as dp
from scipy.special import logsumexp

from ..core._checks import positive_finite
from ..core.graph import Graph

__all__ = ["GraphDistribution", "laplace_privacy_loss", "exact_epsilon", "ExactEpsilon"]

MAX_ENUMERATED_NODES = 7


def _pairs(n: int) -> list[tuple[int, int]]:
    return list(itertools.combinations(range(n), 2))


class GraphDistribution:
    """A probability distribution over all graphs on ``num_nodes`` nodes, listed exhaustively.

    Graph number ``mask`` has the edge ``pairs[b]`` iff bit ``b`` of ``mask`` is set (``pairs``
    is ``itertools.combinations(range(n), 2)``), so ``edges`` is a ``(2^m × m)`` boolean matrix.

    :example:

    >>> d = GraphDistribution.independent_edges(3, 0.5)
    >>> len(d), round(float(d.probabilities.sum()), 12)
    (8, 1.0)
    >>> round(d.edge_probability(0, 1), 12)
    0.5
    """

    def __init__(self, num_nodes: int, log_weights: np.ndarray) -> None:
        n = _check_nodes(num_nodes)
        pairs = _pairs(n)
        log_weights = np.asarray(log_weights, dtype=float)
        if log_weights.shape != (1 << len(pairs),):
            raise ValueError(f"log_weights must have length 2^{len(pairs)} = {1 << len(pairs)}")
        if np.any(np.isnan(log_weights)) or np.any(log_weights == np.inf):
            raise ValueError("log_weights must be finite or -inf")
        if not np.any(np.isfinite(log_weights)):
            raise ValueError("the distribution puts no mass on any graph")
        self.num_nodes = n
        """The number of nodes ``n`` of every graph (``2 ≤ n ≤ 7``)."""
        self.pairs = pairs
        """The node pairs ``(i, j)``, ``i < j``, in bit order: graph ``mask`` has edge ``pairs[b]``
        iff bit ``b`` of ``mask`` is set."""
        self.log_probabilities = log_weights - logsumexp(log_weights)
        """``log P(g)`` of every graph, in mask order (``-inf`` for a graph of probability 0)."""
        self.probabilities = np.exp(self.log_probabilities)
        """``P(g)`` of every graph, in mask order (summing to 1)."""
        self._graphs: list[Graph] | None = None

    # ----------------------------------------------------------------- constructors
    @staticmethod
    def edge_matrix(num_nodes: int) -> np.ndarray:
        """The ``(2^m × m)`` boolean edge-indicator matrix of all graphs on ``num_nodes`` nodes."""
        m = len(_pairs(_check_nodes(num_nodes)))
        masks = np.arange(1 << m, dtype=np.int64)
        return ((masks[:, None] >> np.arange(m)) & 1).astype(bool)

    @classmethod
    def from_log_weights(cls, num_nodes: int, log_weight: Callable[[np.ndarray], np.ndarray]) -> GraphDistribution:
        """``P(g) ∝ exp(log_weight(edges)[g])`` where ``log_weight`` maps the edge matrix to a vector."""
        return cls(num_nodes, np.asarray(log_weight(cls.edge_matrix(num_nodes)), dtype=float))

    @classmethod
    def independent_edges(cls, num_nodes: int, p: Any) -> GraphDistribution:
        """Independent edges with probability ``p`` (a number, or an ``n × n`` matrix, upper triangle used).

        Probabilities 0 and 1 are allowed (a degenerate edge)."""
        n = _check_nodes(num_nodes)
        pairs = _pairs(n)
        if isinstance(p, Real) and not isinstance(p, bool):
            probs = np.full(len(pairs), float(p))
        else:
            mat = np.asarray(p, dtype=float)
            if mat.shape != (n, n):
                raise ValueError(f"p must be a number or an {n} x {n} matrix")
            probs = np.array([mat[i, j] for i, j in pairs])
        if np.any(~np.isfinite(probs)) or np.any(probs < 0) or np.any(probs > 1):
            raise ValueError("edge probabilities must lie in [0, 1]")
        x = cls.edge_matrix(n)
        with np.errstate(divide="ignore"):
            lp, lq = np.log(probs), np.log1p(-probs)
        lw = np.where(x, lp, lq).sum(axis=1)
        return cls(n, lw)

    # ----------------------------------------------------------------- access
    def __len__(self) -> int:
        return self.probabilities.size

    @property
    def edges(self) -> np.ndarray:
        """The ``(2^m × m)`` boolean edge matrix: row ``mask`` is graph ``mask``, column ``b`` the
        pair ``pairs[b]`` (:meth:`edge_matrix`)."""
        return self.edge_matrix(self.num_nodes)

    @property
    def graphs(self) -> list[Graph]:
        """Every graph, as a :class:`~opendp_graph.Graph`, in mask order (built once, cached)."""
        if self._graphs is None:
            x = self.edges
            out = []
            for row in x:
                chosen = [self.pairs[b] for b in np.flatnonzero(row)]
                out.append(Graph.from_edges([u for u, _ in chosen], [v for _, v in chosen], num_nodes=self.num_nodes))
            self._graphs = out
        return self._graphs

    def pair_index(self, i: int, j: int) -> int:
        a, b = (int(i), int(j)) if i < j else (int(j), int(i))
        try:
            return self.pairs.index((a, b))
        except ValueError:
            raise ValueError(f"({i}, {j}) is not a pair of distinct nodes in 0..{self.num_nodes - 1}") from None

    def edge_probability(self, i: int, j: int) -> float:
        bit = self.pair_index(i, j)
        return float(self.probabilities[self.edges[:, bit]].sum())

    def conditional(self, i: int, j: int, present: bool) -> np.ndarray:
        """``P(g | {i,j} ∈ E)`` (or ``∉``) as a probability vector over all graphs."""
        x = self.edges[:, self.pair_index(i, j)]
        mask = x if present else ~x
        p = np.where(mask, self.probabilities, 0.0)
        total = p.sum()
        if total <= 0:
            raise ValueError(f"the secret {'present' if present else 'absent'} edge ({i}, {j}) has probability 0")
        return p / total

    def lemma_alpha(self) -> tuple[float, tuple[int, int] | None]:
        """The smallest α of Hehir et al. Lemma 4.1 for this single distribution, and the edge attaining it.

        ``α = max_{e, g} |log P(G_{−e} = g_{−e} | e ∈ E) − log P(G_{−e} = g_{−e} | e ∉ E)|`` over
        edges with ``0 < P(e) < 1`` (Eq. 2); ``inf`` if the two conditionals have different supports.
        """
        x = self.edges
        masks = np.arange(len(self), dtype=np.int64)
        best, where = 0.0, None
        for b, pair in enumerate(self.pairs):
            p_e = float(self.probabilities[x[:, b]].sum())
            if p_e <= 0 or p_e >= 1:
                continue
            off = masks[~x[:, b]]
            lp_with = self.log_probabilities[off | (1 << b)] - math.log(p_e)
            lp_without = self.log_probabilities[off] - math.log1p(-p_e)
            both_zero = np.isneginf(lp_with) & np.isneginf(lp_without)
            with np.errstate(invalid="ignore"):
                diff = np.abs(lp_with - lp_without)
            diff = np.where(both_zero, 0.0, diff)
            diff = np.where(np.isnan(diff), np.inf, diff)
            value = float(diff.max())
            if value > best or where is None:
                best, where = max(best, value), pair
        return best, where

    def sample(self, rng: np.random.Generator, size: int | None = None) -> Any:
        """Draw graph(s) with a caller-supplied numpy Generator (for audits, not for releases)."""
        idx = rng.choice(len(self), size=size, p=self.probabilities)
        g = self.graphs
        return g[int(idx)] if size is None else [g[int(i)] for i in idx]


def _check_nodes(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, Integral):
        raise TypeError(f"num_nodes must be an integer, got {n!r}")
    if not 2 <= int(n) <= MAX_ENUMERATED_NODES:
        raise ValueError(f"exact enumeration needs 2 <= num_nodes <= {MAX_ENUMERATED_NODES}, got {n}")
    return int(n)


def _as_values(values: Any) -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError("query values must be numbers or equal-length vectors")
    if not np.all(np.isfinite(arr)):
        raise ValueError("query values must be finite")
    return arr


def laplace_privacy_loss(
    values0: Any, weights0: Any, values1: Any, weights1: Any, scale: float, *, max_grid: int = 200_000
) -> tuple[float, np.ndarray]:
    """Exact ``sup_ω |log p₁(ω)/p₀(ω)|`` for two mixtures of Laplace(value, scale) (product over coordinates).

    ``values*`` are the query values (``N × d`` or length ``N``) of the support points and
    ``weights*`` their probabilities.  Returns the loss and the maximising output (coordinates may
    be ``±inf``, meaning the supremum is the limit in that direction).  See the module docstring
    for why the grid of support values plus ``±∞`` is exact.

    >>> loss, where = laplace_privacy_loss([0], [1.0], [1], [1.0], scale=2.0)
    >>> loss
    0.5
    """
    positive_finite("scale", scale)
    v0, v1 = _as_values(values0), _as_values(values1)
    w0, w1 = np.asarray(weights0, dtype=float), np.asarray(weights1, dtype=float)
    if v0.shape[1] != v1.shape[1] or w0.shape != (v0.shape[0],) or w1.shape != (v1.shape[0],):
        raise ValueError("values and weights must line up, with the same dimension on both sides")
    if np.any(w0 < 0) or np.any(w1 < 0) or w0.sum() <= 0 or w1.sum() <= 0:
        raise ValueError("weights must be non-negative with a positive total")
    # merge equal query values (a mixture only depends on the distribution of f)
    both = np.vstack([v0, v1])
    uniq, inv = np.unique(both, axis=0, return_inverse=True)
    inv = np.asarray(inv).reshape(-1)
    p0 = np.bincount(inv[: len(v0)], weights=w0 / w0.sum(), minlength=len(uniq))
    p1 = np.bincount(inv[len(v0) :], weights=w1 / w1.sum(), minlength=len(uniq))
    keep = (p0 > 0) | (p1 > 0)
    uniq, p0, p1 = uniq[keep], p0[keep], p1[keep]
    d = uniq.shape[1]
    axes = [np.concatenate([[-np.inf], np.unique(uniq[:, k]), [np.inf]]) for k in range(d)]
    grid_size = math.prod(len(a) for a in axes)
    if grid_size > max_grid:
        raise ValueError(f"the exact grid has {grid_size} points (> max_grid={max_grid}); use fewer bins or nodes")
    with np.errstate(divide="ignore"):
        lp0, lp1 = np.log(p0), np.log(p1)
    b = float(scale)
    best, arg = -1.0, None
    for chunk in _grid_chunks(axes, 4096):
        # log kernel: -|ω - f|/b for finite ω; ±f/b at ±∞ (common factors cancel)
        w = chunk[:, None, :]
        f = uniq[None, :, :]
        with np.errstate(invalid="ignore"):
            lk = np.where(np.isposinf(w), f / b, np.where(np.isneginf(w), -f / b, -np.abs(w - f) / b)).sum(axis=2)
        l0 = logsumexp(lk + lp0[None, :], axis=1)
        l1 = logsumexp(lk + lp1[None, :], axis=1)
        with np.errstate(invalid="ignore"):
            loss = np.abs(l1 - l0)
        loss = np.where(np.isnan(loss), np.inf, loss)
        i = int(np.argmax(loss))
        if loss[i] > best:
            best, arg = float(loss[i]), chunk[i]
    assert arg is not None  # the grid has a point (±∞ on every axis), and every loss is ≥ 0 > -1
    return best, arg


def _grid_chunks(axes: list[np.ndarray], size: int):
    it = itertools.product(*axes)
    while True:
        block = list(itertools.islice(it, size))
        if not block:
            return
        yield np.array(block, dtype=float)


@dataclass(frozen=True)
class ExactEpsilon:
    """The result of :func:`exact_epsilon`: the exact loss, the secret and the output attaining it."""

    epsilon: float
    """The exact privacy loss: the largest, over the secret pairs, of ``sup_ω |log p₁(ω) /
    p₀(ω)|`` for the release ``query + Laplace(scale)`` (module docstring); finite, since both
    Laplace mixtures have full support."""
    secret: Any
    """The secret pair attaining ``epsilon`` (the first, on a tie): a node pair ``(i, j)`` for an
    edge secret (as listed in ``secrets``; ``i < j`` for ``secrets="edges"``), or, for a pair
    given as ``(weights0, weights1)``, its position in ``secrets``."""
    output: tuple
    """An output attaining ``epsilon`` for that secret, one number per coordinate of the query;
    a coordinate ``±inf`` means the supremum is the limit in that direction (module docstring)."""
    per_secret: dict
    """The exact loss of every secret pair considered, keyed as ``secret`` (edge secrets with
    ``0 < P(edge) < 1`` only, for ``secrets="edges"``)."""

    def __str__(self) -> str:
        return f"exact ε = {self.epsilon:.6g} (worst secret {self.secret}, at output {self.output})"


def exact_epsilon(
    query: Callable[[Graph], Any] | Sequence,
    distribution: GraphDistribution,
    *,
    scale: float,
    secrets: Any = "edges",
    max_grid: int = 200_000,
) -> ExactEpsilon:
    """The exact privacy loss of ``query + Laplace(scale)`` for secrets about a random graph.

    :param query: a deterministic function ``Graph -> number or vector`` (e.g. an opendp-graph
        ``Transformation``, which is callable), or the precomputed values for every graph of
        ``distribution`` in its mask order.
    :param distribution: the :class:`GraphDistribution` the adversary believes in.
    :param scale: the Laplace scale of the release (OpenDP's discrete Laplace for integer
        queries has the same kernel ``exp(−|x|/scale)`` and the same loss).
    :param secrets: ``"edges"`` (default: every pair ``({i,j} ∈ E, {i,j} ∉ E)`` with
        ``0 < P < 1``, the edge secrets of Hehir et al. Theorem 4.1), a list of node pairs, or a
        list of ``(weights0, weights1)`` probability vectors over the graphs (any secret pair).
    :return: :class:`ExactEpsilon` with the supremum over secrets (and per secret).

    **Guarantee checked.** For the ε-edge-DP Laplace release of an edge count under
    independent edges the result is exactly ε (Theorem 4.1, attained in the tail); under a
    dependent distribution it is at most ``ε + α`` (Lemma 4.1, with ``α`` from
    :meth:`GraphDistribution.lemma_alpha`).

    >>> import opendp_graph as dpg
    >>> d = GraphDistribution.independent_edges(3, 0.3)
    >>> res = exact_epsilon(lambda g: g.num_edges, d, scale=1.0)
    >>> round(res.epsilon, 12)
    1.0
    """
    if not isinstance(distribution, GraphDistribution):
        raise TypeError("distribution must be a GraphDistribution")
    if isinstance(query, dp.Measurement):
        # a measurement adds its own noise: its values are random draws, not the query's values
        raise TypeError(
            "query must be the deterministic query (e.g. the Transformation before the noise), not a Measurement: "
            "exact_epsilon adds the Laplace noise of `scale` itself"
        )
    if callable(query):
        values = _as_values([_to_vector(query(g)) for g in distribution.graphs])
    else:
        values = _as_values(query)
        if values.shape[0] != len(distribution):
            raise ValueError(f"precomputed query values must have {len(distribution)} rows")
    pairs: list[tuple[Any, np.ndarray, np.ndarray]] = []
    if isinstance(secrets, str):
        if secrets != "edges":
            raise ValueError(f"secrets must be 'edges' or a list, got {secrets!r}")
        for i, j in distribution.pairs:
            p = distribution.edge_probability(i, j)
            if 0 < p < 1:
                pairs.append(((i, j), distribution.conditional(i, j, False), distribution.conditional(i, j, True)))
    else:
        for s in secrets:
            if len(s) == 2 and all(isinstance(v, Integral) for v in s):
                i, j = int(s[0]), int(s[1])
                pairs.append(((i, j), distribution.conditional(i, j, False), distribution.conditional(i, j, True)))
            else:
                w0, w1 = (np.asarray(w, dtype=float) for w in s)
                pairs.append((len(pairs), w0, w1))
    if not pairs:
        raise ValueError("no secret pair has positive probability on both sides")
    per: dict = {}
    best: tuple[float, Any, tuple[float, ...]] = (-1.0, None, ())
    for name, w0, w1 in pairs:
        loss, where = laplace_privacy_loss(values, w0, values, w1, scale, max_grid=max_grid)
        per[name] = loss
        if loss > best[0]:
            best = (loss, name, tuple(float(v) for v in where))
    return ExactEpsilon(epsilon=best[0], secret=best[1], output=best[2], per_secret=per)


def _to_vector(value: Any) -> Any:
    if isinstance(value, (list, tuple, np.ndarray)):
        return [float(v) for v in value]
    return float(value)
