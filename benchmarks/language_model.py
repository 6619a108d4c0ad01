"""Language models of the Enron subjects (or a synthetic log) released under DP: issue 31's
thesis table, held-out perplexity per notion and ε.

Usage (from the repository root)::

    .venv/bin/python -m benchmarks.language_model [--runs 10] [--synthetic] [--only bigram|trigram]

The subjects (scikit-learn's tokens, lower-cased, ``re:``/``fw:`` removed; one sentence per
message) are cut at public dates into a **public snapshot** (Enron: before 2001-01-01;
synthetic: before 2020-07-01), the **private period** (until 2001-11-01; synthetic 2021-08-01) and
the **held-out** rest (18 % and 20 % of the messages). Every cut is a date fixed in advance, never
a quantile of the messages' times (that would read the private period). One vocabulary for every model: the snapshot's words seen at least twice,
plus ``</s>`` and ``<unk>``. The model is :class:`opendp_graph.text.NGramModel` (interpolated
Kneser–Ney) from the released counts (soft-thresholded by :meth:`NGramModel.from_release`) plus
the snapshot's per-message counts; the released keys are the snapshot's n-grams (and those with
``<unk>``).

Two tables, 10 releases per cell:

* **bigram, pure ε (Laplace)**: unigrams and bigrams as one vector (``joint=True`` of
  :func:`opendp_graph.text.make_ngram_count_release`; OpenDP's Polars Context for the per-message
  edge level);
* **trigram, ρ-zCDP (Gaussian)** at ``ρ = dpg.zcdp_budget(ε, 10⁻⁶)`` (so the edge- and
  person-level releases are ``(ε, 10⁻⁶)``-DP by OpenDP's conversion; under Pufferfish it is the
  package's Rényi Pufferfish at that ρ): orders 1–3 as one vector, and for the per-message edge
  level three Polars queries composed by OpenDP's Context under the one ρ.

Notions: Pufferfish under the public Binomial model (the snapshot's p0, p1 and the private
structure: :meth:`BinomialModel.from_public`), the Global and the Conditional model (both fitted
on the private graph: data-dependent, so each row is Pufferfish for that fitted model's attackers
only, and W (and the Conditional model's vocabulary) disclosed; the Conditional release counts
only the keys in its vocabulary); edge level per pair (``c`` n-grams per pair); group privacy over
paper 001's Markov-quilt group (``2·D_max − 1`` edges: "over-cautious"); edge level per message
(OpenDP's Polars Context, the pair as identifier, ``truncate_per_group(rows)``); person level per
message (:func:`opendp_graph.text.make_person_ngram_counts`: ``D`` messages per person, ``L``
n-grams per message; ``D`` is the busiest person's count rounded up to a power of two, **read off
the private period**, which no real release may do: a public bound would be no smaller, so the
row is person level's best case, and the output says so).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np

SPLIT = "2001-01-01"
SYNTHETIC_SPLIT = "2020-07-01"
# the held-out period starts at a public date (issue 39: a quantile of all the messages' times read
# the private period); about the last 18 % (Enron) and 20 % (synthetic) of the messages
HELD_OUT = "2001-11-01"
SYNTHETIC_HELD_OUT = "2021-08-01"
EPSILONS = (1.0, 4.0, 10.0, 100.0)
DELTA = 1e-6


def split_log(data=None, *, synthetic=False, analyzer=None):
    """The log (Enron, or the synthetic one with its planted topics), tokenised (``analyzer``,
    default scikit-learn's tokens) and cut by time into the public snapshot, the private period
    and the held-out rest, each cut at a public date, with each part's rows of the log: shared with
    :mod:`benchmarks.topics`."""
    import polars as pl

    import opendp_graph as dpg
    from opendp_graph import text as T

    planted = None
    if synthetic:
        frame, planted = dpg.datasets.synthetic_topic_log()
        employees = list(range(int(frame["sender"].max()) + 1))  # the generator's people: public
        split, held_out = SYNTHETIC_SPLIT, SYNTHETIC_HELD_OUT
    else:
        frame = dpg.datasets.load_enron_messages(data)
        employees = dpg.datasets.load_enron_employees(data)["id"].to_list()
        split, held_out = SPLIT, HELD_OUT
    messages = T.message_tokens(frame, analyzer=analyzer)
    messages = messages.filter(pl.col("tokens").list.len() > 0)
    public_m, private_m, held_m = T.split_by_time(messages, split, held_out)
    rows = {name: frame.filter(pl.col("message_id").is_in(part["message_id"].to_list()))
            for name, part in (("public", public_m), ("private", private_m))}
    return dict(employees=employees, planted=planted, split=split, public=public_m, private=private_m, held=held_m, rows=rows)


def person_bound(table):
    """``(busiest, D)``: the most messages one person owns in a person table, and ``D``, that
    rounded up to a power of two. **Read off the private period**: a release parameter taken from
    the private data, which no real release may do (it discloses the busiest person's count and
    makes the noise data-dependent); the benchmark uses it as person level's best case and says
    so in its output. A real release takes ``D`` from public knowledge (a policy, an earlier
    period) and is refused if anyone owns more."""
    busiest = int(table["owners"].explode().value_counts()["count"].max())
    return busiest, 1 << (busiest - 1).bit_length()


def prepare(data=None, *, synthetic=False, orders=(1, 2, 3)):
    """The time split, the vocabulary, the pair graphs (labels: n-grams up to ``max(orders)``),
    the per-message tables of the private period and the snapshot's counts."""
    from opendp_graph import text as T

    log = split_log(data, synthetic=synthetic)
    employees, split, rows = log["employees"], log["split"], log["rows"]
    public_m, private_m, held_m = log["public"], log["private"], log["held"]
    # the public vocabulary: the snapshot's words seen twice or more; others are <unk> in every
    # count (a public map), so the snapshot has <unk> counts too
    seen = Counter(w for tokens in public_m["tokens"].to_list() for w in tokens)
    words = sorted(w for w, c in seen.items() if c >= 2)
    graphs = {name: T.pair_ngram_graph(rows[name], employees, orders=orders, vocabulary=words)[0] for name in rows}
    fold = T.fold_unknown(lambda tokens: tokens, words)
    public_tokens = [fold(t) for t in public_m["tokens"].to_list()]
    return dict(
        name="synthetic log" if synthetic else "Enron subjects", split=split,
        public=public_tokens, private=[fold(t) for t in private_m["tokens"].to_list()],
        held=held_m["tokens"].to_list(), graphs=graphs, words=words,
        deliveries=T.delivery_ngrams(rows["private"].sort("time", "message_id"), orders=orders, vocabulary=words),
        people=T.person_ngram_table(rows["private"].sort("time", "message_id"), orders=orders, vocabulary=words),
        snapshot=T.ngram_counts(public_tokens, orders=orders),
    )


def keys_by_order(d, top):
    """The released keys (public): the snapshot's n-grams up to ``top`` and those with ``<unk>``."""
    from opendp_graph import text as T

    keys = {n: set() for n in range(1, top + 1)}
    for g in d["graphs"]["public"].vocabulary:
        n = g.count(" ") + 1
        if n <= top:
            keys[n].add(g)
    keys[1].add(T.UNK)
    if top >= 2:
        keys[2] |= {f"{T.BOS} {T.UNK}", f"{T.UNK} {T.EOS}", f"{T.UNK} {T.UNK}"}
        keys[2] |= {f"{w} {T.UNK}" for w in d["words"]} | {f"{T.UNK} {w}" for w in d["words"]}
    return {n: sorted(k) for n, k in keys.items()}


def main(argv=None) -> None:
    import opendp.prelude as dp
    import polars as pl

    import opendp_graph as dpg
    from opendp_graph import text as T
    from opendp_graph.pufferfish import BinomialModel, ConditionalModel, GlobalModel
    from opendp_graph.transformations.labels import label_counts

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--data", default=None)
    parser.add_argument("--synthetic", action="store_true", help="dpg.datasets.synthetic_topic_log() instead of Enron")
    parser.add_argument("--only", choices=("bigram", "trigram", "union"), default=None)
    parser.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
    parser.add_argument("--c", type=int, default=64, help="edge level per pair: the most n-grams per pair")
    parser.add_argument("--rows", type=int, default=64, help="edge level per message: the most n-gram rows per pair")
    args = parser.parse_args(argv)
    dp.enable_features("contrib", "honest-but-curious")
    start = time.perf_counter()
    d = prepare(args.data, synthetic=args.synthetic)
    print(f"(prepared in {time.perf_counter() - start:.0f} s)")
    public_graph, private_graph = d["graphs"]["public"], d["graphs"]["private"]
    words, held, snapshot = d["words"], d["held"], d["snapshot"]
    print(f"{d['name']}: public snapshot {len(d['public']):,} messages (before {d['split']}), private "
          f"{len(d['private']):,}, held out {len(held):,}; {len(words):,} snapshot words; private pairs "
          f"{private_graph.num_edges:,}")

    def perplexity(counts, order, **kw):
        return T.NGramModel.from_counts(counts, order=order, vocabulary=words, **kw).perplexity(held)

    def restrict(counts, order):
        return {g: c for g, c in counts.items() if g.count(" ") < order}

    every_message = T.ngram_counts(d["public"] + d["private"], orders=(1, 2, 3))
    refs = {}
    for order, label in ((2, "bigram"), (3, "trigram")):
        refs[f"non-private {label}, per message, snapshot + private (the reference)"] = perplexity(restrict(every_message, order), order)
    refs["non-private unigram, per message, snapshot + private (the floor)"] = perplexity(restrict(every_message, 1), 1)
    for order, label in ((2, "bigram"), (3, "trigram")):
        refs[f"public snapshot alone, {label}"] = perplexity(restrict(snapshot, order), order)
    all_keys = keys_by_order(d, 3)
    flat = [k for n in sorted(all_keys) for k in all_keys[n]]
    public_pairs = dict(zip(flat, (float(c) for c in label_counts(public_graph, None, flat))))
    private_pairs = dict(zip(flat, (float(c) for c in label_counts(private_graph, None, flat))))
    # per-pair counts on the per-message scale: the snapshot's ratio per order (public figures)
    weight = {
        n: sum(c for g, c in snapshot.items() if g.count(" ") == n - 1)
        / max(1.0, sum(c for g, c in public_pairs.items() if g.count(" ") == n - 1))
        for n in (1, 2, 3)
    }
    for order, label in ((2, "bigram"), (3, "trigram")):
        refs[f"snapshot + the private period's exact per-pair counts (no noise), {label}"] = perplexity(
            restrict(private_pairs, order), order, public_counts=restrict(snapshot, order), weight=weight)
    deliveries = d["deliveries"]
    kept = deliveries.with_columns(pl.int_range(pl.len()).over("pair").alias("i")).filter(pl.col("i") < args.rows)
    for order, label in ((2, "bigram"), (3, "trigram")):
        exact = restrict(dict(Counter(deliveries["ngram"].to_list())), order)
        truncated = restrict(dict(Counter(kept["ngram"].to_list())), order)
        refs[f"snapshot + per-message counts, no noise, {label}: every delivery"] = perplexity(exact, order, public_counts=restrict(snapshot, order))
        refs[f"snapshot + per-message counts, no noise, {label}: the first {args.rows} rows per pair, released keys only"] = perplexity(
            {g: c for g, c in truncated.items() if g in public_pairs}, order, public_counts=restrict(snapshot, order))
    for name, value in refs.items():
        print(f"  {name}: perplexity {value:.0f}")
    print("  (per-pair counts are put on the per-message scale by the snapshot's ratios: "
          + ", ".join(f"{weight[n]:.2f} for order {n}" for n in (1, 2, 3)) + ")")

    binomial = BinomialModel.from_public(public_graph, private_graph)
    global_model = GlobalModel.fit(private_graph, source="private")
    conditional = ConditionalModel.fit(private_graph, source="private")
    quilt = 2 * int(private_graph.max_degree) - 1  # paper 001's Markov-quilt group: every edge at both ends
    busiest, bound = person_bound(d["people"])
    domain = dpg.graph_domain(labeled=True)
    print(f"\nPufferfish models: public Binomial W∞ = {binomial.W:g}; Global (fitted on the private graph) W∞ = "
          f"{global_model.W:g}; Conditional (fitted on the private graph, {len(conditional.vocabulary):,} properties) "
          f"W∞ = {conditional.W:g}. Person level: the busiest person owns {busiest:,} private-period messages, D = {bound:,} "
          "(read off the private period: person level's best case, not a bound a real release may use)")

    if args.only in (None, "union"):
        set_union(d, args, all_keys, weight, perplexity, restrict)
    tables = [("bigram", 2, "laplace"), ("trigram", 3, "gaussian")]
    if args.only:
        tables = [t for t in tables if t[0] == args.only]
    for label, order, noise in tables:
        keys = {n: all_keys[n] for n in range(1, order + 1)}
        every = [k for n in sorted(keys) for k in keys[n]]
        public_counts = restrict(snapshot, order)
        reference = refs[f"non-private {label}, per message, snapshot + private (the reference)"]
        cap_per_message = 5 * order + 1  # n-grams of a message of 5 tokens (with <s>/</s>), across orders
        graph_notions = {
            f"Pufferfish, public Binomial (W∞ = {binomial.W:g})": (dpg.pufferfish_distance(binomial), 1, keys),
            f"Pufferfish, Global, fitted on the private graph (W∞ = {global_model.W:g})": (dpg.pufferfish_distance(global_model), 1, keys),
            f"Pufferfish, Conditional, fitted on the private graph (W∞ = {conditional.W:g})": (
                dpg.pufferfish_distance(conditional), 1,
                {n: [k for k in ks if k in set(conditional.vocabulary)] for n, ks in keys.items()}),
            f"edge level, per pair, c = {args.c}": (dpg.edge_distance(), args.c, keys),
            f"group privacy (k = 2·D_max − 1 = {quilt} edges), per pair, c = {args.c}": (dpg.group_distance(quilt), args.c, keys),
        }

        def budget(eps):
            return {"privacy_loss": dp.loss_of(epsilon=eps) if noise == "laplace" else dp.loss_of(rho=dpg.zcdp_budget(eps, DELTA))}

        snapshot_model = T.NGramModel.from_counts(public_counts, order=order, vocabulary=words)

        def score(out, w=1.0):
            """Both estimators from one release: the counts added to the snapshot's, and the
            mixture of the snapshot's model with the released counts' own (μ: their share)."""
            merged = T.NGramModel.from_release(out, public_counts=public_counts, weight=w, vocabulary=words)
            share = T.released_share(out, public_counts, weight=w)
            mixed = T.mixture([snapshot_model, T.NGramModel.from_release(out, vocabulary=words)], [1 - share, share])
            return merged.perplexity(held), mixed.perplexity(held)

        measure = "pure ε (Laplace)" if noise == "laplace" else f"ρ = zcdp_budget(ε, {DELTA:g}), Gaussian"
        print(f"\nDP {label} models, {measure}; {args.runs} releases per cell; perplexity median (min–max) of the "
              f"released counts added to the snapshot's | of the mixture of the two models (μ = the released share); "
              f"1.5× the reference = {1.5 * reference:.0f}")
        rows = {}
        for name, (metric, cap, these) in graph_notions.items():
            tick = time.perf_counter()
            cells = []
            for eps in args.epsilons:
                release = T.make_ngram_count_release(domain, metric, budget(eps)["privacy_loss"], these, max_ngrams_per_edge=cap, joint=True)
                values, scale = [], None
                for _ in range(args.runs):
                    out = release(private_graph)
                    scale = out.scales[1]
                    values.append(score(out, weight))
                cells.append((eps, scale, values))
            rows[name] = cells
            print(f"    ({name}: {time.perf_counter() - tick:.0f} s)", flush=True)
        tick = time.perf_counter()
        # person level, per message
        table = d["people"]
        person_metric = None if noise == "laplace" else dp.l2_distance(T=dp.f64)
        counts = T.make_person_ngram_counts(T.person_text_domain(bound), dpg.polars.person_log_distance(), every,
                                            cap_per_message, person_metric)
        cells = []
        for eps in args.epsilons:
            release = T.make_ngram_count_composition(counts, keys, joint=True, **budget(eps))
            values, scale = [], None
            for _ in range(args.runs):
                out = release(table)
                scale = out.scales[1]
                values.append(score(out))
            cells.append((eps, scale, values))
        rows[f"person level, per message (D = {bound:,} messages, L = {cap_per_message} n-grams per message)"] = cells
        print(f"    (person level: {time.perf_counter() - tick:.0f} s)", flush=True)
        tick = time.perf_counter()
        # edge level, counted per message on each pair: OpenDP's Polars Context, the pair as the
        # identifier, truncate_per_group bounding each pair's rows; one query per order under the
        # one budget (the Context splits it evenly: OpenDP's composition)
        frame_keys = {n: pl.DataFrame({"ngram": keys[n]}) for n in keys}
        by_order = deliveries.with_columns((pl.col("ngram").str.count_matches(" ") + 1).alias("order"))
        data = by_order.lazy().select("pair", "ngram", "order")
        cells = []
        for eps in args.epsilons:
            loss = dp.loss_of(epsilon=eps) if noise == "laplace" else dp.loss_of(rho=dpg.zcdp_budget(eps, DELTA))
            context = dp.Context.compositor(
                data=data, privacy_unit=dp.unit_of(contributions=1, identifier="pair"), privacy_loss=loss, split_evenly_over=order,
            )
            # each order's query resolved once (6 s each: the keys), then run --runs times: every
            # run is one release of the three under the one budget
            measurements, scale = [], None
            for n in range(1, order + 1):
                query = (context.query().filter(pl.col("order") == n).truncate_per_group(args.rows, keep="first")
                         .group_by("ngram").agg(dp.len(signed=True)).with_keys(frame_keys[n]))
                scale = float(query.summarize()["scale"][0])
                measurements.append(query.resolve())
            values = []
            for _ in range(args.runs):
                noisy = {}
                for measurement in measurements:
                    result = measurement(data).collect()
                    noisy.update(zip(result["ngram"].to_list(), (float(v) for v in result["len"].to_list())))
                release = T.NGramRelease(noisy, dict.fromkeys(range(1, order + 1), scale), noise, False)
                values.append(score(release))
            cells.append((eps, scale, values))
        rows[f"edge level, per message (OpenDP Polars, pair identifier, {args.rows} rows per pair and order, "
             f"{order} queries composed)"] = cells
        print(f"    (per message: {time.perf_counter() - tick:.0f} s)", flush=True)
        for name, cells in rows.items():
            print(f"  {name}: " + "; ".join(f"ε = {eps:g} (scale {scale:.3g}): {_spread([a for a, _ in v])} | "
                                            f"{_spread([b for _, b in v])}" for eps, scale, v in cells))
    print(f"({time.perf_counter() - start:.0f} s)")


def _spread(values):
    return f"{np.median(values):.0f} ({min(values):.0f}–{max(values):.0f})"


def set_union(d, args, all_keys, weight, perplexity, restrict):
    """The private period's n-grams the snapshot never saw, by a DP set union (edge level per
    pair, ``c`` n-grams per pair; OpenDP's thresholded Laplace with the package's δ correction,
    at (ε, 10⁻⁶)): the threshold, how many new n-grams' true counts clear it, and releases."""
    import opendp_graph as dpg
    from opendp_graph.transformations.labels import label_count_map

    private_graph = d["graphs"]["private"]
    known = {k for keys in all_keys.values() for k in keys}
    truth = label_count_map(private_graph, args.c)
    new = {g: c for g, c in truth.items() if g not in known}
    biggest = max(new.values(), default=0)
    print(f"\nDP set union of the private period's n-grams (edge level per pair, c = {args.c}, δ = {DELTA:g}): "
          f"{len(new):,} of its {len(truth):,} n-grams are not among the snapshot's keys; the most common of them "
          f"is used by {biggest} pairs")
    count_map = (dpg.graph_domain(labeled=True), dpg.edge_distance()) >> dpg.then_label_count_map(args.c)
    for eps in args.epsilons:
        scale, threshold = dpg.calibrate_laplace_threshold(count_map, 1, eps, DELTA)
        release = count_map >> dpg.then_corrected_laplace_threshold(scale, threshold)
        eps_used, delta_used = release.map(1)
        assert eps_used <= eps and delta_used <= DELTA
        released_new, values = [], []
        for _ in range(args.runs):
            out = release(private_graph)
            released_new.append(sum(1 for g in out if g not in known))
            counts = {g: float(c) for g, c in out.items()}
            values.append(perplexity(restrict(counts, 2), 2, public_counts=restrict(d["snapshot"], 2), weight=weight))
        clear = sum(1 for c in new.values() if c >= threshold)
        print(f"  ε = {eps:g}: scale {scale:g}, threshold {threshold}; new n-grams whose true count clears it: {clear}; "
              f"released new n-grams per run: median {np.median(released_new):.0f}; bigram model from the union's counts "
              f"+ the snapshot: {np.median(values):.0f} ({min(values):.0f}–{max(values):.0f})")


if __name__ == "__main__":
    main()
