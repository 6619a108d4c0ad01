"""Topics of a private period's own word co-occurrences, in one measurement.

:func:`make_private_topics` has two releases, by ``keys``:

* ``"snapshot"`` (default): the counts of **every** word pair of the public vocabulary (the
  snapshot's words), each pair of people's contribution scaled to ℓ2 norm at most ``C``
  (:func:`~opendp_graph.make_clipped_label_counts`), with OpenDP's Gaussian noise, converted to
  ``(ε, δ)`` by OpenDP. The keys are public, so no threshold hides a rare pair; clipping keeps all of
  a pair's word pairs, scaled. On Enron's subjects this is what recovers topics the snapshot misses
  (``benchmarks/PRIVATE_TOPICS.txt``).
* ``"open"``: the DP set union of :func:`~opendp_graph.text._private_lm.label_union` (at most ``c``
  co-occurring word pairs per pair of people, the package's thresholded Gaussian) over an open
  vocabulary: a topic that emerges after the snapshot brings words the snapshot's vocabulary does
  not hold, and only this release can see them (the ``new_words`` most present in the released pairs).

Either way the topics are scikit-learn's NMF of the released counts plus the public snapshot's
(:func:`~opendp_graph.text.topics_from_cooccurrence`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any

import opendp.prelude as dp

from ..core._checks import positive_integer
from ..core._frozen import ReadOnlyFields
from ..measurements._context import privacy_budget, zcdp_budget
from ..transformations import then
from ..transformations.label_vectors import make_clipped_label_counts
from ._private_lm import _to_approximate_dp, label_union
from ._topics import Topics, cooccurrence_key, topics_from_cooccurrence

__all__ = ["PrivateTopics", "make_private_topics", "then_private_topics"]


@dataclass(frozen=True)
class PrivateTopics(ReadOnlyFields):
    """What :func:`make_private_topics` releases (all of it post-processing of the noisy counts):
    ``topics`` (:class:`~opendp_graph.text.Topics`), ``released`` (word pair → noisy count: with
    ``keys="open"`` each at least ``threshold``; with ``keys="snapshot"`` the counts above ``σ``, less
    ``σ``, and ``threshold`` 0), ``new_words`` (the released words outside the snapshot's vocabulary that
    the topics use), the noise's ``scale`` (σ) and ``threshold``, and the ``epsilon``/``delta`` spent."""

    topics: Topics
    released: Mapping[str, float]
    new_words: tuple[str, ...]
    scale: float
    threshold: int
    epsilon: float
    delta: float


def _word_pair(key: Any) -> tuple[str, str] | None:
    if not isinstance(key, str):
        return None
    a, plus, b = key.partition("+")
    if not plus or not a or not b or "+" in b or a >= b:
        return None
    return a, b


def _snapshot_counts(snapshot_counts: Any) -> dict[str, float]:
    """The public snapshot's counts, keyed as :func:`~opendp_graph.text.cooccurrence_key` writes a
    pair (``"price+gas"`` is ``"gas+price"``; duplicates add up), each a finite number ``≥ 0``."""
    if not isinstance(snapshot_counts, Mapping):
        raise TypeError("snapshot_counts must be a mapping of word pair → count")
    counts: dict[str, float] = {}
    for key, value in snapshot_counts.items():
        parts = key.split("+") if isinstance(key, str) else []
        if len(parts) != 2 or not all(parts) or parts[0] == parts[1]:
            raise ValueError(f"snapshot_counts keys must be word pairs 'a+b' of two different words, got {key!r}")
        if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) or value < 0:
            raise ValueError(f"snapshot_counts values must be finite numbers ≥ 0, got {value!r} for {key!r}")
        pair = cooccurrence_key(*parts)
        counts[pair] = counts.get(pair, 0.0) + float(value)
    return counts


