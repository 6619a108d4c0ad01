"""Exact, vectorised neighbourhood statistics of a labelled graph (the engine behind the models).

Notation (paper 001 §4): edge ``e = {u, v}``; its closed neighbourhood ``N[e]`` is ``e`` and
every edge sharing an endpoint with it, of size ``N_e = deg(u) + deg(v) − 1``; ``nb_e = N_e − 1``
adjacent edges. For a property ``a``, ``C[x, a]`` is the number of edges at node ``x`` that carry
``a`` (a sparse ``n × P`` matrix, ``C = incidenceᵀ · labels``). The statistic of the secret
``(e, a)`` is ``f(e, a)`` = the number of edges of ``N[e]`` carrying ``a``, *central edge
included*:

* if ``e`` carries ``a`` (secret ``s¹``): ``f = C[u, a] + C[v, a] − 1`` (``e`` is counted at both ends);
* if not (``s⁰``): ``f = C[u, a] + C[v, a]``.

There are ``E·P`` secrets, far too many to list, and no (edge × property) structure is ever
built. Both passes below fill two flat histograms indexed by (property-frequency bucket,
neighbourhood-size bucket, ``g``), ``g = C[u, a] + C[v, a]``: ``every`` over all secrets with
``g > 0`` and ``labelled`` over the ``s¹`` ones; then ``hist1[f] = labelled[f + 1]``,
``hist0 = every − labelled``, and the ``s⁰`` secrets with ``f = 0`` are counted by subtraction
(bin ``g = 0`` is never counted directly). Size bucket ``s`` only holds ``g <= max N_e + 1``
of its edges, so the histograms are about ``frequency buckets × K`` long, not ``× buckets × K``.
**Two engines.** Where Numba is installed (a dependency; ``$OPENDP_GRAPH_ENGINE`` or
``_ENGINE`` may force ``numpy``), the compiled passes of :mod:`._compiled` fill both histograms
in loops that walk each edge's scanned row of ``C`` once against a table of the probed
endpoint's row (the sparse pass below, for every property, with no heavy/light split and no
(edge × property) temporary). Otherwise the NumPy passes below run. Both are exact and the tests
compare them with each other and with a scan of every secret.

In the NumPy engine each property is handled by one of two exact passes, chosen by cost:

**Per-property pass** (properties seen around much of the graph). A block of properties of
one frequency bucket at a time: ``cnt[x, j] = C[x, a_j]`` by bincounts over the endpoints of
their labelled pairs (which also gives those pairs' ``g``), then, over the edges of one size
bucket at a time, ``g = cnt[u] + cnt[v]`` by two row gathers — one memory access per edge
serves the whole block — and one bincount of ``g`` counts all of the block's secrets. Cost
about ``E`` cells per property; memory the ``n × block`` counters (16-bit when degrees allow).

**Sparse pass** (the other properties: rare n-grams, and the mid-frequency words of text
labels that hubs see but most nodes do not). ``C`` is built for these properties by one
counting sort of the labelled pairs' endpoints (a transposition, which also tells each labelled
pair its ``g``). Each edge ``e`` *scans* the endpoint ``w`` that sees fewer of these properties
and *probes* the other, ``o``:

* a property ``a`` seen at ``w`` is a *probe*: ``+1`` at ``g = C[w, a] + C[o, a]``;
* a property seen at ``o`` only has ``g = C[o, a]``: counted by node, ``+probed(o, s)`` at
  ``C[o, a]`` for each non-zero of ``C`` (``probed(o, s)`` = edges of size bucket ``s`` probed
  at ``o``: one sparse product), minus one for each probe that finds ``a`` at ``o`` too (each
  probe subtracts one at ``C[o, a]``; a probe that misses subtracts from the scratch bin 0);
* a property seen at neither end has ``g = 0``: by subtraction.

Work: ``Σ_e min(|C[u]|, |C[v]|)`` probes. The edges are taken in the order of (probed node,
size bucket). At a hub, a (probed node, size bucket) group with at least ``_HEAVY`` probes per
property is *heavy*: its probes are only counted per (group, property) — ``C[o, a]`` is the same
for the whole group — as if ``C[w, a]`` were 1, and the excess ``C[w, a] − 1`` of the others is
probed like a light edge's, one bin further (a telescoping sum). A light edge's probe reads
``C[o, a]`` from a dense (node × property) table over the band of ``C``'s rows its block of
edges probes (filled, read and cleared: its cost is ``C``'s entries, not its size), or by
binary search in ``C``'s keys when even one band would be too large.

The choice (:func:`_dense_properties`) only affects speed: both passes are exact, and the tests
run every split (all per-property, all sparse, mixed, heavy groups or not, blocks cut
anywhere) against a scan of every secret (``tests/test_pufferfish.py``,
``tests/test_stats_skewed.py``).

Histograms are kept per (property-frequency bucket, neighbourhood-size bucket) so that the
Global model is their sum and the Conditional model reads them directly. All counts are exact
``int64``.
"""

