"""Edge count and degree histograms, with their stability under every graph metric.

Proof device used throughout (*path through the intersection*): if ``g1`` and ``g2`` are at
edge distance ``d``, the graphs ``g1 ⊇ g1∩g2 ⊆ g2`` connect them by ``d`` single-edge steps whose
intermediate graphs are subgraphs of ``g1`` or ``g2``; every promise a domain can make here
(node set, ``max_degree``) is closed under taking subgraphs, so every step stays in the domain and
a per-edge bound multiplies by ``d``.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
import opendp.prelude as dp

from ..core._distributed import DistributedGraph
from ..core.domains import GraphDomain, graph_domain_descriptor
from ..core.graph import Graph
from ..core.metrics import (
    DegreeSequenceDistance,
    EdgeDistance,
    EdgeLabelDistance,
    GroupDistance,
    NodeDistance,
    NodeInsertionDistance,
    PaddedDegreeDistance,
    integer_d_in,
)
from ._core import int_scalar_space, int_vector_space, make_graph_transformation, then
from .rules import Query, stability_rule

__all__ = [
    "make_edge_count",
    "then_edge_count",
    "make_degree_histogram",
    "then_degree_histogram",
    "make_cumulative_degree_histogram",
    "then_cumulative_degree_histogram",
    "degree_histogram",
    "cumulative_degree_histogram",
    "make_degree_tail_counts",
    "then_degree_tail_counts",
    "degree_tail_counts",
    "require_max_degree",
]


def require_max_degree(domain: GraphDomain, query: str) -> int:
    """The domain's degree bound, or the error that node-level privacy needs one."""
    if domain.max_degree is None:
        raise ValueError(
            f"{query} under node-level privacy needs a degree bound: use graph_domain(max_degree=D) "
            "or chain dpg.make_degree_projection(...) first"
        )
    return domain.max_degree


def _capped(bound: int, cap: int | None) -> int:
    return bound if cap is None else min(bound, cap)


# ---------------------------------------------------------------------------- edge count
def make_edge_count(input_domain: dp.Domain, input_metric: dp.Metric) -> dp.Transformation:
    """Count the edges of a graph (an ``i64`` with ``absolute_distance``).

    **Stability guarantee** (``d`` = input distance, ``D`` = the domain's ``max_degree``):

    * edge distance: ``d``. Each added or removed edge moves the count by one; a label change
      moves it by zero. Tight (add one edge).
    * group distance ``k``: ``d·k`` (at most ``d·k`` edge changes).
    * node distance: ``d·D``. If the graphs differ only in edges at a set ``S`` of ``d`` nodes,
      each graph has at most ``d·D`` edges touching ``S`` and all other edges are shared, so the
      counts differ by at most ``d·D``. Tight (a node rewired from ``D`` edges to none). Needs
      ``max_degree``.
    * node-insertion distance (add/remove a node): ``d·D``. An inserted or deleted node takes at
      most ``D`` edges with it; ``d`` such steps, each between graphs of the domain (induced
      subgraphs of the two, which keep the degree bound). Tight (a node of degree ``D``). Needs
      ``max_degree``.
    * edge-label distance: ``0`` (the structure is public and equal).
    * degree-sequence distance: ``⌊d/2⌋``, since ``|E| = Σ deg / 2``.
    * padded degree distance ``θ`` (after :func:`~opendp_graph.make_degree_projection` under
      node insertion): ``⌊θ·d/2⌋``. The counts differ by ``|Σ deg₁ − Σ deg₂|/2 ≤ (Σ_shared |Δ
      deg| + Σ_absent deg)/2``; an absent node of degree ``a ≤ θ`` costs ``c = θ + 1 − a ≥ 1``
      and ``a ≤ θ·c``, and ``|Δ deg| ≤ θ·|Δ deg|``, so the sum is at most ``θ·d``. Tight for
      the metric (a ``(θ+1)``-clique against nothing: distance ``θ + 1``, ``θ(θ+1)/2`` edges).
      After one inserted node the projected counts move by at most ``θ`` (the projection's
      potential argument), so this rule, ``θ(θ+1)/2`` per node, is loose for that chain: the
      metric forgets which degrees moved. For an edge count under node privacy prefer
      :func:`~opendp_graph.polars.make_private_total` ``(of="pairs")`` on the message log
      (``θ`` per person, bias stated).

    :example:

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> t = dpg.make_edge_count(dpg.graph_domain(), dpg.edge_distance())
    >>> t(dpg.Graph.from_edges([0, 1], [1, 2])), t.map(3)
    (2, 3)
    """
    return make_graph_transformation(
        input_domain,
        input_metric,
        query=make_edge_count,
        output_domain=int_scalar_space()[0],
        output_metric=int_scalar_space()[1],
        function=lambda g: int(g.num_edges),
    )


