"""Releases of n-gram counts: every order under one budget (zCDP or pure ε), and the person-level
counts of logs whose messages have several owners (brute force over every small log)."""

import itertools
import math

import numpy as np
import opendp.prelude as dp
import pytest

import opendp_graph as dpg
from opendp_graph import text as T

pl = pytest.importorskip("polars")

PEOPLE = (0, 1, 2)
KEYS = ["a", "b", "a b"]


@pytest.fixture(autouse=True)
def _features():
    dp.enable_features("contrib", "honest-but-curious")


def table(messages):
    """A person_ngram_table from ``[(owners, ngrams), ...]``."""
    return pl.DataFrame({
        "message_id": list(range(len(messages))),
        "owners": pl.Series([list(o) for o, _ in messages], dtype=pl.List(pl.Int64)),
        "ngrams": pl.Series([list(g) for _, g in messages], dtype=pl.List(pl.String)),
    })


def without(messages, person):
    return [m for m in messages if person not in m[0]]


def small_logs(full, most=2):
    """Every log of at most two (``most``) messages over the owner sets (all seven with ``full``, else four)
    and the n-gram lists, and every log of three messages over a smaller choice (the busiest
    owner then owns up to 3)."""
    owner_sets = [s for r in (1, 2, 3) for s in itertools.combinations(PEOPLE, r)]
    grams = [[], ["a"], ["a", "b", "a b"], ["b", "b", "a", "zz"]]  # a key repeated in a message counts once
    if not full:
        owner_sets, grams = [(0,), (0, 1), (1, 2), (0, 1, 2)], grams[1:]
    options = [(o, g) for o in owner_sets for g in grams]
    for size in range(most + 1):
        yield from itertools.product(options, repeat=size)
    few = [((0, 1), ["a", "b", "a b"]), ((0,), ["a"]), ((1, 2), ["b", "a"])]
    yield from itertools.product(few, repeat=3)


# by default the logs of at most one message over four owner sets (and the three-message ones), in
# the thorough tier those of at most two (11 s), every owner set under -m slow
@pytest.mark.parametrize("full, most", [
    pytest.param(False, 2, id="four-owner-sets", marks=pytest.mark.thorough),
    pytest.param(True, 2, id="every-owner-set", marks=pytest.mark.slow),
    pytest.param(False, 1, id="four-owner-sets-one-message"),
])
def test_person_counts_move_at_most_the_map_on_every_small_log(full, most):
    """ℓ1 and ℓ2, caps 1 and 2: each table is built once and counted by all four (every owner
    set, 840 logs and 10 s, under -m slow)."""
    domain, metric = T.person_text_domain(3), dpg.polars.person_log_distance()
    queries = {
        (norm, cap): T.make_person_ngram_counts(domain, metric, KEYS, cap, dp.l2_distance(T=dp.f64) if norm == "l2" else None)
        for norm in ("l1", "l2") for cap in (1, 2)
    }
    for (norm, cap), counts in queries.items():
        assert counts.map(1) == pytest.approx(3 * (math.sqrt(cap) if norm == "l2" else cap))
    worst = dict.fromkeys(queries, 0.0)
    for log in small_logs(full, most):
        tables = [table(list(log))] + [table(without(list(log), p)) for p in PEOPLE]
        for key, counts in queries.items():
            full, *smaller = (np.array(counts(t), dtype=float) for t in tables)
            for other in smaller:
                diff = full - other
                change = np.abs(diff).sum() if key[0] == "l1" else float(np.sqrt((diff**2).sum()))
                assert change <= counts.map(1) + 1e-12, (log, key, change)
                worst[key] = max(worst[key], change)
    # the small logs reach the bound: three messages of one person with the same keys
    assert worst[("l1", 2)] == 6 and worst[("l2", 1)] == pytest.approx(3.0)


@pytest.mark.parametrize("cap", [1, 2, 3])
def test_person_counts_reach_the_map_and_not_beyond(cap):
    """D messages of one person with the same cap keys: the change is the map exactly, so
    ``check`` holds at the map and fails just below."""
    d = 4
    log = [((0, 1), ["a", "b", "a b"])] * d
    for norm, metric in (("l1", None), ("l2", dp.l2_distance(T=dp.f64))):
        counts = T.make_person_ngram_counts(T.person_text_domain(d), dpg.polars.person_log_distance(), KEYS, cap, metric)
        full = np.array(counts(table(log)), dtype=float)
        empty = np.array(counts(table(without(log, 0))), dtype=float)
        change = np.abs(full - empty).sum() if norm == "l1" else float(np.sqrt(((full - empty) ** 2).sum()))
        assert change == pytest.approx(counts.map(1))
        assert counts.map(1) >= change
        assert counts.check(1, counts.map(1))
        below = counts.map(1) - 1 if norm == "l1" else math.nextafter(change, 0) * (1 - 1e-12)
        assert not counts.check(1, below)


def test_a_key_repeated_in_a_message_counts_once():
    """The red team's counterexample: ["a", "a", "a", "a"] counted 4 (ℓ2 4 against a map of 2)."""
    counts = T.make_person_ngram_counts(T.person_text_domain(1), dpg.polars.person_log_distance(), KEYS, 4,
                                        dp.l2_distance(T=dp.f64))
    assert counts(table([((0,), ["a", "a", "a", "a"])])) == [1.0, 0.0, 0.0]
    assert counts(table([((0,), ["a", "a", "b", "a b", "b"])])) == [1.0, 1.0, 1.0]


