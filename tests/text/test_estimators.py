"""Properties of the text estimators the releases post-process into (they hold for any counts, so
they are checked on random ones): the mixture is a distribution and never worse than its parts'
geometric mean (Jensen), the soft threshold keeps pure-noise keys out at its stated rate, and a
model's probabilities do not depend on the order counts are given in."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy.stats import laplace, norm

from opendp_graph.text import NGramModel, mixture
from opendp_graph.text._lm import FALSE_KEY_PROBABILITY, threshold_multiple

WORDS = ["gas", "power", "price", "up"]


def random_counts(rng: random.Random, noisy: bool) -> dict[str, float]:
    """Unigram and bigram counts over WORDS (with the sentence marks); noisy ones may be negative."""
    grams = WORDS + ["</s>"] + [f"{a} {b}" for a in ["<s>"] + WORDS for b in WORDS + ["</s>"]]
    counts = {}
    for g in rng.sample(grams, rng.randint(3, len(grams))):
        counts[g] = rng.uniform(-2, 9) if noisy else float(rng.randint(1, 9))
    return counts


def sentences(rng: random.Random) -> list[list[str]]:
    return [[rng.choice(WORDS) for _ in range(rng.randint(1, 5))] for _ in range(20)]


@pytest.mark.parametrize("seed", range(8))
def test_a_mixture_is_a_distribution_and_no_worse_than_its_parts_geometric_mean(seed):
    """log(w·p + (1 − w)·q) ≥ w·log p + (1 − w)·log q (Jensen) for every word, so the mixture's
    perplexity is at most ppl_p^w · ppl_q^(1−w): a mixture that scored worse would be a wrong mixture."""
    rng = random.Random(seed)
    p = NGramModel.from_counts(random_counts(rng, noisy=bool(seed % 2)), order=2, vocabulary=WORDS)
    q = NGramModel.from_counts(random_counts(rng, noisy=False), order=2, vocabulary=WORDS)
    w = rng.uniform(0.05, 0.95)
    mixed = mixture([p, q], [w, 1 - w])
    for history in ([], ["gas"], ["up"], ["<s>"]):
        assert math.isclose(sum(mixed.prob(x, history) for x in mixed.vocabulary), 1.0, rel_tol=1e-9)
    test = sentences(rng)
    assert mixed.perplexity(test) <= p.perplexity(test) ** w * q.perplexity(test) ** (1 - w) * (1 + 1e-9)


@pytest.mark.parametrize("noise, law", [("laplace", laplace), ("gaussian", norm)])
@pytest.mark.parametrize("keys", [1, 10, 18_804])
def test_the_soft_threshold_lets_a_pure_noise_key_through_at_its_stated_rate(noise, law, keys):
    """Of ``keys`` counts of pure noise (scale 1), the chance any exceeds the threshold is at most
    FALSE_KEY_PROBABILITY (a union bound, tight for one key)."""
    t = threshold_multiple(keys, noise)
    any_passes = 1 - law.cdf(t) ** keys
    assert any_passes <= FALSE_KEY_PROBABILITY + 1e-12
    assert keys * law.sf(t) == pytest.approx(FALSE_KEY_PROBABILITY, rel=1e-9)  # the union bound, met exactly
    assert threshold_multiple(keys, noise) < threshold_multiple(keys * 10, noise)


def test_a_model_does_not_depend_on_the_order_of_its_counts():
    rng = random.Random(5)
    counts = random_counts(rng, noisy=True)
    shuffled = dict(rng.sample(list(counts.items()), len(counts)))
    a = NGramModel.from_counts(counts, order=2, vocabulary=WORDS)
    b = NGramModel.from_counts(shuffled, order=2, vocabulary=WORDS)
    probs = [(a.prob(x, h), b.prob(x, h)) for x in a.vocabulary for h in ([], ["gas"], ["<s>"])]
    assert np.allclose(*zip(*probs), rtol=0, atol=1e-15)


def test_reports_are_read_only_and_pickle():
    """A release's report is a value: its counts, scales and weights refuse writes (review: a
    frozen dataclass whose dict could still be written), and it pickles."""
    import pickle

    from opendp_graph.text import NGramRelease, Topics

    release = NGramRelease({"gas": 3.0}, {1: 1.5}, "gaussian")
    with pytest.raises(TypeError):
        release.counts["gas"] = 0.0  # type: ignore[index]
    with pytest.raises(TypeError):
        release.scales[1] = 0.0  # type: ignore[index]
    assert pickle.loads(pickle.dumps(release)) == release
    topics = Topics(("gas", "power"), np.array([[1.0, 0.0]]))
    with pytest.raises(ValueError):
        topics.weights[0, 0] = 2.0
    again = pickle.loads(pickle.dumps(topics))
    assert again.vocabulary == topics.vocabulary and np.array_equal(again.weights, topics.weights)
