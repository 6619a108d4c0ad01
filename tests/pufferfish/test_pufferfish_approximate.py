"""The (ε, δ) Pufferfish release: ``pufferfish_distance(model, delta=δ)`` and
``make_pufferfish_approximate``.

The claim under test: a release wrapped by ``make_pufferfish_approximate`` is
``(ε, δ_M + δ_c)``-Pufferfish for one secret pair, where ``δ_c`` is the coupling's failure
probability. On a model small enough to enumerate, the released mechanism's true privacy profile
``δ(ε)`` is computed exactly and compared with the claim; a planted bug (the W_δ calibration
reported as pure ε) must be caught both by the exact profile and by the empirical auditor.
"""

from __future__ import annotations

import math

import numpy as np
import opendp.prelude as dp
import pytest

import opendp_graph as dpg
from opendp_graph import pufferfish as pf

N = 12  # a star with N edges: every edge's closed neighbourhood is the whole star


def tail_model() -> pf.GlobalModel:
    """Given s⁰ the count f is 0, except with probability 3 % where it is 10; given s¹ it is 1.
    W∞ = 9 (the 3 % tail), W_δ = 1 for δ ≥ 0.03."""
    h0 = np.zeros(N, dtype=np.int64)
    h0[0], h0[10] = 97, 3
    h1 = np.zeros(N + 1, dtype=np.int64)
    h1[1] = 100
    return pf.GlobalModel(h0, h1, N, 10.0, fitted_on="a test law", data_dependent=False)


def star(f: int, secret: int) -> dpg.Graph:
    """The star whose edge 0 carries ``a`` iff ``secret``, with ``f`` edges carrying ``a`` in all."""
    carrying = set(range(f)) if secret else set(range(1, f + 1))
    return dpg.Graph.from_edges([0] * N, list(range(1, N + 1)), labels=[["a"] if i in carrying else [] for i in range(N)])


def law(model: pf.GlobalModel, secret: int) -> np.ndarray:
    h = np.asarray(model.hist1 if secret else model.hist0, dtype=float)
    return h / h.sum()


def discrete_laplace(scale: float, support: np.ndarray) -> np.ndarray:
    """OpenDP's discrete Laplace on the integers: pmf ∝ exp(−|k| / scale)."""
    r = math.exp(-1.0 / scale)
    return (1 - r) / (1 + r) * np.exp(-np.abs(support) / scale)


def exact_delta(model: pf.GlobalModel, scale: float, epsilon: float) -> float:
    """The true δ(ε) of ``count + discrete Laplace(scale)`` between the two conditional laws of
    the count (both directions): ``max Σ_y max(0, P_s(y) − e^ε P_t(y))``."""
    ys = np.arange(-400, 400 + N + 1)
    out = []
    for secret in (0, 1):
        p = law(model, secret)
        out.append(sum(p[x] * discrete_laplace(scale, ys - x) for x in np.flatnonzero(p)))
    p0, p1 = out
    return float(max(np.maximum(0, p0 - math.exp(epsilon) * p1).sum(), np.maximum(0, p1 - math.exp(epsilon) * p0).sum()))


def counts_release(model, delta, scale):
    space = dpg.graph_domain(labeled=True), dpg.pufferfish_distance(model, delta=delta)
    return space >> dpg.then_label_counts(1, ["a"]) >> dp.m.then_laplace(scale=scale)


# --------------------------------------------------------------------------- the coupling of this model
def test_w_delta_steps_exactly_at_the_tail_mass():
    model = tail_model()
    # the tail's mass is exactly 3/100; the float 0.03 is just below it
    assert (model.W, model.wasserstein(0.0301).W, model.wasserstein(0.03).W, model.wasserstein(0.0299).W) == (9, 1, 9, 9)