from __future__ import annotations

import functools
import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..core._engine import use_compiled
from ..core._progress import resolve_progress
from ..core.graph import Graph
from . import _compiled


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


# Cost model (see _dense_properties) and block sizes, measured on the benchmark machine (numpy 2.4).
_DENSE_SHARE = 3.0  # a probe of the sparse pass costs about this many cells of the per-property pass
_DENSE_OVERHEAD = 2_000  # the per-property pass's fixed cost per property, in cells
_SPARSE_SETUP = 40  # the sparse pass's preparation, in cells per edge, ...
_SPARSE_SETUP_EDGES = 2**17  # ... counted from this many edges (below, it all stays in cache)
_HEAVY = 1.0  # a (probed node, size bucket) group is heavy with this many probes per sparse property
_DENSE_BLOCK_CELLS = 2**25  # (node × property) counters of one block of the per-property pass ...
_COUNT_CELLS = 2**22  # ... filled by bincounts over at most this many counters
_TABLE_CELLS = 2**19  # cells of the sparse pass's lookup table (one band of C's rows) ...
_MAX_BANDS = 256  # ... widened so that there are at most this many bands ...
_DENSE_LOOKUP_MAX = 2**26  # ... but never beyond this many cells: then binary search in C
_CHUNK = 2**17  # cells or probes per step of either pass: cache-sized
_GATHER = 2**22  # probes per row gather (scipy.sparse) of the sparse pass
_MAX_WORKERS = 8  # threads for the two passes, at most
_THREADED_EDGES = 2**14  # below this many edges the passes run on one thread (a thread costs more)


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
        if _compiled_engine():
            threaded = workers > 1 and E >= _THREADED_EDGES
            n, s_, d_ = graph.num_nodes, src, dst
            if n - np.count_nonzero(deg) > E:  # mostly isolated nodes: the passes' per-node arrays over the others only
                ids = np.flatnonzero(deg)
                n, s_, d_ = int(ids.size), np.searchsorted(ids, src), np.searchsorted(ids, dst)
            a1 += _compiled.compiled_passes(
                n, s_, d_, L, sb, seg_start, fb.astype(np.int64) * span, every, labelled, workers, report,
                lambda jobs: _run_jobs(jobs, workers if threaded else 1, every, labelled),
            )
        else:
            la = L.indices.astype(np.intp)
            le = np.repeat(np.arange(E, dtype=np.intp), per_edge)
            work = _Work(graph, L, la, le, fb, sb, seg_start, span)
            dense, estimate = _dense_properties(E, P, work, workers)
            dense_cols = np.flatnonzero(dense)
            sparse_cols = np.flatnonzero(~dense & (freq > 0))  # unused columns: all their secrets have f = 0
            a1 += _run_passes(work, dense_cols, sparse_cols, estimate, workers, every, labelled, report)
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


