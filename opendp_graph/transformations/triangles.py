"""Triangle count (OpenDP's tracker asks for a triangle-count graph example)."""

from __future__ import annotations

import numpy as np
import opendp.prelude as dp
import scipy.sparse as sp

from ..core.domains import GraphDomain
from ..core.graph import Graph
from ..core.metrics import EdgeDistance, EdgeLabelDistance, GroupDistance, NodeDistance, NodeInsertionDistance, integer_d_in
from ._core import int_scalar_space, make_graph_transformation, then
from .rules import stability_rule

__all__ = ["make_triangle_count", "then_triangle_count", "triangle_count"]


def triangle_count(graph: Graph) -> int:
    """Exact number of triangles (non-private).

    Orient every edge from lower to higher (degree, index) rank; each triangle is then counted
    exactly once as a pair of out-edges ``u→v, u→w`` closed by ``v→w``. Out-degrees are at most
    ``O(√E)``, which keeps ``L @ L`` small on heavy-tailed graphs.
    """
    if graph.num_edges == 0:
        return 0
    n = graph.num_nodes
    a, b, _ = degree_oriented_edges(graph)
    lower = sp.csr_array((np.ones(a.size, dtype=np.int64), (a, b)), shape=(n, n))
    return int((lower @ lower).multiply(lower).sum())


def degree_oriented_edges(graph: Graph) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every edge once, oriented from the lower to the higher ``(degree, index)`` rank, as
    ``(low, high, rank)``: a node's out-neighbours are then at most ``O(√E)``, which keeps the
    pairs of out-neighbours (the candidate triangles) few on heavy-tailed graphs."""
    n = graph.num_nodes
    rank = np.empty(n, dtype=np.int64)
    rank[np.lexsort((np.arange(n), graph.degrees))] = np.arange(n)
    forward = rank[graph.src] < rank[graph.dst]
    return np.where(forward, graph.src, graph.dst), np.where(forward, graph.dst, graph.src), rank


def _per_edge_bound(domain: GraphDomain) -> int:
    bounds = []
    if domain.max_degree is not None:
        bounds.append(max(domain.max_degree - 1, 0))
    if domain.num_nodes is not None:
        bounds.append(max(domain.num_nodes - 2, 0))
    if not bounds:
        raise ValueError(
            "triangle_count has unbounded sensitivity on a domain without max_degree or num_nodes: "
            "use graph_domain(max_degree=D) or graph_domain(num_nodes=n)"
        )
    return min(bounds)


def make_triangle_count(input_domain: dp.Domain, input_metric: dp.Metric) -> dp.Transformation:
    """Count the triangles of a graph (an ``i64`` with ``absolute_distance``).

    **Stability guarantee** (``d`` = input distance; ``D`` = ``max_degree``, ``n`` = ``num_nodes``
    of the domain, at least one of which must be set):

    * edge distance: ``d·t`` with ``t = min(D − 1, n − 2)``. An edge ``uv`` lies in one triangle
      per common neighbour, at most ``min(deg u, deg v) − 1 ≤ D − 1`` and at most ``n − 2``;
      ``d`` edges by the path through the intersection (module :mod:`.degrees`). Tight for
      ``d = 1`` (the edge closing ``t`` triangles in a clique).
    * group distance ``k``: ``d·k·t``.
    * node distance: ``d·min(C(D, 2), C(n − 1, 2))``. Triangles avoiding the cover ``S`` use only
      shared edges; each graph has at most ``C(D, 2)`` (and ``C(n−1, 2)``) triangles through each
      node of ``S``. Tight for ``d = 1`` (a node joined to a ``D``-clique, then detached).
    * node-insertion distance (add/remove a node): the same, ``d·min(C(D, 2), C(n − 1, 2))``: the
      triangles an inserted node brings all pass through it (the graph with it has ``n`` nodes
      when the domain fixes ``n``). Tight (a node joined to a ``D``-clique).
    * edge-label distance: ``0``.
    """
    return make_graph_transformation(
        input_domain,
        input_metric,
        query=make_triangle_count,
        output_domain=int_scalar_space()[0],
        output_metric=int_scalar_space()[1],
        function=triangle_count,
    )


then_triangle_count = then(make_triangle_count)


@stability_rule(make_triangle_count, EdgeDistance)
def _tri_edge(domain, metric):
    t = _per_edge_bound(domain)
    return lambda d_in: integer_d_in(d_in) * t


@stability_rule(make_triangle_count, GroupDistance)
def _tri_group(domain, metric):
    t = _per_edge_bound(domain)
    return lambda d_in: integer_d_in(d_in) * metric.k * t


@stability_rule(make_triangle_count, NodeDistance, NodeInsertionDistance)
def _tri_node(domain, metric):
    bounds = []
    if domain.max_degree is not None:
        bounds.append(domain.max_degree * (domain.max_degree - 1) // 2)
    if domain.num_nodes is not None:
        m = max(domain.num_nodes - 1, 0)
        bounds.append(m * (m - 1) // 2)
    if not bounds:
        raise ValueError("triangle_count under node-level privacy needs a degree bound: use graph_domain(max_degree=D) or graph_domain(num_nodes=n)")
    t = min(bounds)
    return lambda d_in: integer_d_in(d_in) * t


@stability_rule(make_triangle_count, EdgeLabelDistance)
def _tri_label(domain, metric):
    return lambda d_in: 0 * integer_d_in(d_in)
