"""Neighbour notions for graphs, as OpenDP metrics.

Each builder returns ``dp.user_distance(identifier, descriptor)`` where the descriptor is a
frozen dataclass whose ``repr`` (every field) is the identifier, so two metrics chain exactly
when they mean the same thing. Every descriptor has an exact ``distance(g1, g2)`` in plain
Python, which the tests use to check stability maps against brute force.

All metrics here are integer-valued. All but two put graphs on different node sets at distance
``inf`` (the node set is public): :func:`node_insertion_distance` (unbounded node DP: a node
with all its edges is added or removed, so the node set is private) and the output metric of
the degree projection under it, :func:`padded_degree_distance`. Under those two a node is
identified by its public id (``graph.node_ids[i]``, or ``i`` for a graph without ids).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import opendp.prelude as dp

from ._checks import positive_integer
from .graph import Graph

__all__ = [
    "MetricDescriptor",
    "EdgeDistance",
    "NodeDistance",
    "NodeInsertionDistance",
    "PaddedDegreeDistance",
    "EdgeLabelDistance",
    "GroupDistance",
    "DegreeSequenceDistance",
    "edge_distance",
    "node_distance",
    "node_insertion_distance",
    "padded_degree_distance",
    "edge_label_distance",
    "group_distance",
    "degree_sequence_distance",
    "metric_descriptor",
    "changed_pairs",
    "check_d_in",
    "integer_d_in",
]

INF = math.inf


def _labelled_edges(g: Graph) -> dict[int, frozenset[str] | None]:
    keys = g.edge_keys.tolist()
    if not g.is_labeled:
        return dict.fromkeys(keys)
    return dict(zip(keys, g.label_sets()))


def _differing_edges(g1: Graph, g2: Graph) -> tuple[list[int], list[int], list[int]]:
    """Edge keys only in g1, only in g2, and in both with different labels."""
    a, b = _labelled_edges(g1), _labelled_edges(g2)
    only1 = [k for k in a if k not in b]
    only2 = [k for k in b if k not in a]
    changed = [k for k in a if k in b and a[k] != b[k]]
    return only1, only2, changed


def changed_pairs(g1: Graph, g2: Graph) -> list[tuple[int, int]]:
    """Pairs ``(u, v)``, ``u < v``, present in only one graph or labelled differently (both graphs
    on the same node set)."""
    n = max(g1.num_nodes, 1)
    only1, only2, changed = _differing_edges(g1, g2)
    return sorted((k // n, k % n) for k in only1 + only2 + changed)


class MetricDescriptor:
    """The base of every metric descriptor: it declares each capability a stability rule or a
    query may ask of a metric, with its default. A descriptor overrides what differs from the
    default (a class attribute, a dataclass field or a property); queries read these attributes
    and nothing undeclared.

    :func:`metric_descriptor` refuses a descriptor that does not derive from this class, and the
    rule table (:mod:`opendp_graph.transformations.rules`) refuses to register a rule for a
    metric type that does not: a user-made neighbour notion subclasses it (usually as a frozen
    dataclass, whose ``repr`` is then its OpenDP identifier).

    >>> from opendp_graph.core.metrics import MetricDescriptor
    >>> class Whole(MetricDescriptor):
    ...     def distance(self, g1, g2):
    ...         return 0 if g1 == g2 else float("inf")
    >>> m = Whole()
    >>> m.requires_labeled_domain, m.label_cap_lowers_sensitivity, m.vocabulary, m.one_edge_distance
    (False, True, None, None)
    """

    requires_labeled_domain: ClassVar[bool] = False
    """Only edge labels are secret: every query refuses an unlabeled domain (where it would
    protect nothing). Read by :func:`~opendp_graph.transformations.make_graph_transformation`."""

    label_cap_lowers_sensitivity: ClassVar[bool] = True
    """A per-edge cap ``c`` (``max_labels_per_edge``) can lower the label queries' sensitivity;
    ``False``: the label queries apply no cap (Pufferfish). Read by the label queries."""

    vocabulary: tuple[str, ...] | None = None
    """The properties the label queries may read (a tuple), or ``None``: any. Read by the label
    queries and :func:`~opendp_graph.make_candidate_top_k`."""

    if TYPE_CHECKING:  # read-only: a descriptor overrides these with a class attribute or a property

        @property
        def one_edge_distance(self) -> float | None: ...
        @property
        def release_wrapper(self) -> str | None: ...

    else:
        one_edge_distance: float | None = None
        """The distance of a change of one edge (graphs on the same nodes differing in one edge):
        ``inf`` when some such change is not a finite distance (the metric does not protect edges),
        ``None`` when unknown. Read by :func:`~opendp_graph.interpret.edge_secret_guarantee`."""

        release_wrapper: str | None = None
        """The measurement every release under this metric must be wrapped in (its name, e.g. the
        δ-relaxed Pufferfish metric's ``make_pufferfish_approximate``), or ``None``. Read by
        :func:`~opendp_graph.context`, which refuses OpenDP's own noise on such a metric when the
        query is written (the wrapped release goes through ``ctx(measurement)``)."""

    missing_rule_hint: ClassVar[str | None] = None
    """What to do instead when a query has no rule under this metric (added to the rule table's
    refusal), or ``None``. Read by :func:`~opendp_graph.transformations.rules.resolve`."""

    def check_graph(self, graph: Graph) -> None:
        """A precondition of the metric's guarantee on the part of the graph it treats as public
        (raise ``ValueError`` to refuse the graph); the default accepts every graph. Every query
        under the metric calls it with the domain check, before it reads the graph."""

    def stability_on(self, domain: Any, stability: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """A rule's stability map as this metric lets it be used on ``domain``: where no two
        graphs of the domain can be at some distances, a map there would state a guarantee about
        no pair, and the metric refuses those ``d_in``. The default returns ``stability``
        unchanged. Read by :func:`~opendp_graph.transformations.make_graph_transformation`."""
        return stability

    def distance(self, g1: Graph, g2: Graph) -> float:
        """The exact distance of two graphs, in plain Python (for tests on small graphs); the
        default has none."""
        raise NotImplementedError(f"{type(self).__name__} has no exact distance")


@dataclass(frozen=True)
class EdgeDistance(MetricDescriptor):
    """Edge-level: the size of the symmetric difference of the (edge, labels) records.

    Adding or removing one edge is distance 1; changing the labels of an existing edge is a
    removal plus an addition, distance 2 (exactly like OpenDP's ``symmetric_distance`` on records).
    """

    one_edge_distance: ClassVar[float] = 1  # by definition

    def distance(self, g1: Graph, g2: Graph) -> float:
        if not g1.same_node_set(g2):
            return INF
        only1, only2, changed = _differing_edges(g1, g2)
        return len(only1) + len(only2) + 2 * len(changed)


@dataclass(frozen=True)
class NodeDistance(MetricDescriptor):
    """Node-level (bounded): the least number of nodes whose incident edges (with their labels)
    must be rewired to turn one graph into the other; the node set itself is public and fixed.

    ``distance`` computes a minimum vertex cover of the differing edges exactly (exponential in
    the answer; for tests on small graphs).
    """

    one_edge_distance: ClassVar[float] = 1  # one endpoint's incident edges cover the change

    def distance(self, g1: Graph, g2: Graph) -> float:
        if not g1.same_node_set(g2):
            return INF
        return _min_vertex_cover_size(changed_pairs(g1, g2))


def _min_vertex_cover_size(pairs: list[tuple[int, int]]) -> int:
    def coverable(edges: list[tuple[int, int]], k: int) -> bool:
        if not edges:
            return True
        if k == 0:
            return False
        u, v = edges[0]  # one of u, v must be in the cover
        return coverable([e for e in edges if u not in e], k - 1) or coverable([e for e in edges if v not in e], k - 1)

    k = 0
    while not coverable(pairs, k):
        k += 1
    return k


def node_id_list(g: Graph) -> list:
    """The public id of every node: ``node_ids`` if the graph has them, else ``0..n−1``."""
    return list(g.node_ids) if g.node_ids is not None else list(range(g.num_nodes))


def _edges_by_id(g: Graph) -> dict[frozenset, frozenset[str] | None]:
    ids = node_id_list(g)
    labels = g.label_sets() if g.is_labeled else [None] * g.num_edges
    return {frozenset((ids[u], ids[v])): lab for u, v, lab in zip(g.src.tolist(), g.dst.tolist(), labels)}


@dataclass(frozen=True)
class NodeInsertionDistance(MetricDescriptor):
    """Node-level, unbounded (add/remove a node): the least number of node insertions and
    deletions, each with all of the node's edges (and their labels), that turn one graph into the
    other. Nodes are matched by their public id (``node_ids``, else the index).

    This is the node-DP notion of most of the literature (Kasiviswanathan et al. 2013; Day, Li &
    Lyu 2016): the *node set is private*, so a release under it must not rely on the number of
    nodes (a domain's ``num_nodes`` restricts it to graphs of one size, between which a rewired
    node is at distance 2). Rewiring one node (:func:`node_distance`) is a deletion and a
    re-insertion: distance 2 here; an added or removed node is distance 1.

    ``distance`` is ``|V₁ △ V₂| + 2·τ``, ``τ`` the minimum vertex cover of the edges that differ
    among the shared nodes (exponential in ``τ``; for tests on small graphs).
    """

    one_edge_distance: ClassVar[float] = 2  # delete an endpoint and insert it again without the edge

    def stability_on(self, domain: Any, stability: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """On a domain of ``num_nodes`` nodes one insertion changes the size, so no two distinct
        graphs of the domain are less than two insertions apart (a rewired node is two): a map at
        ``1 ≤ d_in < 2`` would state a guarantee about no pair of graphs, and is refused, naming
        what fits. Any other ``d_in`` keeps the rule's map (``d_in < 1``: identical graphs only)."""
        num_nodes = domain.num_nodes
        if num_nodes is None:
            return stability

        def checked(d_in: Any) -> Any:
            if integer_d_in(d_in) == 1:
                raise ValueError(
                    f"node_insertion_distance() at d_in = {d_in} on a domain of num_nodes={num_nodes}: one insertion "
                    "changes the number of nodes, so no two graphs of this domain are one insertion apart and the "
                    "guarantee would be empty; protect a node's edges with node_distance() (the node set public) at "
                    "d_in = 1, a rewired node with d_in = 2 here, or drop num_nodes from the domain"
                )
            return stability(d_in)

        return checked

    def distance(self, g1: Graph, g2: Graph) -> float:
        if g1.is_labeled != g2.is_labeled:
            return INF
        ids1, ids2 = set(node_id_list(g1)), set(node_id_list(g2))
        shared = ids1 & ids2
        e1, e2 = _edges_by_id(g1), _edges_by_id(g2)
        differing = [tuple(k) for k in set(e1) | set(e2) if k <= shared and e1.get(k, 0) != e2.get(k, 0)]
        # vertex cover over ids: relabel them 0.. for the solver
        index = {x: i for i, x in enumerate(shared)}
        pairs = [(index[a], index[b]) for a, b in differing]
        return len(ids1 ^ ids2) + 2 * _min_vertex_cover_size(pairs)


# the refusal's advice under the projection's two output metrics (they see degrees only)
_PROJECTION_OUTPUT_HINT = (
    "this metric is the output of make_degree_projection and sees degrees only, so a query that reads "
    "edges (triangles) has none after the projection: run it on graph_domain(max_degree=D) under "
    "node_distance() or node_insertion_distance() directly (its rule uses the public D)"
)


@dataclass(frozen=True)
class PaddedDegreeDistance(MetricDescriptor):
    """L1 distance between degree vectors indexed by node id, an absent node counted at degree
    ``θ + 1``: ``Σ_{x ∈ V₁∩V₂} |deg₁ x − deg₂ x| + Σ_{x ∈ V₁△V₂} (θ + 1 − deg x)`` (a
    pseudo-metric: the L1 distance of the padded vectors). Graphs with a degree above ``θ`` are at
    distance ``inf``.

    The output metric of :func:`~opendp_graph.make_degree_projection` under
    :func:`node_insertion_distance`. The padding makes an absent node sit *above* every entry of
    a ``θ``-cumulative histogram, so a node at degree ``a`` and an absent one differ in exactly
    ``θ + 1 − a`` of its entries: the cumulative histogram moves by at most this distance, and an
    inserted node of kept degree ``k`` costs ``θ + 1 − k`` here while moving its ``k`` neighbours
    by at most ``k`` in all: ``θ + 1``, the sensitivity Day, Li & Lyu (SIGMOD 2016, §4) give
    for the ``θ``-cumulative histogram after their edge-addition projection (proof in
    :func:`~opendp_graph.make_degree_projection`).
    """

    theta: int

    one_edge_distance: ClassVar[float] = 2  # both endpoints' degrees move by one

    missing_rule_hint: ClassVar[str | None] = _PROJECTION_OUTPUT_HINT

    def distance(self, g1: Graph, g2: Graph) -> float:
        if g1.max_degree > self.theta or g2.max_degree > self.theta:
            return INF
        d1 = dict(zip(node_id_list(g1), g1.degrees.tolist()))
        d2 = dict(zip(node_id_list(g2), g2.degrees.tolist()))
        pad = self.theta + 1
        return sum(abs(d1.get(x, pad) - d2.get(x, pad)) for x in set(d1) | set(d2))


@dataclass(frozen=True)
class EdgeLabelDistance(MetricDescriptor):
    """Edge-label (confidentiality) setting: the structure is public and equal; the distance is
    the number of edges whose label sets differ (Shafieinejad et al., §3.2). Graphs with
    different structures are at distance ``inf``.

    Only the labels are secret under this metric, so queries refuse an unlabeled domain: there
    every graph is at distance 0 or ``inf`` from every other and a release would report ε = 0
    while protecting nothing.
    """

    requires_labeled_domain: ClassVar[bool] = True
    one_edge_distance: ClassVar[float] = INF  # the structure is public: adding an edge is not a neighbouring change

    def distance(self, g1: Graph, g2: Graph) -> float:
        if not g1.same_node_set(g2) or not np.array_equal(g1.edge_keys, g2.edge_keys):
            return INF
        if g1.is_labeled != g2.is_labeled:
            return INF
        if not g1.is_labeled:
            return 0
        return sum(a != b for a, b in zip(g1.label_sets(), g2.label_sets()))


@dataclass(frozen=True)
class GroupDistance(MetricDescriptor):
    """Group privacy: edge-level changes counted in groups of ``k`` edges,
    ``ceil(edge_distance / k)``. A metric because ``ceil(a/k) + ceil(b/k) ≥ ceil((a+b)/k)``.
    """

    k: int

    one_edge_distance: ClassVar[float] = 1  # ceil(1 / k) = 1

    def distance(self, g1: Graph, g2: Graph) -> float:
        d = EdgeDistance().distance(g1, g2)
        return d if d == INF else math.ceil(d / self.k)


@dataclass(frozen=True)
class DegreeSequenceDistance(MetricDescriptor):
    """L1 distance between degree sequences, ``Σ_v |deg₁(v) − deg₂(v)|`` (a pseudo-metric).

    The output metric of :func:`~opendp_graph.make_degree_projection`: the projection is not
    stable in edges (one changed input edge can start a long alternating cascade), but the degree
    sequence moves little, and degree-based queries only see the degree sequence.
    """

    one_edge_distance: ClassVar[float] = 2  # both endpoints' degrees move by one

    missing_rule_hint: ClassVar[str | None] = _PROJECTION_OUTPUT_HINT

    def distance(self, g1: Graph, g2: Graph) -> float:
        if not g1.same_node_set(g2):
            return INF
        return int(np.abs(g1.degrees - g2.degrees).sum())


def _metric(descriptor: Any) -> dp.Metric:
    dp.assert_features("honest-but-curious")
    return dp.user_distance(repr(descriptor), descriptor=descriptor)


def edge_distance() -> dp.Metric:
    """Edge-level neighbours: graphs on the same nodes differing in one edge are at distance 1.

    >>> import opendp_graph as dpg
    >>> dpg.edge_distance()
    EdgeDistance()
    """
    return _metric(EdgeDistance())


def node_distance() -> dp.Metric:
    """Node-level neighbours: graphs that differ only in the edges of one node are at distance 1."""
    return _metric(NodeDistance())


def node_insertion_distance() -> dp.Metric:
    """Node-level neighbours, unbounded: graphs that differ by one node and all its edges are at
    distance 1 (the node set is private). See :class:`NodeInsertionDistance`.

    >>> import opendp_graph as dpg
    >>> dpg.node_insertion_distance()
    NodeInsertionDistance()
    """
    return _metric(NodeInsertionDistance())


def padded_degree_distance(theta: int) -> dp.Metric:
    """Degree vectors by node id, an absent node at ``θ + 1`` (see :class:`PaddedDegreeDistance`)."""
    from ._checks import integer_at_least

    return _metric(PaddedDegreeDistance(integer_at_least("theta", theta, 0)))


def edge_label_distance() -> dp.Metric:
    """Same public structure; distance = number of edges whose label sets differ."""
    return _metric(EdgeLabelDistance())


def group_distance(k: int) -> dp.Metric:
    """Group privacy for groups of ``k`` edges: distance ``ceil(edge_distance / k)``.

    >>> import opendp_graph as dpg
    >>> dpg.group_distance(3)
    GroupDistance(k=3)
    """
    return _metric(GroupDistance(positive_integer("k", k)))


def degree_sequence_distance() -> dp.Metric:
    """L1 distance between degree sequences (see :class:`DegreeSequenceDistance`)."""
    return _metric(DegreeSequenceDistance())


def metric_descriptor(metric: Any) -> MetricDescriptor:
    """The Python descriptor behind an OpenDP metric, or a ``TypeError`` (also for a descriptor
    that does not derive from :class:`MetricDescriptor`)."""
    try:
        descriptor = metric.descriptor if isinstance(metric, dp.Metric) else None
    except Exception:  # built-in OpenDP metrics have no Python descriptor
        descriptor = None
    if descriptor is None:
        raise TypeError(f"input_metric must be a graph metric from opendp_graph (e.g. dpg.edge_distance()), got {metric!r}")
    if not isinstance(descriptor, MetricDescriptor):
        raise TypeError(
            f"the descriptor of {metric!r} is a {type(descriptor).__name__}, which does not derive from "
            "opendp_graph.core.metrics.MetricDescriptor (the declared capabilities of a graph metric): subclass it"
        )
    return descriptor


def check_d_in(d_in: Any) -> float:
    """Validate an input distance: a finite, non-negative real number (not bool, not NaN)."""
    if isinstance(d_in, bool) or not isinstance(d_in, Real):
        raise TypeError(f"d_in must be a number, got {d_in!r}")
    d = float(d_in)
    if math.isnan(d):
        raise ValueError("d_in must not be NaN")
    if d < 0:
        raise ValueError(f"d_in must be non-negative, got {d_in}")
    if math.isinf(d):
        raise ValueError("d_in must be finite")
    return d


def integer_d_in(d_in: Any) -> int:
    """Validate ``d_in`` for an integer-valued metric and round it down (sound: if the true
    distance is an integer ``≤ d_in`` it is ``≤ floor(d_in)``). The floor is taken of ``d_in``
    itself, not of its float: ``float(2**53 + 1)`` is ``2**53``, which would round a large
    integer distance *down* and make every map built on it under-report."""
    check_d_in(d_in)
    if isinstance(d_in, Integral):  # numpy integers too (their floor goes through a float)
        return int(d_in)
    return int(math.floor(d_in))
