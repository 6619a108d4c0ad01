"""R2T's race over caps and a release at a cap chosen under DP: the measurements that sit on the
multi-owner truncation (:mod:`opendp_graph.transformations._multi_owner`: records that several
people own, a capped total moving by at most ``τ`` per person).

R2T releases ``Q(τ)`` with Laplace noise at several public caps and keeps the best lower bound;
:func:`laplace_at_each_cap`, :func:`selection_budget` and :func:`release_at_chosen_cap` are the
parts the package's releases share (a cap chosen under DP, then one release at that cap).
"""

from __future__ import annotations

import opendp.prelude as dp

from .accuracy import attach_choice_accuracy

__all__ = [
    "laplace_at_each_cap",
    "selection_budget",
    "release_at_chosen_cap",
]


def laplace_at_each_cap(caps: tuple[float, ...], chain_at, d_in: int, epsilon: float) -> list[tuple[dp.Measurement, float]]:
    """For each public cap ``τ``, ``chain_at(τ) >> Laplace`` calibrated by ``dp.binary_search_param``
    to ``epsilon`` at ``d_in``, with its scale: the releases a choice of cap picks from (every one
    costs the same ``epsilon``, so which is picked tells nothing the choice did not). A budget no
    finite scale reaches is refused in plain words."""
    releases = []
    for tau in caps:
        chain = chain_at(tau)

        def noisy(s: float, c: dp.Transformation = chain) -> dp.Measurement:
            return c >> dp.m.then_laplace(scale=s)

        try:
            scale = dp.binary_search_param(noisy, d_in=d_in, d_out=epsilon, T=float)
        except Exception as error:  # OpenDP's search fails when no finite scale reaches so small a budget
            raise ValueError(
                f"no noise scale reaches ε = {epsilon!r} at d_in = {d_in!r} for the cap {tau:g}: raise ε, or lower the caps or d_in"
            ) from error
        releases.append((chain >> dp.m.then_laplace(scale=scale), float(scale)))
    return releases


def selection_budget(epsilon: float, releases: list[tuple[dp.Measurement, float]], d_in: int) -> float:
    """What choosing the cap may spend: ``epsilon`` less the releases' (:func:`laplace_at_each_cap`:
    each costs the same), a hair below, so that the parts' floating-point sum stays within ``epsilon``."""
    return (epsilon - max(m.map(d_in) for m, _ in releases)) * (1 - 1e-9)


def release_at_chosen_cap(
    input_domain: dp.Domain,
    input_metric: dp.Metric,
    epsilon: float,
    d_in: int,
    selector: dp.Measurement | None,
    releases: list[tuple[dp.Measurement, float]],
    run,
    *,
    parameter: str,
    caps: tuple[float, ...],
    bias: str,
) -> dp.Measurement:
    """OpenDP's adaptive composition of ``selector`` (``None``: a single cap, no choice) and the
    release at the cap it chooses, one of ``releases``, post-processed by ``run(queryable)``, as
    one ``max_divergence`` measurement whose maps add to at most ``epsilon``; :func:`~opendp_graph.accuracy`
    states each cap's noise and ``bias``. ``run`` reads the selector, then queries one release:
    every release costs the same, so which one is asked tells nothing the choice did not."""
    d_mids = [max(m.map(d_in) for m, _ in releases)]
    if selector is not None:
        d_mids.insert(0, selector.map(d_in))
    if sum(d_mids) > epsilon:
        raise ValueError(f"the parts' budgets {d_mids} exceed ε = {epsilon!r} after rounding; change selection_share")
    composition = dp.c.make_adaptive_composition(input_domain, input_metric, dp.max_divergence(), d_in=d_in, d_mids=d_mids)
    return attach_choice_accuracy(
        composition >> dp.new_function(run, TO="ExtrinsicObject"),
        parameter,
        "laplace",
        [(tau, scale) for tau, (_, scale) in zip(caps, releases)],
        bias=bias,
    )
