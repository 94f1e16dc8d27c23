"""Positions in URLs and the teaching pages' query fields.

A position travels as ``p`` (the one-line form) or, when long, ``z`` (zlib + base64url): servers
cap the request line. Every reader raises ``InputError`` naming the field.
"""

from __future__ import annotations

import base64
import zlib
from collections.abc import Mapping
from typing import Any

from flask import url_for

from app.errors import InputError
from app.fields import integer_text, number_pair
from devil.board import Board, BoardError, Cell
from devil.position import Position, PositionError
from devil.rules import Count

ANALYSE_MAX_CELLS = 10_000
"""Largest position the analysis board accepts (e.g. 100x100)."""

ANALYSE_MAX_TEXT = 200_000
"""Largest pasted text, in characters."""

ANALYSE_MAX_BODY = 3 * ANALYSE_MAX_TEXT + 64 * 1024
"""Largest body of a paste (bytes): the text form-encoded (up to 3 bytes a character) and the
position being looked at. The rest of the site keeps ``MAX_CONTENT_LENGTH`` (16 KiB)."""


def parse_count(text: str | None) -> Count:
    try:
        return Count((text or "classic").strip().lower())
    except ValueError:
        raise InputError("count", f"count must be classic or counted, not {text!r}") from None


def parse_line(text: str) -> Position:
    """The ``p`` parameter: a position in the one-line form, checked for size."""
    if len(text) > ANALYSE_MAX_TEXT:
        raise InputError("p", f"the position is longer than {ANALYSE_MAX_TEXT} characters")
    try:
        position = Position.from_line(text)
    except (PositionError, BoardError, ValueError) as exc:
        raise InputError("p", f"p is not a one-line position: {exc}") from None
    check_size(position)
    return position


def check_size(position: Position) -> None:
    board = position.board
    if board.size > ANALYSE_MAX_CELLS:
        raise InputError(
            "p",
            f"the board is {board.height}x{board.width}: the analysis board takes at most "
            f"{ANALYSE_MAX_CELLS} cells",
        )


def parse_cell_arg(board: Board, text: str | None, field_name: str = "cell") -> Cell | None:
    if not text:
        return None
    r, c = number_pair(text, field_name)
    if not (0 <= r < board.height and 0 <= c < board.width):
        raise InputError(
            field_name,
            f"{field_name} {text!r} is off the {board.height}x{board.width} board "
            "(rows and columns count from 0 here)",
        )
    return board.cell(r, c)


def parse_int_arg(text: str | None, field_name: str, low: int, high: int, default: int) -> int:
    if text is None or text == "":
        return default
    value = integer_text(text, field_name)
    if not low <= value <= high:
        raise InputError(field_name, f"{field_name} {value} is outside {low}..{high}")
    return value


COMPACT_OVER = 1500
"""Positions whose one-line form is longer than this travel in URLs compressed (``z``):
servers cap the request line (gunicorn at 4094 bytes), and a 100x100 board is 10,100 bytes."""


def position_param(line: str) -> tuple[str, str]:
    """``("p", line)`` for a short position, ``("z", compressed)`` for a long one."""
    if len(line) <= COMPACT_OVER:
        return "p", line
    packed = base64.urlsafe_b64encode(zlib.compress(line.encode("ascii"), 9)).decode("ascii")
    return "z", packed.rstrip("=")


def unpack_line(packed: str) -> str:
    """The one-line form from a ``z`` parameter (size-limited: no decompression bombs)."""
    try:
        raw = base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4))
        inflater = zlib.decompressobj()
        text = inflater.decompress(raw, ANALYSE_MAX_TEXT + 1)
        if len(text) > ANALYSE_MAX_TEXT:
            raise InputError("z", f"the position is longer than {ANALYSE_MAX_TEXT} characters")
        if not inflater.eof:  # not zlib data at all, or a link cut short
            raise InputError("z", "z is not a compressed position (damaged link?)")
        return text.decode("ascii")
    except (ValueError, zlib.error) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError("z", "z is not a compressed position (damaged link?)") from None


def line_arg(args: Mapping[str, str], default: str | None = None) -> Position:
    """The position of a request: ``p`` (one-line form) or ``z`` (compressed)."""
    if args.get("z"):
        return parse_line(unpack_line(args["z"]))
    line = args.get("p") or default
    if not line:
        raise InputError("p", "p is missing: give a position in the one-line form")
    return parse_line(line)


def analyse_url(line: str, count: Count, **extra: Any) -> str:
    key, value = position_param(line)
    args: dict[str, Any] = {key: value}
    if count is Count.COUNTED:
        args["count"] = "counted"
    args.update({k: str(v) for k, v in extra.items() if v is not None and v != ""})
    return url_for("teach.analyse", **args)


def blank_board(size: str, mines_text: str | None) -> Position:
    try:
        h, w = number_pair(size.lower(), "new", ("height", "width"), "x")
    except InputError:
        raise InputError("new", f"new must be HEIGHTxWIDTH, e.g. 8x8, not {size!r}") from None
    if not (1 <= h <= 100 and 1 <= w <= 100):
        raise InputError("new", f"new board {size!r}: height and width must be 1 to 100")
    mines = parse_int_arg(mines_text, "mines", 0, h * w, -1)
    return Position.covered(Board(h, w), None if mines < 0 else mines)
