"""Topics beyond the snapshot: :func:`opendp_graph.text.make_private_topics` (``keys="snapshot"``:
Gaussian counts of every word pair of the snapshot's vocabulary, each pair of people clipped to ℓ2
norm ``C``; ``keys="open"``: a DP set union of the private period's co-occurring word pairs per
pair of people, open vocabulary) against the public snapshot alone, on the synthetic chat text (three topics emerge after the snapshot) and on the
Enron subjects (skipped with the reason when the data cannot be found).

Usage (from the repository root)::

    .venv/bin/python -m benchmarks.private_topics [--runs 3] [--epsilons 1 10] [--data ../shared/data]

Both logs are cut at public dates (:mod:`benchmarks.chat_text_lm`'s for the chat text,
:mod:`benchmarks.language_model`'s for Enron). The snapshot's topics are scikit-learn's NMF of its
own per-pair co-occurrence counts over its ``--words`` most frequent words. The **reference** (it
reads the private period: for evaluation only) is the same NMF of the private period's exact
per-pair counts plus the snapshot's, over the most frequent words of both periods. Printed: how
many reference topics each model recovers (matched one to one, top-10 overlap ≥ 5), medians over
``--runs`` releases, and for the chat text how many of the generator's topics each finds (≥ 5 of a
topic's top 10 words from one generated topic).
"""

from __future__ import annotations

import argparse
from collections import Counter

import numpy as np

DELTA = 1e-6


def compare(name, public_rows, private_rows, text, analyze, num_topics, args, generated=None):
    import polars as pl

    import opendp_graph as dpg
    from opendp_graph import text as T
    from opendp_graph.transformations.labels import label_count_map

    def messages(rows):
        return [analyze(t) for t in rows.unique("message_id", keep="first", maintain_order=True)[text].to_list()]

    def graph(rows):
        people = pl.concat([rows["sender"], rows["recipient"]]).unique().sort().to_list()
        return T.pair_cooccurrence_graph(rows, people, None, text=text, analyzer=analyze)[0]

    seen = Counter(w for m in messages(public_rows) for w in m)
    vocabulary = [w for w, _ in seen.most_common(args.words)]
    snapshot_counts = {k: float(v) for k, v in label_count_map(graph(public_rows), None).items()}
    private_graph = graph(private_rows)
    both = seen + Counter(w for m in messages(private_rows) for w in m)
    reference_words = [w for w, _ in both.most_common(args.words)]
    exact = {k: float(v) for k, v in label_count_map(private_graph, None).items()}
    reference = T.topics_from_cooccurrence(exact, reference_words, num_topics, public_counts=snapshot_counts)
    alone = T.topics_from_cooccurrence(snapshot_counts, vocabulary, num_topics)

    def recovered(model):
        return sum(o >= 5 for o in model.matched_overlaps(reference))

    def found(model):
        if generated is None:
            return None
        return sum(any(sum(w.startswith(f"t{t}w") for w in top) >= 5 for top in model.top(10)) for t in range(generated))

    line = f"{name}: {num_topics} topics; the snapshot alone recovers {recovered(alone)} of the reference's"
    if generated is not None:
        line += f"; generated topics found: reference {found(reference)}, snapshot {found(alone)} of {generated}"
    print(line)
    space = dpg.graph_domain(labeled=True), dpg.edge_distance()
    # the message unit: the graph of messages (one edge per message), the same release at one edge
    by_message = T.message_edge_frame(private_rows, text=text)
    message_graph = T.pair_cooccurrence_graph(by_message, pl.concat([by_message["sender"], by_message["recipient"]]).unique().sort().to_list(),
                                              None, text="text", analyzer=analyze)[0]
    for unit, released_from in (("edge (one pair)", private_graph), ("message (one message: the weakest unit)", message_graph)):
        print(f"  {unit}:")
        release_topics(released_from, space, snapshot_counts, vocabulary, num_topics, args, recovered, found, generated)


def release_topics(private_graph, space, snapshot_counts, vocabulary, num_topics, args, recovered, found, generated):
    import opendp.prelude as dp

    from opendp_graph import text as T

    for keys, epsilon in [(k, e) for k in ("snapshot", "open") for e in args.epsilons]:
        meas = T.make_private_topics(*space, dp.loss_of(epsilon=epsilon, delta=DELTA), num_topics=num_topics, snapshot_counts=snapshot_counts,
                                     vocabulary=vocabulary, keys=keys, norm_bound=args.norm_bound, max_pairs_per_edge=args.c)
        outs = [meas(private_graph) for _ in range(args.runs)]
        cells = [f"recovers {np.median([recovered(o.topics) for o in outs]):.0f} "
                 f"({min(recovered(o.topics) for o in outs)}–{max(recovered(o.topics) for o in outs)})"]
        if generated is not None:
            cells.append(f"generated found {np.median([found(o.topics) for o in outs]):.0f}")
        eps, delta = meas.map(1)
        print(f"    keys={keys!r}, ε = {epsilon:g} (spent ({eps:.3g}, {delta:.0e}); σ = {outs[0].scale:.1f}, threshold {outs[0].threshold}; "
              f"word pairs released {int(np.median([len(o.released) for o in outs])):,}, new words used "
              f"{int(np.median([len(o.new_words) for o in outs]))}): " + ", ".join(cells))


def main(argv=None) -> None:
    import opendp.prelude as dp

    import opendp_graph as dpg
    from benchmarks import chat_text_lm as CT

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=60_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[1.0, 10.0])
    parser.add_argument("--words", type=int, default=300)
    parser.add_argument("--c", type=int, default=16, help="keys='open': word pairs per pair of people")
    parser.add_argument("--norm-bound", type=float, default=4.0, help="keys='snapshot': the ℓ2 bound C per pair of people")
    parser.add_argument("--data", default=None, help="the folder holding enron-perry-wolfe (default: the package's resolver)")
    args = parser.parse_args(argv)
    dp.enable_features("contrib", "honest-but-curious")

    log = dpg.datasets.synthetic_chat_text(args.messages)
    snapshot, private, _ = CT.split(log)
    from opendp_graph.datasets.chat_text import _FUNCTION_WORDS

    function_words = set(_FUNCTION_WORDS)  # the generator's, public

    def chat_words(value):
        return [w for w in (value or "").split(" ") if w and w not in function_words]

    compare(f"synthetic chat text, {args.messages:,} messages", snapshot, private, "text", chat_words, 12, args, generated=12)

    from benchmarks import language_model as lm

    try:
        split = lm.split_log(None if args.data is None else f"{args.data}/enron-perry-wolfe",
                             analyzer=dpg.text.tokenizer(stop_words="english"))
    except (FileNotFoundError, dpg.datasets.DataUnavailableError) as reason:
        print(f"\nEnron skipped: {reason}")
        return
    print()
    compare("Enron subjects", split["rows"]["public"], split["rows"]["private"], "subject",
            dpg.text.tokenizer(stop_words="english"), 10, args)


if __name__ == "__main__":
    main()
