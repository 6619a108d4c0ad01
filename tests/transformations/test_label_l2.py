"""The ℓ2 rules of the label queries (``LABEL_COUNTS_L2``: ``make_label_counts(...,
output_metric=dp.l2_distance(T=dp.f64))``; ``LABEL_COUNT_MAP_L2``: ``make_label_count_map(...,
output_metric=dp.l02inf_distance(dp.absolute_distance(T=dp.f64)))``), by exhaustive brute force
under every neighbour notion, with the tightness the ``_L2`` docstring claims:

* **edge, group, edge-label, node (rewiring)**: every pair of labelled graphs on 3 nodes (3
  properties, every domain promise ``max_labels_per_edge``), at *every* distance, not only 1;
* **node insertion**: every graph on 4 nodes of degree ≤ 2 and every labelling by 2 properties,
  each node and each pair of nodes deleted (distances 1 and 2);
* **Blowfish**: every pair of labelled graphs on 3 nodes under five policies, at every distance;
* **Pufferfish**: every coupled flip of every labelling of small structures (3 properties),
  for every quantile-gap range of ``test_label_sensitivity``'s models: the queries (which apply
  no cap) and the registered rules for a contribution whose cap binds;
* OpenDP's boundaries: ``check(1, ρ)`` with ``make_gaussian`` (and ``make_corrected_gaussian_threshold``
  for the map) true at the map's ρ, false at the next float below.

A squared ℓ2 change is an integer, so soundness is checked exactly (``Fraction(bound)² ≥ worst``)
and tightness as "the bound is the least float whose square reaches the worst change".
The helpers (the 3-node graphs, the flip enumeration, the models) are ``test_label_sensitivity``'s and
``test_node_insertion``'s.
"""

import itertools
import math
from fractions import Fraction
from functools import lru_cache

import numpy as np
import opendp.prelude as dp
import pytest

import opendp_graph as dpg
from opendp_graph.transformations._core import resolve_stability
from opendp_graph.transformations.labels import (
    LABEL_COUNT_MAP_L2,
    LABEL_COUNTS_L2,
    LabelContribution,
    label_count_map,
    label_counts,
)
from opendp_graph.verify.testing import all_graphs, all_labelings
from tests.transformations.test_label_sensitivity import (
    CODES3,
    FAST,
    GRAPHS3,
    METRIC3,
    METRICS,
    PROPS,
    STRUCTURES,
    all_counts,
    attainable,
    closed_hood,
    contribution_table,
    domain,
    flip_toggles,
    hull,
    labels_within,
)
from tests.transformations.test_node_insertion import _ids, without

P = dpg.BlowfishPolicy
L2 = dp.l2_distance(T=dp.f64)
L02INF = dp.l02inf_distance(dp.absolute_distance(T=dp.f64))
INF = math.inf


def least_root(square: int) -> float:
    """The least float whose exact square is at least ``square`` (an integer): what a sound and
    tight ℓ2 bound of an integer change with that squared norm is."""
    root = math.sqrt(square)
    while Fraction(root) ** 2 < square:
        root = math.nextafter(root, INF)
    while root > 0 and Fraction(math.nextafter(root, 0)) ** 2 >= square:
        root = math.nextafter(root, 0)
    return root


def within(square: int, bound: float) -> bool:
    return Fraction(bound) ** 2 >= square


def changes(a: np.ndarray, b: np.ndarray):
    """``(ℓ0, ℓ2², ℓ∞)`` of the rows of ``a − b`` (integer count vectors)."""
    diff = np.abs(a - b)
    return (diff > 0).sum(axis=-1), (diff * diff).sum(axis=-1), diff.max(axis=-1, initial=0)


def test_least_root():
    assert [least_root(n) for n in (0, 1, 4, 9)] == [0.0, 1.0, 2.0, 3.0]
    for n in (2, 3, 5, 8, 50, 10**6 + 1):
        r = least_root(n)
        assert Fraction(r) ** 2 >= n > Fraction(math.nextafter(r, 0)) ** 2


# ----------------------------------------------------------------------------- edge / group / label / node
CODE = np.array([[-1 if s is None else s for s in code] for code in CODES3], dtype=np.int64)  # −1: no edge


