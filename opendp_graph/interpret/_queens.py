"""The two queens (Hehir, Niu & Slavković, Example 1), exactly.

A hive of ``n`` insects; nodes 0 and 1 are the queens (the paper's insects 1 and 2).  The queens
cooperate (edge ``{0,1}``) with probability ``p_queens``; given that they do, every other pair
cooperates independently with probability ``a``, otherwise with probability ``b < a``.  With
``m = C(n,2) − 1`` other pairs, the edge count is ``1 + Bin(m, a)`` given the queens' edge and
``Bin(m, b)`` without it, so everything about an edge-count release can be computed exactly for
any ``n`` (no enumeration needed), and by enumeration for ``n ≤ 7`` as a cross-check.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

import numpy as np
from scipy.stats import binom

from ..measurements.accuracy import _discrete_laplace_at_least
from ..verify._exact import GraphDistribution, laplace_privacy_loss

__all__ = ["queens_distribution", "queens_count_distributions", "queens_alpha", "queens_exact_epsilon", "attack_accuracy"]


def _check(n: Any, a: Any, b: Any) -> tuple[int, float, float]:
    if isinstance(n, bool) or not isinstance(n, Integral) or n < 3:
        raise ValueError(f"the hive needs n >= 3 insects, got {n!r}")
    for name, v in (("a", a), ("b", b)):
        if isinstance(v, bool) or not isinstance(v, Real) or not 0.0 <= float(v) <= 1.0:
            raise ValueError(f"{name} must be a probability in [0, 1], got {v!r}")
    if not b < a:
        raise ValueError(f"Example 1 needs b < a, got a={a}, b={b}")
    return int(n), float(a), float(b)


def queens_distribution(n: int, a: float, b: float, p_queens: float = 0.5) -> GraphDistribution:
    """The exact distribution of Example 1 over all graphs on ``n ≤ 7`` nodes (queens = nodes 0, 1).

    >>> d = queens_distribution(4, 0.6, 0.2)
    >>> round(d.edge_probability(0, 1), 12), round(d.edge_probability(2, 3), 12)
    (0.5, 0.4)
    """
    n, a, b = _check(n, a, b)
    if not 0.0 < p_queens < 1.0:
        raise ValueError(f"p_queens must be in (0, 1), got {p_queens!r}")

    def log_weight(x: np.ndarray) -> np.ndarray:
        q = x[:, 0]  # pair (0, 1) is the first pair in combinations order
        k = x[:, 1:].sum(axis=1)
        m = x.shape[1] - 1
        with np.errstate(divide="ignore"):
            la, l1a, lb, l1b = np.log(a), np.log1p(-a), np.log(b), np.log1p(-b)
        with_q = math.log(p_queens) + np.where(k > 0, k * la, 0.0) + np.where(m - k > 0, (m - k) * l1a, 0.0)
        without = math.log1p(-p_queens) + np.where(k > 0, k * lb, 0.0) + np.where(m - k > 0, (m - k) * l1b, 0.0)
        return np.where(q, with_q, without)

    return GraphDistribution.from_log_weights(n, log_weight)


def queens_count_distributions(n: int, a: float, b: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(counts, P(count | no queens' edge), P(count | queens' edge))`` on ``counts = 0..C(n,2)``."""
    n, a, b = _check(n, a, b)
    m = n * (n - 1) // 2 - 1
    counts = np.arange(m + 2)
    p0 = binom.pmf(counts, m, b)
    p1 = np.concatenate([[0.0], binom.pmf(counts[:-1], m, a)])
    return counts, p0, p1


def queens_alpha(n: int, a: float, b: float) -> float:
    """Lemma 4.1's α for the queens' edge: ``m · max(log(a/b), log((1−b)/(1−a)))`` (``inf`` if b = 0 or a = 1).

    The conditionals of the other ``m`` pairs are ``Bern(a)^m`` and ``Bern(b)^m``; the log ratio
    of a configuration with ``k`` edges is ``k log(a/b) + (m−k) log((1−a)/(1−b))``, extreme at
    ``k = m`` or ``k = 0``.  It grows linearly in ``m``: edge DP gives no bound as the hive grows.

    >>> round(queens_alpha(5, 0.6, 0.3), 6) == round(9 * math.log(2), 6)
    True
    """
    n, a, b = _check(n, a, b)
    m = n * (n - 1) // 2 - 1
    with np.errstate(divide="ignore"):
        up = math.inf if b == 0 else math.log(a / b)
        down = math.inf if a == 1 else math.log((1 - b) / (1 - a))
    return m * max(up, down)


