"""The corrected thresholded Gaussian (DP set union under zCDP): δ checked against the exact
discrete Gaussian tail and against the release frequency of OpenDP's own mechanism."""

import math

import opendp.prelude as dp
import pytest
from scipy.stats import norm

import opendp_graph as dpg
from opendp_graph import Graph

MAP_DOMAIN = dp.map_domain(dp.atom_domain(T=dp.String), dp.atom_domain(T=dp.i64))
MAP_METRIC = dp.l02inf_distance(dp.absolute_distance(T=dp.f64))
L02INF = dp.l02inf_distance(dp.absolute_distance(T=dp.f64))


def discrete_gaussian_tail(m: int, sigma: float) -> float:
    """Pr[Z ≥ m] for OpenDP's discrete Gaussian, Pr[Z = z] ∝ exp(−z²/2σ²), summed directly."""
    width = int(40 * sigma) + 40
    weights = {k: math.exp(-k * k / (2 * sigma * sigma)) for k in range(-width, width + 1)}
    return sum(w for k, w in weights.items() if k >= m) / sum(weights.values())


@pytest.mark.parametrize("scale, threshold", [(1.0, 3), (0.5, 3), (2.0, 6), (2.0, 9), (5.0, 20), (30.0, 200)])
@pytest.mark.parametrize("l0, linf", [(1, 1), (1, 2), (3, 2)])
def test_delta_bounds_the_discrete_tail_and_is_opendps_map_one_lower(scale, threshold, l0, linf):
    meas = dpg.make_corrected_gaussian_threshold(MAP_DOMAIN, MAP_METRIC, scale=scale, threshold=threshold)
    d_in = (l0, math.sqrt(l0) * linf, float(linf))
    rho, delta = meas.map(d_in)
    # what keys present on one side only really cost: some of the ℓ0 is released, each with
    # probability Pr[Z ≥ threshold − ℓ∞]
    truth = 1 - (1 - discrete_gaussian_tail(threshold - linf, scale)) ** l0
    assert delta >= truth * (1 - 1e-9)
    # and it is OpenDP's own formula (1 − (1 − Pr[N ≥ ·])^ℓ0) one unit of threshold lower
    assert delta == pytest.approx(1 - (1 - norm.sf((threshold - 1 - linf) / scale)) ** l0, rel=1e-5)
    naive = dp.m.make_gaussian_threshold(MAP_DOMAIN, MAP_METRIC, scale=scale, threshold=threshold)
    naive_rho, naive_delta = naive.map(d_in)
    assert rho == naive_rho == pytest.approx(l0 * linf**2 / (2 * scale**2))
    assert naive_delta < truth  # OpenDP 0.16 under-reports: the reason for the wrapper
    assert meas.check(d_in, (rho, delta))
    assert not meas.check(d_in, (rho, delta * (1 - 1e-6)))
    assert not meas.check(d_in, (rho * (1 - 1e-6), delta))


def test_threshold_at_most_linf_is_refused():
    meas = dpg.make_corrected_gaussian_threshold(MAP_DOMAIN, MAP_METRIC, scale=1.0, threshold=2)
    with pytest.raises(dp.OpenDPException, match="must exceed the ℓ∞ distance"):
        meas.map((1, 2.0, 2.0))


def test_release_frequency_exceeds_opendps_delta_and_stays_within_ours():
    """20 releases of 1,000 keys of count 1 at scale 1, threshold 3: each key is released with
    probability Pr[Z ≥ 2] = 0.0586 (discrete Gaussian); OpenDP reports 0.0228, ours 0.159. The
    6-sigma band (±0.010) excludes OpenDP's figure; ours is an upper bound."""
    meas = dpg.make_corrected_gaussian_threshold(MAP_DOMAIN, MAP_METRIC, scale=1.0, threshold=3)
    _, delta = meas.map((1, 1.0, 1.0))
    data = {f"k{i}": 1 for i in range(1_000)}
    n = 20_000
    frequency = sum(len(meas(data)) for _ in range(20)) / n
    p = discrete_gaussian_tail(2, 1.0)
    sigma = math.sqrt(p * (1 - p) / n)
    assert abs(frequency - p) < 6 * sigma
    assert frequency <= delta
    _, reported_by_opendp = dp.m.make_gaussian_threshold(MAP_DOMAIN, MAP_METRIC, scale=1.0, threshold=3).map((1, 1.0, 1.0))
    assert frequency - reported_by_opendp > 6 * sigma


