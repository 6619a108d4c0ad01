"""Reproduce Tables 1–3 of Shafieinejad et al. (paper 001 §4.4, §5.1) on our Enron graph.

``python -m reproductions pufferfish [--data ../shared/data/enron-perry-wolfe] [--out DIR] [--quick]``
(without ``--data`` the ``enron-perry-wolfe`` data set is resolved by
:func:`opendp_graph.datasets.data_path`)

* **Table 1** — the Conditional model per (log10 property frequency × log10 neighbourhood size)
  bucket: exact ``W∞`` in edges, the same as a fraction of the bucket's largest neighbourhood,
  and the paper's scaled value ``W∞/N · min(N_max, 10^(b+1))``.
* **Table 2** — histogram release over the public vocabulary (all n-grams, ordered by frequency),
  ``c`` properties per edge, ``space >> dpg.then_label_counts(c, vocab) >> dp.m.then_laplace(λ)``
  with ``λ = d_out/ε`` (``d_out = t.map(1)``): yield (noisy counts > 0) and RMSE over trials,
  for edge-level, node-level, Binomial, Global, Conditional, a DP-fitted Binomial and group
  privacy (trivial Markov quilt).
* **Table 3** — DP set union: ``then_label_count_map(c) >> dpg.then_corrected_laplace_threshold`` (OpenDP's
  mechanism with δ corrected, :mod:`opendp_graph.measurements`) with
  scale and threshold searched so that ``(ε, δ = 1e-6)`` holds: the number of released n-grams.

Trials re-run only the noise stage: the chain's function is ``noise(query(G))``, so the exact
query is computed once and each trial applies the same OpenDP measurement
(``dp.m.make_laplace`` / ``make_corrected_laplace_threshold`` with the chain's scale and threshold) to it.

**Our figures** (run of 2026-11-23, full vocabulary of 42,390 n-grams, ``c = 1000`` — applied
at edge and node level only: under a Pufferfish metric the queries apply no cap, see
:mod:`opendp_graph.pufferfish.metric` —, ε = 100, 10 trials): W = 1 (edge), 82 (Binomial;
p0 = 0.0020, p1 = 0.080), 50 (Global), 46 (Conditional), 91 (Binomial fitted under
ε_fit = 10, an upper bound), 175 (group / trivial quilt); histogram λ = 0.01, 1760 (node), 0.82,
0.50, 0.46, 0.91, 1.75 and yield 78.9 % (edge; the rest of the 42,390 n-grams have true count 0
after the contribution bound), 50.1 % (node), 73.8 %, 76.7 %, 77.0 %, 73.3 %, 68.7 %; set
union: 18,810 (edge), 0 (node), 68, 189, 212, 53 and 15 n-grams. At ε = 1 only edge-level
privacy releases anything in the set union (≈ 1,410 n-grams).
The paper (ε = 100): W = 1, 1, 558, 866, 960, 1883; yields 58 % / 5.6 % / 50 % ...; set union
24,815 / 91 / 229 / 135 / 117 / 42.

**Is it worth publishing?** (the usefulness table, :mod:`.pufferfish_usefulness`; run of
2026-11-23, ε = 1 and 10, δ = 10⁻⁶ in all, 3 trials; Enron: every n-gram; Deezer HU/RO: the 84
genres both friends like; no cap under the Pufferfish models, ``c = 1000`` / ``84`` at edge
level.) What ``W_δ`` gains over the exact ``W``: Enron Binomial 82 → 28 (scale at ε = 1:
82 → 28, RMSE 116 → 40, counts clear of twice the 95 % half-width 1 → 21, at ε = 10: 266 →
1,171), Global 50 → 49, Conditional 46 → 46; Deezer Binomial 153 → 131 (HU) and 160 → 134 (RO),
Global 95 → 94 and 131 → 123, Conditional unchanged (208, 222). What it costs: δ = 10⁻⁶ per
secret under the model (not noise randomness), and computing it. The empirical models gain
little because each atom that sets their ``W`` carries more than δ of probability. The verdict
at ε = 1: on Enron the exact correlated models keep 1–11 n-gram counts clear of the noise, the
relaxed Binomial 21; the set union releases at most a few n-grams (a count must clear 416–2,472;
the largest is 536); edge level (which ignores the correlation) keeps 4,433 counts and releases
~1,415 n-grams. On Deezer the genres are popular enough: 19–25 of 84 genre counts stand clear at
ε = 1 under every correlated model (47–50 at edge level), and the set union releases 13–21
genres (edge level: ~45). The top-20 words of Enron are in :mod:`.top_words`.
The
tight group baseline (largest closed neighbourhood) improves on the paper's ``2·Dmax − 1`` by
6 % on Enron (165 vs 175) and Deezer HU (208 vs 223).

**Where our figures differ from the paper's, and why.**

1. *Data.* The paper uses the Avocado corpus: 393 people, 21,312 edges (mailing lists expanded),
   largest neighbourhood 1,883, n-grams of full message bodies. We have the Perry–Wolfe Enron
   release: 156 employees, 1,843 edges, largest closed neighbourhood 165 (``2·Dmax − 1 = 175``),
   subjects only (42,390 unigrams and bigrams, 166,308 (edge, n-gram) pairs). Everything scales
   down: our group-privacy W is 175 against 1,883.
2. *Exact fitting.* The paper samples up to 100 edges per bucket; we count every one of the
   ``E × P`` (edge, property) secrets (78 million), so the tails — which decide ``W∞`` — are
   all there. The paper's Table 1 reports W∞ as a fraction of the neighbourhood scaled by the
   bucket's upper size; we report the exact W∞ in edges and the paper-style value beside it.
3. *Binomial tails.* W∞ is a supremum over quantile levels, so the extreme tails count; for
   the Binomial model we compare tail probabilities on the log scale (exactly). Ours is
   therefore larger than what a plot of the CDFs suggests.
4. *Calibration.* The paper adds Laplace noise ``c·W/ε`` to counts capped at ``c`` properties
   per edge. Our secret is one (edge, property) bit (paper §4.2): without a cap one flip moves
   that property's count only, by at most ``max(W, 1)``, and a cap that binds lets the flip
   displace other properties, ``2·max(hi, 1 − lo)`` with ``lo = min(d_min, 1)``,
   ``hi = max(d_max, 1)`` (:func:`opendp_graph.pufferfish.metric._pufferfish_counts`). So under a
   Pufferfish metric our queries apply no cap and add ``W/ε``: the paper's noise is ``c`` times
   ours here, and its capped counts are biased. (The paper's figure is *too small* for capped
   counts with ``c = 1`` and, when ``d_min ≤ 0``, can be for ``c = 2, 3``.) Node-level privacy
   uses the foundation's node metric (``2·c·Dmax`` per node) — the paper's node row
   (``W = 1, λ = 10``) evidently does not.
5. *Data dependence.* The three fitted models are fitted on the data they protect (as in the
   paper): the noise scale depends on the private data and W is disclosed. The DP-fitted
   Binomial row spends its own ``ε_fit`` (reported) and gives an upper bound on the exact W
   with probability ``1 − β``; the edge, node and group rows read only the public structure.
"""

