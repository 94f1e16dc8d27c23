"""The world devil rule: is a reveal (a flag) proved by what the team knows?

On board ``i`` the team's colour-``i`` numbers constrain the unknown cells; its flags of
colour ``i`` are known mines, its flags of other colours known safe cells; cells no number
sees are always possible mines (the classic rule). A reveal is accepted when every layout
consistent with that knowledge leaves the cell safe, a flag when every one mines it.
Otherwise the answer is a devil error with a witness: a consistent layout (mine on the
click for a reveal, safe for a flag), computed from the knowledge only, never the hash.

The pipeline: ``component.explore`` walks the click's constraint component (its cost
depends on that component only), ``window.build`` encodes it as a holed ``Position``, and
the exact solver (``devil.solver``) decides it, first on the nearest numbers only (a proof
from a subset is a proof), then on the whole component. See ``devil/world/component.py`` for why
the component is all that matters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from devil.analysis import Layout, Verdict
from devil.solver import PositionAnalysis
from devil.world.cells import XY, check, neighbours
from devil.world.component import Component, Explorer, InconsistentKnowledge, explore
from devil.world.knowledge import DIGITS, MINE, UNKNOWN, Knowledge
from devil.world.window import Box, Window, analyse, build

BudgetSpec: TypeAlias = object
"""Stands for ``devil.budget.Budget`` (engineer perf) until it lands: accepted, not yet used."""

STAGES: tuple[int | None, ...] = (4, 16, 64, 512, None)
"""How many numbers (nearest first) each attempt to prove a click uses; the last is the
whole component. A proof from a subset of the numbers is a proof (fewer constraints only
allow more layouts), so most provable clicks are settled by the few numbers around them
however long the frontier is; a devil error needs the whole component for its witness.
Each stage is four times the last, so the failed ones cost at most a third more than the
last. Measured on bot rafts (200 rafts of up to 64 proved moves, SQLite, CPU time of the
whole ``play_raft``): 0.35 ms per move with (32, 512, None), 0.18 ms with these."""

WITNESS_SIDE = 64
"""A witness shows at most this many cells each way around the click (what a player can
look at; a component around a big cleared region can span thousands of cells)."""

LARGE_COMPONENT = 5_000
"""Components with more numbers than this are still judged exactly, with a note."""


@dataclass(frozen=True)
class Witness:
    """A layout of board ``i`` around a click: ``*`` a mine of colour ``i``, ``.`` not.

    The rows cover the judged component (its numbers with all their neighbours, and the
    click), cropped to ``WITNESS_SIDE`` cells each way around the click. Every number of
    the component is satisfied by the layout (those whose neighbours all lie inside the
    rows can be checked on them); cells the component does not constrain are shown ``.``
    (they are free under the classic rule), known mines next to its numbers ``*``.
    """

    x0: int
    y0: int
    rows: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.rows or any(len(r) != len(self.rows[0]) for r in self.rows):
            raise ValueError("witness rows must be a non-empty rectangle")
        if not set("".join(self.rows)) <= {"*", "."}:
            raise ValueError("witness rows hold only '*' and '.'")

    @property
    def width(self) -> int:
        return len(self.rows[0])

    @property
    def height(self) -> int:
        return len(self.rows)

    def mines(self) -> frozenset[XY]:
        return frozenset(
            (self.x0 + j, self.y0 + i)
            for i, row in enumerate(self.rows)
            for j, ch in enumerate(row)
            if ch == "*"
        )

    def covers(self, x: int, y: int) -> bool:
        return 0 <= x - self.x0 < self.width and 0 <= y - self.y0 < self.height


@dataclass(frozen=True)
class WorldVerdict:
    """``proved``: the move stands; otherwise ``witness`` shows the devil's layout."""

    proved: bool
    witness: Witness | None
    numbers: int = 0
    """Numbers in the judged component (the work done is proportional to it)."""
    note: str | None = None
    """Set for unusually large components, which are still judged exactly."""


def judge_reveal(
    k: Knowledge, colour: int, x: int, y: int, budget: BudgetSpec | None = None
) -> WorldVerdict:
    """Is ``(x, y)`` safe on board ``colour`` in every layout consistent with ``k``?

    Raises ``OutOfWorld`` beyond ``2**62``, ``InconsistentKnowledge`` when the knowledge
    around the click fits no layout and ``WindowTooLarge`` for a component spanning more
    than ``devil.board.MAX_CELLS`` cells. ``budget`` is accepted for the solver budget
    (``devil.budget``, engineer perf) and passed on once the solver takes one.
    """
    return _judge(k, colour, x, y, mine=True)


