"""``dpg.accuracy`` / ``dpg.summarize``: the half-width beside every release.

* **Exact**: each half-width against the exact law of its noise (it covers: the tail beyond it is
  ``≤ alpha``; and, for integer noise, it is tight: one integer less would not cover), the
  thresholded release probability against hand-computed values and against the package's own
  corrected δ.
* **Simulation of OpenDP's own measurements** (the noise is OpenDP's, drawn through the real
  chains): the empirical miss rate of ``± half_width`` over tens of thousands of entries is at most
  ``alpha`` within a binomial tolerance, and not below ``alpha / F`` (``F`` justified per noise
  below); a half-width off by a factor 2 either way is shown to fall outside the same band, so
  these tests can fail. The thresholded Laplace is checked key by key: release frequencies at
  counts below, at and above the threshold against :meth:`Accuracy.release_probability`, which
  pins down OpenDP's law (discrete Laplace, ``Pr[Z = z] ∝ exp(−|z| / scale)``) and its rule
  (kept when the noisy count is ``≥`` the threshold).
* **Structure and errors**: the walk through chains, wrappers, measure conversions and Context
  queries; what is refused, and bad arguments.

Tolerances: ``Z_TOL = 4.5`` binomial standard deviations; a single check fails by chance with
probability about ``7e-6`` (two-sided normal tail), the whole file's checks (< 100) below ``1e-3``.
"""

from __future__ import annotations

import dataclasses
import math

import networkx as nx
import numpy as np
import opendp.prelude as dp
import pytest

import opendp_graph as dpg
from opendp_graph import Graph

Z_TOL = 4.5
ALPHAS = (0.05, 0.01)
DRAWS = 1000  # releases per noise kind in the default run (test_coverage_by_simulation)
DRAWS_FULL = 4000  # in its slow run
MAP_DOMAIN = dp.map_domain(dp.atom_domain(T=dp.String), dp.atom_domain(T=dp.i64))
MAP_METRIC = dp.l01inf_distance(dp.absolute_distance(T=dp.i64))


# ----------------------------------------------------------------------------- exact laws
def dl_tail(m: int, scale: float) -> float:
    """``Pr[|Z| ≥ m]`` for the discrete Laplace ``Pr[Z = z] ∝ q^|z|``, ``q = e^{−1/scale}``."""
    if m <= 0:
        return 1.0
    q = math.exp(-1 / scale)
    return 2 * q**m / (1 + q)


def dl_at_least(m: int, scale: float) -> float:
    """``Pr[Z ≥ m]`` (one-sided) for the same law."""
    q = math.exp(-1 / scale)
    return q**m / (1 + q) if m >= 1 else 1 - q ** (1 - m) / (1 + q)


def dg_tail(m: int, sigma: float) -> float:
    """``Pr[|Z| ≥ m]`` for the discrete Gaussian ``Pr[Z = z] ∝ exp(−z² / 2σ²)``, by summation."""
    if m <= 0:
        return 1.0
    top = int(m + 40 * sigma + 50)
    weights = [math.exp(-z * z / (2 * sigma * sigma)) for z in range(top + 1)]
    total = weights[0] + 2 * math.fsum(weights[1:])
    return 2 * math.fsum(weights[m:]) / total


def exact_tail(noise: str, scale: float, m: int) -> float:
    return dl_tail(m, scale) if noise == "discrete_laplace" else dg_tail(m, scale)


def karate() -> Graph:
    return dpg.Graph.from_networkx(nx.karate_club_graph())


EDGE_SPACE = dpg.graph_domain(), dpg.edge_distance()


