"""Accuracy beside every release: how far a noisy answer may be from the true one.

:func:`accuracy` reads the noise of an OpenDP measurement from OpenDP's own record of how it
was built (``measurement.__opendp_dict__``, what ``dp.serialize`` reads) and turns its scale into
a half-width with OpenDP's own accuracy utilities (``dp.laplacian_scale_to_accuracy``,
``dp.discrete_laplacian_scale_to_accuracy``, ``dp.gaussian_scale_to_accuracy``,
``dp.discrete_gaussian_scale_to_accuracy``); :func:`~opendp_graph.measurements.summarize` does it for several releases at
once and returns a small Polars table, like OpenDP's Polars ``summarize(alpha=...)``.

**What the half-width means.** Each released entry (a bin of a histogram, a count, a key of a
count map) is within ``± half_width`` of the value that was fed to the noise with probability
at least ``1 − alpha``, **per entry**: over ``n`` entries about ``alpha · n`` are expected
outside, not none. For all ``n`` at once, ask for ``alpha / n`` (a union bound). The value fed to
the noise is the exact answer of the stable query *as computed*: a bias introduced before the
noise (the edges a degree projection drops, a contribution bound) is not included, as in
OpenDP's own accuracy utilities. Nothing is released or spent to compute any of this: it reads
public parameters only.

Supported releases: OpenDP's ``make_laplace`` (continuous Laplace on float data, discrete
Laplace on integer data), ``make_geometric`` (discrete Laplace), ``make_gaussian`` (continuous
or discrete Gaussian) on a scalar or a vector, and ``make_laplace_threshold`` and
``make_gaussian_threshold`` on a count map (also through :func:`~opendp_graph.make_corrected_laplace_threshold`
and :func:`~opendp_graph.make_corrected_gaussian_threshold`), at the end of a chain
(``make_chain_mt``), behind a conversion of the privacy measure (``make_approximate``,
``make_pureDP_to_zCDP``, ``make_zCDP_to_approxDP``, ``make_fix_delta``,
``make_fixed_approxDP_to_approxDP``: they change the accounting, not the release) or wrapped by
:func:`~opendp_graph.pufferfish.make_pufferfish_approximate`. Anything else (noisy top-k,
compositions, a post-processed release, a user measurement whose function is Python code) is
refused with a ``TypeError``: its error is not one noise scale.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from numbers import Real
from statistics import NormalDist
from typing import Any

import numpy as np
import opendp.prelude as dp

from ..core._bias import stated_bias
from ..core._checks import OPENDP_INTEGER_TYPES
from ..core.metrics import DegreeSequenceDistance, PaddedDegreeDistance
from ._selection_accuracy import SelectionAccuracy, readable

__all__ = [
    "Accuracy",
    "ChoiceAccuracy",
    "PartsAccuracy",
    "SelectionAccuracy",
    "accuracy",
    "attach_choice_accuracy",
    "attach_parts_accuracy",
    "noise_accuracy",
    "not_included",
    "readable",
]

_NOISES = ("laplace", "discrete_laplace", "gaussian", "discrete_gaussian")
_FLOAT_TYPES = {"f32", "f64"}
# combinators that change how the privacy loss is stated, never what is released
_MEASURE_CONVERSIONS = {
    "make_approximate",
    "make_pureDP_to_zCDP",
    "make_zCDP_to_approxDP",
    "make_fix_delta",
    "make_fixed_approxDP_to_approxDP",
}
_NOISE_CONSTRUCTORS = {"make_laplace", "make_geometric", "make_gaussian", "make_laplace_threshold", "make_gaussian_threshold"}
_SELECTIONS = {"make_noisy_top_k", "make_noisy_max"}  # they release keys (indices), not values
_COMPOSITIONS = {
    "make_composition",
    "make_basic_composition",
    "make_adaptive_composition",
    "make_sequential_composition",
    "make_fully_adaptive_composition",
    "make_privacy_filter",
}
_SUPPORTED = (
    "supported: OpenDP's make_laplace, make_geometric and make_gaussian on a scalar or a vector, and "
    "make_laplace_threshold and make_gaussian_threshold on a count map (also dpg.make_corrected_laplace_threshold, "
    "dpg.make_corrected_gaussian_threshold), make_noisy_top_k and make_noisy_max on a vector of known length, alone, at the end "
    "of a chain "
    "(make_chain_mt), behind a privacy-measure conversion (make_approximate, make_pureDP_to_zCDP, "
    "make_zCDP_to_approxDP, make_fix_delta) or wrapped by dpg.pufferfish.make_pufferfish_approximate"
)


def _check_alpha(alpha: Any) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, Real):
        raise TypeError(f"alpha must be a real number in (0, 1), got {type(alpha).__name__} {alpha!r}")
    value = float(alpha)
    if not 0.0 < value < 1.0:  # also refuses NaN
        raise ValueError(f"alpha must be in (0, 1) (0.05 for 95 % confidence), got {alpha!r}")
    return value


def _check_real(name: str, value: Any) -> Any:
    # Any: the value itself, a real number of any type (a Fraction stays exact; the numbers ABCs have no static types)
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    if math.isnan(value):
        raise ValueError(f"{name} must not be NaN")
    return value


# ----------------------------------------------------------------------------- the noise laws
def _discrete_laplace_at_least(m: int, scale: float) -> float:
    """``Pr[Z ≥ m]`` for an integer ``m`` and OpenDP's discrete Laplace, ``Pr[Z = z] ∝ exp(−|z|/scale)``:
    ``q^m / (1 + q)`` for ``m ≥ 1`` (``q = e^{−1/scale}``), ``1 − Pr[Z ≥ 1 − m]`` otherwise (symmetry)."""
    if scale == 0:
        return 1.0 if m <= 0 else 0.0
    q = math.exp(-1.0 / scale)
    if m >= 1:
        return math.exp(-m / scale) / (1.0 + q)
    return 1.0 - math.exp(-(1 - m) / scale) / (1.0 + q)


def _discrete_gaussian_at_least(m: int, scale: float) -> float:
    """``Pr[Z ≥ m]`` for an integer ``m`` and OpenDP's discrete Gaussian, ``Pr[Z = z] ∝
    exp(−z²/2·scale²)``: summed over ``|z| ≤ 40·scale + 40`` (the mass beyond is below ``e^{−800}``)."""
    if scale == 0:
        return 1.0 if m <= 0 else 0.0
    width = int(40 * scale) + 40
    z = np.arange(-width, width + 1, dtype=np.float64)
    weights = np.exp(-(z * z) / (2.0 * scale * scale))
    return float(weights[z >= m].sum() / weights.sum())


def _gaussian_at_least(d: float, scale: float) -> float:
    """``Pr[Z ≥ d]`` for a continuous Gaussian of standard deviation ``scale``."""
    if scale == 0:
        return 1.0 if d <= 0 else 0.0
    return 0.5 * math.erfc(d / (scale * math.sqrt(2.0)))


def _laplace_at_least(d: float, scale: float) -> float:
    """``Pr[Z ≥ d]`` for a continuous Laplace of scale ``scale`` (density ``e^{−|z|/scale} / 2·scale``)."""
    if scale == 0:
        return 1.0 if d <= 0 else 0.0
    if d <= 0:
        return 1.0 - 0.5 * math.exp(d / scale)
    return 0.5 * math.exp(-d / scale)


# ----------------------------------------------------------------------------- the result
@dataclass(frozen=True)
class Accuracy:
    """The accuracy of one release: its noise, and how far each released entry may be from the
    value fed to the noise. Returned by :func:`accuracy`; one row of :func:`summarize`.

    **Guarantee (per entry).** For each released entry ``y`` of true value ``x`` (the exact
    answer of the query before the noise), ``Pr[|y − x| ≤ half_width] ≥ 1 − alpha``. It holds
    for each entry separately, **not simultaneously**: of ``n`` entries about ``alpha · n`` are
    expected outside their interval; use ``alpha / n`` for all ``n`` at once (union bound).

    For a thresholded release (``threshold`` is not ``None``) the half-width bounds the noise of
    each key before the threshold is applied. A key is released only when its noisy count is at
    least ``threshold``, which favours keys whose noise was positive: **released values are
    biased upward near the threshold** (selection), and for a released key the interval misses
    with probability at most ``alpha / release_probability(x)`` (``Pr[A | R] ≤ Pr[A] / Pr[R]``),
    close to ``alpha`` only for keys well above the threshold (see
    :meth:`count_for_release_probability`).

    :example:

    >>> import networkx as nx, opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> g = dpg.Graph.from_networkx(nx.karate_club_graph())
    >>> space = dpg.graph_domain(), dpg.edge_distance()
    >>> count = space >> dpg.then_edge_count() >> dp.m.then_laplace(scale=1.0)
    >>> acc = dpg.accuracy(count)
    >>> acc.noise, acc.scale, acc.alpha, acc.half_width, round(acc.opendp_accuracy, 2), acc.threshold
    ('discrete_laplace', 1.0, 0.05, 3, 3.38, None)
    >>> print(acc)
    discrete_laplace noise of scale 1: each entry within ±3 of its true value with probability ≥ 95 % (per entry)
    >>> low, high = acc.interval(count(g))   # the true count, 78, is inside in 95 % of releases
    >>> high - low
    6
    """

    noise: str
    """The noise OpenDP adds: ``"laplace"`` (continuous, float data), ``"discrete_laplace"``
    (integer data, ``Pr[Z = z] ∝ exp(−|z| / scale)``), ``"gaussian"`` (continuous, float data)
    or ``"discrete_gaussian"`` (integer data, ``Pr[Z = z] ∝ exp(−z² / 2·scale²)``)."""
    scale: float
    """The noise scale, as passed to OpenDP (Laplace: ``b``, standard deviation ``b·√2``;
    Gaussian: ``σ``)."""
    alpha: float
    """The significance level: each entry is outside its interval with probability at most
    ``alpha`` (``0.05`` for 95 % confidence)."""
    half_width: float
    """Each released entry is within ``± half_width`` of its true value with probability at
    least ``1 − alpha``, per entry (not simultaneously). For integer noise it is an ``int``
    below :attr:`opendp_accuracy` ``a``, which OpenDP defines by ``Pr[|Z| ≥ a] ≤ alpha`` (an
    integer error below ``a`` is at most ``⌈a⌉ − 1``): ``⌊a⌋`` for the discrete Laplace
    (OpenDP's advice: "you can take the floor without affecting the coverage probability"),
    ``a − 1`` for the discrete Gaussian (whose ``a`` is an integer). It is the tightest integer
    that covers (the tests check both properties against the exact laws). For continuous
    noise it is OpenDP's number itself (``Pr[|Z| > half_width] = alpha``, up to the float
    rounding of OpenDP's sampler)."""
    opendp_accuracy: float
    """OpenDP's own number, kept for reference: ``dp.laplacian_scale_to_accuracy``,
    ``dp.discrete_laplacian_scale_to_accuracy``, ``dp.gaussian_scale_to_accuracy`` or
    ``dp.discrete_gaussian_scale_to_accuracy`` of ``(scale, alpha)``, what OpenDP's Polars
    ``summarize`` shows (``3.38`` for a discrete Laplace of scale 1 at ``alpha = 0.05``, where
    the half-width is ``3``; ``3`` for a discrete Gaussian of scale 1, where it is ``2``)."""
    mechanism: str
    """The OpenDP constructor that adds the noise, as recorded by OpenDP: ``"make_laplace"``,
    ``"make_geometric"``, ``"make_gaussian"`` or ``"make_laplace_threshold"`` (``"make_private_lazyframe"``
    for a column of an OpenDP Polars release, in :func:`summarize`)."""
    threshold: float | None = None
    """``None`` unless the release is thresholded; then the threshold: a key is released when its
    noisy count is at least this."""
    not_included: str | None = None
    """Error the noise does not cover, named when the chain shows it: after
    :func:`~opendp_graph.make_degree_projection`, what the projection drops (the half-width is
    around the projected graph's answer, not the input's)."""

    def __post_init__(self) -> None:
        if self.noise not in _NOISES:
            raise ValueError(f"noise must be one of {_NOISES}, got {self.noise!r}")
        _check_alpha(self.alpha)
        if not (self.scale >= 0 and self.half_width >= 0):
            raise ValueError(f"scale and half_width must be non-negative, got {self.scale!r} and {self.half_width!r}")

    @property
    def _discrete(self) -> bool:
        return self.noise.startswith("discrete_")

    def __str__(self) -> str:
        text = self.headline
        if self.not_included is not None:
            text += f"\nnot included: {self.not_included}"
        return text

    @property
    def headline(self) -> str:
        """The first line of the statement: the noise, the half-width and which value it is
        around (the true value, or, when something is :attr:`not_included`, the value fed to
        the noise), numbers rounded for reading."""
        truth = "its true value" if self.not_included is None else "the value fed to the noise"
        text = (
            f"{self.noise} noise of scale {readable(self.scale)}: each entry within ±{readable(self.half_width)} of "
            f"{truth} with probability ≥ {100 * (1 - self.alpha):g} % (per entry)"
        )
        if self.threshold is not None:
            text += f"; keys released when their noisy count is ≥ {readable(self.threshold)}"
        return text

    def interval(self, released: Any) -> Any:
        """``(low, high) = (y − half_width, y + half_width)`` for a released value ``y``; a list
        of them for a list, tuple or array, a dict for a dict (a count map). Each interval holds
        its entry's true value with probability at least ``1 − alpha`` (per entry; for a
        thresholded release see the class notes: released keys near the threshold are biased
        upward). Integer releases get integer bounds.

        :param released: what the measurement returned: a number, a sequence or a mapping of numbers.
        :raises TypeError: for anything else (a string, a bool, ``None``).

        :example:

        >>> import opendp.prelude as dp, opendp_graph as dpg
        >>> space = dpg.graph_domain(), dpg.edge_distance()
        >>> hist = space >> dpg.then_degree_histogram(max_degree=20) >> dp.m.then_laplace(scale=4.0)
        >>> acc = dpg.accuracy(hist)
        >>> acc.half_width
        12
        >>> acc.interval(7), acc.interval([0, 11]), acc.interval({"a": 30})
        ((-5, 19), [(-12, 12), (-1, 23)], {'a': (18, 42)})
        """
        if isinstance(released, Mapping):
            return {key: self._one_interval(value) for key, value in released.items()}
        if isinstance(released, (str, bytes)) or released is None:
            raise TypeError(f"released must be a number, a sequence or a mapping of numbers, got {released!r}")
        if isinstance(released, Real) and not isinstance(released, bool):
            return self._one_interval(released)
        try:
            items = list(released)
        except TypeError:
            raise TypeError(f"released must be a number, a sequence or a mapping of numbers, got {type(released).__name__}") from None
        return [self._one_interval(value) for value in items]

    def _one_interval(self, value: Any) -> tuple:
        if isinstance(value, bool) or not isinstance(value, Real):
            raise TypeError(f"a released value must be a number, got {type(value).__name__} {value!r}")
        return value - self.half_width, value + self.half_width

    def _require_threshold(self, method: str) -> float:
        if self.threshold is None:
            raise ValueError(f"{method} is for thresholded releases (make_laplace_threshold); this release has no threshold")
        return self.threshold

    def release_probability(self, true_count: float) -> float:
        """The exact probability that a key of true count ``true_count`` is released: that its
        noisy count is **at least** the threshold, as OpenDP's ``make_laplace_threshold`` and
        ``make_gaussian_threshold`` keep keys (see :func:`~opendp_graph.make_corrected_laplace_threshold`).
        For the Gaussian twin the same rule holds with OpenDP's discrete Gaussian (summed
        exactly) on integer counts, a normal tail on float counts.

        On integer counts the noise is OpenDP's discrete Laplace, ``Pr[Z = z] ∝ exp(−|z| /
        scale)`` (the law and the ``≥`` rule are checked by simulation against OpenDP 0.16 in
        ``tests/measurements/test_accuracy.py``): ``Pr[x + Z ≥ T] = Pr[Z ≥ m]`` with ``m = ⌈T − x⌉``, which is
        ``q^m / (1 + q)`` for ``m ≥ 1`` and ``1 − q^{1−m} / (1 + q)`` otherwise (``q =
        e^{−1/scale}``). On float counts the noise is a continuous Laplace:
        ``½·e^{−(T−x)/scale}`` below the threshold, ``1 − ½·e^{−(x−T)/scale}`` at or above it.
        A key absent from the true map is never released.

        :param true_count: a key's true count (a real number).
        :raises ValueError: if the release is not thresholded, or ``true_count`` is NaN.

        :example:

        >>> import opendp.prelude as dp, opendp_graph as dpg
        >>> space = dpg.graph_domain(labeled=True), dpg.edge_distance()
        >>> union = space >> dpg.then_label_count_map(1) >> dpg.then_corrected_laplace_threshold(scale=1.0, threshold=10)
        >>> acc = dpg.accuracy(union)
        >>> round(acc.release_probability(10), 4)  # at the threshold: Pr[Z ≥ 0] = 1 / (1 + e^{−1})
        0.7311
        >>> round(acc.release_probability(9), 4), round(acc.release_probability(13), 4)
        (0.2689, 0.9866)
        """
        threshold = self._require_threshold("release_probability")
        x = _check_real("true_count", true_count)
        if self.noise.endswith("gaussian"):  # make_gaussian_threshold: the same rule with Gaussian noise
            if self._discrete:
                return _discrete_gaussian_at_least(math.ceil(threshold - x), self.scale)
            return _gaussian_at_least(threshold - x, self.scale)
        if self._discrete:
            return _discrete_laplace_at_least(math.ceil(threshold - x), self.scale)
        return _laplace_at_least(threshold - x, self.scale)

    def count_for_release_probability(self, p: float) -> float:
        """The smallest true count that is released with probability at least ``p``: an integer
        for integer counts (``release_probability`` is increasing in the count).

        :param p: a probability in ``(0, 1)``.
        :raises ValueError: if the release is not thresholded, or ``p`` is not in ``(0, 1)``.

        :example:

        >>> import opendp.prelude as dp, opendp_graph as dpg
        >>> space = dpg.graph_domain(labeled=True), dpg.edge_distance()
        >>> union = space >> dpg.then_label_count_map(1) >> dpg.then_corrected_laplace_threshold(scale=1.0, threshold=10)
        >>> acc = dpg.accuracy(union)
        >>> acc.count_for_release_probability(0.5), acc.count_for_release_probability(0.95)
        (10, 12)
        >>> round(acc.release_probability(11), 3), round(acc.release_probability(12), 3)
        (0.901, 0.964)
        """
        threshold = self._require_threshold("count_for_release_probability")
        if isinstance(p, bool) or not isinstance(p, Real):
            raise TypeError(f"p must be a probability in (0, 1), got {type(p).__name__} {p!r}")
        if not 0.0 < p < 1.0:
            raise ValueError(f"p must be in (0, 1), got {p!r}")
        s = self.scale
        if self.noise.endswith("gaussian"):
            start = threshold + s * NormalDist().inv_cdf(1 - p)  # the continuous answer
            if not self._discrete:
                return start
            x = math.ceil(start)  # a start for the exact adjustment below
        elif not self._discrete:
            if s == 0:
                return threshold
            return threshold + s * math.log(2 * p) if p <= 0.5 else threshold - s * math.log(2 * (1 - p))
        elif s == 0:
            x = math.ceil(threshold)
        else:
            # closed-form start (from the tail formulas above), then an exact adjustment
            q = math.exp(-1.0 / s)
            m = math.floor(-s * math.log(p * (1 + q)))  # largest m ≥ 1 with q^m / (1 + q) ≥ p, if any
            if m < 1:
                m = math.floor(1 + s * math.log((1 - p) * (1 + q)))
            x = math.ceil(threshold) - m
        while self.release_probability(x) < p:
            x += 1
        while self.release_probability(x - 1) >= p:
            x -= 1
        return int(x)


# ----------------------------------------------------------------------------- finding the noise
def _innermost_type(carrier: Any) -> str:
    """The element type of a domain's carrier: ``i64`` for ``i64``, ``Vec<i64>`` and ``HashMap<String, i64>``."""
    args = getattr(carrier, "args", None)
    while args:
        carrier = args[-1]
        args = getattr(carrier, "args", None)
    return str(carrier)


def _noise_record(measurement: Any) -> tuple[str, dict, list[str]]:
    """The constructor name and kwargs of the measurement that adds the noise, and the path to it."""
    if not isinstance(measurement, dp.Measurement):
        raise TypeError(f"expected an OpenDP Measurement, got {type(measurement).__name__}; {_SUPPORTED}")
    path: list[str] = []
    node = measurement
    for _ in range(1000):  # a chain is finite; this only guards against a cycle of references
        inner = getattr(node, "_opendp_graph_inner", None)
        if inner is not None:  # dpg.pufferfish.make_pufferfish_approximate: the release is inner's
            path.append("make_pufferfish_approximate")
            node = inner
            continue
        record = getattr(node, "__opendp_dict__", None)
        if not isinstance(record, Mapping) or "__function__" not in record:
            raise TypeError(f"this measurement carries no OpenDP constructor record (__opendp_dict__); {_SUPPORTED}")
        name, kwargs = record["__function__"], record.get("__kwargs__", {})
        path.append(name)
        if name == "make_chain_mt":
            node = kwargs["measurement1"]
        elif name in _MEASURE_CONVERSIONS:
            node = kwargs["measurement"]
        elif name == "make_user_measurement" and isinstance(kwargs.get("function"), dp.Measurement):
            node = kwargs["function"]  # e.g. dpg.make_corrected_laplace_threshold: it releases this measurement
        elif name in _NOISE_CONSTRUCTORS or name in _SELECTIONS:
            return name, kwargs, path
        else:
            where = " → ".join(path)
            if name in _COMPOSITIONS:
                why = "a composition releases several answers, each with its own noise: summarize its parts"
            elif name == "make_user_measurement":
                why = "a user measurement whose function is Python code: its noise is unknown to OpenDP"
            elif name == "make_chain_pm":
                why = "a post-processed release: the post-processing may change the error"
            elif name == "make_private_lazyframe":
                why = "an OpenDP Polars release adds one noise per column: dpg.summarize(query) states each"
            else:
                why = f"{name} is not a noise mechanism with a single scale"
            raise TypeError(f"cannot state the accuracy of this release ({where}): {why}; {_SUPPORTED}")
    raise TypeError("the measurement's chain of constructors does not end")  # pragma: no cover


@dataclass(frozen=True)
class ChoiceAccuracy:
    """The accuracy of a release that chooses one of several public candidates under DP and
    then adds noise whose scale depends on the choice: :func:`~opendp_graph.make_private_degree_distribution`
    (the projection bound ``θ``) and :func:`~opendp_graph.polars.make_private_total` (the cap
    ``τ``). Which candidate is chosen is known only after the release (it says so), so the
    accuracy is stated for each: ``choices`` maps a candidate to the :class:`Accuracy` of the
    noise added when it is chosen, and :attr:`worst` is the widest.

    **What it leaves out** (``bias``): the noise is added to the answer *after* the projection
    or cap, which differs from the true answer by what the bound drops. Each release states that
    part itself (``bias`` says where), and a user should read both before publishing."""

    parameter: str
    choices: tuple[tuple[float, Accuracy], ...]
    bias: str
    selection: str | None = None
    """How much the choice itself can tell the candidates apart (public figures), when the
    release says."""

    @property
    def worst(self) -> Accuracy:
        return max((acc for _, acc in self.choices), key=lambda acc: acc.half_width)

    def for_choice(self, candidate: float) -> Accuracy:
        for value, acc in self.choices:
            if value == candidate:
                return acc
        raise KeyError(f"{candidate!r} is not a candidate {self.parameter} of this release")

    def __str__(self) -> str:
        lines = [f"noise by the {self.parameter} chosen under DP:"]
        lines += [f"  {self.parameter} = {value:g}: {acc.headline}" for value, acc in self.choices]
        lines.append(f"bias and scope: {self.bias}")
        if self.selection is not None:
            lines.append(f"the choice: {self.selection}")
        return "\n".join(lines)


@dataclass(frozen=True)
class PartsAccuracy:
    """The accuracy of a release made of several parts, each with its own noise (every n-gram
    order of :func:`~opendp_graph.text.make_ngram_count_release`, composed by OpenDP):
    ``parts`` pairs a label with the :class:`Accuracy` of that part's noise; :attr:`worst` is the
    widest. ``not_included`` names what the parts' noise does not cover (a cap's bias), as
    :attr:`Accuracy.not_included` does."""

    parts: tuple[tuple[str, Accuracy], ...]
    not_included: str | None = None

    @property
    def worst(self) -> Accuracy:
        return max((acc for _, acc in self.parts), key=lambda acc: acc.half_width)

    def for_part(self, label: str) -> Accuracy:
        for name, acc in self.parts:
            if name == label:
                return acc
        raise KeyError(f"{label!r} is not a part of this release (parts: {[name for name, _ in self.parts]})")

    def __str__(self) -> str:
        lines = ["noise of each part of the release:"]
        lines += [f"  {name}: {acc.headline}" for name, acc in self.parts]
        if self.not_included is not None:
            lines.append(f"not included: {self.not_included}")
        return "\n".join(lines)


def _selection_accuracy(name: str, kwargs: Mapping, alpha: float, left_out: str | None) -> SelectionAccuracy:
    size = getattr(kwargs.get("input_domain"), "size", None)
    if size is None:
        raise TypeError(f"cannot state the accuracy of {name} on a vector of unknown length: give the domain its size; {_SUPPORTED}")
    scale, k = float(kwargs["scale"]), int(kwargs.get("k", 1))
    gumbel = "ZeroConcentrated" in str(kwargs.get("output_measure"))
    if gumbel:
        spread = math.log(2 * size / alpha)
        margin = scale * (spread + math.log(max(spread, 1.0)))
    else:  # k rounds of fresh exponential noise over K, K − 1, …, K − k + 1 keys
        margin = scale * math.log(sum(size - i for i in range(min(k, size))) / alpha)
    return SelectionAccuracy(
        noise="gumbel" if gumbel else "exponential",
        scale=scale,
        alpha=alpha,
        k=k,
        candidates=int(size),
        half_width=margin,
        negate=bool(kwargs.get("negate", False)),
        not_included=left_out,
    )


_CHOICE_ATTRIBUTE = "_dpg_accuracy"  # where attach_choice_accuracy leaves the statement for accuracy()


def _choice_statement(measurement: Any):
    """The statement :func:`attach_choice_accuracy` (or :func:`attach_parts_accuracy`) left on
    ``measurement``, or on the measurement at the end of its chain, as ``(describe, before)``:
    ``before`` lists what the transformations chained in front of it drop (their
    :func:`~opendp_graph.core._bias.state_bias` statements: ``make_person_graph(...) >>
    make_private_degree_distribution(...)`` leaves out group messages, which the release's own
    statement cannot know). ``None`` when there is none."""
    node = measurement
    before: list[str] = []
    for _ in range(1000):  # a chain is finite; this only guards against a cycle of references
        if not isinstance(node, dp.Measurement):
            return None
        describe = getattr(node, _CHOICE_ATTRIBUTE, None)
        if describe is not None:
            return describe, before
        inner = getattr(node, "_opendp_graph_inner", None)
        if inner is not None:  # dpg.pufferfish.make_pufferfish_approximate: the release is inner's
            node = inner
            continue
        record = getattr(node, "__opendp_dict__", None)
        if not isinstance(record, Mapping) or record.get("__function__") != "make_chain_mt":
            return None
        before = before + _stated_biases(record.get("__kwargs__", {}).get("transformation0"))
        node = record.get("__kwargs__", {}).get("measurement1")
    return None  # pragma: no cover


def attach_choice_accuracy(
    measurement: dp.Measurement, parameter: str, noise: str, scales: Any, bias: str, selection: str | None = None
) -> dp.Measurement:
    """Let :func:`accuracy` state the noise of ``measurement``, a release that picks one of
    several public candidates under DP: ``scales`` pairs each candidate with the scale of the
    ``noise`` (OpenDP's Laplace) added when it is picked; ``bias`` says what that noise leaves out
    and where the release states it; ``selection`` (optional) how well the choice can tell the
    candidates apart. Returns ``measurement``."""
    choices = tuple((float(candidate), float(scale)) for candidate, scale in scales)
    mechanism = "make_gaussian" if noise.endswith("gaussian") else "make_laplace"

    def describe(alpha: float) -> ChoiceAccuracy:
        return ChoiceAccuracy(
            parameter=parameter,
            choices=tuple((c, noise_accuracy(noise, scale, alpha, mechanism=mechanism)) for c, scale in choices),
            bias=bias,
            selection=selection,
        )

    setattr(measurement, _CHOICE_ATTRIBUTE, describe)
    return measurement


def attach_parts_accuracy(measurement: dp.Measurement, parts: Any) -> dp.Measurement:
    """Let :func:`accuracy` state the noise of ``measurement``, a release of several parts:
    ``parts`` is a sequence of ``(label, noise, scale, not_included)`` (``noise`` one of OpenDP's
    laws, as in :func:`noise_accuracy`; ``not_included`` what that part's query drops before its
    noise, or ``None``). Returns ``measurement``."""
    laws = tuple((str(label), str(noise), float(scale), left_out) for label, noise, scale, left_out in parts)
    statements = [text for text in dict.fromkeys(left_out for *_, left_out in laws) if text is not None]

    def describe(alpha: float) -> PartsAccuracy:
        return PartsAccuracy(
            parts=tuple(
                (
                    label,
                    replace(
                        noise_accuracy(noise, scale, alpha, mechanism="make_gaussian" if noise.endswith("gaussian") else "make_laplace"),
                        not_included=left_out,
                    ),
                )
                for label, noise, scale, left_out in laws
            ),
            not_included="; ".join(statements) or None,
        )

    setattr(measurement, _CHOICE_ATTRIBUTE, describe)
    return measurement


def attach_no_accuracy(measurement: dp.Measurement, why: str) -> dp.Measurement:
    """Let :func:`accuracy` refuse ``measurement`` with the reason ``why`` (a ``TypeError``): for a
    release whose noise is set by the private data (the Ladder's rungs), so that no interval can
    be stated without reading it. Returns ``measurement``."""

    def describe(alpha: float) -> Any:
        raise TypeError(f"cannot state the accuracy of this release before it is made: {why}")

    setattr(measurement, _CHOICE_ATTRIBUTE, describe)
    return measurement


def accuracy(measurement: dp.Measurement, alpha: float = 0.05) -> Accuracy | ChoiceAccuracy | PartsAccuracy | SelectionAccuracy:
    """The accuracy of ``measurement``'s releases at significance level ``alpha``: each released
    entry is within ``± half_width`` of its true value with probability at least ``1 − alpha``
    (per entry, not simultaneously; see :class:`Accuracy`).

    The noise is found in OpenDP's record of how the measurement was built
    (``measurement.__opendp_dict__``, as ``dp.serialize`` reads it): through ``make_chain_mt``
    (its ``measurement1``), measure conversions, ``make_user_measurement`` whose ``function``
    is an OpenDP measurement (``dpg.make_corrected_laplace_threshold``) and
    ``dpg.pufferfish.make_pufferfish_approximate``, to ``make_laplace`` / ``make_geometric`` /
    ``make_gaussian`` (``scale``) or ``make_laplace_threshold`` (``scale``, ``threshold``).
    The element type of the noise's ``input_domain`` tells the law: integer → discrete Laplace
    or Gaussian, float → continuous.

    **Proof of the guarantee**, with ``Z`` the noise of one entry and ``a`` OpenDP's accuracy:

    * continuous Laplace: ``a = scale · ln(1/alpha)`` and ``Pr[|Z| > a] = alpha``;
      continuous Gaussian: ``a = scale·√2·erf⁻¹(1 − alpha)`` and ``Pr[|Z| > a] = alpha``.
      ``half_width = a``. (OpenDP samples floats exactly on a lattice of ``2^−1074``; the
      half-width is exact up to that and the float rounding of the output.)
    * discrete Laplace: OpenDP documents ``alpha = Pr[|Z| ≥ a]`` (its formula is that tail at a
      real ``a``), so ``Pr[|Z| ≥ ⌈a⌉] ≤ alpha``; ``half_width = ⌊a⌋`` ("you can take the floor
      without affecting the coverage probability"): ``Pr[|Z| > ⌊a⌋] = Pr[|Z| ≥ ⌊a⌋ + 1] ≤
      Pr[|Z| ≥ a] ≤ alpha``.
    * discrete Gaussian: OpenDP's ``a`` is ``i + 1`` for the least ``i`` with ``Pr[|Z| ≤ i] ≥
      1 − alpha`` (it adds up the mass of ``−i..i``); ``half_width = a − 1 = i``.
    * integer releases saturate at their type's bounds, which only moves a value towards the
      true one's range.

    The tests check every case against the exact law and by simulation of OpenDP's own
    measurements.

    A release of this package that chooses a candidate under DP
    (:func:`~opendp_graph.make_private_degree_distribution`,
    :func:`~opendp_graph.polars.make_private_total`) gets a :class:`ChoiceAccuracy`: the noise
    for each candidate, and where the release states its bias.

    :param measurement: an OpenDP measurement (see the module notes for what is supported).
    :param alpha: significance level in ``(0, 1)``: ``0.05`` for 95 % confidence.
    :raises TypeError: for an unsupported measurement (saying what is supported), a float
        measurement built with an explicit ``k`` (its noise lives on a coarser lattice: build
        it with ``k=None``), a geometric built with ``bounds`` (OpenDP clamps its output to
        them, so a true value outside is never covered), or an ``alpha`` that is not a real
        number.
    :raises ValueError: for ``alpha`` outside ``(0, 1)`` or NaN.

    :example:

    The degree histogram of the karate club moves by 4 per edge, so ε = 1 needs scale 4:

    >>> import networkx as nx, opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> space = dpg.graph_domain(), dpg.edge_distance()
    >>> hist = space >> dpg.then_degree_histogram(max_degree=20) >> dp.m.then_laplace(scale=4.0)
    >>> acc = dpg.accuracy(hist, alpha=0.05)
    >>> acc.noise, acc.scale, acc.half_width, round(acc.opendp_accuracy, 2)
    ('discrete_laplace', 4.0, 12, 12.45)
    >>> dpg.accuracy(hist, alpha=0.05 / 21).half_width  # all 21 bins at once (union bound)
    24
    >>> dpg.accuracy(space >> dpg.then_edge_count() >> dp.m.then_gaussian(scale=2.0)).half_width
    4
    >>> floats = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
    >>> acc = dpg.accuracy(floats, alpha=0.05)
    >>> acc.noise, round(acc.half_width, 4)  # ln(1 / 0.05)
    ('laplace', 2.9957)
    """
    alpha = _check_alpha(alpha)
    statement = _choice_statement(measurement)
    if statement is not None:  # a release of this package that picks a candidate under DP, or of parts
        describe, before = statement
        result = describe(alpha)
        if before:  # what the transformations in front of the release drop, first to last
            if isinstance(result, ChoiceAccuracy):
                return replace(result, bias="; ".join(dict.fromkeys([*before, result.bias])))

            def joined(own):
                return "; ".join(dict.fromkeys([*before, *filter(None, [own])]))

            return replace(
                result,
                parts=tuple((label, replace(acc, not_included=joined(acc.not_included))) for label, acc in result.parts),
                not_included=joined(result.not_included),
            )
        return result
    name, kwargs, _ = _noise_record(measurement)
    if name in _SELECTIONS:
        return _selection_accuracy(name, kwargs, alpha, not_included(measurement))
    result = _noise_accuracy_of(name, kwargs, alpha)
    left_out = not_included(measurement)
    if left_out is not None:
        result = replace(result, not_included=left_out)
    return result


def not_included(measurement: Any) -> str | None:
    """What the transformations before ``measurement``'s noise drop, in words: a degree
    projection (:data:`_PROJECTION_BIAS`) and every statement recorded with
    :func:`~opendp_graph.core._bias.state_bias` (a label cap that can bind, …), joined; ``None``
    when nothing in the chain drops data."""
    statements = ([_PROJECTION_BIAS] if _after_projection(measurement) else []) + _stated_biases(measurement)
    return "; ".join(dict.fromkeys(statements)) or None


def _stated_biases(node: Any) -> list[str]:
    """The :func:`~opendp_graph.core._bias.state_bias` statements of every transformation in the
    chain behind ``node`` (chains, measure conversions), first to last."""
    found: list[str] = []
    for _ in range(1000):  # a chain is finite; this only guards against a cycle of references
        statement = stated_bias(node)
        if statement is not None:
            found.insert(0, statement)
        record = getattr(node, "__opendp_dict__", None)
        if not isinstance(record, Mapping):
            return found
        name, kwargs = record.get("__function__"), record.get("__kwargs__", {})
        if name in ("make_chain_mt", "make_chain_tt", "make_chain_pm"):
            first = kwargs.get("transformation0", kwargs.get("measurement0"))
            found = _stated_biases(first) + found
            node = kwargs.get("measurement1", kwargs.get("transformation1"))
            continue
        if name in _MEASURE_CONVERSIONS:
            node = kwargs.get("measurement")
            continue
        return found
    return found  # pragma: no cover


_PROJECTION_BIAS = (
    "what the degree projection drops (edges at nodes above θ, and so their partners' degrees): the interval is "
    "around the projected graph's answer. No release measures what it drops: when one person's edges change, "
    "that number changes by up to their degree less θ, without bound unless the domain bounds degrees. For a "
    "person-level total with its bias stated (an upper bound) use dpg.polars.make_private_total"
)


def _after_projection(measurement: Any) -> bool:
    """Whether the measurement's chain goes through a degree projection: a transformation whose
    output metric is the projection's (degree-sequence or padded degree distance)."""
    node = measurement
    for _ in range(1000):  # a chain is finite; this only guards against a cycle of references
        record = getattr(node, "__opendp_dict__", None)
        if not isinstance(record, Mapping):
            return False
        name, kwargs = record.get("__function__"), record.get("__kwargs__", {})
        if name in ("make_chain_mt", "make_chain_tt"):
            first = kwargs.get("transformation0")
            descriptor = getattr(getattr(first, "output_metric", None), "descriptor", None)
            if isinstance(descriptor, (DegreeSequenceDistance, PaddedDegreeDistance)):
                # the projection (the last step of first): it drops edges unless the domain
                # already bounds degrees by θ
                if getattr(_last_step(first), "projection_binds", True):
                    return True
            elif _after_projection(first):
                return True
            node = kwargs.get("measurement1", kwargs.get("transformation1"))
            continue
        if name in _MEASURE_CONVERSIONS:
            node = kwargs.get("measurement")
            continue
        return False
    return False  # pragma: no cover


def _last_step(transformation: Any) -> Any:
    """The last transformation of a chain (``make_chain_tt``'s ``transformation1``, recursively)."""
    for _ in range(1000):
        record = getattr(transformation, "__opendp_dict__", None)
        if not isinstance(record, Mapping) or record.get("__function__") != "make_chain_tt":
            return transformation
        transformation = record.get("__kwargs__", {}).get("transformation1")
    return transformation  # pragma: no cover


def _noise_accuracy_of(name: str, kwargs: Mapping, alpha: float) -> Accuracy:
    input_domain = kwargs.get("input_domain")
    element = _innermost_type(getattr(input_domain, "carrier_type", None))
    if element in OPENDP_INTEGER_TYPES:
        discrete = True
    elif element in _FLOAT_TYPES:
        discrete = False
    else:
        raise TypeError(f"{name} on values of type {element}: only integer and float data are supported")
    k = kwargs.get("k")
    if k is not None and not discrete:
        raise TypeError(
            f"{name} was built with an explicit noise granularity k={k!r} on float data: its noise lives on a "
            "lattice of 2^k and its error includes rounding to it; build it with k=None (OpenDP's default)"
        )
    bounds = kwargs.get("bounds")
    if bounds is not None:
        # OpenDP clamps a bounded geometric's output to ``bounds``: a true value outside them is
        # released at the nearer bound whatever the noise, so no half-width of the noise covers it,
        # and whether it lies inside is a fact of the private data.
        raise TypeError(
            f"{name} was built with bounds={tuple(bounds)!r}: its releases are clamped to them, so a true value "
            "outside the bounds is never covered and the error is not the noise's alone; build it without bounds "
            "(OpenDP's default) to state its accuracy"
        )
    scale = float(kwargs["scale"])
    family = "gaussian" if name in ("make_gaussian", "make_gaussian_threshold") else "laplace"
    noise = ("discrete_" if discrete else "") + family
    threshold = kwargs.get("threshold") if name in ("make_laplace_threshold", "make_gaussian_threshold") else None
    return noise_accuracy(noise, scale, alpha, mechanism=name, threshold=threshold)


def noise_accuracy(noise: str, scale: float, alpha: float, *, mechanism: str, threshold: Any = None) -> Accuracy:
    """:class:`Accuracy` of one OpenDP noise of the given law and scale (the arithmetic of
    :func:`accuracy`, for releases that state their own noise: :class:`ChoiceAccuracy`)."""
    alpha = _check_alpha(alpha)
    name = mechanism
    if noise not in _NOISES:
        raise ValueError(f"noise must be one of {_NOISES}, got {noise!r}")
    discrete = noise.startswith("discrete_")
    if scale == 0:  # no noise: every entry is exact (OpenDP's discrete Laplace formula is NaN there)
        opendp_accuracy, half_width = 0.0, (0 if discrete else 0.0)
    elif noise == "laplace":
        opendp_accuracy = float(dp.laplacian_scale_to_accuracy(scale, alpha))
        half_width = opendp_accuracy
    elif noise == "gaussian":
        opendp_accuracy = float(dp.gaussian_scale_to_accuracy(scale, alpha))
        half_width = opendp_accuracy
    elif noise == "discrete_laplace":
        opendp_accuracy = float(dp.discrete_laplacian_scale_to_accuracy(scale, alpha))
        if math.isfinite(opendp_accuracy):
            half_width = max(0, math.floor(opendp_accuracy))
        else:  # OpenDP 0.16 gives -inf at tiny scales: the least h with Pr[|Z| > h] = 2q^(h+1)/(1+q) ≤ alpha
            q = math.exp(-1.0 / scale)
            half_width = 0 if q == 0 else max(0, math.ceil(math.log(alpha * (1 + q) / 2) / math.log(q) - 1))
    else:
        opendp_accuracy = float(dp.discrete_gaussian_scale_to_accuracy(scale, alpha))
        half_width = math.ceil(opendp_accuracy) - 1
    return Accuracy(
        noise=noise,
        scale=scale,
        alpha=alpha,
        half_width=half_width,
        opendp_accuracy=opendp_accuracy,
        mechanism=name,
        threshold=threshold,
    )
