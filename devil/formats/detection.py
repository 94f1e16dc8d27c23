"""Which format a text is in, and why: :func:`detect` returns a :class:`FormatReport`.

The rules (:data:`DETECTION_RULES`) are tried in order and never guess from a single odd
character: a format is chosen when it reads more of the board than native does (native wins
every tie), and a board that only reads as minesweepr by making one of its numbers impossible
stays native, the report naming that number. A native board with a stray character therefore
stays native and its reader names the character's line and column.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from devil.board import Board, BoardError, Topology
from devil.formats.readers import (
    CODEWARS_TOKENS,
    JS_SIZE,
    MINESWEEPR_TABLE,
    NATIVE_TABLE,
)
from devil.formats.text import (
    BLANKS,
    TOKEN,
    Line,
    Source,
    ascii_digits,
    header_topology,
    split_lines,
)

FORMATS: tuple[str, ...] = ("native", "codewars", "jsminesweeper", "minesweepr")
"""Names of the formats ``read_position`` understands, as ``detect_format`` returns them."""

LEGENDS: dict[str, str] = {
    "native": "'.' or '?' covered, 'F' flagged, '#' a hole",
    "codewars": "'?' covered, cells separated by spaces",
    "jsminesweeper": "a WxHxM size line, then 'H' hidden, 'F' or 'M' flagged",
    "minesweepr": "'x' covered, '.' a revealed 0",
    "graph": "a mine-devil-graph JSON file: cells by id, '.' covered, 'F' flagged",
}
"""What the characters of each format mean, in one phrase (for reports and errors)."""

NOTELESS = ("native", "graph")
"""Formats read without a note (a graph-board file names its own format)."""


@dataclass(frozen=True)
class FormatReport:
    """Which format a text was read as, and why: data for ``devil-check`` and the web.

    ``line``/``column`` (1-based) point at the input that decided, when one place did (the
    first ``x`` of a minesweepr board, the first separator of a Codewars board, the size line
    of a JSMinesweeper board, or the number that made a minesweepr reading impossible).
    """

    format: str
    """One of :data:`FORMATS`."""
    reason: str
    """Why, as a phrase: ``"board lines use 'x' for covered cells (line 2, column 3)"``."""
    detected: bool = True
    """False when the caller named the format instead of letting it be detected."""
    line: int | None = None
    column: int | None = None
    passed_over: str | None = None
    """A format the text looked like but was not read as (``"minesweepr"`` when reading it so
    made a number impossible); ``reason`` says why."""

    @property
    def legend(self) -> str:
        """What the characters mean in this format (:data:`LEGENDS`)."""
        return LEGENDS[self.format]

    @property
    def note(self) -> str | None:
        """A sentence worth showing the user, else None: set when a format other than native
        was detected (so '.' may not mean covered), or when native was chosen over a format
        the text looked like."""
        if not self.detected or (self.format in NOTELESS and self.passed_over is None):
            return None
        return f"read as {self.format} ({self.legend}): {self.reason}"

    def to_json(self) -> dict[str, object]:
        """``{"format", "detected", "reason", "line", "column", "passed_over", "legend",
        "note"}``."""
        return {
            "format": self.format,
            "detected": self.detected,
            "reason": self.reason,
            "line": self.line,
            "column": self.column,
            "passed_over": self.passed_over,
            "legend": self.legend,
            "note": self.note,
        }


DetectionRule = Callable[[Source, Topology], FormatReport | None]
"""A detection rule: the report when the board is in its format, else None."""


def _first(body: tuple[Line, ...], chars: str) -> tuple[int, int] | None:
    """``(line, column)`` of the first character of the board that is one of ``chars``."""
    for line in body:
        for i, ch in enumerate(line.text):
            if ch in chars:
                return line.number, line.column(i)
    return None


def _strays(body: tuple[Line, ...], table: dict[str, str]) -> int:
    """How many characters of the board ``table`` cannot read."""
    return sum(ch not in table for line in body for ch in line.text)


def _codewars_strays(body: tuple[Line, ...]) -> int:
    """How many tokens of the board are not one Codewars cell (``0``-``8`` or ``?``)."""
    return sum(
        len(token) != 1 or token not in CODEWARS_TOKENS
        for line in body
        for token in TOKEN.findall(line.text)
    )


def _fits_size_line(body: tuple[Line, ...], match: re.Match[str]) -> bool:
    width, height = ascii_digits(match.group(1)), ascii_digits(match.group(2))
    rows = body[1:]
    return len(rows) == height and all(len(line.text) == width for line in rows)


def _is_minesweepr_shaped(body: tuple[Line, ...]) -> bool:
    """Every line a minesweepr row of the first line's width ("1x1x1" is one)."""
    first = body[0].text
    return all(
        len(line.text) == len(first) and set(line.text) <= MINESWEEPR_TABLE.keys() for line in body
    )