# ----------------------------------------------------------------------------- exact checks
class TestExactHalfWidths:
    def test_hand_computed_small_scales(self):
        hist = EDGE_SPACE >> dpg.then_degree_histogram(max_degree=20)
        # discrete Laplace, scale 1: OpenDP's a = ln(2 / (0.05 (1 + e^{-1}))) = 3.3756;
        # Pr[|Z| ≥ 4] = 2e^{-4} / (1 + e^{-1}) = 0.02678 ≤ 0.05 < Pr[|Z| ≥ 3] = 0.07279: half-width 3
        acc = dpg.accuracy(hist >> dp.m.then_laplace(scale=1.0), alpha=0.05)
        assert (acc.noise, acc.half_width) == ("discrete_laplace", 3)
        assert acc.opendp_accuracy == pytest.approx(math.log(2 / (0.05 * (1 + math.exp(-1)))), rel=1e-12)
        assert dl_tail(4, 1.0) == pytest.approx(0.026780, abs=1e-6) and dl_tail(3, 1.0) == pytest.approx(0.072795, abs=1e-6)
        # discrete Gaussian, σ = 1 (normaliser Σ e^{-z²/2} = 2.50663): Pr[|Z| ≤ 2] =
        # (1 + 2e^{-1/2} + 2e^{-2}) / 2.50663 = 0.99087 ≥ 0.95 >
        # Pr[|Z| ≤ 1] = (1 + 2e^{-1/2}) / 2.50663 = 0.88288: half-width 2
        # (OpenDP reports 3 = 2 + 1: its accuracy is a strict bound, Pr[|Z| ≥ 3] ≤ alpha)
        acc = dpg.accuracy(EDGE_SPACE >> dpg.then_edge_count() >> dp.m.then_gaussian(scale=1.0), alpha=0.05)
        assert (acc.noise, acc.half_width, acc.opendp_accuracy) == ("discrete_gaussian", 2, 3.0)
        assert 1 - dg_tail(3, 1.0) == pytest.approx(0.990866, abs=1e-6) and 1 - dg_tail(2, 1.0) == pytest.approx(0.882884, abs=1e-6)
        # σ = 0.5: Pr[|Z| ≥ 1] = 0.2134 > 0.05 ≥ Pr[|Z| ≥ 2] = 5.3e-4: half-width 1
        acc = dpg.accuracy(EDGE_SPACE >> dpg.then_edge_count() >> dp.m.then_gaussian(scale=0.5), alpha=0.05)
        assert acc.half_width == 1
        assert dg_tail(1, 0.5) == pytest.approx(0.213429, abs=1e-6) and dg_tail(2, 0.5) == pytest.approx(5.2775e-4, rel=1e-4)
        # continuous: Laplace ln(1/α)·b, Gaussian 1.959964·σ
        floats = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float)
        assert dpg.accuracy(floats >> dp.m.then_laplace(scale=1.0)).half_width == pytest.approx(math.log(20), rel=1e-12)
        floats2 = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l2_distance(T=float)
        assert dpg.accuracy(floats2 >> dp.m.then_gaussian(scale=1.0)).half_width == pytest.approx(1.959964, abs=1e-6)

    @pytest.mark.parametrize("scale", [0.3, 0.5, 1.0, 2.0, 4.0, 7.5, 20.0])
    @pytest.mark.parametrize("alpha", [0.2, 0.05, 0.01, 0.001])
    @pytest.mark.parametrize("noise", ["discrete_laplace", "discrete_gaussian"])
    def test_integer_half_width_covers_and_is_tight(self, noise, scale, alpha):
        then = dp.m.then_laplace if noise == "discrete_laplace" else dp.m.then_gaussian
        acc = dpg.accuracy(EDGE_SPACE >> dpg.then_edge_count() >> then(scale=scale), alpha=alpha)
        assert acc.noise == noise and isinstance(acc.half_width, int)
        opendp = dp.discrete_laplacian_scale_to_accuracy if noise == "discrete_laplace" else dp.discrete_gaussian_scale_to_accuracy
        assert acc.opendp_accuracy == opendp(scale, alpha)  # OpenDP's own number, not a re-derivation
        h = acc.half_width
        assert exact_tail(noise, scale, h + 1) <= alpha * (1 + 1e-9)  # Pr[|Z| > h] ≤ alpha: it covers
        assert exact_tail(noise, scale, h) > alpha  # h − 1 would not: it is tight

    @pytest.mark.parametrize("scale", [0.5, 1.0, 3.0])
    @pytest.mark.parametrize("alpha", [0.2, 0.05, 0.01])
    def test_continuous_half_width_is_the_exact_quantile(self, scale, alpha):
        lap = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=scale)
        gauss = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=scale)
        h_lap, h_gauss = dpg.accuracy(lap, alpha).half_width, dpg.accuracy(gauss, alpha).half_width
        assert math.exp(-h_lap / scale) == pytest.approx(alpha, rel=1e-9)  # Pr[|Z| > h] for Laplace(b)
        assert math.erfc(h_gauss / (scale * math.sqrt(2))) == pytest.approx(alpha, rel=1e-6)  # for N(0, σ²)

    def test_no_noise(self):
        acc = dpg.accuracy(EDGE_SPACE >> dpg.then_edge_count() >> dp.m.then_laplace(scale=0.0))
        assert acc.half_width == 0 and acc.interval(78) == (78, 78)


class TestExactReleaseProbability:
    def thresholded(self, scale=1.0, threshold=3):
        return dpg.accuracy(dpg.make_corrected_laplace_threshold(MAP_DOMAIN, MAP_METRIC, scale=scale, threshold=threshold))

    def test_hand_computed(self):
        acc = self.thresholded(1.0, 3)
        q = math.exp(-1)
        assert acc.release_probability(3) == pytest.approx(1 / (1 + q), rel=1e-12)  # Pr[Z ≥ 0] = 0.7311
        assert acc.release_probability(2) == pytest.approx(q / (1 + q), rel=1e-12)  # Pr[Z ≥ 1] = 0.2689
        assert acc.release_probability(1) == pytest.approx(0.098938, abs=1e-6)  # Pr[Z ≥ 2] = e^{-2}/(1+e^{-1})
        assert acc.release_probability(5) == pytest.approx(1 - math.exp(-3) / (1 + q), rel=1e-12)  # 0.9636
        assert acc.release_probability(-40) < 1e-17 and acc.release_probability(60) == 1.0
        assert acc.release_probability(2.5) == acc.release_probability(2)  # Z is an integer: Z ≥ ⌈T − x⌉ = 1

    @pytest.mark.parametrize("threshold, linf", [(3, 1), (6, 1), (9, 2), (4, 3)])
    def test_matches_the_corrected_delta(self, threshold, linf):
        """``dpg.make_corrected_laplace_threshold``'s δ is the release probability of a key present on one
        side only, with count ℓ∞: the same number by another route (OpenDP's accountant)."""
        meas = dpg.make_corrected_laplace_threshold(MAP_DOMAIN, MAP_METRIC, scale=2.0, threshold=threshold)
        _, delta = meas.map((1, linf, linf))
        assert dpg.accuracy(meas).release_probability(linf) == pytest.approx(delta, rel=1e-6)

    @pytest.mark.parametrize("scale", [0.5, 1.0, 2.5])
    def test_count_for_release_probability_is_the_least(self, scale):
        acc = self.thresholded(scale, 10)
        for p in (1e-6, 0.01, 0.2, 0.5, 0.7311, 0.9, 0.99, 1 - 1e-9):
            x = acc.count_for_release_probability(p)
            assert isinstance(x, int)
            assert acc.release_probability(x) >= p > acc.release_probability(x - 1)

    def test_continuous_release_probability(self):
        float_domain = dp.map_domain(dp.atom_domain(T=dp.String), dp.atom_domain(T=dp.f64, nan=False))
        meas = dp.m.make_laplace_threshold(float_domain, dp.l01inf_distance(dp.absolute_distance(T=dp.f64)), scale=2.0, threshold=5.0)
        acc = dpg.accuracy(meas)
        assert (acc.noise, acc.threshold) == ("laplace", 5.0)
        assert acc.release_probability(5.0) == 0.5
        assert acc.release_probability(3.0) == pytest.approx(0.5 * math.exp(-1), rel=1e-12)
        assert acc.release_probability(9.0) == pytest.approx(1 - 0.5 * math.exp(-2), rel=1e-12)
        for p in (0.01, 0.3, 0.5, 0.95):
            assert acc.release_probability(acc.count_for_release_probability(p)) == pytest.approx(p, rel=1e-9)