from __future__ import annotations

import csv
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from opendp_graph._cli_args import ArgumentParser, positive_floats, positive_int, print_written
from opendp_graph.core._progress import resolve_progress

from ._command import can_plot, output_folder, summary

__all__ = ["main", "run"]

PAPER_TABLE2 = {
    "Edge-level": (1, 10.0, "58.2%", 12.0),
    "Node-level": (1, 10.0, "5.6%", 6.4),
    "Binomial": (558, 5580.0, "50.1%", 5577.7),
    "Global": (866, 8660.0, "50.0%", 8665.8),
    "Conditional": (960, 9600.0, "50.0%", 9594.2),
    "Group (trivial quilt)": (1883, 18830.0, "50.0%", 18833.3),
}
PAPER_TABLE3 = {"Edge-level": 24814.9, "Node-level": 91, "Binomial": 228.7, "Global": 135, "Conditional": 116.7, "Group (trivial quilt)": 41.9}


_WORKER: dict[str, Any] = {}


def _worker_init(true_counts: list[int], true_map: dict[str, int]) -> None:
    import opendp.prelude as dp

    dp.enable_features("contrib", "honest-but-curious")
    _WORKER["counts"] = true_counts
    _WORKER["vec"] = np.asarray(true_counts, dtype=float)
    _WORKER["map"] = true_map