def queens_exact_epsilon(n: int, a: float, b: float, scale: float) -> float:
    """The exact privacy loss, for the queens' edge secret, of the edge count + Laplace(``scale``)."""
    counts, p0, p1 = queens_count_distributions(n, a, b)
    loss, _ = laplace_privacy_loss(counts, p0, counts, p1, scale)
    return loss


def attack_accuracy(n: int, a: float, b: float, scale: float) -> float:
    """The exact accuracy of the paper's test for the queens' edge, ``1{d̃ > (a+b)/2}``, on the
    noisy density ``d̃ = (|E| + Z) / C(n,2)``, where ``Z`` is OpenDP's discrete Laplace of scale
    ``scale`` (``Pr[Z = z] ∝ exp(−|z|/scale)``, what ``then_edge_count() >> dp.m.then_laplace(scale)``
    adds), with a fair prior on the queens' edge.

    Why: it measures what a release lets an observer learn about the one edge Example 1 is about.
    Under ε-Pufferfish for that edge, no test is right with probability above ``e^ε / (1 + e^ε)``
    (fair prior); edge DP at ``scale = 1/ε`` gives no such bound here, because the other pairs
    follow the queens (Lemma 4.1: its loss is up to ``ε + α``), and this accuracy tends to 1 as
    the hive grows. At the Pufferfish scale ``W∞/ε`` (:func:`opendp_graph.pufferfish.w_infinity`
    of the two count laws) it stays below the bound.

    Computed exactly, without sampling: the count is ``1 + Bin(m, a)`` given the queens' edge and
    ``Bin(m, b)`` without it (:func:`queens_count_distributions`, ``m = C(n,2) − 1``), and for a
    count ``c`` the test says "edge" when ``c + Z > (a+b)/2 · C(n,2)`` (dividing by the public
    ``C(n,2)`` changes nothing), a tail of ``Z`` in closed form.

    :param n: the hive size, an integer ``n ≥ 3``.
    :param a: the probability of every other pair when the queens cooperate.
    :param b: the same when they do not, ``0 ≤ b < a ≤ 1``.
    :param scale: the noise scale, ``≥ 0`` (``0``: the count itself is released).
    :raises ValueError: for ``n < 3``, a probability outside ``[0, 1]``, ``b ≥ a``, or a negative or NaN ``scale``.
    :raises TypeError: if ``scale`` is not a real number.

    :example:

    >>> import math
    >>> round(attack_accuracy(5, 0.6, 0.3, scale=1.0), 3)  # ε = 1 edge DP: far above e/(1+e)
    0.84
    >>> round(attack_accuracy(5, 0.6, 0.3, scale=4.0), 3), round(math.e / (1 + math.e), 3)  # W∞ = 4: 1-Pufferfish
    (0.669, 0.731)
    """
    counts, p0, p1 = queens_count_distributions(n, a, b)
    if isinstance(scale, bool) or not isinstance(scale, Real):
        raise TypeError(f"scale must be a real number, got {type(scale).__name__} {scale!r}")
    if not float(scale) >= 0.0:  # NaN included
        raise ValueError(f"scale must be >= 0, got {scale!r}")
    cut = (a + b) / 2 * (n * (n - 1) // 2)  # the test's threshold on the count scale
    # c + Z > cut  <=>  Z ≥ floor(cut − c) + 1, for integers c and Z
    above = np.array([_discrete_laplace_at_least(math.floor(cut - c) + 1, float(scale)) for c in counts])
    return 0.5 * float((p1 * above).sum()) + 0.5 * float((p0 * (1.0 - above)).sum())
