"""What a correlation model describes, and that it cannot change afterwards.

* Vocabulary: a Conditional model describes only the properties it was fitted on; the label
  queries under its metric read no other (the issue: fitted on ``p, q``, ``x`` released at the
  fitted W). Exact privacy loss, by enumeration, for every model fitted on a tiny graph.
* Coverage: every model refuses a structure it does not cover, before reading a label.
* Immutability, pickling and deep copies.
* Clear errors for bad constructor arguments.
"""

import copy
import itertools
import math
import pickle
import re
import types

import networkx as nx
import numpy as np
import opendp.prelude as dp
import pytest

import opendp_graph as dpg
from opendp_graph.verify import laplace_privacy_loss
from opendp_graph.pufferfish import (
    BinomialModel,
    ConditionalModel,
    EdgeLevelModel,
    GlobalModel,
    MarkovQuiltModel,
    fit_all,
)

DOMAIN = dpg.graph_domain(labeled=True)


def graph(edges, labels=None, n=None):
    return dpg.Graph.from_edges([u for u, _ in edges], [v for _, v in edges], num_nodes=n, labels=labels or [[] for _ in edges])


TRIANGLE = [(0, 1), (0, 2), (1, 2)]
PATH3 = [(0, 1), (1, 2), (2, 3)]


def python_error(exc):
    """The innermost Python error message an OpenDPException carries."""
    found = re.findall(r"^\s*([A-Za-z_.]*Error): (.*)$", str(exc), re.MULTILINE)
    return found[-1] if found else (type(exc).__name__, str(exc))


# ----------------------------------------------------------------------------- vocabulary (issue example)
@pytest.fixture
def fitted_on_p_q():
    g = graph(TRIANGLE, [["p"], ["p", "q"], ["q"]])
    return ConditionalModel.fit(g, source="public")


def test_conditional_model_records_its_vocabulary(fitted_on_p_q):
    model = fitted_on_p_q
    assert model.vocabulary == ("p", "q")
    assert dpg.pufferfish_distance(model).descriptor.vocabulary == ("p", "q")
    assert "properties=2" in repr(model)
    # part of the fingerprint: same histograms, other names -> another model, another identifier
    renamed = ConditionalModel(model.hist0, model.hist1, model.max_size, model.base, pairs=model.pairs,
                               vocabulary=["p", "z"], fitted_on="x", data_dependent=False)
    assert renamed.W == model.W and renamed.fingerprint() != model.fingerprint()
    assert dpg.pufferfish_distance(renamed) != dpg.pufferfish_distance(model)
    # the pooled models describe every property
    for m in (BinomialModel.fit(graph(TRIANGLE, [["p"], ["p", "q"], ["q"]])), GlobalModel.fit(graph(TRIANGLE, [["p"], [], []])),
              EdgeLevelModel(), MarkovQuiltModel(3)):
        assert m.vocabulary is None and dpg.pufferfish_distance(m).descriptor.vocabulary is None


def test_unseen_property_is_refused_or_not_counted(fitted_on_p_q):
    """The issue: fitted on p, q, the release counted a new label x at the fitted W."""
    space = DOMAIN, dpg.pufferfish_distance(fitted_on_p_q)
    with pytest.raises(ValueError, match=r"fitted on.*'x'"):
        space >> dpg.then_label_counts(2, ["p", "q", "x"])
    with pytest.raises(ValueError, match=r"'x'"):
        space >> dpg.then_label_count_map(2, ["x", "p"])
    many = [f"w{i}" for i in range(9)]
    with pytest.raises(ValueError, match=r"'w0', 'w1', 'w2', 'w3', 'w4', \.\.\. \(9 in all\)"):
        space >> dpg.then_label_counts(1, many)
    release = graph(TRIANGLE, [["x", "p"], ["x"], ["x", "q"]])
    counts = space >> dpg.then_label_counts(2, ["q", "p"])
    assert counts(release) == [1, 1]
    cmap = space >> dpg.then_label_count_map(1)  # the model's properties only (c is not applied)
    assert cmap(release) == {"p": 1, "q": 1}  # x is not counted
    # x on every edge cannot move the output at all
    assert cmap(graph(TRIANGLE, [["p"], [], ["q"]])) == cmap(release)
    # a pooled model describes x: counted
    pooled = DOMAIN, dpg.pufferfish_distance(GlobalModel.fit(graph(TRIANGLE, [["p"], ["p", "q"], ["q"]]), source="public"))
    assert (pooled >> dpg.then_label_count_map(1))(release) == {"p": 1, "q": 1, "x": 3}  # no cap under Pufferfish
    assert (pooled >> dpg.then_label_counts(2, ["p", "q", "x"]))(release) == [1, 1, 3]