def _noise_trials(task: tuple) -> tuple[list[float], list[float]]:
    """Run the noise stage of one release ``n`` times (in a worker or in-process). The
    measurement is rebuilt from its scale (and threshold) with the same domain and metric as
    the chain's second stage, so it is the same OpenDP mechanism."""
    import opendp.prelude as dp

    kind, scale, threshold, n = task
    if kind == "laplace":
        size = len(_WORKER["counts"])
        noise = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=dp.i64), size=size), dp.l1_distance(T=dp.i64), scale)
        yields, rmses = [], []
        for _ in range(n):
            noisy = np.asarray(noise(_WORKER["counts"]), dtype=float)
            yields.append(float((noisy > 0).sum()))
            rmses.append(float(np.sqrt(np.mean((noisy - _WORKER["vec"]) ** 2))))
        return yields, rmses
    import opendp_graph as dpg

    noise = dpg.make_corrected_laplace_threshold(
        dp.map_domain(dp.atom_domain(T=dp.String), dp.atom_domain(T=dp.i64)),
        dp.l01inf_distance(dp.absolute_distance(T=dp.i64)),
        scale=scale,
        threshold=threshold,
    )
    return [float(len(noise(_WORKER["map"]))) for _ in range(n)], []


def _spaces(g, models: dict[str, Any]) -> list[tuple[str, Any, Any, Any]]:
    """(row name, W or None, input domain, input metric) for every privacy notion."""
    import opendp_graph as dpg

    rows = [("Edge-level", 1, dpg.graph_domain(labeled=True), dpg.pufferfish_distance(models["Edge-level"]))]
    rows.append(("Node-level", None, dpg.graph_domain(labeled=True, max_degree=g.max_degree), dpg.node_distance()))
    for name in ("Binomial", "Global", "Conditional", "Binomial (DP fit)", "Group (trivial quilt)"):
        m = models[name]
        rows.append((name, m.W, dpg.graph_domain(labeled=True), dpg.pufferfish_distance(m)))
    return rows


class CalibrationError(ValueError):
    """No noise scale or threshold within the search bounds meets the requested (ε, δ)."""


def _stats(values: list[float]) -> tuple[float, float]:
    arr = np.asarray(values, dtype=float)
    return float(arr.mean()), float(arr.std(ddof=1)) if arr.size > 1 else 0.0