def judge_flag(
    k: Knowledge, colour: int, x: int, y: int, budget: BudgetSpec | None = None
) -> WorldVerdict:
    """Is ``(x, y)`` a mine on board ``colour`` in every layout consistent with ``k``?

    Errors and ``budget`` as for ``judge_reveal``.
    """
    return _judge(k, colour, x, y, mine=False)


def _judge(k: Knowledge, colour: int, x: int, y: int, mine: bool) -> WorldVerdict:
    """``mine``: the devil looks for a layout with a mine on the click (a reveal), else
    for one without (a flag)."""
    check(x, y)
    click = (x, y)
    symbol = k.symbol(colour, x, y)
    if symbol != UNKNOWN and (symbol == MINE) != mine:
        return WorldVerdict(True, None)  # known safe for a reveal, known mine for a flag
    if symbol == UNKNOWN:
        explorer = Explorer(k, colour, x, y)
        for limit in STAGES:
            comp = explorer.grow(limit)
            window = _window(comp)
            analysis = analyse(window)
            verdict = analysis.verdict(window.cell(click))
            if verdict is (Verdict.SAFE if mine else Verdict.MINE):
                return _verdict(comp, True, None)
            if comp.complete:
                break
        layout = analysis.witness(window.cell(click), mine=mine)
    else:
        comp = explore(k, colour, x, y)
        window = _window(comp)
        analysis = analyse(window)
        layout = _any_layout(analysis, window, comp)
    if layout is None:  # the verdict said a witness exists
        raise AssertionError(f"no witness for ({x}, {y}) although the verdict allows one")
    return _verdict(comp, False, _witness(window, comp, layout))


def _window(comp: Component) -> Window:
    cells: list[XY] = [comp.click]
    for x, y in comp.numbers:
        cells.extend(neighbours(x, y))
    holes = set(comp.known)
    if comp.click_symbol != UNKNOWN and comp.click_symbol not in DIGITS:
        holes.add(comp.click)
    holes.difference_update(comp.numbers)
    return build(Box.around(cells), comp.numbers, holes)


def _any_layout(analysis: PositionAnalysis, window: Window, comp: Component) -> Layout | None:
    """Some consistent layout of the component (for a click on a known cell)."""
    if not comp.unknown:
        return frozenset()
    cell = window.cell(min(comp.unknown))
    return analysis.witness(cell, mine=analysis.verdict(cell).could_be_mine)


def _witness(window: Window, comp: Component, layout: Layout) -> Witness:
    crop = _crop(window.box, comp.click)
    mines = [window.xy(cell) for cell in layout]
    mines.extend(comp.mines)
    if comp.click_symbol == MINE:
        mines.append(comp.click)
    grid = bytearray(b"." * crop.area)
    for x, y in mines:
        if crop.holds(x, y):
            grid[(y - crop.y0) * crop.width + (x - crop.x0)] = ord("*")
    text = grid.decode("ascii")
    rows = tuple(text[i : i + crop.width] for i in range(0, crop.area, crop.width))
    return Witness(crop.x0, crop.y0, rows)


def _crop(box: Box, click: XY) -> Box:
    """At most ``WITNESS_SIDE`` x ``WITNESS_SIDE`` cells of ``box``, the click near the middle."""

    def span(lo: int, size: int, at: int) -> tuple[int, int]:
        if size <= WITNESS_SIDE:
            return lo, size
        start = min(max(at - WITNESS_SIDE // 2, lo), lo + size - WITNESS_SIDE)
        return start, WITNESS_SIDE

    x0, width = span(box.x0, box.width, click[0])
    y0, height = span(box.y0, box.height, click[1])
    return Box(x0, y0, width, height)


def _verdict(comp: Component, proved: bool, witness: Witness | None) -> WorldVerdict:
    n = len(comp.numbers)
    note = None
    if n > LARGE_COMPONENT:
        note = f"large component: {n} numbers and {len(comp.unknown)} unknown cells, judged exactly"
    return WorldVerdict(proved, witness, n, note)


__all__ = [
    "InconsistentKnowledge",
    "Witness",
    "WorldVerdict",
    "judge_flag",
    "judge_reveal",
]
