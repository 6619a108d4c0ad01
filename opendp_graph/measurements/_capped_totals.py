"""Person-level totals of a message log where a message has several owners (the log itself:
:mod:`opendp_graph.measurements._message_log`; a Polars table becomes one by
:func:`opendp_graph.polars.message_log`).

A message has a sender and one or more recipients, and belongs to all of them. Bounding what one
person contributes is then not a matter of truncating rows per identifier (OpenDP's
``truncate_per_group`` bounds rows per *one* identifier column): a message kept for its sender
uses up its recipients' allowance too, and any rule that *chooses rows* in a public order can
cascade (keeping one message of a new person drops a message of a correspondent, which frees
room for a message of a third person, and so on: the module test
``test_greedy_truncation_cascades`` builds logs where one added person changes a number of kept
messages that grows with the log). So the bound is not applied by choosing rows. Each total is
replaced by its **capped total** ``Q(x, τ)``: the largest total any *fractional* selection of the
messages reaches when no person holds more than ``τ`` of it. This is the linear program of
Dong, Fang, Yi, Tao & Machanavajjhala (*R2T: Instance-optimal truncation for differentially
private query evaluation with foreign key constraints*, SIGMOD 2022: its LP-based truncation), here with messages as
the join results and people as their owners:

    Q(x, τ) = max Σ_m u_m   subject to   0 ≤ u_m ≤ ψ_m,   Σ_{m ∋ p} u_m ≤ τ for every person p,

where ``ψ_m`` is what message ``m`` adds to the total (1 per message, its number of recipients
per delivery, its number of words). It needs no recipient cap: a message with many recipients
uses one unit of each owner's allowance, whatever their number.

**Neighbours**: :func:`~opendp_graph.polars.person_log_distance` (a person with every message they
took part in, added or removed, or replaced; :mod:`opendp_graph.measurements._message_log` states it).

**Stability.** ``|Q(x, τ) − Q(x', τ)| ≤ τ`` for neighbours under both relations.
*Proof.* Let ``x₀`` be ``x`` without every message of the person ``v`` who differs (for
``"add_remove"`` one of ``x, x'`` is ``x₀``). Every message of ``x₀`` has the same owners in
``x``, so a selection feasible for ``x₀`` is feasible for ``x`` (``v`` owns none of it): ``Q(x)
≥ Q(x₀)``. An optimal selection of ``x`` restricted to ``x₀`` is feasible for ``x₀`` and loses
only the messages of ``v``, whose selected total is at most ``τ`` (``v``'s own constraint):
``Q(x₀) ≥ Q(x) − τ``. So ``Q(x), Q(x') ∈ [Q(x₀), Q(x₀) + τ]``. ``d`` people: a path through
``d`` neighbours, ``τ·d``. Tight: a person alone with ``τ`` messages.

**Bias.** ``Q(x, τ) ≤ Q(x)`` (the total with all messages), with equality when every person
holds at most ``τ`` (taking every message is then feasible). What the cap drops, ``Q(x) −
Q(x, τ)``, is at most ``Σ_p max(0, load_p − τ)`` and is never reported as noise: the releases of
this module state it (:func:`make_private_total`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real
from typing import Any

import numpy as np
import opendp.prelude as dp

from ..core._bias import state_bias
from ..core._checks import float_at_most, open_probability, positive_integer
from ..transformations import then
from ..transformations._multi_owner import LP_TOLERANCE, truncated_coverage, truncated_total
from ._context import privacy_budget
from ._message_log import TOTAL_KINDS, MessageLog, _check_space, _kind, _person_count, _weights, require_log
from .accuracy import attach_choice_accuracy

__all__ = [
    "LP_TOLERANCE",
    "MIN_CAP",
    "capped_total",
    "make_capped_total",
    "then_capped_total",
    "make_capped_total_ladder",
    "then_capped_total_ladder",
    "make_private_total",
    "then_private_total",
    "TotalRelease",
    "TOTAL_KINDS",
]


# LP_TOLERANCE (transformations._multi_owner): the slack the capped total's stability map adds for
# the linear program's numerical tolerance, relative to ``τ`` (every value is certified within
# ``LP_TOLERANCE · τ`` of the optimum by a feasible primal and a feasible dual solution).


# ---------------------------------------------------------------------------------------------
# The capped total (a linear program)
# ---------------------------------------------------------------------------------------------


def capped_total(log: MessageLog, cap: float, of: str = "messages") -> float:
    """``Q(log, τ)`` for ``τ = cap``: the largest total with no person holding more than ``τ``
    (module docstring). Private: this is the value before noise.

    For ``of="pairs"`` the program selects messages ``x_m ∈ [0, 1]`` and pairs ``y_p ≤ min(1,
    Σ_{m carries p} x_m)``, each person ``p`` spending ``Σ_{m ∋ p} k_m x_m ≤ τ`` where ``k_m`` is
    the number of (distinct, non-self) sender–recipient pairs ``m`` carries; the total is ``Σ y_p``,
    the distinct pairs when every person's ``Σ k_m`` is at most ``τ``. Removing a person removes
    messages worth at most ``τ`` of pair support, so the same bound ``τ`` holds.

    The value is certified: a feasible selection reaches it and a feasible dual solution is
    within ``LP_TOLERANCE · τ`` above it (else a ``RuntimeError``: the solver failed, and nothing
    is released).
    """
    require_log(log)
    tau = _cap(cap)
    kind = _kind(of)
    key = (kind, tau)
    if key not in log._capped:
        log._capped[key] = _solve(log, tau, kind)
    return log._capped[key]


def _solve(log: MessageLog, tau: float, kind: str) -> float:
    if kind == "pairs":
        return _capped_pairs(log, tau)
    return truncated_total(log.owner_indptr, log.owners, log.num_people, _weights(log, kind), tau)


def _capped_pairs(log: MessageLog, tau: float) -> float:
    """The distinct pairs a capped selection of messages reaches (:func:`capped_total` with
    ``of="pairs"``): the log's messages as records (owners, and the pairs each covers), handed to
    the mechanism :func:`~opendp_graph.transformations._multi_owner.truncated_coverage`."""
    k = _weights(log, "pairs")
    senders = np.repeat(log.sender, np.diff(log.pair_indptr))
    others = log.pair_recipients
    lo, hi = np.minimum(senders, others), np.maximum(senders, others)
    _, pair_of = np.unique(lo * max(log.num_people, 1) + hi, return_inverse=True)
    return truncated_coverage(log.owner_indptr, log.owners, log.num_people, k, log.pair_indptr, pair_of, tau)


# ---------------------------------------------------------------------------------------------
# Transformations and the release
# ---------------------------------------------------------------------------------------------


#: The smallest cap accepted: below it the programs' coefficients (pairs per message over ``τ``)
#: leave the solvers' numerical range; no count needs a person's share below ``1/1024``.
MIN_CAP = 2.0**-10


def _cap(cap: Any) -> float:
    if isinstance(cap, bool) or not isinstance(cap, Real) or not math.isfinite(cap) or cap < MIN_CAP:
        raise ValueError(f"cap must be a finite number of at least {MIN_CAP}, got {cap!r}")
    return float(cap)


def _round_up(value: float) -> float:
    return math.nextafter(value, math.inf)


def make_capped_total(input_domain: dp.Domain, input_metric: dp.Metric, cap: float, of: str = "messages") -> dp.Transformation:
    """The capped total ``Q(log, τ)`` (``τ = cap``) of a :class:`MessageLog`, as a float.

    :param input_domain: :func:`message_log_domain`.
    :param input_metric: :func:`person_log_distance` (``"add_remove"`` or ``"replace"``).
    :param cap: ``τ``, the most any one person may hold of the total (public).
    :param of: one of :data:`TOTAL_KINDS`.

    **Stability guarantee:** ``d_in`` people → ``τ·(d_in + LP_TOLERANCE)`` in
    ``AbsoluteDistance``. Proof: the module docstring (``τ`` per person under both relations),
    plus ``LP_TOLERANCE·τ`` because the value is the certified solution of a linear program,
    within that of the optimum (:func:`capped_total`); the extra term is added once, not per
    person, as only the two end values are approximate.

    **Bias:** the value never exceeds the true total and equals it when no person holds more
    than ``τ``; what it drops is error that no noise scale shows (:func:`make_private_total`
    states it).

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> t = dpg.polars.make_capped_total(
    ...     dpg.polars.message_log_domain(), dpg.polars.person_log_distance(), cap=10)
    >>> round(t.map(1), 9)  # τ·(1 + LP_TOLERANCE)
    10.00001
    """
    dp.assert_features("contrib", "honest-but-curious")
    _check_space(input_domain, input_metric)
    tau, kind = _cap(cap), _kind(of)
    total = dp.t.make_user_transformation(
        input_domain,
        input_metric,
        dp.atom_domain(T=float, nan=False),
        dp.absolute_distance(T=float),
        lambda log: capped_total(log, tau, kind),
        lambda d_in: _round_up(tau * (_person_count(d_in) + LP_TOLERANCE)),
    )
    return state_bias(total, capped_bias(f"the cap τ = {tau:g}"))


def capped_bias(cap: str) -> str:
    """What a capped total drops, for :func:`opendp_graph.accuracy`'s ``not_included``."""
    return (
        f"each person's share above {cap} (the linear program keeps at most that much of anyone's): the interval "
        "is around the capped total, at most the true total; no public figure bounds the difference"
    )


