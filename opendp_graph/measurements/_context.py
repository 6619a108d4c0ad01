"""Registration of the graph queries with OpenDP's Context API (``dp.register``), done once, and
:func:`context`: ``dp.Context.compositor`` on a graph, under every privacy loss OpenDP's Context
composes (ε, ρ, (ε, δ), (ρ, δ))."""

from __future__ import annotations

import inspect
import math
import reprlib
from numbers import Real
from typing import Any

import opendp.prelude as dp
from opendp.context import PartialChain, Query

from ..core._checks import open_probability, positive_budget

__all__ = ["register_with_context", "check_privacy_loss", "privacy_budget", "zcdp_budget", "context"]

_registered = False

# the graph queries registered with the Context API, by their Context name (make_x → "x")
_GRAPH_QUERIES = (
    "edge_count",
    "degree_histogram",
    "cumulative_degree_histogram",
    "degree_tail_counts",
    "triangle_count",
    "label_counts",
    "label_count_map",
    "degree_projection",
)

# the privacy measures OpenDP's Context composes, with the name of their loss parameter
_MEASURES = {
    "MaxDivergence": "epsilon",
    "ZeroConcentratedDivergence": "rho",
    "Approximate<MaxDivergence>": "epsilon",
    "Approximate<ZeroConcentratedDivergence>": "rho",
}
_LOSSES = "dp.loss_of(epsilon=...) (pure DP), dp.loss_of(rho=...) (zCDP), dp.loss_of(epsilon=..., delta=...) or dp.loss_of(rho=..., delta=...)"
_L2_METRICS = (("dp.l2_distance(T=dp.f64)", lambda: dp.l2_distance(T=dp.f64)), ("dp.l2_distance(T=dp.i64)", lambda: dp.l2_distance(T=dp.i64)))


def register_with_context() -> None:
    """Make ``ctx.query().degree_histogram(...)`` and friends available. Idempotent."""
    global _registered
    if _registered:
        return
    from .. import transformations as t

    for name in _GRAPH_QUERIES:
        dp.register(getattr(t, f"make_{name}"))
    _registered = True


# ------------------------------------------------------------------------- the privacy loss
def _loss_value(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"the privacy loss's {name} must be a real number, got {type(value).__name__} {value!r}")
    if math.isnan(value) or value < 0:
        raise ValueError(f"the privacy loss's {name} must be a non-negative number, got {value!r}")


def check_privacy_loss(privacy_loss: Any) -> tuple[Any, Any]:
    """``privacy_loss`` (from ``dp.loss_of``) if it is one OpenDP's Context composes and the
    accounting of this package adds up: a measure among ``max_divergence`` (ε),
    ``zero_concentrated_divergence`` (ρ) and their ``approximate`` forms ((ε, δ), (ρ, δ)), with a
    non-negative number, or a pair of one and a ``δ`` in ``[0, 1]``. Anything else is refused
    before OpenDP sees it, with the problem named (``ValueError``; ``TypeError`` for what is not
    a ``(measure, distance)`` pair of numbers): a Rényi or smoothed max-divergence measure (its
    losses are curves, which neither OpenDP's Context nor :meth:`UnitContext.spent
    <opendp_graph.polars.UnitContext.spent>` adds), a δ with a pure measure, a negative or NaN loss.

    >>> import opendp.prelude as dp
    >>> check_privacy_loss(dp.loss_of(rho=0.5))
    (ZeroConcentratedDivergence, 0.5)
    >>> check_privacy_loss((dp.zero_concentrated_divergence(), (0.5, 1e-6)))
    Traceback (most recent call last):
    ...
    ValueError: ZeroConcentratedDivergence takes one number (rho), got (0.5, 1e-06); for a delta use the approximate measure, dp.loss_of(rho=..., delta=...)
    """
    if not (isinstance(privacy_loss, tuple) and len(privacy_loss) == 2):
        raise TypeError(f"privacy_loss must be a (measure, distance) pair from {_LOSSES}, got {privacy_loss!r}")
    measure, distance = privacy_loss
    if not isinstance(measure, dp.Measure):
        raise TypeError(f"privacy_loss must be a (measure, distance) pair from {_LOSSES}; its first item is {measure!r}")
    kind = str(measure.type)
    if kind not in _MEASURES:
        raise ValueError(
            f"privacy_loss measures privacy with {measure}, which a Context of this package does not account (its "
            f"losses are not one number or an (ε, δ) pair that add up under composition); use {_LOSSES}"
        )
    name = _MEASURES[kind]
    if kind.startswith("Approximate"):
        if not (isinstance(distance, tuple) and len(distance) == 2):
            raise ValueError(f"{measure} takes a pair ({name}, delta), got {distance!r}; build it with dp.loss_of({name}=..., delta=...)")
        value, delta = distance
        _loss_value(name, value)
        _loss_value("delta", delta)
        if delta > 1:
            raise ValueError(f"the privacy loss's delta is a probability, at most 1, got {delta!r}")
    else:
        if isinstance(distance, tuple):
            raise ValueError(
                f"{measure} takes one number ({name}), got {distance!r}; for a delta use the approximate measure, dp.loss_of({name}=..., delta=...)"
            )
        _loss_value(name, distance)
    return measure, distance


