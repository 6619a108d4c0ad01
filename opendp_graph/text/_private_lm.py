"""A language model learned from the private period's own n-grams, in one measurement.

:func:`make_private_language_model` (edge level, one pair's messages) releases the n-grams the
pairs used, at most ``c`` per pair, by a DP set union (the package's thresholded Gaussian, δ
corrected), converts the whole to ``(ε, δ)`` with OpenDP's own conversion, and post-processes the
released counts into an interpolated Kneser–Ney model mixed with the public snapshot's. Unlike a
release on the snapshot's keys, it learns n-grams the snapshot never saw (new topics), and it
spends no noise on the thousands of keys that nobody private used.

The mixture weight is public and fixed in advance (default 0.3). The released counts are only the
n-grams many pairs used, so a model of them alone is over-confident: weights from the released
text's size (0.6–0.8) did worse than 0.3–0.5 on the synthetic chat text, and a weight validated
on the snapshot's last weeks chose the snapshot (0.1) under drift. 0.3 was chosen on the
synthetic chat text at 12,000 and 20,000 messages, not on the logs ``benchmarks/chat_text_lm.py``
reports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import opendp.prelude as dp

from ..core._checks import open_probability, positive_budget, positive_integer
from ..measurements._context import zcdp_budget
from ..measurements.threshold import calibrate_gaussian_threshold, make_gaussian_threshold
from ..transformations.labels import make_label_count_map
from ._lm import MixtureModel, NGramModel, mixture

__all__ = ["PrivateLanguageModel", "make_private_language_model"]


@dataclass(frozen=True)
class PrivateLanguageModel:
    """What :func:`make_private_language_model` releases (all of it DP: post-processing of the union).

    * ``model``: the model to use, the mixture ``weight · private + (1 − weight) · snapshot`` (the
      snapshot's model alone when the union released nothing);
    * ``private_model``: Kneser–Ney on the released counts alone (``None`` when nothing was released);
    * ``released``: the released n-gram counts (noisy; each at least ``threshold``);
    * ``scale``, ``threshold``: the union's discrete Gaussian σ and threshold (public);
    * ``epsilon``, ``delta``: what the release spent, from OpenDP's map at one pair.
    """

    model: NGramModel | MixtureModel
    private_model: NGramModel | None
    weight: float
    released: Mapping[str, float]
    scale: float
    threshold: int
    epsilon: float
    delta: float


def _snapshot_counts(counts: Any) -> dict[str, float]:
    if not isinstance(counts, Mapping) or not counts:
        raise ValueError("snapshot_counts must be a non-empty mapping of n-gram → count (dpg.text.ngram_counts of the snapshot)")
    return {str(k): float(v) for k, v in counts.items()}


def make_private_language_model(
    input_domain: dp.Domain,
    input_metric: dp.Metric,
    epsilon: float,
    *,
    snapshot_counts: Mapping[str, float],
    vocabulary: Any,
    max_ngrams_per_pair: int = 16,
    order: int = 2,
    delta: float = 1e-6,
    weight: float = 0.3,
) -> dp.Measurement:
    """An n-gram language model of a private period at edge level, ``(ε, δ)``-DP (module docstring).

    :param input_domain: ``graph_domain(labeled=True)``: the graph of who wrote to whom with each
        pair's n-grams as its edge's labels (:func:`~opendp_graph.text.pair_ngram_graph` of the
        private period, with the public ``vocabulary``, orders ``1 … order``).
    :param input_metric: :func:`~opendp_graph.edge_distance` (one pair's messages), or the other
        metrics :func:`~opendp_graph.make_label_count_map` accepts (group, edge-label).
    :param epsilon: the whole ``ε`` (choice-free: one release).
    :param snapshot_counts: the public snapshot's per-message n-gram counts
        (:func:`~opendp_graph.text.ngram_counts`, orders ``1 … order``, the vocabulary folded).
    :param vocabulary: the public word list both models predict (e.g. the snapshot's words seen twice).
    :param max_ngrams_per_pair: ``c``, the most n-grams one pair contributes (the first ``c`` of
        its label set in the package's order: the rest is left out, and said so).
    :param order: the model's order (the labels must include every order up to it).
    :param delta: the whole ``δ``: half to the zCDP conversion, half to the threshold.
    :param weight: the private model's public weight in the mixture, in ``(0, 1)`` (module docstring).
    :return: a measurement (OpenDP's ``approximate(max_divergence)``: ``(ε, δ)``) whose output
        is a :class:`PrivateLanguageModel`.

    **Privacy guarantee.** ``(ε, δ)``-DP for one pair under ``edge_distance``. *Proof.*
    :func:`~opendp_graph.make_label_count_map` maps the graph to the pairs' n-gram counts with at
    most ``c`` n-grams per pair, each counted once per pair, so one pair moves at most ``c`` keys by
    one (ℓ0 ``c``, ℓ∞ 1; its docstring's proof). :func:`~opendp_graph.make_gaussian_threshold` on
    them is ``(ρ, δ/2)``-approximate-zCDP with ``ρ = zcdp_budget(ε, δ/2)`` (OpenDP's map at the
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
    ...     dpg.graph_domain(labeled=True), dpg.edge_distance(), 1.0,
    ...     snapshot_counts=snapshot, vocabulary=["gas", "prices"])
    >>> eps, delta = meas.map(1)
    >>> eps <= 1.0 and delta <= 1e-6
    True
    """
    dp.assert_features("contrib", "honest-but-curious")
    epsilon = positive_budget("epsilon", epsilon)
    delta = open_probability("delta", delta)
    c = positive_integer("max_ngrams_per_pair", max_ngrams_per_pair)
    weight = open_probability("weight", weight)
    order = positive_integer("order", order)
    snapshot = _snapshot_counts(snapshot_counts)
    if isinstance(vocabulary, (str, bytes)) or not hasattr(vocabulary, "__iter__"):
        raise TypeError("vocabulary must be a list of words")
    words = [w for w in vocabulary if isinstance(w, str)]
    if not words:
        raise ValueError("vocabulary must name at least one word")

    count_map = make_label_count_map(
        input_domain, input_metric, c, output_metric=dp.l02inf_distance(dp.absolute_distance(T=dp.f64))
    )
    rho = zcdp_budget(epsilon, delta / 2)
    scale, threshold = calibrate_gaussian_threshold(count_map, 1, rho, delta / 2)
    union = count_map >> make_gaussian_threshold(count_map.output_domain, count_map.output_metric, scale, threshold)
    approximate = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(union), delta)
    spent_epsilon, spent_delta = approximate.map(1)
    if spent_epsilon > epsilon or spent_delta > delta:  # the conversion is OpenDP's: trust but verify
        raise ValueError(f"the union spends ({spent_epsilon!r}, {spent_delta!r}), above the budget ({epsilon!r}, {delta!r})")

    snapshot_model = NGramModel.from_counts(snapshot, order=order, vocabulary=words)

    def build(released: Mapping[str, Any]) -> PrivateLanguageModel:
        # keep only keys a model can read (words joined by single spaces): a released label that is
        # blank or oddly spaced would otherwise make the post-processing raise after the noise (red team)
        counts = {str(g): float(v) for g, v in released.items() if isinstance(g, str) and g.split() and " ".join(g.split()) == g}
        if not any(" " not in g for g in counts):  # nothing (or no unigram) survived: the snapshot alone
            return PrivateLanguageModel(snapshot_model, None, 0.0, counts, scale, threshold, spent_epsilon, spent_delta)
        private = NGramModel.from_counts(counts, order=order, vocabulary=words)
        return PrivateLanguageModel(
            mixture([private, snapshot_model], [weight, 1.0 - weight]), private, weight, counts, scale, threshold,
            spent_epsilon, spent_delta,
        )

    return approximate >> dp.new_function(build, TO="ExtrinsicObject")
