"""Topics from released word co-occurrence counts: non-negative matrix factorisation (scikit-learn's
``NMF``) of the symmetric co-occurrence matrix, as post-processing, and the NPMI coherence that
scores topics on held-out messages.

Two words *co-occur* in a message when both are in it (each unordered pair once per message).
Per pair of people, the co-occurring word pairs of all their messages form a set, an edge
property like the n-grams of paper 001: :func:`pair_cooccurrence_graph` builds that graph, whose
label counts (:func:`~opendp_graph.make_label_counts`) are released under edge, group or
Pufferfish privacy. :func:`topics_from_cooccurrence` reads only the released counts (and public
figures), so the topics' privacy is the release's.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core._frozen import ReadOnlyFields
from ._lm import noise_threshold
from ._tokens import pair_label_graph, person_label_table, tokenizer

__all__ = [
    "cooccurrence_key",
    "pair_cooccurrence_graph",
    "person_cooccurrence_table",
    "Topics",
    "topics_from_cooccurrence",
    "npmi_coherence",
]


def cooccurrence_key(a: str, b: str) -> str:
    """The label of the word pair ``{a, b}``: the two words in sorted order joined by ``+``.

    >>> from opendp_graph.text import cooccurrence_key
    >>> cooccurrence_key("price", "gas")
    'gas+price'
    """
    return f"{a}+{b}" if a <= b else f"{b}+{a}"


def _pairs(tokens: Iterable[str], known: frozenset | None) -> set[str]:
    words = sorted({w for w in tokens if (w in known if known is not None else isinstance(w, str) and w and "+" not in w)})
    return {cooccurrence_key(a, b) for i, a in enumerate(words) for b in words[i + 1 :]}


def pair_cooccurrence_graph(
    frame: Any,
    nodes: Sequence[Any],
    vocabulary: Iterable[str] | None,
    *,
    text: str = "subject",
    src: str = "sender",
    dst: str = "recipient",
    analyzer: Callable[[str | None], list[str]] | None = None,
):
    """The communication graph with, on each edge, the set of word pairs (of the public
    ``vocabulary``) that co-occur in a message the two people exchanged: counts over it are
    **per pair of people**. Messages to oneself have no edge. Returns ``(graph, self_messages)``
    like :func:`~opendp_graph.text.pair_ngram_graph`. ``vocabulary=None`` keeps every word (but
    those holding ``+``, the key's separator): for a DP set union
    (:func:`~opendp_graph.text.make_private_topics`), which releases only pairs many people used."""
    analyze = analyzer or tokenizer(stop_words="english")
    known = None if vocabulary is None else frozenset(vocabulary)
    return pair_label_graph(frame, nodes, lambda value: sorted(_pairs(analyze(value), known)), text=text, src=src, dst=dst)


def person_cooccurrence_table(
    frame: Any,
    vocabulary: Iterable[str],
    *,
    text: str = "subject",
    src: str = "sender",
    dst: str = "recipient",
    message_id: str = "message_id",
    analyzer: Callable[[str | None], list[str]] | None = None,
):
    """One row per message with its ``owners`` and, in the column ``ngrams``, the word pairs of
    the public ``vocabulary`` that co-occur in it (sorted): the input of
    :func:`~opendp_graph.text.make_person_ngram_counts` for **person-level** co-occurrence counts
    (per message; a person owns every message they sent or received).

    >>> import polars as pl
    >>> from opendp_graph.text import person_cooccurrence_table
    >>> log = pl.DataFrame({"message_id": [1], "subject": ["gas price gas"], "sender": [1], "recipient": [2]})
    >>> person_cooccurrence_table(log, ["gas", "price"]).rows()
    [(1, [1, 2], ['gas+price'])]
    """
    analyze = analyzer or tokenizer(stop_words="english")
    known = frozenset(vocabulary)
    return person_label_table(frame, lambda value: sorted(_pairs(analyze(value), known)), text=text, src=src, dst=dst, message_id=message_id)


@dataclass(frozen=True)
class Topics(ReadOnlyFields):
    """Topics as word weights: ``weights[t, i]`` is word ``vocabulary[i]``'s weight in topic
    ``t``; :meth:`top` lists each topic's heaviest words."""

    vocabulary: tuple[str, ...]
    weights: np.ndarray

    def top(self, n: int = 10) -> list[list[str]]:
        order = np.argsort(-self.weights, axis=1, kind="stable")[:, :n]
        return [[self.vocabulary[i] for i in row if self.weights[t, i] > 0] for t, row in enumerate(order)]

    def matched_overlaps(self, other: Topics, n: int = 10) -> list[int]:
        """For each of ``other``'s topics, the top-``n`` word overlap with the topic of this
        model it is matched to (one to one, the matching with the largest total overlap:
        scipy's ``linear_sum_assignment``)."""
        from scipy.optimize import linear_sum_assignment

        mine, theirs = [set(t) for t in self.top(n)], [set(t) for t in other.top(n)]
        overlap = np.array([[len(a & b) for a in mine] for b in theirs])
        rows, cols = linear_sum_assignment(-overlap)
        out = [0] * len(theirs)
        for r, c in zip(rows, cols):
            out[r] = int(overlap[r, c])
        return out


def topics_from_cooccurrence(
    counts: Mapping[str, float],
    vocabulary: Sequence[str],
    num_topics: int,
    *,
    noise_scale: float | None = None,
    threshold: float | None = None,
    public_counts: Mapping[str, float] | None = None,
) -> Topics:
    """Topics from co-occurrence counts (keys :func:`cooccurrence_key`, values possibly noisy):
    the counts are soft-thresholded as :meth:`~opendp_graph.text.NGramModel.from_counts` does
    (default: the level no key of pure Laplace noise passes with probability 95 %), a public snapshot's counts are added, and the symmetric matrix
    ``C`` is factorised by scikit-learn's ``NMF`` (``init="nndsvd"`` with a fixed state: the same
    counts give the same topics) into ``num_topics`` non-negative topics, ``C ≈ W·H``; topic
    ``t``'s word weights are ``H[t]``. Post-processing only.

    >>> from opendp_graph.text import topics_from_cooccurrence
    >>> counts = {"gas+price": 9, "gas+pipeline": 7, "pipeline+price": 6, "golf+lunch": 8, "lunch+party": 9, "golf+party": 5}
    >>> topics = topics_from_cooccurrence(counts, ["gas", "price", "pipeline", "lunch", "golf", "party"], 2)
    >>> sorted(sorted(t[:3]) for t in topics.top(3))
    [['gas', 'pipeline', 'price'], ['golf', 'lunch', 'party']]
    """
    from sklearn.decomposition import NMF

    words = list(vocabulary)
    if len(set(words)) != len(words) or not words:
        raise ValueError("vocabulary must be a non-empty list of distinct words")
    if isinstance(num_topics, bool) or not isinstance(num_topics, int) or not 1 <= num_topics <= len(words):
        raise ValueError(f"num_topics must be an integer between 1 and the vocabulary's size, got {num_topics!r}")
    cut = noise_threshold(noise_scale, threshold, max(len(counts), 1))
    index = {w: i for i, w in enumerate(words)}
    matrix = np.zeros((len(words), len(words)))

    def add(source: Mapping[str, float], floor: float) -> None:
        for key, value in source.items():
            a, _, b = key.partition("+")
            if a in index and b in index and a != b and value > floor:
                matrix[index[a], index[b]] += value - floor
                matrix[index[b], index[a]] += value - floor

    add(counts, cut)
    if public_counts is not None:
        add(public_counts, 0.0)
    if not matrix.any():
        return Topics(tuple(words), np.zeros((num_topics, len(words))))
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    # nndsvd starts from a randomized SVD: a fixed state makes the same counts give the same topics
    model = NMF(n_components=num_topics, init="nndsvd", max_iter=2000, random_state=0)
    with warnings.catch_warnings():  # an approximate factorisation is all topics need
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(matrix)
    return Topics(tuple(words), model.components_.copy())


def npmi_coherence(topics: Sequence[Sequence[str]], documents: Iterable[Iterable[str]]) -> float:
    """The mean normalised pointwise mutual information of each topic's word pairs over
    ``documents`` (a word's presence per document; Bouma 2009): ``log(p(a,b)/(p(a)p(b))) /
    −log p(a,b)``, −1 for a pair never seen together, averaged over the pairs of each topic and
    then over the topics. Non-private: for evaluation on held-out text."""
    docs = [set(d) for d in documents]
    if not docs:
        raise ValueError("no documents to score on")
    total = len(docs)
    single: Counter = Counter()
    joint: Counter = Counter()
    wanted = {w for t in topics for w in t}
    for d in docs:
        present = sorted(d & wanted)
        single.update(present)
        joint.update(cooccurrence_key(a, b) for i, a in enumerate(present) for b in present[i + 1 :])
    scores = []
    for topic in topics:
        values = []
        for i, a in enumerate(topic):
            for b in topic[i + 1 :]:
                pab = joint[cooccurrence_key(a, b)] / total
                if pab == 0:
                    values.append(-1.0)
                    continue
                pa, pb = single[a] / total, single[b] / total
                values.append(1.0 if pab == 1 else math.log(pab / (pa * pb)) / -math.log(pab))
        if values:
            scores.append(sum(values) / len(values))
    return float(np.mean(scores)) if scores else float("nan")
