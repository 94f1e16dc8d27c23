"""Proofs a player can read: why a covered cell is safe, a mine, or could be either.

A proof for a safe (or certain-mine) cell is a *minimal* set of revealed numbers that alone
forces the cell: with only those numbers on the board, no layout gives the cell the other value,
and dropping any one of them lets the other value back in. The search prefers the fewest numbers:
it tries every connected set of one, two and three numbers around the cell, then grows a ball of
numbers around it and shrinks the first one that works by dropping numbers one at a time.

Levels (how hard the reasoning is):

1. one number alone (it has as many covered neighbours as its value, or it is a 0);
2. two numbers (the subset rule and its overlap variants);
3. three or more numbers, or a case analysis;
4. the total mine count is needed as well (counted rule only).

An either-cell has level 0: no reasoning decides it.

For a cell that could be either, the proof is two consistent layouts, one with a mine there and
one without (found by ``devil.solver.witness``).

Everything here works on plain linear rules ``lo <= mines among cells <= hi`` over covered cells,
checked by a small exact search (``_System``) that sees only the rules it is given. That search
is also used by ``devil.levels`` for the step-by-step deducer.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from devil.analysis import Layout, Verdict
from devil.board import Cell
from devil.errors import InconsistentPosition, InvalidMove
from devil.position import Position
from devil.rules import Count

__all__ = [
    "LEVEL_NAMES",
    "Proof",
    "Rule",
    "feasible",
    "layout_rows",
    "prove",
]

LEVEL_NAMES: Mapping[int, str] = {
    1: "one number",
    2: "two numbers",
    3: "several numbers or cases",
    4: "the mine count",
}
"""A short name for each proof level, for pages and messages."""

EXHAUSTIVE_SIZE = 3
"""Every connected set of up to this many numbers is tried before growing a ball."""


# -- rules and the exact search -----------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """Between ``lo`` and ``hi`` of ``cells`` are mines.

    ``source`` is the revealed number the rule comes from (None for the total mine count);
    ``value`` is that number as shown, ``known`` how many mines around it were already taken
    away (deduction steps subtract mines they found).
    """

    source: Cell | None
    cells: frozenset[Cell]
    lo: int
    hi: int
    value: int = 0
    known: int = 0
    known_at: tuple[Cell, ...] = ()

    @property
    def exact(self) -> int:
        return self.lo


def number_rules(position: Position, known: frozenset[Cell] = frozenset()) -> tuple[Rule, ...]:
    """One exact rule per revealed number that touches a covered cell (flags ignored).

    ``known``: mines already found; they are taken out of the rules (a number next to one
    needs one mine fewer among its other cells). Raises InconsistentPosition when a number
    has more known mines around it than its value.
    """
    out = []
    for con in position.constraints:
        around = tuple(sorted(con.cells & known))
        need = con.mines - len(around)
        if need < 0:
            r, c = position.board.coord(con.source)
            raise InconsistentPosition(
                f"the {con.mines} at row {r}, col {c} has {len(around)} known mines around it",
                con.source,
            )
        cells = con.cells - known
        if not cells and need:
            r, c = position.board.coord(con.source)
            raise InconsistentPosition(
                f"the {con.mines} at row {r}, col {c} needs {need} more mines but only known "
                "mines are left around it",
                con.source,
            )
        if cells:
            out.append(Rule(con.source, cells, need, need, con.mines, len(around), around))
    return tuple(out)


@dataclass(frozen=True)
class Totals:
    """What the counted rule needs: mines left to find and covered cells left to hold them."""

    mines: int
    covered: int

    @classmethod
    def of(cls, position: Position, known: frozenset[Cell] = frozenset()) -> Totals:
        if position.mines is None:
            raise ValueError("the counted rule needs the total number of mines (position.mines)")
        covered = sum(1 for _ in position.covered_cells())
        return cls(position.mines - len(known), covered - len(known))


def count_rule(totals: Totals, rules: Sequence[Rule], extra: Iterable[Cell] = ()) -> Rule:
    """The total count as a rule over the cells ``rules`` (and ``extra``) touch.

    The covered cells outside those may hold anything from none to all of them, so the cells
    inside hold between ``mines - outside`` and ``mines`` mines.
    """
    inside = frozenset(c for r in rules for c in r.cells) | frozenset(extra)
    outside = totals.covered - len(inside)
    return Rule(None, inside, max(0, totals.mines - outside), totals.mines)


class _System:
    """Rules indexed for a depth-first search with unit propagation."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        order: list[Cell] = []
        seen: set[Cell] = set()
        for rule in rules:  # rule order keeps neighbouring cells close: early conflicts
            for c in sorted(rule.cells):
                if c not in seen:
                    seen.add(c)
                    order.append(c)
        self.cells = order
        self.index = {c: i for i, c in enumerate(order)}
        self.rule_vars = [tuple(self.index[c] for c in r.cells) for r in rules]
        self.lo = [r.lo for r in rules]
        self.hi = [r.hi for r in rules]
        self.var_rules: list[list[int]] = [[] for _ in order]
        for ri, vs in enumerate(self.rule_vars):
            for v in vs:
                self.var_rules[v].append(ri)

    def solve(self, fixed: Mapping[Cell, bool]) -> dict[Cell, bool] | None:
        """A mine assignment of every cell satisfying all rules and ``fixed``, or None."""
        n = len(self.cells)
        value = [-1] * n
        ones = [0] * len(self.rule_vars)
        free = [len(vs) for vs in self.rule_vars]
        trail: list[int] = []
        lo, hi, rule_vars, var_rules = self.lo, self.hi, self.rule_vars, self.var_rules

        def assign(v: int, val: int, queue: list[int]) -> bool:
            value[v] = val
            trail.append(v)
            ok = True
            for r in var_rules[v]:
                free[r] -= 1
                ones[r] += val
                if ones[r] > hi[r] or ones[r] + free[r] < lo[r]:
                    ok = False
                elif free[r] and (ones[r] == hi[r] or ones[r] + free[r] == lo[r]):
                    queue.append(r)
            return ok

        def propagate(queue: list[int]) -> bool:
            while queue:
                r = queue.pop()
                if not free[r]:
                    continue
                val = 0 if ones[r] == hi[r] else 1 if ones[r] + free[r] == lo[r] else -1
                if val < 0:
                    continue
                for v in rule_vars[r]:
                    if value[v] < 0 and not assign(v, val, queue):
                        return False
            return True

        def undo(to: int) -> None:
            while len(trail) > to:
                v = trail.pop()
                val = value[v]
                value[v] = -1
                for r in var_rules[v]:
                    free[r] += 1
                    ones[r] -= val

        queue: list[int] = []
        for r in range(len(rule_vars)):
            if lo[r] > free[r] or hi[r] < 0:
                return None
            if free[r] and (hi[r] == 0 or free[r] == lo[r]):
                queue.append(r)
        for cell, mine in fixed.items():
            v = self.index.get(cell)
            if v is None:
                continue
            if value[v] >= 0:
                if value[v] != int(mine):
                    return None
                continue
            if not assign(v, int(mine), queue):
                return None
        if not propagate(queue):
            return None

        stack: list[tuple[int, int, int]] = []  # (trail length, var, value still to try or -1)
        cursor = 0
        while True:
            while cursor < n and value[cursor] >= 0:
                cursor += 1
            if cursor == n:
                return {self.cells[i]: bool(value[i]) for i in range(n)}
            v = cursor
            stack.append((len(trail), v, 1))
            q: list[int] = []
            ok = assign(v, 0, q) and propagate(q)
            while not ok:
                if not stack:
                    return None
                mark, v2, alt = stack.pop()
                undo(mark)
                cursor = min(cursor, v2)
                if alt < 0:
                    continue
                stack.append((mark, v2, -1))
                q = []
                ok = assign(v2, alt, q) and propagate(q)
            cursor = 0


