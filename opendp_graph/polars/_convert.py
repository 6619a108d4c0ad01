"""Message tables (Polars) to :class:`~opendp_graph.Graph` and back.

A *message table* has one row per message (or per (message, recipient)): a sender column, a
recipient column and anything else (time, subject, words ...). Its graph has one node per person
and one undirected edge per pair of people who exchanged at least one message; the labels of an
edge are the union of the labels of all the messages on it, in either direction.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..core._build import _any_equal
from ..core._checks import not_a_graph
from ..core.graph import Graph

__all__ = ["graph_from_polars", "graph_to_polars"]

_DIRECTED = ("ignore", "mutual")
_SELF_LOOPS = ("error", "drop")
FROM_DATA = "from data"
"""The ``nodes=`` value that derives the node set from the table (disclosed, not protected)."""


def _as_lazy(frame: Any, what: str = "frame"):
    import polars as pl

    if isinstance(frame, pl.DataFrame):
        return frame.lazy()
    if isinstance(frame, pl.LazyFrame):
        return frame
    raise TypeError(f"{what} must be a polars DataFrame or LazyFrame, got {type(frame).__name__}")


def _check_column(schema: Any, name: Any, role: str, where: str = "frame") -> str:
    if not isinstance(name, str):
        raise TypeError(f"{role} must be a column name (str), got {name!r}")
    if name not in schema:
        raise ValueError(f"{role} column {name!r} is not in the {where}; its columns are {list(schema)}")
    return name


def _dtype_name(dtype: Any) -> str:
    """A dtype as an error message may print it: an ``Enum``'s categories are ids (people), so
    only its kind is named, also inside a ``List``, ``Array`` or ``Struct`` (red team)."""
    import polars as pl

    if isinstance(dtype, pl.Enum):
        return "Enum"
    if isinstance(dtype, pl.List):
        return f"List({_dtype_name(dtype.inner)})"
    if isinstance(dtype, pl.Array):
        return f"Array({_dtype_name(dtype.inner)}, shape={dtype.shape})"
    if isinstance(dtype, pl.Struct):
        return "Struct({" + ", ".join(f"{f.name!r}: {_dtype_name(f.dtype)}" for f in dtype.fields) + "})"
    return str(dtype)


def _id_kind(dtype: Any) -> str | None:
    """``"integer"`` or ``"text"`` for a dtype that can hold person ids, else ``None``."""
    import polars as pl

    if dtype.is_integer() and dtype not in (pl.Int128, getattr(pl, "UInt128", pl.Int128)):  # numpy has no 128-bit ints
        return "integer"
    if dtype == pl.String or isinstance(dtype, (pl.Categorical, pl.Enum)):
        return "text"
    return None


def _check_id_columns(schema: Any, src: Any, dst: Any, where: str = "frame") -> str:
    """The schema-level (public) preconditions on the two person-id columns; returns their kind.

    Both columns exist and are distinct, and hold ids of one and the same dtype, integer or text
    (``String``, ``Categorical``, ``Enum``). Floats are refused: ``NaN`` is not equal to itself,
    ``-0.0`` equals ``0.0``, and ``1.0`` prints differently from ``1``, so "who is one person"
    would depend on the code path. Different dtypes are refused: compared as strings (the pair
    identifier) ``1`` and ``"1"`` would be one person; compared as values, never.
    """
    src = _check_column(schema, src, "src", where)
    dst = _check_column(schema, dst, "dst", where)
    if src == dst:
        raise ValueError(f"src and dst name the same column {src!r}")
    for name, role in ((src, "src"), (dst, "dst")):
        dtype = schema[name]
        if _id_kind(dtype) is not None:
            continue
        if dtype.is_float():
            raise TypeError(
                f"the {role} column {name!r} has dtype {_dtype_name(dtype)}: person ids must be integers or strings, not floats "
                "(NaN is not equal to itself, -0.0 equals 0.0, and 1.0 prints differently from 1); convert the "
                "column, e.g. to pl.Int64 after checking that every value is a whole number (a cast truncates 1.5 to 1)"
            )
        raise TypeError(
            f"the {role} column {name!r} has dtype {_dtype_name(dtype)}: person ids must be integers or strings "
            "(an integer dtype of up to 64 bits, String, Categorical or Enum)"
        )
    if schema[src] != schema[dst]:
        raise TypeError(
            f"the src column {src!r} has dtype {_dtype_name(schema[src])} but the dst column {dst!r} has dtype "
            f"{_dtype_name(schema[dst])}: "
            "a person needs one id type in both columns (as strings 1 and '1' would be one person, as values never "
            "the same); cast both columns to one dtype"
        )
    return _id_kind(schema[src])  # type: ignore[return-value]


def _collect(query: Any, streaming: bool = False) -> Any:
    """``query.collect()`` with the user's frame evaluated as written. Polars' order-observation
    pass is off: in Polars 1.36, when a query of ours does not need row order (an unordered join,
    ``unique``), that pass can also drop ``maintain_order=True`` from the user's own ``group_by``
    or ``unique`` that a later ``head`` depends on (pola-rs/polars#24386), so each of our queries
    would see other rows of the same deterministic frame (a wrong graph, found by our red team)."""
    import polars as pl

    flags = pl.QueryOptFlags(check_order_observe=False)
    schema_errors = (
        pl.exceptions.ColumnNotFoundError,
        pl.exceptions.SchemaError,
        pl.exceptions.SchemaFieldNotFoundError,
        pl.exceptions.DuplicateError,
    )  # about columns and types: the schema, public
    try:
        return query.collect(engine="streaming" if streaming else "auto", optimizations=flags)
    except schema_errors:
        raise
    # a panic (e.g. a date beyond Datetime('us')) is a BaseException, not an Exception: withheld too
    except (pl.exceptions.PolarsError, pl.exceptions.PanicException):
        raise withheld() from None


def schema_of(frame: Any) -> Any:
    """``frame.collect_schema()``, with Polars' errors withheld as :func:`_collect` withholds them:
    for a source whose schema Polars infers from the values (``scan_ndjson``, ``scan_csv``), this
    already reads the private data, and a parse error quotes it (``TapeError at character 28
    ('A')``). A column missing from a plan is a schema error and passes. (Inferred dtypes still
    depend on the values: declare the schema when scanning a private file.)"""
    import polars as pl

    try:
        return frame.collect_schema()
    except pl.exceptions.ColumnNotFoundError:
        raise
    except (pl.exceptions.PolarsError, pl.exceptions.PanicException):
        raise withheld() from None


def withheld() -> ValueError:
    """The error to raise when evaluating a private table fails inside Polars (a failed cast, a
    bad value in the user's own plan, a file that does not parse): Polars' message quotes values
    of the data (``conversion from str to i64 failed ... ["7x"]``), and even its kind would say
    which step failed, so neither is repeated. The data holder reads it by collecting the frame on
    their side."""
    return ValueError(
        "evaluating the table failed inside Polars; Polars' message is withheld because it can quote values of the "
        "private data: collect the frame yourself to read it"
    )


def _refuse_null_ids(lazy: Any, src: str, dst: str, message_id: str | None = None) -> None:
    """The data-level precondition: no null endpoint (and, for a message unit, no null
    ``message_id``), read in one pass. The message is the same whichever row or column holds the
    null, so a refusal reveals only that the table is invalid."""
    import polars as pl

    checks = [(pl.col(src).is_null() | pl.col(dst).is_null()).any().alias("endpoints")]
    if message_id is not None:
        checks.append(pl.col(message_id).is_null().any().alias("message"))
    found = _collect(lazy.select(checks)).row(0, named=True)
    if found["endpoints"]:
        raise ValueError(f"the src/dst columns {src!r}/{dst!r} contain nulls; every message needs a sender and a recipient")
    if found.get("message"):
        raise ValueError(f"the message_id column {message_id!r} contains nulls; every row must name its message")


def _valid_ids(frame: Any, src: Any, dst: Any, where: str = "table"):
    """``frame`` as a LazyFrame after every precondition on its id columns (schema, then nulls)."""
    lazy = _as_lazy(frame)
    _check_id_columns(schema_of(lazy), src, dst, where)
    _refuse_null_ids(lazy, src, dst)
    return lazy


# long: docstring (its guarantee, parameters and refusals) beside code of under 100 lines
def graph_from_polars(
    frame: Any,
    src: str = "src",
    dst: str = "dst",
    labels: str | None = None,
    *,
    nodes: Sequence[Any] | str | None = None,
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
        Names of the sender and recipient columns. Both must have the same dtype, an integer
        dtype or text (``String``, ``Categorical``, ``Enum``): an int sender column with a str
        recipient column is a ``TypeError`` (is ``1`` the person ``"1"``?), and so is a float
        column, even one holding whole numbers only (``NaN``, ``-0.0`` and ``1.0`` vs ``1`` make
        identity ambiguous; convert it to integers first). No nulls (``ValueError``).
    labels
        Optional name of a column holding each message's labels: a ``String`` column (one label
        per row; ``null`` = none) or a ``List(String)`` column (``null`` or ``[]`` = none; a
        ``null`` inside a list is ignored). All
        the messages between two people are merged into one edge whose labels are the union of
        theirs. ``None`` (default) gives an unlabeled graph.
    nodes
        **Required**: the *public* list of the people (the node set), or ``"from data"``.
        Node ``i`` is ``nodes[i]``, people who exchanged no message are isolated nodes, and a
        row naming someone outside the list is an error (``ValueError`` that counts such rows
        without naming anyone). The ids must be of the columns' kind: integers (not ``bool``,
        not ``float``) for integer columns, ``str`` for text columns (else ``TypeError``:
        ``True == 1`` and ``1.0 == 1`` in Python).

        Every graph metric of this package assumes a public node set: neighbouring graphs have
        the same nodes, in the same order. A node set read from the private table breaks that:
        removing one pair's messages can remove a person, which changes the node set and every
        later node index, so the two graphs are at distance ``inf`` (no guarantee covers them)
        and node-indexed results (Blowfish policies, the degree projection's order) move.
        ``nodes="from data"`` opts into exactly that, explicitly: the node set is the sorted set
        of people seen in the table, it is *derived from and disclosed by the data*, and no
        guarantee of this package covers it (use it for public data, or when the set of people
        is itself public and every one of them appears). Omitting ``nodes`` is a ``TypeError``.
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
        with ``node_ids`` the people, in the order of ``nodes`` (sorted for ``"from data"``).

    Notes
    -----
    The rows are read by one streaming Polars query (plus one for the vocabulary, and one for
    ``nodes="from data"``) that returns integer codes only: a 10 M-row Parquet log of 1.25 M
    people becomes a graph in about 6 s at a peak of about 110 bytes per message (docs/performance.md,
    "How large a graph one machine takes"). A ``LazyFrame`` is evaluated more than once, so it
    must give the same rows each time (any order); one whose words change between evaluations is
    refused with a ``RuntimeError``.

    Raises
    ------
    TypeError
        ``nodes`` is missing, ``frame`` is not a Polars frame, the id columns are not integers
        or text or differ in dtype, ``nodes`` holds ids of another kind, or the label column
        has the wrong type.
    ValueError
        a column is missing, an endpoint is null, rows name people outside ``nodes``, or a
        self-message is found with ``self_loops="error"``.

    Examples
    --------
    >>> import polars as pl, opendp_graph as dpg
    >>> log = pl.DataFrame({"sender": ["ann", "bob", "ann", "cy"],
    ...                     "recipient": ["bob", "ann", "cy", "ann"],
    ...                     "word": ["lunch", "re", "memo", None]})
    >>> staff = ["ann", "bob", "cy", "dee"]  # public: the people of the organisation
    >>> g = dpg.polars.graph_from_polars(log, src="sender", dst="recipient", labels="word", nodes=staff)
    >>> g, g.node_ids
    (Graph(num_nodes=4, num_edges=2, labeled=True), ('ann', 'bob', 'cy', 'dee'))
    >>> sorted(g.edge_labels(0, 1))
    ['lunch', 're']
    >>> dpg.polars.graph_from_polars(log, src="sender", dst="recipient", directed="mutual", nodes=staff).num_edges
    2
    >>> dpg.polars.graph_from_polars(log, src="sender", dst="recipient", nodes="from data").node_ids  # disclosed
    ('ann', 'bob', 'cy')
    >>> dpg.polars.graph_from_polars(log, src="sender", dst="recipient", nodes=["ann", "bob"])
    Traceback (most recent call last):
    ...
    ValueError: a row names someone who is not in nodes (the public list of people); add them to nodes, or remove those rows
    >>> dpg.polars.graph_from_polars(pl.DataFrame({"s": [1, 2], "r": ["2", "3"]}), "s", "r", nodes="from data")
    Traceback (most recent call last):
    ...
    TypeError: the src column 's' has dtype Int64 but the dst column 'r' has dtype String: a person needs one id type in both columns (as strings 1 and '1' would be one person, as values never the same); cast both columns to one dtype
    """
    if directed not in _DIRECTED:
        raise ValueError(f"directed must be one of {_DIRECTED}, got {directed!r}")
    if self_loops not in _SELF_LOOPS:
        raise ValueError(f"self_loops must be one of {_SELF_LOOPS}, got {self_loops!r}")
    if nodes is None:
        raise TypeError(
            "graph_from_polars needs nodes=, the public list of people (the node set must be public: read from "
            'the table, it changes with one pair\'s messages and no guarantee covers it); pass nodes="from data" '
            "to derive it from the table anyway, disclosed and unprotected"
        )
    if isinstance(nodes, str) and nodes != FROM_DATA:
        raise ValueError(f"nodes must be the public list of people or {FROM_DATA!r}, got {nodes!r}")
    lazy = _as_lazy(frame)
    schema = schema_of(lazy)
    kind = _check_id_columns(schema, src, dst)
    labels, listed = _label_column(schema, labels)
    people = _people(lazy, nodes, kind, schema, src, dst)
    u, v, w, vocabulary = _coded_rows(lazy, src, dst, labels, listed, kind, people, schema[src])
    u, v, w = _kept_rows(u, v, w, len(people), self_loops, directed)
    if w is None:
        return Graph.from_arrays(u, v, len(people), node_ids=people)
    matrix, words = _word_matrix(w, vocabulary)
    del w
    return Graph.from_arrays(u, v, len(people), label_matrix=matrix, vocabulary=words, node_ids=people)


def _label_column(schema: Any, labels: str | None) -> tuple[str | None, bool]:
    """The label column, checked (``String`` or ``List(String)``), and whether it holds lists."""
    import polars as pl

    if labels is None:
        return None, False
    labels = _check_column(schema, labels, "labels")
    dtype = schema[labels]
    if dtype not in (pl.String, pl.List(pl.String)):
        raise TypeError(f"labels column {labels!r} must be String or List(String), got {_dtype_name(dtype)}")
    return labels, dtype != pl.String


def _id_expressions(src: str, dst: str, kind: str) -> list[Any]:
    import polars as pl

    ids = [pl.col(src), pl.col(dst)]
    return [c.cast(pl.String) for c in ids] if kind == "text" else ids


def _people(lazy: Any, nodes: Any, kind: str, schema: Any, src: str, dst: str) -> list[Any]:
    """The node set: the public ``nodes`` checked (their kind, distinct), or the people of the table
    for ``nodes="from data"`` (disclosed: read from the private table, as the docstring says)."""
    import polars as pl

    if isinstance(nodes, str):  # FROM_DATA, checked by the caller
        ids = _id_expressions(src, dst, kind)
        seen = pl.concat([lazy.select(ids[0].alias("_p")), lazy.select(ids[1].alias("_p"))]).drop_nulls().unique()
        return _collect(seen.sort("_p"))["_p"].to_list()  # text: UTF-8 byte order = Python's code point order
    people = list(nodes)
    for person in people:
        if not (isinstance(person, str) if kind == "text" else isinstance(person, Integral) and not isinstance(person, bool)):
            want = "strings" if kind == "text" else "integers"
            raise TypeError(f"nodes must be {want}, like the {schema[src]} columns {src!r}/{dst!r}; got {person!r} ({type(person).__name__})")
    if len(set(people)) != len(people):
        raise ValueError("nodes are not distinct")
    return people


def _coded_rows(
    lazy: Any, src: str, dst: str, labels: str | None, listed: bool, kind: str, people: list[Any], id_dtype: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, list[str]]:
    """Every row as integer codes ``(u, v, w)`` (node indices, and the label's vocabulary position
    or -1 for none), with the vocabulary; refuses null ids and people outside the node set."""
    import polars as pl

    old, new = _person_codes(people, kind, id_dtype)
    ids = _id_expressions(src, dst, kind)
    # Every row is mapped in ONE streaming query: the labels to vocabulary positions, then the
    # people to node indices, both by joins with public tables (much faster than replace_strict),
    # text dropped as early as it can be (less memory); only integer codes come back, no Python
    # object per row. One query on purpose: a frame evaluated twice may give its rows in another
    # order (an unordered group-by upstream), which would pair labels with the wrong messages.
    # Person codes: the node index, -1 for a null id or someone outside nodes (told apart below).
    rows = lazy.select(ids[0].alias("_a"), ids[1].alias("_b"), *([pl.col(labels).alias("_w")] if labels else []))
    vocabulary: list[str] = []
    if labels is not None:
        if listed:  # one row per (message, label); a message without labels keeps one (a null word)
            rows = rows.explode("_w")
        found = lazy.select(pl.col(labels).alias("_w"))
        words = _collect((found.explode("_w") if listed else found).drop_nulls().unique().sort("_w"), streaming=True)["_w"]
        table = pl.DataFrame({"_w": words, "_k": np.arange(words.len(), dtype=np.int32)}).lazy()
        # -1: no label; -3: a word the vocabulary query did not see (the frame changed between the two)
        word = pl.when(pl.col("_w").is_null()).then(-1).otherwise(pl.col("_k").fill_null(-3)).cast(pl.Int32).alias("_k")
        rows = rows.join(table, on="_w", how="left", maintain_order="none").select("_a", "_b", word)
        vocabulary = words.to_list()
    for column, alias in (("_a", "_u"), ("_b", "_v")):
        rows = rows.join(pl.DataFrame({column: old, alias: new}).lazy(), on=column, how="left", maintain_order="none")
    out = _collect(rows.select(pl.col("_u").fill_null(-1), pl.col("_v").fill_null(-1), *(["_k"] if labels else [])), streaming=True)
    u, v = out["_u"].to_numpy(), out["_v"].to_numpy()
    w = out["_k"].to_numpy() if labels is not None else None
    del out
    if w is not None and (w == -3).any():
        raise RuntimeError(
            "the frame gave different rows when evaluated twice (a label is missing from its vocabulary); collect it into a DataFrame first"
        )
    if u.min(initial=0) < 0 or v.min(initial=0) < 0:
        _refuse_null_ids(lazy, src, dst)
        # on private data: neither who nor how many (a refusal names the broken rule only)
        raise ValueError("a row names someone who is not in nodes (the public list of people); add them to nodes, or remove those rows")
    return u, v, w, vocabulary


def _kept_rows(
    u: np.ndarray, v: np.ndarray, w: np.ndarray | None, num_nodes: int, self_loops: str, directed: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The rows the graph is built from: self-messages refused or dropped, and with
    ``directed="mutual"`` only pairs with messages both ways."""
    keep = None  # the rows to build from, when not all of them
    if _any_equal(u, v):
        if self_loops == "error":
            raise ValueError("the table has self-messages (sender == recipient); pass self_loops='drop' to ignore them")
        keep = u != v
    if directed == "mutual":
        n = np.int64(max(num_nodes, 1))
        forward = u.astype(np.int64) * n + v
        backward = v.astype(np.int64) * n + u
        answered = np.isin(backward, forward if keep is None else forward[keep])
        keep = answered if keep is None else answered & keep
        del forward, backward
    if keep is not None and not keep.all():
        u, v = u[keep], v[keep]
        w = w[keep] if w is not None else None
    return u, v, w


def _word_matrix(words: np.ndarray, vocabulary: list[str]) -> tuple[sp.coo_array, list[str]]:
    """The (row × word) matrix of the rows' word codes (``-1``: no label) over the words used,
    with those words: 32-bit indices where they fit, no per-row copy when every row has one."""
    labelled = words >= 0
    every = bool(labelled.all())
    if not every:
        rows = np.flatnonzero(labelled)
        words = words[labelled]
    used = np.flatnonzero(np.bincount(words, minlength=len(vocabulary)))
    if used.size < len(vocabulary):  # rows were dropped (self-loops, one-way pairs): only their words
        renumber = np.zeros(len(vocabulary), dtype=np.int32)
        renumber[used] = np.arange(used.size, dtype=np.int32)
        words = renumber[words]
        vocabulary = [vocabulary[i] for i in used.tolist()]
    index = np.int32 if labelled.size < 2**31 - 1 else np.int64
    rows = np.arange(labelled.size, dtype=index) if every else rows.astype(index)
    shape = (labelled.size, len(vocabulary))
    return sp.coo_array((np.ones(rows.size, dtype=bool), (rows, words)), shape=shape), vocabulary


def _person_codes(people: list, kind: str, dtype: Any) -> tuple[Any, Any]:
    """``(old, new)``, the public table the id columns are joined with: each person's id (in the
    columns' dtype) and position in ``people`` (Int32 when it fits). People whose id the column's dtype cannot
    hold (an integer out of its range) are left out: they match no row."""
    import polars as pl

    code = np.int32 if len(people) < 2**31 - 1 else np.int64
    if kind == "text":
        return pl.Series(people, dtype=pl.String), pl.Series(np.arange(len(people), dtype=code))
    info = np.iinfo(pl.Series([], dtype=dtype).to_numpy().dtype)
    values = np.empty(len(people), dtype=object)
    values[:] = people  # Python integers of any size
    fits = np.flatnonzero((values >= info.min) & (values <= info.max)) if values.size else np.zeros(0, dtype=np.int64)
    return pl.Series(values[fits].tolist(), dtype=dtype), pl.Series(fits.astype(code))


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
    >>> dpg.polars.graph_to_polars(g).rows()
    [('x', 'y', ['a', 'b']), ('y', 'z', [])]
    """
    import polars as pl

    if not isinstance(graph, Graph):
        raise TypeError(not_a_graph(graph))
    names = [src, dst] + ([labels] if graph.is_labeled else [])
    if len(set(names)) != len(names):
        raise ValueError(f"column names must be distinct, got {names}")
    a, b = graph.src, graph.dst
    data: dict[str, Any]  # columns: Series, lists or arrays
    if node_ids and graph.node_ids is not None:
        ids = graph.node_ids
        try:
            series = pl.Series(list(ids))  # keeps the ids' dtype, also for a graph without edges
            data = {src: series.gather(a).rename(src), dst: series.gather(b).rename(dst)}
        except (TypeError, ValueError, pl.exceptions.PolarsError):  # ids of mixed types
            data = {src: [ids[i] for i in a.tolist()], dst: [ids[i] for i in b.tolist()]}
    else:
        data = {src: a.copy(), dst: b.copy()}
    frame = pl.DataFrame(data)
    if graph.is_labeled:
        sets = [sorted(s) for s in graph.label_sets()]
        frame = frame.with_columns(pl.Series(labels, sets, dtype=pl.List(pl.String)))
    return frame
