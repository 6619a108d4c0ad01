"""Label-count sensitivities, by exhaustive brute force.

* **Pufferfish** (``opendp_graph.pufferfish.metric``): every coupled secret flip of every
  labelling of small structures (≤ 4 nodes, 3 properties; 5- and 6-edge structures behind
  ``slow``), for every quantile-gap range of interest, every contribution bound ``c``, with the
  cap binding or not (vocabulary size, domain promise ``max_labels_per_edge``). The largest
  change must be ≤ the map, and equal to it where the docstring says it is tight.
* **Edge / group / edge-label / node** (``opendp_graph.transformations.labels``) with the
  effective bound ``c_eff = min(c, |V|, m)``: every neighbour of every labelled graph on 3 nodes
  with 3 properties.
* OpenDP boundaries (``check(1, ε)`` true, false just below) and random larger graphs.

The Pufferfish brute force runs on a reference of the per-edge rule over integer-coded
labellings (vectorised); the reference is checked against the real ``label_counts`` /
``label_count_map`` and the flip enumeration against ``PufferfishDistance.related``.
"""

import functools
import itertools
import math

import numpy as np
import opendp.prelude as dp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opendp_graph as dpg
from opendp_graph.core.metrics import EdgeDistance, EdgeLabelDistance, GroupDistance, NodeDistance
from opendp_graph.pufferfish import GlobalModel
from opendp_graph.verify.testing import l1, l01inf
from opendp_graph.transformations._core import resolve_stability
from opendp_graph.transformations.labels import LabelContribution, label_count_map, label_counts

PROPS = ("a", "b", "c")
DOMAIN_CAP = "max_labels_per_edge" in dpg.graph_domain.__code__.co_varnames


def domain(cap=None, **kwargs):
    if cap is None:
        return dpg.graph_domain(labeled=True, **kwargs)
    return dpg.graph_domain(labeled=True, max_labels_per_edge=cap, **kwargs)


def global_with_gaps(d_min, d_max):
    """A real GlobalModel whose quantile gaps are exactly ``(d_min, d_max)``: ``f | s⁰`` a point
    mass at ``m``, ``f | s¹`` half at ``m + d_min``, half at ``m + d_max``; fitted (say) on
    neighbourhoods of up to 40 edges, so that it covers every graph of these tests."""
    m = max(0, 1 - d_min)
    size = max(m + 1, m + d_max, 40)
    h0 = np.zeros(size + 1, dtype=np.int64)
    h1 = np.zeros(size + 1, dtype=np.int64)
    h0[m] = 2
    h1[m + d_min] += 1
    h1[m + d_max] += 1
    model = GlobalModel(h0, h1, size, 10.0, fitted_on="test", data_dependent=False)
    assert tuple(model.gaps) == (d_min, d_max)
    return model


# quantile-gap ranges: positive correlation, the edge-level case, W = 0, negative correlation
RANGES = [(1, 1), (1, 2), (1, 3), (2, 3), (0, 0), (0, 1), (0, 2), (-1, 0), (-1, 1), (-1, 2), (-2, 1), (-2, 2), (-1, 3)]
METRICS = {r: dpg.pufferfish_distance(global_with_gaps(*r)) for r in RANGES}

STRUCTURES = {
    "path4": [(0, 1), (1, 2), (2, 3)],
    "star4": [(0, 1), (0, 2), (0, 3)],
    "triangle": [(0, 1), (0, 2), (1, 2)],
    "paw": [(0, 1), (0, 2), (1, 2), (2, 3)],
    "diamond": [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3)],
    "k4": [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)],
}
FAST = ["path4", "star4", "triangle", "paw"]


# ----------------------------------------------------------------------------- the reference
def closed_hood(edges, i):
    u, v = edges[i]
    return [j for j, (x, y) in enumerate(edges) if {x, y} & {u, v}]


def contribution_table(c, ranked, P=len(PROPS)):
    """``T[mask]``: the counted properties of an edge whose label bits are ``mask``: of those in
    ``ranked`` (rank order), the first ``c``."""
    table = np.zeros((1 << P, P), dtype=np.int64)
    for mask in range(1 << P):
        chosen = [a for a in ranked if mask >> a & 1][:c]
        table[mask, chosen] = 1
    return table


