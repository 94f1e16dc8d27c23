"""The board of a game on a graph: a built-in tiling (name, size, corner or side adjacency)
or a custom graph-board file, stored with the game so it replays.

``GraphSpec`` is part of ``GameParams`` (its ``graph`` field). The stored form
(``to_dict``) is ``{"tiling": "penrose", "size": [80], "sides": false}`` or
``{"file": "<the mine-devil-graph file, canonical JSON>"}``; a custom file is kept whole
(ids, labels, polygons, edges), so the game replays even if the tilings change.

A graph game's moves name cells by their slot on the board's virtual grid
(``devil.graphs.layout``): ``Move(kind, row, col)`` with ``board.coord(slot)``, the same as
grid games, so the store, replays and the ledger need no second move form. The web layer and
the API translate ids to slots and back (``GraphLayout.cell`` / ``GraphLayout.id``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from devil.board import Board
from devil.errors import InconsistentPosition
from devil.graphs.fileformat import (
    ANY_COORDINATE,
    GraphFileError,
    from_json,
    read_graph,
    to_json,
)
from devil.graphs.tilings import TILINGS, _cells_estimate, tiling, tiling_board
from devil.position import Position

GRAPH_GAME_MAX_CELLS = 5_000
"""Largest graph board a game may be played on (built-in or custom)."""
GRAPH_GAME_MAX_EDGES = 10 * GRAPH_GAME_MAX_CELLS
"""Most pairs of a new custom game's board (the tilings have at most 6 a cell): every load
of the game reads them again, and a page without polygons draws each one."""


class GraphSpecError(ValueError):
    """A graph board that cannot make a game; ``path`` names where (``graph.size``,
    ``graph.file.edges[3]``)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path


