"""The baselines, which read only the public structure: :class:`EdgeLevelModel` (independent
edges, ``W = 1``) and :class:`MarkovQuiltModel` (group privacy over the largest closed
neighbourhood, paper 001 §4.2 (3)). What their attackers believe: :doc:`/guarantees`.
"""

from __future__ import annotations

from typing import Any

from ...core._checks import positive_integer
from ...core.graph import Graph
from ..coupling import DeltaBounds
from ..wasserstein import QuantileGaps
from ._validators import check_structure
from .base import CorrelationModel, WassersteinReport, _delta_columns, frozen_model

__all__ = ["EdgeLevelModel", "MarkovQuiltModel"]


@frozen_model
class EdgeLevelModel(CorrelationModel):
    """Baseline: independent edges (plain edge-level confidentiality). Flipping ``(i, a)``
    changes only edge ``i``: ``d ≡ 1``, ``W = 1``, one edge flips.

    Covers every structure: its attacker believes the other edges' properties independent of the
    secret whatever the neighbourhood, so ``f¹ − f⁰ = 1`` (the central edge) for every secret of
    every graph; nothing was fitted that a structure could fall outside of. No vocabulary
    restriction: the same holds for every property.
    """

    name = "Edge-level"
    attacker = "believes edges' properties are independent (no correlation): ordinary edge-level privacy"
    fitted_on = "nothing (no parameters)"
    data_dependent = False
    provenance = "none"

    def covers(self, graph: Graph) -> bool:
        """Always true (class docstring)."""
        check_structure(graph)
        return True

    def _report(self) -> WassersteinReport:
        return WassersteinReport(1, 1, 1, 1, [{"d_min": 1, "d_max": 1, "W_inf": 1}], {})

    def _report_delta(self, delta: float) -> WassersteinReport:
        """Unchanged at every δ < 1: ``d ≡ 1`` surely (point masses one apart), and no coupling
        puts it in a window without 1 except with probability 1."""
        gaps = QuantileGaps(1, 1)
        b = DeltaBounds(1, 1, 1, 1, delta, gaps)
        return WassersteinReport(1, 1, 1, 1, [{"d_min": 1, "d_max": 1, "W_inf": 1, **_delta_columns(b)}], {}, delta)

    def _content(self) -> list[Any]:
        return []

    def _repr_fields(self) -> str:
        return ""


class MarkovQuiltModel(CorrelationModel):
    """Baseline: the Markov-quilt mechanism with the trivial quilt (paper 001 §4.2 (3); Song
    et al. Theorem 4.3), equivalently group privacy over the largest closed neighbourhood:
    any law of ``f`` on ``[0, N−1]`` vs ``[1, N]`` with ``N = 2·Dmax − 1``, so ``d ∈ [2 − N, N]``,
    ``W = N`` and up to ``N`` edges flip. Reads only the public structure.

    Covers the structures whose closed neighbourhoods have at most ``N`` edges (larger ones
    allow more flips than ``N``). No vocabulary restriction: any law, for any property.
    """

    name = "Markov quilt (trivial)"
    attacker = "any correlation confined to an edge's closed neighbourhood (trivial Markov quilt, δ = 0)"
    data_dependent = False
    provenance = "structure"

    max_neighbourhood: int
    """``N``: the most edges a closed neighbourhood may have."""

    def __init__(self, max_neighbourhood: int, *, fitted_on: str | None = None) -> None:
        n = positive_integer("max_neighbourhood", max_neighbourhood)
        self._init(max_neighbourhood=n, fitted_on=fitted_on or f"a stated bound: closed neighbourhoods of at most {n} edges")

    @classmethod
    def for_graph(cls, graph: Graph) -> MarkovQuiltModel:
        """The paper's baseline (paper 001 §4.2 (3)): ``N = 2·Dmax − 1`` from the (public)
        structure of ``graph``, an upper bound of every closed neighbourhood (``deg u + deg v − 1``).
        Kept to reproduce the paper; :meth:`for_structure` is the tight one."""
        check_structure(graph)
        return cls(max(2 * graph.max_degree - 1, 1), fitted_on="the public graph structure (paper's bound 2·Dmax − 1)")

    @classmethod
    def for_structure(cls, graph: Graph) -> MarkovQuiltModel:
        """The tight structural baseline: ``N`` = the largest closed neighbourhood of the public
        structure, ``max over edges {u, v} of deg u + deg v − 1`` (at most the paper's
        ``2·Dmax − 1``; 837 against 1,319 on a real reply log whose two busiest people are not
        adjacent). The guarantee is the same group privacy over any closed neighbourhood: it
        covers exactly the structures whose neighbourhoods have at most ``N`` edges, this one
        included. Reads only the public structure.

        >>> import opendp_graph as dpg
        >>> star_and_path = dpg.Graph.from_edges([0, 0, 0, 4], [1, 2, 3, 5], num_nodes=6)
        >>> dpg.pufferfish.MarkovQuiltModel.for_structure(star_and_path).W, dpg.pufferfish.MarkovQuiltModel.for_graph(star_and_path).W
        (3, 5)
        """
        g = check_structure(graph)
        largest = int(cls._closed_sizes(g).max()) if g.num_edges else 1
        return cls(max(largest, 1), fitted_on="the public graph structure (its largest closed neighbourhood)")

    def covers(self, graph: Graph) -> bool:
        """True iff every closed neighbourhood has at most ``N`` edges."""
        return bool((self._closed_sizes(check_structure(graph)) <= self.max_neighbourhood).all())

    def _report(self) -> WassersteinReport:
        n = self.max_neighbourhood
        return WassersteinReport(n, 2 - n, n, n, [{"max_neighbourhood": n, "d_min": 2 - n, "d_max": n, "W_inf": n}], {})

    def _report_delta(self, delta: float) -> WassersteinReport:
        """Unchanged at every δ < 1: the attacker class holds *every* pair of laws on ``[0, N−1]``
        and ``[1, N]``, among them point masses with ``d ≡ N`` and with ``d ≡ 2 − N``; a point
        pair fails any window without its difference with probability 1 > δ. So ``W_δ = N``, the
        window is ``[2 − N, N]`` and ``F_δ = N``, as at δ = 0."""
        n = self.max_neighbourhood
        b = DeltaBounds(n, 2 - n, n, n, delta, QuantileGaps(2 - n, n))
        row = {"max_neighbourhood": n, "d_min": 2 - n, "d_max": n, "W_inf": n, **_delta_columns(b)}
        return WassersteinReport(n, 2 - n, n, n, [row], {}, delta)

    def _content(self) -> list[Any]:
        return [self.max_neighbourhood]

    def _repr_fields(self) -> str:
        return f"max_neighbourhood={self.max_neighbourhood}"
