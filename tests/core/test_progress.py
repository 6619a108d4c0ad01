"""Progress reporting on long fits (issue 7): shown only when someone watches, silent in tests
and pipes, and available to programs through a callback."""

import io
import re
import time

import numpy as np
import pytest

import opendp_graph as dpg
from opendp_graph.core import _progress
from opendp_graph.pufferfish import BinomialModel, ConditionalModel, GlobalModel, fit_all


@pytest.fixture
def graph():
    return dpg.datasets.synthetic_labeled_graph(3_000, seed=1, num_properties=12).graph


class Terminal(io.StringIO):
    def isatty(self):
        return True


def stages(calls):
    out = {}
    for stage, done, total in calls:
        out.setdefault(stage, []).append((done, total))
    return out


@pytest.mark.parametrize("threads", [1, 3], ids=["one-thread", "three-threads"])
def test_callback_sees_every_stage_from_zero_to_total(graph, threads, monkeypatch):
    # the compiled passes, in runs of one node's work
    monkeypatch.setattr("opendp_graph.pufferfish._compiled._RUN_WORK", 1)
    # threads: the passes' jobs report from several threads into one stage
    monkeypatch.setattr("opendp_graph.pufferfish._stats._workers", lambda: threads)
    monkeypatch.setattr("opendp_graph.pufferfish._stats._THREADED_EDGES", 0)
    calls = []
    models = fit_all(graph, progress=lambda *a: calls.append(a))
    models["Binomial"].W  # noqa: B018 - computing W reports too
    seen = stages(calls)
    assert set(seen) == {"neighbourhood statistics", "Binomial W"}
    for stage, steps in seen.items():
        done = [d for d, _ in steps]
        total = {t for _, t in steps}
        assert len(total) == 1 and total.pop() == done[-1] > 0, stage
        assert done[0] == 0 and done == sorted(done), stage
        assert len(steps) >= 3, stage  # start, at least one block, finish


def test_every_fit_takes_progress(graph):
    for fit in (BinomialModel.fit, GlobalModel.fit, ConditionalModel.fit):
        calls = []
        fit(graph, progress=lambda *a: calls.append(a))
        assert calls and calls[-1][1] == calls[-1][2]


def test_forced_bar_on_any_stream(graph, capsys):
    fit_all(graph, progress=True)  # stderr is captured: not a terminal, and a test is running
    err = capsys.readouterr().err
    assert err.startswith("\rneighbourhood statistics:   0%|")  # drawn from the start
    assert re.search(r"\rneighbourhood statistics: 100%\|[^\r\n]*\| \[\d\d:\d\d<\d\d:\d\d\]\n$", err)
    assert err.count("\n") == 1  # one stage, one final line


def test_silent_by_default_in_tests_and_pipes(graph, monkeypatch):
    monkeypatch.setattr(_progress, "AUTO_DELAY", 0.0)
    term = Terminal()
    monkeypatch.setattr("sys.stderr", term)
    fit_all(graph)  # a terminal, but a test is running
    assert term.getvalue() == ""
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    pipe = io.StringIO()  # not a terminal
    monkeypatch.setattr("sys.stderr", pipe)
    fit_all(graph)
    assert pipe.getvalue() == ""


def test_false_and_callbacks_draw_nothing_even_when_watched(graph, monkeypatch):
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    monkeypatch.setattr(_progress, "AUTO_DELAY", 0.0)
    term = Terminal()
    monkeypatch.setattr("sys.stderr", term)
    fit_all(graph, progress=False)
    calls = []
    fit_all(graph, progress=lambda *a: calls.append(a))
    assert term.getvalue() == "" and calls
    fit_all(graph)  # the same terminal does show the automatic bar
    assert term.getvalue().startswith("\rneighbourhood statistics:")


