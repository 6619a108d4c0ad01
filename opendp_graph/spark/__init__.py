"""Graphs on Apache Spark: the same queries and model fits as on one machine, for graphs that no
single machine holds.

Install with ``pip install "opendp-graph[spark]"`` (pyspark 4 and pyarrow; Spark needs Java 17).
Nothing else in the package imports this module, and it imports pyspark only when called.

The division of labour is the one the DP systems on Spark use (PipelineDP, Tumult Analytics):
the *exact* aggregate is computed on Spark, contribution bounds are enforced inside that
aggregation (``c`` labels per edge before any count), only the aggregate (a histogram, a count
per label, the models' neighbourhood histograms) comes back to the driver, and OpenDP adds the
noise and does the accounting there. So a release reads::

    import opendp.prelude as dp, opendp_graph as dpg
    dp.enable_features("contrib", "honest-but-curious")
    graph = dpg.spark.graph_from_spark(edges_df, src="sender", dst="recipient",
                                       labels_df=words_df, label="word")
    meas = (dpg.spark.graph_domain(labeled=True), dpg.edge_distance()) \\
        >> dpg.then_label_count_map(3) >> dpg.then_corrected_laplace_threshold(...)
    release = meas(graph)

**What is the same.** A :class:`SparkGraph` is simple exactly as
:meth:`Graph.from_edges <opendp_graph.Graph.from_edges>` makes a graph simple (unordered pairs,
duplicates merged with their labels united, self-loops refused or dropped), and every aggregate
equals, value for value, the single-machine query on that graph (``tests/spark/test_spark.py`` checks
each on Enron, Deezer and generated graphs). The domain of :func:`graph_domain` has the same
promises (``num_nodes``, ``max_degree``, ``labeled``, ``max_labels_per_edge``) as
:func:`opendp_graph.graph_domain`, checked on Spark before a query reads the graph, and the
constructors resolve their stability maps from the same rules, so every privacy map is the
single-machine one: a guarantee proved for a ``Graph`` holds for the same graph on Spark.

**What runs on Spark.** Edge count, degree histogram, cumulative degree histogram, label counts
(any output metric) and the label count map, under every metric that has a rule for them
(edge, group, node with a degree bound, edge-label, Blowfish, Pufferfish); and the fits of the
three correlation models (``GlobalModel.fit(spark_graph)``, ``ConditionalModel.fit``,
``BinomialModel.fit``, ``fit_all``), whose ``W`` and everything after stay on the driver. Queries
that need the graph itself on one machine (the degree projection, the triangle count, the
Blowfish VIP histograms) are refused when they are built, with this reason, rather than
collected to the driver.

**Node ids** are integers ``0..num_nodes-1`` (``long`` columns); map names to indices on Spark
first (e.g. with ``zipWithIndex`` on the distinct names, itself public only if the node set is).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._domain import SparkGraphDomain, graph_domain
from ._graph import SparkGraph, graph_from_spark

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import SparkSession

__all__ = ["SparkGraph", "SparkGraphDomain", "graph_domain", "graph_from_spark", "local_session"]


def local_session(
    cores: int = 2,
    *,
    driver_memory: str = "2g",
    shuffle_partitions: int = 4,
    event_log_dir: str | None = None,
    app_name: str = "opendp-graph",
) -> SparkSession:
    """A Spark session on this machine (``local[cores]``) set up for graph work: UI off, few
    shuffle partitions, a 2 GiB driver heap (at Spark's default 1 GiB, building a DataFrame of a
    few million rows can die with ``OutOfMemoryError``), adaptive execution on (it splits the
    partitions of hub nodes in skewed joins). ``event_log_dir`` turns on Spark's event log there
    (uncompressed), from which :mod:`benchmarks.spark` reads shuffle records and bytes.

    On a cluster, build your session as usual; this is for trying the path and for tests.
    """
    from ._engine import pyspark_sql

    sql = pyspark_sql()
    builder = (
        sql.SparkSession.builder.master(f"local[{int(cores)}]")
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", driver_memory)
        .config("spark.sql.shuffle.partitions", str(int(shuffle_partitions)))
        .config("spark.sql.adaptive.enabled", "true")
        .config("spark.sql.adaptive.skewJoin.enabled", "true")
    )
    if event_log_dir is not None:
        builder = (
            builder.config("spark.eventLog.enabled", "true")
            .config("spark.eventLog.dir", str(event_log_dir))
            .config("spark.eventLog.compress", "false")
        )
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session
