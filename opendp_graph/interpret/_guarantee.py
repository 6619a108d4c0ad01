"""What an edge-DP measurement promises about single edges (Hehir, Niu & Slavković, §3–4).

* **Edge DP** (Definition 2): for two *complete* graphs differing in one edge, no test based on
  the release has power above ``e^ε · level`` (Theorem 2.1 / Corollary 4.3 in Pufferfish form).
* **Edge secrets** ("is ``{i,j}`` an edge?") against an adversary with a prior ``P_θ``: the same
  ε holds if edges are independent under every admissible ``P_θ`` (Theorem 4.1); if conditioning on
  one edge moves the rest of the graph by at most ``e^α`` (Lemma 4.1, Eq. 2), the guarantee is
  ``ε + α``; otherwise none (Example 1: the two queens).

:func:`edge_secret_guarantee` reads ε (and δ) from an OpenDP measurement whose input metric is
an opendp-graph metric, and adds α.  **Approximate DP** (our extension, not in the paper): the
proof of Lemma 4.1 sums ``P(M(g∪e) ∈ S) ≤ e^ε P(M(g\\e) ∈ S) + δ`` against the weights
``P(g∪e | e) ≤ e^α P(g\\e | ¬e)``, and those weights sum to 1, so ``(ε, δ)``-edge DP gives
``(ε + α, δ)`` for edge secrets; likewise Theorem 4.1's direction "edge DP ⇒ Pufferfish".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real
from typing import Any

import opendp.prelude as dp

from ..core.domains import GraphDomain
from ..core.metrics import metric_descriptor
from ._ergm import AlphaReport

__all__ = ["EdgeSecretGuarantee", "edge_secret_guarantee", "describe_guarantee"]


def _one_edge_distance(descriptor: Any) -> float | None:
    """The distance of a one-edge change under the metric (``inf`` where some one-edge change is
    not a finite distance: the metric does not protect edges), or ``None`` when the metric does
    not say: its declared :attr:`~opendp_graph.core.metrics.MetricDescriptor.one_edge_distance`."""
    return descriptor.one_edge_distance


@dataclass(frozen=True)
class EdgeSecretGuarantee:
    """The guarantee of a measurement for one edge, in both readings (see :func:`edge_secret_guarantee`).

    ``str()`` and :meth:`summary` give it in words (:func:`describe_guarantee`).
    """

    epsilon_edge_dp: float
    """ε of the measurement for two graphs one edge apart (Definition 2): its privacy map at the
    distance of a one-edge change under its input metric (``d_in``). Holds whatever the adversary
    knows, for the graphs the input domain accepts (``domain_restriction``)."""
    delta: float
    """δ of the measurement at that distance: ``0.0`` for a pure-DP (max divergence) measurement;
    for an approximate-DP one, the δ its map returns, carried unchanged to the edge-secret
    reading (module docstring)."""
    alpha: float
    """The dependence level α of Lemma 4.1 (Eq. 2) the guarantee assumes: ``0`` for independent
    edges (Theorem 4.1), the ``alpha`` of an :class:`~opendp_graph.interpret.AlphaReport`, or
    ``inf`` for no assumption (then nothing is promised about a single relationship)."""
    epsilon_edge_secret: float
    """``epsilon_edge_dp + alpha``: the ε of the edge secrets ("is ``{i,j}`` an edge?") against
    an adversary whose prior satisfies the assumption (Lemma 4.1), with the same ``delta``."""
    metric: str
    """The measurement's input metric, as OpenDP prints it (e.g. ``"EdgeDistance()"``)."""
    assumption: str
    """The distribution class behind ``alpha``, in words (the caller's ``assumption=``, or the
    default sentence for α = 0 / α > 0); :meth:`summary` quotes it."""
    domain_restriction: str = ""
    """The promises of the measurement's input domain (``num_nodes``, ``max_degree``, …) in words,
    or ``""``: the guarantee covers only graphs that keep them."""

    def summary(self) -> str:
        """A plain-language account: what is protected, against whom, under which assumptions."""
        return describe_guarantee(self)

    def __str__(self) -> str:
        return self.summary()