def test_chains_after_label_count_map_and_converts_to_approx_dp():
    g = Graph.from_edges(list(range(30)), list(range(1, 31)), labels=[["common", "rare"]] * 30)
    space = dpg.graph_domain(labeled=True), dpg.edge_distance()
    union = space >> dpg.then_label_count_map(2, output_metric=L02INF) >> dpg.then_corrected_gaussian_threshold(scale=2.0, threshold=12)
    assert set(union(g)) <= {"common", "rare"}
    rho, delta = union.map(1)
    assert rho == pytest.approx(2 / (2 * 2.0**2))  # ℓ2 = √2: one edge moves two counts by one
    assert delta == pytest.approx(1 - (1 - norm.sf((12 - 1 - 1) / 2.0)) ** 2, rel=1e-5)
    eps_delta = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(union), 1e-3)
    eps, total = eps_delta.map(1)
    assert total == pytest.approx(1e-3) and 0 < eps < math.inf
    acc = dpg.accuracy(union)
    assert (acc.noise, acc.scale, acc.threshold) == ("discrete_gaussian", 2.0, 12)
    assert acc.release_probability(12) == pytest.approx(discrete_gaussian_tail(0, 2.0))
    x = acc.count_for_release_probability(0.95)
    assert acc.release_probability(x) >= 0.95 > acc.release_probability(x - 1)


def test_rejects_float_values_and_bad_threshold():
    float_domain = dp.map_domain(dp.atom_domain(T=dp.String), dp.atom_domain(T=dp.f64, nan=False))
    with pytest.raises(TypeError, match="integer counts"):
        dpg.make_corrected_gaussian_threshold(float_domain, MAP_METRIC, 1.0, 3)
    with pytest.raises(TypeError, match="threshold"):
        dpg.make_corrected_gaussian_threshold(MAP_DOMAIN, MAP_METRIC, 1.0, 3.5)


class TestCalibrateGaussianThreshold:
    @pytest.mark.parametrize("c", [1, 50])
    @pytest.mark.parametrize("rho, delta", [(0.0215, 1e-6), (0.5, 1e-9), (5.0, 0.01)])
    def test_boundary(self, c, rho, delta):
        count_map = (dpg.graph_domain(labeled=True), dpg.edge_distance()) >> dpg.then_label_count_map(c, output_metric=L02INF)
        scale, threshold = dpg.calibrate_gaussian_threshold(count_map, 1, rho, delta)
        spent = (count_map >> dpg.then_corrected_gaussian_threshold(scale=scale, threshold=threshold)).map(1)
        assert spent[0] <= rho and spent[1] <= delta
        below = count_map >> dpg.then_corrected_gaussian_threshold(scale=scale * (1 - 1e-9), threshold=threshold)
        assert below.map(1)[0] > rho
        if threshold - 1 > count_map.map(1)[2]:
            assert (count_map >> dpg.then_corrected_gaussian_threshold(scale=scale, threshold=threshold - 1)).map(1)[1] > delta

    def test_bad_arguments(self):
        count_map = (dpg.graph_domain(labeled=True), dpg.edge_distance()) >> dpg.then_label_count_map(1, output_metric=L02INF)
        for rho, delta, error in [(0.0, 1e-6, ValueError), (float("inf"), 1e-6, ValueError), (1.0, 0.0, ValueError),
                                  (1.0, 1.0, ValueError), (True, 1e-6, TypeError), ("1", 1e-6, TypeError)]:
            with pytest.raises(error):
                dpg.calibrate_gaussian_threshold(count_map, 1, rho, delta)
        with pytest.raises(TypeError, match="Transformation"):
            dpg.calibrate_gaussian_threshold("not a transformation", 1, 1.0, 1e-6)


def test_bad_scale_and_wrong_count_map_are_named():
    for scale, error in [(-1.0, ValueError), (float("nan"), ValueError), (float("inf"), ValueError), ("1", TypeError)]:
        with pytest.raises(error, match="scale"):
            dpg.make_corrected_gaussian_threshold(MAP_DOMAIN, MAP_METRIC, scale, 3)
    l1_map = (dpg.graph_domain(labeled=True), dpg.edge_distance()) >> dpg.then_label_count_map(1)
    with pytest.raises(TypeError, match="L02InfDistance"):
        dpg.calibrate_gaussian_threshold(l1_map, 1, 0.5, 1e-6)
    l2_map = (dpg.graph_domain(labeled=True), dpg.edge_distance()) >> dpg.then_label_count_map(1, output_metric=L02INF)
    with pytest.raises(ValueError, match="does not change"):
        dpg.calibrate_gaussian_threshold(l2_map, 0, 0.5, 1e-6)
