"""Interpretation of edge DP: ERGM α (Corollary 4.2), change statistics, the guarantee in words."""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import opendp.prelude as dp
import pytest

import opendp_graph as dpg
from opendp_graph.interpret import (
    ERGM,
    attack_accuracy,
    change_statistics,
    describe_guarantee,
    edge_secret_guarantee,
    ergm_alpha,
    ergm_statistics,
    queens_alpha,
    queens_count_distributions,
    queens_distribution,
)
from opendp_graph.verify.testing import all_graphs

MODELS = [
    dict(edges=-1.0, triangles=0.6),
    dict(edges=-0.5, two_stars=0.25),
    dict(edges=0.3, two_stars=-0.2, triangles=0.5),
    dict(edges=-0.2, k_stars={3: 0.3}),
    dict(edges=0.1, two_stars=0.1, k_stars={3: -0.2}, triangles=-0.4),
]


def test_required_entry_points_exist():
    assert dpg.interpret.ergm_alpha is ergm_alpha
    assert callable(dpg.verify.empirical_epsilon) and callable(dpg.verify.exact_epsilon)


def test_statistics_match_networkx():
    for g in itertools.islice(all_graphs(5), 0, None, 37):
        nxg = g.to_networkx()
        st = ergm_statistics(g)
        assert st["edges"] == nxg.number_of_edges()
        assert st["triangles"] == sum(nx.triangles(nxg).values()) // 3
        assert st["two_stars"] == sum(d * (d - 1) // 2 for _, d in nxg.degree())


def test_change_statistics_are_differences_of_statistics():
    model = ERGM(5, k_stars={3: 1.0})
    for g in itertools.islice(all_graphs(5), 0, None, 53):
        for i, j in [(0, 1), (1, 3), (2, 4)]:
            nxg = g.to_networkx()
            plus, minus = nxg.copy(), nxg.copy()
            plus.add_edge(i, j)
            if minus.has_edge(i, j):
                minus.remove_edge(i, j)
            gp, gm = dpg.Graph.from_networkx(plus), dpg.Graph.from_networkx(minus)
            up, um = ergm_statistics(gp, model), ergm_statistics(gm, model)
            assert change_statistics(g, i, j, model) == {k: up[k] - um[k] for k in up}


@pytest.mark.parametrize("terms", MODELS)
def test_exact_alpha_matches_corollary_4_2_formula_by_brute_force(terms):
    # α = sup_{g,i,j} |βᵀΔ(g,i,j) − logit P(e)|, computed from Graph-level change statistics.
    n = 4
    model = ERGM(n, **terms)
    dist = model.distribution()
    beta = model.coefficients()
    rep = ergm_alpha(model)
    brute, zeta = 0.0, 0.0
    for g in dist.graphs:
        for i, j in dist.pairs:
            delta = change_statistics(g, i, j, model)
            bd = sum(beta.get(k, 0.0) * v for k, v in delta.items())
            bd += beta.get("two_stars", 0.0) * 0  # already in delta["two_stars"]
            pe = dist.edge_probability(i, j)
            brute = max(brute, abs(bd - math.log(pe / (1 - pe))))
            zeta = max(zeta, abs(bd))
    assert rep.exact
    assert rep.alpha == pytest.approx(brute, abs=1e-9)
    assert rep.zeta == pytest.approx(zeta, abs=1e-12)  # the analytic (d_i, d_j, t) scan is exact
    assert rep.alpha <= rep.upper_bound + 1e-12
    assert rep.upper_bound == pytest.approx(2 * zeta)


@pytest.mark.parametrize("n", [5, pytest.param(6, marks=pytest.mark.thorough)])  # 6 nodes: thorough (3 s)
def test_analytic_zeta_equals_enumeration(n):
    model = ERGM(n, edges=-0.7, two_stars=0.15, triangles=-0.35, k_stars={3: 0.05})
    beta = model.coefficients()
    zeta = 0.0
    for g in itertools.islice(all_graphs(n), 0, None, 1 if n == 5 else 29):
        for i, j in [(0, 1), (2, n - 1)]:
            d = change_statistics(g, i, j, model)
            zeta = max(zeta, abs(sum(beta.get(k, 0.0) * v for k, v in d.items())))
    rep = ergm_alpha(model, exact=False)
    assert not rep.exact
    assert rep.zeta >= zeta - 1e-12
    if n == 5:
        assert rep.zeta == pytest.approx(zeta)


def test_independent_edges_give_zero_and_large_models_give_bounds():
    assert ergm_alpha(6, edges=-2.0).alpha == 0.0
    rep = ergm_alpha(200, edges=-2.0, triangles=0.05)
    assert not rep.exact
    assert rep.zeta == pytest.approx(abs(-2.0 + 0.05 * 198))
    assert rep.alpha == rep.upper_bound == pytest.approx(2 * rep.zeta)
    with pytest.raises(ValueError, match="exact"):
        ergm_alpha(12, edges=-1.0, triangles=0.1, exact=True)


def test_degree_cap_is_reported_as_no_bound():
    rep = ergm_alpha(6, edges=-1.0, two_stars=0.1, max_degree=3)
    assert rep.alpha == math.inf and "cap" in rep.note
    # a cap that never binds changes nothing
    assert ergm_alpha(4, edges=-1.0, triangles=0.2, max_degree=3).alpha == pytest.approx(
        ergm_alpha(4, edges=-1.0, triangles=0.2).alpha
    )


def test_ergm_argument_checks():
    with pytest.raises(ValueError, match="num_nodes"):
        ERGM(1)
    with pytest.raises(TypeError, match="edges"):
        ERGM(4, edges="x")
    with pytest.raises(ValueError, match="k-star"):
        ERGM(4, k_stars={1: 0.5})
    with pytest.raises(TypeError, match="not both"):
        ergm_alpha(ERGM(4), edges=1.0)


def test_queens_closed_forms_match_enumeration():
    n, a, b = 5, 0.7, 0.2
    dist = queens_distribution(n, a, b)
    counts, p0, p1 = queens_count_distributions(n, a, b)
    ne = dist.edges.sum(axis=1)
    x01 = dist.edges[:, 0]
    for c in counts:
        assert dist.probabilities[(ne == c) & ~x01].sum() * 2 == pytest.approx(p0[c])
        assert dist.probabilities[(ne == c) & x01].sum() * 2 == pytest.approx(p1[c])
    assert dist.lemma_alpha()[0] == pytest.approx(queens_alpha(n, a, b))
    assert queens_alpha(30, 0.5, 0.0) == math.inf
    with pytest.raises(ValueError, match="b < a"):
        queens_alpha(5, 0.2, 0.3)


def test_attack_accuracy_matches_direct_summation():
    n, a, b, scale = 6, 0.6, 0.3, 1.0
    counts, p0, p1 = queens_count_distributions(n, a, b)
    q = math.exp(-1 / scale)
    z = np.arange(-80, 81)
    pz = (1 - q) / (1 + q) * q ** np.abs(z)
    cut = (a + b) / 2 * (n * (n - 1) // 2)
    above = np.array([pz[(c + z) > cut].sum() for c in counts])
    direct = 0.5 * (p1 * above).sum() + 0.5 * (p0 * (1 - above)).sum()
    assert attack_accuracy(n, a, b, scale) == pytest.approx(direct, abs=1e-12)
    # without noise the test reads the count itself
    above = counts > cut
    assert attack_accuracy(n, a, b, 0) == pytest.approx(0.5 * p1[above].sum() + 0.5 * p0[~above].sum(), abs=1e-12)


def test_attack_accuracy_is_capped_under_pufferfish_not_under_edge_dp():
    """With a fair prior, ε-Pufferfish for the queens' edge caps any test's accuracy at
    e^ε/(1+e^ε): the W∞-calibrated release stays below it, the edge-DP release does not."""
    a, b, eps = 0.6, 0.3, 1.0
    cap = math.exp(eps) / (1 + math.exp(eps))
    for n in (5, 10, 20):
        counts, p0, p1 = queens_count_distributions(n, a, b)
        w = dpg.pufferfish.w_infinity(p0 / p0.sum(), p1 / p1.sum())
        assert attack_accuracy(n, a, b, w / eps) <= cap < attack_accuracy(n, a, b, 1 / eps)


@pytest.mark.parametrize(
    "args, error, says",
    [
        ((2, 0.6, 0.3, 1.0), ValueError, "n >= 3"),
        ((5, 0.3, 0.6, 1.0), ValueError, "b < a"),
        ((5, 1.5, 0.3, 1.0), ValueError, "a must be a probability"),
        ((5, 0.6, 0.3, -1.0), ValueError, "scale must be >= 0"),
        ((5, 0.6, 0.3, math.nan), ValueError, "scale must be >= 0"),
        ((5, 0.6, 0.3, "1"), TypeError, "scale must be a real number"),
        ((5, 0.6, 0.3, True), TypeError, "scale must be a real number"),
    ],
)
def test_attack_accuracy_refuses_bad_arguments(args, error, says):
    with pytest.raises(error, match=says):
        attack_accuracy(*args)


def _edge_count_meas(scale, metric=None):
    metric = metric or dpg.edge_distance()
    return (dpg.graph_domain(), metric) >> dpg.then_edge_count() >> dp.m.then_laplace(scale=scale)


def test_edge_secret_guarantee_adds_alpha_to_the_measured_epsilon():
    meas = _edge_count_meas(4.0)
    g = edge_secret_guarantee(meas, alpha=ergm_alpha(4, edges=-1.0, triangles=0.6).alpha)
    assert g.epsilon_edge_dp == meas.map(1) == 0.25
    assert g.epsilon_edge_secret == pytest.approx(0.25 + ergm_alpha(4, edges=-1.0, triangles=0.6).alpha)
    assert edge_secret_guarantee(meas).epsilon_edge_secret == 0.25  # independent edges


def test_edge_secret_guarantee_reads_other_metrics():
    grp = _edge_count_meas(2.0, dpg.group_distance(3))
    assert edge_secret_guarantee(grp).epsilon_edge_dp == grp.map(1)
    node = (dpg.graph_domain(max_degree=5), dpg.node_distance()) >> dpg.then_edge_count() >> dp.m.then_laplace(scale=5.0)
    assert edge_secret_guarantee(node).epsilon_edge_dp == node.map(1) == 1.0


def test_edge_secret_guarantee_approximate_dp():
    space = dpg.graph_domain(labeled=True), dpg.edge_distance()
    meas = space >> dpg.then_label_count_map(max_labels_per_edge=1) >> dp.m.then_laplace_threshold(scale=2.0, threshold=20)
    g = edge_secret_guarantee(meas, alpha=0.5)
    eps, delta = meas.map(1)
    assert (g.epsilon_edge_dp, g.delta) == (eps, delta) and delta > 0
    assert g.epsilon_edge_secret == pytest.approx(eps + 0.5)
    assert "δ" in g.summary()


def test_edge_secret_guarantee_rejects():
    meas = _edge_count_meas(1.0)
    with pytest.raises(ValueError, match="alpha"):
        edge_secret_guarantee(meas, alpha=-1)
    with pytest.raises(TypeError, match="Measurement"):
        edge_secret_guarantee(lambda g: 0)
    zc = (dpg.graph_domain(), dpg.edge_distance()) >> dpg.then_edge_count() >> dp.m.then_gaussian(scale=1.0)
    with pytest.raises(ValueError, match="convert"):
        edge_secret_guarantee(zc)
    # metrics under which a one-edge change is not a neighbouring change promise nothing about edges:
    # refused, also with an explicit d_in (which once reported ε = 0 for an exact edge count)
    lab = (dpg.graph_domain(labeled=True), dpg.edge_label_distance()) >> dpg.then_edge_count() >> dp.m.then_laplace(scale=1.0)
    for kwargs in ({}, {"d_in": 1}):
        with pytest.raises(ValueError, match="infinite distance"):
            edge_secret_guarantee(lab, **kwargs)
    vip = (dpg.graph_domain(), dpg.blowfish_distance(dpg.BlowfishPolicy.attribute(vip=[0]))) >> dpg.then_edge_count() \
        >> dp.m.then_laplace(scale=1.0)
    with pytest.raises(ValueError, match="infinite distance"):
        edge_secret_guarantee(vip, d_in=1)
    # a known metric's one-edge distance is not the caller's to choose (a smaller d_in under-reports ε)
    with pytest.raises(ValueError, match="do not pass it"):
        edge_secret_guarantee(meas, d_in=0.5)


def test_edge_secret_guarantee_under_blowfish_policies_protecting_everyone():
    for policy in (dpg.BlowfishPolicy.attribute(), dpg.BlowfishPolicy.distance_threshold(2)):
        meas = (dpg.graph_domain(), dpg.blowfish_distance(policy)) >> dpg.then_edge_count() >> dp.m.then_laplace(scale=2.0)
        assert edge_secret_guarantee(meas).epsilon_edge_dp == meas.map(1)  # one edge is one step


def test_alpha_reports_are_tied_to_their_number_of_nodes():
    report = ergm_alpha(4, edges=-1.0, triangles=0.6)
    assert report.num_nodes == 4
    loose = _edge_count_meas(1.0)  # no num_nodes: α of 4-node graphs says nothing of the graphs it will see
    with pytest.raises(ValueError, match="on 4 nodes"):
        edge_secret_guarantee(loose, alpha=report)
    other = (dpg.graph_domain(num_nodes=50), dpg.edge_distance()) >> dpg.then_edge_count() >> dp.m.then_laplace(scale=1.0)
    with pytest.raises(ValueError, match="num_nodes=50"):
        edge_secret_guarantee(other, alpha=report)
    sized = (dpg.graph_domain(num_nodes=4), dpg.edge_distance()) >> dpg.then_edge_count() >> dp.m.then_laplace(scale=1.0)
    assert edge_secret_guarantee(sized, alpha=report).epsilon_edge_secret == pytest.approx(1.0 + report.alpha)


def test_summary_names_the_domain_promises_it_relies_on():
    free = edge_secret_guarantee(_edge_count_meas(1.0)).summary()
    assert "whatever the network looks like" in free
    bounded = (dpg.graph_domain(max_degree=3), dpg.edge_distance()) >> dpg.then_edge_count() >> dp.m.then_laplace(scale=1.0)
    text = edge_secret_guarantee(bounded).summary()
    assert "every degree at most 3" in text and "whatever the network looks like" not in text


def test_summary_says_what_is_and_is_not_protected():
    meas = _edge_count_meas(2.0)
    indep = describe_guarantee(edge_secret_guarantee(meas))
    assert "independent" in indep and "e^0.5" in indep
    none = edge_secret_guarantee(meas, alpha=math.inf).summary()
    assert "Nothing" in none and "queens" in none
    dep = str(edge_secret_guarantee(meas, alpha=1.5, assumption="an ERGM with triangles"))
    assert "an ERGM with triangles" in dep and "e^2" in dep


@pytest.mark.thorough  # a simulation (3 s)
def test_gibbs_sampler_matches_the_exact_distribution():
    # Seeded numpy sampler: deterministic. Total-variation distance of the edge-count law over
    # 6 000 draws (thin 2) against enumeration; sampling error alone is ≈ 0.01.
    model = ERGM(5, edges=-0.5, two_stars=-0.1, triangles=0.4)
    dist = model.distribution()
    ne = dist.edges.sum(axis=1)
    rng = np.random.default_rng(123)
    for fixed, weights in (({}, dist.probabilities), ({(0, 1): True}, dist.conditional(0, 1, True))):
        draws = model.sample(rng, 6_000, fixed=fixed, burn_in=50, thin=2)
        emp = np.bincount([g.num_edges for g in draws], minlength=11) / len(draws)
        exact = np.bincount(ne, weights=weights, minlength=11)
        assert 0.5 * np.abs(emp - exact).sum() < 0.03
        if fixed:
            assert all(g.has_edge(0, 1) for g in draws)


def test_gibbs_sampler_respects_a_degree_cap_and_checks_arguments():
    model = ERGM(6, edges=1.5, max_degree=2)
    draws = model.sample(np.random.default_rng(0), 50, burn_in=5)
    assert max(g.max_degree for g in draws) <= 2
    with pytest.raises(TypeError, match="Generator"):
        model.sample(0, 5)
    with pytest.raises(ValueError, match="size"):
        model.sample(np.random.default_rng(0), 0)
    with pytest.raises(ValueError, match="cap"):
        ERGM(4, max_degree=1).sample(np.random.default_rng(0), 1, fixed={(0, 1): True, (0, 2): True})


def test_summary_of_a_huge_epsilon_does_not_overflow():
    meas = _edge_count_meas(1.0)
    text = edge_secret_guarantee(meas, alpha=800.0).summary()
    assert "inf" in text
