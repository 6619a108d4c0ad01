"""Registration of the graph queries with OpenDP's Context API (``dp.register``), done once."""

from __future__ import annotations

_registered = False


def register_with_context() -> None:
    """Make ``ctx.query().degree_histogram(...)`` and friends available. Idempotent."""
    global _registered
    if _registered:
        return
    import opendp.prelude as dp

    from . import transformations as t

    for make in (
        t.make_edge_count,
        t.make_degree_histogram,
        t.make_cumulative_degree_histogram,
        t.make_triangle_count,
        t.make_label_counts,
        t.make_label_count_map,
        t.make_degree_projection,
    ):
        dp.register(make)
    _registered = True
