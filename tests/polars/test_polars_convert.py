"""Message tables <-> Graph: merging, direction, self-messages, labels, node sets, real data."""

import itertools
import random

import numpy as np
import opendp.prelude as dp
import polars as pl
import pytest

import opendp_graph as dpg
from opendp_graph.polars import graph_from_polars, graph_to_polars
from opendp_graph.verify.testing import all_graphs, all_labelings


def test_messages_on_one_pair_become_one_edge_with_united_labels():
    log = pl.DataFrame(
        {
            "from": ["a", "b", "a", "a", "c"],
            "to": ["b", "a", "b", "c", "b"],
            "words": [["hi"], ["re", "hi"], [], None, ["x"]],
        }
    )
    g = graph_from_polars(log, src="from", dst="to", labels="words", nodes=["a", "b", "c"])
    assert g.node_ids == ("a", "b", "c")
    assert g.edges.tolist() == [[0, 1], [0, 2], [1, 2]]
    assert g.label_sets() == [frozenset({"hi", "re"}), frozenset(), frozenset({"x"})]
    # the same from a LazyFrame
    assert graph_from_polars(log.lazy(), src="from", dst="to", labels="words", nodes=["a", "b", "c"]) == g
    assert graph_from_polars(log, src="from", dst="to", labels="words", nodes="from data") == g


def test_string_label_column_and_nulls():
    log = pl.DataFrame({"s": [1, 2, 1], "r": [2, 1, 3], "w": ["x", None, "y"]})
    g = graph_from_polars(log, "s", "r", labels="w", nodes=[1, 2, 3])
    assert g.label_sets() == [frozenset({"x"}), frozenset({"y"})]


def test_direction_mutual_keeps_reciprocated_pairs_only():
    log = pl.DataFrame({"s": [1, 2, 1, 3, 3], "r": [2, 1, 3, 4, 4], "w": ["a", "b", "c", "d", "e"]})
    g = graph_from_polars(log, "s", "r", labels="w", directed="mutual", nodes=[1, 2, 3, 4])
    assert [tuple(g.node_ids[i] for i in e) for e in g.edges.tolist()] == [(1, 2)]
    assert g.label_sets() == [frozenset({"a", "b"})]
    assert g.num_nodes == 4  # the people are still all there
    assert graph_from_polars(log, "s", "r", nodes=[1, 2, 3, 4]).num_edges == 3


def test_self_messages_error_by_default_and_drop_on_request():
    log = pl.DataFrame({"s": [1, 2, 2], "r": [2, 2, 3], "w": ["a", "self", "b"]})
    with pytest.raises(ValueError, match="the table has self-messages"):
        graph_from_polars(log, "s", "r", nodes=[1, 2, 3])
    g = graph_from_polars(log, "s", "r", labels="w", self_loops="drop", nodes="from data")
    assert g.num_edges == 2 and "self" not in g.vocabulary
    assert g.num_nodes == 3  # a person seen only in a self-message is still a node


def test_public_node_list():
    log = pl.DataFrame({"s": ["b"], "r": ["c"]})
    g = graph_from_polars(log, "s", "r", nodes=["a", "b", "c", "d"])
    assert g.node_ids == ("a", "b", "c", "d") and g.edges.tolist() == [[1, 2]]
    with pytest.raises(ValueError, match=r"^a row names someone who is not in nodes"):
        graph_from_polars(log, "s", "r", nodes=["a", "b"])
    with pytest.raises(ValueError, match="not distinct"):
        graph_from_polars(log, "s", "r", nodes=["b", "b", "c"])


