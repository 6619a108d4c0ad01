"""The Binomial model (paper 001 §4.3.3): the least informed attacker.

Its ``W`` is computed exactly in the binomial tails (:func:`.wasserstein.binomial_gap_range`),
its δ-relaxation conservatively (:func:`.coupling.binomial_delta_bounds`); a DP fit
(:meth:`BinomialModel.fit_dp`, :mod:`.dp_fit`) bounds both over a box of parameters. What the
model's attackers believe, and what ``source=`` asserts: :doc:`/guarantees`.
"""

from __future__ import annotations

import math
import types
from collections.abc import Mapping
from typing import Any

import numpy as np
from scipy import stats

from ...core._progress import check_progress, resolve_progress
from ...core.graph import Graph
from .._stats import NeighbourhoodStats
from ..coupling import binomial_delta_bounds
from ..dp_fit import binomial_parameters_dp
from ..wasserstein import binomial_gap_range
from . import base as _base
from ._validators import (
    check_flag,
    check_graph,
    check_source,
    check_structure,
    check_text,
    count_array,
    documents_source,
    probability_interval,
)
from .base import CorrelationModel, WassersteinReport, _delta_columns, _Hull, flip_bound, frozen_model

__all__ = ["BinomialModel", "fit_binomial_dp"]


@frozen_model
class BinomialModel(CorrelationModel):
    """The Binomial model (paper 001 §4.3.3): the least informed attacker.

    ``p0 = Pr(an adjacent edge carries a | the edge lacks a)``, ``p1 = Pr(… | the edge carries a)``,
    pooled over every (edge, property, adjacent edge) triple; given the secret, each of the
    ``nb`` adjacent edges carries ``a`` independently: ``f | s⁰ ~ Binomial(nb, p0)`` and
    ``f | s¹ ~ 1 + Binomial(nb, p1)`` (central edge counted). ``W`` is the largest ``W∞`` over
    the neighbourhood sizes ``nb`` that occur in ``neighbour_counts``.

    Binomial laws have full support, so ``W∞`` — a supremum over *all* quantile levels — is
    decided by tails far below anything a plot shows (probabilities like ``e^(−1000)``); it is
    computed exactly there anyway (:func:`.wasserstein.binomial_gap_range`, log space). This is
    why the Binomial W exceeds what the CDF plots suggest.

    With a DP fit (:meth:`fit_dp`) ``p0`` and ``p1`` are known only to lie in intervals; the
    quantile gaps are then bounded over the whole box, by monotonicity of binomial quantiles in
    ``p`` (``1 + Q_{p1}(t) − Q_{p0}(t)`` grows with ``p1`` and shrinks with ``p0`` for every ``t``).
    """

    name = "Binomial"
    attacker = (
        "knows the public structure and two numbers: how likely an adjacent edge is to carry a "
        "property given that the central edge does (p1) or does not (p0)"
    )

    p0_range: tuple[float, float]
    """``p0``, or the interval a DP fit bounds it to (``(p0, p0)`` for an exact value)."""
    p1_range: tuple[float, float]
    """``p1``, or the interval a DP fit bounds it to (``(p1, p1)`` for an exact value)."""
    neighbour_counts: np.ndarray
    """The neighbourhood sizes ``nb`` (adjacent edges) the model has a law for: sorted, distinct, read-only."""
    fit_details: Mapping[str, Any]
    """What the fit computed (the pooled sums; for a DP fit its ε, β and measurement), read-only."""
    provenance: str
    _progress: Any

    def __init__(
        self,
        p0: float | tuple[float, float],
        p1: float | tuple[float, float],
        neighbour_counts: Any,
        *,
        fitted_on: str = "parameters supplied by the caller",
        data_dependent: bool = False,
        fit_details: dict[str, Any] | None = None,
        provenance: str = "caller",
        progress: Any = None,
    ) -> None:
        check_progress(progress)
        provenance = check_text(provenance, "provenance")
        p0_range = probability_interval(p0, "p0")
        p1_range = probability_interval(p1, "p1")
        if isinstance(neighbour_counts, (str, bytes)) or np.isscalar(neighbour_counts):
            raise TypeError("neighbour_counts must be a collection of non-negative integers (e.g. range(20))")
        if isinstance(neighbour_counts, range):
            neighbour_counts = list(neighbour_counts)
        nbs = np.unique(count_array(neighbour_counts, "neighbour_counts", 1))
        if nbs.size == 0:
            raise ValueError("neighbour_counts must be a non-empty collection of non-negative integers")
        fitted_on = check_text(fitted_on, "fitted_on")
        data_dependent = check_flag(data_dependent, "data_dependent")
        if fit_details is not None and not isinstance(fit_details, Mapping):
            raise TypeError(f"fit_details must be a mapping or None, got {type(fit_details).__name__}")
        self._init(
            _progress=progress,  # how computing W reports (it can take seconds at millions of edges)
            provenance=provenance,
            p0_range=p0_range,
            p1_range=p1_range,
            neighbour_counts=nbs,
            fitted_on=fitted_on,
            data_dependent=data_dependent,
            fit_details=types.MappingProxyType(dict(fit_details or {})),
        )

    @property
    def p0(self) -> float:
        return self.p0_range[0] if self.p0_range[0] == self.p0_range[1] else float(np.mean(self.p0_range))

    @property
    def p1(self) -> float:
        return self.p1_range[0] if self.p1_range[0] == self.p1_range[1] else float(np.mean(self.p1_range))

    @classmethod
    @documents_source
    def fit(cls, graph: Graph, *, source: str = "private", progress: Any = None) -> BinomialModel:
        """Estimate ``p0, p1`` exactly from every (edge, property) pair of ``graph``.

        ``p1 = Σ_{e∋a} (#neighbours of e with a) / Σ_{e∋a} nb_e`` and
        ``p0 = Σ_{e∌a} (#neighbours with a) / Σ_{e∌a} nb_e`` (sums over all properties of the
        vocabulary).

        {source}

        ``progress`` (fit and, later, ``W``): see :mod:`opendp_graph.core._progress`.
        """
        g = check_graph(graph)
        fitted_on, dependent = check_source(source)
        st = _base._neighbourhood_stats(g, progress=progress)  # checks progress before any work
        return cls._from_stats(st, fitted_on, dependent, progress)

    @classmethod
    def _from_stats(cls, st: NeighbourhoodStats, fitted_on: str, dependent: bool, progress: Any = None) -> BinomialModel:
        P = st.num_properties
        den1 = st.b1
        den0 = P * st.nb_total - st.b1
        p1 = st.a1 / den1 if den1 else 0.0
        p0 = (st.b1 - st.a1) / den0 if den0 else 0.0
        return cls(
            p0,
            p1,
            st.nb if st.nb.size else [0],
            provenance="public",
            fitted_on=fitted_on,
            data_dependent=dependent,
            fit_details={"a1": st.a1, "b1": st.b1, "nb_total": st.nb_total, "num_properties": P},
            progress=progress,
        )

    @classmethod
    def fit_dp(
        cls,
        graph: Graph,
        privacy_loss: tuple[Any, Any],
        *,
        vocabulary: Any,
        max_labels_per_edge: int,
        beta: float = 0.05,
    ) -> BinomialModel:
        """Fit the Binomial model under ``ε``-DP (edge-label distance, one edge's labels);
        the proof of the fit's privacy and of its conservative ``W`` is in :mod:`..dp_fit`.

        :param graph: the private labelled graph (its structure is public).
        :param privacy_loss: the fit's own budget, ``dp.loss_of(epsilon=ε)`` (added to whatever the
            release spends).
        :param vocabulary: the public properties the model (and the release) are about.
        :param max_labels_per_edge: ``c``, as in the release; the model describes the truncated labelling.
        :param beta: failure probability of the conservative bound.
        :returns: a :class:`BinomialModel` with interval parameters; ``fit_details`` holds the
            measurement, the noisy statistics, the scale and the tail bound.
        """
        p0, p1, neighbour_counts, options = binomial_parameters_dp(
            graph, privacy_loss, vocabulary=vocabulary, max_labels_per_edge=max_labels_per_edge, beta=beta
        )
        return cls(p0, p1, neighbour_counts, **options)

    @classmethod
    def from_public(cls, snapshot: Graph, structure: Graph) -> BinomialModel:
        """The Binomial model that reads nothing private: ``p0, p1`` fitted on a **public**
        labelled ``snapshot`` (an earlier period, a published corpus) and a law for every
        neighbourhood size of the **public structure** of the graph to be released (its labels
        are not read).

        **What it assumes**: that the snapshot's correlation between adjacent edges' properties
        (``p0``, ``p1``) describes the attackers of the released period; the guarantee is then
        for those attackers, and the model discloses nothing about the released labels
        (``data_dependent`` is ``False``). A snapshot fitted on the released period itself would
        make ``W`` a function of the private data: use :meth:`fit` for that, which says so, or
        :meth:`fit_dp`.

        :param snapshot: the public labelled graph the parameters are fitted on.
        :param structure: the graph to be released (only its structure, which the Pufferfish
            metric treats as public, is read).

        :example:

        >>> import opendp_graph as dpg
        >>> snapshot = dpg.Graph.from_edges([0, 1, 2], [1, 2, 3], labels=[["gas"], ["gas"], ["lunch"]])
        >>> released = dpg.Graph.from_edges([0, 0, 1], [1, 2, 2], labels=[["x"], ["y"], ["z"]])
        >>> model = dpg.pufferfish.BinomialModel.from_public(snapshot, released)
        >>> model.neighbour_counts.tolist(), model.covers(released), model.data_dependent
        ([2], True, False)
        """
        public = cls.fit(snapshot, source="public")
        graph = check_structure(structure)
        sizes = np.unique(cls._closed_sizes(graph) - 1) if graph.num_edges else np.array([0])
        return cls(
            public.p0,
            public.p1,
            sizes,
            fitted_on="p0, p1 of a public snapshot; neighbourhood sizes of the public structure",
            data_dependent=False,
            fit_details=dict(public.fit_details),
            provenance="public",
        )

    def covers(self, graph: Graph) -> bool:
        """True iff every edge's number of adjacent edges is in ``neighbour_counts``: the law of
        ``f`` depends on that number, and ``W`` was computed for those sizes only."""
        return bool(np.isin(self._closed_sizes(check_structure(graph)) - 1, self.neighbour_counts).all())

    def _report(self) -> WassersteinReport:
        (p0lo, p0hi), (p1lo, p1hi) = self.p0_range, self.p1_range
        rows, cdfs = [], {}
        d_min_all, d_max_all = None, None
        # Largest neighbourhoods first; sizes whose gaps cannot leave the running extremes
        # [d_min_all, d_max_all] are skipped (the result stays exact). A size n can only give
        # gaps in [low(n), n + 1]: low(n) is 1 − n in general, and 1 when p0 ≤ p1 (then
        # Binomial(n, p1) dominates Binomial(n, p0) stochastically, so every quantile gap
        # 1 + Q1 − Q0 is at least 1). And from a computed size n > n', with m = n − n':
        # X_n = X_n' + Binomial(m, p0) lies in [X_n', X_n' + m] (Y likewise), so for every level
        # Q_Xn' >= Q_Xn − m and Q_Yn' <= Q_Yn, hence d_max(n') <= d_max(n) + m, and
        # symmetrically d_min(n') >= d_min(n) − m. The computed ranges contain the exact ones,
        # so the bounds hold for the exact gaps of n'.
        dominated = 0.0 < p0hi <= p1lo < 1.0
        report = resolve_progress(self._progress, label="Binomial W")
        report.start(int(self.neighbour_counts.sum()) + self.neighbour_counts.size)  # work ~ Σ (n + 1)
        up_from_larger, down_from_larger = math.inf, -math.inf  # min of d_max(n) + n, max of d_min(n) − n
        for n in sorted(self.neighbour_counts.tolist(), reverse=True):
            report.advance(n + 1)
            low = 1 if dominated else 1 - n
            high = min(n + 1, up_from_larger - n)
            low = max(low, down_from_larger + n)
            if d_max_all is not None and high <= d_max_all and low >= d_min_all:
                rows.append({"neighbours": n, "neighbourhood": n + 1, "d_min": None, "d_max": None, "W_inf": None, "skipped": True})
                continue
            hi = binomial_gap_range(n, p0lo, p1hi)
            lo = hi if (p0lo, p1hi) == (p0hi, p1lo) else binomial_gap_range(n, p0hi, p1lo)
            d_min, d_max = lo.d_min, hi.d_max
            rows.append({"neighbours": n, "neighbourhood": n + 1, "d_min": d_min, "d_max": d_max, "W_inf": max(d_max, -d_min), "skipped": False})
            d_min_all = d_min if d_min_all is None else min(d_min_all, d_min)
            d_max_all = d_max if d_max_all is None else max(d_max_all, d_max)
            up_from_larger = min(up_from_larger, d_max + n)
            down_from_larger = max(down_from_larger, d_min - n)
        report.finish()
        rows.reverse()
        n = int(self.neighbour_counts.max())
        values = np.arange(n + 2)
        cdf0 = np.append(stats.binom.cdf(np.arange(n + 1), n, self.p0), 1.0)
        cdf1 = np.concatenate([[0.0], stats.binom.cdf(np.arange(n + 1), n, self.p1)])
        cdfs[f"nb={n}"] = (values, cdf0, cdf1)
        assert d_min_all is not None and d_max_all is not None  # neighbour_counts is not empty, and its largest size is never skipped
        W = max(d_max_all, -d_min_all)
        return WassersteinReport(W, d_min_all, d_max_all, flip_bound(d_min_all, d_max_all), rows, cdfs)

    def _report_delta(self, delta: float) -> WassersteinReport:
        """Every neighbourhood size ``n`` by :func:`.coupling.binomial_delta_bounds`: a
        conservative computation (exact rational bounds of the binomial masses, never a float
        rounding in the direction of privacy), so every ``W_δ``/``F_δ`` is at least the true one
        and every window is certified; for a DP fit (``p`` intervals) the bound holds for every
        point of the box (a quantile-coupling bound there, not the exact supremum). No size is
        skipped: each row holds its own values."""
        base = self.wasserstein()
        rows, hull = [], _Hull()
        report = resolve_progress(self._progress, label="Binomial W_delta")
        report.start(int(self.neighbour_counts.sum()) + self.neighbour_counts.size)
        for n in sorted(self.neighbour_counts.tolist(), reverse=True):
            report.advance(n + 1)
            b = binomial_delta_bounds(n, self.p0_range, self.p1_range, delta)
            rows.append(
                {
                    "neighbours": n,
                    "neighbourhood": n + 1,
                    "d_min": b.gaps.d_min,
                    "d_max": b.gaps.d_max,
                    "W_inf": b.w_infinity,
                    "skipped": False,
                    **_delta_columns(b),
                }
            )
            hull.add(b)
        report.finish()
        rows.reverse()
        return hull.report(rows, dict(base.cdfs), delta)

    def _content(self) -> list[Any]:
        return [self.p0_range, self.p1_range, self.neighbour_counts, self.data_dependent, self.provenance]

    def _repr_fields(self) -> str:
        if self.p0_range[0] == self.p0_range[1] and self.p1_range[0] == self.p1_range[1]:
            return f"p0={self.p0:.6g}, p1={self.p1:.6g}, max_neighbours={int(self.neighbour_counts.max())}"
        return f"p0_range={self.p0_range}, p1_range={self.p1_range}, max_neighbours={int(self.neighbour_counts.max())}"


def fit_binomial_dp(
    graph: Graph,
    privacy_loss: tuple[Any, Any],
    *,
    vocabulary: Any,
    max_labels_per_edge: int,
    beta: float = 0.05,
) -> BinomialModel:
    """:meth:`BinomialModel.fit_dp` as a function: the Binomial model fitted under
    ``privacy_loss = dp.loss_of(epsilon=ε)`` with its own budget (proofs in
    :mod:`opendp_graph.pufferfish.dp_fit`)."""
    return BinomialModel.fit_dp(graph, privacy_loss, vocabulary=vocabulary, max_labels_per_edge=max_labels_per_edge, beta=beta)
