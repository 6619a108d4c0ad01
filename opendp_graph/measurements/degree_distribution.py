"""Node-level degree distributions: the projection bound ``θ`` chosen under DP, the release, and
its post-processing, as one OpenDP measurement.

:func:`make_private_degree_distribution` spends ``ε`` in two parts, composed by OpenDP's
``make_adaptive_composition`` (so one ``ε`` covers both):

1. **θ chosen under DP** (``selection_share · ε``): OpenDP's ``make_noisy_max`` picks the
   candidate ``θ`` with the smallest estimated total error ``P_θ + N_θ``
   (:func:`make_bias_noise_scores`). ``P_θ`` is the bias the bound leaves after the fit,
   read from the degree histograms of the graph projected to ``θ`` and to a reference public
   bound ``scoring_bound`` (the largest candidate by default): what the projection to ``θ`` moves below ``θ`` (partners' lowered
   degrees) plus the nodes it caps at ``θ``. ``N_θ`` is public: the fitted release's expected
   noise, ``min((θ + 1)·scale, √(n·scale))`` (:func:`fit_noise_estimate`). The score's
   sensitivity is the sum of the two histograms' (proof in :func:`make_bias_noise_scores`).
   The scores never read the graph projected to the candidate alone (a graph projected to
   ``θ`` has no node above ``θ``: its score would ignore what the bound drops).
2. **The release** (the rest of ``ε``): the ``θ``-cumulative degree histogram of the graph
   projected to ``θ``, with OpenDP's Laplace noise, then :func:`fit_degree_histogram` (or
   :func:`histogram_from_cumulative`): post-processing, which reads only the release.

Under :func:`~opendp_graph.node_insertion_distance` (unbounded node DP) the release's
sensitivity is ``θ + 1`` (Day, Li & Lyu, SIGMOD 2016, §4); under
:func:`~opendp_graph.node_distance` (rewiring) it is ``2θ``.

With ``privacy_loss=dp.loss_of(rho=ρ)`` both parts are zCDP: OpenDP's Gaussian on the ℓ2 form of
the cumulative histogram (its rule in :mod:`opendp_graph.transformations.degrees`) and OpenDP's
noisy max under ``zero_concentrated_divergence``, composed in ρ by the same compositor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np
import opendp.prelude as dp
from scipy.optimize import isotonic_regression, lsq_linear

from ..core._checks import budget_share, integer_at_least, positive_finite, positive_integer
from ..core.domains import graph_domain_descriptor
from ..core.metrics import metric_descriptor
from ..transformations import then
from ..transformations.degrees import then_cumulative_degree_histogram, then_degree_histogram
from ..transformations.projection import make_degree_projection
from ._context import privacy_budget
from .accuracy import attach_choice_accuracy, readable

__all__ = [
    "histogram_from_cumulative",
    "fit_degree_histogram",
    "degree_distribution_noise",
    "make_histogram_from_cumulative",
    "DegreeDistributionRelease",
    "make_private_degree_distribution",
    "then_private_degree_distribution",
]


def histogram_from_cumulative(noisy_cumulative: Any, *, num_nodes: int | None = None) -> np.ndarray:
    """The degree histogram recovered from a noisy cumulative one (pure post-processing: no
    privacy cost).

    Constrained inference (Hay et al., VLDB 2010; used by Day, Li & Lyu 2016): the true
    cumulative histogram is non-decreasing and non-negative, so the closest such sequence in L2
    (isotonic regression, :func:`scipy.optimize.isotonic_regression`) is taken, clipped below at 0
    and, when the number of nodes is public (``num_nodes``), above at ``n`` with its last entry
    set to ``n`` (every node has some degree). The histogram is its sequence of differences:
    non-negative, and summing to ``n`` when ``n`` is given.

    :param noisy_cumulative: entry ``k`` estimates the number of nodes of degree ``≤ k``.
    :param num_nodes: the public number of nodes, if it is public (not under node insertion).
    :return: a float array, entry ``k`` = estimated nodes of degree ``k`` (the last: ``≥ k``).

    >>> histogram_from_cumulative([2.5, 1.0, 6.0, 7.5], num_nodes=8).tolist()
    [1.75, 0.0, 4.25, 2.0]
    """
    values = np.asarray(noisy_cumulative, dtype=np.float64)
    if values.ndim != 1:
        raise ValueError(f"noisy_cumulative must be one-dimensional, got shape {values.shape}")
    if values.size == 0:
        raise ValueError("noisy_cumulative must not be empty")
    if not np.isfinite(values).all():
        raise ValueError("noisy_cumulative must be finite")
    _check_num_nodes(num_nodes)
    if num_nodes is not None:
        values = np.append(values[:-1], float(num_nodes))
        weights = np.ones(values.size)
        weights[-1] = 1e12  # the total is known exactly: the fit must go through it
        fitted = isotonic_regression(values, weights=weights).x
        fitted[-1] = float(num_nodes)
        fitted = np.clip(fitted, 0.0, float(num_nodes))
    else:
        fitted = np.maximum(isotonic_regression(values).x, 0.0)
    return np.diff(fitted, prepend=0.0)


# The smoothing weight per unit of noise variance, and the rounds of reweighting. Chosen on
# Deezer HU (ε = 1, θ 32–56) and checked on email-Eu-core, a Barabási–Albert and a Pareto
# configuration graph, where the fit beat isotonic regression at every θ (benchmarks.node_level).
_SMOOTHNESS = 30.0
_ROUNDS = 4
# The fit is dense least squares, cubic in θ (θ = 300: about 2 s; 800: 27 s); above this many
# bins the isotonic estimate is kept (the tail is still spread).
_FIT_UP_TO = 301
_TAIL_LENGTH = 20  # the tail above θ spans at most this many times θ + 1 entries


def _check_num_nodes(num_nodes) -> None:
    if num_nodes is not None:
        integer_at_least("num_nodes", num_nodes, 0)


def _penalised_fit(noisy: np.ndarray, weight: float, start: np.ndarray, num_nodes: int | None) -> np.ndarray:
    """Non-negative ``h`` minimising ``Σ_k (Σ_{j≤k} h_j − c_k)² + weight · Σ_k (Δ²h_k / max(h̃_k, 1))²``
    over the interior bins ``2..θ−2`` (bin 0, isolated nodes, and bin θ, where the projection
    piles up the capped nodes, are spikes of their own), reweighted ``_ROUNDS`` times from
    ``start``; with a public ``n`` the last cumulative entry is pinned to it."""
    m = noisy.size
    target = noisy.copy()
    row_weight = np.ones(m)
    if num_nodes is not None:
        target[-1] = float(num_nodes)
        row_weight[-1] = 1e4  # the total is known exactly
    interior = np.arange(2, m - 2)  # centres k of second differences that touch neither bin 0 nor bin θ
    rows = np.arange(m, m + interior.size)  # the smoothness rows, below the m rows of the fit
    design = np.zeros((m + interior.size, m))
    design[:m] = np.tril(np.ones((m, m))) * row_weight[:, None]
    target_rows = np.concatenate([target * row_weight, np.zeros(interior.size)])
    h = np.maximum(start, 1.0)
    root = math.sqrt(weight)
    for _ in range(_ROUNDS):  # only the smoothness rows' weights change from round to round
        w = root / np.maximum(h[interior], 1.0)
        design[rows, interior - 1] = w
        design[rows, interior] = -2 * w
        design[rows, interior + 1] = w
        h = lsq_linear(design, target_rows, bounds=(0, np.inf), method="bvls").x
    return np.maximum(h, 0.0)


def _spread_tail(h: np.ndarray) -> np.ndarray:
    """The mass at the last bin ``θ`` spread over ``θ, θ+1, …`` geometrically: it starts at the
    level the log-linear trend of ``h`` over ``[θ/2, θ)`` predicts at ``θ`` and decays at the
    ratio that keeps the mass exactly. Kept at ``θ`` when the trend does not decrease or the
    mass is no larger than the trend's level."""
    theta = h.size - 1
    mass = float(h[-1])
    low = max(theta // 2, 1)
    if theta - low < 2 or mass <= 0:
        return h
    x = np.arange(low, theta)
    slope, intercept = np.polyfit(x, np.log(np.maximum(h[low:theta], 0.5)), 1)
    level = math.exp(intercept + slope * theta)
    if slope >= 0 or mass <= level:
        return h
    ratio = 1.0 - level / mass
    tail = level * ratio ** np.arange(_TAIL_LENGTH * (theta + 1))
    tail = tail[: max(1, int(np.count_nonzero(tail >= 1e-3)))]  # below a thousandth of a node: nothing
    tail *= mass / tail.sum()
    return np.concatenate([h[:-1], tail])


def fit_degree_histogram(noisy_cumulative: Any, noise_scale: float, *, num_nodes: int | None = None, extend_tail: bool = True) -> np.ndarray:
    """The degree histogram fitted to a noisy ``θ``-cumulative one, smooth on a log scale and
    with its tail above ``θ`` filled in: the default post-processing of
    :func:`make_private_degree_distribution` (pure post-processing: no privacy cost; it reads only
    the release and the public noise scale).

    1. **Fit.** Non-negative ``h`` minimising the squared distance of its running sums to the
       noisy cumulative histogram plus ``30 · noise_scale²`` times the squared *relative* second
       differences ``(h_{k−1} − 2h_k + h_{k+1}) / h_k`` (≈ second differences of ``log h``;
       reweighted four times, starting from :func:`histogram_from_cumulative`); bins 0 and
       ``θ`` are exempt. Degree distributions are smooth on a log scale (heavy tails), so where
       the noise is as large as the counts of the tail the fit follows the trend instead of the
       noise. With a public ``num_nodes`` the total is pinned to it. Non-negative least squares
       is scipy's (:func:`scipy.optimize.lsq_linear`); its cost grows as ``θ³``, so above
       ``θ = 300`` the isotonic estimate is kept instead.
    2. **Tail** (``extend_tail``). The last bin holds the nodes the projection capped at ``θ``;
       they are spread over ``θ, θ+1, …`` geometrically, starting at the level the log-linear
       trend of the fit over ``[θ/2, θ)`` predicts at ``θ``, at the ratio that keeps their
       number exactly (at most ``20(θ + 1)`` entries).

    Measured at ε = 1 (``python -m benchmarks.node_level``): on Deezer HU it cuts the error of
    isotonic regression about in half and beats Day, Li & Lyu's extraction and tail (their
    Algorithms 3 and 5); it also beat isotonic regression on email-Eu-core and on Barabási–Albert
    and Pareto configuration graphs at every ``θ`` tried. It is a prior, not a proof: a
    histogram with sharp features between 1 and ``θ`` is smoothed.

    :param noisy_cumulative: entry ``k`` estimates the number of nodes of degree ``≤ k`` (after
        the projection to ``θ = len − 1``).
    :param noise_scale: the Laplace scale of the release (public).
    :param num_nodes: the number of nodes, only if public.
    :param extend_tail: spread the last bin's mass above ``θ``.
    :return: float array, entry ``k`` = estimated nodes of degree ``k``.

    >>> h = fit_degree_histogram([0, 100, 150, 175, 187, 194, 200], noise_scale=1.0, num_nodes=200)
    >>> bool(abs(h.sum() - 200) < 1e-6), bool((h >= 0).all())
    (True, True)
    """
    values = np.asarray(noisy_cumulative, dtype=np.float64)
    if values.ndim != 1:
        raise ValueError(f"noisy_cumulative must be one-dimensional, got shape {values.shape}")
    if values.size == 0 or not np.isfinite(values).all():
        raise ValueError("noisy_cumulative must be a non-empty sequence of finite numbers")
    scale = positive_finite("noise_scale", noise_scale)
    _check_num_nodes(num_nodes)
    start = histogram_from_cumulative(values, num_nodes=num_nodes)
    if values.size < 5 or values.size > _FIT_UP_TO:  # nothing to smooth, or too costly: see _FIT_UP_TO
        fitted = start
    else:
        fitted = _penalised_fit(values, _SMOOTHNESS * scale * scale, start, num_nodes)
        if num_nodes is not None and fitted.sum() > 0:
            fitted *= num_nodes / fitted.sum()  # the pinned total, exactly
    return _spread_tail(fitted) if extend_tail else fitted


def make_histogram_from_cumulative(num_nodes: int | None = None) -> dp.Function:
    """:func:`histogram_from_cumulative` as an OpenDP post-processor, to chain after a noisy
    cumulative histogram: ``meas >> dpg.make_histogram_from_cumulative(num_nodes=n)``."""
    dp.assert_features("contrib", "honest-but-curious")
    _check_num_nodes(num_nodes)
    return dp.new_function(lambda cumulative: histogram_from_cumulative(cumulative, num_nodes=num_nodes).tolist(), TO="Vec<f64>")


@dataclass(frozen=True)
class DegreeDistributionRelease:
    """What :func:`make_private_degree_distribution` releases (all of it differentially private).

    ``histogram[k]``: estimated nodes of degree ``k``. With the default post-processing
    (:func:`fit_degree_histogram`) it extends above ``θ`` (the capped nodes spread over a
    fitted tail); with ``postprocess="isotonic"`` it has ``θ + 1`` entries, the last counting
    the nodes whose degree *after the projection* is ``θ``. ``noisy_cumulative``: the raw noisy
    ``θ``-cumulative histogram. ``noise_scale``: the Laplace scale (the Gaussian's σ under zCDP)
    at this ``θ`` (public), from which ``expected_noise_l1`` (``(θ + 1) · noise_scale`` for the
    Laplace), the expected L1 size of the raw noise (post-processing shrinks it on real histograms: see :func:`degree_distribution_noise`)."""

    theta: int
    histogram: np.ndarray
    noisy_cumulative: np.ndarray
    noise_scale: float
    noise: str = "discrete_laplace"
    """OpenDP's noise law: ``"discrete_laplace"`` (``noise_scale`` its scale) or, for a zCDP
    release (``dp.loss_of(rho=...)``), ``"discrete_gaussian"`` (``noise_scale`` its σ)."""

    @property
    def expected_noise_l1(self) -> float:
        """``(θ + 1)`` times the expected absolute noise of one entry: the Laplace scale, or
        ``σ·√(2/π)`` for the Gaussian."""
        per_entry = self.noise_scale if self.noise.endswith("laplace") else self.noise_scale * math.sqrt(2 / math.pi)
        return (self.theta + 1) * per_entry

    @property
    def at_bound(self) -> float:
        """The people whose degree (or count) the bound reached, estimated:
        ``noisy_cumulative[θ] − noisy_cumulative[θ − 1]`` clamped at 0 (DP: post-processing of
        the release; its noise is the difference of two draws of ``noise_scale``, so alone it can
        be far below zero: a count of people is not, and :meth:`at_bound_interval` gives the
        range). It is the visible part of the bias: their true values were at least ``θ`` and are
        released as ``θ`` (the fitted tail spreads them above). The other part, their partners'
        edges (or messages) that the bound dropped, lowers the partners' degrees without reaching
        the bound, and no release measures it."""
        return max(0.0, float(self.noisy_cumulative[-1] - self.noisy_cumulative[-2]))

    def at_bound_interval(self, alpha: float = 0.05) -> tuple[float, float]:
        """An interval that holds the true number of people at the bound with probability at
        least ``1 − alpha``: the difference of the two noisy entries ± twice the half-width of
        one entry at ``alpha / 2`` (each entry's noise is within it with probability ``1 − alpha/2``;
        union bound), its lower end clamped at 0. Post-processing: public scale, released values.

        The true count is ``c[θ] − c[θ−1]`` of the projection's cumulative histogram ``c``, and
        ``|(ĉ[θ] − ĉ[θ−1]) − (c[θ] − c[θ−1])| ≤ |Z_θ| + |Z_{θ−1}|``."""
        from .accuracy import _check_alpha, noise_accuracy

        one = noise_accuracy(self.noise, self.noise_scale, _check_alpha(alpha) / 2, mechanism="make_laplace").half_width
        raw = float(self.noisy_cumulative[-1] - self.noisy_cumulative[-2])
        return max(0.0, raw - 2 * one), max(0.0, raw + 2 * one)


def _candidates(values: Any) -> list[int]:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"candidates must be a sequence of positive integers, got {values!r}")
    out = [positive_integer("every candidate θ", v) for v in values]
    if not out:
        raise ValueError("candidates must not be empty")
    return sorted(set(out))


