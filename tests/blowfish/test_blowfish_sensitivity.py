"""Brute-force checks of every Blowfish sensitivity: soundness (no neighbour pair exceeds the
stability map), tightness where the docstrings claim it, and soundness at larger distances.

Graphs are enumerated as bit masks over the node pairs, so a one-step neighbour is ``mask ^ star``
where ``star`` is a set of pairs at one protected vertex allowed by its secret graph; the outputs
of each query are computed once per graph with the library's own functions.
"""

import itertools
import math
from functools import lru_cache

import numpy as np
import opendp.prelude as dp
import pytest

import opendp_graph as dpg
from opendp_graph.blowfish import standard_degree_histogram, vip_standard_histogram
from opendp_graph.verify.testing import all_graphs, all_labelings, l01inf
from opendp_graph.transformations import cumulative_degree_histogram, degree_histogram, triangle_count

P = dpg.BlowfishPolicy


@lru_cache(maxsize=None)
def graphs(n):
    return list(all_graphs(n))  # index == bit mask over itertools.combinations(range(n), 2)


def pair_bits(n):
    return {p: 1 << i for i, p in enumerate(itertools.combinations(range(n), 2))}


def stars(policy, n):
    """Bit masks of the one-step changes: pairs at a protected centre allowed by its secret graph."""
    bits = pair_bits(n)
    out = set()
    for v in range(n):
        if not policy.is_protected(v):
            continue
        others = [u for u in range(n) if u != v]
        for r in range(1, len(others) + 1):
            for chosen in itertools.combinations(others, r):
                if policy.steps(v, chosen) == 1:
                    out.add(sum(bits[(min(u, v), max(u, v))] for u in chosen))
    return sorted(out)


@lru_cache(maxsize=None)
def outputs(n, query, bins, vip=None, side="vip"):
    gs = graphs(n)
    if query == "edge_count":
        rows = [[g.num_edges] for g in gs]
    elif query == "degree_histogram":
        rows = [degree_histogram(g, bins) for g in gs]
    elif query == "cumulative_degree_histogram":
        rows = [cumulative_degree_histogram(g, bins) for g in gs]
    elif query == "triangle_count":
        rows = [[triangle_count(g)] for g in gs]
    elif query == "standard_degree_histogram":
        rows = [standard_degree_histogram(g, vip, bins) for g in gs]
    else:
        rows = [vip_standard_histogram(g, vip, bins, side) for g in gs]
    return np.asarray(rows, dtype=np.int64)


def true_sensitivity(policy, n, query, bins, vip=None, side="vip", max_degree=None):
    """Largest L1 change over every neighbour pair (both graphs in the domain)."""
    out = outputs(n, query, bins, vip, side)
    idx = np.arange(len(out))
    inside = np.ones(len(out), dtype=bool)
    if max_degree is not None:
        inside = np.array([g.max_degree <= max_degree for g in graphs(n)])
    best = 0
    for star in stars(policy, n):
        ok = inside & inside[idx ^ star]
        if ok.any():
            best = max(best, int(np.abs(out[ok] - out[idx[ok] ^ star]).sum(axis=1).max()))
    return best


def make(query, bins, vip=None, side="vip"):
    if query == "edge_count":
        return dpg.then_edge_count()
    if query == "triangle_count":
        return dpg.then_triangle_count()
    if query == "degree_histogram":
        return dpg.then_degree_histogram(max_degree=bins)
    if query == "cumulative_degree_histogram":
        return dpg.then_cumulative_degree_histogram(max_degree=bins)
    if query == "standard_degree_histogram":
        return dpg.then_standard_degree_histogram(max_degree=bins, vip=vip)
    return dpg.then_vip_standard_histogram(max_count=bins, vip=vip, side=side)


POLICIES = {
    "attribute": lambda vip, n: P.attribute(vip=vip),
    "full": lambda vip, n: P.full(vip=vip),
    "theta2": lambda vip, n: P.distance_threshold(2, vip=vip),
    "partition": lambda vip, n: P.partitioned([list(range(0, n, 2)), list(range(1, n, 2))], vip=vip),
}
ALL_QUERIES = ["edge_count", "degree_histogram", "cumulative_degree_histogram", "triangle_count"]


