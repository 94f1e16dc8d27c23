"""The graph-board file (``"format": "mine-devil-graph"``, version 1): read and write.

A JSON object::

    {"format": "mine-devil-graph", "version": 1,
     "cells": [{"id": "t0", "state": ".", "polygon": [[0, 0], [1, 0], [0.5, 0.866]]},
               {"id": "t1", "state": 2}, {"id": "t2", "state": "F"}],
     "edges": [["t0", "t1"], ["t1", "t2"]],
     "mines": 12}

``state``: ``"."`` covered, ``"F"`` flagged (a mark, never a constraint), or a JSON
integer: revealed with that many mined neighbours. ``polygon`` / ``at`` are drawing
only, so is ``polygon3d`` (the cell's corners ``[x, y, z]`` on a solid: a viewer may
draw the board in a projection it can rotate); ``label`` names the cell in messages
(default its id). ``edges`` are unordered pairs; ``mines`` the optional total. Keys
this version does not know are ignored (a later version extends the format, never
renames).

Anything malformed raises ``GraphFileError`` whose message starts with where it is
(``edges[12]: ...``, ``cells[3].state: ...``); a number above its count of neighbours
raises ``InconsistentPosition`` naming the cell's id.
"""

from __future__ import annotations

import gc
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from itertools import chain, compress, repeat
from operator import ne
from typing import Any, NoReturn, cast

from devil.board import Cell
from devil.errors import InconsistentPosition
from devil.graphs import _fast
from devil.graphs.cells import MAX_COORDINATE, MAX_ID_LENGTH, CellGraph, GraphCell, Point, Point3
from devil.graphs.layout import graph_board
from devil.position import COVERED, FLAG, MAX_NUMBER, NUMBER_VALUE, Position, number_byte
from devil.solve.graph_lists import names_twice

FORMAT = "mine-devil-graph"
VERSION = 1
MAX_CELLS = 100_000
MAX_EDGES = 1_000_000
MAX_BYTES = 128 * 1024 * 1024
"""Largest file read (1,000,000 edges between ids of 40 characters fit)."""
MAX_CORNERS = 64
"""Most corners of one cell's polygon."""
TOO_DEEP = "its arrays and objects nest too deep to read (a graph board needs 5 levels)"


