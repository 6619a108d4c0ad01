"""The Pufferfish metric: a correlation model as an OpenDP input metric, and its stability rules.

**Pufferfish instantiation** (Kifer & Machanavajjhala 2014; paper 001 §4.2) of a release
``M(G)`` calibrated with ``pufferfish_distance(model)``:

* ``S = {s⁰ᵢₐ, s¹ᵢₐ}``: "edge ``i`` lacks / carries property ``a``", for every edge ``i`` of the
  public structure and every property ``a``;
* ``S_pairs = {(s⁰ᵢₐ, s¹ᵢₐ)}``: one pair per (edge, property);
* ``Θ = Θ_M``: the attackers the model describes (:mod:`.models`: locality, the model's law of
  the closed-neighbourhood count ``f`` — central edge included — and exchangeability).

**What ``d_in`` means.** ``d(G, G') = 1`` when ``G`` and ``G'`` have the same structure and
``G'`` arises from ``G`` by one *coupled secret flip* of the model: for some edge ``i`` and
property ``a``, edge ``i`` gains ``a`` and ``k`` other edges of ``N[i]`` gain it too
(``d = 1 + k``), or ``k ≥ 1`` of them lose it (``d = 1 − k``), with ``d`` in
``[min(d_min, 1), max(d_max, 1)]`` where ``[d_min, d_max]`` is the model's range of quantile
differences (or the reverse). The hull with 1 covers the clipping of pooled laws to an edge's
feasible range ``[s, |N[i]| − 1 + s]`` (:mod:`.models`): a clipped quantile difference lies
between 1 and an unclipped one. ``d`` is the path metric of this
relation (so a metric; ``inf`` between different structures). The Pufferfish guarantee is
about ``d_in = 1``: **one secret pair**.

**Why a ``d_in = 1`` stability bound gives Pufferfish privacy** (Song, Wang & Chaudhuri 2017,
Theorem 3.2, in coupling form). For ``θ ∈ Θ_M`` and a pair ``(s⁰ᵢₐ, s¹ᵢₐ)``, :mod:`.models`
builds a coupling ``γ`` of ``θ(G | s⁰)`` and ``θ(G | s¹)`` supported on pairs at distance ≤ 1.
If a measurement ``m`` satisfies ``Pr[m(G) ∈ T] ≤ e^ε Pr[m(G') ∈ T] (+ δ)`` whenever
``d(G, G') ≤ 1`` — which is what OpenDP's ``meas.check(1, ε)`` certifies — then
``Pr[m(G) ∈ T | s⁰] = Σ γ(G, G') Pr[m(G) ∈ T] ≤ e^ε Σ γ(G, G') Pr[m(G') ∈ T] (+ δ) =
e^ε Pr[m(G) ∈ T | s¹] (+ δ)``, and symmetrically.

**Composition.** Because ``γ`` couples whole labellings and does not depend on the query,
the same argument applies to any (adaptive) composition of measurements that all use *this*
metric: OpenDP's compositors sum ε exactly as for DP with a fixed neighbour relation, and the
convex-combination step above carries the sum over to Pufferfish (for ``(ε, δ)`` and for ρ-zCDP,
whose divergences are jointly quasi-convex). This is the content of Song et al. Theorem 4.4
for Markov-quilt releases; the general non-composability of the Wasserstein mechanism
(Kifer–Machanavajjhala; Song et al. §3) arises when Θ is described only through the laws of one
query's output, which is not the case for ``Θ_M``. Releases that use *different* models (or a
Pufferfish metric and any other metric) **cannot** be composed by OpenDP: the metric's
identifier includes the model's class, parameters and a content hash of its fitted arrays, so
two different models never share an identifier and the compositors refuse the mix.

**The (ε, δ) relaxation** (``pufferfish_distance(model, delta=δ)``). ``W∞`` is a supremum over
every quantile level, so it is set by tails of the model no data could show (Enron's Binomial
``W∞ = 82`` against ``W_δ = 28`` at ``δ = 10⁻⁶``). With ``delta > 0`` the relation above uses the
window ``[d_min, d_max]`` of ``model.wasserstein(delta)``: for every secret pair a coupling keeps
the difference in it except with probability ``≤ δ`` under the attacker's prior
(:mod:`.coupling`, exact; conservative for the Binomial model). Conditioning on that event and
paying ``δ`` for the rest turns ``(ε, δ_M)`` stability of a release into ``(ε, δ_M + δ)``-Pufferfish
privacy for that pair (:func:`make_pufferfish_approximate`, which every release under such a
metric must go through: unwrapped, the queries refuse to run, since their pure-ε map would not
hold). Every stability rule below is unchanged: it reads only the window. ``δ`` is a probability
under the model, not noise randomness: for a person whose e-mail subjects are released, it is the
chance, as the model sees it, that their neighbourhood is one of the rare configurations for
which the noise was not scaled.

**Rényi Pufferfish (zCDP).** A Gaussian release ``space >> then_label_counts(c, V,
output_metric=dp.l2_distance(T=dp.f64)) >> dp.m.then_gaussian(scale=σ)`` (OpenDP adds discrete
Gaussian noise to the integer counts; one coupled flip moves one count by at most ``max(W, 1)``,
the queries applying no cap here: *Contribution bound* below) has the zCDP map ``ρ =
meas.map(1) = max(W, 1)²/(2σ²)``, and for every secret pair ``(s⁰ᵢₐ, s¹ᵢₐ)``, every attacker
``θ ∈ Θ_M`` and every order ``α > 1``, ``D_α(θ(M | s⁰ᵢₐ) ‖ θ(M | s¹ᵢₐ)) ≤ α·ρ``, and
symmetrically: Rényi Pufferfish privacy at every order (Pierquin, Bellet, Tommasi & Boussard
2024, arXiv 2312.13985, whose General Wasserstein Mechanism this is, with Gaussian noise and the
``W∞`` shift). Proof: with the coupling ``γ`` above, ``θ(M | s⁰) = Σ γ(G, G') law(M(G))`` and
``θ(M | s¹) = Σ γ(G, G') law(M(G'))`` are mixtures, with the same weights, over pairs at
distance ``≤ 1``, for each of which ``meas.check(1, ρ)`` certifies ``D_α(law(M(G)) ‖
law(M(G'))) ≤ α·ρ``; Rényi divergence is jointly quasi-convex (van Erven & Harremoës 2014,
*Rényi divergence and Kullback–Leibler divergence*, Theorem 13), so the mixtures diverge no more
than the worst coupled pair. *Composition*: ``γ`` couples whole labellings and does not depend
on the query, so the same step applies to the joint output of several releases under this
metric (adaptive ones included): ``dp.c.make_composition`` adds their ρ, and the sum holds for
Pufferfish. Bai, He, Gu, Kifer & Maeng (arXiv 2602.02718) show that Pufferfish mechanisms do not
compose in general and that linear composition needs added DP-style inequalities; here they are
OpenDP's, on the pairs of a coupling that does not depend on the query (not one built from a
single query's output laws: *Composition* above). :func:`opendp_graph.verify.exact_renyi_divergence`
computes these divergences exactly on small structures for the Binomial, Global, Conditional and
baseline models (``tests/pufferfish/test_renyi_pufferfish.py``: every secret pair, ``α`` from
1.5 to 64, single and composed releases).

*To (ε, δ).* ``dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(meas), δ)`` converts the map at
``d_in = 1``, a statement about pairs at distance ``≤ 1``, so the coupling step above carries the
``(ε, δ)`` to Pufferfish as for any ``(ε, δ)`` measurement. *Under the δ-relaxed metric*
(``pufferfish_distance(model, delta=δ_c)``) the coupling fails with probability ``δ_c``, which no
bound on ``D_α`` absorbs: convert first, then wrap,
``make_pufferfish_approximate(dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(meas), δ_M))``, an
``(ε, δ_M + δ_c)`` release. The wrapper refuses the zCDP measurement itself (its measure must be
``max_divergence`` or ``approximate(max_divergence)``), which refuses to run unwrapped.

>>> import opendp.prelude as dp, opendp_graph as dpg
>>> dp.enable_features("contrib", "honest-but-curious")
>>> model = dpg.pufferfish.BinomialModel(p0=0.01, p1=0.3, neighbour_counts=range(20))
>>> space = dpg.graph_domain(labeled=True), dpg.pufferfish_distance(model)
>>> l2 = dp.l2_distance(T=dp.f64)
>>> counts = space >> dpg.then_label_counts(3, ["gas", "power", "price"], output_metric=l2)
>>> release = counts >> dp.m.then_gaussian(scale=13.0)
>>> counts.map(1), release.map(1)  # ℓ2 = max(W, 1) = 13, ρ = 13²/(2·13²)
(13.0, 0.5)
>>> dp.c.make_composition([release, release]).map(1)  # two releases under the same model
1.0
>>> dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(release), 1e-7).map(1)[1]
1e-07
>>> relaxed = dpg.graph_domain(labeled=True), dpg.pufferfish_distance(model, delta=1e-6)
>>> gaussian = relaxed >> dpg.then_label_counts(3, ["gas", "power", "price"], output_metric=l2)
>>> gaussian = gaussian >> dp.m.then_gaussian(scale=12.0)
>>> approximate = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gaussian), 1e-7)
>>> wrapped = dpg.pufferfish.make_pufferfish_approximate(approximate)
>>> gaussian.map(1), wrapped.map(1)[1]  # W_δ = 12: ρ = 0.5; δ = δ_M + δ_c
(0.5, 1.1e-06)

**Coverage.** The coupling exists for the secrets the model describes, so every query under
this metric refuses a graph with ``not model.covers(graph)`` before it reads the labels (a
``ValueError`` in the query, which OpenDP re-raises as an ``OpenDPException``). The structure is
public under this metric, so the check reveals nothing protected. (The Polars unit
:func:`~opendp_graph.polars.pufferfish_unit` works on an edge-label table, which does not hold
the structure; there the caller must ensure coverage.)

**Vocabulary.** A model may describe only some properties (``model.vocabulary``, a tuple; the
Conditional model's are those it was fitted on) — then :attr:`PufferfishDistance.vocabulary` is
that tuple and the label queries read no other property: ``label_counts(c, V)`` with a property
of ``V`` outside it is refused at construction (the names are public arguments), and
``label_count_map(c)`` (no vocabulary) counts the model's properties only, first ``c`` of an
edge's in lexicographic order — still a rule that reads only that edge, so every stability
argument below is unchanged. Secrets about another property ``x`` then cost ``ε = 0``: by the
model's locality assumption a flip of ``x`` leaves the law of every other property unchanged,
and the query reads no ``x``. Models that pool over all properties (Binomial, Global,
Edge-level, Markov quilt) have ``vocabulary = None``: no restriction.

**Contribution bound.** The label queries take a per-edge bound ``c`` (``max_labels_per_edge``)
because at edge, node and Blowfish level it lowers the sensitivity. Here it cannot: one secret
flips one property, so without a cap only that property's count moves (``max(W, 1)`` per
secret), and a cap that binds lets the flip displace other properties (``2·max(hi, 1 − lo)``,
never less; proofs below). So under this metric the label queries apply no cap: ``c`` is
accepted for a uniform signature and not used, and every counted property of every edge is
counted (on Enron, ``label_count_map(1000)`` used to drop 25,773 of its 166,308 count units, 15 %,
for a larger noise).
The rules below still state both cases, for a contribution that does carry a cap.

**Data dependence.** If the model was fitted on the private graph, all of the above holds for
the attacker class of that fitted model only, and the model itself is an unprotected function
of the data (``model.data_dependent``; :meth:`~.models.CorrelationModel.summary`).
"""

