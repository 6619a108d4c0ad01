"""Label counts under L∞ (OpenDP's noisy top-k), by exhaustive brute force under every input metric.

The claim (``make_label_counts`` docstring, *Top-k*): the L∞ map is the ℓ∞ component of the
count map's rule, and the monotonic map (one unit of input distance moves every count the same
way) holds for one edge at edge level and for one coupled flip of a Pufferfish model whose cap
cannot bind. Each test below tries to break it on every neighbour pair of small graphs, checks
that the bound is attained, and checks OpenDP's noisy top-k at the boundary of its ε.
"""

import itertools
import math

import numpy as np
import opendp.prelude as dp
import pytest

import opendp_graph as dpg
from tests.transformations import test_label_sensitivity as ls
from opendp_graph.blowfish import BlowfishPolicy as P
from opendp_graph.verify.testing import all_graphs, all_labelings
from opendp_graph.transformations.labels import label_counts

LINF = dp.linf_distance(T=dp.i64)
MONO = dp.linf_distance(T=dp.i64, monotonic=True)


def _signs_agree(delta):
    """Whether a difference vector is monotonic: no coordinate up while another goes down."""
    return not ((delta > 0).any() and (delta < 0).any())


# ----------------------------------------------------------------------------- core metrics
# edge and node distance by default; group and edge-label distance thorough (4 s)
@pytest.mark.parametrize("metric_name", [m if m in ("edge", "node") else pytest.param(m, marks=pytest.mark.thorough) for m in ls.METRIC3])
def test_core_linf_exhaustive(metric_name):
    """Every neighbour pair of labelled graphs on 3 nodes: the L∞ map equals the largest change
    of one count (sound and attained), for vocabularies smaller than, equal to and larger than c."""
    build, _ = ls.METRIC3[metric_name]
    dom = ls.domain(None, **({"max_degree": 2} if metric_name == "node" else {}))
    member = np.array([dom.descriptor.member(g) for g in ls.GRAPHS3])
    xs, ys = ls.pairs3(metric_name)
    keep = member[xs] & member[ys]
    xs, ys = xs[keep], ys[keep]
    for c in (1, 2, 3):
        for vocab in (["b", "a", "c"], ["c", "a"], ["b"]):
            t = (dom, build()) >> dpg.then_label_counts(c, vocab, output_metric=LINF)
            out = np.array([label_counts(g, c, vocab) for g in ls.GRAPHS3])
            delta = out[xs] - out[ys]
            worst = int(np.abs(delta).max())
            expected = {"edge": 1, "group2": 2, "label": 1, "node": 2}[metric_name]
            assert t.map(1) == expected == worst, (metric_name, c, vocab, worst)
            assert t.map(3) == 3 * expected
            if metric_name == "edge":
                mono = (dom, build()) >> dpg.then_label_counts(c, vocab, output_metric=MONO)
                assert all(_signs_agree(row) for row in delta)  # one edge: every count moves one way
                assert mono.map(1) == 1 and mono.map(0) == 0
                with pytest.raises(dp.OpenDPException, match="one unit of input distance"):
                    mono.map(2)
            elif metric_name in ("label", "group2", "node"):
                # these metrics move counts both ways in one unit: a witness, and the refusal
                assert not all(_signs_agree(row) for row in delta) or len(vocab) == 1
                if metric_name == "group2":
                    with pytest.raises(ValueError, match="monotonic"):
                        (dom, build()) >> dpg.then_label_counts(c, vocab, output_metric=MONO)
                else:
                    with pytest.raises(ValueError, match="no stability rule"):
                        (dom, build()) >> dpg.then_label_counts(c, vocab, output_metric=MONO)


def test_group_of_one_edge_is_monotonic():
    t = (ls.domain(), dpg.group_distance(1)) >> dpg.then_label_counts(2, ["a", "b"], output_metric=MONO)
    assert t.map(1) == 1


