"""Edge-level triangle counts by the Ladder mechanism (Zhang, Cormode, Procopiuc, Srivastava & Xiao,
*Private Release of Graph Statistics using Ladder Functions*, SIGMOD 2015).

Under edge distance the triangle count's global sensitivity is ``n − 2`` (one edge closes a
triangle with every other node), so Laplace noise calibrated to it drowns the count of most real
graphs. Its *local* sensitivity is far smaller: an edge ``ij`` closes or opens ``a_ij`` triangles,
``a_ij`` the common neighbours of ``i`` and ``j``. The Ladder mechanism spends that: it draws the
answer from an exponential mechanism whose utility falls by one per "rung", the rungs growing
as slowly as the local sensitivity at distance ``t`` allows, so most of the mass stays within a
few local sensitivities of the truth, with pure ``ε``-DP (no ``δ``).

:func:`triangle_sensitivity_ladder` computes the ladder exactly; :func:`make_ladder_triangle_count`
is the release. On the Deezer graphs and email-Eu-core it errs 2.7–12× less than the better of the
package's two other edge-level releases (the exact count with Laplace at ``D − 1``, the node-level
release under edge distance; ``benchmarks/SUBGRAPH_COUNTS.txt``); for node-level privacy use
:func:`~opendp_graph.make_private_subgraph_count`.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import opendp.prelude as dp
import scipy.sparse as sp

from ..core._checks import integer_at_least, positive_integer
from ..core.domains import graph_domain_descriptor
from ..core.graph import Graph
from ..core.metrics import (
    EdgeDistance,
    EdgeLabelDistance,
    GroupDistance,
    NodeDistance,
    NodeInsertionDistance,
    integer_d_in,
    metric_descriptor,
)
from ..transformations import then
from ..transformations.triangles import triangle_count
from ._context import privacy_budget
from .accuracy import attach_no_accuracy

__all__ = ["triangle_sensitivity_ladder", "make_ladder_triangle_count", "then_ladder_triangle_count"]

#: the share of ε set aside for the float rounding of the rungs' log-weights (far more than it needs)
ROUNDING_SHARE = 2.0**-20
#: the most rungs drawn explicitly; past them every rung is as wide as the global sensitivity
MOST_EXPLICIT_RUNGS = 2**20


#: the most entries of ``A·A`` held at once (rows are taken in blocks up to about this many)
WEDGE_BLOCK = 2**23


def _common_neighbour_maxima(adjacency: sp.csr_array, d: np.ndarray, order: np.ndarray) -> dict[int, int]:
    """``{a: the largest b_ij}`` over the pairs ``i ≠ j`` with ``a ≥ 1`` common neighbours that can
    set the ladder (``b_ij = d_i + d_j − 2a_ij − 2x_ij``, ``x_ij`` whether ``i`` and ``j`` are
    adjacent), from the rows of ``A·A`` in decreasing degree (``order``, the nodes sorted so), in
    blocks of about :data:`WEDGE_BLOCK` entries.

    The rows stop at the first node whose degree ``k`` is at most the most common neighbours
    ``a*`` of a pair already seen. Every pair left has both degrees at most ``k`` (a pair with a
    node already taken came in that node's row), and cannot raise any rung: its value at ``t`` is
    ``a + ⌊(t + min(t, b))/2⌋ ≤ ⌊(t + d_i + d_j)/2⌋ ≤ k + ⌊t/2⌋`` (if ``b ≥ t`` then
    ``a ≤ (d_i + d_j − t)/2``, and ``b ≤ d_i + d_j − 2a`` otherwise), while the pair with ``a*``
    is worth at least ``a* + ⌊t/2⌋``. So the buckets may miss entries, never the ladder's
    maximum: a star of 30,000 leaves takes two rows instead of 9·10^8 pairs."""
    n = d.shape[0]
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    per_row = (adjacency @ d)[order]  # entries of each row of A·A (in degree order), at most
    before = np.concatenate([[0], np.cumsum(per_row)])  # ... of the rows before each row
    best_b = np.full(int(d.max(initial=0)) + 1, -1, dtype=np.int64)
    most_common = 0  # a* so far
    start, budget = 0, min(WEDGE_BLOCK, 2**16)  # small blocks first: the stop is checked between blocks
    while start < n and d[order[start]] > most_common:
        stop = min(n, max(start + 1, int(np.searchsorted(before, before[start] + budget, side="right")) - 1))
        budget = min(WEDGE_BLOCK, 2 * budget)
        nodes = order[start:stop]
        rows = adjacency[nodes]
        wedges = (rows @ adjacency).tocsr()  # row r is node nodes[r]
        joined = wedges.multiply(rows).tocoo()  # pairs that are also adjacent (never a node with itself)
        joined.eliminate_zeros()
        apart = (wedges - joined.tocsr()).tocoo()
        apart.eliminate_zeros()
        for part, adjacent in ((apart, 0), (joined, 1)):
            i, j, a = nodes[part.row.astype(np.int64)], part.col.astype(np.int64), part.data.astype(np.int64)
            later = rank[j] > rank[i]  # a pair with an earlier node was in that node's row; i = j is no pair
            i, j, a = i[later], j[later], a[later]
            np.maximum.at(best_b, a, d[i] + d[j] - 2 * a - 2 * adjacent)
            most_common = max(most_common, int(a.max(initial=0)))
        start = stop
    return {int(v): int(best_b[v]) for v in np.flatnonzero(best_b >= 0)}


def _pair_buckets(graph: Graph) -> dict[int, int]:
    """``{a: the largest b_ij over pairs i < j with a_ij = a}`` (``a_ij`` common
    neighbours, ``b_ij`` the nodes adjacent to exactly one of ``i, j``).

    Pairs with a common neighbour come from the sparse ``A·A`` (:func:`_common_neighbour_maxima`).
    For pairs with none, the largest ``b = d_i + d_j − 2x_ij`` is found by walking the nodes in
    decreasing degree: each ``i`` pairs with the nodes after it (a pair with an earlier node was
    weighed from that node), and its best partner is among the next ``Σ_{k ∈ N(i)} d_k + d_i + 1``
    (the nodes two steps away counted with repeats, at least the common-neighbour partners; past the
    first that is neither such a partner nor adjacent, no later ``j`` does better). The walk stops
    at the first ``i`` whose degree plus the next one's is at most the best found, or at most
    ``b' + 2a'`` for a pair ``(a', b')`` with common neighbours: every later pair has ``a = 0`` and
    ``b ≤ d_i + d_j``, so at rung ``t`` it is worth ``⌊(t + min(t, b))/2⌋ ≤ a' + ⌊(t + min(t,
    b'))/2⌋`` (``min(t, b) ≤ min(t, b') + 2a'``), no more than that pair. So a bucket that cannot
    set any rung may be left out (see also :func:`_common_neighbour_maxima`), but no bound stands in
    for the maximum: an upper bound on one graph and not its neighbour breaks the ladder's
    condition. The work is at most about ``Σ_v d_v²`` (the pairs two steps apart); the rows of
    ``A·A`` stop once a pair is found sharing as many neighbours as the next node has, which spares
    a hub's leaves when they have no other edge (a star), not when they do (a windmill of ``k``
    triangles on one hub still costs ``k²``).
    """
    n = graph.num_nodes
    if n < 2:
        return {}
    d = graph.degrees.astype(np.int64)
    adjacency = graph.adjacency()
    order = np.argsort(-d, kind="stable")  # both searches walk the nodes in decreasing degree
    buckets = _common_neighbour_maxima(adjacency, d, order)
    covered = max((b + 2 * a for a, b in buckets.items()), default=-1)  # a pair with no common neighbour and b at most this is outdone
    best = -1
    for place in range(n - 1):
        node = order[place]
        if d[node] + d[order[place + 1]] <= max(best, covered):  # no later pair can raise a rung
            break
        neighbours = adjacency.indices[adjacency.indptr[node] : adjacency.indptr[node + 1]]
        two_steps = adjacency[neighbours].indices  # the nodes that share a neighbour with this one
        walk = order[place + 1 : place + 2 + two_steps.shape[0] + neighbours.shape[0]]
        free = ~np.isin(walk, two_steps)
        if free.any():
            partners = walk[free]
            values = d[node] + d[partners] - 2 * np.isin(partners, neighbours)
            best = max(best, int(values.max()))
    if best >= 0:
        buckets[0] = max(buckets.get(0, -1), best)
    return buckets


def triangle_sensitivity_ladder(graph: Graph, rungs: int, cap: int | None = None) -> np.ndarray:
    """``LS_t(G)`` for ``t = 0, …, rungs − 1``: the largest local sensitivity of the triangle
    count over the graphs within edge distance ``t`` of ``graph`` (not private), at most ``cap``.

    Nissim, Raskhodnikova & Smith (*Smooth Sensitivity and Sampling in Private Data Analysis*,
    STOC 2007, Section 3.2, Claim 3.13): ``LS_t(G) = max_{i<j} min(a_ij + ⌊(t + min(t, b_ij))/2⌋,
    n − 2)``, ``a_ij`` the common neighbours of ``i`` and ``j`` and ``b_ij`` the nodes adjacent to
    exactly one of them: ``t`` flips spend one on each node of ``b_ij`` it joins to the other
    endpoint, two on any other node. The maximum over pairs is exact (:func:`_pair_buckets`;
    tested against brute force over every graph of four nodes at every ``t``, five and six nodes
    under ``-m thorough``).

    :param cap: a further public bound on the local sensitivity (``D − 1`` on a domain whose degrees
        are at most ``D``); the values are ``min(LS_t, n − 2, cap)``.

    >>> import networkx as nx, opendp_graph as dpg
    >>> triangle_sensitivity_ladder(dpg.Graph.from_networkx(nx.karate_club_graph()), 4).tolist()
    [10, 11, 12, 13]
    """
    rungs = positive_integer("rungs", rungs)
    top = max(graph.num_nodes - 2, 0)
    if cap is not None:
        top = min(top, integer_at_least("cap", cap, 0))
    t = np.arange(rungs, dtype=np.int64)
    ls = np.zeros(rungs, dtype=np.int64)
    for a, b in _pair_buckets(graph).items():
        np.maximum(ls, a + (t + np.minimum(t, b)) // 2, out=ls)
    return np.minimum(ls, top)


def _explicit_rungs(scale: float) -> int:
    """How many rungs are drawn from the ladder itself: enough that what lies past them weighs
    ``e^{−100}`` of rung 0 or less (``t/scale ≥ 100``), at most :data:`MOST_EXPLICIT_RUNGS`."""
    return int(min(MOST_EXPLICIT_RUNGS, 64 + math.ceil(100.0 * scale)))


def _rounding_bound(explicit: int, scale: float) -> float:
    """A bound on how far any float log-weight of :func:`_rung_log_weights` is from its exact value.
    Each takes at most seven correctly rounded or ≤ 1-ulp operations (the tail's: a log, two
    divisions, ``expm1``, a log of it, two subtractions) on magnitudes at most ``B = 64 + (explicit + 2)/scale +
    |ln(1 − e^{−1/scale})| + 2``, so within ``8·2^{−52}·B``; we take ``2^{−46}·B``, eight times that."""
    magnitude = 66.0 + (explicit + 2) / scale + abs(math.log(-math.expm1(-1.0 / scale)))
    return 2.0**-46 * magnitude


def _rung_log_weights(widths: np.ndarray, tail_width: int, scale: float) -> np.ndarray:
    """The log of each rung's total weight: rung 0 (the truth alone) ``0``; rung ``t`` (``1 ≤ t ≤
    T``, ``T = len(widths)``) holds ``2·widths[t−1]`` integers of weight ``e^{−t/scale}``; the last
    entry is all the rungs past ``T`` together, each ``2·tail_width`` integers:
    ``Σ_{e≥1} 2·tail_width·e^{−(T+e)/scale} = 2·tail_width·e^{−(T+1)/scale}/(1 − e^{−1/scale})``."""
    t = np.arange(1, widths.shape[0] + 1, dtype=np.float64)
    body = np.log(2.0 * widths.astype(np.float64)) - t / scale
    tail = math.log(2.0 * tail_width) - (widths.shape[0] + 1) / scale - math.log(-math.expm1(-1.0 / scale))
    return np.concatenate([[0.0], body, [tail]])


def _ladder_widths(graph: Graph, explicit: int, degree_cap: int | None) -> tuple[np.ndarray, int]:
    """The rungs' half-widths ``max(LS_t, 1)`` for ``t < min(explicit, 2·GS + 2)`` and the width of
    every rung past them, ``max(GS, 1)`` (``GS = min(n − 2, D − 1)``, public under edge distance:
    the node set is). Past ``2·GS + 1`` every ``LS_t`` is ``GS`` (any pair's ``⌊t/2⌋`` reaches it),
    so the second bound changes no width, only how many rungs are listed."""
    gs = max(graph.num_nodes - 2, 0) if degree_cap is None else max(min(graph.num_nodes - 2, degree_cap), 0)
    widths = np.maximum(triangle_sensitivity_ladder(graph, min(explicit, 2 * gs + 2), cap=gs), 1)
    return widths, max(gs, 1)


def _choose(scores: np.ndarray) -> int:
    """An index drawn with probability ``∝ exp(scores[i])``: OpenDP's noisy max with Gumbel noise
    at scale 1 (the output measure ``zero_concentrated_divergence`` selects Gumbel in OpenDP 0.16;
    its sampler is exact for the given floats). Its own privacy map is not used: the guarantee is
    the exponential mechanism's over the rungs (:func:`make_ladder_triangle_count`)."""
    meas = dp.m.make_noisy_max(  # f64 whatever OpenDP's default float type: the rounding bound assumes it
        dp.vector_domain(dp.atom_domain(T="f64", nan=False)), dp.linf_distance(T="f64"), dp.zero_concentrated_divergence(), scale=1.0
    )
    return int(meas(scores.tolist()))


#: the uniform draws take base-``UNIFORM_BASE`` digits, each the noisy max of that many equal scores
UNIFORM_BASE = 1024


def _uniform(size: int) -> int:
    """A uniform index in ``0 … size − 1``. Up to :data:`UNIFORM_BASE`: the noisy max of equal
    scores (exchangeable draws, so each index wins with probability ``1/size``). Above: base-1024
    digits drawn that way make ``r`` uniform in ``[0, 1024^k)``; ``r mod size`` is returned when ``r``
    is below the largest multiple of ``size`` (so every index has the same number of ``r``), else
    the digits are drawn again (at most half the time). Memory and time stay small for any width."""
    if size <= UNIFORM_BASE:
        return 0 if size <= 1 else _choose(np.zeros(size))
    digits = 1
    while UNIFORM_BASE**digits < size:
        digits += 1
    span = UNIFORM_BASE**digits
    accept = span - span % size
    while True:
        r = 0
        for _ in range(digits):
            r = r * UNIFORM_BASE + _choose(np.zeros(UNIFORM_BASE))
        if r < accept:
            return r % size


#: OpenDP's integer Laplace is 32-bit and clamps its draws at the type's bounds: below this, exact
TAIL_EXACT_BELOW = 2**31 - 2


def _tail_rung(scale: float) -> int:
    """``e ≥ 1`` with probability ``∝ e^{−e/scale}``: ``|Z|`` given ``Z ≠ 0``, ``Z`` OpenDP's integer
    Laplace at ``scale`` (``P(Z = z) ∝ e^{−|z|/scale}``, sampled exactly for ``|z|`` below the
    32-bit bounds it clamps to). A draw of :data:`TAIL_EXACT_BELOW` or more only says ``e ≥`` that,
    exactly; the geometric law forgets (``e − (L − 1)`` given ``e ≥ L`` has the law of ``e``), so
    ``L − 1`` is carried and ``e`` drawn again."""
    meas = dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=scale)
    carried = 0
    while True:
        draw = abs(int(meas(0)))
        if draw >= TAIL_EXACT_BELOW:
            carried += TAIL_EXACT_BELOW - 1
        elif draw:
            return carried + draw