def all_counts(num_edges, table, P=len(PROPS)):
    """Counts of every labelling ``n`` (edge ``e`` has label bits ``(n >> P·e) & (2^P − 1)``)."""
    n = np.arange(1 << (P * num_edges), dtype=np.int64)
    out = np.zeros((n.size, table.shape[1]), dtype=np.int64)
    for e in range(num_edges):
        out += table[(n >> (P * e)) & ((1 << P) - 1)]
    return out


def labels_within(num_edges, cap, P=len(PROPS)):
    """Which labellings have at most ``cap`` labels on every edge."""
    n = np.arange(1 << (P * num_edges), dtype=np.int64)
    if cap is None:
        return np.ones(n.size, dtype=bool)
    pop = np.array([bin(m).count("1") for m in range(1 << P)])
    ok = np.ones(n.size, dtype=bool)
    for e in range(num_edges):
        ok &= pop[(n >> (P * e)) & ((1 << P) - 1)] <= cap
    return ok


def flip_patterns(edges):
    """Every coupled flip ``(centre, others, d, same_way)``: the centre gains ``a`` and the
    others gain it too (``d = 1 + k``) or lose it (``d = 1 − k``)."""
    for i in range(len(edges)):
        others = [j for j in closed_hood(edges, i) if j != i]
        for k in range(len(others) + 1):
            for chosen in itertools.combinations(others, k):
                for same in (True,) if k == 0 else (True, False):
                    yield i, chosen, (1 + k if same else 1 - k), same


def flip_toggles(edges, P=len(PROPS)):
    """``(d, toggle, need_zero, need_one)`` per flip pattern and property: labelling ``n`` has the
    flip iff ``n & need_zero == 0`` and ``n & need_one == need_one``; the result is ``n ^ toggle``."""
    out = []
    for i, chosen, d, same in flip_patterns(edges):
        for a in range(P):
            toggle = need_zero = 1 << (P * i + a)
            need_one = 0
            for j in chosen:
                bit = 1 << (P * j + a)
                toggle |= bit
                if same:
                    need_zero |= bit
                else:
                    need_one |= bit
            out.append((d, toggle, need_zero, need_one))
    return out


def worst_by_d(edges, counts, valid, P=len(PROPS)):
    """``{d: (max ℓ0, max ℓ1, max ℓ∞)}`` of the count change over every flip with that ``d``
    between two labellings of the domain (``valid``)."""
    n = np.arange(counts.shape[0], dtype=np.int64)
    worst: dict[int, tuple[int, int, int]] = {}
    for d, toggle, need_zero, need_one in flip_toggles(edges, P):
        ok = ((n & need_zero) == 0) & ((n & need_one) == need_one) & valid
        src = n[ok]
        src = src[valid[src ^ toggle]]
        if src.size == 0:
            continue
        diff = np.abs(counts[src ^ toggle] - counts[src])
        got = (int((diff > 0).sum(axis=1).max()), int(diff.sum(axis=1).max()), int(diff.max()))
        old = worst.get(d, (0, 0, 0))
        worst[d] = tuple(max(x, y) for x, y in zip(old, got))
    return worst


def hull(desc):
    """``(lo, hi)`` of one coupled flip: ``(min(d_min, 1), max(d_max, 1))``."""
    return min(desc.d_min, 1), max(desc.d_max, 1)


def observed(worst, lo, hi):
    return tuple(max((worst[d][k] for d in range(lo, hi + 1) if d in worst), default=0) for k in range(3))


def graph_of(edges, n, P=len(PROPS)):
    sets = [[PROPS[a] for a in range(P) if (n >> (P * e)) >> a & 1] for e in range(len(edges))]
    return dpg.Graph.from_edges([u for u, _ in edges], [v for _, v in edges], num_nodes=4, labels=sets)


