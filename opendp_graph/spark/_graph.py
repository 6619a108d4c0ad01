"""``SparkGraph``: a simple graph kept as Spark DataFrames, and its exact aggregates."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core._build import MAX_NUM_NODES, _check_num_nodes, _check_self_loops
from ..core._checks import check_label_names, property_names
from ..core._distributed import DistributedGraph
from ..core._frozen import frozen
from ._engine import functions, is_dataframe, pyspark_sql, small_frame

__all__ = ["SparkGraph", "graph_from_spark"]

_INTEGRAL = ("ByteType", "ShortType", "IntegerType", "LongType")


def _column_type(frame: Any, name: str, what: str) -> Any:
    if not isinstance(name, str):
        raise TypeError(f"{what} must be a column name (a string), got {name!r}")
    fields = {f.name: f.dataType for f in frame.schema.fields}
    if name not in fields:
        raise ValueError(f"{what}={name!r} is not a column; the columns are {sorted(fields)}")
    return fields[name]


def _column(name: str) -> Any:
    """The column named ``name`` exactly (backquoted: ``a.b`` is not field ``b`` of struct ``a``)."""
    return functions().col("`" + name.replace("`", "``") + "`")


def _check_index_column(frame: Any, name: str, what: str) -> None:
    kind = _column_type(frame, name, what)
    if type(kind).__name__ not in _INTEGRAL:
        raise TypeError(
            f"column {name!r} ({what}) holds {kind.simpleString()}, not integer node indices; map node names to "
            "indices 0..num_nodes-1 first and cast to long"
        )


@frozen()
class SparkGraph(DistributedGraph):
    """An immutable simple undirected graph on nodes ``0..num_nodes-1`` held as Spark DataFrames.

    Build one with :func:`graph_from_spark`. It holds ``edges`` (columns ``eid, src, dst`` with
    ``src < dst`` and ``eid = src·n + dst``, one row per edge) and, if labeled, ``labels``
    (``eid, label``, one row per distinct label of an edge), both persisted. The aggregates are
    computed on Spark when first asked for and cached; the DataFrames are never collected.
    """

    __slots__ = ("_session", "_edges", "_labels", "_num_nodes", "_declared_vocabulary", "_cache")
    _session: Any
    _edges: Any
    _labels: Any
    _num_nodes: int
    _declared_vocabulary: tuple[str, ...] | None
    _cache: dict

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("SparkGraph(...) is not a public constructor: use dpg.spark.graph_from_spark(edges_df, ...)")

    @classmethod
    def _from_canonical(cls, session: Any, edges: Any, labels: Any, num_nodes: int, vocabulary: tuple[str, ...] | None = None) -> SparkGraph:
        self = object.__new__(cls)
        object.__setattr__(self, "_declared_vocabulary", vocabulary)
        object.__setattr__(self, "_session", session)
        object.__setattr__(self, "_edges", edges)
        object.__setattr__(self, "_labels", labels)
        object.__setattr__(self, "_num_nodes", int(num_nodes))
        object.__setattr__(self, "_cache", {})
        return self

    def __reduce__(self):
        raise TypeError("a SparkGraph lives in its Spark session and cannot be pickled; pickle a Graph instead")

    def __repr__(self) -> str:
        return f"SparkGraph(num_nodes={self._num_nodes}, labeled={self.is_labeled})"

    # ---------------------------------------------------------------- the data (for Spark users)
    @property
    def edges(self) -> Any:
        """The edges as a Spark DataFrame ``(eid, src, dst)``, ``src < dst``."""
        return self._edges

    @property
    def labels(self) -> Any:
        """The labels as a Spark DataFrame ``(eid, label)`` (``None`` if unlabeled)."""
        return self._labels

    def _cached(self, key: str, compute: Any) -> Any:
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    # ---------------------------------------------------------------- DistributedGraph
    @property
    def num_nodes(self) -> int:
        return self._num_nodes

    @property
    def num_edges(self) -> int:
        return self._cached("num_edges", lambda: int(self._edges.count()))

    @property
    def is_labeled(self) -> bool:
        return self._labels is not None

    @property
    def vocabulary(self) -> tuple[str, ...] | None:
        if self._labels is None:
            return None
        if self._declared_vocabulary is not None:
            return self._declared_vocabulary

        def compute() -> tuple[str, ...]:
            names = tuple(sorted(r[0] for r in self._labels.select("label").distinct().collect()))  # Python's order
            check_label_names(names)
            if len(set(names)) != len(names):  # refused when the graph is built; kept as a second lock
                raise ValueError("two labels came back from Spark as the same text (invalid UTF-8)")
            return names

        return self._cached("vocabulary", compute)

    def degrees_frame(self) -> Any:
        """``(x, deg)`` for every node with at least one edge."""
        F = functions()

        def compute() -> Any:
            ends = self._edges.select(F.col("src").alias("x")).unionAll(self._edges.select(F.col("dst").alias("x")))
            return ends.groupBy("x").agg(F.count(F.lit(1)).alias("deg")).persist()

        return self._cached("degrees", compute)

    @property
    def max_degree(self) -> int:
        F = functions()
        return self._cached("max_degree", lambda: int(self.degrees_frame().agg(F.max("deg")).first()[0] or 0))

    @property
    def max_labels_on_an_edge(self) -> int:
        if self._labels is None:
            return 0
        F = functions()

        def compute() -> int:
            per_edge = self._labels.groupBy("eid").agg(F.count(F.lit(1)).alias("k"))
            return int(per_edge.agg(F.max("k")).first()[0] or 0)

        return self._cached("max_labels", compute)

    def degree_histogram(self, max_degree: int) -> list[int]:
        F = functions()
        top = int(max_degree)
        rows = self.degrees_frame().groupBy(F.least(F.col("deg"), F.lit(top)).alias("k")).count().collect()
        hist = np.zeros(top + 1, dtype=np.int64)
        for k, count in rows:
            hist[int(k)] += int(count)
        hist[0] += self._num_nodes - int(hist.sum())  # isolated nodes have no row
        return hist.tolist()

    def label_counts(self, max_labels_per_edge: int | None, vocabulary: Sequence[str] | None) -> dict[str, int]:
        if self._labels is None:
            raise ValueError("graph is unlabeled")
        F = functions()
        from pyspark.sql.window import Window

        labels = self._labels
        if vocabulary is not None:
            ranks = small_frame(self._session, {"label": (list(vocabulary), "string"), "rank": (list(range(len(vocabulary))), "int64")})
            labels = labels.join(F.broadcast(ranks), "label")  # labels outside the vocabulary are not read
            order = F.col("rank")
        else:
            order = F.col("label")  # UTF-8 byte order = code point order = Python's string order
        # the cap bites only on edges with more labels than it (the rule of selected_labels)
        if max_labels_per_edge is not None and max_labels_per_edge < self.max_labels_on_an_edge:
            position = F.row_number().over(Window.partitionBy("eid").orderBy(order))
            labels = labels.withColumn("position", position).filter(F.col("position") <= int(max_labels_per_edge))
        rows = labels.groupBy("label").count().collect()
        counts = {str(label): int(count) for label, count in rows}
        if len(counts) != len(rows):  # refused when the graph is built; kept as a second lock
            raise ValueError("two labels came back from Spark as the same text (invalid UTF-8)")
        if vocabulary is None:
            return dict(sorted(counts.items()))
        return {w: counts[w] for w in vocabulary if w in counts}

    def closed_sizes_frame(self) -> Any:
        """``(eid, src, dst, nb)``: each edge with its number of adjacent edges ``deg u + deg v − 2``."""
        F = functions()

        def compute() -> Any:
            deg = self.degrees_frame()
            du = deg.select(F.col("x").alias("src"), F.col("deg").alias("du"))
            dv = deg.select(F.col("x").alias("dst"), F.col("deg").alias("dv"))
            joined = self._edges.join(du, "src").join(dv, "dst")
            return joined.select("eid", "src", "dst", (F.col("du") + F.col("dv") - 2).alias("nb")).persist()

        return self._cached("closed", compute)

    def neighbourhood_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """``(nb values, edges with that nb)``, sorted by value: a table of at most ``2·Dmax`` rows."""

        def compute() -> tuple[np.ndarray, np.ndarray]:
            rows = self.closed_sizes_frame().groupBy("nb").count().collect()
            rows.sort()
            values = np.array([int(r[0]) for r in rows], dtype=np.int64)
            counts = np.array([int(r[1]) for r in rows], dtype=np.int64)
            values.flags.writeable = counts.flags.writeable = False  # cached: coverage checks read them
            return values, counts

        return self._cached("nb_counts", compute)

    def distinct_closed_sizes(self) -> np.ndarray:
        return self.neighbourhood_counts()[0] + 1  # a fresh array

    def neighbourhood_stats(self, *, base: float = 10.0) -> Any:
        from ._stats import spark_neighbourhood_stats

        if self._labels is None:
            raise ValueError("the correlation models need a labeled graph")
        # cached per base: fitting the three models one by one costs one pass, as fit_all does
        # a copy per call, as the single-machine pass returns fresh arrays: a caller's edit cannot
        # reach the next fit or coverage check
        return copy.deepcopy(self._cached(f"stats:{float(base)!r}", lambda: spark_neighbourhood_stats(self, base)))


def _read(materialise: Any) -> Any:
    """``materialise()``, the first read of a user's frame. Spark's errors about the plan's schema
    (``AnalysisException``: columns, types) pass; an error raised while reading values (a failed
    cast quotes the value: ``The value 'x9' ... cannot be cast``) is raised with its kind only."""
    from pyspark.errors import AnalysisException, PySparkException

    try:
        return materialise()
    except AnalysisException:
        raise
    except PySparkException:
        # neither the message nor its class (which would say which step failed) is repeated; note
        # that Spark's own log (stderr, log4j) still prints the failure with the value: set its
        # level (spark.sparkContext.setLogLevel("OFF")) where that log is not the data holder's
        raise ValueError(
            "reading the frame failed in Spark; Spark's message is withheld because it can quote values of the private "
            "data: read the frame yourself to see it"
        ) from None


def _first_row(frame: Any, *columns: Any) -> Any:
    return frame.agg(*columns).first()


# long: docstring (its guarantee, parameters and refusals) beside code of under 100 lines
def graph_from_spark(
    edges_df: Any,
    *,
    src: str = "src",
    dst: str = "dst",
    labels_df: Any = None,
    label: str = "label",
    num_nodes: int | None = None,
    vocabulary: Sequence[str] | None = None,
    self_loops: str = "error",
) -> SparkGraph:
    """A :class:`SparkGraph` from a Spark DataFrame of edges and, optionally, one of edge labels.

    The graph is made simple exactly as :meth:`Graph.from_edges <opendp_graph.Graph.from_edges>`
    does: ``(u, v)`` and ``(v, u)`` are one edge, repeated rows one edge whose labels are united,
    self-loops refused (``self_loops="error"``) or dropped (``"drop"``, with their labels).

    :param edges_df: one row per edge (or per message): integer columns ``src`` and ``dst``.
    :param src: name of the first endpoint's column (in both frames).
    :param dst: name of the second endpoint's column (in both frames).
    :param labels_df: optional, rows ``(src, dst, label)``: ``label`` is a string or an array of
        strings (each element one label); as in ``dpg.polars.graph_from_polars``, a null (string, array or
        element) or an empty array adds no label. Every row must name a pair that is an edge of
        ``edges_df`` (a message log can be passed as both frames). A graph built with
        ``labels_df`` is *labeled* even if it has no rows.
    :param label: the label column of ``labels_df``.
    :param num_nodes: the (public) number of nodes; defaults to the largest index + 1.
        Isolated nodes need it.
    :param vocabulary: optional, the graph's properties (distinct strings, any order), as
        ``Graph.from_arrays``'s ``vocabulary``: every label must be one of them, and entries that
        no edge carries are still properties of the graph (the correlation models count their
        secrets). Default: the distinct labels seen.
    :param self_loops: ``"error"`` (default) or ``"drop"``.
    :raises TypeError: if an index column is not integral or the label column is not a string
        or an array of strings.
    :raises ValueError: on nulls, negative or out-of-range indices, self-loops (``"error"``),
        label rows for pairs that are not edges, labels with a NUL character.

    The checks run as Spark aggregations; a refusal names the broken rule, never a count, an id
    or a value read from the data (as ``Graph.from_edges``), and an error of Spark's own while
    reading the frames (a failed cast of a value) is raised with its kind only, its message
    withheld (it can quote the data).

    *Lineage.* The input rows are read once, checked and made simple from that one read (a
    source read twice could give other rows than were checked), and the canonical frames are kept
    with Spark's
    ``localCheckpoint`` (in the executors' memory and disk), which also cuts their plans off
    from the source: every aggregate starts from them, and Spark never re-reads or re-plans the
    input (for a frame made from local data, ``createDataFrame``, re-planning costs more than
    the work: Spark compares the whole embedded table at every cache lookup). If an executor is
    lost, a query fails instead of recomputing from the source: build the graph again.
    """
    _check_self_loops(self_loops)
    if not is_dataframe(edges_df):
        raise TypeError(f"edges_df must be a Spark DataFrame, got {type(edges_df).__name__}")
    sql = pyspark_sql()
    F = functions()
    _check_index_column(edges_df, src, "src")
    _check_index_column(edges_df, dst, "dst")
    if num_nodes is not None:
        num_nodes = _check_num_nodes(num_nodes)
    session = edges_df.sparkSession

    u, v = _column(src).cast("long"), _column(dst).cast("long")
    # checked and built from one materialised read: a source read twice (a table appended to, a
    # nondeterministic expression) could otherwise pass the checks with other rows than it builds
    raw = _read(lambda: edges_df.select(u.alias("u"), v.alias("v")).localCheckpoint(eager=True))
    facts = _first_row(
        raw,
        F.sum(F.when(F.col("u").isNull() | F.col("v").isNull(), 1).otherwise(0)).alias("nulls"),
        F.min(F.least("u", "v")).alias("low"),
        F.max(F.greatest("u", "v")).alias("high"),
        F.sum(F.when(F.col("u") == F.col("v"), 1).otherwise(0)).alias("loops"),
    )
    # the refusals below name the rule only: never a count, an index or a node of the data
    if facts["nulls"]:
        raise ValueError(f"edges_df has a row with a null {src} or {dst}")
    if facts["low"] is not None and facts["low"] < 0:
        raise ValueError("node indices must be non-negative; edges_df holds a negative one")
    observed = 0 if facts["high"] is None else int(facts["high"]) + 1
    if num_nodes is None:
        if observed > MAX_NUM_NODES:
            raise ValueError(f"an edge names a node above the largest supported node index {MAX_NUM_NODES - 1}")
        num_nodes = observed
    if observed > num_nodes:
        raise ValueError(f"an edge names a node outside 0..num_nodes-1 (num_nodes={num_nodes})")
    if facts["loops"] and self_loops == "error":
        raise ValueError("graph has self-loops; pass self_loops='drop' to remove them")
    n = max(num_nodes, 1)
    keys = (F.least("u", "v") * F.lit(n) + F.greatest("u", "v")).alias("eid")  # < n² <= 2**63
    edges = (
        raw.filter(F.col("u") != F.col("v"))
        .select(keys, F.least("u", "v").alias("src"), F.greatest("u", "v").alias("dst"))
        .dropDuplicates(["eid"])
        .localCheckpoint(eager=True)  # see graph_from_spark's docstring, *Lineage*
    )

    declared = None
    if vocabulary is not None:
        if labels_df is None:
            raise ValueError("vocabulary= names the properties of labels_df; pass labels_df too")
        declared = tuple(sorted(str(w) for w in property_names(vocabulary)))  # numpy strings as str, as Graph does
        check_label_names(declared, "a vocabulary entry")
    labels = None
    if labels_df is not None:
        labels = _canonical_labels(labels_df, src, dst, label, num_nodes, self_loops, edges, F, sql)
        if declared is not None:
            known = small_frame(session, {"label": (list(declared), "string")})
            if labels.join(F.broadcast(known), "label", "left_anti").limit(1).count():
                raise ValueError("labels_df has a label outside the given vocabulary")
    return SparkGraph._from_canonical(session, edges, labels, num_nodes, declared)


def _canonical_labels(labels_df: Any, src: str, dst: str, label: str, num_nodes: int, self_loops: str, edges: Any, F: Any, sql: Any) -> Any:
    if not is_dataframe(labels_df):
        raise TypeError(f"labels_df must be a Spark DataFrame, got {type(labels_df).__name__}")
    _check_index_column(labels_df, src, "src")
    _check_index_column(labels_df, dst, "dst")
    kind = _column_type(labels_df, label, "label")
    types = sql.types
    is_array = isinstance(kind, types.ArrayType) and isinstance(kind.elementType, types.StringType)
    if not (is_array or isinstance(kind, types.StringType)):
        raise TypeError(f"column {label!r} (label) holds {kind.simpleString()}; labels are strings or arrays of strings")
    rows = labels_df.select(_column(src).cast("long").alias("u"), _column(dst).cast("long").alias("v"), _column(label).alias("label"))
    if is_array:  # one row per element; an empty array adds no label
        rows = rows.select("u", "v", F.explode_outer(F.col("label")).alias("label"))
    # Labels are compared as bytes, as Python compares strings: a column declared with another
    # collation (e.g. UTF8_LCASE) would make Spark group "A" with "a" and return either spelling
    rows = _read(lambda: rows.select("u", "v", F.collate(F.col("label"), "UTF8_BINARY").alias("label")).localCheckpoint(eager=True))
    facts = _first_row(
        rows,
        F.sum(F.when(F.col("u").isNull() | F.col("v").isNull(), 1).otherwise(0)).alias("null_pairs"),
        F.min(F.least("u", "v")).alias("low"),
        F.max(F.greatest("u", "v")).alias("high"),
        F.sum(F.when(F.instr(F.col("label"), "\u0000") > 0, 1).otherwise(0)).alias("nul"),
        # Spark keeps strings as bytes it does not validate (e.g. read from Parquet); two invalid
        # byte strings would group apart and come back to Python as the same text
        F.sum(F.when(~F.expr("is_valid_utf8(label)"), 1).otherwise(0)).alias("invalid"),
    )
    if facts["null_pairs"]:
        raise ValueError(f"labels_df has a row with a null {src} or {dst}")
    # indices in range make eid = lo·n + hi one-to-one, so no label can land on another edge
    if facts["low"] is not None and (facts["low"] < 0 or facts["high"] >= num_nodes):
        raise ValueError("labels_df names node indices outside 0..num_nodes-1 (the graph's nodes)")
    if facts["nul"]:
        check_label_names(["\x00"])  # the shared message for NUL characters
    if facts["invalid"]:
        check_label_names(["\ud800"])  # the shared message for text that is not valid Unicode
    rows = rows.filter(F.col("label").isNotNull())  # a null adds no label, as in dpg.polars.graph_from_polars
    if self_loops == "drop":
        rows = rows.filter(F.col("u") != F.col("v"))  # the labels of a dropped self-loop go with it
    n = max(num_nodes, 1)
    keyed = rows.select((F.least("u", "v") * F.lit(n) + F.greatest("u", "v")).alias("eid"), "label")
    if keyed.join(edges.select("eid"), "eid", "left_anti").limit(1).count():
        raise ValueError("labels_df has labels for pairs that are not edges of edges_df; labels attach to edges")
    return keyed.dropDuplicates(["eid", "label"]).localCheckpoint(eager=True)
