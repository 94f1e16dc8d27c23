"""Replays: the board after move ``n`` of a game, with its caption and step links."""

from __future__ import annotations

from dataclasses import dataclass

from app.errors import InputError, UnknownMove
from app.fields import integer_text, shown
from app.play.board import BoardView, board_view
from app.play.loaded import LoadedGame
from app.play.service import GameService
from app.play.view import duel_of, ending_of, plural
from devil.board import Cell
from devil.game import Game, Move, MoveKind, Status


@dataclass(frozen=True)
class ReplayView:
    """The board after move ``n`` of ``total``, with the step targets (None when disabled)."""

    game_id: str
    n: int
    total: int
    board: BoardView
    caption: str
    label: str

    @property
    def steps(self) -> tuple[tuple[str, int | None, str], ...]:
        n, total = self.n, self.total
        return (
            ("\u00ab First", 0 if n > 0 else None, "Before the first move"),
            ("\u2039 Back", n - 1 if n > 0 else None, "One move back"),
            ("Next \u203a", n + 1 if n < total else None, "One move forward"),
            ("Last \u00bb", total if n < total else None, "After the last move"),
        )


VERBS = {MoveKind.REVEAL: "open", MoveKind.FLAG: "flag", MoveKind.UNFLAG: "unflag",
         MoveKind.CHORD: "chord"}  # fmt: skip
"""A move's verb as a replay's caption says it."""


def move_text(game: Game, move: Move) -> str:
    position = game.position
    return f"{VERBS[move.kind]} {position.where(position.board.cell(move.row, move.col))}"


def move_number(text: str) -> int:
    """The replay's ``n`` as an integer (400 naming the text when it is not one)."""
    try:
        return integer_text(text, "n")
    except InputError:
        raise InputError("n", f"n must be a move number, not {shown(text)}") from None


def check_move_number(n: int, total: int) -> None:
    """404 for a move the game's log does not have."""
    if not 0 <= n <= total:
        raise UnknownMove(f"move {n} does not exist: this game has {plural(total, 'move')}")


def _move_marks(
    service: GameService, loaded: LoadedGame, n: int, game: Game
) -> tuple[Cell | None, frozenset[Cell]]:
    """On a graph board, the cell move ``n`` acted on and the cells it opened (a stranger
    reading "open cell k5" cannot find k5 on a Penrose tiling); the position before the move
    comes from the replay's prefix cache, so stepping forward costs no extra move. Grids:
    nothing (their rows and columns say where)."""
    position = game.position
    if n == 0 or position.board.graph is None:
        return None, frozenset()
    move = loaded.game.moves[n - 1]
    before = service.replay(loaded.id, n - 1).position
    fresh = frozenset(
        c for c in position.board.cells() if before.is_covered(c) and not position.is_covered(c)
    )
    return position.board.cell(move.row, move.col), fresh


def replay_view(
    service: GameService, loaded: LoadedGame, n: int, corners: bool = True
) -> ReplayView:
    """The board after move ``n``; ``corners``: a solid's 3-D corners (``board_view``)."""
    total = loaded.moves
    check_move_number(n, total)
    game = loaded.game if n == total else service.replay(loaded.id, n)
    tie = None if loaded.game.status is Status.PLAYING else duel_of(loaded.id)
    ending = ending_of(loaded.game, show_loss=n == total, sealed=tie is not None and tie.sealed)
    moved, fresh = _move_marks(service, loaded, n, game)
    board = board_view(
        game.position,
        interactive=False,
        ending=ending,
        prefix="rp-",
        moved=moved,
        fresh=fresh,
        corners=corners,
    )
    if n == 0:
        caption = "Before the first move."
    else:
        caption = f"Move {n} of {total}: {move_text(loaded.game, loaded.game.moves[n - 1])}."
    if n == total and loaded.game.status is not Status.PLAYING:
        caption += f" The game was {loaded.game.status.value}."
    label = f"The board after move {n} of {total}"
    return ReplayView(loaded.id, n, total, board, caption, label)
