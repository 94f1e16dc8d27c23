"""The world devil rule: is a reveal (a flag) proved by what the team knows?

On board ``i`` the team's colour-``i`` numbers constrain the unknown cells; its flags of
colour ``i`` are known mines, its flags of other colours known safe cells; cells no number
sees are always possible mines (the classic rule). A reveal is accepted when every layout
consistent with that knowledge leaves the cell safe, a flag when every one mines it.
Otherwise the answer is a devil error with a witness: a consistent layout (mine on the
click for a reveal, safe for a flag), computed from the knowledge only, never the hash.

The pipeline: a click that one number next to it settles (all its mines flagged, or as
many unknown neighbours as mines still to place) is proved at once
(``Explorer.settled_next_to_the_click``: about 60 % of bot moves). Otherwise
``component.explore`` walks the click's constraint component, nearest numbers first and
never beyond ``WINDOW_RADIUS`` cells of the click; ``window.build`` encodes what it took
as a holed ``Position``, and the exact solver (``devil.solver``) decides it, first on the
nearest numbers only, then on more (``STAGES``).

Which way a bounded window is sound (``docs/world-engine.md``):

- a *proof* from some of the numbers is a proof: fewer constraints only allow more
  layouts, so a cell safe (mined) in every layout of a subset is safe (mined) in every
  layout of the whole knowledge;
- a *devil error* needs a layout of the whole knowledge with the click mined (safe), and
  a layout of a subset need not extend to the rest. So a devil error is given when the
  walk took the click's whole component (two components share no unknown cell, so a
  layout of the component extends by any layout of the rest, e.g. the true one), or when
  the numbers in reach force the click the devil's way (a reveal of a cell they make a
  mine, a reveal of a flagged cell: then *every* layout agrees, and the witness is the
  click alone). Otherwise, when the component reaches beyond the window, the verdict is
  *undecided* (``WorldVerdict.undecided`` says why), never a devil error.

Every judgement can run under a ``devil.budget.Budget``: the walk is charged a unit per
cell read and the solver calls spend what is left; an exhausted budget raises
``devil.errors.BudgetExceeded`` (no verdict at all, never a wrong one).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from devil.analysis import Layout, Verdict
from devil.budget import Budget, Meter
from devil.solver import PositionAnalysis
from devil.world.cells import MAX_COORD, XY, check, neighbours
from devil.world.component import Component, Explorer, InconsistentKnowledge
from devil.world.knowledge import DIGITS, MINE, UNKNOWN, Knowledge
from devil.world.shares import start
from devil.world.window import Box, Window, analyse, build

STAGES: tuple[int | None, ...] = (4, 16, 64, 512, None)
"""How many numbers (nearest first) each attempt to prove a click uses; the last is
every number of the component within the window. A proof from a subset of the numbers is
a proof (fewer constraints only allow more layouts), so most provable clicks are settled
by the few numbers around them however long the frontier is; a devil error needs the
whole component for its witness. Each stage is four times the last, so the failed ones
cost at most a third more than the last. Measured on bot rafts (200 rafts of up to 64
proved moves, SQLite, CPU time of the whole ``play_raft``): 0.35 ms per move with
(32, 512, None), 0.18 ms with these."""

WINDOW_RADIUS = 32
"""The judgement reads no number further than this from the click (Chebyshev distance):
its work is bounded by a (2r+3)-cell square whatever the team knows. A component reaching
beyond it is judged on its part inside: proofs stand, anything else is undecided."""

WITNESS_SIDE = 64
"""A witness shows at most this many cells each way around the click (what a player can
look at; a component around a big cleared region can span thousands of cells)."""

WINDOW_CELLS_PER_UNIT = 16
"""Budget units charged per cell of a window built for the solver (its grid, its scan)."""


@dataclass(frozen=True)
class Witness:
    """A layout of board ``i`` around a click: ``*`` a mine of colour ``i``, ``.`` not.

    The rows cover the judged component (its numbers with all their neighbours, and the
    click), cropped to ``WITNESS_SIDE`` cells each way around the click. Every number of
    board ``i`` in the rows is satisfied (those whose neighbours all lie inside the rows
    can be checked on them): the component's by the devil's layout, the numbers of other
    pieces inside the rows by a layout of theirs. Known mines (flags of colour ``i``) are
    ``*``; known safe cells and unknown cells no number constrains are ``.``. When the
    component reaches beyond the window but the numbers in reach force the click, the
    witness is the click alone (one cell: every layout agrees on it).
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
    """``proved``: the move stands; ``undecided``: why the window could not decide it
    (neither proved nor a devil error); otherwise ``witness`` shows the devil's layout."""

    proved: bool
    witness: Witness | None
    numbers: int = 0
    """Numbers judged (the work done is proportional to them)."""
    undecided: str | None = None
    reads: int = 0
    """Cells read from the knowledge (bounded by the window, whatever the team knows)."""

    @property
    def devil(self) -> bool:
        """A devil error: not proved, and a witness exists in the whole knowledge."""
        return not self.proved and self.undecided is None


