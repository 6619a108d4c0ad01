"""Exact privacy loss on tiny graphs: Theorem 4.1, Lemma 4.1 and the grid argument.

Everything here is deterministic (exact enumeration; seeded numpy only to pick random test
distributions).
"""

from __future__ import annotations

import math

import numpy as np
import opendp.prelude as dp
import pytest

import opendp_graph as dpg
from opendp_graph.verify.testing import edge_flips
from opendp_graph.verify import GraphDistribution, exact_epsilon, laplace_privacy_loss
from opendp_graph.interpret import queens_alpha, queens_distribution, queens_exact_epsilon


def _dense_loss(v0, w0, v1, w1, b, lo, hi, num=20001):
    """Brute-force sup over a fine 1-D grid plus far tails (a lower bound on the true sup)."""
    xs = np.concatenate([np.linspace(lo, hi, num), [lo - 60 * b, hi + 60 * b]])
    dens = lambda v, w: (np.asarray(w)[None, :] * np.exp(-np.abs(xs[:, None] - np.asarray(v)[None, :]) / b)).sum(1)
    return float(np.max(np.abs(np.log(dens(v1, w1)) - np.log(dens(v0, w0)))))


def test_point_masses_give_l1_over_scale():
    assert laplace_privacy_loss([0], [1], [1], [1], 1.0)[0] == pytest.approx(1.0)
    assert laplace_privacy_loss([[0, 0, 3]], [1], [[1, 2, 3]], [1], 2.0)[0] == pytest.approx(1.5)
    assert laplace_privacy_loss([5], [1], [5], [1], 0.3)[0] == 0.0


@pytest.mark.parametrize("seed", range(6))
def test_grid_is_exact_against_dense_evaluation(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 6))
    v0, v1 = rng.integers(-4, 5, size=k), rng.integers(-4, 5, size=k)
    w0, w1 = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))
    b = float(rng.uniform(0.3, 3.0))
    ours, where = laplace_privacy_loss(v0, w0, v1, w1, b)
    dense = _dense_loss(v0, w0, v1, w1, b, -6, 6)
    # the grid maximum is the supremum: never below a dense evaluation, and attained up to the grid step
    assert ours >= dense - 1e-9
    assert ours <= dense + 1e-3


def test_grid_is_exact_in_two_dimensions():
    rng = np.random.default_rng(7)
    v0, v1 = rng.integers(0, 3, size=(4, 2)), rng.integers(0, 3, size=(4, 2))
    w0, w1 = rng.dirichlet(np.ones(4)), rng.dirichlet(np.ones(4))
    b = 0.8
    ours, _ = laplace_privacy_loss(v0, w0, v1, w1, b)
    xs = np.linspace(-3, 5, 401)
    X, Y = np.meshgrid(xs, xs)
    pts = np.stack([X.ravel(), Y.ravel()], 1)
    dens = lambda v, w: (w[None, :] * np.exp(-np.abs(pts[:, None, :] - v[None, :, :]).sum(2) / b)).sum(1)
    dense = np.max(np.abs(np.log(dens(v1, w1)) - np.log(dens(v0, w0))))
    assert dense <= ours + 1e-9
    assert ours - dense < 0.05  # tails add a little beyond the finite window


def test_rejects_bad_arguments():
    with pytest.raises(ValueError, match="scale"):
        laplace_privacy_loss([0], [1], [1], [1], 0.0)
    with pytest.raises(ValueError, match="line up"):
        laplace_privacy_loss([0, 1], [1], [1], [1], 1.0)
    with pytest.raises(ValueError, match="num_nodes"):
        GraphDistribution.independent_edges(9, 0.5)
    with pytest.raises(ValueError, match="probabilities"):
        GraphDistribution.independent_edges(3, 1.5)
    d = GraphDistribution.independent_edges(3, 0.0)
    with pytest.raises(ValueError, match="no secret pair"):
        exact_epsilon(lambda g: g.num_edges, d, scale=1.0)


# ---------------------------------------------------------------- Theorem 4.1
def _queries(n):
    dom = dpg.graph_domain(num_nodes=n)
    space = dom, dpg.edge_distance()
    return {
        "edge_count": space >> dpg.then_edge_count(),
        "degree_histogram": space >> dpg.then_degree_histogram(max_degree=n - 1),
        "triangle_count": space >> dpg.then_triangle_count(),
        "cumulative_degree_histogram": space >> dpg.then_cumulative_degree_histogram(max_degree=n - 1),
    }


@pytest.mark.parametrize("seed", range(3))
def test_theorem_4_1_independent_edges_never_exceed_edge_dp_epsilon(seed):
    n, eps = 4, 0.7
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, size=(n, n))
    dist = GraphDistribution.independent_edges(n, p)
    for name, t in _queries(n).items():
        scale = t.map(1) / eps  # ε-edge-DP Laplace release
        res = exact_epsilon(t, dist, scale=scale)
        assert res.epsilon <= eps + 1e-9, (name, res)
        if name == "edge_count":
            # attained (in the tail): the other edges are independent of the secret
            assert res.epsilon == pytest.approx(eps, abs=1e-12)


