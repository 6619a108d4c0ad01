"""Counts of edge properties (labels), with a per-edge contribution bound ``c``.

Each edge contributes at most ``c = max_labels_per_edge`` of its properties, chosen *without
looking at other edges*: those of its properties that are in the public ``vocabulary``, first
``c`` in vocabulary order (so order the vocabulary by priority, e.g. by frequency in a public
corpus). Without a vocabulary (the set-union map), the first ``c`` in lexicographic order.

**When the cap cannot bind.** An edge contributes at most ``c_eff = min(c, |V|, m)``
properties, where ``|V|`` is the number of properties the query can count (its vocabulary, or
the vocabulary an input metric restricts it to) and ``m`` the domain's promise
``graph_domain(max_labels_per_edge=m)``. If ``c ≥ |V|`` or ``c ≥ m``, no edge ever has more
than ``c`` counted properties, so the bound never drops one. The stability rules receive ``c``
as a :class:`LabelContribution`, a frozen value that carries ``c``, ``|V|``, ``m``, ``c_eff``
and whether the cap can bind.

**Input metrics under which a cap cannot help.** A metric descriptor with
``label_cap_lowers_sensitivity = False``, a capability of
:class:`~opendp_graph.core.metrics.MetricDescriptor` (the Pufferfish metric: one secret moves one
property's count, and a binding cap could only add displaced properties), gets no cap at all: ``c`` is
accepted and not used, every counted property of every edge is counted, and the rules receive a
:class:`LabelContribution` marked ``uncapped`` (it cannot displace).

**Input metrics with a vocabulary.** A metric descriptor whose ``vocabulary`` (declared by
:class:`~opendp_graph.core.metrics.MetricDescriptor`, default ``None``) is a tuple (the Pufferfish metric of a model that describes only the properties it was fitted on,
:mod:`opendp_graph.pufferfish.metric`) restricts both queries to those properties:
``make_label_counts`` refuses, at construction, a vocabulary with other properties, and
``make_label_count_map`` without a vocabulary counts that vocabulary's properties only (still a
rule that reads only the edge).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import opendp.prelude as dp
import scipy.sparse as sp

from ..core import _kernels
from ..core._bias import state_bias
from ..core._checks import positive_integer, property_names
from ..core._distributed import DistributedGraph
from ..core.domains import GraphDomain, graph_domain_descriptor
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
from ._core import int_count_map_space, make_graph_transformation, sqrt_up, then
from .degrees import require_max_degree
from .rules import Query, stability_rule, variant

__all__ = [
    "make_label_counts",
    "then_label_counts",
    "make_label_count_map",
    "then_label_count_map",
    "label_counts",
    "label_count_map",
    "selected_labels",
    "LabelContribution",
    "LABEL_COUNTS_LINF",
    "LABEL_COUNTS_L2",
    "LABEL_COUNTS_MONOTONIC",
    "LABEL_COUNT_MAP_L2",
    "l2_bound",
]


@dataclass(frozen=True)
class LabelContribution:
    """The contribution bound ``c`` of a label query, as its stability rule receives it: a
    frozen value.

    ``c`` is the bound itself; ``counted`` how many properties the query can count (its
    vocabulary's size, or ``None`` when any property may be counted) and ``domain_cap`` the
    domain's ``max_labels_per_edge`` (or ``None``). A rule that needs only ``c`` reads ``.c`` (it
    is not an ``int``: a rule cannot use it as a number by mistake).

    >>> c = LabelContribution(3, counted=2, domain_cap=None)
    >>> c.c, c.effective, c.can_displace
    (3, 2, False)
    >>> LabelContribution(1, counted=5, domain_cap=4).can_displace
    True
    """

    c: int
    """The bound ``max_labels_per_edge`` of the query."""
    counted: int | None = field(kw_only=True)
    domain_cap: int | None = field(kw_only=True)
    uncapped: bool = field(default=False, kw_only=True)
    """The query applies no cap (``c`` is not used): under an input metric where a cap cannot
    lower the sensitivity (Pufferfish), every counted property of every edge is counted."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "c", int(self.c))
        object.__setattr__(self, "uncapped", bool(self.uncapped))

    @property
    def effective(self) -> int:
        """``c_eff = min(c, counted, domain_cap)``: the most properties one edge contributes
        (without ``c`` when uncapped; ``sys.maxsize`` when nothing bounds it)."""
        bounds = (self.counted, self.domain_cap) if self.uncapped else (self.c, self.counted, self.domain_cap)
        return min((x for x in bounds if x is not None), default=sys.maxsize)

    @property
    def can_displace(self) -> bool:
        """Whether the bound can drop a counted property of some edge of the domain: a cap is
        applied and ``c`` is below both the number of counted properties and the domain's
        per-edge promise."""
        if self.uncapped:
            return False
        return all(x is None or self.c < x for x in (self.counted, self.domain_cap))

    def keys(self, l1: int) -> int:
        """ℓ0 of a change with L1 ``l1``: at most ``l1`` (integer counts) and at most ``counted``."""
        return l1 if self.counted is None else min(l1, self.counted)

    @property
    def relabel(self) -> int:
        """Most counts one changed edge moves: ``|S Δ S'| ≤ min(2·c_eff, |V|)``."""
        return self.keys(2 * self.effective)

    @classmethod
    def of(cls, c: int | LabelContribution) -> LabelContribution:
        """``c`` as a contribution: itself, or for a plain ``int`` one about which nothing is
        known (``c_eff = c``, any number of properties counted, the cap may bind)."""
        return c if isinstance(c, LabelContribution) else cls(int(c), counted=None, domain_cap=None)

    def __repr__(self) -> str:
        extra = ", uncapped=True" if self.uncapped else ""
        return f"LabelContribution({self.c}, counted={self.counted}, domain_cap={self.domain_cap}{extra})"


