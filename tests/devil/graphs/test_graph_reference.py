"""The graph-board reader against a plain reference reader (``json.loads`` and dicts), on
random files, well formed and broken: the same cells, ids, labels, states, neighbour
lists, polygons, placement and mines, or the same error at the same path, through each
of the reader's paths (msgspec with the edges and polygons read from their text,
msgspec decoding them, and plain ``json``).

The reference follows the file format's rules (issue 20) in the order the format names
them, one check at a time; it shares no code with the reader.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from devil.errors import InconsistentPosition
from devil.graphs import _fast
from devil.graphs.fileformat import GraphFileError, read_graph
from devil.graphs.ids import shown_id
from devil.position import COVERED, FLAG, NUMBER_VALUE
from tests.helpers.strategies import profile

READERS = ("text", "fast", "plain")


@contextmanager
def _reader(name: str) -> Iterator[None]:
    """The reader's path: ``text`` (the compiled engine's way), ``fast`` (msgspec decodes
    the edges and polygons), ``plain`` (``json`` only)."""
    saved = _fast.msgspec, _fast.READ_AS_TEXT
    try:
        if name == "plain":
            _fast.msgspec = None
        else:
            _fast.READ_AS_TEXT = name == "text"
        yield
    finally:
        _fast.msgspec, _fast.READ_AS_TEXT = saved


@dataclass(frozen=True)
class Read:
    """What a file says, as the reference reads it (or the reader's result, compared)."""

    ids: list[str]
    labels: list[str | None]
    states: list[str | int]
    neighbours: dict[str, list[str]]
    polygons: list[list[tuple[float, float]] | None]
    at: list[tuple[float, float] | None]
    placement: tuple[list[float], list[float], list[float] | None] | None
    mines: int | None


class Refused(Exception):
    """The reference's error: the kind (``file`` or ``inconsistent``) and the path or id."""


def _fail(path: str) -> Refused:
    return Refused("file", path)


def _is_number(value: object) -> bool:
    return type(value) in (int, float) and -1e9 <= value <= 1e9  # type: ignore[operator]


def _point(value: object) -> bool:
    return type(value) is list and len(value) == 2 and all(map(_is_number, value))


def reference(text: str) -> Read:
    """The file read by the format's rules, one check at a time (raises ``Refused``)."""
    try:
        data = json.loads(text)
    except ValueError:
        raise _fail("") from None
    if type(data) is not dict:
        raise _fail("")
    if data.get("format") != "mine-devil-graph":
        raise _fail("format")
    if type(data.get("version")) is not int or data["version"] != 1:
        raise _fail("version")
    cells = data.get("cells")
    if type(cells) is not list or not cells:
        raise _fail("cells")
    edges = data.get("edges", [])
    if type(edges) is not list:
        raise _fail("edges")
    mines = data.get("mines")
    if mines is not None and (type(mines) is not int or mines < 0):
        raise _fail("mines")
    ids: list[str] = []
    labels: list[str | None] = []
    states: list[str | int] = []
    polygons: list[list[tuple[float, float]] | None] = []
    at: list[tuple[float, float] | None] = []
    for i, cell in enumerate(cells):
        where = f"cells[{i}]"
        if type(cell) is not dict:
            raise _fail(where)
        cell_id = cell.get("id")
        if type(cell_id) is not str or not 1 <= len(cell_id) <= 40 or cell_id in ids:
            raise _fail(f"{where}.id")
        state = cell.get("state")
        if state not in (".", "F") and not (type(state) is int and state >= 0):
            raise _fail(f"{where}.state")
        label = cell.get("label")
        if label is not None and (type(label) is not str or not 1 <= len(label) <= 80):
            raise _fail(f"{where}.label")
        polygon = cell.get("polygon")
        if polygon is not None:
            if type(polygon) is not list or not 3 <= len(polygon) <= 64:
                raise _fail(f"{where}.polygon")
            for k, corner in enumerate(polygon):
                if not _point(corner):
                    raise _fail(f"{where}.polygon[{k}]")
        centre = cell.get("at")
        if centre is not None and not _point(centre):
            raise _fail(f"{where}.at")
        ids.append(cell_id)
        labels.append(label)
        states.append(state)
        polygons.append(None if polygon is None else [(x, y) for x, y in polygon])
        at.append(None if centre is None else (centre[0], centre[1]))
    neighbours: dict[str, list[str]] = {cell_id: [] for cell_id in ids}
    seen: set[frozenset[str]] = set()
    for k, pair in enumerate(edges):
        if type(pair) is not list or len(pair) != 2 or not all(type(p) is str for p in pair):
            raise _fail(f"edges[{k}]")
        a, b = pair
        if a not in neighbours or b not in neighbours or a == b or frozenset(pair) in seen:
            raise _fail(f"edges[{k}]")
        seen.add(frozenset(pair))
        neighbours[a].append(b)
        neighbours[b].append(a)
    for cell_id, state in zip(ids, states, strict=True):
        if type(state) is int and state > len(neighbours[cell_id]):
            raise Refused("inconsistent", cell_id)
    return Read(ids, labels, states, neighbours, polygons, at, _placement(polygons, at), mines)


def _placement(
    polygons: list[list[tuple[float, float]] | None], at: list[tuple[float, float] | None]
) -> tuple[list[float], list[float], list[float] | None] | None:
    """Each cell's centre (``at``, else its corners' mean) and, when every cell has a
    polygon, the polygons' heights; None without a drawing or with a cell not drawn."""
    if all(p is None for p in polygons) and all(a is None for a in at):
        return None
    centres = []
    for polygon, centre in zip(polygons, at, strict=True):
        if centre is None and polygon is not None:
            centre = (
                sum(x for x, _ in polygon) / len(polygon),
                sum(y for _, y in polygon) / len(polygon),
            )
        if centre is None:
            return None
        centres.append(centre)
    heights = None
    if all(p is not None for p in polygons):
        heights = [max(y for _, y in p) - min(y for _, y in p) for p in polygons if p]
    return [c[0] for c in centres], [c[1] for c in centres], heights


def read(text: str) -> Read:
    """The reader's result in the reference's terms (raises ``Refused`` as it would)."""
    try:
        position = read_graph(text)
    except GraphFileError as err:
        raise _fail(err.path) from None
    except InconsistentPosition as err:
        raise Refused("inconsistent", str(err)) from None
    layout = position.board.graph
    assert layout is not None
    graph = layout.graph
    ids = list(graph.ids)
    states: list[str | int] = []
    for slot in layout.slots:
        byte = position.grid[slot]
        states.append("." if byte == COVERED else "F" if byte == FLAG else NUMBER_VALUE[byte])
    neighbours = {
        ids[i]: [layout.id(other) for other in layout.adjacency[slot]]
        for i, slot in enumerate(layout.slots)
    }
    cells = graph.cells
    where = graph.placement
    return Read(
        ids,
        list(graph.labels),
        states,
        neighbours,
        [None if c.polygon is None else list(c.polygon) for c in cells],
        [c.at for c in cells],
        None if where is None else (where.xs, where.ys, where.heights),
        position.mines,
    )


# -- random files ------------------------------------------------------------------------

IDS = st.text(st.sampled_from('ab1é "\\'), min_size=1, max_size=4)
COORDINATES = (
    st.floats(-1e9, 1e9, allow_nan=False)
    | st.integers(-(10**9), 10**9)
    | st.sampled_from([0.0, -0.0, 0.5, 0.866, 1e-7, 1.5e-20, 999999999.5, 123456789.123456789])
)


@st.composite
def files(draw: st.DrawFn) -> str:
    """A graph-board file's text: well formed, or broken in one random way."""
    ids = draw(st.lists(IDS, min_size=1, max_size=8, unique=True))
    n = len(ids)
    pairs = [[ids[a], ids[b]] for a in range(n) for b in range(a + 1, n)]
    chosen = draw(st.lists(st.sampled_from(pairs), unique_by=str, max_size=12)) if pairs else []
    edges = [pair[::-1] if draw(st.booleans()) else pair for pair in chosen]
    degree = {c: sum(c in pair for pair in edges) for c in ids}
    drawing = draw(st.sampled_from(["polygons", "at", "mixed", "none"]))
    cells: list[dict[str, Any]] = []
    for cell_id in ids:
        cell: dict[str, Any] = {"id": cell_id}
        cell["state"] = draw(st.sampled_from([".", "F", 0, degree[cell_id]]))
        if draw(st.integers(0, 3)) == 0:
            cell["label"] = draw(st.text(st.sampled_from("Lx é"), min_size=1, max_size=6))
        if drawing in ("polygons", "mixed"):
            corners = draw(st.integers(3, 6))
            cell["polygon"] = [[draw(COORDINATES), draw(COORDINATES)] for _ in range(corners)]
        if drawing == "at" or (drawing == "mixed" and draw(st.booleans())):
            cell["at"] = [draw(COORDINATES), draw(COORDINATES)]
        cells.append(cell)
    data: dict[str, Any] = {"format": "mine-devil-graph", "version": 1, "cells": cells}
    data["edges"] = edges
    if draw(st.booleans()):
        data["mines"] = draw(st.integers(0, 9))
    _break(draw, data)
    style = draw(st.sampled_from(["plain", "indent", "compact", "unicode"]))
    if style == "indent":
        return json.dumps(data, indent=draw(st.integers(0, 2)))
    if style == "compact":
        return json.dumps(data, separators=(",", ":"))
    return json.dumps(data, ensure_ascii=style == "plain")


def _break(draw: st.DrawFn, data: dict[str, Any]) -> None:
    """Leave the file well formed (half the time) or break one member."""
    if draw(st.booleans()):
        return
    cells, edges = data["cells"], data["edges"]
    cell = draw(st.sampled_from(cells))
    how = draw(
        st.sampled_from(
            [
                "state",
                "id",
                "duplicate",
                "label",
                "polygon",
                "corner",
                "at",
                "edge",
                "unknown",
                "self",
                "repeat",
                "mines",
                "version",
                "too many",
            ]
        )
    )
    if how == "state":
        cell["state"] = draw(st.sampled_from(["x", -1, True, 1.5, 2.0, None, [1]]))
    elif how == "id":
        cell["id"] = draw(st.sampled_from(["", "x" * 41, 7, None]))
    elif how == "duplicate":
        cell["id"] = cells[0]["id"]
    elif how == "label":
        cell["label"] = draw(st.sampled_from(["", "y" * 81, 3]))
    elif how == "polygon":
        cell["polygon"] = draw(st.sampled_from([[[0.0, 0.0]] * 2, [[0.5, 0.5]] * 65, "p", 1]))
    elif how == "corner":
        cell["polygon"] = [
            [0.0, 0.0],
            [1.0, 0.0],
            draw(st.sampled_from([[1.0], [2e9, 0.0], [0.5, True], "c"])),
        ]
    elif how == "at":
        cell["at"] = draw(st.sampled_from([[1.0], [0.0, -2e9], "a", [None, 1.0]]))
    elif how == "edge":
        edges.append(draw(st.sampled_from([[cell["id"]], [cell["id"], 3], "e", [cell["id"]] * 3])))
    elif how == "unknown":
        edges.append([cell["id"], "nobody"])
    elif how == "self":
        edges.append([cell["id"], cell["id"]])
    elif how == "repeat" and edges:
        edges.append(draw(st.sampled_from(edges))[::-1])
    elif how == "mines":
        data["mines"] = draw(st.sampled_from([-1, 1.5, True, "m"]))
    elif how == "version":
        data["version"] = draw(st.sampled_from([2, True, "1", None]))
    elif how == "too many":
        cell["state"] = len(cells) + 1  # more than any cell's neighbours


def _outcome(reader: Any, text: str) -> Read | Refused:
    try:
        return reader(text)
    except Refused as refused:
        return refused


@profile()
@given(files())
def test_the_reader_reads_as_the_reference_does(text: str) -> None:
    expected = _outcome(reference, text)
    event("refused: " + expected.args[0] if isinstance(expected, Refused) else "read")
    for name in READERS:
        with _reader(name):
            got = _outcome(read, text)
        if isinstance(expected, Refused):
            assert isinstance(got, Refused), (name, expected.args, got)
            kind, where = expected.args
            if kind == "inconsistent":  # the message names the cell (by label, and id)
                shown = shown_id(where)
                assert f"cell {shown} " in got.args[1] or f"(id {shown})" in got.args[1], name
            else:
                assert got.args == expected.args, name
        else:
            assert not isinstance(got, Refused), (name, got.args)
            assert repr(got) == repr(expected), name


@pytest.mark.parametrize(
    "number",
    ["0.866", "-0.0", "1e-07", "123456789.12345679", "0.30000000000000004",
     "5e-324", "1E5", "-999999999.9999999", "0.1e1", "0.100000000000000000000000001",
     "1.5e+8", "2.5E-300", "-1e9", "12345.6789e-3"],
)  # fmt: skip
def test_placement_from_text_reads_numbers_as_float_does(number: str) -> None:
    """Clinger's fast path and ``float`` itself agree with ``json`` to the last bit."""
    corners = f"[[{number}, 0.5], [0.25, {number}], [{number}, {number}]]"
    text = json.dumps(
        {
            "format": "mine-devil-graph",
            "version": 1,
            "cells": [{"id": "a", "state": "."}],
            "edges": [],
        }
    ).replace('"state": "."', f'"state": ".", "polygon": {corners}')
    expected = reference(text)
    for name in READERS:
        with _reader(name):
            assert repr(read(text)) == repr(expected), name
