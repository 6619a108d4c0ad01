"""The degree projection's scan order depends on the pair of node ids only: ids equal under ``==``
(which is how the metrics match nodes) get one scan code whatever their Python or NumPy type,
and the ids' canonical text, never their position, settles the order of two edges whose codes
tie. Red-team examples: each one broke the projection's stability map before the fix."""

from __future__ import annotations

import itertools
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache

import numpy as np
import opendp.prelude as dp
import pytest

import opendp_graph as dpg
from opendp_graph.core.metrics import NodeDistance, NodeInsertionDistance, PaddedDegreeDistance
from opendp_graph.verify.testing import all_graphs, check_stability, l1, node_rewirings
from opendp_graph.transformations.projection import _id_code, _splitmix64, degree_projection, edge_order, node_codes


@pytest.fixture(autouse=True)
def _features():
    dp.enable_features("contrib", "honest-but-curious")


def _graph(edges, ids):
    return dpg.Graph.from_edges([u for u, _ in edges], [v for _, v in edges], num_nodes=len(ids), node_ids=list(ids))


def _edge_ids(g):
    ids = g.node_ids
    return {frozenset((ids[u], ids[v])) for u, v in zip(g.src.tolist(), g.dst.tolist())}


def _insertion_chain(theta):
    return dpg.make_degree_projection(dpg.graph_domain(), dpg.node_insertion_distance(), theta) >> (
        dpg.then_cumulative_degree_histogram(max_degree=theta)
    )


def _moved(chain, g1, g2):
    return float(np.abs(np.subtract(chain(g1), chain(g2))).sum())


# ----------------------------------------------------------------------------- equal ids, one code
EQUAL_IDS = [
    ["a", np.str_("a")],
    [b"a", np.bytes_(b"a")],
    ["", np.str_("")],
    [1, 1.0, True, np.True_, np.int64(1), np.uint8(1), np.float32(1), np.float16(1),
     complex(1, 0), np.complex64(1), Fraction(1), Decimal("1.0")],
    [0, -0.0, False, np.False_, np.int16(0), np.float64(-0.0)],
    [2**70, float(2**70), np.float64(2**70), Fraction(2**70)],
    [0.5, np.float32(0.5), np.float16(0.5), Fraction(1, 2), Decimal("0.50")],
    [("x", 1), (np.str_("x"), np.int64(1)), ("x", np.True_), (np.str_("x"), 1.0)],
    [(("a", b"b"), 2), ((np.str_("a"), np.bytes_(b"b")), np.uint64(2))],
    [frozenset({1, "a"}), frozenset({np.True_, np.str_("a")}), frozenset({1.0, "a"})],
]


def _stable_id(value) -> str:
    """A test id that does not depend on the hash seed (a frozenset's repr orders its items by
    hash, which differs between pytest-xdist workers and made their collections differ)."""
    if isinstance(value, frozenset):
        return "frozenset(" + ",".join(sorted(repr(x) for x in value)) + ")"
    return repr(value)


@pytest.mark.parametrize("group", EQUAL_IDS, ids=lambda g: _stable_id(g[0]))
def test_ids_equal_under_eq_share_one_code(group):
    """The metrics match nodes by hash and ``==``: every member of a group is one node to them, so
    it must have one scan code (``np.str_("a")`` had another code than ``"a"``, ``np.True_``
    another than ``True``)."""
    for x, y in itertools.combinations(group, 2):
        assert x == y and hash(x) == hash(y)
    assert len({_id_code(x) for x in group}) == 1, group
    codes = node_codes(dpg.Graph.from_edges([], [], num_nodes=len(group), node_ids=[(i, x) for i, x in enumerate(group)]))
    assert len(set(codes.tolist())) == len(group)  # distinct ids keep distinct codes


def test_numpy_string_ids_red_team_insertion():
    """Red team: ``np.str_`` ids (e.g. from ``np.unique``) against ``str`` ids, one node inserted:
    the θ = 1 cumulative histogram moved by 4 where ``map(1)`` is 2."""
    g0 = _graph([(0, 1), (0, 3), (1, 2)], list(np.array(["a", "b", "c", "d"])))
    g1 = _graph([(0, 1), (0, 3), (1, 2)], ["a", "b", "c", "d", "v"])
    assert NodeInsertionDistance().distance(g0, g1) == 1
    chain = _insertion_chain(1)
    assert _moved(chain, g0, g1) <= chain.map(1) == 2


