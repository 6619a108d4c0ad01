"""Pufferfish models, metric and mechanism: brute force on tiny graphs, hand-built graphs,
exact enumeration of labellings (ε of the Wasserstein mechanism), a negative control, and the
OpenDP plumbing (identifiers, composition)."""

import itertools
import math
from fractions import Fraction

import numpy as np
import opendp.prelude as dp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import labelled_graphs
from scipy.stats import wasserstein_distance

import opendp_graph as dpg
from opendp_graph.pufferfish import (
    BinomialModel,
    ConditionalModel,
    EdgeLevelModel,
    GlobalModel,
    MarkovQuiltModel,
    PufferfishDistance,
    fit_all,
    w_infinity,
)
from opendp_graph.pufferfish._stats import neighbourhood_stats
from opendp_graph.pufferfish.dp_fit import binomial_statistics, make_binomial_statistics
from opendp_graph.verify.testing import l01inf
from opendp_graph.transformations.labels import label_count_map, label_counts
from tests.pufferfish.engines import COMPILED_PATHS, assert_matches_reference, forced, nonzero, reference_stats  # noqa: E402


# ----------------------------------------------------------------------------- helpers
def closed_hood(edges, i):
    u, v = edges[i]
    return [j for j, (x, y) in enumerate(edges) if {x, y} & {u, v}]


def random_labelled_graph(rng, n_max=8, m_max=14, words="abcd"):
    while True:
        n = int(rng.integers(2, n_max + 1))
        m = int(rng.integers(1, m_max + 1))
        src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
        keep = src != dst
        if not keep.any():
            continue
        vocab = list(words[: int(rng.integers(1, len(words) + 1))])
        density = float(rng.choice([0.1, 0.5, 0.9, 1.0]))
        labels = [[w for w in vocab if rng.random() < density] for _ in range(int(keep.sum()))]
        g = dpg.Graph.from_edges(src[keep], dst[keep], num_nodes=n, labels=labels)
        if g.vocabulary:
            return g


# ----------------------------------------------------------------------------- the engine
# Every way the engine can run: the compiled passes as they choose, threaded whatever the size,
# and on one thread.
ENGINE_PATHS = COMPILED_PATHS


def engine_path(name):
    return forced(ENGINE_PATHS[name])


@pytest.mark.parametrize("path", list(ENGINE_PATHS))
@pytest.mark.parametrize("seed", range(25))
def test_statistics_engine_matches_scan(seed, path):
    """Every path of the engine (threaded or not) gives the reference histograms."""
    rng = np.random.default_rng(seed)
    g = random_labelled_graph(rng)
    base = float(rng.choice([2.0, 3.0, 10.0]))
    with engine_path(path):
        st = neighbourhood_stats(g, base=base)
    assert_matches_reference(st, reference_stats(g, base), path)


@settings(max_examples=40, deadline=None)
@given(labelled_graphs(), st.sampled_from([2.0, 3.0, 10.0]))
def test_every_engine_path_gives_the_reference_models(g, base):
    """Issue 7: the fast paths give exactly the reference histograms, Binomial sums, models and W."""
    ref = reference_stats(g, base)
    a1, b1, a0, b0 = ref["a1"], ref["b1"], ref["a0"], ref["b0"]
    results = {}
    for path in ENGINE_PATHS:
        with engine_path(path):
            st_ = neighbourhood_stats(g, base=base)
            models = fit_all(g, base=base)
        assert_matches_reference(st_, ref, path)
        binomial = models["Binomial"]
        assert binomial.p1 == (a1 / b1 if b1 else 0.0), path
        assert binomial.p0 == (a0 / b0 if b0 else 0.0), path
        results[path] = {name: (m.fingerprint(), m.W) for name, m in models.items()}
    assert all(r == results["compiled"] for r in results.values())


