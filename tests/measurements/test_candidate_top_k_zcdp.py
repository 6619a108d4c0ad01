"""make_candidate_top_k(noise="gaussian"): the zCDP twin states OpenDP's (ρ, δ) of its two stages,
releases the clear leaders, and converts to (ε, δ) with OpenDP."""

import opendp.prelude as dp
import pytest

import opendp_graph as dpg

SPACE = dpg.graph_domain(labeled=True), dpg.edge_distance()
L02INF = dp.l02inf_distance(dp.absolute_distance(T=dp.f64))


def _top(**kwargs):
    args = dict(max_labels_per_edge=2, k=2, candidate_scale=2.0, candidate_threshold=20, top_k_scale=4.0)
    args.update(kwargs)
    return dpg.make_candidate_top_k(*SPACE, 1, noise="gaussian", **args)


def test_map_is_the_sum_of_the_stages_maps():
    top = _top()
    stage_1 = SPACE >> dpg.then_label_count_map(2, output_metric=L02INF) >> dpg.then_corrected_gaussian_threshold(scale=2.0, threshold=20)
    stage_2 = SPACE >> dpg.then_label_counts(2, ["_0", "_1"], output_metric=dp.linf_distance(T=dp.i64, monotonic=True)) \
        >> dp.m.then_noisy_top_k(dp.zero_concentrated_divergence(), k=2, scale=4.0)
    rho_1, delta_1 = stage_1.map(1)
    rho, delta = top.map(1)
    assert rho == pytest.approx(rho_1 + stage_2.map(1)) and delta == delta_1
    assert top.output_measure == dp.approximate(dp.zero_concentrated_divergence())
    curve, _ = dp.c.make_zCDP_to_approxDP(top).map(1)
    assert curve.epsilon(1e-3) > 0


def test_releases_the_clear_leaders():
    g = dpg.Graph.from_edges(range(400), range(1, 401), labels=[["gas", "power"]] * 300 + [["lunch"]] * 100)
    top = _top()
    for _ in range(5):
        released = top(g)
        assert sorted(released) == ["gas", "power"]


def test_bad_noise_is_refused():
    with pytest.raises(ValueError, match="noise must be"):
        dpg.make_candidate_top_k(*SPACE, 1, 2, 2, 2.0, 20, 4.0, noise="cauchy")
