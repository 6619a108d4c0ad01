"""Measurements: releases of the stable queries with OpenDP's noise, and what to expect of them.

* :mod:`.threshold`: :func:`make_corrected_laplace_threshold` and :func:`make_corrected_gaussian_threshold`,
  OpenDP's thresholded Laplace and Gaussian with a correct δ, and their calibrations;
* :mod:`.top_k`: :func:`make_candidate_top_k`, the most frequent properties among public
  candidates;
* :mod:`.subgraph_counts`: node-level triangle, k-star and 4-cycle counts with the cap chosen by
  a sparse-vector scan (:func:`make_private_subgraph_count`);
* :mod:`.ladder`: edge-level triangle counts by the Ladder mechanism
  (:func:`make_ladder_triangle_count`), the noise following the graph's local sensitivity;
* :mod:`.degree_distribution`: the node-level degree distribution with its projection bound
  chosen under DP (:func:`make_private_degree_distribution`) and its post-processing;
* :mod:`.accuracy`: the noise of a release as a half-width (:class:`Accuracy`,
  :func:`summarize`; the function is ``dpg.accuracy``, lifted from that module);
* :mod:`.release`: a release whose refusals read as themselves, not as an FFI trace (the
  function is ``dpg.release``, lifted from that module like ``dpg.accuracy``);
* ``._context``: the graph queries in OpenDP's Context API (``dpg.context``).

All noise comes from OpenDP measurements. The top-level namespace lifts these names to
``dpg.<name>``. The module :mod:`.accuracy` keeps its name here: its function ``accuracy`` is
``dpg.accuracy`` and is not lifted into this package, so no name stands for both a module and a
function.
"""

from ._context import context, register_with_context, zcdp_budget
from ._summary import summarize
from .accuracy import Accuracy, ChoiceAccuracy
from .degree_distribution import (
    DegreeDistributionRelease,
    degree_distribution_noise,
    fit_degree_histogram,
    histogram_from_cumulative,
    make_histogram_from_cumulative,
    make_private_degree_distribution,
    then_private_degree_distribution,
)
from .ladder import make_ladder_triangle_count, then_ladder_triangle_count, triangle_sensitivity_ladder
from .subgraph_counts import (
    SubgraphCountRelease,
    contribution_bound,
    default_threshold,
    make_cap_scan,
    make_private_subgraph_count,
    then_cap_scan,
    then_private_subgraph_count,
)
from .threshold import (
    calibrate_gaussian_threshold,
    calibrate_laplace_threshold,
    make_corrected_gaussian_threshold,
    make_corrected_laplace_threshold,
    then_corrected_gaussian_threshold,
    then_corrected_laplace_threshold,
)
from .top_k import make_candidate_top_k, then_candidate_top_k

__all__ = [
    "Accuracy",
    "ChoiceAccuracy",
    "summarize",
    "context",
    "register_with_context",
    "zcdp_budget",
    "DegreeDistributionRelease",
    "degree_distribution_noise",
    "fit_degree_histogram",
    "histogram_from_cumulative",
    "make_histogram_from_cumulative",
    "make_private_degree_distribution",
    "then_private_degree_distribution",
    "calibrate_laplace_threshold",
    "calibrate_gaussian_threshold",
    "make_corrected_gaussian_threshold",
    "then_corrected_gaussian_threshold",
    "make_corrected_laplace_threshold",
    "then_corrected_laplace_threshold",
    "make_candidate_top_k",
    "then_candidate_top_k",
    "make_ladder_triangle_count",
    "then_ladder_triangle_count",
    "triangle_sensitivity_ladder",
    "SubgraphCountRelease",
    "contribution_bound",
    "default_threshold",
    "make_cap_scan",
    "then_cap_scan",
    "make_private_subgraph_count",
    "then_private_subgraph_count",
]
