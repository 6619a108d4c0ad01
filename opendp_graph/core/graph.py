"""The immutable graph container that every transformation in this package reads.

A :class:`Graph` is a simple undirected graph on the nodes ``0..n-1``:

* edges are stored once, as ``src < dst``, sorted by ``(src, dst)``, in two read-only
  ``int64`` numpy arrays (16 bytes an edge, so 10 million edges take 160 MB);
* optional public node ids (what the caller calls the nodes) map index ``i`` to a name;
* optional **edge labels** (a set of properties per edge, e.g. the n-grams of the e-mails on
  that edge) are a read-only sparse boolean ``(num_edges × len(vocabulary))`` CSR matrix whose
  columns follow ``Graph.vocabulary`` (sorted strings).

Nothing here mutates its input, and nothing can mutate a Graph after construction.

Edges are keyed internally by ``src * num_nodes + dst`` in ``int64``, so a graph has at most
:data:`MAX_NUM_NODES` (3 037 000 499) nodes: the constructors refuse a larger ``num_nodes``
(given or inferred) and any node index above ``MAX_NUM_NODES - 1``, instead of letting keys wrap.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence, Sized
from numbers import Integral
from typing import Any

import numpy as np
import scipy.sparse as sp

from . import _build
from ._build import (
    MAX_NUM_NODES,
    _any_equal,
    _as_index_array,
    _canonical_edges,
    _check_num_nodes,
    _check_self_loops,
    _label_rows,
    _label_set,
    _sort_order,
)
from ._checks import check_label_names
from ._frozen import frozen

__all__ = ["MAX_NUM_NODES", "Graph"]


def _compact_index(labels: sp.csr_array) -> sp.csr_array:
    """The label matrix with 32-bit ``indices`` and ``indptr`` when every index fits (scipy keeps
    the two in one dtype): 8 bytes per (edge, label) pair less at rest than int64, the same
    values. Code that does arithmetic on them widens first (``astype(np.intp)``)."""
    small = max(labels.nnz, *labels.shape) < 2**31 - 1
    if not small or (labels.indices.dtype == np.int32 and labels.indptr.dtype == np.int32):
        return labels
    return sp.csr_array((labels.data, labels.indices.astype(np.int32), labels.indptr.astype(np.int32)), shape=labels.shape, copy=False)


def _readonly(a: np.ndarray) -> np.ndarray:
    """A read-only view of ``a`` whose memory owner is read-only too: ``setflags(write=True)`` on
    what callers get raises, so a Graph's arrays cannot be switched back to writable (an array
    that owned its memory could be). A view of someone else's writable memory is copied first."""
    if not a.flags.owndata and (a.base is None or not isinstance(a.base, np.ndarray) or a.base.flags.writeable):
        a = a.copy()
    a.setflags(write=False)
    a = a.view()
    a.setflags(write=False)
    return a


def _graph_from_state(
    num_nodes: int,
    src: np.ndarray,
    dst: np.ndarray,
    labels: sp.csr_array | None,
    vocabulary: tuple[str, ...] | None,
    node_ids: tuple | None,
) -> Graph:
    """Unpickling: rebuild through the trusted constructor (arrays read-only, caches recomputed lazily)."""
    return Graph._from_canonical(num_nodes=num_nodes, src=src, dst=dst, labels=labels, vocabulary=vocabulary, node_ids=node_ids)


