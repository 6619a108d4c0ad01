"""Reproductions of the papers' experiments. ``opendp-graph reproduce NAME`` runs ``NAME.main(argv)``."""
