"""The stability-rule table (``opendp_graph.transformations.rules``) and the declared metric
protocol (``opendp_graph.core.metrics.MetricDescriptor``): every query's rules are found in one table,
complete after ``import opendp_graph``, and every metric descriptor says what it supports."""

from __future__ import annotations

import ast
import copy
import dataclasses
import inspect
from pathlib import Path

import opendp.prelude as dp
import pytest

import opendp_graph as dpg
from opendp_graph.core.metrics import MetricDescriptor
from opendp_graph.transformations import rules
from opendp_graph.transformations.degrees import CUMULATIVE_DEGREE_HISTOGRAM_L2, DEGREE_HISTOGRAM_L2, DEGREE_TAIL_COUNTS_L2
from opendp_graph.transformations.labels import LABEL_COUNTS_LINF, LABEL_COUNTS_MONOTONIC, LabelContribution

dp.enable_features("contrib", "honest-but-curious")

PACKAGE = Path(dpg.__file__).parent

# every graph query of the package, with arguments it accepts on DOMAIN under every metric
QUERIES = {
    dpg.make_edge_count: {},
    dpg.make_triangle_count: {},
    dpg.make_degree_histogram: {"max_degree": 3},
    dpg.make_cumulative_degree_histogram: {"max_degree": 3},
    dpg.make_degree_tail_counts: {"thresholds": [1, 2]},
    dpg.make_degree_projection: {"max_degree": 2},
    dpg.make_label_counts: {"max_labels_per_edge": 2, "vocabulary": ["a", "b"]},
    dpg.make_label_count_map: {"max_labels_per_edge": 2},
    dpg.make_standard_degree_histogram: {"max_degree": 3, "vip": [0]},
    dpg.make_vip_standard_histogram: {"max_count": 3, "vip": [0]},
    dpg.make_capped_subgraph_count: {"pattern": "triangle", "cap": 2.0},
    dpg.make_clipped_label_counts: {"vocabulary": ["a", "b"], "norm_bound": 2.0},
}
# public make_x(input_domain, input_metric, ...) that are not queries of the table, and why
NOT_QUERIES = {
    "make_candidate_top_k": "a measurement composed of make_label_count_map and make_label_counts",
    "make_private_degree_distribution": "a measurement composed of the degree queries",
    "make_corrected_laplace_threshold": "a measurement on a count map, not on a graph",
    "make_corrected_gaussian_threshold": "a measurement on a count map, not on a graph",
    "make_graph_transformation": "the helper every query is built with",
    # queries on a message log (dpg.polars.message_log_domain), not on a graph: one metric each
    # (person_log_distance, both relations), whose rule is proved in the constructor's docstring
    "make_capped_total": "a query on a MessageLog, not on a graph",
    "make_capped_total_ladder": "a query on a MessageLog, not on a graph",
    "make_private_total": "a measurement on a MessageLog, not on a graph",
    "make_window_capped_totals": "a query on a MessageLog, not on a graph",
    "make_window_ladder": "a query on a MessageLog, not on a graph",
    "make_private_window_totals": "a measurement on a MessageLog, not on a graph",
    "make_message_count_projection": "a query on a MessageLog, not on a graph",
    "make_private_message_count_histogram": "a measurement on a MessageLog, not on a graph",
    "make_message_count_tails": "a query on a MessageLog, not on a graph",
    "make_person_degree_tails": "a query on a MessageLog, not on a graph",
    "make_cap_scores": "a query on a MessageLog, not on a graph",
    "make_private_total_estimate": "a measurement on a MessageLog, not on a graph",
    # edge level on a message log (pair_log_distance, polars/_pair_level.py)
    "make_message_count_histogram": "a query on a MessageLog, not on a graph",
    "make_private_subgraph_count": "a measurement composed of make_cap_scan and make_capped_subgraph_count",
    "make_cap_scan": "a measurement (a sparse-vector scan over make_capped_subgraph_count's ladder)",
    "make_ladder_triangle_count": "a measurement (the Ladder mechanism: an exponential mechanism over the triangle count's local-sensitivity ladder, proved in its docstring)",
    "make_person_graph": "a MessageLog → graph conversion (person → one rewired node, proved in its docstring), not a query on a graph",
}
# the variants of make_label_counts, by the output metric that selects them
LABEL_COUNT_VARIANTS = {
    LABEL_COUNTS_LINF: dp.linf_distance(T=dp.i64),
    LABEL_COUNTS_MONOTONIC: dp.linf_distance(T=dp.i64, monotonic=True),
}
# the ℓ2 variants of the degree queries (own rules, not derived), selected by dp.l2_distance(T=dp.f64)
DEGREE_L2_VARIANTS = {
    DEGREE_HISTOGRAM_L2: dpg.make_degree_histogram,
    CUMULATIVE_DEGREE_HISTOGRAM_L2: dpg.make_cumulative_degree_histogram,
    DEGREE_TAIL_COUNTS_L2: dpg.make_degree_tail_counts,
}
DOMAIN = dpg.graph_domain(num_nodes=4, max_degree=3, labeled=True)