def test_unseen_property_attacker_gets_nothing(fitted_on_p_q):
    """The attacker of the issue: x on the whole closed neighbourhood under s¹, nowhere under
    s⁰ (the trivial bound of a 3-edge neighbourhood). Counting x at the fitted noise gave 3ε; the
    release that now runs reads no x: loss 0."""
    model = fitted_on_p_q
    space = DOMAIN, dpg.pufferfish_distance(model)
    cmap = space >> dpg.then_label_count_map(2)
    base = [["p"], ["p", "q"], ["q"]]
    s0 = graph(TRIANGLE, base)
    s1 = graph(TRIANGLE, [sorted(set(b) | {"x"}) for b in base])
    out0, out1 = cmap(s0), cmap(s1)
    assert out0 == out1
    keys = sorted(set(out0) | set(out1))
    loss, _ = laplace_privacy_loss([[out0.get(k, 0) for k in keys]], [1.0], [[out1.get(k, 0) for k in keys]], [1.0], 1.0)
    assert loss == 0.0
    # what counting x at the model's calibration would have cost (W = 0 here, so the noise of
    # one unit of the no-displacement bound max(W, 1) = 1): three times the claim
    scale = (space >> dpg.then_label_counts(2, ["p", "q"])).map(1) / 1.0
    assert laplace_privacy_loss([0], [1.0], [3], [1.0], scale)[0] == pytest.approx(3.0)


def _secret_laws(model, freq, edges, centre, prop, other_labels, c, vocab):
    """The output laws of ``label_counts(c, vocab)`` under s⁰ and s¹ of ``(centre, prop)`` for the
    attacker of ``model``'s class: f | s has the model's bucket law (the trivial extreme laws for
    a bucket with an unobserved side), the neighbours carrying ``prop`` are exchangeable, and the
    other property is fixed at ``other_labels`` (locality). Every neighbourhood is the whole
    triangle, of size N = 3 = the model's largest, so no clipping is needed."""
    from opendp_graph.pufferfish._stats import log_bucket

    N = len(edges)
    fb = int(log_bucket(np.array([max(freq[prop], 1)]), model.base)[0])  # the bucket the model knows
    h0, h1 = model.hist0[fb, 0], model.hist1[fb, 0]
    if h0.sum() == 0 or h1.sum() == 0:  # trivial bound: the extreme laws are in the class
        if model.unobserved == "ignore":
            return None
        h0, h1 = np.eye(N + 1, dtype=np.int64)[0], np.eye(N + 1, dtype=np.int64)[N]
    others = [j for j in range(N) if j != centre]
    laws = []
    for s, h in ((0, h0), (1, h1)):
        values, weights = [], []
        for f in np.flatnonzero(h).tolist():
            k = f - s
            subsets = list(itertools.combinations(others, k))
            for chosen in subsets:
                labels = [set(o) for o in other_labels]
                for j in range(N):
                    if j == centre and s or j in chosen:
                        labels[j].add(prop)
                g = graph(edges, [sorted(x) for x in labels])
                values.append(dpg.transformations.labels.label_counts(g, c, vocab))
                weights.append(h[f] / h.sum() / len(subsets))
        laws.append((values, weights))
    return laws


