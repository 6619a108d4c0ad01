"""The most frequent subject words of Enron's e-mails at ε = 1: can a release find the top 20?

``python -m reproductions top_words [--trials 30] [--out DIR]`` (issue 16). Every choice is
public: the messages sent before 2001 play an earlier, published snapshot
(``load_enron(end="2001-01-01", bigrams=False)``: 805 edges, 5,162 words), and the release is
about the 2001–2002 e-mails (``load_enron(start="2001-01-01", bigrams=False)``: 1,626 edges,
8,338 words, each edge labelled by the words of its subjects). The score of a top-20 release is
how many of its words are in the true top 20 of 2001–2002 (median over the trials); all 20 are
words of the snapshot. Rows (ε = 1, δ = 10⁻⁶ where a δ is needed):

* **edge level, noisy top-20 over the snapshot's words** (all of them, or its 200 most
  frequent, a public choice): ``then_label_counts(|V|, V,
  output_metric=linf_distance(monotonic=True)) >> dp.m.then_noisy_top_k`` (one edge moves every
  count by at most one, all the same way: ε = k/scale).
* **edge level, two stages with no list** (:func:`~opendp_graph.make_candidate_top_k`, ε/2 each):
  the set union of all words (``c = 8`` per edge, the first 8 in lexicographic order), then the
  noisy top 20 of the released words.
* **edge level, the private period's own words** (reference, not public): what the snapshot's
  list costs.
* **edge level, set union over the snapshot's words** (``c = 8`` per edge, by the snapshot's
  frequency; ``(ε, δ)``): which listed words are common, its size and precision (the share of
  released words among the true most frequent words of the same number).
* **Global model, and a public Binomial model**: one secret moves one word's count by at most ``W``, so Laplace noise of scale
  ``W/ε`` on the counts over the snapshot's words and the top 20 of the noisy counts
  (post-processing; this beats noisy top-k, whose ε grows with k). Fitted on the snapshot it does
  not cover the 2001–2002 structure (larger neighbourhoods), so the rows use the model fitted on
  the private period (``W`` read off the data: a reference), exact and at ``W_δ``, and at larger ε.
  The Binomial rows use only public information: the snapshot's ``p0``, ``p1`` and the 2001–2002
  structure's neighbourhood sizes (the structure is public under a Pufferfish metric).

**Our figures** (runs of 2026-11-23, 30 trials each, ε = 1; the median moves by about one between
runs): edge level over the snapshot's 200 most frequent words **16.5–17** of 20 (scale 20; three runs),
over all its 5,162 words 15–16 (three runs; over the private period's own words, a reference,
15–16); two stages with no list **0** (stage 1's threshold of 245 at scale 16 is above every
count the lexicographic cap of 8 words per edge leaves); set union over the snapshot's words
**12** words released, precision 0.92; Global model (fitted on the private period, W = 51, scale
51; W_δ = 51) **8** — out of reach at ε = 1: the noise's standard deviation, 72 (√2·51), exceeds
the whole spread of the true counts of ranks 14–25 (179 to 130), so those ranks are shuffled
among themselves and with thousands of rarer words; it reaches 14–15 at ε = 2, 17 at ε = 3, 18 at
ε = 5. A fully public Pufferfish model does reach it with the (ε, δ) relaxation: the Binomial
model with the snapshot's ``p0``, ``p1`` on the public structure's neighbourhood sizes, ``W = 70``
(**4** of 20) but ``W_δ = 31`` at δ = 10⁻⁶ (**13** of 20).

All noise comes from OpenDP measurements. Trials re-run the noise only: the exact counts are
computed once and each trial applies the same OpenDP measurements to them (for the two-stage
row, stage 2's counts are the exact counts of the words stage 1 released).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import opendp.prelude as dp

from opendp_graph import edge_distance, graph_domain, pufferfish_distance
from opendp_graph._cli_args import ArgumentParser, positive_float, positive_int, print_written
from opendp_graph.core.graph import Graph
from opendp_graph.datasets import load_enron
from opendp_graph.measurements.threshold import calibrate_laplace_threshold, make_corrected_laplace_threshold
from opendp_graph.pufferfish import BinomialModel, GlobalModel
from opendp_graph.transformations.labels import label_count_map, label_counts, then_label_count_map, then_label_counts

from ._command import output_folder, summary

__all__ = ["top_words_rows", "main"]

MONO = dp.linf_distance(T=dp.i64, monotonic=True)


def _overlap(released, truth: set) -> int:
    return len(truth & set(released))


def _noisy_top_k(counts: list[int], k: int, scale: float) -> list[int]:
    domain = dp.vector_domain(dp.atom_domain(T=dp.i64), size=len(counts))
    return dp.m.make_noisy_top_k(domain, MONO, dp.max_divergence(), k=k, scale=scale)(counts)


def _edge_union(g: Graph, c: int, vocab, epsilon: float, delta: float):
    """The edge-level set union calibrated to ``(ε, δ)``: its OpenDP measurement on a count
    map, the exact count map it applies to, and its scale and threshold."""
    count_map = (graph_domain(labeled=True), edge_distance()) >> then_label_count_map(c, vocab)
    scale, threshold = calibrate_laplace_threshold(count_map, 1, epsilon, delta)
    union = make_corrected_laplace_threshold(count_map.output_domain, count_map.output_metric, scale=scale, threshold=threshold)
    return union, label_count_map(g, c, vocab), scale, threshold


def _precision(released, ranked: list[str]) -> float:
    """The share of the released words among the true most frequent words of the same number."""
    return len(set(ranked[: len(released)]) & set(released)) / len(released)


def _edge_top_k_scale(k: int, epsilon: float) -> float:
    """The scale of OpenDP's noisy top-k at edge level for ``ε`` (monotonic L∞: one edge moves
    every count by at most one, the same way; the map does not depend on the words counted)."""
    query = (graph_domain(labeled=True), edge_distance()) >> then_label_counts(k, [f"_{i}" for i in range(k)], output_metric=MONO)
    return dp.binary_search_param(lambda s: query >> dp.m.then_noisy_top_k(dp.max_divergence(), k=k, scale=s), d_in=1, d_out=epsilon)


def _union(g: Graph, c: int, vocab, epsilon: float, delta: float, trials: int, ranked: list[str]):
    """The edge-level set union alone at (ε, δ): median size and precision."""
    union, exact, scale, threshold = _edge_union(g, c, vocab, epsilon, delta)
    sizes, precisions = [], []
    for _ in range(trials):
        released = union(exact)
        sizes.append(len(released))
        if released:
            precisions.append(_precision(released, ranked))
    return {
        "scale": f"{scale:.3g}",
        "threshold": threshold,
        "union_size": float(np.median(sizes)),
        "union_precision": round(float(np.median(precisions)), 3) if precisions else float("nan"),
    }


def _two_stage(g: Graph, c: int, k: int, epsilon: float, delta: float, trials: int, truth: set, ranked: list[str]):
    """``make_candidate_top_k``'s two releases at ``ε/2`` each, on the exact counts."""
    union, exact_map, s1, threshold = _edge_union(g, c, None, epsilon / 2, delta)
    s2 = _edge_top_k_scale(k, epsilon / 2)
    overlaps, sizes, precisions = [], [], []
    for _ in range(trials):
        released = sorted(union(exact_map))
        sizes.append(len(released))
        if not released:
            overlaps.append(0)
            continue
        precisions.append(_precision(released, ranked))
        exact = [exact_map[w] for w in released]
        chosen = _noisy_top_k(exact, min(k, len(released)), s2)
        overlaps.append(_overlap([released[i] for i in chosen], truth))
    return {
        "scale": f"{s1:.3g} / {s2:.3g}",
        "threshold": threshold,
        "overlap": float(np.median(overlaps)),
        "union_size": float(np.median(sizes)),
        "union_precision": round(float(np.median(precisions)), 3) if precisions else float("nan"),
    }