# ----------------------------------------------------------------------------- the reference is right
def test_reference_matches_the_real_queries_and_relation():
    edges = STRUCTURES["triangle"]
    rng = np.random.default_rng(0)
    vocab = ["b", "c", "a"]
    ranked = [PROPS.index(w) for w in vocab]
    for c in (1, 2):
        counts = all_counts(3, contribution_table(c, ranked))
        counts_map = all_counts(3, contribution_table(c, list(range(3))))  # lexicographic
        for n in range(512):
            g = graph_of(edges, n)
            assert g.edges.tolist() == [list(e) for e in edges]
            assert label_counts(g, c, vocab) == [int(counts[n, PROPS.index(w)]) for w in vocab]
            assert label_count_map(g, c) == {w: int(counts_map[n, a]) for a, w in enumerate(PROPS) if counts_map[n, a]}
    paw = STRUCTURES["paw"]
    counts = all_counts(4, contribution_table(1, ranked))
    for n in rng.integers(0, 4096, 150).tolist():
        assert label_counts(graph_of(paw, n), 1, vocab) == [int(counts[n, PROPS.index(w)]) for w in vocab]
    # the flip enumeration is exactly the metric's relation (both directions), on 2 properties
    P = 2
    for d_range in [(1, 1), (-1, 2), (0, 3)]:
        desc = METRICS[d_range].descriptor if d_range in METRICS else dpg.pufferfish_distance(global_with_gaps(*d_range)).descriptor
        lo, hi = hull(desc)
        generated = set()
        for d, toggle, need_zero, need_one in flip_toggles(edges, P):
            if not lo <= d <= hi:
                continue
            for n in range(1 << (3 * P)):
                if n & need_zero == 0 and n & need_one == need_one:
                    generated |= {(n, n ^ toggle), (n ^ toggle, n)}
        graphs = [graph_of(edges, n, P) for n in range(1 << (3 * P))]
        related = {(x, y) for x in range(len(graphs)) for y in range(len(graphs)) if desc.related(graphs[x], graphs[y])}
        assert generated == related


# ----------------------------------------------------------------------------- Pufferfish brute force
def expected_counts(lo, hi, displaces):
    return 2 * max(hi, 1 - lo) if displaces else max(hi, -lo)


def attainable(lo, hi, c, counted, cap, largest, binds):
    """Whether the docstring's worst case fits in this structure, vocabulary and domain: with
    the cap binding, ``hi`` edges each holding ``c`` properties ranked after ``a`` (needs ``c + 1``
    properties), or, when ``1 − lo`` dominates, a centre whose ``c`` properties rank before ``a``
    and ``1 − lo`` edges holding ``a`` and a property after it (``c + 2``); without it, ``hi``
    edges gaining ``a``, or a centre gaining it while ``1 − lo`` others lose it."""
    if binds:
        if hi >= 1 - lo:
            return hi <= largest and counted >= c + 1
        return 2 - lo <= largest and counted >= c + 2
    if cap == 0 or counted == 0:
        return False
    return hi <= largest if hi >= -lo else 2 - lo <= largest


def capped_rule(query, cap, metric, c, counted):
    """The registered Pufferfish rule for a contribution that *does* carry the cap ``c`` (the
    queries under a Pufferfish metric apply none; the rules still state the capped case)."""
    contribution = LabelContribution(c, counted=counted, domain_cap=cap)
    return resolve_stability(query, domain(cap).descriptor, metric.descriptor, c=contribution)


def uncapped_counts_bound(desc, counted, cap):
    """What the queries themselves charge under a Pufferfish metric: ``max(W, 1)`` per secret."""
    lo, hi = hull(desc)
    return 0 if counted == 0 or cap == 0 else max(hi, -lo)


