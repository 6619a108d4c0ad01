"""The graph of who wrote to whom, from a message log, under person-level neighbours.

:func:`make_person_graph` turns a :class:`~opendp_graph.polars.MessageLog` into a
:class:`~opendp_graph.Graph` on a **public roster** of people, with an edge ``{a, b}`` when some
message has exactly the two owners ``a`` and ``b`` (a *direct* message: one sender, one other
recipient). Under :func:`~opendp_graph.polars.person_log_distance` (a person's data is every
message they took part in, as a whole) two neighbouring logs give graphs that differ only in the
edges at that person: :func:`~opendp_graph.node_distance` 1, so every node-level release of the
package applies, :func:`~opendp_graph.make_private_degree_distribution` included.

Why each restriction is needed (each is what makes the map finite):

* **Direct messages only.** A group message ``u → {v, w}`` belongs to ``u``, ``v`` and ``w``;
  removing ``v`` removes it, so an edge ``{u, w}`` it supported would vanish although neither
  end is ``v``. One person could then change edges anywhere in the graph. Group messages are
  dropped (and counted as what the graph leaves out: :attr:`PersonGraphScope`).
* **A public roster.** Without one, the node set would be the people seen in the log, and adding
  one person who wrote once to each of ``N`` people seen nowhere else would add ``N + 1`` nodes.
  With a roster, messages with an owner off the roster are dropped (a per-message rule that
  does not depend on other messages), and the node set is fixed.
* Messages to oneself have one owner and make no edge.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import opendp.prelude as dp

from ..core._bias import state_bias
from ..core._checks import positive_integer
from ..core.domains import graph_domain
from ..core.graph import Graph
from ..core.metrics import node_distance
from ..measurements._message_log import MessageLog, _check_space, _person_count, require_log
from ..transformations import then
from ..transformations.projection import degree_projection

__all__ = [
    "make_person_graph",
    "then_person_graph",
    "person_graph",
    "PersonGraphScope",
    "person_graph_scope",
    "person_degree_tails",
    "make_person_degree_tails",
    "then_person_degree_tails",
]


def _roster(roster: Any) -> tuple:
    if isinstance(roster, (str, bytes, set, frozenset, dict)) or not hasattr(roster, "__iter__"):
        # a set's order changes from run to run (hash seeds), and node i must be roster[i]
        raise TypeError(f"roster must be an ordered sequence of person ids (a list or tuple), got {type(roster).__name__}")
    values = tuple(roster.to_list() if hasattr(roster, "to_list") else roster)
    if not values:
        raise ValueError("roster must name at least one person")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer, str)):
            raise TypeError(f"roster ids must be integers or text, like the log's person ids; got {v!r}")
    values = tuple(int(v) if isinstance(v, np.integer) else v for v in values)
    if len({type(v) for v in values}) > 1:
        raise TypeError("roster ids must all be integers or all be text (one id dtype, like the log's)")
    if len(set(values)) != len(values):
        raise ValueError("roster has repeated ids: each person once")
    return values


def _check_id_kind(log: MessageLog, roster: tuple) -> None:
    """The log's ids and the roster's must be of one kind (schema, public): else no message
    would match and the graph would be silently empty."""
    kind = log.id_kind  # from the table's schema: the same for every log of one table, empty or not
    if kind is None:
        # a hand-built log states no kind; reading it off the ids would refuse a log with people
        # and pass an empty one (a refusal that tells whether the log is empty)
        raise TypeError(
            "a roster-based release needs the log's id kind: build it with message_log, or give MessageLog(..., id_kind='integer' or 'text')"
        )
    if (kind == "text") != isinstance(roster[0], str):
        raise TypeError(f"the log's person ids are {kind} but the roster's are not: give the roster in the log's id dtype")


def roster_positions(log: MessageLog, roster: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Each owner entry's position on the roster (``-1`` off it), aligned with ``log.owners``,
    and a mask over the log's messages of those with at least one owner off the roster (the
    messages every roster-based release drops)."""
    _check_id_kind(log, roster)
    position = {p: i for i, p in enumerate(roster)}
    on_roster = np.array([position.get(p, -1) for p in log.people.tolist()], dtype=np.int64)
    owner_position = on_roster[log.owners]
    # a message is off the roster when any owner is: reduce per message over its owners
    off = np.zeros(log.num_messages, dtype=bool)
    if log.owners.size:
        off = np.logical_or.reduceat(owner_position < 0, log.owner_indptr[:-1]) & (np.diff(log.owner_indptr) > 0)
    return owner_position, off


