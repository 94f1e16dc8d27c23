"""The two dials chosen per game: how mines are counted and how much mercy the devil shows."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Count(enum.Enum):
    """What constrains a layout besides the revealed numbers."""

    CLASSIC = "classic"
    """Only the numbers constrain; deep cells are always possible mines."""

    COUNTED = "counted"
    """The total number of mines is known too; deep cells can become provably safe or mines."""


class Mercy(enum.Enum):
    """What happens when the player clicks a cell that could be a mine."""

    STRICT = "strict"
    """Any click on a cell that could be a mine loses."""

    FAIR = "fair"
    """As strict while some covered cell is provably safe; when none is, a click on a cell
    that could be safe redraws the hidden layout among those where it is safe."""


@dataclass(frozen=True)
class Rules:
    count: Count = Count.CLASSIC
    mercy: Mercy = Mercy.STRICT

    def __str__(self) -> str:
        return f"{self.count.value}/{self.mercy.value}"
