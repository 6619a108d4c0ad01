"""The statistics engine's compiled passes (Numba, :mod:`opendp_graph.core._engine`): the histograms
that :func:`._stats.neighbourhood_stats` reads, in loops that touch each probe once and hold no
(edge × something) temporary.

Notation as in :mod:`._stats`: ``C[x, a]`` = edges at node ``x`` carrying property ``a``;
secret ``(e, a)``, ``e = {u, v}``, has ``g = C[u, a] + C[v, a]`` and goes to the flat bin
``prop_key[a] + seg_start[sb[e]] + g`` of ``every`` (and of ``labelled`` if ``e`` carries ``a``).

1. **C** (CSR, ``n × P``, int32 counts, each row sorted by property): the labels of the edges
   at each node are listed per node (a counting sort over the edges), then counted with a dense
   scratch row: once for the row lengths (so that C is allocated at its exact size), once for
   the rows.
2. **Probe side**: each edge scans the endpoint ``w`` whose row of ``C`` is shorter and probes
   the other, ``o``; the edges are grouped by ``o`` (a counting sort).
3. **Sweep**, per probed node ``o``: its row of ``C`` is written into a dense table (one entry
   per property), then

   * every property seen at ``o`` gets ``+probed(o, s)`` at ``g = C[o, a]`` for each size bucket
     ``s`` (``probed(o, s)`` = edges of bucket ``s`` probed at ``o``): the secrets seen at ``o``,
     as if unseen at the other end;
   * each edge walks its scanned row ``C[w]``: ``+1`` at ``C[w, a] + C[o, a]`` and ``−1`` at
     ``C[o, a]`` (which undoes the first item's count where ``o`` sees ``a``; where it does not,
     the ``−1`` lands in the scratch bin ``g = 0``). The edge's own labels are among the
     properties seen at ``w`` and both lists are sorted, so one merge finds them: each adds
     ``+1`` to ``labelled`` at the same ``g`` and ``g − 2`` to ``a1``;
   * the table is cleared by the same row.

   Secrets seen at neither end have ``g = 0``: bin 0 is scratch, filled by subtraction in
   :func:`._stats.neighbourhood_stats`.

Work: ``4·pairs`` for C, ``Σ_e min(|C[u]|, |C[v]|)`` probes, ``nnz(C)·(buckets + 2)`` for the
tables; memory: C, the per-node label lists while C is built (one int32 per labelled pair and
endpoint), the edges by probed node, and a table and a pair of histograms per thread; no
(edge × something) temporary. The sweep runs on several threads (``nogil``): each takes runs of
probed nodes of about equal work into histograms of its own. The tests compare every histogram,
threaded and on one thread, with a scan of every secret's closed neighbourhood
(``tests/pufferfish/engines.py``, used by ``tests/pufferfish/test_stats_skewed.py`` and ``tests/pufferfish/test_pufferfish.py``).

Compiled on first use and cached on disk by Numba (a few seconds once per installation).
"""

from __future__ import annotations

import functools
import threading

import numpy as np

from ..core._engine import jit

__all__ = ["labels_by_node", "row_lengths", "fill_rows", "probe_order", "sweep", "compiled_passes"]


@jit
def labels_by_node(n, src, dst, by_prop_ptr, by_prop_edge, ptr, label):
    """Each node's labelled pairs (the labels of the edges at it, with repeats), in one list
    per node sorted by property: ``label[ptr[x]:ptr[x + 1]]`` (``ptr`` zero, length
    ``n + 1``; ``label`` with one slot per labelled pair and endpoint). A counting sort by
    node of the pairs taken property by property (``by_prop_*``: the label matrix by
    column), so that every list comes out sorted."""
    P = by_prop_ptr.size - 1
    for k in range(by_prop_edge.size):
        e = by_prop_edge[k]
        ptr[src[e] + 1] += 1
        ptr[dst[e] + 1] += 1
    for x in range(n):
        ptr[x + 1] += ptr[x]
    fill = ptr[:-1].copy()
    for a in range(P):
        for k in range(by_prop_ptr[a], by_prop_ptr[a + 1]):
            e = by_prop_edge[k]
            label[fill[src[e]]] = a
            fill[src[e]] += 1
            label[fill[dst[e]]] = a
            fill[dst[e]] += 1


