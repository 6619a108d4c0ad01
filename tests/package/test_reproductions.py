"""The papers' reproductions, ``python -m reproductions NAME`` from the repository root: kept out of
the installed package, listed by ``--help``, each with its own options and one-line argument
errors, the list of files it writes, and its progress bars."""

import io
import pkgutil
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

import reproductions
from opendp_graph.core import _progress
from reproductions import __main__ as runner
from reproductions import _command, blowfish, interpret, pufferfish
from tests.package.test_cli import check_help, every_parser, files_under, listed_files, one_line_error

REPO = Path(__file__).resolve().parents[2]
EXPERIMENTS = {"blowfish": blowfish, "interpret": interpret, "pufferfish": pufferfish}
COMMANDS = ", ".join(runner.experiments())  # the reproductions the runner offers (at least those above)
PROG = "python -m reproductions"


class Terminal(io.StringIO):
    def isatty(self):
        return True


def run(argv, capsys):
    """``(exit status, stdout, stderr)`` of ``python -m reproductions ARGV``, run in this process."""
    try:
        status = runner.main(argv)
    except SystemExit as stop:  # argparse's way out (errors, --help)
        status = stop.code
    out, err = capsys.readouterr()
    return status, out, err


def test_the_reproductions_are_not_in_the_wheel():
    """The package's discovery (pyproject's ``[tool.setuptools.packages.find]``) takes
    ``opendp_graph`` and its subpackages only: not ``reproductions/``, not ``benchmarks/``."""
    tomllib = pytest.importorskip("tomllib")  # Python ≥ 3.11
    from setuptools import find_packages

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    shipped = find_packages(where=str(REPO), include=config["tool"]["setuptools"]["packages"]["find"]["include"])
    assert "opendp_graph" in shipped and "opendp_graph.interpret" in shipped
    assert [p for p in shipped if not p.startswith("opendp_graph")] == []
    assert "opendp_graph.experiments" not in shipped


