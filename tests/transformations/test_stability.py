"""Try to break every stability claim of the core queries.

For each (query, metric) pair: every pair of graphs on 4 nodes, every single-step neighbour of
every graph on 5 nodes, labelled graphs over small vocabularies, and random graphs of up to a few
hundred nodes (hypothesis) must satisfy ``d_out(f(x), f(x')) ≤ map(d(x, x'))``; where a bound is
documented as tight, some pair at distance 1 must reach it.
"""

import itertools
import math
from functools import lru_cache

import numpy as np
import opendp.prelude as dp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opendp_graph as dpg
from opendp_graph import Graph
from opendp_graph.core.metrics import EdgeDistance, EdgeLabelDistance, GroupDistance, NodeDistance
from opendp_graph.verify.testing import absolute, all_graphs, all_labelings, check_stability, edge_flips, l1, l01inf, node_rewirings

GRAPHS4 = list(all_graphs(4))
GRAPHS5 = list(all_graphs(5))  # GRAPHS5[mask] has edge i of itertools.combinations(range(5), 2) iff bit i
PAIRS4 = list(itertools.product(GRAPHS4, repeat=2))
_PAIR_BITS5 = list(itertools.combinations(range(5), 2))
_NODE_MASK5 = [sum(1 << i for i, e in enumerate(_PAIR_BITS5) if v in e) for v in range(5)]


def _submasks(mask):
    sub = mask
    while True:
        yield sub
        if sub == 0:
            return
        sub = (sub - 1) & mask


# Neighbours by bit operations (a neighbour of a 5-node graph is again one of GRAPHS5), with their
# input distance known by construction: one toggled pair is edge distance 1; a rewiring of one
# node is node distance 1 (0 if nothing changed). test_neighbour_distances checks these claims.
EDGE_NEIGHBOURS5 = [(GRAPHS5[m], GRAPHS5[m ^ (1 << b)]) for m in range(1024) for b in range(10)]
EDGE_NEIGHBOURS5_D = [1] * len(EDGE_NEIGHBOURS5)
NODE_NEIGHBOURS5, NODE_NEIGHBOURS5_D = [], []
for _m in range(1024):
    for _v in range(5):
        for _s in _submasks(_NODE_MASK5[_v]):
            _j = (_m & ~_NODE_MASK5[_v]) | _s
            NODE_NEIGHBOURS5.append((GRAPHS5[_m], GRAPHS5[_j]))
            NODE_NEIGHBOURS5_D.append(int(_j != _m))
TWO_FLIPS5 = [
    (GRAPHS5[m], GRAPHS5[m ^ (1 << a) ^ (1 << b)]) for m in list(range(0, 1024, 7)) + [1023] for a in range(10) for b in range(10)
]
LABELED3 = [lg for g in all_graphs(3) for lg in all_labelings(g, ["a", "b"])]
LABELED_PAIRS3 = list(itertools.product(LABELED3, repeat=2))

METRIC_BUILDERS = {
    "edge": (dpg.edge_distance, EdgeDistance()),
    "node": (dpg.node_distance, NodeDistance()),
    "group2": (lambda: dpg.group_distance(2), GroupDistance(2)),
    "label": (dpg.edge_label_distance, EdgeLabelDistance()),
}

STRUCTURE_QUERIES = {
    # name: (make, kwargs, output distance)
    "edge_count": (dpg.make_edge_count, {}, absolute),
    "degree_histogram": (dpg.make_degree_histogram, {"max_degree": 3}, l1),
    "degree_histogram_clamped": (dpg.make_degree_histogram, {"max_degree": 1}, l1),
    "cumulative_degree_histogram": (dpg.make_cumulative_degree_histogram, {"max_degree": 4}, l1),
    "cumulative_clamped": (dpg.make_cumulative_degree_histogram, {"max_degree": 2}, l1),
    "triangle_count": (dpg.make_triangle_count, {}, absolute),
}

# (query, metric) pairs whose bound is documented as tight at d_in = 1 on these graph sizes
TIGHT = {
    ("edge_count", "edge"), ("edge_count", "node"), ("edge_count", "group2"),
    ("degree_histogram", "edge"), ("degree_histogram", "node"), ("degree_histogram", "group2"),
    ("cumulative_degree_histogram", "edge"), ("cumulative_degree_histogram", "node"),
    ("cumulative_degree_histogram", "group2"),
    ("triangle_count", "edge"), ("triangle_count", "node"), ("triangle_count", "group2"),
}


