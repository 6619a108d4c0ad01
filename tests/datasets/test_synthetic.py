"""The synthetic generator: determinism, simplicity, heavy tails, and the known p0/p1.

The true ``p0``/``p1`` are checked twice, independently of the generator's code paths:
exactly, by enumerating every latent configuration of two adjacent edges (tiny model), and
statistically, by fitting them with a plain-Python neighbourhood scan on generated graphs.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict

import numpy as np
import pytest

import opendp_graph as dpg
from opendp_graph.datasets.synthetic import (
    SyntheticGraph,
    label_correlation,
    member_probabilities,
    power_law_graph,
    synthetic_labeled_graph,
)


# ----------------------------------------------------------------------------- reference code
def reference_p0_p1(graph: dpg.Graph) -> tuple[float, float]:
    """Pooled p0, p1 by brute force: for every edge e and every property a of the vocabulary,
    count the edges sharing an endpoint with e that have a; pool over (e, a) by s = [e has a]."""
    sets = graph.label_sets()
    vocabulary = graph.vocabulary
    edges = list(zip(graph.src.tolist(), graph.dst.tolist()))
    incident = defaultdict(list)
    for i, (u, v) in enumerate(edges):
        incident[u].append(i)
        incident[v].append(i)
    has = {0: [0, 0], 1: [0, 0]}  # s -> [neighbours with a, neighbours]
    for i, (u, v) in enumerate(edges):
        neighbours = [f for f in incident[u] + incident[v] if f != i]
        counts = Counter(a for f in neighbours for a in sets[f])
        for a in vocabulary:
            s = int(a in sets[i])
            has[s][0] += counts[a]
            has[s][1] += len(neighbours)
    return has[0][0] / has[0][1], has[1][0] / has[1][1]


def enumerate_pair(pi: float, t: float, beta: float) -> tuple[float, float, float, float]:
    """Exact joint law of (X_e, X_f) for adjacent edges e = uv, f = uw of the member model, by
    summing over all 2^9 configurations of (Z_u, Z_v, Z_w, tags u→e, u→f, v→e, w→f, background e, f)."""
    b = min(1.0, beta * pi * t)
    probs = [pi, pi, pi, t, t, t, t, b, b]
    joint = Counter()
    for bits in itertools.product((0, 1), repeat=9):
        weight = math.prod(p if x else 1 - p for p, x in zip(probs, bits))
        zu, zv, zw, tue, tuf, tve, twf, be, bf = bits
        xe = int((zu and tue) or (zv and tve) or be)
        xf = int((zu and tuf) or (zw and twf) or bf)
        joint[(xe, xf)] += weight
    return joint[(0, 0)], joint[(0, 1)], joint[(1, 0)], joint[(1, 1)]


# ----------------------------------------------------------------------------- exact truth
@pytest.mark.parametrize("pi,t,beta", [(0.1, 0.5, 0.0), (0.3, 0.9, 0.25), (0.02, 0.2, 3.0), (1.0, 0.5, 1.0), (0.5, 1.0, 0.0)])
def test_label_correlation_matches_enumeration_one_property(pi, t, beta):
    q00, q01, q10, q11 = enumerate_pair(pi, t, beta)
    p0, p1 = label_correlation([pi], t, beta)
    assert p1 == pytest.approx(q11 / (q10 + q11), rel=1e-12)
    assert p0 == pytest.approx(q01 / (q00 + q01), rel=1e-12)


def test_label_correlation_pools_properties_as_ratio_of_sums():
    params = [(0.05, 0.6, 0.5), (0.4, 0.6, 0.5), (0.001, 0.6, 0.5)]
    joints = [enumerate_pair(*p) for p in params]
    p0, p1 = label_correlation([p[0] for p in params], 0.6, 0.5)
    assert p1 == pytest.approx(sum(j[3] for j in joints) / sum(j[2] + j[3] for j in joints), rel=1e-12)
    assert p0 == pytest.approx(sum(j[1] for j in joints) / sum(j[0] + j[1] for j in joints), rel=1e-12)


def test_correlation_is_tunable():
    pi = member_probabilities(100, 3.0, tag_prob=0.5)
    weak = label_correlation(pi, 0.05, 20.0)
    mid = label_correlation(pi, 0.5, 0.25)
    strong = label_correlation(pi, 0.95, 0.0)
    assert weak[1] / weak[0] < mid[1] / mid[0] < strong[1] / strong[0]
    assert strong[1] > 0.5
    # t -> 0 with β·t fixed: independent edges. With equal frequencies the pooled p0 = p1 ...
    flat = member_probabilities(100, 3.0, tag_prob=0.5, property_exponent=0.0)
    p0, p1 = label_correlation(flat, 1e-7, 1e7)
    assert p1 == pytest.approx(p0, rel=1e-5)
    # ... but with unequal frequencies pooling alone gives p1 = Σρ²/Σρ > p0 = Σρ(1-ρ)/Σ(1-ρ)
    p0, p1 = label_correlation(pi, 1e-7, 1e7)
    rho = np.minimum(pi * 1e-7 * 1e7, 1.0)
    assert p1 == pytest.approx((rho**2).sum() / rho.sum(), rel=1e-5)
    assert p0 == pytest.approx((rho * (1 - rho)).sum() / (1 - rho).sum(), rel=1e-5)
    assert p1 > 5 * p0


def test_member_probabilities_hit_labels_per_edge():
    for target, t, beta, s in [(3.0, 0.5, 0.25, 1.0), (0.5, 0.9, 0.0, 0.0), (10.0, 0.3, 2.0, 1.5)]:
        pi = member_probabilities(200, target, tag_prob=t, background=beta, property_exponent=s)
        assert np.all((pi >= 0) & (pi <= 1))
        assert np.all(np.diff(pi) <= 0)
        g0 = 1 - (1 - np.minimum(beta * pi * t, 1)) * (1 - pi * t)
        g1 = 1 - (1 - np.minimum(beta * pi * t, 1)) * (1 - t) * (1 - pi * t)
        assert float(((1 - pi) * g0 + pi * g1).sum()) == pytest.approx(target, rel=1e-9)
    with pytest.raises(ValueError, match="unreachable"):
        member_probabilities(2, 3.0, tag_prob=0.5)


# ----------------------------------------------------------------------------- the generator
def test_deterministic_given_seed():
    a = synthetic_labeled_graph(3000, num_properties=30, seed=11)
    b = synthetic_labeled_graph(3000, num_properties=30, seed=11)
    c = synthetic_labeled_graph(3000, num_properties=30, seed=12)
    assert isinstance(a, SyntheticGraph)
    assert a.graph == b.graph and a.graph.label_sets() == b.graph.label_sets()
    assert (a.p0, a.p1) == (b.p0, b.p1)
    assert not np.array_equal(a.graph.edge_keys, c.graph.edge_keys)
    assert power_law_graph(500, seed=3) == power_law_graph(500, seed=3)


def test_simple_graph_with_exact_size_and_labels():
    syn = synthetic_labeled_graph(20_000, num_nodes=4000, num_properties=40, labels_per_edge=2.0, seed=5)
    g = syn.graph
    assert g.num_edges == 20_000 and g.num_nodes == 4000
    assert np.all(g.src < g.dst)  # no self-loops
    assert np.unique(g.edge_keys).size == g.num_edges  # no duplicates
    assert g.vocabulary == tuple(f"p{a:02d}" for a in range(40))
    assert g.labels.shape == (20_000, 40) and g.labels.dtype == bool
    # labels per edge: the calibrated expectation, up to sampling error of a heavy-tailed sum
    assert g.labels.nnz / g.num_edges == pytest.approx(2.0, rel=0.1)
    # p0 is the most frequent property, and frequencies fall off
    freq = np.asarray(g.labels.sum(axis=0)).ravel()
    assert freq[0] == freq.max() and freq[:5].sum() > freq[-5:].sum()


def test_degree_tail_is_heavy_and_follows_the_exponent():
    for gamma, lo, hi in [(2.5, 1.3, 1.9), (3.0, 1.8, 2.5)]:
        g = power_law_graph(100_000, degree_exponent=gamma, seed=1)
        d = g.degrees
        ccdf10, ccdf100 = (d >= 10).mean(), (d >= 100).mean()
        slope = math.log(ccdf10 / ccdf100) / math.log(10)  # Pr(deg >= k) ~ k^-(γ-1)
        assert lo < slope < hi, (gamma, slope)
    heavy = power_law_graph(100_000, degree_exponent=2.5, seed=1).degrees
    # a Poisson graph of mean degree 8 has essentially no node of degree 100; this one has hubs
    assert heavy.max() > 50 * heavy.mean()
    assert (heavy >= 100).sum() > 100


@pytest.mark.thorough  # a statistical fit on generated graphs (4 s)
@pytest.mark.parametrize(
    "kwargs",
    [
        dict(degree_exponent=3.0, tag_prob=0.5, background=0.25),
        dict(degree_exponent=3.0, tag_prob=0.9, background=0.0),
        dict(degree_exponent=2.5, tag_prob=0.1, background=5.0),
    ],
)
def test_fitted_p0_p1_close_to_truth(kwargs):
    fitted = []
    for seed in range(3):
        syn = synthetic_labeled_graph(8000, num_properties=30, seed=seed, **kwargs)
        fitted.append(reference_p0_p1(syn.graph))
    p0, p1 = np.mean(fitted, axis=0)
    # Tolerance 6 %: over 36 seeds (12 triples) per setting, the 3-seed mean deviated from the
    # truth by a relative standard deviation of 0.8-1.5 % (at most 2.7 %).
    assert p0 == pytest.approx(syn.p0, rel=0.06)
    assert p1 == pytest.approx(syn.p1, rel=0.06)
    assert syn.p1 > syn.p0


def test_reference_estimator_on_a_hand_built_graph():
    # star of 3 edges at node 0 + a pendant edge 1-4; a on 0-1 and 0-2, b on 1-4
    g = dpg.Graph.from_edges([0, 0, 0, 1], [1, 2, 3, 4], labels=[["a"], ["a"], [], ["b"]])
    # neighbours: 01:{02,03,14} 02:{01,03} 03:{01,02} 14:{01}
    # s=1: (01,a): 1 of 3; (02,a): 1 of 2; (14,b): 0 of 1 -> 2/6
    # s=0: (01,b): 1/3; (02,b): 0/2; (03,a): 2/2; (03,b): 0/2; (14,a): 1/1 -> 4/10
    assert reference_p0_p1(g) == (pytest.approx(4 / 10), pytest.approx(2 / 6))


def test_argument_errors():
    with pytest.raises(TypeError, match="num_edges"):
        synthetic_labeled_graph(10.5)
    with pytest.raises(ValueError, match="degree_exponent"):
        power_law_graph(100, degree_exponent=2.0)
    with pytest.raises(ValueError, match="tag_prob"):
        synthetic_labeled_graph(100, tag_prob=1.5)
    with pytest.raises(TypeError, match="seed"):
        synthetic_labeled_graph(100, seed=None)
    with pytest.raises(ValueError, match="more nodes"):
        power_law_graph(100, num_nodes=10)
    empty = synthetic_labeled_graph(0, num_nodes=20, seed=1)
    assert empty.graph.num_edges == 0 and empty.graph.is_labeled


@pytest.mark.slow
def test_ten_million_edges_thirty_million_pairs():
    import resource

    syn = synthetic_labeled_graph(10_000_000, seed=0)
    assert syn.graph.num_edges == 10_000_000
    assert syn.graph.labels.nnz == pytest.approx(30_000_000, rel=0.02)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss < 12 * 1024 * 1024  # KiB on Linux


def test_binomial_model_fit_agrees_with_reference_estimator():
    """The package's Binomial fit pools exactly as the reference does (so the generator's truth
    is the quantity it estimates)."""
    pf = pytest.importorskip("opendp_graph.pufferfish")
    syn = synthetic_labeled_graph(4000, num_properties=25, seed=21)
    p0, p1 = reference_p0_p1(syn.graph)
    model = pf.BinomialModel.fit(syn.graph)
    assert model.p0 == pytest.approx(p0, rel=1e-12)
    assert model.p1 == pytest.approx(p1, rel=1e-12)


def test_the_chat_log_has_the_shape_it_promises():
    """Issue 40's chat-channel log: about 6,000 people, 60,000 direct messages, a quarter to
    oneself, three bots replying to 700 distinct people each; deterministic for a seed."""
    import polars as pl

    frame = dpg.datasets.synthetic_chat_log()
    assert frame["message_id"].n_unique() == 60_000 and frame.height == 60_000  # one recipient each
    people = pl.concat([frame["sender"], frame["recipient"]]).unique()
    assert 5_900 <= people.len() <= 6_000
    assert 0.23 <= (frame["sender"] == frame["recipient"]).mean() <= 0.26
    bots = frame.filter(pl.col("sender") >= 5_997).group_by("sender").agg(pl.col("recipient").n_unique())
    assert sorted(bots["recipient"].to_list()) == [700, 700, 700]
    assert dpg.datasets.synthetic_chat_log(seed=5).equals(dpg.datasets.synthetic_chat_log(seed=5))