def test_engine_edge_cases():
    # isolated edges, one property on every edge
    g = dpg.Graph.from_edges([0, 2, 4], [1, 3, 5], labels=[["a"], ["a"], ["a"]])
    st = neighbourhood_stats(g)
    assert nonzero(st.hist1) == {(0, 0, 1): 3}
    assert st.hist0.sum() == 0
    gm = GlobalModel.fit(g)
    rep = gm.wasserstein()
    assert not rep.table[0]["observed"]  # no s0 secret was ever observed: trivial bound
    assert gm.W == 1  # N = 1: laws on [0, 0] and [1, 1]
    # empty label sets everywhere but a vocabulary column
    g2 = dpg.Graph.from_arrays(
        np.array([0, 1]), np.array([1, 2]), 3, label_matrix=np.zeros((2, 1), dtype=bool), vocabulary=["x"]
    )
    st2 = neighbourhood_stats(g2)
    assert st2.hist1.sum() == 0 and nonzero(st2.hist0) == {(0, 0, 0): 2}


# ----------------------------------------------------------------------------- hand-built
@pytest.fixture
def path3():
    # 0-1-2-3 ; e0=(0,1){a}, e1=(1,2){a}, e2=(2,3){b}
    return dpg.Graph.from_edges([0, 1, 2], [1, 2, 3], labels=[["a"], ["a"], ["b"]])


def test_binomial_by_hand(path3):
    m = BinomialModel.fit(path3)
    # labelled pairs: (e0,a) 1 of 1 neighbour has a; (e1,a) 1 of 2; (e2,b) 0 of 1  -> p1 = 2/4
    # unlabelled: (e0,b) 0 of 1; (e1,b) 1 of 2; (e2,a) 1 of 1                       -> p0 = 2/4
    assert m.p1 == pytest.approx(0.5) and m.p0 == pytest.approx(0.5)
    assert m.neighbour_counts.tolist() == [1, 2]
    assert m.W == 1 and m.flip_bound == 1  # p0 == p1: exact shift by the central edge
    assert m.data_dependent and "private" in m.fitted_on


def test_global_and_conditional_by_hand(path3):
    g = GlobalModel.fit(path3)
    # s1: f(e0,a)=2, f(e1,a)=2, f(e2,b)=1 ; s0: f(e0,b)=0, f(e1,b)=1, f(e2,a)=1
    assert g.hist1.tolist()[:3] == [0, 1, 2]
    assert g.hist0.tolist()[:2] == [1, 2]
    assert g.W == 1 and tuple(g.gaps) == (1, 1)
    c = ConditionalModel.fit(path3, base=2)
    rows = {(r["log_freq"], r["log_size"]): r for r in c.wasserstein().table}
    # sizes 2, 3, 2 -> size bucket 1; freq(a)=2 -> bucket 1, freq(b)=1 -> bucket 0
    assert set(rows) == {(0, 1), (1, 1)}
    assert (rows[(1, 1)]["d_min"], rows[(1, 1)]["d_max"]) == (1, 1)  # {2,2} vs {1}
    assert (rows[(0, 1)]["d_min"], rows[(0, 1)]["d_max"]) == (0, 1)  # {1} vs {0,1}
    assert c.W == 1 and c.flip_bound == 2


def test_baselines():
    g = dpg.Graph.from_edges([0, 0, 0, 1], [1, 2, 3, 2], labels=[["a"], [], [], []])
    assert EdgeLevelModel().W == 1 and EdgeLevelModel().flip_bound == 1
    q = MarkovQuiltModel.for_graph(g)
    assert q.max_neighbourhood == 2 * 3 - 1 and q.W == 5 and q.flip_bound == 5
    assert not q.data_dependent


def test_fit_all_matches_individual_fits(path3):
    models = fit_all(path3)
    assert models["Binomial"].fingerprint() == BinomialModel.fit(path3).fingerprint()
    assert models["Global"].fingerprint() == GlobalModel.fit(path3).fingerprint()
    assert models["Conditional"].fingerprint() == ConditionalModel.fit(path3).fingerprint()


