"""Subgraph counts at node level: triangles, k-stars and 4-cycles as records owned by their nodes.

A copy of a small pattern in a graph (a triangle, a ``k``-star, a 4-cycle) involves a few nodes,
and removing or rewiring one of them can destroy every copy it is part of: one node closes up to
``C(d, 2)`` triangles, so the exact count has no useful node-level sensitivity. Here each copy is a
**record owned by its nodes**, and the count is replaced by the *capped count* ``Q(G, τ)``: the
largest number of copies, each taken fractionally, such that no node holds more than ``τ``
(:func:`~opendp_graph.transformations._multi_owner.truncated_total`; the linear program of
Kasiviswanathan, Nissim, Raskhodnikova & Smith, TCC 2013, as R2T uses it: Dong, Fang, Yi, Tao &
Machanavajjhala, SIGMOD 2022, §3 and Lemma 3.2). ``Q(G, τ)`` equals the count when no node is in
more than ``τ`` copies, never exceeds it, and moves by at most ``τ`` per node
(:func:`make_capped_subgraph_count` proves it under each neighbour notion).

Patterns (:data:`PATTERNS`; :func:`subgraph_records` lists their copies, :func:`subgraph_count`
counts them exactly):

* ``"triangle"``: three nodes, pairwise adjacent; owners: the three.
* ``"k-star"`` for ``k = 2, 3, …`` (``"2-star"``: a path of length two): a centre and ``k`` of its
  neighbours; owners: the ``k + 1`` nodes. A node of degree ``d`` centres ``C(d, k)`` of them.
* ``"4-cycle"``: ``a–b–c–d–a`` (not necessarily induced); owners: the four.

Copies are listed with numpy (no Python loop per copy): triangles by the degree ordering of
:func:`~opendp_graph.transformations.triangles.triangle_count`, stars as combinations within each
neighbourhood, 4-cycles from the pairs of 2-paths that share their ends.
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any

import numpy as np
import opendp.prelude as dp

from ..core._checks import positive_finite
from ..core.graph import Graph
from ..core.metrics import EdgeDistance, EdgeLabelDistance, GroupDistance, NodeDistance, NodeInsertionDistance, integer_d_in
from ._core import make_graph_transformation, then
from ._multi_owner import LP_TOLERANCE, SMALLEST_CAP, refusing_out_of_memory, truncated_total
from .rules import stability_rule
from .triangles import degree_oriented_edges, triangle_count

__all__ = [
    "PATTERNS",
    "subgraph_records",
    "subgraph_count",
    "capped_subgraph_count",
    "make_capped_subgraph_count",
    "then_capped_subgraph_count",
]

#: The patterns, as their names are written (``k ≥ 2``: a 1-star is an edge, counted from both ends).
PATTERNS = ("triangle", "k-star", "4-cycle")

#: The largest ``k`` of a ``k``-star: listing takes ``k`` passes, and a node of degree ``d`` centres
#: ``C(d, k)`` copies (no graph that fits in memory has many stars of more leaves).
MAX_STAR_LEAVES = 64

_STAR = re.compile(r"([2-9]|[1-9][0-9]+)-star")


def pattern_name(pattern: Any) -> str:
    """``pattern`` checked: ``"triangle"``, ``"4-cycle"`` or ``"<k>-star"`` (``k ≥ 2``)."""
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a string such as 'triangle', '2-star' or '4-cycle', got {pattern!r}")
    star = _STAR.fullmatch(pattern)
    if star and int(star.group(1)) > MAX_STAR_LEAVES:
        raise ValueError(f"k-stars are offered for k up to {MAX_STAR_LEAVES} (listing takes k passes), got {pattern!r}")
    if pattern in ("triangle", "4-cycle") or star:
        return pattern
    raise ValueError(f"unknown pattern {pattern!r}: use 'triangle', '<k>-star' for k = 2, 3, … (e.g. '2-star') or '4-cycle' (edges: make_edge_count)")


def _pattern_size(pattern: str) -> int:
    """How many nodes one copy has (its owners)."""
    star = _STAR.fullmatch(pattern)
    if star:
        return int(star.group(1)) + 1
    return 3 if pattern == "triangle" else 4


# ---------------------------------------------------------------------------------------------
# Listing copies
# ---------------------------------------------------------------------------------------------


def _combinations_within_groups(indptr: np.ndarray, k: int) -> np.ndarray:
    """Every increasing ``k``-tuple of positions inside one group of a CSR layout, as a ``(·, k)``
    array of positions (groups ``indptr[i]:indptr[i+1]``), built column by column: a tuple ending at
    position ``p`` of a group extends with each later position of that group."""
    sizes = np.diff(indptr)
    total = int(indptr[-1])
    group_end = np.repeat(indptr[1:], sizes)  # one past the last position of each position's group
    tuples = np.arange(total, dtype=np.int64)[:, None]
    for _ in range(k - 1):
        last = tuples[:, -1]
        later = group_end[last] - last - 1
        base = np.repeat(np.arange(tuples.shape[0]), later)
        starts = np.cumsum(later) - later
        step = np.arange(base.shape[0], dtype=np.int64) - np.repeat(starts, later) + 1
        tuples = np.column_stack([tuples[base], tuples[base, -1] + step])
    return tuples


def _neighbours(graph: Graph) -> tuple[np.ndarray, np.ndarray]:
    """Each node's neighbours in increasing order, CSR (``indptr``, ``neighbours``)."""
    adjacency = graph.adjacency()
    return adjacency.indptr.astype(np.int64), adjacency.indices.astype(np.int64)