def _rung_span(widths: np.ndarray, tail_width: int, rung: int, extra: int) -> tuple[int, int]:
    """``(E_{r−1}, w)`` of rung ``rung`` (``≥ 1``; past the listed rungs, the ``extra``-th of the
    tail): its integers lie at distance ``E_{r−1} + 1 … E_{r−1} + w`` on each side of the truth."""
    if rung <= widths.shape[0]:
        return int(widths[: rung - 1].sum()), int(widths[rung - 1])
    return int(widths.sum()) + (extra - 1) * tail_width, tail_width


def _place(truth: int, below: int, width: int, pick: int) -> int:
    """The integer at index ``pick`` of a rung's ``2·width`` (:func:`_rung_span`): ``pick < width``
    above the truth, the rest below, nearest first."""
    step = below + pick % width + 1
    return truth + step if pick < width else truth - step


def _edges_per_unit(input_metric: dp.Metric) -> int:
    metric = metric_descriptor(input_metric)
    if isinstance(metric, GroupDistance):
        return metric.k
    if type(metric) is EdgeDistance:
        return 1
    if isinstance(metric, (NodeDistance, NodeInsertionDistance)):
        raise ValueError(
            f"the Ladder mechanism's guarantee is for edge_distance() or group_distance(k), not {metric!r}: a person's "
            "edges move the count by up to C(D, 2), so use make_private_subgraph_count for node-level triangles"
        )
    if isinstance(metric, EdgeLabelDistance):
        raise ValueError("under edge_label_distance() the triangle count reads no label and is public: nothing to protect")
    raise ValueError(f"the Ladder mechanism's guarantee is for edge_distance() or group_distance(k) only, not {metric!r}")