class Settled(Protocol):
    """Proofs found before the judgement (``devil.world.together.Proofs``)."""

    def settles(self, x: int, y: int, mine: bool) -> bool:
        """Whether the (unknown) click is proved safe (``mine``) or a mine (not ``mine``)
        by numbers all within ``WINDOW_RADIUS`` of it."""
        ...


def judge_reveal(
    k: Knowledge,
    colour: int,
    x: int,
    y: int,
    budget: Budget | None = None,
    proofs: Settled | None = None,
) -> WorldVerdict:
    """Is ``(x, y)`` safe on board ``colour`` in every layout consistent with ``k``?

    Raises ``OutOfWorld`` beyond ``2**62``, ``InconsistentKnowledge`` when the knowledge
    around the click fits no layout, ``devil.errors.BudgetExceeded`` when ``budget`` runs
    out first. A component reaching beyond ``WINDOW_RADIUS`` that its part inside does not
    prove is ``undecided``. ``proofs`` (found on what ``k`` knew earlier or knows now)
    settle an unknown click without a judgement of its own.
    """
    return _judge(k, colour, x, y, True, start(budget), proofs)


def judge_flag(
    k: Knowledge,
    colour: int,
    x: int,
    y: int,
    budget: Budget | None = None,
    proofs: Settled | None = None,
) -> WorldVerdict:
    """Is ``(x, y)`` a mine on board ``colour`` in every layout consistent with ``k``?

    Errors, ``budget``, ``undecided`` and ``proofs`` as for ``judge_reveal``.
    """
    return _judge(k, colour, x, y, False, start(budget), proofs)


def _judge(
    k: Knowledge,
    colour: int,
    x: int,
    y: int,
    mine: bool,
    meter: Meter | None,
    proofs: Settled | None = None,
) -> WorldVerdict:
    """``mine``: the devil looks for a layout with a mine on the click (a reveal), else
    for one without (a flag)."""
    check(x, y)
    click = (x, y)
    symbol = k.symbol(colour, x, y)
    if symbol != UNKNOWN and (symbol == MINE) != mine:
        return WorldVerdict(True, None)  # known safe for a reveal, known mine for a flag
    if symbol == UNKNOWN and proofs is not None and proofs.settles(x, y, mine):
        return WorldVerdict(True, None)
    explorer = Explorer(k, colour, x, y, WINDOW_RADIUS, meter)
    if symbol == UNKNOWN and explorer.settled_next_to_the_click(mine):
        return WorldVerdict(True, None, 1, None, len(explorer.read.seen))
    wanted = Verdict.SAFE if mine else Verdict.MINE
    for limit in STAGES if symbol == UNKNOWN else (None,):
        comp = explorer.grow(limit)
        window = _window(comp, meter)
        analysis = analyse(window, meter)
        if symbol == UNKNOWN and analysis.verdict(window.cell(click)) is wanted:
            return _verdict(comp, True)
        if comp.complete or (comp.cut and not explorer.todo):
            break
    if not comp.complete:
        if symbol != UNKNOWN or analysis.verdict(window.cell(click)) is _opposite(mine):
            # every layout of the whole knowledge agrees with the numbers in reach (or the
            # flag) on the click: the devil is right, and the click alone shows why
            return _verdict(comp, False, Witness(x, y, ("*" if mine else ".",)))
        return _verdict(comp, False, undecided=_why_undecided(comp, mine))
    return _verdict(comp, False, _witness(explorer.read, comp, window, mine, meter))


def _opposite(mine: bool) -> Verdict:
    """What the numbers in reach would have to force for the devil to be right anyway."""
    return Verdict.MINE if mine else Verdict.SAFE


def _why_undecided(comp: Component, mine: bool) -> str:
    x, y = comp.click
    return (
        f"the team's knowledge around ({x}, {y}) is one piece reaching beyond "
        f"{WINDOW_RADIUS} cells of the click; its {len(comp.numbers)} numbers within reach "
        f"do not prove the {'cell safe' if mine else 'cell a mine'}, and the rest is too far "
        "to judge (flag the mines you know to split it, or play nearer the numbers)"
    )


