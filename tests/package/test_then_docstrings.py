"""Every ``then_x`` twin carries its ``make_x``'s whole docstring (issue 16).

``then()`` (``transformations/_core.py``) copies ``make_x``'s docstring when it is called, so a
module that extends ``make_x.__doc__`` (``labels.py`` appends the shared guarantee and the
*Top-k* section) must do it before ``then_x = then(make_x)``; these tests catch the wrong order
for every twin the package exports. The copied ``>>>`` examples are collected a second time by
``pytest --doctest-modules`` (in ``make_x``'s module): they must be the very same examples.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import subprocess
import sys

import pytest

import opendp_graph
from opendp_graph.transformations import then


def _twins() -> dict[str, tuple[object, object]]:
    """``{dotted then_ name: (then_x, make_x)}`` over opendp_graph, its subpackages blowfish and
    pufferfish, and every other module of the package (where the twins are defined)."""
    modules = [opendp_graph, importlib.import_module("opendp_graph.blowfish"), importlib.import_module("opendp_graph.pufferfish")]
    for info in pkgutil.walk_packages(opendp_graph.__path__, "opendp_graph.", onerror=lambda name: None):
        if info.name.startswith("opendp_graph.cli"):
            continue
        try:
            modules.append(importlib.import_module(info.name))
        except ImportError:  # an optional dependency (plots need matplotlib)
            continue
    found = {}
    for module in modules:
        for name, value in vars(module).items():
            if name.startswith("then_") and callable(value):
                home = importlib.import_module(value.__module__)
                make = getattr(home, name.replace("then_", "make_", 1))
                found[f"{module.__name__}.{name}"] = (value, make)
    return found


TWINS = _twins()


def test_every_exported_twin_is_found():
    exported = {name for name in TWINS if name.count(".") == 1 or name.startswith(("opendp_graph.blowfish.", "opendp_graph.pufferfish."))}
    for name in ("then_edge_count", "then_degree_histogram", "then_label_counts", "then_label_count_map",
                 "then_corrected_laplace_threshold", "then_degree_projection", "then_triangle_count"):
        assert f"opendp_graph.{name}" in exported
    for name in ("then_standard_degree_histogram", "then_vip_standard_histogram"):
        assert f"opendp_graph.blowfish.{name}" in exported


@pytest.mark.parametrize("name", sorted(TWINS))
def test_twin_carries_the_whole_make_docstring(name):
    twin, make = TWINS[name]
    full = inspect.getdoc(make)
    assert full, f"{make.__name__} has no docstring"
    doc = twin.__doc__
    first, _, rest = doc.partition("\n")
    assert f":func:`{make.__name__}`" in first and "input_domain" in first and "input_metric" in first
    assert full in doc, f"{name} lacks part of {make.__name__}'s docstring (extend make_x.__doc__ before then(make_x))"
    assert rest.strip() == full
    # the examples are make_x's own, so collecting them twice runs the same (passing) examples
    parser = doctest.DocTestParser()
    twin_examples = [(e.source, e.want) for e in parser.get_examples(doc)]
    make_examples = [(e.source, e.want) for e in parser.get_examples(make.__doc__)]
    assert twin_examples == make_examples


def test_extended_docstrings_reach_their_twins():
    # labels.py appends the shared guarantee (and, for label_counts, the examples) after the def
    for twin in (opendp_graph.then_label_counts, opendp_graph.then_label_count_map):
        assert "**Stability guarantee**" in twin.__doc__
        assert "edge-label distance: L1" in twin.__doc__
    assert ">>> t = dpg.make_label_counts(" in opendp_graph.then_label_counts.__doc__


def test_twin_of_an_undocumented_make_gets_the_header_only():
    def make_nothing(input_domain, input_metric, k):
        return None

    twin = then(make_nothing)
    assert twin.__name__ == "then_nothing"
    assert twin.__doc__ == "Partial constructor of :func:`make_nothing` (omits ``input_domain`` and ``input_metric``)."


def test_the_copy_is_taken_when_then_is_called():
    def make_thing(input_domain, input_metric):
        """Thing.

        More about the thing.
        """

    twin = then(make_thing)
    assert twin.__doc__.endswith("Thing.\n\nMore about the thing.")  # cleaned of its indentation
    make_thing.__doc__ += "    Appended later."
    assert "Appended later." not in twin.__doc__  # hence: extend make_x.__doc__ before then(make_x)


@pytest.mark.thorough  # a subprocess under python -OO (11 s)
def test_the_package_imports_without_docstrings():
    # python -OO strips docstrings (__doc__ is None): the modules that extend or edit one at import
    # (labels.py, pufferfish/metric.py, the model fits' documents_source) must import all the same
    code = (
        "import importlib, pkgutil, opendp_graph\n"
        "for info in pkgutil.walk_packages(opendp_graph.__path__, 'opendp_graph.'):\n"
        "    if not info.name.startswith(('opendp_graph.experiments', 'opendp_graph.cli')):\n"
        "        try:\n"
        "            importlib.import_module(info.name)\n"
        "        except ImportError:\n"  # an optional dependency (pyspark, matplotlib)
        "            pass\n"
        "print('imported')\n"
    )
    result = subprocess.run([sys.executable, "-OO", "-c", code], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.split() == ["imported"], result.stderr
