"""Messages per person at person level: each person's direct messages and messages to oneself,
bounded to ``k`` by an edge-addition scan, and the histogram of the counts with ``k`` chosen
under DP.

:func:`make_message_count_projection` scans the messages with at most two owners, all on a
public roster (a direct message ``a → b`` or a message to oneself), in a public order that
depends on each message alone (its time, then its owners' ids), and keeps a message when
every owner still has fewer than ``k`` kept messages. It is Day, Li & Lyu's edge-addition
projection (SIGMOD 2016, §4) on a multigraph with loops, and the count vector it returns moves
by at most ``2k`` in L1 when one person's messages change (proof in the constructor).

Why only messages with at most two owners: with three or more, keeping one message of a new
person can drop messages of two others, each of whom then keeps another message, and the
changes branch (``tests/polars/test_messages.py::test_greedy_truncation_cascades`` builds logs
where one person moves a greedy scan by more than any fixed multiple of ``k``). Group messages
are left out and counted by :func:`~opendp_graph.polars.person_graph_scope`; release their
number with ``make_private_total(...)(log.with_owners(3))``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import opendp.prelude as dp

from ..core._bias import state_bias
from ..core._checks import budget_share, positive_finite, positive_integer
from ..measurements._context import privacy_budget
from ..measurements._message_log import MessageLog, _check_space, _person_count, require_log
from ..measurements.degree_distribution import _candidates, choice_arguments, choose_bound_and_release
from ..transformations import then
from ._message_graph import _roster, roster_positions, tails_transformation

__all__ = [
    "message_counts",
    "make_message_count_projection",
    "then_message_count_projection",
    "make_private_message_count_histogram",
    "then_private_message_count_histogram",
    "message_count_tails",
    "make_message_count_tails",
    "then_message_count_tails",
    "histogram_from_tails",
]


def _id_ranks(people: np.ndarray) -> np.ndarray:
    """Each person's rank among the log's ids in their natural order (integers by value, text by
    code points: one kind per log, so they compare). Ranks order two logs' shared people alike,
    whichever other people each log has."""
    values = people.tolist()
    ranks = np.empty(len(values), dtype=np.int64)
    ranks[sorted(range(len(values)), key=values.__getitem__)] = np.arange(len(values))
    return ranks


def _scan_order(log: MessageLog, chosen: np.ndarray) -> np.ndarray:
    """The chosen messages in the public order: time (when the log has one), then the number of
    owners, the sender and the other owner (the sender again for a message to oneself), people
    compared by id. Two messages tie only if they have the same owners, and then which comes
    first changes no count: the order depends on the messages, never on the table's rows."""
    ranks = _id_ranks(log.people)
    start = log.owner_indptr[chosen]
    size = np.diff(log.owner_indptr)[chosen]
    sender = ranks[log.owners[start]]
    other = ranks[log.owners[np.where(size == 2, start + 1, start)]]
    keys = [other, sender, size]
    if log.time is not None:
        keys.append(log.time[chosen].astype(np.int64))
    return chosen[np.lexsort(keys)]


def message_counts(log: MessageLog, max_count: int, roster: Any) -> np.ndarray:
    """Non-private: each roster person's kept messages (direct and to oneself) after the scan of
    :func:`make_message_count_projection` at ``k = max_count``; entry ``i`` is ``roster[i]``."""
    require_log(log)
    k = positive_integer("max_count", max_count)
    people = _roster(roster)
    owner_position, off = roster_positions(log, people)
    return _scan(log, k, owner_position, off, len(people))


def _scan(log: MessageLog, k: int, owner_position: np.ndarray, off: np.ndarray, size: int) -> np.ndarray:
    """The edge-addition scan at ``k`` over the messages with one or two owners not ``off``, in
    the public order; ``owner_position`` maps each owner entry to its entry of the result."""
    sizes = np.diff(log.owner_indptr)
    chosen = np.flatnonzero((sizes >= 1) & (sizes <= 2) & ~off)
    counts = [0] * size
    starts = log.owner_indptr
    positions = owner_position.tolist()
    # a sequential greedy scan: each decision depends on the decisions before it
    for m in _scan_order(log, chosen).tolist():
        a = positions[starts[m]]
        if sizes[m] == 1:
            if counts[a] < k:
                counts[a] += 1
        else:
            b = positions[starts[m] + 1]
            if counts[a] < k and counts[b] < k:
                counts[a] += 1
                counts[b] += 1
    return np.asarray(counts, dtype=np.int64)


