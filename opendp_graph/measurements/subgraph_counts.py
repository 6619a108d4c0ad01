"""Node-level triangle, k-star and 4-cycle counts under ε-DP, the cap chosen inside the ε.

:func:`make_private_subgraph_count` releases the capped count ``Q(G, τ̂)``
(:func:`~opendp_graph.make_capped_subgraph_count`: each copy a record of its nodes, no node holding
more than ``τ`` of them, stable by ``τ`` per node) with OpenDP's Laplace noise, at a cap ``τ̂``
chosen by a **sparse-vector scan up a public ladder of caps**:

1. The ladder ``τ_0 < τ_1 < … < τ_J`` is public (default: ``min_cap·√2^j`` up to a public bound
   ``M`` on what one node can hold, from the domain's degree bound or ``max_contribution``).
2. ``E_j = (Q(τ_{j+k}) − Q(τ_j)) / τ_{j+k}`` (``k = span`` rungs, default 5: a factor 5.7) measures,
   in node-equivalents, what raising the cap from ``τ_j`` to ``τ_{j+k}`` keeps: each node far above
   both caps adds ``1 − τ_j/τ_{j+k}`` to it. It falls as the cap passes the busiest nodes (``Q`` is
   concave in ``τ``). The scan stops at the first ``j`` with ``E_j + ν_j ≤ T + ρ`` (``T =
   threshold``, ``ρ ~ Laplace(2u/ε₁)``, ``ν_j ~ Laplace(2m/ε₁)``, all drawn by OpenDP's
   ``make_laplace``): the AboveThreshold algorithm of Dwork & Roth (*The Algorithmic Foundations of
   Differential Privacy*, 2014, Algorithm 1 and Theorem 3.23; Lyu, Su & Li, VLDB 2017, Alg. 1), on
   the queries ``−E_j`` against ``−T``, with noise fitted to how the queries move: adding a node
   raises ``E_j`` by at most ``u = 1`` and lowers it by at most ``τ_j/τ_{j+k}``, so ``m = 1 +
   τ_j/τ_{j+k}`` (proof in :func:`make_cap_scan`).
3. ``τ̂`` is ``headroom`` rungs above the stop (default 6: a factor 8; ``τ_J`` if none stops),
   and ``Q(G, τ̂) + Laplace`` is released with the rest of the budget, ``ε₂ = ε − ε₁``.

Why a scan and not a score per cap. The best fixed cap balances the bias (what nodes above the cap
hold) against the noise ``τ/ε``: it sits where about one node is above the cap, which is what
node-level DP hides. A score per cap whose sensitivity is ``τ`` (the generalized exponential
mechanism of :func:`~opendp_graph.polars.make_private_total_estimate`) gives every cap far above the
busiest node the same score, about ``−1/ε₂``, so it cannot tell them from the best one: on Deezer
HU it picked caps of ``2^14``–``2^18`` and erred by 21 % where the scan errs by 0.5 %. ``E_j``
moves by at most one per node at every rung, so the scan reads the ladder's shape at the cost of
one ε₁ however long it is; a query over several rungs reads it more clearly than one over a
single √2 rung (a node above adds 0.82 node-equivalents over five rungs, 0.29 over one) for noise
of about the same size. Measured in ``benchmarks/subgraph_counts.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real
from typing import Any

import opendp.prelude as dp

from ..core._checks import budget_share, integer_at_least, open_probability, positive_finite, positive_integer
from ..core.domains import graph_domain_descriptor
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
from ..transformations._multi_owner import LP_TOLERANCE, SMALLEST_CAP
from ..transformations.subgraphs import _pattern_size, capped_subgraph_count, make_capped_subgraph_count, pattern_name
from ._context import privacy_budget
from ._truncation import laplace_at_each_cap, release_at_chosen_cap, selection_budget

__all__ = [
    "SubgraphCountRelease",
    "contribution_bound",
    "default_threshold",
    "make_cap_scan",
    "then_cap_scan",
    "make_private_subgraph_count",
    "then_private_subgraph_count",
]


@dataclass(frozen=True)
class SubgraphCountRelease:
    """What :func:`make_private_subgraph_count` releases (all of it DP):

    * ``estimate``: ``Q(G, τ̂) + Laplace(noise_scale)``, the capped count with its noise (not shifted).
    * ``noise_interval``: ``estimate ± noise_scale·ln(1/β)``, which holds the **capped** count
      ``Q(G, τ̂)`` with probability ``1 − β``.
    * ``lower``: ``noise_interval[0]``: below the true count with probability at least ``1 − β/2``
      (the capped count never exceeds the count).
    * ``upper``: above the true count with probability at least ``1 − β/2`` **if** no node is in more
      than ``max_contribution`` copies (the public bound ``M``): ``Q`` is concave in ``τ`` and 0 at 0,
      so the count ``Q(G, M) ≤ (M/τ̂)·Q(G, τ̂)``. Wide unless ``τ̂`` is near ``M``: it is the bias no
      release can rule out without a tighter public bound on the busiest node.
    * ``bias``: what the cap drops, ``count − Q(G, τ̂) ≥ 0``, is *not* inside ``noise_interval``;
      the whole error is within ``[lower, upper]`` (probability ``1 − β``).
    * ``cap``: ``τ̂``; ``stopped_at``: the rung where the scan stopped (``None``: it never did);
      ``caps``: the ladder; ``epsilon``: ``(ε₁, ε₂)``, the scan's and the release's.
    """

    estimate: float
    noise_interval: tuple[float, float]
    lower: float
    upper: float
    noise_scale: float
    cap: float
    stopped_at: int | None
    caps: tuple[float, ...]
    pattern: str
    beta: float
    epsilon: tuple[float, float]

    @property
    def interval(self) -> tuple[float, float]:
        """``(lower, upper)``: the true count with probability at least ``1 − β`` (noise and bias)."""
        return (self.lower, self.upper)


def contribution_bound(pattern: str, max_degree: int) -> int:
    """The most copies of ``pattern`` one node can be in when no degree exceeds ``D = max_degree``:
    triangles ``C(D, 2)``; ``k``-stars ``C(D, k) + D·C(D − 1, k − 1)`` (as centre, and as a leaf of
    each neighbour's stars); 4-cycles ``C(D, 2)·(D − 1)`` (two neighbours, and a common neighbour
    of theirs). Public: it sets the top of the ladder and the release's ``upper``, never the noise.

    >>> contribution_bound("triangle", 112), contribution_bound("2-star", 3)
    (6216, 9)
    """
    pattern = pattern_name(pattern)
    d = positive_integer("max_degree", max_degree)
    if pattern == "triangle":
        return math.comb(d, 2)
    if pattern == "4-cycle":
        return math.comb(d, 2) * (d - 1)
    k = _pattern_size(pattern) - 1
    return math.comb(d, k) + d * math.comb(d - 1, k - 1)


#: the default first rung is ``M`` divided by this. Low rungs should sit below what nodes hold (a
#: scan that stops at once releases ``headroom`` rungs above the first), but their programs are the
#: slowest (most nodes at their cap). Measured on Deezer HU, one program each: 98,087 triangles,
#: 5–7 s at caps 1–2; 515,572 4-cycles, 170 s at 8 and 35 s at 64; 3.2 M 2-stars, 280 s at 128 and
#: 136 s at 256. With ``D = 1024`` the first rungs are 8 (triangles), 510 (4-cycles), 384 (2-stars).
_FIRST_RUNG_DIVISOR = {"triangle": 2**16, "4-cycle": 2**20}  # k-stars: 2**12


def default_threshold(epsilon: float) -> float:
    """The scan's default threshold ``T`` (node-equivalents) at a budget of ``epsilon`` per unit:
    20 up to ``ε = 1``, where the defaults were tuned, and ``20/√ε`` above.

    A fixed ``T`` stops the scan where about ``T`` node-equivalents still move however small the
    noise, so the cap's bias stays as ``ε`` grows: on a 300-node clustered graph with hubs the
    median error was 46 % at ``ε = 100``, as at ``ε = 1``. Among ``20``, ``20/ε`` and ``20/√ε``,
    ``20/√ε`` has the least geometric mean of the ratio to the best fixed cap over the tuning's 29
    training rows at ``ε`` = 2, 5, 10 and 100 (2.97× against 3.74× for ``20/ε`` and 6.71× for a
    fixed 20; ``python -m benchmarks.subgraph_scan_tuning --large-epsilon``); the largest relative
    error over those rows falls from 31 % at ``ε = 2`` to 3.6 % at ``ε = 100``, where a fixed 20
    stays at 37–39 %. On the Deezer graphs, which have light tails, a fixed 20 errs less at
    ``ε`` = 2–10 (1.97–2.33× the best fixed cap against 2.11–2.71×). A graph whose copies sit on
    one hub keeps its bias much longer: the hub adds ``1 − α ≈ 0.82`` to each scan query, under
    ``20/√ε`` until ``ε ≈ 600`` (a 101-node wheel errs 92 % at ``ε = 100``); pass a ``threshold``
    below 1 there.

    >>> default_threshold(0.5), default_threshold(1.0), default_threshold(4.0)
    (20.0, 20.0, 10.0)
    """
    return 20.0 * min(1.0, positive_finite("epsilon", epsilon) ** -0.5)


def _default_first_rung(pattern: str, top: float) -> float:
    return min(max(1.0, top / _FIRST_RUNG_DIVISOR.get(pattern, 2**12)), top / 2)  # at least two rungs, even for M = 1


def _ladder(min_cap: float, top: float) -> tuple[float, ...]:
    caps = [min_cap]
    while caps[-1] < top:
        caps.append(min(top, caps[-1] * math.sqrt(2.0)))
    return tuple(caps)


def _number(name: str, value: Any) -> float:
    """``value`` as a finite float: a real number (not a bool or a string), else a refusal naming it."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    try:
        result = float(value)
    except OverflowError:
        result = math.inf
    if not math.isfinite(result):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return result


