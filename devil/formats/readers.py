"""One reader per format: board lines in, native rows (``0-8 . F #``) out.

- ``native``: one line per row; ``0``-``8`` revealed, ``.`` or ``?`` covered, ``F`` flagged
  (covered; a mark only), ``#`` a hole (a cell that does not exist).
- ``codewars``: rows of space-separated tokens ``0``-``8`` or ``?`` (covered).
- ``jsminesweeper``: first line ``WxHxM`` (width, height, mines), then ``H`` rows of ``W``
  characters: ``H`` hidden, ``F`` (or ``M``) flagged, ``0``-``8`` revealed.
- ``minesweepr``: ``x`` covered, ``.`` a revealed zero, ``0``-``8`` revealed.

The character tables here are also what detection (:mod:`devil.formats.detection`) counts with.
Every error names the 1-based line and column of the first bad character.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from devil.formats.text import (
    ASCII_ONLY,
    MAX_DIGITS,
    TOKEN,
    FormatError,
    Line,
    ascii_digits,
    char_name,
    describe_char,
    non_ascii_digit,
)

JS_SIZE = re.compile(r"([0-9]+)x([0-9]+)x([0-9]+)")
_DIGITS = {d: d for d in "012345678"}
NATIVE_TABLE = {**_DIGITS, ".": ".", "?": ".", "F": "F", "#": "#"}
_JSMINESWEEPER_TABLE = {**_DIGITS, "H": ".", "F": "F", "M": "F"}
MINESWEEPR_TABLE = {**_DIGITS, ".": "0", "x": ".", "X": "."}
CODEWARS_TOKENS = frozenset("012345678?")


@dataclass(frozen=True)
class Rows:
    """What a format reader returns: native rows (``0-8 . F #``) and where they came from."""

    rows: list[str]
    lines: list[Line]
    mines: int | None = None
    mines_line: int | None = None


def _unexpected(ch: str, expected: str) -> str:
    if non_ascii_digit(ch) is not None:
        return f"unexpected character {describe_char(ch)}: {ASCII_ONLY}"
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
    rows = [_translate(line, NATIVE_TABLE, "0-8, '.', '?', 'F' or '#'") for line in body]
    _check_widths(rows, list(body))
    return Rows(rows, list(body))


def read_codewars(body: tuple[Line, ...]) -> Rows:
    """Codewars rows: space-separated ``0``-``8`` or ``?`` tokens."""
    rows = []
    for line in body:
        cells = []
        for token, start in _tokens(line.text):
            if len(token) != 1 or token not in CODEWARS_TOKENS:
                digit = non_ascii_digit(token)
                problem = (
                    f": {digit} is {ASCII_ONLY}"
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
    match = JS_SIZE.fullmatch(size.text)
    if match is None:
        digit = non_ascii_digit(size.text)
        if digit is not None:
            raise FormatError(
                f"size line {size.text!r}: {digit} is {ASCII_ONLY}",
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
    rows = [_translate(line, MINESWEEPR_TABLE, "'x', '.' or 0-8") for line in body]
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
    return [(m.group(), m.start()) for m in TOKEN.finditer(text)]


def _check_widths(rows: list[str], lines: list[Line]) -> None:
    width = len(rows[0])
    for row, line in zip(rows, lines, strict=True):
        if len(row) != width:
            raise FormatError(
                f"row has {len(row)} cells but the first row has {width}",
                line.number,
                line.column(min(len(row), width)),
            )