def test_exact_privacy_loss_of_every_conditional_model_on_a_triangle():
    """Every labelling of a triangle by p, q fits a Conditional model; for each, every secret
    (edge, property) and every fixed labelling of the other property, the exact privacy loss of
    the released counts (Laplace calibrated to ε = 1) is at most 1."""
    props = ["p", "q"]
    subsets = [frozenset(s) for r in range(3) for s in itertools.combinations(props, r)]
    seen, worst, checked = set(), 0.0, 0
    for fit_labels in itertools.product(subsets, repeat=3):
        if not set().union(*fit_labels) >= set(props):
            continue  # the model must know both properties
        fit_graph = graph(TRIANGLE, [sorted(x) for x in fit_labels])
        model = ConditionalModel.fit(fit_graph, source="public")
        if model.fingerprint() in seen:
            continue
        seen.add(model.fingerprint())
        freq = {w: sum(w in x for x in fit_labels) for w in props}
        space = DOMAIN, dpg.pufferfish_distance(model)
        for c in (1, 2):
            t = space >> dpg.then_label_counts(c, props)
            scale = t.map(1) / 1.0
            meas = t >> dp.m.then_laplace(scale=scale)
            assert meas.map(1) == pytest.approx(1.0)
            for centre, prop in itertools.product(range(3), props):
                other = [q for q in props if q != prop][0]
                for other_bits in itertools.product((False, True), repeat=3):
                    fixed = [[other] if b else [] for b in other_bits]
                    # the query applies no cap under a Pufferfish metric (c is not used): the laws of its counts
                    laws = _secret_laws(model, freq, TRIANGLE, centre, prop, fixed, None, props)
                    assert t(graph(TRIANGLE, fixed)) == dpg.transformations.labels.label_counts(graph(TRIANGLE, fixed), None, props)
                    (v0, w0), (v1, w1) = laws
                    loss = laplace_privacy_loss(v0, w0, v1, w1, scale)[0]
                    assert loss <= 1.0 + 1e-9, (fit_labels, c, centre, prop, other_bits, loss)
                    worst = max(worst, loss)
                    checked += 1
    assert checked > 100 and worst > 0.5  # the check is not vacuous


def test_conditional_model_pickles_with_its_vocabulary(fitted_on_p_q):
    back = pickle.loads(pickle.dumps(fitted_on_p_q))
    assert back.vocabulary == ("p", "q") and back.fingerprint() == fitted_on_p_q.fingerprint()


# ----------------------------------------------------------------------------- coverage
STAR4 = [(0, 1), (0, 2), (0, 3), (0, 4)]  # closed neighbourhoods of 4 edges, 3 neighbours
STAR3 = [(0, 1), (0, 2), (0, 3)]  # 3 edges, 2 neighbours each
PATH5 = [(0, 1), (1, 2), (2, 3), (3, 4)]  # neighbours 1, 2, 2, 1


def coverage_cases():
    fit = graph(PATH3, [["a"], ["a"], ["b"]])  # closed neighbourhoods 2, 3, 2
    return [
        ("Binomial", BinomialModel.fit(fit, source="public"), PATH5, STAR4),  # neighbour counts {1, 2}
        ("Global", GlobalModel.fit(fit, source="public"), STAR3, STAR4),  # at most 3 edges
        ("Conditional", ConditionalModel.fit(fit, source="public"), STAR3, STAR4),  # bucket 0 up to 3
        ("Conditional base 2", ConditionalModel.fit(fit, base=2, source="public"), TRIANGLE, STAR4),  # bucket 1 = [2, 4)
        ("MarkovQuilt", MarkovQuiltModel(3), STAR3, STAR4),
        ("MarkovQuilt for_graph", MarkovQuiltModel.for_graph(fit), STAR3, STAR4),  # 2·2 − 1 = 3
    ]


