"""The teaching pages (blueprint ``teach``): each route parses its request, asks the teaching
modules, and renders.

Routes::

    POST /g/<id>/hint        climb one rung of the hint ladder (owner only, game running);
                             each new rung is logged in the game's record (``record_hint``)
    GET  /g/<id>/hints       the hint panel as it stands (a move's answer carries it too)
    GET  /analyse            the analysis board: ``p`` a position in the one-line form,
                             ``count`` classic|counted, ``cell`` r,c (zero-based) selected,
                             ``step`` a deduction step to show, ``draw`` 1 for drawing mode,
                             ``toggle`` r,c cycles a cell (drawing; 303 to the new ``p``),
                             ``new`` HxW for an empty board to draw on
    POST /analyse            pasted text in any format ``devil-check`` reads -> 303 to GET
    POST /analyse/settings   change topology, total mines or count rule -> 303 to GET
    GET  /analyse/export.txt the position as native text; ``export.svg`` as a picture
    GET  /puzzle             a generated mid-game position: find a safe cell
                             (``preset``, ``level``, ``count``, ``seed``; ``answer`` r,c)
    POST /levels/new         a no-guess game whose level is the one asked for

Rate limits: hints and the analysis page share the moves' bucket (``limit_moves``); puzzles and
boards by level, which generate boards, share the new games' bucket (``limit_creates``).
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping

from flask import (
    Blueprint,
    Response,
    flash,
    get_flashed_messages,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import Forbidden

from app.errors import InputError, is_htmx, respond
from app.heavy import off_loop, run_heavy
from app.hooks import body_limit
from app.play.loaded import LoadedGame
from app.play.setup import get_service
from app.security import can_move, ensure_owner, limit_creates, limit_moves
from app.settings import settings
from app.teach.analysis import (
    DEFAULT_POSITION,
    MAX_STEPS,
    Analysis,
    Facts,
    PasteForm,
    analysis_facts,
    analysis_of,
    cycled,
)
from app.teach.export import picture_verdicts
from app.teach.grid import grid_rows
from app.teach.hints import hint_facts, hint_view, ladder_top
from app.teach.level_boards import init_blueprint as init_level_notes
from app.teach.level_boards import remember_level
from app.teach.puzzles import (
    GENERATION_SECONDS,
    LEVEL_PRESETS,
    PuzzleView,
    find_puzzle,
    graded,
    level_params,
    parse_level_choice,
)
from app.teach.query import (
    ANALYSE_MAX_BODY,
    ANALYSE_MAX_CELLS,
    ANALYSE_MAX_TEXT,
    analyse_url,
    blank_board,
    check_size,
    line_arg,
    parse_cell_arg,
    parse_count,
    parse_int_arg,
    parse_line,
)
from app.teach.svg import position_svg
from devil.board import BoardError, Cell, Topology
from devil.formats import FORMATS, read
from devil.game import Status
from devil.position import Position, PositionError
from devil.rules import Count

bp = Blueprint("teach", __name__)
init_level_notes(bp)


# -- the hint ladder --------------------------------------------------------------------------


@bp.post("/g/<game_id>/hint")
@limit_moves
def hint(game_id: str) -> ResponseReturnValue:
    service = get_service()
    record = service.record(game_id)
    if not can_move(record):
        raise Forbidden("You are watching this game: only its player can ask for hints.")
    loaded = service.load(game_id)
    if loaded.game.status is not Status.PLAYING:
        return respond(409, "This game is over: hints are for running games.")
    rung = loaded.ladder
    top = 1 if rung == 0 else ladder_top(hint_facts(loaded))
    if rung < top:
        facts = hint_facts(loaded) if rung + 1 >= 3 else None
        row = col = None
        if facts is not None and facts.proof is not None:
            row, col = loaded.game.position.board.coord(facts.proof.cell)
        service.record_hint(game_id, rung + 1, row, col)
        loaded = service.load(game_id)
    if not is_htmx():
        return redirect(url_for("play.game", game_id=game_id), 303)
    return hints_fragment(loaded, True)


@bp.get("/g/<game_id>/hints")
def hints(game_id: str) -> ResponseReturnValue:
    loaded = get_service().load(game_id)
    return hints_fragment(loaded, can_move(loaded.record))


def hints_fragment(loaded: LoadedGame, mover: bool) -> ResponseReturnValue:
    hv = hint_view(loaded, mover)
    response = make_response(
        render_template("_hints.html", hv=hv, win=None, fragment=True, game_id=loaded.id)
    )
    response.vary.add("HX-Request")
    return response


# -- the analysis board -----------------------------------------------------------------------


@bp.get("/analyse")
@limit_moves
def analyse() -> ResponseReturnValue:
    args = request.args
    count = parse_count(args.get("count"))
    new = args.get("new")
    if new:
        return redirect(analyse_url(blank_board(new, args.get("mines")).line, count, draw=1), 303)
    position = line_arg(args, DEFAULT_POSITION)
    toggle = parse_cell_arg(position.board, args.get("toggle"), "toggle")
    if toggle is not None:
        return redirect(analyse_url(cycled(position, toggle).line, count, draw=1), 303)
    selected = parse_cell_arg(position.board, args.get("cell"))
    step = parse_int_arg(args.get("step"), "step", 0, MAX_STEPS, 0)
    draw = args.get("draw") == "1"
    started = time.perf_counter()
    facts = facts_of(position, count, selected, draw)
    notes = get_flashed_messages(category_filter=[FORMAT_NOTE])
    paste = PasteForm(note=str(notes[-1]) if notes else "")

    def page() -> str:  # a 100x100 board is over 1 MB of HTML: not on the event loop
        return analyse_page(analysis_of(position, count, selected, step, draw, facts), paste)

    response = make_response(off_loop(page))
    response.headers["Server-Timing"] = f"analyse;dur={(time.perf_counter() - started) * 1000:.1f}"
    return response


FORMAT_NOTE = "format-note"
"""The flashed message category of the pasted text's format report (shown after the 303)."""


