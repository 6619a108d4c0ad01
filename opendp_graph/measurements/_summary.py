"""The accuracy of several releases as one Polars table (:func:`summarize`), like OpenDP's
Polars ``summarize(alpha=...)``: the package's measurements through
:func:`~opendp_graph.measurements.accuracy.accuracy`, OpenDP's Polars queries through
``opendp.accuracy.summarize_polars_measurement``. Kept apart from
:mod:`~opendp_graph.measurements.accuracy` (the statements themselves), which it only reads."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import opendp.prelude as dp

from .accuracy import Accuracy, ChoiceAccuracy, PartsAccuracy, SelectionAccuracy, _check_alpha, accuracy, noise_accuracy

__all__ = ["summarize"]


def _as_measurement(name: str, item: Any) -> dp.Measurement:
    from opendp.context import Query

    if isinstance(item, Query):
        try:
            return item.resolve()  # builds the measurement (and searches its scale); releases nothing
        except ValueError as error:  # e.g. "Query is not yet a measurement or odometer."
            raise ValueError(f"release {name!r}: {error}") from error
    if not isinstance(item, dp.Measurement):
        raise TypeError(f"release {name!r} must be an OpenDP Measurement or a dp.Context query (ctx.query()...), got {type(item).__name__}")
    return item


# OpenDP's names of the noise of a Polars column (summarize_polars_measurement), in this module's terms
_POLARS_NOISES = {
    "Integer Laplace": "discrete_laplace",
    "Float Laplace": "laplace",
    "Integer Gaussian": "discrete_gaussian",
    "Float Gaussian": "gaussian",
}


def _is_polars_release(item: Any) -> bool:
    """An OpenDP Polars query (``LazyFrameQuery``, read by its type: it reroutes attributes, even
    ``__class__``, to its Polars plan) or a measurement OpenDP built with ``make_private_lazyframe``."""
    if type(item).__name__ == "LazyFrameQuery":
        return True
    record = getattr(item, "__opendp_dict__", None) if isinstance(item, dp.Measurement) else None
    return isinstance(record, Mapping) and record.get("__function__") == "make_private_lazyframe"


def _polars_accuracies(name: str, item: Any, alpha: float) -> list[tuple[str, Accuracy]]:
    """``("<name>: <column>", Accuracy)`` per noisy column of an OpenDP Polars release, from the
    noise and scale OpenDP's ``summarize_polars_measurement`` reads off the measurement."""
    from opendp.accuracy import summarize_polars_measurement

    if not isinstance(item, dp.Measurement):
        try:
            item = item.resolve()  # builds the measurement (and searches its scale); releases nothing
        except (ValueError, dp.OpenDPException) as error:
            raise ValueError(f"release {name!r}: {error}") from error
    labelled = []
    # under an identifier unit (SymmetricIdDistance, ChangeOneIdDistance) OpenDP requires a
    # truncation per identifier before any aggregate: the answer fed to the noise is the truncated one
    truncated = "IdDistance" in str(item.input_metric)
    for row in summarize_polars_measurement(item).iter_rows(named=True):
        noise = _POLARS_NOISES.get(row["distribution"])
        if noise is None:
            raise TypeError(
                f"release {name!r}: column {row['column']!r} ({row['aggregate']}) has {row['distribution']} noise, "
                "not one of Laplace or Gaussian; use the query's own .summarize(alpha=...)"
            )
        threshold = row.get("threshold")  # OpenDP keeps a group whose noisy count exceeds it
        acc = noise_accuracy(
            noise,
            float(row["scale"]),
            alpha,
            mechanism="make_private_lazyframe",
            threshold=None if threshold is None else int(threshold) + 1,
        )
        left_out = [_POLARS_TRUNCATION] if truncated else []
        if "sum" in str(row["aggregate"]).lower():
            left_out.append(_POLARS_CLIPPING)
        labelled.append((f"{name}: {row['column']}", replace(acc, not_included="; ".join(left_out) or None)))
    return labelled


# stated whenever the plan can drop or clip: whether it does on this table is private (a margin or
# a domain= the compositor verified can rule it out, and the statement then costs nothing)
_POLARS_TRUNCATION = (
    "the rows (or groups) of an identifier beyond the query's truncation bounds, if any, which OpenDP drops "
    "before it aggregates: the interval is around the truncated table's answer, at most the true one for a count"
)
_POLARS_CLIPPING = "how far values lie outside the sum's bounds, if any: OpenDP clips each value to them before summing"


