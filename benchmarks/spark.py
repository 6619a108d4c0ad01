"""The Spark path against the single-machine engine on the same graphs (issue 14, "Numbers").

Usage (from the repository root)::

    .venv/bin/python -m benchmarks.spark [--edges 1000000 10000000] [--quick] [--json PATH]

For each size:

1. **Data** (its own process, not timed): the single-machine benchmark's synthetic graph
   (``benchmarks.run._synthetic``: :func:`opendp_graph.datasets.synthetic_labeled_graph`,
   heavy-tailed degrees with γ = 2.5, 100 properties, ``labels_per_edge=3``, which leaves about
   3.0 (edge, property) pairs per edge after merging, seed 0) is written as two Parquet tables
   in a temporary folder: ``edges`` ``(src, dst)`` and ``labels`` ``(src, dst, label)``, one row
   per edge and per (edge, property) pair, rows in a random order and each edge in a random
   orientation (as a message log would come; nothing is pre-sorted for either engine). The same
   process computes from the graph, with numpy, what the statistics pass *should* cost:
   ``Σ_e min(|C[u]|, |C[v]|)`` (rows the probe of ``opendp_graph.spark._stats`` reads) and
   ``Σ_e (deg u + deg v − 2)·|labels(e)|`` (rows of the naive join of every neighbour's labels).
2. **Single machine** (its own process, so that its peak does not mix with Spark's): read the
   Parquet tables with pyarrow, ``Graph.from_arrays``, ``pufferfish.fit_all``, the three
   models' ``W``, a label count map (c = 3) + thresholded Laplace and a degree histogram
   (1001 bins) + Laplace.
3. **Spark** (its own process and JVM): ``dpg.spark.local_session`` on ``local[cores]`` (UI off,
   ``--shuffle-partitions``, ``--driver-memory``; in local mode the driver JVM is also the only
   executor), then the same stages on a ``SparkGraph`` built by ``graph_from_spark`` from
   ``spark.read.parquet``. Each stage is tagged with ``SparkContext.setJobGroup``; Spark's event
   log (uncompressed) gives the shuffle bytes and records written and read by the stages of each
   group. Before the log is read, a marker job is run and the log is polled until its end event
   is there (the listener bus is asynchronous and in order, so every earlier event is written).

Then the statistics of the two engines (``hist0``, ``hist1``, ``a1``, ``b1`` and every other
field of ``NeighbourhoodStats``; ``nb`` and ``size_bucket`` as distinct values), the three ``W``
and the exact answers of the two queries are compared, and a table per size is printed.

**What is measured.** Wall time per stage (``time.perf_counter``, one run per size: at 10 M
edges a Spark run takes a quarter of an hour; ``benchmarks/SPARK.md`` holds the recorded run). Memory:
peak resident set size during the stage (``VmHWM`` after a reset through
``/proc/<pid>/clear_refs``), of the Python process (driver) and of the JVM (the ``java`` child of
the driver; in local mode the JVM is the executor, so its heap holds the cached and checkpointed
tables and the shuffle buffers). The stages run in the order listed, so later stages reuse what
earlier ones cached (on Spark: the degrees and the checkpointed edges and labels; on one machine:
the graph's degree array), as in a session that fits the models and then answers queries.

``--wait-load X`` (default 0.7) waits, up to ``--max-wait`` seconds, before each measured process
until the 1-minute load average is below ``X`` (the machine is shared); the load averages are
reported. ``--quick`` runs two small sizes with a small heap and no waiting (a smoke test).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as _dt
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from benchmarks.run import _reset_peak, _status_kib  # the /proc readers of the main benchmark

REPO = Path(__file__).resolve().parents[1]
_MARK = "@@SPARK-BENCHMARK@@"
SEED = 0
MAX_LABELS = 3  # c of the label count map
HIST_BINS = 1000  # max_degree of the degree histogram (1001 bins), as benchmarks.run

# the stages, in the order they run; (key, description)
STAGES = (
    ("session", "start the Spark session (local mode: the JVM)"),
    ("build", "read Parquet → graph (graph_from_spark / from_arrays)"),
    ("fit", "statistics: pufferfish.fit_all"),
    ("W", "W of the three models (driver)"),
    ("label_count_map", f"label count map (c = {MAX_LABELS}) + Laplace threshold"),
    ("degree_histogram", f"degree histogram ({HIST_BINS + 1} bins) + Laplace"),
)


# ============================================================================ /proc helpers
def _peak_mib(pid: int | str) -> float | None:
    hwm = _status_kib("VmHWM", pid)
    return None if hwm is None else round(hwm / 1024, 1)


def _java_child(root: int) -> int | None:
    """The ``java`` process among the descendants of ``root`` (pyspark's gateway JVM)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        ppid = int(stat[stat.rfind(")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    todo = list(children.get(root, []))
    while todo:
        pid = todo.pop()
        try:
            with open(f"/proc/{pid}/comm") as fh:
                if fh.read().strip() == "java":
                    return pid
        except OSError:
            pass
        todo.extend(children.get(pid, []))
    return None


def _loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):  # pragma: no cover
        return None


