"""The proof level of a decided cell, found locally (fast enough for every move of a game).

The level is the one ``devil.teach.proof.prove`` gives (see docs/teaching.md): the size of the
smallest connected set of revealed numbers that forces the cell, where 1 is one number, 2 two
numbers, 3 more numbers or cases, and 4 when the total mine count is needed as well. Like the
hint ladder, the player's flags that the solver confirms count as known mines (a number next
to one needs one mine fewer among its other cells).

``prove`` builds a whole explanation; annotating a game needs only the level, so this module
tries the one- and two-number sets around the cell in closed form and decides between 3 and 4
by asking whether the numbers alone (the classic rule) decide the cell, which the caller
answers from a classic analysis, and, when they do not, whether they do with the known mines
taken out (``component_forces``: a flag the count proved can make the count unnecessary).
"""

from __future__ import annotations

from collections.abc import Callable

from devil.board import Cell
from devil.position import COVERED, FLAG, NUMBER_VALUE, Position
from devil.solve.grid import neighbour_fn
from devil.teach.bounds import Bound, forces
from devil.teach.levels import pair_forced

MAX_COMPONENT = 400
"""Most numbers ``component_forces`` searches together."""

Neighbours = Callable[[Cell], tuple[Cell, ...]]
"""``Board.neighbours`` or the faster ``devil.generate.neighbour_fn(board)``."""

KnownMine = Callable[[Cell], bool]
"""Whether a flagged cell is a mine the player may rely on (a confirmed flag)."""


class _Bounds:
    """Bounds of the numbers near one cell, built on demand (known mines taken out)."""

    def __init__(self, position: Position, known: KnownMine, nb: Neighbours) -> None:
        self.position = position
        self.nb = nb
        self.known = known
        self._rules: dict[Cell, Bound | None] = {}

    def rule(self, source: Cell) -> Bound | None:
        if source in self._rules:
            return self._rules[source]
        grid = self.position.grid
        value = NUMBER_VALUE[grid[source]]
        rule: Bound | None = None
        if 0 <= value <= 8:
            cells: list[Cell] = []
            found: list[Cell] = []
            for n in self.nb(source):
                byte = grid[n]
                if byte == FLAG and self.known(n):
                    found.append(n)
                elif byte in (COVERED, FLAG):
                    cells.append(n)
            need = value - len(found)
            if cells and need >= 0:
                rule = Bound(source, frozenset(cells), need, need, value, len(found), tuple(found))
        self._rules[source] = rule
        return rule

    def around(self, cells: frozenset[Cell] | tuple[Cell, ...]) -> list[Bound]:
        """Rules of the numbers touching any of ``cells`` (each once, in cell order)."""
        seen: set[Cell] = set()
        out: list[Bound] = []
        for c in sorted(cells):
            for n in self.nb(c):
                if n not in seen:
                    seen.add(n)
                    r = self.rule(n)
                    if r is not None:
                        out.append(r)
        return out


def local_level(
    position: Position, cell: Cell, mine: bool, known: KnownMine, nb: Neighbours | None = None
) -> int | None:
    """1 or 2 when one number or two connected numbers force ``cell`` (a mine when ``mine``,
    else safe); None when more is needed. The caller has established that the cell is forced.

    Closed forms (exact for exact bounds): one number forces its cells when it needs none
    (or all) of them; two numbers as ``devil.teach.levels.pair_forced`` says."""
    bounds = _Bounds(position, known, nb or neighbour_fn(position.board))
    first = [r for r in bounds.around((cell,)) if cell in r.cells]
    for r in first:
        if (r.hi == len(r.cells)) if mine else (r.hi == 0):
            return 1
    for r in first:
        for other in bounds.around(tuple(r.cells)):
            if other.source == r.source:
                continue
            safe, mines = pair_forced(r, other)
            if cell in (mines if mine else safe):
                return 2
    return None


def proof_level(
    position: Position,
    cell: Cell,
    mine: bool,
    known: KnownMine,
    numbers_decide: Callable[[], bool],
    nb: Neighbours | None = None,
) -> int:
    """The level of the proof that ``cell`` is a mine (``mine``) or safe, which it is.

    ``numbers_decide()`` answers whether the numbers alone (the classic rule) decide the cell;
    it is asked only when one or two numbers do not suffice.
    """
    level = local_level(position, cell, mine, known, nb)
    if level is not None:
        return level
    if numbers_decide() or component_forces(position, cell, mine, known, nb):
        return 3
    return 4


def component_forces(
    position: Position, cell: Cell, mine: bool, known: KnownMine, nb: Neighbours | None = None
) -> bool:
    """Whether the numbers connected to ``cell``, with the known mines taken out, force it.

    Asked when the numbers alone do not: known mines can only help when one of them sits in
    the cell's component (a flag the count proved). At most ``MAX_COMPONENT`` numbers are
    searched; a bigger component counts as not forcing (level 4)."""
    bounds = _Bounds(position, known, nb or neighbour_fn(position.board))
    component = {b.source: b for b in bounds.around((cell,)) if cell in b.cells}
    todo = list(component.values())
    while todo:
        for other in bounds.around(tuple(todo.pop().cells)):
            if other.source not in component:
                if len(component) >= MAX_COMPONENT:
                    return False
                component[other.source] = other
                todo.append(other)
    if not any(b.known_at for b in component.values()):
        return False
    return forces(list(component.values()), cell, mine)