def privacy_budget(privacy_loss: Any, accepts: tuple[str, ...], constructor: str) -> dict[str, float]:
    """The budget a constructor spends, from ``privacy_loss``: OpenDP's ``(measure, distance)``
    pair, built by ``dp.loss_of(epsilon=...)``, ``dp.loss_of(rho=...)`` or
    ``dp.loss_of(epsilon=..., delta=...)``, exactly as ``dp.Context.compositor(privacy_loss=...)``
    takes it: the one way every releasing constructor of the package takes a budget (the measure
    says which accounting, and so which noise). ``accepts`` names the forms ``constructor``
    supports (``"epsilon"``, ``"rho"``, ``"epsilon, delta"``, ``"rho, delta"``). Returns
    ``{"epsilon": ε}``, ``{"rho": ρ}`` or with ``"delta"``, each budget the largest float not
    above it (:func:`positive_budget`), δ a probability in ``(0, 1)``.

    >>> import opendp.prelude as dp
    >>> privacy_budget(dp.loss_of(epsilon=1.0), ("epsilon",), "make_x")
    {'epsilon': 1.0}
    >>> privacy_budget(dp.loss_of(rho=0.5), ("epsilon",), "make_x")
    Traceback (most recent call last):
    ...
    ValueError: make_x takes privacy_loss=dp.loss_of(epsilon=...), got a budget in rho (dp.loss_of(rho=...))
    >>> privacy_budget(1.0, ("epsilon",), "make_x")
    Traceback (most recent call last):
    ...
    TypeError: make_x takes its budget as privacy_loss=dp.loss_of(epsilon=...) (OpenDP's (measure, distance) pair, as dp.Context takes it), got 1.0
    """
    wanted = " or ".join(f"dp.loss_of({', '.join(f'{n}=...' for n in form.split(', '))})" for form in accepts)
    if not (isinstance(privacy_loss, tuple) and len(privacy_loss) == 2 and isinstance(privacy_loss[0], dp.Measure)):
        raise TypeError(
            f"{constructor} takes its budget as privacy_loss={wanted} (OpenDP's (measure, distance) pair, "
            f"as dp.Context takes it), got {privacy_loss!r}"
        )
    measure, distance = privacy_loss
    kind = str(measure.type)
    form = None if kind not in _MEASURES else _MEASURES[kind] + (", delta" if kind.startswith("Approximate") else "")
    if form is None:
        raise ValueError(f"{constructor} takes privacy_loss={wanted}; {measure} is not a measure it accounts")
    if form not in accepts:
        given = "dp.loss_of(" + ", ".join(f"{n}=..." for n in form.split(", ")) + ")"
        raise ValueError(f"{constructor} takes privacy_loss={wanted}, got a budget in {form} ({given})")
    names = form.split(", ")
    values = distance if len(names) == 2 else (distance,)
    if not (isinstance(values, tuple) and len(values) == len(names)):
        raise ValueError(f"{constructor}: a privacy_loss in {form} holds {len(names)} number(s), got {distance!r}")
    try:
        budget = {names[0]: positive_budget(names[0], values[0])}
        if len(names) == 2:
            budget["delta"] = open_probability("delta", values[1])
    except ValueError as error:  # name the form to use beside the broken value (red team)
        raise ValueError(f"{constructor}: {error}; build privacy_loss with {wanted}") from None
    return budget


