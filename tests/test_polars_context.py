"""OpenDP Polars queries under graph privacy units, on Enron and email-Eu-core: releases, the
privacy loss against its analytic value, accounting in people and edges, and refusals."""

import itertools

import numpy as np
import opendp.prelude as dp
import polars as pl
import pytest

import opendp_graph as dpg
from opendp_graph.polars import compositor, edge_content_unit, edge_group_unit, edge_unit, loss_for, person_unit

# A public list of words (chosen without looking at the data's counts).
VOCABULARY = ["california", "contract", "deal", "enron", "gas", "meeting", "power", "price", "report", "update"]
DEPARTMENTS = 42
CAP = 600  # public cap on the messages (directed pairs) one person of email-Eu-core sends or receives


@pytest.fixture(scope="module")
def eu_log(shared_data):
    return dpg.datasets.load_email_eu_core_messages(shared_data / "email-eu-core")


@pytest.fixture(scope="module")
def enron_words(shared_data):
    """One row per (message, recipient, subject word in VOCABULARY)."""
    log = dpg.datasets.load_enron_messages(shared_data / "enron-perry-wolfe")
    subjects = log.select("subject").unique().with_columns(
        word=pl.col("subject").map_elements(lambda s: sorted(set(dpg.datasets.tokenize_subject(s))), return_dtype=pl.List(pl.String))
    )
    words = log.join(subjects, on="subject", how="left", nulls_equal=True).explode("word")
    return words.filter(pl.col("word").is_in(VOCABULARY))


def _at_scale(ctx, query, scale):
    """The measurement of a context query at a given noise scale: one OpenDP construction
    (``query.resolve()`` would binary-search the scale, which is slow)."""
    domain, metric = ctx.accountant.input_space
    return dp.m.make_private_lazyframe(
        domain, metric, ctx.accountant.output_measure, lazyframe=query.polars_plan, global_scale=scale
    )


def _boundary(measurement, d_in, epsilon):
    assert measurement.check(d_in, epsilon)
    assert not measurement.check(d_in, epsilon - 1e-9)


def test_person_level_counts_per_department_on_email_eu(eu_log):
    unit = person_unit("sender", "recipient", max_messages=CAP)
    ctx = compositor(eu_log, unit, dp.loss_of(epsilon=1.0), split_evenly_over=2)
    keys = pl.DataFrame({"sender_department": np.arange(DEPARTMENTS, dtype=np.int64)})
    query = ctx.query().group_by("sender_department").agg(dp.len(signed=False)).with_keys(keys)
    # analytic: a rewired person moves <= 2*CAP rows, each row counts in one department, so the
    # l1 sensitivity is 2*CAP and the discrete Laplace loss is 2*CAP / scale: with the scale
    # set for epsilon = 0.5 (the per-query budget), OpenDP must report exactly 0.5
    epsilon = 0.5
    scale = 2 * CAP / epsilon
    measurement = _at_scale(ctx, query, scale)
    assert measurement.map(unit.per_unit) == pytest.approx(epsilon, rel=1e-12)
    _boundary(measurement, unit.per_unit, measurement.map(unit.per_unit))
    assert not _at_scale(ctx, query, scale * 0.99).check(unit.per_unit, epsilon)
    assert loss_for(measurement, unit, 3) == pytest.approx(3 * epsilon, rel=1e-12)

    released = ctx(measurement).collect()
    assert released.height == DEPARTMENTS and released["len"].dtype.is_integer()
    assert ctx.spent(1) == pytest.approx(epsilon, rel=1e-12)
    assert ctx.spent(2) == pytest.approx(2 * epsilon, rel=1e-12)
    assert ctx.budget() == pytest.approx(1.0)
    table = ctx.accounting(units=(1, 5))
    assert table["d_in"].to_list() == [2 * CAP, 10 * CAP] and table["unit"].to_list() == ["person", "person"]
    assert "person" in repr(ctx)


def test_person_bound_violated_on_email_eu_is_refused(eu_log):
    worst = int(dpg.polars.rows_per_person(eu_log, "sender", "recipient")["rows"].max())
    assert worst == 545
    with pytest.raises(ValueError, match=r"max_messages=544 per person"):
        compositor(eu_log, person_unit("sender", "recipient", max_messages=544), dp.loss_of(epsilon=1.0), split_evenly_over=1)
    compositor(eu_log, person_unit("sender", "recipient", max_messages=545), dp.loss_of(epsilon=1.0), split_evenly_over=1)