_DISTANCES: dict = {}


_KNOWN = {(id(EDGE_NEIGHBOURS5), "edge"): EDGE_NEIGHBOURS5_D, (id(NODE_NEIGHBOURS5), "node"): NODE_NEIGHBOURS5_D}


def _distances(pairs, metric_name):
    """Input distances of a pair set, computed once per metric (the pair sets are module constants)."""
    key = (id(pairs), metric_name)
    if key in _KNOWN:
        return _KNOWN[key]
    if key not in _DISTANCES:
        distance = METRIC_BUILDERS[metric_name][1].distance
        _DISTANCES[key] = [distance(x, y) for x, y in pairs]
    return _DISTANCES[key]


def _run(make, kwargs, out, metric_name, domain_kwargs, pair_sets):
    build, _ = METRIC_BUILDERS[metric_name]
    domain = dpg.graph_domain(**domain_kwargs)
    t = make(domain, build(), **kwargs)
    f = lru_cache(maxsize=None)(t)
    stability_map = lru_cache(maxsize=None)(t.map)  # few distinct d_in; each call crosses the FFI
    member = domain.descriptor.member
    reports = []
    for pairs in pair_sets:
        kept = [(p, d) for p, d in zip(pairs, _distances(pairs, metric_name)) if member(p[0]) and member(p[1])]
        reports.append(
            check_stability(f, stability_map, [p for p, _ in kept], None, out, input_distances=[d for _, d in kept])
        )
    return t, reports


@pytest.mark.parametrize("query", sorted(STRUCTURE_QUERIES))
# edge-label distance thorough (3 s): by default test_label_change_is_free_for_structure_queries
@pytest.mark.parametrize("metric_name", ["edge", "group2", pytest.param("label", marks=pytest.mark.thorough)])
def test_structure_queries_edge_like_metrics(query, metric_name):
    make, kwargs, out = STRUCTURE_QUERIES[query]
    domain_kwargs = {"num_nodes": 5} if query == "triangle_count" else {}
    pair_sets = [PAIRS4, EDGE_NEIGHBOURS5] if query != "triangle_count" else [EDGE_NEIGHBOURS5, TWO_FLIPS5]
    if metric_name == "label":  # the edge-label metric needs labelled graphs (it refuses an unlabeled domain)
        domain_kwargs = {"labeled": True, **({"num_nodes": 3} if query == "triangle_count" else {})}
        pair_sets = [LABELED_PAIRS3]
    t, reports = _run(make, kwargs, out, metric_name, domain_kwargs, pair_sets)
    for report in reports:
        assert report.ok, report.violations[:3]
    if (query, metric_name) in TIGHT:
        at_one = [
            (x, y) for r in reports for x, y, d in r.tight if d == 1
        ]
        assert at_one, f"no pair at distance 1 reaches the bound {t.map(1)}"


@pytest.mark.parametrize("query", sorted(STRUCTURE_QUERIES))
@pytest.mark.parametrize("max_degree", [1, pytest.param(2, marks=pytest.mark.thorough), pytest.param(3, marks=pytest.mark.thorough)])  # D = 2, 3: thorough (13 s)
def test_structure_queries_node_metric(query, max_degree):
    make, kwargs, out = STRUCTURE_QUERIES[query]
    t, reports = _run(make, kwargs, out, "node", {"max_degree": max_degree}, [PAIRS4, NODE_NEIGHBOURS5])
    for report in reports:
        assert report.ok, report.violations[:3]
    base = query.replace("_clamped", "")
    if (base, "node") in TIGHT and kwargs.get("max_degree", 9) > max_degree and t.map(1) > 0:
        at_one = [(x, y) for r in reports for x, y, d in r.tight if d == 1]
        assert at_one, f"no node-neighbour reaches the bound {t.map(1)} with D={max_degree}"


def test_neighbour_distances():
    """The distances assumed for the bit-generated neighbours, checked with the exact metrics
    (and the bit construction checked against the graph-level generators)."""
    for x, y in EDGE_NEIGHBOURS5[::97]:
        assert EdgeDistance().distance(x, y) == 1
    for (x, y), d in list(zip(NODE_NEIGHBOURS5, NODE_NEIGHBOURS5_D))[::101]:
        assert NodeDistance().distance(x, y) == d
    g = GRAPHS5[0b1011001101]
    assert {h for _, h in EDGE_NEIGHBOURS5[0b1011001101 * 10 : 0b1011001101 * 10 + 10]} == set(edge_flips(g))
    from_bits = {h for x, h in NODE_NEIGHBOURS5 if x is g}
    assert from_bits == {h for v in range(5) for h in node_rewirings(g, v)}


