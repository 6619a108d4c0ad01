"""``graph_domain`` for graphs on Spark: the same promises, checked by Spark aggregations."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import opendp.prelude as dp

from ..core._distributed import DistributedGraph
from ..core.domains import GraphDomain, graph_domain_descriptor
from ..core.domains import graph_domain as _local_graph_domain

__all__ = ["SparkGraphDomain", "graph_domain", "SPARK_QUERIES"]

# The queries a SparkGraph answers as aggregates (names of the stability rules they resolve).
SPARK_QUERIES = frozenset(
    {
        "edge_count",
        "degree_histogram",
        "cumulative_degree_histogram",
        "degree_histogram_l2",  # the same aggregates, bounded in ℓ2 (issue 30)
        "cumulative_degree_histogram_l2",
        "label_counts",
        "label_count_map",
        "label_counts_monotonic",
    }
)


@dataclass(frozen=True, kw_only=True)
class SparkGraphDomain(GraphDomain):
    """Descriptor of :func:`graph_domain`: a :class:`~opendp_graph.GraphDomain` whose members are
    :class:`~opendp_graph.spark.SparkGraph` values. The stability rules read the same fields, so
    every map equals the single-machine one."""

    def violation(self, value: Any) -> str | None:
        """Why ``value`` is not a member, or ``None``. The promises (``max_degree``,
        ``max_labels_per_edge``) are checked by Spark aggregations (cached on the graph), and,
        as on one machine, a broken promise is reported without the value that broke it."""
        from ._graph import SparkGraph

        if not isinstance(value, SparkGraph):
            return (
                f"expected a SparkGraph (dpg.spark.graph_from_spark), got {type(value).__module__}.{type(value).__name__}; "
                "a Graph belongs to dpg.graph_domain(...)"
            )
        if self.labeled and not value.is_labeled:
            return "the domain is labeled but the graph has no edge labels"
        if not self.labeled and value.is_labeled:
            return "the graph has edge labels but the domain is unlabeled (use graph_domain(labeled=True))"
        if self.num_nodes is not None and value.num_nodes != self.num_nodes:
            return f"the graph's number of nodes is not the domain's num_nodes={self.num_nodes}"  # never the graph's own count
        if self.max_degree is not None and value.max_degree > self.max_degree:
            return f"the graph violates the domain's max_degree={self.max_degree}"
        if self.max_labels_per_edge is not None and value.max_labels_on_an_edge > self.max_labels_per_edge:
            return f"the graph violates the domain's max_labels_per_edge={self.max_labels_per_edge}"
        return None

    def check_member(self, value: Any) -> None:
        problem = self.violation(value)
        if problem is not None:
            raise (TypeError if not isinstance(value, DistributedGraph) else ValueError)(problem)

    def refusal(self, query: str) -> str | None:
        if query in SPARK_QUERIES:
            return None
        return (
            f"{query} cannot run on a Spark graph: it needs the whole graph on one machine, and the Spark path "
            "refuses to collect it to the driver. On Spark: " + ", ".join(sorted(SPARK_QUERIES))
        )


def graph_domain(
    *,
    num_nodes: int | None = None,
    max_degree: int | None = None,
    labeled: bool = False,
    max_labels_per_edge: int | None = None,
) -> dp.Domain:
    """The domain of :class:`~opendp_graph.spark.SparkGraph` values: the arguments, their checks
    and their meaning are those of :func:`opendp_graph.graph_domain` (each promise is enforced
    by the member check before a query reads the graph).

    :example:

    >>> import opendp_graph as dpg
    >>> dpg.spark.graph_domain(labeled=True, max_labels_per_edge=3)
    SparkGraphDomain(num_nodes=None, max_degree=None, labeled=True, max_labels_per_edge=3)
    """
    local = graph_domain_descriptor(
        _local_graph_domain(num_nodes=num_nodes, max_degree=max_degree, labeled=labeled, max_labels_per_edge=max_labels_per_edge)
    )
    descriptor = SparkGraphDomain(
        num_nodes=local.num_nodes, max_degree=local.max_degree, labeled=local.labeled, max_labels_per_edge=local.max_labels_per_edge
    )
    return dp.user_domain(repr(descriptor), member=descriptor.member, descriptor=descriptor)