def _release_chain(input_domain: dp.Domain, input_metric: dp.Metric, theta: int, l2: bool = False) -> dp.Transformation:
    """The release before its noise: the ``θ``-cumulative histogram of the projection to ``θ``
    (bounded in ℓ2 for the Gaussian)."""
    metric = dp.l2_distance(T=dp.f64) if l2 else None
    return make_degree_projection(input_domain, input_metric, theta) >> then_cumulative_degree_histogram(max_degree=theta, output_metric=metric)


# long: docstring (its guarantee, parameters and refusals) beside code of under 100 lines
def make_private_degree_distribution(
    input_domain: dp.Domain,
    input_metric: dp.Metric,
    privacy_loss: tuple[Any, Any],
    candidates,
    *,
    selection_share: float = 0.1,
    scoring_bound: int | None = None,
    num_nodes: int | None = None,
    expected_nodes: int | None = None,
    postprocess: str = "fit",
    d_in: int = 1,
) -> dp.Measurement:
    """The node-level degree distribution with the projection bound ``θ`` chosen under DP (see
    the module docstring), as one ``ε``-DP measurement (``max_divergence``) at input distance
    ``d_in``.

    :param input_domain: a :func:`~opendp_graph.graph_domain`.
    :param input_metric: :func:`~opendp_graph.node_insertion_distance` (add/remove a node),
        :func:`~opendp_graph.node_distance` (rewire a node), or any metric the projection supports.
    :param privacy_loss: the whole budget (selection and release), OpenDP's pair as ``dp.Context``
        takes it: ``dp.loss_of(epsilon=ε)`` (pure ε-DP, OpenDP's Laplace), or
        ``dp.loss_of(rho=ρ)``, a zCDP budget: the release is then OpenDP's Gaussian on
        the ℓ2 form of the cumulative histogram (``then_cumulative_degree_histogram(...,
        output_metric=dp.l2_distance(T=dp.f64))``), the selection OpenDP's noisy max under
        ``zero_concentrated_divergence``, composed by OpenDP's adaptive compositor in ρ; convert
        with ``dp.c.make_zCDP_to_approxDP``. Under node insertion the cumulative histogram's
        ℓ2 sensitivity is close to its L1 one (one inserted node can raise ``θ`` partners into one
        bin), so the Gaussian pays off mainly when this release is composed with others.
    :param candidates: public projection bounds to choose from (positive integers; one
        candidate skips the selection and spends all of ``ε`` on the release). When the domain
        promises ``max_degree = D``, candidates above ``D`` become ``D`` (the projection is then
        the identity, and the bins above ``D`` would only add noise).
    :param selection_share: the part of ``ε`` spent choosing ``θ``.
    :param scoring_bound: the bound of the reference projection the scores compare each
        candidate's with (default: the largest candidate; at least that). What it drops itself
        is common to every candidate's score; the selection's noise grows with it (its
        sensitivity is the degree histogram's at the largest candidate plus at the bound:
        ``2(θ_max + bound) + 4`` under node insertion, ``4(θ_max + bound)`` per rewired node).
    :param num_nodes: the number of nodes *if public*, i.e. fixed by the domain
        (``graph_domain(num_nodes=n)``): the post-processing then makes the histogram sum to
        it. Under node insertion the node set is private and ``n`` normally is too; a domain
        that fixes ``n`` holds no two graphs one insertion apart, so there ``d_in = 1`` is
        refused (its guarantee would be empty): protect a rewired node with ``d_in = 2``.
    :param expected_nodes: a *public* estimate of the number of nodes, read only by the
        selection's noise term (:func:`fit_noise_estimate`) when ``num_nodes`` is not public (node
        insertion): a rough figure is enough, and a wrong one makes the choice worse, never the
        guarantee. Without either, the noise term is the raw ``(θ + 1)·scale``, which is much
        larger than the fit's error at large ``θ`` and pushes the choice to small ``θ``.
    :param postprocess: ``"fit"`` (default: :func:`fit_degree_histogram`, smooth on a log
        scale, tail above ``θ`` filled in) or ``"isotonic"`` (:func:`histogram_from_cumulative`).
    :return: a measurement whose output is a :class:`DegreeDistributionRelease`.

    **What to expect.** Before releasing, :func:`degree_distribution_noise` gives the raw noise's
    size relative to ``n`` at a ``θ`` (public: no private value is read). Measured at ε = 1 with
    ``θ`` chosen from 16–64 inside the ``ε`` (30 runs, ``python -m benchmarks.node_level``, error
    ``Σ_k |released_k − true_k| / n``; releasing nothing scores 1): Deezer HU (47,538 people)
    about 0.03 when adding/removing a node and 0.05 when rewiring one; email-Eu-core (1,005
    people) 0.6–1.2 under both, i.e. noise: node-level DP at ε = 1 needs tens of thousands of
    people.

    **Privacy guarantee.** ``make_adaptive_composition`` of (a) OpenDP's ``make_noisy_max`` on the
    score vector, whose L∞ sensitivity is the sum of the degree histograms' of the projections to
    the largest candidate and to the scoring bound (:func:`make_bias_noise_scores`), and (b) OpenDP's Laplace on the ``θ``-cumulative histogram of the
    projection to ``θ`` (their rules), calibrated so that every candidate's release costs at most
    the same ``ε₂``; the post-processing reads only the releases. The composition is adaptive
    (``θ`` from (a) chooses (b)), which OpenDP's compositor allows; its privacy map is defined
    at the ``d_in`` given here.

    :example:

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> meas = dpg.make_private_degree_distribution(
    ...     dpg.graph_domain(), dpg.node_insertion_distance(), privacy_loss=dp.loss_of(epsilon=1.0), candidates=[4, 8, 16])
    >>> round(meas.map(1), 6) <= 1.0
    True
    >>> zcdp = dpg.make_private_degree_distribution(
    ...     dpg.graph_domain(), dpg.node_insertion_distance(), dp.loss_of(rho=0.5), candidates=[4, 8, 16])
    >>> zcdp.output_measure, zcdp.map(1) <= 0.5
    (ZeroConcentratedDivergence, True)
    """
    dp.assert_features("contrib", "honest-but-curious")
    descriptor = graph_domain_descriptor(input_domain)
    metric_descriptor(input_metric)
    spent = privacy_budget(privacy_loss, ("epsilon", "rho"), "make_private_degree_distribution")
    gaussian = "rho" in spent
    budget = spent["rho"] if gaussian else spent["epsilon"]
    thetas = _candidates(candidates)
    promised = descriptor.max_degree
    if promised is not None and promised >= 1:
        # above the domain's degree bound the projection changes nothing and the extra bins only
        # carry noise (and a larger sensitivity): θ = max_degree says the same for less
        thetas = sorted({min(t, int(promised)) for t in thetas})
    binds = promised is None or thetas[0] < promised  # the projection to the smallest θ can drop edges
    share = budget_share("selection_share", selection_share)
    d_in = positive_integer("d_in", d_in)
    bound = choice_arguments(thetas, scoring_bound, postprocess)
    if expected_nodes is not None:
        expected_nodes = positive_integer("expected_nodes", expected_nodes)
    if num_nodes is not None:
        _check_num_nodes(num_nodes)
        if descriptor.num_nodes is None or descriptor.num_nodes != num_nodes:
            raise ValueError(
                "num_nodes may only be given when the domain fixes it (graph_domain(num_nodes=n)): otherwise the "
                "number of nodes is not public, and using it in post-processing would leak it"
            )
    return choose_bound_and_release(
        input_domain,
        input_metric,
        budget,
        thetas,
        selection_share=share,
        d_in=d_in,
        gaussian=gaussian,
        release_chain=lambda theta: _release_chain(input_domain, input_metric, theta, l2=gaussian),
        histogram_at=lambda b: make_degree_projection(input_domain, input_metric, b) >> then_degree_histogram(max_degree=b),
        bound=bound,
        num_nodes=num_nodes,
        public_size=num_nodes if num_nodes is not None else expected_nodes,
        postprocess=postprocess,
        what="degree histogram",
        binds=binds,
        bias=(
            "the noise is per entry of the θ-cumulative histogram of the projection to θ (noisy_cumulative), "
            "before the post-processing; it leaves out the post-processing's change and the projection's bias: "
            "the nodes capped at θ (the release's at_bound, DP) and their partners' lowered degrees"
            if binds
            # every candidate is the domain's degree bound: the projection keeps every edge
            else "the noise is per entry of the θ-cumulative histogram (noisy_cumulative), before the post-processing; "
            "it leaves out the post-processing's change. The projection drops nothing: the domain's max_degree is "
            "at most every candidate θ"
        ),
    )


