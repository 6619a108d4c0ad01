"""Which implementation the heavy loops use: compiled (Numba) or NumPy.

Numba is a dependency, so the compiled loops normally run; ``$OPENDP_GRAPH_ENGINE=numpy`` (or a
module's own default, for tests) selects the NumPy implementations, which give the same values.
Where Numba cannot be imported, ``auto`` falls back to NumPy and ``compiled`` is refused.
"""

from __future__ import annotations

import functools
import os

SETTINGS = ("auto", "compiled", "numpy")


@functools.cache
def numba_jit():
    """``numba.njit(cache=True, nogil=True)``, or ``None`` when Numba cannot be imported.
    Compiled on first call and cached on disk (a few seconds once per installation)."""
    try:
        import numba
    except ImportError:
        return None
    return numba.njit(cache=True, nogil=True)


def compiled(build):
    """Decorator for a function ``build(jit)`` that defines compiled functions with ``jit`` and
    returns them: the decorated function, called with no argument, builds them once and returns
    them, or ``None`` when Numba cannot be imported (the caller then runs its NumPy code)."""

    @functools.cache
    def kernels():
        jit = numba_jit()
        return None if jit is None else build(jit)

    kernels.__doc__ = build.__doc__
    return kernels


def use_compiled(default: str = "auto") -> bool:
    """Whether to run the compiled loops: ``$OPENDP_GRAPH_ENGINE`` (``auto``, ``compiled`` or
    ``numpy``) if set, else ``default``; ``auto`` compiles when Numba can be imported."""
    setting = os.environ.get("OPENDP_GRAPH_ENGINE", "").strip().lower() or default
    if setting not in SETTINGS:
        raise ValueError(f"OPENDP_GRAPH_ENGINE must be 'auto', 'compiled' or 'numpy', got {setting!r}")
    if setting == "numpy":
        return False
    available = numba_jit() is not None
    if setting == "compiled" and not available:
        raise ValueError("OPENDP_GRAPH_ENGINE=compiled needs Numba (pip install numba)")
    return available