def feasible(rules: Sequence[Rule], fixed: Mapping[Cell, bool] | None = None) -> bool:
    """Whether some assignment satisfies every rule and ``fixed``."""
    return _System(rules).solve(fixed or {}) is not None


def solve(
    rules: Sequence[Rule], fixed: Mapping[Cell, bool] | None = None
) -> dict[Cell, bool] | None:
    """One assignment of the cells the rules touch satisfying them and ``fixed``, or None."""
    return _System(rules).solve(fixed or {})


def forces(rules: Sequence[Rule], cell: Cell, mine: bool) -> bool:
    """Whether ``rules`` alone force ``cell`` to be a mine (``mine``) or safe (not ``mine``)."""
    return _System(rules).solve({cell: not mine}) is None


# -- neighbourhoods of rules ------------------------------------------------------------------


class RuleGraph:
    """Rules as a graph: two rules touch when they share a covered cell."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = tuple(rules)
        self.by_cell: dict[Cell, list[int]] = {}
        for i, r in enumerate(self.rules):
            for c in r.cells:
                self.by_cell.setdefault(c, []).append(i)
        self._adj: dict[int, frozenset[int]] = {}

    def adjacent(self, i: int) -> frozenset[int]:
        got = self._adj.get(i)
        if got is None:
            got = frozenset(j for c in self.rules[i].cells for j in self.by_cell[c] if j != i)
            self._adj[i] = got
        return got

    def touching(self, cell: Cell) -> tuple[int, ...]:
        return tuple(self.by_cell.get(cell, ()))

    def layers(self, cell: Cell) -> list[list[int]]:
        """Rules by distance from ``cell``: first those touching it, then their neighbours..."""
        return self.layers_from(list(self.touching(cell)))

    def layers_from(self, first: list[int]) -> list[list[int]]:
        """Rules by distance from the rules ``first`` (breadth-first over shared cells)."""
        seen = set(first)
        out = [first] if first else []
        frontier = first
        while frontier:
            nxt: list[int] = []
            for i in frontier:
                for j in sorted(self.adjacent(i)):
                    if j not in seen:
                        seen.add(j)
                        nxt.append(j)
            if nxt:
                out.append(nxt)
            frontier = nxt
        return out

    def component(self, cell: Cell) -> list[int]:
        return [i for layer in self.layers(cell) for i in layer]


def _connected_sets(graph: RuleGraph, cell: Cell, size: int) -> Iterable[frozenset[int]]:
    """Connected sets of ``size`` rules with at least one touching ``cell``, each once."""
    seen: set[frozenset[int]] = set()
    current = {frozenset((i,)) for i in graph.touching(cell)}
    for _ in range(size - 1):
        grown: set[frozenset[int]] = set()
        for group in current:
            around = set().union(*(graph.adjacent(i) for i in group)) - group
            for j in around:
                grown.add(group | {j})
        current = grown
    for group in sorted(current, key=sorted):
        if group not in seen:
            seen.add(group)
            yield group


def shrink(rules: Sequence[Rule], holds: Any, keep: Sequence[Rule] = ()) -> list[Rule]:
    """Drop rules one at a time (last first) while ``holds(rules)`` stays true: a minimal set.

    ``keep`` rules are always passed along (e.g. the count) and never dropped.
    """
    chosen = list(rules)
    for rule in reversed(list(rules)):
        trial = [r for r in chosen if r is not rule]
        if holds([*trial, *keep]):
            chosen = trial
    return chosen


def smallest_forcing_set(
    graph: RuleGraph, cell: Cell, mine: bool, max_exhaustive: int = EXHAUSTIVE_SIZE
) -> list[Rule] | None:
    """A minimal set of rules forcing ``cell`` (fewest numbers when at most ``max_exhaustive``)."""
    for size in range(1, max_exhaustive + 1):
        for group in _connected_sets(graph, cell, size):
            rules = [graph.rules[i] for i in sorted(group)]
            if forces(rules, cell, mine):
                return rules
    ball: list[int] = []
    for layer in graph.layers(cell):
        ball.extend(layer)
        if len(ball) <= max_exhaustive:
            continue
        rules = [graph.rules[i] for i in ball]
        if forces(rules, cell, mine):
            return shrink(rules, lambda rs: forces(rs, cell, mine))
    return None


# -- proofs -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Proof:
    """Why ``cell`` has its verdict.

    ``numbers``: the revealed numbers the proof uses (empty for an either-cell).
    ``layouts``: for an either-cell, a consistent layout with a mine on ``cell`` and one without.
    ``counted``: the proof uses the total mine count (level 4).
    ``known``: mines found earlier that the proof relies on (only when ``prove`` was given
    ``known_mines``); JSON adds ``"known"`` only when there are some.
    """

    cell: Cell
    verdict: Verdict
    numbers: tuple[Cell, ...]
    level: int
    steps: tuple[str, ...]
    layouts: tuple[Layout, Layout] | None = None
    counted: bool = False
    known: tuple[Cell, ...] = ()

    def to_json(self, position: Position) -> dict[str, Any]:
        coord = position.board.coord
        out: dict[str, Any] = {"verdict": self.verdict.value}
        if self.layouts is not None:
            out["layouts"] = [layout_rows(position, layout) for layout in self.layouts]
        else:
            out["numbers"] = [list(coord(n)) for n in self.numbers]
            if self.known:
                out["known"] = [list(coord(n)) for n in self.known]
        out["level"] = self.level
        out["steps"] = list(self.steps)
        return out


def layout_rows(position: Position, layout: Layout) -> list[str]:
    """The position's rows with ``*`` a mine and ``.`` a covered cell without one."""
    grid = bytearray(position.grid)
    for cell in position.covered_cells():
        grid[cell] = ord("*") if cell in layout else ord(".")
    text = grid.decode("ascii")
    w = position.board.width
    return [text[i : i + w] for i in range(0, len(text), w)]


