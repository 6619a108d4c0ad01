"""A synthetic, hub-heavy message log with group messages, bots and messages to oneself.

Real logs with person ids, recipients and times are few (the Enron table has 154 active people).
:func:`synthetic_message_log` draws a log with the features that make person-level statistics
hard, deterministically from a seed and vectorised in NumPy:

* **heavy-tailed activity** (Chung–Lu): person ``i`` has a weight drawn from a Pareto law
  (``1 + Pareto(tail)``); a sender and each recipient are drawn with probability proportional to
  the weights, so a few people take part in a large share of the messages;
* **bots**: ``num_bots`` accounts each send ``bot_replies`` one-to-one messages to distinct people
  drawn uniformly (a help desk, a notification service);
* **group messages**: a message has ``1 + Poisson(extra_recipients)`` recipients (at most
  ``max_recipients``; repeats are removed);
* **messages to oneself**: a share ``self_share`` of the (non-bot) messages has the sender as its
  only recipient (notes, drafts, forwards to oneself);
* **time and words**: times uniform over ``months`` months from 2020-01-01; ``1 + Poisson(8)``
  words per message.

The randomness here draws *data*; it is not noise and plays no part in any release.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core._checks import integer_at_least

__all__ = ["synthetic_chat_log", "synthetic_message_log"]


def synthetic_message_log(
    num_messages: int = 500_000,
    *,
    num_people: int = 20_000,
    tail: float = 2.0,
    num_bots: int = 5,
    bot_replies: int = 4_000,
    self_share: float = 0.25,
    extra_recipients: float = 0.5,
    max_recipients: int = 10,
    months: int = 24,
    seed: Any = 0,
):
    """A message table, one row per (message, recipient), as a Polars ``DataFrame`` with the
    columns of :func:`~opendp_graph.datasets.load_enron_messages` (``message_id``, ``time``,
    ``sender``, ``recipient``) and ``words`` (an ``Int64`` count per message).

    ``num_messages`` counts every message, the bots' included. Person ids are ``0 …
    num_people − 1``; bots are the last ``num_bots`` ids.

    >>> import opendp_graph as dpg
    >>> log = dpg.datasets.synthetic_message_log(2_000, num_people=300, bot_replies=100, seed=1)
    >>> log.columns, log["message_id"].n_unique()
    (['message_id', 'time', 'sender', 'recipient', 'words'], 2000)
    """
    import polars as pl

    from .synthetic import _real_arg, _rng

    n = integer_at_least("num_messages", num_messages, 1)
    people = integer_at_least("num_people", num_people, 2)
    bots = integer_at_least("num_bots", num_bots, 0)
    replies = integer_at_least("bot_replies", bot_replies, 0)
    if bots * replies > n:
        raise ValueError(f"the bots' {bots * replies} messages exceed num_messages={n}")
    if bots >= people:
        raise ValueError("num_bots must be below num_people")
    if replies > people - bots:
        raise ValueError("a bot replies to distinct people: bot_replies must be at most num_people - num_bots")
    self_share = _real_arg("self_share", self_share, 0.0, 1.0, open_high=True)
    tail = _real_arg("tail", tail, 0.0, math.inf, open_low=True)
    extra_recipients = _real_arg("extra_recipients", extra_recipients, 0.0, math.inf)
    cap = integer_at_least("max_recipients", max_recipients, 1)
    months = integer_at_least("months", months, 1)
    rng = _rng(seed)

    humans = people - bots
    weight = 1.0 + rng.pareto(tail, size=humans)
    p = weight / weight.sum()
    ordinary = n - bots * replies
    sender = rng.choice(humans, size=ordinary, p=p)
    count = np.minimum(1 + rng.poisson(extra_recipients, size=ordinary), cap)
    to_self = rng.random(ordinary) < self_share
    count[to_self] = 1
    recipients = rng.choice(humans, size=int(count.sum()), p=p)
    message_of = np.repeat(np.arange(ordinary), count)
    recipients[to_self[message_of]] = sender[message_of][to_self[message_of]]

    bot_sender = np.repeat(np.arange(humans, people), replies)
    bot_recipient = np.concatenate([rng.choice(humans, size=replies, replace=False) for _ in range(bots)]) if bots else np.zeros(0, dtype=np.int64)
    bot_message = ordinary + np.arange(bots * replies)

    all_message = np.concatenate([message_of, bot_message])
    all_sender = np.concatenate([sender[message_of], bot_sender])
    all_recipient = np.concatenate([recipients, bot_recipient])
    seconds = rng.integers(0, months * 30 * 86_400, size=n)
    words = 1 + rng.poisson(8, size=n)
    frame = pl.DataFrame(
        {
            "message_id": all_message.astype(np.int64),
            "time": (np.datetime64("2020-01-01T00:00:00", "s") + seconds[all_message]).astype("datetime64[us]"),
            "sender": all_sender.astype(np.int64),
            "recipient": all_recipient.astype(np.int64),
            "words": words[all_message].astype(np.int64),
        }
    )
    return frame.unique(["message_id", "recipient"], keep="first", maintain_order=True)


def synthetic_chat_log(num_messages: int = 60_000, *, seed: Any = 0):
    """A log shaped like a chat channel (issue 40's second size, beside the 20,000-person
    default of :func:`synthetic_message_log`): about 6,000 people, ``num_messages`` direct
    messages (one recipient each, so two owners, or one when sent to oneself: a quarter are),
    three bots that each reply to 700 distinct people, and a heavier Pareto tail of activity
    (``tail=1.5``: with the default seed the busiest people own 1,931, 1,358 and 1,259 messages,
    the bots 700 each, the median person 10). It mirrors a real chat log we were shown (5,900
    people, 58,800 messages, three bots, 27 % to oneself, the busiest person with 1,434
    messages), which we cannot ship.

    >>> import opendp_graph as dpg
    >>> log = dpg.datasets.synthetic_chat_log()
    >>> log["message_id"].n_unique(), log["sender"].n_unique() <= 6_000, log.group_by("message_id").len()["len"].max()
    (60000, True, 1)
    """
    return synthetic_message_log(
        num_messages,
        num_people=6_000,
        num_bots=3,
        bot_replies=700,
        self_share=0.25,
        extra_recipients=0.0,
        tail=1.5,
        seed=seed,
    )
