"""The multi-owner truncation (``transformations/_multi_owner.py``) without any adapter: records owned
by several people, as triangles and messages are. Brute force on random small instances: the
certified value equals the plain linear program's optimum, removing one person moves it by at most
``τ`` (the stability the releases rest on, R2T Lemma 3.2), it grows with ``τ`` and reaches ``Σψ``."""

import itertools

import numpy as np
import pytest
from scipy.optimize import linprog

from opendp_graph.transformations._multi_owner import LP_TOLERANCE, truncated_total


def _instance(rng, people, records, max_owners):
    owners = [sorted(rng.choice(people, size=rng.integers(1, max_owners + 1), replace=False)) for _ in range(records)]
    indptr = np.zeros(records + 1, dtype=np.int64)
    np.cumsum([len(o) for o in owners], out=indptr[1:])
    psi = rng.choice([1.0, 2.0, 3.0], size=records)
    return owners, indptr, np.array([p for o in owners for p in o], dtype=np.int64), psi


def _plain(owners, people, psi, tau):
    """The same program, solved directly (no reduction, no repair)."""
    if not owners:
        return 0.0
    a = np.zeros((people, len(owners)))
    for m, o in enumerate(owners):
        a[o, m] = 1.0
    res = linprog(-np.ones(len(owners)), A_ub=a, b_ub=np.full(people, tau), bounds=list(zip(np.zeros(len(owners)), psi)), method="highs")
    assert res.status == 0
    return -res.fun


def _without(owners, psi, person):
    kept = [m for m, o in enumerate(owners) if person not in o]
    sub = [owners[m] for m in kept]
    indptr = np.zeros(len(sub) + 1, dtype=np.int64)
    np.cumsum([len(o) for o in sub], out=indptr[1:])
    return sub, indptr, np.array([p for o in sub for p in o], dtype=np.int64), psi[kept]


# seeds 0–5 by default, 6–23 in the thorough tier
@pytest.mark.parametrize("seed", [s if s < 6 else pytest.param(s, marks=pytest.mark.thorough) for s in range(24)])
def test_value_stability_and_monotonicity_on_random_small_instances(seed):
    rng = np.random.default_rng(seed)
    people = int(rng.integers(3, 7))
    owners, indptr, flat, psi = _instance(rng, people, int(rng.integers(1, 12)), 3)
    previous = -1.0
    for tau in (0.5, 1.0, 2.0, 3.0, 5.0, 50.0):
        value = truncated_total(indptr, flat, people, psi, tau)
        assert value == pytest.approx(_plain(owners, people, psi, tau), abs=2 * LP_TOLERANCE * tau + 1e-9)
        assert value >= previous - LP_TOLERANCE * tau
        previous = value
        for person in range(people):  # one person and every record they own, removed
            sub, sub_indptr, sub_flat, sub_psi = _without(owners, psi, person)
            rest = truncated_total(sub_indptr, sub_flat, people, sub_psi, tau)
            assert -LP_TOLERANCE * tau - 1e-9 <= value - rest <= tau * (1 + LP_TOLERANCE) + 1e-9  # both certified within LP_TOLERANCE·τ
    assert truncated_total(indptr, flat, people, psi, float(psi.sum()) + 1) == pytest.approx(psi.sum())


def test_the_bound_is_reached():
    """A person owning records worth more than ``τ`` in total, each alone: removing them moves ``Q`` by exactly ``τ``."""
    indptr, flat = np.array([0, 1, 2, 3]), np.array([0, 0, 0])
    assert truncated_total(indptr, flat, 1, np.ones(3), 2.0) == pytest.approx(2.0)
    assert truncated_total(np.array([0]), np.array([], dtype=np.int64), 1, np.zeros(0), 2.0) == 0.0


def test_every_triangle_graph_of_four_nodes():
    """Triangles as records of three owners, on every graph of 4 nodes: node removal moves the
    truncated triangle count by at most ``τ``."""
    nodes = range(4)
    pairs = list(itertools.combinations(nodes, 2))
    for mask in range(1 << len(pairs)):
        edges = {pairs[i] for i in range(len(pairs)) if mask >> i & 1}
        tri = [t for t in itertools.combinations(nodes, 3) if all(e in edges for e in itertools.combinations(t, 2))]
        indptr = np.arange(0, 3 * len(tri) + 1, 3)
        flat = np.array([v for t in tri for v in t], dtype=np.int64)
        for tau in (0.5, 1.0, 2.0):
            value = truncated_total(indptr, flat, 4, np.ones(len(tri)), tau)
            for v in nodes:
                kept = [t for t in tri if v not in t]
                rest = truncated_total(np.arange(0, 3 * len(kept) + 1, 3), np.array([u for t in kept for u in t], dtype=np.int64), 4, np.ones(len(kept)), tau)
                assert -LP_TOLERANCE * tau - 1e-9 <= value - rest <= tau * (1 + LP_TOLERANCE) + 1e-9  # both certified within LP_TOLERANCE·τ


