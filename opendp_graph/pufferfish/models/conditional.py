"""The Conditional model (paper 001 §4.3.1, Table 1): the law of ``f`` per (property frequency,
neighbourhood size) bucket, the best-informed attacker; it describes only the properties it was
fitted on (its vocabulary). What its attackers believe, what it covers and what ``source=``
asserts: :doc:`/guarantees`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.graph import Graph
from .._stats import NeighbourhoodStats, log_bucket
from . import base as _base
from ._empirical import _bucket_delta, _bucket_gaps, _EmpiricalModel
from ._validators import (
    check_base,
    check_choice,
    check_graph,
    check_source,
    check_structure,
    count_array,
    sorted_vocabulary,
)
from .base import WassersteinReport, _delta_columns, _histogram_cdf, _Hull, flip_bound, frozen_model

__all__ = ["ConditionalModel"]


@frozen_model
class ConditionalModel(_EmpiricalModel):
    """The Conditional model (paper 001 §4.3.1, Table 1): the empirical law of ``f`` given the
    secret, the neighbourhood size and the property's frequency, both bucketed on a log scale
    (``floor(log_base(·))``; the size is ``|N[i]| = nb + 1 ≥ 1`` so that isolated edges have a
    bucket; the frequency is the number of edges carrying the property in the fitting graph).

    Exact: every one of the ``E × P`` secrets is counted (the paper samples up to 100 edges per
    bucket). ``W`` is the largest ``W∞`` over the buckets that hold secrets; a bucket where one
    side was never observed gets the trivial bound (the bucket's largest neighbourhood), or is
    ignored with ``unobserved="ignore"`` (:meth:`fit`).

    **Vocabulary.** The attacker knows each property's frequency bucket *from the fit*, so the
    model describes exactly the properties it was fitted on, :attr:`vocabulary` (the fitting
    graph's ``vocabulary``, sorted; part of the fingerprint). Each of them lies in a frequency
    bucket that holds its secrets for every size bucket of the fitting graph, so ``W`` covers it
    on every structure the model :meth:`covers`. A property outside the vocabulary has no bucket
    and no law: the model says nothing about it, and under :func:`~.metric.pufferfish_distance`
    the label queries do not read it (``label_counts`` refuses a vocabulary with such a property;
    ``label_count_map(vocabulary=None)`` counts only the model's properties). By the model's
    locality assumption the secrets of the other properties then cost nothing: flipping them
    leaves the law of everything the query reads unchanged (ε = 0).

    ``ConditionalModel(hist0, hist1, max_size, base, pairs=..., vocabulary=..., fitted_on=...,
    data_dependent=...)``: ``hist0``/``hist1`` of shape ``(frequency buckets, size buckets, K + 1)``,
    ``max_size`` the largest closed neighbourhood per size bucket, ``pairs`` the number of secrets
    per (frequency, size) bucket — the outer product of properties per frequency bucket and
    edges per size bucket, consistent with ``len(vocabulary)`` and with the histograms (checked).
    """

    name = "Conditional"
    attacker = (
        "knows the public structure, each property's frequency (to a power of the base) and, "
        "per neighbourhood-size bucket, how neighbourhoods share properties: the best-informed attacker"
    )

    _UNOBSERVED = ("bound", "ignore")
    _HIST_AXES = 3

    pairs: np.ndarray
    """The number of secrets per (frequency, size) bucket."""
    unobserved: str
    """What a bucket with an unobserved side gets: ``"bound"`` or ``"ignore"`` (:meth:`fit`)."""

    def __init__(
        self,
        hist0: Any,
        hist1: Any,
        max_size: Any,
        base: float,
        *,
        pairs: Any,
        vocabulary: Any,
        fitted_on: str,
        data_dependent: bool,
        unobserved: str = "bound",
    ) -> None:
        super().__init__(hist0, hist1, max_size, base, fitted_on=fitted_on, data_dependent=data_dependent)
        if self.hist0.shape != self.hist1.shape:
            raise ValueError(f"hist0 and hist1 must have the same shape, got {self.hist0.shape} and {self.hist1.shape}")
        pairs = count_array(pairs, "pairs", 2)
        if pairs.shape != self.hist0.shape[:2]:
            raise ValueError(f"pairs must have shape {self.hist0.shape[:2]} (frequency buckets, size buckets), got {pairs.shape}")
        if not np.array_equal(pairs, self.hist0.sum(axis=2) + self.hist1.sum(axis=2)):
            raise ValueError("pairs must count the secrets of each bucket: hist0 and hist1 summed over f")
        self._init(pairs=pairs, vocabulary=sorted_vocabulary(vocabulary))
        self._check_pairs_against_vocabulary()
        filled = np.flatnonzero(self.max_size)
        if (log_bucket(self.max_size[filled], self.base) != filled).any():
            raise ValueError("max_size[b] must be 0 or a neighbourhood size in log bucket b (floor(log_base(size)) == b)")
        self._init(unobserved=self._check_unobserved(unobserved))

    def _check_max_size(self, max_size: Any) -> np.ndarray:
        return count_array(max_size, "max_size", 1)

    def _check_pairs_against_vocabulary(self) -> None:
        """``pairs[fb, sb]`` = (properties in ``fb``) × (edges in ``sb``), with ``len(vocabulary)``
        properties in all: otherwise some property of the vocabulary would have no bucket."""
        assert self.vocabulary is not None  # a ConditionalModel's vocabulary is a tuple (__init__: sorted_vocabulary)
        P = len(self.vocabulary)
        problem = f"pairs is not (properties per frequency bucket) × (edges per size bucket) for {P} properties"
        if P == 0 or not self.pairs.any():
            if self.pairs.any():
                raise ValueError(problem)
            return
        per_size = self.pairs.sum(axis=0)
        if (per_size % P).any():
            raise ValueError(problem)
        edges = per_size // P
        per_freq = self.pairs.sum(axis=1)
        E = int(edges.sum())
        if (per_freq % E).any():
            raise ValueError(problem)
        props = per_freq // E
        if int(props.sum()) != P or not np.array_equal(np.outer(props, edges), self.pairs):
            raise ValueError(problem)

    @classmethod
    def _check_unobserved(cls, unobserved: str) -> str:
        return check_choice(unobserved, "unobserved", cls._UNOBSERVED)

    @classmethod
    def fit(cls, graph: Graph, *, base: float = 10.0, source: str = "private", unobserved: str = "bound", progress: Any = None) -> ConditionalModel:
        """Exact per-bucket histograms (see :mod:`._stats`); ``base`` of the log buckets. The
        model's :attr:`vocabulary` is ``graph.vocabulary``.

        ``unobserved`` says what a bucket whose ``s⁰`` or ``s¹`` side was never observed gets:
        ``"bound"`` (default) the trivial bound (the bucket's largest neighbourhood), or
        ``"ignore"``: no constraint — the fitted attacker gives the unobserved secret zero prior
        probability, and Pufferfish privacy only constrains pairs of secrets that both have
        positive probability (Definition 2.3). ``"ignore"`` is thus exactly as strong as the
        model's belief that such secrets cannot occur.

        ``source`` (keyword-only; :doc:`/guarantees`, *Source*) states where ``graph`` comes from.
        ``"private"`` (the default): it is the graph whose labels will be released, or derived from
        it; the model has ``data_dependent = True`` and :meth:`~CorrelationModel.summary` warns
        that a release is ε-Pufferfish only for this fitted model's attackers and that ``W`` (and
        the vocabulary: which properties occur) is disclosed unprotected. ``"public"``: **your
        assertion**, not checked, that ``graph`` is public or independent of the private data to be
        released (an earlier public snapshot, an auxiliary or synthetic graph); the model has
        ``data_dependent = False``, ``fitted_on`` and ``summary()`` say "asserted public by the
        caller". If the assertion is false the model is a function of the private data and the
        guarantee is exactly that of a ``"private"`` fit — ε-Pufferfish for this fitted model's
        attackers only, ``W`` (and the vocabulary: which properties occur) disclosed unprotected,
        no DP guarantee for the choice of model — only without the warning. Any other value:
        ``ValueError``.

        ``progress``: see :mod:`opendp_graph.core._progress`.
        """
        g = check_graph(graph)
        base = check_base(base)
        fitted_on, dependent = check_source(source)
        cls._check_unobserved(unobserved)  # before the expensive pass
        st = _base._neighbourhood_stats(g, base=base, progress=progress)
        assert g.vocabulary is not None  # check_graph: the graph is labeled
        return cls._from_stats(st, fitted_on, dependent, g.vocabulary, unobserved)

    @classmethod
    def _from_stats(
        cls, st: NeighbourhoodStats, fitted_on: str, dependent: bool, vocabulary: tuple[str, ...], unobserved: str = "bound"
    ) -> ConditionalModel:
        return cls(
            st.hist0,
            st.hist1,
            st.max_size_by_bucket,
            st.base,
            pairs=st.pairs_by_bucket,
            vocabulary=vocabulary,
            fitted_on=fitted_on,
            data_dependent=dependent,
            unobserved=unobserved,
        )

    def _content(self) -> list[Any]:
        return super()._content() + [self.pairs, self.unobserved, self.vocabulary]

    def covers(self, graph: Graph) -> bool:
        """True iff every edge falls in a size bucket the model was fitted on, no larger than
        that bucket's largest neighbourhood. This is about the structure only; the properties are
        a separate matter — the model describes those of :attr:`vocabulary`, and the metric lets
        the queries read no other (class docstring)."""
        sizes = self._closed_sizes(check_structure(graph))
        if sizes.size == 0:
            return True
        buckets = log_bucket(sizes, self.base)
        if buckets.max() >= self.max_size.size:
            return False
        return bool((sizes <= self.max_size[buckets]).all())

    def _report(self) -> WassersteinReport:
        rows, cdfs = [], {}
        n_max = int(self.max_size.max(initial=0))
        d_min_all, d_max_all = None, None
        for fb in range(self.hist0.shape[0]):
            for sb in range(self.hist0.shape[1]):
                if self.pairs[fb, sb] == 0:
                    continue
                h0, h1 = self.hist0[fb, sb], self.hist1[fb, sb]
                max_n = int(self.max_size[sb])
                gaps, observed = _bucket_gaps(h0, h1, max_n)
                row = {
                    "log_freq": fb,
                    "log_size": sb,
                    "secrets_s0": int(h0.sum()),
                    "secrets_s1": int(h1.sum()),
                    "max_neighbourhood": max_n,
                }
                if not observed and self.unobserved == "ignore":
                    rows.append(row | dict.fromkeys(("d_min", "d_max", "W_inf", "W_inf_fraction", "paper_style_W")) | {"observed": False})
                    continue
                w = gaps.w_infinity
                cap = min(n_max, int(round(self.base ** (sb + 1)))) if n_max else 0
                rows.append(
                    row
                    | {
                        "d_min": gaps.d_min,
                        "d_max": gaps.d_max,
                        "W_inf": w,
                        "W_inf_fraction": w / max_n if max_n else 0.0,
                        "paper_style_W": (w / max_n if max_n else 0.0) * cap,
                        "observed": observed,
                    }
                )
                d_min_all = gaps.d_min if d_min_all is None else min(d_min_all, gaps.d_min)
                d_max_all = gaps.d_max if d_max_all is None else max(d_max_all, gaps.d_max)
                cdfs[f"log_freq={fb}, log_size={sb}"] = (np.arange(h0.size), _histogram_cdf(h0), _histogram_cdf(h1))
        if d_min_all is None:
            d_min_all = d_max_all = 1
        assert d_max_all is not None  # set with d_min_all
        W = max(d_max_all, -d_min_all)
        return WassersteinReport(W, d_min_all, d_max_all, flip_bound(d_min_all, d_max_all), rows, cdfs)

    def _report_delta(self, delta: float) -> WassersteinReport:
        """Every bucket at δ, exactly (:func:`_bucket_delta`); each secret lies in one bucket and
        gets that bucket's coupling and its own δ. Buckets ignored at δ = 0 (``unobserved=
        "ignore"``) stay ignored."""
        base = self.wasserstein()
        rows, hull = [], _Hull()
        base_rows = iter(base.table)
        for fb in range(self.hist0.shape[0]):
            for sb in range(self.hist0.shape[1]):
                if self.pairs[fb, sb] == 0:
                    continue
                row = next(base_rows)
                b, observed = _bucket_delta(self.hist0[fb, sb], self.hist1[fb, sb], int(self.max_size[sb]), delta)
                if not observed and self.unobserved == "ignore":
                    rows.append({**row, **_delta_columns(None)})
                    continue
                rows.append({**row, **_delta_columns(b)})
                hull.add(b)
        return hull.report(rows, dict(base.cdfs), delta)

    def _repr_fields(self) -> str:
        assert self.vocabulary is not None  # a ConditionalModel's vocabulary is a tuple (__init__: sorted_vocabulary)
        return f"base={self.base:g}, buckets={tuple(self.hist0.shape[:2])}, properties={len(self.vocabulary)}, unobserved={self.unobserved!r}"
