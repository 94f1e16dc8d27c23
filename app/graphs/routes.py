"""The analysis board for graph boards (blueprint ``graphs``).

Routes::

    GET  /analyse/graph          a built-in tiling: ``tiling``, ``preset`` (beginner ...),
                                 ``size`` ("16x30", "480"), ``sides`` 1 (neighbours share a
                                 side), ``seed`` (a mid-game position; none: blank),
                                 ``count`` classic|counted, ``cell`` an id to explain,
                                 ``step`` a deduction step to show (0: none), ``view``
                                 solid|flat (a solid's cells: turnable projection or net)
    POST /analyse/graph          a pasted or uploaded graph-board file (``graph`` / ``file``),
                                 ``count``, ``cell``, ``step``, ``view``: the same page; a bad
                                 file is a 400 page naming the JSON path
                                 (``edges[12]: unknown id 'x9'``)
    POST /analyse/graph/export   the board as a file: ``kind`` json (the graph file), svg or
                                 png (at most ``MAX_PNG_CELLS`` cells: more is a 400)

Every page's engine work runs within ``GRAPH_SECONDS`` in a heavy-work child; a pasted
board has at most ``WEB_MAX_CELLS`` cells (the file format allows more: ``devil-check``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from flask import Blueprint, Response, render_template, request
from flask.typing import ResponseReturnValue
from markupsafe import Markup

from app.errors import InputError
from app.fields import size_parts
from app.graphs.drawing import board_svg, solid_controls
from app.graphs.facts import MAX_STEPS, GraphFacts, graph_facts
from app.graphs.png import COLOURS, TooBigForPng, check_png_size, graph_png
from app.graphs.projection import is_solid
from app.graphs.stepper import StepView, step_view
from app.heavy import off_loop, run_heavy
from app.hooks import body_limit
from app.security import limit_moves
from app.settings import settings
from devil.analysis import Verdict
from devil.board import Cell
from devil.errors import InconsistentPosition
from devil.game.graph_params import GraphSpec
from devil.graphs.fileformat import GraphFileError, read_graph, write_graph
from devil.graphs.positions import blank, midgame
from devil.graphs.tilings import TILINGS, tiling, tiling_board
from devil.position import Position
from devil.rules import Count

bp = Blueprint("graphs", __name__)

WEB_MAX_CELLS = 5_000
"""Most cells of a board analysed on the web."""
WEB_MAX_EDGES = 10 * WEB_MAX_CELLS
"""Most pairs of a pasted board (the tilings have at most 6 a cell; 130,000 pairs fit in
``WEB_MAX_TEXT``, seconds of drawing)."""
WEB_MAX_TEXT = 2 * 1024 * 1024
"""Longest pasted or uploaded graph file."""


@dataclass(frozen=True)
class Request:
    """What the page was asked: the board's source and the question."""

    count: Count
    cell_id: str | None
    text: str = ""
    tiling: str = "penrose"
    preset: str = "beginner"
    size: str = ""
    sides: bool = False
    seed: int | None = 1
    step: int = 0
    view: str = ""
    """``solid`` or ``flat``; empty: solid when the board is a solid."""

    def view_of(self, position: Position) -> str:
        """The view the board is drawn in."""
        if self.view == "flat" or not is_solid(position):
            return "flat"
        return "solid"


def _count(args: Mapping[str, str]) -> Count:
    value = args.get("count", "classic")
    if value not in ("classic", "counted"):
        raise InputError("count", "count must be classic or counted")
    return Count(value)


def _step(args: Mapping[str, str]) -> int:
    """``to_step`` (a stepper button) before ``step`` (the page's hidden field)."""
    text = args.get("to_step", args.get("step", "")).strip()
    if not text:
        return 0
    if not (text.isascii() and text.isdigit() and int(text) <= MAX_STEPS):
        raise InputError("step", f"step must be a whole number from 0 to {MAX_STEPS}")
    return int(text)


def _view(args: Mapping[str, str]) -> str:
    """``to_view`` (the net / solid button) before ``view`` (the page's hidden field)."""
    value = args.get("to_view", args.get("view", ""))
    if value not in ("", "solid", "flat"):
        raise InputError("view", "view must be solid or flat")
    return value


def _cell_id(args: Mapping[str, str]) -> str | None:
    """The chosen cell's id as sent (an id may start or end with spaces: ``_selected``
    matches it exactly first); None when the field is empty."""
    return args.get("cell") or None