def test_argument_errors(path3):
    with pytest.raises(ValueError, match="source"):
        GlobalModel.fit(path3, source="secret")
    with pytest.raises(ValueError, match="base"):
        ConditionalModel.fit(path3, base=1)
    with pytest.raises(ValueError, match="labeled"):
        BinomialModel.fit(path3.without_labels())
    with pytest.raises(TypeError, match="Graph"):
        GlobalModel.fit("graph")
    with pytest.raises(ValueError, match="probability"):
        BinomialModel(1.5, 0.2, [1])
    with pytest.raises(TypeError, match="correlation model"):
        dpg.pufferfish_distance("model")
    assert GlobalModel.fit(path3, source="public").data_dependent is False


# ----------------------------------------------------------------------------- exact enumeration
P0, P1, R = Fraction(1, 10), Fraction(3, 5), Fraction(1, 4)


def enumerate_total_count(edges, i, s):
    """Law of the total count T of property a given X_i = s, under the Binomial attacker:
    neighbours of i carry a iid with probability p_s, all other edges with probability R.
    Every labelling of the edges is enumerated."""
    hood = set(closed_hood(edges, i)) - {i}
    law = [Fraction(0)] * (len(edges) + 1)
    others = [j for j in range(len(edges)) if j != i]
    for bits in itertools.product((0, 1), repeat=len(others)):
        prob = Fraction(1)
        for j, b in zip(others, bits):
            p = (P1 if s else P0) if j in hood else R
            prob *= p if b else 1 - p
        law[s + sum(bits)] += prob
    return law


def as_counts(law):
    den = math.lcm(*[x.denominator for x in law])
    return np.array([int(x * den) for x in law], dtype=np.int64)


def realised_epsilon(law0, law1, scale):
    """sup_w |log(h0(w)/h1(w))| for T + Laplace(scale): between integers each density is
    A·e^{w/b} + B·e^{-w/b}, whose ratio is monotone, so integers and the two tails suffice."""
    p0 = np.array([float(x) for x in law0])
    p1 = np.array([float(x) for x in law1])
    ks = np.arange(p0.size)
    worst = 0.0
    for w in ks:
        h0 = np.sum(p0 * np.exp(-np.abs(w - ks) / scale))
        h1 = np.sum(p1 * np.exp(-np.abs(w - ks) / scale))
        worst = max(worst, abs(math.log(h0 / h1)))
    for sign in (+1, -1):
        t0 = np.sum(p0 * np.exp(sign * ks / scale))
        t1 = np.sum(p1 * np.exp(sign * ks / scale))
        worst = max(worst, abs(math.log(t0 / t1)))
    return worst


@pytest.fixture
def path5():
    return dpg.Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 4], labels=[[], [], [], []])


def test_binomial_model_exact_against_enumeration(path5):
    edges = path5.edges.tolist()
    deg = path5.degrees
    nbs = [int(deg[u] + deg[v] - 2) for u, v in edges]
    model = BinomialModel(float(P0), float(P1), nbs)
    rows = {r["neighbours"]: r for r in model.wasserstein().table}
    exact_total = []
    for i in range(len(edges)):
        # the neighbourhood count alone (R irrelevant): the model's per-size row is exact
        hood = closed_hood(edges, i)
        sub = [edges[j] for j in hood]
        local = [dpg.pufferfish.quantile_gap_range(
            as_counts(_neighbourhood_law(sub, hood.index(i), 0)), as_counts(_neighbourhood_law(sub, hood.index(i), 1))
        )]
        if not rows[nbs[i]]["skipped"]:
            assert (rows[nbs[i]]["d_min"], rows[nbs[i]]["d_max"]) == tuple(local[0])
        else:  # skipped sizes cannot beat the model's extremes
            assert local[0].d_max <= model.gaps.d_max and local[0].d_min >= model.gaps.d_min
        law0, law1 = enumerate_total_count(edges, i, 0), enumerate_total_count(edges, i, 1)
        exact_total.append(w_infinity(as_counts(law0), as_counts(law1)))
    # the rest of the graph is shared by the coupling, so W for the total count is at most the model's W
    assert max(exact_total) <= model.W