def vip_sets(n, every):
    if every:
        return [None] + [c for r in range(1, n + 1) for c in itertools.combinations(range(n), r)]
    return [None] + [tuple(range(k)) for k in range(1, n + 1)]


def check(policy, n, query, bins, vip=None, side="vip", max_degree=None):
    domain = dpg.graph_domain(num_nodes=n, max_degree=max_degree)
    bound = (( domain, dpg.blowfish_distance(policy)) >> make(query, bins, vip, side)).map(1)
    actual = true_sensitivity(policy, n, query, bins, vip, side, max_degree)
    assert actual <= bound, (policy, query, bins, actual, bound)
    return actual, bound


# ------------------------------------------------------------------------------- soundness, d = 1
@pytest.mark.parametrize("name", list(POLICIES))
@pytest.mark.parametrize("query", ALL_QUERIES)
def test_sound_on_every_graph_and_vip_subset_n4(name, query):
    n = 4
    for vip in vip_sets(n, every=True):
        for bins in (1, 2, n - 1):
            check(POLICIES[name](vip, n), n, query, bins, vip)


# the triangle count on 5 nodes (7 s, most of it its true sensitivities, computed once) in the
# thorough tier: by default on 4 nodes, every VIP subset (test_sound_on_every_graph_and_vip_subset_n4)
@pytest.mark.parametrize("query, name", [
    pytest.param(query, name, marks=[pytest.mark.thorough] if query == "triangle_count" else [])
    for name in POLICIES for query in ALL_QUERIES
])
def test_sound_on_every_graph_n5(name, query):
    n = 5
    for vip in vip_sets(n, every=False):
        for bins in (2, n - 1):
            check(POLICIES[name](vip, n), n, query, bins, vip)


@pytest.mark.parametrize("name", list(POLICIES))
@pytest.mark.parametrize("query", ALL_QUERIES)
def test_sound_with_a_degree_bound(name, query):
    n = 5
    for vip in (None, (0, 1)):
        check(POLICIES[name](vip, n), n, query, 4, vip, max_degree=2)


@pytest.mark.parametrize("name", list(POLICIES))
@pytest.mark.parametrize("side", ["vip", "standard", None])
def test_vip_queries_sound_for_every_vip_subset(name, side):
    for n in (4, 5):
        for vip in vip_sets(n, every=(n == 4))[1:]:
            if len(vip) == n:
                continue
            for bins in (1, n - 1):
                if side is None:
                    check(POLICIES[name](vip, n), n, "standard_degree_histogram", bins, vip)
                else:
                    check(POLICIES[name](vip, n), n, "vip_standard_histogram", bins, vip, side)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(POLICIES))
def test_sound_on_every_vip_subset_n5(name):
    n = 5
    for vip in vip_sets(n, every=True):
        for query in ALL_QUERIES:
            check(POLICIES[name](vip, n), n, query, n - 1, vip)
        if vip is not None and len(vip) < n:
            check(POLICIES[name](vip, n), n, "standard_degree_histogram", n - 1, vip)
            for side in ("vip", "standard"):
                check(POLICIES[name](vip, n), n, "vip_standard_histogram", n - 1, vip, side)


