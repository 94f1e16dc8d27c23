"""Every provable cell of a view, for bots: what a team can safely play next.

The view (the API's ``rows`` at ``x0, y0``) is all the bot knows; cells outside it are
unknown, so a number on the view's edge only proves what it proves with unknown
neighbours beyond the edge (cells beyond the world's edge do not exist). The view
becomes one window (grown by a ring of unknown cells) with every number reduced by its
known mines, and the exact solver decides every component at once: the same encoding
the world rule uses for one click.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from devil.analysis import Verdict
from devil.world.cells import XY, inside, neighbours
from devil.world.component import InconsistentKnowledge
from devil.world.knowledge import DIGITS, MINE, UNKNOWN, ViewKnowledge
from devil.world.window import Box, analyse, build


@dataclass(frozen=True)
class Deductions:
    """The view's unknown cells that are provably safe, and those provably mines."""

    safe: frozenset[XY]
    mines: frozenset[XY]


def deduce(rows: Iterable[str], x0: int, y0: int) -> Deductions:
    """Every unknown cell of the view that every consistent layout keeps safe / mines.

    Raises ``KnowledgeError`` for a malformed view (naming row and column) and
    ``InconsistentKnowledge`` for numbers no layout satisfies.
    """
    view = ViewKnowledge(rows, x0, y0)
    if view.width == 0:
        return Deductions(frozenset(), frozenset())
    inner = Box(x0, y0, view.width, view.height)
    box = Box(x0 - 1, y0 - 1, view.width + 2, view.height + 2)
    # one pass over the symbols; a number's flags are counted against the view's flags
    # (a bot's view is ~1,000 cells and deduce ran for every view of the benchmark's bots:
    # the symbol-by-symbol reads were most of the load generator's CPU)
    flagged = {
        (x0 + j, y0 + i) for i, row in enumerate(view.rows) for j, sym in enumerate(row)
        if sym == MINE
    }  # fmt: skip
    numbers: dict[XY, int] = {}
    holes: list[XY] = []
    for i, row in enumerate(view.rows):
        y = y0 + i
        for j, sym in enumerate(row):
            if sym == UNKNOWN:
                continue
            cell = (x0 + j, y)
            if sym in DIGITS:
                mines = len(flagged.intersection(neighbours(*cell))) if flagged else 0
                need = int(sym) - mines
                if need < 0:
                    raise InconsistentKnowledge(
                        f"the {sym} at ({cell[0]}, {cell[1]}) has {mines} flags around it",
                        cell,
                    )
                numbers[cell] = need
            else:
                holes.append(cell)
    holes.extend(c for c in _ring(box) if not inside(*c))  # beyond the world's edge
    window = build(box, numbers, holes)
    verdicts = analyse(window).classification().verdicts
    safe: list[XY] = []
    mines_out: list[XY] = []
    for covered, verdict in verdicts.items():
        if verdict is Verdict.SAFE:
            found = safe
        elif verdict is Verdict.MINE:
            found = mines_out
        else:
            continue
        xy = window.xy(covered)
        if inner.holds(*xy) and view.symbol(0, *xy) == UNKNOWN:
            found.append(xy)  # not the padding ring outside the view, nor a known cell
    return Deductions(frozenset(safe), frozenset(mines_out))


def _ring(box: Box) -> list[XY]:
    """The cells on the border of ``box``."""
    right, bottom = box.x0 + box.width - 1, box.y0 + box.height - 1
    out = [(x, y) for x in range(box.x0, right + 1) for y in (box.y0, bottom)]
    out.extend((x, y) for y in range(box.y0 + 1, bottom) for x in (box.x0, right))
    return out