def _neighbourhood_law(sub_edges, centre, s):
    law = [Fraction(0)] * (len(sub_edges) + 1)
    others = [j for j in range(len(sub_edges)) if j != centre]
    for bits in itertools.product((0, 1), repeat=len(others)):
        prob = Fraction(1)
        for b in bits:
            p = P1 if s else P0
            prob *= p if b else 1 - p
        law[s + sum(bits)] += prob
    return law


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 3.0])
def test_wasserstein_mechanism_epsilon_exact_and_negative_control(path5, epsilon):
    edges = path5.edges.tolist()
    deg = path5.degrees
    model = BinomialModel(float(P0), float(P1), [int(deg[u] + deg[v] - 2) for u, v in edges])
    caught = False
    for i in range(len(edges)):
        law0, law1 = enumerate_total_count(edges, i, 0), enumerate_total_count(edges, i, 1)
        # Theorem 3.2: Laplace(W/ε) on the count is ε-Pufferfish
        assert realised_epsilon(law0, law1, model.W / epsilon) <= epsilon + 1e-9
        # negative control: calibrating to W1 instead of W∞ is caught
        ks = np.arange(len(law0))
        w1 = wasserstein_distance(ks, ks, [float(x) for x in law0], [float(x) for x in law1])
        assert w1 < w_infinity(as_counts(law0), as_counts(law1))
        if realised_epsilon(law0, law1, w1 / epsilon) > epsilon * (1 + 1e-6):
            caught = True
    assert caught


def test_opendp_chain_is_the_wasserstein_mechanism(path5):
    edges = path5.edges.tolist()
    deg = path5.degrees
    model = BinomialModel(float(P0), float(P1), [int(deg[u] + deg[v] - 2) for u, v in edges])
    space = dpg.graph_domain(labeled=True), dpg.pufferfish_distance(model)
    epsilon = 1.0
    scale = dp.binary_search_param(
        lambda s: space >> dpg.then_label_counts(1, ["a"]) >> dp.m.then_laplace(scale=s), d_in=1, d_out=epsilon
    )
    meas = space >> dpg.then_label_counts(1, ["a"]) >> dp.m.then_laplace(scale=scale)
    assert meas.check(1, epsilon) and not meas.check(1, epsilon - 1e-6)
    # c = 1 with a one-property vocabulary cannot bind: only a's count moves, by at most max(W, 1)
    assert scale == pytest.approx(max(model.W, 1) / epsilon, rel=1e-6)
    for i in range(len(edges)):  # the (discrete) Laplace scale is at least W/ε, so the exact check passes
        law0, law1 = enumerate_total_count(edges, i, 0), enumerate_total_count(edges, i, 1)
        assert realised_epsilon(law0, law1, scale) <= epsilon + 1e-9
    labelled = path5.with_label_sets([["a"], [], ["a", "b"], []])
    assert len(meas(labelled)) == 1


# ----------------------------------------------------------------------------- stability brute force
@pytest.fixture(scope="module")
def paw_labellings():
    g = dpg.Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 3], labels=[[], [], [], []])
    graphs = {tuple(h.label_sets()): h for h in dpg.verify.testing.all_labelings(g, ["a", "b"])}
    return g, graphs