def fit_noise_estimate(theta: int, noise_per_entry: float, num_nodes: int | None) -> int:
    """The score's noise term: the expected L1 error that the release's noise leaves in the
    fitted histogram at ``θ``, estimated from public figures, ``min((θ + 1)·e, √(n·e))`` (``e``:
    the expected absolute noise of one entry, the Laplace scale or ``σ·√(2/π)``; ``n``: the
    number of people, public or a public estimate; without it ``(θ + 1)·e``, the raw noise),
    rounded to an integer.

    Why ``√(n·e)``: the fit follows a bin whose count is well above the noise (error about
    ``e`` per bin) and shrinks a bin whose count is below it towards its neighbours (error at
    most about the count). For a heavy tail ``h_k ≈ n/k²`` that is ``Σ_k min(e, n/k²) ≈ 2√(n·e)``.
    Measured at ε = 0.9 (7 releases per ``θ``; the fit against the projection's own histogram),
    the fitted error over ``√(n·e)`` was 0.5–1.5 on the synthetic hub-heavy person graph (20,000
    people, ``θ`` 16–256), Enron's (156, ``θ`` 4–64) and Deezer HU under node insertion
    (47,538, ``θ`` 32–64; below, ``(θ + 1)·e`` binds), where the raw ``(θ + 1)·e`` was 4–60
    times too large at the larger ``θ``. A heuristic for ranking candidates, not a bound: it
    reads no private value, so it changes the choice, never the guarantee.

    >>> from opendp_graph.measurements.degree_distribution import fit_noise_estimate
    >>> fit_noise_estimate(8, 10.0, 47_538), fit_noise_estimate(256, 1137.8, 20_000)
    (90, 4770)
    """
    raw = (theta + 1) * noise_per_entry
    return int(round(raw if num_nodes is None else min(raw, math.sqrt(num_nodes * noise_per_entry))))