# long: docstring (both releases' guarantees, parameters and refusals) beside code of under 100 lines
def make_private_topics(
    input_domain: dp.Domain,
    input_metric: dp.Metric,
    privacy_loss: tuple[Any, Any],
    *,
    num_topics: int,
    snapshot_counts: Mapping[str, float],
    vocabulary: Sequence[str],
    keys: str = "snapshot",
    norm_bound: float = 4.0,
    max_pairs_per_edge: int = 16,
    new_words: int = 100,
) -> dp.Measurement:
    """Topics of a private period's word co-occurrences per pair of people, ``(ε, δ)``-DP at one
    unit of ``input_metric`` (module docstring).

    :param input_domain: ``graph_domain(labeled=True)``: :func:`~opendp_graph.text.pair_cooccurrence_graph`
        of the private period with ``vocabulary=None`` (every word).
    :param input_metric: :func:`~opendp_graph.edge_distance` (one pair of people), or
        :func:`~opendp_graph.group_distance`, :func:`~opendp_graph.edge_label_distance`.
    :param privacy_loss: the whole budget, ``dp.loss_of(epsilon=ε, delta=δ)`` (OpenDP's pair, as
        ``dp.Context`` takes it).
    :param num_topics: how many topics.
    :param snapshot_counts: the public snapshot's co-occurrence counts (word pair → count, keys
        :func:`~opendp_graph.text.cooccurrence_key`), added to the released ones.
    :param vocabulary: the snapshot's words the topics are over (public: e.g. its most frequent).
    :param keys: ``"snapshot"`` (every word pair of ``vocabulary``: ``V(V−1)/2`` public keys) or
        ``"open"`` (a DP set union of any word pairs).
    :param norm_bound: ``C`` for ``keys="snapshot"``: the ℓ2 norm of one pair of people's vector of
        word pairs (an indicator of the word pairs it used, scaled down to norm ``C``). ``C = 4``
        was chosen on the synthetic chat text (the only value tried that kept its 12 topics at
        ``ε = 1`` and ``10``).
    :param max_pairs_per_edge: ``c`` for ``keys="open"``: the most word pairs one pair of people
        contributes (the first ``c`` of its set in the package's order).
    :param new_words: for ``keys="open"``: how many released words outside ``vocabulary`` the
        topics may use (those in the most released pairs).

    **Privacy guarantee.** ``keys="snapshot"``: :func:`~opendp_graph.make_clipped_label_counts`
    (ℓ2 stability ``C`` per pair of people, proof there) into OpenDP's ``make_gaussian`` at ``σ =
    C/√(2ρ)``, ``ρ = zcdp_budget(ε, δ)``, so ``ρ``-zCDP at one unit; OpenDP's
    ``make_zCDP_to_approxDP`` and ``make_fix_delta`` state the ``(ε', δ)``, checked to be within the
    budget. The keys are the public vocabulary's pairs: nothing about which pairs occur is released
    beyond their noisy counts. ``keys="open"``: that of
    :func:`~opendp_graph.text._private_lm.label_union` (one pair of people moves at most ``c``
    word pairs' counts by one; the thresholded Gaussian is ``(ρ, δ/2)``-approximate zCDP at
    ``ρ = zcdp_budget(ε, δ/2)``; OpenDP's conversion, checked). The topics are post-processing of
    the released counts and of public inputs: with public keys, every noisy count is lowered by ``σ``
    and those below 0 dropped before the NMF (most keys are unused; their noise would swamp the matrix).

    **What it leaves out**: messages to oneself; with ``keys="snapshot"``, every word outside the
    vocabulary, and a pair of people's share beyond ``C``; with ``keys="open"``, a pair's word
    pairs beyond ``c``, every word pair fewer than about ``threshold`` pairs of people used, and how
    often a pair used one.

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> meas = dpg.text.make_private_topics(dpg.graph_domain(labeled=True), dpg.edge_distance(), dp.loss_of(epsilon=1.0, delta=1e-6), num_topics=1,
    ...     snapshot_counts={"gas+price": 3.0}, vocabulary=["gas", "price"])
    >>> meas.map(1)[0] <= 1.0
    True
    """
    dp.assert_features("contrib", "honest-but-curious")
    spent = privacy_budget(privacy_loss, ("epsilon, delta",), "make_private_topics")
    epsilon, delta = spent["epsilon"], spent["delta"]
    if keys not in ("snapshot", "open"):
        raise ValueError(f"keys must be 'snapshot' (every word pair of the vocabulary) or 'open' (a DP set union), got {keys!r}")
    c = positive_integer("max_pairs_per_edge", max_pairs_per_edge)
    topics_wanted = positive_integer("num_topics", num_topics)
    extra = new_words if isinstance(new_words, int) and not isinstance(new_words, bool) and new_words >= 0 else None
    if extra is None:
        raise ValueError(f"new_words must be a non-negative integer, got {new_words!r}")
    if isinstance(vocabulary, (str, bytes)) or not hasattr(vocabulary, "__iter__"):
        raise TypeError("vocabulary must be a list of words")
    vocabulary = list(vocabulary)
    if any(not isinstance(w, str) or not w or "+" in w for w in vocabulary):
        raise ValueError("vocabulary must hold non-empty words without '+' (a word pair's key is 'a+b')")
    words = list(dict.fromkeys(vocabulary))
    if len(words) < max(topics_wanted, 2):
        raise ValueError("vocabulary must hold at least num_topics words, and two for a word pair")
    snapshot = _snapshot_counts(snapshot_counts)
    if keys == "snapshot":
        return _public_key_topics(input_domain, input_metric, epsilon, delta, topics_wanted, snapshot, words, norm_bound)
    union = label_union(input_domain, input_metric, c, epsilon, delta)
    known = set(words)

    def build(released: Mapping[str, Any]) -> PrivateTopics:
        pairs = {k: pair for k in released if (pair := _word_pair(k))}
        counts = {k: float(released[k]) for k in pairs}
        outside = Counter(w for pair in pairs.values() for w in pair if w not in known)
        fresh = tuple(w for w, _ in sorted(outside.items(), key=lambda item: (-item[1], item[0]))[:extra])
        topics = topics_from_cooccurrence(counts, words + list(fresh), topics_wanted, threshold=0.0, public_counts=snapshot)
        return PrivateTopics(topics, counts, fresh, union.scale, union.threshold, union.epsilon, union.delta)

    return union.measurement >> dp.new_function(build, TO="ExtrinsicObject")


