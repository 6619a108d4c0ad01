"""Releases of n-gram counts: every order (unigrams to trigrams) under **one budget**, and the
person-level counts of a log where a message has several owners.

* :func:`make_ngram_count_release` (a labelled pair graph) and :func:`make_ngram_count_composition`
  (count transformations of your own) compose one noisy count vector per n-gram order with
  OpenDP's ``make_composition``: Gaussian noise under ρ-zCDP (the ρ of the orders add; Bun &
  Steinke 2016, Lemma 2.3) or Laplace noise under pure ε (the ε add), each order's scale found by
  ``dp.binary_search_param`` for its share of the budget. The counts are the package's
  (``then_label_counts`` on a pair-label graph: edge, group, Blowfish or Pufferfish privacy) or
  any count transformations (``make_person_ngram_counts`` below).
* :func:`make_person_ngram_counts` counts, per message, the n-grams of every message whose owners
  (its sender and all its recipients) include anyone: **person level** (add or remove a person
  with every message they sent or received), on the domain of logs where nobody owns more than
  ``max_messages`` messages (:func:`person_text_domain`; a log outside it is refused before
  anything is counted).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import Any, cast

import numpy as np
import opendp.prelude as dp

from ..core._bias import state_bias, stated_bias
from ..core._checks import positive_finite, positive_integer
from ..core._frozen import ReadOnlyFields
from ..measurements._context import privacy_budget
from ..measurements.accuracy import attach_parts_accuracy
from ..transformations import then
from ..transformations.labels import l2_bound, monotonic_single_unit, then_label_counts

__all__ = [
    "NGramRelease",
    "make_ngram_count_release",
    "then_ngram_count_release",
    "make_ngram_count_composition",
    "make_person_ngram_counts",
    "then_person_ngram_counts",
    "person_text_domain",
]

NOISES = {"laplace": "pure ε-DP (Laplace noise, ℓ1 counts)", "gaussian": "ρ-zCDP (Gaussian noise, ℓ2 counts)"}


def _order_of(key: str) -> int:
    return len(key.split(" "))


def _keys_by_order(keys: Any) -> dict[int, list[str]]:
    if not isinstance(keys, Mapping) or not keys:
        raise TypeError("keys must be a non-empty mapping {order: [n-grams of that order]}, e.g. {1: ['gas'], 2: ['gas price']}")
    out: dict[int, list[str]] = {}
    for n, names in sorted(keys.items()):
        if isinstance(n, bool) or not isinstance(n, Integral) or n < 1:
            raise ValueError(f"keys: every order must be a positive integer, got {n!r}")
        if isinstance(names, str) or not isinstance(names, Sequence) or not names:
            raise TypeError(f"keys[{n}] must be a non-empty sequence of n-grams (words joined by one space)")
        seen = set()
        for key in names:
            if not isinstance(key, str) or not key.strip() or key != " ".join(key.split()):
                raise ValueError(f"keys[{n}]: every n-gram must be words joined by single spaces, got {key!r}")
            if _order_of(key) != n:
                raise ValueError(f"keys[{n}] holds {key!r}, an n-gram of order {_order_of(key)}")
            if key in seen:
                raise ValueError(f"keys[{n}] lists {key!r} twice")
            seen.add(key)
        out[int(n)] = list(names)
    return out


def _shares(shares: Any, orders: list[int]) -> dict[int, float]:
    if shares is None:
        return {n: 1.0 / len(orders) for n in orders}
    if not isinstance(shares, Mapping) or set(shares) != set(orders):
        raise ValueError(f"shares must give one fraction per order {orders}, got {shares!r}")
    out = {n: positive_finite(f"shares[{n}]", shares[n]) for n in orders}
    if abs(sum(out.values()) - 1.0) > 1e-9:
        raise ValueError(f"shares must sum to 1, got {sum(out.values())!r}")
    return out


@dataclass(frozen=True)
class NGramRelease(ReadOnlyFields):
    """What :func:`make_ngram_count_release` returns: the noisy counts of every key, with the
    noise's public law (its kind and scale per order), which the language model's denoising
    reads (:meth:`~opendp_graph.text.NGramModel.from_release`)."""

    counts: dict[str, float]
    scales: dict[int, float]
    noise: str
    joint: bool = False  # one vector for every order (one noise scale), or one release per order

    def __repr__(self) -> str:
        scales = ", ".join(f"{n}: {s:.4g}" for n, s in self.scales.items())
        return f"NGramRelease({len(self.counts)} counts, noise={self.noise!r}, scales={{{scales}}})"


_GUARANTEE = """

    **Guarantee.** With ``privacy_loss=dp.loss_of(rho=ρ)``: ρ-zCDP at ``d_in``; each order ``n`` is
    OpenDP's Gaussian on an ℓ2 count vector, calibrated to ``shares[n]·ρ``, and
    ``dp.c.make_composition`` adds the ρ (zCDP composes additively, Bun & Steinke 2016, Lemma 2.3;
    OpenDP's compositor applies it), so the whole is ``Σ shares[n]·ρ = ρ``. With
    ``dp.loss_of(epsilon=ε)``: pure ε-DP the same way, with Laplace on ℓ1 vectors. Under a
    Pufferfish metric the two compose as the package's Pufferfish releases do (sums of ε, or of ρ
    for Rényi Pufferfish: :mod:`opendp_graph.pufferfish.metric`). With ``joint=True`` the orders
    are one vector (every key, order by order) and one noise draw at the whole budget: no
    composition, and the right choice where a unit moves the vector the same whatever its length
    (a Pufferfish secret moves one count by ``W``: split over three orders it would pay ``W`` three
    times). The output is pure post-processing of the noisy vectors: an :class:`NGramRelease`.