def summarize(releases: Any, alpha: float = 0.05):
    """A small Polars table of the accuracy of one or several releases, one row each, like
    OpenDP's Polars ``summarize(alpha=...)``.

    Columns: ``release`` (the name: a dict's key, else the position ``"0"``, ``"1"``, …),
    ``noise``, ``scale``, ``accuracy`` (the half-width of :func:`accuracy`: each entry within
    ``± accuracy`` with probability at least ``1 − alpha``, per entry), ``threshold`` (null
    unless thresholded; a key is released when its noisy count is at least this) and
    ``not_included`` (null when the interval is around the true answer; else what the query
    drops before the noise, so the interval is around the capped, truncated or projected answer:
    a label cap that can bind, a degree projection, OpenDP's truncation per identifier and
    clipping of sums in a Polars release, a bound chosen under DP).

    A ``dp.Context`` query (``ctx.query().edge_count().laplace()``, an OpenDP ``Query``) is
    resolved to its measurement with ``query.resolve()``, which fixes a missing scale as
    ``query.param()`` does: nothing is released and no budget is spent (the Context charges
    ``query.release()`` only).

    An OpenDP Polars query (``ctx.query().select(dp.len(signed=True))`` of a Polars context, such
    as :func:`~opendp_graph.polars.compositor`'s) or its measurement gets one row per noisy column,
    ``"<name>: <column>"``: OpenDP's ``summarize_polars_measurement`` gives each column's noise
    (Laplace under ε or (ε, δ), Gaussian under ρ or (ρ, δ); integer or float) and scale, and the
    half-width is :func:`accuracy`'s for that noise (OpenDP's Polars ``summarize`` shows
    ``dp.discrete_gaussian_scale_to_accuracy`` itself, one more than the half-width for integer
    Gaussian noise). A group-by releasing keys that are not public keeps a group when its noisy
    count *exceeds* OpenDP's threshold ``t`` (OpenDP 0.16), that is, on integer counts, when it
    is at least ``t + 1``, the ``threshold`` shown.

    :param releases: a measurement or a Context query, a list or tuple of them, or a dict name → one.
    :param alpha: significance level in ``(0, 1)``.
    :raises TypeError: for what :func:`accuracy` refuses, or an item that is neither a
        measurement nor a Context query.

    :example:

    >>> import networkx as nx, opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> g = dpg.Graph.from_networkx(nx.karate_club_graph())
    >>> ctx = dpg.context(g, (dpg.edge_distance(), 1), dp.loss_of(epsilon=1.0), split_evenly_over=2)
    >>> edges = ctx.query().edge_count().laplace()
    >>> degrees = ctx.query().degree_histogram(max_degree=20).laplace()
    >>> table = dpg.summarize({"edges": edges, "degrees": degrees}, alpha=0.05)
    >>> table.columns
    ['release', 'noise', 'scale', 'accuracy', 'threshold', 'not_included']
    >>> table.rows()
    [('edges', 'discrete_laplace', 2.0, 6.0, None, None), ('degrees', 'discrete_laplace', 8.0, 24.0, None, None)]
    >>> ctx.remaining_privacy_loss()  # summarizing spent nothing: both shares are left
    [0.5, 0.5]
    """
    import polars as pl

    alpha = _check_alpha(alpha)
    if _is_polars_release(releases):  # first: isinstance(query, Mapping) fails on a Polars query
        items = [("0", releases)]
    elif isinstance(releases, Mapping):
        items = [(str(name), item) for name, item in releases.items()]
    elif isinstance(releases, (list, tuple)):
        items = [(str(i), item) for i, item in enumerate(releases)]
    else:
        items = [("0", releases)]
    rows = []
    for name, item in items:
        labelled: Sequence[tuple[str, Accuracy | SelectionAccuracy]]
        if _is_polars_release(item):
            labelled = _polars_accuracies(name, item, alpha)
        else:
            result = accuracy(_as_measurement(name, item), alpha)
            if isinstance(result, ChoiceAccuracy):  # a candidate chosen under DP: one row per candidate
                labelled = [(f"{name} ({result.parameter}={value:g})", replace(acc, not_included=result.bias)) for value, acc in result.choices]
            elif isinstance(result, PartsAccuracy):  # one row per part (an n-gram order)
                labelled = [(f"{name} ({label})", acc) for label, acc in result.parts]
            else:
                labelled = [(name, result)]
        for label, acc in labelled:
            rows.append(
                {
                    "release": label,
                    "noise": acc.noise,
                    "scale": acc.scale,
                    "accuracy": float(acc.half_width),
                    "threshold": None if acc.threshold is None else float(acc.threshold),
                    "not_included": acc.not_included,
                }
            )
    schema = {
        "release": pl.String,
        "noise": pl.String,
        "scale": pl.Float64,
        "accuracy": pl.Float64,
        "threshold": pl.Float64,
        "not_included": pl.String,
    }
    return pl.DataFrame(rows, schema=schema)