# ----------------------------------------------------------------------------- Blowfish
@pytest.mark.parametrize(
    "policy",
    [
        P.attribute(),
        P.full(),
        pytest.param(P.attribute(vip=[0]), marks=pytest.mark.slow),
        pytest.param(P.distance_threshold(2, vip=[1]), marks=pytest.mark.slow),
    ],
)
def test_blowfish_linf_exhaustive(policy):
    """Every pair of labelled graphs on 3 nodes (two properties used, three counted) at every
    finite Blowfish distance: L∞ ≤ the map at that distance, attained at distance 1."""
    n, vocab = 3, ["a", "b", "c"]
    graphs = [lg for g in all_graphs(n) for lg in all_labelings(g, vocab[:2])]
    domain = dpg.graph_domain(num_nodes=n, labeled=True)
    metric = dpg.blowfish_distance(policy)
    pairs = []
    for i, j in itertools.permutations(range(len(graphs)), 2):
        d = metric.descriptor.distance(graphs[i], graphs[j])
        if 0 < d < math.inf:
            pairs.append((i, j, d))
    for c in (1, 2):
        t = (domain, metric) >> dpg.then_label_counts(c, vocab, output_metric=LINF)
        cmap = (domain, metric) >> dpg.then_label_count_map(c)
        out = np.array([t(g) for g in graphs])
        # the maps at each distance met, computed once (a map call crosses the FFI: 15,500 pairs)
        maps = {d: (t.map(d), cmap.map(d)[2]) for d in {d for _, _, d in pairs}}
        worst_at_one = 0
        for i, j, d in pairs:
            diff = int(np.abs(out[i] - out[j]).max())
            assert diff <= maps[d][0] == maps[d][1], (c, d, diff)
            if d == 1:
                worst_at_one = max(worst_at_one, diff)
        assert worst_at_one == t.map(1)  # attained
        with pytest.raises(ValueError, match="no stability rule"):
            (domain, metric) >> dpg.then_label_counts(c, vocab, output_metric=MONO)


# ----------------------------------------------------------------------------- Pufferfish
PAW = [(0, 1), (0, 2), (1, 2), (2, 3)]


def _paw_labellings(props=("a", "b")):
    base = dpg.Graph.from_edges([u for u, _ in PAW], [v for _, v in PAW], num_nodes=4, labels=[[] for _ in PAW])
    return list(all_labelings(base, props))


@pytest.fixture(scope="module")
def paw_pairs():
    graphs = _paw_labellings()
    probe = dpg.pufferfish_distance(ls.global_with_gaps(-2, 3)).descriptor  # the widest window used below
    pairs = [(i, j) for i, j in itertools.permutations(range(len(graphs)), 2) if probe.related(graphs[i], graphs[j])]
    return graphs, pairs


# two gap pairs by default, (1, 1) and the widest, (−1, 3); the other four in the thorough tier (4 s)
@pytest.mark.parametrize("gaps", [(1, 1), (-1, 3)] + [pytest.param(g, marks=pytest.mark.thorough) for g in [(1, 3), (0, 2), (-1, 1), (-2, 2)]])
def test_pufferfish_linf_exhaustive(paw_pairs, gaps):
    """Every coupled flip of every labelling of the paw (two properties): the queries apply no
    cap under a Pufferfish metric, so only the flipped property's count moves (monotonic), by at
    most max(W, 1), attained, whatever ``c``."""
    graphs, pairs = paw_pairs
    metric = dpg.pufferfish_distance(ls.global_with_gaps(*gaps))
    related = [(i, j) for i, j in pairs if metric.descriptor.related(graphs[i], graphs[j])]
    assert related
    space = dpg.graph_domain(labeled=True), metric
    vocab = ["a", "b"]
    out = np.array([label_counts(g, None, vocab) for g in graphs])
    deltas = np.array([out[i] - out[j] for i, j in related])
    worst = int(np.abs(deltas).max())
    assert all(np.count_nonzero(row) <= 1 for row in deltas)  # one coordinate: monotonic
    for c in (1, 2):
        t = space >> dpg.then_label_counts(c, vocab, output_metric=LINF)
        mono = space >> dpg.then_label_counts(c, vocab, output_metric=MONO)
        assert [t(g) for g in graphs[:40]] == out[:40].tolist()  # c is not applied
        assert worst == mono.map(1) == t.map(1) == max(metric.descriptor.hi, -metric.descriptor.lo), (gaps, c)