def test_argument_errors():
    log = pl.DataFrame({"s": [1, None], "r": [2, 3], "n": [1, 2]})
    people = [1, 2, 3]
    with pytest.raises(TypeError, match="polars DataFrame or LazyFrame"):
        graph_from_polars({"s": [1]}, "s", "r", nodes=people)
    with pytest.raises(ValueError, match="column 'x' is not in the frame"):
        graph_from_polars(log, "x", "r", nodes=people)
    with pytest.raises(ValueError, match="contain nulls"):
        graph_from_polars(log, "s", "r", nodes=people)
    with pytest.raises(ValueError, match="contain nulls"):
        graph_from_polars(log, "s", "r", nodes="from data")
    with pytest.raises(TypeError, match="String or List"):
        graph_from_polars(log.drop_nulls(), "s", "r", labels="n", nodes=people)
    with pytest.raises(ValueError, match="directed must be"):
        graph_from_polars(log, "s", "r", directed="keep", nodes=people)
    with pytest.raises(ValueError, match="self_loops must be"):
        graph_from_polars(log, "s", "r", self_loops="keep", nodes=people)
    with pytest.raises(ValueError, match="same column"):
        graph_from_polars(log, "s", "s", nodes=people)
    with pytest.raises(TypeError, match="Graph"):
        graph_to_polars(log)


def test_round_trip_on_every_small_labelled_graph():
    """Every labelling by subsets of {p, q} of every graph on 4 nodes with at most 2 edges, and of
    every third labelling of those with 3 edges (all of them: 1,545 round trips, 13 s, before)."""
    for g in all_graphs(4):
        if g.num_edges > 3:
            continue
        labellings = list(all_labelings(g, ["p", "q"]))
        for labelled in labellings if g.num_edges <= 2 else labellings[::3]:
            table = graph_to_polars(labelled)
            back = graph_from_polars(table, labels="labels", nodes=range(labelled.num_nodes))
            assert back.node_ids == tuple(range(labelled.num_nodes))  # the people become the node ids
            assert np.array_equal(back.edge_keys, labelled.edge_keys)
            assert back.label_sets() == labelled.label_sets()
    # named nodes and an unlabeled graph
    g = dpg.Graph.from_edges([0, 2], [1, 3], node_ids=["w", "x", "y", "z"])
    table = graph_to_polars(g)
    assert table.columns == ["src", "dst"]
    assert graph_from_polars(table, nodes=g.node_ids) == g


def test_random_logs_match_a_plain_python_construction():
    rng = random.Random(7)
    for _ in range(30):
        people = list(range(rng.randint(2, 8)))
        rows = [(rng.choice(people), rng.choice(people), rng.choice(["a", "b", "c", None])) for _ in range(rng.randint(0, 25))]
        rows = [r for r in rows if r[0] != r[1]]
        log = pl.DataFrame(rows, schema={"s": pl.Int64, "r": pl.Int64, "w": pl.String}, orient="row")
        g = graph_from_polars(log, "s", "r", labels="w", nodes=people)
        expected: dict = {}
        for s, r, w in rows:
            expected.setdefault((min(s, r), max(s, r)), set()).update([w] if w else [])
        got = {tuple(e): lab for e, lab in zip(g.edges.tolist(), g.label_sets())}
        assert got == {k: frozenset(v) for k, v in expected.items()}


def test_edge_table_symmetric_distance_is_edge_distance():
    """One row per edge (graph_to_polars): OpenDP's symmetric distance between two edge tables
    equals EdgeDistance between the graphs, on every pair of small labelled graphs."""
    graphs = [lab for g in all_graphs(3) for lab in all_labelings(g, ["p"])]
    metric = dpg.EdgeDistance()
    for g1, g2 in itertools.product(graphs, repeat=2):
        r1 = {(a, b, tuple(l)) for a, b, l in graph_to_polars(g1).rows()}
        r2 = {(a, b, tuple(l)) for a, b, l in graph_to_polars(g2).rows()}
        assert len(r1 ^ r2) == metric.distance(g1, g2)


def test_enron_graph_from_the_message_table_matches_the_loader(shared_data):
    folder = shared_data / "enron-perry-wolfe"
    log = dpg.datasets.load_enron_messages(folder)
    subjects = log.select("subject").unique().with_columns(
        ngrams=pl.col("subject").map_elements(lambda s: sorted(dpg.datasets.subject_ngrams(s)), return_dtype=pl.List(pl.String))
    )
    log = log.join(subjects, on="subject", how="left", nulls_equal=True)
    g = graph_from_polars(log, src="sender", dst="recipient", labels="ngrams", nodes=range(1, 157))
    assert (g.num_nodes, g.num_edges) == (156, 1843)
    assert g == dpg.datasets.load_enron(folder)


