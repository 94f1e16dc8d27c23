"""The game state machine: parameters, moves, and immutable game values.

A ``Game`` is a value: ``play(move)`` returns a new ``Game`` and never changes the old
one. Interpreting a click is the caller's job (it yields a ``Move``); executing a move is
``Game.play``; the move log plus the parameters *are* the game (``Game.replay``).

The devil rule is ``devil.devil_rule.judge``: a reveal on a cell that could be a mine
(under ``rules.count``) loses, and the loss carries a witness, a full consistent layout
with a mine on that cell. Under fair mercy, when no covered cell is provably safe, a click
on a cell that could be safe redraws the hidden layout among consistent layouts where it is
safe. ``Game.play`` asks it about every cell a reveal or chord opens after the first.

Speed: each game lineage (a game and everything played from it) shares one
``devil.solver.Solver``; the analysis of a position is computed once, lazily, and the
solver is told which cells changed since the last position it saw (found by comparing
the grids block by block, so nothing scans the whole board cell by cell per click;
branching from an older game value is handled the same way).

Secrets: ``Game.layout`` and anything derived from it (the numbers under covered cells)
stay out of ``repr``/``str``; ``GameParams.seed`` decides the layout and is left out of
``repr`` too. Only ``position`` (what the player sees) is public while the game runs.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from devil.analysis import Layout, Verdict
from devil.board import Cell
from devil.devil_rule import Lose, Redraw, judge, move_seed
from devil.errors import GameOver, IllegalMove, InvalidMove
from devil.game.moves import Move, MoveKind, Status, said
from devil.game.params import (
    FIRST_VERSION,
    NO_GUESS_CELL_LIMIT,
    GameParams,
    no_guess_method,
    no_guess_tries,
)
from devil.generate import draw_layout as _draw_layout
from devil.generate import mine_counts, no_guess_layout, open_cells
from devil.position import COVERED, FLAG, NOT_A_NUMBER, NUMBER_VALUE, Position
from devil.rules import Count
from devil.solve.grid import changed_cells, neighbour_fn
from devil.solve.solver import PositionAnalysis, Solver

# -- shared caches ------------------------------------------------------------------------


class _Shared:
    """One per game lineage: the solver and the last position given to it.

    The game tells the solver which cells changed since that position (``changed``),
    found by comparing the two grids in blocks: much cheaper than letting the solver diff
    whole grids itself (see docs/game.md). Branching from an older game value works the same way.
    """

    def __init__(self, count: Count) -> None:
        self.solver = Solver(count)
        self.last: Position | None = None

    def analyse(self, position: Position) -> PositionAnalysis:
        changed = None if self.last is None else changed_between(self.last, position)
        analysis = self.solver.analyse(position, changed)
        self.last = position
        return analysis


class _Memo:
    """Per-game caches that are not part of the game's value (never compared or shown).

    Each cache remembers the value it was computed from, so a game built by hand or by
    ``dataclasses.replace`` never uses a cache that belongs to another position or layout.
    """

    def __init__(
        self,
        shared: _Shared | None = None,
        counts: bytearray | None = None,
        layout: Layout | None = None,
    ) -> None:
        self.shared = shared
        self.counts = counts  # the numbers under every cell: derived from the layout, secret
        self.counts_layout = layout
        self.analysis: PositionAnalysis | None = None
        self.analysis_position: Position | None = None

    def __repr__(self) -> str:
        return "<memo>"


def changed_between(before: Position, after: Position) -> list[Cell]:
    """Cells whose byte differs between two positions of one board (``changed_cells``)."""
    if len(before.grid) != len(after.grid):
        raise ValueError("positions on different boards cannot be compared")
    return changed_cells(before.grid, after.grid)


# -- the game -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Game:
    """An immutable game value. Start with ``Game.new``; advance with ``play``.

    ``layout`` is the hidden layout (None before the first reveal) and must not leave
    the server while ``status`` is PLAYING. After a loss, ``witness`` is the devil's
    proof: a layout consistent with ``position`` that has a mine on ``loss``; show that
    one (``layout`` is what was drawn, which may well be safe at ``loss``).

    Extra fields beyond the contract: ``guaranteed`` (the layout was verified clearable
    by safe reveals alone), ``revealed_count`` and ``flag_count``.
    """

    params: GameParams
    position: Position
    layout: Layout | None = field(default=None, repr=False)
    status: Status = Status.PLAYING
    moves: tuple[Move, ...] = ()
    loss: Cell | None = None
    witness: Layout | None = field(default=None, repr=False)
    guaranteed: bool = False
    revealed_count: int = 0
    flag_count: int = 0
    _memo: _Memo = field(default_factory=_Memo, compare=False, repr=False)
    redrawn: bool = False
    """Fair mercy redrew the layout after a guess (a redrawn layout is not checked to be
    clearable by logic alone)."""

    def __repr__(self) -> str:
        p = self.params
        return (
            f"<Game {p.height}x{p.width} {p.topology.value} {p.mines} mines {p.rules} "
            f"{self.status.value} after {len(self.moves)} moves>"
        )

    __str__ = __repr__

    # -- construction -------------------------------------------------------------------

    @classmethod
    def new(cls, params: GameParams) -> Game:
        position = Position.covered(params.board(), params.mines)
        return cls(params, position, _memo=_Memo(_Shared(params.rules.count)))

    @classmethod
    def replay(cls, params: GameParams, moves: Iterable[Move | str]) -> Game:
        """Play ``moves`` (``Move`` values or their text) from the start: deterministic."""
        game = cls.new(params)
        for move in moves:
            game = game.play(move if isinstance(move, Move) else Move.parse(move))
        return game

    def with_backend(self, backend: str) -> Game:
        """This game whose later moves ask the ``backend`` solver (``"cpsat"``: OR-Tools),
        with fresh caches: the same exact answers by another route (the web app's fallback
        when a click runs past its CPU limit)."""
        shared = _Shared(self.params.rules.count)
        shared.solver = Solver(self.params.rules.count, backend)
        return replace(self, _memo=_Memo(shared, self._memo.counts, self._memo.counts_layout))

    def portable(self) -> Game:
        """This game without its solver's state (which stays in this process: it does not
        pickle), for sending to another process; the numbers under the cells are kept."""
        memo = self._memo
        return replace(self, _memo=_Memo(None, memo.counts, memo.counts_layout))

    def with_solver_of(self, lineage: Game) -> Game:
        """This game (played elsewhere from ``lineage`` or one of its later states) using
        ``lineage``'s solver, so its next analysis here is incremental, not from scratch."""
        memo = self._memo
        return replace(self, _memo=_Memo(lineage._shared(), memo.counts, memo.counts_layout))

    def at(self, n: int) -> Game:
        """The game after its first ``n`` moves (0 = before any move)."""
        if not 0 <= n <= len(self.moves):
            raise IndexError(f"move number {n} is outside 0..{len(self.moves)}")
        game = Game(self.params, Position.covered(self.params.board(), self.params.mines),
                    _memo=_Memo(self._shared()))  # fmt: skip
        for move in self.moves[:n]:
            game = game.play(move)
        return game

    # -- public views -------------------------------------------------------------------

    @property
    def mines_left(self) -> int:
        """Mines minus flags (may go negative when the player over-flags)."""
        return self.params.mines - self.flag_count

    @property
    def over(self) -> bool:
        return self.status is not Status.PLAYING

    @property
    def no_guess(self) -> bool:
        """Whether this game promises a board clearable without guessing.

        Asked for in ``params.no_guess``; before the first reveal it holds when the board is
        small enough to be generated (``NO_GUESS_CELL_LIMIT``), afterwards only when the drawn
        layout was verified (``guaranteed``; a fair-mercy redraw clears it).
        """
        if not self.params.no_guess:
            return False
        if self.layout is None:
            return self.params.board().cell_count <= NO_GUESS_CELL_LIMIT
        return self.guaranteed

    @property
    def no_guess_note(self) -> str:
        """Why a game that asked for a no-guess board does not promise one, in words (empty
        when it does, or when it never asked): the board is too big to be generated, fair
        mercy redrew the mines after a guess, or no layout clearable by logic alone was
        found from the first click (on some boards none exists)."""
        if not self.params.no_guess or self.no_guess:
            return ""
        cells = self.params.board().cell_count
        if cells > NO_GUESS_CELL_LIMIT:
            return (
                f"Not guaranteed guess-free: no-guess boards are generated up to "
                f"{NO_GUESS_CELL_LIMIT:,} cells and this one has {cells:,}."
            )
        if self.redrawn:
            return (
                "No longer guaranteed guess-free: fair mercy redrew the mines after a guess, "
                "and a redrawn layout is not checked to be solvable by logic alone."
            )
        return (
            "Not guaranteed guess-free: no layout solvable by logic alone was found from "
            "the first click (some boards have none, such as cells with no neighbours), so "
            "this board may need a guess."
        )

    def changed_cells(self, previous: Game) -> frozenset[Cell]:
        """Cells whose visible state differs between ``previous`` and this game."""
        return frozenset(changed_between(previous.position, self.position))

    def analysis(self) -> PositionAnalysis:
        """The solver's analysis of the visible position (computed once, shared cache)."""
        memo = self._memo
        if memo.analysis is None or memo.analysis_position is not self.position:
            memo.analysis = self._shared().analyse(self.position)
            memo.analysis_position = self.position
        return memo.analysis

    def _shared(self) -> _Shared:
        if self._memo.shared is None:
            self._memo.shared = _Shared(self.params.rules.count)
        return self._memo.shared

    def _counts(self) -> bytearray | None:
        """The number under every cell for ``layout`` (None before the first reveal)."""
        memo = self._memo
        if self.layout is None:
            return None
        if memo.counts is None or memo.counts_layout is not self.layout:
            memo.counts = mine_counts(self.params.board(), self.layout)
            memo.counts_layout = self.layout
        return memo.counts

    # -- playing ------------------------------------------------------------------------

    def play(self, move: Move) -> Game:
        """The game after ``move``. Raises InvalidMove, IllegalMove or GameOver."""
        if self.status is not Status.PLAYING:
            raise GameOver(
                f"the game is {self.status.value}: {self._said(move)} is not allowed",
                (move.row, move.col),
            )
        cell = self._cell(move)
        if move.kind is MoveKind.FLAG or move.kind is MoveKind.UNFLAG:
            return self._mark(move, cell)
        step = _Step(self, move)
        if move.kind is MoveKind.REVEAL:
            step.reveal_clicked(cell)
        else:
            step.chord(cell)
        return step.finish()

    def _cell(self, move: Move) -> Cell:
        board = self.params.board()
        if move.row >= board.height or move.col >= board.width:
            raise InvalidMove(
                f"{move}: row {move.row}, col {move.col} is off the "
                f"{board.height}x{board.width} board",
                (move.row, move.col),
            )
        cell = board.cell(move.row, move.col)
        if cell in board.holes:
            raise InvalidMove(
                f"{move}: row {move.row}, col {move.col} is a hole", (move.row, move.col)
            )
        return cell

    def _said(self, move: Move) -> str:
        """``reveal 3 4``: a move as messages quote it (a graph board's by the cell's id,
        ``reveal t17``, quoted when it has spaces or quotes: ``devil.game.moves.said``)."""
        return said(self.position.board, move)

    def _mark(self, move: Move, cell: Cell) -> Game:
        grid = self.position.grid
        said, the_cell = self._said(move), self.position.the_cell(cell)
        if not self.position.is_covered(cell):
            raise IllegalMove(f"{said}: {the_cell} is already revealed", (move.row, move.col))
        flag = move.kind is MoveKind.FLAG
        if self.position.is_flagged(cell) == flag:
            state = "already flagged" if flag else "not flagged"
            raise IllegalMove(f"{said}: {the_cell} is {state}", (move.row, move.col))
        new_grid = bytearray(grid)
        new_grid[cell] = FLAG if flag else COVERED
        memo = _Memo(self._memo.shared, self._memo.counts, self._memo.counts_layout)
        return Game(
            self.params,
            Position(self.position.board, bytes(new_grid), self.params.mines),
            self.layout,
            self.status,
            (*self.moves, move),
            None,
            None,
            self.guaranteed,
            self.revealed_count,
            self.flag_count + (1 if flag else -1),
            memo,
            self.redrawn,
        )