# ----------------------------------------------------------------------------- simulations
def miss_band(alpha: float, floor_factor: float, n: int) -> tuple[float, float]:
    """Acceptance band for an empirical miss rate over ``n`` independent entries: at most
    ``alpha`` and at least ``alpha / floor_factor``, each within ``Z_TOL`` binomial standard deviations."""
    low = alpha / floor_factor
    return (
        low - Z_TOL * math.sqrt(low * (1 - low) / n),
        alpha + Z_TOL * math.sqrt(alpha * (1 - alpha) / n),
    )


def floor_factor(acc) -> float:
    """``F`` with ``Pr[|Z| > half_width] ≥ alpha / F``.

    * continuous noise: ``F = 1``; the miss probability is ``alpha`` exactly (its quantile).
    * integer noise: the half-width ``h`` is tight (``Pr[|Z| ≥ h] > alpha``, checked exactly
      above), so ``Pr[|Z| ≥ h + 1] > alpha / F`` with ``F = Pr[|Z| ≥ h] / Pr[|Z| ≥ h + 1]``, the
      ratio of tails one integer apart: nothing integer can be closer to ``alpha``. For the
      discrete Laplace ``F = e^{1/scale}``; for the discrete Gaussian it is computed exactly.
    """
    if not acc.noise.startswith("discrete_"):
        return 1.0
    h = acc.half_width
    return exact_tail(acc.noise, acc.scale, h) / exact_tail(acc.noise, acc.scale, h + 1)


@pytest.fixture(scope="module")
def noise_draws(request):
    """``noise kind → (measurement, errors)``: ``DRAWS`` releases of each real OpenDP measurement
    (a vector chain), minus the true values; every entry's noise is independent. A test may ask
    for another number of releases (``indirect`` parametrisation)."""
    draws_n = getattr(request, "param", DRAWS)
    draws = {}
    g = karate()
    hist = EDGE_SPACE >> dpg.then_degree_histogram(max_degree=20)
    truth = np.array(hist(g))
    meas = hist >> dp.m.then_laplace(scale=4.0)  # 21 bins: 21,000 entries (84,000 at 4,000 draws)
    draws["discrete_laplace"] = meas, np.array([meas(g) for _ in range(draws_n)]) - truth
    x = [float(i) / 3 for i in range(12)]  # 12 entries: 12,000 (48,000; float sampling is exact, and slower)
    meas = (dp.vector_domain(dp.atom_domain(T=float, nan=False), size=12), dp.l1_distance(T=float)) >> dp.m.then_laplace(scale=2.0)
    draws["laplace"] = meas, np.array([meas(x) for _ in range(draws_n)]) - np.array(x)
    x = [float(i) / 3 for i in range(6)]  # 6 entries: 6,000 (24,000)
    meas = (dp.vector_domain(dp.atom_domain(T=float, nan=False), size=6), dp.l2_distance(T=float)) >> dp.m.then_gaussian(scale=2.0)
    draws["gaussian"] = meas, np.array([meas(x) for _ in range(draws_n)]) - np.array(x)
    x = list(range(20))  # 20 entries: 20,000 (80,000)
    meas = (dp.vector_domain(dp.atom_domain(T=int), size=20), dp.l2_distance(T=int)) >> dp.m.then_gaussian(scale=5.0)
    draws["discrete_gaussian"] = meas, np.array([meas(x) for _ in range(draws_n)]) - np.array(x)
    return draws


@pytest.mark.parametrize("noise", ["laplace", "discrete_laplace", "gaussian", "discrete_gaussian"])
@pytest.mark.parametrize("alpha", ALPHAS)
# simulations (7 s of noise draws): thorough, and at full size under -m slow
@pytest.mark.parametrize("noise_draws", [pytest.param(DRAWS, marks=pytest.mark.thorough), pytest.param(DRAWS_FULL, marks=pytest.mark.slow)], indirect=True)
def test_coverage_by_simulation(noise_draws, noise, alpha):
    """The empirical miss rate of each half-width is in its band, and a half-width off by a factor 2
    either way is not. At the default 1,000 draws (3,000 to 21,000 entries) the right half-width
    leaves its 4.5-sigma band with probability < 1e-5 per check, and the wrong ones sit over 30 of
    their sigmas outside it (twice as far at the 4,000 draws of the slow run)."""
    meas, errors = noise_draws[noise]
    acc = dpg.accuracy(meas, alpha=alpha)
    assert acc.noise == noise
    n = errors.size
    low, high = miss_band(alpha, floor_factor(acc), n)
    miss = float(np.mean(np.abs(errors) > acc.half_width))
    assert low <= miss <= high, f"{noise}: miss rate {miss:.5f} outside [{low:.5f}, {high:.5f}] (half-width {acc.half_width})"
    # the same band rejects a half-width off by a factor 2 either way: this test can fail
    for wrong in (2 * acc.half_width, acc.half_width / 2):
        wrong_miss = float(np.mean(np.abs(errors) > wrong))
        assert not low <= wrong_miss <= high, f"{noise}: a half-width of {wrong} would pass too"


