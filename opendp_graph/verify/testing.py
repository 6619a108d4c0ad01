"""Tools to *try to break* stability claims: enumerate small graphs, generate neighbours, and
compare ``d_out(f(x), f(x'))`` with ``stability_map(d_in(x, x'))``.

Used by this package's tests; public so that users can check their own transformations.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.graph import Graph

__all__ = [
    "all_graphs",
    "all_labelings",
    "edge_flips",
    "node_rewirings",
    "l1",
    "absolute",
    "l01inf",
    "StabilityReport",
    "check_stability",
]


def _pairs(n: int) -> list[tuple[int, int]]:
    return list(itertools.combinations(range(n), 2))


def all_graphs(n: int, *, max_degree: int | None = None) -> Iterator[Graph]:
    """Every simple graph on nodes ``0..n-1`` (``2^C(n,2)`` of them), optionally degree-bounded."""
    pairs = _pairs(n)
    for mask in range(1 << len(pairs)):
        chosen = [p for i, p in enumerate(pairs) if mask >> i & 1]
        g = Graph.from_edges([p[0] for p in chosen], [p[1] for p in chosen], num_nodes=n)
        if max_degree is None or g.max_degree <= max_degree:
            yield g


def all_labelings(graph: Graph, properties: Sequence[str], label_sets: Iterable[Iterable[str]] | None = None) -> Iterator[Graph]:
    """Every labelling of ``graph``'s edges by subsets of ``properties`` (by the sets of
    ``label_sets`` only, if given)."""
    if label_sets is None:
        subsets = [frozenset(c) for r in range(len(properties) + 1) for c in itertools.combinations(properties, r)]
    else:
        subsets = [frozenset(s) for s in label_sets]
    for choice in itertools.product(subsets, repeat=graph.num_edges):
        yield graph.without_labels().with_label_sets(list(choice))


def _with_edges(graph: Graph, edges: Iterable[tuple[int, int]], labels: dict | None = None) -> Graph:
    edges = sorted(edges)
    src = [u for u, _ in edges]
    dst = [v for _, v in edges]
    if labels is None:
        return Graph.from_edges(src, dst, num_nodes=graph.num_nodes, node_ids=graph.node_ids)
    return Graph.from_edges(src, dst, num_nodes=graph.num_nodes, node_ids=graph.node_ids, labels=[labels.get(e, ()) for e in edges])


def _edge_dict(graph: Graph) -> dict[tuple[int, int], frozenset[str] | None]:
    keys = list(zip(graph.src.tolist(), graph.dst.tolist()))
    return dict(zip(keys, graph.label_sets())) if graph.is_labeled else dict.fromkeys(keys)


def edge_flips(graph: Graph, label_choices: Sequence[frozenset[str]] = (frozenset(),)) -> Iterator[Graph]:
    """Graphs at edge distance 1 (one pair toggled; an added edge gets each of ``label_choices``
    when the graph is labeled)."""
    current = _edge_dict(graph)
    for pair in _pairs(graph.num_nodes):
        edges = dict(current)
        if pair in edges:
            del edges[pair]
            yield _with_edges(graph, edges, edges if graph.is_labeled else None)
        else:
            for lab in label_choices if graph.is_labeled else (None,):
                edges = dict(current)
                edges[pair] = lab
                yield _with_edges(graph, edges, edges if graph.is_labeled else None)


def node_rewirings(graph: Graph, node: int) -> Iterator[Graph]:
    """Every graph that differs from ``graph`` only in the edges at ``node`` (unlabeled edges;
    labels of untouched edges are kept, new edges get no labels)."""
    current = _edge_dict(graph)
    kept = {e: lab for e, lab in current.items() if node not in e}
    others = [v for v in range(graph.num_nodes) if v != node]
    for r in range(len(others) + 1):
        for nbrs in itertools.combinations(others, r):
            edges = dict(kept)
            for v in nbrs:
                e = (min(node, v), max(node, v))
                edges[e] = current.get(e, frozenset()) if graph.is_labeled else None
            yield _with_edges(graph, edges, edges if graph.is_labeled else None)


def l1(a: Sequence[float], b: Sequence[float]) -> float:
    """L1 distance of two equal-length vectors."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise ValueError("vectors have different lengths")
    return float(np.abs(x - y).sum())


def absolute(a: float, b: float) -> float:
    return float(abs(a - b))


def l01inf(a: dict, b: dict) -> tuple[int, float, float]:
    """``(ℓ0, ℓ1, ℓ∞)`` distance of two sparse count maps (missing keys count as 0)."""
    keys = set(a) | set(b)
    diffs = [abs(a.get(k, 0) - b.get(k, 0)) for k in keys]
    diffs = [x for x in diffs if x]
    return (len(diffs), float(sum(diffs)), float(max(diffs, default=0)))


@dataclass
class StabilityReport:
    """Outcome of :func:`check_stability`: the pairs tried, the tightest ratio seen, a witness."""

    pairs: int
    violations: list[tuple[Graph, Graph, Any, Any]]
    tight: list[tuple[Graph, Graph, Any]]

    @property
    def ok(self) -> bool:
        return not self.violations


def _within(d_out: Any, bound: Any) -> bool:
    if isinstance(d_out, tuple):
        return all(x <= y + 1e-12 for x, y in zip(d_out, bound))
    return d_out <= bound + 1e-12


def _reaches(d_out: Any, bound: Any) -> bool:
    if isinstance(d_out, tuple):
        return any(x >= y - 1e-12 for x, y in zip(d_out, bound))
    return d_out >= bound - 1e-12


def check_stability(
    function: Callable[[Graph], Any],
    stability_map: Callable[[Any], Any],
    pairs: Iterable[tuple[Graph, Graph]],
    input_distance: Callable[[Graph, Graph], float] | None,
    output_distance: Callable[[Any, Any], Any],
    *,
    input_distances: Sequence[float] | None = None,
) -> StabilityReport:
    """For each pair, check ``output_distance(f(x), f(x')) ≤ stability_map(input_distance(x, x'))``.

    ``input_distances`` may give the input distances precomputed (one per pair) instead.
    Pairs at infinite input distance are skipped. A pair is *tight* (reported with its input
    distance) when some output coordinate reaches the bound.
    """
    pairs = list(pairs)
    if input_distances is None:
        if input_distance is None:
            raise ValueError("give input_distance or input_distances")
        input_distances = [input_distance(x, y) for x, y in pairs]
    violations, tight, count = [], [], 0
    for (x, y), d_in in zip(pairs, input_distances):
        if d_in == float("inf"):
            continue
        count += 1
        bound = stability_map(d_in)
        d_out = output_distance(function(x), function(y))
        if not _within(d_out, bound):
            violations.append((x, y, d_out, bound))
        elif _reaches(d_out, bound) and (d_out != 0 if not isinstance(d_out, tuple) else any(d_out)):
            tight.append((x, y, d_in))
    return StabilityReport(pairs=count, violations=violations, tight=tight)