def test_person_level_on_enron_departments(shared_data):
    folder = shared_data / "enron-perry-wolfe"
    log = dpg.datasets.load_enron_messages(folder)
    employees = dpg.datasets.load_enron_employees(folder).select(pl.col("id").alias("sender"), pl.col("department"))
    log = log.join(employees, on="sender", how="left")
    with pytest.raises(ValueError, match="max_messages=4704 per person"):
        compositor(log, person_unit("sender", "recipient", max_messages=4704), dp.loss_of(epsilon=1.0), split_evenly_over=1)
    compositor(log, person_unit("sender", "recipient", max_messages=4705), dp.loss_of(epsilon=1.0), split_evenly_over=1)
    unit = person_unit("sender", "recipient", max_messages=5000, neighbouring="add_remove")
    ctx = compositor(log, unit, dp.loss_of(epsilon=1.0), split_evenly_over=1)
    keys = pl.DataFrame({"department": ["Legal", "Other", "Trading"]})
    query = ctx.query().group_by("department").agg(dp.len(signed=False)).with_keys(keys)
    # one person may be 5000 of the 38,388 rows: person-level privacy is expensive here
    measurement = _at_scale(ctx, query, 5000.0)
    assert measurement.map(5000) == pytest.approx(1.0, rel=1e-12)
    _boundary(measurement, 5000, measurement.map(5000))
    assert ctx(measurement).collect().height == 3


def test_subject_words_under_edge_and_edge_content_privacy(enron_words):
    keys = pl.DataFrame({"word": VOCABULARY})
    v = len(VOCABULARY)

    def word_counts(ctx):
        return ctx.query().truncate_per_group(1, by=["word"], keep="first").group_by("word").agg(dp.len(signed=False)).with_keys(keys)

    # edge level: a pair added or removed changes each word's count by <= 1 -> l1 <= |V|, exact
    edge = compositor(enron_words, edge_unit("sender", "recipient"), dp.loss_of(epsilon=1.0), split_evenly_over=1)
    query = word_counts(edge)
    scale = 10.0
    measurement = _at_scale(edge, query, scale)
    assert measurement.map(1) == pytest.approx(v / scale, rel=1e-12)
    _boundary(measurement, 1, measurement.map(1))

    # edge content: OpenDP counts a changed identifier as its rows removed and re-added, so it
    # charges l0 * linf = |V| * 2, twice the true sensitivity |V| (a word is on an edge or not)
    content_unit = edge_content_unit("sender", "recipient")
    content = compositor(enron_words, content_unit, dp.loss_of(epsilon=1.0), split_evenly_over=1)
    query = word_counts(content)
    measurement = _at_scale(content, query, 2 * v / 1.0)
    assert measurement.map(1) == pytest.approx(1.0, rel=1e-12)
    _boundary(measurement, 1, 1.0)
    assert _at_scale(content, query, v / 1.0).map(1) == pytest.approx(2.0, rel=1e-12)  # the true-sensitivity scale is not enough for OpenDP
    released = content(measurement).collect()
    assert sorted(released["word"].to_list()) == sorted(VOCABULARY)
    assert content.spent(1) == pytest.approx(1.0)
    assert content.spent(2) == pytest.approx(measurement.map(2))

    # groups of 3 edges: a group's loss is the edge measurement's loss at d_in = 3
    group = compositor(enron_words, edge_group_unit(3, "sender", "recipient"), dp.loss_of(epsilon=1.0), split_evenly_over=1)
    grouped = _at_scale(group, word_counts(group), scale)
    assert grouped.map(group.unit.per_unit) == pytest.approx(_at_scale(edge, word_counts(edge), scale).map(3), rel=1e-12)
    assert grouped.map(group.unit.per_unit) == pytest.approx(3 * v / scale, rel=1e-12)


def test_word_query_counts_edges_carrying_the_word(enron_words, shared_data):
    """Without noise, the query's plan (one row per pair and word, then count per word) is the
    number of edges whose label set holds the word, i.e. the graph statistic of label_counts."""
    truth = (
        enron_words.group_by(dpg.polars.pair_identifier("sender", "recipient").alias("pair"), "word")
        .len()
        .group_by("word")
        .len()
    )
    g = dpg.datasets.load_enron(shared_data / "enron-perry-wolfe")
    column = {w: j for j, w in enumerate(g.vocabulary)}
    per_word = np.asarray(g.labels.sum(axis=0)).ravel()
    assert dict(truth.rows()) == {w: int(per_word[column[w]]) for w in VOCABULARY}


