"""``source=`` of the correlation models' fits (issue 16): what the caller asserts, and what the
model then says (``docs/guarantees.md``, *Source*).

``source="private"`` (the default) marks the model data-dependent and its summary warns;
``source="public"`` is the caller's unchecked assertion that the fitting graph is public, and the
summary says so ("asserted public by the caller") instead of presenting it as a fact. Anything
else is refused with a ``ValueError`` naming the two allowed values. ``source`` is keyword-only.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import opendp_graph as dpg
from opendp_graph.pufferfish import models as pm
from opendp_graph.pufferfish import BinomialModel, ConditionalModel, EdgeLevelModel, GlobalModel, MarkovQuiltModel, fit_all

PRIVATE_NOTE = "fitted on the private data without protection"
PUBLIC_NOTE = "asserted public by the caller"


@pytest.fixture(scope="module")
def graph():
    return dpg.Graph.from_edges([0, 1, 2, 2], [1, 2, 3, 0], labels=[["a"], ["a", "b"], ["b"], []])


def _fits(graph, **kwargs):
    """Every way of fitting a model that takes ``source=``: ``{name: model}``."""
    out = {
        "BinomialModel.fit": BinomialModel.fit(graph, **kwargs),
        "GlobalModel.fit": GlobalModel.fit(graph, **kwargs),
        "ConditionalModel.fit": ConditionalModel.fit(graph, **kwargs),
    }
    out.update({f"fit_all[{name}]": model for name, model in fit_all(graph, **kwargs).items()})
    return out


FITTERS = {
    "BinomialModel.fit": BinomialModel.fit,
    "GlobalModel.fit": GlobalModel.fit,
    "ConditionalModel.fit": ConditionalModel.fit,
    "fit_all": fit_all,
}


def test_every_function_taking_source_is_covered_and_documents_it():
    """Whatever in the models package takes ``source`` is one of FITTERS, keyword-only with default
    "private", and its docstring says what the caller asserts and what follows if it is false."""
    # models is a package, one module per model kind: every public module of it is searched
    modules = [pm] + [importlib.import_module(info.name) for info in pkgutil.iter_modules(pm.__path__, pm.__name__ + ".")
                      if not info.name.rpartition(".")[2].startswith("_")]
    ours = {module.__name__ for module in modules}
    takes_source = {}
    for name, obj in [item for module in modules for item in vars(module).items()]:
        if name.startswith("_"):
            continue
        candidates = [(name, obj)]
        if inspect.isclass(obj) and obj.__module__ in ours:
            candidates = [(f"{name}.{attr}", getattr(obj, attr)) for attr in vars(obj)
                          if not attr.startswith("_") and callable(getattr(obj, attr, None))]
        for qual, fn in candidates:
            if not callable(fn) or getattr(fn, "__module__", None) not in ours:
                continue
            try:
                params = inspect.signature(fn).parameters
            except (TypeError, ValueError):
                continue
            if "source" in params:
                takes_source[qual] = (fn, params["source"])
    assert set(takes_source) == set(FITTERS)
    for qual, (fn, param) in takes_source.items():
        assert param.kind is inspect.Parameter.KEYWORD_ONLY, qual
        assert param.default == "private", qual
        doc = " ".join(inspect.getdoc(fn).split())
        for needed in ("``source``", '``"private"``', '``"public"``', "your assertion", "not checked",
                       "data_dependent = True", "data_dependent = False", "asserted public by the caller",
                       "If the assertion is false", "disclosed unprotected", "no DP guarantee for the choice of model",
                       "ValueError"):
            assert needed in doc, f"{qual}: {needed!r} missing from its docstring"


def test_default_is_private_and_says_so(graph):
    for name, model in _fits(graph).items():
        assert model.data_dependent is True, name
        assert model.fitted_on.startswith("the private graph itself"), name
        assert "fitted_on='private'" in repr(model), name
        summary = model.summary()
        assert PRIVATE_NOTE in summary and "W itself is disclosed unprotected" in summary, name
        assert PUBLIC_NOTE not in summary, name


def test_explicit_private_is_the_default(graph):
    default, explicit = _fits(graph), _fits(graph, source="private")
    for name in default:
        assert default[name].fingerprint() == explicit[name].fingerprint(), name
        assert default[name].summary() == explicit[name].summary(), name


def test_public_is_the_callers_assertion_not_a_fact(graph):
    for name, model in _fits(graph, source="public").items():
        assert model.data_dependent is False, name
        assert model.fitted_on == "a graph asserted public by the caller (source='public'; not checked)", name
        assert "fitted_on='public'" in repr(model), name
        summary = model.summary()
        assert PRIVATE_NOTE not in summary, name
        assert f"fitted on: {model.fitted_on}" in summary, name
        # the NOTE says it is an assertion, unchecked, and what holds if it is false
        assert "NOTE: the fitting data were asserted public by the caller" in summary, name
        assert "this is not checked" in summary, name
        for consequence in ("ε-Pufferfish only for the attacker class this fitted model defines",
                            "W itself is disclosed unprotected", "the choice of model has no DP guarantee"):
            assert consequence in " ".join(summary.split()), (name, consequence)


def test_public_changes_only_the_labels(graph):
    """A false assertion gives the very model of a private fit (same W, gaps, flips): the
    guarantee is that fit's; only data_dependent, fitted_on, repr and summary differ."""
    private, public = _fits(graph), _fits(graph, source="public")
    for name in private:
        a, b = private[name], public[name]
        assert (a.W, tuple(a.gaps), a.flip_bound) == (b.W, tuple(b.gaps), b.flip_bound), name
        assert a.vocabulary == b.vocabulary, name
        assert a.fingerprint() != b.fingerprint(), name  # the label is part of the metric's identity
        assert repr(dpg.pufferfish_distance(a)) != repr(dpg.pufferfish_distance(b)), name


