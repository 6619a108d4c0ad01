"""Edge level on a message log: the messages-per-person histogram brute-forced against the removal
of every pair's deliveries on every small log."""

from __future__ import annotations

import functools
import random

import numpy as np
import opendp.prelude as dp
import pytest

import opendp_graph as dpg
from opendp_graph.polars import _pair_level as E

from tests.polars.test_messages import PEOPLE, direct_log, make_log, small_logs

dp.enable_features("contrib", "honest-but-curious")

SPACE = (dpg.polars.message_log_domain(), dpg.polars.pair_log_distance())


@functools.lru_cache(maxsize=None)  # a log without one pair is again one of the small logs: each is counted once
def _histogram(messages: tuple, k: int) -> np.ndarray:
    return E.message_count_histogram(direct_log(list(messages)), k)


def without_pair(messages, u, v):
    """The log without the deliveries between u and v (module docstring): v leaves the recipients
    of u's messages and u those of v's; a message left with no recipient is gone."""
    out = []
    for sender, recipients in messages:
        if sender == u:
            recipients = tuple(r for r in recipients if r != v)
        if sender == v:
            recipients = tuple(r for r in recipients if r != u)
        if recipients:
            out.append((sender, recipients))
    return out


PAIRS = [(u, v) for u in PEOPLE for v in PEOPLE if u <= v]


# k = 2 by default (the bound is reached from k = 2 on); k = 1 and k = 3, k = 2's case, thorough (7 s)
@pytest.mark.parametrize("k", [pytest.param(1, marks=pytest.mark.thorough), 2, pytest.param(3, marks=pytest.mark.thorough)])
def test_histogram_moves_at_most_four_per_pair_on_every_small_log(k):
    """Every log of at most 3 messages on 3 people (21 shapes: group and self messages), every
    pair's deliveries removed (self pairs included): the histogram moves by at most 4 in L1 (2
    for a self pair), and 4 is reached."""
    worst = {True: 0, False: 0}
    for messages in small_logs(3):
        full = _histogram(tuple(messages), k)
        for u, v in PAIRS:
            rest = _histogram(tuple(without_pair(messages, u, v)), k)
            moved = int(np.abs(full - rest).sum())
            assert moved <= (2 if u == v else 4), (messages, u, v)
            worst[u == v] = max(worst[u == v], moved)
    # reached from k = 2 on (with one entry, "1 or more", a person moves only by leaving it)
    assert worst == ({True: 2, False: 4} if k >= 2 else {True: 1, False: 2})


def test_histogram_on_random_larger_logs():
    rng = random.Random(5)
    people = tuple(range(8))
    shapes = [(s, tuple(sorted(rng.sample(people, rng.randint(1, 3))))) for s in people for _ in range(6)]
    for _ in range(100):
        messages = [rng.choice(shapes) for _ in range(rng.randrange(1, 40))]
        u, v = sorted(rng.sample(people, 2))
        full = E.message_count_histogram(direct_log(messages, people=people), 5)
        rest = E.message_count_histogram(direct_log(without_pair(messages, u, v), people=people), 5)
        assert np.abs(full - rest).sum() <= 4


def test_histogram_reads_the_log_as_message_log_builds_it():
    # 0 → 1, 0 → {1, 2}, 2 → 2: person 0 owns 2, person 1 owns 2, person 2 owns 2
    log = make_log([(0, (1,)), (0, (1, 2)), (2, (2,))])
    assert E.message_count_histogram(log, 3).tolist() == [0, 3, 0]
    assert E.message_count_histogram(log, 2).tolist() == [0, 3]
    assert E.message_count_histogram(log, 1).tolist() == [3]


def test_map_at_the_boundary_and_a_release():
    t = E.make_message_count_histogram(*SPACE, max_count=8)
    assert t.map(1) == 4 and t.map(3) == 12
    assert t.check(1, 4) and not t.check(1, 3)
    meas = t >> dp.m.then_laplace(scale=4.0)
    assert meas.map(1) == pytest.approx(1.0)
    log = dpg.polars.message_log(dpg.datasets.synthetic_chat_log())
    truth = E.message_count_histogram(log, 8)
    released = np.asarray(meas(log))
    assert released.shape == truth.shape
    assert np.abs(released - truth).sum() < 8 * 4 * 10  # scale 4 per entry: far below 10 scales


def test_arguments_and_spaces_are_checked():
    with pytest.raises(ValueError, match="max_count"):
        E.make_message_count_histogram(*SPACE, max_count=0)
    with pytest.raises(TypeError, match="pair_log_distance"):
        E.make_message_count_histogram(SPACE[0], dpg.polars.person_log_distance(), max_count=4)
    with pytest.raises(TypeError, match="message_log_domain"):
        E.make_message_count_histogram(dp.atom_domain(T=float), SPACE[1], max_count=4)
    t = E.make_message_count_histogram(*SPACE, max_count=4)
    with pytest.raises(Exception, match="d_in counts pairs"):
        t.map(-1)
    with pytest.raises(Exception, match="MessageLog"):
        t([1, 2])
    # a person-level release refuses the edge-level metric
    with pytest.raises(TypeError, match="person_log_distance"):
        dpg.polars.make_private_total(SPACE[0], SPACE[1], privacy_loss=dp.loss_of(epsilon=1.0), max_contribution=8)
