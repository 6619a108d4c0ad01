"""The node-level degree distribution: θ chosen under DP, the release, the post-processing."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import opendp.prelude as dp
import pytest

import opendp_graph as dpg
from opendp_graph.verify.testing import all_graphs, node_rewirings
from tests.transformations.test_node_insertion import insertion_pairs, worst


@pytest.fixture(autouse=True)
def _features():
    dp.enable_features("contrib", "honest-but-curious")


def linf(a, b) -> int:
    return int(np.max(np.abs(np.asarray(a) - np.asarray(b)), initial=0))


# ----------------------------------------------------------------------------- tail counts (the selection's input)
@pytest.mark.parametrize("theta", [1, 2, pytest.param(3, marks=pytest.mark.thorough)])  # θ = 3: thorough (2 s)
def test_tail_counts_after_projection_under_insertion_are_theta_plus_one(theta):
    chain = dpg.make_degree_projection(dpg.graph_domain(), dpg.node_insertion_distance(), theta) >> dpg.then_degree_tail_counts(
        [0, 1, 2, 3]
    )
    assert chain.map(1) == theta + 1
    assert worst(chain, list(insertion_pairs(5)), linf) == theta + 1


@pytest.mark.parametrize("theta", [1, 2])
def test_tail_counts_after_projection_under_rewiring_are_two_theta(theta):
    chain = dpg.make_degree_projection(dpg.graph_domain(), dpg.node_distance(), theta) >> dpg.then_degree_tail_counts([0, 1, 2])
    assert chain.map(1) == 2 * theta
    pairs = [(g, h) for g in all_graphs(4) for v in range(4) for h in node_rewirings(g, v)]
    assert worst(chain, pairs, linf) <= 2 * theta


def test_tail_counts_under_edge_distance():
    t = dpg.make_degree_tail_counts(dpg.graph_domain(), dpg.edge_distance(), [0, 1, 2])
    assert t.map(1) == 2
    g = dpg.Graph.from_edges([0], [1], num_nodes=3)
    assert t(g) == [2, 0, 0]
    assert linf(t(g), t(dpg.Graph.from_edges([], [], num_nodes=3))) == 2
    with pytest.raises(ValueError, match="no stability rule"):
        dpg.make_degree_tail_counts(dpg.graph_domain(max_degree=3), dpg.node_insertion_distance(), [1])


# ----------------------------------------------------------------------------- post-processing
def test_histogram_from_cumulative_is_exact_on_a_true_cumulative_and_consistent_on_noise():
    true = np.array([3, 5, 5, 9, 10])
    assert dpg.histogram_from_cumulative(true).tolist() == [3, 2, 0, 4, 1]
    assert dpg.histogram_from_cumulative(true, num_nodes=10).tolist() == [3, 2, 0, 4, 1]
    noisy = [4.2, 2.0, 7.5, 6.0, 30.0, -3.0]
    h = dpg.histogram_from_cumulative(noisy)
    assert (h >= 0).all()
    h = dpg.histogram_from_cumulative(noisy, num_nodes=12)
    assert (h >= 0).all() and math.isclose(h.sum(), 12)
    with pytest.raises(ValueError, match="finite"):
        dpg.histogram_from_cumulative([1.0, float("nan")])
    with pytest.raises(ValueError, match="num_nodes"):
        dpg.histogram_from_cumulative([1.0], num_nodes=-1)
    post = dpg.make_histogram_from_cumulative(num_nodes=10)
    assert post(list(true)) == [3.0, 2.0, 0.0, 4.0, 1.0]


def _pareto_graph(n: int, seed: int) -> dpg.Graph:
    rng = np.random.default_rng(seed)  # a fixed public test graph, not noise
    seq = np.minimum(np.round(rng.pareto(1.8, n) * 3 + 1).astype(int), n // 10)
    seq[0] += seq.sum() % 2
    g = nx.Graph(nx.configuration_model(seq.tolist(), seed=seed))
    g.remove_edges_from(nx.selfloop_edges(g))
    return dpg.Graph.from_networkx(g)


def _error(h, true):
    padded = np.zeros(max(len(h), len(true)))
    padded[: len(h)] += h
    padded[: len(true)] -= true
    return np.abs(padded).sum() / true.sum()


def test_fit_is_exact_without_noise_and_keeps_the_total():
    true = np.array([0, 40, 80, 60, 40, 25, 15, 9, 5, 3, 2], dtype=float)
    fitted = dpg.fit_degree_histogram(np.cumsum(true), noise_scale=1e-6, extend_tail=False)
    assert np.allclose(fitted, true, atol=1e-3)
    noisy = np.cumsum(true) + np.array([5, -7, 3, 9, -2, 4, -6, 1, 8, -3, 2])
    fitted = dpg.fit_degree_histogram(noisy, noise_scale=5.0, num_nodes=279)
    assert (fitted >= 0).all() and math.isclose(fitted.sum(), 279)
    assert math.isclose(dpg.fit_degree_histogram(noisy, noise_scale=5.0, num_nodes=279, extend_tail=False).sum(), 279)
    with pytest.raises(ValueError, match="noise_scale"):
        dpg.fit_degree_histogram(noisy, noise_scale=0)
    with pytest.raises(ValueError, match="finite"):
        dpg.fit_degree_histogram([1.0, float("inf")], noise_scale=1.0)


def test_fit_above_its_size_limit_keeps_the_isotonic_estimate(monkeypatch):
    import opendp_graph.measurements.degree_distribution as nd

    true = np.r_[0.0, 3000.0 / np.arange(1, 61) ** 1.5]
    noisy = np.cumsum(true) + 20 * np.sin(np.arange(61))  # a fixed perturbation
    monkeypatch.setattr(nd, "_FIT_UP_TO", 10)
    kept = dpg.fit_degree_histogram(noisy, noise_scale=20.0, extend_tail=False)
    assert np.allclose(kept, dpg.histogram_from_cumulative(noisy))


def test_fit_beats_isotonic_on_the_same_opendp_release():
    """Post-processing only: both read the same noisy release (OpenDP's Laplace)."""
    g = _pareto_graph(6000, seed=3)
    true = np.bincount(g.degrees).astype(float)
    theta = 16
    chain = dpg.make_degree_projection(dpg.graph_domain(), dpg.node_insertion_distance(), theta) >> dpg.then_cumulative_degree_histogram(max_degree=theta)
    scale = (theta + 1) / 1.0
    meas = chain >> dp.m.then_laplace(scale=scale)
    fit, iso = [], []
    for _ in range(15):
        noisy = np.asarray(meas(g), dtype=float)
        fit.append(_error(dpg.fit_degree_histogram(noisy, scale), true))
        iso.append(_error(dpg.histogram_from_cumulative(noisy), true))
    assert np.median(fit) < 0.9 * np.median(iso)


def test_planned_noise_is_the_public_formula():
    space = dpg.graph_domain(), dpg.node_insertion_distance()
    raw = dpg.degree_distribution_noise(*space, 1.0, 40, num_nodes=47_538, postprocess="isotonic")
    assert math.isclose(raw, 41 * 41 / 47_538, rel_tol=1e-6)
    rewiring = dpg.degree_distribution_noise(dpg.graph_domain(), dpg.node_distance(), 0.5, 10, num_nodes=1000,
                                             postprocess="isotonic")
    assert math.isclose(rewiring, 2 * 10 * 11 / (0.5 * 1000), rel_tol=1e-6)
    # the fit's noise (the default): min((θ + 1)·scale, √(n·scale)) / n
    fitted = dpg.degree_distribution_noise(*space, 1.0, 40, num_nodes=47_538)
    assert math.isclose(fitted, math.sqrt(47_538 * 41) / 47_538, rel_tol=1e-6)
    # issue 39: on 5,900 people θ = 64 was planned at 1.41·n (raw) where the release's whole error
    # was 0.149·n; the fitted figure is close to what the release kept
    rewired = dpg.graph_domain(), dpg.node_distance()
    assert round(dpg.degree_distribution_noise(*rewired, 1.0, 64, num_nodes=5_900, postprocess="isotonic"), 2) == 1.41
    assert round(dpg.degree_distribution_noise(*rewired, 1.0, 64, num_nodes=5_900), 3) == 0.147
    with pytest.raises(ValueError, match="postprocess"):
        dpg.degree_distribution_noise(*space, 1.0, 64, num_nodes=5_900, postprocess="raw")
    with pytest.raises(ValueError, match="theta"):
        dpg.degree_distribution_noise(dpg.graph_domain(), dpg.node_distance(), 1.0, 0, num_nodes=10)
    with pytest.raises(ValueError, match="num_nodes"):
        dpg.degree_distribution_noise(dpg.graph_domain(), dpg.node_distance(), 1.0, 4, num_nodes=0)


# ----------------------------------------------------------------------------- the measurement
def test_release_spends_epsilon_once_and_answers():
    g = dpg.Graph.from_networkx(nx.barabasi_albert_graph(400, 3, seed=2))
    for metric in (dpg.node_insertion_distance(), dpg.node_distance()):
        meas = dpg.make_private_degree_distribution(dpg.graph_domain(), metric, dp.loss_of(epsilon=1.0), [4, 8, 16])
        assert meas.map(1) <= 1.0 and meas.map(1) > 0.999
        release = meas(g)
        assert release.theta in (4, 8, 16)
        assert release.histogram.size >= release.theta and (release.histogram >= 0).all()
        # the fitted tail moves mass above θ but keeps it
        assert math.isclose(release.histogram.sum(), dpg.fit_degree_histogram(release.noisy_cumulative, release.noise_scale, extend_tail=False).sum())
        assert release.expected_noise_l1 == (release.theta + 1) * release.noise_scale
    single = dpg.make_private_degree_distribution(dpg.graph_domain(), dpg.node_insertion_distance(), dp.loss_of(epsilon=0.5), [8])
    assert single.map(1) <= 0.5 and single(g).theta == 8
    assert math.isclose(single(g).noise_scale, 9 / 0.5, rel_tol=1e-6)  # θ + 1 over ε


def test_candidates_above_the_domain_degree_bound_become_the_bound():
    g = dpg.Graph.from_networkx(nx.barabasi_albert_graph(200, 2, seed=1))
    bound = int(g.max_degree)
    domain = dpg.graph_domain(max_degree=bound)
    meas = dpg.make_private_degree_distribution(domain, dpg.node_insertion_distance(), dp.loss_of(epsilon=1.0), [4, bound + 10, bound + 40])
    assert meas(g).theta in (4, bound)
    single = dpg.make_private_degree_distribution(domain, dpg.node_insertion_distance(), dp.loss_of(epsilon=1.0), [bound + 10])
    assert math.isclose(single(g).noise_scale, bound + 1, rel_tol=1e-6)  # θ + 1 at θ = the bound, not more


def test_release_with_a_public_node_count_sums_to_it():
    g = dpg.Graph.from_networkx(nx.barabasi_albert_graph(300, 2, seed=4))
    meas = dpg.make_private_degree_distribution(
        dpg.graph_domain(num_nodes=300), dpg.node_distance(), dp.loss_of(epsilon=1.0), [4, 8], num_nodes=300
    )
    assert math.isclose(meas(g).histogram.sum(), 300)


def test_release_refuses_bad_arguments_when_built():
    space = dpg.graph_domain(), dpg.node_insertion_distance()
    make = dpg.make_private_degree_distribution
    with pytest.raises(ValueError, match="num_nodes may only be given"):
        make(*space, dp.loss_of(epsilon=1.0), [4], num_nodes=10)
    with pytest.raises(ValueError, match="positive integer"):
        make(*space, dp.loss_of(epsilon=1.0), [0, 4])
    with pytest.raises(ValueError, match="empty"):
        make(*space, dp.loss_of(epsilon=1.0), [])
    with pytest.raises(ValueError, match="epsilon"):
        make(*space, dp.loss_of(epsilon=0.0), [4])
    with pytest.raises(ValueError, match="selection_share"):
        make(*space, dp.loss_of(epsilon=1.0), [4, 8], selection_share=1.0)
    with pytest.raises(ValueError, match="scoring_bound"):
        make(*space, dp.loss_of(epsilon=1.0), [4, 8], scoring_bound=6)
    with pytest.raises(ValueError, match="postprocess"):
        make(*space, dp.loss_of(epsilon=1.0), [4, 8], postprocess="day")
    with pytest.raises(ValueError, match="needs no noise"):
        make(dpg.graph_domain(labeled=True), dpg.edge_label_distance(), dp.loss_of(epsilon=1.0), [4])
    with pytest.raises(ValueError, match="one-dimensional"):
        dpg.fit_degree_histogram([[1.0, 2.0]], noise_scale=1.0)
    with pytest.raises(ValueError, match="d_in"):
        dpg.degree_distribution_noise(*space, 1.0, 4, num_nodes=10, d_in=0)
    with pytest.raises(TypeError, match="input_domain"):
        make(dp.vector_domain(dp.atom_domain(T=float)), dpg.node_insertion_distance(), dp.loss_of(epsilon=1.0), [4])


def test_release_stays_within_epsilon_after_rounding():
    """The two parts' budgets are found by binary search; their floating-point sum must not pass ε
    (a red team found 0.30000000000000004 for ε = 0.3)."""
    space = dpg.graph_domain(), dpg.node_insertion_distance()
    for eps in (0.3, 0.7, 2.9):
        for share in (0.1, 0.9):
            for cands in ([2, 3], [4, 8, 16]):
                assert dpg.make_private_degree_distribution(*space, dp.loss_of(epsilon=eps), cands, selection_share=share).map(1) <= eps


def test_release_checks_the_domain_before_reading_the_graph():
    meas = dpg.make_private_degree_distribution(dpg.graph_domain(max_degree=2), dpg.node_insertion_distance(), dp.loss_of(epsilon=1.0), [2, 4])
    with pytest.raises(Exception, match="max_degree"):
        meas(dpg.Graph.from_edges([0, 0, 0], [1, 2, 3]))


def test_node_level_benchmark_measures_the_issue_error():
    from benchmarks.node_level import error, evaluate

    true = np.array([2.0, 3.0, 1.0, 0.0])
    assert error([], true) == 1.5 and error([2, 3, 1], true) == 0.0  # nothing released: Σ true / n
    g = dpg.Graph.from_networkx(nx.barabasi_albert_graph(200, 2, seed=1))
    rows = evaluate(g, [4, 8], runs=2)
    assert [r["notion"] for r in rows] == ["add/remove a node", "rewire a node"]
    assert all(0 <= r["q1"] <= r["median"] <= r["q3"] for r in rows)


class TestZCDPDegreeDistribution:
    """make_private_degree_distribution(rho=...): OpenDP's Gaussian on the ℓ2 cumulative histogram
    and noisy max under zCDP, composed in ρ."""

    def test_map_scales_and_accuracy(self):
        import networkx as nx

        space = dpg.graph_domain(), dpg.node_insertion_distance()
        meas = dpg.make_private_degree_distribution(*space, dp.loss_of(rho=0.5), [8, 16])
        assert meas.output_measure == dp.zero_concentrated_divergence() and meas.map(1) <= 0.5
        acc = dpg.accuracy(meas)
        assert {a.noise for _, a in acc.choices} == {"discrete_gaussian"}
        for theta, a in acc.choices:  # each candidate's σ is OpenDP's calibration of its ℓ2 chain at 0.9·ρ
            chain = dpg.make_degree_projection(*space, int(theta)) >> dpg.then_cumulative_degree_histogram(
                max_degree=int(theta), output_metric=dp.l2_distance(T=dp.f64))
            assert (chain >> dp.m.then_gaussian(scale=a.scale)).map(1) <= 0.45 * (1 + 1e-9)
            assert (chain >> dp.m.then_gaussian(scale=a.scale * (1 - 1e-6))).map(1) > 0.45
        g = dpg.Graph.from_networkx(nx.barabasi_albert_graph(500, 3, seed=3))
        release = meas(g)
        assert release.noise == "discrete_gaussian" and release.theta in (8, 16)
        assert release.expected_noise_l1 == pytest.approx((release.theta + 1) * release.noise_scale * (2 / np.pi) ** 0.5)
        curve = dp.c.make_zCDP_to_approxDP(meas).map(1)
        assert 0 < curve.epsilon(1e-6) < 10

    def test_the_budget_is_openDPs_privacy_loss(self):
        """One way to pass a budget (issue 42): dp.loss_of(epsilon=...) or dp.loss_of(rho=...)."""
        space = dpg.graph_domain(), dpg.node_insertion_distance()
        with pytest.raises(TypeError, match=r"privacy_loss=dp.loss_of\(epsilon=...\) or dp.loss_of\(rho=...\)"):
            dpg.make_private_degree_distribution(*space, 1.0, [8])
        with pytest.raises(ValueError, match="got a budget in epsilon, delta"):
            dpg.make_private_degree_distribution(*space, dp.loss_of(epsilon=1.0, delta=1e-6), [8])
        with pytest.raises(ValueError, match="rho must be a positive finite number"):
            dpg.make_private_degree_distribution(*space, dp.loss_of(rho=-1.0), [8])
        assert dpg.make_private_degree_distribution(*space, dp.loss_of(rho=0.5), [8]).output_measure == dp.zero_concentrated_divergence()


def test_the_bias_statement_is_silent_when_the_domain_bounds_degrees_below_every_candidate():
    """Red team, second round: on graph_domain(max_degree=5) the candidates 8 and 16 are clamped to
    5 and the projection keeps every edge, yet the release said "the nodes capped at θ"."""
    harmless = dpg.make_private_degree_distribution(dpg.graph_domain(max_degree=5), dpg.node_distance(), dp.loss_of(epsilon=1.0), [8, 16])
    assert "drops nothing" in dpg.accuracy(harmless).bias and "capped at θ" not in dpg.accuracy(harmless).bias
    binding = dpg.make_private_degree_distribution(dpg.graph_domain(max_degree=10), dpg.node_distance(), dp.loss_of(epsilon=1.0), [8, 16])
    assert "capped at θ" in dpg.accuracy(binding).bias
