"""The ``opendp-graph`` command: ``demo``, ``reproduce NAME`` and ``data list|fetch``."""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence

__all__ = ["main", "demo", "data_command"]

EMBEDDED_GRAPHS = {
    "karate": "karate_club_graph",
    "lesmis": "les_miserables_graph",
    "florentine": "florentine_families_graph",
}


def _embedded_graph(name: str):
    import networkx as nx

    from .graph import Graph

    return Graph.from_networkx(getattr(nx, EMBEDDED_GRAPHS[name])())


def demo(graph_name: str = "karate", epsilon: float = 1.0, group_size: int = 3, theta: int = 6) -> list[dict]:
    """Release DP statistics of an embedded NetworkX graph under edge-, group- and node-level
    privacy, each with budget ``epsilon`` split evenly (basic composition) over its statistics.

    Returns the table rows (also printed by the command). Noise comes from ``dp.m.then_laplace``.
    """
    import opendp.prelude as dp

    from . import metrics
    from .domains import graph_domain
    from .transformations import (
        cumulative_degree_histogram,
        then_cumulative_degree_histogram,
        then_degree_projection,
        then_edge_count,
        then_triangle_count,
        triangle_count,
    )
    from .transformations.projection import degree_projection

    dp.enable_features("contrib", "honest-but-curious")
    g = _embedded_graph(graph_name)
    n = g.num_nodes
    bins = 2 * theta
    stats_per_unit = {
        "edge": (graph_domain(num_nodes=n), metrics.edge_distance(), None),
        f"group of {group_size} edges": (graph_domain(num_nodes=n), metrics.group_distance(group_size), None),
        f"node (projected to degree {theta})": (graph_domain(num_nodes=n), metrics.node_distance(), theta),
    }
    rows = []
    for unit, (domain, metric, projection) in stats_per_unit.items():
        prefix = (domain, metric) if projection is None else (domain, metric) >> then_degree_projection(projection)
        source = g if projection is None else degree_projection(g, projection)
        queries = [
            ("edge count", then_edge_count(), source.num_edges),
            (f"nodes of degree ≤ 2 (cumulative hist., {bins + 1} bins)", then_cumulative_degree_histogram(max_degree=bins),
             cumulative_degree_histogram(source, bins)[2]),
        ]
        if projection is None:  # no stable node-level triangle bound without a declared max degree
            queries.append(("triangles", then_triangle_count(), triangle_count(source)))
        per_query = epsilon / len(queries)
        measurements = []
        for _, then_query, _ in queries:
            transformation = prefix >> then_query
            sensitivity = transformation.map(1)
            scale = sensitivity / per_query
            measurements.append((transformation >> dp.m.then_laplace(scale=scale), scale))
        composed = dp.c.make_composition([m for m, _ in measurements])
        released = composed(g)
        for (label, _, true), (meas, scale), value in zip(queries, measurements, released):
            if isinstance(value, list):
                value = value[2]
            if projection is not None:  # the release estimates the projected graph's statistic
                label += " (of the projection)"
            rows.append(
                {"unit": unit, "statistic": label, "true": true, "released": value, "epsilon": meas.map(1), "scale": scale}
            )
        rows.append({"unit": unit, "statistic": "total (composition)", "true": "", "released": "", "epsilon": composed.map(1), "scale": ""})
    return rows


def _print_table(rows: list[dict], title: str) -> None:
    headers = ["privacy unit", "statistic", "true", "released", "ε", "noise scale"]
    keys = ["unit", "statistic", "true", "released", "epsilon", "scale"]

    def fmt(v):
        return f"{v:.3g}" if isinstance(v, float) else str(v)

    table = [[fmt(r[k]) for k in keys] for r in rows]
    widths = [max(len(h), *(len(row[i]) for row in table)) for i, h in enumerate(headers)]
    print(title)
    print("  ".join(h.ljust(w) for h, w in zip(headers, widths)))
    print("  ".join("-" * w for w in widths))
    for row in table:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)))


def _megabytes(size: int) -> str:
    return f"{size / 1e6:.1f} MB"


