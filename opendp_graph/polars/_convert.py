"""Message tables (Polars) to :class:`~opendp_graph.Graph` and back.

A *message table* has one row per message (or per (message, recipient)): a sender column, a
recipient column and anything else (time, subject, words ...). Its graph has one node per person
and one undirected edge per pair of people who exchanged at least one message; the labels of an
edge are the union of the labels of all the messages on it, in either direction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..graph import Graph

__all__ = ["graph_from_polars", "graph_to_polars"]

_DIRECTED = ("ignore", "mutual")
_SELF_LOOPS = ("error", "drop")


def _as_lazy(frame: Any, what: str = "frame"):
    import polars as pl

    if isinstance(frame, pl.DataFrame):
        return frame.lazy()
    if isinstance(frame, pl.LazyFrame):
        return frame
    raise TypeError(f"{what} must be a polars DataFrame or LazyFrame, got {type(frame).__name__}")


def _check_column(schema: Any, name: Any, role: str) -> str:
    if not isinstance(name, str):
        raise TypeError(f"{role} must be a column name (str), got {name!r}")
    if name not in schema:
        raise ValueError(f"{role} column {name!r} is not in the frame; its columns are {list(schema)}")
    return name


def graph_from_polars(
    frame: Any,
    src: str = "src",
    dst: str = "dst",
    labels: str | None = None,
    *,
    nodes: Sequence[Any] | None = None,
    directed: str = "ignore",
    self_loops: str = "error",
) -> Graph:
    """Build the communication graph of a Polars message table.

    Parameters
    ----------
    frame
        A ``polars.DataFrame`` or ``polars.LazyFrame`` with one row per message (extra columns
        are ignored). It is not modified.
    src, dst
        Names of the sender and recipient columns (any hashable values; no nulls).
    labels
        Optional name of a column holding each message's labels: a ``String`` column (one label
        per row; ``null`` = none) or a ``List(String)`` column (``null`` or ``[]`` = none). All
        the messages between two people are merged into one edge whose labels are the union of
        theirs. ``None`` (default) gives an unlabeled graph.
    nodes
        Optional *public* list of the people (the node set). If given, node ``i`` is
        ``nodes[i]``, people who exchanged no message are isolated nodes, and a row naming
        someone outside the list is an error. If omitted, the node set is the sorted set of
        people seen in the table: that set is then read from the data, so treat it as public
        (every graph metric of this package assumes a public node set).
    directed
        ``"ignore"`` (default): ``u→v`` and ``v→u`` are the same undirected edge.
        ``"mutual"``: keep the pair ``{u, v}`` only if messages went both ways (a common way to
        drop one-way broadcast e-mail); its labels are still the union over both directions.
    self_loops
        ``"error"`` (default) rejects a message from someone to themselves; ``"drop"`` ignores
        such rows (and their labels).

    Returns
    -------
    Graph
        with ``node_ids`` the people, sorted or in the order of ``nodes``.

    Raises
    ------
    TypeError
        ``frame`` is not a Polars frame, or the label column has the wrong type.
    ValueError
        a column is missing, an endpoint is null, a person is not in ``nodes``, or a
        self-message is found with ``self_loops="error"``.

    Examples
    --------
    >>> import polars as pl, opendp_graph as dpg
    >>> log = pl.DataFrame({"sender": ["ann", "bob", "ann", "cy"],
    ...                     "recipient": ["bob", "ann", "cy", "ann"],
    ...                     "word": ["lunch", "re", "memo", None]})
    >>> g = dpg.Graph.from_polars(log, src="sender", dst="recipient", labels="word")
    >>> g, g.node_ids
    (Graph(num_nodes=3, num_edges=2, labeled=True), ('ann', 'bob', 'cy'))
    >>> sorted(g.edge_labels(0, 1))
    ['lunch', 're']
    >>> dpg.Graph.from_polars(log, src="sender", dst="recipient", directed="mutual").num_edges
    2
    """
    import polars as pl

    if directed not in _DIRECTED:
        raise ValueError(f"directed must be one of {_DIRECTED}, got {directed!r}")
    if self_loops not in _SELF_LOOPS:
        raise ValueError(f"self_loops must be one of {_SELF_LOOPS}, got {self_loops!r}")
    lazy = _as_lazy(frame)
    schema = lazy.collect_schema()
    src = _check_column(schema, src, "src")
    dst = _check_column(schema, dst, "dst")
    if src == dst:
        raise ValueError(f"src and dst name the same column {src!r}")
    if labels is not None:
        labels = _check_column(schema, labels, "labels")
        dtype = schema[labels]
        if dtype == pl.List(pl.String):
            label_expr = pl.col(labels)
        elif dtype == pl.String:
            label_expr = pl.concat_list(pl.col(labels)).list.drop_nulls()
        else:
            raise TypeError(f"labels column {labels!r} must be String or List(String), got {dtype}")
    columns = [pl.col(src).alias("_src"), pl.col(dst).alias("_dst")]
    if labels is not None:
        columns.append(label_expr.alias("_labels"))
    table = lazy.select(columns).collect()
    if table["_src"].null_count() or table["_dst"].null_count():
        raise ValueError(f"the src/dst columns {src!r}/{dst!r} contain nulls; every message needs a sender and a recipient")

    # people -> node indices
    if nodes is not None:
        people = list(nodes)
        if len(set(people)) != len(people):
            raise ValueError("nodes are not distinct")
        index = {p: i for i, p in enumerate(people)}
    else:
        people = sorted(set(table["_src"].to_list()) | set(table["_dst"].to_list()))
        index = {p: i for i, p in enumerate(people)}
    try:
        u = np.fromiter((index[p] for p in table["_src"].to_list()), dtype=np.int64, count=table.height)
        v = np.fromiter((index[p] for p in table["_dst"].to_list()), dtype=np.int64, count=table.height)
    except KeyError as err:
        raise ValueError(f"the table names {err.args[0]!r}, who is not in nodes") from None

    keep = u != v
    if not keep.all():
        if self_loops == "error":
            raise ValueError(
                f"the table has {int((~keep).sum())} self-message(s) (sender == recipient); "
                "pass self_loops='drop' to ignore them"
            )
    if directed == "mutual":
        n = np.int64(max(len(people), 1))
        forward = u * n + v
        backward = v * n + u
        keep &= np.isin(backward, forward[keep])
    u, v = u[keep], v[keep]

    if labels is None:
        return Graph.from_arrays(u, v, num_nodes=len(people), node_ids=people)
    label_lists = [lab for lab, k in zip(table["_labels"].to_list(), keep.tolist()) if k]
    vocabulary: dict[str, int] = {}
    rows: list[int] = []
    cols: list[int] = []
    for row, lab in enumerate(label_lists):
        for word in lab or ():
            if word is None:
                continue
            rows.append(row)
            cols.append(vocabulary.setdefault(word, len(vocabulary)))
    matrix = sp.csr_array(
        (np.ones(len(rows), dtype=bool), (np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64))),
        shape=(u.size, len(vocabulary)),
    )
    return Graph.from_arrays(u, v, num_nodes=len(people), label_matrix=matrix, vocabulary=list(vocabulary), node_ids=people)


def graph_to_polars(graph: Graph, *, src: str = "src", dst: str = "dst", labels: str = "labels", node_ids: bool = True):
    """The edges of ``graph`` as a Polars ``DataFrame``: one row per undirected edge.

    Parameters
    ----------
    graph
        A :class:`~opendp_graph.Graph`.
    src, dst
        Names of the two endpoint columns (``src`` holds the smaller node index).
    labels
        Name of the ``List(String)`` column holding each edge's labels (sorted); only present
        for a labeled graph.
    node_ids
        ``True`` (default): endpoints are the public node ids when the graph has them;
        ``False``: node indices ``0..n-1``.

    Returns
    -------
    polars.DataFrame
        in edge order. With ``max_messages=1`` this is the table on which
        :func:`~opendp_graph.polars.edge_unit` gives exactly edge-level privacy: one row per edge,
        so OpenDP's symmetric distance between two edge tables equals
        :class:`~opendp_graph.EdgeDistance` between the graphs.

    Examples
    --------
    >>> import opendp_graph as dpg
    >>> g = dpg.Graph.from_edges([0, 1], [1, 2], labels=[["b", "a"], []], node_ids=["x", "y", "z"])
    >>> g.to_polars().rows()
    [('x', 'y', ['a', 'b']), ('y', 'z', [])]
    """
    import polars as pl

    if not isinstance(graph, Graph):
        raise TypeError(f"expected an opendp_graph.Graph, got {type(graph).__name__}")
    names = [src, dst] + ([labels] if graph.is_labeled else [])
    if len(set(names)) != len(names):
        raise ValueError(f"column names must be distinct, got {names}")
    a, b = graph.src, graph.dst
    if node_ids and graph.node_ids is not None:
        ids = graph.node_ids
        try:
            names = pl.Series(list(ids))  # keeps the ids' dtype, also for a graph without edges
            data = {src: names.gather(a).rename(src), dst: names.gather(b).rename(dst)}
        except (TypeError, ValueError, pl.exceptions.PolarsError):  # ids of mixed types
            data = {src: [ids[i] for i in a.tolist()], dst: [ids[i] for i in b.tolist()]}
    else:
        data = {src: a.copy(), dst: b.copy()}
    frame = pl.DataFrame(data)
    if graph.is_labeled:
        sets = [sorted(s) for s in graph.label_sets()]
        frame = frame.with_columns(pl.Series(labels, sets, dtype=pl.List(pl.String)))
    return frame
