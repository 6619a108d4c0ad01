"""Argument checks shared by the correlation models' constructors and fits.

One wording for one kind of mistake; the checks shared with the rest of the package (positive
integers, property names, "not a graph") live in :mod:`opendp_graph.core._checks` and are reused here.
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Any

import numpy as np

from ...core._checks import not_a_graph, property_names
from ...core._distributed import DistributedGraph
from ...core.graph import Graph

__all__ = [
    "SOURCES",
    "PUBLIC_FIT",
    "check_source",
    "SOURCE_PARAGRAPH",
    "documents_source",
    "check_structure",
    "check_graph",
    "check_base",
    "check_text",
    "check_flag",
    "check_choice",
    "probability_interval",
    "count_array",
    "sorted_vocabulary",
]

SOURCES = ("private", "public")
PUBLIC_FIT = "a graph asserted public by the caller (source='public'; not checked)"


def check_source(source: Any) -> tuple[str, bool]:
    """``(fitted_on, data_dependent)`` for a fit's ``source=`` (:doc:`/guarantees`, *Source*)."""
    if not isinstance(source, str) or source not in SOURCES:
        raise ValueError(
            "source must be 'private' (the default: the graph whose labels you will release, or one derived from it) "
            f"or 'public' (your assertion that the fitting graph is public, independent of the private data), got {source!r}"
        )
    if source == "private":
        return "the private graph itself: the noise scale depends on the private data", True
    return PUBLIC_FIT, False


# What ``source=`` asserts, in the docstring of each single-model ``fit`` (``{source}``).
SOURCE_PARAGRAPH = """``source`` (keyword-only; :doc:`/guarantees`, *Source*) states where ``graph`` comes from.
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


def documents_source(fit):
    """Put ``SOURCE_PARAGRAPH`` where ``fit``'s docstring says ``{source}``."""
    fit.__doc__ = (fit.__doc__ or "").replace("{source}", SOURCE_PARAGRAPH)  # None under python -OO
    return fit


def check_structure(graph: Any) -> Graph | DistributedGraph:
    """A :class:`~opendp_graph.Graph`, or a graph kept by a distributed engine
    (:mod:`opendp_graph.spark`), which answers the same statistics as aggregates."""
    if not isinstance(graph, (Graph, DistributedGraph)):
        raise TypeError(not_a_graph(graph))
    return graph


def check_graph(graph: Any) -> Graph:
    """A labeled graph (:func:`check_structure`, with edge properties)."""
    check_structure(graph)
    if not graph.is_labeled:
        raise ValueError("the correlation models need a labeled graph (edge properties)")
    return graph


def check_base(base: Any) -> float:
    """The base of the log buckets: a finite number > 1 (not a bool), as a float."""
    if isinstance(base, (bool, np.bool_)) or not isinstance(base, Real) or not math.isfinite(base) or base <= 1:
        raise ValueError(f"base must be a finite number > 1, got {base!r}")
    return float(base)


def check_text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {type(value).__name__}")
    return value


def check_flag(value: Any, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_choice(value: Any, name: str, allowed: tuple[str, ...]) -> str:
    """One of the strings ``allowed``."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def probability_interval(p: Any, name: str) -> tuple[float, float]:
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


def count_array(value: Any, name: str, ndim: int) -> np.ndarray:
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


def sorted_vocabulary(vocabulary: Any) -> tuple[str, ...]:
    """A model's vocabulary: distinct property names (:func:`opendp_graph.core._checks.property_names`), sorted."""
    return tuple(sorted(property_names(vocabulary)))
