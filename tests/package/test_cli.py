"""The command-line entry points: version, help, one-line argument errors, the list of files each
reproduction writes, and its progress bars."""

import argparse
import io
import pkgutil
import re
import subprocess
import sys
import types
from importlib import metadata
from pathlib import Path

import pytest

from opendp_graph import cli, experiments
from opendp_graph.core import _progress
from opendp_graph.datasets import _resolve
from opendp_graph.experiments import _command, blowfish, interpret, pufferfish

EXPERIMENTS = {"blowfish": blowfish, "interpret": interpret, "pufferfish": pufferfish}
COMMANDS = ", ".join(cli._experiments())  # the experiments `reproduce` offers (at least those above)


class Terminal(io.StringIO):
    def isatty(self):
        return True


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


def test_a_helper_module_is_not_an_experiment(capsys, monkeypatch):
    helper = types.ModuleType("opendp_graph.experiments.helper_only")  # no main(argv)
    monkeypatch.setitem(sys.modules, helper.__name__, helper)
    listed = list(pkgutil.iter_modules(experiments.__path__))
    monkeypatch.setattr(pkgutil, "iter_modules", lambda path: [*listed, pkgutil.ModuleInfo(None, "helper_only", False)])
    assert list(cli._experiments()) == COMMANDS.split(", ")
    status, _, err = run_cli(["reproduce", "helper_only"], capsys)
    assert status == 2 and "invalid choice: 'helper_only'" in one_line_error(err, "opendp-graph reproduce")


def test_reproduce_help_lists_the_experiments(capsys):
    status, out, err = run_cli(["reproduce", "--help"], capsys)
    assert status == 0 and err == ""
    assert out.startswith("usage: opendp-graph reproduce ")
    for name, module in EXPERIMENTS.items():
        assert re.search(rf"^\s+{name}\b", out, re.M), name
        assert _command.summary(module.__doc__)[:30] in " ".join(out.split()), name


@pytest.mark.parametrize("name", COMMANDS.split(", "))
def test_an_experiment_help_is_its_own(name, capsys):
    status, out, err = run_cli(["reproduce", name, "--help"], capsys)
    assert status == 0 and err == ""
    assert out.startswith(f"usage: opendp-graph reproduce {name} ") and "--out" in out


def parsers():
    """Every parser of the command: the top level, its sub-commands, and each experiment's."""
    top, _ = cli._parsers(EXPERIMENTS)
    found, todo = [], [top]
    while todo:
        parser = todo.pop()
        found.append(parser)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo += action.choices.values()
    return found + [module._parser() for module in EXPERIMENTS.values()]


def test_every_option_and_subcommand_has_help():
    checked = 0
    for parser in parsers():
        assert parser.description, parser.prog
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for choice in action._choices_actions:
                    assert choice.help, f"{parser.prog} {choice.dest}"
                    checked += 1
            else:
                assert action.help, f"{parser.prog} {action.option_strings or action.dest}"
                checked += 1
    assert checked > 40  # the walk really reached the sub-commands and the experiments


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
        (["reproduce"], "opendp-graph reproduce", f"name an experiment: one of {COMMANDS}"),
        (["reproduce", "--quick"], "opendp-graph reproduce", f"name an experiment: one of {COMMANDS}"),
        (["reproduce", "interpret", "--samples", "19"], "opendp-graph reproduce interpret", "argument --samples: must be an integer >= 20, got '19'"),
        (["reproduce", "interpret", "--samples", "0"], "opendp-graph reproduce interpret", "argument --samples: must be an integer >= 20"),
        (["reproduce", "interpret", "--seed", "-1"], "opendp-graph reproduce interpret", "argument --seed: must be a non-negative integer"),
        (["reproduce", "interpret", "--epsilon", "0"], "opendp-graph reproduce interpret", "argument --epsilon: must be a positive finite number"),
        (["reproduce", "interpret", "-a", "1.5"], "opendp-graph reproduce interpret", "argument -a: must be a probability in [0, 1]"),
        (["reproduce", "interpret", "-b", "-0.1"], "opendp-graph reproduce interpret", "argument -b: must be a probability in [0, 1]"),
        (["reproduce", "interpret", "-a", "0.3"], "opendp-graph reproduce interpret", "argument -b: Example 1 needs b < a, got a = 0.3, b = 0.3"),
        (["reproduce", "interpret", "--bogus"], "opendp-graph reproduce interpret", "unrecognized arguments: --bogus"),
        (["reproduce", "pufferfish", "--epsilons", "0"], "opendp-graph reproduce pufferfish", "argument --epsilons: must be comma-separated positive"),
        (["reproduce", "pufferfish", "--epsilons", "1,,2"], "opendp-graph reproduce pufferfish", "argument --epsilons: must be comma-separated positive"),
        (["reproduce", "pufferfish", "--epsilons", "1,x"], "opendp-graph reproduce pufferfish", "argument --epsilons: must be comma-separated positive"),
        (["reproduce", "pufferfish", "--trials", "0"], "opendp-graph reproduce pufferfish", "argument --trials: must be a positive integer"),
        (["reproduce", "pufferfish", "--small-trials", "-3"], "opendp-graph reproduce pufferfish", "argument --small-trials: must be a positive integer"),
        (["reproduce", "pufferfish", "--jobs", "0"], "opendp-graph reproduce pufferfish", "argument --jobs: must be a positive integer"),
        (["reproduce", "pufferfish", "--c", "many"], "opendp-graph reproduce pufferfish", "argument --c: must be a positive integer"),
        (["reproduce", "blowfish", "--countries", ","], "opendp-graph reproduce blowfish", "argument --countries: must be comma-separated country codes"),
        (["reproduce", "blowfish", "--countries", "H1"], "opendp-graph reproduce blowfish", "argument --countries: must be comma-separated country codes"),
        (["data", "fetch", "--bogus"], "opendp-graph", "unrecognized arguments: --bogus"),
        (["data"], "opendp-graph data", "required: ACTION"),
    ],
)
def test_a_bad_argument_is_one_line_and_exit_status_2(argv, prog, says, capsys):
    status, out, err = run_cli(argv, capsys)
    assert status == 2 and out == ""
    assert says in one_line_error(err, prog)


