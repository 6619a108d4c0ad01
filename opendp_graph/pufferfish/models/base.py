"""The base of the correlation models: :class:`CorrelationModel`, the report every model gives
(:class:`WassersteinReport`) and :func:`flip_bound`.

A model ``M`` defines a class of attackers ``Θ_M`` (paper 001 §3–4): for every secret pair
"edge ``i`` lacks / carries property ``a``", the law of ``f(i, a)`` — how many edges of the closed
neighbourhood ``N[i]`` carry ``a``, the central edge included — given either secret. Coupling the
two laws by their quantiles changes the central edge and ``|d − 1|`` neighbours, ``d = f¹ − f⁰``;
Song, Wang & Chaudhuri's ``W = max(d_max, −d_min)`` (Theorem 3.2) calibrates the noise. The
attacker class, coverage, vocabularies, immutability and what ``source=`` asserts about the
fitting graph are documented in :ref:`correlation-models` (``docs/guarantees.md``).

**Immutability** (one convention with the rest of the package: frozen dataclasses). Every model
class is a ``@dataclass(frozen=True)`` (:func:`frozen_model`), so assigning or deleting an
attribute raises :class:`dataclasses.FrozenInstanceError`; constructors set their fields once
(:meth:`CorrelationModel._init`), and the ``W`` reports are cached the same way. Arrays are
read-only views of read-only memory. Models pickle and deep-copy: a progress callback is not
pickled, nor an OpenDP measurement in ``fit_details`` (it becomes ``None``; a deep copy shares it).
"""

from __future__ import annotations

import copy
import hashlib
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...core._distributed import DistributedGraph
from ...core._frozen import frozen
from ...core._progress import check_progress
from ...core.graph import Graph
from .._stats import NeighbourhoodStats, neighbourhood_stats
from ..coupling import DeltaBounds, check_delta
from ..wasserstein import QuantileGaps

__all__ = ["CorrelationModel", "WassersteinReport", "flip_bound", "frozen_model"]


def flip_bound(d_min: int, d_max: int) -> int:
    """Most edges whose property ``a`` differs between the coupled labellings when the quantile
    difference ``d = f¹ − f⁰`` ranges over ``[min(d_min, 1), max(d_max, 1)]``: the central edge
    plus ``|d − 1|`` neighbours, maximised at an end of the range (``|d − 1|`` is convex)."""
    return 1 + max(abs(d_max - 1), abs(d_min - 1))


def _neighbourhood_stats(graph: Graph | DistributedGraph, *, base: float = 10.0, progress: Any = None) -> NeighbourhoodStats:
    """The shared statistics, computed where the graph lives (on a distributed engine, ``nb`` holds
    the distinct sizes: :meth:`DistributedGraph.neighbourhood_stats`)."""
    if isinstance(graph, DistributedGraph):
        check_progress(progress)  # the engine reports its own progress; the argument is still checked
        return graph.neighbourhood_stats(base=base)
    return neighbourhood_stats(graph, base=base, progress=progress)


def _readonly_state(state: dict[str, Any]) -> None:
    """Every array of a model's state becomes a read-only view of read-only memory, so that
    ``setflags(write=True)`` cannot make it writable again (an array owning its memory could)."""
    for key, value in list(state.items()):
        if isinstance(value, np.ndarray):
            owner = value if value.flags.owndata else value.copy()
            owner.setflags(write=False)
            view = owner.view()
            view.setflags(write=False)
            state[key] = view


def _is_opendp_object(value: Any) -> bool:
    try:
        from opendp.mod import Measurement, Transformation
    except ImportError:  # pragma: no cover
        return False
    return isinstance(value, (Measurement, Transformation))