def make_bias_noise_scores(histogram_at, thetas: list[int], bound: int, noise_terms: list[int]) -> dp.Transformation:
    """The selection's scores: for each candidate ``θ``, ``−(P_θ + N_θ)``, where ``N_θ`` is a
    public noise term (:func:`fit_noise_estimate`) and ``P_θ`` estimates the bias the bound
    ``θ`` leaves after the fit, from the histograms ``H_θ`` and ``H_B`` of the projections to
    ``θ`` and to the scoring bound ``B``::

        P_θ = Σ_{k<θ} |H_θ[k] − H_B[k]|  +  H_θ[θ]

    The first sum is what the bound does below ``θ`` (people whose partners or messages it
    dropped, moved to lower bins); the second counts the people it capped (and those whose
    degree is exactly ``θ``, which the histogram cannot tell apart: on a ``θ``-regular graph the
    term overstates the bias), whom the fit then
    spreads over a tail (a capped person is half a mistake on average: measured total error ≈
    first sum + fitted noise + 0.5–1 × capped people, on Deezer HU, email-Eu-core, Enron and the
    synthetic person graph). The projections to ``θ`` and ``B`` both *read* the data; what the
    scoring bound ``B`` itself drops is common to all candidates.

    ``histogram_at(b)``: the stable histogram (bins ``0..b``, ``i64``, ``l1_distance``) of the
    projection to ``b``, from the release's input space.

    **Stability guarantee:** ``d ↦ max_θ Δ_θ(d) + Δ_B(d)`` into ``linf_distance``, ``Δ_b`` the
    histogram's stability map at ``b``. *Proof.* For inputs at distance ``d``, by the triangle
    inequality ``|P_θ(x) − P_θ(x′)| ≤ Σ_{k<θ}(|H_θ[k] − H′_θ[k]| + |H_B[k] − H′_B[k]|) +
    |H_θ[θ] − H′_θ[θ]| ≤ ‖H_θ − H′_θ‖₁ + ‖H_B − H′_B‖₁ ≤ Δ_θ(d) + Δ_B(d)``; ``N_θ`` is the same
    for both, and the L∞ distance of the vector is the largest entry's. An upper bound, not
    tight: a partner's move counted in both histograms may cancel in their difference (on every
    graph of 5 nodes and a deleted node, candidates ``[1, 2]`` and ``B = 3``, the largest change is
    6 of the map's 14). Brute-forced over small graphs and logs in
    ``tests/measurements/test_selection_score.py``."""
    histograms = {b: histogram_at(b) for b in sorted({*thetas, bound})}
    reference = histograms[bound]
    n_terms = [int(v) for v in noise_terms]

    def scores(x) -> list[int]:
        # each distinct bound projected once (the reference is usually also the largest candidate)
        h = {b: np.asarray(t(x), dtype=np.int64) for b, t in histograms.items()}
        h_b = h[bound]
        return [-(int(np.abs(h[theta][:theta] - h_b[:theta]).sum()) + int(h[theta][theta]) + noise) for theta, noise in zip(thetas, n_terms)]

    first = histograms[thetas[0]]
    space = dp.vector_domain(dp.atom_domain(T=dp.i64), size=len(thetas)), dp.linf_distance(T=dp.i64)
    return dp.t.make_user_transformation(
        first.input_domain,
        first.input_metric,
        *space,
        scores,
        lambda d: max(histograms[t].map(d) for t in thetas) + reference.map(d),
    )