from __future__ import annotations

import contextvars
import itertools
import math
from collections import deque
from dataclasses import dataclass, field
from fractions import Fraction
from typing import ClassVar

import opendp.prelude as dp

from ..core.graph import Graph
from ..core.metrics import MetricDescriptor, integer_d_in
from ..transformations.labels import (
    LABEL_COUNTS_MONOTONIC,
    LabelContribution,
    make_label_count_map,
    make_label_counts,
    monotonic_single_unit,
)
from ..transformations.rules import stability_rule
from .models import CorrelationModel, flip_bound

__all__ = ["PufferfishDistance", "pufferfish_distance", "make_pufferfish_approximate"]

INF = math.inf

# True while make_pufferfish_approximate runs its measurement: a query under a relaxed
# (delta > 0) metric runs only then, so its release is always accounted with the coupling's delta
_COUPLING_ACCOUNTED: contextvars.ContextVar[bool] = contextvars.ContextVar("pufferfish_coupling_accounted", default=False)


@dataclass(frozen=True, repr=False)
class PufferfishDistance(MetricDescriptor):
    """Descriptor of :func:`pufferfish_distance`; its ``repr`` (every field) is the identifier.

    ``model`` is compared through ``model_repr`` (class, parameters, provenance and a content
    hash of the fitted arrays), so two different models never give equal metrics.
    """

    label_cap_lowers_sensitivity: ClassVar[bool] = False
    """A per-edge cap ``c`` cannot lower a label query's sensitivity under this metric (one
    secret moves one property's count: ``max(W, 1)``; a binding cap makes it ``2·max(hi, 1 − lo)``,
    never less), so the label queries apply none: ``max_labels_per_edge`` is not used, and no
    count is dropped (module docstring, *Contribution bound*)."""

    one_edge_distance: ClassVar[float] = INF
    """The structure is public: adding an edge is not a neighbouring change."""

    model_repr: str
    d_min: int
    d_max: int
    flip_bound: int
    W: int
    model: CorrelationModel = field(compare=False)
    vocabulary: tuple[str, ...] | None = field(default=None, compare=False)
    """The properties the label queries may read (``model.vocabulary``), or ``None``: any. Part of
    the identifier through the model's fingerprint."""
    delta: float = 0.0
    """The coupling's failure probability (:func:`pufferfish_distance`, ``delta=``): ``0`` for the
    exact Wasserstein mechanism; part of the identifier when positive."""

    @property
    def release_wrapper(self) -> str | None:
        """``"make_pufferfish_approximate"`` under the δ-relaxed metric (every release pays the
        coupling's δ through it), else ``None``."""
        return "opendp_graph.pufferfish.make_pufferfish_approximate" if self.delta > 0 else None

    @property
    def lo(self) -> int:
        """Smallest quantile difference of one coupled flip, ``min(d_min, 1)``."""
        return min(self.d_min, 1)

    @property
    def hi(self) -> int:
        """Largest quantile difference of one coupled flip, ``max(d_max, 1)``."""
        return max(self.d_max, 1)

    def __repr__(self) -> str:
        coupling = f", delta={self.delta!r}" if self.delta > 0 else ""
        return (
            f"PufferfishDistance(model={self.model_repr}, d_min={self.d_min}, d_max={self.d_max}, flip_bound={self.flip_bound}, W={self.W}{coupling})"
        )

    def check_graph(self, graph: Graph) -> None:
        """Refuse a graph whose public structure the model does not cover (``model.covers``).

        Called by every query under this metric before it reads the graph. The guarantee is about
        the model's secrets; on a neighbourhood the model never described (a Binomial model fitted
        on other neighbourhood sizes, a Conditional bucket it never saw) ``W`` says nothing. Under
        this metric the structure is public (graphs with different structures are at distance
        ``inf``), so the check reveals nothing protected.
        """
        if self.delta > 0 and not _COUPLING_ACCOUNTED.get():
            raise ValueError(
                f"a release under pufferfish_distance(model, delta={self.delta!r}) must run inside "
                "dpg.pufferfish.make_pufferfish_approximate(measurement), whose privacy map adds the coupling's delta; "
                "alone, the measurement's map would report a pure epsilon that does not hold"
            )
        if not self.model.covers(graph):
            raise ValueError(
                f"{self.model_repr} does not cover this graph's structure (some neighbourhood is outside "
                "the sizes it was fitted on), so its W says nothing about these secrets; fit the model "
                "on this structure, or use one that covers it (MarkovQuiltModel.for_structure, EdgeLevelModel)"
            )

    # -------------------------------------------------------------- exact distance (tests)
    def related(self, g1: Graph, g2: Graph) -> bool:
        """Whether ``g2`` arises from ``g1`` (or ``g1`` from ``g2``) by one coupled secret flip."""
        if not _same_structure(g1, g2):
            return False
        a_sets, b_sets = g1.label_sets(), g2.label_sets()
        diff = [i for i, (x, y) in enumerate(zip(a_sets, b_sets)) if x != y]
        if not diff:
            return False
        props: set[str] = set()
        for i in diff:
            props |= a_sets[i] ^ b_sets[i]
        if len(props) != 1:
            return False
        (a,) = props
        for lo, hi in ((a_sets, b_sets), (b_sets, a_sets)):
            gained = [i for i in diff if a not in lo[i] and a in hi[i]]
            lost = [i for i in diff if a in lo[i] and a not in hi[i]]
            for centre in gained:
                others_gain = [i for i in gained if i != centre]
                if others_gain and lost:
                    continue
                d = 1 + len(others_gain) - len(lost)
                if not (min(self.d_min, 1) <= d <= max(self.d_max, 1)):
                    continue
                hood = _closed_neighbourhood(g1, centre)
                if all(i in hood for i in diff):
                    return True
        return False

    def distance(self, g1: Graph, g2: Graph) -> float:
        """Exact path distance in the coupled-flip relation (breadth-first search over
        labellings: exponential, for tests on tiny graphs). ``inf`` across structures."""
        if not _same_structure(g1, g2):
            return INF
        if g1 == g2:
            return 0
        if self.related(g1, g2):
            return 1
        target = tuple(g2.label_sets())
        props = sorted(set().union(*g1.label_sets(), *g2.label_sets()))
        start = tuple(g1.label_sets())
        seen = {start: 0}
        queue = deque([start])
        while queue:
            state = queue.popleft()
            for nxt in self._steps(g1, state, props):
                if nxt not in seen:
                    seen[nxt] = seen[state] + 1
                    if nxt == target:
                        return seen[nxt]
                    queue.append(nxt)
        return INF

    def _steps(self, g: Graph, state: tuple, props: list[str]):
        for centre in range(g.num_edges):
            others = sorted(_closed_neighbourhood(g, centre) - {centre})
            for a in props:
                for direction in (+1, -1):  # +1: centre gains a; -1: the reverse flip (centre loses a)
                    has = a in state[centre]
                    if (direction == +1 and has) or (direction == -1 and not has):
                        continue
                    for k in range(len(others) + 1):
                        for same_way in (True, False):
                            if k == 0 and not same_way:
                                continue
                            d = 1 + k if same_way else 1 - k
                            if not (min(self.d_min, 1) <= d <= max(self.d_max, 1)):
                                continue
                            # same_way: neighbours flip like the centre; else the opposite way
                            want_has = not has if same_way else has
                            pool = [i for i in others if (a in state[i]) != want_has]
                            for chosen in itertools.combinations(pool, k):
                                new = list(state)
                                for i in (centre, *chosen):
                                    new[i] = new[i] ^ frozenset([a])
                                yield tuple(new)


