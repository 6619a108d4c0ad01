"""Empirical privacy auditing: a high-confidence *lower bound* on ε from a threshold attack.

The auditor plays the distinguishing game behind differential privacy (and Pufferfish): it runs
the mechanism many times on inputs drawn under hypothesis 0 and under hypothesis 1, and looks for
an event ``S`` of the output whose probabilities ``P₀(S)``, ``P₁(S)`` are far apart.  Any
``(ε, δ)``-private mechanism (for that pair of hypotheses) satisfies, for every event,

    P₁(S) ≤ e^ε · P₀(S) + δ,   so   ε ≥ log((P₁(S) − δ) / P₀(S)).

With Clopper–Pearson bounds ``p₁ ≥ lo`` and ``p₀ ≤ hi`` that hold simultaneously with
probability ``≥ 1 − β``, ``log((lo − δ) / hi)`` is a lower bound on the true ε with confidence
``1 − β``: a value above a claimed ε *refutes* the claim at that confidence (one-sided, so a
correct mechanism is flagged with probability at most β).

How the test is chosen (so that the confidence is honest):

1. the outputs of each hypothesis are split in two halves; the first half only *selects* tests;
2. the candidate events are one-sided thresholds ``{t(out) ≥ c}`` / ``{t(out) ≤ c}`` of scalar
   statistics ``t`` (the output itself for scalars; each coordinate and a mean-difference
   projection and a Laplace log-likelihood ratio for vectors; per-key values with ``-∞`` for a missing key for dict outputs; or the
   caller's statistics), in both orientations (which hypothesis is the numerator);
3. the ``candidates`` best events on the selection half (ranked by their own Clopper–Pearson
   lower bound, which penalises rare events) are evaluated on the second half, with a
   Bonferroni split of β over the ``2 × candidates`` one-sided intervals.

The reported bound is the largest evaluation-half bound (floored at 0).

**Randomness.** The inputs (samplers) and the split are driven by ``numpy.random.default_rng(seed)``,
so everything the auditor itself does is reproducible.  The mechanism's own noise is drawn by
OpenDP from its cryptographic generator and *cannot* be seeded: the outcome of an audit is a random
variable.  Tests that use the auditor therefore assert statements whose failure probability is
bounded (a correct mechanism exceeds its claim with probability ``≤ 1 − confidence``; the
negative controls are set up with a margin of many standard errors).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from numbers import Real
from typing import Any

import numpy as np
from scipy.stats import beta as _beta

from ..core._checks import integer_at_least

__all__ = ["EmpiricalEpsilon", "empirical_epsilon", "clopper_pearson"]


def clopper_pearson(k: Any, n: int, level: float) -> tuple[np.ndarray, np.ndarray]:
    """One-sided Clopper–Pearson bounds for ``k`` successes out of ``n``.

    Returns ``(lower, upper)`` such that ``P(p < lower) ≤ level`` and ``P(p > upper) ≤ level``
    separately (each is an exact one-sided bound at confidence ``1 − level``).

    >>> lo, hi = clopper_pearson(0, 100, 0.05)
    >>> float(lo), round(float(hi), 4)
    (0.0, 0.0295)
    """
    k = np.asarray(k, dtype=float)
    if not (0.0 < level < 1.0):
        raise ValueError(f"level must be in (0, 1), got {level}")
    with np.errstate(invalid="ignore"):
        lower = np.where(k > 0, _beta.ppf(level, np.maximum(k, 1e-300), n - k + 1), 0.0)
        upper = np.where(k < n, _beta.ppf(1.0 - level, k + 1, np.maximum(n - k, 1e-300)), 1.0)
    return lower, upper


@dataclass(frozen=True)
class EmpiricalEpsilon:
    """The result of :func:`empirical_epsilon`.

    ``epsilon_lower`` is a lower bound on the true ε (at the given δ) that holds with probability
    at least ``confidence``; ``estimate`` is the plain ratio estimate of the same event on the
    evaluation half (not a bound); ``test`` describes the event that achieved the bound.
    """

    epsilon_lower: float
    """``max(0, log((lo − δ) / hi))`` for the best evaluated event, with ``lo`` the lower
    Clopper–Pearson bound of its probability under the numerator hypothesis and ``hi`` the upper
    one under the other, on the evaluation half: below the true ε (at ``delta``) with probability
    at least ``confidence`` (module docstring). ``0.0`` when no event gives a positive bound."""
    confidence: float
    """The requested confidence ``1 − β``; β is split (Bonferroni) over ``2 ×`` the requested
    number of candidates one-sided intervals."""
    delta: float
    """The δ at which ε is bounded (``0.0``: pure DP); subtracted from the numerator's lower bound."""
    samples: int
    """Mechanism runs per hypothesis: the first ``samples // 2`` select the events, the rest
    evaluate them."""
    estimate: float
    """``log((p̂₁ − δ) / p̂₀)`` of the reported event's empirical frequencies on the evaluation
    half (numerator first): a point estimate, **not** a bound (``0.0`` if ``p̂₁ ≤ δ`` or no event
    was found, ``inf`` if ``p̂₀ = 0``)."""
    test: str
    """The reported event, ``"<statistic> ≥ <threshold>, P<a>/P<b>"`` (or ``≤``; ``P1/P0``: its
    probability under hypothesis 1 over hypothesis 0), or ``"no event separates the two
    hypotheses"``."""
    candidates: int
    """The number of events actually evaluated on the second half: at most the ``candidates``
    argument, fewer when fewer events had a finite bound on the selection half (the Bonferroni
    split still uses the argument, so the confidence stays valid)."""
    seed: int
    """The seed of the auditor's generator (samplers and nothing else; the mechanism's noise is
    OpenDP's and is not seeded)."""
    counts: tuple[int, int] = field(default=(0, 0))
    """``(k_num, k_den)``: how many evaluation-half outputs of the numerator hypothesis and of
    the other one fall in the reported event, out of ``samples − samples // 2`` each; ``(0, 0)``
    when no event was reported."""

    def exceeds(self, claimed_epsilon: float) -> bool:
        """True iff the audit refutes ``claimed_epsilon`` at this confidence."""
        return self.epsilon_lower > float(claimed_epsilon)

    def __str__(self) -> str:
        return (
            f"ε ≥ {self.epsilon_lower:.4f} with confidence {self.confidence:g} (δ = {self.delta:g}; "
            f"{self.samples} samples per hypothesis; best event: {self.test}; estimate {self.estimate:.4f})"
        )


