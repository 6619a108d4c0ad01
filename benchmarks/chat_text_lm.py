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
(OpenDP's, δ corrected: :func:`opendp_graph.then_corrected_gaussian_threshold`) at ``(ε, 10⁻⁶)``: ρ from
:func:`opendp_graph.zcdp_budget` at half the δ, the threshold's δ the other half, the whole checked
by OpenDP's own conversion (``make_zCDP_to_approxDP``, ``make_fix_delta``). The private period's
own n-grams are released, not the snapshot's keys: the model is Kneser–Ney on the released counts,
mixed with the snapshot's model with the constructor's public weight
(:func:`opendp_graph.text.make_private_language_model`; the snapshot's keys released without the
threshold, beside the threshold alone), and what a weight by the released text's size would give. Then the same on the Enron subjects (skipped with the reason when the
data cannot be found).

Then, per log, **the one-call route for every unit it serves**
(:func:`opendp_graph.text.private_language_model` on the private period's rows and the snapshot's):
one message (``message_unit``, at ``L = 16``: the weakest unit), one pair (``edge_unit``), what one pair wrote with the structure public (``edge_content_unit``),
any two pairs (``edge_group_unit(2)``), at ``c = 16``, and one person with everything they sent or
received (``person_unit``, add/remove, ``D`` read off the private period: its best case, said in
the output), with the unigram floor and the snapshot beside; and Pufferfish under the public
Binomial model and the Global and Conditional models fitted on the private graph, by
:mod:`benchmarks.language_model`'s route (not a one-call unit).
"""

from __future__ import annotations

import argparse
import collections

import numpy as np
import opendp.prelude as dp

SNAPSHOT_END = "2020-03-15"
PRIVATE_END = "2021-07-28"
DELTA = 1e-6


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


def report(name, graph, snapshot_counts, vocabulary, held, args, *, reference_counts, caps):
    """The reference, the floor and the snapshot on ``held``, then per cap ``c``: the exact per-pair
    counts mixed with the snapshot (this route's ceiling) and
    :func:`opendp_graph.text.make_private_language_model` at each ε (``args.runs`` releases)."""
    import opendp_graph as dpg
    from opendp_graph.text import NGramModel, mixture
    from opendp_graph.transformations.labels import label_count_map

    def model(counts, order=2):
        return NGramModel.from_counts(counts, order=order, vocabulary=vocabulary)

    snapshot_model = model(snapshot_counts)
    reference, floor, alone = model(reference_counts).perplexity(held), model(reference_counts, 1).perplexity(held), snapshot_model.perplexity(held)

    def closed(value):
        return (alone - value) / (alone - reference)

    print(f"  non-private bigram, snapshot + private (the reference): {reference:.1f}")
    print(f"  non-private unigram, snapshot + private (the floor): {floor:.1f}")
    print(f"  public snapshot alone, bigram: {alone:.1f}")
    space = dpg.graph_domain(labeled=True), dpg.edge_distance()
    for c in caps:
        exact = model({g: float(v) for g, v in label_count_map(graph, c).items()})
        ceiling = {w: mixture([exact, snapshot_model], [w, 1 - w]).perplexity(held) for w in (0.3, 0.5, 0.7)}
        print(f"  per pair, c = {c}, exact counts (no noise; this route's ceiling) mixed with the snapshot: "
              + ", ".join(f"μ = {w:g}: {v:.1f} ({closed(v):.0%})" for w, v in ceiling.items()))
        # what any release that cleans small counts can see: the exact counts of the n-grams at
        # least k pairs used (the union's cleaning level is about 10 at ε = 10 and 50 at ε = 1, c = 16)
        exact_counts = {g: float(v) for g, v in label_count_map(graph, c).items()}
        visible = {
            k: mixture([model({g: v for g, v in exact_counts.items() if v >= k}), snapshot_model], [0.3, 0.7]).perplexity(held)
            for k in (3, 5, 10)
        }
        print("    the same, only the n-grams at least k pairs used (what a release that cleans below k can see), μ = 0.3: "
              + ", ".join(f"k = {k}: {v:.1f} ({closed(v):.0%})" for k, v in visible.items()))
        for epsilon in args.epsilons:
            meas = dpg.text.make_private_language_model(
                *space, dp.loss_of(epsilon=epsilon, delta=DELTA), snapshot_counts=snapshot_counts, vocabulary=vocabulary, max_ngrams_per_pair=c
            )
            outs = [meas(graph) for _ in range(args.runs)]
            values = [o.model.perplexity(held) for o in outs]
            union_only = dpg.text.make_private_language_model(
                *space, dp.loss_of(epsilon=epsilon, delta=DELTA), snapshot_counts=snapshot_counts, vocabulary=vocabulary, max_ngrams_per_pair=c,
                release_snapshot_keys=False,
            )
            only = float(np.median([union_only(graph).model.perplexity(held) for _ in range(args.runs)]))
            by_size = []
            s_mass = sum(v for g, v in snapshot_counts.items() if " " not in g)
            for o in outs:  # the weight a size rule would give (for comparison; the constructor's is fixed)
                if o.private_model is not None:
                    r_mass = sum(v for g, v in o.released.items() if " " not in g)
                    w = r_mass / (r_mass + s_mass)
                    by_size.append(mixture([o.private_model, snapshot_model], [w, 1 - w]).perplexity(held))
            value = float(np.median(values))
            eps, delta = meas.map(1)
            print(f"    ε = {epsilon:g} (spent ({eps:.3g}, {delta:.1g})): σ = {outs[0].scale:.1f}, threshold {outs[0].threshold}; "
                  f"keys released {int(np.median([len(o.released) for o in outs])):,} ({outs[0].snapshot_keys:,} of them the snapshot's, "
                  f"without the threshold); make_private_language_model (μ = {outs[0].weight:g}): {value:.1f} "
                  f"({min(values):.1f}–{max(values):.1f}), {closed(value):.0%} of the gap; the threshold alone "
                  f"(release_snapshot_keys=False): {only:.1f} ({closed(only):.0%})"
                  + (f"; a weight by released size instead: {np.median(by_size):.1f} ({closed(float(np.median(by_size))):.0%})" if by_size else ""))


def units_table(private_rows, snapshot_rows, held, args, *, text, analyzer, alone, reference, floor):
    """Every unit of the one-call route at each ε (``args.runs`` releases, the median): perplexity
    and the share of the snapshot-to-reference gap it closes, and whether more ε did worse."""
    import opendp_graph as dpg

    def closed(value):
        return (alone - value) / (alone - reference)

    print(f"  one call, dpg.text.private_language_model (c = 16, μ = 0.3), per unit; unigram floor {floor:.1f}, snapshot {alone:.1f}, "
          f"reference {reference:.1f}:")
    # person level needs a public bound D on the rows a person is in: here the private period's
    # busiest person rounded up to a power of two, READ OFF THE PRIVATE PERIOD (person level's best
    # case; a real release takes D from a policy or an earlier period and is refused if anyone has more)
    busiest = int(dpg.polars.rows_per_person(private_rows, "sender", "recipient")["rows"].max())
    bound = 1 << (busiest - 1).bit_length()
    for unit in (dpg.polars.message_unit("sender", "recipient"),
                 dpg.polars.edge_unit("sender", "recipient"), dpg.polars.edge_content_unit("sender", "recipient"),
                 dpg.polars.edge_group_unit(2, "sender", "recipient"),
                 dpg.polars.person_unit("sender", "recipient", max_messages=bound, neighbouring="add_remove")):
        cells, medians = [], []
        for epsilon in args.epsilons:
            outs = [dpg.text.private_language_model(private_rows, unit=unit, privacy_loss=dp.loss_of(epsilon=epsilon, delta=DELTA), snapshot=snapshot_rows, text=text,
                                                    analyzer=analyzer) for _ in range(args.runs)]
            value = float(np.median([o.model.perplexity(held) for o in outs]))
            medians.append(value)
            cells.append(f"ε = {epsilon:g}: {value:.1f} ({closed(value):.0%})")
        worse = any(b > a + 0.5 for a, b in zip(medians, medians[1:]))
        name = unit.unit
        if isinstance(unit, dpg.polars.PersonUnit):
            name = f"person, D = {bound:,} rows (the busiest person is in {busiest:,}: read off the private period, best case)"
        elif isinstance(unit, dpg.polars.MessageUnit):
            name = "message (L = 16 n-grams per message; protects one message, not a pair: the weakest unit)"
        elif unit.unit == "edge":
            name = "edge (one pair and all its messages)"
        elif unit.unit == "group of 2 edges":
            name = "group of 2 edges (any two pairs; the budget is per group)"
        elif unit.unit == "edge content":
            name = "edge content (what one pair wrote, who writes to whom public)"
        print(f"    {name}: " + "; ".join(cells) + ("; WORSE with more ε" if worse else "; more ε never worse"))


def pufferfish_rows(public_graph, private_graph, snapshot_counts, vocabulary, held, args, *, alone, reference):
    """The three correlation models of the Pufferfish notion: the public Binomial, and the Global and
    Conditional models fitted on the private graph (their rows protect against that fitted model's
    attackers only, and disclose W: said in the output)."""
    from opendp_graph.pufferfish import BinomialModel, ConditionalModel, GlobalModel

    models = {
        "public Binomial": BinomialModel.from_public(public_graph, private_graph),
        "Global, fitted on the private graph (its attackers only; W disclosed)": GlobalModel.fit(private_graph, source="private"),
        "Conditional, fitted on the private graph (its attackers only; W disclosed)": ConditionalModel.fit(private_graph, source="private"),
    }
    for name, model in models.items():
        pufferfish_row(model, name, private_graph, snapshot_counts, vocabulary, held, args, alone=alone, reference=reference)


def pufferfish_row(model, name, private_graph, snapshot_counts, vocabulary, held, args, *, alone, reference):
    """The Pufferfish notion beside the units (not a one-call unit: it protects one secret "pair
    ``i`` used n-gram ``a``" under a correlation model, not a pair or a person): under ``model`` (e.g.
    :meth:`BinomialModel.from_public`: the snapshot's p0, p1 and the private structure), the
    snapshot's keys as one vector (:func:`opendp_graph.text.make_ngram_count_release`, ``joint=True``,
    OpenDP's Gaussian at ``ρ = zcdp_budget(ε, 10⁻⁶)``: Rényi Pufferfish, ``(ε, 10⁻⁶)`` for that
    model's attackers), mixed with the snapshot's model at the released share."""
    import opendp_graph as dpg
    from opendp_graph import text as T
    from opendp_graph.text._private_lm import _snapshot_keys

    keys = sorted(_snapshot_keys(snapshot_counts, list(vocabulary), 2))
    described = getattr(model, "vocabulary", None)  # a Conditional model describes only the properties it was fitted on
    if described is not None:
        keys = [k for k in keys if k in set(described)]
    by_order = {1: [k for k in keys if " " not in k], 2: [k for k in keys if " " in k]}
    snapshot_model = T.NGramModel.from_counts(snapshot_counts, order=2, vocabulary=vocabulary)
    cells, medians = [], []
    for epsilon in args.epsilons:
        release = T.make_ngram_count_release(dpg.graph_domain(labeled=True), dpg.pufferfish_distance(model), dp.loss_of(rho=dpg.zcdp_budget(epsilon, DELTA)), by_order, max_ngrams_per_edge=1, joint=True)
        values = []
        for _ in range(args.runs):
            out = release(private_graph)
            share = T.released_share(out, snapshot_counts)
            values.append(T.mixture([snapshot_model, T.NGramModel.from_release(out, vocabulary=vocabulary)], [1 - share, share]).perplexity(held))
        value = float(np.median(values))
        medians.append(value)
        cells.append(f"ε = {epsilon:g}: {value:.1f} ({(alone - value) / (alone - reference):.0%})")
    worse = any(b > a + 0.5 for a, b in zip(medians, medians[1:]))
    print(f"    Pufferfish, {name} (W∞ = {model.W:g}; the route of benchmarks.language_model): " + "; ".join(cells)
          + ("; WORSE with more ε" if worse else "; more ε never worse"))


def main(argv=None) -> None:
    import opendp.prelude as dp

    import opendp_graph as dpg
    from opendp_graph.text import ngram_counts, pair_ngram_graph

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=60_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[1.0, 10.0])
    parser.add_argument("--caps", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--data", default=None, help="the folder holding enron-perry-wolfe (default: the package's resolver)")
    args = parser.parse_args(argv)
    dp.enable_features("contrib", "honest-but-curious")

    log = dpg.datasets.synthetic_chat_text(args.messages)
    snapshot, private, held = split(log)
    vocabulary = [w for w, c in collections.Counter(w for s in tokens(snapshot) for w in s).items() if c >= 2]
    known = set(vocabulary)
    snap, priv, test = tokens(snapshot, known), tokens(private, known), tokens(held, known)
    print(f"synthetic chat text, {args.messages:,} messages: snapshot {len(snap):,} (before {SNAPSHOT_END}), private "
          f"{len(priv):,}, held out {len(test):,} (from {PRIVATE_END}); vocabulary {len(vocabulary):,} snapshot words seen twice")
    people = sorted(set(log["sender"].to_list()) | set(log["recipient"].to_list()))  # the generator's population: public
    graph, _ = pair_ngram_graph(private, people, text="text", analyzer=lambda s: s.split(" "), vocabulary=vocabulary)
    snapshot_counts = ngram_counts(snap, (1, 2))
    everything = collections.Counter(snapshot_counts)
    everything.update(ngram_counts(priv, (1, 2)))
    report("chat", graph, snapshot_counts, vocabulary, test, args, reference_counts=everything, caps=args.caps)
    chat_model = {g: float(v) for g, v in everything.items()}
    reference = dpg.text.NGramModel.from_counts(chat_model, order=2, vocabulary=vocabulary)
    units_table(private, snapshot, test, args, text="text", analyzer=lambda s: s.split(" "),
                alone=dpg.text.NGramModel.from_counts(snapshot_counts, order=2, vocabulary=vocabulary).perplexity(test),
                reference=reference.perplexity(test),
                floor=dpg.text.NGramModel.from_counts(chat_model, order=1, vocabulary=vocabulary).perplexity(test))
    public_graph, _ = pair_ngram_graph(snapshot, people, text="text", analyzer=lambda s: s.split(" "), vocabulary=vocabulary)
    pufferfish_rows(public_graph, graph, snapshot_counts, vocabulary, test, args,
                   alone=dpg.text.NGramModel.from_counts(snapshot_counts, order=2, vocabulary=vocabulary).perplexity(test),
                   reference=reference.perplexity(test))

    from benchmarks import language_model as lm

    try:
        d = lm.prepare(None if args.data is None else f"{args.data}/enron-perry-wolfe", orders=(1, 2))
    except (FileNotFoundError, dpg.datasets.DataUnavailableError) as reason:
        print(f"\nEnron skipped: {reason}")
        return
    print(f"\nEnron subjects (benchmarks.language_model's split: snapshot before {lm.SPLIT}, held out from {lm.HELD_OUT}): "
          f"{len(d['public']):,} / {len(d['private']):,} / {len(d['held']):,} messages; vocabulary {len(d['words']):,}")
    everything = collections.Counter(d["snapshot"])
    everything.update(ngram_counts(d["private"], (1, 2)))
    report("Enron", d["graphs"]["private"], d["snapshot"], d["words"], d["held"], args, reference_counts=everything, caps=args.caps)
    rows = lm.split_log(None if args.data is None else f"{args.data}/enron-perry-wolfe")["rows"]
    known = set(d["words"])
    held = [[w if w in known else "<unk>" for w in s] for s in d["held"]]
    counts = {g: float(v) for g, v in everything.items()}
    units_table(rows["private"], rows["public"], held, args, text="subject", analyzer=None,
                alone=dpg.text.NGramModel.from_counts(d["snapshot"], order=2, vocabulary=d["words"]).perplexity(held),
                reference=dpg.text.NGramModel.from_counts(counts, order=2, vocabulary=d["words"]).perplexity(held),
                floor=dpg.text.NGramModel.from_counts(counts, order=1, vocabulary=d["words"]).perplexity(held))
    pufferfish_rows(d["graphs"]["public"], d["graphs"]["private"], d["snapshot"], d["words"], held, args,
                   alone=dpg.text.NGramModel.from_counts(d["snapshot"], order=2, vocabulary=d["words"]).perplexity(held),
                   reference=dpg.text.NGramModel.from_counts(counts, order=2, vocabulary=d["words"]).perplexity(held))


if __name__ == "__main__":
    main()
