"""opendp-graph: differential privacy on graphs, in OpenDP's own terms.

>>> import opendp.prelude as dp
>>> import opendp_graph as dpg
>>> dp.enable_features("contrib", "honest-but-curious")
>>> space = dpg.graph_domain(), dpg.edge_distance()
>>> meas = space >> dpg.then_degree_histogram(max_degree=100) >> dp.m.then_laplace(scale=4.0)
>>> meas.map(1)
1.0

The package is layered (``docs/architecture.md``): :mod:`.core` (the graph, its domain and
metrics) → :mod:`.transformations` (stable queries and their rule table) → :mod:`.measurements`
→ the privacy notions :mod:`.blowfish` and :mod:`.pufferfish` → :mod:`.interpret` and
:mod:`.verify` → the adapters :mod:`.polars`, :mod:`.spark`, :mod:`.datasets` and :mod:`.text`. This module
lifts the most used names to ``dpg.<name>``, each named below; every ``__all__`` of the package
lists the public names of its own module. ``dpg.spark`` and ``dpg.text`` are imported on first
use only. (The papers' reproductions are not part of the package: ``python -m reproductions NAME``
runs them from a clone of the repository.)
"""

from . import blowfish, core, datasets, interpret, measurements, polars, pufferfish, transformations, verify
from .blowfish import (
    BlowfishDistance,
    BlowfishPolicy,
    blowfish_distance,
    make_standard_degree_histogram,
    make_vip_standard_histogram,
    then_standard_degree_histogram,
    then_vip_standard_histogram,
)
from .core import (
    DegreeSequenceDistance,
    EdgeDistance,
    EdgeLabelDistance,
    Graph,
    GraphDomain,
    GroupDistance,
    MetricDescriptor,
    NodeDistance,
    NodeInsertionDistance,
    PaddedDegreeDistance,
    degree_sequence_distance,
    edge_distance,
    edge_label_distance,
    graph_domain,
    group_distance,
    node_distance,
    node_insertion_distance,
    padded_degree_distance,
)
from .interpret import NoiseChoice, choose_noise
from .measurements import (
    Accuracy,
    ChoiceAccuracy,
    DegreeDistributionRelease,
    calibrate_gaussian_threshold,
    calibrate_laplace_threshold,
    context,
    degree_distribution_noise,
    fit_degree_histogram,
    histogram_from_cumulative,
    make_candidate_top_k,
    make_corrected_gaussian_threshold,
    make_corrected_laplace_threshold,
    make_histogram_from_cumulative,
    make_ladder_triangle_count,
    make_private_degree_distribution,
    make_private_subgraph_count,
    register_with_context,
    summarize,
    then_candidate_top_k,
    then_corrected_gaussian_threshold,
    then_corrected_laplace_threshold,
    then_ladder_triangle_count,
    then_private_degree_distribution,
    then_private_subgraph_count,
    zcdp_budget,
)
from .measurements.accuracy import accuracy
from .measurements.release import release
from .pufferfish import PufferfishDistance, pufferfish_distance
from .transformations import (
    make_capped_subgraph_count,
    make_clipped_label_counts,
    make_cumulative_degree_histogram,
    make_degree_histogram,
    make_degree_projection,
    make_degree_tail_counts,
    make_edge_count,
    make_label_count_map,
    make_label_counts,
    make_triangle_count,
    subgraph_count,
    then_capped_subgraph_count,
    then_clipped_label_counts,
    then_cumulative_degree_histogram,
    then_degree_histogram,
    then_degree_projection,
    then_degree_tail_counts,
    then_edge_count,
    then_label_count_map,
    then_label_counts,
    then_triangle_count,
)

__version__ = "0.1.0"

__all__ = [
    # core
    "Graph",
    "GraphDomain",
    "graph_domain",
    "EdgeDistance",
    "NodeDistance",
    "NodeInsertionDistance",
    "GroupDistance",
    "EdgeLabelDistance",
    "DegreeSequenceDistance",
    "PaddedDegreeDistance",
    "MetricDescriptor",
    "edge_distance",
    "node_distance",
    "node_insertion_distance",
    "group_distance",
    "edge_label_distance",
    "degree_sequence_distance",
    "padded_degree_distance",
    # transformations
    "make_edge_count",
    "then_edge_count",
    "make_degree_histogram",
    "then_degree_histogram",
    "make_cumulative_degree_histogram",
    "then_cumulative_degree_histogram",
    "make_degree_tail_counts",
    "then_degree_tail_counts",
    "make_triangle_count",
    "then_triangle_count",
    "make_capped_subgraph_count",
    "then_capped_subgraph_count",
    "subgraph_count",
    "make_clipped_label_counts",
    "then_clipped_label_counts",
    "make_label_counts",
    "then_label_counts",
    "make_label_count_map",
    "then_label_count_map",
    "make_degree_projection",
    "then_degree_projection",
    # measurements
    "make_corrected_laplace_threshold",
    "then_corrected_laplace_threshold",
    "calibrate_laplace_threshold",
    "make_candidate_top_k",
    "then_candidate_top_k",
    "make_corrected_gaussian_threshold",
    "then_corrected_gaussian_threshold",
    "calibrate_gaussian_threshold",
    "make_private_degree_distribution",
    "then_private_degree_distribution",
    "make_private_subgraph_count",
    "then_private_subgraph_count",
    "make_ladder_triangle_count",
    "then_ladder_triangle_count",
    "DegreeDistributionRelease",
    "degree_distribution_noise",
    "fit_degree_histogram",
    "histogram_from_cumulative",
    "make_histogram_from_cumulative",
    "accuracy",
    "Accuracy",
    "ChoiceAccuracy",
    "summarize",
    "context",
    "register_with_context",
    "zcdp_budget",
    "release",
    "choose_noise",
    "NoiseChoice",
    # privacy notions
    "BlowfishPolicy",
    "BlowfishDistance",
    "blowfish_distance",
    "make_standard_degree_histogram",
    "then_standard_degree_histogram",
    "make_vip_standard_histogram",
    "then_vip_standard_histogram",
    "PufferfishDistance",
    "pufferfish_distance",
]


def __getattr__(name: str):
    # Imported on first use only: ``dpg.spark`` needs the optional pyspark and ``dpg.text``
    # scikit-learn (each imports them lazily itself).
    if name in ("spark", "text"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


register_with_context()
