"""Edge level on a message log: neighbours differ in the messages between one pair of people.

The graph of a message log joins ``u`` and ``v`` when a message went either way
(:func:`~opendp_graph.polars.graph_from_polars`), and :func:`~opendp_graph.edge_distance`
protects one such edge. On the log itself the same notion is :func:`pair_log_distance`: two logs
are neighbours when they differ in the **deliveries between one unordered pair** ``{u, v}``:
every message from ``u`` that has ``v`` among its recipients, and every message from ``v`` that
has ``u`` (a message to oneself is the pair ``{u, u}``). Removing the pair removes ``v`` from the
recipients of ``u``'s messages and ``u`` from those of ``v``'s; a message left with no recipient
is gone. A group message from ``u`` to ``{v, w}`` thus stays, as a message from ``u`` to ``w``:
the pair ``{u, w}`` is another edge. Nobody else's messages change: the people whose
messages-owned count can move are ``u`` and ``v`` only.

That is what makes messages per person cheap at edge level: the histogram of how many messages
each person owns (sent or received) moves by at most 4 in L1 for one pair, whatever the pair's
number of messages, with no cap and no roster (:func:`make_message_count_histogram`). At person
level the same histogram needs a bound on each person's messages and a public roster
(:func:`~opendp_graph.polars.make_private_message_count_histogram`).
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np
import opendp.prelude as dp

from ..core._checks import positive_integer
from ..measurements._message_log import MessageLog, MessageLogDomain, require_log
from ..transformations import then

__all__ = ["PairLogDistance", "pair_log_distance", "message_count_histogram", "make_message_count_histogram", "then_message_count_histogram"]


@dataclass(frozen=True)
class PairLogDistance:
    """Descriptor of :func:`pair_log_distance`: the number of pairs of people whose deliveries differ."""


def pair_log_distance() -> dp.Metric:
    """Edge-level neighbours on a message log: logs that differ in the deliveries between ``d``
    unordered pairs of people (module docstring), added or removed.

    >>> import opendp_graph as dpg
    >>> dpg.polars.pair_log_distance()
    PairLogDistance()
    """
    dp.assert_features("honest-but-curious")
    descriptor = PairLogDistance()
    return dp.user_distance(repr(descriptor), descriptor=descriptor)


def _pair_count(d_in: Any) -> int:
    if isinstance(d_in, bool) or not isinstance(d_in, Integral) or d_in < 0:
        raise ValueError(f"d_in counts pairs of people: a non-negative integer, got {d_in!r}")
    return int(d_in)


def message_count_histogram(log: MessageLog, max_count: int) -> np.ndarray:
    """Non-private: entry ``c − 1`` is the number of people who own exactly ``c`` messages (sent or
    received) for ``c = 1, …, k − 1``, and the last entry those who own ``k = max_count`` or more.
    People are those of the log: someone with no message is in no entry."""
    require_log(log)
    k = positive_integer("max_count", max_count)
    owned = np.bincount(log.owners, minlength=log.num_people)
    owned = owned[owned > 0]
    return np.bincount(np.minimum(owned, k) - 1, minlength=k).astype(np.int64)


def make_message_count_histogram(input_domain: dp.Domain, input_metric: dp.Metric, max_count: int) -> dp.Transformation:
    """The histogram of messages per person (:func:`message_count_histogram`) at edge level, as
    an ``i64`` vector of ``max_count`` entries (the last is "``max_count`` or more").

    :param input_domain: :func:`~opendp_graph.polars.message_log_domain`.
    :param input_metric: :func:`pair_log_distance`.
    :param max_count: ``k``, the top entry (public): counts above it are counted in it, which
        drops nothing (the histogram says "``k`` or more" there), but tells nothing above ``k``.

    **Stability guarantee:** ``d`` pairs → ``4·d`` in ``L1Distance``. *Proof.* Removing the
    deliveries between ``u`` and ``v`` changes only messages sent by ``u`` or ``v``, and in each
    only whether ``v`` (or ``u``) is a recipient; a message ``u`` sent stays ``u``'s unless it is
    gone, and then ``u`` owned it. So the messages owned by anyone other than ``u`` and ``v`` are
    unchanged, and ``u``'s and ``v``'s counts each move from one entry to another (or out of the
    histogram, when they own nothing left): at most 2 in L1 per person, 4 per pair (2 for ``{u,
    u}``). ``d`` pairs: a path through ``d`` neighbours. Tight: a direct message between two
    people who own nothing else (both leave entry 1). No cap, no roster: the bound does not
    depend on how many messages the pair exchanged.

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> hist = dpg.polars.make_message_count_histogram(
    ...     dpg.polars.message_log_domain(), dpg.polars.pair_log_distance(), max_count=64)
    >>> hist.map(1)
    4
    >>> meas = hist >> dp.m.then_laplace(scale=4.0)   # ε = 1 per pair
    >>> meas.map(1)
    1.0
    """
    dp.assert_features("contrib", "honest-but-curious")
    if not isinstance(getattr(input_domain, "descriptor", None), MessageLogDomain):
        raise TypeError(f"input_domain must be dpg.polars.message_log_domain(), got {input_domain!r}")
    if not isinstance(getattr(input_metric, "descriptor", None), PairLogDistance):
        raise TypeError(f"input_metric must be dpg.polars.pair_log_distance(), got {input_metric!r}")
    k = positive_integer("max_count", max_count)
    return dp.t.make_user_transformation(
        input_domain,
        input_metric,
        dp.vector_domain(dp.atom_domain(T=dp.i64), size=k),
        dp.l1_distance(T=dp.i64),
        lambda log: message_count_histogram(log, k).tolist(),
        lambda d_in: 4 * _pair_count(d_in),
    )


# the then_ forms (OpenDP's convention: every make_x of (input_domain, input_metric, ...) has one)
then_message_count_histogram = then(make_message_count_histogram)
