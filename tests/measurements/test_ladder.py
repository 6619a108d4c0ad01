"""The Ladder mechanism for edge-level triangle counts (``measurements/ladder.py``): the ladder
against brute force on every graph of four nodes (five and six under ``-m thorough``; the default law check computes it on every 5-node graph), the ladder's
condition between every pair of neighbours, the exact output law of the sampler on every pair of
neighbouring 5-node graphs (computed from the weights the release draws with) against the privacy
map, the placement of each rung's integers, the releases themselves against that law (chi-square),
the OpenDP draws against theirs, and the refusals. The structural conditions and the larger sweeps
are in the thorough tier."""

from __future__ import annotations

import functools
import itertools
import math

import networkx as nx
import numpy as np
import opendp.prelude as dp
import pytest
from scipy.special import logsumexp
from scipy.stats import chisquare

import opendp_graph as dpg
import opendp_graph.measurements.ladder as ladder_module
from opendp_graph.measurements.ladder import (
    _choose,
    _explicit_rungs,
    _ladder_widths,
    _place,
    _rung_span,
    _rung_log_weights,
    _ladder_scale,
    triangle_sensitivity_ladder,
)
from opendp_graph.transformations.triangles import triangle_count
from tests.transformations.test_subgraphs import _graph_of

dp.enable_features("contrib", "honest-but-curious")


@functools.lru_cache(maxsize=None)  # shared by the tests of this module (one worker runs them all)
def _all_graphs(n: int) -> tuple[list[tuple[int, int]], list[dpg.Graph], np.ndarray]:
    """Every graph on ``n`` nodes as a bit mask over the pairs, the graphs, and their triangle counts."""
    pairs = list(itertools.combinations(range(n), 2))
    graphs = [_graph_of(mask, pairs, n) for mask in range(1 << len(pairs))]
    return pairs, graphs, np.array([triangle_count(g) for g in graphs])


