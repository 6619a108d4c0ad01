"""The message log of the person-level releases, as arrays: :class:`MessageLog` (each message's
sender, its owners, its pairs, its words and time), its domain (:func:`message_log_domain`) and
metric (:func:`person_log_distance`: a person with every message they took part in, added or
removed, or replaced), and what each message weighs in a total. A mechanism's input, below the
adapters: :func:`opendp_graph.polars.message_log` converts a Polars table into one, and the
capped totals (:mod:`opendp_graph.measurements._capped_totals`) and the other person-level
releases read it.

**Neighbours.** A person's data is every message they took part in, as a whole (sender,
recipients, time, words): :func:`person_log_distance` with ``"add_remove"`` adds or removes one
person with all those messages; with ``"replace"`` the people are public and one person's
messages are replaced by any others that involve them (messages without that person are equal).
Group messages belong to every participant: a message from ``u`` to ``{v, w}`` is ``u``'s,
``v``'s and ``w``'s, so removing ``v`` removes it (it is not rewritten as a message to ``w``).
Under ``"replace"`` the change of a group message's recipient list is one person's change (its
sender's).
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np
import opendp.prelude as dp

from ..core._checks import positive_integer
from ..core._frozen import frozen
from ..transformations._multi_owner import gather, owner_load

__all__ = [
    "MessageLog",
    "MessageLogDomain",
    "PersonLogDistance",
    "message_log_domain",
    "person_log_distance",
    "require_log",
    "TOTAL_KINDS",
]

#: What a total adds per message: ``"messages"`` 1, ``"deliveries"`` its number of recipients,
#: ``"words"`` its number of words (the log's ``words`` column), ``"pairs"`` distinct
#: sender–recipient pairs (see :func:`~opendp_graph.polars.capped_total`).
TOTAL_KINDS = ("messages", "deliveries", "words", "pairs")

_NEIGHBOURING = ("add_remove", "replace")


@frozen(" (a message log is a snapshot: build a new one with message_log)")
class MessageLog:
    """A snapshot of a message log: messages, their owners and what each adds to a total.

    Built by :func:`message_log`, which reads the Polars table once; every release reads this
    snapshot, so the table a release reads is the table its preconditions were checked on.

    Fields (NumPy arrays, read-only): ``people`` (the ids, sorted), ``owner_indptr`` /
    ``owners`` (message ``m`` belongs to the people ``owners[owner_indptr[m]:owner_indptr[m+1]]``,
    indices into ``people``, sender first, distinct), ``sender`` (an index per message),
    ``recipients`` (the number of distinct recipients per message), ``time`` (``datetime64[us]``
    or ``None``), ``words`` (``int64`` per message or ``None``).
    """

    people: np.ndarray
    owner_indptr: np.ndarray
    owners: np.ndarray
    sender: np.ndarray
    recipients: np.ndarray
    pair_indptr: np.ndarray
    pair_recipients: np.ndarray
    time: np.ndarray | None
    words: np.ndarray | None
    id_kind: str | None
    _capped: dict

    def __init__(
        self,
        *,
        people,
        owner_indptr,
        owners,
        sender,
        recipients,
        pair_indptr,
        pair_recipients,
        time=None,
        words=None,
        id_kind=None,
    ):
        fields = dict(
            people=people,
            owner_indptr=owner_indptr,
            owners=owners,
            sender=sender,
            recipients=recipients,
            pair_indptr=pair_indptr,
            pair_recipients=pair_recipients,
            time=time,
            words=words,
        )
        for name, value in fields.items():
            if value is not None:
                # a private copy: the checks below and every cached total hold for these arrays
                # only if nobody can change them afterwards (a caller's view would stay writable)
                if name == "people" and not isinstance(value, np.ndarray):
                    # ids as given, like message_log's: NumPy's own text dtype would strip trailing
                    # NULs ("a\x00" is "a") and mixed-size integers would become floats
                    value = np.array(list(value), dtype=object)
                else:
                    value = np.array(value, copy=True)
                if name != "people" and value.size == 0 and value.dtype.kind == "f":
                    # an empty list is float64 to NumPy: an empty log must pass where a full one does
                    value = value.astype("datetime64[us]" if name == "time" else np.int64)
                value.setflags(write=False)
            object.__setattr__(self, name, value)
        _check_fields(self)
        # "integer" or "text": the id columns' kind, from the table's schema (public), so that a
        # check of the roster's kind does not depend on whether the log has people
        if id_kind not in (None, "integer", "text"):
            raise ValueError(f"id_kind must be 'integer', 'text' or None, got {id_kind!r}")
        if id_kind is not None and self.people.shape[0] and (id_kind == "text") != isinstance(self.people.tolist()[0], str):
            raise ValueError("MessageLog: id_kind must be the kind of the ids in people ('text' for strings, 'integer' for integers)")
        object.__setattr__(self, "id_kind", id_kind)
        # capped totals already solved, by (kind, τ): a snapshot's linear programs never change,
        # so repeated releases (and the ladder's rungs) solve each once
        object.__setattr__(self, "_capped", {})

    @property
    def num_messages(self) -> int:
        return int(self.sender.shape[0])

    @property
    def num_people(self) -> int:
        return int(self.people.shape[0])

    def __repr__(self) -> str:
        return f"MessageLog(<{self.num_messages} messages among {self.num_people} people>)"

    def load(self, kind: str = "messages") -> np.ndarray:
        """What each person holds of a total (``Σ_{m ∋ p} ψ_m``), by index into ``people``.
        Private: for tests and for data you may see."""
        return _load(self, _weights(self, _kind(kind)))

    def within(self, start: Any = None, end: Any = None) -> MessageLog:
        """The messages sent in ``[start, end)`` (a public window; either bound may be ``None``).
        A message is kept or dropped by its own time only, so a window is a per-message filter
        and keeps every stability map of this module."""
        if self.time is None:
            raise ValueError("this log has no time column: build it with message_log(..., time=...)")
        keep = np.ones(self.num_messages, dtype=bool)
        if start is not None:
            keep &= self.time >= np.datetime64(start, "us")
        if end is not None:
            keep &= self.time < np.datetime64(end, "us")
        return self._subset(keep)

    def with_owners(self, min_owners: int = 1, max_owners: int | None = None) -> MessageLog:
        """The messages with between ``min_owners`` and ``max_owners`` owners (sender and distinct
        recipients, oneself once): ``with_owners(1, 1)`` the messages to oneself, ``(2, 2)`` the
        direct ones, ``(3)`` the group messages. A message is kept or dropped by its own owner
        list, which is part of the message as a whole, so this is a per-message filter and keeps
        every stability map of this module (what :func:`~opendp_graph.polars.make_person_graph`
        leaves out is released with it and :func:`make_private_total`)."""
        low = positive_integer("min_owners", min_owners)
        high = None if max_owners is None else positive_integer("max_owners", max_owners)
        if high is not None and high < low:
            raise ValueError(f"max_owners ({high}) is below min_owners ({low})")
        size = np.diff(self.owner_indptr)
        keep = size >= low
        if high is not None:
            keep &= size <= high
        return self._subset(keep)

    def _subset(self, keep: np.ndarray) -> MessageLog:
        index = np.flatnonzero(keep)
        owners, owner_indptr = gather(self.owner_indptr, self.owners, index)
        pairs, pair_indptr = gather(self.pair_indptr, self.pair_recipients, index)
        return MessageLog(
            people=self.people,
            owner_indptr=owner_indptr,
            owners=owners,
            sender=self.sender[index],
            recipients=self.recipients[index],
            pair_indptr=pair_indptr,
            pair_recipients=pairs,
            time=None if self.time is None else self.time[index],
            words=None if self.words is None else self.words[index],
            id_kind=self.id_kind,
        )


def _check_fields(log: MessageLog) -> None:
    """A hand-built :class:`MessageLog` must describe messages as :func:`message_log` does: every
    message has one or more distinct owners in range, its sender first, and every per-message
    array has one entry per message (the stability proofs read these arrays as the log)."""
    for name in ("owner_indptr", "owners", "sender", "pair_indptr", "pair_recipients"):
        if getattr(log, name).dtype.kind not in "iu":  # a bool array would index as a mask
            raise ValueError(f"MessageLog.{name} must be an array of integers")
    m = log.sender.shape[0]
    for name in ("owner_indptr", "pair_indptr"):
        indptr = getattr(log, name)
        if indptr.ndim != 1 or indptr.shape[0] != m + 1 or indptr[0] != 0 or (np.diff(indptr) < 0).any():
            raise ValueError(f"MessageLog.{name} must start at 0, never decrease and have one entry per message plus one")
    if log.owner_indptr[-1] != log.owners.shape[0] or log.pair_indptr[-1] != log.pair_recipients.shape[0]:
        raise ValueError("MessageLog: the index pointers must end at the length of owners / pair_recipients")
    sizes = np.diff(log.owner_indptr)
    if m and sizes.min() < 1:
        raise ValueError("MessageLog: every message needs at least one owner (its sender)")
    n = log.people.shape[0]
    if log.owners.size and (log.owners.min() < 0 or log.owners.max() >= n):
        raise ValueError("MessageLog: owners must be indices into people")
    if m and not np.array_equal(log.owners[log.owner_indptr[:-1]], log.sender):
        raise ValueError("MessageLog: each message's first owner must be its sender")
    # distinct owners within a message: sort (message, owner) pairs and look for repeats
    message_of = np.repeat(np.arange(m), sizes)
    order = np.lexsort((log.owners, message_of))
    if log.owners.size > 1 and ((np.diff(message_of[order]) == 0) & (np.diff(log.owners[order]) == 0)).any():
        raise ValueError("MessageLog: a message lists an owner twice")
    for name in ("recipients", "time", "words"):
        value = getattr(log, name)
        if value is not None and (value.ndim != 1 or value.shape[0] != m):
            raise ValueError(f"MessageLog.{name} must have one entry per message")
    _check_people(log.people)
    # what each message adds to a total must be what message_log computes: a message's recipients
    # are its owners other than the sender, plus the sender when it wrote to itself; its words a
    # non-negative integer (a negative weight would let removing a person raise a capped total)
    recipients = log.recipients
    if recipients.dtype.kind not in "iu" or (m and not (((recipients == sizes - 1) | (recipients == sizes)).all() and recipients.min() >= 1)):
        raise ValueError(
            "MessageLog.recipients must count each message's distinct recipients (its owners other than "
            "the sender, and the sender if it wrote to itself)"
        )
    if log.words is not None and (log.words.dtype.kind not in "iu" or (m and log.words.min() < 0)):
        raise ValueError("MessageLog.words must be non-negative integers")
    if log.time is not None and log.time.dtype.kind != "M":
        raise ValueError("MessageLog.time must be a datetime64 array")
    # the sender–recipient pairs of each message are its owners after the sender, in order
    if not np.array_equal(np.diff(log.pair_indptr), sizes - 1) or not np.array_equal(
        log.pair_recipients, np.delete(log.owners, log.owner_indptr[:-1])
    ):
        raise ValueError("MessageLog.pair_recipients must list each message's owners other than its sender, in order")


def _check_people(people: np.ndarray) -> None:
    """``people`` holds distinct ids of one kind, integers or text (one person, one index: a
    repeated id would be two people to the linear program's caps and one to the log)."""
    if people.ndim != 1:
        raise ValueError("MessageLog.people must be a one-dimensional array of ids")
    values = [v.item() if isinstance(v, np.generic) else v for v in people.tolist()]
    kinds = {type(v) for v in values}
    if not (kinds <= {int} or kinds <= {str}):
        raise ValueError("MessageLog.people must hold ids of one kind, all integers or all text")
    if len(set(values)) != len(values):
        raise ValueError("MessageLog.people must not repeat an id")


# ---------------------------------------------------------------------------------------------
# Domain and metric
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MessageLogDomain:
    """Descriptor of :func:`message_log_domain`: every :class:`MessageLog`."""

    def member(self, value: Any) -> bool:
        return isinstance(value, MessageLog)


def message_log_domain() -> dp.Domain:
    """The OpenDP domain of :class:`MessageLog` snapshots (any size, any number of owners per
    message: the capped totals need no promise from the data).

    >>> import opendp_graph as dpg
    >>> dpg.polars.message_log_domain()
    MessageLogDomain()
    """
    dp.assert_features("honest-but-curious")
    descriptor = MessageLogDomain()
    return dp.user_domain(repr(descriptor), member=descriptor.member, descriptor=descriptor)


@dataclass(frozen=True)
class PersonLogDistance:
    """Descriptor of :func:`person_log_distance`: the number of people whose messages differ."""

    neighbouring: str = "add_remove"


def person_log_distance(neighbouring: str = "add_remove") -> dp.Metric:
    """Person-level neighbours on a message log: logs that differ in the messages of ``d``
    people (each message belongs to its sender and all its recipients, as a whole; module
    docstring). ``"add_remove"``: a person is added or removed with all their messages;
    ``"replace"``: the people are public and a person's messages are replaced.

    >>> import opendp_graph as dpg
    >>> dpg.polars.person_log_distance("replace")
    PersonLogDistance(neighbouring='replace')
    """
    dp.assert_features("honest-but-curious")
    if neighbouring not in _NEIGHBOURING:
        raise ValueError(f"neighbouring must be one of {_NEIGHBOURING}, got {neighbouring!r}")
    descriptor = PersonLogDistance(neighbouring)
    return dp.user_distance(repr(descriptor), descriptor=descriptor)


def _check_space(input_domain: Any, input_metric: Any) -> None:
    if not isinstance(getattr(input_domain, "descriptor", None), MessageLogDomain):
        raise TypeError(f"input_domain must be dpg.polars.message_log_domain(), got {input_domain!r}")
    if not isinstance(getattr(input_metric, "descriptor", None), PersonLogDistance):
        raise TypeError(f"input_metric must be dpg.polars.person_log_distance(...), got {input_metric!r}")


def _person_count(d_in: Any) -> int:
    if isinstance(d_in, bool) or not isinstance(d_in, Integral) or d_in < 0:
        raise ValueError(f"d_in counts people: a non-negative integer, got {d_in!r}")
    return int(d_in)


def require_log(log: Any) -> MessageLog:
    """``log`` if it is a :class:`MessageLog`, else a ``TypeError`` naming :func:`message_log`:
    the domain's member check, which every release of a log runs before it reads anything (a
    Polars table passed where the snapshot belongs would otherwise fail deep inside)."""
    if not isinstance(log, MessageLog):
        raise TypeError(f"expected a MessageLog (read the table once with dpg.polars.message_log(table)), got {type(log).__name__}")
    return log


def _kind(kind: Any) -> str:
    if kind not in TOTAL_KINDS:
        raise ValueError(f"of must be one of {TOTAL_KINDS}, got {kind!r}")
    return kind


def _weights(log: MessageLog, kind: str) -> np.ndarray:
    if kind == "messages":
        return np.ones(log.num_messages)
    if kind == "deliveries":
        return log.recipients.astype(float)
    if kind == "words":
        if log.words is None:
            raise ValueError("this log has no words column: build it with message_log(..., words=...)")
        return log.words.astype(float)
    return np.diff(log.pair_indptr).astype(float)  # pairs: a message's sender-recipient pairs (budget use)


def _load(log: MessageLog, psi: np.ndarray) -> np.ndarray:
    """``Σ_{m ∋ p} ψ_m`` for every person ``p`` (an index into ``log.people``)."""
    return owner_load(log.owner_indptr, log.owners, log.num_people, psi)
