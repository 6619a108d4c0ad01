"""The synthetic chat log with text (opendp_graph.datasets.chat_text): shape, determinism, the
drift it promises (emerging topics absent from the early months), and that its word order is
learnable (a bigram model of the later months beats a unigram one and the early months' model)."""

from __future__ import annotations

import collections
import re

import numpy as np
import polars as pl
import pytest

import opendp_graph as dpg
from opendp_graph.text import NGramModel, ngram_counts


@pytest.fixture(scope="module")
def log():
    return dpg.datasets.synthetic_chat_text(12_000, seed=3)


def test_columns_messages_and_determinism(log):
    assert log.columns == ["message_id", "time", "sender", "recipient", "text"]
    assert log["message_id"].n_unique() == log.height == 12_000
    assert 0.2 < (log["sender"] == log["recipient"]).mean() < 0.3  # a quarter to oneself
    assert log.equals(dpg.datasets.synthetic_chat_text(12_000, seed=3))
    assert not log["text"].equals(dpg.datasets.synthetic_chat_text(12_000, seed=4)["text"])
    bots = log.filter(pl.col("sender") >= log["sender"].max() - 2)
    assert bots["text"].n_unique() <= 4 and bots.height == 2_100  # three bots, 700 replies each, fixed phrases


def test_emerging_topics_start_at_their_month(log):
    month = pl.Series((log["time"].to_numpy() - np.datetime64("2020-01-01", "us")) // np.timedelta64(30 * 86_400, "s"))
    words = log["text"].str.split(" ")
    topic_of = lambda ws: {int(m[1]) for w in ws if (m := re.fullmatch(r"t(\d+)w\d+", w))}
    early = set().union(*[topic_of(ws) for ws in words.filter(month < 6).to_list()])
    late = set().union(*[topic_of(ws) for ws in words.filter(month >= 6).to_list()])
    assert early == set(range(9)) and late == set(range(12))


def test_the_later_months_teach_a_bigram_model_what_the_early_ones_cannot(log):
    ordered = log.sort("time")
    n = ordered.height
    tokens = [t.split(" ") for t in ordered["text"].to_list()]
    snapshot, private, held = tokens[: n // 10], tokens[n // 10: n * 8 // 10], tokens[n * 8 // 10:]
    vocabulary = [w for w, c in collections.Counter(w for s in snapshot for w in s).items() if c >= 2]
    snap, priv = ngram_counts(snapshot, (1, 2)), ngram_counts(private, (1, 2))
    both = collections.Counter(snap)
    both.update(priv)

    def perplexity(counts, order=2):
        return NGramModel.from_counts(counts, order=order, vocabulary=vocabulary).perplexity(held)

    bigram, unigram, alone = perplexity(both), perplexity(both, 1), perplexity(snap)
    # measured at 12,000 messages: 28, 90 and 44 (a small snapshot's vocabulary folds many words into <unk>)
    assert bigram < 0.5 * unigram and bigram < 0.75 * alone


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"num_messages": 1_000}, ValueError, "num_messages"),
        ({"emerging": 12}, ValueError, "emerging"),
        ({"emerge_month": 24}, ValueError, "emerge_month"),
        ({"loyalty": 1.5}, ValueError, "loyalty"),
        ({"seed": -1}, TypeError, "seed"),
        ({"words_per_topic": 2}, ValueError, "words_per_topic"),
    ],
)
def test_bad_arguments_are_refused(kwargs, error, match):
    with pytest.raises(error, match=match):
        dpg.datasets.synthetic_chat_text(**{"num_messages": 3_000, **kwargs})


def test_the_randomness_draws_data_only():
    """A data generator, not a release: no noise argument, and a seed fixes it."""
    assert np.array_equal(
        dpg.datasets.synthetic_chat_text(3_000, seed=0)["sender"].to_numpy(),
        dpg.datasets.synthetic_chat_text(3_000, seed=0)["sender"].to_numpy(),
    )
