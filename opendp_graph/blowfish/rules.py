"""Policy-specific sensitivities (Nassar et al., §3) of every graph query under
:func:`~opendp_graph.blowfish_distance`, registered in the rule table (:mod:`opendp_graph.transformations.rules`).

**Notation.** ``d`` = input distance (rounded down), ``n`` = number of people (the domain's
``num_nodes`` or the policy's, which must agree), ``D`` = the domain's ``max_degree``, ``B`` = the
last histogram bin, ``s`` = :meth:`BlowfishPolicy.max_star`: the most contacts one discriminative
change of a protected ego network can flip (``1`` attribute, ``θ`` distance threshold, ``n − 1``
full, the largest cell not counting the centre for partitioned). ``min`` skips unknown terms; a
rule whose every term is unknown raises ``ValueError`` at construction.

**Decomposition used by every proof.** If ``g1, g2`` are at policy distance ``d``, there is an
assignment of every changed pair to a protected endpoint (its *centre* ``v``), with ``E_v`` the
pairs assigned to ``v``, such that ``d = Σ_v k_v`` where ``k_v = steps_v(E_v) ≥ 1`` and
``|E_v| ≤ k_v·s`` (module :mod:`~opendp_graph.blowfish.metric`). Split ``E_v`` into ``a_v``
pairs added, ``r_v`` removed and ``l_v`` relabelled. Pairs in ``g2`` at ``v`` number
``a_v + l_v ≤ D`` and pairs in ``g1`` number ``r_v + l_v ≤ D``. The proofs bound the output
change by ``Σ_v k_v·(per-step figure)`` and never need the intermediate graphs of a path to lie
in the domain.

Where the paper's figure is not right we use the correct one (and the tests check it by brute
force):

* cumulative degree histogram under ``full``: the paper says ``n`` (§3.1: "n vertices change
  their degrees ... the receptive bin does not change"), but the rewired vertex itself moves
  across up to ``n − 1`` entries: an isolated vertex joined to all ``n − 1`` isolated others
  changes entries ``0..n−2`` for itself and entry ``0`` for each other vertex, an L1 change of
  ``2(n − 1)`` (``> n`` for ``n ≥ 3``). We use ``2(n − 1)`` (capped by the clamping, below).
* complete degree histogram under ``full``: the paper's ``2n`` is right and attained (the same
  example: bin 0 loses ``n``, bin 1 gains ``n − 1``, bin ``n − 1`` gains 1).
* the VIP queries' ``2`` (§3.2, §3.3) holds under the *attribute* VIP policy. Under a ``full``
  VIP policy a VIP may rewire to every standard person at once: the standard degree histogram
  then has sensitivity ``2·(#standard)``, while the per-VIP histogram stays at ``2``.
"""

from __future__ import annotations

from math import comb
from typing import Any

from ..core.domains import GraphDomain
from ..core.metrics import EdgeDistance, integer_d_in
from ..transformations import (
    make_cumulative_degree_histogram,
    make_degree_histogram,
    make_edge_count,
    make_label_count_map,
    make_label_counts,
    make_triangle_count,
)
from ..transformations.degrees import CUMULATIVE_DEGREE_HISTOGRAM_L2, DEGREE_HISTOGRAM_L2
from ..transformations.labels import LabelContribution, l2_bound
from ..transformations.rules import stability_rule
from .metric import BlowfishDistance
from .queries import l2_of_vertex_moves, make_standard_degree_histogram, make_vip_standard_histogram

__all__ = ["policy_context", "standard_histogram_rule", "vip_standard_rule"]


def _min(*values: int | None) -> int | None:
    known = [v for v in values if v is not None]
    return min(known) if known else None


def _bound(*values: int | None) -> int:
    """``_min`` of bounds one of which is known: the rule raised ``_unbounded`` when none is."""
    known = _min(*values)
    assert known is not None, "a rule combines only bounds one of which is known"
    return known


