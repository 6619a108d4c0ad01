"""Run the benchmark table of issue 7 and write ``results.json`` and ``results.md``.

Usage (from the repository root)::

    python -m benchmarks.run [--quick] [--out DIR] [--data DIR] [--scale X] [--only GROUP ...]

Groups (each in its own Python process):

* ``enron`` – fit the Binomial, Global and Conditional models and their W on the Enron graph
  (``dpg.datasets.load_enron``); target < 1 s. "Fit the three models" is timed as a user fitting
  all three would do it: one ``pufferfish.fit_all`` pass (the models share their sufficient
  statistics) followed by each model's ``wasserstein()``; the parts are reported separately.
* ``deezer`` – the same on Deezer HU, edges labelled with the genres both friends like; < 5 s.
* ``synthetic_fit`` – the same on a synthetic graph of 1 M edges / 3 M (edge, property) pairs
  (heavy-tailed degrees, :func:`opendp_graph.datasets.synthetic_labeled_graph`); < 10 s.
* ``synthetic_10m`` – the same at 10 M edges / 30 M pairs (< 120 s, peak memory < 12 GiB), then
  the foundation queries on that graph, each chained with OpenDP noise: edge count, degree
  histogram, cumulative degree histogram, label counts (all < 10 s), degree projection followed by
  a degree histogram (< 30 s), triangle count (< 60 s).
* ``speedup`` – the straightforward NetworkX Global model (:mod:`benchmarks.naive`) against
  ``GlobalModel.fit`` on a synthetic graph of 50 k edges, in the same process; target ≥ 100×.
  The two must give identical histograms and W (checked, reported as ``agree``). Then the
  engine's hard shape, :func:`benchmarks.data.skewed_text` (60 k edges, Pareto-tailed degrees,
  Zipf(1.3) labels over 500 words, 3 per edge), against issue 14's baseline, a per-edge
  ``Counter`` of the neighbouring edges' labels (:func:`benchmarks.naive.edge_counter_global_model`;
  target ≥ 100×), and, as a reference with no target, the stronger per-node-``Counter``
  algorithm (:func:`benchmarks.naive.counter_global_model`); ``agree`` checked the same way.

``--quick`` shrinks the synthetic sizes (5 k / 20 k edges, 2 k for the speed-ups) and the
repeats so the whole run fits in CI; ``--scale`` multiplies every synthetic size again. The
targets are stated for the full sizes, so such runs report "n/a" instead of met / missed for
the synthetic rows (the real data sets keep their verdicts).

What is timed: the wall-clock time of the call (``time.perf_counter``), median over repeats;
every repeat starts from a fresh ``Graph`` object over the same arrays, so no cached degree or
key array carries over from one repeat to the next. Data generation and loading are not timed
(their time is reported as ``setup_s``). Memory: the peak resident set size of the process
during the case (``VmHWM`` after resetting it through ``/proc/self/clear_refs``), which includes
the graph itself; ``base_rss_mib`` is the resident size before the case.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
GROUPS = ("enron", "deezer", "synthetic_fit", "synthetic_10m", "speedup")
_MARK = "@@BENCHMARK-RESULT@@"

FULL = {
    "fit_small": 1_000_000,
    "fit_large": 10_000_000,
    "speedup_edges": 50_000,
    "skewed_edges": 60_000,
    "repeats": 3,
    "repeats_small": 5,
    "naive_repeats": 3,
    "fast_repeats": 21,
    "min_limit_s": 300.0,
}
SYNTHETIC_GROUPS = ("synthetic_fit", "synthetic_10m", "speedup")  # sizes set by FULL / QUICK / --scale
SIZE_KEYS = ("fit_small", "fit_large", "speedup_edges", "skewed_edges")
QUICK = {
    "fit_small": 5_000,
    "fit_large": 20_000,
    "speedup_edges": 2_000,
    "skewed_edges": 2_000,
    "repeats": 2,
    "repeats_small": 2,
    "naive_repeats": 1,
    "fast_repeats": 3,
    "min_limit_s": 60.0,
}


# ============================================================================ measurement
def _status_kib(field: str, pid: int | str = "self") -> int | None:
    """A ``kB`` field of ``/proc/<pid>/status`` (``None`` off Linux or for a gone process)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak(pid: int | str = "self") -> bool:
    """Reset ``VmHWM`` of a process to its current resident size (Linux ≥ 4.0, same user)."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _peak_mib() -> float:
    hwm = _status_kib("VmHWM")
    if hwm is None:  # not Linux: the lifetime peak of the process
        import resource

        hwm = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        if sys.platform == "darwin":
            hwm //= 1024
    return hwm / 1024


class CaseTimeout(Exception):
    """A run exceeded its time limit (raised by SIGALRM between Python bytecodes)."""


_FIRED = [False]


def _alarm(_signum, _frame):
    _FIRED[0] = True
    raise CaseTimeout()


def measure(fn: Callable[..., Any], repeats: int, prepare: Callable[[], Any] | None = None, *, limit_s: float | None = None, budget_s: float | None = None) -> dict:
    """Run ``fn(prepare())`` (or ``fn()``) up to ``repeats`` times; median wall time and peak RSS.

    ``limit_s``: a run still going after this long is aborted (``aborted_after_s`` is set; the
    case then counts as missing its target, with the limit as a lower bound on its time).
    ``budget_s``: no new repeat starts once the runs so far have taken this long (at least one run).
    """
    import signal

    gc.collect()
    base = (_status_kib("VmRSS") or 0) / 1024
    exact_peak = _reset_peak()
    times, result, aborted = [], None, None
    use_alarm = limit_s is not None and hasattr(signal, "SIGALRM")
    for _ in range(repeats):
        if times and budget_s is not None and sum(times) >= budget_s:
            break
        arg = prepare() if prepare is not None else None
        gc.collect()
        if use_alarm:
            previous = signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, float(limit_s))
        t0 = time.perf_counter()
        _FIRED[0] = False
        try:
            result = fn(arg) if prepare is not None else fn()
        except Exception as exc:
            # the timeout may surface wrapped, e.g. as an OpenDPException when it fires inside
            # a query function that OpenDP calls back into
            if not (_FIRED[0] or isinstance(exc, CaseTimeout)):
                raise
            aborted = time.perf_counter() - t0
        finally:
            if use_alarm:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, previous)
        if aborted is not None:
            break
        times.append(time.perf_counter() - t0)
        del arg
    out = {
        "median_s": statistics.median(times) if times else (aborted or math.nan),
        "times_s": [round(t, 4) for t in times],
        "peak_rss_mib": round(_peak_mib(), 1),
        "base_rss_mib": round(base, 1),
        "peak_is_per_case": exact_peak,
        "result": result,
    }
    if aborted is not None:
        out["aborted_after_s"] = round(aborted, 1)
    return out


def _fresh(graph):
    """A new Graph object over the same (read-only) arrays: no cached degrees or keys."""
    from opendp_graph.core.graph import Graph

    return Graph._from_canonical(
        num_nodes=graph.num_nodes,
        src=graph.src,
        dst=graph.dst,
        labels=graph.labels,
        vocabulary=graph.vocabulary,
        node_ids=graph.node_ids,
    )


def _case(group: str, name: str, work: str, size: str, target_s: float | None, m: dict, *, target_mib: float | None = None, **extra) -> dict:
    met = None
    if target_s is not None:
        met = m["median_s"] < target_s and "aborted_after_s" not in m
        if target_mib is not None:
            met = met and m["peak_rss_mib"] < target_mib
    row = {
        "group": group,
        "name": name,
        "work": work,
        "size": size,
        "target_s": target_s,
        "target_mib": target_mib,
        "median_s": round(m["median_s"], 4),
        "times_s": m["times_s"],
        "peak_rss_mib": m["peak_rss_mib"],
        "base_rss_mib": m["base_rss_mib"],
        "peak_is_per_case": m["peak_is_per_case"],
        "met": met,
    }
    if "aborted_after_s" in m:
        row["aborted_after_s"] = m["aborted_after_s"]
    row.update(extra)
    return row


# ============================================================================ model fitting
def _pufferfish():
    try:
        from opendp_graph import pufferfish as pf

        return pf if all(hasattr(pf, n) for n in ("BinomialModel", "GlobalModel", "ConditionalModel")) else None
    except Exception:  # pragma: no cover - only while the subpackage is missing
        return None


def _fit_three(graph, out: dict | None = None) -> dict:
    """Fit the three models and compute their W, as a user wanting all three would: one pass of
    ``pufferfish.fit_all`` (the models share their sufficient statistics), then each ``W``.
    Times are filled into ``out`` as they finish, so an aborted run still shows what was slow.
    Without ``fit_all``, each model is fitted on its own (``Model.fit``)."""
    pf = _pufferfish()
    out = {} if out is None else out
    t0 = time.perf_counter()
    if hasattr(pf, "fit_all"):
        models = pf.fit_all(graph)
        out["statistics"] = {"seconds": time.perf_counter() - t0}
        models = {type(m).__name__: m for m in models.values()}
    else:
        models = {}
        for cls in (pf.GlobalModel, pf.ConditionalModel, pf.BinomialModel):
            t1 = time.perf_counter()
            models[cls.__name__] = cls.fit(graph)
            out[f"{cls.__name__}.fit"] = {"seconds": time.perf_counter() - t1}
    for name in ("GlobalModel", "ConditionalModel", "BinomialModel"):
        model = models[name]
        info: dict = {}
        if hasattr(model, "p0"):
            info.update(p0=float(model.p0), p1=float(model.p1))
        out[f"{name}.W"] = info
        t1 = time.perf_counter()
        report = model.wasserstein()
        info.update(seconds=time.perf_counter() - t1, W=int(report.W))
    return out


def _fit_cases(group: str, label: str, size: str, graph, target_s: float, repeats: int, setup_s: float, *, target_mib=None, truth=None, cfg=None) -> list[dict]:
    pf = _pufferfish()
    if pf is None:
        return [{"group": group, "name": "fit_models", "work": "fit 3 models + W", "size": size, "skipped": "opendp_graph.pufferfish models not available"}]
    per_run: list[dict] = []

    def run(g):
        out: dict = {}
        per_run.append(out)
        return _fit_three(g, out)

    limit = max((cfg or {}).get("limit_scale", 5.0) * target_s, (cfg or {}).get("min_limit_s", 0.0))
    m = measure(run, repeats, prepare=lambda: _fresh(graph), limit_s=limit, budget_s=3 * target_s)
    rows = [
        _case(
            group,
            "fit_models",
            f"fit Binomial + Global + Conditional models and their W ({label})",
            size,
            target_s,
            m,
            target_mib=target_mib,
            setup_s=round(setup_s, 2),
        )
    ]
    # the parts, timed inside the same runs
    keys = []
    for r in per_run:
        keys.extend(k for k in r if k not in keys)
    for key in keys:
        done = [r[key] for r in per_run if "seconds" in r.get(key, {})]
        work = f"  of which {key}" + (" (shared statistics of the three models)" if key == "statistics" else "")
        if not done:
            partial = [r[key] for r in per_run if key in r]
            why = f"did not finish: the run was aborted after {m.get('aborted_after_s')} s"
            if partial and "p0" in partial[-1]:
                why += f" (p0={partial[-1]['p0']:.4f}, p1={partial[-1]['p1']:.4f})"
            rows.append({"group": group, "name": key, "work": work, "size": size, "met": False, "skipped": why})
            continue
        times = [d["seconds"] for d in done]
        sub = {
            "median_s": statistics.median(times),
            "times_s": [round(t, 4) for t in times],
            "peak_rss_mib": m["peak_rss_mib"],
            "base_rss_mib": m["base_rss_mib"],
            "peak_is_per_case": m["peak_is_per_case"],
        }
        extra = {k: done[-1][k] for k in ("W", "p0", "p1") if k in done[-1]}
        if "p0" in extra and truth is not None:
            extra.update(true_p0=float(truth[0]), true_p1=float(truth[1]))
        rows.append(_case(group, key, work, size, None, sub, **extra))
    return rows


def _fmt_edges(graph) -> str:
    e, pairs = graph.num_edges, graph.labels.nnz if graph.is_labeled else 0
    return f"{e:,} edges, {pairs:,} pairs, {len(graph.vocabulary or ()):,} properties"


def group_enron(cfg: dict) -> list[dict]:
    from benchmarks.data import data_folder

    try:
        folder = data_folder("enron-perry-wolfe", cfg["data"])
    except FileNotFoundError as e:
        return [{"group": "enron", "name": "fit_models", "skipped": f"no data: {e}"}]
    from benchmarks.data import load_enron_graph

    t0 = time.perf_counter()
    g = load_enron_graph(folder)
    setup = time.perf_counter() - t0
    return _fit_cases("enron", "Enron", _fmt_edges(g), g, 1.0, cfg["repeats_small"], setup, cfg=cfg)


def group_deezer(cfg: dict) -> list[dict]:
    from benchmarks.data import data_folder

    try:
        folder = data_folder("deezer", cfg["data"])
    except FileNotFoundError as e:
        return [{"group": "deezer", "name": "fit_models", "skipped": f"no data: {e}"}]
    from benchmarks.data import load_deezer_shared_genres

    t0 = time.perf_counter()
    g = load_deezer_shared_genres(folder, "HU")
    setup = time.perf_counter() - t0
    return _fit_cases("deezer", "Deezer HU, shared genres", _fmt_edges(g), g, 5.0, cfg["repeats_small"], setup, cfg=cfg)


def _synthetic(num_edges: int):
    from benchmarks.data import synthetic

    t0 = time.perf_counter()
    syn = synthetic(num_edges)
    return syn, time.perf_counter() - t0


def group_synthetic_fit(cfg: dict) -> list[dict]:
    syn, setup = _synthetic(cfg["fit_small"])
    g = syn.graph
    return _fit_cases(
        "synthetic_fit", "synthetic", _fmt_edges(g), g, 10.0, cfg["repeats"], setup, truth=(syn.p0, syn.p1), cfg=cfg
    )


# ============================================================================ foundation queries
def _foundation_cases(group: str, graph, repeats: int) -> list[dict]:
    import opendp.prelude as dp

    import opendp_graph as dpg

    dp.enable_features("contrib", "honest-but-curious")
    size = _fmt_edges(graph)
    labeled = graph.is_labeled
    space = dpg.graph_domain(labeled=labeled), dpg.edge_distance()
    bins = 1000
    queries = [
        ("edge_count", "edge count + Laplace", 10.0, space >> dpg.then_edge_count() >> dp.m.then_laplace(scale=1.0)),
        (
            "degree_histogram",
            f"degree histogram ({bins + 1} bins) + Laplace",
            10.0,
            space >> dpg.then_degree_histogram(max_degree=bins) >> dp.m.then_laplace(scale=4.0),
        ),
        (
            "cumulative_degree_histogram",
            f"cumulative degree histogram ({bins + 1} bins) + Laplace",
            10.0,
            space >> dpg.then_cumulative_degree_histogram(max_degree=bins) >> dp.m.then_laplace(scale=float(2 * bins)),
        ),
    ]
    if labeled:
        vocab = list(graph.vocabulary)
        queries.append(
            (
                "label_counts",
                f"label counts (c = 3, {len(vocab)} properties) + Laplace",
                10.0,
                space >> dpg.then_label_counts(max_labels_per_edge=3, vocabulary=vocab) >> dp.m.then_laplace(scale=3.0),
            )
        )
        queries.append(
            (
                "label_count_map",
                "label count map (c = 3) + Laplace threshold",
                10.0,
                space
                >> dpg.then_label_count_map(max_labels_per_edge=3)
                >> dp.m.then_laplace_threshold(scale=3.0, threshold=100),
            )
        )
    theta = 100
    node_space = dpg.graph_domain(labeled=labeled), dpg.node_distance()
    queries.append(
        (
            "degree_projection",
            f"degree projection (θ = {theta}) + degree histogram + Laplace",
            30.0,
            node_space
            >> dpg.then_degree_projection(max_degree=theta)
            >> dpg.then_degree_histogram()
            >> dp.m.then_laplace(scale=float(4 * theta)),
        )
    )
    n = graph.num_nodes
    tri_space = dpg.graph_domain(num_nodes=n, labeled=labeled), dpg.edge_distance()
    queries.append(
        (
            "triangle_count",
            "triangle count + Laplace",
            60.0,
            tri_space >> dpg.then_triangle_count() >> dp.m.then_laplace(scale=float(max(n - 2, 1))),
        )
    )
    rows = []
    for name, work, target, meas in queries:
        try:
            m = measure(lambda g, meas=meas: meas(g), repeats, prepare=lambda: _fresh(graph), limit_s=5 * target, budget_s=3 * target)
        except Exception as exc:  # one failing query must not hide the others' results
            rows.append({"group": group, "name": name, "work": work, "size": size, "error": f"{type(exc).__name__}: {str(exc)[-300:]}"})
            continue
        m["result"] = None
        rows.append(_case(group, name, work, size, target, m))
    return rows


def group_synthetic_10m(cfg: dict) -> list[dict]:
    syn, setup = _synthetic(cfg["fit_large"])
    g = syn.graph
    rows = _fit_cases(
        "synthetic_10m",
        "synthetic",
        _fmt_edges(g),
        g,
        120.0,
        cfg["repeats"],
        setup,
        target_mib=12 * 1024,
        truth=(syn.p0, syn.p1),
        cfg=cfg,
    )
    rows.extend(_foundation_cases("synthetic_10m", g, cfg["repeats"]))
    return rows


# ============================================================================ speed-up
def group_speedup(cfg: dict) -> list[dict]:
    import numpy as np

    from benchmarks.naive import naive_global_model

    pf = _pufferfish()
    syn, setup = _synthetic(cfg["speedup_edges"])
    g = syn.graph
    size = _fmt_edges(g)
    t0 = time.perf_counter()
    nxg = g.to_networkx()
    convert = time.perf_counter() - t0
    vocab = g.vocabulary
    naive = measure(lambda: naive_global_model(nxg, vocab), cfg["naive_repeats"])
    h0, h1, w_naive = naive["result"]
    naive["result"] = None
    rows = [
        _case(
            "speedup",
            "naive_global",
            "naive NetworkX Global model (per-edge neighbourhood scans) + W",
            size,
            None,
            naive,
            W=int(w_naive),
            to_networkx_s=round(convert, 3),
        )
    ]
    if pf is None:
        rows.append({"group": "speedup", "name": "fast_global", "skipped": "opendp_graph.pufferfish models not available"})
        return rows
    fast = measure(lambda gg: pf.GlobalModel.fit(gg), cfg["repeats_small"], prepare=lambda: _fresh(g))
    model = fast["result"]
    fast["result"] = None
    w_fast = int(model.wasserstein().W)
    f0 = np.trim_zeros(np.asarray(model.hist0), "b")
    f1 = np.trim_zeros(np.asarray(model.hist1), "b")
    agree = bool(np.array_equal(f0, h0) and np.array_equal(f1, h1) and w_fast == w_naive)
    # W is part of the model: time fit + W like the naive side
    fast_w = measure(lambda gg: pf.GlobalModel.fit(gg).wasserstein(), cfg["repeats_small"], prepare=lambda: _fresh(g))
    fast_w["result"] = None
    ratio = naive["median_s"] / fast_w["median_s"]
    rows.append(_case("speedup", "fast_global", "GlobalModel.fit + W (opendp_graph)", size, None, fast_w, W=w_fast, agree=agree))
    rows.append(
        {
            "group": "speedup",
            "name": "speedup",
            "work": "speed-up of GlobalModel over the naive NetworkX Global model (same run)",
            "size": size,
            "target_ratio": 100.0,
            "ratio": round(ratio, 1),
            "met": ratio >= 100.0 and agree,
            "agree": agree,
        }
    )
    rows.extend(_speedup_skewed(cfg, pf))
    return rows


def _speedup_skewed(cfg: dict, pf) -> list[dict]:
    """The engine's hard shape (hubs, Zipf text labels) against issue 14's baseline (a per-edge
    ``Counter`` of the neighbouring edges' labels; target ≥ 100×) and, for reference, against the
    stronger per-node-``Counter`` algorithm (no target)."""
    import numpy as np

    from benchmarks.data import skewed_text
    from benchmarks.naive import counter_global_model, edge_counter_global_model

    t0 = time.perf_counter()
    g = skewed_text(cfg["skewed_edges"])
    nxg = g.to_networkx()
    setup = time.perf_counter() - t0
    size = _fmt_edges(g) + f", max degree {int(g.degrees.max()):,} (skewed text labels)"
    vocab = g.vocabulary
    model = pf.GlobalModel.fit(_fresh(g))
    f0 = np.trim_zeros(np.asarray(model.hist0), "b")
    f1 = np.trim_zeros(np.asarray(model.hist1), "b")
    w_fast = int(model.wasserstein().W)

    def baseline(fn) -> tuple[dict, bool, int]:
        m = measure(lambda: fn(nxg, vocab), cfg["naive_repeats"])
        h0, h1, w = m["result"]
        m["result"] = None
        return m, bool(np.array_equal(f0, h0) and np.array_equal(f1, h1) and w_fast == w), int(w)

    per_edge, agree_edge, w_edge = baseline(edge_counter_global_model)
    fast = measure(lambda gg: pf.GlobalModel.fit(gg).wasserstein(), cfg["fast_repeats"], prepare=lambda: _fresh(g))
    fast["result"] = None
    per_node, agree_node, w_node = baseline(counter_global_model)
    ratio = per_edge["median_s"] / fast["median_s"]
    reference = per_node["median_s"] / fast["median_s"]
    return [
        _case(
            "speedup",
            "edge_counter_global_skewed",
            "per-edge Counter NetworkX Global model + W (issue 14's baseline)",
            size,
            None,
            per_edge,
            W=w_edge,
            setup_s=round(setup, 2),
        ),
        _case("speedup", "fast_global_skewed", "GlobalModel.fit + W (opendp_graph)", size, None, fast, W=w_fast, agree=agree_edge and agree_node),
        {
            "group": "speedup",
            "name": "speedup_skewed",
            "work": "speed-up of GlobalModel over the per-edge Counter baseline (same run)",
            "size": size,
            "target_ratio": 100.0,
            "ratio": round(ratio, 1),
            "met": ratio >= 100.0 and agree_edge,
            "agree": agree_edge,
        },
        _case("speedup", "node_counter_global_skewed", "per-node Counter NetworkX Global model + W (reference: a stronger algorithm)", size, None, per_node, W=w_node),
        {
            "group": "speedup",
            "name": "speedup_skewed_reference",
            "work": "speed-up of GlobalModel over the per-node Counter reference (same run; no target)",
            "size": size,
            "target_ratio": None,
            "ratio": round(reference, 1),
            "met": None,
            "agree": agree_node,
        },
    ]


# ============================================================================ orchestration
def machine_info() -> dict:
    import numpy
    import scipy
    import networkx

    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = None
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    mem = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    try:
        from importlib.metadata import version

        opendp_version = version("opendp")
    except Exception:  # pragma: no cover
        opendp_version = "?"
    return {
        "platform": platform.platform(),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": mem,
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "networkx": networkx.__version__,
        "opendp": opendp_version,
    }


def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or None
    except Exception:  # pragma: no cover
        return None


def _uncommitted() -> list[str]:
    """Package files that differ from the commit (the run measures the working tree)."""
    try:
        out = subprocess.run(
            ["git", "status", "--porcelain", "--", "opendp_graph"], cwd=REPO, capture_output=True, text=True, timeout=10
        )
        return [line[3:] for line in out.stdout.splitlines() if line.strip()]
    except Exception:  # pragma: no cover
        return []


def _run_worker(group: str, cfg: dict) -> None:
    limit_gib = cfg.get("memory_limit_gib")
    if limit_gib:
        # fail with MemoryError instead of pushing a shared machine into the OOM killer
        try:
            import resource

            cap = int(limit_gib * 1024**3)
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        except (ImportError, ValueError, OSError):  # pragma: no cover - not Linux
            pass
    fn = globals()[f"group_{group}"]
    t0 = time.perf_counter()
    load_before = _loadavg()
    rows = fn(cfg)
    result = {"group": group, "rows": rows, "group_wall_s": round(time.perf_counter() - t0, 2), "load_before": load_before, "load_after": _loadavg()}
    print(_MARK + json.dumps(result), flush=True)


def _loadavg() -> list[float] | None:
    """1/5/15-minute load averages: other work on the machine slows every timing down."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):  # pragma: no cover
        return None


def _spawn(group: str, cfg: dict, timeout: float) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    cmd = [sys.executable, "-m", "benchmarks.run", "--worker", group, "--config", json.dumps(cfg)]
    try:
        proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"group": group, "rows": [{"group": group, "name": group, "error": f"timed out after {timeout:.0f} s"}]}
    for line in proc.stdout.splitlines():
        if line.startswith(_MARK):
            return json.loads(line[len(_MARK) :])
    tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
    return {"group": group, "rows": [{"group": group, "name": group, "error": f"exit {proc.returncode}: " + " | ".join(tail)}]}