then_edge_count = then(make_edge_count)


@stability_rule(make_edge_count, EdgeDistance)
def _edge_count_edge(domain, metric):
    return lambda d_in: integer_d_in(d_in)


@stability_rule(make_edge_count, GroupDistance)
def _edge_count_group(domain, metric):
    return lambda d_in: integer_d_in(d_in) * metric.k


@stability_rule(make_edge_count, NodeDistance)
def _edge_count_node(domain, metric):
    bound = require_max_degree(domain, "edge_count")
    return lambda d_in: integer_d_in(d_in) * bound


@stability_rule(make_edge_count, NodeInsertionDistance)
def _edge_count_insertion(domain, metric):
    bound = require_max_degree(domain, "edge_count")
    return lambda d_in: integer_d_in(d_in) * bound


@stability_rule(make_edge_count, EdgeLabelDistance)
def _edge_count_label(domain, metric):
    return lambda d_in: 0 * integer_d_in(d_in)


@stability_rule(make_edge_count, DegreeSequenceDistance)
def _edge_count_degseq(domain, metric):
    return lambda d_in: integer_d_in(d_in) // 2


@stability_rule(make_edge_count, PaddedDegreeDistance)
def _edge_count_padded(domain, metric):
    return lambda d_in: (metric.theta * integer_d_in(d_in)) // 2


# ---------------------------------------------------------------------------- degree histograms
_MAX_BINS = 2**31 - 1  # OpenDP's vector_domain(size=...) takes an i32


def check_bins(value, domain: GraphDomain, name: str = "max_degree") -> int:
    """The last bin of a histogram query: ``value`` (a non-negative integer), or the domain's
    ``max_degree`` when ``value`` is ``None``. ``name`` is the argument's name in errors."""
    if value is None:
        if domain.max_degree is None:
            raise ValueError(f"{name} is required when the domain has no max_degree (it sets the number of bins)")
        return domain.max_degree
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be a non-negative integer, got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be non-negative, got {value}")
    if value >= _MAX_BINS:
        # OpenDP sizes vectors with an i32; one bin per possible degree past that is never useful
        raise ValueError(f"{name} must be below {_MAX_BINS} (the histogram has {name} + 1 bins), got {value}")
    return int(value)


def make_binned(
    input_domain, input_metric, last_bin, query: Query, histogram, *, name: str = "max_degree", params: dict | None = None
) -> dp.Transformation:
    """A histogram-like query with bins ``0..last_bin`` (an ``i64`` vector, ``l1_distance``):
    ``histogram(graph, bins)`` computes it; the stability rule of ``query`` (its constructor,
    the key of :mod:`.rules`) receives ``bins`` and ``params``."""
    bins = check_bins(last_bin, graph_domain_descriptor(input_domain), name)
    output_domain, output_metric = int_vector_space(bins + 1)
    return make_graph_transformation(
        input_domain,
        input_metric,
        query=query,
        output_domain=output_domain,
        output_metric=output_metric,
        function=lambda g: histogram(g, bins),
        params={"bins": bins, **(params or {})},
    )


def degree_histogram(graph: Graph, max_degree: int) -> list[int]:
    """Non-private degree histogram: bin ``k`` counts nodes of degree ``k``; the last bin
    (``max_degree``) counts every node of degree ``≥ max_degree``."""
    if isinstance(graph, DistributedGraph):  # computed where the graph lives (opendp_graph.spark)
        return graph.degree_histogram(max_degree)
    clamped = np.minimum(graph.degrees, max_degree)
    return np.bincount(clamped, minlength=max_degree + 1).astype(np.int64).tolist()


