"""Edge count and degree histograms, with their stability under every graph metric.

Proof device used throughout (*path through the intersection*): if ``g1`` and ``g2`` are at
edge distance ``d``, the graphs ``g1 ⊇ g1∩g2 ⊆ g2`` connect them by ``d`` single-edge steps whose
intermediate graphs are subgraphs of ``g1`` or ``g2``; every promise a domain can make here
(node set, ``max_degree``) is closed under taking subgraphs, so every step stays in the domain and
a per-edge bound multiplies by ``d``.

**ℓ2 output metrics** (``output_metric=dp.l2_distance(T=dp.f64)``, for OpenDP's Gaussian under
zCDP, ``ρ = ℓ2²/(2·scale²)``): the three vector queries have one ℓ2 rule per neighbour notion
(the variants :data:`DEGREE_HISTOGRAM_L2`, :data:`CUMULATIVE_DEGREE_HISTOGRAM_L2`,
:data:`DEGREE_TAIL_COUNTS_L2` of the rule table), each proved in its docstring with these
devices (``B`` = the last bin, ``c(k) = min(k, B)`` a degree's bin):

* *Movers*: if ``m`` nodes change bin (none appears or disappears), the histogram changes by
  ``p − q``, ``p`` and ``q`` the counts of their new and old bins: two non-negative vectors of
  total ``m``, so ``‖p − q‖² ≤ ‖p‖² + ‖q‖² ≤ 2m²`` (reached when all ``m`` leave one bin for one
  other).
* *Flows*: let ``f_b`` be the number of nodes whose bin goes from ``≤ b`` to ``> b``, minus those
  going back (``b = 0..B−1``). The cumulative histogram changes by ``−f``, the histogram by
  ``x_b = f_{b−1} − f_b``, and a tail count at ``t`` by the same net count at the (unclamped) degree
  ``t``. A node whose degree moves by one is one crossing. When ``a`` nodes each cross at most
  one boundary upwards and ``r`` at most one downwards, their ``f`` lies in the polytope
  ``{g − l : g, l ≥ 0, Σg ≤ a, Σl ≤ r}``; a squared norm of ``x`` or ``f`` is convex in ``f``, so
  its largest value is at a vertex ``a·e_i − r·e_k``.
* *One node at a time* (node distance ``d``, ``S`` a cover of the differing edges, ``|S| = d``):
  flip the differing edges at ``s_1``, then those left at ``s_2``, ...: ``d`` steps, step ``i``
  adding ``a_i ≤ deg_{g2}(s_i) ≤ D`` edges at ``s_i`` and removing ``r_i ≤ deg_{g1}(s_i) ≤ D``. An
  intermediate graph may break the degree bound; the per-step bounds below only use ``a_i, r_i ≤
  D``, so the triangle inequality gives ``d`` times the per-step bound.
* *Rounding*: every bound is ``√s`` for an integer ``s`` computed exactly, returned as the least
  float ``≥ √s`` (:func:`~opendp_graph.transformations._core.sqrt_up`), never rounded down.
"""

from __future__ import annotations

from collections import Counter
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
from ._core import int_scalar_space, int_vector_space, make_graph_transformation, sqrt_up, then
from .rules import Query, stability_rule, variant

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
    "DEGREE_HISTOGRAM_L2",
    "CUMULATIVE_DEGREE_HISTOGRAM_L2",
    "DEGREE_TAIL_COUNTS_L2",
]


def require_max_degree(domain: GraphDomain, query: str) -> int:
    """The domain's degree bound, or the error that node-level privacy needs one."""
    if domain.max_degree is None:
        raise ValueError(
            f"{query} under node-level privacy needs a degree bound: use graph_domain(max_degree=D) or chain dpg.make_degree_projection(...) first"
        )
    return domain.max_degree


def _capped(bound: int, cap: int | None) -> int:
    return bound if cap is None else min(bound, cap)


def _l2() -> dp.Metric:
    return dp.l2_distance(T=dp.f64)