def check_structure(name, cs=(1, 2, 3), caps=(None, 1, 2)):
    edges = STRUCTURES[name]
    E = len(edges)
    largest = max(len(closed_hood(edges, i)) for i in range(E))
    configs = []  # (query vocabulary or None for the map, ranked property indices)
    for vocab in (["c", "a", "b"], ["b", "a"], ["a"], None):
        configs.append((vocab, list(range(len(PROPS))) if vocab is None else [PROPS.index(w) for w in vocab]))
    tight_checks = 0
    for cap in caps if DOMAIN_CAP else (None,):
        valid = labels_within(E, cap)
        for c in cs:
            for vocab, ranked in configs:
                worst = worst_by_d(edges, all_counts(E, contribution_table(c, ranked)), valid)
                counted = len(ranked)
                # the query's view: the map without vocabulary may count any property
                displaces = LabelContribution(c, counted=None if vocab is None else counted, domain_cap=cap).can_displace
                binds = c < counted and (cap is None or c < cap)  # can it bind on these graphs?
                for d_range, metric in METRICS.items():
                    desc = metric.descriptor
                    lo, hi = hull(desc)
                    seen = observed(worst, lo, hi)
                    space = domain(cap), metric
                    where = (name, c, vocab, cap, d_range, seen)
                    if vocab is not None:
                        bound = capped_rule("label_counts", cap, metric, c, counted)(1)
                        assert bound == expected_counts(lo, hi, displaces), where
                        assert seen[1] <= bound, where
                        # the query applies no cap: its counts are the uncapped ones, its bound max(W, 1)
                        query = space >> dpg.then_label_counts(c, vocab)
                        assert query.map(1) == uncapped_counts_bound(desc, counted, cap), where
                    else:
                        bound_map = capped_rule("label_count_map", cap, metric, c, None)(1)
                        assert all(x <= y for x, y in zip(seen, bound_map)), (where, bound_map)
                        bound = bound_map[1]
                        assert bound == expected_counts(lo, hi, displaces), where
                        query_map = (space >> dpg.then_label_count_map(c)).map(1)
                        assert query_map[1] == query_map[2] == uncapped_counts_bound(desc, None, cap), where
                    if displaces == binds and attainable(lo, hi, c, counted, cap, largest, binds):
                        assert seen[1] == bound, (where, bound)
                        tight_checks += 1
    assert tight_checks > 0


@pytest.mark.parametrize("name", FAST)
def test_pufferfish_label_counts_exhaustive(name):
    check_structure(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["diamond", "k4"])
def test_pufferfish_label_counts_exhaustive_larger(name):
    check_structure(name, cs=(1, 2), caps=(None, 2))


def test_pufferfish_map_values():
    """The numbers of the docstring, and the old ones they replace."""
    def maps(d_range, c, vocab=None, cap=None):
        """The rules for a contribution carrying the cap ``c`` (see ``capped_rule``)."""
        metric = METRICS[d_range]
        counted = 3 if vocab is None else len(vocab)
        return (
            capped_rule("label_counts", cap, metric, c, counted)(1),
            capped_rule("label_count_map", cap, metric, c, None if vocab is None else len(vocab))(1),
        )

    def query_maps(d_range, c, vocab=None, cap=None):
        """What the queries charge: no cap under a Pufferfish metric."""
        space = domain(cap), METRICS[d_range]
        counts = space >> dpg.then_label_counts(c, ["a", "b", "c"] if vocab is None else vocab)
        return counts.map(1), (space >> dpg.then_label_count_map(c, vocab)).map(1)

    # the queries: (1, W', W') and W' = max(hi, −lo) whatever c, even where a cap would bind
    assert query_maps((1, 1), 1) == (1, (1, 1, 1))
    assert query_maps((1, 3), 2) == (3, (1, 3, 3))
    assert query_maps((-1, 1), 1) == (1, (1, 1, 1))
    assert query_maps((-2, 1), 2) == (2, (1, 2, 2))
    assert query_maps((0, 0), 1) == (1, (1, 1, 1))
    if DOMAIN_CAP:
        assert query_maps((1, 3), 1, cap=0) == (0, (0, 0, 0))

    # the cap binds (c < |V|): 2·max(hi, 1 − lo); old: 2F = 2·(1 + max(|hi − 1|, |lo − 1|))
    assert maps((1, 1), 1) == (2, (2, 2, 1))
    assert maps((1, 3), 2) == (6, (4, 6, 3))
    assert maps((-1, 1), 1) == (4, (4, 4, 2))  # was 6 and (4, 6, 3)
    assert maps((-2, 1), 2) == (6, (5, 6, 3))  # was 8 and (5, 8, 4)
    assert maps((0, 0), 1) == (2, (2, 2, 1))  # W = 0: the paper's c·W would add no noise at all
    # the cap cannot bind: max(hi, −lo) = max(W, 1)
    assert maps((1, 3), 3) == (3, (4, 6, 3))  # the map without vocabulary can still displace
    assert maps((1, 3), 2, ["a", "b"]) == (3, (1, 3, 3))
    assert maps((-2, 1), 1, ["a"]) == (2, (1, 2, 2))
    assert maps((0, 0), 5, ["a"]) == (1, (1, 1, 1))
    if DOMAIN_CAP:
        assert maps((1, 3), 2, cap=2) == (3, (1, 3, 3))
        assert maps((1, 3), 2, cap=3) == (6, (4, 6, 3))
        assert maps((1, 3), 1, ["a", "b", "c"], cap=3) == (6, (3, 6, 3))  # ℓ0 at most |V| = 3
        assert maps((1, 3), 1, cap=0) == (0, (0, 0, 0))
    # empty vocabulary: nothing to count
    assert maps((1, 3), 1, [])[0] == 0


