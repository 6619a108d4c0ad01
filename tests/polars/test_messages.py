"""Person-level capped totals of a message log (opendp_graph.measurements._capped_totals): the stability
claims tried on every small log, the certificate, the release's error statement."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import opendp.prelude as dp
import polars as pl
import pytest

import opendp_graph as dpg
from opendp_graph import polars as M

dp.enable_features("contrib", "honest-but-curious")

PEOPLE = (0, 1, 2)
# every message shape on three people: a sender and a non-empty recipient set (self included)
SHAPES = [(s, r) for s in PEOPLE for n in (1, 2, 3) for r in itertools.combinations(PEOPLE, n)]


def make_log(messages, words=None):
    rows = {"message_id": [], "sender": [], "recipient": [], "words": []}
    for i, (s, recipients) in enumerate(messages):
        for r in recipients:
            rows["message_id"].append(i)
            rows["sender"].append(s)
            rows["recipient"].append(r)
            rows["words"].append(0 if words is None else words[i])
    frame = pl.DataFrame(rows, schema={"message_id": pl.Int64, "sender": pl.Int64, "recipient": pl.Int64, "words": pl.Int64})
    return M.message_log(frame, words="words")


def direct_log(messages, words=None, people=PEOPLE):
    """The MessageLog that make_log builds, without Polars (for the exhaustive loops); person
    ``i`` is ``people[i]``."""
    owners = [[s, *[r for r in dict.fromkeys(rs) if r != s]] for s, rs in messages]
    pairs = [o[1:] for o in owners]
    indptr = np.concatenate([[0], np.cumsum([len(o) for o in owners])]).astype(np.int64)
    pair_indptr = np.concatenate([[0], np.cumsum([len(p) for p in pairs])]).astype(np.int64)
    return M.MessageLog(
        people=np.array(people, dtype=object), owner_indptr=indptr,
        owners=np.array([x for o in owners for x in o], dtype=np.int64),
        sender=np.array([s for s, _ in messages], dtype=np.int64),
        recipients=np.array([len(set(r)) for _, r in messages], dtype=np.int64),
        pair_indptr=pair_indptr, pair_recipients=np.array([x for p in pairs for x in p], dtype=np.int64),
        words=None if words is None else np.asarray(words, dtype=np.int64),
        id_kind="text" if people and isinstance(people[0], str) else "integer",
    )


def without(messages, person):
    return [m for m in messages if person != m[0] and person not in m[1]]


def small_logs(max_messages):
    for n in range(max_messages + 1):
        yield from itertools.combinations_with_replacement(SHAPES, n)


def test_message_log_reads_owners_once_each():
    log = make_log([(0, (0, 1)), (1, (2, 2)), (2, (2,))])
    assert log.num_messages == 3 and log.num_people == 3
    assert [log.owners[log.owner_indptr[m]:log.owner_indptr[m + 1]].tolist() for m in range(3)] == [[0, 1], [1, 2], [2]]
    assert log.load().tolist() == [1, 2, 2]
    assert log.recipients.tolist() == [2, 1, 1]


def test_list_recipient_column_and_text_ids():
    frame = pl.DataFrame({"id": ["m1", "m2"], "s": ["ann", "bob"], "r": [["bob", "cy"], ["ann"]], "text": ["hi there", "ok"]})
    log = M.message_log(frame, message_id="id", sender="s", recipient="r", words="text")
    assert log.people.tolist() == ["ann", "bob", "cy"]
    assert log.words.tolist() == [2, 1]
    assert M.capped_total(log, 100, "words") == 3


@pytest.mark.parametrize(
    "frame, kwargs, error, match",
    [
        (pl.DataFrame({"message_id": [1], "sender": [1.0], "recipient": [2.0]}), {}, TypeError, "float"),
        (pl.DataFrame({"message_id": [1], "sender": [1], "recipient": ["2"]}), {}, TypeError, "same"),
        (pl.DataFrame({"message_id": [1], "sender": [None], "recipient": [2]}, schema={"message_id": pl.Int64, "sender": pl.Int64, "recipient": pl.Int64}), {}, ValueError, "nulls"),
        (pl.DataFrame({"message_id": [1, 1], "sender": [1, 2], "recipient": [2, 3]}), {}, ValueError, "different senders"),
        (pl.DataFrame({"message_id": [1], "sender": [1], "recipient": [2]}), {"time": "nope"}, ValueError, "no column"),
        (pl.DataFrame({"message_id": [1], "sender": [1], "recipient": [2], "w": [-1]}), {"words": "w"}, ValueError, "negative"),
        ([1, 2], {}, TypeError, "Polars"),
    ],
)
def test_bad_logs_are_refused_with_a_clear_error(frame, kwargs, error, match):
    with pytest.raises(error, match=match):
        M.message_log(frame, **kwargs)


# every log of up to 2 messages in the default run, every kind at τ = 1 and "messages" at the
# fractional and larger caps; in the thorough tier the other kinds at those caps (6 s) and up to 3
# messages at τ = 1 for "messages" (12 s); all of them up to 3 with -m slow
KINDS = ("messages", "deliveries", "pairs")
EXHAUSTIVE = (
    [pytest.param("messages", 1, 3, marks=pytest.mark.thorough), ("messages", 1, 2)]
    + [(kind, 1, 2) for kind in KINDS[1:]]
    + [pytest.param(kind, 1, 3, marks=pytest.mark.slow) for kind in KINDS[1:]]
    + [pytest.param(kind, tau, 2, marks=[] if kind == "messages" else [pytest.mark.thorough]) for kind in KINDS for tau in (0.5, 2)]
    + [pytest.param(kind, tau, 3, marks=pytest.mark.slow) for kind in KINDS for tau in (0.5, 2)]
)


@pytest.mark.parametrize("kind, tau, size", EXHAUSTIVE)
def test_capped_total_moves_at_most_tau_per_person_on_every_small_log(kind, tau, size):
    """Every log of at most ``size`` messages on 3 people (21 message shapes, group and self
    messages included), every person removed (add/remove) and every pair of logs that differ
    only in one person's messages (replace): the capped total moves by at most τ (+ the LP
    slack), and τ is reached."""
    slack = M.LP_TOLERANCE * tau
    worst = 0.0
    by_rest: dict = {}
    value = {messages: M.capped_total(direct_log(messages), tau, kind) for messages in small_logs(size)}
    for messages in small_logs(size):
        q = value[messages]
        for v in PEOPLE:
            rest = tuple(without(messages, v))
            q0 = value[rest]
            assert q0 - slack <= q <= q0 + tau + slack, (messages, v)
            worst = max(worst, q - q0)
            by_rest.setdefault((v, rest), []).append(q)
    for values in by_rest.values():  # replace: logs with the same messages outside v's
        assert max(values) - min(values) <= tau + slack
    assert worst == pytest.approx(tau)  # attained: the bound is tight


def test_capped_total_is_an_extension_and_a_lower_bound():
    rng = random.Random(7)
    for _ in range(200):
        messages = [rng.choice(SHAPES) for _ in range(rng.randrange(0, 7))]
        log = direct_log(messages)
        if messages:  # the Polars reader and the direct builder agree (people seen only)
            read = make_log(messages)
            assert dict(zip(read.people.tolist(), read.load().tolist())) == {
                p: x for p, x in zip(PEOPLE, log.load().tolist()) if p in read.people.tolist()}
        total = float(log.num_messages)
        top = float(log.load().max()) if messages else 1.0
        assert M.capped_total(log, top) == total  # every person within the cap: nothing dropped
        values = [M.capped_total(log, t) for t in (0.25, 0.5, 1, 2, 3, 5)]
        assert all(a <= b + 1e-9 for a, b in zip(values, values[1:]))  # nondecreasing in τ
        assert all(v <= total + 1e-9 for v in values)
        ratios = [v / t for v, t in zip(values, (0.25, 0.5, 1, 2, 3, 5))]
        assert all(a >= b - 1e-9 for a, b in zip(ratios, ratios[1:]))  # Q(τ)/τ nonincreasing (concave, Q(0)=0)


# the first 3 of the 15 trials by default, all 15 (8.5 s) in the thorough tier
@pytest.mark.parametrize("trials", [pytest.param(15, marks=pytest.mark.thorough), 3])
def test_capped_total_on_random_larger_logs_person_removed(trials):
    rng = np.random.default_rng(3)
    for trial in range(trials):  # 30 trials took 6.6 s of the default run's budget
        people = 12
        messages = []
        for _ in range(rng.integers(20, 80)):
            s = int(rng.integers(people))
            r = tuple(sorted(set(rng.integers(people, size=int(rng.integers(1, 4))).tolist())))
            messages.append((s, r))
        tau = float(rng.integers(1, 6))
        for kind in ("messages", "pairs", "words"):
            words = rng.integers(0, 5, size=len(messages)).tolist()
            q = M.capped_total(make_log(messages, words), tau, kind)
            for v in range(people):
                kept = [i for i, m in enumerate(messages) if v != m[0] and v not in m[1]]
                q0 = M.capped_total(make_log([messages[i] for i in kept], [words[i] for i in kept]), tau, kind)
                assert q0 - 1e-6 * tau <= q <= q0 + tau * (1 + 1e-6), (trial, kind, v)


def _greedy_kept(messages, k):
    """Row-choosing truncation: keep a message when each owner holds fewer than k kept ones."""
    held: dict = {}
    kept = 0
    for s, recipients in messages:
        owners = {s, *recipients}
        if all(held.get(o, 0) < k for o in owners):
            kept += 1
            for o in owners:
                held[o] = held.get(o, 0) + 1
    return kept


def test_greedy_truncation_cascades():
    """Why the module does not choose rows: with group messages, a greedy rule keeping a message
    when all its owners are under k changes by more than k when one person is added, and by more
    as the log grows (each dropped message frees two others), while the capped total moves by at
    most k."""
    def chain(depth):
        # a binary cascade: person 0's message blocks 1, whose dropped message frees 2 and 3, ...
        messages, nxt = [], 1
        layer = [0]
        for _ in range(depth):
            new_layer = []
            for p in layer:
                a, b = nxt, nxt + 1
                nxt += 2
                messages.append((p, (a, b)))
                new_layer += [a, b]
            layer = new_layer
        return messages

    gaps = []
    for depth in (2, 3, 4):
        log = chain(depth)
        with_v = [(99, (0,))] + log  # person 99 added: their message comes first
        gaps.append(abs(_greedy_kept(with_v, 1) - _greedy_kept(log, 1)))
        q1 = M.capped_total(make_log(with_v), 1)
        q0 = M.capped_total(make_log(log), 1)
        assert abs(q1 - q0) <= 1 + 1e-6
    assert gaps[0] > 1 and gaps == sorted(gaps) and gaps[-1] > gaps[0]


def test_transformation_maps_and_boundary():
    space = M.message_log_domain(), M.person_log_distance()
    t = M.make_capped_total(*space, cap=8, of="messages")
    assert t.map(1) >= 8 and t.map(1) <= 8 * (1 + 2e-6)
    assert t.map(3) >= 24 and t.check(1, t.map(1)) and not t.check(1, 8 * (1 + M.LP_TOLERANCE) * (1 - 1e-9))
    ladder = M.make_capped_total_ladder(*space, caps=[1, 2, 4])
    assert ladder.map(1) == pytest.approx(3 * (1 + M.LP_TOLERANCE))
    assert ladder(make_log([(0, (1,)), (0, (2,)), (0, (1, 2))])) == pytest.approx([1.0, 1.0, 0.75])
    rep = M.make_capped_total(M.message_log_domain(), M.person_log_distance("replace"), cap=2)
    assert rep.map(1) == pytest.approx(2 * (1 + M.LP_TOLERANCE))


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: M.make_capped_total(dpg.graph_domain(), M.person_log_distance(), 1), TypeError, "message_log_domain"),
        (lambda: M.make_capped_total(M.message_log_domain(), dpg.node_distance(), 1), TypeError, "person_log_distance"),
        (lambda: M.make_capped_total(M.message_log_domain(), M.person_log_distance(), 0), ValueError, "cap"),
        (lambda: M.make_capped_total(M.message_log_domain(), M.person_log_distance(), 1, of="bytes"), ValueError, "of must"),
        (lambda: M.person_log_distance("rewire"), ValueError, "neighbouring"),
        (lambda: M.make_capped_total_ladder(M.message_log_domain(), M.person_log_distance(), [2, 1]), ValueError, "increasing"),
        (lambda: M.make_private_total(M.message_log_domain(), M.person_log_distance(), dp.loss_of(epsilon=0.0), max_contribution=8), ValueError, "epsilon"),
        (lambda: M.make_private_total(M.message_log_domain(), M.person_log_distance(), dp.loss_of(epsilon=1.0), max_contribution=0), ValueError, "max_contribution"),
        (lambda: M.make_private_total(M.message_log_domain(), M.person_log_distance(), dp.loss_of(epsilon=1.0), max_contribution=8, beta=1.0), ValueError, "beta"),
        (lambda: M.make_private_total(M.message_log_domain(), M.person_log_distance(), dp.loss_of(epsilon=1.0), max_contribution=8, d_in=0), ValueError, "d_in"),
    ],
)
def test_constructor_arguments_are_checked_when_built(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_a_table_instead_of_a_log_is_refused_in_one_line():
    """A release given the Polars table itself (not its MessageLog snapshot) says what to pass,
    instead of failing deep inside the solver."""
    frame = pl.DataFrame({"message_id": [1], "sender": [1], "recipient": [2]})
    with pytest.raises(TypeError, match=r"expected a MessageLog .*message_log\(table\).*got DataFrame"):
        M.capped_total(frame, 1)
    meas = M.make_private_total(M.message_log_domain(), M.person_log_distance(), privacy_loss=dp.loss_of(epsilon=1.0), max_contribution=8)
    with pytest.raises(Exception, match="expected a MessageLog"):
        meas(frame)


def test_words_need_a_words_column():
    log = M.message_log(pl.DataFrame({"message_id": [1], "sender": [1], "recipient": [2]}))
    with pytest.raises(ValueError, match="words column"):
        M.capped_total(log, 1, "words")


def test_private_total_map_is_epsilon_at_d_in():
    space = M.message_log_domain(), M.person_log_distance()
    for d_in in (1, 2):
        meas = M.make_private_total(*space, privacy_loss=dp.loss_of(epsilon=0.7), max_contribution=300, d_in=d_in)
        assert meas.map(d_in) <= 0.7 and meas.map(d_in) == pytest.approx(0.7, rel=1e-6)
        assert not meas.check(d_in, 0.7 * (1 - 1e-3))


def _hub_log(seed):
    rng = np.random.default_rng(seed)
    people = 60
    weights = rng.pareto(1.5, size=people) + 1
    p = weights / weights.sum()
    messages = []
    for _ in range(900):
        s = int(rng.choice(people, p=p))
        r = tuple(sorted(set(rng.choice(people, size=int(rng.integers(1, 3)), p=p).tolist())))
        messages.append((s, r))
    return make_log(messages)


def test_release_interval_covers_the_truth():
    """The stated interval [estimate, upper] holds the true total in at least 1 − β of the
    releases (max_contribution a true bound), and the estimate is below the truth in ≥ 1 − β/2."""
    log = _hub_log(0)
    truth = float(log.num_messages)
    top = int(log.load().max())
    meas = M.make_private_total(M.message_log_domain(), M.person_log_distance(), privacy_loss=dp.loss_of(epsilon=2.0), max_contribution=top, beta=0.2)
    releases = [meas(log) for _ in range(40)]
    covered = sum(r.estimate <= truth <= r.upper for r in releases)
    below = sum(r.estimate <= truth for r in releases)
    assert covered >= 0.8 * 40 - 4  # 1 − β = 0.8 (4 releases of slack: 40 draws)
    assert below >= 36
    assert all(isinstance(r, M.TotalRelease) and r.estimate >= 0 for r in releases)


def test_explicit_caps_are_a_shorter_ladder_with_less_noise():
    space = M.message_log_domain(), M.person_log_distance()
    full = M.make_private_total(*space, privacy_loss=dp.loss_of(epsilon=1.0), max_contribution=1024)
    short = M.make_private_total(*space, privacy_loss=dp.loss_of(epsilon=1.0), max_contribution=1024, caps=[64, 128])
    log = _hub_log(1)
    a, b = full(log), short(log)
    assert len(a.caps) == 10 and b.caps == (64.0, 128.0)
    assert b.noise_scales[0] == pytest.approx(64 * 2 * (1 + M.LP_TOLERANCE), rel=1e-6)  # J = 2 rungs share ε
    assert a.noise_scales[0] == pytest.approx(2 * 10 * (1 + M.LP_TOLERANCE), rel=1e-6)
    with pytest.raises(ValueError, match="at most max_contribution"):
        M.make_private_total(*space, privacy_loss=dp.loss_of(epsilon=1.0), max_contribution=100, caps=[64, 128])


def test_repeated_releases_solve_each_program_once():
    log = _hub_log(2)
    first = M.capped_total(log, 3)
    assert ("messages", 3.0) in log._capped and M.capped_total(log, 3.0) == first
    with pytest.raises(AttributeError, match="immutable"):
        log.owners = None


def test_synthetic_log_has_hubs_bots_and_self_messages():
    frame = dpg.datasets.synthetic_message_log(20_000, num_people=2_000, bot_replies=500, num_bots=3, seed=4)
    assert frame["message_id"].n_unique() == 20_000
    bots = frame.filter(pl.col("sender") >= 1_997)
    assert bots["message_id"].n_unique() == 1_500 and bots.group_by("sender").agg(pl.col("recipient").n_unique())["recipient"].to_list() == [500] * 3
    per_message = frame.group_by("message_id").agg(pl.col("sender").first(), pl.col("recipient"))
    self_only = per_message.filter(pl.col("recipient").list.len() == 1).filter(pl.col("recipient").list.first() == pl.col("sender")).height
    assert self_only / 20_000 >= 0.2
    log = M.message_log(frame, time="time", words="words")
    load = np.sort(log.load())
    assert load[-30:].sum() > 10 * np.median(load) * 30  # a heavy tail
    assert dpg.datasets.synthetic_message_log(500, num_people=100, bot_replies=10, seed=4).equals(
        dpg.datasets.synthetic_message_log(500, num_people=100, bot_replies=10, seed=4))
    with pytest.raises(ValueError, match="exceed"):
        dpg.datasets.synthetic_message_log(100, num_people=100, bot_replies=50, num_bots=3)
    with pytest.raises(ValueError, match="months must be at least 1"):
        dpg.datasets.synthetic_message_log(100, num_people=100, bot_replies=10, months=0)
    with pytest.raises(ValueError, match=r"self_share must lie in \[0.0, 1.0\)"):
        dpg.datasets.synthetic_message_log(100, num_people=100, bot_replies=10, self_share=1.0)


def test_within_is_a_public_window():
    frame = pl.DataFrame({
        "message_id": [1, 2, 3], "sender": [1, 1, 2], "recipient": [2, 3, 1],
        "time": pl.Series(["2001-01-05", "2001-02-05", "2001-03-05"]).str.to_datetime(),
    })
    log = M.message_log(frame, time="time")
    feb = log.within("2001-02-01", "2001-03-01")
    assert feb.num_messages == 1 and M.capped_total(feb, 5) == 1
    with pytest.raises(ValueError, match="no time column"):
        M.message_log(frame.drop("time")).within("2001-02-01")


# ----------------------------------------------------------------------------- red-team findings
def test_upper_bound_holds_when_the_default_ladder_passes_max_contribution():
    """Red team: with M = 3 the default caps are (2, 4); the ratio bound M·Q(τ)/τ at τ = 4 > M
    was below the truth in 294 of 300 releases. Rungs at or above M now bound Q directly."""
    rows = [(3 * i + k, 2 * i, 2 * i + 1) for i in range(300) for k in range(3)]  # every load 3
    log = M.message_log(pl.DataFrame(rows, schema=["message_id", "sender", "recipient"], orient="row"))
    meas = M.make_private_total(M.message_log_domain(), M.person_log_distance(), privacy_loss=dp.loss_of(epsilon=1.0), max_contribution=3, beta=0.1)
    releases = [meas(log) for _ in range(300)]
    assert releases[0].caps == (2.0, 4.0)
    assert sum(r.upper < 900 for r in releases) <= 30  # β = 0.1 (claimed ≤ 5 %, 10 % of slack)
    assert sum(r.estimate > 900 for r in releases) <= 30


def test_huge_word_counts_are_certified_on_neighbours_alike():
    """Red team: word counts near 10¹³ made the certificate fail on a log and not on its
    neighbour (an exception that told them apart). ψ is now capped at τ and the program solved
    in units of τ."""
    rows = [(7, 5, 1, 56394139912103), (20, 1, 3, 36688112902761), (22, 5, 3, 60838048673134),
            (22, 5, 2, 60838048673134), (32, 1, 2, 89482949571262)]

    def log(r):
        return M.message_log(pl.DataFrame(r, schema=["message_id", "sender", "recipient", "words"], orient="row"), words="words")

    for tau in (1.0, 4.0, 16.0):
        q = M.capped_total(log(rows), tau, "words")
        for v in (1, 2, 3, 5):
            rest = [r for r in rows if v not in (r[1], r[2])]
            q0 = M.capped_total(log(rest), tau, "words") if rest else 0.0
            assert q0 - 1e-6 * tau <= q <= q0 + tau * (1 + 1e-6)
    meas = M.make_private_total(M.message_log_domain(), M.person_log_distance(), privacy_loss=dp.loss_of(epsilon=1.0), max_contribution=10**15, of="words")
    assert isinstance(meas(log(rows)), M.TotalRelease)


def test_word_columns_count_tokens_as_documented():
    frame = pl.DataFrame({"message_id": [1, 2], "sender": [1, 2], "recipient": [2, 1],
                          "text": ["one\ttwo\nthree  four", None], "tokens": [["a", None, "b"], []]})
    assert M.message_log(frame, words="text").words.tolist() == [4, 0]
    assert M.message_log(frame, words="tokens").words.tolist() == [2, 0]
    big = frame.with_columns(pl.Series("n", [2**64 - 1, 1], dtype=pl.UInt64))
    with pytest.raises(ValueError, match="above 2"):
        M.message_log(big, words="n")


def test_message_id_must_be_its_own_column_and_caps_have_a_floor():
    frame = pl.DataFrame({"message_id": [1], "sender": [1], "recipient": [2]})
    with pytest.raises(ValueError, match="its own column"):
        M.message_log(frame, message_id="sender")
    with pytest.raises(ValueError, match="at least"):
        M.capped_total(M.message_log(frame), M.MIN_CAP / 2)
    with pytest.raises(ValueError, match="at least"):
        M.make_capped_total(M.message_log_domain(), M.person_log_distance(), cap=1e-9)


def test_accuracy_accepts_the_total_and_the_degree_distribution():
    """Issue 29: dpg.accuracy states the noise of every release the package makes, the two that
    choose a candidate under DP included (one Accuracy per candidate, the bias pointed to)."""
    total = M.make_private_total(M.message_log_domain(), M.person_log_distance(), privacy_loss=dp.loss_of(epsilon=1.0), max_contribution=64, caps=[8, 16, 32])
    acc = dpg.accuracy(total, alpha=0.05)
    assert isinstance(acc, dpg.ChoiceAccuracy) and [c for c, _ in acc.choices] == [8.0, 16.0, 32.0]
    release = total(_hub_log(3))
    assert acc.for_choice(32.0).scale == pytest.approx(release.noise_scales[-1])
    assert acc.for_choice(8.0).half_width == pytest.approx(release.noise_scales[0] * math.log(20))
    assert acc.worst is acc.for_choice(32.0) and "upper" in acc.bias
    dist = dpg.make_private_degree_distribution(dpg.graph_domain(), dpg.node_insertion_distance(), privacy_loss=dp.loss_of(epsilon=1.0), candidates=[4, 8])
    dacc = dpg.accuracy(dist, alpha=0.05)
    g = dpg.Graph.from_edges([0, 1, 2], [1, 2, 3])
    out = dist(g)
    assert dacc.for_choice(float(out.theta)).scale == pytest.approx(out.noise_scale)
    assert dacc.for_choice(4.0).noise == "discrete_laplace" and "projection" in dacc.bias
    table = dpg.summarize({"total": total, "degrees": dist})
    assert table["release"].to_list() == ["total (τ=8)", "total (τ=16)", "total (τ=32)", "degrees (θ=4)", "degrees (θ=8)"]
    assert "τ = 8" in str(acc)


@pytest.mark.parametrize(
    "change, match",
    [
        (dict(owners=np.array([0, 5], dtype=np.int64)), "indices into people"),
        (dict(owners=np.array([0, 0], dtype=np.int64)), "owner twice"),
        (dict(owners=np.array([1, 0], dtype=np.int64)), "first owner must be its sender"),
        (dict(owner_indptr=np.array([0, 2, 2], dtype=np.int64), sender=np.array([0, 0], dtype=np.int64),
              recipients=np.array([1, 0], dtype=np.int64)), "at least one owner"),
        (dict(recipients=np.array([1, 1], dtype=np.int64)), "one entry per message"),
        # the red team's third round: each of these let removing one person move a capped total
        # by more than its map (a repeated id is two people to the caps; a negative weight)
        (dict(people=np.array(["a", "a", "b"], dtype=object)), "repeat an id"),
        (dict(people=np.array([0, "1", 2], dtype=object)), "one kind"),
        (dict(people=np.array([True, False, 2], dtype=object)), "one kind"),
        (dict(recipients=np.array([-1000], dtype=np.int64)), "recipients must count"),
        (dict(recipients=np.array([3], dtype=np.int64)), "recipients must count"),
        (dict(recipients=np.array([1.0])), "recipients must count"),
        (dict(words=np.array([-1000], dtype=np.int64)), "non-negative integers"),
        (dict(words=np.array([2.5])), "non-negative integers"),
        (dict(time=np.array([5], dtype=np.int64)), "datetime64"),
        (dict(pair_recipients=np.array([2], dtype=np.int64)), "pair_recipients"),
        (dict(pair_indptr=np.array([0, 0], dtype=np.int64), pair_recipients=np.array([], dtype=np.int64)), "pair_recipients"),
        # the fifth round: bool arrays passed every range check and then indexed as masks
        (dict(owners=np.array([False, True]), sender=np.array([False]), pair_recipients=np.array([True])), "array of integers"),
        (dict(owners=np.array([0.0, 1.0])), "array of integers"),
    ],
)
def test_a_hand_built_log_is_checked(change, match):
    fields = dict(
        people=np.array(PEOPLE, dtype=object), owner_indptr=np.array([0, 2], dtype=np.int64),
        owners=np.array([0, 1], dtype=np.int64), sender=np.array([0], dtype=np.int64),
        recipients=np.array([1], dtype=np.int64), pair_indptr=np.array([0, 1], dtype=np.int64),
        pair_recipients=np.array([1], dtype=np.int64),
    )
    M.MessageLog(**fields)  # the valid one
    fields.update(change)
    if "owner_indptr" in change:
        fields["pair_indptr"] = np.array([0, 1, 1], dtype=np.int64)
    with pytest.raises(ValueError, match=match):
        M.MessageLog(**fields)


def test_a_hand_built_log_with_a_repeated_id_cannot_break_the_map():
    """The red team's reproduction: person "a" at indices 0 and 1 held 2τ of a capped total whose
    map is τ; such a log is refused now, and the same log with "a" once moves by at most τ."""
    with pytest.raises(ValueError, match="repeat an id"):
        direct_log([(0, (2,)), (1, (3,))], people=("a", "a", "b", "c"))
    once = direct_log([(0, (1,)), (0, (2,))], people=("a", "b", "c"))
    assert M.capped_total(once, 1.0) - M.capped_total(direct_log([], people=("b", "c")), 1.0) <= 1.0


def test_a_hand_built_log_is_a_snapshot_of_its_arrays():
    """The red team's sixth round: the log kept the caller's arrays (a view stayed writable), so
    the owners could be changed after the checks and after totals were cached."""
    base = np.array([0, 1, 1, 2, 2, 0], dtype=np.int64)
    log = M.MessageLog(
        people=np.array(PEOPLE, dtype=object), owner_indptr=np.array([0, 2, 4, 6], dtype=np.int64), owners=base[:],
        sender=np.array([0, 1, 2], dtype=np.int64), recipients=np.array([1, 1, 1], dtype=np.int64),
        pair_indptr=np.array([0, 1, 2, 3], dtype=np.int64), pair_recipients=np.array([1, 2, 0], dtype=np.int64),
    )
    before = M.capped_total(log, 1.0)
    base[3] = 1  # the caller's array changes; the log must not
    assert base.flags.writeable and log.owners.tolist() == [0, 1, 1, 2, 2, 0]
    assert log.load().tolist() == [2, 2, 2] and M.capped_total(log, 1.0) == before


def test_a_hand_built_empty_log_is_accepted_like_a_full_one():
    """The red team of the roster-free degree tails: NumPy makes an empty list a float array, so a
    hand-built empty log (or one whose pair lists are empty) was refused where the same code with
    one direct message was accepted (a refusal that depends on the data). Text ids keep trailing
    NULs and large integers stay integers, as message_log keeps them."""
    from opendp_graph.polars import MessageLog

    full = MessageLog(people=["a", "b"], owner_indptr=[0, 2], owners=[0, 1], sender=[0], recipients=[1], pair_indptr=[0, 1],
                      pair_recipients=[1], time=[np.datetime64("2020-01-01", "us")], words=[3])
    only_self = MessageLog(people=["a"], owner_indptr=[0, 1], owners=[0], sender=[0], recipients=[1], pair_indptr=[0, 0],
                           pair_recipients=[])
    empty = MessageLog(people=[], owner_indptr=[0], owners=[], sender=[], recipients=[], pair_indptr=[0], pair_recipients=[],
                       time=[], words=[])
    assert (full.num_messages, only_self.num_messages, empty.num_messages) == (1, 1, 0)
    space = dpg.polars.message_log_domain(), dpg.polars.person_log_distance()
    tails = dpg.polars.make_person_degree_tails(*space, max_degree=2)
    assert tails(empty) == [0, 0] and tails(only_self) == [0, 0] and tails(full) == [2, 0]
    assert dpg.polars.capped_total(empty, 4.0, "words") == 0.0
    nul = MessageLog(people=["a", "a\x00"], owner_indptr=[0, 2], owners=[0, 1], sender=[0], recipients=[1], pair_indptr=[0, 1],
                     pair_recipients=[1])
    assert nul.people.tolist() == ["a", "a\x00"]
    wide = MessageLog(people=[-1, 2**63], owner_indptr=[0, 2], owners=[0, 1], sender=[0], recipients=[1], pair_indptr=[0, 1],
                      pair_recipients=[1])
    assert wide.people.tolist() == [-1, 2**63]
    with pytest.raises(ValueError, match="integers"):
        MessageLog(people=["a"], owner_indptr=[0, 1], owners=[0.0], sender=[0], recipients=[1], pair_indptr=[0, 0], pair_recipients=[])