def _wants_l2(output_metric: dp.Metric | None, default: dp.Metric, default_text: str) -> bool:
    """Whether ``output_metric`` asks for the ℓ2 rules: ``None`` or ``default`` (the query's own
    metric) is ``False``, ``dp.l2_distance(T=dp.f64)`` is ``True``, anything else an error."""
    if output_metric is None:
        return False
    if not isinstance(output_metric, dp.Metric):
        raise TypeError(f"output_metric must be an OpenDP Metric, got {type(output_metric).__name__}")
    if output_metric == default:
        return False
    if output_metric == _l2():
        return True
    raise ValueError(f"output_metric must be {default_text} (the default) or dp.l2_distance(T=dp.f64), got {output_metric!r}")


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
    if int(value) >= _MAX_BINS:
        # OpenDP sizes vectors with an i32; one bin per possible degree past that is never useful
        raise ValueError(f"{name} must be below {_MAX_BINS} (the histogram has {name} + 1 bins), got {value}")
    return int(value)


def _make_binned(
    input_domain,
    input_metric,
    last_bin,
    query: Query,
    histogram,
    *,
    name: str = "max_degree",
    params: dict | None = None,
    output_metric: dp.Metric | None = None,
) -> dp.Transformation:
    """A histogram-like query with bins ``0..last_bin`` (an ``i64`` vector, ``l1_distance``, or
    ``output_metric`` when given): ``histogram(graph, bins)`` computes it; the stability rule of
    ``query`` (its constructor or a variant, the key of :mod:`.rules`, which must bound the
    distance ``output_metric`` measures) receives ``bins`` and ``params``."""
    bins = check_bins(last_bin, graph_domain_descriptor(input_domain), name)
    output_domain, l1_metric = int_vector_space(bins + 1)
    output_metric = l1_metric if output_metric is None else output_metric
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


def make_degree_histogram(
    input_domain: dp.Domain, input_metric: dp.Metric, max_degree: int | None = None, output_metric: dp.Metric | None = None
) -> dp.Transformation:
    """Degree histogram with bins ``0..max_degree`` (the last bin holds degrees ``≥ max_degree``),
    as an ``i64`` vector with ``l1_distance``.

    :param max_degree: the last bin; defaults to the domain's ``max_degree``.
    :param output_metric: the distance the stability map bounds: ``dp.l1_distance(T=dp.i64)``
        (the default; Laplace) or ``dp.l2_distance(T=dp.f64)`` (OpenDP's Gaussian under zCDP; the
        ℓ2 rules of :data:`DEGREE_HISTOGRAM_L2`, below). The vector is the same.

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

    **ℓ2 guarantee** (``output_metric=dp.l2_distance(T=dp.f64)``; ``B`` = ``max_degree`` of the
    query; each a float rounded up; proofs and extreme cases in the rules'
    docstrings; ``B = 0``: the one entry is the number of nodes, ``0`` where the node set is fixed):

    * edge distance: ``√2·min(2d, n)``: ``2√2 = 2.83`` per edge (against L1 ``4``): an edge between
      two nodes of one degree moves two nodes from one bin to the next. Group distance ``k``:
      ``√2·min(2dk, n)``. Tight (``B ≥ 1``, ``2dk ≤ n``).
    * node distance: ``min(d·√(6D² + 2), √2·n)`` (``√26 = 5.10`` for ``D = 2``, against L1 ``8``).
      Tight for ``B ≥ D`` and ``n ≥ 2dD``.
    * node-insertion distance: ``d·√(2D² + 2D + 1)``, at most ``√2·n`` on a domain of ``n``
      nodes. Tight (``B ≥ 1``).
    * padded degree distance: ``√2·d``. Degree-sequence distance: ``√2·min(2⌊d/2⌋, n)``.
      Edge-label distance: ``0``.

    :example:

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> space = dpg.graph_domain(), dpg.edge_distance()
    >>> meas = space >> dpg.then_degree_histogram(max_degree=100) >> dp.m.then_laplace(scale=4.0)
    >>> meas.map(1)
    1.0
    >>> l2 = space >> dpg.then_degree_histogram(max_degree=100, output_metric=dp.l2_distance(T=dp.f64))
    >>> l2.map(1)  # √8: two nodes of one degree move to the next bin
    2.8284271247461903
    >>> (l2 >> dp.m.then_gaussian(scale=4.0)).map(1)  # zCDP ρ = 8 / (2·4²), rounded up
    0.25000000000000006
    """
    l2 = _wants_l2(output_metric, int_vector_space()[1], "dp.l1_distance(T=dp.i64)")
    query = DEGREE_HISTOGRAM_L2 if l2 else make_degree_histogram
    return _make_binned(input_domain, input_metric, max_degree, query, degree_histogram, output_metric=_l2() if l2 else None)


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


