"""The JSON the API sends about a game: its ``state`` and its log.

Mines (``layout``, ``witness``, ``loss``, ``seed``) appear only once the game has ended.
"""

from __future__ import annotations

from typing import Any

from app.play.view import duel_of
from app.store.records import Event
from devil.analysis import Layout
from devil.board import Board
from devil.game import Game, Status


def layout_rows(board: Board, layout: Layout) -> list[str]:
    """A layout as rows: ``*`` mine, ``#`` hole, ``.`` anything else."""
    grid = bytearray(b"." * board.size)
    for hole in board.holes:
        grid[hole] = ord("#")
    for cell in layout:
        grid[cell] = ord("*")
    text = grid.decode("ascii")
    w = board.width
    return [text[i : i + w] for i in range(0, len(text), w)]


def game_state(game_id: str, game: Game) -> dict[str, Any]:
    """The API's ``state`` for ``game``: mines (``layout``, ``witness``, ``loss``, ``seed``)
    only once the game has ended; ``layout`` and ``seed`` not while the game's duel
    opponent still plays on the same layout."""
    params = game.params
    state: dict[str, Any] = {
        "id": game_id,
        "width": params.width,
        "height": params.height,
        "mines": params.mines,
        "topology": params.topology.value,
        "count": params.rules.count.value,
        "mercy": params.rules.mercy.value,
        "no_guess": game.no_guess,
        "status": game.status.value,
        "moves": len(game.moves),
        "board": game.position.rows(),
    }
    if game.status is Status.PLAYING:
        return state
    board = game.position.board
    tie = duel_of(game_id)  # a duel's other side still plays this layout: it stays hidden
    sealed = tie is not None and tie.sealed
    if game.layout is not None and not sealed:
        state["layout"] = layout_rows(board, game.layout)
    if game.status is Status.LOST:
        if game.witness is not None:
            state["witness"] = layout_rows(board, game.witness)
        if game.loss is not None:
            state["loss"] = list(board.coord(game.loss))
    if not sealed:
        state["seed"] = params.seed
    return state


def move_log(events: list[Event]) -> list[dict[str, Any]]:
    """The log, each entry with ``n``: the number of board moves made once it was written.

    Hints are events too (they take sequence numbers) but change no cell, so ``seq`` and
    the move count differ once a hint was asked; ``/replay/<n>`` takes ``n``.
    """
    log = []
    n = 0
    for event in events:
        entry: dict[str, Any] = {
            "seq": event.seq,
            "kind": event.kind,
            "row": event.row,
            "col": event.col,
            "at": event.at.isoformat(),
        }
        if event.kind == "hint":
            entry["level"] = event.extra
        else:
            n += 1
        entry["n"] = n
        log.append(entry)
    return log