def _epsilon_delta(measurement: Any, d_in: Any) -> tuple[float, float]:
    measure = measurement.output_measure
    name = str(measure)
    out = measurement.map(d_in)
    if name == "MaxDivergence":
        return float(out), 0.0
    if name.startswith("Approximate(MaxDivergence"):
        eps, delta = out
        return float(eps), float(delta)
    raise ValueError(
        f"the guarantee is stated for pure or approximate DP (max divergence); the measurement's output "
        f"measure is {name}: convert it first (e.g. dp.c.make_zCDP_to_approxDP then dp.c.make_fix_delta)"
    )


def edge_secret_guarantee(measurement: Any, alpha: float = 0.0, *, d_in: Any = None, assumption: str | None = None) -> EdgeSecretGuarantee:
    """The edge-secret guarantee of an edge-DP OpenDP measurement under a dependence level α (Lemma 4.1).

    :param measurement: an OpenDP ``Measurement`` on graphs, with an opendp-graph input metric
        (``dpg.edge_distance()``; node, group and degree-sequence distances are also understood,
        since they bound the distance of a one-edge change) and a pure or approximate DP measure.
    :param alpha: the α of Lemma 4.1 for the adversary's class of graph distributions
        (0 for independent edges, Theorem 4.1; ``math.inf`` for "no assumption"), or the
        :class:`~opendp_graph.interpret.AlphaReport` of :func:`ergm_alpha`: α depends on the number
        of nodes, so a report is accepted only for a measurement whose domain fixes that
        ``num_nodes`` (a bare number is the caller's claim for the graphs the measurement will see).
    :param d_in: the input distance of a one-edge change, for a metric this package does not
        define. Refused for this package's metrics, whose one-edge distance is known; metrics
        under which a one-edge change is not a finite distance (edge-label and Pufferfish
        metrics: the structure is public; Blowfish policies with VIPs: an edge between two
        standard people is not protected) are refused, since they promise nothing about edges.
    :param assumption: words for the distribution class, used in the summary.
    :return: :class:`EdgeSecretGuarantee` with ``epsilon_edge_secret = ε + α``.

    **Privacy guarantee (proof sketch).** ``ε = measurement.map(d)`` with ``d`` the distance of
    two graphs differing in one edge, so the measurement is ε-edge-DP (Definition 2); Lemma 4.1
    then gives ``(ε + α)``-Pufferfish for the edge secrets, and with δ the same proof gives
    ``(ε + α, δ)`` (module docstring).

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> meas = (dpg.graph_domain(), dpg.edge_distance()) >> dpg.then_edge_count() >> dp.m.then_laplace(scale=2.0)
    >>> g = edge_secret_guarantee(meas, alpha=0.25)
    >>> g.epsilon_edge_dp, g.epsilon_edge_secret
    (0.5, 0.75)
    """
    if not isinstance(measurement, dp.Measurement):
        raise TypeError(f"measurement must be an OpenDP Measurement, got {type(measurement).__name__}")
    domain = _graph_domain_or_none(measurement.input_domain)
    if isinstance(alpha, AlphaReport):
        if alpha.num_nodes is not None and (domain is None or domain.num_nodes != alpha.num_nodes):
            stated = "no num_nodes" if domain is None or domain.num_nodes is None else f"num_nodes={domain.num_nodes}"
            raise ValueError(
                f"α was computed for graphs on {alpha.num_nodes} nodes, but the measurement's domain has {stated}: "
                f"build it on graph_domain(num_nodes={alpha.num_nodes}, ...) or compute α for the graphs it will see"
            )
        alpha = alpha.alpha
    if isinstance(alpha, bool) or not isinstance(alpha, Real) or math.isnan(float(alpha)) or alpha < 0:
        raise ValueError(f"alpha must be a non-negative number (or math.inf), got {alpha!r}")
    try:
        desc = metric_descriptor(measurement.input_metric)
    except TypeError:
        desc = None
    known = None if desc is None else _one_edge_distance(desc)
    if known is not None and math.isinf(known):
        raise ValueError(
            f"under {measurement.input_metric} a one-edge change is not a neighbouring change (it is at infinite "
            "distance), so the measurement promises nothing about single edges"
        )
    if known is not None and d_in is not None:
        raise ValueError(f"d_in is known for {measurement.input_metric} (a one-edge change is at distance {known}); do not pass it")
    if d_in is None:
        if known is None:
            raise ValueError(f"cannot tell the distance of a one-edge change under {measurement.input_metric}; pass d_in=")
        d_in = known
    eps, delta = _epsilon_delta(measurement, d_in)
    if assumption is None:
        assumption = (
            "the edges are independent under the adversary's prior (Theorem 4.1)"
            if alpha == 0
            else f"conditioning on one edge changes the probability of the rest of the graph by at most e^{float(alpha):g} (Lemma 4.1)"
        )
    return EdgeSecretGuarantee(
        epsilon_edge_dp=eps,
        delta=delta,
        alpha=float(alpha),
        epsilon_edge_secret=eps + float(alpha),
        metric=str(measurement.input_metric),
        assumption=assumption,
        domain_restriction=_restriction(domain),
    )


