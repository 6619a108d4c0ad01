"""Correlation models for edge properties (paper 001 §4.3) and the W each one implies.

**Setting** (paper 001 §3–4). The graph structure is public; the properties on the edges are
secret. For every edge ``i`` and property ``a`` there is a secret pair ``(s⁰ᵢₐ, s¹ᵢₐ)`` —
"edge ``i`` lacks / carries ``a``". Neighbouring edges (sharing an endpoint) are correlated. The
statistic whose law the models describe is ``f(i, a)``: the number of edges of the *closed*
neighbourhood ``N[i]`` (``i`` and every edge sharing an endpoint with it, ``|N[i]| = deg(u) +
deg(v) − 1``) that carry ``a``, **the central edge included** (so ``f ≥ 1`` under ``s¹``).

**The class of attackers Θ_M of a model M.** An attacker ``θ ∈ Θ_M`` believes, for every secret
pair ``(i, a)``:

1. *Markov / local*: conditioned on the secret, only property ``a`` on ``N[i]`` changes its
   law; every other property, and property ``a`` outside ``N[i]``, has the same law under
   ``s⁰`` and ``s¹`` and is independent of ``a`` on ``N[i]`` (paper §3.2 and §4.3: "the rest
   of the graph is assumed to be constant"; properties are modelled one at a time);
2. *model law*: ``f(i, a)`` given ``sʲ`` has the law ``M`` gives for that pair (clipped to the
   feasible range ``[j, |N[i]| − 1 + j]``);
3. *exchangeable*: given the secret and ``f``, which of the other edges of ``N[i]`` carry ``a``
   is uniform among the subsets of the right size.

Under (1)–(3), coupling the two values of ``f`` by their quantiles and the neighbour sets by a
common random order gives a coupling of the *whole labellings* in which the two sides differ
only in property ``a`` on ``N[i]``: the central edge flips, and ``|d − 1|`` neighbours flip, all
in the same direction, where ``d = f¹ − f⁰`` ranges over the quantile differences
``[d_min, d_max]`` of the model (:func:`.wasserstein.quantile_gap_range`), or — after clipping
a pooled law to an edge's feasible range — between 1 and such a difference. Song, Wang & Chaudhuri's ``W = sup W∞ = max(d_max, −d_min)`` (Theorem 3.2) and
the *flip bound* ``F = 1 + max(|d_max − 1|, |d_min − 1|)`` (the most edges that change) are what
the Pufferfish metric (:mod:`.metric`) turns into stability maps.

**Coverage.** ``W`` is computed over the secrets of the graph the model was fitted on (for the
Binomial model, its neighbourhood sizes; for the Conditional model, its size buckets). The
structure is public, so check :meth:`CorrelationModel.covers` before releasing on another graph.

**Data dependence.** A model fitted on the private graph makes the noise scale a function of
the private data: the release is then ε-Pufferfish *for the attacker class that this very model
defines*, and the value of ``W`` itself is an unprotected function of the data. Every model says
where it came from (``fitted_on``, ``data_dependent``). Use a model fitted on a public or
auxiliary graph (``source="public"``), a baseline that reads only the public structure
(:class:`EdgeLevelModel`, :class:`MarkovQuiltModel`), or :meth:`BinomialModel.fit_dp`, which
spends its own privacy budget and returns a conservative upper bound on the W of the exact fit.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from .._progress import check_progress, resolve_progress
from ..graph import Graph
from ._stats import NeighbourhoodStats, neighbourhood_stats
from .wasserstein import QuantileGaps, binomial_gap_range, quantile_gap_range

__all__ = [
    "CorrelationModel",
    "BinomialModel",
    "GlobalModel",
    "ConditionalModel",
    "EdgeLevelModel",
    "MarkovQuiltModel",
    "WassersteinReport",
    "flip_bound",
    "fit_all",
]

_SOURCES = ("private", "public")


def flip_bound(d_min: int, d_max: int) -> int:
    """Most edges whose property ``a`` differs between the coupled labellings when the quantile
    difference ``d = f¹ − f⁰`` ranges over ``[min(d_min, 1), max(d_max, 1)]``: the central edge
    plus ``|d − 1|`` neighbours, maximised at an end of the range (``|d − 1|`` is convex)."""
    return 1 + max(abs(d_max - 1), abs(d_min - 1))


def _check_source(source: str) -> tuple[str, bool]:
    if source not in _SOURCES:
        raise ValueError(f"source must be 'private' (the graph you will release from) or 'public', got {source!r}")
    if source == "private":
        return "the private graph itself: the noise scale depends on the private data", True
    return "a public or auxiliary graph supplied by the caller", False


def _check_graph(graph: Any) -> Graph:
    if not isinstance(graph, Graph):
        raise TypeError(f"expected an opendp_graph.Graph, got {type(graph).__name__}")
    if not graph.is_labeled:
        raise ValueError("the correlation models need a labeled graph (edge properties)")
    return graph


def _check_base(base: Any) -> float:
    if isinstance(base, bool) or not isinstance(base, (int, float)) or not math.isfinite(base) or base <= 1:
        raise ValueError(f"base must be a finite number > 1, got {base!r}")
    return float(base)


@dataclass(frozen=True)
class WassersteinReport:
    """What :meth:`CorrelationModel.wasserstein` returns.

    ``W`` is Song et al.'s ``sup W∞`` over the model's secret pairs; ``d_min, d_max`` the
    extremes of the quantile difference; ``flip_bound`` the most edges that change under the
    coupling; ``table`` one row (a dict) per bucket / neighbourhood size; ``cdfs`` maps a name
    to ``(values, cdf given s⁰, cdf given s¹)`` for plotting (paper Figures 3–5).
    """

    W: int
    d_min: int
    d_max: int
    flip_bound: int
    table: list[dict[str, Any]] = field(repr=False)
    cdfs: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(repr=False)


class CorrelationModel:
    """Base class: a model ``M`` defines the attacker class ``Θ_M`` (module docstring).

    Subclasses set ``name``, ``fitted_on``, ``data_dependent`` and implement ``_report()``.
    """

    name = "model"
    attacker = ""
    fitted_on: str
    data_dependent: bool

    def wasserstein(self) -> WassersteinReport:
        """``W`` and its diagnostics (per-bucket table, CDFs). Computed once, then cached."""
        cached = self.__dict__.get("_report_cache")
        if cached is None:
            cached = self._report()
            self.__dict__["_report_cache"] = cached
        return cached

    @property
    def W(self) -> int:
        """Song et al.'s ``W = sup W∞`` over the model's secret pairs (Theorem 3.2)."""
        return self.wasserstein().W

    @property
    def gaps(self) -> QuantileGaps:
        r = self.wasserstein()
        return QuantileGaps(r.d_min, r.d_max)

    @property
    def flip_bound(self) -> int:
        return self.wasserstein().flip_bound

    def _content(self) -> list[Any]:  # pragma: no cover - subclasses override
        raise NotImplementedError

    def covers(self, graph: Graph) -> bool:
        """Whether the model describes every secret of ``graph``'s (public) structure, i.e.
        whether ``W`` and the quantile gaps were computed over all of its neighbourhoods. A
        release on a graph the model does not cover is outside ``Θ_M``."""
        return True

    @staticmethod
    def _closed_sizes(graph: Graph) -> np.ndarray:
        deg = graph.degrees
        return (deg[graph.src] + deg[graph.dst] - 1).astype(np.int64)

    def fingerprint(self) -> str:
        """A content hash of everything the model's guarantee depends on (its fitted arrays)."""
        h = hashlib.sha256(type(self).__name__.encode())
        for item in self._content():
            if isinstance(item, np.ndarray):
                h.update(str(item.dtype).encode() + str(item.shape).encode())
                h.update(np.ascontiguousarray(item).tobytes())
            else:
                h.update(repr(item).encode())
        return h.hexdigest()[:24]

    def summary(self) -> str:
        """A plain-language statement of the guarantee a release calibrated to this model gives."""
        r = self.wasserstein()
        lines = [
            f"{type(self).__name__}: W = {r.W} (quantile gaps {r.d_min}..{r.d_max}; at most {r.flip_bound} edges flip)",
            f"  attacker: {self.attacker}",
            f"  fitted on: {self.fitted_on}",
        ]
        if self.data_dependent:
            lines.append(
                "  NOTE: the model was fitted on the private data without protection, "
                "so the noise scale is a function of the private data; the release is ε-Pufferfish only for the "
                "attacker class this fitted model defines, and W itself is disclosed unprotected."
            )
        return "\n".join(lines)

    provenance = "public"  # short form of fitted_on, part of the identifier

    def __repr__(self) -> str:
        origin = "private" if self.data_dependent else self.provenance
        fields = self._repr_fields()
        fields = f"{fields}, " if fields else ""
        return f"{type(self).__name__}({fields}fitted_on={origin!r}, fingerprint={self.fingerprint()!r})"

    def _repr_fields(self) -> str:  # pragma: no cover - subclasses override
        return ""


