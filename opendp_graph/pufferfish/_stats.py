"""Exact neighbourhood statistics of a labelled graph (the engine behind the models).

Notation (paper 001 §4): edge ``e = {u, v}``; its closed neighbourhood ``N[e]`` is ``e`` and
every edge sharing an endpoint with it, of size ``N_e = deg(u) + deg(v) − 1``; ``nb_e = N_e − 1``
adjacent edges. For a property ``a``, ``C[x, a]`` is the number of edges at node ``x`` that carry
``a`` (a sparse ``n × P`` matrix, ``C = incidenceᵀ · labels``). The statistic of the secret
``(e, a)`` is ``f(e, a)`` = the number of edges of ``N[e]`` carrying ``a``, *central edge
included*:

* if ``e`` carries ``a`` (secret ``s¹``): ``f = C[u, a] + C[v, a] − 1`` (``e`` is counted at both ends);
* if not (``s⁰``): ``f = C[u, a] + C[v, a]``.

There are ``E·P`` secrets, far too many to list, and no (edge × property) structure is ever
built. The compiled passes of :mod:`._compiled` (Numba, a required dependency: see
:mod:`opendp_graph.core._engine`) fill two flat histograms indexed by (property-frequency bucket,
neighbourhood-size bucket, ``g``), ``g = C[u, a] + C[v, a]``: ``every`` over all secrets with
``g > 0`` and ``labelled`` over the ``s¹`` ones, walking each edge's scanned row of ``C`` once
against a table of the probed endpoint's row. Then ``hist1[f] = labelled[f + 1]``,
``hist0 = every − labelled``, and the ``s⁰`` secrets with ``f = 0`` are counted by subtraction
(bin ``g = 0`` is never counted directly). Size bucket ``s`` only holds ``g <= max N_e + 1``
of its edges, so the histograms are about ``frequency buckets × K`` long, not ``× buckets × K``.
The passes run on ``$OPENDP_GRAPH_THREADS`` threads (default: the cores, at most
``_MAX_WORKERS``). The tests compare them, threaded and on one thread, with a scan of every
secret's closed neighbourhood (``tests/pufferfish/engines.py``).

Histograms are kept per (property-frequency bucket, neighbourhood-size bucket) so that the
Global model is their sum and the Conditional model reads them directly. All counts are exact
``int64``.
"""

from __future__ import annotations

import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..core._progress import resolve_progress
from ..core.graph import Graph
from . import _compiled

__all__ = ["log_bucket", "NeighbourhoodStats", "neighbourhood_stats"]


def log_bucket(values: np.ndarray, base: float) -> np.ndarray:
    """``floor(log_base(v))`` for integers ``v ≥ 1``, exact at powers of the base."""
    v = np.asarray(values, dtype=np.int64)
    if v.size == 0:
        return np.zeros(0, dtype=np.int64)
    b = np.floor(np.log(v) / math.log(base)).astype(np.int64)
    # repair floating error at the bucket edges: base**b <= v < base**(b+1)
    lo = np.power(float(base), b.astype(np.float64))
    b = np.where(lo > v, b - 1, b)
    hi = np.power(float(base), (b + 1).astype(np.float64))
    b = np.where(hi <= v, b + 1, b)
    return b


@dataclass
class NeighbourhoodStats:
    """Sufficient statistics of a labelled graph for the three correlation models."""

    num_edges: int
    num_properties: int
    nb: np.ndarray  # the distinct numbers of adjacent edges N_e − 1 that occur (int64, increasing)
    freq: np.ndarray  # edges carrying each property (int64, length P)
    freq_bucket: np.ndarray  # per property
    size_bucket: np.ndarray  # the distinct buckets of N_e = nb + 1 that occur (int64, increasing)
    base: float
    hist1: np.ndarray  # (nFB, nSB, K+1) counts of f given s1
    hist0: np.ndarray  # (nFB, nSB, K+1) counts of f given s0
    pairs_by_bucket: np.ndarray  # (nFB, nSB) number of secrets (e, a) per bucket
    max_size_by_bucket: np.ndarray  # (nSB,) largest N_e in each size bucket (0 if none)
    a1: int  # Σ over labelled pairs of (neighbours carrying a)
    b1: int  # Σ over labelled pairs of nb_e
    nb_total: int  # Σ_e nb_e

    @property
    def max_neighbourhood(self) -> int:
        return int(self.nb.max(initial=-1)) + 1