DEGREE_HISTOGRAM_L2 = variant(make_degree_histogram, "l2")
"""The key of :func:`make_degree_histogram`'s rules into ``dp.l2_distance(T=dp.f64)`` (query
name ``"degree_histogram_l2"``): one ℓ2 rule per neighbour notion of the L1 rules of this module."""


def _group_size(metric) -> int:
    return metric.k if isinstance(metric, GroupDistance) else 1


def _even_part(d: int) -> int:
    """``2⌊d/2⌋``: two graphs on one node set are at an even degree-sequence distance, since
    ``Σ_v (deg₁ v − deg₂ v) = 2(|E₁| − |E₂|)`` and ``|x| ≡ x (mod 2)``."""
    return d - d % 2


def _squared_map(square_of, *, bins: int | None = None, fixed_node_set: bool = True):
    """The stability map ``d_in -> sqrt_up(square_of(d))`` (``d`` the integer distance), ``0``
    when ``bins == 0`` under a metric that keeps the node set (the one entry is the node count)."""

    def stability(d_in):
        d = integer_d_in(d_in)
        if bins == 0 and fixed_node_set:
            return 0.0
        return sqrt_up(square_of(d))

    return stability


@stability_rule(DEGREE_HISTOGRAM_L2, EdgeDistance, GroupDistance)
def _hist_l2_edge(domain, metric, bins):
    """``√2·min(2dk, n)`` (``k = 1`` for edge distance; ``n`` the domain's ``num_nodes``).

    At most ``2dk`` nodes (the endpoints of the differing edges), and at most ``n``, change
    degree; by the *movers* device ``‖x‖² ≤ 2m²``. Tight for ``B ≥ 1``: ``dk`` disjoint edges
    between ``2dk ≤ n`` isolated nodes move bin ``0`` by ``−2dk`` and bin ``1`` by ``+2dk``; one
    edge gives ``2√2``, not ``2``: two endpoints of one degree move together (endpoints of degrees
    ``a ≠ b`` give ``2``, or ``√2`` for ``b = a + 1``). The L1 rule's ``4`` is ``√2`` times this.
    """
    per_unit, n = 2 * _group_size(metric), domain.num_nodes
    return _squared_map(lambda d: 2 * _capped(per_unit * d, n) ** 2, bins=bins)


@stability_rule(DEGREE_HISTOGRAM_L2, NodeDistance)
def _hist_l2_node(domain, metric, bins):
    """``min(d·√(6D² + 2), √2·n)`` (``0`` for ``D = 0``).

    *Per step* (one node ``v``, ``a`` edges added and ``r`` removed, ``a, r ≤ D``; *one node at a
    time*): the added neighbours move up one bin at most, the removed ones down, and ``v`` adds
    ``e_new − e_old`` if it moves (only if ``a ≠ r``). The neighbours' part ``y = ∇f`` is largest at
    a vertex ``a·e_i − r·e_k`` (*flows*): adjacent boundaries give entries ``(−a, a + r, −r)`` and
    ``‖y‖² = 2(a² + ar + r²)``; ``v`` adds at most ``2(max y − min y) + 2``. So ``‖x‖² ≤ (a + r +
    1)² + (max(a, r) + 1)² + min(a, r)²`` when ``a ≠ r``, at most ``6D² + 2`` (``a = D, r = D − 1``),
    and ``≤ 6D²`` when ``a = r``. With ``d`` steps: ``d·√(6D² + 2)``; the *movers* cap gives
    ``√2·n``.

    Tight for ``B ≥ D``: ``v`` in a ``(D + 1)``-clique drops its ``D`` edges and joins the ``D − 1``
    nodes of a ``(D − 1)``-clique: bins ``D − 2, D − 1, D`` move by ``−(D − 1), +2D, −(D + 1)``
    (``2D`` nodes; ``d`` disjoint copies reach ``d·√(6D² + 2)``). For ``B < D`` an upper bound.
    Below the ``√(L1·L∞) = 2√2·dD`` of the L1 rule for ``D ≥ 2``, equal for ``D = 1``.
    """
    bound = require_max_degree(domain, "degree_histogram")
    per_step, n = (6 * bound * bound + 2) if bound else 0, domain.num_nodes
    return _squared_map(lambda d: _capped(per_step * d * d, None if n is None else 2 * n * n), bins=bins)


