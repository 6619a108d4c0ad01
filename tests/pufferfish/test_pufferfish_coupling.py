"""The (ε, δ) relaxation of the Wasserstein mechanism (:mod:`opendp_graph.pufferfish.coupling`).

* the greedy flow against a linear program (scipy's HiGHS) and against Strassen's formula;
* FIELD-NOTES' two counterexamples (quantile coupling not optimal at δ > 0; the one-sided CDF
  test not sufficient);
* δ = 0 gives back exactly W∞, the flip bound and the quantile range, on random laws and on the
  fitted models; W_δ and F_δ are minimal, certified and non-increasing in δ;
* the Binomial computation is conservative against exact rational arithmetic;
* argument validation; the models' δ reports (caching, immutability, pickling), and Enron.
"""

import copy
import math
import pickle
from fractions import Fraction
from itertools import combinations

import numpy as np
import opendp.prelude as dp
import pytest
from scipy.optimize import linprog

import opendp_graph as dpg
from opendp_graph.pufferfish import (
    BinomialModel,
    ConditionalModel,
    EdgeLevelModel,
    MarkovQuiltModel,
    WassersteinReport,
    binomial_delta_bounds,
    binomial_min_failure_bound,
    delta_bounds,
    fit_all,
    flip_bound,
    flip_delta,
    min_failure,
    optimal_coupling,
    quantile_failure,
    quantile_gap_range,
    w_delta,
    w_infinity,
)
from opendp_graph.pufferfish.coupling import _precision, check_delta
from opendp_graph.pufferfish.wasserstein import binomial_gap_range


# ----------------------------------------------------------------------------- helpers
def random_pair(rng, max_len=8, floats=False):
    """Two random mass vectors on small supports, with holes (zero masses)."""
    k, l = rng.integers(1, max_len + 1, size=2)
    mu = rng.integers(0, 6, size=k) * (rng.random(k) < 0.7)
    nu = rng.integers(0, 6, size=l) * (rng.random(l) < 0.7)
    if mu.sum() == 0:
        mu[rng.integers(k)] = 1
    if nu.sum() == 0:
        nu[rng.integers(l)] = 1
    if floats:  # probability vectors; read as exact binary fractions, normalised by their exact total
        mu = mu / mu.sum()
        nu = nu / nu.sum()
    return mu, nu


def lp_failure(mu, nu, lo, hi):
    """1 − (maximum flow through the admissible pairs), by a linear program."""
    mu = np.asarray(mu, dtype=float) / np.sum(mu)
    nu = np.asarray(nu, dtype=float) / np.sum(nu)
    pairs = [(x, y) for x in range(mu.size) for y in range(nu.size) if lo <= y - x <= hi]
    if not pairs:
        return 1.0
    A = np.zeros((mu.size + nu.size, len(pairs)))
    for k, (x, y) in enumerate(pairs):
        A[x, k] = A[mu.size + y, k] = 1.0
    res = linprog(-np.ones(len(pairs)), A_ub=A, b_ub=np.concatenate([mu, nu]), bounds=(0, None), method="highs")
    assert res.status == 0
    return 1.0 + res.fun


def exact_law(weights):
    """The law the package reads: exact weights (ints, or floats as binary fractions) over their total."""
    exact = [Fraction(float(w)) if isinstance(w, (float, np.floating)) else Fraction(int(w)) for w in weights]
    total = sum(exact)
    return [w / total for w in exact]


def strassen(mu, nu, w):
    """``max_A μ(A) − ν(A^w)`` over subsets ``A`` of μ's support (brute force)."""
    a, b = exact_law(mu), exact_law(nu)
    support = [x for x, m in enumerate(a) if m]
    best = Fraction(0)
    for r in range(1, len(support) + 1):
        for A in combinations(support, r):
            near = {y for y in range(len(b)) if any(abs(y - x) <= w for x in A)}
            best = max(best, sum(a[x] for x in A) - sum(b[y] for y in near))
    return best


