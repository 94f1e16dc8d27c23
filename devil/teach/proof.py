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

The pieces: ``devil.teach.bounds`` is the logic (bounds ``lo <= mines among cells <= hi`` over
covered cells, the exact questions asked of the bounds it is given, by the solver's engines,
the minimal forcing sets); ``devil.teach.wording`` is the English of the steps; this module
puts them together into ``Proof`` values and levels.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from devil.analysis import Layout, Verdict
from devil.board import Cell
from devil.errors import InconsistentPosition, InvalidMove
from devil.position import Position
from devil.rules import Count
from devil.solve.solver import witness
from devil.teach.bounds import (
    Bound,
    BoundGraph,
    Totals,
    counted_allows,
    feasible,
    number_bounds,
    smallest_counted_set,
    smallest_forcing_set,
)
from devil.teach.wording import at, explain, explain_counted, explain_either, layout_rows

__all__ = ["LEVEL_NAMES", "Proof", "either_layout", "prove"]


LEVEL_NAMES: Mapping[int, str] = {
    1: "one number",
    2: "two numbers",
    3: "several numbers or cases",
    4: "the mine count",
}
"""A short name for each proof level, for pages and messages."""


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


def _check_cell(position: Position, cell: Cell) -> None:
    board = position.board
    if not 0 <= cell < board.size:
        raise InvalidMove(f"cell {cell} is outside the {board.height}x{board.width} board")
    if not position.is_covered(cell):
        what = "a hole" if cell in board.holes else f"revealed ({position.number(cell)})"
        raise InvalidMove(
            f"{position.the_cell(cell)} is {what}, not covered: only covered cells have proofs"
        )


def _unsatisfiable(position: Position, bounds: Sequence[Bound]) -> InconsistentPosition:
    for r in bounds:
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
        raise InvalidMove(f"{position.the_cell(cell)} is one of the known mines given")
    bounds = number_bounds(position, known)
    graph = BoundGraph(bounds)
    component = [bounds[i] for i in graph.component(cell)]
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
        counted = _counted_proof(position, cell, bounds, Totals.of(position, known))
        if counted is not None:
            return counted
    return _either_proof(position, cell, count, known)


def _known_used(bounds: Sequence[Bound]) -> tuple[Cell, ...]:
    return tuple(sorted({k for r in bounds for k in r.known_at}))


def _number_proof(position: Position, cell: Cell, mine: bool, bounds: Sequence[Bound]) -> Proof:
    level = min(len(bounds), 3)
    steps = explain(position, cell, mine, bounds)
    return Proof(
        cell=cell,
        verdict=Verdict.MINE if mine else Verdict.SAFE,
        numbers=tuple(sorted(r.source for r in bounds if r.source is not None)),
        level=level,
        steps=tuple(steps),
        known=_known_used(bounds),
    )


def _counted_proof(
    position: Position, cell: Cell, bounds: Sequence[Bound], totals: Totals
) -> Proof | None:
    can_mine = counted_allows(totals, bounds, cell, True)
    can_safe = counted_allows(totals, bounds, cell, False)
    if not (can_mine or can_safe):
        raise InconsistentPosition(
            f"no layout fits the numbers with exactly {position.mines} mines"
        )
    if can_mine and can_safe:
        return None
    mine = can_mine
    chosen = smallest_counted_set(position, cell, mine, bounds, totals)
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


def _either_proof(
    position: Position, cell: Cell, count: Count, known: frozenset[Cell] = frozenset()
) -> Proof:
    with_mine = either_layout(position, cell, True, count)
    without = either_layout(position, cell, False, count)
    if with_mine is None or without is None:
        raise AssertionError(f"no witness for the either-cell {at(position, cell)}")
    steps = explain_either(position, cell)
    return Proof(cell, Verdict.EITHER, (), 0, tuple(steps), (with_mine, without))


def either_layout(position: Position, cell: Cell, mine: bool, count: Count) -> Layout | None:
    """A full consistent layout with ``cell`` a mine (``mine``) or safe: the solver's witness."""
    return witness(position, cell, mine=mine, count=count)