def zcdp_budget(epsilon: float, delta: float) -> float:
    """The largest ρ whose zCDP guarantee OpenDP converts to at most ``(epsilon, delta)``
    (``dp.c.make_zCDP_to_approxDP``): the budget to give a context as ``dp.loss_of(rho=...)``
    when the target is ``(ε, δ)`` and the releases are Gaussian. Releases composed under that ρ
    (ρ adds) then satisfy ``(ε, δ)``-DP as a whole, by OpenDP's conversion applied once.

    This is how a Polars unit gets an ``(ε, δ)`` budget *through zCDP*: OpenDP's Polars Context
    adds Laplace noise under ``dp.loss_of(epsilon=..., delta=...)`` and Gaussian noise under
    ``dp.loss_of(rho=...)``, so ``dpg.polars.compositor(data, unit, dp.loss_of(rho=dpg.zcdp_budget(ε, δ)))``
    is the Gaussian route to ``(ε, δ)``. (Thresholded Polars releases spend a δ of their own,
    under ``dp.loss_of(rho=..., delta=...)``.)

    >>> import opendp_graph as dpg
    >>> rho = dpg.zcdp_budget(1.0, 1e-6)
    >>> round(rho, 5)
    0.02436
    """
    epsilon = positive_budget("epsilon", epsilon)
    delta = open_probability("delta", delta)

    def converted(rho: float) -> float:
        # a measurement whose zCDP map is exactly rho, converted by OpenDP
        exact = dp.m.make_user_measurement(
            dp.atom_domain(T=float, nan=False),
            dp.absolute_distance(T=float),
            dp.zero_concentrated_divergence(),
            function=lambda x: x,
            privacy_map=lambda d_in: rho,
        )
        return dp.c.make_zCDP_to_approxDP(exact).map(1.0).epsilon(delta)

    def within(rho: float) -> bool:
        try:
            return converted(rho) <= epsilon
        except dp.OpenDPException as error:
            if error.variant != "Overflow":
                raise
            # a ρ OpenDP cannot convert is never taken: it would be a budget no conversion
            # backs (the red team's (1e-300, 1e-300) got a ρ OpenDP cannot convert, about
            # (3e-153, 1e-300)-DP); OpenDP overflows at a subnormal ρ and far above any useful ρ
            return False

    # ρ may exceed ε (ε = 1, δ = 0.5 allows ρ ≈ 1.016) or be far below it (ε = 1e-30 allows
    # ρ ≈ 1.4e-12, the conversion giving 0 below): widen the upper end from a normal float until
    # it is out of reach, so that the boundary lies inside the search's bounds
    high = max(epsilon, 1e-300)
    for _ in range(220):  # 1024^220 · 1e-300 overflows a float: every finite boundary is found
        if not within(high):
            break
        high *= 1024
    else:
        raise ValueError(f"no largest ρ for (epsilon={epsilon!r}, delta={delta!r}): every ρ converts within it")
    # and narrow the lower end to a factor 1024 below it (a ρ that converts within ε), so that the
    # search bisects about 60 floats, not the ~1,100 between 0 and a tiny boundary (7 s where no ρ
    # converts, as at (1e-300, 1e-300)); ρ reaches 0 after at most ~110 steps down
    low = high / 1024
    while low > 0 and not within(low):
        high, low = low, low / 1024
    rho = dp.binary_search(within, bounds=(low, high), T=float) if low > 0 else 0.0
    if not rho > 0 or not within(rho):
        raise ValueError(
            f"OpenDP converts no positive ρ to within (epsilon={epsilon!r}, delta={delta!r}) in its arithmetic: use a larger epsilon or delta"
        )
    return rho


# ----------------------------------------------------------- queries that say what to write
def _metric_kind(metric: Any) -> str:
    """``"L1Distance"`` for ``L1Distance<i64>`` (the type's name without its arguments and path)."""
    return str(metric.type).split("<")[0].split("::")[-1]


_short = reprlib.Repr()
_short.maxlist = _short.maxtuple = 6
_short.maxstring = 40


def _call_text(name: str, args: tuple, kwargs: dict, metric_text: str | None = None) -> str:
    """``.label_counts(2, ['hi', 'lunch'], output_metric=dp.l2_distance(T=dp.f64))``: a query as
    the user writes it (long lists shortened), ``metric_text`` in place of its ``output_metric``."""
    parts = [_short.repr(a) for a in args]
    for key, value in kwargs.items():
        if key != "output_metric":
            parts.append(f"{key}={_short.repr(value)}")
    if metric_text is not None:
        parts.append(f"output_metric={metric_text}")
    return f".{name}({', '.join(parts)})"


