"""The Global model (paper 001 §4.3.2): one pooled law of ``f`` given ``s⁰`` and given ``s¹``.
What its attackers believe, what it covers and what ``source=`` asserts: :doc:`/guarantees`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.graph import Graph
from .._stats import NeighbourhoodStats
from . import base as _base
from ._empirical import _bucket_delta, _bucket_gaps, _EmpiricalModel
from ._validators import check_graph, check_source, check_structure, count_array, documents_source
from .base import WassersteinReport, _delta_columns, _histogram_cdf, _Hull, flip_bound, frozen_model

__all__ = ["GlobalModel"]


@frozen_model
class GlobalModel(_EmpiricalModel):
    """The Global model (paper 001 §4.3.2): the empirical law of ``f`` given ``s⁰`` and given
    ``s¹``, pooled over every (edge, property) pair of the fitting graph. ``W = W∞`` between the
    two pooled laws (clipping them to any edge's feasible range can only lower it).

    ``GlobalModel(hist0, hist1, max_size, base, fitted_on=..., data_dependent=...)``: ``hist0[f]``
    / ``hist1[f]`` count the secrets ``s⁰`` / ``s¹`` with statistic ``f``; ``max_size`` is the
    largest closed neighbourhood of the fitting graph (a whole number, or a one-element array).

    **Coverage** (:meth:`covers`): closed neighbourhoods of at most ``max_size`` edges. The
    pooled law was measured over neighbourhoods of those sizes; on a smaller one it is clipped to
    the feasible range (:doc:`/guarantees`). An edge with a larger neighbourhood has feasible values
    of ``f`` outside the law's support — nothing was observed there, not even the trivial bound of
    that size — so the model does not describe its secrets, exactly as the Binomial model has no
    law for a neighbourhood size it was not fitted on.

    **Vocabulary**: none. The attacker applies the one pooled law to every property, including
    properties the fitting graph never carried (that is the model's definition).
    """

    name = "Global"
    attacker = (
        "knows the public structure and the overall distribution of how many edges of a "
        "neighbourhood share a property, given that the central edge has it or not"
    )

    @classmethod
    @documents_source
    def fit(cls, graph: Graph, *, source: str = "private", progress: Any = None) -> GlobalModel:
        """Exact histograms over all ``E × P`` secrets (see :mod:`._stats`).

        {source}

        ``progress``: see :mod:`opendp_graph.core._progress`.
        """
        g = check_graph(graph)
        fitted_on, dependent = check_source(source)
        st = _base._neighbourhood_stats(g, progress=progress)
        return cls._from_stats(st, fitted_on, dependent)

    @classmethod
    def _from_stats(cls, st: NeighbourhoodStats, fitted_on: str, dependent: bool) -> GlobalModel:
        return cls(
            st.hist0.sum(axis=(0, 1)),
            st.hist1.sum(axis=(0, 1)),
            np.array([st.max_neighbourhood]),
            st.base,
            fitted_on=fitted_on,
            data_dependent=dependent,
        )

    def _check_max_size(self, max_size: Any) -> np.ndarray:
        arr = count_array(np.reshape(max_size, -1) if np.ndim(max_size) <= 1 else max_size, "max_size", 1)
        if arr.size != 1:
            raise ValueError(f"max_size of a GlobalModel is one number (the largest closed neighbourhood), got {arr.size}")
        return arr

    def covers(self, graph: Graph) -> bool:
        """True iff no closed neighbourhood of ``graph`` has more than ``max_size`` edges (the
        class docstring says why larger ones are not described)."""
        return bool((self._closed_sizes(check_structure(graph)) <= int(self.max_size[0])).all())

    def _report(self) -> WassersteinReport:
        gaps, observed = _bucket_gaps(self.hist0, self.hist1, int(self.max_size.max()))
        values = np.arange(max(self.hist0.size, self.hist1.size))
        h0 = np.pad(self.hist0, (0, values.size - self.hist0.size))
        h1 = np.pad(self.hist1, (0, values.size - self.hist1.size))
        row = {
            "secrets_s0": int(h0.sum()),
            "secrets_s1": int(h1.sum()),
            "d_min": gaps.d_min,
            "d_max": gaps.d_max,
            "W_inf": gaps.w_infinity,
            "observed": observed,
        }
        return WassersteinReport(
            gaps.w_infinity, gaps.d_min, gaps.d_max, flip_bound(*gaps), [row], {"global": (values, _histogram_cdf(h0), _histogram_cdf(h1))}
        )

    def _report_delta(self, delta: float) -> WassersteinReport:
        """The one pooled pair at δ, exactly (:func:`.coupling.delta_bounds`). Clipping the
        pooled laws to an edge's feasible range maps a coupling to one whose difference lies
        between 1 and the unclipped one (:doc:`/guarantees`), so every window containing 1 —
        ``[2 − F_δ, F_δ]``, and the metric's hull of ``[d_min, d_max]`` with 1 — stays valid
        with the same failure probability."""
        base = self.wasserstein()
        b, _ = _bucket_delta(self.hist0, self.hist1, int(self.max_size.max()), delta)
        hull = _Hull()
        hull.add(b)
        return hull.report([{**base.table[0], **_delta_columns(b)}], dict(base.cdfs), delta)

    def _repr_fields(self) -> str:
        return f"secrets_s0={int(self.hist0.sum())}, secrets_s1={int(self.hist1.sum())}"
