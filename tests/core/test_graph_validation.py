"""Bad input to the Graph constructors and the graph domain is refused with a clear error naming the
argument, never silently turned into a different graph; the node-count limit that keeps int64 edge
keys exact; pickling; the ``max_labels_per_edge`` domain promise."""

import copy
import datetime
import pickle
from multiprocessing.reduction import ForkingPickler

import networkx as nx
import numpy as np
import opendp.prelude as dp
import polars as pl
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opendp_graph as dpg
from opendp_graph import Graph
from opendp_graph.core._checks import not_a_graph
from opendp_graph.core.domains import GraphDomain
from opendp_graph.core.graph import MAX_NUM_NODES

LIMIT = MAX_NUM_NODES
TOP = LIMIT - 1  # the largest node index
# one message whatever the offending value's kind (issue 39: the kind is read off the data)
NOT_INDICES = r"^src must hold integer node indices \(integers, or floats that are whole numbers\)$"


# ----------------------------------------------------------------------------- node-count limit
def test_limit_is_the_largest_n_whose_keys_fit_in_int64():
    assert LIMIT == 3_037_000_499
    assert (LIMIT - 1) * LIMIT + (LIMIT - 1) < 2**63
    assert LIMIT * (LIMIT + 1) + LIMIT >= 2**63


@pytest.mark.parametrize("build", ["from_edges", "from_arrays"])
def test_graph_at_the_limit_round_trips_its_ids(build):
    # two edges at the highest ids, given in both orientations; nothing O(num_nodes) is allocated
    src, dst = np.array([TOP, TOP - 2]), np.array([TOP - 1, TOP])
    g = getattr(Graph, build)(src, dst, num_nodes=LIMIT)
    assert g.num_nodes == LIMIT and g.num_edges == 2
    assert g.edges.tolist() == [[TOP - 2, TOP], [TOP - 1, TOP]]
    assert g.src.tolist() == [TOP - 2, TOP - 1] and g.dst.tolist() == [TOP, TOP]
    keys = g.edge_keys
    assert (keys > 0).all() and keys[0] < keys[1]
    assert keys.tolist() == [(TOP - 2) * LIMIT + TOP, (TOP - 1) * LIMIT + TOP]
    assert g.edge_index(TOP, TOP - 1) == 1 and g.edge_index(TOP - 2, TOP) == 0
    assert g.has_edge(TOP - 1, TOP) and not g.has_edge(TOP - 2, TOP - 1) and not g.has_edge(0, TOP)
    assert pickle.loads(pickle.dumps(g)) == g


def test_graph_at_the_limit_with_labels_and_uint64_ids():
    src = np.array([TOP, TOP - 1, TOP], dtype=np.uint64)
    dst = np.array([TOP - 1, TOP, 0], dtype=np.uint64)
    g = Graph.from_edges(src, dst, num_nodes=LIMIT, labels=[["a"], ["b"], []])
    assert g.num_edges == 2 and g.edges.tolist() == [[0, TOP], [TOP - 1, TOP]]
    assert g.edge_labels(TOP, TOP - 1) == {"a", "b"} and g.edge_labels(0, TOP) == frozenset()


@pytest.mark.parametrize("num_nodes", [LIMIT + 1, 2**32, 2**62, 2**63, 2**64 + 5])
def test_num_nodes_above_the_limit_is_refused(num_nodes):
    message = rf"num_nodes is {num_nodes}, above the largest supported node count {LIMIT}"
    with pytest.raises(ValueError, match=message):
        Graph.from_edges([0], [1], num_nodes=num_nodes)
    with pytest.raises(ValueError, match=message):
        Graph.from_arrays(np.array([0]), np.array([1]), num_nodes)
    with pytest.raises(ValueError, match=message):
        Graph.from_edges([], [], num_nodes=num_nodes)


def test_keys_that_used_to_wrap_are_refused():
    # with n = 2**32, the edge (n-2, n-1) had key (n-2)*n + n-1 = 2**64 - 2**32 - 1, which wrapped
    # to a negative int64, so src/dst came back negative
    n = 2**32
    with pytest.raises(ValueError, match="num_nodes"):
        Graph.from_arrays(np.array([n - 2]), np.array([n - 1]), n)
    with pytest.raises(ValueError, match="a node index above the largest supported node index"):
        Graph.from_edges([n - 2], [n - 1])  # num_nodes inferred