_MAX_WORKERS = 8  # threads for the passes, at most
_THREADED_EDGES = 2**14  # below this many edges the passes run on one thread (a thread costs more)


# long: one numerical pass; its arrays (sizes, buckets, histograms) feed each other, and split the pieces would hand a dozen arrays around
def neighbourhood_stats(
    graph: Graph,
    *,
    base: float = 10.0,
    labels: sp.csr_array | None = None,
    progress: Any = None,
) -> NeighbourhoodStats:
    """Compute :class:`NeighbourhoodStats` exactly (see the module docstring for the algorithm).

    ``progress``: ``None`` (a progress line on an interactive terminal once the work has run for
    two seconds; silent in pipes and tests), ``True``, ``False`` or ``callable(stage, done,
    total)`` (module :mod:`opendp_graph.core._progress`).
    """
    report = resolve_progress(progress, label="neighbourhood statistics")
    canonical = labels is None
    if labels is None:
        if not graph.is_labeled:
            raise ValueError("the correlation models need a labeled graph")
        labels = graph.labels  # canonical: a Graph keeps its labels sorted and merged
        assert labels is not None  # the graph is labeled
    E = graph.num_edges
    P = labels.shape[1]
    src, dst = graph.src, graph.dst
    deg = graph.degrees
    nb = (deg[src] + deg[dst] - 2).astype(np.int64) if E else np.zeros(0, dtype=np.int64)  # N_e − 1
    K = int(nb.max(initial=0)) + 1

    L = sp.csr_array(labels)  # every stored entry is a labelled pair (edge, property)
    if canonical:
        L.has_canonical_format = True
    elif not L.has_canonical_format:
        L = L.copy()
        L.sum_duplicates()
    per_edge = np.diff(L.indptr).astype(np.int64)
    freq = np.bincount(L.indices, minlength=P).astype(np.int64)
    fb = log_bucket(np.maximum(freq, 1), base)  # properties of frequency 0 (unused columns) -> bucket 0
    bucket_of_size = log_bucket(np.arange(1, K + 1), base)  # sizes are 1..K: one logarithm per value
    nFB = int(fb.max(initial=0)) + 1
    nSB = int(bucket_of_size[-1]) + 1
    sb = bucket_of_size.astype(np.int8 if nSB <= 127 else np.int64)[nb]  # per edge (small: it lives through the passes)
    # Per edge, only the size bucket is kept; nb is summed here and its distinct values kept
    # (all that the Binomial model reads, as from Spark)
    b1, nb_total = int(nb @ per_edge), int(nb.sum())
    present = np.flatnonzero(np.bincount(nb, minlength=K)) + 1  # the sizes that occur, increasing
    del nb
    max_size = np.zeros(nSB, dtype=np.int64)
    buckets = bucket_of_size[present - 1]  # non-decreasing
    last = np.flatnonzero(np.diff(buckets, append=-1) != 0)  # the largest size of each bucket
    max_size[buckets[last]] = present[last]

    # Flat histograms over (frequency bucket, size bucket, g): `every` counts g over every secret
    # with g > 0 (bin g = 0 is scratch, filled by subtraction below), `labelled` over the s¹ ones.
    # Size bucket s holds g = 0 .. max_size[s] + 1 (g = C[u, a] + C[v, a] <= N_e + 1).
    segment = max_size + 2
    seg_start = np.concatenate([[0], np.cumsum(segment)[:-1]]).astype(np.int64)
    span = int(segment.sum())
    every = np.zeros(nFB * span, dtype=np.int64)
    labelled = np.zeros_like(every)
    a1 = 0
    if E and L.nnz:
        workers = _workers()
        threaded = workers > 1 and E >= _THREADED_EDGES
        n, s_, d_ = graph.num_nodes, src, dst
        if n - np.count_nonzero(deg) > E:  # mostly isolated nodes: the passes' per-node arrays over the others only
            ids = np.flatnonzero(deg)
            n, s_, d_ = int(ids.size), np.searchsorted(ids, src), np.searchsorted(ids, dst)
        a1 += _compiled.compiled_passes(
            n,
            s_,
            d_,
            L,
            sb,
            seg_start,
            fb.astype(np.int64) * span,
            every,
            labelled,
            workers,
            report,
            lambda jobs: _run_jobs(jobs, workers if threaded else 1, every, labelled),
        )
    else:
        report.start(0)
    report.finish()

    shape = (nFB, nSB, K + 1)
    hist1 = np.zeros(shape, dtype=np.int64)
    hist0 = np.zeros(shape, dtype=np.int64)
    every2, labelled2 = every.reshape(nFB, span), labelled.reshape(nFB, span)
    for s in range(nSB):
        top, at = int(max_size[s]), int(seg_start[s])
        hist1[:, s, : top + 1] = labelled2[:, at + 1 : at + top + 2]  # f = g − 1: g counts the central edge twice
        hist0[:, s, : top + 1] = every2[:, at : at + top + 1] - labelled2[:, at : at + top + 1]  # s⁰: f = g <= nb_e
    edges_in_sb = np.bincount(sb, minlength=nSB).astype(np.int64)
    props_in_fb = np.bincount(fb, minlength=nFB).astype(np.int64)
    pairs = np.outer(props_in_fb, edges_in_sb)
    hist0[:, :, 0] = pairs - hist1.sum(axis=2) - hist0[:, :, 1:].sum(axis=2)
    return NeighbourhoodStats(
        num_edges=E,
        num_properties=P,
        nb=present - 1,
        freq=freq,
        freq_bucket=fb,
        size_bucket=np.flatnonzero(edges_in_sb).astype(np.int64),
        base=float(base),
        hist1=hist1,
        hist0=hist0,
        pairs_by_bucket=pairs,
        max_size_by_bucket=max_size,
        a1=a1,
        b1=b1,
        nb_total=nb_total,
    )


