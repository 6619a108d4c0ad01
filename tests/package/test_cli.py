"""The ``opendp-graph`` command: version, help, one-line argument errors, and the list of files
``data fetch`` writes (the reproductions, ``python -m reproductions``, are tested in
``test_reproductions.py``)."""

import argparse
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from opendp_graph import cli
from opendp_graph.datasets import _resolve


def run_cli(argv, capsys):
    """``(exit status, stdout, stderr)`` of ``opendp-graph ARGV``, run in this process."""
    try:
        status = cli.main(argv)
    except SystemExit as stop:  # argparse's way out (errors, --help, --version)
        status = stop.code
    out, err = capsys.readouterr()
    return status, out, err


def one_line_error(err, prog):
    """The one line of a rejected command line: ``PROG: error: ...``, and nothing else."""
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith(f"{prog}: error: "), err
    return err


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


def test_version(capsys):
    status, out, err = run_cli(["--version"], capsys)
    assert (status, out, err) == (0, f"opendp-graph {metadata.version('opendp-graph')}\n", "")


@pytest.mark.thorough  # a subprocess (6 s); CI's wheel step runs the installed command
def test_the_installed_command():
    """The console script itself: the version, and a bad argument without a traceback."""
    script = Path(sys.executable).with_name("opendp-graph")
    if not script.exists():
        pytest.skip(f"no console script at {script} (package not installed in this environment)")
    # both at once: each pays the package's import time
    runs = [subprocess.Popen([script, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for argv in (["--version"], ["demo", "--theta", "0"])]
    (version, _), (_, theta) = (run.communicate(timeout=120) for run in runs)
    assert [run.returncode for run in runs] == [0, 2]
    assert version == f"opendp-graph {metadata.version('opendp-graph')}\n"
    assert theta == "opendp-graph demo: error: argument --theta: must be a positive integer, got '0'\n"


def every_parser(top):
    """``top`` and every parser under it (its sub-commands, theirs, ...)."""
    found, todo = [], [top]
    while todo:
        parser = todo.pop()
        found.append(parser)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo += action.choices.values()
    return found


def check_help(parsers):
    """Assert that every parser has a description and every option and sub-command its help;
    returns how many were checked (a walk that checks nothing cannot fail)."""
    checked = 0
    for parser in parsers:
        assert parser.description, parser.prog
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for choice in action._choices_actions:
                    assert choice.help, f"{parser.prog} {choice.dest}"
                    checked += 1
            else:
                assert action.help, f"{parser.prog} {action.option_strings or action.dest}"
                checked += 1
    return checked


def test_every_option_and_subcommand_has_help():
    assert check_help(every_parser(cli._parsers()[0])) > 15  # the walk really reached the sub-commands


@pytest.mark.parametrize(
    "argv, prog, says",
    [
        ([], "opendp-graph", "required: COMMAND"),
        (["nosuch"], "opendp-graph", "invalid choice: 'nosuch'"),
        (["demo", "--bogus"], "opendp-graph", "unrecognized arguments: --bogus"),
        (["demo", "--theta", "0"], "opendp-graph demo", "argument --theta: must be a positive integer, got '0'"),
        (["demo", "--theta", "-1"], "opendp-graph demo", "argument --theta: must be a positive integer, got '-1'"),
        (["demo", "--theta", "two"], "opendp-graph demo", "argument --theta: must be a positive integer, got 'two'"),
        (["demo", "--theta", "34"], "opendp-graph demo", "argument --theta: must be at most 33 for --graph karate (34 nodes), got 34"),
        (["demo", "--theta"], "opendp-graph demo", "argument --theta: expected one argument"),
        (["demo", "--group-size", "0"], "opendp-graph demo", "argument --group-size: must be a positive integer, got '0'"),
        (["demo", "--group-size", "-2"], "opendp-graph demo", "argument --group-size: must be a positive integer"),
        (["demo", "--group-size", "2.5"], "opendp-graph demo", "argument --group-size: must be a positive integer"),
        (["demo", "--graph", "lesmis", "--group-size", "2927"], "opendp-graph demo", "argument --group-size: must be at most 2926 for --graph lesmis"),
        (["demo", "--epsilon", "0"], "opendp-graph demo", "argument --epsilon: must be a positive finite number, got '0'"),
        (["demo", "--epsilon", "-1"], "opendp-graph demo", "argument --epsilon: must be a positive finite number"),
        (["demo", "--epsilon", "nan"], "opendp-graph demo", "argument --epsilon: must be a positive finite number"),
        (["demo", "--epsilon", "inf"], "opendp-graph demo", "argument --epsilon: must be a positive finite number"),
        (["demo", "--epsilon", "one"], "opendp-graph demo", "argument --epsilon: must be a positive finite number"),
        (["demo", "--epsilon", "1e-320"], "opendp-graph demo", "too small: the noise scale of 'edge count' overflows"),
        (["demo", "--graph", "nosuch"], "opendp-graph demo", "argument --graph: invalid choice: 'nosuch'"),
        # the reproductions left the package: python -m reproductions NAME, from a clone
        (["reproduce", "interpret"], "opendp-graph", "argument COMMAND: invalid choice: 'reproduce'"),
        (["data", "fetch", "--bogus"], "opendp-graph", "unrecognized arguments: --bogus"),
        (["data"], "opendp-graph data", "required: ACTION"),
    ],
)
def test_a_bad_argument_is_one_line_and_exit_status_2(argv, prog, says, capsys):
    status, out, err = run_cli(argv, capsys)
    assert status == 2 and out == ""
    assert says in one_line_error(err, prog)


def test_unknown_data_set(capsys):
    status, out, err = run_cli(["data", "fetch", "nonsense"], capsys)
    assert status == 2 and out == ""
    assert "unknown data set nonsense; known: enron-perry-wolfe" in one_line_error(err, "opendp-graph data fetch")


def listed_files(out):
    """The paths of the closing ``wrote N files:`` block (it must end the output)."""
    head, _, block = out.rpartition("\nwrote ")
    count, *lines = block.rstrip("\n").split("\n")
    assert re.fullmatch(r"\d+ files?:", count) and int(count.split()[0]) == len(lines), block
    assert all(line.startswith("  ") for line in lines), block
    return [Path(line[2:]) for line in lines]


def files_under(folder):
    return sorted(p for p in folder.rglob("*") if p.is_file())


def test_data_fetch_lists_the_files_it_downloads(tmp_path, capsys, monkeypatch):
    files = (_resolve.DataFile("a.txt", "0" * 64, 1, "http://example.invalid/a.txt"), _resolve.DataFile("b.txt", "0" * 64, 1, "http://example.invalid/b.txt"))
    monkeypatch.setitem(_resolve.DATASETS, "toy", _resolve.Dataset("toy", "a toy", files, "nowhere", "none", "none"))
    monkeypatch.setattr(_resolve, "status", lambda name: [{"path": None}])

    def download(name, download):
        folder = tmp_path / name
        folder.mkdir(exist_ok=True)
        for file in files:
            (folder / file.name).write_text("x")
        return folder

    monkeypatch.setattr(_resolve, "data_path", download)
    status, out, err = run_cli(["data", "fetch", "toy"], capsys)
    assert status == 0 and err == ""
    assert out.startswith(f"toy: fetched into {tmp_path / 'toy'}\n")
    assert listed_files(out) == files_under(tmp_path)
    monkeypatch.setattr(_resolve, "status", lambda name: [{"path": tmp_path / name}])
    status, out, _ = run_cli(["data", "fetch", "toy"], capsys)
    assert status == 0 and out == f"toy: already available at {tmp_path / 'toy'}\n"  # nothing written, nothing listed