def at(position: Position, cell: Cell) -> str:
    """``row 4, col 7``: how proofs name a cell (``Position.where``: zero-based, as
    ``devil-check --cell 4,7`` and the JSON API count)."""
    return position.where(cell)


def cell_list(position: Position, cells: Iterable[Cell], parens: bool = False) -> str:
    """``row 1, col 2`` for one cell; ``(row 1, col 2), (row 1, col 3) and (row 2, col 3)``
    for several, each in brackets so the commas inside a name cannot be misread. ``parens``
    brackets a single name too (for a list set off by commas in a sentence)."""
    names = [at(position, c) for c in sorted(cells)]
    if len(names) == 1 and not parens:
        return names[0]
    names = [f"({n})" for n in names]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _check_cell(position: Position, cell: Cell) -> None:
    board = position.board
    if not 0 <= cell < board.size:
        raise InvalidMove(f"cell {cell} is outside the {board.height}x{board.width} board")
    if not position.is_covered(cell):
        what = "a hole" if cell in board.holes else f"revealed ({position.number(cell)})"
        raise InvalidMove(
            f"the cell at {at(position, cell)} is {what}, not covered: "
            "only covered cells have proofs"
        )


def _unsatisfiable(position: Position, rules: Sequence[Rule]) -> InconsistentPosition:
    for r in rules:
        if r.source is not None:
            return InconsistentPosition.unsatisfiable(position, r.source)
    return InconsistentPosition("no layout has the total number of mines given")


