"""Fuzzing the public constructors and queries: a correct answer or a clear error, never a silent one.

* Arguments: every integer parameter of every query constructor, metric and domain gets random
  values of every kind (negative, zero, huge, bools, integral and fractional floats, NaN, numpy
  scalars, strings, None, lists). The constructor must either accept exactly the values an
  independent rule calls valid, or raise ``TypeError``/``ValueError`` — nothing else.
* Answers: on random graphs every query must equal an independent computation (NetworkX or plain
  Python).
* Inputs at release: anything that is not a member of the domain (a NetworkX graph, a list, a
  graph breaking a domain promise) is refused with an error that names the problem and depends
  only on the public fact that the promise is broken.
"""

import math
import re
from numbers import Integral

import networkx as nx
import numpy as np
import opendp.prelude as dp
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import opendp_graph as dpg
from opendp_graph.core.graph import MAX_NUM_NODES
from opendp_graph.transformations.projection import edge_order

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ANY_VALUE = st.one_of(
    st.integers(-3, 12),
    st.integers(-(2**70), 2**70),
    st.booleans(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([2.0, 3.0, 0.5, np.int64(3), np.int32(2), np.uint8(4), np.int64(-1), np.float64(2.0), np.bool_(True)]),
    st.none(),
    st.text(max_size=3),
    st.lists(st.integers(0, 3), max_size=3),
)


def _is_int(value, minimum):
    return isinstance(value, Integral) and not isinstance(value, (bool, np.bool_)) and value >= minimum


_PYTHON_ERROR = re.compile(r"^\s*([A-Za-z_.]*(?:Error|Exception)): (.*)$", re.MULTILINE)


def _python_error(exc: BaseException) -> tuple[str, str] | None:
    """The innermost Python error OpenDP re-raised (its text holds the Python traceback, then a
    Rust backtrace), as ``(type name, message)``."""
    found = _PYTHON_ERROR.findall(str(exc))
    return found[-1] if found else None


def _clear_error(exc: BaseException) -> bool:
    """Our own TypeError/ValueError, directly or re-raised by OpenDP from a user callback."""
    if isinstance(exc, (TypeError, ValueError)):
        return True
    if isinstance(exc, dp.OpenDPException):
        inner = _python_error(exc)
        if inner is None:  # OpenDP's own argument checks
            return exc.variant in ("MakeTransformation", "MakeDomain", "MakeMeasurement", "FailedFunction")
        return inner[0] in ("TypeError", "ValueError")
    return False


def _error_text(exc: BaseException) -> str:
    inner = _python_error(exc) if isinstance(exc, dp.OpenDPException) else None
    return inner[1] if inner else str(exc)


def _outcome(build):
    try:
        return build(), None
    except BaseException as exc:  # noqa: BLE001 - the test classifies it
        assert _clear_error(exc), f"unclear error {type(exc).__name__}: {exc}"
        return None, exc


# ----------------------------------------------------------------------------- arguments
INT_PARAMETERS = {
    # name: (builder taking the value, smallest valid value, largest valid value or None)
    "degree_histogram(max_degree)": (
        lambda v: dpg.make_degree_histogram(dpg.graph_domain(), dpg.edge_distance(), max_degree=v), 0, 2**31 - 2),
    "cumulative_degree_histogram(max_degree)": (
        lambda v: dpg.make_cumulative_degree_histogram(dpg.graph_domain(), dpg.edge_distance(), max_degree=v), 0, 2**31 - 2),
    "degree_projection(max_degree)": (
        lambda v: dpg.make_degree_projection(dpg.graph_domain(), dpg.node_distance(), max_degree=v), 1, None),
    "label_counts(max_labels_per_edge)": (
        lambda v: dpg.make_label_counts(dpg.graph_domain(labeled=True), dpg.edge_distance(), v, ["a", "b"]), 1, None),
    "label_count_map(max_labels_per_edge)": (
        lambda v: dpg.make_label_count_map(dpg.graph_domain(labeled=True), dpg.edge_distance(), v), 1, None),
    "group_distance(k)": (lambda v: dpg.group_distance(v), 1, None),
    "graph_domain(num_nodes)": (lambda v: dpg.graph_domain(num_nodes=v), 0, MAX_NUM_NODES),
    "graph_domain(max_degree)": (lambda v: dpg.graph_domain(max_degree=v), 0, None),
    "BlowfishPolicy.distance_threshold(theta)": (lambda v: dpg.BlowfishPolicy.distance_threshold(v), 1, None),
    "BlowfishPolicy.full(num_nodes)": (lambda v: dpg.BlowfishPolicy.full(num_nodes=v), 0, None),
    "MarkovQuiltModel(max_neighbourhood)": (lambda v: dpg.pufferfish.MarkovQuiltModel(v), 1, None),
}


# None is a valid "not stated" for these (and for no other parameter above)
NONE_MEANS_UNSTATED = {"graph_domain(num_nodes)", "graph_domain(max_degree)", "BlowfishPolicy.full(num_nodes)"}


@pytest.mark.parametrize("name", list(INT_PARAMETERS))
@FUZZ
@given(value=ANY_VALUE)
def test_integer_arguments_are_accepted_exactly_when_valid(name, value):
    build, minimum, maximum = INT_PARAMETERS[name]
    valid = _is_int(value, minimum) and (maximum is None or value <= maximum)
    if value is None:
        valid = name in NONE_MEANS_UNSTATED
    result, error = _outcome(lambda: build(value))
    assert (error is None) == valid, f"{name} with {value!r}: {'accepted' if error is None else error}"


@FUZZ
@given(vocabulary=st.one_of(
    st.lists(st.text(max_size=2), max_size=4),
    st.lists(st.one_of(st.text(max_size=2), st.integers(), st.none()), max_size=3),
    st.text(max_size=3),
    st.none(),
    st.integers(),
))
def test_vocabularies_are_distinct_strings_or_refused(vocabulary):
    # (a set is refused too: test_a_set_is_not_a_vocabulary)
    valid = (
        isinstance(vocabulary, list)
        and all(isinstance(w, str) for w in vocabulary)
        and len(set(vocabulary)) == len(vocabulary)
        # OpenDP's string keys are NUL-terminated UTF-8: such names are refused (_checks.check_label_names)
        and all("\x00" not in w and not any("\ud800" <= ch <= "\udfff" for ch in w) for w in vocabulary)
    )
    space = dpg.graph_domain(labeled=True), dpg.edge_distance()
    _, error = _outcome(lambda: space >> dpg.then_label_counts(1, vocabulary))
    assert (error is None) == valid, (vocabulary, error)


@FUZZ
@given(d_in=ANY_VALUE)
@example(d_in=2**53 + 1)  # found by this test: the floor was taken of float(d_in), 2**53, under-reporting
@example(d_in=np.int64(2**53 + 1))
def test_stability_maps_take_only_non_negative_finite_distances(d_in):
    t = dpg.make_degree_histogram(dpg.graph_domain(), dpg.edge_distance(), max_degree=5)
    result, error = _outcome(lambda: t.map(d_in))
    valid = (
        isinstance(d_in, (int, float, np.integer, np.floating))
        and not isinstance(d_in, (bool, np.bool_))
        and math.isfinite(float(d_in))
        and d_in >= 0
        and 4 * _floor(d_in) < 2**63
    )
    assert (error is None) == valid, (d_in, result, error)
    if valid:
        assert result == 4 * _floor(d_in)


def _floor(x):
    """The exact floor (``math.floor`` of a numpy integer goes through a float)."""
    return int(x) if isinstance(x, (int, np.integer)) else math.floor(x)


# ----------------------------------------------------------------------------- answers
@st.composite
def labelled_graphs(draw, max_nodes=10):
    n = draw(st.integers(0, max_nodes))
    pairs = [(u, v) for u in range(n) for v in range(u + 1, n)]
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs))) if pairs else []
    words = ["a", "b", "c", "d"]
    labels = [draw(st.lists(st.sampled_from(words), unique=True, max_size=4)) for _ in chosen]
    flip = draw(st.lists(st.booleans(), min_size=len(chosen), max_size=len(chosen)))
    src = [v if f else u for (u, v), f in zip(chosen, flip)]
    dst = [u if f else v for (u, v), f in zip(chosen, flip)]
    return dpg.Graph.from_edges(src, dst, num_nodes=n, labels=labels), n, chosen, labels