def _tiling_request(args: Mapping[str, str]) -> Request:
    name = args.get("tiling", "penrose")
    if name not in TILINGS:
        raise InputError("tiling", f"unknown tiling {name!r}: one of {', '.join(TILINGS)}")
    preset = args.get("preset", "beginner")
    if preset not in ("beginner", "intermediate", "expert"):
        raise InputError("preset", "preset must be beginner, intermediate or expert")
    seed_text = args.get("seed", "1")
    if seed_text and not (seed_text.isascii() and seed_text.isdigit() and len(seed_text) < 10):
        raise InputError("seed", "seed must be a whole number")
    parts = size_parts(args.get("size", ""))
    if not all(p.isascii() and p.isdigit() and len(p) < 7 for p in parts):
        raise InputError("size", "size is whole numbers joined by x (16x30, 480)")
    size = "x".join(parts)
    return Request(
        _count(args),
        _cell_id(args),
        tiling=name,
        preset=preset,
        size=size,
        sides=args.get("sides") == "1",
        seed=int(seed_text) if seed_text else None,
        step=_step(args),
        view=_view(args),
    )


def _tiling_position(req: Request) -> Position:
    spec = tiling(req.tiling)
    preset = spec.preset(req.preset)
    size = tuple(int(p) for p in req.size.split("x")) if req.size else preset.size
    try:
        # refused on the estimate before seconds of building (it can be twice the count:
        # a thin 4.8.8 strip), as a game's board is (``GraphSpec``)
        board = tiling_board(req.tiling, size, req.sides, 2 * WEB_MAX_CELLS)
    except ValueError as exc:
        raise InputError("size", str(exc)) from None
    if board.cell_count > WEB_MAX_CELLS:
        raise InputError("size", f"at most {WEB_MAX_CELLS:,} cells on the web")
    mines = preset.mines(board.cell_count)
    return blank(board, mines) if req.seed is None else midgame(board, mines, req.seed)


def _pasted_position(text: str) -> Position:
    if len(text) > WEB_MAX_TEXT:
        raise InputError("graph", f"the file is longer than {WEB_MAX_TEXT:,} characters")
    try:
        return read_graph(text, max_cells=WEB_MAX_CELLS, max_edges=WEB_MAX_EDGES)
    except GraphFileError as exc:
        raise InputError("graph", str(exc)) from None


def _selected(position: Position, cell_id: str | None) -> Cell | None:
    layout = position.board.graph
    assert layout is not None
    if cell_id is None:
        return None
    cell = layout.find(cell_id)
    if cell is None:
        if not cell_id.strip():
            return None  # spaces only, and no such id: nothing chosen
        raise InputError("cell", f"no cell has the id {cell_id!r}")
    return cell


def _facts(
    position: Position, count: Count, selected: Cell | None, with_steps: bool = False
) -> GraphFacts:
    seconds = settings().analyse_seconds  # GRAPH_SECONDS (2 s) when called outside an app
    return run_heavy(graph_facts, (position, count, selected, seconds, with_steps), seconds)


@dataclass(frozen=True)
class Origin:
    """Where a position came from, said above the board: ``text`` (``Move 5 of 40 of this
    game: the position before it.``) and a link back (``back``, ``back_text``)."""

    text: str
    back: str
    back_text: str


def position_page(
    position: Position,
    count: Count,
    cell_id: str | None,
    origin: Origin,
    spec: GraphSpec | None = None,
) -> Response:
    """The analysis board on ``position`` (a move of a game or of an imported replay),
    ``cell_id`` chosen; the page's own form then carries it as a pasted file. ``spec``: the
    game's board, whose tiling the built-in tiling form starts on (``tiling_form``)."""
    req = Request(count, cell_id, text=off_loop(lambda: write_graph(position)))
    return _page(replace(req, **tiling_form(spec)), position, None, 200, origin)


def tiling_form(spec: GraphSpec | None) -> dict[str, Any]:
    """The built-in tiling form's fields for a game on ``spec``: its tiling, sides, and its
    preset (or, at a custom size, that size); nothing for a custom board (the form's default,
    Penrose). A stranger studying a game of triangles who asks for "a built-in tiling" meant
    triangles, not the Penrose board the form used to start on."""
    if spec is None or not spec.tiling:
        return {}
    presets = [p.name for p in tiling(spec.tiling).presets if p.size == spec.size]
    if presets:
        return {"tiling": spec.tiling, "preset": presets[0], "sides": spec.sides}
    size = "x".join(str(n) for n in spec.size)
    return {"tiling": spec.tiling, "size": size, "sides": spec.sides}


