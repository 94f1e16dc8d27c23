"""The graph-board file's fast path: typed decoding with ``msgspec`` (an optional dependency,
the ``fast`` extra), whole-list checks instead of a loop per cell.

``decode(text)`` returns the file's parts when the file is well formed, and None in every
other case (no msgspec, bad JSON, a wrong type, a bound passed, anything doubtful): the
caller then reads the file with ``json`` and its checks, which name what is wrong and where
with the same messages whichever path ran. So this path only ever accepts files the plain
path accepts, and gives them the same values (numbers keep their JSON type: ``1`` stays an
int, as ``json.loads`` reads it).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence, Sized
from dataclasses import dataclass
from functools import partial
from operator import attrgetter, is_not
from typing import Any, cast

from devil.graphs.cells import MAX_ID_LENGTH, GraphCell

# Typed both with and without the optional msgspec installed (hence "unused-ignore").
try:
    import msgspec  # type: ignore[import-not-found, unused-ignore]
except ImportError:  # pragma: no cover - the fast extra is not installed
    msgspec = None  # type: ignore[assignment, unused-ignore]

MAX_LABEL = 80
MAX_CORNERS = 64
_STATES = frozenset({".", "F"})

if msgspec is not None:
    Number = int | float

    class _Cell(msgspec.Struct):  # type: ignore[misc, unused-ignore]
        id: str
        state: str | int
        label: str | None = None
        polygon: tuple[tuple[Number, Number], ...] | None = None
        at: tuple[Number, Number] | None = None
        polygon3d: tuple[tuple[Number, Number, Number], ...] | None = None

    class _File(msgspec.Struct):  # type: ignore[misc, unused-ignore]
        format: str
        version: int
        cells: list[_Cell]
        edges: list[tuple[str, str]] = msgspec.field(default_factory=list)
        mines: int | None = None

    _DECODER: Any = msgspec.json.Decoder(_File)


@dataclass(frozen=True)
class Parts:
    """A well-formed file's contents (edges not yet checked against the ids)."""

    format: str
    version: int
    cells: list[GraphCell]
    states: list[str | int]
    edges: list[tuple[str, str]]
    mines: int | None


def available() -> bool:
    return msgspec is not None


def decode(text: str | bytes, max_cells: int, max_edges: int) -> Parts | None:
    """The file's parts, or None: let the plain reader say what is wrong (see the module)."""
    if msgspec is None:
        return None
    try:
        data = _DECODER.decode(text)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    raw = data.cells
    n = len(raw)
    if not 0 < n <= max_cells or len(data.edges) > max_edges:
        return None
    if data.mines is not None and data.mines < 0:
        return None
    ids = list(map(_ID, raw))
    lengths = set(map(len, ids))
    if min(lengths) == 0 or max(lengths) > MAX_ID_LENGTH or len(set(ids)) != n:
        return None
    states = list(map(_STATE, raw))
    if not all(s in _STATES if type(s) is str else s >= 0 for s in set(states)):
        return None
    labels = list(map(_LABEL, raw))
    named = [label for label in labels if label is not None]
    if named and (not min(map(len, named)) > 0 or max(map(len, named)) > MAX_LABEL):
        return None
    polygons = list(map(_POLYGON, raw))
    solids = list(map(_SOLID, raw))
    if not (_corners_ok(polygons) and _corners_ok(solids)):
        return None
    cells = list(map(GraphCell, ids, labels, polygons, map(_AT, raw), solids))
    return Parts(data.format, data.version, cells, states, data.edges, data.mines)


_ID = attrgetter("id")
_STATE = attrgetter("state")
_LABEL = attrgetter("label")
_POLYGON = attrgetter("polygon")
_AT = attrgetter("at")
_SOLID = attrgetter("polygon3d")


def _corners_ok(polygons: Sequence[Sized | None]) -> bool:
    sizes = set(map(len, cast("Iterator[Sized]", filter(partial(is_not, None), polygons))))
    return not sizes or (min(sizes) >= 3 and max(sizes) <= MAX_CORNERS)