def test_the_l2_map_never_rounds_down_above_two_to_the_53():
    """The red team's counterexample: L = 4, D = 1, d = 2⁵³ + 1 gave a float below 2·d."""
    from fractions import Fraction

    for cap, bound, d in ((4, 1, 2**53 + 1), (9, 3, 2**60 + 7), (2, 5, 2**55 + 3), (16, 7, 3)):
        keys = [f"k{i}" for i in range(cap)]  # L counted keys need L keys (L is min(max_ngrams, K))
        counts = T.make_person_ngram_counts(T.person_text_domain(bound), dpg.polars.person_log_distance(), keys, cap,
                                            dp.l2_distance(T=dp.f64))
        value = counts.map(d)
        root = math.isqrt(cap)
        if root * root == cap:
            assert Fraction(value) >= d * bound * root
        else:  # √cap irrational: compare squares exactly
            assert Fraction(value) ** 2 >= (d * bound) ** 2 * cap


def test_replace_neighbours_cost_twice_and_d_people_d_times():
    space = T.person_text_domain(5)
    keys = ["a", "b", "c", "d"]
    add_remove = T.make_person_ngram_counts(space, dpg.polars.person_log_distance(), keys, 2)
    replace = T.make_person_ngram_counts(space, dpg.polars.person_log_distance("replace"), keys, 2)
    assert (add_remove.map(1), add_remove.map(3), replace.map(1)) == (10, 30, 20)
    # with K = 3 keys a replaced person moves at most 3 entries by D each: 15, not 2·D·L = 20
    assert T.make_person_ngram_counts(space, dpg.polars.person_log_distance("replace"), KEYS, 2).map(1) == 15
    l2 = T.make_person_ngram_counts(space, dpg.polars.person_log_distance(), KEYS, 2, dp.l2_distance(T=dp.f64))
    assert l2.map(1) >= 5 * math.sqrt(2) and l2.map(1) == pytest.approx(5 * math.sqrt(2), rel=1e-15)


def test_a_cap_above_the_number_of_keys_costs_nothing():
    """The red team's tightness case: D = 3, L = 5 and two keys moved the counts by at most 6 in
    ℓ1 where the map said 15 (noise 2.5× too large). L is min(max_ngrams, K): the map is reached."""
    domain, metric = T.person_text_domain(3), dpg.polars.person_log_distance()
    l1 = T.make_person_ngram_counts(domain, metric, ["gas", "power"], 5)
    l2 = T.make_person_ngram_counts(domain, metric, ["gas", "power"], 5, dp.l2_distance(T=dp.f64))
    assert l1.map(1) == 6 and l2.map(1) == pytest.approx(3 * math.sqrt(2))
    log = [((0,), ["gas", "power"])] * 3
    full, empty = np.array(l1(table(log))), np.array(l1(table(without(log, 0))))
    assert np.abs(full - empty).sum() == l1.map(1)  # reached
    assert l1.map(1) == T.make_person_ngram_counts(domain, metric, ["gas", "power"], 2).map(1)


def test_the_domain_refuses_a_busier_log_before_counting():
    counts = T.make_person_ngram_counts(T.person_text_domain(2), dpg.polars.person_log_distance(), KEYS, 2)
    busy = table([((0,), ["a"])] * 3)
    with pytest.raises(Exception, match="someone owns more than the domain's max_messages=2 messages"):
        counts(busy)
    with pytest.raises(Exception, match="lists an owner twice"):
        counts(table([((0, 0), ["a"])]))
    with pytest.raises(Exception, match="column 'owners'"):
        counts(pl.DataFrame({"ngrams": [["a"]]}))


def test_person_counts_refuse_bad_arguments_when_built():
    domain, metric = T.person_text_domain(2), dpg.polars.person_log_distance()
    with pytest.raises(ValueError, match="max_messages"):
        T.person_text_domain(0)
    with pytest.raises(ValueError, match="max_ngrams"):
        T.make_person_ngram_counts(domain, metric, KEYS, 0)
    with pytest.raises(ValueError, match="distinct"):
        T.make_person_ngram_counts(domain, metric, ["a", "a"], 1)
    with pytest.raises(TypeError, match="person_text_domain"):
        T.make_person_ngram_counts(dpg.graph_domain(), metric, KEYS, 1)
    with pytest.raises(TypeError, match="person_log_distance"):
        T.make_person_ngram_counts(domain, dpg.edge_distance(), KEYS, 1)
    with pytest.raises(ValueError, match="output_metric"):
        T.make_person_ngram_counts(domain, metric, KEYS, 1, dp.linf_distance(T=dp.f64))


def test_person_ngram_table_has_each_message_once_with_its_distinct_owners():
    log = pl.DataFrame({
        "message_id": [1, 1, 1, 2, 3],
        "subject": ["Gas gas price", "Gas gas price", "Gas gas price", "Re: power", "x"],
        "sender": [7, 7, 7, 8, 9],
        "recipient": [1, 2, 7, 8, 1],
    })
    out = T.person_ngram_table(log, orders=(1, 2), vocabulary=["gas", "power"])
    assert out["owners"].to_list() == [[7, 1, 2], [8], [9, 1]]
    assert out["ngrams"].to_list()[0] == ["gas", "<unk>", "</s>", "<s> gas", "gas gas", "gas <unk>", "<unk> </s>"]
    assert out["ngrams"].to_list()[1] == ["power", "</s>", "<s> power", "power </s>"]