def _is_sampler(obj: Any) -> bool:
    # Graphs, lists, numbers and dicts are data; a callable that is not an OpenDP object is a sampler.
    return callable(obj) and not isinstance(obj, (np.ndarray, list, tuple, dict)) and not hasattr(obj, "num_nodes")


def _draw(mechanism: Callable, source: Any, rng: np.random.Generator, size: int, batch: bool) -> list:
    if batch:
        inputs = source(rng, size) if _is_sampler(source) else [source] * size
        outputs = mechanism(inputs)
        outputs = list(outputs) if not isinstance(outputs, np.ndarray) else outputs
        if len(outputs) != size:
            raise ValueError(f"a batched mechanism must return {size} outputs, got {len(outputs)}")
        return list(outputs)
    if _is_sampler(source):
        return [mechanism(source(rng)) for _ in range(size)]
    return [mechanism(source) for _ in range(size)]


def _features(out0: list, out1: list, statistic: Any) -> tuple[list[str], np.ndarray, np.ndarray, bool]:
    """Turn outputs into named scalar features; the last flag asks for a mean-difference projection."""
    if statistic is not None:
        if callable(statistic):
            stats = {"statistic": statistic}
        elif isinstance(statistic, Mapping):
            stats = dict(statistic)
        else:
            stats = {f"statistic[{i}]": s for i, s in enumerate(statistic)}
        if not stats or not all(callable(s) for s in stats.values()):
            raise TypeError("statistic must be a callable, a list of callables or a dict name -> callable")
        names = list(stats)
        f0 = np.array([[float(s(o)) for s in stats.values()] for o in out0], dtype=float)
        f1 = np.array([[float(s(o)) for s in stats.values()] for o in out1], dtype=float)
        return names, f0, f1, False
    first = out0[0]
    if isinstance(first, Mapping):
        keys = sorted({k for o in out0 for k in o} | {k for o in out1 for k in o}, key=str)
        if not keys:
            keys = ["<no key>"]
        f0 = np.array([[float(o.get(k, -np.inf)) for k in keys] for o in out0], dtype=float)
        f1 = np.array([[float(o.get(k, -np.inf)) for k in keys] for o in out1], dtype=float)
        return [f"value[{k!r}] (−∞ if absent)" for k in keys], f0, f1, False
    if isinstance(first, (Real, np.number)) and not isinstance(first, bool):
        return ["output"], np.asarray(out0, dtype=float)[:, None], np.asarray(out1, dtype=float)[:, None], False
    try:
        f0 = np.asarray(out0, dtype=float)
        f1 = np.asarray(out1, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"cannot audit outputs of type {type(first).__name__} without a statistic: pass statistic=callable") from None
    if f0.ndim != 2 or f1.ndim != 2 or f0.shape[1] != f1.shape[1]:
        raise TypeError("vector outputs must all have the same length; pass statistic=callable otherwise")
    return [f"output[{j}]" for j in range(f0.shape[1])], f0, f1, f0.shape[1] > 1