def test_email_eu_core_loaders(shared_data):
    folder = shared_data / "email-eu-core"
    log = dpg.datasets.load_email_eu_core_messages(folder)
    assert log.columns == ["sender", "recipient", "sender_department", "recipient_department"]
    assert log.height == 25_571
    assert int((log["sender"] == log["recipient"]).sum()) == 642
    departments = dpg.datasets.load_email_eu_core_departments(folder)
    assert departments.height == 1005 and departments["department"].n_unique() == 42
    g = dpg.datasets.load_email_eu_core(folder)
    assert (g.num_nodes, g.num_edges) == (1005, 16_064)
    assert g.node_ids == tuple(range(1005))
    # departments joined correctly
    lookup = dict(departments.rows())
    sample = log.sample(200, seed=1)
    assert all(lookup[s] == d for s, d in zip(sample["sender"], sample["sender_department"]))
    # the graph agrees with networkx on the raw edge list
    import networkx as nx

    raw = np.loadtxt(folder / "email-Eu-core.txt", dtype=np.int64)
    ref = nx.Graph()
    ref.add_nodes_from(range(1005))
    ref.add_edges_from((int(a), int(b)) for a, b in raw if a != b)
    assert dpg.Graph.from_networkx(ref) == g
    with pytest.raises(FileNotFoundError):
        dpg.datasets.load_email_eu_core(folder / "missing")


def test_empty_tables_and_id_dtypes():
    empty = pl.DataFrame({"s": [], "r": [], "w": []}, schema={"s": pl.Int64, "r": pl.Int64, "w": pl.String})
    g = graph_from_polars(empty, "s", "r", labels="w", nodes="from data")
    assert (g.num_nodes, g.num_edges, g.vocabulary) == (0, 0, ())
    empty_text = empty.cast({"s": pl.String, "r": pl.String})
    g = graph_from_polars(empty_text, "s", "r", nodes=["x", "y"])
    assert g.num_nodes == 2 and graph_to_polars(g).schema == pl.Schema({"src": pl.String, "dst": pl.String})
    # public node ids of another kind than the columns can never match a row: refused, even on an empty table
    with pytest.raises(TypeError, match="nodes must be integers, like the Int64 columns"):
        graph_from_polars(empty, "s", "r", nodes=["x", "y"])
    mixed = dpg.Graph.from_edges([0], [1], num_nodes=2, node_ids=["x", 3])
    assert graph_to_polars(mixed).rows() == [("x", 3)]
    # ... and that table (a String column beside an Int64 one) does not come back silently
    with pytest.raises(TypeError, match="one id type in both columns"):
        graph_from_polars(graph_to_polars(mixed), nodes="from data")
    assert graph_to_polars(dpg.Graph.from_edges([0], [1], node_ids=["x", "y"]), node_ids=False).rows() == [(0, 1)]


def test_id_columns_of_two_types_are_refused():
    """An int sender column and a str recipient column: is 1 the person "1"? Refused (TypeError)
    with and without a node list; with nodes=[1, 2, "2", "3"] it used to build a graph."""
    log = pl.DataFrame({"s": [1, 2], "r": ["2", "3"]})
    for kwargs in ({"nodes": "from data"}, {"nodes": [1, 2, "2", "3"]}):
        with pytest.raises(TypeError, match=r"src column 's' has dtype Int64 but the dst column 'r' has dtype String"):
            graph_from_polars(log, "s", "r", **kwargs)
    with pytest.raises(TypeError, match="one id type"):
        graph_from_polars(pl.DataFrame({"s": [1], "r": [2]}, schema={"s": pl.Int32, "r": pl.Int64}), "s", "r", nodes=[1, 2])


