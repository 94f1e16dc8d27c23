"""The graph-board file's fast path: typed decoding with ``msgspec`` (an optional dependency,
the ``fast`` extra), whole-list checks instead of a loop per cell.

``decode(text)`` returns the file's parts when the file is well formed, and None in every
other case (no msgspec, bad JSON, a wrong type, a bound passed, anything doubtful): the
caller then reads the file with ``json`` and its checks, which name what is wrong and where
with the same messages whichever path ran. So this path only ever accepts files the plain
path accepts, and gives them the same values (numbers keep their JSON type: ``1`` stays an
int, as ``json.loads`` reads it).

The parts are columns (one list per member, the pairs' two ends as two lists of cell
indices), not a Python object per cell or per pair: a 100,000-cell file would make half a
million of them, and the cycle collector would then walk them all. The edges are kept as
their JSON text by msgspec and read by the compiled ``pair_ends`` without a string per id
(two million of them, and as many dict lookups, were 0.4 s of a million-pair file); text
it does not read (escapes, an unknown id) is decoded by msgspec and looked up as before.
The polygons are drawing only: they are checked and reduced to what the layout needs
(``Placement``) here, and kept as their JSON text (``Drawing``), decoded again only when
the board is drawn or written. Compiled, the placement is read from that text by
``polygon_text_placement`` (no tuple per corner nor float per number: a 100,000-triangle
file made a million of them); text it does not read (an integer coordinate, a cell
without a polygon...) is decoded by msgspec and placed as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence, Sized
from dataclasses import dataclass
from functools import partial
from itertools import chain
from operator import attrgetter, eq, is_not
from typing import Annotated, Any, cast

from devil import native
from devil.graphs.cells import (
    MAX_COORDINATE,
    MAX_ID_LENGTH,
    GraphCell,
    Placement,
    Point,
    Point3,
    placement,
)
from devil.solve.graph_lists import pair_ends, polygon_text_placement

# Typed both with and without the optional msgspec installed (hence "unused-ignore").
try:
    import msgspec  # type: ignore[import-not-found, unused-ignore]
except ImportError:  # pragma: no cover - the fast extra is not installed
    msgspec = None  # type: ignore[assignment, unused-ignore]

MAX_LABEL = 80
READ_AS_TEXT = native.ENGINE == "compiled"
"""Read the edges with ``pair_ends`` and the polygons' placement with
``polygon_text_placement`` from their text (loops per byte: fast only compiled), else
decode them with msgspec."""
MAX_CORNERS = 64
_STATES = frozenset({".", "F"})
_MAX_INT = int(MAX_COORDINATE)

if msgspec is not None:
    Number = (
        Annotated[int, msgspec.Meta(ge=-_MAX_INT, le=_MAX_INT)]
        | Annotated[float, msgspec.Meta(ge=-MAX_COORDINATE, le=MAX_COORDINATE)]
    )
    _NULL = msgspec.Raw(b"null")

    class _Cell(msgspec.Struct, gc=False):  # type: ignore[misc, unused-ignore]
        id: str
        state: str | int
        label: str | None = None
        polygon: msgspec.Raw = _NULL  # checked by _POLYGONS, kept as text
        at: tuple[Number, Number] | None = None
        polygon3d: msgspec.Raw = _NULL  # checked by _SOLIDS, kept as text

    class _File(msgspec.Struct, gc=False):  # type: ignore[misc, unused-ignore]
        format: str
        version: int
        cells: list[_Cell]
        edges: msgspec.Raw = msgspec.Raw(b"[]")  # read by pair_ends, else by _EDGES
        mines: int | None = None

    class _Head(msgspec.Struct, gc=False):  # type: ignore[misc, unused-ignore]
        format: Any = None

    _DECODER: Any = msgspec.json.Decoder(_File)
    _HEAD: Any = msgspec.json.Decoder(_Head)
    _EDGES: Any = msgspec.json.Decoder(list[tuple[str, str]])
    _POLYGONS: Any = msgspec.json.Decoder(list[tuple[tuple[Number, Number], ...] | None])
    _SOLIDS: Any = msgspec.json.Decoder(list[tuple[tuple[Number, Number, Number], ...] | None])


@dataclass(frozen=True)
class Parts:
    """A well-formed file's contents, as columns: ``ends`` the pairs' first and second
    cell indices, None when a pair names an unknown id or one cell twice."""

    format: str
    version: int
    ids: list[str]
    labels: list[str | None]
    states: list[str | int]
    ends: tuple[list[int], list[int]] | None
    mines: int | None
    placement: Placement | None
    drawing: Drawing


@dataclass(frozen=True, eq=False)
class Drawing:
    """The cells' drawing members as the file wrote them: ``polygons`` and ``solids`` the
    JSON text of one list (``null`` for a cell without), ``at`` decoded. Calling it makes
    the cells (``CellGraph.cells``): the polygons are decoded only when a board is drawn."""

    ids: Sequence[str]
    labels: Sequence[str | None]
    polygons: bytes
    at: Sequence[Point | None]
    solids: bytes | None

    def __call__(self) -> tuple[GraphCell, ...]:
        polygons: list[tuple[Point, ...] | None] = _POLYGONS.decode(self.polygons)
        solids: Sequence[tuple[Point3, ...] | None] = (
            [None] * len(self.ids) if self.solids is None else _SOLIDS.decode(self.solids)
        )
        return tuple(map(GraphCell, self.ids, self.labels, polygons, self.at, solids))


def available() -> bool:
    return msgspec is not None


_decoded: tuple[object, Any] | None = None
"""The text ``format_of`` last read whole, and what it decoded (``_File``): ``decode`` of
the same text object takes it instead of parsing the file again. One entry, dropped when
taken or replaced."""


def format_of(text: str | bytes) -> tuple[bool, object]:
    """``(True, the top-level "format")`` of a JSON object, ``(False, None)`` when msgspec
    cannot tell (not installed, not an object, or JSON it refuses: ask ``json``).

    A detected file is usually read next (``devil-check``), so a file the fast path can
    read is decoded whole here and kept for ``decode``: one parse of the text, not two."""
    global _decoded
    if msgspec is None:
        return False, None
    _decoded = None
    try:
        data = _DECODER.decode(text)
    except (msgspec.DecodeError, msgspec.ValidationError):
        pass
    else:
        _decoded = (text, data)
        return True, data.format
    try:
        return True, _HEAD.decode(text).format
    except (msgspec.DecodeError, msgspec.ValidationError):
        return False, None


def _decode_file(text: str | bytes) -> Any:
    """The file decoded as ``_File`` (kept by ``format_of``, else parsed now)."""
    global _decoded
    kept = _decoded
    if kept is not None and kept[0] is text:
        _decoded = None
        return kept[1]
    return _DECODER.decode(text)


def decode(text: str | bytes, max_cells: int, max_edges: int) -> Parts | None:
    """The file's parts, or None: let the plain reader say what is wrong (see the module)."""
    if msgspec is None:
        return None
    try:
        data = _decode_file(text)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    raw = data.cells
    n = len(raw)
    if not 0 < n <= max_cells:
        return None
    if data.mines is not None and data.mines < 0:
        return None
    ids = list(map(_ID, raw))
    lengths = set(map(len, ids))
    index = dict(zip(ids, range(n), strict=True))
    if min(lengths) == 0 or max(lengths) > MAX_ID_LENGTH or len(index) != n:
        return None
    states = list(map(_STATE, raw))
    if not all(s in _STATES if type(s) is str else s >= 0 for s in set(states)):
        return None
    labels = list(map(_LABEL, raw))
    named = [label for label in labels if label is not None]
    if named and (not min(map(len, named)) > 0 or max(map(len, named)) > MAX_LABEL):
        return None
    polygon_text = _joined(map(_POLYGON, raw))
    solid_raw = list(map(_SOLID, raw))
    # A flat board's cells all have the shared default: no text to join and decode.
    solid_text = None if solid_raw.count(_NULL) == n else _joined(solid_raw)
    at = list(map(_AT, raw))
    fmt, version, mines, edges = data.format, data.version, data.mines, data.edges
    del data, raw
    drawn = _drawn(polygon_text, solid_text, at)
    if drawn is None:
        return None
    where, has_solids = drawn
    ends = None
    if READ_AS_TEXT:
        ends = pair_ends(bytes(edges), list(map(str.encode, ids)), index, max_edges)
    if ends is None:
        try:
            pairs = _EDGES.decode(edges)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None
        if len(pairs) > max_edges:
            return None
        ends = ends_of(list(chain.from_iterable(pairs)), index)
        del pairs  # a million small objects: freed before the layout makes its own
    drawing = Drawing(ids, labels, polygon_text, at, solid_text if has_solids else None)
    return Parts(fmt, version, ids, labels, states, ends, mines, where, drawing)


