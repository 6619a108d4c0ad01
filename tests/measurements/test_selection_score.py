"""The bound's selection score (``make_bias_noise_scores``): its stability claim
``max_θ Δ_θ + Δ_B`` tried on every small graph and log, on random larger ones, its values
against a hand computation, and its public noise term."""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import opendp.prelude as dp
import pytest

import opendp_graph as dpg
from opendp_graph.measurements.degree_distribution import fit_noise_estimate, make_bias_noise_scores
from opendp_graph.polars import _message_counts as C
from opendp_graph.verify.testing import all_graphs, node_rewirings

from tests.transformations.test_node_insertion import insertion_pairs, without

dp.enable_features("contrib", "honest-but-curious")


def degree_scores(domain, metric, thetas, bound, noise=None):
    return make_bias_noise_scores(
        lambda b: dpg.make_degree_projection(domain, metric, b) >> dpg.then_degree_histogram(max_degree=b),
        thetas,
        bound,
        noise or [0] * len(thetas),
    )


def worst_change(scores, pairs):
    memo = {}

    def value(g):
        key = id(g)
        if key not in memo:
            memo[key] = (g, np.asarray(scores(g), dtype=np.int64))
        return memo[key][1]

    return max(int(np.abs(value(a) - value(b)).max()) for a, b in pairs)


@pytest.mark.parametrize(
    "thetas, bound, n", [([1, 2], 3, 4), pytest.param([1, 2], 3, 5, marks=pytest.mark.slow), ([1, 3], 3, 4), ([2], 4, 4)]
)
def test_scores_under_node_insertion_on_every_small_graph(thetas, bound, n):
    """Every graph on n nodes and each of its nodes deleted. The map is an upper bound, not
    tight (the triangle inequality counts a partner's move in both histograms): on 5 nodes the
    largest change seen is 6 of 14 for [1, 2] and B = 3."""
    scores = degree_scores(dpg.graph_domain(), dpg.node_insertion_distance(), thetas, bound)
    worst = worst_change(scores, insertion_pairs(n))
    assert 0 < worst <= scores.map(1)


@pytest.mark.parametrize("sampled", [15, pytest.param(200, marks=pytest.mark.slow)])
def test_scores_under_node_rewiring_on_graphs_on_5_nodes(sampled):
    """Every rewiring of every node of ``sampled`` random graphs on 5 nodes (200 with ``-m slow``)."""
    domain, metric = dpg.graph_domain(num_nodes=5), dpg.node_distance()
    scores = degree_scores(domain, metric, [1, 2], 3)
    rng = np.random.default_rng(3)
    graphs = list(all_graphs(5))
    pairs = []
    for i in rng.choice(len(graphs), sampled, replace=False):
        g = graphs[i]
        for v in range(5):
            pairs.extend((g, h) for h in node_rewirings(g, v))
    worst = worst_change(scores, pairs)
    assert worst <= scores.map(1)


def test_scores_on_random_larger_graphs_with_hubs():
    rng = np.random.default_rng(11)
    domain, metric = dpg.graph_domain(), dpg.node_insertion_distance()
    scores = degree_scores(domain, metric, [2, 4, 8], 16)
    for _ in range(25):
        n = int(rng.integers(20, 40))
        hub_edges = [(0, int(v)) for v in rng.choice(np.arange(1, n), size=int(rng.integers(5, n - 1)), replace=False)]
        extra = [tuple(sorted(map(int, rng.choice(n, 2, replace=False)))) for _ in range(int(rng.integers(10, 80)))]
        edges = sorted(set(hub_edges) | set(extra))
        g = dpg.Graph.from_edges([u for u, _ in edges], [v for _, v in edges], num_nodes=n)
        for v in (0, int(rng.integers(1, n))):
            h = without(g, {v})
            assert np.abs(np.subtract(scores(g), scores(h))).max() <= scores.map(1)


@pytest.mark.parametrize("size", [2, pytest.param(3, marks=pytest.mark.slow)])
def test_scores_of_message_counts_on_every_small_log(size):
    """Removing one person's messages moves the message-count scores by at most the map, on
    every log of ``size`` messages of any shape on three people."""
    from tests.polars.test_messages import PEOPLE, SHAPES, direct_log
    from tests.polars.test_messages import without as without_person

    roster = (2, 0, 1)
    space = dpg.polars.message_log_domain(), dpg.polars.person_log_distance()
    scores = make_bias_noise_scores(
        lambda b: dpg.polars.make_message_count_projection(*space, b, roster) >> C._histogram(len(roster), b),
        [1, 2],
        3,
        [0, 0],
    )
    assert scores.map(1) == 4 * 2 + 4 * 3  # histograms move by twice their counts' 2k
    worst = 0

    @functools.lru_cache(maxsize=None)  # a log without one person recurs across the loop: each is scored once
    def scores_of(messages: tuple):
        return scores(direct_log(list(messages)))

    for messages in itertools.combinations_with_replacement(SHAPES, size):
        full = scores_of(tuple(messages))
        for v in PEOPLE:
            rest = scores_of(tuple(without_person(list(messages), v)))
            worst = max(worst, int(np.abs(np.subtract(full, rest)).max()))
    assert 0 < worst <= scores.map(1)


