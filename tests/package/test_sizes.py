"""The size rule of the house (docs/architecture.md, *Habits*): no module of the package over
900 lines and no function over 100, unless the reason is written beside it: a comment
``# long: <why>`` on the ``def`` line or the line above it (for a function), or in the module's
first 5 lines (for a module). A docstring with its proof counts: the rule is about what a reader
must hold at once, and a 60-line proof beside 40 lines of code is read in two parts. That reason
(``# long: docstring ...``) is checked: the code without the docstring must be under 100 lines."""

from __future__ import annotations

import ast
import pathlib

import opendp_graph

PACKAGE = pathlib.Path(opendp_graph.__file__).parent
MODULE_LINES, FUNCTION_LINES = 900, 100


def _reason(lines: list[str], at: int) -> bool:
    """A ``# long:`` comment on line ``at`` (1-based) or the line above, with a reason after it."""
    for line in lines[max(at - 2, 0) : at]:
        if "# long:" in line and line.split("# long:", 1)[1].strip():
            return True
    return False


def _says_docstring(lines: list[str], first: int, definition: int) -> bool:
    """Whether the reason given (above the decorators, above the ``def`` or on it) is the docstring."""
    near = lines[max(first - 2, 0) : first] + lines[max(definition - 2, 0) : definition]
    return any("# long: docstring" in line for line in near)


def _code_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """A function's lines without its docstring."""
    length = node.end_lineno - node.lineno + 1
    first = node.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        length -= first.end_lineno - first.lineno + 1
    return length


def test_no_module_or_function_is_long_without_a_reason():
    long_modules, long_functions = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text()
        lines = source.splitlines()
        name = str(path.relative_to(PACKAGE.parent))
        if len(lines) > MODULE_LINES and not any("# long:" in line for line in lines[:5]):
            long_modules.append(f"{name}: {len(lines)} lines")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
                if length > FUNCTION_LINES and not (_reason(lines, node.lineno) or _reason(lines, first)):
                    long_functions.append(f"{name}:{node.lineno} {node.name}: {length} lines")
                elif length > FUNCTION_LINES and _says_docstring(lines, first, node.lineno) and _code_lines(node) > FUNCTION_LINES:
                    long_functions.append(f"{name}:{node.lineno} {node.name}: {_code_lines(node)} lines of code besides its docstring")
    assert not long_modules, f"modules over {MODULE_LINES} lines without a '# long: <why>' in their first lines: {long_modules}"
    assert not long_functions, f"functions over {FUNCTION_LINES} lines without a '# long: <why>' beside the def: {long_functions}"


def test_the_rule_sees_a_long_function_and_its_reason():
    long_body = "\n".join(f"    x{i} = {i}" for i in range(FUNCTION_LINES + 1))
    source = f"def f():\n{long_body}\n"
    node = ast.parse(source).body[0]
    assert node.end_lineno - node.lineno + 1 > FUNCTION_LINES
    assert not _reason(source.splitlines(), node.lineno)
    assert _reason(("# long: a table of constants\n" + source).splitlines(), node.lineno + 1)
    assert not _reason(("# long:\n" + source).splitlines(), node.lineno + 1)  # a reason, not the bare tag
    # the docstring reason is checked wherever it is written, the def line included
    tagged = source.replace("def f():", "def f():  # long: docstring beside code of under 100 lines").splitlines()
    assert _says_docstring(tagged, 1, 1) and _code_lines(node) > FUNCTION_LINES