class GraphFileError(ValueError):
    """A graph-board file that cannot be read; ``path`` is where (``cells[3].state``)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path


def looks_like_graph(text: str | bytes) -> bool:
    """True when ``text`` is a JSON object that declares itself a graph-board file.

    Cheap: looks for an object's opening brace and the format's name anywhere in the text
    (a writer that sorts its keys puts ``"format"`` after ``"cells"`` and ``"edges"``, as
    the web API's ``/api/games/<id>/graph`` does), then parses to be sure (with msgspec
    when installed, whose decoding ``read_graph`` of the same text then reuses; else
    ``json``).
    """
    head = text[:4096]
    if isinstance(head, bytes):
        head = head.decode("utf-8", "replace")
    if not head.lstrip().startswith("{"):
        return False  # a grid's text: no search through it
    if not (FORMAT.encode() in text if isinstance(text, bytes) else FORMAT in text):
        return False
    try:
        with _no_cycle_collection():  # format_of decodes the whole file when it can
            known, declared = _fast.format_of(text)
        if known:
            return declared == FORMAT
        with _no_cycle_collection():
            data = json.loads(text)
    except ValueError:
        return False
    except RecursionError:
        return True  # names the format, nests too deep to tell: read_graph says so
    return isinstance(data, dict) and data.get("format") == FORMAT


def read_graph(
    text: str | bytes,
    max_cells: int = MAX_CELLS,
    max_edges: int = MAX_EDGES,
    max_coordinate: float = MAX_COORDINATE,
    *,
    undeclared: bool = False,
) -> Position:
    """The position a graph-board file describes (its board is a graph board); at most
    ``max_cells`` cells and ``max_edges`` pairs (the web's bounds are smaller), drawn with
    coordinates at most ``max_coordinate`` from 0 (a stored game's board, written before
    that bound, passes ``ANY_COORDINATE``). ``undeclared``: the reader was told the text
    is a graph board (``devil-check --input-format graph``), so an object without a
    ``"format"`` member is read as one."""
    if len(text) > MAX_BYTES:
        raise GraphFileError(
            "", f"the file has {len(text):,} bytes; the largest read is {MAX_BYTES:,}"
        )
    with _no_cycle_collection():
        try:
            parts = _fast.decode(text, max_cells, max_edges)
        except RecursionError:  # msgspec's own depth bound: json.loads names it below
            parts = None
        if (
            parts is not None
            and parts.format == FORMAT
            and parts.version == VERSION
            and parts.ends is not None
        ):
            graph = CellGraph.from_columns(
                parts.ids, parts.labels, parts.ends, parts.placement, parts.drawing
            )
            try:
                return _position(graph, parts.states, parts.mines, _refuse)
            except _Refused:
                pass  # a repeated pair: the plain path names it
        try:
            data = json.loads(text)
        except ValueError as err:
            raise GraphFileError("", f"not JSON: {err}") from None
        except RecursionError:
            raise GraphFileError("", TOO_DEEP) from None
        return from_json(data, max_cells, max_edges, max_coordinate, undeclared=undeclared)


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Millions of small lists and tuples (no cycles among them) are made while reading a
    big file: the cycle collector would walk them again and again."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def from_json(
    data: object,
    max_cells: int = MAX_CELLS,
    max_edges: int = MAX_EDGES,
    max_coordinate: float = MAX_COORDINATE,
    *,
    undeclared: bool = False,
) -> Position:
    """``read_graph`` on already-parsed JSON (the web API's request body)."""
    if not isinstance(data, dict):
        raise GraphFileError("", "a graph board is a JSON object")
    if data.get("format") != FORMAT and not (undeclared and "format" not in data):
        raise GraphFileError("format", f"must be {FORMAT!r}")
    if data.get("version") != VERSION or isinstance(data.get("version"), bool):
        raise GraphFileError("version", f"must be {VERSION} (the version this reader knows)")
    raw_cells = data.get("cells")
    if not isinstance(raw_cells, list) or not raw_cells:
        raise GraphFileError("cells", "must be a non-empty list of cells")
    if len(raw_cells) > max_cells:
        raise GraphFileError(
            "cells", f"{len(raw_cells):,} cells; a graph board has at most {max_cells:,}"
        )
    raw_edges = data.get("edges", [])
    if not isinstance(raw_edges, list):
        raise GraphFileError("edges", "must be a list of pairs of cell ids")
    if len(raw_edges) > max_edges:
        raise GraphFileError(
            "edges", f"{len(raw_edges):,} pairs; a graph board has at most {max_edges:,}"
        )
    mines = _mines(data.get("mines"))
    cells, states = _cells(raw_cells, max_coordinate)
    index = {c.id: i for i, c in enumerate(cells)}
    graph = CellGraph(cells, _edges(raw_edges, index))
    return _position(graph, states, mines, lambda: _bad_edge(raw_edges, index))


class _Refused(Exception):
    """The fast path's file has a repeated pair: read it again on the plain path."""


def _refuse() -> NoReturn:
    raise _Refused


def _position(
    graph: CellGraph,
    states: list[str | int],
    mines: int | None,
    repeated: Callable[[], NoReturn],
) -> Position:
    """The position of a well-formed graph and states (numbers checked against their
    degree); ``repeated`` raises when a pair repeats another (seen on the neighbour lists)."""
    _check_text(graph.ids, "id")
    _check_text(graph.labels, "label")
    board = graph_board(graph)
    layout = board.graph
    assert layout is not None
    adjacency = layout.adjacency
    if names_twice(adjacency):
        repeated()
    grid = bytearray(Position.covered(board).grid)
    slots = layout.slots
    for i in compress(range(len(states)), map(ne, states, repeat("."))):
        state = states[i]
        slot = slots[i]
        if state == "F":
            grid[slot] = FLAG
        elif isinstance(state, int):
            degree = len(adjacency[slot])
            if state > degree:
                noun = "neighbour" if degree == 1 else "neighbours"
                raise InconsistentPosition(
                    f"the {state} at {layout.where(slot)} has only {degree} {noun}", slot
                )
            if state > MAX_NUMBER:
                raise GraphFileError(
                    f"cells[{i}].state", f"numbers above {MAX_NUMBER} are not supported"
                )
            grid[slot] = number_byte(state)
    return Position(board, bytes(grid), mines)


def _check_text(texts: Sequence[str | None], key: str) -> None:
    """Refuse a lone surrogate (``"\\ud800"`` is valid JSON, not Unicode text): no page,
    file or answer could carry the id or label (one whole-list pass, then the culprit)."""
    try:
        "".join(filter(None, texts)).encode()
    except UnicodeEncodeError:
        for i, text in enumerate(texts):
            if text is not None and not text.isascii():
                try:
                    text.encode()
                except UnicodeEncodeError as exc:
                    raise GraphFileError(
                        f"cells[{i}].{key}",
                        f"has a lone surrogate (\\u{ord(text[exc.start]):x}), not Unicode text",
                    ) from None
        raise  # pragma: no cover - some text above failed the same way


def _mines(value: object) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise GraphFileError("mines", "must be a whole number >= 0 (the total of mines)")
    return value


def _cells(raw: list[Any], limit: float) -> tuple[list[GraphCell], list[str | int]]:
    cells: list[GraphCell] = []
    states: list[str | int] = []
    seen: dict[str, int] = {}
    for i, item in enumerate(raw):
        where = f"cells[{i}]"
        if not isinstance(item, dict):
            raise GraphFileError(where, "a cell is a JSON object with an id and a state")
        cell_id = item.get("id")
        if not isinstance(cell_id, str) or not 0 < len(cell_id) <= MAX_ID_LENGTH:
            raise GraphFileError(
                f"{where}.id", f"must be a non-empty string of at most {MAX_ID_LENGTH} characters"
            )
        if cell_id in seen:
            raise GraphFileError(
                f"{where}.id", f"duplicate id {cell_id!r} (also cells[{seen[cell_id]}])"
            )
        seen[cell_id] = i
        states.append(_state(item.get("state"), f"{where}.state"))
        label = item.get("label")
        if label is not None and (not isinstance(label, str) or not 0 < len(label) <= 80):
            raise GraphFileError(
                f"{where}.label", "must be a non-empty string of at most 80 characters"
            )
        polygon = item.get("polygon")
        at = item.get("at")
        solid = item.get("polygon3d")
        cells.append(
            GraphCell(
                cell_id,
                label,
                None if polygon is None else _polygon(polygon, f"{where}.polygon", limit),
                None if at is None else _point(at, f"{where}.at", limit),
                None if solid is None else _polygon3d(solid, f"{where}.polygon3d", limit),
            )
        )
    return cells, states


def _state(value: object, where: str) -> str | int:
    if value == "." or value == "F":
        return str(value)
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise GraphFileError(where, f"{value} is negative; a revealed number is >= 0")
        return value
    raise GraphFileError(
        where, f'{json.dumps(value)} is not a state: expected ".", "F" or a whole number'
    )


_NUMBER_TYPES = (int, float)
ANY_COORDINATE = sys.float_info.max
"""The coordinate bound of a stored game's board: any finite number, as before the bound."""


def _numbers(how_many: str, limit: float) -> str:
    """``two numbers from -1e+09 to 1e+09``; ``two finite numbers`` under ``ANY_COORDINATE``
    (NaN and Infinity, which ``json`` reads, are never coordinates)."""
    if limit >= ANY_COORDINATE:
        return f"{how_many} finite numbers"
    return f"{how_many} numbers from -{limit:.0e} to {limit:.0e}"


def _as_point(value: object, limit: float) -> Point | None:
    """``value`` as a point when it is ``[x, y]`` of two numbers (not booleans) at most
    ``limit`` from 0 (never NaN)."""
    if type(value) is list and len(value) == 2:
        x, y = value
        if (
            type(x) in _NUMBER_TYPES
            and type(y) in _NUMBER_TYPES
            and -limit <= x <= limit
            and -limit <= y <= limit
        ):
            return (x, y)
    return None


def _point(value: object, where: str, limit: float) -> Point:
    got = _as_point(value, limit)
    if got is None:
        raise GraphFileError(where, f"must be a point [x, y] of {_numbers('two', limit)}")
    return got


def _polygon(value: object, where: str, limit: float) -> tuple[Point, ...]:
    if not isinstance(value, list) or not 3 <= len(value) <= MAX_CORNERS:
        raise GraphFileError(where, f"must be a list of 3 to {MAX_CORNERS} points [x, y]")
    points = tuple(_as_point(v, limit) for v in value)
    if None in points:
        k = points.index(None)
        _point(value[k], f"{where}[{k}]", limit)
    return cast("tuple[Point, ...]", points)


def _as_point3(value: object, limit: float) -> Point3 | None:
    """``value`` as a 3-D point when it is ``[x, y, z]`` of numbers (not booleans) at most
    ``limit`` from 0."""
    if type(value) is list and len(value) == 3:
        x, y, z = value
        if all(type(v) in _NUMBER_TYPES and -limit <= v <= limit for v in (x, y, z)):
            return (x, y, z)
    return None


def _polygon3d(value: object, where: str, limit: float) -> tuple[Point3, ...]:
    if not isinstance(value, list) or not 3 <= len(value) <= MAX_CORNERS:
        raise GraphFileError(where, f"must be a list of 3 to {MAX_CORNERS} points [x, y, z]")
    points = tuple(_as_point3(v, limit) for v in value)
    if None in points:
        k = points.index(None)
        raise GraphFileError(
            f"{where}[{k}]", f"must be a point [x, y, z] of {_numbers('three', limit)}"
        )
    return cast("tuple[Point3, ...]", points)


def _edges(raw: list[Any], index: dict[str, int]) -> tuple[tuple[int, int], ...]:
    """The pairs as cell indices. Whole-list passes first (a million pairs: the bound);
    the first bad pair, when one is found, is named by ``_bad_edge``."""
    if raw and (set(map(type, raw)) != {list} or set(map(len, raw)) != {2}):
        _bad_edge(raw, index)
    ends = None
    try:
        ends = _fast.ends_of(list(chain.from_iterable(raw)), index)
    except TypeError:  # an unhashable "id" (a list, an object)
        _bad_edge(raw, index)
    if ends is None:
        _bad_edge(raw, index)
    return tuple(zip(*ends, strict=True))


def _bad_edge(raw: list[Any], index: dict[str, int]) -> NoReturn:
    """Raise the error of the first malformed, unknown, self or repeated pair of ``raw``."""
    seen: dict[tuple[int, int], int] = {}
    for k, pair in enumerate(raw):
        if not (type(pair) is list and len(pair) == 2):
            raise GraphFileError(f"edges[{k}]", "an edge is a pair [id, id]")
        a, b = pair
        if not (isinstance(a, str) and isinstance(b, str)):
            raise GraphFileError(f"edges[{k}]", "ids are strings")
        for x in (a, b):
            if x not in index:
                raise GraphFileError(f"edges[{k}]", f"unknown id {x!r}")
        i, j = index[a], index[b]
        if i == j:
            raise GraphFileError(f"edges[{k}]", f"a cell cannot be its own neighbour ({a!r})")
        first = seen.setdefault((min(i, j), max(i, j)), k)
        if first != k:
            raise GraphFileError(f"edges[{k}]", f"repeats the pair {a!r}, {b!r} (edges[{first}])")
    raise AssertionError("no bad pair found")  # pragma: no cover - callers found one


def to_json(position: Position) -> dict[str, Any]:
    """The file's JSON object for a graph-board position (cells in the graph's order)."""
    layout = position.board.graph
    if layout is None:
        raise ValueError("only a graph board is written as a graph-board file")
    graph = layout.graph
    cells: list[dict[str, Any]] = []
    grid = position.grid
    for i, cell in enumerate(graph.cells):
        byte = grid[layout.slots[i]]
        state: str | int
        if byte == COVERED:
            state = "."
        elif byte == FLAG:
            state = "F"
        else:
            state = NUMBER_VALUE[byte]
        out: dict[str, Any] = {"id": cell.id, "state": state}
        if cell.label is not None:
            out["label"] = cell.label
        if cell.polygon is not None:
            out["polygon"] = [list(p) for p in cell.polygon]
        if cell.at is not None:
            out["at"] = list(cell.at)
        if cell.polygon3d is not None:
            out["polygon3d"] = [list(p) for p in cell.polygon3d]
        cells.append(out)
    ids = [c.id for c in graph.cells]
    data: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "cells": cells,
        "edges": [[ids[a], ids[b]] for a, b in graph.edges],
    }
    if position.mines is not None:
        data["mines"] = position.mines
    return data


def write_graph(position: Position) -> str:
    """The graph-board file's text: one cell per line, a few edges per line."""
    data = to_json(position)
    head = f'{{"format": {json.dumps(FORMAT)}, "version": {VERSION},\n'
    cells = ",\n  ".join(json.dumps(c) for c in data["cells"])
    edges = _rows([json.dumps(e) for e in data["edges"]], 8)
    tail = f',\n "mines": {data["mines"]}' if "mines" in data else ""
    return f'{head} "cells": [\n  {cells}\n ],\n "edges": [\n  {edges}\n ]{tail}\n}}\n'


def _rows(items: Sequence[str], per_line: int) -> str:
    lines = [", ".join(items[k : k + per_line]) for k in range(0, len(items), per_line)]
    return ",\n  ".join(lines)


def covered_in_order(position: Position) -> list[Cell]:
    """The covered cells (flags included) of a graph board, in the file's order."""
    layout = position.board.graph
    assert layout is not None
    return [slot for slot in layout.slots if position.is_covered(slot)]