def make_message_count_projection(input_domain: dp.Domain, input_metric: dp.Metric, max_count: int, roster: Any) -> dp.Transformation:
    """Each roster person's number of messages (direct ones and those to oneself), bounded to
    ``k = max_count`` by an edge-addition scan in a public order (module docstring): an ``i64``
    vector indexed by the roster with ``l1_distance``.

    :param input_domain: :func:`~opendp_graph.polars.message_log_domain`.
    :param input_metric: :func:`~opendp_graph.polars.person_log_distance` (either relation).
    :param max_count: ``k``, the most messages kept per person.
    :param roster: the public list of people (as for :func:`make_person_graph`).

    **Stability guarantee:** ``d`` people → ``2k·d``. *Proof* (the potential argument of
    :func:`~opendp_graph.make_degree_projection`, with loops). Let the logs differ in the
    messages of person ``v``, and ``x₀`` be either without them. The scan order depends on each
    message alone, so both logs meet ``x₀``'s messages in ``x₀``'s order. Scan ``x₀`` and ``x₁``
    side by side; let ``δ(w)`` be the difference of ``w``'s kept counts so far (``w ≠ v``) and
    ``k_v`` ``v``'s count in ``x₁``. The potential ``Σ_{w≠v} |δ(w)| − k_v`` never increases:
    keeping a message of ``v`` (to ``w``, or to oneself) adds at most one to the first term and
    one to ``k_v``; a message of ``x₀`` kept in one scan only has an owner that is full in one
    scan and not the other, whose ``|δ|`` shrinks by one, while its other owner's (if any)
    grows by at most one. So ``Σ_{w≠v} |δ₁(w)| ≤ k_v¹ ≤ k``; ``v`` counts 0 in ``x₀``. With
    ``x₂`` the other log, the two count vectors differ by at most ``|k_v¹ − k_v²| + k_v¹ + k_v² =
    2·max(k_v¹, k_v²) ≤ 2k``. ``d`` people: a path through ``d`` neighbours. Tight: a person
    with ``k`` direct messages to ``k`` people at their bound.

    >>> import opendp.prelude as dp, opendp_graph as dpg, polars as pl
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> log = dpg.polars.message_log(pl.DataFrame({
    ...     "message_id": [1, 2, 3, 4], "sender": ["a", "a", "b", "c"], "recipient": ["b", "b", "b", "a"]}))
    >>> t = dpg.polars.make_message_count_projection(
    ...     dpg.polars.message_log_domain(), dpg.polars.person_log_distance(), max_count=2, roster=["a", "b", "c"])
    >>> t(log), t.map(1)   # b → b and one a → b fill b; the other a → b finds b full; c → a is kept
    ([2, 2, 1], 4)
    """
    dp.assert_features("contrib", "honest-but-curious")
    _check_space(input_domain, input_metric)
    k = positive_integer("max_count", max_count)
    people = _roster(roster)
    counts = dp.t.make_user_transformation(
        input_domain,
        input_metric,
        dp.vector_domain(dp.atom_domain(T=dp.i64), size=len(people)),
        dp.l1_distance(T=dp.i64),
        lambda log: message_counts(log, k, people).tolist(),
        lambda d_in: 2 * k * _person_count(d_in),
    )
    return state_bias(
        counts,
        (
            f"the messages beyond the first {k} kept per person, and every group message and message of someone off the "
            "roster, which the projection drops: each interval is around the projected count, at most the true one "
            "(person_graph_scope counts what is left out)"
        ),
    )


def message_count_tails(log: MessageLog, max_count: int) -> np.ndarray:
    """Non-private: entry ``j − 1`` is the number of people with at least ``j`` kept messages
    (``j = 1, …, k``) after the scan of :func:`make_message_count_projection` at ``k =
    max_count`` over **everyone in the log** (no roster: every message with one or two owners is
    scanned). People with no kept message are in no entry, so the vector needs no list of people."""
    require_log(log)
    k = positive_integer("max_count", max_count)
    # everyone in the log, by index: no roster, so no id is read (and no check of the ids' kind,
    # which could refuse a log with people and pass an empty one)
    counts = _scan(log, k, log.owners, np.zeros(log.num_messages, dtype=bool), log.num_people)
    return np.array([(counts >= j).sum() for j in range(1, k + 1)], dtype=np.int64)


