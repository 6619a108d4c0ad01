"""What the ``opendp-graph`` command shares with the reproductions (``python -m reproductions``, in
the repository beside the package): one-line argument errors, numeric options checked as they are
parsed, and the list of files written. The command itself takes two of the option types; the
others are the reproductions', kept beside them because all check their text the same way."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

__all__ = [
    "ArgumentParser",
    "int_at_least",
    "nonnegative_int",
    "positive_float",
    "positive_floats",
    "positive_int",
    "print_written",
    "probability",
]


class ArgumentParser(argparse.ArgumentParser):
    """``argparse``, but a mistake is one line on stderr, ``PROG: error: MESSAGE``, exit status 2
    (the usage is one ``--help`` away; sub-commands' parsers inherit this class)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


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


def print_written(paths: Sequence[Path]) -> None:
    """List every file a command wrote, one path per line (the last lines of its output)."""
    print(f"wrote {len(paths)} file{'' if len(paths) == 1 else 's'}:")
    for path in paths:
        print(f"  {path}")