def _brute_ladder(n: int, triangles: np.ndarray, rungs: int) -> np.ndarray:
    """``LS_t`` of every graph (rows: masks) by definition: the local sensitivity, then the largest
    over the ball of radius ``t`` in the hypercube of edge flips."""
    masks = np.arange(triangles.shape[0])
    bits = [1 << i for i in range(n * (n - 1) // 2)]
    ls = np.max([np.abs(triangles[masks ^ b] - triangles) for b in bits], axis=0)
    out = [ls]
    for _ in range(rungs - 1):
        prev = out[-1]
        out.append(np.max([prev] + [prev[masks ^ b] for b in bits], axis=0))
    return np.array(out).T


@pytest.mark.parametrize("n", [4, pytest.param(5, marks=pytest.mark.thorough), pytest.param(6, marks=pytest.mark.thorough)])
def test_the_ladder_is_the_local_sensitivity_at_each_distance(n):
    _, graphs, triangles = _all_graphs(n)
    rungs = n * (n - 1) // 2 + 2
    brute = _brute_ladder(n, triangles, rungs)
    ours = np.array([triangle_sensitivity_ladder(g, rungs) for g in graphs])
    assert np.array_equal(ours, brute)
    assert brute[:, -1].min() == n - 2  # every ladder reaches the global sensitivity


def test_the_ladder_on_random_graphs_matches_a_slow_maximum_over_pairs(monkeypatch):
    """Larger graphs than brute force reaches: the exact search for pairs without a common
    neighbour (a walk in degree order) and ``A·A`` in blocks of a few rows (as on a large graph)
    against the formula over every pair."""
    monkeypatch.setattr(ladder_module, "WEDGE_BLOCK", 7)  # blocks of a row or two: the rows stop early where they can
    for seed in range(45):
        h = nx.gnp_random_graph(40, [0.02, 0.1, 0.3][seed % 3], seed=seed)
        if seed % 5 == 0:  # hubs: pairs of high degree with no common neighbour are the case the walk must find
            h = nx.disjoint_union(nx.star_graph(6 + seed // 2), nx.star_graph(4 + seed // 3))
            h.add_edges_from([(0, 7 + seed // 2), (1, 8 + seed // 2)][: 1 + seed % 2])
        elif seed % 5 == 1:  # a clique hung on a hub: the rows stop at the clique's degree, after the hub's
            h = nx.disjoint_union(nx.star_graph(8 + seed // 3), nx.complete_graph(3 + seed % 4))
            h.add_edges_from([(0, h.number_of_nodes() - 1), (1, h.number_of_nodes() - 2)])
        elif seed % 5 == 2:  # heavy tails: the busiest pair need not hold the busiest node
            h = nx.powerlaw_cluster_graph(40, 1 + seed % 3, 0.6, seed=seed)
        g = dpg.Graph.from_networkx(h)
        adj = nx.to_numpy_array(h, nodelist=range(h.number_of_nodes()), dtype=np.int64)
        common, degree = adj @ adj, adj.sum(axis=1)
        t = np.arange(12)
        slow = np.zeros(12, dtype=np.int64)
        for i, j in itertools.combinations(range(adj.shape[0]), 2):
            b = degree[i] + degree[j] - 2 * common[i, j] - 2 * adj[i, j]
            slow = np.maximum(slow, common[i, j] + (t + np.minimum(t, b)) // 2)
        assert np.array_equal(triangle_sensitivity_ladder(g, 12), np.minimum(slow, g.num_nodes - 2)), seed


def test_a_hub_or_a_dense_pair_costs_little():
    """A star of 100,000 leaves: every pair of leaves shares the hub (``a = 1``), the hub and a leaf
    share nothing and differ in every other leaf (``b = 99,999``), so ``LS_t = max(1 + ⌊t/2⌋, t)``.
    The rows stop after two nodes (all ``10^10`` pairs of leaves would take tens of minutes)."""
    star = dpg.Graph.from_networkx(nx.star_graph(100_000))
    t = np.arange(50)
    assert np.array_equal(triangle_sensitivity_ladder(star, 50), np.maximum(1 + t // 2, t))
    # K_{300,300}: a pair on one side shares all 300 (LS_0 = 300); the walk over pairs with no common
    # neighbour (across, b = 598) stops at once, as they are outdone (m³ work before)
    m = 300
    both = triangle_sensitivity_ladder(dpg.Graph.from_networkx(nx.complete_bipartite_graph(m, m)), 50)
    assert np.array_equal(both, np.minimum(np.maximum(m + t // 2, (t + np.minimum(t, 2 * m - 2)) // 2), 2 * m - 2))


# the default run keeps the degree-capped ladder at D = 3 (the cap binds: GS = 2 < n − 2 = 3); the
# exact law covers 5 nodes unbounded
@pytest.mark.parametrize(
    ("n", "max_degree"),
    [(5, 3), pytest.param(5, None, marks=pytest.mark.thorough), pytest.param(5, 2, marks=pytest.mark.thorough)],
)
def test_the_ladder_condition_holds_between_every_pair_of_neighbours(n, max_degree):
    """Zhang et al.'s two conditions on the widths the release uses: the count moves by at most
    ``w_0`` of either graph, and ``w_t(G) ≤ w_{t+1}(G')``, over every pair of ``n``-node graphs one
    edge apart inside the domain (a degree bound caps the ladder at ``D − 1``)."""
    pairs, graphs, triangles = _all_graphs(n)
    explicit = _explicit_rungs(_ladder_scale(1.0, 1))
    inside = [max_degree is None or g.max_degree <= max_degree for g in graphs]
    cap = None if max_degree is None else max_degree - 1
    widths = [_ladder_widths(g, explicit, cap) if ok else None for g, ok in zip(graphs, inside)]
    for mask in range(len(graphs)):
        if not inside[mask]:
            continue
        w, tail = widths[mask]
        for bit in range(len(pairs)):
            other = mask ^ (1 << bit)
            if not inside[other]:
                continue
            w2, tail2 = widths[other]
            assert tail == tail2
            assert abs(triangles[mask] - triangles[other]) <= min(w[0], w2[0])
            assert np.all(w[:-1] <= w2[1:]) and w[-1] <= tail2


def _output_law(truth: int, widths: np.ndarray, tail: int, scale: float, window: int) -> np.ndarray:
    """``log P(k)`` of the release for ``k = truth − window … truth + window``, from the float
    log-weights the release draws its rung with (OpenDP's sampler is exact for them)."""
    scores = _rung_log_weights(widths, tail, scale)
    log_rung = scores - logsumexp(scores)
    ends = np.concatenate([[0], np.cumsum(widths)])
    distance = np.abs(np.arange(-window, window + 1))
    out = np.full(distance.shape[0], log_rung[0])
    inside = (distance > 0) & (distance <= ends[-1])
    rung = np.searchsorted(ends, distance[inside], side="left")  # distance in (ends[r−1], ends[r]] is rung r
    out[inside] = log_rung[rung] - np.log(2.0 * widths[rung - 1])
    beyond = distance > ends[-1]
    extra = (distance[beyond] - ends[-1] - 1) // tail + 1
    log_stay = -1.0 / scale  # P(e) = (1 − q) q^(e−1), q = e^(−1/s)
    out[beyond] = log_rung[-1] + math.log(-math.expm1(log_stay)) + (extra - 1) * log_stay - math.log(2.0 * tail)
    return truth - window + np.arange(distance.shape[0]), out


def _worst_log_ratio(epsilon: float, max_degree: int | None, widths_of=_ladder_widths, n: int = 5) -> float:
    """The largest ``|log P_G(k) − log P_G'(k)|`` over every output ``k`` and every pair of
    ``n``-node graphs one edge apart inside the domain, the law built from ``widths_of``."""
    scale = _ladder_scale(epsilon, 1)
    explicit = _explicit_rungs(scale)
    pairs, graphs, triangles = _all_graphs(n)
    cap = None if max_degree is None else max_degree - 1
    # past every listed rung (at most 2·GS + 2 of width ≤ GS = n − 2), then whole tail rungs of every phase
    window = (n - 2) * (2 * (n - 2) + 2) + 40
    laws = {}
    for mask, g in enumerate(graphs):
        if max_degree is None or g.max_degree <= max_degree:
            w, tail = widths_of(g, explicit, cap)
            laws[mask] = _output_law(int(triangles[mask]), w, tail, scale, window)
    worst = 0.0
    for mask, (ks, law) in laws.items():
        for bit in range(len(pairs)):
            other = mask ^ (1 << bit)
            if other < mask or other not in laws:
                continue
            ks2, law2 = laws[other]
            shift = int(ks2[0] - ks[0])
            a, b = (law[shift:], law2[: law2.shape[0] - shift]) if shift >= 0 else (law[: law.shape[0] + shift], law2[-shift:])
            worst = max(worst, float(np.abs(a - b).max()))
    return worst


@pytest.mark.parametrize(
    ("epsilon", "max_degree"), [(1.0, None), pytest.param(0.3, None, marks=pytest.mark.thorough), pytest.param(3.0, 3, marks=pytest.mark.thorough)]
)
def test_the_release_law_stays_within_the_map_on_every_pair_of_neighbouring_graphs(epsilon, max_degree):
    """The exact law of every output on each pair of 5-node graphs one edge apart: the largest
    log-ratio is at most ``map(1)``, and at least half of it (the map is not loose by much)."""
    meas = dpg.make_ladder_triangle_count(dpg.graph_domain(max_degree=max_degree), dpg.edge_distance(), dp.loss_of(epsilon=epsilon))
    worst = _worst_log_ratio(epsilon, max_degree)
    assert worst <= meas.map(1)
    assert worst >= 0.5 * epsilon  # realised: 0.74ε at ε = 1, 0.81ε at 0.3, 0.58ε at 3 (degrees ≤ 3)


def test_the_law_check_fails_on_a_ladder_that_does_not_grow():
    """The check above can fail: with every rung as wide as ``LS_0`` (not a ladder function: it
    breaks ``w_t(G) ≤ w_{t+1}(G')``) the same law exceeds the map."""

    def flat(g, explicit, cap):
        widths, tail = _ladder_widths(g, explicit, cap)
        return np.full_like(widths, widths[0]), tail

    assert _worst_log_ratio(1.0, None, flat, n=4) > 1.0


def test_the_rung_weights_are_the_sums_of_their_integers():
    widths, tail, scale = np.array([1, 2, 2, 3, 5]), 5, 1.7
    scores = _rung_log_weights(widths, tail, scale)
    direct = [1.0] + [2 * w * math.exp(-t / scale) for t, w in enumerate(widths, start=1)]
    direct.append(sum(2 * tail * math.exp(-t / scale) for t in range(widths.shape[0] + 1, 2000)))
    assert np.allclose(np.exp(scores), direct, rtol=1e-12, atol=0)


def test_each_rung_places_its_integers_once_around_the_truth():
    widths, tail, truth = np.array([1, 3, 3, 4]), 4, 50
    seen = []
    for rung in range(1, widths.shape[0] + 4):
        width = int(widths[rung - 1]) if rung <= widths.shape[0] else tail
        extra = rung - widths.shape[0] if rung > widths.shape[0] else 0
        rung_index = rung if rung <= widths.shape[0] else widths.shape[0] + 1
        below, spanned = _rung_span(widths, tail, rung_index, extra)
        assert spanned == width
        placed = [_place(truth, below, width, pick) for pick in range(2 * width)]
        assert len(set(placed)) == 2 * width
        seen += placed
    assert sorted(abs(k - truth) for k in seen) == sorted(list(range(1, int(widths.sum()) + 3 * tail + 1)) * 2)


def test_the_draws_follow_the_weights():
    """OpenDP's Gumbel noisy max at scale 1 draws index ``i`` with probability ``∝ e^{score_i}``
    (the rung), and of equal scores uniformly (the integer inside a rung): a chi-square test at
    ``p = 10⁻⁶`` (a false alarm once in a million runs)."""
    scores = np.log(np.array([0.4, 0.25, 0.2, 0.1, 0.05]))
    draws = np.bincount([_choose(scores) for _ in range(1500)], minlength=5)
    assert chisquare(draws, 1500 * np.exp(scores)).pvalue > 1e-6


def test_wide_rungs_draw_their_integer_uniformly_by_digits(monkeypatch):
    """Above ``UNIFORM_BASE`` the index is drawn digit by digit with rejection (a rung may hold
    millions of integers). With a base of 4, every sequence of digits is fed in turn: among the
    accepted ones each index of sizes 5, 10 and 17 comes out equally often, and at most half are
    rejected (a rejected sequence is followed by zeros, which are accepted)."""
    monkeypatch.setattr(ladder_module, "UNIFORM_BASE", 4)
    for size in (5, 10, 17):
        digits = 2 if size <= 16 else 3
        counts, rejected = np.zeros(size, dtype=int), 0
        for sequence in itertools.product(range(4), repeat=digits):
            fed = list(sequence) + [0] * digits
            monkeypatch.setattr(ladder_module, "_choose", lambda scores, fed=fed: fed.pop(0))
            index = ladder_module._uniform(size)
            if fed:  # the first sequence was accepted: nothing of the zeros was used
                counts[index] += 1
            else:
                rejected += 1
        assert (counts == counts[0]).all() and counts[0] > 0, (size, counts)
        assert rejected <= 4**digits / 2


def test_the_tail_is_geometric_past_the_integer_laplace_clamp(monkeypatch):
    """OpenDP's integer Laplace clamps at 32 bits; a draw at the bound is carried (the geometric law
    forgets) and drawn again: with the bound moved down to 3, ``e`` still has ``P(e) ∝ e^{−e/s}``."""
    monkeypatch.setattr(ladder_module, "TAIL_EXACT_BELOW", 3)
    scale = 2.0
    draws = np.array([ladder_module._tail_rung(scale) for _ in range(1500)])
    assert draws.min() >= 1
    q = math.exp(-1 / scale)
    expected = [(1 - q) * q ** (e - 1) for e in range(1, 7)]
    observed = [np.sum(draws == e) for e in range(1, 7)] + [np.sum(draws >= 7)]
    assert chisquare(observed, 1500 * np.array(expected + [1 - sum(expected)])).pvalue > 1e-6


@pytest.mark.parametrize(
    ("graph", "max_degree", "epsilon", "draws"),
    [
        (nx.path_graph(3), None, 1.0, 300),  # GS = 1: the ladder is listed for 4 rungs, the tail drawn 10 % of the time
        pytest.param(nx.cycle_graph(5), 2, 0.5, 1500, marks=pytest.mark.thorough),  # GS = D − 1 = 1
        pytest.param(nx.karate_club_graph(), None, 0.3, 600, marks=pytest.mark.thorough),
    ],
)
def test_releases_follow_the_exact_law_end_to_end(graph, max_degree, epsilon, draws):
    """The release itself (rung, tail, placement, uniform draws) against the exact law of
    :func:`_output_law`: a chi-square over bins of ``|k − truth|`` at ``p = 10⁻⁶``. On small graphs
    the tail (the rungs past ``2·GS + 2``) is drawn often, and the sign must be balanced."""
    g = dpg.Graph.from_networkx(graph)
    meas = dpg.make_ladder_triangle_count(dpg.graph_domain(max_degree=max_degree), dpg.edge_distance(), dp.loss_of(epsilon=epsilon))
    scale = _ladder_scale(epsilon, 1)
    widths, tail = _ladder_widths(g, _explicit_rungs(scale), None if max_degree is None else max_degree - 1)
    truth = triangle_count(g)
    window = int(widths.sum()) + 60 * tail
    ks, law = _output_law(truth, widths, tail, scale, window)
    distance = np.abs(ks - truth)
    edges = np.unique(np.quantile(distance, [0, 0.02, 0.05, 0.1, 0.2, 0.4, 0.7, 1.0], method="lower"))
    outs = np.array([meas(g) for _ in range(draws)])
    observed, expected = [], []
    for low, high in zip(edges[:-1], edges[1:]):
        observed.append(np.sum((np.abs(outs - truth) >= low) & (np.abs(outs - truth) < high)))
        expected.append(np.exp(law[(distance >= low) & (distance < high)]).sum())
    observed.append(np.sum(np.abs(outs - truth) >= edges[-1]))
    expected.append(1 - sum(expected))
    expected = np.array(expected) * draws
    assert chisquare(observed, expected).pvalue > 1e-6, (observed, expected.round(1))
    assert np.sum(outs > truth) > 0.35 * np.sum(outs != truth)


def test_a_memory_error_names_nothing_of_the_graph(monkeypatch):
    def too_big(graph):
        raise MemoryError("Unable to allocate 30.0 MiB for an array with shape (3933522,)")

    monkeypatch.setattr(ladder_module, "triangle_count", too_big)
    meas = dpg.make_ladder_triangle_count(dpg.graph_domain(), dpg.edge_distance(), dp.loss_of(epsilon=1.0))
    with pytest.raises(MemoryError) as refusal:
        dpg.release(meas, dpg.Graph.from_networkx(nx.path_graph(4)))
    assert not any(ch.isdigit() for ch in str(refusal.value))


def test_the_release_is_near_the_truth_and_its_map_is_exact_at_the_boundary():
    graph = dpg.Graph.from_networkx(nx.karate_club_graph())  # 45 triangles
    meas = dpg.make_ladder_triangle_count(dpg.graph_domain(), dpg.edge_distance(), dp.loss_of(epsilon=1.0))
    outs = np.array([meas(graph) for _ in range(60)])
    assert np.median(np.abs(outs - 45)) < 40  # 17 exactly (its law): about one LS_0 (10) and a bit
    assert meas.check(1, meas.map(1)) and not meas.check(1, math.nextafter(meas.map(1), 0))
    assert 1.0 - 2e-6 < meas.map(1) <= 1.0


def test_accuracy_says_why_it_has_no_interval_to_state():
    space = dpg.graph_domain(), dpg.edge_distance()
    for meas in (dpg.make_ladder_triangle_count(*space, dp.loss_of(epsilon=1.0)), space >> dpg.then_ladder_triangle_count(dp.loss_of(epsilon=1.0))):
        with pytest.raises(TypeError, match="set by the private graph's local sensitivity"):
            dpg.accuracy(meas)


def test_group_distance_and_d_in_spend_the_budget_at_their_distance():
    for metric, d_in, edges in [(dpg.edge_distance(), 3, 3), (dpg.group_distance(2), 1, 2), (dpg.group_distance(2), 2, 4)]:
        meas = dpg.make_ladder_triangle_count(dpg.graph_domain(), metric, dp.loss_of(epsilon=1.5), d_in=d_in)
        assert 1.5 - 3e-6 < meas.map(d_in) <= 1.5
        scale = _ladder_scale(1.5, edges)
        assert meas.map(d_in) >= edges * 2 / scale


def test_the_refusals_say_what_is_wrong_and_nothing_of_the_graph():
    domain = dpg.graph_domain(max_degree=3)
    loss = dp.loss_of(epsilon=1.0)
    for metric in (dpg.node_distance(), dpg.node_insertion_distance()):
        with pytest.raises(ValueError, match="make_private_subgraph_count"):
            dpg.make_ladder_triangle_count(domain, metric, loss)
    with pytest.raises(ValueError, match="reads no label and is public"):
        dpg.make_ladder_triangle_count(domain, dpg.edge_label_distance(), loss)
    with pytest.raises(ValueError, match="group_distance\\(k\\) only"):
        dpg.make_ladder_triangle_count(domain, dpg.degree_sequence_distance(), loss)
    with pytest.raises(TypeError, match="graph metric"):
        dpg.make_ladder_triangle_count(domain, dp.symmetric_distance(), loss)
    with pytest.raises(ValueError, match="epsilon"):
        dpg.make_ladder_triangle_count(domain, dpg.edge_distance(), dp.loss_of(rho=1.0))
    with pytest.raises(ValueError, match="d_in"):
        dpg.make_ladder_triangle_count(domain, dpg.edge_distance(), loss, d_in=0)
    with pytest.raises(ValueError, match="too small"):
        dpg.make_ladder_triangle_count(domain, dpg.edge_distance(), dp.loss_of(epsilon=1e-9))
    for epsilon in (1e308, 5e-324):  # weights that would not be finite floats
        with pytest.raises(ValueError, match="outside what the Ladder mechanism supports"):
            dpg.make_ladder_triangle_count(domain, dpg.edge_distance(), dp.loss_of(epsilon=epsilon))
    with pytest.raises(ValueError, match="Spark"):
        dpg.make_ladder_triangle_count(dpg.spark.graph_domain(), dpg.edge_distance(), loss)
    with pytest.raises((TypeError, ValueError), match="cap"):
        triangle_sensitivity_ladder(dpg.Graph.from_networkx(nx.path_graph(3)), 2, cap="5")
    meas = dpg.make_ladder_triangle_count(domain, dpg.edge_distance(), loss)
    hub = dpg.Graph.from_networkx(nx.star_graph(7))  # degree 7 > 3
    with pytest.raises(ValueError, match="max_degree=3") as refusal:
        dpg.release(meas, hub)
    assert not any(ch.isdigit() for ch in str(refusal.value).replace("max_degree=3", ""))
    built = (dpg.graph_domain(), dpg.edge_distance()) >> dpg.then_ladder_triangle_count(loss)
    assert built.map(1) <= 1.0
