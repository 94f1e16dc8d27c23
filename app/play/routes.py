"""The play pages (blueprint ``play``): each route parses its request, asks the game service,
and renders a view model.

Routes::

    GET  /                          home: new-game form, this browser's recent games
    POST /new                       create a game from the form, 303 to its page
    GET  /g/<id>                    the game page; with HX-Request the ``#game`` fragment;
                                    with HX-Request and ``?since=N`` only what changed after
                                    move N (out-of-band swaps, 204 when nothing did)
    POST /g/<id>/move               a click: ``kind`` (open/reveal/flag/unflag/chord) and
                                    ``at=row,col`` (zero-based). htmx gets the changed cells,
                                    the status bar and the hint panel as out-of-band swaps; a
                                    plain form post gets a 303 back to the game page.
    GET  /g/<id>/replay/<n>         the board after move n (full page, or its fragment)
    GET  /g/<id>/replay?n=N         the same, for the replay slider's form (no n: the latest)

Every response of this blueprint says ``Vary: HX-Request`` (a URL is a page or a fragment)
and large HTML is gzipped (``app.hooks.vary_and_compress``).
"""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlsplit

from flask import Blueprint, Response, make_response, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import Forbidden

from app.errors import InputError, is_htmx
from app.fields import integer_text, shown
from app.hooks import body_limit, vary_and_compress
from app.ledger.routes import replay_note
from app.play.big import big_game_page, drawable, refuse_page_move
from app.play.board import RowView, changed_rows, changed_views, with_numbers_beside
from app.play.cells import CellView
from app.play.graph_board import CORNERS_KEPT
from app.play.loaded import LoadedGame
from app.play.moves import click_from_form
from app.play.new_game import (
    DEFAULT_FORM,
    GRAPH_TILINGS,
    TOPOLOGIES,
    form_fields,
    params_from_form,
    presets,
    recent_view,
)
from app.play.params import API_MAX_SIDE, BROWSER_MAX_SIDE
from app.play.replay import check_move_number, move_number, replay_view
from app.play.setup import get_service
from app.play.view import game_view, move_message, summary
from app.security import can_move, ensure_owner, limit_creates, limit_moves, recent_games
from devil.game import GRAPH_GAME_MAX_CELLS, NO_GUESS_CELL_LIMIT, Game, changed_between

bp = Blueprint("play", __name__)
bp.after_request(vary_and_compress)

NEW_GAME_FORM_MAX = 6 * 1024 * 1024
"""Largest new-game form: a pasted graph board of 5,000 cells, form-encoded, fits."""

CELL_SWAP_LIMIT = 48
"""Up to this many changed cells, a click answers cell by cell; beyond it, with the changed
rows whole. htmx fires one event per earlier swap for every out-of-band swap (quadratic in
the number of swapped elements), so a cascade of 1,000 cells must not be 1,000 swaps."""


# -- home and new games -----------------------------------------------------------------


@bp.get("/")
def home() -> ResponseReturnValue:
    return render_home(DEFAULT_FORM)


def render_home(form: dict[str, object], error: str | None = None, code: int = 200) -> Response:
    return make_response(
        render_template(
            "home.html",
            form=form,
            form_error=error,
            presets=presets(),
            topologies=TOPOLOGIES,
            graph_tilings=GRAPH_TILINGS,
            limits={
                "graph_cells": GRAPH_GAME_MAX_CELLS,
                "max_side": BROWSER_MAX_SIDE,
                "api_max_side": API_MAX_SIDE,
                "no_guess_cells": NO_GUESS_CELL_LIMIT,
            },
            recent=[recent_view(row) for row in recent_games(10)],
        ),
        code,
    )


@bp.post("/new")
@limit_creates
@body_limit(NEW_GAME_FORM_MAX)
def new_game() -> ResponseReturnValue:
    try:
        params = params_from_form(request.form)
    except InputError as exc:
        return render_home(form_fields(request.form), str(exc), 400)
    created = get_service().create(params, owner=ensure_owner())
    return redirect(url_for("play.game", game_id=created.id), 303)


# -- the game page and its moves ----------------------------------------------------------


@bp.get("/g/<game_id>")
def game(game_id: str) -> ResponseReturnValue:
    service = get_service()
    params = service.params(service.record(game_id))
    if not drawable(params):  # API-only: a summary, no board, no replay of the log
        if is_htmx() and request.args.get("since") is not None:
            return Response(status=204)
        return big_game_page(game_id, params)
    loaded = service.load(game_id)
    mover = can_move(loaded.record)
    if is_htmx() and request.args.get("since") is not None:
        return watch_update(loaded, mover, request.args["since"])
    gv = game_view(loaded, mover)
    template = "_game.html" if is_htmx() else "game.html"
    return render_template(template, gv=gv, game_id=loaded.id, oob=False)


