"""Person-level totals of message logs at ε = 1 (issue 29's measure).

Usage (from the repository root)::

    .venv/bin/python -m benchmarks.person_level [--runs 30] [--data ../shared/data]

For the Enron log (154 active people, 21,635 messages; skipped with the reason when its data is
missing) and a synthetic hub-heavy log (:func:`opendp_graph.datasets.synthetic_message_log`:
500,000 messages, 20,000 people, a Pareto tail, 5 bots replying to 4,000 people each, a quarter
of the messages to oneself), each total (messages, words, distinct pairs) is released ``--runs``
times by :func:`opendp_graph.polars.make_private_total` at ε = 1 under add/remove-a-person,
with two ladders: R2T's powers of two up to the public bound, and a short public ladder. Printed
beside the truth: the capped totals at fixed caps (bias of each cap, no noise), the median
relative error of the estimate, how often the stated interval ``[estimate, upper]`` holds the
truth, and the caps chosen. The output of the run quoted in docs/polars.md is ``benchmarks/PERSON_LEVEL.txt``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import opendp.prelude as dp

from benchmarks._selection import idealised_decision, laplace_median_error

# Declared public bounds on one person's contribution (not read off the data): the synthetic log's
# generator caps nobody, so a round log-size bound; Enron: at most 8,192 messages per employee
# over the three years (an upper bound on an inbox, not the busiest one's count).
PUBLIC_BOUND = {
    ("synthetic", "messages"): 2**15, ("synthetic", "words"): 2**19, ("synthetic", "pairs"): 2**15,
    ("enron", "messages"): 2**13, ("enron", "pairs"): 2**14,
}


def releases(log, of, runs, *, max_contribution, caps=None, epsilon=1.0):
    import opendp_graph as dpg

    meas = dpg.polars.make_private_total(
        dpg.polars.message_log_domain(), dpg.polars.person_log_distance(), dp.loss_of(epsilon=epsilon),
        max_contribution=max_contribution, caps=caps, of=of, beta=0.1,
    )
    return [meas(log) for _ in range(runs)]


def report(name, log, truth, of, runs, max_contribution, short_caps):
    from opendp_graph.polars import capped_total

    print(f"\n{name}: {of}, truth {truth:,.0f}; busiest person holds {log.load(of).max():,.0f}")
    fixed = {c: capped_total(log, c, of) for c in short_caps}
    print("  capped totals (bias only): " + ", ".join(f"τ={c:g}: {v:,.0f} ({(v - truth) / truth:+.1%})" for c, v in fixed.items()))
    for label, caps in (("R2T powers of two", None), (f"ladder {list(short_caps)}", short_caps)):
        start = time.perf_counter()
        out = releases(log, of, runs, max_contribution=max_contribution, caps=caps)
        seconds = (time.perf_counter() - start) / runs
        rel = np.array([(r.estimate - truth) / truth for r in out])
        covered = np.mean([r.estimate <= truth <= r.upper for r in out])
        chosen = sorted({r.cap for r in out}, key=lambda c: -1 if c is None else c)
        print(
            f"  {label:28s} median error {np.median(np.abs(rel)):6.1%} (median signed {np.median(rel):+.1%}); "
            f"interval holds the truth in {covered:.0%}; median upper/truth {np.median([r.upper for r in out]) / truth:.2f}; "
            f"caps chosen {chosen}; {seconds:.1f} s per release"
        )


def point_estimates(name, log, of, ladder, runs, epsilon=1.0):
    """The point estimate (:func:`opendp_graph.polars.make_private_total_estimate`) against every
    fixed cap of the same public ladder at the whole ``ε`` (the best fixed cap is the one a user
    would pick knowing the data), and R2T's lower bound on the same ladder; truth beside.

    A fixed cap's median error is computed exactly (its bias and OpenDP's Laplace scale for it,
    through Laplace's distribution function) and also measured in ``runs`` releases; the minimum
    over the ladder of sampled medians is biased low (at 30 releases a median of |Laplace| is
    within about ±25 %), so the ratio uses the exact one. The point estimate's median and the
    coverage of its interval come from ``10·runs`` releases (a 90 % statement checked on 30
    fails the count by chance one time in five); R2T's from ``runs``."""

    import opendp_graph as dpg

    space = dpg.polars.message_log_domain(), dpg.polars.person_log_distance()
    truth = dpg.polars.capped_total(log, float(log.load(of).max()) + 1, of)
    exact, sampled = {}, {}
    for cap in ladder:
        total = dpg.polars.make_capped_total(*space, cap, of)
        scale = dp.binary_search_param(lambda b, t=total: t >> dp.m.then_laplace(scale=b), d_in=1, d_out=epsilon, T=float)
        meas = total >> dp.m.then_laplace(scale=scale)
        bias = dpg.polars.capped_total(log, cap, of) - truth
        exact[cap] = laplace_median_error(bias, scale) / truth
        sampled[cap] = float(np.median([abs(meas(log) - truth) for _ in range(runs)])) / truth
    best_cap = min(exact, key=exact.get)
    point = dpg.polars.make_private_total_estimate(*space, dp.loss_of(epsilon=epsilon), caps=ladder, of=of, beta=0.1)
    out = [point(log) for _ in range(10 * runs)]
    error = float(np.median([abs(r.estimate - truth) for r in out])) / truth
    first = float(np.median([abs(r.estimate - truth) for r in out[:runs]])) / truth
    covered = np.mean([r.lower <= truth <= r.upper for r in out])
    noise_covered = np.mean([abs(r.estimate - truth) <= r.noise_halfwidth for r in out])
    r2t = releases(log, of, runs, max_contribution=int(ladder[-1]), caps=ladder, epsilon=epsilon)
    r2t_error = float(np.median([abs(r.estimate - truth) for r in r2t])) / truth
    chosen = [r.cap for r in out]
    print(
        f"  {name:10s} {of:10s} truth {truth:>10,.0f}  busiest {log.load(of).max():>7,.0f}  ladder {int(ladder[0])}–{int(ladder[-1])} "
        f"({len(ladder)} caps): best fixed τ={best_cap:g} {exact[best_cap]:6.2%} (in {runs} releases {sampled[best_cap]:.2%}) | "
        f"point estimate {error:6.2%} = {error / exact[best_cap]:.2f}× (first {runs}: {first:.2%}) | R2T lower bound {r2t_error:6.2%} = "
        f"{r2t_error / exact[best_cap]:.1f}× | interval holds the truth {covered:.0%} of {len(out)} (stated ≥ 90 %; noise part "
        f"alone {noise_covered:.0%}), median width/truth {np.median([(r.upper - r.lower) for r in out]) / truth:.2f} | caps chosen "
        + ", ".join(f"{c:g}: {chosen.count(c) / len(out):.0%}" for c in ladder if chosen.count(c))
    )
    print("      every fixed cap (exact median): " + ", ".join(f"{c:g}: {e:.2%}" for c, e in exact.items()))
    ideal = idealised_choice(log, of, ladder, best_cap, epsilon)
    if ideal is not None:
        d, q, ratio, s = ideal
        print(f"      one idealised decision against the rung below τ={best_cap:g}: D = {d:.2f} people-equivalents; "
              f"picks it {q:.0%} of the time at the best split s = {s:.2f}: median {ratio:.2f}× the best fixed")