@dataclass(frozen=True)
class WassersteinReport:
    """What :meth:`CorrelationModel.wasserstein` returns: ``W`` and the quantities the
    Pufferfish metric is built from, with their per-bucket diagnostics.

    At ``delta = 0`` (the default): ``W`` is Song et al.'s ``sup W∞`` over the model's secret
    pairs; ``d_min, d_max`` the extremes of the quantile difference; ``flip_bound`` the most
    edges that change under the coupling; ``table`` one row (a dict) per bucket / neighbourhood
    size; ``cdfs`` maps a name to ``(values, cdf given s⁰, cdf given s¹)`` for plotting (paper
    Figures 3–5).

    At ``delta > 0`` (the (ε, δ) relaxation, :mod:`.coupling`), for **every secret pair
    separately** there is a coupling of ``f | s⁰`` and ``f | s¹`` whose difference ``d = f¹ −
    f⁰`` stays in a window except with probability ``≤ δ`` under the attacker's prior:

    * ``W`` = the largest per-pair ``W_δ`` (window ``[−W_δ, W_δ]``);
    * ``[d_min, d_max]`` = the hull of the per-pair windows of :func:`.coupling.delta_bounds`
      (``[−W_δ, W_δ]`` cut by that pair's δ = 0 quantile range when a coupling certifies the
      cut, which keeps its sign — e.g. ``d ≥ 1`` — else ``[−W_δ, W_δ]``), so ``W =
      max(d_max, −d_min)`` still. The δ-optimal couplings are not monotone, so this is a
      window, not the range of a quantile difference;
    * ``flip_bound`` = the largest per-pair ``F_δ`` (window ``[2 − F_δ, F_δ]``, met by its own
      coupling; not derived from ``[d_min, d_max]``, which may give more);
    * ``table``: the δ = 0 columns plus ``W_delta``, ``d_min_delta``, ``d_max_delta``,
      ``flip_delta`` (and ``flip_inf``) per bucket / neighbourhood size; ``cdfs`` as at δ = 0.

    ``delta`` records the δ the report was computed at. Every field is described below. The
    report of a model is the same object at every call (cached per δ); do not mutate ``table``
    or ``cdfs``.
    """

    W: int
    """The ``W`` the noise is calibrated to, in edges. At δ = 0: Song et al.'s ``sup W∞`` over
    the model's secret pairs (Theorem 3.2), ``max(d_max, −d_min)``. At δ > 0: the largest
    per-pair ``W_δ``, again ``max(d_max, −d_min)``. ``1`` when no secret pair is constrained
    (every bucket ignored, ``unobserved="ignore"``)."""
    d_min: int
    """Least difference ``d = f¹ − f⁰`` of one coupled flip. At δ = 0: the least quantile
    difference ``Q_{f|s¹}(t) − Q_{f|s⁰}(t)`` over all levels ``t`` and all the model's secret
    pairs (:func:`.wasserstein.quantile_gap_range` per law; the minimum over the buckets /
    neighbourhood sizes; ``2 − N`` for a bucket with an unobserved side or the Markov quilt;
    for the Binomial model an enclosure computed with outward slack, over the whole ``(p0, p1)``
    box of a DP fit). At δ > 0: the low end of the hull of the per-pair windows (above). The
    metric uses ``min(d_min, 1)``: clipping a law to an edge's feasible range moves ``d``
    towards 1 (:doc:`/guarantees`)."""
    d_max: int
    """Largest difference ``d = f¹ − f⁰`` of one coupled flip: at δ = 0 the largest quantile
    difference over all levels and secret pairs (``N`` for a bucket with an unobserved side or
    the Markov quilt), at δ > 0 the high end of the hull of the per-pair windows; the metric uses
    ``max(d_max, 1)``."""
    flip_bound: int
    """The most edges whose property ``a`` differs between the two coupled labellings of one
    secret: the central edge plus ``|d − 1|`` neighbours (:doc:`/guarantees`). At δ = 0 it is
    :func:`flip_bound` of ``(d_min, d_max)``, ``F = 1 + max(|d_max − 1|, |d_min − 1|)``, the
    maximum of ``1 + |d − 1|`` over ``d ∈ [min(d_min, 1), max(d_max, 1)]``, i.e. over every
    pair's coupling. At δ > 0 it is the largest per-pair ``F_δ`` (:func:`.coupling.flip_delta`:
    the least ``F`` with a coupling keeping ``d`` in ``[2 − F, F]`` except with probability
    ``≤ δ``; for the Binomial model a certified upper bound of it), a different coupling from
    the one of ``[d_min, d_max]``: the Pufferfish metric at δ > 0 uses ``flip_bound(d_min,
    d_max)`` instead (:func:`~.metric.pufferfish_distance`)."""
    table: list[dict[str, Any]] = field(repr=False)
    """One dict per bucket / neighbourhood size (diagnostics; the fields above are the
    aggregates). Columns by model: Binomial ``neighbours`` (``nb``, in increasing order),
    ``neighbourhood`` (``nb + 1``), ``d_min``, ``d_max``, ``W_inf``, ``skipped`` (at δ = 0 a
    size that cannot widen the running ``[d_min, d_max]`` is not computed, its gaps are ``None``:
    the aggregates stay exact; at δ > 0 every size is); Global one row, ``secrets_s0``,
    ``secrets_s1`` (secrets on each side), ``d_min``, ``d_max``, ``W_inf``, ``observed`` (both sides seen; else the trivial
    ``[2 − N, N]``); Conditional one row per (frequency, size) bucket holding secrets,
    ``log_freq``, ``log_size`` (``floor(log_base(·))`` of the property's frequency and of
    ``|N[i]|``), ``secrets_s0``, ``secrets_s1``, ``max_neighbourhood`` (the bucket's largest
    ``N``), ``d_min``, ``d_max``, ``W_inf``, ``W_inf_fraction`` (``W_inf / N``),
    ``paper_style_W`` (that fraction times ``min(largest N of the fit, round(base^(log_size +
    1)))``: the paper's Table 1 convention, for comparison only), ``observed`` (an ignored
    bucket has ``None`` gaps); Edge-level ``d_min``, ``d_max``, ``W_inf`` (all 1); Markov quilt
    ``max_neighbourhood``, ``d_min``, ``d_max``, ``W_inf``. At δ > 0 each row also has
    ``flip_inf`` (its δ = 0 flip bound), ``W_delta``, ``d_min_delta``, ``d_max_delta`` (its
    window) and ``flip_delta`` (its ``F_δ``), ``None`` for an ignored bucket."""
    cdfs: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(repr=False)
    """For plotting (paper Figures 3–5; :mod:`.plots`): a name → ``(values, CDF of f given s⁰,
    CDF of f given s¹)`` on ``values = 0, 1, …``. Binomial: ``"nb=<n>"`` for the largest
    neighbourhood size only (at the interval midpoints for a DP fit); Global: ``"global"``;
    Conditional: ``"log_freq=<b>, log_size=<b>"`` per bucket not ignored; Edge-level
    and Markov quilt: none. The same at δ > 0 (the δ = 0 laws)."""
    delta: float = 0.0
    """The δ the report was computed at (:meth:`CorrelationModel.wasserstein`): ``0`` for the
    exact report; at δ > 0 each of ``W``, the window ``[d_min, d_max]`` and ``flip_bound`` holds
    for every secret pair through a coupling that fails with probability ``≤ delta`` under the
    attacker's prior."""


