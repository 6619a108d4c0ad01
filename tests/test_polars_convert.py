"""Message tables <-> Graph: merging, direction, self-messages, labels, node sets, real data."""

import itertools
import random

import numpy as np
import polars as pl
import pytest

import opendp_graph as dpg
from opendp_graph.polars import graph_from_polars, graph_to_polars
from opendp_graph.testing import all_graphs, all_labelings


def test_messages_on_one_pair_become_one_edge_with_united_labels():
    log = pl.DataFrame(
        {
            "from": ["a", "b", "a", "a", "c"],
            "to": ["b", "a", "b", "c", "b"],
            "words": [["hi"], ["re", "hi"], [], None, ["x"]],
        }
    )
    g = graph_from_polars(log, src="from", dst="to", labels="words")
    assert g.node_ids == ("a", "b", "c")
    assert g.edges.tolist() == [[0, 1], [0, 2], [1, 2]]
    assert g.label_sets() == [frozenset({"hi", "re"}), frozenset(), frozenset({"x"})]
    # the same through Graph.from_polars and a LazyFrame
    assert dpg.Graph.from_polars(log.lazy(), src="from", dst="to", labels="words") == g


def test_string_label_column_and_nulls():
    log = pl.DataFrame({"s": [1, 2, 1], "r": [2, 1, 3], "w": ["x", None, "y"]})
    g = graph_from_polars(log, "s", "r", labels="w")
    assert g.label_sets() == [frozenset({"x"}), frozenset({"y"})]


def test_direction_mutual_keeps_reciprocated_pairs_only():
    log = pl.DataFrame({"s": [1, 2, 1, 3, 3], "r": [2, 1, 3, 4, 4], "w": ["a", "b", "c", "d", "e"]})
    g = graph_from_polars(log, "s", "r", labels="w", directed="mutual")
    assert [tuple(g.node_ids[i] for i in e) for e in g.edges.tolist()] == [(1, 2)]
    assert g.label_sets() == [frozenset({"a", "b"})]
    assert g.num_nodes == 4  # the people are still all there
    assert graph_from_polars(log, "s", "r").num_edges == 3


def test_self_messages_error_by_default_and_drop_on_request():
    log = pl.DataFrame({"s": [1, 2, 2], "r": [2, 2, 3], "w": ["a", "self", "b"]})
    with pytest.raises(ValueError, match="1 self-message"):
        graph_from_polars(log, "s", "r")
    g = graph_from_polars(log, "s", "r", labels="w", self_loops="drop")
    assert g.num_edges == 2 and "self" not in g.vocabulary
    assert g.num_nodes == 3  # a person seen only in a self-message is still a node


def test_public_node_list():
    log = pl.DataFrame({"s": ["b"], "r": ["c"]})
    g = graph_from_polars(log, "s", "r", nodes=["a", "b", "c", "d"])
    assert g.node_ids == ("a", "b", "c", "d") and g.edges.tolist() == [[1, 2]]
    with pytest.raises(ValueError, match="'c', who is not in nodes"):
        graph_from_polars(log, "s", "r", nodes=["a", "b"])
    with pytest.raises(ValueError, match="not distinct"):
        graph_from_polars(log, "s", "r", nodes=["b", "b", "c"])


def test_argument_errors():
    log = pl.DataFrame({"s": [1, None], "r": [2, 3], "n": [1, 2]})
    with pytest.raises(TypeError, match="polars DataFrame or LazyFrame"):
        graph_from_polars({"s": [1]}, "s", "r")
    with pytest.raises(ValueError, match="column 'x' is not in the frame"):
        graph_from_polars(log, "x", "r")
    with pytest.raises(ValueError, match="contain nulls"):
        graph_from_polars(log, "s", "r")
    with pytest.raises(TypeError, match="String or List"):
        graph_from_polars(log.drop_nulls(), "s", "r", labels="n")
    with pytest.raises(ValueError, match="directed must be"):
        graph_from_polars(log, "s", "r", directed="keep")
    with pytest.raises(ValueError, match="self_loops must be"):
        graph_from_polars(log, "s", "r", self_loops="keep")
    with pytest.raises(ValueError, match="same column"):
        graph_from_polars(log, "s", "s")
    with pytest.raises(TypeError, match="Graph"):
        graph_to_polars(log)


def test_round_trip_on_every_small_labelled_graph():
    for g in all_graphs(4):
        if g.num_edges > 3:
            continue
        for labelled in all_labelings(g, ["p", "q"]):
            table = graph_to_polars(labelled)
            back = graph_from_polars(table, labels="labels", nodes=range(labelled.num_nodes))
            assert back.node_ids == tuple(range(labelled.num_nodes))  # the people become the node ids
            assert np.array_equal(back.edge_keys, labelled.edge_keys)
            assert back.label_sets() == labelled.label_sets()
    # named nodes and an unlabeled graph
    g = dpg.Graph.from_edges([0, 2], [1, 3], node_ids=["w", "x", "y", "z"])
    table = g.to_polars()
    assert table.columns == ["src", "dst"]
    assert dpg.Graph.from_polars(table, nodes=g.node_ids) == g


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
    g = dpg.Graph.from_polars(log, src="sender", dst="recipient", labels="ngrams", nodes=range(1, 157))
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
    g = graph_from_polars(empty, "s", "r", labels="w")
    assert (g.num_nodes, g.num_edges, g.vocabulary) == (0, 0, ())
    g = graph_from_polars(empty, "s", "r", nodes=["x", "y"])
    assert g.num_nodes == 2 and g.to_polars().schema == pl.Schema({"src": pl.String, "dst": pl.String})
    mixed = dpg.Graph.from_edges([0], [1], num_nodes=2, node_ids=["x", 3])
    assert mixed.to_polars().rows() == [("x", 3)]
    assert dpg.Graph.from_edges([0], [1], node_ids=["x", "y"]).to_polars(node_ids=False).rows() == [(0, 1)]
