"""Immutable objects, one way: frozen dataclasses.

A value type is a ``@dataclass(frozen=True)`` (the metric descriptors, the privacy units, the
reports). A class that keeps its own constructor, because it checks and converts its arguments
before its fields are set or caches values derived from them (:class:`~opendp_graph.Graph`, the
Pufferfish models, ``SparkGraph``), is decorated with :func:`frozen`: the same frozen dataclass,
its fields declared by annotation, without the generated ``__init__``, ``repr`` and ``==``, and
with a refusal that says why the object may not change. Its constructor and caches set fields
with ``object.__setattr__``, and nothing else does.

Assigning or deleting an attribute raises :class:`dataclasses.FrozenInstanceError` (an
``AttributeError``) whose message starts ``"<class> is immutable"``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import FrozenInstanceError, dataclass, fields
from types import MappingProxyType
from typing import Any, TypeVar

__all__ = ["frozen", "ReadOnlyFields"]

C = TypeVar("C", bound=type)


def frozen(why: str = "") -> Callable[[C], C]:
    """Class decorator: ``dataclass(frozen=True, init=False, repr=False, eq=False)``, and the
    refusal ``"<class> is immutable<why>"`` for an assignment (``"<class> is immutable"`` for a
    deletion). The refusal is inherited, so an undecorated subclass is frozen too."""

    def refuse_assignment(self: Any, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"{type(self).__name__} is immutable{why}")

    def refuse_deletion(self: Any, name: str) -> None:
        raise FrozenInstanceError(f"{type(self).__name__} is immutable")

    def decorate(cls: C) -> C:
        # Any: the class's own __setattr__ and __delattr__ are replaced, which a type checker refuses on a class it knows
        patched: Any = dataclass(frozen=True, init=False, repr=False, eq=False)(cls)
        patched.__setattr__ = refuse_assignment
        patched.__delattr__ = refuse_deletion
        return patched

    return decorate


class ReadOnlyFields:
    """Mixin of a frozen dataclass whose fields hold a ``dict`` or a numpy array: each is stored as a
    read-only view (``MappingProxyType``; an array that refuses writes), so a report cannot be
    changed through its contents either, and it pickles as its constructor's arguments (a
    ``MappingProxyType`` does not pickle)."""

    def __post_init__(self) -> None:
        import numpy as np

        for field in fields(self):  # type: ignore[arg-type]
            value = getattr(self, field.name)
            if isinstance(value, (dict, MappingProxyType)):
                object.__setattr__(self, field.name, MappingProxyType(dict(value)))
            elif isinstance(value, np.ndarray) and value.flags.writeable:
                view = value.copy()
                view.setflags(write=False)
                object.__setattr__(self, field.name, view)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        values = tuple(dict(v) if isinstance(v, MappingProxyType) else v for v in (getattr(self, f.name) for f in fields(self)))  # type: ignore[arg-type]
        return type(self), values