def _histogram_cdf(h: np.ndarray) -> np.ndarray:
    total = h.sum()
    return np.cumsum(h) / total if total else np.zeros(h.size)


# --------------------------------------------------------------------------- Binomial
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
        self._progress = progress  # how computing W reports (it can take seconds at millions of edges)
        self.provenance = provenance
        self.p0_range = self._interval(p0, "p0")
        self.p1_range = self._interval(p1, "p1")
        nbs = np.unique(np.asarray(neighbour_counts, dtype=np.int64))
        if nbs.size == 0 or nbs.min() < 0:
            raise ValueError("neighbour_counts must be a non-empty collection of non-negative integers")
        self.neighbour_counts = nbs
        self.fitted_on = fitted_on
        self.data_dependent = bool(data_dependent)
        self.fit_details = dict(fit_details or {})

    def __getstate__(self) -> dict[str, Any]:
        # A progress callback is a property of this session, not of the model: pickles (process
        # pools, caches) get the default reporting instead of failing on an unpicklable callable.
        state = dict(self.__dict__)
        if callable(state.get("_progress")):
            state["_progress"] = None
        return state

    @staticmethod
    def _interval(p: Any, name: str) -> tuple[float, float]:
        lo, hi = (p, p) if np.isscalar(p) else tuple(p)
        lo, hi = float(lo), float(hi)
        if not (0.0 <= lo <= hi <= 1.0):
            raise ValueError(f"{name} must be a probability (or an interval lo <= hi in [0, 1]), got {p!r}")
        return lo, hi

    @property
    def p0(self) -> float:
        return self.p0_range[0] if self.p0_range[0] == self.p0_range[1] else float(np.mean(self.p0_range))

    @property
    def p1(self) -> float:
        return self.p1_range[0] if self.p1_range[0] == self.p1_range[1] else float(np.mean(self.p1_range))

    @classmethod
    def fit(cls, graph: Graph, *, source: str = "private", progress: Any = None) -> "BinomialModel":
        """Estimate ``p0, p1`` exactly from every (edge, property) pair of ``graph``.

        ``p1 = Σ_{e∋a} (#neighbours of e with a) / Σ_{e∋a} nb_e`` and
        ``p0 = Σ_{e∌a} (#neighbours with a) / Σ_{e∌a} nb_e`` (sums over all properties of the
        vocabulary). ``source="private"`` (default) marks the model data-dependent.
        ``progress`` (fit and, later, ``W``): see :mod:`opendp_graph._progress`.
        """
        g = _check_graph(graph)
        fitted_on, dependent = _check_source(source)
        st = neighbourhood_stats(g, progress=progress)  # checks progress before any work
        return cls._from_stats(st, fitted_on, dependent, progress)

    @classmethod
    def _from_stats(cls, st: NeighbourhoodStats, fitted_on: str, dependent: bool, progress: Any = None) -> "BinomialModel":
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
        epsilon: float,
        *,
        vocabulary: Any,
        max_labels_per_edge: int,
        beta: float = 0.05,
    ) -> "BinomialModel":
        """Fit under ε-DP with its own budget; see :func:`.dp_fit.fit_binomial_dp`."""
        from .dp_fit import fit_binomial_dp

        return fit_binomial_dp(graph, epsilon, vocabulary=vocabulary, max_labels_per_edge=max_labels_per_edge, beta=beta)

    def covers(self, graph: Graph) -> bool:
        """True iff every edge's number of adjacent edges is in ``neighbour_counts``."""
        return bool(np.isin(self._closed_sizes(graph) - 1, self.neighbour_counts).all())

    def _report(self) -> WassersteinReport:
        (p0lo, p0hi), (p1lo, p1hi) = self.p0_range, self.p1_range
        rows, cdfs = [], {}
        d_min_all, d_max_all = None, None
        # Largest neighbourhoods first; a size n can only give gaps in [low(n), n + 1], so sizes
        # that cannot beat the running extremes are skipped (the result stays exact). low(n) is
        # 1 − n in general, and 1 when p0 ≤ p1 (then Binomial(n, p1) dominates Binomial(n, p0)
        # stochastically, so every quantile gap 1 + Q1 − Q0 is at least 1).
        dominated = 0.0 < p0hi <= p1lo < 1.0
        report = resolve_progress(self._progress, label="Binomial W")
        report.start(int(self.neighbour_counts.sum()) + self.neighbour_counts.size)  # work ~ Σ (n + 1)
        for n in sorted(self.neighbour_counts.tolist(), reverse=True):
            report.advance(n + 1)
            low = 1 if dominated else 1 - n
            if d_max_all is not None and n + 1 <= d_max_all and low >= d_min_all:
                rows.append({"neighbours": n, "neighbourhood": n + 1, "d_min": None, "d_max": None, "W_inf": None, "skipped": True})
                continue
            hi = binomial_gap_range(n, p0lo, p1hi)
            lo = hi if (p0lo, p1hi) == (p0hi, p1lo) else binomial_gap_range(n, p0hi, p1lo)
            d_min, d_max = lo.d_min, hi.d_max
            rows.append({"neighbours": n, "neighbourhood": n + 1, "d_min": d_min, "d_max": d_max, "W_inf": max(d_max, -d_min), "skipped": False})
            d_min_all = d_min if d_min_all is None else min(d_min_all, d_min)
            d_max_all = d_max if d_max_all is None else max(d_max_all, d_max)
        report.finish()
        rows.reverse()
        n = int(self.neighbour_counts.max())
        values = np.arange(n + 2)
        cdf0 = np.append(stats.binom.cdf(np.arange(n + 1), n, self.p0), 1.0)
        cdf1 = np.concatenate([[0.0], stats.binom.cdf(np.arange(n + 1), n, self.p1)])
        cdfs[f"nb={n}"] = (values, cdf0, cdf1)
        W = max(d_max_all, -d_min_all)
        return WassersteinReport(W, d_min_all, d_max_all, flip_bound(d_min_all, d_max_all), rows, cdfs)

    def _content(self) -> list[Any]:
        return [self.p0_range, self.p1_range, self.neighbour_counts, self.data_dependent, self.provenance]

    def _repr_fields(self) -> str:
        if self.p0_range[0] == self.p0_range[1] and self.p1_range[0] == self.p1_range[1]:
            return f"p0={self.p0:.6g}, p1={self.p1:.6g}, max_neighbours={int(self.neighbour_counts.max())}"
        return f"p0_range={self.p0_range}, p1_range={self.p1_range}, max_neighbours={int(self.neighbour_counts.max())}"


