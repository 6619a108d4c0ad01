"""Topics of the Enron subjects released under DP (issue 31's measure for topics).

Usage (from the repository root)::

    .venv/bin/python -m benchmarks.topics [--runs 10] [--topics 10] [--words 300]

The same time cut as :mod:`benchmarks.language_model`: a public snapshot (before 2001-01-01),
the private period, the held-out rest, each cut at a public date. The vocabulary is public: the snapshot's ``--words``
most frequent words, scikit-learn's English stop words removed. Word pairs co-occurring in a
subject, per pair of people (:func:`opendp_graph.text.pair_cooccurrence_graph`), are counted over
the private period and released with OpenDP's Laplace (pure ε) under Pufferfish (the public
Binomial model; the Global and Conditional models fitted on the private graph, data-dependent: each
row is Pufferfish for that fitted model's attackers only), edge level (``c`` word pairs per pair of
people), group privacy (paper 001's Markov-quilt group) and person level (per message, at most
``D`` messages per person and 10 word pairs per message:
:func:`opendp_graph.text.make_person_ngram_counts`; ``D`` read off the private period, so the row
is person level's best case). Topics are scikit-learn's NMF
of the released matrix plus the snapshot's (:func:`opendp_graph.text.topics_from_cooccurrence`).

With ``--synthetic``, the log is :func:`opendp_graph.datasets.synthetic_topic_log` (8 planted
topics; public snapshot before 2020-07-01), and each model is also scored against the planted
topics.

Printed: the non-private topics (the same per-pair counts, exact, plus the snapshot's), how many
of them each DP model recovers (matched one to one, top-10 overlap ≥ 5), the snapshot alone's
recovery, and the NPMI coherence of each model's topics on the held-out subjects.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np

EPSILONS = (1.0, 4.0, 10.0, 100.0)


def main(argv=None) -> None:
    import opendp.prelude as dp

    import opendp_graph as dpg
    from benchmarks.language_model import person_bound, split_log
    from opendp_graph import text as T
    from opendp_graph.pufferfish import BinomialModel, ConditionalModel, GlobalModel
    from opendp_graph.transformations.labels import label_counts

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--topics", type=int, default=10)
    parser.add_argument("--words", type=int, default=300)
    parser.add_argument("--c", type=int, default=64)
    parser.add_argument("--data", default=None)
    parser.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
    parser.add_argument("--synthetic", action="store_true",
                        help="the synthetic log with planted topics (dpg.datasets.synthetic_topic_log) instead of Enron")
    args = parser.parse_args(argv)
    dp.enable_features("contrib", "honest-but-curious")
    start = time.perf_counter()

    analyze = T.tokenizer(stop_words="english")
    log = split_log(args.data, synthetic=args.synthetic, analyzer=analyze)
    employees, planted, rows = log["employees"], log["planted"], log["rows"]
    public_m, private_m, held_m = log["public"], log["private"], log["held"]
    if planted is not None:
        name = "synthetic log (20,000 messages, 400 people, 8 planted topics)"
        args.topics = len(planted)
    else:
        name = "Enron subjects"
    seen = Counter(w for tokens in public_m["tokens"].to_list() for w in tokens)
    vocabulary = [w for w, _ in seen.most_common(args.words)]
    graphs = {name: T.pair_cooccurrence_graph(rows[name], employees, vocabulary, analyzer=analyze)[0] for name in rows}
    keys = [T.cooccurrence_key(a, b) for i, a in enumerate(sorted(vocabulary)) for b in sorted(vocabulary)[i + 1:]]
    public_counts = dict(zip(keys, (float(c) for c in label_counts(graphs["public"], None, keys))))
    private_counts = dict(zip(keys, (float(c) for c in label_counts(graphs["private"], None, keys))))
    held = held_m["tokens"].to_list()

    def topics(counts, **kw):
        return T.topics_from_cooccurrence(counts, vocabulary, args.topics, public_counts=public_counts, **kw)

    truth = topics(private_counts)
    snapshot = T.topics_from_cooccurrence(public_counts, vocabulary, args.topics)
    print(f"{name}, {len(vocabulary)} public words, {len(keys):,} word pairs as keys, {args.topics} topics; "
          f"private period {private_m.height:,} messages on {graphs['private'].num_edges:,} pairs of people")
    print("non-private topics (private period's exact per-pair counts + the snapshot's):")
    for t in truth.top(10):
        print("   " + " ".join(t))
    npmi = T.npmi_coherence(truth.top(10), held)
    recovered = sum(o >= 5 for o in snapshot.matched_overlaps(truth))
    print(f"  NPMI on held-out {npmi:.3f}; the snapshot alone recovers {recovered} of {args.topics} "
          f"(NPMI {T.npmi_coherence(snapshot.top(10), held):.3f})")
    if planted is not None:
        known = T.Topics(tuple(vocabulary), np.array([[1.0 if w in set(t) else 0.0 for w in vocabulary] for t in planted]))

        def planted_found(model):
            return sum(o >= 5 for o in model.matched_overlaps(known))

        print(f"  planted topics found (top-10 overlap ≥ 5 with a planted topic's words): non-private "
              f"{planted_found(truth)} of {len(planted)}, the snapshot alone {planted_found(snapshot)}")

    binomial = BinomialModel.from_public(graphs["public"], graphs["private"])
    global_model = GlobalModel.fit(graphs["private"], source="private")
    conditional = ConditionalModel.fit(graphs["private"], source="private")
    fitted = set(conditional.vocabulary)
    quilt = 2 * int(graphs["private"].max_degree) - 1  # paper 001's Markov-quilt group
    space = dpg.graph_domain(labeled=True)
    notions = {
        f"Pufferfish, public Binomial (W∞ = {binomial.W:g})": (space, dpg.pufferfish_distance(binomial), 1, keys),
        f"Pufferfish, Global, fitted on the private graph (W∞ = {global_model.W:g})": (
            space, dpg.pufferfish_distance(global_model), 1, keys),
        f"Pufferfish, Conditional, fitted on the private graph (W∞ = {conditional.W:g}; {len(fitted & set(keys)):,} of the keys)": (
            space, dpg.pufferfish_distance(conditional), 1, [k for k in keys if k in fitted]),
        f"edge level, c = {args.c}": (space, dpg.edge_distance(), args.c, keys),
        f"group privacy (k = 2·D_max − 1 = {quilt} edges), c = {args.c}": (space, dpg.group_distance(quilt), args.c, keys),
    }
    # person level, per message: D messages per person (the busiest person's count rounded up to a
    # power of two, read off the private period: person level's best case), L word pairs per message
    people = T.person_cooccurrence_table(rows["private"], vocabulary, analyzer=analyze)
    busiest, bound = person_bound(people)
    print(f"person level: D = {bound:,} (the busiest person owns {busiest:,}: read off the private period, person level's "
          "best case, not a bound a real release may use)")
    per_message = 10
    person_counts = T.make_person_ngram_counts(T.person_text_domain(bound), dpg.polars.person_log_distance(), keys, per_message)
    print(f"\nDP topics, {args.runs} releases per cell: topics recovered (top-10 overlap ≥ 5, median, min–max) and NPMI")
    inputs = {}
    for name, (domain, metric, cap, these) in notions.items():
        notions[name] = (domain, metric) >> dpg.then_label_counts(cap, these), these
        inputs[name] = graphs["private"]
    name = f"person level, per message (D = {bound:,} messages, L = {per_message} word pairs per message)"
    notions[name], inputs[name] = (person_counts, keys), people
    for name, (counts, these) in notions.items():
        cells = []
        for eps in args.epsilons:
            scale = dp.binary_search_param(lambda s, c=counts: c >> dp.m.then_laplace(scale=s), d_in=1, d_out=eps)
            release = counts >> dp.m.then_laplace(scale=scale)
            found, coherence, hits = [], [], []
            for _ in range(args.runs):
                noisy = dict(zip(these, (float(v) for v in release(inputs[name]))))
                model = topics(noisy, noise_scale=scale)
                found.append(sum(o >= 5 for o in model.matched_overlaps(truth)))
                coherence.append(T.npmi_coherence(model.top(10), held))
                if planted is not None:
                    hits.append(planted_found(model))
            extra = f", planted {np.median(hits):.0f}" if hits else ""
            cells.append(f"ε = {eps:g} (scale {scale:.3g}): {np.median(found):.0f} ({min(found)}–{max(found)}), "
                         f"NPMI {np.median(coherence):.3f}{extra}")
        print(f"  {name}: " + "; ".join(cells))
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