def _page(
    req: Request,
    position: Position | None,
    error: str | None,
    code: int,
    origin: Origin | None = None,
) -> Response:
    facts = None
    svg = ""
    summary: dict[str, int] = {}
    selected = None
    stepper = StepView(0, 0)
    view = "flat"
    if position is not None and error is None:
        try:
            selected = _selected(position, req.cell_id)
        except InputError as exc:
            error, code = str(exc), 400
        facts = _facts(position, req.count, selected, with_steps=True)
        error = error or facts.error
        covered = list(position.covered_cells())
        summary = {
            "cells": position.board.cell_count,
            "covered": len(covered),
            "safe": sum(facts.verdicts.get(c) is Verdict.SAFE for c in covered),
            "mine": sum(facts.verdicts.get(c) is Verdict.MINE for c in covered),
            "either": sum(facts.verdicts.get(c) is Verdict.EITHER for c in covered),
        }
        stepper = step_view(facts.steps, req.step)
        view = req.view_of(position)
        svg = board_svg(
            position,
            facts.verdicts,
            facts.probs,
            selected,
            frozenset(facts.proof_numbers) if not stepper.step else frozenset(),
            stepper.marks,
            view,
        )
    layout = position.board.graph if position is not None else None
    selected_name = layout.label(selected) if layout is not None and selected is not None else ""
    verdict = facts.verdicts.get(selected) if facts and selected is not None else None
    number = position.number(selected) if position is not None and selected is not None else None
    said = verdict.value if verdict else None if number is None else f"revealed {number}"

    def html() -> str:
        return render_template(
            "graph_analyse.html",
            req=req,
            svg=Markup(svg),  # board_svg escapes every text it writes
            facts=facts,
            summary=summary,
            error=error,
            tilings=TILINGS,
            selected_name=selected_name,
            verdict=said,  # a revealed cell has no verdict: its number
            text=req.text if req.text else (write_graph(position) if position else ""),
            max_cells=WEB_MAX_CELLS,
            stepper=stepper,
            view=view,
            solid=position is not None and is_solid(position),
            controls=Markup(solid_controls()) if view == "solid" else "",
            form_id="graph-paste" if req.text else "graph-tiling",
            origin=origin,
        )

    return Response(off_loop(html), code)


@bp.get("/analyse/graph")
@limit_moves
def analyse_graph() -> ResponseReturnValue:
    try:
        req = _tiling_request(request.args)
        position = off_loop(lambda: _tiling_position(req))
    except InputError as exc:
        return _page(Request(Count.CLASSIC, None), None, str(exc), 400)
    return _page(req, position, None, 200)


def _posted() -> Request:
    form = request.form
    upload = request.files.get("file")
    text = form.get("graph", "")
    if upload is not None and upload.filename:
        data = upload.stream.read(WEB_MAX_TEXT + 1)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("file", "the file is not UTF-8 text") from None
    return Request(_count(form), _cell_id(form), text=text, step=_step(form), view=_view(form))


@bp.post("/analyse/graph")
@body_limit(3 * WEB_MAX_TEXT)
@limit_moves
def analyse_graph_paste() -> ResponseReturnValue:
    try:
        req = _posted()
    except InputError as exc:
        return _page(Request(Count.CLASSIC, None), None, str(exc), 400)
    try:
        position = off_loop(lambda: _pasted_position(req.text))
    except InconsistentPosition as exc:
        return _page(req, None, f"No layout of mines fits this board: {exc}.", 400)
    except InputError as exc:
        return _page(req, None, str(exc), 400)
    return _page(req, position, None, 200)


@bp.post("/analyse/graph/export")
@body_limit(3 * WEB_MAX_TEXT)
@limit_moves
def export_graph() -> ResponseReturnValue:
    try:
        req = _posted()
        position = _pasted_position(req.text)
    except (InputError, InconsistentPosition) as exc:
        return _page(Request(Count.CLASSIC, None), None, str(exc), 400)
    kind = request.form.get("kind", "json")
    view = req.view_of(position)
    if kind == "png":
        try:
            check_png_size(position)
        except TooBigForPng as exc:
            return _page(req, position, f"No PNG of this board: {exc}.", 400)
        facts = _facts(position, req.count, None)
        picture = off_loop(lambda: graph_png(position, facts.verdicts, view))
        return Response(picture, 200, _attachment("board.png", "image/png"))
    if kind == "svg":
        facts = _facts(position, req.count, None)
        body = board_svg(position, facts.verdicts, facts.probs, view=view)
        head = '<?xml version="1.0" encoding="UTF-8"?>\n'
        styled = body.replace(">", f"><style>{EXPORT_STYLE}</style>", 1)
        return Response(head + styled, 200, _attachment("board.svg", "image/svg+xml"))
    if kind != "json":
        return _page(req, position, "kind must be json, svg or png", 400)
    return Response(write_graph(position), 200, _attachment("board.json", "application/json"))


def _attachment(name: str, mimetype: str) -> dict[str, str]:
    return {"Content-Type": mimetype, "Content-Disposition": f"attachment; filename={name}"}


EXPORT_STYLE = (
    f".cell{{stroke:{COLOURS['line']};stroke-width:.04}}.open{{fill:{COLOURS['open']}}}"
    f".covered{{fill:{COLOURS['covered']}}}.safe{{fill:{COLOURS['safe']}}}"
    f".mine{{fill:{COLOURS['mine']}}}.either{{fill:{COLOURS['either']}}}"
    "text{font:.5px sans-serif;text-anchor:middle;dominant-baseline:central}"
    ".back{visibility:hidden}"
    f".edges line{{stroke:{COLOURS['line']};stroke-width:.04}}"
)
"""The exported SVG's own colours, the PNG's (the page's come from ``static/graph.css``)."""
