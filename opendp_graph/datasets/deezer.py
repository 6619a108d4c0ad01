"""Loader for the Deezer friendship graphs (Rozemberczki, Davies, Sarkar & Sutton, *GEMSEC*,
ASONAM 2019), used by Nassar et al.'s VIP Blowfish experiments (§4).

A folder holds ``XX_edges.csv`` (header ``node_1,node_2``, undirected, nodes from 0) and
optionally ``XX_genres.json`` (user id as a string → list of liked genres) for a country code
``XX`` (``HU``, ``RO``, ``HR``). Nothing is bundled: pass the folder of your copy, or
``path=None`` (the default) to let :func:`~opendp_graph.datasets.data_path` find the ``deezer``
data set (HU and RO; local data folder, cache, or a checked download)::

    dpg.datasets.load_deezer(country="RO")
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..core.graph import Graph
from ._resolve import data_path

__all__ = ["load_deezer", "load_deezer_genres"]


def _files(path, country: str | None) -> tuple[Path, str]:
    if country is None:
        raise TypeError("country is required: a country code such as 'HU', e.g. load_deezer(country='RO')")
    if not isinstance(country, str) or not country.isalpha():
        raise ValueError(f"country must be a country code such as 'HU', got {country!r}")
    folder = data_path("deezer") if path is None else Path(path)
    if not folder.is_dir():
        raise FileNotFoundError(f"no folder at {folder}")
    return folder, country.upper()


def load_deezer_genres(path=None, country: str | None = None, num_nodes: int | None = None) -> list[frozenset[str]]:
    """The genres each user likes, as one ``frozenset`` per node index (empty when the user is
    missing from the file).

    :param path: folder holding ``XX_genres.json``; ``None`` (default) resolves the ``deezer``
        data set (:func:`~opendp_graph.datasets.data_path`).
    :param country: country code, e.g. ``"HU"`` (required).
    :param num_nodes: number of users; defaults to the largest id in the file plus one.
    """
    folder, code = _files(path, country)
    file = folder / f"{code}_genres.json"
    if not file.is_file():
        raise FileNotFoundError(f"no {file.name} in {folder}")
    raw = json.loads(file.read_text(encoding="utf-8"))
    ids = {int(k): v for k, v in raw.items()}
    n = num_nodes if num_nodes is not None else max(ids, default=-1) + 1
    if ids and max(ids) >= n:
        raise ValueError(f"{file.name} names a user outside 0..num_nodes-1 (num_nodes={n})")
    out: list[frozenset[str]] = [frozenset()] * n
    for k, genres in ids.items():
        out[k] = frozenset(str(g) for g in genres)
    return out


def load_deezer(path=None, country: str | None = None, *, labels: str | None = None) -> Graph:
    """Load one country's Deezer friendship graph.

    :param path: folder holding ``XX_edges.csv`` (and ``XX_genres.json`` if ``labels`` is set);
        ``None`` (default) resolves the ``deezer`` data set
        (:func:`~opendp_graph.datasets.data_path`).
    :param country: country code, e.g. ``"HU"`` or ``"RO"`` (required).
    :param labels: ``None`` (default) for an unlabeled graph, or ``"shared_genres"``: each
        friendship is labeled with the genres *both* friends like (node attributes turned into
        the edge properties the package's label queries count).
    :return: a :class:`~opendp_graph.Graph` whose node ``i`` is Deezer user ``i``; the node count
        is one more than the largest id seen in the edges (or in the genres file, when read).
    :raises FileNotFoundError: if the files are missing (a
        :class:`~opendp_graph.datasets.DataUnavailableError` when the data set cannot be resolved).
    :raises ValueError: on a malformed file (wrong header, self-loops, negative ids).

    :example:

    >>> import opendp_graph as dpg
    >>> dpg.datasets.load_deezer(country="RO")  # doctest: +SKIP
    Graph(num_nodes=41773, num_edges=125826, labeled=False)
    """
    if labels not in (None, "shared_genres"):
        raise ValueError(f"labels must be None or 'shared_genres', got {labels!r}")
    folder, code = _files(path, country)
    file = folder / f"{code}_edges.csv"
    if not file.is_file():
        raise FileNotFoundError(f"no {file.name} in {folder}")
    with file.open(encoding="utf-8") as handle:
        header = handle.readline().strip()
        if header.replace(" ", "") != "node_1,node_2":
            raise ValueError(f"{file.name}: expected the header 'node_1,node_2' on its first line")
        pairs = np.loadtxt(handle, delimiter=",", dtype=np.int64, ndmin=2)
    if pairs.size == 0:
        pairs = np.zeros((0, 2), dtype=np.int64)
    if pairs.shape[1] != 2:
        raise ValueError(f"{file.name}: expected two columns, got {pairs.shape[1]}")
    if (pairs < 0).any():
        raise ValueError(f"{file.name}: negative node ids")
    n = int(pairs.max(initial=-1)) + 1
    if labels is None:
        return Graph.from_arrays(pairs[:, 0], pairs[:, 1], n)
    genres = load_deezer_genres(folder, code)
    n = max(n, len(genres))
    genres = genres + [frozenset()] * (n - len(genres))
    vocabulary = sorted(set().union(*genres))
    column = {g: j for j, g in enumerate(vocabulary)}
    rows = [i for i, gs in enumerate(genres) for _ in gs]
    cols = [column[g] for gs in genres for g in gs]
    liked = sp.csr_array((np.ones(len(rows), dtype=np.int64), (rows, cols)), shape=(n, len(vocabulary)))
    # an edge's label row = AND of its endpoints' genre rows
    shared = liked[pairs[:, 0]].multiply(liked[pairs[:, 1]])
    return Graph.from_arrays(pairs[:, 0], pairs[:, 1], n, label_matrix=shared, vocabulary=vocabulary)
