"""Reproductions of the papers' experiments. They live in the repository beside the package, not in
it: they read the real data sets, write tables and figures and run for minutes, which is work for a
clone, not for every installation. Run one from the repository root, with the package installed
(``pip install -e .``)::

    python -m reproductions --help             # the reproductions, one line each
    python -m reproductions NAME --help        # NAME's options
    python -m reproductions NAME [OPTIONS]     # e.g. python -m reproductions interpret --quick

``NAME`` is a module of this folder with a ``main(argv)`` (:mod:`reproductions.__main__` finds
them); the others are helpers (``pufferfish_usefulness``, ``_command``).
"""

__all__: list[str] = []  # the reproductions are loaded by name (python -m reproductions NAME)
