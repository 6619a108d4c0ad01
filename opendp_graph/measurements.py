"""Measurements that wrap OpenDP's own, where OpenDP 0.16 needs a correction.

All noise still comes from OpenDP: these wrappers call an OpenDP measurement for the release
and only change what is *claimed* about it.
"""

from __future__ import annotations

from numbers import Integral

import opendp.prelude as dp

from .transformations._core import then

__all__ = ["make_laplace_threshold", "then_laplace_threshold"]

_INTEGER_TYPES = {"i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize"}


def _value_type(input_domain: dp.Domain) -> str:
    carrier = input_domain.carrier_type
    args = getattr(carrier, "args", None)
    if getattr(carrier, "origin", None) != "HashMap" or not args or len(args) != 2:
        raise TypeError(f"input_domain must be a map domain of counts, got {input_domain!r}")
    return str(args[1])


def make_laplace_threshold(
    input_domain: dp.Domain, input_metric: dp.Metric, scale: float, threshold: int, k: int | None = None
) -> dp.Measurement:
    """OpenDP's ``make_laplace_threshold`` on integer counts, with a correct δ.

    The release is exactly ``dp.m.make_laplace_threshold(..., threshold=threshold)``: each key's
    count gets OpenDP's discrete Laplace noise and is kept when the noisy count is **at least**
    ``threshold``. OpenDP 0.16's privacy map for that measurement reports
    ``δ = Pr[Z ≥ threshold − ℓ∞ + 1]``, the probability of the *strict* event
    ``count + Z > threshold``; with ``≥`` the probability that a key present on one side only is
    released is ``Pr[Z ≥ threshold − ℓ∞]``, larger by a factor ``e^{1/scale}`` (measured in
    ``tests/test_measurements.py``: at scale 1 and threshold 3 a key of count 1 is released with
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
    >>> union = space >> dpg.then_label_count_map(1) >> dpg.then_laplace_threshold(scale=1.0, threshold=10)
    >>> eps, delta = union.map(1)
    >>> naive = space >> dpg.then_label_count_map(1) >> dp.m.then_laplace_threshold(scale=1.0, threshold=10)
    >>> round(delta / naive.map(1)[1], 4)  # e^{1/scale}
    2.7183
    """
    dp.assert_features("contrib", "honest-but-curious")
    value_type = _value_type(input_domain)
    if value_type not in _INTEGER_TYPES:
        raise TypeError(
            f"this correction is derived for integer counts, got values of type {value_type}; "
            "use OpenDP's make_laplace_threshold for float values"
        )
    if isinstance(threshold, bool) or not isinstance(threshold, Integral):
        raise TypeError(f"threshold must be an integer, got {threshold!r}")
    release = dp.m.make_laplace_threshold(input_domain, input_metric, scale=scale, threshold=threshold, k=k)
    accountant = dp.m.make_laplace_threshold(input_domain, input_metric, scale=scale, threshold=threshold - 1, k=k)

    def privacy_map(d_in):
        linf = d_in[2]
        if threshold <= linf:
            raise ValueError(
                f"threshold ({threshold}) must exceed the ℓ∞ distance ({linf}): a key present on one side only "
                "would be released with probability at least 1/2"
            )
        return accountant.map(d_in)

    return dp.m.make_user_measurement(
        input_domain, input_metric, release.output_measure, function=release, privacy_map=privacy_map
    )


then_laplace_threshold = then(make_laplace_threshold)
