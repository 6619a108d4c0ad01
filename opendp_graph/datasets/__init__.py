"""Loaders for real graph data and synthetic generators.

Nothing is bundled. Every loader takes ``path=None``, meaning "resolve": :func:`data_path` finds
the data set in ``$OPENDP_GRAPH_DATA``, in ``../shared/data`` beside a source checkout, or in the
per-user cache, which it fills on first use from the data set's canonical public source (pinned
commit, SHA-256 checked; ``OPENDP_GRAPH_DOWNLOAD=0`` turns downloads off). An explicit path
still works. ``opendp-graph data list`` shows where each data set resolves from.

Every public module here lists its entry points in ``__all__``; they are lifted into this
namespace, so ``dpg.datasets.load_enron()`` works whichever module defines it.
"""

import importlib as _importlib
import pkgutil as _pkgutil

__all__: list[str] = []
for _info in _pkgutil.iter_modules(__path__):
    if _info.name.startswith("_"):
        continue
    _module = _importlib.import_module(f"{__name__}.{_info.name}")
    for _name in getattr(_module, "__all__", ()):
        globals()[_name] = getattr(_module, _name)
        __all__.append(_name)

from ._resolve import (  # noqa: E402  (the resolver, shared by every loader)
    DATASETS,
    DataIntegrityError,
    DataUnavailableError,
    cache_dir,
    data_path,
    downloads_enabled,
    fetch,
    status,
    verify,
)

__all__ += [
    "DATASETS",
    "DataIntegrityError",
    "DataUnavailableError",
    "cache_dir",
    "data_path",
    "downloads_enabled",
    "fetch",
    "status",
    "verify",
]