def prove(
    position: Position,
    cell: Cell,
    count: Count = Count.CLASSIC,
    known_mines: Iterable[Cell] = (),
) -> Proof:
    """The proof for one covered cell under ``count``.

    ``known_mines``: covered cells the caller knows to be mines (found earlier, e.g. a
    player's flags that the solver confirms). Proofs may then use them, as a player does:
    "the 1 at row 3, col 4 already has its mine at row 2, col 3, so row 4, col 5 is safe" is
    one number.
    The caller vouches for them; with none (the default) a proof uses numbers only.

    Raises ``InvalidMove`` when ``cell`` is not a covered cell (or is a known mine) and
    ``InconsistentPosition`` when no layout fits the numbers.
    """
    _check_cell(position, cell)
    known = frozenset(known_mines)
    for k in known:
        _check_cell(position, k)
    if cell in known:
        raise InvalidMove(f"the cell at {at(position, cell)} is one of the known mines given")
    rules = number_rules(position, known)
    graph = RuleGraph(rules)
    component = [rules[i] for i in graph.component(cell)]
    can_mine = feasible(component, {cell: True})
    can_safe = feasible(component, {cell: False})
    if not (can_mine or can_safe):
        raise _unsatisfiable(position, component)
    if not (can_mine and can_safe):
        mine = can_mine
        found = smallest_forcing_set(graph, cell, mine)
        if found is None:  # the whole component forces it, so this cannot happen
            raise AssertionError("component forces the cell but no subset does")
        return _number_proof(position, cell, mine, found)
    if count is Count.COUNTED:
        counted = _counted_proof(position, cell, rules, Totals.of(position, known))
        if counted is not None:
            return counted
    return _either_proof(position, cell, count, known)


def _known_used(rules: Sequence[Rule]) -> tuple[Cell, ...]:
    return tuple(sorted({k for r in rules for k in r.known_at}))


def _number_proof(position: Position, cell: Cell, mine: bool, rules: Sequence[Rule]) -> Proof:
    level = min(len(rules), 3)
    steps = explain(position, cell, mine, rules)
    return Proof(
        cell=cell,
        verdict=Verdict.MINE if mine else Verdict.SAFE,
        numbers=tuple(sorted(r.source for r in rules if r.source is not None)),
        level=level,
        steps=tuple(steps),
        known=_known_used(rules),
    )


# -- the counted rule (level 4) ---------------------------------------------------------------


