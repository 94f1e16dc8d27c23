"""Positions on any board drawn at random: a blank board or one part-way through a game.

``midgame`` places ``mines`` uniformly (never at the first click or its neighbours),
then opens cells as a player who only clicks safe cells would (zero cascades included)
until about ``fraction`` of the safe cells are open. Used by ``devil-graph`` and the
benchmark; deterministic for a seed.
"""

from __future__ import annotations

import random
from collections import deque

from devil.board import Board, Cell
from devil.errors import do_not_fit
from devil.position import COVERED, Position, number_byte


def blank(board: Board, mines: int | None = None) -> Position:
    return Position.covered(board, mines)


def layout(board: Board, mines: int, rng: random.Random, first: Cell) -> frozenset[Cell]:
    """``mines`` mined cells drawn uniformly, none in ``first``'s neighbourhood (when the
    board leaves room)."""
    cells = list(board.cells())
    keep = board.neighbourhood(first)
    allowed = [c for c in cells if c not in keep]
    if len(allowed) < mines:
        allowed = [c for c in cells if c != first]
    if len(allowed) < mines:
        cells_said = "1 cell" if len(cells) == 1 else f"{len(cells)} cells"
        raise ValueError(f"{do_not_fit(mines)} on a board of {cells_said}")
    return frozenset(rng.sample(allowed, mines))


def midgame(board: Board, mines: int, seed: int = 0, fraction: float = 0.4) -> Position:
    """A position part-way through a game (see the module doc)."""
    rng = random.Random(seed)
    cells = list(board.cells())
    first = rng.choice(cells)
    mined = layout(board, mines, rng, first)
    grid = bytearray(Position.covered(board, mines).grid)
    counts = {c: sum(1 for n in board.neighbours(c) if n in mined) for c in cells}
    safe = [c for c in cells if c not in mined]
    goal = int(fraction * len(safe))
    opened = 0

    def open_from(start: Cell) -> int:
        got = 0
        queue = deque([start])
        while queue:
            cell = queue.popleft()
            if grid[cell] != COVERED:
                continue
            grid[cell] = number_byte(counts[cell])
            got += 1
            if counts[cell] == 0:
                queue.extend(n for n in board.neighbours(cell) if grid[n] == COVERED)
        return got

    opened += open_from(first)
    rng.shuffle(safe)
    for cell in safe:
        if opened >= goal:
            break
        opened += open_from(cell)
    return Position(board, bytes(grid), mines)
