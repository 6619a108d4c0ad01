"""Graph privacy for Polars analytics: message tables, graph privacy units, and an OpenDP
Context whose accounting reads in people and edges.

The analyst keeps a communication log as a Polars frame (sender, recipient, time, text ...),
chooses *what to protect* and then writes ordinary OpenDP Polars queries::

    import opendp.prelude as dp, opendp_graph as dpg, polars as pl
    unit = dpg.polars.person_unit("sender", "recipient", max_messages=200)   # each person
    ctx = dpg.polars.compositor(log, unit, dp.loss_of(epsilon=1.0), split_evenly_over=2)
    keys = pl.DataFrame({"department": public_department_names})
    ctx.query().group_by("department").agg(dp.len(signed=False)).with_keys(keys).release().collect()

* converters: :func:`graph_from_polars` (``nodes=``, the public list
  of people, is required) and :func:`graph_to_polars`;
* units: :func:`edge_unit`, :func:`edge_group_unit`, :func:`edge_content_unit`,
  :func:`message_unit`, :func:`person_unit`, :func:`pufferfish_unit` on an :func:`edge_label_table`, each returning
  one kind of :class:`PrivacyUnit` (:class:`EdgeUnit`, :class:`EdgeGroupUnit`,
  :class:`EdgeContentUnit`, :class:`PersonUnit`, :class:`PufferfishUnit`), a frozen value whose
  OpenDP ``(metric, d_in)`` is derived from its fields;
* checks: :func:`check_privacy_unit` (does a hand-written ``dp.unit_of`` protect the unit?
  ``frame=`` is required for a unit with a declared bound), :func:`rows_per_person`,
  :func:`rows_per_pair`;
* person-level totals of a message log whose messages have several owners (sender and
  recipients): :func:`message_log` reads a table once into a :class:`MessageLog`;
  :func:`make_private_total` releases messages, deliveries, words or distinct pairs with the
  per-person cap chosen under DP and the whole error stated (:class:`TotalRelease`, a lower
  confidence bound), or as a point estimate with its noise and bias
  (:func:`make_private_total_estimate`, :class:`TotalEstimate`); the
  capped totals underneath (:func:`capped_total`, :func:`make_capped_total`,
  :func:`make_capped_total_ladder`) on :func:`message_log_domain` with
  :func:`person_log_distance`; per public time window (messages per month) with one cap chosen
  under DP: :func:`make_private_window_totals`; :func:`make_person_graph`, the graph of direct messages on a
  public roster, whose neighbours are one rewired node (so node-level releases apply), and
  without a roster its degree tails (:func:`make_person_degree_tails`);
  messages per person bounded by an edge-addition scan and their histogram with the bound
  chosen under DP: :func:`make_message_count_projection`,
  :func:`make_private_message_count_histogram`; at edge level (one pair's deliveries,
  :func:`pair_log_distance`) the histogram of messages per person needs no bound and no roster:
  :func:`make_message_count_histogram`;
* accounting: :func:`compositor` → :class:`UnitContext`, :func:`loss_for` (which first checks
  that the measurement's input metric expresses the unit).

Every unit (and the converters and checks) needs the id columns to hold one integer or text
dtype and no nulls; :func:`compositor` checks that, and each declared bound, on the very table
its releases read, before the context exists (preconditions: the ``_units`` module docstring).
It also refuses margins that one unit can break (``invariant="lengths"``, and
``invariant="keys"`` grouped by the unit's own columns) and a ``domain=`` carrying margins. Release
through :func:`compositor`: ``unit.privacy_unit`` given to ``dp.Context.compositor`` directly
checks nothing (see :attr:`PrivacyUnit.privacy_unit`).

Nothing is lifted to the top level: use ``dpg.polars.<name>``.
"""

