"""Progress bars for long computations, shown only when someone is watching.

A long fit (tens of seconds at 10 M edges) or reproduction should say how far it is on an
interactive terminal, and say nothing in tests, pipes and logs. Every entry point that can run
long takes ``progress=``:

* ``None`` (default): a :mod:`tqdm` bar on ``stderr`` only if ``stderr`` is a terminal, no test
  is running (``PYTEST_CURRENT_TEST`` unset) and the stage has already run for ``AUTO_DELAY``
  seconds (so quick jobs never print); otherwise silent (a notebook's ``stderr`` is not a
  terminal: pass ``True`` there);
* ``True``: the bar from the start, whatever the stream (in a Jupyter notebook with
  ``ipywidgets``, a widget: the bar is ``tqdm.auto``'s); ``False``: silent;
* a callable ``progress(stage, done, total)``: called with the stage name and the work done so
  far, in the stage's own units, after each block of work (for GUIs, logging, tests); no bar.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["AUTO_DELAY", "check_progress", "resolve_progress"]

AUTO_DELAY = 2.0  # seconds a stage runs before the automatic mode starts drawing
_MIN_INTERVAL = 0.25  # seconds between two redraws of the bar


def check_progress(progress: Any) -> Any:
    """Return ``progress`` if it is ``None``, a bool or a callable; else raise ``TypeError``."""
    if progress is None or isinstance(progress, bool) or callable(progress):  # bools are not callable
        return progress
    raise TypeError(f"progress must be None, True, False or a callable(stage, done, total), got {type(progress).__name__}")


def resolve_progress(progress: Any, *, label: str, unit: str | None = None) -> _Reporter:
    """Check a ``progress=`` argument and return the reporter of one stage called ``label``.

    ``unit`` names what the stage counts (``"trials"``): the bar then shows ``done/total unit``;
    without it the counts are internal work units and the bar shows the percentage only.
    """
    return _Reporter(check_progress(progress), label, unit)


def _watched() -> bool:
    if "PYTEST_CURRENT_TEST" in os.environ:
        return False
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError):  # replaced or closed stream
        return False


class _Reporter:
    """Reports one stage: ``start(total)``, then ``advance(k)`` after each block, then ``finish()``."""

    def __init__(self, progress: Any, label: str, unit: str | None) -> None:
        self._mode = progress
        self._label = label
        self._unit = unit
        self._callback: Callable[[str, int, int], Any] | None = progress if callable(progress) else None
        self._bar: Any = None  # the tqdm bar, while the stage runs and the mode draws one
        self._done = self._total = 0
        self._lock = threading.Lock()  # a stage's work may run on several threads

    def start(self, total: int) -> None:
        self._total, self._done = max(int(total), 0), 0
        if self._callback is not None:
            self._callback(self._label, 0, self._total)
        elif self._mode is True or (self._mode is None and _watched()):
            self._bar = self._new_bar(delay=0.0 if self._mode is True else AUTO_DELAY)

    def advance(self, amount: int) -> None:
        with self._lock:
            done = min(self._done + int(amount), self._total)
            if self._callback is not None:
                self._callback(self._label, done, self._total)
            elif self._bar is not None:
                self._bar.update(done - self._done)  # draws only once the delay has passed (tqdm's delay=)
            self._done = done

    def finish(self) -> None:
        if self._callback is not None:
            self._callback(self._label, self._total, self._total)
        elif self._bar is not None:
            self._bar.update(self._total - self._done)
            self._bar.close()  # the final line stays; a bar never drawn writes nothing
            self._bar = None
        self._done = self._total

    def _new_bar(self, delay: float) -> Any:
        from tqdm.auto import tqdm  # imported when a bar is due: most runs never draw one

        counts = f"{{n_fmt}}/{{total_fmt}} {self._unit} " if self._unit else ""
        return tqdm(
            total=self._total,
            desc=self._label,
            delay=delay,
            miniters=1,  # blocks are uneven: look at the clock after each one, not every k-th
            mininterval=_MIN_INTERVAL,
            bar_format="{desc}: {percentage:3.0f}%|{bar}| " + counts + "[{elapsed}<{remaining}]",
        )
