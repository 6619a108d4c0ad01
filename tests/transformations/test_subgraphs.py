"""Node-level subgraph counts (``transformations/subgraphs.py``): the copies listed against
NetworkX and brute force, and the capped count's stability map against every graph on five nodes
(six under ``-m slow``) and every way of rewiring, deleting or toggling at one node, with the
bound reached (a node alone in ``τ`` copies), so a map one step smaller would be violated."""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import opendp.prelude as dp
import pytest

import opendp_graph as dpg
from opendp_graph.transformations.subgraphs import capped_subgraph_count, subgraph_count, subgraph_records

PATTERNS = ["2-star", "3-star", "triangle", "4-cycle"]


def _brute_copies(graph: nx.Graph, pattern: str) -> set:
    """Every copy as the frozenset of its edges, by trying every tuple of nodes."""
    nodes = list(graph)
    found = set()
    if pattern.endswith("-star"):
        k = int(pattern.split("-")[0])
        for c in nodes:
            for leaves in itertools.combinations(sorted(graph[c]), k):
                found.add(frozenset(frozenset((c, leaf)) for leaf in leaves))
        return found
    size = 3 if pattern == "triangle" else 4
    for cycle in itertools.permutations(nodes, size):
        edges = [frozenset((cycle[i], cycle[(i + 1) % size])) for i in range(size)]
        if all(graph.has_edge(*e) for e in edges):
            found.add(frozenset(edges))
    return found


def _as_edge_sets(records: np.ndarray, pattern: str) -> set:
    if pattern.endswith("-star"):
        return {frozenset(frozenset((r[0], leaf)) for leaf in r[1:]) for r in records.tolist()}
    return {frozenset(frozenset((r[i], r[(i + 1) % len(r)])) for i in range(len(r))) for r in records.tolist()}


@pytest.mark.parametrize("pattern", PATTERNS)
def test_copies_match_brute_force_on_random_graphs(pattern):
    rng = np.random.default_rng(7)  # test data only, never a release's noise
    for trial in range(12):
        g_nx = nx.gnp_random_graph(9, float(rng.uniform(0.2, 0.8)), seed=int(rng.integers(1 << 30)))
        graph = dpg.Graph.from_networkx(g_nx)
        records = subgraph_records(graph, pattern)
        expected = _brute_copies(g_nx, pattern)
        assert len(records) == len(expected) == subgraph_count(graph, pattern), (pattern, trial)
        assert _as_edge_sets(records, pattern) == expected
        assert all(len(set(r)) == len(r) for r in records.tolist())  # owners distinct within a copy


def test_counts_against_networkx_on_a_larger_graph():
    g_nx = nx.powerlaw_cluster_graph(400, 4, 0.3, seed=3)
    graph = dpg.Graph.from_networkx(g_nx)
    assert subgraph_count(graph, "triangle") == sum(nx.triangles(g_nx).values()) // 3
    assert subgraph_count(graph, "2-star") == sum(math.comb(d, 2) for _, d in g_nx.degree())
    assert len(subgraph_records(graph, "4-cycle")) == subgraph_count(graph, "4-cycle")


# --- the stability map, brute force ---------------------------------------------------------


def _graph_of(mask: int, pairs: list[tuple[int, int]], n: int) -> dpg.Graph:
    chosen = [p for i, p in enumerate(pairs) if mask >> i & 1]
    return dpg.Graph.from_edges([u for u, _ in chosen], [v for _, v in chosen], num_nodes=n)


def _canonical_masks(n: int) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """Each graph on ``n`` nodes (a bit mask over the pairs) mapped to the least mask of its
    isomorphism class: the capped count depends on the class only, so each class is solved once."""
    pairs = list(itertools.combinations(range(n), 2))
    index = {p: i for i, p in enumerate(pairs)}
    masks = np.arange(1 << len(pairs), dtype=np.int64)
    best = masks.copy()
    for perm in itertools.permutations(range(n)):
        target = [index[tuple(sorted((perm[u], perm[v])))] for u, v in pairs]
        moved = np.zeros_like(masks)
        for i, j in enumerate(target):
            moved |= ((masks >> i) & 1) << j
        np.minimum(best, moved, out=best)
    return best, pairs


