"""The Enron e-mail corpus of Perry & Wolfe (156 employees, subjects only) as a labelled graph.

The data are *not* bundled: every loader takes the folder holding the three tab-separated files
of the ``patperry/iproc`` release (``employees.tsv``, ``messages.tsv``, ``recipients.tsv``), or
``path=None`` (the default) to let :func:`~opendp_graph.datasets.data_path` find the
``enron-perry-wolfe`` data set (local data folder, cache, or a checked download)::

    employees.tsv   id (1..156), name, department, long department, title, gender, seniority
    messages.tsv    message id, maildir file, unix time (s), subject, sender employee id
    recipients.tsv  message id, recipient position, recipient employee id

* :func:`load_enron_messages` gives the raw communication log as a Polars ``DataFrame``, one row
  per (message, recipient);
* :func:`load_enron` gives the :class:`~opendp_graph.Graph` of Shafieinejad et al. (paper 001,
  §5): one node per employee (public ids ``1..156``), an undirected edge between the sender and
  each recipient, and on each edge the set of unigrams and bigrams of the subjects of all messages
  exchanged on it (either direction);
* :func:`tokenize_subject` and :func:`subject_ngrams` are the (documented, deterministic)
  tokeniser used for the labels.

Tokenisation: the subject is lower-cased; leading reply/forward markers (``re:``, ``fw:``,
``fwd:``, also repeated, e.g. ``"RE: FW: re:"``) are removed because they describe the e-mail
client, not the content; tokens are maximal runs of letters and digits, which may contain an
inner apostrophe, hyphen, period, ampersand or slash between two alphanumeric characters
(``"l.p."`` → ``l.p``, ``"o'neal"`` → ``o'neal``, ``"s&p"`` → ``s&p``, ``"2000-01"`` → ``2000-01``).
Unigrams are the tokens; bigrams are two consecutive tokens of the same subject joined by one space.
No stop-word removal and no stemming (the paper does not report any).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from ..core._checks import utc_datetime
from ..core._mail import REPLY_MARKERS
from ._resolve import data_path

__all__ = ["load_enron", "load_enron_messages", "load_enron_employees", "tokenize_subject", "subject_ngrams"]

_FILES = ("employees.tsv", "messages.tsv", "recipients.tsv")
_TOKEN = re.compile(r"[0-9a-z]+(?:['\-.&/][0-9a-z]+)*")


def _folder(path: Any) -> Path:
    if path is None:
        return data_path("enron-perry-wolfe")
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or pathlib.Path naming the Enron folder, got {type(path).__name__}")
    folder = Path(path)
    if not folder.is_dir():
        raise FileNotFoundError(f"Enron folder not found: {folder}")
    missing = [name for name in _FILES if not (folder / name).is_file()]
    if missing:
        raise FileNotFoundError(f"Enron folder {folder} lacks {', '.join(missing)}")
    return folder


def tokenize_subject(subject: str | None) -> list[str]:
    """The tokens of one subject line, in order (see the module docstring for the rules).

    >>> tokenize_subject("RE: FW: Coral Energy, L.P. -- O'Neal's S&P memo")
    ['coral', 'energy', 'l.p', "o'neal's", 's&p', 'memo']
    >>> tokenize_subject(None)
    []
    """
    if subject is None:
        return []
    if not isinstance(subject, str):
        raise TypeError(f"subject must be a string or None, got {type(subject).__name__}")
    text = REPLY_MARKERS.sub("", subject.lower())
    return _TOKEN.findall(text)


def subject_ngrams(subject: str | None, orders=(1, 2)) -> set[str]:
    """The n-grams of one subject line for each ``n`` in ``orders`` (``n`` consecutive tokens
    joined by one space); by default unigrams and bigrams.

    >>> sorted(subject_ngrams("Re: Gas prices"))
    ['gas', 'gas prices', 'prices']
    >>> sorted(subject_ngrams("Re: Gas prices up", orders=(3,)))
    ['gas prices up']
    """
    tokens = tokenize_subject(subject)
    grams: set[str] = set()
    for n in _orders(orders):
        grams.update(" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
    return grams


def _orders(orders) -> tuple[int, ...]:
    if isinstance(orders, (str, bytes)) or not hasattr(orders, "__iter__"):
        raise TypeError(f"orders must be a sequence of n-gram lengths, got {orders!r}")
    out = tuple(sorted({int(n) for n in orders}))
    if not out or any(isinstance(n, bool) or n < 1 for n in orders) or any(int(n) != n for n in orders):
        raise ValueError(f"orders must be positive integers, got {orders!r}")
    return out


def load_enron_employees(path: str | Path | None = None):
    """The employee table as a Polars ``DataFrame``: ``id, name, department, long_department,
    title, gender, seniority`` (one row per employee, sorted by ``id``); ``path=None`` resolves
    the data set."""
    import polars as pl

    folder = _folder(path)
    names = ["id", "name", "department", "long_department", "title", "gender", "seniority"]
    frame = pl.read_csv(
        folder / "employees.tsv",
        separator="\t",
        has_header=False,
        new_columns=names,
        quote_char=None,
        schema_overrides={"id": pl.Int64},
    )
    return frame.sort("id")


def load_enron_messages(path: str | Path | None = None):
    """The communication log, one row per (message, recipient), as a Polars ``DataFrame``.

    Columns: ``message_id`` (``Int64``), ``time`` (``Datetime("us", "UTC")``, from the unix time
    in seconds), ``subject`` (``String``; ``null`` for the 1,030 messages without a subject),
    ``sender`` and ``recipient`` (``Int64`` employee ids, ``1..156``). Rows are sorted by
    ``(message_id, recipient position)``. Nothing is filtered: the release holds 38,388 rows.

    :param path: the folder with ``messages.tsv`` and ``recipients.tsv``; ``None`` resolves the
        ``enron-perry-wolfe`` data set (:func:`~opendp_graph.datasets.data_path`).
    :raises FileNotFoundError: if the folder or one of its files is missing (a
        :class:`~opendp_graph.datasets.DataUnavailableError` when it cannot be resolved).
    """
    import polars as pl

    folder = _folder(path)
    messages = pl.read_csv(
        folder / "messages.tsv",
        separator="\t",
        has_header=False,
        new_columns=["message_id", "file", "unix", "subject", "sender"],
        quote_char=None,
        schema_overrides={"message_id": pl.Int64, "file": pl.String, "unix": pl.Int64, "subject": pl.String, "sender": pl.Int64},
    )
    recipients = pl.read_csv(
        folder / "recipients.tsv",
        separator="\t",
        has_header=False,
        new_columns=["message_id", "position", "recipient"],
        quote_char=None,
        schema_overrides={"message_id": pl.Int64, "position": pl.Int64, "recipient": pl.Int64},
    )
    frame = recipients.join(messages, on="message_id", how="inner").sort(["message_id", "position"])
    return frame.select(
        pl.col("message_id"),
        pl.from_epoch(pl.col("unix"), time_unit="s").dt.replace_time_zone("UTC").alias("time"),
        pl.col("subject"),
        pl.col("sender"),
        pl.col("recipient"),
    )


def _within(frame, start, end):
    """Messages sent in ``[start, end)`` (either bound may be ``None``)."""
    import polars as pl

    for name, bound in (("start", start), ("end", end)):
        if bound is None:
            continue
        bound = utc_datetime(name, bound)
        literal = pl.lit(bound).dt.convert_time_zone("UTC").dt.cast_time_unit("us")
        frame = frame.filter(pl.col("time") >= literal if name == "start" else pl.col("time") < literal)
    return frame


def load_enron(path: str | Path | None = None, *, start=None, end=None, bigrams: bool = True, orders=None):
    """The Enron graph of paper 001 §5: employees, who wrote to whom, and the subjects' n-grams.

    One node per employee (``node_ids`` = the public employee ids ``1..156``, in that order, so
    node index ``i`` is employee ``i + 1``), an undirected edge between the sender and each
    recipient of every message (direction forgotten, repeated messages merged, self-sends dropped;
    there are none in this release), and on each edge the set of unigrams and bigrams
    (:func:`subject_ngrams`) of the subjects of all messages exchanged on it. The result has 156
    nodes and 1,843 edges.

    :param path: the ``enron-perry-wolfe`` folder; ``None`` (default) resolves it
        (:func:`~opendp_graph.datasets.data_path`).
    :param start: keep only messages sent at or after this time (a ``datetime`` or an ISO date
        string, UTC), e.g. to treat an earlier period as a public snapshot and release the later
        one (``load_enron(end="2001-01-01")`` and ``load_enron(start="2001-01-01")``). Every
        employee stays a node.
    :param end: keep only messages sent before this time.
    :param bigrams: ``False`` labels edges with the subjects' words (unigrams) only.
    :param orders: the n-gram lengths that label the edges (e.g. ``(3,)`` for trigrams only);
        overrides ``bigrams`` (``None``: ``(1, 2)``, or ``(1,)`` with ``bigrams=False``).
    :returns: a labelled :class:`~opendp_graph.Graph`.

    :example:

    >>> import opendp_graph as dpg
    >>> g = dpg.datasets.load_enron()  # doctest: +SKIP
    >>> g.num_nodes, g.num_edges  # doctest: +SKIP
    (156, 1843)
    """
    import scipy.sparse as sp

    from ..core.graph import Graph

    orders = _orders(orders) if orders is not None else ((1, 2) if bigrams else (1,))
    folder = _folder(path)
    employees = load_enron_employees(folder)
    ids = employees["id"].to_numpy()
    frame = load_enron_messages(folder)
    frame = _within(frame, start, end)
    sender = frame["sender"].to_numpy()
    recipient = frame["recipient"].to_numpy()
    index = {int(e): i for i, e in enumerate(ids.tolist())}
    unknown = set(np.unique(np.concatenate([sender, recipient])).tolist()) - set(index)
    if unknown:
        raise ValueError("messages name employee ids that are not in employees.tsv (the files do not match)")
    lookup = np.full(int(max(index)) + 1, -1, dtype=np.int64)
    lookup[list(index)] = list(index.values())
    u, v = lookup[sender], lookup[recipient]
    keep = u != v
    u, v = u[keep], v[keep]
    subjects = frame["subject"].to_list()
    subjects = [s for s, k in zip(subjects, keep.tolist()) if k]

    # n-grams per distinct subject, then one sparse (row × n-gram) matrix; Graph.from_arrays
    # merges duplicate edges and ORs their labels.
    distinct: dict[str | None, int] = {}
    subject_row = np.fromiter((distinct.setdefault(s, len(distinct)) for s in subjects), dtype=np.int64, count=len(subjects))
    vocabulary: dict[str, int] = {}
    rows, cols = [], []
    for s, r in distinct.items():
        for gram in subject_ngrams(s, orders):
            rows.append(r)
            cols.append(vocabulary.setdefault(gram, len(vocabulary)))
    by_subject = sp.csr_array(
        (np.ones(len(rows), dtype=np.int8), (np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64))),
        shape=(len(distinct), len(vocabulary)),
    )
    labels = by_subject[subject_row]
    return Graph.from_arrays(u, v, num_nodes=ids.size, label_matrix=labels, vocabulary=list(vocabulary), node_ids=[int(e) for e in ids])
