"""The ledger's routes.

``GET  /api/games/<id>/annotations``   the annotation JSON (docs/annotations.md); 409 while
                                       the game runs
``GET  /api/records?preset=&board=&count=&mercy=&no_guess=``  won games, fastest first
``GET  /records``                      the records page (same filters; ``duels_page`` pages its
                                       duel history), ``POST /records/name`` sets this browser's
                                       display name
``GET  /my-games``                     this browser's finished games
``GET  /g/<id>/luck``                  the end panel's luck line (a fragment)
``GET  /g/<id>/export.evf``, ``/g/<id>/export.moves``   a finished game's replay files
``GET  /analyse/export.png?p=&count=``  any position as a PNG picture
``POST /import``                       an EVF/AVF/MBF/move-list file -> its annotated moves,
                                       each a link to the analysis board
``GET  /g/<id>/study?move=N&cell=``    a finished game's position after N moves on the
                                       analysis board (a graph's rebuilt here; 409 running)
``GET  /g/<id>/picture.png?move=N``  that position as a PNG (a graph game's; a grid's: 303
                                       to ``/analyse/export.png``; 409 running)
``POST /import/study``                 an imported move list (``replay``) before or after
                                       a move (``before`` / ``after``) on the analysis board
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from flask import Blueprint, Response, current_app, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import Conflict

from app.duel.history import duel_records, page_arg
from app.errors import InputError
from app.graphs.routes import WEB_MAX_TEXT
from app.hooks import body_limit
from app.ledger.boards import BOARD_KEY_RE
from app.ledger.download import download
from app.ledger.imports import imported_view
from app.ledger.notes import move_note
from app.ledger.picture import move_picture
from app.ledger.png import position_png
from app.ledger.service import Ledger, StillPlaying, TooBig
from app.ledger.spec import PATHS, SCHEMAS
from app.ledger.store import LedgerRow
from app.ledger.study import game_study, import_study
from app.openapi import publish
from app.play.params import PRESETS
from app.play.setup import get_service
from app.play.view import duel_of
from app.security import current_owner, ensure_owner, limit_creates, limit_moves
from app.teach.export import picture_verdicts
from app.teach.query import check_size, line_arg, parse_count
from devil.game import Status
from devil.graphs.tilings import TILINGS
from devil.ledger.annotate import final_board, with_cell_ids
from devil.ledger.luck import luck_sentence_json
from devil.ledger.replays.evf import EvfError, write_evf
from devil.ledger.replays.movelist import write_movelist

bp = Blueprint("ledger", __name__)
publish(bp, PATHS, SCHEMAS)

NAME_RE = re.compile(r"[\w .'-]{1,24}")
NAME_RULE = (
    "a display name is 1 to 24 letters (any alphabet), digits, spaces and . ' - _ "
    "(or empty to remove it)"
)
MAX_IMPORT_BYTES = 2_000_000


def get_ledger() -> Ledger:
    ledger: Ledger = current_app.extensions["mine_devil.ledger"]
    return ledger


# -- annotations ----------------------------------------------------------------------------


@bp.get("/api/games/<game_id>/annotations")
def game_annotations(game_id: str) -> ResponseReturnValue:
    body = get_ledger().annotation(game_id)
    service = get_service()
    board = service.params(service.record(game_id)).board()
    return body if board.graph is None else with_cell_ids(body, board)


@bp.get("/g/<game_id>/luck")
def luck(game_id: str) -> ResponseReturnValue:
    try:
        row = get_ledger().entry(game_id)
    except TooBig:
        return render_template("_luck.html", row=None, sentence="", duel=None)
    return render_template(
        "_luck.html", row=row, sentence=luck_sentence_json(row.body), duel=duel_of(game_id)
    )


def replay_note(game_id: str, n: int) -> Any:
    """The replay's note for move ``n`` (None while the game runs): called by the replay view."""
    return move_note(get_ledger(), get_service(), game_id, n)


# -- records --------------------------------------------------------------------------------