def cumulative_degree_histogram(graph: Graph, max_degree: int) -> list[int]:
    """Non-private cumulative histogram: entry ``k`` counts nodes of (clamped) degree ``≤ k``."""
    return np.cumsum(degree_histogram(graph, max_degree)).astype(np.int64).tolist()


def make_degree_histogram(input_domain: dp.Domain, input_metric: dp.Metric, max_degree: int | None = None) -> dp.Transformation:
    """Degree histogram with bins ``0..max_degree`` (the last bin holds degrees ``≥ max_degree``),
    as an ``i64`` vector with ``l1_distance``.

    :param max_degree: the last bin; defaults to the domain's ``max_degree``.

    **Stability guarantee** (``d`` = input distance, ``D`` = the domain's ``max_degree``,
    ``n`` = the domain's ``num_nodes`` when known, which caps every bound at ``2n``):

    * edge distance: ``4d``. One edge changes the degree of its two endpoints by one; each moves
      to another bin (or stays, after clamping), changing the L1 norm by at most 2, so 4 per
      edge, ``4d`` by the path through the intersection. Tight (an edge between two isolated
      nodes: bin 0 loses 2, bin 1 gains 2). This is the figure of Nassar et al. (VIP Blowfish, §3)
      for the attribute policy, which coincides with edge DP.
    * group distance ``k``: ``4dk``.
    * node distance: ``4dD``. Let ``S`` (``|S| = d``) cover the differing edges and, for ``v ∈ S``,
      ``a_v``/``r_v`` be its added/removed edges (each ``≤ D``). ``v``'s degree changes only if
      ``a_v ≠ r_v``, and a node outside ``S`` changes only if a differing edge touches it, so at
      most ``Σ_v ([a_v ≠ r_v] + a_v + r_v) ≤ 2dD`` degrees change, each moving the L1 norm by at
      most 2. Tight for ``d = 1`` (``v`` rewired from ``D`` leaves to ``D`` other nodes of degree 1).
    * edge-label distance: ``0``.
    * degree-sequence distance: ``2d`` (at most ``d`` degrees differ).

    :example:

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> space = dpg.graph_domain(), dpg.edge_distance()
    >>> meas = space >> dpg.then_degree_histogram(max_degree=100) >> dp.m.then_laplace(scale=4.0)
    >>> meas.map(1)
    1.0
    """
    return make_binned(input_domain, input_metric, max_degree, make_degree_histogram, degree_histogram)


then_degree_histogram = then(make_degree_histogram)


def _two_n(domain: GraphDomain) -> int | None:
    return None if domain.num_nodes is None else 2 * domain.num_nodes


@stability_rule(make_degree_histogram, EdgeDistance)
def _hist_edge(domain, metric, bins):
    return lambda d_in: _capped(4 * integer_d_in(d_in), _two_n(domain))


@stability_rule(make_degree_histogram, GroupDistance)
def _hist_group(domain, metric, bins):
    return lambda d_in: _capped(4 * integer_d_in(d_in) * metric.k, _two_n(domain))


@stability_rule(make_degree_histogram, NodeDistance)
def _hist_node(domain, metric, bins):
    bound = require_max_degree(domain, "degree_histogram")
    return lambda d_in: _capped(4 * integer_d_in(d_in) * bound, _two_n(domain))


@stability_rule(make_degree_histogram, NodeInsertionDistance)
def _hist_insertion(domain, metric, bins):
    bound = require_max_degree(domain, "degree_histogram")
    return lambda d_in: _capped((2 * bound + 1) * integer_d_in(d_in), _two_n(domain))


@stability_rule(make_degree_histogram, PaddedDegreeDistance)
def _hist_padded(domain, metric, bins):
    return lambda d_in: 2 * integer_d_in(d_in)


@stability_rule(make_degree_histogram, EdgeLabelDistance)
def _hist_label(domain, metric, bins):
    return lambda d_in: 0 * integer_d_in(d_in)


