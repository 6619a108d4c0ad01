"""The point-estimate total: GEM's scores brute-forced on every small log, the composed map at
the boundary, the interval's coverage and the constructor's checks."""

from __future__ import annotations

import itertools
import random

import numpy as np
import opendp.prelude as dp
import pytest

import opendp_graph as dpg
from opendp_graph import polars as M
from opendp_graph.polars import _point_totals as P

from tests.polars.test_messages import PEOPLE, _hub_log, direct_log, small_logs, without

dp.enable_features("contrib", "honest-but-curious")

SPACE = (M.message_log_domain(), M.person_log_distance())
CAPS = (0.5, 1.0, 2.0)


# "deliveries" weighs each message by its recipients, as "messages" by 1: the same program with other
# weights, under -m slow (6 s); "pairs" is the other program (the coverage). Logs of at most one
# message by default, of two in the thorough tier (7 s and 15 s)
@pytest.mark.parametrize("kind, size", [
    pytest.param("messages", 2, id="messages", marks=pytest.mark.thorough),
    pytest.param("deliveries", 2, id="deliveries", marks=pytest.mark.slow),
    pytest.param("pairs", 2, id="pairs", marks=pytest.mark.thorough),
    pytest.param("messages", 1, id="messages-1"),
    pytest.param("pairs", 1, id="pairs-1"),
])
def test_scores_move_at_most_one_per_person_on_every_small_log(kind, size):
    """Every log of at most 2 (``size``) messages on 3 people (group and self messages included), every
    person removed (add/remove) and every pair of logs equal outside one person's messages
    (replace), three penalty vectors: GEM's scores move by at most 1 (+ the LP slack) in L∞."""
    slack = M.LP_TOLERANCE
    for penalties in ((0.0, 0.0, 0.0), (0.3, 0.1, 1.7), (2.0, 0.0, 5.0)):
        score = {m: P.cap_scores(direct_log(m), CAPS, penalties, kind) for m in small_logs(size)}
        worst = 0.0
        by_rest: dict = {}
        for messages, s in score.items():
            for v in PEOPLE:
                rest = tuple(without(messages, v))
                gap = float(np.abs(s - score[rest]).max())
                assert gap <= 1 + slack, (messages, v, penalties)
                worst = max(worst, gap)
                by_rest.setdefault((v, rest), []).append(s)
        for group in by_rest.values():
            spread = np.ptp(np.array(group), axis=0).max()
            assert spread <= 1 + slack
        # the scores do move (a test that cannot fail would not); the bound 1 is GEM's for any two
        # moves, and here both capped totals move the same way, so it is not reached
        assert worst > 0.3


# the first 10 of the 60 random logs by default, all 60 (8 s) in the thorough tier
@pytest.mark.parametrize("logs", [pytest.param(60, marks=pytest.mark.thorough), 10])
def test_scores_on_random_larger_logs(logs):
    rng = random.Random(3)
    shapes = [(s, r) for s in range(6) for n in (1, 2) for r in itertools.combinations(range(6), n)]
    caps = (1.0, 2.0, 4.0, 8.0)
    for _ in range(logs):
        messages = [rng.choice(shapes) for _ in range(rng.randrange(5, 30))]
        penalties = [rng.uniform(0, 6) for _ in caps]
        full = P.cap_scores(direct_log(messages, people=tuple(range(6))), caps, penalties)
        for v in range(6):
            rest = P.cap_scores(direct_log(without(messages, v), people=tuple(range(6))), caps, penalties)
            assert np.abs(full - rest).max() <= 1 + M.LP_TOLERANCE


def test_score_transformation_map_at_the_boundary():
    t = P.make_cap_scores(*SPACE, CAPS, [0.0, 0.0, 0.0])
    bound = t.map(1)
    assert bound >= 1 + M.LP_TOLERANCE and bound == pytest.approx(1 + M.LP_TOLERANCE, rel=1e-12)
    assert t.check(1, bound) and not t.check(1, 1.0)
    assert t.map(2) == pytest.approx(2 + M.LP_TOLERANCE)


def test_release_map_is_epsilon_at_d_in():
    for d_in in (1, 2):
        meas = P.make_private_total_estimate(*SPACE, privacy_loss=dp.loss_of(epsilon=0.7), caps=[8, 16, 32], d_in=d_in)
        assert meas.map(d_in) <= 0.7 and meas.map(d_in) == pytest.approx(0.7, rel=1e-6)
        assert not meas.check(d_in, 0.7 * (1 - 1e-3))
    single = P.make_private_total_estimate(*SPACE, privacy_loss=dp.loss_of(epsilon=0.7), caps=[8])
    assert single.map(1) <= 0.7 and single.map(1) == pytest.approx(0.7, rel=1e-6)