def _same_structure(g1: Graph, g2: Graph) -> bool:
    import numpy as np

    return g1.same_node_set(g2) and g1.is_labeled and g2.is_labeled and np.array_equal(g1.edge_keys, g2.edge_keys)


def _closed_neighbourhood(g: Graph, i: int) -> set[int]:
    u, v = int(g.src[i]), int(g.dst[i])
    src, dst = g.src.tolist(), g.dst.tolist()
    return {j for j in range(g.num_edges) if {src[j], dst[j]} & {u, v}}


def pufferfish_distance(model: CorrelationModel, *, delta: float = 0.0) -> dp.Metric:
    """The Pufferfish metric of a correlation model (see the module docstring for S, S_pairs,
    Θ, the meaning of ``d_in`` and composition).

    ``space >> dpg.then_label_counts(c, vocabulary) >> dp.m.then_laplace(scale)`` is then the
    Wasserstein mechanism (Song et al. Theorem 3.2) and ``>> dpg.then_corrected_laplace_threshold(...)``
    the correlation-aware set union; ``meas.map(1)`` is the ε for one secret pair.

    ``delta > 0`` gives the (ε, δ) relaxation (module docstring, *The (ε, δ) relaxation*): the
    coupled-flip relation uses the window ``[d_min, d_max]`` of ``model.wasserstein(delta)``,
    which every secret pair's coupling respects except with probability ``≤ delta``. Releases
    under it must be wrapped by :func:`make_pufferfish_approximate`, which adds that ``delta``
    to the privacy map; unwrapped, they refuse to run.

    :example:

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> model = dpg.pufferfish.BinomialModel(p0=0.01, p1=0.3, neighbour_counts=range(20))
    >>> model.W, model.flip_bound
    (13, 13)
    >>> space = dpg.graph_domain(labeled=True), dpg.pufferfish_distance(model)
    >>> (space >> dpg.then_label_counts(3, ["gas", "power", "price"])).map(1)  # one secret moves one count by ≤ W
    13
    >>> (space >> dpg.then_label_counts(1, ["gas", "power", "price"])).map(1)  # no cap here: c is not applied
    13
    >>> relaxed = dpg.graph_domain(labeled=True), dpg.pufferfish_distance(model, delta=1e-6)
    >>> (relaxed >> dpg.then_label_counts(3, ["gas", "power", "price"])).map(1)  # W_δ: 12 (W∞ = 13)
    12
    """
    from .coupling import check_delta

    dp.assert_features("contrib", "honest-but-curious")
    if not isinstance(model, CorrelationModel):
        raise TypeError(f"model must be a correlation model from opendp_graph.pufferfish, got {type(model).__name__}")
    delta = check_delta(delta)
    report = model.wasserstein(delta)
    descriptor = PufferfishDistance(
        model_repr=repr(model),
        d_min=report.d_min,
        d_max=report.d_max,
        # at δ > 0 the flips of the window's own coupling (the report's F_δ may come from another)
        flip_bound=report.flip_bound if delta == 0 else flip_bound(report.d_min, report.d_max),
        W=report.W,
        model=model,
        vocabulary=model.vocabulary,
        delta=delta,
    )
    return dp.user_distance(repr(descriptor), descriptor=descriptor)