class Stages:
    """Wall time and peak resident size of this process (and of the JVM, if any) per stage."""

    def __init__(self, jvm: int | None = None):
        self.rows: dict[str, dict] = {}
        self.jvm = jvm

    def run(self, key: str, fn, *args, **kwargs):
        import gc

        gc.collect()
        exact = _reset_peak("self")
        if self.jvm is not None:
            _reset_peak(self.jvm)
        t0 = time.perf_counter()
        out = fn(*args, **kwargs)
        wall = time.perf_counter() - t0
        row = {"wall_s": round(wall, 3), "driver_peak_mib": _peak_mib("self"), "peak_is_per_stage": exact}
        if self.jvm is not None:
            row["jvm_peak_mib"] = _peak_mib(self.jvm)
        self.rows[key] = row
        print(f"[spark-bench]   {key}: {wall:.2f} s, driver peak {row['driver_peak_mib']} MiB"
              + (f", JVM peak {row['jvm_peak_mib']} MiB" if self.jvm is not None else ""), file=sys.stderr, flush=True)
        return out


# ============================================================================ data
def _paths(workdir: str) -> dict[str, str]:
    return {
        "edges": os.path.join(workdir, "edges.parquet"),
        "labels": os.path.join(workdir, "labels.parquet"),
        "meta": os.path.join(workdir, "meta.json"),
    }