@stability_rule(DEGREE_HISTOGRAM_L2, NodeInsertionDistance)
def _hist_l2_insertion(domain, metric, bins):
    """``d·√(2D² + 2D + 1)``, at most ``√2·n`` on a domain of ``n`` nodes; ``d`` for ``B = 0``
    (``0`` with ``n`` fixed).

    *Per step* (one node of degree ``a ≤ D`` inserted or deleted; ``d`` steps through induced
    subgraphs, as for the L1 rule): the node adds ``±e_{c(a)}`` and its ``a`` neighbours move one
    bin, all the same way: at the vertex ``a·e_i`` of the *flows*, ``a(e_{i+1} − e_i)``, so
    ``‖x‖² ≤ a² + (a + 1)² ≤ D² + (D + 1)²``. With ``n`` fixed, as many nodes appear as disappear
    and the *movers* cap ``√2·n`` holds (new nodes in ``p``, gone ones in ``q``).

    Tight for ``B ≥ 1``: a node of degree ``D`` joined to ``D`` nodes of degree ``min(B, D) − 1``
    (a ``D``-clique when ``B ≥ D``): bin ``c − 1`` loses ``D``, bin ``c = min(B, D)`` gains ``D + 1``
    (``d`` disjoint copies: ``d`` times). Below the ``√(L1·L∞) = √((2D + 1)(D + 1))`` per step.
    """
    bound = require_max_degree(domain, "degree_histogram")
    n = domain.num_nodes
    if bins == 0:
        return _squared_map(lambda d: d * d, bins=bins, fixed_node_set=n is not None)
    per_step = 2 * bound * bound + 2 * bound + 1
    return _squared_map(lambda d: _capped(per_step * d * d, None if n is None else 2 * n * n), bins=bins)


@stability_rule(DEGREE_HISTOGRAM_L2, PaddedDegreeDistance)
def _hist_l2_padded(domain, metric, bins):
    """``√2·d`` (``d`` for ``B = 0``: the one entry is the number of nodes).

    Let ``M`` be the shared nodes whose bin changes and ``I``, ``J`` the nodes of one graph only:
    each costs at least 1 (``|Δ deg| ≥ 1``, ``θ + 1 − deg ≥ 1``), so ``|M| + |I| + |J| ≤ d``. The
    change is ``p − q`` with ``p`` the new bins of ``M`` and the bins of ``I`` (total ``|M| + |I|``),
    ``q`` the old bins of ``M`` and the bins of ``J``: ``‖x‖² ≤ (|M| + |I|)² + (|M| + |J|)² ≤ 2d²``.
    For ``B = 0``, ``|x| = ||I| − |J|| ≤ d``.

    Tight at every even ``d`` (``B ≥ 1``): ``d/2`` edges between isolated shared nodes. At odd
    ``d`` an upper bound (a degree change of one shared node alone is impossible). After the
    projection under node insertion (``d = K + 1`` per node) it is the rule on the metric, which
    forgets where the degrees moved.
    """
    return _squared_map(lambda d: d * d if bins == 0 else 2 * d * d, fixed_node_set=False)


@stability_rule(DEGREE_HISTOGRAM_L2, EdgeLabelDistance)
def _hist_l2_label(domain, metric, bins):
    """``0``: the structure is public and equal."""
    return lambda d_in: 0.0 * integer_d_in(d_in)


@stability_rule(DEGREE_HISTOGRAM_L2, DegreeSequenceDistance)
def _hist_l2_degseq(domain, metric, bins):
    """``√2·min(2⌊d/2⌋, n)``.

    Each node whose bin changes costs at least 1 of ``d``, and the distance between two graphs on
    one node set is even (:func:`_even_part`), so at most ``2⌊d/2⌋`` (and ``n``) nodes move: the
    *movers* device. Tight at every ``d`` for ``B ≥ 1`` and ``2⌊d/2⌋ ≤ n`` (``⌊d/2⌋`` edges between
    isolated nodes).
    """
    n = domain.num_nodes
    return _squared_map(lambda d: 2 * _capped(_even_part(d), n) ** 2, bins=bins)


