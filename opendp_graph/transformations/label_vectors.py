"""Counts of public properties with each edge's contribution bounded in ℓ2: a vector for Gaussian noise.

:func:`~opendp_graph.make_label_counts` bounds an edge's contribution by keeping its first ``c``
labels, which drops what an edge holds beyond them. When the keys are public and many (every pair
of a vocabulary's words: 44,850 keys for 300 words) an ℓ2 bound is the better contract for the
Gaussian mechanism: an edge with ``n`` of the keys adds ``w = min(1, C/√n)`` to each of them, so
its vector has ℓ2 norm ``w·√n ≤ C`` and nothing is dropped, only scaled down (the clipping of
DP-SGD and of OpenDP's ``make_clamp`` on vectors, here per edge of a graph).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import opendp.prelude as dp

from ..core._checks import property_names
from ..core.domains import graph_domain_descriptor
from ..core.graph import Graph
from ..core.metrics import EdgeDistance, EdgeLabelDistance, GroupDistance, integer_d_in
from ._core import make_graph_transformation, then
from .labels import _require_labeled, selected_labels
from .rules import stability_rule

__all__ = ["clipped_label_counts", "make_clipped_label_counts", "then_clipped_label_counts"]

#: Weights are rounded down to multiples of ``2^-QUANTUM_BITS``: every partial sum is then exact in
#: float64 (below ``2^32`` in total), so the released vector is the exact sum the proof is about.
QUANTUM_BITS = 20


def _edge_weights(per_edge: np.ndarray, norm_bound: float) -> np.ndarray:
    """``min(1, C/√n)`` per edge, rounded down to a multiple ``m·2^-QUANTUM_BITS`` so that
    ``w²·n ≤ C²`` holds **exactly**: ``m`` is the largest integer with ``m²·n ≤ C²·2^40``, computed in
    integers from ``C`` as an exact fraction (a float test of ``w·w·n > C·C`` let 58,532 weights
    through by a rounding, red team)."""
    scale = 2**QUANTUM_BITS
    bound = Fraction(norm_bound)
    weights = np.zeros(per_edge.shape[0])
    for n in np.unique(per_edge).tolist():
        count = int(n)
        if count == 0:
            continue
        m = math.isqrt(bound.numerator**2 * scale**2 // (count * bound.denominator**2))
        weights[per_edge == n] = min(m, scale) / scale
    return weights


def clipped_label_counts(graph: Graph, vocabulary: Sequence[str], norm_bound: float) -> np.ndarray:
    """For each property of ``vocabulary``, the sum over the edges holding it of the edge's weight
    ``min(1, C/√n)`` (``n`` the edge's properties inside ``vocabulary``, ``C = norm_bound``).
    Non-private: the value before noise. Properties outside ``vocabulary`` are ignored.

    >>> import opendp_graph as dpg
    >>> g = dpg.Graph.from_edges([0, 1], [1, 2], labels=[["a", "b", "c", "d"], ["a"]])
    >>> clipped_label_counts(g, ["a", "b", "z"], norm_bound=1.0).tolist()  # edge 0: n = 2, w = 1/√2 (rounded down)
    [1.707106590270996, 0.7071065902709961, 0.0]
    """
    rows, ranks = selected_labels(graph, None, vocabulary)  # every (edge, property) inside the vocabulary
    weights = _edge_weights(np.bincount(rows, minlength=graph.num_edges), norm_bound)
    return np.bincount(ranks, weights=weights[rows], minlength=len(vocabulary)).astype(np.float64)


def _norm_bound(norm_bound: Any) -> float:
    if isinstance(norm_bound, bool) or not isinstance(norm_bound, (int, float, np.integer, np.floating)):
        raise TypeError(f"norm_bound must be a positive number, got {norm_bound!r}")
    if not math.isfinite(norm_bound) or norm_bound <= 0 or norm_bound > 2**20:
        raise ValueError(f"norm_bound must be a positive finite number of at most 2^20, got {norm_bound!r}")
    return float(norm_bound)


def make_clipped_label_counts(input_domain: dp.Domain, input_metric: dp.Metric, vocabulary: Sequence[str], norm_bound: float) -> dp.Transformation:
    """Counts of the public ``vocabulary``'s properties, each edge's contribution scaled to ℓ2 norm
    at most ``C = norm_bound`` (:func:`clipped_label_counts`), as a float vector in ``l2_distance``.

    :param input_domain: ``graph_domain(labeled=True)``.
    :param input_metric: :func:`~opendp_graph.edge_distance`, :func:`~opendp_graph.group_distance`
        or :func:`~opendp_graph.edge_label_distance`.
    :param vocabulary: the public properties, in the vector's order (distinct strings).
    :param norm_bound: ``C``, the ℓ2 norm of one edge's contribution.

    **Stability guarantee** (``d`` = input distance): ``C·d`` under edge distance, ``C·k·d`` under
    group distance ``(k)``, ``√2·C·d`` under edge-label distance, in ``l2_distance``.

    *Proof.* An edge with ``n`` of the properties adds ``w·1_S`` (``|S| = n``) with ``w ≤ min(1,
    C/√n)`` (rounded down to a multiple of ``2^-20`` in exact integer arithmetic:
    :data:`QUANTUM_BITS`), so ``‖w·1_S‖₂ = w·√n ≤ C``; the weight reads
    only that edge's own labels. Adding or removing an edge moves the sum by its vector: at most
    ``C``; ``d`` such changes (a relabelled edge is two, as :func:`~opendp_graph.edge_distance`
    counts it) at most ``C·d`` by the triangle inequality; a group of ``k`` edges ``C·k``.
    Relabelling an edge with the structure fixed replaces ``v`` by ``v'``, both non-negative of
    norm at most ``C``: ``‖v − v'‖² = ‖v‖² + ‖v'‖² − 2⟨v, v'⟩ ≤ 2C²``. The weights are multiples
    of ``2^-20`` and the totals below ``2^32``, so every float sum is exact. Tight under edge
    distance: one edge holding ``C²`` of the properties (``C`` an integer), added.

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> t = dpg.make_clipped_label_counts(dpg.graph_domain(labeled=True), dpg.edge_distance(), ["a", "b"], norm_bound=4.0)
    >>> t.map(1)
    4.000000000000001
    """
    _require_labeled(graph_domain_descriptor(input_domain), "clipped_label_counts")
    if isinstance(vocabulary, (str, bytes)) or not hasattr(vocabulary, "__iter__"):
        raise TypeError("vocabulary must be a sequence of property names")
    words = property_names(vocabulary)
    if not words:
        raise ValueError("vocabulary must not be empty")
    bound = _norm_bound(norm_bound)
    return make_graph_transformation(
        input_domain,
        input_metric,
        query=make_clipped_label_counts,
        output_domain=dp.vector_domain(dp.atom_domain(T=float, nan=False), size=len(words)),
        output_metric=dp.l2_distance(T=float),
        function=lambda graph: clipped_label_counts(graph, words, bound),
        params={"norm_bound": bound},
    )


then_clipped_label_counts = then(make_clipped_label_counts)


def _scaled(per_unit: float):
    return lambda d_in: math.nextafter(per_unit * integer_d_in(d_in), math.inf)


@stability_rule(make_clipped_label_counts, EdgeDistance, GroupDistance)
def _clipped_edge(domain, metric, *, norm_bound):
    return _scaled(norm_bound * (metric.k if isinstance(metric, GroupDistance) else 1))


@stability_rule(make_clipped_label_counts, EdgeLabelDistance)
def _clipped_relabel(domain, metric, *, norm_bound):
    return _scaled(math.nextafter(math.sqrt(2.0) * norm_bound, math.inf))