def _require_labeled(domain: GraphDomain, query: str) -> None:
    if not domain.labeled:
        raise ValueError(f"{query} needs a labeled domain: graph_domain(labeled=True)")


def _metric_vocabulary(input_metric: dp.Metric) -> tuple[str, ...] | None:
    """The properties the input metric lets a label query read (a tuple), or ``None``: any."""
    return metric_descriptor(input_metric).vocabulary


def _check_within(vocab: tuple[str, ...], allowed: tuple[str, ...], query: str) -> None:
    """Refuse a query vocabulary with properties the input metric does not describe (public
    arguments only: the query's vocabulary and the metric's)."""
    allowed_set = set(allowed)
    outside = [w for w in vocab if w not in allowed_set]
    if outside:
        shown = ", ".join(repr(w) for w in outside[:5]) + (f", ... ({len(outside)} in all)" if len(outside) > 5 else "")
        raise ValueError(
            f"{query}: the input metric's model describes only the {len(allowed)} properties it was fitted on, "
            f"and the vocabulary has others: {shown}. Its guarantee says nothing about them; drop them, or use a "
            "model that describes every property (Binomial, Global, EdgeLevel, MarkovQuilt)"
        )


def _contribution(c: int, domain: GraphDomain, counted: int | None, input_metric: dp.Metric) -> LabelContribution:
    """``c`` as the rules receive it; uncapped under a metric where a cap cannot lower the
    sensitivity (its descriptor says ``label_cap_lowers_sensitivity = False``: Pufferfish)."""
    cap = domain.max_labels_per_edge
    uncapped = not metric_descriptor(input_metric).label_cap_lowers_sensitivity
    return LabelContribution(c, counted=counted, domain_cap=cap, uncapped=uncapped)


def _cap_bias(contribution: LabelContribution) -> str | None:
    """What the per-edge cap drops, in words (``None`` where it cannot bind on the domain): the
    statement :func:`opendp_graph.accuracy` shows beside a label release's half-width."""
    if not contribution.can_displace:
        return None
    c = contribution.c
    return (
        f"the properties beyond the first {c} per pair (in the vocabulary's order) that the cap c = {c} drops: each "
        "interval is around the capped count, which is at most the true count; no public figure bounds the "
        f"difference (a domain promise max_labels_per_edge ≤ {c} would make it zero)"
    )


def _applied_cap(contribution: LabelContribution) -> int | None:
    """The cap the query applies to each edge: ``c``, or ``None`` (all counted properties)."""
    return None if contribution.uncapped else contribution.c


def _labels_of(graph: Graph) -> tuple[sp.csr_array, tuple[str, ...]]:
    """A labeled graph's label matrix and vocabulary; ``ValueError`` for an unlabeled graph."""
    matrix, names = graph.labels, graph.vocabulary
    if matrix is None or names is None:  # both or neither (Graph._from_canonical)
        raise ValueError("graph is unlabeled")
    return matrix, names


