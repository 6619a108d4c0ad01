"""OpenDP's thresholded Laplace and Gaussian with the δ corrected for integer counts.

All noise still comes from OpenDP: these wrappers call OpenDP's ``make_laplace_threshold`` and
``make_gaussian_threshold`` for the release and change only what is *claimed* about it. They
carry names of their own (``make_corrected_*``) because their privacy maps differ from OpenDP's
constructors of the same mechanism: the same name with another guarantee would be a trust
problem. OpenDP 0.16 keeps a key whose noisy count is *at least* the threshold but accounts for
the probability that it *exceeds* it, so its δ misses the mass at the threshold itself (upstream:
opendp/opendp#2922). ``docs/threshold_correction.md`` has the reproduction, the exact δ, the proof
and the one-line fix in OpenDP's Rust; when OpenDP ships it, these become OpenDP's own maps at
``threshold − 1``, and conservative by one unit of threshold.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import opendp.prelude as dp

from ..core._checks import OPENDP_INTEGER_TYPES, float_at_most
from ..transformations import then

__all__ = [
    "make_corrected_laplace_threshold",
    "then_corrected_laplace_threshold",
    "calibrate_laplace_threshold",
    "make_corrected_gaussian_threshold",
    "then_corrected_gaussian_threshold",
    "calibrate_gaussian_threshold",
]


def _value_type(input_domain: dp.Domain) -> str:
    carrier = input_domain.carrier_type
    args = getattr(carrier, "args", None)
    if getattr(carrier, "origin", None) != "HashMap" or not args or len(args) != 2:
        raise TypeError(f"input_domain must be a map domain of counts, got {input_domain!r}")
    return str(args[1])


def _one_lower(make, input_domain, input_metric, scale, threshold, k) -> dp.Measurement:
    """OpenDP's thresholded ``make(...)`` at ``threshold``, its privacy map OpenDP's own at
    ``threshold − 1`` (the correction both twins share; each docstring proves it for its noise)."""
    dp.assert_features("contrib", "honest-but-curious")
    value_type = _value_type(input_domain)
    if value_type not in OPENDP_INTEGER_TYPES:
        raise TypeError(
            f"this correction is derived for integer counts, got values of type {value_type}; use OpenDP's {make.__name__} for float values"
        )
    if isinstance(threshold, bool) or not isinstance(threshold, Integral):
        raise TypeError(f"threshold must be an integer, got {threshold!r}")
    if isinstance(scale, bool) or not isinstance(scale, Real):
        raise TypeError(f"scale must be a real number, got {type(scale).__name__} {scale!r}")
    if scale < 0 or not scale < math.inf:  # not 0 <= scale < inf (NaN fails), with scale on the left of the ABC's < and <=
        raise ValueError(f"scale must be non-negative and finite, got {scale!r}")
    release = make(input_domain, input_metric, scale=scale, threshold=threshold, k=k)
    accountant = make(input_domain, input_metric, scale=scale, threshold=threshold - 1, k=k)

    def privacy_map(d_in):
        linf = d_in[2]
        if threshold <= linf:
            raise ValueError(
                f"threshold ({threshold}) must exceed the ℓ∞ distance ({linf}): a key present on one side only "
                "would be released with probability at least 1/2"
            )
        return accountant.map(d_in)

    return dp.m.make_user_measurement(input_domain, input_metric, release.output_measure, function=release, privacy_map=privacy_map)


def make_corrected_laplace_threshold(
    input_domain: dp.Domain, input_metric: dp.Metric, scale: float, threshold: int, k: int | None = None
) -> dp.Measurement:
    """OpenDP's ``make_laplace_threshold`` on integer counts, with a correct δ.

    The release is exactly ``dp.m.make_laplace_threshold(..., threshold=threshold)``: each key's
    count gets OpenDP's discrete Laplace noise and is kept when the noisy count is **at least**
    ``threshold``. OpenDP 0.16's privacy map for that measurement reports
    ``δ = Pr[Z ≥ threshold − ℓ∞ + 1]``, the probability of the *strict* event
    ``count + Z > threshold``; with ``≥`` the probability that a key present on one side only is
    released is ``Pr[Z ≥ threshold − ℓ∞]``, larger by a factor ``e^{1/scale}`` (measured in
    ``tests/measurements/test_measurements.py``: at scale 1 and threshold 3 a key of count 1 is released with
    frequency 0.099 against a reported δ of 0.036).

    **Privacy guarantee.** ``(ε, δ)`` = OpenDP's own map of the same mechanism at threshold
    ``threshold − 1``. On integer counts, ``count + Z ≥ threshold`` is the same event as
    ``count + Z > threshold − 1``, which is the event that OpenDP's map accounts for at
    ``threshold − 1``; ε (from the keys present on both sides) does not depend on the threshold.
    If a later OpenDP release fixes its map, this one is conservative by ``e^{1/scale}`` in δ.

    :param input_domain: a map domain ``str → integer`` (e.g. from :func:`~opendp_graph.make_label_count_map`).
    :param input_metric: ``l01inf_distance(absolute_distance(T=...))``.
    :param scale: noise scale, as in OpenDP.
    :param threshold: keep keys whose noisy count is at least this (an integer).
    :param k: OpenDP's noise granularity, as in OpenDP.

    :example:

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> space = dpg.graph_domain(labeled=True), dpg.edge_distance()
    >>> union = space >> dpg.then_label_count_map(1) >> dpg.then_corrected_laplace_threshold(scale=1.0, threshold=10)
    >>> eps, delta = union.map(1)
    >>> naive = space >> dpg.then_label_count_map(1) >> dp.m.then_laplace_threshold(scale=1.0, threshold=10)
    >>> round(delta / naive.map(1)[1], 4)  # e^{1/scale}
    2.7183
    """
    return _one_lower(dp.m.make_laplace_threshold, input_domain, input_metric, scale, threshold, k)


then_corrected_laplace_threshold = then(make_corrected_laplace_threshold)


def calibrate_laplace_threshold(count_map: dp.Transformation, d_in, epsilon: float, delta: float) -> tuple[float, int]:
    """The ``(scale, threshold)`` at which ``count_map >> then_corrected_laplace_threshold(scale, threshold)``
    spends at most ``(epsilon, delta)`` for input distance ``d_in``: the smallest such scale, then
    the smallest threshold at that scale.

    ``dp.binary_search_param(make_chain, d_in, (ε, δ))`` cannot do this in OpenDP 0.16: a check
    against a pair raises ("unknown ordering") where the map's ε is larger and its δ smaller than
    the target's, which is where the search starts. So this searches each parameter with OpenDP's
    own ``dp.binary_search``, on one component of the map at a time: ε (which does not depend on
    the threshold) for the scale, then δ (decreasing in the threshold) for the threshold, above the
    ℓ∞ distance where the map is defined. The result is checked against ``(ε, δ)`` with the map
    itself before it is returned.

    :param count_map: a transformation into a map of integer counts under
        ``l01inf_distance`` (e.g. ``space >> dpg.then_label_count_map(c)``).
    :param d_in: the input distance to protect (e.g. ``1``: one edge, one secret).
    :param epsilon: the ε target, ``> 0``.
    :param delta: the δ target, ``0 < delta < 1``.

    :example:

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> count_map = (dpg.graph_domain(labeled=True), dpg.edge_distance()) >> dpg.then_label_count_map(1)
    >>> scale, threshold = dpg.measurements.calibrate_laplace_threshold(count_map, 1, 1.0, 1e-6)
    >>> scale, threshold
    (1.0, 15)
    >>> eps, delta = (count_map >> dpg.then_corrected_laplace_threshold(scale, threshold)).map(1)
    >>> eps <= 1.0 and delta <= 1e-6
    True
    """
    return _calibrate(then_corrected_laplace_threshold, "Laplace", "epsilon", count_map, d_in, epsilon, delta)


def make_corrected_gaussian_threshold(
    input_domain: dp.Domain, input_metric: dp.Metric, scale: float, threshold: int, k: int | None = None
) -> dp.Measurement:
    """OpenDP's ``make_gaussian_threshold`` on integer counts, with a correct δ: the Gaussian
    twin of :func:`make_corrected_laplace_threshold` (DP set union with zCDP accounting).

    The release is exactly ``dp.m.make_gaussian_threshold(..., threshold=threshold)``: each key's
    count gets OpenDP's discrete Gaussian noise ``Z`` (``Pr[Z = z] ∝ exp(−z²/2σ²)``, ``σ =
    scale``) and is kept when the noisy count is **at least** ``threshold``. OpenDP 0.16's map
    reports ``(ρ, δ)`` with ``δ = 1 − (1 − Pr[N ≥ threshold − ℓ∞])^ℓ0`` for a *continuous*
    normal ``N`` of the same ``σ``; a key of count ``ℓ∞`` present on one side only is released
    with probability ``Pr[Z ≥ threshold − ℓ∞]``, which is larger (measured in
    ``tests/measurements/test_gaussian_threshold.py``: at scale 1 and threshold 3 a key of count 1
    is released with frequency 0.059 against a reported δ of 0.023).

    **Privacy guarantee.** ``(ρ, δ)`` = OpenDP's own map of the same mechanism at threshold
    ``threshold − 1``: ``ρ`` (from the ℓ2 distance of the keys present on both sides) does not
    depend on the threshold, and for ``m ≥ 1``, ``Pr[Z ≥ m] ≤ Pr[N ≥ m − 1]``. Proof: the
    numerator ``Σ_{k≥m} e^{−k²/2σ²} ≤ ∫_{m−1}^∞ e^{−x²/2σ²} dx`` (each term is at most the
    integral over ``[k − 1, k]``, where the integrand is decreasing), and the normaliser
    ``Σ_{k∈ℤ} e^{−k²/2σ²} = σ√(2π) · Σ_{j∈ℤ} e^{−2π²σ²j²} ≥ σ√(2π)`` (Poisson summation). So
    each key's term of OpenDP's map at ``threshold − 1`` bounds the true probability at
    ``threshold``, and OpenDP's combination of the ``ℓ0`` keys' terms is increasing in each. The cost of the correction is
    one unit of threshold, ``1/σ`` standard deviations.

    :param input_domain: a map domain ``str → integer`` (e.g. from
        :func:`~opendp_graph.make_label_count_map` with ``output_metric=dp.l02inf_distance(...)``).
    :param input_metric: ``l02inf_distance(absolute_distance(T=...))``.
    :param scale: the discrete Gaussian's σ, as in OpenDP.
    :param threshold: keep keys whose noisy count is at least this (an integer).
    :param k: OpenDP's noise granularity, as in OpenDP.

    :example:

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> space = dpg.graph_domain(labeled=True), dpg.edge_distance()
    >>> l2 = dp.l02inf_distance(dp.absolute_distance(T=dp.f64))
    >>> union = space >> dpg.then_label_count_map(50, output_metric=l2) >> dpg.then_corrected_gaussian_threshold(scale=30.0, threshold=250)
    >>> rho, delta = union.map(1)  # one edge: ℓ2 = √50
    >>> round(rho, 4), delta < 1e-6
    (0.0278, True)
    """
    return _one_lower(dp.m.make_gaussian_threshold, input_domain, input_metric, scale, threshold, k)


then_corrected_gaussian_threshold = then(make_corrected_gaussian_threshold)


def calibrate_gaussian_threshold(count_map: dp.Transformation, d_in, rho: float, delta: float) -> tuple[float, int]:
    """The ``(scale, threshold)`` at which ``count_map >> then_corrected_gaussian_threshold(scale, threshold)``
    spends at most ``(rho, delta)`` (OpenDP's ``approximate(zero_concentrated_divergence)``) for
    input distance ``d_in``: the smallest such scale, then the smallest threshold at that scale,
    each found with OpenDP's ``dp.binary_search`` on one component of the map (as
    :func:`calibrate_laplace_threshold`).

    For an ``(ε, δ)`` target, convert with OpenDP: ``dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(m),
    δ_total)`` states ``(ε, δ_total)`` of the release ``m``; choose ``rho`` and the threshold's
    ``delta`` so that it meets yours (e.g. half of ``δ`` to each).

    :param count_map: a transformation into a map of integer counts under ``l02inf_distance``.
    :param d_in: the input distance to protect.
    :param rho: the zCDP target, ``> 0``.
    :param delta: the threshold's δ target, ``0 < delta < 1``.

    :example:

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> l2 = dp.l02inf_distance(dp.absolute_distance(T=dp.f64))
    >>> count_map = (dpg.graph_domain(labeled=True), dpg.edge_distance()) >> dpg.then_label_count_map(50, output_metric=l2)
    >>> scale, threshold = dpg.calibrate_gaussian_threshold(count_map, 1, 0.05, 1e-6)
    >>> round(scale, 2), threshold
    (22.36, 125)
    """
    return _calibrate(then_corrected_gaussian_threshold, "Gaussian", "rho", count_map, d_in, rho, delta)


def _calibrate(then_threshold, noise: str, budget_name: str, count_map, d_in, budget, delta) -> tuple[float, int]:
    """The calibration both twins share: the smallest scale whose map's first component (ε or ρ,
    which does not depend on the threshold) meets ``budget``, then the smallest threshold whose δ
    meets ``delta``, each with OpenDP's ``dp.binary_search``; checked against the map itself."""
    dp.assert_features("contrib", "honest-but-curious")
    if not isinstance(count_map, dp.Transformation):
        raise TypeError(f"count_map must be an OpenDP Transformation into a map of counts, got {type(count_map).__name__}")
    for name, value in ((budget_name, budget), ("delta", delta)):
        if isinstance(value, bool) or not isinstance(value, Real):
            raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    if not 0 < budget < math.inf:
        raise ValueError(f"{budget_name} must be positive and finite, got {budget!r}")
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    budget, delta = float_at_most(budget), float_at_most(delta)  # never more than asked
    _value_type(count_map.output_domain)
    wanted = "L02InfDistance" if noise == "Gaussian" else "L01InfDistance"
    if not str(count_map.output_metric.type).startswith(wanted):
        raise TypeError(
            f"the thresholded {noise} takes a count map under {wanted} (then_label_count_map's output_metric), got {count_map.output_metric}"
        )
    linf = count_map.map(d_in)[2]
    if linf == 0:
        raise ValueError(f"the count map does not change at d_in = {d_in!r}: there is nothing to calibrate")
    lowest = int(math.floor(linf)) + 1  # the map is defined above the ℓ∞ distance

    def chain(scale: float, threshold: int) -> dp.Measurement:
        return count_map >> then_threshold(scale=scale, threshold=threshold)

    scale = dp.binary_search(lambda s: chain(s, lowest).map(d_in)[0] <= budget, bounds=(0.0, None), T=float)

    def delta_ok(t: int) -> bool:
        return chain(scale, t).map(d_in)[1] <= delta

    # the search needs the boundary above its lower bound: at a large budget the lowest threshold may do
    if delta_ok(lowest):
        threshold = lowest
    else:
        try:
            threshold = dp.binary_search(delta_ok, bounds=(lowest, None), T=int)  # type: ignore[arg-type, assignment]  # OpenDP 0.16 types it for floats only (T=int searches ints)
        except ValueError:  # no threshold reaches it: OpenDP's map has a floor on δ
            raise ValueError(
                f"no threshold gives delta <= {delta!r} at scale {scale!r}: OpenDP's map of the thresholded {noise} "
                "cannot certify a delta this small; ask for a larger delta"
            ) from None
    spent = chain(scale, threshold).map(d_in)
    if not (spent[0] <= budget and spent[1] <= delta):  # pragma: no cover - the searches guarantee it
        raise RuntimeError(f"calibration failed: {spent} exceeds {(budget, delta)}")
    return scale, threshold