def _checked_caps(caps: Any) -> tuple[float, ...]:
    if isinstance(caps, (str, bytes)) or not hasattr(caps, "__iter__"):
        raise TypeError(f"caps must be a sequence of increasing positive numbers, got {caps!r}")
    values = tuple(_number("each cap", c) for c in caps)
    if len(values) < 2 or any(c <= 0 for c in values) or list(values) != sorted(set(values)):
        raise ValueError("caps must hold at least two increasing, distinct, positive finite numbers")
    if values[0] < SMALLEST_CAP:
        raise ValueError(f"caps must be at least {SMALLEST_CAP:g}: below it the capped counts lose the precision the scan's proof assumes")
    return values


def _scan_movement(input_metric: dp.Metric, alpha: float) -> tuple[float, float]:
    """``(u, m)`` per unit of ``input_metric``: how far a scan query can rise from one side of a
    neighbouring pair to the other (``u``, what the threshold's noise covers) and the width of the
    range it moves in (``m``, what each query's noise covers); ``alpha`` is the largest ratio
    ``τ_j/τ_{j+span}`` of the queries. Proof in :func:`make_cap_scan`."""
    metric = metric_descriptor(input_metric)
    if isinstance(metric, (NodeInsertionDistance, EdgeDistance)):
        return 1.0, 1.0 + alpha
    if isinstance(metric, GroupDistance):
        return float(metric.k), metric.k * (1.0 + alpha)
    if isinstance(metric, NodeDistance):
        return 1.0 + alpha, 2.0 * (1.0 + alpha)
    if isinstance(metric, EdgeLabelDistance):
        return 0.0, 0.0
    raise ValueError(
        f"the cap scan has no proven sensitivity under {metric!r}: use node_distance(), node_insertion_distance(), "
        "edge_distance(), group_distance(k) or edge_label_distance()"
    )


