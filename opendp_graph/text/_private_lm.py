"""A language model learned from the private period's own n-grams, in one measurement.

:func:`make_private_language_model` (edge level, one pair's messages) releases the n-grams the
pairs used, at most ``c`` per pair, by a DP set union (the package's thresholded Gaussian, δ
corrected), converts the whole to ``(ε, δ)`` with OpenDP's own conversion, and post-processes the
released counts into an interpolated Kneser–Ney model mixed with the public snapshot's. Unlike a
release on the snapshot's keys alone, it learns n-grams the snapshot never saw (new topics).

The snapshot's own keys (its n-grams over the vocabulary, every vocabulary word, ``</s>``,
``<unk>``) are public, so they need no threshold: by default (``release_snapshot_keys=True``)
their counts are lifted above it before the noise, released always, and cleaned afterwards at
the level no key of pure noise passes (:func:`~opendp_graph.text._lm.threshold_multiple`,
about 4.6σ). The n-grams many pairs used but the snapshot never saw still come through the
threshold. Same map, same noise; on Enron's subjects (1,310 private pairs, where few n-grams
clear the threshold) this took the share of the snapshot-to-reference gap closed at ε = 10 from
about a quarter to about a third, and on the synthetic chat text it changed little
(``benchmarks/CHAT_TEXT_LM.txt``).

The mixture weight is public and fixed in advance (default 0.3). The released counts are only the
n-grams many pairs used, so a model of them alone is over-confident: weights from the released
text's size (0.6–0.8) did worse than 0.3–0.5 on the synthetic chat text, and a weight validated
on the snapshot's last weeks chose the snapshot (0.1) under drift. 0.3 was chosen on the
synthetic chat text at 12,000 and 20,000 messages, not on the logs ``benchmarks/chat_text_lm.py``
reports.

:func:`private_language_model` is the one-call route from a message log (Polars) and a public
snapshot, for the package's units: one pair, a pair's content, ``k`` pairs, one message (this
union, on the graph of pairs or of messages) and one person (the snapshot's keys counted per message, :func:`~opendp_graph.text.make_person_ngram_counts`,
OpenDP's Gaussian; the few counts above the noise added to the snapshot's). :func:`label_union` is
the union itself, shared with :func:`~opendp_graph.text.make_private_topics`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import opendp.prelude as dp

from ..core._checks import open_probability, positive_integer
from ..core._frozen import ReadOnlyFields
from ..measurements._context import privacy_budget, zcdp_budget
from ..measurements.threshold import calibrate_gaussian_threshold, make_corrected_gaussian_threshold
from ..transformations import then
from ..transformations.labels import make_label_count_map
from ._lm import MixtureModel, NGramModel, mixture, threshold_multiple
from ._tokens import BOS, EOS, UNK

__all__ = ["PrivateLanguageModel", "make_private_language_model", "then_private_language_model", "private_language_model"]


@dataclass(frozen=True)
class PrivateLanguageModel(ReadOnlyFields):
    """What :func:`make_private_language_model` releases (all of it DP: post-processing of the union).

    * ``model``: the model to use, the mixture ``weight · private + (1 − weight) · snapshot`` (the
      snapshot's model alone when the union released nothing);
    * ``private_model``: Kneser–Ney on the released counts alone (``None`` when nothing was released);
    * ``released``: the released n-gram counts (noisy): those outside the snapshot's keys each at
      least ``threshold``, the snapshot's keys whatever the noise made of them (possibly negative;
      the model reads them cleaned);
    * ``snapshot_keys``: how many public snapshot keys were released without the threshold;
    * ``scale``, ``threshold``: the union's discrete Gaussian σ and threshold (public);
    * ``epsilon``, ``delta``: what the release spent, from OpenDP's map at one pair (one unit);
    * ``unit``, ``left_out``, ``vocabulary``: what :func:`private_language_model` protected, what it
      left out of the model (public descriptions, no figure read from the data) and the public
      word list the model predicts (empty when built by the constructor).
    """

    model: NGramModel | MixtureModel
    private_model: NGramModel | None
    weight: float
    released: Mapping[str, float]
    scale: float
    threshold: int
    epsilon: float
    delta: float
    snapshot_keys: int = 0
    unit: str = ""
    left_out: tuple[str, ...] = ()
    vocabulary: tuple[str, ...] = ()


def _snapshot_counts(counts: Any) -> dict[str, float]:
    if not isinstance(counts, Mapping) or not counts:
        raise ValueError("snapshot_counts must be a non-empty mapping of n-gram → count (dpg.text.ngram_counts of the snapshot)")
    return {str(k): float(v) for k, v in counts.items()}


# long: docstring (its guarantee, parameters and refusals) beside code of under 100 lines
def make_private_language_model(
    input_domain: dp.Domain,
    input_metric: dp.Metric,
    privacy_loss: tuple[Any, Any],
    *,
    snapshot_counts: Mapping[str, float],
    vocabulary: Any,
    max_ngrams_per_pair: int = 16,
    order: int = 2,
    weight: float = 0.3,
    release_snapshot_keys: bool = True,
) -> dp.Measurement:
    """An n-gram language model of a private period at edge level, ``(ε, δ)``-DP (module docstring).

    :param input_domain: ``graph_domain(labeled=True)``: the graph of who wrote to whom with each
        pair's n-grams as its edge's labels (:func:`~opendp_graph.text.pair_ngram_graph` of the
        private period, with the public ``vocabulary``, orders ``1 … order``).
    :param input_metric: :func:`~opendp_graph.edge_distance` (one pair's messages), or the other
        metrics :func:`~opendp_graph.make_label_count_map` accepts (group, edge-label).
    :param privacy_loss: the whole budget, ``dp.loss_of(epsilon=ε, delta=δ)`` (OpenDP's pair, as
        ``dp.Context`` takes it; choice-free: one release). Half of ``δ`` goes to the zCDP
        conversion, half to the threshold.
    :param snapshot_counts: the public snapshot's per-message n-gram counts
        (:func:`~opendp_graph.text.ngram_counts`, orders ``1 … order``, the vocabulary folded).
    :param vocabulary: the public word list both models predict (e.g. the snapshot's words seen twice).
    :param max_ngrams_per_pair: ``c``, the most n-grams one pair contributes (the first ``c`` of
        its label set in the package's order: the rest is left out, and said so).
    :param order: the model's order (the labels must include every order up to it).
    :param weight: the private model's public weight in the mixture, in ``(0, 1)`` (module docstring).
    :param release_snapshot_keys: release the snapshot's keys (module docstring) without the
        threshold (default), or only what clears it.
    :return: a measurement (OpenDP's ``approximate(max_divergence)``: ``(ε, δ)``) whose output
        is a :class:`PrivateLanguageModel`.

    **Privacy guarantee.** ``(ε, δ)``-DP for one pair under ``edge_distance``. *Proof.*
    :func:`~opendp_graph.make_label_count_map` maps the graph to the pairs' n-gram counts with at
    most ``c`` n-grams per pair, each counted once per pair, so one pair moves at most ``c`` keys by
    one (ℓ0 ``c``, ℓ∞ 1; its docstring's proof). Adding the same public constant to the counts of
    the snapshot's keys (``release_snapshot_keys``) keeps every difference between neighbours and
    puts those keys on both sides, so the distances are unchanged (a 1-stable identity map);
    the threshold's δ in OpenDP's map is a function of these distances alone, an upper bound
    whichever keys change. :func:`~opendp_graph.make_corrected_gaussian_threshold` on them is ``(ρ, δ/2)``-approximate-zCDP with ``ρ = zcdp_budget(ε, δ/2)`` (OpenDP's map at the
    threshold minus one: the package's correction, with its proof), and OpenDP's
    ``make_zCDP_to_approxDP`` then ``make_fix_delta`` at ``δ`` states the ``(ε', δ)`` it is, checked
    here to be at most ``(ε, δ)``. The model is post-processing of the released counts and of public
    inputs. The budget is for one pair (``d_in = 1``); at more, the threshold's δ grows past the
    fixed ``δ`` and OpenDP's map refuses. Under ``edge_distance`` a pair whose n-gram set *changes*
    (the pair in both graphs) is at distance 2 (a removal and an addition), which this budget does
    not cover: to protect what a known pair wrote, with the structure public, build it on
    :func:`~opendp_graph.edge_label_distance` (distance 1 for that change; calibrated for it).

    **What it leaves out** (error the noise does not show): messages to oneself (no pair), a pair's
    n-grams beyond ``c``, every n-gram fewer than about ``threshold`` pairs used (only the union's
    survivors are learned), and how often a pair used an n-gram (once per pair).

    :example:

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> snapshot = {"gas": 3.0, "prices": 2.0, "</s>": 3.0, "<s> gas": 3.0, "gas prices": 2.0, "prices </s>": 2.0}
    >>> meas = dpg.text.make_private_language_model(
    ...     dpg.graph_domain(labeled=True), dpg.edge_distance(), dp.loss_of(epsilon=1.0, delta=1e-6),
    ...     snapshot_counts=snapshot, vocabulary=["gas", "prices"])
    >>> eps, delta = meas.map(1)
    >>> eps <= 1.0 and delta <= 1e-6
    True
    """
    dp.assert_features("contrib", "honest-but-curious")
    spent = privacy_budget(privacy_loss, ("epsilon, delta",), "make_private_language_model")
    epsilon, delta = spent["epsilon"], spent["delta"]
    c = positive_integer("max_ngrams_per_pair", max_ngrams_per_pair)
    if c > 2**32 - 1:  # OpenDP's label-count map holds c as a u32
        raise ValueError(f"max_ngrams_per_pair must be below 2**32, got {c!r}")
    weight = open_probability("weight", weight)
    order = positive_integer("order", order)
    snapshot = _snapshot_counts(snapshot_counts)
    if isinstance(vocabulary, (str, bytes)) or not hasattr(vocabulary, "__iter__"):
        raise TypeError("vocabulary must be a list of words")
    words = [w for w in vocabulary if isinstance(w, str) and w not in (BOS, EOS, UNK)]  # the models add those
    if not words:
        raise ValueError("vocabulary must name at least one word")
    if not all(_model_word(w) for w in words):  # a NUL would cut OpenDP's key (red team), a space split the n-gram
        raise ValueError("vocabulary words must be non-empty, without whitespace or NUL")

    if not isinstance(release_snapshot_keys, bool):
        raise TypeError("release_snapshot_keys must be True or False")

    public = _snapshot_keys(snapshot, words, order) if release_snapshot_keys else frozenset()
    union = label_union(input_domain, input_metric, c, epsilon, delta, public)
    scale, threshold, offset = union.scale, union.threshold, union.offset

    snapshot_model = NGramModel.from_counts(snapshot, order=order, vocabulary=words)

    # the snapshot keys' noisy counts are cleaned at the level no key of pure noise passes with
    # probability 95 % (threshold_multiple): the released others cleared the union's threshold
    cut = scale * threshold_multiple(len(public), "gaussian") if public else 0.0

    def build(released: Mapping[str, Any]) -> PrivateLanguageModel:
        # keep only keys a model can read (words joined by single spaces): a released label that is
        # blank or oddly spaced would otherwise make the post-processing raise after the noise (red team)
        raw = {str(g): float(v) for g, v in released.items() if isinstance(g, str) and g.split() and " ".join(g.split()) == g}
        raw = {g: v - offset if g in public else v for g, v in raw.items()}
        counts = {g: (v - cut if g in public else v) for g, v in raw.items() if g not in public or v > cut}
        fields: dict[str, Any]  # PrivateLanguageModel's fields of several types
        fields = dict(released=raw, scale=scale, threshold=threshold, epsilon=union.epsilon, delta=union.delta, snapshot_keys=len(public))
        if not any(" " not in g for g in counts):  # nothing (or no unigram) survived: the snapshot alone
            return PrivateLanguageModel(model=snapshot_model, private_model=None, weight=0.0, **fields)
        private = NGramModel.from_counts(counts, order=order, vocabulary=words)
        return PrivateLanguageModel(model=mixture([private, snapshot_model], [weight, 1.0 - weight]), private_model=private, weight=weight, **fields)

    return union.measurement >> dp.new_function(build, TO="ExtrinsicObject")


def _to_approximate_dp(zcdp: dp.Measurement, epsilon: float, delta: float) -> tuple[dp.Measurement, float, float]:
    """OpenDP's ``make_zCDP_to_approxDP`` then ``make_fix_delta`` at ``δ`` on a (approximate-)zCDP
    measurement, with the ``(ε', δ)`` it states at one unit, checked to be within ``(ε, δ)``: the
    conversion is OpenDP's, trust but verify. Returns ``(measurement, ε', δ)``."""
    approximate = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(zcdp), delta)
    spent_epsilon, spent_delta = approximate.map(1)
    if spent_epsilon > epsilon or spent_delta > delta:
        raise ValueError(f"the release spends ({spent_epsilon!r}, {spent_delta!r}), above the budget ({epsilon!r}, {delta!r})")
    return approximate, spent_epsilon, spent_delta


class LabelUnion(NamedTuple):
    """What :func:`label_union` builds: the measurement, the union's ``scale`` (σ) and
    ``threshold``, the public keys' ``offset``, and the ``(epsilon, delta)`` it spends at one unit."""

    measurement: dp.Measurement
    scale: float
    threshold: int
    offset: int
    epsilon: float
    delta: float


def label_union(
    input_domain: dp.Domain, input_metric: dp.Metric, c: int, epsilon: float, delta: float, public: frozenset[str] = frozenset()
) -> LabelUnion:
    """The DP set union of a labelled graph's labels, ``(ε, δ)`` at one unit of ``input_metric``:
    at most ``c`` labels per edge counted once (:func:`~opendp_graph.make_label_count_map`, ℓ2),
    the ``public`` keys lifted above the threshold (:func:`_make_offset`: released always), the
    package's thresholded Gaussian at ``ρ = zcdp_budget(ε, δ/2)`` and threshold δ ``δ/2``, then
    OpenDP's ``make_zCDP_to_approxDP`` and ``make_fix_delta`` at ``δ``, whose ``(ε', δ)`` is
    checked to be within the budget. Returns a :class:`LabelUnion`: the measurement's output maps
    each released label to its noisy count, the public ones still carrying ``offset``.
    Shared by :func:`make_private_language_model` and :func:`~opendp_graph.text.make_private_topics`."""
    count_map = make_label_count_map(input_domain, input_metric, c, output_metric=dp.l02inf_distance(dp.absolute_distance(T=dp.f64)))
    if not delta / 2 > 0:  # half to the conversion, half to the threshold (red team: 5e-324 / 2 is 0)
        raise ValueError("delta is too small to be split in two halves (the conversion's and the threshold's)")
    rho = zcdp_budget(epsilon, delta / 2)
    scale, threshold = calibrate_gaussian_threshold(count_map, 1, rho, delta / 2)
    # a public key's count is lifted far above the threshold, so the union releases it always
    # (noise below -10σ has probability 1e-23): its noisy count is kept, whatever its size
    offset = threshold + math.ceil(10 * scale) + 1
    counts_in = count_map >> _make_offset(count_map, public, offset) if public else count_map
    union = counts_in >> make_corrected_gaussian_threshold(count_map.output_domain, count_map.output_metric, scale, threshold)
    approximate, spent_epsilon, spent_delta = _to_approximate_dp(union, epsilon, delta)
    return LabelUnion(approximate, scale, threshold, offset, spent_epsilon, spent_delta)


def _snapshot_keys(snapshot: Mapping[str, float], words: list[str], order: int) -> frozenset[str]:
    """The public keys released without the union's threshold: every word of the vocabulary,
    ``</s>`` and ``<unk>``, and every n-gram of the snapshot up to ``order`` over those words
    (``<s>`` may start one)."""
    known = set(words) | {EOS, UNK}
    keys = set(known)
    for gram in snapshot:
        parts = gram.split(" ")
        if len(parts) <= order and " ".join(parts) == gram and all(w in known or (w == BOS and i == 0) for i, w in enumerate(parts)):
            if parts != [BOS]:
                keys.add(gram)
    return frozenset(keys)


def _make_offset(count_map: dp.Transformation, keys: frozenset[str], offset: int) -> dp.Transformation:
    """Add ``offset`` to the count of each public key (a key no pair used gets ``offset``): 1-stable
    in ``(ℓ0, ℓ2, ℓ∞)``, the identity map. *Proof.* Both neighbours get the same constant on the
    same keys, so every difference between their counts is unchanged, and a public key is present
    on both sides (never on one side only)."""
    public = sorted(keys)

    def lift(counts: dict) -> dict:
        out = dict(counts)
        for key in public:
            out[key] = out.get(key, 0) + offset
        return out

    return dp.t.make_user_transformation(
        count_map.output_domain,
        count_map.output_metric,
        count_map.output_domain,
        count_map.output_metric,
        function=lift,
        stability_map=lambda d_in: d_in,
    )


def unit_pair_graph(log: Any, unit: Any, *, text: str, analyzer: Any, vocabulary: Any, order: int) -> Any:
    """The graph :func:`private_language_model` releases from: who wrote to whom in ``log`` (the
    unit's columns), each pair's n-grams (orders ``1 … order``, the vocabulary folded) on its
    edge, on the log's own ids (the released label counts do not depend on the node set)."""
    return _ngram_graph(log, unit.src, unit.dst, text=text, analyzer=analyzer, vocabulary=vocabulary, order=order)


def _ngram_graph(frame: Any, src: str, dst: str, *, text: str, analyzer: Any, vocabulary: Any, order: int) -> Any:
    """:func:`~opendp_graph.text.pair_ngram_graph` of ``frame`` on its own ids (orders ``1 … order``):
    the one builder behind :func:`unit_pair_graph` and :func:`unit_message_graph`."""
    import polars as pl

    from ._tokens import pair_ngram_graph

    ids = pl.concat([frame[src], frame[dst]]).unique().sort().to_list()
    graph, _ = pair_ngram_graph(frame, ids, orders=range(1, order + 1), text=text, src=src, dst=dst, analyzer=analyzer, vocabulary=vocabulary)
    return graph


def unit_message_graph(log: Any, unit: Any, *, text: str, analyzer: Any, vocabulary: Any, order: int) -> Any:
    """The graph :func:`private_language_model` releases from under a
    :func:`~opendp_graph.polars.message_unit` (:func:`~opendp_graph.text.message_edge_frame`): one
    edge per message, between two nodes of its own (the message id, and the id with a mark), labelled with the distinct n-grams of the message's
    rows (orders ``1 … order``, the vocabulary folded). Two messages never share an edge, so adding
    or removing one message (every row of one ``message_id``) adds or removes exactly one edge and
    changes no other edge's labels: ``edge_distance`` 1. Messages to oneself are messages like
    others. The released label counts do not depend on the node set."""
    from ._tokens import message_edge_frame

    frame = message_edge_frame(log, message_id=unit.message_id, text=text)
    return _ngram_graph(frame, "sender", "recipient", text="text", analyzer=analyzer, vocabulary=vocabulary, order=order)


# what the one-call route leaves out of the model, for every unit (public descriptions: no figure)
_LEFT_OUT = (
    "messages to oneself (they belong to no pair)",
    "a pair's n-grams beyond max_ngrams_per_pair (the first in the package's order are kept)",
    "n-grams fewer pairs used than about the threshold (only the union's survivors are learned)",
    "how often a pair used an n-gram (each counts once per pair)",
    "words outside the snapshot's vocabulary (folded to <unk>)",
)


_LEFT_OUT_MESSAGE = (
    "a message's n-grams beyond max_ngrams_per_message (the first in the package's order are kept)",
    "n-grams fewer messages used than about the threshold (only the union's survivors are learned)",
    "how often a message repeats an n-gram (each counts once per message)",
    "words outside the snapshot's vocabulary (folded to <unk>)",
)

# each message's distinct n-grams kept, the message unit's L: 16 was chosen on the synthetic chat
# text at 12,000 and 20,000 messages (as the mixture weight), not on the logs the benchmark reports
_MESSAGE_CAP = 16
_PERSON_MESSAGE_CAP = 8

_LEFT_OUT_PERSON = (
    "a message's n-grams beyond max_ngrams_per_message (its unigrams first, then its bigrams, each in text order)",
    "n-grams outside the snapshot's keys (person level releases only public keys: a union's threshold would be D times larger)",
    "words outside the snapshot's vocabulary (folded to <unk>)",
)


def _person_language_model(
    unit: Any,
    metric: dp.Metric,
    epsilon: float,
    delta: float,
    snapshot: Mapping[str, float],
    words: list[str],
    per_message: int,
    order: int,
    weight: Any,
) -> dp.Measurement:
    """The person-level model (:func:`private_language_model` with a ``person_unit``): the snapshot's
    keys counted per message over the log (:func:`~opendp_graph.text.make_person_ngram_counts` on
    ``person_text_domain(D)``, ℓ2 map ``D·√L``, ``√2·D·√L`` under ``replace``), OpenDP's Gaussian
    at ``ρ = zcdp_budget(ε, δ)``, OpenDP's conversion to ``(ε, δ)`` checked, then the pair route's
    cleaning, the cleaned counts *added* to the snapshot's (no mixture: ``weight`` is only checked).
    No threshold: the keys are public."""
    from ._release import make_person_ngram_counts, person_text_domain

    weight = open_probability("weight", weight)  # ε and δ: privacy_budget, in private_language_model
    keys = sorted(_snapshot_keys(snapshot, words, order))
    counts = make_person_ngram_counts(person_text_domain(unit.max_messages), metric, keys, per_message, output_metric=dp.l2_distance(T=dp.f64))
    rho = zcdp_budget(epsilon, delta)
    scale = dp.binary_search_param(lambda s: counts >> dp.m.then_gaussian(scale=s), d_in=1, d_out=rho, T=float)
    approximate, spent_epsilon, spent_delta = _to_approximate_dp(counts >> dp.m.then_gaussian(scale=scale), epsilon, delta)
    snapshot_model = NGramModel.from_counts(snapshot, order=order, vocabulary=words)
    cut = scale * threshold_multiple(len(keys), "gaussian")

    def build(vector: Any) -> PrivateLanguageModel:
        raw = {k: float(v) for k, v in zip(keys, vector)}
        cleaned = {k: v - cut for k, v in raw.items() if v > cut}
        fields: dict[str, Any]  # PrivateLanguageModel's fields of several types
        fields = dict(released=raw, scale=scale, threshold=0, epsilon=spent_epsilon, delta=spent_delta, snapshot_keys=len(keys))
        if not cleaned:
            return PrivateLanguageModel(model=snapshot_model, private_model=None, weight=0.0, **fields)
        # the few counts that rise above the noise are added to the snapshot's: a mixture with a
        # model of a handful of counts did worse than the snapshot alone (12,000 and 20,000 messages
        # of the chat text at ε = 10: 54 and 105 against 46 and 91); added, never worse there. Above
        # order 1, Kneser-Ney reads unigram counts only as continuation counts of bigrams: added
        # unigrams change nothing, only the bigrams that clear the level do
        added = NGramModel.from_counts(cleaned, order=order, vocabulary=words, public_counts=snapshot)
        return PrivateLanguageModel(model=added, private_model=None, weight=0.0, **fields)

    return approximate >> dp.new_function(build, TO="ExtrinsicObject")


def _snapshot_texts(snapshot: Any, text: str) -> list[str]:
    """The public snapshot's texts, one per message (read once): a list of strings (``None`` is an
    empty text), or a Polars frame's ``text`` column (deduplicated by ``message_id`` when there is
    one: a row per recipient)."""
    import polars as pl

    if isinstance(snapshot, pl.LazyFrame):
        snapshot = snapshot.collect()
    if isinstance(snapshot, pl.DataFrame):
        if text not in snapshot.columns:
            raise ValueError(f"the snapshot has no column {text!r} (the text column)")
        if snapshot.schema[text] not in (pl.String, pl.Null):
            raise TypeError(f"the snapshot's column {text!r} must hold text (String)")
        if "message_id" in snapshot.columns:
            snapshot = snapshot.unique("message_id", keep="first", maintain_order=True)
        return [t or "" for t in snapshot[text].to_list()]
    if isinstance(snapshot, (str, bytes)) or not hasattr(snapshot, "__iter__"):
        raise TypeError("snapshot must be a Polars frame with the text column or a list of texts")
    texts = list(snapshot)
    if not all(t is None or isinstance(t, str) for t in texts):
        raise TypeError("snapshot must be a list of texts (str)")
    return [t or "" for t in texts]


def _total_analyzer(analyzer: Any) -> Any:
    """``analyzer`` made total on the private texts: whatever a text is, it gives a list of words
    and never raises. A refusal (or a crash) that depends on one pair's text would tell whether
    that pair is in the log (red team: ``str.split`` on a null text), so a text that is not a
    non-empty string, or that the analyzer cannot read, counts as a text without words; tokens
    that are not non-empty strings are dropped."""

    def analyze(value: Any) -> list[str]:
        if not isinstance(value, str) or not value:
            return []
        try:
            words = analyzer(value)
            return [w for w in words if isinstance(w, str) and w] if isinstance(words, (list, tuple)) else []
        except Exception:
            return []

    return analyze


def _model_word(word: str) -> bool:
    """A vocabulary word a model can hold: no whitespace (n-grams are words joined by spaces), no
    NUL (OpenDP cuts its string keys there), not one of the boundary or unknown tokens."""
    return bool(word) and not any(ch.isspace() or ch == "\x00" for ch in word) and word not in (BOS, EOS, UNK)


# long: docstring (its guarantee, parameters and refusals) beside code of under 100 lines
def private_language_model(
    log: Any,
    *,
    unit: Any,
    privacy_loss: tuple[Any, Any],
    snapshot: Any,
    text: str = "text",
    analyzer: Any = None,
    min_count: int = 2,
    max_ngrams_per_pair: int = 16,
    max_ngrams_per_message: int | None = None,
    order: int = 2,
    weight: float = 0.3,
    release_snapshot_keys: bool = True,
) -> PrivateLanguageModel:
    """A language model of a message log's private period in one call, ``(ε, δ)``-DP for ``unit``:
    the plumbing of :func:`make_private_language_model` (the vocabulary from the snapshot, its
    counts with ``<unk>``, the pair graph, the release and the mixture) done for you.

    :param log: the private period, Polars, one row per (message, recipient), with the unit's
        sender and recipient columns and the ``text`` column.
    :param unit: who is protected, one of the package's message-table units:
        :func:`~opendp_graph.polars.edge_unit` (one pair and all its messages: ``edge_distance``),
        :func:`~opendp_graph.polars.edge_group_unit` (any ``k`` pairs: ``group_distance(k)``),
        :func:`~opendp_graph.polars.edge_content_unit` (what one pair wrote, with who wrote to whom
        public: ``edge_label_distance``), :func:`~opendp_graph.polars.message_unit` (one message:
        the weakest unit, which learns most; its ``message_id`` column names the messages) or
        :func:`~opendp_graph.polars.person_unit` (one person and
        every message they sent or received; its ``max_messages=D`` is the public bound on the rows
        a person is in, and the log needs a ``message_id`` column). A pair unit's ``max_messages``
        bound, if any, is checked on the log but not needed: a pair's n-grams are counted once,
        whatever its number of messages.
    :param privacy_loss: the whole budget for one unit, ``dp.loss_of(epsilon=ε, delta=δ)``
        (OpenDP's pair, as ``dp.Context`` takes it).
    :param snapshot: the **public** snapshot: a list of texts (one per message) or a Polars frame
        with the ``text`` column (rows sharing a ``message_id`` are one message). Its words seen at
        least ``min_count`` times are the model's vocabulary (public); everything else is ``<unk>``.
    :param text: the text column of ``log`` (and of a frame ``snapshot``).
    :param analyzer: the tokeniser (default :func:`~opendp_graph.text.tokenizer`'s: scikit-learn's
        tokens, the ``text`` extra); the same for the snapshot and the log. It must be a pure
        function of one text (no state carried from one call to the next): every map assumes that
        a message's n-grams depend on its own text only (red team: an analyzer that remembered the
        previous text moved the counts past the map).
    :param min_count: how often a snapshot word must occur to be in the vocabulary.
    :param max_ngrams_per_pair: ``c`` (:func:`make_private_language_model`), for the pair units.
    :param max_ngrams_per_message: ``L``, for the message and person units (default 16 and 8). The
        message unit counts each message's first ``L`` distinct n-grams once (``c`` of
        :func:`make_private_language_model` on the graph of messages); the person unit counts each
        message's first ``L`` distinct snapshot keys once (its unigrams first, then its bigrams,
        each in text order: with ``L`` below a message's distinct words, its bigrams are left out).
    :param order: the model's order.
    :param weight: the private model's public weight in the mixture with the snapshot's (pair
        units; at person level the few counts above the noise are added to the snapshot's instead).
    :param release_snapshot_keys: as :func:`make_private_language_model` (default: the snapshot's
        keys are released without the threshold).
    :return: the :class:`PrivateLanguageModel`, with ``unit`` (what was protected), ``left_out``
        (what the model does not learn from) and ``vocabulary``; ``epsilon``/``delta`` are what it spent.

    **Privacy guarantee.** That of :func:`make_private_language_model` under the unit's graph metric,
    at one unit (a group unit's ``k`` pairs are one unit of ``group_distance(k)``): the log becomes
    the graph of who wrote to whom with each pair's n-grams on its edge (:func:`pair_ngram_graph`),
    so adding or removing one pair's messages adds or removes one edge (``edge_distance`` 1), any
    ``k`` pairs' messages are ``group_distance(k)`` 1, and replacing one pair's messages changes one
    edge's labels (``edge_label_distance`` 1). The graph's nodes are the log's own ids: the released
    counts do not depend on the node set, and no id, count or size is returned. The vocabulary and
    the snapshot's model come from the public snapshot only. The log is checked against the unit's
    preconditions (:meth:`~opendp_graph.polars.PrivacyUnit.check`: id dtypes, no null endpoint, a
    declared bound) before any text is read; a refusal names only the broken precondition.

    *Message unit.* The log becomes the graph of messages (:func:`unit_message_graph`): one edge
    per ``message_id``, on two nodes of its own, labelled with the message's distinct n-grams. Adding
    or removing one message (every row of its ``message_id``, OpenDP's ``SymmetricIdDistance`` 1)
    adds or removes exactly that edge, ``edge_distance`` 1, so the guarantee is
    :func:`make_private_language_model`'s at one edge with ``c = L``. It protects one message, not
    a relationship: a pair's ``m`` messages are ``m`` units (group privacy, ``m·ε``).

    *Person unit.* The log becomes one row per message with its owners (sender and recipients) and
    n-grams (:func:`person_ngram_table`), counted on the snapshot's keys per message
    (:func:`make_person_ngram_counts` on ``person_text_domain(D)``), OpenDP's Gaussian at
    ``ρ = zcdp_budget(ε, δ)`` and OpenDP's conversion to ``(ε, δ)``, checked. Removing the rows a
    person ``v`` is in leaves every message without ``v`` as it was; a message with ``v`` among its
    owners either vanishes or keeps its text and loses ``v`` from its owners, which changes no count
    (a message counts its keys once, whoever owns it). So the counts move by at most the messages
    ``v`` owns, at most ``D`` (``v`` is in at most ``D`` rows, and owns a message only through one
    of its rows): the map of :func:`make_person_ngram_counts` for one person. Rewiring ``v``'s rows
    (``neighbouring="replace"``) changes only messages that hold one of ``v``'s rows, each owned by
    ``v`` before or after: at most ``D`` removed and ``D`` added, that map's ``replace`` case. The row
    bound implies the table's (nobody owns more than ``D`` messages), so the table is in the domain.
    A further precondition of the person unit, checked before any text is read: the rows of one
    ``message_id`` (never null) share one sender and one text (one message, one header). A log
    that breaks it is refused (the refusal says which), like one that breaks the bound.

    **What it leaves out** (``left_out``): messages to oneself, a pair's n-grams beyond ``c``, every
    n-gram fewer than about ``threshold`` pairs used, how often a pair used an n-gram, and words
    outside the vocabulary; under the message unit a message's n-grams beyond ``L`` and n-grams
    fewer than about ``threshold`` messages used (messages to oneself are kept); at person level (``left_out`` says so) n-grams outside the snapshot's
    keys and a message's keys beyond ``L``, but messages to oneself are kept. Pufferfish is another
    route (:func:`~opendp_graph.make_label_counts` under :func:`~opendp_graph.pufferfish_distance`,
    the language-model tutorial), refused here.

    :example:

    >>> import opendp.prelude as dp, opendp_graph as dpg, polars as pl
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> log = pl.DataFrame({"sender": [1, 2, 3], "recipient": [2, 3, 1], "text": ["gas prices", "gas", "prices up"]})
    >>> out = dpg.text.private_language_model(
    ...     log, unit=dpg.polars.edge_unit("sender", "recipient"), privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-6),
    ...     snapshot=["gas prices", "gas prices up"], analyzer=str.split)
    >>> out.unit, out.epsilon <= 1.0, out.vocabulary
    ('edge', True, ('gas', 'prices'))
    """
    dp.assert_features("contrib", "honest-but-curious")
    from ..core.domains import graph_domain
    from ..polars import MessageUnit, PersonUnit
    from ._tokens import _analyzer, person_ngram_table

    metric = _unit_metric(unit)
    person = isinstance(unit, PersonUnit)
    per_message_unit = isinstance(unit, MessageUnit)
    budget = privacy_budget(privacy_loss, ("epsilon, delta",), "private_language_model")
    if max_ngrams_per_message is None:
        max_ngrams_per_message = _MESSAGE_CAP if per_message_unit else _PERSON_MESSAGE_CAP
    per_message = positive_integer("max_ngrams_per_message", max_ngrams_per_message)
    if not isinstance(text, str):
        raise TypeError("text must be a column name (str)")
    if text in (unit.src, unit.dst):
        raise ValueError(f"text names the id column {text!r}; it must name the messages' text")
    count = positive_integer("min_count", min_count)
    order = positive_integer("order", order)
    tokenize = analyzer if analyzer is not None else _analyzer(None, None)
    if not callable(tokenize):
        raise TypeError("analyzer must be a function from a text to its list of words")
    if snapshot is log:
        raise ValueError("snapshot is the private log: the vocabulary and the snapshot's model must come from public text")

    words, snapshot_counts = _snapshot_vocabulary(snapshot, text, tokenize, count, order)
    if person:
        measurement = _person_language_model(unit, metric, budget["epsilon"], budget["delta"], snapshot_counts, words, per_message, order, weight)
    else:
        measurement = make_private_language_model(
            graph_domain(labeled=True),
            metric,
            privacy_loss,
            snapshot_counts=snapshot_counts,
            vocabulary=words,
            max_ngrams_per_pair=per_message if per_message_unit else max_ngrams_per_pair,
            order=order,
            weight=weight,
            release_snapshot_keys=release_snapshot_keys,
        )

    # private: the log, checked against the unit first (schema, then preconditions)
    import polars as pl

    from ..polars._convert import _collect, schema_of
    from ..polars._table_checks import _check_schema

    if not isinstance(log, (pl.DataFrame, pl.LazyFrame)):
        raise TypeError("log must be a Polars DataFrame or LazyFrame")
    schema = schema_of(log) if isinstance(log, pl.LazyFrame) else log.schema  # inferring it may parse the data: withheld
    if text not in schema:
        raise ValueError(f"the log has no column {text!r} (the text column)")
    if schema[text] not in (pl.String, pl.Null):
        raise TypeError(f"the log's column {text!r} must hold text (String)")
    _check_schema(unit, schema)  # the unit's columns and dtypes (public) before any row is computed
    if isinstance(log, pl.LazyFrame):
        log = _collect(log)  # an evaluation error quotes values: withheld
    if person and "message_id" not in schema:
        raise ValueError("person level needs the log's message_id column (a message to several people is one message)")
    unit.check(log)  # a message unit: its message_id column too (present, id dtype, no nulls)
    left_out: tuple[str, ...]
    # the columns under fixed names, so an id column called "labels" cannot meet the builders' own
    keep = [pl.col(unit.src).alias("sender"), pl.col(unit.dst).alias("recipient"), pl.col(text).cast(pl.String).alias("text")]
    if person:
        frame = log.select(pl.col("message_id"), *keep)
        table = person_ngram_table(frame, orders=range(1, order + 1), text="text", analyzer=_total_analyzer(tokenize), vocabulary=words)
        released = measurement(table)
        left_out = _LEFT_OUT_PERSON
    elif per_message_unit:
        graph = unit_message_graph(log, unit, text=text, analyzer=_total_analyzer(tokenize), vocabulary=words, order=order)
        released = measurement(graph)
        left_out = _LEFT_OUT_MESSAGE
    else:
        frame = log.select(*keep)
        columns = replace(unit, src="sender", dst="recipient")
        released = measurement(unit_pair_graph(frame, columns, text="text", analyzer=_total_analyzer(tokenize), vocabulary=words, order=order))
        left_out = _LEFT_OUT
    return replace(released, unit=unit.unit, left_out=left_out, vocabulary=tuple(words))


def _unit_metric(unit: Any) -> dp.Metric:
    """The graph metric a message-table unit means on the graph :func:`private_language_model`
    builds (a message unit: one edge of the graph of messages), or the person-log metric."""
    from ..core.metrics import edge_distance, edge_label_distance, group_distance
    from ..polars import EdgeContentUnit, EdgeGroupUnit, EdgeUnit, MessageUnit, PersonUnit, PrivacyUnit, person_log_distance

    if not isinstance(unit, PrivacyUnit):
        raise TypeError(
            "unit must be one of the package's units: dpg.polars.edge_unit, edge_group_unit, edge_content_unit, message_unit or person_unit"
        )
    if isinstance(unit, (EdgeUnit, MessageUnit)):
        return edge_distance()
    if isinstance(unit, EdgeGroupUnit):
        return group_distance(unit.k)
    if isinstance(unit, EdgeContentUnit):
        return edge_label_distance()
    if isinstance(unit, PersonUnit):
        return person_log_distance(unit.neighbouring)
    raise ValueError(
        f"a {unit.unit} unit is not one this route protects: use edge_unit, edge_group_unit, edge_content_unit, "
        "message_unit or person_unit; Pufferfish is make_label_counts under pufferfish_distance (the language-model tutorial)"
    )


def _snapshot_vocabulary(snapshot: Any, text: str, tokenize: Any, count: int, order: int) -> tuple[list[str], Any]:
    """The vocabulary (the snapshot's words seen ``count`` times) and the snapshot's per-message
    n-gram counts with ``<unk>``, from the public snapshot only (the analyzer may fail on public
    text: it says so)."""
    from ._tokens import ngram_counts

    tokens = []
    for value in _snapshot_texts(snapshot, text):
        words_of_message = tokenize(value) if value else []
        if not isinstance(words_of_message, (list, tuple)):
            raise TypeError(f"analyzer must return a list of words; on a snapshot text it returned {type(words_of_message).__name__}")
        tokens.append(words_of_message)
    seen: dict[str, int] = {}
    for words_of_message in tokens:
        for word in words_of_message:
            if isinstance(word, str) and _model_word(word):
                seen[word] = seen.get(word, 0) + 1
    words = sorted(w for w, n in seen.items() if n >= count)
    if not words:
        raise ValueError(f"no snapshot word is seen {count} times: the vocabulary is empty")
    known = frozenset(words)
    return words, ngram_counts(([w if w in known else "<unk>" for w in m if isinstance(w, str)] for m in tokens), range(1, order + 1))


# the then_ forms (OpenDP's convention: every make_x of (input_domain, input_metric, ...) has one)
then_private_language_model = then(make_private_language_model)