"""

_BUDGET_PARAMETERS = """
    :param privacy_loss: the budget, OpenDP's pair as ``dp.Context`` takes it:
        ``dp.loss_of(rho=ρ)`` (zCDP, Gaussian noise) or ``dp.loss_of(epsilon=ε)`` (pure DP,
        Laplace noise).
    :param d_in: the input distance the budget is for (1: one edge, person, …).
    :param shares: each order's fraction of the budget (default: equal; not with ``joint``).
"""


def _shared_text(constructor: Any) -> Any:
    """Put the budget's parameters and the guarantee, shared by the two releases, in the docstring
    (its ``{budget}`` and ``{guarantee}``; no docstring under ``python -OO``)."""
    if constructor.__doc__:
        constructor.__doc__ = constructor.__doc__.replace("{budget}", _BUDGET_PARAMETERS).replace("{guarantee}", _GUARANTEE)
    return constructor


@_shared_text
def make_ngram_count_release(
    input_domain: dp.Domain,
    input_metric: dp.Metric,
    privacy_loss: tuple[Any, Any],
    keys: Mapping[int, Sequence[str]],
    *,
    max_ngrams_per_edge: int | Mapping[int, int],
    d_in: Any = 1,
    shares: Mapping[int, float] | None = None,
    joint: bool = False,
) -> dp.Measurement:
    """The noisy counts of every n-gram order's public ``keys`` on a labelled pair graph, under one
    budget: :func:`~opendp_graph.then_label_counts` with ``max_ngrams_per_edge`` per order (or once,
    ``joint``), OpenDP's noise, the orders composed. For count transformations of your own (e.g.
    :func:`make_person_ngram_counts`), :func:`make_ngram_count_composition`.

    :param input_domain: ``graph_domain(labeled=True)``: a labelled pair graph (as
        :func:`~opendp_graph.text.pair_ngram_graph` builds: each pair's n-gram set on its edge).
    :param input_metric: the graph's metric (edge, group, Blowfish or Pufferfish privacy).{budget}    :param keys: ``{order: [public n-grams of that order]}``; the released counts' keys.
    :param max_ngrams_per_edge: the per-edge cap ``c`` of ``then_label_counts`` (one number, or
        one per order; one number with ``joint``).
    :param joint: one vector and one noise scale for every order.
    {guarantee}
    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> from opendp_graph.text import make_ngram_count_release
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> keys = {1: ["gas", "power"], 2: ["gas power"], 3: ["<s> gas power"]}
    >>> release = make_ngram_count_release(dpg.graph_domain(labeled=True), dpg.edge_distance(), dp.loss_of(rho=0.5), keys,
    ...                                    max_ngrams_per_edge=4)
    >>> release.map(1) <= 0.5, round(release.map(1), 6)   # never above the budget
    (True, 0.5)
    """
    dp.assert_features("contrib", "honest-but-curious")
    by_order = _keys_by_order(keys)
    noise, budget, d_in = _budget(privacy_loss, d_in, shares, joint, "make_ngram_count_release")
    space = (input_domain, input_metric)
    if joint:
        if isinstance(max_ngrams_per_edge, Mapping):
            raise TypeError("a joint release has one cap for every order: max_ngrams_per_edge must be one number")
        every = _every_key(by_order)
        return _joint_release(_graph_counts(space, every, max_ngrams_per_edge, noise), by_order, noise, budget, d_in)
    caps = dict(max_ngrams_per_edge) if isinstance(max_ngrams_per_edge, Mapping) else dict.fromkeys(by_order, max_ngrams_per_edge)
    if set(caps) != set(by_order):
        raise ValueError(f"max_ngrams_per_edge gives caps for orders {sorted(caps)}, keys for {sorted(by_order)}")
    per_order = {n: _graph_counts(space, by_order[n], caps[n], noise) for n in by_order}
    return _per_order_release(per_order, by_order, shares, noise, budget, d_in)


then_ngram_count_release = then(make_ngram_count_release)


@_shared_text
def make_ngram_count_composition(
    counts: dp.Transformation | Mapping[int, dp.Transformation],
    keys: Mapping[int, Sequence[str]],
    *,
    privacy_loss: tuple[Any, Any],
    d_in: Any = 1,
    shares: Mapping[int, float] | None = None,
    joint: bool = False,
) -> dp.Measurement:
    """The noisy counts of every n-gram order's public ``keys`` from count transformations of your
    own, under one budget: OpenDP's noise on each, the orders composed (a combinator, like OpenDP's
    ``dp.c.make_composition``; :func:`make_ngram_count_release` is the graph form).

    :param counts: ``{order: transformation}``, each counting exactly ``keys[order]`` in that order
        and ending in the noise's metric (ℓ2 for ``rho``, ℓ1 for ``epsilon``), e.g.
        :func:`make_person_ngram_counts`; with ``joint=True`` one transformation counting every key
        of ``keys``, order by order.
    :param keys: ``{order: [public n-grams of that order]}``; the released counts' keys.{budget}    :param joint: one transformation, one vector and one noise scale for every order.
    {guarantee}
    The keys each transformation counts (its ``counted_keys``, recorded by
    :func:`make_person_ngram_counts` and :func:`~opendp_graph.make_label_counts`) must be
    ``keys[order]`` in order: the vector is labelled by position, so another order would release a
    count under another key (refused when built).

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> words = dpg.text.make_person_ngram_counts(dpg.text.person_text_domain(2), dpg.polars.person_log_distance(),
    ...                                           ["gas", "power"], 1, output_metric=dp.l2_distance(T=dp.f64))
    >>> release = dpg.text.make_ngram_count_composition({1: words}, {1: ["gas", "power"]}, privacy_loss=dp.loss_of(rho=0.5))
    >>> round(release.map(1), 6)
    0.5
    """
    dp.assert_features("contrib", "honest-but-curious")
    by_order = _keys_by_order(keys)
    noise, budget, d_in = _budget(privacy_loss, d_in, shares, joint, "make_ngram_count_composition")
    if joint:
        if not isinstance(counts, dp.Transformation):
            raise TypeError("a joint release takes one transformation counting every key, order by order (not one per order)")
        every = _every_key(by_order)
        _check_ends_in("counts", counts, noise)
        _check_counts_keys("counts", counts, every, "the keys of every order, order by order")
        return _joint_release(counts, by_order, noise, budget, d_in)
    if isinstance(counts, dp.Transformation):
        raise TypeError("one transformation counts every key at once: pass joint=True, or one transformation per order")
    if not isinstance(counts, Mapping):
        raise TypeError(f"counts must be {{order: transformation}} (or one transformation with joint=True), got {type(counts).__name__}")
    if set(counts) != set(by_order):
        raise ValueError(f"counts gives transformations for orders {sorted(counts)}, keys for {sorted(by_order)}")
    for n, t in counts.items():
        _check_ends_in(f"counts[{n}]", t, noise)
        _check_counts_keys(f"counts[{n}]", t, by_order[n], f"keys[{n}]")
    return _per_order_release(dict(counts), by_order, shares, noise, budget, d_in)


def _every_key(by_order: dict[int, list[str]]) -> list[str]:
    """Every key, order by order: the joint vector's layout."""
    return [k for n in by_order for k in by_order[n]]