@pytest.mark.parametrize("name, model, inside, outside", coverage_cases(), ids=[c[0] for c in coverage_cases()])
def test_every_model_refuses_what_it_does_not_cover(name, model, inside, outside):
    assert model.covers(graph(inside)) and not model.covers(graph(outside))
    space = DOMAIN, dpg.pufferfish_distance(model)
    vocab = list(getattr(model, "vocabulary", None) or ["a", "b"])
    for query in (dpg.then_label_counts(1, vocab), dpg.then_label_count_map(1)):
        t = space >> query
        t(graph(inside, [["a"]] * len(inside)))
        errors = set()
        for labels in ([[]] * len(outside), [["a", "b"]] * len(outside), [["a"], [], ["b"], ["a"]]):
            with pytest.raises(dp.OpenDPException) as info:
                t(graph(outside, labels))
            errors.add(python_error(info.value))
        (error,) = errors  # the same error whatever the labels: refused before they are read
        assert error[0] == "ValueError" and "does not cover this graph's structure" in error[1]


def test_global_model_covers_up_to_its_largest_neighbourhood():
    g = GlobalModel.fit(graph(PATH3, [["a"], ["a"], ["b"]]))
    assert int(g.max_size[0]) == 3
    assert g.covers(graph([(0, 1)])) and g.covers(graph(TRIANGLE)) and g.covers(graph([]))
    assert not g.covers(graph(STAR4))


def test_edge_level_model_covers_everything():
    big = graph([(0, v) for v in range(1, 30)] + [(1, 2)])
    assert EdgeLevelModel().covers(big) and EdgeLevelModel().covers(graph([]))
    with pytest.raises(TypeError, match="from_networkx"):
        EdgeLevelModel().covers(nx.path_graph(3))


# ----------------------------------------------------------------------------- immutability
def all_models():
    g = graph(PATH3 + [(1, 3)], [["a"], ["a", "b"], ["b"], ["a"]])
    models = dict(fit_all(g, source="public"))
    models["Edge-level"] = EdgeLevelModel()
    models["Markov quilt"] = MarkovQuiltModel.for_graph(g)
    models["Binomial DP"] = BinomialModel.fit_dp(g, dp.loss_of(epsilon=5.0), vocabulary=["a", "b"], max_labels_per_edge=1)
    return models


MUTATIONS = {
    "Binomial": [("p1_range", (0.0, 1.0)), ("p0_range", (0.5, 0.5)), ("neighbour_counts", np.arange(3))],
    "Global": [("hist1", np.zeros(3, dtype=np.int64)), ("max_size", np.array([9]))],
    "Conditional": [("hist1", None), ("vocabulary", ("a",)), ("pairs", None), ("unobserved", "ignore")],
    "Edge-level": [("fitted_on", "x")],
    "Markov quilt": [("max_neighbourhood", 99)],
    "Binomial DP": [("p1_range", (0.0, 1.0))],
}


def _assert_immutable(name, model):
    for attr, value in MUTATIONS[name] + [("data_dependent", True), ("brand_new", 1)]:
        with pytest.raises(AttributeError, match="immutable"):
            setattr(model, attr, value)
    for attr in ("fitted_on", "_report_cache", "brand_new"):
        with pytest.raises(AttributeError):
            delattr(model, attr)
    arrays = [v for v in vars(model).values() if isinstance(v, np.ndarray)]
    for arr in arrays:
        assert not arr.flags.writeable
        if arr.size:
            with pytest.raises(ValueError, match="read-only"):
                arr.reshape(-1)[0] = 7
    details = getattr(model, "fit_details", None)
    if details is not None:
        assert isinstance(details, types.MappingProxyType)
        with pytest.raises(TypeError):
            details["a1"] = 0


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_models_are_immutable(name):
    model = all_models()[name]
    W, fp = model.W, model.fingerprint()
    _assert_immutable(name, model)
    assert model.W == W and model.fingerprint() == fp
    assert dpg.pufferfish_distance(model).descriptor.W == W  # no stale cache to be out of date with


