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

import hashlib
import numbers
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import opendp.prelude as dp

from ..core._checks import positive_integer
from ..core.domains import graph_domain, graph_domain_descriptor
from ..core.graph import Graph
from ..core.metrics import (
    EdgeDistance,
    EdgeLabelDistance,
    GroupDistance,
    NodeDistance,
    NodeInsertionDistance,
    degree_sequence_distance,
    integer_d_in,
    metric_descriptor,
    padded_degree_distance,
)
from ._core import make_graph_transformation, then
from .rules import stability_rule

__all__ = ["make_degree_projection", "then_degree_projection", "degree_projection", "edge_order", "node_codes"]


def _splitmix64(z: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _builtin(node_id):
    """The built-in value an id of a subclass or a NumPy scalar type equals: ``np.str_`` (any
    ``str`` subclass) as its ``str``, ``np.bytes_`` (any ``bytes`` subclass) as its ``bytes``,
    ``np.bool_`` as its ``bool``; any other id unchanged."""
    if isinstance(node_id, str):
        return node_id if type(node_id) is str else "".join((node_id,))
    if isinstance(node_id, bytes):
        return node_id if type(node_id) is bytes else b"".join((node_id,))
    if isinstance(node_id, np.bool_):
        return bool(node_id)
    return node_id


def _exact_number(node_id):
    """The exact value of a numeric id as a ``Fraction`` (a complex id with no imaginary part
    counts as its real part), or ``None``: not a number, a complex number off the real line, or
    a nan or infinity."""
    if not isinstance(node_id, (numbers.Complex, Decimal)):
        return None
    value: Any = node_id  # a number of any type (the numbers ABCs have no static types)
    if isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real):
        if value.imag != 0:
            return None
        value = value.real
    try:
        return Fraction(value) if isinstance(value, (numbers.Rational, Decimal)) else Fraction(float(value))
    except (ValueError, OverflowError, TypeError):  # nan, ±inf
        return None


def _canonical(node_id) -> str:
    """A text that two ids share exactly when Python finds them equal (for numbers of any type,
    strings, bytes, and tuples and frozensets of these, NumPy scalars included): the metrics match
    nodes by ``==`` (and hash), so ``1``, ``1.0``, ``True``, ``np.int64(1)``, ``np.True_``,
    ``Fraction(1)`` and ``Decimal("1")`` are one node, and so are ``"a"`` and ``np.str_("a")``:
    each group must get one code."""
    node_id = _builtin(node_id)
    if isinstance(node_id, (str, bytes)):
        return ("s" if isinstance(node_id, str) else "b") + repr(node_id)
    if isinstance(node_id, tuple):
        return "t(" + ",".join(_canonical(x) for x in node_id) + ")"
    if isinstance(node_id, frozenset):  # by its members' texts in sorted order (a set's repr follows its hash table)
        return "z{" + ",".join(sorted(_canonical(x) for x in node_id)) + "}"
    exact = _exact_number(node_id)
    if exact is not None:
        return f"q{exact.numerator}/{exact.denominator}"
    if isinstance(node_id, numbers.Complex) and not isinstance(node_id, numbers.Real) and node_id.imag != 0:
        return "c(" + _canonical(node_id.real) + "," + _canonical(node_id.imag) + ")"
    if isinstance(node_id, (numbers.Complex, Decimal)):  # nan, ±inf: equal only to themselves (or never)
        return "f" + repr(float(node_id.real if isinstance(node_id, numbers.Complex) else node_id))
    return "r" + type(node_id).__qualname__ + ":" + repr(node_id)