# ------------------------------------------------------------------------------ one budget
ORDERS = {1: ["gas", "power"], 2: ["gas power", "<s> gas"], 3: ["<s> gas power"]}


def graph_space(metric=None):
    return dpg.graph_domain(labeled=True), metric or dpg.edge_distance()


@pytest.mark.parametrize("budget", [{"rho": 0.5}, {"epsilon": 2.0}])
def test_the_orders_compose_to_the_budget_exactly(budget):
    release = T.make_ngram_count_release(*graph_space(), dp.loss_of(**budget), ORDERS, max_ngrams_per_edge=4)
    value = next(iter(budget.values()))
    assert release.map(1) <= value and release.map(1) == pytest.approx(value, rel=1e-8)
    assert release.check(1, value)
    assert not release.check(1, value * 0.99)


def test_zcdp_scales_are_the_gaussian_formula_per_order_share():
    shares = {1: 0.5, 2: 0.3, 3: 0.2}
    release = T.make_ngram_count_release(*graph_space(), dp.loss_of(rho=1.0), ORDERS, max_ngrams_per_edge=4, shares=shares)
    g = dpg.Graph.from_edges([0, 1], [1, 2], num_nodes=3, labels=[["gas", "gas power"], ["power"]])
    out = release(g)
    assert isinstance(out, T.NGramRelease) and out.noise == "gaussian"
    assert set(out.counts) == {k for keys in ORDERS.values() for k in keys}
    # ℓ2 of one edge's counts with c = 4: √min(4, |keys of order n|); ρ_n = ℓ2²/(2σ²)
    for n, share in shares.items():
        l2 = math.sqrt(min(4, len(ORDERS[n])))
        assert out.scales[n] == pytest.approx(l2 / math.sqrt(2 * share), rel=1e-6)
        assert l2**2 / (2 * out.scales[n] ** 2) <= share * (1 + 1e-9)
    assert not out.joint


def test_a_joint_release_pays_a_pufferfish_secret_once():
    """Under Pufferfish one secret moves one count by W: one vector of every order costs W/b,
    where three per-order releases at the same ε need three times the scale."""
    g = dpg.Graph.from_edges([0, 1, 2], [1, 2, 3], num_nodes=4, labels=[["gas"], ["gas", "power"], ["gas power"]])
    space = graph_space(dpg.pufferfish_distance(dpg.pufferfish.BinomialModel.from_public(g, g)))
    joint = T.make_ngram_count_release(*space, dp.loss_of(epsilon=1.0), ORDERS, max_ngrams_per_edge=1, joint=True)
    split = T.make_ngram_count_release(*space, dp.loss_of(epsilon=1.0), ORDERS, max_ngrams_per_edge=1)
    assert joint.map(1) <= 1.0 and split.map(1) <= 1.0 and split.map(1) == pytest.approx(1.0, rel=1e-8)
    out, out_split = joint(g), split(g)
    assert out.joint and len(set(out.scales.values())) == 1
    assert out_split.scales[1] == pytest.approx(3 * out.scales[1], rel=1e-6)
    assert list(out.counts) == [k for n in sorted(ORDERS) for k in ORDERS[n]]


def test_a_joint_person_release_takes_one_transformation():
    every = [k for n in sorted(ORDERS) for k in ORDERS[n]]
    counts = T.make_person_ngram_counts(T.person_text_domain(3), dpg.polars.person_log_distance(), every, 4, dp.l2_distance(T=dp.f64))
    release = T.make_ngram_count_composition(counts, ORDERS, privacy_loss=dp.loss_of(rho=0.5), joint=True)
    assert release.map(1) == pytest.approx(0.5, rel=1e-9)
    # ℓ2 = D·√L = 3·2 = 6: σ = 6/√(2ρ) = 6
    assert release(table([((0,), ["gas"])])).scales[2] == pytest.approx(6.0, rel=1e-6)
    with pytest.raises(ValueError, match="shares"):
        T.make_ngram_count_composition(counts, ORDERS, privacy_loss=dp.loss_of(rho=0.5), joint=True, shares={1: 0.5, 2: 0.3, 3: 0.2})
    with pytest.raises(ValueError, match="counts 2 keys"):
        T.make_ngram_count_composition(
            T.make_person_ngram_counts(T.person_text_domain(3), dpg.polars.person_log_distance(), ["gas", "power"], 4,
                                       dp.l2_distance(T=dp.f64)), ORDERS, privacy_loss=dp.loss_of(rho=0.5), joint=True)
    with pytest.raises(TypeError, match="joint=True"):
        T.make_ngram_count_composition(counts, ORDERS, privacy_loss=dp.loss_of(rho=0.5))
    per_order = {n: T.make_person_ngram_counts(T.person_text_domain(3), dpg.polars.person_log_distance(), every, 4,
                                               dp.l2_distance(T=dp.f64)) for n in ORDERS}
    with pytest.raises(ValueError, match=r"counts\[1\] counts 5 keys; keys\[1\] lists 2"):
        T.make_ngram_count_composition(per_order, ORDERS, privacy_loss=dp.loss_of(rho=0.5))