# ----------------------------------------------------------------------------- num_nodes
BAD_NUM_NODES = [
    (2.5, TypeError),
    (3.0, TypeError),
    (np.float64(3.0), TypeError),
    (True, TypeError),
    (np.bool_(True), TypeError),
    ("3", TypeError),
    (-1, ValueError),
    (np.int64(-2), ValueError),
]


@pytest.mark.parametrize("value, err", BAD_NUM_NODES)
def test_bad_num_nodes_from_edges(value, err):
    with pytest.raises(err, match="num_nodes"):
        Graph.from_edges([0], [1], num_nodes=value)


@pytest.mark.parametrize("value, err", BAD_NUM_NODES + [(None, TypeError)])
def test_bad_num_nodes_from_arrays(value, err):
    with pytest.raises(err, match="num_nodes"):
        Graph.from_arrays(np.array([0]), np.array([1]), value)


def test_num_nodes_messages():
    with pytest.raises(TypeError, match=r"^num_nodes must be a non-negative integer, got None \(NoneType\)$"):
        Graph.from_arrays(np.array([0]), np.array([1]), None)
    with pytest.raises(TypeError, match=r"^num_nodes must be a non-negative integer, got 2.5 \(float\)$"):
        Graph.from_arrays(np.array([0]), np.array([1]), 2.5)
    with pytest.raises(ValueError, match=r"^num_nodes must be a non-negative integer, got -1$"):
        Graph.from_edges([], [], num_nodes=-1)


def test_numpy_integer_num_nodes_is_fine():
    g = Graph.from_arrays(np.array([0]), np.array([1]), np.int32(4))
    assert g.num_nodes == 4 and type(g.num_nodes) is int
    assert Graph.from_edges([0], [1], num_nodes=np.uint8(2)).num_nodes == 2


# ----------------------------------------------------------------------------- node indices
@pytest.mark.parametrize(
    "ids",
    [
        np.array([2**63], dtype=np.uint64),
        np.array([2**64 - 1], dtype=np.uint64),
        np.array([LIMIT], dtype=np.uint64),
        np.array([1e20]),
        np.array([float(LIMIT)]),
        [2**63],
        [2**64],  # numpy: object array of Python ints
        [0, 2**70],
        [LIMIT],
    ],
)
@pytest.mark.parametrize("build", ["from_edges", "from_arrays"])
def test_huge_node_index_is_refused_before_casting(ids, build):
    other = np.zeros(len(ids), dtype=np.int64) + 1
    num_nodes = None if build == "from_edges" else LIMIT
    with pytest.raises(ValueError, match=rf"^src holds a node index above the largest supported node index {TOP}"):
        getattr(Graph, build)(ids, other, num_nodes)


@pytest.mark.parametrize(
    "ids, err, match",
    [
        (np.array([0, 1], dtype=object), None, None),  # Python ints in an object array: fine
        (np.array([0, "a"], dtype=object), TypeError, NOT_INDICES),
        (np.array([0, 1.5], dtype=object), TypeError, "src must hold integer node indices"),
        (np.array([0, None], dtype=object), TypeError, "src must hold integer node indices"),
        (np.array(["0", "1"]), TypeError, NOT_INDICES),
        ([b"0", b"1"], TypeError, "src must hold integer node indices"),
        ("01", TypeError, "src must be a one-dimensional array or sequence of node indices, got str"),
        ({0, 1}, TypeError, "src must be a one-dimensional array or sequence of node indices, got set"),
        (5, TypeError, "src must be a one-dimensional array or sequence"),
        ([True, False], TypeError, NOT_INDICES),
        ([1, True], TypeError, NOT_INDICES),
        (np.array([1, 0], dtype=bool), TypeError, NOT_INDICES),
        (np.array([1, 0], dtype="m8[s]"), TypeError, NOT_INDICES),
        (np.array([1, 0], dtype=complex), TypeError, NOT_INDICES),
        ([datetime.date(2020, 1, 1)] * 2, TypeError, "src must hold integer node indices"),
        (np.array([1.0, np.nan]), TypeError, NOT_INDICES),
        (np.array([1.0, np.inf]), TypeError, NOT_INDICES),
        (np.array([0.5, 1.0]), TypeError, NOT_INDICES),
        ([-1, 0], ValueError, r"src holds a negative node index$"),
        (np.array([-3.0, 0.0]), ValueError, r"src holds a negative node index$"),
        ([[0, 1]], ValueError, "src must be one-dimensional"),
    ],
)
def test_bad_node_indices(ids, err, match):
    dst = np.array([2, 3])
    if err is None:
        assert Graph.from_edges(ids, dst) == Graph.from_edges([0, 1], [2, 3])
        return
    with pytest.raises(err, match=match):
        Graph.from_edges(ids, dst)
    with pytest.raises(err, match=match):
        Graph.from_arrays(ids, dst, 4)


