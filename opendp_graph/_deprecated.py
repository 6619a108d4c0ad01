"""Old names kept for one release after the 0.1 restructuring, each with a ``DeprecationWarning``.

Every entry says where the name went; the whole module goes in the next release. It sits at the
top of the layers (the package's ``__init__`` installs it), so it may import any layer, and no
layer below imports it.

* modules that moved (``MOVED_MODULES``): ``import opendp_graph.metrics`` or
  ``from opendp_graph.node_degrees import ...`` still work, through a module that forwards every
  attribute to the new one (the objects themselves, so ``isinstance`` and pickles agree);
* ``dpg.metrics``, ``dpg.graph``, ... as attributes of the package (``MOVED_ATTRIBUTES``);
* names that left a module that stays (``MOVED_NAMES``: ``fit_binomial_dp`` from
  ``opendp_graph.pufferfish.dp_fit``);
* ``Graph.from_polars`` and ``Graph.to_polars``: the container no longer imports its Polars
  adapter; use :func:`opendp_graph.polars.graph_from_polars` and
  :func:`opendp_graph.polars.graph_to_polars`.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings
from typing import Any

REMOVED_IN = "the next release"

MOVED_MODULES = {
    "opendp_graph.graph": "opendp_graph.core.graph",
    "opendp_graph.domains": "opendp_graph.core.domains",
    "opendp_graph.metrics": "opendp_graph.core.metrics",
    "opendp_graph.node_degrees": "opendp_graph.measurements.degree_distribution",
    "opendp_graph.top_k": "opendp_graph.measurements.top_k",
    "opendp_graph.accuracy": "opendp_graph.measurements.accuracy",
    "opendp_graph.testing": "opendp_graph.verify.testing",
    "opendp_graph.audit": "opendp_graph.verify",
}
MOVED_ATTRIBUTES = {old.rsplit(".", 1)[1]: new for old, new in MOVED_MODULES.items() if old != "opendp_graph.accuracy"}
# names that left a module which stays: (module, name) -> the module that has it now
MOVED_NAMES = {("opendp_graph.pufferfish.dp_fit", "fit_binomial_dp"): "opendp_graph.pufferfish.models.binomial"}


def _warn(old: str, new: str) -> None:
    warnings.warn(f"{old} moved to {new}; the old name will be removed in {REMOVED_IN}", DeprecationWarning, stacklevel=3)


class _MovedModule(types.ModuleType):
    """Stands at a module's old path and forwards every attribute to the module at its new path.

    ``opendp_graph.accuracy`` also forwards calls: importing it makes it the package's attribute
    ``accuracy``, which was and stays the function ``dpg.accuracy``."""

    def __init__(self, old: str, new: str) -> None:
        super().__init__(old, f"Moved to :mod:`{new}` (deprecated alias, removed in {REMOVED_IN}).")
        self.__dict__["_target"] = new

    def _module(self) -> types.ModuleType:
        return importlib.import_module(self.__dict__["_target"])

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module(), name)

    def __dir__(self) -> list[str]:
        return dir(self._module())

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        function = getattr(self._module(), self.__name__.rsplit(".", 1)[1], None)
        if not callable(function):
            raise TypeError(f"module {self.__name__!r} is not callable")
        return function(*args, **kwargs)


class _MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the old paths of :data:`MOVED_MODULES` (and only those)."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname not in MOVED_MODULES:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: Any) -> types.ModuleType:
        new = MOVED_MODULES[spec.name]
        _warn(spec.name, new)
        return _MovedModule(spec.name, new)

    def exec_module(self, module: types.ModuleType) -> None:
        pass  # the module forwards to its new path: nothing to run


def moved_attribute(name: str) -> Any:
    """``dpg.<name>`` for a module that moved (``dpg.metrics``, ...), with the warning; else an
    ``AttributeError``."""
    new = MOVED_ATTRIBUTES.get(name)
    if new is None:
        raise AttributeError(f"module 'opendp_graph' has no attribute {name!r}")
    _warn(f"opendp_graph.{name}", new)
    return importlib.import_module(new)


def _graph_from_polars(cls: type, frame: Any, *args: Any, **options: Any) -> Any:
    """Deprecated: use :func:`opendp_graph.polars.graph_from_polars`."""
    _warn("Graph.from_polars", "opendp_graph.polars.graph_from_polars")
    from .polars import graph_from_polars

    return graph_from_polars(frame, *args, **options)


def _graph_to_polars(self: Any, **options: Any) -> Any:
    """Deprecated: use :func:`opendp_graph.polars.graph_to_polars`."""
    _warn("Graph.to_polars", "opendp_graph.polars.graph_to_polars")
    from .polars import graph_to_polars

    return graph_to_polars(self, **options)


def _forward_moved_names(module: types.ModuleType) -> None:
    """Give ``module`` a module ``__getattr__`` (PEP 562) that finds the names that left it."""
    moved = {name: new for (old, name), new in MOVED_NAMES.items() if old == module.__name__}

    def __getattr__(name: str) -> Any:
        if name not in moved:
            raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")
        _warn(f"{module.__name__}.{name}", f"{moved[name]}.{name}")
        return getattr(importlib.import_module(moved[name]), name)

    module.__getattr__ = __getattr__


def install() -> None:
    """Put the old names in place (idempotent)."""
    from .core.graph import Graph

    for old in {old for old, _ in MOVED_NAMES}:
        _forward_moved_names(importlib.import_module(old))

    if not any(isinstance(finder, _MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _MovedModuleFinder())  # before the path finder: a stale folder of an old package
        # (opendp_graph/audit/__pycache__ left by an upgrade) would otherwise import as an empty namespace package
    Graph.from_polars = classmethod(_graph_from_polars)
    Graph.to_polars = _graph_to_polars