def _times(a: int | None, k: int) -> int | None:
    return None if a is None else a * k


def _sub(a: int | None, b: int) -> int | None:
    return None if a is None else max(a - b, 0)


def policy_context(domain: GraphDomain, metric: BlowfishDistance, query: str) -> dict[str, Any]:
    """``n``, ``D`` and ``s`` of the notation above, after checking that the domain and the
    policy agree on the people."""
    policy = metric.policy
    n = domain.num_nodes
    if policy.num_nodes is not None:
        if n is not None and n != policy.num_nodes:
            raise ValueError(f"the policy has {policy.num_nodes} people but the domain has {n} nodes")
        n = policy.num_nodes
    if policy.vip is not None and n is not None and policy.vip[-1] >= n:
        raise ValueError(f"the policy's vip names person {policy.vip[-1]}, but the domain has {n} nodes")
    return {"policy": policy, "n": n, "D": domain.max_degree, "s": policy.max_star(n)}


def _unbounded(query: str, ctx: dict[str, Any]) -> ValueError:
    return ValueError(
        f"{query} has unbounded sensitivity under the {ctx['policy'].secret_graph} policy on a domain without "
        "num_nodes or max_degree: use graph_domain(num_nodes=n) or graph_domain(max_degree=D)"
    )


# ------------------------------------------------------------------------------- edge count
@stability_rule(make_edge_count, BlowfishDistance)
def edge_count_rule(domain, metric):
    """``d·min(s, D)``. The count changes by ``Σ_v (a_v − r_v)``, and ``|a_v − r_v| ≤
    max(a_v, r_v) ≤ min(D, k_v·s) ≤ k_v·min(D, s)``. Tight for ``d = 1``: attribute ``1`` (one
    edge), full ``n − 1`` (a protected vertex joined to everyone)."""
    ctx = policy_context(domain, metric, "edge_count")
    per_step = _min(ctx["s"], ctx["D"])
    if per_step is None:
        raise _unbounded("edge_count", ctx)
    return lambda d_in: integer_d_in(d_in) * per_step


# ------------------------------------------------------------------------------- histograms
@stability_rule(make_degree_histogram, BlowfishDistance)
def degree_histogram_rule(domain, metric, bins):
    """``2·min(n, d·c)`` with ``c = min(1 + s, 2s, 2D)``.

    Each vertex whose (clamped) degree changes moves the L1 norm by at most 2. A vertex outside
    the centres changes only if a changed pair touches it, and a centre only if ``a_v ≠ r_v``, so
    at most ``Σ_v ([a_v ≠ r_v] + a_v + r_v)`` vertices change, and at most ``n``. Per centre this
    is ``≤ 1 + |E_v| ≤ 1 + k_v·s`` and ``≤ 2·max(a_v, r_v) ≤ 2·min(D, k_v·s)``, so ``≤ k_v·c``.

    * attribute: ``4d`` (capped at ``2n``) — the paper's 4 (§3.1), tight (an edge between two
      isolated vertices);
    * full: ``2n`` — the paper's figure, tight for ``n ≥ 2`` and ``B ≥ 1`` (a protected isolated
      vertex joined to ``n − 1`` isolated vertices: bin 0 loses ``n``, bin 1 gains ``n − 1``,
      bin ``min(n−1, B)`` gains 1, or bin 1 gains ``n``); with ``D`` it is ``2·min(n, 2dD)``,
      node-level DP's bound;
    * distance threshold: ``2·min(n, d(1 + θ))``, tight for ``d = 1`` (one protected isolated
      vertex joined to ``θ`` isolated ones).
    """
    ctx = policy_context(domain, metric, "degree_histogram")
    s, D, n = ctx["s"], ctx["D"], ctx["n"]
    per_step = _min(None if s is None else min(1 + s, 2 * s), _times(D, 2))
    if per_step is None and n is None:
        raise _unbounded("degree_histogram", ctx)
    return lambda d_in: 2 * _bound(n, _times(per_step, integer_d_in(d_in)))