@pytest.mark.parametrize("noise_draws", [DRAWS], indirect=True)  # the default run's draws, shared
def test_interval_covers_the_truth_on_the_karate_club(noise_draws):
    """``interval`` of the released histograms: the true bin is inside with frequency ≥ 1 − α."""
    meas, errors = noise_draws["discrete_laplace"]
    g = karate()
    truth = (EDGE_SPACE >> dpg.then_degree_histogram(max_degree=20))(g)
    acc = dpg.accuracy(meas)
    inside = [low <= t <= high for _ in range(300) for (low, high), t in zip(acc.interval(meas(g)), truth)]
    n = len(inside)
    assert 1 - np.mean(inside) <= acc.alpha + Z_TOL * math.sqrt(acc.alpha * (1 - acc.alpha) / n)


@pytest.fixture(scope="module")
def threshold_runs():
    """2,000 releases of ``dpg.make_corrected_laplace_threshold`` (OpenDP's measurement inside) at scale
    1.5 and threshold 6, of a map with 5 keys at each count of ``TestThresholdBySimulation.COUNTS``."""
    cls = TestThresholdBySimulation
    meas = dpg.make_corrected_laplace_threshold(MAP_DOMAIN, MAP_METRIC, scale=cls.SCALE, threshold=cls.THRESHOLD)
    data = {f"{x}/{j}": x for x in cls.COUNTS for j in range(cls.COPIES)}
    return meas, data, [meas(data) for _ in range(cls.RUNS)]


@pytest.mark.thorough  # simulations: 2,000 releases drawn once for the class (10 s)
class TestThresholdBySimulation:
    SCALE, THRESHOLD, COPIES, RUNS = 1.5, 6, 5, 2000
    COUNTS = (1, 3, 4, 5, 6, 7, 9, 12, 40)

    def test_release_frequency_matches_release_probability(self, threshold_runs):
        meas, data, releases = threshold_runs
        acc = dpg.accuracy(meas)
        n = self.COPIES * self.RUNS
        for x in self.COUNTS:
            kept = sum(f"{x}/{j}" in r for r in releases for j in range(self.COPIES)) / n
            p = acc.release_probability(x)
            sd = math.sqrt(max(p * (1 - p), 1 / n) / n)
            assert abs(kept - p) <= Z_TOL * sd, f"count {x}: released {kept:.4f}, predicted {p:.4f}"
            if x == self.THRESHOLD:
                # OpenDP keeps noisy count ≥ threshold: Pr[Z ≥ 0] = 0.661, not Pr[Z > 0] = 0.339
                # (a strict rule) nor 0.5 (a continuous law)
                q = math.exp(-1 / self.SCALE)
                for wrong in (q / (1 + q), 0.5):
                    assert abs(kept - wrong) > 10 * sd

    def test_noise_law_is_discrete_laplace_of_scale(self, threshold_runs):
        """Keys of count 40 are always released: their noise is OpenDP's raw noise.
        ``Pr[Z = 0] = (1 − q)/(1 + q) = 0.3217`` for ``q = e^{−1/1.5}``; a rounded continuous
        Laplace would give ``1 − e^{−0.5/1.5} = 0.2835``, a scale of ``1.5·√2`` 0.2312."""
        meas, data, releases = threshold_runs
        noise = np.array([r[f"40/{j}"] - 40 for r in releases for j in range(self.COPIES)])
        n = noise.size
        for z in (0, 1, -1, 3):
            p = dl_at_least(z, self.SCALE) - dl_at_least(z + 1, self.SCALE)
            assert abs(np.mean(noise == z) - p) <= Z_TOL * math.sqrt(p * (1 - p) / n)
        assert abs(np.mean(noise == 0) - (1 - math.exp(-0.5 / 1.5))) > 5 * math.sqrt(0.3 * 0.7 / n)
        # the half-width of keys far above the threshold (released always): the ordinary band
        for alpha in ALPHAS:
            acc = dpg.accuracy(meas, alpha=alpha)
            low, high = miss_band(alpha, floor_factor(acc), n)
            assert low <= np.mean(np.abs(noise) > acc.half_width) <= high

    def test_float_counts(self):
        float_domain = dp.map_domain(dp.atom_domain(T=dp.String), dp.atom_domain(T=dp.f64, nan=False))
        meas = dp.m.make_laplace_threshold(float_domain, dp.l01inf_distance(dp.absolute_distance(T=dp.f64)), scale=1.0, threshold=5.0)
        acc = dpg.accuracy(meas)
        data = {f"{x}/{j}": x for x in (3.5, 5.0, 6.0) for j in range(4)}
        releases = [meas(data) for _ in range(1000)]
        for x in (3.5, 5.0, 6.0):
            kept = np.mean([f"{x}/{j}" in r for r in releases for j in range(4)])
            p = acc.release_probability(x)
            assert abs(kept - p) <= Z_TOL * math.sqrt(p * (1 - p) / 4000)


