"""Baselines for node-level triangle and 2-star counts (benchmark only; not part of the package).

Written by us for the side-by-side benchmark of the package's node-level subgraph counts (R2T's LP
truncation). The algorithms follow the papers and the public code named below; none of that code
is copied. Every random draw comes from OpenDP measurements (``dp.enable_features("contrib")``):
Laplace (float and integer) and the Gumbel noisy max. Nothing here takes a seed.

Inputs: a :class:`opendp_graph.Graph`, or a tuple ``(src, dst)`` / ``(src, dst, num_nodes)`` of
undirected edge arrays. Patterns: ``"triangle"`` and ``"2-star"`` (a path ``a - c - b``, owned by
its three nodes); R2T's race and the LP projection take ``"4-cycle"`` too. The node-level programs are the package's
(:func:`~opendp_graph.transformations.subgraphs.capped_subgraph_count`: its copies listed with
numpy, its values kept per graph). Every release function takes an optional ``cache`` dict (one per
graph) that keeps what does not depend on the noise (``Q(τ)``, truncated counts, ladders), so
repeated releases pay for the data part once.

1. :func:`r2t` — Race-to-the-Top (Dong, Fang, Yi, Tao & Machanavajjhala, SIGMOD 2022, Section 5:
   "R2T" for self-join queries, the LP truncation of Section 5.1). Caps ``τ_j = b^j``,
   ``j = 1..k``, ``k = ⌊log_b GS_Q⌋`` (at least 1); each ``Q(τ_j)`` (the package's
   :func:`~opendp_graph.make_capped_subgraph_count`: ``max Σu``, ``0 ≤ u ≤ 1``,
   every node's records sum to at most ``τ``) is released as
   ``Q(τ_j) + Lap(k·τ_j/ε) − k·ln(k/β)·τ_j/ε`` and the output is the largest of these and
   ``Q(0) = 0``. ``β = 0.1`` as in the published runs (``Script/CollectResultsGraph.py``, ``-b 0.1``).
   Differences: the paper's base ``b = 2`` is the default; the public ``Code/R2T.py`` uses
   ``b = 5.5`` (its comment: "2e for its better practical performance") — pass ``base=5.5`` for
   it. Their code also starts the race from ``max_val = 0`` but returns ``Q̃(τ_1)`` (possibly
   negative) when no race entry is positive; we return ``max(0, …)`` as the paper states. LPs are
   solved exactly (scipy HiGHS, certified) instead of CPLEX with early stopping; ``Q(τ)`` is the
   same number. Their ``GS_Q`` for triangles and 2-stars on Deezer is ``1024²``
   (``max_degree = 1024``, ``q_pow = 2``): :func:`public_bound` returns ``D²`` the same way
   (for 2-stars the exact per-node bound with degree ``D`` is ``3·D(D−1)/2``; ``GS_Q`` only sets
   the range of caps, so privacy does not depend on it).
2. :func:`lp_projection` — the LP projection of Kasiviswanathan, Nissim, Raskhodnikova & Smith
   (TCC 2013, Section 5 "LP-based" / fractional truncation), as R2T evaluated it: ``Q(τ) +
   Lap(τ/ε)`` at one public cap ``τ``. R2T's ``Script/CollectResultsLP.py`` does not tune ``τ``:
   each run draws ``τ`` uniformly from ``{GS, GS/2, …, 2}`` (:func:`lp_caps`); the benchmark
   reports that protocol (all caps pooled) and each fixed cap. Difference: the LP is the same
   (``u ≤ 1`` per record, one constraint per node) solved by HiGHS instead of CPLEX.
3. :func:`naive_truncation_smooth` — R2T's "NT" baseline (``Code/NT.py``; naive truncation of
   Kasiviswanathan et al. TCC 2013, Section 6, with smooth sensitivity of Nissim, Raskhodnikova &
   Smith, STOC 2007). Variant, exactly as NT.py: delete every *edge* with an endpoint whose degree
   (in the input graph) exceeds ``θ`` (the nodes stay), count the pattern in what is left;
   restricted sensitivity ``RS(θ) = θ(θ−1)/2`` (triangles) or ``3θ(θ−1)/2`` (2-stars); local
   sensitivity of the truncation at distance ``i`` bounded by
   ``#{v : θ−i ≤ d_v ≤ θ+i+1} + i + 1``; ``S = RS(θ)·max_i e^{−βi}·(that)``. Differences: NT.py
   draws noise ``10·S/ε·Z`` with ``Z`` of density ``∝ 1/(1+z⁴)`` and ``β = ε/10`` (pure ε-DP);
   OpenDP has no such (nor a Cauchy) sampler, so we use the (ε, δ) Laplace form of smooth
   sensitivity (NRS 2007, Lemma 2.9 / Example 2): ``β = ε/(2·ln(2/δ))``, noise ``Lap(2S/ε)``,
   ``δ = 1e-6`` by default. NT.py maximises over ``i < max(max degree, θ)``; we take the max over
   all ``i ≥ 0`` (the tail is provably decreasing past the bound we scan) and count every node of
   the graph (NT.py counts the nodes that have an edge). R2T's ``CollectResultsNT.py`` draws
   ``θ`` uniformly from ``{1024, 512, …, 2}`` per run (Deezer); :func:`nt_thetas` gives that list.
4. Edge-level triangle baselines as DPGraph runs them (``Algorithms/edgeDP_subgraphCounting.py``):

   * :func:`triangle_ls_ladder` — local sensitivity at edge distance ``t`` of the triangle count,
     ``LS_0, LS_1, …`` up to the first value equal to ``GS = n−2``: the package's
     :func:`opendp_graph.measurements.triangle_sensitivity_ladder` (Nissim, Raskhodnikova & Smith
     2007, Section 3.2, with the floor; the maximum over pairs exact). DPGraph loops over all
     ``n²`` pairs and drops the floor, an upper bound that can break the Ladder's condition between
     neighbours.
   * the Ladder mechanism (Zhang, Cormode, Procopiuc, Srivastava & Xiao, SIGMOD 2015) is the
     package's :func:`opendp_graph.make_ladder_triangle_count`, the benchmark's edge-level row of
     ours. DPGraph runs the same algorithm with its upper-bound ladder, real-valued rung widths and
     a tail that starts one rung too far (``low = dst + ext·LS``).
   * :func:`smooth_sensitivity_triangles` — ``S = max_t e^{−βt} LS_t``. DPGraph: ``β = ε/6``,
     noise ``6S/ε`` times a standard Cauchy. OpenDP has no Cauchy: we use the (ε, δ) Laplace
     form (``β = ε/(2 ln(2/δ))``, ``Lap(2S/ε)``, ``δ = 1e-6`` by default).

:func:`_self_check` (run it by hand) compares ``LS_t`` with brute force on random 8-node graphs,
the record enumerations with the package's counter and NetworkX, and R2T at large ε with the truth.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import opendp.prelude as dp

from opendp_graph import Graph
from opendp_graph.measurements import triangle_sensitivity_ladder
from opendp_graph.transformations.subgraphs import capped_subgraph_count, subgraph_count
from opendp_graph.transformations.triangles import triangle_count

dp.enable_features("contrib")

__all__ = [
    "load_deezer_edges",
    "load_email_eu_core_edges",
    "pattern_count",
    "public_bound",
    "r2t_caps",
    "r2t",
    "lp_caps",
    "lp_projection",
    "nt_thetas",
    "naive_truncation_smooth",
    "naive_truncation_parts",
    "triangle_ls_ladder",
    "smooth_sensitivity_triangles",
    "smooth_sensitivity_scale",
]

PATTERNS = ("triangle", "2-star")
#: R2T's race and the LP projection need only a monotone capped count and a public bound: 4-cycles too
RACE_PATTERNS = PATTERNS + ("4-cycle",)


# ----------------------------------------------------------------------------- data and noise


def load_deezer_edges(country: str, folder: str | Path | None = None) -> Graph:
    """Deezer ``{country}`` (undirected) as a Graph: the package's loader."""
    from opendp_graph.datasets import load_deezer

    return load_deezer(folder, country=country)


