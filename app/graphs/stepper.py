"""Step-by-step deduction on the graph analysis board: which step is shown and how the board
marks it (as the grid board's stepper, ``app.teach.analysis``, with cells named by label).

Step ``k`` (1-based) shows the k-th deduction of ``devil.teach.levels.deduction_steps``: its
numbers, the mines it uses, the cells it finds; what earlier steps found is drawn as known.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from devil.board import Cell
from devil.teach.levels import Step


@dataclass(frozen=True)
class StepView:
    """What the page shows of step ``step`` of ``total`` (0: none chosen)."""

    step: int
    total: int
    current: Step | None = None
    marks: dict[Cell, str] = field(default_factory=dict)
    """CSS classes for ``app.graphs.drawing.board_svg``: the step's and the earlier ones'."""

    @property
    def pages(self) -> list[tuple[str, int | None]]:
        """The navigation: (key, the step it shows, None when it goes nowhere)."""

        def go(to: int) -> int | None:
            return to if 1 <= to <= self.total and to != self.step else None

        return [
            ("first", go(1)),
            ("back", go(self.step - 1) if self.step > 1 else None),
            ("forward", go(self.step + 1)),
            ("last", go(self.total)),
        ]


def step_view(steps: tuple[Step, ...], step: int) -> StepView:
    """The page's view of ``steps`` at ``step`` (clamped to the steps there are)."""
    step = max(0, min(step, len(steps)))
    if step == 0:
        return StepView(0, len(steps))
    marks: dict[Cell, str] = {}
    for earlier in steps[: step - 1]:
        marks.update((c, "known-safe") for c in earlier.safe)
        marks.update((c, "known-mine") for c in earlier.mines)
    current = steps[step - 1]
    for cells, mark in (
        (current.numbers, "hl-number"),
        (current.known, "hl-known"),
        (current.safe, "hl-new-safe"),
        (current.mines, "hl-new-mine"),
    ):
        marks.update((c, mark) for c in cells)
    return StepView(step, len(steps), current, marks)
