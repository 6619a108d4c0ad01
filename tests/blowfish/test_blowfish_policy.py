"""Blowfish policies and the policy distance: validation, identity, and the neighbour relation
checked against the paper's Theorem 1 (and its analogue for the other secret graphs) by brute
force over every pair of graphs on 4 nodes."""

import itertools
import math
import random

import opendp.prelude as dp
import pytest

import opendp_graph as dpg
from opendp_graph.blowfish import changed_pairs
from opendp_graph.verify.testing import all_graphs

P = dpg.BlowfishPolicy


# ------------------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    "build, error, match",
    [
        (lambda: P.attribute(vip=[]), ValueError, "vip is empty"),
        (lambda: P.attribute(vip=[1, 1]), ValueError, "more than once"),
        (lambda: P.attribute(vip=[-1]), ValueError, "non-negative"),
        (lambda: P.attribute(vip=[1.5]), TypeError, "node indices"),
        (lambda: P.attribute(vip="ab"), TypeError, "collection"),
        (lambda: P.full(vip=[5], num_nodes=5), ValueError, "person 5"),
        (lambda: P.distance_threshold(0), ValueError, "theta"),
        (lambda: P.distance_threshold(True), TypeError, "theta"),
        (lambda: P.distance_threshold(5, num_nodes=4), ValueError, "exceeds"),
        (lambda: P.partitioned([[0, 1], [1, 2]]), ValueError, "overlap"),
        (lambda: P.partitioned([[0, 1], [3]]), ValueError, "person 2 is missing"),
        (lambda: P.partitioned([[0], []]), ValueError, "empty cell"),
        (lambda: P.partitioned([]), ValueError, "at least one cell"),
        (lambda: P.partitioned(None), TypeError, "partition"),
        (lambda: P.partitioned([[0, 1]], vip=[2]), ValueError, "person 2"),
        (lambda: P("nonsense"), ValueError, "secret_graph"),
        (lambda: P("attribute", theta=2), ValueError, "theta only"),
        (lambda: P("full", partition=((0,),)), ValueError, "partition only"),
        (lambda: dpg.blowfish_distance("attribute"), TypeError, "BlowfishPolicy"),
    ],
)
def test_bad_policies_are_rejected(build, error, match):
    with pytest.raises(error, match=match):
        build()


def test_policies_are_immutable_hashable_and_identified_by_repr():
    a = P.attribute(vip={3, 1})
    assert a == P.attribute(vip=[1, 3]) and hash(a) == hash(P.attribute(vip=(3, 1)))
    assert a.vip == (1, 3)
    with pytest.raises(AttributeError):
        a.vip = (2,)
    policies = [
        P.attribute(),
        P.attribute(vip=[1]),
        P.attribute(vip=[1], num_nodes=4),
        P.full(),
        P.full(vip=[1]),
        P.distance_threshold(2),
        P.distance_threshold(3),
        P.distance_threshold(2, vip=[1]),
        P.partitioned([[0, 1], [2, 3]]),
        P.partitioned([[0, 2], [1, 3]]),
        P.partitioned([[0, 1], [2, 3]], vip=[0]),
    ]
    reprs = [repr(p) for p in policies]
    assert len(set(reprs)) == len(reprs)
    metrics = [dpg.blowfish_distance(p) for p in policies]
    for (i, m1), (j, m2) in itertools.product(enumerate(metrics), repeat=2):
        assert (m1 == m2) == (i == j)
    # the repr rebuilds the policy
    for p in policies:
        assert eval(repr(p), {"BlowfishPolicy": P}) == p
    assert "2 VIP(s)" in str(P.full(vip=[0, 1])) and "θ=2" in str(P.distance_threshold(2))
    assert P.partitioned([[3, 2], [0, 1]]).partition == ((0, 1), (2, 3))


# ------------------------------------------------------------------------------- Theorem 1
GRAPHS4 = list(all_graphs(4))