def _budget(privacy_loss: Any, d_in: Any, shares: Any, joint: Any, name: str) -> tuple[str, float, int]:
    """The noise (``"gaussian"`` for ρ, ``"laplace"`` for ε), the budget and ``d_in``, checked."""
    spent = privacy_budget(privacy_loss, ("rho", "epsilon"), name)
    d_in = positive_integer("d_in", d_in)  # units (edges, people, secrets): a float was read as its floor (red team)
    if not isinstance(joint, bool):
        raise TypeError(f"joint must be a bool, got {joint!r}")
    if joint and shares is not None:
        raise ValueError("shares split the budget between orders; a joint release spends it all on one vector")
    noise = "gaussian" if "rho" in spent else "laplace"
    return noise, float(spent["rho"] if "rho" in spent else spent["epsilon"]), d_in


def _calibrated(counts: dp.Transformation, noise: str, target: float, d_in: int, what: str) -> tuple[dp.Measurement, float]:
    then_noise = dp.m.then_gaussian if noise == "gaussian" else dp.m.then_laplace
    try:
        scale = dp.binary_search_param(lambda s: counts >> then_noise(scale=s), d_in=d_in, d_out=target)
    except Exception as error:  # OpenDP's search reports no reason a user can act on
        raise ValueError(f"no noise scale reaches {target:g} at d_in={d_in!r} for {what}: {error}") from None
    return counts >> then_noise(scale=scale), float(scale)


