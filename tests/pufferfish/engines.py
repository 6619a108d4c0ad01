"""The statistics engine's paths and its one test reference, shared by the engine tests.

A path is a dict ``{name: value}`` of module attributes to set: names of
:mod:`opendp_graph.pufferfish._stats`, or ``_compiled.NAME`` for
:mod:`opendp_graph.pufferfish._compiled`. There is one engine (the compiled passes); the paths
run it as it chooses, on several threads whatever the size, and on one thread.

:func:`reference_stats` is the reference every path is compared with: a plain scan of every
secret ``(e, a)`` over the closed neighbourhood ``N[e]`` (used by tests only).
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from opendp_graph.pufferfish import _compiled, _stats
from opendp_graph.pufferfish._stats import log_bucket

COMPILED_PATHS = {
    "compiled": {},
    # several threads whatever the size, and the sweep cut into runs of one node's work
    "compiled-threaded": {"_THREADED_EDGES": 0, "_workers": lambda: 3, "_compiled._RUN_WORK": 1},
    "compiled-one-thread": {"_workers": lambda: 1},
}


@contextlib.contextmanager
def forced(path: dict):
    with pytest.MonkeyPatch.context() as mp:
        for name, value in path.items():
            module, attr = (_compiled, name.split(".", 1)[1]) if name.startswith("_compiled.") else (_stats, name)
            assert hasattr(module, attr), name
            mp.setattr(module, attr, value)
        yield


def reference_stats(g, base: float) -> dict:
    """The statistics by scanning every edge's closed neighbourhood ``N[e]`` (``e`` and the edges
    sharing an endpoint with it): for every property ``a`` at once, ``f(e, a)`` = the edges of
    ``N[e]`` carrying ``a``, counted into ``hist1`` (``e`` carries ``a``) or ``hist0`` at
    (frequency bucket of ``a``, size bucket of ``|N[e]|``, ``f``).

    Returns ``hist1`` and ``hist0`` as ``{(fb, sb, f): count}`` of their non-zero bins, their
    ``shape`` (``None`` without edges), and the Binomial sums over the secrets' adjacent edges
    ``N[e] − {e}``: ``a1`` / ``a0`` (those carrying ``a``) and ``b1`` / ``b0`` (their number),
    for the ``s¹`` / ``s⁰`` secrets."""
    E, P = g.num_edges, len(g.vocabulary)
    labels = g.labels.toarray().astype(np.int64)  # E × P, 0/1
    freq = labels.sum(axis=0)
    fb = log_bucket(np.maximum(freq, 1), base)
    at_node = [[] for _ in range(g.num_nodes)]
    for e, (u, v) in enumerate(g.edges.tolist()):
        at_node[u].append(e)
        at_node[v].append(e)
    h1: dict = {}
    h0: dict = {}
    a1 = b1 = a0 = b0 = 0
    largest = 0
    for e, (u, v) in enumerate(g.edges.tolist()):
        hood = sorted(set(at_node[u]) | set(at_node[v]))  # N[e], e included
        largest = max(largest, len(hood))
        sb = int(log_bucket(np.array([len(hood)]), base)[0])
        f = labels[hood].sum(axis=0)
        for a in range(P):
            carried = bool(labels[e, a])
            target = h1 if carried else h0
            key = (int(fb[a]), sb, int(f[a]))
            target[key] = target.get(key, 0) + 1
            seen = int(f[a]) - carried  # the adjacent edges carrying a
            if carried:
                a1, b1 = a1 + seen, b1 + len(hood) - 1
            else:
                a0, b0 = a0 + seen, b0 + len(hood) - 1
    shape = None
    if E:
        shape = (int(fb.max(initial=0)) + 1, int(log_bucket(np.array([largest]), base)[0]) + 1, largest + 1)
    return {"hist1": h1, "hist0": h0, "shape": shape, "a1": a1, "b1": b1, "a0": a0, "b0": b0}


def nonzero(h) -> dict:
    """``{index: count}`` of the non-zero bins of a histogram array."""
    return {k: int(v) for k, v in np.ndenumerate(h) if v}


def assert_matches_reference(st, ref: dict, label: str = "") -> None:
    """The engine's statistics ``st`` equal the reference's, bin for bin."""
    if ref["shape"] is not None:
        assert st.hist0.shape == st.hist1.shape == ref["shape"], label
    assert nonzero(st.hist1) == ref["hist1"], label
    assert nonzero(st.hist0) == ref["hist0"], label
    assert (st.a1, st.b1) == (ref["a1"], ref["b1"]), label
    assert st.num_properties * st.nb_total - st.b1 == ref["b0"], label
    assert st.hist0.sum() + st.hist1.sum() == st.num_edges * st.num_properties, label