def _workers() -> int:
    """Threads for the passes: ``$OPENDP_GRAPH_THREADS`` if set (a positive integer; ``1``
    runs everything on the calling thread, e.g. inside a process pool), else the cores this
    process may use, at most ``_MAX_WORKERS`` (the compiled sweep releases the GIL)."""
    setting = os.environ.get("OPENDP_GRAPH_THREADS", "").strip()
    if setting:
        if not setting.isdigit() or int(setting) < 1:
            raise ValueError(f"OPENDP_GRAPH_THREADS must be a positive integer, got {setting!r}")
        return int(setting)
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, _MAX_WORKERS))


def _run_jobs(jobs: list, workers: int, every: np.ndarray, labelled: np.ndarray) -> int:
    """Run ``job(every, labelled) -> a1`` for each job and return the sum of their ``a1``. With
    one worker, on this thread into ``every`` / ``labelled``; otherwise on a pool of ``workers``
    threads, each counting into histograms of its own, added at the end (integer sums: the
    result does not depend on the order or the threads)."""
    if workers <= 1:
        return sum(job(every, labelled) for job in jobs)
    own = _PerThreadHistograms(every.size)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(own.run, job) for job in jobs]
        a1 = sum(future.result() for future in futures)
    for ev, lb in own.pairs:
        every += ev
        labelled += lb
    return a1


class _PerThreadHistograms:
    """One pair of histograms per worker thread, into which every job that thread runs counts
    (so memory is ``workers`` pairs, however many jobs)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.pairs: list[tuple[np.ndarray, np.ndarray]] = []
        self._local = threading.local()
        self._lock = threading.Lock()

    def run(self, job) -> int:
        pair = getattr(self._local, "pair", None)
        if pair is None:
            pair = self._local.pair = (np.zeros(self.size, dtype=np.int64), np.zeros(self.size, dtype=np.int64))
            with self._lock:
                self.pairs.append(pair)
        return job(*pair)