def count_mask(rules: Sequence[Rule], fixed: Mapping[Cell, bool]) -> int:
    """Which totals of mines, over the cells ``rules`` (and ``fixed``) touch, some assignment
    allows: bit ``k`` is set when some assignment satisfying every rule and ``fixed`` has ``k``.

    A dynamic programme along the cells in breadth-first order: the state is how many mines each
    rule that is still open (some cells decided, some not) has received, so a long thin frontier
    costs time linear in its length.
    """
    order: list[Cell] = []
    seen: set[Cell] = set()
    by_cell: dict[Cell, list[int]] = {}
    for i, r in enumerate(rules):
        for c in r.cells:
            by_cell.setdefault(c, []).append(i)
    for start in sorted(by_cell):
        if start in seen:
            continue
        seen.add(start)
        queue = [start]
        while queue:
            c = queue.pop(0)
            order.append(c)
            for ri in by_cell[c]:
                for d in sorted(rules[ri].cells):
                    if d not in seen:
                        seen.add(d)
                        queue.append(d)
    extra = sorted(c for c in fixed if c not in by_cell)
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for pos, c in enumerate(order):
        for ri in by_cell[c]:
            first.setdefault(ri, pos)
            last[ri] = pos
    for ri in range(len(rules)):
        if rules[ri].lo > len(rules[ri].cells) or rules[ri].hi < 0:
            return 0
    left = [len(r.cells) for r in rules]

    open_rules: list[int] = []
    states: dict[tuple[int, ...], int] = {(): 1}
    for pos, c in enumerate(order):
        touching = by_cell[c]
        new_open = open_rules + [ri for ri in touching if first[ri] == pos]
        slot = {ri: k for k, ri in enumerate(new_open)}
        for ri in touching:
            left[ri] -= 1
        keep = [ri for ri in new_open if last[ri] != pos]
        keep_slots = [slot[ri] for ri in keep]
        values = (0, 1) if c not in fixed else (int(fixed[c]),)
        nxt: dict[tuple[int, ...], int] = {}
        grow = len(new_open) - len(open_rules)
        for state, mask in states.items():
            base = list(state) + [0] * grow
            for v in values:
                cur = base
                if v:
                    cur = base.copy()
                    for ri in touching:
                        cur[slot[ri]] += 1
                ok = True
                for ri in touching:
                    got = cur[slot[ri]]
                    if got > rules[ri].hi or got + left[ri] < rules[ri].lo:
                        ok = False
                        break
                if not ok:
                    continue
                key = tuple(cur[k] for k in keep_slots)
                nxt[key] = nxt.get(key, 0) | (mask << v)
        states = nxt
        open_rules = keep
        if not states:
            return 0
    total = 0
    for mask in states.values():
        total |= mask
    for c in extra:
        total = total << 1 if fixed[c] else total
    return total


def mask_counts(mask: int) -> list[int]:
    return [k for k in range(mask.bit_length()) if mask >> k & 1]


def _outside(totals: Totals, rules: Sequence[Rule], cell: Cell) -> tuple[int, int]:
    """(cells the rules and ``cell`` touch, covered cells outside them)."""
    inside = len(frozenset(c for r in rules for c in r.cells) | {cell})
    return inside, totals.covered - inside


def counted_allows(totals: Totals, rules: Sequence[Rule], cell: Cell, mine: bool) -> bool:
    """Whether ``rules`` plus the total count allow ``cell`` to be a mine (``mine``) or safe."""
    _, outside = _outside(totals, rules, cell)
    mask = count_mask(rules, {cell: mine})
    low = max(0, totals.mines - outside)
    return any(low <= k <= totals.mines for k in mask_counts(mask))


def counted_forces(totals: Totals, rules: Sequence[Rule], cell: Cell, mine: bool) -> bool:
    """Whether ``rules`` plus the total count force ``cell`` (``mine``: to be a mine)."""
    return not counted_allows(totals, rules, cell, not mine)


def _counted_proof(
    position: Position, cell: Cell, rules: Sequence[Rule], totals: Totals
) -> Proof | None:
    can_mine = counted_allows(totals, rules, cell, True)
    can_safe = counted_allows(totals, rules, cell, False)
    if not (can_mine or can_safe):
        raise InconsistentPosition(
            f"no layout fits the numbers with exactly {position.mines} mines"
        )
    if can_mine and can_safe:
        return None
    mine = can_mine
    chosen = _shrink_counted(position, cell, mine, rules, totals)
    steps = explain_counted(position, cell, mine, chosen, totals)
    return Proof(
        cell=cell,
        verdict=Verdict.MINE if mine else Verdict.SAFE,
        numbers=tuple(sorted(r.source for r in chosen if r.source is not None)),
        level=4,
        steps=tuple(steps),
        counted=True,
        known=_known_used(chosen),
    )


def _shrink_counted(
    position: Position, cell: Cell, mine: bool, rules: Sequence[Rule], totals: Totals
) -> list[Rule]:
    """A minimal set of numbers that, with the count, forces ``cell``.

    Whole groups of touching numbers are dropped first (cheap), then single numbers.
    """
    graph = RuleGraph(rules)
    groups: list[list[Rule]] = []
    placed: set[int] = set()
    for i in range(len(rules)):
        if i in placed:
            continue
        comp = [j for layer in graph.layers_from([i]) for j in layer]
        placed.update(comp)
        groups.append([rules[j] for j in comp])
    # nearest groups last, so they are the last candidates to drop
    groups.sort(key=lambda g: -min(_distance(position, cell, c) for r in g for c in r.cells))

    def holds(rs: Sequence[Rule]) -> bool:
        return counted_forces(totals, rs, cell, mine)

    kept: list[list[Rule]] = []
    for gi, group in enumerate(groups):
        rest = [r for g in kept for r in g] + [r for g in groups[gi + 1 :] for r in g]
        if not holds(rest):
            kept.append(group)
    return shrink([r for g in kept for r in g], holds)


