"""The empirical auditor: validity, power, the (ε, δ) variant and reproducibility.

The mechanisms' noise comes from OpenDP and cannot be seeded, so every assertion below is a
statement whose failure probability is bounded and tiny:

* "lower bound ≤ true ε" is run at ``confidence = 1 − 1e-6``, so it fails with probability ≤ 1e-6;
* power / negative-control assertions leave a margin of more than 6 standard errors between
  the expected bound and the asserted value (the expected values are in the comments, measured
  with the sample sizes used here).

Sample sizes: 2 000 – 200 000 per hypothesis; batched OpenDP discrete Laplace (≈ 10 µs a draw).
"""

from __future__ import annotations

import math

import numpy as np
import opendp.prelude as dp
import pytest

import opendp_graph as dpg
from opendp_graph.verify import clopper_pearson, empirical_epsilon

SAFE = 1 - 1e-6


def _int_laplace(scale):
    m = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), scale)
    return lambda xs: m([int(x) for x in xs])


def _const(v):
    return lambda rng, size: [v] * size


def test_clopper_pearson_matches_known_values():
    lo, hi = clopper_pearson(np.array([0, 50, 100]), 100, 0.025)
    assert lo[0] == 0.0 and hi[2] == 1.0
    assert lo[1] == pytest.approx(0.3983, abs=1e-4) and hi[1] == pytest.approx(0.6017, abs=1e-4)
    with pytest.raises(ValueError):
        clopper_pearson(1, 10, 1.5)


def _power_curve(sizes):
    mech = _int_laplace(1.0)
    bounds = []
    for n in sizes:
        res = empirical_epsilon(mech, _const(0), _const(1), samples=n, batch=True, confidence=SAFE, seed=n)
        assert res.epsilon_lower <= 1.0, res
        bounds.append(res.epsilon_lower)
    return bounds


def test_power_grows_with_samples_and_never_exceeds_the_truth():
    # ε = 1 discrete Laplace on neighbouring counts 0 / 1 (the ratio is exactly e on {x ≥ 1}).
    # Expected bounds at confidence 1 − 1e-6: ≈ 0.45 (2k samples), ≈ 0.89 (50k), sd ≈ 0.02 at 50k.
    bounds = _power_curve([2_000, 50_000])
    assert bounds[0] < bounds[1]
    assert bounds[1] >= 0.8


@pytest.mark.slow
def test_power_approaches_one():
    # Expected ≈ 0.945 (200k), ≈ 0.975 (1M).
    bounds = _power_curve([200_000, 1_000_000])
    assert bounds[1] >= 0.95


def test_halved_sensitivity_is_flagged():
    # Claimed ε = 1 (sensitivity 1, scale 1) but the release uses scale 1/2: true ε = 2.
    # Expected bound ≈ 1.75 at 20k samples; asserting > 1 leaves > 10 sd of margin.
    res = empirical_epsilon(_int_laplace(0.5), _const(0), _const(1), samples=20_000, batch=True, confidence=SAFE)
    assert res.exceeds(1.0), res
    assert res.epsilon_lower <= 2.0


def test_unbatched_measurement_and_fixed_inputs():
    meas = (dpg.graph_domain(), dpg.edge_distance()) >> dpg.then_edge_count() >> dp.m.then_laplace(scale=1.0)
    g0 = dpg.Graph.from_edges([0], [1], num_nodes=3)
    g1 = dpg.Graph.from_edges([0, 1], [1, 2], num_nodes=3)
    res = empirical_epsilon(meas, g0, g1, samples=3_000, confidence=SAFE)
    assert 0.2 < res.epsilon_lower <= 1.0, res  # expected ≈ 0.6


@pytest.mark.thorough  # an empirical audit (4 s)
def test_vector_outputs_use_coordinates_and_a_projection():
    # degree histogram: neighbours differ in 4 cells (L1 = 4); scale 4 → ε = 1; halved → ε = 2.
    space = dpg.graph_domain(num_nodes=4), dpg.edge_distance()
    hist = space >> dpg.then_degree_histogram(max_degree=3)
    g0 = dpg.Graph.from_edges([0, 0], [2, 3], num_nodes=4)
    g1 = dpg.Graph.from_edges([0, 0, 0], [1, 2, 3], num_nodes=4)
    assert hist.map(1) == 4
    good = hist >> dp.m.then_laplace(scale=4.0)
    bad = hist >> dp.m.then_laplace(scale=1.0)  # sensitivity taken as 1 instead of 4: true ε = 4
    r_good = empirical_epsilon(good, g0, g1, samples=1_500, confidence=SAFE)
    r_bad = empirical_epsilon(bad, g0, g1, samples=2_000, confidence=0.999)
    assert r_good.epsilon_lower <= 1.0
    assert r_bad.exceeds(1.0), r_bad  # 2.67 ± 0.27 over 6 repetitions