def test_float_ids_are_refused():
    """Decision: float ids are refused, NaN or not. NaN is not equal to itself (it used to
    become a person, or "not in nodes"), -0.0 equals 0.0, and 1.0 vs 1: convert to integers."""
    nan = float("nan")
    for log in (
        pl.DataFrame({"s": [1.0, nan], "r": [2.0, 3.0]}),
        pl.DataFrame({"s": [1.0, 2.0], "r": [2.0, 3.0]}),  # whole numbers: still a float column
        pl.DataFrame({"s": [1, 2], "r": [2.0, 3.0]}),
    ):
        with pytest.raises(TypeError, match="not floats"):
            graph_from_polars(log, "s", "r", nodes="from data")
    with pytest.raises(TypeError, match="not floats"):
        graph_from_polars(pl.DataFrame({"s": [-0.0], "r": [0.0]}), "s", "r", nodes=[0.0])
    g = graph_from_polars(pl.DataFrame({"s": [1.0, 2.0], "r": [2.0, 3.0]}).cast(pl.Int64), "s", "r", nodes=[1, 2, 3])
    assert g.node_ids == (1, 2, 3)


def test_node_ids_of_another_kind_are_refused():
    """Public node ids must be of the columns' kind: True == 1 and 1.0 == 1 in Python, so a node
    list [True, 2] used to name the person 1 True."""
    log = pl.DataFrame({"s": [1], "r": [2]})
    with pytest.raises(TypeError, match=r"nodes must be integers, like the Int64 columns 's'/'r'; got True \(bool\)"):
        graph_from_polars(log, "s", "r", nodes=[True, 2])
    with pytest.raises(TypeError, match=r"got 1.0 \(float\)"):
        graph_from_polars(log, "s", "r", nodes=[1.0, 2])
    with pytest.raises(TypeError, match="nodes must be strings"):
        graph_from_polars(log.cast(pl.String), "s", "r", nodes=["1", 2])
    assert graph_from_polars(log, "s", "r", nodes=np.arange(1, 4)).node_ids == (1, 2, 3)
    assert graph_from_polars(log.cast(pl.String).cast(pl.Categorical), "s", "r", nodes=["1", "2"]).node_ids == ("1", "2")


def test_the_node_set_must_be_public():
    """Finding 6: without nodes= the node set was read from the private table. Removing one
    pair's messages (eve's only one) then removed eve: the graphs were at EdgeDistance inf and
    every later node index moved. Now nodes= is required, and "from data" is an explicit opt-in."""
    log = pl.DataFrame({"s": ["ann", "bob", "eve"], "r": ["bob", "cy", "bob"]})
    without_eve = log.filter(pl.col("s") != "eve")  # one pair's messages removed
    for table in (log, without_eve):
        with pytest.raises(TypeError, match=r'needs nodes=, the public list of people.*nodes="from data"'):
            graph_from_polars(table, "s", "r")
    people = ["ann", "bob", "cy", "dee", "eve"]
    g, h = graph_from_polars(log, "s", "r", nodes=people), graph_from_polars(without_eve, "s", "r", nodes=people)
    assert g.node_ids == h.node_ids == tuple(people)
    assert dpg.EdgeDistance().distance(g, h) == 1
    # a release on the public node set: the neighbours are covered at the edge-level epsilon
    dp.enable_features("contrib", "honest-but-curious")
    count = dpg.make_edge_count(dpg.graph_domain(), dpg.edge_distance()) >> dp.m.then_laplace(scale=1.0)
    assert isinstance(count(g), int) and count.map(dpg.EdgeDistance().distance(g, h)) == pytest.approx(1.0)
    # the opt-in: disclosed, and not covered by any guarantee (the node sets differ)
    g_data = graph_from_polars(log, "s", "r", nodes="from data")
    h_data = graph_from_polars(without_eve, "s", "r", nodes="from data")
    assert g_data.node_ids == ("ann", "bob", "cy", "eve") and h_data.node_ids == ("ann", "bob", "cy")
    assert dpg.EdgeDistance().distance(g_data, h_data) == float("inf")
    with pytest.raises(ValueError, match="public list of people or 'from data'"):
        graph_from_polars(log, "s", "r", nodes="from_data")


def test_graph_to_polars_suggests_the_conversion():
    """Finding 7: the "expected a Graph" message is the package's shared one, with the hint."""
    with pytest.raises(TypeError, match=r"^expected an opendp_graph\.Graph, got polars\.DataFrame; convert it with dpg\.polars\.graph_from_polars"):
        graph_to_polars(pl.DataFrame({"src": [0], "dst": [1]}))
    with pytest.raises(TypeError, match=r"^expected an opendp_graph\.Graph, got list$"):
        graph_to_polars([(0, 1)])


