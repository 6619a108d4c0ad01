"""A synthetic chat log *with text*, whose topics drift over time: the test bed for language models
learned from an organisation's private messages.

:func:`synthetic_chat_text` takes the people, bots, times and messages to oneself of
:func:`~opendp_graph.datasets.synthetic_chat_log` and writes each message's text:

* **topics with word order**: ``num_topics`` topics of ``words_per_topic`` words each (``t3w17``
  is word 17 of topic 3), plus a few function words shared by all. In a topic every word has four
  likely successors (probabilities 0.45, 0.25, 0.12, 0.08; with 0.10 the next word is a fresh
  draw from the topic), so a bigram model learns far more than a unigram one;
* **people with interests**: each person has a favourite topic; a message is on it with
  probability ``loyalty`` and otherwise on a topic drawn by the topics' popularity at its time;
* **drift**: popularity moves over the months, and the last ``emerging`` topics are not written
  before month ``emerge_month`` at all: a model of the early months (a public snapshot) has never
  seen them, a model of the later, private period can learn them;
* **bots** post a few fixed phrases (the help desk's replies), as real bots do.

With the default arguments and the split of a real chat log we were shown (the earliest 10 % of
messages a public snapshot, the next 70 % private, the last 20 % held out; vocabulary: the
snapshot's words seen twice, 1,374 of 1,833), held-out perplexity is 183 for the snapshot's
bigram model, 45 for a bigram model of the snapshot and the private period, 136 for its unigram
model: the private period has much to teach, which is what a private language model must learn.

The randomness here draws *data*; it is not noise and plays no part in any release.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core._checks import integer_at_least

__all__ = ["synthetic_chat_text"]

# a word's four likely successors, and the chance of a fresh draw from the topic instead
_SUCCESSOR_P = np.array([0.14, 0.09, 0.05, 0.03, 0.69])
_FUNCTION_WORDS = ("the", "a", "to", "and", "is", "of", "i", "you")
_BOT_PHRASES = (
    "thanks for your message we will get back to you soon",
    "your ticket has been received and assigned",
    "please restart the client and try again",
    "this channel is monitored during office hours",
)


# long: docstring (its guarantee, parameters and refusals) beside code of under 100 lines
def synthetic_chat_text(
    num_messages: int = 60_000,
    *,
    num_topics: int = 12,
    words_per_topic: int = 150,
    loyalty: float = 0.6,
    emerging: int = 3,
    emerge_month: int = 6,
    months: int = 24,
    seed: Any = 0,
):
    """A chat log with a ``text`` column, one row per message (one recipient: the sender itself
    for a quarter of them), as a Polars ``DataFrame`` with the columns ``message_id``, ``time``,
    ``sender``, ``recipient``, ``text``; the people, bots and times of
    :func:`~opendp_graph.datasets.synthetic_chat_log` (about 6,000 people, three bots). Module
    docstring: what the text is made of and how its topics drift.

    :param num_messages: every message, the bots' included (at least 2,100: the bots' 2,100).
    :param num_topics: topics, ``emerging`` of which appear only from ``emerge_month`` on.
    :param words_per_topic: words per topic (the vocabulary is ``num_topics · words_per_topic``
        topic words and eight function words).
    :param loyalty: the chance that a message is on its sender's favourite topic, in ``[0, 1]``.
    :param emerging: how many topics (the last ones) are absent before ``emerge_month``.
    :param emerge_month: the month (0-based, from 2020-01) the emerging topics start.
    :param months: months the log spans, from 2020-01-01.
    :param seed: a non-negative integer; the log is a deterministic function of it.

    >>> import opendp_graph as dpg
    >>> log = dpg.datasets.synthetic_chat_text(5_000, seed=1)
    >>> log.columns, log["message_id"].n_unique(), log["text"].str.split(" ").list.len().min() >= 3
    (['message_id', 'time', 'sender', 'recipient', 'text'], 5000, True)
    """
    import polars as pl

    from .message_logs import synthetic_chat_log
    from .synthetic import _real_arg, _rng

    n = integer_at_least("num_messages", num_messages, 2_100)
    topics = integer_at_least("num_topics", num_topics, 1)
    width = integer_at_least("words_per_topic", words_per_topic, 5)
    loyalty = _real_arg("loyalty", loyalty, 0.0, 1.0)
    new = integer_at_least("emerging", emerging, 0)
    if new >= topics:
        raise ValueError("emerging must be below num_topics (some topics must exist from the start)")
    months = integer_at_least("months", months, 1)
    start = integer_at_least("emerge_month", emerge_month, 0)
    if start >= months:
        raise ValueError("emerge_month must be below months")
    rng = _rng(seed)

    # the people, bots, times and self messages of the chat log (one recipient per message)
    log = synthetic_chat_log(n, seed=int(rng.integers(2**31))).drop("words").sort("message_id")
    sender = log["sender"].to_numpy()
    month = ((log["time"].to_numpy() - np.datetime64("2020-01-01", "us")) // np.timedelta64(30 * 86_400, "s")).astype(np.int64)
    month = np.minimum(month, months - 1)
    people = int(sender.max()) + 1
    bots = np.arange(people - 3, people)  # synthetic_chat_log's three bots are the last ids

    # topic popularity per month: a smooth random walk on log-weights; emerging topics are zero before start
    walk = np.cumsum(rng.normal(0.0, 0.35, size=(months, topics)), axis=0)
    popularity = np.exp(walk)
    popularity[:start, topics - new :] = 0.0
    popularity /= popularity.sum(axis=1, keepdims=True)
    # each person's favourite topic, among those already present when the log starts
    favourite = rng.integers(0, topics - new, size=people)
    # a third of people take an emerging topic as their favourite once it exists
    adopter = (rng.random(people) < 1 / 3) & (new > 0)
    later_favourite = np.where(adopter, topics - new + rng.integers(0, max(new, 1), size=people), favourite)

    m = len(sender)
    fav = np.where(month >= start, later_favourite[sender], favourite[sender])
    drawn = np.empty(m, dtype=np.int64)
    for t in range(months):  # by month: each month's popularity
        here = np.flatnonzero(month == t)
        drawn[here] = rng.choice(topics, size=here.size, p=popularity[t])
    topic = np.where(rng.random(m) < loyalty, fav, drawn)

    # word order within a topic: four successors per word, fixed for the log
    successors = rng.integers(0, width, size=(topics, width, 4))
    length = 3 + rng.poisson(6, size=m)
    longest = int(length.max())
    # fresh draws follow Zipf's law within the topic (a few words are common, most are rare)
    zipf = 1.0 / np.arange(1, width + 1) ** 1.1
    zipf /= zipf.sum()
    word = rng.choice(width, size=m, p=zipf)
    tokens = np.empty((m, longest), dtype=np.int64)
    tokens[:, 0] = word
    for step in range(1, longest):
        pick = rng.choice(5, size=m, p=_SUCCESSOR_P)
        fresh = rng.choice(width, size=m, p=zipf)
        following = successors[topic, word, np.minimum(pick, 3)]
        word = np.where(pick == 4, fresh, following)
        tokens[:, step] = word
    # a function word now and then (shared by all topics: the snapshot knows them)
    function = rng.random((m, longest)) < 0.25
    function_word = rng.integers(0, len(_FUNCTION_WORDS), size=(m, longest))

    texts = []
    is_bot = np.isin(sender, bots)
    bot_phrase = rng.integers(0, len(_BOT_PHRASES), size=m)
    for i in range(m):
        if is_bot[i]:
            texts.append(_BOT_PHRASES[bot_phrase[i]])
            continue
        t = topic[i]
        texts.append(" ".join(_FUNCTION_WORDS[function_word[i, j]] if function[i, j] else f"t{t}w{tokens[i, j]}" for j in range(length[i])))
    return log.with_columns(pl.Series("text", texts, dtype=pl.String))
