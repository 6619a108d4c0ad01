"""``dpg.context`` under zCDP and approximate DP: Gaussian releases of the graph queries with the
Context's budget split, OpenDP's conversions, accuracy through the Context path, and the
refusals that say what to write.

* **Accounting is OpenDP's.** Every loss checked here is read back from OpenDP (the resolved
  measurement's map, ``remaining_privacy_loss()``, the odometer's ``current_privacy_loss()``)
  and compared with its analytic value: ``ρ = ℓ2² / (2σ²)`` for the Gaussian, ``ρ = ε²/2`` for a
  Laplace converted to zCDP, and under ``(ε, δ)`` OpenDP's own ``make_fix_delta(make_zCDP_to_approxDP(...))``
  of the same Gaussian (and, independently, within Bun & Steinke's bound ``ρ + 2√(ρ·ln(1/δ))``).
* **Intervals are Gaussian ones**: the noise found through the Context path is OpenDP's discrete
  Gaussian of the searched scale, its half-width is the discrete Gaussian's, and OpenDP's own
  measurement (drawn without spending the context) has that spread (standard deviation σ, not
  a Laplace's σ·√2) and that coverage.
* **Refusals** name what to write, before OpenDP fails (or spends anything).
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import opendp.prelude as dp
import pytest

import opendp_graph as dpg

VOCAB = ["gas", "lunch", "power", "price"]
L2 = dp.l2_distance(T=dp.f64)
C = 2  # labels an edge may contribute
Z_TOL = 4.5  # binomial standard deviations (a single check fails by chance with probability ~7e-6)


def labelled_graph() -> dpg.Graph:
    edges = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (1, 3), (3, 4)]
    labels = [["gas", "power"], ["gas"], ["lunch", "price"], ["power"], ["gas", "price"], [], ["lunch"]]
    return dpg.Graph.from_edges([u for u, _ in edges], [v for _, v in edges], labels=labels)


def karate() -> dpg.Graph:
    return dpg.Graph.from_networkx(nx.karate_club_graph())


SPACE = dpg.graph_domain(labeled=True), dpg.edge_distance()


def gaussian_chain(scale: float) -> dp.Measurement:
    """The label counts with OpenDP's Gaussian, built without a context."""
    return SPACE >> dpg.then_label_counts(C, VOCAB, output_metric=L2) >> dp.m.then_gaussian(scale=scale)


def record(measurement) -> list[str]:
    """The constructors OpenDP recorded, outermost first, down to the noise."""
    names, node = [], measurement
    while True:
        entry = node.__opendp_dict__
        names.append(entry["__function__"])
        kwargs = entry["__kwargs__"]
        if "measurement" in kwargs:
            node = kwargs["measurement"]
        elif "measurement1" in kwargs:
            node = kwargs["measurement1"]
        else:
            return names


# ------------------------------------------------------------------------------- zCDP
def test_rho_budget_split_gaussian_label_counts():
    g = labelled_graph()
    ctx = dpg.context(g, (dpg.edge_distance(), 1), dp.loss_of(rho=0.5), split_evenly_over=2)
    query = ctx.query().label_counts(C, VOCAB, output_metric=L2).gaussian()
    # one edge with C counted labels moves C counts by 1: ℓ2 = √C, so the share ρ = 0.25 needs
    # σ with C / (2σ²) = 0.25, σ = √(2C) = 2 (OpenDP's search finds it up to its tolerance)
    sigma = query.param()
    assert sigma == pytest.approx(math.sqrt(2 * C), rel=1e-9)
    measurement = query.resolve()
    assert record(measurement) == ["make_chain_mt", "make_gaussian"]  # zCDP natively: no conversion
    rho = measurement.map(1)
    assert rho <= 0.25 and rho == pytest.approx(C / (2 * sigma**2), rel=1e-12) == pytest.approx(0.25, rel=1e-9)
    assert ctx.remaining_privacy_loss() == [0.25, 0.25]
    released = query.release()
    assert len(released) == len(VOCAB) and all(isinstance(x, int) for x in released)
    assert ctx.remaining_privacy_loss() == [0.25]
    assert ctx.current_privacy_loss() == [0.25]
    # the context's accountant states the whole budget in ρ
    assert ctx.accountant.output_measure == dp.zero_concentrated_divergence()
    assert ctx.accountant.map(1) == pytest.approx(0.5)


