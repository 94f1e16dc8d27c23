"""What the solver answers about a position: verdicts per covered cell, witnesses, probabilities."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from devil.board import Cell


class Verdict(enum.Enum):
    """What every consistent layout says about one covered cell."""

    SAFE = "safe"
    """No consistent layout has a mine here."""

    MINE = "mine"
    """Every consistent layout has a mine here."""

    EITHER = "either"
    """Some consistent layouts have a mine here and some do not."""

    @property
    def could_be_mine(self) -> bool:
        return self is not Verdict.SAFE

    @property
    def could_be_safe(self) -> bool:
        return self is not Verdict.MINE

    @property
    def letter(self) -> str:
        """``S``, ``M`` or ``?`` as in ``devil-check`` output and the truth files."""
        return {"safe": "S", "mine": "M", "either": "?"}[self.value]


Layout = frozenset[Cell]
"""A mine layout: the set of covered cells holding a mine."""


@dataclass(frozen=True)
class Classification:
    """The verdict for every covered cell of one position under one count rule."""

    verdicts: Mapping[Cell, Verdict]

    def verdict(self, cell: Cell) -> Verdict:
        return self.verdicts[cell]

    def safe_cells(self) -> frozenset[Cell]:
        return frozenset(c for c, v in self.verdicts.items() if v is Verdict.SAFE)

    def mine_cells(self) -> frozenset[Cell]:
        return frozenset(c for c, v in self.verdicts.items() if v is Verdict.MINE)