def load_email_eu_core_edges(folder: str | Path | None = None) -> Graph:
    """email-Eu-core, undirected, self-loops dropped: the package's loader."""
    from opendp_graph.datasets import load_email_eu_core

    return load_email_eu_core(folder)


def _as_graph(g) -> Graph:
    if isinstance(g, Graph):
        return g
    if isinstance(g, tuple) and len(g) in (2, 3):
        src, dst = np.asarray(g[0]), np.asarray(g[1])
        keep = src != dst
        return Graph.from_edges(src[keep], dst[keep], num_nodes=g[2] if len(g) == 3 else None)
    raise TypeError("pass a Graph or a tuple (src, dst[, num_nodes]) of edge arrays")


def _check_pattern(pattern: str, allowed: tuple[str, ...] = PATTERNS) -> None:
    if pattern not in allowed:
        raise ValueError(f"pattern must be one of {allowed}, got {pattern!r}")


def _laplace(value: float, scale: float) -> float:
    """``value + Lap(scale)`` from OpenDP."""
    m = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=float(scale))
    return float(m(float(value)))


def _cached(cache: dict | None, key, compute):
    if cache is None:
        return compute()
    if key not in cache:
        cache[key] = compute()
    return cache[key]


# ----------------------------------------------------------------------------- records