def scan_noise_scales(input_metric: dp.Metric, caps: Any, epsilon: float, span: int = 5) -> tuple[float, float]:
    """``(b_T, b_Q)``: the Laplace scales :func:`make_cap_scan` puts on its threshold and on each
    query at ``ε₁ = epsilon`` (half of ``ε₁`` each), ``(0, 0)`` where the queries cannot move."""
    ladder = _checked_caps(caps)
    span = _checked_span(span, ladder)
    alpha = max(a / b for a, b in zip(ladder, ladder[span:]))
    up, width = _scan_movement(input_metric, alpha)
    slack = 1 + 1e-5  # the programs' certified slack, 2·LP_TOLERANCE per query, rounded up
    return 2 * up * slack / epsilon, 2 * width * slack / epsilon


def _checked_span(span: Any, ladder: tuple[float, ...]) -> int:
    # a ladder shorter than the span: one query over all of it (the proof holds for any span)
    return min(integer_at_least("span", span, 1), len(ladder) - 1)


def _check_structure_metric(domain, input_metric: dp.Metric, units: int) -> None:
    """The refusals the scan and the release share: edge-label distance (no query reads a label)
    and the metric's own refusal at ``units`` (node insertion at one unit on a domain of
    ``num_nodes``: no two graphs are neighbours), before the search for the release's noise meets it."""
    metric = metric_descriptor(input_metric)
    if isinstance(metric, EdgeLabelDistance):
        raise ValueError(
            "subgraph counts read no label: under edge_label_distance() they are public (sensitivity 0), so there is "
            "nothing to protect; protect the structure with node_distance(), node_insertion_distance() or edge_distance()"
        )
    metric.stability_on(domain, lambda d: d)(units)