def _distance(position: Position, a: Cell, b: Cell) -> int:
    ra, ca = position.board.coord(a)
    rb, cb = position.board.coord(b)
    return max(abs(ra - rb), abs(ca - cb))


# -- either-cells -----------------------------------------------------------------------------


def _either_proof(
    position: Position, cell: Cell, count: Count, known: frozenset[Cell] = frozenset()
) -> Proof:
    with_mine = either_layout(position, cell, True, count)
    without = either_layout(position, cell, False, count)
    if with_mine is None or without is None:
        raise AssertionError(f"no witness for the either-cell {at(position, cell)}")
    name = at(position, cell)
    steps = [
        f"The cell at {name} could be either: one layout fits every number with a mine on {name}, "
        f"another fits them all with {name} safe.",
    ]
    if cell not in position.edge:
        steps.append(
            f"The cell at {name} touches no revealed number, so no number says anything about it."
        )
    return Proof(cell, Verdict.EITHER, (), 0, tuple(steps), (with_mine, without))


def either_layout(position: Position, cell: Cell, mine: bool, count: Count) -> Layout | None:
    """A full consistent layout with ``cell`` a mine (``mine``) or safe.

    Uses ``devil.solver.witness``; falls back to this module's own search when the solver
    is not installed (it is written by another module and may be absent in a partial build).
    """
    try:
        solver = importlib.import_module("devil.solver")
    except ImportError:
        return _own_layout(position, cell, mine, count)
    found = solver.witness(position, cell, mine=mine, count=count)
    return cast("Layout | None", found)


def _own_layout(position: Position, cell: Cell, mine: bool, count: Count) -> Layout | None:
    rules = list(number_rules(position))
    if count is Count.COUNTED:
        rules.append(count_rule(Totals.of(position), rules, (cell,)))
    found = solve(rules, {cell: mine})
    if found is None:
        return None
    layout = {c for c, m in found.items() if m}
    if mine:
        layout.add(cell)
    if count is Count.COUNTED and position.mines is not None:
        spare = (c for c in position.covered_cells() if c not in found and c != cell)
        for c in spare:
            if len(layout) >= position.mines:
                break
            layout.add(c)
    return frozenset(layout)


# -- readable steps ---------------------------------------------------------------------------


def number_name(position: Position, rule: Rule) -> str:
    """``the 2 at row 4, col 6``."""
    assert rule.source is not None
    return f"the {rule.value} at {at(position, rule.source)}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _mines_phrase(n: int) -> str:
    return "no mine" if n == 0 else "one mine" if n == 1 else f"{n} mines"


def _needs(rule: Rule, position: Position | None = None) -> str:
    """``needs one mine`` or, when some are known, ``needs one more mine besides the one at
    row 2, col 3``."""
    if rule.known:
        if position is not None and rule.known_at:
            where = cell_list(position, rule.known_at)
            besides = f"the one at {where}" if rule.known == 1 else f"those at {where}"
        else:
            besides = _mines_phrase(rule.known) + " already found"
        more = "no more mines" if rule.exact == 0 else f"{_mines_phrase(rule.exact)} more"
        return f"needs {more} besides {besides}"
    return f"needs {_mines_phrase(rule.exact)}"


def _other_cells(position: Position, cells: Iterable[Cell], mine: bool) -> str:
    """``its other cell, (row 1, col 1), is safe`` / ``its other cells, (row 1, col 1) and
    (row 1, col 2), are mines``."""
    listed = sorted(cells)
    names = cell_list(position, listed, parens=True)
    if len(listed) == 1:
        return f"its other cell, {names}, is {'a mine' if mine else 'safe'}"
    return f"its other cells, {names}, are {'all mines' if mine else 'safe'}"


def explain(position: Position, cell: Cell, mine: bool, rules: Sequence[Rule]) -> list[str]:
    """Readable steps showing that ``rules`` alone force ``cell`` (a mine when ``mine``)."""
    target = at(position, cell)
    verdict = "a mine" if mine else "safe"
    if len(rules) == 1:
        return _explain_single(position, cell, mine, rules[0])
    if len(rules) == 2:
        pair = _explain_pair(position, cell, mine, rules[0], rules[1])
        if pair is not None:
            return pair
    out = _explain_by_contradiction(position, cell, mine, rules)
    out.append(f"So {target} is {verdict}.")
    return out


def covered_around(position: Position, sources: Iterable[Cell]) -> frozenset[Cell]:
    """The covered cells (flagged or not) next to any of ``sources``."""
    board = position.board
    return frozenset(n for s in sources for n in board.neighbours(s) if position.is_covered(n))