def _drawn(
    polygon_text: bytes, solid_text: bytes | None, at: list[Point | None]
) -> tuple[Placement | None, bool] | None:
    """The placement of the cells' drawing and whether a cell has a ``polygon3d``; None
    when a drawing member is malformed. A board of polygons only (no ``at``) is placed
    from the polygons' text, without an object per corner, when the text allows."""
    n = len(at)
    try:
        solids = [None] * n if solid_text is None else _SOLIDS.decode(solid_text)
    except msgspec.ValidationError:
        return None
    if not _corners_ok(solids):
        return None
    has_solids = solids.count(None) != n
    del solids
    if READ_AS_TEXT and at.count(None) == n:
        computed = polygon_text_placement(polygon_text, MAX_COORDINATE, MAX_CORNERS)
        if computed is not None:
            return Placement(*computed), has_solids
    try:
        polygons: list[tuple[Point, ...] | None] = _POLYGONS.decode(polygon_text)
    except msgspec.ValidationError:
        return None
    if not _corners_ok(polygons):
        return None
    return placement(polygons, at), has_solids


def ends_of(ids: Sequence[object], index: dict[str, int]) -> tuple[list[int], list[int]] | None:
    """The pairs' first and second cell indices, of ``ids`` that list both ids of every
    pair in turn (``[a0, b0, a1, b1, ...]``); None when an id is unknown or a pair names
    one cell twice (``TypeError``: an unhashable id)."""
    cells = list(map(index.get, ids))  # type: ignore[arg-type]
    if None in cells:
        return None
    firsts, seconds = cast("list[int]", cells[0::2]), cast("list[int]", cells[1::2])
    if any(map(eq, firsts, seconds)):
        return None
    return firsts, seconds


def _joined(texts: Iterable[Any]) -> bytes:
    """One JSON list of the cells' raw values (``null`` for a cell without)."""
    return b"[" + b",".join(texts) + b"]"


_ID = attrgetter("id")
_STATE = attrgetter("state")
_LABEL = attrgetter("label")
_POLYGON = attrgetter("polygon")
_AT = attrgetter("at")
_SOLID = attrgetter("polygon3d")


def _corners_ok(polygons: Sequence[Sized | None]) -> bool:
    sizes = set(map(len, cast("Iterator[Sized]", filter(partial(is_not, None), polygons))))
    return not sizes or (min(sizes) >= 3 and max(sizes) <= MAX_CORNERS)
