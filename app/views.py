"""HTML pages: home, game, moves (htmx), replay.

Routes (blueprint ``views``)::

    GET  /                          home: new-game form, this browser's recent games
    POST /new                       create a game from the form, 303 to its page
    GET  /g/<id>                    the game page; with HX-Request the ``#game`` fragment;
                                    with HX-Request and ``?since=N`` only what changed after
                                    move N (out-of-band swaps, 204 when nothing did)
    POST /g/<id>/move               a click: ``kind`` (open/reveal/flag/unflag/chord) and
                                    ``at=row,col`` (zero-based). htmx gets the changed cells
                                    and the status bar as out-of-band swaps; a plain form
                                    post gets a 303 back to the game page.
    GET  /g/<id>/replay/<n>         the board after move n (full page, or its fragment)
    GET  /g/<id>/replay?n=N         the same, for the replay slider's form (no n: the latest)

Every response that can be either a page or a fragment says ``Vary: HX-Request``.
While a game runs, everything rendered comes from the visible position only
(``app.render`` never sees the layout before ``Ending`` is built for a finished game).
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import Forbidden, HTTPException

from app import games, render
from app.games import (
    API_MAX_SIDE,
    BROWSER_MAX_SIDE,
    PRESETS,
    InputError,
    LoadedGame,
    UnknownGame,
    UnknownMove,
)
from app.security import can_move, ensure_owner, limit_creates, limit_moves, recent_games
from app.store import GameRow
from devil.errors import GameOver, IllegalMove
from devil.game import NO_GUESS_CELL_LIMIT, Game, GameParams, Move, MoveKind, Status

bp = Blueprint("views", __name__)

HTMX_CONFIG: dict[str, Any] = {
    "includeIndicatorStyles": False,  # htmx would inject a <style>: blocked by our CSP
    "allowEval": False,
    "allowScriptTags": False,
    "allowNestedOobSwaps": False,
    "historyCacheSize": 0,
    "refreshOnHistoryMiss": True,
    "defaultFocusScroll": False,
    "defaultSettleDelay": 0,  # no attribute "settling": a swapped cell shows its new state at once
    # settling copies old attributes onto swapped elements; a "style" one (the board's --cols,
    # set by game.js) would be an inline style our CSP blocks (a console error at every game end)
    "attributesToSettle": ["class", "width", "height"],
    # 4xx answers carry a message (out-of-band) for the player: swap them too.
    "responseHandling": [
        {"code": "204", "swap": False},
        {"code": "[23]..", "swap": True},
        {"code": "4..", "swap": True, "error": False},
        {"code": "...", "swap": False, "error": True},
    ],
}

KINDS = {"open": "click", "click": "click", "reveal": "reveal", "chord": "chord",
         "flag": "flag", "unflag": "unflag"}  # fmt: skip
"""Form ``kind`` -> service action. ``open`` (a left click) reveals or chords."""

TOPOLOGIES = (
    ("square", "Square", "8 neighbours"),
    ("torus", "Torus", "the edges wrap around"),
    ("hex", "Hexagons", "6 neighbours"),
    ("holes", "Square with holes", "gaps in the board"),
)

PRESET_TITLES = {"beginner": "Beginner", "intermediate": "Intermediate", "expert": "Expert"}


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    width: int
    height: int
    mines: int


def presets() -> list[Preset]:
    out = [Preset(n, PRESET_TITLES[n], w, h, m) for n, (h, w, m) in PRESETS.items()]
    return [*out, Preset("custom", "Custom", 0, 0, 0)]


# -- request helpers --------------------------------------------------------------------


def is_htmx() -> bool:
    return request.headers.get("HX-Request") == "true"


@bp.record_once
def register_template_helpers(state: Any) -> None:
    """Cell writers for the templates (``_cell.html``, ``_move.html``)."""
    state.app.jinja_env.globals.update(
        row_html=render.row_html,
        oob_cells_html=render.oob_cells_html,
        oob_rows_html=render.oob_rows_html,
    )


GZIP_MIN_BYTES = 16 * 1024
"""HTML answers larger than this are gzipped for clients that accept it (a 200x200 board's
page is ~6 MB of very repetitive markup and compresses ~30x)."""


@bp.after_request
def vary_on_htmx(response: Response) -> Response:
    response.vary.add("HX-Request")
    return compress(response)


def compress(response: Response) -> Response:
    if (
        response.direct_passthrough
        or response.status_code != 200
        or response.mimetype != "text/html"
        or "Content-Encoding" in response.headers
        or "gzip" not in request.headers.get("Accept-Encoding", "").lower()
    ):
        return response
    body = response.get_data()
    if len(body) < GZIP_MIN_BYTES:
        return response
    response.set_data(gzip.compress(body, compresslevel=5))
    response.headers["Content-Encoding"] = "gzip"
    response.vary.add("Accept-Encoding")
    return response


@bp.app_context_processor
def layout_globals() -> dict[str, Any]:
    """What ``base.html`` needs on every page (ours and the teaching blueprint's)."""
    nav = [
        (label, endpoint)
        for label, endpoint in (
            ("Analyse a position", "teach.analyse"),
            ("Puzzles", "teach.puzzle"),
        )
        if endpoint in current_app.view_functions
    ]
    return {"htmx_config": HTMX_CONFIG, "extra_nav": nav}


# -- home and new games -----------------------------------------------------------------


DEFAULT_FORM: dict[str, Any] = {
    "preset": "beginner", "width": 9, "height": 9, "mines": 10, "topology": "square",
    "count": "classic", "mercy": "strict", "no_guess": True, "seed": "",
}  # fmt: skip


@bp.get("/")
def home() -> ResponseReturnValue:
    return render_home(DEFAULT_FORM)


def render_home(form: Mapping[str, Any], error: str | None = None, code: int = 200) -> Response:
    response = make_response(
        render_template(
            "home.html",
            form=form,
            form_error=error,
            presets=presets(),
            topologies=TOPOLOGIES,
            limits={
                "max_side": BROWSER_MAX_SIDE,
                "api_max_side": API_MAX_SIDE,
                "no_guess_cells": NO_GUESS_CELL_LIMIT,
            },
            recent=[recent_view(row) for row in recent_games(10)],
        ),
        code,
    )
    return response


@dataclass(frozen=True)
class RecentView:
    id: str
    title: str
    status: str
    detail: str


def recent_view(row: GameRow) -> RecentView:
    params = GameParams.from_dict(dict(row.params))
    when = row.created_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    detail = f"{render.plural(row.moves, 'move')} · {when}"
    return RecentView(row.id, game_title(params), row.status, detail)


def hole_pattern(height: int, width: int) -> list[list[int]]:
    """The holes of a "square with holes" board: 2x2 gaps spread evenly (about one per 7x7)."""

    def starts(length: int) -> list[int]:
        if length < 5:
            return []
        blocks = max(1, (length + 1) // 7)
        spacing = length / blocks
        return [int(spacing * i + spacing / 2) - 1 for i in range(blocks)]

    return [
        [r + dr, c + dc]
        for r in starts(height)
        for c in starts(width)
        for dr in (0, 1)
        for dc in (0, 1)
    ]


def form_fields(form: Mapping[str, str]) -> dict[str, Any]:
    """The new-game form as the echo shown back on an error (strings as typed)."""
    return {
        "preset": form.get("preset", "custom"),
        "width": form.get("width", ""),
        "height": form.get("height", ""),
        "mines": form.get("mines", ""),
        "topology": form.get("topology", "square"),
        "count": form.get("count", "classic"),
        "mercy": form.get("mercy", "strict"),
        "no_guess": form.get("no_guess") == "on",
        "seed": form.get("seed", ""),
    }


def params_from_form(form: Mapping[str, str]) -> GameParams:
    """Game parameters from the new-game form (raises InputError naming the field)."""
    data: dict[str, Any] = {
        "count": form.get("count", "classic"),
        "mercy": form.get("mercy", "strict"),
        "no_guess": "on" if form.get("no_guess") == "on" else "off",
        "seed": form.get("seed", ""),
    }
    preset = (form.get("preset") or "custom").strip().lower()
    if preset == "custom":
        for key in ("width", "height", "mines"):
            data[key] = form.get(key, "")
        for key in ("width", "height"):
            if not str(data[key]).strip():
                raise InputError(key, f"{key} is missing: give a size for a custom board")
    elif preset in PRESETS:
        data["preset"] = preset
    else:
        choices = ", ".join(PRESETS)
        raise InputError("preset", f"preset must be one of {choices} or custom, not {preset!r}")
    topology = (form.get("topology") or "square").strip().lower()
    if topology == "holes":
        plain = games.parse_params({**data, "topology": "square"}, max_side=BROWSER_MAX_SIDE)
        data["topology"] = "square"
        data["holes"] = hole_pattern(plain.height, plain.width)
        data["seed"] = plain.seed
    else:
        data["topology"] = topology
    return games.parse_params(data, max_side=BROWSER_MAX_SIDE)


@bp.post("/new")
@limit_creates
def new_game() -> ResponseReturnValue:
    try:
        params = params_from_form(request.form)
    except InputError as exc:
        return render_home(form_fields(request.form), str(exc), 400)
    created = games.create_game(params, owner=ensure_owner())
    return redirect(url_for("views.game", game_id=created.id), 303)


def again_fields(params: GameParams) -> tuple[tuple[str, str], ...]:
    """Hidden fields of a "play again" form: the same settings, a new seed."""
    preset = next(
        (n for n, hwm in PRESETS.items() if hwm == (params.height, params.width, params.mines)),
        "custom",
    )
    fields = [("preset", preset)]
    if preset == "custom":
        fields += [("width", str(params.width)), ("height", str(params.height)),
                   ("mines", str(params.mines))]  # fmt: skip
    topology = "holes" if params.holes else params.topology.value
    fields += [
        ("topology", topology),
        ("count", params.rules.count.value),
        ("mercy", params.rules.mercy.value),
    ]
    if params.no_guess:
        fields.append(("no_guess", "on"))
    return tuple(fields)


# -- the game page ----------------------------------------------------------------------


def game_title(params: GameParams) -> str:
    name = next(
        (PRESET_TITLES[n] for n, hwm in PRESETS.items()
         if hwm == (params.height, params.width, params.mines)),
        "Custom",
    )  # fmt: skip
    shape = {"square": "", "torus": " torus", "hex": " hex"}[params.topology.value]
    if params.holes:
        shape += " with holes"
    return f"{name} {params.width}\u00d7{params.height}{shape}, {params.mines} mines"


def ending_of(game: Game, show_loss: bool = True) -> render.Ending | None:
    """What may be shown of the layouts: only for an ended game."""
    if game.status is Status.PLAYING or game.layout is None:
        return None
    return render.Ending(
        won=game.status is Status.WON,
        layout=game.layout,
        witness=game.witness if game.status is Status.LOST else None,
        loss=game.loss if show_loss else None,
    )


def _timestamp(value: datetime | None) -> float | None:
    return value.timestamp() if value is not None else None


def game_view(loaded: LoadedGame, mover: bool) -> render.GameView:
    game = loaded.game
    params = game.params
    position = game.position
    playing = game.status is Status.PLAYING
    live = mover and playing
    bar = render.StatusView(
        mines_left=game.mines_left,
        moves=loaded.moves,
        rules=render.rules_text(params.rules.count.value, params.rules.mercy.value, game.no_guess),
        status=game.status.value,
        started_at=_timestamp(loaded.started_at),
        ended_at=None if playing else _timestamp(loaded.last_move_at),
    )
    loss_where = ""
    if game.loss is not None:
        loss_where = render.where(*position.board.coord(game.loss))
    watch_url = live_url = None
    if playing and not mover:
        watch_url = url_for("views.game", game_id=loaded.id, since=loaded.moves)
        if "live.events" in current_app.view_functions:
            live_url = url_for("live.events", game_id=loaded.id)
    return render.GameView(
        id=loaded.id,
        title=game_title(params),
        status=game.status.value,
        can_move=live,
        owner=mover,
        position=position,
        ending=ending_of(game),
        bar=bar,
        moves=loaded.moves,
        mercy=params.rules.mercy.value,
        loss_where=loss_where,
        witness_mines=len(game.witness or ()),
        again=again_fields(params) if mover else (),
        watch_url=watch_url,
        live_url=live_url,
    )


def _is_mover(loaded: LoadedGame) -> bool:
    return can_move(loaded.record)


@bp.get("/g/<game_id>")
def game(game_id: str) -> ResponseReturnValue:
    loaded = games.load_game(game_id)
    mover = _is_mover(loaded)
    if is_htmx() and request.args.get("since") is not None:
        return watch_update(loaded, mover, request.args["since"])
    gv = game_view(loaded, mover)
    if is_htmx():
        return render_template("_game.html", gv=gv, game_id=loaded.id, oob=False)
    return render_template("game.html", gv=gv, game_id=loaded.id, oob=False)


def watch_update(loaded: LoadedGame, mover: bool, since_text: str) -> ResponseReturnValue:
    """What changed since move ``since`` (a watcher's poll): OOB swaps, or 204."""
    try:
        since = int(since_text)
    except ValueError:
        raise InputError("since", f"since must be a move number, not {since_text!r}") from None
    if not 0 <= since <= loaded.moves:
        raise InputError("since", f"since {since} is outside 0..{loaded.moves}")
    if since == loaded.moves:
        return Response(status=204)
    before = games.replay_game(loaded.id, since)
    return move_response(
        before,
        loaded,
        mover,
        message=render.summary(loaded.game.position, loaded.status.value, loaded.moves),
    )


CELL_SWAP_LIMIT = 48
"""Up to this many changed cells, a click answers cell by cell; beyond it, with the changed
rows whole. htmx fires one event per earlier swap for every out-of-band swap (quadratic in
the number of swapped elements), so a cascade of 1,000 cells must not be 1,000 swaps."""


def move_response(
    before: Game, after: LoadedGame, mover: bool, message: str, toast: str | None = None
) -> ResponseReturnValue:
    """Only what changed: the changed cells (or rows) and the status bar; the whole game once
    it ends."""
    gv = game_view(after, mover)
    whole = before.status is not after.game.status
    changed: list[render.CellView] = []
    rows: list[render.RowView] = []
    if not whole:
        position = after.game.position
        cells = render.changed_cells(before.position, position)
        changed = render.changed_views(position, cells)
        if len(changed) > CELL_SWAP_LIMIT:
            changed, rows = [], render.changed_rows(position, cells)
    return render_template(
        "_move.html", gv=gv, game_id=after.id, changed=changed, rows=rows, whole=whole,
        message=message, toast=toast,
    )  # fmt: skip


def parse_at(form: Mapping[str, str]) -> tuple[str, str]:
    """``at=row,col`` (what a cell button sends) or separate ``row``/``col`` fields."""
    at = form.get("at")
    if at is not None and at.strip():
        row, sep, col = at.partition(",")
        if not sep:
            raise InputError("at", f"at must be 'row,col', not {at!r}")
        return row, col
    return form.get("row", ""), form.get("col", "")


def move_message(before: Game, after: Game, kind: str) -> str:
    """The live-region sentence after a move by the player."""
    last = after.moves[-1] if after.moves else None
    if after.status is Status.WON:
        return f"You won in {render.plural(len(after.moves), 'move')}."
    if after.status is Status.LOST:
        assert after.loss is not None
        cell = render.where(*after.position.board.coord(after.loss))
        return f"Boom: {cell} could be a mine, so the devil put one there. You lost."
    if last is None:
        return ""
    cell = render.where(last.row, last.col)
    if last.kind is MoveKind.FLAG:
        return f"Flagged {cell}. {render.plural(after.mines_left, 'mine')} left."
    if last.kind is MoveKind.UNFLAG:
        return f"Removed the flag on {cell}. {render.plural(after.mines_left, 'mine')} left."
    opened = after.revealed_count - before.revealed_count
    noun = "cell" if opened == 1 else "cells"
    if opened == 1:
        number = after.position.number(after.position.board.cell(last.row, last.col))
        if last.kind is MoveKind.REVEAL and number is not None:
            return f"{cell}: {number}."
    return f"Opened {opened} {noun}."


@bp.post("/g/<game_id>/move")
@limit_moves
def move(game_id: str) -> ResponseReturnValue:
    record = games.game_record(game_id)
    if not can_move(record):
        raise Forbidden("You are watching this game: only the browser that started it can play.")
    kind = (request.form.get("kind") or "open").strip().lower()
    if kind not in KINDS:
        raise InputError("kind", f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    row, col = parse_at(request.form)
    before, after = games.play(game_id, KINDS[kind], row, col)
    if not is_htmx():
        return redirect(url_for("views.game", game_id=game_id), 303)
    message = move_message(before.game, after.game, kind)
    return move_response(before.game, after, True, message)


# -- replay -----------------------------------------------------------------------------


def move_text(move: Move) -> str:
    verb = {MoveKind.REVEAL: "open", MoveKind.FLAG: "flag", MoveKind.UNFLAG: "unflag",
            MoveKind.CHORD: "chord"}[move.kind]  # fmt: skip
    return f"{verb} {render.where(move.row, move.col)}"


def move_number(text: str) -> int:
    """The replay's ``n`` as an integer (400 naming the text when it is not one)."""
    try:
        return int(text.strip())
    except ValueError:
        raise InputError("n", f"n must be a move number, not {text!r}") from None


def check_move_number(n: int, total: int) -> None:
    """404 for a move the game's log does not have."""
    if not 0 <= n <= total:
        raise UnknownMove(f"move {n} does not exist: this game has {render.plural(total, 'move')}")


def replay_view(loaded: LoadedGame, n: int) -> render.ReplayView:
    total = loaded.moves
    check_move_number(n, total)
    game = loaded.game if n == total else games.replay_game(loaded.id, n)
    ending = ending_of(loaded.game, show_loss=n == total)
    board = render.board_view(game.position, interactive=False, ending=ending)
    if n == 0:
        caption = "Before the first move."
    else:
        caption = f"Move {n} of {total}: {move_text(loaded.game.moves[n - 1])}."
    if n == total and loaded.game.status is not Status.PLAYING:
        caption += f" The game was {loaded.game.status.value}."
    label = f"The board after move {n} of {total}"
    return render.ReplayView(loaded.id, n, total, board, caption, label)


@bp.get("/g/<game_id>/replay/<n>")
def replay(game_id: str, n: str) -> ResponseReturnValue:
    """``n`` is any path text, so a negative or non-numeric move gets this site's error page."""
    loaded = games.load_game(game_id)
    return show_replay(loaded, move_number(n))


def show_replay(loaded: LoadedGame, n: int) -> ResponseReturnValue:
    rv = replay_view(loaded, n)
    if is_htmx():
        return render_template("_replay_view.html", rv=rv)
    gv = game_view(loaded, _is_mover(loaded))
    return render_template("replay.html", gv=gv, rv=rv, game_id=loaded.id)


@bp.get("/g/<game_id>/replay")
def replay_query(game_id: str) -> ResponseReturnValue:
    text = request.args.get("n", "").strip()
    loaded = games.load_game(game_id)
    n = move_number(text) if text else loaded.moves  # no n: the latest move
    check_move_number(n, loaded.moves)  # before redirecting: never to a page that 404s
    if not is_htmx():
        return redirect(url_for("views.replay", game_id=game_id, n=n), 303)
    return show_replay(loaded, n)


# -- errors -----------------------------------------------------------------------------


TITLES = {400: "That did not work", 403: "Watching only", 404: "No such game",
          409: "Not now", 429: "Slow down"}  # fmt: skip


def error_response(code: int, message: str, title: str | None = None) -> ResponseReturnValue:
    """An HTML error: a toast for htmx requests, a page otherwise."""
    if is_htmx():
        body = render_template("_toast.html", message=message)
        return body, code
    title = title or TITLES.get(code, "Something went wrong")
    return render_template("error.html", code=code, title=title, message=message), code


@bp.errorhandler(InputError)
def bad_input(exc: InputError) -> ResponseReturnValue:
    return error_response(400, str(exc))


@bp.errorhandler(UnknownGame)
def unknown_game(exc: UnknownGame) -> ResponseReturnValue:
    return error_response(404, f"There is no game with the id {exc.game_id} here.")


@bp.errorhandler(UnknownMove)
def unknown_move(exc: UnknownMove) -> ResponseReturnValue:
    return error_response(404, str(exc), title="No such move")


@bp.errorhandler(IllegalMove)
def illegal_move(exc: IllegalMove) -> ResponseReturnValue:
    if isinstance(exc, GameOver):
        return error_response(409, "This game is over: start a new one or watch its replay.")
    return error_response(409, friendly(str(exc)))


@bp.errorhandler(HTTPException)
def http_error(exc: HTTPException) -> ResponseReturnValue:
    code = exc.code or 500
    if code >= 500:
        return exc
    message = exc.description or exc.name
    if code == 400 and "CSRF" in message:
        message = "Your page is out of date (its security token expired): reload it and try again."
    if code == 429:
        message = "Too many clicks too fast: wait a moment."
    return error_response(code, message)


_ENGINE_WHERE = re.compile(r"row (\d+), col (\d+)")


def friendly(engine_message: str) -> str:
    """Engine messages start with the move ("reveal 3 4: ...") and count from 0: keep the
    explanation, with the one-based cell names the page uses."""
    head, sep, tail = engine_message.partition(": ")
    if sep and head.split(" ")[0] in {k.value for k in MoveKind}:
        engine_message = tail[:1].upper() + tail[1:] + "."
    return _ENGINE_WHERE.sub(
        lambda m: render.where(int(m.group(1)), int(m.group(2))), engine_message
    )