def _fmt_target(row: dict) -> str:
    if row.get("target_ratio") is not None:
        return f"≥ {row['target_ratio']:.0f}×"
    if row.get("target_s") is None:
        return ""
    t = f"< {row['target_s']:g} s"
    if row.get("target_mib") is not None:
        t += f", < {row['target_mib'] / 1024:g} GiB"
    return t


def markdown(report: dict) -> str:
    mach = report["machine"]
    lines = [
        f"# opendp-graph benchmarks ({report['mode']})",
        "",
        f"- date: {report['date']}",
        f"- commit: {report.get('commit')}"
        + (f" (plus uncommitted changes to {', '.join(report['uncommitted'])})" if report.get("uncommitted") else ""),
        f"- machine: {mach['cpu']}, {mach['cores']} cores, {mach['memory_gib']} GiB; {mach['platform']}",
        f"- Python {mach['python']}, numpy {mach['numpy']}, scipy {mach['scipy']}, networkx {mach['networkx']}, opendp {mach['opendp']}",
        "- times: wall clock, median of the listed runs; memory: peak resident set size of the process during the case (graph included)",
        "- load average (1 min) before/after each group, on a machine shared with other work: "
        + ", ".join(
            f"{g} {v['before'][0] if v.get('before') else '?'}/{v['after'][0] if v.get('after') else '?'}"
            for g, v in report.get("load_average", {}).items()
        ),
        "",
        "| work | size | target | median | runs (s) | peak RSS | met |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in report["rows"]:
        if "skipped" in row or "error" in row:
            why = row.get("skipped") or row.get("error")
            tag = "ERROR" if "error" in row else ("**no**" if row.get("met") is False else "skipped")
            lines.append(f"| {row.get('work', row['name'])} | {row.get('size', '')} | | | | | {tag}: {why} |")
            continue
        met = {True: "yes", False: "**no**", None: ""}[row.get("met")]
        if row.get("target_applies") is False:
            met = "n/a (not the target's size)"
        if "ratio" in row:
            lines.append(f"| {row['work']} | {row['size']} | {_fmt_target(row)} | **{row['ratio']}×** | | | {met} (agree: {row['agree']}) |")
            continue
        extras = []
        for key in ("W", "p0", "p1", "true_p0", "true_p1", "agree", "setup_s"):
            if key in row:
                val = row[key]
                extras.append(f"{key}={val:.4f}" if isinstance(val, float) and not key.endswith("_s") else f"{key}={val}")
        work = row["work"] + (f" [{', '.join(extras)}]" if extras else "")
        runs = ", ".join(f"{t:.3g}" for t in row["times_s"])
        median = f"{row['median_s']:.3g} s"
        if "aborted_after_s" in row:
            if row["times_s"]:
                runs += f", (aborted after {row['aborted_after_s']:.0f})"
            else:
                median, runs = f"> {row['aborted_after_s']:.0f} s", f"aborted after {row['aborted_after_s']:.0f}"
        peak = f"{row['peak_rss_mib']:,.0f} MiB"
        lines.append(f"| {work} | {row['size']} | {_fmt_target(row)} | {median} | {runs} | {peak} | {met} |")
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="CI-sized run (well under a minute)")
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results"), help="folder for results.json and results.md")
    parser.add_argument("--data", default=None, help="folder holding enron-perry-wolfe/ and deezer/ (default ../shared/data)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every synthetic size by this")
    parser.add_argument("--repeats", type=int, default=None, help="override the number of repeats of every case")
    parser.add_argument("--only", action="append", choices=GROUPS, help="run only these groups (repeatable)")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds allowed per group")
    parser.add_argument("--memory-limit-gib", type=float, default=18.0, help="address-space cap of each worker (0: none)")
    parser.add_argument("--worker", choices=GROUPS, help=argparse.SUPPRESS)
    parser.add_argument("--config", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        _run_worker(args.worker, json.loads(args.config))
        return 0

    from benchmarks.data import default_data_dir

    if args.scale <= 0:
        parser.error("--scale must be positive")
    cfg = dict(QUICK if args.quick else FULL)
    for key in SIZE_KEYS:
        cfg[key] = max(100, int(cfg[key] * args.scale))
    cfg["data"] = str(Path(args.data) if args.data else default_data_dir())
    if args.repeats is not None:
        if args.repeats < 1:
            parser.error("--repeats must be at least 1")
        for key in ("repeats", "repeats_small", "naive_repeats", "fast_repeats"):
            cfg[key] = args.repeats
    cfg["memory_limit_gib"] = args.memory_limit_gib
    groups = args.only or list(GROUPS)
    started = _dt.datetime.now(_dt.timezone.utc)
    report: dict[str, Any] = {
        "date": started.strftime("%Y-%m-%d %H:%M UTC"),
        "mode": "quick" if args.quick else "full",
        "config": cfg,
        "commit": _git_commit(),
        "uncommitted": _uncommitted(),
        "machine": machine_info(),
        "rows": [],
        "group_wall_s": {},
        "load_average": {},
    }
    for group in groups:
        print(f"[benchmarks] {group} ...", file=sys.stderr, flush=True)
        result = _spawn(group, cfg, args.timeout)
        report["rows"].extend(result["rows"])
        report["group_wall_s"][group] = result.get("group_wall_s")
        report["load_average"][group] = {"before": result.get("load_before"), "after": result.get("load_after")}
        for row in result["rows"]:
            if "median_s" in row:
                print(f"[benchmarks]   {row['name']}: {row['median_s']:.3g} s (peak {row['peak_rss_mib']:.0f} MiB)", file=sys.stderr, flush=True)
            elif "ratio" in row:
                print(f"[benchmarks]   {row['name']}: {row['ratio']}x (agree={row['agree']})", file=sys.stderr, flush=True)
            else:
                print(f"[benchmarks]   {row.get('name')}: {row.get('skipped') or row.get('error')}", file=sys.stderr, flush=True)
    # The synthetic targets are stated for the full sizes: a quick or rescaled run cannot meet or
    # miss them, so its verdicts there are "n/a" (the real data sets keep their fixed sizes).
    if any(cfg[key] != FULL[key] for key in SIZE_KEYS):
        for row in report["rows"]:
            if row.get("group") in SYNTHETIC_GROUPS and row.get("met") is not None:
                row["met"], row["target_applies"] = None, False
    report["total_wall_s"] = round((_dt.datetime.now(_dt.timezone.utc) - started).total_seconds(), 1)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    (out / "results.md").write_text(markdown(report), encoding="utf-8")
    print(markdown(report))
    failures = [r for r in report["rows"] if "error" in r]
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