def _caps(caps: Any) -> tuple[float, ...]:
    if isinstance(caps, (str, bytes)) or not hasattr(caps, "__iter__"):
        raise TypeError(f"caps must be a sequence of positive numbers, got {caps!r}")
    values = tuple(_cap(c) for c in caps)
    if not values:
        raise ValueError("caps must not be empty")
    if list(values) != sorted(set(values)):
        raise ValueError(f"caps must be increasing and distinct, got {values}")
    return values


def make_capped_total_ladder(input_domain: dp.Domain, input_metric: dp.Metric, caps: Any, of: str = "messages") -> dp.Transformation:
    """The vector ``(Q(log, τ_j) / τ_j)_j`` over increasing public caps ``τ_1 < … < τ_J``.

    **Stability guarantee:** ``d_in`` people → ``J·(d_in + LP_TOLERANCE)`` in ``L1Distance``:
    each entry moves by at most ``d_in + LP_TOLERANCE`` (:func:`make_capped_total` divided by
    its ``τ_j``). One Laplace noise of scale ``b`` on this vector is noise of scale ``τ_j·b`` on
    each capped total: R2T's ladder (Dong et al., SIGMOD 2022) as one OpenDP measurement.
    """
    dp.assert_features("contrib", "honest-but-curious")
    _check_space(input_domain, input_metric)
    values, kind = _caps(caps), _kind(of)
    rungs = len(values)

    def function(log: MessageLog) -> list[float]:
        return [capped_total(log, tau, kind) / tau for tau in values]

    return state_bias(unit_ladder(input_domain, input_metric, rungs, function), capped_bias("each rung's cap"))