def choice_arguments(candidates: list[int], scoring_bound: Any, postprocess: str) -> int:
    """The scoring bound (default the largest candidate) after checking it and the
    post-processing's name: the arguments :func:`choose_bound_and_release`'s callers share."""
    # the largest candidate: a larger reference adds its histogram's sensitivity to the
    # selection's noise (3·Δ instead of 2·Δ for twice the largest) and changes little in the
    # ranking (measured on the synthetic person graph: the same order at either)
    bound = candidates[-1] if scoring_bound is None else scoring_bound
    if isinstance(bound, bool) or not isinstance(bound, Integral) or bound < candidates[-1]:
        raise ValueError(f"scoring_bound must be an integer at least the largest candidate {candidates[-1]}, got {scoring_bound!r}")
    if postprocess not in ("fit", "isotonic"):
        raise ValueError(f'postprocess must be "fit" or "isotonic", got {postprocess!r}')
    return int(bound)


def choose_bound_and_release(
    input_domain: dp.Domain,
    input_metric: dp.Metric,
    epsilon: float,
    thetas: list[int],
    *,
    selection_share: float,
    d_in: int,
    release_chain,
    histogram_at,
    bound: int,
    num_nodes: int | None,
    public_size: int | None = None,
    postprocess: str,
    what: str,
    bias: str,
    gaussian: bool = False,
    binds: bool = True,
) -> dp.Measurement:
    """The two parts of :func:`make_private_degree_distribution` for any bounded histogram:
    ``release_chain(θ)`` is the stable ``θ``-cumulative histogram at bound ``θ`` (an L1 space;
    ℓ2 with ``gaussian=True``), ``tail_counts()`` the counts above each candidate at the larger
    scoring bound (an L∞ space); the selection, calibration, composition and post-processing are
    the module docstring's. ``epsilon`` is the whole budget in the measure: ε, or ρ with
    ``gaussian=True`` (OpenDP's Gaussian and noisy max under ``zero_concentrated_divergence``).
    (:func:`opendp_graph.polars.make_private_message_count_histogram` is the other user.)"""
    share = selection_share
    selecting = len(thetas) > 1
    eps_release = epsilon * (1 - share) if selecting else epsilon
    measure = dp.zero_concentrated_divergence() if gaussian else dp.max_divergence()
    then_noise = dp.m.then_gaussian if gaussian else dp.m.then_laplace
    # the expected absolute value of one entry's noise: the Laplace scale, or σ·√(2/π)
    per_entry = math.sqrt(2 / math.pi) if gaussian else 1.0

    releases = {}
    for theta in thetas:
        chain = release_chain(theta)
        if chain.map(d_in) == 0:
            raise ValueError(f"the {what} does not change under {input_metric} (the structure is public): it needs no noise")

        def noisy(s: float, c: dp.Transformation = chain) -> dp.Measurement:
            return c >> then_noise(scale=s)

        try:
            scale = dp.binary_search_param(noisy, d_in=d_in, d_out=eps_release)
        except Exception as error:  # OpenDP's search fails when no finite scale reaches so small a budget
            raise ValueError(f"no noise scale reaches {eps_release!r} ({measure}) for θ = {theta}: {error}") from error
        releases[theta] = (chain >> then_noise(scale=scale), scale)
    d_mids = [max(m.map(d_in) for m, _ in releases.values())]

    # the histograms the selection scores and the bias statement read, each built once
    histograms = {b: histogram_at(b) for b in sorted({*thetas, bound})}
    selector = None
    if selecting:
        noise_terms = [fit_noise_estimate(theta, releases[theta][1] * per_entry, public_size) for theta in thetas]
        scores = make_bias_noise_scores(histograms.__getitem__, thetas, bound, noise_terms)
        # a hair below the rest, so that the two parts' floating-point sum stays within ε
        eps_select = (epsilon - d_mids[0]) * (1 - 1e-9)
        if eps_select <= 0:
            raise ValueError("selection_share leaves no budget for the selection after rounding; raise it")
        try:
            s_scale = dp.binary_search_param(lambda s: scores >> dp.m.then_noisy_max(measure, scale=s), d_in=d_in, d_out=eps_select)
        except Exception as error:
            raise ValueError(f"no noisy-max scale reaches the selection's budget {eps_select!r}: {error}") from error
        selector = scores >> dp.m.then_noisy_max(measure, scale=s_scale)
        d_mids = [selector.map(d_in), *d_mids]

    if sum(d_mids) > epsilon:
        raise ValueError(f"the parts' budgets {d_mids} exceed {epsilon!r} after rounding; raise it or change selection_share")
    composition = dp.c.make_adaptive_composition(input_domain, input_metric, measure, d_in=d_in, d_mids=d_mids)

    def run(queryable) -> DegreeDistributionRelease:
        theta = thetas[int(queryable(selector))] if selector is not None else thetas[0]
        meas, scale = releases[theta]
        noisy = np.asarray(queryable(meas), dtype=np.float64)
        # the fit weighs by a Laplace scale; a Gaussian of σ has the standard deviation of a Laplace of σ/√2
        fit_scale = scale / math.sqrt(2) if gaussian else scale
        return DegreeDistributionRelease(
            theta=theta,
            histogram=(
                fit_degree_histogram(noisy, fit_scale, num_nodes=num_nodes)
                if postprocess == "fit"
                else histogram_from_cumulative(noisy, num_nodes=num_nodes)
            ),
            noisy_cumulative=noisy,
            noise_scale=float(scale),
            noise="discrete_gaussian" if gaussian else "discrete_laplace",
        )

    measurement = composition >> dp.new_function(run, TO="ExtrinsicObject")
    if binds:  # a bound that can drop something: say why the release cannot measure what it drops
        bias = f"{bias}; {_unmeasured_bias_cost(histograms, thetas, bound, d_in, epsilon * share, public_size)}"
    return attach_choice_accuracy(
        measurement,
        "θ",
        "discrete_gaussian" if gaussian else "discrete_laplace",
        [(theta, releases[theta][1]) for theta in thetas],
        bias=bias,
        selection=None if selector is None else _selection_statement(s_scale, public_size),
    )


