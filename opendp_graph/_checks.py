"""Argument checks shared by the constructors (one wording for one kind of mistake).

Constructors check their public arguments before any private data is touched; a bool is never
accepted as an integer (``True`` is an ``int`` in Python, and ``k=True`` is always a mistake).
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

__all__ = ["integer_at_least", "positive_integer"]


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
