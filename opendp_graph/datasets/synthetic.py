"""Synthetic labelled graphs with heavy-tailed degrees and a *known* neighbour correlation.

Real organisational graphs are too few and too small to test how the correlation models of
Shafieinejad et al. (paper 001, §4.3) behave at scale, and a fitted ``p0``/``p1`` can only be
checked against the truth on data whose truth is known. :func:`synthetic_labeled_graph` draws
such data, deterministically from a seed, with every step vectorised in numpy (no Python loop
over edges or nodes; one loop over properties), so that 10 million edges and 30 million
(edge, property) pairs take well under a minute.

**Structure** (:func:`power_law_graph`): a Chung–Lu graph. Node ``i`` (before a random
relabelling) has weight ``w_i = ∫_i^{i+1} (x + 1)^(-1/(γ-1)) dx ≈ (i + 1.5)^(-1/(γ-1))``, so expected degrees follow a power law
``Pr(deg ≥ k) ∝ k^-(γ-1)`` with exponent ``γ = degree_exponent``; endpoint pairs are drawn
independently with probabilities ``∝ w_u·w_v``, self-loops are discarded and the first
``num_edges`` *distinct* pairs in drawing order are kept (so the graph is simple and has exactly
``num_edges`` edges). Node indices are then randomly permuted, so the hubs are not nodes 0, 1, …

**Labels** (a latent "member" model, one independent copy per property ``a``):

* every node is a *member* of ``a`` independently with probability ``π_a``;
* every member *tags* each of its incident edges independently with probability ``t``;
* every edge also receives ``a`` independently with probability ``b_a = β·π_a·t`` (background);
* an edge has ``a`` iff it was tagged by an endpoint or by the background.

Properties are heavy-tailed too: ``π_a = min(1, C·(a+1)^-s)`` with ``s = property_exponent``,
and ``C`` solved so that the expected number of properties per edge equals ``labels_per_edge``.
The parameters tune the correlation: a larger ``t`` or a smaller ``β`` makes a neighbour of an
edge with ``a`` more likely to carry ``a`` too; ``t → 0`` with ``β·t`` fixed makes the edges
independent (each property on each edge with probability ``ρ_a``).

*Pooling caveat.* Even independent edges have pooled ``p1 > p0`` when property frequencies
differ: pooled over properties, ``p1 → Σ ρ_a² / Σ ρ_a`` (weighted towards frequent properties)
while ``p0 → Σ ρ_a(1 − ρ_a) / Σ (1 − ρ_a)`` (about the mean frequency). Only with equal
frequencies (``property_exponent=0``) does independence give ``p0 = p1``. So part of a pooled
``p1/p0`` ratio, on real data too, measures how unequal the property frequencies are, not how
correlated neighbouring edges are.

**The truth.** Structure and labels are drawn independently, and two adjacent edges
``e = uv``, ``f = uw`` (``v ≠ w``: the graph is simple) share only the latent state ``Z`` of
``u``; given ``Z``, their labels are independent, each present with probability

    ``g_a(Z) = 1 − (1 − b_a)·(1 − t)^Z·(1 − π_a·t)``

(not background, not tagged by ``u``, not tagged by the other endpoint, member or not). So for
*every* ordered pair of adjacent edges, ``Pr(X_e = i, X_f = j)`` is the same, and pooling over
properties and over all ordered pairs of adjacent edges, as the Binomial model does,

    ``p1 = Σ_a E[g_a²] / Σ_a E[g_a]``,  ``p0 = Σ_a E[g_a(1 − g_a)] / Σ_a E[1 − g_a]``,

with ``E`` over ``Z ~ Bernoulli(π_a)``. (As every adjacent pair has the same conditional law, the
per-edge estimator ``mean(neighbours with a / neighbours)`` has the same limit.) These are the
``p0``, ``p1`` of :class:`SyntheticGraph`; :func:`label_correlation` computes them for any
parameters. They are *population* values: a fitted ``p0``/``p1`` differs by sampling error,
which heavy tails make larger (a hub's neighbourhood is one big correlated sample).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.optimize import brentq

from ..core._checks import integer_at_least
from ..core.graph import Graph

__all__ = ["SyntheticGraph", "synthetic_labeled_graph", "power_law_graph", "label_correlation", "member_probabilities"]


# --------------------------------------------------------------------------- argument checks
def _real_arg(name: str, value: Any, low: float, high: float, *, open_low: bool = False, open_high: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    x = float(value)
    if not math.isfinite(x) or x < low or x > high or (open_low and x == low) or (open_high and x == high):
        lo_b, hi_b = "(" if open_low else "[", ")" if open_high else "]"
        raise ValueError(f"{name} must lie in {lo_b}{low}, {high}{hi_b}, got {value!r}")
    return x


def _rng(seed: Any) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, bool) or not isinstance(seed, Integral) or seed < 0:
        raise TypeError(f"seed must be a non-negative integer (the generator is deterministic given it), got {seed!r}")
    return np.random.default_rng(int(seed))


# --------------------------------------------------------------------------- structure
def _bernoulli_positions(rng: np.random.Generator, size: int, p: float) -> np.ndarray:
    """Sorted positions in ``0..size-1`` of independent Bernoulli(``p``) successes, in ``O(successes)``.

    The gaps between successes of a Bernoulli sequence are independent geometric variables, so
    the cumulative sums of geometric draws are exactly the success positions.
    """
    if size <= 0 or p <= 0.0:
        return np.zeros(0, dtype=np.int64)
    if p >= 1.0:
        return np.arange(size, dtype=np.int64)
    pieces = []
    last = -1
    while True:
        expected = (size - 1 - last) * p
        batch = int(expected + 6.0 * math.sqrt(expected) + 16)
        pos = last + np.cumsum(rng.geometric(p, size=batch))
        if pos[-1] >= size:
            pieces.append(pos[pos < size])
            break
        pieces.append(pos)
        last = int(pos[-1])
    return np.concatenate(pieces)


def power_law_graph(num_edges: int, *, num_nodes: int | None = None, degree_exponent: float = 2.5, seed: Any = 0) -> Graph:
    """A simple Chung–Lu graph with exactly ``num_edges`` edges and power-law expected degrees.

    :param num_edges: number of distinct undirected edges.
    :param num_nodes: number of nodes; default ``max(16, num_edges // 4)`` (average degree ≈ 8).
    :param degree_exponent: ``γ > 2``; the expected-degree sequence has ``Pr(deg ≥ k) ∝ k^-(γ-1)``.
        Smaller ``γ`` gives heavier tails (bigger hubs).
    :param seed: a non-negative integer (or a ``numpy.random.Generator``); same seed, same graph.
    :raises ValueError: if the graph cannot hold ``num_edges`` edges.

    :example:

    >>> import opendp_graph as dpg
    >>> g = dpg.datasets.power_law_graph(1000, num_nodes=300, seed=1)
    >>> g.num_edges, g.num_nodes
    (1000, 300)
    >>> g == dpg.datasets.power_law_graph(1000, num_nodes=300, seed=1)
    True
    """
    m = integer_at_least("num_edges", num_edges, 0)
    n = max(16, m // 4) if num_nodes is None else integer_at_least("num_nodes", num_nodes, 1)
    gamma = _real_arg("degree_exponent", degree_exponent, 2.0, math.inf, open_low=True)
    rng = _rng(seed)
    if m > n * (n - 1) // 4:
        raise ValueError(f"{m} edges on {n} nodes is more than a quarter of all pairs; a sparse heavy-tailed graph needs more nodes")
    # Inverse-CDF sampling from the density ∝ (x + 1)^-α on [0, n), α = 1/(γ−1) < 1; the node is
    # floor(x), so node i has weight ∫_i^{i+1} (x + 1)^-α dx (≈ (i + 1.5)^-α): a power law.
    one_minus_alpha = 1.0 - 1.0 / (gamma - 1.0)
    top = (n + 1.0) ** one_minus_alpha - 1.0

    def endpoints(size: int) -> np.ndarray:
        x = (1.0 + rng.random(size) * top) ** (1.0 / one_minus_alpha) - 1.0
        return np.minimum(x.astype(np.int64), n - 1)

    keys = np.zeros(0, dtype=np.int64)
    first = np.zeros(0, dtype=np.int64)
    drawn = 0
    for _ in range(200):
        if first.size >= m:
            break
        batch = max(int((m - first.size) * 1.15) + 64, 1024)
        u, v = endpoints(batch), endpoints(batch)
        ok = u != v
        u, v = u[ok], v[ok]
        new = np.minimum(u, v) * np.int64(n) + np.maximum(u, v)
        keys = np.concatenate([keys, new])
        drawn += batch
        # first occurrence of each distinct pair, in drawing order
        _, first = np.unique(keys, return_index=True)
        first.sort()
    else:  # pragma: no cover - only for absurd parameters
        raise ValueError(f"could not draw {m} distinct edges on {n} nodes (γ={gamma}); use more nodes")
    chosen = keys[first[:m]]
    perm = rng.permutation(n).astype(np.int64)
    src, dst = perm[chosen // n], perm[chosen % n]
    return Graph.from_arrays(src, dst, n)


# --------------------------------------------------------------------------- label model
def _edge_probabilities(member_prob: np.ndarray, tag_prob: float, background: float):
    """``g_a(0)``, ``g_a(1)`` and the background rate ``b_a`` for every property."""
    pt = member_prob * tag_prob
    b = np.minimum(background * pt, 1.0)
    g0 = 1.0 - (1.0 - b) * (1.0 - pt)
    g1 = 1.0 - (1.0 - b) * (1.0 - tag_prob) * (1.0 - pt)
    return g0, g1, b


def label_correlation(member_prob: Any, tag_prob: float, background: float = 0.0) -> tuple[float, float]:
    """The true pooled ``(p0, p1)`` of the member model (see the module docstring).

    ``p1 = Σ_a E[g_a²] / Σ_a E[g_a]`` and ``p0 = Σ_a E[g_a(1−g_a)] / Σ_a E[1−g_a]`` with
    ``g_a(Z) = 1 − (1−b_a)(1−t)^Z(1−π_a t)``, ``Z ~ Bernoulli(π_a)``, ``b_a = min(1, β π_a t)``.

    :param member_prob: ``π_a`` for every property (array-like of values in ``[0, 1]``).
    :param tag_prob: ``t`` in ``[0, 1]``.
    :param background: ``β ≥ 0``.

    >>> p0, p1 = label_correlation([0.1], tag_prob=0.0)
    >>> p0, p1
    (0.0, nan)
    >>> p0, p1 = label_correlation([1.0], tag_prob=0.5)   # everyone a member: independent edges
    >>> round(p0, 12), round(p1, 12)
    (0.75, 0.75)
    """
    pi = np.asarray(member_prob, dtype=np.float64).reshape(-1)
    if pi.size == 0 or not np.all((pi >= 0) & (pi <= 1)):
        raise ValueError("member_prob must be a non-empty array of probabilities")
    t = _real_arg("tag_prob", tag_prob, 0.0, 1.0)
    beta = _real_arg("background", background, 0.0, math.inf)
    g0, g1, _ = _edge_probabilities(pi, t, beta)
    e_g = (1 - pi) * g0 + pi * g1
    e_g2 = (1 - pi) * g0**2 + pi * g1**2
    num1, den1 = float(e_g2.sum()), float(e_g.sum())
    num0, den0 = float((e_g - e_g2).sum()), float((1.0 - e_g).sum())
    p1 = num1 / den1 if den1 > 0 else math.nan
    p0 = num0 / den0 if den0 > 0 else math.nan
    return p0, p1


def _expected_labels_per_edge(pi: np.ndarray, tag_prob: float, background: float) -> float:
    g0, g1, _ = _edge_probabilities(pi, tag_prob, background)
    return float(((1 - pi) * g0 + pi * g1).sum())


def member_probabilities(
    num_properties: int, labels_per_edge: float, *, tag_prob: float, background: float = 0.0, property_exponent: float = 1.0
) -> np.ndarray:
    """``π_a = min(1, C·(a+1)^-s)`` with ``C`` solved so that an edge has ``labels_per_edge``
    properties on average (``Σ_a Pr(X_e^a = 1)``).

    >>> pi = member_probabilities(50, 2.0, tag_prob=0.5)
    >>> bool(pi[0] > pi[-1]), round(float(_expected_labels_per_edge(pi, 0.5, 0.0)), 9)
    (True, 2.0)
    """
    p = integer_at_least("num_properties", num_properties, 1)
    target = _real_arg("labels_per_edge", labels_per_edge, 0.0, math.inf, open_low=True)
    t = _real_arg("tag_prob", tag_prob, 0.0, 1.0, open_low=True)
    beta = _real_arg("background", background, 0.0, math.inf)
    s = _real_arg("property_exponent", property_exponent, 0.0, math.inf)
    shape = np.arange(1, p + 1, dtype=np.float64) ** (-s)

    def excess(c: float) -> float:
        return _expected_labels_per_edge(np.minimum(1.0, c * shape), t, beta) - target

    c_max = 1.0 / shape[-1]  # every π_a = 1
    if excess(c_max) < 0:
        raise ValueError(
            f"labels_per_edge={target} is unreachable with {p} properties, tag_prob={t}, background={beta} "
            f"(at most {excess(c_max) + target:.3f}); add properties or raise tag_prob"
        )
    c = brentq(excess, 0.0, c_max, xtol=1e-15, rtol=1e-13, maxiter=500)
    return np.minimum(1.0, c * shape)


@dataclass(frozen=True)
class SyntheticGraph:
    """A synthetic labelled graph together with the parameters and true correlation it was drawn with.

    ``p0 = Pr(a neighbour edge has a | the edge lacks a)`` and
    ``p1 = Pr(a neighbour edge has a | the edge has a)``, pooled over properties and ordered pairs
    of adjacent edges, are *population* values of the model (module docstring), not fitted ones.
    """

    graph: Graph
    p0: float
    p1: float
    member_prob: np.ndarray = field(repr=False)
    tag_prob: float
    background: float
    degree_exponent: float
    seed: int | None

    @property
    def expected_labels_per_edge(self) -> float:
        return _expected_labels_per_edge(self.member_prob, self.tag_prob, self.background)


def _incident_edges(graph: Graph) -> tuple[np.ndarray, np.ndarray]:
    """CSR of node → incident edge ids: ``(indptr, edge_ids)``."""
    e = graph.num_edges
    ends = np.concatenate([graph.src, graph.dst])
    order = np.argsort(ends, kind="stable")
    edge_ids = order % e if e else order
    indptr = np.zeros(graph.num_nodes + 1, dtype=np.int64)
    np.cumsum(graph.degrees, out=indptr[1:])
    return indptr, edge_ids


def _gather(indptr: np.ndarray, values: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """Concatenation of ``values[indptr[x]:indptr[x+1]]`` over ``nodes``, vectorised."""
    starts, stops = indptr[nodes], indptr[nodes + 1]
    lengths = stops - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=values.dtype)
    offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    return values[offsets + np.arange(total, dtype=np.int64)]


def _property_names(p: int) -> list[str]:
    width = len(str(max(p - 1, 0)))
    return [f"p{a:0{width}d}" for a in range(p)]


def synthetic_labeled_graph(
    num_edges: int,
    *,
    num_nodes: int | None = None,
    degree_exponent: float = 2.5,
    num_properties: int = 100,
    labels_per_edge: float = 3.0,
    tag_prob: float = 0.5,
    background: float = 0.25,
    property_exponent: float = 1.0,
    seed: Any = 0,
) -> SyntheticGraph:
    """A heavy-tailed graph whose edges carry correlated properties with known ``p0`` and ``p1``.

    See the module docstring for the model and the proof of ``p0``/``p1``.

    :param num_edges: exact number of edges (structure from :func:`power_law_graph`).
    :param num_nodes: default ``max(16, num_edges // 4)``.
    :param degree_exponent: power-law exponent ``γ > 2`` of the expected degrees.
    :param num_properties: size of the vocabulary (names ``p0…``, zero-padded so they sort in
        frequency order: ``p0`` is the most frequent).
    :param labels_per_edge: expected number of properties per edge (so about
        ``labels_per_edge · num_edges`` (edge, property) pairs).
    :param tag_prob: ``t``, the probability that a member endpoint tags an incident edge.
    :param background: ``β``; each edge gets ``a`` at random with probability ``β·π_a·t``.
    :param property_exponent: ``s`` in ``π_a ∝ (a+1)^-s`` (Zipf-like property frequencies).
    :param seed: a non-negative integer; the same arguments and seed give the same graph.
    :return: a :class:`SyntheticGraph` (``.graph``, ``.p0``, ``.p1``, parameters).

    :example:

    >>> import opendp_graph as dpg
    >>> syn = dpg.datasets.synthetic_labeled_graph(2000, num_properties=20, seed=7)
    >>> syn.graph
    Graph(num_nodes=500, num_edges=2000, labeled=True)
    >>> round(syn.p0, 4), round(syn.p1, 4)
    (0.1004, 0.4312)
    """
    m = integer_at_least("num_edges", num_edges, 0)
    pi = member_probabilities(num_properties, labels_per_edge, tag_prob=tag_prob, background=background, property_exponent=property_exponent)
    t, beta = float(tag_prob), float(background)
    if num_nodes is not None:
        integer_at_least("num_nodes", num_nodes, 1)
    rng = _rng(seed)
    structure = power_law_graph(m, num_nodes=num_nodes, degree_exponent=degree_exponent, seed=rng)
    n, e = structure.num_nodes, structure.num_edges
    indptr, incident = _incident_edges(structure)
    _, _, b = _edge_probabilities(pi, t, beta)

    rows_parts: list[np.ndarray] = []
    cols_parts: list[np.ndarray] = []
    for a in range(pi.size):  # one iteration per property; everything inside is vectorised
        members = _bernoulli_positions(rng, n, float(pi[a]))
        candidates = _gather(indptr, incident, members)
        tagged = candidates[rng.random(candidates.size) < t]
        noise = _bernoulli_positions(rng, e, float(b[a]))
        # an edge tagged twice (both endpoints, or tag and background) is merged by from_arrays
        edges = np.concatenate([tagged, noise])
        rows_parts.append(edges)
        cols_parts.append(np.full(edges.size, a, dtype=np.int32))
    rows = np.concatenate(rows_parts) if rows_parts else np.zeros(0, dtype=np.int64)
    cols = np.concatenate(cols_parts) if cols_parts else np.zeros(0, dtype=np.int32)
    del rows_parts, cols_parts
    matrix = sp.coo_array((np.ones(rows.size, dtype=bool), (rows, cols)), shape=(e, pi.size))
    del rows, cols
    graph = Graph.from_arrays(structure.src, structure.dst, n, label_matrix=matrix, vocabulary=_property_names(pi.size))
    p0, p1 = label_correlation(pi, t, beta)
    return SyntheticGraph(
        graph=graph,
        p0=p0,
        p1=p1,
        member_prob=pi,
        tag_prob=t,
        background=beta,
        degree_exponent=float(degree_exponent),
        seed=int(seed) if isinstance(seed, Integral) else None,
    )