FILTERS = {
    "preset": (*PRESETS, "custom", *TILINGS, "graph"),
    "count": ("classic", "counted"),
    "mercy": ("strict", "fair"),
}


def record_filters(args: Any) -> dict[str, Any]:
    """``preset``, ``count``, ``mercy`` (each one of its values), ``board`` (one records
    table: ``penrose/expert``) and ``no_guess`` (true/false), all optional; InputError
    naming the field otherwise."""
    out: dict[str, Any] = {}
    for field, allowed in FILTERS.items():
        value = args.get(field, "").strip().lower()
        if value:
            if value not in allowed:
                raise InputError(
                    field, f"{field} must be one of {', '.join(allowed)}, not {value!r}"
                )
            out[field] = value
    board = args.get("board", "").strip().lower()
    if board:
        if not BOARD_KEY_RE.fullmatch(board):
            raise InputError(
                "board",
                "board must be a board as the records name it (penrose/expert, "
                f"penrose/100/20, expert...), not {board[:80]!r}",
            )
        out["board"] = board
    no_guess = args.get("no_guess", "").strip().lower()
    if no_guess:
        if no_guess not in ("true", "false", "1", "0", "yes", "no"):
            raise InputError("no_guess", f"no_guess must be true or false, not {no_guess!r}")
        out["no_guess"] = no_guess in ("true", "1", "yes")
    return out


def record_json(rank: int, row: LedgerRow, board_rank: int) -> dict[str, Any]:
    return {
        "rank": rank,
        "board_rank": board_rank,
        "game_id": row.game_id,
        "name": row.name,
        "preset": row.preset,
        "board": row.table,
        "board_size": row.board_size,
        "count": row.count,
        "mercy": row.mercy,
        "no_guess": row.no_guess,
        "seconds": row.seconds,
        "3bv": row.bbbv,
        "3bv_per_s": None if row.bbbv_per_s is None else round(row.bbbv_per_s, 4),
        "hints": row.hints,
        "bits": round(row.bits, 4),
        "guesses": row.guesses,
        "max_level": row.max_level,
        "helped": row.helped,
        "finished_at": row.finished_at.isoformat(),
    }


@bp.get("/api/records")
def records_api() -> ResponseReturnValue:
    filters = record_filters(request.args)
    rows = get_ledger().store.records(**filters)
    ranks = board_ranks(rows)
    records = [record_json(i, r, b) for i, (r, b) in enumerate(zip(rows, ranks, strict=True), 1)]
    return {"records": records, **filters}


def board_ranks(rows: list[LedgerRow]) -> list[int]:
    """Each row's rank among the rows of its own board (rows fastest first)."""
    seen: Counter[str] = Counter()
    ranks = []
    for row in rows:
        seen[row.table] += 1
        ranks.append(seen[row.table])
    return ranks


def board_tables(rows: list[LedgerRow]) -> list[tuple[LedgerRow, list[LedgerRow]]]:
    """The rows cut into one table per board (the first row, fastest, names it), the
    tables in the order of their fastest rows."""
    tables: dict[str, list[LedgerRow]] = {}
    for row in rows:
        tables.setdefault(row.table, []).append(row)
    return [(table[0], table) for table in tables.values()]


@bp.get("/records")
def records_page() -> ResponseReturnValue:
    return _records(saved=request.args.get("saved") == "1")


def _records(saved: bool = False, name_error: str | None = None, typed: str | None = None) -> str:
    """The records page; after a display name was saved, or refused (``name_error``, the
    form keeping what was ``typed``)."""
    filters = record_filters(request.args)
    rows = get_ledger().store.records(**filters)
    owner = current_owner()
    name = get_ledger().store.name(owner) if owner else None
    duels = duel_records(
        get_ledger().store.engine, get_service(), page_arg(request.args.get("duels_page"))
    )
    return render_template(
        "records.html",
        duels=duels,
        tables=board_tables(rows),
        filters=filters,
        choices=FILTERS,
        name=name if typed is None else typed,
        owner=owner,
        saved=saved,
        name_error=name_error,
    )