def _values(n: int, pattern: str, tau: float, metric) -> np.ndarray:
    canonical, pairs = _canonical_masks(n)
    transformation = dpg.make_capped_subgraph_count(dpg.graph_domain(), metric, pattern, cap=tau)
    solved = {int(c): transformation(_graph_of(int(c), pairs, n)) for c in np.unique(canonical)}
    return np.array([solved[int(c)] for c in canonical])


def _worst_change_at_one_node(values: np.ndarray, n: int) -> float:
    """The largest change over every graph and every rewiring of one node's edges (deleting the
    node is rewiring it to nothing: an isolated node owns no copy)."""
    pairs = list(itertools.combinations(range(n), 2))
    masks = np.arange(values.shape[0])
    worst = 0.0
    for v in range(n):
        bits = [i for i, p in enumerate(pairs) if v in p]
        for r in range(1, len(bits) + 1):
            for chosen in itertools.combinations(bits, r):
                flip = sum(1 << i for i in chosen)
                worst = max(worst, float(np.abs(values - values[masks ^ flip]).max()))
    return worst


def _worst_edge_toggle(values: np.ndarray, n: int) -> float:
    masks = np.arange(values.shape[0])
    return max(float(np.abs(values - values[masks ^ (1 << i)]).max()) for i in range(n * (n - 1) // 2))


def _check(n: int, pattern: str, tau: float) -> None:
    metric = dpg.node_distance()
    values = _values(n, pattern, tau, metric)
    bound = dpg.make_capped_subgraph_count(dpg.graph_domain(), metric, pattern, cap=tau).map(1)
    worst = _worst_change_at_one_node(values, n)
    assert worst <= bound, (pattern, tau, worst, bound)
    # the bound is reached (up to the program's certified tolerance): a smaller map is violated
    assert worst >= tau * (1 - 2e-6), (pattern, tau, worst)
    edge_bound = dpg.make_capped_subgraph_count(dpg.graph_domain(), dpg.edge_distance(), pattern, cap=tau).map(1)
    assert _worst_edge_toggle(values, n) <= edge_bound
    insertion = dpg.make_capped_subgraph_count(dpg.graph_domain(), dpg.node_insertion_distance(), pattern, cap=tau)
    assert insertion.map(1) == bound


@pytest.mark.parametrize("pattern", ["2-star", "triangle", "4-cycle"])
def test_capped_count_within_its_map_on_every_graph_of_five_nodes(pattern):
    for tau in (0.5, 1.0):
        _check(5, pattern, tau)


@pytest.mark.slow
@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("tau", [0.5, 1.0, 2.5])
def test_capped_count_within_its_map_on_every_graph_of_six_nodes(pattern, tau):
    _check(6, pattern, tau)


def test_capped_count_is_the_count_when_no_node_exceeds_the_cap_and_below_it_otherwise():
    g_nx = nx.powerlaw_cluster_graph(60, 3, 0.5, seed=1)
    graph = dpg.Graph.from_networkx(g_nx)
    for pattern in ("triangle", "2-star", "4-cycle"):
        records = subgraph_records(graph, pattern)
        busiest = int(np.bincount(records.ravel(), minlength=graph.num_nodes).max())
        count = subgraph_count(graph, pattern)
        assert capped_subgraph_count(graph, pattern, busiest) == count
        assert capped_subgraph_count(graph, pattern, busiest / 2) < count


def test_maps_under_each_notion_and_refusals():
    dp.enable_features("contrib", "honest-but-curious")
    domain = dpg.graph_domain()
    make = dpg.make_capped_subgraph_count
    assert make(domain, dpg.group_distance(3), "triangle", cap=4).map(2) == pytest.approx(4 * 6, rel=1e-5)
    labelled = dpg.graph_domain(labeled=True)
    assert make(labelled, dpg.edge_label_distance(), "triangle", cap=4).map(5) == 0
    for unknown in ("5-cycle", "1-star", "0-star", "02-star"):
        with pytest.raises(ValueError, match="unknown pattern"):
            make(domain, dpg.node_distance(), unknown, cap=4)
    with pytest.raises(TypeError, match="pattern must be a string"):
        make(domain, dpg.node_distance(), 3, cap=4)
    for cap in (0, -1, float("inf"), True, "4"):
        with pytest.raises(ValueError, match="cap must be a positive finite number"):
            make(domain, dpg.node_distance(), "triangle", cap=cap)
    then = dpg.then_capped_subgraph_count("2-star", cap=3)
    assert (domain, dpg.node_distance()) >> then is not None