def _joint_release(counts: dp.Transformation, by_order: dict[int, list[str]], noise: str, budget: float, d_in: int) -> dp.Measurement:
    """One vector of every key (order by order, as ``counts`` counts them), one noise draw at the whole budget."""
    every = _every_key(by_order)
    measurement, scale = _calibrated(counts, noise, budget, d_in, "the counts")
    scales = dict.fromkeys(by_order, scale)

    def collect_joint(vector: list) -> NGramRelease:
        return NGramRelease(dict(zip(every, (float(v) for v in vector))), dict(scales), noise, True)

    return attach_parts_accuracy(
        measurement >> dp.new_function(collect_joint, TO="ExtrinsicObject"),
        [("every order", _law(counts, noise), scale, stated_bias(counts))],
    )


def _per_order_release(
    per_order: dict[int, dp.Transformation], by_order: dict[int, list[str]], shares: Any, noise: str, budget: float, d_in: int
) -> dp.Measurement:
    """One noisy vector per order at its share of the budget, composed by OpenDP."""
    orders = list(by_order)
    share = _shares(shares, orders)
    measurements, scales = [], {}
    for n in orders:
        # a hair below each share: the shares' floating-point sum, and the compositor's sum of
        # the parts (rounded up), can land an ulp above the budget (issue 39: 23 of 164 budgets
        # with shares 0.1/0.2/0.7), and a compositor holding exactly the budget would refuse it
        target = share[n] * budget * (1 - 1e-9)
        measurement, scales[n] = _calibrated(per_order[n], noise, target, d_in, f"the order-{n} counts")
        measurements.append(measurement)
    composed = dp.c.make_composition(measurements)
    if composed.map(d_in) > budget:  # never seen; a guard, so no release spends more than it was given
        raise ValueError(f"the orders' budgets exceed {budget!r} after rounding; change the shares")

    def collect(vectors: list) -> NGramRelease:
        released: dict[str, float] = {}
        for n, vector in zip(orders, vectors):
            released.update(zip(by_order[n], (float(v) for v in vector)))
        return NGramRelease(released, dict(scales), noise, False)

    return attach_parts_accuracy(
        composed >> dp.new_function(collect, TO="ExtrinsicObject"),
        [(f"order {n}", _law(per_order[n], noise), scales[n], stated_bias(per_order[n])) for n in orders],
    )