# --------------------------------------------------------------------------- exact privacy profile
def test_claim_is_never_below_the_exact_profile():
    model = tail_model()
    for delta_c in (0.0301, 0.05, 0.2):
        for epsilon in (0.5, 1.0, 2.0):
            counts = (dpg.graph_domain(labeled=True), dpg.pufferfish_distance(model, delta=delta_c)) >> dpg.then_label_counts(1, ["a"])
            scale = dp.binary_search_param(lambda s: counts >> dp.m.then_laplace(scale=s), d_in=1, d_out=epsilon)
            claimed_eps, claimed_delta = pf.make_pufferfish_approximate(counts >> dp.m.then_laplace(scale=scale)).map(1)
            assert claimed_delta == pytest.approx(delta_c)
            assert exact_delta(model, scale, claimed_eps) <= claimed_delta + 1e-12
    # and the exact mechanism (δ = 0, W∞ = 9) is pure: its profile is 0 at its ε
    exact = counts_release(model, 0.0, 9.0)
    assert exact.map(1) == pytest.approx(1.0)
    assert exact_delta(model, 9.0, 1.0) <= 1e-12


def test_planted_bug_is_caught_by_the_exact_profile():
    """Calibrated to W_δ = 1 but claimed pure ε = 1 (the unwrapped map): the profile says δ ≈ 0.03."""
    model = tail_model()
    planted = counts_release(model, 0.05, 1.0)
    assert planted.map(1) == pytest.approx(1.0)  # what the unwrapped chain claims
    assert exact_delta(model, 1.0, 1.0) > 0.025  # ... and the truth


@pytest.mark.slow  # 8.7 s of sampling; the exact check above catches the same planted bug in the default run
def test_planted_bug_is_caught_by_the_empirical_auditor():
    """The auditor samples graphs from the model's two conditional laws (a Pufferfish audit) and
    bounds ε from below at δ = 0: above the planted measurement's claimed ε = 1. The honest claim,
    δ = 0.05, is consistent with what it sees at that δ."""
    model = tail_model()
    release = pf.make_pufferfish_approximate(counts_release(model, 0.05, 1.0))

    def sampler(secret):
        p = law(model, secret)
        return lambda rng: star(int(rng.choice(p.size, p=p)), secret)

    audit = dpg.verify.empirical_epsilon(lambda g: release(g)[0], sampler(0), sampler(1), samples=4000, seed=1)
    assert audit.epsilon_lower > 1.0, audit
    honest = dpg.verify.empirical_epsilon(lambda g: release(g)[0], sampler(0), sampler(1), samples=4000, seed=2, delta=0.05)
    assert honest.epsilon_lower <= 1.0, honest


# --------------------------------------------------------------------------- the wrapper's contract
def test_unwrapped_release_refuses_to_run():
    planted = counts_release(tail_model(), 0.05, 1.0)
    with pytest.raises(dp.OpenDPException, match="make_pufferfish_approximate"):
        planted(star(1, 1))
    # wrapped, it runs; δ = 0 metrics need no wrapper
    assert len(pf.make_pufferfish_approximate(planted)(star(1, 1))) == 1
    assert len(counts_release(tail_model(), 0.0, 9.0)(star(1, 1))) == 1


def test_thresholded_release_adds_both_deltas():
    model = tail_model()
    space = dpg.graph_domain(labeled=True), dpg.pufferfish_distance(model, delta=0.0301)
    count_map = space >> dpg.then_label_count_map(1)
    scale, threshold = dpg.calibrate_laplace_threshold(count_map, 1, 1.0, 0.05 - 0.0301)
    inner = count_map >> dpg.then_corrected_laplace_threshold(scale=scale, threshold=threshold)
    eps_m, delta_m = inner.map(1)
    eps, delta = pf.make_pufferfish_approximate(inner).map(1)
    assert eps == eps_m and delta == pytest.approx(delta_m + 0.0301) and delta <= 0.05 + 1e-15
    assert isinstance(pf.make_pufferfish_approximate(inner)(star(10, 0)), dict)


def test_composition_wrapped_once_pays_delta_once():
    model = tail_model()
    m = counts_release(model, 0.05, 1.0)
    once = pf.make_pufferfish_approximate(dp.c.make_composition([m, m]))
    assert once.map(1) == pytest.approx((2.0, 0.05))
    assert len(once(star(1, 1))) == 2
    # wrapping each and composing with OpenDP adds the coupling's δ per release (conservative)
    wrapped = pf.make_pufferfish_approximate(m)
    assert dp.c.make_composition([wrapped, wrapped]).map(1) == pytest.approx((2.0, 0.1))