def _metrics() -> dict[str, dp.Metric]:
    """One metric per public builder ``dpg.*_distance``."""
    model = dpg.pufferfish.BinomialModel(p0=0.01, p1=0.3, neighbour_counts=range(20))
    return {
        "edge_distance": dpg.edge_distance(),
        "node_distance": dpg.node_distance(),
        "node_insertion_distance": dpg.node_insertion_distance(),
        "padded_degree_distance": dpg.padded_degree_distance(3),
        "edge_label_distance": dpg.edge_label_distance(),
        "group_distance": dpg.group_distance(2),
        "degree_sequence_distance": dpg.degree_sequence_distance(),
        "blowfish_distance": dpg.blowfish_distance(dpg.BlowfishPolicy.attribute(vip=[0])),
        "pufferfish_distance": dpg.pufferfish_distance(model),
    }


METRICS = _metrics()


def _public_graph_constructors() -> set[str]:
    names = set()
    for module in (dpg, dpg.transformations, dpg.blowfish, dpg.pufferfish, dpg.polars, dpg.interpret, dpg.verify):
        for name in dir(module):
            obj = getattr(module, name)
            if name.startswith("make_") and callable(obj):
                first = list(inspect.signature(obj).parameters)[:2]
                if first == ["input_domain", "input_metric"]:
                    names.add(name)
    return names


def _package_metric_types() -> set[type]:
    found, todo = set(), [MetricDescriptor]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("opendp_graph."):
                found.add(sub)
    return found


@pytest.fixture
def scratch_table(monkeypatch):
    """Registrations made by a test are undone after it."""
    for name in ("_RULES", "_KEYS", "_BY_NAME"):
        monkeypatch.setattr(rules, name, copy.copy(getattr(rules, name)))
    monkeypatch.setattr(rules, "_RULES", {k: dict(v) for k, v in rules._RULES.items()})


# ----------------------------------------------------------------------------- (a) complete rows
def test_every_public_query_constructor_is_in_the_table():
    constructors = {row.query for row in rules.table()}
    public = _public_graph_constructors()
    assert public - set(NOT_QUERIES) == {make.__name__ for make in QUERIES}, "a new query: add it to QUERIES"
    assert constructors == {make.__name__ for make in QUERIES}


def test_builder_list_covers_every_public_metric_builder():
    builders = {n for n in dir(dpg) if n.endswith("_distance") and callable(getattr(dpg, n))}
    assert builders == set(METRICS)
    assert {type(m.descriptor) for m in METRICS.values()} == _package_metric_types()


def _outcome(make, metric, **kwargs):
    """``"built"``, ``"no rule"`` (the table has none), or ``"refused"`` (a rule refused)."""
    try:
        make(DOMAIN, metric, **kwargs)
    except ValueError as e:
        return "no rule" if "has no stability rule" in str(e) else "refused"
    return "built"


@pytest.mark.parametrize("make", list(QUERIES), ids=lambda m: m.__name__)
@pytest.mark.parametrize("metric_name", list(METRICS))
def test_a_query_builds_under_a_metric_exactly_when_the_table_has_its_row(make, metric_name):
    metric = METRICS[metric_name]
    descriptor_type = type(metric.descriptor)
    has_row = any(row.metric_type is descriptor_type and row.variant is None for row in rules.table(make))
    outcome = _outcome(make, metric, **QUERIES[make])
    assert (outcome != "no rule") == has_row, (make.__name__, metric_name, outcome)
    assert (rules.lookup(make, descriptor_type) is not None) == has_row
    assert (descriptor_type.__name__ in rules.supported_metrics(make)) == has_row