def test_generators_of_indices_are_read():
    g = Graph.from_edges((i for i in [0, 1]), iter([1, 2]))
    assert g == Graph.from_edges([0, 1], [1, 2])


def test_unsigned_and_float_indices_equal_int_indices():
    ref = Graph.from_edges([0, 2], [1, 1])
    for dtype in (np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.float16, np.float32, np.float64):
        assert Graph.from_edges(np.array([0, 2], dtype=dtype), np.array([1, 1], dtype=dtype)) == ref
        assert Graph.from_arrays(np.array([0, 2], dtype=dtype), np.array([1, 1], dtype=dtype), 3) == ref


# ----------------------------------------------------------------------------- node ids
def test_node_ids_must_be_hashable():
    with pytest.raises(TypeError, match=r"^node_ids must be hashable$"):
        Graph.from_edges([0], [1], node_ids=["a", [1]])
    with pytest.raises(TypeError, match="node_ids must be hashable"):
        Graph.from_arrays(np.array([0]), np.array([1]), 2, node_ids=[{}, "b"])


def test_node_ids_must_be_an_ordered_sequence():
    with pytest.raises(TypeError, match="node_ids must be a sequence of node names, got a single string 'ab'"):
        Graph.from_edges([0], [1], node_ids="ab")  # used to name the nodes 'a' and 'b'
    with pytest.raises(TypeError, match="node_ids must be an ordered sequence"):
        Graph.from_arrays(np.array([0]), np.array([1]), 2, node_ids={"a", "b"})
    with pytest.raises(TypeError, match="node_ids must be a sequence of node names, got int"):
        Graph.from_edges([0], [1], node_ids=5)


def test_node_ids_from_a_generator_give_num_nodes():
    g = Graph.from_edges([0], [1], node_ids=(name for name in ["a", "b", "c"]))
    assert g.num_nodes == 3 and g.node_ids == ("a", "b", "c")


# ----------------------------------------------------------------------------- labels
def _arrays(**kw):
    return Graph.from_arrays(np.array([0, 1]), np.array([1, 2]), 3, vocabulary=["x", "y"], **kw)


@pytest.mark.parametrize(
    "bad",
    [
        np.array([[1.0, np.nan], [0.0, 1.0]]),
        np.array([[1, -1], [0, 1]]),
        np.array([[1, 2], [0, 1]]),
        np.array([[0.5, 0.0], [0.0, 1.0]]),
        np.array([[np.inf, 0.0], [0.0, 1.0]]),
        sp.csr_array(np.array([[1.0, np.nan], [0.0, 1.0]])),
        sp.csr_matrix(np.array([[1, -1], [0, 1]])),
        sp.coo_array((np.array([3.0]), (np.array([0]), np.array([1]))), shape=(2, 2)),
    ],
)
def test_label_matrix_must_hold_zeros_and_ones(bad):
    with pytest.raises(ValueError, match=r"^label_matrix must hold 0/1 \(or bool\) entries$"):
        _arrays(label_matrix=bad)


@pytest.mark.parametrize(
    "bad, err, match",
    [
        # one message per rule, whatever the entries' kind or the matrix's size (issue 39)
        (np.array([["1", "0"], ["0", "1"]]), ValueError, r"^label_matrix must hold 0/1 \(or bool\) entries$"),
        (np.array([[1, 0], [0, 1]], dtype=object), ValueError, r"^label_matrix must hold 0/1 \(or bool\) entries$"),
        (sp.csr_array(np.array([[1, 0], [0, 1]], dtype=complex)), ValueError, r"^label_matrix must hold 0/1 \(or bool\) entries$"),
        (np.array([1, 0]), ValueError, "label_matrix must be two-dimensional"),
        (np.ones((3, 2)), ValueError, r"^label_matrix must be two-dimensional, with one row per edge and one column per vocabulary entry$"),
        (np.ones((2, 3)), ValueError, r"^label_matrix must be two-dimensional, with one row per edge and one column per vocabulary entry$"),
        ([[1, 0], [0]], ValueError, "label_matrix must be two-dimensional"),  # ragged: numpy's message quoted its rows
    ],
)
def test_label_matrix_type_and_shape(bad, err, match):
    with pytest.raises(err, match=match):
        _arrays(label_matrix=bad)


