"""The compiled loops' compiler: Numba, a required dependency.

The heavy loops (the statistics engine, :mod:`opendp_graph.pufferfish._compiled`; the graph
build and the label counts, :mod:`opendp_graph.core._kernels`) exist only as compiled code. They are
compiled on first call and cached on disk (a few seconds once per installation). Without a
working Numba, importing :mod:`opendp_graph` raises an :class:`ImportError` that names it and
says how to install it (there is no slower pure-NumPy engine to fall back to).
"""

from __future__ import annotations

try:
    import numba
except ImportError as error:  # missing, or installed but unusable (e.g. built for another NumPy)
    raise ImportError(
        "opendp_graph needs Numba (numba>=0.60), which compiles its statistics engine and graph build, "
        f"but it could not be imported ({error}). Install it with `pip install numba` "
        "(or `conda install numba`), in a version that supports your NumPy and Python."
    ) from error

__all__ = ["jit"]

#: ``numba.njit(cache=True, nogil=True)``: the decorator of every compiled loop (compiled on
#: first call, cached on disk; ``nogil`` so that the statistics sweep runs on several threads).
jit = numba.njit(cache=True, nogil=True)
