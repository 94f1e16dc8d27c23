"""Reading one request field (JSON value or form text): every error names the field.

Used by the game parameters (``app.play.params``) and the click parser (``app.play.moves``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from app.errors import InputError


def whole_number(value: Any, field: str) -> int:
    """An int, or the text of one (at most 20 characters); not a bool."""
    if isinstance(value, bool):
        raise InputError(field, f"{field} must be a whole number, not {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        if text.lstrip("-").isdigit() and len(text) <= 20:
            return int(text)
    shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
    raise InputError(field, f"{field} must be a whole number, not {shown}")


def bounded(value: Any, field: str, low: int, high: int) -> int:
    number = whole_number(value, field)
    if not low <= number <= high:
        raise InputError(field, f"{field} {number} is out of range: allowed {low} to {high}")
    return number


def true_or_false(value: Any, field: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in {"1", "true", "on", "yes"}:
            return True
        if text in {"0", "false", "off", "no", ""}:
            return False
    raise InputError(field, f"{field} must be true or false, not {value!r}")


def choice(value: Any, field: str, choices: Iterable[str]) -> str:
    """One of ``choices``, case and surrounding spaces ignored."""
    options = tuple(choices)
    if isinstance(value, str) and value.strip().lower() in options:
        return value.strip().lower()
    raise InputError(field, f"{field} must be one of {', '.join(options)}, not {value!r}")


def present(data: Mapping[str, Any], key: str) -> bool:
    """The field is there and not blank."""
    value = data.get(key)
    return value is not None and not (isinstance(value, str) and value.strip() == "")


def coordinate(value: Any, field: str, size: int) -> int:
    """A zero-based row or column, checked against the board side ``size``."""
    if value is None or (isinstance(value, str) and not value.strip()):
        raise InputError(field, f"{field} is missing")
    number = whole_number(value, field)
    if not 0 <= number < size:
        raise InputError(field, f"{field} {number} is off the board: allowed 0 to {size - 1}")
    return number
