"""How a :class:`~opendp_graph.core.graph.Graph` is built: the checks of what a caller hands to
``Graph.from_edges`` / ``from_arrays`` / ``from_networkx`` (node indices, node ids, vocabularies,
label matrices, label sets) and the canonical form every guarantee assumes (edges once, as
``src < dst``, sorted; labels as a sorted-vocabulary CSR matrix), placed by the compiled kernels
of :mod:`._kernels`. The container itself (:mod:`.graph`) only stores and reads that form.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterator, Sequence
from numbers import Integral
from typing import Any

import numpy as np
import scipy.sparse as sp

from . import _kernels

__all__ = ["MAX_NUM_NODES", "node_id_tuple", "check_node_ids", "check_vocabulary", "check_label_matrix", "label_matrix_of_sets"]

_SELF_LOOP_CHOICES = ("error", "drop")

#: The largest supported node count: the largest ``n`` whose biggest edge key,
#: ``(n - 1) * n + (n - 1) = n² - 1``, fits in ``int64``. Every place that builds edge keys relies on it.
MAX_NUM_NODES = math.isqrt(2**63)  # 3_037_000_499: n² - 1 < 2**63 exactly when n² <= 2**63


def _check_num_nodes(num_nodes: Any) -> int:
    """``int(num_nodes)`` if it is an integer (not a bool) in ``0..MAX_NUM_NODES``."""
    if isinstance(num_nodes, bool) or not isinstance(num_nodes, Integral):
        raise TypeError(f"num_nodes must be a non-negative integer, got {num_nodes!r} ({type(num_nodes).__name__})")
    if num_nodes < 0:
        raise ValueError(f"num_nodes must be a non-negative integer, got {num_nodes}")
    if int(num_nodes) > MAX_NUM_NODES:  # int(): the numbers ABC promises only < and <=
        raise ValueError(
            f"num_nodes is {num_nodes}, above the largest supported node count {MAX_NUM_NODES} (edge keys src * num_nodes + dst must fit in int64)"
        )
    return int(num_nodes)


def _too_large(name: str) -> ValueError:
    # never the index itself: a refusal of private data names the broken rule, not a value read from it
    return ValueError(
        f"{name} holds a node index above the largest supported node index {MAX_NUM_NODES - 1} (a graph has at most {MAX_NUM_NODES} nodes)"
    )


# one message whatever the offending value (a string, a bool, NaN, 1.5): its kind is read off the data
_NOT_INDICES = "{name} must hold integer node indices (integers, or floats that are whole numbers)"


def _as_index_array(values: Any, name: str, copy: bool = True) -> np.ndarray:
    """Return ``values`` as a fresh int64 array of node indices in ``0..MAX_NUM_NODES-1``
    (with ``copy=False``, for callers that only read: the input itself when it is an int64 or
    int32 array, so that 32-bit ids cost no 64-bit copy).

    Accepts integer arrays (signed or unsigned), float arrays holding whole numbers, and sequences of
    Python integers. The range is checked *before* the cast to ``int64``, so nothing wraps around.
    """
    if isinstance(values, (str, bytes)) or isinstance(values, (set, frozenset, dict)):
        raise TypeError(f"{name} must be a one-dimensional array or sequence of node indices, got {type(values).__name__}")
    if isinstance(values, Iterator):
        values = list(values)
    if isinstance(values, (list, tuple)):
        for item in values:
            if isinstance(item, (bool, np.bool_)):
                raise TypeError(_NOT_INDICES.format(name=name))
    try:
        arr = np.asarray(values)
    except ValueError:  # numpy's message on ragged input quotes its shape
        raise TypeError(f"{name} must be a one-dimensional array or sequence of node indices (got a ragged one)") from None
    if arr.ndim == 0:
        raise TypeError(f"{name} must be a one-dimensional array or sequence of node indices, got {type(values).__name__}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional")
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    kind = arr.dtype.kind
    if kind == "O":
        # e.g. Python integers too large for any numpy integer type: check them one by one
        for bad in arr:
            if isinstance(bad, (bool, np.bool_)) or not isinstance(bad, Integral):
                raise TypeError(_NOT_INDICES.format(name=name))
        low, high = min(arr), max(arr)
    elif kind in "iu":
        low, high = int(arr.min()), int(arr.max())
    elif kind == "f":
        finite = np.isfinite(arr)
        if not finite.all():
            raise TypeError(_NOT_INDICES.format(name=name))
        fractional = arr != np.floor(arr)
        if fractional.any():
            raise TypeError(_NOT_INDICES.format(name=name))
        low, high = float(arr.min()), float(arr.max())  # compare as Python numbers: no cast of the limit to float16
    else:
        raise TypeError(_NOT_INDICES.format(name=name))
    if low < 0:
        raise ValueError(f"{name} holds a negative node index")
    if high > MAX_NUM_NODES - 1:
        raise _too_large(name)
    if not copy and arr.dtype in (np.int32, np.int64):
        return arr
    return arr.astype(np.int64)


def _unique_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values of an int64 array and each value's position among them.

    Sort-based on purpose: NumPy 2.x's hash-based ``np.unique`` measured 100× slower than a sort on
    10 M int64 keys on our machine (38 s against 0.35 s).
    """
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    first = np.empty(ordered.size, dtype=bool)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    unique = ordered[first]
    position = np.cumsum(first, out=ordered)  # reuse: one int64 per key less at the peak
    position -= 1
    del first
    inverse = np.empty(keys.size, dtype=np.int64)
    inverse[order] = position
    return unique, inverse


