"""The table half of the privacy units: what a message table must satisfy for a unit's
``(metric, d_in)`` to hold on it.

* the pair of a row: :func:`pair_identifier`; counts: :func:`rows_per_person`, :func:`rows_per_pair`;
* a unit's input domain on a table (:meth:`~opendp_graph.polars.PrivacyUnit.check` runs
  :func:`_check_table`): the schema first (id columns of one integer or text dtype, the label
  column of an edge-label table), then the data (no null endpoint, the declared
  ``max_messages``, the edge-label table shape and the Pufferfish model's coverage).

Whether an OpenDP privacy unit written by hand protects a unit (``check_privacy_unit``) is unit
logic and lives with the units. This module imports no unit class (the units import it): it reads
a unit's typed fields (``bound_on`` tells a person, a pair and an edge-label unit apart) and never
changes them. The preconditions themselves, and why each is needed, are stated once, in the
module docstring of :mod:`opendp_graph.polars._units` (*Preconditions on the table*).
"""

from __future__ import annotations

from typing import Any

from ._convert import _collect, schema_of

__all__ = ["rows_per_person", "rows_per_pair", "pair_identifier"]

_SEPARATOR = "\x1f"  # ASCII unit separator between the two endpoints of a pair key


def _column_name(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError(f"{name} must be a column name (non-empty str), got {value!r}")
    return value


def pair_identifier(src: str = "src", dst: str = "dst"):
    """The Polars expression naming the unordered pair ``{src, dst}`` of a row, as a string.

    Both endpoints are cast to strings and joined, smaller first, with the ASCII unit separator.
    Two different pairs could only share a key if a name contained that separator; then the
    two pairs form one identifier, which protects both together (coarser, still sound).

    A row with a null endpoint gets a null identifier (not the pair of its other endpoint with
    itself). OpenDP groups null identifiers together, so all such rows form one identifier of
    their own. The units refuse such tables anyway (module docstring, *Preconditions*); the
    expression cannot see the schema, so the dtype rule (one id dtype in both columns) is checked
    with the table, by :meth:`PrivacyUnit.check` and :func:`~opendp_graph.polars.compositor`.

    >>> import polars as pl, opendp_graph as dpg
    >>> frame = pl.DataFrame({"s": [2, 1, 1, None], "r": [1, 2, 3, 3]})
    >>> frame.select(dpg.polars.pair_identifier("s", "r").alias("pair"))["pair"].str.replace("\\x1f", "-").to_list()
    ['1-2', '1-2', '1-3', None]
    """
    import polars as pl

    a = pl.col(_column_name(src, "src")).cast(pl.String)
    b = pl.col(_column_name(dst, "dst")).cast(pl.String)
    # when a or b is null the comparison is null, the otherwise branch runs and concat_str
    # propagates the null (min_/max_horizontal would skip it: (null, c) -> c-c)
    return pl.when(a <= b).then(pl.concat_str(a, b, separator=_SEPARATOR)).otherwise(pl.concat_str(b, a, separator=_SEPARATOR))


def rows_per_person(frame: Any, src: str = "src", dst: str = "dst"):
    """For every person, the number of rows in which they are sender or recipient (a
    self-message counts once). Returns a Polars ``DataFrame`` with columns ``person, rows``.

    The id columns must satisfy the preconditions of :mod:`opendp_graph.polars._units` (one
    integer or text dtype in both, no nulls): ``TypeError`` / ``ValueError`` otherwise, never a count for a
    "person" ``null``.

    >>> import polars as pl, opendp_graph as dpg
    >>> t = pl.DataFrame({"s": ["a", "a", "b", "c"], "r": ["b", "c", "a", "c"]})
    >>> dpg.polars.rows_per_person(t, "s", "r").sort("person").rows()
    [('a', 3), ('b', 2), ('c', 2)]
    >>> dpg.polars.rows_per_person(pl.DataFrame({"s": ["a", None], "r": ["b", "c"]}), "s", "r")
    Traceback (most recent call last):
    ...
    ValueError: the src/dst columns 's'/'r' contain nulls; every message needs a sender and a recipient
    """
    import polars as pl

    from ._convert import _valid_ids

    lazy = _valid_ids(frame, src, dst).select(pl.col(src).alias("_s"), pl.col(dst).alias("_r")).with_row_index("_row")
    roles = pl.concat([lazy.select("_row", pl.col("_s").alias("person")), lazy.select("_row", pl.col("_r").alias("person"))]).unique()
    return _collect(roles.group_by("person").agg(pl.len().cast(pl.Int64).alias("rows")))


def rows_per_pair(frame: Any, src: str = "src", dst: str = "dst"):
    """For every unordered pair of people, the number of rows (messages either way).
    Returns a Polars ``DataFrame`` with columns ``pair, rows`` (``pair`` = :func:`~opendp_graph.polars.pair_identifier`).

    Same preconditions as :func:`rows_per_person` (``TypeError`` / ``ValueError``): a row with
    a null endpoint is not a message of any pair, and int/str columns would merge ``1`` and
    ``"1"``."""
    import polars as pl

    from ._convert import _valid_ids

    lazy = _valid_ids(frame, src, dst)
    return _collect(lazy.group_by(pair_identifier(src, dst).alias("pair")).agg(pl.len().cast(pl.Int64).alias("rows")))


# ------------------------------------------------------------------------- a unit's domain
def _check_table(unit: Any, frame: Any) -> None:
    """The body of :meth:`PrivacyUnit.check <opendp_graph.polars.PrivacyUnit.check>` (its
    docstring says what is checked, in which order)."""
    from ._convert import _as_lazy, _refuse_null_ids

    lazy = _as_lazy(frame)
    _check_schema(unit, schema_of(lazy))
    _refuse_null_ids(lazy, unit.src, unit.dst, unit.extra.get("message_id"))
    if unit.max_messages is None:
        return
    if unit.bound_on == "edge label":
        _check_edge_label_table(lazy, unit.src, unit.dst, unit.label)
        _check_secrets_of_the_model(lazy, unit.src, unit.dst, unit.label, unit.model, unit.structure)
        return
    counts = rows_per_person(lazy, unit.src, unit.dst) if unit.bound_on == "person" else rows_per_pair(lazy, unit.src, unit.dst)
    if int(counts["rows"].max() or 0) > unit.max_messages:
        raise ValueError(
            f"the table violates the declared bound max_messages={unit.max_messages} per {unit.bound_on}, so the "
            f"{unit.unit}-level guarantee would not hold. Declare a larger public bound, or "
            + (
                "let the release bound each person itself: dpg.polars.make_private_total on "
                "dpg.polars.message_log(table) (a person has no identifier column, so a query cannot truncate per person)"
                if unit.bound_on == "person"
                else "use an identifier unit (max_messages=None) and truncate in the query"
            )
        )


def _check_schema(unit: Any, schema: Any) -> None:
    """The public half of :meth:`PrivacyUnit.check <opendp_graph.polars.PrivacyUnit.check>`:
    columns and dtypes, no value read."""
    from ._convert import _check_id_columns, _dtype_name, _id_kind

    _check_id_columns(schema, unit.src, unit.dst, "table")
    message_id = unit.extra.get("message_id")
    if message_id is not None:
        if message_id not in schema:
            raise ValueError(f"message_id column {message_id!r} is not in the table: a message unit needs the column naming each message")
        if _id_kind(schema[message_id]) is None:
            raise TypeError(f"the message_id column {message_id!r} has dtype {_dtype_name(schema[message_id])}: it must hold integer or text ids")
    if unit.bound_on == "edge label":
        label = unit.label
        if label not in schema:
            raise ValueError(f"label column {label!r} is not in the table; build one with dpg.polars.edge_label_table(graph)")
        if _id_kind(schema[label]) != "text":
            raise TypeError(
                f"the label column {label!r} has dtype {_dtype_name(schema[label])}: an edge-label table holds one label per row "
                "(String, Categorical or Enum); explode a list column, or build the table with "
                "dpg.polars.edge_label_table(graph)"
            )


def _check_edge_label_table(lazy: Any, src: str, dst: str, label: str) -> None:
    """The data half of the edge-label table's domain (the schema is checked before): no null
    label, no self-pair (``src == dst`` is not an edge), each (edge, label) once in either
    orientation. One message for all three, so a refusal reveals only that the table is not
    an edge-label table."""
    import polars as pl

    keys = _collect(
        lazy.select(
            pair_identifier(src, dst).alias("_pair"), pl.col(label).cast(pl.String).alias("_label"), (pl.col(src) == pl.col(dst)).alias("_loop")
        )
    )
    if keys["_label"].null_count() or keys["_loop"].any() or keys.select("_pair", "_label").is_duplicated().any():
        raise ValueError(
            "the table is not an edge-label table (one row per edge and label: no nulls, no self-pairs, no "
            "duplicates): a secret flip could move more rows than the flip bound; build it with "
            "dpg.polars.edge_label_table(graph)"
        )


def _check_secrets_of_the_model(lazy: Any, src: str, dst: str, label: str, model: Any, structure: Any) -> None:
    """The data half of a Pufferfish unit's coverage: every pair is an edge of the public
    structure, and every label one the model describes. Fixed messages (which pair or label is
    outside is not said)."""
    import numpy as np
    import polars as pl

    pairs = _collect(lazy.select(pl.col(src).alias("_s"), pl.col(dst).alias("_d")).unique())
    n = structure.num_nodes
    if structure.node_ids is None:
        index = None
    else:
        index = {name: i for i, name in enumerate(structure.node_ids)}
    ends = []
    for column in ("_s", "_d"):
        values = pairs[column].to_list()
        if index is None:
            ok = all(isinstance(v, int) and 0 <= v < n for v in values)
            positions = values if ok else None
        else:
            positions = [index.get(v, -1) for v in values]
            ok = all(p >= 0 for p in positions)
        ends.append(np.asarray(positions, dtype=np.int64) if ok else None)
    first, second = ends
    outside = first is None or second is None
    if first is not None and second is not None and pairs.height:  # not outside
        lo, hi = np.minimum(first, second), np.maximum(first, second)
        keys = lo * np.int64(max(n, 1)) + hi
        outside = bool((lo == hi).any()) or not bool(np.isin(keys, structure.edge_keys).all())
    if outside:
        raise ValueError(
            "the table has rows on pairs that are not edges of the structure given to pufferfish_unit: the model's "
            "guarantee covers the secrets of that structure only; build the table with "
            "dpg.polars.edge_label_table(graph) and pass structure=graph"
        )
    vocabulary = model.vocabulary  # declared by every CorrelationModel (None: all properties)
    if isinstance(vocabulary, tuple):
        labels = _collect(lazy.select(pl.col(label).cast(pl.String).is_in(list(vocabulary)).all())).item()
        if not labels:
            raise ValueError(
                "the table has labels outside the model's vocabulary (the model describes only the properties it was "
                f"fitted on); keep those first: table.filter(pl.col({label!r}).is_in(model.vocabulary))"
            )