def data_command(action: str, names: Sequence[str] = (), verify: bool = False) -> int:
    """``opendp-graph data list [--verify] [NAME ...]`` and ``opendp-graph data fetch [NAME ...]``."""
    from .datasets import _resolve as resolve

    unknown = [n for n in names if n not in resolve.DATASETS]
    if unknown:
        print(f"unknown data set {', '.join(unknown)}; known: {', '.join(resolve.DATASETS)}", file=sys.stderr)
        return 2
    names = list(names) or list(resolve.DATASETS)
    try:
        downloads = resolve.downloads_enabled()
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if action == "fetch":
        failed = 0
        for name in names:
            found = resolve.status(name)[0]["path"]
            try:
                folder = resolve.data_path(name, download=True)
            except (resolve.DataUnavailableError, resolve.DataIntegrityError) as error:
                print(f"error: {error}", file=sys.stderr)
                failed += 1
                continue
            print(f"{name}: {'already available at' if found is not None else 'fetched into'} {folder}")
        return 1 if failed else 0

    local, how = resolve._local_root()
    mirror = os.environ.get(resolve.ENV_URL)
    print(f"local data folder: {local if local is not None else '(none)'} ({how})")
    print(f"cache:             {resolve.cache_dir()} (${resolve.ENV_CACHE} overrides)")
    print(
        f"downloads:         {'on' if downloads else f'off (${resolve.ENV_DOWNLOAD})'}, from "
        + (f"{mirror} (${resolve.ENV_URL})" if mirror else "the canonical sources (pinned commits)")
    )
    print()
    rows = []
    for row in resolve.status(names):
        if row["path"] is not None:
            where = "local data folder" if row["source"] == "local" else "cache"
            size, location = _megabytes(row["size"]), str(row["path"])
            if verify:
                bad = [f for f, ok in resolve.verify(row["name"], row["path"]).items() if not ok]
                location += "  [sha256 " + ("ok" if not bad else "MISMATCH: " + ", ".join(bad)) + "]"
        else:
            where = "missing (fetched on first use)" if downloads else "missing (downloads off)"
            size, location = f"{_megabytes(row['size'])} to download", row["reason"]
        rows.append([row["name"], where, "yes" if row["cached"] else "no", size, location])
    headers = ["data set", "resolves from", "cached", "size", "location"]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    widths[-1] = 0
    for r in [headers, *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    return 0


def _experiments() -> list[str]:
    from . import experiments

    return sorted(m.name for m in pkgutil.iter_modules(experiments.__path__) if not m.name.startswith("_"))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="opendp-graph", description="Differential privacy on graphs, with OpenDP.")
    sub = parser.add_subparsers(dest="command", required=True)
    p_demo = sub.add_parser("demo", help="release DP statistics of an embedded graph under edge, group and node privacy")
    p_demo.add_argument("--graph", choices=sorted(EMBEDDED_GRAPHS), default="karate")
    p_demo.add_argument("--epsilon", type=float, default=1.0, help="budget per privacy unit (default 1.0)")
    p_demo.add_argument("--group-size", type=int, default=3)
    p_demo.add_argument("--theta", type=int, default=6, help="degree bound of the node-level projection")
    p_rep = sub.add_parser("reproduce", help="reproduce a paper's experiments", add_help=False)
    p_rep.add_argument("name", nargs="?", help="one of: " + ", ".join(_experiments()))
    p_rep.add_argument("rest", nargs=argparse.REMAINDER)
    p_data = sub.add_parser("data", help="the real data sets: where they resolve from, and fetching them")
    data_sub = p_data.add_subparsers(dest="action", required=True)
    p_list = data_sub.add_parser("list", help="each data set: where it resolves from, cached or not, size")
    p_list.add_argument("--verify", action="store_true", help="also check the SHA-256 of the files found")
    p_list.add_argument("names", nargs="*", metavar="NAME", help="data sets (default: all)")
    p_fetch = data_sub.add_parser("fetch", help="download data sets no folder holds into the cache (SHA-256 checked)")
    p_fetch.add_argument("names", nargs="*", metavar="NAME", help="data sets (default: all)")
    args = parser.parse_args(argv)

    if args.command == "data":
        return data_command(args.action, getattr(args, "names", []), getattr(args, "verify", False))

    if args.command == "demo":
        if not args.epsilon > 0:
            parser.error("--epsilon must be positive")
        rows = demo(args.graph, args.epsilon, args.group_size, args.theta)
        _print_table(rows, f"opendp-graph demo: networkx {EMBEDDED_GRAPHS[args.graph]}(), ε = {args.epsilon} per privacy unit")
        return 0
    names = _experiments()
    if args.name not in names:
        print(f"usage: opendp-graph reproduce NAME [options]; NAME is one of: {', '.join(names) or '(none)'}", file=sys.stderr)
        return 2
    module = importlib.import_module(f"opendp_graph.experiments.{args.name}")
    return int(module.main(list(args.rest)) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