def _open_word(position: Position, rules: Sequence[Rule]) -> str:
    """``covered`` when ``rules`` hold every covered cell their numbers touch, else
    ``undecided`` (some were taken out as known mines or cells shown safe)."""
    sources = [r.source for r in rules if r.source is not None]
    cells = frozenset(c for r in rules for c in r.cells)
    return "covered" if cells == covered_around(position, sources) else "undecided"


def _explain_single(position: Position, cell: Cell, mine: bool, rule: Rule) -> list[str]:
    name = number_name(position, rule)
    covered = cell_list(position, rule.cells, parens=True)
    target = at(position, cell)
    n = len(rule.cells)
    word = _open_word(position, [rule])
    if mine:
        if n == 1:
            return [
                f"{name.capitalize()} touches 1 {word} cell, {covered}, and "
                f"{_needs(rule, position)} there, so {target} is a mine."
            ]
        return [
            f"{name.capitalize()} touches {_plural(n, word + ' cell')}, {covered}, and "
            f"{_needs(rule, position)} among them, so all of them are mines: {target} is a mine."
        ]
    if n == 1:
        return [
            f"{name.capitalize()} {_needs(rule, position)} on its one {word} cell, {covered}, "
            f"so {target} is safe."
        ]
    return [
        f"{name.capitalize()} {_needs(rule, position)} among its {n} {word} cells, {covered}, "
        f"so all of them are safe: {target} is safe."
    ]


def _explain_pair(position: Position, cell: Cell, mine: bool, a: Rule, b: Rule) -> list[str] | None:
    """The subset rule and the overlap rule in words, or None to fall back to cases."""
    target = at(position, cell)
    verdict = "a mine" if mine else "safe"
    for small, big in ((a, b), (b, a)):
        if small.cells <= big.cells and cell in big.cells - small.cells:
            rest = big.cells - small.cells
            left = big.exact - small.exact
            still = "" if _open_word(position, [small]) == "covered" else " still undecided"
            first = (
                f"{number_name(position, small).capitalize()} touches only "
                f"{cell_list(position, small.cells)}{still} and {_needs(small, position)} there"
            )
            big_name = number_name(position, big)
            if left == 0:
                second = f"{big_name} touches those too and {_needs(big, position)}, so " + (
                    f"{cell_list(position, rest)} {'is' if len(rest) == 1 else 'are'} safe"
                )
            elif left == len(rest):
                second = f"{big_name} touches those too and {_needs(big, position)}, so " + (
                    f"its last mine must be at {cell_list(position, rest)}"
                    if left == 1
                    else f"its other {left} mines must be at {cell_list(position, rest)}"
                )
            else:
                second = (
                    f"{big_name} touches those too and {_needs(big, position)}, so "
                    f"{cell_list(position, rest)} hold {_mines_phrase(left)}"
                )
            return [f"{first}; {second}.", f"So {target} is {verdict}."]
    for one, other in ((a, b), (b, a)):
        if cell not in other.cells - one.cells:
            continue
        shared = one.cells & other.cells
        only_one = one.cells - other.cells
        only_other = other.cells - one.cells
        # mines the first number must put in the shared cells
        at_least = one.exact - len(only_one)
        at_most = min(one.exact, len(shared))
        if mine and other.exact - at_most == len(only_other) and at_most >= 0:
            return [
                f"{number_name(position, one).capitalize()} {_needs(one, position)} and can put "
                f"at most {_mines_phrase(at_most)} in the cells it shares with "
                f"{number_name(position, other)}, {cell_list(position, shared)}.",
                f"{number_name(position, other).capitalize()} {_needs(other, position)}, so "
                f"{_other_cells(position, only_other, True)}.",
                f"So {target} is {verdict}.",
            ]
        if not mine and at_least > 0 and other.exact - at_least == 0:
            return [
                f"{number_name(position, one).capitalize()} {_needs(one, position)} but has only "
                f"{_plural(len(only_one), 'cell')} outside the cells it shares with "
                f"{number_name(position, other)}, so at least {_mines_phrase(at_least)} lies in "
                f"{cell_list(position, shared)}.",
                f"That already satisfies {number_name(position, other)}, so "
                f"{_other_cells(position, only_other, False)}.",
                f"So {target} is {verdict}.",
            ]
    return None


def _explain_by_contradiction(
    position: Position, cell: Cell, mine: bool, rules: Sequence[Rule], depth: int = 0
) -> list[str]:
    """Suppose the opposite, follow what the numbers force, reach an impossibility."""
    target = at(position, cell)
    opposite = "safe" if mine else "a mine"
    lines = [f"Suppose {target} were {opposite}."]
    lines.extend(_trace(position, rules, {cell: not mine}, depth))
    return lines