def edge_level_message_counts(name, log, ks, runs, epsilon=1.0):
    """Messages per person at edge level (one pair's deliveries; no cap, no roster): OpenDP's
    discrete Laplace on :func:`opendp_graph.polars.make_message_count_histogram` at scale 4/ε,
    error Σ_c |released_c − true_c| / n (n the people of the log), negatives clamped to 0."""

    import opendp_graph as dpg

    space = dpg.polars.message_log_domain(), dpg.polars.pair_log_distance()
    cells = []
    for k in ks:
        hist = dpg.polars.make_message_count_histogram(*space, max_count=k)
        meas = hist >> dp.m.then_laplace(scale=4.0 / epsilon)
        truth = dpg.polars.message_count_histogram(log, k)
        n = truth.sum()
        errors = [np.abs(np.maximum(np.asarray(meas(log)), 0) - truth).sum() / n for _ in range(runs)]
        cells.append(f"k={k}: {np.median(errors):.3f}")
    print(f"  {name}: {log.num_people:,} people; median L1/n at ε = {epsilon:g} (pair level, map 4): " + ", ".join(cells))


def _roster_free_cells(log, bounds, runs, epsilon, make_tails, exact_tails, counts, label):
    """For each bound: OpenDP's Laplace (scale 2·bound/ε) on ``make_tails(bound)``, fitted by
    ``histogram_from_tails``; median over ``runs`` of Σ_c |released_c − true_c| / n against the
    projected histogram (the noise) and against the true one from ``counts`` (each person's count,
    the last entry "bound or more": noise and bias)."""

    import opendp_graph as dpg

    cells = []
    for bound in bounds:
        meas = make_tails(bound) >> dp.m.then_laplace(scale=2.0 * bound / epsilon)
        t = exact_tails(log, bound)
        projected = t - np.append(t[1:], 0)
        true = np.bincount(np.minimum(counts, bound) - 1, minlength=bound)
        noise, whole = [], []
        for _ in range(runs):
            h = dpg.polars.histogram_from_tails(meas(log), noise_scale=2.0 * bound / epsilon)
            noise.append(np.abs(h - projected).sum() / projected.sum())
            whole.append(np.abs(h - true).sum() / true.sum())
        cells.append(f"{label}={bound}: {np.median(whole):.3f} (noise alone {np.median(noise):.3f})")
    return ", ".join(cells)


