"""Which table of records a game belongs to (its board), and the board's size in words.

Records rank only like with like. A grid game's board is its preset (``beginner``,
``intermediate``, ``expert``, else ``custom``: unchanged since the ledger began). A graph
game's is its tiling with the tiling's preset (``penrose/expert``) when its size, sides and
mines are the preset's, else the tiling with its size and mines (``penrose/100/20``);
``/sides`` ends the key when neighbours share a side; a custom board file is ``graph/`` with
a short digest of the file and its mines (``graph/3fa2b7c1d0/12``). ``preset`` stays the
coarser filter (the tiling's name) that ``/api/records?preset=penrose`` always answered.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from app.play.graph_params import density_mines
from app.play.params import PRESETS
from devil.board import Topology
from devil.game import GameParams, GraphSpec
from devil.graphs.tilings import tiling

BOARD_KEY_RE = re.compile(r"[a-z0-9][a-z0-9x/-]{0,63}")
"""What a board key looks like (the ``board`` filter refuses anything else)."""


@dataclass(frozen=True)
class RecordBoard:
    """``key``: the records table a game ranks in; ``size``: the board in words."""

    key: str
    size: str


def preset_of(params: GameParams) -> str:
    """``beginner``/``intermediate``/``expert`` when the board is one, else ``custom``; a
    graph game's records are kept per tiling (``penrose``, ``cube``...; ``graph`` for a
    custom board file)."""
    if params.graph is not None:
        return params.graph.tiling or "graph"
    if params.topology is Topology.SQUARE and not params.holes:
        for name, (height, width, mines) in PRESETS.items():
            if (params.height, params.width, params.mines) == (height, width, mines):
                return name
    return "custom"


def record_board(params: GameParams) -> RecordBoard:
    """The records table of a game with ``params``, and its size in words."""
    if params.graph is not None:
        return RecordBoard(_graph_key(params.graph, params.mines), _graph_size(params))
    size = f"{params.height}x{params.width}"
    if params.topology is not Topology.SQUARE:
        size += f" {params.topology.value}"
    if params.holes:
        size += f", {len(params.holes)} hole{'' if len(params.holes) == 1 else 's'}"
    return RecordBoard(preset_of(params), f"{size}, {_mines(params.mines)}")


def _graph_key(spec: GraphSpec, mines: int) -> str:
    if not spec.tiling:
        digest = hashlib.sha256(spec.file.encode()).hexdigest()[:10]
        return f"graph/{digest}/{mines}"
    key = f"{spec.tiling}/{'x'.join(map(str, spec.size))}/{mines}"
    board = spec.board()
    for preset in tiling(spec.tiling).presets:
        if preset.size == spec.size and mines == density_mines(board, preset.density):
            key = f"{spec.tiling}/{preset.name}"
    return key + ("/sides" if spec.sides else "")


def _graph_size(params: GameParams) -> str:
    assert params.graph is not None
    cells = params.graph.board().cell_count
    return f"{params.graph.name}: {cells:,} cells, {_mines(params.mines)}"


def _mines(n: int) -> str:
    return f"{n:,} mine{'' if n == 1 else 's'}"


def board_title(key: str, size: str, preset: str) -> str:
    """A records row's board for people: its preset's name, if it has one, and its size
    (``expert · 16x30, 99 mines``, ``penrose 100: 98 cells, 20 mines``)."""
    parts = key.split("/")
    named = parts[0] if len(parts) == 1 else parts[1]
    if parts[0] == "graph" or not named.isalpha():  # a file's digest, a size: words say it
        named = ""
    return " · ".join(p for p in (named, size) if p) or preset


def table_title(key: str, size: str, preset: str) -> str:
    """The heading of one board's records: the board, or for custom grids (sizes differ
    from row to row: each row says its own) just that."""
    if key == "custom":
        return "custom grids (each row's size beside it)"
    return board_title(key, size, preset)
