"""Every Python block of README.md and of the pages in docs/ runs as written, and the values its
comments state are true.

Each ```python block runs on its own, in a fresh namespace, as a reader would paste it. A comment
that starts with a Python literal (``x   # 78: the truth``, ``scale   # 3.38``) states the value
of the statement it ends: an expression, or the name a one-name assignment binds. The test
compares them (floats to the decimals written). A block that loads a real data set
(``dpg.datasets.load_<name>()``) is skipped, with the resolver's reason, when that data set
cannot be found.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.conftest import skip_without_data

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
PAGES = [README, *sorted((REPO / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
LOADERS = {"load_enron": "enron-perry-wolfe", "load_deezer": "deezer", "load_email_eu": "email-eu-core"}


def python_blocks() -> list[tuple[str, int, str]]:
    """``(page, first line number, code)`` of every ```python block of README.md and the docs pages."""
    blocks = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        name = "README" if page == README else f"docs-{page.stem}"
        blocks += [(name, text[: m.start(1)].count("\n") + 1, m.group(1)) for m in BLOCK.finditer(text)]
    return blocks


def stated_value(comment: str):
    """The literal a comment starts with (before a ``:``, ``...`` or its end), or ``None``."""
    head = re.split(r":|\.\.\.", comment, maxsplit=1)[0].strip()
    try:
        return head, ast.literal_eval(head)
    except (ValueError, SyntaxError):
        return None


def matches(actual, literal: str, expected) -> bool:
    if isinstance(expected, float) and not isinstance(actual, (list, tuple, dict)):
        decimals = len(literal.split(".")[1]) if "." in literal else 0
        return abs(float(actual) - expected) <= 0.5 * 10.0**-decimals
    if isinstance(expected, (list, tuple)):
        return type(actual)(expected) == actual if isinstance(actual, (list, tuple)) else list(actual) == list(expected)
    return actual == expected


def run_block(code: str) -> int:
    """Run ``code`` statement by statement and check the stated values; return how many were checked."""
    lines = code.splitlines()
    namespace: dict = {"__name__": "__readme__"}
    checked = 0
    for stmt in ast.parse(code).body:
        module = ast.Module(body=[stmt], type_ignores=[])
        last = lines[stmt.end_lineno - 1]
        comment = last.split("#", 1)[1] if "#" in last[stmt.end_col_offset :] else ""
        stated = stated_value(comment) if comment else None
        if isinstance(stmt, ast.Expr):
            value = eval(compile(ast.Expression(stmt.value), "README.md", "eval"), namespace)
        else:
            exec(compile(module, "README.md", "exec"), namespace)
            one_name = isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            value = namespace[stmt.targets[0].id] if one_name else None
            if not one_name:
                stated = None
        if stated is not None:
            literal, expected = stated
            assert matches(value, literal, expected), f"README says {literal} for `{last.split('#')[0].strip()}`, got {value!r}"
            checked += 1
    return checked


BLOCKS = python_blocks()


def test_readme_has_python_blocks():
    assert sum(1 for page, _, _ in BLOCKS if page == "README") >= 1
    assert len(BLOCKS) >= 10  # the pages' blocks are found too


def datasets_read_by(code: str) -> list[str]:
    # a loader and its siblings (load_enron_messages reads the Enron folder too)
    return [name for loader, name in LOADERS.items() if re.search(rf"datasets\.{loader}\w*\(", code)]


def _param(page: str, line: int, code: str):
    marks = [pytest.mark.needs_data] if datasets_read_by(code) else []
    if "dpg.spark" in code:
        # the id names Spark: the block runs on the Spark tests' worker, in their session (conftest.py);
        # slow (20 s of Spark jobs the Spark tests already cover), run by .ci/run's slow step
        return pytest.param(code, id=f"{page}-line{line}-spark", marks=[*marks, pytest.mark.spark, pytest.mark.slow])
    return pytest.param(code, id=f"{page}-line{line}", marks=marks)


@pytest.mark.parametrize("code", [_param(page, line, code) for page, line, code in BLOCKS])
def test_readme_block_runs_as_written(code, request):
    skip_without_data(datasets_read_by(code), "this README block")
    if "dpg.spark" in code:
        request.getfixturevalue("spark")  # the suite's one Spark session; skips without pyspark or Java
    assert run_block(code) >= 1, "every README block states at least one value the test can check"


def test_stated_values_are_checked():
    # the checker itself: a wrong stated value must fail
    with pytest.raises(AssertionError, match="README says 3"):
        run_block("x = 1 + 1\nx   # 3: wrong on purpose\n")
    with pytest.raises(AssertionError, match="README says 3.38"):
        run_block("3.3756 + 0.01   # 3.38\n")
    assert run_block("3.3756   # 3.38\n[1, 2]   # [1, 2]: a list\n(1, 2)   # (1, 2)\nprint('x')   # not a value\n") == 3
