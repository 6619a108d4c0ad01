"""A bigram language model learned from a chat log's private period by a DP set union: the first
measurement of issue 41's route on :func:`opendp_graph.datasets.synthetic_chat_text`.

Usage (from the repository root)::

    .venv/bin/python -m benchmarks.chat_text_lm [--messages 60000] [--runs 3] [--epsilons 1 10]

The log is cut at dates fixed in advance (never quantiles of the private times): a **public
snapshot** before 2020-03-15 (about the first 10 % of messages), the **private period** until
2021-07-28 (about 70 %), **held out** after. One vocabulary for every model: the snapshot's words
seen at least twice, plus ``</s>`` and ``<unk>``; every other word is ``<unk>``. Models are
:class:`opendp_graph.text.NGramModel` (interpolated Kneser–Ney, bigram).

The DP route (edge level, one pair's messages): the graph of who wrote to whom with, on each
edge, the set of the pair's unigrams and bigrams (:func:`opendp_graph.text.pair_ngram_graph`;
messages to oneself have no pair and are left out), at most ``c`` of them per pair
(:func:`opendp_graph.then_label_count_map` in ℓ2), released by the package's thresholded Gaussian
(OpenDP's, δ corrected: :func:`opendp_graph.then_gaussian_threshold`) at ``(ε, 10⁻⁶)``: ρ from
:func:`opendp_graph.zcdp_budget` at half the δ, the threshold's δ the other half, the whole checked
by OpenDP's own conversion (``make_zCDP_to_approxDP``, ``make_fix_delta``). The private period's
own n-grams are released, not the snapshot's keys: the model is Kneser–Ney on the released counts,
mixed with the snapshot's model, the weight chosen on public data only (the snapshot's last two
weeks, held out of the snapshot model that picks it).
"""

from __future__ import annotations

import argparse
import collections
import math

import numpy as np

SNAPSHOT_END = "2020-03-15"
PRIVATE_END = "2021-07-28"
VALIDATION_START = "2020-03-01"  # the snapshot's last two weeks pick the mixture weight
DELTA = 1e-6
WEIGHTS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def split(log):
    """Snapshot, private period and held-out rest of ``log`` (Polars), cut at the public dates."""
    import polars as pl

    def before(day):
        return pl.col("time") < pl.lit(day).str.to_datetime("%Y-%m-%d")

    snapshot = log.filter(before(SNAPSHOT_END))
    private = log.filter(~before(SNAPSHOT_END) & before(PRIVATE_END))
    held = log.filter(~before(PRIVATE_END))
    return snapshot, private, held


def tokens(frame, known=None):
    """One sentence per message: its words, those outside ``known`` as ``<unk>``."""
    out = [text.split(" ") for text in frame.unique("message_id", keep="first", maintain_order=True)["text"].to_list()]
    return out if known is None else [[w if w in known else "<unk>" for w in s] for s in out]


def union_release(graph, c, epsilon):
    """The DP set union of the pairs' n-grams at ``(ε, DELTA)``: the measurement and its (ε, δ)."""
    import opendp.prelude as dp

    import opendp_graph as dpg

    l2 = dp.l02inf_distance(dp.absolute_distance(T=dp.f64))
    count_map = (dpg.graph_domain(labeled=True), dpg.edge_distance()) >> dpg.then_label_count_map(c, output_metric=l2)
    rho = dpg.zcdp_budget(epsilon, DELTA / 2)
    scale, threshold = dpg.calibrate_gaussian_threshold(count_map, 1, rho, DELTA / 2)
    release = count_map >> dpg.then_gaussian_threshold(scale, threshold)
    spent = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(release), DELTA).map(1)
    assert spent[0] <= epsilon * (1 + 1e-9) and spent[1] <= DELTA, spent
    return release, scale, threshold, spent