def test_people_outside_nodes_are_neither_counted_nor_named():
    """Finding 8: "the table names 'eve', who is not in nodes" named a person of the private
    table; issue 39: "2 row(s) name people ..." counted them. The message is now the same
    whoever the outsiders are and however many rows name them."""
    staff = ["ann", "bob", "cy"]
    messages = set()
    for outsider, rows in (("eve", 1), ("mallory", 2), ("zed", 5)):
        log = pl.DataFrame({"s": ["ann"] + [outsider] * rows, "r": ["bob"] + ["cy"] * rows})
        with pytest.raises(ValueError, match=r"^a row names someone who is not in nodes") as info:
            graph_from_polars(log, "s", "r", nodes=staff)
        assert outsider not in str(info.value)
        messages.add(str(info.value))
    assert len(messages) == 1


def _plain_python_graph(rows, people, directed):
    """The graph of a message log by a plain Python construction (the reference for the
    vectorised conversion): a dict from person to index, self-messages dropped, reciprocated
    pairs only when directed="mutual", labels united per pair."""
    index = {p: i for i, p in enumerate(people)}
    pairs = {(index[s], index[r]) for s, r, _ in rows if s != r}
    united: dict = {}
    for s, r, words in rows:
        if s == r or (directed == "mutual" and (index[r], index[s]) not in pairs):
            continue
        key = (min(index[s], index[r]), max(index[s], index[r]))
        united.setdefault(key, set()).update(w for w in (words or []) if w is not None)
    edges = sorted(united)
    return dpg.Graph.from_edges(
        [a for a, _ in edges], [b for _, b in edges], num_nodes=len(people),
        labels=[sorted(united[e]) for e in edges], node_ids=people,
    )


# seeds 0–6 (every id dtype once) by default, 7–11 in the thorough tier
@pytest.mark.parametrize("seed", [s if s < 7 else pytest.param(s, marks=pytest.mark.thorough) for s in range(12)])
def test_vectorised_conversion_equals_a_plain_python_construction(seed):
    """Every id dtype (narrow, unsigned, wide values, text, Categorical, Enum), list or string
    labels with null lists, null and repeated elements, both direction modes, public nodes with
    people who never write (and an id the column cannot hold), and nodes read from the data."""
    rng = random.Random(seed)
    kind = ["Int8", "UInt8", "Int64", "UInt64", "String", "Categorical", "Enum"][seed % 7]
    if kind in ("String", "Categorical", "Enum"):
        universe = ["ann", "bob", "cy", "dé", "ε", "zoë", "Bob"]
    elif kind == "UInt64":
        universe = [0, 1, 2**63 + 5, 2**64 - 1, 17, 300]
    elif kind == "UInt8":
        universe = [0, 1, 2, 255, 17, 9]
    else:
        universe = [-128, -1, 0, 5, 127, 3]
    dtype = {"Int8": pl.Int8, "UInt8": pl.UInt8, "Int64": pl.Int64, "UInt64": pl.UInt64, "String": pl.String,
             "Categorical": pl.Categorical, "Enum": pl.Enum(universe if kind == "Enum" else ["x"])}[kind]
    for _ in range(8):
        writers = rng.sample(universe, rng.randint(2, len(universe)))
        rows = []
        for _ in range(rng.randint(0, 30)):
            words = rng.choice([None, [], ["a"], ["b", "a", "a"], [None, "c"], ["é", "b"]])
            rows.append((rng.choice(writers), rng.choice(writers), words))
        log = pl.DataFrame(
            {"s": [r[0] for r in rows], "r": [r[1] for r in rows], "w": [r[2] for r in rows]},
            schema={"s": dtype, "r": dtype, "w": pl.List(pl.String)},
        )
        extra = [] if kind in ("String", "Categorical", "Enum") else [10**30]  # an id no integer column holds
        nodes = sorted(set(writers), key=str) + [p for p in universe if p not in writers] + extra
        for directed in ("ignore", "mutual"):
            got = graph_from_polars(log, "s", "r", labels="w", nodes=nodes, directed=directed, self_loops="drop")
            assert got == _plain_python_graph(rows, nodes, directed)
            assert got.node_ids == tuple(nodes)
        loops = [r for r in rows if r[0] != r[1]]
        if loops:
            people = sorted({p for r in loops for p in r[:2]})
            log2 = log.filter(pl.col("s").cast(pl.String) != pl.col("r").cast(pl.String))
            got = graph_from_polars(log2, "s", "r", labels="w", nodes="from data")
            assert got == _plain_python_graph(loops, people, "ignore")
        # a string label column: one label per row, nulls carry none
        flat = log.with_columns(pl.col("w").list.first())
        got = graph_from_polars(flat, "s", "r", labels="w", nodes=nodes, self_loops="drop")
        assert got == _plain_python_graph([(s, r, [w[0]] if w else None) for s, r, w in rows], nodes, "ignore")