def _thresholds(values: np.ndarray, max_thresholds: int) -> np.ndarray:
    uniq = np.unique(values[~np.isnan(values)])
    if uniq.size <= max_thresholds:
        return uniq
    qs = np.linspace(0.0, 1.0, max_thresholds)
    return np.unique(np.quantile(uniq, qs, method="inverted_cdf"))


def _event_counts(sorted_vals: np.ndarray, thresholds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Counts of ``v ≥ t`` and ``v ≤ t`` for each threshold."""
    n = sorted_vals.size
    ge = n - np.searchsorted(sorted_vals, thresholds, side="left")
    le = np.searchsorted(sorted_vals, thresholds, side="right")
    return ge, le


def _bound(k_num: np.ndarray, n_num: int, k_den: np.ndarray, n_den: int, level: float, delta: float) -> np.ndarray:
    lo, _ = clopper_pearson(k_num, n_num, level)
    _, hi = clopper_pearson(k_den, n_den, level)
    with np.errstate(divide="ignore", invalid="ignore"):
        val = np.log(np.maximum(lo - delta, 0.0) / hi)
    return np.where(lo - delta > 0, val, -np.inf)


def _estimate(k_num: int, n_num: int, k_den: int, n_den: int, delta: float) -> float:
    p1, p0 = k_num / n_num, k_den / n_den
    if p1 - delta <= 0:
        return 0.0
    if p0 == 0:
        return math.inf
    return math.log((p1 - delta) / p0)


# long: docstring (its guarantee, parameters and refusals) beside code of under 100 lines
def empirical_epsilon(
    mechanism: Callable[[Any], Any],
    sample0: Any,
    sample1: Any,
    *,
    samples: int = 20_000,
    statistic: Any = None,
    confidence: float = 0.95,
    delta: float = 0.0,
    candidates: int = 8,
    max_thresholds: int = 400,
    seed: int = 0,
    batch: bool = False,
) -> EmpiricalEpsilon:
    """A high-confidence lower bound on the ε of ``mechanism`` for the pair ``(sample0, sample1)``.

    :param mechanism: any callable input → output, e.g. an OpenDP ``Measurement``. Outputs may be
        numbers, equal-length vectors, or dicts (``str → number``, e.g. a thresholded count map).
    :param sample0: the input under hypothesis 0: a fixed dataset (a neighbouring pair for DP), or
        a sampler ``rng -> dataset`` (a dataset drawn conditioned on one secret of a pair, for
        Pufferfish). A sampler receives the auditor's seeded ``numpy.random.Generator``.
    :param sample1: the same for hypothesis 1.
    :param samples: mechanism runs per hypothesis (half select the test, half evaluate it).
    :param statistic: optional callable output → float (or a list / dict of them) defining the
        scalar statistics to threshold; by default the output itself, each coordinate of a vector
        plus the mean-difference projection, or each key's value of a dict.
    :param confidence: the probability that the reported bound is below the true ε.
    :param delta: audit ``(ε, δ)``: the bound is on ε at this δ (0 for pure DP).
    :param candidates: how many events chosen on the first half are evaluated (Bonferroni).
    :param max_thresholds: thresholds tried per statistic on the first half.
    :param seed: seed of the samplers (the mechanism's noise is OpenDP's and is not seeded).
    :param batch: if true, ``sample0/1`` are called as ``sampler(rng, size)`` returning ``size``
        datasets and ``mechanism`` maps the list of ``size`` datasets to ``size`` outputs in one
        call (e.g. an OpenDP Laplace measurement on a vector of true counts).
    :return: an :class:`EmpiricalEpsilon`.

    :example:

    >>> import opendp.prelude as dp
    >>> dp.enable_features("contrib")
    >>> meas = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), 1.0)
    >>> res = empirical_epsilon(meas, 0.0, 1.0, samples=4000, seed=1)
    >>> 0.0 < res.epsilon_lower <= 1.0  # true ε = 1; fails with probability ≤ 5 %
    True
    """
    if not callable(mechanism):
        raise TypeError(f"mechanism must be callable, got {type(mechanism).__name__}")
    samples = integer_at_least("samples", samples, 20)
    candidates = integer_at_least("candidates", candidates, 1)
    max_thresholds = integer_at_least("max_thresholds", max_thresholds, 2)
    seed = integer_at_least("seed", seed, 0)
    if isinstance(confidence, bool) or not isinstance(confidence, Real) or not (0.0 < confidence < 1.0):
        raise ValueError(f"confidence must be a number in (0, 1), got {confidence!r}")
    if isinstance(delta, bool) or not isinstance(delta, Real) or not (0.0 <= delta < 1.0):
        raise ValueError(f"delta must be a number in [0, 1), got {delta!r}")
    confidence, delta = float(confidence), float(delta)

    rng = np.random.default_rng(seed)
    out0 = _draw(mechanism, sample0, rng, samples, batch)
    out1 = _draw(mechanism, sample1, rng, samples, batch)
    names, f0, f1, project = _features(out0, out1, statistic)

    half = samples // 2
    sel0, ev0 = f0[:half], f0[half:]
    sel1, ev1 = f1[:half], f1[half:]
    if project:
        # Two combined statistics, both fitted on the selection half only:
        # (a) the mean-difference direction (Gaussian-like noise);
        # (b) a Laplace log-likelihood ratio Σ_k (|x_k − m0_k| − |x_k − m1_k|) / s_k with the
        #     per-hypothesis medians m and the mean absolute deviation s; for Laplace noise this is
        #     the privacy-loss variable itself, whose top values carry the whole ε.
        extra = []  # derived statistics, appended as columns
        scale = np.sqrt(0.5 * (sel0.var(axis=0) + sel1.var(axis=0))) + 1e-12
        w = (sel1.mean(axis=0) - sel0.mean(axis=0)) / scale**2
        m0, m1 = np.median(sel0, axis=0), np.median(sel1, axis=0)
        s = 0.5 * (np.abs(sel0 - m0).mean(axis=0) + np.abs(sel1 - m1).mean(axis=0)) + 1e-12

        def llr(x):
            return ((np.abs(x - m0) - np.abs(x - m1)) / s).sum(axis=1)

        if np.any(w != 0):
            names = names + ["mean-difference projection"]
            extra.append(lambda x: x @ w)
        if np.any(m0 != m1):
            names = names + ["Laplace log-likelihood ratio"]
            extra.append(llr)
        if extra:
            sel0, ev0 = (np.column_stack([a] + [f(a) for f in extra]) for a in (sel0, ev0))
            sel1, ev1 = (np.column_stack([a] + [f(a) for f in extra]) for a in (sel1, ev1))

    level = (1.0 - confidence) / (2 * candidates)
    n_sel0, n_sel1 = sel0.shape[0], sel1.shape[0]
    n_ev0, n_ev1 = ev0.shape[0], ev1.shape[0]
    pool: list[tuple[float, int, float, str, int]] = []  # (score, stat, threshold, side, numerator)
    for j in range(len(names)):
        s0, s1 = np.sort(sel0[:, j]), np.sort(sel1[:, j])
        ts = _thresholds(np.concatenate([s0, s1]), max_thresholds)
        ge0, le0 = _event_counts(s0, ts)
        ge1, le1 = _event_counts(s1, ts)
        for side, k0, k1 in (("≥", ge0, ge1), ("≤", le0, le1)):
            for numerator, (kn, nn, kd, nd) in ((1, (k1, n_sel1, k0, n_sel0)), (0, (k0, n_sel0, k1, n_sel1))):
                score = _bound(kn, nn, kd, nd, level, delta)
                for i in np.argsort(-score)[:candidates]:
                    if np.isfinite(score[i]):
                        pool.append((float(score[i]), j, float(ts[i]), side, numerator))
    pool.sort(key=lambda c: -c[0])
    chosen = pool[:candidates]

    best = (0.0, 0.0, "no event separates the two hypotheses", (0, 0))
    for _, j, t, side, numerator in chosen:
        x0, x1 = ev0[:, j], ev1[:, j]
        k0 = int(np.sum(x0 >= t) if side == "≥" else np.sum(x0 <= t))
        k1 = int(np.sum(x1 >= t) if side == "≥" else np.sum(x1 <= t))
        kn, nn, kd, nd = (k1, n_ev1, k0, n_ev0) if numerator == 1 else (k0, n_ev0, k1, n_ev1)
        b = float(_bound(np.array([kn]), nn, np.array([kd]), nd, level, delta)[0])
        if b > best[0]:
            desc = f"{names[j]} {side} {t:g}, P{numerator}/P{1 - numerator}"
            best = (b, _estimate(kn, nn, kd, nd, delta), desc, (kn, kd))
    return EmpiricalEpsilon(
        epsilon_lower=max(best[0], 0.0),
        confidence=confidence,
        delta=delta,
        samples=samples,
        estimate=best[1],
        test=best[2],
        candidates=len(chosen),
        seed=seed,
        counts=best[3],
    )
