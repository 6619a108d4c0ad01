"""Rényi Pufferfish of Gaussian label counts (``opendp_graph.pufferfish.metric``, *Rényi
Pufferfish (zCDP)*), checked exactly with :func:`opendp_graph.verify.exact_renyi_divergence`.

A release ``pufferfish_distance(model) >> then_label_counts(c, V, output_metric=l2) >>
dp.m.then_gaussian(scale=s)`` has OpenDP's zCDP map ``ρ = meas.map(1)``; the claim is ``D_α(law(M
| s⁰) ‖ law(M | s¹)) ≤ α·ρ`` (and symmetrically) for every secret pair, every attacker of the
model and every order ``α > 1``, and ``α·(ρ₁ + ρ₂)`` for two such releases composed. Here, for
the Binomial, Global and Conditional models (and the Edge-level and Markov-quilt baselines, where
the bound is attained), on structures of three and four edges, every secret pair ``(edge,
property)`` and ``α ∈ {1.5, 2, 4, 16, 64}``: the exact divergence of the real measurement's
noise, computed from the model's conditional laws of the labellings, is within the claim. A
negative control shows that the check catches a scale calibrated to a sensitivity below ``W``,
and one that it catches a composition charged for one release only.

The exact divergence itself is checked against a direct summation over a wide window.
"""

import math

import numpy as np
import opendp.prelude as dp
import pytest
from scipy import stats
from scipy.special import logsumexp

import opendp_graph as dpg
from opendp_graph.pufferfish import (
    BinomialModel,
    ConditionalModel,
    EdgeLevelModel,
    GlobalModel,
    MarkovQuiltModel,
    make_pufferfish_approximate,
    pufferfish_distance,
)
from opendp_graph.verify import discrete_gaussian_renyi, exact_renyi_divergence, secret_laws
from tests.transformations.test_label_sensitivity import global_with_gaps

ALPHAS = (1.5, 2.0, 4.0, 16.0, 64.0)
L2 = dp.l2_distance(T=dp.f64)
RTOL = 1e-9  # the bound is attained at integer orders by point masses: two equal numbers, rounded


def graph(edges, labels):
    return dpg.Graph.from_edges([u for u, _ in edges], [v for _, v in edges], labels=labels)


PATH4 = [(0, 1), (1, 2), (2, 3)]  # closed neighbourhoods of 2, 3, 2 edges
STAR3 = [(0, 1), (0, 2), (0, 3)]  # 3, 3, 3
PAW = [(0, 1), (0, 2), (1, 2), (2, 3)]  # 3, 4, 4, 3
GRAPHS = {
    "path4": graph(PATH4, [["a"], ["a", "b"], []]),
    "star3": graph(STAR3, [["b"], [], ["a"]]),
    "paw": graph(PAW, [["a"], ["b"], ["a", "b"], []]),
}


def neighbours(g):
    deg = g.degrees
    return sorted({int(deg[u] + deg[v] - 2) for u, v in g.edges.tolist()})


def fitted(kind, **options):
    """A Global or Conditional model fitted (as public) on a labelled paw: neighbourhoods of up to
    4 edges, two properties."""
    fit_on = graph(PAW, [["a"], ["a", "b"], ["a"], ["b"]])
    cls = {"global": GlobalModel, "conditional": ConditionalModel}[kind]
    return cls.fit(fit_on, source="public", **options)


def model_cases():
    """``(id, model, structure)``; every model covers its structure."""
    for name in ("path4", "star3", "paw"):
        nbs = neighbours(GRAPHS[name])
        for p0, p1 in [(0.05, 0.7), (0.6, 0.1), (0.2, 0.3)]:
            yield f"binomial-{p0}-{p1}-{name}", BinomialModel(p0, p1, nbs), name
    yield "binomial-box-paw", BinomialModel((0.05, 0.1), (0.5, 0.7), neighbours(GRAPHS["paw"])), "paw"
    yield "binomial-point-paw", BinomialModel(0.0, 1.0, neighbours(GRAPHS["paw"])), "paw"
    for name in ("path4", "paw"):
        yield f"global-fit-{name}", fitted("global"), name
        yield f"global-gaps-1-3-{name}", global_with_gaps(1, 3), name
        yield f"global-gaps--2-1-{name}", global_with_gaps(-2, 1), name
        yield f"conditional-bound-{name}", fitted("conditional"), name
        yield f"conditional-ignore-{name}", fitted("conditional", unobserved="ignore"), name