def selected_labels(graph: Graph, max_labels_per_edge: int | None, vocabulary: Sequence[str] | None = None):
    """``(edge, rank)`` pairs that the counting queries use, as two arrays.

    ``rank`` indexes ``vocabulary`` if given, else ``graph.vocabulary`` (sorted, so rank order is
    lexicographic). Per edge, the ``max_labels_per_edge`` smallest ranks are kept (all of them
    when it is ``None``): a rule that reads only that edge's own labels.

    Implementation: the label matrix's columns are permuted into rank order (dropping those not
    in the vocabulary) and each row's indices sorted, in SciPy's C code; then an entry's position
    in its row is its index minus the row start, and the first ``c`` of each row are kept. No
    sort over all (edge, property) pairs, which measured 2× slower at 6 M pairs.
    """
    matrix, graph_vocabulary = _labels_of(graph)
    rank_of_kept_column = None
    if vocabulary is not None:
        column = {w: j for j, w in enumerate(graph_vocabulary)}
        in_graph = [(rank, column[w]) for rank, w in enumerate(vocabulary) if w in column]
        rank_of_kept_column = np.fromiter((r for r, _ in in_graph), dtype=np.int64, count=len(in_graph))
        kept_columns = np.fromiter((j for _, j in in_graph), dtype=np.int64, count=len(in_graph))
        matrix = matrix[:, kept_columns]  # column k now has rank rank_of_kept_column[k], increasing in k
    matrix = sp.csr_array(matrix)
    if not matrix.has_sorted_indices:
        matrix = matrix.copy()
        matrix.sort_indices()
    indptr = matrix.indptr.astype(np.int64)
    per_row = np.diff(indptr)
    position_in_row = np.arange(matrix.indices.size, dtype=np.int64) - np.repeat(indptr[:-1], per_row)
    keep = position_in_row < (sys.maxsize if max_labels_per_edge is None else max_labels_per_edge)
    rows = np.repeat(np.arange(graph.num_edges, dtype=np.int64), per_row)[keep]
    ranks = matrix.indices[keep].astype(np.int64)
    if rank_of_kept_column is not None:
        ranks = rank_of_kept_column[ranks]
    return rows, ranks


def selected_label_counts(graph: Graph, max_labels_per_edge: int | None, vocabulary: Sequence[str] | None = None) -> np.ndarray:
    """For each rank (of ``vocabulary`` if given, else ``graph.vocabulary``), the number of edges
    whose selection (:func:`selected_labels`) contains it, as int64.

    One compiled loop over the edges' rows of the label matrix
    (:func:`opendp_graph.core._kernels.first_label_counts`): nothing per labelled pair is allocated
    (a ``bincount`` of :func:`selected_labels`' ranks would hold five arrays of one int64 per
    pair). Same counts."""
    matrix, graph_vocabulary = _labels_of(graph)  # canonical: rows sorted by column, no duplicates
    # the same arguments the constructors accept, checked here: the compiled count trusts them
    if max_labels_per_edge is not None:
        max_labels_per_edge = positive_integer("max_labels_per_edge", max_labels_per_edge)
    if vocabulary is not None:
        vocabulary = property_names(vocabulary)
    names = vocabulary if vocabulary is not None else graph_vocabulary
    if vocabulary is None:
        rank_of_column = np.arange(matrix.shape[1], dtype=np.int64)  # graph.vocabulary is sorted
    else:
        column = {w: j for j, w in enumerate(graph_vocabulary)}
        rank_of_column = np.full(matrix.shape[1], -1, dtype=np.int64)
        for rank, w in enumerate(vocabulary):
            if w in column:
                rank_of_column[column[w]] = rank
    cap = -1 if max_labels_per_edge is None else int(max_labels_per_edge)
    counts = np.zeros(len(names), dtype=np.int64)
    longest = int(np.diff(matrix.indptr).max(initial=0))
    _kernels.first_label_counts(matrix.indptr, matrix.indices, rank_of_column, cap, counts, np.empty(longest, dtype=np.int64))
    return counts


def label_counts(graph: Graph, max_labels_per_edge: int | None, vocabulary: Sequence[str]) -> list[int]:
    """Non-private: for each vocabulary entry, the number of edges that contribute it."""
    if isinstance(graph, DistributedGraph):  # computed where the graph lives (opendp_graph.spark)
        counts = graph.label_counts(max_labels_per_edge, vocabulary)
        return [counts.get(w, 0) for w in vocabulary]
    return selected_label_counts(graph, max_labels_per_edge, vocabulary).tolist()