def _id_code(node_id) -> int:
    """A 64-bit code of one public node id, a function of the id's equality class alone: an id
    equal to an integer in the int64 range (``3``, ``3.0``, ``np.int32(3)``, ``Fraction(3)``;
    ``True``/``np.True_`` is ``1``) is that integer (two's complement), anything else a BLAKE2b
    digest of :func:`_canonical` (numbers by their exact value, so equal ids of different numeric
    types share it; ``str``/``bytes`` subclasses such as ``np.str_`` by their ``str``/``bytes``
    value). Ids of other types are coded by type and ``repr``: two such ids that compare equal
    must be of one type with one ``repr``."""
    value: int | None
    if isinstance(node_id, (int, np.integer, np.bool_)):
        value = int(node_id)
    else:
        exact = _exact_number(node_id)
        value = exact.numerator if exact is not None and exact.denominator == 1 else None
    if value is not None and -(2**63) <= value < 2**63:
        return value & (2**64 - 1)
    return int.from_bytes(hashlib.blake2b(_canonical(node_id).encode(), digest_size=8).digest(), "little")


def node_codes(graph: Graph) -> np.ndarray:
    """Each node's 64-bit id code (``0..n−1`` for a graph without ``node_ids``): :func:`_id_code`,
    one code for ids equal under ``==`` whatever their type (``"a"`` and ``np.str_("a")``)."""
    if graph.node_ids is None:
        return np.arange(graph.num_nodes, dtype=np.uint64)
    return np.fromiter((_id_code(x) for x in graph.node_ids), dtype=np.uint64, count=graph.num_nodes)


def _tie_ranks(graph: Graph, codes: np.ndarray) -> np.ndarray | None:
    """``None`` when no two nodes share a code (the common case: only a sort of the codes is
    spent); else each node's rank by :func:`_canonical` text among the nodes whose code another
    node shares (``1, 2, …``; equal texts one rank), ``0`` for the others. Two nodes of one code
    thus compare by their texts, a function of the two ids alone."""
    if graph.node_ids is None or len(codes) < 2:  # codes 0..n−1 are distinct
        return None
    ordered = np.sort(codes)
    repeated = ordered[1:][ordered[1:] == ordered[:-1]]
    if len(repeated) == 0:
        return None
    colliding = np.flatnonzero(np.isin(codes, repeated)).tolist()
    texts = {i: _canonical(graph.node_ids[i]) for i in colliding}
    rank = {text: r for r, text in enumerate(sorted(set(texts.values())), start=1)}
    ranks = np.zeros(len(codes), dtype=np.int64)
    ranks[colliding] = [rank[texts[i]] for i in colliding]
    return ranks