def test_numpy_string_ids_red_team_node_distance():
    """Red team: one node rewired, the other graph's ids ``np.str_``: the θ = 1 degree histogram
    moved by 8 where ``map(1)`` is 4."""
    names = ["a", "b", "c", "d", "e", "f"]
    g1 = _graph([(0, 1), (0, 2), (0, 3), (1, 2), (1, 4), (2, 3), (2, 5), (3, 4)], names)
    g2 = _graph([(0, 2), (0, 3), (2, 3), (2, 5), (3, 4), (1, 2), (1, 3)], list(np.array(names)))
    assert NodeDistance().distance(g1, g2) == 1
    hist = (dpg.graph_domain(), dpg.node_distance()) >> dpg.then_degree_projection(max_degree=1) >> dpg.then_degree_histogram()
    assert l1(hist(g1), hist(g2)) <= hist.map(1) == 4


def test_str_and_numpy_str_ids_give_the_same_projection():
    """The same graph under ``str`` and under ``np.str_`` ids is one graph (distance 0 under every
    metric): its projection must not depend on the id type (it did in about 22 % of these)."""
    rng = np.random.default_rng(7)
    names = [f"n{i}" for i in range(8)]
    for _ in range(60):
        edges = [p for p in itertools.combinations(range(8), 2) if rng.random() < 0.4]
        plain, numpy_ids = _graph(edges, names), _graph(edges, list(np.array(names)))
        assert plain == numpy_ids
        for theta in (1, 2, 3):
            assert _edge_ids(degree_projection(plain, theta)) == _edge_ids(degree_projection(numpy_ids, theta))


# one person per entry, written in several ways that are all equal under ``==``
SPELLINGS = [
    ["a", np.str_("a")],
    [1, 1.0, np.int64(1), np.True_, True, np.float32(1)],
    [("x", 2), (np.str_("x"), np.int8(2)), ("x", 2.0)],
    [b"d", np.bytes_(b"d")],
    [0.5, np.float32(0.5), Fraction(1, 2)],
]


def _spelled(g, rng):
    """``g`` (nodes ``0..n−1``) with node ``i`` named by a random spelling of person ``i``."""
    ids = [SPELLINGS[i][rng.integers(len(SPELLINGS[i]))] for i in range(g.num_nodes)]
    return dpg.Graph.from_edges(g.src, g.dst, num_nodes=g.num_nodes, node_ids=ids)


def _without(g, v):
    keep = [i for i in range(g.num_nodes) if i != v]
    index = {old: new for new, old in enumerate(keep)}
    edges = [(index[a], index[b]) for a, b in zip(g.src.tolist(), g.dst.tolist()) if a != v and b != v]
    return dpg.Graph.from_edges(
        [a for a, _ in edges], [b for _, b in edges], num_nodes=len(keep), node_ids=[g.node_ids[i] for i in keep]
    )


# every graph on 4 nodes by default, on 5 in the thorough tier (18 s), θ = 2 on 5 under -m slow
@pytest.mark.parametrize("theta, nodes", [
    pytest.param(1, 5, id="1", marks=pytest.mark.thorough),
    pytest.param(1, 4, id="1-4-nodes"),
    pytest.param(2, 5, id="2", marks=pytest.mark.slow),
])
def test_mixed_spellings_brute_force_node_insertion(theta, nodes):
    """Every graph on 5 (``nodes``) nodes, each node deleted, both graphs' ids spelled at random (str vs
    np.str_, 1 vs 1.0 vs np.int64(1) vs True, ...): the padded degree distance and the
    cumulative histogram move within ``map(1)``."""
    rng = np.random.default_rng(theta)
    proj = dpg.make_degree_projection(dpg.graph_domain(), dpg.node_insertion_distance(), theta)
    chain = proj >> dpg.then_cumulative_degree_histogram(max_degree=theta)
    pairs = [(_spelled(g, rng), _spelled(g, rng)) for g in all_graphs(nodes)]
    pairs = [(a, _without(b, v)) for a, b in pairs for v in range(nodes)]
    report = check_stability(chain, chain.map, pairs, NodeInsertionDistance().distance, l1)
    assert report.pairs == len(pairs) and not report.violations
    padded = PaddedDegreeDistance(theta)
    report = check_stability(proj, proj.map, pairs, NodeInsertionDistance().distance, padded.distance)
    assert not report.violations


def test_mixed_spellings_random_node_distance():
    """Random graphs on 6 nodes, one node rewired at random, the two graphs' ids spelled
    differently (same node set: the spellings are equal under ``==``): the θ = 1 and θ = 2
    degree histograms move within ``map(1)``."""
    rng = np.random.default_rng(3)
    spellings = SPELLINGS + [["f", np.str_("f")]]
    everyone = list(itertools.combinations(range(6), 2))

    def spelled(edges):
        ids = [spellings[i][rng.integers(len(spellings[i]))] for i in range(6)]
        return _graph(edges, ids)

    pairs = []
    for _ in range(300):
        edges = [p for p in everyone if rng.random() < 0.5]
        v = int(rng.integers(6))
        rewired = [p for p in edges if v not in p] + [p for p in everyone if v in p and rng.random() < 0.5]
        pairs.append((spelled(edges), spelled(rewired)))
    assert all(a.same_node_set(b) for a, b in pairs)
    space = dpg.graph_domain(), dpg.node_distance()
    for theta in (1, 2):
        hist = space >> dpg.then_degree_projection(max_degree=theta) >> dpg.then_degree_histogram()
        report = check_stability(hist, hist.map, pairs, None, l1, input_distances=[1] * len(pairs))
        assert report.pairs == len(pairs) and not report.violations