def test_zero_one_label_matrices_of_any_numeric_dtype_agree():
    ref = Graph.from_edges([0, 1], [1, 2], labels=[["x"], ["x", "y"]])
    dense = np.array([[1, 0], [1, 1]])
    for m in (dense.astype(bool), dense.astype(np.int8), dense.astype(np.uint64), dense.astype(float),
              sp.csr_array(dense), sp.coo_matrix(dense.astype(np.float32))):
        assert _arrays(label_matrix=m) == ref
    # stored zeros are no labels
    explicit_zero = sp.csr_array((np.array([1.0, 0.0, 1.0, 1.0]), np.array([0, 1, 0, 1]), np.array([0, 2, 4])), shape=(2, 2))
    assert explicit_zero.nnz == 4 and _arrays(label_matrix=explicit_zero) == ref


@pytest.mark.parametrize(
    "vocabulary, match",
    [
        ([1, 2], r"vocabulary must hold strings"),
        (["x", None], r"vocabulary must hold strings"),
        (["x", b"y"], r"vocabulary must hold strings"),
        ("xy", "vocabulary must be a sequence of strings, got a single string 'xy'"),
        ({"x", "y"}, "vocabulary must be an ordered sequence"),
    ],
)
def test_vocabulary_must_hold_strings(vocabulary, match):
    with pytest.raises(TypeError, match=match):
        Graph.from_arrays(np.array([0]), np.array([1]), 2, label_matrix=np.ones((1, 2)), vocabulary=vocabulary)


def test_numpy_strings_in_vocabulary_and_labels_become_plain_strings():
    g = Graph.from_arrays(np.array([0]), np.array([1]), 2, label_matrix=np.ones((1, 2)), vocabulary=np.array(["b", "a"]))
    assert g.vocabulary == ("a", "b") and all(type(w) is str for w in g.vocabulary)
    h = Graph.from_edges([0], [1], labels=[np.array(["b", "a"])])
    assert h == g and all(type(w) is str for w in h.vocabulary)


def test_labels_must_be_one_set_per_edge():
    with pytest.raises(TypeError, match="labels must hold one iterable of strings per edge, got a single string"):
        Graph.from_edges([0, 1], [1, 2], labels="ab")


def test_with_label_sets_checks_its_argument():
    g = Graph.from_edges([0, 1], [1, 2])
    with pytest.raises(ValueError, match="label_sets must hold one label set per edge"):
        g.with_label_sets([["a"], "oops", ["b"]])  # the length, not the second entry, is the problem
    with pytest.raises(TypeError, match="label_sets must be a sequence of label sets"):
        g.with_label_sets("ab")
    with pytest.raises(TypeError, match="label_sets must be a sequence of label sets"):
        g.with_label_sets(5)
    with pytest.raises(TypeError, match="label_sets must be an ordered sequence"):
        g.with_label_sets({frozenset("a"), frozenset("b")})
    assert g.with_label_sets(iter([["a"], []])) == Graph.from_edges([0, 1], [1, 2], labels=[["a"], []])


# ----------------------------------------------------------------------------- edge lookups
def test_edge_index_does_not_alias_out_of_range_nodes():
    g = Graph.from_edges([1], [2], num_nodes=3)  # key of (1, 2) is 1 * 3 + 2 = 5 = key of (0, 5)
    with pytest.raises(KeyError, match="no edge between 0 and 5"):
        g.edge_index(0, 5)
    assert not g.has_edge(0, 5) and not g.has_edge(5, 0) and not g.has_edge(-1, 2)
    labeled = Graph.from_edges([1], [2], num_nodes=3, labels=[["secret"]])
    with pytest.raises(KeyError):
        labeled.edge_labels(0, 5)
    assert g.has_edge(np.int64(2), np.uint8(1))


@pytest.mark.parametrize("u", [0.5, 1.0, "1", None, True, np.bool_(False)])
def test_edge_index_needs_integer_nodes(u):
    g = Graph.from_edges([0, 1], [1, 2])
    with pytest.raises(TypeError, match="u must be an integer node index"):
        g.edge_index(u, 2)
    with pytest.raises(TypeError, match="v must be an integer node index"):
        g.has_edge(2, u)


