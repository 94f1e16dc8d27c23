"""Readers for the text formats ``devil-check`` accepts, with a format detection that explains
itself.

Every format becomes the same thing, a :class:`~devil.position.Position`. The pipeline:

1. ``_split_lines``: ``# key: value`` header lines (and ``# comment`` lines) before the board are
   collected and checked; the board is the block of non-blank lines after them. Lines end at
   ``\\n``, ``\\r\\n`` or ``\\r`` only, so line numbers are the ones an editor shows.
2. ``detect``: picks one of :data:`FORMATS` and returns a :class:`FormatReport` saying which
   and why (the deciding line and column when one place decides).
3. One small reader per format turns the board lines into native rows (``0-8 . F #``).
4. ``_build_position`` makes the board and the position.

``read`` runs the pipeline and returns a :class:`Reading` (the position, the format report, and
where the mine total came from); ``read_position`` is ``read(...).position``.

Formats (see ``docs/devil-check.md`` for examples):

- ``native``: one line per row; ``0``-``8`` revealed, ``.`` or ``?`` covered, ``F`` flagged
  (covered; a mark only), ``#`` a hole (a cell that does not exist).
- ``codewars``: rows of space-separated tokens ``0``-``8`` or ``?`` (covered).
- ``jsminesweeper``: first line ``WxHxM`` (width, height, mines), then ``H`` rows of ``W``
  characters: ``H`` hidden, ``F`` (or ``M``) flagged, ``0``-``8`` revealed.
- ``minesweepr``: ``x`` covered, ``.`` a revealed zero, ``0``-``8`` revealed.

Detection never guesses from a single odd character: a format is chosen by the fewest places
it cannot read (native wins ties), and a board that only reads as minesweepr by making its
numbers impossible stays native (see ``detect``). A native board with a stray character is an
error naming its line and column, never a silent switch of format.

Headers (every format): ``# mines: N`` (total mines) and ``# topology: square|torus|hex``;
descriptions that are ignored: :data:`DESCRIPTION_HEADERS` and any key starting ``x-``. Any
other ``# key:`` line is an error naming it (a typo such as ``# mine: 10`` must not be
silently dropped). A ``#`` line whose text before the colon is not one word is a comment.

Numbers are ASCII digits only. Every error is a :class:`~devil.position.PositionError` (a
:class:`FormatError`) naming the 1-based line and column of the bad input; columns count
characters (a tab is one).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field

from devil.board import Board, BoardError, Topology
from devil.position import Position, PositionError

FORMATS: tuple[str, ...] = ("native", "codewars", "jsminesweeper", "minesweepr")
"""Names of the formats ``read_position`` understands, as ``detect_format`` returns them."""

LEGENDS: dict[str, str] = {
    "native": "'.' or '?' covered, 'F' flagged, '#' a hole",
    "codewars": "'?' covered, cells separated by spaces",
    "jsminesweeper": "a WxHxM size line, then 'H' hidden, 'F' or 'M' flagged",
    "minesweepr": "'x' covered, '.' a revealed 0",
}
"""What the characters of each format mean, in one phrase (for reports and errors)."""

HEADERS: dict[str, str] = {
    "mines": "the total number of mines",
    "topology": "square, torus or hex",
}
"""Header keys that mean something, and what their value is."""

DESCRIPTION_HEADERS: tuple[str, ...] = (
    "class",
    "comment",
    "generator",
    "name",
    "note",
    "source",
)
"""Header keys that describe a position and are ignored (as is any key starting ``x-``)."""

_HEADER = re.compile(r"#[ \t]*([A-Za-z][A-Za-z0-9_-]*)[ \t]*:(.*)")
_COMMENT = re.compile(r"#[ \t]")
_BLANKS = " \t"
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_TOKEN = re.compile(r"[^ \t]+")
_JS_SIZE = re.compile(r"([0-9]+)x([0-9]+)x([0-9]+)")
MAX_DIGITS = 100
"""Most digits in a number read anywhere (a bound for ``int``; a total that large is simply
inconsistent, said by the solver)."""


class FormatError(PositionError):
    """A :class:`PositionError` that keeps its message apart from its line and column."""

    def __init__(self, detail: str, line: int | None = None, column: int | None = None):
        super().__init__(detail, line, column)
        self.detail = detail


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
        if not self.detected or (self.format == "native" and self.passed_over is None):
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


@dataclass(frozen=True)
class Reading:
    """What ``read`` returns: the position, how its text was read, and where its total is from."""

    position: Position
    report: FormatReport
    total_from: str | None = None
    """Where ``position.mines`` came from in the text (``"the '# mines: 2' header on line 1"``,
    ``"the size line '5x3x2' on line 1"``); None when there is no total or the caller gave it."""


# -- characters and numbers ----------------------------------------------------------------


def char_name(ch: str) -> str | None:
    """What ``ch`` is, when quoting it is not clear enough: ``"a tab"``, ``"NO-BREAK SPACE"``;
    None for visible ASCII characters."""
    if ch == " ":
        return "a space"
    if ch == "\t":
        return "a tab"
    if ch.isascii() and ch.isprintable():
        return None
    return unicodedata.name(ch, f"U+{ord(ch):04X}")


def describe_char(ch: str) -> str:
    """``ch`` quoted, with :func:`char_name` when there is one: ``"'\\xa0' (NO-BREAK SPACE)"``."""
    name = char_name(ch)
    return repr(ch) if name is None else f"{ch!r} ({name})"


_ASCII_ONLY = "not an ASCII digit (numbers are written with 0-9 only)"


def non_ascii_digit(text: str) -> str | None:
    """The first character of ``text`` that is a digit but not ASCII ``0-9``, described
    (``"'٣' (ARABIC-INDIC DIGIT THREE)"``), or None. Such digits are never numbers here."""
    for ch in text:
        if not ch.isascii() and (ch.isdigit() or ch.isnumeric()):
            return describe_char(ch)
    return None


def ascii_digits(text: str) -> int | None:
    """``text`` as a whole number >= 0 written with ASCII digits only (at most
    :data:`MAX_DIGITS` of them), else None."""
    if len(text) > MAX_DIGITS or not text or not all("0" <= ch <= "9" for ch in text):
        return None
    return int(text)


# -- splitting -----------------------------------------------------------------------------


def _header_error(key: str, line: int) -> FormatError:
    known = [*HEADERS, *DESCRIPTION_HEADERS]
    close = difflib.get_close_matches(key, known, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return FormatError(
        f"unknown header '# {key}:'{hint}: the headers are "
        f"{', '.join(HEADERS)}; {', '.join(DESCRIPTION_HEADERS)} and any key starting 'x-' "
        "are descriptions and are ignored",
        line,
    )


def _add_header(headers: dict[str, Header], key: str, value: str, number: int) -> None:
    if key not in HEADERS and key not in DESCRIPTION_HEADERS and not key.startswith("x-"):
        raise _header_error(key, number)
    if key in HEADERS and key in headers:
        raise FormatError(
            f"second '# {key}:' header (the first is on line {headers[key].line})", number
        )
    headers[key] = Header(value.strip(_BLANKS), number)


def _split_lines(text: str) -> Source:
    """Headers before the board, then one block of non-blank lines (blank lines around it)."""
    headers: dict[str, Header] = {}
    body: list[Line] = []
    gap: int | None = None  # first blank line seen after the body started
    lines = _LINE_BREAK.split(text.removeprefix("\ufeff"))
    for number, raw in enumerate(lines, start=1):
        stripped = raw.strip(_BLANKS)
        if not stripped:
            if body and gap is None:
                gap = number
            continue
        header = _HEADER.fullmatch(stripped)
        if not body:
            if header:
                _add_header(headers, header.group(1).lower(), header.group(2), number)
                continue
            if _COMMENT.match(stripped):
                continue
        elif header:
            raise FormatError("header after the board: '# key: value' lines go first", number)
        elif gap is not None:
            raise FormatError("blank line inside the board", gap)
        body.append(Line(number, len(raw) - len(raw.lstrip(_BLANKS)), stripped))
    if not body:
        what = "only headers, no board rows" if headers else "no board rows"
        raise FormatError(f"empty input: {what}")
    return Source(headers, tuple(body))


# -- detection -----------------------------------------------------------------------------

_DIGITS = {d: d for d in "012345678"}
_NATIVE_TABLE = {**_DIGITS, ".": ".", "?": ".", "F": "F", "#": "#"}
_JSMINESWEEPER_TABLE = {**_DIGITS, "H": ".", "F": "F", "M": "F"}
_MINESWEEPR_TABLE = {**_DIGITS, ".": "0", "x": ".", "X": "."}
_CODEWARS_TOKENS = frozenset("012345678?")

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
        len(token) != 1 or token not in _CODEWARS_TOKENS
        for line in body
        for token in _TOKEN.findall(line.text)
    )


def _fits_size_line(body: tuple[Line, ...], match: re.Match[str]) -> bool:
    width, height = ascii_digits(match.group(1)), ascii_digits(match.group(2))
    rows = body[1:]
    return len(rows) == height and all(len(line.text) == width for line in rows)


def _is_minesweepr_shaped(body: tuple[Line, ...]) -> bool:
    """Every line a minesweepr row of the first line's width ("1x1x1" is one)."""
    first = body[0].text
    return all(
        len(line.text) == len(first) and set(line.text) <= _MINESWEEPR_TABLE.keys() for line in body
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
            phrase = (
                f"its {ch} at line {line}, column {column} would have only {covered} "
                "covered neighbours"
            )
            return phrase, line, column
    return None


_AS_MINESWEEPR = str.maketrans("xX.", "..0")


def _minesweepr_only_reading(source: Source, topology: Topology) -> bool:
    """The board has an 'x' and minesweepr reads more of it than native does."""
    body = source.body
    return _first(body, "xX") is not None and _strays(body, _MINESWEEPR_TABLE) < _strays(
        body, _NATIVE_TABLE
    )


def _rule_jsminesweeper(source: Source, topology: Topology) -> FormatReport | None:
    body = source.body
    size = _JS_SIZE.fullmatch(body[0].text)
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
    separator = _first(source.body, _BLANKS)
    if separator is None or _codewars_strays(source.body) >= _strays(source.body, _NATIVE_TABLE):
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
    if _strays(body, _MINESWEEPR_TABLE) == 0 and _impossible_number(body, topology) is not None:
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
                f"not minesweepr ({LEGENDS['minesweepr']}): as minesweepr {phrase} "
                "(--input-format minesweepr forces that reading)",
                line=line,
                column=column,
                passed_over="minesweepr",
            )
    return FormatReport("native", "one character per cell and no 'x'")


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


