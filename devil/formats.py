"""Readers for the text formats ``devil-check`` accepts, with format auto-detection.

Every format becomes the same thing, a :class:`~devil.position.Position`. The pipeline:

1. ``_split_lines``: ``# key: value`` header lines (and ``# comment`` lines) before the board are
   collected; the board is the block of non-blank lines after them.
2. ``detect_format``: picks one of :data:`FORMATS` by the first rule in :data:`DETECTION_RULES`
   that matches; ``explain_format`` says which rule and why.
3. One small reader per format turns the board lines into native rows (``0-8 . F #``).
4. ``_build_position`` makes the board and the position.

Formats (see ``docs/devil-check.md`` for examples):

- ``native``: one line per row; ``0``-``8`` revealed, ``.`` or ``?`` covered, ``F`` flagged
  (covered; a mark only), ``#`` a hole (a cell that does not exist).
- ``codewars``: rows of space-separated tokens ``0``-``8`` or ``?`` (covered).
- ``jsminesweeper``: first line ``WxHxM`` (width, height, mines), then ``H`` rows of ``W``
  characters: ``H`` hidden, ``F`` (or ``M``) flagged, ``0``-``8`` revealed.
- ``minesweepr``: ``x`` covered, ``.`` a revealed zero, ``0``-``8`` revealed.

Headers understood in every format: ``# mines: N`` (total mines), ``# topology: square|torus|hex``.
Other ``# key: value`` headers (``name``, ``class``, ``note``...) are ignored. Every error is a
:class:`~devil.position.PositionError` naming the 1-based line and column of the bad input.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from devil.board import Board, BoardError, Topology
from devil.position import Position, PositionError

FORMATS: tuple[str, ...] = ("native", "codewars", "jsminesweeper", "minesweepr")
"""Names of the formats ``read_position`` understands, as ``detect_format`` returns them."""

_HEADER = re.compile(r"#\s*([A-Za-z][A-Za-z0-9_ -]*?)\s*:\s*(.*)")
_COMMENT = re.compile(r"#\s+\S")
_JS_SIZE = re.compile(r"(\d+)x(\d+)x(\d+)")


@dataclass(frozen=True)
class Line:
    """One non-blank board line: its 1-based number, leading blanks, and stripped text."""

    number: int
    indent: int
    text: str

    def column(self, index: int) -> int:
        """1-based column in the original line of ``text[index]``."""
        return self.indent + index + 1


@dataclass(frozen=True)
class Header:
    value: str
    line: int


@dataclass(frozen=True)
class Source:
    """Text split into headers (by lower-case key) and the board lines."""

    headers: dict[str, Header] = field(default_factory=dict)
    body: tuple[Line, ...] = ()


@dataclass(frozen=True)
class Rows:
    """What a format reader returns: native rows (``0-8 . F #``) and where they came from."""

    rows: list[str]
    lines: list[Line]
    mines: int | None = None
    mines_line: int | None = None


# -- splitting -----------------------------------------------------------------------------


def _split_lines(text: str) -> Source:
    """Headers before the board, then one block of non-blank lines (blank lines around it)."""
    headers: dict[str, Header] = {}
    body: list[Line] = []
    gap: int | None = None  # first blank line seen after the body started
    for number, raw in enumerate(text.removeprefix("\ufeff").splitlines(), start=1):
        stripped = raw.strip()
        if not stripped:
            if body and gap is None:
                gap = number
            continue
        if not body:
            header = _HEADER.fullmatch(stripped)
            if header:
                key = header.group(1).strip().lower()
                headers[key] = Header(header.group(2).strip(), number)
                continue
            if _COMMENT.match(stripped):
                continue
        elif _HEADER.fullmatch(stripped):
            raise PositionError("header after the board: '# key: value' lines go first", number)
        elif gap is not None:
            raise PositionError("blank line inside the board", gap)
        body.append(Line(number, len(raw) - len(raw.lstrip()), stripped))
    if not body:
        what = "only headers, no board rows" if headers else "no board rows"
        raise PositionError(f"empty input: {what}")
    return Source(headers, tuple(body))


# -- detection -----------------------------------------------------------------------------


def _is_jsminesweeper(body: tuple[Line, ...]) -> bool:
    match = _JS_SIZE.fullmatch(body[0].text)
    if match is None:
        return False
    width, height = int(match.group(1)), int(match.group(2))
    rows = body[1:]
    if len(rows) == height and all(len(line.text) == width for line in rows):
        return True
    # "1x1x1" is also a minesweepr row: when the shape does not fit the size line and every
    # line looks like a minesweepr row of one width, it is a minesweepr board.
    first = body[0].text
    return not all(
        len(line.text) == len(first) and set(line.text) <= _MINESWEEPR_TABLE.keys() for line in body
    )


def _is_codewars(body: tuple[Line, ...]) -> bool:
    return any(len(line.text.split()) > 1 for line in body)


def _is_minesweepr(body: tuple[Line, ...]) -> bool:
    return any("x" in line.text or "X" in line.text for line in body)


DETECTION_RULES: tuple[tuple[str, Callable[[tuple[Line, ...]], bool], str], ...] = (
    ("jsminesweeper", _is_jsminesweeper, "the first board line is a WxHxM size line"),
    ("codewars", _is_codewars, "board lines hold space-separated tokens"),
    ("minesweepr", _is_minesweepr, "board lines use 'x' for covered cells"),
    ("native", lambda body: True, "one character per cell and no 'x'"),
)
"""``(format, test on the board lines, reason)``, tried in order; the first match wins."""


def _detect(source: Source) -> tuple[str, str]:
    for name, test, reason in DETECTION_RULES:
        if test(source.body):
            return name, reason
    raise AssertionError("the native rule always matches")  # pragma: no cover


def detect_format(text: str) -> str:
    """The name of the format ``text`` is in (one of :data:`FORMATS`).

    >>> detect_format("3x2x1\\nH1\\n11\\n12\\n")
    'jsminesweeper'
    >>> detect_format("? 1\\n1 1")
    'codewars'
    >>> detect_format("x1.\\n11.")
    'minesweepr'
    >>> detect_format("# mines: 1\\n.1\\n11")
    'native'
    """
    return _detect(_split_lines(text))[0]


def explain_format(text: str) -> str:
    """One sentence saying which format ``text`` was read as and why."""
    name, reason = _detect(_split_lines(text))
    return f"{name}: {reason}"


# -- readers -------------------------------------------------------------------------------

_DIGITS = {d: d for d in "012345678"}
_NATIVE_TABLE = {**_DIGITS, ".": ".", "?": ".", "F": "F", "#": "#"}
_JSMINESWEEPER_TABLE = {**_DIGITS, "H": ".", "F": "F", "M": "F"}
_MINESWEEPR_TABLE = {**_DIGITS, ".": "0", "x": ".", "X": "."}


def _translate(line: Line, table: dict[str, str], expected: str) -> str:
    """``line`` in native characters, each looked up in ``table``; the first character
    missing from it is an error naming its line and column."""
    out = []
    for i, ch in enumerate(line.text):
        native = table.get(ch)
        if native is None:
            raise PositionError(
                f"unexpected character {ch!r} (expected {expected})", line.number, line.column(i)
            )
        out.append(native)
    return "".join(out)


def read_native(body: tuple[Line, ...]) -> Rows:
    """Native rows: ``0-8`` revealed, ``.``/``?`` covered, ``F`` flagged, ``#`` hole."""
    rows = [_translate(line, _NATIVE_TABLE, "0-8, '.', '?', 'F' or '#'") for line in body]
    _check_widths(rows, list(body))
    return Rows(rows, list(body))


def read_codewars(body: tuple[Line, ...]) -> Rows:
    """Codewars rows: space-separated ``0``-``8`` or ``?`` tokens."""
    rows = []
    for line in body:
        cells = []
        for token, start in _tokens(line.text):
            if len(token) != 1 or token not in "012345678?":
                raise PositionError(
                    f"unexpected token {token!r} (expected 0-8 or '?', separated by spaces)",
                    line.number,
                    line.column(start),
                )
            cells.append("." if token == "?" else token)
        rows.append("".join(cells))
    width = len(rows[0])
    for row, line in zip(rows, body, strict=True):
        if len(row) != width:
            starts = [start for _, start in _tokens(line.text)]
            column = (
                line.column(starts[width]) if len(row) > width else line.indent + len(line.text) + 1
            )
            raise PositionError(
                f"row has {len(row)} cells but the first row has {width}", line.number, column
            )
    return Rows(rows, list(body))


def read_jsminesweeper(body: tuple[Line, ...]) -> Rows:
    """JSMinesweeper: ``WxHxM`` then ``H`` rows of ``W`` of ``H`` (hidden), ``F``/``M``, ``0-8``."""
    size = body[0]
    match = _JS_SIZE.fullmatch(size.text)
    if match is None:
        raise PositionError(
            f"expected a size line WxHxM (width x height x mines), got {size.text!r}",
            size.number,
            size.column(0),
        )
    width, height, mines = (int(g) for g in match.groups())
    if width < 1 or height < 1:
        raise PositionError(
            f"size line {size.text!r}: width and height must be at least 1", size.number
        )
    lines = list(body[1:])
    if len(lines) != height:
        raise PositionError(
            f"size line {size.text!r} says {height} rows but {len(lines)} follow", size.number
        )
    rows = []
    for line in lines:
        row = _translate(line, _JSMINESWEEPER_TABLE, "'H', 'F', 'M' or 0-8")
        if len(row) != width:
            raise PositionError(
                f"row has {len(row)} cells but size line {size.text!r} says {width}",
                line.number,
                line.column(min(len(row), width)),
            )
        rows.append(row)
    return Rows(rows, lines, mines, size.number)


def read_minesweepr(body: tuple[Line, ...]) -> Rows:
    """minesweepr rows: ``x`` covered, ``.`` a revealed zero, ``0``-``8`` revealed."""
    rows = [_translate(line, _MINESWEEPR_TABLE, "'x', '.' or 0-8") for line in body]
    _check_widths(rows, list(body))
    return Rows(rows, list(body))


READERS: dict[str, Callable[[tuple[Line, ...]], Rows]] = {
    "native": read_native,
    "codewars": read_codewars,
    "jsminesweeper": read_jsminesweeper,
    "minesweepr": read_minesweepr,
}


def _tokens(text: str) -> list[tuple[str, int]]:
    """Whitespace-separated tokens with their 0-based start index."""
    return [(m.group(), m.start()) for m in re.finditer(r"\S+", text)]


def _check_widths(rows: list[str], lines: list[Line]) -> None:
    width = len(rows[0])
    for row, line in zip(rows, lines, strict=True):
        if len(row) != width:
            raise PositionError(
                f"row has {len(row)} cells but the first row has {width}",
                line.number,
                line.column(min(len(row), width)),
            )


# -- headers and building ------------------------------------------------------------------


def _header_mines(source: Source) -> tuple[int | None, int | None]:
    """``(mines, line)`` from a ``# mines: N`` header, or ``(None, None)``."""
    header = source.headers.get("mines")
    if header is None:
        return None, None
    if not re.fullmatch(r"\d+", header.value):
        raise PositionError(
            f"mines header {header.value!r} is not a whole number >= 0", header.line
        )
    return int(header.value), header.line


def _header_topology(source: Source) -> Topology | None:
    header = source.headers.get("topology")
    if header is None:
        return None
    try:
        return Topology.parse(header.value)
    except ValueError as exc:
        raise PositionError(f"topology header: {exc}", header.line) from None


def _resolve_mines(source: Source, rows: Rows) -> int | None:
    mines, line = _header_mines(source)
    if rows.mines is not None:
        if mines is not None and mines != rows.mines:
            raise PositionError(
                f"mines header says {mines} but the size line on line {rows.mines_line} "
                f"says {rows.mines}",
                line,
            )
        return rows.mines
    return mines


def _build_position(rows: list[str], topology: Topology, mines: int | None) -> Position:
    width = len(rows[0])
    text = "".join(rows)
    holes = frozenset(i for i, ch in enumerate(text) if ch == "#")
    try:
        board = Board(len(rows), width, topology, holes)
    except BoardError as exc:
        raise PositionError(str(exc)) from None
    return Position(board, text.encode("ascii"), mines)


def read_position(
    text: str,
    topology: Topology | None = None,
    mines: int | None = None,
    fmt: str | None = None,
) -> Position:
    """Read a position in any format in :data:`FORMATS` (auto-detected unless ``fmt`` is given).

    ``topology`` and ``mines`` override the ``# topology:`` / ``# mines:`` headers (and the
    mine count of a JSMinesweeper size line). Raises :class:`PositionError` naming the line and
    column of the first problem.

    >>> read_position("x1.\\n11.").line
    '.10/110'
    >>> read_position("? 1\\n1 1", mines=1).line
    '.1/11;mines=1'
    """
    source = _split_lines(text)
    if fmt is None:
        fmt, _ = _detect(source)
    elif fmt not in READERS:
        raise PositionError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")
    rows = READERS[fmt](source.body)
    found_mines = _resolve_mines(source, rows)
    topo = topology or _header_topology(source) or Topology.SQUARE
    total = found_mines if mines is None else mines
    if total is not None and total < 0:
        raise PositionError(f"total mines {total} is negative")
    return _build_position(rows.rows, topo, total)
