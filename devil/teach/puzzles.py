"""Boards and puzzles of a chosen level: ``level_layout`` draws a no-guess board whose level
(``devil.teach.levels.grade``) is the one asked for; ``make_puzzle`` plays no-guess boards
until the easiest next step has that level."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from devil.analysis import Layout
from devil.board import Board, Cell
from devil.generate import no_guess_layout
from devil.position import Position
from devil.rules import Count, Rules
from devil.teach.levels import Deducer, grade, reveal_deduced

__all__ = ["LevelBoard", "Puzzle", "level_layout", "make_puzzle"]


@dataclass(frozen=True)
class LevelBoard:
    """A no-guess layout whose level (``grade``) is ``level``, from the first click ``first``."""

    layout: Layout
    first: Cell
    level: int
    tries: int

    def __repr__(self) -> str:  # the layout is a secret while a game runs
        return f"LevelBoard(<{len(self.layout)} mines>, level={self.level}, tries={self.tries})"


def level_layout(
    board: Board,
    mines: int,
    first: Cell,
    level: int,
    count: Count,
    rng: random.Random,
    max_tries: int = 50,
    deadline: float | None = None,
) -> LevelBoard | None:
    """Draw no-guess layouts (``devil.generate``) until one has exactly ``level``.

    Returns None when ``max_tries`` layouts did not give that level, or when
    ``time.monotonic()`` passes ``deadline``.
    """
    rules = Rules(count=count)
    for tries in range(1, max_tries + 1):
        if deadline is not None and time.monotonic() > deadline:
            return None
        drawn = no_guess_layout(board, mines, first, rules, rng, max_tries=20)
        if not drawn.guaranteed:
            continue
        result = grade(board, drawn.layout, first, count, max_level=level)
        if result.cleared and result.level == level:
            return LevelBoard(drawn.layout, first, level, tries)
    return None


@dataclass(frozen=True)
class Puzzle:
    """A mid-game position where the easiest next step has ``level``.

    ``position``: what the player sees, mines found so far flagged (they are deductions, so
    they are right). ``answers``: the cells the easiest step shows safe (other safe cells may
    exist). ``tries``: layouts drawn.
    """

    position: Position
    level: int
    answers: tuple[Cell, ...]
    tries: int

    @property
    def known_mines(self) -> frozenset[Cell]:
        return frozenset(c for c in range(self.position.board.size) if self.position.is_flagged(c))


def make_puzzle(
    board: Board,
    mines: int,
    level: int,
    count: Count,
    rng: random.Random,
    max_tries: int = 40,
    min_revealed: float = 0.15,
    deadline: float | None = None,
) -> Puzzle | None:
    """Play no-guess boards from their centre until a step of exactly ``level`` is the easiest
    one available (after at least ``min_revealed`` of the safe cells are open) and that step
    shows a safe cell. None when ``max_tries`` boards never got there (or ``time.monotonic()``
    passed ``deadline``)."""
    if level == 4 and count is not Count.COUNTED:
        raise ValueError("level 4 puzzles need the counted rule")
    first = board.cell(board.height // 2, board.width // 2)
    if not board.exists(first):
        first = next(board.cells())
    rules = Rules(count=count)
    for tries in range(1, max_tries + 1):
        if deadline is not None and time.monotonic() > deadline:
            return None
        drawn = no_guess_layout(board, mines, first, rules, rng, max_tries=20)
        found = _puzzle_in(board, drawn.layout, first, level, count, min_revealed)
        if found is not None:
            position, answers = found
            return Puzzle(position, level, answers, tries)
    return None


def _puzzle_in(
    board: Board, layout: Layout, first: Cell, level: int, count: Count, min_revealed: float
) -> tuple[Position, tuple[Cell, ...]] | None:
    counts = bytearray(board.size)
    for m in layout:
        for n in board.neighbours(m):
            counts[n] += 1
    deducer = Deducer(board, Position.covered(board).grid, len(layout), count)
    target = board.cell_count - len(layout)
    revealed = reveal_deduced(deducer, counts, [first])
    while revealed < target:
        step = deducer.next_step()
        if step is None:
            return None
        if step.level == level and step.safe and revealed >= min_revealed * target:
            return deducer.position(), step.safe
        batch = deducer.steps_at_level_one() if step.level == 1 else [step]
        for s in batch:
            deducer.known_mines.update(s.mines)
            deducer.touch(s.mines)
            revealed += reveal_deduced(deducer, counts, s.safe)
    return None