# ----------------------------------------------------------------------------- colliding codes
def _signed(code: int) -> int:
    """The int64 integer whose scan code is ``code``."""
    return code - 2**64 if code >= 2**63 else code


A = _signed(_id_code("a"))  # an integer id with the scan code of "a"
B = _signed(_id_code("b"))


def _named(ids, edges):
    """The graph on ``ids`` (in this node order) with edges given as pairs of ids."""
    index = {x: i for i, x in enumerate(ids)}
    pairs = [sorted((index[x], index[y])) for x, y in edges]
    return dpg.Graph.from_edges([u for u, _ in pairs], [v for _, v in pairs], num_nodes=len(ids), node_ids=list(ids))


def _old_order(g):
    """The order before ties were broken by text: (mix, lower code, higher code), stable."""
    codes = node_codes(g)
    a, b = codes[g.src], codes[g.dst]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    return np.lexsort((hi, lo, _splitmix64((lo << np.uint64(32)) ^ hi)))


def _id_pairs(g, order):
    ids = g.node_ids
    return [frozenset((ids[u], ids[v])) for u, v in zip(g.src[order].tolist(), g.dst[order].tolist())]


def test_colliding_codes_red_team_insertion():
    """Red team: the integer id equal to ``_id_code("a")`` ties with ``"a"``, and the tie was
    broken by node position, which no metric sees: one insertion moved the θ = 2 cumulative
    histogram by 5 where ``map(1)`` is 3."""
    assert _id_code(A) == _id_code("a") and A != "a"
    edges = [("a", A), ("a", "d"), ("a", "e"), (A, "b"), (A, "c"), (A, "d"), (A, "e"),
             ("b", "c"), ("b", "d"), ("b", "e"), ("c", "e"), ("d", "e")]
    g1 = _named([A, "a", "c", "e", "b", "d"], edges)
    g0 = _named(["e", "b", "d", "a", A], [p for p in edges if "c" not in p])
    assert NodeInsertionDistance().distance(g0, g1) == 1
    chain = _insertion_chain(2)
    assert _moved(chain, g0, g1) <= chain.map(1) == 3


def test_colliding_codes_ordered_by_text_not_position():
    """Two graphs that differ only in the order of their node ids are one graph to every metric
    (node-insertion distance 0): their scan orders of id pairs, and projections, must agree."""
    edges = [("a", "x"), (A, "x"), ("a", A), ("b", "x"), (B, "x"), ("b", A), (B, "a")]
    forward = _named(["a", A, "b", B, "x"], edges)
    backward = _named(["x", B, "b", A, "a"], edges)
    assert NodeInsertionDistance().distance(forward, backward) == 0
    assert _id_pairs(forward, edge_order(forward)) == _id_pairs(backward, edge_order(backward))
    for theta in (1, 2):
        assert _edge_ids(degree_projection(forward, theta)) == _edge_ids(degree_projection(backward, theta))
        assert PaddedDegreeDistance(theta).distance(degree_projection(forward, theta), degree_projection(backward, theta)) == 0


def test_order_unchanged_without_colliding_codes():
    """The text tie-break only touches ties of codes: without a shared code the order is
    exactly the one before it (plain graphs, and ids of many types); with shared codes it only
    refines that order."""
    rng = np.random.default_rng(11)
    pool = ["a", "b", "", "ß", b"a", 7, -3, 2**70, 0.25, -1.5, ("t", 1), (), None, 1 + 2j, float("inf"), np.str_("z"), np.int64(99)]
    for _ in range(150):
        n = int(rng.integers(2, 12))
        edges = [p for p in itertools.combinations(range(n), 2) if rng.random() < 0.5]
        plain = dpg.Graph.from_edges([u for u, _ in edges], [v for _, v in edges], num_nodes=n)
        named = dpg.Graph.from_edges(plain.src, plain.dst, num_nodes=n, node_ids=[pool[i] for i in rng.permutation(len(pool))[:n]])
        for g in (plain, named):
            assert len(set(node_codes(g).tolist())) == g.num_nodes
            assert np.array_equal(edge_order(g), _old_order(g))
        colliding = dpg.Graph.from_edges(plain.src, plain.dst, num_nodes=n, node_ids=[["a", A, "b", B, "c"][i] if i < 5 else f"n{i}" for i in range(n)])
        new = edge_order(colliding)
        codes = node_codes(colliding)
        lo = np.minimum(codes[colliding.src], codes[colliding.dst])[new]
        hi = np.maximum(codes[colliding.src], codes[colliding.dst])[new]
        z = _splitmix64((lo << np.uint64(32)) ^ hi)
        keys = list(zip(z.tolist(), lo.tolist(), hi.tolist()))
        assert keys == sorted(keys)  # the old keys still rule; only their ties are reordered