def pattern_count(graph, pattern: str) -> int:
    """Exact number of occurrences (non-private)."""
    _check_pattern(pattern)
    return subgraph_count(_as_graph(graph), pattern)


def public_bound(pattern: str, max_degree: int) -> float:
    """R2T's ``GS_Q`` for a public degree bound ``D``: ``D²`` for triangles and 2-stars (their
    ``max_degree ** q_pow``, ``q_pow = 2``; Deezer: ``D = 1024``); ``D³`` for 4-cycles, the same
    form one node further (a node is in at most ``C(D, 2)·(D − 1) ≤ D³`` of them; R2T's published
    4-cycle runs are not in its public scripts, so this is our choice)."""
    _check_pattern(pattern, RACE_PATTERNS)
    return float(max_degree) ** (3 if pattern == "4-cycle" else 2)


def _truncated(graph, pattern: str, tau: float, cache: dict | None) -> float:
    """``Q(τ)``: the package's capped count (its values are kept per graph, so a benchmark's
    releases and baselines solve each cap once); ``cache`` may hold stand-ins (the 2-star rungs
    :mod:`benchmarks.subgraph_counts` bounds instead of solving)."""
    return _cached(cache, ("Q", pattern, float(tau)), lambda: capped_subgraph_count(_as_graph(graph), pattern, float(tau)))


# ----------------------------------------------------------------------------- 1. R2T


def r2t_caps(bound: float, base: float = 2.0) -> tuple[float, ...]:
    """``τ_j = base^j``, ``j = 1..k``, ``k = ⌊log_base(bound)⌋`` (raised to 2 when ≤ 1, as R2T.py)."""
    k = int(math.floor(math.log(bound, base) + 1e-9))
    if k <= 1:
        k += 1
    return tuple(float(base**j) for j in range(1, k + 1))


def r2t(graph, pattern: str, epsilon: float, bound: float, *, beta: float = 0.1, base: float = 2.0, cache: dict | None = None) -> float:
    """R2T's race (module docstring, 1): ``max(0, max_j Q(τ_j) + Lap(kτ_j/ε) − k ln(k/β) τ_j/ε)``.
    ``bound`` is the public ``GS_Q`` (:func:`public_bound`). ε-DP under node addition/removal."""
    _check_pattern(pattern, RACE_PATTERNS)
    caps = r2t_caps(bound, base)
    k = len(caps)
    best = 0.0
    for tau in caps:
        q = _truncated(graph, pattern, tau, cache)
        noisy = _laplace(q, k * tau / epsilon) - k * math.log(k / beta) * tau / epsilon
        best = max(best, noisy)
    return best


# ----------------------------------------------------------------------------- 2. LP projection


def lp_caps(bound: float) -> tuple[float, ...]:
    """R2T's caps for the LP baseline: ``GS, GS/2, …`` down to 2 (``CollectResultsLP.py``)."""
    caps, tau = [], float(bound)
    while tau >= 2:
        caps.append(tau)
        tau /= 2
    return tuple(caps)


def lp_projection(graph, pattern: str, epsilon: float, tau: float, *, cache: dict | None = None) -> float:
    """Kasiviswanathan et al.'s LP projection at the public cap ``tau``: ``Q(τ) + Lap(τ/ε)``."""
    _check_pattern(pattern, RACE_PATTERNS)
    return _laplace(_truncated(graph, pattern, tau, cache), float(tau) / epsilon)


# ----------------------------------------------------------------------------- 3. naive truncation


def nt_thetas(max_degree_bound: int = 1024) -> tuple[int, ...]:
    """R2T's truncation degrees for NT: ``D, D/2, …, 2`` (Deezer: 1024 … 2)."""
    out, t = [], int(max_degree_bound)
    while t >= 2:
        out.append(t)
        t //= 2
    return tuple(out)