def make_cumulative_degree_histogram(
    input_domain: dp.Domain, input_metric: dp.Metric, max_degree: int | None = None, output_metric: dp.Metric | None = None
) -> dp.Transformation:
    """Cumulative degree histogram: entry ``k`` (``0..max_degree``) counts the nodes of degree
    ``≤ k`` (degrees above ``max_degree`` are clamped to it), an ``i64`` vector with ``l1_distance``
    (``output_metric=dp.l2_distance(T=dp.f64)``: the same vector under the ℓ2 rules of
    :data:`CUMULATIVE_DEGREE_HISTOGRAM_L2`, for OpenDP's Gaussian; below).

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

    **ℓ2 guarantee** (``output_metric=dp.l2_distance(T=dp.f64)``; a float rounded up; proofs in
    the rules' docstrings; on a domain of ``n`` nodes every bound but the padded one is capped at
    ``n·√B``; ``0`` for ``B = 0`` where the node set is fixed):

    * edge distance: ``2d`` (one edge between two nodes of one degree moves one entry by 2: ℓ2 = L1
      here); group distance ``k``: ``2dk``. Tight (``B ≥ 1``, ``2dk ≤ n``).
    * node distance: ``d·√(2D² + 2)`` (``√10 = 3.16`` for ``D = 2``, against L1 ``4``). Tight for
      ``B ≥ D`` and ``n ≥ 2dD``.
    * node-insertion distance: ``d·√(B + 1 − min(B, D) + D²)`` (``d`` for ``B = 0``). Tight.
    * padded degree distance ``θ``: ``d·√max(1, B − θ + 1)``, the square root of the L1 factor.
    * degree-sequence distance: ``2⌊d/2⌋``; edge-label distance: ``0``.

    :example:

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> space = dpg.graph_domain(max_degree=5), dpg.node_distance()
    >>> l2 = space >> dpg.then_cumulative_degree_histogram(output_metric=dp.l2_distance(T=dp.f64))
    >>> l2.map(1)  # √(2·5² + 2) = √52, against L1 10
    7.211102550927979
    """
    l2 = _wants_l2(output_metric, int_vector_space()[1], "dp.l1_distance(T=dp.i64)")
    query = CUMULATIVE_DEGREE_HISTOGRAM_L2 if l2 else make_cumulative_degree_histogram
    return _make_binned(input_domain, input_metric, max_degree, query, cumulative_degree_histogram, output_metric=_l2() if l2 else None)


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


CUMULATIVE_DEGREE_HISTOGRAM_L2 = variant(make_cumulative_degree_histogram, "l2")
"""The key of :func:`make_cumulative_degree_histogram`'s rules into ``dp.l2_distance(T=dp.f64)``
(query name ``"cumulative_degree_histogram_l2"``)."""


def _n_squared_times_bins(domain: GraphDomain, bins: int) -> int | None:
    """The cap ``n²·B`` of a squared ℓ2 change of the cumulative histogram on ``n`` nodes: entries
    ``0..B−1`` move by at most ``n`` each (entry ``B`` is the node count). Reached by all ``n``
    nodes going from degree 0 to ``B``."""
    return None if domain.num_nodes is None else domain.num_nodes**2 * bins


@stability_rule(CUMULATIVE_DEGREE_HISTOGRAM_L2, EdgeDistance, GroupDistance)
def _cum_l2_edge(domain, metric, bins):
    """``min(2dk, n·√B)`` (``k = 1`` for edge distance).

    The change is ``−f`` (*flows*) and ``Σ|f_b| ≤ Σ_w |Δ deg_w| ≤ 2dk``, so ``‖f‖₂ ≤ ‖f‖₁ ≤
    2dk``. Tight for ``B ≥ 1`` and ``2dk ≤ n``: ``dk`` disjoint edges between isolated nodes move
    entry 0 by ``2dk``. (One edge between nodes of different degrees gives only ``√2``.) Between
    ``n/2`` and ``n√B/2`` edges the minimum is an upper bound (an entry moves by at most ``n``).
    """
    per_unit, cap = 2 * _group_size(metric), _n_squared_times_bins(domain, bins)
    return _squared_map(lambda d: _capped((per_unit * d) ** 2, cap), bins=bins)


