"""The text of a position as lines: headers and comments before the board, the board lines
after them, and the characters and numbers in them.

``split_lines`` is the first step of every reader (see :mod:`devil.formats`): lines end at
``\\n``, ``\\r\\n`` or ``\\r`` only, so line numbers are the ones an editor shows; only spaces
and tabs are blanks. Header lines ``# key: value`` are checked here: :data:`HEADERS` mean
something, :data:`DESCRIPTION_HEADERS` and keys starting ``x-`` are ignored, any other key is
an error naming its line (a typo such as ``# mine: 10`` must not be silently dropped). A ``#``
line whose text before a colon is not one word is a comment.

Numbers are ASCII digits only (at most :data:`MAX_DIGITS`): ``non_ascii_digit`` names any other
digit so that errors can say what is wrong with it.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass, field

from devil.board import Topology
from devil.position import PositionError

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
BLANKS = " \t"
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
TOKEN = re.compile(r"[^ \t]+")
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


ASCII_ONLY = "not an ASCII digit (numbers are written with 0-9 only)"


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
    headers[key] = Header(value.strip(BLANKS), number)


def split_lines(text: str) -> Source:
    """Headers before the board, then one block of non-blank lines (blank lines around it)."""
    headers: dict[str, Header] = {}
    body: list[Line] = []
    gap: int | None = None  # first blank line seen after the body started
    lines = _LINE_BREAK.split(text.removeprefix("\ufeff"))
    for number, raw in enumerate(lines, start=1):
        stripped = raw.strip(BLANKS)
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
        body.append(Line(number, len(raw) - len(raw.lstrip(BLANKS)), stripped))
    if not body:
        what = "only headers, no board rows" if headers else "no board rows"
        raise FormatError(f"empty input: {what}")
    return Source(headers, tuple(body))


# -- headers and building ------------------------------------------------------------------


def header_mines(source: Source) -> tuple[int | None, int | None]:
    """``(mines, line)`` from a ``# mines: N`` header, or ``(None, None)``."""
    header = source.headers.get("mines")
    if header is None:
        return None, None
    mines = ascii_digits(header.value)
    if mines is None:
        digit = non_ascii_digit(header.value)
        if digit is not None:
            raise FormatError(
                f"mines header {header.value!r}: {digit} is {ASCII_ONLY}",
                header.line,
            )
        if re.fullmatch(r"[0-9]+", header.value):
            raise FormatError(
                f"mines header {header.value!r} has more than {MAX_DIGITS} digits", header.line
            )
        raise FormatError(f"mines header {header.value!r} is not a whole number >= 0", header.line)
    return mines, header.line


def header_topology(source: Source) -> Topology | None:
    header = source.headers.get("topology")
    if header is None:
        return None
    try:
        return Topology.parse(header.value)
    except ValueError as exc:
        raise FormatError(f"topology header: {exc}", header.line) from None
