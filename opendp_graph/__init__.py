"""opendp-graph: differential privacy on graphs, in OpenDP's own terms.

>>> import opendp.prelude as dp
>>> import opendp_graph as dpg
>>> dp.enable_features("contrib", "honest-but-curious")
>>> space = dpg.graph_domain(), dpg.edge_distance()
>>> meas = space >> dpg.then_degree_histogram(max_degree=100) >> dp.m.then_laplace(scale=4.0)
>>> meas.map(1)
1.0
"""

from . import transformations
from .domains import GraphDomain, graph_domain
from .graph import Graph
from .metrics import (
    DegreeSequenceDistance,
    EdgeDistance,
    EdgeLabelDistance,
    GroupDistance,
    MetricDescriptor,
    NodeDistance,
    NodeInsertionDistance,
    PaddedDegreeDistance,
    degree_sequence_distance,
    edge_distance,
    edge_label_distance,
    group_distance,
    node_distance,
    node_insertion_distance,
    padded_degree_distance,
)
from .transformations import (
    make_cumulative_degree_histogram,
    make_degree_histogram,
    make_degree_projection,
    make_edge_count,
    make_label_count_map,
    make_label_counts,
    make_triangle_count,
    make_degree_tail_counts,
    then_cumulative_degree_histogram,
    then_degree_tail_counts,
    then_degree_histogram,
    then_degree_projection,
    then_edge_count,
    then_label_count_map,
    then_label_counts,
    then_triangle_count,
)
from .node_degrees import (
    DegreeDistributionRelease,
    degree_distribution_noise,
    fit_degree_histogram,
    histogram_from_cumulative,
    make_histogram_from_cumulative,
    make_private_degree_distribution,
)
from .measurements import calibrate_laplace_threshold, make_laplace_threshold, then_laplace_threshold
from ._context import context, register_with_context
from .top_k import make_candidate_top_k
# ``dpg.accuracy`` is the function; the module is ``sys.modules["opendp_graph.accuracy"]``
from .accuracy import Accuracy, accuracy, summarize

# Each subpackage lifts the names in its ``__all__`` to ``dpg.<name>``; the rest stays under
# ``dpg.<subpackage>.<name>``.
from . import audit, blowfish, datasets, experiments, interpret, polars, pufferfish  # noqa: E402
from .blowfish import *  # noqa: E402,F401,F403
from .pufferfish import *  # noqa: E402,F401,F403
from .interpret import *  # noqa: E402,F401,F403
from .audit import *  # noqa: E402,F401,F403
from .polars import *  # noqa: E402,F401,F403

__version__ = "0.1.0.dev0"


def __getattr__(name: str):
    # ``dpg.spark`` is imported on first use only (it needs the optional pyspark, which it imports
    # lazily itself): nothing else in the package imports it.
    if name == "spark":
        import importlib

        return importlib.import_module(".spark", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


register_with_context()
