"""The straightforward NetworkX Global models: the baselines of the speed-up targets.

Three baselines, all exact (their histograms and W are checked equal to the fast path's):

* :func:`naive_global_model` scans every edge's neighbourhood edge by edge (below): the
  baseline of issue 7's target on the synthetic graph.
* :func:`edge_counter_global_model` is the same algorithm written tight, as issue 14 describes
  its baseline ("per edge, a ``Counter`` of the neighbouring edges' labels"): each node's label
  occurrences are listed once, and each edge counts its two endpoints' lists with C-level
  ``Counter`` construction, with no Python loop over neighbours. It is the baseline of the
  skewed text-label target (``≥ 100×``). On that shape (60 k edges) it took 2.6–3.4 s here,
  about 25× the statistics pass of the engine before issue 14 (123–130 ms, same session); the
  issue reported 14–18× on its machine.
* :func:`counter_global_model` counts each node's labels once and combines the two endpoints'
  counters per edge: a different, stronger algorithm (it avoids the ``Σ deg²`` neighbourhood
  scans altogether), reported beside the target as a reference, with no target of its own.

The first is how a researcher would write the Global model of Shafieinejad et al. (paper 001,
§4.3.2) with NetworkX, without tricks that need the insight of the fast path: for every edge,
scan its neighbourhood (the edges at both endpoints), count how many neighbours carry each
property, and add one observation per (edge, property) secret to the histogram of its side.
It is *not* artificially slow: neighbour labels are counted with a ``Counter`` (one pass over the
neighbourhood per edge, not one per property), and the ``s⁰`` secrets whose neighbourhood has
no edge with the property (``f = 0``) are added in one step per edge instead of one by one.

The statistic is the fast path's (``opendp_graph.pufferfish``): ``f`` = the number of edges of
the closed neighbourhood carrying the property, the central edge included; ``W`` = the W∞
distance between the two normalised histograms (the largest gap between their quantile
functions).
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import networkx as nx
import numpy as np

__all__ = ["counter_global_model", "edge_counter_global_model", "naive_global_model", "w_infinity_quantiles"]


def naive_global_model(graph: nx.Graph, vocabulary, label_attr: str = "labels") -> tuple[np.ndarray, np.ndarray, int]:
    """``(hist0, hist1, W)`` of the Global model by per-edge neighbourhood scans.

    :param graph: a ``networkx.Graph`` whose edges carry a set of properties under ``label_attr``.
    :param vocabulary: every property (the secrets are all edge × property pairs).
    """
    num_props = len(vocabulary)
    hist0: Counter = Counter()
    hist1: Counter = Counter()
    for u, v, own in graph.edges(data=label_attr):
        own = own or frozenset()
        seen: Counter = Counter()
        for x, y in ((u, v), (v, u)):
            for w, data in graph[x].items():
                if w != y:  # every edge at x except the central one
                    seen.update(data.get(label_attr) or ())
        for a in own:
            hist1[seen[a] + 1] += 1  # the central edge counts itself
        others = 0
        for a, count in seen.items():
            if a not in own:
                hist0[count] += 1
                others += 1
        zeros = num_props - len(own) - others
        if zeros:
            hist0[0] += zeros
    h0 = _dense(hist0)
    h1 = _dense(hist1)
    return h0, h1, w_infinity_quantiles(h0, h1)


def edge_counter_global_model(graph: nx.Graph, vocabulary, label_attr: str = "labels") -> tuple[np.ndarray, np.ndarray, int]:
    """``(hist0, hist1, W)`` of the Global model, per edge, from a ``Counter`` of the labels of
    the edges around it (issue 14's baseline).

    Each node's label occurrences (every label of every edge at it, with repeats) are listed
    once as a tuple; for each edge ``e = {u, v}`` one ``Counter`` counts the two endpoints'
    tuples, C-level, which counts the labels of every neighbouring edge once and those of ``e``
    twice: ``f(e, a)`` = that count − 1 for a label ``a`` of ``e`` (the central edge counts
    itself once), the count itself for any other ``a``. The ``s⁰`` secrets with ``f = 0`` are
    added in one step per edge. Work: ``Σ_e (deg u + deg v)`` label occurrences, the
    neighbourhood volume, as in :func:`naive_global_model`, but without its Python loop over
    the neighbours.
    """
    num_props = len(vocabulary)
    occurrences: dict = {x: [] for x in graph}
    for u, v, own in graph.edges(data=label_attr):
        if own:
            occurrences[u].extend(own)
            occurrences[v].extend(own)
    at = {x: tuple(found) for x, found in occurrences.items()}
    hist0: Counter = Counter()
    hist1: Counter = Counter()
    for u, v, own in graph.edges(data=label_attr):
        seen = Counter(at[u])
        seen.update(at[v])  # e's own labels are counted at both ends
        own = own or ()
        for a in own:
            hist1[seen[a] - 1] += 1
        others = [c for a, c in seen.items() if a not in own] if own else list(seen.values())
        hist0.update(others)
        hist0[0] += num_props - len(own) - len(others)
    h0 = _dense(hist0)
    h1 = _dense(hist1)
    return h0, h1, w_infinity_quantiles(h0, h1)


def counter_global_model(graph: nx.Graph, vocabulary, label_attr: str = "labels") -> tuple[np.ndarray, np.ndarray, int]:
    """``(hist0, hist1, W)`` of the Global model from per-node label counters.

    The strongest simple NetworkX version (a reference, not a target's baseline): one
    ``Counter`` per node of the labels on its edges (``C[x, a]``), then, for each edge
    ``e = {u, v}``, ``f(e, a) = C[u, a] + C[v, a] − [e has a]`` over the properties seen at
    either endpoint (a comprehension over the larger counter, probing the smaller, then the
    smaller's own keys), counted with C-level ``Counter.update``; every other property has
    ``f = 0`` and is counted by subtraction, never listed. Work: ``Σ_e |C[u]| + |C[v]|``
    dictionary operations, with no Python loop over the vocabulary.
    """
    num_props = len(vocabulary)
    counts = {x: Counter() for x in graph}
    for u, v, own in graph.edges(data=label_attr):
        if own:
            counts[u].update(own)
            counts[v].update(own)
    every: Counter = Counter()  # C[u, a] + C[v, a] over every secret (e, a) with a seen around e
    labelled: Counter = Counter()  # ... over the labelled secrets (s¹), whose f is one less
    for u, v, own in graph.edges(data=label_attr):
        big, small = counts[u], counts[v]
        if len(big) < len(small):
            big, small = small, big
        get = small.get
        values = [c + get(a, 0) for a, c in big.items()]
        values += [c for a, c in small.items() if a not in big]
        every.update(values)
        every[0] += num_props - len(values)
        if own:
            labelled.update([big[a] + small[a] for a in own])
    every.subtract(labelled)
    h0 = _dense(every)
    h1 = _dense(Counter({g - 1: c for g, c in labelled.items()}))
    return h0, h1, w_infinity_quantiles(h0, h1)


def _dense(hist: Counter) -> np.ndarray:
    hist = {k: c for k, c in hist.items() if c}
    size = max(hist, default=-1) + 1
    out = np.zeros(size, dtype=np.int64)
    for k, c in hist.items():
        out[k] = c
    return out


def w_infinity_quantiles(h0, h1) -> int:
    """W∞ between two histograms on ``0..K`` (counts): ``max |F0⁻¹(q) − F1⁻¹(q)|`` over ``q``.

    Exact (rational arithmetic): both quantile functions are step functions, constant between
    consecutive CDF values of either side, so it suffices to compare them on each such interval.
    Returns 0 if either side is empty.
    """
    h0 = [int(c) for c in h0]
    h1 = [int(c) for c in h1]
    n0, n1 = sum(h0), sum(h1)
    if n0 == 0 or n1 == 0:
        return 0
    steps0 = _steps(h0, n0)
    steps1 = _steps(h1, n1)
    # walk both step functions together
    i = j = 0
    best = 0
    while i < len(steps0) and j < len(steps1):
        (c0, x0), (c1, x1) = steps0[i], steps1[j]
        best = max(best, abs(x0 - x1))
        if c0 < c1:
            i += 1
        elif c1 < c0:
            j += 1
        else:
            i += 1
            j += 1
    return best


def _steps(h: list[int], total: int) -> list[tuple[Fraction, int]]:
    """``(CDF value, x)`` for each support point ``x``: the quantile function is ``x`` on
    ``(previous CDF value, this CDF value]``."""
    out, acc = [], 0
    for x, c in enumerate(h):
        if c:
            acc += c
            out.append((Fraction(acc, total), x))
    return out