@pytest.mark.parametrize("key", list(LABEL_COUNT_VARIANTS), ids=str)
@pytest.mark.parametrize("metric_name", list(METRICS))
def test_label_count_variants_have_their_rows(key, metric_name):
    metric = METRICS[metric_name]
    descriptor_type = type(metric.descriptor)
    rows = [r for r in rules.table(dpg.make_label_counts) if r.variant == key.variant and r.metric_type is descriptor_type]
    outcome = _outcome(dpg.make_label_counts, metric, **QUERIES[dpg.make_label_counts], output_metric=LABEL_COUNT_VARIANTS[key])
    assert (outcome != "no rule") == bool(rows), (key, metric_name, outcome)


@pytest.mark.parametrize("key", list(DEGREE_L2_VARIANTS), ids=str)
@pytest.mark.parametrize("metric_name", list(METRICS))
def test_degree_l2_variants_have_their_rows(key, metric_name):
    make = DEGREE_L2_VARIANTS[key]
    descriptor_type = type(METRICS[metric_name].descriptor)
    rows = [r for r in rules.table(make) if r.variant == key.variant and r.metric_type is descriptor_type]
    assert all(r.via is None for r in rows)  # proved rules of their own, not derived
    outcome = _outcome(make, METRICS[metric_name], **QUERIES[make], output_metric=dp.l2_distance(T=dp.f64))
    assert (outcome != "no rule") == bool(rows), (key, metric_name, outcome)
    # every ℓ2 row has an L1 (L∞) row of the same module: the ℓ2 rules cover the module's notions
    if rows:
        assert any(r.variant is None and r.metric_type is descriptor_type and r.module == rows[0].module for r in rules.table(make))


def test_a_derived_variant_lists_its_sources_rules():
    linf = {r.metric: r for r in rules.table(dpg.make_label_counts) if r.variant == "linf"}
    source = {r.metric: r for r in rules.table(dpg.make_label_count_map)}
    assert set(linf) == set(source)
    assert all(linf[m].rule is source[m].rule and linf[m].via == "make_label_count_map" for m in linf)
    # the map is the source's, adapted: the ℓ∞ component
    domain, metric = DOMAIN.descriptor, dpg.edge_distance().descriptor
    c = LabelContribution(2, counted=2, domain_cap=None)
    assert rules.resolve(LABEL_COUNTS_LINF, domain, metric, c=c)(3) == rules.resolve(dpg.make_label_count_map, domain, metric, c=c)(3)[2]


def test_name_strings_stay_accepted():
    """The names the rules were registered under before the table was keyed by constructor."""
    assert rules.supported_metrics("label_counts") == rules.supported_metrics(dpg.make_label_counts)
    assert rules.query_key("label_counts_monotonic") is LABEL_COUNTS_MONOTONIC
    assert rules.query_key("degree_projection") == rules.query_key(dpg.make_degree_projection)
    assert dpg.transformations.resolve_stability is rules.resolve
    from opendp_graph.transformations._core import resolve_stability, stability_rule, supported_metrics  # the old path

    assert (resolve_stability, stability_rule, supported_metrics) == (rules.resolve, rules.stability_rule, rules.supported_metrics)
    with pytest.raises(ValueError, match="^label_counts_monotonic has no stability rule for EdgeLabelDistance"):
        rules.resolve("label_counts_monotonic", DOMAIN.descriptor, dpg.edge_label_distance().descriptor, c=2)
    before = rules.table()
    assert rules.supported_metrics("no_such_query") == [] and rules.lookup(len, dpg.EdgeDistance) is None
    assert rules.table() == before and "no_such_query" not in rules._BY_NAME  # a lookup adds nothing


def test_rules_under_a_bare_name_join_the_constructor_registered_later(scratch_table):
    class Mine(MetricDescriptor):
        pass

    early = rules.stability_rule("my_late_query", Mine)(lambda domain, metric: lambda d_in: d_in)

    def make_my_late_query(input_domain, input_metric):
        raise NotImplementedError

    @rules.stability_rule(make_my_late_query, dpg.EdgeDistance)
    def _edge(domain, metric):
        return lambda d_in: d_in

    assert rules.lookup(make_my_late_query, Mine) is early and rules.lookup("my_late_query", dpg.EdgeDistance) is _edge
    assert [r.query for r in rules.table("my_late_query")] == ["make_my_late_query"] * 2


