"""Multi-owner truncation: the capped total of records that several people own, a stable query.

A record (a message, a triangle, a 2-star) belongs to every person it involves, so removing one
person removes every record they own. The *truncated total* ``Q(τ)`` is the largest weighted sum
of records, each taken fractionally, such that nobody holds more than ``τ``:

    maximise Σ_m u_m   subject to   0 ≤ u_m ≤ ψ_m,   Σ_{m ∋ p} u_m ≤ τ for every person p.

Removing a person removes their records and their constraint; any optimum without them, extended
by nothing, is feasible with them, and any optimum with them, restricted, loses at most ``τ`` (their
own constraint bounds what they held): ``Q`` moves by at most ``τ`` per person (Kasiviswanathan,
Nissim, Raskhodnikova & Smith, TCC 2013, the LP projection; Dong, Fang, Yi, Tao &
Machanavajjhala, SIGMOD 2022, R2T, Lemma 3.2). :func:`truncated_total` solves it with scipy's
HiGHS and certifies the value with a repaired primal and dual (within :data:`LP_TOLERANCE`·τ).

Nothing here knows what a record is: the callers convert their data into the arrays these read
(owners of each record in CSR form: ``indptr``, ``owners``). Person-level totals of message logs
(:mod:`opendp_graph.measurements._capped_totals`) and node-level subgraph counts
(:mod:`opendp_graph.transformations.subgraphs`: a triangle is a record of its three nodes) use it;
R2T's release over caps is :mod:`opendp_graph.measurements._truncation`.
"""

from __future__ import annotations

import functools
import math

import numpy as np

__all__ = [
    "owner_load",
    "truncated_coverage",
    "LP_TOLERANCE",
    "gather",
    "incidence",
    "tightest_ratio",
    "uncertified",
    "truncated_total",
]

#: The certified gap between the computed truncated total and the optimum, in units of ``τ``.
LP_TOLERANCE = 1e-6

#: The least cap the programs accept: their value is ``τ`` times a solution in units of ``τ``, and
#: below normal floats that product loses the precision the proofs' slack assumes (red team: a cap
#: of ``5e-324`` moved a scan query by 1.33 where the proof allows 1).
SMALLEST_CAP = 1e-6


def refusing_out_of_memory(what, errors: tuple[type[BaseException], ...] = (MemoryError,)):
    """Re-raise ``errors`` from the decorated function as a ``MemoryError`` that names ``what`` only
    (a string, or a function of the call's arguments giving one): numpy's own message names the
    array's shape, a count of private records (red team). The refusal is raised outside the
    handler, so no chained error carries numpy's either."""

    def decorate(function):
        @functools.wraps(function)
        def guarded(*args, **kwargs):
            failed = False
            try:
                return function(*args, **kwargs)
            except errors:
                failed = True
            if failed:
                subject = what(*args, **kwargs) if callable(what) else what
                raise MemoryError(f"{subject} do not fit in memory: nothing is listed or released")
            raise AssertionError("unreachable")

        return guarded

    return decorate


