"""Annotations in words for the pages: one move's note in the replay, the luck sentence."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flask import url_for

from app.graphs.png import MAX_PNG_CELLS
from app.ledger.service import Ledger
from app.play.service import GameService
from app.teach.query import analyse_url, position_param
from devil.board import Board
from devil.game import GameParams, Status
from devil.ledger.luck import bits_text, odds
from devil.position import Position
from devil.rules import Count
from devil.teach.proof import LEVEL_NAMES

JUDGEMENT_TEXT = {
    "proof": "a proof",
    "forced": "a forced guess",
    "guess": "a guess",
    "fatal": "the fatal click",
    "flag": "a mark",
}


@dataclass(frozen=True)
class MoveNote:
    """What the replay says under move ``n``: ``judgement`` (a CSS class too), the sentence,
    and the analysis board link that shows why (None when there is nothing to show)."""

    n: int
    judgement: str
    text: str
    why: str | None
    picture: str | None
    """A PNG of the board after the move (what the player saw); None on a graph board too
    big for a PNG (``MAX_PNG_CELLS``)."""


def note_text(move: dict[str, Any], said: str = "") -> str:
    """``Move 12 was a proof, level 2 (two numbers).``; ``said`` names the move after its
    number (``Move 12 (reveal t17) was ...``) where no link shows its cell."""
    judgement = move["judgement"]
    number = f"Move {move['n']} ({said})" if said else f"Move {move['n']}"
    text = f"{number} was {JUDGEMENT_TEXT.get(judgement, judgement)}"
    if judgement == "proof" and move["level"] is not None:
        text += f", level {move['level']} ({LEVEL_NAMES[move['level']]})"
    elif move["p_safe"] is not None:
        p = Fraction(move["p_safe_exact"])
        if p == 1:
            text += ": safe by the rules (the first click)"
        else:
            text += f": safe {odds(p)}, {bits_text(move['bits'])} of luck"
    opened = len(move["opened"])
    if opened > 1:
        text += f"; it opened {opened} cells"
    return text + "."


def explained_cell(board: Board, move: dict[str, Any]) -> tuple[int, int]:
    """The cell whose proof a "Why?" link opens: the clicked cell, or for a chord (whose
    number is open already) the first cell around it that the chord opened."""
    row, col = move["row"], move["col"]
    if move["kind"] == "chord":
        around = set(board.neighbours(board.cell(row, col)))
        for r, c in move["opened"]:
            if board.cell(r, c) in around:
                return r, c
    return row, col


def graph_why(game_id: str, params: GameParams, n: int, move: dict[str, Any]) -> str:
    """The "Why?" of move ``n`` of a stored graph game: the position before it on the graph
    analysis board (``GET /g/<id>/study``), the move's cell chosen (a chord's: a cell it
    opened)."""
    board = params.board()
    row, col = explained_cell(board, move)
    return url_for("ledger.study_game", game_id=game_id, move=n - 1, cell=board.cell_id(row, col))


def move_note(ledger: Ledger, games: GameService, game_id: str, n: int) -> MoveNote | None:
    """The note of move ``n`` of a finished game (None while it runs or for ``n == 0``)."""
    loaded = games.load(game_id)
    if loaded.status is Status.PLAYING or not 1 <= n <= loaded.moves:
        return None
    move = ledger.annotation(game_id)["moves"][n - 1]
    count = loaded.params.rules.count
    if loaded.params.graph is not None:
        # the graph analysis board and the picture rebuild the position from the game (a
        # file of up to megabytes is no link)
        why = None if move["judgement"] == "flag" else graph_why(game_id, loaded.params, n, move)
        drawn = loaded.params.board().cell_count <= MAX_PNG_CELLS
        picture = url_for("ledger.game_picture", game_id=game_id, move=n) if drawn else None
        return MoveNote(n, move["judgement"], note_text(move), why, picture)
    why = None
    if move["judgement"] != "flag":
        before = games.replay(game_id, n - 1).position
        row, col = explained_cell(before.board, move)
        why = analyse_url(before.line, count, cell=f"{row},{col}")
    picture = grid_picture_url(games.replay(game_id, n).position, count)
    return MoveNote(n, move["judgement"], note_text(move), why, picture)


def grid_picture_url(position: Position, count: Count) -> str:
    """The link to a grid ``position``'s PNG (the analysis board's picture, verdicts and all)."""
    key, value = position_param(position.line)
    args: dict[str, Any] = {key: value, "count": count.value}
    return url_for("ledger.export_png", **args)
