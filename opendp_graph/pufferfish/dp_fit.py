"""A Binomial model fitted under differential privacy, with its own budget.

The Binomial model needs two ratios, ``p1 = A1 / B1`` and ``p0 = (B1 − A1) / (P·NB − B1)``
(:mod:`.models`), where, on the labelling truncated to ``c`` vocabulary properties per edge,

* ``A1 = Σ_{(e, a) labelled} #(neighbours of e carrying a)`` (twice the number of adjacent
  pairs of edges sharing a property, summed over properties),
* ``B1 = Σ_{(e, a) labelled} nb_e``,

and ``P`` (vocabulary size), ``NB = Σ_e nb_e`` are public (structure and vocabulary are public).

**Privacy of the fit.** ``(A1, B1)`` is released with OpenDP's Laplace mechanism
(``dp.m.make_laplace`` on a float vector, ``l1_distance``) after a user transformation from
``(graph_domain(labeled=True), edge_label_distance())`` with L1 stability ``3·c_eff·nbmax`` per
unit of edge-label distance, ``c_eff = min(c, P)``. Proof: changing one edge ``e``'s labels
changes its truncated set from ``S`` to ``S'`` (``|S|, |S'| ≤ c_eff``; the truncation reads only
``e``, so no other edge's set changes). Write ``R = S − S'`` (removed), ``A = S' − S`` (added)
and ``n_a ≤ nb_e`` for the number of ``e``'s neighbours carrying ``a`` (unchanged). ``A1`` counts
each adjacent pair of edges sharing a property twice, so

* ``ΔA1 = 2·(Σ_{a ∈ A} n_a − Σ_{a ∈ R} n_a)``: additions and removals move ``A1`` with opposite
  signs, so ``|ΔA1| ≤ 2·max(|A|, |R|)·nb_e``;
* ``ΔB1 = (|A| − |R|)·nb_e``, so ``|ΔB1| ≤ max(|A|, |R|)·nb_e``;

and ``|ΔA1| + |ΔB1| ≤ 3·max(|A|, |R|)·nb_e ≤ 3·c_eff·nbmax``. Attained: ``e`` goes from no
property to ``c_eff`` properties that all of its ``nbmax`` neighbours carry (and contribute), the
brute-force test finds exactly this worst case. So the fit is ``ε_fit``-DP for changing the labels
of one edge (structure public). This is the plain edge-level notion: against an attacker who
knows the correlations, group privacy over a closed neighbourhood of ``N`` edges gives
``N·ε_fit``.

**Conservative W.** With Laplace scale ``b``, each noisy statistic is within
``t = b·ln(2/β)`` of the truth except with probability ``β/2``. Interval arithmetic turns the two
intervals into boxes for ``p0`` and ``p1``, and :class:`~.models.BinomialModel` bounds the
quantile gaps over the whole box (binomial quantiles are monotone in ``p``). Hence, with
probability at least ``1 − β`` over the fit's noise, the DP model's ``W`` (and flip bound) is at
least that of the exact Binomial fit of the same truncated labelling.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import opendp.prelude as dp
import scipy.sparse as sp

from ..core._bias import state_bias
from ..core._checks import not_a_graph, open_probability, positive_integer, property_names
from ..core.domains import graph_domain
from ..core.graph import Graph
from ..core.metrics import edge_label_distance, integer_d_in
from ..measurements._context import privacy_budget
from ..transformations.labels import selected_labels

__all__ = ["binomial_parameters_dp", "binomial_statistics", "make_binomial_statistics"]


def _truncated(graph: Graph, c: int, vocabulary: tuple[str, ...]) -> sp.csr_array:
    rows, ranks = selected_labels(graph, c, vocabulary)
    return sp.csr_array((np.ones(rows.size, dtype=np.int64), (rows, ranks)), shape=(graph.num_edges, len(vocabulary)))


def binomial_statistics(graph: Graph, max_labels_per_edge: int, vocabulary: tuple[str, ...]) -> tuple[int, int]:
    """Exact ``(A1, B1)`` of the truncated labelling (non-private)."""
    L = _truncated(graph, max_labels_per_edge, vocabulary)
    deg = graph.degrees
    nb = (deg[graph.src] + deg[graph.dst] - 2).astype(np.int64)
    if graph.num_edges == 0 or L.nnz == 0:
        return 0, 0
    inc = graph.edge_adjacency()
    C = sp.csr_array(inc.T @ L)  # node x property counts
    coo = L.tocoo()
    e, a = coo.row.astype(np.int64), coo.col.astype(np.int64)
    Cd = C.tocsr()
    g = np.asarray(Cd[graph.src[e], a]).ravel() + np.asarray(Cd[graph.dst[e], a]).ravel()
    return int((g - 2).sum()), int(nb[e].sum())


def _check_vocabulary(vocabulary: Any) -> tuple[str, ...]:
    vocab = property_names(vocabulary)
    if not vocab:
        raise ValueError("vocabulary must be a non-empty sequence of distinct strings")
    return vocab


def make_binomial_statistics(structure: Graph, max_labels_per_edge: int, vocabulary: Any) -> dp.Transformation:
    """``graph ↦ (A1, B1)`` as floats, from ``(graph_domain(labeled=True), edge_label_distance())``
    to a float vector with ``l1_distance``; stability ``3·min(c, P)·nbmax·d_in`` (module
    docstring: proof and the worst case). Defined for graphs with the public structure of
    ``structure`` (others are rejected with an error that depends only on the structure)."""
    dp.assert_features("contrib", "honest-but-curious")
    if not isinstance(structure, Graph):
        raise TypeError(not_a_graph(structure))
    c = positive_integer("max_labels_per_edge", max_labels_per_edge)
    vocab = _check_vocabulary(vocabulary)
    keys = structure.edge_keys.copy()
    n = structure.num_nodes
    deg = structure.degrees
    nbmax = int((deg[structure.src] + deg[structure.dst] - 2).max(initial=0))
    sensitivity = 3 * min(c, len(vocab)) * nbmax

    def function(g: Graph) -> list[float]:
        if not isinstance(g, Graph) or not g.is_labeled:
            raise ValueError("expected a labeled Graph")
        if g.num_nodes != n or not np.array_equal(g.edge_keys, keys):
            raise ValueError("the DP Binomial fit is defined for the public structure it was built for")
        a1, b1 = binomial_statistics(g, c, vocab)
        return [float(a1), float(b1)]

    statistics = dp.t.make_user_transformation(
        graph_domain(labeled=True),
        edge_label_distance(),
        dp.vector_domain(dp.atom_domain(T=float, nan=False), size=2),
        dp.l1_distance(T=float),
        function,
        lambda d_in: float(sensitivity * integer_d_in(d_in)),
    )
    # the statistics of the labelling truncated to c properties per edge: the model describes it
    return state_bias(
        statistics,
        None
        if c >= len(vocab)
        else (
            f"the properties beyond the first {c} per edge (in the vocabulary's order) that the cap c = {c} drops: the "
            "statistics (A1, B1) are the truncated labelling's, which the fitted model describes"
        ),
    )


def binomial_parameters_dp(
    graph: Graph,
    privacy_loss: tuple[Any, Any],
    *,
    vocabulary: Any,
    max_labels_per_edge: int,
    beta: float = 0.05,
) -> tuple[tuple[float, float], tuple[float, float], Any, dict[str, Any]]:
    """The Binomial model's parameters fitted under ``epsilon``-DP (edge-label distance, one
    edge's labels): ``(p0_range, p1_range, neighbour_counts, options)``, the arguments of
    :class:`~.models.BinomialModel` (``options`` its keyword arguments). Use
    :meth:`BinomialModel.fit_dp <.models.BinomialModel.fit_dp>` (or ``fit_binomial_dp``), which
    builds the model from them; this module's docstring proves the privacy of the fit and the
    conservative ``W``.

    :param graph: the private labelled graph (its structure is public).
    :param privacy_loss: the fit's own budget, ``dp.loss_of(epsilon=ε)`` (added to whatever the
        release spends).
    :param vocabulary: the public properties the model (and the release) are about.
    :param max_labels_per_edge: ``c``, as in the release; the model describes the truncated labelling.
    :param beta: failure probability of the conservative bound.
    """
    dp.assert_features("contrib", "honest-but-curious")
    if not isinstance(graph, Graph):
        raise TypeError(not_a_graph(graph))
    if not graph.is_labeled:
        raise TypeError("graph must be a labeled opendp_graph.Graph")
    epsilon = privacy_budget(privacy_loss, ("epsilon",), "fit_dp")["epsilon"]
    open_probability("beta", beta)
    vocab = _check_vocabulary(vocabulary)
    stats_t = make_binomial_statistics(graph, max_labels_per_edge, vocab)
    sensitivity = stats_t.map(1)
    scale = 0.0
    if sensitivity > 0:
        # OpenDP's search for the smallest scale its own (rounded-up) map puts within ε (red team:
        # sensitivity / ε mapped ε = 0.3 to 0.30000000000000004)
        # searched around sensitivity / ε, where the map's rounding is, so any finite scale can be found
        low = sensitivity / float(epsilon)
        try:
            scale = dp.binary_search_param(
                lambda s: stats_t >> dp.m.then_laplace(scale=s), d_in=1, d_out=epsilon, bounds=(low * (1 - 1e-12), low * (1 + 1e-12)), T=float
            )
        except Exception as error:  # no finite scale reaches so small a budget
            raise ValueError(f"no noise scale reaches ε = {epsilon!r} for the fit: raise ε") from error
    meas = stats_t >> dp.m.then_laplace(scale=scale)
    a_noisy, b_noisy = meas(graph)
    tail = scale * math.log(2.0 / beta) * (1 + 1e-9) + 1e-9
    deg = graph.degrees
    nb = (deg[graph.src] + deg[graph.dst] - 2).astype(np.int64)
    total = len(vocab) * int(nb.sum())
    a_lo, a_hi = max(a_noisy - tail, 0.0), min(a_noisy + tail, float(total))
    b_lo, b_hi = max(b_noisy - tail, 0.0), min(b_noisy + tail, float(total))
    a_hi = min(a_hi, b_hi)

    def ratio(num_lo, num_hi, den_lo, den_hi):
        lo = 0.0 if den_hi <= 0 else max(0.0, num_lo) / den_hi
        hi = 1.0 if den_lo <= 0 else min(1.0, max(0.0, num_hi) / den_lo)
        return min(lo, 1.0), max(hi, min(lo, 1.0))

    p1 = ratio(a_lo, a_hi, b_lo, b_hi)
    p0 = ratio(b_lo - a_hi, b_hi - a_lo, total - b_hi, total - b_lo)
    options = {
        "fitted_on": (
            f"the private graph under {epsilon:g}-DP (edge-label distance: one edge's labels, truncated to "
            f"c={int(max_labels_per_edge)}); W bounds the exact fit's W with probability >= {1 - beta:g}"
        ),
        "data_dependent": False,
        "provenance": "dp",
        "fit_details": {
            "epsilon": float(epsilon),
            "beta": float(beta),
            "scale": scale,
            "tail": tail,
            "noisy_a1": a_noisy,
            "noisy_b1": b_noisy,
            "measurement": meas,
            "sensitivity": sensitivity,
        },
    }
    return p0, p1, nb if nb.size else [0], options
