"""A person-level total as a **point estimate**: one cap chosen under DP by the generalized
exponential mechanism, then the capped total at that cap with Laplace noise.

:func:`~opendp_graph.polars.make_private_total` (R2T) answers "at least how many": its estimate
is a lower confidence bound, shifted down by ``τ·b·ln(J/β)``. This module answers "how many,
give or take": the estimate is ``Q(x, τ̂) + Laplace(b(τ̂))``, unshifted, beside an interval
that names its two parts: the noise (``± b·ln(1/β)``, around the capped total) and the bias
(``≥ 0``: what the people above the cap hold; bounded only by a public cap nobody exceeds).

**The choice.** Each public candidate ``τ_j`` has the expected error ``(Q(x) − Q(x, τ_j)) +
b_j`` (the cap's bias plus the mean absolute Laplace noise of its release); up to the constant
``Q(x)`` that is ``−q_j`` with ``q_j = Q(x, τ_j) − b_j``, and ``q_j`` moves by at most ``τ_j``
per person (:func:`~opendp_graph.polars.make_capped_total`). The candidates' sensitivities
differ, so a plain exponential mechanism would have to pay the largest for all. The
generalized exponential mechanism (Raskhodnikova & Smith, *Efficient Lipschitz extensions for
high-dimensional graph statistics and node private degree distributions*, FOCS 2016, arXiv
1504.07912: its "generalized exponential mechanism") scores each candidate against every other by

    s_i = min_j ((q_i − q_j) / (τ_i + τ_j)),

which moves by at most 1 per person whatever the ``τ``'s (proof in :func:`make_cap_scores`);
OpenDP's noisy max on these scores is the exponential mechanism with sensitivity 1. (GEM's
utility theorem shifts each ``q_j`` by ``t·τ_j`` with ``t = 2·ln(k/β)/ε``; privacy holds for
any shift and on the logs we measured the unshifted scores choose better, so none is applied.)

**What it reaches, and what it cannot.** At ``ε = 1`` the best fixed cap is noise-bound: its
bias is what fewer than ``1/ε`` people hold above it. Whether the next rung down would do as
well is decided by ``D(τ) = (Q(x, 2τ) − Q(x, τ)) / τ``, the people-equivalents that doubling
the cap keeps: doubling pays iff ``D(τ)`` exceeds the extra noise ``1/ε₂`` (in units of ``τ``,
``ε₂`` the release's budget). ``D`` moves by about one per person, so an ``ε₁``-DP reading of it
cannot tell values one apart with odds better than ``e^ε₁`` (Laplace: noise of scale ``1/ε₁``, 4 at
``ε₁ = 0.25``), while on the benchmark's logs ``D`` at the rung below the best is 2.4–9.3 where
that rung is clearly worse (chat pairs, the 20,000-person log's totals, Enron's messages and
deliveries) and 0.8–1.8 where it is nearly as good. Even an idealised selection that knew which
one decision matters, read ``D`` once with Laplace noise and took the split of ``ε`` that suits
each log best would pick the worse rung in 9–41 % of releases and reach 1.45–1.84× the best fixed
cap's median error on the first kind of row (1.0–1.3× on the second); the benchmark prints this
yardstick per row (``python -m benchmarks.person_level --only point``). It is the cost of making
that decision from the data, not a bound on every selection: one that always lands at or above
the best rung never makes it (the node-level triangles of Deezer HU: this yardstick 1.56×, a scan
tuned on that graph 1.43×: ``benchmarks/SUBGRAPH_COUNTS.txt``, ``SUBGRAPH_SCAN_TUNING.txt``). A real selection has to
find that decision among ``J − 1`` of them: ``make_private_total_estimate`` (GEM over the whole
ladder) measures 2.1–5.9×. A short public ladder whose top is a true bound on the busiest person
is what makes a total accurate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import opendp.prelude as dp

from ..core._checks import budget_share, open_probability
from ..measurements._capped_totals import (
    _caps,
    _kind,
    _round_up,
    capped_total,
    make_capped_total,
)
from ..measurements._context import privacy_budget
from ..measurements._message_log import (
    MessageLog,
    _check_space,
    _person_count,
)
from ..measurements._truncation import laplace_at_each_cap, release_at_chosen_cap, selection_budget
from ..transformations import then
from ..transformations._multi_owner import LP_TOLERANCE

__all__ = ["TotalEstimate", "cap_scores", "make_cap_scores", "then_cap_scores", "make_private_total_estimate", "then_private_total_estimate"]


def _penalties(penalties: Any, caps: tuple[float, ...]) -> tuple[float, ...]:
    penalty = np.asarray(penalties, dtype=np.float64)
    if penalty.shape != (len(caps),) or not np.all(np.isfinite(penalty)):
        raise ValueError("penalties must be one finite number per cap")
    return tuple(float(p) for p in penalty)


def cap_scores(log: MessageLog, caps: Any, penalties: Any, of: str = "messages") -> np.ndarray:
    """Non-private: GEM's normalised scores ``s_i = min_j ((q_i − q_j)/(τ_i + τ_j))`` with
    ``q_j = Q(log, τ_j) − penalties[j]`` (module docstring). The best candidate scores 0, the
    others below."""
    values, kind = _caps(caps), _kind(of)
    penalty = np.asarray(_penalties(penalties, values))
    tau = np.asarray(values)
    q = np.array([capped_total(log, t, kind) for t in values]) - penalty
    return ((q[:, None] - q[None, :]) / (tau[:, None] + tau[None, :])).min(axis=1)


def make_cap_scores(input_domain: dp.Domain, input_metric: dp.Metric, caps: Any, penalties: Any, of: str = "messages") -> dp.Transformation:
    """GEM's score vector (:func:`cap_scores`) for the public candidate caps ``caps`` and public
    ``penalties`` (one per cap, e.g. the expected noise of each cap's release).

    **Stability guarantee:** ``d`` people → ``d + LP_TOLERANCE`` in ``LInfDistance`` (rounded up).
    *Proof.* The computed capped total ``Q̂(x, τ)`` is within ``[Q(x, τ) − LP_TOLERANCE·τ, Q(x,
    τ)]`` (a certified feasible selection, :func:`~opendp_graph.polars.capped_total`) and the
    exact ``Q(·, τ)`` moves by at most ``d·τ`` (module docstring of ``_messages``), so ``Q̂``
    moves by at most ``(d + LP_TOLERANCE)·τ``. The penalties are public constants, so ``q_i −
    q_j`` moves by at most ``(d + LP_TOLERANCE)·(τ_i + τ_j)``, each ratio by at most ``d +
    LP_TOLERANCE``, and a minimum of functions that each move by at most ``c`` moves by at most
    ``c``. (Raskhodnikova & Smith's argument for ``d = 1``, with the LP slack added.) Under both
    ``"add_remove"`` and ``"replace"``: the bound on ``Q`` holds for both.
    """
    dp.assert_features("contrib", "honest-but-curious")
    _check_space(input_domain, input_metric)
    values, kind = _caps(caps), _kind(of)
    frozen = _penalties(penalties, values)
    return dp.t.make_user_transformation(
        input_domain,
        input_metric,
        dp.vector_domain(dp.atom_domain(T=float, nan=False), size=len(values)),
        dp.linf_distance(T=float),
        lambda log: [float(s) for s in cap_scores(log, values, frozen, kind)],
        lambda d_in: _round_up(_person_count(d_in) + LP_TOLERANCE),
    )


@dataclass(frozen=True)
class TotalEstimate:
    """A person-level total released by :func:`make_private_total_estimate`.

    * ``estimate``: ``Q(x, cap) + L`` with ``L ~ Laplace(noise_scale)``: the capped total plus
      its noise, unshifted (its error is the noise and the cap's bias, below).
    * ``noise_halfwidth``: ``noise_scale·ln(1/β)``; ``[estimate ∓ noise_halfwidth]`` holds the
      capped total ``Q(x, cap)`` with probability ``1 − β`` (the noise part).
    * ``bias_bound``: the bias ``Q(x) − Q(x, cap) ≥ 0`` is at most this *if no person holds more
      than the top cap* (``Q(·)`` is concave in the cap and 0 at 0, so ``Q(x) ≤ (top/cap)·Q(x,
      cap)``); it is 0 when the top cap was chosen. A violated bound cannot be detected from the
      release (privacy does not rest on it).
    * ``lower``, ``upper`` (``interval``): ``estimate − noise_halfwidth`` (at least 0) and
      ``estimate + noise_halfwidth + bias_bound``: the truth lies in it with probability at least
      ``1 − β`` under that assumption.
    """

    estimate: float
    cap: float
    noise_scale: float
    noise_halfwidth: float
    bias_bound: float
    lower: float
    upper: float
    caps: tuple[float, ...]
    beta: float
    epsilon: float
    of: str

    @property
    def interval(self) -> tuple[float, float]:
        return (self.lower, self.upper)


# long: docstring (its guarantee, parameters and refusals) beside code of under 100 lines
def make_private_total_estimate(
    input_domain: dp.Domain,
    input_metric: dp.Metric,
    privacy_loss: tuple[Any, Any],
    *,
    caps: Any,
    of: str = "messages",
    selection_share: float = 0.25,
    beta: float = 0.1,
    d_in: int = 1,
) -> dp.Measurement:
    """A person-level total of a message log as a point estimate under ``ε``-DP: the cap chosen
    from public candidates by the generalized exponential mechanism, then the capped total at
    that cap with OpenDP's Laplace noise (module docstring).

    :param input_domain: :func:`~opendp_graph.polars.message_log_domain`.
    :param input_metric: :func:`~opendp_graph.polars.person_log_distance`.
    :param privacy_loss: the budget, ``dp.loss_of(epsilon=ε)`` (OpenDP's pair, as ``dp.Context`` takes it): the whole budget (choice and release).
    :param caps: public candidate caps, increasing (what one person may hold of the total, in
        the units of :meth:`~opendp_graph.polars.MessageLog.load`); a short ladder around the
        busiest people's expected loads (e.g. ``[256, 512, 1024, 2048]`` messages). The top one
        is the bound the interval's bias part rests on.
    :param of: one of :data:`~opendp_graph.polars.TOTAL_KINDS`.
    :param selection_share: the part of ``ε`` spent choosing the cap, in ``(0, 1)``.
    :param beta: the interval's failure probability.
    :param d_in: the number of people protected together (the map is exact at this ``d_in``).
    :return: a measurement (``max_divergence``) whose output is a :class:`TotalEstimate`.

    **Privacy guarantee.** OpenDP's ``make_adaptive_composition`` of (a) OpenDP's noisy max on
    :func:`make_cap_scores` (L∞ stability ``d + LP_TOLERANCE``), and (b) OpenDP's Laplace on
    :func:`~opendp_graph.polars.make_capped_total` at the chosen cap (stability ``τ·(d +
    LP_TOLERANCE)``), every candidate's release calibrated by ``dp.binary_search_param`` to the
    same ``ε₂ = (1 − selection_share)·ε``; (a) gets what is left, a hair below, so the two maps
    add to at most ``ε``. (b) is chosen from (a)'s output only; the rest is post-processing.

    **Error.** ``estimate − Q(x) = L − (Q(x) − Q(x, cap))``: the noise (``E|L| = b``) and the
    cap's bias (``≥ 0``). The choice minimises their sum's expectation in expectation over its
    own noise only when the scores differ by more than ``2/ε₁`` (module docstring: at ``ε = 1``
    on a few thousand people they rarely do).

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> meas = dpg.polars.make_private_total_estimate(
    ...     dpg.polars.message_log_domain(), dpg.polars.person_log_distance(),
    ...     privacy_loss=dp.loss_of(epsilon=1.0), caps=[4, 8, 16])
    >>> meas.map(1) <= 1.0
    True
    >>> log = dpg.polars.message_log(dpg.datasets.synthetic_chat_log())
    >>> release = meas(log)
    >>> release.cap in (4.0, 8.0, 16.0) and release.lower <= release.upper
    True
    """
    dp.assert_features("contrib", "honest-but-curious")
    _check_space(input_domain, input_metric)
    epsilon = privacy_budget(privacy_loss, ("epsilon",), "make_private_total_estimate")["epsilon"]
    share = budget_share("selection_share", selection_share)
    beta = open_probability("beta", beta)
    people = _person_count(d_in)
    if people == 0:
        raise ValueError("d_in must be at least 1 (one person)")
    values, kind = _caps(caps), _kind(of)
    selecting = len(values) > 1

    eps_release = epsilon * (1 - share) if selecting else epsilon
    releases = laplace_at_each_cap(values, lambda tau: make_capped_total(input_domain, input_metric, tau, kind), people, eps_release)
    selector = None
    if selecting:
        scores = make_cap_scores(input_domain, input_metric, values, [scale for _, scale in releases], kind)
        eps_select = selection_budget(epsilon, releases, people)
        try:
            s_scale = dp.binary_search_param(
                lambda s: scores >> dp.m.then_noisy_max(dp.max_divergence(), scale=s), d_in=people, d_out=eps_select, T=float
            )
        except Exception as error:  # OpenDP's search fails when no finite scale reaches so small a budget
            raise ValueError(f"no noisy-max scale reaches the selection's budget {eps_select!r}: raise selection_share") from error
        selector = scores >> dp.m.then_noisy_max(dp.max_divergence(), scale=s_scale)
    top = values[-1]

    def run(queryable) -> TotalEstimate:
        j = int(queryable(selector)) if selector is not None else 0
        meas, scale = releases[j]
        noisy = float(queryable(meas))
        half = scale * math.log(1 / beta)
        # the computed capped total is within LP_TOLERANCE·cap below the exact one: the upper end allows it
        high = max(noisy + half + LP_TOLERANCE * values[j], 0.0)
        # Q(x) = Q(x, top) ≤ (top / cap)·Q(x, cap) when nobody holds more than the top cap
        bias_bound = (top / values[j] - 1.0) * high
        return TotalEstimate(
            estimate=noisy,
            cap=values[j],
            noise_scale=scale,
            noise_halfwidth=half,
            bias_bound=bias_bound,
            lower=max(noisy - half, 0.0),
            upper=high + bias_bound,
            caps=values,
            beta=beta,
            epsilon=epsilon,
            of=kind,
        )

    return release_at_chosen_cap(
        input_domain,
        input_metric,
        epsilon,
        people,
        selector,
        releases,
        run,
        parameter="τ",
        caps=values,
        bias=(
            "each person's share above the chosen cap (the linear program keeps at most that much of anyone's), "
            "at least 0: the release's bias_bound bounds it if nobody holds more than the top cap"
        ),
    )


# the then_ forms (OpenDP's convention: every make_x of (input_domain, input_metric, ...) has one)
then_private_total_estimate = then(make_private_total_estimate)
then_cap_scores = then(make_cap_scores)
