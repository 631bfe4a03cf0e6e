"""Promotion lattices as data: an edge dict, its upper-bound closure, a join table, laws.

The shape follows ``jax._src.dtypes._type_promotion_lattice``: a literal dict from
each node to its immediate successors (weak nodes included). From it we compute
every node's set of upper bounds, and the join (least upper bound) of every pair.

Why the join is computed this way (the proof comment JAX also keeps): let UB(n) be
the upper bounds of n and CUB(a, b) = UB(a) & UB(b) the common ones. The least
upper bound is the c in CUB whose own UB(c) contains all of CUB. In a partial order
there is at most one such c; when CUB is empty the pair simply has no join
(JAX's float8 types join nothing but themselves and the weak float), and when
several minimal bounds compete the structure is not a lattice and `check` says so.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Hashable, Iterable, Iterator, Mapping
from functools import cached_property
from typing import Any, Generic, TypeVar

from weaktrace.errors import LatticeError, listing

N = TypeVar("N", bound=Hashable)


_DRAWER: Any = None  # set by weaktrace.dtypes.draw


def register_drawer(fn: Any) -> None:
    """Called by weaktrace.dtypes.draw: the function behind ``Lattice.draw``."""
    global _DRAWER
    _DRAWER = fn


@dataclasses.dataclass(frozen=True)
class Violation:
    """One broken law: which law, the nodes or table cell involved, and what was seen."""

    law: str
    nodes: tuple[Any, ...]
    detail: str

    def __str__(self) -> str:
        return f"{self.law} ({', '.join(map(str, self.nodes))}): {self.detail}"


@dataclasses.dataclass(frozen=True)
class LatticeReport:
    """What `Lattice.check` found. ``ok`` is True when no law is broken.

    ``unbounded`` lists the pairs that have no common upper bound: in JAX these
    are deliberate (promotion is an error), so they only count as violations when
    the check was asked for a total lattice.
    """

    name: str
    violations: tuple[Violation, ...]
    unbounded: tuple[tuple[Any, Any], ...]

    @property
    def ok(self) -> bool:
        return not self.violations

    # The report reads as the list of violations it holds: empty (and falsy) when the
    # laws hold, so ``assert not lattice.check()`` and ``for v in lattice.check()`` work.
    def __len__(self) -> int:
        return len(self.violations)

    def __iter__(self) -> Iterator[Violation]:
        return iter(self.violations)

    def __getitem__(self, i: int) -> Violation:
        return self.violations[i]

    def raise_for_violations(self) -> None:
        """Raise `LatticeError` naming every violation, if there is any."""
        if not self.ok:
            raise LatticeError(str(self))

    def __str__(self) -> str:
        if self.ok:
            return (
                f"{self.name}: all lattice laws hold "
                f"({len(self.unbounded)} unordered pairs have no join)"
            )
        lines = [f"{self.name}: {len(self.violations)} violation(s)"]
        lines += [f"  - {v}" for v in self.violations]
        return "\n".join(lines)


class _Ambiguous(tuple[Any, ...]):
    """Join-table entry for a pair with several minimal common upper bounds."""


class Lattice(Generic[N]):
    """A promotion lattice built from a literal edge dict (node -> immediate successors).

    >>> lat = Lattice({"bool": ["int"], "int": ["float"], "float": []}, name="tiny")
    >>> lat.join("bool", "float"), lat.leq("int", "bool")
    ('float', False)
    >>> lat.check().ok
    True
    """

    def __init__(
        self,
        edges: Mapping[N, Iterable[N]],
        *,
        name: str = "lattice",
        table: Mapping[tuple[N, N], N | None] | None = None,
    ) -> None:
        self.name = name
        self.edges: dict[N, tuple[N, ...]] = {n: tuple(s) for n, s in edges.items()}
        seen = dict.fromkeys(self.edges)
        for succs in self.edges.values():
            seen.update(dict.fromkeys(succs))
        self.nodes: tuple[N, ...] = tuple(seen)
        self.table = dict(table) if table is not None else None  # set by from_table

    def __repr__(self) -> str:
        return f"Lattice({self.name!r}, {len(self.nodes)} nodes)"

    @classmethod
    def from_table(
        cls, table: Mapping[Any, Any], *, name: str = "table", nodes: Iterable[N] | None = None
    ) -> Lattice[N]:
        """Build the order a promotion table implies: each cell (a, b) -> c says a <= c, b <= c.

        `table` is either ``{(a, b): c}`` or rows ``{a: {b: c}}``; ``None`` marks a
        pair that does not promote. `check()` on the result also checks the table
        itself: cells that are not commutative, or not the least upper bound of
        the implied order, are reported by name.

        >>> t = {("b", "i"): "i", ("i", "b"): "f", ("b", "f"): "f", ("f", "b"): "f",
        ...      ("i", "f"): "f", ("f", "i"): "f"}
        >>> print(Lattice.from_table(t, name="t").check())  # doctest: +NORMALIZE_WHITESPACE
        t: 2 violation(s)
          - commutativity (b, i): table[b, i] = i but table[i, b] = f
          - least upper bound (i, b): table[i, b] = f but the join of the order is i
        """
        cells = _cells(table)
        edges: dict[Any, list[Any]] = {n: [] for n in (nodes or ())}
        for (a, b), c in cells.items():
            for x in (a, b):
                edges.setdefault(x, [])
                if c is not None and c != x and c not in edges[x]:
                    edges[x].append(c)
            if c is not None:
                edges.setdefault(c, [])
        return cls(edges, name=name, table=cells)

    # -- the order -------------------------------------------------------------------

    @cached_property
    def upper_bounds(self) -> dict[N, frozenset[N]]:
        """Every node's upper bounds, itself included (reflexive-transitive closure)."""
        out: dict[N, frozenset[N]] = {}
        for start in self.nodes:
            seen, todo = {start}, [start]
            while todo:
                for succ in self.edges.get(todo.pop(), ()):
                    if succ not in seen:
                        seen.add(succ)
                        todo.append(succ)
            out[start] = frozenset(seen)
        return out

    def leq(self, a: N, b: N) -> bool:
        """True when `a` promotes to `b` (a <= b on the lattice)."""
        return b in self.upper_bounds[self._known(a)]

    @cached_property
    def _joins(self) -> dict[tuple[N, N], N | _Ambiguous | None]:
        ub = self.upper_bounds
        out: dict[tuple[N, N], N | _Ambiguous | None] = {}
        for a, b in itertools.product(self.nodes, repeat=2):
            common = ub[a] & ub[b]
            least = [c for c in common if common <= ub[c]]
            if len(least) == 1:
                out[a, b] = least[0]
            elif not common:
                out[a, b] = None
            else:  # several minimal bounds (or a cycle): record them for `check`
                minimal = [c for c in common if not any(d != c and c in ub[d] for d in common)]
                out[a, b] = _Ambiguous(sorted(minimal or common, key=str))
        return out

    def join(self, *nodes: N) -> N | None:
        """The least upper bound of the nodes, or None when they have no common bound.

        Raises `LatticeError` if the lattice is ill-formed for these nodes.
        """
        if not nodes:
            raise LatticeError("join() needs at least one node")
        acc: Any = self._known(nodes[0])
        for n in nodes[1:]:
            acc = self._joins[acc, self._known(n)]
            if acc is None:
                return None
            if isinstance(acc, _Ambiguous):
                raise LatticeError(
                    f"{listing(nodes)} have no unique least upper bound on {self.name} "
                    f"(candidates: {listing(acc)}); the lattice is ill-formed. "
                    "Run .check() to see every violation."
                )
        return acc

    def _known(self, n: N) -> N:
        if n not in self.upper_bounds:
            raise LatticeError(
                f"{n!r} is not a node of {self.name}; its nodes are {listing(self.nodes)}"
            )
        return n

    def draw(self, **options: Any) -> Any:
        """A Hasse diagram of the lattice (a matplotlib Figure; needs matplotlib)."""
        # weaktrace.dtypes.draw registers itself here (it imports this module, not the
        # other way round); weaktrace.dtypes imports it, so it is always registered.
        if _DRAWER is None:  # pragma: no cover - weaktrace.dtypes always imports draw
            raise LatticeError("drawing is unavailable: import weaktrace.dtypes.draw")
        return _DRAWER(self, **options)

    def hasse_edges(self) -> Iterator[tuple[N, N]]:
        """The covering pairs (a, b): a < b with nothing strictly between; for drawing."""
        ub = self.upper_bounds
        for a in self.nodes:
            above = ub[a] - {a}
            for b in above:
                if not any(c != b and b in ub[c] for c in above):
                    yield a, b

    # -- laws ------------------------------------------------------------------------

    def check(self, *, require_total: bool = False) -> LatticeReport:
        """Check the laws: partial order, unique least upper bounds, and that the
        join is idempotent, commutative and associative. Every violating pair or
        triple is named; a lattice built from a table also has its cells checked.
        """
        violations = [*self._order_violations(), *self._join_violations(require_total)]
        if self.table is not None:
            violations += self.check_table(self.table)
        unbounded = tuple(
            (a, b)
            for i, a in enumerate(self.nodes)
            for b in self.nodes[i + 1 :]
            if self._joins[a, b] is None
        )
        return LatticeReport(self.name, tuple(violations), unbounded)

    def _order_violations(self) -> Iterator[Violation]:
        ub = self.upper_bounds
        for i, a in enumerate(self.nodes):
            for b in self.nodes[i + 1 :]:
                if b in ub[a] and a in ub[b]:
                    yield Violation("antisymmetry", (a, b), f"{a} <= {b} and {b} <= {a}: a cycle")

    def _join_violations(self, require_total: bool) -> Iterator[Violation]:
        joins = self._joins
        for a in self.nodes:
            if joins[a, a] != a:
                yield Violation("idempotence", (a,), f"join({a}, {a}) = {joins[a, a]}")
        for a, b in itertools.combinations(self.nodes, 2):
            ab, ba = joins[a, b], joins[b, a]
            if isinstance(ab, _Ambiguous):
                yield Violation(
                    "unique least upper bound", (a, b), f"minimal upper bounds {listing(ab)}"
                )
            elif ab is None and require_total:
                yield Violation("total", (a, b), "no common upper bound")
            if ab != ba:
                yield Violation("commutativity", (a, b), f"join = {ab} but reversed {ba}")
        yield from self._associativity_violations()

    def _associativity_violations(self) -> Iterator[Violation]:
        joins = self._joins

        def j(x: Any, y: Any) -> Any:
            if x is None or y is None or isinstance(x, _Ambiguous) or isinstance(y, _Ambiguous):
                return None
            return joins[x, y]

        for a, b, c in itertools.product(self.nodes, repeat=3):
            left, right = j(j(a, b), c), j(a, j(b, c))
            if left != right and not isinstance(joins[a, b], _Ambiguous):
                yield Violation(
                    "associativity",
                    (a, b, c),
                    f"join(join({a}, {b}), {c}) = {left} but join({a}, join({b}, {c})) = {right}",
                )

    def check_table(self, table: Mapping[Any, Any]) -> list[Violation]:
        """Name the cells of a promotion table that are not commutative, or that
        disagree with this lattice's join (None in a cell means "no promotion")."""
        cells = _cells(table)
        out: list[Violation] = []
        for (a, b), c in cells.items():
            if (b, a) in cells and cells[b, a] != c and _before(self, a, b):
                out.append(
                    Violation(
                        "commutativity",
                        (a, b),
                        f"table[{a}, {b}] = {c} but table[{b}, {a}] = {cells[b, a]}",
                    )
                )
        for (a, b), c in cells.items():
            expected = self._joins.get((a, b), "<unknown node>")
            if isinstance(expected, _Ambiguous):
                continue  # already reported as a lattice violation
            if c != expected:
                out.append(
                    Violation(
                        "least upper bound",
                        (a, b),
                        f"table[{a}, {b}] = {c} but the join of the order is {expected}",
                    )
                )
        return out


def _before(lat: Lattice[Any], a: Any, b: Any) -> bool:
    """Report a non-commutative pair once, at its first position in node order."""
    order = {n: i for i, n in enumerate(lat.nodes)}
    return order.get(a, -1) <= order.get(b, -1)


def _cells(table: Mapping[Any, Any]) -> dict[tuple[Any, Any], Any]:
    """Normalise ``{(a, b): c}`` or ``{a: {b: c}}`` to the pair form."""
    if all(isinstance(v, Mapping) for v in table.values()):
        return {(a, b): c for a, row in table.items() for b, c in row.items()}
    if all(isinstance(k, tuple) and len(k) == 2 for k in table):
        return dict(table)
    raise LatticeError(
        "a promotion table must be {(a, b): result} or rows {a: {b: result}}; "
        f"received keys such as {next(iter(table), None)!r}"
    )