def test_score_values_match_a_hand_computation():
    """A star of 6 leaves plus a path: P_θ = Σ_{k<θ}|H_θ[k] − H_B[k]| + H_θ[θ], minus the noise term."""
    edges = [(0, v) for v in range(1, 7)] + [(7, 8), (8, 9)]
    g = dpg.Graph.from_edges([u for u, _ in edges], [v for _, v in edges], num_nodes=10)
    domain, metric = dpg.graph_domain(), dpg.node_insertion_distance()
    scores = degree_scores(domain, metric, [2, 4], 8, noise=[5, 7])
    h = {b: np.asarray((dpg.make_degree_projection(domain, metric, b) >> dpg.then_degree_histogram(max_degree=b))(g)) for b in (2, 4, 8)}
    expected = [-(int(np.abs(h[t][:t] - h[8][:t]).sum()) + int(h[t][t]) + noise) for t, noise in ((2, 5), (4, 7))]
    assert scores(g) == expected
    # the hub keeps two of its six leaves at θ = 2: four leaves fall to degree 0, the hub is capped
    assert expected[0] == -(8 + 2 + 5)


def test_the_noise_term_is_public_arithmetic():
    assert fit_noise_estimate(8, 10.0, None) == 90  # (θ + 1)·e without a public n
    assert fit_noise_estimate(8, 10.0, 47_538) == 90  # the raw noise binds at small θ
    assert fit_noise_estimate(256, 1137.8, 20_000) == round(math.sqrt(20_000 * 1137.8))


def test_the_choice_prefers_the_candidate_with_less_bias_when_noise_is_cheap():
    """At a large ε the choice is the score's argmax: on a graph whose hubs the small bound cuts,
    the larger bound wins; with the public-noise term it loses when noise is dear."""
    edges = [(h, v) for h in range(3) for v in range(3 + 10 * h, 13 + 10 * h)]
    g = dpg.Graph.from_edges([u for u, _ in edges], [v for _, v in edges], num_nodes=40)
    domain, metric = dpg.graph_domain(num_nodes=40), dpg.node_distance()
    cheap = dpg.make_private_degree_distribution(domain, metric, dp.loss_of(epsilon=1e5), [2, 16], num_nodes=40, d_in=2, selection_share=0.5)
    assert {cheap(g).theta for _ in range(5)} == {16}


def test_the_accuracy_statement_says_how_much_the_choice_can_tell_apart():
    """The choice's law is within exp(2n/β) of uniform: at ε = 1 on 20,000 nodes with θ up to
    256 the statement says the choice barely tells candidates apart; at ε = 100 it does not."""
    domain, metric = dpg.graph_domain(num_nodes=20_000), dpg.node_distance()
    weak = dpg.accuracy(dpg.make_private_degree_distribution(domain, metric, dp.loss_of(epsilon=1.0), [32, 256], num_nodes=20_000))
    assert "barely tell" in weak.selection and "= 2·n" in weak.selection
    strong = dpg.accuracy(dpg.make_private_degree_distribution(domain, metric, dp.loss_of(epsilon=100.0), [32, 256], num_nodes=20_000))
    assert "can tell apart" in strong.selection
    # the cost of measuring what the bound moves below θ: (Δ_θ + Δ_B)/(ε·share), Δ = 4θ per rewired node
    assert "32: 11,520 (0.58·n)" in weak.bias and "256: 20,480 (1·n)" in weak.bias
    single = dpg.accuracy(dpg.make_private_degree_distribution(domain, metric, dp.loss_of(epsilon=1.0), [32], num_nodes=20_000))
    assert single.selection is None and "the choice" not in str(single)


def test_the_choice_law_is_near_uniform_when_the_statement_says_so():
    """The statement's factor bounds the law: with OpenDP's noisy max at the selector's scale,
    two candidates whose scores differ by n (half a perfect spread) are picked within the factor."""
    space = dp.vector_domain(dp.atom_domain(T=dp.i64), size=2), dp.linf_distance(T=dp.i64)
    n, scale = 1_000, 2_000.0
    pick = dp.m.make_noisy_max(*space, dp.max_divergence(), scale=scale)
    share = np.mean([pick([0, 2 * n]) for _ in range(3000)])  # scores spread by 2n: the extreme
    factor = math.exp(2 * n / scale)
    assert 0.5 / factor - 0.03 <= 1 - share and share <= 0.5 * factor + 0.03


def test_expected_nodes_is_checked_and_only_read_by_the_score():
    domain, metric = dpg.graph_domain(), dpg.node_insertion_distance()
    with pytest.raises(ValueError, match="expected_nodes"):
        dpg.make_private_degree_distribution(domain, metric, dp.loss_of(epsilon=1.0), [4, 8], expected_nodes=0)
    with_estimate = dpg.make_private_degree_distribution(domain, metric, dp.loss_of(epsilon=1.0), [4, 8], expected_nodes=1_000)
    without = dpg.make_private_degree_distribution(domain, metric, dp.loss_of(epsilon=1.0), [4, 8])
    assert with_estimate.map(1) == without.map(1)
    assert "2.5·n" not in dpg.accuracy(without).selection  # no n: the scale is stated in nodes only
    assert "·n" in dpg.accuracy(with_estimate).selection
