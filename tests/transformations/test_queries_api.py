"""Query construction errors, domain checks at run time, and chaining into OpenDP measurements,
compositors and the Context API."""

import networkx as nx
import opendp.prelude as dp
import pytest

import opendp_graph as dpg
from opendp_graph import Graph


def karate():
    return Graph.from_networkx(nx.karate_club_graph())


# ----------------------------------------------------------------------------- construction errors
def test_node_level_needs_a_degree_bound():
    for make, kwargs in [
        (dpg.make_edge_count, {}),
        (dpg.make_degree_histogram, {"max_degree": 5}),
        (dpg.make_cumulative_degree_histogram, {"max_degree": 5}),
    ]:
        with pytest.raises(ValueError, match="degree bound"):
            make(dpg.graph_domain(), dpg.node_distance(), **kwargs)
    with pytest.raises(ValueError, match="degree bound"):
        dpg.make_label_counts(dpg.graph_domain(labeled=True), dpg.node_distance(), 1, ["a"])


def test_triangle_count_needs_a_bound():
    with pytest.raises(ValueError, match="unbounded sensitivity"):
        dpg.make_triangle_count(dpg.graph_domain(), dpg.edge_distance())
    assert dpg.make_triangle_count(dpg.graph_domain(num_nodes=10), dpg.edge_distance()).map(1) == 8
    assert dpg.make_triangle_count(dpg.graph_domain(num_nodes=10, max_degree=4), dpg.edge_distance()).map(1) == 3


def test_wrong_domain_or_metric_types():
    with pytest.raises(TypeError, match="graph domain"):
        dpg.make_edge_count(dp.vector_domain(dp.atom_domain(T=int)), dpg.edge_distance())
    with pytest.raises(TypeError, match="graph metric"):
        dpg.make_edge_count(dpg.graph_domain(), dp.symmetric_distance())
    with pytest.raises(TypeError, match="graph metric"):
        dpg.make_edge_count(dpg.graph_domain(), dp.user_distance("Other()"))


def test_bad_histogram_and_label_arguments():
    with pytest.raises(ValueError, match="max_degree is required"):
        dpg.make_degree_histogram(dpg.graph_domain(), dpg.edge_distance())
    with pytest.raises(ValueError, match="non-negative"):
        dpg.make_degree_histogram(dpg.graph_domain(), dpg.edge_distance(), max_degree=-1)
    with pytest.raises(TypeError, match="max_degree"):
        dpg.make_degree_histogram(dpg.graph_domain(), dpg.edge_distance(), max_degree=2.5)
    labeled = dpg.graph_domain(labeled=True)
    for c, err in [(0, ValueError), (-2, ValueError), (1.5, TypeError), (True, TypeError)]:
        with pytest.raises(err, match="max_labels_per_edge"):
            dpg.make_label_counts(labeled, dpg.edge_distance(), c, ["a"])
    with pytest.raises(TypeError, match="vocabulary"):
        dpg.make_label_counts(labeled, dpg.edge_distance(), 1, "abc")
    with pytest.raises(ValueError, match="duplicate"):
        dpg.make_label_counts(labeled, dpg.edge_distance(), 1, ["a", "a"])
    with pytest.raises(ValueError, match="labeled domain"):
        dpg.make_label_counts(dpg.graph_domain(), dpg.edge_distance(), 1, ["a"])
    with pytest.raises(ValueError, match="positive"):
        dpg.make_degree_projection(dpg.graph_domain(), dpg.node_distance(), 0)


def test_constructors_assert_features_first(monkeypatch):
    domain, metric = dpg.graph_domain(), dpg.edge_distance()
    asked = []

    def refuse(*features):
        asked.append(features)
        raise AssertionError(f"requires {features}")

    monkeypatch.setattr(dp, "assert_features", refuse)
    with pytest.raises(AssertionError, match="contrib"):
        dpg.make_edge_count(domain, metric)
    assert asked == [("contrib", "honest-but-curious")]