def _selection_statement(scale: float, size: int | None) -> str:
    """What the noisy max can tell apart, from its public noise scale ``β``. OpenDP's noisy max
    at scale ``β`` is ``2t/β``-DP for scores that move by ``t`` in L∞ (its privacy map under
    ``max_divergence``, exponential noise; under zCDP its noise is Gumbel's, the exponential
    mechanism, which is ``2t/β``-DP as well, though OpenDP states it in ρ), so its law on a score
    vector of spread ``R`` is within a factor ``exp(R/β)`` of its law on the constant vector at
    the middle, which is uniform: every candidate is picked with probability within a factor
    ``exp(R/β)`` of ``1/k`` (tight for two candidates). A perfect score (each candidate's error
    ``Σ_k |released_k − true_k|``, between 0 and ``2n`` when the histogram sums to ``n``) has
    ``R ≤ 2n``. ``n`` is the public figure the release has (``num_nodes`` or ``expected_nodes``:
    with a low estimate the statement is too pessimistic, with a high one too optimistic); the
    actual scores add the public noise terms ``N_θ``, which move the law the same way for any
    data."""
    text = f"noisy max with noise scale {readable(scale)}"
    if size is None:
        return text + " (in nodes; compare it with the number of nodes: near or above it, the choice is close to uniform)"
    factor = math.exp(min(2 * size / scale, 700.0))
    verdict = (
        "the choice can barely tell the candidates apart; use fewer candidates, a larger ε or a bound fixed from public knowledge"
        if factor < 3
        else "the choice can tell apart candidates whose errors differ by a good part of n"
    )
    if factor >= 1000:  # a 1.07e+32 says nothing a reader can use
        return f"{text} = {scale / size:.2g}·n: a perfect score can move each candidate's chance by more than a factor 1,000 from 1/k; {verdict}"
    return f"{text} = {scale / size:.2g}·n: even a perfect score moves each candidate's chance only within a factor {factor:.3g} of 1/k; {verdict}"