@pytest.mark.parametrize("d_range, c, vocab, sensitivity", [
    ((1, 3), 1, ["a", "b"], 3),  # c = 1 is not applied: max(W, 1), not the capped 2·max(hi, 1 − lo) = 6
    ((-1, 1), 1, ["a", "b", "c"], 1),  # not the capped 4
    ((-1, 2), 2, ["a", "b"], 2),
    ((1, 1), 1, ["a"], 1),
])
@pytest.mark.parametrize("scale", [1.0, 2.5])
def test_pufferfish_laplace_boundary(d_range, c, vocab, sensitivity, scale):
    t = (domain(), METRICS[d_range]) >> dpg.then_label_counts(c, vocab)
    assert t.map(1) == sensitivity
    meas = t >> dp.m.then_laplace(scale=scale)
    eps = meas.map(1)
    assert eps == pytest.approx(sensitivity / scale, rel=1e-12)
    assert meas.check(1, eps) and not meas.check(1, eps - 1e-9)
    assert meas.check(2, meas.map(2)) and meas.map(2) == pytest.approx(2 * eps, rel=1e-12)


def realised_worst_l1(name, c, lo, hi, P):
    edges = STRUCTURES[name]
    counts = all_counts(len(edges), contribution_table(c, list(range(P)), P), P)
    worst = worst_by_d(edges, counts, np.ones(counts.shape[0], dtype=bool), P)
    return observed(worst, lo, hi)[1]


@pytest.mark.parametrize("name, c, d_range", [
    ("star4", 1, (1, 2)),  # c = 1: always
    ("star4", 1, (-1, 0)),
    ("star4", 2, (-1, 1)),  # c = 2, d_min ≤ 0 and d_max < 1 − d_min
    ("paw", 2, (-2, 2)),
    ("star4", 3, (-1, 1)),  # c = 3, W = 1, d_min = −1
    ("star4", 3, (0, 0)),  # W = 0: any c
])
def test_paper_c_times_w_is_exceeded(name, c, d_range):
    """The realised worst L1 change of one coupled flip (every labelling of a structure where the
    flips fit, c + 2 properties) against the paper's ``c·W``: above it in the cases the
    docstring lists, and equal to our bound."""
    lo, hi = min(d_range[0], 1), max(d_range[1], 1)
    W = max(d_range[1], -d_range[0])
    realised = realised_worst_l1(name, c, lo, hi, c + 2)
    assert realised == 2 * max(hi, 1 - lo) > c * W


def test_paper_c_times_w_holds_otherwise():
    # c = 2 with d_max ≥ 1 − d_min, and c = 3 with W = 2: our bound is at most c·W
    assert realised_worst_l1("star4", 2, 0, 1, 4) == 2 == 2 * 1
    assert realised_worst_l1("star4", 2, -1, 2, 4) == 4 == 2 * 2
    assert realised_worst_l1("paw", 3, -1, 2, 4) <= 3 * 2