# ----------------------------------------------------------------------------- runtime domain checks
def test_domain_promises_are_enforced_when_running():
    star = Graph.from_edges([0, 0, 0], [1, 2, 3])
    t = dpg.make_degree_histogram(dpg.graph_domain(max_degree=2), dpg.node_distance())
    with pytest.raises(dp.OpenDPException, match="max_degree=2"):
        t(star)
    t = dpg.make_edge_count(dpg.graph_domain(), dpg.edge_distance())
    with pytest.raises(dp.OpenDPException, match="edge labels but the domain is unlabeled"):
        t(star.with_label_sets([["x"], [], []]))
    with pytest.raises(dp.OpenDPException, match="expected an opendp_graph.Graph"):
        t(nx.karate_club_graph())
    t = dpg.make_label_counts(dpg.graph_domain(labeled=True), dpg.edge_distance(), 1, ["x"])
    with pytest.raises(dp.OpenDPException, match="no edge labels"):
        t(star)


def test_domain_error_message_does_not_depend_on_the_data():
    t = dpg.make_edge_count(dpg.graph_domain(max_degree=1), dpg.node_distance())
    messages = set()
    for g in [Graph.from_edges([0, 0], [1, 2]), Graph.from_edges([0, 0, 0, 0], [1, 2, 3, 4])]:
        with pytest.raises(dp.OpenDPException) as info:
            t(g)
        messages.add(str(info.value).splitlines()[-2])
    assert len(messages) == 1


# ----------------------------------------------------------------------------- chaining
def test_issue_example():
    space = dpg.graph_domain(), dpg.edge_distance()
    meas = space >> dpg.then_degree_histogram(max_degree=100) >> dp.m.then_laplace(scale=4.0)
    assert meas.map(1) == 1.0
    release = meas(karate())
    assert len(release) == 101 and all(isinstance(x, int) for x in release)


def test_every_metric_chains_into_laplace():
    g = karate()
    for metric, domain in [
        (dpg.edge_distance(), dpg.graph_domain()),
        (dpg.group_distance(5), dpg.graph_domain()),
        (dpg.node_distance(), dpg.graph_domain(max_degree=17)),
    ]:
        meas = (domain, metric) >> dpg.then_cumulative_degree_histogram(max_degree=20) >> dp.m.then_laplace(scale=10.0)
        assert len(meas(g)) == 21 and meas.map(1) > 0


def test_threshold_set_union_release():
    g = Graph.from_edges(
        list(range(40)), list(range(1, 41)), labels=[["common", f"rare{i}"] for i in range(40)]
    )
    meas = (dpg.graph_domain(labeled=True), dpg.edge_distance()) >> dpg.then_label_count_map(2) >> dpg.then_corrected_laplace_threshold(
        scale=1.0, threshold=15
    )
    released = meas(g)
    assert set(released) <= {"common"} | {f"rare{i}" for i in range(40)}
    eps, delta = meas.map(1)
    assert eps == pytest.approx(2.0) and delta > 0


def test_composition_and_context():
    g = karate()
    space = dpg.graph_domain(num_nodes=34), dpg.edge_distance()
    m1 = space >> dpg.then_edge_count() >> dp.m.then_laplace(scale=2.0)
    m2 = space >> dpg.then_degree_histogram(max_degree=20) >> dp.m.then_laplace(scale=8.0)
    m3 = space >> dpg.then_triangle_count() >> dp.m.then_laplace(scale=64.0)
    comp = dp.c.make_composition([m1, m2, m3])
    assert comp.map(1) == pytest.approx(0.5 + 0.5 + 0.5)
    count, hist, tri = comp(g)
    assert isinstance(count, int) and len(hist) == 21 and isinstance(tri, int)

    ctx = dp.Context.compositor(
        data=g,
        privacy_unit=(dpg.edge_distance(), 1),
        privacy_loss=dp.loss_of(epsilon=1.0),
        split_evenly_over=2,
        domain=dpg.graph_domain(num_nodes=34),
    )
    hist = ctx.query().degree_histogram(max_degree=20).laplace().release()
    assert len(hist) == 21
    q = ctx.query().triangle_count().laplace()
    assert q.param() == pytest.approx(32 * 2.0)  # sensitivity n - 2 = 32 at ε = 0.5
    assert isinstance(q.release(), int)
    with pytest.raises(ValueError):
        ctx.query().edge_count().laplace().release()  # budget exhausted


