"""The duel pages (blueprint ``duel``).

``GET  /duel``               the form: a board size to race on
``POST /duel``               create the host's game and the duel -> ``/duel/<d>``
``GET  /duel/<d>``           the duel: your own board (the usual game board) and the race panel;
                             a visitor while the guest seat is free gets "Accept the duel";
                             anyone else watches
``POST /duel/<d>/join``      take the guest seat: a game with the host game's parameters and seed
``GET  /duel/<d>/status``    the race panel (HTML fragment, refreshed every second by htmx)
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from flask import Blueprint, Response, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from sqlalchemy import Engine

from app.duel import store
from app.play.loaded import LoadedGame
from app.play.new_game import params_from_form, presets
from app.play.setup import get_service
from app.play.view import game_view
from app.security import ensure_owner, is_owner
from app.store.setup import get_store
from devil.game import GameParams, Status

bp = Blueprint("duel", __name__)

DUEL_PRESETS = ("beginner", "intermediate", "expert")


@dataclass(frozen=True)
class Side:
    """One player's progress as the race panel shows it."""

    label: str
    game_id: str
    opened: int
    safe: int
    moves: int
    state: str  # "waiting", "playing", "dead", "cleared"
    finished_at: datetime | None
    mine: bool


def side(label: str, loaded: LoadedGame) -> Side:
    game = loaded.game
    params = game.params
    safe = params.height * params.width - len(params.holes) - params.mines
    state = {Status.WON: "cleared", Status.LOST: "dead"}.get(game.status, "playing")
    finished = loaded.last_move_at if game.status is not Status.PLAYING else None
    return Side(
        label, loaded.id, game.revealed_count, safe, len(game.moves), state, finished,
        is_owner(loaded.record),
    )  # fmt: skip


def race(duel: store.Duel) -> tuple[list[Side], str | None]:
    """Both sides (the guest's once seated) and the winner's label: the first to clear."""
    service = get_service()
    sides = [side("Host", service.load(duel.host_game))]
    if duel.guest_game is not None:
        sides.append(side("Guest", service.load(duel.guest_game)))
    cleared = [s for s in sides if s.state == "cleared" and s.finished_at is not None]
    winner = None
    if cleared:
        winner = min(cleared, key=lambda s: s.finished_at or datetime.max).label
    elif len(sides) == 2 and all(s.state == "dead" for s in sides):
        winner = "nobody"
    return sides, winner


@bp.get("/duel")
def new() -> ResponseReturnValue:
    choices = [p for p in presets() if p.name in DUEL_PRESETS]
    return render_template("duel_new.html", presets=choices)


@bp.post("/duel")
def create() -> ResponseReturnValue:
    preset = request.form.get("preset", "beginner")
    if preset not in DUEL_PRESETS:
        preset = "beginner"
    params = params_from_form({"preset": preset, "no_guess": "on", "mercy": "strict"})
    host = get_service().create(params, owner=ensure_owner())
    duel = store.create(get_engine_now(), host.id)
    return redirect(url_for("duel.show", duel_id=duel.id), 303)


def get_engine_now() -> Engine:
    return get_store().engine


@bp.get("/duel/<duel_id>")
def show(duel_id: str) -> ResponseReturnValue:
    duel = store.get(get_engine_now(), duel_id)
    service = get_service()
    mine: LoadedGame | None = None
    for game_id in (duel.host_game, duel.guest_game):
        if game_id is not None:
            loaded = service.load(game_id)
            if is_owner(loaded.record):
                mine = loaded
    sides, winner = race(duel)
    gv = game_view(mine, True) if mine is not None else None
    return render_template(
        "duel.html",
        duel=duel,
        gv=gv,
        game_id=mine.id if mine is not None else None,
        oob=False,
        sides=sides,
        winner=winner,
        can_join=mine is None and duel.guest_game is None,
        share=url_for("duel.show", duel_id=duel.id, _external=True),
    )


@bp.post("/duel/<duel_id>/join")
def join(duel_id: str) -> ResponseReturnValue:
    engine = get_engine_now()
    duel = store.get(engine, duel_id)
    service = get_service()
    host = service.load(duel.host_game)
    if duel.guest_game is None and not is_owner(host.record):
        params = GameParams.from_dict(dict(host.record.params))
        guest = service.create(params, owner=ensure_owner())
        store.take_guest_seat(engine, duel.id, guest.id)  # a lost race: watch instead
    return redirect(url_for("duel.show", duel_id=duel.id), 303)


@bp.get("/duel/<duel_id>/status")
def status(duel_id: str) -> ResponseReturnValue:
    duel = store.get(get_engine_now(), duel_id)
    sides, winner = race(duel)
    html = render_template("_duel_status.html", duel=duel, sides=sides, winner=winner)
    response = Response(html)
    response.headers["Cache-Control"] = "no-store"
    if winner is not None:
        response.status_code = 286  # htmx stops polling: the race is over
    return response


@bp.errorhandler(store.NoSuchDuel)
def unknown(exc: store.NoSuchDuel) -> ResponseReturnValue:
    return Response(render_template("duel_new.html", presets=[], missing=exc.duel), status=404)
