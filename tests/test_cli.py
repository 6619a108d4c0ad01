"""The command-line entry points."""

import pytest

from opendp_graph import cli


def test_demo_prints_a_table(capsys):
    assert cli.main(["demo"]) == 0
    out = capsys.readouterr().out
    for unit in ("edge", "group of 3 edges", "node (projected to degree 6)"):
        assert unit in out
    assert "noise scale" in out and "triangles" in out


def test_demo_rows_are_consistent():
    rows = cli.demo("florentine", epsilon=0.5, group_size=2, theta=4)
    totals = [r for r in rows if r["statistic"] == "total (composition)"]
    assert len(totals) == 3
    for total in totals:
        assert total["epsilon"] == pytest.approx(0.5)
    edge_rows = [r for r in rows if r["unit"] == "edge" and r["statistic"] == "edge count"]
    assert edge_rows[0]["true"] == 20 and edge_rows[0]["scale"] == pytest.approx(1 / (0.5 / 3))


def test_demo_rejects_bad_epsilon():
    with pytest.raises(SystemExit):
        cli.main(["demo", "--epsilon", "0"])


def test_reproduce_unknown_name(capsys):
    assert cli.main(["reproduce", "nonsense"]) == 2
    assert "one of" in capsys.readouterr().err