def label_count_map(graph: Graph, max_labels_per_edge: int | None, vocabulary: Sequence[str] | None = None) -> dict[str, int]:
    """Non-private: ``{property: count}`` for every contributed property (count > 0)."""
    if isinstance(graph, DistributedGraph):
        return graph.label_counts(max_labels_per_edge, vocabulary)
    counts = selected_label_counts(graph, max_labels_per_edge, vocabulary)  # refuses an unlabeled graph
    names = vocabulary if vocabulary is not None else graph.vocabulary
    assert names is not None  # the graph is labeled
    return {names[i]: int(counts[i]) for i in np.flatnonzero(counts).tolist()}


_NORMS = {
    "l1": lambda: dp.l1_distance(T=dp.i64),
    "l2": lambda: dp.l2_distance(T=dp.f64),
    "linf": lambda: dp.linf_distance(T=dp.i64),
    "linf_monotonic": lambda: dp.linf_distance(T=dp.i64, monotonic=True),
}


def _L02INF() -> dp.Metric:
    return dp.l02inf_distance(dp.absolute_distance(T=dp.f64))


def _count_vector_norm(output_metric: dp.Metric | None) -> str:
    """Which of the supported output metrics of ``make_label_counts`` this is."""
    if output_metric is None:
        return "l1"
    if not isinstance(output_metric, dp.Metric):
        raise TypeError(f"output_metric must be an OpenDP Metric, got {type(output_metric).__name__}")
    for name, make in _NORMS.items():
        if output_metric == make():
            return name
    raise ValueError(
        f"output_metric must be dp.l1_distance(T=dp.i64), dp.l2_distance(T=dp.f64), dp.linf_distance(T=dp.i64) or "
        f"dp.linf_distance(T=dp.i64, monotonic=True), got {output_metric!r}"
    )


def _linf_of_map(map_stability):
    return lambda d_in: map_stability(d_in)[2]


def l2_bound(l0: int, l1: int, linf: int) -> float:
    """The least float at least ``min(√(ℓ1·ℓ∞), √ℓ0·ℓ∞)``: the largest ℓ2 norm of an integer
    vector with at most ``l0`` non-zero entries, ℓ1 norm at most ``l1`` and every entry at most
    ``linf`` in absolute value. Proof: ``Σ xᵢ² ≤ max|xᵢ| · Σ|xᵢ| ≤ ℓ∞·ℓ1`` (Hölder), and
    ``Σ xᵢ² ≤ ℓ0·ℓ∞²``. Rounded up, never down: a sensitivity must not shrink in floating point.

    >>> l2_bound(50, 50, 1), l2_bound(4, 100, 10), l2_bound(0, 0, 0)
    (7.0710678118654755, 20.0, 0.0)
    """
    return sqrt_up(min(int(l1) * int(linf), int(l0) * int(linf) ** 2))


def _l2_of_map(map_stability):
    """The ℓ2 component a ``(ℓ0, ℓ1, ℓ∞)`` map implies (:func:`l2_bound`)."""
    return lambda d_in: l2_bound(*map_stability(d_in))


def _l02inf_of_map(map_stability):
    """``(ℓ0, ℓ2, ℓ∞)`` from a ``(ℓ0, ℓ1, ℓ∞)`` map, for OpenDP's ``l02inf_distance`` (ℓ∞ as a
    float: the distance's type there)."""

    def stability(d_in):
        l0, l1, linf = map_stability(d_in)
        return (int(l0), l2_bound(l0, l1, linf), float(linf))

    return stability


def monotonic_single_unit(per_unit: int):
    """The stability map into ``linf_distance(monotonic=True)`` of a query under which *one*
    unit of input distance moves every count the same way by at most ``per_unit``: ``0`` at
    ``d_in = 0``, ``per_unit`` at ``d_in = 1``, and no finite bound beyond (two units can move
    counts in opposite directions, which OpenDP's monotonic distance counts as infinite)."""

    def stability(d_in):
        d = integer_d_in(d_in)
        if d > 1:
            raise ValueError(
                f"a monotonic L∞ bound holds for one unit of input distance only (d_in ≤ 1), got d_in={d_in!r}: "
                "two units can move counts in opposite directions; use dp.linf_distance(T=dp.i64) for larger d_in"
            )
        return per_unit * d

    return stability