def edge_order(graph: Graph) -> np.ndarray:
    """Positions of ``graph``'s edges in the public scanning order.

    The order ranks every *possible* pair of node ids ``{x, y}`` by a fixed 64-bit mix
    (SplitMix64) of the pair's id codes (:func:`node_codes`), ties broken by the codes (lower code
    first, then higher), and, where two ids' 64-bit codes collide (an integer id equal to another
    id's digest, or two digests alike), by the ids' :func:`_canonical` texts: each node's key is
    ``(code, text)``, each pair's ends are ordered by it, and pairs are sorted by ``(mix, lower
    key, higher key)``. So it depends on the pair of ids only (ids equal under ``==`` are one id
    with one code and one text), never on the nodes' positions or on which other nodes or edges
    exist: a graph with one more node scans the other graph's edges in the same relative order,
    which the projection's guarantee under node insertion needs. It behaves like a public random
    permutation (low ids are not favoured). For a graph without ``node_ids`` the codes are the
    indices. Ids that are unequal yet share their text (two nan objects, objects of one type with
    one ``repr``) stay tied and keep their position order.
    """
    codes = node_codes(graph)
    a, b = codes[graph.src], codes[graph.dst]
    ranks = _tie_ranks(graph, codes)
    if ranks is None:  # every key is its code
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        return np.lexsort((hi, lo, _splitmix64((lo << np.uint64(32)) ^ hi)))
    ra, rb = ranks[graph.src], ranks[graph.dst]
    swap = (a > b) | ((a == b) & (ra > rb))
    lo, hi = np.where(swap, b, a), np.where(swap, a, b)
    rank_lo, rank_hi = np.where(swap, rb, ra), np.where(swap, ra, rb)
    return np.lexsort((rank_hi, hi, rank_lo, lo, _splitmix64((lo << np.uint64(32)) ^ hi)))


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

    Output: ``graph_domain(num_nodes=<input's>, max_degree=K)``, ``K = min(θ, D)`` (labels are
    dropped), with :func:`~opendp_graph.degree_sequence_distance`, or, from
    :func:`~opendp_graph.node_insertion_distance` (whose graphs differ in their node sets),
    :func:`~opendp_graph.padded_degree_distance` ``(K)``.

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
    This is the bounded (rewiring) analogue of Day, Li & Lyu's result for node insertion.

    * node-insertion distance (add/remove a node; output: padded degree distance ``K``):
      ``(K + 1)·d``. *Proof.* Let ``g1 = g0 + v``. The scanning order depends on id pairs only
      (:func:`edge_order`: ids equal under ``==`` share one code, whatever their type, and
      colliding codes are ordered by the ids' text, never by node position, which the metric
      does not see), so the scan of ``g1`` meets ``g0``'s edges in ``g0``'s order, and the
      potential argument above with ``S = {v}`` (``v`` isolated in ``g0``) gives
      ``Σ_{w ≠ v} |δ(w)| ≤ k_v``, ``k_v ≤ K`` the kept degree of ``v`` in ``P(g1)``. ``v`` is absent from ``P(g0)``: it costs
      ``K + 1 − k_v`` in the padded distance, in all ``≤ K + 1``. ``d`` insertions and deletions
      chain through induced subgraphs of the two graphs (in the domain). Tight (``v`` joined to
      ``K`` isolated nodes: ``K`` degrees move by one, and ``v`` costs one). Chained with
      :func:`make_cumulative_degree_histogram` (``max_degree=K``) this is ``K + 1``: Day, Li &
      Lyu's (SIGMOD 2016, §4) ``θ + 1`` for the ``θ``-cumulative histogram.

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
    kept = _kept_degree_bound(domain, theta)
    insertion = isinstance(metric_descriptor(input_metric), NodeInsertionDistance)
    projection = make_graph_transformation(
        input_domain,
        input_metric,
        query="degree_projection",
        output_domain=graph_domain(num_nodes=domain.num_nodes, max_degree=kept),
        output_metric=padded_degree_distance(kept) if insertion else degree_sequence_distance(),
        function=lambda g: degree_projection(g, theta),
        params={"theta": theta},
    )
    # on a domain whose degrees are at most θ the projection keeps every edge: dpg.accuracy then
    # names no bias for it
    projection.projection_binds = domain.max_degree is None or theta < domain.max_degree
    return projection


then_degree_projection = then(make_degree_projection)


def _kept_degree_bound(domain, theta: int) -> int:
    """Most edges the projection keeps at a node: ``θ``, and no more than the domain's degree bound."""
    return theta if domain.max_degree is None else min(theta, domain.max_degree)


@stability_rule(make_degree_projection, NodeDistance)
def _proj_node(domain, metric, theta):
    bound = 2 * _kept_degree_bound(domain, theta)
    return lambda d_in: bound * integer_d_in(d_in)


@stability_rule(make_degree_projection, NodeInsertionDistance)
def _proj_insertion(domain, metric, theta):
    per_node = _kept_degree_bound(domain, theta) + 1
    return lambda d_in: per_node * integer_d_in(d_in)


@stability_rule(make_degree_projection, EdgeDistance, GroupDistance)
def _proj_edge(domain, metric, theta):
    k = metric.k if isinstance(metric, GroupDistance) else 1
    return lambda d_in: 2 * k * integer_d_in(d_in)


@stability_rule(make_degree_projection, EdgeLabelDistance)
def _proj_label(domain, metric, theta):
    return lambda d_in: 0 * integer_d_in(d_in)
