"""The Enron loaders: shapes, an independent plain-Python rebuild of the graph, the tokeniser."""

import csv
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import opendp_graph as dpg
from opendp_graph.datasets.enron import subject_ngrams, tokenize_subject


@pytest.fixture(scope="module")
def enron_dir(shared_data) -> Path:
    folder = shared_data / "enron-perry-wolfe"
    if not folder.is_dir():
        pytest.skip("Enron data not available")
    return folder


@pytest.fixture(scope="module")
def enron(enron_dir):
    return dpg.datasets.load_enron(enron_dir)


def test_messages_frame(enron_dir):
    frame = dpg.datasets.load_enron_messages(enron_dir)
    assert frame.columns == ["message_id", "time", "subject", "sender", "recipient"]
    assert frame.schema["time"] == pl.Datetime("us", "UTC")
    assert frame.height == 38388
    assert frame["message_id"].n_unique() == 21635
    assert frame.filter(pl.col("subject").is_null())["message_id"].n_unique() == 1030
    assert frame["sender"].min() >= 1 and frame["recipient"].max() <= 156
    # first message of the file: id 1, unix 910930020, "Cd$ CME letter", 138 -> 59
    first = frame.row(0, named=True)
    assert first["message_id"] == 1 and first["sender"] == 138 and first["recipient"] == 59
    assert first["subject"] == "Cd$ CME letter"
    assert int(first["time"].timestamp()) == 910930020


def test_graph_shape(enron):
    assert enron.num_nodes == 156
    assert enron.num_edges == 1843
    assert enron.node_ids == tuple(range(1, 157))
    assert enron.is_labeled


def test_graph_matches_plain_python_rebuild(enron_dir, enron):
    """Rebuild the labelled edge list with the csv module and dicts, and compare exactly."""
    with open(enron_dir / "messages.tsv", newline="") as fh:
        msgs = {int(r[0]): (r[3], int(r[4])) for r in csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)}
    expected: dict[tuple[int, int], set[str]] = {}
    with open(enron_dir / "recipients.tsv", newline="") as fh:
        for mid, _pos, rec in csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
            subject, sender = msgs[int(mid)]
            rec = int(rec)
            if rec == sender:
                continue
            key = (min(sender, rec), max(sender, rec))
            expected.setdefault(key, set()).update(subject_ngrams(subject or None))
    ids = enron.node_ids
    got = {
        (ids[a], ids[b]): set(labels)
        for (a, b), labels in zip(enron.edges.tolist(), enron.label_sets())
    }
    assert got == expected


def test_tokenizer_rules():
    assert tokenize_subject("RE: Fw: fwd:  Gas   Prices!!") == ["gas", "prices"]
    assert tokenize_subject("Re[2]: hello") == ["hello"]
    assert tokenize_subject("Coral Energy, L.P.") == ["coral", "energy", "l.p"]
    assert tokenize_subject("Are you there") == ["are", "you", "there"]  # 're' inside a word stays
    assert tokenize_subject("") == []
    assert subject_ngrams("a b c") == {"a", "b", "c", "a b", "b c"}
    assert subject_ngrams("x") == {"x"}
    with pytest.raises(TypeError, match="subject must be a string"):
        tokenize_subject(3)


def test_bad_paths(tmp_path):
    with pytest.raises(FileNotFoundError, match="not found"):
        dpg.datasets.load_enron(tmp_path / "nope")
    with pytest.raises(FileNotFoundError, match="lacks"):
        dpg.datasets.load_enron(tmp_path)
    with pytest.raises(TypeError, match="path must be"):
        dpg.datasets.load_enron_messages(3)


def test_degrees_and_vocabulary(enron):
    assert enron.max_degree == int(np.max(enron.degrees))
    vocab = enron.vocabulary
    assert list(vocab) == sorted(vocab)
    assert all(w == w.lower() and w.strip() == w for w in vocab)


def test_ngram_orders():
    assert subject_ngrams("a b c", orders=(3,)) == {"a b c"}
    assert subject_ngrams("a b c", orders=(1, 3)) == {"a", "b", "c", "a b c"}
    assert subject_ngrams("a b", orders=(3,)) == set()
    for bad in [(0,), (), (1.5,), (True,)]:
        with pytest.raises(ValueError):
            subject_ngrams("a b", orders=bad)
    with pytest.raises(TypeError):
        subject_ngrams("a b", orders=3)


def test_graph_by_orders(enron_dir, enron):
    trigrams = dpg.datasets.load_enron(enron_dir, orders=(3,))
    unigrams = dpg.datasets.load_enron(enron_dir, orders=(1,))
    assert unigrams.vocabulary == dpg.datasets.load_enron(enron_dir, bigrams=False).vocabulary
    assert (trigrams.num_edges, len(unigrams.vocabulary), unigrams.labels.nnz, trigrams.labels.nnz) == (1843, 10767, 78413, 68928)
    assert all(len(w.split(" ")) == 3 for w in trigrams.vocabulary)
    both = dpg.datasets.load_enron(enron_dir, orders=(1, 2))
    assert both.vocabulary == enron.vocabulary and both.labels.nnz == enron.labels.nnz == 166308