# ----------------------------------------------------------------------------- not a graph
def test_not_a_graph_names_the_type_and_the_converter():
    hint_nx = "; convert it with dpg.Graph.from_networkx(g)"
    hint_pl = "; convert it with dpg.polars.graph_from_polars(frame, src=..., dst=..., nodes=public_people)"
    assert not_a_graph(nx.Graph()) == "expected an opendp_graph.Graph, got networkx.Graph" + hint_nx
    assert not_a_graph(nx.karate_club_graph()) == "expected an opendp_graph.Graph, got networkx.Graph" + hint_nx
    assert not_a_graph(nx.MultiDiGraph()) == "expected an opendp_graph.Graph, got networkx.MultiDiGraph" + hint_nx
    assert not_a_graph(pl.DataFrame({"src": [0]})) == "expected an opendp_graph.Graph, got polars.DataFrame" + hint_pl
    assert not_a_graph(pl.LazyFrame()) == "expected an opendp_graph.Graph, got polars.LazyFrame" + hint_pl
    assert not_a_graph(pl.Series([1])) == "expected an opendp_graph.Graph, got polars.Series"
    assert not_a_graph(np.zeros(2)) == "expected an opendp_graph.Graph, got numpy.ndarray"
    assert not_a_graph([(0, 1)]) == "expected an opendp_graph.Graph, got list"
    assert not_a_graph(None) == "expected an opendp_graph.Graph, got NoneType"
    assert not_a_graph(GraphDomain()) == "expected an opendp_graph.Graph, got opendp_graph.core.domains.GraphDomain"


def test_not_a_graph_reveals_nothing_about_the_value():
    assert not_a_graph(nx.path_graph(3)) == not_a_graph(nx.path_graph(300)) == not_a_graph(nx.Graph())
    assert not_a_graph(pl.DataFrame({"a": [1]})) == not_a_graph(pl.DataFrame({"b": ["secret"] * 5}))


def test_networkx_graph_given_to_a_query():
    domain = dpg.graph_domain()
    with pytest.raises(TypeError, match=r"got networkx\.Graph; convert it with dpg\.Graph\.from_networkx\(g\)$"):
        domain.descriptor.check_member(nx.karate_club_graph())
    t = dpg.make_edge_count(domain, dpg.edge_distance())
    with pytest.raises(dp.OpenDPException, match=r"got networkx\.Graph; convert it with dpg\.Graph\.from_networkx"):
        t(nx.karate_club_graph())
    with pytest.raises(dp.OpenDPException, match=r"got polars\.DataFrame; convert it with dpg\.polars\.graph_from_polars"):
        t(pl.DataFrame({"src": [0], "dst": [1]}))


