"""The engine's answers for a graph analysis page, within one budget (plain values: they may
come back from a heavy-work child)."""

from __future__ import annotations

from dataclasses import dataclass

from devil import solver
from devil.analysis import Verdict
from devil.board import Cell
from devil.budget import Budget, BudgetExceeded, metering
from devil.errors import InconsistentPosition
from devil.position import Position
from devil.rules import Count
from devil.teach.levels import Step, deduction_steps

MAX_STEPS = 500
"""The deduction stepper stops after this many steps (as the grid analysis board's)."""

GRAPH_SECONDS = 2.0
"""Engine time of one page: verdicts, probabilities and the selected cell's proof share it."""


@dataclass(frozen=True)
class GraphFacts:
    verdicts: dict[Cell, Verdict]
    probs: dict[Cell, float]
    count: Count
    error: str | None = None
    proof_steps: tuple[str, ...] = ()
    proof_level: int = 0
    proof_numbers: tuple[Cell, ...] = ()
    stopped: tuple[str, ...] = ()
    steps: tuple[Step, ...] = ()
    """The deductions, easiest first (``devil.teach.levels.deduction_steps``)."""


def graph_facts(
    position: Position,
    count: Count,
    selected: Cell | None,
    seconds: float = GRAPH_SECONDS,
    with_steps: bool = False,
) -> GraphFacts:
    """Verdicts, probabilities, the selected cell's proof and (``with_steps``) the deduction
    steps, all within ``seconds``: never a wrong verdict, possibly fewer (what was cut short
    is named in ``stopped``)."""
    meter = Budget(seconds=seconds).start()

    def left() -> Budget:
        return Budget(seconds=max(meter.remaining() or 0.0, 0.001))

    stopped: list[str] = []
    if count is Count.COUNTED and position.mines is None:
        return GraphFacts({}, {}, Count.CLASSIC, "The counted rule needs the board's mines total.")
    verdicts: dict[Cell, Verdict] = {}
    probs: dict[Cell, float] = {}
    try:
        classification = solver.classify(position, count, budget=left())
        verdicts = dict(classification.verdicts)
        if classification.reason:
            stopped.append(f"verdicts: {classification.reason}")
        if not meter.exceeded:
            probabilities = solver.probabilities(position, count, budget=left())
            probs = {c: float(p) for c, p in probabilities.items()}
            if probabilities.reason:
                stopped.append(f"probabilities: {probabilities.reason}")
    except InconsistentPosition as exc:  # the verdicts stand when only the probabilities
        # failed (the classic rule's density of a total above the cells), as on the grid board
        what = "No probabilities" if verdicts else "No layout of mines fits this board"
        return GraphFacts(verdicts, {}, count, f"{what}: {exc}.")
    steps: tuple[str, ...] = ()
    level = 0
    numbers: tuple[Cell, ...] = ()
    if selected is not None and selected in verdicts and not meter.exceeded:
        from devil.teach.proof import prove

        try:
            with metering(left().start()):
                proof = prove(position, selected, count)
            steps, level, numbers = tuple(proof.steps), proof.level, tuple(proof.numbers)
        except BudgetExceeded:
            stopped.append("the proof: too long for the time allowed")
    deductions = _steps(position, count, left(), stopped) if with_steps else ()
    return GraphFacts(
        verdicts, probs, count, None, steps, level, numbers, tuple(stopped), deductions
    )


def _steps(
    position: Position, count: Count, budget: Budget, stopped: list[str]
) -> tuple[Step, ...]:
    """Every deduction step in turn until the budget runs out (then the ones found)."""
    found: list[Step] = []
    try:
        with metering(budget.start()) as meter:
            assert meter is not None
            for step in deduction_steps(position, count, limit=MAX_STEPS):
                found.append(step)
                meter.check()  # cheap steps charge nothing: check the clock
    except BudgetExceeded as exc:
        stopped.append(f"deduction steps after step {len(found)}: {exc}")
    return tuple(found)
