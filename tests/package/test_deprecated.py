"""The names that moved in the 0.1 restructuring still work for one release, each with a
DeprecationWarning naming its new place, and give the very objects of the new place."""

from __future__ import annotations

import importlib
import sys

import networkx as nx
import polars as pl
import pytest

import opendp_graph as dpg
from opendp_graph._deprecated import MOVED_MODULES

FRESH = "import warnings; warnings.simplefilter('error'); "


@pytest.fixture(autouse=True)
def _restore_the_namespace():
    """Importing an old path rebinds the package's attribute of that name to the alias (Python
    sets it on import; ``opendp_graph.accuracy`` stays callable): put the package back."""
    saved = dict(vars(dpg))
    yield
    for old in MOVED_MODULES:
        sys.modules.pop(old, None)
    for name in set(vars(dpg)) - set(saved):
        delattr(dpg, name)
    for name, value in saved.items():
        if vars(dpg).get(name) is not value:
            setattr(dpg, name, value)


def test_every_old_module_path_warns_in_a_fresh_interpreter(python_output):
    # one fresh interpreter for all of them (this one may have imported an alias already): each
    # import raises its own warning, as an error, before the module is kept
    lines = [f"try:\n    import {old}\nexcept DeprecationWarning as w:\n    print(w)" for old in sorted(MOVED_MODULES)]
    out = python_output(FRESH + "import opendp_graph\n" + "\n".join(lines))
    assert out.strip().splitlines() == [
        f"{old} moved to {new}; the old name will be removed in the next release" for old, new in sorted(MOVED_MODULES.items())
    ]


@pytest.mark.parametrize("old, new", sorted(MOVED_MODULES.items()))
def test_an_old_module_path_warns_and_forwards(old, new):
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {new}"):
        sys.modules.pop(old, None)
        alias = importlib.import_module(old)
    target = importlib.import_module(new)
    for name in getattr(target, "__all__", ()):
        assert getattr(alias, name) is getattr(target, name)


def test_from_imports_of_old_paths_give_the_new_objects():
    with pytest.warns(DeprecationWarning):
        sys.modules.pop("opendp_graph.node_degrees", None)
        from opendp_graph.node_degrees import make_private_degree_distribution
    assert make_private_degree_distribution is dpg.make_private_degree_distribution
    with pytest.warns(DeprecationWarning):
        sys.modules.pop("opendp_graph.audit", None)
        from opendp_graph.audit import exact_epsilon
    assert exact_epsilon is dpg.verify.exact_epsilon


def test_the_old_accuracy_module_still_calls_as_the_function():
    # importing the old module path makes it the package attribute ``accuracy``: it forwards calls
    with pytest.warns(DeprecationWarning):
        sys.modules.pop("opendp_graph.accuracy", None)
        import opendp_graph.accuracy as old
    space = dpg.graph_domain(), dpg.edge_distance()
    meas = space >> dpg.then_edge_count() >> __import__("opendp.prelude").prelude.m.then_laplace(scale=1.0)
    assert old(meas).half_width == 3 and old.summarize is dpg.summarize


@pytest.mark.parametrize("name", ["graph", "domains", "metrics", "node_degrees", "top_k", "testing", "audit"])
def test_an_old_attribute_of_the_package_warns(name):
    with pytest.warns(DeprecationWarning, match=f"opendp_graph.{name} moved to"):
        module = getattr(dpg, name) if name not in vars(dpg) else dpg.__getattr__(name)
    assert module is importlib.import_module(MOVED_MODULES[f"opendp_graph.{name}"])
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        dpg.no_such_name


def test_graph_from_polars_and_to_polars_forward_with_a_warning():
    log = pl.DataFrame({"s": ["a", "b"], "r": ["b", "c"]})
    with pytest.warns(DeprecationWarning, match="Graph.from_polars moved to opendp_graph.polars.graph_from_polars"):
        g = dpg.Graph.from_polars(log, "s", "r", nodes=["a", "b", "c"])
    assert g == dpg.polars.graph_from_polars(log, "s", "r", nodes=["a", "b", "c"])
    with pytest.warns(DeprecationWarning, match="Graph.to_polars moved to opendp_graph.polars.graph_to_polars"):
        table = g.to_polars()
    assert table.equals(dpg.polars.graph_to_polars(g))
    karate = dpg.Graph.from_networkx(nx.karate_club_graph())
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match='needs nodes=, the public list of people'):
        dpg.Graph.from_polars(dpg.polars.graph_to_polars(karate))


def test_a_name_that_left_its_module_is_still_found_there():
    with pytest.warns(DeprecationWarning, match="opendp_graph.pufferfish.dp_fit.fit_binomial_dp moved to opendp_graph.pufferfish.models.binomial.fit_binomial_dp"):
        from opendp_graph.pufferfish.dp_fit import fit_binomial_dp
    assert fit_binomial_dp is dpg.pufferfish.fit_binomial_dp
    with pytest.raises(ImportError):
        from opendp_graph.pufferfish.dp_fit import no_such_name  # noqa: F401
