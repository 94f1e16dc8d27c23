"""Layout drawing and no-guess boards.

Three steps, each usable on its own:

``draw_layout``
    A uniform random layout with a given number of mines that avoids a set of cells
    (the first click and its neighbours).
``solvable``
    Simulates a player who only ever reveals provably safe cells (under the game's
    count rule; under COUNTED the total is known) from the first opening until stuck.
    True when every safe cell gets revealed.
``no_guess_layout``
    Draws until ``solvable``; returns the layout, whether it is guaranteed no-guess,
    and how many attempts it took.

The simulation is a pipeline: cascade the opening, apply the two local counting
rules (cheap, in pure Python, many reveals per step), and only when they are stuck
ask the exact solver (``devil.solver.Solver``, reused incrementally with the cells
that changed) for the verdict of every covered cell; reveal *all* safe cells it finds
at once and go back to the local rules.

Three ways to get a no-guess board (``method``):

``"redraw"`` (default)
    Rejection sampling: draw a uniform layout, keep it if solvable, else draw again.
    The result is exactly uniform among the no-guess layouts with the first opening
    (every accepted layout had the same chance to be drawn).
``"perturb"``
    When the simulated player gets stuck, move one mine from an undetermined cell at
    the edge of the opened area to a covered cell away from it and carry on from where
    the player stood; once the player clears the board, verify from scratch with
    ``solvable``. Much faster on dense boards, but *not* uniform: boards that the
    perturbation reaches easily are over-represented (mines drift away from the first
    opening). Offered for big or dense boards where rejection rarely succeeds.
``"repair"`` (version-2 games)
    Perturbation that never starts over from a fresh draw: at each stuck point, take the
    stuck numbers fewest undecided mines first (each sharing no cell with one taken
    before) and move those mines away (to covered cells away from every number, else to
    undecided cells away from the taken numbers, else under opened cells, replaying from
    the first click), then carry on, keeping the mines proven so far. Once the player
    clears the board, the layout is replayed from the first click; where that replay gets
    stuck, the repair goes on from there, so a result always clears from scratch. Not
    uniform either, but it reaches dense tilings (rhombille at expert density) that
    ``"perturb"``, which draws afresh after ``MAX_MOVES_PER_DRAW`` moves, never clears.

See ``docs/game.md`` for measured success rates and times.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from devil.analysis import Layout, Verdict
from devil.board import Board, Cell
from devil.errors import do_not_fit
from devil.position import COVERED, IS_NUMBER, NOT_A_NUMBER, NUMBER_BYTE, NUMBER_VALUE, Position
from devil.rules import Count, Rules
from devil.solve.grid import neighbour_fn
from devil.solve.solver import Solver

Method = Literal["redraw", "perturb", "repair"]
METHODS: tuple[Method, ...] = ("redraw", "perturb", "repair")

MAX_MOVES_PER_DRAW = 40
"""Perturbations tried on one drawn layout before drawing a fresh one (``"perturb"``)."""

REPAIR_IDLE = 8
"""Stuck points in a row without a new reveal after which ``"repair"`` moves mines under
opened cells and replays from the first click (moves among covered cells can cycle)."""


class GenerateError(ValueError):
    """Parameters no layout can satisfy (too many mines, first cell off the board...)."""


# -- drawing ------------------------------------------------------------------------------


def draw_layout(board: Board, mines: int, safe: frozenset[Cell], rng: random.Random) -> Layout:
    """A layout of exactly ``mines`` mines, uniform among those avoiding ``safe``.

    >>> sorted(draw_layout(Board(2, 2), 3, frozenset({0}), random.Random(1)))
    [1, 2, 3]
    """
    if mines < 0:
        raise GenerateError(f"mine count {mines} is negative")
    candidates = [c for c in board.cells() if c not in safe]
    if mines > len(candidates):
        kept = sum(1 for c in safe if board.exists(c))
        raise GenerateError(
            f"{do_not_fit(mines)} on the {board.height}x{board.width} board: "
            f"it has {board.cell_count} cells and {kept} must stay free, "
            f"leaving room for at most {len(candidates)}"
        )
    return frozenset(rng.sample(candidates, mines))


def mine_counts(board: Board, layout: Layout) -> bytearray:
    """The number every cell would show: mined neighbours per cell, one byte per cell."""
    counts = bytearray(board.size)
    nb = neighbour_fn(board)
    for mine in layout:
        for n in nb(mine):
            counts[n] += 1
    return counts


def open_cells(
    grid: bytearray, counts: bytearray, nb: Callable[[Cell], tuple[Cell, ...]], cell: Cell
) -> list[Cell]:
    """Reveal the safe ``cell`` in ``grid`` and cascade through zeros, iteratively.

    ``counts`` holds the number under every cell (``mine_counts``). Only plain covered
    cells open: flagged cells stay as they are. Returns the cells opened.
    """
    grid[cell] = NUMBER_BYTE[counts[cell]]
    opened = [cell]
    stack = [cell] if counts[cell] == 0 else []
    while stack:
        for n in nb(stack.pop()):
            if grid[n] == COVERED:
                grid[n] = NUMBER_BYTE[counts[n]]
                opened.append(n)
                if counts[n] == 0:
                    stack.append(n)
    return opened


# -- the simulated player -----------------------------------------------------------------


class _Sweep:
    """A player who reveals only provably safe cells, with incremental solver use."""

    def __init__(self, board: Board, layout: Layout, count: Count, mines: int) -> None:
        self.board = board
        self.nb = neighbour_fn(board)
        self.layout = layout
        self.mines = mines
        self.counts = mine_counts(board, layout)
        self.grid = bytearray(Position.covered(board).grid)
        self.revealed = 0
        self.target = board.cell_count - len(layout)
        self.known_mines: set[Cell] = set()
        self.work: list[Cell] = []  # revealed numbers whose neighbourhood changed
        self.pending: list[Cell] = []  # cells changed since the last analysis
        self.solver = Solver(count)

    @property
    def cleared(self) -> bool:
        return self.revealed == self.target

    # -- revealing ----------------------------------------------------------------------

    def reveal(self, cell: Cell) -> None:
        """Reveal a safe cell, cascading through zeros (iteratively)."""
        if cell in self.layout:
            raise AssertionError(f"the simulated player proved cell {cell} safe but it is mined")
        grid, nb = self.grid, self.nb
        if grid[cell] != COVERED:
            return
        opened = open_cells(grid, self.counts, nb, cell)
        self.revealed += len(opened)
        self.pending.extend(opened)
        self.work.extend(opened)
        counts = self.counts
        for c in opened:
            if counts[c]:
                # the numbers around c lost a covered neighbour: look at them again
                self.work.extend(n for n in nb(c) if grid[n] != COVERED)

    # -- local rules --------------------------------------------------------------------

    def propagate(self) -> None:
        """The two counting rules on single numbers, until nothing changes."""
        grid, nb, known = self.grid, self.nb, self.known_mines
        work = self.work
        while work:
            c = work.pop()
            value = NUMBER_VALUE[grid[c]]
            if value == NOT_A_NUMBER:
                continue
            covered = [n for n in nb(c) if grid[n] == COVERED]
            if not covered:
                continue
            flagged = sum(1 for n in covered if n in known)
            if flagged == value:
                for n in covered:
                    if n not in known:
                        self.reveal(n)
            elif len(covered) == value:
                for n in covered:
                    if n not in known:
                        self.mark_mine(n)

    def mark_mine(self, cell: Cell) -> None:
        if cell not in self.layout:
            raise AssertionError(f"the simulated player proved cell {cell} a mine but it is safe")
        self.known_mines.add(cell)
        grid = self.grid
        self.work.extend(n for n in self.nb(cell) if grid[n] != COVERED)

    # -- exact step ---------------------------------------------------------------------

    def position(self) -> Position:
        return Position(self.board, bytes(self.grid), self.mines)

    def exact_step(self) -> dict[Cell, Verdict] | None:
        """Ask the solver; reveal every safe cell. Returns the verdicts when stuck, else None."""
        changed, self.pending = self.pending, []
        analysis = self.solver.analyse(self.position(), changed)
        verdicts = analysis.classification().verdicts
        safe = [c for c, v in verdicts.items() if v is Verdict.SAFE]
        for c, v in verdicts.items():
            if v is Verdict.MINE and c not in self.known_mines:
                self.mark_mine(c)
        if not safe:
            return dict(verdicts)
        for c in safe:
            self.reveal(c)
        return None

    def run(self) -> dict[Cell, Verdict] | None:
        """Play until cleared (None) or stuck (the verdicts at the stuck point)."""
        while True:
            self.propagate()
            if self.cleared:
                return None
            stuck = self.exact_step()
            if stuck is not None:
                return stuck

    # -- perturbation -------------------------------------------------------------------

    def move_mine(self, source: Cell, target: Cell, forget: bool = True) -> None:
        """Move a mine between covered cells and update the revealed numbers around both.

        ``forget``: drop every proven mine and look at every number again (the proofs
        used the old numbers). Otherwise keep the proven mines other than ``source`` (they
        are still mines, so reveals made from them are still safe, though maybe no longer
        provable: the caller then replays the layout from the first click) and look again
        at the numbers that changed.
        """
        self.layout = (self.layout - {source}) | {target}
        grid, nb = self.grid, self.nb
        changed = []
        for cell, delta in ((source, -1), (target, 1)):
            for n in nb(cell):
                self.counts[n] += delta
                if grid[n] != COVERED:
                    grid[n] = NUMBER_BYTE[self.counts[n]]  # numbers may pass 8 on graphs
                    changed.append(n)
        self.pending.extend(changed)
        if forget:
            self.known_mines.clear()
            self.work = [c for c in range(self.board.size) if IS_NUMBER[grid[c]]]
        else:
            self.known_mines.discard(source)
            self.work.extend(changed)


def _start(board: Board, layout: Layout, first_cell: Cell, rules: Rules, mines: int) -> _Sweep:
    if not board.exists(first_cell):
        r, c = board.coord(first_cell)
        raise GenerateError(f"first cell row {r}, col {c} is not on the board")
    if first_cell in layout:
        r, c = board.coord(first_cell)
        raise GenerateError(f"first cell row {r}, col {c} holds a mine")
    sweep = _Sweep(board, layout, rules.count, mines)
    sweep.reveal(first_cell)
    return sweep


def solvable(board: Board, layout: Layout, first_cell: Cell, rules: Rules) -> bool:
    """Whether a player revealing only provably safe cells clears the board from ``first_cell``.

    Under ``Count.COUNTED`` the player knows the total (``len(layout)``); under
    ``Count.CLASSIC`` only the numbers.
    """
    sweep = _start(board, layout, first_cell, rules, len(layout))
    return sweep.run() is None


# -- no-guess generation ------------------------------------------------------------------


@dataclass(frozen=True)
class Generated:
    """The outcome of ``no_guess_layout``.

    ``guaranteed`` is True when ``layout`` was verified clearable by safe reveals only;
    otherwise ``layout`` is the attempt that let the simulated player reveal the most.
    ``tries`` counts layouts examined (draws plus perturbations).
    """

    layout: Layout
    guaranteed: bool
    tries: int

    def __repr__(self) -> str:  # the layout is a secret while the game runs
        mines = f"<{len(self.layout)} mines>"
        return f"Generated({mines}, guaranteed={self.guaranteed}, tries={self.tries})"


def no_guess_layout(
    board: Board,
    mines: int,
    first_cell: Cell,
    rules: Rules,
    rng: random.Random,
    max_tries: int = 1000,
    method: Method = "redraw",
) -> Generated:
    """A layout that can be cleared from ``first_cell`` by safe reveals alone.

    The first cell and its neighbours are mine-free, so the first click opens a zero.
    Deterministic for a given ``rng`` state. When ``max_tries`` layouts fail, returns the
    best attempt with ``guaranteed=False`` (never raises for that).
    """
    if max_tries < 1:
        raise GenerateError(f"max_tries {max_tries} must be at least 1")
    if method not in METHODS:
        expected = ", ".join(repr(m) for m in METHODS)
        raise GenerateError(f"unknown no-guess method {method!r}: expected one of {expected}")
    if method == "repair":
        return _repair(board, mines, first_cell, rules, rng, max_tries)
    keep = board.neighbourhood(first_cell)
    best: tuple[int, Layout] | None = None
    tries = 0
    while tries < max_tries:
        layout = draw_layout(board, mines, keep, rng)
        tries += 1
        moves = 0
        sweep = _start(board, layout, first_cell, rules, mines)
        stuck = sweep.run()
        while True:
            if stuck is None:
                if sweep.layout is layout or solvable(board, sweep.layout, first_cell, rules):
                    return Generated(sweep.layout, True, tries)
                # the perturbed board was cleared only thanks to reveals made before the
                # moves: start over on the new layout and keep perturbing from there
                layout = sweep.layout
                sweep = _start(board, layout, first_cell, rules, mines)
                stuck = sweep.run()
                continue
            if best is None or sweep.revealed > best[0]:
                best = (sweep.revealed, sweep.layout)
            if method != "perturb" or tries >= max_tries:
                break
            move = _pick_move(sweep, stuck, keep, rng)
            if move is None or moves >= MAX_MOVES_PER_DRAW:
                break
            tries += 1
            moves += 1
            source, target = move
            if sweep.grid[target] == COVERED:
                sweep.move_mine(source, target)
            else:
                # no covered cell away from the numbers is free (typically the last
                # cells): put the mine under an opened cell and replay from the start
                layout = (sweep.layout - {source}) | {target}
                sweep = _start(board, layout, first_cell, rules, mines)
            stuck = sweep.run()
    assert best is not None
    return Generated(best[1], False, tries)


def _pick_move(
    sweep: _Sweep, verdicts: dict[Cell, Verdict], keep: frozenset[Cell], rng: random.Random
) -> tuple[Cell, Cell] | None:
    """A mine at the edge of the opened area and a cell to move it to.

    The target is a covered safe cell away from every revealed number when there is one
    (the sweep can then carry on); otherwise an opened cell outside the first opening
    (the sweep must start over).
    """
    grid, nb, layout = sweep.grid, sweep.nb, sweep.layout

    def touches_revealed(c: Cell) -> bool:
        return any(grid[n] != COVERED for n in nb(c))

    covered = sorted(verdicts)
    edge_mines = [c for c in covered if c in layout and touches_revealed(c)]
    undecided = [c for c in edge_mines if verdicts[c] is Verdict.EITHER]
    sources = undecided or edge_mines
    if not sources:
        return None
    source = rng.choice(sources)
    far = [c for c in covered if c not in layout and c not in keep and not touches_revealed(c)]
    if far:
        return source, rng.choice(far)
    opened = [
        c
        for c in range(sweep.board.size)
        if IS_NUMBER[grid[c]] and c not in keep and c not in nb(source)
    ]
    if not opened:
        return None
    return source, rng.choice(opened)


# -- repair -------------------------------------------------------------------------------


def _repair(
    board: Board, mines: int, first_cell: Cell, rules: Rules, rng: random.Random, max_tries: int
) -> Generated:
    """``no_guess_layout``'s ``"repair"`` method: one draw, then moves until it clears.

    ``max_tries`` counts the draw and every stuck point repaired. A sweep that cleared the
    board after moves is replayed from the first click (the moves changed numbers that
    earlier reveals were proved from); the replay either clears it too (the result) or
    gets stuck, and the repair goes on from that stuck point.
    """
    keep = board.neighbourhood(first_cell)
    sweep = _start(board, draw_layout(board, mines, keep, rng), first_cell, rules, mines)
    fresh = True  # no move since the sweep started from the first click
    best = (-1, sweep.layout)
    tries = 1
    most, idle = -1, 0
    while True:
        stuck = sweep.run()
        if stuck is None:
            if fresh:
                return Generated(sweep.layout, True, tries)
            sweep, fresh = _start(board, sweep.layout, first_cell, rules, mines), True
            most, idle = -1, 0
            continue
        if sweep.revealed > best[0]:
            best = (sweep.revealed, sweep.layout)
        if tries >= max_tries:
            return Generated(best[1], False, tries)
        tries += 1
        if sweep.revealed > most:
            most, idle = sweep.revealed, 0
        else:
            idle += 1
        moves = _repair_moves(sweep, stuck, keep, rng, idle >= REPAIR_IDLE)
        if not moves:
            return Generated(best[1], False, tries)  # nothing on the edge to move
        if all(sweep.grid[target] == COVERED for _, target in moves):
            for source, target in moves:
                sweep.move_mine(source, target, forget=False)
            fresh = False
        else:  # a mine goes under an opened cell: start over from the first click
            layout = (sweep.layout - {s for s, _ in moves}) | {t for _, t in moves}
            sweep, fresh = _start(board, layout, first_cell, rules, mines), True
            most, idle = -1, 0


def _repair_moves(
    sweep: _Sweep,
    verdicts: dict[Cell, Verdict],
    keep: frozenset[Cell],
    rng: random.Random,
    under_opened: bool,
) -> list[tuple[Cell, Cell]]:
    """Where the mines around the stuck numbers go: ``(source, target)`` pairs.

    Stuck numbers are taken fewest undecided mines first (ties drawn at random), each
    sharing no cell with one taken before: with their undecided mines gone, their
    undecided neighbours are safe and the player goes on there. When the board has no
    room for all those mines (``_targets``), only the first number's move. Empty when
    nothing can move.
    """
    grid, nb, layout = sweep.grid, sweep.nb, sweep.layout
    covered = sorted(verdicts)
    touching = {c for c in covered if any(grid[n] != COVERED for n in nb(c))}
    undecided = [c for c in covered if c in touching and verdicts[c] is Verdict.EITHER]
    around: dict[Cell, list[Cell]] = {}  # stuck number -> its undecided mines
    for c in undecided:
        if c in layout:
            for n in nb(c):
                if grid[n] != COVERED:
                    around.setdefault(n, []).append(c)
    options: list[tuple[list[Cell], set[Cell]]] = []  # (mines to move, cells kept away from)
    if around:
        sources: list[Cell] = []
        near: set[Cell] = set()  # the taken numbers and their neighbours
        for number in sorted(around, key=lambda n: (len(around[n]), rng.random())):
            cells = {number, *nb(number)}
            if not options:
                options.append((sorted(around[number]), cells))
            if not cells & near:
                near |= cells
                sources.extend(around[number])
        options.insert(0, (sorted(sources), near))
    else:
        # nothing undecided on the edge (classic rule: covered cells walled in by proven
        # mines): open the wall by moving one of its mines
        wall = [c for c in covered if c in touching and c in layout]
        if wall:
            source = rng.choice(wall)
            options.append(([source], {source, *nb(source)}))
    for sources, near in options:
        targets = _targets(sweep, covered, touching, undecided, keep, near, len(sources), rng,
                           under_opened)  # fmt: skip
        if targets:
            return list(zip(sources, targets, strict=True))
    return []


def _targets(
    sweep: _Sweep,
    covered: list[Cell],
    touching: set[Cell],
    undecided: list[Cell],
    keep: frozenset[Cell],
    near: set[Cell],
    wanted: int,
    rng: random.Random,
    under_opened: bool,
) -> list[Cell]:
    """``wanted`` safe cells to move mines to, none in ``keep`` or ``near``: covered cells
    away from every number, then undecided ones; or (``under_opened``, or too few covered
    ones) opened cells, and the sweep must then start over. Empty when there is no room."""
    grid, layout = sweep.grid, sweep.layout
    if not under_opened:
        far = [c for c in covered if c not in touching and c not in layout and c not in keep]
        rng.shuffle(far)
        edge = [c for c in undecided if c not in layout and c not in near]
        rng.shuffle(edge)
        pool = edge + far  # popped from the end: far cells first
        if len(pool) >= wanted:
            return [pool.pop() for _ in range(wanted)]
    opened = [
        c for c in range(sweep.board.size) if IS_NUMBER[grid[c]] and c not in keep and c not in near
    ]
    if len(opened) < wanted:
        return []
    return rng.sample(opened, wanted)