def test_shown_on_a_terminal_after_the_delay(graph, monkeypatch):
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    term = Terminal()
    monkeypatch.setattr("sys.stderr", term)
    fit_all(graph)  # quicker than the delay: nothing
    assert term.getvalue() == ""
    monkeypatch.setattr(_progress, "AUTO_DELAY", 0.0)
    fit_all(graph)
    lines = term.getvalue()
    assert lines.startswith("\rneighbourhood statistics:") and lines.endswith("\n") and lines.count("\n") == 1


def test_the_delay_counts_from_the_start_of_the_stage(monkeypatch):
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    monkeypatch.setattr(_progress, "AUTO_DELAY", 0.2)
    term = Terminal()
    monkeypatch.setattr("sys.stderr", term)
    report = _progress.resolve_progress(None, label="stage")
    report.start(4)
    report.advance(1)
    assert term.getvalue() == ""  # within the delay
    time.sleep(0.4)
    report.advance(1)
    assert term.getvalue().startswith("\rstage:  50%|")  # past it: drawn at the next block
    report.finish()
    assert re.search(r"\rstage: 100%\|[^\r\n]*\]\n$", term.getvalue()) and term.getvalue().count("\n") == 1
    before = term.getvalue()
    quick = _progress.resolve_progress(None, label="quick")
    quick.start(4)
    quick.advance(4)
    quick.finish()
    assert term.getvalue() == before  # a stage shorter than the delay leaves no trace, not even a newline


def test_counts_are_shown_for_a_unit_only(capsys):
    for unit in ("trials", None):
        report = _progress.resolve_progress(True, label="noise", unit=unit)
        report.start(10)
        report.advance(3)
        report.finish()
    counted, internal, _ = capsys.readouterr().err.split("\n")
    assert re.match(r"\rnoise:   0%\|[^\r]*\| 0/10 trials \[", counted)
    assert re.search(r"\rnoise: 100%\|[^\r]*\| 10/10 trials \[[^\]]*\]$", counted)
    assert re.search(r"\rnoise: 100%\|[^\r]*\| \[[^\]]*\]$", internal) and "/10" not in internal


def test_a_callback_never_sees_more_than_the_total():
    calls = []
    report = _progress.resolve_progress(lambda *a: calls.append(a), label="stage")
    report.start(10)
    report.advance(4)
    report.advance(30)  # a block's estimate can overshoot
    report.finish()
    assert calls == [("stage", 0, 10), ("stage", 4, 10), ("stage", 10, 10), ("stage", 10, 10)]


@pytest.mark.parametrize("bad", ["yes", 1, 0.5, [print]])
def test_bad_progress_is_refused_before_any_work(bad):
    g = dpg.Graph.from_edges([0], [1], labels=[["a"]])
    for call in (
        lambda: fit_all(g, progress=bad),
        lambda: BinomialModel.fit(g, progress=bad),
        lambda: GlobalModel.fit(g, progress=bad),
        lambda: ConditionalModel.fit(g, progress=bad),
        lambda: BinomialModel(0.1, 0.2, [3], progress=bad),
    ):
        with pytest.raises(TypeError, match="progress must be None, True, False or a callable"):
            call()


def test_progress_does_not_change_the_models(graph):
    quiet = fit_all(graph, progress=False)
    loud = fit_all(graph, progress=lambda *a: None)
    for name in quiet:
        assert quiet[name].fingerprint() == loud[name].fingerprint()
        assert quiet[name].W == loud[name].W
    assert np.array_equal(quiet["Global"].hist0, loud["Global"].hist0)


def test_a_model_with_a_progress_callback_still_pickles(graph):
    import pickle

    calls = []
    models = fit_all(graph, progress=lambda *a: calls.append(a))
    for name, model in models.items():
        copy = pickle.loads(pickle.dumps(model))
        assert copy.fingerprint() == model.fingerprint() and copy.W == model.W, name
    assert any(stage == "Binomial W" for stage, _, _ in calls)  # the original still reports
