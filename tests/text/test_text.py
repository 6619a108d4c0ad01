"""The text front end (opendp_graph.text): tokens, n-grams per message and per pair, the split by
time, and the Kneser–Ney model built from (noisy) counts: every distribution sums to one, the
model is a function of the counts alone, and the ARPA file round-trips."""

from __future__ import annotations

import io
import itertools
import math
import random
from datetime import datetime, timezone

import numpy as np
import polars as pl
import pytest

pytest.importorskip("sklearn", reason='the text front end needs scikit-learn: pip install "opendp-graph[text]"')

import opendp_graph as dpg  # noqa: E402
from opendp_graph import text as T  # noqa: E402
from opendp_graph.text._lm import threshold_multiple  # noqa: E402
from opendp_graph.transformations.labels import label_counts  # noqa: E402


# ----------------------------------------------------------------------------- tokens and n-grams
def test_the_analyzer_is_scikit_learns_with_reply_markers_removed():
    analyze = T.tokenizer()
    assert analyze("RE: Fw: re: Gas Prices, Q3 2001") == ["gas", "prices", "q3", "2001"]
    assert analyze(None) == [] and analyze("") == []
    assert T.tokenizer(stop_words="english")("the price of gas") == ["price", "gas"]
    assert T.tokenizer(stop_words=["gas"])("the gas") == ["the"]
    assert T.tokenizer(strip_reply_markers=False)("re: gas") == ["re", "gas"]
    with pytest.raises(TypeError, match="text must be a str"):
        analyze(3)
    with pytest.raises(ValueError, match="stop_words"):
        T.tokenizer(stop_words="french")


def test_ngrams_pad_the_sentence_and_never_predict_the_start():
    assert T.ngrams(["a", "b"], orders=(1, 2, 3)) == ["a", "b", "</s>", "<s> a", "a b", "b </s>", "<s> a b", "a b </s>"]
    assert T.ngrams([], orders=(1, 2)) == ["</s>", "<s> </s>"]
    assert T.ngrams(["a"], orders=(2,), boundaries=False) == []
    with pytest.raises(ValueError, match="orders"):
        T.ngrams(["a"], orders=(0,))


def _log():
    """Three messages: m1 a→{b, c} 'Gas gas', m2 a→b 'gas' (the pair a–b repeats it), m3 c→c."""
    t = [datetime(2000, 1, 1, tzinfo=timezone.utc), datetime(2001, 1, 1, tzinfo=timezone.utc), datetime(2002, 1, 1, tzinfo=timezone.utc)]
    return pl.DataFrame({
        "message_id": [1, 1, 2, 3],
        "time": [t[0], t[0], t[1], t[2]],
        "subject": ["Gas gas", "Gas gas", "RE: gas", "note to self"],
        "sender": ["a", "a", "a", "c"],
        "recipient": ["b", "c", "b", "c"],
    })


def test_per_message_counts_count_a_message_once_and_every_repetition_in_it():
    messages = T.message_tokens(_log())
    assert messages["message_id"].to_list() == [1, 2, 3]  # one row per message, by time
    assert messages["tokens"].to_list() == [["gas", "gas"], ["gas"], ["note", "to", "self"]]
    counts = T.ngram_counts(messages["tokens"].to_list(), orders=(1, 2))
    assert counts["gas"] == 3 and counts["gas gas"] == 1 and counts["</s>"] == 3
    assert counts["self"] == 1  # a message to oneself is the person's message: kept


def test_per_pair_counts_count_a_pair_once_and_leave_messages_to_oneself_out():
    graph, self_messages = T.pair_ngram_graph(_log(), ["a", "b", "c"], orders=(1, 2))
    assert self_messages == 1 and graph.num_edges == 2  # a–b and a–c; c→c has no pair
    vocabulary = ["gas", "gas gas", "self"]
    assert label_counts(graph, None, vocabulary) == [2, 2, 0]  # gas on a–b (twice: once) and a–c
    folded, _ = T.pair_ngram_graph(_log(), ["a", "b", "c"], orders=(1,), vocabulary=["note"])
    assert sorted(folded.vocabulary) == ["</s>", "<unk>"]