CASES = list(model_cases())


def counts_of(model, vocab, c=1):
    space = dpg.graph_domain(labeled=True), pufferfish_distance(model)
    return space >> dpg.then_label_counts(c, vocab, output_metric=L2)


def vocabulary(model):
    return list(model.vocabulary) if model.vocabulary is not None else ["a", "b"]


# ----------------------------------------------------------------------------- one release
# one case of each kind of model by default (8 of 21, the negatively correlated Binomial among them), the others
# thorough (6 s)
DEFAULT_CASES = {"binomial-0.05-0.7-path4", "binomial-0.6-0.1-path4", "binomial-box-paw", "binomial-point-paw", "conditional-bound-path4",
                 "conditional-ignore-paw", "global-fit-path4", "global-gaps-1-3-paw"}


@pytest.mark.parametrize(
    "case", [pytest.param(c, id=c[0], marks=[] if c[0] in DEFAULT_CASES else [pytest.mark.thorough]) for c in CASES]
)
def test_gaussian_release_is_renyi_pufferfish(case):
    """Every secret pair, every enumerated attacker, both directions: ``D_α ≤ α·ρ`` with ρ
    OpenDP's map of the measurement the package builds, at two scales."""
    _, model, name = case
    counts = counts_of(model, vocabulary(model))
    for scale in (1.0, 2.5):
        rho = (counts >> dp.m.then_gaussian(scale=scale)).map(1)
        assert rho == pytest.approx(counts.map(1) ** 2 / (2 * scale**2), rel=1e-12)
        result = exact_renyi_divergence(counts, model, GRAPHS[name], scale=scale, alphas=ALPHAS)
        assert result.within(rho, rtol=RTOL), (str(result), rho)
        assert len(result.per_secret) >= GRAPHS[name].num_edges  # every edge, every property (and attacker)


def test_the_bound_is_attained():
    """Not vacuous: point-mass attackers (Edge-level, Markov quilt, a Binomial model with p0 = 0 and
    p1 = 1) reach ``α·ρ`` exactly at the integer orders; a correlated Binomial model comes close
    at a large order."""
    g = GRAPHS["paw"]
    for model in (EdgeLevelModel(), MarkovQuiltModel.for_structure(g), BinomialModel(0.0, 1.0, neighbours(g))):
        counts = counts_of(model, ["a", "b"])
        rho = (counts >> dp.m.then_gaussian(scale=1.7)).map(1)
        result = exact_renyi_divergence(counts, model, g, scale=1.7, alphas=ALPHAS)
        assert result.within(rho, rtol=RTOL)
        for alpha, d in zip(ALPHAS, result.divergence):
            if alpha == int(alpha):
                assert d == pytest.approx(alpha * rho, rel=1e-9), (model, alpha, d, alpha * rho)
            else:
                assert d <= alpha * rho * (1 + RTOL)
    model = BinomialModel(0.6, 0.1, neighbours(g))
    counts = counts_of(model, ["a"])
    rho = (counts >> dp.m.then_gaussian(scale=1.0)).map(1)
    result = exact_renyi_divergence(counts, model, g, scale=1.0, alphas=ALPHAS)
    assert 0.9 < result.divergence[-1] / (64 * rho) <= 1 + RTOL


