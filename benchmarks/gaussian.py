"""Gaussian noise under zCDP against today's Laplace routes on Enron subject n-grams (issue 30).

Usage (from the repository root)::

    .venv/bin/python -m benchmarks.gaussian [--runs 30] [--data ../shared/data]

The Enron graph (156 employees, 1,843 pairs; :func:`opendp_graph.datasets.load_enron`) labelled
with its subjects' unigrams, bigrams or trigrams (``orders=``); at edge level one pair may carry
up to ``c = 50`` n-grams of each order. Everything at ``(ε, δ) = (1, 10⁻⁶)`` unless said; the
truth is printed beside each release.

A. **Word counts over a fixed vocabulary** (the 10,767 unigrams sorted by name: a stand-in for a
   public word list, which part B replaces by a DP set union). Laplace (pure ε = 1, L1 = 50)
   against the Gaussian through zCDP (ℓ2 = √50), both from :func:`opendp_graph.choose_noise`:
   the 95 % half-width ``h`` of each, how many true counts are at least ``2h`` (clear of twice
   their half-width), and over ``--runs`` releases the median number of *released* counts at
   least ``2h`` and the share of counts within ``± h`` of the truth.
B. **Four releases under one budget**: the unigram vocabulary (set union), unigram counts over
   it, and the bigram and trigram count maps (set unions with counts). Laplace: basic composition,
   ``ε = 1/4`` each, the three thresholds' δ ``10⁻⁶/3`` each. Gaussian: ρ split evenly, the
   thresholds' δ ``10⁻⁷`` each, OpenDP's composition in ``approximate(zCDP)`` converted to ``(ε,
   10⁻⁶)`` by ``make_zCDP_to_approxDP`` and ``make_fix_delta``, the largest ρ that meets ``ε ≤ 1``.
   The four graphs have the same edges (one pair = one unit in each); OpenDP's compositor states
   the total over the four measurements' maps. Per-count noise (standard deviation) of each, and
   over ``--runs`` releases the keys released and their median absolute error.
C. **Pufferfish**: the unigram counts under the Binomial model built from public figures (the
   2000 snapshot's p0, p1 on the public structure) and the Global model fitted on the 2001
   period, one release and four composed: the per-count half-width of Laplace at ``W∞`` (pure
   ε), the Gaussian through zCDP at ``W∞`` (Rényi Pufferfish), Laplace at ``W_δ`` and the
   Gaussian at ``W_{δ/2}`` (:func:`opendp_graph.choose_noise`), and the median absolute error of
   each over ``--runs / 3k`` releases of the 2001 counts (``k`` = 1, 4 and 16 composed releases).
   Part B is run at ``c = 50`` and at ``c = 8``.

The run quoted in docs/guarantees.md is ``benchmarks/GAUSSIAN.txt``.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

EPSILON, DELTA, C = 1.0, 1e-6, 50


def _setup(data):
    import opendp.prelude as dp

    import opendp_graph as dpg

    dp.enable_features("contrib", "honest-but-curious")
    graphs = {n: dpg.datasets.load_enron(data, orders=(n,)) for n in (1, 2, 3)}
    return dp, dpg, graphs


def part_a(dp, dpg, graph, runs):
    from opendp_graph.transformations.labels import label_counts

    vocabulary = sorted(graph.vocabulary)
    space = dpg.graph_domain(labeled=True), dpg.edge_distance()
    choice = dpg.choose_noise(*space, dpg.make_label_counts, C, vocabulary, privacy_loss=dp.loss_of(epsilon=EPSILON, delta=DELTA))
    truth = np.asarray(label_counts(graph, C, vocabulary))
    print(f"\nA. Enron subject words, edge level, c = {C} per pair, {len(vocabulary):,} words, (ε, δ) = ({EPSILON:g}, {DELTA:g})")
    print(f"   true counts: largest {truth.max():,}; {int((truth >= 100).sum())} words of count ≥ 100")
    results = {}
    for option in choice.options:
        h = option.half_width
        clear_true = int((truth >= 2 * h).sum())
        found, spurious, covered = [], [], []
        start = time.perf_counter()
        for _ in range(runs):
            noisy = np.asarray(option.measurement(graph))
            # a released count ≥ 2h is a finding when the word's true count is ≥ h, noise otherwise
            found.append(int(((noisy >= 2 * h) & (truth >= h)).sum()))
            spurious.append(int(((noisy >= 2 * h) & (truth < h)).sum()))
            covered.append(float((np.abs(noisy - truth) <= h).mean()))
        seconds = (time.perf_counter() - start) / runs
        results[option.route] = (clear_true, float(np.median(found)))
        print(f"   {option.route:9s} scale {option.scale:6.2f}, 95 % half-width ±{h:g}: {clear_true} true counts ≥ 2h; "
              f"released ≥ 2h: median {np.median(found):g} words of true count ≥ h (range {min(found)}–{max(found)}) "
              f"and {np.median(spurious):g} of true count < h (noise); entries within ±h: {100 * np.median(covered):.2f} %; "
              f"{seconds:.2f} s per release")
    lap, gau = results["laplace"], results["gaussian"]
    print(f"   Gaussian / Laplace: {gau[0] / max(lap[0], 1):.1f}× the true counts clear of 2h "
          f"({gau[0]} against {lap[0]}; target ≥ 5×), {gau[1] / max(lap[1], 1):.1f}× the real words released above 2h")


def _laplace_four(dp, dpg, graphs, C):
    """The four releases with Laplace noise, ε = 1/4 each (basic composition)."""
    space = dpg.graph_domain(labeled=True), dpg.edge_distance()
    eps, delta = EPSILON / 4, DELTA / 3
    unions = {}
    for n in (1, 2, 3):
        count_map = space >> dpg.then_label_count_map(C)
        scale, threshold = dpg.calibrate_laplace_threshold(count_map, 1, eps, delta)
        unions[n] = count_map >> dpg.then_corrected_laplace_threshold(scale=scale, threshold=threshold)
    probe = [f"_{i}" for i in range(C)]  # a vocabulary of ≥ c words: the largest L1 any released one gives
    counts_l1 = space >> dpg.then_label_counts(C, probe)
    count_scale = dp.binary_search_param(lambda s: counts_l1 >> dp.m.then_laplace(scale=s), d_in=1, d_out=eps)

    def counts(vocabulary):
        return space >> dpg.then_label_counts(C, vocabulary) >> dp.m.then_laplace(scale=count_scale)

    whole = dp.c.make_composition([unions[1], dp.c.make_approximate(counts(probe)), unions[2], unions[3]])
    return unions, counts, count_scale, whole


def _gaussian_four(dp, dpg, graphs, C):
    """The four releases with Gaussian noise: ρ split evenly, the largest total meeting (1, 10⁻⁶)."""
    space = dpg.graph_domain(labeled=True), dpg.edge_distance()
    l02inf = dp.l02inf_distance(dp.absolute_distance(T=dp.f64))
    l2 = dp.l2_distance(T=dp.f64)
    count_map = space >> dpg.then_label_count_map(C, output_metric=l02inf)
    probe = [f"_{i}" for i in range(C)]
    counts_l2 = space >> dpg.then_label_counts(C, probe, output_metric=l2)
    threshold_delta = 1e-7

    def build(rho_each):
        scale, threshold = dpg.calibrate_gaussian_threshold(count_map, 1, rho_each, threshold_delta)
        union = count_map >> dpg.then_corrected_gaussian_threshold(scale=scale, threshold=threshold)
        count_scale = dp.binary_search_param(lambda s: counts_l2 >> dp.m.then_gaussian(scale=s), d_in=1, d_out=rho_each)
        whole = dp.c.make_composition([union, dp.c.make_approximate(counts_l2 >> dp.m.then_gaussian(scale=count_scale)), union, union])
        return union, count_scale, dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(whole), DELTA)

    rho_each = dp.binary_search(lambda r: build(r)[2].map(1)[0] <= EPSILON, bounds=(1e-6, 1.0), T=float)
    union, count_scale, whole = build(rho_each)

    def counts(vocabulary):
        return space >> dpg.then_label_counts(C, vocabulary, output_metric=l2) >> dp.m.then_gaussian(scale=count_scale)

    return union, counts, count_scale, whole, rho_each


def _discrete_laplace_std(scale):
    q = math.exp(-1 / scale)
    return math.sqrt(2 * q) / (1 - q)


def part_b(dp, dpg, graphs, runs, C):
    from opendp_graph.transformations.labels import label_count_map, label_counts

    print(f"\nB. Four releases under one budget (ε, δ) = ({EPSILON:g}, {DELTA:g}), edge level, c = {C} per pair and order: "
          "unigram vocabulary (set union), unigram counts over it, bigram and trigram count maps")
    truths = {n: label_count_map(graphs[n], C) for n in (1, 2, 3)}
    for n in (1, 2, 3):
        print(f"   true {['', 'unigrams', 'bigrams', 'trigrams'][n]}: {len(truths[n]):,} keys, "
              f"{sum(1 for v in truths[n].values() if v >= 100)} of count ≥ 100")
    lap_unions, lap_counts, lap_scale, lap_whole = _laplace_four(dp, dpg, graphs, C)
    gau_union, gau_counts, gau_scale, gau_whole, rho_each = _gaussian_four(dp, dpg, graphs, C)
    print(f"   Laplace, basic composition: spends {lap_whole.map(1)}; scale {lap_scale:g} per count "
          f"(std {_discrete_laplace_std(lap_scale):.1f})")
    print(f"   Gaussian, zCDP: ρ = {rho_each:.5f} each ({4 * rho_each:.5f} in all), spends {gau_whole.map(1)}; "
          f"σ = {gau_scale:.1f} per count")
    ratio = _discrete_laplace_std(lap_scale) / gau_scale
    print(f"   per-count noise: Laplace std / Gaussian σ = {ratio:.2f}× (target ≥ 1.5×)")
    for name, union_of, counts in (
        ("Laplace ", lambda n: lap_unions[n], lap_counts),
        ("Gaussian", lambda n: gau_union, gau_counts),
    ):
        released = {1: [], 2: [], 3: []}
        errors = {1: [], 2: [], 3: []}
        for _ in range(runs):
            for n in (1, 2, 3):
                out = union_of(n)(graphs[n])
                released[n].append(len(out))
                errors[n].append(float(np.median([abs(v - truths[n][k]) for k, v in out.items()])) if out else float("nan"))
            vocabulary = sorted(union_of(1)(graphs[1]))  # a fresh vocabulary release, then its counts
            if vocabulary:
                noisy = np.asarray(counts(vocabulary)(graphs[1]))
                true = np.asarray(label_counts(graphs[1], C, vocabulary))
                errors.setdefault("counts", []).append(float(np.median(np.abs(noisy - true))))
        def error_of(values):
            values = [v for v in values if not math.isnan(v)]
            return f"{np.median(values):.0f}" if values else "— (nothing released)"

        summary = "; ".join(
            f"{['', 'unigrams', 'bigrams', 'trigrams'][n]}: {np.median(released[n]):g} keys released "
            f"(most {max(released[n])}), median |error| {error_of(errors[n])}" for n in (1, 2, 3)
        )
        print(f"   {name}: {summary}; unigram counts over the released vocabulary: median |error| "
              f"{error_of(errors.get('counts', []))}")


def part_c(dp, dpg, runs, data):
    from opendp_graph.pufferfish import BinomialModel, GlobalModel
    from opendp_graph.transformations.labels import label_counts

    split = "2001-01-01"
    public = dpg.datasets.load_enron(data, end=split, orders=(1,))
    private = dpg.datasets.load_enron(data, start=split, orders=(1,))
    models = {
        "Binomial (public figures)": BinomialModel.from_public(public, private),  # reads no 2001 label
        "Global (fitted on 2001)": GlobalModel.fit(private),
    }
    freq = np.asarray(public.labels.sum(axis=0)).ravel()
    vocabulary = [public.vocabulary[i] for i in np.argsort(-freq, kind="stable")][:2000]
    truth = np.asarray(label_counts(private, None, vocabulary))
    print(f"\nC. Pufferfish: 2001 subject-word counts over the 2000 snapshot's 2,000 most frequent words, "
          f"(ε, δ) = ({EPSILON:g}, {DELTA:g}); largest true count {truth.max()}")
    for name, model in models.items():
        if not model.covers(private):
            print(f"   {name}: does not cover the 2001 structure")
            continue
        space = dpg.graph_domain(labeled=True), dpg.pufferfish_distance(model)
        w_delta = dpg.pufferfish_distance(model, delta=DELTA).descriptor.W
        print(f"   {name}: W∞ = {model.W}, W_δ = {w_delta}")
        for k in (1, 4, 16):
            choice = dpg.choose_noise(*space, dpg.make_label_counts, 1, vocabulary, privacy_loss=dp.loss_of(epsilon=EPSILON, delta=DELTA), releases=k)
            cells = []
            for option in choice.options:
                if option.refused is not None:
                    cells.append(f"{option.route} n/a")
                    continue
                release = option.measurement
                errs = []
                for _ in range(max(1, runs // (3 * k))):
                    out = release(private)
                    first = np.asarray(out[0] if k > 1 else out)
                    errs.append(float(np.median(np.abs(first - truth))))
                cells.append(f"{option.route} ±{option.half_width:g} (median |error| {np.median(errs):.0f})")
            print(f"     {k} release{'s' if k > 1 else ''}: " + "; ".join(cells) + f" → best {choice.best.route}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--data", default=None, help="the enron-perry-wolfe folder (default: resolved)")
    args = parser.parse_args(argv)
    dp, dpg, graphs = _setup(args.data)
    start = time.perf_counter()
    part_a(dp, dpg, graphs[1], args.runs)
    for c in (C, 8):
        part_b(dp, dpg, graphs, args.runs, c)
    part_c(dp, dpg, args.runs, args.data)
    print(f"\n({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
