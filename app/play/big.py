"""Boards too big for a page: above ``PAGE_MAX_CELLS`` a game is API-only.

A page never sends more than a board a person can look at: the browser creates games up to
200x200 (``BROWSER_MAX_SIDE``, 40,000 cells, the most a page draws), the API up to
1000x1000. For a bigger game the game page, its replay and its ``?since=`` fragment answer a
small summary (size, status, moves, the API's URLs) read from the ``games`` row: no board is
drawn and the game's log is not replayed for it, so no GET of a page can make the server
rebuild or render a huge game. Its player plays it through the API.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import render_template, url_for

from app.errors import InputError
from app.play.params import BROWSER_MAX_SIDE
from app.play.setup import get_service
from app.play.view import game_title
from devil.game import GameParams

PAGE_MAX_CELLS = BROWSER_MAX_SIDE * BROWSER_MAX_SIDE
"""Largest board a page draws (the largest a browser can create)."""


def drawable(params: GameParams) -> bool:
    """Whether a page may draw this game's board."""
    return params.height * params.width <= PAGE_MAX_CELLS


@dataclass(frozen=True)
class BigGameView:
    """What the page of an API-only game shows."""

    id: str
    title: str
    height: int
    width: int
    mines: int
    status: str
    moves: int
    state_url: str
    events_url: str


def big_game_page(game_id: str, params: GameParams, code: int = 200) -> tuple[str, int]:
    """The summary page of an API-only game (one query: the ``games`` row)."""
    head = get_service().store.get_head(game_id)
    status, moves = ("playing", 0) if head is None else (head[0].status, head[0].moves)
    view = BigGameView(
        id=game_id,
        title=game_title(params),
        height=params.height,
        width=params.width,
        mines=params.mines,
        status=status,
        moves=moves,
        state_url=url_for("api.show", game_id=game_id),
        events_url=url_for("live.events", game_id=game_id),
    )
    return render_template("big_game.html", big=view, page_max_cells=PAGE_MAX_CELLS), code


def refuse_page_move(params: GameParams) -> None:
    """Moves on an API-only game come through the API."""
    if not drawable(params):
        raise InputError(
            "at",
            f"this {params.height}x{params.width} game is too big for the page "
            f"(over {PAGE_MAX_CELLS} cells): play it through the API",
        )