@dataclass(frozen=True)
class GraphSpec:
    """A built-in tiling (``tiling``, ``size``, ``sides``) or a custom board (``file``)."""

    tiling: str = ""
    size: tuple[int, ...] = ()
    sides: bool = False
    """Neighbours share a side (else a corner, the classic rule)."""
    file: str = ""
    """A custom board: the graph-board file's canonical JSON text (``tiling`` empty)."""

    def __post_init__(self) -> None:
        if not isinstance(self.size, tuple):
            object.__setattr__(self, "size", tuple(self.size))
        if bool(self.tiling) == bool(self.file):
            raise GraphSpecError("graph", "give either a tiling or a custom board file")
        if self.tiling:
            if self.tiling not in TILINGS:
                names = ", ".join(TILINGS)
                raise GraphSpecError(
                    "graph.tiling", f"unknown tiling {self.tiling!r}: expected one of {names}"
                )
            spec = tiling(self.tiling)
            if len(self.size) != len(spec.size_names) or not all(
                isinstance(s, int) and not isinstance(s, bool) and s >= 1 for s in self.size
            ):
                raise GraphSpecError(
                    "graph.size",
                    f"{self.tiling} takes {len(spec.size_names)} whole numbers >= 1 "
                    f"({', '.join(spec.size_names)}), not {list(self.size)}",
                )
            estimate = _cells_estimate(self.tiling, self.size)
            # a size number over the cell bound makes more cells than that on every tiling
            if estimate > 2 * GRAPH_GAME_MAX_CELLS or max(self.size) > GRAPH_GAME_MAX_CELLS:
                raise GraphSpecError(
                    "graph.size",
                    f"{self.tiling} at {list(self.size)} is too big: it makes about "
                    f"{estimate:,} cells and a game's graph board has at most "
                    f"{GRAPH_GAME_MAX_CELLS:,}",
                )
        if not isinstance(self.sides, bool):
            raise GraphSpecError("graph.sides", f"must be true or false, not {self.sides!r}")
        board = self.board()  # raises naming the problem
        if board.cell_count > GRAPH_GAME_MAX_CELLS:
            where, what = "graph.file.cells", ""
            if self.tiling:
                where, what = "graph.size", f"{self.tiling} at {list(self.size)} makes "
            raise GraphSpecError(
                where,
                f"{what}{board.cell_count:,} cells; a game's graph board has at most "
                f"{GRAPH_GAME_MAX_CELLS:,}",
            )

    @classmethod
    def custom(cls, data: object, where: str = "graph.file") -> GraphSpec:
        """A custom board from a parsed graph-board file (states and ``mines`` are ignored:
        a game starts covered). Errors name the JSON path under ``where``."""
        try:
            position = from_json(data, GRAPH_GAME_MAX_CELLS, GRAPH_GAME_MAX_EDGES)
        except GraphFileError as exc:
            raise _under(where, exc) from None
        except InconsistentPosition:  # an impossible number: states do not matter here
            assert isinstance(data, Mapping)  # from_json read it up to its numbers
            cells = [{**c, "state": "."} for c in data["cells"]]
            position = from_json(
                {**data, "cells": cells}, GRAPH_GAME_MAX_CELLS, GRAPH_GAME_MAX_EDGES
            )
        except ValueError as exc:
            raise GraphSpecError(where, str(exc)) from None
        return cls._covered(position)

    @classmethod
    def stored(cls, text: str) -> GraphSpec:
        """A custom board from a graph-board file's text that a game was already played on
        (a move list's ``graph`` line): read as a stored game's board is (any finite
        coordinate, any number of pairs up to the file format's bound), states ignored
        (an export writes every cell covered; a hand-made impossible number is refused,
        naming its cell). Errors name the JSON path under ``graph``."""
        try:
            position = read_graph(text, GRAPH_GAME_MAX_CELLS, max_coordinate=ANY_COORDINATE)
        except GraphFileError as exc:
            raise _under("graph", exc) from None
        except ValueError as exc:  # an impossible number, never in an export
            raise GraphSpecError("graph", str(exc)) from None
        return cls._covered(position)

    @classmethod
    def _covered(cls, position: Position) -> GraphSpec:
        """A custom board's spec: its file with every cell covered, as compact JSON."""
        blank = Position.covered(position.board)
        return cls(file=json.dumps(to_json(blank), separators=(",", ":")))

    def board(self) -> Board:
        return _board(self)

    @property
    def name(self) -> str:
        """How titles name the board: ``penrose 80``, ``cube 4 (sides)``, ``custom``."""
        if not self.tiling:
            return "custom graph"
        text = f"{self.tiling} {'x'.join(map(str, self.size))}"
        return text + (" (sides)" if self.sides else "")

    def summary(self) -> dict[str, Any]:
        """What the API says about the board: the tiling (name, size, sides) or ``custom``
        with its cell count (the file itself is served on its own)."""
        if self.file:
            return {"custom": True, "cells": self.board().cell_count}
        return {"tiling": self.tiling, "size": list(self.size), "sides": self.sides,
                "cells": self.board().cell_count}  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        if self.file:
            return {"file": self.file}
        return {"tiling": self.tiling, "size": list(self.size), "sides": self.sides}

    @classmethod
    def from_dict(cls, d: object) -> GraphSpec:
        if not isinstance(d, Mapping):
            raise GraphSpecError("graph", f"must be an object, not {d!r}")
        unknown = sorted(set(d) - {"tiling", "size", "sides", "file"})
        if unknown:
            raise GraphSpecError(f"graph.{unknown[0]}", "unknown key")
        size = d.get("size", [])
        if not isinstance(size, list | tuple):
            raise GraphSpecError("graph.size", f"must be a list of whole numbers, not {size!r}")
        file = d.get("file", "")
        if not isinstance(file, str):
            raise GraphSpecError("graph.file", "must be the graph file's text")
        tiling_name = d.get("tiling", "")
        if not isinstance(tiling_name, str):
            raise GraphSpecError("graph.tiling", f"must be a tiling's name, not {tiling_name!r}")
        return cls(tiling_name, tuple(size), d.get("sides", False), file)


def _under(where: str, exc: GraphFileError) -> GraphSpecError:
    """``exc`` as an error of the file found at ``where`` (its path prefixed by it)."""
    message = str(exc)[len(exc.path) + 2 :] if exc.path else str(exc)
    return GraphSpecError(f"{where}.{exc.path}" if exc.path else where, message)


@lru_cache(maxsize=64)
def _board(spec: GraphSpec) -> Board:
    if spec.file:
        try:
            # Boards stored before coordinates were bounded still load (new ones were
            # checked by ``custom``); the layout copes with far-flung drawings.
            return read_graph(spec.file, GRAPH_GAME_MAX_CELLS, max_coordinate=ANY_COORDINATE).board
        except ValueError as exc:
            raise GraphSpecError("graph.file", str(exc)) from None
    try:
        return tiling_board(spec.tiling, spec.size, spec.sides)
    except ValueError as exc:
        raise GraphSpecError("graph.size", str(exc)) from None