from ..measurements._capped_totals import (
    LP_TOLERANCE,
    MIN_CAP,
    TOTAL_KINDS,
    TotalRelease,
    capped_total,
    make_capped_total,
    make_capped_total_ladder,
    make_private_total,
    then_capped_total,
    then_capped_total_ladder,
    then_private_total,
)
from ..measurements._message_log import (
    MessageLog,
    message_log_domain,
    person_log_distance,
)
from ._context import UnitContext, compositor, loss_for
from ._convert import graph_from_polars, graph_to_polars
from ._message_counts import (
    histogram_from_tails,
    make_message_count_projection,
    make_message_count_tails,
    make_private_message_count_histogram,
    message_count_tails,
    message_counts,
    then_message_count_projection,
    then_message_count_tails,
    then_private_message_count_histogram,
)
from ._message_graph import (
    PersonGraphScope,
    make_person_degree_tails,
    make_person_graph,
    person_degree_tails,
    person_graph,
    person_graph_scope,
    then_person_degree_tails,
    then_person_graph,
)
from ._messages import message_log
from ._pair_level import PairLogDistance, make_message_count_histogram, message_count_histogram, pair_log_distance, then_message_count_histogram
from ._point_totals import TotalEstimate, cap_scores, make_cap_scores, make_private_total_estimate, then_cap_scores, then_private_total_estimate
from ._table_checks import pair_identifier, rows_per_pair, rows_per_person
from ._unit_checks import check_privacy_unit
from ._units import (
    EdgeContentUnit,
    EdgeGroupUnit,
    EdgeUnit,
    MessageUnit,
    PersonUnit,
    PrivacyUnit,
    PufferfishUnit,
    edge_content_unit,
    edge_group_unit,
    edge_label_table,
    edge_unit,
    message_unit,
    person_unit,
    pufferfish_unit,
)
from ._windows import (
    WindowTotalsRelease,
    make_private_window_totals,
    make_window_capped_totals,
    make_window_ladder,
    then_private_window_totals,
    then_window_capped_totals,
    then_window_ladder,
)

__all__ = [
    "UnitContext",
    "compositor",
    "loss_for",
    "graph_from_polars",
    "graph_to_polars",
    "pair_identifier",
    "rows_per_pair",
    "rows_per_person",
    "PrivacyUnit",
    "EdgeUnit",
    "EdgeGroupUnit",
    "EdgeContentUnit",
    "MessageUnit",
    "PersonUnit",
    "PufferfishUnit",
    "check_privacy_unit",
    "edge_content_unit",
    "edge_label_table",
    "edge_group_unit",
    "message_unit",
    "edge_unit",
    "person_unit",
    "pufferfish_unit",
    "MessageLog",
    "message_log",
    "message_log_domain",
    "person_log_distance",
    "capped_total",
    "make_capped_total",
    "make_capped_total_ladder",
    "make_private_total",
    "TotalRelease",
    "TOTAL_KINDS",
    "LP_TOLERANCE",
    "MIN_CAP",
    "make_person_graph",
    "person_graph",
    "person_graph_scope",
    "PersonGraphScope",
    "make_person_degree_tails",
    "person_degree_tails",
    "make_message_count_projection",
    "make_private_message_count_histogram",
    "message_counts",
    "make_private_window_totals",
    "WindowTotalsRelease",
    "make_window_capped_totals",
    "make_window_ladder",
    "make_private_total_estimate",
    "TotalEstimate",
    "make_cap_scores",
    "cap_scores",
    "PairLogDistance",
    "pair_log_distance",
    "make_message_count_histogram",
    "message_count_histogram",
    "make_message_count_tails",
    "message_count_tails",
    "histogram_from_tails",
    "then_message_count_projection",
    "then_message_count_tails",
    "then_private_message_count_histogram",
    "then_person_degree_tails",
    "then_person_graph",
    "then_capped_total",
    "then_capped_total_ladder",
    "then_private_total",
    "then_message_count_histogram",
    "then_cap_scores",
    "then_private_total_estimate",
    "then_private_window_totals",
    "then_window_capped_totals",
    "then_window_ladder",
]