def _add_rounding_up(a: float, b: float) -> float:
    """``a + b`` as the least float at least the exact sum (a privacy loss never rounds down)."""
    total = a + b
    if Fraction(total) < Fraction(a) + Fraction(b):
        total = math.nextafter(total, math.inf)
    return total


def make_pufferfish_approximate(measurement: dp.Measurement) -> dp.Measurement:
    """Release ``measurement``, built under ``pufferfish_distance(model, delta=δ_c)``, with an
    ``(ε, δ)`` privacy map under ``approximate(max_divergence)``: ``ε`` and ``δ_M`` from
    ``measurement.map(1)`` (pure ε: ``δ_M = 0``), and ``δ = δ_M + δ_c``.

    **Guarantee: (ε, δ_M + δ_c)-Pufferfish privacy for one secret pair** (``d_in = 1``; other
    ``d_in`` are refused: the statement is about one pair). Proof: for an attacker ``θ ∈ Θ_M``
    and a pair ``(s⁰ᵢₐ, s¹ᵢₐ)``, ``model.wasserstein(δ_c)`` certifies a coupling of the counts
    ``f | s⁰`` and ``f | s¹`` whose difference lies in the metric's window except with
    probability ``≤ δ_c`` (:mod:`.coupling`, exact or conservative); lifted to labellings as at
    ``δ = 0`` (module docstring), the good pairs ``(G, G')`` are at distance ``≤ 1``. If
    ``measurement`` is ``(ε, δ_M)`` at ``d_in = 1`` (what its map certifies), for every output set
    ``T``: ``Pr[M ∈ T | s⁰] = Σ γ(G, G') Pr[M(G) ∈ T] ≤ Σ_good γ (e^ε Pr[M(G') ∈ T] + δ_M) +
    γ(bad) ≤ e^ε Pr[M ∈ T | s¹] + δ_M + δ_c``, and symmetrically.

    **Composition.** The coupling depends on the model and the pair only, not on the query, so a
    *non-interactive* composition of measurements under the same metric, wrapped once
    (``make_pufferfish_approximate(dp.c.make_composition([m1, m2]))``), pays ``δ_c`` once: the
    proof above applies to the composed mechanism, which OpenDP certifies ``(Σε, Σδ_M)``.
    Wrapping each release and composing the wrapped measurements (OpenDP's compositors, the
    Context API: ``ctx(make_pufferfish_approximate(m))``) adds ``δ_c`` per release — conservative.
    A query under the relaxed metric refuses to run outside this wrapper (the answers of an
    interactive compositor wrapped here are computed later, outside it, so they refuse too). The
    guard is a context variable set while the wrapper runs its measurement: user code run there
    could capture that context (``contextvars.copy_context()``, an ``asyncio`` task) and release
    an unwrapped query later; such code is what ``"honest-but-curious"`` asks you to vouch for.

    **Calibration.** Calibrate the inner measurement to ε with OpenDP's
    ``dp.binary_search_param`` (its map is pure ε), or a thresholded release with
    :func:`~opendp_graph.calibrate_laplace_threshold` at ``δ − δ_c``; then wrap it. Searching
    the wrapped chain itself, ``dp.binary_search_param(lambda s: make_pufferfish_approximate(...),
    d_in=1, d_out=(ε, δ))``, works when ``δ`` is the metric's ``δ_c`` (OpenDP 0.16 then compares
    the ε alone; with another δ it raises "unknown ordering"), also for a composition wrapped
    once (a composed budget: one scale for all its releases).

    :param measurement: a measurement whose input metric is ``pufferfish_distance(model,
        delta=...)`` and whose output measure is ``max_divergence`` or
        ``approximate(max_divergence)``.

    :example:

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> model = dpg.pufferfish.BinomialModel(p0=0.01, p1=0.3, neighbour_counts=range(20))
    >>> space = dpg.graph_domain(labeled=True), dpg.pufferfish_distance(model, delta=1e-6)
    >>> counts = space >> dpg.then_label_counts(3, ["gas", "power", "price"])
    >>> scale = dp.binary_search_param(lambda s: counts >> dp.m.then_laplace(scale=s), d_in=1, d_out=1.0)
    >>> release = dpg.pufferfish.make_pufferfish_approximate(counts >> dp.m.then_laplace(scale=scale))
    >>> scale, release.map(1)
    (12.0, (1.0, 1e-06))
    """
    dp.assert_features("contrib", "honest-but-curious")
    if not isinstance(measurement, dp.Measurement):
        raise TypeError(f"measurement must be an OpenDP Measurement, got {type(measurement).__name__}")
    metric = measurement.input_metric
    descriptor = getattr(metric, "descriptor", None) if metric.type == "ExtrinsicDistance" else None
    if not isinstance(descriptor, PufferfishDistance):
        raise TypeError(f"measurement must be built under dpg.pufferfish_distance(model, delta=...), got input metric {metric}")
    pure = measurement.output_measure == dp.max_divergence()
    if not pure and measurement.output_measure != dp.approximate(dp.max_divergence()):
        raise TypeError(f"the measurement's privacy measure must be max_divergence or approximate(max_divergence), got {measurement.output_measure}")
    delta = descriptor.delta

    def function(graph):
        token = _COUPLING_ACCOUNTED.set(True)
        try:
            return measurement(graph)
        finally:
            _COUPLING_ACCOUNTED.reset(token)

    def privacy_map(d_in):
        if integer_d_in(d_in) != 1:
            raise ValueError(f"the (ε, δ) Pufferfish guarantee is stated for one secret pair: d_in must be 1, got {d_in!r}")
        loss = measurement.map(1)
        epsilon, delta_m = (loss, 0.0) if pure else loss
        return float(epsilon), _add_rounding_up(float(delta_m), delta)

    wrapped = dp.m.make_user_measurement(
        measurement.input_domain,
        metric,
        dp.approximate(dp.max_divergence()),
        function=function,
        privacy_map=privacy_map,
    )
    # the release is ``measurement``'s: dpg.accuracy reads its noise through this reference
    wrapped._opendp_graph_inner = measurement
    return wrapped


