"""A move of a game on the analysis board: the position before (or after) any move of a
finished stored game, or of an imported move list, rebuilt and handed to the board.

A grid's analysis board reads its position from a link; a graph board's position is a file
of up to megabytes, so it is rebuilt here from the game's log (a stored game: its replay,
``GameService.replay``, under the service's rebuild budget) or from the move list the import
page posts back (an imported one: ``replay_on_board`` on the file's final layout, no engine).
A grid goes on to the grid board's link (303). A running game is refused (409): its positions
open once it ends, as its annotations do; what is shown is a visible position, never a
layout.
"""

from __future__ import annotations

from collections.abc import Mapping

from flask import redirect, url_for
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import Conflict

from app.errors import InputError
from app.fields import shown
from app.graphs.routes import WEB_MAX_CELLS, WEB_MAX_TEXT, Origin, position_page
from app.heavy import off_loop
from app.ledger.notes import explained_cell
from app.play.loaded import LoadedGame
from app.play.replay import VERBS
from app.play.service import GameService
from app.teach.query import ANALYSE_MAX_CELLS, analyse_url
from devil.board import Board
from devil.errors import MoveError
from devil.game import Move, Status
from devil.ledger.board_replay import replay_on_board
from devil.ledger.replays import ReplayFormatError
from devil.ledger.replays.movelist import read_movelist
from devil.position import Position
from devil.rules import Count

MAX_STUDY_MOVES = 20_000
"""Most moves of a posted move list (an import's limit)."""


def move_arg(args: Mapping[str, str], field: str, total: int, low: int = 0) -> int:
    """``field`` as a move number from ``low`` to ``total`` (400 naming it otherwise)."""
    text = args.get(field, "").strip()
    fits = text.isascii() and text.isdigit() and len(text) <= 7
    if not fits or not low <= int(text) <= total:
        raise InputError(
            field, f"{field} must be a whole number from {low} to {total}, not {shown(text)}"
        )
    return int(text)


def finished_move(
    games: GameService, game_id: str, args: Mapping[str, str]
) -> tuple[LoadedGame, int]:
    """A finished game and the move number ``move`` of its (409 while it runs: its positions
    open when it ends; 400 naming ``move`` when it is not one of the game's)."""
    loaded = games.load(game_id)
    if loaded.status is Status.PLAYING:
        raise Conflict(
            f"game {game_id} is still being played: its positions open on the analysis board "
            "when it ends"
        )
    return loaded, move_arg(args, "move", loaded.moves)


def game_study(games: GameService, game_id: str, args: Mapping[str, str]) -> ResponseReturnValue:
    """``GET /g/<id>/study?move=N&cell=ID``: the position after ``N`` moves of a finished
    game (0: before the first), ``cell`` (an id on a graph, ``R,C`` on a grid) chosen."""
    loaded, n = finished_move(games, game_id, args)
    params = loaded.params
    count = params.rules.count
    cell = args.get("cell") or None
    if params.graph is None and params.height * params.width > ANALYSE_MAX_CELLS:
        raise InputError("move", f"the analysis board takes at most {ANALYSE_MAX_CELLS} cells")
    position = games.replay(game_id, n).position
    if params.graph is None:
        return redirect(analyse_url(position.line, count, cell=cell), 303)
    back = url_for("play.replay", game_id=game_id, n=n)
    text = _where(position.board, loaded.game.moves, n, "this game")
    origin = Origin(text, back, "Back to the replay")
    return position_page(position, count, cell, origin, params.graph)


def _where(board: Board, moves: tuple[Move, ...], n: int, what: str) -> str:
    """``Move 8 of 8 of this game (open cell top0-5): the position before it.``, in the
    replay caption's words."""
    total = len(moves)
    if n == total:
        return f"The position after the last move ({total}) of {what}."
    move = moves[n]
    graph = board.graph
    cell = board.cell(move.row, move.col)
    place = graph.where(cell) if graph is not None else f"row {move.row}, col {move.col}"
    return (
        f"Move {n + 1} of {total} of {what} ({VERBS[move.kind]} {place}): the position before it."
    )


def import_study(form: Mapping[str, str]) -> ResponseReturnValue:
    """``POST /import/study``: ``replay`` (a move list's text, as the import page carries
    it), ``name`` (its file's name, for the page), and ``before`` (a move number: the
    position before it, its cell chosen) or ``after`` (the position after it)."""
    text = form.get("replay", "")
    if len(text) > WEB_MAX_TEXT:
        raise InputError("replay", f"the move list is longer than {WEB_MAX_TEXT:,} characters")
    name = form.get("name", "").strip()[:200] or "the move list"
    try:
        replay = read_movelist(text)
    except ReplayFormatError as exc:
        raise InputError("replay", f"cannot read {name}: {exc}") from None
    params = replay.params
    board = params.board()
    moves = replay.moves
    if params.graph is None and params.height * params.width > ANALYSE_MAX_CELLS:
        raise InputError("replay", f"the analysis board takes at most {ANALYSE_MAX_CELLS} cells")
    if board.cell_count > WEB_MAX_CELLS:
        raise InputError("replay", f"the analysis board takes at most {WEB_MAX_CELLS:,} cells")
    if len(moves) > MAX_STUDY_MOVES:
        raise InputError("replay", f"move lists up to {MAX_STUDY_MOVES} moves can be studied")
    if replay.layout is None:
        raise InputError("replay", f"{name} does not say where the mines are (no layout)")
    before = "before" in form
    if before:
        n = move_arg(form, "before", len(moves), 1) - 1
    else:
        n = move_arg(form, "after", len(moves))
    layout = replay.layout
    played = moves[: n + 1] if before else moves[:n]
    try:
        steps = off_loop(lambda: list(replay_on_board(board, params.mines, layout, played)))
    except MoveError as exc:
        raise InputError("replay", f"cannot replay {name}: {exc}") from None
    position = steps[n - 1].after if n else Position.covered(board, params.mines)
    cell = None
    if before:
        step = steps[n]
        opened = [list(board.coord(c)) for c in step.opened]
        row, col = explained_cell(board, {"kind": step.move.kind.value, "row": step.move.row,
                                          "col": step.move.col, "opened": opened})  # fmt: skip
        cell = board.cell_id(row, col) if params.graph is not None else f"{row},{col}"
    count: Count = params.rules.count
    if params.graph is None:
        return redirect(analyse_url(position.line, count, cell=cell), 303)
    where = _where(board, moves, n, name)
    back = url_for("teach.analyse") + "#import-file"
    origin = Origin(where, back, "Import another file")
    return position_page(position, count, cell, origin, params.graph)
