"""The corrected thresholded Laplace: δ checked exactly against the discrete Laplace tail and
empirically against the release frequency of OpenDP's own mechanism."""

import math

import opendp.prelude as dp
import pytest

import opendp_graph as dpg
from opendp_graph import Graph

MAP_DOMAIN = dp.map_domain(dp.atom_domain(T=dp.String), dp.atom_domain(T=dp.i64))
MAP_METRIC = dp.l01inf_distance(dp.absolute_distance(T=dp.i64))


def discrete_laplace_tail(t: int, scale: float) -> float:
    """Pr[Z ≥ t] for OpenDP's discrete Laplace, Pr[Z = z] ∝ exp(−|z| / scale), t ≥ 1."""
    r = math.exp(-1 / scale)
    return (1 - r) / (1 + r) * r**t / (1 - r)


@pytest.mark.parametrize("scale, threshold", [(1.0, 3), (1.0, 6), (2.0, 9), (0.5, 4)])
@pytest.mark.parametrize("linf", [1, 2, 3])
def test_delta_is_the_tail_at_threshold_minus_linf(scale, threshold, linf):
    meas = dpg.make_corrected_laplace_threshold(MAP_DOMAIN, MAP_METRIC, scale=scale, threshold=threshold)
    if threshold <= linf:  # δ would be Pr[Z ≥ 0] > 1/2: refused (OpenDP itself reports 0.27 at T = ℓ∞ = 3)
        with pytest.raises(dp.OpenDPException, match="must exceed the ℓ∞ distance"):
            meas.map((1, linf, linf))
        return
    eps, delta = meas.map((1, linf, linf))
    assert delta == pytest.approx(discrete_laplace_tail(threshold - linf, scale), rel=1e-6)
    naive = dp.m.make_laplace_threshold(MAP_DOMAIN, MAP_METRIC, scale=scale, threshold=threshold)
    n_eps, n_delta = naive.map((1, linf, linf))
    assert eps == n_eps and delta == pytest.approx(n_delta * math.exp(1 / scale), rel=1e-6)
    assert meas.check((1, linf, linf), (eps, delta))
    assert not meas.check((1, linf, linf), (eps, delta * (1 - 1e-6)))


@pytest.mark.parametrize(
    "keys, calls",
    [
        (1_000, 20),  # 1,000 keys of count 1 per release, each with its own noise (0.3 s)
        pytest.param(1, 20_000, marks=pytest.mark.slow),  # one key per release, as a user would (10-30 s)
    ],
)
def test_release_frequency_matches_the_corrected_delta(keys, calls):
    """A key of count 1 (absent on the neighbour) is released with probability Pr[Z ≥ T − 1]:
    20,000 key releases at scale 1, T = 3, where the corrected δ is 0.0989 and OpenDP reports 0.0364.
    The 6-sigma band (±0.013) cannot contain OpenDP's figure, and misses ours with probability
    < 1e-8. The default run draws them as 20 releases of 1,000 keys (OpenDP's map noise is
    independent per key, so the count of released keys is the same Binomial(20,000, δ)); the slow
    run as 20,000 releases of one key."""
    meas = dpg.make_corrected_laplace_threshold(MAP_DOMAIN, MAP_METRIC, scale=1.0, threshold=3)
    _, delta = meas.map((1, 1, 1))
    data = {f"k{i}": 1 for i in range(keys)}
    n = keys * calls
    assert n == 20_000
    frequency = sum(len(meas(data)) for _ in range(calls)) / n
    sigma = math.sqrt(delta * (1 - delta) / n)
    assert abs(frequency - delta) < 6 * sigma
    _, reported_by_opendp = dp.m.make_laplace_threshold(MAP_DOMAIN, MAP_METRIC, scale=1.0, threshold=3).map((1, 1, 1))
    assert frequency - reported_by_opendp > 6 * sigma


def test_chains_after_label_count_map():
    g = Graph.from_edges(list(range(30)), list(range(1, 31)), labels=[["common"]] * 30)
    space = dpg.graph_domain(labeled=True), dpg.edge_distance()
    union = space >> dpg.then_label_count_map(1) >> dpg.then_corrected_laplace_threshold(scale=1.0, threshold=8)
    assert union(g) .keys() <= {"common"}
    eps, delta = union.map(1)
    assert eps == pytest.approx(1.0) and delta == pytest.approx(discrete_laplace_tail(7, 1.0), rel=1e-6)
    composed = dp.c.make_composition([union, union])
    assert composed.map(1)[1] == pytest.approx(2 * delta, rel=1e-6)


