"""The statistics engine on the skewed shape (issue 14): hubs and Zipf-distributed text labels.

Every path of :func:`opendp_graph.pufferfish._stats.neighbourhood_stats` — the compiled passes as
they choose, on several threads whatever the size with the sweep cut into runs of one node's
work, and on one thread — must give, value for value, the statistics of a scan of every secret
``(e, a)`` over its closed neighbourhood (:func:`engines.reference_stats`, independent of the
engine).
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
from opendp_graph.core._progress import resolve_progress
from opendp_graph.pufferfish import _compiled, _stats
from opendp_graph.pufferfish._stats import neighbourhood_stats
from tests.pufferfish.engines import COMPILED_PATHS, assert_matches_reference, forced, reference_stats  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from benchmarks.data import skewed_text  # noqa: E402

PATHS = COMPILED_PATHS


def engine(path: str):
    return forced(PATHS[path])


def check(g: dpg.Graph, base: float, path: str) -> None:
    with engine(path):
        st_ = neighbourhood_stats(g, base=base)
    assert_matches_reference(st_, reference_stats(g, base), path)


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("num_edges, seed", [(400, 0), (1500, 1), (3000, 2)])
def test_skewed_graphs_match_the_reference(num_edges, seed, path):
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
    check(g, 3.0, path)


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
    first = results["compiled"]
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


@pytest.mark.thorough  # a subprocess (3 s)
def test_without_numba_the_import_says_so(python_output):
    """Numba is required (no other engine): where it cannot be imported, ``import opendp_graph``
    raises an ImportError naming it and how to install it, not a failure deep inside a fit."""
    code = (
        "import sys\n"
        "sys.modules['numba'] = None  # as if Numba were missing: its import raises ImportError\n"
        "try:\n"
        "    import opendp_graph\n"
        "except ImportError as error:\n"
        "    print(error)\n"
        "else:\n"
        "    print('imported')\n"
    )
    out = python_output(code)
    assert out.startswith("opendp_graph needs Numba (numba>=0.60)"), out
    assert "pip install numba" in out


def test_compiled_passes_refuse_unsorted_label_rows():
    """The compiled sweep finds each edge's labels by a merge with sorted rows; a label matrix
    whose rows are not sorted (which no Graph constructor makes) is refused, never miscounted."""
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
    assert all(r == results["compiled"] for r in results.values())
    st_ = neighbourhood_stats(small)
    assert results["compiled"] == (st_.hist0.tolist(), st_.hist1.tolist(), st_.a1, st_.b1)
