"""Reading one request field (form text, query text or a JSON value): every error names the field.

The strict layer for scalars: a whole number is an ``int`` (never a ``bool`` or a float) or
text of ASCII digits ``0``-``9`` with at most one leading ``-`` (no ``+``, ``_``, spaces inside,
superscripts, Arabic-Indic or fullwidth digits, which Python's ``int()`` would take or trip
over). Used by the game parameters (``app.play.params``), the click parser
(``app.play.moves``), the replay and watch arguments and the teaching pages' query fields.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from werkzeug.routing import IntegerConverter

from app.errors import InputError

MAX_DIGITS = 20
"""Longest number text read (no limit of this app needs more; ``int()`` of a long text is slow)."""

_INTEGER = re.compile(r"-?[0-9]+", re.ASCII)
_SPACE = " \t\r\n"


def shown(value: Any) -> str:
    """A value quoted for an error message, at most 40 characters."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


_SIZE_SEPARATORS = re.compile(r"[x\u00d7,\s]+")


def size_parts(text: str) -> list[str]:
    """A tiling's size as a person types it, in its parts: ``16x30``, ``16,30``, ``16 30``
    and 16, a times sign, 30 are ``["16", "30"]``; blank is ``[]``. The caller checks the
    parts."""
    stripped = text.strip().lower()
    return _SIZE_SEPARATORS.split(stripped) if stripped else []


def integer_text(text: str, field: str) -> int:
    """The number written in ``text`` (ASCII digits, optional leading ``-``, surrounding
    spaces ignored); InputError naming ``field`` otherwise."""
    stripped = text.strip(_SPACE)
    if len(stripped.removeprefix("-")) > MAX_DIGITS:
        raise InputError(field, f"{field} must be a whole number of at most {MAX_DIGITS} digits")
    if not _INTEGER.fullmatch(stripped):
        raise InputError(field, f"{field} must be a whole number (digits 0-9), not {shown(text)}")
    return int(stripped)


def whole_number(value: Any, field: str) -> int:
    """An int (not a bool), or the text of one (see ``integer_text``)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        return integer_text(value, field)
    raise InputError(field, f"{field} must be a whole number, not {shown(value)}")


def bounded(value: Any, field: str, low: int, high: int) -> int:
    number = whole_number(value, field)
    if not low <= number <= high:
        raise InputError(field, f"{field} {number} is out of range: allowed {low} to {high}")
    return number


def number_pair(
    text: str, field: str, names: tuple[str, str] = ("row", "col"), separator: str = ","
) -> tuple[int, int]:
    """Two whole numbers in one field (``at=3,4``, ``new=8x8``); the error names the field
    and which of the two is wrong."""
    form = f"{names[0]}{separator}{names[1]}"
    first, sep, second = text.partition(separator)
    if not sep or separator in second:
        raise InputError(field, f"{field} must be '{form}', not {shown(text)}")
    numbers = []
    for name, part in zip(names, (first, second), strict=True):
        try:
            numbers.append(integer_text(part, field))
        except InputError:
            raise InputError(
                field,
                f"{field} must be '{form}' with whole numbers, not {shown(text)}: "
                f"the {name} {shown(part)} is not a whole number (digits 0-9)",
            ) from None
    return numbers[0], numbers[1]


def true_or_false(value: Any, field: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip(_SPACE).lower()
        if text in {"1", "true", "on", "yes"}:
            return True
        if text in {"0", "false", "off", "no", ""}:
            return False
    raise InputError(field, f"{field} must be true or false, not {shown(value)}")


def choice(value: Any, field: str, choices: Iterable[str]) -> str:
    """One of ``choices``, case and surrounding spaces ignored."""
    options = tuple(choices)
    if isinstance(value, str) and value.isascii() and value.strip(_SPACE).lower() in options:
        return value.strip(_SPACE).lower()
    raise InputError(field, f"{field} must be one of {', '.join(options)}, not {shown(value)}")


def present(data: Mapping[str, Any], key: str) -> bool:
    """The field is there and not blank."""
    value = data.get(key)
    return value is not None and not (isinstance(value, str) and value.strip(_SPACE) == "")


def coordinate(value: Any, field: str, size: int) -> int:
    """A zero-based row or column, checked against the board side ``size``."""
    if value is None or (isinstance(value, str) and not value.strip(_SPACE)):
        raise InputError(field, f"{field} is missing")
    number = whole_number(value, field)
    if not 0 <= number < size:
        raise InputError(field, f"{field} {number} is off the board: allowed 0 to {size - 1}")
    return number


class AsciiIntegerConverter(IntegerConverter):
    """The ``<int:...>`` URL converter with ASCII digits only (Werkzeug's ``\\d+`` also
    matches Arabic-Indic and other Unicode digits, and ``int()`` reads them)."""

    regex = r"[0-9]+"