def _graph(log: MessageLog, roster: tuple) -> Graph:
    """The graph of direct messages among the (checked) roster."""
    owner_position, off = roster_positions(require_log(log), roster)
    direct = np.flatnonzero((np.diff(log.owner_indptr) == 2) & ~off)
    first = owner_position[log.owner_indptr[direct]]
    second = owner_position[log.owner_indptr[direct] + 1]
    return Graph.from_arrays(first, second, len(roster), node_ids=list(roster))


def person_graph(log: MessageLog, roster: Any) -> Graph:
    """Non-private: the graph of :func:`make_person_graph` (node ``i`` is ``roster[i]``)."""
    return _graph(log, _roster(roster))


@dataclass(frozen=True)
class PersonGraphScope:
    """What :func:`person_graph` leaves out of a log (private figures: for data you may see, and
    for tests). ``group_messages``: messages with three or more owners; ``self_messages``: with
    one owner; ``off_roster``: with an owner off the roster; ``direct``: the messages that make
    the edges (several may make one edge)."""

    direct: int
    group_messages: int
    self_messages: int
    off_roster: int


def person_graph_scope(log: MessageLog, roster: Any) -> PersonGraphScope:
    """Count what :func:`person_graph` keeps and drops (non-private; see :class:`PersonGraphScope`).
    Release these counts under DP with :func:`~opendp_graph.polars.make_private_total` on a log
    filtered the same way when the scope itself must be published."""
    _, off = roster_positions(require_log(log), _roster(roster))
    size = np.diff(log.owner_indptr)
    return PersonGraphScope(
        direct=int(((size == 2) & ~off).sum()),
        group_messages=int(((size >= 3) & ~off).sum()),
        self_messages=int(((size == 1) & ~off).sum()),
        off_roster=int(off.sum()),
    )


def make_person_graph(input_domain: dp.Domain, input_metric: dp.Metric, roster: Any) -> dp.Transformation:
    """The graph of direct messages among a public roster of people (module docstring), from a
    message log under person-level neighbours.

    :param input_domain: :func:`~opendp_graph.polars.message_log_domain`.
    :param input_metric: :func:`~opendp_graph.polars.person_log_distance` (``"add_remove"`` or
        ``"replace"``).
    :param roster: the public list of people (ids of the log's id dtype, distinct); node ``i`` of
        the output is ``roster[i]``. It must not be read off the private log (a person on it is
        public); messages with an owner off it are dropped.
    :return: a transformation to ``graph_domain(num_nodes=len(roster))`` with
        :func:`~opendp_graph.node_distance`.

    **Stability guarantee:** ``d`` people → node distance ``d``. *Proof.* Let the logs differ
    in the messages of person ``v`` (under ``"add_remove"`` one log lacks them; under
    ``"replace"`` each log has its own): every other message is in both logs with the same
    owners. An edge ``{a, b}`` with ``v ∉ {a, b}`` is present iff some message has owner set
    exactly ``{a, b}``, and such a message does not contain ``v``, so it is in both logs or in
    neither. The node set is the roster in both. The graphs therefore differ only in edges at
    ``v``: rewiring the one node ``v`` turns one into the other. ``d`` people: a path through
    ``d`` such logs. Tight: a person on the roster with one direct message.

    **Message ids** identify messages (:func:`~opendp_graph.polars.message_log` merges rows that
    share one): a person's rows that reuse the id of someone else's direct message turn it into a
    group message, which is not adding that person's messages. Give every message its own id.

    **What it leaves out** (error the release's noise does not show): group messages, messages
    to oneself and messages with an owner off the roster (:func:`person_graph_scope`), and the
    multiplicity of messages per pair. The degree of a person is their number of direct
    correspondents on the roster.

    :example:

    >>> import opendp.prelude as dp, opendp_graph as dpg, polars as pl
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> log = dpg.polars.message_log(pl.DataFrame({
    ...     "message_id": [1, 2, 2, 3], "sender": ["a", "b", "b", "c"], "recipient": ["b", "a", "c", "c"]}))
    >>> t = dpg.polars.make_person_graph(
    ...     dpg.polars.message_log_domain(), dpg.polars.person_log_distance(), roster=["a", "b", "c"])
    >>> g = t(log)   # message 2 (b → {a, c}) is a group message; message 3 is c to c
    >>> g.num_edges, g.degrees.tolist(), t.map(1)
    (1, [1, 1, 0], 1)
    """
    dp.assert_features("contrib", "honest-but-curious")
    _check_space(input_domain, input_metric)
    people = _roster(roster)

    graph = dp.t.make_user_transformation(
        input_domain,
        input_metric,
        graph_domain(num_nodes=len(people)),
        node_distance(),
        lambda log: _graph(log, people),
        _person_count,
    )
    return state_bias(
        graph,
        (
            "group messages, messages to oneself and the messages of people off the roster, which the person graph "
            "leaves out (person_graph_scope counts them): its statistics are of the direct messages among the roster"
        ),
    )


