"""Hypothesis strategies shared by the test modules (``tests/`` is on the import path)."""

import numpy as np
from hypothesis import strategies as st

import opendp_graph as dpg


@st.composite
def labelled_graphs(draw):
    """Small labelled graphs with the issue's corner cases in reach: no edges, isolated edges, one
    property, a property on every edge, properties on no edge, stars and cliques."""
    n = draw(st.integers(2, 9))
    pairs = [(u, v) for u in range(n) for v in range(u + 1, n)]
    edges = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs)))
    vocab = ["a", "b", "c", "d"][: draw(st.integers(1, 4))]
    everywhere = draw(st.sets(st.sampled_from(vocab)))
    rows = [sorted(set(draw(st.sets(st.sampled_from(vocab)))) | everywhere) for _ in edges]
    col = {w: j for j, w in enumerate(vocab)}
    matrix = np.zeros((len(edges), len(vocab)), dtype=bool)
    for i, r in enumerate(rows):
        matrix[i, [col[w] for w in r]] = True
    src = np.array([u for u, _ in edges], dtype=np.int64)
    dst = np.array([v for _, v in edges], dtype=np.int64)
    return dpg.Graph.from_arrays(src, dst, n, label_matrix=matrix, vocabulary=vocab)