def make_message_count_tails(input_domain: dp.Domain, input_metric: dp.Metric, max_count: int) -> dp.Transformation:
    """Messages per person at person level **without a roster**: the tail counts ``T_j`` = people
    with at least ``j`` messages kept by the scan of :func:`make_message_count_projection` at ``k
    = max_count`` (direct messages and messages to oneself; everyone in the log takes part), ``j
    = 1, …, k``, as an ``i64`` vector with ``l1_distance``. ``T_1`` is the number of people with
    a kept message (a DP estimate of it comes with the release); the histogram is ``T_c − T_{c+1}``
    (:func:`histogram_from_tails`). No person's id is read into the output, and none is needed:
    under ``person_log_distance("add_remove")`` the people are private.

    :param input_domain: :func:`~opendp_graph.polars.message_log_domain`.
    :param input_metric: :func:`~opendp_graph.polars.person_log_distance` (either relation).
    :param max_count: ``k``, the most messages kept per person (public).

    **Stability guarantee:** ``d`` people → ``2k·d`` in ``L1Distance``. *Proof.* A person whose
    kept count moves from ``a`` to ``b`` changes ``T_j`` by one for the ``|a − b|`` values of ``j``
    between them, and a person with no kept message is in no entry, so appearing with ``b`` (or
    leaving with ``a``) is the same move from or to 0. The vector therefore moves by at most the
    L1 change of the kept counts of everyone, which is at most ``2k`` when one person's messages
    are added, removed or replaced (:func:`make_message_count_projection`'s potential argument:
    it compares the scans of the logs with and without that person's messages on the union of
    their people; the scan order depends on each message alone, by id values, whoever else is in
    the log, so no roster is needed). ``d`` people: a path through ``d`` neighbours. Tight: a
    person with ``k`` direct messages to ``k`` people at their bound.

    **What it leaves out**: group messages (three owners or more), the messages beyond ``k`` per
    person and, through the scan, correspondents' messages a full person blocked; ``T_k`` counts
    the people at the bound.

    >>> import opendp.prelude as dp, opendp_graph as dpg, polars as pl
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> log = dpg.polars.message_log(pl.DataFrame({
    ...     "message_id": [1, 2, 3, 4], "sender": ["a", "a", "b", "c"], "recipient": ["b", "b", "b", "a"]}))
    >>> t = dpg.polars.make_message_count_tails(
    ...     dpg.polars.message_log_domain(), dpg.polars.person_log_distance(), max_count=2)
    >>> t(log), t.map(1)   # kept counts a 2, b 2, c 1: three people with ≥ 1, two with ≥ 2
    ([3, 2], 4)
    """
    dp.assert_features("contrib", "honest-but-curious")
    _check_space(input_domain, input_metric)
    k = positive_integer("max_count", max_count)
    return tails_transformation(
        input_domain,
        input_metric,
        k,
        message_count_tails,
        (
            f"the messages beyond the first {k} kept per person and every group message, which the projection drops "
            "(and correspondents' messages a full person blocked): each interval is around the projected tail count"
        ),
    )


def histogram_from_tails(noisy: Any, noise_scale: float | None = None) -> np.ndarray:
    """Post-processing of released tail counts ``T_1 ≥ … ≥ T_k`` (:func:`make_message_count_tails`)
    into the histogram ``h_c`` of people with ``c`` kept messages, ``c = 1, …, k`` (``h_k``: the
    people at the bound). Reads only the release and its public noise scale.

    With ``noise_scale`` (the Laplace scale of the release): the tails read from the top are a
    cumulative histogram, fitted by :func:`~opendp_graph.fit_degree_histogram` (non-negative,
    smooth on a log scale; its end bins exempt, no tail extension). At ε = 1 on the chat log
    (``dpg.datasets.synthetic_chat_log()``) this cuts the noise's L1 error at ``k = 64`` from
    0.54·n to 0.16·n. Without it: the closest non-increasing, non-negative tails in least squares
    (scipy's isotonic regression) and their differences, no prior on the shape.
    """
    values = np.asarray(noisy, dtype=np.float64)
    if values.ndim != 1 or values.size == 0 or not np.all(np.isfinite(values)):
        raise ValueError("noisy must be a non-empty vector of finite tail counts")
    if noise_scale is not None:
        from ..measurements.degree_distribution import fit_degree_histogram

        return fit_degree_histogram(values[::-1], positive_finite("noise_scale", noise_scale), extend_tail=False)[::-1]
    from scipy.optimize import isotonic_regression

    fitted = np.maximum(isotonic_regression(values, increasing=False).x, 0.0)
    return fitted - np.append(fitted[1:], 0.0)


def _count_space(size: int) -> tuple[dp.Domain, dp.Metric]:
    return dp.vector_domain(dp.atom_domain(T=dp.i64), size=size), dp.l1_distance(T=dp.i64)


def _cumulative(size: int, max_count: int) -> dp.Transformation:
    """Counts → the cumulative histogram over ``0..max_count`` (entry ``j``: people with at most
    ``j``; counts above are clamped). Stability ``d → d``: a count moving by one moves one entry
    by one (or none, above ``max_count``)."""
    bins = np.arange(max_count + 1)

    def function(counts: list[int]) -> list[int]:
        values = np.minimum(np.asarray(counts, dtype=np.int64), max_count)
        return np.searchsorted(np.sort(values), bins, side="right").astype(np.int64).tolist()

    return dp.t.make_user_transformation(
        *_count_space(size),
        dp.vector_domain(dp.atom_domain(T=dp.i64), size=max_count + 1),
        dp.l1_distance(T=dp.i64),
        function,
        lambda d: d,
    )