# ----------------------------------------------------------------------------- composition
def composed(model, first, second, scales):
    """Two Gaussian releases of label counts under the same model, composed by OpenDP, and the
    joint query (their outputs side by side) with the per-coordinate scales."""
    t1, t2 = counts_of(model, first), counts_of(model, second)
    m1, m2 = t1 >> dp.m.then_gaussian(scale=scales[0]), t2 >> dp.m.then_gaussian(scale=scales[1])
    joint = dp.c.make_composition([m1, m2])
    per_coordinate = [scales[0]] * len(first) + [scales[1]] * len(second)
    return (lambda h: list(t1(h)) + list(t2(h))), per_coordinate, joint.map(1), (m1.map(1), m2.map(1))


COMPOSITION_CASES = [
    ("binomial", BinomialModel(0.05, 0.7, neighbours(GRAPHS["path4"]))),
    ("binomial-negative", BinomialModel(0.6, 0.1, neighbours(GRAPHS["path4"]))),
    ("global", fitted("global")),
    ("conditional", fitted("conditional")),
]


# the negatively correlated Binomial (3 s) in the thorough tier: by default the Binomial, Global and
# Conditional models (and the negative one's single release in test_gaussian_release_is_renyi_pufferfish)
@pytest.mark.parametrize(
    "case",
    [pytest.param(c, id=c[0], marks=[pytest.mark.thorough] if c[0] == "binomial-negative" else []) for c in COMPOSITION_CASES],
)
def test_composed_releases_add_rho(case):
    """The same counts released twice (scales 1.5 and 2.5), and counts of two vocabularies: the
    joint output's ``D_α ≤ α·(ρ₁ + ρ₂)``, OpenDP's composed ρ; and, for the repeated release,
    above the first release's own divergence at every order (the second one does leak more)."""
    _, model = case
    g = GRAPHS["path4"]
    vocab = vocabulary(model)
    for first, second, props in ((["a"], ["a"], ["a"]), (vocab, vocab[-1:], vocab)):
        query, scales, rho, (rho1, rho2) = composed(model, first, second, (1.5, 2.5))
        assert rho == pytest.approx(rho1 + rho2, rel=1e-12) and rho >= rho1 + rho2
        result = exact_renyi_divergence(query, model, g, scale=scales, alphas=ALPHAS, properties=props)
        assert result.within(rho, rtol=RTOL), (str(result), rho)
        if first == second:
            alone = exact_renyi_divergence(counts_of(model, first), model, g, scale=1.5, alphas=ALPHAS, properties=props)
            assert all(j > a * (1 + 1e-9) for j, a in zip(result.divergence, alone.divergence)), (str(result), str(alone))


@pytest.mark.slow
@pytest.mark.parametrize("case", COMPOSITION_CASES, ids=[c[0] for c in COMPOSITION_CASES])
def test_composed_releases_add_rho_on_the_paw(case):
    _, model = case
    if isinstance(model, BinomialModel):
        model = BinomialModel(model.p0, model.p1, neighbours(GRAPHS["paw"]))
    vocab = vocabulary(model)
    query, scales, rho, _ = composed(model, vocab, vocab, (1.0, 3.0))
    result = exact_renyi_divergence(query, model, GRAPHS["paw"], scale=scales, alphas=ALPHAS)
    assert result.within(rho, rtol=RTOL), (str(result), rho)


# ----------------------------------------------------------------------------- negative controls
def test_a_scale_calibrated_below_w_is_caught():
    """Calibrating the Gaussian to sensitivity 1 (edge-level) while the model's W is 4 claims ρ =
    1/(2s²); the exact divergence of some secret exceeds α times that claim, by far."""
    g = GRAPHS["paw"]
    model = BinomialModel(0.05, 0.7, neighbours(g))
    assert model.W == 4
    counts = counts_of(model, ["a"])
    for scale in (1.0, 3.0):
        plain = dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=dp.i64)), L2, scale=scale)
        claimed = plain.map(1.0)
        assert claimed == pytest.approx(1 / (2 * scale**2))
        result = exact_renyi_divergence(counts, model, g, scale=scale, alphas=ALPHAS)
        assert not result.within(claimed)
        assert max(d / (a * claimed) for a, d in zip(ALPHAS, result.divergence)) > 2
        assert result.within((counts >> dp.m.then_gaussian(scale=scale)).map(1), rtol=RTOL)