def test_rho_filter_spends_exactly_openDPs_map():
    """Without a split the context is OpenDP's privacy filter: what it charges is the map itself."""
    g = labelled_graph()
    ctx = dpg.context(g, (dpg.edge_distance(), 1), dp.loss_of(rho=0.5))
    first = ctx.query(rho=0.125).label_counts(C, VOCAB, output_metric=L2).gaussian(3.0)
    second = ctx.query(rho=0.125).edge_count().gaussian(2.0)
    expected = C / (2 * 3.0**2) + 1 / (2 * 2.0**2)
    first.release()
    second.release()
    assert ctx.current_privacy_loss() == pytest.approx(expected, rel=1e-12)
    assert ctx.current_privacy_loss() == pytest.approx(first.resolve().map(1) + second.resolve().map(1), rel=1e-12)
    assert ctx.remaining_privacy_loss() == pytest.approx(0.5 - expected, rel=1e-12)


def test_laplace_under_rho_is_converted_and_keeps_its_scale():
    ctx = dpg.context(karate(), (dpg.edge_distance(), 1), dp.loss_of(rho=0.5), split_evenly_over=2)
    query = ctx.query().edge_count().laplace()
    # ρ = ε²/2 = 0.25 → ε = √0.5, and the edge count moves by 1: scale 1/√0.5 = √2
    assert query.param() == pytest.approx(math.sqrt(2), rel=1e-9)  # OpenDP's own param() is None here
    measurement = query.resolve()
    assert record(measurement)[0] == "make_pureDP_to_zCDP"
    assert measurement.map(1) == pytest.approx(0.25, rel=1e-9) and measurement.map(1) <= 0.25
    acc = dpg.accuracy(measurement)
    assert (acc.noise, acc.scale) == ("discrete_laplace", query.param())


def test_gaussian_intervals_through_the_context():
    g = labelled_graph()
    ctx = dpg.context(g, (dpg.edge_distance(), 1), dp.loss_of(rho=0.5), split_evenly_over=2)
    query = ctx.query().label_counts(C, VOCAB, output_metric=L2).gaussian()
    sigma = query.param()
    for alpha in (0.05, 0.01):
        acc = dpg.accuracy(query.resolve(), alpha)
        assert (acc.noise, acc.mechanism) == ("discrete_gaussian", "make_gaussian")
        assert acc.scale == pytest.approx(sigma)
        assert acc.half_width == math.ceil(dp.discrete_gaussian_scale_to_accuracy(sigma, alpha)) - 1
        assert acc.half_width != math.floor(dp.discrete_laplacian_scale_to_accuracy(sigma, alpha))  # not a Laplace's
    table = dpg.summarize({"labels": query, "edges": ctx.query().edge_count().gaussian()})
    assert table["noise"].to_list() == ["discrete_gaussian", "discrete_gaussian"]
    assert table["scale"].to_list() == pytest.approx([2.0, math.sqrt(2)])  # ℓ2 √2 and 1 at ρ = 0.25
    assert ctx.remaining_privacy_loss() == [0.25, 0.25]  # summarizing spent nothing

    # OpenDP's measurement, drawn without spending the context: spread σ (a Laplace of scale σ
    # would have σ·√2) and coverage 1 − alpha of the stated interval, per entry
    measurement = query.resolve()
    acc = dpg.accuracy(measurement, 0.05)
    truth = np.array((SPACE >> dpg.then_label_counts(C, VOCAB))(g))
    draws = np.array([measurement(g) for _ in range(600)]) - truth
    n = draws.size
    assert abs(draws.std() / sigma - 1) < 0.1
    misses = int((np.abs(draws) > acc.half_width).sum())
    assert misses <= 0.05 * n + Z_TOL * math.sqrt(n * 0.05 * 0.95)
    released = ctx.query().label_counts(C, VOCAB, output_metric=L2).gaussian().release()
    assert [high - low for low, high in acc.interval(released)] == [2 * acc.half_width] * len(VOCAB)