@pytest.mark.thorough  # a subprocess (9 s)
def test_one_command_from_the_repository_root(tmp_path):
    """``python -m reproductions --help`` and a quick reproduction, as a user runs them."""
    argvs = (["--help"], ["interpret", "--quick", "--out", str(tmp_path)])
    # both at once: each pays the package's import time
    runs = [subprocess.Popen([sys.executable, "-m", "reproductions", *argv], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for argv in argvs]
    (listing, _), (out, err) = (r.communicate(timeout=300) for r in runs)
    assert [r.returncode for r in runs] == [0, 0], err
    assert listing.startswith(f"usage: {PROG} ")
    for name in COMMANDS.split(", "):
        assert re.search(rf"^\s+{name}\b", listing, re.M), name
    assert listed_files(out) == files_under(tmp_path) and {p.name for p in files_under(tmp_path)} <= {"queens.csv", "queens.png"}


def test_a_helper_module_is_not_a_reproduction(capsys, monkeypatch):
    helper = types.ModuleType("reproductions.helper_only")  # no main(argv)
    monkeypatch.setitem(sys.modules, helper.__name__, helper)
    listed = list(pkgutil.iter_modules(reproductions.__path__))
    monkeypatch.setattr(pkgutil, "iter_modules", lambda path: [*listed, pkgutil.ModuleInfo(None, "helper_only", False)])
    assert list(runner.experiments()) == COMMANDS.split(", ")
    status, _, err = run(["helper_only"], capsys)
    assert status == 2 and "invalid choice: 'helper_only'" in one_line_error(err, PROG)


def test_help_lists_the_reproductions(capsys):
    status, out, err = run(["--help"], capsys)
    assert status == 0 and err == ""
    assert out.startswith(f"usage: {PROG} ")
    for name, module in EXPERIMENTS.items():
        assert re.search(rf"^\s+{name}\b", out, re.M), name
        assert _command.summary(module.__doc__)[:30] in " ".join(out.split()), name


@pytest.mark.parametrize("name", COMMANDS.split(", "))
def test_a_reproduction_help_is_its_own(name, capsys):
    status, out, err = run([name, "--help"], capsys)
    assert status == 0 and err == ""
    assert out.startswith(f"usage: {PROG} {name} ") and "--out" in out


def test_every_option_and_reproduction_has_help():
    parsers = every_parser(runner.parser(runner.experiments())) + [module._parser() for module in EXPERIMENTS.values()]
    assert check_help(parsers) > 25  # the walk really reached the reproductions and their options


@pytest.mark.parametrize(
    "argv, prog, says",
    [
        ([], PROG, f"name a reproduction: one of {COMMANDS}"),
        (["--quick"], PROG, f"name a reproduction: one of {COMMANDS}"),
        (["interpret", "--samples", "19"], f"{PROG} interpret", "argument --samples: must be an integer >= 20, got '19'"),
        (["interpret", "--samples", "0"], f"{PROG} interpret", "argument --samples: must be an integer >= 20"),
        (["interpret", "--seed", "-1"], f"{PROG} interpret", "argument --seed: must be a non-negative integer"),
        (["interpret", "--epsilon", "0"], f"{PROG} interpret", "argument --epsilon: must be a positive finite number"),
        (["interpret", "-a", "1.5"], f"{PROG} interpret", "argument -a: must be a probability in [0, 1]"),
        (["interpret", "-b", "-0.1"], f"{PROG} interpret", "argument -b: must be a probability in [0, 1]"),
        (["interpret", "-a", "0.3"], f"{PROG} interpret", "argument -b: Example 1 needs b < a, got a = 0.3, b = 0.3"),
        (["interpret", "--bogus"], f"{PROG} interpret", "unrecognized arguments: --bogus"),
        (["pufferfish", "--epsilons", "0"], f"{PROG} pufferfish", "argument --epsilons: must be comma-separated positive"),
        (["pufferfish", "--epsilons", "1,,2"], f"{PROG} pufferfish", "argument --epsilons: must be comma-separated positive"),
        (["pufferfish", "--epsilons", "1,x"], f"{PROG} pufferfish", "argument --epsilons: must be comma-separated positive"),
        (["pufferfish", "--trials", "0"], f"{PROG} pufferfish", "argument --trials: must be a positive integer"),
        (["pufferfish", "--small-trials", "-3"], f"{PROG} pufferfish", "argument --small-trials: must be a positive integer"),
        (["pufferfish", "--jobs", "0"], f"{PROG} pufferfish", "argument --jobs: must be a positive integer"),
        (["pufferfish", "--c", "many"], f"{PROG} pufferfish", "argument --c: must be a positive integer"),
        (["blowfish", "--countries", ","], f"{PROG} blowfish", "argument --countries: must be comma-separated country codes"),
        (["blowfish", "--countries", "H1"], f"{PROG} blowfish", "argument --countries: must be comma-separated country codes"),
    ],
)
def test_a_bad_argument_is_one_line_and_exit_status_2(argv, prog, says, capsys):
    status, out, err = run(argv, capsys)
    assert status == 2 and out == ""
    assert says in one_line_error(err, prog)


def test_an_unknown_reproduction_names_the_valid_ones(capsys):
    status, out, err = run(["nosuch"], capsys)
    assert status == 2 and out == ""
    assert "invalid choice: 'nosuch'" in one_line_error(err, PROG)
    for name in EXPERIMENTS:
        assert repr(name) in err


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_an_unusable_output_folder_is_refused_before_any_work(name, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(EXPERIMENTS[name], "run" if name != "blowfish" else "load_deezer", None)  # never reached
    blocker = tmp_path / "a file"
    blocker.write_text("")
    status, out, err = run([name, "--out", str(blocker / "out")], capsys)
    assert status == 2 and out == ""
    assert "argument --out: cannot make the folder" in one_line_error(err, f"{PROG} {name}")


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
    status, out, _ = run([*argv, "--out", str(out_dir)], capsys)
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


@pytest.mark.thorough  # the Deezer reproduction's quick run (3 s): by default the interpret one checks the listing and the bars
def test_blowfish_lists_its_files_and_shows_progress(dataset, tmp_path, capsys, monkeypatch):
    files = [f"blowfish_{part}.{ext}" for part in ("mse", "sensitivity", "extrapolation") for ext in ("csv", "png")]
    check_reproduction(["blowfish", "--data", str(dataset("deezer")), "--quick"], tmp_path, files, {"Blowfish (Deezer)": "parts"}, capsys, monkeypatch)


# thorough (11 s: the quick reproduction, which test_quick_reproduction in
# tests/pufferfish/test_pufferfish_experiment.py runs in the tier too); by default the listing and the
# bars are checked on the interpret reproduction above
@pytest.mark.thorough
def test_pufferfish_lists_its_files_and_shows_progress(dataset, tmp_path, capsys, monkeypatch):
    files = ["pufferfish_table1.csv", "pufferfish_table2.csv", "pufferfish_table3.csv", "pufferfish_usefulness.csv", "pufferfish_cdfs.png", "pufferfish_table1.png"]
    stages = {"neighbourhood statistics": None, "Binomial W": None, "calibrating": "releases", "noise trials": "trials"}
    check_reproduction(["pufferfish", "--data", str(dataset("enron-perry-wolfe")), "--quick"], tmp_path, files, stages, capsys, monkeypatch)


def test_without_matplotlib_only_the_tables_are_written_and_listed(tmp_path, capsys, monkeypatch):
    find_spec = _command.importlib.util.find_spec
    monkeypatch.setattr(_command.importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else find_spec(name, *a))
    status, out, _ = run(["interpret", "--quick", "--out", str(tmp_path)], capsys)
    assert status == 0 and "no figures: matplotlib is not installed" in out
    assert listed_files(out) == files_under(tmp_path) == [tmp_path / "queens.csv"]


def test_quiet_in_a_pipe(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    monkeypatch.setattr(_progress, "AUTO_DELAY", 0.0)
    status, _, err = run(["interpret", "--quick"], capsys)  # captured stderr: not a terminal
    assert status == 0 and err == ""