@bp.post("/records/name")
def set_name() -> ResponseReturnValue:
    text = request.form.get("name", "").strip()
    if text and not NAME_RE.fullmatch(text):  # the records page again: the mistake, the text
        return Response(_records(name_error=NAME_RULE, typed=text[:100]), status=400)
    get_ledger().store.set_name(ensure_owner(), text or None)
    return redirect(url_for("ledger.records_page", saved=1), 303)


@bp.get("/my-games")
def my_games() -> ResponseReturnValue:
    owner = current_owner()
    rows = get_ledger().store.by_owner(owner) if owner else []
    return render_template("my_games.html", rows=rows)


# -- exports and imports --------------------------------------------------------------------


@bp.get("/analyse/export.png")
@limit_creates
def export_png() -> ResponseReturnValue:
    """The analysed position as a PNG (the SVG export's picture), for sharing anywhere: the
    same size cap, budget and rate limit as the SVG export."""
    position = line_arg(request.args)
    check_size(position)
    count = parse_count(request.args.get("count"))
    verdicts = picture_verdicts(position, count)
    return download(position_png(position, verdicts), "image/png", "position.png")


def _finished(game_id: str) -> Any:
    loaded = get_service().load(game_id)
    if loaded.status is Status.PLAYING:
        raise StillPlaying(game_id)
    tie = duel_of(game_id)
    if tie is not None and tie.sealed:  # the export holds the seed: the opponent's board
        raise Conflict(
            f"game {game_id} is raced in a duel whose other game still runs on the same "
            "layout: its exports open once that game ends"
        )
    return loaded


def _times(game_id: str) -> list[float]:
    moves = [e for e in get_service().events(game_id) if e.is_move]
    return [(e.at - moves[0].at).total_seconds() for e in moves]


@bp.get("/g/<game_id>/export.moves")
def export_moves(game_id: str) -> ResponseReturnValue:
    game = _finished(game_id).game
    text = write_movelist(game.params, game.moves, _times(game_id), final_board(game), seed=True)
    return download(text, "text/plain", f"mine-devil-{game_id}.moves")


@bp.get("/g/<game_id>/export.evf")
def export_evf(game_id: str) -> ResponseReturnValue:
    game = _finished(game_id).game
    layout = final_board(game)
    if layout is None:
        raise InputError("game", "the game ended before a cell was opened: nothing to export")
    owner = get_service().record(game_id).owner
    player = (get_ledger().store.name(owner) if owner else None) or ""
    try:
        data = write_evf(
            game.params,
            game.moves,
            _times(game_id),
            layout,
            won=game.status is Status.WON,
            player=player,
        )
    except EvfError as exc:
        raise InputError("format", str(exc)) from None
    return download(data, "application/octet-stream", f"mine-devil-{game_id}.evf")


@bp.get("/g/<game_id>/study")
@limit_moves
def study_game(game_id: str) -> ResponseReturnValue:
    """A finished game's position after ``move`` moves on the analysis board."""
    return game_study(get_service(), game_id, request.args)


@bp.get("/g/<game_id>/picture.png")
@limit_moves
def game_picture(game_id: str) -> ResponseReturnValue:
    """A finished game's position after ``move`` moves as a PNG (a graph note's picture)."""
    return move_picture(get_service(), game_id, request.args)


@bp.post("/import/study")
@body_limit(3 * WEB_MAX_TEXT)
@limit_moves
def study_import() -> ResponseReturnValue:
    """A posted move list's position before or after a move on the analysis board."""
    return import_study(request.form)


@bp.post("/import")
@limit_creates
def import_replay() -> ResponseReturnValue:
    upload = request.files.get("replay")
    if upload is None or not upload.filename:
        raise InputError("replay", "choose a replay file (EVF, AVF, MBF or a move list)")
    data = upload.read(MAX_IMPORT_BYTES + 1)
    if len(data) > MAX_IMPORT_BYTES:
        raise InputError("replay", f"the file is larger than {MAX_IMPORT_BYTES} bytes")
    view = imported_view(data, upload.filename)
    return render_template("imported.html", v=view)