def gather(indptr: np.ndarray, values: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows ``index`` of a CSR layout (``indptr``, ``values``): their values and new ``indptr``."""
    lengths = np.diff(indptr)[index]
    new_indptr = np.zeros(index.shape[0] + 1, dtype=np.int64)
    np.cumsum(lengths, out=new_indptr[1:])
    starts = np.repeat(indptr[:-1][index] - new_indptr[:-1], lengths)
    positions = np.arange(new_indptr[-1], dtype=np.int64) + starts
    return values[positions], new_indptr


def incidence(indptr: np.ndarray, index: np.ndarray, rows: int, values: np.ndarray | None = None):
    """The ``rows × records`` sparse matrix with ``values[m]`` (default 1) at ``(owner, m)``."""
    from scipy import sparse

    cols = np.repeat(np.arange(indptr.shape[0] - 1), np.diff(indptr))
    data = np.ones(index.shape[0]) if values is None else np.repeat(values, np.diff(indptr))
    return sparse.csr_matrix((data, (index, cols)), shape=(rows, indptr.shape[0] - 1))


def tightest_ratio(indptr: np.ndarray, owners: np.ndarray, person_load: np.ndarray, tau: float) -> np.ndarray:
    """Per record, ``min(1, min over its owners of τ / load)``: scaling every record by it
    makes any selection exactly feasible (a person's load shrinks at least by its own ratio)."""
    ratio = np.minimum(1.0, tau / np.maximum(person_load, tau))
    scale = np.ones(indptr.shape[0] - 1)
    nonempty = np.diff(indptr) > 0
    if nonempty.any():
        scale[nonempty] = np.minimum.reduceat(ratio[owners], indptr[:-1][nonempty])
    return scale


def owner_load(indptr: np.ndarray, owners: np.ndarray, num_people: int, psi: np.ndarray) -> np.ndarray:
    """``Σ_{m ∋ p} ψ_m`` for every person ``p``: what each holds of the total if every record is taken."""
    if not owners.size:
        return np.zeros(num_people)
    return np.bincount(owners, weights=np.repeat(psi, np.diff(indptr)), minlength=num_people)


def uncertified() -> RuntimeError:
    """The solver's failure (never observed on these programs, normalised to units of ``τ``; an
    error that depends on the data only through a numerical failure, raised before any noise is
    drawn, so nothing is released)."""
    # never the gap's size: it is computed from the data (a refusal names the failure only)
    return RuntimeError(f"the capped total's linear program was not solved to within {LP_TOLERANCE}·τ; nothing is released")


def _check_records(indptr: np.ndarray, owners: np.ndarray, num_people: int, psi: np.ndarray, tau: float) -> None:
    """The program's preconditions (the proof is for them; red team: a repeated owner was counted
    twice, an owner-less record crashed numpy's ``reduceat``). The refusals name the broken
    promise only, never a value of the records."""
    if isinstance(tau, bool) or not isinstance(tau, (int, float, np.floating, np.integer)) or not math.isfinite(tau) or tau <= 0:
        raise ValueError("tau must be a positive finite number")
    if tau < SMALLEST_CAP:
        raise ValueError(f"tau must be at least {SMALLEST_CAP:g}: below it the program's value loses the precision its proof assumes")
    lengths = np.diff(indptr)
    if psi.shape != (lengths.shape[0],) or not np.all(np.isfinite(psi)) or np.any(psi < 0):
        raise ValueError("psi must hold one finite, non-negative weight per record")
    if np.any(lengths < 1):
        raise ValueError("every record needs at least one owner")
    if owners.shape != (int(indptr[-1]),) or (owners.size and (owners.min() < 0 or owners.max() >= num_people)):
        raise ValueError("owners must index people below num_people, one entry per owner of each record")
    record = np.repeat(np.arange(lengths.shape[0], dtype=np.int64), lengths)
    keys = np.sort(record * max(num_people, 1) + owners)  # a sort, not np.unique's hashing: 50× faster at 10 M
    if np.any(keys[1:] == keys[:-1]):
        raise ValueError("a record lists an owner twice: owners must be distinct within a record")


@refusing_out_of_memory("the capped total's records")
def truncated_total(indptr: np.ndarray, owners: np.ndarray, num_people: int, psi: np.ndarray, tau: float) -> float:
    """``Q(τ) = max Σ u, 0 ≤ u ≤ ψ, A u ≤ τ`` (``A`` the person × record incidence; module
    docstring), certified to within ``LP_TOLERANCE·τ`` below the optimum (else a ``RuntimeError``).

    Reduced first, exactly: a person whose whole load is at most ``τ`` (*light*) can never be at
    their cap, so their constraint is dropped, and a record whose owners are all light is taken
    whole (raising it to ``ψ`` keeps every constraint and cannot lower the total). The program then
    has the heavy people's constraints and the records that touch them.

    >>> import numpy as np
    >>> # three records owned by (0, 1), (0, 2), (1, 2): a triangle's three edges, say
    >>> indptr, owners = np.array([0, 2, 4, 6]), np.array([0, 1, 0, 2, 1, 2])
    >>> truncated_total(indptr, owners, 3, np.ones(3), 1.0)   # each person may hold 1: half of each record
    1.5
    """
    _check_records(indptr, owners, num_people, psi, tau)
    load = owner_load(indptr, owners, num_people, psi)
    if load.size == 0 or load.max() <= tau:
        return float(psi.sum())  # every record fits: the all-in selection is optimal
    from scipy.optimize import linprog

    heavy = load > tau
    touches = np.logical_or.reduceat(heavy[owners], indptr[:-1]) if owners.size else np.zeros(0, dtype=bool)
    fixed = float(psi[~touches].sum())
    if not touches.any():
        return fixed
    index = np.flatnonzero(touches)
    sub_owners, sub_indptr = gather(indptr, owners, index)
    people = np.flatnonzero(heavy)
    renumber = np.full(num_people, -1, dtype=np.int64)
    renumber[people] = np.arange(people.shape[0])
    mapped = renumber[sub_owners]
    keep = mapped >= 0  # light owners' entries leave the program with their constraints
    counts = np.add.reduceat(keep.astype(np.int64), sub_indptr[:-1])
    heavy_indptr = np.zeros(index.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=heavy_indptr[1:])
    heavy_owners = mapped[keep]
    # in units of τ, with ψ capped at τ (u_m ≤ τ holds anyway: a record's owner allows at most
    # τ): the same program, with bounds in [0, 1] and right-hand sides 1 whatever τ and ψ are,
    # so the solver's absolute tolerances mean the same thing on every input
    weights = np.minimum(psi[index], tau) / tau
    a = incidence(heavy_indptr, heavy_owners, people.shape[0])
    # interior point with crossover first (an order of magnitude faster than the simplex on these
    # degenerate programs: 500,000 messages at τ = 16 in 15 s against 160 s), the dual simplex if
    # its solution cannot be certified
    for method in ("highs-ipm", "highs-ds"):
        res = linprog(
            -np.ones(weights.shape[0]),
            A_ub=a,
            b_ub=np.ones(people.shape[0]),
            bounds=np.column_stack([np.zeros_like(weights), weights]),
            method=method,
        )
        if res.status != 0:
            continue
        u = np.clip(res.x, 0.0, weights)
        # primal repair: scale each record down to the tightest of its owners' ratios (exactly feasible)
        u = u * tightest_ratio(heavy_indptr, heavy_owners, a @ u, 1.0)
        primal = float(u.sum())
        # dual repair: y ≥ 0 on heavy people (0 on light ones), z_m = max(0, 1 − Σ_{p ∋ m} y_p) on
        # the program's records and z_m = 1 on the fixed ones: (y, z) is dual feasible
        y = np.clip(-res.ineqlin.marginals, 0.0, 1.0)
        dual = float(y.sum() + np.sum(weights * np.maximum(0.0, 1.0 - a.T @ y)))
        if dual - primal <= LP_TOLERANCE:
            return fixed + tau * primal
    raise uncertified()


@refusing_out_of_memory("the capped coverage's records")
def truncated_coverage(
    indptr: np.ndarray,
    owners: np.ndarray,
    num_people: int,
    psi: np.ndarray,
    item_indptr: np.ndarray,
    items: np.ndarray,
    tau: float,
) -> float:
    """How many distinct items a capped selection of records can cover: ``max Σ_q min(1, Σ_{m covers
    q} x_m)`` over ``0 ≤ x ≤ 1`` with every person's load ``Σ_{m ∋ p} ψ_m x_m ≤ τ`` (records owned by
    ``owners`` in CSR form, record ``m`` covering ``items[item_indptr[m]:item_indptr[m + 1]]``,
    items non-negative integer ids). Removing one person removes their records, whose load is at most ``τ``; each
    covers at most ``ψ_m`` items (the caller's weight: the record's number of items), so the value
    moves by at most ``τ`` (the proof of :func:`truncated_total`, items counted once). Certified like
    it: a feasible primal (the solution scaled into every cap, :func:`tightest_ratio`) and a feasible
    dual within ``LP_TOLERANCE·τ`` of each other, else a ``RuntimeError``.

    >>> import numpy as np
    >>> # two records of person 0, each covering item 0: one item, whatever the cap
    >>> truncated_coverage(np.array([0, 1, 2]), np.array([0, 0]), 1, np.ones(2), np.array([0, 1, 2]), np.array([0, 0]), 0.5)
    0.5
    """
    from scipy import sparse
    from scipy.optimize import linprog

    num_items = int(items.max()) + 1 if items.size else 0
    if num_items == 0:
        return 0.0
    load = owner_load(indptr, owners, num_people, psi)
    if load.max(initial=0.0) <= tau:
        return float(np.unique(items).shape[0])  # every record fits: every item some record covers
    m = indptr.shape[0] - 1
    # variables: x (records) then y (items); maximise Σ y. a_people[p, m] = ψ_m when p owns m
    a_people = incidence(indptr, owners, num_people, values=psi)
    record_of = np.repeat(np.arange(m), np.diff(item_indptr))
    support = sparse.csr_matrix((-np.ones(record_of.shape[0]), (items, record_of)), shape=(num_items, m))
    a_ub = sparse.vstack(
        [
            sparse.hstack([a_people, sparse.csr_matrix((num_people, num_items))]),
            sparse.hstack([support, sparse.identity(num_items)]),
        ]
    ).tocsr()
    b_ub = np.concatenate([np.full(num_people, tau), np.zeros(num_items)])
    c = np.concatenate([np.zeros(m), -np.ones(num_items)])
    for method in ("highs-ipm", "highs-ds"):  # as in truncated_total
        res = linprog(c, A_ub=a_ub, b_ub=b_ub, bounds=(0.0, 1.0), method=method)
        if res.status != 0:
            continue
        x = np.clip(res.x[:m], 0.0, 1.0)
        x = x * tightest_ratio(indptr, owners, a_people @ x, tau)
        item_support = np.bincount(items, weights=x[record_of], minlength=num_items)
        primal = float(np.minimum(1.0, item_support).sum())
        # dual: min τ Σ y_p + Σ w_m + Σ v_q, with ψ_m Σ_{p∋m} y_p + w_m ≥ Σ_{q ∈ items(m)} s_q and s_q + v_q ≥ 1
        marg = res.ineqlin.marginals
        y = np.clip(-marg[:num_people], 0.0, None)
        s = np.clip(-marg[num_people:], 0.0, 1.0)
        need = np.bincount(record_of, weights=s[items], minlength=m)
        w = np.maximum(0.0, need - a_people.T @ y)
        dual = float(tau * y.sum() + w.sum() + (1.0 - s).sum())
        if (dual - primal) / tau <= LP_TOLERANCE:
            return primal
    raise uncertified()