# --------------------------------------------------------------------------- empirical models
class _EmpiricalModel(CorrelationModel):
    """Histograms of ``f`` given ``s⁰`` / ``s¹`` per (frequency bucket, size bucket)."""

    def __init__(self, hist0: np.ndarray, hist1: np.ndarray, max_size: np.ndarray, base: float, *, fitted_on: str, data_dependent: bool):
        self.hist0 = np.asarray(hist0, dtype=np.int64)
        self.hist1 = np.asarray(hist1, dtype=np.int64)
        self.max_size = np.asarray(max_size, dtype=np.int64)
        self.base = float(base)
        self.fitted_on = fitted_on
        self.data_dependent = bool(data_dependent)
        for arr in (self.hist0, self.hist1, self.max_size):
            arr.setflags(write=False)

    def _content(self) -> list[Any]:
        return [self.hist0, self.hist1, self.max_size, self.base, self.data_dependent]


def _bucket_gaps(h0: np.ndarray, h1: np.ndarray, max_n: int) -> tuple[QuantileGaps, bool]:
    """Quantile gaps of one bucket; a bucket whose s⁰ or s¹ side was never observed gets the
    trivial range ``[2 − N, N]`` (any laws on ``[0, N−1]`` and ``[1, N]``), flagged ``False``."""
    if h0.sum() == 0 or h1.sum() == 0:
        return QuantileGaps(2 - max_n, max_n), False
    k0, k1 = np.flatnonzero(h0).max(), np.flatnonzero(h1).max()
    return quantile_gap_range(h0[: k0 + 1], h1[: k1 + 1]), True


