"""Top-k properties without a public candidate list: a DP candidate set, then noisy top-k on it.

With a public vocabulary, the top ``k`` properties are one OpenDP chain::

    space >> dpg.then_label_counts(c, vocabulary, output_metric=dp.linf_distance(T=dp.i64, monotonic=True))
          >> dp.m.then_noisy_top_k(dp.max_divergence(), k=k, scale=s)

(see :func:`~opendp_graph.make_label_counts`, *Top-k*). Without one — the properties themselves
are private, as the words of e-mail subjects are — :func:`make_candidate_top_k` composes two
releases with OpenDP's adaptive compositor: the thresholded set union (which properties are
common) and report-noisy-max over the released candidates.
"""

from __future__ import annotations

from numbers import Integral

import opendp.prelude as dp

from ..core._checks import positive_integer
from ..core.metrics import metric_descriptor
from ..transformations import then
from ..transformations.labels import then_label_count_map, then_label_counts
from .threshold import then_corrected_gaussian_threshold, then_corrected_laplace_threshold

__all__ = ["make_candidate_top_k", "then_candidate_top_k"]

_MONOTONIC = dp.linf_distance(T=dp.i64, monotonic=True)
_LINF = dp.linf_distance(T=dp.i64)


def _stage_2_metric(input_domain, input_metric, c: int, probe, d_in):
    """Stage 2's output metric: monotonic L∞ where the input metric proves it at ``d_in`` (half
    the noisy top-k's ε; one unit only), else L∞. Decided once, from public arguments."""
    try:
        counts = (input_domain, input_metric) >> then_label_counts(c, probe, output_metric=_MONOTONIC)
        counts.map(d_in)
        return _MONOTONIC
    except (ValueError, dp.OpenDPException):
        return _LINF


