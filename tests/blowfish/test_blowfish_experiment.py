"""The Deezer loader and the Blowfish reproduction, ``python -m reproductions blowfish`` (quick mode
on the real graphs)."""

import csv

import numpy as np
import pytest

import opendp_graph as dpg
from opendp_graph.datasets.deezer import load_deezer, load_deezer_genres
from reproductions import blowfish as experiment


def _write(folder, name, text):
    (folder / name).write_text(text, encoding="utf-8")


def test_loader_on_a_small_folder(tmp_path):
    _write(tmp_path, "XX_edges.csv", "node_1,node_2\n0,1\n1,2\n2,0\n1,0\n")
    _write(tmp_path, "XX_genres.json", '{"0": ["Pop", "Rock"], "1": ["Rock"], "2": ["Pop", "Rock"], "3": ["Jazz"]}')
    g = load_deezer(tmp_path, "xx")
    assert (g.num_nodes, g.num_edges, g.is_labeled) == (3, 3, False)
    labeled = load_deezer(tmp_path, "XX", labels="shared_genres")
    assert labeled.num_nodes == 4  # user 3 has genres but no friends
    assert labeled.edge_labels(0, 1) == {"Rock"} and labeled.edge_labels(0, 2) == {"Pop", "Rock"}
    assert load_deezer_genres(tmp_path, "XX")[3] == {"Jazz"}
    with pytest.raises(FileNotFoundError, match="YY_edges.csv"):
        load_deezer(tmp_path, "YY")
    with pytest.raises(ValueError, match="country"):
        load_deezer(tmp_path, "../XX")
    with pytest.raises(ValueError, match="labels"):
        load_deezer(tmp_path, "XX", labels="genres")
    _write(tmp_path, "ZZ_edges.csv", "a,b\n0,1\n")
    with pytest.raises(ValueError, match="header"):
        load_deezer(tmp_path, "ZZ")
    assert dpg.datasets.load_deezer is load_deezer


def test_loader_on_the_real_graphs(shared_data):
    folder = shared_data / "deezer"
    for country, n, m in (("HU", 47538, 222887), ("RO", 41773, 125826)):
        g = load_deezer(folder, country)
        assert (g.num_nodes, g.num_edges, g.max_degree) == (n, m, 112)


def test_simulated_changes_match_a_direct_computation():
    rng = np.random.default_rng(3)
    g = dpg.Graph.from_edges(*zip(*[(u, v) for u in range(30) for v in range(u + 1, 30) if rng.random() < 0.2]), num_nodes=30)
    degrees = g.degrees.astype(np.int64)
    adjacency = g.adjacency().toarray().astype(bool)
    for v in (0, 5):
        new = rng.random(30) < 0.5
        new[v] = False
        complete, cumulative = experiment._l1_changes(degrees, v, adjacency[v].copy(), new.copy())
        rows = adjacency.copy()
        rows[v, :] = rows[:, v] = new
        h1 = np.bincount(degrees, minlength=30)
        h2 = np.bincount(rows.sum(axis=1), minlength=30)
        assert complete == np.abs(h1 - h2).sum()
        assert cumulative == np.abs(np.cumsum(h1) - np.cumsum(h2)).sum()


def test_discrete_laplace_variance():
    # exact sum over the support, against the closed form
    t = 3.0
    x = np.arange(-400, 401)
    p = np.exp(-np.abs(x) / t)
    assert experiment.discrete_laplace_variance(t) == pytest.approx((p * x**2).sum() / p.sum())
    assert experiment.discrete_laplace_variance(100.0) == pytest.approx(2 * 100.0**2 - 1 / 6, rel=1e-6)


@pytest.mark.thorough  # the experiment's quick reproduction (3 s)
def test_reproduce_quick(shared_data, tmp_path, capsys):
    code = experiment.main(["--data", str(shared_data / "deezer"), "--quick", "--out", str(tmp_path)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "Sensitivity simulation" in printed and "Extrapolation" in printed

    def read(name):
        with (tmp_path / name).open() as handle:
            return list(csv.DictReader(handle))

    mse = read("blowfish_mse.csv")
    assert len(mse) == 2 * 4 * 2  # countries × (policy, histogram) × ε
    for row in mse:
        ratio = float(row["mse_measured"]) / float(row["mse_closed_form"])
        assert 0.2 < ratio < 3.0, row  # k = 2 releases of 113 bins: far inside these limits
        if row["policy"] == "full" and row["histogram"] == "cumulative":
            assert int(row["sensitivity"]) == int(row["n"]) + experiment.BINS - 1 > int(row["paper_sensitivity"])
    sim = read("blowfish_sensitivity.csv")
    for row in sim:
        assert int(row["max_l1_complete"]) <= int(row["derived_complete"])
        assert int(row["max_l1_cumulative"]) <= int(row["derived_cumulative"])
        if row["strategy"] == "take-out":
            assert int(row["max_l1_complete"]) <= int(row["takeout_bound"])
        if row["strategy"] == "flipped ego network":
            # the paper's cumulative figure n is exceeded on the real graphs
            assert int(row["max_l1_cumulative"]) > int(row["paper_cumulative"])
    extra = read("blowfish_extrapolation.csv")
    assert {row["vip_share"] for row in extra} == {"0.1", "0.5"}
    assert all(int(row["sensitivity"]) == 2 for row in extra)
    pngs = sorted(p.name for p in tmp_path.glob("*.png"))
    assert pngs == ["blowfish_extrapolation.png", "blowfish_mse.png", "blowfish_sensitivity.png"]


def test_reproduce_reports_missing_data(tmp_path, capsys):
    assert experiment.main(["--data", str(tmp_path), "--quick"]) == 2
    assert "HU_edges.csv" in capsys.readouterr().err