def test_split_by_time_cuts_at_public_boundaries():
    before, during, after = T.split_by_time(_log(), "2000-06-01", datetime(2001, 6, 1))
    assert before["message_id"].to_list() == [1, 1] and during["message_id"].to_list() == [2]
    assert after["message_id"].to_list() == [3]
    naive = _log().with_columns(pl.col("time").dt.replace_time_zone(None))
    assert [p.height for p in T.split_by_time(naive, "2000-06-01")] == [2, 2]
    assert [p.collect().height for p in T.split_by_time(_log().lazy(), "2000-06-01")] == [2, 2]
    with pytest.raises(ValueError, match="increasing"):
        T.split_by_time(_log(), "2001-01-01", "2000-01-01")
    with pytest.raises(ValueError, match="ISO"):
        T.split_by_time(_log(), "yesterday")
    with pytest.raises(ValueError, match="at least one boundary"):
        T.split_by_time(_log())


# ----------------------------------------------------------------------------- the language model
WORDS = ["gas", "price", "lunch", "meeting"]


def _random_counts(rng, order, noisy):
    counts = {}
    for n in range(1, order + 1):
        for gram in itertools.product(WORDS + ["</s>"], repeat=n):
            if rng.random() < 0.5:
                continue
            counts[" ".join(gram)] = float(rng.integers(1, 9))
        for gram in itertools.product(WORDS, repeat=n - 1):
            counts[" ".join(("<s>", *gram))] = float(rng.integers(1, 9))
    if noisy:
        counts = {g: c + float(rng.laplace(0, 2.0)) - 1.0 for g, c in counts.items()}
    return counts


@pytest.mark.parametrize("order", [1, 2, 3])
@pytest.mark.parametrize("noisy", [False, True])
def test_every_conditional_distribution_sums_to_one(order, noisy):
    rng = np.random.default_rng(order + 10 * noisy)
    for trial in range(5):
        counts = _random_counts(rng, order, noisy)
        public = _random_counts(rng, order, False) if trial % 2 else None
        model = T.NGramModel.from_counts(
            counts, order=order, noise_scale=0.5 if noisy else None, public_counts=public,
            weight={1: 1.5, 2: 0.8} if trial == 3 else 1.0, vocabulary=WORDS,
        )
        for history in itertools.product(["<s>", *WORDS, "unseen"], repeat=order - 1):
            total = sum(model.prob(w, history) for w in model.vocabulary)
            assert math.isclose(total, 1.0, abs_tol=1e-9), (history, total)
            assert all(model.prob(w, history) > 0 for w in model.vocabulary)


def test_the_model_is_a_function_of_the_counts_alone():
    counts = {"gas": 3, "prices": 2, "</s>": 3, "<s> gas": 3, "gas prices": 2, "prices </s>": 2, "gas </s>": 1}
    a, b = (T.NGramModel.from_counts(counts, order=2) for _ in range(2))
    assert a._probs == b._probs and a._backoffs == b._backoffs
    # interpolated Kneser–Ney by hand: λ(gas) = (0.75 + 0.75)/3; P_cont(prices) = 0.25/3 + 0.5/4
    assert math.isclose(a.prob("prices", ["gas"]), 1.25 / 3 + 0.5 * (0.25 / 3 + 0.5 / 4))


def test_noisy_negative_and_small_counts_are_soft_thresholded():
    counts = {"gas": 100.0, "junk": 3.0, "worse": -40.0, "</s>": 50.0, "<s> gas": 50.0, "gas </s>": 50.0}
    cut = math.log(10 * len(counts))  # 6 keys: no pure-noise key passes with probability 95 %
    assert threshold_multiple(len(counts)) == pytest.approx(cut)
    model = T.NGramModel.from_counts(counts, order=2, noise_scale=1.0)  # threshold ln(60) = 4.09
    assert "junk" not in model.vocabulary and "worse" not in model.vocabulary  # below the threshold
    kept = T.NGramModel.from_counts({g: c - cut for g, c in counts.items() if c > cut}, order=2)
    assert math.isclose(model.prob("gas"), kept.prob("gas")) and math.isclose(model.prob("</s>", ["gas"]), kept.prob("</s>", ["gas"]))


