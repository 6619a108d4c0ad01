"""Pufferfish edge-label privacy on Polars edge-label tables: the row bound of one coupled
secret flip, by brute force, and the label counts of Enron under a correlation model."""

import itertools

import numpy as np
import opendp.prelude as dp
import polars as pl
import pytest

import opendp_graph as dpg
from opendp_graph.polars import compositor, edge_label_table, pufferfish_unit
from opendp_graph.verify.testing import all_graphs, all_labelings

VOCABULARY = ["california", "contract", "deal", "enron", "gas", "meeting", "power", "price", "report", "update"]


def _rows(graph):
    return set(edge_label_table(graph).rows())


@pytest.mark.parametrize(
    "model",
    [
        dpg.pufferfish.EdgeLevelModel(),
        dpg.pufferfish.MarkovQuiltModel(3),
        dpg.pufferfish.BinomialModel(p0=0.05, p1=0.9, neighbour_counts=range(6)),
    ],
    ids=["edge-level", "markov-quilt-3", "binomial"],
)
def test_one_coupled_flip_moves_at_most_flip_bound_rows(model):
    """For every pair of labelled graphs (<= 4 nodes, <= 4 edges, one property) related by one
    coupled secret flip of the model, the edge-label tables differ in <= F rows; attained."""
    unit = pufferfish_unit(model, structure=dpg.Graph.from_edges([0], [1]))
    relation = dpg.pufferfish_distance(model).descriptor
    assert unit.per_unit == model.flip_bound
    worst = related_pairs = 0
    for g in all_graphs(4):
        if not 1 <= g.num_edges <= 4:
            continue
        labellings = list(all_labelings(g, ["a"]))
        rows = [_rows(lab) for lab in labellings]
        for (i, g1), (j, g2) in itertools.product(enumerate(labellings), repeat=2):
            if relation.related(g1, g2):
                related_pairs += 1
                moved = len(rows[i] ^ rows[j])
                assert moved <= unit.per_unit
                worst = max(worst, moved)
    assert related_pairs > 0
    assert worst == min(unit.per_unit, 4)  # the flip bound is reached when the graph is big enough


def test_edge_label_table_check():
    g = dpg.Graph.from_edges([0, 1], [1, 2], labels=[["gas", "power"], ["gas"]])
    table = edge_label_table(g)
    unit = pufferfish_unit(dpg.pufferfish.EdgeLevelModel(), structure=g)
    unit.check(table)
    with pytest.raises(ValueError, match="not an edge-label table"):
        unit.check(pl.concat([table, table.head(1)]))
    with pytest.raises(ValueError, match="not an edge-label table"):
        unit.check(table.with_columns(pl.lit(None, dtype=pl.String).alias("label")))
    with pytest.raises(ValueError, match="label column 'word'"):
        pufferfish_unit(dpg.pufferfish.EdgeLevelModel(), structure=g, label="word").check(table)
    with pytest.raises(TypeError, match="correlation model"):
        pufferfish_unit("binomial", structure=g)
    with pytest.raises(ValueError, match="labeled graph"):
        edge_label_table(g.without_labels())
    assert "one row per (edge, label)" in repr(unit)


def test_enron_label_counts_under_a_binomial_model(shared_data):
    g = dpg.datasets.load_enron(shared_data / "enron-perry-wolfe")
    model = dpg.pufferfish.BinomialModel.fit(g)  # fitted on the private graph: flagged below
    unit = pufferfish_unit(model, "src", "dst", structure=g)
    assert unit.extra["data_dependent"] and "fitted on the private data" in unit.guarantee
    table = edge_label_table(g).filter(pl.col("label").is_in(VOCABULARY))
    ctx = compositor(table, unit, dp.loss_of(epsilon=1.0), split_evenly_over=1)
    keys = pl.DataFrame({"label": VOCABULARY})
    query = ctx.query().group_by("label").agg(dp.len(signed=False)).with_keys(keys)
    F = model.flip_bound
    domain, metric = ctx.accountant.input_space
    measurement = dp.m.make_private_lazyframe(domain, metric, ctx.accountant.output_measure, lazyframe=query.polars_plan, global_scale=float(F))
    # analytic: one flip moves <= F rows, each in one label's count: l1 = F, epsilon = F / scale
    assert measurement.map(F) == pytest.approx(1.0, rel=1e-12)
    assert measurement.check(F, 1.0) and not measurement.check(F, 1.0 - 1e-9)
    released = ctx(measurement).collect()
    assert sorted(released["label"].to_list()) == sorted(VOCABULARY)
    assert ctx.spent(1) == pytest.approx(1.0)

    # the graph pipeline for the same counts (no cap under a Pufferfish metric, so no property is
    # dropped): a flip moves one label's count by at most max(W, 1) <= F, no more than the table
    # route; a c below |vocabulary| is not applied and changes nothing
    space = dpg.graph_domain(labeled=True), dpg.pufferfish_distance(model)
    graph_meas = space >> dpg.then_label_counts(len(VOCABULARY), VOCABULARY) >> dp.m.then_laplace(scale=float(F))
    assert graph_meas.map(1) == pytest.approx(max(model.W, 1) / F, rel=1e-12)
    small_c = space >> dpg.then_label_counts(1, VOCABULARY)
    assert (small_c >> dp.m.then_laplace(scale=float(F))).map(1) == graph_meas.map(1)
    assert small_c(g) == (space >> dpg.then_label_counts(len(VOCABULARY), VOCABULARY))(g)
    # and without noise the two pipelines compute the same counts
    truth = dict(table.group_by("label").len().rows())
    column = {w: j for j, w in enumerate(g.vocabulary)}
    per_label = np.asarray(g.labels.sum(axis=0)).ravel()
    assert truth == {w: int(per_label[column[w]]) for w in VOCABULARY}