def test_label_lists_refuse_like_plain_rows():
    """One streaming query gives a row per (message, label): the errors say what is wrong, never how many."""
    log = pl.DataFrame({"s": ["ann", "eve", "bob", "cy"], "r": ["bob", "cy", "bob", "cy"],
                        "w": [["a", "b"], ["x", "y", "z"], ["q", "r", "s"], None]})
    with pytest.raises(ValueError, match=r"^a row names someone who is not in nodes"):
        graph_from_polars(log, "s", "r", labels="w", nodes=["ann", "bob", "cy"], self_loops="drop")
    with pytest.raises(ValueError, match=r"^the table has self-messages \(sender == recipient\)"):
        graph_from_polars(log, "s", "r", labels="w", nodes=["ann", "bob", "cy", "eve"])
    with_null = log.with_columns(pl.when(pl.col("s") == "eve").then(None).otherwise(pl.col("s")).alias("s"))
    with pytest.raises(ValueError, match="contain nulls"):  # a null id is told apart from an outsider
        graph_from_polars(with_null, "s", "r", labels="w", nodes=["ann", "bob", "cy"], self_loops="drop")
    g = graph_from_polars(log, "s", "r", labels="w", nodes=["ann", "bob", "cy", "eve"], self_loops="drop")
    assert g.label_sets() == [frozenset({"a", "b"}), frozenset({"x", "y", "z"})] and g.vocabulary == ("a", "b", "x", "y", "z")


def test_a_frame_that_changes_between_evaluations_is_refused_not_mislabelled():
    """The vocabulary is read by a query of its own; if the frame then gives other words (a
    nondeterministic upstream), the conversion refuses rather than drop or misplace labels."""
    calls = []

    def words(series):
        calls.append(1)
        return pl.Series(["a", "b"] if len(calls) == 1 else ["a", "zz"])

    log = pl.LazyFrame({"s": [0, 1], "r": [1, 2], "w": ["?", "?"]}).with_columns(pl.col("w").map_batches(words, return_dtype=pl.String))
    with pytest.raises(RuntimeError, match="different rows when evaluated twice"):
        graph_from_polars(log, "s", "r", labels="w", nodes=[0, 1, 2])


def test_a_frame_that_keeps_its_first_groups_is_read_as_written():
    """Red team of issue 18: with unordered joins downstream, Polars 1.36's order-observation
    pass dropped ``maintain_order=True`` from the user's group_by, so ``head(3)`` kept other
    groups (a wrong graph; with labels, words missing from the vocabulary). The conversion turns
    that pass off: the graph is the collected frame's, every time."""
    df = pl.DataFrame({"s": list(range(8)), "r": list(range(1, 9)), "w": list("abcdefgh")})
    lf = df.lazy().group_by(["s", "r"], maintain_order=True).agg(pl.col("w").first()).head(3)
    assert lf.collect().rows() == [(0, 1, "a"), (1, 2, "b"), (2, 3, "c")]
    once = lf.unique(maintain_order=True).head(2)
    for _ in range(20):
        g = graph_from_polars(lf, "s", "r", labels="w", nodes=list(range(9)))
        assert g.edges.tolist() == [[0, 1], [1, 2], [2, 3]] and g.label_sets() == [{"a"}, {"b"}, {"c"}]
        assert graph_from_polars(once, "s", "r", nodes=list(range(9))).edges.tolist() == [[0, 1], [1, 2]]