def unit_ladder(input_domain: dp.Domain, input_metric: dp.Metric, rungs: int, function) -> dp.Transformation:
    """A vector of ``rungs`` entries, each moving by at most ``d_in + LP_TOLERANCE`` when
    ``d_in`` people change (a capped total divided by what its cap lets one person move it):
    ``L1`` stability ``rungs·(d_in + LP_TOLERANCE)``. The caller's docstring proves the per-entry
    bound for its ``function``."""
    return dp.t.make_user_transformation(
        input_domain,
        input_metric,
        dp.vector_domain(dp.atom_domain(T=float, nan=False), size=rungs),
        dp.l1_distance(T=float),
        function,
        lambda d_in: _round_up(rungs * (_person_count(d_in) + LP_TOLERANCE)),
    )


@dataclass(frozen=True)
class TotalRelease:
    """A person-level total released by :func:`make_private_total`, with its whole error.

    * ``estimate``: R2T's estimate, the largest shifted rung (``0`` if all are negative). It is
      **below the truth** with probability at least ``1 − β/2``: it is a lower confidence bound,
      bias included (what the chosen cap drops and the noise are both inside it).
    * ``upper``: an upper confidence bound *if* ``max_contribution`` is a true bound (no person
      holds more of the total): a violated declaration cannot be detected from the release, so
      the bound is conditional on it (privacy is not).
    * ``cap``: the rung the estimate came from (``None`` for the floor 0); ``caps``,
      ``noisy_totals`` (``Q(x, τ_j)`` plus noise, unshifted) and ``noise_scales`` (Laplace scale
      of each) are the ladder, all DP; ``shift`` the amount subtracted from each rung.

    The truth lies in ``[estimate, upper]`` with probability at least ``1 − β``; the interval's
    width is the whole error a user must allow for (noise and bias).
    """

    estimate: float
    upper: float
    cap: float | None
    caps: tuple[float, ...]
    noisy_totals: tuple[float, ...]
    noise_scales: tuple[float, ...]
    shifts: tuple[float, ...]
    beta: float
    epsilon: float
    of: str

    @property
    def interval(self) -> tuple[float, float]:
        return (self.estimate, self.upper)


def _rungs(top: int) -> tuple[float, ...]:
    """R2T's caps for a public bound ``top``: ``2, 4, …, 2^J`` with ``2^J ≥ top`` (``1`` for ``top = 1``)."""
    if top == 1:
        return (1.0,)
    return tuple(float(2**j) for j in range(1, math.ceil(math.log2(top)) + 1))