def _has_edges(graph: Graph, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Whether each ``(u[i], v[i])`` is an edge (``graph.edge_keys`` are sorted ``src·n + dst``)."""
    keys = graph.edge_keys
    query = np.minimum(u, v) * graph.num_nodes + np.maximum(u, v)
    at = np.searchsorted(keys, query)
    found = at < keys.shape[0]
    found[found] = keys[at[found]] == query[found]
    return found


def _triangles(graph: Graph) -> np.ndarray:
    n = graph.num_nodes
    low, high, rank = degree_oriented_edges(graph)
    order = np.lexsort((rank[high], low))
    low, high = low[order], high[order]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(low, minlength=n), out=indptr[1:])
    pairs = _combinations_within_groups(indptr, 2)
    a, b, c = low[pairs[:, 0]], high[pairs[:, 0]], high[pairs[:, 1]]
    closed = _has_edges(graph, b, c)
    return np.column_stack([a[closed], b[closed], c[closed]])


def _stars(graph: Graph, k: int) -> np.ndarray:
    indptr, neighbours = _neighbours(graph)
    leaves = _combinations_within_groups(indptr, k)
    centre = np.repeat(np.arange(graph.num_nodes, dtype=np.int64), np.diff(indptr))[leaves[:, 0]]
    return np.column_stack([centre, neighbours[leaves]])


def _two_paths(graph: Graph, *, lowest_end_below_centre: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The 2-paths ``x–w–y`` with ``x < y`` (as ``(x, w, y)``), optionally only those with ``x < w``:
    the 2-stars, centre ``w`` (leaves in increasing order: neighbours are sorted)."""
    centre, x, y = _stars(graph, 2).T
    if lowest_end_below_centre:
        keep = x < centre
        x, centre, y = x[keep], centre[keep], y[keep]
    return x, centre, y


def _four_cycles(graph: Graph) -> np.ndarray:
    # a 4-cycle a–b–c–d–a, a its smallest node, is two 2-paths a–b–c and a–d–c with b < d whose
    # centres are above a: grouping those 2-paths by their ends (a, c) lists each cycle once
    x, w, y = _two_paths(graph, lowest_end_below_centre=True)
    order = np.lexsort((w, y, x))
    x, w, y = x[order], w[order], y[order]
    key = x * graph.num_nodes + y
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if key.size else np.zeros(0, dtype=np.int64)
    indptr = np.r_[starts, key.shape[0]].astype(np.int64)
    pairs = _combinations_within_groups(indptr, 2)
    return np.column_stack([x[pairs[:, 0]], w[pairs[:, 0]], y[pairs[:, 0]], w[pairs[:, 1]]])


def subgraph_records(graph: Graph, pattern: str) -> np.ndarray:
    """Every copy of ``pattern`` in ``graph``, one row of its nodes each (``(copies, size)``,
    ``int64``; node indices of the graph). Non-private: the input of the capped count.

    >>> import opendp_graph as dpg
    >>> g = dpg.Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 3])
    >>> subgraph_records(g, "triangle").tolist()
    [[0, 1, 2]]
    >>> len(subgraph_records(g, "2-star"))  # C(2,2) + C(2,2) + C(3,2) + C(1,2)
    5
    """
    if not isinstance(graph, Graph):
        raise TypeError(f"graph must be an opendp_graph.Graph, got {type(graph).__name__}")
    pattern = pattern_name(pattern)
    size = _pattern_size(pattern)
    if graph.num_edges == 0:
        return np.zeros((0, size), dtype=np.int64)
    return _listed(graph, pattern, size)


def _copies_of(graph: Graph, pattern: str, *rest: Any) -> str:
    return f"the copies of {pattern!r} in this graph"


# numpy's message names the array's shape, that is the number of copies (red team); listing them
# fails with ValueError or OverflowError too when the size overflows
@refusing_out_of_memory(_copies_of, errors=(MemoryError, ValueError, OverflowError))
def _listed(graph: Graph, pattern: str, size: int) -> np.ndarray:
    if pattern == "triangle":
        return _triangles(graph)
    if pattern == "4-cycle":
        return _four_cycles(graph)
    return _stars(graph, size - 1)


def subgraph_count(graph: Graph, pattern: str) -> int:
    """The exact number of copies of ``pattern`` (non-private; the truth beside a release).

    >>> import opendp_graph as dpg
    >>> g = dpg.Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 0])
    >>> subgraph_count(g, "4-cycle"), subgraph_count(g, "2-star"), subgraph_count(g, "triangle")
    (1, 4, 0)
    """
    if not isinstance(graph, Graph):
        raise TypeError(f"graph must be an opendp_graph.Graph, got {type(graph).__name__}")
    pattern = pattern_name(pattern)
    star = _STAR.fullmatch(pattern)
    if star:
        k = int(star.group(1))
        return int(sum(math.comb(int(d), k) for d in graph.degrees.tolist()))
    if pattern == "triangle":
        return triangle_count(graph)
    # each 4-cycle has two diagonals, each the ends of two of its 2-paths
    x, _, y = _two_paths(graph, lowest_end_below_centre=False)
    _, paths_per_ends = np.unique(x * graph.num_nodes + y, return_counts=True)
    return int((paths_per_ends * (paths_per_ends - 1) // 2).sum() // 2)


def _owners_csr(records: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    count, size = records.shape
    return np.arange(0, count * size + 1, size, dtype=np.int64), records.reshape(-1)


def capped_subgraph_count(graph: Graph, pattern: str, cap: float) -> float:
    """``Q(graph, τ)``: the most copies of ``pattern``, taken fractionally, with no node in more
    than ``τ = cap`` of them (module docstring). Non-private: the value before noise.

    The copies and the values of the last graphs are kept (a graph is immutable, and a release
    that chooses its cap reads ``Q`` at several caps of the same graph): the same graph asked again
    costs nothing.

    >>> import opendp_graph as dpg
    >>> star = dpg.Graph.from_edges([0, 0, 0, 1], [1, 2, 3, 2])  # node 0 is in all three 2-paths through it
    >>> capped_subgraph_count(star, "triangle", 1.0), capped_subgraph_count(star, "2-star", 2.0)
    (1.0, 2.0)
    """
    if not isinstance(graph, Graph):
        raise TypeError(f"graph must be an opendp_graph.Graph, got {type(graph).__name__}")
    return _capped(graph, pattern_name(pattern), _cap(cap))


@functools.lru_cache(maxsize=4)
@refusing_out_of_memory(_copies_of)  # the owners' arrays are as long as the copies (red team)
def _records(graph: Graph, pattern: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    records = subgraph_records(graph, pattern)
    indptr, owners = _owners_csr(records)
    psi = np.ones(records.shape[0])
    for array in (indptr, owners, psi):
        array.setflags(write=False)
    return indptr, owners, psi


@functools.lru_cache(maxsize=1024)
def _capped(graph: Graph, pattern: str, tau: float) -> float:
    indptr, owners, psi = _records(graph, pattern)
    return truncated_total(indptr, owners, graph.num_nodes, psi, tau)


def _cap(cap: Any) -> float:
    tau = positive_finite("cap", cap)  # the most copies one node may hold
    if tau < SMALLEST_CAP:
        raise ValueError(f"cap must be at least {SMALLEST_CAP:g}: below it the capped count loses the precision its proof assumes, got {cap!r}")
    return tau


# ---------------------------------------------------------------------------------------------
# The stable query
# ---------------------------------------------------------------------------------------------


def make_capped_subgraph_count(input_domain: dp.Domain, input_metric: dp.Metric, pattern: str, cap: float) -> dp.Transformation:
    """The capped count ``Q(G, τ)`` of ``pattern`` (``τ = cap``), as a float.

    :param input_domain: :func:`~opendp_graph.graph_domain` (labels are ignored).
    :param input_metric: node, node-insertion, edge or group distance (edge-label: the count
        reads no label, so its map is 0).
    :param pattern: ``"triangle"``, ``"<k>-star"`` or ``"4-cycle"`` (:data:`PATTERNS`).
    :param cap: ``τ``, the most copies any one node may hold (public).

    **Stability guarantee** (``d`` = input distance): ``τ·(d + LP_TOLERANCE)`` in
    ``AbsoluteDistance`` under :func:`~opendp_graph.node_distance`,
    :func:`~opendp_graph.node_insertion_distance` and :func:`~opendp_graph.edge_distance`;
    ``τ·(k·d + LP_TOLERANCE)`` under :func:`~opendp_graph.group_distance` ``(k)``; 0 under
    :func:`~opendp_graph.edge_label_distance`.

    *Proof.* Let ``S`` be the nodes that differ: under node distance a vertex cover of the changed
    pairs (``|S| = d``); under node insertion the inserted or deleted nodes plus such a cover of the
    shared nodes' changed pairs (``|S| ≤ d``); under edge distance one endpoint of each changed
    edge (``|S| ≤ d``). Let ``G₀`` be either graph with every edge at ``S`` removed (the same
    graph from both sides). A copy present in ``G`` but not in ``G₀`` uses an edge at ``S``, so a
    node of ``S`` owns it. A fractional selection feasible for ``G₀`` is feasible for ``G``
    (same copies, same owners): ``Q(G) ≥ Q(G₀)``. An optimal selection of ``G`` restricted to
    ``G₀``'s copies is feasible there and loses only copies owned by ``S``, at most ``τ`` per node
    of ``S`` (its constraint): ``Q(G₀) ≥ Q(G) − |S|·τ``. Both graphs' values lie in ``[Q(G₀),
    Q(G₀) + d·τ]``. The value is the certified solution of a linear program, within
    ``LP_TOLERANCE·τ`` below the optimum, added once (only the two end values are approximate).
    This is Lemma 3.2 of R2T (Dong et al., SIGMOD 2022) with copies as join results. Tight at
    ``d = 1``: a node alone in ``τ`` copies, removed.

    **Bias:** ``Q(G, τ) ≤`` the count, with equality when no node is in more than ``τ`` copies;
    what it drops, at most ``Σ_v max(0, copies(v) − τ)``, is error no noise scale shows.

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> t = dpg.make_capped_subgraph_count(dpg.graph_domain(), dpg.node_distance(), "triangle", cap=8)
    >>> round(t.map(1), 6)
    8.000008
    >>> t(dpg.Graph.from_edges([0, 0, 1], [1, 2, 2]))
    1.0
    """
    pattern = pattern_name(pattern)
    tau = _cap(cap)
    return make_graph_transformation(
        input_domain,
        input_metric,
        query=make_capped_subgraph_count,
        output_domain=dp.atom_domain(T=float, nan=False),
        output_metric=dp.absolute_distance(T=float),
        function=lambda graph: capped_subgraph_count(graph, pattern, tau),
        params={"cap": tau},
    )


then_capped_subgraph_count = then(make_capped_subgraph_count)


def _capped_map(tau: float, per_unit: int):
    def stability(d_in: Any) -> float:
        return math.nextafter(tau * (integer_d_in(d_in) * per_unit + LP_TOLERANCE), math.inf)

    return stability


@stability_rule(make_capped_subgraph_count, NodeDistance, NodeInsertionDistance, EdgeDistance)
def _capped_node(domain, metric, *, cap):
    return _capped_map(cap, 1)


@stability_rule(make_capped_subgraph_count, GroupDistance)
def _capped_group(domain, metric, *, cap):
    return _capped_map(cap, metric.k)


@stability_rule(make_capped_subgraph_count, EdgeLabelDistance)
def _capped_label(domain, metric, *, cap):
    return lambda d_in: 0.0 * integer_d_in(d_in)