def _reference_nx(n, chosen):
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(chosen)
    return g


def _clamped_hist(g, bins):
    hist = [0] * (bins + 1)
    for _, deg in g.degree():
        hist[min(deg, bins)] += 1
    return hist


@FUZZ
@given(data=labelled_graphs(), bins=st.integers(0, 6), c=st.integers(1, 4))
def test_queries_equal_an_independent_computation(data, bins, c):
    graph, n, chosen, labels = data
    ref = _reference_nx(n, chosen)
    plain = graph.without_labels()
    edge = dpg.graph_domain(), dpg.edge_distance()
    assert (edge >> dpg.then_edge_count())(plain) == ref.number_of_edges()
    hist = _clamped_hist(ref, bins)
    assert (edge >> dpg.then_degree_histogram(max_degree=bins))(plain) == hist
    assert (edge >> dpg.then_cumulative_degree_histogram(max_degree=bins))(plain) == list(np.cumsum(hist))
    sized = dpg.graph_domain(num_nodes=n), dpg.edge_distance()
    assert (sized >> dpg.then_triangle_count())(plain) == sum(nx.triangles(ref).values()) // 3

    vocabulary = ["d", "b", "a"]  # priority order, "c" not in it
    by_edge = {frozenset(e): set(lab) for e, lab in zip(chosen, labels)}
    expected = [0] * len(vocabulary)
    expected_map = {}
    for labs in by_edge.values():
        for w in [w for w in vocabulary if w in labs][:c]:
            expected[vocabulary.index(w)] += 1
        for w in sorted(labs)[:c]:
            expected_map[w] = expected_map.get(w, 0) + 1
    labelled = dpg.graph_domain(labeled=True), dpg.edge_distance()
    assert (labelled >> dpg.then_label_counts(c, vocabulary))(graph) == expected
    assert (labelled >> dpg.then_label_count_map(c))(graph) == expected_map