# ----------------------------------------------------------------------------- structure
class TestWhatIsRead:
    def test_chains_scalars_vectors_and_types(self):
        count = EDGE_SPACE >> dpg.then_edge_count()
        assert dpg.accuracy(count >> dp.m.then_laplace(scale=2.0)).noise == "discrete_laplace"
        assert dpg.accuracy(count >> dp.m.then_gaussian(scale=2.0)).noise == "discrete_gaussian"
        geometric = dp.m.make_geometric(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=2.0)
        assert dpg.accuracy(geometric) == dataclasses.replace(dpg.accuracy(count >> dp.m.then_laplace(scale=2.0)), mechanism="make_geometric")
        unsigned = (dp.vector_domain(dp.atom_domain(T=dp.u32)), dp.l1_distance(T=dp.u32)) >> dp.m.then_laplace(scale=2.0)
        assert dpg.accuracy(unsigned).noise == "discrete_laplace"
        f32 = (dp.vector_domain(dp.atom_domain(T=dp.f32, nan=False)), dp.l2_distance(T=dp.f32)) >> dp.m.then_gaussian(scale=2.0)
        assert dpg.accuracy(f32).noise == "gaussian"

    def test_thresholded_opendp_and_dpg_read_the_same(self):
        count_map = (dpg.graph_domain(labeled=True), dpg.edge_distance()) >> dpg.then_label_count_map(1)
        ours = dpg.accuracy(count_map >> dpg.then_corrected_laplace_threshold(scale=1.0, threshold=10))
        opendp = dpg.accuracy(count_map >> dp.m.then_laplace_threshold(scale=1.0, threshold=10))
        assert ours == opendp
        assert (ours.noise, ours.scale, ours.threshold, ours.half_width, ours.mechanism) == (
            "discrete_laplace", 1.0, 10, 3, "make_laplace_threshold")

    def test_pufferfish_wrapper_is_walked_into(self):
        model = dpg.pufferfish.BinomialModel(p0=0.01, p1=0.3, neighbour_counts=range(20))
        space = dpg.graph_domain(labeled=True), dpg.pufferfish_distance(model, delta=1e-6)
        inner = space >> dpg.then_label_counts(3, ["gas", "power", "price"]) >> dp.m.then_laplace(scale=12.0)
        wrapped = dpg.pufferfish.make_pufferfish_approximate(inner)
        assert dpg.accuracy(wrapped) == dpg.accuracy(inner)
        assert dpg.accuracy(wrapped).half_width == 36

    def test_measure_conversions_are_walked_through(self):
        gauss = EDGE_SPACE >> dpg.then_edge_count() >> dp.m.then_gaussian(scale=3.0)
        lap = EDGE_SPACE >> dpg.then_edge_count() >> dp.m.then_laplace(scale=3.0)
        for converted, plain in (
            (dp.c.make_zCDP_to_approxDP(gauss), gauss),
            (dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gauss), 1e-6), gauss),
            (dp.c.make_approximate(lap), lap),
            (dp.c.make_pureDP_to_zCDP(lap), lap),
        ):
            assert dpg.accuracy(converted) == dpg.accuracy(plain)

    def test_context_queries(self):
        g = karate()
        ctx = dpg.context(g, (dpg.edge_distance(), 1), dp.loss_of(epsilon=1.0), split_evenly_over=2)
        query = ctx.query().edge_count().laplace()
        table = dpg.summarize(query)
        assert table.row(0) == ("0", "discrete_laplace", query.param(), dpg.accuracy(query.resolve()).half_width, None, None)
        approx = dpg.context(g, (dpg.edge_distance(), 1), dp.loss_of(epsilon=1.0, delta=1e-6), split_evenly_over=2)
        zcdp = dpg.context(g, (dpg.edge_distance(), 1), dp.loss_of(rho=0.5), split_evenly_over=2)
        table = dpg.summarize({"approx": approx.query().edge_count().laplace(), "zcdp": zcdp.query().edge_count().gaussian()})
        assert table["noise"].to_list() == ["discrete_laplace", "discrete_gaussian"]
        assert table["scale"].to_list() == pytest.approx([2.0, math.sqrt(2)])  # ρ = 1/(2σ²) = 0.25 per query
        assert ctx.remaining_privacy_loss() == [0.5, 0.5]  # nothing was released
        with pytest.raises(ValueError, match="release '0'.*not yet a measurement"):
            dpg.summarize(ctx.query().edge_count())

    def test_summarize_shapes(self):
        count_map = (dpg.graph_domain(labeled=True), dpg.edge_distance()) >> dpg.then_label_count_map(1)
        hist = EDGE_SPACE >> dpg.then_degree_histogram(max_degree=20) >> dp.m.then_laplace(scale=4.0)
        thresholded = count_map >> dpg.then_corrected_laplace_threshold(scale=1.0, threshold=10)
        table = dpg.summarize([hist, thresholded], alpha=0.01)
        assert table.columns == ["release", "noise", "scale", "accuracy", "threshold", "not_included"]
        assert table.rows() == [
            ("0", "discrete_laplace", 4.0, float(dpg.accuracy(hist, 0.01).half_width), None, None),
            # one property per pair out of any number: the cap can bind, and the row says so
            ("1", "discrete_laplace", 1.0, float(dpg.accuracy(thresholded, 0.01).half_width), 10.0,
             dpg.accuracy(thresholded).not_included),
        ]
        assert "c = 1" in dpg.accuracy(thresholded).not_included
        assert dpg.summarize({"hist": hist})["release"].to_list() == ["hist"]
        assert dpg.summarize([]).height == 0

    def test_interval_shapes(self):
        acc = dpg.accuracy(EDGE_SPACE >> dpg.then_edge_count() >> dp.m.then_laplace(scale=1.0))
        assert acc.interval(78) == (75, 81)
        assert acc.interval((1, 2)) == [(-2, 4), (-1, 5)]
        assert acc.interval(np.array([1, 2])) == [(-2, 4), (-1, 5)]
        assert acc.interval({"a": 0}) == {"a": (-3, 3)}
        for bad in ("78", None, True, [1, "2"], {"a": None}, object()):
            with pytest.raises(TypeError, match="number"):
                acc.interval(bad)

    def test_result_is_frozen_and_readable(self):
        acc = dpg.accuracy(EDGE_SPACE >> dpg.then_edge_count() >> dp.m.then_laplace(scale=1.0))
        with pytest.raises(dataclasses.FrozenInstanceError):
            acc.half_width = 1
        assert str(acc) == (
            "discrete_laplace noise of scale 1: each entry within ±3 of its true value with probability ≥ 95 % (per entry)"
        )