def roster_free_message_counts(name, log, ks, runs, epsilon=1.0):
    """Messages per person at person level with no roster
    (:func:`opendp_graph.polars.make_message_count_tails`; direct and self messages)."""
    import opendp_graph as dpg

    space = dpg.polars.message_log_domain(), dpg.polars.person_log_distance()
    direct = log.with_owners(1, 2)
    owned = np.bincount(direct.owners, minlength=direct.num_people)
    owned = owned[owned > 0]
    cells = _roster_free_cells(log, ks, runs, epsilon, lambda k: dpg.polars.make_message_count_tails(*space, max_count=k),
                               dpg.polars.message_count_tails, owned, "k")
    print(f"  {name}: {len(owned):,} people with a direct or self message; median L1/n at ε = {epsilon:g} "
          "(person level, no roster, map 2k): " + cells)


def roster_free_degrees(name, log, thetas, runs, epsilon=1.0):
    """Direct correspondents per person at person level with no roster
    (:func:`opendp_graph.polars.make_person_degree_tails`; n: people with a correspondent)."""
    import opendp_graph as dpg

    space = dpg.polars.message_log_domain(), dpg.polars.person_log_distance()
    graph = dpg.polars.person_graph(log, log.people.tolist())
    degrees = graph.degrees[graph.degrees > 0]
    cells = _roster_free_cells(log, thetas, runs, epsilon, lambda t: dpg.polars.make_person_degree_tails(*space, max_degree=t),
                               dpg.polars.person_degree_tails, degrees, "θ")
    print(f"  {name}: {len(degrees):,} people with a direct correspondent, largest degree {degrees.max():,}; median L1/n at "
          f"ε = {epsilon:g} (person level, no roster, map 2θ): " + cells)


