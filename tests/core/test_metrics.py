"""Metric axioms, brute force over every small graph (and labelling), and exact distances."""

import itertools
import math

import opendp.prelude as dp
import pytest

import opendp_graph as dpg
from opendp_graph import Graph
from opendp_graph.core.metrics import (
    DegreeSequenceDistance,
    EdgeDistance,
    EdgeLabelDistance,
    GroupDistance,
    NodeDistance,
    check_d_in,
    integer_d_in,
)
from opendp_graph.verify.testing import all_graphs, all_labelings, node_rewirings

UNLABELED = list(all_graphs(4))  # 64 graphs
LABELED = [lg for g in all_graphs(3) for lg in all_labelings(g, ["a", "b"])]  # 125 labelled graphs

METRICS = [EdgeDistance(), NodeDistance(), GroupDistance(2), GroupDistance(3), EdgeLabelDistance(), DegreeSequenceDistance()]


def _axioms(metric, graphs):
    d = {(i, j): metric.distance(x, y) for (i, x), (j, y) in itertools.product(enumerate(graphs), repeat=2)}
    for i, x in enumerate(graphs):
        assert d[i, i] == 0
    for (i, j), v in d.items():
        assert v >= 0 and v == d[j, i]
        if v == 0 and not isinstance(metric, DegreeSequenceDistance):  # that one is a pseudo-metric
            assert graphs[i] == graphs[j]
    idx = range(len(graphs))
    for i, j, k in itertools.product(idx, idx, idx):
        assert d[i, k] <= d[i, j] + d[j, k]


@pytest.mark.parametrize("metric", METRICS, ids=repr)
def test_axioms_on_all_graphs_with_4_nodes(metric):
    _axioms(metric, UNLABELED)


# GroupDistance(3) (GroupDistance(2)'s rule) and the degree sequence distance (which ignores labels)
# on labelled graphs in the thorough tier (3 s); every metric on unlabelled graphs by default, above
@pytest.mark.parametrize(
    "metric",
    [pytest.param(m, marks=[pytest.mark.thorough] if m in (GroupDistance(3), DegreeSequenceDistance()) else []) for m in METRICS],
    ids=repr,
)
def test_axioms_on_all_labelings_of_3_node_graphs(metric):
    _axioms(metric, LABELED)


def test_edge_distance_values():
    a = Graph.from_edges([0, 1], [1, 2], labels=[["x"], []])
    b = Graph.from_edges([0, 0], [1, 2], labels=[["y"], []])
    # (1,2) removed, (0,2) added, labels of (0,1) changed: 1 + 1 + 2
    assert EdgeDistance().distance(a, b) == 4
    assert EdgeLabelDistance().distance(a, b) == math.inf
    c = a.without_labels().with_label_sets([["y"], ["z"]])
    assert EdgeLabelDistance().distance(a, c) == 2
    assert EdgeDistance().distance(a, Graph.from_edges([0], [1], num_nodes=4, labels=[["x"]])) == math.inf


def test_node_distance_is_min_vertex_cover_of_the_difference():
    star = Graph.from_edges([0, 0, 0, 0], [1, 2, 3, 4])
    empty = Graph.from_edges([], [], num_nodes=5)
    assert NodeDistance().distance(star, empty) == 1
    path = Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 4])
    assert NodeDistance().distance(path, empty) == 2  # {1, 3} covers the path
    # every single-node rewiring is at distance ≤ 1, and the metric agrees with brute force
    for g in all_graphs(4):
        for v in range(4):
            for h in node_rewirings(g, v):
                assert NodeDistance().distance(g, h) <= 1


def test_node_distance_matches_definition_by_brute_force():
    graphs = list(all_graphs(4))
    for x, y in itertools.combinations(graphs[::3], 2):
        differing = set(map(tuple, x.edges.tolist())) ^ set(map(tuple, y.edges.tolist()))
        best = min(
            len(S) for r in range(5) for S in itertools.combinations(range(4), r) if all(set(e) & set(S) for e in differing)
        )
        assert NodeDistance().distance(x, y) == best


def test_group_distance_rounds_up():
    a = Graph.from_edges([], [], num_nodes=4)
    b = Graph.from_edges([0, 1, 2], [1, 2, 3])
    assert GroupDistance(2).distance(a, b) == 2 and GroupDistance(3).distance(a, b) == 1