def test_pufferfish_monotonic_rule_refuses_a_binding_cap():
    """The rule itself, given a contribution that does carry a binding cap (no query builds one
    under this metric), refuses the monotonic bound: a flip may then move two counts both ways."""
    from opendp_graph.transformations._core import resolve_stability
    from opendp_graph.transformations.labels import LabelContribution

    metric = dpg.pufferfish_distance(ls.global_with_gaps(1, 2))
    capped = LabelContribution(1, counted=2, domain_cap=None)
    with pytest.raises(ValueError, match="cannot drop a property"):
        resolve_stability("label_counts_monotonic", ls.domain().descriptor, metric.descriptor, c=capped)


# ----------------------------------------------------------------------------- OpenDP's noisy top-k
@pytest.mark.parametrize("output_metric, factor", [(LINF, 2), (MONO, 1)])
def test_noisy_top_k_boundary_at_edge_level(output_metric, factor):
    t = (ls.domain(), dpg.edge_distance()) >> dpg.then_label_counts(3, ["a", "b", "c"], output_metric=output_metric)
    k, scale = 2, 4.0
    m = t >> dp.m.then_noisy_top_k(dp.max_divergence(), k=k, scale=scale)
    epsilon = factor * k / scale
    assert m.check(1, epsilon)
    assert not m.check(1, math.nextafter(epsilon * (1 - 1e-9), 0))
    assert sorted(m(ls.GRAPHS3[-1])) in ([0, 1], [0, 2], [1, 2])


def test_noisy_top_k_under_pufferfish_exact_and_relaxed():
    model = dpg.pufferfish.BinomialModel(p0=0.01, p1=0.3, neighbour_counts=range(20))
    vocab = ["gas", "power", "price"]
    exact = (dpg.graph_domain(labeled=True), dpg.pufferfish_distance(model)) >> dpg.then_label_counts(
        3, vocab, output_metric=MONO
    )
    assert exact.map(1) == model.W == 13
    m = exact >> dp.m.then_noisy_top_k(dp.max_divergence(), k=2, scale=26.0)
    assert m.check(1, 1.0) and not m.check(1, 0.999)
    relaxed_space = dpg.graph_domain(labeled=True), dpg.pufferfish_distance(model, delta=1e-6)
    relaxed = relaxed_space >> dpg.then_label_counts(3, vocab, output_metric=MONO)
    assert relaxed.map(1) == 12
    release = dpg.pufferfish.make_pufferfish_approximate(relaxed >> dp.m.then_noisy_top_k(dp.max_divergence(), k=2, scale=24.0))
    assert release.map(1) == (1.0, 1e-06)
    g = dpg.Graph.from_edges([0, 1], [1, 2], labels=[["gas", "power"], ["gas"]])
    assert sorted(release(g)) in ([0, 1], [0, 2], [1, 2])
    with pytest.raises(dp.OpenDPException, match="make_pufferfish_approximate"):
        (relaxed >> dp.m.then_noisy_top_k(dp.max_divergence(), k=2, scale=24.0))(g)


def test_output_metric_is_checked_at_construction():
    space = ls.domain(), dpg.edge_distance()
    with pytest.raises(ValueError, match="output_metric must be"):
        space >> dpg.then_label_counts(1, ["a"], output_metric=dp.l2_distance(T=dp.i64))
    with pytest.raises(ValueError, match="output_metric must be"):
        space >> dpg.then_label_counts(1, ["a"], output_metric=dp.linf_distance(T=dp.f64))
    with pytest.raises(TypeError, match="OpenDP Metric"):
        space >> dpg.then_label_counts(1, ["a"], output_metric="linf")
    t = space >> dpg.then_label_counts(1, ["a"], output_metric=dp.l1_distance(T=dp.i64))
    assert t.output_metric == dp.l1_distance(T=dp.i64) and t.map(1) == 1
