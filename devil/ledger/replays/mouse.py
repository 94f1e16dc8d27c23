"""Mouse events into moves: how video formats (EVF, AVF) record a game.

Videos record button presses and releases at pixel positions, not moves. The reading here is
the classic one (Windows Minesweeper, Arbiter, Metasweeper):

- a right press on a covered cell flags it, on a flagged cell unflags it;
- a left release on a covered cell reveals it, unless the right button is down;
- with both buttons down, releasing either one chords on the cell under the pointer (the
  other button's later release does nothing); a middle release chords too;
- presses and releases that would not be legal moves (a reveal on a number, a chord whose
  flags do not match) do nothing, as in the games that recorded them.

Events are interpreted against the board being played (``BoardPlay``), since what a click
does depends on what it lands on.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from devil.game import Move, MoveKind
from devil.ledger.board_replay import BoardPlay
from devil.position import COVERED, FLAG

MOUSE_KINDS = ("mv", "lc", "lr", "rc", "rr", "mc", "mr")


@dataclass(frozen=True)
class MouseEvent:
    """``kind`` (one of ``MOUSE_KINDS``) at ``time`` seconds, pointer at pixel ``(x, y)``."""

    time: float
    kind: str
    x: int
    y: int


def read_clicks(
    events: Iterable[MouseEvent], play: BoardPlay, cell_size: int
) -> tuple[list[Move], list[float]]:
    """The moves the events make on ``play`` (which they advance) and each move's time."""
    moves: list[Move] = []
    times: list[float] = []
    left = right = False
    chorded = False
    board = play.board

    def cell_at(e: MouseEvent) -> tuple[int, int] | None:
        if e.x < 0 or e.y < 0:
            return None
        row, col = e.y // cell_size, e.x // cell_size
        if row >= board.height or col >= board.width:
            return None
        return row, col

    def attempt(kind: MoveKind, e: MouseEvent) -> None:
        where = cell_at(e)
        if where is None or play.over:
            return
        move = Move(kind, *where)
        if kind is MoveKind.FLAG:
            byte = play.grid[board.cell(*where)]
            if byte == FLAG:
                move = Move(MoveKind.UNFLAG, *where)
            elif byte != COVERED:
                return
        if play.allows(move):
            play.play(move)
            moves.append(move)
            times.append(e.time)

    for e in events:
        if e.kind == "lc":
            left = True
        elif e.kind == "rc":
            right = True
            if not left:
                attempt(MoveKind.FLAG, e)
        elif e.kind == "lr":
            if right and not chorded:
                attempt(MoveKind.CHORD, e)
                chorded = True
            elif not right and not chorded:
                attempt(MoveKind.REVEAL, e)
            left = False
            if not right:
                chorded = False
        elif e.kind == "rr":
            if left and not chorded:
                attempt(MoveKind.CHORD, e)
                chorded = True
            right = False
            if not left:
                chorded = False
        elif e.kind == "mr":
            attempt(MoveKind.CHORD, e)
    return moves, times


def click_events(move: Move, time: float, cell_size: int) -> list[MouseEvent]:
    """The presses and releases that make ``move`` (the inverse of ``read_clicks``)."""
    x = move.col * cell_size + cell_size // 2
    y = move.row * cell_size + cell_size // 2
    kinds: tuple[str, ...]
    if move.kind is MoveKind.REVEAL:
        kinds = ("lc", "lr")
    elif move.kind is MoveKind.CHORD:
        kinds = ("lc", "rc", "rr", "lr")
    else:
        kinds = ("rc", "rr")
    return [MouseEvent(time, k, x, y) for k in kinds]
