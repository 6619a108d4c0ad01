"""Text in a message log: tokens, n-grams per message or per pair, and a public snapshot split off
by time.

Tokenising is scikit-learn's (``CountVectorizer``'s analyzer: lower-casing, its token pattern,
its English stop words), behind the ``text`` extra (``pip install "opendp-graph[text]"``); we add
only what e-mail needs (leading ``re:``/``fw:`` markers removed) and the sentence boundaries a
language model needs (``<s>`` and ``</s>``).

**Per message or per pair.** A message's n-grams can be counted once per message
(:func:`ngram_counts`, ``per="message"``: what a language model is trained on) or once per pair
of people who exchanged them (``per="pair"``: the label sets of :func:`pair_ngram_graph`, the
edge properties of paper 001, whose counts :func:`~opendp_graph.make_label_counts` releases under
edge, group and Pufferfish privacy). The two differ when a pair repeats a subject: the first
counts every repetition, the second one. Every function here that counts says which it does.
**Messages to oneself** have no pair: the pair route leaves them out and says how many
(:func:`pair_ngram_graph` returns the number), the message route keeps them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from ..core._checks import utc_datetime
from ..core._mail import REPLY_MARKERS

__all__ = [
    "message_edge_frame",
    "BOS",
    "EOS",
    "UNK",
    "delivery_ngrams",
    "fold_unknown",
    "tokenizer",
    "message_tokens",
    "ngrams",
    "ngram_counts",
    "pair_ngram_graph",
    "person_ngram_table",
    "split_by_time",
]

BOS, EOS, UNK = "<s>", "</s>", "<unk>"


def _sklearn_text():
    try:
        from sklearn.feature_extraction import text
    except ImportError as error:  # the text extra is optional
        raise ImportError('the text front end needs scikit-learn: pip install "opendp-graph[text]"') from error
    return text


def tokenizer(
    *, stop_words: str | Sequence[str] | None = None, lowercase: bool = True, strip_reply_markers: bool = True
) -> Callable[[str | None], list[str]]:
    """A tokeniser: text → its words in order, as scikit-learn's ``CountVectorizer`` splits them
    (its default token pattern: runs of two or more word characters), lower-cased, with leading
    e-mail reply/forward markers (``"RE: FW:"``) removed and, optionally, stop words dropped.
    ``None`` or empty text gives ``[]``.

    :param stop_words: ``"english"`` (scikit-learn's list), a list of words, or ``None``.
    :param lowercase: lower-case first (scikit-learn's default).
    :param strip_reply_markers: remove leading ``re:``, ``fw:``, ``fwd:`` (they describe the
        e-mail client, not the content).

    >>> from opendp_graph.text import tokenizer
    >>> tokenizer()("RE: FW: Lunch at the Hyatt?")
    ['lunch', 'at', 'the', 'hyatt']
    >>> tokenizer(stop_words="english")("RE: FW: Lunch at the Hyatt?")
    ['lunch', 'hyatt']
    """
    if stop_words is not None and not isinstance(stop_words, str):
        stop_words = list(stop_words)
        if not all(isinstance(w, str) for w in stop_words):
            raise TypeError("stop_words must be 'english', a list of words, or None")
    elif isinstance(stop_words, str) and stop_words != "english":
        raise ValueError(f"stop_words must be 'english', a list of words, or None, got {stop_words!r}")
    text = _sklearn_text()
    analyze = text.CountVectorizer(lowercase=lowercase, stop_words=stop_words).build_analyzer()

    def analyzer(value: str | None) -> list[str]:
        if value is None:
            return []
        if not isinstance(value, str):
            raise TypeError("text must be a str or None")  # never the value's type: it is read off the data
        if strip_reply_markers:
            value = REPLY_MARKERS.sub("", value)
        return analyze(value)

    return analyzer


def fold_unknown(analyzer: Callable[[str | None], list[str]], vocabulary: Iterable[str]) -> Callable[[str | None], list[str]]:
    """The analyzer with every word outside the public ``vocabulary`` replaced by ``<unk>``."""
    known = frozenset(vocabulary)
    return lambda value: [w if w in known else UNK for w in analyzer(value)]


def ngrams(tokens: Sequence[str], orders: Iterable[int] = (1, 2), *, boundaries: bool = True) -> list[str]:
    """The n-grams of one token sequence, in order, each as its words joined by one space.
    With ``boundaries`` the sequence is padded with ``<s>`` before and ``</s>`` after, as a
    language model reads it (``<s>`` alone is never a unigram: it is not predicted).

    >>> from opendp_graph.text import ngrams
    >>> ngrams(["gas", "prices"], orders=(1, 2))
    ['gas', 'prices', '</s>', '<s> gas', 'gas prices', 'prices </s>']
    """
    orders = _orders(orders)
    padded = [BOS, *tokens, EOS] if boundaries else list(tokens)
    out: list[str] = []
    for n in orders:
        start = 1 if boundaries and n == 1 else 0
        for i in range(start, len(padded) - n + 1):
            out.append(" ".join(padded[i : i + n]))
    return out


def _orders(orders: Iterable[int]) -> tuple[int, ...]:
    values = tuple(orders)
    if not values or any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in values):
        raise ValueError(f"orders must be positive integers, got {values!r}")
    return tuple(sorted(set(values)))


def _frame(frame: Any, *columns: str, text: str | None = None):
    """``frame`` as a Polars ``DataFrame`` (a ``LazyFrame`` collected) holding ``columns``, or a
    ``TypeError``/``ValueError`` naming what is missing: the check of every table the front end
    reads. ``text``, the text column, must be a ``String`` (or all-null) column: checked on the
    schema, so a refusal never names the type of an offending value."""
    import polars as pl

    from ..polars._convert import _collect  # Polars' errors on values withheld (they can quote the data)

    if isinstance(frame, pl.LazyFrame):
        frame = _collect(frame)
    if not isinstance(frame, pl.DataFrame):
        raise TypeError(f"frame must be a polars DataFrame or LazyFrame, got {type(frame).__name__}")
    for name in columns:
        if name not in frame.columns:
            raise ValueError(f"the frame has no column {name!r} (columns: {frame.columns})")
    if text is not None and frame.schema[text] not in (pl.String, pl.Null):
        raise TypeError(f"text column {text!r} must be a String (null: no text), got {frame.schema[text]}")
    return frame


def _analyzer(analyzer: Callable[[str | None], list[str]] | None, vocabulary: Iterable[str] | None):
    """``analyzer`` (default :func:`tokenizer`'s), with words outside ``vocabulary`` folded to
    ``<unk>`` when one is given."""
    analyze = analyzer or tokenizer()
    return analyze if vocabulary is None else fold_unknown(analyze, vocabulary)


def message_tokens(
    frame: Any,
    text: str = "subject",
    *,
    message_id: str = "message_id",
    analyzer: Callable[[str | None], list[str]] | None = None,
    keep: Sequence[str] = ("time", "sender"),
):
    """One row per message with its tokens: a message log with one row per (message, recipient),
    as :func:`~opendp_graph.datasets.load_enron_messages` gives, reduced to the first row of each
    message (the text, the time and the sender are the message's) plus a ``tokens`` column
    (``List(String)``), ordered by time when there is a ``time`` column, then by ``message_id``.
    Messages whose text has no token keep an empty list.

    :param frame: a Polars ``DataFrame`` or ``LazyFrame``.
    :param text: the column holding each message's text.
    :param analyzer: the tokeniser (default :func:`tokenizer`'s).
    :param keep: the other per-message columns to keep (those present).
    """
    import polars as pl

    frame = _frame(frame, text, message_id, text=text)
    analyze = analyzer or tokenizer()
    columns = [c for c in keep if c in frame.columns and c not in (text, message_id)]
    messages = frame.group_by(message_id, maintain_order=True).agg([pl.col(text).first()] + [pl.col(c).first() for c in columns])
    order = (["time"] if "time" in columns else []) + [message_id]
    messages = messages.sort(order)
    tokens = [analyze(value) for value in messages[text].to_list()]
    return messages.with_columns(pl.Series("tokens", tokens, dtype=pl.List(pl.String)))


def ngram_counts(token_lists: Iterable[Sequence[str]], orders: Iterable[int] = (1, 2), *, boundaries: bool = True) -> Counter:
    """Non-private: each n-gram's number of occurrences, **per message** (a message that repeats
    an n-gram counts it each time; a message sent to ten people counts once). For public
    snapshots and for evaluation; the private counts come from a DP release.

    >>> from opendp_graph.text import ngram_counts
    >>> ngram_counts([["gas"], ["gas", "gas"]], orders=(1,))["gas"]
    3
    """
    orders = _orders(orders)
    counts: Counter = Counter()
    for tokens in token_lists:
        counts.update(ngrams(tokens, orders, boundaries=boundaries))
    return counts


def pair_ngram_graph(
    frame: Any,
    nodes: Sequence[Any],
    *,
    orders: Iterable[int] = (1, 2),
    text: str = "subject",
    src: str = "sender",
    dst: str = "recipient",
    analyzer: Callable[[str | None], list[str]] | None = None,
    boundaries: bool = True,
    vocabulary: Iterable[str] | None = None,
):
    """The communication graph of a log with, on each edge, the set of n-grams of all the
    messages the pair exchanged (either direction): counts over it are **per pair** (an n-gram a
    pair used fifty times counts once). Messages to oneself have no edge and are left out.

    :param frame: one row per (message, recipient), Polars.
    :param nodes: the public list of people (as for :func:`~opendp_graph.polars.graph_from_polars`).
    :param vocabulary: a public word list: other words become ``<unk>`` before the n-grams are
        formed (so a language model's unknown-word mass is counted too).
    :return: ``(graph, self_messages)``: the labelled :class:`~opendp_graph.Graph` and the number of
        messages to oneself left out (private: for the user's own bookkeeping).
    """
    analyze = _analyzer(analyzer, vocabulary)
    orders = _orders(orders)
    return pair_label_graph(
        frame, nodes, lambda value: sorted(set(ngrams(analyze(value), orders, boundaries=boundaries))), text=text, src=src, dst=dst
    )


def _per_text(frame: Any, text: str, labeler: Callable[[str | None], list[str]]) -> list[list[str]]:
    """``labeler`` of each row's text, computed once per distinct text (a message has a row per
    recipient, and subjects repeat)."""
    cache: dict = {}
    out = []
    for value in frame[text].to_list():
        if value not in cache:
            cache[value] = labeler(value)
        out.append(cache[value])
    return out


def pair_label_graph(frame: Any, nodes: Sequence[Any], labeler: Callable[[str | None], list[str]], *, text: str, src: str, dst: str):
    """The graph of a log (one row per (message, recipient)) with, on each pair's edge, the union
    of ``labeler`` over the texts of the messages the pair exchanged; returns ``(graph,
    self_messages)``, the rows to oneself left out. The one builder behind
    :func:`pair_ngram_graph` and :func:`~opendp_graph.text.pair_cooccurrence_graph`."""
    import polars as pl

    from ..polars import graph_from_polars

    frame = _frame(frame, text, src, dst, text=text)
    labels = _per_text(frame, text, labeler)
    rows = frame.select(src, dst).with_columns(pl.Series("labels", labels, dtype=pl.List(pl.String)))
    self_messages = rows.filter(pl.col(src) == pl.col(dst)).height
    graph = graph_from_polars(rows, src=src, dst=dst, labels="labels", nodes=nodes, self_loops="drop")
    return graph, self_messages


def message_edge_frame(frame: Any, *, message_id: str = "message_id", text: str = "text"):
    """A log (one row per (message, recipient)) rewritten so that every message is its own pair:
    ``sender`` is the message id, ``recipient`` the id with a mark (``"\\x1f"``), ``text`` the
    message's text. Any pair-graph builder (:func:`pair_ngram_graph`,
    :func:`~opendp_graph.text.pair_cooccurrence_graph`) then builds the **graph of messages**: one
    edge per message, labelled with the labels of its rows, so that adding or removing one message
    adds or removes exactly one edge (``edge_distance`` 1): the graph form of
    :func:`~opendp_graph.polars.message_unit`. Messages to oneself are messages like others. The
    caller checks the log against the unit first (:meth:`~opendp_graph.polars.PrivacyUnit.check`).

    >>> import polars as pl, opendp_graph as dpg
    >>> log = pl.DataFrame({"message_id": [7, 7, 8], "sender": [1, 1, 2], "recipient": [2, 3, 2], "text": ["a", "a", "b"]})
    >>> dpg.text.message_edge_frame(log).unique().sort("sender")["sender"].to_list()
    ['7', '8']
    """
    import polars as pl

    frame = _frame(frame, message_id, text, text=text)
    message = pl.col(message_id).cast(pl.String)
    return frame.select(message.alias("sender"), (message + "\x1f").alias("recipient"), pl.col(text).cast(pl.String).alias("text"))


def delivery_ngrams(
    frame: Any,
    *,
    orders: Iterable[int] = (1, 2),
    text: str = "subject",
    src: str = "sender",
    dst: str = "recipient",
    message_id: str = "message_id",
    analyzer: Callable[[str | None], list[str]] | None = None,
    vocabulary: Iterable[str] | None = None,
):
    """One row per (delivery, n-gram occurrence): a message to three people is three deliveries,
    each on its **pair** (``pair``: the two ids joined by ``|``, smaller first). For OpenDP's
    Polars Context with the pair as the identifier of the privacy unit (edge level:
    ``dp.unit_of(contributions=1, identifier="pair")``), where OpenDP's ``truncate_per_group(L)``
    bounds each pair's rows and ``group_by("ngram").agg(dp.len(signed=True))`` counts **per message** on
    each pair (a repeated subject counts each time, unlike :func:`pair_ngram_graph`'s sets).
    Messages to oneself have no pair and are left out. Columns: ``pair``, ``message_id``, the
    ``time`` if the frame has one, ``ngram``; rows in the frame's order (sort it by time first to
    make ``keep="first"`` keep each pair's earliest messages).

    >>> import polars as pl
    >>> from opendp_graph.text import delivery_ngrams
    >>> log = pl.DataFrame({"message_id": [1, 1], "subject": ["Gas", "Gas"], "sender": [2, 2], "recipient": [1, 3]})
    >>> delivery_ngrams(log, orders=(1,))["pair"].to_list(), delivery_ngrams(log, orders=(1,))["ngram"].to_list()
    (['1|2', '1|2', '2|3', '2|3'], ['gas', '</s>', 'gas', '</s>'])
    """
    import polars as pl

    from ..polars._messages import message_rows

    frame = _frame(frame, text, src, dst, message_id, text=text)
    # message_log's checks (null or mixed-dtype ids, one sender and one text per message): the
    # pair identifier below is built from these ids
    message_rows(frame, message_id=message_id, sender=src, recipient=dst, text=text)
    analyze = _analyzer(analyzer, vocabulary)
    orders = _orders(orders)
    grams = _per_text(frame, text, lambda value: ngrams(analyze(value), orders))
    low = pl.min_horizontal(src, dst).cast(pl.String)
    high = pl.max_horizontal(src, dst).cast(pl.String)
    keep = [message_id] + (["time"] if "time" in frame.columns else [])
    rows = frame.with_columns(pl.Series("ngram", grams, dtype=pl.List(pl.String)))
    rows = rows.filter(pl.col(src) != pl.col(dst)).select(pl.concat_str([low, high], separator="|").alias("pair"), *keep, "ngram")
    return rows.explode("ngram").drop_nulls("ngram")


def person_ngram_table(
    frame: Any,
    *,
    orders: Sequence[int] = (1, 2),
    text: str = "subject",
    src: str = "sender",
    dst: str = "recipient",
    message_id: str = "message_id",
    analyzer: Any = None,
    vocabulary: Sequence[str] | None = None,
):
    """One row per message: ``owners`` (its sender and every recipient, distinct: a message to
    oneself has one owner) and ``ngrams`` (its distinct n-grams of the given orders, in text
    order, words outside ``vocabulary`` folded to ``<unk>``), from a log with one row per
    (message, recipient). The input of :func:`~opendp_graph.text.make_person_ngram_counts`.

    >>> import polars as pl
    >>> from opendp_graph.text import person_ngram_table
    >>> log = pl.DataFrame({"message_id": [1, 1, 2], "subject": ["Gas gas", "Gas gas", "Power"],
    ...                     "sender": [2, 2, 5], "recipient": [1, 3, 5]})
    >>> person_ngram_table(log, orders=(1,)).rows()
    [(1, [2, 1, 3], ['gas', '</s>']), (2, [5], ['power', '</s>'])]
    """
    wanted = _orders(orders)
    analyze = _analyzer(analyzer, vocabulary)
    return person_label_table(
        frame, lambda value: list(dict.fromkeys(ngrams(analyze(value), wanted))), text=text, src=src, dst=dst, message_id=message_id
    )


def person_label_table(frame: Any, labeler: Any, *, text: str, src: str, dst: str, message_id: str):
    """One row per message: ``owners`` (sender first, then the recipients, distinct) and
    ``ngrams``, the ``labeler`` of its text (computed once per distinct text). The one builder
    behind :func:`person_ngram_table` and :func:`~opendp_graph.text.person_cooccurrence_table`.

    The table is read by :func:`opendp_graph.polars.message_log`'s own checks
    (``polars._messages.message_rows``), so it refuses what ``message_log`` refuses, with the same
    words: a null ``message_id``, sender or recipient; sender and recipient columns of different
    dtypes (one id type per person); and a message whose rows disagree on the sender **or the
    text** (two messages given one id). The person-level map counts a message once per owner;
    rows of two messages merged under one id would move by twice the map when one sender is
    removed (issue 39's counterexample), so one id must name one message with one header.
    """
    import polars as pl

    from ..polars._messages import message_rows, per_message

    rows, _ = message_rows(frame, message_id=message_id, sender=src, recipient=dst, text=text)
    messages = per_message(rows)
    labels = _per_text(messages, "__text", labeler)
    owners = [[s, *(r for r in dict.fromkeys(recipients) if r != s)] for s, recipients in zip(messages["__s"].to_list(), messages["__r"].to_list())]
    return pl.DataFrame(
        {
            message_id: messages["__id"],
            "owners": pl.Series(owners, dtype=pl.List(rows.schema["__s"])),
            "ngrams": pl.Series(labels, dtype=pl.List(pl.String)),
        }
    )


def split_by_time(frame: Any, *boundaries: Any, time: str = "time") -> tuple:
    """The log cut at public times: ``split_by_time(log, t1, t2)`` gives the rows before ``t1``,
    from ``t1`` to before ``t2``, and from ``t2`` on (a public snapshot, the private period, a
    held-out period, say). Boundaries are ``datetime`` s or ISO date strings (UTC when naive),
    increasing; they must be public (chosen without reading the private period).

    >>> import polars as pl
    >>> from datetime import datetime
    >>> from opendp_graph.text import split_by_time
    >>> log = pl.DataFrame({"time": [datetime(2000, 1, 1), datetime(2001, 6, 1)], "x": [1, 2]})
    >>> [part["x"].to_list() for part in split_by_time(log, "2001-01-01")]
    [[1], [2]]
    """
    import polars as pl

    if not boundaries:
        raise ValueError("give at least one boundary time")
    from ..polars._convert import schema_of

    schema = schema_of(frame)
    if time not in schema.names():
        raise ValueError(f"the frame has no time column {time!r}")
    if not isinstance(schema[time], (pl.Datetime, pl.Date)):
        raise TypeError(f"time column {time!r} must be a Datetime or Date, got {schema[time]}")
    cuts = [utc_datetime("a boundary", b) for b in boundaries]
    if any(b >= a for a, b in zip(cuts[1:], cuts)):
        raise ValueError("boundaries must be strictly increasing")
    column = pl.col(time)
    dtype = schema[time]
    zone = getattr(dtype, "time_zone", None)

    def lit(value: datetime):
        literal = pl.lit(value if zone else value.replace(tzinfo=None))
        return literal.dt.convert_time_zone(zone) if zone else literal

    edges = [None, *cuts, None]
    parts = []
    for start, end in zip(edges, edges[1:]):
        part = frame
        if start is not None:
            part = part.filter(column >= lit(start))
        if end is not None:
            part = part.filter(column < lit(end))
        parts.append(part)
    return tuple(parts)