@pytest.mark.parametrize(
    "model",
    # the last one has quantile gaps (4, 4): the relation uses the hull [1, 4] (clipping)
    [EdgeLevelModel(), MarkovQuiltModel(2), MarkovQuiltModel(3), MarkovQuiltModel(4), BinomialModel(0.0, 1.0, [3])],
    ids=repr,
)
@pytest.mark.parametrize("c", [1, pytest.param(2, marks=pytest.mark.thorough)])  # c = 1 < |V| by default, c = 2 thorough (4 s)
def test_label_count_stability_bruteforce(paw_labellings, model, c):
    g, graphs = paw_labellings
    metric = dpg.pufferfish_distance(model)
    desc: PufferfishDistance = metric.descriptor
    space = dpg.graph_domain(labeled=True), metric
    bound = (space >> dpg.then_label_counts(c, ["a", "b"])).map(1)
    map_bound = (space >> dpg.then_label_count_map(c)).map(1)
    lo, hi = min(desc.d_min, 1), max(desc.d_max, 1)
    # the queries apply no cap under a Pufferfish metric, so even c = 1 < |V| = 2 cannot
    # displace: max(hi, −lo) (a binding cap's 2·max(hi, 1 − lo) is tested on the rules, in
    # test_label_sensitivity.py)
    assert bound == max(hi, -lo) and map_bound == (1, bound, bound)
    worst, worst_map = 0, (0, 0, 0)
    cache = {}

    def counts(key):
        if key not in cache:
            h = graphs[key]
            cache[key] = (label_counts(h, None, ["a", "b"]), label_count_map(h, None))
        return cache[key]

    pairs = 0
    for key, h in graphs.items():
        for other in desc._steps(g, key, ["a", "b"]):
            pairs += 1
            v1, m1 = counts(key)
            v2, m2 = counts(other)
            d = int(np.abs(np.subtract(v1, v2)).sum())
            assert d <= bound
            worst = max(worst, d)
            got = l01inf(m1, m2)
            assert all(x <= y for x, y in zip(got, map_bound)), (got, map_bound)
            worst_map = tuple(max(x, y) for x, y in zip(worst_map, got))
            assert desc.related(h, graphs[other])
    assert pairs > 0
    assert worst == bound  # tight: hi flipped edges (the paw has a 4-edge neighbourhood)
    assert worst_map == map_bound


def test_distance_is_exact_on_tiny_graph(paw_labellings):
    g, graphs = paw_labellings
    desc = dpg.pufferfish_distance(EdgeLevelModel()).descriptor
    a = graphs[(frozenset(), frozenset(), frozenset(), frozenset())]
    b = graphs[(frozenset("a"), frozenset(), frozenset(), frozenset())]
    c = graphs[(frozenset("a"), frozenset("b"), frozenset(), frozenset())]
    assert desc.distance(a, a) == 0
    assert desc.distance(a, b) == 1 and desc.distance(b, a) == 1
    assert desc.distance(a, c) == 2  # two single-bit flips (edge-level: d ≡ 1)
    assert desc.distance(a, a.without_labels()) == math.inf
    quilt = dpg.pufferfish_distance(MarkovQuiltModel(4)).descriptor
    both = graphs[(frozenset("a"), frozenset("a"), frozenset(), frozenset())]
    assert quilt.distance(a, both) == 1 and desc.distance(a, both) == 2


def test_d_in_beyond_one_scales_by_triangle_inequality():
    space = dpg.graph_domain(labeled=True), dpg.pufferfish_distance(EdgeLevelModel())
    t = space >> dpg.then_label_counts(1, ["a", "b"])  # no cap applied: one count moves by one
    assert t.map(0) == 0 and t.map(1) == 1 and t.map(2) == 2
    t = space >> dpg.then_label_counts(3, ["a"])
    assert t.map(0) == 0 and t.map(1) == 1 and t.map(2) == 2
    with pytest.raises(dp.OpenDPException):
        t.map(-1)


# ----------------------------------------------------------------------------- OpenDP plumbing
def test_identifiers_and_composition(path3):
    b, g = BinomialModel.fit(path3), GlobalModel.fit(path3)
    mb, mb2, mg = dpg.pufferfish_distance(b), dpg.pufferfish_distance(BinomialModel.fit(path3)), dpg.pufferfish_distance(g)
    assert mb == mb2 and mb != mg
    assert "fingerprint" in repr(mb.descriptor) and "fitted_on='private'" in repr(mb.descriptor)
    pub = dpg.pufferfish_distance(BinomialModel.fit(path3, source="public"))
    assert pub != mb  # provenance is part of the identifier
    domain = dpg.graph_domain(labeled=True)

    def release(metric, scale=4.0):
        return (domain, metric) >> dpg.then_label_counts(2, ["a", "b"]) >> dp.m.then_laplace(scale=scale)

    # same model: the coupling is shared, composition is sound and ε adds up
    both = dp.c.make_composition([release(mb), release(mb2)])
    assert both.map(1) == pytest.approx(release(mb).map(1) * 2)
    # different models, or a Pufferfish release with an edge-level one: refused
    with pytest.raises(dp.OpenDPException, match="input metrics"):
        dp.c.make_composition([release(mb), release(mg)])
    edge = (domain, dpg.edge_label_distance()) >> dpg.then_label_counts(2, ["a", "b"]) >> dp.m.then_laplace(scale=4.0)
    with pytest.raises(dp.OpenDPException, match="input metrics"):
        dp.c.make_composition([release(mb), edge])


