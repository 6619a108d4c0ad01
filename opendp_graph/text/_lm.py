"""An n-gram language model from counts, released under DP or not: interpolated Kneser–Ney,
built as **post-processing** of the counts (it reads nothing else), robust to the negative and
noisy counts a DP release gives, with scoring, sampling and the ARPA format.

Kneser–Ney (Kneser & Ney 1995; the interpolated form of Chen & Goodman 1998, §3.5): for the
highest order, ``P(w | h) = max(c(h w) − D, 0) / c(h ·) + λ(h) · P(w | h′)``; for the lower
orders the counts are *continuation* counts ``N₁₊(· h w)``, the number of distinct words seen
before ``h w``; ``λ(h) = D · N₁₊(h ·) / c(h ·)`` keeps each distribution summing to one, and the
unigrams interpolate with the uniform distribution over the vocabulary. A context never seen
backs off to the lower order entirely.

**Noisy counts.** A count released with noise of known scale ``b`` is *soft-thresholded*: a
count above ``threshold`` is kept, reduced by the threshold; the others are dropped (a standard
denoiser for sparse vectors under noise, which never keeps a negative count). The default
threshold is the level that, of all the released keys, no key whose true count is 0 passes with
probability 95 % (:func:`threshold_multiple`: ``b·ln(10·K)`` for ``K`` Laplace counts). A fixed
``8b`` let 3–8 keys of pure noise through on 18,804–44,850 keys, each thousands high under group
or person privacy, which wrecked the model (142 against the snapshot's 127 at ε = 10) and the
topics (0 of 10 recovered).
Continuation counts are read off the kept higher-order counts, so a spurious low count does not
create a continuation. With ``public_counts`` (a public snapshot's exact counts) the two are
added before smoothing: the model shrinks toward the snapshot where the private counts are small
or noisy; ``weight`` puts the private counts on the snapshot's scale (per-pair counts against
per-message ones, say: a public ratio). Adding counts makes Kneser–Ney's fixed discount a
smaller share of each count: on the Enron subjects the snapshot's own counts doubled give 151
against 127. :func:`mixture` (a mixture of the snapshot's model and the released counts' own)
avoids that. Measured on the Enron subjects (``python -m benchmarks.language_model``, docs/text.md):
a hard threshold at ``2b`` made the model worse than the snapshot alone (386 against 127 at
ε = 1); the soft threshold never did. All of this reads only the release and public
figures, so the model's privacy is the release's.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, TextIO

from ..core._frozen import frozen
from ._release import NOISES, NGramRelease
from ._tokens import BOS, EOS, UNK

__all__ = ["MixtureModel", "NGramModel", "mixture", "read_arpa", "released_share"]


FALSE_KEY_PROBABILITY = 0.05  # the chance that any released key whose true count is 0 passes the threshold


def threshold_multiple(keys: int, noise: str = "laplace") -> float:
    """The soft threshold in noise scales: the level ``t`` at which, of ``keys`` counts that are
    pure noise, none passes with probability at least 95 % (a union bound over the keys, one-sided
    since only counts above the threshold are kept). Laplace: ``½·e^(−t/b) = 0.05/keys``, so
    ``t/b = ln(10·keys)``; Gaussian: ``t/σ`` is the normal's upper ``0.05/keys`` quantile.

    >>> from opendp_graph.text._lm import threshold_multiple
    >>> round(threshold_multiple(18_804), 2), round(threshold_multiple(18_804, "gaussian"), 2)
    (12.14, 4.55)
    """
    if isinstance(keys, bool) or not isinstance(keys, int) or keys < 1:
        raise ValueError(f"keys must be a positive integer (the number of released counts), got {keys!r}")
    if noise not in NOISES:
        raise ValueError(f"noise must be one of {tuple(NOISES)}, got {noise!r}")
    tail = FALSE_KEY_PROBABILITY / keys
    if noise == "gaussian":
        from scipy.stats import norm

        return float(norm.isf(tail))
    return math.log(1.0 / (2.0 * tail))


def noise_threshold(noise_scale: Any, threshold: Any, keys: int = 1, noise: str = "laplace") -> float:
    """The soft threshold for released counts (module docstring): ``threshold`` if given, else
    ``noise_scale · threshold_multiple(keys, noise)`` (0 without noise), after checking both.
    Shared by the language model and :func:`~opendp_graph.text.topics_from_cooccurrence`."""
    if noise_scale is not None and not (
        isinstance(noise_scale, (int, float)) and not isinstance(noise_scale, bool) and noise_scale >= 0 and math.isfinite(noise_scale)
    ):
        raise ValueError(f"noise_scale must be a finite non-negative number, got {noise_scale!r}")
    if threshold is None:
        return noise_scale * threshold_multiple(max(int(keys), 1), noise) if noise_scale else 0.0
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not threshold >= 0:
        raise ValueError(f"threshold must be a non-negative number, got {threshold!r}")
    return float(threshold)


def _weights(weight: Any, order: int) -> dict[int, float]:
    if isinstance(weight, Mapping):
        out = {n: 1.0 for n in range(1, order + 1)}
        for n, w in weight.items():
            out[n] = _positive_weight(w)
        return out
    w = _positive_weight(weight)
    return {n: w for n in range(1, order + 1)}


def _positive_weight(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value > 0):
        raise ValueError(f"weight must be a positive finite number (or one per order), got {value!r}")
    return float(value)


def _check_counts(counts: Any, name: str) -> dict[tuple[str, ...], float]:
    if not isinstance(counts, Mapping):
        raise TypeError(f"{name} must be a mapping from n-grams (words joined by spaces) to counts, got {type(counts).__name__}")
    out: dict[tuple[str, ...], float] = {}
    for key, value in counts.items():
        if not isinstance(key, str) or not key.strip():
            raise TypeError(f"{name}: every n-gram must be a non-empty str of words joined by spaces, got {key!r}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"{name}: the count of {key!r} must be a finite number, got {value!r}")
        gram = tuple(key.split(" "))
        out[gram] = out.get(gram, 0.0) + float(value)
    return out


class _Scoring:
    """Scoring and sampling from ``prob`` (shared by :class:`NGramModel` and :class:`MixtureModel`)."""

    vocabulary: tuple[str, ...]

    def prob(self, word: str, history: Sequence[str] = ()) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def logprob(self, tokens: Sequence[str]) -> float:
        """The natural log-probability of one sentence (``<s>`` before, ``</s>`` after)."""
        history: list[str] = [BOS]
        total = 0.0
        for word in [*tokens, EOS]:
            total += math.log(self.prob(word, history))
            history.append(word)
        return total

    def perplexity(self, sentences: Iterable[Sequence[str]]) -> float:
        """``exp(−Σ log P / number of predicted tokens)`` over the sentences (each ``</s>``
        counted, ``<s>`` not)."""
        total, count = 0.0, 0
        for tokens in sentences:
            total += self.logprob(tokens)
            count += len(tokens) + 1
        if count == 0:
            raise ValueError("no tokens to score")
        return math.exp(-total / count)

    def sample(self, max_words: int = 30, rng: random.Random | None = None) -> list[str]:
        """One sentence drawn from the model (words until ``</s>`` or ``max_words``). Drawing
        from a released model is post-processing; ``rng`` only makes examples repeatable."""
        rng = rng or random.Random()
        history: list[str] = [BOS]
        out: list[str] = []
        words = [w for w in self.vocabulary]
        for _ in range(max_words):
            weights = [self.prob(w, history) for w in words]
            word = rng.choices(words, weights)[0]
            if word == EOS:
                break
            out.append(word)
            history.append(word)
        return out


@frozen(": build another model with NGramModel.from_counts")
class NGramModel(_Scoring):
    """An interpolated Kneser–Ney n-gram model (module docstring).

    Build it with :meth:`from_counts`. ``logprob`` / ``perplexity`` score text, ``sample`` draws
    sentences, :meth:`to_arpa` writes the standard ARPA file (read back by :func:`read_arpa` or
    any tool that reads ARPA, e.g. KenLM's ``kenlm.Model``).

    >>> from opendp_graph.text import NGramModel
    >>> counts = {"gas": 3, "prices": 2, "</s>": 3, "<s> gas": 3, "gas prices": 2, "prices </s>": 2, "gas </s>": 1}
    >>> model = NGramModel.from_counts(counts, order=2)
    >>> round(model.prob("prices", ["gas"]), 3), round(sum(model.prob(w, ["gas"]) for w in model.vocabulary), 6)
    (0.521, 1.0)
    """

    @classmethod
    def from_release(cls, release: Any, *, order: int | None = None, **kwargs: Any) -> NGramModel:
        """The model from an :class:`~opendp_graph.text.NGramRelease` (post-processing): its
        counts, soft-thresholded per order by the release's public noise law so that no key of
        pure noise passes with probability 95 % (:func:`threshold_multiple` over the release's
        keys: ``12.1b`` for Laplace on 18,804 keys, ``4.55σ`` for the Gaussian). ``order``
        defaults to the release's highest; other arguments as :meth:`from_counts`
        (``public_counts``, ``weight``, ``vocabulary``, …).
        """
        threshold = release_thresholds(release)
        if "noise_scale" in kwargs or "threshold" in kwargs:
            raise ValueError("from_release sets the threshold from the release's noise; use from_counts to set it by hand")
        return cls.from_counts(release.counts, order=order or max(release.scales), threshold=threshold, **kwargs)

    order: int
    vocabulary: tuple[str, ...]
    _vocab: frozenset[str]
    _probs: Mapping[tuple[str, ...], float]
    _backoffs: Mapping[tuple[str, ...], float]
    _uniform: float

    def __init__(self, order: int, vocabulary: Sequence[str], probs: dict, backoffs: dict):
        # frozen (core/_frozen.py): a released model is a value, and its tables are read-only views
        set_field = object.__setattr__
        set_field(self, "order", order)
        set_field(self, "vocabulary", tuple(vocabulary))
        set_field(self, "_vocab", frozenset(self.vocabulary))
        set_field(self, "_probs", MappingProxyType(dict(probs)))  # (h..., w) → P(w | h) for listed n-grams (interpolated)
        set_field(self, "_backoffs", MappingProxyType(dict(backoffs)))  # h → λ(h), the weight of the lower order
        set_field(self, "_uniform", 1.0 / len(self.vocabulary))

    def __reduce__(self):  # pickled as its constructor's arguments (a read-only view does not pickle)
        return type(self), (self.order, self.vocabulary, dict(self._probs), dict(self._backoffs))

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_counts(
        cls,
        counts: Mapping[str, float],
        *,
        order: int = 2,
        noise_scale: float | None = None,
        threshold: float | Mapping[int, float] | None = None,
        public_counts: Mapping[str, float] | None = None,
        weight: float | Mapping[int, float] = 1.0,
        discount: float = 0.75,
        vocabulary: Iterable[str] | None = None,
    ) -> NGramModel:
        """The model from n-gram counts up to ``order`` (keys: the words of an n-gram joined by
        one space, with ``<s>``/``</s>`` boundaries as :func:`~opendp_graph.text.ngrams` gives;
        values: counts, possibly noisy and negative). Post-processing only.

        :param order: the highest n-gram order (1, 2 or 3; higher works but needs the counts).
        :param noise_scale: the released counts' Laplace scale (public), which sets ``threshold``.
        :param threshold: keep a count only above this, reduced by it (default: ``noise_scale ·
            threshold_multiple(len(counts))``, the level no key of pure Laplace noise passes with
            probability 95 %; 0 without noise: every positive count as it is). One number, or
            one per order (``{1: t1, 2: t2}``, as :meth:`from_release` gives).
        :param public_counts: exact counts of a public snapshot, added to the cleaned counts.
        :param weight: a factor on the (cleaned) counts before the snapshot's are added, one
            number or one per n-gram order (``{1: 1.5, 2: 0.9}``).
        :param discount: Kneser–Ney's ``D`` (0 < D < 1), for every order.
        :param vocabulary: the words the model predicts (``</s>`` and ``<unk>`` are added);
            default: every unigram with a kept count. Fix it to compare models' perplexities.
        """
        if isinstance(order, bool) or not isinstance(order, int) or order < 1:
            raise ValueError(f"order must be a positive integer, got {order!r}")
        if not (isinstance(discount, (int, float)) and 0 < discount < 1):
            raise ValueError(f"discount must be in (0, 1), got {discount!r}")
        if isinstance(threshold, Mapping):
            cut = {n: noise_threshold(None, threshold.get(n, 0.0)) for n in range(1, order + 1)}
        else:
            cut = dict.fromkeys(range(1, order + 1), noise_threshold(noise_scale, threshold, max(len(counts), 1)))
        weights = _weights(weight, order)
        raw = _check_counts(counts, "counts")
        cleaned = {g: weights[len(g)] * (c - cut[len(g)]) for g, c in raw.items() if len(g) <= order and c > cut[len(g)]}
        if public_counts is not None:
            for g, c in _check_counts(public_counts, "public_counts").items():
                if len(g) <= order and c > 0:
                    cleaned[g] = cleaned.get(g, 0.0) + c
        if vocabulary is None:
            words = {g[0] for g in cleaned if len(g) == 1 and g[0] != BOS}
        else:
            words = {w for w in vocabulary if isinstance(w, str)}
        vocab = sorted(words - {EOS, UNK, BOS}) + [EOS, UNK]
        known = set(vocab)
        # n-grams over unknown words are folded into <unk> (the model predicts only its vocabulary)
        grams: dict[tuple[str, ...], float] = defaultdict(float)
        for g, c in cleaned.items():
            folded = tuple(w if (w in known or w == BOS) else UNK for w in g)
            if folded[-1] == BOS:
                continue
            grams[folded] += c
        return cls._kneser_ney(order, vocab, grams, float(discount))

    @classmethod
    def _kneser_ney(cls, order: int, vocab: list[str], grams: dict, discount: float) -> NGramModel:
        by_order: list[dict] = [dict() for _ in range(order + 1)]
        for g, c in grams.items():
            by_order[len(g)][g] = c
        # the counts each order smooths: raw for the highest, continuation counts below it (the
        # number of distinct words seen before the n-gram among the next order's kept n-grams)
        used: list[dict] = [dict() for _ in range(order + 1)]
        used[order] = by_order[order]
        for n in range(order - 1, 0, -1):
            continuation: dict = defaultdict(float)
            for g in by_order[n + 1]:
                if g[0] != BOS:
                    continuation[g[1:]] += 1.0
            for g, c in by_order[n].items():
                if g[0] == BOS:  # an n-gram that starts the text has no word before it: its own count
                    continuation[g] = c
            used[n] = dict(continuation)
        probs: dict = {}
        backoffs: dict = {}
        uniform = 1.0 / len(vocab)
        for n in range(1, order + 1):
            totals: dict = defaultdict(float)
            mass: dict = defaultdict(float)  # what the discount takes from each context
            for g, c in used[n].items():
                totals[g[:-1]] += c
                mass[g[:-1]] += min(c, discount)
            for context, total in totals.items():
                backoffs[context] = mass[context] / total
            for g, c in used[n].items():
                context = g[:-1]
                below = uniform if n == 1 else _lookup(probs, backoffs, g[1:], uniform)
                probs[g] = max(c - discount, 0.0) / totals[context] + backoffs[context] * below
        return cls(order, vocab, probs, backoffs)

    # ------------------------------------------------------------------ scoring
    def prob(self, word: str, history: Sequence[str] = ()) -> float:
        """``P(word | history)`` (the last ``order − 1`` words of ``history`` are read; a word
        outside the vocabulary is ``<unk>``)."""
        history = tuple(self._known(w) for w in history)[-(self.order - 1) :] if self.order > 1 else ()
        return _lookup(self._probs, self._backoffs, (*history, self._known(word)), self._uniform)

    def _known(self, word: str) -> str:
        return word if word in self._vocab or word == BOS else UNK

    # ------------------------------------------------------------------ ARPA
    def to_arpa(self, target: str | Path | TextIO) -> None:
        """Write the model in the ARPA back-off format (log10 probabilities; an interpolated
        model is exactly a back-off model whose back-off weight is ``λ(h)``)."""
        listed: list[dict] = [dict() for _ in range(self.order + 1)]
        for g, p in self._probs.items():
            listed[len(g)][g] = p
        for w in self.vocabulary:  # every word is a unigram, seen or not
            listed[1].setdefault((w,), self.prob(w))
        listed[1][(BOS,)] = 0.0  # <s> is never predicted: ARPA's convention, log10 prob −99
        for context in self._backoffs:  # a context carries its back-off weight on its own line
            if 1 <= len(context) < self.order and context not in listed[len(context)]:
                listed[len(context)][context] = self.prob(context[-1], context[:-1])
        lines = ["", "\\data\\"] + [f"ngram {n}={len(listed[n])}" for n in range(1, self.order + 1)]
        for n in range(1, self.order + 1):
            lines += ["", f"\\{n}-grams:"]
            for g in sorted(listed[n]):
                p = listed[n][g]
                logp = -99.0 if p <= 0 else math.log10(p)
                row = f"{logp:.7f}\t{' '.join(g)}"
                if n < self.order and g in self._backoffs:
                    row += f"\t{math.log10(self._backoffs[g]) if self._backoffs[g] > 0 else -99.0:.7f}"
                lines.append(row)
        lines += ["", "\\end\\", ""]
        text = "\n".join(lines)
        if isinstance(target, (str, Path)):
            Path(target).write_text(text, encoding="utf-8")
        else:
            target.write(text)


@frozen(": build another mixture with mixture(models, weights)")
class MixtureModel(_Scoring):
    """A linear mixture of n-gram models over one vocabulary: ``P(w | h) = Σ μᵢ · Pᵢ(w | h)``
    (Jelinek & Mercer's interpolation of whole models). Post-processing of the models.

    Mixing a public snapshot's model with a model of the **released counts alone** keeps
    Kneser–Ney's discounts on each model's own counts. Adding released counts to the
    snapshot's before smoothing (``public_counts=``) inflates the counts that the discount ``D``
    is subtracted from: on the Enron subjects, doubling the snapshot's own counts takes its
    perplexity from 127 to 151. Measured (``python -m benchmarks.language_model``, docs/text.md), with
    ``μ`` = :func:`released_share`: where the private period drifts from the snapshot (Enron),
    the mixture does better than adding counts; where it does not (the synthetic log), about
    the same at ε ≤ 10 and worse at ε = 100.

    There is no ARPA form: a mixture's back-off is not one weight per context (each model
    backs off with its own), so an exact file would list every (context, word) pair.

    >>> from opendp_graph.text import NGramModel, mixture
    >>> a = NGramModel.from_counts({"gas": 3, "</s>": 3, "<s> gas": 3, "gas </s>": 3}, order=2, vocabulary=["gas", "power"])
    >>> b = NGramModel.from_counts({"power": 3, "</s>": 3, "<s> power": 3, "power </s>": 3}, order=2, vocabulary=["gas", "power"])
    >>> m = mixture([a, b], [0.5, 0.5])
    >>> round(m.prob("gas"), 6) == round((a.prob("gas") + b.prob("gas")) / 2, 6), round(sum(m.prob(w, ["gas"]) for w in m.vocabulary), 6)
    (True, 1.0)
    """

    models: tuple[NGramModel, ...]
    weights: tuple[float, ...]
    vocabulary: tuple[str, ...]
    order: int

    def __init__(self, models: Sequence[NGramModel], weights: Sequence[float]):
        set_field = object.__setattr__  # frozen (core/_frozen.py), as NGramModel
        set_field(self, "models", tuple(models))
        set_field(self, "weights", tuple(float(w) for w in weights))
        set_field(self, "vocabulary", self.models[0].vocabulary)
        set_field(self, "order", max(m.order for m in self.models))

    def prob(self, word: str, history: Sequence[str] = ()) -> float:
        """``Σ μᵢ · Pᵢ(word | history)``."""
        return sum(w * m.prob(word, history) for m, w in zip(self.models, self.weights))

    def to_arpa(self, target: Any) -> None:
        raise NotImplementedError("a mixture of n-gram models has no exact ARPA form (each model backs off with its own weights)")


def mixture(models: Sequence[NGramModel], weights: Sequence[float]) -> MixtureModel:
    """The linear mixture ``Σ μᵢ · Pᵢ`` of models with one vocabulary (:class:`MixtureModel`):
    weights non-negative, summing to 1."""
    models = list(models)
    if len(models) < 2 or not all(isinstance(m, NGramModel) for m in models):
        raise TypeError("mixture needs two or more NGramModel")
    if any(set(m.vocabulary) != set(models[0].vocabulary) for m in models):
        raise ValueError("the models must share one vocabulary (build them with the same vocabulary=...)")
    weights = list(weights)
    if len(weights) != len(models):
        raise ValueError(f"one weight per model: {len(models)} models, {len(weights)} weights")
    for w in weights:
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not (math.isfinite(w) and w >= 0):
            raise ValueError(f"every weight must be a non-negative finite number, got {w!r}")
    if abs(sum(weights) - 1.0) > 1e-9:
        raise ValueError(f"the weights must sum to 1, got {sum(weights)!r}")
    return MixtureModel(models, weights)


def release_thresholds(release: Any) -> dict[int, float]:
    """Each order's soft threshold for an :class:`~opendp_graph.text.NGramRelease`, from its
    public noise law and its number of keys (:func:`noise_threshold`): what
    :meth:`NGramModel.from_release` and :func:`released_share` both cut at."""
    if not isinstance(release, NGramRelease):
        raise TypeError(f"release must be an NGramRelease (from make_ngram_count_release), got {type(release).__name__}")
    keys = len(release.counts)  # the released keys: public
    return {n: noise_threshold(s, None, keys, release.noise) for n, s in release.scales.items()}


def released_share(release: Any, public_counts: Mapping[str, float], *, weight: float | Mapping[int, float] = 1.0, order: int | None = None) -> float:
    """The released counts' share of the mass of one n-gram order (default: the release's
    highest), after the threshold of :meth:`NGramModel.from_release`: ``w·Σ max(c − t, 0) /
    (w·Σ max(c − t, 0) + Σ snapshot)`` over that order's n-grams (``w`` its ``weight``). The
    mixture weight ``μ`` measured in docs/text.md (:class:`MixtureModel`). The highest order,
    because a model of the released counts is only as good as the counts its predictions rest on:
    its lower orders are read off the higher ones (Kneser–Ney's continuation counts), so where the
    threshold drops most bigrams the unigrams' share overstates it (measured on the synthetic log:
    μ from the unigrams 0.58 and perplexity 179 at ε = 10, from the bigrams 0.05 and 126).
    Post-processing of the release and public counts."""
    thresholds = release_thresholds(release)
    n = max(release.scales) if order is None else order
    if n not in thresholds:
        raise ValueError(f"the release has no counts of order {n} (orders {sorted(release.scales)})")
    w = _weights(weight, n)[n]
    cut = thresholds[n]
    private = w * sum(max(c - cut, 0.0) for g, c in release.counts.items() if g.count(" ") == n - 1)
    public = sum(c for g, c in _check_counts(public_counts, "public_counts").items() if len(g) == n and c > 0)
    return private / (private + public) if private + public > 0 else 0.0


def _lookup(probs: Mapping[tuple[str, ...], float], backoffs: Mapping[tuple[str, ...], float], gram: tuple[str, ...], uniform: float) -> float:
    """``P(w | h)`` for ``gram = (*h, w)``: listed, or ``λ(h) · P(w | h′)`` (``λ(h) = 1`` for a
    context never seen: the lower order entirely), down to the uniform distribution."""
    weight = 1.0
    while gram:
        p = probs.get(gram)
        if p is not None:
            return weight * p
        weight *= backoffs.get(gram[:-1], 1.0)
        gram = gram[1:]
    return weight * uniform


def read_arpa(source: str | Path | TextIO) -> NGramModel:
    """A model from an ARPA file (the one :meth:`NGramModel.to_arpa` writes, or another tool's
    with the same vocabulary conventions: ``</s>`` and ``<unk>`` listed as unigrams)."""
    text = Path(source).read_text(encoding="utf-8") if isinstance(source, (str, Path)) else source.read()
    if "\\data\\" not in text:
        raise ValueError("not an ARPA file: no \\data\\ section")
    probs: dict = {}
    backoffs: dict = {}
    section = 0
    order = 0
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line in ("\\data\\", "\\end\\") or line.startswith("ngram "):
            if line.startswith("ngram "):
                order = max(order, int(line.split()[1].split("=")[0]))
            continue
        if line.startswith("\\") and line.endswith("-grams:"):
            section = int(line[1:].split("-")[0])
            continue
        parts = line.split("\t") if "\t" in line else line.split()
        if "\t" not in line:  # whitespace-separated: prob, n words, optional back-off
            parts = [parts[0], " ".join(parts[1 : 1 + section])] + parts[1 + section :]
        try:
            gram = tuple(parts[1].split(" "))
            logp = float(parts[0])
        except (IndexError, ValueError):
            raise ValueError(f"line {number} of the ARPA file is not an n-gram entry: {line!r}") from None
        if gram != (BOS,):
            probs[gram] = 0.0 if logp <= -99 else 10.0**logp
        if len(parts) > 2:
            backoffs[gram] = 0.0 if float(parts[2]) <= -99 else 10.0 ** float(parts[2])
    if order == 0:
        raise ValueError("not an ARPA file: no \\data\\ section with n-gram counts")
    vocab = [g[0] for g in probs if len(g) == 1]
    for marker in (EOS, UNK):
        if marker not in vocab:
            raise ValueError(f"the ARPA file lists no {marker} unigram")
    return NGramModel(order, vocab, probs, backoffs)