# ----------------------------------------------------------------------------- pickle and copy
GRAPHS = {
    "unlabeled": lambda: Graph.from_edges([0, 1, 2], [1, 2, 0], num_nodes=5),
    "labeled": lambda: Graph.from_edges([0, 1, 0], [1, 2, 1], labels=[["hi"], [], ["re", "hi"]]),
    "node_ids": lambda: Graph.from_networkx(nx.Graph([("ann", "bob"), ("bob", (1, 2))]), labels=None),
    "labeled_node_ids": lambda: Graph.from_edges([0], [1], labels=[["x"]], node_ids=["a", "b", "c"]),
    "empty": lambda: Graph.from_edges([], []),
    "empty_labeled": lambda: Graph.from_edges([], [], num_nodes=2, labels=[]),
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
@pytest.mark.parametrize("dumps", [pickle.dumps, lambda g: pickle.dumps(g, protocol=5), lambda g: bytes(ForkingPickler.dumps(g))])
def test_pickle_round_trip(name, dumps):
    g = GRAPHS[name]()
    hash(g), g.degrees, g.edge_keys  # fill the caches first: they must not travel
    back = pickle.loads(dumps(g))
    assert back._degrees is None and back._keys is None and back._hash is None
    assert back is not g and back == g and hash(back) == hash(g)
    assert back.num_nodes == g.num_nodes and back.node_ids == g.node_ids and back.vocabulary == g.vocabulary
    assert np.array_equal(back.degrees, g.degrees) and np.array_equal(back.edges, g.edges)
    arrays = [back.src, back.dst, back.degrees, back.edge_keys]
    if back.is_labeled:
        assert back.label_sets() == g.label_sets()
        arrays += [back.labels.data, back.labels.indices, back.labels.indptr]
    for arr in arrays:
        assert not arr.flags.writeable
    with pytest.raises(AttributeError, match="immutable"):
        back.num_nodes = 3  # type: ignore[misc]
    with pytest.raises(AttributeError, match="immutable"):
        back._src = np.zeros(0)


def test_copy_and_deepcopy_return_the_graph_itself():
    g = GRAPHS["labeled"]()
    assert copy.copy(g) is g and copy.deepcopy(g) is g
    holder = copy.deepcopy({"g": g, "also": [g]})
    assert holder["g"] is g and holder["also"][0] is g


def test_graph_domain_pickles():
    d = dpg.graph_domain(labeled=True, max_labels_per_edge=2).descriptor
    assert pickle.loads(pickle.dumps(d)) == d


# ----------------------------------------------------------------------------- max_labels_per_edge
def test_max_labels_per_edge_domain():
    domain = dpg.graph_domain(labeled=True, max_labels_per_edge=2)
    assert str(domain) == "GraphDomain(num_nodes=None, max_degree=None, labeled=True, max_labels_per_edge=2)"
    assert domain.descriptor.max_labels_per_edge == 2
    assert [f for f in GraphDomain.__dataclass_fields__] == ["num_nodes", "max_degree", "labeled", "max_labels_per_edge"]
    ok = Graph.from_edges([0, 1, 2], [1, 2, 3], labels=[["a", "b"], [], ["c"]])
    assert domain.member(ok)
    assert domain.member(Graph.from_edges([], [], num_nodes=3, labels=[]))
    assert dpg.graph_domain(labeled=True, max_labels_per_edge=0).member(ok.with_label_sets([[], [], []]))
    assert not dpg.graph_domain(labeled=True, max_labels_per_edge=0).member(ok)
    # duplicate edges are merged first: {a, b} ∪ {b, c} is three labels on one edge
    merged = Graph.from_edges([0, 1], [1, 0], labels=[["a", "b"], ["b", "c"]])
    assert not domain.member(merged)
    assert dpg.graph_domain(labeled=True, max_labels_per_edge=3).member(merged)
    assert dpg.graph_domain(labeled=True).descriptor.max_labels_per_edge is None


def test_max_labels_per_edge_message_names_only_the_promise():
    domain = dpg.graph_domain(labeled=True, max_labels_per_edge=1).descriptor
    messages = set()
    for labels in ([["a", "b"], []], [[], ["w", "x", "y", "z"]]):
        with pytest.raises(ValueError) as info:
            domain.check_member(Graph.from_edges([0, 1], [1, 2], labels=labels))
        messages.add(str(info.value))
    assert messages == {"the graph violates the domain's max_labels_per_edge=1"}
    t = dpg.make_edge_count(dpg.graph_domain(labeled=True, max_labels_per_edge=1), dpg.edge_distance())
    with pytest.raises(dp.OpenDPException, match="max_labels_per_edge=1"):
        t(Graph.from_edges([0], [1], labels=[["a", "b"]]))
    assert t(Graph.from_edges([0], [1], labels=[["a"]])) == 1


@pytest.mark.parametrize(
    "kwargs, err, match",
    [
        ({"max_labels_per_edge": 2}, ValueError, "max_labels_per_edge needs a labeled domain"),
        ({"max_labels_per_edge": 2, "labeled": False}, ValueError, "max_labels_per_edge needs a labeled domain"),
        ({"max_labels_per_edge": -1, "labeled": True}, ValueError, "max_labels_per_edge must be at least 0"),
        ({"max_labels_per_edge": True, "labeled": True}, TypeError, "max_labels_per_edge must be an integer"),
        ({"max_labels_per_edge": 2.0, "labeled": True}, TypeError, "max_labels_per_edge must be an integer"),
    ],
)
def test_bad_max_labels_per_edge(kwargs, err, match):
    with pytest.raises(err, match=match):
        dpg.graph_domain(**kwargs)


def test_graph_domain_descriptor_refuses_max_labels_without_labels():
    with pytest.raises(ValueError, match="max_labels_per_edge needs a labeled domain"):
        GraphDomain(max_labels_per_edge=3)


# ----------------------------------------------------------------------------- properties
def _reference(pairs, labels):
    """Independent model: a set of frozenset pairs and, per pair, the union of its labels."""
    edges: dict[frozenset, set] = {}
    for (a, b), lab in zip(pairs, labels if labels is not None else [()] * len(pairs)):
        edges.setdefault(frozenset((int(a), int(b))), set()).update(lab)
    return edges


@st.composite
def valid_inputs(draw):
    n = draw(st.integers(2, 8))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1]), max_size=12))
    dtype = draw(st.sampled_from([np.int64, np.int32, np.int8, np.uint8, np.uint32, np.uint64, np.float64, np.float32, "list"]))
    labels = draw(st.none() | st.lists(st.sets(st.sampled_from("abcd")), min_size=len(pairs), max_size=len(pairs)))
    extra = draw(st.integers(0, 2))  # isolated nodes beyond the largest index
    return n + extra, pairs, dtype, labels