def test_other_queries_are_refused(path3):
    space = dpg.graph_domain(labeled=True), dpg.pufferfish_distance(GlobalModel.fit(path3))
    with pytest.raises(ValueError, match="no stability rule"):
        space >> dpg.then_edge_count()


def test_set_union_release(path3):
    model = GlobalModel.fit(path3, source="public")
    space = dpg.graph_domain(labeled=True), dpg.pufferfish_distance(model)
    meas = space >> dpg.then_label_count_map(2) >> dpg.then_corrected_laplace_threshold(scale=1.0, threshold=40)
    eps, delta = meas.map(1)
    assert eps > 0 and 0 <= delta < 1
    assert isinstance(meas(path3), dict)


# ----------------------------------------------------------------------------- DP fit
def test_binomial_statistics_stability_bruteforce():
    g = dpg.Graph.from_edges([0, 1, 1], [1, 2, 3], labels=[[], [], []])
    deg = g.degrees
    nbmax = max(int(deg[u] + deg[v] - 2) for u, v in g.edges.tolist())
    vocab = ("a", "b", "c")
    for c in (1, 2, 3, 4):
        t = make_binomial_statistics(g, c, vocab)
        assert t.map(1) == 3 * min(c, len(vocab)) * nbmax  # was 5·c·nbmax
        labellings = list(dpg.verify.testing.all_labelings(g, list(vocab)))
        stats = {tuple(h.label_sets()): binomial_statistics(h, c, vocab) for h in labellings}
        worst = 0
        for key, (a1, b1) in stats.items():
            for e in range(g.num_edges):
                for other in itertools.chain.from_iterable(itertools.combinations(vocab, r) for r in range(4)):
                    k2 = list(key)
                    k2[e] = frozenset(other)
                    a2, b2 = stats[tuple(k2)]
                    worst = max(worst, abs(a1 - a2) + abs(b1 - b2))
        # attained: an edge goes from no property to c_eff properties all its neighbours carry
        assert worst == t.map(1)


def test_dp_fit_is_a_conservative_upper_bound():
    rng = np.random.default_rng(5)
    g = random_labelled_graph(rng, n_max=12, m_max=30, words="abc")
    vocab = g.vocabulary
    c = 2
    a1, b1 = binomial_statistics(g, c, vocab)
    deg = g.degrees
    nb = (deg[g.src] + deg[g.dst] - 2).astype(int)
    total = len(vocab) * int(nb.sum())
    exact = BinomialModel(
        (b1 - a1) / (total - b1) if total > b1 else 0.0, a1 / b1 if b1 else 0.0, nb
    )
    for _ in range(15):
        model = BinomialModel.fit_dp(g, dp.loss_of(epsilon=50.0), vocabulary=vocab, max_labels_per_edge=c, beta=1e-6)
        assert model.p0_range[0] <= exact.p0 <= model.p0_range[1]
        assert model.p1_range[0] <= exact.p1 <= model.p1_range[1]
        assert model.W >= exact.W and model.flip_bound >= exact.flip_bound
        assert not model.data_dependent and "DP" in model.fitted_on
        assert model.fit_details["measurement"].map(1) <= 50.0 + 1e-9
    with pytest.raises(ValueError, match="epsilon"):
        BinomialModel.fit_dp(g, dp.loss_of(epsilon=0.0), vocabulary=vocab, max_labels_per_edge=c)
    with pytest.raises(TypeError, match="max_labels_per_edge must be a positive integer, got 2.0"):
        BinomialModel.fit_dp(g, dp.loss_of(epsilon=1.0), vocabulary=vocab, max_labels_per_edge=2.0)
    with pytest.raises(ValueError, match="max_labels_per_edge must be a positive integer, got 0"):
        BinomialModel.fit_dp(g, dp.loss_of(epsilon=1.0), vocabulary=vocab, max_labels_per_edge=0)
    other = dpg.Graph.from_edges([0], [1], labels=[["a"]])
    with pytest.raises(dp.OpenDPException, match="public structure"):
        model.fit_details["measurement"](other)