class GlobalModel(_EmpiricalModel):
    """The Global model (paper 001 §4.3.2): the empirical law of ``f`` given ``s⁰`` and given
    ``s¹``, pooled over every (edge, property) pair of the fitting graph. ``W = W∞`` between the
    two pooled laws (clipping them to any edge's feasible range can only lower it).
    """

    name = "Global"
    attacker = (
        "knows the public structure and the overall distribution of how many edges of a "
        "neighbourhood share a property, given that the central edge has it or not"
    )

    @classmethod
    def fit(cls, graph: Graph, *, source: str = "private", progress: Any = None) -> "GlobalModel":
        """Exact histograms over all ``E × P`` secrets (see :mod:`._stats`); ``progress``: see
        :mod:`opendp_graph._progress`."""
        g = _check_graph(graph)
        fitted_on, dependent = _check_source(source)
        st = neighbourhood_stats(g, progress=progress)
        return cls._from_stats(st, fitted_on, dependent)

    @classmethod
    def _from_stats(cls, st: NeighbourhoodStats, fitted_on: str, dependent: bool) -> "GlobalModel":
        return cls(
            st.hist0.sum(axis=(0, 1)),
            st.hist1.sum(axis=(0, 1)),
            np.array([st.max_neighbourhood]),
            st.base,
            fitted_on=fitted_on,
            data_dependent=dependent,
        )

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

    def _repr_fields(self) -> str:
        return f"secrets_s0={int(self.hist0.sum())}, secrets_s1={int(self.hist1.sum())}"