_LABEL_GUARANTEE = """
    **Stability guarantee** (``d`` = input distance, ``c`` = ``max_labels_per_edge``, ``D`` =
    the domain's ``max_degree``, ``|V|`` = the number of properties the query can count — its
    vocabulary's size; unbounded for the map without a vocabulary —, ``m`` = the domain's
    ``max_labels_per_edge``, ``c_eff = min(c, |V|, m)``). One edge's contribution is a set of at
    most ``c_eff`` counted properties, chosen by a rule that reads only that edge, so it moves
    the counts by at most ``c_eff`` entries by one each; every count moves by at most the number
    of edges whose contribution changed; and every changed key is one of the ``|V|``:

    * edge distance: L1 ``c_eff·d``; map ``(min(c_eff·d, |V|), c_eff·d, d)``. (Changing an
      edge's labels is distance 2.) Tight (an edge with ``c_eff`` counted properties).
    * group distance ``k``: the edge bound at ``d·k``.
    * edge-label distance: L1 ``min(2c_eff, |V|)·d``; map ``(min(2c_eff·d, |V|), min(2c_eff,
      |V|)·d, d)``: a changed edge's contribution goes from ``S`` to ``S'``, both subsets of the
      ``|V|`` counted properties of size ``≤ c_eff``, so ``|S Δ S'| ≤ min(2c_eff, |V|)``. Tight
      (``S`` of size ``c_eff``, ``S'`` of size ``min(c_eff, |V| − c_eff)`` disjoint from it).
    * node distance: L1 ``min(2c_eff, |V|)·d·D``; map ``(min(2c_eff·d·D, |V|), min(2c_eff,
      |V|)·d·D, d·D)``: each graph has at most ``d·D`` edges touching the cover, and only those
      differ; the counts of the others cancel, so each count moves by at most ``d·D``, and
      ``|X − X'|₁ ≤ |X|₁ + |X'|₁ ≤ 2c_eff·d·D`` for the touching edges' counts ``X, X'``.
      Needs ``max_degree``.
    * node-insertion distance (add/remove a node): the edge bound at ``d·D`` edges: an inserted
      or deleted node adds or removes at most ``D`` edges and relabels none. Needs ``max_degree``.
    * an input metric with a vocabulary (a Pufferfish model fitted on some properties):
      ``make_label_counts`` refuses a vocabulary outside it, and the map without vocabulary
      counts only its properties (``|V|`` = their number).
    * Blowfish and Pufferfish metrics register their own rules (see those modules).
"""


def make_label_counts(
    input_domain: dp.Domain,
    input_metric: dp.Metric,
    max_labels_per_edge: int,
    vocabulary: Sequence[str],
    output_metric: dp.Metric | None = None,
) -> dp.Transformation:
    """Counts of the properties of a public ``vocabulary`` over the edges of a labeled graph, an
    ``i64`` vector (in vocabulary order).

    ``output_metric`` chooses the distance the stability map bounds, as OpenDP's
    ``make_count_by_categories`` does: ``dp.l1_distance(T=dp.i64)`` (the default; for Laplace,
    Gaussian), ``dp.linf_distance(T=dp.i64)`` (the largest change of one count; for OpenDP's
    ``dp.m.then_noisy_top_k``, report-noisy-max) or ``dp.linf_distance(T=dp.i64, monotonic=True)``
    (the same, where one unit moves every count the same way: half the noisy top-k's ε). See
    *Top-k* below.
    """
    domain = graph_domain_descriptor(input_domain)
    c = positive_integer("max_labels_per_edge", max_labels_per_edge)
    vocab = property_names(vocabulary)
    _require_labeled(domain, "label_counts")
    allowed = _metric_vocabulary(input_metric)
    if allowed is not None:
        _check_within(vocab, allowed, "label_counts")
    norm = _count_vector_norm(output_metric)
    size = len(vocab)
    out_domain = dp.vector_domain(dp.atom_domain(T=dp.i64), size=size)
    contribution = _contribution(c, domain, len(vocab), input_metric)
    applied = _applied_cap(contribution)
    # the rule each norm is proved by (the keys of the rule table); L∞: the vector is the count
    # map on the vocabulary, absent keys 0, so its L∞ is the map's ℓ∞ (LABEL_COUNTS_LINF)
    queries: dict[str, Query] = {
        "l1": make_label_counts,
        "l2": LABEL_COUNTS_L2,
        "linf": LABEL_COUNTS_LINF,
        "linf_monotonic": LABEL_COUNTS_MONOTONIC,
    }
    query = queries[norm]
    counts = make_graph_transformation(
        input_domain,
        input_metric,
        query=query,
        output_domain=out_domain,
        output_metric=_NORMS[norm](),
        function=lambda g: label_counts(g, applied, vocab),
        params={"c": contribution},
    )
    counts.counted_keys = vocab  # the vector's labels, position by position (checked by text releases)
    return state_bias(counts, _cap_bias(contribution))