def test_label_change_is_free_for_structure_queries():
    # _run shares the label distances of LABELED_PAIRS3 with the label-count tests and caches the
    # query's answers and map (each call crosses the FFI)
    t, (report,) = _run(dpg.make_degree_histogram, {"max_degree": 3}, l1, "label", {"labeled": True}, [LABELED_PAIRS3])
    assert t.map(5) == 0
    assert report.ok and report.pairs > 0


LABEL_METRICS = ["edge", "group2", "label", "node"]


@pytest.mark.parametrize("metric_name", LABEL_METRICS)
@pytest.mark.parametrize("c", [1, 2])
def test_label_counts(metric_name, c):
    domain_kwargs = {"labeled": True, **({"max_degree": 2} if metric_name == "node" else {})}
    vocab = ["b", "a", "zzz"]  # order matters: "b" has priority over "a"; "zzz" never occurs
    _, reports = _run(dpg.make_label_counts, {"max_labels_per_edge": c, "vocabulary": vocab}, l1, metric_name,
                      domain_kwargs, [LABELED_PAIRS3])
    (report,) = reports
    assert report.ok, report.violations[:3]
    # tight at distance 1 for edge/group (an edge with c properties) and, for c = 1, for a label
    # change {a} -> {b}; c = 2 under label distance needs two disjoint pairs, i.e. 4 properties.
    if metric_name in ("edge", "group2") or (metric_name == "label" and c == 1):
        assert any(d == 1 for *_, d in report.tight)


@pytest.mark.parametrize("metric_name", LABEL_METRICS)
@pytest.mark.parametrize("c", [1, 2])
def test_label_count_map(metric_name, c):
    domain_kwargs = {"labeled": True, **({"max_degree": 2} if metric_name == "node" else {})}
    _, reports = _run(dpg.make_label_count_map, {"max_labels_per_edge": c}, l01inf, metric_name, domain_kwargs,
                      [LABELED_PAIRS3])
    (report,) = reports
    assert report.ok, report.violations[:3]
    assert report.tight


def test_label_selection_reads_only_the_edge_and_follows_vocabulary_order():
    g = Graph.from_edges([0, 1], [1, 2], labels=[["a", "b", "c"], ["c"]])
    t = dpg.make_label_counts(dpg.graph_domain(labeled=True), dpg.edge_distance(), 1, ["c", "b", "a"])
    assert t(g) == [2, 0, 0]
    t2 = dpg.make_label_counts(dpg.graph_domain(labeled=True), dpg.edge_distance(), 2, ["a", "c"])
    assert t2(g) == [1, 2]
    m = dpg.make_label_count_map(dpg.graph_domain(labeled=True), dpg.edge_distance(), 1)
    assert m(g) == {"a": 1, "c": 1}


# ----------------------------------------------------------------------------- projection
@pytest.mark.parametrize("theta", [1, pytest.param(2, marks=pytest.mark.thorough), pytest.param(3, marks=pytest.mark.thorough)])  # θ = 2 (3 s), θ = 3 (not reached on 5 nodes): thorough
def test_projection_is_2theta_stable_from_node_distance(theta):
    t = dpg.make_degree_projection(dpg.graph_domain(), dpg.node_distance(), theta)
    assert t.map(1) == 2 * theta
    f = lru_cache(maxsize=None)(t)
    deg_l1 = dpg.DegreeSequenceDistance().distance
    worst = 0
    for x, y in NODE_NEIGHBOURS5:
        px, py = f(x), f(y)
        assert px.max_degree <= theta
        worst = max(worst, deg_l1(px, py))
    assert worst <= 2 * theta
    if theta <= 2:  # 5 nodes leave room for θ old and θ new neighbours
        assert worst == 2 * theta
    report = check_stability(f, t.map, PAIRS4, None, deg_l1, input_distances=_distances(PAIRS4, "node"))
    assert report.ok, report.violations[:3]