def _l2_version(name: str, args: tuple, kwargs: dict, before: Any) -> str | None:
    """The ``output_metric=`` (as code) with which the graph query ``name(*args, **kwargs)``,
    chained after ``before``, feeds OpenDP's Gaussian, or ``None`` if it has none. Built, not
    guessed: the query is constructed with each ℓ2 metric and handed to ``make_gaussian`` (public
    parameters only; no data is read)."""
    from opendp.context import constructors

    constructor = constructors[name][0]
    if "output_metric" not in inspect.signature(constructor).parameters or isinstance(before, PartialChain):
        return None
    for text, make_metric in _L2_METRICS:
        others = {k: v for k, v in kwargs.items() if k != "output_metric"}
        try:
            query = before >> constructor(*args, **others, output_metric=make_metric())
            dp.m.make_gaussian(query.output_domain, query.output_metric, scale=1.0)
        except Exception:  # this metric is not one the query offers (or the Gaussian takes)
            continue
        return text
    return None


def _gaussian_metric_refusal(query: _GraphQuery, metric: Any) -> str:
    kind = _metric_kind(metric)
    step = query._dpg_step
    if step is not None:
        name, args, kwargs, before = step
        written = _call_text(name, args, kwargs, None if "output_metric" not in kwargs else "...")
        fix = _l2_version(name, args, kwargs, before) if kind in ("L1Distance", "LInfDistance") else None
        if fix is not None:
            return (
                f".gaussian() needs an ℓ2 output metric (OpenDP's Gaussian is calibrated to an ℓ2 sensitivity), and "
                f"{written} gives {metric}: write {_call_text(name, args, kwargs, fix)}.gaussian(), or release it "
                "with .laplace()"
            )
        if kind == "L1Distance":
            return (
                f".gaussian() needs an ℓ2 output metric (OpenDP's Gaussian is calibrated to an ℓ2 sensitivity), and "
                f"{written} gives {metric} and offers no ℓ2 output metric: release it with .laplace() (the context "
                "converts its loss to the context's measure)"
            )
    if kind in ("L01InfDistance", "L02InfDistance"):
        return (
            f".gaussian() adds noise to a vector or a number; this query is a count map ({metric}), whose keys are "
            "private: release it with a thresholded mechanism (dpg.then_corrected_gaussian_threshold after "
            "output_metric=dp.l02inf_distance(dp.absolute_distance(T=dp.f64)), through ctx(measurement))"
        )
    return f".gaussian() needs an ℓ2 output metric (OpenDP's Gaussian is calibrated to an ℓ2 sensitivity); this query gives {metric}"


