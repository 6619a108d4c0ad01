"""Loaders for real graph data (each takes a path; nothing is bundled) and synthetic generators.

Every public module here lists its entry points in ``__all__``; they are lifted into this
namespace, so ``dpg.datasets.load_enron(path)`` works whichever module defines it.
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