class TestRefusals:
    def test_unsupported_measurements(self):
        lap = EDGE_SPACE >> dpg.then_degree_histogram(max_degree=20) >> dp.m.then_laplace(scale=4.0)
        top_k = (dp.vector_domain(dp.atom_domain(T=int)), dp.linf_distance(T=int)) >> dp.m.then_noisy_top_k(
            dp.max_divergence(), k=1, scale=1.0)
        user = dp.m.make_user_measurement(
            dp.atom_domain(T=int), dp.absolute_distance(T=int), dp.max_divergence(), function=lambda x: x, privacy_map=lambda d: 1.0)
        cases = [
            (top_k, "make_noisy_top_k on a vector of unknown length"),
            (dp.c.make_composition([lap, lap]), "composition"),
            (user, "user measurement whose function is Python code"),
            (lap >> (lambda x: x), "post-processed"),
        ]
        for meas, why in cases:
            with pytest.raises(TypeError, match=why) as info:
                dpg.accuracy(meas)
            assert "supported: OpenDP's make_laplace" in str(info.value)
        for not_a_measurement in (EDGE_SPACE >> dpg.then_edge_count(), 3, None):
            with pytest.raises(TypeError, match="expected an OpenDP Measurement"):
                dpg.accuracy(not_a_measurement)
        with pytest.raises(TypeError, match="must be an OpenDP Measurement or a dp.Context query"):
            dpg.summarize([lap, "hist"])

    def test_float_noise_with_explicit_granularity(self):
        meas = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0, k=-10)
        with pytest.raises(TypeError, match="explicit noise granularity k=-10"):
            dpg.accuracy(meas)

    def test_bounded_geometric_is_refused(self):
        # OpenDP clamps a bounded geometric to its bounds: on the karate club's 78 edges with
        # bounds (0, 50) every release is <= 50, so "±3 of 78" would never cover the truth.
        count = EDGE_SPACE >> dpg.then_edge_count()
        bounded = count >> dp.m.then_geometric(scale=1.0, bounds=(0, 50))
        with pytest.raises(TypeError, match=r"bounds=\(0, 50\): its releases are clamped"):
            dpg.accuracy(bounded)
        with pytest.raises(TypeError, match="clamped"):
            dpg.summarize({"edges": bounded})
        vector = dp.m.make_geometric(
            dp.vector_domain(dp.atom_domain(T=dp.i64)), dp.l1_distance(T=dp.i64), scale=2.0, bounds=(0, 10))
        with pytest.raises(TypeError, match="clamped"):
            dpg.accuracy(vector)
        assert dpg.accuracy(count >> dp.m.then_geometric(scale=1.0)).half_width == 3  # unbounded: as before

    @pytest.mark.parametrize("alpha, error", [
        (0, ValueError), (0.0, ValueError), (1, ValueError), (1.5, ValueError), (-0.05, ValueError),
        (float("nan"), ValueError), (float("inf"), ValueError), (True, TypeError), (False, TypeError),
        ("0.05", TypeError), (None, TypeError),
    ])
    def test_bad_alpha(self, alpha, error):
        meas = EDGE_SPACE >> dpg.then_edge_count() >> dp.m.then_laplace(scale=1.0)
        with pytest.raises(error, match="alpha"):
            dpg.accuracy(meas, alpha=alpha)
        with pytest.raises(error, match="alpha"):
            dpg.summarize([meas], alpha=alpha)

    def test_bad_threshold_questions(self):
        plain = dpg.accuracy(EDGE_SPACE >> dpg.then_edge_count() >> dp.m.then_laplace(scale=1.0))
        with pytest.raises(ValueError, match="thresholded releases"):
            plain.release_probability(3)
        with pytest.raises(ValueError, match="thresholded releases"):
            plain.count_for_release_probability(0.5)
        acc = dpg.accuracy(dpg.make_corrected_laplace_threshold(MAP_DOMAIN, MAP_METRIC, scale=1.0, threshold=3))
        with pytest.raises(ValueError, match="true_count must not be NaN"):
            acc.release_probability(float("nan"))
        for bad in ("3", True, None):
            with pytest.raises(TypeError, match="true_count"):
                acc.release_probability(bad)
        for bad, error in ((0, ValueError), (1, ValueError), (float("nan"), ValueError), (True, TypeError), ("0.5", TypeError)):
            with pytest.raises(error, match="p must"):
                acc.count_for_release_probability(bad)


def test_accuracy_names_the_projection_bias_after_a_projection():
    space = dpg.graph_domain(), dpg.node_insertion_distance()
    projected = space >> dpg.then_degree_projection(max_degree=10) >> dpg.then_edge_count() >> dp.m.then_laplace(scale=20.0)
    acc = dpg.accuracy(projected)
    assert acc.not_included is not None and "projection drops" in acc.not_included and "not included" in str(acc)
    plain = (dpg.graph_domain(), dpg.edge_distance()) >> dpg.then_edge_count() >> dp.m.then_laplace(scale=2.0)
    assert dpg.accuracy(plain).not_included is None


def test_tiny_discrete_laplace_scale_has_half_width_zero():
    """OpenDP 0.16's discrete_laplacian_scale_to_accuracy returns -inf at tiny scales; the
    half-width is then the exact least h with Pr[|Z| > h] ≤ alpha (0: the noise is almost never non-zero)."""
    from opendp_graph.measurements.accuracy import noise_accuracy

    assert noise_accuracy("discrete_laplace", 0.001, 0.05, mechanism="make_laplace").half_width == 0
    q = math.exp(-1 / 0.3)
    h = noise_accuracy("discrete_laplace", 0.3, 1e-9, mechanism="make_laplace").half_width
    assert 2 * q ** (h + 1) / (1 + q) <= 1e-9 < 2 * q ** h / (1 + q)


