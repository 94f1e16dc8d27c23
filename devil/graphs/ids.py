"""How a graph board's cell id is written for a reader: ``quote_id`` (a JSON string on one
line, as a move list writes it) and ``shown_id`` (bare when unambiguous, quoted otherwise).
Every message that names a cell by id uses these (``Layout.where``, ``devil.game.said``, the
move list, ``devil-check``), so an id reads the same in all of them."""

from __future__ import annotations

import json

_LINE_BREAKS = {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}
"""Characters ``str.splitlines`` breaks a line at that JSON leaves as they are."""


def quote_id(cell_id: str) -> str:
    """A cell id as a JSON string on one line (``"t17"``, ``" a"``, ``"say \\"hi\\""``): any
    legal id, spaces and quotes included, reads back the same.

    >>> quote_id("North pole")
    '"North pole"'
    """
    text = json.dumps(cell_id, ensure_ascii=False)
    for char, escape in _LINE_BREAKS.items():
        text = text.replace(char, escape)
    return text


def shown_id(cell_id: str) -> str:
    """A cell id in a table or a sentence: as it is when that is unambiguous (``t17``,
    ``top0-1``, ``é``), else quoted as the move list writes it (``" a"``, ``"North pole"``,
    ``"tab\\there"``): an id with a space, a quote, a backslash or an invisible character
    would otherwise read as another, or break the line.

    >>> shown_id("t17"), shown_id("b ")
    ('t17', '"b "')
    """
    plain = cell_id.isprintable() and not any(c.isspace() or c in '"\\' for c in cell_id)
    return cell_id if plain and cell_id else quote_id(cell_id)