def _laplace_sampler(scale: float) -> dp.Measurement:
    return dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=scale)


def make_cap_scan(
    input_domain: dp.Domain,
    input_metric: dp.Metric,
    privacy_loss: tuple[Any, Any],
    pattern: str,
    caps: Any,
    threshold: float = 20.0,
    span: int = 5,
    d_in: int = 1,
) -> dp.Measurement:
    """The index of the rung where the sparse-vector scan up ``caps`` stops (module docstring,
    step 2), ``len(caps) − 1`` if it never does; ``ε₁``-DP at ``d_in`` units of ``input_metric``.

    :param privacy_loss: ``dp.loss_of(epsilon=ε₁)``, the budget at ``d_in`` units (the noise is
        calibrated to ``ε₁/d_in`` per unit).
    :param pattern: as :func:`~opendp_graph.make_capped_subgraph_count`.
    :param caps: the public ladder (increasing).
    :param threshold: ``T``, in node-equivalents: the scan stops at the first ``j`` where
        ``E_j = (Q(τ_{j+span}) − Q(τ_j)) / τ_{j+span}`` (noisy) is at most ``T`` (noisy).
    :param span: how many rungs each query spans. A node far above the caps adds ``1 − α`` to
        ``E_j`` (``α = τ_j/τ_{j+span}``) and, under node insertion, the noise is ``Laplace(2(1 + α)/ε₁)``,
        so wider spans read the nodes above a cap more clearly (``1 − α`` is 0.29 for one √2 rung,
        0.82 for five), at the price of resolution; the queries run for ``j ≤ len(caps) − 1 − span`` (a span of at least
        ``len(caps) − 1`` is one query over the whole ladder).
    :param d_in: how many units are protected together (people, or edges).

    **Privacy guarantee**: ``(ε₁/d_in)`` per unit, so ``ε₁`` at ``d_in`` (edge-label distance is
    refused: no query reads a label).
    *How far a query moves.* ``Q(τ)`` is the linear program's value
    (:func:`~opendp_graph.make_capped_subgraph_count`). Adding one node (or one edge, whose new
    copies all hold its endpoints) keeps every old solution feasible and adds copies that all hold
    that node, of weight at most ``τ`` in all: ``Q(τ)`` rises by ``a(τ) ∈ [0, τ]``. So ``E_j`` moves
    by ``(a(τ_{j+span}) − a(τ_j))/τ_{j+span} ∈ [−α, 1]``, ``α = max_j τ_j/τ_{j+span}``. Two graphs at
    ``d`` units are both reached from a common ``G₀`` by ``a + b ≤ d`` such steps (node insertion,
    edge distance: ``G₀`` their intersection; group distance: ``k`` edges a unit; rewiring ``d``
    nodes: ``G₀`` removes their edges, ``a = b = d``). From ``G`` to ``G'`` every query then rises by
    at most ``u = b + αa`` and moves in a range of width at most ``m = (1 + α)(a + b)``: per unit,
    ``(u, m) = (1, 1 + α)`` under insertion and edge distance, ``(k, k(1 + α))`` under group
    distance, ``(1 + α, 2(1 + α))`` under rewiring.
    *AboveThreshold with a one-sided shift*: the threshold carries ``Laplace(2u/ε₁)`` and each query
    ``Laplace(2m/ε₁)``. Couple the runs on ``G`` and ``G'``: shift the threshold's noise by ``u``
    (every query below on ``G`` stays below on ``G'``) and the stopping query's noise by at most
    ``m`` (it stays above): the densities differ by ``e^{ε₁/2}`` each, so the scan is ``ε₁``-DP
    however many queries are below (Dwork & Roth, *The Algorithmic Foundations of Differential
    Privacy*, 2014, Theorem 3.23, whose symmetric case is ``u = Δ``, ``m = 2Δ``; Lyu, Su & Li, VLDB
    2017, Theorem 2). The programs are certified to ``LP_TOLERANCE``; the noise is calibrated to
    ``(1 + 1e-5)`` times ``u`` and ``m``, which covers it. Every draw is OpenDP's ``make_laplace``.
    """
    dp.assert_features("contrib", "honest-but-curious")
    domain = graph_domain_descriptor(input_domain)
    epsilon = privacy_budget(privacy_loss, ("epsilon",), "make_cap_scan")["epsilon"]
    pattern = pattern_name(pattern)
    ladder = _checked_caps(caps)
    level = _number("threshold", threshold)
    span = _checked_span(span, ladder)
    units = positive_integer("d_in", d_in)
    _check_structure_metric(domain, input_metric, units)
    per_unit = epsilon / units
    while per_unit * units > epsilon:  # so that the map at d_in is at most ε₁, not an ulp above
        per_unit = math.nextafter(per_unit, 0.0)
    b_threshold, b_query = scan_noise_scales(input_metric, ladder, per_unit, span)
    on_threshold, on_query = _laplace_sampler(b_threshold), _laplace_sampler(b_query)

    def scan(graph) -> int:
        domain.check_member(graph)
        noisy_level = on_threshold(level)
        for j in range(len(ladder) - span):
            high = ladder[j + span]
            gain = (capped_subgraph_count(graph, pattern, high) - capped_subgraph_count(graph, pattern, ladder[j])) / high
            if on_query(gain) <= noisy_level:
                return j
        return len(ladder) - 1

    def privacy_map(d_in: Any) -> float:
        # ε₁/d_in per unit (a compositor holding ε₁ at d_in admits it): the noise is calibrated to
        # (1 + 1e-5)·(u, m), so the true loss is below this by far more than any rounding here
        return per_unit * integer_d_in(d_in)

    return dp.m.make_user_measurement(input_domain, input_metric, dp.max_divergence(), scan, privacy_map, TO="ExtrinsicObject")