class ConditionalModel(_EmpiricalModel):
    """The Conditional model (paper 001 §4.3.1, Table 1): the empirical law of ``f`` given the
    secret, the neighbourhood size and the property's frequency, both bucketed on a log scale
    (``floor(log_base(·))``; the size is ``|N[i]| = nb + 1 ≥ 1`` so that isolated edges have a
    bucket; the frequency is the number of edges carrying the property in the fitting graph).

    Exact: every one of the ``E × P`` secrets is counted (the paper samples up to 100 edges per
    bucket). ``W`` is the largest ``W∞`` over buckets that hold secrets; a bucket where one
    side was never observed gets the trivial bound (the bucket's largest neighbourhood).
    """

    name = "Conditional"
    attacker = (
        "knows the public structure, each property's frequency (to a power of the base) and, "
        "per neighbourhood-size bucket, how neighbourhoods share properties: the best-informed attacker"
    )

    _UNOBSERVED = ("bound", "ignore")

    def __init__(self, hist0, hist1, max_size, base, *, pairs: np.ndarray, fitted_on: str, data_dependent: bool, unobserved: str = "bound"):
        super().__init__(hist0, hist1, max_size, base, fitted_on=fitted_on, data_dependent=data_dependent)
        self.pairs = np.asarray(pairs, dtype=np.int64)
        self.unobserved = self._check_unobserved(unobserved)

    @classmethod
    def _check_unobserved(cls, unobserved: str) -> str:
        if unobserved not in cls._UNOBSERVED:
            raise ValueError(f"unobserved must be one of {cls._UNOBSERVED}, got {unobserved!r}")
        return unobserved

    @classmethod
    def fit(
        cls, graph: Graph, *, base: float = 10.0, source: str = "private", unobserved: str = "bound", progress: Any = None
    ) -> "ConditionalModel":
        """Exact per-bucket histograms (see :mod:`._stats`); ``base`` of the log buckets.

        ``unobserved`` says what a bucket whose ``s⁰`` or ``s¹`` side was never observed gets:
        ``"bound"`` (default) the trivial bound (the bucket's largest neighbourhood), or
        ``"ignore"``: no constraint — the fitted attacker gives the unobserved secret zero prior
        probability, and Pufferfish privacy only constrains pairs of secrets that both have
        positive probability (Definition 2.3). ``"ignore"`` is thus exactly as strong as the
        model's belief that such secrets cannot occur. ``progress``: see :mod:`opendp_graph._progress`.
        """
        g = _check_graph(graph)
        base = _check_base(base)
        fitted_on, dependent = _check_source(source)
        cls._check_unobserved(unobserved)  # before the expensive pass
        st = neighbourhood_stats(g, base=base, progress=progress)
        return cls._from_stats(st, fitted_on, dependent, unobserved)

    @classmethod
    def _from_stats(cls, st: NeighbourhoodStats, fitted_on: str, dependent: bool, unobserved: str = "bound") -> "ConditionalModel":
        return cls(
            st.hist0,
            st.hist1,
            st.max_size_by_bucket,
            st.base,
            pairs=st.pairs_by_bucket,
            fitted_on=fitted_on,
            data_dependent=dependent,
            unobserved=unobserved,
        )

    def _content(self) -> list[Any]:
        return super()._content() + [self.pairs, self.unobserved]

    def covers(self, graph: Graph) -> bool:
        """True iff every edge falls in a size bucket the model was fitted on, no larger than
        that bucket's largest neighbourhood (the frequency bucket is read from the model's prior;
        properties of other frequencies fall in buckets with the trivial bound)."""
        from ._stats import log_bucket

        sizes = self._closed_sizes(graph)
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
                if not observed and self.unobserved == "ignore":
                    rows.append({"log_freq": fb, "log_size": sb, "secrets_s0": int(h0.sum()), "secrets_s1": int(h1.sum()),
                                 "max_neighbourhood": max_n, "d_min": None, "d_max": None, "W_inf": None,
                                 "W_inf_fraction": None, "paper_style_W": None, "observed": False})
                    continue
                w = gaps.w_infinity
                cap = min(n_max, int(round(self.base ** (sb + 1)))) if n_max else 0
                rows.append(
                    {
                        "log_freq": fb,
                        "log_size": sb,
                        "secrets_s0": int(h0.sum()),
                        "secrets_s1": int(h1.sum()),
                        "max_neighbourhood": max_n,
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
        W = max(d_max_all, -d_min_all)
        return WassersteinReport(W, d_min_all, d_max_all, flip_bound(d_min_all, d_max_all), rows, cdfs)

    def _repr_fields(self) -> str:
        return f"base={self.base:g}, buckets={tuple(self.hist0.shape[:2])}, unobserved={self.unobserved!r}"


# --------------------------------------------------------------------------- baselines
class EdgeLevelModel(CorrelationModel):
    """Baseline: independent edges (plain edge-level confidentiality). Flipping ``(i, a)``
    changes only edge ``i``: ``d ≡ 1``, ``W = 1``, one edge flips."""

    name = "Edge-level"
    attacker = "believes edges' properties are independent (no correlation): ordinary edge-level privacy"
    fitted_on = "nothing (no parameters)"
    data_dependent = False
    provenance = "none"

    def _report(self) -> WassersteinReport:
        return WassersteinReport(1, 1, 1, 1, [{"d_min": 1, "d_max": 1, "W_inf": 1}], {})

    def _content(self) -> list[Any]:
        return []

    def _repr_fields(self) -> str:
        return ""


class MarkovQuiltModel(CorrelationModel):
    """Baseline: the Markov-quilt mechanism with the trivial quilt (paper 001 §4.2 (3); Song
    et al. Theorem 4.3), equivalently group privacy over the largest closed neighbourhood:
    any law of ``f`` on ``[0, N−1]`` vs ``[1, N]`` with ``N = 2·Dmax − 1``, so ``d ∈ [2 − N, N]``,
    ``W = N`` and up to ``N`` edges flip. Reads only the public structure.
    """

    name = "Markov quilt (trivial)"
    attacker = "any correlation confined to an edge's closed neighbourhood (trivial Markov quilt, δ = 0)"
    data_dependent = False
    provenance = "structure"

    def __init__(self, max_neighbourhood: int) -> None:
        if isinstance(max_neighbourhood, bool) or not isinstance(max_neighbourhood, (int, np.integer)) or max_neighbourhood < 1:
            raise ValueError(f"max_neighbourhood must be a positive integer, got {max_neighbourhood!r}")
        self.max_neighbourhood = int(max_neighbourhood)
        self.fitted_on = "the public graph structure (largest neighbourhood 2·Dmax − 1)"

    @classmethod
    def for_graph(cls, graph: Graph) -> "MarkovQuiltModel":
        """``N = 2·Dmax − 1`` from the (public) structure of ``graph``."""
        if not isinstance(graph, Graph):
            raise TypeError(f"expected an opendp_graph.Graph, got {type(graph).__name__}")
        return cls(max(2 * graph.max_degree - 1, 1))

    def covers(self, graph: Graph) -> bool:
        return bool((self._closed_sizes(graph) <= self.max_neighbourhood).all())

    def _report(self) -> WassersteinReport:
        n = self.max_neighbourhood
        return WassersteinReport(n, 2 - n, n, n, [{"max_neighbourhood": n, "d_min": 2 - n, "d_max": n, "W_inf": n}], {})

    def _content(self) -> list[Any]:
        return [self.max_neighbourhood]

    def _repr_fields(self) -> str:
        return f"max_neighbourhood={self.max_neighbourhood}"


def fit_all(graph: Graph, *, base: float = 10.0, source: str = "private", progress: Any = None) -> dict[str, CorrelationModel]:
    """The three models from one pass of :func:`._stats.neighbourhood_stats` (shared work).

    ``progress`` (the shared pass, and later the Binomial ``W``): ``None`` shows a progress line on
    an interactive terminal once a stage has run two seconds (silent in pipes and tests);
    ``True``/``False`` force it on/off; a callable receives ``(stage, done, total)``
    (:mod:`opendp_graph._progress`).
    """
    g = _check_graph(graph)
    base = _check_base(base)
    fitted_on, dependent = _check_source(source)
    st = neighbourhood_stats(g, base=base, progress=progress)
    return {
        "Binomial": BinomialModel._from_stats(st, fitted_on, dependent, progress),
        "Global": GlobalModel._from_stats(st, fitted_on, dependent),
        "Conditional": ConditionalModel._from_stats(st, fitted_on, dependent),
    }