@FUZZ
@given(data=labelled_graphs(max_nodes=12), theta=st.integers(1, 4))
def test_projection_is_the_greedy_scan_in_the_public_order(data, theta):
    graph, n, chosen, _ = data
    plain = graph.without_labels()
    out = (dpg.graph_domain(), dpg.node_distance()) >> dpg.then_degree_projection(max_degree=theta)
    projected = out(plain)
    # independent greedy in plain Python over the public order
    order = edge_order(plain).tolist()
    kept, degree = set(), [0] * n
    for i in order:
        u, v = int(plain.src[i]), int(plain.dst[i])
        if degree[u] < theta and degree[v] < theta:
            degree[u] += 1
            degree[v] += 1
            kept.add((u, v))
    assert set(zip(projected.src.tolist(), projected.dst.tolist())) == kept
    assert projected.max_degree <= theta
    # maximal: every dropped edge has an endpoint that is full
    for u, v in zip(plain.src.tolist(), plain.dst.tolist()):
        assert (u, v) in kept or degree[u] == theta or degree[v] == theta


# ----------------------------------------------------------------------------- release inputs
QUERIES = {
    "edge_count": (dpg.then_edge_count, False),
    "degree_histogram": (lambda: dpg.then_degree_histogram(max_degree=4), False),
    "cumulative": (lambda: dpg.then_cumulative_degree_histogram(max_degree=4), False),
    "triangles": (dpg.then_triangle_count, False),
    "projection": (lambda: dpg.then_degree_projection(max_degree=2), False),
    "label_counts": (lambda: dpg.then_label_counts(1, ["a"]), True),
    "label_count_map": (lambda: dpg.then_label_count_map(1), True),
}


