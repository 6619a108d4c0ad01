"""What a graph held by a distributed engine (Spark) must answer, for the core to use it.

The queries, the domains' member checks, the Pufferfish coverage checks and the model fits of
this package are written against :class:`~opendp_graph.Graph`. A graph too large for one machine
cannot be a ``Graph``; it can still answer the few *aggregates* those need, each computed exactly
where the data lives and returned to the driver as a small table. :class:`DistributedGraph` is
that contract, and the one place where the core code (``transformations``, ``domains``,
``pufferfish.models``) looks for something other than a ``Graph``. It imports no engine: the
Spark implementation (:mod:`opendp_graph.spark`) is imported only by a user who asks for it.

Every aggregate must equal, value for value, what the single-machine code computes on the same
simple graph (:mod:`tests.test_spark` checks it on real and generated graphs); the stability maps
then hold unchanged, since they are functions of the domain and metric descriptors only.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["DistributedGraph"]


class DistributedGraph(abc.ABC):
    """A simple undirected graph on nodes ``0..num_nodes-1`` kept by a distributed engine.

    Implementations are immutable (their aggregates may be cached) and simple exactly as
    :meth:`Graph.from_edges <opendp_graph.Graph.from_edges>` makes a graph simple.
    """

    @property
    @abc.abstractmethod
    def num_nodes(self) -> int: ...

    @property
    @abc.abstractmethod
    def num_edges(self) -> int: ...

    @property
    @abc.abstractmethod
    def is_labeled(self) -> bool: ...

    @property
    @abc.abstractmethod
    def vocabulary(self) -> tuple[str, ...] | None:
        """The sorted distinct labels (``None`` if unlabeled), as ``Graph.vocabulary``."""

    @property
    @abc.abstractmethod
    def max_degree(self) -> int: ...

    @property
    @abc.abstractmethod
    def max_labels_on_an_edge(self) -> int:
        """The largest number of distinct labels on one edge (0 without edges or labels)."""

    @abc.abstractmethod
    def degree_histogram(self, max_degree: int) -> list[int]:
        """Bin ``k`` counts the nodes of degree ``k``; the last bin those of degree ``≥ max_degree``."""

    @abc.abstractmethod
    def label_counts(self, max_labels_per_edge: int | None, vocabulary: Sequence[str] | None) -> dict[str, int]:
        """``{label: edges contributing it}`` for labels with a positive count, after the rule of
        :func:`opendp_graph.transformations.labels.selected_labels` (per edge, the
        ``max_labels_per_edge`` labels of smallest rank in ``vocabulary``, or in lexicographic
        order without one; all of them when it is ``None``)."""

    @abc.abstractmethod
    def distinct_closed_sizes(self) -> np.ndarray:
        """The distinct values of ``deg(u) + deg(v) − 1`` over the edges (sorted ``int64``): all
        that the correlation models' coverage checks read."""

    @abc.abstractmethod
    def neighbourhood_stats(self, *, base: float = 10.0) -> Any:
        """:class:`opendp_graph.pufferfish._stats.NeighbourhoodStats`, exact, with one
        difference: ``nb`` holds the *distinct* numbers of adjacent edges (sorted), not one per
        edge, which is all the models read from it (the Binomial model's sizes and the largest)."""