def one_sided_lower_bound(mu, nu, w):
    """The least δ passing ``P(X ≤ t) ≤ P(Y ≤ t + w) + δ`` and the same with X, Y swapped (a
    necessary condition only: a lower bound of min_failure(−w, w))."""
    a, b = exact_law(mu), exact_law(nu)
    K = max(len(a), len(b)) + w + 1

    def cdf(m, t):
        return sum(m[: max(0, min(t + 1, len(m)))])

    return max(
        max(Fraction(0), *(cdf(a, t) - cdf(b, t + w) for t in range(-w - 1, K))),
        max(Fraction(0), *(cdf(b, t) - cdf(a, t + w) for t in range(-w - 1, K))),
    )


def binomial_weights(n, p, shift=0):
    """Exact Binomial(n, p) masses as integers over the common total D**n (p a float = a / D)."""
    a, D = float(p).as_integer_ratio()
    return [0] * shift + [math.comb(n, k) * a**k * (D - a) ** (n - k) for k in range(n + 1)]


def exact_binomial_failure(n, p0, p1, lo, hi):
    return min_failure(np.array(binomial_weights(n, p0), dtype=object), np.array(binomial_weights(n, p1, 1), dtype=object), lo, hi)


def exact_binomial_bounds(n, p0, p1, delta):
    return delta_bounds(np.array(binomial_weights(n, p0), dtype=object), np.array(binomial_weights(n, p1, 1), dtype=object), delta)


# ----------------------------------------------------------------------------- the greedy is optimal
def test_min_failure_agrees_with_a_linear_program():
    rng = np.random.default_rng(2026)
    worst = 0.0
    for case in range(400):
        mu, nu = random_pair(rng, floats=case % 2 == 1)
        lo = int(rng.integers(-7, 6))
        hi = lo + int(rng.integers(0, 7))
        exact = min_failure(mu, nu, lo, hi)
        assert isinstance(exact, Fraction) and 0 <= exact <= 1
        worst = max(worst, abs(float(exact) - lp_failure(mu, nu, lo, hi)))
        # the greedy sub-coupling is a certificate: feasible, in the window, of mass 1 − failure
        coupling = optimal_coupling(mu, nu, lo, hi)
        a, b = exact_law(mu), exact_law(nu)
        assert all(lo <= y - x <= hi and m > 0 for (x, y), m in coupling.items())
        for x in range(len(a)):
            assert sum(m for (i, _), m in coupling.items() if i == x) <= a[x]
        for y in range(len(b)):
            assert sum(m for (_, j), m in coupling.items() if j == y) <= b[y]
        assert sum(coupling.values()) == 1 - exact
        # the quantile coupling is one coupling: never better
        assert quantile_failure(mu, nu, lo, hi) >= exact
    assert worst <= 1e-12


def test_min_failure_is_strassens_formula():
    rng = np.random.default_rng(7)
    for _ in range(120):
        mu, nu = random_pair(rng, max_len=6)
        w = int(rng.integers(0, 4))
        assert min_failure(mu, nu, -w, w) == strassen(mu, nu, w)


def test_counterexample_quantile_coupling_not_optimal_above_zero():
    # FIELD-NOTES: X = 0 w.p. 1 − δ, 100 w.p. δ; Y = −100 w.p. δ, 0 w.p. 1 − δ (shifted by 100)
    delta = Fraction(1, 1000)
    mu = np.zeros(201, dtype=object)
    nu = np.zeros(201, dtype=object)
    mu[100], mu[200] = 1 - delta, delta
    nu[0], nu[100] = delta, 1 - delta
    assert min_failure(mu, nu, 0, 0) == delta  # match the two big atoms, fail on the δ tails
    assert quantile_failure(mu, nu, 0, 0) == 2 * delta  # the monotone coupling fails twice
    assert w_infinity(mu, nu) == 100
    assert w_delta(mu, nu, float(delta)) == 0 and w_delta(mu, nu, 0.0) == 100
    assert w_delta(mu, nu, 0.0015) == 0  # the quantile coupling would need δ ≥ 2/1000 for w = 0