def _expected_distance_one(policy, g1, g2):
    """Independent statement of the neighbour relation (module docstring of
    opendp_graph.blowfish.metric): Theorem 1 for the attribute family, one protected ego network
    changed by one discriminative pair for the others."""
    pairs = changed_pairs(g1, g2)
    if not pairs:
        return False
    if policy.secret_graph == "attribute":
        (u, v), = pairs if len(pairs) == 1 else [(None, None)]
        return u is not None and (policy.is_protected(u) or policy.is_protected(v))
    for centre in set(itertools.chain.from_iterable(pairs)):
        if not policy.is_protected(centre) or not all(centre in p for p in pairs):
            continue
        others = [u if v == centre else v for u, v in pairs]
        if policy.secret_graph == "full":
            return True
        if policy.secret_graph == "distance_threshold" and len(others) <= policy.theta:
            return True
        if policy.secret_graph == "partitioned" and len({policy.cell_of(o) for o in others}) == 1:
            return True
    return False


def _unprotected_change(policy, g1, g2):
    return any(not (policy.is_protected(u) or policy.is_protected(v)) for u, v in changed_pairs(g1, g2))


def _vip_sets(n, every):
    subsets = [None]
    if every:
        subsets += [c for r in range(1, n + 1) for c in itertools.combinations(range(n), r)]
    else:  # every graph is enumerated, so up to relabelling only the number of VIPs matters
        subsets += [tuple(range(k)) for k in range(1, n + 1)]
    return subsets


@pytest.mark.parametrize("vip", _vip_sets(4, every=True))
def test_attribute_neighbours_are_exactly_theorem_1(vip):
    policy = P.attribute(vip=vip)
    metric = dpg.blowfish_distance(policy).descriptor
    for g1, g2 in itertools.product(GRAPHS4, repeat=2):
        d = metric.distance(g1, g2)
        assert (d == 1) == _expected_distance_one(policy, g1, g2)
        # VIP cases I–III (§2.4): a changed standard–standard edge is never protected
        assert (d == math.inf) == _unprotected_change(policy, g1, g2)
        if d != math.inf:
            assert d == len(changed_pairs(g1, g2))


@pytest.mark.parametrize(
    "make",
    [
        lambda vip: P.full(vip=vip),
        lambda vip: P.distance_threshold(2, vip=vip),
        lambda vip: P.partitioned([[0, 1], [2, 3]], vip=vip),
        lambda vip: P.partitioned([[0], [1, 2, 3]], vip=vip),
    ],
    ids=["full", "theta2", "partition22", "partition13"],
)
# no VIP and two VIPs by default; one, three and four VIPs in the thorough tier (6 s)
@pytest.mark.parametrize("vip", [v if v in (None, (0, 1)) else pytest.param(v, marks=pytest.mark.thorough) for v in _vip_sets(4, every=False)])
def test_other_neighbours_are_one_ego_network_change(make, vip):
    policy = make(vip)
    metric = dpg.blowfish_distance(policy).descriptor
    attribute = dpg.blowfish_distance(P.attribute(vip=vip)).descriptor
    for g1, g2 in itertools.product(GRAPHS4, repeat=2):
        d = metric.distance(g1, g2)
        assert (d == 1) == _expected_distance_one(policy, g1, g2)
        assert (d == math.inf) == _unprotected_change(policy, g1, g2)
        # every secret graph here contains the attribute one: never farther than it
        assert d <= attribute.distance(g1, g2)


def test_full_policy_distance_is_a_protected_vertex_cover():
    metric = dpg.blowfish_distance(P.full()).descriptor
    empty = dpg.Graph.from_edges([], [], num_nodes=5)
    path = dpg.Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 4])  # cover {1, 3}
    star = dpg.Graph.from_edges([0, 0, 0, 0], [1, 2, 3, 4])
    assert metric.distance(empty, path) == 2
    assert metric.distance(empty, star) == 1
    assert metric.distance(star, path) == 3  # changed: 02 03 04 12 23 34, cover {0, 2, 3}
    vip_metric = dpg.blowfish_distance(P.full(vip=[1, 2, 3, 4])).descriptor
    assert vip_metric.distance(empty, star) == 4  # centre 0 is standard: each leaf rewires
    theta = dpg.blowfish_distance(P.distance_threshold(3)).descriptor
    assert theta.distance(empty, star) == 2  # ⌈4/3⌉ at the centre