_L2 = """
    **ℓ2 bounds** (``output_metric=dp.l2_distance(T=dp.f64)`` for the vector,
    ``dp.l02inf_distance(dp.absolute_distance(T=dp.f64))`` for the map: OpenDP's Gaussian, whose
    zCDP cost is ``ℓ2²/(2·scale²)``). Under every input metric (those above, Blowfish's and
    Pufferfish's) the bound is the map rule's ``(ℓ0, ℓ1, ℓ∞)`` turned into
    ``ℓ2 ≤ min(√(ℓ1·ℓ∞), √ℓ0·ℓ∞)`` (:func:`l2_bound`: ``Σ xᵢ² ≤ max|xᵢ|·Σ|xᵢ|`` and ``Σ xᵢ² ≤
    ℓ0·max xᵢ²``), a float rounded up. So: ``√c_eff·d`` at edge level (``√50 = 7.07`` for
    ``c = 50``, against L1 ``50``), ``√min(2c_eff, |V|)·d`` under the edge-label metric,
    ``√min(2c_eff, |V|)·d·D`` for a rewired node, ``√c_eff·d·D`` for an inserted one, and
    ``max(W, 1)·d`` under a Pufferfish model whose cap cannot bind (one count moves). Tight
    wherever the map rule is and its extreme change moves ``ℓ0`` counts by ``ℓ∞`` each, which the
    tight cases above do (the same ``c_eff`` properties on the ``d`` (or ``d·D``) changed edges;
    the brute-force tests realise it).
"""


_TOP_K = """
    **Top-k** (``output_metric=dp.linf_distance(...)``). The vector over ``V`` is the count map
    of :func:`make_label_count_map` with the same ``c`` and vocabulary, each absent key read as
    ``0``; so its L∞ distance is the map's ℓ∞ distance, and the L∞ map is the ℓ∞ component of
    the map's rule under every input metric (above, and those of Blowfish and Pufferfish):
    ``d`` edges at edge level, ``d·D`` at node level, ``d`` under the edge-label metric, ``max(W,
    1)·d`` under a Pufferfish model whose cap cannot bind. Chain it into OpenDP's report-noisy-max,
    ``>> dp.m.then_noisy_top_k(dp.max_divergence(), k=k, scale=s)``, whose map (OpenDP's proof) is ``2k·d_out/s``.

    ``monotonic=True`` states more: every count moves *the same way*, so OpenDP's noisy top-k
    charges ``k·d_out/s``, half. It holds for one unit of input distance only, and only where a
    unit cannot move two counts in opposite directions: one edge added or removed (edge distance,
    group distance with ``k = 1``: the edge's counted properties all gain or all lose one), and one
    coupled secret flip of a Pufferfish model whose cap cannot bind (only the flipped property's
    count moves). A label change, a rewired node, a group of edges, a Blowfish step or a flip
    that displaces a property can move counts both ways: those metrics refuse it at construction.
    The map is ``0`` at ``d_in = 0``, the bound at ``d_in = 1``, and an error beyond (two units
    can move counts in opposite directions: OpenDP's monotonic distance is then infinite).

    When one unit moves one count only (Pufferfish, cap not binding: ℓ1 = ℓ∞ = ``max(W, 1)``),
    Laplace noise on the whole L1 vector and the top ``k`` of the noisy counts (post-processing)
    costs ``ε`` for every ``k``, against ``k·ε`` for noisy top-k at the same scale: prefer it there.
"""