def worker_generate(cfg: dict) -> dict:
    """Generate the graph, write the Parquet tables, compute the reference costs."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from benchmarks.run import _synthetic

    syn, setup_s = _synthetic(cfg["edges"])
    g = syn.graph
    E, n = g.num_edges, g.num_nodes
    vocab = list(g.vocabulary)
    P = len(vocab)
    src, dst = g.src.astype(np.int64), g.dst.astype(np.int64)
    L = g.labels.tocsr()
    per_edge = np.diff(L.indptr).astype(np.int64)
    le = np.repeat(np.arange(E, dtype=np.int64), per_edge)
    la = L.indices.astype(np.int64)
    pairs = int(la.size)

    # what the statistics pass should cost (module docstring of opendp_graph.spark._stats)
    deg = g.degrees.astype(np.int64)
    nb = deg[src] + deg[dst] - 2
    naive_rows = int((nb * per_edge).sum())  # = b1: each labelled (f, a) joined to each adjacent edge
    adjacent_pairs = int(nb.sum())
    seen = np.unique(np.concatenate([src[le] * P + la, dst[le] * P + la]))  # distinct (node, property)
    r = np.bincount(seen // P, minlength=n).astype(np.int64)
    c_rows = int(seen.size)
    del seen
    probe_rows = int(np.minimum(r[src], r[dst]).sum())
    reference = {
        "num_edges": E,
        "num_nodes": n,
        "num_properties": P,
        "pairs": pairs,
        "max_degree": int(deg.max(initial=0)),
        "c_rows": c_rows,
        "probe_rows": probe_rows,
        "naive_join_rows": naive_rows,
        "adjacent_edge_pairs": adjacent_pairs,
        "sum_deg_squared": int((deg * deg).sum()),
        "true_p0": float(syn.p0),
        "true_p1": float(syn.p1),
        "setup_s": round(setup_s, 2),
    }

    # the tables: random row order, random orientation, labels as their own rows
    rng = np.random.default_rng(SEED + 1)
    flip = rng.random(E) < 0.5
    u = np.where(flip, dst, src)
    v = np.where(flip, src, dst)
    order = rng.permutation(E)
    pq.write_table(pa.table({"src": u[order], "dst": v[order]}), _paths(cfg["workdir"])["edges"])
    del order
    lorder = rng.permutation(pairs)
    lu, lv, lcol = u[le][lorder], v[le][lorder], la[lorder]
    del lorder, le
    label_column = pa.DictionaryArray.from_arrays(pa.array(lcol.astype(np.int32)), pa.array(vocab, pa.string()))
    pq.write_table(pa.table({"src": lu, "dst": lv, "label": label_column}), _paths(cfg["workdir"])["labels"])
    reference["parquet_mib"] = {
        k: round(os.path.getsize(_paths(cfg["workdir"])[k]) / 2**20, 1) for k in ("edges", "labels")
    }
    meta = {"vocabulary": vocab, **reference}
    with open(_paths(cfg["workdir"])["meta"], "w") as fh:
        json.dump(meta, fh)
    reference["generate_peak_mib"] = _peak_mib("self")
    return reference


# ============================================================================ the two engines
def _queries(domain):
    import opendp.prelude as dp

    import opendp_graph as dpg

    space = domain, dpg.edge_distance()
    exact_map = space >> dpg.then_label_count_map(MAX_LABELS)
    exact_hist = space >> dpg.then_degree_histogram(max_degree=HIST_BINS)
    released_map = exact_map >> dp.m.then_laplace_threshold(scale=3.0, threshold=100)
    released_hist = exact_hist >> dp.m.then_laplace(scale=4.0)
    return exact_map, exact_hist, released_map, released_hist


def _fit_and_w(stages: Stages, graph, capture: dict | None = None) -> dict:
    import opendp_graph as dpg

    models = stages.run("fit", dpg.pufferfish.fit_all, graph, base=10.0, progress=False)

    def all_w():
        return {name: int(m.wasserstein().W) for name, m in models.items()}

    W = stages.run("W", all_w)
    p = models["Binomial"]
    return {"W": W, "p0": float(p.p0), "p1": float(p.p1)}


def _save_stats(st, path: str) -> None:
    import numpy as np

    arrays, scalars = {}, {}
    for f in dataclasses.fields(st):
        value = getattr(st, f.name)
        if f.name in ("nb", "size_bucket"):
            value = np.unique(value)  # the distributed stats hold the distinct values only
        if isinstance(value, np.ndarray):
            arrays[f.name] = value
        else:
            scalars[f.name] = value
    np.savez(path, **arrays, _scalars=np.array(json.dumps(scalars)))


def _answers(exact_map, exact_hist, graph) -> dict:
    counts = exact_map(graph)
    return {"label_count_map": {str(k): int(v) for k, v in sorted(counts.items())}, "degree_histogram": [int(x) for x in exact_hist(graph)]}


def worker_single(cfg: dict) -> dict:
    import numpy as np
    import opendp.prelude as dp
    import pyarrow.parquet as pq
    import scipy.sparse as sp

    import opendp_graph as dpg
    import opendp_graph.pufferfish.models.base as models_module  # where the fits look up _neighbourhood_stats

    dp.enable_features("contrib", "honest-but-curious")
    paths = _paths(cfg["workdir"])
    with open(paths["meta"]) as fh:
        meta = json.load(fh)
    n = int(meta["num_nodes"])
    stages = Stages()

    def read():
        edges = pq.read_table(paths["edges"])
        u = edges.column("src").to_numpy()
        v = edges.column("dst").to_numpy()
        labels = pq.read_table(paths["labels"], read_dictionary=["label"])
        column = labels.column("label").combine_chunks()
        names = column.dictionary.to_pylist()
        codes = column.indices.to_numpy()
        lu = labels.column("src").to_numpy()
        lv = labels.column("dst").to_numpy()
        del labels, edges
        # each label row to its edge row: a sorted-key lookup (a join)
        keys = np.minimum(u, v) * np.int64(n) + np.maximum(u, v)
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        del keys
        lkeys = np.minimum(lu, lv) * np.int64(n) + np.maximum(lu, lv)
        del lu, lv
        at = np.searchsorted(sorted_keys, lkeys)
        if not np.array_equal(sorted_keys[np.minimum(at, sorted_keys.size - 1)], lkeys):
            raise ValueError("a label row names a pair that is not an edge")
        rows = order[at]
        del order, sorted_keys, lkeys, at
        matrix = sp.coo_array((np.ones(rows.size, dtype=bool), (rows, codes.astype(np.int64))), shape=(u.size, len(names)))
        return u, v, matrix, names

    def build():
        u, v, matrix, names = read()
        return dpg.Graph.from_arrays(u, v, n, label_matrix=matrix, vocabulary=names)

    graph = stages.run("build", build)

    captured: dict = {}
    original = models_module._neighbourhood_stats

    def capture(g, **kwargs):
        captured["stats"] = original(g, **kwargs)
        return captured["stats"]

    models_module._neighbourhood_stats = capture  # to compare the statistics, without a second pass
    try:
        fitted = _fit_and_w(stages, graph)
    finally:
        models_module._neighbourhood_stats = original
    exact_map, exact_hist, released_map, released_hist = _queries(dpg.graph_domain(labeled=True, num_nodes=n))
    stages.run("label_count_map", released_map, graph)
    stages.run("degree_histogram", released_hist, graph)
    _save_stats(captured["stats"], os.path.join(cfg["workdir"], "stats_single.npz"))
    return {"stages": stages.rows, "fitted": fitted, "answers": _answers(exact_map, exact_hist, graph)}


# ---------------------------------------------------------------------------- Spark event log
def _event_files(log_dir: str, app_id: str) -> list[str]:
    rolling = sorted(
        glob.glob(os.path.join(log_dir, f"eventlog_v2_{app_id}*", "events_*")),
        key=lambda p: int(os.path.basename(p).split("_")[1]),
    )
    if rolling:
        return rolling
    return sorted(glob.glob(os.path.join(log_dir, f"{app_id}*")))  # a single-file log


def _read_events(log_dir: str, app_id: str) -> list[dict]:
    events = []
    for path in _event_files(log_dir, app_id):
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                line = line.strip()
                if not line:
                    continue
                try:
                    events.append(json.loads(line))
                except json.JSONDecodeError:  # a line still being written
                    break
    return events


def _drain(sc, log_dir: str, app_id: str, timeout_s: float = 120.0) -> list[dict]:
    """Run a marker job, then wait until its end is in the log: the listener bus delivers events
    in order, so every event before it has been written by then."""
    marker = f"marker-{uuid.uuid4().hex[:8]}"
    sc.setJobGroup(marker, "event log marker")
    sc.parallelize([0], 1).count()
    deadline = time.monotonic() + timeout_s
    while True:
        events = _read_events(log_dir, app_id)
        jobs = {
            e["Job ID"]
            for e in events
            if e.get("Event") == "SparkListenerJobStart" and (e.get("Properties") or {}).get("spark.jobGroup.id") == marker
        }
        if jobs and any(e.get("Event") == "SparkListenerJobEnd" and e.get("Job ID") in jobs for e in events):
            return events
        if time.monotonic() > deadline:
            raise TimeoutError(f"the event log in {log_dir} did not receive the marker job's end in {timeout_s:.0f} s")
        time.sleep(0.5)


def _shuffle_by_group(events: list[dict]) -> dict[str, dict]:
    """Per job group: shuffle records/bytes written and read, input records, spills, tasks, and
    the stages by name (their call sites)."""
    stage_group: dict[int, str] = {}
    stage_name: dict[int, str] = {}
    for e in events:
        kind = e.get("Event")
        if kind == "SparkListenerJobStart":
            group = (e.get("Properties") or {}).get("spark.jobGroup.id")
            for sid in e.get("Stage IDs", []):
                stage_group.setdefault(sid, group)  # a stage runs in the first job that needs it
        elif kind == "SparkListenerStageSubmitted":
            info = e.get("Stage Info", {})
            group = (e.get("Properties") or {}).get("spark.jobGroup.id")
            if group is not None:
                stage_group[info.get("Stage ID")] = group
            stage_name[info.get("Stage ID")] = info.get("Stage Name", "?")
    out: dict[str, dict] = {}
    for e in events:
        if e.get("Event") != "SparkListenerTaskEnd":
            continue
        sid = e.get("Stage ID")
        group = stage_group.get(sid) or "?"
        m = e.get("Task Metrics") or {}
        w = m.get("Shuffle Write Metrics") or {}
        r = m.get("Shuffle Read Metrics") or {}
        i = m.get("Input Metrics") or {}
        g = out.setdefault(group, {"tasks": 0, "stages": {}})
        values = {
            "shuffle_bytes_written": int(w.get("Shuffle Bytes Written", 0)),
            "shuffle_records_written": int(w.get("Shuffle Records Written", 0)),
            "shuffle_bytes_read": int(r.get("Remote Bytes Read", 0)) + int(r.get("Local Bytes Read", 0)),
            "shuffle_records_read": int(r.get("Total Records Read", 0)),
            "input_records": int(i.get("Records Read", 0)),
            "memory_bytes_spilled": int(m.get("Memory Bytes Spilled", 0)),
            "disk_bytes_spilled": int(m.get("Disk Bytes Spilled", 0)),
        }
        g["tasks"] += 1
        for k, val in values.items():
            g[k] = g.get(k, 0) + val
        s = g["stages"].setdefault(str(sid), {"name": stage_name.get(sid, "?"), "tasks": 0})
        s["tasks"] += 1
        for k in ("shuffle_records_written", "shuffle_bytes_written", "shuffle_records_read"):
            s[k] = s.get(k, 0) + values[k]
    return out


def worker_spark(cfg: dict) -> dict:
    import opendp.prelude as dp

    import opendp_graph as dpg

    dp.enable_features("contrib", "honest-but-curious")
    paths = _paths(cfg["workdir"])
    with open(paths["meta"]) as fh:
        meta = json.load(fh)
    n = int(meta["num_nodes"])
    log_dir = os.path.join(cfg["workdir"], "eventlog")
    os.makedirs(log_dir, exist_ok=True)
    stages = Stages()
    spark = stages.run(
        "session",
        dpg.spark.local_session,
        cfg["cores"],
        driver_memory=cfg["driver_memory"],
        shuffle_partitions=cfg["shuffle_partitions"],
        event_log_dir=log_dir,
        app_name=f"benchmarks.spark-{cfg['edges']}",
    )
    sc = spark.sparkContext
    jvm = _java_child(os.getpid())
    stages.jvm = jvm
    if jvm is not None:
        stages.rows["session"]["jvm_peak_mib"] = _peak_mib(jvm)  # lifetime peak so far
    app_id = sc.applicationId

    def tagged(group: str, fn, *args, **kwargs):
        sc.setJobGroup(group, group)
        try:
            return fn(*args, **kwargs)
        finally:
            sc.setJobGroup("untimed", "untimed")

    def build():
        edges_df = spark.read.parquet(paths["edges"])
        labels_df = spark.read.parquet(paths["labels"])
        return dpg.spark.graph_from_spark(
            edges_df, src="src", dst="dst", labels_df=labels_df, label="label", num_nodes=n, vocabulary=meta["vocabulary"]
        )

    graph = stages.run("build", tagged, "build", build)

    class TaggedStages:  # the fit and W stages of _fit_and_w, each under its own job group
        rows = stages.rows

        def run(self, key, fn, *args, **kwargs):
            return stages.run(key, tagged, key, fn, *args, **kwargs)

    fitted = _fit_and_w(TaggedStages(), graph)
    exact_map, exact_hist, released_map, released_hist = _queries(dpg.spark.graph_domain(labeled=True, num_nodes=n))
    stages.run("label_count_map", tagged, "label_count_map", released_map, graph)
    stages.run("degree_histogram", tagged, "degree_histogram", released_hist, graph)
    sc.setJobGroup("check", "untimed checks")
    answers = _answers(exact_map, exact_hist, graph)
    _save_stats(graph.neighbourhood_stats(base=10.0), os.path.join(cfg["workdir"], "stats_spark.npz"))  # cached by fit_all
    jvm_lifetime = None
    if jvm is not None:
        jvm_lifetime = max(r.get("jvm_peak_mib") or 0 for r in stages.rows.values())
    events = _drain(sc, log_dir, app_id)
    shuffle = _shuffle_by_group(events)
    conf = {k: v for k, v in sc.getConf().getAll() if k in (
        "spark.master", "spark.driver.memory", "spark.sql.shuffle.partitions", "spark.sql.adaptive.enabled",
        "spark.sql.adaptive.skewJoin.enabled", "spark.eventLog.rolling.enabled", "spark.serializer")}
    spark.stop()
    return {
        "stages": stages.rows,
        "fitted": fitted,
        "answers": answers,
        "shuffle": shuffle,
        "jvm_pid_found": jvm is not None,
        "jvm_peak_max_mib": jvm_lifetime,
        "spark_conf": conf,
        "event_files": len(_event_files(log_dir, app_id)),
    }


# ============================================================================ orchestration
def _wait_for_quiet(threshold: float | None, max_wait_s: float) -> dict:
    start = _loadavg()
    waited = 0.0
    if threshold is not None and start is not None:
        t0 = time.monotonic()
        while (_loadavg() or [0])[0] >= threshold and time.monotonic() - t0 < max_wait_s:
            time.sleep(10)
        waited = time.monotonic() - t0
    now = _loadavg()
    quiet = threshold is None or now is None or now[0] < threshold
    if not quiet:
        print(f"[spark-bench]   load average still {now} after waiting {waited:.0f} s; measuring anyway", file=sys.stderr, flush=True)
    return {"load_at_request": start, "load_at_start": now, "waited_s": round(waited, 1), "below_threshold": quiet}


def _spawn(kind: str, cfg: dict, timeout: float) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    cmd = [sys.executable, "-m", "benchmarks.spark", "--worker", kind, "--config", json.dumps(cfg)]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=None, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"{kind}: timed out after {timeout:.0f} s"}
    for line in proc.stdout.splitlines():
        if line.startswith(_MARK):
            out = json.loads(line[len(_MARK) :])
            out["process_wall_s"] = round(time.perf_counter() - t0, 1)
            return out
    return {"error": f"{kind}: exit {proc.returncode} without a result (its stderr is above)"}


def _compare_stats(workdir: str) -> dict:
    import numpy as np

    a = np.load(os.path.join(workdir, "stats_single.npz"))
    b = np.load(os.path.join(workdir, "stats_spark.npz"))
    sa, sb = json.loads(str(a["_scalars"])), json.loads(str(b["_scalars"]))
    fields = {}
    for name in sorted(set(a.files) | set(b.files)):
        if name == "_scalars":
            continue
        fields[name] = bool(name in a.files and name in b.files and a[name].shape == b[name].shape and np.array_equal(a[name], b[name]))
    for name in sorted(set(sa) | set(sb)):
        fields[name] = sa.get(name) == sb.get(name)
    return {
        "all_equal": all(fields.values()),
        "fields": fields,
        "a1": sa.get("a1"),
        "b1": sa.get("b1"),
        "hist0_sum": int(a["hist0"].sum()),
        "hist1_sum": int(a["hist1"].sum()),
        "hist_shape": list(a["hist0"].shape),
    }


def run_size(edges: int, args, machine_cfg: dict) -> dict:
    workdir = tempfile.mkdtemp(prefix=f"spark-bench-{edges}-", dir=args.workdir)
    cfg = {"edges": edges, "workdir": workdir, **machine_cfg}
    result: dict[str, Any] = {"edges": edges, "workdir": workdir}
    try:
        print(f"[spark-bench] {edges:,} edges: generating ...", file=sys.stderr, flush=True)
        result["reference"] = _spawn("generate", cfg, args.timeout)
        if "error" in result["reference"]:
            return result
        for kind in ("single", "spark"):
            print(f"[spark-bench] {edges:,} edges: {kind} ...", file=sys.stderr, flush=True)
            load = _wait_for_quiet(None if args.quick else args.wait_load, args.max_wait)
            out = _spawn(kind, cfg, args.timeout)
            out["load_before"] = load
            out["load_after"] = _loadavg()
            result[kind] = out
        if "error" not in result["single"] and "error" not in result["spark"]:
            result["stats_equal"] = _compare_stats(workdir)
            result["W_equal"] = result["single"]["fitted"]["W"] == result["spark"]["fitted"]["W"]
            result["answers_equal"] = {
                k: result["single"]["answers"][k] == result["spark"]["answers"][k] for k in result["single"]["answers"]
            }
            for side in ("single", "spark"):
                result[side].pop("answers", None)  # equal or not, too long for the report
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    return result


def _mib(x: float | None) -> str:
    if x is None:
        return "–"
    return f"{x / 1024:.2f} GiB" if x >= 1024 else f"{x:.0f} MiB"


def markdown(report: dict) -> str:
    lines = []
    for res in report["sizes"]:
        ref = res.get("reference", {})
        E = ref.get("num_edges") or res["edges"]
        lines += [
            f"### {E:,} edges",
            "",
            f"{ref.get('num_nodes', 0):,} nodes, {ref.get('pairs', 0):,} (edge, property) pairs "
            f"({ref.get('pairs', 0) / max(E, 1):.2f} per edge), {ref.get('num_properties')} properties, "
            f"max degree {ref.get('max_degree', 0):,}; Parquet {ref.get('parquet_mib')} MiB.",
            "",
        ]
        if any("error" in res.get(k, {}) for k in ("reference", "single", "spark")):
            lines += [f"- ERROR: {res[k]['error']}" for k in ("reference", "single", "spark") if "error" in res.get(k, {})]
            lines.append("")
            continue
        sp, one = res["spark"], res["single"]
        lines += [
            "| stage | Spark wall s | Spark driver (Python) peak | JVM peak | shuffle bytes/edge | shuffle records/edge "
            "| one machine wall s | one machine peak | Spark / one machine (time) |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        tot_spark = tot_one = 0.0
        for key, what in STAGES:
            s = sp["stages"].get(key)
            o = one["stages"].get(key)
            sh = sp["shuffle"].get(key, {})
            bpe = f"{sh.get('shuffle_bytes_written', 0) / E:,.0f}" if key in sp["shuffle"] else "–"
            rpe = f"{sh.get('shuffle_records_written', 0) / E:,.2f}" if key in sp["shuffle"] else "–"
            tot_spark += s["wall_s"] if s else 0
            tot_one += o["wall_s"] if o else 0
            ratio = f"{s['wall_s'] / o['wall_s']:,.1f}×" if s and o and o["wall_s"] > 0 else "–"
            lines.append(
                f"| {what} | {s['wall_s']:.2f} | {_mib(s.get('driver_peak_mib'))} | {_mib(s.get('jvm_peak_mib'))} | {bpe} | {rpe} "
                f"| {o['wall_s']:.2f} | {_mib(o.get('driver_peak_mib'))} | {ratio} |"
                if o
                else f"| {what} | {s['wall_s']:.2f} | {_mib(s.get('driver_peak_mib'))} | {_mib(s.get('jvm_peak_mib'))} | {bpe} | {rpe} | – | – | – |"
            )
        work_spark = tot_spark - sp["stages"]["session"]["wall_s"]
        lines.append(
            f"| **all stages** (Spark without the session start) | {tot_spark:.1f} ({work_spark:.1f}) | | | | | {tot_one:.1f} | | "
            f"{work_spark / tot_one:,.1f}× |"
        )
        fit = sp["shuffle"].get("fit", {})
        eq = res["stats_equal"]
        lines += [
            "",
            f"- statistics pass on Spark: {fit.get('shuffle_records_written', 0):,} shuffle records written "
            f"({fit.get('shuffle_records_written', 0) / E:.2f}/edge), {fit.get('shuffle_bytes_written', 0) / 2**20:,.0f} MiB "
            f"({fit.get('shuffle_bytes_written', 0) / E:,.0f} B/edge); read {fit.get('shuffle_records_read', 0) / E:.2f} records/edge; "
            f"spilled {fit.get('disk_bytes_spilled', 0) / 2**20:,.0f} MiB to disk; {fit.get('tasks', 0)} tasks.",
            f"- on the driver from the graph: the probe reads Σ_e min(|C[u]|, |C[v]|) = {ref['probe_rows']:,} rows "
            f"({ref['probe_rows'] / E:.2f}/edge); |C| = {ref['c_rows']:,} ({ref['c_rows'] / E:.2f}/edge); the naive join of every "
            f"neighbour's labels, Σ_e (deg u + deg v − 2)·|labels(e)| = {ref['naive_join_rows']:,} rows "
            f"({ref['naive_join_rows'] / E:,.0f}/edge); adjacent edge pairs Σ_e (deg u + deg v − 2) = {ref['adjacent_edge_pairs'] / E:,.0f}/edge.",
            f"- equal: statistics {eq['all_equal']} (hist0 {eq['fields'].get('hist0')}, hist1 {eq['fields'].get('hist1')}, "
            f"a1 {eq['fields'].get('a1')} = {eq['a1']:,}, b1 {eq['fields'].get('b1')} = {eq['b1']:,}; every field: "
            f"{'yes' if eq['all_equal'] else [k for k, v in eq['fields'].items() if not v]}), W {res['W_equal']} "
            f"({sp['fitted']['W']}), label count map {res['answers_equal']['label_count_map']}, degree histogram "
            f"{res['answers_equal']['degree_histogram']}.",
            f"- load average (1 min) before the single-machine / Spark process: {one['load_before']['load_at_start']} / "
            f"{sp['load_before']['load_at_start']}; after: {one['load_after']} / {sp['load_after']}.",
            "",
        ]
    if len(report["sizes"]) > 1:
        per = []
        for res in report["sizes"]:
            fit = res.get("spark", {}).get("shuffle", {}).get("fit")
            if fit:
                E = res["reference"]["num_edges"]
                per.append((E, fit["shuffle_records_written"] / E, fit["shuffle_bytes_written"] / E))
        if len(per) > 1:
            lines.append(
                "Shuffle of the statistics pass per edge: "
                + ", ".join(f"{e:,} edges: {r:.2f} records, {b:,.0f} B" for e, r, b in per)
                + f"; growth from the smallest to the largest size: records ×{per[-1][1] / per[0][1]:.2f}, bytes ×{per[-1][2] / per[0][2]:.2f}."
            )
            lines.append("")
    return "\n".join(lines)


def _versions() -> dict:
    info: dict[str, Any] = {}
    try:
        from benchmarks.run import machine_info

        info.update(machine_info())
    except Exception as exc:  # pragma: no cover
        info["machine_info_error"] = repr(exc)
    for mod in ("pyspark", "pyarrow"):
        try:
            info[mod] = __import__(mod).__version__
        except Exception:  # pragma: no cover
            info[mod] = None
    try:
        out = subprocess.run(["java", "-version"], capture_output=True, text=True, timeout=30)
        info["java"] = (out.stderr or out.stdout).splitlines()[0]
    except Exception:  # pragma: no cover
        info["java"] = None
    return info


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.spark", description=__doc__.split("\n\n")[0])
    parser.add_argument("--edges", type=int, nargs="+", default=None, help="graph sizes (default 1000000 10000000)")
    parser.add_argument("--quick", action="store_true", help="smoke test: 20,000 and 100,000 edges, 2 GiB heap, no waiting")
    parser.add_argument("--cores", type=int, default=2, help="local[cores] (default 2)")
    parser.add_argument("--driver-memory", default=None, help="JVM heap (spark.driver.memory; default 8g, 2g with --quick)")
    parser.add_argument("--shuffle-partitions", type=int, default=4, help="spark.sql.shuffle.partitions (default 4)")
    parser.add_argument("--wait-load", type=float, default=0.7, help="wait until the 1-min load average is below this (0: never)")
    parser.add_argument("--max-wait", type=float, default=1800.0, help="longest wait for a quiet machine, seconds")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds allowed per process")
    parser.add_argument("--workdir", default=None, help="folder for the temporary Parquet tables and event logs (default: the system's)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders")
    parser.add_argument("--json", default=None, help="also write the full report (JSON) here")
    parser.add_argument("--worker", choices=("generate", "single", "spark"), help=argparse.SUPPRESS)
    parser.add_argument("--config", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        cfg = json.loads(args.config)
        out = {"generate": worker_generate, "single": worker_single, "spark": worker_spark}[args.worker](cfg)
        print(_MARK + json.dumps(out), flush=True)
        return 0

    sizes = args.edges or ([20_000, 100_000] if args.quick else [1_000_000, 10_000_000])
    if args.wait_load <= 0:
        args.wait_load = None
    machine_cfg = {
        "cores": args.cores,
        "driver_memory": args.driver_memory or ("2g" if args.quick else "8g"),
        "shuffle_partitions": args.shuffle_partitions,
    }
    started = _dt.datetime.now(_dt.timezone.utc)
    report: dict[str, Any] = {
        "date": started.strftime("%Y-%m-%d %H:%M UTC"),
        "command": " ".join([Path(sys.executable).name, "-m", "benchmarks.spark", *(argv if argv is not None else sys.argv[1:])]),
        "config": machine_cfg,
        "machine": _versions(),
        "sizes": [],
    }
    try:
        from benchmarks.run import _git_commit, _uncommitted

        report["commit"], report["uncommitted"] = _git_commit(), _uncommitted()
    except Exception:  # pragma: no cover
        pass
    for edges in sizes:
        report["sizes"].append(run_size(edges, args, machine_cfg))
    report["total_wall_s"] = round((_dt.datetime.now(_dt.timezone.utc) - started).total_seconds(), 1)
    text = markdown(report)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    m = report["machine"]
    print(f"# benchmarks.spark ({report['date']}, commit {report.get('commit')})\n")
    print(f"- machine: {m.get('cpu')}, {m.get('cores')} cores, {m.get('memory_gib')} GiB; Python {m.get('python')}, "
          f"pyspark {m.get('pyspark')}, pyarrow {m.get('pyarrow')}, {m.get('java')}")
    print(f"- Spark: local[{machine_cfg['cores']}], spark.driver.memory={machine_cfg['driver_memory']}, "
          f"spark.sql.shuffle.partitions={machine_cfg['shuffle_partitions']}\n")
    print(text)
    bad = [r for r in report["sizes"] if any("error" in r.get(k, {}) for k in ("reference", "single", "spark"))]
    unequal = [r for r in report["sizes"] if "stats_equal" in r and not (
        r["stats_equal"]["all_equal"] and r["W_equal"] and all(r["answers_equal"].values()))]
    return 1 if bad or unequal else 0


if __name__ == "__main__":
    raise SystemExit(main())
