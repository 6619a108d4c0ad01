"""Registration of the graph queries with OpenDP's Context API (``dp.register``), done once."""

from __future__ import annotations

from typing import Any

_registered = False


def register_with_context() -> None:
    """Make ``ctx.query().degree_histogram(...)`` and friends available. Idempotent."""
    global _registered
    if _registered:
        return
    import opendp.prelude as dp

    from .. import transformations as t

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


def context(
    data: Any,
    privacy_unit: tuple[Any, Any],
    privacy_loss: tuple[Any, Any],
    *,
    domain: Any = None,
    split_evenly_over: int | None = None,
    split_by_weights: Any = None,
) -> Any:
    """``dp.Context.compositor`` on a :class:`~opendp_graph.Graph`, with the graph domain filled in.

    OpenDP infers a domain only for its own data types: ``dp.Context.compositor(data=graph, ...)``
    without ``domain=`` fails with ``UnknownTypeException: <class 'opendp_graph.core.graph.Graph'>``.
    This does what OpenDP does for a table, from the graph's public *type* only: without
    ``domain=`` it uses ``dpg.graph_domain(labeled=graph.is_labeled)``, which promises nothing
    about the data (no node count, no degree bound); pass ``domain=dpg.graph_domain(...)`` for a
    release that needs a public promise (a node count for Blowfish, ``max_degree`` for node-level
    queries), as with ``dp.Context.compositor``. The graph is checked against the domain at every
    release, as everywhere in this package.

    :param data: the private graph.
    :param privacy_unit: ``(metric, d_in)``, e.g. ``(dpg.edge_distance(), 1)``.
    :param privacy_loss: ``dp.loss_of(...)``.
    :param domain: a domain from :func:`~opendp_graph.graph_domain`, or ``None`` (see above).
    :param split_evenly_over: as in ``dp.Context.compositor``.
    :param split_by_weights: as in ``dp.Context.compositor``.
    :return: a ``dp.Context``; its queries include the graph queries (``ctx.query().edge_count()``).

    :example:

    >>> import networkx as nx, opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> g = dpg.Graph.from_networkx(nx.karate_club_graph())
    >>> ctx = dpg.context(g, (dpg.edge_distance(), 1), dp.loss_of(epsilon=1.0), split_evenly_over=2)
    >>> ctx.query().edge_count().laplace().param()
    2.0
    """
    import opendp.prelude as dp

    from ..core._checks import not_a_graph
    from ..core.domains import graph_domain, graph_domain_descriptor
    from ..core.graph import Graph

    dp.assert_features("contrib", "honest-but-curious")
    if not isinstance(data, Graph):
        raise TypeError(not_a_graph(data))
    if domain is None:
        domain = graph_domain(labeled=data.is_labeled)
    else:
        graph_domain_descriptor(domain)  # a TypeError naming what was given, before OpenDP sees it
    register_with_context()
    return dp.Context.compositor(
        data=data,
        privacy_unit=privacy_unit,
        privacy_loss=privacy_loss,
        domain=domain,
        split_evenly_over=split_evenly_over,
        split_by_weights=split_by_weights,
    )