def facts_of(position: Position, count: Count, selected: Cell | None, draw: bool) -> Facts:
    """The engine's part of an analysis page: in a heavy-work child, within its budget."""
    seconds = settings().analyse_seconds
    return run_heavy(analysis_facts, (position, count, selected, draw, seconds), seconds)


def analyse_page(view: Analysis, paste: PasteForm) -> str:
    return render_template(
        "analyse.html",
        a=view,
        paste=paste,
        topologies=[t.value for t in Topology.grids()],
        formats=FORMATS,
        max_text=ANALYSE_MAX_TEXT,
    )


@bp.post("/analyse")
@body_limit(ANALYSE_MAX_BODY)
def analyse_paste() -> ResponseReturnValue:
    """A pasted position -> 303 to its analysis; bad input -> the analysis page again (400),
    the pasted text kept in the box and the error (naming line and column) next to it."""
    form = request.form
    try:
        return pasted_position(form)
    except InputError as exc:
        paste = PasteForm(
            form.get("text", ""),
            form.get("topology", ""),
            form.get("mines", ""),
            str(exc),
            fmt=form.get("format", ""),
        )
    try:  # the board and rule the player was looking at when they pasted
        count = parse_count(form.get("count"))
        position = line_arg(form, DEFAULT_POSITION)
        check_size(position)
    except InputError:
        count, position = Count.CLASSIC, parse_line(DEFAULT_POSITION)
    facts = facts_of(position, count, None, False)
    return analyse_page(analysis_of(position, count, None, 0, False, facts), paste), 400


