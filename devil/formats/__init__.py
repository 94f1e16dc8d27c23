"""Reading the text formats ``devil-check`` and the analysis board accept, with a format
detection that explains itself.

Every format becomes the same thing, a :class:`~devil.position.Position`. The pipeline, one
module per step:

1. :mod:`devil.formats.text` (``split_lines``): ``# key: value`` headers and ``# comment``
   lines before the board are collected and checked; the board is the block of non-blank
   lines after them. Lines end at ``\\n``, ``\\r\\n`` or ``\\r`` only.
2. :mod:`devil.formats.detection` (``detect``): picks one of :data:`FORMATS` and returns a
   :class:`FormatReport` saying which and why (the deciding line and column).
3. :mod:`devil.formats.readers`: one small reader per format turns the board lines into
   native rows (``0-8 . F #``).
4. ``_build_position`` (here) makes the board and the position.

:func:`read` runs the pipeline and returns a :class:`Reading`: the position, the format report
(show ``reading.report.note`` when it is not None) and where the mine total came from;
:func:`read_position` is ``read(...).position``.

Detection never guesses from a single odd character: a native board with a stray character is
an error naming its line and column, never a silent switch of format. Numbers are ASCII
digits only. Every error is a :class:`FormatError` (a :class:`~devil.position.PositionError`)
naming the 1-based line and column of the bad input; columns count characters (a tab is one).
See ``docs/devil-check.md`` for the formats, the headers and examples.
"""

from __future__ import annotations

from dataclasses import dataclass

from devil.board import Board, BoardError, Topology
from devil.formats.detection import (
    DETECTION_RULES,
    FORMATS,
    LEGENDS,
    FormatReport,
    detect,
    detect_format,
    detect_source,
    explain_format,
)
from devil.formats.readers import READERS, Rows
from devil.formats.text import (
    DESCRIPTION_HEADERS,
    HEADERS,
    MAX_DIGITS,
    FormatError,
    Source,
    describe_char,
    header_mines,
    header_topology,
    non_ascii_digit,
    split_lines,
)
from devil.position import Position

__all__ = [
    "DESCRIPTION_HEADERS",
    "DETECTION_RULES",
    "FORMATS",
    "HEADERS",
    "LEGENDS",
    "MAX_DIGITS",
    "READERS",
    "FormatError",
    "FormatReport",
    "Reading",
    "describe_char",
    "detect",
    "detect_format",
    "explain_format",
    "non_ascii_digit",
    "read",
    "read_position",
]


@dataclass(frozen=True)
class Reading:
    """What ``read`` returns: the position, how its text was read, and where its total is from."""

    position: Position
    report: FormatReport
    total_from: str | None = None
    """Where ``position.mines`` came from in the text (``"the '# mines: 2' header on line 1"``,
    ``"the size line '5x3x2' on line 1"``); None when there is no total or the caller gave it."""


def _resolve_mines(source: Source, rows: Rows) -> tuple[int | None, str | None]:
    """The total the text gives, and where it says so."""
    mines, line = header_mines(source)
    if rows.mines is not None:
        if mines is not None and mines != rows.mines:
            raise FormatError(
                f"mines header says {mines} but the size line on line {rows.mines_line} "
                f"says {rows.mines}",
                line,
            )
        return rows.mines, f"the size line on line {rows.mines_line}"
    if mines is None:
        return None, None
    return mines, f"the '# mines: {mines}' header on line {line}"


def _build_position(rows: list[str], topology: Topology, mines: int | None) -> Position:
    width = len(rows[0])
    text = "".join(rows)
    holes = frozenset(i for i, ch in enumerate(text) if ch == "#")
    try:
        board = Board(len(rows), width, topology, holes)
    except BoardError as exc:
        raise FormatError(str(exc)) from None
    return Position(board, text.encode("ascii"), mines)


def read(
    text: str,
    topology: Topology | None = None,
    mines: int | None = None,
    fmt: str | None = None,
) -> Reading:
    """Read a position in any format in :data:`FORMATS` (detected unless ``fmt`` is given),
    with the :class:`FormatReport` saying which format and why.

    ``topology`` and ``mines`` override the ``# topology:`` / ``# mines:`` headers (and the
    mine count of a JSMinesweeper size line). Raises :class:`FormatError` naming the line and
    column of the first problem; when detection turned down a format, the error says why.

    >>> reading = read("x1.\\n11.")
    >>> reading.position.line, reading.report.format, reading.report.column
    ('.10/110', 'minesweepr', 1)
    """
    source = split_lines(text)
    if fmt is None:
        report = detect_source(source, topology)
    elif fmt in READERS:
        report = FormatReport(fmt, "named by the caller", detected=False)
    else:
        raise FormatError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")
    try:
        rows = READERS[report.format](source.body)
    except FormatError as exc:
        if report.passed_over is None:
            raise
        # name the character, say what was likely meant, and why not the format it looked like
        cross = "character 'x'" in exc.detail or "character 'X'" in exc.detail
        advice = ": for a covered cell write '.'" if cross else ""
        detail = f"{exc.detail}{advice} ({report.reason})"
        raise FormatError(detail, exc.line, exc.column) from None
    found, total_from = _resolve_mines(source, rows)
    topo = topology or header_topology(source) or Topology.SQUARE
    if mines is not None:
        found, total_from = mines, None
    if found is not None and found < 0:
        raise FormatError(f"total mines {found} is negative")
    return Reading(_build_position(rows.rows, topo, found), report, total_from)


def read_position(
    text: str,
    topology: Topology | None = None,
    mines: int | None = None,
    fmt: str | None = None,
) -> Position:
    """``read(...).position``: the position alone.

    >>> read_position("x1.\\n11.").line
    '.10/110'
    >>> read_position("? 1\\n1 1", mines=1).line
    '.1/11;mines=1'
    """
    return read(text, topology, mines, fmt).position
