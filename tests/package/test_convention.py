"""One convention, enforced (issue 42): OpenDP's.

* Every public ``make_x`` whose first two parameters are ``input_domain`` and ``input_metric`` has
  its ``then_x`` beside it, in the same module's ``__all__`` and wherever ``make_x`` is lifted
  (a subpackage, ``dpg.``), made by :func:`opendp_graph.transformations.then` (OpenDP's
  ``to_then``: the same signature without those two, ``make_x``'s docstring).
* Every public ``then_x`` has its ``make_x``.
* No public ``make_x``/``then_x`` of ours takes a name OpenDP's ``dp.t``/``dp.m``/``dp.c`` already
  use: the same name with another privacy map would be a trust problem (the corrected thresholds
  are ``make_corrected_*``, ``docs/threshold_correction.md``).

A new constructor that breaks one of these fails here, with its name.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import opendp.prelude as dp
import pytest

import opendp_graph


def _public_modules():
    modules = [opendp_graph]
    for info in pkgutil.walk_packages(opendp_graph.__path__, "opendp_graph.", onerror=lambda name: None):
        if any(part.startswith("_") for part in info.name.split(".")[1:]) or info.name.endswith(".conftest"):
            continue
        try:
            modules.append(importlib.import_module(info.name))
        except ImportError:  # an optional extra that is not installed
            continue
    return modules


MODULES = _public_modules()


def _exported(module, prefix):
    return {name: getattr(module, name) for name in getattr(module, "__all__", ()) if name.startswith(prefix)}


def _takes_a_space(function) -> bool:
    try:
        parameters = list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return False
    return parameters[:2] == ["input_domain", "input_metric"]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_every_space_constructor_has_its_then_form(module):
    makes = _exported(module, "make_")
    thens = _exported(module, "then_")
    for name, make in makes.items():
        if not _takes_a_space(make):
            continue
        twin = "then_" + name[len("make_"):]
        assert twin in thens, f"{module.__name__}.{name} takes (input_domain, input_metric) but {twin} is not exported beside it"
        then = thens[twin]
        expected = list(inspect.signature(make).parameters.values())[2:]
        assert list(inspect.signature(then).parameters.values()) == expected, f"{module.__name__}.{twin}'s signature is not {name}'s"
        assert then.__doc__.partition("\n")[0].startswith(f"Partial constructor of :func:`{name}`"), (
            f"{module.__name__}.{twin} is not made by transformations.then({name})"
        )


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_every_then_form_has_its_make(module):
    makes = _exported(module, "make_")
    for name in _exported(module, "then_"):
        assert "make_" + name[len("then_"):] in makes, f"{module.__name__}.{name} has no make_ beside it"


def test_no_constructor_takes_an_opendp_name():
    opendp_names = {name for space in (dp.t, dp.m, dp.c) for name in dir(space) if name.startswith(("make_", "then_"))}
    ours = {(module.__name__, name) for module in MODULES for name in getattr(module, "__all__", ()) if name.startswith(("make_", "then_"))}
    clashes = sorted(f"{module}.{name}" for module, name in ours if name in opendp_names)
    assert not clashes, f"these take OpenDP's names with our own maps: {clashes}"


def test_the_check_sees_the_constructors():
    """The walk reaches every layer that has constructors (a test that checks nothing cannot fail)."""
    names = {module.__name__ for module in MODULES if any(_takes_a_space(f) for f in _exported(module, "make_").values())}
    for expected in ("opendp_graph", "opendp_graph.transformations", "opendp_graph.measurements", "opendp_graph.polars",
                     "opendp_graph.text", "opendp_graph.blowfish"):
        assert expected in names


def test_every_module_declares_its_names():
    """Every module of the package has an ``__all__`` (docs/architecture.md): what it offers, even
    when that is nothing."""
    import ast
    from pathlib import Path

    root = Path(opendp_graph.__file__).parent
    missing = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        declared = any(
            isinstance(node, (ast.Assign, ast.AnnAssign))
            and any(isinstance(t, ast.Name) and t.id == "__all__" for t in (node.targets if isinstance(node, ast.Assign) else [node.target]))
            for node in tree.body
        )
        if not declared:
            missing.append(str(path.relative_to(root)))
    assert not missing, f"modules without __all__: {missing}"


BUDGET_NAMES = {"epsilon", "rho", "delta"}


def _constructors():
    found = {}
    for module in MODULES:
        for name in getattr(module, "__all__", ()):
            value = getattr(module, name)
            if callable(value) and (name.startswith("make_") or name == "private_language_model"):
                found[f"{module.__name__}.{name}"] = value
    return found


def test_one_way_to_pass_a_budget():
    """A constructor that spends a budget takes it as ``privacy_loss``, OpenDP's ``(measure,
    distance)`` pair from ``dp.loss_of(...)`` as ``dp.Context`` takes it; none takes ``epsilon``,
    ``rho`` or ``delta`` (docs/architecture.md)."""
    spending = []
    for name, constructor in _constructors().items():
        parameters = set(inspect.signature(constructor).parameters)
        assert not parameters & BUDGET_NAMES, f"{name} takes {sorted(parameters & BUDGET_NAMES)}: use privacy_loss=dp.loss_of(...)"
        if "privacy_loss" in parameters:
            spending.append(name)
    assert "opendp_graph.polars.make_private_total" in spending and "opendp_graph.text.private_language_model" in spending


@pytest.mark.parametrize(
    "build",
    [
        lambda budget: opendp_graph.make_private_degree_distribution(
            opendp_graph.graph_domain(), opendp_graph.node_insertion_distance(), budget, [4]),
        lambda budget: opendp_graph.polars.make_private_total(
            opendp_graph.polars.message_log_domain(), opendp_graph.polars.person_log_distance(), budget, max_contribution=4),
        lambda budget: opendp_graph.polars.make_private_total_estimate(
            opendp_graph.polars.message_log_domain(), opendp_graph.polars.person_log_distance(), budget, caps=[2, 4]),
        lambda budget: opendp_graph.polars.make_private_message_count_histogram(
            opendp_graph.polars.message_log_domain(), opendp_graph.polars.person_log_distance(), budget, [2, 4], roster=[1, 2]),
        lambda budget: opendp_graph.polars.make_private_window_totals(
            opendp_graph.polars.message_log_domain(), opendp_graph.polars.person_log_distance(), budget,
            windows=["2020-01-01", "2020-02-01"], caps=[2, 4]),
        lambda budget: opendp_graph.text.make_private_language_model(
            opendp_graph.graph_domain(labeled=True), opendp_graph.edge_distance(), budget,
            snapshot_counts={"gas": 1.0}, vocabulary=["gas"]),
        lambda budget: opendp_graph.text.make_private_topics(
            opendp_graph.graph_domain(labeled=True), opendp_graph.edge_distance(), budget,
            num_topics=1, snapshot_counts={"gas+power": 1.0}, vocabulary=["gas", "power"]),
    ],
)
def test_a_bare_number_or_a_foreign_measure_is_refused_naming_the_form(build):
    with pytest.raises(TypeError, match=r"privacy_loss=dp\.loss_of\("):
        build(1.0)
    with pytest.raises(ValueError, match=r"takes privacy_loss=dp\.loss_of\("):
        build((dp.renyi_divergence(), 1.0))


def test_every_stability_map_outside_the_rule_table_is_named_with_its_reason():
    """``docs/architecture.md`` lists every ``make_user_transformation`` outside the rule table's
    builder (``transformations/_core.py``), by module and enclosing function."""
    import ast
    from pathlib import Path

    root = Path(opendp_graph.__file__).parent
    page = (root.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if relative == "transformations/_core.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
            calls = (n for n in ast.walk(function) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute))
            if any(call.func.attr == "make_user_transformation" for call in calls):
                found.append(f"`{relative}: {function.name}`")
    assert len(found) >= 10  # the walk sees them (a check that finds nothing cannot fail)
    missing = [name for name in found if name not in page]
    assert not missing, f"stability maps outside the rule table, not named in docs/architecture.md: {missing}"


def test_red_team_budget_findings_stay_fixed():
    """Red team of the privacy_loss form (issue 42): the Binomial fit spent one float step above
    ε (0.30000000000000004 at ε = 0.3); a tiny ε crashed in OpenDP; a bad value's refusal did not
    name the form; a δ too small to halve was reported as the halved value."""
    graph = opendp_graph.Graph.from_edges([0, 1, 2], [1, 2, 3], labels=[["gas"], ["gas", "power"], ["power"]])
    for epsilon in (0.3, 0.7, 1 / 3, 1e-6, 1e300):
        model = opendp_graph.pufferfish.BinomialModel.fit_dp(
            graph, dp.loss_of(epsilon=epsilon), vocabulary=["gas", "power"], max_labels_per_edge=2
        )
        assert model.fit_details["measurement"].map(1) <= epsilon
    space = opendp_graph.polars.message_log_domain(), opendp_graph.polars.person_log_distance()
    with pytest.raises(ValueError, match="no noise scale reaches"):
        opendp_graph.polars.make_private_total(*space, dp.loss_of(epsilon=1e-300), max_contribution=4)
    with pytest.raises(ValueError, match=r"epsilon must be a positive finite number.*dp\.loss_of\(epsilon=\.\.\.\)"):
        opendp_graph.polars.make_private_total(*space, dp.loss_of(epsilon=-1.0), max_contribution=4)
    with pytest.raises(ValueError, match="too small to be split"):
        opendp_graph.text.make_private_language_model(
            opendp_graph.graph_domain(labeled=True), opendp_graph.edge_distance(), dp.loss_of(epsilon=1.0, delta=5e-324),
            snapshot_counts={"gas": 1.0}, vocabulary=["gas"],
        )


def test_no_space_constructor_hides_outside_all():
    """A ``make_x(input_domain, input_metric, …)`` defined in any module of the package (private
    modules included) is in that module's ``__all__`` or has a private name (``_make_x``): the tests
    above read ``__all__``, so a constructor left out of it would escape them (review: ``make_binned``
    did)."""
    hidden = []
    for info in pkgutil.walk_packages(opendp_graph.__path__, "opendp_graph."):
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional extra that is not installed
            continue
        exported = set(getattr(module, "__all__", ()))
        for name, function in vars(module).items():
            if (
                name.startswith("make_")
                and inspect.isfunction(function)
                and function.__module__ == module.__name__
                and _takes_a_space(function)
                and name not in exported
            ):
                hidden.append(f"{module.__name__}.{name}")
    assert not hidden, f"space constructors outside __all__ (export them with their then_ form, or name them _make_x): {hidden}"


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_the_budget_is_the_third_argument(module):
    """Every ``make_x(input_domain, input_metric, …)`` that spends a budget takes it third, as
    ``privacy_loss`` (positional or by name): one place, as OpenDP's constructors put their noise
    scale right after the space (review: ``make_ngram_count_release`` took it fifth, by keyword only)."""
    for name, make in _exported(module, "make_").items():
        if not _takes_a_space(make):
            continue
        parameters = list(inspect.signature(make).parameters.values())
        names = [p.name for p in parameters]
        if "privacy_loss" in names:
            assert names.index("privacy_loss") == 2, f"{module.__name__}.{name} takes privacy_loss as argument {names.index('privacy_loss') + 1}"
            assert parameters[2].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD, f"{name}: privacy_loss must be positional or keyword"