def main(argv=None) -> None:
    import opendp.prelude as dp

    import opendp_graph as dpg
    from opendp_graph.text import NGramModel, mixture, ngram_counts, pair_ngram_graph
    from opendp_graph.transformations.labels import label_count_map

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=60_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[1.0, 10.0])
    parser.add_argument("--caps", type=int, nargs="+", default=[16, 64])
    args = parser.parse_args(argv)
    dp.enable_features("contrib", "honest-but-curious")

    log = dpg.datasets.synthetic_chat_text(args.messages)
    snapshot, private, held = split(log)
    vocabulary = [w for w, c in collections.Counter(w for s in tokens(snapshot) for w in s).items() if c >= 2]
    known = set(vocabulary)
    snap, priv, test = tokens(snapshot, known), tokens(private, known), tokens(held, known)
    import polars as pl

    cut = pl.col("time") < pl.lit(VALIDATION_START).str.to_datetime("%Y-%m-%d")
    early, validation = tokens(snapshot.filter(cut), known), tokens(snapshot.filter(~cut), known)

    def model(counts, order=2):
        return NGramModel.from_counts(counts, order=order, vocabulary=vocabulary)

    snapshot_counts = ngram_counts(snap, (1, 2))
    snapshot_model = model(snapshot_counts)
    early_model = model(ngram_counts(early, (1, 2)))
    everything = collections.Counter(snapshot_counts)
    everything.update(ngram_counts(priv, (1, 2)))
    reference, floor, alone = model(everything).perplexity(test), model(everything, 1).perplexity(test), snapshot_model.perplexity(test)

    def closed(value):
        return (alone - value) / (alone - reference)

    print(f"synthetic chat text, {args.messages:,} messages: snapshot {len(snap):,} (before {SNAPSHOT_END}), private "
          f"{len(priv):,}, held out {len(test):,} (from {PRIVATE_END}); vocabulary {len(vocabulary):,} snapshot words seen twice")
    print(f"  non-private bigram, snapshot + private (the reference): {reference:.1f}")
    print(f"  non-private unigram, snapshot + private (the floor): {floor:.1f}")
    print(f"  public snapshot alone, bigram: {alone:.1f}")

    people = sorted(set(log["sender"].to_list()) | set(log["recipient"].to_list()))  # the generator's population: public
    graph, _ = pair_ngram_graph(private, people, text="text", analyzer=lambda s: s.split(" "), vocabulary=vocabulary)

    snapshot_mass = sum(v for g, v in snapshot_counts.items() if " " not in g)

    def mixed(private_model, counts):
        """Two public rules for the weight: (a) the one that scores best on the snapshot's last two
        weeks, with the snapshot model of the weeks before; (b) the released unigram mass's share
        beside the snapshot's (each model weighted by how much text it saw). Returns each rule's
        weight and held-out perplexity."""
        validated = min(WEIGHTS, key=lambda w: mixture([private_model, early_model], [w, 1 - w]).perplexity(validation))
        released_mass = sum(v for g, v in counts.items() if " " not in g and v > 0)
        by_size = min(max(released_mass / (released_mass + snapshot_mass), 0.05), 0.95)
        return [(mu, mixture([private_model, snapshot_model], [mu, 1 - mu]).perplexity(test)) for mu in (validated, by_size)]

    for c in args.caps:
        exact = {g: float(v) for g, v in label_count_map(graph, c).items()}
        (mu_a, a), (mu_b, b) = mixed(model(exact), exact)
        print(f"  per pair, c = {c}, exact counts (no noise; this route's ceiling), mixed with the snapshot: weight validated on "
              f"the snapshot μ = {mu_a:g}: {a:.1f} ({closed(a):.0%} of the gap); weight by size μ = {mu_b:.2f}: {b:.1f} ({closed(b):.0%})")
        for epsilon in args.epsilons:
            release, scale, threshold, spent = union_release(graph, c, epsilon)
            validated, by_size, keys = [], [], []
            for _ in range(args.runs):
                out = {g: float(v) for g, v in release(graph).items()}
                (mu_a, a), (mu_b, b) = mixed(model(out), out)
                validated.append((a, mu_a))
                by_size.append((b, mu_b))
                keys.append(len(out))
            a, b = (float(np.median([v for v, _ in rows])) for rows in (validated, by_size))
            print(f"    ε = {epsilon:g} (δ = {spent[1]:.1g}): σ = {scale:.1f}, threshold {threshold}; keys released "
                  f"{int(np.median(keys)):,}; weight validated on the snapshot (μ {sorted(m for _, m in validated)}): {a:.1f} "
                  f"({closed(a):.0%} of the gap); weight by size (μ ≈ {np.median([m for _, m in by_size]):.2f}): {b:.1f} "
                  f"({closed(b):.0%})")
    if not math.isfinite(reference):
        raise SystemExit("the reference model did not score the held-out text")


if __name__ == "__main__":
    main()