# ----------------------------------------------------------------------------- stability
_ONE_FLIP = """
    **One coupled flip** (``d_in = 1``; larger ``d_in`` by the triangle inequality, every bound
    below being linear in ``d_in``). ``G`` and ``G'`` differ only in property ``a`` on the
    closed neighbourhood of a centre edge ``i``, with ``d ∈ [lo, hi]``, ``lo = min(d_min, 1)``,
    ``hi = max(d_max, 1)`` (module docstring; or the reverse, which gives the same distances):

    * ``d ≥ 1``: ``i`` and ``d − 1`` other edges gain ``a``, ``d`` edges in all;
    * ``d ≤ 0``: ``i`` gains ``a`` and ``k = 1 − d ≥ 1`` other edges lose it.

    Each edge contributes the first ``c`` of its counted properties (those of the query's
    vocabulary, or the model's), a rule that reads only that edge, so only the flipped edges
    change their contribution, and a flipped edge changes it by ``±a`` and at most one
    *displaced* property (the one the contribution bound pushes out, or lets back in), or not
    at all (``a`` ranked after ``c`` others). Let ``x ∈ {0, 1}`` say whether ``i`` contributes
    ``a`` in ``G'`` (where it carries it) and ``y`` how many of the other flipped edges
    contribute ``a`` on the side where they carry it (``G'`` if they gain it, ``G`` if they lose
    it); only those ``x + y`` edges change their contribution.

    * ``d ≥ 1``: ``a``'s count moves by ``x + y ≤ d``, and at most ``x + y`` displaced
      properties move by one each: L1 ``≤ 2d``.
    * ``d ≤ 0``: ``a``'s count moves by ``|x − y|`` and at most ``x + y`` displaced properties
      move: L1 ``≤ |x − y| + x + y = 2·max(x, y) ≤ 2k = 2(1 − d)``.

    So L1 ``≤ 2·max(hi, 1 − lo)``. **When the cap cannot bind** — ``c`` is at least the number
    of properties the query can count (``len(vocabulary)``, or of the model's vocabulary), or
    the domain promises at most ``c`` labels per edge (``graph_domain(max_labels_per_edge=m)``,
    ``m ≤ c``) — nothing is ever displaced and every edge carrying a counted ``a`` contributes it
    (``x = 1``, ``y = k``): only ``a``'s count moves, by ``d`` (``d ≥ 1``) or ``k − 1 = −d``
    (``d ≤ 0``): L1 ``≤ max(hi, −lo) = max(W, 1)``. If ``a`` is not counted nothing moves.
    (With the domain promise, the guarantee is for attackers whose prior respects it, as every
    domain restriction: a graph breaking it is refused before it is read.)
"""