@frozen()
class Graph:
    """An immutable simple undirected graph with optional public node ids and edge labels.

    Build one with :meth:`from_edges`, :meth:`from_arrays`, :meth:`from_networkx` (or, for data
    frames, the Polars converters of :mod:`opendp_graph.polars`); the constructor itself is not
    public API. Nodes are ``0..num_nodes-1`` with ``num_nodes <= MAX_NUM_NODES`` (3 037 000 499).

    A Graph pickles (e.g. to send it to a ``multiprocessing`` worker): unpickling rebuilds it with
    read-only arrays. Because it is immutable, ``copy.copy(g)`` and ``copy.deepcopy(g)`` return
    ``g`` itself, as for other immutable values such as ``tuple`` or ``frozenset``.

    :example:

    >>> import opendp_graph as dpg
    >>> g = dpg.Graph.from_edges([0, 1, 2, 1], [1, 2, 0, 0], labels=[["hi"], ["lunch"], [], ["hi", "re"]])
    >>> g
    Graph(num_nodes=3, num_edges=3, labeled=True)
    >>> g.degrees.tolist()
    [2, 2, 2]
    >>> g.vocabulary
    ('hi', 'lunch', 're')
    >>> sorted(g.edge_labels(0, 1))
    ['hi', 're']
    """

    # Slots: a brute-force test builds millions of small graphs. The fields are set once, by
    # _from_canonical, and the three caches (degrees, edge keys, hash) on first use.
    __slots__ = ("_num_nodes", "_src", "_dst", "_labels", "_vocabulary", "_node_ids", "_degrees", "_keys", "_hash")
    _num_nodes: int
    _src: np.ndarray
    _dst: np.ndarray
    _labels: sp.csr_array | None
    _vocabulary: tuple[str, ...] | None
    _node_ids: tuple | None
    _degrees: np.ndarray | None
    _keys: np.ndarray | None
    _hash: int | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Every guarantee assumes a simple graph (src < dst < n, sorted, unique; sorted vocabulary),
        # which only the public constructors establish: a Graph with repeated edges would pass the
        # domain check and break every stability map. So there is no public way around them.
        raise TypeError(
            "Graph(...) is not a public constructor: build a graph with Graph.from_edges, Graph.from_arrays, "
            "Graph.from_networkx or dpg.polars.graph_from_polars"
        )

    @classmethod
    def _from_canonical(
        cls,
        *,
        num_nodes: int,
        src: np.ndarray,
        dst: np.ndarray,
        labels: sp.csr_array | None = None,
        vocabulary: tuple[str, ...] | None = None,
        node_ids: tuple | None = None,
    ) -> Graph:
        """Trusted constructor for this package's code: the caller guarantees canonical arrays
        (``src < dst < num_nodes``, sorted by ``(src, dst)``, unique; a sorted vocabulary)."""
        self = object.__new__(cls)
        if not 0 <= num_nodes <= MAX_NUM_NODES:  # cheap guard for the edge keys; constructors check first
            raise ValueError(f"num_nodes is {num_nodes}, outside 0..{MAX_NUM_NODES}")
        object.__setattr__(self, "_num_nodes", int(num_nodes))
        object.__setattr__(self, "_src", _readonly(src))
        object.__setattr__(self, "_dst", _readonly(dst))
        if labels is not None:
            labels = _compact_index(labels)
            labels.data, labels.indices, labels.indptr = (_readonly(a) for a in (labels.data, labels.indices, labels.indptr))
        if vocabulary is not None:
            check_label_names(vocabulary)  # every label reaches OpenDP as a string key
        object.__setattr__(self, "_labels", labels)
        object.__setattr__(self, "_vocabulary", vocabulary)
        object.__setattr__(self, "_node_ids", node_ids)
        object.__setattr__(self, "_degrees", None)
        object.__setattr__(self, "_keys", None)
        object.__setattr__(self, "_hash", None)
        return self

    def __reduce__(self):
        return _graph_from_state, (self._num_nodes, self._src, self._dst, self._labels, self._vocabulary, self._node_ids)

    def __copy__(self) -> Graph:
        return self  # immutable: a copy would be indistinguishable

    def __deepcopy__(self, memo: dict) -> Graph:
        return self  # immutable all the way down (read-only arrays, tuples of ids and labels)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_edges(
        cls,
        src: Iterable[int],
        dst: Iterable[int],
        num_nodes: int | None = None,
        labels: Sequence[Iterable[str]] | None = None,
        *,
        node_ids: Sequence[Any] | None = None,
        self_loops: str = "error",
    ) -> Graph:
        """Build a graph from two arrays of node indices (one undirected edge per position).

        :param src: first endpoint of each edge: integers (any integer dtype, or floats holding
            whole numbers) in ``0..num_nodes-1``, and at most ``MAX_NUM_NODES - 1``.
        :param dst: second endpoint of each edge. ``(u, v)`` and ``(v, u)`` are the same edge.
        :param num_nodes: number of nodes, an integer in ``0..MAX_NUM_NODES`` (not a bool or a
            float); defaults to ``len(node_ids)`` or else ``max(src, dst) + 1``. Isolated nodes need it.
        :param labels: optional, one iterable of strings per edge. Duplicate edges are merged and
            their labels united. A graph built with ``labels=`` is *labeled* even if every set is empty.
        :param node_ids: optional public names of the nodes (length ``num_nodes``, distinct, hashable).
        :param self_loops: ``"error"`` (default) rejects an edge ``(u, u)``; ``"drop"`` removes it.
        :raises ValueError: on self-loops, negative or out-of-range indices, mismatched lengths,
            ``num_nodes`` negative or above ``MAX_NUM_NODES``.
        :raises TypeError: on non-integer indices or ``num_nodes``, or labels that are not iterables of strings.
        """
        _check_self_loops(self_loops)
        u = _as_index_array(src, "src", copy=False)  # only read below
        v = _as_index_array(dst, "dst", copy=False)
        if u.shape != v.shape:
            raise ValueError("src and dst have different lengths: one source and one destination per edge")
        if labels is not None:
            if isinstance(labels, (str, bytes)):
                raise TypeError("labels must hold one iterable of strings per edge, got a single string")
            labels = list(labels)
            if len(labels) != u.size:
                raise ValueError("labels must hold one entry per edge (as many as src and dst)")
        node_ids = _build.node_id_tuple(node_ids)
        observed = int(max(u.max(initial=-1), v.max(initial=-1))) + 1
        if num_nodes is None:
            num_nodes = len(node_ids) if node_ids is not None else observed
        num_nodes = _check_num_nodes(num_nodes)
        if observed > num_nodes:
            raise ValueError(f"an edge names a node outside 0..num_nodes-1 (num_nodes={num_nodes})")
        ids = _build.check_node_ids(node_ids, num_nodes)

        if _any_equal(u, v):
            loops = u == v
            if self_loops == "error":
                raise ValueError("graph has self-loops; pass self_loops='drop' to remove them")
            keep = ~loops
            u, v = u[keep], v[keep]
            if labels is not None:
                labels = [lab for lab, k in zip(labels, keep) if k]
        csrc, cdst, inverse = _canonical_edges(u, v, num_nodes)
        del u, v
        if labels is None:
            return cls._from_canonical(num_nodes=int(num_nodes), src=csrc, dst=cdst, node_ids=ids)
        matrix, vocabulary = _build.label_matrix_of_sets(labels, inverse, csrc.size)
        return cls._from_canonical(num_nodes=int(num_nodes), src=csrc, dst=cdst, labels=matrix, vocabulary=vocabulary, node_ids=ids)

    @classmethod
    def from_networkx(
        cls,
        graph: Any,
        labels: str | None = None,
        *,
        directed: str = "error",
        multiedges: str = "error",
        self_loops: str = "error",
    ) -> Graph:
        """Convert a NetworkX graph; its nodes (in iteration order) become the public node ids.

        :param graph: a ``networkx.Graph`` (or, when asked for, a directed or multi graph).
        :param labels: name of an edge attribute holding each edge's labels (an iterable of strings;
            an edge without the attribute has no labels). ``None`` gives an unlabeled graph.
        :param directed: ``"error"`` (default) rejects a directed graph; ``"ignore"`` forgets the
            direction (``u→v`` and ``v→u`` become one edge, labels united).
        :param multiedges: ``"error"`` (default) rejects a multigraph; ``"merge"`` merges parallel
            edges, uniting their labels.
        :param self_loops: ``"error"`` (default) or ``"drop"``.

        :example:

        >>> import networkx as nx, opendp_graph as dpg
        >>> g = dpg.Graph.from_networkx(nx.karate_club_graph())
        >>> g.num_nodes, g.num_edges
        (34, 78)
        """
        import networkx as nx

        if not isinstance(graph, nx.Graph):
            raise TypeError(f"expected a networkx graph, got {type(graph).__name__}")
        if labels is not None and not isinstance(labels, str):
            # labels=True would read each edge's whole attribute dict, i.e. its attribute *names*
            raise TypeError(f"labels must be the name of an edge attribute (a string) or None, got {labels!r}")
        if directed not in ("error", "ignore"):
            raise ValueError(f"directed must be 'error' or 'ignore', got {directed!r}")
        if multiedges not in ("error", "merge"):
            raise ValueError(f"multiedges must be 'error' or 'merge', got {multiedges!r}")
        _check_self_loops(self_loops)
        if graph.is_directed() and directed == "error":
            raise ValueError("graph is directed; pass directed='ignore' to treat u→v and v→u as one undirected edge")
        if graph.is_multigraph() and multiedges == "error":
            raise ValueError("graph is a multigraph; pass multiedges='merge' to merge parallel edges")
        node_ids = list(graph.nodes)
        index = {node: i for i, node in enumerate(node_ids)}
        edge_iter = graph.edges(data=labels) if labels is not None else graph.edges()
        src, dst, lab = [], [], []
        for item in edge_iter:
            src.append(index[item[0]])
            dst.append(index[item[1]])
            if labels is not None:
                lab.append(item[2])
        if labels is not None:
            lab = [_label_set(value, "an edge") for value in lab]  # never which edge: its ends are private
        return cls.from_edges(
            np.asarray(src, dtype=np.int64),
            np.asarray(dst, dtype=np.int64),
            num_nodes=len(node_ids),
            labels=lab if labels is not None else None,
            node_ids=node_ids,
            self_loops=self_loops,
        )

    @classmethod
    def from_arrays(
        cls,
        src: np.ndarray,
        dst: np.ndarray,
        num_nodes: int,
        *,
        label_matrix: sp.sparray | sp.spmatrix | None = None,
        vocabulary: Sequence[str] | None = None,
        node_ids: Sequence[Any] | None = None,
    ) -> Graph:
        """Fast path for large graphs: edges as arrays and labels as a sparse (edge × property) matrix.

        :param src: first endpoint of each edge: integers (any integer dtype, or floats holding
            whole numbers) in ``0..num_nodes-1``.
        :param dst: second endpoint of each edge; ``(u, v)`` and ``(v, u)`` are the same edge.
            Edges must already be simple (no self-loops); duplicates are merged, labels united.
        :param num_nodes: number of nodes, required: an integer in ``0..MAX_NUM_NODES`` (not a bool
            or a float).
        :param label_matrix: optional ``(len(src) × len(vocabulary))`` sparse or dense matrix whose
            entries are 0/1 or bool (row ``i``, column ``j`` set: edge ``i`` carries label
            ``vocabulary[j]``). Any other entry (negative, NaN, 2, 0.5, …) is refused.
        :param vocabulary: names of the matrix columns (distinct strings, any order); required with
            ``label_matrix`` and refused without it.
        :param node_ids: optional public names of the nodes (length ``num_nodes``, distinct, hashable).
        :raises ValueError: on self-loops, negative or out-of-range indices, mismatched lengths or
            shapes, label entries other than 0/1, ``num_nodes`` negative or above ``MAX_NUM_NODES``.
        :raises TypeError: on non-integer indices or ``num_nodes``, non-string vocabulary entries,
            or a non-numeric label matrix.
        """
        num_nodes = _check_num_nodes(num_nodes)
        u = _as_index_array(src, "src", copy=False)  # only read below
        v = _as_index_array(dst, "dst", copy=False)
        if u.shape != v.shape:
            raise ValueError("src and dst have different lengths: one source and one destination per edge")
        if _any_equal(u, v):
            raise ValueError("graph has self-loops; remove them first")
        observed = int(max(u.max(initial=-1), v.max(initial=-1))) + 1
        if observed > num_nodes:
            raise ValueError(f"an edge names a node outside 0..num_nodes-1 (num_nodes={num_nodes})")
        ids = _build.check_node_ids(_build.node_id_tuple(node_ids), num_nodes)
        if label_matrix is None and vocabulary is not None:
            raise ValueError("vocabulary given without label_matrix")
        if label_matrix is not None:
            if vocabulary is None:
                raise ValueError("label_matrix needs a vocabulary naming its columns")
            vocab = _build.check_vocabulary(vocabulary)
            coo = _build.check_label_matrix(label_matrix, (u.size, len(vocab)))
        csrc, cdst, inverse = _canonical_edges(u, v, num_nodes)
        del u, v
        num_edges = csrc.size
        if label_matrix is None:
            return cls._from_canonical(num_nodes=num_nodes, src=csrc, dst=cdst, node_ids=ids)
        order, rank = _sort_order(vocab)
        matrix = _label_rows(coo, inverse, rank, num_edges)
        sorted_vocab = tuple(vocab[i] for i in order)
        return cls._from_canonical(num_nodes=int(num_nodes), src=csrc, dst=cdst, labels=matrix, vocabulary=sorted_vocab, node_ids=ids)

    # ------------------------------------------------------------------ accessors
    @property
    def num_nodes(self) -> int:
        """Number of nodes (public)."""
        return self._num_nodes

    @property
    def num_edges(self) -> int:
        """Number of undirected edges."""
        return int(self._src.size)

    @property
    def src(self) -> np.ndarray:
        """Smaller endpoint of each edge (read-only ``int64``), edges sorted by ``(src, dst)``."""
        return self._src

    @property
    def dst(self) -> np.ndarray:
        """Larger endpoint of each edge (read-only ``int64``)."""
        return self._dst

    @property
    def edges(self) -> np.ndarray:
        """The edges as a read-only ``(num_edges, 2)`` array of ``(src, dst)`` with ``src < dst``."""
        return _readonly(np.column_stack([self._src, self._dst]))

    @property
    def node_ids(self) -> tuple | None:
        """Public node names (index ``i`` ↦ ``node_ids[i]``), or ``None`` for plain ``0..n-1``."""
        return self._node_ids

    def node_indices(self, names: Iterable[Any]) -> tuple[int, ...]:
        """The node indices of public node names, in the given order (for APIs that take node
        indices, such as Blowfish policies' ``vip=`` and ``partition=``).

        Names are the graph's :attr:`node_ids` (e.g. the NetworkX node names of
        :meth:`from_networkx`); a graph without names uses its indices ``0..n-1`` as names.
        ``KeyError`` names the first unknown node.

        >>> import networkx as nx
        >>> g = Graph.from_networkx(nx.Graph([("ann", "bob"), ("bob", "cy")]))
        >>> g.node_indices(["cy", "ann"])
        (2, 0)
        """
        if isinstance(names, (str, bytes)) or not isinstance(names, Iterable):
            raise TypeError(f"names must be a collection of node names, got {names!r}")
        index = None if self._node_ids is None else {name: i for i, name in enumerate(self._node_ids)}
        out = []
        for name in names:
            if index is not None:
                if name not in index:
                    raise KeyError(f"no node named {name!r} in this graph")
                out.append(index[name])
            else:
                if isinstance(name, bool) or not isinstance(name, Integral) or not 0 <= int(name) < self._num_nodes:
                    raise KeyError(f"no node {name!r} in this graph (it has no node names: nodes are 0..{self._num_nodes - 1})")
                out.append(int(name))
        return tuple(out)

    @property
    def degrees(self) -> np.ndarray:
        """Degree of every node (read-only ``int64`` array of length ``num_nodes``)."""
        degrees = self._degrees
        if degrees is None:
            deg = np.bincount(self._src, minlength=self._num_nodes) + np.bincount(self._dst, minlength=self._num_nodes)
            degrees = _readonly(deg.astype(np.int64))
            object.__setattr__(self, "_degrees", degrees)
        return degrees

    @property
    def max_degree(self) -> int:
        """Largest degree (0 for a graph without nodes or edges)."""
        return int(self.degrees.max(initial=0))

    @property
    def is_labeled(self) -> bool:
        """Whether the graph carries edge labels (possibly all empty)."""
        return self._labels is not None

    @property
    def labels(self) -> sp.csr_array | None:
        """Read-only boolean ``(num_edges × len(vocabulary))`` CSR matrix of edge labels, or ``None``.

        A new matrix object on each access, over the graph's read-only arrays: reassigning its
        attributes (``labels.indices = ...``) changes that object, never the graph."""
        if self._labels is None:
            return None
        m = self._labels
        return sp.csr_array((m.data, m.indices, m.indptr), shape=m.shape, copy=False)

    @property
    def vocabulary(self) -> tuple[str, ...] | None:
        """Sorted names of the label matrix's columns, or ``None`` for an unlabeled graph."""
        return self._vocabulary

    @property
    def edge_keys(self) -> np.ndarray:
        """Sorted ``int64`` key ``src * n + dst`` of every edge; used for fast set algebra on edges."""
        keys = self._keys
        if keys is None:
            n = np.int64(max(self._num_nodes, 1))
            keys = _readonly(self._src * n + self._dst)
            object.__setattr__(self, "_keys", keys)
        return keys

    def edge_index(self, u: int, v: int) -> int:
        """Position of edge ``{u, v}`` (node indices) in :attr:`edges`; ``KeyError`` if absent
        (including when ``u`` or ``v`` is not a node), ``TypeError`` if ``u`` or ``v`` is not an integer."""
        for name, x in (("u", u), ("v", v)):
            if isinstance(x, (bool, np.bool_)) or not isinstance(x, Integral):
                raise TypeError(f"{name} must be an integer node index, got {x!r} ({type(x).__name__})")
        u, v = int(u), int(v)
        if u == v or not (0 <= u < self._num_nodes and 0 <= v < self._num_nodes):
            raise KeyError(f"no edge between {u} and {v}")
        lo, hi = (u, v) if u < v else (v, u)
        key = np.int64(lo) * np.int64(max(self._num_nodes, 1)) + np.int64(hi)  # < n² <= 2**63
        pos = int(np.searchsorted(self.edge_keys, key))
        if pos == self.num_edges or self.edge_keys[pos] != key:
            raise KeyError(f"no edge between {u} and {v}")
        return pos

    def has_edge(self, u: int, v: int) -> bool:
        """Whether ``{u, v}`` (node indices) is an edge; ``False`` for indices that are not nodes."""
        try:
            self.edge_index(u, v)
        except KeyError:
            return False
        return True

    def edge_labels(self, u: int, v: int) -> frozenset[str]:
        """The labels of edge ``{u, v}`` (node indices)."""
        if self._labels is None:
            raise ValueError("graph is unlabeled")
        assert self._vocabulary is not None  # a labeled graph has its vocabulary (every _from_canonical with labels passes one)
        i = self.edge_index(u, v)
        row = self._labels.indices[self._labels.indptr[i] : self._labels.indptr[i + 1]]
        return frozenset(self._vocabulary[j] for j in row)

    def label_sets(self) -> list[frozenset[str]]:
        """Labels of every edge, in edge order (plain Python; for tests and small graphs)."""
        if self._labels is None:
            raise ValueError("graph is unlabeled")
        assert self._vocabulary is not None  # a labeled graph has its vocabulary (every _from_canonical with labels passes one)
        ind, ptr, vocab = self._labels.indices, self._labels.indptr, self._vocabulary
        return [frozenset(vocab[j] for j in ind[ptr[i] : ptr[i + 1]]) for i in range(self.num_edges)]

    def adjacency(self) -> sp.csr_array:
        """Symmetric ``(n × n)`` 0/1 adjacency matrix (``int64``, CSR)."""
        n = self._num_nodes
        rows = np.concatenate([self._src, self._dst])
        cols = np.concatenate([self._dst, self._src])
        return sp.csr_array((np.ones(rows.size, dtype=np.int64), (rows, cols)), shape=(n, n))

    def edge_adjacency(self) -> sp.csr_array:
        """Sparse ``(E × n)`` incidence matrix: row ``e`` has ones at both endpoints of edge ``e``."""
        e = self.num_edges
        rows = np.repeat(np.arange(e, dtype=np.int64), 2)
        cols = np.column_stack([self._src, self._dst]).reshape(-1)
        return sp.csr_array((np.ones(2 * e, dtype=np.int64), (rows, cols)), shape=(e, self._num_nodes))

    # ------------------------------------------------------------------ conversions
    def to_networkx(self, label_attr: str = "labels"):
        """A new ``networkx.Graph`` with the public node ids and, if labeled, a ``frozenset`` of
        labels on each edge under ``label_attr``."""
        import networkx as nx

        names = list(self._node_ids if self._node_ids is not None else range(self._num_nodes))
        out = nx.Graph()
        out.add_nodes_from(names)
        if self._labels is None:
            out.add_edges_from((names[a], names[b]) for a, b in zip(self._src.tolist(), self._dst.tolist()))
        else:
            out.add_edges_from(
                (names[a], names[b], {label_attr: lab}) for a, b, lab in zip(self._src.tolist(), self._dst.tolist(), self.label_sets())
            )
        return out

    def without_labels(self) -> Graph:
        """The same structure with the labels dropped."""
        return Graph._from_canonical(num_nodes=self._num_nodes, src=self._src, dst=self._dst, node_ids=self._node_ids)

    def with_label_sets(self, label_sets: Sequence[Iterable[str]]) -> Graph:
        """The same structure with new labels (one iterable of strings per edge, in edge order)."""
        if isinstance(label_sets, (str, bytes)) or not isinstance(label_sets, Iterable):
            raise TypeError(f"label_sets must be a sequence of label sets (one per edge), got {type(label_sets).__name__}")
        if isinstance(label_sets, (set, frozenset, dict)):
            raise TypeError(f"label_sets must be an ordered sequence (one label set per edge), got a {type(label_sets).__name__}")
        if not isinstance(label_sets, Sized):
            label_sets = list(label_sets)
        if len(label_sets) != self.num_edges:
            raise ValueError("label_sets must hold one label set per edge")
        matrix, vocab = _build.label_matrix_of_sets(label_sets, np.arange(self.num_edges), self.num_edges)
        return Graph._from_canonical(
            num_nodes=self._num_nodes, src=self._src, dst=self._dst, labels=matrix, vocabulary=vocab, node_ids=self._node_ids
        )

    # ------------------------------------------------------------------ value semantics
    def same_node_set(self, other: Graph) -> bool:
        """Whether both graphs have the same public node set (size and ids)."""
        return self._num_nodes == other._num_nodes and self._node_ids == other._node_ids

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Graph):
            return NotImplemented
        if not self.same_node_set(other) or not np.array_equal(self.edge_keys, other.edge_keys):
            return False
        if (self._labels is None) != (other._labels is None):
            return False
        return self._labels is None or self.label_sets() == other.label_sets()

    def __hash__(self) -> int:
        value = self._hash
        if value is None:
            labels = None if self._labels is None else tuple(self.label_sets())
            value = hash((self._num_nodes, self._node_ids, self.edge_keys.tobytes(), labels))
            object.__setattr__(self, "_hash", value)
        return value

    def __repr__(self) -> str:
        return f"Graph(num_nodes={self._num_nodes}, num_edges={self.num_edges}, labeled={self.is_labeled})"