def test_composition_charged_once_is_caught():
    """The joint output of two releases exceeds the ρ of one of them (point masses: exactly the
    sum is reached), so the composition test can catch a compositor that does not add."""
    g = GRAPHS["path4"]
    model = MarkovQuiltModel.for_structure(g)
    query, scales, rho, (rho1, rho2) = composed(model, ["a"], ["a"], (1.5, 1.5))
    result = exact_renyi_divergence(query, model, g, scale=scales, alphas=ALPHAS, properties=["a"])
    assert not result.within(rho1) and result.within(rho, rtol=RTOL)
    assert result.divergence[1] == pytest.approx(2 * (rho1 + rho2), rel=1e-9)


# ----------------------------------------------------------------------------- the (ε, δ) relaxation
def test_zcdp_release_under_the_relaxed_metric_goes_through_approximate_dp():
    """Under ``pufferfish_distance(model, delta=δ_c)`` a Gaussian release is converted to (ε, δ_M)
    with OpenDP (``make_zCDP_to_approxDP``, ``make_fix_delta``) and wrapped by
    ``make_pufferfish_approximate``: (ε, δ_M + δ_c). The zCDP measurement itself is refused by the
    wrapper and refuses to run unwrapped."""
    model = BinomialModel(0.01, 0.3, range(20))
    space = dpg.graph_domain(labeled=True), pufferfish_distance(model, delta=1e-6)
    counts = space >> dpg.then_label_counts(3, ["gas", "power", "price"], output_metric=L2)
    gaussian = counts >> dp.m.then_gaussian(scale=10.0)
    rho = gaussian.map(1)
    assert counts.map(1) == 12.0 and rho == pytest.approx(12.0**2 / 200)
    approximate = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gaussian), 1e-7)
    epsilon, delta_m = approximate.map(1)
    assert delta_m == 1e-7 and epsilon <= rho + 2 * math.sqrt(rho * math.log(1 / 1e-7))
    release = make_pufferfish_approximate(approximate)
    assert release.map(1) == (epsilon, pytest.approx(1e-7 + 1e-6, rel=1e-12))
    assert release.map(1)[1] >= 1e-7 + 1e-6
    g = dpg.Graph.from_edges([0, 1], [1, 2], labels=[["gas"], ["gas", "power"]])
    assert len(release(g)) == 3
    with pytest.raises(TypeError, match="max_divergence or approximate"):
        make_pufferfish_approximate(gaussian)
    with pytest.raises(dp.OpenDPException, match="make_pufferfish_approximate"):
        gaussian(g)


# ----------------------------------------------------------------------------- the exact divergence
def direct_sum(values0, weights0, values1, weights1, scale, alpha, half_width):
    """``D_α`` by direct float64 summation over ``[−half_width, half_width]^d`` (a reference: no
    bound on what lies outside, so only for windows far wider than the mass)."""
    v0, v1 = np.atleast_2d(np.asarray(values0).T).T, np.atleast_2d(np.asarray(values1).T).T
    d = v0.shape[1]
    scales = np.broadcast_to(np.asarray(scale, dtype=float), (d,))
    grid = np.stack(np.meshgrid(*[np.arange(-half_width, half_width + 1)] * d, indexing="ij"), -1).reshape(-1, d)
    z = np.arange(-400, 401)
    log_norm = sum(logsumexp(-(z**2) / (2 * s * s)) for s in scales)

    def log_mix(v, w):
        e = -(((grid[None, :, :] - v[:, None, :]) ** 2) / (2 * scales**2)).sum(-1)
        return logsumexp(e + np.log(np.asarray(w, dtype=float))[:, None], axis=0) - log_norm

    return logsumexp(alpha * log_mix(v0, weights0) + (1 - alpha) * log_mix(v1, weights1)) / (alpha - 1)