_frozen_model = frozen(": its W is cached and carried by every metric built from it; construct a new model instead")


def frozen_model(cls: type) -> type:
    """The package's :func:`~opendp_graph.core._frozen.frozen` for a model class (a frozen
    dataclass with its own constructor): every model class of this package is
    decorated with it, which declares its fields (:func:`dataclasses.fields`). The refusal is
    inherited, so a subclass of :class:`CorrelationModel` that is not decorated is frozen too.

    The models keep their own constructors (``init=False``: the arguments are checked and
    converted — ``p0`` becomes ``p0_range``, arrays become read-only ``int64`` copies — before the
    fields are set once, by :meth:`CorrelationModel._init`), ``repr`` (it carries the fingerprint)
    and identity equality (``eq=False``: two fits with equal parameters are still two models; the
    metrics compare fingerprints). The frozen refusal keeps the models' wording, which says why:
    ``FrozenInstanceError`` ("... is immutable: its W is cached ..."), an ``AttributeError``.
    """
    return _frozen_model(cls)


@frozen_model
class CorrelationModel:
    """Base class: a model ``M`` defines the attacker class ``Θ_M`` (:doc:`/guarantees`).

    Subclasses set ``name``, ``fitted_on``, ``data_dependent`` and implement ``_report()``.
    Instances are immutable once constructed (:func:`frozen_model`): assigning or deleting an
    attribute raises ``AttributeError`` (a :class:`dataclasses.FrozenInstanceError`), and their
    arrays are read-only.
    """

    name = "model"
    attacker = ""
    fitted_on: str
    """Where the model's parameters came from, in words (for a fit, what its ``source=`` stated:
    :doc:`/guarantees`, *Source*). A label for people, not checked."""
    data_dependent: bool
    """``True`` iff the model is marked as a function of the private data: a fit with
    ``source="private"`` (the default), or a constructor called with ``data_dependent=True``.
    ``False`` is a fact for the baselines and :meth:`BinomialModel.fit_dp` (no private label
    is read without protection), and the caller's assertion otherwise (``source="public"``, or
    parameters supplied to a constructor); :meth:`summary` says which."""
    vocabulary: tuple[str, ...] | None = None
    """The properties the model describes, or ``None``: every property (:doc:`/guarantees`,
    *Vocabulary*). Under :func:`~.metric.pufferfish_distance` the label queries read only these."""
    _report_cache: WassersteinReport | None = field(default=None, repr=False)
    _report_cache_delta: dict[float, WassersteinReport] | None = field(default=None, repr=False)

    # ------------------------------------------------------------------ immutability
    def _init(self, **fields: Any) -> None:
        """Constructors only: set ``fields`` once (arrays as read-only views of read-only memory)."""
        _readonly_state(fields)
        for key, value in fields.items():
            object.__setattr__(self, key, value)

    def _state(self, *, portable: bool) -> dict[str, Any]:
        state = dict(self.__dict__)
        details = state.get("fit_details")
        if isinstance(details, Mapping):
            details = dict(details)
            if portable:  # OpenDP objects hold foreign pointers and cannot be pickled
                details = {k: (None if _is_opendp_object(v) else v) for k, v in details.items()}
            state["fit_details"] = details
        if portable and callable(state.get("_progress")):
            # A progress callback is a property of this session, not of the model: pickles (process
            # pools, caches) get the default reporting instead of failing on an unpicklable callable.
            state["_progress"] = None
        return state

    # A frozen dataclass would pickle and deep-copy by itself, but (tests/pufferfish/test_pufferfish_coverage.py,
    # tests/core/test_progress.py) a progress callback and an OpenDP measurement cannot be pickled, a
    # mappingproxy cannot be deep-copied, and an unpickled or copied array must be read-only again.
    def __getstate__(self) -> dict[str, Any]:
        return self._state(portable=True)

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        if isinstance(state.get("fit_details"), Mapping):
            state["fit_details"] = types.MappingProxyType(dict(state["fit_details"]))
        _readonly_state(state)
        self.__dict__.update(state)

    def __deepcopy__(self, memo: dict) -> CorrelationModel:
        new = object.__new__(type(self))
        memo[id(self)] = new
        state = self._state(portable=False)
        copied = {}
        for key, value in state.items():
            if key == "fit_details":  # OpenDP objects are immutable: shared, not copied
                value = {k: (v if _is_opendp_object(v) else copy.deepcopy(v, memo)) for k, v in value.items()}
            elif key != "_progress":
                value = copy.deepcopy(value, memo)
            copied[key] = value
        new.__setstate__(copied)
        return new

    def wasserstein(self, delta: float = 0.0) -> WassersteinReport:
        """``W`` and its diagnostics (per-bucket table, CDFs) at ``delta`` (default 0: Song et
        al.'s ``W∞``). Computed once per δ, then cached.

        ``delta`` (a probability in ``[0, 1)``; ``TypeError``/``ValueError`` otherwise) asks for
        the (ε, δ) relaxation: each secret pair's coupling may leave its window with
        probability ``≤ δ`` (:class:`WassersteinReport` says what every field then means;
        :mod:`.coupling` how it is computed, exactly or conservatively). ``delta = 0`` is the
        report this method always returned (same object, cached in ``_report_cache``); other
        values are cached in ``_report_cache_delta`` (a dict by δ). Caching is sound because the
        model is immutable (:doc:`/guarantees`).
        """
        delta = check_delta(delta)
        if delta == 0.0:
            cached = self._report_cache
            if cached is None:
                cached = self._report()
                object.__setattr__(self, "_report_cache", cached)  # a cache: the one write after construction
            return cached
        by_delta = self._report_cache_delta
        if by_delta is None:
            by_delta = {}
            object.__setattr__(self, "_report_cache_delta", by_delta)
        cached = by_delta.get(delta)
        if cached is None:
            cached = self._report_delta(delta)
            by_delta[delta] = cached
        return cached

    def _report(self) -> WassersteinReport:  # pragma: no cover - subclasses override
        raise NotImplementedError

    def _report_delta(self, delta: float) -> WassersteinReport:  # pragma: no cover - subclasses override
        raise NotImplementedError

    @property
    def W(self) -> int:
        """Song et al.'s ``W = sup W∞`` over the model's secret pairs (Theorem 3.2)."""
        return self.wasserstein().W

    @property
    def gaps(self) -> QuantileGaps:
        """``(d_min, d_max)`` of the exact (δ = 0) report, :meth:`wasserstein`: the least and the
        largest quantile difference ``d = f¹ − f⁰`` of a coupled flip over all the model's secret
        pairs (:class:`WassersteinReport`, ``d_min``/``d_max``), so ``W = max(d_max, −d_min)``.
        Never the δ-window: that is ``wasserstein(delta)``'s ``d_min``/``d_max``."""
        r = self.wasserstein()
        return QuantileGaps(r.d_min, r.d_max)

    @property
    def flip_bound(self) -> int:
        """``F = 1 + max(|d_max − 1|, |d_min − 1|)`` of the exact (δ = 0) report
        (:func:`flip_bound` of :attr:`gaps`): the most edges whose property ``a`` differs between
        the two coupled labellings of one secret — the central edge and ``|d − 1|`` neighbours.
        What one secret costs a row-level unit (:mod:`opendp_graph.polars`) and a DP fit's group
        privacy (:meth:`summary`)."""
        return self.wasserstein().flip_bound

    def _content(self) -> list[Any]:  # pragma: no cover - subclasses override
        raise NotImplementedError

    def covers(self, graph: Graph) -> bool:  # pragma: no cover - every model overrides it
        """Whether the model describes every secret of ``graph``'s (public) structure, i.e.
        whether ``W`` and the quantile gaps were computed over all of its neighbourhoods. A
        release on a graph the model does not cover is outside ``Θ_M``, and the queries under
        :func:`~.metric.pufferfish_distance` refuse it (:doc:`/guarantees`, *Coverage*)."""
        raise NotImplementedError

    @staticmethod
    def _closed_sizes(graph: Graph | DistributedGraph) -> np.ndarray:
        """``deg u + deg v − 1`` per edge (of a distributed graph: its distinct values, which is
        all that ``covers`` and ``for_structure`` read)."""
        if isinstance(graph, DistributedGraph):
            return graph.distinct_closed_sizes()
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
        """A plain-language statement of the guarantee a release calibrated to this model gives.

        Its lines: ``W``, the quantile gaps and the flip bound; the attacker; ``fitted on``
        (:attr:`fitted_on`); then a NOTE when the model is :attr:`data_dependent` (the release is
        ε-Pufferfish for this fitted model's attackers only, and ``W`` is disclosed unprotected),
        or when its independence from the private data is the caller's assertion (a fit with
        ``source="public"``, or parameters supplied to a constructor: "asserted public by the
        caller", and what holds if that is false — :doc:`/guarantees`, *Source*); and for a DP fit
        what the fit itself costs against the model's attackers."""
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
        elif self.provenance in ("public", "caller"):
            # fit(source="public"), or parameters handed to a constructor: independence is claimed, not shown
            lines.append(
                "  NOTE: the fitting data were asserted public by the caller (independent of the private data to be "
                "released); this is not checked. If they are the private data, or derived from them, the model is a "
                "function of the private data: the release is ε-Pufferfish only for the attacker class this fitted "
                "model defines, W itself is disclosed unprotected, and the choice of model has no DP guarantee."
            )
        fit_epsilon = getattr(self, "fit_details", {}).get("epsilon") if self.provenance == "dp" else None
        if fit_epsilon is not None:
            # the fit is ε_fit-DP for one edge's labels; one secret of this model rewrites up to F
            # edges' labels, so against these attackers the fit costs F·ε_fit (group privacy)
            lines.append(
                f"  NOTE: the fit itself is {fit_epsilon:g}-DP for changing one edge's labels; a secret of this model "
                f"changes up to {r.flip_bound} edges, so against its attackers the fit costs up to "
                f"{r.flip_bound} × {fit_epsilon:g} = {r.flip_bound * fit_epsilon:g}, to be added to every release's ε."
            )
        return "\n".join(lines)

    provenance = "public"  # short form of fitted_on, part of the identifier
    """Short form of :attr:`fitted_on`, shown by the ``repr`` (part of every metric's identifier)
    when the model is not :attr:`data_dependent`: ``"public"`` (a fit with ``source="public"``, or
    histograms supplied to a constructor), ``"caller"`` (Binomial parameters supplied), ``"dp"``
    (:meth:`BinomialModel.fit_dp`), ``"structure"`` (:class:`MarkovQuiltModel`), ``"none"``
    (:class:`EdgeLevelModel`). ``"public"`` and ``"caller"`` are the caller's word."""

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


