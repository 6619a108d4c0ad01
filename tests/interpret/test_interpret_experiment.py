"""The two-queens reproduction (``python -m reproductions interpret``) and its graph-level cross-check."""

from __future__ import annotations

import csv

import opendp.prelude as dp
import pytest

import opendp_graph as dpg
from opendp_graph.interpret import queens_alpha, queens_distribution
from opendp_graph.verify import empirical_epsilon, exact_epsilon
from reproductions import interpret as exp


@pytest.mark.thorough  # the experiment's quick reproduction (3 s), like the other reproductions'
def test_quick_run_shows_the_gap_and_the_pufferfish_fix(tmp_path):
    assert exp.main(["--quick", "--out", str(tmp_path)]) == 0
    with open(tmp_path / "queens.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert [int(r["n"]) for r in rows] == [5, 10, 20]
    for r in rows:
        eps = float(r["edge_dp_epsilon"])
        exact, audit, alpha = float(r["edge_dp_exact_eps"]), float(r["edge_dp_audit_eps"]), float(r["alpha"])
        assert eps < exact <= eps + alpha  # Lemma 4.1, and the dependence really costs
        # Audit bounds hold with 95 % each; the tests assert only what fails with negligible probability:
        # the edge-DP bound is far above ε (expected ≥ 2.8 for every n here) ...
        assert audit > 1.5 * eps
        # ... and the W-calibrated release's exact loss is within ε.
        assert float(r["puff_exact_eps"]) <= eps + 1e-12
        assert float(r["W_inf"]) >= float(r["W_1"])
    accs = [float(r["attack_acc"]) for r in rows]
    assert accs == sorted(accs) and accs[-1] > 0.999  # Example 1: the test converges to the truth
    assert (tmp_path / "queens.png").exists()


def test_graph_pipeline_audit_agrees_with_the_count_shortcut():
    # The full OpenDP graph measurement on queens graphs drawn from the exact distribution (n = 5).
    n, a, b = 5, 0.6, 0.3
    dist = queens_distribution(n, a, b)
    meas = (dpg.graph_domain(num_nodes=n), dpg.edge_distance()) >> dpg.then_edge_count() >> dp.m.then_laplace(scale=1.0)
    assert meas.map(1) == 1.0
    w0, w1 = dist.conditional(0, 1, False), dist.conditional(0, 1, True)
    graphs = dist.graphs
    s0 = lambda rng: graphs[rng.choice(len(graphs), p=w0)]
    s1 = lambda rng: graphs[rng.choice(len(graphs), p=w1)]
    res = empirical_epsilon(meas, s0, s1, samples=3_000, seed=5, confidence=1 - 1e-6)
    exact = exact_epsilon(lambda g: g.num_edges, dist, scale=1.0, secrets=[(0, 1)]).epsilon
    assert res.epsilon_lower <= exact  # fails with probability ≤ 1e-6
    assert res.epsilon_lower > 1.0  # 2.11 ± 0.07 over 6 repetitions: refutes "ε = 1 for the queens' edge"
    assert exact <= 1.0 + queens_alpha(n, a, b)
