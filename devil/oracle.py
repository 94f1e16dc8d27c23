"""The brute-force oracle: exact answers for small positions, by enumeration.

This module is the yardstick the real solver (``devil.solver``) and the CP-SAT
backend (``devil.cpsat``) are tested against, so it is written to be obviously
right rather than fast, and shares no code with them: it reads only the board's
neighbour lists and the position's bytes.

The pipeline:

1. ``_read_numbers``: every revealed number with its covered neighbours, straight
   from ``Board.neighbours``; the covered cells split into *edge* (touching a
   number) and *deep*.
2. ``_edge_layouts``: every assignment of the edge cells that satisfies every
   number. A depth-first walk over the edge cells in a fixed order that abandons a
   branch only when some number is already over its value or can no longer reach
   it; each finished assignment is checked once more against the numbers.
3. ``_tally``: the layouts grouped by their mine count ``k``: how many there are
   and, per edge cell, how many of them mine it.
4. The answers, from the tally and the number of deep cells ``D``:
   - classic rule: a layout may put any number of mines in the deep cells;
   - counted rule: a layout with ``k`` edge mines is possible only when the
     remaining ``M - k`` mines fit in the deep cells, and it stands for
     ``C(D, M - k)`` full layouts.

For tiny boards ``full_layouts`` also enumerates every assignment of *all*
covered cells with ``itertools.product`` and checks it with ``is_consistent``, the
most literal reading of the rule; the tests use it to check steps 1-4.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from math import comb

from devil.analysis import Classification, Layout, Verdict
from devil.board import Cell
from devil.errors import InconsistentPosition
from devil.position import Position
from devil.rules import Count

MAX_EDGE = 22
"""Most edge cells ``classify`` / ``probabilities`` / ``count_layouts`` accept."""

MAX_FULL = 16
"""Most covered cells ``full_layouts`` accepts (it tries ``2**covered`` layouts)."""

CLASSIC_DENSITY_DEFAULT = Fraction(1, 5)
"""Mine density used by classic probabilities when the position has no mine total."""


@dataclass(frozen=True)
class _Number:
    """A revealed number and its covered neighbours, read from the board."""

    cell: Cell
    value: int
    covered: tuple[Cell, ...]


@dataclass(frozen=True)
class _Reading:
    """What the oracle needs from a position."""

    numbers: tuple[_Number, ...]
    edge: tuple[Cell, ...]
    deep: tuple[Cell, ...]


@dataclass(frozen=True)
class _Tally:
    """Consistent edge layouts grouped by their number of mines ``k``."""

    layouts: dict[int, int]
    """``k`` -> number of consistent edge layouts with ``k`` mines."""

    mined: dict[int, dict[Cell, int]]
    """``k`` -> edge cell -> how many of those layouts mine the cell."""


# -- step 1: read the position ----------------------------------------------------------


def _is_covered(position: Position, cell: Cell) -> bool:
    return position.grid[cell] in (ord("."), ord("F"))


def _revealed_number(position: Position, cell: Cell) -> int | None:
    return position.number(cell)


def _read_numbers(position: Position) -> _Reading:
    """Revealed numbers with their covered neighbours; edge and deep cells.

    Raises ``InconsistentPosition`` for a number larger than its covered neighbours.
    """
    board = position.board
    numbers: list[_Number] = []
    edge: set[Cell] = set()
    for cell in board.cells():
        value = _revealed_number(position, cell)
        if value is None:
            continue
        covered = tuple(n for n in board.neighbours(cell) if _is_covered(position, n))
        if value > len(covered):
            raise InconsistentPosition.too_few(position, cell, value, len(covered))
        if covered:
            numbers.append(_Number(cell, value, covered))
            edge.update(covered)
    covered_cells = [c for c in board.cells() if _is_covered(position, c)]
    deep = tuple(c for c in covered_cells if c not in edge)
    return _Reading(tuple(numbers), tuple(sorted(edge)), deep)


def _check_edge_size(reading: _Reading, limit: int) -> None:
    if len(reading.edge) > limit:
        raise ValueError(
            f"the oracle enumerates at most {limit} edge cells; this position has "
            f"{len(reading.edge)}"
        )


# -- step 2: enumerate edge layouts --------------------------------------------------


def _edge_layouts(reading: _Reading) -> Iterator[Layout]:
    """Every assignment of the edge cells that satisfies every revealed number.

    Cells are taken number by number (each number's covered cells together), so that
    a number is fully assigned soon after its first cell and bad branches end early.
    """
    numbers = reading.numbers
    edge = tuple(dict.fromkeys(c for n in numbers for c in sorted(n.covered)))
    touching: dict[Cell, list[int]] = {c: [] for c in edge}
    for index, number in enumerate(numbers):
        for c in number.covered:
            touching[c].append(index)
    mines = [0] * len(numbers)
    open_cells = [len(n.covered) for n in numbers]
    chosen: list[Cell] = []

    def still_possible(indices: list[int]) -> bool:
        return all(mines[i] <= numbers[i].value <= mines[i] + open_cells[i] for i in indices)

    def walk(position: int) -> Iterator[Layout]:
        if position == len(edge):
            layout = frozenset(chosen)
            if _numbers_hold(numbers, layout):
                yield layout
            return
        cell = edge[position]
        indices = touching[cell]
        for mined in (0, 1):
            for i in indices:
                open_cells[i] -= 1
                mines[i] += mined
            if mined:
                chosen.append(cell)
            if still_possible(indices):
                yield from walk(position + 1)
            if mined:
                chosen.pop()
            for i in indices:
                open_cells[i] += 1
                mines[i] -= mined

    return walk(0)


def _numbers_hold(numbers: Iterable[_Number], layout: Layout) -> bool:
    return all(sum(c in layout for c in n.covered) == n.value for n in numbers)


# -- step 3: tally ---------------------------------------------------------------------


def _tally(reading: _Reading) -> _Tally:
    layouts: dict[int, int] = {}
    mined: dict[int, dict[Cell, int]] = {}
    for layout in _edge_layouts(reading):
        k = len(layout)
        layouts[k] = layouts.get(k, 0) + 1
        per_cell = mined.setdefault(k, dict.fromkeys(reading.edge, 0))
        for cell in layout:
            per_cell[cell] += 1
    return _Tally(layouts, mined)


def _total_mines(position: Position) -> int:
    if position.mines is None:
        raise ValueError("the counted rule needs the position's total number of mines")
    return position.mines


def _feasible_counts(
    tally: _Tally, reading: _Reading, position: Position, count: Count
) -> list[int]:
    """The edge mine counts ``k`` that some full consistent layout has."""
    if count is Count.CLASSIC:
        return sorted(tally.layouts)
    total = _total_mines(position)
    deep = len(reading.deep)
    return sorted(k for k in tally.layouts if 0 <= total - k <= deep)


def _inconsistent(position: Position, reading: _Reading) -> InconsistentPosition:
    """The error for a position no layout fits, naming a number when the numbers alone fail.

    The named number is the first (in row-major order) that cannot be satisfied together
    with the numbers before it.
    """
    numbers = reading.numbers
    if not _edge_layouts_exist(reading):
        for end in range(1, len(numbers) + 1):
            prefix = _Reading(numbers[:end], reading.edge, reading.deep)
            if not _edge_layouts_exist(prefix):
                return InconsistentPosition.unsatisfiable(position, numbers[end - 1].cell)
    return InconsistentPosition(
        f"no layout satisfying the numbers leaves room for exactly {position.mines} mines "
        f"with {len(reading.deep)} covered cells away from the numbers"
    )


def _edge_layouts_exist(reading: _Reading) -> bool:
    return any(True for _ in _edge_layouts(reading))


def _analyse(position: Position, count: Count) -> tuple[_Reading, _Tally, list[int]]:
    reading = _read_numbers(position)
    _check_edge_size(reading, MAX_EDGE)
    if count is Count.COUNTED:
        _total_mines(position)
    tally = _tally(reading)
    feasible = _feasible_counts(tally, reading, position, count)
    if not feasible:
        raise _inconsistent(position, reading)
    return reading, tally, feasible


# -- step 4: answers -------------------------------------------------------------------


def classify(position: Position, count: Count = Count.CLASSIC) -> Classification:
    """The verdict for every covered cell (flags are ignored), by enumeration.

    Raises ``InconsistentPosition`` when no layout fits and ``ValueError`` when the
    position has more than ``MAX_EDGE`` edge cells.
    """
    reading, tally, feasible = _analyse(position, count)
    verdicts: dict[Cell, Verdict] = {}
    for cell in reading.edge:
        ever_mined = any(tally.mined[k][cell] > 0 for k in feasible)
        ever_safe = any(tally.mined[k][cell] < tally.layouts[k] for k in feasible)
        verdicts[cell] = _verdict(ever_mined, ever_safe)
    if reading.deep:
        deep_verdict = _deep_verdict(position, reading, feasible, count)
        for cell in reading.deep:
            verdicts[cell] = deep_verdict
    return Classification(verdicts)


def _verdict(ever_mined: bool, ever_safe: bool) -> Verdict:
    if ever_mined and ever_safe:
        return Verdict.EITHER
    return Verdict.MINE if ever_mined else Verdict.SAFE


def _deep_verdict(
    position: Position, reading: _Reading, feasible: list[int], count: Count
) -> Verdict:
    if count is Count.CLASSIC:
        return Verdict.EITHER
    total = _total_mines(position)
    deep = len(reading.deep)
    # With r = total - k mines spread over the deep cells, a given deep cell is mined
    # in some arrangement iff r >= 1, and free in some iff r <= deep - 1.
    ever_mined = any(total - k >= 1 for k in feasible)
    ever_safe = any(total - k <= deep - 1 for k in feasible)
    return _verdict(ever_mined, ever_safe)


def classic_density(position: Position) -> Fraction:
    """``p``: total mines over existing cells, or ``CLASSIC_DENSITY_DEFAULT`` without a total."""
    if position.mines is None:
        return CLASSIC_DENSITY_DEFAULT
    return Fraction(position.mines, position.board.cell_count)


def _weights(
    position: Position, reading: _Reading, feasible: list[int], count: Count
) -> dict[int, Fraction]:
    """The weight of one edge layout with ``k`` mines, for each feasible ``k``."""
    if count is Count.COUNTED:
        total = _total_mines(position)
        deep = len(reading.deep)
        return {k: Fraction(comb(deep, total - k)) for k in feasible}
    p = classic_density(position)
    n = len(reading.edge)
    return {k: p**k * (1 - p) ** (n - k) for k in feasible}


def probabilities(position: Position, count: Count = Count.CLASSIC) -> dict[Cell, Fraction]:
    """The exact mine probability of every covered cell.

    Counted rule: each edge layout with ``k`` mines weighs ``C(deep, mines - k)``, and a
    deep cell's probability is the weighted mean of ``(mines - k) / deep``. Classic rule:
    each edge layout weighs ``p**k * (1 - p)**(edge - k)`` and deep cells get ``p``.
    """
    reading, tally, feasible = _analyse(position, count)
    weights = _weights(position, reading, feasible, count)
    norm = sum(weights[k] * tally.layouts[k] for k in feasible)
    if norm == 0:
        raise ValueError(
            f"mine density {classic_density(position)} gives every consistent layout weight zero"
        )
    out: dict[Cell, Fraction] = {}
    for cell in reading.edge:
        out[cell] = sum((weights[k] * tally.mined[k][cell] for k in feasible), Fraction(0)) / norm
    if reading.deep:
        if count is Count.CLASSIC:
            deep_p = classic_density(position)
        else:
            total = _total_mines(position)
            deep = len(reading.deep)
            deep_p = (
                sum(
                    (weights[k] * tally.layouts[k] * Fraction(total - k, deep) for k in feasible),
                    Fraction(0),
                )
                / norm
            )
        for cell in reading.deep:
            out[cell] = deep_p
    return out


def count_layouts(position: Position, count: Count = Count.CLASSIC) -> int:
    """How many full consistent layouts (of all covered cells) the position has.

    Classic rule: any number of mines, so each edge layout stands for ``2**deep``.
    Counted rule: exactly ``position.mines`` mines. Zero for an inconsistent position
    (except a number with too few covered neighbours, which raises
    ``InconsistentPosition``).
    """
    reading = _read_numbers(position)
    _check_edge_size(reading, MAX_EDGE)
    tally = _tally(reading)
    deep = len(reading.deep)
    if count is Count.CLASSIC:
        return sum(tally.layouts.values()) << deep
    total = _total_mines(position)
    return sum(
        n * comb(deep, total - k) for k, n in tally.layouts.items() if 0 <= total - k <= deep
    )


def edge_layouts(position: Position) -> list[Layout]:
    """Every consistent assignment of the edge cells, as the set of mined edge cells."""
    reading = _read_numbers(position)
    _check_edge_size(reading, MAX_EDGE)
    return list(_edge_layouts(reading))


# -- the literal rule ------------------------------------------------------------------


def is_consistent(position: Position, layout: Iterable[Cell], count: Count = Count.CLASSIC) -> bool:
    """Whether ``layout`` (the mined cells) fits the position.

    True when every mined cell is covered (flagged or not) and every revealed number
    equals its count of mined neighbours; under the counted rule the layout must also
    hold exactly ``position.mines`` mines.
    """
    mined = frozenset(layout)
    board = position.board
    if any(not board.exists(c) or not _is_covered(position, c) for c in mined):
        return False
    if count is Count.COUNTED and len(mined) != _total_mines(position):
        return False
    for cell in board.cells():
        value = _revealed_number(position, cell)
        if value is not None and sum(n in mined for n in board.neighbours(cell)) != value:
            return False
    return True


def full_layouts(position: Position, count: Count = Count.CLASSIC) -> list[Layout]:
    """Every consistent layout of *all* covered cells, by trying each of ``2**covered``.

    The most literal reading of the rule, for tiny boards (at most ``MAX_FULL`` covered
    cells); ``classify`` and ``probabilities`` must agree with it.
    """
    covered = [c for c in position.board.cells() if _is_covered(position, c)]
    if len(covered) > MAX_FULL:
        raise ValueError(
            f"full enumeration takes at most {MAX_FULL} covered cells; this position has "
            f"{len(covered)}"
        )
    out: list[Layout] = []
    for bits in itertools.product((False, True), repeat=len(covered)):
        layout = frozenset(c for c, b in zip(covered, bits, strict=True) if b)
        if is_consistent(position, layout, count):
            out.append(layout)
    return out