def _law(counts: dp.Transformation, noise: str) -> str:
    """OpenDP's noise law on ``counts``' output: discrete on integer counts, continuous on floats."""
    integer = "i64" in str(counts.output_domain) or "i32" in str(counts.output_domain)
    return ("discrete_" if integer else "") + noise


def _expected_metric(noise: str) -> dp.Metric:
    return dp.l2_distance(T=dp.f64) if noise == "gaussian" else dp.l1_distance(T=dp.i64)


def _check_ends_in(name: str, t: Any, noise: str) -> None:
    if not isinstance(t, dp.Transformation):
        raise TypeError(f"{name} must be an OpenDP Transformation, got {type(t).__name__}")
    if t.output_metric != _expected_metric(noise):
        raise ValueError(f"{name} ends in {t.output_metric!r}; {NOISES[noise]} needs {_expected_metric(noise)!r}")


def _check_counts_keys(name: str, t: Any, keys: list[str], what: str) -> None:
    """The released vector is labelled by ``keys`` position by position, so the transformation
    must count exactly those keys in that order: checked on the keys it records
    (``counted_keys``, set by :func:`make_person_ngram_counts` and
    :func:`~opendp_graph.make_label_counts`), not on their number (``["gas", "power"]`` against a
    vector counted for ``["power", "gas"]`` would swap the two counts)."""
    counted = getattr(t, "counted_keys", None)
    if counted is None:
        raise TypeError(
            f"{name} does not say which keys it counts: build it with dpg.text.make_person_ngram_counts or "
            "dpg.make_label_counts (their keys are checked against the release's), and chain nothing after it"
        )
    counted = list(counted)
    if counted != keys:
        if len(counted) != len(keys):
            raise ValueError(f"{name} counts {len(counted)} keys; {what} lists {len(keys)}")
        i = next(i for i, (a, b) in enumerate(zip(counted, keys)) if a != b)
        raise ValueError(
            f"{name} counts other keys than {what}, or the same in another order (position {i}: it counts "
            f"{counted[i]!r}, {what} has {keys[i]!r}); the counts would be released under the wrong keys"
        )


def _graph_counts(space: tuple[Any, Any], keys: list[str], cap: Any, noise: str) -> dp.Transformation:
    wanted = dp.l2_distance(T=dp.f64) if noise == "gaussian" else None
    return space >> then_label_counts(cap, keys, output_metric=wanted)


# ---------------------------------------------------------------------------------------------
# Person level
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PersonTextDomain:
    """Descriptor of :func:`person_text_domain`."""

    max_messages: int

    def member(self, value: Any) -> bool:
        # False, not an error, outside the domain: OpenDP's Domain.member turns an error into a
        # warning that prints the whole value (the private table); the release itself raises
        # _check_table's message, which names the broken rule only
        try:
            _check_table(value, self.max_messages)
        except (TypeError, ValueError):
            return False
        return True