def _one_stage_edge(g: Graph, vocab: list[str], k: int, epsilon: float, trials: int, truth: set):
    scale = _edge_top_k_scale(k, epsilon)
    exact = label_counts(g, len(vocab), vocab)
    overlaps = [_overlap([vocab[i] for i in _noisy_top_k(exact, k, scale)], truth) for _ in range(trials)]
    return {"scale": f"{scale:.3g}", "overlap": float(np.median(overlaps))}


def _pufferfish_laplace_top_k(g: Graph, model, vocab, k, epsilon, delta, trials, truth):
    """Laplace counts at scale ``max(W, 1)/ε`` (``W_δ`` at ``δ > 0``), and the top ``k`` of the
    noisy counts (post-processing)."""
    metric = pufferfish_distance(model, delta=delta)
    query = (graph_domain(labeled=True), metric) >> then_label_counts(1, vocab)
    scale = dp.binary_search_param(lambda s: query >> dp.m.then_laplace(scale=s), d_in=1, d_out=epsilon)
    exact = np.asarray(label_counts(g, None, vocab), dtype=np.int64)
    noise = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=dp.i64)), dp.l1_distance(T=dp.i64), scale)
    overlaps = []
    for _ in range(trials):
        noisy = np.asarray(noise(exact.tolist()))
        top = np.argsort(-noisy, kind="stable")[:k]
        overlaps.append(_overlap([vocab[i] for i in top], truth))
    return {"W": metric.descriptor.W, "scale": f"{scale:.3g}", "overlap": float(np.median(overlaps))}


def _vocabulary_by_frequency(g: Graph) -> list[str]:
    freq = np.asarray(g.labels.sum(axis=0)).ravel()
    return [g.vocabulary[i] for i in np.argsort(-freq, kind="stable")]


