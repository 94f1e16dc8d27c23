"""What a revealed number means now, in words: its flagged and covered neighbours.

``"3: 2 flagged neighbours, 1 more mine among 2 covered"``. Flags are the player's marks, not
facts, so the words count them as the player placed them. Used by the web board's cell labels
(what a screen reader says) and by the terminal game's status line.
"""

from __future__ import annotations

from devil.board import Cell
from devil.position import Position


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def number_meaning(position: Position, cell: Cell) -> str:
    """The number at ``cell`` and what is left of it; ``"empty"`` for a 0.

    Raises ``ValueError`` when ``cell`` holds no revealed number."""
    n = position.number(cell)
    if n is None:
        raise ValueError(f"{position.where(cell)} holds no revealed number")
    if n == 0:
        return "empty"
    around = position.board.neighbours(cell)
    flagged = sum(1 for c in around if position.is_flagged(c))
    covered = sum(1 for c in around if position.is_covered(c) and not position.is_flagged(c))
    left = n - flagged
    flags = plural(flagged, "flagged neighbour")
    if left < 0:
        return f"{n}: {flags}, {plural(-left, 'flag')} too many"
    if covered == 0:
        return f"{n}: {flags}, no covered neighbours" if flagged else f"{n}: no covered neighbours"
    if left == 0:
        safe = f"the other {covered} covered are safe" if covered > 1 else "the covered one is safe"
        return f"{n}: {flags}, {safe}"
    if left == covered:
        mines = "the covered one is a mine" if covered == 1 else f"all {covered} covered are mines"
        return f"{n}: {flags}, {mines}" if flagged else f"{n}: {mines}"
    more = "more " if flagged else ""
    mines = plural(left, f"{more}mine")
    start = f"{n}: {flags}, " if flagged else f"{n}: "
    return f"{start}{mines} among {covered} covered"