def test_node_level_context_with_projection():
    g = karate()
    ctx = dp.Context.compositor(
        data=g,
        privacy_unit=(dpg.node_distance(), 1),
        privacy_loss=dp.loss_of(epsilon=1.0),
        split_evenly_over=1,
        domain=dpg.graph_domain(),
    )
    q = ctx.query().degree_projection(max_degree=6).degree_histogram().laplace()
    assert q.param() == pytest.approx(4 * 6)  # 2θ moved degrees, 2 each
    assert len(q.release()) == 7


def test_then_constructors_have_the_real_signatures():
    import inspect

    for then_x, make_x in [
        (dpg.then_degree_histogram, dpg.make_degree_histogram),
        (dpg.then_label_counts, dpg.make_label_counts),
        (dpg.then_degree_projection, dpg.make_degree_projection),
        (dpg.then_vip_standard_histogram, dpg.make_vip_standard_histogram),
        (dpg.then_corrected_laplace_threshold, dpg.make_corrected_laplace_threshold),
    ]:
        made = list(inspect.signature(make_x).parameters)
        assert list(inspect.signature(then_x).parameters) == made[2:]
    # a typo or a missing argument fails where it is written, naming the constructor
    with pytest.raises(TypeError, match=r"then_degree_histogram\(max_degree.*unexpected keyword argument 'max_degre'"):
        dpg.then_degree_histogram(max_degre=3)
    with pytest.raises(TypeError, match="then_label_counts.*missing a required argument: 'vocabulary'"):
        dpg.then_label_counts(2)


def test_context_fills_in_the_graph_domain():
    g = karate()
    # OpenDP cannot infer a domain for a Graph: the failure dpg.context exists for
    with pytest.raises(dp.UnknownTypeException):
        dp.Context.compositor(data=g, privacy_unit=(dpg.edge_distance(), 1), privacy_loss=dp.loss_of(epsilon=1.0), split_evenly_over=1)
    ctx = dpg.context(g, (dpg.edge_distance(), 1), dp.loss_of(epsilon=1.0), split_evenly_over=2)
    assert ctx.accountant.input_domain == dpg.graph_domain()
    query = ctx.query().edge_count().laplace()
    assert query.param() == pytest.approx(2.0)  # sensitivity 1 at ε = 0.5
    assert isinstance(query.release(), int)
    # a labelled graph gets a labelled domain; an explicit domain is used as given and enforced
    labelled = dpg.Graph.from_edges([0, 1], [1, 2], labels=[["a"], ["b"]])
    assert dpg.context(labelled, (dpg.edge_distance(), 1), dp.loss_of(epsilon=1.0), split_evenly_over=1).accountant.input_domain == dpg.graph_domain(labeled=True)
    small = dpg.context(g, (dpg.edge_distance(), 1), dp.loss_of(epsilon=1.0), split_evenly_over=1, domain=dpg.graph_domain(max_degree=3))
    with pytest.raises(dp.OpenDPException):
        small.query().edge_count().laplace().release()  # karate has degree 17 > 3


def test_context_refuses_what_is_not_a_graph():
    import networkx as nx

    with pytest.raises(TypeError, match="from_networkx"):
        dpg.context(nx.karate_club_graph(), (dpg.edge_distance(), 1), dp.loss_of(epsilon=1.0), split_evenly_over=1)
    with pytest.raises(TypeError, match="graph domain"):
        dpg.context(karate(), (dpg.edge_distance(), 1), dp.loss_of(epsilon=1.0), split_evenly_over=1, domain=dp.atom_domain(T=int))
