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
2. *model law*: ``f(i, a)`` given ``sʲ`` has the law ``M`` gives for that pair, clipped to the
   feasible range ``[j, |N[i]| − 1 + j]``. *Clipped* means clamped: ``f ↦ min(max(f, j),
   |N[i]| − 1 + j)``, the mass outside moved to the nearest end. It does **not** mean conditioned
   on the range (restricted and renormalised): that is another attacker, whose ``W`` can exceed
   the model's (found by an exact search: 1,911 of 20,000 random small cases at ``δ = 0``), and
   whom no model here describes;
3. *exchangeable*: given the secret and ``f``, which of the other edges of ``N[i]`` carry ``a``
   is uniform among the subsets of the right size.

Under (1)–(3), coupling the two values of ``f`` by their quantiles and the neighbour sets by a
common random order gives a coupling of the *whole labellings* in which the two sides differ
only in property ``a`` on ``N[i]``: the central edge flips, and ``|d − 1|`` neighbours flip, all
in the same direction, where ``d = f¹ − f⁰`` ranges over the quantile differences
``[d_min, d_max]`` of the model (:func:`.wasserstein.quantile_gap_range`), or — after clipping
a pooled law to an edge's feasible range — between 1 and such a difference. Song, Wang &
Chaudhuri's ``W = sup W∞ = max(d_max, −d_min)`` (Theorem 3.2) is the model's headline number;
the Pufferfish metric (:mod:`~opendp_graph.pufferfish.metric`) turns the range ``[min(d_min, 1), max(d_max, 1)]`` of
``d`` into stability maps. The *flip bound* ``F = 1 + max(|d_max − 1|, |d_min − 1|)`` is the most
edges one coupled flip changes (what a row-level unit counts, :mod:`opendp_graph.polars`).

**Coverage.** ``W`` is computed over the secrets of the graph the model was fitted on, so every
model says which (public) structures it describes, :meth:`CorrelationModel.covers`, and every
query under :func:`~.metric.pufferfish_distance` refuses a structure its model does not cover,
before it reads a label:

* :class:`BinomialModel`: every edge's number of adjacent edges is one it has a law for
  (``neighbour_counts``);
* :class:`GlobalModel`: every closed neighbourhood is at most the fitting graph's largest
  (``max_size``) — the pooled law was measured there, and a larger neighbourhood has feasible
  values of ``f`` outside its support;
* :class:`ConditionalModel`: every edge falls in a size bucket it was fitted on, no larger than
  that bucket's largest neighbourhood;
* :class:`MarkovQuiltModel`: every closed neighbourhood has at most ``N`` edges;
* :class:`EdgeLevelModel`: every structure (its attacker believes the edges independent, so
  ``d ≡ 1`` whatever the neighbourhood).

**Vocabulary.** The Binomial, Global, Edge-level and Markov-quilt models pool over all properties:
their law applies to *any* property, by definition, including properties the fitting graph
never carried. The Conditional model's attacker knows each property's frequency bucket *from the
fit*, so it describes only the properties it was fitted on: it records them
(:attr:`ConditionalModel.vocabulary`, part of its fingerprint), and the Pufferfish metric under
it lets the label queries read those properties only (:mod:`~opendp_graph.pufferfish.metric`). A property it never saw
has no bucket, hence no law and no ``W``: before this rule, such a property was released at the
fitted ``W`` while an attacker with the trivial bound of its neighbourhood could gain ``N·ε``.

**Immutability.** A model is immutable once constructed (its arrays are read-only and its
attributes cannot be reassigned or deleted): ``W`` is computed once and cached, and every metric
built from the model carries it, so a mutated model would silently disagree with its metrics.
Models pickle and deep-copy (process pools, caches); a progress callback is not pickled, nor an
OpenDP measurement in ``fit_details`` (it holds foreign pointers; it becomes ``None``).

