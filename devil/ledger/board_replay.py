"""Replaying moves on a fixed board: the positions a move log passes through.

Annotations (``devil.ledger.annotate``) and imported replays (EVF, AVF, move lists) need the visible
position before and after every move, but not the devil's layout drawing: a finished game's
final board explains every number that was ever shown. (A fair-mercy redraw only ever picks a
layout consistent with what is revealed, so the last layout agrees with every earlier number;
after a loss the devil's witness does, and it has a mine on the losing cell.) Replaying on that
board is therefore exact, needs no seed, and does not change when the engine's generator does.

Rules as in ``devil.game``: a reveal opens the cell and cascades through zeros (flags stay
put); a chord on a number whose flagged neighbours equal it reveals its other covered
neighbours in neighbour order, stopping at the first mine; flag / unflag toggle marks. The
game is lost when a mine is revealed and won when only mines remain covered. A move after the
end, or one the rules do not allow, raises ``IllegalMove`` (``InvalidMove`` off the board)
naming the move number and cell.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from devil.analysis import Layout
from devil.board import Board, Cell
from devil.errors import IllegalMove, InvalidMove
from devil.game import Move, MoveKind, said
from devil.generate import mine_counts, open_cells
from devil.position import COVERED, FLAG, NUMBER_VALUE, Position
from devil.solve.grid import neighbour_fn


@dataclass(frozen=True)
class ReplayStep:
    """One move and what it did: ``n`` counts moves from 1; ``before``/``after`` are the
    visible positions; ``opened`` the cells it revealed; ``lost_at`` the mine it hit."""

    n: int
    move: Move
    before: Position
    after: Position
    opened: tuple[Cell, ...]
    lost_at: Cell | None
    won: bool


def _head(board: Board, n: int, move: Move) -> str:
    """``move 3 (reveal 0 4)``, ``move 3 (reveal t17)``: how the messages name a move
    (built only for a message: a replay plays thousands of moves)."""
    return f"move {n} ({said(board, move)})"


def _cell(board: Board, n: int, move: Move) -> Cell:
    coord = (move.row, move.col)
    if move.row >= board.height or move.col >= board.width:
        raise InvalidMove(
            f"{_head(board, n, move)}: row {move.row}, col {move.col} is off the "
            f"{board.height}x{board.width} board",
            coord,
        )
    cell = board.cell(move.row, move.col)
    if cell in board.holes:
        head = _head(board, n, move)
        raise InvalidMove(f"{head}: row {move.row}, col {move.col} is a hole", coord)
    return cell


class BoardPlay:
    """Moves played one by one on a fixed layout (``play``); ``grid`` is what is visible."""

    def __init__(self, board: Board, mines: int, layout: Layout) -> None:
        self.board = board
        self.mines = mines
        self.layout = layout
        self.counts = mine_counts(board, layout)
        self.nb = neighbour_fn(board)
        self.grid = bytearray(Position.covered(board, mines).grid)
        self.position = Position(board, bytes(self.grid), mines)
        self.safe_left = board.cell_count - len(layout)
        self.over = False
        self.n = 0

    def play(self, move: Move) -> ReplayStep:
        """Play ``move``; raises ``IllegalMove``/``InvalidMove`` naming it and its number."""
        n = self.n + 1
        coord = (move.row, move.col)
        if self.over:
            raise IllegalMove(f"{_head(self.board, n, move)}: the game is already over", coord)
        cell = _cell(self.board, n, move)
        grid = self.grid
        opened: list[Cell] = []
        lost: Cell | None = None
        if move.kind is MoveKind.FLAG or move.kind is MoveKind.UNFLAG:
            _mark(self.board, grid, cell, n, move)
        else:
            if move.kind is MoveKind.REVEAL:
                _check_reveal(self.board, grid, cell, n, move)
                targets = [cell]
            else:
                targets = _chord_targets(self.board, grid, self.nb, cell, n, move)
            for t in targets:
                if grid[t] != COVERED:
                    continue  # opened by an earlier cascade of this chord
                if t in self.layout:
                    lost = t
                    break
                opened.extend(open_cells(grid, self.counts, self.nb, t))
        self.n = n
        self.safe_left -= len(opened)
        won = lost is None and self.safe_left == 0
        self.over = won or lost is not None
        before = self.position
        self.position = Position(self.board, bytes(grid), self.mines)
        return ReplayStep(n, move, before, self.position, tuple(sorted(opened)), lost, won)

    def allows(self, move: Move) -> bool:
        """Whether ``move`` would be legal now (used to read mouse clicks into moves)."""
        if self.over:
            return False
        try:
            cell = _cell(self.board, self.n + 1, move)
            if move.kind is MoveKind.FLAG or move.kind is MoveKind.UNFLAG:
                _mark(self.board, bytearray(self.grid[cell : cell + 1]), 0, 0, move)
            elif move.kind is MoveKind.REVEAL:
                _check_reveal(self.board, self.grid, cell, 0, move)
            else:
                _chord_targets(self.board, self.grid, self.nb, cell, 0, move)
        except (IllegalMove, InvalidMove):
            return False
        return True


def replay_on_board(
    board: Board, mines: int, layout: Layout, moves: Iterable[Move]
) -> Iterator[ReplayStep]:
    """The steps of ``moves`` played on ``layout`` (the mined cells), in order."""
    play = BoardPlay(board, mines, layout)
    for move in moves:
        yield play.play(move)


def _mark(board: Board, grid: bytearray, cell: Cell, n: int, move: Move) -> None:
    coord = (move.row, move.col)
    if grid[cell] not in (COVERED, FLAG):
        raise IllegalMove(f"{_head(board, n, move)}: the cell is already revealed", coord)
    flag = move.kind is MoveKind.FLAG
    if (grid[cell] == FLAG) == flag:
        state = "already flagged" if flag else "not flagged"
        raise IllegalMove(f"{_head(board, n, move)}: the cell is {state}", coord)
    grid[cell] = FLAG if flag else COVERED


def _check_reveal(board: Board, grid: bytearray, cell: Cell, n: int, move: Move) -> None:
    coord = (move.row, move.col)
    if grid[cell] == FLAG:
        raise IllegalMove(f"{_head(board, n, move)}: the cell is flagged; unflag it first", coord)
    if grid[cell] != COVERED:
        raise IllegalMove(f"{_head(board, n, move)}: the cell is already revealed", coord)


def _chord_targets(
    board: Board,
    grid: bytearray,
    nb: Callable[[Cell], tuple[Cell, ...]],
    cell: Cell,
    n: int,
    move: Move,
) -> list[Cell]:
    coord = (move.row, move.col)
    value = NUMBER_VALUE[grid[cell]]
    if not 0 <= value <= 8:
        raise IllegalMove(f"{_head(board, n, move)}: the cell is not a revealed number", coord)
    near = nb(cell)
    flags = sum(1 for c in near if grid[c] == FLAG)
    if flags != value:
        raise IllegalMove(
            f"{_head(board, n, move)}: the {value} has {flags} flagged neighbours, not {value}",
            coord,
        )
    targets = [c for c in near if grid[c] == COVERED]
    if not targets:
        raise IllegalMove(f"{_head(board, n, move)}: the {value} has nothing left to reveal", coord)
    return targets
