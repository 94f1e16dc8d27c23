"""Shared hypothesis strategies: small boards, layouts and positions consistent by construction.

Every position comes from a real layout: the revealed cells are safe cells of the
layout showing their true numbers, so the position is consistent under both count
rules (``position.mines`` is the layout's mine count). Tests that need inconsistent
positions perturb a number (``inconsistent_positions``).

Profiles: ``dev`` (the default, quick) and ``ci`` (more examples, derandomized); choose with
the environment variable ``HYPOTHESIS_PROFILE``, and decorate tests with ``profile()``.
``tests/conftest.py`` registers and loads them (``load_profile``) before any test module is
imported, so every ``@given`` test has them: no deadline (a loaded 2-core CI machine makes any
deadline flaky) and, under ``ci``, the same examples on every run (a CI run fails only on what
also fails locally; ``explore`` is ``ci`` with fresh random examples, to hunt for bugs, and
``soak`` twenty times as many, for a new engine path).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from hypothesis import HealthCheck, assume, settings
from hypothesis import strategies as st

from devil.board import Board, Cell, Topology
from devil.position import COVERED, FLAG, Position, number_byte

_HEALTH = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]
PROFILES = {
    "dev": {"max_examples": 25},
    "ci": {"max_examples": 100, "derandomize": True, "print_blob": True},
    "explore": {"max_examples": 100, "print_blob": True},
    "soak": {"max_examples": 2000, "print_blob": True},
}
"""The project's hypothesis profiles; each also has ``deadline=None`` and ``_HEALTH`` off."""

MAX_EDGE = 18
"""Positions drawn here have at most this many edge cells (the oracle enumerates them)."""

UNLIMITED = 10**9
"""``max_edge`` for positions checked without the oracle (search against CP-SAT)."""


def medium_boards() -> st.SearchStrategy[Board]:
    """Boards up to 10x12, beyond the oracle: for search-against-CP-SAT checks."""
    return boards(max_height=10, max_width=12)


def profile_name() -> str:
    """The profile named by ``HYPOTHESIS_PROFILE`` (``dev`` by default or when unknown)."""
    name = os.environ.get("HYPOTHESIS_PROFILE", "dev")
    return name if name in PROFILES else "dev"


def load_profile() -> None:
    """Register the project's profiles and make ``profile_name()``'s the default of every test
    (also of a bare ``@given`` or ``@settings(max_examples=...)``, which inherit the default)."""
    base = settings.get_profile("default")  # not the current default: hypothesis loads its
    # own "ci" profile when it sees CI set, and a profile's parent is the current default
    for name, values in PROFILES.items():
        settings.register_profile(
            name, parent=base, deadline=None, suppress_health_check=_HEALTH, **values
        )
    settings.load_profile(profile_name())


def profile() -> settings:
    """The settings of the profile ``load_profile`` made the default (``tests/conftest.py``
    calls it before the test modules are imported)."""
    return settings.get_profile(profile_name())


@dataclass(frozen=True)
class Scenario:
    """A position together with the layout it was revealed from."""

    position: Position
    layout: frozenset[Cell]

    def __repr__(self) -> str:
        return f"Scenario({self.position.line!r}, layout={sorted(self.layout)})"


# -- boards and layouts -----------------------------------------------------------------


