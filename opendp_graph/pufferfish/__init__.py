"""Pufferfish privacy for correlated edge properties (Shafieinejad et al., paper 001).

The graph structure is public; the properties on the edges (e.g. the n-grams of the e-mails two
people exchanged) are secret, and neighbouring edges are correlated. A correlation model
(:class:`BinomialModel`, :class:`GlobalModel`, :class:`ConditionalModel`, or a baseline)
describes the attackers; :func:`pufferfish_distance` turns it into an OpenDP input metric under
which the label-count queries of :mod:`opendp_graph.transformations` have stability bounds, so
``space >> dpg.then_label_counts(...) >> dp.m.then_laplace(scale)`` is the Wasserstein mechanism
of Song, Wang & Chaudhuri (2017).

Every model says which structures it describes (``model.covers(graph)``; the queries refuse the
others before reading a label) and which properties (``model.vocabulary``: ``None`` for the models
that pool over all properties; the Conditional model's fitted properties, the only ones the
queries may then read). Models are immutable (their ``W`` is cached and carried by the metrics
built from them), and pickle and deep-copy.

The top-level namespace lifts :func:`pufferfish_distance` and :class:`PufferfishDistance` to ``dpg.``; the rest
lives here: ``dpg.pufferfish.BinomialModel.fit(graph)``, ``dpg.pufferfish.w_infinity(p, q)``, ...

The (ε, δ) relaxation — per secret pair, a coupling allowed to leave its window with probability
``δ`` under the attacker's prior — is ``model.wasserstein(delta)`` (:mod:`.coupling`:
``w_delta``, ``flip_delta``, ``min_failure``, ...); ``pufferfish_distance(model, delta=δ)`` is
the relaxed metric, and :func:`make_pufferfish_approximate` releases under it with an
``(ε, δ)`` privacy map that includes the coupling's δ.
"""

from . import models
from .coupling import (
    DeltaBounds,
    binomial_delta_bounds,
    binomial_min_failure_bound,
    delta_bounds,
    flip_delta,
    min_failure,
    optimal_coupling,
    quantile_failure,
    w_delta,
)
from .metric import PufferfishDistance, make_pufferfish_approximate, pufferfish_distance
from .models import (
    BinomialModel,
    ConditionalModel,
    CorrelationModel,
    EdgeLevelModel,
    GlobalModel,
    MarkovQuiltModel,
    WassersteinReport,
    fit_all,
    flip_bound,
)
from .models.binomial import fit_binomial_dp
from .wasserstein import QuantileGaps, quantile_gap_range, w_infinity

__all__ = [
    "pufferfish_distance",
    "PufferfishDistance",
    "make_pufferfish_approximate",
    "fit_binomial_dp",
    *models.__all__,
    "w_infinity",
    "QuantileGaps",
    "quantile_gap_range",
    "DeltaBounds",
    "binomial_delta_bounds",
    "binomial_min_failure_bound",
    "delta_bounds",
    "flip_delta",
    "min_failure",
    "optimal_coupling",
    "quantile_failure",
    "w_delta",
]