@pytest.mark.parametrize("theta, max_degree", [(3, 1), pytest.param(3, 2, marks=pytest.mark.thorough), (2, 1), (2, 2)])  # θ > D: (3, 1) by default
def test_projection_on_a_degree_bounded_domain_is_2_min_theta_d(theta, max_degree):
    # below θ the domain's own bound D is what limits a node's kept edges: 2·min(θ, D) per node
    domain = dpg.graph_domain(max_degree=max_degree)
    t = dpg.make_degree_projection(domain, dpg.node_distance(), theta)
    bound = 2 * min(theta, max_degree)
    assert t.map(1) == bound and t.map(2) == 2 * bound
    assert t.output_domain.descriptor.max_degree == min(theta, max_degree)
    f = lru_cache(maxsize=None)(t)
    deg_l1 = dpg.DegreeSequenceDistance().distance
    inside = [(x, y) for x, y in NODE_NEIGHBOURS5 if x.max_degree <= max_degree and y.max_degree <= max_degree]
    worst = max(deg_l1(f(x), f(y)) for x, y in inside)
    assert worst == bound  # sound and tight: a node moved from D leaves to D others
    report = check_stability(
        f, t.map, [(x, y) for x, y in PAIRS4 if max(x.max_degree, y.max_degree) <= max_degree], NodeDistance().distance, deg_l1
    )
    assert report.ok, report.violations[:3]


@pytest.mark.parametrize("theta", [1, pytest.param(2, marks=pytest.mark.thorough)])  # θ = 2: thorough (5 s)
def test_projection_is_2_stable_from_edge_distance(theta):
    t, reports = _run(
        dpg.make_degree_projection, {"max_degree": theta}, dpg.DegreeSequenceDistance().distance, "edge", {}, [PAIRS4, EDGE_NEIGHBOURS5]
    )
    assert t.map(1) == 2
    assert all(report.ok for report in reports) and any(report.tight for report in reports)


def test_projection_cascade_changes_many_edges_but_few_degrees():
    # a path scanned in order: removing one edge flips which alternate edges are kept (θ = 1)
    n = 12
    path = Graph.from_edges(range(n - 1), range(1, n))
    t = dpg.make_degree_projection(dpg.graph_domain(), dpg.edge_distance(), 1)
    worst_edges = 0
    for e in range(n - 1):
        keep = [i for i in range(n - 1) if i != e]
        other = Graph.from_edges([i for i in keep], [i + 1 for i in keep], num_nodes=n)
        a, b = t(path), t(other)
        worst_edges = max(worst_edges, EdgeDistance().distance(a, b))
        assert dpg.DegreeSequenceDistance().distance(a, b) <= 2
    assert worst_edges > 2  # so an edge-distance output metric would have been wrong


def test_projected_histogram_chain():
    space = dpg.graph_domain(), dpg.node_distance()
    chain = space >> dpg.then_degree_projection(3) >> dpg.then_degree_histogram()
    assert chain.map(1) == 12  # 2θ degrees move, each moves the histogram by 2
    assert (space >> dpg.then_degree_projection(3) >> dpg.then_cumulative_degree_histogram()).map(1) == 6
    assert (space >> dpg.then_degree_projection(3) >> dpg.then_edge_count()).map(2) == 6
    with pytest.raises(ValueError, match="no stability rule"):
        space >> dpg.then_degree_projection(3) >> dpg.then_triangle_count()