def test_counterexample_one_sided_test_not_sufficient():
    # FIELD-NOTES: X ≡ 0 against Y ∈ {−10, 0, 10} w.p. (1/4, 1/2, 1/4) (shifted by 10)
    mu = [0] * 10 + [4]
    nu = [1] + [0] * 9 + [2] + [0] * 9 + [1]
    assert one_sided_lower_bound(mu, nu, 0) == Fraction(1, 4)  # passes the one-sided test at 1/4
    assert min_failure(mu, nu, 0, 0) == Fraction(1, 2)  # but every coupling fails with 1/2
    assert w_delta(mu, nu, 0.25) == 10 and w_delta(mu, nu, 0.5) == 0
    # the one-sided test is a valid lower bound (random cases)
    rng = np.random.default_rng(3)
    for _ in range(100):
        m, n = random_pair(rng)
        w = int(rng.integers(0, 4))
        assert one_sided_lower_bound(m, n, w) <= min_failure(m, n, -w, w)


# ----------------------------------------------------------------------------- W_δ, F_δ
def test_delta_zero_is_w_infinity_and_the_flip_bound():
    rng = np.random.default_rng(11)
    for case in range(300):
        mu, nu = random_pair(rng, max_len=10, floats=case % 3 == 0)
        gaps = quantile_gap_range(mu, nu)
        W, F = gaps.w_infinity, flip_bound(*gaps)
        b = delta_bounds(mu, nu, 0.0)
        assert (b.W, b.d_min, b.d_max, b.flip_bound) == (W, gaps.d_min, gaps.d_max, F)
        assert w_delta(mu, nu, 0) == W == w_infinity(mu, nu) and flip_delta(mu, nu, 0.0) == F
        # and directly from the flow: failure 0 exactly on the windows containing the range
        assert min_failure(mu, nu, -W, W) == 0 and min_failure(mu, nu, 2 - F, F) == 0
        assert min_failure(mu, nu, gaps.d_min, gaps.d_max) == 0
        if W > 0:
            assert min_failure(mu, nu, 1 - W, W - 1) > 0
        if F > 1:
            assert min_failure(mu, nu, 3 - F, F - 1) > 0


def test_delta_bounds_are_minimal_certified_and_monotone():
    rng = np.random.default_rng(5)
    deltas = [0.0, 0.01, 0.05, 0.1, 0.2, 0.35, 0.6, 0.9]
    for _ in range(150):
        mu, nu = random_pair(rng, max_len=9)
        previous = None
        for delta in deltas:
            b = delta_bounds(mu, nu, delta)
            d = Fraction(delta)
            assert b.delta == delta and max(b.d_max, -b.d_min) == b.W and b.W >= 0 and b.flip_bound >= 1
            assert min_failure(mu, nu, -b.W, b.W) <= d and min_failure(mu, nu, b.d_min, b.d_max) <= d
            assert min_failure(mu, nu, 2 - b.flip_bound, b.flip_bound) <= d
            if b.W > 0:
                assert min_failure(mu, nu, 1 - b.W, b.W - 1) > d
            if b.flip_bound > 1:
                assert min_failure(mu, nu, 3 - b.flip_bound, b.flip_bound - 1) > d
            # the window lies in [−W, W] and, when cut, in the δ = 0 range
            assert -b.W <= b.d_min <= b.d_max <= b.W
            if previous is not None:
                assert b.W <= previous.W and b.flip_bound <= previous.flip_bound
            previous = b


def test_w_and_flip_windows_are_met_by_different_couplings():
    # X ∈ {2, 4}, Y ∈ {0, 6}, 1/2 each: the quantile coupling has d ∈ {−2, 2}
    mu, nu = [0, 0, 1, 0, 1], [1, 0, 0, 0, 0, 0, 1]
    b0 = delta_bounds(mu, nu, 0.0)
    assert (b0.W, b0.d_min, b0.d_max, b0.flip_bound) == (2, -2, 2, 4)
    b = delta_bounds(mu, nu, 0.5)
    # W cannot drop (no pair has |d| ≤ 1), but F can: keep (4, 6), d = 2, and drop the rest
    assert b.W == 2 and min_failure(mu, nu, -1, 1) == 1
    assert b.flip_bound == 2 < flip_bound(-b.W, b.W) == 4  # F_δ is not the flip bound of [−W_δ, W_δ]
    assert min_failure(mu, nu, 0, 2) == Fraction(1, 2)