class _Work:
    """What both passes share: the edges over the non-isolated nodes (renumbered ``0..n−1``,
    since the tables are node × something), the labelled pairs (also by property), and the
    histogram layout: secret ``(e, a)`` with statistic ``g`` goes to flat bin
    ``prop_key[a] + edge_key[e] + g`` (``prop_key[a]`` = frequency bucket · ``span``,
    ``edge_key[e]`` = where the segment of the size bucket starts)."""

    def __init__(self, graph: Graph, L: sp.csr_array, la, le, fb, sb, seg_start, span: int) -> None:
        deg = graph.degrees
        src, dst = graph.src, graph.dst
        if deg.all():
            self.n = graph.num_nodes
        else:
            ids = np.flatnonzero(deg)
            compact = np.zeros(graph.num_nodes, dtype=np.intp)
            compact[ids] = np.arange(ids.size, dtype=np.intp)
            src, dst = compact[src], compact[dst]
            self.n = int(ids.size)
            deg = deg[ids]
        self.E = graph.num_edges
        self.src, self.dst, self.deg = src, dst, deg
        self.la, self.le = la, le
        self.fb, self.sb, self.nSB = fb, sb, int(seg_start.size)
        self.seg_start, self.span = seg_start, span
        self.edge_key = seg_start[sb]
        self.prop_key = fb.astype(np.int64) * span
        self.L = L
        self._csc: sp.csc_array | None = None

    @functools.cached_property
    def by_bucket(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(src, dst, ends)``: the edges ordered by size bucket (stable), and where each
        bucket's edges end."""
        ends = np.cumsum(np.bincount(self.sb, minlength=self.nSB))
        order = np.argsort(self.sb.astype(np.int8 if self.nSB < 128 else np.int64), kind="stable")
        return self.src.take(order), self.dst.take(order), ends

    def prepare(self) -> None:
        """Build the lazily computed structures now (before threads share them)."""
        self.by_bucket  # noqa: B018
        self.csc  # noqa: B018

    @property
    def csc(self) -> sp.csc_array:
        """The label matrix by property: the edges carrying each property, in order."""
        if self._csc is None:
            self._csc = self.L.tocsc()
        return self._csc


def _accumulate(hist: np.ndarray, keys: np.ndarray, sign: int = 1) -> None:
    """``hist[k] += sign`` for every ``k`` in ``keys`` (all in ``0..hist.size − 1``)."""
    if keys.size:
        counts = np.bincount(keys.reshape(-1))
        if sign > 0:
            hist[: counts.size] += counts
        else:
            hist[: counts.size] -= counts


def _dense_properties(E: int, P: int, work: _Work, workers: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Which properties the per-property pass handles (boolean mask over the ``P`` columns), and
    each property's estimated probes in the sparse pass.

    The per-property pass costs about ``E`` cheap cell operations per property (plus a fixed
    ``_DENSE_OVERHEAD``). The sparse pass costs about one *probe* per (edge, property) with the
    property seen at the edge's scanned endpoint, each probe about ``_DENSE_SHARE`` cells'
    worth. With the endpoint of lower degree as the scanned one (the sparse pass scans the one
    seeing fewer sparse properties, no worse), a property's probes are at most
    ``Σ_{e ∋ a} (s(u) + s(v))``, ``s(x)`` = the number of edges scanned from ``x``: a node that
    sees ``a`` through several edges is counted once per edge, which over-estimates frequent
    properties only, and those belong to the per-property pass anyway. A hub is rarely the
    scanned side, so, unlike the neighbourhood volume ``Σ_{e ∋ a} (deg u + deg v)``, the estimate
    stays small for a property seen at a hub. The sparse pass also has its own preparation
    (``C``, the edges ordered by probed node), about ``_SPARSE_SETUP`` cells per edge once the
    graph no longer fits in cache (from ``_SPARSE_SETUP_EDGES`` edges).

    The properties with the most probes go to the per-property pass: the split is the prefix of
    the properties by decreasing estimate that minimises the wall time ``max(S, (D + S) /
    workers)`` (``D``, ``S`` the two passes' costs: a rough model of :func:`_run_passes`, where
    the per-property pass is shared by all threads while the sparse pass prepares on one);
    with one worker, ``D + S``.
    Measured: a cell costs about 4 ns (a bincount and two shared row gathers) and a probe about
    10 ns at 60 k edges; on the synthetic 1 M and 10 M edge graphs (100 properties) every
    property is cheaper per property (10 M: 9.7 s against 15.3 s with the rare ones in the
    sparse pass); on Enron's 42,390 n-grams and on text labels over hubs, all but the most
    frequent words are cheaper in the sparse pass.
    """
    if E == 0 or P == 0 or _DENSE_SHARE <= 0:
        return np.zeros(P, dtype=bool), np.zeros(P)
    src, dst, deg = work.src, work.dst, work.deg
    scanned = np.bincount(np.where(deg[src] <= deg[dst], src, dst), minlength=work.n)
    estimate = np.bincount(work.la, weights=(scanned[src] + scanned[dst])[work.le], minlength=P)
    used = np.flatnonzero(estimate > 0)
    by_cost = used[np.argsort(-estimate[used], kind="stable")]  # the costliest in the sparse pass first
    # split k: the first k of by_cost per property, the rest sparse
    per_property = np.arange(by_cost.size + 1, dtype=np.float64) * float(E + _DENSE_OVERHEAD)
    tail = np.concatenate([np.cumsum(estimate[by_cost][::-1])[::-1], [0.0]]) * _DENSE_SHARE
    setup = _SPARSE_SETUP * E if E >= _SPARSE_SETUP_EDGES else 0.0
    sparse = tail + np.where(np.arange(by_cost.size + 1) < by_cost.size, setup, 0.0)
    wall = np.maximum(sparse, (per_property + sparse) / max(int(workers), 1))
    k = int(np.argmin(wall))
    dense = np.zeros(P, dtype=bool)
    dense[by_cost[:k]] = True
    return dense, estimate


_ENGINE = "auto"  # "auto" | "compiled" | "numpy"; $OPENDP_GRAPH_ENGINE, if set, wins


def _compiled_engine() -> bool:
    """Whether the compiled passes (:mod:`._compiled`, Numba) run: ``$OPENDP_GRAPH_ENGINE``
    (``auto``, ``compiled`` or ``numpy``) if set, else ``_ENGINE``; ``auto`` uses them when
    Numba can be imported. Both engines give the same statistics, value for value."""
    return use_compiled(_ENGINE) and _compiled.kernels() is not None


def _workers() -> int:
    """Threads for the two passes: ``$OPENDP_GRAPH_THREADS`` if set (a positive integer; ``1``
    runs everything on the calling thread, e.g. inside a process pool), else the cores this
    process may use, at most ``_MAX_WORKERS`` (NumPy's gathers and counts release the GIL)."""
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


def _run_passes(work: _Work, dense_cols, sparse_cols, estimate, workers: int, every, labelled, report) -> int:
    """Run the per-property pass over ``dense_cols`` and the sparse pass over ``sparse_cols``
    into ``every`` / ``labelled``; returns ``a1``.

    With more than one worker (and a graph of at least ``_THREADED_EDGES`` edges), a pool of
    ``workers`` threads runs the per-property pass in ``workers`` chunks of properties while
    this thread prepares the sparse pass, then the sparse pass's jobs (:meth:`_SparsePass.jobs`:
    its light probes in ``workers`` runs). Every worker thread counts into histograms of its
    own, added at the end (integer sums: the result does not depend on the order or the
    threads)."""
    E = work.E
    sparse_units = int(estimate[sparse_cols].sum()) + 1 if sparse_cols.size else 0
    report.start(E * dense_cols.size + sparse_units)
    threaded = workers > 1 and E >= _THREADED_EDGES

    def dense_job(cols: np.ndarray):
        return lambda ev, lb: _per_property_pass(work, cols, ev, lb, report)

    # While the pool runs the per-property chunks, this thread prepares the sparse pass: leave it
    # a core (one chunk fewer) when there is such a preparation.
    busy_here = 1 if (threaded and sparse_cols.size) else 0
    pieces = max(1, min(workers - busy_here, int(dense_cols.size))) if threaded else 1
    jobs = [dense_job(cols) for cols in np.array_split(dense_cols, pieces)] if dense_cols.size else []
    threads = workers if threaded else 1
    if threaded:
        work.prepare()  # the shared read-only structures, built once before the threads read them
    share = None

    def more_jobs():  # run here, while the pool (if any) runs the per-property chunks
        nonlocal share
        if not sparse_cols.size:
            return []
        sparse = _SparsePass(work, sparse_cols)
        share = _Share(report, sparse_units, sparse.probes + 1)
        return sparse.jobs(share, threads)

    a1 = _run_jobs(jobs, threads, every, labelled, more_jobs)
    if share is not None:
        share.flush()
    return a1


def _run_jobs(jobs: list, workers: int, every: np.ndarray, labelled: np.ndarray, more_jobs=None) -> int:
    """Run ``job(every, labelled) -> a1`` for each job (then those of ``more_jobs()``, called on
    this thread once the first are submitted) and return the sum of their ``a1``. With one
    worker, on this thread into ``every`` / ``labelled``; otherwise on a pool of ``workers``
    threads, each counting into histograms of its own, added at the end (integer sums: the
    result does not depend on the order or the threads)."""
    if workers <= 1:
        a1 = sum(job(every, labelled) for job in jobs)
        return a1 + sum(job(every, labelled) for job in (more_jobs() if more_jobs else []))
    own = _PerThreadHistograms(every.size)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(own.run, job) for job in jobs]
        futures += [pool.submit(own.run, job) for job in (more_jobs() if more_jobs else [])]
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


class _Share:
    """Reports a job's own work units as its share (``units``) of the stage's total."""

    def __init__(self, report, units: int, actual: int) -> None:
        self.report, self.units, self.actual = report, units, max(actual, 1)
        self.done = self.sent = 0
        self.lock = threading.Lock()  # the sparse pass's jobs may run on several threads

    def advance(self, amount: int) -> None:
        with self.lock:
            self.done += int(amount)
            target = min(self.done * self.units // self.actual, self.units)
            step, self.sent = target - self.sent, max(target, self.sent)
        if step > 0:
            self.report.advance(step)

    def flush(self) -> None:
        with self.lock:
            step, self.sent = self.units - self.sent, self.units
        if step > 0:
            self.report.advance(step)


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(s, s + l)`` for each (s, l), vectorised."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.intp)
    return np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(total, dtype=np.intp)


def _count_dtype(largest: int):
    return np.int16 if largest < 2**15 else (np.int32 if largest < 2**31 else np.int64)


def _per_property_pass(work: _Work, props: np.ndarray, every: np.ndarray, labelled: np.ndarray, report) -> int:
    """Exact histograms of the properties ``props``: every (edge, property) cell, in blocks.

    A block holds up to ``_DENSE_BLOCK_CELLS / n`` properties of one frequency bucket. For each,
    ``cnt[x, j] = C[x, a_j]`` (edges at ``x`` carrying ``a_j``) by a bincount over both endpoints
    of its edges, which also gives its labelled pairs' ``g``. Then, a block of edges at a time,
    ``g = cnt[u] + cnt[v]`` by two row gathers (one memory access per edge serves the whole
    block of properties) and one bincount by (size bucket, ``g``) counts all those secrets at
    once. No (edge × property) structure is kept beyond one block of edges. Returns this pass's
    share of ``a1``.
    """
    if props.size == 0:
        return 0
    E, n = work.E, work.n
    src, dst, csc = work.src, work.dst, work.csc
    props = props[np.argsort(work.prop_key[props], kind="stable")]  # by frequency bucket
    props_key = work.prop_key[props]
    per_block = max(1, _DENSE_BLOCK_CELLS // max(n, 1))
    dtype = _count_dtype(2 * int(work.deg.max(initial=0)))  # g = cnt[u] + cnt[v] must fit too
    span = work.span  # the histogram of one frequency bucket
    a1 = 0
    b0 = 0
    while b0 < props.size:
        offset = int(props_key[b0])
        b1 = min(b0 + per_block, int(np.searchsorted(props_key, offset, side="right")))
        k = b1 - b0
        cnt = np.empty((n, k), dtype=dtype)
        with_g1 = []
        per_count = max(1, _COUNT_CELLS // max(n, 1))  # properties counted by one bincount
        for c0 in range(b0, b1, per_count):
            c1 = min(c0 + per_count, b1)
            lengths = csc.indptr.take(props[c0:c1] + 1) - csc.indptr.take(props[c0:c1])
            edges = csc.indices[_ranges(csc.indptr.take(props[c0:c1]), lengths)].astype(np.intp)
            j = np.repeat(np.arange(c1 - c0, dtype=np.intp), lengths)
            at_u = src.take(edges) * (c1 - c0) + j
            at_v = dst.take(edges) * (c1 - c0) + j
            counts = np.bincount(at_u, minlength=n * (c1 - c0))
            counts += np.bincount(at_v, minlength=n * (c1 - c0))
            cnt[:, c0 - b0 : c1 - b0] = counts.reshape(n, c1 - c0)
            g1 = counts.take(at_u) + counts.take(at_v)  # labelled pairs: e is counted at both ends
            a1 += int(g1.sum()) - 2 * int(g1.size)
            g1 += work.edge_key.take(edges)
            with_g1.append(g1)
        _accumulate(labelled[offset:], np.concatenate(with_g1))
        step = max(1, _CHUNK // k)
        g, h = np.empty((step, k), dtype=dtype), np.empty((step, k), dtype=dtype)
        src_b, dst_b, bucket_ends = work.by_bucket
        e0 = 0
        for s, end in enumerate(bucket_ends.tolist()):  # edges of one size bucket: one histogram segment
            hist = every[offset + int(work.seg_start[s]) :]
            while e0 < end:
                e1 = min(e0 + step, end)
                m = e1 - e0
                np.take(cnt, src_b[e0:e1], axis=0, out=g[:m])
                np.take(cnt, dst_b[e0:e1], axis=0, out=h[:m])
                np.add(g[:m], h[:m], out=g[:m])
                _accumulate(hist, g[:m])
                report.advance(m * k)
                e0 = e1
        b0 = b1
    return a1


class _SparsePass:
    """The sparse pass of the module docstring, over the properties ``cols`` (sorted, used)."""

    def __init__(self, work: _Work, cols: np.ndarray) -> None:
        self.work, self.cols = work, cols
        n, E, src, dst, csc, nSB = work.n, work.E, work.src, work.dst, work.csc, work.nSB
        P = csc.shape[1]
        ncol = int(cols.size)
        # The labelled pairs of these properties, by property (columns renumbered 0..ncol−1).
        counts = np.diff(csc.indptr)
        if ncol == P:
            e, by_col = csc.indices, csc.indptr
        else:
            keep = np.zeros(P, dtype=bool)
            keep[cols] = True
            e = csc.indices[np.repeat(keep, counts)]
            by_col = np.concatenate([[0], np.cumsum(counts[cols])])
        e = e.astype(np.intp)
        # C (n × ncol, canonical CSR): per node, the edges carrying each property. Both
        # endpoints of each labelled pair, sorted by node by one counting sort (a transposition):
        # the columns come out sorted within each row, so the entries of one (node, property)
        # are adjacent and merged in one linear pass. The transposition carries each entry's
        # number, so every labelled pair also learns C at both of its endpoints.
        m2 = 2 * e.size
        ends = np.empty(m2, dtype=np.intp)
        ends[0::2] = src.take(e)
        ends[1::2] = dst.take(e)
        by_node = sp.csc_array((np.arange(m2, dtype=np.intp), ends, 2 * by_col.astype(np.intp)), shape=(n, ncol)).tocsr()
        col = by_node.indices
        new = np.ones(m2, dtype=bool)  # does this entry start a new (node, property)?
        np.not_equal(col[1:], col[:-1], out=new[1:])
        row_starts = by_node.indptr[:-1]
        new[row_starts[row_starts < m2]] = True
        before = np.concatenate([[0], np.cumsum(new)])  # (node, property) pairs before each entry
        group = before[1:] - 1
        value = np.bincount(group)
        self.C = C = sp.csr_array((value, col[new].astype(np.intp), before.take(by_node.indptr)), shape=(n, ncol))
        seen = np.empty(m2, dtype=np.int64)
        seen[by_node.data] = value.take(group)
        self.g1 = seen[0::2] + seen[1::2]  # labelled pairs (by property): C[u, a] + C[v, a]
        self.labelled_edges = e
        self.labelled_cols = np.repeat(np.arange(ncol, dtype=np.intp), np.diff(by_col))
        rowlen = np.diff(C.indptr)
        self.rows = np.repeat(np.arange(n, dtype=np.intp), rowlen)

        # Each edge scans its endpoint seeing fewer of these properties and probes the other.
        # The edges are taken in the order of (probed node, size bucket): a counting sort.
        small_is_src = rowlen.take(src) <= rowlen.take(dst)
        o = np.where(small_is_src, dst, src)
        w = np.where(small_is_src, src, dst)
        key = o * nSB + work.sb
        self.probed = np.bincount(key, minlength=n * nSB).reshape(n, nSB)
        order = sp.csc_array((np.ones(E, dtype=np.int8), key, np.arange(E + 1, dtype=np.intp)), shape=(n * nSB, E)).tocsr().indices
        o, w, key, edge_key = o.take(order), w.take(order), key.take(order), work.edge_key.take(order)
        del order, small_is_src
        lens = rowlen.take(w)
        # Heavy groups: (probed node, size bucket) with many probes (the edges at a hub): their
        # probes are counted per (group, property) as if C[w, a] were 1 (C[o, a] is the same
        # for the whole group), the excess C[w, a] − 1 of the others is probed like a light
        # edge's (rows of `more`, one bin further: a telescoping sum).
        change = np.diff(key, prepend=-1) != 0
        starts = np.flatnonzero(change)
        gid = np.cumsum(change) - 1
        heavy_group = np.add.reduceat(lens, starts) >= _HEAVY * max(ncol, 1)
        heavy = heavy_group.take(gid)
        big = C.data >= 2
        more_len = np.bincount(self.rows[big], minlength=n)
        more = sp.csr_array(  # rows 0..n−1: C; rows n..2n−1: C − 1 where C >= 2
            (
                np.concatenate([C.data, C.data[big] - 1]),
                np.concatenate([C.indices, C.indices[big]]),
                np.concatenate([C.indptr, C.nnz + np.cumsum(more_len)]),
            ),
            shape=(2 * n, ncol),
        )
        probe = ~heavy | (more_len.take(w) > 0)
        row = np.where(heavy, w + n, w)[probe]
        self.direct = (row, o[probe], (edge_key + heavy)[probe], np.diff(more.indptr).take(row))
        self.more = more
        hg = np.cumsum(heavy_group) - 1  # heavy groups renumbered 0..
        self.heavy = (w[heavy], hg.take(gid[heavy]), lens[heavy])
        self.heavy_nodes = key.take(starts[heavy_group]) // nSB
        self.heavy_keys = edge_key.take(starts[heavy_group])
        self.probes = int(self.direct[3].sum() + self.heavy[2].sum())

    def jobs(self, report, pieces: int) -> list:
        """These properties' secrets as independent jobs ``job(every, labelled) -> a1`` (each
        adds to the histograms it is given and returns its share of ``a1``; their sum is the
        pass): the labelled pairs and the by-node counts, the heavy groups, and the light probes
        cut into ``pieces`` runs of about equal work.

        ``g(e, a) = C[w, a] + C[o, a]`` for edge ``e`` scanned from ``w`` and probed at ``o``:

        * pairs with ``a`` seen at ``w``: listed (the probes), ``+1`` at ``C[w, a] + C[o, a]``;
        * pairs with ``a`` seen at ``o`` only: ``+1`` at ``C[o, a]`` for every edge probed at
          ``o`` (by node, weighted: ``probed[o, s]`` edges in size bucket ``s``), and ``−1`` at
          ``C[o, a]`` for each probe, which removes the pairs seen at both ends (a probe that
          misses, ``C[o, a] = 0``, subtracts from bin 0, which is scratch);
        * pairs with ``a`` seen at neither end: ``g = 0``, by subtraction at the end.
        """
        prop_key = self.work.prop_key[self.cols]
        row, o, edge_key, lens = self.direct
        ends = np.cumsum(lens)
        cuts = np.searchsorted(ends, np.arange(1, pieces) * (int(ends[-1]) if lens.size else 0) / pieces)
        bounds = np.unique(np.concatenate([[0], cuts, [lens.size]]).astype(np.intp))
        probes = [
            functools.partial(self._probe_job, prop_key, report, int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a
        ]
        return [functools.partial(self._by_node, prop_key, report), functools.partial(self._heavy_job, prop_key, report), *probes]

    def _probe_job(self, prop_key, report, a: int, b: int, every: np.ndarray, labelled: np.ndarray) -> int:
        row, o, edge_key, lens = self.direct
        self._probe(self.more, row[a:b], o[a:b], edge_key[a:b], lens[a:b], prop_key, every, report)
        return 0

    def _heavy_job(self, prop_key, report, every: np.ndarray, labelled: np.ndarray) -> int:
        self._heavy(prop_key, every, report)
        return 0

    def _by_node(self, prop_key, report, every: np.ndarray, labelled: np.ndarray) -> int:
        """The labelled pairs (``s¹``) and the pairs seen at the probed end, by node."""
        work, C = self.work, self.C
        n, nSB, span = work.n, work.nSB, work.span
        _accumulate(labelled, prop_key.take(self.labelled_cols) + work.edge_key.take(self.labelled_edges) + self.g1)
        a1 = int(self.g1.sum()) - 2 * int(self.g1.size)

        # seen at the probed end: by node, C's non-zeros weighted by the edges probed there
        top = int(C.data.max(initial=0)) + 1
        fb = work.fb[self.cols]
        nFB = int(fb.max(initial=0)) + 1
        by_value = sp.csr_array((np.ones(C.nnz, dtype=np.int64), fb.take(C.indices) * top + C.data, C.indptr), shape=(n, nFB * top))
        seen = np.asarray(by_value.T @ self.probed).reshape(nFB, top, nSB)  # (frequency bucket, value, size bucket)
        every2 = every.reshape(-1, span)
        bounds = np.append(work.seg_start, span)
        for s in range(nSB):  # C[x, a] <= deg x <= the size of every edge at x: within the segment
            at = int(bounds[s])
            m = min(top, int(bounds[s + 1]) - at)
            every2[:nFB, at : at + m] += seen[:, :m, s]
        report.advance(1)
        return a1

    def _heavy(self, prop_key, every, report) -> None:
        """The heavy groups' probes: counted per (group, property), then ``+count`` at
        ``C[o, a] + 1`` and ``−count`` at ``C[o, a]``."""
        w, group, lens = self.heavy
        nodes = self.heavy_nodes
        if nodes.size == 0:
            return
        ncol = int(self.cols.size)
        C = self.C
        # counts[group, a] = the group's edges whose scanned node sees a: one sparse product,
        # (groups × nodes: the edges) · (nodes × properties: C's pattern), in scipy's C++
        edges = sp.csr_array((np.ones(w.size, dtype=np.int64), (group, w)), shape=(nodes.size, self.work.n))
        pattern = sp.csr_array((np.ones(C.nnz, dtype=np.int64), C.indices, C.indptr), shape=C.shape)
        counts = (edges @ pattern).toarray().reshape(-1)
        report.advance(int(lens.sum()))
        # C's rows at the groups' probed nodes, dense
        row_start = C.indptr.take(nodes)
        row_len = C.indptr.take(nodes + 1) - row_start
        pos = _ranges(row_start, row_len)
        rows = np.zeros(nodes.size * ncol, dtype=np.int64)
        rows[np.repeat(np.arange(nodes.size, dtype=np.intp) * ncol, row_len) + C.indices.take(pos)] = C.data.take(pos)
        rows += (self.heavy_keys[:, None] + prop_key[None, :]).reshape(-1)  # the bin of g = C[o, a]
        hit = counts > 0
        found = np.rint(np.bincount(rows[hit], weights=counts[hit].astype(np.float64))).astype(np.int64)
        every[1 : found.size + 1] += found  # g = C[o, a] + 1
        every[: found.size] -= found

    def _probe(self, M: sp.csr_array, w, o, edge_key, lens, prop_key, every, report) -> None:
        """The probes of the rows ``M[w]`` (``M`` stacks C and the excess ``C − 1`` of its
        entries >= 2; ``w`` indexes it), a block of edges at a time: ``+1`` at the bin
        ``edge_key + prop_key[a] + C[o, a] + M[w, a]``, ``−1`` at ``... + C[o, a]``.

        ``C[o, a]`` comes from a dense (node × property) table of the band of rows that the
        block probes (filled from C, read, and cleared again: its cost is C's entries, not its
        size); if such a band would exceed ``_DENSE_LOOKUP_MAX`` cells, by binary search in C's
        sorted keys."""
        E = w.size
        if E == 0:
            return
        C, n = self.C, self.work.n
        ncol = int(self.cols.size)
        band = max(_TABLE_CELLS // max(ncol, 1), -(-n // _MAX_BANDS), 1)
        if band * ncol <= _DENSE_LOOKUP_MAX:
            band = min(band, n)
            table = np.zeros(band * ncol, dtype=_count_dtype(int(C.data.max(initial=0))))
        else:
            table = None
            keys = self.rows * ncol + C.indices  # sorted
            band = max(1, 2**31 // max(ncol, 1))  # (o − first) · ncol must fit the 32 packed bits
        bands = np.searchsorted(o, np.arange(0, n + band, band))
        shifted = edge_key << 32  # one repeat carries both the edge's bin offset and its table row
        for start, stop, props, seen_w in _row_blocks(M, w, lens, bands):
            first = int(o[start])
            packed = np.repeat(shifted[start:stop] + (o[start:stop] - first) * ncol, lens[start:stop])
            at = packed & 0xFFFFFFFF
            at += props
            if table is not None:
                p0, p1 = int(C.indptr[first]), int(C.indptr[int(o[stop - 1]) + 1])
                slots = (self.rows[p0:p1] - first) * ncol + C.indices[p0:p1]
                table[slots] = C.data[p0:p1]
                seen_o = table.take(at)
                table[slots] = 0
            else:
                at += first * ncol
                pos = np.minimum(np.searchsorted(keys, at), keys.size - 1)
                seen_o = np.where(keys.take(pos) == at, C.data.take(pos), 0)
            key = packed >> 32
            key += prop_key.take(props)
            key += seen_o
            _accumulate(every, key, -1)
            key += seen_w
            _accumulate(every, key)
            report.advance(props.size)


def _row_blocks(M: sp.csr_array, w: np.ndarray, lens: np.ndarray, cuts: np.ndarray | None = None):
    """The rows ``M[w]`` (``lens`` = their lengths) in blocks of about ``_CHUNK`` entries, never
    across ``cuts`` (sorted edge positions): yields ``(start, stop, indices, data)`` for the
    edges ``start:stop`` with at least one entry. The rows are copied out of ``M`` by one
    ``scipy.sparse`` row gather per ``_GATHER`` entries (a call costs far more than a block)."""
    E = w.size
    ends = np.cumsum(lens)
    total = int(ends[-1]) if E else 0
    # cut points: every _CHUNK entries, and the given cuts
    by_size = np.searchsorted(ends, np.arange(_CHUNK, total, _CHUNK), side="right")
    points = np.unique(np.concatenate([[0, E], by_size, cuts if cuts is not None else []]).astype(np.intp))
    gather_at = np.searchsorted(ends, np.arange(_GATHER, total, _GATHER), side="right")
    g_points = np.unique(np.concatenate([[0, E], gather_at]).astype(np.intp))
    block, b0 = None, 0
    g_next = 0
    for start, stop in zip(points[:-1].tolist(), points[1:].tolist()):
        if stop <= start:
            continue
        done = int(ends[start - 1]) if start else 0
        if int(ends[stop - 1]) == done:
            continue
        if block is None or start >= g_end:
            while g_points[g_next + 1] <= start:
                g_next += 1
            b0, g_end = int(g_points[g_next]), int(g_points[g_next + 1])
            block = M[w[b0:g_end]]
            base = int(ends[b0 - 1]) if b0 else 0
        if stop > g_end:  # a block straddling a gather boundary: gather it alone
            part = M[w[start:stop]]
            yield start, stop, part.indices, part.data
            continue
        lo, hi = done - base, int(ends[stop - 1]) - base
        yield start, stop, block.indices[lo:hi], block.data[lo:hi]
