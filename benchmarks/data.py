"""Data sets for the benchmarks. Real data are found by the package's resolver,
:func:`opendp_graph.datasets.data_path` (``$OPENDP_GRAPH_DATA``, ``../shared/data`` beside the
checkout, the per-user cache filled on first use), or read from a folder given by the caller;
nothing is copied into the repository.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import opendp_graph as dpg
from opendp_graph.datasets import DataUnavailableError, data_path

__all__ = ["data_folder", "default_data_dir", "load_deezer_shared_genres", "load_enron_graph", "skewed_text", "synthetic"]

BENCHMARK_DATASETS = ("enron-perry-wolfe", "deezer")


def data_folder(name: str, root: str | Path | None = None) -> Path:
    """The folder of data set ``name``: ``root / name`` (or ``root`` itself when it holds the
    files) when a root is given, else as :func:`opendp_graph.datasets.data_path` resolves it.

    :raises FileNotFoundError: when it cannot be found (or, with no root, resolved).
    """
    return data_path(name, root)


def default_data_dir() -> Path:
    """The folder holding ``enron-perry-wolfe/`` and ``deezer/`` as the resolver finds them (it
    may download them, unless ``OPENDP_GRAPH_DOWNLOAD=0``): their common parent. When they
    resolve to different places, the first one's parent (the other is then reported as
    missing); when neither resolves, the local data folder (``../shared/data`` beside the
    checkout) or the cache, so that the benchmark's "no data at ..." names a useful place.
    """
    parents = []
    for name in BENCHMARK_DATASETS:
        try:
            parents.append(data_path(name).parent)
        except DataUnavailableError:
            continue
    if parents:
        return parents[0]
    from opendp_graph.datasets._resolve import _local_root, cache_dir

    local = _local_root()[0]
    return local if local is not None else cache_dir()


def load_deezer_shared_genres(folder: str | Path | None = None, country: str = "HU") -> dpg.Graph:
    """The Deezer friendship graph of ``country`` (``HU``, ``RO``), each edge labelled with the
    genres that *both* friends like (the intersection of their genre lists; possibly empty).

    Files (``PROVENANCE.md``): ``XX_edges.csv`` (header ``node_1,node_2``, undirected, nodes from
    0) and ``XX_genres.json`` (user id as a string → list of liked genres). Users missing from
    the JSON like nothing. Vectorised: a sparse user × genre matrix ``U`` gives the labels as the
    element-wise product ``U[src] ∘ U[dst]``. ``folder=None`` resolves the ``deezer`` data set.
    """
    folder = data_path("deezer") if folder is None else Path(folder)
    country = str(country).upper()
    edges_path, genres_path = folder / f"{country}_edges.csv", folder / f"{country}_genres.json"
    for p in (edges_path, genres_path):
        if not p.is_file():
            raise FileNotFoundError(f"Deezer file not found: {p}")
    edges = np.loadtxt(edges_path, delimiter=",", skiprows=1, dtype=np.int64, ndmin=2)
    with open(genres_path, encoding="utf-8") as fh:
        likes = json.load(fh)
    n = int(max(edges.max(initial=-1) + 1, max((int(k) for k in likes), default=-1) + 1))
    vocabulary = sorted({g for gs in likes.values() for g in gs})
    column = {g: j for j, g in enumerate(vocabulary)}
    users = np.array([int(k) for k, gs in likes.items() for _ in gs], dtype=np.int64)
    cols = np.array([column[g] for gs in likes.values() for g in gs], dtype=np.int64)
    u_matrix = sp.csr_array((np.ones(users.size, dtype=np.int8), (users, cols)), shape=(n, len(vocabulary)))
    u_matrix.sum_duplicates()
    u_matrix.data[:] = 1
    src, dst = edges[:, 0], edges[:, 1]
    keep = src != dst
    src, dst = src[keep], dst[keep]
    shared = sp.csr_array(u_matrix[src].multiply(u_matrix[dst]))
    return dpg.Graph.from_arrays(src, dst, n, label_matrix=shared, vocabulary=vocabulary)


def load_enron_graph(folder: str | Path | None = None) -> dpg.Graph:
    """The Enron graph of :func:`opendp_graph.datasets.load_enron` (subject n-grams on edges);
    ``folder=None`` resolves the ``enron-perry-wolfe`` data set."""
    return dpg.datasets.load_enron(folder)


def synthetic(num_edges: int, *, seed: int = 0, labels_per_edge: float = 3.0, num_properties: int = 100):
    """The benchmark's synthetic graph: :func:`opendp_graph.datasets.synthetic_labeled_graph`
    with its defaults (γ = 2.5, ``labels_per_edge`` (edge, property) pairs per edge)."""
    return dpg.datasets.synthetic_labeled_graph(
        num_edges, seed=seed, labels_per_edge=labels_per_edge, num_properties=num_properties
    )


def skewed_text(
    num_edges: int,
    *,
    seed: int = 0,
    num_properties: int = 500,
    zipf_exponent: float = 1.3,
    labels_per_edge: float = 3.0,
    degree_exponent: float = 2.2,
) -> dpg.Graph:
    """A graph shaped like real text labels on a heavy-tailed graph (the engine's hard case).

    * **Structure**: :func:`opendp_graph.datasets.power_law_graph` with ``degree_exponent``
      ``γ = 2.2``: expected degrees with a Pareto tail ``Pr(deg ≥ k) ∝ k^-1.2``, so a few hubs
      carry a large share of the edges (at 60 k edges on 15 k nodes the largest degree is about
      2,300).
    * **Labels**: each edge draws ``1 + Poisson(μ)`` words, independently, from a Zipf law
      ``Pr(word r) ∝ r^-zipf_exponent`` over a vocabulary of ``num_properties`` words
      (``w000`` the most frequent), and keeps the distinct ones; ``μ`` is solved so that the
      expected number of distinct words per edge is ``labels_per_edge``
      (``Σ_r 1 − (1 − p_r)·e^{−μ p_r}``). With the defaults the top word is on two thirds of the
      edges and the rarest on a few dozen: mid-frequency words seen at every hub.

    Deterministic given ``seed`` (numpy's ``default_rng``); vectorised, so 60 k edges take a few
    hundredths of a second.
    """
    from opendp_graph.datasets import power_law_graph

    if num_properties < 1:
        raise ValueError("num_properties must be at least 1")
    rng = np.random.default_rng(seed)
    structure = power_law_graph(num_edges, degree_exponent=degree_exponent, seed=rng)
    E = structure.num_edges
    p = np.arange(1, num_properties + 1, dtype=np.float64) ** -float(zipf_exponent)
    p /= p.sum()

    def distinct(mu: float) -> float:  # expected distinct words among 1 + Poisson(mu) draws
        return float(np.sum(1.0 - (1.0 - p) * np.exp(-mu * p)))

    if not 1.0 <= labels_per_edge < distinct(1e9):
        raise ValueError(f"labels_per_edge must lie in [1, {distinct(1e9):.3g}) for this vocabulary")
    lo, hi = 0.0, 1.0
    while distinct(hi) < labels_per_edge:
        hi *= 2.0
    for _ in range(100):  # bisection: distinct() is increasing
        mid = (lo + hi) / 2.0
        lo, hi = (mid, hi) if distinct(mid) < labels_per_edge else (lo, mid)
    draws = 1 + rng.poisson((lo + hi) / 2.0, E)
    rows = np.repeat(np.arange(E, dtype=np.int64), draws)
    cols = rng.choice(num_properties, size=rows.size, p=p)
    width = len(str(num_properties - 1))
    vocabulary = [f"w{r:0{width}d}" for r in range(num_properties)]
    matrix = sp.coo_array((np.ones(rows.size, dtype=bool), (rows, cols)), shape=(E, num_properties))  # repeats merge
    return dpg.Graph.from_arrays(structure.src, structure.dst, structure.num_nodes, label_matrix=matrix, vocabulary=vocabulary)
