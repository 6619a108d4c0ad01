"""The correlation models' neighbourhood statistics as Spark joins and aggregations.

The same quantities as :func:`opendp_graph.pufferfish._stats.neighbourhood_stats` (read its
module docstring for the notation), by the algorithm of its compiled passes
(:mod:`opendp_graph.pufferfish._compiled`: scan one endpoint's row of ``C``, probe the other's),
with each step a join or an aggregation and no Python function on the rows:

1. ``deg`` per node, ``nb_e = deg u + deg v − 2`` per edge, and the table ``nb → #edges`` (at most
   ``2·Dmax`` rows) on the driver, where the size buckets are computed with the single-machine
   :func:`~opendp_graph.pufferfish._stats.log_bucket` and sent back as a broadcast table. The
   label frequencies (one row per property) come back the same way, for the frequency buckets.
2. ``C(x, a)`` = edges at node ``x`` carrying ``a``: the labels joined to their edges, both
   endpoints, counted.
3. ``B`` = pairs ``(e, a)`` with ``C[u, a] > 0`` and ``C[v, a] > 0``, listed by probing: each edge
   reads the ``C`` rows of the endpoint with fewer of them and looks each property up at the
   other endpoint (a join on ``(node, property)``). This reads ``Σ_e min(|C[u]|, |C[v]|)`` rows,
   not the ``Σ deg²`` rows of joining every neighbour's labels, and the hub is the *larger*
   side of almost every edge it is on, so hubs are rarely the probed side. ``B`` holds every
   ``s¹`` secret (``f = C[u,a] + C[v,a] − 1``) and every ``s⁰`` secret seen at both ends
   (``f = C[u,a] + C[v,a]``).
4. ``s⁰`` secrets seen at one end ``x`` only: ``deg_in_bucket(x, s) − both(x, a, s)`` of them per
   ``C`` row and size bucket ``s``, all with ``f = C[x, a]``, summed as weights.
5. Every other ``s⁰`` secret has ``f = 0``: counted by subtraction on the driver.

Only histograms indexed by (frequency bucket, size bucket, ``f``) and a few sums come back.

*Skew.* The joins keyed by a node (degrees and ``C`` row counts onto the edges) put all of a
hub's edges in one partition. They are left to Spark's adaptive execution (on by default since
Spark 3.2; :func:`~opendp_graph.spark.local_session` sets it), which splits a partition above
5× the median and 256 MB; GraphFrames' maintainers measured that about 5× faster than
broadcasting hubs by hand. The per-node tables have one row per node, too many to broadcast in
general; the per-property and per-size tables are broadcast.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..pufferfish._stats import NeighbourhoodStats, log_bucket
from ._engine import functions, small_frame

__all__ = ["spark_neighbourhood_stats"]


def _into(hist: np.ndarray, rows: list, weight_col: int = -1) -> None:
    for row in rows:
        hist[int(row[0]), int(row[1]), int(row[2])] += int(row[weight_col])


# long: the Spark twin of pufferfish.neighbourhood_stats, kept step for step beside it so the two can be compared line by line
def spark_neighbourhood_stats(graph: Any, base: float) -> NeighbourhoodStats:
    """:class:`NeighbourhoodStats` of a labeled :class:`~opendp_graph.spark.SparkGraph`, exact;
    ``nb`` and ``size_bucket`` hold the distinct sizes (``DistributedGraph.neighbourhood_stats``)."""
    F = functions()
    session = graph._session
    vocabulary = graph.vocabulary
    P = len(vocabulary)

    # ---- 1. sizes and frequencies, on the driver (small tables)
    nb_values, nb_edges = graph.neighbourhood_counts()
    E = int(nb_edges.sum())
    sizes = nb_values + 1
    sb_values = log_bucket(sizes, base)
    nSB = int(sb_values.max(initial=0)) + 1
    edges_in_sb = np.bincount(sb_values, weights=nb_edges, minlength=nSB).astype(np.int64)
    max_size = np.zeros(nSB, dtype=np.int64)
    if sizes.size:
        np.maximum.at(max_size, sb_values, sizes)
    K = int(sizes.max(initial=1))
    nb_total = int((nb_values * nb_edges).sum())

    freq_rows = dict(graph.labels.groupBy("label").count().collect())
    freq = np.array([int(freq_rows.get(w, 0)) for w in vocabulary], dtype=np.int64)
    fb = log_bucket(np.maximum(freq, 1), base)
    nFB = int(fb.max(initial=0)) + 1
    shape = (nFB, nSB, K + 1)
    hist0 = np.zeros(shape, dtype=np.int64)
    hist1 = np.zeros(shape, dtype=np.int64)
    props_in_fb = np.bincount(fb, minlength=nFB).astype(np.int64)

    sb_table = F.broadcast(small_frame(session, {"nb": (nb_values.tolist(), "int64"), "sb": (sb_values.tolist(), "int64")}))
    fb_table = F.broadcast(small_frame(session, {"label": (list(vocabulary), "string"), "fb": (fb.tolist(), "int64")}))
    edges = graph.closed_sizes_frame().join(sb_table, "nb")  # eid, src, dst, nb, sb

    a1 = 0
    b1 = 0
    if P and E:
        labels = graph.labels  # eid, label
        labelled = labels.join(edges, "eid")  # eid, label, src, dst, nb, sb
        b1 = int(labelled.agg(F.sum("nb")).first()[0] or 0)

        # ---- 2. C(x, a)
        ends = labelled.select(F.col("src").alias("x"), "label").unionAll(labelled.select(F.col("dst").alias("x"), "label"))
        C = ends.groupBy("x", "label").agg(F.count(F.lit(1)).alias("c")).persist()
        row_len = C.groupBy("x").agg(F.count(F.lit(1)).alias("r"))

        # ---- 3. B: probe the endpoint with fewer C rows at the other endpoint
        ru = row_len.select(F.col("x").alias("src"), F.col("r").alias("ru"))
        rv = row_len.select(F.col("x").alias("dst"), F.col("r").alias("rv"))
        ends_seen = edges.join(ru, "src").join(rv, "dst")  # inner: an endpoint with no C rows has no B pair
        small_is_src = F.col("ru") <= F.col("rv")
        probes = ends_seen.select(
            "eid",
            "sb",
            F.when(small_is_src, F.col("src")).otherwise(F.col("dst")).alias("w"),
            F.when(small_is_src, F.col("dst")).otherwise(F.col("src")).alias("o"),
        )
        at_w = C.select(F.col("x").alias("w"), "label", F.col("c").alias("cw"))
        at_o = C.select(F.col("x").alias("o"), "label", F.col("c").alias("co"))
        carried = labels.select("eid", "label", F.lit(1).alias("carries"))
        B = (
            probes.join(at_w, "w")
            .join(at_o, ["o", "label"])
            .join(carried, ["eid", "label"], "left")
            .select("eid", "label", "sb", "w", "o", "cw", "co", F.coalesce(F.col("carries"), F.lit(0)).alias("carries"))
            .persist()
        )
        f = (F.col("cw") + F.col("co") - F.col("carries")).alias("f")
        rows = B.join(fb_table, "label").groupBy("fb", "sb", "carries", f).count().collect()
        for fbi, sbi, carries, fv, count in rows:
            (hist1 if carries else hist0)[int(fbi), int(sbi), int(fv)] += int(count)
        a1 = int(B.filter(F.col("carries") == 1).agg(F.sum(F.col("cw") + F.col("co") - 2)).first()[0] or 0)

        # ---- 4. s⁰ seen at one end only: weight deg_in_bucket(x, s) − both(x, a, s) at f = C[x, a]
        both = (
            B.select(F.col("w").alias("x"), "label", "sb")
            .unionAll(B.select(F.col("o").alias("x"), "label", "sb"))
            .groupBy("x", "label", "sb")
            .agg(F.count(F.lit(1)).alias("both"))
        )
        at_node = (
            edges.select(F.col("src").alias("x"), "sb")
            .unionAll(edges.select(F.col("dst").alias("x"), "sb"))
            .groupBy("x", "sb")
            .agg(F.count(F.lit(1)).alias("at"))
        )
        weight = (F.col("at") - F.coalesce(F.col("both"), F.lit(0))).alias("weight")
        one_end = (
            C.join(at_node, "x")
            .join(both, ["x", "label", "sb"], "left")
            .select("label", "sb", "c", weight)
            .filter(F.col("weight") > 0)
            .join(fb_table, "label")
            .groupBy("fb", "sb", "c")
            .agg(F.sum("weight").alias("weight"))
            .collect()
        )
        _into(hist0, one_end)
        B.unpersist()
        C.unpersist()

    # ---- 5. zeros
    hist0[:, :, 0] += np.outer(props_in_fb, edges_in_sb) - hist1.sum(axis=2) - hist0.sum(axis=2)
    return NeighbourhoodStats(
        num_edges=E,
        num_properties=P,
        nb=nb_values,
        freq=freq,
        freq_bucket=fb,
        size_bucket=sb_values,
        base=float(base),
        hist1=hist1,
        hist0=hist0,
        pairs_by_bucket=np.outer(props_in_fb, edges_in_sb),
        max_size_by_bucket=max_size,
        a1=a1,
        b1=b1,
        nb_total=nb_total,
    )