# ----------------------------------------------------------------------------- edge / group / label / node
SLOT_PAIRS = [(0, 1), (0, 2), (1, 2)]
STATES = [None] + list(range(1 << len(PROPS)))  # per slot: absent, or the label bits
CODES3 = list(itertools.product(STATES, repeat=3))
INDEX3 = {code: k for k, code in enumerate(CODES3)}


def _graph3(code):
    edges = [(pair, state) for pair, state in zip(SLOT_PAIRS, code) if state is not None]
    return dpg.Graph.from_edges(
        [p[0] for p, _ in edges], [p[1] for p, _ in edges], num_nodes=3,
        labels=[[PROPS[a] for a in range(len(PROPS)) if s >> a & 1] for _, s in edges],
    )


GRAPHS3 = [_graph3(code) for code in CODES3]


def _edge_distance(x, y):
    return sum(0 if a == b else (2 if a is not None and b is not None else 1) for a, b in zip(x, y))


def _neighbour_pairs(metric_name):
    """Index pairs of graphs at distance exactly 1 under the metric, by construction (checked
    against the metric's own distance on a sample): every graph differing in one or two slots."""
    xs, ys = [], []
    for x in CODES3:
        for slots in [(0,), (1,), (2,), (0, 1), (0, 2), (1, 2)]:
            for states in itertools.product(STATES, repeat=len(slots)):
                y = list(x)
                for i, state in zip(slots, states):
                    y[i] = state
                y = tuple(y)
                if any(x[i] == y[i] for i in slots):
                    continue
                e = _edge_distance(x, y)
                ok = {
                    "edge": e == 1,
                    "label": len(slots) == 1 and e == 2,
                    "group2": e <= 2,
                    "node": True,  # on 3 nodes, any two pairs share a node
                }[metric_name]
                if ok:
                    xs.append(INDEX3[x])
                    ys.append(INDEX3[y])
    return np.array(xs), np.array(ys)


METRIC3 = {
    "edge": (dpg.edge_distance, EdgeDistance()),
    "label": (dpg.edge_label_distance, EdgeLabelDistance()),
    "group2": (lambda: dpg.group_distance(2), GroupDistance(2)),
    "node": (dpg.node_distance, NodeDistance()),
}


@functools.cache
def pairs3(metric_name):
    """The neighbour pairs of one metric, built when a test first asks (at collection they cost every
    worker 2.6 s, and pytest-xdist collects in each)."""
    return _neighbour_pairs(metric_name)


def test_neighbour_pairs_are_at_distance_one():
    rng = np.random.default_rng(1)
    for name in METRIC3:
        xs, ys = pairs3(name)
        descriptor = METRIC3[name][1]
        for k in rng.choice(len(xs), 60, replace=False).tolist():
            assert descriptor.distance(GRAPHS3[xs[k]], GRAPHS3[ys[k]]) == 1, (name, CODES3[xs[k]], CODES3[ys[k]])


