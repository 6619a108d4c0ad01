"""``python -m reproductions NAME [OPTIONS]``: run the reproduction ``NAME`` (``--help`` lists
them). ``NAME`` parses its own options, so ``NAME --help`` is its own help and a bad option is
reported by it."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Sequence
from types import ModuleType

from opendp_graph._cli_args import ArgumentParser

from ._command import summary

__all__ = ["experiments", "main", "parser"]

PROG = "python -m reproductions"


def experiments() -> dict[str, ModuleType]:
    """``{name: module}`` of the reproductions: the modules ``reproductions.NAME`` with a
    ``main(argv)`` (the folder also holds helpers that are not commands)."""
    import reproductions

    names = sorted(m.name for m in pkgutil.iter_modules(reproductions.__path__) if not m.name.startswith("_"))
    modules = {name: importlib.import_module(f"reproductions.{name}") for name in names}
    return {name: module for name, module in modules.items() if callable(getattr(module, "main", None))}


def parser(found: dict[str, ModuleType]) -> ArgumentParser:
    """The runner's parser: one sub-command per reproduction, described by the first paragraph of
    its docstring."""
    top = ArgumentParser(
        prog=PROG,
        description=f"Reproduce a paper's experiments, from the repository root; `{PROG} NAME --help` lists NAME's options.",
    )
    names = top.add_subparsers(dest="name", metavar="NAME", title="reproductions")
    for name, module in found.items():
        # add_help=False: `NAME --help` reaches the reproduction's own parser
        names.add_parser(name, help=summary(module.__doc__), description=summary(module.__doc__), add_help=False)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``python -m reproductions ARGV``; returns the exit status. A bad argument ends in
    ``SystemExit(2)`` after one line on stderr, as argparse does."""
    found = experiments()
    top = parser(found)
    # a reproduction's options are parsed by the reproduction itself: they come back unrecognised here
    args, rest = top.parse_known_args(argv)
    if args.name is None:
        top.error(f"name a reproduction: one of {', '.join(found)}")
    return int(found[args.name].main(rest) or 0)


if __name__ == "__main__":
    sys.exit(main())