@stability_rule(CUMULATIVE_DEGREE_HISTOGRAM_L2, NodeDistance)
def _cum_l2_node(domain, metric, bins):
    """``min(d·√(2D² + 2), n·√B)`` (``0`` for ``D = 0``).

    *Per step* (``v`` adds ``a`` edges and removes ``r``, ``a, r ≤ D``; *one node at a time*): the
    change is ``−f``, ``f = f_y + s·1_J`` where the neighbours' ``f_y`` is at most a vertex
    ``a·e_i − r·e_k`` (*flows*) and ``v`` crosses the ``|J| ≤ |a − r|`` consecutive boundaries
    ``J`` in one direction ``s``. For ``a > r``: ``‖f‖² ≤ (a + 1)² + r² + (a − r − 1)``, at most
    ``(D + 1)² + (D − 1)² = 2D² + 2`` (``a = D``, ``r = D − 1``; ``r > a`` alike); ``2D²`` when
    ``a = r``. Then ``d`` steps.

    Tight for ``B ≥ D`` (``n ≥ 2dD``): ``v`` of degree ``D − 1`` (its neighbours leaves) drops them
    and joins a ``D``-clique: entry ``D − 1`` moves by ``−(D + 1)`` (the clique and ``v``), entry
    0 by ``D − 1`` (the leaves); for ``D = 1``, two isolated nodes joined. Below the
    ``√(L1·L∞) = √(2D(D + 1))`` per step for ``D ≥ 2``.
    """
    bound = require_max_degree(domain, "cumulative_degree_histogram")
    per_step, cap = (2 * bound * bound + 2) if bound else 0, _n_squared_times_bins(domain, bins)
    return _squared_map(lambda d: _capped(per_step * d * d, cap), bins=bins)


@stability_rule(CUMULATIVE_DEGREE_HISTOGRAM_L2, NodeInsertionDistance)
def _cum_l2_insertion(domain, metric, bins):
    """``d·√(B + 1 − min(B, D) + D²)`` (``d`` for ``B = 0``), at most ``n·√B`` on ``n`` nodes.

    *Per step* (a node of degree ``a ≤ D`` inserted or deleted): it adds ``±1`` to the entries
    ``c(a)..B`` and each neighbour crosses one boundary the other way: ``x = ±(1_{[c(a), B]} −
    f_y)``, ``f_y ≥ 0`` of total ``≤ a`` on the entries ``0..B−1``. At a vertex ``a·e_k``: ``(B +
    1 − c(a)) + a²`` for ``k < c(a)``, less otherwise; ``a² − min(a, B)`` grows with ``a``, so
    ``a = D`` is the worst. For ``B = 0`` the one entry is the node count: ``1`` per step.

    Tight for ``B ≥ 1``: a node of degree ``D`` joined to ``D`` isolated nodes (entry 0: ``−D``;
    entries ``min(B, D)..B``: ``+1``). For ``B ≥ D`` this is ``√(B + 1 − D + D²)`` against the L1
    ``B + 1``; for ``B < D``, ``√(D² + 1)`` against ``D + 1``.
    """
    bound = require_max_degree(domain, "cumulative_degree_histogram")
    per_step = 1 if bins == 0 else bins + 1 - min(bound, bins) + bound * bound
    cap = _n_squared_times_bins(domain, bins)
    return _squared_map(lambda d: _capped(per_step * d * d, cap), fixed_node_set=False)


@stability_rule(CUMULATIVE_DEGREE_HISTOGRAM_L2, PaddedDegreeDistance)
def _cum_l2_padded(domain, metric, bins):
    """``d·√u`` with ``u = max(1, B − θ + 1)``, the L1 rule's factor.

    A shared node whose degree moves by ``δ`` crosses ``≤ |δ|`` boundaries: ℓ2 ``≤ |δ|``. A node
    of degree ``a`` in one graph only adds ``±1_{[c(a), B]}``, ℓ2 ``√(B + 1 − c(a))``, and costs
    ``c = θ + 1 − a ≥ 1``: ``√(B + 1 − c(a)) ≤ c·√u`` (for ``a ≤ B``, ``B + 1 − a = (B − θ) + c ≤
    c²·u``; for ``a > B``, ``1 ≤ c``). The triangle inequality over all of them gives ``d·√u``.

    Tight at ``d = θ + 1`` (and its multiples): a ``(θ + 1)``-clique against no graph adds ``θ + 1``
    to the entries ``c(θ)..B``. For ``1 ≤ B ≤ θ`` also at every even ``d`` (``d/2`` edges between
    isolated shared nodes); otherwise an upper bound.
    """
    per_unit = max(1, bins - metric.theta + 1)
    return _squared_map(lambda d: per_unit * d * d, fixed_node_set=False)