# ----------------------------------------------------------------------------- (b) complete on import
def test_the_table_is_complete_after_import_opendp_graph(python_output):
    code = (
        "import opendp_graph\n"
        "from opendp_graph.transformations import rules\n"
        "print(sorted({row.module for row in rules.table()}))\n"
    )
    out = python_output(code)
    modules = eval(out)
    assert {"opendp_graph.blowfish.rules", "opendp_graph.pufferfish.metric"} <= set(modules)
    assert {"opendp_graph.transformations.degrees", "opendp_graph.transformations.labels"} <= set(modules)
    for module in modules:  # the module docstring names every registering module
        assert module.rsplit(".", 1)[-1] in rules.__doc__


def test_the_transformations_do_not_import_the_layers_above():
    for path in (PACKAGE / "transformations").glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                module = ("." * node.level) + (node.module or "")
                assert not any(layer in module for layer in ("blowfish", "pufferfish")), (path.name, module)


def test_no_module_imports_the_private_core_for_rules():
    for path in PACKAGE.rglob("*.py"):
        if path.parent.name == "transformations":
            continue
        text = path.read_text()
        assert "transformations._core" not in text, path


# ----------------------------------------------------------------------------- (c) registration
def test_registering_twice_for_one_pair_is_refused(scratch_table):
    class Mine(MetricDescriptor):
        pass

    def make_my_query(input_domain, input_metric):
        raise NotImplementedError

    rule = rules.stability_rule(make_my_query, Mine)(lambda domain, metric: lambda d_in: d_in)
    with pytest.raises(ValueError, match="my_query under Mine is already registered"):
        rules.stability_rule(make_my_query, Mine)(lambda domain, metric: lambda d_in: 0)
    assert rules.lookup(make_my_query, Mine) is rule
    before = rules.table(dpg.make_edge_count)
    with pytest.raises(ValueError, match="edge_count under EdgeDistance is already registered"):
        rules.stability_rule(dpg.make_edge_count, dpg.EdgeDistance)(lambda domain, metric: lambda d_in: 0)
    assert rules.table(dpg.make_edge_count) == before
    with pytest.raises(ValueError, match="register the rule there"):
        rules.stability_rule(LABEL_COUNTS_LINF, Mine)
    with pytest.raises(ValueError, match="already declared"):
        rules.variant(dpg.make_label_counts, "linf", derived_from=dpg.make_edge_count)


def test_a_rule_needs_a_declared_metric_type(scratch_table):
    class Loose:  # does not derive from MetricDescriptor
        def distance(self, g1, g2):
            return 0

    with pytest.raises(TypeError, match="MetricDescriptor"):
        rules.stability_rule(dpg.make_edge_count, Loose)


def test_a_user_metric_deriving_from_the_base_works(scratch_table):
    @dataclasses.dataclass(frozen=True)
    class Whole(MetricDescriptor):
        """Every two graphs on the same nodes are at distance 1 (a toy notion)."""

    @rules.stability_rule(dpg.make_edge_count, Whole)
    def _edges_whole(domain, metric):
        return lambda d_in: d_in * domain.num_nodes * (domain.num_nodes - 1) // 2

    metric = dp.user_distance(repr(Whole()), descriptor=Whole())
    t = dpg.make_edge_count(dpg.graph_domain(num_nodes=4), metric)
    assert t.map(1) == 6 and t(dpg.Graph.from_edges([0], [1], num_nodes=4)) == 1
    assert rules.table(dpg.make_edge_count)[-1].metric == "Whole"


def test_a_user_metric_not_deriving_from_the_base_is_refused():
    @dataclasses.dataclass(frozen=True)
    class Loose:
        pass

    metric = dp.user_distance("Loose()", descriptor=Loose())
    with pytest.raises(TypeError, match="does not derive from opendp_graph.core.metrics.MetricDescriptor"):
        dpg.make_edge_count(dpg.graph_domain(), metric)