# ------------------------------------------------------------------------------- tightness
@pytest.mark.parametrize("n", [3, 4, 5])
def test_paper_figures_and_their_corrections_are_tight(n):
    bins = n - 1
    attr, full = P.attribute(), P.full()
    # attribute policy: 4 and 2 (§3.1), edge count 1, triangles n - 2
    assert check(attr, n, "degree_histogram", bins) == (4, 4)
    assert check(attr, n, "cumulative_degree_histogram", bins) == (2, 2)
    assert check(attr, n, "edge_count", bins) == (1, 1)
    assert check(attr, n, "triangle_count", bins) == (n - 2, n - 2)
    # full policy: 2n is attained; the cumulative histogram's true figure is 2(n - 1), not n
    assert check(full, n, "degree_histogram", bins) == (2 * n, 2 * n)
    assert check(full, n, "cumulative_degree_histogram", bins) == (2 * (n - 1), 2 * (n - 1))
    assert 2 * (n - 1) > n
    assert check(full, n, "edge_count", bins) == (n - 1, n - 1)
    assert check(full, n, "triangle_count", bins) == ((n - 1) * (n - 2) // 2,) * 2
    # with clamped bins the cumulative figure is min(B, n-1) + (n-1)
    assert check(full, n, "cumulative_degree_histogram", 1) == (n, n)
    # a VIP full policy is as bad as the full one for the complete histogram
    assert check(P.full(vip=[0]), n, "degree_histogram", bins) == (2 * n, 2 * n)
    # distance threshold θ = 2: 2(1 + θ)
    assert check(P.distance_threshold(2), n, "degree_histogram", bins) == (6, 6)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_vip_query_figures_are_tight(n):
    bins = n - 1
    for k in range(1, n):
        vip = tuple(range(k))
        attr = P.attribute(vip=vip)
        # the paper's 2 (§3.2, §3.3) under the attribute VIP policy
        assert check(attr, n, "standard_degree_histogram", bins, vip) == (2, 2)
        assert check(attr, n, "vip_standard_histogram", bins, vip, "vip") == (2, 2)
        assert check(attr, n, "vip_standard_histogram", bins, vip, "standard") == (2, 2)
        # under a full VIP policy only the per-VIP histogram keeps its 2
        full = P.full(vip=vip)
        assert check(full, n, "standard_degree_histogram", bins, vip) == (2 * (n - k),) * 2
        assert check(full, n, "vip_standard_histogram", bins, vip, "vip") == (2, 2)


# ------------------------------------------------------------------------------- larger distances
# the attribute and distance-threshold policies by default, the full and partitioned ones thorough (3 s)
@pytest.mark.parametrize("name", [n if n in ("attribute", "theta2") else pytest.param(n, marks=pytest.mark.thorough) for n in POLICIES])
def test_sound_at_every_distance_n4(name):
    n, bins = 4, 3
    gs = graphs(n)
    for vip in vip_sets(n, every=False):
        policy = POLICIES[name](vip, n)
        metric = dpg.blowfish_distance(policy)
        queries = list(ALL_QUERIES)
        if vip is not None and len(vip) < n:
            queries += ["standard_degree_histogram", ("vip_standard_histogram", "vip"), ("vip_standard_histogram", "standard")]
        maps, outs = [], []
        for q in queries:
            query, side = (q, "vip") if isinstance(q, str) else q
            t = (dpg.graph_domain(num_nodes=n), metric) >> make(query, bins, vip, side)
            maps.append(t.map)
            outs.append(outputs(n, query, bins, vip, side))
        bounds = {}  # d -> bound of every query (one FFI call per distance, not per pair)
        for i, j in itertools.combinations(range(len(gs)), 2):
            d = metric.descriptor.distance(gs[i], gs[j])
            if d == math.inf:
                continue
            if d not in bounds:
                bounds[d] = [stability(d) for stability in maps]
            for bound, out in zip(bounds[d], outs):
                assert np.abs(out[i] - out[j]).sum() <= bound


# ------------------------------------------------------------------------------- labels
# one case of each secret graph by default (c = 2 under full, a VIP under the distance threshold);
# the attribute policy at c = 2 and with a VIP in the thorough tier (5 s)
@pytest.mark.parametrize(
    "policy, c",
    [
        (P.attribute(), 1),
        pytest.param(P.attribute(), 2, marks=pytest.mark.thorough),
        pytest.param(P.attribute(vip=[0]), 1, marks=pytest.mark.thorough),
        (P.full(), 2),
        (P.distance_threshold(2, vip=[1]), 1),
    ],
)
def test_label_queries_sound_and_attribute_tight(policy, c):
    n, vocab = 3, ["a", "b", "c"]
    graphs3 = [lg for g in all_graphs(n) for lg in all_labelings(g, vocab[:2])]
    domain = dpg.graph_domain(num_nodes=n, labeled=True)
    metric = dpg.blowfish_distance(policy)
    counts = (domain, metric) >> dpg.then_label_counts(c, vocab)
    cmap = (domain, metric) >> dpg.then_label_count_map(c)
    out_counts = np.array([counts(g) for g in graphs3])
    out_maps = [cmap(g) for g in graphs3]
    bounds, worst = {}, 0
    for i, j in itertools.permutations(range(len(graphs3)), 2):
        d = metric.descriptor.distance(graphs3[i], graphs3[j])
        if d == math.inf:
            continue
        if d not in bounds:
            bounds[d] = (counts.map(d), cmap.map(d))
        diff = int(np.abs(out_counts[i] - out_counts[j]).sum())
        assert diff <= bounds[d][0]
        assert all(x <= y for x, y in zip(l01inf(out_maps[i], out_maps[j]), bounds[d][1]))
        if d == 1:
            worst = max(worst, diff)
    if policy.secret_graph == "attribute" and c == 1:
        assert worst == counts.map(1) == 2 * c  # relabelling {a} -> {b}


# ------------------------------------------------------------------------------- construction
def test_rules_refuse_what_they_cannot_bound():
    full = dpg.blowfish_distance(P.full())
    with pytest.raises(ValueError, match="num_nodes or max_degree"):
        dpg.make_degree_histogram(dpg.graph_domain(), full, max_degree=3)
    with pytest.raises(ValueError, match="num_nodes or max_degree"):
        dpg.make_edge_count(dpg.graph_domain(), full)
    # a degree bound alone suffices (node-level DP's figures)
    assert dpg.make_degree_histogram(dpg.graph_domain(max_degree=3), full).map(1) == 12
    assert dpg.make_edge_count(dpg.graph_domain(max_degree=3), full).map(2) == 6
    # the attribute family needs neither
    assert dpg.make_degree_histogram(dpg.graph_domain(), dpg.blowfish_distance(P.attribute()), max_degree=3).map(2) == 8
    with pytest.raises(ValueError, match="policy has 4 people but the domain has 5"):
        dpg.make_edge_count(dpg.graph_domain(num_nodes=5), dpg.blowfish_distance(P.attribute(num_nodes=4)))
    with pytest.raises(ValueError, match="names person 7"):
        dpg.make_edge_count(dpg.graph_domain(num_nodes=5), dpg.blowfish_distance(P.attribute(vip=[7])))


def test_vip_query_arguments():
    domain = dpg.graph_domain(num_nodes=4)
    everyone = dpg.blowfish_distance(P.attribute())
    with pytest.raises(ValueError, match="protects everyone"):
        dpg.make_standard_degree_histogram(domain, everyone, max_degree=3)
    with pytest.raises(ValueError, match="vip is required"):
        dpg.make_standard_degree_histogram(domain, dpg.edge_distance(), max_degree=3)
    with pytest.raises(ValueError, match="differs"):
        dpg.make_standard_degree_histogram(domain, dpg.blowfish_distance(P.attribute(vip=[0])), max_degree=3, vip=[1])
    with pytest.raises(ValueError, match="side"):
        dpg.make_vip_standard_histogram(domain, dpg.edge_distance(), max_count=3, vip=[0], side="both")
    with pytest.raises(ValueError, match="max_count is required"):
        dpg.make_vip_standard_histogram(dpg.graph_domain(), dpg.edge_distance(), vip=[0])
    with pytest.raises(ValueError, match="names person 9"):
        dpg.make_vip_standard_histogram(domain, dpg.edge_distance(), max_count=3, vip=[9])
    # under edge DP the standard histogram costs 4 per edge, under the VIP policy 2
    t_edge = dpg.make_standard_degree_histogram(domain, dpg.edge_distance(), max_degree=3, vip=[0])
    t_vip = dpg.make_standard_degree_histogram(domain, dpg.blowfish_distance(P.attribute(vip=[0])), max_degree=3)
    assert (t_edge.map(1), t_vip.map(1)) == (4, 2)
    # the run-time check on unknown people depends only on the public node count
    t = dpg.make_standard_degree_histogram(dpg.graph_domain(), dpg.edge_distance(), max_degree=3, vip=[5])
    with pytest.raises(dp.OpenDPException, match="names person 5"):
        t(dpg.Graph.from_edges([0], [1], num_nodes=3))


@pytest.mark.parametrize("side", ["vip", "standard"])
def test_vip_queries_under_edge_distance_sound_and_tight(side):
    n = 5
    attribute_everyone = P.attribute()  # its one-step changes are exactly edge flips
    for k in range(1, n):
        vip = tuple(range(k))
        out = outputs(n, "vip_standard_histogram", n - 1, vip, side)
        idx = np.arange(len(out))
        worst = max(int(np.abs(out - out[idx ^ s]).sum(axis=1).max()) for s in stars(attribute_everyone, n))
        t = dpg.make_vip_standard_histogram(dpg.graph_domain(num_nodes=n), dpg.edge_distance(), max_count=n - 1, vip=vip, side=side)
        assert worst == t.map(1) == 2
        out = outputs(n, "standard_degree_histogram", n - 1, vip)
        worst = max(int(np.abs(out - out[idx ^ s]).sum(axis=1).max()) for s in stars(attribute_everyone, n))
        t = dpg.make_standard_degree_histogram(dpg.graph_domain(num_nodes=n), dpg.edge_distance(), max_degree=n - 1, vip=vip)
        assert worst == t.map(1) == (4 if n - k >= 2 else 2)


# ------------------------------------------------------------------------------- larger random graphs
def _random_step(policy, n, rng):
    """Pairs flipped by one random discriminative change of a random protected person."""
    protected = [v for v in range(n) if policy.is_protected(v)]
    v = int(rng.choice(protected))
    others = [u for u in range(n) if u != v]
    if policy.secret_graph == "attribute":
        chosen = [int(rng.choice(others))]
    elif policy.secret_graph == "full":
        chosen = [u for u in others if rng.random() < 0.5] or [others[0]]
    elif policy.secret_graph == "distance_threshold":
        chosen = rng.choice(others, size=int(rng.integers(1, policy.theta + 1)), replace=False).tolist()
    else:
        cells = [[u for u in cell if u != v] for cell in policy.partition]
        cell = cells[int(rng.choice([i for i, c in enumerate(cells) if c]))]
        chosen = [u for u in cell if rng.random() < 0.5] or [cell[0]]
    assert policy.steps(v, chosen) == 1
    return {(min(u, v), max(u, v)) for u in chosen}


@pytest.mark.parametrize("name", list(POLICIES))
@pytest.mark.parametrize("with_vips", [False, True])
def test_random_larger_graphs_multi_step(name, with_vips):
    rng = np.random.default_rng(11)  # a test sampler, not a release
    n = 24
    vip = tuple(sorted(rng.choice(n, size=7, replace=False).tolist())) if with_vips else None
    policy = POLICIES[name](vip, n)
    space = dpg.graph_domain(num_nodes=n), dpg.blowfish_distance(policy)
    builders = [make(q, b) for q in ALL_QUERIES for b in (4, n - 1)]
    if vip:
        builders += [make("standard_degree_histogram", 6, vip), make("vip_standard_histogram", 6, vip, "vip"),
                     make("vip_standard_histogram", 6, vip, "standard")]
    transformations = [space >> b for b in builders]
    bounds = {k: [t.map(k) for t in transformations] for k in (1, 2, 3)}
    for _ in range(15):
        edges = {(u, v) for u in range(n) for v in range(u + 1, n) if rng.random() < 0.2}
        g1 = dpg.Graph.from_edges([e[0] for e in edges], [e[1] for e in edges], num_nodes=n)
        k = int(rng.integers(1, 4))
        for _ in range(k):
            edges ^= _random_step(policy, n, rng)
        g2 = dpg.Graph.from_edges([e[0] for e in edges], [e[1] for e in edges], num_nodes=n)
        if name == "attribute":
            assert dpg.blowfish_distance(policy).descriptor.distance(g1, g2) <= k
        for t, bound in zip(transformations, bounds[k]):
            a, b = t(g1), t(g2)
            change = abs(a - b) if isinstance(a, int) else int(np.abs(np.subtract(a, b)).sum())
            assert change <= bound


def test_boundary_checks_of_measurements():
    n = 6
    for policy, query, sensitivity in [
        (P.full(), dpg.then_degree_histogram(max_degree=5), 2 * n),
        (P.full(), dpg.then_cumulative_degree_histogram(max_degree=5), 2 * (n - 1)),
        (P.attribute(), dpg.then_degree_histogram(max_degree=5), 4),
        (P.distance_threshold(2, vip=[0]), dpg.then_edge_count(), 2),
    ]:
        for scale in (1.0, 3.5):
            meas = (dpg.graph_domain(num_nodes=n), dpg.blowfish_distance(policy)) >> query >> dp.m.then_laplace(scale=scale)
            eps = meas.map(1)
            assert eps == pytest.approx(sensitivity / scale)  # OpenDP rounds the division up
            assert meas.check(1, eps) and not meas.check(1, eps - 1e-9)
            assert eps <= meas.map(2) <= 2 * eps + 1e-9  # monotone, and at most linear in d


# ------------------------------------------------------------------------------- ℓ2 (Gaussian)
def true_l2(policy, n, query, bins):
    """Largest ℓ2 change over every one-step neighbour pair."""
    out = outputs(n, query, bins)
    idx = np.arange(len(out))
    best = 0.0
    for star in stars(policy, n):
        best = max(best, float(np.sqrt(((out - out[idx ^ star]) ** 2).sum(axis=1).max())))
    return best


@pytest.mark.parametrize("name", list(POLICIES))
@pytest.mark.parametrize("query", ["degree_histogram", "cumulative_degree_histogram"])
@pytest.mark.parametrize("n", [4, 5])
def test_l2_rules_sound(name, query, n):
    l2 = dp.l2_distance(T=dp.f64)
    for bins in (1, 2, n - 1):
        policy = POLICIES[name](None, n)
        space = dpg.graph_domain(num_nodes=n), dpg.blowfish_distance(policy)
        then = dpg.then_degree_histogram if query == "degree_histogram" else dpg.then_cumulative_degree_histogram
        bound = (space >> then(max_degree=bins, output_metric=l2)).map(1)
        actual = true_l2(policy, n, query, bins)
        assert actual <= bound + 1e-12, (name, query, bins, actual, bound)
        if name == "attribute" and query == "degree_histogram":
            assert actual == pytest.approx(bound)  # an edge between two isolated vertices: 2√2


def true_l2_vip(policy, n, query, bins, vip, side="vip"):
    out = outputs(n, query, bins, vip, side)
    idx = np.arange(len(out))
    return max((float(np.sqrt(((out - out[idx ^ star]) ** 2).sum(axis=1).max())) for star in stars(policy, n)), default=0.0)


@pytest.mark.parametrize("name", list(POLICIES))
@pytest.mark.parametrize("query, side", [("standard_degree_histogram", "vip"), ("vip_standard_histogram", "vip"),
                                         ("vip_standard_histogram", "standard")])
def test_vip_query_l2_rules_sound(name, query, side):
    """The VIP queries' ℓ2 rules (their L1 rules over √2) on every graph of 4 nodes and VIP set."""
    l2 = dp.l2_distance(T=dp.f64)
    n = 4
    tight = 0
    for vip in vip_sets(n, every=True)[1:]:
        policy = POLICIES[name](list(vip), n)
        space = dpg.graph_domain(num_nodes=n), dpg.blowfish_distance(policy)
        if query == "standard_degree_histogram":
            t = space >> dpg.then_standard_degree_histogram(max_degree=2, vip=list(vip), output_metric=l2)
        else:
            t = space >> dpg.then_vip_standard_histogram(max_count=2, vip=list(vip), side=side, output_metric=l2)
        actual = true_l2_vip(policy, n, query, 2, tuple(vip), side)
        bound = t.map(1)
        assert actual <= bound + 1e-12, (name, query, side, vip, actual, bound)
        tight += actual == pytest.approx(bound)
    if name == "attribute":
        assert tight  # a VIP's edge to a standard vertex moves one count between two bins: √2


@pytest.mark.parametrize("side", ["vip", "standard"])
def test_vip_query_l2_under_edge_distance_sound_and_tight(side):
    n, l2 = 5, dp.l2_distance(T=dp.f64)
    attribute_everyone = P.attribute()  # its one-step changes are exactly edge flips
    for k in range(1, n):
        vip = tuple(range(k))
        for query in ("vip_standard_histogram", "standard_degree_histogram"):
            out = outputs(n, query, n - 1, vip, side if query == "vip_standard_histogram" else "vip")
            idx = np.arange(len(out))
            worst = max(float(np.sqrt(((out - out[idx ^ s]) ** 2).sum(axis=1).max())) for s in stars(attribute_everyone, n))
            space = dpg.graph_domain(num_nodes=n), dpg.edge_distance()
            if query == "vip_standard_histogram":
                t = space >> dpg.then_vip_standard_histogram(max_count=n - 1, vip=vip, side=side, output_metric=l2)
            else:
                t = space >> dpg.then_standard_degree_histogram(max_degree=n - 1, vip=vip, output_metric=l2)
            assert worst == pytest.approx(t.map(1)), (query, vip, worst, t.map(1))