def test_metric_identifiers_and_equality():
    assert str(dpg.edge_distance()) == "EdgeDistance()"
    assert dpg.group_distance(2) == dpg.group_distance(2)
    assert dpg.group_distance(2) != dpg.group_distance(3)
    assert dpg.edge_distance() != dpg.node_distance()
    assert isinstance(dpg.node_distance().descriptor, NodeDistance)


@pytest.mark.parametrize("k", [0, -1, 1.5, True, "2"])
def test_group_distance_rejects_bad_k(k):
    with pytest.raises((TypeError, ValueError), match="k must"):
        dpg.group_distance(k)


def test_d_in_validation():
    assert check_d_in(2) == 2.0 and integer_d_in(2.7) == 2
    for bad, err in [(-1, ValueError), (math.nan, ValueError), (math.inf, ValueError), ("1", TypeError), (True, TypeError)]:
        with pytest.raises(err):
            check_d_in(bad)


def test_domain_member_checks():
    g = Graph.from_edges([0, 0, 0], [1, 2, 3])
    assert dpg.graph_domain().member(g)
    assert not dpg.graph_domain(max_degree=2).member(g)
    assert not dpg.graph_domain(labeled=True).member(g)
    assert not dpg.graph_domain().member(g.with_label_sets([[], [], []]))
    assert not dpg.graph_domain(num_nodes=5).member(g)
    assert not dpg.graph_domain().member("not a graph")
    assert str(dpg.graph_domain(max_degree=3)) == "GraphDomain(num_nodes=None, max_degree=3, labeled=False, max_labels_per_edge=None)"
    assert dpg.graph_domain(max_degree=3) == dpg.graph_domain(max_degree=3) != dpg.graph_domain()


@pytest.mark.parametrize(
    "kwargs, err",
    [({"max_degree": -1}, ValueError), ({"max_degree": 2.5}, TypeError), ({"num_nodes": True}, TypeError), ({"labeled": 1}, TypeError)],
)
def test_domain_rejects_bad_arguments(kwargs, err):
    with pytest.raises(err):
        dpg.graph_domain(**kwargs)


def test_builders_need_honest_but_curious(monkeypatch):
    monkeypatch.setattr(dp, "assert_features", _refuse)
    with pytest.raises(AssertionError, match="honest-but-curious"):
        dpg.edge_distance()


def _refuse(*features):
    raise AssertionError(f"Attempted to use function that requires {features}")


def test_axioms_exhaustively_on_5_nodes_via_edge_masks():
    """On unlabeled graphs with a fixed node set, edge, group and node distances depend only on
    the set of differing pairs: ``d(a, b) = f(a XOR b)`` for edge masks ``a, b``. Identity,
    symmetry and the triangle inequality over all 1024³ triples then reduce to ``f(0) = 0``,
    ``f > 0`` elsewhere, and subadditivity ``f(x ^ y) ≤ f(x) + f(y)`` over all 1024² pairs, checked
    exhaustively here; the implementations are checked against ``f`` on a sample of pairs."""
    import numpy as np

    graphs = list(all_graphs(5))
    pairs = list(itertools.combinations(range(5), 2))
    masks = np.arange(1024)
    popcount = np.array([bin(m).count("1") for m in masks])

    def cover(m):
        edges = [pairs[i] for i in range(10) if m >> i & 1]
        return min(len(S) for r in range(6) for S in itertools.combinations(range(5), r) if all(set(e) & set(S) for e in edges))

    f = {
        "edge": popcount,
        "group2": -(-popcount // 2),
        "group3": -(-popcount // 3),
        "node": np.array([cover(m) for m in masks]),
    }
    implementations = {"edge": EdgeDistance(), "group2": GroupDistance(2), "group3": GroupDistance(3), "node": NodeDistance()}
    xor = masks[:, None] ^ masks[None, :]
    rng = np.random.default_rng(0)
    sample = rng.integers(0, 1024, size=(400, 2))
    for name, values in f.items():
        assert values[0] == 0 and (values[1:] > 0).all()
        assert (values[xor] <= values[:, None] + values[None, :]).all()
        for a, b in sample:
            assert implementations[name].distance(graphs[a], graphs[b]) == values[a ^ b]