**Data dependence.** A model fitted on the private graph makes the noise scale a function of
the private data: the release is then ε-Pufferfish *for the attacker class that this very model
defines*, and the value of ``W`` itself is an unprotected function of the data (so is a
Conditional model's vocabulary: which properties occur). Every model says
where it came from (``fitted_on``, ``data_dependent``). Use a model fitted on a public or
auxiliary graph (``source="public"``), a baseline that reads only the public structure
(:class:`EdgeLevelModel`, :class:`MarkovQuiltModel`), or :meth:`BinomialModel.fit_dp`, which
spends its own privacy budget and returns a conservative upper bound on the W of the exact fit.

**Source.** ``source=`` (keyword-only, in :meth:`BinomialModel.fit`, :meth:`GlobalModel.fit`,
:meth:`ConditionalModel.fit` and :func:`fit_all`) is the caller's statement about the graph the
model is fitted on. Nothing checks it: the fitting graph and the private one are both just
graphs, and comparing them at release time would read the private graph for a purpose no proof
covers (and could not recognise a graph *derived* from it anyway). Any other value is refused
with a ``ValueError`` naming the two allowed ones.

* ``source="private"`` (the default): the fitting graph is the graph whose labels will be
  released, or is derived from it. The model says so: ``data_dependent`` is ``True``,
  ``fitted_on`` begins "the private graph itself", its ``repr`` (hence every metric's
  identifier) says ``fitted_on='private'``, and :meth:`~CorrelationModel.summary` carries the
  NOTE that the release is ε-Pufferfish only for the fitted model's attackers and that ``W`` is
  disclosed unprotected.
* ``source="public"``: the caller **asserts** that the fitting graph is public, or at least
  independent of the private labels to be released — an earlier published snapshot, an
  auxiliary data set, a synthetic graph. The model then has ``data_dependent = False``, its
  ``fitted_on`` reads "a graph asserted public by the caller (source='public'; not checked)",
  its ``repr`` says ``fitted_on='public'`` (a label, like the rest), and ``summary()`` says that
  this independence is the caller's assertion, not a fact the package established.

*If the assertion is true*, the model ``M`` is a function of public data only: for that fixed
``M`` every release is the Wasserstein mechanism whose Pufferfish guarantee for ``Θ_M`` the
metric proves (:mod:`~opendp_graph.pufferfish.metric`), and publishing ``M`` (``W``, a
Conditional model's vocabulary) discloses a function of the public graph only, which the
attackers may already hold. *If it is false* (the graph is the private one, or derived from
it), ``M = fit(D)`` is a function of the private data ``D`` exactly as for a fit with
``source="private"``, and the guarantee is exactly that fit's: the metric's proof is for a fixed
model, so the release is ε-Pufferfish only for the attackers ``Θ_{fit(D)}`` of the model
actually fitted, taken as given; ``W`` (and the vocabulary) are disclosed with no protection;
and there is no DP guarantee for the choice of model (two data sets that fit different models
are released with differently scaled noise, and nothing bounds what the scale reveals). Only
the labels differ: ``data_dependent``, the ``repr`` and ``summary()`` no longer warn. So
``"public"`` is the one value that can overstate the guarantee; it is never the default and must
be written out as a keyword. The default can only understate it (a truly public graph fitted
with the default gets a warning it does not need).
"""

from __future__ import annotations

import copy
import hashlib
import math
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np
from scipy import stats

from ..core._checks import positive_integer, property_names
from ..core._distributed import DistributedGraph
from ..core._progress import check_progress, resolve_progress
from ..core.graph import Graph
from ._stats import NeighbourhoodStats, neighbourhood_stats
from .coupling import DeltaBounds, binomial_delta_bounds, check_delta, delta_bounds
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


_PUBLIC_FIT = "a graph asserted public by the caller (source='public'; not checked)"


def _check_source(source: Any) -> tuple[str, bool]:
    """``(fitted_on, data_dependent)`` for a fit's ``source=`` (module docstring, *Source*)."""
    if not isinstance(source, str) or source not in _SOURCES:
        raise ValueError(
            "source must be 'private' (the default: the graph whose labels you will release, or one derived from it) "
            f"or 'public' (your assertion that the fitting graph is public, independent of the private data), got {source!r}"
        )
    if source == "private":
        return "the private graph itself: the noise scale depends on the private data", True
    return _PUBLIC_FIT, False


def _not_a_graph(value: Any) -> str:
    try:  # the shared message (it suggests Graph.from_networkx / from_polars)
        from ..core._checks import not_a_graph
    except ImportError:  # pragma: no cover - older tree
        return f"expected an opendp_graph.Graph, got {type(value).__name__}"
    return not_a_graph(value)


def _check_structure(graph: Any) -> Graph | DistributedGraph:
    """A :class:`~opendp_graph.Graph`, or a graph kept by a distributed engine
    (:mod:`opendp_graph.spark`), which answers the same statistics as aggregates."""
    if not isinstance(graph, (Graph, DistributedGraph)):
        raise TypeError(_not_a_graph(graph))
    return graph


def _neighbourhood_stats(graph: Graph | DistributedGraph, *, base: float = 10.0, progress: Any = None) -> NeighbourhoodStats:
    """The shared statistics, computed where the graph lives (on a distributed engine, ``nb`` holds
    the distinct sizes: :meth:`DistributedGraph.neighbourhood_stats`)."""
    if isinstance(graph, DistributedGraph):
        check_progress(progress)  # the engine reports its own progress; the argument is still checked
        return graph.neighbourhood_stats(base=base)
    return neighbourhood_stats(graph, base=base, progress=progress)


def _check_graph(graph: Any) -> Graph:
    _check_structure(graph)
    if not graph.is_labeled:
        raise ValueError("the correlation models need a labeled graph (edge properties)")
    return graph


def _check_base(base: Any) -> float:
    if isinstance(base, (bool, np.bool_)) or not isinstance(base, Real) or not math.isfinite(base) or base <= 1:
        raise ValueError(f"base must be a finite number > 1, got {base!r}")
    return float(base)


def _check_text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {type(value).__name__}")
    return value


def _check_flag(value: Any, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def _count_array(value: Any, name: str, ndim: int) -> np.ndarray:
    """A read-only ``int64`` copy of an array of non-negative whole numbers with ``ndim`` axes.

    Integer arrays are taken as they are; float arrays only if every entry is a finite whole
    number (``2.0``, not ``2.5`` or NaN: a silent ``astype`` would truncate). Anything else —
    bools, strings, objects, negative entries — is refused with the reason.
    """
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:  # ragged nesting, ...
        raise ValueError(f"{name} must be an array of counts: {exc}") from None
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold integer counts, got dtype {arr.dtype}")
    if arr.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} axis(es), got shape {arr.shape}")
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all():
            raise ValueError(f"{name} holds NaN or infinite entries")
        if (arr != np.floor(arr)).any():
            raise ValueError(f"{name} must hold whole numbers, got fractional entries")
        if arr.size and np.abs(arr).max() >= 2.0**62:
            raise ValueError(f"{name} holds entries too large for int64 counts")
    elif arr.dtype.kind == "u" and arr.size and arr.max() >= 2**63:
        raise ValueError(f"{name} holds entries too large for int64 counts")
    if arr.size and arr.min() < 0:
        raise ValueError(f"{name} must hold non-negative counts, got a negative entry")
    out = np.array(arr, dtype=np.int64)  # a copy: the caller's array stays theirs
    out.setflags(write=False)
    return out


def _check_vocabulary(vocabulary: Any) -> tuple[str, ...]:
    return tuple(sorted(property_names(vocabulary)))


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


class _FrozenAfterInit(type):
    """Metaclass of the models: an instance is frozen once its class's ``__init__`` returns."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        obj = super().__call__(*args, **kwargs)
        _readonly_state(obj.__dict__)
        obj.__dict__["_frozen"] = True
        return obj


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
    towards 1 (module docstring)."""
    d_max: int
    """Largest difference ``d = f¹ − f⁰`` of one coupled flip: at δ = 0 the largest quantile
    difference over all levels and secret pairs (``N`` for a bucket with an unobserved side or
    the Markov quilt), at δ > 0 the high end of the hull of the per-pair windows; the metric uses
    ``max(d_max, 1)``."""
    flip_bound: int
    """The most edges whose property ``a`` differs between the two coupled labellings of one
    secret: the central edge plus ``|d − 1|`` neighbours (module docstring). At δ = 0 it is
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


# What ``source=`` asserts, in the docstring of each single-model ``fit`` (``{source}``).
_SOURCE_PARAGRAPH = """``source`` (keyword-only; module docstring, *Source*) states where ``graph`` comes from.
        ``"private"`` (the default): it is the graph whose labels will be released, or derived from
        it; the model has ``data_dependent = True`` and :meth:`~CorrelationModel.summary` warns
        that a release is ε-Pufferfish only for this fitted model's attackers and that ``W`` is
        disclosed unprotected. ``"public"``: **your assertion**, not checked, that ``graph`` is
        public or independent of the private data to be released (an earlier public snapshot, an
        auxiliary or synthetic graph); the model has ``data_dependent = False``, ``fitted_on`` and
        ``summary()`` say "asserted public by the caller". If the assertion is false the model is a
        function of the private data and the guarantee is exactly that of a ``"private"`` fit —
        ε-Pufferfish for this fitted model's attackers only, ``W`` disclosed unprotected, no DP
        guarantee for the choice of model — only without the warning. Any other value:
        ``ValueError``."""


def _documents_source(fit):
    """Put ``_SOURCE_PARAGRAPH`` where ``fit``'s docstring says ``{source}``."""
    fit.__doc__ = fit.__doc__.replace("{source}", _SOURCE_PARAGRAPH)
    return fit


class CorrelationModel(metaclass=_FrozenAfterInit):
    """Base class: a model ``M`` defines the attacker class ``Θ_M`` (module docstring).

    Subclasses set ``name``, ``fitted_on``, ``data_dependent`` and implement ``_report()``.
    Instances are immutable once constructed (module docstring, *Immutability*): assigning or
    deleting an attribute raises ``AttributeError``, and their arrays are read-only.
    """

    name = "model"
    attacker = ""
    fitted_on: str
    """Where the model's parameters came from, in words (for a fit, what its ``source=`` stated:
    module docstring, *Source*). A label for people, not checked."""
    data_dependent: bool
    """``True`` iff the model is marked as a function of the private data: a fit with
    ``source="private"`` (the default), or a constructor called with ``data_dependent=True``.
    ``False`` is a fact for the baselines and :meth:`BinomialModel.fit_dp` (no private label
    is read without protection), and the caller's assertion otherwise (``source="public"``, or
    parameters supplied to a constructor); :meth:`summary` says which."""
    vocabulary: tuple[str, ...] | None = None
    """The properties the model describes, or ``None``: every property (module docstring,
    *Vocabulary*). Under :func:`~.metric.pufferfish_distance` the label queries read only these."""

    # ------------------------------------------------------------------ immutability
    def __setattr__(self, name: str, value: Any) -> None:
        if self.__dict__.get("_frozen", False):
            raise AttributeError(
                f"{type(self).__name__} is immutable: its W is cached and carried by every metric built from it; "
                "construct a new model instead"
            )
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if self.__dict__.get("_frozen", False):
            raise AttributeError(f"{type(self).__name__} is immutable")
        object.__delattr__(self, name)

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

    def __getstate__(self) -> dict[str, Any]:
        return self._state(portable=True)

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        if isinstance(state.get("fit_details"), Mapping):
            state["fit_details"] = types.MappingProxyType(dict(state["fit_details"]))
        _readonly_state(state)
        self.__dict__.update(state)

    def __deepcopy__(self, memo: dict) -> "CorrelationModel":
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
        model is immutable (module docstring).
        """
        delta = check_delta(delta)
        if delta == 0.0:
            cached = self.__dict__.get("_report_cache")
            if cached is None:
                cached = self._report()
                self.__dict__["_report_cache"] = cached
            return cached
        by_delta = self.__dict__.get("_report_cache_delta")
        if by_delta is None:
            by_delta = {}
            self.__dict__["_report_cache_delta"] = by_delta  # the frozen __setattr__ is bypassed, as above
        cached = by_delta.get(delta)
        if cached is None:
            cached = self._report_delta(delta)
            by_delta[delta] = cached
        return cached

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
        :func:`~.metric.pufferfish_distance` refuse it (module docstring, *Coverage*)."""
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
        caller", and what holds if that is false — module docstring, *Source*); and for a DP fit
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
        self.W = self.F = self.lo = self.hi = None

    def add(self, b: DeltaBounds) -> None:
        if self.W is None:
            self.W, self.F, self.lo, self.hi = b.W, b.flip_bound, b.d_min, b.d_max
        else:
            self.W, self.F = max(self.W, b.W), max(self.F, b.flip_bound)
            self.lo, self.hi = min(self.lo, b.d_min), max(self.hi, b.d_max)

    def report(self, rows: list[dict[str, Any]], cdfs: dict, delta: float) -> WassersteinReport:
        if self.W is None:  # nothing constrained (every bucket ignored): as at δ = 0
            return WassersteinReport(1, 1, 1, 1, rows, cdfs, delta)
        return WassersteinReport(self.W, self.lo, self.hi, self.F, rows, cdfs, delta)


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
        self.provenance = _check_text(provenance, "provenance")
        self.p0_range = self._interval(p0, "p0")
        self.p1_range = self._interval(p1, "p1")
        if isinstance(neighbour_counts, (str, bytes)) or np.isscalar(neighbour_counts):
            raise TypeError("neighbour_counts must be a collection of non-negative integers (e.g. range(20))")
        if isinstance(neighbour_counts, range):
            neighbour_counts = list(neighbour_counts)
        nbs = np.unique(_count_array(neighbour_counts, "neighbour_counts", 1))
        if nbs.size == 0:
            raise ValueError("neighbour_counts must be a non-empty collection of non-negative integers")
        nbs.setflags(write=False)
        self.neighbour_counts = nbs
        self.fitted_on = _check_text(fitted_on, "fitted_on")
        self.data_dependent = _check_flag(data_dependent, "data_dependent")
        if fit_details is not None and not isinstance(fit_details, Mapping):
            raise TypeError(f"fit_details must be a mapping or None, got {type(fit_details).__name__}")
        self.fit_details = types.MappingProxyType(dict(fit_details or {}))

    @staticmethod
    def _interval(p: Any, name: str) -> tuple[float, float]:
        """A probability, or an interval ``(lo, hi)`` of them, as two floats; refuses NaN,
        bools, strings and anything outside ``[0, 1]`` or with ``lo > hi``."""
        problem = f"{name} must be a probability (or an interval lo <= hi in [0, 1]), got {p!r}"

        def number(x: Any) -> float:
            if isinstance(x, (bool, np.bool_)) or not isinstance(x, Real):
                raise TypeError(problem)
            return float(x)

        if isinstance(p, (str, bytes)):
            raise TypeError(problem)
        if np.isscalar(p) or isinstance(p, Real):
            lo = hi = number(p)
        else:
            try:
                pair = tuple(p)
            except TypeError:
                raise TypeError(problem) from None
            if len(pair) != 2:
                raise ValueError(problem)
            lo, hi = number(pair[0]), number(pair[1])
        if not (0.0 <= lo <= hi <= 1.0):  # false for NaN
            raise ValueError(problem)
        return lo, hi

    @property
    def p0(self) -> float:
        return self.p0_range[0] if self.p0_range[0] == self.p0_range[1] else float(np.mean(self.p0_range))

    @property
    def p1(self) -> float:
        return self.p1_range[0] if self.p1_range[0] == self.p1_range[1] else float(np.mean(self.p1_range))

    @classmethod
    @_documents_source
    def fit(cls, graph: Graph, *, source: str = "private", progress: Any = None) -> "BinomialModel":
        """Estimate ``p0, p1`` exactly from every (edge, property) pair of ``graph``.

        ``p1 = Σ_{e∋a} (#neighbours of e with a) / Σ_{e∋a} nb_e`` and
        ``p0 = Σ_{e∌a} (#neighbours with a) / Σ_{e∌a} nb_e`` (sums over all properties of the
        vocabulary).

        {source}

        ``progress`` (fit and, later, ``W``): see :mod:`opendp_graph.core._progress`.
        """
        g = _check_graph(graph)
        fitted_on, dependent = _check_source(source)
        st = _neighbourhood_stats(g, progress=progress)  # checks progress before any work
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
        """True iff every edge's number of adjacent edges is in ``neighbour_counts``: the law of
        ``f`` depends on that number, and ``W`` was computed for those sizes only."""
        return bool(np.isin(self._closed_sizes(_check_structure(graph)) - 1, self.neighbour_counts).all())

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
            rows.append({"neighbours": n, "neighbourhood": n + 1, "d_min": b.gaps.d_min, "d_max": b.gaps.d_max,
                         "W_inf": b.w_infinity, "skipped": False, **_delta_columns(b)})
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


# --------------------------------------------------------------------------- empirical models
class _EmpiricalModel(CorrelationModel):
    """Histograms of ``f`` given ``s⁰`` / ``s¹`` per (frequency bucket, size bucket).

    The constructor checks what the guarantee rests on: counts are non-negative whole numbers
    (floats only if integral; never NaN), and every count is feasible for its neighbourhood —
    given ``s⁰`` at most ``N − 1`` of the other edges carry the property, given ``s¹`` between 1
    and ``N`` edges do (``N`` = the bucket's largest neighbourhood).
    """

    _HIST_AXES = 1

    def __init__(self, hist0: Any, hist1: Any, max_size: Any, base: float, *, fitted_on: str, data_dependent: bool):
        self.hist0 = _count_array(hist0, "hist0", self._HIST_AXES)
        self.hist1 = _count_array(hist1, "hist1", self._HIST_AXES)
        self.max_size = self._check_max_size(max_size)
        self.base = _check_base(base)
        self.fitted_on = _check_text(fitted_on, "fitted_on")
        self.data_dependent = _check_flag(data_dependent, "data_dependent")
        sizes = self.max_size if self._HIST_AXES > 1 else self.max_size[:1]
        for name, h, low, high in (("hist0", self.hist0, 0, sizes - 1), ("hist1", self.hist1, 1, sizes)):
            h = h.reshape((-1,) + h.shape[-2:]) if h.ndim > 1 else h.reshape(1, 1, -1)
            k = np.arange(h.shape[-1])
            outside = (k[None, :] < low) | (k[None, :] > np.asarray(high).reshape(-1, 1))
            if outside.shape[0] != h.shape[1]:
                raise ValueError(f"max_size has {outside.shape[0]} size bucket(s) but {name} has {h.shape[1]}")
            if h[:, outside].any():
                side = "s⁰ (f ≤ N − 1)" if low == 0 else "s¹ (1 ≤ f ≤ N)"
                raise ValueError(
                    f"{name} counts secrets whose f is infeasible given {side} for its neighbourhood size N (max_size)"
                )

    def _check_max_size(self, max_size: Any) -> np.ndarray:  # pragma: no cover - subclasses override
        raise NotImplementedError

    def _content(self) -> list[Any]:
        return [self.hist0, self.hist1, self.max_size, self.base, self.data_dependent]


def _bucket_gaps(h0: np.ndarray, h1: np.ndarray, max_n: int) -> tuple[QuantileGaps, bool]:
    """Quantile gaps of one bucket; a bucket whose s⁰ or s¹ side was never observed gets the
    trivial range ``[2 − N, N]`` (any laws on ``[0, N−1]`` and ``[1, N]``), flagged ``False``."""
    if h0.sum() == 0 or h1.sum() == 0:
        return QuantileGaps(2 - max_n, max_n), False
    k0, k1 = np.flatnonzero(h0).max(), np.flatnonzero(h1).max()
    return quantile_gap_range(h0[: k0 + 1], h1[: k1 + 1]), True


def _bucket_delta(h0: np.ndarray, h1: np.ndarray, max_n: int, delta: float) -> tuple[DeltaBounds, bool]:
    """:func:`.coupling.delta_bounds` of one bucket (exact: integer histograms). An unobserved
    bucket keeps its trivial δ = 0 values at every δ < 1: its attacker may hold *any* laws on
    ``[0, N−1]`` and ``[1, N]``, among them the point masses at ``0`` and ``N`` (``d ≡ N``) and
    at ``N − 1`` and ``1`` (``d ≡ 2 − N``), which no coupling brings into a smaller window
    except with probability 1."""
    gaps, observed = _bucket_gaps(h0, h1, max_n)
    if not observed:
        return DeltaBounds(gaps.w_infinity, gaps.d_min, gaps.d_max, flip_bound(*gaps), delta, gaps), False
    k0, k1 = np.flatnonzero(h0).max(), np.flatnonzero(h1).max()
    return delta_bounds(h0[: k0 + 1], h1[: k1 + 1], delta), True


class GlobalModel(_EmpiricalModel):
    """The Global model (paper 001 §4.3.2): the empirical law of ``f`` given ``s⁰`` and given
    ``s¹``, pooled over every (edge, property) pair of the fitting graph. ``W = W∞`` between the
    two pooled laws (clipping them to any edge's feasible range can only lower it).

    ``GlobalModel(hist0, hist1, max_size, base, fitted_on=..., data_dependent=...)``: ``hist0[f]``
    / ``hist1[f]`` count the secrets ``s⁰`` / ``s¹`` with statistic ``f``; ``max_size`` is the
    largest closed neighbourhood of the fitting graph (a whole number, or a one-element array).

    **Coverage** (:meth:`covers`): closed neighbourhoods of at most ``max_size`` edges. The
    pooled law was measured over neighbourhoods of those sizes; on a smaller one it is clipped to
    the feasible range (module docstring). An edge with a larger neighbourhood has feasible values
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
    @_documents_source
    def fit(cls, graph: Graph, *, source: str = "private", progress: Any = None) -> "GlobalModel":
        """Exact histograms over all ``E × P`` secrets (see :mod:`._stats`).

        {source}

        ``progress``: see :mod:`opendp_graph.core._progress`.
        """
        g = _check_graph(graph)
        fitted_on, dependent = _check_source(source)
        st = _neighbourhood_stats(g, progress=progress)
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

    def _check_max_size(self, max_size: Any) -> np.ndarray:
        arr = _count_array(np.reshape(max_size, -1) if np.ndim(max_size) <= 1 else max_size, "max_size", 1)
        if arr.size != 1:
            raise ValueError(f"max_size of a GlobalModel is one number (the largest closed neighbourhood), got {arr.size}")
        return arr

    def covers(self, graph: Graph) -> bool:
        """True iff no closed neighbourhood of ``graph`` has more than ``max_size`` edges (the
        class docstring says why larger ones are not described)."""
        return bool((self._closed_sizes(_check_structure(graph)) <= int(self.max_size[0])).all())

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
        between 1 and the unclipped one (module docstring), so every window containing 1 —
        ``[2 − F_δ, F_δ]``, and the metric's hull of ``[d_min, d_max]`` with 1 — stays valid
        with the same failure probability."""
        base = self.wasserstein()
        b, _ = _bucket_delta(self.hist0, self.hist1, int(self.max_size.max()), delta)
        hull = _Hull()
        hull.add(b)
        return hull.report([{**base.table[0], **_delta_columns(b)}], dict(base.cdfs), delta)

    def _repr_fields(self) -> str:
        return f"secrets_s0={int(self.hist0.sum())}, secrets_s1={int(self.hist1.sum())}"


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
        self.pairs = _count_array(pairs, "pairs", 2)
        if self.pairs.shape != self.hist0.shape[:2]:
            raise ValueError(f"pairs must have shape {self.hist0.shape[:2]} (frequency buckets, size buckets), got {self.pairs.shape}")
        if not np.array_equal(self.pairs, self.hist0.sum(axis=2) + self.hist1.sum(axis=2)):
            raise ValueError("pairs must count the secrets of each bucket: hist0 and hist1 summed over f")
        self.vocabulary = _check_vocabulary(vocabulary)
        self._check_pairs_against_vocabulary()
        from ._stats import log_bucket

        filled = np.flatnonzero(self.max_size)
        if (log_bucket(self.max_size[filled], self.base) != filled).any():
            raise ValueError("max_size[b] must be 0 or a neighbourhood size in log bucket b (floor(log_base(size)) == b)")
        self.unobserved = self._check_unobserved(unobserved)

    def _check_max_size(self, max_size: Any) -> np.ndarray:
        return _count_array(max_size, "max_size", 1)

    def _check_pairs_against_vocabulary(self) -> None:
        """``pairs[fb, sb]`` = (properties in ``fb``) × (edges in ``sb``), with ``len(vocabulary)``
        properties in all: otherwise some property of the vocabulary would have no bucket."""
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
        if not isinstance(unobserved, str) or unobserved not in cls._UNOBSERVED:
            raise ValueError(f"unobserved must be one of {cls._UNOBSERVED}, got {unobserved!r}")
        return unobserved

    @classmethod
    def fit(
        cls, graph: Graph, *, base: float = 10.0, source: str = "private", unobserved: str = "bound", progress: Any = None
    ) -> "ConditionalModel":
        """Exact per-bucket histograms (see :mod:`._stats`); ``base`` of the log buckets. The
        model's :attr:`vocabulary` is ``graph.vocabulary``.

        ``unobserved`` says what a bucket whose ``s⁰`` or ``s¹`` side was never observed gets:
        ``"bound"`` (default) the trivial bound (the bucket's largest neighbourhood), or
        ``"ignore"``: no constraint — the fitted attacker gives the unobserved secret zero prior
        probability, and Pufferfish privacy only constrains pairs of secrets that both have
        positive probability (Definition 2.3). ``"ignore"`` is thus exactly as strong as the
        model's belief that such secrets cannot occur.

        ``source`` (keyword-only; module docstring, *Source*) states where ``graph`` comes from.
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
        g = _check_graph(graph)
        base = _check_base(base)
        fitted_on, dependent = _check_source(source)
        cls._check_unobserved(unobserved)  # before the expensive pass
        st = _neighbourhood_stats(g, base=base, progress=progress)
        return cls._from_stats(st, fitted_on, dependent, g.vocabulary, unobserved)

    @classmethod
    def _from_stats(
        cls, st: NeighbourhoodStats, fitted_on: str, dependent: bool, vocabulary: tuple[str, ...], unobserved: str = "bound"
    ) -> "ConditionalModel":
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
        from ._stats import log_bucket

        sizes = self._closed_sizes(_check_structure(graph))
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
        return (
            f"base={self.base:g}, buckets={tuple(self.hist0.shape[:2])}, properties={len(self.vocabulary)}, "
            f"unobserved={self.unobserved!r}"
        )


# --------------------------------------------------------------------------- baselines
class EdgeLevelModel(CorrelationModel):
    """Baseline: independent edges (plain edge-level confidentiality). Flipping ``(i, a)``
    changes only edge ``i``: ``d ≡ 1``, ``W = 1``, one edge flips.

    Covers every structure: its attacker believes the other edges' properties independent of the
    secret whatever the neighbourhood, so ``f¹ − f⁰ = 1`` (the central edge) for every secret of
    every graph; nothing was fitted that a structure could fall outside of. No vocabulary
    restriction: the same holds for every property.
    """

    name = "Edge-level"
    attacker = "believes edges' properties are independent (no correlation): ordinary edge-level privacy"
    fitted_on = "nothing (no parameters)"
    data_dependent = False
    provenance = "none"

    def covers(self, graph: Graph) -> bool:
        """Always true (class docstring)."""
        _check_structure(graph)
        return True

    def _report(self) -> WassersteinReport:
        return WassersteinReport(1, 1, 1, 1, [{"d_min": 1, "d_max": 1, "W_inf": 1}], {})

    def _report_delta(self, delta: float) -> WassersteinReport:
        """Unchanged at every δ < 1: ``d ≡ 1`` surely (point masses one apart), and no coupling
        puts it in a window without 1 except with probability 1."""
        gaps = QuantileGaps(1, 1)
        b = DeltaBounds(1, 1, 1, 1, delta, gaps)
        return WassersteinReport(1, 1, 1, 1, [{"d_min": 1, "d_max": 1, "W_inf": 1, **_delta_columns(b)}], {}, delta)

    def _content(self) -> list[Any]:
        return []

    def _repr_fields(self) -> str:
        return ""


class MarkovQuiltModel(CorrelationModel):
    """Baseline: the Markov-quilt mechanism with the trivial quilt (paper 001 §4.2 (3); Song
    et al. Theorem 4.3), equivalently group privacy over the largest closed neighbourhood:
    any law of ``f`` on ``[0, N−1]`` vs ``[1, N]`` with ``N = 2·Dmax − 1``, so ``d ∈ [2 − N, N]``,
    ``W = N`` and up to ``N`` edges flip. Reads only the public structure.

    Covers the structures whose closed neighbourhoods have at most ``N`` edges (larger ones
    allow more flips than ``N``). No vocabulary restriction: any law, for any property.
    """

    name = "Markov quilt (trivial)"
    attacker = "any correlation confined to an edge's closed neighbourhood (trivial Markov quilt, δ = 0)"
    data_dependent = False
    provenance = "structure"

    def __init__(self, max_neighbourhood: int, *, fitted_on: str | None = None) -> None:
        self.max_neighbourhood = positive_integer("max_neighbourhood", max_neighbourhood)
        self.fitted_on = fitted_on or f"a stated bound: closed neighbourhoods of at most {self.max_neighbourhood} edges"

    @classmethod
    def for_graph(cls, graph: Graph) -> "MarkovQuiltModel":
        """The paper's baseline (paper 001 §4.2 (3)): ``N = 2·Dmax − 1`` from the (public)
        structure of ``graph``, an upper bound of every closed neighbourhood (``deg u + deg v − 1``).
        Kept to reproduce the paper; :meth:`for_structure` is the tight one."""
        _check_structure(graph)
        return cls(max(2 * graph.max_degree - 1, 1), fitted_on="the public graph structure (paper's bound 2·Dmax − 1)")

    @classmethod
    def for_structure(cls, graph: Graph) -> "MarkovQuiltModel":
        """The tight structural baseline: ``N`` = the largest closed neighbourhood of the public
        structure, ``max over edges {u, v} of deg u + deg v − 1`` (at most the paper's
        ``2·Dmax − 1``; 837 against 1,319 on a real reply log whose two busiest people are not
        adjacent). The guarantee is the same group privacy over any closed neighbourhood: it
        covers exactly the structures whose neighbourhoods have at most ``N`` edges, this one
        included. Reads only the public structure.

        >>> import opendp_graph as dpg
        >>> star_and_path = dpg.Graph.from_edges([0, 0, 0, 4], [1, 2, 3, 5], num_nodes=6)
        >>> dpg.pufferfish.MarkovQuiltModel.for_structure(star_and_path).W, dpg.pufferfish.MarkovQuiltModel.for_graph(star_and_path).W
        (3, 5)
        """
        g = _check_structure(graph)
        largest = int(cls._closed_sizes(g).max()) if g.num_edges else 1
        return cls(max(largest, 1), fitted_on="the public graph structure (its largest closed neighbourhood)")

    def covers(self, graph: Graph) -> bool:
        """True iff every closed neighbourhood has at most ``N`` edges."""
        return bool((self._closed_sizes(_check_structure(graph)) <= self.max_neighbourhood).all())

    def _report(self) -> WassersteinReport:
        n = self.max_neighbourhood
        return WassersteinReport(n, 2 - n, n, n, [{"max_neighbourhood": n, "d_min": 2 - n, "d_max": n, "W_inf": n}], {})

    def _report_delta(self, delta: float) -> WassersteinReport:
        """Unchanged at every δ < 1: the attacker class holds *every* pair of laws on ``[0, N−1]``
        and ``[1, N]``, among them point masses with ``d ≡ N`` and with ``d ≡ 2 − N``; a point
        pair fails any window without its difference with probability 1 > δ. So ``W_δ = N``, the
        window is ``[2 − N, N]`` and ``F_δ = N``, as at δ = 0."""
        n = self.max_neighbourhood
        b = DeltaBounds(n, 2 - n, n, n, delta, QuantileGaps(2 - n, n))
        row = {"max_neighbourhood": n, "d_min": 2 - n, "d_max": n, "W_inf": n, **_delta_columns(b)}
        return WassersteinReport(n, 2 - n, n, n, [row], {}, delta)

    def _content(self) -> list[Any]:
        return [self.max_neighbourhood]

    def _repr_fields(self) -> str:
        return f"max_neighbourhood={self.max_neighbourhood}"


def fit_all(graph: Graph, *, base: float = 10.0, source: str = "private", progress: Any = None) -> dict[str, CorrelationModel]:
    """The three models from one pass of :func:`._stats.neighbourhood_stats` (shared work):
    ``{"Binomial": ..., "Global": ..., "Conditional": ...}``, each equal to its own ``fit`` with
    the same arguments.

    ``source`` (keyword-only; module docstring, *Source*) states where ``graph`` comes from.
    ``"private"`` (the default): it is the graph whose labels will be released, or derived from it;
    every model has ``data_dependent = True`` and :meth:`~CorrelationModel.summary` warns that a
    release is ε-Pufferfish only for this fitted model's attackers and that ``W`` (and the
    Conditional model's vocabulary) is disclosed unprotected. ``"public"``: **your assertion**, not
    checked, that ``graph`` is public or independent of the private data to be released (an earlier
    public snapshot, an auxiliary or synthetic graph); every model has ``data_dependent = False``,
    ``fitted_on`` and ``summary()`` say "asserted public by the caller". If the assertion is false
    the model is a function of the private data and the guarantee is exactly that of a
    ``"private"`` fit — ε-Pufferfish for this fitted model's attackers only, ``W`` (and the
    Conditional model's vocabulary) disclosed unprotected, no DP guarantee for the choice of model
    — only without the warning. Any other value: ``ValueError``.

    ``progress`` (the shared pass, and later the Binomial ``W``): ``None`` shows a progress line on
    an interactive terminal once a stage has run two seconds (silent in pipes and tests);
    ``True``/``False`` force it on/off; a callable receives ``(stage, done, total)``
    (:mod:`opendp_graph.core._progress`).
    """
    g = _check_graph(graph)
    base = _check_base(base)
    fitted_on, dependent = _check_source(source)
    st = _neighbourhood_stats(g, base=base, progress=progress)
    return {
        "Binomial": BinomialModel._from_stats(st, fitted_on, dependent, progress),
        "Global": GlobalModel._from_stats(st, fitted_on, dependent),
        "Conditional": ConditionalModel._from_stats(st, fitted_on, dependent, g.vocabulary),
    }
