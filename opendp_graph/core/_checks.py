"""Argument checks shared by the constructors (one wording for one kind of mistake).

Constructors check their public arguments before any private data is touched; a bool is never
accepted as an integer (``True`` is an ``int`` in Python, and ``k=True`` is always a mistake).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from numbers import Integral, Real
from typing import Any

__all__ = [
    "float_at_most",
    "integer_at_least",
    "not_a_graph",
    "positive_integer",
    "positive_finite",
    "open_probability",
]


def float_at_most(value: float | Real) -> float:
    """The largest float not above the real number ``value``: a privacy parameter (a ``Fraction``,
    a wide integer, a numpy number) as a float that never claims more than was asked.

    >>> from fractions import Fraction
    >>> float_at_most(Fraction(1, 10)) < Fraction(1, 10) < float(Fraction(1, 10))
    True
    >>> float_at_most(0.25)
    0.25
    """
    result = float(value)
    return math.nextafter(result, -math.inf) if result > value else result


def integer_at_least(name: str, value: Any, minimum: int) -> int:
    """``int(value)`` if ``value`` is an integer (not a bool) ``>= minimum``.

    >>> integer_at_least("theta", 3, 1)
    3
    >>> integer_at_least("theta", 0, 1)
    Traceback (most recent call last):
    ...
    ValueError: theta must be at least 1, got 0
    """
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return int(value)


def positive_integer(name: str, value: Any) -> int:
    """``int(value)`` if ``value`` is an integer (not a bool) ``>= 1``.

    >>> positive_integer("k", 2)
    2
    >>> positive_integer("k", 2.0)
    Traceback (most recent call last):
    ...
    TypeError: k must be a positive integer, got 2.0
    """
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be a positive integer, got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value}")
    return int(value)


def positive_finite(name: str, value: Any) -> float:
    """``float(value)`` if ``value`` is a real number (not a bool), finite and ``> 0``.

    >>> positive_finite("epsilon", 0.5)
    0.5
    >>> positive_finite("epsilon", float("nan"))
    Traceback (most recent call last):
    ...
    ValueError: epsilon must be a positive finite number, got nan
    """
    result = None
    try:
        # `not value <= 0`: the numbers ABC promises only < and <= (and value is finite here)
        if not isinstance(value, bool) and isinstance(value, Real) and math.isfinite(value) and not value <= 0:
            result = float(value)
    except OverflowError:  # an integer beyond the floats
        pass
    if result is None:
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return result


def positive_budget(name: str, value: Any) -> float:
    """A privacy budget (``ε`` or ``ρ``) as the largest float not above it, after the checks of
    :func:`positive_finite`: an exact ``Fraction(1, 10)`` becomes the float just below 1/10, so a
    release calibrated to it never spends more than was given.

    >>> from fractions import Fraction
    >>> positive_budget("epsilon", Fraction(1, 10)) < Fraction(1, 10)
    True
    """
    positive_finite(name, value)
    result = float_at_most(value)
    if result <= 0:
        raise ValueError(f"{name} must be a positive finite number, got {value!r} (below the smallest float)")
    return result


def budget_share(name: str, value: Any) -> float:
    """``float(value)`` if it is a finite real number in ``(0, 1)``: the part of a budget one
    step of a release spends (its other steps get the rest).

    >>> budget_share("selection_share", 1.0)
    Traceback (most recent call last):
    ...
    ValueError: selection_share must be below 1, got 1.0
    """
    share = positive_finite(name, value)
    if share >= 1:
        raise ValueError(f"{name} must be below 1, got {value!r}")
    return share


def open_probability(name: str, value: Any) -> float:
    """``float(value)`` if ``value`` is a real number (not a bool) in ``(0, 1)``.

    >>> open_probability("beta", 1.0)
    Traceback (most recent call last):
    ...
    ValueError: beta must be in (0, 1), got 1.0
    """
    # not 0 < value < 1, with value on the left (the numbers ABC promises only < and <=; NaN is refused)
    if isinstance(value, bool) or not isinstance(value, Real) or value <= 0 or not value < 1:
        raise ValueError(f"{name} must be in (0, 1), got {value!r}")
    result = float_at_most(value)  # a Fraction just below 1e-6 (or 1) must not become it (red team)
    if not 0 < result < 1:
        raise ValueError(f"{name} must be in (0, 1) as a float, got {value!r}")
    return result


# Types callers often pass where a Graph is expected, keyed by top-level package, with the converter
# to suggest. Classes are named by the package's public name (``networkx.Graph``, not
# ``networkx.classes.graph.Graph``) for these packages, which re-export them at the top level.
_CONVERTERS = {
    "networkx": ("dpg.Graph.from_networkx(g)", ("Graph", "DiGraph", "MultiGraph", "MultiDiGraph")),
    "polars": ("dpg.polars.graph_from_polars(frame, src=..., dst=..., nodes=public_people)", ("DataFrame", "LazyFrame")),
}


def not_a_graph(value: Any) -> str:
    """The message for a value that should have been an :class:`opendp_graph.Graph`: the value's
    module-qualified type and, for a NetworkX graph or a Polars frame, the converter to use.

    Reads only ``type(value)`` (never the value itself), so the message reveals nothing about the
    data; imports neither NetworkX nor Polars.

    >>> not_a_graph([(0, 1)])
    'expected an opendp_graph.Graph, got list'
    >>> import networkx as nx
    >>> not_a_graph(nx.Graph())
    'expected an opendp_graph.Graph, got networkx.Graph; convert it with dpg.Graph.from_networkx(g)'
    """
    cls = type(value)
    module = getattr(cls, "__module__", None) or ""
    name = getattr(cls, "__qualname__", None) or cls.__name__
    top = module.partition(".")[0]
    message = "expected an opendp_graph.Graph, got "
    if top in _CONVERTERS:
        hint, only = _CONVERTERS[top]
        message += f"{top}.{name}"
        if name in only:
            message += f"; convert it with {hint}"
        return message
    return message + (name if module in ("", "builtins") else f"{module}.{name}")


# OpenDP's names of the integer types (a domain's carrier), for "is this data integer?"
OPENDP_INTEGER_TYPES = frozenset({"i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize"})


def check_label_names(names: Any, what: str = "a label") -> None:
    """Refuse property names that OpenDP cannot carry as distinct keys: OpenDP passes a count
    map's keys to its core as NUL-terminated UTF-8, so a name with a NUL character is cut at it
    (``"a\x00x"`` and ``"a\x00y"`` would both become ``"a"`` and overwrite each other's count,
    breaking every stability map), and a name that is not valid Unicode (a lone surrogate, as
    ``errors="surrogateescape"`` decoding leaves) cannot be encoded at release time. The message
    does not repeat the name (labels may be private)."""
    for name in names:
        if "\x00" in name:
            raise ValueError(
                f"{what} contains a NUL character ('\\x00'): OpenDP cuts its string keys at NUL, so two such labels "
                "would merge; remove or replace NUL characters first"
            )
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(
                f"{what} is not valid Unicode (a lone surrogate, e.g. from errors='surrogateescape'): OpenDP needs "
                "UTF-8 strings; decode the source with errors='replace' or fix its encoding first"
            ) from None


def property_names(value: Any) -> tuple[str, ...]:
    """A public vocabulary: a sequence (not a string or a mapping) of distinct strings, as a tuple
    in the given order.

    >>> property_names(["gas", "power"])
    ('gas', 'power')
    >>> property_names("gas")
    Traceback (most recent call last):
    ...
    TypeError: vocabulary must be a sequence of strings (a public list of properties)
    """
    if value is None or isinstance(value, (str, bytes, Mapping)):
        raise TypeError("vocabulary must be a sequence of strings (a public list of properties)")
    if isinstance(value, (set, frozenset)):
        # its order (the output positions, the per-edge priority) would change from run to run
        raise TypeError("vocabulary must be an ordered sequence of strings, not a set (use sorted(...) or a priority list)")
    vocab = tuple(value)
    for w in vocab:
        if not isinstance(w, str):
            raise TypeError("vocabulary entries must be strings")  # never the entry: a vocabulary may describe private labels
    if len(set(vocab)) != len(vocab):
        raise ValueError("vocabulary has duplicate entries")
    check_label_names(vocab, "a vocabulary entry")
    return vocab


def utc_datetime(name: str, value: Any):
    """``value`` (a ``datetime`` or an ISO date string; naive means UTC) as an aware UTC
    ``datetime``; a ``ValueError``/``TypeError`` naming ``name`` otherwise."""
    from datetime import datetime, timezone

    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(f"{name} must be an ISO date or datetime, got {value!r}") from None
    if not isinstance(value, datetime):
        raise TypeError(f"{name} must be a datetime or an ISO date string, got {type(value).__name__}")
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)
