"""Reproduction of Nassar et al., *VIP Blowfish Privacy in Communication Graphs*, §4, on the
Deezer friendship graphs of Hungary (HU) and Romania (RO).

``python -m reproductions blowfish [--data <folder>] [--out DIR] [--quick] [--countries HU,RO]``
(without ``--data`` the ``deezer`` data set is resolved by :func:`opendp_graph.datasets.data_path`)

1. **MSE of the complete and cumulative degree histograms** (§4.1–4.2, Figures 6–7) under the
   full and attribute policies (everyone protected), ε = 0.1 … 1.0, ``k = 10`` releases each, with
   the paper's closed forms (``32b/ε²``, ``8n²b/ε²``, ``8b/ε²``, ``2n²b/ε²``) next to ours.
2. **Sensitivity simulation** (§4.3, Figure 8): for vertices of different degrees, the largest
   ``‖H − H′‖₁`` seen when the vertex's ego network is taken out, redrawn at random (p = 0.5) or
   flipped, against the derived sensitivity and the take-out bound ``2(deg + 1)``.
3. **Extrapolation from standard people** (§4.4, Figure 9): the all-people degree histogram
   estimated as ``H_standard · n / n_standard`` from a release under the attribute VIP policy
   (sensitivity 2), as the VIP share grows, against a direct release of the complete histogram
   (sensitivity 4).

Every release goes through an OpenDP measurement built once per setting and invoked ``k`` times
(``dp.m.then_laplace``: discrete Laplace on the integer histograms). The random ego networks of
part 2 and the VIP sets of part 3 are drawn with numpy from a fixed seed: they are simulated
neighbours and a public policy choice, not noise in a release.

**Bins.** We use bins ``0..112`` (``b = 113``), the paper's ``b`` for HU and RO. The paper took
``b`` from the data (both graphs' maximum degree is 112); we fix it as a public constant (degrees
above 112 would be clamped into the last bin), so the releases do not depend on the data through
``b``.

**Where our figures differ from the paper's, and why.**

* The full policy's cumulative histogram: the paper's sensitivity ``n`` is wrong (see
  :mod:`opendp_graph.blowfish.rules`): a rewired vertex moves across up to ``n − 1`` entries by
  itself. With bins ``0..B`` the proven, attained figure is ``min(B, n − 1) + (n − 1)`` —
  ``n + 111`` here, so our closed form is ``2(n + 111)²b/ε²`` instead of ``2n²b/ε²`` (0.5 % higher
  at these ``n``). Part 2 shows the paper's ``n`` is exceeded on the real graphs: flipping the
  ego network of a low-degree vertex changes the cumulative histogram by more than ``n``.
* The complete histograms (``4`` and ``2n``) and the attribute cumulative histogram (``2``) are
  the paper's figures (all proven tight by brute force in the tests).
* The paper's closed forms use the continuous Laplace variance ``2(S/ε)²``; OpenDP adds discrete
  Laplace noise to integer counts, whose variance ``2e^{-1/t}/(1 − e^{-1/t})²`` (``t = S/ε``) is
  slightly smaller (``≈ 2t² − 1/6``). We print both. With ``k = 10`` the measured MSE has a
  relative standard deviation of about ``√(5/(k·b))`` ≈ 7 % (b = 113) around the discrete one.
* The sensitivity simulation (part 2) agrees with the paper that the full policy's ``2n`` is
  far from what rewiring a real vertex does to the complete histogram, but not with its remark
  that the random and flipped ego networks come "very close" to the cumulative figure ``n``: the
  flipped ego network lands near *our* ``2(n − 1)``, twice the paper's figure.
* HR (Croatia) is not available, so only HU and RO are reproduced; the paper gives its results
  as plots only, so we compare with its closed forms rather than with read-off numbers.

**Measured** (full run, ``python -m reproductions blowfish --data ../shared/data/deezer``, about
20 s on 2 cores; numpy seed 2021 for the simulated neighbours and VIP sets):

* Part 1: all 80 measured MSEs (2 countries × 4 settings × 10 ε) lie within 0.85–1.17 × the
  discrete closed form, e.g. HU attribute complete at ε = 1: 3,735 (closed form 3,597, paper
  3,616); HU full complete at ε = 1: 1.75·10¹² (2.04·10¹²). The full policy's errors are ~10⁹
  times the attribute policy's (``(2n/4)²`` for the complete histogram).
* Part 2 (HU, n = 47,538; RO, n = 41,773; degrees 1 … 112): take-out changes the complete
  histogram by at most ``2(deg + 1)`` (4 … 76) and the cumulative one by exactly ``2·deg``;
  random ego networks (p = 0.5) by about 3,900 (HU) / 5,800 (RO) and 47,800 / 42,100 (both
  *above* the paper's ``n``); flipped ego networks by 7,490 / 11,340 (complete, against
  ``2n`` = 95,076 / 83,546) and 94,630–95,070 / 83,100–83,540 (cumulative, against our
  ``2(n − 1)`` = 95,074 / 83,544 and the paper's ``n``). Single-edge changes reach the attribute
  figures 4 and 2 exactly.
* Part 3 (HU; RO is similar): the extrapolated histogram's bias (VIPs missing) is 290 at 1 %
  VIPs, 5,100 at 10 %, 32,900 at 50 %; against a direct complete release (``32b/ε²`` ≈ 361,600 at
  ε = 0.1, 3,597 at ε = 1) it wins up to 30 % VIPs at ε = 0.1, up to 10 % at ε = 0.5 and up to
  5 % at ε = 1. Like the paper's Figure 9, the error grows with the VIP share.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import time
from pathlib import Path

import numpy as np
import opendp.prelude as dp

from opendp_graph._cli_args import ArgumentParser, print_written
from opendp_graph.blowfish import BlowfishPolicy, blowfish_distance, standard_degree_histogram
from opendp_graph.blowfish.queries import then_standard_degree_histogram
from opendp_graph.core._progress import resolve_progress
from opendp_graph.core.domains import graph_domain
from opendp_graph.datasets._resolve import DataIntegrityError, DataUnavailableError, data_path
from opendp_graph.datasets.deezer import load_deezer
from opendp_graph.transformations import (
    cumulative_degree_histogram,
    degree_histogram,
    then_cumulative_degree_histogram,
    then_degree_histogram,
)

from ._command import can_plot, output_folder, summary

__all__ = ["main", "mse_experiment", "sensitivity_simulation", "extrapolation_experiment", "discrete_laplace_variance"]

BINS = 112  # last bin: b = 113 bins, the paper's figure for HU and RO
SEED = 2021


def discrete_laplace_variance(scale: float) -> float:
    """Variance of the discrete Laplace distribution ``P(x) ∝ exp(−|x|/scale)`` on the integers."""
    q = math.exp(-1.0 / scale)
    return 2.0 * q / (1.0 - q) ** 2


def _histogram_measurement(graph, policy: BlowfishPolicy, query: str, epsilon: float, bins: int):
    space = graph_domain(num_nodes=graph.num_nodes), blowfish_distance(policy)
    then = then_degree_histogram if query == "complete" else then_cumulative_degree_histogram
    t = space >> then(max_degree=bins)
    sensitivity = t.map(1)
    meas = t >> dp.m.then_laplace(scale=sensitivity / epsilon)
    _check_epsilon(meas, epsilon)
    return meas, sensitivity


def _check_epsilon(meas, epsilon: float) -> None:
    # OpenDP rounds the privacy map up, so S/(S/ε) may exceed ε in the last bits
    spent = meas.map(1)
    if not spent <= epsilon * (1 + 1e-9):
        raise AssertionError(f"measurement spends ε = {spent}, more than {epsilon}")


def mse_experiment(graph, country: str, epsilons, k: int, bins: int = BINS) -> list[dict]:
    """Part 1: measured MSE of ``k`` releases per (policy, histogram, ε), with closed forms."""
    n, b = graph.num_nodes, bins + 1
    truth = {"complete": np.asarray(degree_histogram(graph, bins)), "cumulative": np.asarray(cumulative_degree_histogram(graph, bins))}
    paper_sensitivity = {("attribute", "complete"): 4, ("full", "complete"): 2 * n, ("attribute", "cumulative"): 2, ("full", "cumulative"): n}
    rows = []
    for policy_name, policy in (("full", BlowfishPolicy.full(num_nodes=n)), ("attribute", BlowfishPolicy.attribute(num_nodes=n))):
        for query in ("complete", "cumulative"):
            for eps in epsilons:
                meas, sensitivity = _histogram_measurement(graph, policy, query, eps, bins)
                releases = np.asarray([meas(graph) for _ in range(k)], dtype=np.float64)
                mse = float(((releases - truth[query]) ** 2).mean(axis=0).sum())
                scale = sensitivity / eps
                rows.append(
                    {
                        "country": country,
                        "policy": policy_name,
                        "histogram": query,
                        "epsilon": round(eps, 10),
                        "k": k,
                        "bins": b,
                        "n": n,
                        "sensitivity": sensitivity,
                        "paper_sensitivity": paper_sensitivity[policy_name, query],
                        "mse_measured": mse,
                        "mse_closed_form": b * discrete_laplace_variance(scale),
                        "mse_paper_formula": b * 2 * (paper_sensitivity[policy_name, query] / eps) ** 2,
                    }
                )
    return rows


def _pick_vertices(degrees: np.ndarray, targets) -> list[int]:
    chosen = []
    for target in targets:
        v = int(np.argmin(np.abs(degrees - target)))
        if v not in chosen:
            chosen.append(v)
    return chosen


def _l1_changes(degrees: np.ndarray, v: int, old: np.ndarray, new: np.ndarray) -> tuple[int, int]:
    """``‖H − H′‖₁`` of the complete and cumulative (unclamped) histograms when ``v``'s
    neighbour mask goes from ``old`` to ``new``."""
    n = degrees.size
    gained, lost = new & ~old, old & ~new
    gained[v] = lost[v] = False
    changed = np.flatnonzero(gained | lost)
    before = np.concatenate([degrees[changed], [degrees[v]]])
    after = np.concatenate([degrees[changed] + gained[changed].astype(np.int64) - lost[changed].astype(np.int64), [int(new.sum())]])
    diff = np.bincount(after, minlength=n) - np.bincount(before, minlength=n)
    return int(np.abs(diff).sum()), int(np.abs(np.cumsum(diff)).sum())


def sensitivity_simulation(graph, country: str, targets, repeats: int, rng: np.random.Generator) -> list[dict]:
    """Part 2: largest L1 change of the (unclamped) complete and cumulative histograms for
    take-out, random (p = 0.5) and flipped ego networks, plus single-edge flips (attribute)."""
    n = graph.num_nodes
    degrees = graph.degrees.astype(np.int64)
    adjacency = graph.adjacency()
    rows = []
    for v in _pick_vertices(degrees, targets):
        old = np.zeros(n, dtype=bool)
        old[adjacency.indices[adjacency.indptr[v] : adjacency.indptr[v + 1]]] = True
        others = np.ones(n, dtype=bool)
        others[v] = False
        strategies = {
            "take-out": [np.zeros(n, dtype=bool)],
            "random ego network (p=0.5)": [(rng.random(n) < 0.5) & others for _ in range(repeats)],
            "flipped ego network": [~old & others],
        }
        flips = []
        for u in rng.choice(np.flatnonzero(others), size=min(repeats, n - 1), replace=False):
            flipped = old.copy()
            flipped[u] = ~flipped[u]
            flips.append(flipped)
        strategies["one edge (attribute)"] = flips
        for name, candidates in strategies.items():
            changes = np.asarray([_l1_changes(degrees, v, old, new) for new in candidates])
            full = name != "one edge (attribute)"
            rows.append(
                {
                    "country": country,
                    "vertex": v,
                    "degree": int(degrees[v]),
                    "strategy": name,
                    "samples": len(candidates),
                    "max_l1_complete": int(changes[:, 0].max()),
                    "max_l1_cumulative": int(changes[:, 1].max()),
                    "derived_complete": 2 * n if full else 4,
                    "derived_cumulative": 2 * (n - 1) if full else 2,
                    "paper_cumulative": n if full else 2,
                    "takeout_bound": 2 * (int(degrees[v]) + 1),
                }
            )
    return rows


def extrapolation_experiment(graph, country: str, shares, epsilons, k: int, rng: np.random.Generator, bins: int = BINS) -> list[dict]:
    """Part 3: MSE of ``H_standard · n / n_standard`` against the all-people histogram."""
    n, b = graph.num_nodes, bins + 1
    truth = np.asarray(degree_histogram(graph, bins), dtype=np.float64)
    rows = []
    for share in shares:
        size = max(1, int(round(share * n)))
        vip = np.sort(rng.choice(n, size=size, replace=False))
        policy = BlowfishPolicy.attribute(vip=vip.tolist(), num_nodes=n)
        space = graph_domain(num_nodes=n), blowfish_distance(policy)
        query = space >> then_standard_degree_histogram(max_degree=bins)
        sensitivity = query.map(1)
        factor = n / (n - size)
        exact = np.asarray(standard_degree_histogram(graph, vip.tolist(), bins), dtype=np.float64) * factor
        bias = float(((exact - truth) ** 2).sum())
        for eps in epsilons:
            meas = query >> dp.m.then_laplace(scale=sensitivity / eps)
            _check_epsilon(meas, eps)
            releases = np.asarray([meas(graph) for _ in range(k)], dtype=np.float64) * factor
            rows.append(
                {
                    "country": country,
                    "vip_share": share,
                    "vips": size,
                    "epsilon": round(eps, 10),
                    "k": k,
                    "sensitivity": sensitivity,
                    "mse_extrapolated": float(((releases - truth) ** 2).mean(axis=0).sum()),
                    "mse_expected": bias + factor**2 * b * discrete_laplace_variance(sensitivity / eps),
                    "bias_part": bias,
                    "mse_direct_complete": b * discrete_laplace_variance(4 / eps),
                }
            )
    return rows


def _write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def _print_table(title: str, rows: list[dict], columns: list[str], stream) -> None:
    print(f"\n{title}", file=stream)
    widths = [max(len(c), *(len(_fmt(r[c])) for r in rows)) for c in columns]
    print("  ".join(c.rjust(w) for c, w in zip(columns, widths)), file=stream)
    for r in rows:
        print("  ".join(_fmt(r[c]).rjust(w) for c, w in zip(columns, widths)), file=stream)


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _plots(out: Path, mse: list[dict], sim: list[dict], extra: list[dict]) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    fig, axes = plt.subplots(1, 4, figsize=(18, 4))
    for ax, (policy, query) in zip(axes, [("full", "complete"), ("attribute", "complete"), ("full", "cumulative"), ("attribute", "cumulative")]):
        for country in sorted({r["country"] for r in mse}):
            sel = [r for r in mse if r["country"] == country and r["policy"] == policy and r["histogram"] == query]
            eps = [r["epsilon"] for r in sel]
            ax.plot(eps, [r["mse_measured"] for r in sel], "o", label=f"{country} measured")
            ax.plot(eps, [r["mse_closed_form"] for r in sel], "-", label=f"{country} ours")
            ax.plot(eps, [r["mse_paper_formula"] for r in sel], ":", label=f"{country} paper")
        ax.set_yscale("log")
        ax.set_xlabel("ε")
        ax.set_title(f"{policy} policy, {query} histogram")
    axes[0].set_ylabel("MSE")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    written.append(out / "blowfish_mse.png")
    fig.savefig(written[-1], dpi=100)
    plt.close(fig)

    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    for ax, key, derived, paper in [
        (axes[0], "max_l1_complete", "derived_complete", None),
        (axes[1], "max_l1_cumulative", "derived_cumulative", "paper_cumulative"),
    ]:
        for country in sorted({r["country"] for r in sim}):
            for strategy in ("take-out", "random ego network (p=0.5)", "flipped ego network"):
                sel = sorted((r for r in sim if r["country"] == country and r["strategy"] == strategy), key=lambda r: r["degree"])
                ax.plot([r["degree"] for r in sel], [r[key] for r in sel], "o-", label=f"{country} {strategy}")
            sel = sorted((r for r in sim if r["country"] == country and r["strategy"] == "take-out"), key=lambda r: r["degree"])
            ax.plot([r["degree"] for r in sel], [r[derived] for r in sel], "k--", label=f"{country} derived")
            if paper:
                ax.plot([r["degree"] for r in sel], [r[paper] for r in sel], "r:", label=f"{country} paper (n)")
            ax.plot([r["degree"] for r in sel], [r["takeout_bound"] for r in sel], "g-.", label=f"{country} 2(deg+1)")
        ax.set_yscale("log")
        ax.set_xlabel("vertex degree")
        ax.set_ylabel("max ‖H − H′‖₁")
        ax.set_title("complete histogram" if paper is None else "cumulative histogram")
    axes[0].legend(fontsize=6)
    fig.tight_layout()
    written.append(out / "blowfish_sensitivity.png")
    fig.savefig(written[-1], dpi=100)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(6, 4))
    for country in sorted({r["country"] for r in extra}):
        for eps in sorted({r["epsilon"] for r in extra}):
            sel = [r for r in extra if r["country"] == country and r["epsilon"] == eps]
            ax.plot([100 * r["vip_share"] for r in sel], [r["mse_extrapolated"] for r in sel], "o-", label=f"{country} ε={eps}")
            ax.axhline(sel[0]["mse_direct_complete"], linestyle=":", color="grey")
    ax.set_yscale("log")
    ax.set_xlabel("VIP share (%)")
    ax.set_ylabel("MSE vs complete histogram")
    ax.set_title("extrapolation from standard people (dotted: direct release)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    written.append(out / "blowfish_extrapolation.png")
    fig.savefig(written[-1], dpi=100)
    plt.close(fig)
    return written


def _countries(text: str) -> list[str]:
    """``--countries``: comma-separated country codes, upper-cased."""
    codes = [c.strip().upper() for c in text.split(",")]
    if not all(c.isalpha() for c in codes):
        raise argparse.ArgumentTypeError(f"must be comma-separated country codes such as HU,RO, got {text!r}")
    return codes


def _parser() -> ArgumentParser:
    parser = ArgumentParser(prog="python -m reproductions blowfish", description=summary(__doc__))
    parser.add_argument(
        "--data",
        default=None,
        help="folder with HU_edges.csv and RO_edges.csv, or one holding deezer/ (default: the deezer data set as "
        "dpg.datasets.data_path resolves it; see `opendp-graph data list`)",
    )
    parser.add_argument("--out", default=None, help="folder for the CSV and PNG outputs (made if missing)")
    parser.add_argument("--countries", type=_countries, default="HU,RO", help="comma-separated country codes (default HU,RO)")
    parser.add_argument("--quick", action="store_true", help="a few ε values, k = 2 and fewer vertices (for tests)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    out = output_folder(parser, args.out)

    dp.enable_features("contrib", "honest-but-curious")
    if args.data is None:
        try:
            data = data_path("deezer")
        except (DataUnavailableError, DataIntegrityError) as error:
            print(f"{parser.prog}: error: {error}", file=sys.stderr)
            return 2
    else:
        data = Path(args.data)
        if (data / "deezer").is_dir() and not any(data.glob("*_edges.csv")):
            data = data / "deezer"
    graphs = {}
    for country in dict.fromkeys(args.countries):  # every graph loads before the work: a missing one fails fast
        try:
            graphs[country] = load_deezer(data, country)
        except (OSError, ValueError) as error:  # a missing or malformed file
            print(f"{parser.prog}: error: {error}", file=sys.stderr)
            return 2
    if args.quick:
        epsilons, k, targets, repeats, shares, ext_eps = [0.1, 1.0], 2, [1, 10, 112], 2, [0.1, 0.5], [1.0]
    else:
        epsilons = [round(0.1 * i, 1) for i in range(1, 11)]
        k, targets, repeats = 10, [1, 2, 5, 10, 20, 50, 80, 112], 20
        shares, ext_eps = [0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7], [0.1, 0.5, 1.0]
    rng = np.random.default_rng(SEED)
    mse, sim, extra = [], [], []
    started = time.perf_counter()
    report = resolve_progress(None, label="Blowfish (Deezer)", unit="parts")
    report.start(3 * len(graphs))
    for country, graph in graphs.items():
        print(f"{country}: {graph.num_nodes} nodes, {graph.num_edges} edges, max degree {graph.max_degree}")
        mse += mse_experiment(graph, country, epsilons, k)
        report.advance(1)
        sim += sensitivity_simulation(graph, country, targets, repeats, rng)
        report.advance(1)
        extra += extrapolation_experiment(graph, country, shares, ext_eps, k, rng)
        report.advance(1)
    report.finish()
    stream = sys.stdout
    _print_table(
        "1. MSE of degree histograms (b bins, k releases; closed forms: ours = b·Var[discrete Laplace(S/ε)], paper = 2b(S_paper/ε)²)",
        mse,
        ["country", "policy", "histogram", "epsilon", "sensitivity", "paper_sensitivity", "mse_measured", "mse_closed_form", "mse_paper_formula"],
        stream,
    )
    _print_table(
        "2. Sensitivity simulation under the full policy (unclamped histograms; max over samples)",
        sim,
        [
            "country",
            "vertex",
            "degree",
            "strategy",
            "max_l1_complete",
            "derived_complete",
            "max_l1_cumulative",
            "derived_cumulative",
            "paper_cumulative",
            "takeout_bound",
        ],
        stream,
    )
    _print_table(
        "3. Extrapolation of the complete histogram from standard people (attribute VIP policy)",
        extra,
        ["country", "vip_share", "epsilon", "sensitivity", "mse_extrapolated", "mse_expected", "bias_part", "mse_direct_complete"],
        stream,
    )
    print(f"\n({time.perf_counter() - started:.1f} s)")
    if out is not None:
        written = [out / "blowfish_mse.csv", out / "blowfish_sensitivity.csv", out / "blowfish_extrapolation.csv"]
        for path, rows in zip(written, (mse, sim, extra)):
            _write_csv(path, rows)
        if can_plot():
            written += _plots(out, mse, sim, extra)
        print_written(written)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