# long: docstring (its guarantee, parameters and refusals) beside code of under 100 lines
def make_private_total(
    input_domain: dp.Domain,
    input_metric: dp.Metric,
    privacy_loss: tuple[Any, Any],
    *,
    max_contribution: int,
    caps: Any = None,
    of: str = "messages",
    beta: float = 0.1,
    d_in: int = 1,
) -> dp.Measurement:
    """A person-level total of a message log under ``ε``-DP, with the cap chosen inside the
    ``ε`` by R2T's race to the top (Dong, Fang, Yi, Tao & Machanavajjhala, SIGMOD 2022).

    :param input_domain: :func:`message_log_domain`.
    :param input_metric: :func:`person_log_distance`.
    :param privacy_loss: the budget, ``dp.loss_of(epsilon=ε)`` (OpenDP's pair, as ``dp.Context`` takes it): the whole budget.
    :param max_contribution: a public bound on what one person may hold of the total, in the
        units of :meth:`MessageLog.load` for that ``of``: messages a person sent or received;
        for ``"deliveries"`` the recipients of those messages summed; for ``"words"`` their
        words; for ``"pairs"`` the sender–recipient pairs those messages carry, summed over the
        messages (not the person's distinct partners: ten group messages to nine others each
        hold 90). E.g. the log's size bound. The
        caps are ``2, 4, …, 2^J`` with ``2^J ≥ max_contribution``. **Privacy does not depend on
        it** (every cap is enforced by the linear program); only the release's ``upper`` bound
        does, and the noise grows with ``J = ⌈log₂ max_contribution⌉``.
    :param caps: public candidate caps instead of the powers of two (increasing, at most
        ``max_contribution``): fewer rungs cost less noise each (``b = J·(d_in +
        LP_TOLERANCE)/ε``), so a short ladder around the caps you expect to win is more accurate
        than R2T's full one; the statement below holds for any ladder.
    :param of: one of :data:`TOTAL_KINDS`.
    :param beta: the release's failure probability (``[estimate, upper]`` holds the truth with
        probability ``≥ 1 − β``).
    :param d_in: the number of people protected together (the map is exact at this ``d_in``).
    :return: a measurement (``max_divergence``) whose output is a :class:`TotalRelease`.

    **Privacy guarantee.** :func:`make_capped_total_ladder` (``L1`` stability ``J·(d_in +
    LP_TOLERANCE)``) chained with OpenDP's Laplace of scale ``b`` found by
    ``dp.binary_search_param`` so that the map at ``d_in`` is ``ε``; the rest reads only the
    noisy ladder (post-processing).

    **Error.** Rung ``j`` releases ``Y_j = Q(x, τ_j) + τ_j·L_j``, ``L_j ~ Laplace(b)``. The
    estimate is ``max(0, max_j (Y_j − τ_j·b·ln(J/β)))``. Each shifted rung exceeds ``Q(x, τ_j) ≤
    Q(x)`` with probability ``½·β/J``, so ``estimate ≤ Q(x)`` with probability ``≥ 1 − β/2``
    (a union bound over the rungs, as in R2T); R2T's utility theorem bounds how far below: ``O(J·ln(J/β)·τ*/ε)`` for ``τ*``
    the busiest person's contribution, within a log factor of the best any mechanism can do on
    this log. The upper bound: ``Q(x, τ)`` is concave in ``τ`` (a linear program's value in its
    right-hand side) and 0 at 0, so if no person holds more than ``M = max_contribution`` then
    ``Q(x) = Q(x, τ_j)`` for ``τ_j ≥ M``, and for ``τ_j < M`` ``Q(x) = Q(x, M)`` is at most
    ``M·Q(x, τ_j)/τ_j`` and at most ``Q(x, τ_j) + (M − τ_j)·(Q(x, τ_j) − Q(x, τ_{j−1}))/(τ_j −
    τ_{j−1})`` (the slope after ``τ_j`` is at most the secant before it). ``upper`` is the least of these with each ``Q(x, τ_j)`` replaced by
    ``Y_j ± τ_j·b·ln(J/β)`` on the side that makes it larger; all ``J`` rungs are within that
    margin with probability ``≥ 1 − β`` (two-sided, union bound), and then both ``estimate ≤
    Q(x) ≤ upper``. ``upper`` is wide unless the top cap is near ``M`` or the ladder has flattened
    (no one left at the cap): that width is the bias no release can rule out without a tighter
    public bound on the busiest person.

    **When it is useless.** Person-level totals are only accurate when the busiest people hold
    a small share: on the Enron log (154 people; the busiest holds 2,656 of 21,635 messages),
    removing one person moves the total by 12 %, and at ``ε = 1`` the estimate is far below
    the truth (``benchmarks/person_level.py``).

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> meas = dpg.polars.make_private_total(
    ...     dpg.polars.message_log_domain(), dpg.polars.person_log_distance(),
    ...     privacy_loss=dp.loss_of(epsilon=1.0), max_contribution=1000)
    >>> round(meas.map(1), 9)
    1.0
    """
    dp.assert_features("contrib", "honest-but-curious")
    _check_space(input_domain, input_metric)
    epsilon = privacy_budget(privacy_loss, ("epsilon",), "make_private_total")["epsilon"]
    open_probability("beta", beta)
    people = _person_count(d_in)
    if people == 0:
        raise ValueError("d_in must be at least 1 (one person)")
    kind = _kind(of)
    top = positive_integer("max_contribution", max_contribution)
    explicit = caps is not None
    caps = _caps(caps) if explicit else _rungs(top)
    if explicit and caps[-1] > top:
        raise ValueError(f"caps must be at most max_contribution={top}: a cap above every person's contribution only adds noise")
    ladder = make_capped_total_ladder(input_domain, input_metric, caps, kind)
    epsilon = float_at_most(epsilon)

    def chain(scale: float) -> dp.Measurement:
        return ladder >> dp.m.then_laplace(scale=scale)

    try:
        scale = dp.binary_search_param(chain, d_in=people, d_out=epsilon, T=float)
    except Exception as error:  # OpenDP's search fails when no finite scale reaches so small a budget
        raise ValueError(f"no noise scale reaches ε = {epsilon!r} for the caps' ladder: raise ε or lower the caps") from error
    rungs, beta = len(caps), float(beta)
    shift = math.log(rungs / beta) * scale
    meta = dict(caps=caps, top=float(top), scale=scale, shift=shift, beta=beta, epsilon=epsilon, of=kind)

    def summarise(noisy: list[float]) -> TotalRelease:
        return _summarise(list(noisy), **meta)

    measurement = chain(scale) >> dp.new_function(summarise, TO="ExtrinsicObject")

    return attach_choice_accuracy(
        measurement,
        "τ",
        "laplace",
        [(tau, tau * scale) for tau in caps],
        bias=(
            "what the chosen cap drops (people's shares above τ) and the estimate's shift of τ·b·ln(J/β) below "
            "the noisy capped total; the release's [estimate, upper] states the whole error"
        ),
    )