def _graph_domain_or_none(domain: Any) -> GraphDomain | None:
    try:
        descriptor = domain.descriptor
    except Exception:  # built-in OpenDP domains have no Python descriptor
        return None
    return descriptor if isinstance(descriptor, GraphDomain) else None


def _restriction(domain: GraphDomain | None) -> str:
    if domain is None:
        return ""
    promises = []
    if domain.num_nodes is not None:
        promises.append(f"exactly {domain.num_nodes} nodes")
    if domain.max_degree is not None:
        promises.append(f"every degree at most {domain.max_degree}")
    if getattr(domain, "max_labels_per_edge", None) is not None:
        promises.append(f"at most {domain.max_labels_per_edge} labels per edge")
    return ", ".join(promises)


def _exp(x: float) -> float:
    """``e^x`` for the summary, ``inf`` past the float range (ε above ~709 protects nothing)."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def describe_guarantee(guarantee: EdgeSecretGuarantee) -> str:
    """A plain-language summary of an :class:`EdgeSecretGuarantee`.

    It states (1) what edge DP protects for sure (two complete graphs one edge apart, any
    adversary), (2) what it says about a single relationship, and under which assumption, and
    (3) what it does *not* say, because the usual sentence "an edge-DP release protects individual
    edges" is only true under the stated assumption (paper, §3.1).
    """
    if not isinstance(guarantee, EdgeSecretGuarantee):
        raise TypeError("guarantee must be an EdgeSecretGuarantee")
    eps, delta, alpha, tot = guarantee.epsilon_edge_dp, guarantee.delta, guarantee.alpha, guarantee.epsilon_edge_secret
    dtxt = f" plus an additive slack δ = {delta:g}" if delta > 0 else ""
    lines = [
        f"What is protected for certain (ε = {eps:.4g}{f', δ = {delta:g}' if delta else ''}, metric {guarantee.metric}):",
        "  Anyone who already knows the whole network except whether one particular pair is linked cannot use",
        "  this release to tell the two versions apart: any test that is wrong at most a fraction a of the time",
        f"  under one version detects the other with probability at most e^{eps:.4g} · a = {_exp(eps):.4g} · a{dtxt}.",
        (
            "  This holds whatever the network looks like and whatever else the adversary knows."
            if not guarantee.domain_restriction
            else f"  This holds for networks the release accepts ({guarantee.domain_restriction}), whatever else the adversary"
            "\n  knows. A network outside them is refused, and the refusal itself tells it apart: a one-edge change that"
            "\n  crosses the promise is not covered (and Lemma 4.1 below needs the prior to stay inside it too)."
        ),
        "",
        "What it says about a single relationship ('are i and j linked?') for an adversary who does NOT know the rest:",
    ]
    if math.isinf(alpha):
        lines += [
            "  Nothing, without an assumption about how relationships depend on each other. If the network's",
            "  edges are strongly dependent (e.g. one tie changes the density of all others, as with the two queens",
            "  of Hehir, Niu & Slavković, Example 1), the release can reveal that relationship with near certainty.",
        ]
    else:
        lines += [
            f"  Under the assumption that {guarantee.assumption},",
            (
                f"  the same statement holds for a single relationship, with the same factor e^{eps:.4g} (no loss)."
                if alpha == 0
                else f"  the same statement holds with e^{tot:.4g} = {_exp(tot):.4g} in place of e^{eps:.4g}"
                f" (α = {alpha:.4g} added for the dependence)."
            ),
            "  If the real network has stronger dependence than assumed, this number does not apply.",
        ]
    lines += [
        "",
        "What it does not promise: that other people's relationships, or the network's overall structure, stay",
        "hidden; node attributes are not covered by edge-level privacy at all.",
    ]
    return "\n".join(lines)