def test_an_unknown_experiment_names_the_valid_ones(capsys):
    status, out, err = run_cli(["reproduce", "nosuch"], capsys)
    assert status == 2 and out == ""
    assert "invalid choice: 'nosuch'" in one_line_error(err, "opendp-graph reproduce")
    for name in EXPERIMENTS:
        assert repr(name) in err


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_an_unusable_output_folder_is_refused_before_any_work(name, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(EXPERIMENTS[name], "run" if name != "blowfish" else "load_deezer", None)  # never reached
    blocker = tmp_path / "a file"
    blocker.write_text("")
    status, out, err = run_cli(["reproduce", name, "--out", str(blocker / "out")], capsys)
    assert status == 2 and out == ""
    assert "argument --out: cannot make the folder" in one_line_error(err, f"opendp-graph reproduce {name}")


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


def watched_terminal(monkeypatch):
    """stderr as an interactive terminal outside a test run, bars drawn at once."""
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    monkeypatch.setattr(_progress, "AUTO_DELAY", 0.0)
    term = Terminal()
    monkeypatch.setattr("sys.stderr", term)
    return term


def finished_bars(err):
    """``{label: final line}`` of the bars drawn on ``err``."""
    finals = [line.rsplit("\r", 1)[-1] for line in err.split("\n") if line]
    return {line.split(": ", 1)[0]: line for line in finals if re.search(r": 100%\|", line)}


def check_reproduction(argv, out_dir, expected, stages, capsys, monkeypatch):
    term = watched_terminal(monkeypatch)
    status, out, _ = run_cli(["reproduce", *argv, "--out", str(out_dir)], capsys)
    assert status == 0
    listed = listed_files(out)
    assert sorted(listed) == files_under(out_dir)  # every file written is listed, and only those
    assert sorted(p.name for p in listed) == sorted(expected)
    assert all(p.stat().st_size > 0 for p in listed)
    bars = finished_bars(term.getvalue())
    for label, unit in stages.items():
        assert label in bars, (label, sorted(bars))
        if unit:
            assert re.search(rf"\| (\d+)/\1 {unit} \[", bars[label]), bars[label]


def test_interpret_lists_its_files_and_shows_progress(tmp_path, capsys, monkeypatch):
    check_reproduction(["interpret", "--quick"], tmp_path / "new" / "folder", ["queens.csv", "queens.png"], {"two queens": None}, capsys, monkeypatch)


def test_blowfish_lists_its_files_and_shows_progress(dataset, tmp_path, capsys, monkeypatch):
    files = [f"blowfish_{part}.{ext}" for part in ("mse", "sensitivity", "extrapolation") for ext in ("csv", "png")]
    check_reproduction(["blowfish", "--data", str(dataset("deezer")), "--quick"], tmp_path, files, {"Blowfish (Deezer)": "parts"}, capsys, monkeypatch)


def test_pufferfish_lists_its_files_and_shows_progress(dataset, tmp_path, capsys, monkeypatch):
    files = ["pufferfish_table1.csv", "pufferfish_table2.csv", "pufferfish_table3.csv", "pufferfish_usefulness.csv", "pufferfish_cdfs.png", "pufferfish_table1.png"]
    stages = {"neighbourhood statistics": None, "Binomial W": None, "calibrating": "releases", "noise trials": "trials"}
    check_reproduction(["pufferfish", "--data", str(dataset("enron-perry-wolfe")), "--quick"], tmp_path, files, stages, capsys, monkeypatch)


def test_without_matplotlib_only_the_tables_are_written_and_listed(tmp_path, capsys, monkeypatch):
    find_spec = _command.importlib.util.find_spec
    monkeypatch.setattr(_command.importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else find_spec(name, *a))
    status, out, _ = run_cli(["reproduce", "interpret", "--quick", "--out", str(tmp_path)], capsys)
    assert status == 0 and "no figures: matplotlib is not installed" in out
    assert listed_files(out) == files_under(tmp_path) == [tmp_path / "queens.csv"]


def test_quiet_in_a_pipe(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    monkeypatch.setattr(_progress, "AUTO_DELAY", 0.0)
    status, _, err = run_cli(["reproduce", "interpret", "--quick"], capsys)  # captured stderr: not a terminal
    assert status == 0 and err == ""


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