# ----------------------------------------------------------------------------- Binomial, conservative
def test_binomial_bound_is_conservative_against_exact_arithmetic():
    rng = np.random.default_rng(17)
    for case in range(60):
        n = int(rng.integers(0, 26))
        p0, p1 = (float(rng.choice([rng.random(), rng.random() * 0.05, 0.0, 1.0], p=[0.6, 0.3, 0.05, 0.05])) for _ in range(2))
        delta = float(rng.choice([1e-3, 1e-6, 1e-9, 0.05]))
        P = _precision(n, delta)
        for _ in range(3):
            lo = int(rng.integers(-n - 2, 3))
            hi = max(lo, int(rng.integers(-1, n + 3)))
            exact = exact_binomial_failure(n, p0, p1, lo, hi)
            bound = binomial_min_failure_bound(n, p0, p1, lo, hi, delta)
            assert exact <= bound <= exact + Fraction(8 * (n + 2) ** 2, 2**P)
        got, want = binomial_delta_bounds(n, p0, p1, delta), exact_binomial_bounds(n, p0, p1, delta)
        assert got.W >= want.W and got.flip_bound >= want.flip_bound  # never below the truth
        assert (got.W, got.flip_bound) == (want.W, want.flip_bound)  # and equal here (no near-tie)
        assert exact_binomial_failure(n, p0, p1, got.d_min, got.d_max) <= Fraction(delta)  # window certified


def test_binomial_delta_zero_is_todays_w_infinity():
    for n, p0, p1 in [(0, 0.1, 0.2), (5, 0.2, 0.2), (40, 0.01, 0.3), (164, 0.002, 0.08), (300, 0.6, 0.1)]:
        gaps = binomial_gap_range(n, p0, p1)
        b = binomial_delta_bounds(n, p0, p1, 0.0)
        assert (b.W, b.d_min, b.d_max, b.flip_bound) == (gaps.w_infinity, gaps.d_min, gaps.d_max, flip_bound(*gaps))
    # Enron-like: W∞ decided by tails ~ 1e-300, W_δ by the bulk
    assert binomial_delta_bounds(164, 0.002, 0.08, 1e-6)[:4] == (28, 1, 28, 28)
    big = binomial_delta_bounds(10_000, 1e-4, 0.01, 1e-6)  # n ~ 10⁴ stays fast
    assert big.W < big.w_infinity


def test_binomial_box_bound_holds_for_every_point_of_the_box():
    rng = np.random.default_rng(23)
    for _ in range(12):
        n = int(rng.integers(1, 25))
        p0 = tuple(sorted(rng.random(2) * 0.3))
        p1 = tuple(sorted(rng.random(2)))
        delta = 0.01
        box = binomial_delta_bounds(n, p0, p1, delta)
        for _ in range(4):
            q0, q1 = float(rng.uniform(*p0)), float(rng.uniform(*p1))
            point = exact_binomial_bounds(n, q0, q1, delta)
            assert point.W <= box.W and point.flip_bound <= box.flip_bound
            assert exact_binomial_failure(n, q0, q1, box.d_min, box.d_max) <= Fraction(delta)
            assert exact_binomial_failure(n, q0, q1, 2 - box.flip_bound, box.flip_bound) <= Fraction(delta)


# ----------------------------------------------------------------------------- validation
@pytest.mark.parametrize("bad, error", [
    (True, TypeError), ("0.1", TypeError), (None, TypeError), ([0.1], TypeError),
    (float("nan"), ValueError), (-1e-9, ValueError), (1.0, ValueError), (2, ValueError), (float("inf"), ValueError),
])
def test_delta_is_validated(bad, error):
    with pytest.raises(error, match="delta"):
        check_delta(bad)
    with pytest.raises(error, match="delta"):
        w_delta([1, 1], [1, 1], bad)
    with pytest.raises(error, match="delta"):
        EdgeLevelModel().wasserstein(bad)
    with pytest.raises(error, match="delta"):
        binomial_delta_bounds(3, 0.1, 0.2, bad)