# ----------------------------------------------------------------------------- real data
def test_enron_models(shared_data):
    folder = shared_data / "enron-perry-wolfe"
    if not folder.is_dir():
        pytest.skip("Enron data not available")
    g = dpg.datasets.load_enron(folder)
    models = fit_all(g)
    quilt = MarkovQuiltModel.for_graph(g)
    for m in models.values():
        assert 1 <= m.W <= quilt.W
        assert m.data_dependent
        assert "NOTE" in m.summary() and "private data" in m.summary()
    table = models["Conditional"].wasserstein().table
    assert sum(r["secrets_s0"] + r["secrets_s1"] for r in table) == g.num_edges * len(g.vocabulary)
    assert max(r["W_inf"] for r in table) == models["Conditional"].W


def test_conditional_unobserved_buckets():
    # a path of two edges, both carrying "a": no s0 secret was ever observed
    g = dpg.Graph.from_edges([0, 1], [1, 2], labels=[["a"], ["a"]])
    bound = ConditionalModel.fit(g, base=2)
    ignore = ConditionalModel.fit(g, base=2, unobserved="ignore")
    (row,) = bound.wasserstein().table
    assert not row["observed"] and row["W_inf"] == 2  # trivial bound: the neighbourhood, N = 2
    assert bound.W == 2 and bound.flip_bound == 2
    assert ignore.fingerprint() != bound.fingerprint() and "ignore" in repr(ignore)
    assert ignore.W == 1 and ignore.wasserstein().table[0]["W_inf"] is None
    with pytest.raises(ValueError, match="unobserved"):
        ConditionalModel.fit(g, unobserved="drop")


def test_coverage(path3):
    bigger = dpg.Graph.from_edges([0, 0, 0, 0, 1], [1, 2, 3, 4, 2], labels=[["a"], [], [], [], ["a"]])
    models = (BinomialModel.fit(path3), GlobalModel.fit(path3), ConditionalModel.fit(path3, base=2), MarkovQuiltModel.for_graph(path3))
    for model in models:
        assert model.covers(path3)
        assert not model.covers(bigger)  # a closed neighbourhood of 5 edges; path3's largest is 3
    assert EdgeLevelModel().covers(bigger)


@pytest.mark.parametrize("query", [dpg.then_label_counts(2, ["a", "b"]), dpg.then_label_count_map(2)])
def test_queries_refuse_a_graph_the_model_does_not_cover(path3, query):
    """The guarantee is about the model's secrets: every query under a Pufferfish metric refuses a
    structure outside the model, whatever the labels (the structure is public under the metric)."""
    model = BinomialModel.fit(path3, source="public")
    t = (dpg.graph_domain(labeled=True), dpg.pufferfish_distance(model)) >> query
    t(path3)  # covered: runs
    for labels in ([["a"], [], [], [], ["a"]], [[], ["b"], ["a", "b"], [], []]):
        bigger = dpg.Graph.from_edges([0, 0, 0, 0, 1], [1, 2, 3, 4, 2], labels=labels)
        with pytest.raises(dp.OpenDPException, match="does not cover this graph.s structure"):
            t(bigger)
    # a model that covers every structure never refuses
    edge = (dpg.graph_domain(labeled=True), dpg.pufferfish_distance(EdgeLevelModel())) >> query
    edge(dpg.Graph.from_edges([0, 0, 0, 0, 1], [1, 2, 3, 4, 2], labels=[["a"], [], [], [], ["a"]]))