@stability_rule(make_label_counts, PufferfishDistance)
def _pufferfish_counts(domain, metric: PufferfishDistance, c):
    """L1 ``2·max(hi, 1 − lo)·d_in`` when the contribution bound ``c`` can bind, else
    ``max(hi, −lo)·d_in = max(W, 1)·d_in`` (``0`` if no edge can contribute anything).
    """
    c = LabelContribution.of(c)
    if c.effective == 0:
        bound = 0
    elif c.can_displace:
        bound = 2 * max(metric.hi, 1 - metric.lo)
    else:
        bound = max(metric.hi, -metric.lo)
    return lambda d_in: bound * integer_d_in(d_in)


_pufferfish_counts.__doc__ = (_pufferfish_counts.__doc__ or "") + (
    _ONE_FLIP
    + """
    **Tight** (the brute-force tests enumerate every flip of every labelling of small
    structures). With the cap binding: ``hi`` edges each holding ``c`` properties, ``a`` not
    last, gain ``a`` (``2·hi``; needs a closed neighbourhood of ``hi`` edges and ``c + 1``
    properties), or, for ``d = lo ≤ 0``, a centre whose ``c`` properties all rank before ``a``
    gains it while ``1 − lo`` edges holding ``a`` and a property ranked after it lose it
    (``2(1 − lo)``; needs ``2 − lo`` edges in a closed neighbourhood and ``c + 2`` properties).
    Without it: ``hi`` edges gain ``a``, or a centre gains it while ``1 − lo`` edges lose it.

    **The paper's** ``c·W`` (§5.1.1). When the cap binds it is below ``2·max(hi, 1 − lo)`` —
    so it under-noises, and the brute force realises the difference — for ``c = 1`` always; for
    ``c = 2`` when ``d_min ≤ 0`` and ``d_max < 1 − d_min``; for ``c = 3`` when ``W = 1`` and
    ``d_min = −1``; and for every ``c`` when ``W = 0`` (then also when the cap cannot bind).
    Otherwise it is sound (``max(hi, 1 − lo) ≤ W + 1``) but looser.
"""
)


