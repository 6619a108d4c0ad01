"""Blowfish policies for undirected communication graphs (Nassar, Chicha, Al Bouna & Chbeir,
*VIP Blowfish Privacy in Communication Graphs*, §2).

The data are a communication graph seen as its adjacency database: one tuple per person (node
``i``), the person's *ego network* ``x ∈ {0,1}^n`` (bit ``j`` says whether ``i`` talked to ``j``).
A policy ``P(T, G, I_Q)`` names

* the domain ``T`` of tuples (all binary vectors of length ``n``),
* a **discriminative secret graph** ``G_i`` *per person* (§2.4): which two values of ``i``'s tuple
  an adversary must not tell apart. Protected ("VIP") people get one of the four secret graphs
  of the paper's Table 1; everybody else ("standard" people) gets the empty secret graph:

  - ``full``: every two ego networks (``S^full_pairs``);
  - ``attribute``: two ego networks differing in one contact (``S^attr_pairs``);
  - ``partitioned``: for a public partition of the people into cells, two ego networks that
    differ only in contacts inside one cell. For a fixed cell ``C`` the relation "equal outside
    ``C``" is a partition of ``T`` (the paper's ``S^p_pairs``); ``G_i`` is the union of these
    partitions over the cells, so singleton cells give ``attribute`` and one cell gives ``full``;
  - ``distance_threshold(θ)``: two ego networks at Hamming distance ``≤ θ`` (``S^{d,θ}_pairs``);

* the constraints ``I_Q`` inherent to undirected graphs: the matrix is symmetric and its diagonal
  is zero (§2.2). They are built into :class:`~opendp_graph.Graph`, which can only hold such
  matrices.

A policy is immutable, hashable, validated on construction, and its ``repr`` lists every field,
so it identifies the policy completely (the metric identifier is built from it).

**Which people exist.** VIPs and partition cells are node *indices* ``0..n-1``. The node count
``n`` is public; a policy may state it (``num_nodes=``; a partition states it implicitly, as the
cells must cover ``0..n-1``). A policy that states ``n`` rejects unknown people at construction,
puts graphs with another node count at infinite distance, and **every query under its metric
refuses a graph with another node count** before reading it (its sensitivities may use ``n``:
:meth:`~.metric.BlowfishDistance.check_graph`). VIP indices are checked against the domain's
``num_nodes`` when a query is built, and against the graph when it runs. These errors depend
only on the public node count.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from numbers import Integral
from typing import Any, cast

from ..core._checks import integer_at_least

__all__ = ["BlowfishPolicy", "SECRET_GRAPHS"]

#: The four discriminative secret graphs of the paper's Table 1, the values of
#: ``BlowfishPolicy.secret_graph``.
SECRET_GRAPHS = ("attribute", "full", "partitioned", "distance_threshold")


def _index(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{what} must be node indices (non-negative integers), got {value!r}")
    if value < 0:
        raise ValueError(f"{what} must be node indices (non-negative integers), got {value}")
    return int(value)


def _people(values: Any, what: str) -> tuple[int, ...]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(f"{what} must be a collection of node indices, got {values!r}")
    items = [_index(v, what) for v in values]
    if len(set(items)) != len(items):
        raise ValueError(f"{what} lists a person more than once")
    return tuple(sorted(items))


@dataclass(frozen=True)
class BlowfishPolicy:
    """A Blowfish policy on an undirected communication graph; build it with the class methods
    :meth:`attribute`, :meth:`full`, :meth:`partitioned` or :meth:`distance_threshold`.

    :param secret_graph: the protected people's discriminative secret graph, one of
        ``"attribute"``, ``"full"``, ``"partitioned"``, ``"distance_threshold"``.
    :param vip: sorted node indices of the protected (VIP) people, or ``None``: everyone is
        protected. Standard (non-VIP) people have the empty secret graph. For a graph with named
        nodes (e.g. from NetworkX), ``graph.node_indices(names)`` gives the indices.
    :param theta: Hamming threshold of ``distance_threshold``, else ``None``.
    :param partition: cells (sorted tuples of node indices, ordered by their smallest member)
        of ``partitioned``, else ``None``.
    :param num_nodes: the public number of people, when the policy states it.

    :example:

    >>> import opendp_graph as dpg
    >>> dpg.BlowfishPolicy.attribute(vip=[3, 1])
    BlowfishPolicy(secret_graph='attribute', vip=(1, 3), theta=None, partition=None, num_nodes=None)
    >>> dpg.BlowfishPolicy.partitioned([[2, 0], [1]]).num_nodes
    3
    """

    secret_graph: str
    vip: tuple[int, ...] | None = None
    theta: int | None = None
    partition: tuple[tuple[int, ...], ...] | None = None
    num_nodes: int | None = None

    def __post_init__(self) -> None:
        # Re-validate whatever the constructor received, so a hand-built policy is as safe as
        # one from the class methods.
        if self.secret_graph not in SECRET_GRAPHS:
            raise ValueError(f"secret_graph must be one of {SECRET_GRAPHS}, got {self.secret_graph!r}")
        n = None if self.num_nodes is None else integer_at_least("num_nodes", self.num_nodes, 0)
        object.__setattr__(self, "num_nodes", n)
        if self.secret_graph == "distance_threshold":
            theta = integer_at_least("theta", self.theta, 1)
            object.__setattr__(self, "theta", theta)
            if n is not None and theta > max(n - 1, 1):
                raise ValueError(f"theta={theta} exceeds n - 1 = {n - 1} contacts: use BlowfishPolicy.full(...) instead")
        elif self.theta is not None:
            raise ValueError(f"theta only applies to the distance_threshold secret graph, not {self.secret_graph!r}")
        if self.secret_graph == "partitioned":
            cells = self.partition
            if cells is None or isinstance(cells, (str, bytes)) or not isinstance(cells, Iterable):
                raise TypeError("partition must be a collection of cells, each a collection of node indices")
            checked = [_people(c, "partition cells") for c in cells]
            if not checked or any(not c for c in checked):
                raise ValueError("partition must have at least one cell and no empty cell")
            seen: set[int] = set()
            for c in checked:
                overlap = seen.intersection(c)
                if overlap:
                    raise ValueError(f"partition cells overlap (person {min(overlap)} is in two cells)")
                seen.update(c)
            total = len(seen)
            if max(seen) != total - 1:  # distinct non-negative indices cover 0..total-1 iff the largest is total-1
                missing = min(set(range(total)) - seen)  # O(total), never O(largest index)
                raise ValueError(f"partition must cover the people 0..n-1 exactly; person {missing} is missing")
            if n is None:
                n = total
                object.__setattr__(self, "num_nodes", n)
            elif n != total:
                raise ValueError(f"partition covers {total} people but num_nodes is {n}")
            object.__setattr__(self, "partition", tuple(sorted(checked)))
        elif self.partition is not None:
            raise ValueError(f"partition only applies to the partitioned secret graph, not {self.secret_graph!r}")
        if self.vip is not None:
            vip = _people(self.vip, "vip")
            if not vip:
                raise ValueError("vip is empty: the policy would protect nobody (use vip=None to protect everyone)")
            if n is not None and vip[-1] >= n:
                raise ValueError(f"vip names person {vip[-1]}, but the policy has {n} people (0..{n - 1})")
            object.__setattr__(self, "vip", vip)

    # ------------------------------------------------------------------ constructors
    # vip and partition may be any iterables: __post_init__ checks them and stores the sorted tuples that
    # the fields' annotations name, so the class methods pass them on as given (cast(Any, ...))
    @classmethod
    def attribute(cls, vip: Iterable[int] | None = None, *, num_nodes: int | None = None) -> BlowfishPolicy:
        """Protected people cannot be told apart from themselves with one contact more or less
        (``S^attr_pairs``). With ``vip=None`` this is edge-level DP (Theorem 1)."""
        return cls("attribute", vip=cast(Any, vip), num_nodes=num_nodes)

    @classmethod
    def full(cls, vip: Iterable[int] | None = None, *, num_nodes: int | None = None) -> BlowfishPolicy:
        """Protected people's whole ego networks are secret (``S^full_pairs``). With
        ``vip=None`` this is (bounded, rewiring) node-level DP."""
        return cls("full", vip=cast(Any, vip), num_nodes=num_nodes)

    @classmethod
    def partitioned(cls, partition: Iterable[Iterable[int]], vip: Iterable[int] | None = None) -> BlowfishPolicy:
        """Protected people's contacts inside any one cell of the public ``partition`` of the
        people are secret (which and how many), but not changes spanning two cells at once."""
        return cls("partitioned", vip=cast(Any, vip), partition=cast(Any, partition))

    @classmethod
    def distance_threshold(cls, theta: int, vip: Iterable[int] | None = None, *, num_nodes: int | None = None) -> BlowfishPolicy:
        """Protected people's ego networks are secret up to ``theta`` contacts changed at once
        (Hamming distance ``≤ θ``, ``S^{d,θ}_pairs``); ``θ = 1`` is :meth:`attribute`."""
        return cls("distance_threshold", vip=cast(Any, vip), theta=theta, num_nodes=num_nodes)

    # ------------------------------------------------------------------ queries on the policy
    def is_protected(self, person: int) -> bool:
        """Whether ``person`` has a non-empty secret graph."""
        return self.vip is None or person in self._vip_set

    @property
    def _vip_set(self) -> frozenset[int]:
        return frozenset(self.vip or ())

    def cell_of(self, person: int) -> int:
        """Index of ``person``'s partition cell (``partitioned`` only)."""
        if self.partition is None:
            raise ValueError("cell_of needs a partitioned policy")
        for k, cell in enumerate(self.partition):
            if person in cell:
                return k
        raise ValueError(f"person {person} is in no cell")

    def steps(self, person: int, contacts: Iterable[int]) -> float:
        """Fewest changes of ``person``'s tuple, each one a discriminative pair of their secret
        graph, that change exactly the bits ``contacts`` (non-empty). ``inf`` if ``person`` is
        not protected."""
        contacts = list(contacts)
        if not contacts:
            return 0
        if not self.is_protected(person):
            return float("inf")
        if self.secret_graph == "full":
            return 1
        if self.secret_graph == "attribute":
            return len(contacts)
        if self.secret_graph == "distance_threshold":
            assert self.theta is not None  # __post_init__: a distance_threshold policy has its theta
            return -(-len(contacts) // self.theta)
        return len({self.cell_of(c) for c in contacts})

    def max_star(self, n: int | None, among: Iterable[int] | None = None) -> int | None:
        """``s``: the most contacts one discriminative change of a protected person's tuple can
        flip, counting only contacts in ``among`` (all people if ``None``), on ``n`` people.
        ``None`` when unbounded (``full`` or ``distance_threshold`` without ``n``)."""
        among_set = None if among is None else frozenset(among)
        if n is None:
            n = self.num_nodes
        if self.secret_graph == "attribute":
            if among_set is not None and not among_set:
                return 0
            return 1
        if self.secret_graph == "partitioned":
            assert self.partition is not None and self.num_nodes is not None  # __post_init__: a partitioned policy has both
            protected = frozenset(range(self.num_nodes)) if self.vip is None else self._vip_set
            best = 0
            for cell in self.partition:
                members = frozenset(cell) if among_set is None else frozenset(cell) & among_set
                # the centre is never its own contact: a centre outside the cell reaches all of it
                outside = bool(protected - members)
                best = max(best, len(members) if outside else len(members) - 1)
            return best
        pool = None
        if n is not None:
            pool = n - 1 if among_set is None else len(among_set)
        if self.secret_graph == "full":
            return pool
        assert self.theta is not None  # __post_init__: the last secret graph, distance_threshold, has its theta
        return self.theta if pool is None else min(self.theta, pool)

    def __str__(self) -> str:
        who = "everyone" if self.vip is None else f"{len(self.vip)} VIP(s)"
        extra = f", θ={self.theta}" if self.theta is not None else ""
        extra += f", {len(self.partition)} cells" if self.partition is not None else ""
        return f"Blowfish {self.secret_graph} policy protecting {who}{extra}"