def _summarise(noisy: list[float], *, caps, top, scale, shift, beta, epsilon, of) -> TotalRelease:
    # every rung within ±τ_j·shift of Q(x, τ_j) (probability ≥ 1 − β); the estimate is the best
    # lower end. Q(x) = Q(x, M) is at most M·Q(x, τ_j)/τ_j (through the origin) and
    # Q(x, τ_j) + (M − τ_j)·(secant slope before τ_j)
    low = [tau * (y - shift) for tau, y in zip(caps, noisy)]
    high = [tau * (y + shift) for tau, y in zip(caps, noisy)]
    best = int(np.argmax(low))
    estimate, cap = (low[best], caps[best]) if low[best] > 0 else (0.0, None)
    bounds = [h if tau >= top else top * h / tau for h, tau in zip(high, caps)]  # Q(x) = Q(x, τ) for τ ≥ M
    for j in range(1, len(caps)):
        if caps[j] < top:
            slope = max(0.0, (high[j] - low[j - 1]) / (caps[j] - caps[j - 1]))
            bounds.append(high[j] + (top - caps[j]) * slope)
    upper = min(bounds) + LP_TOLERANCE * top  # the computed capped totals may sit LP_TOLERANCE·τ below the exact
    return TotalRelease(
        estimate=float(estimate),
        upper=float(max(upper, estimate)),
        cap=cap,
        caps=caps,
        noisy_totals=tuple(tau * y for tau, y in zip(caps, noisy)),
        noise_scales=tuple(tau * scale for tau in caps),
        shifts=tuple(tau * shift for tau in caps),
        beta=beta,
        epsilon=epsilon,
        of=of,
    )


# the then_ forms (OpenDP's convention: every make_x of (input_domain, input_metric, ...) has one)
then_capped_total = then(make_capped_total)
then_capped_total_ladder = then(make_capped_total_ladder)
then_private_total = then(make_private_total)