@jit
def row_lengths(n, ptr, label, Cptr):
    """``Cptr``: the CSR pointer of ``C`` (the distinct labels in each node's sorted list)."""
    Cptr[0] = 0
    for x in range(n):
        distinct = 0
        for j in range(ptr[x], ptr[x + 1]):
            if j == ptr[x] or label[j] != label[j - 1]:
                distinct += 1
        Cptr[x + 1] = Cptr[x] + distinct


@jit
def fill_rows(n, ptr, label, Cptr, Cidx, Cdata):
    """The rows of ``C`` (sorted by property): each node's sorted list, run-length coded."""
    for x in range(n):
        top = Cptr[x] - 1
        for j in range(ptr[x], ptr[x + 1]):
            if j == ptr[x] or label[j] != label[j - 1]:
                top += 1
                Cidx[top] = label[j]
                Cdata[top] = 1
            else:
                Cdata[top] += 1


@jit
def probe_order(n, src, dst, Cptr, ptr, out, work):
    """The edges grouped by probed node ``o`` (``out[ptr[o]:ptr[o + 1]]``; ``ptr`` zero,
    length ``n + 1``), and each node's sweep work (``work``: zero, length ``n``)."""
    E = src.size
    for e in range(E):
        u, v = src[e], dst[e]
        lu, lv = Cptr[u + 1] - Cptr[u], Cptr[v + 1] - Cptr[v]
        o, lw = (v, lu) if lu <= lv else (u, lv)
        ptr[o + 1] += 1
        work[o] += lw
    for x in range(n):
        ptr[x + 1] += ptr[x]
        if ptr[x + 1] > ptr[x]:
            work[x] += 2 + 3 * (Cptr[x + 1] - Cptr[x])
    fill = ptr[:-1].copy()
    for e in range(E):
        u, v = src[e], dst[e]
        lu, lv = Cptr[u + 1] - Cptr[u], Cptr[v + 1] - Cptr[v]
        o = v if lu <= lv else u
        out[fill[o]] = e
        fill[o] += 1


@jit
def sweep(lo, hi, ptr, order, src, dst, Cptr, Cidx, Cdata, Lptr, Lidx, sb, seg_start, prop_key, table, per_bucket, every, labelled):
    """The secrets of the edges probed at nodes ``lo..hi − 1`` into ``every`` and, for the
    labelled ones, ``labelled``; returns their share of ``a1`` (``table``: zeros, one per
    property, left zero; ``per_bucket``: one per size bucket)."""
    nSB = per_bucket.size
    a1 = 0
    for o in range(lo, hi):
        if ptr[o] == ptr[o + 1]:
            continue
        c0, c1 = Cptr[o], Cptr[o + 1]
        for j in range(c0, c1):
            table[Cidx[j]] = Cdata[j]
        per_bucket[:] = 0
        for k in range(ptr[o], ptr[o + 1]):
            per_bucket[sb[order[k]]] += 1
        for s in range(nSB):
            count = per_bucket[s]
            if count:
                at = seg_start[s]
                for j in range(c0, c1):
                    every[prop_key[Cidx[j]] + at + Cdata[j]] += count
        for k in range(ptr[o], ptr[o + 1]):
            e = order[k]
            w = dst[e] if src[e] == o else src[e]
            at = seg_start[sb[e]]
            # e's own labels are among the properties seen at w, and both lists are
            # sorted: one merge along the walk finds them (nxt: the next label, −1 after)
            q, q_end = Lptr[e], Lptr[e + 1]
            nxt = Lidx[q] if q < q_end else -1
            for j in range(Cptr[w], Cptr[w + 1]):
                a = Cidx[j]
                key = prop_key[a] + at + table[a]
                every[key + Cdata[j]] += 1
                every[key] -= 1  # a miss (C[o, a] = 0) lands in the scratch bin g = 0
                if a == nxt:
                    labelled[key + Cdata[j]] += 1
                    a1 += table[a] + Cdata[j] - 2
                    q += 1
                    nxt = Lidx[q] if q < q_end else -1
            if q != q_end:  # never silently: a label missed by the merge would be uncounted
                raise ValueError("a label row of the graph is not sorted by property")
        for j in range(c0, c1):
            table[Cidx[j]] = 0
    return a1


