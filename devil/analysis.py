"""What the solver answers about a position: verdicts per covered cell, witnesses, probabilities."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Generic, TypeVar

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
    """The verdict for every covered cell of one position under one count rule.

    Under a budget (``devil.budget``) the answer may be partial: ``verdicts`` then holds
    only the cells that were decided, ``undecided`` the covered cells left without a
    verdict when the budget ran out, and ``reason`` says why (None when complete).
    """

    verdicts: Mapping[Cell, Verdict]
    undecided: frozenset[Cell] = frozenset()
    reason: str | None = None

    @property
    def complete(self) -> bool:
        return not self.undecided

    def verdict(self, cell: Cell) -> Verdict:
        return self.verdicts[cell]

    def safe_cells(self) -> frozenset[Cell]:
        return frozenset(c for c, v in self.verdicts.items() if v is Verdict.SAFE)

    def mine_cells(self) -> frozenset[Cell]:
        return frozenset(c for c, v in self.verdicts.items() if v is Verdict.MINE)


P = TypeVar("P", bound=float | Fraction)
"""A probability: a float, or an exact fraction."""


class Probabilities(dict[Cell, P], Generic[P]):
    """Mine probability per covered cell: ``Probabilities[Fraction]`` exact (the solver's
    ``exact_probabilities``), ``Probabilities[float]`` the same rounded (``probabilities``).

    Partial under a budget like ``Classification``: cells in ``undecided`` have no entry,
    ``reason`` says why (None when complete)."""

    def __init__(
        self,
        values: Mapping[Cell, P],
        undecided: frozenset[Cell] = frozenset(),
        reason: str | None = None,
    ) -> None:
        super().__init__(values)
        self.undecided = undecided
        self.reason = reason

    def floats(self) -> Probabilities[float]:
        """The same probabilities as floats (same ``undecided`` and ``reason``)."""
        return Probabilities({c: float(p) for c, p in self.items()}, self.undecided, self.reason)
