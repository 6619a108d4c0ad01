"""Stable degree projection for node-level privacy on graphs with hubs.

Naive truncation (drop every node of degree above ``θ``, or every edge at such a node) is *not*
stable: rewiring one node can push many others over or under the threshold. The edge-addition
projection of Day, Li & Lyu (SIGMOD 2016, §4) scans the edges in a fixed, data-independent
order and keeps an edge only if both endpoints still have fewer than ``θ`` kept edges. Its
output always has maximum degree ``≤ θ``.

It is *not* stable in edges either (one changed edge can trigger a long alternating cascade of
kept/dropped edges), but the **degree sequence** of the output moves little, which is what
degree-based queries read. Its output metric is therefore
:func:`~opendp_graph.degree_sequence_distance`, under which the edge count and both degree
histograms have proven stability (see :mod:`.degrees`).
"""

from __future__ import annotations

import numpy as np
import opendp.prelude as dp

from .._checks import positive_integer
from ..domains import graph_domain, graph_domain_descriptor
from ..graph import Graph
from ..metrics import EdgeDistance, EdgeLabelDistance, GroupDistance, NodeDistance, degree_sequence_distance, integer_d_in
from ._core import make_graph_transformation, stability_rule, then

__all__ = ["make_degree_projection", "then_degree_projection", "degree_projection", "edge_order"]


def edge_order(graph: Graph) -> np.ndarray:
    """Positions of ``graph``'s edges in the public scanning order.

    The order ranks every *possible* pair ``{u, v}`` by a fixed 64-bit mix (SplitMix64) of
    ``(u, v)``: it depends on the pair only, never on which other edges exist, and behaves like a
    public random permutation (so low node indices are not favoured).
    """
    with np.errstate(over="ignore"):
        z = (graph.src.astype(np.uint64) << np.uint64(32)) ^ graph.dst.astype(np.uint64)
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return np.lexsort((graph.edge_keys, z))


def degree_projection(graph: Graph, max_degree: int) -> Graph:
    """Non-private edge-addition projection to maximum degree ``max_degree`` (labels dropped)."""
    theta = int(max_degree)
    order = edge_order(graph)
    src, dst = graph.src[order].tolist(), graph.dst[order].tolist()
    kept_degree = [0] * graph.num_nodes
    keep = np.zeros(len(src), dtype=bool)
    # A sequential greedy scan: each decision depends on the decisions before it.
    for i, (u, v) in enumerate(zip(src, dst)):
        if kept_degree[u] < theta and kept_degree[v] < theta:
            kept_degree[u] += 1
            kept_degree[v] += 1
            keep[i] = True
    chosen = np.sort(order[keep])
    return Graph._from_canonical(num_nodes=graph.num_nodes, src=graph.src[chosen].copy(), dst=graph.dst[chosen].copy(), node_ids=graph.node_ids)


def make_degree_projection(input_domain: dp.Domain, input_metric: dp.Metric, max_degree: int) -> dp.Transformation:
    """Project a graph to maximum degree ``θ = max_degree`` by edge addition in a public order.

    Output: ``graph_domain(num_nodes=<input's>, max_degree=θ)`` (labels are dropped) with
    :func:`~opendp_graph.degree_sequence_distance`.

    **Stability guarantee** (``d`` = input distance):

    * node distance: ``2·min(θ, D)·d`` (``D`` the domain's ``max_degree``; ``2θ·d`` without
      one); edge distance: ``2d``; group distance ``k``: ``2dk``; edge-label distance: ``0``
      (same structure, same projection).

    The output domain promises ``max_degree = min(θ, D)``.

    *Proof.* Let ``g1, g2`` differ only in edges at a node set ``S`` and let ``g0`` be either one
    with every edge at ``S`` removed. Scan ``g0`` and ``g1`` side by side and let ``δ(w)`` be the
    difference of the kept degrees of ``w ∉ S`` so far, and ``k_v`` the kept degree of ``v ∈ S``
    in ``g1``. The potential ``Σ_{w∉S} |δ(w)| − Σ_{v∈S} k_v`` never increases: keeping an edge
    ``vw`` of ``g1`` only (``v ∈ S``) adds one to both terms (or, for ``w ∈ S`` too, subtracts two);
    an edge kept in one scan and not in the other has an endpoint that is full in one scan and not
    in the other, whose ``|δ|`` therefore shrinks by one while the other endpoint's grows by at most
    one. So ``Σ_{w∉S}|δ₁(w)| ≤ Σ_v k_v¹`` and likewise for ``g2``; as ``v ∈ S`` is isolated in ``g0``,
    ``‖deg P(g1) − deg P(g2)‖₁ ≤ Σ_{v∈S} (|k_v¹ − k_v²| + k_v¹ + k_v²) = Σ_v 2·max(k_v¹, k_v²) ≤ 2θd``;
    a kept degree is also at most the input degree, so on a domain with ``max_degree = D``
    the sum is ``≤ 2·min(θ, D)·d``.
    For one edge ``e`` the same potential with ``−2·[e kept]`` gives 2, and ``d`` edges chain
    through the intersection. Tight: a node moved from ``min(θ, D)`` leaves to ``min(θ, D)``
    other leaves.
    This is the bounded (rewiring) analogue of Day, Li & Lyu's Lemma 4 for node insertion.

    :example:

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> space = dpg.graph_domain(), dpg.node_distance()
    >>> meas = (space >> dpg.then_degree_projection(max_degree=5)
    ...         >> dpg.then_degree_histogram() >> dp.m.then_laplace(scale=40.0))
    >>> meas.map(1)  # 2θ degrees move, 2 per moved degree: sensitivity 4θ = 20
    0.5
    """
    domain = graph_domain_descriptor(input_domain)
    theta = positive_integer("max_degree", max_degree)
    return make_graph_transformation(
        input_domain,
        input_metric,
        query="degree_projection",
        output_domain=graph_domain(num_nodes=domain.num_nodes, max_degree=_kept_degree_bound(domain, theta)),
        output_metric=degree_sequence_distance(),
        function=lambda g: degree_projection(g, theta),
        params={"theta": theta},
    )


then_degree_projection = then(make_degree_projection)


def _kept_degree_bound(domain, theta: int) -> int:
    """Most edges the projection keeps at a node: ``θ``, and no more than the domain's degree bound."""
    return theta if domain.max_degree is None else min(theta, domain.max_degree)


@stability_rule("degree_projection", NodeDistance)
def _proj_node(domain, metric, theta):
    bound = 2 * _kept_degree_bound(domain, theta)
    return lambda d_in: bound * integer_d_in(d_in)


@stability_rule("degree_projection", EdgeDistance, GroupDistance)
def _proj_edge(domain, metric, theta):
    k = metric.k if isinstance(metric, GroupDistance) else 1
    return lambda d_in: 2 * k * integer_d_in(d_in)


@stability_rule("degree_projection", EdgeLabelDistance)
def _proj_label(domain, metric, theta):
    return lambda d_in: 0 * integer_d_in(d_in)