@pytest.mark.parametrize("seed", range(6))
def test_exact_divergence_matches_a_direct_sum(seed):
    rng = np.random.default_rng(seed)  # test data, not a release
    k0, k1 = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    v0, v1 = rng.integers(-3, 4, k0), rng.integers(-3, 4, k1)
    w0, w1 = rng.dirichlet(np.ones(k0)), rng.dirichlet(np.ones(k1))
    scale = float(rng.uniform(0.6, 3.0))
    got = discrete_gaussian_renyi(v0, w0, v1, w1, scale, ALPHAS)
    for alpha, value in zip(ALPHAS, got):
        reference = direct_sum(v0, w0, v1, w1, scale, alpha, 2500)
        assert value >= reference * (1 - 1e-12) - 1e-15
        assert value == pytest.approx(reference, rel=1e-9, abs=1e-12)
    # two coordinates, correlated points, different scales
    pts0, pts1 = rng.integers(-2, 3, (3, 2)), rng.integers(-2, 3, (3, 2))
    w0, w1 = rng.dirichlet(np.ones(3)), rng.dirichlet(np.ones(3))
    scales = [float(rng.uniform(1.0, 2.5)), float(rng.uniform(1.0, 2.5))]
    got = discrete_gaussian_renyi(pts0, w0, pts1, w1, scales, (1.5, 2.0, 4.0))
    for alpha, value in zip((1.5, 2.0, 4.0), got):
        reference = direct_sum(pts0, w0, pts1, w1, scales, alpha, 90)
        assert value == pytest.approx(reference, rel=1e-9, abs=1e-12)


def test_point_masses_and_invariances():
    for delta, scale in ((1, 1.0), (3, 2.0), (5, 0.7)):
        got = discrete_gaussian_renyi([0], [1.0], [delta], [1.0], scale, ALPHAS)
        for alpha, d in zip(ALPHAS, got):
            exact = alpha * delta**2 / (2 * scale**2)
            assert exact * (1 - 1e-12) <= d <= exact * (1 + 1e-12) if alpha == int(alpha) else d <= exact * (1 + 1e-12)
    a = discrete_gaussian_renyi([0, 1, 3], [0.2, 0.5, 0.3], [1, 2], [0.6, 0.4], 1.3, ALPHAS)
    shifted = discrete_gaussian_renyi([10, 11, 13], [0.2, 0.5, 0.3], [11, 12], [0.6, 0.4], 1.3, ALPHAS)
    padded = discrete_gaussian_renyi([[0, 7], [1, 7], [3, 7]], [0.2, 0.5, 0.3], [[1, 7], [2, 7]], [0.6, 0.4], [1.3, 0.1], ALPHAS)
    assert a == pytest.approx(shifted, rel=1e-12) and a == pytest.approx(padded, rel=1e-12)
    assert discrete_gaussian_renyi([2], [1.0], [2], [1.0], 1.0, [2.0]) == (0.0,)
    assert all(x <= y for x, y in zip(a, a[1:]))  # D_α grows with α