def test_a_compositor_holding_exactly_the_budget_accepts_it():
    meas = P.make_private_total_estimate(*SPACE, privacy_loss=dp.loss_of(epsilon=1.0), caps=[8, 16, 32])
    compositor = dp.c.make_adaptive_composition(*SPACE, dp.max_divergence(), d_in=1, d_mids=[1.0])
    queryable = compositor(_hub_log(1))
    assert isinstance(queryable(meas), P.TotalEstimate)


def test_interval_covers_the_truth_when_the_top_cap_bounds_everyone():
    log = _hub_log(0)
    truth = float(log.num_messages)
    top = float(log.load().max())
    meas = P.make_private_total_estimate(*SPACE, privacy_loss=dp.loss_of(epsilon=1.0), caps=[top / 8, top / 4, top / 2, top], beta=0.2)
    releases = [meas(log) for _ in range(200)]
    covered = sum(r.lower <= truth <= r.upper for r in releases)
    assert covered >= 0.8 * 200 - 17  # 1 − β = 0.8, less three standard deviations of 200 draws
    for r in releases:
        # the upper end allows the LP's tolerance below the exact capped total
        high = max(r.estimate + r.noise_halfwidth + M.LP_TOLERANCE * r.cap, 0.0)
        assert r.upper == pytest.approx(high + r.bias_bound)
        assert r.bias_bound == pytest.approx((top / r.cap - 1) * high)  # 0 at the top cap
        # the noise part alone holds the capped total
        assert r.noise_halfwidth == pytest.approx(r.noise_scale * np.log(1 / 0.2))


def test_a_large_budget_chooses_the_best_cap():
    """With ε large the choice follows the scores: on a log where the small caps drop half the
    messages, the cap that keeps everything (at small noise) wins nearly always."""
    log = _hub_log(2)
    top = float(log.load().max())
    caps = [top / 16, top / 4, top]
    meas = P.make_private_total_estimate(*SPACE, privacy_loss=dp.loss_of(epsilon=200.0), caps=caps, selection_share=0.5)
    scales = [b for _, b in dpg.accuracy(meas).choices]  # the accuracy lists each cap's noise
    assert len(scales) == 3
    chosen = [meas(log).cap for _ in range(20)]
    best = caps[int(np.argmax(P.cap_scores(log, caps, [2 * t / 200 for t in caps])))]
    assert chosen.count(best) >= 18


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(privacy_loss=dp.loss_of(epsilon=0.0), caps=[1, 2]), ValueError, "epsilon"),
        (dict(privacy_loss=dp.loss_of(epsilon=1.0), caps=[]), ValueError, "empty"),
        (dict(privacy_loss=dp.loss_of(epsilon=1.0), caps=[4, 2]), ValueError, "increasing"),
        (dict(privacy_loss=dp.loss_of(epsilon=1.0), caps="12"), TypeError, "caps"),
        (dict(privacy_loss=dp.loss_of(epsilon=1.0), caps=[1, 2], selection_share=1.0), ValueError, "selection_share"),
        (dict(privacy_loss=dp.loss_of(epsilon=1.0), caps=[1, 2], beta=1.5), ValueError, "beta"),
        (dict(privacy_loss=dp.loss_of(epsilon=1.0), caps=[1, 2], d_in=0), ValueError, "d_in"),
        (dict(privacy_loss=dp.loss_of(epsilon=1.0), caps=[1, 2], of="bytes"), ValueError, "of must be"),
    ],
)
def test_constructor_arguments_are_checked_when_built(kwargs, error, match):
    with pytest.raises(error, match=match):
        P.make_private_total_estimate(*SPACE, **kwargs)


def test_wrong_space_and_wrong_data_are_refused():
    with pytest.raises(TypeError, match="message_log_domain"):
        P.make_private_total_estimate(dp.atom_domain(T=float), SPACE[1], privacy_loss=dp.loss_of(epsilon=1.0), caps=[1, 2])
    with pytest.raises(ValueError, match="penalties"):
        P.make_cap_scores(*SPACE, [1, 2], [0.0])
    meas = P.make_private_total_estimate(*SPACE, privacy_loss=dp.loss_of(epsilon=1.0), caps=[1, 2])
    with pytest.raises(Exception, match="MessageLog"):
        meas([("a", "b")])