@bp.post("/g/<game_id>/move")
@limit_moves
def move(game_id: str) -> ResponseReturnValue:
    """Hop 1 of a click: parse it (once), then hop 2, ``GameService.play``."""
    service = get_service()
    record = service.record(game_id)
    if not can_move(record):
        raise Forbidden("You are watching this game: only the browser that started it can play.")
    refuse_page_move(service.params(record))
    click = click_from_form(request.form, service.params(record))
    before, after = service.play(game_id, click)
    if not is_htmx():
        return redirect(url_for("play.game", game_id=game_id), 303)
    return move_response(before.game, after, True, move_message(before.game, after.game))


def watch_update(loaded: LoadedGame, mover: bool, since_text: str) -> ResponseReturnValue:
    """What changed since move ``since`` (a watcher's poll): OOB swaps, or 204."""
    try:
        since = integer_text(since_text, "since")
    except InputError:
        raise InputError("since", f"since must be a move number, not {shown(since_text)}") from None
    if not 0 <= since <= loaded.moves:
        raise InputError("since", f"since {since} is outside 0..{loaded.moves}")
    if since == loaded.moves:
        return Response(status=204)
    before = get_service().replay(loaded.id, since)
    message = summary(loaded.game.position, loaded.status.value, loaded.moves)
    return move_response(before, loaded, mover, message)


def move_response(
    before: Game, after: LoadedGame, mover: bool, message: str
) -> ResponseReturnValue:
    """Only what changed: the changed cells (or rows), the status bar and the hint panel; the
    whole game once it ends."""
    gv = game_view(after, mover)
    if request.headers.get(CORNERS_KEPT) == "kept":  # the page has the solid's corners
        gv = replace(gv, corners=False)
    # a graph board is one SVG: a click answers with the whole game (SVG elements do not
    # survive htmx's out-of-band parsing one by one)
    whole = before.status is not after.game.status or after.game.params.graph is not None
    changed: list[CellView] = []
    rows: list[RowView] = []
    if not whole:
        position = after.game.position
        cells = with_numbers_beside(position, changed_between(before.position, position))
        changed = changed_views(position, cells)
        if len(changed) > CELL_SWAP_LIMIT:
            changed, rows = [], changed_rows(position, cells)
    response = make_response(render_template(
        "_move.html", gv=gv, game_id=after.id, changed=changed, rows=rows, whole=whole,
        message=message,
    ))  # fmt: skip
    response.vary.add(CORNERS_KEPT)  # a watcher's poll is a GET
    return response


# -- replay -------------------------------------------------------------------------------


@bp.get("/g/<game_id>/replay/<n>")
def replay(game_id: str, n: str) -> ResponseReturnValue:
    """``n`` is any path text, so a negative or non-numeric move gets this site's error page."""
    big = api_only(game_id)
    if big is not None:
        return big
    loaded = get_service().load(game_id)
    return show_replay(loaded, move_number(n))


@bp.get("/g/<game_id>/replay")
def replay_query(game_id: str) -> ResponseReturnValue:
    text = request.args.get("n", "").strip()
    big = api_only(game_id)
    if big is not None:
        return big
    loaded = get_service().load(game_id)
    n = move_number(text) if text else loaded.moves  # no n: the latest move
    check_move_number(n, loaded.moves)  # before redirecting: never to a page that 404s
    if not is_htmx():
        return redirect(url_for("play.replay", game_id=game_id, n=n), 303)
    return show_replay(loaded, n)


def show_replay(loaded: LoadedGame, n: int) -> ResponseReturnValue:
    kept = is_htmx() and request.headers.get(CORNERS_KEPT) == "kept"  # the page has them
    rv = replay_view(get_service(), loaded, n, corners=not kept)
    note = replay_note(loaded.id, n)  # the move's annotation, once the game has ended
    if is_htmx():
        response = make_response(render_template("_replay_view.html", rv=rv, note=note))
        response.vary.add(CORNERS_KEPT)
        if "/replay" in urlsplit(request.headers.get("HX-Current-URL", "")).path:
            # on the replay page the address follows the slider (reload and share stay there);
            # the game page's replay panel leaves the game's address alone
            response.headers["HX-Replace-Url"] = url_for("play.replay", game_id=loaded.id, n=n)
        return response
    gv = game_view(loaded, can_move(loaded.record), panels=False)
    return render_template("replay.html", gv=gv, rv=rv, note=note, game_id=loaded.id)


def api_only(game_id: str) -> ResponseReturnValue | None:
    """The summary page when the game is too big for pages (None: draw it)."""
    service = get_service()
    params = service.params(service.record(game_id))
    return None if drawable(params) else big_game_page(game_id, params)