def _restricted_sensitivity(pattern: str, theta: int) -> float:
    return theta * (theta - 1) / 2 if pattern == "triangle" else 3 * theta * (theta - 1) / 2


def _nt_parts(graph, pattern: str, theta: int, cache: dict | None) -> tuple[float, np.ndarray]:
    g = _as_graph(graph)

    def compute():
        d = g.degrees
        keep = (d[g.src] <= theta) & (d[g.dst] <= theta)
        t = Graph.from_arrays(g.src[keep], g.dst[keep], g.num_nodes)
        return float(pattern_count(t, pattern)), np.asarray(d)

    return _cached(cache, ("nt", pattern, int(theta)), compute)


def nt_smooth_sensitivity(degrees: np.ndarray, pattern: str, theta: int, beta: float) -> float:
    """``RS(θ)·max_{i≥0} e^{−βi}(#{v: θ−i ≤ d_v ≤ θ+i+1} + i + 1)`` (NT.py's bound, all ``i``)."""
    n = degrees.shape[0]
    dmax = int(degrees.max(initial=0))
    # past i0 = max(θ, dmax) the count is n and (n+i+1)e^{−βi} decreases once n+i+1 ≥ 1/β
    last = max(int(theta), dmax) + int(math.ceil(1.0 / beta)) + 1
    i = np.arange(last + 1)
    cum = np.concatenate([[0], np.cumsum(np.bincount(degrees, minlength=dmax + 1))])  # cum[k] = #{d < k}
    hi = np.clip(theta + i + 1, -1, dmax) + 1
    lo = np.clip(theta - i, 0, dmax + 1)
    count = cum[hi] - cum[lo]
    assert count[-1] == n
    return _restricted_sensitivity(pattern, theta) * float(np.max(np.exp(-beta * i) * (count + i + 1)))


def naive_truncation_smooth(graph, pattern: str, epsilon: float, theta: int, *, delta: float = 1e-6, cache: dict | None = None) -> float:
    """R2T's NT baseline (module docstring, 3): drop edges at nodes of degree > ``theta``, count,
    add ``Lap(2S/ε)`` with ``S`` the smooth bound at ``β = ε/(2 ln(2/δ))``. (ε, δ)-DP."""
    return _laplace(*naive_truncation_parts(graph, pattern, epsilon, theta, delta=delta, cache=cache))


def naive_truncation_parts(graph, pattern: str, epsilon: float, theta: int, *, delta: float = 1e-6, cache: dict | None = None) -> tuple[float, float]:
    """``(truncated count, Laplace scale 2S/ε)`` of :func:`naive_truncation_smooth` (its exact error
    is ``|count − truth + Laplace(scale)|``)."""
    _check_pattern(pattern)
    count, degrees = _nt_parts(graph, pattern, int(theta), cache)
    beta = epsilon / (2 * math.log(2 / delta))
    return count, 2 * nt_smooth_sensitivity(degrees, pattern, int(theta), beta) / epsilon


# ----------------------------------------------------------------------------- 4. edge level


def triangle_ls_ladder(graph, *, cache: dict | None = None) -> np.ndarray:
    """``LS_t`` (edge distance ``t``) of the triangle count for ``t = 0, 1, …`` up to the first
    ``t`` where it equals ``GS = n − 2`` (module docstring, 4; the package's exact ladder)."""
    g = _as_graph(graph)

    def compute():
        gs = max(g.num_nodes - 2, 0)
        ls = triangle_sensitivity_ladder(g, 2 * gs + 2)
        return ls[: int(np.argmax(ls >= gs)) + 1]

    return _cached(cache, "ls_ladder", compute)


def _true_triangles(graph, cache):
    return _cached(cache, ("count", "triangle"), lambda: float(triangle_count(_as_graph(graph))))


def smooth_sensitivity_triangles(graph, pattern: str, epsilon: float, *, delta: float = 1e-6, cache: dict | None = None) -> float:
    """Triangle count + ``Lap(2S/ε)``, ``S = max_t e^{−βt} LS_t``, ``β = ε/(2 ln(2/δ))``. (ε, δ)-DP (edge)."""
    if pattern != "triangle":
        raise ValueError("the edge-level baselines count triangles only")
    return _laplace(_true_triangles(graph, cache), smooth_sensitivity_scale(graph, epsilon, delta=delta, cache=cache))