def test_delta_rounds_down_to_a_float():
    third = Fraction(1, 3)
    assert Fraction(check_delta(third)) <= third and check_delta(np.float64(1e-6)) == 1e-6
    assert check_delta(np.float32(0.1)) == float(np.float32(0.1)) and check_delta(np.int64(0)) == 0.0
    third_ld = np.longdouble(1) / 3
    assert check_delta(third_ld) <= third_ld  # float vs longdouble compares exactly
    assert check_delta(-0.0) == 0.0 and math.copysign(1, check_delta(-0.0)) == 1


def test_windows_and_binomial_arguments_are_validated():
    with pytest.raises(ValueError, match="lo <= hi"):
        min_failure([1], [1], 1, 0)
    with pytest.raises(TypeError, match="integer"):
        min_failure([1], [1], 0.5, 1)
    with pytest.raises(TypeError, match="integer"):
        quantile_failure([1], [1], True, 1)
    with pytest.raises(ValueError, match="p0"):
        binomial_delta_bounds(3, 1.5, 0.2, 0.1)
    with pytest.raises(ValueError, match="p1"):
        binomial_delta_bounds(3, 0.1, (0.5, 0.2), 0.1)
    with pytest.raises(ValueError, match="n must be"):
        binomial_delta_bounds(-1, 0.1, 0.2, 0.1)
    with pytest.raises(ValueError, match="sum to 1"):
        min_failure([0.5, 0.6], [1.0], 0, 0)


# ----------------------------------------------------------------------------- the models
def small_graph():
    edges = [(0, 1), (1, 2), (2, 3), (1, 3), (3, 4), (0, 4), (2, 4)]
    labels = [["a"], ["a", "b"], ["b"], ["a"], ["a", "b"], [], ["b"]]
    return dpg.Graph.from_edges([u for u, _ in edges], [v for _, v in edges], labels=labels)


def all_models():
    g = small_graph()
    models = dict(fit_all(g, source="public", base=2))
    models["Edge-level"] = EdgeLevelModel()
    models["Markov quilt"] = MarkovQuiltModel.for_graph(g)
    models["Binomial DP"] = BinomialModel.fit_dp(g, dp.loss_of(epsilon=5.0), vocabulary=["a", "b"], max_labels_per_edge=2)
    models["Binomial n"] = BinomialModel(0.01, 0.3, range(40))
    models["Conditional ignore"] = ConditionalModel.fit(dpg.Graph.from_edges([0, 1], [1, 2], labels=[["a"], ["a"]]), base=2, unobserved="ignore")
    return models


def same_report(r, s):
    assert (r.W, r.d_min, r.d_max, r.flip_bound, r.delta) == (s.W, s.d_min, s.d_max, s.flip_bound, s.delta)
    assert r.table == s.table and r.cdfs.keys() == s.cdfs.keys()
    for k in r.cdfs:
        assert all(np.array_equal(u, v) for u, v in zip(r.cdfs[k], s.cdfs[k]))


@pytest.mark.parametrize("name", list(all_models()))
def test_model_reports_at_delta(name):
    model = all_models()[name]
    r0 = model.wasserstein()
    assert model.wasserstein(0.0) is r0 and model.wasserstein(0) is r0 and r0.delta == 0.0
    same_report(r0, model._report())  # δ = 0: today's report, recomputed from scratch
    # the δ path evaluated at δ = 0 gives the same W, window and flip bound (exact models)
    z = model._report_delta(0.0)
    assert (z.W, z.d_min, z.d_max, z.flip_bound) == (r0.W, r0.d_min, r0.d_max, r0.flip_bound)
    previous = r0
    for delta in (1e-9, 1e-3, 0.05, 0.3):
        r = model.wasserstein(delta)
        assert isinstance(r, WassersteinReport) and r.delta == delta
        assert model.wasserstein(delta) is r  # cached per δ
        assert r.W <= previous.W and r.flip_bound <= previous.flip_bound  # monotone in δ
        assert r.W == max(r.d_max, -r.d_min)
        rows = [row for row in r.table if row.get("W_delta") is not None]
        if rows:
            assert r.W == max(row["W_delta"] for row in rows)
            assert r.flip_bound == max(row["flip_delta"] for row in rows)
            assert r.d_min == min(row["d_min_delta"] for row in rows) and r.d_max == max(row["d_max_delta"] for row in rows)
            assert all(row["W_delta"] <= row["W_inf"] and row["flip_delta"] <= row["flip_inf"] for row in rows)
        previous = r
    # the δ = 0 report and the metric are untouched by the δ reports
    assert model.wasserstein() is r0
    assert dpg.pufferfish_distance(model).descriptor.W == r0.W