def _impossible_number(body: tuple[Line, ...], topology: Topology) -> tuple[str, int, int] | None:
    """Read as minesweepr (which reads every character): the first number with fewer covered
    (``x``) neighbours than it says, as ``(phrase naming it, line, column)``; None when every
    number fits (or the rows make no board: the reader will say why)."""
    rows = [line.text.translate(_AS_MINESWEEPR) for line in body]
    width = len(rows[0])
    if any(len(row) != width for row in rows):
        return None
    try:
        board = Board(len(rows), width, topology)
    except BoardError:
        return None
    grid = "".join(rows)
    for cell, ch in enumerate(grid):
        if ch in ".0":
            continue
        covered = sum(grid[n] == "." for n in board.neighbours(cell))
        if int(ch) > covered:
            row, col = board.coord(cell)
            line, column = body[row].number, body[row].column(col)
            noun = "neighbour" if covered == 1 else "neighbours"
            phrase = (
                f"its {ch} at line {line}, column {column} would have only {covered} covered {noun}"
            )
            return phrase, line, column
    return None


_AS_MINESWEEPR = str.maketrans("xX.", "..0")


def _minesweepr_only_reading(source: Source, topology: Topology) -> bool:
    """The board has an 'x' and minesweepr reads more of it than native does."""
    body = source.body
    return _first(body, "xX") is not None and _strays(body, MINESWEEPR_TABLE) < _strays(
        body, NATIVE_TABLE
    )


def _rule_jsminesweeper(source: Source, topology: Topology) -> FormatReport | None:
    body = source.body
    size = JS_SIZE.fullmatch(body[0].text)
    if size is None or (not _fits_size_line(body, size) and _is_minesweepr_shaped(body)):
        return None
    first = body[0]
    return FormatReport(
        "jsminesweeper",
        f"the first board line is a WxHxM size line {first.text!r} (line {first.number})",
        line=first.number,
        column=first.column(0),
    )


def _rule_codewars(source: Source, topology: Topology) -> FormatReport | None:
    separator = _first(source.body, BLANKS)
    if separator is None or _codewars_strays(source.body) >= _strays(source.body, NATIVE_TABLE):
        return None
    line, column = separator
    return FormatReport(
        "codewars",
        f"board lines hold space-separated tokens (line {line}, column {column})",
        line=line,
        column=column,
    )


def _rule_minesweepr(source: Source, topology: Topology) -> FormatReport | None:
    body = source.body
    if not _minesweepr_only_reading(source, topology):
        return None
    if _strays(body, MINESWEEPR_TABLE) == 0 and _impossible_number(body, topology) is not None:
        return None
    at = _first(body, "xX")
    assert at is not None  # _minesweepr_only_reading saw one
    line, column = at
    return FormatReport(
        "minesweepr",
        f"board lines use 'x' for covered cells (line {line}, column {column})",
        line=line,
        column=column,
    )


def _rule_native(source: Source, topology: Topology) -> FormatReport:
    if _minesweepr_only_reading(source, topology):
        # the minesweepr rule turned it down: its reading makes a number impossible
        impossible = _impossible_number(source.body, topology)
        if impossible is not None:
            phrase, line, column = impossible
            return FormatReport(
                "native",
                f"not minesweepr: as minesweepr ('x' covered, '.' a revealed 0) {phrase}",
                line=line,
                column=column,
                passed_over="minesweepr",
            )
    crosses = "" if _first(source.body, "xX") is None else "; its 'x' is a stray character"
    return FormatReport("native", "one character per cell" + (crosses or " and no 'x'"))


DETECTION_RULES: tuple[tuple[str, DetectionRule, str], ...] = (
    (
        "jsminesweeper",
        _rule_jsminesweeper,
        "the first board line is a size line WxHxM, and H rows of W cells follow or the lines "
        "are not a minesweepr board ('1x1x1' is also a minesweepr row)",
    ),
    (
        "codewars",
        _rule_codewars,
        "some line holds blanks between cells, and fewer tokens are not one Codewars cell "
        "than there are characters native cannot read",
    ),
    (
        "minesweepr",
        _rule_minesweepr,
        "the board has an 'x', fewer characters minesweepr cannot read than native cannot, "
        "and read as minesweepr every number has at least that many covered neighbours",
    ),
    ("native", _rule_native, "otherwise, and on every tie: stray characters are errors"),
)
"""``(format, rule, what the rule checks)``, tried in order; the first report wins. The
topology a rule sees is the caller's, else the ``# topology:`` header, else square."""


def detect_source(source: Source, topology: Topology | None) -> FormatReport:
    topo = topology or header_topology(source) or Topology.SQUARE
    for _, rule, _ in DETECTION_RULES:
        report = rule(source, topo)
        if report is not None:
            return report
    raise AssertionError("the native rule always matches")  # pragma: no cover


def detect(text: str, topology: Topology | None = None) -> FormatReport:
    """Which format ``text`` is in and why: the first rule of :data:`DETECTION_RULES` that
    matches. A native board with a stray character stays native (its reader names the
    character's line and column); a board that reads as minesweepr only by making a number
    impossible stays native too, and the report says which number.

    >>> detect("x1.\\n11.").format
    'minesweepr'
    >>> detect("1..\\n.2x\\n...").format  # as minesweepr, the 1 would touch no 'x'
    'native'
    """
    return detect_source(split_lines(text), topology)


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
    return detect(text).format


def explain_format(text: str) -> str:
    """One sentence saying which format ``text`` was read as and why."""
    report = detect(text)
    return f"{report.format}: {report.reason}"