def _canonical_edges(u: np.ndarray, v: np.ndarray, num_nodes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The simple graph of the edges ``{u[i], v[i]}`` (already checked: in range, no self-loop):
    ``(src, dst, inverse)`` with ``src < dst`` sorted by ``(src, dst)`` without repeats (int64)
    and input edge ``i`` at position ``inverse[i]``.

    A compiled counting sort of the edges by their smaller endpoint, then a sort of each node's
    larger endpoints (:func:`opendp_graph.core._kernels.canonical_edges`): 32-bit work arrays where
    they fit, about 12 bytes per input edge and 16 per node beside the inputs and the result.
    When isolated nodes outnumber the edges, those per-node arrays would dwarf the graph, and
    :func:`_canonical_edges_by_sort` runs instead (the same arrays; measured with 1,000 edges
    among 10⁸ nodes: 33 s and +991 MiB for the counting sort against 0.3 ms for the sort)."""
    n = max(num_nodes, 1)
    if n > 2 * u.size + 1024:
        return _canonical_edges_by_sort(u, v, n)
    start = np.zeros(n + 1, dtype=np.int64)
    larger = np.empty(u.size, dtype=np.int32 if n < 2**31 else np.int64)
    inverse = np.empty(u.size, dtype=np.int32 if u.size < 2**31 else np.int64)
    edges = _kernels.canonical_edges(u, v, start, larger, inverse)
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(start))
    del start
    dst = larger[:edges].astype(np.int64)
    return src, dst, inverse


def _canonical_edges_by_sort(u: np.ndarray, v: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_canonical_edges` by a sort of the keys ``min·n + max`` (``n >= 1``): about 33 bytes
    per input edge beside the inputs, nothing per node (for graphs of mostly isolated nodes)."""
    keys = np.minimum(u, v).astype(np.int64)  # in place from here: the temporaries are the build's peak memory
    keys *= np.int64(n)
    keys += np.maximum(u, v)  # < n² <= 2**63
    unique_keys, inverse = _unique_keys(keys)
    del keys
    src, dst = np.divmod(unique_keys, n)
    return src, dst, inverse


def _sort_order(words: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(order, rank)`` of a list of strings in Python's order: ``words[order[k]]`` is the
    ``k``-th smallest and ``rank[j]`` the place of ``words[j]`` (int64; empty for no words)."""
    order = np.argsort(np.asarray(words, dtype=object)).astype(np.int64) if words else np.zeros(0, dtype=np.int64)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return order, rank


def _any_equal(u: np.ndarray, v: np.ndarray) -> bool:
    """``(u == v).any()`` in chunks (no boolean array of the full length)."""
    step = 1 << 22
    return any(bool(np.equal(u[i : i + step], v[i : i + step]).any()) for i in range(0, u.size, step))


def _label_rows(coo: sp.coo_array, inverse: np.ndarray, rank: np.ndarray, num_edges: int) -> sp.csr_array:
    """The canonical label matrix (``num_edges × len(rank)``, CSR, bool, rows sorted, no
    duplicates) of the labels ``coo`` of the input edges: input edge ``i`` is canonical edge
    ``inverse[i]``, input column ``j`` is column ``rank[j]``; explicit zeros dropped.

    A compiled counting sort of the labels by canonical edge and a sort of each row
    (:func:`opendp_graph.core._kernels.label_rows`): one int32 per label and per edge (where they
    fit) beside the input."""
    shape = (num_edges, rank.size)
    pairs = int(np.count_nonzero(coo.data))
    # 32-bit indices and pointers when they fit (SciPy keeps the two in one dtype)
    small = max(pairs, *shape) < 2**31 - 1
    indptr = np.zeros(num_edges + 1, dtype=np.int32 if small else np.int64)
    room = np.empty(pairs, dtype=np.int32 if small else np.int64)
    _kernels.label_rows(coo.row, coo.col, coo.data, inverse, rank, indptr, room)
    nnz = int(indptr[-1])
    indices = room if nnz == room.size else room[:nnz].copy()  # repeated labels: release the room
    del room
    return sp.csr_array((np.ones(nnz, dtype=bool), indices, indptr), shape=shape)


def _check_self_loops(choice: str) -> None:
    if choice not in _SELF_LOOP_CHOICES:
        raise ValueError(f"self_loops must be one of {_SELF_LOOP_CHOICES}, got {choice!r}")


def _label_set(value: Any, where: str) -> frozenset[str]:
    """One edge's labels: an iterable of strings (a bare string is ambiguous, so rejected)."""
    if value is None:
        return frozenset()
    if isinstance(value, (str, bytes)):
        raise TypeError(f"labels of {where} must be an iterable of strings, got a single string; wrap it in a list")
    try:
        items = frozenset(value)
    except TypeError:
        raise TypeError(f"labels of {where} must be an iterable of strings") from None
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"labels of {where} must be strings")
    if any(type(item) is not str for item in items):  # e.g. numpy.str_: store plain strings
        items = frozenset(str(item) for item in items)
    return items


def node_id_tuple(node_ids: Any) -> tuple | None:
    if node_ids is None:
        return None
    if isinstance(node_ids, (str, bytes)):
        raise TypeError(f"node_ids must be a sequence of node names, got a single string {node_ids!r}")
    if isinstance(node_ids, (set, frozenset, dict)):
        raise TypeError(f"node_ids must be an ordered sequence of node names, got a {type(node_ids).__name__}")
    try:
        return tuple(node_ids)
    except TypeError:
        raise TypeError(f"node_ids must be a sequence of node names, got {type(node_ids).__name__}") from None


def check_node_ids(ids: tuple | None, num_nodes: int) -> tuple | None:
    if ids is None:
        return None
    if len(ids) != num_nodes:
        raise ValueError(f"node_ids has {len(ids)} entries for {num_nodes} nodes")
    try:
        distinct = len(set(ids))
    except TypeError:
        raise TypeError("node_ids must be hashable") from None
    if distinct != len(ids):
        raise ValueError("node_ids are not distinct")
    # An id unequal to itself (a NaN) matches no node of another graph, and the projection's scan
    # order, a function of the ids, could not tell two of them apart: refused like a repeated id.
    if any(x != x for x in ids):
        raise ValueError("node_ids must each equal itself (a NaN names no node: use another id)")
    return ids


def check_vocabulary(vocabulary: Any) -> list[str]:
    if isinstance(vocabulary, (str, bytes)):
        raise TypeError(f"vocabulary must be a sequence of strings, got a single string {vocabulary!r}")
    if isinstance(vocabulary, (set, frozenset, dict)):
        raise TypeError(f"vocabulary must be an ordered sequence of strings (one per column), got a {type(vocabulary).__name__}")
    vocab = list(vocabulary)
    for w in vocab:
        if not isinstance(w, str):
            raise TypeError("vocabulary must hold strings")  # never the entry: labels may be private
    vocab = [str(w) for w in vocab]  # numpy.str_ → str
    if len(set(vocab)) != len(vocab):
        raise ValueError("vocabulary has duplicate entries")
    return vocab


def check_label_matrix(label_matrix: Any, shape: tuple[int, int]) -> sp.coo_array:
    """The label matrix as COO after checking its shape and that every stored entry is 0/1.
    One message per rule whatever the offending entry (a string, ``None``, ``2``) or the
    matrix's size: a refusal of private data names the rule, never what broke it."""
    if not sp.issparse(label_matrix):
        try:
            dense = np.asarray(label_matrix)
        except ValueError:  # numpy's message on a ragged matrix quotes its number of rows
            dense = None
        if dense is None or dense.ndim != 2:
            raise ValueError(_LABEL_SHAPE)
        label_matrix = dense
    if label_matrix.dtype.kind not in "biuf":
        raise ValueError(_LABEL_ENTRIES)
    coo = sp.coo_array(label_matrix)
    if coo.shape != shape:
        raise ValueError(_LABEL_SHAPE)
    data = coo.data
    if data.dtype.kind != "b":
        bad = (data != 0) & (data != 1)  # NaN compares unequal to both
        if bad.any():
            raise ValueError(_LABEL_ENTRIES)
    return coo


_LABEL_SHAPE = "label_matrix must be two-dimensional, with one row per edge and one column per vocabulary entry"
_LABEL_ENTRIES = "label_matrix must hold 0/1 (or bool) entries"


def label_matrix_of_sets(labels: Sequence[Any], edge_of: np.ndarray, num_edges: int) -> tuple[sp.csr_array, tuple[str, ...]]:
    """The canonical label matrix and sorted vocabulary of one iterable of strings per input
    edge (input edge ``i`` is canonical edge ``edge_of[i]``; repeated edges' labels united).
    One pass checks and codes each edge's labels (a word's code: its first appearance) into
    flat arrays, with no set kept per edge; the matrix is then placed as in :meth:`Graph.from_arrays`."""
    code: dict[str, int] = {}
    sizes, cols = array("i"), array("i")  # 32-bit: a word's code and an edge's label count
    for value in labels:
        items = _label_set(value, "an edge")
        sizes.append(len(items))
        cols.extend([code.setdefault(word, len(code)) for word in items])
        if len(code) > 2**31 - 2:
            raise ValueError("more than 2**31 - 2 distinct labels")
    words = list(code)
    order, rank = _sort_order(words)
    edges = len(sizes)
    rows = np.repeat(np.arange(edges, dtype=np.int32 if edges < 2**31 - 1 else np.int64), np.frombuffer(sizes, dtype=np.int32))
    del sizes
    coo = sp.coo_array((np.ones(rows.size, dtype=bool), (rows, np.frombuffer(cols, dtype=np.int32))), shape=(edges, len(words)))
    return _label_rows(coo, edge_of, rank, num_edges), tuple(words[i] for i in order.tolist())