# --------------------------------------------------------------------------- (ε, δ)
def test_gaussian_under_epsilon_delta_is_openDPs_conversion():
    g = labelled_graph()
    ctx = dpg.context(g, (dpg.edge_distance(), 1), dp.loss_of(epsilon=1.0, delta=1e-6), split_evenly_over=2)
    share = (0.5, 5e-7)
    query = ctx.query().label_counts(C, VOCAB, output_metric=L2).gaussian()
    sigma = query.param()  # OpenDP's own param() is None through the conversion
    measurement = query.resolve()
    assert record(measurement) == ["make_fix_delta", "make_zCDP_to_approxDP", "make_chain_mt", "make_gaussian"]
    epsilon, delta = measurement.map(1)
    assert delta == share[1] and epsilon <= share[0] and epsilon == pytest.approx(share[0], rel=1e-6)
    # the same Gaussian built by hand and converted with OpenDP's combinators: the same loss
    by_hand = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gaussian_chain(sigma)), share[1])
    assert by_hand.map(1) == (epsilon, delta)
    # and within Bun & Steinke's conversion ρ + 2√(ρ·ln(1/δ)) (OpenDP's is tighter)
    rho = gaussian_chain(sigma).map(1)
    assert rho == pytest.approx(C / (2 * sigma**2), rel=1e-12)
    assert epsilon <= rho + 2 * math.sqrt(rho * math.log(1 / share[1]))
    # a smaller σ would break the share
    assert dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gaussian_chain(sigma * 0.99)), share[1]).map(1)[0] > share[0]
    acc = dpg.accuracy(measurement)
    assert (acc.noise, acc.scale) == ("discrete_gaussian", sigma)

    query.release()
    assert ctx.remaining_privacy_loss() == [share]
    laplace = ctx.query().edge_count().laplace()
    assert record(laplace.resolve())[0] == "make_approximate"
    assert laplace.resolve().map(1) == pytest.approx((0.5, 0.0))
    laplace.release()
    assert ctx.remaining_privacy_loss() == []


def test_epsilon_delta_through_a_zcdp_compositor():
    """OpenDP's way through zCDP for several releases: a nested compositor in zCDP inside the
    (ε, δ) context; its ρ is converted back once, at the outer query's (ε, δ)."""
    g = labelled_graph()
    ctx = dpg.context(g, (dpg.edge_distance(), 1), dp.loss_of(epsilon=1.0, delta=1e-6), split_evenly_over=1)
    nested_query = ctx.query().compositor(split_evenly_over=2, output_measure=dp.zero_concentrated_divergence())
    nested_measurement = nested_query.resolve()
    assert record(nested_measurement)[:2] == ["make_fix_delta", "make_zCDP_to_approxDP"]
    epsilon, delta = nested_measurement.map(1)
    assert delta == 1e-6 and epsilon <= 1.0 and epsilon == pytest.approx(1.0, rel=1e-3)
    nested = nested_query.release()
    rho = nested.accountant.map(1)
    assert nested.accountant.output_measure == dp.zero_concentrated_divergence()
    assert nested.remaining_privacy_loss() == pytest.approx([rho / 2, rho / 2])
    # the nested context's queries are the package's too: same refusal, same releases
    with pytest.raises(ValueError, match=r"output_metric=dp\.l2_distance\(T=dp\.f64\)\)\.gaussian\(\)"):
        nested.query().label_counts(C, VOCAB).gaussian()
    first = nested.query().label_counts(C, VOCAB, output_metric=L2).gaussian()
    assert first.resolve().map(1) == pytest.approx(rho / 2, rel=1e-9)
    assert len(first.release()) == len(VOCAB)
    assert ctx.remaining_privacy_loss() == []


def test_rho_delta_context():
    ctx = dpg.context(labelled_graph(), (dpg.edge_distance(), 1), dp.loss_of(rho=0.5, delta=1e-6), split_evenly_over=2)
    measurement = ctx.query().label_counts(C, VOCAB, output_metric=L2).gaussian().resolve()
    assert record(measurement)[0] == "make_approximate"
    rho, delta = measurement.map(1)
    assert rho <= 0.25 and rho == pytest.approx(0.25, rel=1e-9) and delta == 0.0


