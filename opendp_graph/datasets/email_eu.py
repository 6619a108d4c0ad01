"""SNAP email-Eu-core: who e-mailed whom in a European research institution, with departments.

The data are not bundled; the loaders take the folder holding the two SNAP files, or
``path=None`` (the default) to let :func:`~opendp_graph.datasets.data_path` find the
``email-eu-core`` data set (local data folder, cache, or a checked download)::

    email-Eu-core.txt                     "u v" a line: at least one e-mail went from u to v
    email-Eu-core-department-labels.txt   "node department" a line (nodes 0..1004, 42 departments)

How the raw data are handled (documented choices):

* The file is a *directed* edge list without multiplicities: one row per (sender, recipient)
  pair that exchanged at least one e-mail, not one row per e-mail. The message table of
  :func:`load_email_eu_core_messages` keeps it as it is (25,571 rows), so "messages" there
  means "directed sender→recipient pairs".
* It has 642 self-loops (someone e-mailing themselves). The message table keeps them (they are
  in the data; :func:`~opendp_graph.polars.rows_per_person` counts such a row once); the
  undirected :class:`~opendp_graph.Graph` of :func:`load_email_eu_core` drops them, merges
  ``u→v`` with ``v→u`` and has 1,005 nodes (the public ids ``0..1004``, isolated people
  included) and 16,064 edges.
* Departments are public attributes of the people (``0..41``), joined as columns.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ._resolve import data_path

__all__ = ["load_email_eu_core", "load_email_eu_core_messages", "load_email_eu_core_departments"]

_EDGES = "email-Eu-core.txt"
_DEPARTMENTS = "email-Eu-core-department-labels.txt"


def _folder(path: Any) -> Path:
    if path is None:
        return data_path("email-eu-core")
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or pathlib.Path naming the email-Eu-core folder, got {type(path).__name__}")
    folder = Path(path)
    if not folder.is_dir():
        raise FileNotFoundError(f"email-Eu-core folder not found: {folder}")
    missing = [name for name in (_EDGES, _DEPARTMENTS) if not (folder / name).is_file()]
    if missing:
        raise FileNotFoundError(f"email-Eu-core folder {folder} lacks {', '.join(missing)}")
    return folder


def _read_pairs(file: Path, names: list[str]):
    import polars as pl

    return pl.read_csv(file, separator=" ", has_header=False, new_columns=names, schema_overrides={n: pl.Int64 for n in names})


def load_email_eu_core_departments(path: str | Path | None = None):
    """The people and their departments: a Polars ``DataFrame`` ``person, department`` (``Int64``),
    one row per person ``0..1004``, sorted by ``person``; ``path=None`` resolves the data set."""
    folder = _folder(path)
    return _read_pairs(folder / _DEPARTMENTS, ["person", "department"]).sort("person")


def load_email_eu_core_messages(path: str | Path | None = None):
    """The directed log as a Polars ``DataFrame``: ``sender, recipient, sender_department,
    recipient_department`` (all ``Int64``), one row per directed pair in the file order,
    self-loops kept (25,571 rows).

    :param path: the ``email-eu-core`` folder; ``None`` (default) resolves it
        (:func:`~opendp_graph.datasets.data_path`).
    :raises FileNotFoundError: if the folder or a file is missing.
    :raises ValueError: if an edge names a person without a department.
    """
    folder = _folder(path)
    edges = _read_pairs(folder / _EDGES, ["sender", "recipient"])
    departments = load_email_eu_core_departments(folder)
    known = set(departments["person"].to_list())
    unknown = (set(edges["sender"].to_list()) | set(edges["recipient"].to_list())) - known
    if unknown:
        raise ValueError("edges name people without a department (the files do not match)")
    table = edges.join(
        departments.rename({"person": "sender", "department": "sender_department"}), on="sender", how="left", maintain_order="left"
    ).join(
        departments.rename({"person": "recipient", "department": "recipient_department"}),
        on="recipient",
        how="left",
        maintain_order="left",
    )
    return table


def load_email_eu_core(path: str | Path | None = None):
    """The undirected graph: nodes ``0..1004`` (public ids, in order, isolated people kept), an
    edge when an e-mail went either way, self-loops dropped. 1,005 nodes, 16,064 edges.

    :param path: the ``email-eu-core`` folder; ``None`` (default) resolves it
        (:func:`~opendp_graph.datasets.data_path`).
    :returns: an unlabeled :class:`~opendp_graph.Graph`; departments come from
        :func:`load_email_eu_core_departments`.

    :example:

    >>> import opendp_graph as dpg
    >>> g = dpg.datasets.load_email_eu_core()  # doctest: +SKIP
    >>> g.num_nodes, g.num_edges  # doctest: +SKIP
    (1005, 16064)
    """
    from ..polars import graph_from_polars

    folder = _folder(path)
    people = load_email_eu_core_departments(folder)["person"].to_list()
    messages = load_email_eu_core_messages(folder)
    return graph_from_polars(messages, src="sender", dst="recipient", nodes=people, self_loops="drop")