def test_pufferfish_orders_compose_under_one_rho():
    g = dpg.Graph.from_edges([0, 1, 2], [1, 2, 3], num_nodes=4, labels=[["gas"], ["gas", "power"], ["gas power"]])
    model = dpg.pufferfish.BinomialModel.from_public(g, g)
    space = graph_space(dpg.pufferfish_distance(model))
    release = T.make_ngram_count_release(*space, dp.loss_of(rho=0.3), ORDERS, max_ngrams_per_edge=1)
    assert release.map(1) <= 0.3 and release.map(1) == pytest.approx(0.3, rel=1e-8)
    single = space >> dpg.then_label_counts(1, ORDERS[1], output_metric=dp.l2_distance(T=dp.f64))
    sigma = release(g).scales[1]
    assert (single >> dp.m.then_gaussian(scale=sigma)).map(1) == pytest.approx(0.1, rel=1e-6)


def test_person_level_orders_compose_under_one_rho():
    metric = dp.l2_distance(T=dp.f64)
    counts = {n: T.make_person_ngram_counts(T.person_text_domain(3), dpg.polars.person_log_distance(), keys, 2, metric)
              for n, keys in ORDERS.items()}
    release = T.make_ngram_count_composition(counts, ORDERS, privacy_loss=dp.loss_of(rho=0.6))
    assert release.map(1) <= 0.6 and release.map(1) == pytest.approx(0.6, rel=1e-8)
    out = release(table([((0, 1), ["gas", "<s> gas", "gas power"])]))
    assert set(out.counts) == {k for keys in ORDERS.values() for k in keys}
    with pytest.raises(ValueError, match="ends in"):
        T.make_ngram_count_composition({n: t for n, t in counts.items()}, ORDERS, privacy_loss=dp.loss_of(epsilon=1.0))


def test_release_refuses_bad_arguments_when_built():
    space = graph_space()
    with pytest.raises(TypeError, match="privacy_loss"):
        T.make_ngram_count_release(*space, keys=ORDERS, max_ngrams_per_edge=2)
    with pytest.raises(TypeError, match=r"privacy_loss=dp.loss_of\(rho=...\) or dp.loss_of\(epsilon=...\)"):
        T.make_ngram_count_release(*space, 1.0, ORDERS, max_ngrams_per_edge=2)
    with pytest.raises(ValueError, match="got a budget in rho, delta"):
        T.make_ngram_count_release(*space, dp.loss_of(rho=1.0, delta=1e-6), ORDERS, max_ngrams_per_edge=2)
    with pytest.raises(ValueError, match="order 1"):
        T.make_ngram_count_release(*space, dp.loss_of(rho=1.0), {2: ["gas"]}, max_ngrams_per_edge=2)
    with pytest.raises(ValueError, match="sum to 1"):
        T.make_ngram_count_release(*space, dp.loss_of(rho=1.0), ORDERS, max_ngrams_per_edge=2, shares={1: 0.5, 2: 0.5, 3: 0.5})
    with pytest.raises(TypeError, match="max_ngrams_per_edge"):
        T.make_ngram_count_release(*space, dp.loss_of(rho=1.0), ORDERS)
    with pytest.raises(ValueError, match="rho must be a positive"):
        T.make_ngram_count_release(*space, dp.loss_of(rho=-1.0), ORDERS, max_ngrams_per_edge=2)
    for d_in in (True, None, "1", 1.5, 0):  # red team: these reached OpenDP's FFI, or 1.5 was read as 1
        with pytest.raises((TypeError, ValueError), match="d_in"):
            T.make_ngram_count_release(*space, dp.loss_of(rho=1.0), ORDERS, max_ngrams_per_edge=2, d_in=d_in)
    with pytest.raises(TypeError, match="keys must be"):
        T.make_ngram_count_release(*space, dp.loss_of(rho=1.0), ["gas"], max_ngrams_per_edge=2)


def test_the_model_from_a_release_thresholds_by_its_noise():
    from opendp_graph.text._release import NGramRelease

    counts = {"gas": 50.0, "power": 2.0, "</s>": 50.0, "<s> gas": 50.0, "gas </s>": 45.0, "gas power": 2.0}
    gaussian = T.NGramModel.from_release(NGramRelease(counts, {1: 1.0, 2: 1.0}, "gaussian"))
    laplace = T.NGramModel.from_release(NGramRelease(counts, {1: 1.0, 2: 1.0}, "laplace"))
    from scipy.stats import norm

    # six keys: the levels no pure-noise key passes with probability 95 % (one-sided, union bound)
    sigma_cut, b_cut = float(norm.isf(0.05 / 6)), math.log(10 * 6)
    by_hand = T.NGramModel.from_counts(counts, order=2, threshold={1: sigma_cut, 2: sigma_cut})
    assert gaussian.prob("gas", ["<s>"]) == by_hand.prob("gas", ["<s>"])
    assert laplace.prob("gas", ["<s>"]) == T.NGramModel.from_counts(counts, order=2, threshold={1: b_cut, 2: b_cut}).prob("gas", ["<s>"])
    # power (2) is below both thresholds (2.39σ and 4.09b)
    assert "power" not in gaussian.vocabulary and "power" not in laplace.vocabulary
    with pytest.raises(TypeError, match="NGramRelease"):
        T.NGramModel.from_release(counts)