# --------------------------------------------------------------------------- refusals
def test_gaussian_after_an_l1_query_says_what_to_write():
    ctx = dpg.context(labelled_graph(), (dpg.edge_distance(), 1), dp.loss_of(rho=0.5), split_evenly_over=2)
    with pytest.raises(ValueError) as info:
        ctx.query().label_counts(C, VOCAB).gaussian()
    message = str(info.value)
    advice = ".label_counts(2, ['gas', 'lunch', 'power', 'price'], output_metric=dp.l2_distance(T=dp.f64)).gaussian()"
    assert "needs an ℓ2 output metric" in message and "L1Distance(i64)" in message and advice in message
    # the advice, written as given, releases
    written = eval("ctx.query()" + advice, {"ctx": ctx, "dp": dp})  # noqa: S307 - our own message
    assert written.param() == pytest.approx(2.0, rel=1e-9)
    # an L∞ (top-k) query: the same advice; nothing was spent by the refusals
    with pytest.raises(ValueError, match=r"LInfDistance.*output_metric=dp\.l2_distance\(T=dp\.f64\)\)\.gaussian\(\)"):
        ctx.query().label_counts(C, VOCAB, output_metric=dp.linf_distance(T=dp.i64)).gaussian()
    assert ctx.remaining_privacy_loss() == [0.25, 0.25]


def test_gaussian_after_a_degree_query():
    """The degree queries are gaining an ℓ2 output metric elsewhere: the refusal suggests it
    exactly when the query offers one (and the suggestion then works), ``.laplace()`` otherwise."""
    ctx = dpg.context(karate(), (dpg.edge_distance(), 1), dp.loss_of(rho=0.5), split_evenly_over=2)
    with pytest.raises(ValueError, match="needs an ℓ2 output metric") as info:
        ctx.query().degree_histogram(max_degree=20).gaussian()
    message = str(info.value)
    if "write " in message:
        advice = message.split("write ", 1)[1].split(", or release", 1)[0]
        assert advice.startswith(".degree_histogram(max_degree=20, output_metric=dp.l2_distance(")
        assert eval("ctx.query()" + advice, {"ctx": ctx, "dp": dp}).param() > 0  # noqa: S307
    else:
        assert "offers no ℓ2 output metric: release it with .laplace()" in message
    assert ctx.query().degree_histogram(max_degree=20).laplace().param() > 0


def test_noise_the_context_cannot_take():
    g = labelled_graph()
    pure = dpg.context(g, (dpg.edge_distance(), 1), dp.loss_of(epsilon=1.0), split_evenly_over=1)
    with pytest.raises(ValueError, match=r"pure ε-DP context cannot hold.*dp\.loss_of\(rho=\.\.\.\)"):
        pure.query().edge_count().gaussian()
    zcdp = dpg.context(g, (dpg.edge_distance(), 1), dp.loss_of(rho=0.5), split_evenly_over=1)
    with pytest.raises(ValueError, match="needs an L1 output metric.*L2Distance"):
        zcdp.query().label_counts(C, VOCAB, output_metric=L2).laplace()
    with pytest.raises(ValueError, match="count map"):
        zcdp.query().label_count_map(C, VOCAB).gaussian()
    approximate_zcdp = dpg.context(g, (dpg.edge_distance(), 1), dp.loss_of(rho=0.5, delta=1e-6), split_evenly_over=1)
    with pytest.raises(ValueError, match="cannot convert to approximate zCDP"):
        approximate_zcdp.query().edge_count().laplace()
    for ctx in (pure, zcdp, approximate_zcdp):
        assert len(ctx.remaining_privacy_loss()) == 1  # nothing spent


@pytest.mark.parametrize(
    ("loss", "error", "match"),
    [
        ((dp.renyi_divergence(), 1.0), ValueError, "RenyiDivergence, which a Context of this package does not account"),
        (dp.loss_of(epsilon=-1.0), ValueError, "epsilon must be a non-negative number"),
        ((dp.zero_concentrated_divergence(), float("nan")), ValueError, "rho must be a non-negative number"),
        ((dp.zero_concentrated_divergence(), (0.5, 1e-6)), ValueError, r"takes one number \(rho\).*dp\.loss_of\(rho=\.\.\., delta=\.\.\.\)"),
        ((dp.approximate(dp.max_divergence()), (1.0, 2.0)), ValueError, "delta is a probability"),
        ((dp.approximate(dp.max_divergence()), 1.0), ValueError, r"takes a pair \(epsilon, delta\)"),
        ((dp.max_divergence(), True), TypeError, "must be a real number"),
        ("rho", TypeError, r"must be a \(measure, distance\) pair"),
    ],
)
def test_privacy_losses_the_context_refuses(loss, error, match):
    with pytest.raises(error, match=match):
        dpg.context(karate(), (dpg.edge_distance(), 1), loss, split_evenly_over=1)


