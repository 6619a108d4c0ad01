"""Progress lines for long computations, shown only when someone is watching.

A long fit (tens of seconds at 10 M edges) should say how far it is on an interactive terminal,
and say nothing in tests, pipes, logs and notebooks' captured output. Every entry point that can
run long takes ``progress=``:

* ``None`` (default): a one-line report on ``stderr`` (rewritten in place with ``\\r``) only if
  ``stderr`` is a terminal, no test is running (``PYTEST_CURRENT_TEST`` unset) and the stage has
  already run for ``AUTO_DELAY`` seconds (so quick jobs never print); otherwise silent;
* ``True``: the line from the start, whatever the stream; ``False``: silent;
* a callable ``progress(stage, done, total)``: called with the stage name and the work done so
  far, in the stage's own units, after each block of work (for GUIs, logging, tests).
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Callable

__all__ = ["AUTO_DELAY", "check_progress", "resolve_progress"]

AUTO_DELAY = 2.0  # seconds a stage runs before the automatic mode starts drawing
_MIN_INTERVAL = 0.25  # seconds between two redraws of the line


def check_progress(progress: Any) -> Any:
    """Return ``progress`` if it is ``None``, a bool or a callable; else raise ``TypeError``."""
    if progress is None or isinstance(progress, bool) or callable(progress):  # bools are not callable
        return progress
    raise TypeError(f"progress must be None, True, False or a callable(stage, done, total), got {type(progress).__name__}")


def resolve_progress(progress: Any, *, label: str) -> "_Reporter":
    """Check a ``progress=`` argument and return the reporter of one stage called ``label``."""
    return _Reporter(check_progress(progress), label)


def _watched() -> bool:
    if "PYTEST_CURRENT_TEST" in os.environ:
        return False
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError):  # replaced or closed stream
        return False


class _Reporter:
    """Reports one stage: ``start(total)``, then ``advance(k)`` after each block, then ``finish()``."""

    def __init__(self, progress: Any, label: str) -> None:
        self._mode = progress
        self._label = label
        self._callback: Callable[[str, int, int], Any] | None = progress if callable(progress) else None
        self._line = False  # drawing enabled
        self._drawn = False  # something is on the line
        self._done = self._total = 0
        self._t0 = self._last = 0.0

    def start(self, total: int) -> None:
        self._total, self._done = max(int(total), 0), 0
        self._t0 = self._last = time.perf_counter()
        if self._callback is not None:
            self._callback(self._label, 0, self._total)
        else:
            self._line = self._mode is True or (self._mode is None and _watched())

    def advance(self, amount: int) -> None:
        self._done = min(self._done + int(amount), self._total)
        if self._callback is not None:
            self._callback(self._label, self._done, self._total)
        elif self._line:
            now = time.perf_counter()
            waited = self._mode is True or now - self._t0 >= AUTO_DELAY
            if waited and (not self._drawn or now - self._last >= _MIN_INTERVAL):
                self._last = now
                self._draw(now, end="")

    def finish(self) -> None:
        self._done = self._total
        if self._callback is not None:
            self._callback(self._label, self._done, self._total)
        elif self._drawn or self._mode is True:
            self._draw(time.perf_counter(), end="\n")
        self._line = self._drawn = False

    def _draw(self, now: float, end: str) -> None:
        share = self._done / self._total if self._total else 1.0
        elapsed = now - self._t0
        eta = f", about {elapsed * (1 - share) / share:.0f} s left" if 0 < share < 1 else ""
        sys.stderr.write(f"\r{self._label}: {100 * share:5.1f} % ({elapsed:.0f} s{eta})" + end)
        sys.stderr.flush()
        self._drawn = True
