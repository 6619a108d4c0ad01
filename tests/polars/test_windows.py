"""Person-level totals per time window (opendp_graph.polars._windows): the stability claims on
every small log, the map at the boundary, the release's error statement by simulation, refusals."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import opendp.prelude as dp
import polars as pl
import pytest

import opendp_graph as dpg
from opendp_graph import polars as M
from opendp_graph.polars import _windows as Wn

from tests.polars.test_messages import PEOPLE, SHAPES, direct_log

dp.enable_features("contrib", "honest-but-curious")

BOUNDS = ["2020-01-01", "2020-02-01", "2020-03-01"]
TIMES = [np.datetime64("2020-01-15", "us"), np.datetime64("2020-02-15", "us"), np.datetime64("2019-06-01", "us")]  # window 0, 1, outside
SPACE = dpg.polars.message_log_domain(), dpg.polars.person_log_distance()


def timed_log(messages):
    """``messages``: (sender, recipients, time index) triples."""
    base = direct_log([(s, r) for s, r, _ in messages])
    fields = {name: getattr(base, name) for name in ("people", "owner_indptr", "owners", "sender", "recipients", "pair_indptr", "pair_recipients", "id_kind")}
    return M.MessageLog(**fields, time=np.array([TIMES[t] for _, _, t in messages], dtype="datetime64[us]"))


def _without(messages, person):
    return [m for m in messages if person != m[0] and person not in m[1]]


def _vector(log, cap):
    """The value of make_window_capped_totals (read directly: the loop below is exhaustive)."""
    return np.array([M.capped_total(part, cap) for part in Wn._window_logs(log, Wn._boundaries(BOUNDS))])


@functools.lru_cache(maxsize=None)  # a log without one person is again a log of the loop: each is solved once
def _vector_of(messages, cap):
    return _vector(timed_log(list(messages)), cap)


# by default the direct and self messages only (no group message), in the thorough tier every
# shape (13 s), c = 2 under -m slow
@pytest.mark.parametrize("cap, owners", [
    pytest.param(1.0, 3, id="1.0", marks=pytest.mark.thorough),
    pytest.param(1.0, 2, id="1.0-direct-and-self"),
    pytest.param(2.0, 3, id="2.0", marks=pytest.mark.slow),
])
def test_window_vector_moves_at_most_w_times_cap_per_person_on_every_small_log(cap, owners):
    """Every log of ≤ 2 messages on 3 people (messages with at most ``owners`` owners), each in
    window 0, window 1 or outside both: one person moves the window vector by ≤ W·c and every
    normalised ladder entry by ≤ 1."""
    totals = Wn.make_window_capped_totals(*SPACE, BOUNDS, cap)
    bound, worst = totals.map(1), 0.0
    rungs = (cap, 4.0)  # a rung below 1 would solve a linear program for almost every log: slow, and no new case
    shapes = [(s, r, t) for (s, r) in SHAPES if len({s, *r}) <= owners for t in range(3)]
    for size in range(3):
        for messages in itertools.combinations_with_replacement(shapes, size):
            full = tuple(messages)
            vec_full = _vector_of(full, cap)
            lad_full = np.array([_vector_of(full, c).sum() / (2 * c) for c in rungs])
            for v in PEOPLE:
                rest = tuple(_without(full, v))
                moved = np.abs(vec_full - _vector_of(rest, cap)).sum()
                assert moved <= bound, (messages, v, moved)
                ladder = np.array([_vector_of(rest, c).sum() / (2 * c) for c in rungs])
                assert np.abs(lad_full - ladder).max() <= 1 + M.LP_TOLERANCE
                worst = max(worst, moved)
    # attained at c = 1: a person with c messages in each of the W = 2 windows (c = 2 needs 4 messages)
    assert worst == pytest.approx(2 * cap if cap == 1 else 2)
    # the transformations compute these values
    log = timed_log([(0, (1,), 0), (1, (1,), 1)])
    assert totals(log) == pytest.approx(list(_vector(log, cap)))
    ladder = Wn.make_window_ladder(*SPACE, BOUNDS, list(rungs))
    assert ladder(log) == pytest.approx([_vector(log, c).sum() / (2 * c) for c in rungs])


def test_maps_are_the_stated_bounds():
    assert Wn.make_window_capped_totals(*SPACE, BOUNDS, 8).map(1) == pytest.approx(2 * 8 * (1 + M.LP_TOLERANCE))
    assert Wn.make_window_ladder(*SPACE, BOUNDS, [2, 4, 8]).map(2) == pytest.approx(3 * (2 + M.LP_TOLERANCE))
    meas = dpg.polars.make_private_window_totals(*SPACE, dp.loss_of(epsilon=1.0), windows=BOUNDS, caps=[2, 4])
    assert 1.0 - 1e-6 <= meas.map(1) <= 1.0


def _hub_log(seed, people=60, messages=1500):
    rng = np.random.default_rng(seed)
    senders = np.minimum(rng.pareto(1.5, messages).astype(int), people - 1)
    recipients = rng.integers(0, people, messages)
    days = rng.integers(0, 59, messages)
    frame = pl.DataFrame({
        "message_id": np.arange(messages), "sender": senders, "recipient": recipients,
        "time": np.datetime64("2020-01-01", "us") + days.astype("timedelta64[D]"),
    })
    return dpg.polars.message_log(frame, time="time")


def test_release_states_its_error_and_the_intervals_cover_the_truth():
    log = _hub_log(0)
    parts = [log.within(a, b) for a, b in zip(BOUNDS, BOUNDS[1:])]
    truth = np.array([p.num_messages for p in parts], float)
    top = float(max(p.load().max() for p in parts))  # the conditional guarantee needs the top cap above everyone
    meas = dpg.polars.make_private_window_totals(*SPACE, dp.loss_of(epsilon=1.0), windows=BOUNDS, caps=[8, 32, top], beta=0.1)
    hits = []
    for _ in range(100):
        r = meas(log)
        assert r.cap in r.caps and len(r.estimates) == 2 and r.windows[0][0].startswith("2020-01-01")
        assert all(lo <= e <= up for lo, e, up in zip(r.lower, r.estimates, r.upper))
        hits += [lo <= t <= up for lo, t, up in zip(r.lower, truth, r.upper)]
    # stated at ≥ 1 − 2β = 0.8 per window; measured 0.918 over 2,000 windows. 0.85 over these 200
    # fails with probability ~2e-4 at the measured rate, and almost surely below the stated 0.8
    assert np.mean(hits) >= 0.85


def test_accuracy_gives_the_noise_of_each_cap():
    meas = dpg.polars.make_private_window_totals(*SPACE, dp.loss_of(epsilon=1.0), windows=BOUNDS, caps=[2, 4])
    acc = dpg.accuracy(meas, alpha=0.05)
    assert [c for c, _ in acc.choices] == [2.0, 4.0]
    assert acc.for_choice(4.0).scale == pytest.approx(2 * acc.for_choice(2.0).scale)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(windows=["2020-01-01"]), ValueError, "at least two boundaries"),
        (dict(windows=["2020-02-01", "2020-01-01"]), ValueError, "strictly increasing"),
        (dict(windows="2020-01-01"), TypeError, "sequence of increasing"),
        (dict(windows=["2020-01-01", "soon"]), TypeError, "date or time"),
        (dict(caps=[4, 2]), ValueError, "increasing"),
        (dict(selection_share=1.0), ValueError, "below 1"),
        (dict(privacy_loss=dp.loss_of(epsilon=0.0)), ValueError, "epsilon"),
    ],
)
def test_arguments_are_checked_when_built(kwargs, error, match):
    args = dict(privacy_loss=dp.loss_of(epsilon=1.0), windows=BOUNDS, caps=[2, 4]) | kwargs
    with pytest.raises(error, match=match):
        dpg.polars.make_private_window_totals(*SPACE, **args)


def test_a_log_without_times_is_refused_with_the_fix():
    meas = dpg.polars.make_private_window_totals(*SPACE, dp.loss_of(epsilon=1.0), windows=BOUNDS, caps=[2, 4])
    with pytest.raises(Exception, match="time="):
        meas(direct_log([(0, (1,))]))


def test_a_budget_no_scale_reaches_is_refused_in_plain_words():
    space = dpg.polars.message_log_domain(), dpg.polars.person_log_distance()
    with pytest.raises(ValueError, match="no noise scale reaches"):
        dpg.polars.make_private_window_totals(*space, dp.loss_of(epsilon=1e-9), windows=["2020-01-01", "2020-02-01"], caps=[1e6])


@pytest.mark.parametrize("num_caps, runs", [pytest.param(100, 150, marks=pytest.mark.thorough), pytest.param(300, 300, marks=pytest.mark.slow)])  # simulations (7 s)
def test_dropped_upper_holds_whichever_cap_the_noisy_sums_chose(num_caps, runs):
    """The red team's fifth round: the cap is chosen from the selection's noisy sums, so the
    chosen rung's noise is the luckiest of J; a margin for two fixed rungs (ln(2/β)) failed 35 %
    of the time with 300 caps. One person, 1,000 messages to themself, caps 900–1,000 (100 of them
    in the default run, 300 under -m slow)."""
    import datetime

    import polars as pl

    n = 1000
    frame = pl.DataFrame({"message_id": list(range(n)), "sender": [0] * n, "recipient": [0] * n,
                          "time": [datetime.datetime(2020, 1, 2)] * n})
    log = dpg.polars.message_log(frame, time="time")
    caps = sorted({float(c) for c in np.linspace(900, 1000, num_caps)})
    meas = dpg.polars.make_private_window_totals(
        dpg.polars.message_log_domain(), dpg.polars.person_log_distance(), dp.loss_of(epsilon=1.0),
        windows=["2020-01-01", "2020-02-01"], caps=caps, beta=0.1)
    misses = sum(r.dropped_upper < n - min(r.cap, n) for r in (meas(log) for _ in range(runs)))
    assert misses <= 0.1 * runs
