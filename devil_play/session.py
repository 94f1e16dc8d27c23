"""One terminal game being played: the game value, the cursor, the last message, saving.

Textual-free, so the rules of the terminal game are tested without a terminal. Moves go
through ``devil.game.Game.play`` exactly as the web app's do; the saved file is the engine's
move list (``devil.ledger.replays.movelist``), which ``devil-check --annotate`` and the web app's
importer read.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from devil.errors import GameOver, IllegalMove, InvalidMove
from devil.game import Game, GameParams, Move, Status
from devil.ledger.replays.movelist import write_movelist
from devil.teach.number_words import number_meaning, plural


@dataclass(frozen=True)
class Session:
    game: Game
    row: int = 0
    col: int = 0
    message: str = "Arrows move, space opens, f flags, c chords, s saves, n new game, q quits."

    @classmethod
    def start(cls, params: GameParams) -> Session:
        board = params.board()
        return cls(Game.new(params), board.height // 2, board.width // 2)

    # -- the cursor ---------------------------------------------------------------------

    def moved(self, drow: int, dcol: int) -> Session:
        """The cursor moved (stops at the edges, wraps on a torus)."""
        board = self.game.params.board()
        row, col = self.row + drow, self.col + dcol
        if self.game.params.topology.value == "torus":
            row, col = row % board.height, col % board.width
        else:
            row = min(max(row, 0), board.height - 1)
            col = min(max(col, 0), board.width - 1)
        return replace(self, row=row, col=col)

    def at(self, row: int, col: int) -> Session:
        return replace(self, row=row, col=col)

    # -- moves --------------------------------------------------------------------------

    def open(self) -> Session:
        """Space: open the covered cell under the cursor, or chord the number there."""
        cell = self._cell
        position = self.game.position
        if position.number(cell) is not None:
            return self.chord()
        if position.is_flagged(cell):
            return replace(self, message=f"{self._where} is flagged: press f to unflag it first")
        return self._play(Move.reveal(self.row, self.col))

    def flag(self) -> Session:
        position = self.game.position
        if not position.is_covered(self._cell):
            return replace(self, message=f"{self._where} is open: only covered cells take flags")
        if position.is_flagged(self._cell):
            return self._play(Move.unflag(self.row, self.col))
        return self._play(Move.flag(self.row, self.col))

    def chord(self) -> Session:
        return self._play(Move.chord(self.row, self.col))

    def _play(self, move: Move) -> Session:
        try:
            game = self.game.play(move)
        except (IllegalMove, InvalidMove, GameOver) as e:
            return replace(self, message=str(e))
        return replace(self, game=game, message=self._after(game, move))

    def _after(self, game: Game, move: Move) -> str:
        if game.status is Status.LOST:
            return (
                f"The devil wins: {self._where} could be a mine. The * cells are a layout that "
                f"fits every number with a mine on X. n: new game, s: save."
            )
        if game.status is Status.WON:
            return f"Cleared in {plural(len(game.moves), 'move')}. n: new game, s: save."
        opened = len(game.changed_cells(self.game))
        if move.kind.value in ("flag", "unflag"):
            return f"{self._where} {'flagged' if move.kind.value == 'flag' else 'unflagged'}"
        return f"{plural(opened, 'cell')} opened"

    # -- what the player reads ----------------------------------------------------------

    @property
    def _cell(self) -> int:
        return self.game.params.board().cell(self.row, self.col)

    @property
    def _where(self) -> str:
        return self.game.position.where(self._cell)

    def cursor_words(self) -> str:
        """The cell under the cursor in words (a number says what it means now)."""
        position = self.game.position
        cell = self._cell
        if cell in position.board.holes:
            return f"{self._where}: no cell"
        if position.number(cell) is not None:
            return f"{self._where}: {number_meaning(position, cell)}"
        return f"{self._where}: {'flagged' if position.is_flagged(cell) else 'covered'}"

    def status_line(self) -> str:
        p = self.game.params
        game = self.game
        rules = f"{p.rules.count.value}/{p.rules.mercy.value}"
        shape = f"{p.height}x{p.width} {p.topology.value}"
        guess = "no-guess" if game.no_guess else "may need guesses"
        return (
            f"{game.status.value} · {shape} · {rules} · {guess} · mines left "
            f"{game.mines_left} · move {len(game.moves)} · {self.cursor_words()}"
        )

    # -- saving -------------------------------------------------------------------------

    def move_list(self) -> str:
        """The game as a move list with its seed, so ``devil-check --annotate`` and the web
        importer can replay it even unfinished (the seed is no secret here: the player runs the
        engine); once over, with the final layout too (the devil's witness after a loss)."""
        game = self.game
        layout = None
        if game.over:
            layout = game.witness if game.status is Status.LOST else game.layout
        return write_movelist(game.params, game.moves, layout=layout, seed=True)

    def save(self, path: Path) -> Session:
        try:
            path.write_text(self.move_list(), encoding="utf-8")
        except OSError as e:
            return replace(self, message=f"could not save to {path}: {e.strerror}")
        return replace(self, message=f"saved {plural(len(self.game.moves), 'move')} to {path}")
