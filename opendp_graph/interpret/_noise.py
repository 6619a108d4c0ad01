"""Which noise to add: Laplace (pure ε), Gaussian through zCDP, or the Wasserstein δ-relaxation of
a Pufferfish model, compared for one query from public figures only.

:func:`choose_noise` builds each route's measurement for the same query, neighbour notion and
target ``(ε, δ)``, calibrates its scale with OpenDP's ``dp.binary_search_param`` and states its
per-entry error with :func:`opendp_graph.accuracy`. Nothing is released and no private value is
read: the maps and the accuracy read public parameters only.

**When each wins** (per entry, at the same ``(ε, δ)``). Laplace's scale grows with the query's L1
sensitivity ``Δ₁``, the Gaussian's with its L2 sensitivity ``Δ₂`` times about ``√(2 ln(1/δ))/ε``
(OpenDP's zCDP-to-(ε, δ) conversion). The Gaussian wins when one unit moves many entries a
little (``Δ₂ ≪ Δ₁``: ``c`` n-grams per e-mail pair, ``Δ₁ = 50``, ``Δ₂ = √50``) and when many
releases are composed (ρ adds, so the Gaussian's scale grows like ``√k``, Laplace's like ``k``);
Laplace wins when one unit moves one entry (``Δ₁ = Δ₂``: a Pufferfish secret moves one count,
by ``W``). Under a Pufferfish model the δ-relaxed Wasserstein route replaces ``W∞`` by the
smaller ``W_δ`` (:func:`opendp_graph.pufferfish_distance`, ``delta=``), at the price of a δ that
is a probability under the model's prior.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import opendp.prelude as dp

from ..core._checks import open_probability, positive_integer
from ..measurements import zcdp_budget
from ..measurements._context import privacy_budget
from ..measurements.accuracy import Accuracy, PartsAccuracy, SelectionAccuracy, accuracy, readable
from ..pufferfish.metric import PufferfishDistance, make_pufferfish_approximate, pufferfish_distance

__all__ = ["NoiseOption", "NoiseChoice", "choose_noise"]

_ROUTES = {
    "laplace": "pure ε-DP: OpenDP's Laplace on the L1 form of the query",
    "gaussian": "(ε, δ)-DP through ρ-zCDP: OpenDP's Gaussian on the ℓ2 form, converted by make_zCDP_to_approxDP",
    "laplace_wasserstein_delta": "(ε, δ)-Pufferfish: Laplace calibrated to W_δ (δ from the model's prior)",
    "gaussian_wasserstein_delta": "(ε, δ)-Pufferfish: Gaussian calibrated to W_{δ/2}, zCDP converted at δ/2",
}


@dataclass(frozen=True)
class NoiseOption:
    """One route of :func:`choose_noise`: its ``measurement`` (ready to release), the noise
    ``scale``, the per-entry ``half_width`` at the choice's ``alpha`` (:func:`opendp_graph.accuracy`)
    and the noise's standard deviation ``std``; or, when the route does not apply, ``refused``
    with the reason (and the other fields ``None``)."""

    route: str
    guarantee: str
    measurement: Any = None
    scale: float | None = None
    half_width: float | None = None
    std: float | None = None
    refused: str | None = None
    not_included: str | None = None
    """What the query drops before the noise (a cap that can bind, a projection): the half-width
    is around the capped answer, not the true one (:attr:`opendp_graph.Accuracy.not_included`)."""

    def __str__(self) -> str:
        if self.refused is not None:
            return f"{self.route}: not available ({self.refused})"
        assert self.scale is not None and self.half_width is not None and self.std is not None  # an available route's (_option)
        return f"{self.route}: scale {readable(self.scale)}, ±{readable(self.half_width)} per entry, std {readable(self.std)} — {self.guarantee}"


def _half_width(option: NoiseOption) -> float:
    assert option.half_width is not None  # an available route's (_option)
    return option.half_width


@dataclass(frozen=True)
class NoiseChoice:
    """The routes compared by :func:`choose_noise`; :attr:`best` is the available one with the
    smallest per-entry half-width."""

    epsilon: float
    delta: float
    alpha: float
    options: tuple[NoiseOption, ...]

    @property
    def best(self) -> NoiseOption:
        available = [o for o in self.options if o.refused is None]
        if not available:
            raise ValueError("no route applies: " + "; ".join(str(o) for o in self.options))
        return min(available, key=_half_width)

    @property
    def not_included(self) -> str | None:
        """What every route's half-width leaves out (the routes answer the same query, so they
        share its cap and its bias), or ``None`` when the query drops nothing."""
        return next((o.not_included for o in self.options if o.not_included is not None), None)

    def __str__(self) -> str:
        head = f"noise for (ε, δ) = ({self.epsilon:g}, {self.delta:g}), per-entry {100 * (1 - self.alpha):g} % half-widths:"
        lines = [head] + [f"  {o}" for o in self.options]
        available = [o for o in self.options if o.refused is None]
        if available:
            lines.append(f"best: {self.best.route}")
        if self.not_included is not None:
            lines.append(
                "the half-widths are around the query's capped answer, not the true one; the routes share the "
                f"query and so its bias, and are ranked on noise. Not included: {self.not_included}"
            )
        return "\n".join(lines)


def _std(noise: str, scale: float) -> float:
    """The standard deviation of OpenDP's noise of that law and scale (discrete laws exactly for the
    Laplace, ``≤ σ`` for the discrete Gaussian, stated as ``σ``)."""
    if noise == "discrete_laplace":
        q = math.exp(-1.0 / scale) if scale > 0 else 0.0
        return math.sqrt(2 * q) / (1 - q) if scale > 0 else 0.0
    if noise == "laplace":
        return scale * math.sqrt(2)
    return scale


def _meets(measurement, d_in, d_out) -> bool:
    spent = measurement.map(d_in)
    if isinstance(d_out, tuple):
        return spent[0] <= d_out[0] and spent[1] <= d_out[1]
    return spent <= d_out


def _option(route: str, release, account, d_in: int, d_out, alpha: float, share=None) -> NoiseOption:
    """Calibrate ``account(release(scale))`` (the whole budget's measurement: composed, converted
    or wrapped) to ``d_out`` at ``d_in``; the half-width is one release's (``release(scale)``).

    ``share``, when given, is one release's budget in its own measure (``ε/k``; for zCDP ``ρ/k``
    with ``ρ`` from :func:`~opendp_graph.zcdp_budget`): the scale is searched on one release, and
    kept only if the whole measurement then meets ``d_out`` (OpenDP's composition adds the parts
    exactly); otherwise, and without a share, the whole measurement is searched (slower)."""
    try:
        scale = None
        if share is not None:
            scale = dp.binary_search_param(release, d_in=d_in, d_out=share)
            if not _meets(account(release(scale)), d_in, d_out):
                scale = None
        if scale is None:
            scale = dp.binary_search_param(lambda s: account(release(s)), d_in=d_in, d_out=d_out)
        measurement = account(release(scale))
        acc = accuracy(release(scale), alpha)
        if isinstance(acc, PartsAccuracy):  # one part only here: a single query's noise
            acc = acc.worst
        assert isinstance(acc, (Accuracy, SelectionAccuracy))  # one query's noise, not a choice among candidates
    except (ValueError, TypeError, dp.OpenDPException) as error:
        return NoiseOption(route, _ROUTES[route], refused=str(error).strip().splitlines()[-1][:300])
    return NoiseOption(
        route,
        _ROUTES[route],
        measurement=measurement,
        scale=float(scale),
        half_width=float(acc.half_width),
        std=_std(acc.noise, float(scale)),
        not_included=acc.not_included,
    )


# long: docstring (its guarantee, parameters and refusals) beside code of under 100 lines
def choose_noise(
    input_domain: dp.Domain,
    input_metric: dp.Metric,
    query,
    *args: Any,
    privacy_loss: tuple[Any, Any],
    d_in: int = 1,
    alpha: float = 0.05,
    releases: int = 1,
    **kwargs: Any,
) -> NoiseChoice:
    """Compare the noises that release ``query(input_domain, input_metric, *args, **kwargs)`` within
    ``privacy_loss`` for input distance ``d_in``, from public figures only, and say which has
    the smallest per-entry error.

    Routes (each calibrated with ``dp.binary_search_param``; :class:`NoiseOption` says why one
    does not apply):

    * ``"laplace"``: the query as given (its L1 form) ``>> dp.m.then_laplace``: pure ε.
    * ``"gaussian"``: the query with ``output_metric=dp.l2_distance(T=dp.f64)`` ``>>
      dp.m.then_gaussian``, converted by OpenDP's ``make_zCDP_to_approxDP`` and
      ``make_fix_delta(δ)``: ``(ε, δ)``. Needs ``delta > 0`` and a query with an ℓ2 form.
    * under a Pufferfish metric with ``delta > 0``: ``"laplace_wasserstein_delta"`` (the same
      query under ``pufferfish_distance(model, delta=δ)``, wrapped by
      :func:`~opendp_graph.pufferfish.make_pufferfish_approximate`) and
      ``"gaussian_wasserstein_delta"`` (the ℓ2 form under ``delta=δ/2``, its zCDP converted at
      ``δ/2``, then wrapped).

    :param query: a ``make_x`` constructor of this package that takes ``output_metric=`` (label
        counts, degree histograms).
    :param privacy_loss: the budget, OpenDP's pair: ``dp.loss_of(epsilon=ε)`` (pure ε: the Laplace
        routes only) or ``dp.loss_of(epsilon=ε, delta=δ)`` (every route; each is within ``(ε, δ)``).
    :param d_in: the input distance to protect.
    :param alpha: the per-entry significance level of the half-widths.
    :param releases: how many releases of this query (or of queries with the same sensitivities)
        share the budget: each route composes that many copies with OpenDP's
        ``make_composition`` (ε adds for Laplace; ρ adds for the Gaussian, then one conversion;
        under the δ-relaxed Pufferfish routes the composition is wrapped once, so δ is paid
        once) and calibrates one scale for all; ``measurement`` is then the composition.
    :return: a :class:`NoiseChoice`; ``choice.best.measurement`` is ready to release.

    :example:

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> space = dpg.graph_domain(labeled=True), dpg.edge_distance()
    >>> vocabulary = [f"w{i}" for i in range(100)]
    >>> choice = dpg.choose_noise(*space, dpg.make_label_counts, 50, vocabulary, privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-6))
    >>> [(o.route, round(o.scale, 1), o.half_width) for o in choice.options]
    [('laplace', 50.0, 150.0), ('gaussian', 32.0, 63.0)]
    >>> choice.best.route  # 50 words per pair: ℓ2 = √50 against L1 = 50
    'gaussian'
    >>> dpg.choose_noise(*space, dpg.make_label_counts, 1, vocabulary, privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-6)).best.route
    'laplace'
    """
    dp.assert_features("contrib", "honest-but-curious")
    budget = privacy_budget(privacy_loss, ("epsilon", "epsilon, delta"), "choose_noise")
    epsilon, delta = budget["epsilon"], budget.get("delta", 0.0)
    d_in = positive_integer("d_in", d_in)
    alpha = open_probability("alpha", alpha)
    releases = positive_integer("releases", releases)

    def k(measurement):  # the budget's share of each release: one scale for `releases` copies
        return measurement if releases == 1 else dp.c.make_composition([measurement] * releases)

    if not callable(query):
        raise TypeError(f"query must be a make_x constructor, got {query!r}")
    # only the Pufferfish routes need the metric's kind: any metric with a query that takes
    # output_metric= (graph metrics, dpg.polars.person_log_distance() for person-level text) works
    descriptor = getattr(input_metric, "descriptor", None) if isinstance(input_metric, dp.Metric) else None
    if not isinstance(input_metric, dp.Metric):
        raise TypeError(f"input_metric must be an OpenDP metric, got {type(input_metric).__name__}")
    l2 = dp.l2_distance(T=dp.f64)

    built: dict = {}  # each form is built once per metric: the calibration searches only the noise

    def form(metric, ell2: bool):
        key = (id(metric), ell2)
        if key not in built:
            extra = {"output_metric": l2} if ell2 else {}
            built[key] = query(input_domain, metric, *args, **extra, **kwargs)
        return built[key]

    def l1_form(metric):
        return form(metric, False)

    def l2_form(metric):
        return form(metric, True)

    def zcdp_to(target_delta):
        return lambda m: dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(k(m)), target_delta)

    options = []
    if isinstance(descriptor, PufferfishDistance) and descriptor.delta > 0:
        raise ValueError(
            "pass the exact Pufferfish metric (pufferfish_distance(model), delta 0): choose_noise builds the "
            "δ-relaxed routes itself from its model and the δ target"
        )
    laplace = lambda s: l1_form(input_metric) >> dp.m.then_laplace(scale=s)  # noqa: E731
    options.append(_option("laplace", laplace, k, d_in, epsilon, alpha, share=epsilon / releases))
    if delta > 0:
        gaussian = lambda s: l2_form(input_metric) >> dp.m.then_gaussian(scale=s)  # noqa: E731
        rho_share = zcdp_budget(epsilon, delta) / releases
        options.append(_option("gaussian", gaussian, zcdp_to(delta), d_in, (epsilon, delta), alpha, share=rho_share))
    else:
        options.append(NoiseOption("gaussian", _ROUTES["gaussian"], refused="the Gaussian needs δ > 0"))
    if isinstance(descriptor, PufferfishDistance):
        if delta > 0:
            relaxed = pufferfish_distance(descriptor.model, delta=delta)
            half = pufferfish_distance(descriptor.model, delta=delta / 2)
            laplace = lambda s: l1_form(relaxed) >> dp.m.then_laplace(scale=s)  # noqa: E731
            gaussian = lambda s: l2_form(half) >> dp.m.then_gaussian(scale=s)  # noqa: E731
            wrap_k = lambda m: make_pufferfish_approximate(k(m))  # noqa: E731
            wrap_zcdp = lambda m: make_pufferfish_approximate(zcdp_to(delta / 2)(m))  # noqa: E731
            rho_share = zcdp_budget(epsilon, delta / 2) / releases
            options.append(_option("laplace_wasserstein_delta", laplace, wrap_k, d_in, (epsilon, delta), alpha, share=epsilon / releases))
            options.append(_option("gaussian_wasserstein_delta", gaussian, wrap_zcdp, d_in, (epsilon, delta), alpha, share=rho_share))
        else:
            for route in ("laplace_wasserstein_delta", "gaussian_wasserstein_delta"):
                options.append(NoiseOption(route, _ROUTES[route], refused="the δ-relaxed coupling needs δ > 0"))
        # the first two routes are Pufferfish guarantees here (same coupling argument, exact W)
        options[:2] = [replace(o, guarantee=o.guarantee.replace("-DP", "-Pufferfish (W∞)")) for o in options[:2]]
    return NoiseChoice(epsilon=epsilon, delta=delta, alpha=alpha, options=tuple(options))
