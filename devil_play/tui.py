"""The Textual app: the board widget (keys and mouse), a message line and a status line.

Keys: arrows (or h j k l) move the cursor, space opens (on a number: chords), f flags or
unflags, c chords, s saves the move list, n starts a new game with the same settings, q quits.
Mouse, where the terminal reports it: left click opens, right click flags.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import replace
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import ScrollableContainer
from textual.widgets import Static

from devil_play.drawing import CELL_WIDTH, cell_at, glyph, row_shift
from devil_play.options import Options, read_options
from devil_play.session import Session

STYLES = {
    "covered": "bold grey50",
    "flag": "bold red",
    "empty": "",
    "hole": "",
    "witness-mine": "bold black on yellow",
    "loss": "bold white on red",
    "wrong-flag": "bold red on yellow",
    "number-1": "bold blue",
    "number-2": "bold green",
    "number-3": "bold red",
    "number-4": "bold magenta",
    "number-5": "bold dark_red",
    "number-6": "bold cyan",
    "number-7": "bold white",
    "number-8": "bold grey70",
}


def board_text(session: Session) -> Text:
    """The board with colours and the cursor (reverse video, while the game runs)."""
    game = session.game
    board = game.position.board
    text = Text(no_wrap=True)
    for row in range(board.height):
        text.append(" " * row_shift(game, row))
        for col in range(board.width):
            g = glyph(game, board.cell(row, col))
            style = STYLES[g.style]
            if (row, col) == (session.row, session.col) and not game.over:
                style = f"{style} reverse".strip()
            text.append(g.text, style=style)
            if col < board.width - 1:
                text.append(" " * (CELL_WIDTH - 1))
        if row < board.height - 1:
            text.append("\n")
    return text


class BoardView(Static, can_focus=True):
    """The board; the app redraws it after every change of the session."""

    def on_mouse_down(self, event: events.MouseDown) -> None:
        app = self.app
        assert isinstance(app, DevilPlay)
        offset = event.get_content_offset(self)
        if offset is None:
            return
        found = cell_at(app.session.game, offset.x, offset.y)
        if found is None:
            return
        app.session = app.session.at(*found)
        app.session = app.session.flag() if event.button == 3 else app.session.open()
        app.redraw()


class DevilPlay(App[None]):
    """Mine Devil in a terminal."""

    TITLE = "Mine Devil"
    CSS = """
    BoardView { width: auto; height: auto; padding: 1 2; }
    #board-frame { height: 1fr; }
    #message { height: auto; padding: 0 1; }
    #status { height: auto; background: $panel; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor(-1, 0)", "up", show=False),
        Binding("down,j", "cursor(1, 0)", "down", show=False),
        Binding("left,h", "cursor(0, -1)", "left", show=False),
        Binding("right,l", "cursor(0, 1)", "right", show=False),
        Binding("space", "open", "open"),
        Binding("f", "flag", "flag"),
        Binding("c", "chord", "chord"),
        Binding("s", "save", "save"),
        Binding("n", "new_game", "new game"),
        Binding("q", "quit", "quit"),
    ]

    def __init__(self, options: Options) -> None:
        super().__init__()
        self.options = options
        self.session = Session.start(options.params)

    def compose(self) -> ComposeResult:
        with ScrollableContainer(id="board-frame"):
            yield BoardView(id="board")
        yield Static(id="message")
        yield Static(id="status")

    def on_mount(self) -> None:
        self.query_one(BoardView).focus()
        self.redraw()

    def redraw(self) -> None:
        self.query_one("#board", BoardView).update(board_text(self.session))
        self.query_one("#message", Static).update(Text(self.session.message))
        self.query_one("#status", Static).update(Text(self.session.status_line()))

    def action_cursor(self, drow: int, dcol: int) -> None:
        self.session = self.session.moved(drow, dcol)
        self.redraw()

    def action_open(self) -> None:
        self.session = self.session.open()
        self.redraw()

    def action_flag(self) -> None:
        self.session = self.session.flag()
        self.redraw()

    def action_chord(self) -> None:
        self.session = self.session.chord()
        self.redraw()

    def action_save(self) -> None:
        self.session = self.session.save(self.options.save_to)
        self.redraw()

    def action_new_game(self) -> None:
        params = replace(self.options.params, seed=secrets.randbelow(2**63))
        self.session = Session.start(params)
        self.redraw()


def main(argv: Sequence[str] | None = None) -> int:
    DevilPlay(read_options(argv)).run()
    return 0