def test_metric_axioms_on_random_triples():
    rng = random.Random(7)
    graphs = list(all_graphs(5))
    for policy in [P.full(vip=[0, 2]), P.distance_threshold(2, vip=[0, 1, 2]), P.partitioned([[0, 1], [2, 3, 4]])]:
        metric = dpg.blowfish_distance(policy).descriptor
        for _ in range(300):
            a, b, c = rng.sample(graphs, 3)
            ab, bc, ac = metric.distance(a, b), metric.distance(b, c), metric.distance(a, c)
            assert ab == metric.distance(b, a)
            assert ac <= ab + bc
            assert metric.distance(a, a) == 0


def test_distance_edge_cases():
    metric = dpg.blowfish_distance(P.attribute(num_nodes=3)).descriptor
    g3 = dpg.Graph.from_edges([0], [1], num_nodes=3)
    g4 = dpg.Graph.from_edges([0], [1], num_nodes=4)
    assert metric.distance(g4, g4) == math.inf  # not the policy's people
    assert dpg.blowfish_distance(P.attribute()).descriptor.distance(g3, g4) == math.inf
    labeled = dpg.Graph.from_edges([0], [1], num_nodes=3, labels=[["a"]])
    relabeled = dpg.Graph.from_edges([0], [1], num_nodes=3, labels=[["b"]])
    assert metric.distance(labeled, relabeled) == 1  # one categorical attribute changed
    assert metric.distance(labeled, g3) == math.inf


def test_measurement_chains_and_composes():
    policy = P.attribute(vip=[0, 1])
    space = dpg.graph_domain(num_nodes=6), dpg.blowfish_distance(policy)
    meas = space >> dpg.then_standard_degree_histogram(max_degree=5) >> dp.m.then_laplace(scale=2.0)
    assert meas.check(1, 1.0) and not meas.check(1, 1.0 - 1e-9)
    g = dpg.Graph.from_edges([0, 1, 2], [2, 3, 4], num_nodes=6)
    assert len(meas(g)) == 6
    both = dp.c.make_composition([meas, space >> dpg.then_edge_count() >> dp.m.then_laplace(scale=1.0)])
    assert both.map(1) == pytest.approx(2.0)


def test_context_api_with_a_vip_policy():
    g = dpg.Graph.from_edges([0, 0, 1, 2, 3], [1, 2, 2, 3, 4], num_nodes=6)
    policy = P.attribute(vip=[0, 1], num_nodes=6)
    ctx = dp.Context.compositor(
        data=g,
        privacy_unit=(dpg.blowfish_distance(policy), 1),
        privacy_loss=dp.loss_of(epsilon=1.0),
        split_evenly_over=2,
        domain=dpg.graph_domain(num_nodes=6),
    )
    standard = ctx.query().standard_degree_histogram(max_degree=4).laplace()
    assert standard.param() == pytest.approx(4.0)  # sensitivity 2 at ε = 1/2
    complete = ctx.query().degree_histogram(max_degree=4).laplace()
    assert complete.param() == pytest.approx(8.0)  # sensitivity 4 at ε = 1/2
    assert len(standard.release()) == len(complete.release()) == 5


