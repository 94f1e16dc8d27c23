"""The game page's view model: ``GameView`` (status bar, board, end panel, teaching panels)
built by ``game_view`` from a loaded game, and the sentences a move answers with.

While a game runs, everything here comes from the visible position only: the layouts enter
through ``Ending``, built only for a finished game. Views build everything a template shows
(teaching panels included): templates never load anything.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property

from flask import current_app, url_for

from app.play.board import BoardView, board_view
from app.play.cells import Ending
from app.play.loaded import LoadedGame
from app.play.params import PRESETS
from app.teach.panels import Teaching, teaching
from devil.game import Game, GameParams, MoveKind, Status
from devil.graphs.tilings import tiling
from devil.position import FLAG, Position
from devil.teach.number_words import number_meaning

PRESET_TITLES = {"beginner": "Beginner", "intermediate": "Intermediate", "expert": "Expert"}

TILING_TITLES = {
    "square": "squares", "hex": "hexagons", "torus": "torus", "triangle": "triangles",
    "truncated-square": "octagons and squares", "rhombille": "rhombs",
    "cairo": "Cairo pentagons", "snub-square": "snub square", "penrose": "Penrose rhombs",
    "cube": "cube", "geodesic": "geodesic sphere",
}  # fmt: skip
"""How titles name a graph game's tiling."""


@dataclass(frozen=True)
class StatusView:
    mines_left: int
    moves: int
    rules: str
    status: str
    started_at: float | None
    ended_at: float | None
    no_guess_note: str = ""
    """Why a game asked to be guess-free is not promised to be (``Game.no_guess_note``)."""

    @property
    def seconds(self) -> int:
        """Whole seconds played so far (or in total once the game ended)."""
        if self.started_at is None:
            return 0
        end = self.ended_at if self.ended_at is not None else time.time()
        return max(0, int(end - self.started_at))

    @property
    def clock(self) -> str:
        return format_duration(self.seconds)

    @property
    def lcd_mines(self) -> str:
        """Mines left as a three-digit counter: ``010``, ``-03``; ``000`` once the game is won
        (every mine is known then, as classic Minesweeper flags them all on a win)."""
        n = 0 if self.status == "won" else self.mines_left
        return f"{n:03d}" if n >= 0 else f"-{-n:02d}"