def pasted_position(form: Mapping[str, str]) -> ResponseReturnValue:
    text = form.get("text", "")
    if not text.strip():
        raise InputError("text", "paste a position first: the text box is empty")
    if len(text) > ANALYSE_MAX_TEXT:
        raise InputError("text", f"the text is longer than {ANALYSE_MAX_TEXT} characters")
    topology = None
    if form.get("topology"):
        try:
            topology = Topology.parse(form["topology"])
        except ValueError as exc:
            raise InputError("topology", str(exc)) from None
    mines = None
    if form.get("mines", "").strip():
        mines = parse_int_arg(form["mines"].strip(), "mines", 0, ANALYSE_MAX_CELLS, 0)
    fmt = form.get("format", "").strip() or None
    if fmt is not None and fmt not in FORMATS:
        raise InputError("format", f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    try:
        reading = read(text, topology, mines, fmt)
    except (PositionError, BoardError) as exc:
        # the reader's hint names devil-check's flag; here the same choice is the Format menu
        reason = str(exc).replace("--input-format ", "Format: ")
        raise InputError("text", f"cannot read the position: {reason}") from None
    position = reading.position
    check_size(position)
    if reading.report.note:
        flash(reading.report.note[:1].upper() + reading.report.note[1:] + ".", FORMAT_NOTE)
    count = parse_count(form.get("count"))
    return redirect(analyse_url(position.line, count), 303)


@bp.post("/analyse/settings")
def analyse_settings() -> ResponseReturnValue:
    """Change topology, total mines or count rule of the position being analysed."""
    form = request.form
    position = line_arg(form)
    topology = position.board.topology
    if form.get("topology"):
        try:
            topology = Topology.parse(form["topology"])
        except ValueError as exc:
            raise InputError("topology", str(exc)) from None
    mines_text = form.get("mines", "").strip()
    mines = None if not mines_text else parse_int_arg(mines_text, "mines", 0, 10**6, 0)
    rebuilt = Position.from_rows(position.rows(), topology, mines)
    count = parse_count(form.get("count"))
    draw = "1" if form.get("draw") == "1" else None
    return redirect(analyse_url(rebuilt.line, count, draw=draw), 303)


@bp.get("/analyse/export.txt")
def export_text() -> ResponseReturnValue:
    position = line_arg(request.args)
    text = position.to_text()
    if parse_count(request.args.get("count")) is Count.COUNTED and position.mines is not None:
        # the rule the page used travels with the file (a comment: the format has no such header)
        text = "# analysed under the counted rule: devil-check --counted reads it so\n" + text
    response = Response(text, mimetype="text/plain")
    response.headers["Content-Disposition"] = 'attachment; filename="position.txt"'
    return response


@bp.get("/analyse/export.svg")
@limit_creates
def export_svg() -> ResponseReturnValue:
    """The position as a picture: at most ``SVG_MAX_CELLS`` cells, verdicts within a budget,
    rate-limited like new games (each export is engine work)."""
    position = line_arg(request.args)
    count = parse_count(request.args.get("count"))
    verdicts = picture_verdicts(position, count)
    response = Response(position_svg(position, verdicts), mimetype="image/svg+xml")
    response.headers["Content-Disposition"] = 'attachment; filename="position.svg"'
    return response


# -- puzzles and boards by level --------------------------------------------------------------


@bp.get("/puzzle")
@limit_creates
def puzzle() -> ResponseReturnValue:
    args = request.args
    preset, count, level = parse_level_choice(args)
    if not args.get("seed"):
        seed = random.SystemRandom().randrange(1_000_000)
        return redirect(
            url_for("teach.puzzle", preset=preset, level=level, count=count.value, seed=seed), 303
        )
    seed = parse_int_arg(args.get("seed"), "seed", 0, 2**31 - 1, 0)
    found = find_puzzle(preset, level, count, seed)
    if found is None:
        view = PuzzleView(
            preset,
            level,
            count.value,
            seed,
            None,
            message=(
                f"No level {level} puzzle turned up for seed {seed} on {preset}: try another seed."
            ),
        )
        return render_template("puzzle.html", pz=view, presets=LEVEL_PRESETS), 200
    position = found.position
    answer = parse_cell_arg(position.board, args.get("answer"), "answer")

    def href_of(cell: Cell) -> str | None:
        if not position.is_covered(cell) or position.is_flagged(cell):
            return None
        r, c = position.board.coord(cell)
        return url_for(
            "teach.puzzle",
            preset=preset,
            level=level,
            count=count.value,
            seed=seed,
            answer=f"{r},{c}",
        )

    def classes_of(cell: Cell) -> str:
        return "selected" if cell == answer else ""

    rows, board_classes = grid_rows(position, classes_of, href_of, lambda c: "", "a-")
    view = PuzzleView(preset, level, count.value, seed, position, rows, board_classes)
    if answer is not None:
        view = graded(view, position, count, answer, found.known_mines, found.level)
    return render_template("puzzle.html", pz=view, presets=LEVEL_PRESETS)


@bp.post("/levels/new")
@limit_creates
def level_game() -> ResponseReturnValue:
    """A no-guess game of the preset whose board needs exactly the chosen level."""
    preset, count, level = parse_level_choice(request.form)
    params = run_heavy(level_params, (preset, level, count), GENERATION_SECONDS)
    if params is None:
        return respond(
            503,
            f"No {preset} board of level {level} turned up in {GENERATION_SECONDS:.0f} seconds "
            "(level 3 is rare on small boards): try again or pick another level.",
        )
    created = get_service().create(params, owner=ensure_owner())
    remember_level(created.id, level, params.height // 2, params.width // 2)
    return redirect(url_for("play.game", game_id=created.id), 303)