def smooth_sensitivity_scale(graph, epsilon: float, *, delta: float = 1e-6, cache: dict | None = None) -> float:
    """The Laplace scale ``2S/ε`` of :func:`smooth_sensitivity_triangles`."""
    ladder = triangle_ls_ladder(graph, cache=cache)
    beta = epsilon / (2 * math.log(2 / delta))
    return 2 * float(np.max(ladder * np.exp(-beta * np.arange(ladder.shape[0])))) / epsilon


# ----------------------------------------------------------------------------- self check


def _brute_ls(adj: np.ndarray, t: int) -> int:
    """Brute force of NRS's ``LS^(t)(G) = max_{G': d(G, G') ≤ t} LS(G')`` for the triangle count."""
    import itertools

    n = adj.shape[0]
    pairs = list(itertools.combinations(range(n), 2))

    def ls(m):
        tri = lambda mm: int(np.trace(mm @ mm @ mm)) // 6
        base = tri(m)
        best = 0
        for i, j in pairs:
            m2 = m.copy()
            m2[i, j] = m2[j, i] = 1 - m2[i, j]
            best = max(best, abs(tri(m2) - base))
        return best

    best = 0
    for s in range(t + 1):
        for flips in itertools.combinations(pairs, s):
            m = adj.copy()
            for i, j in flips:
                m[i, j] = m[j, i] = 1 - m[i, j]
            best = max(best, ls(m))
    return best


def _self_check() -> None:
    import time

    import networkx as nx

    import opendp_graph as dpg
    from opendp_graph import make_ladder_triangle_count

    # 1. LS_t against brute force on random 8-node graphs (t = 0, 1, 2)
    for trial in range(12):
        h = nx.gnp_random_graph(8, 0.2 + 0.05 * trial, seed=trial)
        adj = nx.to_numpy_array(h, dtype=np.int64)
        e = np.array(list(h.edges()), dtype=np.int64).reshape(-1, 2)
        g = Graph.from_edges(e[:, 0], e[:, 1], num_nodes=8)
        ladder = triangle_ls_ladder(g)
        full = np.concatenate([ladder, np.full(3, ladder[-1])])
        for t in range(3):
            assert full[t] == _brute_ls(adj, t), (trial, t, full[:3])
    print("LS_t matches brute force on 12 random 8-node graphs, t = 0..2")

    # 2. the records are the package's (tests/transformations/test_subgraphs.py checks them)

    # 3. email-Eu-core: R2T near the truth at large ε (triangles: its 2-star LPs take minutes per cap)
    g = load_email_eu_core_edges()
    cache: dict = {}
    truth = pattern_count(g, "triangle")
    start = time.perf_counter()
    outs = [r2t(g, "triangle", 100.0, public_bound("triangle", 1024), cache=cache) for _ in range(5)]
    print(f"email-Eu-core triangles: truth {truth}, R2T at ε=100: {[round(o) for o in outs]} ({time.perf_counter() - start:.1f} s)")
    assert all(abs(o - truth) / truth < 0.1 for o in outs)
    outs = [r2t(g, "triangle", 1.0, public_bound("triangle", 1024), cache=cache) for _ in range(9)]
    print(f"   R2T at ε=1: median relative error {np.median(np.abs(np.array(outs) - truth)) / truth:.3f}")
    print("   LP τ=512, ε=100:", round(lp_projection(g, "triangle", 100.0, 512, cache=cache)), "(Q(512) =", cache[("Q", "triangle", 512.0)], ")")
    for pattern in PATTERNS:
        print(f"   NT {pattern} θ=64, ε=100:", round(naive_truncation_smooth(g, pattern, 100.0, 64, cache=cache)),
              "truncated count", cache[("nt", pattern, 64)][0], "truth", pattern_count(g, pattern))
    dp.enable_features("honest-but-curious")  # the package's graph domain is a user domain
    ladder_release = make_ladder_triangle_count(dpg.graph_domain(), dpg.edge_distance(), dp.loss_of(epsilon=1.0))
    lad = [ladder_release(g) for _ in range(9)]
    smo = [smooth_sensitivity_triangles(g, "triangle", 1.0, cache=cache) for _ in range(9)]
    print("   LS_0..3:", triangle_ls_ladder(g, cache=cache)[:4], "ladder length", triangle_ls_ladder(g, cache=cache).shape[0])
    print(f"   ε=1 median relative error: ladder {np.median(np.abs(np.array(lad) - truth)) / truth:.4f},"
          f" smooth {np.median(np.abs(np.array(smo) - truth)) / truth:.4f}")