@pytest.mark.parametrize("bad", ["secret", "Public", "PUBLIC", " public", "", "auxiliary", None, True, False, 1, ["public"], ("public",)])
@pytest.mark.parametrize("fitter", sorted(FITTERS))
def test_invalid_source_is_refused_naming_the_allowed_values(graph, fitter, bad):
    with pytest.raises(ValueError, match="source") as info:
        FITTERS[fitter](graph, source=bad)
    message = str(info.value)
    assert "'private'" in message and "'public'" in message
    assert repr(bad) in message


@pytest.mark.parametrize("fitter", sorted(FITTERS))
def test_source_cannot_be_passed_by_position(graph, fitter):
    fn = FITTERS[fitter]
    positional = [graph] + ([10.0] if fitter in ("ConditionalModel.fit", "fit_all") else []) + ["public"]
    with pytest.raises(TypeError):
        fn(*positional)


def test_parameters_supplied_to_a_constructor_are_also_an_assertion():
    """data_dependent=False at construction is the caller's word too: the summary says so."""
    binomial = BinomialModel(0.1, 0.3, [1, 2])
    global_ = GlobalModel([1, 2], [0, 1, 2], 2, 10.0, fitted_on="a law I measured elsewhere", data_dependent=False)
    for model in (binomial, global_):
        assert model.data_dependent is False
        assert PUBLIC_NOTE in model.summary()
    marked = GlobalModel([1, 2], [0, 1, 2], 2, 10.0, fitted_on="the private graph", data_dependent=True)
    assert PRIVATE_NOTE in marked.summary() and PUBLIC_NOTE not in marked.summary()


def test_models_that_read_no_private_label_carry_no_assertion(graph):
    for model in (EdgeLevelModel(), MarkovQuiltModel.for_structure(graph), MarkovQuiltModel(3)):
        assert model.data_dependent is False
        summary = model.summary()
        assert PUBLIC_NOTE not in summary and PRIVATE_NOTE not in summary