@pytest.mark.parametrize("name", list(MUTATIONS))
@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_models_round_trip(name, how):
    model = all_models()[name]
    W, fp, gaps = model.W, model.fingerprint(), tuple(model.gaps)
    back = pickle.loads(pickle.dumps(model)) if how == "pickle" else copy.deepcopy(model)
    assert type(back) is type(model) and back is not model
    assert back.W == W and back.fingerprint() == fp and tuple(back.gaps) == gaps and repr(back) == repr(model)
    assert back.covers(graph(PATH3)) == model.covers(graph(PATH3))
    assert dpg.pufferfish_distance(back) == dpg.pufferfish_distance(model)  # same identifier: composable
    _assert_immutable(name, back)
    if name == "Binomial DP":
        measurement = back.fit_details["measurement"]
        if how == "pickle":  # an OpenDP measurement holds foreign pointers: not pickled
            assert measurement is None and back.fit_details["epsilon"] == 5.0
        else:  # shared (immutable), usable
            assert measurement is model.fit_details["measurement"]
    # a fresh model (no cached report) round-trips too, and computes the same W
    fresh = type(model).__new__(type(model))
    fresh.__setstate__({k: v for k, v in model._state(portable=False).items() if k != "_report_cache"})
    assert fresh.W == W


def test_a_model_does_not_share_the_callers_arrays():
    h0, h1 = np.array([1, 2, 0], dtype=np.int64), np.array([0, 1, 2], dtype=np.int64)
    m = GlobalModel(h0, h1, 2, 10.0, fitted_on="caller", data_dependent=False)
    W = m.W
    h1[:] = [0, 3, 0]  # the caller's arrays stay writeable and are not the model's
    assert h1.flags.writeable and m.hist1.tolist() == [0, 1, 2] and m.W == W
    nbs = np.array([3, 1], dtype=np.int64)
    b = BinomialModel(0.1, 0.4, nbs)
    nbs[0] = 50
    assert b.neighbour_counts.tolist() == [1, 3]


# ----------------------------------------------------------------------------- bad inputs
H0, H1 = [1, 2, 0], [0, 1, 2]


@pytest.mark.parametrize("hist0, hist1, error, match", [
    ([1, -2, 0], H1, ValueError, "non-negative"),
    (H0, [0, 1.5, 2], ValueError, "whole numbers"),
    (H0, [0, np.nan, 2], ValueError, "NaN"),
    ([1.0, 2.0, 0.0], H1, None, None),  # integral floats are counts
    (np.array([True, False, False]), H1, TypeError, "integer counts"),
    (["1", "2", "0"], H1, TypeError, "integer counts"),
    ([[1, 2, 0]], H1, ValueError, "axis"),
    ([1, 2, 1], H1, ValueError, "infeasible"),  # s⁰ with f = 2 = N: the centre cannot count
    (H0, [1, 1, 2], ValueError, "infeasible"),  # s¹ with f = 0
    (H0, [0, 1, 2, 1], ValueError, "infeasible"),  # s¹ with f = 3 > N
])
def test_global_model_refuses_bad_histograms(hist0, hist1, error, match):
    build = lambda: GlobalModel(hist0, hist1, 2, 10.0, fitted_on="caller", data_dependent=False)  # noqa: E731
    if error is None:
        assert build().W == GlobalModel(H0, H1, 2, 10.0, fitted_on="caller", data_dependent=False).W
    else:
        with pytest.raises(error, match=match):
            build()


def test_empirical_models_refuse_other_bad_arguments():
    ok = dict(fitted_on="caller", data_dependent=False)
    with pytest.raises(ValueError, match="max_size"):
        GlobalModel(H0, H1, [2, 3], 10.0, **ok)
    with pytest.raises(ValueError, match="whole numbers"):
        GlobalModel(H0, H1, 2.5, 10.0, **ok)
    with pytest.raises(ValueError, match="base"):
        GlobalModel(H0, H1, 2, float("nan"), **ok)
    with pytest.raises(TypeError, match="data_dependent"):
        GlobalModel(H0, H1, 2, 10.0, fitted_on="caller", data_dependent="no")
    with pytest.raises(TypeError, match="fitted_on"):
        GlobalModel(H0, H1, 2, 10.0, fitted_on=None, data_dependent=False)