@stability_rule(make_degree_histogram, DegreeSequenceDistance)
def _hist_degseq(domain, metric, bins):
    return lambda d_in: _capped(2 * integer_d_in(d_in), _two_n(domain))


def make_cumulative_degree_histogram(
    input_domain: dp.Domain, input_metric: dp.Metric, max_degree: int | None = None
) -> dp.Transformation:
    """Cumulative degree histogram: entry ``k`` (``0..max_degree``) counts the nodes of degree
    ``≤ k`` (degrees above ``max_degree`` are clamped to it), an ``i64`` vector with ``l1_distance``.

    **Stability guarantee** (``d``, ``D``, ``n`` as in :func:`make_degree_histogram`; every bound
    is capped at ``n·max_degree``, since one node's clamped degree moves at most ``max_degree`` entries):

    * edge distance: ``2d``. A node whose degree changes by one changes exactly one entry by one
      (or none after clamping); an edge changes two degrees. Tight (any edge between nodes of
      degree below ``max_degree``). Nassar et al.'s attribute-policy figure.
    * group distance ``k``: ``2dk``.
    * node distance: ``2dD``. With ``S``, ``a_v``, ``r_v`` as for the histogram, the entries move
      by ``Σ_w |Δdeg_w| ≤ Σ_{v∈S} (|a_v − r_v| + a_v + r_v) = Σ_{v∈S} 2·max(a_v, r_v) ≤ 2dD``.
      Tight for ``d = 1`` (``D`` leaves detached and ``D`` new neighbours attached).
    * node-insertion distance (add/remove a node; ``B`` = ``max_degree`` of the query, the last
      entry): ``d·(max(B, D) + 1)``. An inserted node of degree ``a`` enters the entries
      ``min(a, B)..B`` (``B + 1 − min(a, B)`` of them) and each of its ``a`` neighbours moves at most
      one entry: ``B + 1`` if ``a ≤ B``, else ``a + 1 ≤ D + 1``. Tight (``a = D``, neighbours below ``B``).
    * edge-label distance: ``0``.
    * degree-sequence distance: ``d`` (the entries move by at most ``Σ_w |Δdeg_w|``).
    * padded degree distance ``θ`` (after the projection under node insertion, whose graphs have
      degrees ``≤ θ``): ``d`` when ``B ≤ θ``, else ``d·(B − θ + 1)``. A shared node whose degree
      moves by ``δ`` moves at most ``|δ|`` entries; a node of degree ``a`` present in one graph only
      is in ``B + 1 − min(a, B)`` entries while the distance counts ``θ + 1 − a`` for it: no more
      when ``B ≤ θ``, at most ``B − θ + 1`` times more otherwise. With ``B = θ`` and the
      projection's ``θ + 1``, this is Day, Li & Lyu's ``θ + 1`` for one node.
    """
    return make_binned(input_domain, input_metric, max_degree, make_cumulative_degree_histogram, cumulative_degree_histogram)


then_cumulative_degree_histogram = then(make_cumulative_degree_histogram)


def _n_times_bins(domain: GraphDomain, bins: int) -> int | None:
    return None if domain.num_nodes is None else domain.num_nodes * bins


@stability_rule(make_cumulative_degree_histogram, EdgeDistance)
def _cum_edge(domain, metric, bins):
    return lambda d_in: _capped(2 * integer_d_in(d_in), _n_times_bins(domain, bins))


@stability_rule(make_cumulative_degree_histogram, GroupDistance)
def _cum_group(domain, metric, bins):
    return lambda d_in: _capped(2 * integer_d_in(d_in) * metric.k, _n_times_bins(domain, bins))


@stability_rule(make_cumulative_degree_histogram, NodeDistance)
def _cum_node(domain, metric, bins):
    bound = require_max_degree(domain, "cumulative_degree_histogram")
    return lambda d_in: _capped(2 * integer_d_in(d_in) * bound, _n_times_bins(domain, bins))