@pytest.mark.parametrize("query", list(QUERIES))
@pytest.mark.parametrize(
    "value, hint",
    [
        (nx.path_graph(3), "Graph.from_networkx"),
        ([(0, 1)], "opendp_graph.Graph"),
        (None, "opendp_graph.Graph"),
        ({0: [1]}, "opendp_graph.Graph"),
    ],
    ids=["networkx", "list", "None", "dict"],
)
def test_a_non_graph_is_refused_with_a_hint(query, value, hint):
    make, labeled = QUERIES[query]
    t = (dpg.graph_domain(num_nodes=5, labeled=labeled), dpg.edge_distance()) >> make()
    with pytest.raises(Exception, match=hint) as info:
        t(value)
    assert _clear_error(info.value)


def _two_violations(promise, labeled):
    """Two different graphs that break the same domain promise (so the refusal must not depend on
    which one is given)."""
    lab = (lambda k: [["a"]] * k) if labeled else (lambda k: None)
    if promise == "num_nodes":
        return [dpg.Graph.from_edges([0], [1], num_nodes=6, labels=lab(1)),
                dpg.Graph.from_edges([0, 2], [1, 3], num_nodes=6, labels=lab(2))]
    if promise == "max_degree":
        return [dpg.Graph.from_edges([0, 0, 0], [1, 2, 3], num_nodes=5, labels=lab(3)),
                dpg.Graph.from_edges([4, 4, 4, 4], [0, 1, 2, 3], num_nodes=5, labels=lab(4))]
    if promise == "labeled":
        if labeled:
            return [dpg.Graph.from_edges([0], [1], num_nodes=5), dpg.Graph.from_edges([2, 3], [3, 4], num_nodes=5)]
        return [dpg.Graph.from_edges([0], [1], num_nodes=5, labels=[["a"]]),
                dpg.Graph.from_edges([2], [3], num_nodes=5, labels=[["b", "c"]])]
    raise AssertionError(promise)


# every query and promise under the edge metric by default, and under the other metrics an unlabelled
# and a labelled query; the rest of the cross product in the thorough tier (9 s)
@pytest.mark.parametrize("metric, promise, query", [
    pytest.param(metric, promise, query,
                 marks=[] if metric == "edge" or query in ("degree_histogram", "label_counts") else [pytest.mark.thorough])
    for metric in ["edge", "node", "group", "edge_label"] for promise in ["num_nodes", "max_degree", "labeled"] for query in QUERIES
])
def test_every_domain_promise_is_enforced_at_release(query, promise, metric):
    make, labeled = QUERIES[query]
    domain = dpg.graph_domain(num_nodes=5, max_degree=2, labeled=labeled)
    space_metric = {
        "edge": dpg.edge_distance(), "node": dpg.node_distance(), "group": dpg.group_distance(2),
        "edge_label": dpg.edge_label_distance(),
    }[metric]
    if metric == "edge_label" and not labeled:
        with pytest.raises(ValueError, match="protects edge labels only"):
            (domain, space_metric) >> make()  # nothing is secret: refused, not "ε = 0"
        return
    t = (domain, space_metric) >> make()
    fine = dpg.Graph.from_edges([0, 1], [1, 2], num_nodes=5, labels=[["a"], ["a"]] if labeled else None)
    t(fine)
    messages = set()
    for g in _two_violations(promise, labeled):
        with pytest.raises(Exception) as info:
            t(g)
        assert _clear_error(info.value)
        messages.add(_error_text(info.value))
    assert len(messages) == 1, messages  # the same words for every graph that breaks the promise


def test_a_set_is_not_a_vocabulary():
    # a set's order changes with PYTHONHASHSEED: the output positions and the per-edge priority would too
    space = dpg.graph_domain(labeled=True), dpg.edge_distance()
    for vocabulary in ({"a", "b"}, frozenset({"a"})):
        with pytest.raises(TypeError, match="not a set"):
            space >> dpg.then_label_counts(1, vocabulary)