def monthly(name, log, months, runs, max_contribution, caps, epsilon=1.0):
    """Messages per month two ways, at ε in all: (a) one make_private_total per month at
    ε/months (basic composition: a person active in every month costs every month's share; the
    baseline) and (b) make_private_window_totals (one cap per month chosen under DP, one release
    of the vector). Error: the median over months of |estimate − truth| / truth, median over
    releases; (b) also: how often each month's [lower, upper] holds its truth."""
    import opendp_graph as dpg

    space = dpg.polars.message_log_domain(), dpg.polars.person_log_distance()
    bounds = months + [f"{int(months[-1][:4]) + (months[-1][5:7] == '12')}-{int(months[-1][5:7]) % 12 + 1:02d}-01"]
    parts = [log.within(a, b) for a, b in zip(bounds, bounds[1:])]
    truth = np.array([p.num_messages for p in parts], dtype=float)
    share = epsilon / len(months)
    composed = dpg.polars.make_private_total(*space, dp.loss_of(epsilon=share), max_contribution=max_contribution, caps=caps, beta=0.1)
    baseline = [np.median([abs(composed(p).estimate - t) / t for p, t in zip(parts, truth)]) for _ in range(max(3, runs // 10))]

    fixed = {}  # each cap of the ladder, fixed in advance, the vector released at the whole ε
    for cap in caps:
        vector = dpg.polars.make_window_capped_totals(*space, bounds, cap)
        scale = dp.binary_search_param(lambda b, t=vector: t >> dp.m.then_laplace(scale=b), d_in=1, d_out=epsilon, T=float)
        meas = vector >> dp.m.then_laplace(scale=scale)
        fixed[cap] = float(np.median([np.median(np.abs(np.array(meas(log)) - truth) / truth) for _ in range(runs)]))
    best = min(fixed, key=fixed.get)
    windows = dpg.polars.make_private_window_totals(*space, dp.loss_of(epsilon=epsilon), windows=bounds, caps=caps, beta=0.1)
    out = [windows(log) for _ in range(runs)]
    errors = [np.median(np.abs(np.array(r.estimates) - truth) / truth) for r in out]
    covered = np.mean([[lo <= t <= up for lo, t, up in zip(r.lower, truth, r.upper)] for r in out])
    top_fits = max(p.load().max() for p in parts) <= caps[-1]
    print(f"\n{name}: messages per month, {len(months)} months, ladder {list(caps)}, ≈ {truth.mean():,.0f} messages a month")
    print(f"  composition of {len(months)} make_private_total at ε = {share:.3f} each: median error {np.median(baseline):.1%}")
    print(f"  make_private_window_totals at ε = {epsilon:g}: median error {np.median(errors):.1%} (quartiles "
          f"{np.percentile(errors, 25):.1%}–{np.percentile(errors, 75):.1%}); caps chosen {sorted(r.cap for r in out)}; "
          f"[lower, upper] holds the month's truth in {covered:.0%} (stated ≥ 80 %"
          f"{'' if top_fits else ', conditional on the top cap, which the busiest person-month exceeds here'}); "
          f"median upper/truth {np.median(np.array([r.upper for r in out]) / truth):.1f}")
    print(f"  best fixed cap c={best:g}: {fixed[best]:.1%} → make_private_window_totals at {np.median(errors) / fixed[best]:.2f}× "
          f"the best fixed; every fixed cap: " + ", ".join(f"{c:g}: {e:.1%}" for c, e in fixed.items()))


def choice_law(scores: list[int], fixed: dict, sensitivity: int, epsilon_select: float, draws: int = 2000):
    """How OpenDP's noisy max, at the selector's sensitivity and ε, picks among the candidates on
    the score vector ``scores``: ``draws`` picks on the one vector (a diagnostic of the choice's
    law; the 30 releases above are a small sample of it). Returns each candidate's share of the
    picks and the median and mean of the picked candidates' measured errors (``fixed``)."""

    candidates = list(fixed)
    space = dp.vector_domain(dp.atom_domain(T=dp.i64), size=len(candidates)), dp.linf_distance(T=dp.i64)
    scale = dp.binary_search_param(
        lambda s: dp.m.make_noisy_max(*space, dp.max_divergence(), scale=s), d_in=sensitivity, d_out=epsilon_select
    )
    pick = dp.m.make_noisy_max(*space, dp.max_divergence(), scale=scale)
    picks = [pick([int(v) for v in scores]) for _ in range(draws)]
    errors = [fixed[candidates[i]] for i in picks]
    shares = np.bincount(picks, minlength=len(candidates)) / draws
    return shares, float(np.median(errors)), float(np.mean(errors)), scale


def _print_choice_laws(fixed, n, sensitivity, epsilon, best, real_scores, what="θ"):
    """The law of the choice from the real scores and from an *oracle* score (each candidate's
    measured error times n, which no DP score can beat), at the real selector's sensitivity and
    ε: if the oracle's law is near uniform too, the selection's noise, not the score, is what
    limits the choice."""
    share = 0.1  # make_private_degree_distribution's and the message-count histogram's default selection share
    for label, scores in (("real score", real_scores), ("oracle score", [-int(round(fixed[c] * n)) for c in fixed])):
        shares, median, mean, scale = choice_law(scores, fixed, sensitivity, share * epsilon)
        print(f"  {label}'s choice law (2,000 noisy-max draws, sensitivity {sensitivity:,}, ε = {share * epsilon:g}, "
              f"noise scale {scale / n:.2g}·n): picks " + ", ".join(f"{what}={c}: {p:.0%}" for c, p in zip(fixed, shares))
              + f"; median {median / best:.2f}×, mean {mean / best:.2f}× the best fixed")


def _real_scores(histogram_at, release_chain, candidates, n, epsilon, selection_share=0.1):
    """The score vector make_private_degree_distribution's selection reads (non-private: for the
    choice law), with its noise terms at the release's calibrated scales."""

    from opendp_graph.measurements.degree_distribution import fit_noise_estimate, make_bias_noise_scores

    noise = []
    for theta in candidates:
        chain = release_chain(theta)
        scale = dp.binary_search_param(lambda s, c=chain: c >> dp.m.then_laplace(scale=s), d_in=1,
                                       d_out=epsilon * (1 - selection_share))
        noise.append(fit_noise_estimate(theta, scale, n))
    scores = make_bias_noise_scores(histogram_at, list(candidates), max(candidates), noise)
    return scores, noise


def degree_distribution(name, log, roster, candidates, runs, epsilon=1.0):
    """The person-level degree distribution (direct correspondents on a public roster,
    :func:`opendp_graph.polars.make_person_graph`, one person = one rewired node) at each fixed
    θ and with θ chosen under DP inside ε; error ``Σ_k |released_k − true_k| / n`` against the
    graph's true histogram, and what the graph leaves out of the log."""
    import opendp_graph as dpg
    from benchmarks.node_level import error

    scope = dpg.polars.person_graph_scope(log, roster)
    graph = dpg.polars.person_graph(log, roster)
    n = graph.num_nodes
    true = np.bincount(graph.degrees, minlength=n).astype(float)
    space = dpg.polars.message_log_domain(), dpg.polars.person_log_distance()
    to_graph = dpg.polars.make_person_graph(*space, roster=roster)
    print(f"\n{name}: degree distribution of direct correspondents, {n:,} people on the roster, {graph.num_edges:,} pairs, "
          f"largest degree {graph.max_degree:,}; the graph leaves out {scope.group_messages:,} group messages, "
          f"{scope.self_messages:,} to oneself and {scope.off_roster:,} off the roster (of {log.num_messages:,})")

    def median_error(cands):
        meas = to_graph >> dpg.make_private_degree_distribution(
            to_graph.output_domain, to_graph.output_metric, dp.loss_of(epsilon=epsilon), cands, num_nodes=n)
        out = [meas(log) for _ in range(runs)]
        return float(np.median([error(r.histogram, true) for r in out])), sorted(r.theta for r in out)

    fixed = {theta: median_error([theta])[0] for theta in candidates}
    chosen, thetas = median_error(candidates)
    best, worst = min(fixed.values()), max(fixed.values())
    print("  fixed θ (median L1/n): " + ", ".join(f"θ={t}: {e:.3f}" for t, e in fixed.items()))
    print(f"  θ chosen under DP from {list(candidates)}: median {chosen:.3f} = {chosen / best:.2f}× the best fixed "
          f"(worst fixed {worst:.3f}); θ chosen {thetas}")
    scores, _ = _real_scores(
        lambda b: to_graph >> dpg.then_degree_projection(b) >> dpg.then_degree_histogram(max_degree=b),
        lambda t: to_graph >> dpg.then_degree_projection(t) >> dpg.then_cumulative_degree_histogram(max_degree=t),
        candidates, n, epsilon,
    )
    _print_choice_laws(fixed, n, scores.map(1), epsilon, best, scores(log))
    score_components(graph, true, candidates, epsilon)


def score_components(graph, true, candidates, epsilon, draws=5, selection_share=0.1):
    """What the selection's score estimates against what it measures, per θ, relative to n:
    the projection's bias (its histogram against the truth) beside the score's bias term ``P_θ``
    (make_bias_noise_scores: the moves below θ against the scoring bound plus the capped
    people), and the fitted release's noise (the fit against the projection's own histogram,
    median of ``draws`` releases at the release's ε) beside the score's public noise term
    ``N_θ = min((θ + 1)·scale, √(n·scale))``. Non-private diagnostics."""

    import opendp_graph as dpg
    from benchmarks.node_level import error
    from opendp_graph.measurements.degree_distribution import (
        fit_degree_histogram,
        fit_noise_estimate,
        make_bias_noise_scores,
    )

    n = graph.num_nodes
    space = dpg.graph_domain(num_nodes=n), dpg.node_distance()
    thetas = list(candidates)
    bias_terms = make_bias_noise_scores(
        lambda b: dpg.make_degree_projection(*space, b) >> dpg.then_degree_histogram(max_degree=b),
        thetas, max(thetas), [0] * len(thetas),
    )(graph)
    cells = []
    for theta, p in zip(thetas, bias_terms):
        projection = dpg.make_degree_projection(*space, theta)
        own = np.bincount(projection(graph).degrees, minlength=n).astype(float)
        chain = projection >> dpg.then_cumulative_degree_histogram(max_degree=theta)
        scale = dp.binary_search_param(lambda s, c=chain: c >> dp.m.then_laplace(scale=s), d_in=1,
                                       d_out=epsilon * (1 - selection_share))
        release = chain >> dp.m.then_laplace(scale=scale)
        noise = np.median([error(fit_degree_histogram(np.asarray(release(graph), float), scale, num_nodes=n), own)
                           for _ in range(draws)])
        cells.append(f"θ={theta}: bias {error(own, true):.3f} (score's P/n {-p / n:.3f}), "
                     f"fitted noise {noise:.3f} (score's N/n {fit_noise_estimate(theta, scale, n) / n:.3f})")
    print("  score components /n: " + "; ".join(cells))


def choice_at_budgets(name, log, roster, candidates, epsilons=(3.0, 10.0), runs=9):
    """Where the budget lets the choice see the scores: the degree distribution's fixed-θ errors
    at larger ε (``runs`` releases per θ), and the law of the choice (2,000 draws of OpenDP's
    noisy max) on the current score and on the previous one (nodes above θ at twice the largest
    candidate, doubled, plus the raw noise ``(θ + 1)·scale``, at its own sensitivity)."""

    import opendp_graph as dpg
    from benchmarks.node_level import error

    space = dpg.polars.message_log_domain(), dpg.polars.person_log_distance()
    to_graph = dpg.polars.make_person_graph(*space, roster=roster)
    graph = dpg.polars.person_graph(log, roster)
    n = graph.num_nodes
    true = np.bincount(graph.degrees, minlength=n).astype(float)
    print(f"\n{name}: the choice of θ at larger budgets (degree distribution, {runs} releases per fixed θ)")
    for eps in epsilons:
        fixed = {}
        for theta in candidates:
            meas = to_graph >> dpg.make_private_degree_distribution(
                to_graph.output_domain, to_graph.output_metric, dp.loss_of(epsilon=eps), [theta], num_nodes=n)
            fixed[theta] = float(np.median([error(meas(log).histogram, true) for _ in range(runs)]))
        best = min(fixed.values())
        scores, _ = _real_scores(
            lambda b: to_graph >> dpg.then_degree_projection(b) >> dpg.then_degree_histogram(max_degree=b),
            lambda t: to_graph >> dpg.then_degree_projection(t) >> dpg.then_cumulative_degree_histogram(max_degree=t),
            candidates, n, eps,
        )
        shares, median, mean, _ = choice_law(scores(log), fixed, scores.map(1), 0.1 * eps)
        tails = to_graph >> dpg.then_degree_projection(2 * max(candidates)) >> dpg.then_degree_tail_counts(list(candidates))
        raw = []
        for theta in candidates:
            chain = to_graph >> dpg.then_degree_projection(theta) >> dpg.then_cumulative_degree_histogram(max_degree=theta)
            scale = dp.binary_search_param(lambda s, c=chain: c >> dp.m.then_laplace(scale=s), d_in=1, d_out=0.9 * eps)
            raw.append((theta + 1) * scale)
        previous = [-(2 * int(a) + int(round(r))) for a, r in zip(tails(log), raw)]
        old_shares, old_median, old_mean, _ = choice_law(previous, fixed, 2 * tails.map(1), 0.1 * eps)
        print(f"  ε = {eps:g}: fixed θ " + ", ".join(f"{t}: {e:.3f}" for t, e in fixed.items()))
        print("    current score picks " + ", ".join(f"{p:.0%}" for p in shares)
              + f": median {median / best:.2f}×, mean {mean / best:.2f}× the best fixed; previous score picks "
              + ", ".join(f"{p:.0%}" for p in old_shares) + f": median {old_median / best:.2f}×, mean {old_mean / best:.2f}×")


def message_count_histogram(name, log, roster, candidates, runs, epsilon=1.0):
    """The histogram of messages per person (direct ones and to oneself, on a public roster,
    :func:`opendp_graph.polars.make_private_message_count_histogram`) at each fixed bound k and
    with k chosen under DP; error ``Σ_c |released_c − true_c| / n`` against the histogram of the
    uncapped counts of the same messages."""
    import opendp_graph as dpg

    counts = dpg.polars.message_counts(log, 2**40, roster)  # no cap: the truth
    n = len(roster)
    true_hist = np.bincount(counts).astype(float)

    def error(released, true=true_hist):
        """``Σ_c |released_c − true_c| / n`` over every count either has (counts may exceed n)."""
        values = np.asarray(released, dtype=float)
        size = max(values.size, true.size)
        a, b = np.zeros(size), np.zeros(size)
        a[: values.size], b[: true.size] = values, true
        return float(np.abs(a - b).sum() / n)

    true = true_hist
    space = dpg.polars.message_log_domain(), dpg.polars.person_log_distance()
    print(f"\n{name}: messages per person (direct and to oneself), {n:,} people; the busiest has {counts.max():,}")

    def median_error(cands):
        meas = dpg.polars.make_private_message_count_histogram(*space, dp.loss_of(epsilon=epsilon), cands, roster=roster)
        out = [meas(log) for _ in range(runs)]
        return float(np.median([error(r.histogram, true) for r in out])), sorted(r.theta for r in out)

    fixed = {k: median_error([k])[0] for k in candidates}
    chosen, ks = median_error(candidates)
    best = min(fixed.values())
    print("  fixed k (median L1/n): " + ", ".join(f"k={k}: {e:.3f}" for k, e in fixed.items()))
    print(f"  k chosen under DP from {list(candidates)}: median {chosen:.3f} = {chosen / best:.2f}× the best fixed "
          f"(worst fixed {max(fixed.values()):.3f}); k chosen {ks}")
    from opendp_graph.polars._message_counts import _cumulative, _histogram

    scores, _ = _real_scores(
        lambda b: dpg.polars.make_message_count_projection(*space, b, roster) >> _histogram(n, b),
        lambda k: dpg.polars.make_message_count_projection(*space, k, roster) >> _cumulative(n, k),
        candidates, n, epsilon,
    )
    _print_choice_laws(fixed, n, scores.map(1), epsilon, best, scores(log), what="k")


def idealised_choice(log, of, ladder, best_cap, epsilon=1.0):
    """What a selection that makes one decision could reach (module docstring of
    ``opendp_graph.polars._point_totals``; :func:`benchmarks._selection.idealised_decision`):
    ``D = (Q(2τ) − Q(τ))/τ`` at the rung ``τ`` below the best cap ``τ*``, read once against the
    threshold ``1/ε₂``. Returns (D, q, ratio, s), or None when τ* is the lowest rung."""
    import opendp_graph as dpg

    below = [c for c in ladder if c < best_cap]
    if not below:
        return None
    tau = below[-1]
    truth = dpg.polars.capped_total(log, float(log.load(of).max()) + 1, of)
    bias = {c: truth - dpg.polars.capped_total(log, c, of) for c in (tau, best_cap)}
    d = (dpg.polars.capped_total(log, 2 * tau, of) - dpg.polars.capped_total(log, tau, of)) / tau
    q, ratio, s = idealised_decision(d, 1.0, bias[tau], bias[best_cap], tau, best_cap, epsilon)
    return d, q, ratio, s


# public ladders for the point estimates: R2T-style powers of two from 32 up to a public bound
# (the declared bounds above, or for the chat log its size bound rounded down), and a short one
def _powers(low, high):
    return tuple(float(2**j) for j in range(int(np.log2(low)), int(np.log2(high)) + 1))


def point_estimate_table(dpg, synthetic, args):
    print(f"\nPoint estimates of totals at ε = 1, add/remove a person (median relative error; fixed caps exact and in {args.runs} "
          f"releases, the point estimate in {10 * args.runs}, R2T in {args.runs})")
    chat = dpg.polars.message_log(dpg.datasets.synthetic_chat_log(), time="time", words="words")
    # public bounds per kind: powers of two above what the generators can give one person
    logs = [
        ("chat", chat, {"messages": 2**13, "deliveries": 2**13, "words": 2**17, "pairs": 2**13}),
        ("synthetic", synthetic, {"messages": 2**15, "deliveries": 2**15, "words": 2**19, "pairs": 2**15}),
    ]
    if args.logs is None or "Enron" in args.logs:
        try:
            frame = dpg.datasets.load_enron_messages(None if args.data is None else f"{args.data}/enron-perry-wolfe")
            # the Enron table has no word counts
            logs.append(("Enron", dpg.polars.message_log(frame), {"messages": 2**13, "deliveries": 2**14, "pairs": 2**14}))
        except (FileNotFoundError, dpg.datasets.DataUnavailableError) as reason:
            print(f"  Enron skipped: {reason}")
    for name, log, bounds in logs:
        if args.logs is not None and name not in args.logs:
            continue
        for of, bound in bounds.items():
            point_estimates(name, log, of, _powers(32, bound), args.runs)
            top = 2 ** int(np.ceil(np.log2(log.load(of).max())))  # a public bound as tight as the busiest person
            point_estimates(name, log, of, _powers(top / 16, top), args.runs)


def main(argv=None) -> None:

    import opendp_graph as dpg

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--data", default=None)
    parser.add_argument("--only", choices=("histograms", "choice", "point", "edge"), default=None,
                        help="histograms: only the degree distribution and messages-per-person sections; "
                             "choice: only the choice of θ at ε = 3 and 10; point: only the point estimates "
                             "of totals against the best fixed cap; edge: only messages per person at edge level and without a roster")
    parser.add_argument("--logs", default=None, type=lambda text: set(text.split(",")),
                        help="with --only point: a comma-separated subset of chat,synthetic,Enron (to run them side by side)")
    args = parser.parse_args(argv)
    dp.enable_features("contrib", "honest-but-curious")

    synthetic = dpg.polars.message_log(dpg.datasets.synthetic_message_log(), time="time", words="words")
    starts = [f"{2020 + m // 12}-{m % 12 + 1:02d}-01" for m in range(24)]
    if args.only in (None, "point"):
        point_estimate_table(dpg, synthetic, args)
        if args.logs is None or "synthetic" in args.logs:
            monthly("synthetic hub-heavy log", synthetic, starts, args.runs, 2**15, (16, 32, 64, 128))
        if args.logs is None or "chat" in args.logs:
            chat = dpg.polars.message_log(dpg.datasets.synthetic_chat_log(), time="time")
            monthly("chat", chat, starts, args.runs, 2**13, (8, 16, 32, 64, 128))
        if args.only == "point":
            return
    if args.only in (None, "edge"):
        print(f"\nMessages per person at edge level, {args.runs} releases each")
        edge_level_message_counts("chat", dpg.polars.message_log(dpg.datasets.synthetic_chat_log()), (16, 64, 256), args.runs)
        edge_level_message_counts("synthetic", synthetic, (16, 64, 256), args.runs)
        print(f"\nMessages per person at person level without a roster, {args.runs} releases each")
        roster_free_message_counts("chat", dpg.polars.message_log(dpg.datasets.synthetic_chat_log()), (16, 32, 64, 128), args.runs)
        roster_free_message_counts("synthetic", synthetic, (32, 64, 128, 256), args.runs)
        print(f"\nDirect correspondents per person at person level without a roster, {args.runs} releases each")
        roster_free_degrees("chat", dpg.polars.message_log(dpg.datasets.synthetic_chat_log()), (16, 32, 64, 128), args.runs)
        roster_free_degrees("synthetic", synthetic, (32, 64, 128, 256), args.runs)
        if args.only == "edge":
            return
    totals = args.only is None
    for of, caps in (("messages", (256, 512, 1024, 2048)), ("words", (2048, 4096, 8192, 16384)), ("pairs", (256, 512, 1024, 2048))):
        if totals:
            truth = dpg.polars.capped_total(synthetic, float(synthetic.load(of).max()) + 1, of)
            report("synthetic hub-heavy log", synthetic, truth, of, args.runs, PUBLIC_BOUND["synthetic", of], caps)
    # the generator's population is public: ids 0 .. num_people − 1
    if args.only == "choice":
        choice_at_budgets("synthetic hub-heavy log", synthetic, list(range(20_000)), (32, 64, 128, 256))
        return
    degree_distribution("synthetic hub-heavy log", synthetic, list(range(20_000)), (32, 64, 128, 256), args.runs)
    message_count_histogram("synthetic hub-heavy log", synthetic, list(range(20_000)), (32, 64, 128, 256), args.runs)
    # the chat-shaped log (6,000 people; its generator's population, ids 0 … 5,999, is public)
    chat = dpg.polars.message_log(dpg.datasets.synthetic_chat_log())
    degree_distribution("chat", chat, list(range(6_000)), (16, 32, 64, 128), args.runs)
    message_count_histogram("chat", chat, list(range(6_000)), (16, 32, 64, 128), args.runs)
    try:
        frame = dpg.datasets.load_enron_messages(None if args.data is None else f"{args.data}/enron-perry-wolfe")
    except (FileNotFoundError, dpg.datasets.DataUnavailableError) as reason:
        print(f"\nEnron skipped: {reason}")
        return
    enron = dpg.polars.message_log(frame, time="time")
    for of, caps in (("messages", (64, 128, 256, 512)), ("pairs", (8, 16, 32, 64))):
        if totals:
            truth = dpg.polars.capped_total(enron, float(enron.load(of).max()) + 1, of)
            report("Enron", enron, truth, of, args.runs, PUBLIC_BOUND["enron", of], caps)
    employees = dpg.datasets.load_enron_employees(None if args.data is None else f"{args.data}/enron-perry-wolfe")
    degree_distribution("Enron", enron, employees["id"].to_list(), (4, 8, 16, 32, 64), args.runs)
    message_count_histogram("Enron", enron, employees["id"].to_list(), (64, 128, 256, 512), args.runs)


if __name__ == "__main__":
    main()