def test_context_api_takes_the_wrapped_measurement():
    model = tail_model()
    metric = dpg.pufferfish_distance(model, delta=0.05)
    ctx = dpg.context(star(1, 1), (metric, 1), dp.loss_of(epsilon=2.0, delta=0.1), split_evenly_over=2,
                      domain=dpg.graph_domain(labeled=True))
    answer = ctx(pf.make_pufferfish_approximate(counts_release(model, 0.05, 1.0)))
    assert len(answer) == 1


def test_bad_arguments():
    model = tail_model()
    with pytest.raises(ValueError, match="delta"):
        dpg.pufferfish_distance(model, delta=1.0)
    with pytest.raises(TypeError, match="delta"):
        dpg.pufferfish_distance(model, delta="0.1")
    with pytest.raises(TypeError, match="Measurement"):
        pf.make_pufferfish_approximate("not a measurement")
    edge = (dpg.graph_domain(labeled=True), dpg.edge_distance()) >> dpg.then_label_counts(1, ["a"]) >> dp.m.then_laplace(scale=1.0)
    with pytest.raises(TypeError, match="pufferfish_distance"):
        pf.make_pufferfish_approximate(edge)
    zcdp = dp.m.make_user_measurement(dpg.graph_domain(labeled=True), dpg.pufferfish_distance(model, delta=0.05),
                                      dp.zero_concentrated_divergence(), function=lambda g: 0, privacy_map=lambda d: 0.5)
    with pytest.raises(TypeError, match="max_divergence"):
        pf.make_pufferfish_approximate(zcdp)
    with pytest.raises(dp.OpenDPException, match="one secret pair"):
        pf.make_pufferfish_approximate(counts_release(model, 0.05, 1.0)).map(2)


def test_metrics_at_different_deltas_do_not_compose():
    model = tail_model()
    a = pf.make_pufferfish_approximate(counts_release(model, 0.05, 1.0))
    b = pf.make_pufferfish_approximate(counts_release(model, 0.2, 1.0))
    with pytest.raises(dp.OpenDPException):
        dp.c.make_composition([a, b])
    # the δ = 0 metric keeps its old identifier
    assert "delta" not in str(dpg.pufferfish_distance(model)) and "delta=0.05" in str(dpg.pufferfish_distance(model, delta=0.05))


def test_delta_sum_never_rounds_down():
    """δ_M + δ_c is reported as a float at least the exact sum (red-team finding: 0.1 + 1e-18
    rounded to 0.1)."""
    from fractions import Fraction

    model = tail_model()
    metric = dpg.pufferfish_distance(model, delta=0.1)
    tiny = dp.m.make_user_measurement(dpg.graph_domain(labeled=True), metric, dp.approximate(dp.max_divergence()),
                                      function=lambda g: 0, privacy_map=lambda d_in: (1.0, 1e-18))
    eps, delta = pf.make_pufferfish_approximate(tiny).map(1)
    assert Fraction(delta) >= Fraction(0.1) + Fraction(1e-18) and delta == math.nextafter(0.1, 1.0)


def test_delta_arguments_are_checked_exactly():
    from fractions import Fraction

    from opendp_graph.pufferfish.coupling import check_delta

    for bad in (Fraction(-1, 10**400), 10**400, -0.0 - 1e-300, float("nan"), 1.0):
        with pytest.raises(ValueError, match="probability"):
            check_delta(bad)
    assert check_delta(np.float32(1e-3)) <= np.float32(1e-3) and check_delta(Fraction(1, 3)) <= Fraction(1, 3)


def test_calibrating_the_wrapped_chain_and_a_composed_budget():
    """OpenDP's binary_search_param on the wrapped chain, at the metric's δ: one release, and a
    composition of two releases wrapped once (a composed budget)."""
    model = tail_model()
    space = dpg.graph_domain(labeled=True), dpg.pufferfish_distance(model, delta=0.05)
    counts = space >> dpg.then_label_counts(1, ["a"])
    one = dp.binary_search_param(lambda s: pf.make_pufferfish_approximate(counts >> dp.m.then_laplace(scale=s)), d_in=1, d_out=(1.0, 0.05))
    two = dp.binary_search_param(
        lambda s: pf.make_pufferfish_approximate(dp.c.make_composition([counts >> dp.m.then_laplace(scale=s)] * 2)), d_in=1, d_out=(1.0, 0.05))
    assert one == pytest.approx(1.0) and two == pytest.approx(2.0)