def _refuse_mismatch(query: _GraphQuery, name: str) -> None:
    """Refuse, before OpenDP does (with ``No match for concrete type L1Distance<i64>``, or
    ``Unable to cast measure`` at release), a noise the query or the context cannot take,
    saying what to write instead. Reads public parameters only."""
    assert query._context is not None  # a query of a _GraphContext (its query() and the queries built from it)
    descriptor = getattr(query._context.accountant.input_metric, "descriptor", None)
    wrapper = getattr(descriptor, "release_wrapper", None)
    if wrapper is not None and name not in _GRAPH_QUERIES:
        raise ValueError(
            f".{name}(): every release under {query._context.accountant.input_metric} must be wrapped by {wrapper} "
            "(it adds the metric's δ); build the measurement, wrap it, and spend it with ctx(measurement)"
        )
    if name == "noise_threshold":
        raise ValueError(
            ".noise_threshold() is OpenDP 0.16's, whose privacy map under-reports δ on integer counts; build the "
            "release with dpg.then_corrected_laplace_threshold or dpg.then_corrected_gaussian_threshold (calibrated by "
            "dpg.calibrate_laplace_threshold / dpg.calibrate_gaussian_threshold) and spend it with ctx(measurement)"
        )
    if name in ("laplace_threshold", "gaussian_threshold"):
        # OpenDP 0.16's maps of these under-report δ on integer counts (dpg.make_corrected_laplace_threshold,
        # dpg.make_corrected_gaussian_threshold); the corrected ones cannot take OpenDP's names in the Context
        raise ValueError(
            f".{name}() is OpenDP 0.16's, whose privacy map under-reports δ on integer counts; build the release "
            f"with dpg.then_corrected_{name}(scale, threshold) (calibrated by dpg.calibrate_{name}) and spend it with "
            "ctx(measurement)"
        )
    measure = str(query._output_measure.type)
    chain = query._chain
    metric = chain.output_metric if isinstance(chain, dp.Transformation) else None
    if name == "gaussian":
        if measure == "MaxDivergence":
            raise ValueError(
                ".gaussian() measures privacy in zCDP (ρ), which a pure ε-DP context cannot hold: build the context "
                "with dp.loss_of(rho=...) (zCDP) or dp.loss_of(epsilon=..., delta=...) (OpenDP converts each Gaussian "
                "release to (ε, δ) at the query's δ), or release with .laplace()"
            )
        if metric is not None and _metric_kind(metric) not in ("L2Distance", "AbsoluteDistance"):
            raise ValueError(_gaussian_metric_refusal(query, metric))
    elif name == "laplace":
        if measure == "Approximate<ZeroConcentratedDivergence>":
            raise ValueError(
                ".laplace() measures privacy in pure ε-DP, which OpenDP 0.16 cannot convert to approximate zCDP, the "
                "context's dp.loss_of(rho=..., delta=...): release with .gaussian() (after an ℓ2 output metric), or "
                "build the context with dp.loss_of(rho=...)"
            )
        if metric is not None and _metric_kind(metric) == "L2Distance":
            raise ValueError(
                f".laplace() needs an L1 output metric (OpenDP's Laplace is calibrated to an ℓ1 sensitivity), and this "
                f"query gives {metric}: drop its output_metric= for .laplace(), or release it with .gaussian()"
            )


