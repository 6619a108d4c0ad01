"""Clipped label counts (``transformations/label_vectors.py``): the ℓ2 map tried against every edge
toggle and relabelling of random small labelled graphs, the bound reached (an edge holding ``C²``
properties), exact float sums, and the refusals."""

from __future__ import annotations

import itertools
import math

import numpy as np
import opendp.prelude as dp
import pytest

import opendp_graph as dpg
from opendp_graph.transformations.label_vectors import clipped_label_counts
from opendp_graph.verify.testing import edge_flips

PROPERTIES = ["a", "b", "c", "d", "e"]
SUBSETS = [frozenset(s) for r in range(len(PROPERTIES) + 1) for s in itertools.combinations(PROPERTIES, r)]


def _random_graph(rng, n: int = 5) -> dpg.Graph:
    pairs = [p for p in itertools.combinations(range(n), 2) if rng.random() < 0.5]
    labels = [sorted(SUBSETS[int(rng.integers(len(SUBSETS)))]) for _ in pairs]
    return dpg.Graph.from_edges([u for u, _ in pairs], [v for _, v in pairs], num_nodes=n, labels=labels)


def _l2(a, b) -> float:
    return float(np.sqrt(np.sum((np.asarray(a) - np.asarray(b)) ** 2)))


@pytest.mark.parametrize("norm_bound", [pytest.param(1.0, marks=pytest.mark.thorough), 1.5])  # a whole bound: thorough (3 s)
def test_within_the_map_for_every_edge_toggle_and_reached(norm_bound):
    dp.enable_features("contrib", "honest-but-curious")
    vocabulary = ["a", "b", "c", "d"]  # "e" is outside: ignored, so it must not count towards n
    domain = dpg.graph_domain(labeled=True)
    t = dpg.make_clipped_label_counts(domain, dpg.edge_distance(), vocabulary, norm_bound=norm_bound)
    bound = t.map(1)
    rng = np.random.default_rng(5)  # test data only
    worst = 0.0
    for _ in range(8):
        g = _random_graph(rng)
        for h in edge_flips(g, SUBSETS):
            worst = max(worst, _l2(t(g), t(h)))
    assert worst <= bound
    # reached: an edge holding min(4, C²) of the vocabulary's properties moves the vector by min(2, C)
    assert worst >= min(2.0, norm_bound) * (1 - 2**-19)


def test_relabelling_within_root_two_c_and_reached():
    domain = dpg.graph_domain(labeled=True)
    t = dpg.make_clipped_label_counts(domain, dpg.edge_label_distance(), ["a", "b"], norm_bound=1.0)
    g = dpg.Graph.from_edges([0], [1], labels=[["a"]])
    h = dpg.Graph.from_edges([0], [1], labels=[["b"]])
    assert _l2(t(g), t(h)) == pytest.approx(math.sqrt(2))
    assert _l2(t(g), t(h)) <= t.map(1)
    rng = np.random.default_rng(9)
    for _ in range(200):
        g = _random_graph(rng)
        if g.num_edges == 0:
            continue
        labels = g.label_sets()
        e = int(rng.integers(g.num_edges))
        labels[e] = SUBSETS[int(rng.integers(len(SUBSETS)))]
        h = g.without_labels().with_label_sets(labels)
        assert _l2(t(g), t(h)) <= t.map(1)


def test_group_map_and_exact_sums():
    domain = dpg.graph_domain(labeled=True)
    assert dpg.make_clipped_label_counts(domain, dpg.group_distance(3), ["a"], norm_bound=2.0).map(2) == pytest.approx(12.0)
    # 3 properties at C = 1: w = 1/√3 rounded down to a multiple of 2^-20, each sum exact
    n = 1000
    g = dpg.Graph.from_edges(list(range(n)), list(range(1, n + 1)), labels=[["a", "b", "c"]] * n)
    counts = clipped_label_counts(g, ["a", "b", "c"], 1.0)
    w = math.floor(2**20 / math.sqrt(3)) / 2**20
    assert counts.tolist() == [n * w] * 3
    assert 3 * w * w <= 1.0


def test_refusals():
    labelled = dpg.graph_domain(labeled=True)
    make = dpg.make_clipped_label_counts
    with pytest.raises(ValueError, match="labeled=True"):
        make(dpg.graph_domain(), dpg.edge_distance(), ["a"], norm_bound=1.0)
    with pytest.raises(TypeError, match="vocabulary"):
        make(labelled, dpg.edge_distance(), "ab", norm_bound=1.0)
    with pytest.raises(ValueError, match="must not be empty"):
        make(labelled, dpg.edge_distance(), [], norm_bound=1.0)
    for bad in (0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="norm_bound"):
            make(labelled, dpg.edge_distance(), ["a"], norm_bound=bad)
    with pytest.raises(TypeError, match="norm_bound"):
        make(labelled, dpg.edge_distance(), ["a"], norm_bound=True)
    with pytest.raises(ValueError):
        make(labelled, dpg.node_distance(), ["a"], norm_bound=1.0)  # no proven rule at node level


def test_weights_keep_the_norm_bound_exactly():
    """The red team found 58,532 weights whose float test w·w·n ≤ C·C passed while w²·n > C² exactly
    (a group map exceeded by 6e-18): the weights are now computed in integers."""
    from fractions import Fraction

    from opendp_graph.transformations.label_vectors import _edge_weights

    rng = np.random.default_rng(11)
    bounds = np.concatenate([[2.342965250322691], rng.uniform(0.01, 60, 3000)])
    for c in bounds:
        n = np.array([int(rng.integers(1, 5000)), 43, 1])
        for weight, count in zip(_edge_weights(n, float(c)), n):
            assert Fraction(float(weight)) ** 2 * int(count) <= Fraction(float(c)) ** 2
            assert weight == 0 or Fraction(float(weight) + 2**-20) ** 2 * int(count) > min(Fraction(float(c)) ** 2, Fraction(int(count)))