def _ladder_scale(epsilon: float, edges: int) -> float:
    """The exponential mechanism's scale ``s`` for a budget ``ε`` over ``edges`` edges: the float
    nearest ``2/ε'`` with ``2/s ≤ ε' = ε·(1 − 2^{−20})/edges`` exactly (the rest of ``ε`` covers the
    rounding of the weights). The release, the benchmark's exact law and the tests all take it from here."""
    per_edge = epsilon * (1.0 - ROUNDING_SHARE) / edges
    scale = 2.0 / per_edge
    while Fraction(2) / Fraction(scale) > Fraction(per_edge):
        scale = math.nextafter(scale, math.inf)
    return scale


def _float_up(value: Fraction) -> float:
    out = float(value)
    return out if Fraction(out) >= value else math.nextafter(out, math.inf)


# long: docstring (its guarantee, proof, parameters and error) beside code of under 100 lines
def make_ladder_triangle_count(input_domain: dp.Domain, input_metric: dp.Metric, privacy_loss: tuple[Any, Any], *, d_in: int = 1) -> dp.Measurement:
    """The triangle count under edge-level ``ε``-DP by the Ladder mechanism (module docstring): an
    integer, the true count plus noise whose spread follows the graph's local sensitivity.

    :param input_domain: :func:`~opendp_graph.graph_domain`; a ``max_degree`` ``D`` caps the ladder
        at ``D − 1`` (an edge of such a graph closes at most ``D − 1`` triangles).
    :param input_metric: :func:`~opendp_graph.edge_distance` (one edge added or removed) or
        :func:`~opendp_graph.group_distance` (``k`` edges a unit). Node-level notions are refused:
        use :func:`~opendp_graph.make_private_subgraph_count`.
    :param privacy_loss: ``dp.loss_of(epsilon=ε)``, the budget at ``d_in`` units.
    :param d_in: how many units are protected together; the map is linear in the distance.
    :return: a measurement (``max_divergence``) whose output is an ``int``. It can be negative or
        above the number of triples of nodes; clamping it is post-processing.

    **Privacy guarantee**: ``ε`` at ``d_in`` units (``2^{−20}·ε`` of it covers the float rounding
    of the log-weights, far more than it needs).

    *Ladder* (Zhang et al. 2015, Definition 4.2). With ``f`` the count, ``GS = min(n − 2, D − 1)``
    and a public ``T = min(_explicit_rungs(s), 2·GS + 2)`` (the rungs listed): ``I_t(G) =
    min(LS_t(G), GS)`` for ``t < T``, ``GS`` past it; widths ``w_t = max(I_t, 1)``. (a) For
    neighbours, ``|f(G) − f(G')| ≤ w_0(G')``: it is at most the local sensitivity at ``G'`` (the
    relation is symmetric) and at most ``GS``, the global one on the domain. (b) ``w_t(G) ≤
    w_{t+1}(G')``: the graphs within ``t`` of ``G`` are within ``t + 1`` of ``G'``, so ``LS_t(G) ≤
    LS_{t+1}(G')``; the caps and ``max(·, 1)`` keep the order, and past ``T`` the width is the largest.

    *Utility*: ``u(G, k) = −r`` for ``k`` on rung ``r`` (rung 0 is ``{f(G)}``, rung ``r ≥ 1`` the
    ``2w_{r−1}`` integers at distance ``(E_{r−1}, E_r]``, ``E_r = Σ_{i<r} w_i``). It moves by at most
    1 between neighbours: if ``|k − f(G)| ≤ E_r(G)`` then ``|k − f(G')| ≤ w_0(G') + Σ_{i<r}
    w_{i+1}(G') = E_{r+1}(G')`` (Zhang et al. 2015, Theorem 4.2).

    *Exponential mechanism*: output ``k`` with probability ``∝ e^{u(G,k)/s}``, ``2/s ≤
    ε/(d_in·k_edges)``: ``2/s``-DP per edge (McSherry & Talwar 2007; the normaliser is finite, the
    widths are at most ``GS``); ``d`` edges by a path of ``d`` single edges through the intersection
    of the two graphs (it stays in the domain: degrees only fall, then rise to the other graph's).

    *Sampling*, every draw OpenDP's: the rung by its Gumbel noisy max over the rungs' log-weights
    (:func:`_rung_log_weights`; exact for the floats it is given, which are within ``η`` of the exact
    log-weights, :func:`_rounding_bound`: each rung's probability moves by at most ``e^{2η}``, the
    ratio of two graphs' by ``e^{4η}``, charged); a rung past ``T`` by its integer Laplace at ``s``
    given non-zero (:func:`_tail_rung`, exact past its 32-bit clamp); the integer inside the rung
    uniformly (:func:`_uniform`).

    **Error.** Symmetric around the truth, no bias; about ``E_r`` for the rung ``r`` drawn, mostly
    within the first ``≈ 2/ε`` rungs, so a few ``LS_0`` (the most common neighbours of a pair) at
    ``ε = 1``. It depends on the private ladder, so no interval is released (``dpg.accuracy``
    refuses with that reason). Exact medians at ``ε = 1`` (``benchmarks/SUBGRAPH_COUNTS.txt``):
    0.045 % on Deezer HU (98,087 triangles, ``LS_0 = 28``), 0.19 % on Deezer RO, 0.24 % on
    email-Eu-core; 1.0 % on a 2,000-node clustered graph with 3,043.
    Cost, once per release: the rows of ``A·A`` (blocks of rows, so memory stays bounded) of the
    nodes in decreasing degree, down to the most common neighbours of a pair found so far; at most
    ``Σ_v d_v²`` (a graph whose busy nodes share few neighbours). A release takes 0.2 s on Deezer
    HU, 0.03 s on a star of 100,000 leaves; a hub whose ``k`` leaves each have one more edge still
    costs ``k²`` (about 20 s at ``k = 8,000``).

    >>> import networkx as nx, opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> meas = dpg.make_ladder_triangle_count(dpg.graph_domain(), dpg.edge_distance(), dp.loss_of(epsilon=1.0))
    >>> meas.map(1) <= 1.0
    True
    >>> isinstance(meas(dpg.Graph.from_networkx(nx.karate_club_graph())), int)  # the truth is 45
    True
    """
    dp.assert_features("contrib", "honest-but-curious")
    domain = graph_domain_descriptor(input_domain)
    refusal = domain.refusal("ladder_triangle_count")
    if refusal is not None:
        raise ValueError(refusal)
    epsilon = privacy_budget(privacy_loss, ("epsilon",), "make_ladder_triangle_count")["epsilon"]
    units = positive_integer("d_in", d_in)
    edges_per_unit = _edges_per_unit(input_metric)
    if not 1e-12 <= epsilon / (units * edges_per_unit) <= 1e12:
        raise ValueError(
            f"epsilon={epsilon!r} over {units * edges_per_unit} edges is outside what the Ladder mechanism supports "
            "(1e-12 to 1e12 per edge): its weights would not be finite floats"
        )
    scale = _ladder_scale(epsilon, units * edges_per_unit)
    explicit = _explicit_rungs(scale)
    slack = 4.0 * _rounding_bound(explicit, scale)
    degree_cap = None if domain.max_degree is None else max(domain.max_degree - 1, 0)

    def privacy_map(d_in: Any) -> float:
        edges = integer_d_in(d_in) * edges_per_unit
        return _float_up(edges * Fraction(2) / Fraction(scale) + Fraction(slack))

    if privacy_map(units) > epsilon:
        raise ValueError(
            f"epsilon={epsilon!r} at d_in={units} is too small for the Ladder mechanism: the bound on the float rounding of its "
            "weights (about 5e-12 at small epsilon) does not fit in the 2^-20 share of epsilon set aside for it (epsilon below about 5e-6)"
        )

    def release(graph: Graph) -> int:
        domain.check_member(graph)
        try:
            widths, tail_width = _ladder_widths(graph, explicit, degree_cap)
            truth = triangle_count(graph)
        except MemoryError:  # numpy's message would name the size it wanted, which the graph sets
            raise MemoryError("the Ladder mechanism's counts of this graph do not fit in memory") from None
        rung = _choose(_rung_log_weights(widths, tail_width, scale))
        if rung == 0:
            return truth
        extra = _tail_rung(scale) if rung > widths.shape[0] else 0  # fewer rungs than explicit may be listed
        below, width = _rung_span(widths, tail_width, rung, extra)
        return _place(truth, below, width, _uniform(2 * width))

    measurement = dp.m.make_user_measurement(input_domain, input_metric, dp.max_divergence(), release, privacy_map, TO="ExtrinsicObject")
    return attach_no_accuracy(
        measurement,
        "the Ladder's noise is set by the private graph's local sensitivity (its rungs), so an interval stated "
        "beforehand would read the graph; docs/subgraph_counts.md gives its measured error on public graphs",
    )


then_ladder_triangle_count = then(make_ladder_triangle_count)
