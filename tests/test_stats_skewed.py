"""The statistics engine on the skewed shape (issue 14): hubs and Zipf-distributed text labels.

Every path of :func:`opendp_graph.pufferfish._stats.neighbourhood_stats` — the per-property pass
in blocks, the sparse pass with its banded lookup table or binary search, its heavy groups
(the edges at a hub, counted per property) and light edges, blocks cut anywhere — must give,
value for value, the statistics of a scan of every secret ``(e, a)``. The references here are
independent of the engine: a pure-Python scan on tiny graphs, and on larger ones a dense
(edge × property) computation ``f = C[u] + C[v] − L`` with ``C`` the dense (node × property)
count matrix.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opendp_graph as dpg
from opendp_graph.pufferfish import GlobalModel, fit_all
from opendp_graph.core import _engine
from opendp_graph.core._progress import resolve_progress
from opendp_graph.pufferfish import _compiled, _stats
from opendp_graph.pufferfish._stats import log_bucket, neighbourhood_stats
from engines import COMPILED_PATHS, NUMBA, available, forced  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.data import skewed_text  # noqa: E402
from test_pufferfish import nonzero, reference_histograms  # noqa: E402  (the pure-Python scan)


def dense_reference(g: dpg.Graph, base: float):
    """``(hist0, hist1, a1, b1)`` by computing ``f`` for every (edge, property) pair densely."""
    E, P = g.num_edges, len(g.vocabulary)
    labels = g.labels.toarray().astype(np.int64)  # E × P
    incidence = np.zeros((g.num_nodes, E), dtype=np.int64)
    incidence[g.src, np.arange(E)] = 1
    incidence[g.dst, np.arange(E)] = 1
    C = incidence @ labels  # node × property
    g_all = C[g.src] + C[g.dst]  # counts e at both ends when e has a
    f = g_all - labels  # f: e counted once
    deg = g.degrees
    size = deg[g.src] + deg[g.dst] - 1
    freq = labels.sum(axis=0)
    fb = log_bucket(np.maximum(freq, 1), base)
    sb = log_bucket(size, base)
    K = int(size.max())
    shape = (int(fb.max()) + 1, int(sb.max()) + 1, K + 1)
    h0, h1 = np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=np.int64)
    FB = np.broadcast_to(fb[None, :], (E, P))
    SB = np.broadcast_to(sb[:, None], (E, P))
    on = labels.astype(bool)
    np.add.at(h1, (FB[on], SB[on], f[on]), 1)
    np.add.at(h0, (FB[~on], SB[~on], f[~on]), 1)
    nb = size - 1
    a1 = int((f[on] - 1).sum())
    b1 = int((nb[:, None] * labels).sum())
    return h0, h1, a1, b1


# Knobs of the engine, each set to force a path or to cut its blocks everywhere.
NUMPY_PATHS = {
    "numpy-auto": {},
    "all-sparse": {"_DENSE_SHARE": 0.0},
    "all-per-property": {"_DENSE_SHARE": 1e18, "_DENSE_OVERHEAD": 0},
    "mixed": {"_DENSE_SHARE": 0.5, "_DENSE_OVERHEAD": 0},
    "binary-search": {"_DENSE_SHARE": 0.0, "_DENSE_LOOKUP_MAX": 0},
    "every-group-heavy": {"_DENSE_SHARE": 0.0, "_HEAVY": 0.0},
    "no-group-heavy": {"_DENSE_SHARE": 0.0, "_HEAVY": float("inf")},
    "sparse-setup-not-worth-it": {"_SPARSE_SETUP_EDGES": 0, "_SPARSE_SETUP": 10**9},
    # several threads, whatever the graph's size: the passes' jobs count into histograms of their own
    "threaded-auto": {"_THREADED_EDGES": 0, "_workers": lambda: 2},
    "threaded-mixed": {"_THREADED_EDGES": 0, "_workers": lambda: 3, "_DENSE_SHARE": 0.5, "_DENSE_OVERHEAD": 0},
    "threaded-all-per-property": {"_THREADED_EDGES": 0, "_workers": lambda: 4, "_DENSE_SHARE": 1e18, "_DENSE_OVERHEAD": 0},
    "tiny-blocks": {
        "_DENSE_SHARE": 0.5,
        "_DENSE_OVERHEAD": 0,
        "_HEAVY": 0.01,
        "_CHUNK": 7,
        "_GATHER": 23,
        "_TABLE_CELLS": 3,
        "_MAX_BANDS": 10**9,
        "_DENSE_BLOCK_CELLS": 1,
    },
}


PATHS = available({"auto": {}, **{name: {"_ENGINE": "numpy", **path} for name, path in NUMPY_PATHS.items()}, **COMPILED_PATHS})


def engine(path: str):
    return forced(PATHS[path])


def check(g: dpg.Graph, base: float, path: str) -> None:
    with engine(path):
        st_ = neighbourhood_stats(g, base=base)
    h0, h1, a1, b1 = dense_reference(g, base)
    assert st_.hist0.shape == h0.shape and st_.hist1.shape == h1.shape
    assert np.array_equal(st_.hist0, h0), path
    assert np.array_equal(st_.hist1, h1), path
    assert (st_.a1, st_.b1) == (a1, b1), path
    assert st_.hist0.sum() + st_.hist1.sum() == g.num_edges * len(g.vocabulary)


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("num_edges, seed", [(400, 0), (1500, 1), (3000, 2)])
def test_skewed_graphs_match_the_dense_reference(num_edges, seed, path):
    g = skewed_text(num_edges, seed=seed, num_properties=60)
    assert g.degrees.max() >= 40  # hubs
    check(g, 10.0, path)


@pytest.mark.parametrize("path", list(PATHS))
def test_skewed_graph_base_2(path):
    """Many size and frequency buckets (base 2)."""
    check(skewed_text(1200, seed=5, num_properties=80, zipf_exponent=1.1), 2.0, path)


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("seed", range(3))
def test_tiny_skewed_graphs_match_the_scan(seed, path):
    g = skewed_text(60, seed=seed, num_properties=12, degree_exponent=2.05)
    with engine(path):
        st_ = neighbourhood_stats(g, base=3.0)
    r1, r0 = reference_histograms(g, 3.0)  # a scan of every secret's closed neighbourhood
    assert nonzero(st_.hist0) == r0
    assert nonzero(st_.hist1) == r1


def test_star_with_repeated_labels():
    """One hub, every leaf edge with the hub's most common word, some words on one edge only,
    unused vocabulary columns, isolated nodes: every path."""
    rng = np.random.default_rng(3)
    leaves = 300
    src = np.zeros(leaves, dtype=np.int64)
    dst = np.arange(1, leaves + 1, dtype=np.int64)
    vocab = [f"w{i:02d}" for i in range(40)]
    labels = [["w00"] + [vocab[int(rng.integers(1, 30))] for _ in range(int(rng.integers(0, 4)))] for _ in range(leaves)]
    # a triangle among leaves, so that some edges have two non-hub endpoints
    labels += [["w01", "w02"], ["w01"], []]
    matrix = np.zeros((len(labels), len(vocab)), dtype=bool)
    for i, row in enumerate(labels):
        matrix[i, [vocab.index(w) for w in row]] = True
    g = dpg.Graph.from_arrays(
        np.concatenate([src, [1, 2, 1]]), np.concatenate([dst, [2, 3, 3]]), leaves + 5, label_matrix=matrix, vocabulary=vocab
    )
    assert (g.labels.sum(axis=0) == 0).any()  # unused vocabulary columns
    for path in PATHS:
        check(g, 10.0, path)


@settings(max_examples=25, deadline=None)
@given(
    st.integers(80, 400),
    st.integers(0, 10**6),
    st.integers(5, 40),
    st.floats(0.8, 2.0),
    st.floats(1.0, 3.0),
    st.sampled_from([2.0, 3.0, 10.0]),
    st.sampled_from(list(PATHS)),
)
def test_random_skewed_shapes(num_edges, seed, props, zipf, per_edge, base, path):
    g = skewed_text(num_edges, seed=seed, num_properties=props, zipf_exponent=zipf, labels_per_edge=min(per_edge, props * 0.5 + 0.5), degree_exponent=2.1)
    check(g, base, path)


def test_models_agree_across_paths_on_a_skewed_graph():
    """The fitted models (histograms, W, Binomial p0/p1) are the same whichever path ran."""
    g = skewed_text(2500, seed=7, num_properties=100)
    results = {}
    for path in PATHS:
        with engine(path):
            models = fit_all(g)
            results[path] = {name: (m.fingerprint(), m.W) for name, m in models.items()}
            assert GlobalModel.fit(g).fingerprint() == models["Global"].fingerprint()
    first = results["auto"]
    assert all(r == first for r in results.values())


def test_threads_follow_the_environment(monkeypatch):
    monkeypatch.setenv("OPENDP_GRAPH_THREADS", "3")
    assert _stats._workers() == 3
    monkeypatch.setenv("OPENDP_GRAPH_THREADS", "1")
    assert _stats._workers() == 1
    for bad in ("0", "-2", "two", "1.5"):
        monkeypatch.setenv("OPENDP_GRAPH_THREADS", bad)
        with pytest.raises(ValueError, match="OPENDP_GRAPH_THREADS must be a positive integer"):
            _stats._workers()
    monkeypatch.delenv("OPENDP_GRAPH_THREADS")
    assert 1 <= _stats._workers() <= _stats._MAX_WORKERS


def test_engine_follows_the_environment(monkeypatch):
    """``$OPENDP_GRAPH_ENGINE`` picks the passes; ``auto`` falls back to NumPy without Numba, and
    ``compiled`` without Numba is refused rather than silently slow."""
    monkeypatch.setenv("OPENDP_GRAPH_ENGINE", "numpy")
    assert _stats._compiled_engine() is False
    monkeypatch.setenv("OPENDP_GRAPH_ENGINE", "auto")
    assert _stats._compiled_engine() is NUMBA
    for bad in ("fast", "1"):
        monkeypatch.setenv("OPENDP_GRAPH_ENGINE", bad)
        with pytest.raises(ValueError, match="OPENDP_GRAPH_ENGINE must be 'auto', 'compiled' or 'numpy'"):
            _stats._compiled_engine()
    monkeypatch.delenv("OPENDP_GRAPH_ENGINE")
    g = skewed_text(300, seed=1, num_properties=20)
    expected = GlobalModel.fit(g).fingerprint()  # the compiled passes where Numba is installed
    monkeypatch.setattr(_engine, "numba_jit", lambda: None)  # as if Numba were missing
    monkeypatch.setattr(_compiled, "kernels", lambda: None)
    assert _stats._compiled_engine() is False
    assert GlobalModel.fit(g).fingerprint() == expected  # the NumPy passes
    monkeypatch.setattr(_stats, "_ENGINE", "compiled")
    with pytest.raises(ValueError, match="needs Numba"):
        _stats._compiled_engine()


def test_compiled_passes_refuse_unsorted_label_rows():
    """The compiled sweep finds each edge's labels by a merge with sorted rows; a label matrix
    whose rows are not sorted (which no Graph constructor makes) is refused, never miscounted."""
    if not NUMBA:
        pytest.skip("the compiled engine needs Numba")
    import scipy.sparse as sp

    g = skewed_text(300, seed=2, num_properties=20)
    L = sp.csr_array(g.labels)
    rows = np.flatnonzero(np.diff(L.indptr) >= 2)
    indices = L.indices.copy()
    start = L.indptr[rows[0]]
    indices[start], indices[start + 1] = indices[start + 1], indices[start]  # one row out of order
    shuffled = sp.csr_array((L.data, indices, L.indptr), shape=L.shape)
    shuffled.has_canonical_format = True  # a caller that lies about it
    hist = lambda: np.zeros(10**4, dtype=np.int64)  # noqa: E731 - g < 2 · max degree + 2 fits
    with pytest.raises(ValueError, match="not sorted"):
        _compiled.compiled_passes(
            g.num_nodes, g.src, g.dst, shuffled, np.zeros(g.num_edges, dtype=np.int8), np.zeros(1, dtype=np.int64),
            np.zeros(shuffled.shape[1], dtype=np.int64), hist(), hist(), 1, resolve_progress(False, label="test"),
            lambda jobs: sum(job(hist(), hist()) for job in jobs),
        )


def test_compiled_passes_skip_isolated_nodes():
    """A graph of a few edges among many isolated nodes: the compiled passes run over the nodes
    with edges only (their per-node arrays would otherwise dwarf the graph), same statistics."""
    rng = np.random.default_rng(4)
    small = skewed_text(200, seed=4, num_properties=15)
    spread = rng.permutation(200_000)[: small.num_nodes]  # the same graph among 200,000 nodes
    g = dpg.Graph.from_arrays(spread[small.src], spread[small.dst], 200_000, label_matrix=small.labels, vocabulary=small.vocabulary)
    results = {}
    for path in PATHS:
        with engine(path):
            st_ = neighbourhood_stats(g)
        results[path] = (st_.hist0.tolist(), st_.hist1.tolist(), st_.a1, st_.b1)
    assert all(r == results["auto"] for r in results.values())
    st_ = neighbourhood_stats(small)
    assert results["auto"] == (st_.hist0.tolist(), st_.hist1.tolist(), st_.a1, st_.b1)
