"""The stability-rule table: every query's sensitivity under every neighbour notion, in one place.

A *stability rule* maps ``(domain descriptor, metric descriptor, **query parameters)`` to a
stability map ``d_in -> d_out``, or raises a ``ValueError`` saying why the query has no finite
sensitivity under that metric (for example node-level privacy without a degree bound). The table
is keyed by the query's constructor (``make_label_counts``, the function itself) and the metric
descriptor's type (a subclass of :class:`~opendp_graph.core.metrics.MetricDescriptor`), so a new
neighbour notion (a Blowfish policy, a Pufferfish model) adds its proven sensitivities next to
its own definition with :func:`stability_rule`, without touching the queries.

A query with several output metrics proved by different rules has one *variant* per rule
(:func:`variant`, e.g. ``make_label_counts`` into ``linf_distance(monotonic=True)``): a
declared key, not a magic string. A variant may be *derived*: its map is another query's map,
adapted (``make_label_counts`` under ``linf_distance`` is the ℓ∞ component of
``make_label_count_map``'s rule).

**Who registers.** :mod:`opendp_graph.transformations.degrees`, ``.labels``, ``.projection``,
``.triangles``, ``.subgraphs`` and ``.label_vectors`` (imported by
:mod:`opendp_graph.transformations`);
:mod:`opendp_graph.blowfish.rules` (imported by :mod:`opendp_graph.blowfish`) and
:mod:`opendp_graph.pufferfish.metric` (imported by :mod:`opendp_graph.pufferfish`). ``import
opendp_graph`` imports all of them, so after it :func:`table` is complete:

>>> import opendp_graph as dpg
>>> from opendp_graph.transformations import rules
>>> [(row.metric, row.module) for row in rules.table(dpg.make_label_count_map) if row.variant is None]  # doctest: +NORMALIZE_WHITESPACE
[('BlowfishDistance', 'opendp_graph.blowfish.rules'),
 ('EdgeDistance', 'opendp_graph.transformations.labels'),
 ('EdgeLabelDistance', 'opendp_graph.transformations.labels'),
 ('GroupDistance', 'opendp_graph.transformations.labels'),
 ('NodeDistance', 'opendp_graph.transformations.labels'),
 ('NodeInsertionDistance', 'opendp_graph.transformations.labels'),
 ('PufferfishDistance', 'opendp_graph.pufferfish.metric')]

**Names.** Every key also has a query *name* (``"label_counts"``: the constructor's name without
``make_``; ``"label_counts_monotonic"`` for that variant), used in error messages and by a
domain's :meth:`~opendp_graph.GraphDomain.refusal`. For backward compatibility every function
here also accepts a name string in place of a key; a name no constructor has is a key of its
own (a query written with ``make_graph_transformation(query="my_query")``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..core.metrics import MetricDescriptor

__all__ = [
    "QueryKey",
    "Row",
    "stability_rule",
    "variant",
    "query_key",
    "lookup",
    "resolve",
    "resolve_stability",
    "supported_metrics",
    "table",
]

StabilityMap = Callable[[Any], Any]
StabilityRule = Callable[..., StabilityMap]


@dataclass(frozen=True)
class QueryKey:
    """A row key of the table: a query constructor, or one of its variants.

    ``derived_from`` and ``adapt`` make a derived variant: its rules are those of
    ``derived_from``, their maps passed through ``adapt``."""

    constructor: Callable[..., Any] | None
    """The ``make_x`` function (``None`` for a query known by its name only)."""
    variant: str | None
    """The variant's name, ``None`` for the query's default rule."""
    name: str
    """The query name of error messages and domain refusals."""
    derived_from: QueryKey | None = field(default=None, compare=False)
    adapt: Callable[[StabilityMap], StabilityMap] | None = field(default=None, compare=False)

    def __str__(self) -> str:
        base = self.constructor.__name__ if self.constructor is not None else repr(self.name)
        return base if self.variant is None else f"{base}[{self.variant}]"


Query = QueryKey | Callable[..., Any] | str


@dataclass(frozen=True)
class Row:
    """One row of :func:`table`: ``query`` (its constructor's name, e.g. ``"make_label_counts"``),
    ``variant``, ``metric`` (the descriptor type's name), ``metric_type``, ``rule`` (the function),
    ``module`` (where the rule is defined) and ``via`` (for a derived variant, the query whose
    rule it adapts)."""

    query: str
    variant: str | None
    metric: str
    metric_type: type
    rule: StabilityRule
    module: str
    via: str | None = None


_RULES: dict[QueryKey, dict[type, StabilityRule]] = {}
_BY_NAME: dict[str, QueryKey] = {}
_KEYS: dict[tuple[Any, str | None], QueryKey] = {}


def _slot(key: QueryKey) -> tuple[Any, str | None]:
    return (key.constructor, key.variant) if key.constructor is not None else (None, key.name)


def _remember(key: QueryKey) -> QueryKey:
    """``key`` in the table's index (or the equal key already there)."""
    known = _KEYS.get(_slot(key))
    if known is not None:
        return known
    if key.derived_from is None:
        other = _BY_NAME.get(key.name)
        if other is not None and other.constructor is None and key.constructor is not None:
            # rules registered under the bare name before the constructor: they are its rules
            del _KEYS[(None, other.name)]
            _RULES[key] = _RULES.pop(other, {})
        elif other is not None and other != key:
            raise ValueError(f"the query name {key.name!r} already names {other}; give {key} another name")
        _BY_NAME[key.name] = key
    _KEYS[_slot(key)] = key
    return key


def query_key(query: Query) -> QueryKey:
    """The key of ``query``: a :class:`QueryKey` as it is, a constructor's default key, or the
    key a name string stands for (the query of that name, or a name-only key). A lookup: it
    adds nothing to the table."""
    if isinstance(query, QueryKey):
        return _KEYS.get(_slot(query), query)
    if isinstance(query, str):
        known = _BY_NAME.get(query)
        return known if known is not None else QueryKey(None, None, query)
    if callable(query):
        known = _KEYS.get((query, None))
        if known is not None:
            return known
        name = query.__name__
        return QueryKey(query, None, name[len("make_") :] if name.startswith("make_") else name)
    raise TypeError(f"a query is a make_x constructor, a QueryKey or a query name, got {query!r}")


def variant(
    constructor: Callable[..., Any],
    name: str,
    *,
    derived_from: Query | None = None,
    adapt: Callable[[StabilityMap], StabilityMap] | None = None,
) -> QueryKey:
    """Declare the variant ``name`` of ``constructor``'s rules (a key for :func:`stability_rule`
    and ``make_graph_transformation(query=...)``). Its query name is ``<constructor's>_<name>``;
    a derived variant's rules are ``derived_from``'s, their maps passed through ``adapt``, and
    its query name is ``derived_from``'s."""
    base = _remember(query_key(constructor))
    if derived_from is None:
        if adapt is not None:
            raise ValueError("adapt is for a derived variant (derived_from=...)")
        return _remember(QueryKey(constructor, name, f"{base.name}_{name}"))
    source = _remember(query_key(derived_from))
    key = QueryKey(constructor, name, source.name, derived_from=source, adapt=adapt)
    known = _KEYS.get((constructor, name))
    if known is not None and (known.derived_from, known.adapt) != (key.derived_from, key.adapt):
        raise ValueError(f"{known} is already declared, derived from {known.derived_from}")
    return _remember(key)


def stability_rule(query: Query, *metric_types: type) -> Callable[[StabilityRule], StabilityRule]:
    """Decorator registering ``rule(domain, metric, **params) -> stability_map`` for ``query``
    (its constructor, a :func:`variant`, or a query name) under each of ``metric_types`` (each
    a subclass of :class:`~opendp_graph.core.metrics.MetricDescriptor`). Registering twice for the
    same pair is an error, and so is registering for a derived variant (it has its source's)."""
    key = _remember(query_key(query))
    if key.derived_from is not None:
        raise ValueError(f"{key} is derived from {key.derived_from}: register the rule there")
    for metric_type in metric_types:
        if not (isinstance(metric_type, type) and issubclass(metric_type, MetricDescriptor)):
            raise TypeError(
                f"a stability rule is registered for a metric descriptor type deriving from "
                f"opendp_graph.core.metrics.MetricDescriptor, got {metric_type!r}"
            )

    def register(rule: StabilityRule) -> StabilityRule:
        table = _RULES.setdefault(key, {})
        for metric_type in metric_types:
            if metric_type in table:
                raise ValueError(f"a stability rule for {key.name} under {metric_type.__name__} is already registered")
        for metric_type in metric_types:
            table[metric_type] = rule
        return rule

    return register


def _source(key: QueryKey) -> QueryKey:
    return key.derived_from if key.derived_from is not None else key


def lookup(query: Query, metric_type: type) -> StabilityRule | None:
    """The rule registered for ``query`` under exactly ``metric_type`` (for a derived variant,
    its source's rule, not adapted), or ``None``."""
    return _RULES.get(_source(query_key(query)), {}).get(metric_type)


def supported_metrics(query: Query) -> list[str]:
    """The names of the metric descriptor types ``query`` has a rule for, sorted."""
    return sorted(t.__name__ for t in _RULES.get(_source(query_key(query)), {}))


def resolve(query: Query, domain: Any, metric: Any, **params: Any) -> StabilityMap:
    """The stability map of ``query`` on ``domain`` under the metric descriptor ``metric`` (the
    rule of its exact type), or a ``ValueError`` naming the supported metrics."""
    key = query_key(query)
    source = _source(key)
    rule = _RULES.get(source, {}).get(type(metric))
    if rule is None:
        hint = metric.missing_rule_hint  # declared by every MetricDescriptor
        raise ValueError(
            f"{source.name} has no stability rule for {metric!r}; supported metrics: {', '.join(supported_metrics(source))}"
            + (f" ({hint})" if hint else "")
        )
    stability = rule(domain, metric, **params)
    return key.adapt(stability) if key.adapt is not None else stability


resolve_stability = resolve


def table(query: Query | None = None) -> list[Row]:
    """Every rule of the table (of ``query`` only, if given; for a constructor, with its
    variants), one :class:`Row` per (query, variant, metric type), sorted by query, variant and
    metric name. Derived variants list their source's rules, with ``via`` set."""
    if query is None:
        keys = list(_KEYS.values())
    else:
        wanted = query_key(query)
        whole = wanted.variant is None and wanted.constructor is not None  # a constructor: with its variants
        keys = [k for k in _KEYS.values() if k == wanted or (whole and k.constructor is wanted.constructor)]
    rows = []
    for key in keys:
        source = _source(key)
        for metric_type, rule in _RULES.get(source, {}).items():
            rows.append(
                Row(
                    query=key.constructor.__name__ if key.constructor is not None else key.name,
                    variant=key.variant,
                    metric=metric_type.__name__,
                    metric_type=metric_type,
                    rule=rule,
                    module=rule.__module__,
                    via=None if source is key else str(source),
                )
            )
    return sorted(rows, key=lambda r: (r.query, r.variant or "", r.metric))
