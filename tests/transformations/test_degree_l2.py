"""ℓ2 output metrics of the degree queries (``output_metric=dp.l2_distance(T=dp.f64)``, the
variants DEGREE_HISTOGRAM_L2, CUMULATIVE_DEGREE_HISTOGRAM_L2 and DEGREE_TAIL_COUNTS_L2).

Every rule is tried against brute force: every pair of graphs on 4 nodes (exact distances), every
one-edge change and every one- and two-node rewiring of every graph on 5 nodes, every node
deletion of every graph on 4 and 5 nodes, and every pair of graphs on subsets of 4 node ids for
the padded metric. The largest squared change must stay within the map, and where a rule's
docstring says tight it must reach it: the map is then exactly the least float at or above the
square root of the largest squared change seen. Witnesses of the extreme cases on larger graphs,
random larger graphs, the projection's chains and OpenDP's Gaussian boundary complete it.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import lru_cache

import numpy as np
import opendp.prelude as dp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opendp_graph as dpg
from opendp_graph import Graph
from opendp_graph.core.metrics import (
    DegreeSequenceDistance,
    EdgeDistance,
    EdgeLabelDistance,
    GroupDistance,
    NodeDistance,
    NodeInsertionDistance,
    PaddedDegreeDistance,
)
from opendp_graph.transformations import rules
from opendp_graph.transformations._core import sqrt_up as _sqrt_up
from opendp_graph.transformations.degrees import (
    CUMULATIVE_DEGREE_HISTOGRAM_L2,
    DEGREE_HISTOGRAM_L2,
    DEGREE_TAIL_COUNTS_L2,
    cumulative_degree_histogram,
    degree_histogram,
    degree_tail_counts,
)
from opendp_graph.transformations.projection import degree_projection
from opendp_graph.verify.testing import all_graphs, all_labelings, check_stability, edge_flips, node_rewirings
from tests.transformations.test_node_insertion import insertion_pairs, without

L2 = dp.l2_distance(T=dp.f64)
HIST, CUM, TAIL = dpg.make_degree_histogram, dpg.make_cumulative_degree_histogram, dpg.make_degree_tail_counts


def square(a, b) -> int:
    """The squared ℓ2 distance of two integer vectors, exactly."""
    return int(((np.asarray(a, dtype=np.int64) - np.asarray(b, dtype=np.int64)) ** 2).sum())


def l2(a, b) -> float:
    return math.sqrt(square(a, b))


def plain(make, argument):
    """The query's own non-private function (what the transformation computes once the domain
    check passes), for the large pair sets: a call through OpenDP costs far more."""
    function = {HIST: degree_histogram, CUM: cumulative_degree_histogram, TAIL: degree_tail_counts}[make]
    return lambda g: function(g, argument)


def within(bound: float, sq: int) -> bool:
    """``√sq ≤ bound``, exactly."""
    return Fraction(bound) ** 2 >= sq


def reached(bound: float, sq: int) -> bool:
    """The map is the least float ``≥ √sq``: nothing smaller would be sound."""
    return bound == _sqrt_up(sq)


# ----------------------------------------------------------------------------- the graph sets
GRAPHS4 = list(all_graphs(4))
PAIRS4 = list(itertools.combinations_with_replacement(range(len(GRAPHS4)), 2))
GRAPHS5 = list(all_graphs(5))  # GRAPHS5[mask]: edge i of combinations(range(5), 2) iff bit i
_PAIR_BITS5 = list(itertools.combinations(range(5), 2))
_NODE_MASK5 = [sum(1 << i for i, e in enumerate(_PAIR_BITS5) if v in e) for v in range(5)]
MAXDEG5 = np.array([g.max_degree for g in GRAPHS5])
MAXDEG4 = np.array([g.max_degree for g in GRAPHS4])


def _submasks(mask: int) -> list[int]:
    out, sub = [], mask
    while True:
        out.append(sub)
        if sub == 0:
            return out
        sub = (sub - 1) & mask


def _rewirings5(nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs ``(i, j)`` of GRAPHS5 where ``j`` rewires the edges at ``nodes`` nodes of ``i``
    (every choice of ``nodes`` nodes and of their new edges): node distance at most ``nodes``."""
    first, second = [], []
    masks = np.arange(1 << 10, dtype=np.int64)
    for chosen in itertools.combinations(range(5), nodes):
        touched = 0
        for v in chosen:
            touched |= _NODE_MASK5[v]
        subs = np.array(_submasks(touched), dtype=np.int64)
        first.append(np.repeat(masks, len(subs)))
        second.append(((masks & ~touched)[:, None] | subs[None, :]).ravel())
    return np.concatenate(first), np.concatenate(second)


EDGE5 = (np.repeat(np.arange(1024), 10), np.arange(1024).repeat(10) ^ (1 << np.tile(np.arange(10), 1024)))
NODE5_ONE = _rewirings5(1)
NODE5_TWO = _rewirings5(2)


@lru_cache(maxsize=None)
def _distances4(metric_name: str) -> np.ndarray:
    metric = {
        "edge": EdgeDistance(),
        "group2": GroupDistance(2),
        "node": NodeDistance(),
        "degseq": DegreeSequenceDistance(),
    }[metric_name]
    return np.array([metric.distance(GRAPHS4[i], GRAPHS4[j]) for i, j in PAIRS4])


