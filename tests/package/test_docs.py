"""The documentation site (``docs/``, Sphinx + pydata-sphinx-theme + myst-nb).

* Fast, always run: the API reference (``docs/api/*.rst``, hand-written ``autosummary`` lists)
  documents every public name, and ``docs/tutorials.md`` lists every notebook of ``tutorials/``.
* Slow (``pytest -m slow tests/package/test_docs.py``, about a minute on two cores: the notebooks are
  executed, except spark.ipynb, shown with its stored outputs): the full build, with warnings as
  errors, into a temporary folder. It needs the
  ``docs`` extra (``pip install -e ".[docs]"``; skipped without it) and the real data sets the
  notebooks read (skipped, with the resolver's reason, when one cannot be resolved, like
  ``test_tutorials.py``; it carries the ``needs_data`` marker).

A name is public when it is in the ``__all__`` of a public module (no ``_`` in its dotted path),
or, for a package, when it does not start with ``_`` and is defined in this project. Every
``__all__`` of the package lists the public names of its own module; the top-level namespace names
what it lifts to ``dpg.`` one by one (docs/architecture.md).
"""

import importlib
import inspect
import json
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import opendp_graph

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"

# public modules the API reference leaves out on purpose
NOT_IN_API = {
    "opendp_graph.cli": "the opendp-graph command (`opendp-graph --help`)",
}


def _is_public(dotted: str) -> bool:
    return not any(part.startswith("_") for part in dotted.split("."))


def public_modules() -> list[str]:
    """opendp_graph and every public module under it, except those in NOT_IN_API."""
    found = ["opendp_graph"]
    for info in pkgutil.walk_packages(opendp_graph.__path__, "opendp_graph.", onerror=lambda name: None):
        if _is_public(info.name) and not any(info.name == m or info.name.startswith(m + ".") for m in NOT_IN_API):
            found.append(info.name)
    return found


def public_names(modname: str) -> dict[str, object]:
    module = importlib.import_module(modname)
    names = set(getattr(module, "__all__", ()))
    if hasattr(module, "__path__") or not hasattr(module, "__all__"):
        for name, value in vars(module).items():
            if name.startswith("_") or inspect.ismodule(value):
                continue
            defined_in = str(getattr(value, "__module__", ""))
            if defined_in == modname or defined_in.startswith(modname + "."):
                names.add(name)
    return {name: getattr(module, name) for name in names}


def _resolve(dotted: str):
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def documented_entries() -> list[tuple[str, bool]]:
    """``(full name, has a page)`` for every entry of an ``autosummary`` table in docs/api/*.rst
    (a page when the table has ``:toctree:``; without it the entry only links to one)."""
    entries = []
    for page in sorted((DOCS / "api").glob("*.rst")):
        current = None
        lines = page.read_text(encoding="utf-8").splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            directive = re.match(r"\.\. (?:py:)?(currentmodule|automodule):: *(\S+)", line)
            if directive:
                current = None if directive.group(2) == "None" else directive.group(2)
            if line.startswith(".. autosummary::"):
                toctree = False
                i += 1
                while i < len(lines) and (not lines[i].strip() or lines[i].startswith("   ")):
                    item = lines[i].strip()
                    if item.startswith(":toctree:"):
                        toctree = True
                    elif item and not item.startswith(":"):
                        name = item.lstrip("~")
                        full = f"{current}.{name}" if current else name
                        try:
                            _resolve(full)
                        except (ImportError, AttributeError):
                            full = name
                        entries.append((full, toctree))
                    i += 1
                continue
            i += 1
    return entries


def test_api_reference_documents_every_public_name():
    entries = documented_entries()
    pages = {}
    for full, toctree in entries:
        try:
            obj = _resolve(full)
        except (ImportError, AttributeError):
            pytest.fail(f"docs/api lists {full!r}, which does not exist")
        if toctree:
            pages[full] = obj
    missing_link_targets = [full for full, toctree in entries if not toctree and full not in pages]
    assert not missing_link_targets, f"listed without a page anywhere in docs/api: {missing_link_targets}"

    def documented(name, obj):
        return any(
            doc is obj and (inspect.isclass(obj) or callable(obj) or full.rsplit(".", 1)[-1] == name)
            for full, doc in pages.items()
        )

    missing = [
        f"{modname}.{name}"
        for modname in public_modules()
        for name, obj in sorted(public_names(modname).items())
        if not documented(name, obj)
    ]
    assert not missing, f"public names missing from the API reference (docs/api/*.rst): {missing}"


def test_every_public_module_has_its_notes_in_the_api_reference():
    automodules = set()
    for page in (DOCS / "api").glob("*.rst"):
        automodules |= set(re.findall(r"^\.\. automodule:: *(\S+)", page.read_text(encoding="utf-8"), re.M))
    missing = [m for m in public_modules() if m not in automodules]
    assert not missing, f"modules whose docstring no page of docs/api shows (.. automodule::): {missing}"


def test_every_tutorial_is_in_the_docs():
    toctree = re.findall(r"^tutorials/(\w+)$", (DOCS / "tutorials.md").read_text(encoding="utf-8"), re.M)
    notebooks = sorted(p.stem for p in (REPO / "tutorials").glob("*.ipynb"))
    assert sorted(toctree) == notebooks


DATA_CALL = re.compile(r"""data_path\(\s*["']([^"']+)["']""")


def _datasets_read_by_tutorials() -> list[str]:
    names = set()
    for path in (REPO / "tutorials").glob("*.ipynb"):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        names |= {n for c in cells if c["cell_type"] == "code" for n in DATA_CALL.findall("".join(c["source"]))}
    return sorted(names)


@pytest.mark.slow
def test_docs_build_without_warnings(tmp_path, dataset):
    for module in ("sphinx", "myst_nb", "pydata_sphinx_theme"):
        pytest.importorskip(module, reason=f'{module} is not installed: pip install -e ".[docs]"')
    for name in _datasets_read_by_tutorials():
        dataset(name)  # skips, with the resolver's reason, when the data set cannot be found
    command = [sys.executable, "-m", "sphinx", "-j", "auto", "-W", "--keep-going", "-b", "html",
               "-d", str(tmp_path / "doctrees"), str(DOCS), str(tmp_path / "html")]
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    log = "\n".join(line for line in (result.stdout + result.stderr).splitlines() if "WARNING" in line or "ERROR" in line)
    assert result.returncode == 0, f"sphinx-build failed ({result.returncode}):\n{log or result.stderr[-5000:]}"
    html = tmp_path / "html"
    for notebook in (REPO / "tutorials").glob("*.ipynb"):
        page = (html / "tutorials" / f"{notebook.stem}.html").read_text(encoding="utf-8")
        assert "cell_output" in page, f"{notebook.name} rendered without outputs"
    assert (html / "api" / "generated" / "opendp_graph.core.graph.Graph.html").exists()
