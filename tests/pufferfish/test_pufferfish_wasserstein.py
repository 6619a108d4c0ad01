"""W∞: against couplings (linear programming), quantile functions and exact binomials."""

import itertools
from fractions import Fraction
from itertools import accumulate
from math import comb

import numpy as np
import pytest
from scipy.optimize import linprog
from scipy.stats import wasserstein_distance

from opendp_graph.pufferfish import quantile_gap_range, w_infinity
from opendp_graph.pufferfish.wasserstein import binomial_gap_range


def coupling_exists(p, q, w) -> bool:
    """Is there a coupling of p and q supported on |x - y| <= w? (an LP feasibility problem)"""
    kp, kq = len(p), len(q)
    allowed = [(x, y) for x in range(kp) for y in range(kq) if abs(x - y) <= w]
    a_eq, b_eq = [], []
    for x in range(kp):
        a_eq.append([1.0 if xx == x else 0.0 for xx, _ in allowed])
        b_eq.append(p[x])
    for y in range(kq):
        a_eq.append([1.0 if yy == y else 0.0 for _, yy in allowed])
        b_eq.append(q[y])
    res = linprog(np.zeros(len(allowed)), A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    return res.status == 0


def brute_w_infinity(p, q) -> int:
    for w in range(max(len(p), len(q)) + 1):
        if coupling_exists(p, q, w):
            return w
    raise AssertionError("unreachable")


def quantile_brute(p, q):
    """(d_min, d_max) by evaluating both quantile functions at the midpoint of every level interval."""
    p = [Fraction(x) for x in np.asarray(p).tolist()]
    q = [Fraction(x) for x in np.asarray(q).tolist()]
    p = [x / sum(p) for x in p]
    q = [x / sum(q) for x in q]
    cp, cq = list(accumulate(p)), list(accumulate(q))
    levels = sorted(set(cp) | set(cq) | {Fraction(0)})
    gaps = []
    for lo, hi in zip(levels, levels[1:]):
        t = (lo + hi) / 2
        qp = next(i for i, c in enumerate(cp) if c >= t)
        qq = next(i for i, c in enumerate(cq) if c >= t)
        gaps.append(qq - qp)
    return min(gaps), max(gaps)


def random_vector(rng, k, integer):
    v = rng.integers(0, 4, size=k)
    v[rng.integers(0, k)] += 1
    if integer:
        return v
    return v / v.sum()


@pytest.mark.parametrize("seed", range(60))
def test_against_linear_programming_and_quantiles(seed):
    rng = np.random.default_rng(seed)
    p = random_vector(rng, int(rng.integers(1, 6)), integer=bool(seed % 2))
    q = random_vector(rng, int(rng.integers(1, 6)), integer=bool(seed % 3 == 0))
    pf = np.asarray(p, dtype=float) / np.sum(p)
    qf = np.asarray(q, dtype=float) / np.sum(q)
    w = w_infinity(p, q)
    assert w == brute_w_infinity(pf, qf)
    assert tuple(quantile_gap_range(p, q)) == quantile_brute(p, q)
    # symmetric, non-negative, at least W1, zero iff equal
    assert w_infinity(q, p) == w
    values_p, values_q = np.arange(pf.size), np.arange(qf.size)
    assert w >= wasserstein_distance(values_p, values_q, pf, qf) - 1e-12
    k = max(pf.size, qf.size)
    same = np.allclose(np.pad(pf, (0, k - pf.size)), np.pad(qf, (0, k - qf.size)))
    assert (w == 0) == same


def test_known_cases_and_ties():
    assert w_infinity([1.0], [1.0]) == 0
    assert w_infinity([1.0], [0.0, 0.0, 1.0]) == 2
    assert w_infinity([0.5, 0.5], [0.5, 0.0, 0.5]) == 1
    # exact tie at level 1/2: quantile functions 0|1 and 0|2
    assert quantile_gap_range([0.5, 0.5], [0.5, 0.0, 0.5]) == (0, 1)
    # a vanishing mass far away still counts (W∞ is a sup, not an average)
    assert w_infinity([1 - 1e-12, 0, 0, 0, 1e-12], [1.0]) == 4
    # integer counts are normalised exactly: 1/3 vs 1/3 tie
    assert w_infinity([1, 2], [2, 4]) == 0
    assert w_infinity([1, 0, 2], [2, 0, 4]) == 0


def test_validation():
    with pytest.raises(ValueError, match="sum to 1"):
        w_infinity([0.5, 0.4], [1.0])
    with pytest.raises(ValueError, match="negative"):
        w_infinity([2, -1], [1])
    with pytest.raises(ValueError, match="no mass"):
        w_infinity([0, 0], [1])
    with pytest.raises(ValueError, match="one-dimensional"):
        w_infinity([[1.0]], [1.0])
    with pytest.raises(ValueError, match="empty"):
        w_infinity([], [1.0])
    with pytest.raises(TypeError, match="numbers"):
        w_infinity(["a"], [1.0])
    with pytest.raises(ValueError, match="NaN"):
        w_infinity([float("nan")], [1.0])


def exact_binomial_gaps(n, p0, p1):
    p0, p1 = Fraction(p0), Fraction(p1)
    a = [comb(n, k) * p0**k * (1 - p0) ** (n - k) for k in range(n + 1)]
    b = [Fraction(0)] + [comb(n, k) * p1**k * (1 - p1) ** (n - k) for k in range(n + 1)]
    ca, cb = list(accumulate(a)), list(accumulate(b))

    def q(c, t):
        return next(i for i, x in enumerate(c) if x >= t)

    d_max = max(q(cb, ca[x]) - x for x in range(len(a)) if a[x] > 0)
    d_min = -max(q(ca, cb[y]) - y for y in range(len(b)) if b[y] > 0)
    return d_min, d_max


@pytest.mark.parametrize(
    "n,p0,p1",
    [(0, 0.1, 0.2), (1, 0.5, 0.5), (120, 0.001, 0.2), (110, 0.3, 0.002), (5, 0.0, 1.0), (7, 1.0, 0.0), (12, 0.01, 0.3), (20, 0.3, 0.01), (30, 0.25, 0.25), (40, 0.002, 0.08)]
    + [(n, p0, p1) for n, p0, p1 in itertools.product((3, 17), (0.05, 0.6), (0.1, 0.9))],
)
def test_binomial_gaps_exact_including_tails(n, p0, p1):
    assert tuple(binomial_gap_range(n, p0, p1)) == exact_binomial_gaps(n, p0, p1)


def exact_binomial_gaps_bisect(n, p0, p1):
    """As :func:`exact_binomial_gaps` (exact rationals), with quantiles found by bisection so that
    large ``n`` stays fast."""
    from bisect import bisect_left

    p0, p1 = Fraction(p0), Fraction(p1)
    a = [comb(n, k) * p0**k * (1 - p0) ** (n - k) for k in range(n + 1)]
    b = [Fraction(0)] + [comb(n, k) * p1**k * (1 - p1) ** (n - k) for k in range(n + 1)]
    ca, cb = list(accumulate(a)), list(accumulate(b))
    d_max = max(bisect_left(cb, ca[x]) - x for x in range(len(a)) if a[x] > 0)
    d_min = -max(bisect_left(ca, cb[y]) - y for y in range(len(b)) if b[y] > 0)
    return d_min, d_max


def exact_binomial_gaps_integers(n, p0, p1):
    """As :func:`exact_binomial_gaps_bisect`, exactly, with integers only: ``p = m / d`` (a float is
    a dyadic rational), every cumulative mass of law 0 carries the denominator ``d0**n`` and of law
    1 ``d1**n``, so both are brought to ``(d0 d1)**n`` and compared as integers, without the
    gcd of every Fraction operation (35 s to under a second at n = 1000)."""
    from bisect import bisect_left

    (m0, d0), (m1, d1) = Fraction(p0).as_integer_ratio(), Fraction(p1).as_integer_ratio()
    a = [comb(n, k) * m0**k * (d0 - m0) ** (n - k) for k in range(n + 1)]
    b = [0] + [comb(n, k) * m1**k * (d1 - m1) ** (n - k) for k in range(n + 1)]
    s0, s1 = d1**n, d0**n  # a[k] / d0**n = a[k] * s0 / (d0 d1)**n
    ca, cb = [x * s0 for x in accumulate(a)], [y * s1 for y in accumulate(b)]
    d_max = max(bisect_left(cb, ca[x]) - x for x in range(len(a)) if a[x] > 0)
    d_min = -max(bisect_left(ca, cb[y]) - y for y in range(len(b)) if b[y] > 0)
    return d_min, d_max


@pytest.mark.parametrize("n,p0,p1", [(1, 0.5, 0.5), (7, 0.1, 0.9), (40, 0.02, 0.3), (60, 0.3, 0.01), (90, 0.002, 0.08), (120, 0.0209, 0.3246)])
def test_integer_reference_equals_the_fraction_reference(n, p0, p1):
    """The integer reference below is the Fraction one, on sizes where Fractions are quick."""
    assert exact_binomial_gaps_integers(n, p0, p1) == exact_binomial_gaps_bisect(n, p0, p1) == tuple(binomial_gap_range(n, p0, p1))


@pytest.mark.parametrize(
    "n,p0,p1",
    [
        (1000, 0.02, 0.3),  # the case that regressed (20 s with the Fraction reference)
        (700, 0.002, 0.08),
        pytest.param(1500, 0.0209, 0.3246, marks=pytest.mark.slow),  # 73 s with the Fraction reference
        pytest.param(900, 0.3, 0.01, marks=pytest.mark.slow),
    ],
)
def test_binomial_gaps_exact_for_large_neighbourhoods(n, p0, p1):
    """Large neighbourhoods decide W; an earlier version under-estimated W there (550 for 551 at
    n = 1000), which would have under-noised the release."""
    assert tuple(binomial_gap_range(n, p0, p1)) == exact_binomial_gaps_integers(n, p0, p1)


# seeds 0–9 by default, 10–39 in the thorough tier
@pytest.mark.parametrize("seed", [s if s < 10 else pytest.param(s, marks=pytest.mark.thorough) for s in range(40)])
def test_int64_count_path_equals_exact_path(seed):
    """Integer count vectors take an int64 path; it must equal the Python-integer path (object
    arrays) and the midpoint brute force, including near-overflow totals and long zero runs."""
    from opendp_graph.pufferfish.wasserstein import _int64_gap_range

    rng = np.random.default_rng(seed)
    for _ in range(200):
        k0, k1 = rng.integers(1, 40, size=2)
        scale = int(rng.choice([2, 5, 1000, 10**6]))
        a, b = rng.integers(0, scale, size=k0), rng.integers(0, scale, size=k1)
        a[rng.random(k0) < 0.5] = 0  # gaps in the support
        a[rng.integers(0, k0)] += 1
        b[rng.integers(0, k1)] += 1
        fast = _int64_gap_range(a, b)
        assert fast is not None
        exact = quantile_gap_range(a.astype(object), b.astype(object))
        assert tuple(fast) == tuple(exact) == tuple(quantile_gap_range(a, b))
        if k0 + k1 < 16:
            assert tuple(fast) == quantile_brute(a, b)
    # totals whose cross products would overflow int64 take the exact path, with the same answer
    big, other = np.array([2**40, 1, 2**40], dtype=np.int64), np.array([2**30, 0, 2**30 + 1], dtype=np.int64)
    assert _int64_gap_range(big, other) is None
    assert tuple(quantile_gap_range(big, other)) == quantile_brute(big.astype(object), other.astype(object))
    assert _int64_gap_range(big, np.array([1, 1])) is not None  # 2**41 · 2 fits
    assert tuple(quantile_gap_range(big, np.array([1, 1]))) == quantile_brute(big.astype(object), [1, 1])


def _every_size(model):
    """``(d_min, d_max)`` of a Binomial model's law pair over every size, none skipped."""
    (p0lo, p0hi), (p1lo, p1hi) = model.p0_range, model.p1_range
    gaps = [(binomial_gap_range(n, p0hi, p1lo).d_min, binomial_gap_range(n, p0lo, p1hi).d_max) for n in model.neighbour_counts.tolist()]
    return min(g[0] for g in gaps), max(g[1] for g in gaps), dict(zip(model.neighbour_counts.tolist(), gaps))


# seeds 0–9 by default, 10–39 in the thorough tier
@pytest.mark.parametrize("seed", [s if s < 10 else pytest.param(s, marks=pytest.mark.thorough) for s in range(40)])
def test_binomial_w_skips_only_sizes_inside_the_extremes(seed):
    """The Binomial W skips a size n' when its gaps are bounded by those of a larger computed size
    (``d_max(n') <= d_max(n) + n − n'``, ``d_min(n') >= d_min(n) − (n − n')``) or by ``[low, n' + 1]``:
    the result equals the maximum over every size, and every skipped size's exact gaps lie inside
    the reported extremes. Random probabilities either way round, near-equal, at 0 and 1, and
    intervals as a DP fit has them."""
    from opendp_graph.pufferfish import BinomialModel

    rng = np.random.default_rng(seed)
    p = rng.choice([0.0, 1e-4, 0.01, 0.1, 0.3, 0.5, 0.9, 0.999, 1.0], size=2) if seed % 3 == 0 else rng.random(2)
    if seed % 5 == 0:
        p[1] = p[0] + 1e-3 * rng.random()  # nearly equal: little to prune
    p = np.clip(p, 0.0, 1.0)
    sizes = np.unique(np.concatenate([rng.integers(0, 300, size=int(rng.integers(1, 60))), rng.integers(0, 3000, size=3)]))
    if seed % 4 == 1:  # a DP fit's intervals: d_max from (p0 low, p1 high), d_min from the others
        model = BinomialModel((float(p[0]) * 0.8, float(p[0])), (float(p[1]), min(1.0, float(p[1]) * 1.2 + 0.01)), sizes)
    else:
        model = BinomialModel(float(p[0]), float(p[1]), sizes)
    report = model.wasserstein()
    d_min, d_max, per_size = _every_size(model)
    assert (report.d_min, report.d_max) == (d_min, d_max)
    assert report.W == max(d_max, -d_min)
    for row in report.table:
        lo, hi = per_size[row["neighbours"]]
        if row["skipped"]:
            assert d_min <= lo and hi <= d_max, row
        else:
            assert (row["d_min"], row["d_max"]) == (lo, hi), row


def test_binomial_w_computes_few_sizes_when_the_laws_differ():
    """With p1 − p0 = 0.2 and 3,000 sizes the gaps grow with n, so the bounds from larger sizes
    skip almost all the smaller ones (the 10 M-edge benchmark's W went from 17 s to well under 1)."""
    from opendp_graph.pufferfish import BinomialModel

    model = BinomialModel(0.1, 0.3, np.arange(3000))
    rows = model.wasserstein().table
    computed = [row["neighbours"] for row in rows if not row["skipped"]]
    assert 1 <= len(computed) <= 100
    assert max(computed) == 2999
