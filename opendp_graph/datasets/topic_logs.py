"""A synthetic message log whose subjects have a known topic structure.

:func:`synthetic_topic_log` draws an organisation of ``num_people`` people in ``num_topics``
teams; each team writes mostly about its own topic. A topic is ``words_per_topic`` words of its
own; a subject is ``3 + Poisson(2)`` words, each from the sender's team topic with probability
``focus`` and otherwise from a shared background vocabulary of ``background`` words (Zipf
frequencies, like the common words of real subjects). A message goes from a sender to one
recipient, in the same team with probability ``focus``; times are uniform over ``months`` months
from 2020-01-01. The planted topics are returned with the log, so a topic model can be scored
against them (issue 31). The randomness draws *data*; it plays no part in any release.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np

from ..core._checks import integer_at_least

__all__ = ["synthetic_topic_log"]


def synthetic_topic_log(
    num_messages: int = 20_000,
    *,
    num_people: int = 400,
    num_topics: int = 8,
    words_per_topic: int = 25,
    background: int = 300,
    focus: float = 0.7,
    months: int = 24,
    seed: int = 0,
):
    """The log (a Polars ``DataFrame``: ``message_id``, ``time``, ``sender``, ``recipient``,
    ``subject``) and the planted topics (``num_topics`` lists of words), deterministic from
    ``seed``. Topic ``t``'s words are ``t{t}w{j}``; background words are ``b{j}``.

    >>> import opendp_graph as dpg
    >>> log, topics = dpg.datasets.synthetic_topic_log(200, num_people=40, num_topics=4, seed=1)
    >>> log.height, len(topics), topics[0][:3]
    (200, 4, ['t0w0', 't0w1', 't0w2'])
    """
    import polars as pl

    from .synthetic import _real_arg, _rng

    num_messages = integer_at_least("num_messages", num_messages, 1)
    num_people = integer_at_least("num_people", num_people, 2)
    num_topics = integer_at_least("num_topics", num_topics, 1)
    words_per_topic = integer_at_least("words_per_topic", words_per_topic, 1)
    background = integer_at_least("background", background, 1)
    months = integer_at_least("months", months, 1)
    focus = _real_arg("focus", focus, 0.0, 1.0)
    rng = _rng(seed)
    topics = [[f"t{t}w{j}" for j in range(words_per_topic)] for t in range(num_topics)]
    common = np.array([f"b{j}" for j in range(background)])
    zipf = 1.0 / np.arange(1, background + 1)
    zipf /= zipf.sum()
    team = np.arange(num_people) % num_topics
    sender = rng.integers(num_people, size=num_messages)
    same = rng.random(num_messages) < focus
    # a recipient in the sender's team (another person) or anyone else
    mates = [np.flatnonzero(team == t) for t in range(num_topics)]
    recipient = np.empty(num_messages, dtype=np.int64)
    for i, (s, inside) in enumerate(zip(sender.tolist(), same.tolist())):
        pool = mates[team[s]] if inside and mates[team[s]].size > 1 else np.arange(num_people)
        r = s
        while r == s:
            r = int(pool[rng.integers(pool.size)])
        recipient[i] = r
    lengths = 3 + rng.poisson(2, size=num_messages)
    subjects = []
    for s, n in zip(sender.tolist(), lengths.tolist()):
        own = rng.random(n) < focus
        words = [topics[team[s]][int(rng.integers(words_per_topic))] if o else str(common[rng.choice(background, p=zipf)]) for o in own.tolist()]
        subjects.append(" ".join(words))
    start = datetime(2020, 1, 1, tzinfo=timezone.utc)
    span = (months * 30.44) * 86_400
    seconds = np.sort(rng.uniform(0, span, size=num_messages))
    times = [start + timedelta(seconds=float(x)) for x in seconds]
    frame = pl.DataFrame(
        {
            "message_id": np.arange(num_messages, dtype=np.int64),
            "time": pl.Series(times, dtype=pl.Datetime("us", "UTC")),
            "sender": sender.astype(np.int64),
            "recipient": recipient,
            "subject": subjects,
        }
    )
    return frame, topics