@pytest.mark.parametrize("metric_name", [m if m != "group2" else pytest.param(m, marks=pytest.mark.thorough) for m in METRIC3])  # group: thorough
@pytest.mark.parametrize("cap", [None, 1, pytest.param(2, marks=pytest.mark.thorough)])  # a binding cap: 1 by default, 2 thorough
def test_core_label_rules_exhaustive(metric_name, cap):
    """Every neighbour pair of labelled graphs on 3 nodes (3 properties), counts with
    vocabularies smaller than, equal to and larger than ``c``, and the map: the maps are the
    ``c_eff`` figures of the docstring, never exceeded, and attained (counts)."""
    if cap is not None and not DOMAIN_CAP:
        pytest.skip("graph_domain has no max_labels_per_edge yet")
    build, _ = METRIC3[metric_name]
    dom = domain(cap, **({"max_degree": 2} if metric_name == "node" else {}))
    member = np.array([dom.descriptor.member(g) for g in GRAPHS3])
    xs, ys = pairs3(metric_name)
    keep = member[xs] & member[ys]
    xs, ys = xs[keep], ys[keep]
    for c in (1, 2, 3):
        for vocab in (["b", "a", "c"], ["c", "a"], ["b"]):
            t = (dom, build()) >> dpg.then_label_counts(c, vocab)
            out = np.array([label_counts(g, c, vocab) for g in GRAPHS3])
            worst = int(np.abs(out[xs] - out[ys]).sum(axis=1).max())
            c_eff = min(x for x in (c, len(vocab), cap) if x is not None)
            relabel = min(2 * c_eff, len(vocab))
            expected = {"edge": c_eff, "group2": 2 * c_eff, "label": relabel, "node": 2 * relabel}[metric_name]
            where = (metric_name, c, vocab, cap, worst)
            assert t.map(1) == expected, where
            assert worst == expected, where  # sound and tight
        tmap = (dom, build()) >> dpg.then_label_count_map(c)
        maps = [label_count_map(g, c) for g in GRAPHS3]
        out = np.array([[m.get(w, 0) for w in PROPS] for m in maps])
        diff = np.abs(out[xs] - out[ys])
        worst = ((diff > 0).sum(axis=1).max(), diff.sum(axis=1).max(), diff.max())
        bound = tmap.map(1)
        assert all(w <= b for w, b in zip(worst, bound)), (metric_name, c, cap, worst, bound)
        g = GRAPHS3[int(np.flatnonzero(member)[-1])]  # the queries compute what the test reads
        assert (t(g), tmap(g)) == (label_counts(g, c, vocab), label_count_map(g, c))


def test_label_contribution_carries_c_as_a_value():
    """A frozen value, not an ``int``: rules read ``c.c`` (``tests/transformations/test_rule_table.py`` checks
    that it is immutable)."""
    c = LabelContribution(4, counted=2, domain_cap=None)
    assert c.c == 4 and not isinstance(c, int) and c == LabelContribution(4, counted=2, domain_cap=None)
    assert (c.effective, c.can_displace) == (2, False)
    assert LabelContribution(1, counted=None, domain_cap=None).can_displace
    assert not LabelContribution(3, counted=None, domain_cap=3).can_displace
    assert "counted=2" in repr(c)


def test_core_boundaries_with_an_effective_bound():
    cases = [
        (dpg.edge_distance(), 3, ["a", "b"], None, 2),
        (dpg.edge_label_distance(), 3, ["a"], None, 1),
        (dpg.edge_label_distance(), 2, ["a", "b", "c"], None, 3),
        (dpg.edge_label_distance(), 2, ["a", "b", "c", "d"], None, 4),
    ]
    if DOMAIN_CAP:
        cases.append((dpg.edge_distance(), 3, ["a", "b", "c", "d"], 1, 1))
    for metric, c, vocab, cap, sensitivity in cases:
        t = (domain(cap), metric) >> dpg.then_label_counts(c, vocab)
        assert t.map(1) == sensitivity
        meas = t >> dp.m.then_laplace(scale=2.0)
        eps = meas.map(1)
        assert eps == pytest.approx(sensitivity / 2.0, rel=1e-12)
        assert meas.check(1, eps) and not meas.check(1, eps - 1e-9)


# ----------------------------------------------------------------------------- random larger graphs
@st.composite
def graph_and_flip(draw):
    n = draw(st.integers(3, 9))
    pairs = [(u, v) for u in range(n) for v in range(u + 1, n)]
    edges = sorted(draw(st.lists(st.sampled_from(pairs), unique=True, min_size=1, max_size=14)))
    words = list("abcde")[: draw(st.integers(1, 5))]
    sets = [set(draw(st.sets(st.sampled_from(words)))) for _ in edges]
    centre = draw(st.integers(0, len(edges) - 1))
    a = draw(st.sampled_from(words))
    hood = [j for j in closed_hood(edges, centre) if j != centre]
    same = draw(st.booleans())
    others = draw(st.lists(st.sampled_from(hood), unique=True)) if hood else []
    sets[centre].discard(a)
    for j in others:
        (sets[j].discard if same else sets[j].add)(a)
    after = [set(s) for s in sets]
    after[centre].add(a)
    for j in others:
        (after[j].add if same else after[j].discard)(a)
    d = 1 + len(others) if same else 1 - len(others)
    src, dst = [u for u, _ in edges], [v for _, v in edges]
    g1 = dpg.Graph.from_edges(src, dst, num_nodes=n, labels=[sorted(s) for s in sets])
    g2 = dpg.Graph.from_edges(src, dst, num_nodes=n, labels=[sorted(s) for s in after])
    return g1, g2, d, words