def _unmeasured_bias_cost(histograms: dict, thetas: list[int], bound: int, d_in: int, budget: float, size: int | None) -> str:
    """Why the release does not measure what the bound moves below ``θ``, in public figures: that
    sum has the selection score's sensitivity ``Δ_θ + Δ_B`` (:func:`make_bias_noise_scores`), so
    releasing it at the selection's budget would need noise of scale ``(Δ_θ + Δ_B) / budget``."""
    reference = histograms[bound].map(d_in)
    scales = [(t, (histograms[t].map(d_in) + reference) / budget) for t in thetas]

    def per(scale):
        return f"{scale:,.0f}" + ("" if size is None else f" ({scale / size:.2g}·n)")

    listed = ", ".join(f"{t}: {per(scale)}" for t, scale in scales)
    return (
        "what the bound moves below θ is not measured: under DP at ε·selection_share = "
        f"{budget:.3g} it would need noise of scale {listed} by candidate θ"
    )


def degree_distribution_noise(
    input_domain: dp.Domain,
    input_metric: dp.Metric,
    epsilon: float,
    theta: int,
    *,
    num_nodes: int,
    d_in: int = 1,
    postprocess: str = "fit",
) -> float:
    """The expected L1 size of the noise the release keeps at ``θ``, relative to ``n``, from
    public figures: with the Laplace ``scale`` that OpenDP calibrates for the ``θ``-cumulative
    histogram after the projection at ``epsilon`` (all of it spent on the release; with a private
    ``θ`` the release gets ``(1 − selection_share) · ε``),

    * ``postprocess="fit"`` (the release's default): ``min((θ + 1)·scale, √(n·scale)) / n``,
      the noise the fit leaves (:func:`fit_noise_estimate`, the selection's own noise term:
      measured at 0.5–1.5 times ``√(n·scale)`` on four graphs);
    * ``postprocess="isotonic"``: ``(θ + 1)·scale / n``, the raw noise (what the isotonic
      post-processing keeps, about).

    This is the noise only: what the projection drops (the bias) comes on top, and the release
    states it (``dpg.accuracy``). Issue 39 found the raw figure alone misleading: on a chat log of
    5,900 people it planned ``1.41·n`` at ``θ = 64`` ("the release will be noise") where that
    release's whole error was ``0.149·n``; the fitted figure there is ``0.147·n``.

    Public arithmetic: ``num_nodes`` is *your estimate* of ``n`` (under node insertion the true
    ``n`` is private; a rough public figure is enough to plan). Near 1 or above, the release is
    noise.

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> space = dpg.graph_domain(), dpg.node_insertion_distance()
    >>> round(dpg.degree_distribution_noise(*space, 1.0, 40, num_nodes=47_538), 3)   # Deezer HU: ≈ 0.03 measured
    0.029
    >>> round(dpg.degree_distribution_noise(*space, 1.0, 40, num_nodes=47_538, postprocess="isotonic"), 3)
    0.035
    >>> round(dpg.degree_distribution_noise(*space, 1.0, 32, num_nodes=1_005), 2)   # email-Eu-core: noise
    0.18
    """
    dp.assert_features("contrib", "honest-but-curious")
    epsilon = positive_finite("epsilon", epsilon)
    theta = positive_integer("theta", theta)
    num_nodes = positive_integer("num_nodes", num_nodes)
    d_in = positive_integer("d_in", d_in)
    if postprocess not in ("fit", "isotonic"):
        raise ValueError(f'postprocess must be "fit" or "isotonic", got {postprocess!r}')
    chain = _release_chain(input_domain, input_metric, theta)
    scale = dp.binary_search_param(lambda s: chain >> dp.m.then_laplace(scale=s), d_in=d_in, d_out=epsilon)
    if postprocess == "isotonic":
        return (theta + 1) * scale / num_nodes
    return min((theta + 1) * scale, math.sqrt(num_nodes * scale)) / num_nodes


# the then_ forms (OpenDP's convention: every make_x of (input_domain, input_metric, ...) has one)
then_private_degree_distribution = then(make_private_degree_distribution)