then_cap_scan = then(make_cap_scan)


# long: docstring (its guarantee, parameters, error and refusals) beside code of under 100 lines
def make_private_subgraph_count(
    input_domain: dp.Domain,
    input_metric: dp.Metric,
    privacy_loss: tuple[Any, Any],
    pattern: str,
    *,
    max_contribution: int | None = None,
    caps: Any = None,
    min_cap: float | None = None,
    selection_share: float = 0.3,
    threshold: float | None = None,
    headroom: int = 6,
    span: int = 5,
    beta: float = 0.1,
    d_in: int = 1,
) -> dp.Measurement:
    """A node-level count of ``pattern`` (triangles, ``k``-stars, 4-cycles) under ``ε``-DP, the
    cap chosen inside the ``ε`` by a sparse-vector scan (module docstring).

    :param input_domain: :func:`~opendp_graph.graph_domain`; its ``max_degree`` (public) gives the
        default ``max_contribution`` (:func:`contribution_bound`).
    :param input_metric: :func:`~opendp_graph.node_distance` (rewire a node) or
        :func:`~opendp_graph.node_insertion_distance` (add or remove one); also edge and group distance
        (for triangles there, :func:`~opendp_graph.make_ladder_triangle_count` errs 4–31× less on
        the Deezer graphs and email-Eu-core).
    :param privacy_loss: the whole budget, ``dp.loss_of(epsilon=ε)``.
    :param pattern: ``"triangle"``, ``"<k>-star"`` (``k ≥ 2``) or ``"4-cycle"``.
    :param max_contribution: ``M``, a public bound on the copies one node is in: the top of the
        default ladder and the release's ``upper``. **Privacy does not depend on it** (the linear
        program enforces every cap), only ``upper`` does.
    :param caps: a public ladder instead of ``min_cap·√2^j`` up to ``M`` (without ``M``, its top
        cap stands for ``M`` in ``upper``).
    :param min_cap: the ladder's first rung (default ``max(1, M/2^16)`` for triangles, ``M/2^20``
        for 4-cycles, ``M/2^12`` for ``k``-stars: low rungs cost the scan linear programs over many
        copies, minutes each for millions of stars or for the triangles of 10 M edges (511 s at a
        cap of 8, 4 s at 64), and a scan that stops at once releases
        ``headroom`` rungs above the first). It is a prior on where the best cap can be: with
        triangles at ``ε = 1``, ``M/2^12`` errs 1.5× the best fixed cap on a 2,000-node clustered
        graph with hubs (``D = 400``) where the default errs 3.4×, but 4.9–9.5× on the Deezer
        graphs (``D = 1024``) where the default errs 2.3× (``benchmarks/SUBGRAPH_SCAN_TUNING.txt``).
        Give it when the public bound is far above what nodes hold, when hubs are expected, or
        higher to save time. For ``k``-stars with ``k ≥ 3``, ``M`` grows as ``D^k`` and the default
        sits near the busiest nodes' loads at a loose ``D``: on Deezer RO's 3-stars (``D = 1024``)
        it errs 18 % at ``ε = 1`` (8.4× the best fixed cap), ``M/2^18`` errs 4.2 % (1.9×) but a
        first release solves minutes of programs (``docs/subgraph_counts.md``).
    :param selection_share: the share ``ε₁/ε`` the scan spends.
    :param threshold: ``T``: the scan stops where raising the cap by ``span`` rungs keeps at most
        about ``T`` node-equivalents. Default :func:`default_threshold` at ``ε/d_in``: 20 up to
        ``ε = 1``, ``20/√ε`` above, so that the cap's bias falls as ``ε`` grows.
    :param headroom: how many rungs above the stop ``τ̂`` is (6: a factor 8 on a √2 ladder).
    :param span: how many rungs each of the scan's queries spans (:func:`make_cap_scan`).
        The defaults (0.3, 20, 6, 5) have the least geometric mean of the error's ratio to the best
        fixed cap at ε = 0.8 and 1 over 29 training rows: nine synthetic graphs and 20 rows of 15
        public social networks (Twitch, GitHub developers, Facebook pages;
        ``benchmarks/subgraph_scan_tuning.py``, computed exactly, not sampled): 2.71×, against 2.75×
        for (0.3, 10, 5, 5), the choice of the synthetic graphs alone, a near tie. On the real
        graphs that did not choose them: 1.7–3.0× on Deezer's triangles and 2-stars, 2.3× on
        email-Eu-core's triangles. No setting suits every tail: the social networks alone would
        choose (0.2, 40, 8, 5), which errs 2.1–3.9× on Deezer; tuned on each Deezer row itself the
        scan reaches 1.1–1.3×.
    :param beta: the intervals' failure probability.
    :param d_in: how many units of ``input_metric`` are protected together (people, or edges): the
        budget ``ε`` holds at this distance, and the map is exact there (OpenDP's adaptive composition
        is built at it, so ``map`` refuses a larger distance: build with the ``d_in`` you need).
    :return: a measurement (``max_divergence``) whose output is a :class:`SubgraphCountRelease`.

    **Privacy guarantee** at ``d_in`` units of ``input_metric`` (the scan's noise is calibrated
    to ``ε₁/d_in`` per unit, each release's Laplace at ``d_in``): :func:`make_cap_scan` (``ε₁``) and the
    release at the cap it chooses, :func:`~opendp_graph.make_capped_subgraph_count` ``>>``
    OpenDP's Laplace calibrated by ``dp.binary_search_param`` to ``ε₂ = ε − ε₁`` at every rung
    (so which rung is released tells nothing the scan did not), composed by OpenDP's
    ``make_adaptive_composition`` (``ε₁ + ε₂ ≤ ε``); the rest is post-processing.

    **Error.** The estimate's noise is ``Laplace(τ̂·b)``; its bias, what nodes above ``τ̂`` hold,
    is not in ``noise_interval`` and is bounded by ``upper`` only through the public ``M``. On the
    Deezer graphs at ``ε = 1`` the median error is 0.5–0.8 % for triangles and 2-stars, 1.3–3.0 %
    for 4-cycles (a person added or removed; 1.6–3.0× the best fixed cap in hindsight, a twentieth
    of R2T's race); on email-Eu-core (1,005 people, one node in 5 % of the triangles) 7 %
    (``benchmarks/SUBGRAPH_COUNTS.txt``, ``docs/subgraph_counts.md``).

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> meas = dpg.make_private_subgraph_count(dpg.graph_domain(max_degree=10), dpg.node_distance(),
    ...     dp.loss_of(epsilon=1.0), "triangle")
    >>> meas.map(1) <= 1.0
    True
    """
    dp.assert_features("contrib", "honest-but-curious")
    domain = graph_domain_descriptor(input_domain)
    epsilon = privacy_budget(privacy_loss, ("epsilon",), "make_private_subgraph_count")["epsilon"]
    pattern = pattern_name(pattern)
    share = budget_share("selection_share", selection_share)
    open_probability("beta", beta)
    lift = integer_at_least("headroom", headroom, 0)
    units = positive_integer("d_in", d_in)
    _check_structure_metric(domain, input_metric, units)
    explicit = None if caps is None else _checked_caps(caps)
    if explicit is not None and min_cap is not None:
        raise ValueError("give caps or min_cap, not both: min_cap is the first rung of the default ladder")
    if max_contribution is not None:
        top = positive_integer("max_contribution", max_contribution)
    elif domain.max_degree is not None:
        top = contribution_bound(pattern, max(domain.max_degree, 1))
        if top == 0:
            raise ValueError(
                f"no node has a {pattern!r} when no degree exceeds max_degree = {domain.max_degree}: the count is 0 on every graph of the domain"
            )
    elif explicit is not None:
        top = int(math.ceil(explicit[-1]))  # upper then holds if no node exceeds the top cap
    else:
        raise ValueError(
            "make_private_subgraph_count needs a public bound on what one node holds: graph_domain(max_degree=D), "
            "max_contribution=M or caps=[...] (privacy does not depend on it; the ladder's top and the release's upper do)"
        )
    if top > 2**53:
        raise ValueError("the bound on what one node holds (max_contribution, or from max_degree) is above 2^53: give a smaller one or caps")
    if explicit is None:
        if min_cap is None:
            first = _default_first_rung(pattern, top)
        else:
            first = _number("min_cap", min_cap)
            if first <= 0 or first >= top:
                raise ValueError(f"min_cap must be a positive number below the bound on what one node holds ({top}), got {min_cap!r}")
    ladder = explicit if explicit is not None else _ladder(first, float(top))
    eps_scan = epsilon * share
    releases = laplace_at_each_cap(
        ladder, lambda tau: make_capped_subgraph_count(input_domain, input_metric, pattern, tau), units, epsilon - eps_scan
    )
    eps_scan = selection_budget(epsilon, releases, units)
    level = default_threshold(epsilon / units) if threshold is None else threshold
    scan = make_cap_scan(input_domain, input_metric, dp.loss_of(epsilon=eps_scan), pattern, ladder, level, span, units)
    meta = dict(caps=ladder, top=float(top), beta=float(beta), pattern=pattern, epsilon=(scan.map(units), releases[0][0].map(units)))

    def run(queryable) -> SubgraphCountRelease:
        stop = queryable(scan)
        chosen = min(len(ladder) - 1, stop + lift)
        value = queryable(releases[chosen][0])
        return _summarise(value, chosen, stop, releases[chosen][1], **meta)

    return release_at_chosen_cap(
        input_domain,
        input_metric,
        epsilon,
        units,
        scan,
        releases,
        run,
        parameter="τ",
        caps=ladder,
        bias="what the nodes above the chosen cap hold (SubgraphCountRelease.upper bounds it through the public max_contribution)",
    )


def _summarise(value, chosen, stop, scale, *, caps, top, beta, pattern, epsilon) -> SubgraphCountRelease:
    tau = caps[chosen]
    half = scale * math.log(1 / beta)
    low, high = value - half, value + half
    # the count is Q(G, M) ≤ (M/τ̂)·Q(G, τ̂) (concave, 0 at 0) when no node exceeds M; Q(G, τ̂) ≤ high
    upper = max(high, high * max(1.0, top / tau)) + LP_TOLERANCE * top
    return SubgraphCountRelease(
        estimate=float(value),
        noise_interval=(float(low), float(high)),
        lower=float(low),
        upper=float(upper),
        noise_scale=float(scale),
        cap=float(tau),
        stopped_at=None if stop == len(caps) - 1 else int(stop),
        caps=caps,
        pattern=pattern,
        beta=beta,
        epsilon=epsilon,
    )


then_private_subgraph_count = then(make_private_subgraph_count)
