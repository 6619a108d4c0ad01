"""The compiled loops of the graph build and of the label counts (Numba, :mod:`._engine`).

* :func:`canonical_edges`: the canonical edges of :meth:`Graph.from_edges` / ``from_arrays``
  (:func:`opendp_graph.core.graph._canonical_edges`);
* :func:`label_rows`: the canonical label matrix (:func:`opendp_graph.core.graph._label_rows`);
* :func:`first_label_counts`: the counts of each edge's first labels
  (:func:`opendp_graph.transformations.labels.selected_label_counts`).

The statistics engine's loops are in :mod:`opendp_graph.pufferfish._compiled`.
"""

from __future__ import annotations

import numpy as np

from ._engine import jit

__all__ = ["canonical_edges", "first_label_counts", "label_rows"]


@jit
def canonical_edges(u, v, start, larger, inverse):
    """``start`` (zeros, ``n + 1``) becomes the first output edge of each node, ``larger[:k]``
    the larger endpoints of the ``k`` distinct edges (returned), ``inverse`` each input edge's
    output position. Counting sort by the smaller endpoint into ``larger`` (with the input
    position in ``slot``), each node's run sorted by the larger endpoint, repeats merged
    (packed to the left: a write never passes the read)."""
    n = start.size - 1
    for i in range(u.size):
        start[min(u[i], v[i]) + 1] += 1
    for x in range(n):
        start[x + 1] += start[x]
    fill = start[:-1].copy()
    slot = np.empty(u.size, dtype=inverse.dtype)
    for i in range(u.size):
        a, b = u[i], v[i]
        if a > b:
            a, b = b, a
        p = fill[a]
        fill[a] = p + 1
        larger[p] = b
        slot[p] = i
    top = 0
    for x in range(n):
        begin, end = start[x], start[x + 1]
        start[x] = top
        if end - begin <= 16:  # a few edges per node: insertion sort (a library call costs more)
            for j in range(begin + 1, end):
                key, who = larger[j], slot[j]
                i = j - 1
                while i >= begin and larger[i] > key:
                    larger[i + 1] = larger[i]
                    slot[i + 1] = slot[i]
                    i -= 1
                larger[i + 1] = key
                slot[i + 1] = who
        else:
            order = np.argsort(larger[begin:end], kind="mergesort")
            larger[begin:end] = larger[begin:end][order]
            slot[begin:end] = slot[begin:end][order]
        for j in range(begin, end):
            if j == begin or larger[j] != larger[top - 1]:
                larger[top] = larger[j]
                top += 1
            inverse[slot[j]] = top - 1
    start[n] = top
    return top


@jit
def label_rows(row, col, data, inverse, rank, indptr, room):
    """``indptr`` (zeros, ``edges + 1``) and ``room`` (one slot per non-zero label) become the
    canonical CSR: labels counted per canonical edge, placed (the pointer of each row
    advancing to the next row's start, then shifted back), each row sorted and its repeats
    dropped (packed to the left: a write never passes the read)."""
    E = indptr.size - 1
    for p in range(row.size):
        if data[p] != 0:
            indptr[inverse[row[p]] + 1] += 1
    for e in range(E):
        indptr[e + 1] += indptr[e]
    for p in range(row.size):
        if data[p] != 0:
            e = inverse[row[p]]
            room[indptr[e]] = rank[col[p]]
            indptr[e] += 1
    for e in range(E, 0, -1):
        indptr[e] = indptr[e - 1]
    indptr[0] = 0
    top = 0
    start = 0
    last = 0
    for e in range(E):
        end = indptr[e + 1]
        if end - start <= 16:  # a few labels per edge: insertion sort (a library call costs more)
            for j in range(start + 1, end):
                x = room[j]
                i = j - 1
                while i >= start and room[i] > x:
                    room[i + 1] = room[i]
                    i -= 1
                room[i + 1] = x
        else:
            room[start:end].sort()
        for j in range(start, end):
            if j == start or room[j] != last:
                last = room[j]
                room[top] = last
                top += 1
        start = end
        indptr[e + 1] = top


@jit
def first_label_counts(indptr, indices, rank_of_column, cap, counts, ranks):
    """``counts[r] += 1`` for the ``cap`` smallest ranks of each row (all if ``cap < 0``),
    columns outside the vocabulary (rank −1) dropped; ``ranks``: room for one row."""
    for e in range(indptr.size - 1):
        m = 0
        for p in range(indptr[e], indptr[e + 1]):
            r = rank_of_column[indices[p]]
            if r >= 0:
                ranks[m] = r
                m += 1
        if 0 <= cap < m:
            ranks[:m].sort()
            m = cap
        for i in range(m):
            counts[ranks[i]] += 1