@lru_cache(maxsize=None)
def core_distance(name: str) -> np.ndarray:
    """The distance of every pair of the 729 graphs under the metric, from their slot codes: edge
    distance counts a changed label set as 2, the edge-label distance needs the same edges, and
    on 3 nodes a node cover of the changed pairs has 0, 1, 1, 2 nodes for 0–3 of them."""
    x, y = CODE[:, None, :], CODE[None, :, :]
    differ = x != y
    present = (x >= 0) & (y >= 0)
    edge = np.where(differ, np.where(present, 2, 1), 0).sum(axis=-1)
    if name == "edge":
        return edge.astype(float)
    if name == "group2":
        return ((edge + 1) // 2).astype(float)
    if name == "label":
        same_edges = ((x >= 0) == (y >= 0)).all(axis=-1)
        return np.where(same_edges, differ.sum(axis=-1), INF)
    assert name == "node"
    return np.array([0, 1, 1, 2], dtype=float)[differ.sum(axis=-1)]


def test_core_distances_are_the_metrics():
    rng = np.random.default_rng(5)
    for name, (_, descriptor) in METRIC3.items():
        dist = core_distance(name)
        for i, j in rng.integers(0, len(GRAPHS3), size=(150, 2)).tolist():
            assert descriptor.distance(GRAPHS3[i], GRAPHS3[j]) == dist[i, j], (name, CODES3[i], CODES3[j])


@lru_cache(maxsize=None)
def core_counts(c, vocab):
    return np.array([label_counts(g, c, list(vocab)) for g in GRAPHS3], dtype=np.int64)


@lru_cache(maxsize=None)
def core_maps(c):
    maps = [label_count_map(g, c) for g in GRAPHS3]
    return np.array([[m.get(w, 0) for w in PROPS] for m in maps], dtype=np.int64)


# distances at which the extreme change fits on 3 nodes (3 edges at most): every d for the
# edge and edge-label metrics, one unit of two edges (group 2), one rewired node
TIGHT3 = {"edge": (1, 2, 3), "label": (1, 2, 3), "group2": (1,), "node": (1,)}


@pytest.mark.parametrize("metric_name", [m if m != "group2" else pytest.param(m, marks=pytest.mark.thorough) for m in METRIC3])  # group: thorough
@pytest.mark.parametrize("cap", [None, 1, pytest.param(2, marks=pytest.mark.thorough)])  # a binding cap: 1 by default, 2 thorough
def test_core_l2_exhaustive(metric_name, cap):
    """Every pair of labelled graphs on 3 nodes in the domain, at every finite distance: the ℓ2
    change of the counts is within ``map(d)``, the map's ``(ℓ0, ℓ2, ℓ∞)`` within its bound, and
    the counts' bound is reached (the docstring's ``√c_eff·d``, ``√min(2c_eff, |V|)·d``, and
    ``√min(2c_eff, |V|)·d·D`` with ``D = 2``) where the extreme change fits."""
    build, descriptor = METRIC3[metric_name]
    dom = domain(cap, **({"max_degree": 2} if metric_name == "node" else {}))
    member = np.array([dom.descriptor.member(g) for g in GRAPHS3])
    dist = np.where(member[:, None] & member[None, :], core_distance(metric_name), INF)
    distances = sorted({int(d) for d in np.unique(dist) if 0 < d < INF})
    checked = 0
    for c in (1, 2, 3):
        for vocab in (("b", "a", "c"), ("c", "a"), ("b",)):
            t = (dom, build()) >> dpg.then_label_counts(c, list(vocab), output_metric=L2)
            tmap = (dom, build()) >> dpg.then_label_count_map(c, list(vocab), output_metric=L02INF)
            out = core_counts(c, vocab)
            l0, sq, linf = changes(out[:, None, :], out[None, :, :])
            c_eff = min(x for x in (c, len(vocab), cap) if x is not None)
            relabel = min(2 * c_eff, len(vocab))
            per_unit = {"edge": c_eff, "group2": 4 * c_eff, "label": relabel, "node": 4 * relabel}[metric_name]
            assert t.map(1) == least_root(per_unit), (metric_name, c, vocab, cap)
            for d in distances:
                at = dist == d
                bound, (b0, b2, binf) = t.map(d), tmap.map(d)
                worst = int(sq[at].max())
                where = (metric_name, cap, c, vocab, d, worst, bound)
                assert within(worst, bound) and b2 == bound, where
                assert l0[at].max() <= b0 and linf[at].max() <= binf, where
                if d in TIGHT3[metric_name]:
                    assert bound == least_root(worst), where
                    checked += 1
        # the map without vocabulary: any property may be counted, so its rule cannot know that
        # only 3 exist; it is sound, and equal to the rule told |V| = 3 where that is reached
        tmap = (dom, build()) >> dpg.then_label_count_map(c, output_metric=L02INF)
        told = resolve_stability(LABEL_COUNT_MAP_L2, dom.descriptor, descriptor, c=LabelContribution(c, counted=3, domain_cap=cap))
        out = core_maps(c)
        l0, sq, linf = changes(out[:, None, :], out[None, :, :])
        for d in distances:
            at = dist == d
            b0, b2, binf = tmap.map(d)
            worst = int(sq[at].max())
            assert within(worst, b2) and l0[at].max() <= b0 and linf[at].max() <= binf, (metric_name, cap, c, d)
            assert told(d)[1] <= b2
            if d == 1:
                assert told(1)[1] == least_root(worst), (metric_name, cap, c, worst, told(1))
    assert checked == 9 * len(TIGHT3[metric_name])


# ----------------------------------------------------------------------------- node insertion
def without_labelled(g: dpg.Graph, removed) -> dpg.Graph:
    """``g`` with the nodes of id in ``removed`` deleted (``test_node_insertion.without``), the
    other edges keeping their labels."""
    h = without(g, removed)
    ids = _ids(g)
    kept = {frozenset((ids[u], ids[v])): lab for u, v, lab in zip(g.src.tolist(), g.dst.tolist(), g.label_sets())}
    hid = _ids(h)
    return h.with_label_sets([kept[frozenset((hid[u], hid[v]))] for u, v in zip(h.src.tolist(), h.dst.tolist())])


#: the label sets of the default run's insertion pairs: every edge labelled ``{a}`` or ``{a, b}``
#: (both bounds are still reached: edges with the same ``c_eff`` counted properties); the thorough
#: tier labels them by every subset (building those pairs takes 9 s)
FEW_LABEL_SETS = (frozenset("a"), frozenset("ab"))


@lru_cache(maxsize=None)
def insertion_pairs_labelled(label_sets=None):
    """Every graph on 4 nodes of degree ≤ 2, labelled in every way by subsets of ``{a, b}`` (by
    ``label_sets`` only, if given), with each node (distance 1) and each pair of nodes (distance 2)
    deleted: the distinct graphs, and per distance the index pairs into them."""
    graphs, index, pairs = [], {}, {1: [], 2: []}

    def at(g):
        if g not in index:
            index[g] = len(graphs)
            graphs.append(g)
        return index[g]

    for g in all_graphs(4, max_degree=2):
        for lg in all_labelings(g, ["a", "b"], label_sets):
            for k in (1, 2):
                for removed in itertools.combinations(range(4), k):
                    pairs[k].append((at(lg), at(without_labelled(lg, set(removed)))))
    return graphs, {k: np.array(v) for k, v in pairs.items()}


@pytest.mark.thorough  # checks the pairs that test_node_insertion_l2_exhaustive reads by default
def test_insertion_pairs_are_at_their_distance():
    rng = np.random.default_rng(2)
    metric = dpg.node_insertion_distance().descriptor
    graphs, pairs = insertion_pairs_labelled()
    for k, index in pairs.items():
        for i, j in index[rng.choice(len(index), 40, replace=False)].tolist():
            assert metric.distance(graphs[i], graphs[j]) == k


@pytest.mark.parametrize(
    "cap, label_sets",
    [(None, FEW_LABEL_SETS), pytest.param(None, None, marks=pytest.mark.thorough), pytest.param(1, None, marks=pytest.mark.thorough)],
    ids=["few-labels", "every-labelling", "cap-1"],
)
def test_node_insertion_l2_exhaustive(cap, label_sets):
    """``√c_eff·d·D`` (``D = 2``), reached at ``d = 1`` (a node with two edges carrying the same
    ``c_eff`` counted properties) and at ``d = 2`` (two opposite nodes of a 4-cycle so labelled)."""
    dom = domain(cap, max_degree=2)
    metric = dpg.node_insertion_distance()
    graphs, pairs = insertion_pairs_labelled(label_sets)
    member = np.array([dom.descriptor.member(g) for g in graphs])
    kept = {d: index[member[index[:, 0]] & member[index[:, 1]]] for d, index in pairs.items()}
    for c in (1, 2):
        for vocab in (["a", "b"], ["b"]):
            t = (dom, metric) >> dpg.then_label_counts(c, vocab, output_metric=L2)
            c_eff = min(x for x in (c, len(vocab), cap) if x is not None)
            out = np.array([label_counts(g, c, vocab) for g in graphs], dtype=np.int64)
            for d, index in kept.items():
                worst = int(changes(out[index[:, 0]], out[index[:, 1]])[1].max())
                assert t.map(d) == least_root(4 * c_eff * d * d) == least_root(worst), (c, vocab, cap, d, worst)
        tmap = (dom, metric) >> dpg.then_label_count_map(c, output_metric=L02INF)
        maps = [label_count_map(g, c) for g in graphs]
        out = np.array([[m.get(w, 0) for w in "ab"] for m in maps], dtype=np.int64)
        for d, index in kept.items():
            l0, sq, linf = changes(out[index[:, 0]], out[index[:, 1]])
            b0, b2, binf = tmap.map(d)
            assert l0.max() <= b0 and within(int(sq.max()), b2) and linf.max() <= binf, (c, cap, d)


# ----------------------------------------------------------------------------- Blowfish
BLOWFISH = {
    "attribute": P.attribute(),
    "attribute-vip": P.attribute(vip=[0]),
    "full": P.full(),
    "theta2-vip": P.distance_threshold(2, vip=[1]),
    "partition": P.partitioned([[0, 2], [1]]),
}


@lru_cache(maxsize=None)
def blowfish_graphs():
    return [lg for g in all_graphs(3) for lg in all_labelings(g, ["a", "b"])]


@lru_cache(maxsize=None)
def blowfish_distances(name):
    graphs = blowfish_graphs()
    metric = dpg.blowfish_distance(BLOWFISH[name]).descriptor
    dist = np.zeros((len(graphs), len(graphs)))
    for i, j in itertools.combinations(range(len(graphs)), 2):
        dist[i, j] = dist[j, i] = metric.distance(graphs[i], graphs[j])
    return dist


@pytest.mark.parametrize("name", list(BLOWFISH))
def test_blowfish_l2_exhaustive(name):
    """Every pair of labelled graphs on 3 nodes (labels from ``{a, b}``), at every distance:
    sound; at ``d = 1`` with ``c = 1`` reached — ``√2·min(s, D)``, a contact relabelled ``{a} →
    {b}`` (attribute), or both contacts of a node (full: ``2√2``)."""
    graphs = blowfish_graphs()
    dist = blowfish_distances(name)
    dom = dpg.graph_domain(num_nodes=3, labeled=True)
    metric = dpg.blowfish_distance(BLOWFISH[name])
    distances = sorted({int(d) for d in np.unique(dist) if 0 < d < INF})
    for c in (1, 2):
        vocab = ["a", "b", "c"]
        t = (dom, metric) >> dpg.then_label_counts(c, vocab, output_metric=L2)
        tmap = (dom, metric) >> dpg.then_label_count_map(c, output_metric=L02INF)
        out = np.array([label_counts(g, c, vocab) for g in graphs], dtype=np.int64)
        maps = [label_count_map(g, c) for g in graphs]
        outm = np.array([[m.get(w, 0) for w in vocab] for m in maps], dtype=np.int64)
        _, sq, _ = changes(out[:, None, :], out[None, :, :])
        l0m, sqm, linfm = changes(outm[:, None, :], outm[None, :, :])
        for d in distances:
            at = dist == d
            worst = int(sq[at].max())
            b0, b2, binf = tmap.map(d)
            assert within(worst, t.map(d)) and t.map(d) == b2, (name, c, d, worst)
            assert l0m[at].max() <= b0 and within(int(sqm[at].max()), b2) and linfm[at].max() <= binf, (name, c, d)
            if d == 1 and c == 1:
                assert t.map(1) == least_root(worst), (name, worst, t.map(1))


# ----------------------------------------------------------------------------- Pufferfish
def worst_l2_by_d(edges, counts, valid, P=len(PROPS)):
    """``{d: (max ℓ0, max ℓ2², max ℓ∞)}`` of the count change over every coupled flip with that
    ``d`` between two labellings of the domain (``test_label_sensitivity.worst_by_d`` with the
    squared ℓ2 norm, which the separate maxima do not give)."""
    n = np.arange(counts.shape[0], dtype=np.int64)
    worst: dict[int, tuple[int, int, int]] = {}
    for d, toggle, need_zero, need_one in flip_toggles(edges, P):
        ok = ((n & need_zero) == 0) & ((n & need_one) == need_one) & valid
        src = n[ok]
        src = src[valid[src ^ toggle]]
        if src.size == 0:
            continue
        l0, sq, linf = changes(counts[src ^ toggle], counts[src])
        got = (int(l0.max()), int(sq.max()), int(linf.max()))
        worst[d] = tuple(max(x, y) for x, y in zip(worst.get(d, (0, 0, 0)), got))
    return worst


def seen(worst, lo, hi):
    return tuple(max((worst[d][k] for d in range(lo, hi + 1) if d in worst), default=0) for k in range(3))


CONFIGS = [["c", "a", "b"], ["b", "a"], ["a"], None]  # query vocabularies; None: the map


def check_pufferfish_structure(name, cs=(1, 2, 3), caps=(None, 1, 2)):
    edges = STRUCTURES[name]
    E = len(edges)
    largest = max(len(closed_hood(edges, i)) for i in range(E))
    tight = 0
    for cap in caps:
        valid = labels_within(E, cap)
        dom = domain(cap)
        for vocab in CONFIGS:
            ranked = list(range(len(PROPS))) if vocab is None else [PROPS.index(w) for w in vocab]
            counted = len(ranked)
            # the queries: no cap under a Pufferfish metric, so every counted property counts
            uncapped = worst_l2_by_d(edges, all_counts(E, contribution_table(len(PROPS), ranked)), valid)
            capped = {c: worst_l2_by_d(edges, all_counts(E, contribution_table(c, ranked)), valid) for c in cs}
            for d_range, metric in METRICS.items():
                desc = metric.descriptor
                lo, hi = hull(desc)
                got = seen(uncapped, lo, hi)
                if vocab is not None:
                    bound = ((dom, metric) >> dpg.then_label_counts(1, vocab, output_metric=L2)).map(1)
                    assert bound == max(hi, -lo) and within(got[1], bound), (name, vocab, cap, d_range, got)
                else:
                    bound = ((dom, metric) >> dpg.then_label_count_map(1, output_metric=L02INF)).map(1)
                    assert bound == (1, max(hi, -lo), max(hi, -lo)), (name, cap, d_range, bound)
                    assert got[0] <= bound[0] and within(got[1], bound[1]) and got[2] <= bound[2], (name, cap, d_range, got)
                    bound = bound[1]
                if attainable(lo, hi, 1, counted, cap, largest, False):
                    assert bound == least_root(got[1]), (name, vocab, cap, d_range, got, bound)
                    tight += 1
                # the rules for a contribution that carries the cap c (the queries build none)
                for c in cs:
                    contribution = LabelContribution(c, counted=None if vocab is None else counted, domain_cap=cap)
                    key = LABEL_COUNT_MAP_L2 if vocab is None else LABEL_COUNTS_L2
                    rule = resolve_stability(key, dom.descriptor, desc, c=contribution)(1)
                    b2 = rule[1] if vocab is None else rule
                    real = seen(capped[c], lo, hi)
                    assert within(real[1], b2), (name, vocab, cap, c, d_range, real, rule)
                    if vocab is None:
                        assert real[0] <= rule[0] and real[2] <= rule[2], (name, cap, c, d_range, real, rule)
                    binds = c < counted and (cap is None or c < cap)
                    if contribution.can_displace == binds and attainable(lo, hi, c, counted, cap, largest, binds):
                        assert b2 == least_root(real[1]), (name, vocab, cap, c, d_range, real, b2)
                        tight += 1
    assert tight > 0


@pytest.mark.parametrize("name", FAST)
def test_pufferfish_l2_exhaustive(name):
    """Every coupled flip of every labelling: the queries' ``max(W, 1)`` (``(1, max(W, 1),
    max(W, 1))`` for the map) and, for a binding cap, ``√2·max(hi, 1 − lo)`` (the ℓ1 ``2M`` and
    ℓ∞ ``M`` of the capped rule), sound, and reached wherever the ℓ1 figure is."""
    check_pufferfish_structure(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["diamond", "k4"])
def test_pufferfish_l2_exhaustive_larger(name):
    check_pufferfish_structure(name, cs=(1, 2), caps=(None, 2))


def test_pufferfish_l2_is_linear_in_d_in():
    """``max(W, 1)·d`` for ``d`` secrets: the path metric's units add (the triangle inequality)."""
    for d_range, per_secret in [((1, 3), 3.0), ((-2, 1), 2.0), ((0, 0), 1.0)]:
        t = (domain(), METRICS[d_range]) >> dpg.then_label_counts(1, ["a", "b"], output_metric=L2)
        assert [t.map(d) for d in (0, 1, 2, 3)] == [0.0, per_secret, 2 * per_secret, 3 * per_secret]


# ----------------------------------------------------------------------------- OpenDP boundaries
def boundary_cases():
    """``(name, domain, metric, c, vocabulary, ℓ2²)``: one case per notion, ``ℓ2²`` the squared
    bound of the docstring (an integer)."""
    bf = dpg.blowfish_distance(P.full())
    yield "edge", domain(), dpg.edge_distance(), 3, ["a", "b", "c", "d"], 3
    yield "group", domain(), dpg.group_distance(3), 2, ["a", "b"], 2 * 9
    yield "label", domain(), dpg.edge_label_distance(), 2, ["a", "b", "c"], 3
    yield "node", domain(max_degree=4), dpg.node_distance(), 1, ["a", "b", "c"], 2 * 16
    yield "insertion", domain(max_degree=4), dpg.node_insertion_distance(), 2, ["a", "b", "c"], 2 * 16
    yield "blowfish", dpg.graph_domain(num_nodes=5, labeled=True), bf, 1, ["a", "b"], 2 * 16
    yield "pufferfish", domain(), METRICS[(-2, 1)], 1, ["a", "b"], 4


@pytest.mark.parametrize("case", list(boundary_cases()), ids=lambda case: case[0])
@pytest.mark.parametrize("scale", [1.0, 3.7])
def test_gaussian_boundary(case, scale):
    """``make_gaussian``'s ρ = ℓ2²/(2·scale²) at the map: ``check(1, ρ)`` holds, and fails at the
    next float below; the map's own Gaussian threshold likewise with its ``(ρ, δ)``. Both ρ are at
    least the exact ``ℓ2²/(2·scale²)`` of the true (irrational) ℓ2 bound."""
    _, dom, metric, c, vocab, square = case
    exact_rho = Fraction(square) / (2 * Fraction(scale) ** 2)
    t = (dom, metric) >> dpg.then_label_counts(c, vocab, output_metric=L2)
    assert t.map(1) == least_root(square)
    meas = t >> dp.m.then_gaussian(scale=scale)
    rho = meas.map(1)
    assert rho == pytest.approx(float(exact_rho), rel=1e-12) and Fraction(rho) >= exact_rho
    assert meas.check(1, rho) and not meas.check(1, math.nextafter(rho, 0))
    tmap = (dom, metric) >> dpg.then_label_count_map(c, vocab, output_metric=L02INF)
    assert tmap.map(1)[1] == least_root(square)
    threshold = tmap >> dpg.then_corrected_gaussian_threshold(scale=scale, threshold=40)
    rho_t, delta_t = threshold.map(1)
    # OpenDP's threshold takes min(ℓ2, √ℓ0·ℓ∞) in floating point: its ρ may differ from
    # make_gaussian's by an ulp, never below the exact one
    assert rho_t == pytest.approx(rho, rel=1e-12) and Fraction(rho_t) >= exact_rho
    assert threshold.check(1, (rho_t, delta_t)) and not threshold.check(1, (math.nextafter(rho_t, 0), delta_t))