def test_empirical_buckets_at_delta_are_exact():
    model = all_models()["Global"]
    r = model.wasserstein(0.1)
    b = delta_bounds(model.hist0, model.hist1, 0.1)
    assert (r.W, r.d_min, r.d_max, r.flip_bound) == (b.W, b.d_min, b.d_max, b.flip_bound)
    cond = all_models()["Conditional"]
    for row in cond.wasserstein(0.1).table:
        if row["W_delta"] is not None and row["observed"]:
            h0, h1 = cond.hist0[row["log_freq"], row["log_size"]], cond.hist1[row["log_freq"], row["log_size"]]
            b = delta_bounds(h0, h1, 0.1)
            assert (row["W_delta"], row["d_min_delta"], row["d_max_delta"], row["flip_delta"]) == b[:4]


def test_baselines_do_not_move_with_delta():
    quilt = MarkovQuiltModel(7)
    r = quilt.wasserstein(0.2)
    assert (r.W, r.d_min, r.d_max, r.flip_bound) == (7, -5, 7, 7)
    e = EdgeLevelModel().wasserstein(0.5)
    assert (e.W, e.d_min, e.d_max, e.flip_bound) == (1, 1, 1, 1)
    # an unobserved bucket keeps its trivial bound; an ignored one stays ignored
    g = dpg.Graph.from_edges([0, 1], [1, 2], labels=[["a"], ["a"]])
    bound = ConditionalModel.fit(g, base=2).wasserstein(0.5)
    assert bound.W == 2 and bound.flip_bound == 2 and bound.table[0]["W_delta"] == 2
    ignore = ConditionalModel.fit(g, base=2, unobserved="ignore").wasserstein(0.5)
    assert ignore.W == 1 and ignore.table[0]["W_delta"] is None


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_delta_caches_keep_models_immutable_and_round_trip(how):
    for name, model in all_models().items():
        W0, r = model.W, model.wasserstein(0.01)
        with pytest.raises(AttributeError, match="immutable"):
            model._report_cache_delta = {}
        with pytest.raises(AttributeError):
            del model._report_cache_delta
        back = pickle.loads(pickle.dumps(model)) if how == "pickle" else copy.deepcopy(model)
        assert back.W == W0 and back.fingerprint() == model.fingerprint()
        same_report(back.wasserstein(0.01), r)
        fresh = type(model).__new__(type(model))
        fresh.__setstate__({k: v for k, v in model._state(portable=False).items() if not k.startswith("_report_cache")})
        same_report(fresh.wasserstein(0.01), r)  # recomputed, same values
        assert dpg.pufferfish_distance(back) == dpg.pufferfish_distance(model), name


# ----------------------------------------------------------------------------- Enron
def test_enron_delta_reports(dataset):
    g = dpg.datasets.load_enron(dataset("enron-perry-wolfe"))
    models = fit_all(g, source="public")
    binomial = models["Binomial"]
    assert binomial.W == 82
    r = binomial.wasserstein(1e-6)
    assert r.W == 28 and r.flip_bound == 28 and (r.d_min, r.d_max) == (1, 28)
    for name, model in models.items():
        r0 = model.wasserstein()
        z = model._report_delta(0.0)  # the δ path at δ = 0: today's numbers
        assert (z.W, z.d_min, z.d_max, z.flip_bound) == (r0.W, r0.d_min, r0.d_max, r0.flip_bound), name
        r6, r9 = model.wasserstein(1e-6), model.wasserstein(1e-9)
        assert r6.W <= r9.W <= r0.W and r6.flip_bound <= r9.flip_bound <= r0.flip_bound, name
