"""The Graph container: construction, canonical form, labels, converters, immutability."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import opendp_graph as dpg
from opendp_graph import Graph


def test_canonical_form_merges_duplicates_and_unites_labels():
    g = Graph.from_edges([2, 0, 1, 1], [0, 1, 0, 2], labels=[["a"], ["b"], ["c", "b"], []])
    assert g.num_nodes == 3 and g.num_edges == 3
    assert g.edges.tolist() == [[0, 1], [0, 2], [1, 2]]
    assert g.edge_labels(1, 0) == {"b", "c"}
    assert g.edge_labels(0, 2) == {"a"}
    assert g.edge_labels(2, 1) == frozenset()
    assert g.vocabulary == ("a", "b", "c")
    assert g.degrees.tolist() == [2, 2, 2]


def test_isolated_nodes_and_node_ids():
    g = Graph.from_edges([0], [1], num_nodes=4, node_ids=["ann", "bob", "cy", "di"])
    assert g.num_nodes == 4 and g.degrees.tolist() == [1, 1, 0, 0]
    nxg = g.to_networkx()
    assert set(nxg.nodes) == {"ann", "bob", "cy", "di"} and nxg.has_edge("bob", "ann")


def test_empty_graph():
    g = Graph.from_edges([], [], num_nodes=3)
    assert g.num_edges == 0 and g.max_degree == 0 and g.degrees.tolist() == [0, 0, 0]
    assert Graph.from_edges([], []).num_nodes == 0


def test_arrays_are_read_only_and_graph_is_immutable():
    g = Graph.from_edges([0, 1], [1, 2], labels=[["x"], ["y"]])
    for arr in (g.src, g.dst, g.degrees, g.edges, g.edge_keys, g.labels.data, g.labels.indices):
        with pytest.raises(ValueError):
            arr[0] = 5
    with pytest.raises(AttributeError):
        g.num_nodes = 7  # type: ignore[misc]


def test_input_is_not_mutated():
    src, dst = np.array([3, 1, 0]), np.array([1, 3, 2])
    labels = [["b", "a"], ["c"], []]
    Graph.from_edges(src, dst, labels=labels)
    assert src.tolist() == [3, 1, 0] and dst.tolist() == [1, 3, 2] and labels == [["b", "a"], ["c"], []]
    G = nx.path_graph(4)
    nx.set_edge_attributes(G, {(0, 1): ["x"]}, "words")
    before = nx.to_dict_of_dicts(G)
    Graph.from_networkx(G, labels="words")
    assert nx.to_dict_of_dicts(G) == before


def test_self_loops_rejected_or_dropped_on_request():
    with pytest.raises(ValueError, match="self-loop"):
        Graph.from_edges([0, 1], [0, 2])
    g = Graph.from_edges([0, 1], [0, 2], labels=[["loop"], ["ok"]], self_loops="drop")
    assert g.num_edges == 1 and g.vocabulary == ("ok",)
    with pytest.raises(ValueError, match="self_loops"):
        Graph.from_edges([0], [1], self_loops="keep")


def test_networkx_directed_and_multigraph_need_consent():
    D = nx.DiGraph([(0, 1), (1, 0), (1, 2)])
    with pytest.raises(ValueError, match="directed"):
        Graph.from_networkx(D)
    assert Graph.from_networkx(D, directed="ignore").num_edges == 2
    M = nx.MultiGraph([(0, 1), (0, 1)])
    with pytest.raises(ValueError, match="multigraph"):
        Graph.from_networkx(M)
    assert Graph.from_networkx(M, multiedges="merge").num_edges == 1
    L = nx.Graph([(0, 0), (0, 1)])
    with pytest.raises(ValueError, match="self-loop"):
        Graph.from_networkx(L)


def test_networkx_round_trip_with_labels():
    G = nx.Graph()
    G.add_edge("a", "b", words={"hi", "there"})
    G.add_edge("b", "c")
    G.add_node("z")
    g = Graph.from_networkx(G, labels="words")
    assert g.node_ids == ("a", "b", "c", "z") and g.is_labeled
    assert g.edge_labels(0, 1) == {"hi", "there"} and g.edge_labels(1, 2) == frozenset()
    back = g.to_networkx(label_attr="words")
    assert set(back.edges) == {("a", "b"), ("b", "c")} and back.edges["a", "b"]["words"] == {"hi", "there"}
    assert Graph.from_networkx(back, labels="words") == g


@pytest.mark.parametrize(
    "bad, err",
    [
        ("words", TypeError),  # a bare string is ambiguous
        ([1, 2], TypeError),
        (5, TypeError),
    ],
)
def test_bad_labels(bad, err):
    with pytest.raises(err, match="labels"):
        Graph.from_edges([0], [1], labels=[bad])


def test_bad_indices():
    with pytest.raises(TypeError, match="integer"):
        Graph.from_edges([0.5], [1])
    with pytest.raises(TypeError, match="integer"):
        Graph.from_edges(["a"], ["b"])
    with pytest.raises(ValueError, match="negative"):
        Graph.from_edges([-1], [1])
    with pytest.raises(ValueError, match="num_nodes"):
        Graph.from_edges([0], [5], num_nodes=3)
    with pytest.raises(ValueError, match="different lengths"):
        Graph.from_edges([0, 1], [1])
    with pytest.raises(ValueError, match="labels must hold one entry per edge"):
        Graph.from_edges([0, 1], [1, 2], labels=[["a"]])
    with pytest.raises(TypeError, match="networkx"):
        Graph.from_networkx([(0, 1)])


def test_from_arrays_matches_from_edges():
    rng = np.random.default_rng(0)
    n, e, p = 30, 120, 7
    src, dst = rng.integers(0, n, e), rng.integers(0, n, e)
    keep = src != dst
    src, dst = src[keep], dst[keep]
    dense = rng.random((src.size, p)) < 0.3
    vocab = [f"w{j}" for j in (6, 2, 4, 0, 1, 5, 3)]  # columns deliberately unsorted
    fast = Graph.from_arrays(src, dst, n, label_matrix=sp.csr_array(dense), vocabulary=vocab)
    slow = Graph.from_edges(src, dst, num_nodes=n, labels=[[vocab[j] for j in np.flatnonzero(row)] for row in dense])
    assert fast == slow


def test_equality_and_hash():
    a = Graph.from_edges([0, 1], [1, 2])
    b = Graph.from_edges([2, 1], [1, 0])
    assert a == b and hash(a) == hash(b)
    assert a != Graph.from_edges([0, 1], [1, 2], num_nodes=4)
    assert a != a.with_label_sets([[], []])


def test_matrices():
    g = Graph.from_networkx(nx.karate_club_graph())
    A = g.adjacency()
    assert (A != A.T).nnz == 0 and A.sum() == 2 * g.num_edges
    B = g.edge_adjacency()
    assert np.array_equal(B.sum(axis=0), g.degrees)


def test_repr_and_properties():
    g = dpg.Graph.from_edges([0], [1], labels=[["x"]])
    assert repr(g) == "Graph(num_nodes=2, num_edges=1, labeled=True)"
    assert g.has_edge(1, 0) and not g.has_edge(0, 0)
    with pytest.raises(KeyError):
        g.edge_index(0, 0)


def test_sort_based_unique_matches_numpy():
    from opendp_graph.core._build import _unique_keys

    rng = np.random.default_rng(3)
    for size in (0, 1, 7, 1000):
        keys = rng.integers(0, 50, size).astype(np.int64)
        uniq, inv = _unique_keys(keys)
        assert np.array_equal(uniq, np.unique(keys))
        ref_uniq, ref_inv = np.unique(keys, return_inverse=True)
        assert np.array_equal(uniq, ref_uniq) and np.array_equal(inv, ref_inv.reshape(-1))


def test_node_indices_from_public_names():
    import networkx as nx

    g = dpg.Graph.from_networkx(nx.Graph([("ann", "bob"), ("bob", "cy")]))
    assert g.node_indices(["cy", "ann", "bob"]) == (2, 0, 1)
    assert g.node_indices([]) == ()
    with pytest.raises(KeyError, match="no node named 'dan'"):
        g.node_indices(["ann", "dan"])
    with pytest.raises(TypeError, match="collection of node names"):
        g.node_indices("ann")
    plain = dpg.Graph.from_edges([0, 1], [1, 2])
    assert plain.node_indices([2, np.int64(0)]) == (2, 0)
    for bad in (3, -1, True, "0"):
        with pytest.raises(KeyError, match="no node"):
            plain.node_indices([bad])
    # the Blowfish use: VIPs by name
    policy = dpg.BlowfishPolicy.attribute(vip=g.node_indices(["bob"]))
    assert policy.vip == (1,)


def test_label_matrix_is_stored_with_32_bit_indices_when_they_fit():
    """Issue 18: 8 bytes per labelled pair less at rest, the same values."""
    from opendp_graph.core.graph import _compact_index

    g = Graph.from_edges([0, 0, 1], [1, 2, 2], labels=[["b", "a"], [], ["c"]])
    assert g.labels.indices.dtype == np.int32 and g.labels.indptr.dtype == np.int32
    assert g.label_sets() == [frozenset({"a", "b"}), frozenset(), frozenset({"c"})]
    wide = sp.csr_array((np.ones(2, dtype=bool), np.array([0, 2**31 + 3]), np.array([0, 2])), shape=(1, 2**31 + 5))
    assert _compact_index(wide).indices.dtype == np.int64  # an index beyond int32 keeps 64 bits
    assert np.array_equal(_compact_index(wide).indices, [0, 2**31 + 3])


@pytest.mark.parametrize("seed", range(25))
def test_from_arrays_compiled_build_equals_the_scipy_build(seed):
    """The compiled label build of ``Graph.from_arrays`` (counting sort by canonical edge, rows
    sorted, repeats dropped) gives exactly SciPy's COO → CSR conversion of the same labels:
    duplicate and reversed edges with their labels united, repeated and explicitly zero entries,
    unused columns, int32 or int64 COO indices; and equals the graph built from Python label sets."""
    rng = np.random.default_rng(seed)
    n, m, P = int(rng.integers(2, 25)), int(rng.integers(1, 150)), int(rng.integers(1, 60))
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    keep = src != dst
    src, dst = src[keep], dst[keep]
    pairs = int(rng.integers(0, 4 * src.size + 1))
    rows, cols = rng.integers(0, max(src.size, 1), pairs), rng.integers(0, P, pairs)
    if seed % 3 == 0 and src.size:  # one edge with many labels, repeated, in any order (a sort, not the short path)
        extra = rng.permutation(np.repeat(np.arange(P), 2))
        rows, cols = np.concatenate([rows, np.zeros(extra.size, dtype=np.int64)]), np.concatenate([cols, extra])
        pairs = rows.size
    data = rng.choice([0, 1, 1, 1], size=pairs).astype(rng.choice([bool, np.int8, np.float64]))
    index = rng.choice([np.int32, np.int64])
    coo = sp.coo_array((data, (rows.astype(index), cols.astype(index))), shape=(src.size, P))
    vocab = [f"w{j:02d}" for j in rng.permutation(P)]
    a = Graph.from_arrays(src, dst, n, label_matrix=coo, vocabulary=vocab)
    # the reference: SciPy's COO → CSR of the labels, each input edge at its canonical edge and
    # each column at its word's rank, repeats summed away
    edge_of = {pair: i for i, pair in enumerate(zip(a.src.tolist(), a.dst.tolist()))}
    inverse = np.array([edge_of[min(x, y), max(x, y)] for x, y in zip(src.tolist(), dst.tolist())], dtype=np.int64)
    rank = np.argsort(np.argsort(np.asarray(vocab, dtype=object)))
    keep = coo.data != 0
    b = sp.csr_array((np.ones(int(keep.sum()), dtype=bool), (inverse[coo.row[keep]], rank[coo.col[keep]])), shape=a.labels.shape)
    b.sum_duplicates()
    assert np.array_equal(a.labels.indptr, b.indptr) and np.array_equal(a.labels.indices, b.indices)
    assert a.labels.has_sorted_indices and a.labels.data.all()
    sets = [set() for _ in range(src.size)]
    for r, c, d in zip(rows.tolist(), cols.tolist(), data.tolist()):
        if d:
            sets[r].add(vocab[c])
    if src.size and any(sets):
        assert a == Graph.from_edges(src, dst, num_nodes=n, labels=[sorted(x) for x in sets])


@pytest.mark.parametrize("seed", range(30))
def test_compiled_canonical_edges_equal_the_sort_of_the_keys(seed):
    """Issue 18: the compiled edge build (counting sort by the smaller endpoint, each node's run
    sorted, repeats merged) gives exactly the sort of the keys ``min·n + max`` (the build of
    graphs of mostly isolated nodes): same edges, same position of every input edge, for int32,
    int64 and mixed inputs, hubs whose runs take the library sort (> 16 edges), repeated and
    reversed edges, and no edge at all."""
    from opendp_graph.core._build import _canonical_edges, _canonical_edges_by_sort

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 80))
    m = int(rng.integers(0, 600)) if seed else 0
    u, v = rng.integers(0, n, m), rng.integers(0, n, m)
    if seed % 3 == 0 and m:
        u[: m // 2] = int(rng.integers(0, n))  # a hub: a long run of one smaller (or larger) endpoint
    keep = u != v
    u, v = u[keep], v[keep]
    u = u.astype([np.int32, np.int64][seed % 2])
    v = v.astype([np.int32, np.int64][(seed // 2) % 2])
    assert n <= 2 * u.size + 1024  # the compiled build, not the sort
    (src, dst, inverse), (src0, dst0, inverse0) = _canonical_edges(u, v, n), _canonical_edges_by_sort(u, v, n)
    assert src.dtype == dst.dtype == np.int64
    assert np.array_equal(src, src0) and np.array_equal(dst, dst0) and np.array_equal(inverse, inverse0)
    pairs = sorted({(min(a, b), max(a, b)) for a, b in zip(u.tolist(), v.tolist())})
    assert list(zip(src.tolist(), dst.tolist())) == pairs
    assert all(pairs[inverse[i]] == (min(a, b), max(a, b)) for i, (a, b) in enumerate(zip(u.tolist(), v.tolist())))


def test_builds_agree_across_input_widths():
    """from_edges (with label lists) gives the same graph from int32 and int64 endpoints; the
    sparse-node case (isolated nodes outnumber the edges) takes the sort path and agrees too."""
    rng = np.random.default_rng(7)
    n, m = 300, 2000
    u, v = rng.integers(0, n, m), rng.integers(0, n, m)
    keep = u != v
    u, v = u[keep], v[keep]
    words = [f"w{i}" for i in range(12)]
    lists = [list(rng.choice(words, int(rng.integers(0, 4)))) for _ in range(u.size)]
    graphs = []
    for width in (np.int32, np.int64):
        graphs.append(Graph.from_edges(u.astype(width), v.astype(width), n, labels=lists))
        graphs.append(Graph.from_edges(u.astype(width), v.astype(width), 10**7, labels=lists))
    assert all(g == graphs[0] or g.num_nodes == 10**7 for g in graphs)
    assert all(g.edges.tolist() == graphs[0].edges.tolist() and g.label_sets() == graphs[0].label_sets() for g in graphs)


def test_32_bit_endpoints_are_read_without_a_64_bit_copy():
    from opendp_graph.core._build import _as_index_array

    a = np.arange(5, dtype=np.int32)
    assert _as_index_array(a, "src", copy=False) is a
    assert _as_index_array(a, "src").dtype == np.int64  # a fresh int64 array otherwise
    assert _as_index_array(a.astype(np.uint32), "src", copy=False).dtype == np.int64
    with pytest.raises(ValueError, match="negative node index"):
        _as_index_array(np.array([0, -1], dtype=np.int32), "src", copy=False)