def _public_key_topics(input_domain, input_metric, epsilon, delta, num_topics, snapshot, words, norm_bound) -> dp.Measurement:
    """``keys="snapshot"`` of :func:`make_private_topics`: every word pair of ``words`` as a public
    key, each pair of people clipped to ℓ2 norm ``C``, OpenDP's Gaussian, OpenDP's conversion."""
    pair_keys = [cooccurrence_key(a, b) for i, a in enumerate(words) for b in words[i + 1 :]]
    counts = make_clipped_label_counts(input_domain, input_metric, pair_keys, norm_bound)
    rho = zcdp_budget(epsilon, delta)
    # σ from OpenDP's own map: the smallest scale whose zCDP at one unit is within ρ
    scale = dp.binary_search_param(lambda s: counts >> dp.m.then_gaussian(s), d_in=1, d_out=rho, T=float)
    approximate, spent_epsilon, spent_delta = _to_approximate_dp(counts >> dp.m.then_gaussian(scale), epsilon, delta)

    def build(noisy: Sequence[float]) -> PrivateTopics:
        # soft threshold at σ: most keys are unused, and their noise alone would swamp the matrix
        released = {k: float(v) - scale for k, v in zip(pair_keys, noisy) if v > scale}
        topics = topics_from_cooccurrence(released, words, num_topics, threshold=0.0, public_counts=snapshot)
        return PrivateTopics(topics, released, (), scale, 0, spent_epsilon, spent_delta)

    return approximate >> dp.new_function(build, TO="ExtrinsicObject")


# the then_ forms (OpenDP's convention: every make_x of (input_domain, input_metric, ...) has one)
then_private_topics = then(make_private_topics)
