"""The duel pages (blueprint ``duel``).

``GET  /duel``               the form: your name and a board size to race on
``POST /duel``               create the first player's game and the duel -> ``/duel/<d>``
``GET  /duel/<d>``           the duel: your own board (the usual game board, once both are
                             seated) and the race panel; a visitor while the second seat is
                             free gets "Accept the duel" (with a name); anyone else watches
``POST /duel/<d>/join``      take the second seat: a game with the same parameters and seed;
                             the race starts: the duel opens the same first cell for both
``GET  /duel/<d>/status``    the race panel (an HTML fragment)
``GET  /duel/<d>/events``    Server-Sent Events: ``race`` with the panel whenever a side moved
                             or the duel changed (pushed through ``app.notify``, not polled)
``POST /duel/<d>/rematch``   once both games are over: offer a rematch, or accept the other's
                             offer (same two players, a new seed, the other one creates it)
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import suppress
from dataclasses import replace

from flask import (
    Blueprint,
    Response,
    redirect,
    render_template,
    request,
    stream_with_context,
    url_for,
)
from flask.typing import ResponseReturnValue
from sqlalchemy import Engine
from werkzeug.exceptions import Conflict

from app.duel import store
from app.duel.race import Race, race, settle
from app.duel.store import GUEST, HOST, Duel
from app.ledger.routes import NAME_RE, NAME_RULE, get_ledger
from app.live.routes import HEARTBEAT_SECONDS, sse, stream_slots
from app.notify import Notifier, get_notifier
from app.play.loaded import LoadedGame
from app.play.moves import Action, Click
from app.play.new_game import params_from_form, presets
from app.play.params import MAX_SEED
from app.play.setup import game_topic, get_service
from app.play.view import game_title, game_view
from app.security import client_key, current_owner, ensure_owner, limit_creates
from app.settings import settings
from app.store.setup import get_store
from devil.errors import IllegalMove
from devil.game import GameParams

bp = Blueprint("duel", __name__)

DUEL_PRESETS = ("beginner", "intermediate", "expert")


def duel_topic(duel_id: str) -> str:
    """The notifier topic of a duel's own changes (seat taken, rematch offered / started)."""
    return f"duel:{duel_id}"


def engine() -> Engine:
    return get_store().engine


def current_race(duel: Duel) -> Race:
    """The race as this browser sees it, with what it decided written down."""
    now = race(duel, get_service(), get_ledger().store, current_owner())
    settle(engine(), now)
    return now


def player_name(form_name: str) -> str | None:
    """The name typed in the form (saved as this browser's display name), else the display
    name already saved; None for neither. A name against the rule -> ``BadName``."""
    text = form_name.strip()
    ledger = get_ledger().store
    if text:
        if not NAME_RE.fullmatch(text):
            raise BadName(text)
        ledger.set_name(ensure_owner(), text)
        return text
    owner = current_owner()
    return ledger.name(owner) if owner else None


class BadName(ValueError):
    def __init__(self, text: str) -> None:
        super().__init__(NAME_RULE)
        self.text = text[:100]


def saved_name() -> str:
    owner = current_owner()
    return (get_ledger().store.name(owner) if owner else None) or ""


@bp.get("/duel")
def new() -> ResponseReturnValue:
    return _form()


def _form(error: str | None = None, typed: str | None = None, status: int = 200) -> Response:
    choices = [p for p in presets() if p.name in DUEL_PRESETS]
    html = render_template(
        "duel_new.html",
        presets=choices,
        name=saved_name() if typed is None else typed,
        name_error=error,
    )
    return Response(html, status=status)


@bp.post("/duel")
@limit_creates
def create() -> ResponseReturnValue:
    preset = request.form.get("preset", "beginner")
    if preset not in DUEL_PRESETS:
        preset = "beginner"
    try:
        name = player_name(request.form.get("name", ""))
    except BadName as exc:
        return _form(NAME_RULE, exc.text, 400)
    params = params_from_form({"preset": preset, "no_guess": "on", "mercy": "strict"})
    host = get_service().create(params, owner=ensure_owner())
    duel = store.create(engine(), host.id, name)
    return redirect(url_for("duel.show", duel_id=duel.id), 303)


@bp.get("/duel/<duel_id>")
def show(duel_id: str) -> ResponseReturnValue:
    return _page(store.get(engine(), duel_id))


def _page(duel: Duel, name_error: str | None = None, typed: str | None = None) -> Response:
    now = current_race(duel)
    if now.started and any(s.moves == 0 for s in now.sides):
        finish_start(now)
        now = current_race(duel)
    me = now.me
    mine: LoadedGame | None = None
    if me is not None and now.started:  # the board appears when the race starts
        mine = get_service().load(me.game_id)
    html = render_template(
        "duel.html",
        duel=duel,
        race=now,
        gv=game_view(mine, True) if mine is not None else None,
        game_id=mine.id if mine is not None else None,
        oob=False,
        can_join=me is None and duel.guest_game is None,
        name=saved_name() if typed is None else typed,
        name_error=name_error,
        share=url_for("duel.show", duel_id=duel.id, _external=True),
        board=game_title(get_service().params(get_service().record(duel.host_game))),
    )
    return Response(html, status=400 if name_error else 200)


