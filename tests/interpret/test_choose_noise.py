"""dpg.choose_noise: every route meets the target (ε, δ) at its calibrated scale and misses it just
below; the best route is the one with the smallest half-width; public figures only."""


import opendp.prelude as dp
import pytest

import opendp_graph as dpg

VOCAB = [f"w{i}" for i in range(100)]
LABELED = dpg.graph_domain(labeled=True)


def _meets(option, d_in, target):
    spent = option.measurement.map(d_in)
    if isinstance(target, tuple):
        return spent[0] <= target[0] and spent[1] <= target[1] * (1 + 1e-12)
    return spent <= target


@pytest.mark.parametrize("c, best", [(1, "laplace"), (4, "laplace"), (50, "gaussian")])
def test_edge_level_routes_meet_the_target_and_the_best_is_the_narrowest(c, best):
    choice = dpg.choose_noise(LABELED, dpg.edge_distance(), dpg.make_label_counts, c, VOCAB, privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-6))
    laplace, gaussian = choice.options
    assert laplace.scale == pytest.approx(c)  # L1 = c at ε = 1
    assert _meets(laplace, 1, 1.0) and _meets(gaussian, 1, (1.0, 1e-6))
    # the calibration is tight: a slightly smaller scale spends more than the target
    t1 = dpg.make_label_counts(LABELED, dpg.edge_distance(), c, VOCAB)
    assert (t1 >> dp.m.then_laplace(scale=laplace.scale * (1 - 1e-6))).map(1) > 1.0
    t2 = dpg.make_label_counts(LABELED, dpg.edge_distance(), c, VOCAB, output_metric=dp.l2_distance(T=dp.f64))
    below = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(t2 >> dp.m.then_gaussian(scale=gaussian.scale * (1 - 1e-6))), 1e-6)
    assert below.map(1)[0] > 1.0
    assert choice.best.route == best
    assert choice.best.half_width == min(o.half_width for o in choice.options)


def test_composed_releases_split_the_budget():
    one = dpg.choose_noise(LABELED, dpg.edge_distance(), dpg.make_label_counts, 50, VOCAB, privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-6))
    four = dpg.choose_noise(LABELED, dpg.edge_distance(), dpg.make_label_counts, 50, VOCAB, privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-6), releases=4)
    assert four.options[0].scale == pytest.approx(4 * one.options[0].scale)  # ε adds
    ratio = four.options[1].scale / one.options[1].scale
    assert 1.7 < ratio < 2.2  # ρ adds: about √4 (the conversion is not exactly linear in √ρ)
    assert four.options[0].measurement.map(1) <= 1.0
    assert four.options[1].measurement.map(1)[0] <= 1.0


def test_pufferfish_routes():
    model = dpg.pufferfish.BinomialModel(p0=0.01, p1=0.3, neighbour_counts=range(60))
    space = LABELED, dpg.pufferfish_distance(model)
    choice = dpg.choose_noise(*space, dpg.make_label_counts, 50, ["a", "b", "c"], privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-6))
    routes = {o.route: o for o in choice.options}
    assert set(routes) == {"laplace", "gaussian", "laplace_wasserstein_delta", "gaussian_wasserstein_delta"}
    assert routes["laplace"].scale == pytest.approx(model.W)  # one secret moves one count by W
    w_delta = dpg.pufferfish_distance(model, delta=1e-6).descriptor.W
    assert routes["laplace_wasserstein_delta"].scale == pytest.approx(w_delta)
    for route in ("gaussian", "laplace_wasserstein_delta", "gaussian_wasserstein_delta"):
        assert _meets(routes[route], 1, (1.0, 1e-6)), route
    # one count moves: ℓ1 = ℓ2, so Laplace beats the Gaussian; W_δ < W∞ makes the relaxed one best
    assert choice.best.route == "laplace_wasserstein_delta"
    assert "Pufferfish" in routes["laplace"].guarantee
    with pytest.raises(ValueError, match="exact Pufferfish metric"):
        dpg.choose_noise(LABELED, dpg.pufferfish_distance(model, delta=1e-6), dpg.make_label_counts, 1, ["a"], privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-6))


def test_refusals_are_stated():
    pure = dpg.choose_noise(LABELED, dpg.edge_distance(), dpg.make_label_counts, 3, VOCAB, privacy_loss=dp.loss_of(epsilon=1.0))
    assert pure.options[1].refused == "the Gaussian needs δ > 0" and pure.best.route == "laplace"
    # a query without an ℓ2 form: the Gaussian route says why
    edges = dpg.choose_noise(dpg.graph_domain(), dpg.edge_distance(), dpg.make_edge_count, privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-6))
    assert edges.options[1].refused and "output_metric" in edges.options[1].refused
    assert "not available" in str(edges)
    for bad in [
        dict(privacy_loss=dp.loss_of(epsilon=0.0)),
        dict(privacy_loss=dp.loss_of(epsilon=1.0, delta=1.0)),
        dict(privacy_loss=dp.loss_of(epsilon=1.0, delta=-1e-3)),
        dict(privacy_loss=dp.loss_of(epsilon=1.0), alpha=0.0),
        dict(privacy_loss=dp.loss_of(rho=0.5)),  # a measure it does not account
    ]:
        with pytest.raises(ValueError):
            dpg.choose_noise(LABELED, dpg.edge_distance(), dpg.make_label_counts, 3, VOCAB, **bad)
    with pytest.raises(TypeError, match=r"privacy_loss=dp.loss_of\(epsilon=...\)"):  # a bare number: the form to use
        dpg.choose_noise(LABELED, dpg.edge_distance(), dpg.make_label_counts, 3, VOCAB, privacy_loss=1.0)
    with pytest.raises(TypeError):
        dpg.choose_noise(LABELED, dpg.edge_distance(), "label_counts", 3, VOCAB, privacy_loss=dp.loss_of(epsilon=1.0))


def test_person_level_text_counts_have_a_route():
    """Issue 39, item 7: choose_noise with make_person_ngram_counts failed with advice for a
    developer ("subclass MetricDescriptor"). Person level now gets both routes, calibrated to the
    person-level maps (ℓ1 D·L, ℓ2 D·√L), and the statement of the cap it shares."""
    from opendp_graph import text as T

    keys = ["gas", "power", "price"]
    choice = dpg.choose_noise(T.person_text_domain(10), dpg.polars.person_log_distance(), T.make_person_ngram_counts,
                              keys, 2, privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-6))
    laplace, gaussian = choice.options
    assert laplace.refused is None and gaussian.refused is None
    assert laplace.scale == pytest.approx(20.0)  # ℓ1 = D·L = 20 at ε = 1
    assert gaussian.measurement.map(1)[0] <= 1.0 and gaussian.measurement.map(1)[1] <= 1e-6
    assert choice.not_included is not None and "max_ngrams = 2" in choice.not_included
    assert "ranked on noise" in str(choice)
    everything = dpg.choose_noise(T.person_text_domain(10), dpg.polars.person_log_distance(), T.make_person_ngram_counts,
                                  keys, 3, privacy_loss=dp.loss_of(epsilon=1.0))
    assert everything.not_included is None  # L = 3 counts every key of a message: nothing dropped
    with pytest.raises(TypeError, match="OpenDP metric"):
        dpg.choose_noise(T.person_text_domain(10), "person", T.make_person_ngram_counts, keys, 2, privacy_loss=dp.loss_of(epsilon=1.0))