def _as_keywords(name: str, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """Positional arguments of a graph query past its required ones, as keywords: OpenDP's Query
    counts every positional argument against the required parameters (``.label_count_map(2,
    vocabulary)`` would be "1 parameter(s) too many")."""
    from opendp.context import constructors

    parameters = list(inspect.signature(constructors[name][0]).parameters.values())
    required = 0
    for parameter in parameters:
        if parameter.default is not parameter.empty or parameter.name in kwargs:
            break
        required += 1
    if len(args) <= required:
        return args, kwargs
    extra = dict(kwargs)
    for parameter, value in zip(parameters[required:], args[required:]):
        if parameter.name in extra:
            raise TypeError(f"{name}() got multiple values for argument {parameter.name!r}")
        extra[parameter.name] = value
    if len(args) > len(parameters):
        raise TypeError(f"{name}() takes {len(parameters)} arguments, got {len(args)}")
    return args[:required], extra


class _GraphQuery(Query):
    """A query of a :func:`context`: OpenDP's ``Query`` (``ctx.query()...``), which in addition
    refuses a noise its chain or its context cannot take before OpenDP does, saying what to write
    (``.gaussian()`` after an L1 query, in a pure ε context, ...), takes the graph queries'
    optional arguments positionally too, and gives ``param()`` through a measure conversion."""

    _dpg_step: tuple | None = None
    """``(name, args, kwargs, chain before)`` when the last step was a graph query."""

    @classmethod
    def _of(cls, query: Query, step: tuple | None = None) -> _GraphQuery:
        graph_query = cls(
            chain=query._chain,
            output_measure=query._output_measure,
            d_in=query._d_in,
            d_out=query._d_out,
            context=query._context,
            _wrap_release=query._wrap_release,
        )
        graph_query._dpg_step = step
        return graph_query

    def new_with(self, *, chain: Any, wrap_release: Any = None) -> _GraphQuery:
        return _GraphQuery._of(super().new_with(chain=chain, wrap_release=wrap_release))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        make = super().__getattr__(name)

        def chained(*args: Any, **kwargs: Any) -> _GraphQuery:
            _refuse_mismatch(self, name)
            graph = name in _GRAPH_QUERIES
            if graph:
                args, kwargs = _as_keywords(name, args, kwargs)
            query = make(*args, **kwargs)
            assert isinstance(query, _GraphQuery)  # OpenDP's make returns self.new_with(...), a _GraphQuery
            if graph:
                query._dpg_step = (name, args, kwargs, self._chain)
            return query

        chained.__name__ = name
        chained.__doc__ = getattr(make, "__doc__", None)
        return chained

    def param(self, allow_transformations: bool = False, bounds: Any = None, T: Any = None) -> Any:
        """The parameter OpenDP's search found (the noise scale), as ``Query.param``, also when the
        context converts the release's measure (Laplace under zCDP, Gaussian under (ε, δ)), where
        OpenDP 0.16's ``param()`` returns ``None`` (the conversion's wrapper does not keep it):
        the search is the one ``resolve()`` runs, and the conversion does not change the scale."""
        if isinstance(self._chain, PartialChain):
            assert self._d_in is not None and self._d_out is not None  # as OpenDP's resolve() asserts
            fixed = self._chain.fix(self._d_in, self._d_out, self._output_measure, bounds=bounds, T=T)
            return getattr(fixed, "param", None)
        return super().param(allow_transformations=allow_transformations, bounds=bounds, T=T)

    def compositor(self, *args: Any, **kwargs: Any) -> _GraphQuery:
        query = super().compositor(*args, **kwargs)
        assert isinstance(query, _GraphQuery)  # self.new_with(...) (OpenDP returns a PartialChain on a partial chain: "pragma: no cover")
        wrap = query._wrap_release
        assert wrap is not None  # OpenDP's compositor wraps the release (into a Context)
        query._wrap_release = lambda queryable: _GraphContext._of(wrap(queryable))
        return query


class _GraphContext(dp.Context):
    """The ``dp.Context`` :func:`context` returns: its queries are :class:`_GraphQuery`."""

    @classmethod
    def _of(cls, context: dp.Context) -> _GraphContext:
        return cls(
            accountant=context.accountant,
            queryable=context.queryable,  # type: ignore[arg-type]  # OpenDP 0.16 types the attribute wider than __init__ (an OdometerQueryable too)
            d_in=context.d_in,
            d_mids=context.d_mids,
            d_out=context.d_out,
            query_space=context.query_space,
        )

    def query(self, **kwargs: Any) -> _GraphQuery:
        query = super().query(**kwargs)
        assert isinstance(query, Query)  # OpenDP makes a LazyFrameQuery only on a LazyFrame domain, and this is a graph's
        return _GraphQuery._of(query)


def context(
    data: Any,
    privacy_unit: tuple[Any, Any],
    privacy_loss: tuple[Any, Any],
    *,
    domain: Any = None,
    split_evenly_over: int | None = None,
    split_by_weights: Any = None,
) -> Any:
    """``dp.Context.compositor`` on a :class:`~opendp_graph.Graph`, with the graph domain filled in.

    OpenDP infers a domain only for its own data types: ``dp.Context.compositor(data=graph, ...)``
    without ``domain=`` fails with ``UnknownTypeException: <class 'opendp_graph.core.graph.Graph'>``.
    This does what OpenDP does for a table, from the graph's public *type* only: without
    ``domain=`` it uses ``dpg.graph_domain(labeled=graph.is_labeled)``, which promises nothing
    about the data (no node count, no degree bound); pass ``domain=dpg.graph_domain(...)`` for a
    release that needs a public promise (a node count for Blowfish, ``max_degree`` for node-level
    queries), as with ``dp.Context.compositor``. The graph is checked against the domain at every
    release, as everywhere in this package.

    **Privacy losses.** Every loss OpenDP's Context composes: ``dp.loss_of(epsilon=ε)``,
    ``dp.loss_of(rho=ρ)`` (zCDP), ``dp.loss_of(epsilon=ε, delta=δ)`` and ``dp.loss_of(rho=ρ,
    delta=δ)``; anything else (a Rényi measure, a negative loss, a δ with a pure measure) is
    refused here with a ``ValueError`` naming the problem. The noise is the one the query
    names (``.laplace()``, ``.gaussian()``: OpenDP's Context does not choose it), and OpenDP's
    Context converts the release's loss to the context's measure, as for any OpenDP query:
    ``.laplace()`` under zCDP costs ``ρ = ε²/2`` (``make_pureDP_to_zCDP``); ``.gaussian()``
    under ``(ε, δ)`` is ``make_fix_delta(make_zCDP_to_approxDP(...), δ_q)`` at the query's
    share ``δ_q`` of ``δ``, its scale searched for the share's ε; ``.laplace()`` under ``(ε, δ)``
    costs ``(ε_q, 0)``. Several Gaussian releases under one ``(ε, δ)`` usually cost less composed in
    zCDP and converted once: ``ctx.query().compositor(split_evenly_over=k,
    output_measure=dp.zero_concentrated_divergence()).release()`` is OpenDP's nested context for
    that (its queries are this function's, as below). The budget split (``split_evenly_over``,
    ``split_by_weights``) is OpenDP's, in the context's measure.

    **Which metric for which noise.** OpenDP's Gaussian is calibrated to an ℓ2 sensitivity and its
    Laplace to an ℓ1 one: the label queries give ℓ2 with ``output_metric=dp.l2_distance(T=dp.f64)``
    (``√c`` per edge instead of ``c``), and the scalar queries (edge count, triangle count) take
    either noise. A query whose metric the noise cannot take is refused when it is written, with
    what to write (``.label_counts(2, vocab).gaussian()`` says to add the ℓ2 ``output_metric``;
    ``.gaussian()`` in a pure ε context says which loss to use). Optional arguments of the graph
    queries may be given positionally (``.label_count_map(2, vocab)``), and ``query.param()``
    gives the scale also through a conversion (OpenDP's returns ``None`` there).

    :param data: the private graph.
    :param privacy_unit: ``(metric, d_in)``, e.g. ``(dpg.edge_distance(), 1)``.
    :param privacy_loss: ``dp.loss_of(...)``: ε, ρ, (ε, δ) or (ρ, δ) (see above).
    :param domain: a domain from :func:`~opendp_graph.graph_domain`, or ``None`` (see above).
    :param split_evenly_over: as in ``dp.Context.compositor``.
    :param split_by_weights: as in ``dp.Context.compositor``.
    :return: a ``dp.Context``; its queries include the graph queries (``ctx.query().edge_count()``).

    :example:

    >>> import networkx as nx, opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> g = dpg.Graph.from_networkx(nx.karate_club_graph())
    >>> ctx = dpg.context(g, (dpg.edge_distance(), 1), dp.loss_of(epsilon=1.0), split_evenly_over=2)
    >>> ctx.query().edge_count().laplace().param()
    2.0

    Under zCDP, ``ρ = 0.5`` split over two queries: the label counts move by ``√2`` in ℓ2 when
    one edge (with two of the labels) is added or removed, so ``ρ = 0.25 = 2 / (2σ²)`` needs
    ``σ = 2``, and the Context's accounting is OpenDP's:

    >>> labelled = dpg.Graph.from_edges([0, 1, 2], [1, 2, 0], labels=[["hi", "lunch"], ["hi"], []])
    >>> ctx = dpg.context(labelled, (dpg.edge_distance(), 1), dp.loss_of(rho=0.5), split_evenly_over=2)
    >>> query = ctx.query().label_counts(2, ["hi", "lunch"], output_metric=dp.l2_distance(T=dp.f64)).gaussian()
    >>> round(query.param(), 6), dpg.accuracy(query.resolve()).noise
    (2.0, 'discrete_gaussian')
    >>> counts = query.release()
    >>> ctx.remaining_privacy_loss()
    [0.25]
    >>> ctx.query().label_counts(2, ["hi", "lunch"]).gaussian()
    Traceback (most recent call last):
    ...
    ValueError: .gaussian() needs an ℓ2 output metric (OpenDP's Gaussian is calibrated to an ℓ2 sensitivity), and .label_counts(2, ['hi', 'lunch']) gives L1Distance(i64): write .label_counts(2, ['hi', 'lunch'], output_metric=dp.l2_distance(T=dp.f64)).gaussian(), or release it with .laplace()
    """
    from ..core._checks import not_a_graph
    from ..core.domains import graph_domain, graph_domain_descriptor
    from ..core.graph import Graph

    dp.assert_features("contrib", "honest-but-curious")
    if not isinstance(data, Graph):
        raise TypeError(not_a_graph(data))
    check_privacy_loss(privacy_loss)
    if domain is None:
        domain = graph_domain(labeled=data.is_labeled)
    else:
        graph_domain_descriptor(domain)  # a TypeError naming what was given, before OpenDP sees it
    register_with_context()
    compositor = dp.Context.compositor(
        data=data,
        privacy_unit=privacy_unit,
        privacy_loss=privacy_loss,
        domain=domain,
        split_evenly_over=split_evenly_over,
        split_by_weights=split_by_weights,
    )
    return _GraphContext._of(compositor)
