"""``graph_domain``: the OpenDP domain of :class:`~opendp_graph.Graph` values.

The node set (its size and public ids) is public, as in *bounded* edge DP (Hehir, Niu &
Slavković, §3): neighbouring graphs share their nodes and differ in edges. A domain may also
promise a maximum degree, a node count, or (for labeled graphs) a maximum number of labels per
edge; the member check enforces every promise, and every query calls it before touching the data.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np
import opendp.prelude as dp

from ._checks import not_a_graph
from .graph import MAX_NUM_NODES, Graph

__all__ = ["GraphDomain", "graph_domain", "graph_domain_descriptor"]


@dataclass(frozen=True, kw_only=True)
class GraphDomain:
    """Descriptor of :func:`graph_domain`. Its ``repr`` (every field) is the OpenDP identifier."""

    num_nodes: int | None = None
    max_degree: int | None = None
    labeled: bool = False
    max_labels_per_edge: int | None = None

    def __post_init__(self) -> None:
        if self.max_labels_per_edge is not None and not self.labeled:
            raise ValueError("max_labels_per_edge needs a labeled domain: graph_domain(labeled=True, max_labels_per_edge=...)")

    def violation(self, value: Any) -> str | None:
        """Why ``value`` is not a member, or ``None`` if it is.

        Messages about broken promises (``max_degree``, ``max_labels_per_edge``) name only the
        promise, never the node, the edge or the count that broke it.
        """
        if not isinstance(value, Graph):
            return not_a_graph(value)
        if self.labeled and not value.is_labeled:
            return "the domain is labeled but the graph has no edge labels"
        if not self.labeled and value.is_labeled:
            return "the graph has edge labels but the domain is unlabeled (use graph_domain(labeled=True) or Graph.without_labels())"
        if self.num_nodes is not None and value.num_nodes != self.num_nodes:
            return f"the graph's number of nodes is not the domain's num_nodes={self.num_nodes}"  # never the graph's own count
        if self.max_degree is not None and value.max_degree > self.max_degree:
            return f"the graph violates the domain's max_degree={self.max_degree}"
        if self.max_labels_per_edge is not None and value.num_edges:
            labels = value.labels
            assert labels is not None  # max_labels_per_edge needs a labeled domain (__post_init__), and the graph matches it (above)
            if int(np.diff(labels.indptr).max()) > self.max_labels_per_edge:
                return f"the graph violates the domain's max_labels_per_edge={self.max_labels_per_edge}"
        return None

    def member(self, value: Any) -> bool:
        return self.violation(value) is None

    def refusal(self, query: str) -> str | None:
        """Why members of this domain cannot answer ``query`` (``None``: they can). Every query
        runs on a :class:`~opendp_graph.Graph`; a distributed domain
        (:func:`opendp_graph.spark.graph_domain`) refuses those it cannot compute exactly where
        the data lives, when the query is built."""
        return None

    def check_member(self, value: Any) -> None:
        """Raise a clear ``TypeError``/``ValueError`` if ``value`` is not a member.

        A ``max_degree`` or ``max_labels_per_edge`` violation is reported without saying which
        degree or label count was seen: the message depends on the data only through the (public)
        fact that the promise was broken.
        """
        problem = self.violation(value)
        if problem is not None:
            raise (TypeError if not isinstance(value, Graph) else ValueError)(problem)


def _optional_count(name: str, value: Any, minimum: int) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an integer or None, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return int(value)


def graph_domain(
    *,
    num_nodes: int | None = None,
    max_degree: int | None = None,
    labeled: bool = False,
    max_labels_per_edge: int | None = None,
) -> dp.Domain:
    """The domain of simple undirected graphs on a public node set.

    :param num_nodes: if given, members have exactly this many nodes (public), which lets
        node-level and Blowfish sensitivities use ``n``; at most ``MAX_NUM_NODES``, the largest
        node count a :class:`~opendp_graph.Graph` supports.
    :param max_degree: if given, a promise that every node has degree at most this; the member
        check enforces it, so a query on a graph that breaks it raises instead of answering.
        (To *enforce* a bound on arbitrary graphs, use :func:`opendp_graph.make_degree_projection`.)
    :param labeled: whether members carry edge labels.
    :param max_labels_per_edge: if given (labeled domains only), a promise that every edge carries
        at most this many labels (counted over all its labels, whatever the query reads); the
        member check enforces it like ``max_degree``.
    :return: an OpenDP user domain whose descriptor is a :class:`GraphDomain`.
    :raises ValueError: if ``max_labels_per_edge`` is given without ``labeled=True``.

    :example:

    >>> import opendp_graph as dpg
    >>> dpg.graph_domain(max_degree=10)
    GraphDomain(num_nodes=None, max_degree=10, labeled=False, max_labels_per_edge=None)
    >>> dpg.graph_domain(labeled=True, max_labels_per_edge=3).member(
    ...     dpg.Graph.from_edges([0], [1], labels=[["a", "b", "c", "d"]]))
    False
    """
    dp.assert_features("honest-but-curious")
    if not isinstance(labeled, bool):
        raise TypeError(f"labeled must be a bool, got {labeled!r}")
    if num_nodes is not None and not isinstance(num_nodes, bool) and isinstance(num_nodes, Integral) and num_nodes > MAX_NUM_NODES:
        raise ValueError(f"num_nodes is {num_nodes}, above the largest supported node count {MAX_NUM_NODES}")
    descriptor = GraphDomain(
        num_nodes=_optional_count("num_nodes", num_nodes, 0),
        max_degree=_optional_count("max_degree", max_degree, 0),
        labeled=labeled,
        max_labels_per_edge=_optional_count("max_labels_per_edge", max_labels_per_edge, 0),
    )
    return dp.user_domain(repr(descriptor), member=descriptor.member, descriptor=descriptor)


def graph_domain_descriptor(domain: Any) -> GraphDomain:
    """The :class:`GraphDomain` behind an OpenDP domain, or a ``TypeError`` naming what was given."""
    try:
        descriptor = domain.descriptor if isinstance(domain, dp.Domain) else None
    except Exception:  # built-in OpenDP domains have no Python descriptor
        descriptor = None
    if not isinstance(descriptor, GraphDomain):
        raise TypeError(f"input_domain must be a graph domain from opendp_graph.graph_domain(...), got {domain!r}")
    return descriptor