# long: docstring (its guarantee, parameters and refusals) beside code of under 100 lines
def make_candidate_top_k(
    input_domain: dp.Domain,
    input_metric: dp.Metric,
    d_in,
    max_labels_per_edge: int,
    k: int,
    candidate_scale: float,
    candidate_threshold: int,
    top_k_scale: float,
    noise: str = "laplace",
) -> dp.Measurement:
    """The ``k`` most frequent edge properties, in decreasing noisy order, with no public list
    of candidates: a measurement whose output is a list of at most ``k`` property names.

    **The release** (OpenDP's ``dp.c.make_adaptive_composition`` of two OpenDP measurements on
    the graph, queried in turn by a post-processing function that sees only their outputs):

    1. *candidates*: ``label_count_map(c) >> then_corrected_laplace_threshold(candidate_scale,
       candidate_threshold)``, the DP set union (the properties whose noisy count clears the
       threshold; :func:`~opendp_graph.make_corrected_laplace_threshold`, δ corrected);
    2. *top k*: ``label_counts(c, candidates, output_metric=L∞) >>
       dp.m.then_noisy_top_k(k', top_k_scale)`` with ``k' = min(k, #candidates)``, OpenDP's
       report-noisy-max, on the candidates sorted by name (no private order). Where one unit of
       ``d_in`` moves every count the same way (edge level; a Pufferfish model), the counts use
       ``linf_distance(monotonic=True)``, which halves the noisy top-k's ε.

    No candidate: an empty list, and stage 2 is not run (its budget is still counted).

    **Privacy guarantee.** ``(ε₁ + ε₂, δ₁)`` under ``approximate(max_divergence)`` for input
    distance ``d_in`` (the map is OpenDP's compositor's, defined up to ``d_in``): OpenDP's
    adaptive composition of ``(ε₁, δ₁)`` (stage 1's map) and ``(ε₂, 0)``. Stage 2's budget
    ``ε₂ = k·Δ∞/top_k_scale`` (``2k·Δ∞/top_k_scale`` if not monotonic) is fixed before any data
    is read: it is OpenDP's own map of stage 2 over ``k`` placeholder properties (the model's
    first ``k`` if the metric restricts the vocabulary), and the L∞ (and monotonic) maps of the
    label counts do not depend on which properties are counted (one unit moves each count by at
    most ``Δ∞`` whichever they are: *Top-k* in :func:`~opendp_graph.make_label_counts`), so every
    stage 2 the candidates can produce fits it (``k' ≤ k`` only lowers OpenDP's map); OpenDP's
    compositor checks each query against it. The monotonic bound is used only where it holds at
    ``d_in`` (one unit), else plain L∞. Stage 2's vocabulary is a function of stage 1's
    release only (post-processing), which is what adaptive composition allows. Under a relaxed
    Pufferfish metric wrap the result in
    :func:`~opendp_graph.pufferfish.make_pufferfish_approximate`.

    **Accuracy.** A property of true count ``x`` is a candidate with probability
    ``dpg.accuracy(stage_1).release_probability(x)``; among candidates, report-noisy-max keeps
    each of the top ``k`` when its count leads the rest by a few ``top_k_scale``. Split ε towards
    stage 1 when the top counts are near the threshold, towards stage 2 when they are close to
    each other.

    :param input_domain: a labeled graph domain.
    :param input_metric: any metric with label rules (edge, group, node, edge-label, Blowfish,
        Pufferfish).
    :param d_in: the input distance the budget is stated for (e.g. ``1``; above ``1`` stage 2
        uses plain L∞, twice the ε, since two units can move counts both ways).
    :param max_labels_per_edge: ``c``, properties one edge contributes (both stages; not applied
        under a Pufferfish metric).
    :param k: how many properties to release, ``≥ 1``.
    :param candidate_scale: stage 1's noise scale.
    :param candidate_threshold: stage 1's threshold (an integer above stage 1's ℓ∞ distance).
    :param top_k_scale: stage 2's noise scale.
    :param noise: ``"laplace"`` (default: the release above, ``(ε, δ)``) or ``"gaussian"``: the
        zCDP twin, stated as ``(ρ, δ)`` under ``approximate(zero_concentrated_divergence)``.
        Stage 1 is then ``label_count_map(c, output_metric=l02inf_distance) >>``
        :func:`~opendp_graph.then_corrected_gaussian_threshold` (``(ρ₁, δ₁)``, δ corrected) and stage 2
        OpenDP's noisy top-k with ``zero_concentrated_divergence()`` (``ρ₂ = k·(Δ∞/scale)²/8``
        monotonic, four times that otherwise: OpenDP's map); OpenDP's adaptive compositor adds
        ``ρ₁ + ρ₂`` and ``δ₁``, and ``dp.c.make_zCDP_to_approxDP`` turns the whole into ``(ε,
        δ)``. The argument above is unchanged: it uses only that stage 2's map is fixed from
        public arguments and does not depend on which properties are counted.

    :example:

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> g = dpg.Graph.from_edges(range(40), range(1, 41), labels=[["gas", "power"]] * 30 + [["lunch"]] * 10)
    >>> top = dpg.make_candidate_top_k(dpg.graph_domain(labeled=True), dpg.edge_distance(), 1,
    ...                                max_labels_per_edge=2, k=2, candidate_scale=2.0,
    ...                                candidate_threshold=20, top_k_scale=4.0)
    >>> eps, delta = top.map(1)   # stage 1: ℓ1 = 2 at scale 2; stage 2: monotonic, k·1/4
    >>> round(eps, 6), delta < 1e-3
    (1.5, True)
    >>> set(top(g)) <= {"gas", "power", "lunch"}
    True
    >>> zcdp = dpg.make_candidate_top_k(dpg.graph_domain(labeled=True), dpg.edge_distance(), 1,
    ...                                 max_labels_per_edge=2, k=2, candidate_scale=2.0,
    ...                                 candidate_threshold=20, top_k_scale=4.0, noise="gaussian")
    >>> rho, delta = zcdp.map(1)  # stage 1: ℓ2 = √2 at σ = 2 (ρ = 2/8); stage 2: 2·(1/4)²/8
    >>> round(rho, 6), delta < 1e-3
    (0.265625, True)
    """
    dp.assert_features("contrib", "honest-but-curious")
    c = positive_integer("max_labels_per_edge", max_labels_per_edge)
    k = positive_integer("k", k)
    if isinstance(candidate_threshold, bool) or not isinstance(candidate_threshold, Integral):
        raise TypeError(f"candidate_threshold must be an integer, got {candidate_threshold!r}")
    if noise not in ("laplace", "gaussian"):
        raise ValueError(f'noise must be "laplace" or "gaussian", got {noise!r}')
    if noise == "laplace":
        candidates = (
            (input_domain, input_metric)
            >> then_label_count_map(c)
            >> then_corrected_laplace_threshold(scale=candidate_scale, threshold=candidate_threshold)
        )
        stage_2_measure, measure = dp.max_divergence(), dp.approximate(dp.max_divergence())
    else:
        l02inf = dp.l02inf_distance(dp.absolute_distance(T=dp.f64))
        candidates = (
            (input_domain, input_metric)
            >> then_label_count_map(c, output_metric=l02inf)
            >> then_corrected_gaussian_threshold(scale=candidate_scale, threshold=candidate_threshold)
        )
        stage_2_measure = dp.zero_concentrated_divergence()
        measure = dp.approximate(stage_2_measure)
    # stage 2's budget, fixed now: OpenDP's own map of the noisy top-k over k properties the
    # metric may count (fewer if its vocabulary is smaller, and then so is every candidate list);
    # the L∞ maps do not depend on which properties are counted (docstring), and a smaller k'
    # only lowers OpenDP's map, so every stage 2 the candidates can produce fits it
    restriction = metric_descriptor(input_metric).vocabulary
    probe = list(restriction[:k]) if restriction is not None else [f"_{i}" for i in range(k)]
    if not probe:
        raise ValueError("the input metric's model describes no property: there is nothing to rank")
    metric_2 = _stage_2_metric(input_domain, input_metric, c, probe, d_in)

    def stage_2(vocabulary: list[str], chosen: int) -> dp.Measurement:
        counts = (input_domain, input_metric) >> then_label_counts(c, vocabulary, output_metric=metric_2)
        return counts >> dp.m.then_noisy_top_k(stage_2_measure, k=chosen, scale=top_k_scale)

    epsilon_1, delta_1 = candidates.map(d_in)
    epsilon_2 = stage_2(probe, len(probe)).map(d_in)
    compositor = dp.c.make_adaptive_composition(input_domain, input_metric, measure, d_in=d_in, d_mids=[(epsilon_1, delta_1), (epsilon_2, 0.0)])

    def run_both(queryable) -> list[str]:
        released = queryable(candidates)
        names = sorted(released)
        if not names:
            return []
        release = stage_2(names, min(k, len(names)))
        return [names[i] for i in queryable(dp.c.make_approximate(release))]

    return compositor >> dp.new_function(run_both, TO="ExtrinsicObject")


# the then_ forms (OpenDP's convention: every make_x of (input_domain, input_metric, ...) has one)
then_candidate_top_k = then(make_candidate_top_k)