@stability_rule(LABEL_COUNTS_MONOTONIC, PufferfishDistance)
def _pufferfish_counts_monotonic(domain, metric: PufferfishDistance, c):
    """``max(hi, −lo) = max(W, 1)`` at ``d_in = 1`` into ``linf_distance(monotonic=True)``, when
    the cap cannot bind: one coupled flip then moves the flipped property's count only (proof of
    ``label_counts`` below), and a change of one coordinate is monotonic. When the cap can bind a
    flip may raise one count and lower a displaced one: refused (no query under this metric
    builds a capped contribution; the branch states the rule for one that would)."""
    c = LabelContribution.of(c)
    if c.can_displace:
        raise ValueError(
            "a monotonic L∞ bound under a Pufferfish metric needs a contribution bound that cannot drop a "
            "property (max_labels_per_edge at least the vocabulary's size): otherwise one flip can raise one count "
            "and lower another; use dp.linf_distance(T=dp.i64)"
        )
    return monotonic_single_unit(max(metric.hi, -metric.lo) if c.effective else 0)


@stability_rule(make_label_count_map, PufferfishDistance)
def _pufferfish_map(domain, metric: PufferfishDistance, c):
    """``(ℓ0, ℓ1, ℓ∞)`` per unit of ``d_in``, with ``M = max(hi, 1 − lo)``:

    * the cap can bind: ``(1 + hi, 2M, M)`` if ``lo ≥ 0``, else ``(max(1 + hi, 3 − lo), 2M, M)``
      (ℓ0 at most the number of counted properties, if known);
    * it cannot: ``(1, max(hi, −lo), max(hi, −lo))``; all ``0`` if no edge can contribute.
    """
    c = LabelContribution.of(c)
    lo, hi = metric.lo, metric.hi
    if c.effective == 0:
        per = (0, 0, 0)
    elif c.can_displace:
        m = max(hi, 1 - lo)
        per = (c.keys(1 + hi if lo >= 0 else max(1 + hi, 3 - lo)), 2 * m, m)
    else:
        m = max(hi, -lo)
        per = (1, m, m)

    def stability(d_in):
        d = integer_d_in(d_in)
        return tuple(x * d for x in per)

    return stability