@stability_rule(CUMULATIVE_DEGREE_HISTOGRAM_L2, EdgeLabelDistance)
def _cum_l2_label(domain, metric, bins):
    """``0``: the structure is public and equal."""
    return lambda d_in: 0.0 * integer_d_in(d_in)


@stability_rule(CUMULATIVE_DEGREE_HISTOGRAM_L2, DegreeSequenceDistance)
def _cum_l2_degseq(domain, metric, bins):
    """``min(2⌊d/2⌋, n·√B)``: ``‖f‖₂ ≤ ‖f‖₁ ≤ Σ_w |Δ deg_w|``, an even number (:func:`_even_part`).
    Tight for ``B ≥ 1`` and ``2⌊d/2⌋ ≤ n`` (``⌊d/2⌋`` edges between isolated nodes move entry 0
    by ``2⌊d/2⌋``)."""
    cap = _n_squared_times_bins(domain, bins)
    return _squared_map(lambda d: _capped(_even_part(d) ** 2, cap), bins=bins)


# ---------------------------------------------------------------------------- tail counts
def degree_tail_counts(graph: Graph, thresholds) -> list[int]:
    """Non-private: for each threshold ``t``, the number of nodes of degree ``> t``."""
    deg = np.sort(graph.degrees)
    return (deg.size - np.searchsorted(deg, np.asarray(thresholds, dtype=np.int64), side="right")).astype(np.int64).tolist()