def test_optional_arguments_positionally():
    """OpenDP's Query counts positional arguments against the required ones; the graph queries'
    optional ones (a map's vocabulary, output_metric) are passed on as keywords."""
    g = labelled_graph()
    ctx = dpg.context(g, (dpg.edge_distance(), 1), dp.loss_of(rho=0.5), split_evenly_over=1)
    positional = ctx.query().label_count_map(C, VOCAB)._chain  # the transformation so far
    keyword = ctx.query().label_count_map(C, vocabulary=VOCAB)._chain
    assert positional(g) == keyword(g) and positional.map(1) == keyword.map(1)
    assert ctx.query().label_counts(C, VOCAB, L2).gaussian().param() == pytest.approx(math.sqrt(C), rel=1e-9)  # C/(2σ²) = 0.5
    with pytest.raises(TypeError, match="multiple values for argument 'output_metric'"):
        ctx.query().label_counts(C, VOCAB, L2, output_metric=L2)


@pytest.mark.parametrize("name", ["laplace_threshold", "gaussian_threshold"])
def test_opendps_thresholded_mechanisms_are_refused_with_the_corrected_route(name):
    """OpenDP 0.16's thresholded maps under-report δ on integer counts; the context refuses them
    and names the corrected measurement, which ctx(measurement) spends."""
    g = dpg.Graph.from_edges([0, 1, 2], [1, 2, 0], labels=[["hi", "lunch"], ["hi"], []])
    ctx = dpg.context(g, (dpg.edge_distance(), 1), dp.loss_of(epsilon=1.0, delta=1e-6), split_evenly_over=2)
    with pytest.raises(ValueError, match=f"dpg.then_corrected_{name}"):
        getattr(ctx.query().label_count_map(1), name)(threshold=20)
    count_map = (dpg.graph_domain(labeled=True), dpg.edge_distance()) >> dpg.then_label_count_map(1)
    scale, threshold = dpg.calibrate_laplace_threshold(count_map, 1, 0.5, 5e-7)
    released = ctx(count_map >> dpg.then_corrected_laplace_threshold(scale=scale, threshold=threshold))
    assert set(released) <= {"hi", "lunch"}


def test_opendps_generic_noise_threshold_is_refused():
    """The red team's counterexample: OpenDP's generic .noise_threshold() under-reports δ like the
    named ones (a key released 1.3 % of the time under a whole δ budget of 1 %)."""
    g = dpg.Graph.from_edges([0, 2], [1, 3], labels=[["x"], ["y"]], num_nodes=4)
    ctx = dpg.context(g, (dpg.edge_distance(), 1), dp.loss_of(epsilon=1.0, delta=0.01), split_evenly_over=2)
    with pytest.raises(ValueError, match="noise_threshold"):
        ctx.query().label_count_map(1).noise_threshold(dp.approximate(dp.max_divergence()), 1.0, 5)
    nested = ctx.query().compositor(split_evenly_over=2).release()
    with pytest.raises(ValueError, match="noise_threshold"):
        nested.query().label_count_map(1).noise_threshold(dp.approximate(dp.max_divergence()), 1.0, 5)


def test_relaxed_pufferfish_refuses_unwrapped_noise_when_written():
    model = dpg.pufferfish.BinomialModel(p0=0.01, p1=0.3, neighbour_counts=range(20))
    g = dpg.Graph.from_edges([0, 1], [1, 2], labels=[["a"], ["b"]])
    metric = dpg.pufferfish_distance(model, delta=1e-6)
    ctx = dpg.context(g, (metric, 1), dp.loss_of(epsilon=1.0, delta=1e-5))
    with pytest.raises(ValueError, match="make_pufferfish_approximate"):
        ctx.query().label_counts(1, ["a", "b"]).laplace()
    # the wrapped release goes through ctx(measurement)
    counts = (dpg.graph_domain(labeled=True), metric) >> dpg.then_label_counts(1, ["a", "b"])
    wrapped = dpg.pufferfish.make_pufferfish_approximate(counts >> dp.m.then_laplace(scale=30.0))
    assert len(ctx(wrapped)) == 2