def _trace(
    position: Position, rules: Sequence[Rule], fixed: dict[Cell, bool], depth: int
) -> list[str]:
    """Follow what ``fixed`` forces, in words, until a number breaks; split cases if stuck."""
    known = dict(fixed)
    lines: list[str] = []
    changed = True
    while changed:
        changed = False
        for rule in rules:
            unknown = [c for c in rule.cells if c not in known]
            mines = sum(1 for c in rule.cells if known.get(c) is True)
            if mines > rule.hi or mines + len(unknown) < rule.lo:
                lines.append(_broken(position, rule, mines, len(unknown)))
                return lines
            if not unknown:
                continue
            if mines == rule.hi:
                for c in unknown:
                    known[c] = False
                lines.append(_forced(position, rule, unknown, mine=False))
                changed = True
            elif mines + len(unknown) == rule.lo:
                for c in unknown:
                    known[c] = True
                lines.append(_forced(position, rule, unknown, mine=True))
                changed = True
    # stuck: split on an undecided cell shared by most rules
    undecided = [c for r in rules for c in r.cells if c not in known]
    if not undecided or depth >= 2:
        cells = {c for r in rules for c in r.cells}
        word = _open_word(position, rules)
        lines.append(
            f"Trying every way to place mines on the {len(cells)} {word} cells these numbers "
            "touch shows none fits them all."
        )
        return lines
    pivot = max(sorted(set(undecided)), key=undecided.count)
    for value in (True, False):
        lines.append(f"Case: {at(position, pivot)} is {'a mine' if value else 'safe'}.")
        sub = _trace(position, rules, {**known, pivot: value}, depth + 1)
        lines.extend("  " + s for s in sub)
    lines.append("Both cases are impossible.")
    return lines


def _forced(position: Position, rule: Rule, cells: Sequence[Cell], mine: bool) -> str:
    where = cell_list(position, cells)
    if rule.source is None:
        return f"Then the mine count makes {where} {'mines' if mine else 'safe'}."
    name = number_name(position, rule)
    if mine:
        return f"Then {name} needs {where} to be {'a mine' if len(cells) == 1 else 'mines'}."
    return f"Then {name} is satisfied, so {where} {'is' if len(cells) == 1 else 'are'} safe."


def _broken(position: Position, rule: Rule, mines: int, unknown: int) -> str:
    if rule.source is None:
        return "But then the total number of mines cannot be right: impossible."
    name = number_name(position, rule)
    if mines > rule.hi:
        return f"But then {name} would have too many mines around it: impossible."
    return f"But then {name} could not get enough mines: impossible."


def explain_counted(
    position: Position, cell: Cell, mine: bool, rules: Sequence[Rule], totals: Totals
) -> list[str]:
    """Why the numbers plus the total count force ``cell``."""
    target = at(position, cell)
    inside, outside = _outside(totals, rules, cell)
    touched = frozenset(c for r in rules for c in r.cells)
    counts = mask_counts(count_mask(rules, {cell: not mine}))
    opposite = "safe" if mine else "a mine"
    verdict = "a mine" if mine else "safe"
    total = totals.mines
    low = max(0, total - outside)
    shown = " or ".join(str(k) for k in counts[:8]) + (" ..." if len(counts) > 8 else "")
    left = "" if total == position.mines else " left to find"
    lines = [
        f"The numbers alone allow {target} to be either; the total of "
        f"{_plural(total, 'mine')}{left} decides."
    ]
    allowed = "only " + (f"{shown} mines" if counts != [1] else "1 mine")
    if rules:
        names = ", ".join(number_name(position, r) for r in rules[:6])
        if len(rules) > 6:
            names += f" and {len(rules) - 6} more"
        word = _open_word(position, rules) + " cell"
        if len(rules) == 1:
            nearby = f"the number nearby ({names}) allows"
            they = "it touches"
        else:
            nearby = f"the numbers nearby ({names}) allow"
            they = "they touch"
        where = (
            f"among the {_plural(len(touched), word)} {they}, {target} included"
            if cell in touched
            else f"among the {_plural(len(touched), word)} {they} and {target} itself"
        )
        lines.append(f"If {target} were {opposite}, {nearby} {allowed} {where}.")
    else:
        lines.append(f"If {target} were {opposite}, it would hold {allowed}.")
    if outside:
        lines.append(
            f"The other {_plural(outside, 'covered cell')} hold at most {outside}, so those "
            f"{_plural(inside, 'cell')} must hold between {low} and {total}: "
            "none of the allowed totals fits."
        )
    else:
        lines.append(
            f"No other covered cell is left, so they must hold exactly {total}: "
            "none of the allowed totals fits."
        )
    lines.append(f"So {target} is {verdict}.")
    return lines
