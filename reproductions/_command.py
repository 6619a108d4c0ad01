"""What the reproductions share beyond the package's command-line helpers
(:mod:`opendp_graph._cli_args`): their one-line descriptions, the output folder made before the
work starts, and whether figures can be drawn."""

from __future__ import annotations

import argparse
import importlib.util
import os
from pathlib import Path

__all__ = ["can_plot", "output_folder", "summary"]


def summary(doc: str | None) -> str:
    """The first paragraph of a docstring, on one line (a command's description)."""
    return " ".join((doc or "").split("\n\n")[0].split())


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