@pytest.mark.thorough  # an empirical audit (11 s)
def test_approximate_dp_and_the_laplace_threshold_off_by_one():
    # A key with count 1 vs no key. OpenDP 0.16 releases a key when noisy count ≥ threshold, but its
    # δ is the tail P(Z > threshold − 1) (opendp/opendp#2922), a factor e^{1/scale} too small. The
    # honest δ at threshold T is OpenDP's δ at T − 1; the auditor must accept that and refute the other.
    dom = dp.map_domain(dp.atom_domain(T=str), dp.atom_domain(T=int))
    met = dp.l01inf_distance(dp.absolute_distance(T=int))
    T, b = 3, 1.0
    meas = dp.m.make_laplace_threshold(dom, met, scale=b, threshold=T)
    eps, reported = meas.map((1, 1, 1))
    honest = dp.m.make_laplace_threshold(dom, met, scale=b, threshold=T - 1).map((1, 1, 1))[1]
    true_release = math.exp(-(T - 1) / b) / (1 + math.exp(-1 / b))  # P(1 + Z ≥ T), Z discrete Laplace
    assert honest == pytest.approx(true_release, rel=1e-9)
    assert reported == pytest.approx(true_release * math.exp(-1 / b), rel=1e-9)
    pres = {"present": lambda o: 1.0 if "a" in o else 0.0}
    # 2 000 / 6 000 runs a side (0.6 ms each). At confidence 0.999 the refutation's bound is ≈ 2.6;
    # it needs the observed release rate (mean 0.099, sd 0.0055 on 3 000) above ≈ 0.064: > 6 sd.
    ok = empirical_epsilon(meas, {}, {"a": 1}, delta=honest, samples=2_000, statistic=pres, confidence=SAFE)
    assert not ok.exceeds(eps), ok
    caught = empirical_epsilon(meas, {}, {"a": 1}, delta=reported, samples=6_000, confidence=0.999)
    assert caught.exceeds(eps), caught  # 2.56 ± 0.10 over 6 repetitions; default dict statistic


def test_samplers_are_reproducible_given_the_seed():
    seen = {0: [], 1: []}

    def sampler(side):
        def draw(rng):
            x = int(rng.integers(0, 1000))
            seen[side].append(x)
            return x
        return draw

    ident = lambda x: x  # a deterministic "mechanism": the auditor must then separate perfectly
    r1 = empirical_epsilon(ident, sampler(0), sampler(1), samples=200, seed=42)
    first = (list(seen[0]), list(seen[1]))
    seen[0].clear(), seen[1].clear()
    r2 = empirical_epsilon(ident, sampler(0), sampler(1), samples=200, seed=42)
    assert first == (seen[0], seen[1])
    assert r1 == r2


def test_identical_hypotheses_give_zero():
    res = empirical_epsilon(_int_laplace(1.0), _const(3), _const(3), samples=4_000, batch=True, confidence=SAFE)
    assert res.epsilon_lower == 0.0


def test_argument_checks():
    mech = _int_laplace(1.0)
    with pytest.raises(TypeError, match="callable"):
        empirical_epsilon(3, 0, 1)
    with pytest.raises(ValueError, match="confidence"):
        empirical_epsilon(mech, 0, 1, confidence=1.0)
    with pytest.raises(ValueError, match="delta"):
        empirical_epsilon(mech, 0, 1, delta=-0.1)
    with pytest.raises(ValueError, match="samples"):
        empirical_epsilon(mech, 0, 1, samples=5)
    with pytest.raises(ValueError, match="must return"):
        empirical_epsilon(lambda xs: [0], _const(0), _const(1), samples=100, batch=True)
    with pytest.raises(TypeError, match="statistic"):
        empirical_epsilon(lambda x: object(), 0, 1, samples=100)