def _outputs(t, graphs, members, f=None) -> np.ndarray:
    """``t`` on every graph of ``members`` (a boolean mask over ``graphs``), zeros elsewhere; with
    ``f`` (the query's :func:`plain` function) ``f`` instead, checked against ``t`` on a few."""
    inside = np.flatnonzero(members)
    out = np.zeros((len(graphs), len(t(graphs[inside[0]]))), dtype=np.int64)
    for k in inside:
        out[k] = t(graphs[k]) if f is None else f(graphs[k])
    if f is not None:
        for k in inside[:: max(1, len(inside) // 7)]:
            assert t(graphs[k]) == out[k].tolist()
    return out


def _worst_by_distance(out, i, j, distance, keep) -> dict[int, int]:
    """The largest squared change among the kept pairs at each input distance."""
    i, j, distance = i[keep], j[keep], distance[keep]
    squares = ((out[i] - out[j]) ** 2).sum(axis=1)
    return {int(d): int(squares[distance == d].max()) for d in np.unique(distance)}


def _check(t, worst: dict[int, int]) -> dict[int, float]:
    """Every distance's worst within the map; the maps by distance."""
    maps = {d: t.map(d) for d in worst}
    for d, sq in worst.items():
        assert within(maps[d], sq), (t, d, sq, maps[d])
    return maps


def _cumulative_worst(worst: dict[int, int]) -> dict[int, int]:
    """The largest squared change among pairs at distance ``≤ d`` (what map(d) must cover)."""
    best, out = 0, {}
    for d in sorted(worst):
        best = max(best, worst[d])
        out[d] = best
    return out


def _run_pairs4(t, metric_name, max_degree=None) -> dict[int, int]:
    i, j = (np.array(x) for x in zip(*PAIRS4))
    members = np.ones(len(GRAPHS4), bool) if max_degree is None else MAXDEG4 <= max_degree
    out = _outputs(t, GRAPHS4, members)
    distance = _distances4(metric_name)
    keep = members[i] & members[j] & np.isfinite(distance)
    worst = _cumulative_worst(_worst_by_distance(out, i, j, np.where(keep, distance, 0).astype(np.int64), keep))
    _check(t, worst)
    return worst


def _run_pairs5(t, pairs, d: int, max_degree=None, f=None) -> int:
    """The largest squared change over ``pairs`` of GRAPHS5 (all at distance ≤ ``d``), checked
    against ``map(d)`` (``f``: as for :func:`_outputs`)."""
    i, j = pairs
    members = np.ones(1024, bool) if max_degree is None else MAXDEG5 <= max_degree
    out = _outputs(t, GRAPHS5, members, f)
    keep = members[i] & members[j]
    sq = int(((out[i[keep]] - out[j[keep]]) ** 2).sum(axis=1).max())
    assert within(t.map(d), sq), (t, d, sq, t.map(d))
    return sq


def test_neighbour_sets():
    """The bit-built neighbours are those of the package's generators, at the distances assumed."""
    g = 0b1011001101
    assert {GRAPHS5[j] for i, j in zip(*EDGE5) if i == g} == set(edge_flips(GRAPHS5[g]))
    assert {GRAPHS5[j] for i, j in zip(*NODE5_ONE) if i == g} == {h for v in range(5) for h in node_rewirings(GRAPHS5[g], v)}
    rng = np.random.default_rng(0)
    for k in rng.choice(len(NODE5_TWO[0]), 300, replace=False):
        assert NodeDistance().distance(GRAPHS5[NODE5_TWO[0][k]], GRAPHS5[NODE5_TWO[1][k]]) <= 2
    for k in rng.choice(len(NODE5_ONE[0]), 300, replace=False):
        assert NodeDistance().distance(GRAPHS5[NODE5_ONE[0][k]], GRAPHS5[NODE5_ONE[1][k]]) <= 1


# ----------------------------------------------------------------------------- _sqrt_up
def test_sqrt_up_is_the_least_float_at_or_above_the_root():
    rng = np.random.default_rng(1)
    values = [0, 1, 2, 3, 8, 26, 52, 2**52 + 1, 2**106 + 3, 10**40 + 7] + rng.integers(0, 10**12, 200).tolist()
    for s in values:
        root = _sqrt_up(s)
        assert Fraction(root) ** 2 >= s
        assert s == 0 or Fraction(math.nextafter(root, 0)) ** 2 < s, s
    assert _sqrt_up(16) == 4.0 and _sqrt_up(10**700) == math.inf
    with pytest.raises(ValueError):
        _sqrt_up(-1)


# ----------------------------------------------------------------------------- edge and group distance
@pytest.mark.parametrize("make", [HIST, CUM], ids=["hist", "cum"])
@pytest.mark.parametrize("bins", [0, 1, 2, 3])
@pytest.mark.parametrize("num_nodes", [None, pytest.param(4, marks=pytest.mark.thorough)])  # a fixed node count: thorough
def test_histograms_under_edge_distance(make, bins, num_nodes):
    t = make(dpg.graph_domain(num_nodes=num_nodes), dpg.edge_distance(), max_degree=bins, output_metric=L2)
    worst = _run_pairs4(t, "edge")
    if bins == 0:
        assert all(t.map(d) == 0 for d in range(4)) and all(sq == 0 for sq in worst.values())
        return
    # tight wherever 2d ≤ n: d disjoint edges between isolated nodes (2√2·d, 2d)
    for d in (1, 2):
        assert reached(t.map(d), worst[d]), (d, worst[d], t.map(d))
    if make is HIST and num_nodes == 4:  # the cap √2·n, reached: all 4 nodes from bin 0 to bin 1
        assert t.map(6) == _sqrt_up(32) and reached(t.map(6), worst[6])
    if make is CUM and num_nodes == 4:  # the cap n·√B
        assert t.map(100) == _sqrt_up(16 * bins)
    assert t.map(1) == (_sqrt_up(8) if make is HIST else 2.0)
    if num_nodes is None:
        assert reached(t.map(1), _run_pairs5(t, EDGE5, 1))


@pytest.mark.parametrize("make", [HIST, CUM], ids=["hist", "cum"])
@pytest.mark.parametrize("bins", [0, 2])
def test_histograms_under_group_distance(make, bins):
    t = make(dpg.graph_domain(), dpg.group_distance(2), max_degree=bins, output_metric=L2)
    worst = _run_pairs4(t, "group2")
    if bins:
        assert reached(t.map(1), worst[1])  # two disjoint edges: 4 nodes leave bin 0
        assert t.map(1) == (_sqrt_up(32) if make is HIST else 4.0) and t.map(3) == (_sqrt_up(2 * 144) if make is HIST else 12.0)
    else:
        assert t.map(3) == 0


# ----------------------------------------------------------------------------- node distance
@pytest.mark.parametrize("make", [HIST, CUM], ids=["hist", "cum"])
@pytest.mark.parametrize("D", [1, pytest.param(2, marks=pytest.mark.thorough), 3, pytest.param(4, marks=pytest.mark.thorough)])  # D = 2, 4: thorough
@pytest.mark.parametrize("last_bin", ["0", "D-1", "D", "D+1"])
def test_histograms_under_node_distance(make, D, last_bin):
    bins = {"0": 0, "D-1": max(1, D - 1), "D": D, "D+1": D + 1}[last_bin]
    t = make(dpg.graph_domain(max_degree=D), dpg.node_distance(), max_degree=bins, output_metric=L2)
    per_step = 6 * D * D + 2 if make is HIST else 2 * D * D + 2
    assert t.map(1) == (0.0 if bins == 0 else _sqrt_up(per_step))
    assert t.map(3) == (0.0 if bins == 0 else _sqrt_up(9 * per_step))
    one = _run_pairs5(t, NODE5_ONE, 1, max_degree=D, f=plain(make, bins))
    two = _run_pairs5(t, NODE5_TWO, 2, max_degree=D, f=plain(make, bins))
    _run_pairs4(t, "node", max_degree=D)
    if bins == 0:
        assert one == two == 0
    elif bins >= D and 2 * D <= 5:  # the (D+1)-clique / (D−1)-clique witness fits in 5 nodes
        assert reached(t.map(1), one)
        if 4 * D <= 5:  # and two disjoint copies
            assert reached(t.map(2), two)


@pytest.mark.parametrize("make", [HIST, CUM], ids=["hist", "cum"])
def test_node_distance_cap_on_a_fixed_number_of_nodes(make):
    # √2·n for the histogram, n·√B for the cumulative (both √50 here): binding for large d
    t = make(dpg.graph_domain(num_nodes=5, max_degree=2), dpg.node_distance(), max_degree=2, output_metric=L2)
    assert t.map(10) == _sqrt_up(2 * 5**2) == _sqrt_up(5**2 * 2)
    _run_pairs5(t, NODE5_TWO, 2, max_degree=2)


def _clique(nodes) -> list[tuple[int, int]]:
    return list(itertools.combinations(nodes, 2))


def _graph(n, edges) -> Graph:
    return Graph.from_edges([u for u, _ in edges], [v for _, v in edges], num_nodes=n)


@pytest.mark.parametrize("D", [2, 3, 4, 5])
@pytest.mark.parametrize("d", [1, 2, 3])
def test_node_distance_witnesses_reach_the_bounds(D, d):
    """The extreme cases of the rules' docstrings, in ``d`` disjoint copies on ``2dD`` nodes."""
    hist_before, hist_after, cum_before, cum_after = [], [], [], []
    for copy in range(d):
        o = 2 * D * copy
        v, nbrs, gainers = o, list(range(o + 1, o + D + 1)), list(range(o + D + 1, o + 2 * D))
        # histogram: v in a (D+1)-clique drops its D edges and joins a (D−1)-clique
        hist_before += _clique([v] + nbrs) + _clique(gainers)
        hist_after += _clique(nbrs) + _clique(gainers) + [(v, w) for w in gainers]
        # cumulative: v with D − 1 leaves drops them and joins a D-clique
        leaves, clique = list(range(o + 1, o + D)), list(range(o + D, o + 2 * D))
        cum_before += [(v, w) for w in leaves] + _clique(clique)
        cum_after += _clique(clique) + [(v, w) for w in clique]
    n = 2 * D * d
    space = dpg.graph_domain(max_degree=D), dpg.node_distance()
    for make, before, after, per_step in (
        (HIST, hist_before, hist_after, 6 * D * D + 2),
        (CUM, cum_before, cum_after, 2 * D * D + 2),
    ):
        g, h = _graph(n, before), _graph(n, after)
        assert NodeDistance().distance(g, h) == d
        t = make(*space, max_degree=D, output_metric=L2)
        assert square(t(g), t(h)) == d * d * per_step and t.map(d) == _sqrt_up(d * d * per_step)


@pytest.mark.parametrize("make", [HIST, CUM], ids=["hist", "cum"])
def test_node_distance_on_every_rewiring_of_every_graph_on_6_nodes(make):
    """D = 3 needs 6 nodes to be reached: every rewiring of one node of every graph on 6 nodes
    (computed with NumPy from the degree sequences; the query itself is tried on 5 nodes)."""
    n, D = 6, 3
    pairs = list(itertools.combinations(range(n), 2))
    masks = np.arange(1 << len(pairs), dtype=np.int64)
    degrees = np.zeros((len(masks), n), dtype=np.int64)
    for b, (u, v) in enumerate(pairs):
        degrees[:, u] += (masks >> b) & 1
        degrees[:, v] += (masks >> b) & 1
    node_masks = [sum(1 << b for b, e in enumerate(pairs) if v in e) for v in range(n)]
    inside = degrees.max(axis=1) <= D
    for bins in (2, 3, 4):
        clamped = np.minimum(degrees, bins)
        hist = np.stack([(clamped == k).sum(axis=1) for k in range(bins + 1)], axis=1)
        vectors = hist if make is HIST else np.cumsum(hist, axis=1)
        worst = 0
        for v in range(n):
            subs = np.array(_submasks(node_masks[v]), dtype=np.int64)
            first = np.repeat(masks, len(subs))
            second = ((masks & ~node_masks[v])[:, None] | subs[None, :]).ravel()
            keep = inside[first] & inside[second]
            worst = max(worst, int(((vectors[first[keep]] - vectors[second[keep]]) ** 2).sum(axis=1).max()))
        t = make(dpg.graph_domain(max_degree=D), dpg.node_distance(), max_degree=bins, output_metric=L2)
        assert within(t.map(1), worst)
        assert reached(t.map(1), worst) == (bins >= D)


# ----------------------------------------------------------------------------- node insertion
@pytest.mark.parametrize("n, D", [(4, 2), pytest.param(5, 2, marks=pytest.mark.thorough), (5, 3)])  # (5, 2): (4, 2) on 5 nodes
def test_histograms_under_node_insertion(n, D):
    pairs = list(insertion_pairs(n, D))
    domain, metric = dpg.graph_domain(max_degree=D), dpg.node_insertion_distance()
    for bins in sorted({0, 1, 2, D, D + 2}):
        for make, per_step in (
            (HIST, 1 if bins == 0 else 2 * D * D + 2 * D + 1),
            (CUM, 1 if bins == 0 else bins + 1 - min(D, bins) + D * D),
        ):
            t = make(domain, metric, max_degree=bins, output_metric=L2)
            f = plain(make, bins)
            assert all(t(g) == f(g) for g in (pairs[0][0], pairs[-1][1]))
            worst = max(square(f(a), f(b)) for a, b in pairs)
            assert t.map(1) == _sqrt_up(per_step) and t.map(2) == _sqrt_up(4 * per_step)
            assert reached(t.map(1), worst), (make.__name__, bins, worst, t.map(1))  # tight for every B


@pytest.mark.parametrize("D", [1, 2])
def test_two_deletions_stay_within_map_2(D):
    domain, metric = dpg.graph_domain(max_degree=D), dpg.node_insertion_distance()
    kinds = [(make, bins) for make in (HIST, CUM) for bins in (1, D + 1)]
    queries = [make(domain, metric, max_degree=bins, output_metric=L2) for make, bins in kinds]
    functions = [plain(make, bins) for make, bins in kinds]
    worst = [0] * len(queries)
    for g in all_graphs(5, max_degree=D):
        others = [without(g, set(pair)) for pair in itertools.combinations(range(5), 2)]
        for k, f in enumerate(functions):
            here = f(g)
            worst[k] = max([worst[k]] + [square(here, f(other)) for other in others])
    assert all(t(others[3]) == f(others[3]) for t, f in zip(queries, functions))
    for t, sq in zip(queries, worst):
        assert within(t.map(2), sq)
        if D == 1:  # two disjoint copies of the one-node witness fit in 5 nodes
            assert reached(t.map(2), sq)


@pytest.mark.parametrize("make", [HIST, CUM], ids=["hist", "cum"])
@pytest.mark.parametrize("bins", [0, 1, 3])
def test_node_insertion_on_a_fixed_number_of_nodes_is_capped(make, bins):
    """With ``num_nodes`` fixed (a rewired node is two insertions), the movers cap ``√2·n`` /
    ``n·√B`` binds; every rewiring of a graph on 5 nodes stays within ``map(2)``."""
    D = 4
    t = make(dpg.graph_domain(num_nodes=5, max_degree=D), dpg.node_insertion_distance(), max_degree=bins, output_metric=L2)
    per_step = (2 * D * D + 2 * D + 1) if make is HIST else bins + 1 - min(D, bins) + D * D
    cap = 0 if bins == 0 else (50 if make is HIST else 25 * bins)
    assert t.map(2) == _sqrt_up(min(4 * per_step, cap))
    _run_pairs5(t, NODE5_ONE, 2, max_degree=D)


def test_node_insertion_witness_with_many_nodes():
    for D, bins, d in [(3, 5, 1), (4, 2, 2), (5, 5, 3)]:
        copies = [(o, list(range(o + 1, o + D + 1))) for o in range(0, d * (D + 1), D + 1)]
        n = d * (D + 1)
        domain, metric = dpg.graph_domain(max_degree=D), dpg.node_insertion_distance()
        # histogram: each inserted node joins a D-clique (its neighbours go D − 1 → D)
        g = _graph(n, [e for v, nb in copies for e in _clique(nb) + [(v, w) for w in nb]])
        h = without(g, {v for v, _ in copies})
        t = HIST(domain, metric, max_degree=bins, output_metric=L2)
        if bins >= D:
            assert square(t(g), t(h)) == d * d * (2 * D * D + 2 * D + 1) and reached(t.map(d), square(t(g), t(h)))
        # cumulative: each inserted node joins D isolated nodes
        g = _graph(n, [(v, w) for v, nb in copies for w in nb])
        h = without(g, {v for v, _ in copies})
        t = CUM(domain, metric, max_degree=bins, output_metric=L2)
        per_step = bins + 1 - min(D, bins) + D * D
        assert NodeInsertionDistance().distance(g, h) == d
        assert square(t(g), t(h)) == d * d * per_step and t.map(d) == _sqrt_up(d * d * per_step)


# ----------------------------------------------------------------------------- padded degree distance
def _graphs_on_id_subsets(ids, theta) -> list[Graph]:
    graphs = []
    for k in range(len(ids) + 1):
        for chosen in itertools.combinations(ids, k):
            for g in all_graphs(k, max_degree=theta):
                graphs.append(Graph.from_edges(g.src, g.dst, num_nodes=k, node_ids=list(chosen)))
    return graphs


@lru_cache(maxsize=None)
def _padded_pairs(theta: int):
    graphs = _graphs_on_id_subsets((0, 1, 2, 3), theta)
    metric = PaddedDegreeDistance(theta)
    pairs = list(itertools.combinations_with_replacement(range(len(graphs)), 2))
    distance = np.array([metric.distance(graphs[i], graphs[j]) for i, j in pairs], dtype=np.int64)
    i, j = (np.array(x) for x in zip(*pairs))
    return graphs, i, j, distance


def _run_padded(t, theta) -> dict[int, int]:
    graphs, i, j, distance = _padded_pairs(theta)
    table = np.array([t(g) for g in graphs], dtype=np.int64)
    worst = _cumulative_worst(_worst_by_distance(table, i, j, distance, np.ones(len(i), bool)))
    _check(t, worst)
    return worst


@pytest.mark.parametrize("theta", [1, 2])
@pytest.mark.parametrize("bins", [0, 1, 2, 4])
def test_histograms_under_padded_distance(theta, bins):
    space = dpg.graph_domain(max_degree=theta), dpg.padded_degree_distance(theta)
    hist = HIST(*space, max_degree=bins, output_metric=L2)
    cum = CUM(*space, max_degree=bins, output_metric=L2)
    worst_hist, worst_cum = _run_padded(hist, theta), _run_padded(cum, theta)
    u = max(1, bins - theta + 1)
    assert cum.map(3) == _sqrt_up(9 * u) and hist.map(3) == _sqrt_up(9 if bins == 0 else 18)
    # tight: at d = θ + 1 (a (θ+1)-clique against nothing) for the cumulative histogram; at even
    # d for the histogram (d/2 edges between isolated shared nodes), and for the cumulative one when B ≤ θ
    assert reached(cum.map(theta + 1), worst_cum[theta + 1])
    if bins >= 1:
        assert reached(hist.map(2), worst_hist[2])
        if bins <= theta:
            assert reached(cum.map(2), worst_cum[2])
    else:
        assert reached(hist.map(theta + 1), worst_hist[theta + 1])


@pytest.mark.parametrize("theta", [1, pytest.param(2, marks=pytest.mark.thorough), pytest.param(3, marks=pytest.mark.thorough)])  # θ = 2, 3: thorough (8 s)
def test_projection_chains_under_node_insertion(theta):
    """After the projection under node insertion (padded distance ``K = θ``): within the map,
    over every graph on 5 nodes and every deleted node."""
    proj = dpg.make_degree_projection(dpg.graph_domain(), dpg.node_insertion_distance(), theta)
    pairs = list(insertion_pairs(5))
    projected = [(degree_projection(a, theta), degree_projection(b, theta)) for a, b in pairs]  # what the chain runs first
    assert proj(pairs[99][1]) == projected[99][1]
    space = proj.output_domain, proj.output_metric
    queries = [(make, bins) for make in (HIST, CUM) for bins in (theta, theta + 2)] + [(TAIL, [0, 1, 1, theta])]
    for make, argument in queries:
        t = make(*space, argument, output_metric=L2)
        f, chain = plain(make, argument), proj >> t
        assert chain.map(1) == t.map(proj.map(1)) and t(projected[7][1]) == f(projected[7][1])
        assert within(chain.map(1), max(square(f(a), f(b)) for a, b in projected))


# ----------------------------------------------------------------------------- degree-sequence distance
@pytest.mark.parametrize("make", [HIST, CUM], ids=["hist", "cum"])
@pytest.mark.parametrize("bins", [0, 1, 3])
def test_histograms_under_degree_sequence_distance(make, bins):
    t = make(dpg.graph_domain(num_nodes=4), dpg.degree_sequence_distance(), max_degree=bins, output_metric=L2)
    worst = _run_pairs4(t, "degseq")
    assert all(d % 2 == 0 for d in worst)  # the distance between graphs on one node set is even
    assert t.map(3) == t.map(2) and t.map(1) == 0.0
    if bins:
        for d in (2, 4):
            assert reached(t.map(d), worst[d])


@pytest.mark.parametrize("theta", [1, pytest.param(2, marks=pytest.mark.thorough)])  # θ = 2: thorough (3 s)
def test_projection_chains_under_node_distance(theta):
    proj = dpg.make_degree_projection(dpg.graph_domain(), dpg.node_distance(), theta)
    projected = [degree_projection(g, theta) for g in GRAPHS5]  # what the chain runs first
    assert proj(GRAPHS5[1000]) == projected[1000]
    i, j = NODE5_ONE
    space = proj.output_domain, proj.output_metric
    for t in (
        HIST(*space, max_degree=theta + 1, output_metric=L2),
        CUM(*space, max_degree=theta + 1, output_metric=L2),
        TAIL(*space, [0, 1, 1], output_metric=L2),
    ):
        out = np.array([t(g) for g in projected], dtype=np.int64)
        chain = proj >> t
        assert chain.map(1) == t.map(proj.map(1))
        assert within(chain.map(1), int(((out[i] - out[j]) ** 2).sum(axis=1).max()))


# ----------------------------------------------------------------------------- edge labels
def test_label_changes_move_nothing():
    labelled = [lg for g in all_graphs(3) for lg in all_labelings(g, ["a"])]
    pairs = list(itertools.product(labelled, repeat=2))
    space = dpg.graph_domain(labeled=True), dpg.edge_label_distance()
    for t in (
        HIST(*space, max_degree=2, output_metric=L2),
        CUM(*space, max_degree=2, output_metric=L2),
        TAIL(*space, [0, 1, 1], output_metric=L2),
    ):
        assert t.map(5) == 0.0
        report = check_stability(t, t.map, pairs, EdgeLabelDistance().distance, l2)
        assert report.ok and report.pairs > 0


# ----------------------------------------------------------------------------- tail counts
TAIL_CASES = [
    ([1, 0, 1, 2, 1], None, 3),  # μ = 3 (threshold 1 three times)
    ([0, 2, 3], None, 1),
    ([1, 0, 1, 2, 1], 1, 1),  # with D = 1 only the threshold 0 can move
    ([2, 2, 5], 2, 0),  # with D = 2 nothing moves
]


@pytest.mark.parametrize("thresholds, D, mu", TAIL_CASES)
@pytest.mark.parametrize("metric_name", ["edge", "group2", "degseq"])
def test_tail_counts(thresholds, D, mu, metric_name):
    build = {"edge": dpg.edge_distance, "group2": lambda: dpg.group_distance(2), "degseq": dpg.degree_sequence_distance}
    t = TAIL(dpg.graph_domain(max_degree=D), build[metric_name](), thresholds, output_metric=L2)
    per_unit = {"edge": 2, "group2": 4, "degseq": 1}[metric_name]
    d = 2 if metric_name == "degseq" else 1
    assert t.map(d) == _sqrt_up((per_unit * d) ** 2 * mu)
    worst = _run_pairs4(t, metric_name, max_degree=D)
    if mu:
        assert reached(t.map(d), worst[d])  # two nodes of degree t gain an edge together
    if metric_name == "edge":
        check = _run_pairs5(t, EDGE5, 1, max_degree=D)
        assert (mu == 0) or reached(t.map(1), check)
        g, h = GRAPHS5[0b1011001101], list(edge_flips(GRAPHS5[0b1011001101]))
        if D is None:  # check_stability on a few neighbours, as for the other rules
            report = check_stability(t, t.map, [(g, x) for x in h], EdgeDistance().distance, l2)
            assert report.ok


@pytest.mark.parametrize("theta", [1, 2])
def test_tail_counts_under_padded_distance(theta):
    thresholds = [0, 1, 1, 2, 5]
    t = TAIL(dpg.graph_domain(max_degree=theta), dpg.padded_degree_distance(theta), thresholds, output_metric=L2)
    moving = sum(1 for x in thresholds if x < theta)  # m: every threshold below θ, with repeats
    assert t.map(1) == _sqrt_up(moving) and t.map(theta + 1) == _sqrt_up((theta + 1) ** 2 * moving)
    worst = _run_padded(t, theta)
    assert reached(t.map(theta + 1), worst[theta + 1])  # a (θ+1)-clique against nothing


# ----------------------------------------------------------------------------- random larger graphs
@st.composite
def graph_and_change(draw, kind):
    n = draw(st.integers(4, 120))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    m = draw(st.integers(0, 3 * n))
    w = 1.0 / np.arange(1, n + 1) ** 0.8  # a heavy-ish tail
    src, dst = rng.choice(n, size=m, p=w / w.sum()), rng.integers(0, n, size=m)
    keep = src != dst
    g = Graph.from_edges(src[keep], dst[keep], num_nodes=n)
    edges = set(map(tuple, g.edges.tolist()))
    if kind == "insertion":
        gone = set(rng.choice(n, size=draw(st.integers(1, 2)), replace=False).tolist())
        return g, without(g, gone)
    if kind == "edge":
        for _ in range(draw(st.integers(1, 3))):
            u, v = sorted(rng.choice(n, size=2, replace=False).tolist())
            edges ^= {(u, v)}
    else:
        for v in rng.choice(n, size=draw(st.integers(1, 3)), replace=False).tolist():
            edges = {e for e in edges if v not in e}
            for u in rng.choice(n, size=min(n, draw(st.integers(0, 6))), replace=False).tolist():
                if u != v:
                    edges.add((min(u, v), max(u, v)))
    edges = sorted(edges)
    return g, _graph(n, edges)


def _random_check(space, g, h, d, bins_choices=(1, 3, 8)):
    for bins in bins_choices:
        for make in (HIST, CUM):
            t = make(*space, max_degree=bins, output_metric=L2)
            assert within(t.map(d), square(t(g), t(h)))


@settings(max_examples=40, deadline=None)
@given(graph_and_change("edge"))
def test_random_graphs_edge_level(pair):
    g, h = pair
    d = EdgeDistance().distance(g, h)
    _random_check((dpg.graph_domain(num_nodes=g.num_nodes), dpg.edge_distance()), g, h, d)
    t = TAIL(dpg.graph_domain(), dpg.edge_distance(), [0, 1, 1, 2, 4, 4, 4], output_metric=L2)
    assert within(t.map(d), square(t(g), t(h)))


@settings(max_examples=40, deadline=None)
@given(graph_and_change("node"))
def test_random_graphs_node_level(pair):
    g, h = pair
    d = NodeDistance().distance(g, h)
    D = max(g.max_degree, h.max_degree)
    _random_check((dpg.graph_domain(max_degree=D), dpg.node_distance()), g, h, d, (1, 3, D))
    proj = dpg.make_degree_projection(dpg.graph_domain(), dpg.node_distance(), 3)
    for then in (dpg.then_degree_histogram, dpg.then_cumulative_degree_histogram):
        chain = proj >> then(output_metric=L2)
        assert within(chain.map(d), square(chain(g), chain(h)))


@settings(max_examples=30, deadline=None)
@given(graph_and_change("insertion"))
def test_random_graphs_node_insertion(pair):
    g, h = pair
    d = NodeInsertionDistance().distance(g, h)
    D = g.max_degree
    _random_check((dpg.graph_domain(max_degree=D), dpg.node_insertion_distance()), g, h, d, (0, 1, 3, D))


# ----------------------------------------------------------------------------- OpenDP's Gaussian
def _rho_up(l2_bound: float, scale: float) -> float:
    """The least float ``≥ l2_bound² / (2·scale²)``, computed exactly."""
    exact = Fraction(l2_bound) ** 2 / (2 * Fraction(scale) ** 2)
    rho = float(exact)
    while Fraction(rho) < exact:
        rho = math.nextafter(rho, math.inf)
    while Fraction(math.nextafter(rho, 0)) >= exact:
        rho = math.nextafter(rho, 0)
    return rho


GAUSSIAN_CASES = [
    # (make, kwargs, metric, domain kwargs, ℓ2² at d_in = 1)
    (HIST, {"max_degree": 10}, dpg.edge_distance(), {}, 8),
    (HIST, {"max_degree": 10}, dpg.group_distance(3), {}, 72),
    (HIST, {}, dpg.node_distance(), {"max_degree": 5}, 152),
    (HIST, {}, dpg.node_insertion_distance(), {"max_degree": 5}, 61),
    (HIST, {"max_degree": 4}, dpg.padded_degree_distance(4), {"max_degree": 4}, 2),
    (CUM, {"max_degree": 10}, dpg.edge_distance(), {}, 4),
    (CUM, {}, dpg.node_distance(), {"max_degree": 5}, 52),
    (CUM, {"max_degree": 8}, dpg.node_insertion_distance(), {"max_degree": 5}, 29),
    (CUM, {"max_degree": 6}, dpg.padded_degree_distance(4), {"max_degree": 4}, 3),
    (TAIL, {"thresholds": [1, 2, 2]}, dpg.edge_distance(), {}, 8),
    (TAIL, {"thresholds": [1, 2, 2, 9]}, dpg.padded_degree_distance(4), {"max_degree": 4}, 3),
]


@pytest.mark.parametrize("make, kwargs, metric, domain_kwargs, square_at_one", GAUSSIAN_CASES)
@pytest.mark.parametrize("scale", [1.0, 3.7])
def test_gaussian_boundary(make, kwargs, metric, domain_kwargs, square_at_one, scale):
    t = make(dpg.graph_domain(**domain_kwargs), metric, output_metric=L2, **kwargs)
    assert t.output_metric == L2
    meas = t >> dp.m.then_gaussian(scale=scale)
    assert meas.output_measure == dp.zero_concentrated_divergence()
    for d in (1, 2):
        bound = t.map(d)
        assert bound == _sqrt_up(square_at_one * d * d)
        rho = _rho_up(bound, scale)  # ρ = map² / (2·scale²), rounded up
        assert meas.map(d) == rho and rho == pytest.approx(square_at_one * d * d / (2 * scale**2), rel=1e-12)
        assert meas.check(d, rho)
        assert not meas.check(d, math.nextafter(rho, 0))


def test_gaussian_release_runs():
    g = Graph.from_edges([0, 0, 1, 3], [1, 2, 2, 4], num_nodes=6)
    meas = (dpg.graph_domain(max_degree=3), dpg.node_distance()) >> dpg.then_degree_histogram(output_metric=L2) >> dp.m.then_gaussian(scale=2.0)
    release = meas(g)
    assert len(release) == 4 and all(isinstance(x, int) for x in release)


# ----------------------------------------------------------------------------- the API and the table
def test_default_output_metrics_are_unchanged_and_explicit_defaults_accepted():
    space = dpg.graph_domain(max_degree=3), dpg.edge_distance()
    assert HIST(*space).output_metric == dp.l1_distance(T=dp.i64) and HIST(*space).map(1) == 4
    assert CUM(*space, output_metric=dp.l1_distance(T=dp.i64)).map(1) == 2
    assert TAIL(*space, [1]).output_metric == dp.linf_distance(T=dp.i64)
    assert TAIL(*space, [1], output_metric=dp.linf_distance(T=dp.i64)).map(1) == 2
    for then in (dpg.then_degree_histogram(output_metric=L2), dpg.then_cumulative_degree_histogram(output_metric=L2)):
        chain = space >> then
        assert chain.output_metric == L2 and chain.output_domain == dp.vector_domain(dp.atom_domain(T=dp.i64), size=4)
    chain = space >> dpg.then_degree_tail_counts([1, 1], output_metric=L2)
    assert chain.map(1) == _sqrt_up(8)  # two nodes of degree 1 cross it, the threshold twice: (2·1)²·2


def test_other_output_metrics_are_refused():
    space = dpg.graph_domain(max_degree=3), dpg.edge_distance()
    with pytest.raises(ValueError, match=r"dp.l1_distance\(T=dp.i64\) \(the default\) or dp.l2_distance"):
        HIST(*space, output_metric=dp.linf_distance(T=dp.i64))
    with pytest.raises(ValueError, match=r"dp.linf_distance\(T=dp.i64\) \(the default\) or dp.l2_distance"):
        TAIL(*space, [1], output_metric=dp.l1_distance(T=dp.i64))
    with pytest.raises(ValueError, match="dp.l2_distance"):
        CUM(*space, output_metric=dp.l2_distance(T=dp.i64))
    with pytest.raises(TypeError, match="OpenDP Metric"):
        CUM(*space, output_metric="l2")
    with pytest.raises(ValueError, match="degree_tail_counts_l2 has no stability rule for NodeDistance"):
        TAIL(dpg.graph_domain(max_degree=3), dpg.node_distance(), [1], output_metric=L2)
    with pytest.raises(ValueError, match="degree bound"):
        HIST(dpg.graph_domain(), dpg.node_distance(), max_degree=3, output_metric=L2)


@pytest.mark.parametrize(
    "make, key", [(HIST, DEGREE_HISTOGRAM_L2), (CUM, CUMULATIVE_DEGREE_HISTOGRAM_L2), (TAIL, DEGREE_TAIL_COUNTS_L2)]
)
def test_every_l1_rule_of_this_module_has_an_l2_rule(make, key):
    rows = rules.table(make)
    default = {r.metric for r in rows if r.variant is None}
    l2_rows = [r for r in rows if r.variant == "l2"]
    # every notion with an L1 rule has an ℓ2 one, in the module that proves the L1 rule (Blowfish's
    # next to its policy rules), and documented
    assert {r.metric for r in l2_rows} == default
    modules = {r.metric: r.module for r in rows if r.variant is None}
    assert all(r.module == modules[r.metric] and r.via is None and r.rule.__doc__ for r in l2_rows)
    assert rules.query_key(key) is key and key.name == make.__name__[len("make_"):] + "_l2"
    public = {"degree_histogram_l2": "DEGREE_HISTOGRAM_L2", "cumulative_degree_histogram_l2": "CUMULATIVE_DEGREE_HISTOGRAM_L2",
              "degree_tail_counts_l2": "DEGREE_TAIL_COUNTS_L2"}[key.name]
    assert public in dpg.transformations.__all__ and getattr(dpg.transformations, public) is key