def test_secret_laws_are_the_models_laws():
    """The weights of the labellings give back the model's law of ``f``: the binomial laws, and a
    pooled law clamped to the edge's feasible range (mass moved to its end), exchangeable over
    the neighbours."""
    g = GRAPHS["paw"]
    nbs = neighbours(g)
    for edge in range(g.num_edges):
        hood_size = 1 + sum(1 for j in range(g.num_edges) if j != edge and set(g.edges[j].tolist()) & set(g.edges[edge].tolist()))
        (law,) = secret_laws(BinomialModel(0.2, 0.7, nbs), g, edge, "a")
        f = np.array([sum("a" in s for j, s in enumerate(h.label_sets()) if j == edge or set(g.edges[j].tolist()) & set(g.edges[edge].tolist())) for h in law.labellings])
        k = np.arange(hood_size)
        law0 = np.bincount(f, weights=law.weights0, minlength=hood_size + 1)
        law1 = np.bincount(f, weights=law.weights1, minlength=hood_size + 1)
        assert law0 == pytest.approx(np.append(stats.binom.pmf(k, hood_size - 1, 0.2), 0.0))
        assert law1 == pytest.approx(np.insert(stats.binom.pmf(k, hood_size - 1, 0.7), 0, 0.0))
        for h in law.labellings:  # only property a on the closed neighbourhood varies
            assert [s - {"a"} for s in h.label_sets()] == [s - {"a"} for s in g.label_sets()]
    # a Global model fitted on neighbourhoods of up to 4 edges, on an edge whose neighbourhood has 2
    model = global_with_gaps(1, 3)  # f | s⁰ a point mass at 0, f | s¹ half at 1, half at 3
    (law,) = secret_laws(model, GRAPHS["path4"], 0, "a")
    f = np.array([sum("a" in h.label_sets()[j] for j in (0, 1)) for h in law.labellings])
    assert np.bincount(f, weights=law.weights1, minlength=3) == pytest.approx([0.0, 0.5, 0.5])  # 3 clamped to 2
    # exchangeable: given f, the neighbours carrying a are uniform
    (law,) = secret_laws(BinomialModel(0.2, 0.7, nbs), g, 1, "b")
    carried = {}
    for h, w in zip(law.labellings, law.weights1):
        if w > 0:
            key = tuple(sorted(j for j, s in enumerate(h.label_sets()) if "b" in s and j != 1))
            carried.setdefault(len(key), set()).add(round(float(w), 15))
    assert all(len(ws) == 1 for ws in carried.values())


def test_conditional_laws_cover_every_frequency_bucket():
    model = fitted("conditional")
    g = GRAPHS["paw"]
    laws = secret_laws(model, g, 1, "a")
    buckets = {law.attacker.split(",")[0] for law in laws}
    assert buckets == {f"log_freq={fb}" for fb in range(model.hist0.shape[0]) if model.pairs[fb].any()}
    ignore = fitted("conditional", unobserved="ignore")
    assert len(secret_laws(ignore, g, 1, "a")) <= len(laws)


def test_arguments_are_checked():
    g = GRAPHS["path4"]
    model = BinomialModel(0.1, 0.5, neighbours(g))
    counts = counts_of(model, ["a"])
    with pytest.raises(TypeError, match="not a Measurement"):
        exact_renyi_divergence(counts >> dp.m.then_gaussian(scale=1.0), model, g, scale=1.0)
    with pytest.raises(ValueError, match="integers"):
        exact_renyi_divergence(lambda h: 0.5, model, g, scale=1.0)
    with pytest.raises(ValueError, match="does not cover"):
        exact_renyi_divergence(counts, BinomialModel(0.1, 0.5, [7]), g, scale=1.0)
    with pytest.raises(ValueError, match="above 1"):
        exact_renyi_divergence(counts, model, g, scale=1.0, alphas=[1.0])
    with pytest.raises(ValueError, match="scale"):
        discrete_gaussian_renyi([0], [1.0], [1], [1.0], scale=0.0)
    with pytest.raises(ValueError, match="dimensions"):
        discrete_gaussian_renyi([[0, 1]], [1.0], [1], [1.0], scale=1.0)
    with pytest.raises(ValueError, match="max_grid"):
        discrete_gaussian_renyi([0], [1.0], [40], [1.0], scale=1.0, alphas=[64], max_grid=1000)
    with pytest.raises(TypeError, match="no laws known"):
        secret_laws(type("Other", (dpg.pufferfish.CorrelationModel,), {"covers": lambda self, g: True})(), g, 0, "a")
    result = exact_renyi_divergence(counts, model, g, scale=1.0, alphas=[2.0], edges=[0], properties=["a"])
    assert list(result.per_secret) == [(0, "a", "p0=0.1, p1=0.5")] and "D_2" in str(result)
