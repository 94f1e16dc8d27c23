"""Devil World in the browser: the page, joining, the cookie-authenticated moves, the panels.

``GET  /world``                       the default world's page
``GET  /world/<w>``                   the board (fills the window), the join form, the panels;
                                      ``?team=`` and ``?colour=`` choose what a watcher sees
``POST /world/<w>/join``              name, team (an existing one or a new name), colour: the
                                      player's bearer token goes into the signed, HttpOnly session
``POST /world/<w>/leave``             forget the player in this browser
``POST /world/<w>/colour``            switch colour (form or JSON ``{"colour"}``)
``GET  /world/<w>/scoreboard``        the scoreboard panel (HTML fragment, polled by htmx)
``GET  /world/<w>/activity``          the activity feed (HTML fragment)
``GET  /world/<w>/teams/<t>/who``     ``?seqs=1,2``: who made these moves of team ``t`` (JSON)
``GET  /world/<w>/timelapse``         ``?team=&colour=&x0=&y0=&width=&height=``: a region's
                                      replay (slider, play), a link anyone may open

The board itself reads the JSON API (``/api/worlds/<w>/teams/<t>/view`` and ``/events``),
which serves only a team's knowledge, and plays through the API's raft endpoint
(``POST /api/worlds/<w>/moves``), which takes this page's session in place of a bearer token
(``app.world.session``); the token never reaches the page's scripts. Every POST is
CSRF-protected (the page sends ``X-CSRFToken``).
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import NotFound, Unauthorized

from app.errors import InputError
from app.fields import bounded
from app.lru import Lru
from app.notify import get_notifier
from app.settings import settings
from app.world import limits
from app.world.api import (
    TEAM,
    WorldInputError,
    body,
    colourings,
    drop_seconds,
    scoreboards,
    world_store,
)
from app.world.frontier import liveliest, opening_drop, team_spot
from app.world.judging import Judging
from app.world.records import NoSuchWorld, PlayerRow, WorldEvent
from app.world.records import utcnow as now
from app.world.schemas import MAX_NAME
from app.world.scoreboard import Scoreboard
from app.world.service import switch_colour
from app.world.session import current_player, forget, remember

bp = Blueprint("world", __name__)

ACTIVITY_ROWS = 12
ACTIVITY_EVENTS = 256
"""The newest events the activity feed reads; a player's run of like moves is one line, so
one busy bot does not push everybody else out of the twelve lines."""
SCOREBOARD_TEAMS = 15
"""The panel shows the teams with the most cells revealed (and the viewer's team)..."""
TEAM_PLAYERS = 8
"""...each with its most active players (and the viewer)."""
ACTIVITY_CACHE = "mine_devil.world.activity"
"""The app's ``Lru`` of (world, events logged) -> the feed's lines: every viewer polls the
feed, the log is read once per change."""
MAX_WHO = 64
MAX_SEQ = 2**63 - 1
"""The largest seq a store holds (a signed 64-bit column)."""
WHERE = re.compile(r"-?[0-9]{1,16}")
"""Where the joining player was looking (the page checks the range and says so)."""
SMALL_WHOLE = re.compile(r"[0-9]{1,3}")
"""A colour as typed in a form or a query (ASCII digits only: str.isdigit takes superscripts)."""
LAPSE_SIDE = 256
LAPSE_LIMIT = 2**53 - 2**20
"""A time-lapse's region: the API's largest side; corners a page holds exactly."""
COLOUR_NAMES = ("red", "blue", "green", "amber", "violet", "teal", "pink", "slate")
"""The colours' names in the page (the CSS gives each its swatch)."""


def required_player(world: str) -> PlayerRow:
    player = current_player(world)
    if player is None:
        raise Unauthorized("join the world first (name, team and colour)")
    return player


def drop_wait(player: PlayerRow | None) -> float:
    """Seconds until the player may drop again (0 when now)."""
    if player is None or player.last_drop_at is None:
        return 0.0
    left = drop_seconds() - (now() - player.last_drop_at) / timedelta(seconds=1)
    return max(0.0, left)


def errors_of(player: PlayerRow | None, board: Scoreboard) -> int:
    """The devil errors ``player`` made in this world so far (0 for a watcher)."""
    if player is None:
        return 0
    found = board.player(player.id)
    return found.counts.errors if found is not None else 0


@bp.get("/world")
def default_world() -> ResponseReturnValue:
    return redirect(url_for("world.page", world="main"))


@bp.get("/world/<world>")
def page(world: str) -> ResponseReturnValue:
    try:
        return render_page(world)
    except NoSuchWorld as exc:  # the page of a world that is not: the site's own 404 page
        return Response(render_template("world_missing.html", world=exc.world), status=404)


def render_page(world: str, join_error: WorldInputError | None = None) -> str:
    """The world's page; ``join_error``: the join form comes back open, saying what was wrong
    and keeping what was typed."""
    row = world_store().world(world)
    player = current_player(world, fresh=True)
    board = scoreboards().get(world)
    teams = list(board.active)
    notices = []
    asked_team = request.args.get("team", "")
    team = player.team if player is not None else asked_team
    if team not in teams:
        lively = liveliest(world_store(), world) if player is None else None
        team = (lively if lively in teams else teams[0]) if teams and player is None else ""
        if asked_team and player is None:
            instead = f"watching {team}" if team else "nobody has joined yet"
            notices.append(f"No team {asked_team[:40]!r} in this world: {instead}.")
    if player is not None:
        colour = player.colour
    else:
        asked_colour = request.args.get("colour", "0")
        try:
            colour = colour_field(asked_colour, row.colours)
        except WorldInputError:
            notices.append(
                f"Colour {asked_colour[:20]!r} does not exist here (0 to {row.colours - 1}): "
                "showing 0."
            )
            colour = 0
    typed = request.form if join_error is not None else {}
    spot = team_spot(world_store(), world, team, colour) if team else None
    return render_template(
        "world.html",
        world=row.id,
        colours=row.colours,
        colour_names=COLOUR_NAMES[: row.colours],
        player=player,
        team=team,
        teams=teams,
        colour=colour,
        errors=errors_of(player, board),
        drop_seconds=drop_seconds(),
        drop_wait=round(drop_wait(player)),
        max_name=MAX_NAME,
        join_error=join_error,
        typed=typed,
        notice=" ".join(notices),
        start=spot,
    )


def colour_field(raw: Any, colours: int) -> int:
    """A colour from a form ("2") or a JSON body (2), below the world's ``colours``."""
    if isinstance(raw, str) and SMALL_WHOLE.fullmatch(raw):
        raw = int(raw)
    if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw < colours:
        raise WorldInputError("colour", f"must be a whole number from 0 to {colours - 1}")
    return raw


@bp.post("/world/<world>/join")
def join(world: str) -> ResponseReturnValue:
    try:
        return joined(world)
    except WorldInputError as exc:
        if not request.accept_mimetypes.accept_html:
            raise
        return render_page(world, join_error=exc), 400


def joined(world: str) -> ResponseReturnValue:
    """Join ``world`` from the form; raises ``WorldInputError`` naming the bad field."""
    row = world_store().world(world)
    name = request.form.get("name", "").strip()
    team = (request.form.get("new_team") or request.form.get("team") or "").strip()
    colour_text = request.form.get("colour", "0")
    if not 1 <= len(name) <= MAX_NAME or not name.isprintable():
        raise WorldInputError("name", f"must be 1 to {MAX_NAME} printable characters")
    if not TEAM.fullmatch(team):
        raise WorldInputError("team", "1 to 32 of A-Z, a-z, 0-9, _ and -")
    colour = colour_field(colour_text, row.colours)
    new_team = not world_store().team_known(world, team)
    limits.check_join(world, new_team=new_team)
    created = world_store().add_player(world, name, team, colour)
    scoreboards().changed(world)
    remember(world, created.token)
    place: dict[str, Any] = {
        k: v for k in ("x", "y") if WHERE.fullmatch(v := request.form.get(k, ""))
    }
    if new_team:  # a new team starts on open ground, not on an empty grey board
        x, y = (int(place[k]) if k in place else 0 for k in ("x", "y"))
        try:
            limits.check_moves(created.player, 1)
            at = opening_drop(
                world_store(),
                get_notifier(),
                colourings(),
                created.player,
                *(x, y, drop_seconds()),
                judging=Judging.from_settings(settings()),
            )
        except limits.RateLimited:
            at = None  # the team's moves are over their limit: joined, without the drop
        if at is not None:
            place = {"x": str(at[0]), "y": str(at[1]), "welcome": "drop"}
    return redirect(url_for("world.page", world=world, **place), code=303)


@bp.post("/world/<world>/leave")
def leave(world: str) -> ResponseReturnValue:
    forget(world)
    return redirect(url_for("world.page", world=world), code=303)


@bp.post("/world/<world>/colour")
def colour(world: str) -> ResponseReturnValue:
    row = world_store().world(world)
    player = required_player(world)
    raw: Any = request.form.get("colour")
    if raw is None and request.is_json:
        raw = body().get("colour")
    updated, seq = switch_colour(world_store(), player, colour_field(raw, row.colours))
    if request.is_json:
        return jsonify({"colour": updated.colour, "seq": seq})
    return redirect(url_for("world.page", world=world), code=303)


@bp.get("/world/<world>/scoreboard")
def scoreboard(world: str) -> ResponseReturnValue:
    """The panel: one page of ``SCOREBOARD_TEAMS`` teams by rank (``?page=``, from 1) and the
    viewer's team, each with its most active players; from the process's shared scoreboard,
    so a request costs the same however many teams the world has."""
    board = scoreboards().get(world)
    pages = max(1, -(-len(board.ranked) // SCOREBOARD_TEAMS))
    page = bounded(request.args.get("page", "1"), "page", 1, pages)
    player = current_player(world)
    me = player.id if player is not None else None
    my_team = player.team if player is not None else request.args.get("team")
    first = (page - 1) * SCOREBOARD_TEAMS
    shown = list(board.ranked[first : first + SCOREBOARD_TEAMS])
    mine = board.team(my_team) if my_team else None
    if mine is not None and mine not in shown:
        shown.append(mine)
    listed = []
    for t in shown:
        people = board.players_of(t.name)
        top = list(people[:TEAM_PLAYERS])
        if me is not None and t.name == my_team and all(p.player != me for p in top):
            top += [p for p in people if p.player == me]
        listed += top
    return render_template(
        "_world_scoreboard.html",
        teams=shown,
        people=listed,
        frontier=board.frontier,
        me=me,
        my_team=my_team,
        hidden=len(board.ranked) - len(shown),
        page=page,
        pages=pages,
        world=world,
    )


@bp.app_template_filter("compact")
def compact(n: int) -> str:
    """A counter short enough for the scoreboard's narrow columns (the exact number is the
    cell's title): 9999, 231k, 1.2M."""
    if n < 10_000:
        return str(n)
    if n < 1_000_000:
        return f"{n // 1000}k"
    return f"{n / 1_000_000:.1f}M"


def describe(event: WorldEvent) -> str:
    """One event in words: "revealed 37 cells", "made a devil error"..."""
    if event.outcome == "devil":
        return f"made a devil error ({event.kind})"
    if event.kind == "colour":
        return f"switched to {COLOUR_NAMES[event.colour]}"
    if event.outcome == "flagged":
        return "placed a flag"
    if event.outcome == "dropped":
        return f"dropped in, {event.opened} cells opened"
    if event.outcome == "revealed" and event.opened:  # a chord can open nothing
        n = event.opened
        return f"revealed {n} cell{'s' if n != 1 else ''}"
    return f"{event.kind}: nothing new"


def _kind_of(event: WorldEvent) -> str:
    """What a line of the activity feed sums up: moves of one kind by one player."""
    if event.outcome == "devil":
        return "devil"
    if event.kind == "colour" or event.outcome == "dropped":
        return f"single:{event.seq}"  # never merged
    return event.outcome


def describe_run(run: list[WorldEvent]) -> str:
    """A run of like moves by one player in words: "placed 12 flags", "revealed 37 cells
    in 5 moves", "made 3 devil errors"; one move as ``describe`` says it."""
    n = len(run)
    if n == 1:
        return describe(run[0])
    kind = _kind_of(run[0])
    if kind == "devil":
        return f"made {n} devil errors"
    if kind == "flagged":
        return f"placed {n} flags"
    opened = sum(e.opened for e in run)
    if kind == "revealed" and opened:
        return f"revealed {opened} cell{'s' if opened != 1 else ''} in {n} moves"
    return f"made {n} moves that changed nothing"


def runs_of(events: list[WorldEvent]) -> list[list[WorldEvent]]:
    """Consecutive events of one player and one kind, oldest first."""
    runs: list[list[WorldEvent]] = []
    for event in events:
        last = runs[-1][-1] if runs else None
        if last is not None and last.player == event.player and _kind_of(last) == _kind_of(event):
            runs[-1].append(event)
        else:
            runs.append([event])
    return runs


def names_of(events: list[WorldEvent]) -> dict[str, str]:
    """Each event's player's name ("?" for one that no longer exists), in one query."""
    found = world_store().player_names({e.player for e in events})
    return {e.player: found.get(e.player, "?") for e in events}


@bp.get("/world/<world>/activity")
def activity(world: str) -> ResponseReturnValue:
    """The newest ``ACTIVITY_ROWS`` lines, from the newest ``ACTIVITY_EVENTS`` events (read
    without their cells), built once per change of the log in this process (a change
    counted after the read is built again under its own count)."""
    store = world_store()
    logged = store.head(world)
    cache: Lru[tuple[str, int], list[dict[str, Any]]] = current_app.extensions[ACTIVITY_CACHE]
    lines = cache.get_or_compute((world, logged), lambda: activity_lines(world))
    return render_template("_world_activity.html", lines=lines)


def activity_lines(world: str) -> list[dict[str, Any]]:
    """The lines from the world's newest events, by the time they were logged (each team
    numbers its own events: seqs do not order teams)."""
    recent = [
        e
        for e in world_store().newest_events_without_cells(world, ACTIVITY_EVENTS)
        if e.x is not None or e.kind == "colour"
    ]
    runs = runs_of(recent)[-ACTIVITY_ROWS:]
    names = names_of([run[0] for run in runs])
    lines = []
    for run in reversed(runs):
        e = run[-1]
        lines.append(
            {
                "seq": e.seq,
                "name": names[e.player],
                "team": e.team,
                "text": describe_run(run),
                "devil": e.outcome == "devil",
                "at": e.at.strftime("%H:%M:%S"),
                "iso": e.at.isoformat(),
            }
        )
    return lines


@bp.get("/world/<world>/teams/<team>/who")
def who(world: str, team: str) -> ResponseReturnValue:
    """Who made the moves ``seqs`` of ``team`` (names and what they did: the hover text).

    At most ``MAX_WHO`` seqs, each from 1 to 2**63 - 1 (400 naming ``seqs`` otherwise); the
    log is read for those seqs only."""
    store = world_store()
    store.world(world)
    if not TEAM.fullmatch(team):
        raise NotFound(f"world {world!r} has no team {team!r}")
    text = request.args.get("seqs", "")
    parts = text.split(",") if text else []
    if len(parts) > MAX_WHO:
        raise InputError("seqs", f"seqs names {len(parts)} moves: at most {MAX_WHO} at once")
    limits.check_who(world)
    wanted = {bounded(part, "seqs", 1, MAX_SEQ) for part in parts}
    batch = store.team_events_at(world, team, wanted)
    names = names_of(batch)
    out = {str(e.seq): f"{names[e.player]} {describe(e)}" for e in batch}
    response = jsonify(out)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/world/<world>/timelapse")
def timelapse(world: str) -> ResponseReturnValue:
    """A region's time-lapse (``static/world/timelapse.js`` reads it from the API in pages):
    ``?team=&colour=&x0=&y0=&width=&height=``, a region of at most 256x256 cells; without a
    place, the team's busiest spot. Anyone may open it: it shows the team's knowledge only."""
    row = world_store().world(world)
    team = request.args.get("team", "")
    if not TEAM.fullmatch(team) or not world_store().team_known(world, team):
        raise NotFound(f"world {world!r} has no team {team[:40]!r}")
    colour = colour_field(request.args.get("colour", "0"), row.colours)
    side = {k: bounded(request.args.get(k, "128"), k, 1, LAPSE_SIDE) for k in ("width", "height")}
    spot = team_spot(world_store(), world, team, colour) or (0, 0)
    corner = {
        "x0": spot[0] - side["width"] // 2,
        "y0": spot[1] - side["height"] // 2,
    }
    for k in ("x0", "y0"):
        if k in request.args:
            corner[k] = bounded(request.args[k], k, -LAPSE_LIMIT, LAPSE_LIMIT)
    return render_template(
        "world_timelapse.html",
        world=world,
        team=team,
        colour=colour,
        colour_name=COLOUR_NAMES[colour],
        **corner,
        **side,
    )