def person_text_domain(max_messages: int) -> dp.Domain:
    """Message tables (:func:`person_ngram_table`: one row per message, its ``owners`` and its
    ``ngrams``) in which **nobody owns more than** ``max_messages`` **messages** (sent or
    received, each message counted once per owner). The bound is the person-level guarantee's
    precondition: a release checks it before it counts, and refuses a table outside it (a
    ``ValueError`` raised inside OpenDP's call; ``dpg.release(measurement, table)`` shows it
    without OpenDP's trace).

    ``max_messages`` must be public (a policy, an earlier period's figure). Read off the private
    log itself, it discloses the busiest person's count and makes the noise depend on the data.

    >>> from opendp_graph.text import person_text_domain
    >>> person_text_domain(500)
    PersonTextDomain(max_messages=500)
    """
    dp.assert_features("honest-but-curious")
    bound = positive_integer("max_messages", max_messages)
    descriptor = PersonTextDomain(bound)
    return dp.user_domain(repr(descriptor), member=descriptor.member, descriptor=descriptor)


def _check_table(table: Any, max_messages: int) -> None:
    """The domain's member check. The schema is checked first (public); the checks on values say
    which rule the table breaks and nothing else: never a count, an id or a size read from it (a
    refusal must not tell a secret; tests/text/test_text_release.py compares the messages of
    tables that differ in the private value)."""
    import polars as pl

    from ..polars._convert import _id_kind

    if not isinstance(table, pl.DataFrame):
        raise TypeError(f"expected a polars DataFrame from dpg.text.person_ngram_table, got {type(table).__name__}")
    for name, kind in (("owners", "a list of person ids"), ("ngrams", "a list of n-grams (str)")):
        if name not in table.columns or not isinstance(table.schema[name], pl.List):
            raise ValueError(f"the table needs a column {name!r} holding {kind} per message (dpg.text.person_ngram_table)")
    if table.schema["ngrams"] != pl.List(pl.String):
        raise ValueError(f"the column 'ngrams' must be List(String), got {table.schema['ngrams']}")
    if _id_kind(cast(pl.List, table.schema["owners"]).inner) is None:  # a List: checked above
        raise ValueError(f"the column 'owners' must be a List of integer or text ids, got {table.schema['owners']}")
    owners, grams = table["owners"], table["ngrams"]
    if owners.null_count() or owners.list.len().min() == 0 or owners.list.eval(pl.element().null_count()).explode().sum():
        raise ValueError("a message has no owner or a null owner: every message needs its sender (person_ngram_table)")
    if grams.null_count() or grams.list.eval(pl.element().null_count()).explode().sum():
        raise ValueError("a message's n-gram list is null or holds a null: a message without text has an empty list")
    if owners.list.n_unique().ne(owners.list.len()).any():
        raise ValueError("a message lists an owner twice: owners must be distinct per message (person_ngram_table)")
    flat = owners.explode()
    if flat.len() and int(cast(int, flat.value_counts()["count"].max())) > max_messages:  # a count (the column is not empty)
        raise ValueError(
            f"someone owns more than the domain's max_messages={max_messages} messages: the person-level bound "
            "does not cover this log (use a larger public bound, or a shorter period)"
        )


