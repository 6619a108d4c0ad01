"""`opendp-graph reproduce pufferfish --quick` end to end, and the plotting helpers."""

import csv

import matplotlib
import pytest

matplotlib.use("Agg")

import opendp_graph as dpg  # noqa: E402
from opendp_graph.experiments import pufferfish as experiment  # noqa: E402
from opendp_graph.pufferfish import EdgeLevelModel, GlobalModel  # noqa: E402
from opendp_graph.pufferfish.plots import plot_bucket_table, plot_cdfs  # noqa: E402


@pytest.fixture(scope="module")
def enron_dir(shared_data):
    folder = shared_data / "enron-perry-wolfe"
    if not folder.is_dir():
        pytest.skip("Enron data not available")
    return folder


def read(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


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