def test_conditional_model_refuses_inconsistent_arguments():
    model = ConditionalModel.fit(graph(TRIANGLE, [["p"], ["p", "q"], ["q"]]), source="public")
    args = dict(hist0=model.hist0, hist1=model.hist1, max_size=model.max_size, base=model.base, pairs=model.pairs,
                vocabulary=model.vocabulary, fitted_on="caller", data_dependent=False)
    assert ConditionalModel(**args).W == model.W

    def build(**changes):
        return ConditionalModel(**{**args, **changes})

    with pytest.raises(TypeError, match="vocabulary"):
        ConditionalModel(**{k: v for k, v in args.items() if k != "vocabulary"})
    for bad, error, match in [
        (dict(vocabulary=["p", "p"]), ValueError, "duplicate"),
        (dict(vocabulary="pq"), TypeError, "sequence"),
        (dict(vocabulary=["p", 3]), TypeError, "strings"),
        (dict(vocabulary=[]), ValueError, "properties per frequency bucket"),
        (dict(pairs=model.pairs + 1), ValueError, "pairs must count"),
        (dict(pairs=model.pairs.astype(float) + 0.5), ValueError, "whole numbers"),
        (dict(hist1=model.hist1[..., :-1]), ValueError, "same shape"),
        (dict(hist0=-model.hist0), ValueError, "non-negative"),
        (dict(hist0=model.hist0.astype(float) * np.nan), ValueError, "NaN"),
        (dict(max_size=np.array([2])), ValueError, "infeasible"),
        (dict(max_size=np.array([3, 3])), ValueError, "size bucket"),
        (dict(max_size=np.array([12])), ValueError, "log bucket"),
        (dict(unobserved="drop"), ValueError, "unobserved"),
        (dict(unobserved=["bound"]), ValueError, "unobserved"),
    ]:
        with pytest.raises(error, match=match):
            build(**bad)
    # with several buckets, pairs pins the number of properties down
    two = ConditionalModel.fit(graph(PATH3, [["a"], ["a"], ["b"]]), base=2, source="public")
    assert two.pairs.tolist() == [[0, 3], [0, 3]]  # one property per frequency bucket, 3 edges in size bucket 1
    for vocabulary in (["a"], ["a", "b", "c"]):
        with pytest.raises(ValueError, match="properties per frequency bucket"):
            ConditionalModel(two.hist0, two.hist1, two.max_size, two.base, pairs=two.pairs, vocabulary=vocabulary,
                             fitted_on="caller", data_dependent=False)


@pytest.mark.parametrize("p0, p1, nbs, error, match", [
    (float("nan"), 0.3, [1], ValueError, "probability"),
    (0.1, float("nan"), [1], ValueError, "probability"),
    ((0.1, float("nan")), 0.3, [1], ValueError, "probability"),
    ("0.1", 0.3, [1], TypeError, "probability"),
    (True, 0.3, [1], TypeError, "probability"),
    ((0.1, 0.2, 0.3), 0.3, [1], ValueError, "interval"),
    ((0.3, 0.1), 0.3, [1], ValueError, "interval"),
    (0.1, 0.3, [1, 2.5], ValueError, "whole numbers"),
    (0.1, 0.3, [1, -1], ValueError, "non-negative"),
    (0.1, 0.3, [], ValueError, "non-empty"),
    (0.1, 0.3, 4, TypeError, "collection"),
    (0.1, 0.3, "12", TypeError, "collection"),
    (0.1, 0.3, [np.nan], ValueError, "NaN"),
])
def test_binomial_model_refuses_bad_parameters(p0, p1, nbs, error, match):
    with pytest.raises(error, match=match):
        BinomialModel(p0, p1, nbs)