@settings(max_examples=80, deadline=None)
@given(graph_and_flip(), st.integers(1, 4), st.sampled_from(RANGES))
def test_random_coupled_flips(triple, c, d_range):
    g1, g2, d, words = triple
    metric = METRICS[d_range]
    desc = metric.descriptor
    lo, hi = hull(desc)
    if not lo <= d <= hi or not desc.related(g1, g2):
        return
    space = domain(), metric
    vocab = words[::-1]
    counts = space >> dpg.then_label_counts(c, vocab)
    assert l1(counts(g1), counts(g2)) <= counts.map(1)
    cmap = space >> dpg.then_label_count_map(c)
    assert all(x <= y for x, y in zip(l01inf(cmap(g1), cmap(g2)), cmap.map(1)))
    assert math.isfinite(desc.distance(g1, g2))


@pytest.mark.parametrize("seed", range(12))
def test_compiled_label_counts_equal_a_bincount_of_the_selection(seed):
    """The compiled count of each edge's first ``c`` labels (``selected_label_counts``) equals a
    ``bincount`` of ``selected_labels``: whole vocabulary or a permuted one with words the graph
    lacks and graph words it lacks, every cap, edges with many labels."""
    from opendp_graph.transformations.labels import selected_label_counts, selected_labels

    rng = np.random.default_rng(seed)
    words = [f"w{i:03d}" for i in range(int(rng.integers(1, 40)))]
    n, m = int(rng.integers(2, 30)), int(rng.integers(1, 120))
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    keep = src != dst
    labels = [list(rng.choice(words, size=int(rng.integers(0, min(len(words), 12) + 1)), replace=False)) for _ in range(int(keep.sum()))]
    g = dpg.Graph.from_edges(src[keep], dst[keep], num_nodes=n, labels=labels)
    if not g.is_labeled or not g.num_edges:
        pytest.skip("no labelled edge drawn")
    vocabularies = [None, list(rng.permutation(words + ["zz-unseen"]))[: int(rng.integers(1, len(words) + 2))]]
    for vocabulary in vocabularies:
        names = vocabulary if vocabulary is not None else g.vocabulary
        for cap in (None, 1, 2, 5):
            _, ranks = selected_labels(g, cap, vocabulary)
            expected = np.bincount(ranks, minlength=len(names))
            got = selected_label_counts(g, cap, vocabulary)
            assert np.array_equal(got, expected)
            assert label_counts(g, cap, names) == expected.tolist()


def test_label_counts_refuse_what_the_constructors_refuse():
    """Called directly, the counting helpers check their arguments like ``make_label_counts``:
    they refuse a repeated vocabulary word and a cap that is not a positive integer (a red team
    found the compiled count and a ``bincount`` counting such inputs differently)."""
    g = dpg.Graph.from_edges([0, 1], [1, 2], labels=[["a", "b"], ["a"]])
    with pytest.raises(ValueError, match="duplicate"):
        label_counts(g, None, ["a", "a", "b"])
    for bad, error in ((-1, ValueError), (0, ValueError), (1.5, TypeError), (True, TypeError)):
        with pytest.raises(error, match="max_labels_per_edge"):
            label_counts(g, bad, ["a", "b"])
        with pytest.raises(error, match="max_labels_per_edge"):
            label_count_map(g, bad)
    assert label_counts(g, 1, ["b", "a"]) == [1, 1] and label_count_map(g, None) == {"a": 2, "b": 1}
