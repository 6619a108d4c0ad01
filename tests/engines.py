"""The statistics engine's settings that force each of its paths, shared by the engine tests.

A path is a dict ``{name: value}`` of module attributes to set: names of
:mod:`opendp_graph.pufferfish._stats`, or ``_compiled.NAME`` for
:mod:`opendp_graph.pufferfish._compiled`. ``_ENGINE`` picks the NumPy passes (``"numpy"``) or
the compiled ones (``"compiled"``, Numba); paths needing Numba are left out where it is
missing (:func:`available`).
"""

from __future__ import annotations

import contextlib

import pytest

from opendp_graph.pufferfish import _compiled, _stats

NUMBA = _compiled.kernels() is not None

COMPILED_PATHS = {
    "compiled": {"_ENGINE": "compiled"},
    # several threads whatever the size, and the sweep cut into runs of one node's work
    "compiled-threaded": {"_ENGINE": "compiled", "_THREADED_EDGES": 0, "_workers": lambda: 3, "_compiled._RUN_WORK": 1},
    "compiled-one-thread": {"_ENGINE": "compiled", "_workers": lambda: 1},
}


def available(paths: dict) -> dict:
    """``paths`` without those that need Numba when it cannot be imported."""
    return {name: path for name, path in paths.items() if NUMBA or path.get("_ENGINE") != "compiled"}


@contextlib.contextmanager
def forced(path: dict):
    with pytest.MonkeyPatch.context() as mp:
        for name, value in path.items():
            module, attr = (_compiled, name.split(".", 1)[1]) if name.startswith("_compiled.") else (_stats, name)
            assert hasattr(module, attr), name
            mp.setattr(module, attr, value)
        yield
