"""The bottom layer: the :class:`Graph` container and its builders, the graph domain, the
neighbour metrics, and the shared checks and compiled kernels. Nothing here imports another layer
of the package (see ``docs/architecture.md``).

* :mod:`.graph`: :class:`Graph`, an immutable simple undirected graph with optional public node
  ids and edge labels;
* :mod:`.domains`: :func:`graph_domain` and its descriptor :class:`GraphDomain`;
* :mod:`.metrics`: the neighbour notions as OpenDP metrics (edge, node, group, edge-label,
  node-insertion, degree-sequence distances) and :class:`MetricDescriptor`, the capabilities a
  stability rule may ask of a metric.

Each ``__all__`` of the package lists its own module's public names; the top-level namespace
(``opendp_graph/__init__.py``) names the ones it lifts to ``dpg.<name>``.
"""

from . import metrics
from .domains import GraphDomain, graph_domain, graph_domain_descriptor
from .graph import MAX_NUM_NODES, Graph
from .metrics import *  # noqa: F403  (the metrics module's __all__)

__all__ = ["Graph", "MAX_NUM_NODES", "GraphDomain", "graph_domain", "graph_domain_descriptor", *metrics.__all__]