def test_theorem_4_1_degenerate_prior_attains_edge_dp():
    # The proof's distribution: the secret pair is a fair coin, every other pair is fixed.
    n, eps = 4, 1.0
    t = _queries(n)["degree_histogram"]
    g0 = dpg.Graph.from_edges([0, 0], [2, 3], num_nodes=n)  # adding (0,1) moves hub 0 from bin 2 to 3, node 1 from 0 to 1
    p = np.zeros((n, n))
    for u, v in zip(g0.src.tolist(), g0.dst.tolist()):
        p[u, v] = 1.0
    p[0, 1] = 0.5
    dist = GraphDistribution.independent_edges(n, p)
    scale = t.map(1) / eps
    res = exact_epsilon(t, dist, scale=scale, secrets=[(0, 1)])
    assert res.epsilon == pytest.approx(eps)


# ---------------------------------------------------------------- Lemma 4.1
def test_lemma_4_1_bound_holds_and_is_nearly_attained_for_the_queens():
    n, a, b = 5, 0.6, 0.3
    dist = queens_distribution(n, a, b)
    alpha, pair = dist.lemma_alpha()
    assert pair == (0, 1)
    assert alpha == pytest.approx(queens_alpha(n, a, b))
    edge_count = _queries(n)["edge_count"]
    gaps = []
    for eps in (0.25, 1.0, 4.0, 16.0):
        res = exact_epsilon(edge_count, dist, scale=1.0 / eps, secrets=[(0, 1)])
        assert res.epsilon <= eps + alpha + 1e-9
        assert res.epsilon > eps  # the dependence costs something
        # enumeration agrees with the closed form through the edge-count distribution
        assert res.epsilon == pytest.approx(queens_exact_epsilon(n, a, b, 1.0 / eps), abs=1e-9)
        gaps.append(eps + alpha - res.epsilon)
    # the slack of Lemma 4.1 shrinks to 0 as the noise vanishes: the bound is tight
    assert gaps == sorted(gaps, reverse=True)
    assert gaps[-1] < 1e-5


@pytest.mark.parametrize(
    "terms",
    [dict(edges=-1.0, triangles=0.6), dict(edges=-0.5, two_stars=0.25), dict(edges=0.3, two_stars=-0.2, triangles=0.5)],
)
def test_lemma_4_1_bound_on_small_ergms(terms):
    from opendp_graph.interpret import ERGM, ergm_alpha

    n, eps = 4, 1.0
    model = ERGM(n, **terms)
    dist = model.distribution()
    rep = ergm_alpha(model)
    assert rep.exact and rep.alpha > 0
    for name, t in _queries(n).items():
        res = exact_epsilon(t, dist, scale=t.map(1) / eps)
        assert res.epsilon <= eps + rep.alpha + 1e-9, name


def test_degree_cap_makes_lemma_vacuous_but_loss_finite():
    from opendp_graph.interpret import ERGM, ergm_alpha

    model = ERGM(5, edges=-0.5, triangles=0.3, max_degree=2)
    assert ergm_alpha(model).alpha == math.inf
    assert model.distribution().lemma_alpha()[0] == math.inf
    res = exact_epsilon(lambda g: g.num_edges, model.distribution(), scale=1.0)
    assert math.isfinite(res.epsilon)


def test_point_mass_secrets_recover_edge_dp_epsilon_exactly():
    n = 4
    dist = GraphDistribution.independent_edges(n, 0.5)
    t = _queries(n)["triangle_count"]
    graphs = dist.graphs
    # every neighbouring pair as a secret pair of point masses: the max loss is ε = map(1)/scale
    scale = 2.0
    idx = {g.edge_keys.tobytes(): i for i, g in enumerate(graphs)}
    secrets = []
    for i, g in enumerate(graphs):
        for h in edge_flips(g):
            j = idx[h.edge_keys.tobytes()]
            w0, w1 = np.zeros(len(graphs)), np.zeros(len(graphs))
            w0[i], w1[j] = 1.0, 1.0
            secrets.append((w0, w1))
    res = exact_epsilon(t, dist, scale=scale, secrets=secrets)
    assert res.epsilon == pytest.approx(t.map(1) / scale)


def test_a_measurement_is_not_a_query():
    # exact_epsilon adds the noise itself; a measurement's values are random draws, not exact values
    t = (dpg.graph_domain(num_nodes=3), dpg.edge_distance()) >> dpg.then_edge_count()
    d = GraphDistribution.independent_edges(3, 0.3)
    assert exact_epsilon(t, d, scale=1.0).epsilon == pytest.approx(1.0)
    with pytest.raises(TypeError, match="not a Measurement"):
        exact_epsilon(t >> dp.m.then_laplace(scale=1.0), d, scale=1.0)