@stability_rule(make_cumulative_degree_histogram, BlowfishDistance)
def cumulative_histogram_rule(domain, metric, bins):
    """``min(d·min(A, C), n·B)`` with ``A = min(B, D, s) + min(s, 2D)`` and ``C = 2·min(D, s)``.

    Entry ``k`` counts vertices of clamped degree ``≤ k``, so a vertex whose clamped degree moves
    by ``δ`` changes ``|δ|`` entries by one: the L1 change is at most ``Σ_w |Δ clamped deg_w|``,
    at most ``n·B`` in all. Two bounds on that sum:

    * (A) ``|Δ clamped deg_w| ≤ min(B, |a_w − r_w| + o_w) ≤ min(B, |a_w − r_w|) + o_w`` where
      ``o_w`` counts changed pairs at ``w`` assigned to *another* centre (``a_w = r_w = 0`` off
      the centres). Summing, every assigned pair appears once at its other end:
      ``≤ Σ_v [min(B, D, k_v s) + min(k_v s, 2D)] ≤ d·A``;
    * (C) ``Σ_w |Δ deg_w| ≤ Σ_v (|a_v − r_v| + a_v + r_v) = Σ_v 2·max(a_v, r_v) ≤ d·C``.

    Each is a bound on the whole sum, so their minimum is too.

    * attribute: ``2d`` — the paper's 2 (§3.1), tight (any edge between vertices of degree ``< B``);
    * full: ``min(B, n−1) + (n − 1)``, i.e. ``2(n − 1)`` when ``B ≥ n − 1`` — **not** the paper's
      ``n``, which the example in the module docstring exceeds; tight for ``d = 1``, ``B ≥ 1``.
    """
    ctx = policy_context(domain, metric, "cumulative_degree_histogram")
    s, D, n = ctx["s"], ctx["D"], ctx["n"]
    spread = _min(s, _times(D, 2))
    a = None if spread is None else _bound(bins, D, s) + spread
    c = _times(_min(D, s), 2)
    per_step = _min(a, c)
    cap = None if n is None else n * bins
    if per_step is None and cap is None:
        raise _unbounded("cumulative_degree_histogram", ctx)
    return lambda d_in: _min(_times(per_step, integer_d_in(d_in)), cap)


@stability_rule(DEGREE_HISTOGRAM_L2, BlowfishDistance)
def degree_histogram_l2_rule(domain, metric, bins):
    """``√2·min(n, d·c)``: :func:`degree_histogram_rule`'s ``2m`` over ``√2``
    (:func:`~opendp_graph.blowfish.queries.l2_of_vertex_moves`). Each of the at most ``m = min(n,
    d·c)`` changed vertices moves one unit out of a bin and into another, so every entry moves by
    at most ``m`` and ``ℓ2² ≤ ℓ∞·ℓ1 ≤ 2m²``. Tight where ``m`` vertices can all move from one bin
    to one other (the attribute policy's edge between two isolated vertices: bins 0 and 1 each
    move by 2, ``ℓ2 = 2√2``)."""
    return l2_of_vertex_moves(degree_histogram_rule(domain, metric, bins))


