"""The ``opendp-graph`` command: ``--version``, ``demo`` and ``data list|fetch``. (The papers'
reproductions are not in the package: ``python -m reproductions NAME`` runs them from a clone.)"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Sequence
from importlib import metadata

from ._cli_args import ArgumentParser, positive_float, positive_int, print_written

__all__ = ["main", "demo", "data_command"]

EMBEDDED_GRAPHS = {
    "karate": "karate_club_graph",
    "lesmis": "les_miserables_graph",
    "florentine": "florentine_families_graph",
}


def _embedded_graph(name: str):
    import networkx as nx

    from .core.graph import Graph

    return Graph.from_networkx(getattr(nx, EMBEDDED_GRAPHS[name])())


def demo(graph_name: str = "karate", epsilon: float = 1.0, group_size: int = 3, theta: int = 6) -> list[dict]:
    """Release DP statistics of an embedded NetworkX graph under edge-, group- and node-level
    privacy, each with budget ``epsilon`` split evenly (basic composition) over its statistics.

    Returns the table rows (also printed by the command). Noise comes from ``dp.m.then_laplace``.
    Raises ``ValueError`` when ``epsilon`` is so small that a noise scale overflows.
    """
    import opendp.prelude as dp

    from .core import metrics
    from .core.domains import graph_domain
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
            (
                f"nodes of degree ≤ 2 (cumulative hist., {bins + 1} bins)",
                then_cumulative_degree_histogram(max_degree=bins),
                cumulative_degree_histogram(source, bins)[2],
            ),
        ]
        if projection is None:  # no stable node-level triangle bound without a declared max degree
            queries.append(("triangles", then_triangle_count(), triangle_count(source)))
        per_query = epsilon / len(queries)
        measurements = []
        for label, then_query, _ in queries:
            transformation = prefix >> then_query
            sensitivity = transformation.map(1)
            if per_query == 0 or not math.isfinite(sensitivity / per_query):
                raise ValueError(f"ε = {epsilon:g} is too small: the noise scale of {label!r} overflows ({unit} privacy)")
            scale = sensitivity / per_query
            measurements.append((transformation >> dp.m.then_laplace(scale=scale), scale))
        composed = dp.c.make_composition([m for m, _ in measurements])
        released = composed(g)
        for (label, _, true), (meas, scale), value in zip(queries, measurements, released):
            if isinstance(value, list):
                value = value[2]
            if projection is not None:  # the release estimates the projected graph's statistic
                label += " (of the projection)"
            rows.append({"unit": unit, "statistic": label, "true": true, "released": value, "epsilon": meas.map(1), "scale": scale})
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

    prog = f"opendp-graph data {action}"
    unknown = [n for n in names if n not in resolve.DATASETS]
    if unknown:
        print(f"{prog}: error: unknown data set {', '.join(unknown)}; known: {', '.join(resolve.DATASETS)}", file=sys.stderr)
        return 2
    names = list(names) or list(resolve.DATASETS)
    try:
        downloads = resolve.downloads_enabled()
    except ValueError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    if action == "fetch":
        failed, written = 0, []
        for name in names:
            found = resolve.status(name)[0]["path"]
            try:
                folder = resolve.data_path(name, download=True)
            except (resolve.DataUnavailableError, resolve.DataIntegrityError) as error:
                print(f"{prog}: error: {error}", file=sys.stderr)
                failed += 1
                continue
            print(f"{name}: {'already available at' if found is not None else 'fetched into'} {folder}")
            if found is None:
                written += [folder / file.name for file in resolve.DATASETS[name].files]
        if written:
            print_written(written)
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


def _version() -> str:
    try:
        return metadata.version("opendp-graph")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        from . import __version__

        return f"{__version__} (not installed)"


def _parsers() -> tuple[ArgumentParser, dict[str, ArgumentParser]]:
    """The command's parser, and its ``demo`` sub-parser (errors found after parsing name the
    sub-command they concern)."""
    parser = ArgumentParser(prog="opendp-graph", description="Differential privacy on graphs, with OpenDP.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p_demo = sub.add_parser(
        "demo",
        help="release DP statistics of an embedded graph under edge, group and node privacy",
        description="Release DP statistics of an embedded NetworkX graph under edge-, group- and node-level "
        "privacy (Laplace noise; the budget of each privacy unit split evenly over its statistics).",
    )
    p_demo.add_argument("--graph", choices=sorted(EMBEDDED_GRAPHS), default="karate", help="the embedded graph (default karate)")
    p_demo.add_argument("--epsilon", type=positive_float, default=1.0, help="budget per privacy unit, > 0 (default 1.0)")
    p_demo.add_argument(
        "--group-size",
        type=positive_int,
        default=3,
        help="edges in a group of group privacy, from 1 to the graph's number of node pairs (default 3)",
    )
    p_demo.add_argument(
        "--theta",
        type=positive_int,
        default=6,
        help="degree bound of the node-level projection, from 1 to the graph's number of nodes - 1 (default 6)",
    )

    p_data = sub.add_parser(
        "data",
        help="the real data sets: where they resolve from, and fetching them",
        description="The real data sets: where they resolve from, and fetching them into the cache.",
    )
    data_sub = p_data.add_subparsers(dest="action", required=True, metavar="ACTION")
    p_list = data_sub.add_parser(
        "list", help="each data set: where it resolves from, cached or not, size", description="Where each data set resolves from."
    )
    p_list.add_argument("--verify", action="store_true", help="also check the SHA-256 of the files found")
    p_list.add_argument("names", nargs="*", metavar="NAME", help="data sets (default: all)")
    p_fetch = data_sub.add_parser(
        "fetch",
        help="download data sets no folder holds into the cache (SHA-256 checked)",
        description="Download the data sets no folder holds into the cache (SHA-256 checked), and list the files written.",
    )
    p_fetch.add_argument("names", nargs="*", metavar="NAME", help="data sets (default: all)")
    return parser, {"demo": p_demo}


def main(argv: Sequence[str] | None = None) -> int:
    """``opendp-graph [--version] COMMAND ...``; returns the exit status. A bad argument ends in
    ``SystemExit(2)`` after one line on stderr, as argparse does."""
    parser, commands = _parsers()
    args = parser.parse_args(argv)

    if args.command == "demo":
        error = commands["demo"].error
        n = _embedded_graph(args.graph).num_nodes
        # bounds beyond what a graph on n nodes can hold change nothing but the cost (or overflow)
        if args.theta > n - 1:
            error(f"argument --theta: must be at most {n - 1} for --graph {args.graph} ({n} nodes), got {args.theta}")
        if args.group_size > n * (n - 1) // 2:
            error(f"argument --group-size: must be at most {n * (n - 1) // 2} for --graph {args.graph} ({n} nodes), got {args.group_size}")
        try:
            rows = demo(args.graph, args.epsilon, args.group_size, args.theta)
        except ValueError as problem:
            error(str(problem))
        _print_table(rows, f"opendp-graph demo: networkx {EMBEDDED_GRAPHS[args.graph]}(), ε = {args.epsilon} per privacy unit")
        return 0

    # the other command (argparse accepts no third)
    return data_command(args.action, args.names, getattr(args, "verify", False))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