@pytest.mark.parametrize(
    "indptr, owners, people, psi, tau, match",
    [
        ([0, 2], [0, 0], 1, [3.0], 1.0, "distinct"),  # red team: a repeated owner was counted twice
        ([0, 0, 2], [0, 1], 2, [1.0, 1.0], 0.5, "at least one owner"),  # an owner-less record crashed reduceat
        ([0, 2], [0, 5], 2, [1.0], 1.0, "below num_people"),
        ([0, 1], [0], 1, [1.0], 0.0, "tau"),
        ([0, 1], [0], 1, [1.0], -1.0, "tau"),
        ([0, 1], [0], 1, [-3.0], 1.0, "psi"),
        ([0, 1], [0], 1, [float("nan")], 1.0, "psi"),
    ],
)
def test_records_outside_the_proof_are_refused(indptr, owners, people, psi, tau, match):
    with pytest.raises(ValueError, match=match):
        truncated_total(np.array(indptr), np.array(owners, dtype=np.int64), people, np.array(psi), tau)


def _without_person(indptr, owners, psi, item_indptr, items, person):
    keep = [m for m in range(len(indptr) - 1) if person not in owners[indptr[m] : indptr[m + 1]]]
    new_owners = [owners[indptr[m] : indptr[m + 1]] for m in keep]
    new_items = [items[item_indptr[m] : item_indptr[m + 1]] for m in keep]
    as_csr = lambda rows: (np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64),  # noqa: E731
                           np.concatenate(rows).astype(np.int64) if rows else np.zeros(0, dtype=np.int64))
    (o_ptr, o), (i_ptr, i) = as_csr(new_owners), as_csr(new_items)
    return o_ptr, o, psi[keep], i_ptr, i


@pytest.mark.parametrize("instances", [20, pytest.param(60, marks=pytest.mark.slow)])
def test_truncated_coverage_moves_by_at_most_tau_when_a_person_leaves(instances):
    """Random records of 1–3 owners among 5 people, each covering 1–3 of 6 items (weight: its
    number of items): removing any person moves the capped coverage by at most τ (its proof), the
    coverage never exceeds the items or decreases with τ, and with τ above every load it counts
    every item once."""
    from opendp_graph.transformations._multi_owner import LP_TOLERANCE, truncated_coverage

    rng = np.random.default_rng(43)
    for _ in range(instances):  # 20 in the default run (10 s of linear programs), 60 under -m slow
        records = int(rng.integers(1, 8))
        owner_rows = [np.sort(rng.choice(5, size=int(rng.integers(1, 4)), replace=False)) for _ in range(records)]
        item_rows = [np.sort(rng.choice(6, size=int(rng.integers(1, 4)), replace=False)) for _ in range(records)]
        indptr = np.concatenate([[0], np.cumsum([len(r) for r in owner_rows])]).astype(np.int64)
        owners = np.concatenate(owner_rows).astype(np.int64)
        item_indptr = np.concatenate([[0], np.cumsum([len(r) for r in item_rows])]).astype(np.int64)
        items = np.concatenate(item_rows).astype(np.int64)
        psi = np.diff(item_indptr).astype(float)
        distinct = len(np.unique(items))
        _, items = np.unique(items, return_inverse=True)  # item ids 0 … Q−1
        values = []
        for tau in (0.5, 1.0, 2.0, 4.0):
            q = truncated_coverage(indptr, owners, 5, psi, item_indptr, items, tau)
            assert q <= distinct + 1e-9
            values.append(q)
            for person in range(5):
                o_ptr, o, p, i_ptr, i = _without_person(indptr, owners, psi, item_indptr, items, person)
                q_without = truncated_coverage(o_ptr, o, 5, p, i_ptr, i, tau) if len(p) else 0.0
                assert abs(q - q_without) <= tau * (1 + 2 * LP_TOLERANCE) + 1e-9
        assert all(a <= b + 1e-9 for a, b in zip(values, values[1:]))
        assert truncated_coverage(indptr, owners, 5, psi, item_indptr, items, 1e6) == distinct