def format_duration(seconds: int) -> str:
    """``75`` -> ``1:15``; ``3725`` -> ``1:02:05``."""
    minutes, secs = divmod(max(0, seconds), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"


def mines_left(position: Position) -> int:
    """Mines minus flags (can go negative when the player over-flags)."""
    return (position.mines or 0) - position.grid.count(FLAG)


def rules_text(count: str, mercy: str, no_guess: bool) -> str:
    text = f"{count} · {mercy}"
    return text + (" · no-guess" if no_guess else "")


def summary(position: Position, status: str, moves: int) -> str:
    """A short sentence for the live region after a move."""
    left = mines_left(position)
    covered = sum(1 for _ in position.covered_cells())
    if status == "won":
        return f"You won in {plural(moves, 'move')}."
    if status == "lost":
        return "Boom. The devil put a mine under your click: see its layout below."
    counts = f"{plural(left, 'mine')} left, {plural(covered, 'cell')} covered"
    return f"{counts}, {plural(moves, 'move')}."


# -- whole game -------------------------------------------------------------------------


@dataclass(frozen=True)
class GameView:
    """Everything the game templates show about one game."""

    id: str
    title: str
    status: str
    can_move: bool
    """The board takes clicks: this browser owns the game and it is still running."""
    owner: bool
    """This browser started the game (watchers see the board read-only)."""
    position: Position
    ending: Ending | None
    bar: StatusView
    moves: int
    mercy: str = "strict"
    loss_where: str = ""
    witness_mines: int = 0
    again: tuple[tuple[str, str], ...] = ()
    watch_url: str | None = None
    """For a watcher of a running game: where to fetch what changed since the current move."""
    live_url: str | None = None
    """For a watcher of a running game: the game's event stream (Server-Sent Events)."""
    teaching: Teaching | None = None
    """The hint ladder (the player, while the game runs) or the loss / win lesson."""
    duel: DuelTie | None = None
    """A game that is one side of a duel (its face and end panel lead back to the duel,
    never to a solo game)."""
    shape_note: str = ""
    """A graph game: how its cells touch, in words (under the board)."""
    corners: bool = True
    """A solid's board carries its 3-D corners; False for a move's answer to a page that kept
    them from its first board (``graph_board.CORNERS_KEPT``)."""

    @cached_property
    def board(self) -> BoardView:
        """The whole board, built only when a template draws it (a click's answer does not)."""
        return board_view(
            self.position, interactive=self.can_move, ending=self.ending, corners=self.corners
        )

    @property
    def status_text(self) -> str:
        return {"playing": "Playing", "won": "Won", "lost": "Lost"}.get(self.status, self.status)

    @property
    def ended(self) -> bool:
        return self.status != "playing"


@dataclass(frozen=True)
class DuelTie:
    """A game raced in a duel, as the game's own pages see it (``app.duel`` answers)."""

    url: str
    """The duel's page: the end panel's way back (instead of a solo "Play again")."""
    sealed: bool
    """The other side still plays on the same layout: this game's real layout stays hidden
    (a lost game shows only the devil's witness) until that game ends too."""


DUEL_OF = "mine_devil.duel_of"
"""``app.extensions`` key: ``Callable[[str, bool], DuelTie | None]`` (registered by
``app.duel``; the flag says the game has ended)."""


def duel_of(game_id: str, over: bool = True) -> DuelTie | None:
    """The duel ``game_id`` is raced in (None without duels, or for a solo game)."""
    find = current_app.extensions.get(DUEL_OF)
    tie: DuelTie | None = None if find is None else find(game_id, over)
    return tie


def plural(n: int, noun: str) -> str:
    """``1 move``, ``2 moves``."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


_SHAPE_NOTES = {
    # true of both views: the player switches between them on the page, the note stays
    "cube": "The surface of a cube. \u201cUnfolded\u201d lays it flat (three shades tell its "
    "six faces apart): where edges of the net meet on the cube, their cells touch. "
    "\u201cSolid\u201d shows the cube itself: drag it (or use the arrows) to turn it.",
    "geodesic": "A ball of triangles. \u201cUnfolded\u201d lays it flat (three shades tell its "
    "20 big triangles apart): where edges of the net meet on the ball, their cells touch. "
    "\u201cSolid\u201d shows the ball itself: drag it (or use the arrows) to turn it.",
    "penrose": "Penrose rhombs: a tiling that never repeats.",
    "torus": "Squares on a torus: the left edge touches the right, the top the bottom.",
    # the rest only by name: a stranger saw "graph board of 72 cells" and no word of Cairo
    "triangle": "Triangles.",
    "truncated-square": "Octagons and squares.",
    "rhombille": "Rhombs, three to a hexagon.",
    "cairo": "Cairo pentagons.",
    "snub-square": "Snub square: squares and triangles.",
}


def shape_note(params: GameParams) -> str:
    """How a graph game's cells touch, in words ("" for grid games)."""
    spec = params.graph
    if spec is None:
        return ""
    note = _SHAPE_NOTES.get(spec.tiling, "")
    if spec.tiling:
        touch = "a side" if spec.sides else "a side or a corner"
        note += f" A number counts the mines in the cells that share {touch} with it."
    else:
        note += " A number counts the mines in the cells joined to it."
    return (
        note + " To see which, point at a cell or move the cursor onto it (on a phone: tap a "
        "number): its neighbours are outlined."
    ).strip()


def graph_preset(params: GameParams) -> str:
    """The tiling's preset a graph game was made with (``custom`` for anything else)."""
    spec = params.graph
    if spec is None or not spec.tiling or spec.sides:
        return "custom"
    cells = params.board().cell_count
    for preset in tiling(spec.tiling).presets:
        if preset.size == spec.size and preset.mines(cells) == params.mines:
            return preset.name
    return "custom"


def game_title(params: GameParams) -> str:
    spec = params.graph
    if spec is not None:
        name = PRESET_TITLES.get(graph_preset(params), "Custom")
        cells = params.board().cell_count
        shape = TILING_TITLES.get(spec.tiling, "graph board")
        if spec.sides:
            shape += " (sides)"
        return f"{name} {shape}, {plural(cells, 'cell')}, {plural(params.mines, 'mine')}"
    name = next(
        (PRESET_TITLES[n] for n, hwm in PRESETS.items()
         if hwm == (params.height, params.width, params.mines)),
        "Custom",
    )  # fmt: skip
    shape = {"square": "", "torus": " torus", "hex": " hex"}[params.topology.value]
    if params.holes:
        shape += " with holes"
    return f"{name} {params.width}\u00d7{params.height}{shape}, {plural(params.mines, 'mine')}"


def _graph_again(params: GameParams) -> list[tuple[str, str]]:
    spec = params.graph
    assert spec is not None
    if spec.file:
        return [("preset", "custom"), ("graph", spec.file), ("mines", str(params.mines))]
    preset = graph_preset(params)
    fields = [("preset", preset), ("topology", spec.tiling)]
    if preset == "custom":
        fields += [("size", ",".join(map(str, spec.size))), ("mines", str(params.mines))]
    if spec.sides:
        fields.append(("sides", "on"))
    return fields


def again_fields(params: GameParams) -> tuple[tuple[str, str], ...]:
    """Hidden fields of a "play again" form: the same settings, a new seed."""
    if params.graph is not None:
        count, mercy = params.rules.count.value, params.rules.mercy.value
        fields = [*_graph_again(params), ("count", count), ("mercy", mercy)]
        if params.no_guess:
            fields.append(("no_guess", "on"))
        return tuple(fields)
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


def ending_of(game: Game, show_loss: bool = True, sealed: bool = False) -> Ending | None:
    """What may be shown of the layouts: only for an ended game; ``sealed``: a lost game's
    real layout stays hidden (its witness stands in for it)."""
    if game.status is Status.PLAYING or game.layout is None:
        return None
    lost = game.status is Status.LOST
    return Ending(
        won=game.status is Status.WON,
        layout=game.witness if sealed and lost and game.witness is not None else game.layout,
        witness=game.witness if game.status is Status.LOST else None,
        loss=game.loss if show_loss else None,
    )


def _timestamp(value: datetime | None) -> float | None:
    return value.timestamp() if value is not None else None


def game_view(loaded: LoadedGame, mover: bool, panels: bool = True) -> GameView:
    """Everything the game templates show; ``panels``: with the teaching panels."""
    game = loaded.game
    params = game.params
    position = game.position
    playing = game.status is Status.PLAYING
    live = mover and playing
    bar = StatusView(
        mines_left=game.mines_left,
        moves=loaded.moves,
        rules=rules_text(params.rules.count.value, params.rules.mercy.value, game.no_guess),
        status=game.status.value,
        started_at=_timestamp(loaded.started_at),
        ended_at=None if playing else _timestamp(loaded.last_move_at),
        no_guess_note=game.no_guess_note,
    )
    loss_where = "" if game.loss is None else position.where(game.loss)
    duel = duel_of(loaded.id, not playing)
    watch_url = live_url = None
    if playing and not mover:
        watch_url = url_for("play.game", game_id=loaded.id, since=loaded.moves)
        if "live.events" in current_app.view_functions:
            live_url = url_for("live.events", game_id=loaded.id)
    return GameView(
        id=loaded.id,
        title=game_title(params),
        status=game.status.value,
        can_move=live,
        owner=mover,
        position=position,
        ending=ending_of(game, sealed=duel is not None and duel.sealed),
        bar=bar,
        moves=loaded.moves,
        mercy=params.rules.mercy.value,
        loss_where=loss_where,
        witness_mines=len(game.witness or ()),
        again=again_fields(params),
        watch_url=watch_url,
        live_url=live_url,
        teaching=teaching(loaded, mover) if panels else None,
        duel=duel,
        shape_note=shape_note(params),
    )


def move_message(before: Game, after: Game) -> str:
    """The live-region sentence after a move by the player."""
    last = after.moves[-1] if after.moves else None
    position = after.position
    if after.status is Status.WON:
        return f"You won in {plural(len(after.moves), 'move')}."
    if after.status is Status.LOST:
        assert after.loss is not None
        cell = position.where(after.loss)
        return (
            f"Boom: {cell} could be a mine (some layout that fits every number has a mine "
            "there), so the devil put one there. You lost."
        )
    if last is None:
        return ""
    clicked = position.board.cell(last.row, last.col)
    cell = position.where(clicked)
    if last.kind is MoveKind.FLAG:
        return f"Flagged {cell}. {plural(after.mines_left, 'mine')} left."
    if last.kind is MoveKind.UNFLAG:
        return f"Removed the flag on {cell}. {plural(after.mines_left, 'mine')} left."
    opened = after.revealed_count - before.revealed_count
    noun = "cell" if opened == 1 else "cells"
    if opened == 1:
        number = position.number(clicked)
        if last.kind is MoveKind.REVEAL and number is not None:
            return f"{cell}: {number_meaning(position, clicked)}."
    if opened == 0:
        return f"Nothing opened at {cell}."
    return f"Opened {opened} {noun} from {cell}."
