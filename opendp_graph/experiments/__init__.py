"""Reproductions of the papers' experiments. ``opendp-graph reproduce NAME`` runs ``NAME.main(argv)``."""

__all__: list[str] = []  # the reproductions are loaded by name (opendp-graph reproduce NAME)
