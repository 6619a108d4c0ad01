"""ERGMs, change statistics and the α of Hehir, Niu & Slavković (Lemma 4.1, Corollary 4.2).

An exponential random graph model on ``n`` nodes puts ``P_θ(G = g) ∝ exp(βᵀu(g))`` on every
graph, with ``u`` a vector of edge-based statistics.  Here ``u`` is made of

* ``edges``:     ``|E|``,                                  change ``Δ = 1``;
* ``two_stars``: ``Σ_v C(d_v, 2)``,                        change ``Δ = d_i + d_j``;
* ``k_stars``:   ``Σ_v C(d_v, k)`` for each given ``k``,   change ``Δ = C(d_i, k−1) + C(d_j, k−1)``;
* ``triangles``: number of triangles,                      change ``Δ = |N(i) ∩ N(j)|``;

where ``d_i, d_j`` are the degrees of ``i`` and ``j`` *not counting* the pair ``{i,j}`` itself
and ``N`` the neighbourhoods in ``g \\ {i,j}`` (paper, Eq. 3: ``Δ(g,i,j) = u(g ∪ {i,j}) − u(g \\ {i,j})``).

**Corollary 4.2 (paper §4.2).** An ε-edge-DP mechanism is ``(ε + α)``-Pufferfish for the edge
secrets under the ERGM, with::

    α = sup_{g,i,j} |βᵀΔ(g,i,j) − logit P_θ({i,j} ∈ E)|  ≤  2 ζ,   ζ = sup_{g,i,j} |βᵀΔ(g,i,j)|.

* ``ζ`` needs no normalising constant: the change statistics of a pair only depend on
  ``(d_i, d_j, t)`` (``t`` common neighbours), and every triple with ``0 ≤ t ≤ min(d_i, d_j)``,
  ``d_i + d_j − t ≤ n − 2`` is realised by some graph (put ``t`` common and ``d_i − t``,
  ``d_j − t`` private neighbours among the other ``n − 2`` nodes).  ``βᵀΔ`` is linear in ``t``,
  so only ``t`` at its two ends matters; we scan ``d_i, d_j ∈ 0..n−2``: exact, ``O(n²)``.
* the exact ``α`` needs the marginal ``P_θ({i,j} ∈ E)``, i.e. the normalising constant; it is
  computed by enumerating all graphs when ``n ≤ 7`` (and otherwise bounded by
  ``ζ + max_e |logit P(e)| ≤ 2ζ``, using ``|logit P(e)| ≤ ζ`` from the proof of Corollary 4.2).

**Degree bounds.** For a fixed ``n`` every change statistic is bounded (by ``n``: the "size
bound").  A hard degree cap (the ERGM conditioned on ``max degree ≤ D``) does *not* help: when
``D < n − 1`` some ``g \\ {i,j}`` is possible while ``g ∪ {i,j}`` is not, so the two conditionals of
Lemma 4.1 have different supports and ``α = ∞`` (Lemma 4.1 becomes vacuous; the actual loss of a
Laplace release stays finite, see :func:`opendp_graph.verify.exact_epsilon`).  ``ergm_alpha``
reports this instead of a misleading finite number; the cap-restricted ``ζ`` is still returned
for information.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np
from scipy.special import comb

from ..core.graph import Graph
from ..verify._exact import MAX_ENUMERATED_NODES, GraphDistribution

__all__ = ["ERGM", "AlphaReport", "ergm_alpha", "change_statistics", "ergm_statistics"]


def _num(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(float(value)):
        raise TypeError(f"{name} must be a finite number, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class ERGM:
    """An ERGM with edges / two-stars / k-stars / triangles terms on ``num_nodes`` nodes.

    :param num_nodes: number of nodes ``n`` (public).
    :param edges: coefficient of the edge count.
    :param two_stars: coefficient of the 2-star count.
    :param triangles: coefficient of the triangle count.
    :param k_stars: ``{k: coefficient}`` for k-star counts with ``k ≥ 2`` (``k = 2`` adds to ``two_stars``).
    :param max_degree: if given, the model is conditioned on ``max degree ≤ max_degree``.

    >>> m = ERGM(4, edges=-1.0, triangles=0.5)
    >>> m.coefficients()
    {'edges': -1.0, 'triangles': 0.5}
    """

    num_nodes: int
    edges: float = 0.0
    two_stars: float = 0.0
    triangles: float = 0.0
    k_stars: Mapping[int, float] = field(default_factory=dict)
    max_degree: int | None = None

    def __post_init__(self) -> None:
        n = self.num_nodes
        if isinstance(n, bool) or not isinstance(n, Integral) or n < 2:
            raise ValueError(f"num_nodes must be an integer >= 2, got {n!r}")
        for name in ("edges", "two_stars", "triangles"):
            object.__setattr__(self, name, _num(name, getattr(self, name)))
        ks = {}
        for k, v in dict(self.k_stars).items():
            if isinstance(k, bool) or not isinstance(k, Integral) or k < 2:
                raise ValueError(f"k-star orders must be integers >= 2, got {k!r}")
            ks[int(k)] = ks.get(int(k), 0.0) + _num(f"k_stars[{k}]", v)
        object.__setattr__(self, "k_stars", ks)
        if self.max_degree is not None:
            D = self.max_degree
            if isinstance(D, bool) or not isinstance(D, Integral) or D < 0:
                raise ValueError(f"max_degree must be a non-negative integer, got {D!r}")

    def coefficients(self) -> dict[str, float]:
        """The non-zero coefficients, by statistic name (``star{k}`` for k-stars)."""
        out = {"edges": self.edges, "two_stars": self.two_stars, "triangles": self.triangles}
        out.update({f"star{k}": v for k, v in sorted(self.k_stars.items())})
        return {k: v for k, v in out.items() if v != 0.0}

    def _star_coefficients(self) -> dict[int, float]:
        ks = dict(self.k_stars)
        if self.two_stars:
            ks[2] = ks.get(2, 0.0) + self.two_stars
        return {k: v for k, v in ks.items() if v != 0.0}

    def log_weights(self, edge_matrix: np.ndarray) -> np.ndarray:
        """``βᵀu(g)`` for each row of an edge-indicator matrix (pairs in combinations order)."""
        n = int(self.num_nodes)
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
        x = np.asarray(edge_matrix, dtype=np.int64)
        inc = np.zeros((len(pairs), n), dtype=np.int64)
        for b, (i, j) in enumerate(pairs):
            inc[b, i] = inc[b, j] = 1
        deg = x @ inc
        s = self.edges * x.sum(axis=1).astype(float)
        for k, v in self._star_coefficients().items():
            s = s + v * comb(deg, k).sum(axis=1)
        if self.triangles:
            idx = {p: b for b, p in enumerate(pairs)}
            tri = np.zeros(x.shape[0])
            for i in range(n):
                for j in range(i + 1, n):
                    for k in range(j + 1, n):
                        tri += x[:, idx[(i, j)]] * x[:, idx[(i, k)]] * x[:, idx[(j, k)]]
            s = s + self.triangles * tri
        if self.max_degree is not None:
            s = np.where(deg.max(axis=1, initial=0) <= self.max_degree, s, -np.inf)
        return s

    def distribution(self) -> GraphDistribution:
        """The exact distribution over all graphs (``num_nodes ≤ 7``)."""
        return GraphDistribution.from_log_weights(int(self.num_nodes), self.log_weights)

    def alpha(self, **kwargs: Any) -> AlphaReport:
        """Shorthand for :func:`ergm_alpha` on this model."""
        return ergm_alpha(self, **kwargs)

    def sample(
        self,
        rng: np.random.Generator,
        size: int,
        *,
        fixed: Mapping[tuple[int, int], bool] | None = None,
        burn_in: int = 100,
        thin: int = 2,
    ) -> list[Graph]:
        """Draw graphs by Gibbs sampling (for audits on more nodes than enumeration allows).

        Each sweep visits every free pair and redraws it from its full conditional, whose log-odds
        is ``βᵀΔ(g, i, j)`` (paper, Eq. 3); under a degree cap, a pair whose addition would break
        the cap is set absent.  ``fixed`` pins pairs (e.g. the secret edge, to sample
        ``P(G | {i,j} ∈ E)``).  A Markov chain, so the draws are correlated and only
        approximately from the model after ``burn_in`` sweeps; ``thin`` sweeps between draws.
        Driven entirely by the caller's ``rng`` (reproducible given its seed).  **For audits:**
        Clopper–Pearson assumes independent draws; successive draws of one chain are not, so
        thin generously (or run one short chain per draw) before trusting the stated confidence.
        """
        if not isinstance(rng, np.random.Generator):
            raise TypeError("rng must be a numpy.random.Generator")
        for name, v, lo in (("size", size, 1), ("burn_in", burn_in, 0), ("thin", thin, 1)):
            if isinstance(v, bool) or not isinstance(v, Integral) or v < lo:
                raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
        n = int(self.num_nodes)
        pins = {}
        for (i, j), present in dict(fixed or {}).items():
            if not (0 <= i < n and 0 <= j < n and i != j):
                raise ValueError(f"fixed pair ({i}, {j}) is not a pair of distinct nodes")
            pins[(min(i, j), max(i, j))] = bool(present)
        free = [(i, j) for i in range(n) for j in range(i + 1, n) if (i, j) not in pins]
        a = np.zeros((n, n), dtype=np.int64)
        for (i, j), present in pins.items():
            a[i, j] = a[j, i] = int(present)
        if self.max_degree is not None and a.sum(axis=1).max(initial=0) > self.max_degree:
            raise ValueError("the fixed pairs already break the degree cap")
        stars = self._star_coefficients()
        cap = self.max_degree

        def sweep() -> None:
            u = rng.random(len(free))
            for (i, j), r in zip(free, u):
                a[i, j] = a[j, i] = 0
                di, dj = int(a[i].sum()), int(a[j].sum())
                if cap is not None and (di >= cap or dj >= cap):
                    continue
                logit = self.edges
                for k, v in stars.items():
                    logit += v * (math.comb(di, k - 1) + math.comb(dj, k - 1))
                if self.triangles:
                    logit += self.triangles * int(a[i] @ a[j])
                if r < 1.0 / (1.0 + math.exp(-logit)):
                    a[i, j] = a[j, i] = 1

        for _ in range(int(burn_in)):
            sweep()
        out = []
        for _ in range(int(size)):
            for _ in range(int(thin)):
                sweep()
            src, dst = np.nonzero(np.triu(a, 1))
            out.append(Graph.from_edges(src, dst, num_nodes=n))
        return out


def ergm_statistics(graph: Graph, model: ERGM | None = None) -> dict[str, int]:
    """The sufficient statistics ``u(g)`` of a graph: edges, two-stars, triangles (and the model's k-stars)."""
    if not isinstance(graph, Graph):
        raise TypeError("graph must be an opendp_graph.Graph")
    deg = graph.degrees.astype(np.int64)
    a = graph.adjacency()
    a = a.astype(np.int64)
    tri = int(round((a @ a).multiply(a).sum() / 6)) if graph.num_edges else 0
    out = {"edges": int(graph.num_edges), "two_stars": int(comb(deg, 2, exact=False).sum().round()), "triangles": tri}
    if model is not None:
        for k in model.k_stars:
            out[f"star{k}"] = int(round(float(comb(deg, k).sum())))
    return out


def change_statistics(graph: Graph, i: int, j: int, model: ERGM | None = None) -> dict[str, int]:
    """``Δ(g, i, j) = u(g ∪ {i,j}) − u(g \\ {i,j})`` for the statistics of :func:`ergm_statistics`.

    >>> import opendp_graph as dpg
    >>> g = dpg.Graph.from_edges([0, 0, 1], [2, 3, 2], num_nodes=4)
    >>> change_statistics(g, 0, 1)
    {'edges': 1, 'two_stars': 3, 'triangles': 1}
    """
    if not isinstance(graph, Graph):
        raise TypeError("graph must be an opendp_graph.Graph")
    n = graph.num_nodes
    for v in (i, j):
        if isinstance(v, bool) or not isinstance(v, Integral) or not 0 <= v < n:
            raise ValueError(f"nodes must be integers in 0..{n - 1}, got {v!r}")
    if i == j:
        raise ValueError("i and j must differ")
    nbrs: list[set[int]] = [set(), set()]
    for s, d in zip(graph.src.tolist(), graph.dst.tolist()):
        for side, node in enumerate((i, j)):
            if s == node:
                nbrs[side].add(d)
            elif d == node:
                nbrs[side].add(s)
    ni, nj = nbrs[0] - {j}, nbrs[1] - {i}
    di, dj = len(ni), len(nj)
    out = {"edges": 1, "two_stars": di + dj, "triangles": len(ni & nj)}
    if model is not None:
        for k in model.k_stars:
            out[f"star{k}"] = int(comb(di, k - 1, exact=True) + comb(dj, k - 1, exact=True))
    return out


@dataclass(frozen=True)
class AlphaReport:
    """What :func:`ergm_alpha` found.

    ``alpha`` is the α of Lemma 4.1 / Corollary 4.2 to use (exact when ``exact`` is true, else the
    bound ``zeta + max|logit|`` or ``2·zeta``); ``upper_bound`` is the paper's simple bound
    ``sup |2βᵀΔ| = 2ζ``; ``zeta = sup |βᵀΔ|``; ``worst`` describes where the supremum sits.
    """

    alpha: float
    exact: bool
    upper_bound: float
    zeta: float
    worst: str
    note: str = ""
    num_nodes: int | None = None
    """The number of nodes of the model α was computed for: α depends on it (the sufficient
    statistics' change ranges grow with ``n``), so :func:`~opendp_graph.interpret.edge_secret_guarantee`
    refuses a measurement whose domain does not fix this ``num_nodes``."""

    def __str__(self) -> str:
        kind = "exact" if self.exact else "upper bound"
        s = f"α = {self.alpha:.6g} ({kind}); paper's bound 2ζ = {self.upper_bound:.6g}; {self.worst}"
        return s + (f"; {self.note}" if self.note else "")


def _zeta(model: ERGM) -> tuple[float, str]:
    n = int(model.num_nodes)
    top = n - 2
    if model.max_degree is not None:
        top = min(top, max(int(model.max_degree) - 1, -1))
    if top < 0:
        return 0.0, "no pair can be an edge under the degree cap"
    d = np.arange(top + 1)
    di, dj = np.meshgrid(d, d, indexing="ij")
    base = model.edges + np.zeros(di.shape)
    for k, v in model._star_coefficients().items():
        base = base + v * (comb(di, k - 1) + comb(dj, k - 1))
    t_lo = np.maximum(0, di + dj - (n - 2))
    t_hi = np.minimum(di, dj)
    best, where = -1.0, ""
    for t in (t_lo, t_hi):
        val = np.abs(base + model.triangles * t)
        idx = np.unravel_index(int(np.argmax(val)), val.shape)
        if val[idx] > best:
            best = float(val[idx])
            where = f"sup |βᵀΔ| at d_i={int(di[idx])}, d_j={int(dj[idx])}, common neighbours={int(t[idx])}"
    return best, where


def ergm_alpha(model: ERGM | int, *, exact: bool | None = None, **terms: Any) -> AlphaReport:
    """The α of Hehir, Niu & Slavković, Corollary 4.2, for an ERGM with edge-based statistics.

    :param model: an :class:`ERGM`, or the number of nodes followed by the coefficients as keywords
        (``edges=``, ``two_stars=``, ``triangles=``, ``k_stars=``, ``max_degree=``).
    :param exact: compute the exact supremum by enumerating all graphs (default: when
        ``num_nodes ≤ 7``); otherwise report the bound ``ζ + max |logit P(e)|`` with the logit
        bounded by ``ζ``, i.e. ``2ζ``.
    :return: :class:`AlphaReport`.

    **Guarantee.** Any ε-edge-DP mechanism is ``(ε + α)``-Pufferfish for edge secrets
    ``({i,j} ∈ E, {i,j} ∉ E)`` under this model (Lemma 4.1 with Eq. 2 verified through Eq. 3 and
    Bayes' theorem; paper §4.2).  Independent-edge models (only the ``edges`` term) give α = 0
    exactly (Theorem 4.1, Remark 2) although their ``2ζ`` bound is ``2|β_edges|``.

    >>> ergm_alpha(4, edges=-0.5).alpha
    0.0
    >>> r = ergm_alpha(5, edges=-1.0, triangles=0.4)
    >>> r.exact, r.alpha <= r.upper_bound
    (True, True)
    """
    if isinstance(model, ERGM):
        if terms:
            raise TypeError("pass either an ERGM or num_nodes with coefficients, not both")
    else:
        model = ERGM(model, **terms)
    n = int(model.num_nodes)
    zeta, where = _zeta(model)
    upper = 2 * zeta
    coeffs = model.coefficients()
    capped = model.max_degree is not None and int(model.max_degree) < n - 1
    if capped:
        return AlphaReport(
            alpha=math.inf,
            exact=True,
            upper_bound=math.inf,
            zeta=zeta,
            worst=where,
            num_nodes=n,
            note=(
                f"the degree cap {model.max_degree} < n − 1 = {n - 1} makes P(rest | edge) = 0 where "
                "P(rest | no edge) > 0 (a node already at the cap), so Eq. 2 fails: Lemma 4.1 gives no bound"
            ),
        )
    if set(coeffs) <= {"edges"}:
        return AlphaReport(0.0, True, upper, zeta, where, "independent edges: α = 0 (Theorem 4.1, Remark 2)", n)
    if exact is None:
        exact = n <= MAX_ENUMERATED_NODES
    if exact:
        if n > MAX_ENUMERATED_NODES:
            raise ValueError(f"exact α needs num_nodes <= {MAX_ENUMERATED_NODES}, got {n}")
        alpha, pair = model.distribution().lemma_alpha()
        return AlphaReport(alpha, True, upper, zeta, where, f"exact by enumeration of all graphs (attained at pair {pair})", n)
    return AlphaReport(upper, False, upper, zeta, where, "bound ζ + |logit P(e)| ≤ 2ζ (marginals not computed)", n)