class _Step:
    """The work of one reveal or chord: a mutable copy of the grid, turned into a Game."""

    def __init__(self, game: Game, move: Move) -> None:
        self.game = game
        self.move = move
        self.params = game.params
        self.board = game.params.board()
        self.grid = bytearray(game.position.grid)
        self.layout = game.layout
        self.counts = game._counts()
        self.guaranteed = game.guaranteed
        self.redrawn = game.redrawn
        self.revealed = game.revealed_count
        self.status = Status.PLAYING
        self.loss: Cell | None = None
        self.witness: Layout | None = None
        self.analysis: PositionAnalysis | None = None  # latest analysis (None: the game's)
        self.stale = False  # the grid changed since that analysis

    # -- layout -------------------------------------------------------------------------

    def _draw_first(self, cell: Cell) -> None:
        p, board = self.params, self.board
        rng = random.Random(p.seed)
        if p.no_guess and board.cell_count <= NO_GUESS_CELL_LIMIT:
            tries, method = no_guess_tries(board), no_guess_method(board, p.version)
            made = no_guess_layout(board, p.mines, cell, p.rules, rng, tries, method)
            self.layout, self.guaranteed = made.layout, made.guaranteed
        else:
            self.layout = _draw_layout(board, p.mines, board.neighbourhood(cell), rng)
        self.counts = mine_counts(board, self.layout)

    def _analysis(self, cell: Cell) -> PositionAnalysis:
        """An analysis deciding ``cell``: the latest one if it says SAFE, else a fresh one.

        Verdicts only sharpen as cells get revealed (every layout consistent with the
        later position is consistent with the earlier one), so SAFE from an older
        analysis still holds; anything else is asked again of the current grid.
        """
        analysis = self.analysis if self.analysis is not None else self.game.analysis()
        verdict = analysis.verdict(cell)
        if verdict is not Verdict.SAFE and self.stale:
            analysis = self.game._shared().analyse(self._position())
            self.analysis, self.stale = analysis, False
        return analysis

    def _position(self) -> Position:
        return Position(self.board, bytes(self.grid), self.params.mines)

    # -- reveal and chord -----------------------------------------------------------------

    def reveal_clicked(self, cell: Cell) -> None:
        said, the_cell = self.game._said(self.move), self.game.position.the_cell(cell)
        if self.grid[cell] == FLAG:
            raise IllegalMove(
                f"{said}: {the_cell} is flagged; unflag it first", self.board.coord(cell)
            )
        if self.grid[cell] != COVERED:
            raise IllegalMove(f"{said}: {the_cell} is already revealed", self.board.coord(cell))
        if self.layout is None:
            self._draw_first(cell)
            self._open(cell)
        else:
            self._judge_and_open(cell, None)

    def chord(self, cell: Cell) -> None:
        value = NUMBER_VALUE[self.grid[cell]]
        where = self.game.position.where(cell)
        said = self.game._said(self.move)
        if value == NOT_A_NUMBER:
            raise IllegalMove(
                f"{said}: {self.game.position.the_cell(cell)} is not a revealed number",
                self.board.coord(cell),
            )
        near = self.board.neighbours(cell)
        flags = sum(1 for n in near if self.grid[n] == FLAG)
        if flags != value:
            raise IllegalMove(
                f"{said}: the {value} at {where} has {flags} flagged neighbours, not {value}",
                self.board.coord(cell),
            )
        targets = [n for n in near if self.grid[n] == COVERED]
        if not targets:
            raise IllegalMove(
                f"{said}: the {value} at {where} has nothing left to reveal",
                self.board.coord(cell),
            )
        for n in targets:
            if self.grid[n] != COVERED:
                continue  # opened by an earlier cascade of this chord
            self._judge_and_open(n, n)
            if self.status is not Status.PLAYING:
                return

    def _witness_version(self) -> int:
        """How the devil draws witnesses and redrawn layouts: the game's version on a graph
        board; grid games draw the first way whatever their version."""
        params = self.params
        return params.version if params.graph is not None else FIRST_VERSION

    def _judge_and_open(self, cell: Cell, sub: Cell | None) -> None:
        """The devil rule (``devil.devil_rule.judge``) on ``cell``, then open it unless lost.

        ``sub``: the cell a chord is opening (None for a reveal); it seeds the devil's choices
        together with the game's seed and the move number.
        """
        analysis = self._analysis(cell)
        seed = move_seed(self.params.seed, len(self.game.moves), sub)
        judgement = judge(analysis, cell, self.params.rules, seed, self._witness_version())
        if isinstance(judgement, Lose):
            self.status, self.loss, self.witness = Status.LOST, cell, judgement.witness
            return
        if isinstance(judgement, Redraw):
            self.layout = judgement.layout
            self.counts = mine_counts(self.board, judgement.layout)
            self.guaranteed = False
            self.redrawn = True
        else:
            assert self.layout is not None
            if cell in self.layout:
                raise AssertionError(
                    f"devil invariant broken: {self.game.position.where(cell)} is provably "
                    "safe but mined in the hidden layout"
                )
        self._open(cell)

    # -- opening ------------------------------------------------------------------------

    def _open(self, cell: Cell) -> None:
        """Reveal a safe cell and cascade through zeros, iteratively; flags stay put."""
        assert self.counts is not None
        self.revealed += len(open_cells(self.grid, self.counts, neighbour_fn(self.board), cell))
        self.stale = True
        assert self.layout is not None
        if self.revealed == self.board.cell_count - len(self.layout):
            self.status = Status.WON

    def finish(self) -> Game:
        memo = _Memo(self.game._shared(), self.counts, self.layout)
        game = self.game
        return Game(
            self.params,
            Position(self.board, bytes(self.grid), self.params.mines),
            self.layout,
            self.status,
            (*game.moves, self.move),
            self.loss,
            self.witness,
            self.guaranteed,
            self.revealed,
            game.flag_count,
            memo,
            self.redrawn,
        )