def test_true_content_sensitivity_by_brute_force():
    """The analytic value quoted above: replacing one pair's rows changes the de-duplicated
    per-word edge counts by at most one per word (l1 <= |V|, attained)."""
    vocab = ["a", "b", "c"]
    subsets = [list(c) for r in range(4) for c in itertools.combinations(vocab, r)]
    subsets = [tuple(sub) for sub in subsets]
    pairs = [(0, 1), (0, 2), (1, 2)]
    worst = 0

    def counts(assign):
        rows = [(s, r, w) for (s, r), ws in zip(pairs, assign) for w in ws]
        frame = pl.DataFrame(rows, schema={"s": pl.Int64, "r": pl.Int64, "w": pl.String}, orient="row")
        dedup = frame.unique(["s", "r", "w"])
        got = dict(dedup.group_by("w").len().rows())
        return np.array([got.get(w, 0) for w in vocab])

    table = {assign: counts(assign) for assign in itertools.product(subsets, repeat=3)}
    for assign, c in table.items():
        for i, new in itertools.product(range(3), subsets):
            other = list(assign)
            other[i] = new
            worst = max(worst, int(np.abs(c - table[tuple(other)]).sum()))
    assert worst == len(vocab)


def test_compositor_refusals(eu_log):
    unit = person_unit("sender", "recipient", max_messages=CAP)
    with pytest.raises(ValueError, match="invariant='lengths'"):
        compositor(
            eu_log,
            unit,
            dp.loss_of(epsilon=1.0),
            split_evenly_over=1,
            margins=[dp.polars.Margin(by=["sender_department"], invariant="lengths")],
        )
    with pytest.raises(TypeError, match="PrivacyUnit"):
        compositor(eu_log, dp.unit_of(contributions=1), dp.loss_of(epsilon=1.0), split_evenly_over=1)
    with pytest.raises(TypeError, match="DataFrame or LazyFrame"):
        compositor({"a": 1}, unit, dp.loss_of(epsilon=1.0), split_evenly_over=1)
    with pytest.raises(TypeError, match="Margin"):
        compositor(eu_log, unit, dp.loss_of(epsilon=1.0), split_evenly_over=1, margins=[{"by": ["x"]}])
    # a person-level query without truncation is fine (rows are bounded by the declared cap);
    # an identifier unit without truncation is refused by OpenDP itself
    ctx = compositor(eu_log, edge_unit("sender", "recipient"), dp.loss_of(epsilon=1.0), split_evenly_over=1)
    with pytest.raises(dp.OpenDPException):
        _at_scale(ctx, ctx.query().select(dp.len(signed=False)), 1.0)
    with pytest.raises(TypeError, match="measurement"):
        loss_for("not a measurement", unit)


def test_accounting_under_zcdp_and_approximate_dp(eu_log):
    """spent(k) re-evaluates OpenDP's own maps at k units: quadratic under zCDP (Gaussian noise,
    l2 sensitivity grows with the rows), and (epsilon, delta) pairs add up under approximate DP."""
    unit = person_unit("sender", "recipient", max_messages=CAP)
    keys = pl.DataFrame({"sender_department": np.arange(DEPARTMENTS, dtype=np.int64)})
    ctx = compositor(eu_log, unit, dp.loss_of(rho=0.5), split_evenly_over=2)
    query = ctx.query().group_by("sender_department").agg(dp.len(signed=False)).with_keys(keys)
    # analytic: the 2*CAP rows of a rewired person may all count in one department, so the l2
    # sensitivity is 2*CAP (never more than the l1 sensitivity) and rho = l2^2 / (2 scale^2)
    scale = 20_000.0
    measurement = _at_scale(ctx, query, scale)
    l2 = 2 * CAP
    assert measurement.map(unit.per_unit) == pytest.approx(l2**2 / (2 * scale**2), rel=1e-9)
    ctx(measurement).collect()
    assert ctx.spent(2) == pytest.approx(4 * ctx.spent(1), rel=1e-9)

    approx = compositor(eu_log, unit, dp.loss_of(epsilon=1.0, delta=1e-7), split_evenly_over=2)
    first = _at_scale(approx, approx.query().select(dp.len(signed=False)), 2 * CAP / 0.5)
    approx(first).collect()
    approx(first).collect()
    eps, delta = approx.spent(1)
    assert eps == pytest.approx(1.0) and delta == 0.0
