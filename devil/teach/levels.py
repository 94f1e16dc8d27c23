"""Step-by-step deduction and the level of a board.

A player who never guesses works from what they already know: the revealed numbers, the mines
they have found (flags) and the cells they have shown safe. ``Deducer`` keeps that knowledge and
finds the next *step*: one technique (``TECHNIQUE_NAMES``), applied to the fewest numbers that
give something, that reveals or flags cells. It always takes the lowest level available:

1. a single number (it already has all its mines: the rest are safe; or it has as many unknown
   cells as missing mines: they are all mines);
2. two numbers (the subset rule, and its overlap form: the mines one number must put in the
   cells it shares with another);
3. three or more numbers, or a case analysis (the smallest set of numbers that forces a cell,
   from ``devil.teach.bounds``);
4. the total mine count (counted rule only).

``deduction_steps`` runs it on a position (for the analysis board: cells shown safe stay covered,
no new number appears). ``grade`` / ``board_level`` run it on a real board with its layout, from
the first click: every safe cell found is revealed (with the zero cascade) and brings its number,
until the board is clear or nothing more can be deduced. Taking the lowest level first is optimal:
knowledge only grows, so deferring a harder step never makes a later one harder.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from devil.analysis import Layout
from devil.board import Board, Cell
from devil.position import COVERED, FLAG, IS_NUMBER, NUMBER_BYTE, NUMBER_VALUE, Position
from devil.rules import Count
from devil.teach.bounds import (
    Bound,
    BoundGraph,
    count_mask,
    mask_counts,
    smallest_forcing_set,
    solve,
)
from devil.teach.wording import cell_list, explain, number_name, sentence

__all__ = [
    "Deducer",
    "Grade",
    "Step",
    "board_level",
    "deduction_steps",
    "grade",
]

TECHNIQUE_NAMES = {
    "satisfied": "a satisfied number",
    "all-mines": "a number with no room to spare",
    "subset": "the subset rule",
    "overlap": "the overlap rule",
    "cases": "several numbers together",
    "count": "the mine count",
}


@dataclass(frozen=True)
class Step:
    """One deduction: ``technique`` (a key of ``TECHNIQUE_NAMES``) at ``level`` applied to
    ``numbers`` (revealed cells) and the mines already found (``known``) shows ``safe`` cells
    safe and ``mines`` cells mines. ``text``: the reasoning in sentences."""

    level: int
    technique: str
    numbers: tuple[Cell, ...]
    safe: tuple[Cell, ...]
    mines: tuple[Cell, ...]
    text: tuple[str, ...]
    known: tuple[Cell, ...] = ()

    @property
    def technique_name(self) -> str:
        return TECHNIQUE_NAMES[self.technique]

    def to_json(self, board: Board) -> dict[str, Any]:
        def coords(cells: Sequence[Cell]) -> list[list[int]]:
            return [list(board.coord(c)) for c in cells]

        return {
            "level": self.level,
            "technique": self.technique,
            "technique_name": self.technique_name,
            "numbers": coords(self.numbers),
            "known": coords(self.known),
            "safe": coords(self.safe),
            "mines": coords(self.mines),
            "text": list(self.text),
        }


class Deducer:
    """Knowledge of a player who never guesses, and the next step it allows.

    ``grid`` holds the position's bytes and changes as cells are revealed (``reveal``).
    Flags in ``grid`` are read as covered cells: only deductions make a mine known.
    """

    def __init__(self, board: Board, grid: bytes, mines: int | None, count: Count) -> None:
        if count is Count.COUNTED and mines is None:
            raise ValueError("the counted rule needs the total number of mines")
        self.board = board
        self.grid = bytearray(g if g != FLAG else COVERED for g in grid)
        self.mines = mines
        self.count = count
        self.known_mines: set[Cell] = set()
        self.known_safe: set[Cell] = set()
        self._nb: dict[Cell, tuple[Cell, ...]] = {}
        self.active: set[Cell] = {c for c in range(board.size) if IS_NUMBER[self.grid[c]]}
        """Revealed numbers that may still touch an unknown cell (the rest are done)."""
        self._bounds: dict[Cell, Bound] = {}
        self._dirty: set[Cell] = set(self.active)

    def neighbours(self, cell: Cell) -> tuple[Cell, ...]:
        got = self._nb.get(cell)
        if got is None:
            got = self._nb[cell] = self.board.neighbours(cell)
        return got

    # -- views ----------------------------------------------------------------------------

    def position(self) -> Position:
        """What the player sees now, known mines flagged (known safe cells stay covered)."""
        grid = bytearray(self.grid)
        for c in self.known_mines:
            grid[c] = FLAG
        return Position(self.board, bytes(grid), self.mines)

    def unknown(self, cell: Cell) -> bool:
        return (
            self.grid[cell] == COVERED
            and cell not in self.known_mines
            and cell not in self.known_safe
        )

    def bounds(self) -> list[Bound]:
        """One bound per revealed number with unknown neighbours, known mines taken away.

        Bounds are cached per number; only numbers next to cells that changed since the last
        call (``touch``) are recomputed.
        """
        for cell in sorted(self._dirty & self.active):
            bound = self._bound_of(cell)
            if bound is None:
                self.active.discard(cell)
                self._bounds.pop(cell, None)
            else:
                self._bounds[cell] = bound
        self._dirty.clear()
        return [self._bounds[c] for c in sorted(self._bounds)]

    def _bound_of(self, cell: Cell) -> Bound | None:
        grid, mines, safe = self.grid, self.known_mines, self.known_safe
        value = NUMBER_VALUE[grid[cell]]
        cells = []
        known: list[Cell] = []
        for n in self.neighbours(cell):
            if n in mines:
                known.append(n)
            elif grid[n] == COVERED and n not in safe:
                cells.append(n)
        if not cells:
            return None
        need = value - len(known)
        around = tuple(sorted(known))
        return Bound(cell, frozenset(cells), need, need, value, len(around), around)

    def touch(self, cells: Iterable[Cell]) -> None:
        """Cells changed (revealed, found safe or a mine): their numbers need new bounds."""
        grid = self.grid
        for c in cells:
            if IS_NUMBER[grid[c]]:
                self.active.add(c)
                self._dirty.add(c)
            for n in self.neighbours(c):
                if n in self.active:
                    self._dirty.add(n)

    def unknown_cells(self) -> list[Cell]:
        return [c for c in range(self.board.size) if self.unknown(c)]

    # -- applying -------------------------------------------------------------------------

    def apply(self, step: Step) -> None:
        self.known_mines.update(step.mines)
        self.known_safe.update(step.safe)
        self.touch((*step.mines, *step.safe))

    # -- finding the next step --------------------------------------------------------------

    def next_step(self, max_level: int = 4) -> Step | None:
        """The lowest-level step available (None when nothing can be deduced)."""
        bounds = self.bounds()
        finders = (self._single, self._pair, self._several, self._counted)
        for level, finder in enumerate(finders, start=1):
            if level > max_level:
                break
            step = finder(bounds)
            if step is not None:
                return step
        return None

    def steps_at_level_one(self) -> list[Step]:
        """Every single-number step available now (they never conflict)."""
        return [s for r in self.bounds() if (s := self._single_bound(r)) is not None]

    def _known_around(self, bound: Bound) -> tuple[Cell, ...]:
        assert bound.source is not None
        return tuple(sorted(n for n in self.neighbours(bound.source) if n in self.known_mines))

    def _single(self, bounds: Sequence[Bound]) -> Step | None:
        for bound in bounds:
            step = self._single_bound(bound)
            if step is not None:
                return step
        return None

    def _single_bound(self, bound: Bound) -> Step | None:
        if bound.exact not in (0, len(bound.cells)):
            return None
        pos = self.position()
        assert bound.source is not None
        name = sentence(number_name(pos, bound))
        cells = cell_list(pos, bound.cells)
        known = self._known_around(bound)
        if bound.exact == 0:
            why = (
                f"{name} already has its {_count_word(bound.value)}, at {cell_list(pos, known)}"
                if known
                else f"{name} has no mine around it"
            )
            text = f"{why}, so {cells} {_is_are(len(bound.cells))} safe."
            return Step(
                1, "satisfied", (bound.source,), tuple(sorted(bound.cells)), (), (text,), known
            )
        if bound.exact == len(bound.cells):
            more = (
                f" needs {_mines(bound.exact)} more besides {cell_list(pos, known)}"
                if known
                else f" needs {_mines(bound.exact)}"
            )
            text = (
                f"{name}{more} and has only {cells} left, so "
                f"{'it is a mine' if len(bound.cells) == 1 else 'all of them are mines'}."
            )
            return Step(
                1, "all-mines", (bound.source,), (), tuple(sorted(bound.cells)), (text,), known
            )
        return None

    def _pair(self, bounds: Sequence[Bound]) -> Step | None:
        graph = BoundGraph(bounds)
        for i, a in enumerate(bounds):
            for j in sorted(graph.adjacent(i)):
                if j <= i:
                    continue
                b = bounds[j]
                safe, mines = pair_forced(a, b)
                if safe or mines:
                    return self._pair_step(a, b, safe, mines)
        return None

    def _pair_step(self, a: Bound, b: Bound, safe: set[Cell], mines: set[Cell]) -> Step:
        pos = self.position()
        first = min(safe | mines)
        text = explain(pos, first, first in mines, [a, b])
        text = [*text, *_also(pos, first, safe, mines)]
        subset = a.cells <= b.cells or b.cells <= a.cells
        known = tuple(sorted(set(self._known_around(a)) | set(self._known_around(b))))
        assert a.source is not None and b.source is not None
        return Step(
            2,
            "subset" if subset else "overlap",
            tuple(sorted((a.source, b.source))),
            tuple(sorted(safe)),
            tuple(sorted(mines)),
            tuple(text),
            known,
        )

    def _several(self, bounds: Sequence[Bound]) -> Step | None:
        forced = forced_cells(bounds)
        if not forced:
            return None
        graph = BoundGraph(bounds)
        best: list[Bound] | None = None
        best_cell = -1
        for cell in sorted(forced, key=lambda c: len(graph.touching(c)))[:8]:
            found = smallest_forcing_set(graph, cell, forced[cell])
            if found is not None and (best is None or len(found) < len(best)):
                best, best_cell = found, cell
        assert best is not None
        # everything these numbers force on their own
        own = forced_cells(best)
        safe = {c for c, m in own.items() if not m}
        mines = {c for c, m in own.items() if m}
        pos = self.position()
        text = [
            *explain(pos, best_cell, forced[best_cell], best),
            *_also(pos, best_cell, safe, mines),
        ]
        known = tuple(sorted({k for r in best for k in self._known_around(r)}))
        return Step(
            3,
            "cases",
            tuple(sorted(r.source for r in best if r.source is not None)),
            tuple(sorted(safe)),
            tuple(sorted(mines)),
            tuple(text),
            known,
        )

    def _counted(self, bounds: Sequence[Bound]) -> Step | None:
        if self.count is not Count.COUNTED or self.mines is None:
            return None
        left = self.mines - len(self.known_mines)
        unknown = self.unknown_cells()
        forced = counted_forced(bounds, unknown, left)
        if not forced:
            return None
        safe = {c for c, m in forced.items() if not m}
        mines = {c for c, m in forced.items() if m}
        pos = self.position()
        edge = {c for r in bounds for c in r.cells}
        deep = len(unknown) - len(edge)
        mask = count_mask(bounds, {})
        totals = mask_counts(mask)
        shown = " or ".join(str(k) for k in totals[:6]) + (" ..." if len(totals) > 6 else "")
        text = [
            f"{len(self.known_mines)} of the {self.mines} mines are found, so {left} remain "
            f"among the {len(unknown)} unknown cells.",
            f"The numbers allow {shown} mines among the {len(edge)} undecided cells they touch, "
            f"and the other {deep} cells can take between 0 and {deep}.",
        ]
        if safe:
            text.append(f"Only one way fits the count: {cell_list(pos, safe)} safe.")
        if mines:
            text.append(f"Only one way fits the count: {cell_list(pos, mines)} mines.")
        return Step(
            4,
            "count",
            tuple(sorted(r.source for r in bounds if r.source is not None)),
            tuple(sorted(safe)),
            tuple(sorted(mines)),
            tuple(text),
            tuple(sorted(self.known_mines)),
        )


# -- the techniques as functions--------------------------------------------------------------


def pair_forced(a: Bound, b: Bound) -> tuple[set[Cell], set[Cell]]:
    """Cells two exact bounds force together: (safe, mines).

    With ``I`` the shared cells, the mines in ``I`` lie between the largest lower bound and the
    smallest upper bound the two bounds give; each bound's own cells then hold its value minus
    that. A group of cells is forced when its count can only be 0 or only be its size.
    """
    shared = a.cells & b.cells
    only_a = a.cells - shared
    only_b = b.cells - shared
    lo = max(0, a.exact - len(only_a), b.exact - len(only_b))
    hi = min(len(shared), a.exact, b.exact)
    safe: set[Cell] = set()
    mines: set[Cell] = set()
    if lo > hi:
        return safe, mines  # inconsistent pair: leave it to the exact steps to report
    for bound, own in ((a, only_a), (b, only_b)):
        if not own:
            continue
        most, least = bound.exact - lo, bound.exact - hi
        if most == 0:
            safe |= own
        elif least == len(own):
            mines |= own
    if hi == 0:
        safe |= shared
    elif lo == len(shared):
        mines |= shared
    return safe, mines


def forced_cells(bounds: Sequence[Bound]) -> dict[Cell, bool]:
    """Every cell the bounds force (True: a mine), by one exact check per cell and value.

    Every solution found rules out the opposite value for all of its cells at once.
    """
    out: dict[Cell, bool] = {}
    graph = BoundGraph(bounds)
    done: set[int] = set()
    for start in range(len(bounds)):
        if start in done:
            continue
        comp_ids = [i for layer in graph.layers_from([start]) for i in layer]
        done.update(comp_ids)
        comp = [bounds[i] for i in comp_ids]
        first = solve(comp)
        if first is None:
            continue  # inconsistent: nothing sound to say
        seen: dict[Cell, set[bool]] = {c: {v} for c, v in first.items()}
        for cell in sorted(seen):
            if len(seen[cell]) == 2:
                continue
            (value,) = seen[cell]
            other = solve(comp, {cell: not value})
            if other is None:
                out[cell] = value
            else:
                for c, v in other.items():
                    seen[c].add(v)
    return out


def counted_forced(bounds: Sequence[Bound], unknown: Sequence[Cell], left: int) -> dict[Cell, bool]:
    """Cells forced by the bounds together with "exactly ``left`` mines among ``unknown``"."""
    edge = sorted({c for r in bounds for c in r.cells})
    deep = [c for c in unknown if c not in set(edge)]
    n_deep = len(deep)

    def fits(mask: int, deep_lo: int, deep_hi: int) -> bool:
        return any(deep_lo <= left - k <= deep_hi for k in mask_counts(mask))

    out: dict[Cell, bool] = {}
    base = count_mask(bounds, {})
    if not fits(base, 0, n_deep):
        return out  # inconsistent with the count: nothing sound to say
    if deep:
        # a deep cell mined: the other deep cells take left - k - 1
        if not fits(base, 1, n_deep):
            out.update({c: False for c in deep})
        elif not fits(base, 0, n_deep - 1):
            out.update({c: True for c in deep})
    for cell in edge:
        for value in (True, False):
            if not fits(count_mask(bounds, {cell: value}), 0, n_deep):
                out[cell] = not value
    return out


def _also(pos: Position, first: Cell, safe: set[Cell], mines: set[Cell]) -> list[str]:
    out = []
    more_safe = sorted(safe - {first})
    more_mines = sorted(mines - {first})
    if more_safe:
        out.append(f"The same numbers show {cell_list(pos, more_safe)} safe too.")
    if more_mines:
        noun = "a mine" if len(more_mines) == 1 else "mines"
        out.append(f"The same numbers show {cell_list(pos, more_mines)} {noun} too.")
    return out


def _is_are(n: int) -> str:
    return "is" if n == 1 else "are"


def _mines(n: int) -> str:
    return "one mine" if n == 1 else f"{n} mines"


def _count_word(n: int) -> str:
    return "mine" if n == 1 else f"{n} mines"


# -- on a position: the analysis board -------------------------------------------------------


def deduction_steps(
    position: Position, count: Count = Count.CLASSIC, limit: int | None = None
) -> Iterator[Step]:
    """The steps a player can take on ``position`` without guessing, lowest level first.

    Cells shown safe stay covered (their numbers are unknown); mines found count as known.
    Stops when nothing more follows (or after ``limit`` steps).
    """
    deducer = Deducer(position.board, position.grid, position.mines, count)
    taken = 0
    while limit is None or taken < limit:
        step = deducer.next_step()
        if step is None:
            return
        deducer.apply(step)
        taken += 1
        yield step


# -- on a real board: levels ----------------------------------------------------------------


@dataclass(frozen=True)
class Grade:
    """How a board plays for a player who never guesses, from ``first``.

    ``level``: the highest level needed (0 if the first click clears everything);
    ``steps``: how many steps of each level were taken; ``cleared``: every safe cell revealed.
    """

    level: int
    cleared: bool
    steps: dict[int, int] = field(default_factory=dict)
    revealed: int = 0


def grade(
    board: Board, layout: Layout, first: Cell, count: Count = Count.CLASSIC, max_level: int = 4
) -> Grade:
    """Play ``board`` with ``layout`` from ``first`` taking the lowest-level step each time.

    ``max_level`` stops early when a harder step would be needed (the grade is then not
    ``cleared``), which makes filtering generated boards by level cheaper.
    """
    if first in layout:
        raise ValueError(f"the first cell {board.coord(first)} holds a mine")
    counts = bytearray(board.size)
    for m in layout:
        for n in board.neighbours(m):
            counts[n] += 1
    deducer = Deducer(board, Position.covered(board).grid, len(layout), count)
    target = board.cell_count - len(layout)
    revealed = reveal_deduced(deducer, counts, [first])
    level = 0
    used: dict[int, int] = {}
    while revealed < target:
        batch = deducer.steps_at_level_one()
        if not batch:
            step = deducer.next_step(max_level)
            if step is None:
                return Grade(level, False, used, revealed)
            batch = [step]
        for step in batch:
            if any(c in layout for c in step.safe) or any(c not in layout for c in step.mines):
                raise AssertionError(f"deduction contradicts the layout: {step}")
            level = max(level, step.level)
            used[step.level] = used.get(step.level, 0) + 1
            deducer.known_mines.update(step.mines)
            deducer.touch(step.mines)
            revealed += reveal_deduced(deducer, counts, step.safe)
    return Grade(level, True, used, revealed)


def reveal_deduced(deducer: Deducer, counts: bytearray, cells: Sequence[Cell]) -> int:
    """Reveal safe cells with the zero cascade; returns how many cells were revealed."""
    grid, nb = deducer.grid, deducer.neighbours
    stack = [c for c in cells if grid[c] == COVERED]
    for c in stack:
        grid[c] = NUMBER_BYTE[counts[c]]
    done = 0
    while stack:
        c = stack.pop()
        done += 1
        deducer.known_safe.discard(c)
        deducer.touch((c,))
        if counts[c] == 0:
            for n in nb(c):
                if grid[n] == COVERED and n not in deducer.known_mines:
                    grid[n] = NUMBER_BYTE[counts[n]]
                    stack.append(n)
    return done


def board_level(
    board: Board, layout: Layout, first: Cell, count: Count = Count.CLASSIC
) -> int | None:
    """The highest proof level a player needs to clear the board from ``first`` without
    guessing, or None when it cannot be cleared that way."""
    result = grade(board, layout, first, count)
    return result.level if result.cleared else None


def position_level(position: Position, count: Count = Count.CLASSIC) -> int:
    """The highest level among the steps ``deduction_steps`` takes on ``position``."""
    return max((s.level for s in deduction_steps(position, count)), default=0)
