"""Is a Pufferfish release worth publishing at ε = 1? The table of issue 13.

For a labelled graph (Enron's n-grams, Deezer's shared genres) and each privacy notion — edge
level, the Binomial, Global and Conditional models with their exact ``W∞`` and with ``W_δ``,
the group baseline (the paper's ``2·Dmax − 1`` and the tight largest neighbourhood) — at
``ε ∈ {1, 10}`` and ``δ = 10⁻⁶`` in all:

* ``W`` and the Laplace scale of the label counts (OpenDP's ``binary_search_param`` to ε;
  releases under ``W_δ`` are wrapped by :func:`~opendp_graph.pufferfish.make_pufferfish_approximate`,
  whose privacy map is then ``(ε, δ)``);
* the RMSE of the released counts against the truth over ``trials`` releases, and how many counts
  stand clear of the noise (true count above twice the 95 % half-width);
* the set union (``then_label_count_map >> then_corrected_laplace_threshold``) calibrated to ``(ε, δ)`` in all
  by :func:`~opendp_graph.calibrate_laplace_threshold` (for ``W_δ`` rows the coupling takes
  ``δ/2`` and the threshold the other half): its threshold and the number of properties released.

Every noisy value comes from an OpenDP measurement applied to the exact query answer (the chain's
function is ``noise(query(G))``, so the query runs once and each trial re-runs the noise stage).
The models are fitted on the private graph, as in the paper: their noise is data-dependent
(``model.summary()``), and so is the vocabulary (all properties, by frequency).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import opendp.prelude as dp

from opendp_graph import graph_domain, pufferfish_distance, then_label_count_map, then_label_counts
from opendp_graph.measurements.threshold import calibrate_laplace_threshold, make_corrected_laplace_threshold
from opendp_graph.pufferfish import EdgeLevelModel, MarkovQuiltModel, fit_all, make_pufferfish_approximate
from opendp_graph.transformations.labels import label_count_map, label_counts

__all__ = ["usefulness_rows", "COLUMNS"]

COLUMNS = ["notion", "epsilon", "delta", "W", "scale", "rmse", "clear", "threshold", "released"]


def _notions(graph, models: dict[str, Any]) -> list[tuple[str, Any, bool]]:
    """(name, model, relaxed?) for every row, in the order printed."""
    rows = [("edge level", EdgeLevelModel(), False)]
    for name in ("Binomial", "Global", "Conditional"):
        rows.append((f"{name}, exact W", models[name], False))
        rows.append((f"{name}, W_delta", models[name], True))
    rows.append(("group, paper 2*Dmax-1", MarkovQuiltModel.for_graph(graph), False))
    rows.append(("group, tight", MarkovQuiltModel.for_structure(graph), False))
    return rows


def _counts_row(graph, model, relaxed: bool, epsilon: float, delta: float, c: int, vocab, true: np.ndarray, trials: int) -> dict:
    space = graph_domain(labeled=True), pufferfish_distance(model, delta=delta if relaxed else 0.0)
    query = space >> then_label_counts(c, vocab)
    scale = dp.binary_search_param(lambda s: query >> dp.m.then_laplace(scale=s), d_in=1, d_out=epsilon)
    chain = query >> dp.m.then_laplace(scale=scale)
    privacy = (make_pufferfish_approximate(chain) if relaxed else chain).map(1)
    noise = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), scale)
    squared = [float(np.mean((np.asarray(noise(true.tolist())) - true) ** 2)) for _ in range(trials)]
    half_width = dp.discrete_laplacian_scale_to_accuracy(scale, alpha=0.05)
    return {
        "W": space[1].descriptor.W,
        "scale": scale,
        "privacy": privacy,
        "rmse": math.sqrt(float(np.mean(squared))),
        "clear": int((true > 2 * half_width).sum()),
    }


def _union_row(graph, model, relaxed: bool, epsilon: float, delta: float, c: int, vocab, true_map: dict, trials: int) -> dict:
    coupling = delta / 2 if relaxed else 0.0
    count_map = (graph_domain(labeled=True), pufferfish_distance(model, delta=coupling)) >> then_label_count_map(c, vocab)
    scale, threshold = calibrate_laplace_threshold(count_map, 1, epsilon, delta - coupling)
    release = make_corrected_laplace_threshold(count_map.output_domain, count_map.output_metric, scale=scale, threshold=threshold)
    released = [len(release(true_map)) for _ in range(trials)]
    return {"threshold": threshold, "released": float(np.mean(released))}


def usefulness_rows(
    graph,
    *,
    c: int,
    vocab: list[str] | None = None,
    epsilons: tuple[float, ...] = (1.0, 10.0),
    delta: float = 1e-6,
    trials: int = 5,
    models: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """One row per (notion, ε): see the module docstring. ``vocab``: the public list of properties
    the counts (and the set union) read; ``None``: every property of ``graph`` by decreasing
    frequency for the counts, and no list for the set union. ``models`` defaults to
    :func:`~opendp_graph.pufferfish.fit_all`."""
    models = models if models is not None else fit_all(graph)
    union_vocab = vocab
    if vocab is None:
        freq = np.asarray(graph.labels.sum(axis=0)).ravel()
        vocab = [graph.vocabulary[i] for i in np.argsort(-freq, kind="stable")]
    true = np.asarray(label_counts(graph, c, vocab), dtype=np.int64)
    true_map = label_count_map(graph, c, union_vocab)
    rows = []
    for name, model, relaxed in _notions(graph, models):
        for epsilon in epsilons:
            counts = _counts_row(graph, model, relaxed, epsilon, delta, c, vocab, true, trials)
            union = _union_row(graph, model, relaxed, epsilon, delta, c, union_vocab, true_map, trials)
            rows.append(
                {
                    "notion": name,
                    "epsilon": epsilon,
                    "delta": counts["privacy"][1] if isinstance(counts["privacy"], tuple) else 0.0,
                    "W": counts["W"],
                    "scale": counts["scale"],
                    "rmse": counts["rmse"],
                    "clear": counts["clear"],
                    **union,
                }
            )
    return rows
