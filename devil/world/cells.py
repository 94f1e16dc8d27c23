"""World cells: ``(x, y)`` pairs, y growing downward, bounded by ``MAX_COORD`` each way."""

from __future__ import annotations

from typing import TypeAlias

XY: TypeAlias = tuple[int, int]
"""A world cell ``(x, y)``."""

MAX_COORD = 2**62
"""Largest ``|x|`` or ``|y|`` of a cell; anything beyond does not exist."""

_STEPS: tuple[XY, ...] = (
    (-1, -1), (0, -1), (1, -1),
    (-1, 0), (1, 0),
    (-1, 1), (0, 1), (1, 1),
)  # fmt: skip


class OutOfWorld(ValueError):
    """A cell beyond ``MAX_COORD``; ``x`` and ``y`` are the coordinates given."""

    def __init__(self, x: int, y: int):
        bad = "x" if abs(x) > MAX_COORD else "y"
        value = x if bad == "x" else y
        super().__init__(
            f"cell ({x}, {y}) is outside the world: |{bad}| = {abs(value)} exceeds 2**62"
        )
        self.x = x
        self.y = y


def inside(x: int, y: int) -> bool:
    return -MAX_COORD <= x <= MAX_COORD and -MAX_COORD <= y <= MAX_COORD


def check(x: int, y: int) -> None:
    """Raise ``OutOfWorld`` unless ``(x, y)`` is a cell of the world."""
    if not inside(x, y):
        raise OutOfWorld(x, y)


def neighbours(x: int, y: int) -> list[XY]:
    """The up to 8 cells touching ``(x, y)`` that exist (fewer on the world's edge)."""
    if -MAX_COORD < x < MAX_COORD and -MAX_COORD < y < MAX_COORD:
        return [
            (x - 1, y - 1), (x, y - 1), (x + 1, y - 1),
            (x - 1, y), (x + 1, y),
            (x - 1, y + 1), (x, y + 1), (x + 1, y + 1),
        ]  # fmt: skip
    return [(x + dx, y + dy) for dx, dy in _STEPS if inside(x + dx, y + dy)]