# ------------------------------------------------------------------------------ the mixture
def _two_models():
    words = ["gas", "power", "price"]
    a = T.NGramModel.from_counts({"gas": 5, "price": 2, "</s>": 5, "<s> gas": 5, "gas price": 2, "gas </s>": 3, "price </s>": 2},
                                 order=2, vocabulary=words)
    b = T.NGramModel.from_counts({"power": 4, "</s>": 4, "<s> power": 4, "power </s>": 4}, order=2, vocabulary=words)
    return a, b


@pytest.mark.parametrize("mu", [0.0, 0.3, 1.0])
def test_a_mixture_is_a_distribution_and_the_weighted_sum(mu):
    a, b = _two_models()
    m = T.mixture([a, b], [1 - mu, mu])
    for history in ([], ["gas"], ["power"], ["never-seen"]):
        assert math.isclose(sum(m.prob(w, history) for w in m.vocabulary), 1.0, rel_tol=1e-12)
        for w in m.vocabulary:
            assert math.isclose(m.prob(w, history), (1 - mu) * a.prob(w, history) + mu * b.prob(w, history))
    sentences = [["gas", "price"], ["power"]]
    log_total, tokens = 0.0, 0
    for sentence in sentences:  # by hand: each token's mixed probability given its predecessor
        for before, word in zip(["<s>", *sentence], [*sentence, "</s>"]):
            log_total += math.log((1 - mu) * a.prob(word, [before]) + mu * b.prob(word, [before]))
            tokens += 1
    assert math.isclose(m.perplexity(sentences), math.exp(-log_total / tokens))
    assert set(m.sample(rng=__import__("random").Random(1))) <= set(m.vocabulary)


def test_a_mixture_refuses_what_it_cannot_be():
    a, b = _two_models()
    other = T.NGramModel.from_counts({"gas": 1}, order=1, vocabulary=["gas"])
    with pytest.raises(ValueError, match="sum to 1"):
        T.mixture([a, b], [0.5, 0.6])
    with pytest.raises(ValueError, match="one vocabulary"):
        T.mixture([a, other], [0.5, 0.5])
    with pytest.raises(ValueError, match="non-negative"):
        T.mixture([a, b], [1.5, -0.5])
    with pytest.raises(TypeError, match="two or more"):
        T.mixture([a], [1.0])
    with pytest.raises(NotImplementedError, match="ARPA"):
        T.mixture([a, b], [0.5, 0.5]).to_arpa(__import__("io").StringIO())


def test_released_share_is_the_thresholded_mass_share_of_one_order():
    from opendp_graph.text._release import NGramRelease

    counts = {"gas": 30.0, "power": 1.0, "gas power": 50.0, "power gas": 2.0}
    release = NGramRelease(counts, {1: 1.0, 2: 1.0}, "laplace", True)
    cut = math.log(10 * 4)
    snapshot = {"gas": 10, "power": 10, "gas power": 5}
    kept = 30.0 - cut  # power (1) is below the threshold; bigrams are not unigram mass
    assert math.isclose(T.released_share(release, snapshot, order=1), kept / (kept + 20))
    assert math.isclose(T.released_share(release, snapshot, order=1, weight={1: 2.0}), 2 * kept / (2 * kept + 20))
    kept2 = 50.0 - cut  # the default: the highest order (power gas, 2, is below the threshold)
    assert math.isclose(T.released_share(release, snapshot), kept2 / (kept2 + 5))
    assert T.released_share(NGramRelease({"gas": 0.0}, {1: 1.0}, "laplace", True), {}) == 0.0
    with pytest.raises(ValueError, match="no counts of order 3"):
        T.released_share(release, snapshot, order=3)
    with pytest.raises(TypeError, match="NGramRelease"):
        T.released_share(counts, {})


# ------------------------------------------------------------------------------ issue 39
def _refusal(check, value):
    """The text of the error ``check(value)`` raises (OpenDP's FFI wrapping stripped to the
    ValueError/TypeError line)."""
    with pytest.raises(Exception) as raised:
        check(value)
    text = str(raised.value)
    lines = [line for line in text.splitlines() if line.startswith(("ValueError: ", "TypeError: "))]
    return lines[-1] if lines else text


def _raw_log(rows, ids):
    return pl.DataFrame({
        "message_id": pl.Series(ids, dtype=pl.Int64),
        "sender": [r[0] for r in rows], "recipient": [r[1] for r in rows], "subject": [r[2] for r in rows],
    })