# ------------------------------------------------------------------ He et al.'s formal neighbours
def _literal_neighbours(policy, g1, g2):
    """Whether (g1, g2) are neighbours by the letter of He et al. (SIGMOD 2014, Def. 4.2) on the
    adjacency database: T(D1, D2) = the secret pairs (i, x_i, y_i) among the changed rows, Δ = the
    changed (id, row) records; neighbours iff T ≠ ∅ and no graph D3 has ∅ ≠ T(D1, D3) ⊊ T(D1, D2),
    or T(D1, D3) = T(D1, D2) and Δ(D1, D3) ⊊ Δ(D1, D2)."""
    n = g1.num_nodes
    rows = lambda g: [tuple(int(x) for x in r) for r in g.adjacency().toarray()]
    r1 = rows(g1)

    def t_delta(g):
        r = rows(g)
        changed = [i for i in range(n) if r1[i] != r[i]]
        secret = lambda i: policy.is_protected(i) and policy.steps(i, [j for j in range(n) if r1[i][j] != r[i][j]]) == 1
        return frozenset((i, r1[i], r[i]) for i in changed if secret(i)), frozenset((i, row) for i in changed for row in (r1[i], r[i]))

    t, delta = t_delta(g2)
    if not t:
        return False
    for g3 in all_graphs(n):
        t3, d3 = t_delta(g3)
        if (t3 and t3 < t) or (t3 == t and d3 < delta):
            return False
    return True


def test_literal_he_et_al_neighbours_differ_from_theorem_1():
    """We implement the relation the paper states (Theorem 1, one ego network changed). The
    literal minimality condition of He et al. gives another relation on this database, in both
    directions; these are the documented examples (module docstring of blowfish.metric)."""
    empty4 = dpg.Graph.from_edges([], [], num_nodes=4)
    everyone = P.attribute()
    metric = dpg.blowfish_distance(everyone).descriptor
    # (i) n = 4: a single edge flip is not a literal neighbour (changing rows 0, 2, 3 by several
    # bits, which are not secret pairs, gives T = {row 1's change} ⊊ T) — Theorem 1 says it is
    one_edge = dpg.Graph.from_edges([0], [1], num_nodes=4)
    assert not _literal_neighbours(everyone, empty4, one_edge)
    assert metric.distance(empty4, one_edge) == 1
    # on 3 nodes it is one
    empty3 = dpg.Graph.from_edges([], [], num_nodes=3)
    assert _literal_neighbours(everyone, empty3, dpg.Graph.from_edges([0], [1], num_nodes=3))
    # (ii) a path of changes a–b–c is a literal neighbour (b's two-bit change is no secret pair);
    # ours puts it at distance 2 (guarantee e^{2ε})
    path3 = dpg.Graph.from_edges([0, 1], [1, 2], num_nodes=3)
    assert _literal_neighbours(everyone, empty3, path3)
    assert metric.distance(empty3, path3) == 2
    # (iii) with VIP 1 only, a standard–standard change riding on the VIP's change (edges 0–1 and
    # 0–2 added) is a literal neighbour; ours does not protect it (distance inf)
    vip1 = P.attribute(vip=[1])
    riding = dpg.Graph.from_edges([0, 0], [1, 2], num_nodes=3)
    assert _literal_neighbours(vip1, empty3, riding)
    assert dpg.blowfish_distance(vip1).descriptor.distance(empty3, riding) == math.inf


# two VIPs (protected and unprotected pairs) by default, the other VIP sets in the thorough tier
# (18 s); every VIP set on four nodes by default in test_attribute_neighbours_are_exactly_theorem_1
@pytest.mark.parametrize("vip", [v if v == (0, 1) else pytest.param(v, marks=pytest.mark.thorough) for v in _vip_sets(5, every=False)])
def test_theorem_1_on_five_nodes_single_and_double_changes(vip):
    policy = P.attribute(vip=vip)
    metric = dpg.blowfish_distance(policy).descriptor
    pairs = list(itertools.combinations(range(5), 2))
    graphs = list(all_graphs(5))[::4]
    protected = lambda p: policy.is_protected(p[0]) or policy.is_protected(p[1])
    for g in graphs:
        edges = {tuple(e) for e in g.edges.tolist()}
        for change in itertools.chain(([p] for p in pairs), itertools.combinations(pairs, 2)):
            src, dst = zip(*sorted(edges ^ set(change))) if edges ^ set(change) else ((), ())
            h = dpg.Graph.from_edges(src, dst, num_nodes=5)
            expected = len(change) if all(protected(p) for p in change) else math.inf
            assert metric.distance(g, h) == expected