def _positioned(ids, edges, rng):
    """The graph on ``ids`` in a random node order."""
    return _named([ids[i] for i in rng.permutation(len(ids))], edges)


@pytest.mark.parametrize("theta", [1, 2])
def test_colliding_and_mixed_ids_random_node_insertion(theta):
    """Random graphs on 6 nodes whose ids include integers colliding with strings' codes (and
    the same ids spelled as NumPy scalars), in a random node order, one node deleted: the padded
    degree distance and the cumulative histogram move within ``map(1)``."""
    rng = np.random.default_rng(20 + theta)
    spellings = [["a", np.str_("a")], [A, np.int64(A)], ["b", np.str_("b")], [B, np.int64(B)], [1, 1.0, np.True_], ["c"]]
    proj = dpg.make_degree_projection(dpg.graph_domain(), dpg.node_insertion_distance(), theta)
    chain = proj >> dpg.then_cumulative_degree_histogram(max_degree=theta)
    padded = PaddedDegreeDistance(theta)
    everyone = list(itertools.combinations(range(6), 2))
    pairs = []
    for _ in range(400):
        edges = [p for p in everyone if rng.random() < 0.6]
        v = int(rng.integers(6))
        spelled = [[s[rng.integers(len(s))] for s in spellings] for _ in range(2)]
        big = _positioned(spelled[0], [(spelled[0][x], spelled[0][y]) for x, y in edges], rng)
        small_ids = [x for i, x in enumerate(spelled[1]) if i != v]
        small = _positioned(small_ids, [(spelled[1][x], spelled[1][y]) for x, y in edges if v not in (x, y)], rng)
        pairs.append((big, small))
    report = check_stability(chain, chain.map, pairs, NodeInsertionDistance().distance, l1)
    assert report.pairs == len(pairs) and not report.violations
    report = check_stability(proj, proj.map, pairs, NodeInsertionDistance().distance, padded.distance)
    assert not report.violations


@pytest.mark.parametrize("theta", [1, pytest.param(2, marks=pytest.mark.thorough)])  # θ = 2: thorough (5 s)
def test_colliding_ids_brute_force_node_distance(theta):
    """Every graph on 4 nodes with colliding ids, each node rewired every way: the degree
    histogram after the projection to ``θ`` moves within ``map(1)``."""
    ids = ["a", A, "b", B]
    pairs = []
    for g in all_graphs(4):
        named = dpg.Graph.from_edges(g.src, g.dst, num_nodes=4, node_ids=ids)
        pairs += [(named, dpg.Graph.from_edges(r.src, r.dst, num_nodes=4, node_ids=ids)) for v in range(4) for r in node_rewirings(g, v)]
    hist = (dpg.graph_domain(), dpg.node_distance()) >> dpg.then_degree_projection(max_degree=theta) >> dpg.then_degree_histogram()
    # a graph recurs across pairs: one FFI call per distinct edge list. Keyed on the exact arrays, not
    # on Graph's equality (as lru_cache would be), which treats two edge orders of one graph as one:
    # answering each order keeps a scan that depended on positions visible to this check
    answers: dict = {}

    def cached(graph):
        key = (graph.src.tobytes(), graph.dst.tobytes())
        if key not in answers:
            answers[key] = hist(graph)
        return answers[key]

    report = check_stability(cached, lru_cache(maxsize=None)(hist.map), pairs, None, l1, input_distances=[1] * len(pairs))
    assert report.pairs == len(pairs) and not report.violations


@pytest.mark.parametrize("nan", [float("nan"), np.float64("nan"), Decimal("NaN"), complex("nan+1j")])
def test_an_id_unequal_to_itself_is_refused_when_the_graph_is_built(nan):
    # Two NaN ids are distinct nodes with one canonical text: the scan order could only tell them
    # apart by position, which no metric sees; and a NaN names no node of another graph.
    with pytest.raises(ValueError, match="node_ids must each equal itself"):
        dpg.Graph.from_edges([0], [1], num_nodes=3, node_ids=["a", nan, "b"])
    with pytest.raises(ValueError, match="node_ids must each equal itself"):
        dpg.Graph.from_arrays(np.array([0]), np.array([1]), num_nodes=2, node_ids=[nan, float("nan")])