make_label_counts.__doc__ = (make_label_counts.__doc__ or "") + (
    _LABEL_GUARANTEE
    + _L2
    + _TOP_K
    + """
    :example:

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> g = dpg.Graph.from_edges([0, 1], [1, 2], labels=[["lunch", "hi"], ["hi"]])
    >>> t = dpg.make_label_counts(dpg.graph_domain(labeled=True), dpg.edge_distance(), 1, ["hi", "lunch"])
    >>> t(g), t.map(1)
    ([2, 0], 1)
    >>> top = dpg.make_label_counts(dpg.graph_domain(labeled=True), dpg.edge_distance(), 2, ["hi", "lunch"],
    ...                             output_metric=dp.linf_distance(T=dp.i64, monotonic=True))
    >>> top.map(1)  # one edge moves each count by at most one, all the same way
    1
    >>> (top >> dp.m.then_noisy_top_k(dp.max_divergence(), k=1, scale=1.0)).map(1)  # OpenDP's report-noisy-max: ε = k·1/scale
    1.0
"""
)


then_label_counts = then(make_label_counts)


def make_label_count_map(
    input_domain: dp.Domain,
    input_metric: dp.Metric,
    max_labels_per_edge: int,
    vocabulary: Sequence[str] | None = None,
    output_metric: dp.Metric | None = None,
) -> dp.Transformation:
    """The same counts as a ``{property: count}`` map (``l01inf_distance``), keeping only
    contributed properties, so that ``>> dpg.then_corrected_laplace_threshold(...)`` (OpenDP's thresholded
    Laplace with δ corrected, see :mod:`opendp_graph.measurements`) releases an unknown
    set of properties (DP set union, Gopi et al. 2020). With ``vocabulary=None`` every property
    may appear: the *keys* are then private, which the threshold mechanism accounts for. (Under
    an input metric with a vocabulary, ``vocabulary=None`` means that vocabulary, in
    lexicographic order, and a given vocabulary must lie inside it.)

    ``output_metric=dp.l02inf_distance(dp.absolute_distance(T=dp.f64))`` bounds ``(ℓ0, ℓ2, ℓ∞)``
    instead, for the Gaussian twin ``>> dpg.then_corrected_gaussian_threshold(...)`` (*ℓ2 bounds* below).
    """
    domain = graph_domain_descriptor(input_domain)
    c = positive_integer("max_labels_per_edge", max_labels_per_edge)
    vocab = None if vocabulary is None else property_names(vocabulary)
    _require_labeled(domain, "label_count_map")
    allowed = _metric_vocabulary(input_metric)
    if allowed is not None:
        if vocab is None:
            vocab = tuple(sorted(allowed))  # the first c in lexicographic order, as without a vocabulary
        else:
            _check_within(vocab, allowed, "label_count_map")
    space = int_count_map_space()
    query: Query = make_label_count_map
    if output_metric is not None:
        if not isinstance(output_metric, dp.Metric):
            raise TypeError(f"output_metric must be an OpenDP Metric, got {type(output_metric).__name__}")
        if output_metric == _L02INF():
            space, query = (space[0], output_metric), LABEL_COUNT_MAP_L2
        elif output_metric != space[1]:
            raise ValueError(
                "output_metric must be dp.l01inf_distance(dp.absolute_distance(T=dp.i64)) (the default) or "
                f"dp.l02inf_distance(dp.absolute_distance(T=dp.f64)), got {output_metric!r}"
            )
    contribution = _contribution(c, domain, None if vocab is None else len(vocab), input_metric)
    applied = _applied_cap(contribution)
    counts = make_graph_transformation(
        input_domain,
        input_metric,
        query=query,
        output_domain=space[0],
        output_metric=space[1],
        function=lambda g: label_count_map(g, applied, vocab),
        params={"c": contribution},
    )
    return state_bias(counts, _cap_bias(contribution))


make_label_count_map.__doc__ = (make_label_count_map.__doc__ or "") + _LABEL_GUARANTEE + _L2


then_label_count_map = then(make_label_count_map)


LABEL_COUNTS_LINF = variant(make_label_counts, "linf", derived_from=make_label_count_map, adapt=_linf_of_map)
"""The rules of :func:`make_label_counts` into ``dp.linf_distance(T=dp.i64)``: the ℓ∞ component
of :func:`make_label_count_map`'s rule under every metric (``_TOP_K``)."""

LABEL_COUNTS_L2 = variant(make_label_counts, "l2", derived_from=make_label_count_map, adapt=_l2_of_map)
"""The rules of :func:`make_label_counts` into ``dp.l2_distance(T=dp.f64)``: from the ``(ℓ0,
ℓ1, ℓ∞)`` rule of :func:`make_label_count_map` under every metric, ``min(√(ℓ1·ℓ∞), √ℓ0·ℓ∞)``
(:func:`l2_bound`; ``_L2``)."""