def _histogram(size: int, max_count: int) -> dp.Transformation:
    """Counts → the histogram over ``0..max_count`` (entry ``c``: people with ``c`` messages;
    counts above are clamped into the last entry). Stability ``d → 2d``: a count moving by one
    moves one person to the next entry (or nowhere, above ``max_count``), two units of L1."""

    def function(counts: list[int]) -> list[int]:
        values = np.minimum(np.asarray(counts, dtype=np.int64), max_count)
        return np.bincount(values, minlength=max_count + 1).astype(np.int64).tolist()

    return dp.t.make_user_transformation(
        *_count_space(size),
        dp.vector_domain(dp.atom_domain(T=dp.i64), size=max_count + 1),
        dp.l1_distance(T=dp.i64),
        function,
        lambda d: 2 * d,
    )


def make_private_message_count_histogram(
    input_domain: dp.Domain,
    input_metric: dp.Metric,
    privacy_loss: tuple[Any, Any],
    candidates,
    *,
    roster: Any,
    selection_share: float = 0.1,
    scoring_bound: int | None = None,
    postprocess: str = "fit",
    d_in: int = 1,
) -> dp.Measurement:
    """The histogram of messages per person (direct ones and those to oneself, on a public
    roster) with the bound ``k`` chosen under DP inside ``ε``, as one ``ε``-DP measurement
    whose output is a :class:`~opendp_graph.DegreeDistributionRelease` (``theta`` is ``k``;
    ``histogram[c]``: people with ``c`` messages).

    The two parts are those of :func:`~opendp_graph.make_private_degree_distribution`: ``k``
    chosen by OpenDP's noisy max on the estimated total error ``P_k + N_k``
    (:func:`~opendp_graph.measurements.degree_distribution.make_bias_noise_scores`: ``P_k`` from the histograms of the counts
    bounded to ``k`` and to ``scoring_bound``, default the largest candidate: the people
    the bound moves below ``k`` plus those it caps; ``N_k = min((k + 1)·scale, √(n·scale))``,
    public), then OpenDP's Laplace on the ``k``-cumulative histogram of
    :func:`make_message_count_projection` at ``k``, then :func:`~opendp_graph.fit_degree_histogram`
    (``n`` = the roster's size, public). Sensitivities: ``2k`` for the release
    (:func:`make_message_count_projection`, then a count moving by one moves one cumulative
    entry by one), ``4·(k_max + scoring_bound)`` for the score (each histogram moves by twice
    its counts' L1).

    **What it leaves out** (bias the noise does not show): group messages (three owners or more)
    and messages with an owner off the roster (:func:`person_graph_scope`); the people the scan
    caps at ``k`` and, through them, their correspondents' messages that the cap dropped.

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> meas = dpg.polars.make_private_message_count_histogram(
    ...     dpg.polars.message_log_domain(), dpg.polars.person_log_distance(), dp.loss_of(epsilon=1.0), [4, 8],
    ...     roster=list(range(100)))
    >>> meas.map(1) <= 1.0
    True
    """
    dp.assert_features("contrib", "honest-but-curious")
    _check_space(input_domain, input_metric)
    epsilon = privacy_budget(privacy_loss, ("epsilon",), "make_private_message_count_histogram")["epsilon"]
    ks = _candidates(candidates)
    share = budget_share("selection_share", selection_share)
    people = _roster(roster)
    d_in = positive_integer("d_in", d_in)
    bound = choice_arguments(ks, scoring_bound, postprocess)
    size = len(people)
    return choose_bound_and_release(
        input_domain,
        input_metric,
        epsilon,
        ks,
        selection_share=share,
        d_in=d_in,
        release_chain=lambda k: make_message_count_projection(input_domain, input_metric, k, people) >> _cumulative(size, k),
        histogram_at=lambda b: make_message_count_projection(input_domain, input_metric, b, people) >> _histogram(size, b),
        bound=bound,
        num_nodes=size,
        public_size=size,
        postprocess=postprocess,
        what="message-count histogram",
        bias=(
            "the noise is per entry of the k-cumulative histogram of the counts bounded to k (noisy_cumulative), "
            "before the post-processing; it leaves out what the bound drops (the people capped at k, the release's "
            "at_bound, and their correspondents' dropped messages) and the group messages (person_graph_scope)"
        ),
    )


# the then_ forms (OpenDP's convention: every make_x of (input_domain, input_metric, ...) has one)
then_message_count_projection = then(make_message_count_projection)
then_private_message_count_histogram = then(make_private_message_count_histogram)
then_message_count_tails = then(make_message_count_tails)