_pufferfish_map.__doc__ = (_pufferfish_map.__doc__ or "") + (
    _ONE_FLIP
    + """
    **The map** (same notation). ℓ1 as for ``label_counts``. ℓ∞: ``a`` moves by ``x + y ≤ hi``
    (``d ≥ 1``) or ``|x − y| ≤ k`` (``d ≤ 0``); a displaced property ``p`` moves by at most the
    number of flipped edges displacing it, ``≤ y ≤ hi`` (``d ≥ 1``), or by ``−1`` at the centre
    and ``+1`` per other edge letting it back in, ``|·| ≤ max(1, k) = k`` (``d ≤ 0``): ``M``. ℓ0:
    ``a`` and at most ``x + y`` displaced properties: ``1 + hi`` (``d ≥ 1``); for ``d ≤ 0``,
    ``x + y + [x ≠ y] ≤ max(2, k + 2)`` (when ``x = y = 1``, ``a`` does not move), i.e. ``2`` for
    ``lo = 0`` (``≤ 1 + hi``) and ``3 − lo`` for ``lo ≤ −1``. Without displacement only ``a``
    moves: ``(1, max(hi, −lo), max(hi, −lo))``. The keys are counted properties, so ℓ0 is also at
    most their number when the vocabulary is known.
"""
)