def _index_dtype(largest: int):
    return np.int32 if largest < 2**31 else np.int64


def compiled_passes(n, src, dst, L, sb, seg_start, prop_key, every, labelled, workers: int, report, pool_jobs) -> int:
    """Fill ``every`` / ``labelled`` (see the module docstring) and return ``a1``.

    ``L`` is the canonical CSR label matrix (edges × properties); ``sb`` each edge's size bucket;
    ``pool_jobs(jobs)`` runs ``job(every, labelled)`` callables on the worker threads, each into
    histograms of its own that it adds to ``every`` / ``labelled`` (see ``_stats._run_jobs``).
    """
    E = int(src.size)
    P = int(L.shape[1])
    Lptr = L.indptr  # int32 or int64, as the graph stores it (no per-edge copy)
    Lidx = L.indices.astype(np.int32, copy=False) if P < 2**31 else L.indices

    # 1. C: each node's labels listed in order of property, then run-length coded
    by_prop = L.tocsc()  # the pairs by property
    ptr = np.zeros(n + 1, dtype=np.int64)
    label = np.empty(2 * Lidx.size, dtype=np.int32)  # one slot per labelled pair and endpoint
    labels_by_node(n, src, dst, by_prop.indptr.astype(np.int64, copy=False), by_prop.indices, ptr, label)
    del by_prop
    Cptr = np.empty(n + 1, dtype=np.int64)
    row_lengths(n, ptr, label, Cptr)
    nnz = int(Cptr[-1])
    Cidx = np.empty(nnz, dtype=np.int32)
    Cdata = np.empty(nnz, dtype=np.int32)
    fill_rows(n, ptr, label, Cptr, Cidx, Cdata)
    del ptr, label

    # 2. the edges by probed node, and the sweep's work per node
    ptr = np.zeros(n + 1, dtype=np.int64)
    order = np.empty(E, dtype=_index_dtype(E))
    work = np.zeros(n, dtype=np.int64)
    probe_order(n, src, dst, Cptr, ptr, order, work)

    # 3. the sweep, in runs of probed nodes of about equal work (several per thread, so that the
    # progress moves and a slow run does not hold the others)
    ends = np.cumsum(work)
    total = int(ends[-1]) if n else 0
    report.start(total + 1)
    report.advance(1)
    runs = max(1, min(n, workers * max(1, total // _RUN_WORK + 1)))
    cuts = np.unique(np.concatenate([[0], np.searchsorted(ends, np.arange(1, runs) * (total / runs)), [n]]).astype(np.int64))
    nSB = int(seg_start.size)
    local = threading.local()  # each thread's table (left zero by every run) and bucket counts

    def run(lo: int, hi: int, ev: np.ndarray, lb: np.ndarray) -> int:
        if not hasattr(local, "table"):
            local.table, local.per_bucket = np.zeros(P, dtype=np.int32), np.zeros(nSB, dtype=np.int64)
        a1 = sweep(lo, hi, ptr, order, src, dst, Cptr, Cidx, Cdata, Lptr, Lidx, sb, seg_start, prop_key, local.table, local.per_bucket, ev, lb)
        report.advance(int(ends[hi - 1] - (ends[lo - 1] if lo else 0)))
        return int(a1)

    jobs = [functools.partial(run, int(lo), int(hi)) for lo, hi in zip(cuts[:-1], cuts[1:]) if hi > lo]
    return pool_jobs(jobs)


_RUN_WORK = 2**24  # probes per run of the sweep (about a tenth of a second)