# ----------------------------------------------------------------------------- issue 39, item 7
def test_an_n_gram_release_has_an_accuracy_per_order():
    """dpg.accuracy(make_ngram_count_release(...)) raised; it now states each order's noise, and
    summarize gives a row per order."""
    from opendp_graph import text as T

    space = dpg.graph_domain(labeled=True), dpg.edge_distance()
    keys = {1: ["gas", "power"], 2: ["gas power"], 3: ["<s> gas power"]}
    split = T.make_ngram_count_release(*space, dp.loss_of(rho=0.5), keys, max_ngrams_per_edge=4, shares={1: 0.5, 2: 0.25, 3: 0.25})
    g = dpg.Graph.from_edges([0], [1], num_nodes=2, labels=[["gas"]])
    acc = dpg.accuracy(split)
    assert isinstance(acc, dpg.measurements.accuracy.PartsAccuracy)
    assert [label for label, _ in acc.parts] == ["order 1", "order 2", "order 3"]
    scales = split(g).scales
    for n in (1, 2, 3):
        part = acc.for_part(f"order {n}")
        assert part.noise == "discrete_gaussian" and part.scale == pytest.approx(scales[n])
        assert part.half_width == dpg.measurements.accuracy.noise_accuracy("discrete_gaussian", scales[n], 0.05,
                                                                         mechanism="make_gaussian").half_width
    assert acc.worst is acc.for_part("order 2") or acc.worst.scale == max(p.scale for _, p in acc.parts)
    table = dpg.summarize({"lm": split})
    assert table["release"].to_list() == ["lm (order 1)", "lm (order 2)", "lm (order 3)"]
    joint = T.make_ngram_count_release(*space, dp.loss_of(epsilon=1.0), keys, max_ngrams_per_edge=4, joint=True)
    (label, part), = dpg.accuracy(joint).parts
    assert label == "every order" and part.noise == "discrete_laplace" and part.scale == pytest.approx(4.0)


def test_printed_numbers_are_rounded_for_reading():
    """"scale 320.00032000000004", "±958.6352861716048": what a person reads is rounded; the
    fields keep full precision."""
    from opendp_graph.measurements.accuracy import readable

    acc = dpg.measurements.accuracy.noise_accuracy("laplace", 320.00032000000004, 0.05, mechanism="make_laplace")
    assert "scale 320:" in str(acc) and "±958.6 " in str(acc)
    assert acc.scale == 320.00032000000004
    assert (readable(12345.678), readable(0.000123456), readable(7), readable(1234567)) == ("12,346", "0.0001235", "7", "1,234,567")


def test_a_cap_that_can_bind_is_named_and_one_that_cannot_is_not():
    """Under a per-pair cap the interval covers the capped count, not the true one (the chat log:
    at c = 8 it missed the real count 31 % of the time). The accuracy says so whenever the cap can
    drop a counted property, and says nothing when a public promise makes it harmless."""
    vocabulary = ["a", "b", "c"]
    capped = (dpg.graph_domain(labeled=True), dpg.edge_distance()) >> dpg.then_label_counts(1, vocabulary) >> dp.m.then_laplace(scale=1.0)
    acc = dpg.accuracy(capped)
    assert acc.not_included is not None and "c = 1" in acc.not_included and "value fed to the noise" in str(acc)
    # the miss is real: one pair with all three properties; the capped count of "b" is 0, its truth 1
    g = dpg.Graph.from_edges([0], [1], num_nodes=2, labels=[vocabulary])
    counts = (dpg.graph_domain(labeled=True), dpg.edge_distance()) >> dpg.then_label_counts(1, vocabulary)
    assert counts(g) == [1, 0, 0]
    promised = (dpg.graph_domain(labeled=True, max_labels_per_edge=1), dpg.edge_distance()) >> dpg.then_label_counts(1, vocabulary)
    assert dpg.accuracy(promised >> dp.m.then_laplace(scale=1.0)).not_included is None
    wide = (dpg.graph_domain(labeled=True), dpg.edge_distance()) >> dpg.then_label_counts(3, vocabulary)
    assert dpg.accuracy(wide >> dp.m.then_laplace(scale=1.0)).not_included is None
    table = dpg.summarize({"capped": capped})
    assert table["not_included"].to_list() == [acc.not_included]


def test_polars_rows_say_they_cover_the_truncated_answer():
    """OpenDP's Polars releases under an identifier unit truncate each identifier's rows before
    they aggregate: summarize says the interval is around the truncated table's answer."""
    import polars as pl

    frame = pl.LazyFrame({"pair": ["a", "a", "b"], "x": [1, 2, 3]})
    ctx = dp.Context.compositor(data=frame, privacy_unit=dp.unit_of(contributions=1, identifier="pair"),
                                privacy_loss=dp.loss_of(epsilon=1.0), split_evenly_over=2)
    row = dpg.summarize(ctx.query().truncate_per_group(2).select(dp.len(signed=True))).row(0, named=True)
    assert "truncation" in row["not_included"]
    plain = dp.Context.compositor(data=frame, privacy_unit=dp.unit_of(contributions=1),
                                  privacy_loss=dp.loss_of(epsilon=1.0), split_evenly_over=2)
    assert dpg.summarize(plain.query().select(dp.len(signed=True))).row(0, named=True)["not_included"] is None