@stability_rule(CUMULATIVE_DEGREE_HISTOGRAM_L2, BlowfishDistance)
def cumulative_histogram_l2_rule(domain, metric, bins):
    """``√(L1 · m)`` with ``L1`` the rule of :func:`cumulative_histogram_rule` and ``m = min(n,
    d·c)`` the changed vertices of :func:`degree_histogram_rule` (half its ``2m``): a changed
    vertex moves each entry by at most one, so every entry moves by at most ``m``, and ``ℓ2² ≤
    ℓ∞·ℓ1``. An upper bound (not claimed tight)."""
    l1 = cumulative_histogram_rule(domain, metric, bins)  # first: its refusals name this query
    twice_changed = degree_histogram_rule(domain, metric, bins)

    def stability(d_in):
        total = l1(d_in)
        return l2_bound(total, total, min(twice_changed(d_in) // 2, total))

    return stability


# ------------------------------------------------------------------------------- triangles
@stability_rule(make_triangle_count, BlowfishDistance)
def triangle_count_rule(domain, metric):
    """``d·min(min(s, D)·t, C(Δ, 2))`` with ``t = min(D − 1, n − 2)`` and ``Δ = min(D, n − 1)``.

    Triangles of ``g1`` that ``g2`` lacks each contain a removed pair, and those ``g2`` gains each
    contain an added one; charge each to that pair's centre ``v``. An edge lies in at most ``t``
    triangles (one per common neighbour) and ``v`` in at most ``C(Δ, 2)``, so the lost triangles
    are ``≤ Σ_v min(r_v·t, C(Δ,2))``, the gained ones ``≤ Σ_v min(a_v·t, C(Δ,2))``, and the count
    moves by at most the larger: ``≤ Σ_v min(min(D, k_v s)·t, C(Δ,2)) ≤ d·min(min(s,D)·t, C(Δ,2))``.
    Attribute: ``d·t`` (edge DP's figure), tight; full: ``C(n − 1, 2)`` for ``d = 1``, tight (a
    protected vertex joined to a clique on everyone else).
    """
    ctx = policy_context(domain, metric, "triangle_count")
    s, D, n = ctx["s"], ctx["D"], ctx["n"]
    if D is None and n is None:
        raise _unbounded("triangle_count", ctx)
    t = _min(_sub(D, 1), _sub(n, 2))
    cap = _min(D, _sub(n, 1))
    per_step = _bound(_times(t, _bound(s, D)), comb(_bound(cap), 2))  # D or n is known, and s is when n is
    return lambda d_in: integer_d_in(d_in) * per_step


# ------------------------------------------------------------------------------- labels
def _label_edges(query: str, domain, metric) -> int:
    ctx = policy_context(domain, metric, query)
    m = _min(ctx["s"], ctx["D"])
    if m is None:
        raise _unbounded(query, ctx)
    return m


@stability_rule(make_label_counts, BlowfishDistance)
def label_counts_rule(domain, metric, c):
    """``2c·d·min(s, D)``. A contact's labels are one categorical attribute of the tuple, so a
    step may add, remove or relabel contacts. At centre ``v`` the counts move by at most
    ``c(a_v + r_v) + 2c·l_v ≤ 2c·max(a_v + l_v, r_v + l_v) ≤ 2c·min(D, k_v s)``. Attribute:
    ``2c`` (relabelling one edge from ``c`` properties to ``c`` others), tight — twice edge DP's
    ``c``, because edge DP counts a relabelling as two changes and Blowfish as one."""
    c = LabelContribution.of(c).c  # the cap applied to each edge
    m = _label_edges("label_counts", domain, metric)
    return lambda d_in: 2 * c * integer_d_in(d_in) * m


@stability_rule(make_label_count_map, BlowfishDistance)
def label_count_map_rule(domain, metric, c):
    """``(ℓ0, ℓ1, ℓ∞) = (2c·d·m, 2c·d·m, d·m)`` with ``m = min(s, D)``: ℓ1 as for
    :func:`label_counts_rule` (and ``ℓ0 ≤ ℓ1``); one property's count moves by at most the larger
    of the number of changed contacts gaining it (``≤ Σ_v (a_v + l_v)``) and losing it
    (``≤ Σ_v (r_v + l_v)``), each ``≤ Σ_v min(D, k_v s) ≤ d·m``."""
    c = LabelContribution.of(c).c
    m = _label_edges("label_count_map", domain, metric)

    def stability(d_in):
        d = integer_d_in(d_in)
        return (2 * c * d * m, 2 * c * d * m, d * m)

    return stability


# ------------------------------------------------------------------------------- VIP queries
def _standard_count(n: int | None, vip: tuple[int, ...]) -> int | None:
    return None if n is None else n - len(vip)


@stability_rule(make_standard_degree_histogram, BlowfishDistance)
def standard_histogram_rule(domain, metric, bins, vip):
    """``2·min(n_std, d·min(s_std, 2D))`` where ``n_std = n − |VIP|`` and ``s_std`` is ``s``
    counting standard contacts only.

    Only VIPs are protected, so every changed pair with a standard end has its VIP end as
    centre, and pairs between VIPs do not touch standard degrees. A standard vertex changes
    only if such a pair touches it, so at most ``Σ_v (a_v^std + r_v^std) ≤ Σ_v min(k_v s_std,
    2D)`` standard vertices change, each moving the L1 norm by at most 2. Attribute VIP policy:
    ``2d`` — the paper's 2 (§3.2), tight (a VIP's edge to a standard vertex); full VIP policy:
    ``2·n_std`` for ``d = 1``."""
    ctx = policy_context(domain, metric, "standard_degree_histogram")
    policy, n, D = ctx["policy"], ctx["n"], ctx["D"]
    standard = None if n is None else sorted(set(range(n)) - set(vip))
    s_std = policy.max_star(n, among=standard) if standard is not None else policy.max_star(n)
    per_step = _min(s_std, _times(D, 2))
    n_std = _standard_count(n, vip)
    if per_step is None and n_std is None:
        raise _unbounded("standard_degree_histogram", ctx)
    return lambda d_in: 2 * _bound(n_std, _times(per_step, integer_d_in(d_in)))


@stability_rule(make_vip_standard_histogram, BlowfishDistance)
def vip_standard_rule(domain, metric, bins, vip, side):
    """``side="vip"``: ``2·min(d, |VIP|)`` under every VIP policy. A VIP's count of standard
    contacts changes only if a changed pair joins it to a standard vertex; that pair's only
    protected end is the VIP, so the VIP is a centre, and there are at most ``d`` centres
    (each takes ``k_v ≥ 1`` steps). Each changed count moves the L1 norm by at most 2 (the
    paper's 2, §3.3, tight).

    ``side="standard"``: as :func:`standard_histogram_rule` (a standard vertex's count changes
    only through a changed pair to a VIP centre): ``2d`` under the attribute VIP policy (the
    paper's 2), ``2·n_std`` under a full one.
    """
    if side == "vip":
        policy_context(domain, metric, "vip_standard_histogram")
        return lambda d_in: 2 * min(integer_d_in(d_in), len(vip))
    return standard_histogram_rule(domain, metric, bins, vip)


# ----------------------------------------------------------------- the VIP queries under edge DP
@stability_rule(make_standard_degree_histogram, EdgeDistance)
def _standard_histogram_edge(domain, metric, bins, vip):
    """Edge distance: ``2·min(n_std, 2d)``: an edge changes at most two standard degrees (tight:
    an edge between two isolated standard vertices)."""
    n_std = _standard_count(domain.num_nodes, vip)
    return lambda d_in: 2 * _bound(n_std, 2 * integer_d_in(d_in))


@stability_rule(make_vip_standard_histogram, EdgeDistance)
def _vip_standard_edge(domain, metric, bins, vip, side):
    """Edge distance: an edge moves the counts only if it joins a VIP and a standard vertex, and
    then one count on each side: ``2·min(d, |VIP|)`` (``side="vip"``) or ``2·min(d, n_std)``."""
    if side == "vip":
        return lambda d_in: 2 * min(integer_d_in(d_in), len(vip))
    n_std = _standard_count(domain.num_nodes, vip)
    return lambda d_in: 2 * _bound(n_std, integer_d_in(d_in))
