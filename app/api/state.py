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


def _graph_state(game: Game, state: dict[str, Any]) -> None:
    """A graph game's cells by id (``cells``: ``{"id", "state"}`` in the file's order, state
    ``"."``, ``"F"`` or the number), instead of ``board``'s rows; its ``version``, which
    with the board, the rules, the ``seed`` (once ended) and the moves rebuilds it."""
    position = game.position
    layout = position.board.graph
    assert layout is not None and game.params.graph is not None
    del state["board"]
    state["graph"] = game.params.graph.summary()
    state["version"] = game.params.version  # how its layouts and witnesses are drawn
    cells = []
    for slot in layout.slots:
        number = position.number(slot)
        value: str | int = (
            number if number is not None else ("F" if position.is_flagged(slot) else ".")
        )
        cells.append({"id": layout.id(slot), "state": value})
    state["cells"] = cells


def _ids(board: Board, cells: Layout) -> list[str]:
    layout = board.graph
    assert layout is not None
    return sorted((layout.id(c) for c in cells), key=lambda i: layout.index(layout.cell(i)))


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
        "no_guess_asked": params.no_guess,
        "no_guess_note": game.no_guess_note,
        "status": game.status.value,
        "moves": len(game.moves),
        "board": game.position.rows(),
    }
    board = game.position.board
    if board.graph is not None:
        _graph_state(game, state)
    if game.status is Status.PLAYING:
        return state
    tie = duel_of(game_id)  # a duel's other side still plays this layout: it stays hidden
    sealed = tie is not None and tie.sealed
    graph = board.graph
    if game.layout is not None and not sealed:
        if graph is None:
            state["layout"] = layout_rows(board, game.layout)
        else:
            state["layout_cells"] = _ids(board, game.layout)
    if game.status is Status.LOST:
        if game.witness is not None:
            if graph is None:
                state["witness"] = layout_rows(board, game.witness)
            else:
                state["witness_cells"] = _ids(board, game.witness)
        if game.loss is not None:
            if graph is None:
                state["loss"] = list(board.coord(game.loss))
            else:
                state["loss_cell"] = graph.id(game.loss)
    if not sealed:
        state["seed"] = params.seed
    return state


def move_log(events: list[Event], board: Board | None = None) -> list[dict[str, Any]]:
    """The log, each entry with ``n``: the number of board moves made once it was written;
    on a graph ``board`` each move names its ``cell`` by id too.

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
        if board is not None and board.graph is not None and event.row is not None:
            assert event.col is not None
            entry["cell"] = board.cell_id(event.row, event.col)
        if event.kind == "hint":
            entry["level"] = event.extra
        else:
            n += 1
        entry["n"] = n
        log.append(entry)
    return log