@pytest.mark.parametrize("ids", [[None, None], [7, 7]], ids=["null-ids", "shared-id"])
@pytest.mark.parametrize("builder", ["ngrams", "cooccurrence"])
def test_two_messages_under_one_id_are_refused_not_merged(ids, builder):
    """Issue 39, item 1: v→a "secret" and u→b "lunch" under one id (or null ids) became one
    message with v's sender and text, and removing v moved the counts from [1, 0] to [0, 1] at a
    map of 1. The table builders now refuse them, as dpg.polars.message_log does."""
    log = _raw_log([("v", "a", "secret plan"), ("u", "b", "lunch plan")], ids)
    build = (lambda f: T.person_ngram_table(f, orders=(1,))) if builder == "ngrams" else (
        lambda f: T.person_cooccurrence_table(f, ["secret", "lunch", "plan"]))
    expected = "message_id column has nulls" if ids[0] is None else "a message has rows with different senders"
    with pytest.raises(ValueError, match=expected):
        build(log)
    with pytest.raises(ValueError, match=expected):
        dpg.polars.message_log(log)


def test_one_id_with_two_texts_is_refused():
    """Same sender, same id, two texts: one message has one header (its text too)."""
    log = _raw_log([("u", "a", "secret"), ("u", "b", "lunch")], [7, 7])
    with pytest.raises(ValueError, match="a message has rows with different texts"):
        T.person_ngram_table(log, orders=(1,))
    same = _raw_log([("u", "a", "lunch"), ("u", "b", "lunch")], [7, 7])
    assert T.person_ngram_table(same, orders=(1,))["owners"].to_list() == [["u", "a", "b"]]


def test_the_table_builders_explain_bad_columns_as_message_log_does():
    """Issue 39, item 7: an Int64 sender with a String recipient surfaced Polars' strict=False
    hint, and a List recipient column "unhashable type: 'list'"."""
    mixed = pl.DataFrame({"message_id": [1], "sender": [1], "recipient": ["2"], "subject": ["gas"]})
    with pytest.raises(TypeError, match="a person needs one id type in both columns"):
        T.person_ngram_table(mixed)
    listed = pl.DataFrame({"message_id": [1, 2], "sender": ["a", "b"], "recipient": [["b", "c"], ["a"]],
                           "subject": ["gas price", "power"]})
    out = T.person_ngram_table(listed, orders=(1,))
    assert out["owners"].to_list() == [["a", "b", "c"], ["b", "a"]]
    assert out["ngrams"].to_list() == [["gas", "price", "</s>"], ["power", "</s>"]]
    with pytest.raises(TypeError, match="text column 'subject' must be a String"):
        T.person_ngram_table(pl.DataFrame({"message_id": [1], "sender": [1], "recipient": [2], "subject": [3]}))
    with pytest.raises(ValueError, match="nulls"):
        T.person_ngram_table(pl.DataFrame({"message_id": [1], "sender": [1], "recipient": pl.Series([None], dtype=pl.Int64), "subject": ["x"]}))


def test_a_null_ngram_list_is_refused_by_the_domain_whoever_owns_it():
    """Issue 39, item 3: ngrams = None passed the domain and crashed the count only when its
    owner was present (the neighbour without that person released)."""
    domain = T.person_text_domain(3)
    counts = T.make_person_ngram_counts(domain, dpg.polars.person_log_distance(), KEYS, 2)
    def broken(owner, value):
        return pl.DataFrame({
            "owners": pl.Series([[0], [owner]], dtype=pl.List(pl.Int64)),
            "ngrams": pl.Series([["a"], value], dtype=pl.List(pl.String)),
        })
    for value in (None, ["a", None]):
        for owner in (0, 1):
            assert not domain.member(broken(owner, value))  # False, not a warning that prints the table
            assert "n-gram list is null or holds a null" in _refusal(counts, broken(owner, value))
    for owners in ([[0], None], [[0], []], [[0], [None]]):
        bad = pl.DataFrame({"owners": pl.Series(owners, dtype=pl.List(pl.Int64)),
                            "ngrams": pl.Series([["a"], ["b"]], dtype=pl.List(pl.String))})
        assert "no owner or a null owner" in _refusal(counts, bad)
    floats = pl.DataFrame({"owners": pl.Series([[0.5]], dtype=pl.List(pl.Float64)),
                           "ngrams": pl.Series([["a"]], dtype=pl.List(pl.String))})
    assert "integer or text ids" in _refusal(counts, floats)


def test_the_domain_refusals_tell_nothing_about_the_table():
    """Issue 39, item 2: "someone owns 1037 messages" told the busiest person's exact count. Two
    tables that differ in the private value (the busiest count, who repeats, which message is
    broken) get the same message, word for word."""
    counts = T.make_person_ngram_counts(T.person_text_domain(2), dpg.polars.person_log_distance(), KEYS, 2)
    pairs = [
        (table([((0,), ["a"])] * 3), table([((5, 1), ["a"])] * 9)),  # busier than D: 3 against 9
        (table([((0, 0), ["a"])]), table([((1,), ["a"]), ((7, 2, 7), ["b"])])),  # an owner twice
    ]
    for one, other in pairs:
        assert _refusal(counts, one) == _refusal(counts, other)
        assert not any(ch.isdigit() for ch in _refusal(counts, one).replace("max_messages=2", ""))
    build = lambda f: T.person_ngram_table(f, orders=(1,))  # noqa: E731
    for ids_a, ids_b in (([None, 1], [1, 2, None, None]),):
        a = _raw_log([("v", "a", "x"), ("u", "b", "y")], ids_a)
        b = _raw_log([("v", "a", "x"), ("u", "b", "y"), ("w", "c", "z"), ("w", "d", "z")], ids_b)
        assert _refusal(build, a) == _refusal(build, b)