def _delta_columns(b: DeltaBounds | None) -> dict[str, Any]:
    """The per-bucket columns a δ > 0 report adds to the δ = 0 row."""
    if b is None:
        return {"flip_inf": None, "W_delta": None, "d_min_delta": None, "d_max_delta": None, "flip_delta": None}
    return {
        "flip_inf": flip_bound(*b.gaps),
        "W_delta": b.W,
        "d_min_delta": b.d_min,
        "d_max_delta": b.d_max,
        "flip_delta": b.flip_bound,
    }


class _Hull:
    """Running aggregate of per-pair δ-bounds: ``W`` and ``F`` the largest, the window the hull
    (every pair's window lies in it, so the aggregate is valid for every pair)."""

    def __init__(self) -> None:
        self.bounds: tuple[int, int, int, int] | None = None  # W, F, lo, hi; None until a pair is added

    def add(self, b: DeltaBounds) -> None:
        if self.bounds is None:
            self.bounds = (b.W, b.flip_bound, b.d_min, b.d_max)
        else:
            W, F, lo, hi = self.bounds
            self.bounds = (max(W, b.W), max(F, b.flip_bound), min(lo, b.d_min), max(hi, b.d_max))

    def report(self, rows: list[dict[str, Any]], cdfs: dict, delta: float) -> WassersteinReport:
        if self.bounds is None:  # nothing constrained (every bucket ignored): as at δ = 0
            return WassersteinReport(1, 1, 1, 1, rows, cdfs, delta)
        W, F, lo, hi = self.bounds
        return WassersteinReport(W, lo, hi, F, rows, cdfs, delta)