def make_degree_tail_counts(
    input_domain: dp.Domain, input_metric: dp.Metric, thresholds, output_metric: dp.Metric | None = None
) -> dp.Transformation:
    """For each public threshold ``t`` of ``thresholds``, the number of nodes of degree above
    ``t``: an ``i64`` vector with ``linf_distance`` (the input of a selection such as OpenDP's
    ``make_noisy_max``; :func:`opendp_graph.make_private_degree_distribution` scores the
    projection bounds with it), or, with ``output_metric=dp.l2_distance(T=dp.f64)``, the same
    vector under the ℓ2 rules of :data:`DEGREE_TAIL_COUNTS_L2` (for OpenDP's Gaussian; below).

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

    **ℓ2 guarantee** (``output_metric=dp.l2_distance(T=dp.f64)``; a float rounded up; proofs in the
    rules' docstrings). A threshold ``t ≥ D`` (the domain's ``max_degree``; for the padded metric
    ``min(θ, D)``) never moves; of the others, let ``μ`` be the most times one value is repeated in
    ``thresholds`` and ``m`` how many there are (with repeats):

    * edge distance: ``2d·√μ`` (two nodes of degree ``t`` crossing it together); group distance
      ``k``: ``2dk·√μ``. Tight.
    * degree-sequence distance: ``2⌊d/2⌋·√μ``. Tight.
    * padded degree distance ``θ``: ``d·√m``: a node present in one graph only, of degree ``θ``,
      costs 1 and moves every entry below ``θ``. Tight at ``d = θ + 1``.
    * edge-label distance: ``0``.
    """
    if isinstance(thresholds, (str, bytes)) or not hasattr(thresholds, "__iter__"):
        raise TypeError(f"thresholds must be a sequence of non-negative integers, got {thresholds!r}")
    values = [check_bins(t, graph_domain_descriptor(input_domain), "thresholds") for t in thresholds]
    if not values:
        raise ValueError("thresholds must not be empty")
    l2 = _wants_l2(output_metric, dp.linf_distance(T=dp.i64), "dp.linf_distance(T=dp.i64)")
    return make_graph_transformation(
        input_domain,
        input_metric,
        query=DEGREE_TAIL_COUNTS_L2 if l2 else make_degree_tail_counts,
        output_domain=dp.vector_domain(dp.atom_domain(T=dp.i64), size=len(values)),
        output_metric=_l2() if l2 else dp.linf_distance(T=dp.i64),
        function=lambda g: degree_tail_counts(g, values),
        params={"thresholds": tuple(values)} if l2 else None,
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


DEGREE_TAIL_COUNTS_L2 = variant(make_degree_tail_counts, "l2")
"""The key of :func:`make_degree_tail_counts`' rules into ``dp.l2_distance(T=dp.f64)`` (query
name ``"degree_tail_counts_l2"``); its rules receive the ``thresholds`` (a tuple)."""


def _moving_thresholds(thresholds, top: int | None) -> Counter:
    """How many times each threshold below ``top`` (every one if ``None``) is repeated: a
    threshold ``t ≥ top`` counts nodes of degree above the largest possible degree, always 0."""
    return Counter(t for t in thresholds if top is None or t < top)


def _most_repeated(thresholds, top: int | None) -> int:
    """``μ``: the largest multiplicity of a threshold value below ``top`` (``0`` if none)."""
    return max(_moving_thresholds(thresholds, top).values(), default=0)


@stability_rule(DEGREE_TAIL_COUNTS_L2, EdgeDistance, GroupDistance)
def _tail_l2_edge(domain, metric, thresholds):
    """``2dk·√μ`` (``k = 1`` for edge distance).

    The entry of a threshold ``t`` moves by ``F(t)``, the net number of nodes whose degree crosses
    from ``t`` to ``t + 1`` (*flows*, unclamped), and an entry repeated ``μ(t)`` times counts
    ``μ(t)`` times: ``‖x‖² = Σ_t μ(t)·F(t)²`` with ``Σ_t |F(t)| ≤ Σ_w |Δ deg_w| ≤ 2dk``; convex, so
    largest with all of it at one ``t``: ``(2dk)²·μ``. Only ``t < D`` can move (a degree ``t + 1 ≤
    D``). Tight: ``dk`` disjoint edges between ``2dk`` nodes of degree ``t``, a most repeated
    threshold below ``D``. (The L∞ rule's ``2dk`` times ``√μ``; ``√(number of thresholds)`` times
    it would be the generic bound.)
    """
    per_unit = 2 * _group_size(metric)
    repeats = _most_repeated(thresholds, domain.max_degree)
    return _squared_map(lambda d: (per_unit * d) ** 2 * repeats)


@stability_rule(DEGREE_TAIL_COUNTS_L2, DegreeSequenceDistance)
def _tail_l2_degseq(domain, metric, thresholds):
    """``2⌊d/2⌋·√μ``: as for edge distance with ``Σ_t |F(t)| ≤ Σ_w |Δ deg_w| ≤ 2⌊d/2⌋``
    (:func:`_even_part`). Tight (``⌊d/2⌋`` edges between nodes of degree ``t``)."""
    repeats = _most_repeated(thresholds, domain.max_degree)
    return _squared_map(lambda d: _even_part(d) ** 2 * repeats)


@stability_rule(DEGREE_TAIL_COUNTS_L2, PaddedDegreeDistance)
def _tail_l2_padded(domain, metric, thresholds):
    """``d·√m``, ``m`` the number of thresholds (with repeats) below ``min(θ, D)``.

    A shared node whose degree moves by ``δ`` crosses ``|δ|`` thresholds' values, each entry of
    them by one: ℓ2 ``≤ |δ|·√μ ≤ |δ|·√m``. A node of degree ``a ≤ θ`` in one graph only moves
    every entry with ``t < a`` by one (ℓ2 ``≤ √m``) and costs ``θ + 1 − a ≥ 1``. The triangle
    inequality gives ``d·√m``. Tight at ``d = θ + 1`` (for ``D ≥ θ``, as after the projection): a
    ``(θ + 1)``-clique against no graph moves every entry below ``θ`` by ``θ + 1``. Otherwise an
    upper bound (``√m`` per unit where the L∞
    rule has 1: one inserted node of degree ``θ`` moves all those entries).
    """
    top = metric.theta if domain.max_degree is None else min(metric.theta, domain.max_degree)
    moving = sum(_moving_thresholds(thresholds, top).values())
    return _squared_map(lambda d: d * d * moving)


@stability_rule(DEGREE_TAIL_COUNTS_L2, EdgeLabelDistance)
def _tail_l2_label(domain, metric, thresholds):
    """``0``: the structure is public and equal."""
    return lambda d_in: 0.0 * integer_d_in(d_in)