def run(
    data: str | Path | None = None,
    *,
    epsilons: tuple[float, ...] = (100.0, 1.0),
    trials: int = 10,
    small_trials: int = 3,
    c: int = 1000,
    fit_epsilon: float = 10.0,
    delta: float = 1e-6,
    vocabulary_size: int | None = None,
    jobs: int = 1,
    usefulness_graphs: list[tuple[str, Any, int]] | None = None,
    log=print,
    progress: Any = None,
) -> dict[str, Any]:
    """Compute the three tables; returns ``{"table1": rows, "table2": rows, "table3": rows,
    "models": {...}, "graph": g}``. ``data`` is the ``enron-perry-wolfe`` folder (``None``:
    resolved by :func:`opendp_graph.datasets.data_path`). ``trials`` at the first ε, ``small_trials`` at the others;
    ``jobs`` worker processes run the trials (noise sampling dominates the run time).
    ``progress``: the fit, the calibration and the trials (:mod:`opendp_graph.core._progress`).
    ``usefulness_graphs``: ``(name, labelled graph, c)`` beside Enron for the table of
    :mod:`.pufferfish_usefulness` (ε = 1 and 10, δ in all; ``None``: no such table)."""
    import opendp.prelude as dp

    import opendp_graph as dpg
    from opendp_graph.pufferfish import BinomialModel, EdgeLevelModel, MarkovQuiltModel, fit_all
    from opendp_graph.transformations.labels import label_count_map, label_counts

    dp.enable_features("contrib", "honest-but-curious")
    t0 = time.perf_counter()
    g = dpg.datasets.load_enron(data)
    freq = np.asarray(g.labels.sum(axis=0)).ravel()
    order = np.lexsort((np.arange(freq.size), -freq))
    if vocabulary_size is not None:
        order = order[:vocabulary_size]
    vocab = [g.vocabulary[i] for i in order]
    log(
        f"Enron: {g.num_nodes} people, {g.num_edges} edges, {len(g.vocabulary)} n-grams, "
        f"{g.labels.nnz} (edge, n-gram) pairs, Dmax = {g.max_degree}; vocabulary used: {len(vocab)}"
    )

    t1 = time.perf_counter()
    models: dict[str, Any] = dict(fit_all(g, progress=progress))
    fit_seconds = time.perf_counter() - t1
    models["Edge-level"] = EdgeLevelModel()
    models["Group (trivial quilt)"] = MarkovQuiltModel.for_graph(g)
    models["Binomial (DP fit)"] = BinomialModel.fit_dp(g, dp.loss_of(epsilon=fit_epsilon), vocabulary=vocab, max_labels_per_edge=c)
    log(f"fitted Binomial, Global, Conditional and their W in {fit_seconds:.2f} s")

    table1 = [dict(r) for r in models["Conditional"].wasserstein().table]

    true_counts = label_counts(g, c, vocab)
    true_map = label_count_map(g, c, vocab if vocabulary_size is not None else None)
    table2, table3, tasks = [], [], []
    spaces = _spaces(g, models)
    calibrating = resolve_progress(progress, label="calibrating", unit="releases")
    calibrating.start(len(epsilons) * len(spaces))
    for k, eps in enumerate(epsilons):
        n_trials = trials if k == 0 else small_trials
        for name, W, domain, metric in spaces:
            extra = f" + ε_fit {fit_epsilon:g}" if name == "Binomial (DP fit)" else ""
            query = (domain, metric) >> dpg.then_label_counts(c, vocab)
            d_out = query.map(1)
            scale = d_out / eps
            meas = query >> dp.m.then_laplace(scale=scale)  # the release; its noise stage runs below
            spent = meas.map(1)
            table2.append(
                {
                    "epsilon": eps,
                    "notion": name,
                    "W": W if W is not None else "",
                    "sensitivity_L1": d_out,
                    "lambda": scale,
                    "lambda_paper_cW_over_eps": c * W / eps if W is not None else "",
                    "epsilon_spent": f"{spent:g}{extra}",
                    "trials": n_trials,
                    "data_dependent": bool(getattr(models.get(name), "data_dependent", False)),
                }
            )
            tasks.append(("laplace", scale, None, n_trials))
            # ---- Table 3: set union, scale and threshold searched for (ε, δ)
            tmap = (domain, metric) >> dpg.then_label_count_map(c, vocab if vocabulary_size is not None else None)
            # the smallest scale for ε, then the smallest threshold for δ; dpg's thresholded Laplace:
            # OpenDP 0.16 under-reports δ by e^{1/scale} (opendp_graph.measurements)
            try:
                s_star, th = dpg.calibrate_laplace_threshold(tmap, 1, eps, delta)
            except ValueError:
                raise CalibrationError(f"no noise scale and threshold give (ε, δ) = ({eps:g}, {delta:g}) for the {name} set union") from None
            mthr = tmap >> dpg.then_corrected_laplace_threshold(scale=s_star, threshold=th)
            e_spent, d_spent = mthr.map(1)
            table3.append(
                {
                    "epsilon": eps,
                    "notion": name,
                    "W": W if W is not None else "",
                    "l0_l1_linf": "/".join(str(v) for v in tmap.map(1)),
                    "scale": s_star,
                    "threshold": th,
                    "epsilon_spent": f"{e_spent:g}{extra}",
                    "delta": d_spent,
                    "trials": n_trials,
                }
            )
            tasks.append(("threshold", s_star, th, n_trials))
            calibrating.advance(1)
    calibrating.finish()
    jobs = min(jobs, len(tasks))
    log(f"calibrated {len(tasks)} releases; running their trials on {jobs} process(es)")
    trials_done = resolve_progress(progress, label="noise trials", unit="trials")
    trials_done.start(sum(task[-1] for task in tasks))
    if jobs > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with ProcessPoolExecutor(
            jobs, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_init, initargs=(true_counts, true_map)
        ) as pool:
            futures = {pool.submit(_noise_trials, task): task for task in tasks}
            for future in as_completed(futures):
                trials_done.advance(futures[future][-1])
            results = [future.result() for future in futures]  # in the order of the tasks
    else:
        _worker_init(true_counts, true_map)
        results = []
        for task in tasks:
            results.append(_noise_trials(task))
            trials_done.advance(task[-1])
    trials_done.finish()
    for i, (row2, row3) in enumerate(zip(table2, table3)):
        (yields, rmses), (released, _) = results[2 * i], results[2 * i + 1]
        y, ys = _stats(yields)
        r, rs = _stats(rmses)
        row2.update({"yield_mean": y, "yield_std": ys, "yield_pct": 100.0 * y / len(vocab), "rmse_mean": r, "rmse_std": rs})
        m_, s_ = _stats(released)
        row3.update({"yield_mean": m_, "yield_std": s_})
    usefulness = []
    if usefulness_graphs is not None:
        from .pufferfish_usefulness import usefulness_rows

        fitted = {name: models[name] for name in ("Binomial", "Global", "Conditional")}
        enron_vocab = vocab if vocabulary_size is not None else None  # the full run's set union reads every n-gram
        graphs = [("Enron n-grams", g, c, enron_vocab, fitted)] + [(name, h, h_c, None, None) for name, h, h_c in usefulness_graphs]
        useful = resolve_progress(progress, label="usefulness (ε = 1, 10)", unit="graphs")
        useful.start(len(graphs))
        for name, graph, graph_c, graph_vocab, graph_models in graphs:
            rows = usefulness_rows(graph, c=graph_c, vocab=graph_vocab, delta=delta, trials=small_trials, models=graph_models)
            usefulness += [{"graph": name, **row} for row in rows]
            useful.advance(1)
        useful.finish()
    log(f"done in {time.perf_counter() - t0:.0f} s")
    return {"table1": table1, "table2": table2, "table3": table3, "usefulness": usefulness, "models": models, "graph": g, "fit_seconds": fit_seconds}


