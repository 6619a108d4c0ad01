"""The package's layering, read from its source: no import cycle among its modules (imports inside
functions included), no import from a lower layer to a higher one, and ``import opendp_graph``
loads neither the command nor the optional adapters (docs/architecture.md draws the layers).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "opendp_graph"

# Bottom to top; a module belongs to the layer of its longest matching prefix. A module may import
# its own layer and the layers below, never one above.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("core", ("opendp_graph.core",)),
    ("transformations", ("opendp_graph.transformations",)),
    ("measurements", ("opendp_graph.measurements",)),
    ("privacy notions", ("opendp_graph.blowfish", "opendp_graph.pufferfish")),
    ("interpretation and verification", ("opendp_graph.interpret", "opendp_graph.verify")),
    ("adapters", ("opendp_graph.polars", "opendp_graph.spark", "opendp_graph.datasets", "opendp_graph.text")),
    ("namespace and commands", ("opendp_graph", "opendp_graph.cli", "opendp_graph._cli_args")),
]


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _is_package(module: str) -> bool:
    return MODULES[module].name == "__init__.py"


def _imports(module: str, source: str | None = None) -> set[str]:
    """Every module of the package that ``module`` (or ``source`` read as that module) imports, at
    any depth of its code (functions included), resolved to the module itself (``from . import
    x`` with ``x`` a module is ``x``)."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8") if source is None else source)
    found: set[str] = set()

    def add(target: str) -> None:
        while target not in MODULES and "." in target:  # a name inside a module: the module
            target = target.rsplit(".", 1)[0]
        if target in MODULES and target != module:
            found.add(target)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if _is_package(module) else module.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                if f"{source}.{alias.name}" in MODULES:
                    add(f"{source}.{alias.name}")
                else:
                    add(source)
        elif isinstance(node, ast.Call) and _call_name(node) in ("import_module", "__import__") and node.args:
            name = _literal(node.args[0])
            if name is None:
                continue  # a computed name: only where test_dynamic_imports_stay_where_they_are allows it
            if name.startswith("."):  # import_module(".spark", package)
                anchor = _literal(node.args[1]) if len(node.args) > 1 else None
                if anchor is None:  # __name__ (or nothing): this module's package
                    anchor = module if _is_package(module) else module.rsplit(".", 1)[0]
                name = anchor + name
            add(name)
    return {m for m in found if m.startswith("opendp_graph")}


def _call_name(node: ast.Call) -> str | None:
    return getattr(node.func, "attr", getattr(node.func, "id", None))


def _literal(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


# Where a module may be imported by a computed name (which the reader above cannot follow): the
# namespace's lazy subpackages, the loaders' own submodules. Both import their own layer or a
# lower one.
DYNAMIC_IMPORTS = {"opendp_graph", "opendp_graph.datasets"}


def _dynamic_imports(module: str) -> list[str]:
    """The places where ``module`` imports by a computed name or reaches into ``sys.modules``
    for one of the package's modules, or calls an import function under another name."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in ("importlib", "builtins"):
            renamed = [a.name for a in node.names if a.name in ("import_module", "__import__") and a.asname]
            found += [f"line {node.lineno}: {name} imported under another name" for name in renamed]
        elif isinstance(node, ast.Call) and _call_name(node) in ("import_module", "__import__", "find_spec") and node.args:
            if _literal(node.args[0]) is None:
                found.append(f"line {node.lineno}: {_call_name(node)} of a computed name")
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value) == "sys.modules":
            key = _literal(node.slice)
            if key is None or key.startswith("opendp_graph"):
                found.append(f"line {node.lineno}: sys.modules[{ast.unparse(node.slice)}]")
        elif isinstance(node, ast.Call) and ast.unparse(node.func) == "sys.modules.get" and node.args:
            key = _literal(node.args[0])
            if key is None or key.startswith("opendp_graph"):
                found.append(f"line {node.lineno}: sys.modules.get({ast.unparse(node.args[0])})")
    return found


GRAPH = {module: _imports(module) for module in MODULES}


def _layer(module: str) -> int:
    best, best_length = None, -1
    for rank, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_length:
                best, best_length = rank, len(prefix)
    assert best is not None, f"{module} is in no layer: add it to LAYERS and docs/architecture.md"
    return best


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return components


def test_the_import_reader_sees_imports_inside_functions_and_cycles():
    # the reader itself, on known code: a lazy import inside a function is an edge, and a cycle is found
    assert "opendp_graph.transformations" in GRAPH["opendp_graph.measurements._context"]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_dynamic_imports_stay_where_they_are():
    """An import the reader cannot follow (a computed module name, ``sys.modules`` lookups of the
    package's modules, ``import_module`` under another name) is allowed in ``DYNAMIC_IMPORTS``
    only, so that the two tests below see every other import."""
    found = {module: _dynamic_imports(module) for module in MODULES if module not in DYNAMIC_IMPORTS}
    assert {module: places for module, places in found.items() if places} == {}
    assert _dynamic_imports("opendp_graph")  # the check itself sees the namespace's computed imports


def test_the_reader_resolves_import_module_against_its_package_argument():
    probe = "import importlib\nimportlib.import_module('.polars', 'opendp_graph')\n__import__('opendp_graph.spark')\n"
    assert _imports("opendp_graph.core.graph", probe) == {"opendp_graph.polars", "opendp_graph.spark"}


def test_no_import_cycle_among_the_packages_modules():
    assert _cycles(GRAPH) == [], "import cycles (each a set of modules that import each other)"


def test_no_module_imports_a_higher_layer():
    upward = [
        f"{module} ({LAYERS[_layer(module)][0]}) imports {target} ({LAYERS[_layer(target)][0]})"
        for module, targets in sorted(GRAPH.items())
        for target in sorted(targets)
        if _layer(target) > _layer(module)
    ]
    assert upward == []


def test_import_loads_neither_the_command_nor_the_optional_adapters(python_output):
    code = (
        "import sys, opendp_graph\n"
        "print(sorted(m for m in sys.modules if m.startswith(('opendp_graph.spark', 'opendp_graph.cli', "
        "'opendp_graph._cli_args', 'opendp_graph.text', 'reproductions', 'pyspark', 'matplotlib'))))"
    )
    out = python_output(code)
    assert out.strip() == "[]"


def test_lazy_subpackages_load_on_first_use():
    # one fresh interpreter: each lazy name is absent until first used, then is its subpackage
    code = (
        "import sys, opendp_graph as dpg\n"
        "for name in ('text', 'spark'):\n"
        "    assert f'opendp_graph.{name}' not in sys.modules, name\n"
        "    print(getattr(dpg, name).__name__)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    lines = result.stdout.split()
    if result.returncode and "pyspark" in result.stderr:  # spark last: the others were checked
        assert lines == ["opendp_graph.text"], result.stderr
        pytest.skip("pyspark is not installed")
    assert lines == ["opendp_graph.text", "opendp_graph.spark"], result.stderr