# ----------------------------------------------------------------------------- (d) declared protocol
def test_every_metric_descriptor_class_derives_from_the_protocol():
    for metric in METRICS.values():
        assert isinstance(metric.descriptor, MetricDescriptor), metric
    # every metric the package builds is built in one of these modules, from a descriptor above
    builders = {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if "user_distance(" in path.read_text()
    }
    # measurements/_message_log.py builds person_log_distance and polars/_pair_level.py pair_log_distance,
    # metrics on message logs (not graph metrics, so not MetricDescriptors): their queries do not
    # use the graph rule table
    assert builders == {"core/metrics.py", "blowfish/metric.py", "pufferfish/metric.py", "measurements/_message_log.py",
                        "polars/_pair_level.py"}


@pytest.mark.parametrize("metric_name", list(METRICS))
def test_capabilities_are_declared_attributes(metric_name):
    descriptor = METRICS[metric_name].descriptor
    declared = ["requires_labeled_domain", "label_cap_lowers_sensitivity", "vocabulary", "one_edge_distance"]
    for name in declared:
        assert hasattr(MetricDescriptor, name) and hasattr(descriptor, name)
    assert isinstance(descriptor.requires_labeled_domain, bool)
    assert isinstance(descriptor.label_cap_lowers_sensitivity, bool)
    assert descriptor.vocabulary is None or isinstance(descriptor.vocabulary, tuple)
    assert descriptor.check_graph(dpg.Graph.from_edges([0], [1], num_nodes=4, labels=[["a"]])) is None


def test_stability_on_keeps_a_rule_map_except_where_the_metric_refuses_it():
    def rule_map(d_in):
        return 3 * d_in

    free, fixed = (dpg.graph_domain().descriptor, dpg.graph_domain(num_nodes=5).descriptor)  # what the rules receive
    for name, metric in METRICS.items():
        assert metric.descriptor.stability_on(free, rule_map) is rule_map, name
        if name != "node_insertion_distance":
            assert metric.descriptor.stability_on(fixed, rule_map) is rule_map, name
    insertion = dpg.node_insertion_distance().descriptor.stability_on(fixed, rule_map)
    assert [insertion(d) for d in (0, 2, 3)] == [0, 6, 9]
    with pytest.raises(ValueError, match="no two graphs of this domain are one insertion apart"):
        insertion(1)


def test_the_capabilities_the_queries_read():
    assert dpg.edge_label_distance().descriptor.requires_labeled_domain
    assert not dpg.edge_distance().descriptor.requires_labeled_domain
    assert not METRICS["pufferfish_distance"].descriptor.label_cap_lowers_sensitivity
    assert [METRICS[n].descriptor.one_edge_distance for n in ("edge_distance", "node_insertion_distance", "edge_label_distance")] == [
        1,
        2,
        float("inf"),
    ]
    assert dpg.blowfish_distance(dpg.BlowfishPolicy.attribute()).descriptor.one_edge_distance == 1
    assert METRICS["blowfish_distance"].descriptor.one_edge_distance == float("inf")  # with VIPs


def test_no_undeclared_capability_is_read_through_getattr():
    """The flag reads of the queries are attribute reads of declared capabilities now."""
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text()
        for capability in ("requires_labeled_domain", "check_graph", "vocabulary", "label_cap_lowers_sensitivity", "one_edge_distance"):
            if path.name == "_units.py" and capability == "vocabulary":
                continue  # a Pufferfish *model*'s vocabulary there, not a metric's
            assert f'getattr(metric, "{capability}"' not in text and f'"{capability}", None)' not in text, (path, capability)


# ----------------------------------------------------------------------------- (e) LabelContribution
def test_label_contribution_is_an_immutable_value_not_an_int():
    c = LabelContribution(2, counted=3, domain_cap=None)
    assert not isinstance(c, int)
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.c = 5
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.counted = None
    with pytest.raises(TypeError):
        2 * c  # noqa: B018  (a rule must read c.c)
    assert hash(c) == hash(LabelContribution(2, counted=3, domain_cap=None))
    assert LabelContribution.of(2) == LabelContribution(2, counted=None, domain_cap=None)
    assert LabelContribution.of(c) is c
    assert repr(LabelContribution(2, counted=3, domain_cap=1, uncapped=True)) == "LabelContribution(2, counted=3, domain_cap=1, uncapped=True)"