# ----------------------------------------------------------------------------- random larger graphs
@st.composite
def graph_and_neighbour(draw, kind):
    n = draw(st.integers(3, 200))
    m = draw(st.integers(0, min(3 * n, n * (n - 1) // 2)))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    # heavy-ish tail: endpoints drawn with Zipf-like weights
    w = 1.0 / np.arange(1, n + 1) ** 0.8
    src = rng.choice(n, size=m, p=w / w.sum())
    dst = rng.integers(0, n, size=m)
    keep = src != dst
    g = Graph.from_edges(src[keep], dst[keep], num_nodes=n)
    edges = set(map(tuple, g.edges.tolist()))
    if kind == "edge":
        k = draw(st.integers(1, 3))
        for _ in range(k):
            u, v = sorted(rng.choice(n, size=2, replace=False).tolist())
            edges ^= {(u, v)}
    else:
        v = int(rng.integers(n))
        edges = {e for e in edges if v not in e}
        for u in rng.choice(n, size=min(n, draw(st.integers(0, 8))), replace=False).tolist():
            if u != v:
                edges.add((min(u, v), max(u, v)))
    edges = sorted(edges)
    h = Graph.from_edges([a for a, _ in edges], [b for _, b in edges], num_nodes=n)
    return g, h


@settings(max_examples=60, deadline=None)
@given(graph_and_neighbour("edge"))
def test_random_graphs_edge_level(pair):
    g, h = pair
    d = EdgeDistance().distance(g, h)
    n = g.num_nodes
    for make, kwargs, out in STRUCTURE_QUERIES.values():
        t = make(dpg.graph_domain(num_nodes=n), dpg.edge_distance(), **kwargs)
        assert out(t(g), t(h)) <= t.map(d)


@settings(max_examples=60, deadline=None)
@given(graph_and_neighbour("node"))
def test_random_graphs_node_level(pair):
    g, h = pair
    d = NodeDistance().distance(g, h)
    D = max(g.max_degree, h.max_degree)
    for make, kwargs, out in STRUCTURE_QUERIES.values():
        t = make(dpg.graph_domain(max_degree=D), dpg.node_distance(), **kwargs)
        assert out(t(g), t(h)) <= t.map(d)
    proj = dpg.make_degree_projection(dpg.graph_domain(), dpg.node_distance(), 3)
    assert dpg.DegreeSequenceDistance().distance(proj(g), proj(h)) <= proj.map(d)


# ----------------------------------------------------------------------------- OpenDP boundaries
BOUNDARY_CASES = [
    (dpg.make_edge_count, {}, dpg.edge_distance(), {}, 1),
    (dpg.make_degree_histogram, {"max_degree": 10}, dpg.edge_distance(), {}, 4),
    (dpg.make_cumulative_degree_histogram, {"max_degree": 10}, dpg.edge_distance(), {}, 2),
    (dpg.make_degree_histogram, {}, dpg.node_distance(), {"max_degree": 5}, 20),
    (dpg.make_cumulative_degree_histogram, {}, dpg.node_distance(), {"max_degree": 5}, 10),
    (dpg.make_edge_count, {}, dpg.node_distance(), {"max_degree": 5}, 5),
    (dpg.make_triangle_count, {}, dpg.edge_distance(), {"max_degree": 5}, 4),
    (dpg.make_triangle_count, {}, dpg.node_distance(), {"max_degree": 5}, 10),
    (dpg.make_degree_histogram, {"max_degree": 10}, dpg.group_distance(3), {}, 12),
    (dpg.make_label_counts, {"max_labels_per_edge": 3, "vocabulary": ["a", "b", "c"]}, dpg.edge_distance(), {"labeled": True}, 3),
    (dpg.make_label_counts, {"max_labels_per_edge": 3, "vocabulary": ["a", "b", "c", "d", "e", "f"]}, dpg.edge_label_distance(), {"labeled": True}, 6),
    # a vocabulary smaller than c: an edge contributes at most |V| properties (2 and 1 below)
    (dpg.make_label_counts, {"max_labels_per_edge": 3, "vocabulary": ["a", "b"]}, dpg.edge_distance(), {"labeled": True}, 2),
    (dpg.make_label_counts, {"max_labels_per_edge": 3, "vocabulary": ["a"]}, dpg.edge_label_distance(), {"labeled": True}, 1),
]


@pytest.mark.parametrize("make, kwargs, metric, domain_kwargs, sensitivity", BOUNDARY_CASES)
@pytest.mark.parametrize("scale", [1.0, 2.5])
def test_laplace_boundary(make, kwargs, metric, domain_kwargs, sensitivity, scale):
    t = make(dpg.graph_domain(**domain_kwargs), metric, **kwargs)
    assert t.map(1) == sensitivity
    meas = t >> dp.m.then_laplace(scale=scale)
    eps = meas.map(1)  # OpenDP rounds sensitivity / scale upward
    assert eps == pytest.approx(sensitivity / scale, rel=1e-12)
    assert meas.check(1, eps)
    assert not meas.check(1, eps - 1e-9)
    eps2 = meas.map(2)
    assert eps2 == pytest.approx(2 * sensitivity / scale, rel=1e-12)
    assert meas.check(2, eps2) and not meas.check(2, eps2 - 1e-9)


def test_threshold_boundary():
    t = dpg.make_label_count_map(dpg.graph_domain(labeled=True), dpg.edge_distance(), 2)
    assert t.map(1) == (2, 2, 1)
    meas = t >> dpg.then_corrected_laplace_threshold(scale=2.0, threshold=20)
    eps, delta = meas.map(1)
    assert eps == pytest.approx(1.0) and 0 < delta < 1e-3
    assert meas.check(1, (eps, delta))
    assert not meas.check(1, (eps - 1e-9, delta))
    assert not meas.check(1, (eps, delta * (1 - 1e-6)))


def test_stability_maps_reject_bad_d_in():
    t = dpg.make_edge_count(dpg.graph_domain(), dpg.edge_distance())
    for bad in (-1, math.nan, math.inf):
        with pytest.raises(dp.OpenDPException, match="d_in"):
            t.map(bad)
    assert t.map(2.9) == 2  # integer-valued metric: floor is sound


@st.composite
def labelled_graph_and_neighbour(draw):
    """A random labelled graph and a graph at edge distance ≥ 1: some edges toggled (new ones
    get random labels) and some edges relabelled."""
    n = draw(st.integers(3, 120))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    words = [f"w{i}" for i in range(draw(st.integers(1, 12)))]
    m = draw(st.integers(1, 3 * n))
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    keep = src != dst

    def random_labels():
        return rng.choice(words, size=rng.integers(0, len(words) + 1), replace=False).tolist()

    g = Graph.from_edges(src[keep], dst[keep], num_nodes=n, labels=[random_labels() for _ in range(int(keep.sum()))])
    edges = dict(zip(map(tuple, g.edges.tolist()), g.label_sets()))
    for _ in range(draw(st.integers(0, 3))):
        u, v = sorted(rng.choice(n, size=2, replace=False).tolist())
        if (u, v) in edges:
            del edges[(u, v)]
        else:
            edges[(u, v)] = frozenset(random_labels())
    for e in list(edges)[: draw(st.integers(0, 2))]:
        edges[e] = frozenset(random_labels())
    keys = sorted(edges)
    h = Graph.from_edges([a for a, _ in keys], [b for _, b in keys], num_nodes=n, labels=[edges[k] for k in keys])
    return g, h, words


@settings(max_examples=60, deadline=None)
@given(labelled_graph_and_neighbour(), st.integers(1, 4))
def test_random_labelled_graphs(triple, c):
    g, h, words = triple
    domain = dpg.graph_domain(labeled=True)
    vocab = words[::-1][: max(1, len(words) // 2)]  # a public vocabulary covering part of the words
    for metric, descriptor in [(dpg.edge_distance(), EdgeDistance()), (dpg.group_distance(2), GroupDistance(2)),
                               (dpg.edge_label_distance(), EdgeLabelDistance())]:
        d = descriptor.distance(g, h)
        if d == math.inf:
            continue
        counts = dpg.make_label_counts(domain, metric, c, vocab)
        assert l1(counts(g), counts(h)) <= counts.map(d)
        count_map = dpg.make_label_count_map(domain, metric, c)
        bound = count_map.map(d)
        assert all(x <= y for x, y in zip(l01inf(count_map(g), count_map(h)), bound))
    D = max(g.max_degree, h.max_degree)
    d = NodeDistance().distance(g, h) if EdgeDistance().distance(g, h) <= 6 else None
    if d is not None:
        counts = dpg.make_label_counts(dpg.graph_domain(labeled=True, max_degree=D), dpg.node_distance(), c, vocab)
        assert l1(counts(g), counts(h)) <= counts.map(d)


@settings(max_examples=40, deadline=None)
@given(labelled_graph_and_neighbour(), st.integers(1, 5), st.booleans())
def test_label_selection_matches_a_plain_reference(triple, c, with_vocabulary):
    """The vectorised per-edge selection equals the definition: of an edge's properties in the
    vocabulary, the first ``c`` in vocabulary order (lexicographic without a vocabulary)."""
    from opendp_graph.transformations.labels import label_count_map, label_counts

    g, _, words = triple
    vocab = words[::-1][: max(1, len(words) // 2) + 1] + ["never-used"] if with_vocabulary else None
    order = {w: i for i, w in enumerate(vocab)} if vocab is not None else None
    expected: dict[str, int] = {}
    for labels in g.label_sets():
        eligible = sorted((w for w in labels if order is None or w in order), key=(order.get if order else None))
        for w in eligible[:c]:
            expected[w] = expected.get(w, 0) + 1
    assert label_count_map(g, c, vocab) == expected
    if vocab is not None:
        assert label_counts(g, c, vocab) == [expected.get(w, 0) for w in vocab]
