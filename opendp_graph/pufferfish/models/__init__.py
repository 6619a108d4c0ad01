"""Correlation models for edge properties (paper 001 §4.3) and the ``W`` each one implies.

A model ``M`` describes a class of attackers ``Θ_M``: for every secret pair "edge ``i`` lacks /
carries property ``a``", the law of ``f(i, a)``, the number of edges of the closed neighbourhood
``N[i]`` that carry ``a`` (the central edge included). Its ``W`` (Song, Wang & Chaudhuri,
Theorem 3.2) and flip bound calibrate the Pufferfish metric
(:mod:`opendp_graph.pufferfish.metric`). Each kind has its module; every name is importable from
here and from :mod:`opendp_graph.pufferfish`:

* :mod:`~opendp_graph.pufferfish.models.base` — :class:`CorrelationModel`,
  :class:`WassersteinReport`, :func:`flip_bound`;
* :mod:`~opendp_graph.pufferfish.models.binomial` — :class:`BinomialModel` (paper §4.3.3, the
  least informed attacker);
* :mod:`~opendp_graph.pufferfish.models.global_model` — :class:`GlobalModel` (§4.3.2, one pooled
  law);
* :mod:`~opendp_graph.pufferfish.models.conditional` — :class:`ConditionalModel` (§4.3.1, per
  frequency and size bucket);
* :mod:`~opendp_graph.pufferfish.models.baselines` — :class:`EdgeLevelModel`,
  :class:`MarkovQuiltModel` (public structure only);
* :func:`fit_all` (here) — the three fitted models from one pass over the graph.

The attackers' beliefs, what each model covers, its vocabulary, immutability, and what a fit's
``source=`` asserts about the fitting graph (and what the guarantee is when that assertion is
false) are documented in :ref:`correlation-models` (``docs/guarantees.md``). Each model's
docstring keeps its own proofs (``W``, flip bound, coverage) with the paper's references.
"""

from __future__ import annotations

from typing import Any

from ...core.graph import Graph
from . import _validators
from . import base as _base
from .base import CorrelationModel, WassersteinReport, _neighbourhood_stats, flip_bound
from .baselines import EdgeLevelModel, MarkovQuiltModel
from .binomial import BinomialModel
from .conditional import ConditionalModel
from .global_model import GlobalModel

__all__ = [
    "CorrelationModel",
    "BinomialModel",
    "GlobalModel",
    "ConditionalModel",
    "EdgeLevelModel",
    "MarkovQuiltModel",
    "WassersteinReport",
    "flip_bound",
    "fit_all",
]


def fit_all(graph: Graph, *, base: float = 10.0, source: str = "private", progress: Any = None) -> dict[str, CorrelationModel]:
    """The three models from one pass of :func:`._stats.neighbourhood_stats` (shared work):
    ``{"Binomial": ..., "Global": ..., "Conditional": ...}``, each equal to its own ``fit`` with
    the same arguments.

    ``source`` (keyword-only; :doc:`/guarantees`, *Source*) states where ``graph`` comes from.
    ``"private"`` (the default): it is the graph whose labels will be released, or derived from it;
    every model has ``data_dependent = True`` and :meth:`~CorrelationModel.summary` warns that a
    release is ε-Pufferfish only for this fitted model's attackers and that ``W`` (and the
    Conditional model's vocabulary) is disclosed unprotected. ``"public"``: **your assertion**, not
    checked, that ``graph`` is public or independent of the private data to be released (an earlier
    public snapshot, an auxiliary or synthetic graph); every model has ``data_dependent = False``,
    ``fitted_on`` and ``summary()`` say "asserted public by the caller". If the assertion is false
    the model is a function of the private data and the guarantee is exactly that of a
    ``"private"`` fit — ε-Pufferfish for this fitted model's attackers only, ``W`` (and the
    Conditional model's vocabulary) disclosed unprotected, no DP guarantee for the choice of model
    — only without the warning. Any other value: ``ValueError``.

    ``progress`` (the shared pass, and later the Binomial ``W``): ``None`` shows a progress line on
    an interactive terminal once a stage has run two seconds (silent in pipes and tests);
    ``True``/``False`` force it on/off; a callable receives ``(stage, done, total)``
    (:mod:`opendp_graph.core._progress`).
    """
    g = _validators.check_graph(graph)
    base = _validators.check_base(base)
    fitted_on, dependent = _validators.check_source(source)
    st = _base._neighbourhood_stats(g, base=base, progress=progress)
    assert g.vocabulary is not None  # check_graph: the graph is labeled
    return {
        "Binomial": BinomialModel._from_stats(st, fitted_on, dependent, progress),
        "Global": GlobalModel._from_stats(st, fitted_on, dependent),
        "Conditional": ConditionalModel._from_stats(st, fitted_on, dependent, g.vocabulary),
    }