def test_perplexity_of_the_uniform_model_is_the_vocabulary_size():
    model = T.NGramModel.from_counts({}, order=2, vocabulary=WORDS)
    assert math.isclose(model.perplexity([["gas", "lunch"], ["anything"]]), len(WORDS) + 2)
    with pytest.raises(ValueError, match="no tokens"):
        model.perplexity([])


@pytest.mark.parametrize("order", [1, 2, 3])
def test_arpa_round_trip(order, tmp_path):
    rng = np.random.default_rng(5)
    model = T.NGramModel.from_counts(_random_counts(rng, order, True), order=order, noise_scale=0.3, vocabulary=WORDS)
    path = tmp_path / "model.arpa"
    model.to_arpa(path)
    text = path.read_text()
    assert text.splitlines()[1] == "\\data\\" and text.rstrip().endswith("\\end\\")
    for n in range(1, order + 1):  # the header's counts are the sections' lengths
        declared = int(next(line for line in text.splitlines() if line.startswith(f"ngram {n}=")).split("=")[1])
        section = text.split(f"\\{n}-grams:\n")[1].split("\n\n")[0].splitlines()
        assert declared == len(section)
    back = T.read_arpa(path)
    sentences = [[rng.choice(WORDS + ["unseen"]) for _ in range(rng.integers(0, 6))] for _ in range(50)]
    for s in sentences:
        assert math.isclose(model.logprob(s), back.logprob(s), abs_tol=1e-5)
    buffer = io.StringIO()
    model.to_arpa(buffer)
    assert buffer.getvalue() == text
    with pytest.raises(ValueError, match="not an ARPA"):
        T.read_arpa(io.StringIO("hello"))


def test_samples_are_sentences_of_the_vocabulary():
    counts = {"gas": 5, "price": 4, "</s>": 5, "<s> gas": 5, "gas price": 4, "price </s>": 4, "gas </s>": 1}
    model = T.NGramModel.from_counts(counts, order=2)
    for seed in range(20):
        sentence = model.sample(rng=random.Random(seed))
        assert all(w in model.vocabulary and w != "</s>" for w in sentence)
    assert model.sample(rng=random.Random(3)) == model.sample(rng=random.Random(3))
    assert len(model.sample(max_words=2, rng=random.Random(0))) <= 2


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(counts=[("gas", 1)]), TypeError, "mapping"),
        (dict(counts={"gas": float("nan")}), ValueError, "finite"),
        (dict(counts={"": 1}), TypeError, "non-empty"),
        (dict(counts={"gas": 1}, order=0), ValueError, "order"),
        (dict(counts={"gas": 1}, discount=1.0), ValueError, "discount"),
        (dict(counts={"gas": 1}, weight=0), ValueError, "weight"),
        (dict(counts={"gas": 1}, noise_scale=-1), ValueError, "noise_scale"),
        (dict(counts={"gas": 1}, threshold=-1), ValueError, "threshold"),
    ],
)
def test_bad_arguments_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        T.NGramModel.from_counts(**kwargs)


def test_pair_counts_release_through_the_label_queries():
    """The per-pair route is the package's label counts: one release, then a model from it."""
    import opendp.prelude as dp

    dp.enable_features("contrib", "honest-but-curious")
    graph, _ = T.pair_ngram_graph(_log(), ["a", "b", "c"], orders=(1, 2))
    keys = sorted(graph.vocabulary)
    meas = (dpg.graph_domain(labeled=True), dpg.edge_distance()) >> dpg.then_label_counts(8, keys) >> dp.m.then_laplace(scale=8.0)
    assert meas.map(1) == min(8, len(keys)) / 8.0  # one pair changes at most c = 8 of the counts
    model = T.NGramModel.from_counts(dict(zip(keys, meas(graph))), order=2, noise_scale=8.0, vocabulary=["gas"])
    assert model.vocabulary == ("gas", "</s>", "<unk>")