def _columns(pairs, dtype):
    src, dst = [p[0] for p in pairs], [p[1] for p in pairs]
    if dtype == "list":
        return src, dst
    return np.array(src, dtype=dtype), np.array(dst, dtype=dtype)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_inputs(), st.booleans())
def test_valid_edge_arrays_match_a_python_reference(case, fast):
    n, pairs, dtype, labels = case
    src, dst = _columns(pairs, dtype)
    if fast:
        vocab = list("dcba")  # unsorted on purpose
        matrix = None if labels is None else np.array([[w in lab for w in vocab] for lab in labels], dtype=bool).reshape(len(pairs), 4)
        g = Graph.from_arrays(src, dst, n, label_matrix=matrix, vocabulary=None if labels is None else vocab)
    else:
        g = Graph.from_edges(src, dst, num_nodes=n, labels=None if labels is None else [sorted(s) for s in labels])
    ref = _reference(pairs, labels)
    assert g.num_nodes == n and g.num_edges == len(ref)
    assert {frozenset(e) for e in g.edges.tolist()} == set(ref)
    assert (g.src < g.dst).all() and (np.diff(g.edge_keys) > 0).all()
    assert g.is_labeled == (labels is not None)
    if labels is not None:
        got = {frozenset(e): set(lab) for e, lab in zip(g.edges.tolist(), g.label_sets())}
        assert got == ref
    assert pickle.loads(pickle.dumps(g)) == g


_BAD_INDEX = st.sampled_from([-1, -(2**40), float("nan"), float("inf"), -float("inf"), 0.5, 1e20, 2**63, 2**64, LIMIT, "3", None, True, b"1"])


@st.composite
def invalid_inputs(draw):
    """Valid-looking inputs with exactly one thing wrong."""
    n = draw(st.integers(3, 6))
    size = draw(st.integers(1, 5))
    src = [draw(st.integers(0, n - 1)) for _ in range(size)]
    dst = [(s + draw(st.integers(1, n - 1))) % n for s in src]
    kw: dict = {"num_nodes": n}
    fault = draw(st.sampled_from(["index", "length", "num_nodes", "range", "dtype", "labels", "label_matrix", "loop"]))
    if fault == "index":
        column = draw(st.sampled_from([src, dst]))
        column[draw(st.integers(0, size - 1))] = draw(_BAD_INDEX)
    elif fault == "length":
        dst = dst + [0] if draw(st.booleans()) else dst[:-1]
    elif fault == "num_nodes":
        kw["num_nodes"] = draw(st.sampled_from([None, -1, 2.5, float(n), np.float64(n), True, "3", LIMIT + 1, 2**64]))
    elif fault == "range":
        kw["num_nodes"] = max(max(src), max(dst))  # one short
    elif fault == "dtype":
        dt = draw(st.sampled_from([bool, complex, object, "U2", "m8[s]"]))
        src = np.array(src).astype(dt) if dt is not object else np.array([str(s) for s in src], dtype=object)
    elif fault == "labels":
        kw["labels"] = draw(st.sampled_from([[["a"]] * (size + 1), [["a"]] * (size - 1), [["a"]] * (size - 1) + ["a"], [[1]] * size, [5] * size]))
    elif fault == "label_matrix":
        bad = draw(st.sampled_from([np.nan, -1.0, 2.0, 0.5, np.inf]))
        m = np.zeros((size, 2))
        m[draw(st.integers(0, size - 1)), draw(st.integers(0, 1))] = bad
        kw["label_matrix"] = m if draw(st.booleans()) else sp.csr_array(m)
    else:  # a self-loop
        dst[0] = src[0]
    return fault, src, dst, kw


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(invalid_inputs(), st.booleans())
def test_invalid_inputs_are_refused(case, fast):
    fault, src, dst, kw = case
    if fault == "num_nodes" and kw["num_nodes"] is None and not fast:
        return  # from_edges infers num_nodes: None is valid there
    if fast:
        labels = kw.pop("labels", None)
        if labels is not None:  # from_arrays takes a matrix: the same fault as a matrix
            return
        matrix = kw.pop("label_matrix", None)
        call = lambda: Graph.from_arrays(src, dst, kw["num_nodes"], label_matrix=matrix, vocabulary=None if matrix is None else ["a", "b"])
    else:
        matrix = kw.pop("label_matrix", None)
        if matrix is not None:
            return
        call = lambda: Graph.from_edges(src, dst, **kw)
    with pytest.raises((ValueError, TypeError)):
        call()