def _detect(source: Source, topology: Topology | None) -> FormatReport:
    topo = topology or _header_topology(source) or Topology.SQUARE
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
    return _detect(_split_lines(text), topology)


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


# -- readers -------------------------------------------------------------------------------


def _unexpected(ch: str, expected: str) -> str:
    if non_ascii_digit(ch) is not None:
        return f"unexpected character {describe_char(ch)}: {_ASCII_ONLY}"
    name = char_name(ch)
    what = f"{name}; expected" if name else "expected"
    return f"unexpected character {ch!r} ({what} {expected})"


def _translate(line: Line, table: dict[str, str], expected: str) -> str:
    """``line`` in native characters, each looked up in ``table``; the first character
    missing from it is an error naming its line and column."""
    out = []
    for i, ch in enumerate(line.text):
        native = table.get(ch)
        if native is None:
            raise FormatError(_unexpected(ch, expected), line.number, line.column(i))
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
            if len(token) != 1 or token not in _CODEWARS_TOKENS:
                digit = non_ascii_digit(token)
                problem = (
                    f": {digit} is {_ASCII_ONLY}"
                    if digit
                    else " (expected 0-8 or '?', separated by spaces)"
                )
                raise FormatError(
                    f"unexpected token {token!r}{problem}", line.number, line.column(start)
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
            raise FormatError(
                f"row has {len(row)} cells but the first row has {width}", line.number, column
            )
    return Rows(rows, list(body))


def _size_numbers(size: Line) -> tuple[int, int, int]:
    match = _JS_SIZE.fullmatch(size.text)
    if match is None:
        digit = non_ascii_digit(size.text)
        if digit is not None:
            raise FormatError(
                f"size line {size.text!r}: {digit} is {_ASCII_ONLY}",
                size.number,
            )
        raise FormatError(
            f"expected a size line WxHxM (width x height x mines), got {size.text!r}",
            size.number,
            size.column(0),
        )
    numbers: list[int] = []
    for name, group in zip(("width", "height", "mines"), match.groups(), strict=True):
        value = ascii_digits(group)
        if value is None:
            raise FormatError(
                f"size line {size.text!r}: {name} has more than {MAX_DIGITS} digits",
                size.number,
                size.column(match.start(len(numbers) + 1)),
            )
        numbers.append(value)
    width, height, mines = numbers
    return width, height, mines


def read_jsminesweeper(body: tuple[Line, ...]) -> Rows:
    """JSMinesweeper: ``WxHxM`` then ``H`` rows of ``W`` of ``H`` (hidden), ``F``/``M``, ``0-8``."""
    size = body[0]
    width, height, mines = _size_numbers(size)
    if width < 1 or height < 1:
        raise FormatError(
            f"size line {size.text!r}: width and height must be at least 1", size.number
        )
    lines = list(body[1:])
    if len(lines) != height:
        raise FormatError(
            f"size line {size.text!r} says {height} rows but {len(lines)} follow", size.number
        )
    rows = []
    for line in lines:
        row = _translate(line, _JSMINESWEEPER_TABLE, "'H', 'F', 'M' or 0-8")
        if len(row) != width:
            raise FormatError(
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
    """Tokens separated by spaces or tabs, with their 0-based start index."""
    return [(m.group(), m.start()) for m in _TOKEN.finditer(text)]


def _check_widths(rows: list[str], lines: list[Line]) -> None:
    width = len(rows[0])
    for row, line in zip(rows, lines, strict=True):
        if len(row) != width:
            raise FormatError(
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
    mines = ascii_digits(header.value)
    if mines is None:
        digit = non_ascii_digit(header.value)
        if digit is not None:
            raise FormatError(
                f"mines header {header.value!r}: {digit} is {_ASCII_ONLY}",
                header.line,
            )
        if re.fullmatch(r"[0-9]+", header.value):
            raise FormatError(
                f"mines header {header.value!r} has more than {MAX_DIGITS} digits", header.line
            )
        raise FormatError(f"mines header {header.value!r} is not a whole number >= 0", header.line)
    return mines, header.line


def _header_topology(source: Source) -> Topology | None:
    header = source.headers.get("topology")
    if header is None:
        return None
    try:
        return Topology.parse(header.value)
    except ValueError as exc:
        raise FormatError(f"topology header: {exc}", header.line) from None


def _resolve_mines(source: Source, rows: Rows) -> tuple[int | None, str | None]:
    """The total the text gives, and where it says so."""
    mines, line = _header_mines(source)
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
    source = _split_lines(text)
    if fmt is None:
        report = _detect(source, topology)
    elif fmt in READERS:
        report = FormatReport(fmt, "named by the caller", detected=False)
    else:
        raise FormatError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")
    try:
        rows = READERS[report.format](source.body)
    except FormatError as exc:
        if report.passed_over is None:
            raise
        # say why the text was not read in the format it looked like
        detail = f"{exc.detail}; read as {report.format}, {report.reason}"
        raise FormatError(detail, exc.line, exc.column) from None
    found, total_from = _resolve_mines(source, rows)
    topo = topology or _header_topology(source) or Topology.SQUARE
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