# ----------------------------------------------------------------------------- topics
def test_cooccurrence_per_pair_counts_a_word_pair_once_per_pair_of_people():
    log = pl.DataFrame({
        "subject": ["gas price", "gas price", "gas price lunch", "lunch golf"],
        "sender": ["a", "a", "b", "c"],
        "recipient": ["b", "b", "c", "c"],
    })
    graph, self_messages = T.pair_cooccurrence_graph(log, ["a", "b", "c"], ["gas", "price", "lunch", "golf"])
    assert self_messages == 1 and graph.num_edges == 2
    keys = ["gas+price", "gas+lunch", "golf+lunch"]
    assert label_counts(graph, None, keys) == [2, 1, 0]  # a–b's two messages count once; c→c left out


def test_topics_recover_planted_word_groups_and_ignore_noise_below_the_threshold():
    groups = [["gas", "price", "pipeline", "power"], ["lunch", "golf", "party", "dinner"], ["ferc", "order", "filing", "rule"]]
    words = [w for g in groups for w in g]
    counts = {T.cooccurrence_key(a, b): 20.0 for g in groups for i, a in enumerate(g) for b in g[i + 1:]}
    rng = np.random.default_rng(2)
    noisy = {T.cooccurrence_key(a, b): counts.get(T.cooccurrence_key(a, b), 0.0) + float(rng.laplace(0, 0.5))
             for i, a in enumerate(words) for b in words[i + 1:]}
    for source, scale in ((counts, None), (noisy, 0.5)):
        topics = T.topics_from_cooccurrence(source, words, 3, noise_scale=scale)
        assert sorted(sorted(t[:4]) for t in topics.top(4)) == sorted(sorted(g) for g in groups)
    exact = T.topics_from_cooccurrence(counts, words, 3)
    assert exact.matched_overlaps(exact, n=4) == [4, 4, 4]
    empty = T.topics_from_cooccurrence({"gas+price": 1.0}, words, 3, noise_scale=1.0)  # below ln(10)·scale
    assert empty.top(4) == [[], [], []]
    with pytest.raises(ValueError, match="num_topics"):
        T.topics_from_cooccurrence(counts, words, 0)
    with pytest.raises(ValueError, match="distinct"):
        T.topics_from_cooccurrence(counts, ["gas", "gas"], 1)


def test_npmi_is_one_for_words_always_together_and_minus_one_for_words_never_together():
    docs = [["gas", "price"], ["gas", "price"], ["lunch"], ["golf"]]
    assert T.npmi_coherence([["gas", "price"]], docs) == 1.0 or math.isclose(T.npmi_coherence([["gas", "price"]], docs), 1.0)
    assert T.npmi_coherence([["lunch", "golf"]], docs) == -1.0
    with pytest.raises(ValueError, match="no documents"):
        T.npmi_coherence([["gas"]], [])


def test_kenlm_reads_the_arpa_file_and_scores_alike(tmp_path):
    """KenLM (``pip install kenlm``, which compiles; skipped without it) loads the file and gives
    the same log-probabilities (its log10 scores, with <s> and </s>). Measured with kenlm 0.3.0:
    at most 2.3·10⁻⁶ nats apart over 200 sentences of a trigram model."""
    kenlm = pytest.importorskip("kenlm", reason="kenlm is not installed (pip install kenlm: it compiles)")
    rng = np.random.default_rng(9)
    model = T.NGramModel.from_counts(_random_counts(rng, 3, False), order=3, vocabulary=WORDS)
    path = tmp_path / "model.arpa"
    model.to_arpa(path)
    theirs = kenlm.Model(str(path))
    for _ in range(50):
        sentence = [WORDS[i] for i in rng.integers(0, len(WORDS), size=int(rng.integers(0, 6)))]
        assert math.isclose(theirs.score(" ".join(sentence), bos=True, eos=True) * math.log(10), model.logprob(sentence), abs_tol=1e-4)