LABEL_COUNT_MAP_L2 = variant(make_label_count_map, "l2", derived_from=make_label_count_map, adapt=_l02inf_of_map)
"""The rules of :func:`make_label_count_map` into ``dp.l02inf_distance(dp.absolute_distance(T=dp.f64))``
(for OpenDP's Gaussian threshold): the ℓ0 and ℓ∞ of the map's own rule, and its ℓ2 by
:func:`l2_bound` (``_L2``)."""

LABEL_COUNTS_MONOTONIC = variant(make_label_counts, "monotonic")
"""The key of :func:`make_label_counts`' rules into ``dp.linf_distance(T=dp.i64,
monotonic=True)`` (query name ``"label_counts_monotonic"``); registered for the metrics under
which one unit moves every count the same way (``_TOP_K``)."""


# ----------------------------------------------------------------------------- rules
# Every rule below receives ``c`` as a LabelContribution (LabelContribution.of also takes a plain
# int: nothing known, c_eff = c, |V| unbounded). Proofs: ``_LABEL_GUARANTEE``.
def _edge_changes(metric, d: int) -> int:
    return d * metric.k if isinstance(metric, GroupDistance) else d


@stability_rule(make_label_counts, EdgeDistance, GroupDistance)
def _counts_edge(domain, metric, c):
    per_edge = LabelContribution.of(c).effective
    return lambda d_in: per_edge * _edge_changes(metric, integer_d_in(d_in))


@stability_rule(make_label_count_map, EdgeDistance, GroupDistance)
def _map_edge(domain, metric, c):
    per_edge = LabelContribution.of(c).effective

    def stability(d_in):
        d = _edge_changes(metric, integer_d_in(d_in))
        return (LabelContribution.of(c).keys(per_edge * d), per_edge * d, d if per_edge else 0)

    return stability


@stability_rule(LABEL_COUNTS_MONOTONIC, EdgeDistance, GroupDistance)
def _counts_edge_monotonic(domain, metric, c):
    """One edge added or removed: its counted properties all gain or all lose one (``_TOP_K``)."""
    if isinstance(metric, GroupDistance) and metric.k != 1:
        raise ValueError(
            f"a monotonic L∞ bound needs one edge per unit; {metric!r} changes up to {metric.k} edges per unit, "
            "which can move counts in opposite directions: use dp.linf_distance(T=dp.i64)"
        )
    return monotonic_single_unit(1 if LabelContribution.of(c).effective else 0)


@stability_rule(make_label_counts, EdgeLabelDistance)
def _counts_label(domain, metric, c):
    per_edge = LabelContribution.of(c).relabel
    return lambda d_in: per_edge * integer_d_in(d_in)


@stability_rule(make_label_count_map, EdgeLabelDistance)
def _map_label(domain, metric, c):
    per_edge = LabelContribution.of(c).relabel

    def stability(d_in):
        d = integer_d_in(d_in)
        return (LabelContribution.of(c).keys(per_edge * d), per_edge * d, d if per_edge else 0)

    return stability


def _node_per_edge(metric, c) -> int:
    """Counts one edge moves under a node-level notion: ``relabel`` when its node is rewired,
    ``effective`` when its node is added or removed (the edge appears or disappears)."""
    contribution = LabelContribution.of(c)
    return contribution.effective if isinstance(metric, NodeInsertionDistance) else contribution.relabel


@stability_rule(make_label_counts, NodeDistance, NodeInsertionDistance)
def _counts_node(domain, metric, c):
    """Up to ``D`` edges per unit of input distance change, each moving ``per_edge`` counts."""
    bound = require_max_degree(domain, "label_counts")
    per_edge = _node_per_edge(metric, c)
    return lambda d_in: per_edge * integer_d_in(d_in) * bound


@stability_rule(make_label_count_map, NodeDistance, NodeInsertionDistance)
def _map_node(domain, metric, c):
    bound = require_max_degree(domain, "label_count_map")
    per_edge = _node_per_edge(metric, c)

    def stability(d_in):
        edges = integer_d_in(d_in) * bound
        return (LabelContribution.of(c).keys(per_edge * edges), per_edge * edges, edges if per_edge else 0)

    return stability