def test_a_wrapped_relaxed_pufferfish_release_states_each_order():
    """Second round: under pufferfish_distance(model, delta=δ) the release only runs wrapped by
    make_pufferfish_approximate, and dpg.accuracy refused the wrapper."""
    from opendp_graph import text as T

    g = dpg.Graph.from_edges([0, 1, 2], [1, 2, 3], num_nodes=4, labels=[["gas"], ["gas", "power"], ["gas power"]])
    model = dpg.pufferfish.BinomialModel.from_public(g, g)
    space = dpg.graph_domain(labeled=True), dpg.pufferfish_distance(model, delta=1e-6)
    release = T.make_ngram_count_release(*space, dp.loss_of(epsilon=1.0), {1: ["gas", "power"], 2: ["gas power"]}, max_ngrams_per_edge=1, joint=True)
    wrapped = dpg.pufferfish.make_pufferfish_approximate(release)
    (label, part), = dpg.accuracy(wrapped).parts
    assert label == "every order" and part.scale == pytest.approx(wrapped(g).scales[1])
    assert dpg.summarize({"w": wrapped}).height == 1


def test_each_order_states_its_own_cap():
    """Second round: every order's row got the union of all orders' statements."""
    from opendp_graph import text as T

    space = dpg.graph_domain(labeled=True), dpg.edge_distance()
    keys = {1: ["gas", "power"], 2: ["gas power"]}  # c = 1 can drop an order-1 key, never the single order-2 key
    acc = dpg.accuracy(T.make_ngram_count_release(*space, dp.loss_of(epsilon=1.0), keys, max_ngrams_per_edge=1))
    assert acc.for_part("order 1").not_included is not None and acc.for_part("order 2").not_included is None
    assert acc.not_included == acc.for_part("order 1").not_included
    table = dpg.summarize({"lm": T.make_ngram_count_release(*space, dp.loss_of(epsilon=1.0), keys, max_ngrams_per_edge=1)})
    assert table["not_included"].to_list() == [acc.for_part("order 1").not_included, None]


def test_at_bound_interval_refuses_an_alpha_outside_0_1():
    from opendp_graph.measurements.degree_distribution import DegreeDistributionRelease

    release = DegreeDistributionRelease(theta=2, histogram=np.zeros(3), noisy_cumulative=np.array([1.0, 2.0, 5.0]), noise_scale=1.0)
    for alpha in (1.0, 1.99, 0.0, float("nan")):
        with pytest.raises(ValueError, match="alpha"):
            release.at_bound_interval(alpha)


@pytest.mark.parametrize("measure", ["max_divergence", "zero_concentrated_divergence"])
def test_selection_accuracy_holds_for_noisy_top_k(measure):
    """OpenDP's noisy top-k releases keys; the statement: every released key's true score is within
    half_width of the k-th best, for all keys at once with probability ≥ 1 − alpha. Checked over
    600 releases on a vector where many keys sit just below the margin (the hardest case)."""

    scores = [100, 90, 80] + [80 - 6 * i for i in range(1, 12)]
    domain = dp.vector_domain(dp.atom_domain(T=dp.i64), size=len(scores))
    space = domain, dp.linf_distance(T=dp.i64)
    meas = dp.m.make_noisy_top_k(*space, getattr(dp, measure)(), k=3, scale=4.0)
    acc = dpg.accuracy(meas, alpha=0.1)
    assert isinstance(acc, dpg.measurements.accuracy.SelectionAccuracy)
    assert acc.noise == ("exponential" if measure == "max_divergence" else "gumbel") and acc.candidates == 14
    assert "3rd largest" in str(acc)
    third = sorted(scores)[-3]
    misses = sum(any(scores[j] < third - acc.half_width for j in meas(scores)) for _ in range(600))
    assert misses <= 0.1 * 600
    # a key just below the margin is released sometimes (the margin is not vacuous)
    wide = dp.m.make_noisy_top_k(*space, getattr(dp, measure)(), k=3, scale=40.0)
    assert any(any(scores[j] < third for j in wide(scores)) for _ in range(50))


def test_selection_accuracy_through_person_level_top_k():
    from opendp_graph.text import make_person_ngram_counts, person_text_domain

    counts = make_person_ngram_counts(person_text_domain(7), dpg.polars.person_log_distance(), ["gas", "power", "lunch"], 2,
                                      output_metric=dp.linf_distance(T=dp.i64, monotonic=True))
    acc = dpg.accuracy(counts >> dp.m.then_noisy_top_k(dp.max_divergence(), k=1, scale=3.0), alpha=0.05)
    assert acc.k == 1 and acc.half_width == pytest.approx(3.0 * math.log(3 / 0.05))
    table = dpg.summarize({"top": counts >> dp.m.then_noisy_top_k(dp.max_divergence(), k=1, scale=3.0)})
    assert table["noise"].to_list() == ["exponential"]


@pytest.mark.thorough  # a simulation (10 s)
@pytest.mark.parametrize("measure, negate", [("max_divergence", False), ("max_divergence", True), ("zero_concentrated_divergence", False)])
def test_selection_accuracy_survives_many_rounds_of_peeling(measure, negate):
    """The red team's fourth round: OpenDP picks k keys in k rounds of fresh exponential noise,
    so a margin from one round's K noises (b·ln(K/alpha)) failed 12 % of the time at K = 200,
    k = 50. The k best keys at one score and every other key just beyond the margin: the stated
    margin must fail at most alpha of the time."""
    big, k, alpha = 200, 50, 0.05
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False), size=big), dp.linf_distance(T=float)
    meas = dp.m.make_noisy_top_k(*space, getattr(dp, measure)(), k=k, scale=1.0, negate=negate)
    acc = dpg.accuracy(meas, alpha=alpha)
    sign = -1.0 if negate else 1.0
    scores = [0.0] * k + [sign * -(acc.half_width * (1 + 1e-9) + 1e-9)] * (big - k)
    misses = sum(any(sign * scores[i] < -acc.half_width for i in meas(scores)) for _ in range(600))
    assert misses <= alpha * 600
    assert ("bottom 50" if negate else "top 50") in str(acc)