def _print(rows: list[dict], title: str, columns: list[str], log=print) -> None:
    log("")
    log(title)

    def fmt(v):
        if isinstance(v, float):
            return f"{v:.4g}" if abs(v) < 1e5 else f"{v:.3e}"
        return str(v)

    cells = [[fmt(r[c]) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    log("  ".join(c.ljust(w) for c, w in zip(columns, widths)))
    for row in cells:
        log("  ".join(v.ljust(w) for v, w in zip(row, widths)))


def _write_csv(path: Path, rows: list[dict]) -> None:
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def _figures(result: dict, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from opendp_graph.pufferfish.plots import plot_bucket_table, plot_cdfs

    paths = []
    models = result["models"]
    fig, axes = plt.subplots(1, 3, figsize=(17, 4.5))
    plot_cdfs(models["Conditional"], ax=axes[0])
    plot_cdfs(models["Global"], ax=axes[1])
    plot_cdfs(models["Binomial"], ax=axes[2])
    fig.tight_layout()
    paths.append(out / "pufferfish_cdfs.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    plot_bucket_table(models["Conditional"], ax=ax)
    fig.tight_layout()
    paths.append(out / "pufferfish_table1.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    return paths


def _parser() -> ArgumentParser:
    parser = ArgumentParser(prog="python -m reproductions pufferfish", description=summary(__doc__))
    parser.add_argument(
        "--data",
        default=None,
        help="the enron-perry-wolfe folder, or one holding it (default: the data set as dpg.datasets.data_path "
        "resolves it; see `opendp-graph data list`)",
    )
    parser.add_argument("--out", default=None, help="folder for the CSV and PNG outputs (made if missing)")
    parser.add_argument("--quick", action="store_true", help="2,000 most frequent n-grams, ε = 100 only, 2 trials, 1 process (for tests)")
    parser.add_argument("--epsilons", type=positive_floats, default=(100.0, 1.0), help="comma-separated ε values, each > 0 (default 100,1)")
    parser.add_argument("--trials", type=positive_int, default=10, help="trials at the first ε, >= 1 (default 10)")
    parser.add_argument("--small-trials", type=positive_int, default=3, help="trials at the other ε values, >= 1 (default 3)")
    jobs = min(2, os.cpu_count() or 1)
    parser.add_argument("--jobs", type=positive_int, default=jobs, help=f"worker processes for the trials, >= 1 (default {jobs})")
    parser.add_argument("--c", type=positive_int, default=1000, help="properties counted per edge, >= 1 (default 1000, as in the paper)")
    return parser


def _deezer_graphs() -> list[tuple[str, Any, int]]:
    """The Deezer graphs with shared genres as edge properties (``c`` = every genre: nothing is
    displaced), if the ``deezer`` data set resolves; else none, and a note says why."""
    import opendp_graph as dpg
    from opendp_graph.datasets import DataUnavailableError

    try:
        folder = dpg.datasets.data_path("deezer")
    except DataUnavailableError as error:
        print(f"note: the Deezer rows of the usefulness table are skipped: {error.reason}")
        return []
    graphs = []
    for country in ("HU", "RO"):  # the countries the deezer data set holds
        graph = dpg.datasets.load_deezer(folder, country, labels="shared_genres")
        graphs.append((f"Deezer {country} genres", graph, len(graph.vocabulary)))
    return graphs


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    out = output_folder(parser, args.out)
    from opendp_graph.datasets._resolve import data_path

    try:
        data = data_path("enron-perry-wolfe", args.data)
    except (OSError, ValueError) as error:  # not found, a corrupted download, a bad $OPENDP_GRAPH_DOWNLOAD
        parser.error(f"argument --data: {error}" if args.data is not None else str(error))
    deezer = [] if args.quick else _deezer_graphs()
    try:
        if args.quick:
            result = run(data, epsilons=(100.0,), trials=2, small_trials=1, c=args.c, vocabulary_size=2000, jobs=1, usefulness_graphs=[])
        else:
            result = run(
                data, epsilons=args.epsilons, trials=args.trials, small_trials=args.small_trials, c=args.c, jobs=args.jobs, usefulness_graphs=deezer
            )
    except CalibrationError as error:
        parser.error(f"argument --epsilons: {error}")

    _print(
        result["table1"],
        "Table 1 — Conditional model per bucket (W∞ exact, in edges; paper-style = W∞/N · min(Nmax, 10^(b+1)))",
        ["log_freq", "log_size", "secrets_s1", "secrets_s0", "max_neighbourhood", "d_min", "d_max", "W_inf", "W_inf_fraction", "paper_style_W"],
    )
    _print(
        result["table2"],
        "Table 2 — histogram release (yield = noisy counts > 0; paper: Avocado, ε = 100, λ = cW/ε)",
        [
            "epsilon",
            "notion",
            "W",
            "sensitivity_L1",
            "lambda",
            "lambda_paper_cW_over_eps",
            "epsilon_spent",
            "trials",
            "yield_mean",
            "yield_std",
            "yield_pct",
            "rmse_mean",
            "rmse_std",
        ],
    )
    _print(
        result["table3"],
        "Table 3 — DP set union (released n-grams)",
        ["epsilon", "notion", "W", "l0_l1_linf", "scale", "threshold", "epsilon_spent", "delta", "trials", "yield_mean", "yield_std"],
    )
    _print(
        result["usefulness"],
        "Is it worth publishing? ε = 1 and 10, δ = 1e-6 in all (label counts: RMSE against the truth, counts clear of "
        "twice the 95 % half-width; set union: threshold, n-grams / genres released)",
        ["graph", "notion", "epsilon", "delta", "W", "scale", "rmse", "clear", "threshold", "released"],
    )
    print("\nPaper (Avocado, 393 people, 21,312 edges): Table 2 W/λ/yield/RMSE and Table 3 yield")
    for name, (w, lam, y, rmse) in PAPER_TABLE2.items():
        print(f"  {name:24s} W={w:<5} λ={lam:<8g} yield={y:<6} RMSE={rmse:<8g} DPSU yield={PAPER_TABLE3[name]}")
    print("\nNote: Binomial, Global and Conditional are fitted on the private graph (data-dependent noise, as in the paper).")
    if out is not None:
        keys = ("table1", "table2", "table3", "usefulness")
        written = [out / f"pufferfish_{key}.csv" for key in keys]
        for path, key in zip(written, keys):
            _write_csv(path, result[key])
        print()
        if can_plot():
            written += _figures(result, out)
        print_written(written)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