def test_check_privacy_unit_for_a_pufferfish_unit():
    model = dpg.pufferfish.MarkovQuiltModel(5)
    g = dpg.Graph.from_edges([0, 1], [1, 2], labels=[["gas", "power"], ["gas"]])
    unit = pufferfish_unit(model, structure=g)
    table = edge_label_table(g)
    dpg.polars.check_privacy_unit(dp.unit_of(contributions=5), unit, frame=table)
    # the unit rests on the table being an edge-label table, which only the table can show
    with pytest.raises(ValueError, match="pass frame="):
        dpg.polars.check_privacy_unit(dp.unit_of(contributions=5), unit)
    with pytest.raises(ValueError, match="d_in=4 rows does not cover"):
        dpg.polars.check_privacy_unit(dp.unit_of(contributions=4), unit)
    with pytest.raises(ValueError, match="Pufferfish unit"):
        dpg.polars.check_privacy_unit(
            dp.unit_of(contributions=[dp.polars.Bound(per_group=5), dp.polars.Bound(by=["label"], per_group=5)]), unit
        )


def test_the_unit_covers_only_its_models_secrets():
    # issue 11 through the Polars route: a model that does not cover the structure, pairs outside
    # the structure, and (Conditional model) labels the model never saw are refused before a release
    star = dpg.Graph.from_edges([0] * 10, list(range(1, 11)), labels=[["gas"]] * 10)
    with pytest.raises(ValueError, match="does not cover this structure"):
        pufferfish_unit(dpg.pufferfish.MarkovQuiltModel(3), structure=star)
    with pytest.raises(TypeError, match="public graph structure"):
        pufferfish_unit(dpg.pufferfish.MarkovQuiltModel(3), structure=edge_label_table(star))
    covered = pufferfish_unit(dpg.pufferfish.MarkovQuiltModel.for_graph(star), structure=star)
    table = edge_label_table(star)
    count = lambda ctx: ctx.query().select(dp.len(signed=False)).release().collect().item()  # noqa: E731
    assert isinstance(count(compositor(table, covered, dp.loss_of(epsilon=1.0), split_evenly_over=1)), int)
    messages = set()
    for stray in ({"src": [1], "dst": [2], "label": ["gas"]}, {"src": [3], "dst": [7], "label": ["oil"]}):
        bad = pl.concat([table, pl.DataFrame(stray, schema=table.schema)])
        with pytest.raises(ValueError, match="not edges of the structure") as info:
            compositor(bad, covered, dp.loss_of(epsilon=1.0), split_evenly_over=1)
        messages.add(str(info.value))
    assert len(messages) == 1  # which pair is outside is not said

    g = dpg.Graph.from_edges([0, 1, 2], [1, 2, 3], labels=[["p"], ["p", "q"], ["q"]])
    conditional = dpg.pufferfish.ConditionalModel.fit(g, source="public")
    unit = pufferfish_unit(conditional, structure=g)
    seen = edge_label_table(g)
    unseen = edge_label_table(g.with_label_sets([["p", "x"], ["q"], ["x"]]))
    with pytest.raises(ValueError, match="outside the model's vocabulary"):
        compositor(unseen, unit, dp.loss_of(epsilon=1.0), split_evenly_over=1)
    kept = unseen.filter(pl.col("label").is_in(conditional.vocabulary))
    for ok in (seen, kept):
        assert isinstance(count(compositor(ok, unit, dp.loss_of(epsilon=1.0), split_evenly_over=1)), int)