@pytest.mark.parametrize("norm", ["l1", "l2"])
def test_replace_maps_are_tight_on_every_small_pair_of_logs(norm):
    """Issue 39, item 6: under "replace" the removed and added messages' vectors have opposite
    signs, so every entry moves by at most D and the ℓ2 change is at most √2·D·√L (it was stated
    as 2·D·√L). Every pair of small logs that differ only in messages of one person: the change
    stays within the map, and the map is reached (D messages with key "a" replaced by D with "b")."""
    d_max, cap = 2, 1
    metric = dp.l2_distance(T=dp.f64) if norm == "l2" else None
    counts = T.make_person_ngram_counts(T.person_text_domain(d_max), dpg.polars.person_log_distance("replace"), KEYS, cap, metric)
    expected = math.sqrt(2) * d_max * math.sqrt(cap) if norm == "l2" else 2 * d_max * cap
    assert counts.map(1) == pytest.approx(expected, rel=1e-15) and counts.map(1) >= expected
    options = [(o, g) for o in [(0,), (0, 1), (1,)] for g in (["a"], ["b"], ["a", "b"])]
    logs = [list(log) for size in range(4) for log in itertools.combinations_with_replacement(options, size)]
    def busiest_ok(log):
        return all(sum(p in o for o, _ in log) <= d_max for p in PEOPLE)
    logs = [log for log in logs if busiest_ok(log)]
    vectors = {i: np.array(counts(table(log)), dtype=float) for i, log in enumerate(logs)}
    worst = 0.0
    for person in (0, 1):
        rest = {}
        for i, log in enumerate(logs):
            rest.setdefault(tuple(sorted(map(repr, without(log, person)))), []).append(i)
        for group in rest.values():  # logs equal outside the person's messages: replace-neighbours
            for i in group:
                for j in group:
                    diff = vectors[i] - vectors[j]
                    change = np.abs(diff).sum() if norm == "l1" else float(np.sqrt((diff**2).sum()))
                    assert change <= counts.map(1) + 1e-12, (logs[i], logs[j], change)
                    worst = max(worst, change)
    assert worst == pytest.approx(expected)
    assert counts.check(1, counts.map(1))
    below = counts.map(1) - 1 if norm == "l1" else math.nextafter(expected, 0)
    assert not counts.check(1, below)


def test_uneven_shares_never_spend_more_than_the_budget():
    """Issue 39, item 4: shares 0.1/0.2/0.7 had map(1) one ulp above ρ in 23 of 164 budgets
    (ρ = 6.070291399914127 gave 6.070291399914128), so a compositor holding exactly ρ refused."""
    shares = {1: 0.1, 2: 0.2, 3: 0.7}
    # 6.07…: the budget; 2.98…: one over budget on this space at HEAD 52858aa (1 of 101 drawn)
    budgets = [6.070291399914127, 2.9837926045276326, *np.random.default_rng(39).uniform(0.01, 20.0, 15).tolist()]
    for rho in budgets:
        release = T.make_ngram_count_release(*graph_space(), dp.loss_of(rho=rho), ORDERS, max_ngrams_per_edge=4, shares=shares)
        assert release.map(1) <= rho, rho
        assert release.map(1) == pytest.approx(rho, rel=1e-8)
    rho = budgets[0]
    release = T.make_ngram_count_release(*graph_space(), dp.loss_of(rho=rho), ORDERS, max_ngrams_per_edge=4, shares=shares)
    session = dp.c.make_adaptive_composition(release.input_domain, release.input_metric,
                                             dp.zero_concentrated_divergence(), d_in=1, d_mids=[rho])
    g = dpg.Graph.from_edges([0], [1], num_nodes=2, labels=[["gas"]])
    assert isinstance(session(g)(release), T.NGramRelease)


def test_keys_are_checked_by_name_not_by_number():
    """Issue 39, item 5: counts built for ["power", "gas"] released under ["gas", "power"]
    swapped the two counts (gas = 0, power = 40 for a truth of 40 and 0)."""
    metric = dp.l1_distance(T=dp.i64)
    person, domain = dpg.polars.person_log_distance(), T.person_text_domain(50)
    swapped = T.make_person_ngram_counts(domain, person, ["power", "gas"], 1)
    with pytest.raises(ValueError, match=r"counts other keys than keys\[1\].*position 0: it counts 'power'"):
        T.make_ngram_count_composition({1: swapped}, {1: ["gas", "power"]}, privacy_loss=dp.loss_of(epsilon=1.0))
    with pytest.raises(ValueError, match="counts other keys than the keys of every order"):
        T.make_ngram_count_composition(swapped, {1: ["gas", "power"]}, privacy_loss=dp.loss_of(epsilon=1.0), joint=True)
    right = T.make_person_ngram_counts(domain, person, ["gas", "power"], 1)
    release = T.make_ngram_count_composition({1: right}, {1: ["gas", "power"]}, privacy_loss=dp.loss_of(epsilon=1000.0))
    out = release(table([((0,), ["gas"])] * 40))
    assert abs(out.counts["gas"] - 40) < 5 and abs(out.counts["power"]) < 5
    # a transformation that does not record its keys cannot be checked: refused
    unlabelled = dp.t.make_user_transformation(
        right.input_domain, right.input_metric, right.output_domain, metric, lambda t: [0, 0], lambda d: d)
    with pytest.raises(TypeError, match="does not say which keys it counts"):
        T.make_ngram_count_composition({1: unlabelled}, {1: ["gas", "power"]}, privacy_loss=dp.loss_of(epsilon=1.0))
    # the graph route records them too (make_label_counts)
    counted = graph_space() >> dpg.then_label_counts(2, ["power", "gas"])
    assert counted.counted_keys == ("power", "gas")
    with pytest.raises(ValueError, match="position 0"):
        T.make_ngram_count_composition({1: counted}, {1: ["gas", "power"]}, privacy_loss=dp.loss_of(epsilon=1.0))