@st.composite
def boards(
    draw: st.DrawFn,
    max_height: int = 5,
    max_width: int = 6,
    topologies: Iterable[Topology] = Topology.grids(),
    holes: bool = True,
) -> Board:
    """A small board of any topology, sometimes with holes (never all cells)."""
    # Mostly mid-sized boards; 1-row and 1-column boards now and then.
    height = draw(st.integers(1, max_height) | st.integers(min(3, max_height), max_height))
    low = 2 if height == 1 else 1
    width = draw(st.integers(low, max_width) | st.integers(min(3, max_width), max_width))
    topology = draw(st.sampled_from(tuple(topologies)))
    size = height * width
    hole_set: frozenset[Cell] = frozenset()
    if holes and size > 2 and draw(st.booleans()):
        hole_set = frozenset(draw(st.sets(st.integers(0, size - 1), max_size=max(1, size // 5))))
        assume(len(hole_set) < size - 1)
    return Board(height, width, topology, hole_set)


@st.composite
def layouts(draw: st.DrawFn, board: Board) -> frozenset[Cell]:
    """A random set of mined cells: a random density, then each existing cell in or out."""
    cells = list(board.cells())
    density = draw(st.sampled_from((0.1, 0.2, 0.3, 0.45)))
    bits = draw(
        st.lists(st.floats(0, 1, exclude_max=True), min_size=len(cells), max_size=len(cells))
    )
    return frozenset(c for c, x in zip(cells, bits, strict=True) if x < density)


# -- positions --------------------------------------------------------------------------


def true_number(board: Board, layout: frozenset[Cell], cell: Cell) -> int:
    return sum(n in layout for n in board.neighbours(cell))


def reveal(
    board: Board, layout: frozenset[Cell], grid: bytearray, cells: Iterable[Cell], cascade: bool
) -> set[Cell]:
    """Reveal safe ``cells`` in ``grid`` with their true numbers; cascade through zeros.

    Returns the cells whose byte changed.
    """
    changed: set[Cell] = set()
    todo = [c for c in cells if c not in layout]
    while todo:
        cell = todo.pop()
        if grid[cell] not in (COVERED, FLAG):
            continue
        value = true_number(board, layout, cell)
        grid[cell] = number_byte(value)
        changed.add(cell)
        if cascade and value == 0:
            todo.extend(board.neighbours(cell))
    return changed


def covered_grid(board: Board) -> bytearray:
    grid = bytearray(b"." * board.size)
    for h in board.holes:
        grid[h] = ord("#")
    return grid


@st.composite
def scenarios(
    draw: st.DrawFn,
    board_strategy: st.SearchStrategy[Board] | None = None,
    max_edge: int = MAX_EDGE,
    flags: bool = True,
) -> Scenario:
    """A layout on a small board and a consistent partial reveal of it.

    A random set of safe cells is revealed (sometimes cascading through zeros), and
    some covered cells may carry flags (right or wrong: flags are only marks).
    """
    board = draw(board_strategy if board_strategy is not None else boards())
    layout = draw(layouts(board))
    safe = [c for c in board.cells() if c not in layout]
    grid = covered_grid(board)
    if safe:
        fraction = draw(st.sampled_from((0.1, 0.25, 0.4, 0.6, 0.8)))
        bits = draw(
            st.lists(st.floats(0, 1, exclude_max=True), min_size=len(safe), max_size=len(safe))
        )
        chosen = [c for c, x in zip(safe, bits, strict=True) if x < fraction]
        reveal(board, layout, grid, chosen, cascade=draw(st.booleans()))
    if flags:
        covered = [c for c in board.cells() if grid[c] == COVERED]
        if covered:
            for c in draw(st.lists(st.sampled_from(covered), max_size=3, unique=True)):
                grid[c] = FLAG
    position = Position(board, bytes(grid), len(layout))
    assume(len(position.edge) <= max_edge)
    return Scenario(position, layout)


@st.composite
def tiny_scenarios(draw: st.DrawFn, max_covered: int = 12) -> Scenario:
    """Scenarios with few covered cells, for literal enumeration of all covered cells."""
    scenario = draw(scenarios(boards(max_height=4, max_width=4)))
    assume(sum(1 for _ in scenario.position.covered_cells()) <= max_covered)
    return scenario


@st.composite
def inconsistent_positions(draw: st.DrawFn, max_edge: int = MAX_EDGE) -> Position:
    """A consistent position with one revealed number changed to another value.

    Not always inconsistent (another layout may fit the new number): callers check with
    the oracle and ``assume`` it.
    """
    scenario = draw(scenarios(max_edge=max_edge))
    position = scenario.position
    numbers = [
        c
        for c in position.revealed_cells()
        if any(position.is_covered(n) for n in position.board.neighbours(c))
    ]
    assume(numbers)
    cell = draw(st.sampled_from(numbers))
    old = position.number(cell)
    limit = len(position.board.neighbours(cell))
    new = draw(st.integers(0, limit).filter(lambda v: v != old))
    return position.with_cells({cell: number_byte(new)})


@dataclass(frozen=True)
class Step:
    """One position in a sequence, with the cells that changed since the previous one."""

    position: Position
    changed: frozenset[Cell]


@st.composite
def reveal_sequences(
    draw: st.DrawFn,
    board_strategy: st.SearchStrategy[Board] | None = None,
    max_edge: int = MAX_EDGE,
    max_steps: int = 6,
) -> tuple[Scenario, list[Step]]:
    """A starting scenario and a sequence of safe reveals, flags and unflags after it.

    The sequence stops early when a step would exceed ``max_edge`` edge cells.
    """
    start = draw(scenarios(board_strategy, max_edge=max_edge))
    board, layout = start.position.board, start.layout
    grid = bytearray(start.position.grid)
    steps: list[Step] = []
    for _ in range(draw(st.integers(1, max_steps))):
        covered = [c for c in board.cells() if grid[c] in (COVERED, FLAG)]
        safe = [c for c in covered if c not in layout]
        kind = draw(st.sampled_from(("reveal", "reveal", "reveal", "flag")))
        if kind == "reveal" and safe:
            cell = draw(st.sampled_from(safe))
            changed = reveal(board, layout, grid, [cell], cascade=draw(st.booleans()))
        elif covered:
            cell = draw(st.sampled_from(covered))
            grid[cell] = COVERED if grid[cell] == FLAG else FLAG
            changed = {cell}
        else:
            break
        position = Position(board, bytes(grid), len(layout))
        if len(position.edge) > max_edge:
            break
        steps.append(Step(position, frozenset(changed)))
    assume(steps)
    return start, steps
