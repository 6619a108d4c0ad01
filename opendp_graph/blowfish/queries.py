"""The paper's VIP queries (Nassar et al., §3.2 and §3.3).

* :func:`make_standard_degree_histogram`: the degree histogram of the *standard* people only;
* :func:`make_vip_standard_histogram`: for each VIP (``side="vip"``) or each standard person
  (``side="standard"``), the number of contacts on the other side, as a histogram.

The VIP set is public. By default it is the VIP set of the input metric's Blowfish policy; under
edge-level privacy (:func:`~opendp_graph.edge_distance`) pass it as ``vip=``. Their stability
rules (with proofs) are in :mod:`opendp_graph.blowfish.rules`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import opendp.prelude as dp

from ..core.domains import graph_domain_descriptor
from ..core.graph import Graph
from ..core.metrics import metric_descriptor
from ..transformations import then
from ..transformations.degrees import _l2, _make_binned, _wants_l2, check_bins
from ..transformations.labels import l2_bound
from ..transformations.rules import variant
from .metric import BlowfishDistance
from .policy import _people

__all__ = [
    "make_standard_degree_histogram",
    "then_standard_degree_histogram",
    "make_vip_standard_histogram",
    "then_vip_standard_histogram",
    "standard_degree_histogram",
    "vip_standard_histogram",
    "STANDARD_DEGREE_HISTOGRAM_L2",
    "VIP_STANDARD_HISTOGRAM_L2",
]


def _vip_mask(graph: Graph, vip: tuple[int, ...]) -> np.ndarray:
    if vip and vip[-1] >= graph.num_nodes:
        raise ValueError(f"the VIP set names person {vip[-1]}, who is not a node of the graph")
    mask = np.zeros(graph.num_nodes, dtype=bool)
    mask[list(vip)] = True
    return mask


def standard_degree_histogram(graph: Graph, vip: Iterable[int], max_degree: int) -> list[int]:
    """Non-private: bin ``k`` counts the standard (non-VIP) people of degree ``k``; the last bin
    counts degrees ``≥ max_degree``."""
    mask = _vip_mask(graph, tuple(sorted(vip)))
    degrees = np.minimum(graph.degrees[~mask], max_degree)
    return np.bincount(degrees, minlength=max_degree + 1).astype(np.int64).tolist()


def vip_standard_histogram(graph: Graph, vip: Iterable[int], max_count: int, side: str = "vip") -> list[int]:
    """Non-private: for each person on ``side`` (``"vip"`` or ``"standard"``), the number of
    their contacts on the other side; bin ``k`` counts people with ``k`` such contacts (the last
    bin, ``≥ max_count``)."""
    mask = _vip_mask(graph, tuple(sorted(vip)))
    across = mask[graph.src] != mask[graph.dst]
    counts = np.bincount(graph.src[across], minlength=graph.num_nodes) + np.bincount(graph.dst[across], minlength=graph.num_nodes)
    chosen = counts[mask] if side == "vip" else counts[~mask]
    return np.bincount(np.minimum(chosen, max_count), minlength=max_count + 1).astype(np.int64).tolist()


def _resolve_vip(input_domain: dp.Domain, input_metric: dp.Metric, vip: Any) -> tuple[int, ...]:
    """The public VIP set: from the policy, or ``vip=`` (which must then agree with it)."""
    domain = graph_domain_descriptor(input_domain)
    metric = metric_descriptor(input_metric)
    given = None if vip is None else _people(vip, "vip")
    if isinstance(metric, BlowfishDistance):
        policy_vip = metric.policy.vip
        if policy_vip is None:
            raise ValueError("this query needs VIP and standard people, but the policy protects everyone (vip=None); build the policy with vip=[...]")
        if given is not None and given != policy_vip:
            raise ValueError("vip differs from the VIP set of the input metric's Blowfish policy")
        given = policy_vip
    elif given is None:
        raise ValueError("vip is required unless the input metric is a Blowfish policy with a VIP set")
    if not given:
        raise ValueError("vip is empty: the query needs at least one VIP")
    if domain.num_nodes is not None and given[-1] >= domain.num_nodes:
        raise ValueError(f"vip names person {given[-1]}, but the domain has {domain.num_nodes} nodes")
    return given


def make_standard_degree_histogram(
    input_domain: dp.Domain,
    input_metric: dp.Metric,
    max_degree: int | None = None,
    vip: Iterable[int] | None = None,
    output_metric: dp.Metric | None = None,
) -> dp.Transformation:
    """Degree histogram of the standard (non-VIP) people, bins ``0..max_degree`` (the last holds
    degrees ``≥ max_degree``), an ``i64`` vector with ``l1_distance`` (Nassar et al., §3.2).

    :param max_degree: the last bin; defaults to the domain's ``max_degree``.
    :param vip: the public VIP node indices; defaults to the input policy's.
    :param output_metric: ``dp.l1_distance(T=dp.i64)`` (default) or ``dp.l2_distance(T=dp.f64)``
        for OpenDP's Gaussian (``STANDARD_DEGREE_HISTOGRAM_L2``: the L1 bound over ``√2``).

    **Stability guarantee**: ``2·d`` under the attribute policy with VIPs (the paper's figure,
    half the complete histogram's 4) and ``4·d`` under edge distance; the general rule and proof
    are in :func:`opendp_graph.blowfish.rules.standard_histogram_rule`.

    :example:

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> metric = dpg.blowfish_distance(dpg.BlowfishPolicy.attribute(vip=[0]))
    >>> t = dpg.make_standard_degree_histogram(dpg.graph_domain(), metric, max_degree=3)
    >>> t(dpg.Graph.from_edges([0, 0, 1], [1, 2, 2])), t.map(1)
    ([0, 0, 2, 0], 2)
    """
    dp.assert_features("contrib", "honest-but-curious")
    bins = check_bins(max_degree, graph_domain_descriptor(input_domain), "max_degree")
    vip_set = _resolve_vip(input_domain, input_metric, vip)
    l2 = _wants_l2(output_metric, dp.l1_distance(T=dp.i64), "dp.l1_distance(T=dp.i64)")
    return _make_binned(
        input_domain,
        input_metric,
        bins,
        STANDARD_DEGREE_HISTOGRAM_L2 if l2 else make_standard_degree_histogram,
        lambda g, b: standard_degree_histogram(g, vip_set, b),
        params={"vip": vip_set},
        output_metric=_l2() if l2 else None,
    )


then_standard_degree_histogram = then(make_standard_degree_histogram)


def make_vip_standard_histogram(
    input_domain: dp.Domain,
    input_metric: dp.Metric,
    max_count: int | None = None,
    vip: Iterable[int] | None = None,
    side: str = "vip",
    output_metric: dp.Metric | None = None,
) -> dp.Transformation:
    """Histogram of the number of VIP–standard contacts per VIP (``side="vip"``) or per standard
    person (``side="standard"``), bins ``0..max_count``, an ``i64`` vector with ``l1_distance``
    (Nassar et al., §3.3).

    :param max_count: the last bin (counts ``≥ max_count``); defaults to the domain's ``max_degree``.
    :param vip: the public VIP node indices; defaults to the input policy's.
    :param output_metric: ``dp.l1_distance(T=dp.i64)`` (default) or ``dp.l2_distance(T=dp.f64)``
        (``VIP_STANDARD_HISTOGRAM_L2``: the L1 bound over ``√2``).
    :param side: whose counts are histogrammed.

    **Stability guarantee**: ``2·d`` under the attribute policy with VIPs for either side (the
    paper's figure); ``side="vip"`` stays at ``2·d`` under *every* VIP policy, as only the VIP at
    the centre of a change moves. General rule and proof:
    :func:`opendp_graph.blowfish.rules.vip_standard_rule`.
    """
    dp.assert_features("contrib", "honest-but-curious")
    if side not in ("vip", "standard"):
        raise ValueError(f"side must be 'vip' or 'standard', got {side!r}")
    bins = check_bins(max_count, graph_domain_descriptor(input_domain), "max_count")
    vip_set = _resolve_vip(input_domain, input_metric, vip)
    l2 = _wants_l2(output_metric, dp.l1_distance(T=dp.i64), "dp.l1_distance(T=dp.i64)")
    return _make_binned(
        input_domain,
        input_metric,
        bins,
        VIP_STANDARD_HISTOGRAM_L2 if l2 else make_vip_standard_histogram,
        lambda g, b: vip_standard_histogram(g, vip_set, b, side),
        params={"vip": vip_set, "side": side},
        output_metric=_l2() if l2 else None,
    )


then_vip_standard_histogram = then(make_vip_standard_histogram)


def l2_of_vertex_moves(l1_stability):
    """ℓ2 from the L1 rule of a histogram over vertices: every L1 rule of these queries is ``2m``
    for ``m`` vertices (or counts) that can change, each moving one unit out of a bin and into
    another, so every entry moves by at most ``m = L1/2`` and ``ℓ2² ≤ ℓ∞·ℓ1 = L1²/2``:
    ``ℓ2 ≤ L1/√2`` (:func:`~opendp_graph.transformations.labels.l2_bound`), tight wherever the
    L1 rule is and its ``m`` vertices all move between the same two bins (one vertex: ``√2``)."""

    def stability(d_in):
        l1 = l1_stability(d_in)
        return l2_bound(l1, l1, l1 // 2)

    return stability


STANDARD_DEGREE_HISTOGRAM_L2 = variant(make_standard_degree_histogram, "l2", derived_from=make_standard_degree_histogram, adapt=l2_of_vertex_moves)
"""The rules of :func:`make_standard_degree_histogram` into ``dp.l2_distance(T=dp.f64)``: its L1
rules (every notion) divided by ``√2`` (:func:`l2_of_vertex_moves`)."""

VIP_STANDARD_HISTOGRAM_L2 = variant(make_vip_standard_histogram, "l2", derived_from=make_vip_standard_histogram, adapt=l2_of_vertex_moves)
"""The rules of :func:`make_vip_standard_histogram` into ``dp.l2_distance(T=dp.f64)``: its L1
rules divided by ``√2`` (:func:`l2_of_vertex_moves`)."""
