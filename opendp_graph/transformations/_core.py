"""Plumbing shared by every graph query: the constructor helper and ``then``.

The stability-rule table is :mod:`opendp_graph.transformations.rules`; ``stability_rule``,
``resolve_stability`` and ``supported_metrics`` are importable from here too (the names this
module used to define).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import opendp.prelude as dp
from opendp.mod import _PartialConstructor

from ..core.domains import graph_domain_descriptor
from ..core.metrics import metric_descriptor
from .rules import Query, StabilityMap, query_key, resolve_stability, stability_rule, supported_metrics

__all__ = ["stability_rule", "resolve_stability", "make_graph_transformation", "then_graph_transformation", "then", "supported_metrics"]


def make_graph_transformation(
    input_domain: dp.Domain,
    input_metric: dp.Metric,
    *,
    query: Query,
    output_domain: dp.Domain,
    output_metric: dp.Metric,
    function: Callable[[Any], Any],
    params: dict[str, Any] | None = None,
    adapt: Callable[[StabilityMap], StabilityMap] | None = None,
) -> dp.Transformation:
    """Build a graph query: features and arguments are checked here, at construction; the
    returned function checks domain membership before it reads the graph.

    ``query`` is the key of the query's rules in :mod:`~opendp_graph.transformations.rules`:
    its ``make_x`` constructor, a declared variant of it, or (as before) its name.

    The metric descriptor's ``stability_on(domain, map)`` may refuse distances no two graphs of
    the domain can be at (node insertion on a fixed number of nodes). Its ``check_graph(graph)``
    (:meth:`~opendp_graph.core.metrics.MetricDescriptor.check_graph`) is a precondition of its
    guarantee on the part of the graph that the metric treats as public (for example a
    Pufferfish model must cover the public structure). It runs with the domain check, before the
    query.

    ``adapt`` turns the registered rule's map into this query's (e.g. the ℓ∞ component of a
    count map's rule for the same counts as a vector under L∞)."""
    dp.assert_features("contrib", "honest-but-curious")
    domain = graph_domain_descriptor(input_domain)
    metric = metric_descriptor(input_metric)
    key = query_key(query)
    if metric.requires_labeled_domain and not domain.labeled:
        raise ValueError(
            f"{metric!r} protects edge labels only, and the domain is unlabeled: nothing would be protected "
            "(use graph_domain(labeled=True) for labelled graphs, or an edge/node metric to protect the structure)"
        )
    refusal = domain.refusal(key.name)
    if refusal is not None:
        raise ValueError(refusal)
    stability = resolve_stability(key, domain, metric, **(params or {}))
    if adapt is not None:
        stability = adapt(stability)
    stability = metric.stability_on(domain, stability)
    metric_check = metric.check_graph

    def run(graph: Any) -> Any:
        domain.check_member(graph)
        metric_check(graph)
        return function(graph)

    return dp.t.make_user_transformation(input_domain, input_metric, output_domain, output_metric, run, stability)


def then(make: Callable[..., Any]) -> Callable[..., _PartialConstructor]:
    """The ``then_x`` twin of ``make_x``: fixes every argument but the input domain and metric.

    Its signature is ``make_x``'s without ``input_domain`` and ``input_metric`` (for ``help()``
    and IDEs), and the arguments are bound to it when ``then_x(...)`` is called, so a misspelt
    or missing argument is a ``TypeError`` there, not when the chain is built.

    Its docstring is one line naming ``make_x``, then ``make_x``'s whole docstring (cleaned of
    its indentation, :func:`inspect.cleandoc`): the guarantee and its proof are stated for both
    names. It is copied when ``then`` is called, so a module that extends ``make_x.__doc__``
    must do so before ``then_x = then(make_x)``. ``pytest --doctest-modules`` collects the copied
    ``>>>`` examples a second time, under ``then_x`` in ``make_x``'s module (``then_x.__module__``
    is that module's name, and the examples run in its globals, as ``make_x``'s do): they are the
    same text, so they pass there exactly when they pass under ``make_x``.
    """
    full = inspect.signature(make)
    parameters = list(full.parameters.values())
    if [p.name for p in parameters[:2]] != ["input_domain", "input_metric"]:
        raise TypeError(f"{make.__name__} must take input_domain and input_metric first")
    signature = full.replace(parameters=parameters[2:], return_annotation="_PartialConstructor")

    def partial(*args: Any, **kwargs: Any) -> _PartialConstructor:
        try:
            signature.bind(*args, **kwargs)  # a TypeError naming the argument, at the call
        except TypeError as e:
            raise TypeError(f"{partial.__name__}{signature}: {e}") from None
        return _PartialConstructor(lambda input_domain, input_metric: make(input_domain, input_metric, *args, **kwargs))

    partial.__name__ = make.__name__.replace("make_", "then_", 1)
    partial.__qualname__ = partial.__name__
    partial.__module__ = make.__module__
    partial.__signature__ = signature  # type: ignore[attr-defined]
    header = f"Partial constructor of :func:`{make.__name__}` (omits ``input_domain`` and ``input_metric``)."
    body = inspect.getdoc(make)  # make_x's docstring, cleaned of its indentation (None if it has none)
    partial.__doc__ = f"{header}\n\n{body}" if body else header
    return partial


def int_vector_space(size: int | None = None) -> tuple[dp.Domain, dp.Metric]:
    return dp.vector_domain(dp.atom_domain(T=dp.i64), size=size), dp.l1_distance(T=dp.i64)


def int_scalar_space() -> tuple[dp.Domain, dp.Metric]:
    return dp.atom_domain(T=dp.i64), dp.absolute_distance(T=dp.i64)


def int_count_map_space() -> tuple[dp.Domain, dp.Metric]:
    return (
        dp.map_domain(dp.atom_domain(T=dp.String), dp.atom_domain(T=dp.i64)),
        dp.l01inf_distance(dp.absolute_distance(T=dp.i64)),
    )


def sqrt_up(square: int) -> float:
    """The least float ``≥ √square`` for a non-negative integer ``square`` (``inf`` past the float
    range): a sensitivity never rounded down.

    >>> sqrt_up(8), sqrt_up(16), sqrt_up(0)
    (2.8284271247461903, 4.0, 0.0)
    >>> Fraction(sqrt_up(2)) ** 2 >= 2 > Fraction(math.nextafter(sqrt_up(2), 0)) ** 2
    True
    """
    square = int(square)
    if square < 0:
        raise ValueError(f"a squared norm is non-negative, got {square}")
    if square == 0:
        return 0.0
    try:
        root = math.sqrt(square)
    except OverflowError:
        return math.inf
    exact = Fraction(square)
    while root < math.inf and Fraction(root) ** 2 < exact:  # up to the first float at or above √square
        root = math.nextafter(root, math.inf)
    while True:  # and down to the least such float
        below = math.nextafter(root, 0.0)
        if below < math.inf and Fraction(below) ** 2 >= exact:
            root = below
        else:
            return root


# the then_ forms (OpenDP's convention: every make_x of (input_domain, input_metric, ...) has one)
then_graph_transformation = then(make_graph_transformation)