def start_race(params: GameParams, games: tuple[str, ...]) -> None:
    """Open the same first cell (the middle) on both boards: one real layout for both, and
    both clocks start now. A board already opened is left as it is."""
    first = Click(Action.REVEAL, params.height // 2, params.width // 2)
    for game_id in games:
        with suppress(IllegalMove):  # another request opened it first
            get_service().play(game_id, first)


def finish_start(now: Race) -> None:
    """A race whose start was cut short (a fault between the seat and the first cells):
    open the first cell on the boards still closed."""
    closed = tuple(s.game_id for s in now.sides if s.moves == 0)
    if now.started and closed:
        start_race(get_service().load(closed[0]).params, closed)


@bp.post("/duel/<duel_id>/join")
@limit_creates
def join(duel_id: str) -> ResponseReturnValue:
    duel = store.get(engine(), duel_id)
    service = get_service()
    host = service.load(duel.host_game)
    owner = current_owner()
    if duel.guest_game is None and (owner is None or owner != host.record.owner):
        try:
            name = player_name(request.form.get("name", ""))
        except BadName as exc:
            return _page(duel, NAME_RULE, exc.text)
        guest = service.create(host.params, owner=ensure_owner())
        if store.take_guest_seat(engine(), duel.id, guest.id, name):  # else: watch instead
            start_race(host.params, (duel.host_game, guest.id))
            get_notifier().publish(duel_topic(duel.id))
    return redirect(url_for("duel.show", duel_id=duel.id), 303)


@bp.post("/duel/<duel_id>/rematch")
@limit_creates
def rematch(duel_id: str) -> ResponseReturnValue:
    """Offer a rematch; the other player's offer accepted starts it (they create it: the
    seats swap). Only the two players, only once both games are over."""
    duel = store.get(engine(), duel_id)
    now = current_race(duel)
    me = now.me
    if me is None:
        raise Conflict("only the two players of this duel can ask for a rematch")
    if not now.over:
        raise Conflict("a rematch can be asked once both games are over")
    if duel.rematch is None:
        store.offer_rematch(engine(), duel.id, me.seat)  # the first offer stands
        offered_by = store.get(engine(), duel.id).rematch_by
        if offered_by is not None and offered_by != me.seat:  # the other asked: accepted
            _start_rematch(duel, now)
        get_notifier().publish(duel_topic(duel.id))
    started = store.get(engine(), duel.id).rematch
    return redirect(url_for("duel.show", duel_id=started or duel.id), 303)


def _start_rematch(duel: Duel, now: Race) -> None:
    host, guest = now.side(HOST), now.side(GUEST)
    assert host is not None and guest is not None
    service = get_service()
    old = service.load(duel.host_game).params
    params = replace(old, seed=secrets.randbelow(MAX_SEED))
    # the seats swap: the second player of this duel creates the rematch
    first = service.create(params, owner=guest.owner)
    second = service.create(params, owner=host.owner)
    names = (duel.guest_name or guest.name, duel.host_name or host.name)
    fresh = Duel(store.new_id(), first.id, second.id, *names)
    chosen = store.start_rematch(engine(), duel.id, fresh)
    if chosen == fresh.id:
        start_race(params, (first.id, second.id))


@bp.get("/duel/<duel_id>/status")
def status(duel_id: str) -> ResponseReturnValue:
    now = current_race(store.get(engine(), duel_id))
    response = Response(render_template("_duel_status.html", race=now))
    response.headers["Cache-Control"] = "no-store"
    return response


# -- the live panel --------------------------------------------------------------------------


def panel_event(now: Race) -> dict[str, object]:
    """What the page's script needs: the panel, the sentence for the live region, and
    where to go when the race starts or a rematch began."""
    rematch = now.duel.rematch
    return {
        "html": render_template("_duel_status.html", race=now),
        "verdict": now.verdict,
        "notice": now.notice,
        "started": now.started,
        "over": now.over,
        "rematch": None if rematch is None else url_for("duel.show", duel_id=rematch),
    }


def race_updates(
    duel: Duel,
    read: Callable[[], Race],
    notifier: Notifier,
    max_seconds: float,
    heartbeat: float = HEARTBEAT_SECONDS,
) -> Iterator[str]:
    """``race`` events: the panel on connect and whenever it changed, woken by the games'
    and the duel's topics (never polled). Ends after ``max_seconds`` (the browser reconnects)
    and after a rematch started (the page moves there)."""
    started = time.monotonic()
    topics = [duel_topic(duel.id), game_topic(duel.host_game)]
    if duel.guest_game is not None:
        topics.append(game_topic(duel.guest_game))
    sent = ""
    with notifier.subscribe_any(topics) as subscription:
        while True:
            now = read()
            event = panel_event(now)
            data = json.dumps(event, sort_keys=True)
            if data != sent:
                sent = data
                yield sse("race", event)
            if now.duel.rematch is not None or now.started != (duel.guest_game is not None):
                return  # the page reloads: its stream then follows the new games
            while True:
                remaining = max_seconds - (time.monotonic() - started)
                if remaining <= 0 or notifier.closed:
                    return
                if subscription.wait(min(heartbeat, remaining)):
                    break
                yield ": keep-alive\n\n"


@bp.get("/duel/<duel_id>/events")
def events(duel_id: str) -> ResponseReturnValue:
    duel = store.get(engine(), duel_id)  # 404 before the stream starts
    release = stream_slots().take(client_key())
    try:
        options = settings()

        def read() -> Race:
            return current_race(store.get(engine(), duel_id))

        stream = race_updates(
            duel,
            read,
            get_notifier(),
            options.live_max_seconds,
            options.live_heartbeat_seconds,
        )
        response = Response(
            stream_with_context(_closing(stream, release)), mimetype="text/event-stream"
        )
    except BaseException:
        release()
        raise
    response.call_on_close(release)
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response


def _closing(stream: Iterator[str], release: Callable[[], None]) -> Iterator[str]:
    try:
        yield from stream
    finally:
        release()


@bp.errorhandler(store.NoSuchDuel)
def unknown(exc: store.NoSuchDuel) -> ResponseReturnValue:
    choices = [p for p in presets() if p.name in DUEL_PRESETS]
    html = render_template("duel_new.html", presets=choices, missing=exc.duel, name="")
    return Response(html, status=404)