# long: docstring (its guarantee, parameters and refusals) beside code of under 100 lines
def make_person_ngram_counts(
    input_domain: dp.Domain,
    input_metric: dp.Metric,
    keys: Sequence[str],
    max_ngrams: int,
    output_metric: dp.Metric | None = None,
) -> dp.Transformation:
    """Counts of the public ``keys`` over the messages of a log, **per message** (each message
    counts each of its first ``max_ngrams`` distinct keys once, a repeated key once; a message
    with more keeps the first in text order), at **person level**.

    **Guarantee.** On :func:`person_text_domain` (``D = max_messages``) under
    :func:`~opendp_graph.polars.person_log_distance`: adding or removing ``d`` people changes at
    most ``d·D`` messages (each person owns at most ``D``; a message shared by several of them is
    counted once per owner, so at most ``d·D`` in all), and each message moves a 0/1 vector with
    at most ``L = max_ngrams`` ones. The change ``Δ`` of the count vector is the sum of those
    messages' vectors: its ℓ1 norm is at most ``d·D·L`` and every entry at most ``d·D``, so by
    Hölder ``‖Δ‖₂² ≤ ‖Δ‖∞·‖Δ‖₁ ≤ (d·D)²·L``: ℓ2 at most ``d·D·√L``. Here ``L`` is
    ``min(max_ngrams, K)`` for ``K`` keys: a message counts each distinct key once, so no more
    than ``K``. Replacing ``d`` people's messages (``neighbouring="replace"``) removes ``d·D``
    messages and adds ``d·D``: ``Δ = v − u`` with ``u, v ≥ 0`` each of the kind above, so the ℓ1
    bound doubles (``2·d·D·L``, and at most ``K·d·D``: ``K`` entries) but every entry still
    moves by at most ``d·D`` (the two sides pull it opposite ways), and Hölder gives ``‖Δ‖₂ ≤
    √(d·D·ℓ1)``: ``√2·d·D·√L``, not ``2·d·D·√L``. All are tight: ``d`` people share ``D``
    messages carrying the same ``L`` keys, replaced (under ``"replace"``) by ``D`` messages
    carrying ``L`` other keys (this needs at least ``2L`` keys; with fewer the replace map ``K·d·D``
    is an upper bound, not reached). The per-message cap reads only the
    message, so it moves nothing else. A message with several owners is removed with any one
    of them: this is the person-level notion of :mod:`opendp_graph.polars` (a message belongs to
    its sender and all its recipients).

    **What it costs.** The noise grows with ``D``, the busiest person's bound: on a log where a
    few people own most messages this is far more noise than a pair- or message-level release
    (docs/text.md).

    :param output_metric: ``dp.l1_distance(T=dp.i64)`` (default; Laplace),
        ``dp.l2_distance(T=dp.f64)`` (Gaussian under zCDP), or for OpenDP's noisy top-k (the
        most used keys at person level) ``dp.linf_distance(T=dp.i64)`` (map ``d·D``) or
        ``dp.linf_distance(T=dp.i64, monotonic=True)`` (map ``D`` at ``d_in = 1``, add/remove
        only: half the noisy top-k's ε).

    **Top-k** (``output_metric=dp.linf_distance(...)``). Every count moves by at most ``d·D``: a
    message counts a key once, ``d`` people own at most ``d·D`` messages, and under ``replace``
    the removed and added messages pull a count opposite ways, each side at most ``d·D``. Adding
    (or removing) one person adds (or removes) messages only, so every count moves the same way:
    the monotonic bound ``D`` at ``d_in = 1`` (OpenDP's monotonic distance is infinite for two
    units, which may move counts both ways, and for ``replace``). Tight: ``D`` messages carrying
    one key. ``>> dp.m.then_noisy_top_k(dp.max_divergence(), k=k, scale=s)`` then costs
    ``k·D/s`` (monotonic) or ``2k·D/s``.

    >>> import opendp.prelude as dp, opendp_graph as dpg
    >>> from opendp_graph.text import make_person_ngram_counts, person_text_domain
    >>> dp.enable_features("contrib", "honest-but-curious")
    >>> counts = make_person_ngram_counts(person_text_domain(10), dpg.polars.person_log_distance(), ["gas", "power"], 2)
    >>> counts.map(1)
    20
    """
    dp.assert_features("contrib", "honest-but-curious")
    from ..measurements._message_log import PersonLogDistance

    descriptor = getattr(input_domain, "descriptor", None)
    if not isinstance(descriptor, PersonTextDomain):
        raise TypeError(f"input_domain must be dpg.text.person_text_domain(max_messages), got {input_domain!r}")
    metric = getattr(input_metric, "descriptor", None)
    if not isinstance(metric, PersonLogDistance):
        raise TypeError(f"input_metric must be dpg.polars.person_log_distance(...), got {input_metric!r}")
    names = list(keys) if isinstance(keys, Sequence) and not isinstance(keys, str) else None
    if not names:
        raise TypeError("keys must be a non-empty sequence of n-grams (words joined by one space)")
    if len(set(names)) != len(names) or not all(isinstance(k, str) and k.strip() for k in names):
        raise ValueError("keys must be distinct non-empty n-grams (words joined by one space)")
    cap = positive_integer("max_ngrams", max_ngrams)
    norms = {
        "l1": dp.l1_distance(T=dp.i64),
        "l2": dp.l2_distance(T=dp.f64),
        "linf": dp.linf_distance(T=dp.i64),
        "linf_monotonic": dp.linf_distance(T=dp.i64, monotonic=True),
    }
    norm = next((name for name, m in norms.items() if output_metric == m), None) if output_metric is not None else "l1"
    if norm is None:
        raise ValueError(
            "output_metric must be dp.l1_distance(T=dp.i64), dp.l2_distance(T=dp.f64), dp.linf_distance(T=dp.i64) or "
            f"dp.linf_distance(T=dp.i64, monotonic=True), got {output_metric!r}"
        )
    if norm == "linf_monotonic" and metric.neighbouring == "replace":
        raise ValueError(
            "a replaced person's messages move counts both ways: the monotonic L∞ bound needs "
            "person_log_distance('add_remove'); use dp.linf_distance(T=dp.i64)"
        )
    l2 = norm == "l2"
    sides = 2 if metric.neighbouring == "replace" else 1  # messages removed, and as many added
    counted = min(cap, len(names))  # L_eff: a message counts each of its distinct keys once
    index = dict(zip(names, range(len(names))))
    max_messages = descriptor.max_messages

    def count(table: Any) -> list:
        import polars as pl

        _check_table(table, max_messages)  # the domain's bound, before anything is counted
        # one row per (message, n-gram) in text order; the keys' indices; a key's first occurrence
        # in its message only (a repeated key counts once); the first `cap` distinct keys of each
        # message (vectorised: 2.6× the per-message Python loop it replaced, tested equal to it)
        rows = (
            table.select(pl.col("ngrams"))
            .with_row_index("message")
            .explode("ngrams")
            .with_columns(key=pl.col("ngrams").replace_strict(index, default=None, return_dtype=pl.Int64))
            .drop_nulls("key")
            .filter(pl.struct("message", "key").is_first_distinct())
            .filter(pl.int_range(pl.len()).over("message") < cap)
        )
        out = np.bincount(rows["key"].to_numpy(), minlength=len(names)).tolist()
        return [float(v) for v in out] if l2 else out

    def stability(d_in: Any) -> Any:
        if isinstance(d_in, bool) or not isinstance(d_in, Integral) or d_in < 0:
            raise ValueError(f"d_in counts people: a non-negative integer, got {d_in!r}")
        if norm == "linf_monotonic":
            return monotonic_single_unit(max_messages)(d_in)
        per_side = int(d_in) * max_messages  # messages removed (and, under replace, added)
        if norm == "linf":
            return per_side
        # a message counts at most L_eff = min(L, K) keys; under replace the two sides' ℓ1 is
        # also at most K entries of at most d·D each
        l1 = per_side * (min(2 * counted, len(names)) if sides == 2 else counted)
        # every entry moves by at most per_side (removed and added messages pull it opposite ways,
        # each side between 0 and per_side), so Hölder gives ‖Δ‖₂² ≤ per_side · l1: d·D·√L, and
        # √2·d·D·√L under replace; l2_bound rounds the root up, never down
        return l2_bound(l1, l1, per_side) if l2 else l1

    atom = dp.atom_domain(T=dp.f64, nan=False) if l2 else dp.atom_domain(T=dp.i64)
    out_domain = dp.vector_domain(atom, size=len(names))
    counts = dp.t.make_user_transformation(
        input_domain,
        input_metric,
        out_domain,
        norms[norm],
        count,
        stability,
    )
    counts.counted_keys = tuple(names)  # what make_ngram_count_release labels the vector with
    dropped = (
        None
        if cap >= len(names)
        else (
            f"the keys beyond the first {cap} distinct keys of a message (in text order) that max_ngrams = {cap} drops: "
            "each interval is around the capped count, at most the true count; no public figure bounds the difference"
        )
    )
    return state_bias(counts, dropped)


# the then_ forms (OpenDP's convention: every make_x of (input_domain, input_metric, ...) has one)
then_person_ngram_counts = then(make_person_ngram_counts)