@stability_rule(make_cumulative_degree_histogram, NodeInsertionDistance)
def _cum_insertion(domain, metric, bins):
    bound = require_max_degree(domain, "cumulative_degree_histogram")
    return lambda d_in: _capped((max(bins, bound) + 1) * integer_d_in(d_in), _n_times_bins(domain, bins))


@stability_rule(make_cumulative_degree_histogram, PaddedDegreeDistance)
def _cum_padded(domain, metric, bins):
    per_unit = 1 if bins <= metric.theta else bins - metric.theta + 1
    return lambda d_in: per_unit * integer_d_in(d_in)


@stability_rule(make_cumulative_degree_histogram, EdgeLabelDistance)
def _cum_label(domain, metric, bins):
    return lambda d_in: 0 * integer_d_in(d_in)


@stability_rule(make_cumulative_degree_histogram, DegreeSequenceDistance)
def _cum_degseq(domain, metric, bins):
    return lambda d_in: _capped(integer_d_in(d_in), _n_times_bins(domain, bins))


# ---------------------------------------------------------------------------- tail counts
def degree_tail_counts(graph: Graph, thresholds) -> list[int]:
    """Non-private: for each threshold ``t``, the number of nodes of degree ``> t``."""
    deg = np.sort(graph.degrees)
    return (deg.size - np.searchsorted(deg, np.asarray(thresholds, dtype=np.int64), side="right")).astype(np.int64).tolist()


def make_degree_tail_counts(input_domain: dp.Domain, input_metric: dp.Metric, thresholds) -> dp.Transformation:
    """For each public threshold ``t`` of ``thresholds``, the number of nodes of degree above
    ``t``: an ``i64`` vector with ``linf_distance`` (the input of a selection such as OpenDP's
    ``make_noisy_max``; :func:`opendp_graph.make_private_degree_distribution` scores the
    projection bounds with it).

    **Stability guarantee** (``d`` = input distance; every entry moves by at most):

    * degree-sequence distance (after the projection under rewiring): ``d``. A node's count at
      ``t`` changes only if its degree crosses ``t``, which costs at least 1 of ``Σ_w |Δdeg_w|``.
    * padded degree distance ``θ`` (after the projection under node insertion): ``d``. Shared
      nodes as above; a node present in one graph only moves each entry by at most 1 and costs
      ``θ + 1 − deg ≥ 1``.
    * edge distance: ``2d`` (an edge moves two degrees by one); group distance ``k``: ``2dk``;
      edge-label distance: ``0``.

    Raw graphs under node-level metrics have no bound here (one node moves its every neighbour):
    chain :func:`~opendp_graph.make_degree_projection` first. Tight: a node of degree ``t``
    gaining an edge.
    """
    if isinstance(thresholds, (str, bytes)) or not hasattr(thresholds, "__iter__"):
        raise TypeError(f"thresholds must be a sequence of non-negative integers, got {thresholds!r}")
    values = [check_bins(t, graph_domain_descriptor(input_domain), "thresholds") for t in thresholds]
    if not values:
        raise ValueError("thresholds must not be empty")
    return make_graph_transformation(
        input_domain,
        input_metric,
        query=make_degree_tail_counts,
        output_domain=dp.vector_domain(dp.atom_domain(T=dp.i64), size=len(values)),
        output_metric=dp.linf_distance(T=dp.i64),
        function=lambda g: degree_tail_counts(g, values),
    )


then_degree_tail_counts = then(make_degree_tail_counts)


@stability_rule(make_degree_tail_counts, DegreeSequenceDistance, PaddedDegreeDistance)
def _tail_degree(domain, metric):
    return lambda d_in: integer_d_in(d_in)


@stability_rule(make_degree_tail_counts, EdgeDistance)
def _tail_edge(domain, metric):
    return lambda d_in: 2 * integer_d_in(d_in)


@stability_rule(make_degree_tail_counts, GroupDistance)
def _tail_group(domain, metric):
    return lambda d_in: 2 * integer_d_in(d_in) * metric.k


@stability_rule(make_degree_tail_counts, EdgeLabelDistance)
def _tail_label(domain, metric):
    return lambda d_in: 0 * integer_d_in(d_in)
