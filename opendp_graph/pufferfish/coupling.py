"""The (ε, δ) relaxation of the Wasserstein mechanism: δ-couplings of two laws on the integers.

**Why.** Song, Wang & Chaudhuri's Wasserstein mechanism (Theorem 3.2) calibrates the noise to
``W∞(f | s⁰, f | s¹)``: one coupling of the two laws under which ``|Y − X| ≤ W`` *surely*. For
laws with full support (the Binomial model) ``W∞`` is decided by tails far below any level that
matters (``1 − 10⁻⁴⁰⁰`` on Enron). The relaxation: for a secret pair, a coupling ``γ`` of
``X ~ μ = Pr(f | s⁰)`` and ``Y ~ ν = Pr(f | s¹)`` under which ``Y − X`` lies in a window ``I``
except with probability ``≤ δ`` gives ``(ε, δ_M + δ)``-Pufferfish privacy to a mechanism ``M``
that is ``(ε, δ_M)`` for the pairs whose difference lies in ``I``: for every output set ``S``,

    ``Pr[M ∈ S | s⁰] = Σ γ(x, y) Pr[M(x) ∈ S]
    ≤ Σ_{y − x ∈ I} γ(x, y) (e^ε Pr[M(y) ∈ S] + δ_M) + γ(Y − X ∉ I)
    ≤ e^ε Pr[M ∈ S | s¹] + δ_M + δ``,

and symmetrically (the same coupling read backwards). δ is a probability under the attacker's
prior, not noise randomness; each secret pair gets its own coupling and its own δ.

**What this module computes, exactly.** For two mass vectors ``μ, ν`` on ``0..K`` (index =
value; integer counts, normalised exactly, or floats read as the exact binary fractions they are,
as in :mod:`.wasserstein`):

* :func:`min_failure` — the least probability, over all couplings, that ``Y − X ∉ [lo, hi]``
  (a maximum flow on the line, solved by a greedy sweep; proof in its docstring);
* :func:`w_delta` — ``W_δ``: the least ``w ≥ 0`` with ``min_failure(μ, ν, −w, w) ≤ δ``;
* :func:`flip_delta` — ``F_δ``: the least ``F ≥ 1`` with ``min_failure(μ, ν, 2 − F, F) ≤ δ``
  (window ``1 ± (F − 1)``: one flip is the central edge, ``|d − 1|`` neighbours flip);
* :func:`delta_bounds` — both, and a window ``[d_min, d_max]`` certified at δ;
* :func:`binomial_delta_bounds` — the same for ``Binomial(n, p0)`` against ``1 + Binomial(n,
  p1)`` (or boxes of ``p``), with a *conservative* fixed-point computation: never below the true
  values;
* :func:`quantile_failure` — the failure of the quantile (monotone) coupling, an upper bound of
  :func:`min_failure` (optimal at δ = 0, not above: FIELD-NOTES' first counterexample).

At ``δ = 0`` the results are exactly ``W∞`` and the flip bound of the quantile gaps
(:func:`.wasserstein.quantile_gap_range`; proof in :func:`w_delta`).

No noise is generated here: everything is a deterministic computation on the model's laws.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from numbers import Integral, Real
from typing import Any, NamedTuple

from ..core._checks import float_at_most
from .wasserstein import QuantileGaps, _exact_masses, binomial_gap_range, quantile_gap_range

__all__ = [
    "DeltaBounds",
    "check_delta",
    "min_failure",
    "optimal_coupling",
    "quantile_failure",
    "w_delta",
    "flip_delta",
    "delta_bounds",
    "binomial_delta_bounds",
    "binomial_min_failure_bound",
]


# --------------------------------------------------------------------------- arguments
def check_delta(delta: Any) -> float:
    """``delta`` as a float in ``[0, 1)``; ``TypeError`` for a non-number (or a bool),
    ``ValueError`` for NaN or a value outside ``[0, 1)``.

    A number that is not exactly a float (a ``Fraction``, say) is rounded *down* to one, so the
    δ actually used never exceeds the one asked for.

    >>> check_delta(1e-6)
    1e-06
    >>> check_delta(0)
    0.0
    """
    if isinstance(delta, bool) or not isinstance(delta, Real):
        raise TypeError(f"delta must be a number in [0, 1) (a probability), got {type(delta).__name__} {delta!r}")
    if delta < 0 or not delta < 1:  # not 0 <= delta < 1: exact, before any rounding (NaN fails); a tiny negative Fraction too
        raise ValueError(f"delta must be a probability in [0, 1), got {delta!r}")
    return float_at_most(delta) + 0.0  # -0.0 -> 0.0


def _check_window(lo: Any, hi: Any) -> tuple[int, int]:
    for name, v in (("lo", lo), ("hi", hi)):
        if isinstance(v, bool) or not isinstance(v, Integral):
            raise TypeError(f"{name} must be an integer (the laws live on the integers), got {v!r}")
    lo, hi = int(lo), int(hi)
    if lo > hi:
        raise ValueError(f"the window [lo, hi] must have lo <= hi, got [{lo}, {hi}]")
    return lo, hi


def _exact_pair(mu: Any, nu: Any) -> tuple[list[int], list[int], int]:
    """Both laws as integer masses with the same total ``T`` (exact normalisation): ``μ(x) =
    a[x] / T`` and ``ν(y) = b[y] / T`` exactly."""
    a, b = _exact_masses(mu, "mu"), _exact_masses(nu, "nu")

    def integral(masses: list) -> tuple[list[int], int]:
        den = 1
        for m in masses:
            if isinstance(m, Fraction):
                den = den * m.denominator // math.gcd(den, m.denominator)
        ints = [int(m * den) for m in masses]
        return ints, sum(ints)

    ai, ta = integral(a)
    bi, tb = integral(b)
    return [m * tb for m in ai], [m * ta for m in bi], ta * tb


def _units_at_most(units: int, total: int, delta: float) -> bool:
    """``units / total ≤ delta``, exactly."""
    num, den = Fraction(delta).as_integer_ratio()
    return units * den <= num * total


# --------------------------------------------------------------------------- the greedy flow
def _greedy(a: list[int], sa: int, b: list[int], sb: int, lo: int, hi: int, record: list | None = None) -> int:
    """Maximum mass of a sub-coupling of supplies ``a`` (``a[i]`` at ``x = sa + i``) and capacities
    ``b`` (``b[j]`` at ``y = sb + j``) supported on ``{(x, y): lo ≤ y − x ≤ hi}``.

    The sweep: each ``x`` in increasing order sends its mass to the smallest admissible ``y``
    with remaining capacity, then the next, ... Optimal — see :func:`min_failure` for the proof.
    ``j`` never moves back: the ``y`` below it are exhausted or below ``x + lo`` for the current
    ``x``, hence for every later one; so the sweep is ``O(len(a) + len(b))``.
    """
    cap = list(b)
    nb = len(cap)
    j = 0
    flow = 0
    for i, s in enumerate(a):
        if not s:
            continue
        x = sa + i
        j = max(j, x + lo - sb)
        top = min(x + hi - sb, nb - 1)
        while j <= top:
            c = cap[j]
            if c > s:
                cap[j] = c - s
                flow += s
                if record is not None:
                    record.append((x, sb + j, s))
                break
            flow += c
            s -= c
            if c and record is not None:
                record.append((x, sb + j, c))
            cap[j] = 0
            j += 1
            if not s:
                break
    return flow


def min_failure(mu: Any, nu: Any, lo: int, hi: int) -> Fraction:
    """The least probability, over all couplings of ``X ~ μ`` and ``Y ~ ν``, that ``Y − X ∉ [lo,
    hi]``: exact (a ``Fraction``).

    **Reduction to a flow.** A sub-coupling (a measure ``γ ≥ 0`` on pairs with marginals ``≤ μ,
    ν``) supported on the admissible pairs ``A = {(x, y): lo ≤ y − x ≤ hi}`` with mass ``m``
    extends to a coupling failing with probability ``1 − m`` (couple the two leftovers, both of
    mass ``1 − m``, arbitrarily), and every coupling restricted to ``A`` is such a sub-coupling.
    So the answer is ``1 − m*``, ``m*`` the maximum flow from supplies ``μ(x)`` to capacities
    ``ν(y)`` through ``A``. Each ``x`` sees the interval ``[x + lo, x + hi]`` of ``y``, whose
    ends increase with ``x``.

    **The greedy is optimal** (exchange argument). Process the pairs in the order ``x``
    ascending, then ``y`` ascending; the greedy sets ``g(x, y) = min(r, c)``, the remaining
    supply of ``x`` and capacity of ``y`` at that point. Induction: some optimal ``f`` agrees
    with ``g`` on every pair before ``(x, y)``. Then ``x`` and ``y`` have the same remaining
    ``r, c`` under ``f`` (the pairs using them earlier are ``(x, y' < y)`` and ``(x' < x, y)``),
    so ``f(x, y) ≤ min(r, c) = g(x, y)``. If ``f(x, y) < g(x, y)``, ``x`` has mass left under
    ``f`` that goes to some ``y'' > y`` or nowhere, and ``y`` has capacity that some ``x'' > x``
    uses or nobody does. Move ``η > 0`` (the least of the amounts involved):

    * ``(x, y'')`` and ``(x'', y)`` → ``(x, y)`` and ``(x'', y'')``. The new pair is admissible:
      ``y'' ≤ x + hi ≤ x'' + hi`` and ``y'' > y ≥ x'' + lo``. The flow's value is unchanged;
    * ``(x, y'')`` → ``(x, y)``, or ``(x'', y)`` → ``(x, y)`` (the other side was free): unchanged;
    * both free: add ``η`` on ``(x, y)``, a larger flow — impossible, ``f`` is optimal.

    Every pair touched comes after ``(x, y)`` in the order, so the agreement before it stays;
    each move zeroes an entry ``(x, y'')`` or ``(x'', y)`` (never refilled) or closes the gap,
    so finitely many moves give an optimal flow agreeing with ``g`` up to ``(x, y)`` included.

    Exactness: masses are integers with a common total (counts are cross-multiplied, floats
    read as exact binary fractions), the sweep adds and subtracts integers only.

    >>> min_failure([0.5, 0.5], [0.5, 0.5], 0, 0)
    Fraction(0, 1)
    >>> min_failure([1, 0, 0, 1], [0, 1, 1, 0], -1, 1)   # counts, normalised exactly
    Fraction(0, 1)
    >>> min_failure([1, 0, 0, 1], [0, 1, 1, 0], 0, 1)    # the mass at 3 has no admissible partner
    Fraction(1, 2)
    """
    lo, hi = _check_window(lo, hi)
    a, b, total = _exact_pair(mu, nu)
    return Fraction(total - _greedy(a, 0, b, 0, lo, hi), total)


def optimal_coupling(mu: Any, nu: Any, lo: int, hi: int) -> dict[tuple[int, int], Fraction]:
    """The greedy sub-coupling of :func:`min_failure`: ``{(x, y): mass}``, exact, supported on
    ``lo ≤ y − x ≤ hi``, with marginals at most ``μ`` and ``ν`` and total mass ``1 −
    min_failure(μ, ν, lo, hi)`` (the maximum; proof in :func:`min_failure`). Completing it with
    any coupling of the two leftovers gives an optimal coupling. A certificate, for tests.

    >>> optimal_coupling([0.5, 0.5], [0.0, 0.5, 0.5], 0, 1)
    {(0, 1): Fraction(1, 2), (1, 2): Fraction(1, 2)}
    """
    lo, hi = _check_window(lo, hi)
    a, b, total = _exact_pair(mu, nu)
    pairs: list = []
    _greedy(a, 0, b, 0, lo, hi, record=pairs)
    out: dict[tuple[int, int], Fraction] = {}
    for x, y, m in pairs:
        out[(x, y)] = out.get((x, y), Fraction(0)) + Fraction(m, total)
    return out


# --------------------------------------------------------------------------- quantile coupling
def _quantile_segments(masses: list[int], start: int, total: int, support: tuple[int, int], upper: bool) -> list[tuple[int, int]]:
    """A bound of the quantile function ``Q(v) = min{x : T·F(x) ≥ v}`` on levels ``v ∈ (0, T]``
    as segments ``(end, value)`` (value on ``(previous end, end]``), from *lower bounds* ``masses``
    of the true masses (sum ``≤ T``; with exact masses, sum ``= T``, both bounds are ``Q``).

    ``upper``: ``Q ≤ min{x : Σ_{k ≤ x} L(k) ≥ v}`` (the true CDF is at least that partial sum),
    and ``Q ≤ support[1]`` for the levels above ``ΣL``. Else ``Q ≥ min{x : T − Σ_{k > x} L(k) ≥
    v}`` (the true CDF is at most that), and ``Q ≥ support[0]`` for the levels up to ``T − ΣL``.
    """
    seg: list[tuple[int, int]] = []
    missing = total - sum(masses)
    cum = 0 if upper else missing
    if not upper and missing > 0:
        seg.append((missing, support[0]))
    for i, m in enumerate(masses):
        if m:
            cum += m
            seg.append((cum, start + i))
    if upper and cum < total:
        seg.append((total, support[1]))
    return seg


def _quantile_excess(upper_b: list[tuple[int, int]], lower_a: list[tuple[int, int]], t: int) -> int:
    """Measure (in level units) of ``{v : Qb(v) − Qa(v) > t}`` for two segment lists covering
    the same ``(0, T]`` (a merge of the breakpoints; both functions are constant in between)."""
    i = j = 0
    pos = 0
    out = 0
    while i < len(upper_b) and j < len(lower_a):
        (eb, vb), (ea, va) = upper_b[i], lower_a[j]
        end = min(eb, ea)
        if vb - va > t:
            out += end - pos
        pos = end
        if eb == end:
            i += 1
        if ea == end:
            j += 1
    return out


def quantile_failure(mu: Any, nu: Any, lo: int, hi: int) -> Fraction:
    """The probability that ``Y − X ∉ [lo, hi]`` under the quantile coupling ``(Q_μ(U),
    Q_ν(U))``, ``U`` uniform: exact. An upper bound of :func:`min_failure` (it is one coupling),
    equal to it at failure 0 — a coupling inside ``[lo, hi]`` exists iff ``X + lo ≤_st Y ≤_st
    X + hi``, and then the quantile coupling is one — but not in general: with ``X ∈ {100, 200}``
    w.p. ``(1 − δ, δ)`` and ``Y ∈ {0, 100}`` w.p. ``(δ, 1 − δ)`` it fails with ``2δ`` at ``w = 0``,
    the best coupling with ``δ``.

    Computed as the measure of the levels where ``Q_ν − Q_μ`` leaves the window (both quantile
    functions are step functions with breakpoints at the exact CDF values).

    >>> quantile_failure([0, 9, 1], [1, 9], 0, 0)   # counts: X ∈ {1, 2}, Y ∈ {0, 1}
    Fraction(1, 5)
    >>> min_failure([0, 9, 1], [1, 9], 0, 0)
    Fraction(1, 10)
    """
    lo, hi = _check_window(lo, hi)
    a, b, total = _exact_pair(mu, nu)
    qa = _quantile_segments(a, 0, total, (0, len(a) - 1), upper=False)
    qb = _quantile_segments(b, 0, total, (0, len(b) - 1), upper=True)
    above = _quantile_excess(qb, qa, hi)  # Q_ν − Q_μ > hi
    qa_up = _quantile_segments(a, 0, total, (0, len(a) - 1), upper=True)
    qb_low = _quantile_segments(b, 0, total, (0, len(b) - 1), upper=False)
    below = _quantile_excess(qa_up, qb_low, -lo)  # Q_μ − Q_ν > −lo, i.e. Q_ν − Q_μ < lo
    return Fraction(above + below, total)


# --------------------------------------------------------------------------- W_δ and F_δ
class DeltaBounds(NamedTuple):
    """What :func:`delta_bounds` / :func:`binomial_delta_bounds` return for one secret pair.

    ``W`` (``W_δ``), the window ``[d_min, d_max]``, ``flip_bound`` (``F_δ``), at ``delta``; and
    ``gaps``: the δ = 0 quantile range ``(d_min, d_max)``, from which ``W∞`` and the δ = 0 flip
    bound follow.
    """

    W: int
    d_min: int
    d_max: int
    flip_bound: int
    delta: float
    gaps: QuantileGaps

    @property
    def w_infinity(self) -> int:
        return self.gaps.w_infinity


def _flip_of(d_min: int, d_max: int) -> int:
    return 1 + max(abs(d_max - 1), abs(d_min - 1))


def _least(ok: Callable[[int], bool], low: int, high: int) -> int:
    """The least ``k`` in ``[low, high]`` with ``ok(k)``, for ``ok`` monotone (false then true)
    and ``ok(high)`` true (not evaluated: the caller knows it)."""
    while low < high:
        mid = (low + high) // 2
        if ok(mid):
            high = mid
        else:
            low = mid + 1
    return low


def _bounds(ok: Callable[[int, int], bool], gaps: QuantileGaps, delta: float, trust_gaps: bool) -> DeltaBounds:
    """``W_δ``, ``F_δ`` and the window from a failure test ``ok(lo, hi)`` — "some coupling
    leaves ``[lo, hi]`` with probability ≤ δ" — that is monotone under window inclusion. A window
    containing the δ = 0 range ``gaps`` has failure 0 (the quantile coupling never leaves it):
    with ``trust_gaps`` such windows pass without calling ``ok`` (needed where ``ok`` is a
    conservative bound that cannot certify 0).

    * ``W = least w ∈ [0, W∞]`` with ``ok(−w, w)``; ``F = least F ∈ [1, F∞]`` with ``ok(2 − F,
      F)`` (binary searches, valid by monotonicity; ``[−W∞, W∞]`` and ``[2 − F∞, F∞]`` contain
      ``gaps``, so the searches end);
    * the window: ``[max(−W, d⁰_min), min(W, d⁰_max)]`` — ``[−W, W]`` cut by the δ = 0 range,
      which keeps the sign information (e.g. ``d ≥ 1`` when ``p0 ≤ p1``) — if ``ok`` certifies
      it, else ``[−W, W]``. Either way ``max(d_max, −d_min) = W``: the window lies in ``[−W,
      W]``, and in no ``[−(W − 1), W − 1]`` since ``W`` is least.
    """
    d0_min, d0_max = gaps

    def ok_window(lo: int, hi: int) -> bool:
        return (trust_gaps and lo <= d0_min and d0_max <= hi) or ok(lo, hi)

    w = _least(lambda k: ok_window(-k, k), 0, gaps.w_infinity)
    f = _least(lambda k: ok_window(2 - k, k), 1, _flip_of(d0_min, d0_max))
    lo, hi = max(-w, d0_min), min(w, d0_max)
    if lo > hi or not ok_window(lo, hi):
        lo, hi = -w, w
    return DeltaBounds(w, lo, hi, f, delta, gaps)


def delta_bounds(mu: Any, nu: Any, delta: float) -> DeltaBounds:
    """``W_δ``, ``F_δ`` and a window ``[d_min, d_max]`` at δ for one secret pair (``μ = Pr(f |
    s⁰)``, ``ν = Pr(f | s¹)``), exact.

    Guarantees (each by :func:`min_failure`, exact): some coupling has ``|Y − X| ≤ W`` except
    with probability ``≤ δ`` and none does for ``W − 1``; some coupling has ``|Y − X − 1| ≤ F − 1``
    except ``≤ δ``, none for ``F − 1``; some coupling has ``Y − X ∈ [d_min, d_max]`` except ``≤
    δ``, with ``max(d_max, −d_min) = W`` (the window rule is in :func:`_bounds`). At ``δ = 0``:
    ``W∞``, the flip bound and the quantile range ``(d_min, d_max)`` of
    :func:`.wasserstein.quantile_gap_range` (proof in :func:`w_delta`). All three are
    non-increasing in δ (a coupling good at δ is good at every larger δ).

    >>> delta_bounds([0.9, 0.0, 0.0, 0.1], [1.0], 0.0)[:4]
    (3, -3, 0, 5)
    >>> delta_bounds([0.9, 0.0, 0.0, 0.1], [1.0], 0.1)[:4]
    (0, 0, 0, 2)
    """
    delta = check_delta(delta)
    a, b, total = _exact_pair(mu, nu)
    gaps = quantile_gap_range(mu, nu)

    def ok(lo: int, hi: int) -> bool:
        return _units_at_most(total - _greedy(a, 0, b, 0, lo, hi), total, delta)

    return _bounds(ok, gaps, delta, trust_gaps=False)


def w_delta(mu: Any, nu: Any, delta: float) -> int:
    """``W_δ(μ, ν)``: the least ``w ≥ 0`` such that some coupling has ``|Y − X| ≤ w`` except with
    probability ``≤ δ`` (Strassen: the least ``w`` at which ``sup_A μ(A) − ν(A^w) ≤ δ``).

    Exact, by binary search on :func:`min_failure` (non-increasing in ``w``: a coupling good for
    ``[−w, w]`` is good for every larger window) over ``[0, W∞]``. **At δ = 0 it is ``W∞``**:
    a coupling with ``|Y − X| ≤ w`` surely exists iff ``W∞ ≤ w`` (definition of ``W∞`` as an
    infimum over couplings, attained on finite supports — e.g. by the quantile coupling), i.e.
    ``min_failure(μ, ν, −w, w) = 0`` iff ``w ≥ W∞``.

    >>> w_delta([0.9, 0.0, 0.0, 0.1], [1.0], 0.0), w_delta([0.9, 0.0, 0.0, 0.1], [1.0], 0.1)
    (3, 0)
    """
    return delta_bounds(mu, nu, delta).W


def flip_delta(mu: Any, nu: Any, delta: float) -> int:
    """``F_δ(μ, ν)``: the least ``F ≥ 1`` such that some coupling has ``Y − X ∈ [2 − F, F]``
    (``|d − 1| ≤ F − 1``: the central edge plus ``|d − 1|`` neighbours flip) except with
    probability ``≤ δ``. Exact, binary search on :func:`min_failure` as in :func:`w_delta`.

    **At δ = 0 it is the flip bound** ``1 + max(|d_max − 1|, |d_min − 1|)`` of the quantile
    range: a coupling inside ``[2 − F, F]`` exists iff ``X + 2 − F ≤_st Y ≤_st X + F`` iff the
    quantile coupling is inside (it realises both stochastic orders at once) iff ``d_min ≥ 2 −
    F`` and ``d_max ≤ F``; the least such ``F ≥ 1`` is ``max(d_max, 2 − d_min, 1)``, which equals
    the flip bound (check the three cases ``d_min ≤ 1 ≤ d_max``, ``d_max < 1``, ``d_min > 1``).
    Not a function of ``W_δ``: at δ > 0 the two windows are met by different couplings.

    >>> flip_delta([1.0], [0.0, 1.0], 0.0), flip_delta([1.0], [0.0, 0.0, 0.0, 0.0, 1.0], 0.0)
    (1, 4)
    """
    return delta_bounds(mu, nu, delta).flip_bound


# --------------------------------------------------------------------------- Binomial laws
def _precision(n: int, delta: float) -> int:
    """Bits ``P`` of the fixed-point masses: the rounding loss (``≤ 8(n + 2)²`` units of
    ``2^−P``, :func:`_binomial_lower`) stays below ``δ · 2^−60``."""
    need = 0 if delta <= 0.0 else max(0, math.ceil(-math.log2(delta)))
    return 64 + need + 2 * (n + 2).bit_length() + 4


def _binomial_lower(n: int, p: float, P: int, shift: int = 0) -> tuple[int, list[int]]:
    """Integer lower bounds ``L(k) ≤ 2^P · Pr(Binomial(n, p) = k)`` as ``(start, masses)``:
    ``masses[i]`` bounds the mass of the value ``start + i`` of ``shift + Binomial(n, p)``;
    ``L = 0`` outside the returned range.

    **Sound.** ``p`` is a float, so exactly ``a / D`` with ``D = 2^e``. At a mode ``m =
    ⌊(n + 1)p⌋``, ``2^P·pmf(m) = C(n, m) a^m (D − a)^(n − m) · 2^P / D^n`` is an exact rational
    (big integers) and ``L(m)`` its floor. Then ``L(k + 1) = ⌊L(k)·(n − k)a / ((k + 1)(D − a))⌋``
    upwards and ``L(k − 1) = ⌊L(k)·k(D − a) / ((n − k + 1)a)⌋`` downwards: each is the exact
    ratio ``pmf(k ± 1)/pmf(k)`` applied to a lower bound, then floored, so ``L ≤ 2^P·pmf`` by
    induction. No logarithm or float enters, so no rounding error needs bounding. (Computing
    from the mode outwards, in place of ``logpmf``, is what avoids underflow: masses below
    ``2^−P`` become 0, which is sound — dropping mass only lowers a lower bound.)

    **Tight.** Outwards from the mode every ratio is ``≤ 1``, so the deficit grows by at most one
    unit per step: ``2^P pmf(m ± j) − L(m ± j) ≤ j + 1``. The walk stops at the first ``L = 0``;
    there ``pmf ≤ n + 1`` units and beyond it pmf decreases, so the dropped tail is ``≤ (n + 1)²``
    units per side. In all, ``2^P − ΣL ≤ 4(n + 2)²``.
    """
    a, D = float(p).as_integer_ratio()
    if a == 0:
        return shift, [1 << P]
    if a == D:
        return n + shift, [1 << P]
    e = D.bit_length() - 1
    b = D - a
    m = min(n, (n + 1) * a // D)
    num = math.comb(n, m) * a**m * b ** (n - m)  # 2^(e n) · pmf(m)
    s = e * n - P
    top = num >> s if s >= 0 else num << -s
    up: list[int] = []
    v, k = top, m
    while k < n and v:
        v = v * (n - k) * a // ((k + 1) * b)
        k += 1
        if v:
            up.append(v)
    down: list[int] = []
    v, k = top, m
    while k > 0 and v:
        v = v * k * b // ((n - k + 1) * a)
        k -= 1
        if v:
            down.append(v)
    down.reverse()
    return m - len(down) + shift, down + [top] + up


def _check_binomial_args(p: Any, name: str) -> tuple[float, float]:
    def number(x: Any) -> float:
        if isinstance(x, bool) or not isinstance(x, Real) or not (0.0 <= float(x) <= 1.0):
            raise ValueError(f"{name} must be a probability or an interval (lo, hi) of them, got {p!r}")
        return float(x)

    if isinstance(p, Real) and not isinstance(p, bool):
        v = number(p)
        return v, v
    try:
        lo, hi = p
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a probability or an interval (lo, hi) of them, got {p!r}") from None
    lo, hi = number(lo), number(hi)
    if lo > hi:
        raise ValueError(f"{name} interval must have lo <= hi, got {p!r}")
    return lo, hi


def _binomial_gaps(n: int, p0: tuple[float, float], p1: tuple[float, float]) -> QuantileGaps:
    """The δ = 0 range over the box, as :class:`~.models.BinomialModel` computes it: ``d_max``
    at ``(p0 lo, p1 hi)``, ``d_min`` at ``(p0 hi, p1 lo)`` (quantiles increase with ``p``)."""
    hi = binomial_gap_range(n, p0[0], p1[1])
    lo = hi if (p0[0], p1[1]) == (p0[1], p1[0]) else binomial_gap_range(n, p0[1], p1[0])
    return QuantileGaps(lo.d_min, hi.d_max)


def binomial_min_failure_bound(n: int, p0: Any, p1: Any, lo: int, hi: int, delta: float = 0.0) -> Fraction:
    """An upper bound, exact rational, of the least failure probability of a coupling of
    ``X ~ Binomial(n, p0)`` and ``Y ~ 1 + Binomial(n, p1)`` for the window ``[lo, hi]`` — over
    every ``(p0, p1)`` of the box when they are intervals. ``delta`` only sets the precision
    (:func:`_precision`): the bound exceeds the exact value by less than ``δ·2^−60`` (points).

    * **Point** ``p0, p1``: ``1 − (greedy flow of the lower-bound masses of
      :func:`_binomial_lower`)``. A maximum flow is non-decreasing in every supply and
      capacity, so the flow of lower bounds is at most the exact ``m*``: the bound is ``≥
      1 − m*``; it is below ``1 − m* + 8(n + 2)²·2^−P`` (``m*`` is 1-Lipschitz in each mass).
    * **Box**: for ``(p0, p1)`` in it couple ``X = Q_{p0}(U)``, ``Y = 1 + Q_{p1}(U)``. Binomial
      quantiles increase with ``p``, so ``D_lo(U) ≤ Y − X ≤ D_hi(U)`` with ``D_hi = 1 +
      Q_{p1 hi} − Q_{p0 lo}`` and ``D_lo = 1 + Q_{p1 lo} − Q_{p0 hi}``; the failure is at most
      ``Pr(D_hi > hi) + Pr(D_lo < lo)``, measured with quantile bounds from the lower-bound
      masses (:func:`_quantile_segments`: upper for the term that must be small, lower for the
      other). Sound for every point of the box; not the exact supremum over it (the quantile
      coupling is not optimal at δ > 0).
    """
    lo, hi = _check_window(lo, hi)
    n = _check_n(n)
    p0, p1 = _check_binomial_args(p0, "p0"), _check_binomial_args(p1, "p1")
    P = _precision(n, check_delta(delta))
    units = _binomial_failure_units(n, p0, p1, P)(lo, hi)
    return Fraction(units, 1 << P)


def _check_n(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, Integral) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    return int(n)


def _binomial_failure_units(n: int, p0: tuple[float, float], p1: tuple[float, float], P: int) -> Callable[[int, int], int]:
    """``(lo, hi) ↦`` the failure bound of :func:`binomial_min_failure_bound` in units of
    ``2^−P`` (an integer)."""
    T = 1 << P
    if p0[0] == p0[1] and p1[0] == p1[1]:
        sa, a = _binomial_lower(n, p0[0], P)
        sb, b = _binomial_lower(n, p1[0], P, shift=1)
        return lambda lo, hi: T - _greedy(a, sa, b, sb, lo, hi)
    laws = {}
    for key, p, shift in (("x_lo", p0[0], 0), ("x_hi", p0[1], 0), ("y_lo", p1[0], 1), ("y_hi", p1[1], 1)):
        laws[key] = (_binomial_lower(n, p, P, shift), (shift, n + shift))

    def seg(key: str, upper: bool) -> list[tuple[int, int]]:
        (start, masses), support = laws[key]
        return _quantile_segments(masses, start, T, support, upper)

    y_hi_up, x_lo_low = seg("y_hi", True), seg("x_lo", False)
    x_hi_up, y_lo_low = seg("x_hi", True), seg("y_lo", False)

    def units(lo: int, hi: int) -> int:
        above = _quantile_excess(y_hi_up, x_lo_low, hi)  # D_hi > hi
        below = _quantile_excess(x_hi_up, y_lo_low, -lo)  # D_lo < lo
        return min(T, above + below)

    return units


def binomial_delta_bounds(n: int, p0: Any, p1: Any, delta: float) -> DeltaBounds:
    """:func:`delta_bounds` for ``Binomial(n, p0)`` (given ``s⁰``) against ``1 + Binomial(n,
    p1)`` (given ``s¹``, central edge counted); ``p0``/``p1`` a probability or an interval
    ``(lo, hi)`` (a DP fit), the result then holding for every point of the box.

    **Conservative**: ``W``, ``flip_bound`` and the window are certified by
    :func:`binomial_min_failure_bound`, an upper bound of the exact failure, so ``W ≥`` the true
    ``W_δ`` and ``flip_bound ≥`` the true ``F_δ`` (for a point: the true values, except where the
    exact failure lies within ``δ·2^−60`` above δ), and the window has failure ``≤ δ``. The
    searches start from the δ = 0 range of :func:`.wasserstein.binomial_gap_range` (itself
    conservative, so failure 0 there), and **at δ = 0** return exactly its ``W∞``, flip bound
    and range — what :class:`~.models.BinomialModel` reports today.

    >>> binomial_delta_bounds(164, 0.002, 0.08, 0.0)[:4]    # Enron-like: W∞ set by tails ~ 1e-300
    (81, 1, 81, 81)
    >>> binomial_delta_bounds(164, 0.002, 0.08, 1e-6)[:4]
    (28, 1, 28, 28)
    """
    delta = check_delta(delta)
    n = _check_n(n)
    p0, p1 = _check_binomial_args(p0, "p0"), _check_binomial_args(p1, "p1")
    gaps = _binomial_gaps(n, p0, p1)
    if delta == 0.0:
        return DeltaBounds(gaps.w_infinity, gaps.d_min, gaps.d_max, _flip_of(*gaps), 0.0, gaps)
    P = _precision(n, delta)
    units = _binomial_failure_units(n, p0, p1, P)
    return _bounds(lambda lo, hi: _units_at_most(units(lo, hi), 1 << P, delta), gaps, delta, trust_gaps=True)
