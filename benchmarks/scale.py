"""Time and peak memory per stage of the single-machine engine at scale (issue 18's measurements).

Usage (from the repository root)::

    .venv/bin/python -m benchmarks.scale [--edges 10000000 30000000] [--rows 10000000] [--no-edge-lists] [--cold] [--json PATH]

Each size runs in a process of its own, stage after stage, as a data owner would: the synthetic
heavy-tailed graph of the other benchmarks (:func:`opendp_graph.datasets.synthetic_labeled_graph`,
100 properties, about 3 per edge) is taken apart into raw arrays (edges in a random order and
orientation, labels as a COO matrix), then

1. ``build``: ``Graph.from_arrays`` from those arrays (which are part of the stage's memory);
2. ``fit``: ``pufferfish.fit_all`` on the graph (the arrays dropped);
3. ``W``: every model's ``wasserstein()``;
4. ``queries``: the degree histogram (1001 bins) and the label counts (c = 3), exact.

Then, in a process of its own, building from edge lists as a Python user would:

5. ``from_edges``: ``Graph.from_edges(src, dst, num_nodes)`` from the endpoint arrays (int64,
   part of the stage's memory), no labels;
6. ``from_edges_labels``: the same with ``labels=`` one Python list of strings per edge. Those
   lists are part of the figure; their own size (``sys.getsizeof`` of the lists, about 90 bytes
   per edge at 3 labels) is reported beside it.

``--rows`` adds the message-log stage, in a process of its own: a Parquet log of that many
messages (one word each, 500 words, Zipf(1.3); 8 messages per person on average) is written, and
``dpg.polars.graph_from_polars(pl.scan_parquet(...), labels=...)`` timed.

**What is measured.** Wall time (``time.perf_counter``, one run) and the peak resident size of
the process during the stage (``VmHWM`` after a reset through ``/proc/self/clear_refs``), less the
resident size of the interpreter and libraries before the data existed: so the figure includes
the graph and the stage's inputs, not Python itself. Bytes per edge (per row for the log) are
that peak divided by the edges (rows). The graph at rest is the bytes of its arrays.

Before that baseline each process runs every stage once on a tiny graph (:func:`_warm_up`), so
that loading the compiled kernels from Numba's cache (about 100-150 MiB, once per process,
whatever the size of the data) is not charged to the first stage that uses them; that fixed
cost is measured and reported on its own (``fixed_mib``).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.run import _reset_peak, _status_kib

REPO = Path(__file__).resolve().parents[1]
_MARK = "@@SCALE-BENCHMARK@@"


def _resident_mib() -> float:
    return (_status_kib("VmRSS") or 0) / 1024


def _stage(rows: dict, key: str, base_mib: float, per: int, fn, *args, **kwargs):
    gc.collect()
    exact = _reset_peak()
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    wall = time.perf_counter() - t0
    peak = (_status_kib("VmHWM") or 0) / 1024 - base_mib
    rows[key] = {"wall_s": round(wall, 2), "peak_mib": round(peak, 1), "bytes_per_unit": round(peak * 2**20 / max(per, 1), 1), "peak_is_per_stage": exact}
    print(f"[scale] {key}: {wall:.2f} s, peak {peak:,.0f} MiB above the interpreter ({rows[key]['bytes_per_unit']} B per unit)", file=sys.stderr, flush=True)
    return out


def _warm_up() -> float | None:
    """Every stage once on a tiny graph and a tiny message table: the compiled kernels are
    loaded (from Numba's on-disk cache). Returns the resident MiB that added (``None`` with
    ``--cold``, which skips it: the first stage to use a kernel then pays for loading it)."""
    if os.environ.get("OPENDP_GRAPH_SCALE_COLD"):
        return None
    import numpy as np
    import opendp.prelude as dp
    import polars as pl

    import opendp_graph as dpg

    dp.enable_features("contrib", "honest-but-curious")
    before = _resident_mib()
    syn = dpg.datasets.synthetic_labeled_graph(2000, seed=0, num_properties=20, labels_per_edge=3.0)
    g = syn.graph
    g = dpg.Graph.from_arrays(g.src.astype(np.int32), g.dst.astype(np.int32), g.num_nodes, label_matrix=g.labels, vocabulary=list(g.vocabulary))
    dpg.Graph.from_edges(g.src, g.dst, g.num_nodes, labels=[sorted(s) for s in g.label_sets()])
    for model in dpg.pufferfish.fit_all(g, progress=False).values():
        model.wasserstein()
    space = dpg.graph_domain(labeled=True), dpg.edge_distance()
    (space >> dpg.then_degree_histogram(max_degree=10))(g)
    (space >> dpg.then_label_counts(max_labels_per_edge=3, vocabulary=list(g.vocabulary)))(g)
    log = pl.DataFrame({"s": g.src, "r": g.dst, "w": [min(s) if s else None for s in g.label_sets()]})
    dpg.polars.graph_from_polars(log.lazy(), src="s", dst="r", labels="w", nodes=list(range(g.num_nodes)))
    gc.collect()
    return max(_resident_mib() - before, 0.0)


def _raw_input(edges: int):
    """The synthetic graph taken apart as a data owner would hold it: ``(n, src, dst, labels,
    vocabulary)``, edges in a random order and orientation, labels a CSR matrix in that order.
    The graph itself is dropped."""
    import numpy as np
    import scipy.sparse as sp

    import opendp_graph as dpg

    g = dpg.datasets.synthetic_labeled_graph(edges, seed=0, num_properties=100, labels_per_edge=3.0).graph
    rng = np.random.default_rng(1)
    order = rng.permutation(g.num_edges)
    flip = rng.random(g.num_edges) < 0.5
    src = np.where(flip, g.dst, g.src)[order]
    dst = np.where(flip, g.src, g.dst)[order]
    return g.num_nodes, src, dst, sp.csr_array(g.labels)[order], list(g.vocabulary)


def worker_graph(edges: int) -> dict:
    import opendp.prelude as dp

    import opendp_graph as dpg

    dp.enable_features("contrib", "honest-but-curious")
    fixed = _warm_up()
    base = _resident_mib()
    n, src, dst, labels, vocab = _raw_input(edges)
    labels = labels.tocoo()
    E, pairs = src.size, int(labels.nnz)
    gc.collect()
    base = min(base, _resident_mib())  # the interpreter alone; the raw arrays count in the build
    rows: dict = {}
    graph = _stage(rows, "build", base, E, dpg.Graph.from_arrays, src, dst, n, label_matrix=labels, vocabulary=vocab)
    del src, dst, labels
    gc.collect()
    at_rest = sum(a.nbytes for a in (graph.src, graph.dst, graph.labels.data, graph.labels.indices, graph.labels.indptr))
    models = _stage(rows, "fit", base, E, dpg.pufferfish.fit_all, graph, progress=False)
    _stage(rows, "W", base, E, lambda: {name: int(m.wasserstein().W) for name, m in models.items()})  # noqa: F821 (called before the del below)
    del models
    space = dpg.graph_domain(labeled=True), dpg.edge_distance()
    histogram = space >> dpg.then_degree_histogram(max_degree=1000)
    counts = space >> dpg.then_label_counts(max_labels_per_edge=3, vocabulary=vocab)
    _stage(rows, "queries", base, E, lambda: (histogram(graph), counts(graph)))
    return {"edges": E, "nodes": n, "pairs": pairs, "at_rest_bytes_per_edge": round(at_rest / E, 1), "fixed_mib": None if fixed is None else round(fixed, 1), "stages": rows}


def worker_edges(edges: int) -> dict:
    """Stages 5 and 6 (module docstring): ``Graph.from_edges`` without and with label lists."""
    import numpy as np

    import opendp_graph as dpg

    fixed = _warm_up()
    base = _resident_mib()
    n, src, dst, labels, vocab = _raw_input(edges)
    E, words = src.size, np.array(vocab, dtype=object)
    gc.collect()
    base = min(base, _resident_mib())
    rows: dict = {}
    graph = _stage(rows, "from_edges", base, E, dpg.Graph.from_edges, src, dst, n)
    del graph
    flat = words[labels.indices].tolist()
    lists = [flat[a:b] for a, b in zip(labels.indptr[:-1].tolist(), labels.indptr[1:].tolist())]
    del labels, flat
    list_bytes = sys.getsizeof(lists) + sum(map(sys.getsizeof, lists))  # the words are 100 shared strings
    _stage(rows, "from_edges_labels", base, E, dpg.Graph.from_edges, src, dst, n, labels=lists)
    rows["from_edges_labels"]["input_lists_bytes_per_edge"] = round(list_bytes / E, 1)
    return {"edges": E, "nodes": n, "fixed_mib": None if fixed is None else round(fixed, 1), "stages": rows}


def worker_log(rows_count: int, path: str) -> dict:
    import numpy as np
    import polars as pl

    import opendp_graph as dpg

    fixed = _warm_up()
    base = _resident_mib()
    people = max(rows_count // 8, 2)
    if not os.path.exists(path):
        rng = np.random.default_rng(0)
        s = rng.integers(0, people, rows_count)
        r = (s + rng.integers(1, people, rows_count)) % people  # never the sender
        words = np.array([f"w{i:03d}" for i in range(500)])
        w = words[np.minimum(rng.zipf(1.3, rows_count) - 1, 499)]
        pl.DataFrame({"sender": s, "recipient": r, "word": w}).write_parquet(path)
        del s, r, w
        gc.collect()
        base = min(base, _resident_mib())
    nodes = list(range(people))
    stages: dict = {}
    graph = _stage(stages, "from_parquet_log", base, rows_count, dpg.polars.graph_from_polars, pl.scan_parquet(path), src="sender", dst="recipient", labels="word", nodes=nodes)
    return {"rows": rows_count, "people": people, "edges": graph.num_edges, "fixed_mib": None if fixed is None else round(fixed, 1), "stages": stages}


def _spawn(kind: str, arg: dict, timeout: float) -> dict:
    cmd = [sys.executable, "-m", "benchmarks.scale", "--worker", kind, "--config", json.dumps(arg)]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=timeout)
    sys.stderr.write(proc.stderr)
    for line in proc.stdout.splitlines():
        if line.startswith(_MARK):
            return json.loads(line[len(_MARK) :])
    return {"error": f"exit {proc.returncode}: " + " | ".join(proc.stderr.strip().splitlines()[-3:])}


def markdown(report: dict) -> str:
    lines = ["| graph | stage | wall s | peak above the interpreter | bytes per edge (row) |", "|---|---|---|---|---|"]
    for size in report["sizes"]:
        if "error" in size:
            lines.append(f"| {size.get('edges_requested', '?'):,} edges | ERROR | {size['error']} | | |")
            continue
        label = f"{size['edges']:,} edges, {size['pairs']:,} pairs (at rest {size['at_rest_bytes_per_edge']} B/edge)"
        for key, s in size["stages"].items():
            lines.append(f"| {label} | {key} | {s['wall_s']} | {s['peak_mib']:,.0f} MiB | {s['bytes_per_unit']} |")
        for key, s in size.get("from_edges", {}).get("stages", {}).items():
            extra = f" (the label lists alone: {s['input_lists_bytes_per_edge']} B/edge)" if "input_lists_bytes_per_edge" in s else ""
            lines.append(f"| {label} | {key}{extra} | {s['wall_s']} | {s['peak_mib']:,.0f} MiB | {s['bytes_per_unit']} |")
    log = report.get("log")
    if log and "error" not in log:
        s = log["stages"]["from_parquet_log"]
        lines.append(f"| Parquet log, {log['rows']:,} rows ({log['edges']:,} edges) | graph_from_polars(scan_parquet) | {s['wall_s']} | {s['peak_mib']:,.0f} MiB | {s['bytes_per_unit']} |")
    fixed = sorted({r["fixed_mib"] for r in [*report["sizes"], *[s.get("from_edges", {}) for s in report["sizes"]], log or {}] if r.get("fixed_mib") is not None})
    if fixed:
        lines.append("")
        lines.append(f"Not in the figures: loading the compiled kernels, {fixed[0]:,.0f}-{fixed[-1]:,.0f} MiB once per process (warm-up).")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.scale", description=__doc__.split("\n\n")[0])
    parser.add_argument("--edges", type=int, nargs="*", default=[10_000_000, 30_000_000], help="graph sizes (default 10 M and 30 M edges)")
    parser.add_argument("--rows", type=int, default=10_000_000, help="rows of the Parquet message log (0: no log stage)")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds allowed per process")
    parser.add_argument("--json", default=None, help="also write the report (JSON) here")
    parser.add_argument("--no-edge-lists", action="store_true", help="skip the Graph.from_edges stages")
    parser.add_argument("--cold", action="store_true", help="no warm-up: each stage also pays for loading the compiled kernels it uses first")
    parser.add_argument("--worker", choices=("graph", "edges", "log"), help=argparse.SUPPRESS)
    parser.add_argument("--config", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker == "graph":
        print(_MARK + json.dumps(worker_graph(int(json.loads(args.config)["edges"]))), flush=True)
        return 0
    if args.worker == "edges":
        print(_MARK + json.dumps(worker_edges(int(json.loads(args.config)["edges"]))), flush=True)
        return 0
    if args.worker == "log":
        cfg = json.loads(args.config)
        print(_MARK + json.dumps(worker_log(int(cfg["rows"]), cfg["path"])), flush=True)
        return 0
    if any(e < 1 for e in args.edges) or args.rows < 0:
        parser.error("--edges must be positive and --rows non-negative")
    if args.cold:
        os.environ["OPENDP_GRAPH_SCALE_COLD"] = "1"  # read by the workers (_warm_up)
    report: dict = {"command": " ".join(["python", "-m", "benchmarks.scale", *(argv if argv is not None else sys.argv[1:])]), "sizes": []}
    for edges in args.edges:
        print(f"[scale] {edges:,} edges ...", file=sys.stderr, flush=True)
        out = _spawn("graph", {"edges": edges}, args.timeout)
        out.setdefault("edges_requested", edges)
        if not args.no_edge_lists and "error" not in out:
            print(f"[scale] {edges:,} edges from edge lists ...", file=sys.stderr, flush=True)
            out["from_edges"] = _spawn("edges", {"edges": edges}, args.timeout)
        report["sizes"].append(out)
    if args.rows:
        with tempfile.TemporaryDirectory() as folder:
            print(f"[scale] Parquet log of {args.rows:,} rows ...", file=sys.stderr, flush=True)
            path = os.path.join(folder, "log.parquet")
            # the log is written by a process of its own, then read by a fresh one
            first = _spawn("log", {"rows": args.rows, "path": path}, args.timeout)
            report["log"] = _spawn("log", {"rows": args.rows, "path": path}, args.timeout) if "error" not in first else first
    text = markdown(report)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(text)
    failed = any("error" in s or "error" in s.get("from_edges", {}) for s in report["sizes"]) or "error" in report.get("log", {})
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