def top_words_rows(
    *,
    k: int = 20,
    epsilon: float = 1.0,
    delta: float = 1e-6,
    trials: int = 30,
    c: int = 8,
    split: str = "2001-01-01",
    shortlist: int = 200,
) -> list[dict[str, Any]]:
    """The table of the module docstring, one dict per row."""
    dp.enable_features("contrib", "honest-but-curious")
    public = load_enron(end=split, bigrams=False)
    private = load_enron(start=split, bigrams=False)
    ranked = _vocabulary_by_frequency(private)
    truth = set(ranked[:k])
    public_vocab = _vocabulary_by_frequency(public)
    rows = [
        {
            "release": f"edge level: noisy top-{k} over the public snapshot's {len(public_vocab):,} words",
            "public": "yes",
            **_one_stage_edge(private, public_vocab, k, epsilon, trials, truth),
        },
        {
            "release": f"edge level: noisy top-{k} over the public snapshot's {shortlist} most frequent words",
            "public": "yes",
            **_one_stage_edge(private, public_vocab[:shortlist], k, epsilon, trials, truth),
        },
        {
            "release": f"edge level: set union (c = {c}) then noisy top-{k}, no list",
            "public": "yes",
            **_two_stage(private, c, k, epsilon, delta, trials, truth, ranked),
        },
        {
            "release": f"edge level: noisy top-{k} over the private period's {len(ranked):,} words",
            "public": "no (reference)",
            **_one_stage_edge(private, ranked, k, epsilon, trials, truth),
        },
    ]
    rows.append(
        {
            "release": f"edge level: set union over the public words (c = {c}, by public frequency)",
            "public": "yes",
            **_union(private, c, public_vocab, epsilon, delta, trials, ranked),
        }
    )
    fitted = {"public snapshot": GlobalModel.fit(public, source="public"), "private period": GlobalModel.fit(private)}
    for where, model in fitted.items():
        if not model.covers(private):
            rows.append({"release": f"Global fitted on the {where}", "public": "-", "note": "does not cover the private structure"})
            continue
        for name, d in (("exact W", 0.0), (f"W_delta, delta = {delta:g}", delta)):
            rows.append(
                {
                    "release": f"Global fitted on the {where}, {name}: Laplace counts over the public words, top {k}",
                    "public": "yes" if where == "public snapshot" else "no (W read off the data)",
                    **_pufferfish_laplace_top_k(private, model, public_vocab, k, epsilon, d, trials, truth),
                }
            )
    # a fully public model: the snapshot's p0, p1 and the public structure's neighbourhood sizes
    public_binomial = BinomialModel.from_public(public, private)  # reads no private label
    for name, d in (("exact W", 0.0), (f"W_delta, delta = {delta:g}", delta)):
        rows.append(
            {
                "release": f"Binomial with the snapshot's p0, p1 on the public structure, {name}: Laplace counts, top {k}",
                "public": "yes",
                **_pufferfish_laplace_top_k(private, public_binomial, public_vocab, k, epsilon, d, trials, truth),
            }
        )
    # what the Global row would need: the ε at which its median overlap reaches half the top k
    for eps in (2.0, 3.0, 5.0):
        rows.append(
            {
                "release": f"Global fitted on the private period, exact W, epsilon = {eps:g}",
                "public": "no (W read off the data)",
                **_pufferfish_laplace_top_k(private, fitted["private period"], public_vocab, k, eps, 0.0, trials, truth),
            }
        )
    counts = np.sort(np.asarray(private.labels.sum(axis=0)).ravel())[::-1][: k + 5].tolist()
    rows.append({"release": f"true counts of ranks 1..{k + 5} (private period)", "public": "-", "scale": str(counts)})
    in_public = len(truth & set(public_vocab))
    rows.append({"release": f"true top {k} words found in the public snapshot", "public": "-", "overlap": float(in_public)})
    return rows


COLUMNS = ["release", "public", "W", "scale", "threshold", "overlap", "union_size", "union_precision", "note"]


def _table(rows) -> str:
    """A markdown table of the rows (empty cells where a column does not apply)."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        lines.append("| " + " | ".join(str(r.get(col, "")) for col in COLUMNS) + " |")
    return "\n".join(lines)


def _parser() -> ArgumentParser:
    parser = ArgumentParser(prog="python -m reproductions top_words", description=summary(__doc__))
    parser.add_argument("--out", default=None, help="folder for top_words.md (made if missing)")
    parser.add_argument("--trials", type=positive_int, default=30, help="noise draws per release, >= 1 (default 30)")
    parser.add_argument("--epsilon", type=positive_float, default=1.0, help="ε of each release, > 0 (default 1.0)")
    parser.add_argument("--quick", action="store_true", help="3 trials (for tests)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    out = output_folder(parser, args.out)
    started = time.perf_counter()
    rows = top_words_rows(trials=3 if args.quick else args.trials, epsilon=args.epsilon)
    table = _table(rows)
    print(f"Top 20 subject words of Enron's 2001-2002 e-mails, ε = {args.epsilon:g} (median over the trials)")
    print(table)
    print(f"done in {time.perf_counter() - started:.1f} s")
    if out is not None:
        written = [out / "top_words.md"]
        written[0].write_text(table + "\n")
        print_written(written)
    return 0
