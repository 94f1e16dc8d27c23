"""Boards of a chosen level (``POST /levels/new``): the level is remembered for the browser that
asked, in its signed session, and the game page labels the board with it.

The level was measured for a game that starts on the centre cell, so the board opens untouched
and the label says where to start (the player makes the first move).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Blueprint, session

SESSION_KEY = "level_boards"
KEEP = 20
"""Level boards remembered per browser (the newest; the session cookie stays small)."""


@dataclass(frozen=True)
class LevelNote:
    level: int
    text: str


def remember_level(game_id: str, level: int, row: int, col: int) -> None:
    boards = dict(session.get(SESSION_KEY) or {})
    boards[game_id] = [level, row, col]
    session[SESSION_KEY] = dict(list(boards.items())[-KEEP:])


def level_note(game_id: str) -> LevelNote | None:
    """The label of a level board this browser asked for (None for any other game)."""
    entry = (session.get(SESSION_KEY) or {}).get(game_id)
    if not isinstance(entry, list) or len(entry) != 3:
        return None
    level, row, col = entry
    text = (
        f"Level {level} board: start on the centre cell, row {row}, col {col}. Its level was "
        "measured from there: every cell then opens by reasoning of that level or easier, and "
        "at least one cell needs it."
    )
    return LevelNote(level, text)


def level_globals() -> dict[str, Any]:
    """What every template gets: ``level_note(game_id)``."""
    return {"level_note": level_note}


def init_blueprint(bp: Blueprint) -> None:
    bp.app_context_processor(level_globals)
