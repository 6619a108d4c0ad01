"""Polars tables into message logs: :func:`message_log` reads a table once, with the checks every
person-level release relies on, into the arrays of a
:class:`~opendp_graph.measurements._message_log.MessageLog` (the log, its domain and metric, and
the releases on it are mechanisms, below this adapter: :mod:`opendp_graph.measurements._message_log`,
:mod:`opendp_graph.measurements._capped_totals`). :func:`message_rows` and :func:`per_message` are
the table steps the text front end shares.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..measurements._message_log import MessageLog

__all__ = ["message_log"]


def _column(frame: Any, name: Any, what: str) -> str:
    if not isinstance(name, str) or not name:
        raise TypeError(f"{what} must be a column name (a non-empty str), got {name!r}")
    from ._convert import schema_of

    names = schema_of(frame).names()
    if name not in names:
        raise ValueError(f"the log has no column {name!r} (the {what} column); it has {names}")
    return name


def message_log(
    frame: Any,
    *,
    message_id: str = "message_id",
    sender: str = "sender",
    recipient: str = "recipient",
    time: str | None = None,
    words: str | None = None,
) -> MessageLog:
    """Read a message table once into a :class:`MessageLog` (a snapshot every release reads).

    :param frame: a Polars ``DataFrame`` or ``LazyFrame``, either one row per (message,
        recipient) (the Enron table of :func:`~opendp_graph.datasets.load_enron_messages`) or one
        row per message with a ``List`` recipient column.
    :param message_id: the column that identifies a message (integer or text, never null).
    :param sender: the sender column; ``recipient`` the recipient column (or a list of them).
        Both hold ids of one integer or text dtype, never null (the same preconditions as
        :func:`~opendp_graph.polars.person_unit`).
    :param time: optional time column (a ``Datetime`` or ``Date``), one value per message.
    :param words: optional column giving a message's words: an integer count, a ``List`` of
        tokens (its length) or a text (its whitespace-separated tokens), one value per message.
    :raises TypeError: for a wrong column dtype (schema, public), before any value is read.
    :raises ValueError: for a missing column, a null id, or a message whose sender, time or
        words differ between its rows (one message has one header).

    A message to oneself (sender among its recipients) is kept, with its owner once. Recipients
    repeated within a message count once. Message ids are the messages: two messages given
    one id are one message (refused only when their senders, times or words differ).

    **What is protected** is a person with every message they took part in, *as a whole*
    (:func:`person_log_distance`). Deleting a person's rows from the table is not that change:
    it rewrites a group message ``u → {v, w}`` as ``u → {w}`` instead of removing it, and the
    release does not bound such rewrites (200 messages ``u_i → {v, w_i}`` capped at ``τ = 1``:
    1 with ``v``, 200 after deleting ``v``'s rows, 0 after removing ``v``'s messages).

    >>> import polars as pl, opendp_graph as dpg
    >>> log = dpg.polars.message_log(pl.DataFrame({
    ...     "message_id": [1, 1, 2], "sender": ["a", "a", "b"], "recipient": ["b", "c", "b"]}))
    >>> log, log.load().tolist()
    (MessageLog(<2 messages among 3 people>), [1.0, 2.0, 1.0])
    """
    table, id_kind = message_rows(frame, message_id=message_id, sender=sender, recipient=recipient, time=time, words=words)
    return _build(table, id_kind)


def message_rows(
    frame: Any,
    *,
    message_id: str = "message_id",
    sender: str = "sender",
    recipient: str = "recipient",
    time: str | None = None,
    words: str | None = None,
    text: str | None = None,
) -> tuple[Any, str | None]:
    """The rows of a message table after :func:`message_log`'s checks, collected: columns
    ``__id``, ``__s``, ``__r`` (one recipient per row), and ``__time`` / ``__words`` / ``__text``
    for the optional columns; returns ``(rows, id_kind)``. Every reader of a message table goes
    through it (:func:`message_log`, the text front end's person tables), so that a table one of
    them refuses, all refuse. Schema errors come first, before any value is read; the errors on
    values name the broken rule, never a value (a refusal must not tell a secret). ``text``:
    an optional ``String`` column read as part of a message's header (one text per message)."""
    import polars as pl

    from ._convert import _check_id_columns, _collect, schema_of

    if isinstance(frame, pl.DataFrame):
        frame = frame.lazy()
    if not isinstance(frame, pl.LazyFrame):
        raise TypeError(f"frame must be a Polars DataFrame or LazyFrame, got {type(frame).__name__}")
    schema = schema_of(frame)
    _column(frame, message_id, "message_id")
    _column(frame, sender, "sender")
    _column(frame, recipient, "recipient")
    if message_id in (sender, recipient):
        raise ValueError(f"message_id must name its own column, not the {'sender' if message_id == sender else 'recipient'} column {message_id!r}")
    listed = isinstance(schema[recipient], pl.List)
    if listed:
        frame = frame.explode(recipient)
    _check_ids(schema[message_id], "message_id")
    # the person unit's rules: one integer or text dtype for both columns (nulls: on the snapshot)
    id_kind = _check_id_columns(schema_of(frame), sender, recipient, "log")
    extra = []
    if time is not None:
        _column(frame, time, "time")
        if not isinstance(schema[time], (pl.Datetime, pl.Date)):
            raise TypeError(f"time column {time!r} must be a Datetime or Date, got {schema[time]}")
        extra.append(pl.col(time).cast(pl.Datetime("us")).dt.replace_time_zone(None).alias("__time"))
    if words is not None:
        _column(frame, words, "words")
        dtype = schema[words]
        if isinstance(dtype, pl.List):  # its tokens, null tokens not counted
            extra.append(pl.col(words).list.drop_nulls().list.len().cast(pl.Int64).alias("__words"))
        elif dtype == pl.String:  # its runs of non-whitespace
            extra.append(pl.col(words).fill_null("").str.count_matches(r"\S+").cast(pl.Int64).alias("__words"))
        elif dtype.is_integer():  # a count above 2⁶³ − 1 becomes null, refused below
            extra.append(pl.col(words).cast(pl.Int64, strict=False).alias("__words"))
        else:
            raise TypeError(f"words column {words!r} must be an integer count, a List of tokens or a String, got {dtype}")
    if text is not None:
        _column(frame, text, "text")
        if schema[text] not in (pl.String, pl.Null):
            raise TypeError(f"text column {text!r} must be a String (null: no text), got {schema[text]}")
        extra.append(pl.col(text).cast(pl.String).alias("__text"))
    table = _collect(frame.select(pl.col(message_id).alias("__id"), pl.col(sender).alias("__s"), pl.col(recipient).alias("__r"), *extra))
    if table["__id"].null_count():
        raise ValueError("the message_id column has nulls: every row must name its message")
    if table["__s"].null_count() or table["__r"].null_count():
        raise ValueError(
            f"the {sender!r}/{recipient!r} columns contain nulls{' or an empty recipient list' if listed else ''}; "
            "every message needs a sender and a recipient"
        )
    if "__words" in table.columns and (table["__words"].null_count() or (table["__words"] < 0).any()):
        raise ValueError("the words column has nulls, negative counts or counts above 2**63 - 1")
    return table, id_kind


_HEADER = {"__s": "senders", "__time": "times", "__words": "word counts", "__text": "texts"}


def per_message(rows: Any) -> Any:
    """One row per message of :func:`message_rows`' output, in first-seen order: ``__id``, each
    header column's value (sender, time, words, text: refused when a message's rows disagree,
    since one message has one header) and ``__r``, its distinct recipients in order."""
    import polars as pl

    header = [c for c in _HEADER if c in rows.columns]
    grouped = rows.group_by("__id", maintain_order=True).agg(
        *[pl.col(c).n_unique().alias(c + "_n") for c in header],
        *[pl.col(c).first() for c in header],
        pl.col("__r").unique(maintain_order=True),
    )
    for c in header:
        if (grouped[c + "_n"] > 1).any():
            raise ValueError(f"a message has rows with different {_HEADER[c]}: one message has one header (check the message_id column)")
    return grouped.drop([c + "_n" for c in header])


def _check_ids(dtype: Any, what: str) -> None:
    from ._convert import _dtype_name, _id_kind  # the dtypes a person id may have

    if _id_kind(dtype) is None:
        raise TypeError(f"the {what} column must hold integers or text, got {_dtype_name(dtype)}")


def _build(table: Any, id_kind: str | None = None) -> MessageLog:
    import polars as pl

    people = pl.concat([table["__s"], table["__r"]]).unique().sort()
    person_index = {p: i for i, p in enumerate(people.to_list())}
    messages = per_message(table)
    senders = np.array([person_index[s] for s in messages["__s"].to_list()], dtype=np.int64)
    owner_lists, pair_lists = [], []
    for s, recipients in zip(senders.tolist(), messages["__r"].to_list()):
        r = [person_index[x] for x in recipients]
        others = [x for x in dict.fromkeys(r) if x != s]
        owner_lists.append([s, *others])
        pair_lists.append(others)
    recipients_count = np.array([len(set(r)) for r in messages["__r"].to_list()], dtype=np.int64)
    owner_indptr, owners = _csr(owner_lists)
    pair_indptr, pair_recipients = _csr(pair_lists)
    time = messages["__time"].to_numpy().astype("datetime64[us]") if "__time" in messages.columns else None
    words = messages["__words"].to_numpy().astype(np.int64) if "__words" in messages.columns else None
    return MessageLog(
        people=np.asarray(people.to_list(), dtype=object),
        owner_indptr=owner_indptr,
        owners=owners,
        sender=senders,
        recipients=recipients_count,
        pair_indptr=pair_indptr,
        pair_recipients=pair_recipients,
        time=time,
        words=words,
        id_kind=id_kind,
    )


def _csr(lists: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    indptr = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum([len(x) for x in lists], out=indptr[1:])
    values = np.fromiter((v for x in lists for v in x), dtype=np.int64, count=int(indptr[-1]))
    return indptr, values