def test_rejects_float_values_and_bad_threshold():
    float_domain = dp.map_domain(dp.atom_domain(T=dp.String), dp.atom_domain(T=dp.f64, nan=False))
    with pytest.raises(TypeError, match="integer counts"):
        dpg.make_corrected_laplace_threshold(float_domain, dp.l01inf_distance(dp.absolute_distance(T=dp.f64)), 1.0, 3)
    with pytest.raises(TypeError, match="threshold"):
        dpg.make_corrected_laplace_threshold(MAP_DOMAIN, MAP_METRIC, 1.0, 3.5)
    with pytest.raises(TypeError, match="map domain"):
        dpg.make_corrected_laplace_threshold(dp.vector_domain(dp.atom_domain(T=dp.i64)), dp.l1_distance(T=dp.i64), 1.0, 3)


class TestCalibrateLaplaceThreshold:
    """``calibrate_laplace_threshold``: the smallest scale for ε, then the smallest threshold for δ."""

    @pytest.mark.parametrize("metric_factory, c", [(dpg.edge_distance, 1), (dpg.edge_distance, 3), (lambda: dpg.group_distance(4), 2)])
    @pytest.mark.parametrize("epsilon, delta", [(1.0, 1e-6), (0.3, 1e-9), (5.0, 0.01), (100.0, 1e-6)])
    def test_boundary(self, metric_factory, c, epsilon, delta):
        count_map = (dpg.graph_domain(labeled=True), metric_factory()) >> dpg.then_label_count_map(c)
        scale, threshold = dpg.calibrate_laplace_threshold(count_map, 2, epsilon, delta)
        eps, dlt = (count_map >> dpg.then_corrected_laplace_threshold(scale=scale, threshold=threshold)).map(2)
        assert eps <= epsilon and dlt <= delta
        # one step less of either parameter breaks the target: the search found the boundary
        below = count_map >> dpg.then_corrected_laplace_threshold(scale=scale * (1 - 1e-9), threshold=threshold)
        assert below.map(2)[0] > epsilon
        if threshold - 1 > count_map.map(2)[2]:
            assert (count_map >> dpg.then_corrected_laplace_threshold(scale=scale, threshold=threshold - 1)).map(2)[1] > delta

    def test_bad_arguments(self):
        count_map = (dpg.graph_domain(labeled=True), dpg.edge_distance()) >> dpg.then_label_count_map(1)
        for eps, delta, error in [(0.0, 1e-6, ValueError), (float("inf"), 1e-6, ValueError), (1.0, 0.0, ValueError),
                                  (1.0, 1.0, ValueError), (True, 1e-6, TypeError), ("1", 1e-6, TypeError)]:
            with pytest.raises(error):
                dpg.calibrate_laplace_threshold(count_map, 1, eps, delta)
        with pytest.raises(TypeError, match="Transformation"):
            dpg.calibrate_laplace_threshold("not a transformation", 1, 1.0, 1e-6)
        with pytest.raises(TypeError, match="map domain"):
            dpg.calibrate_laplace_threshold((dpg.graph_domain(), dpg.edge_distance()) >> dpg.then_degree_histogram(max_degree=3), 1, 1.0, 1e-6)


def test_calibration_below_opendps_delta_floor_says_so():
    import numpy as np
    from fractions import Fraction

    count_map = (dpg.graph_domain(labeled=True), dpg.edge_distance()) >> dpg.then_label_count_map(1)
    with pytest.raises(ValueError, match="cannot certify a delta this small"):
        dpg.calibrate_laplace_threshold(count_map, 1, 1.0, 1e-17)
    # numpy numbers and fractions are numbers
    assert dpg.calibrate_laplace_threshold(count_map, 1, np.float64(1.0), np.float32(1e-3)) == \
        dpg.calibrate_laplace_threshold(count_map, 1, 1.0, Fraction(1, 1000))