def test_binomial_model_accepts_good_parameters():
    assert BinomialModel(np.float64(0.1), (0.2, 0.4), range(3)).neighbour_counts.tolist() == [0, 1, 2]
    assert BinomialModel(0.1, 0.3, np.array([2.0, 1.0])).neighbour_counts.tolist() == [1, 2]
    with pytest.raises(TypeError, match="fit_details"):
        BinomialModel(0.1, 0.3, [1], fit_details=[("a", 1)])
    with pytest.raises(TypeError, match="fitted_on"):
        BinomialModel(0.1, 0.3, [1], fitted_on=3)


@pytest.mark.parametrize("value, error", [(2.5, TypeError), (3.0, TypeError), (True, TypeError), (0, ValueError), ("3", TypeError), (None, TypeError)])
def test_markov_quilt_refuses_non_integers(value, error):
    with pytest.raises(error, match="max_neighbourhood"):
        MarkovQuiltModel(value)
    assert MarkovQuiltModel(np.int64(3)).W == 3


@pytest.mark.parametrize("fit", [
    lambda g: BinomialModel.fit(g),
    lambda g: GlobalModel.fit(g),
    lambda g: ConditionalModel.fit(g),
    lambda g: fit_all(g),
    lambda g: MarkovQuiltModel.for_graph(g),
    lambda g: BinomialModel.fit_dp(g, dp.loss_of(epsilon=1.0), vocabulary=["a"], max_labels_per_edge=1),
    lambda g: GlobalModel.fit(graph(TRIANGLE)).covers(g),
])
def test_a_networkx_graph_is_refused_with_the_converter(fit):
    with pytest.raises(TypeError, match=r"networkx\.Graph.*dpg\.Graph\.from_networkx"):
        fit(nx.path_graph(4))
    with pytest.raises(TypeError, match="opendp_graph.Graph"):
        fit([(0, 1)])


def test_fit_checks_arguments_before_the_work():
    g = graph(TRIANGLE, [["a"], [], []])
    with pytest.raises(ValueError, match="base"):
        ConditionalModel.fit(g, base=math.inf)
    with pytest.raises(ValueError, match="base"):
        fit_all(g, base=True)


def test_a_dp_fitted_model_states_what_its_fit_costs_against_its_attackers():
    g = dpg.Graph.from_edges([0, 0, 1, 2, 3], [1, 2, 2, 3, 4], labels=[["x"], ["x", "y"], ["y"], ["x"], []])
    model = dpg.pufferfish.BinomialModel.fit_dp(g, dp.loss_of(epsilon=0.5), vocabulary=["x", "y"], max_labels_per_edge=2)
    f = model.flip_bound
    assert f"{f} × 0.5 = {f * 0.5:g}" in model.summary()
    exact = dpg.pufferfish.BinomialModel.fit(g)
    assert "the fit itself" not in exact.summary()


def test_a_models_arrays_cannot_be_made_writable_again():
    # an owned read-only array can be switched back with setflags(write=True): raising max_size
    # made an uncovered star "covered" while W and the metric's identifier stayed cached
    fit = dpg.Graph.from_edges([0, 1, 2], [1, 2, 3], labels=[["p"], ["p", "q"], ["q"]])
    models = [
        dpg.pufferfish.GlobalModel.fit(fit, source="public"),
        dpg.pufferfish.ConditionalModel.fit(fit, source="public"),
        dpg.pufferfish.BinomialModel.fit(fit, source="public"),
    ]
    for model in models + [pickle.loads(pickle.dumps(m)) for m in models] + [copy.deepcopy(m) for m in models]:
        arrays = [v for v in vars(model).values() if isinstance(v, np.ndarray)]
        assert arrays
        for arr in arrays:
            with pytest.raises(ValueError):
                arr.setflags(write=True)