def person_degree_tails(log: MessageLog, max_degree: int) -> np.ndarray:
    """Non-private: entry ``j − 1`` is the number of people with at least ``j`` direct
    correspondents kept by the edge-addition projection at ``θ = max_degree``
    (:func:`~opendp_graph.degree_projection`), ``j = 1, …, θ``, over **everyone in the log** (no
    roster). People without a kept correspondent are in no entry."""
    require_log(log)
    theta = positive_integer("max_degree", max_degree)
    # every person of the log is a node, named by their id: the projection's scanning order
    # depends on the pair of ids only, never on who else is in the log (edge_order)
    direct = np.flatnonzero(np.diff(log.owner_indptr) == 2)
    first = log.owners[log.owner_indptr[direct]]
    second = log.owners[log.owner_indptr[direct] + 1]
    graph = Graph.from_arrays(first, second, log.num_people, node_ids=log.people.tolist())
    degrees = degree_projection(graph, theta).degrees
    return np.array([(degrees >= j).sum() for j in range(1, theta + 1)], dtype=np.int64)


def make_person_degree_tails(input_domain: dp.Domain, input_metric: dp.Metric, max_degree: int) -> dp.Transformation:
    """The degree distribution of who wrote to whom at person level **without a roster**: the
    tail counts ``T_j`` = people with at least ``j`` direct correspondents after the edge-addition
    projection at ``θ = max_degree``, ``j = 1, …, θ``, as an ``i64`` vector with
    ``l1_distance``. The graph is :func:`make_person_graph`'s (an edge ``{a, b}`` when a message
    has exactly the owners ``a`` and ``b``) on everyone in the log; ``T_1`` is the number of
    people with a kept correspondent, and the histogram of degrees ``1 … θ`` is ``T_c − T_{c+1}``
    (:func:`~opendp_graph.polars.histogram_from_tails`). No id is read into the output: under
    ``person_log_distance("add_remove")`` the people themselves are private.

    :param input_domain: :func:`~opendp_graph.polars.message_log_domain`.
    :param input_metric: :func:`~opendp_graph.polars.person_log_distance` (either relation).
    :param max_degree: ``θ``, the most correspondents kept per person (public).

    **Stability guarantee:** ``d`` people → ``2θ·d`` in ``L1Distance``. *Proof.* Let the logs
    differ in the messages of person ``v``. Put both graphs on the union of the two logs' people
    (a person absent from one log is an isolated node there: an isolated node is scanned in no
    edge and is in no ``T_j``, so this changes neither output). By :func:`make_person_graph`'s
    proof the two graphs differ only in edges at ``v``. The projection's scanning order depends
    on each pair of ids alone (:func:`~opendp_graph.transformations.projection.edge_order`), so
    :func:`~opendp_graph.make_degree_projection`'s potential argument with ``S = {v}`` applies:
    the kept degrees of the others move by at most ``k_v`` (``v``'s kept degree with its edges,
    ``≤ θ``) against the graph without ``v``'s edges, and the two kept-degree vectors differ by
    at most ``2·max(k_v¹, k_v²) ≤ 2θ`` in L1. A kept degree moving from ``a`` to ``b`` moves
    ``|a − b|`` entries of ``T`` by one, so ``T`` moves by at most ``2θ``. ``d`` people: a path
    through ``d`` neighbours. Tight: a person who wrote to ``θ`` people seen nowhere else (each
    newcomer enters ``T_1``, and the person ``T_1 … T_θ``).

    Why no roster is needed here but is for :func:`make_person_graph`: a graph's node set read
    off the log would move by ``N + 1`` nodes when a person writes to ``N`` newcomers; the tails
    count a newcomer once, in ``T_1``, and the projection caps how many newcomers one person
    brings at ``θ``. Compared with a roster (node distance, then
    :func:`~opendp_graph.make_private_degree_distribution`), what is lost is the count of people
    with no correspondent (degree 0), which only a public list of people can give.

    **What a person is** (as for :func:`make_person_graph`): every message they took part in, as
    a whole. Adding someone as a further recipient of ``N`` direct messages between others is
    not adding that person's messages: it turns them into group messages (which make no edge),
    a change of ``N`` messages, protected at ``N·ε``. Give every message its own id
    (:func:`~opendp_graph.polars.message_log` merges the rows that share one).

    **What it leaves out** (bias the noise does not show): group messages (three owners or
    more) and messages to oneself, as :func:`make_person_graph`; the correspondents beyond the
    projection's ``θ`` and, through it, edges of others that a full person blocked; ``T_θ``
    counts the people at the bound.

    >>> import opendp.prelude as dp, opendp_graph as dpg, polars as pl
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> log = dpg.polars.message_log(pl.DataFrame({
    ...     "message_id": [1, 2, 3, 4], "sender": ["a", "a", "b", "c"], "recipient": ["b", "c", "a", "c"]}))
    >>> t = dpg.polars.make_person_degree_tails(
    ...     dpg.polars.message_log_domain(), dpg.polars.person_log_distance(), max_degree=2)
    >>> t(log), t.map(1)   # a has 2 correspondents, b and c one each (c → c is to oneself)
    ([3, 1], 4)
    """
    dp.assert_features("contrib", "honest-but-curious")
    _check_space(input_domain, input_metric)
    theta = positive_integer("max_degree", max_degree)
    return tails_transformation(
        input_domain,
        input_metric,
        theta,
        person_degree_tails,
        (
            f"the correspondents beyond the first {theta} kept per person by the projection (and others' edges a full "
            "person blocked), group messages and messages to oneself: each interval is around the projected tail count"
        ),
    )


def tails_transformation(input_domain: dp.Domain, input_metric: dp.Metric, bound: int, tails: Any, bias: str) -> dp.Transformation:
    """The tail counts ``tails(log, bound)`` (``T_1 … T_bound``) as an ``i64`` vector with
    ``l1_distance`` and the map ``2·bound·d``, with what the bound leaves out stated: the shared
    shape of :func:`make_person_degree_tails` and
    :func:`~opendp_graph.polars.make_message_count_tails`, whose docstrings prove the map."""
    transformation = dp.t.make_user_transformation(
        input_domain,
        input_metric,
        dp.vector_domain(dp.atom_domain(T=dp.i64), size=bound),
        dp.l1_distance(T=dp.i64),
        lambda log: tails(log, bound).tolist(),
        lambda d_in: 2 * bound * _person_count(d_in),
    )
    return state_bias(transformation, bias)


# the then_ forms (OpenDP's convention: every make_x of (input_domain, input_metric, ...) has one)
then_person_graph = then(make_person_graph)
then_person_degree_tails = then(make_person_degree_tails)
