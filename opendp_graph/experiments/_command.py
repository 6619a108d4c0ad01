"""What the ``opendp-graph`` commands share: one-line argument errors, numeric options checked as
they are parsed, the output folder made before the work starts, and the list of files written."""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

__all__ = [
    "ArgumentParser",
    "can_plot",
    "int_at_least",
    "nonnegative_int",
    "output_folder",
    "positive_float",
    "positive_floats",
    "positive_int",
    "print_written",
    "probability",
    "summary",
]


class ArgumentParser(argparse.ArgumentParser):
    """``argparse``, but a mistake is one line on stderr, ``PROG: error: MESSAGE``, exit status 2
    (the usage is one ``--help`` away; sub-commands' parsers inherit this class)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def summary(doc: str | None) -> str:
    """The first paragraph of a docstring, on one line (a command's description)."""
    return " ".join((doc or "").split("\n\n")[0].split())


def int_at_least(minimum: int, what: str | None = None) -> Callable[[str], int]:
    """An argparse ``type=``: a whole number ``>= minimum`` (``what`` names it in the error)."""
    what = what or f"an integer >= {minimum}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < minimum:
            raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}")
        return value

    return parse


positive_int = int_at_least(1, "a positive integer")
nonnegative_int = int_at_least(0, "a non-negative integer")


def _real(text: str, what: str, accept: Callable[[float], bool]) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan  # refused below, with the same message as a value out of range
    if not accept(value):
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """An argparse ``type=``: a finite number ``> 0`` (an ε, a scale)."""
    return _real(text, "a positive finite number", lambda v: 0 < v < math.inf)


def probability(text: str) -> float:
    """An argparse ``type=``: a number in ``[0, 1]``."""
    return _real(text, "a probability in [0, 1]", lambda v: 0 <= v <= 1)


def positive_floats(text: str) -> tuple[float, ...]:
    """An argparse ``type=``: comma-separated positive finite numbers (``"100,1"``)."""
    parts = [p.strip() for p in text.split(",")]
    if not all(parts):
        raise argparse.ArgumentTypeError(f"must be comma-separated positive finite numbers, got {text!r}")
    return tuple(_real(p, "comma-separated positive finite numbers", lambda v: 0 < v < math.inf) for p in parts)


def output_folder(parser: argparse.ArgumentParser, value: str | None) -> Path | None:
    """``--out``: the folder, made now, so that a bad path fails before a long run, not after."""
    if value is None:
        return None
    folder = Path(value)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        parser.error(f"argument --out: cannot make the folder {value!r}: {error.strerror or error}")
    if not os.access(folder, os.W_OK | os.X_OK):
        parser.error(f"argument --out: cannot write into {value!r}")
    return folder


def can_plot() -> bool:
    """True if matplotlib (the ``plot`` extra) is installed; else says that no figure is drawn."""
    if importlib.util.find_spec("matplotlib") is not None:
        return True
    print("no figures: matplotlib is not installed (pip install 'opendp-graph[plot]')")
    return False


def print_written(paths: Sequence[Path]) -> None:
    """List every file a command wrote, one path per line (the last lines of its output)."""
    print(f"wrote {len(paths)} file{'' if len(paths) == 1 else 's'}:")
    for path in paths:
        print(f"  {path}")