def test_the_synthetic_topic_log_plants_its_topics():
    log, topics = dpg.datasets.synthetic_topic_log(2_000, num_people=40, num_topics=4, seed=3)
    assert log.height == 2_000 and len(topics) == 4 and (log["sender"] != log["recipient"]).all()
    assert log["time"].is_sorted()
    words = [w for subject in log["subject"].to_list() for w in subject.split()]
    share = sum(w.startswith("t") for w in words) / len(words)
    assert 0.6 < share < 0.8  # focus = 0.7 of the words from the sender's team topic
    again, _ = dpg.datasets.synthetic_topic_log(2_000, num_people=40, num_topics=4, seed=3)
    assert again.equals(log)
    with pytest.raises(ValueError, match="focus"):
        dpg.datasets.synthetic_topic_log(focus=1.5)


def test_models_are_frozen_values():
    """Issue 42: a released model is a value (core/_frozen.py), as the package's other results."""
    import dataclasses
    import pickle

    from opendp_graph.text import NGramModel, mixture

    model = NGramModel.from_counts({"gas": 3, "</s>": 3, "<s> gas": 3, "gas </s>": 3}, order=2, vocabulary=["gas", "power"])
    mixed = mixture([model, model], [0.5, 0.5])
    for value, field in ((model, "order"), (model, "vocabulary"), (mixed, "weights"), (mixed, "models")):
        with pytest.raises(dataclasses.FrozenInstanceError, match="is immutable"):
            setattr(value, field, 7)
        with pytest.raises(dataclasses.FrozenInstanceError, match="is immutable"):
            delattr(value, field)
    with pytest.raises(TypeError):
        model._probs[("gas",)] = 1.0  # the tables are read-only views
    for value in (model, mixed):
        again = pickle.loads(pickle.dumps(value))
        assert again.prob("gas", ["<s>"]) == value.prob("gas", ["<s>"]) and again.vocabulary == value.vocabulary


def test_reply_markers_are_stripped_in_linear_time_as_before():
    """The reply-marker pattern (``RE: FW:``) of :func:`~opendp_graph.text.tokenizer` and of the
    Enron subjects: the same strings stripped as the earlier pattern (every string of up to four
    characters over the markers' alphabet, 5,000 random longer ones), and a marker followed by 200,000 spaces and no colon,
    which took the earlier pattern minutes (n² steps), in well under a second. One pattern serves
    both (``core._mail``); the Enron reader applies it to lower-cased subjects."""
    import re
    import time

    from opendp_graph.core._mail import REPLY_MARKERS
    from opendp_graph.datasets.enron import tokenize_subject

    earlier = re.compile(r"^\s*(?:(?:re|fw|fwd)\s*(?:\[\d+\])?\s*:\s*)+", re.IGNORECASE)
    alphabet = "reFwd :[1]x"
    rng = random.Random(3)
    samples = ["".join(letters) for size in range(5) for letters in itertools.product(alphabet, repeat=size)]
    samples += ["".join(rng.choice(alphabet) for _ in range(rng.randint(5, 14))) for _ in range(5000)]
    samples += ["Re [2]  :fw:x", "FWD[10]: re : fwd", " re:: x"]
    for s in samples:
        assert REPLY_MARKERS.sub("", s) == earlier.sub("", s), s
        assert REPLY_MARKERS.sub("", s.lower()) == earlier.sub("", s.lower()), s
    assert tokenize_subject("RE: Fwd[2] : Gas prices") == ["gas", "prices"]  # the reader uses it
    hostile = "re" + " " * 200_000 + "x"
    started = time.perf_counter()
    assert T.tokenizer()(hostile) == ["re"] and tokenize_subject(hostile) == ["re", "x"]
    assert time.perf_counter() - started < 1.0
