"""`python -m reproductions pufferfish --quick` end to end, and the plotting helpers."""

import csv

import matplotlib
import pytest

matplotlib.use("Agg")

import opendp_graph as dpg  # noqa: E402
from opendp_graph.pufferfish import EdgeLevelModel, GlobalModel  # noqa: E402
from opendp_graph.pufferfish.plots import plot_bucket_table, plot_cdfs  # noqa: E402
from reproductions import pufferfish as experiment  # noqa: E402


@pytest.fixture(scope="module")
def enron_dir(shared_data):
    folder = shared_data / "enron-perry-wolfe"
    if not folder.is_dir():
        pytest.skip("Enron data not available")
    return folder


def read(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.thorough  # the experiment's quick reproduction (10 s); its pieces are tested by default
def test_quick_reproduction(enron_dir, tmp_path, capsys):
    assert experiment.main(["--data", str(enron_dir), "--quick", "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert "Table 1" in printed and "Table 2" in printed and "Table 3" in printed
    for name in ("table1", "table2", "table3"):
        assert read(tmp_path / f"pufferfish_{name}.csv")
    t2 = {r["notion"]: r for r in read(tmp_path / "pufferfish_table2.csv")}
    assert set(t2) == {"Edge-level", "Node-level", "Binomial", "Global", "Conditional", "Binomial (DP fit)", "Group (trivial quilt)"}
    # noise grows with the privacy notion's strength: edge < Conditional <= group < node
    lam = {k: float(v["lambda"]) for k, v in t2.items()}
    assert lam["Edge-level"] < lam["Conditional"] <= lam["Group (trivial quilt)"] < lam["Node-level"]
    for v in t2.values():  # every release spent exactly its ε (plus the DP fit's own budget)
        assert v["epsilon_spent"].startswith("100")
    t3 = {r["notion"]: r for r in read(tmp_path / "pufferfish_table3.csv")}
    assert all(float(r["delta"]) <= 1e-6 for r in t3.values())
    assert (tmp_path / "pufferfish_cdfs.png").stat().st_size > 0
    assert (tmp_path / "pufferfish_table1.png").stat().st_size > 0


def test_cli_argument_errors(tmp_path):
    with pytest.raises(SystemExit):
        experiment.main(["--data", str(tmp_path / "missing")])
    with pytest.raises(SystemExit):
        experiment.main(["--data", str(tmp_path), "--epsilons", "0"])


def test_plots_need_laws():
    g = dpg.Graph.from_edges([0, 1, 2], [1, 2, 3], labels=[["a"], ["a"], ["b"]])
    ax = plot_cdfs(GlobalModel.fit(g, source="public"))
    assert ax.get_title().startswith("Global")
    with pytest.raises(ValueError, match="no CDFs"):
        plot_cdfs(EdgeLevelModel())
    with pytest.raises(ValueError, match="ConditionalModel"):
        plot_bucket_table(GlobalModel.fit(g, source="public"))
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.mark.thorough  # a usefulness table (5 s)
def test_usefulness_table_on_a_synthetic_graph():
    """The ε = 1 / ε = 10 table: every row's privacy is what it says, W_δ never exceeds the exact W,
    and the noise, the threshold and the RMSE follow W and ε."""
    from reproductions.pufferfish_usefulness import COLUMNS, usefulness_rows

    g = dpg.datasets.synthetic_labeled_graph(3000, num_properties=20, seed=3).graph
    rows = usefulness_rows(g, c=20, trials=2)
    assert rows and all(set(COLUMNS) <= set(r) for r in rows)
    by = {(r["notion"], r["epsilon"]): r for r in rows}
    assert {eps for _, eps in by} == {1.0, 10.0}
    for (notion, eps), r in by.items():
        relaxed = notion.endswith("W_delta")
        assert r["delta"] == (pytest.approx(1e-6) if relaxed else 0.0)
        # c covers the vocabulary: sensitivity max(W, 1), scale = that over ε
        assert r["scale"] == pytest.approx(max(r["W"], 1) / eps)
        if relaxed:
            exact = by[(notion.replace("W_delta", "exact W"), eps)]
            assert r["W"] <= exact["W"]
    assert by[("group, tight", 1.0)]["W"] <= by[("group, paper 2*Dmax-1", 1.0)]["W"]
    assert by[("edge level", 10.0)]["rmse"] < by[("edge level", 1.0)]["rmse"] < by[("Conditional, exact W", 1.0)]["rmse"]
    assert by[("edge level", 1.0)]["released"] >= by[("Conditional, exact W", 1.0)]["released"]