def test_context_api(path3):
    model = GlobalModel.fit(path3, source="public")
    ctx = dp.Context.compositor(
        data=path3,
        privacy_unit=(dpg.pufferfish_distance(model), 1),
        privacy_loss=dp.loss_of(epsilon=2.0),
        split_evenly_over=2,
        domain=dpg.graph_domain(labeled=True),
    )
    query = ctx.query().label_counts(2, ["a", "b"]).laplace()
    # ε = 1 per query; c = 2 covers the vocabulary, so only the secret's property moves: max(W, 1)
    assert query.param() == pytest.approx(max(model.W, 1) / 1.0)
    assert len(query.release()) == 2
    assert len(ctx.query().label_counts(2, ["a", "b"]).laplace().release()) == 2


def test_markov_quilt_for_structure_is_the_tight_cover():
    """``for_structure`` takes the largest closed neighbourhood: it covers the structure, one less
    does not, and it is at most the paper's ``2·Dmax − 1`` (equal on a graph whose two busiest
    people are adjacent)."""
    import networkx as nx

    for seed in range(20):
        g = dpg.Graph.from_networkx(nx.gnm_random_graph(30, 60, seed=seed))
        tight = MarkovQuiltModel.for_structure(g)
        largest = max(int(g.degrees[u] + g.degrees[v]) - 1 for u, v in zip(g.src, g.dst))
        assert tight.W == tight.flip_bound == largest <= MarkovQuiltModel.for_graph(g).W
        assert tight.covers(g) and not MarkovQuiltModel(largest - 1).covers(g)
    star = dpg.Graph.from_edges([0, 0, 0], [1, 2, 3], num_nodes=4)
    assert MarkovQuiltModel.for_structure(star).W == 3 == MarkovQuiltModel.for_graph(star).W - 2
    assert "largest closed neighbourhood" in MarkovQuiltModel.for_structure(star).fitted_on
    assert "paper" in MarkovQuiltModel.for_graph(star).fitted_on


def test_binomial_from_public_is_the_hand_assembled_model():
    """BinomialModel.from_public: p0, p1 of the public snapshot, the public structure's sizes; the
    released graph's labels are not read."""
    import networkx as nx
    import numpy as np

    rng = np.random.default_rng(4)
    base = nx.gnm_random_graph(30, 60, seed=5)
    edges = list(base.edges())
    labels = [[w for w in ("a", "b", "c") if rng.random() < 0.4] for _ in edges]
    snapshot = dpg.Graph.from_edges([u for u, _ in edges], [v for _, v in edges], labels=labels, num_nodes=30)
    released_base = nx.gnm_random_graph(30, 70, seed=6)
    r_edges = list(released_base.edges())
    released = dpg.Graph.from_edges([u for u, _ in r_edges], [v for _, v in r_edges],
                                labels=[["secret"]] * len(r_edges), num_nodes=30)
    model = BinomialModel.from_public(snapshot, released)
    fitted = BinomialModel.fit(snapshot, source="public")
    adjacent = released.degrees[released.edges[:, 0]] + released.degrees[released.edges[:, 1]] - 2
    by_hand = BinomialModel(fitted.p0, fitted.p1, np.unique(adjacent))
    assert (model.p0, model.p1) == (fitted.p0, fitted.p1)
    assert model.neighbour_counts.tolist() == by_hand.neighbour_counts.tolist() and model.W == by_hand.W
    assert model.covers(released) and not model.data_dependent
    relabelled = dpg.Graph.from_edges([u for u, _ in r_edges], [v for _, v in r_edges],
                                  labels=[["other", "words"]] * len(r_edges), num_nodes=30)
    assert BinomialModel.from_public(snapshot, relabelled).W == model.W  # the released labels are not read