def test_from_networkx_labels_must_name_an_attribute():
    G = nx.Graph()
    G.add_edge(0, 1, words=["hi"], weight=2.0)
    # labels=True used to read each edge's attribute dict: its attribute names became its labels
    for bad in (True, False, 1):
        with pytest.raises(TypeError, match="labels must be the name of an edge attribute"):
            Graph.from_networkx(G, labels=bad)
    assert Graph.from_networkx(G, labels="words").label_sets() == [frozenset({"hi"})]


def test_graph_domain_num_nodes_is_capped_like_graphs():
    assert dpg.graph_domain(num_nodes=LIMIT).descriptor.num_nodes == LIMIT
    with pytest.raises(ValueError, match=f"num_nodes is {LIMIT + 1}, above the largest supported node count {LIMIT}"):
        dpg.graph_domain(num_nodes=LIMIT + 1)


def test_graph_has_no_public_constructor_that_skips_the_checks():
    # a "graph" with a repeated edge would pass the domain check and triple the edge count's change
    with pytest.raises(TypeError, match="not a public constructor"):
        Graph(num_nodes=3, src=np.array([0, 0, 0]), dst=np.array([1, 1, 1]))
    with pytest.raises(TypeError, match="Graph.from_edges"):
        Graph()


def test_a_graphs_arrays_cannot_be_made_writable_again():
    # read-only arrays that owned their memory could be switched back with setflags(write=True),
    # and g.labels handed out the internal matrix: both let a "simple" graph double-count
    g = Graph.from_edges([0, 1], [1, 2], labels=[["a", "b"], ["a"]])
    for arr in (g.src, g.dst, g.degrees, g.edge_keys, g.labels.data, g.labels.indices, g.labels.indptr):
        with pytest.raises(ValueError):
            arr.setflags(write=True)
    m = g.labels
    m.indices = np.zeros_like(m.indices)  # changes that object only
    assert g.label_sets() == [frozenset({"a", "b"}), frozenset({"a"})]
    again = pickle.loads(pickle.dumps(g))
    with pytest.raises(ValueError):
        again.src.setflags(write=True)


@pytest.mark.parametrize("label", ["a\x00x", "\x00", "lone\ud800surrogate"])
def test_labels_opendp_cannot_carry_are_refused(label):
    """Red-team finding: OpenDP cuts string keys at NUL ('a\\x00x' and 'a\\x00y' became one key,
    and a release told two neighbours apart with certainty), and lone surrogates raised at
    release time. Every constructor refuses them, as does a query's vocabulary."""
    import numpy as np
    import scipy.sparse as sp

    with pytest.raises(ValueError, match="NUL|Unicode"):
        dpg.Graph.from_edges([0], [1], labels=[[label]])
    with pytest.raises(ValueError, match="NUL|Unicode"):
        dpg.Graph.from_edges([0], [1], labels=[["ok"]]).with_label_sets([[label]])
    with pytest.raises(ValueError, match="NUL|Unicode"):
        dpg.Graph.from_arrays(np.array([0]), np.array([1]), 2, label_matrix=sp.csr_array(np.ones((1, 1))), vocabulary=[label])
    with pytest.raises(ValueError, match="NUL|Unicode"):
        (dpg.graph_domain(labeled=True), dpg.edge_distance()) >> dpg.then_label_count_map(1, ["ok", label])


def test_domain_refusal_does_not_echo_the_graph_node_count():
    """A graph outside a fixed-size domain is refused without saying its own size (it is data)."""
    import opendp_graph as dpg

    domain = dpg.graph_domain(num_nodes=5)
    why = domain.descriptor.violation(dpg.Graph.from_edges([0], [1], num_nodes=7))
    assert "num_nodes=5" in why and "7" not in why