# ------------------------------------------------------------------------------ top-k at person level
@pytest.mark.parametrize("neighbouring", ["add_remove", "replace"])
def test_person_counts_in_linf_move_at_most_d_and_one_way_for_one_person(neighbouring):
    """Issue 40's missing route (top-k words at person level): every count moves by at most D
    (add/remove and replace), all in one direction when one person is added or removed (the
    monotonic bound, which replace refuses). Brute force over the small logs, and reached."""
    d_max, cap = 2, 2
    linf = T.make_person_ngram_counts(T.person_text_domain(d_max), dpg.polars.person_log_distance(neighbouring), KEYS, cap,
                                      dp.linf_distance(T=dp.i64))
    assert linf.map(1) == d_max and linf.map(3) == 3 * d_max
    options = [(o, g) for o in [(0,), (0, 1), (1,)] for g in (["a"], ["b"], ["a", "b"])]
    logs = [list(log) for size in range(4) for log in itertools.combinations_with_replacement(options, size)]
    logs = [log for log in logs if all(sum(p in o for o, _ in log) <= d_max for p in PEOPLE)]
    vectors = [np.array(linf(table(log))) for log in logs]
    worst = 0
    if neighbouring == "add_remove":
        monotonic = T.make_person_ngram_counts(T.person_text_domain(d_max), dpg.polars.person_log_distance(), KEYS, cap,
                                               dp.linf_distance(T=dp.i64, monotonic=True))
        assert monotonic.map(1) == d_max
        with pytest.raises(Exception, match="one unit"):
            monotonic.map(2)
        for log, full in zip(logs, vectors):
            for person in PEOPLE:
                diff = full - np.array(linf(table(without(log, person))))
                assert (diff >= 0).all()  # removing a person only lowers counts: one direction
                worst = max(worst, int(np.abs(diff).max()))
    else:
        with pytest.raises(ValueError, match="add_remove"):
            T.make_person_ngram_counts(T.person_text_domain(d_max), dpg.polars.person_log_distance("replace"), KEYS, cap,
                                       dp.linf_distance(T=dp.i64, monotonic=True))
        for person in (0, 1):
            groups = {}
            for i, log in enumerate(logs):
                groups.setdefault(tuple(sorted(map(repr, without(log, person)))), []).append(i)
            for group in groups.values():
                for i in group:
                    for j in group:
                        worst = max(worst, int(np.abs(vectors[i] - vectors[j]).max()))
    assert worst == d_max  # reached: D messages of one person with one key
    assert linf.check(1, d_max) and not linf.check(1, d_max - 1)


def test_person_level_top_k_chains_into_opendp_noisy_top_k():
    counts = T.make_person_ngram_counts(T.person_text_domain(4), dpg.polars.person_log_distance(), KEYS, 2,
                                        dp.linf_distance(T=dp.i64, monotonic=True))
    top = counts >> dp.m.then_noisy_top_k(dp.max_divergence(), k=2, scale=8.0)
    assert top.map(1) == pytest.approx(2 * 4 / 8.0)  # k·D/s: half of the non-monotonic 2k·D/s
    assert sorted(top(table([((0,), ["a", "b"])] * 3 + [((1,), ["a"])]))) in ([0, 1], [0, 2], [1, 2])


def test_person_counts_equal_the_per_message_reading_on_random_tables():
    """The vectorised count of ``make_person_ngram_counts`` against the plain reading of its rule:
    per message, its first ``L`` distinct keys in text order, each counted once (issue 42)."""
    import random

    import polars as pl

    rng = random.Random(7)
    vocab = [f"w{i}" for i in range(12)] + ["w0 w1", "w1 w2"]
    for _ in range(60):
        keys = rng.sample(vocab, rng.randint(1, len(vocab)))
        cap = rng.randint(1, 6)
        messages = [[rng.choice([*vocab, "zz"]) for _ in range(rng.randint(0, 9))] for _ in range(rng.randint(0, 12))]
        table = pl.DataFrame(
            {"owners": [[1, 2]] * len(messages), "ngrams": messages}, schema={"owners": pl.List(pl.Int64), "ngrams": pl.List(pl.String)}
        )
        counts = T.make_person_ngram_counts(T.person_text_domain(len(messages) + 1), dpg.polars.person_log_distance(), keys, cap)
        expected = [0] * len(keys)
        for grams in messages:
            taken = []
            for g in grams:
                if g in keys and g not in taken and len(taken) < cap:
                    taken.append(g)
            for g in taken:
                expected[keys.index(g)] += 1
        assert list(counts(table)) == expected