def _window(comp: Component, meter: Meter | None) -> Window:
    cells: list[XY] = [comp.click]
    for x, y in comp.numbers:
        cells.extend(neighbours(x, y))
    holes = set(comp.known)
    if comp.click_symbol != UNKNOWN and comp.click_symbol not in DIGITS:
        holes.add(comp.click)
    holes.difference_update(comp.numbers)
    box = Box.around(cells)
    if meter is not None:
        meter.charge(box.area // WINDOW_CELLS_PER_UNIT + 1)
    return build(box, comp.numbers, holes)


def _witness(
    read: Callable[[XY], str], comp: Component, window: Window, mine: bool, meter: Meter | None
) -> Witness:
    """The devil's layout of the whole component (the click mined for a reveal, safe for a
    flag), with every other number inside the shown rectangle satisfied too: one problem
    of the component and those numbers (other pieces share no unknown cell with the
    component, so adding them changes no verdict of it), solved once."""
    crop = _crop(window.box, comp.click)
    extra = _Others(read, comp, crop)
    numbers = {**comp.numbers, **extra.numbers}
    w = window.box  # the component's box and the crop grown by the others' neighbours
    cells = [(w.x0, w.y0), (w.x0 + w.width - 1, w.y0 + w.height - 1)]
    cells += [(crop.x0 - 1, crop.y0 - 1), (crop.x0 + crop.width, crop.y0 + crop.height)]
    cells = [(_clamp(x), _clamp(y)) for x, y in cells]  # no cell beyond the world's edge
    holes = set(comp.known) | extra.known
    if comp.click_symbol != UNKNOWN and comp.click_symbol not in DIGITS:
        holes.add(comp.click)
    holes.difference_update(numbers)
    box = Box.around(cells)
    if meter is not None:
        meter.charge(box.area // WINDOW_CELLS_PER_UNIT + 1)
    whole = build(box, numbers, holes)
    analysis = analyse(whole, meter)
    if comp.click_symbol == UNKNOWN:
        layout = analysis.witness(whole.cell(comp.click), mine=mine)
    else:
        layout = _any_layout(analysis, whole, comp.unknown | extra.unknown)
    if layout is None:  # the verdict said a witness exists
        x, y = comp.click
        raise AssertionError(f"no witness for ({x}, {y}) although the verdict allows one")
    mines = {whole.xy(cell) for cell in layout} & (comp.unknown | extra.unknown)
    mines |= extra.mines | comp.mines
    if comp.click_symbol == MINE:
        mines.add(comp.click)
    grid = bytearray(b"." * crop.area)
    for x, y in mines:
        if crop.holds(x, y):
            grid[(y - crop.y0) * crop.width + (x - crop.x0)] = ord("*")
    text = grid.decode("ascii")
    rows = tuple(text[i : i + crop.width] for i in range(0, crop.area, crop.width))
    return Witness(crop.x0, crop.y0, rows)


class _Others:
    """The numbers inside ``crop`` that are not the component's, reduced by their known
    mines; the unknown cells they touch, the known cells around them, and every known
    mine inside ``crop`` (all drawn in the witness)."""

    def __init__(self, read: Callable[[XY], str], comp: Component, crop: Box):
        self.numbers: dict[XY, int] = {}
        self.unknown: set[XY] = set()
        self.known: set[XY] = set()
        self.mines: set[XY] = set()
        for y in range(crop.y0, crop.y0 + crop.height):
            for x in range(crop.x0, crop.x0 + crop.width):
                sym = read((x, y))
                if sym == MINE:
                    self.mines.add((x, y))
                elif sym in DIGITS and (x, y) not in comp.numbers:
                    self._take((x, y), int(sym), read)

    def _take(self, number: XY, value: int, read: Callable[[XY], str]) -> None:
        need = value
        free = 0
        for n in neighbours(*number):
            sym = read(n)
            if sym == UNKNOWN:
                free += 1
                self.unknown.add(n)
            else:
                self.known.add(n)
                need -= sym == MINE
        if not 0 <= need <= free:
            raise InconsistentKnowledge(
                f"the {value} at ({number[0]}, {number[1]}) cannot be satisfied", number
            )
        self.numbers[number] = need


def _any_layout(
    analysis: PositionAnalysis, window: Window, unknown: set[XY] | frozenset[XY]
) -> Layout | None:
    """Some consistent layout of the problem (for a click on a known cell)."""
    if not unknown:
        return frozenset()
    cell = window.cell(min(unknown))
    return analysis.witness(cell, mine=analysis.verdict(cell).could_be_mine)


def _clamp(v: int) -> int:
    return max(-MAX_COORD, min(MAX_COORD, v))


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


def _verdict(
    comp: Component, proved: bool, witness: Witness | None = None, undecided: str | None = None
) -> WorldVerdict:
    return WorldVerdict(proved, witness, len(comp.numbers), undecided, comp.reads)


__all__ = [
    "InconsistentKnowledge",
    "Settled",
    "Witness",
    "WorldVerdict",
    "judge_flag",
    "judge_reveal",
]
