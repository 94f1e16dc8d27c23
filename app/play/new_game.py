"""The new-game form of the home page: presets, board shapes, what the form sends back on an
error, and the game parameters it asks for."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC
from typing import Any

from app.errors import InputError
from app.fields import size_parts
from app.play.params import BROWSER_MAX_SIDE, PRESETS, parse_params
from app.play.view import PRESET_TITLES, game_title, plural
from app.store.records import GameRow
from devil.board import hole_pattern
from devil.game import GameParams
from devil.graphs.fileformat import TOO_DEEP

TOPOLOGIES = (
    ("square", "Square", "8 neighbours"),
    ("torus", "Torus", "the edges wrap around"),
    ("hex", "Hexagons", "6 neighbours"),
    ("holes", "Square with holes", "gaps in the board"),
)

GRAPH_TILINGS = (
    ("triangle", "Triangles", "12 neighbours"),
    ("truncated-square", "Octagons and squares", "8 or 4 neighbours"),
    ("rhombille", "Rhombs", "three to a hexagon, 10 neighbours"),
    ("cairo", "Cairo pentagons", "7 neighbours"),
    ("snub-square", "Snub square", "squares and triangles, 9 to 12 neighbours"),
    ("penrose", "Penrose rhombs", "never repeats, 8 to 11 neighbours"),
    ("cube", "Cube", "six faces, 8 neighbours, even across an edge"),
    ("geodesic", "Geodesic sphere", "a ball of triangles, 12 neighbours"),
)
"""The tilings offered beyond the grid shapes (``devil.graphs.tilings``): graph games."""

DEFAULT_FORM: dict[str, Any] = {
    "preset": "beginner", "width": 9, "height": 9, "mines": 10, "topology": "square",
    "count": "classic", "mercy": "strict", "no_guess": True, "seed": "", "size": "",
    "sides": False, "graph": "",
}  # fmt: skip


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


@dataclass(frozen=True)
class RecentView:
    id: str
    title: str
    status: str
    detail: str


def recent_view(row: GameRow) -> RecentView:
    params = GameParams.from_dict(dict(row.params))
    when = row.created_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    detail = f"{plural(row.moves, 'move')} · {when}"
    return RecentView(row.id, game_title(params), row.status, detail)


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
        "size": form.get("size", ""),
        "sides": form.get("sides") == "on",
        "graph": form.get("graph", ""),
    }


def _graph_form(form: Mapping[str, str], data: dict[str, Any], preset: str) -> GameParams:
    """A graph game from the form: a tiling (``topology``) or a pasted board (``graph``)."""
    text = (form.get("graph") or "").strip()
    if text:
        try:
            data["graph"] = json.loads(text)
        except ValueError as exc:
            raise InputError("graph", f"graph: the board file is not JSON: {exc}") from None
        except RecursionError:
            raise InputError("graph", f"graph: the board file {TOO_DEEP}") from None
        if preset == "custom" and (form.get("mines") or "").strip():
            data["mines"] = form["mines"]  # shown only under Custom: else the file's total
        return parse_params(data)
    data["tiling"] = (form.get("topology") or "").strip().lower()
    data["sides"] = "on" if form.get("sides") == "on" else "off"
    if preset == "custom":
        size = size_parts(form.get("size") or "")
        if not size:
            raise InputError("size", "size is missing: give the tiling's size, e.g. 12,12 or 200")
        data["size"] = size
        data["mines"] = form.get("mines", "")
    else:
        data["preset"] = preset
    return parse_params(data)


def params_from_form(form: Mapping[str, str]) -> GameParams:
    """Game parameters from the new-game form (raises InputError naming the field)."""
    data: dict[str, Any] = {
        "count": form.get("count", "classic"),
        "mercy": form.get("mercy", "strict"),
        "no_guess": "on" if form.get("no_guess") == "on" else "off",
        "seed": form.get("seed", ""),
    }
    preset = (form.get("preset") or "custom").strip().lower()
    graph_shape = (form.get("topology") or "").strip().lower() in {t[0] for t in GRAPH_TILINGS}
    if graph_shape or (form.get("graph") or "").strip():
        if preset != "custom" and preset not in PRESETS:
            raise InputError("preset", f"preset must be one of {', '.join(PRESETS)} or custom")
        return _graph_form(form, data, preset)
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
        plain = parse_params({**data, "topology": "square"}, max_side=BROWSER_MAX_SIDE)
        data["topology"] = "square"
        data["holes"] = [list(rc) for rc in hole_pattern(plain.height, plain.width)]
        data["seed"] = plain.seed
    else:
        data["topology"] = topology
    return parse_params(data, max_side=BROWSER_MAX_SIDE)
