"""The analysis board's model: verdicts, probabilities, the selected cell's proof, the
deduction stepper, drawing, and the links of the page."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from flask import url_for

from app.teach.facts import ids, level_text, verdict_mark
from app.teach.grid import ARow, grid_rows, layout_grid
from app.teach.query import analyse_url, position_param
from devil import solver
from devil.analysis import Verdict
from devil.board import Cell
from devil.budget import Budget, BudgetExceeded, metering
from devil.errors import InconsistentPosition
from devil.position import COVERED, FLAG, HOLE, ZERO, Position
from devil.rules import Count
from devil.teach.levels import Step, deduction_steps
from devil.teach.proof import Proof, prove

MAX_STEPS = 500
"""The deduction stepper stops after this many steps."""


DEFAULT_POSITION = (
    "11001.11./.1001111./11000012./0000001../01110012./12.10002./1.210002./11211002./"
    "001.1001.;mines=10"
)


@dataclass(frozen=True)
class Analysis:
    """Everything ``analyse.html`` shows."""

    position: Position
    line: str
    count: str
    rows: tuple[ARow, ...]
    board_classes: str
    summary: dict[str, int]
    error: str | None = None
    stopped: tuple[str, ...] = ()
    """What the engine budget cut short (cells left undecided and why); empty: nothing."""
    selected: str | None = None
    selected_chance: str = ""
    """The selected cell's mine probability (``"33%"``): a tap shows it, not only a hover."""
    heat: bool = False
    """Whether any covered cell has a probability, so the heat-map toggle has colours to show."""
    proof: Proof | None = None
    proof_steps: tuple[str, ...] = ()
    proof_level: str = ""
    layouts: tuple[tuple[ARow, ...], tuple[ARow, ...]] | None = None
    steps_total: int = 0
    step: int = 0
    step_view: Step | None = None
    step_text: tuple[str, ...] = ()
    step_rule: str = ""
    level: int = 0
    draw: bool = False
    highlight: dict[str, list[str]] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)

    @property
    def highlight_json(self) -> str:
        return json.dumps(self.highlight, sort_keys=True)

    @property
    def param(self) -> tuple[str, str]:
        """The position as the URL carries it: ``("p", line)`` or ``("z", compressed)``."""
        return position_param(self.line)


_CYCLE = {COVERED: ZERO, FLAG: ZERO, ZERO + 8: HOLE, HOLE: COVERED}


def cycled(position: Position, cell: Cell) -> Position:
    """Drawing: covered -> 0 -> 1 ... 8 -> hole -> covered."""
    byte = position.grid[cell]
    nxt = _CYCLE.get(byte, byte + 1)
    rows = position.with_cells({cell: nxt}).rows()
    return Position.from_rows(rows, position.board.topology, position.mines)


ANALYSE_SECONDS = 2.0
"""The engine budget of one analysis page (verdicts, probabilities, steps and the proof
share it); what it leaves undecided is named on the page."""


@dataclass(frozen=True)
class Facts:
    """The engine's answers for one analysis page, computed within one budget (plain values:
    they may come back from an engine child). ``undecided``: covered cells the budget left
    without a verdict; ``stopped``: what the budget cut short, in words (empty: nothing)."""

    verdicts: dict[Cell, Verdict]
    probs: dict[Cell, float]
    count: Count
    error: str | None = None
    undecided: frozenset[Cell] = frozenset()
    steps: tuple[Step, ...] = ()
    proof: Proof | None = None
    stopped: tuple[str, ...] = ()


def analysis_facts(
    position: Position,
    count: Count,
    selected: Cell | None,
    draw: bool,
    seconds: float = ANALYSE_SECONDS,
) -> Facts:
    """Verdicts, probabilities, the deduction steps and the selected cell's proof, all within
    ``seconds`` of engine work (``devil.budget``): never a wrong verdict, possibly fewer."""
    meter = Budget(seconds=seconds).start()

    def left() -> Budget:
        return Budget(seconds=max(meter.remaining() or 0.0, 0.001))

    error = None
    stopped: list[str] = []
    verdicts: dict[Cell, Verdict] = {}
    probs: dict[Cell, float] = {}
    undecided: frozenset[Cell] = frozenset()
    if count is Count.COUNTED and position.mines is None:
        error = "The counted rule needs the total number of mines: set it below."
        count = Count.CLASSIC
    try:
        classification = solver.classify(position, count, budget=left())
        verdicts = dict(classification.verdicts)
        undecided = classification.undecided
        if classification.reason:
            stopped.append(f"verdicts of {len(undecided)} cells: {classification.reason}")
        if not meter.exceeded:
            probabilities = solver.probabilities(position, count, budget=left())
            probs = dict(probabilities)
            if probabilities.reason:
                stopped.append(f"probabilities: {probabilities.reason}")
        else:
            stopped.append("probabilities: not computed (no time left)")
    except InconsistentPosition as exc:
        error = "No layout of mines fits this position: " + str(exc) + "."
    steps: list[Step] = []
    if error is None and not draw:
        if meter.exceeded:
            stopped.append("deduction steps: not computed (no time left)")
        else:
            try:
                with metering(left().start()) as step_meter:
                    assert step_meter is not None
                    for found in deduction_steps(position, count, limit=MAX_STEPS):
                        steps.append(found)
                        step_meter.check()  # cheap steps charge nothing: check the clock
            except BudgetExceeded as exc:
                stopped.append(f"deduction steps after step {len(steps)}: {exc}")
    proof = None
    if error is None and selected is not None and position.is_covered(selected) and not draw:
        if selected in undecided:
            stopped.append(f"no proof for {position.where(selected)}: its verdict is undecided")
        elif meter.exceeded:
            stopped.append(f"no proof for {position.where(selected)}: no time left")
        else:
            try:
                with metering(left().start()):
                    proof = prove(position, selected, count)
            except BudgetExceeded as exc:
                stopped.append(f"proof for {position.where(selected)}: {exc}")
    return Facts(verdicts, probs, count, error, undecided, tuple(steps), proof, tuple(stopped))


def analysis_of(
    position: Position,
    count: Count,
    selected: Cell | None,
    step: int,
    draw: bool,
    facts: Facts | None = None,
) -> Analysis:
    """The page's model from the engine's ``facts`` (computed here, inline, when None)."""
    if facts is None:
        facts = analysis_facts(position, count, selected, draw)
    board = position.board
    line = position.line
    error = facts.error
    count = facts.count
    verdicts: Mapping[Cell, Verdict] = facts.verdicts
    probs: Mapping[Cell, float] = facts.probs
    summary = {
        "covered": sum(1 for _ in position.covered_cells()),
        "safe": sum(1 for v in verdicts.values() if v is Verdict.SAFE),
        "mine": sum(1 for v in verdicts.values() if v is Verdict.MINE),
        "either": sum(1 for v in verdicts.values() if v is Verdict.EITHER),
        "undecided": len(facts.undecided),
    }
    steps = facts.steps
    step = max(0, min(step, len(steps)))
    known_mines: set[Cell] = set()
    known_safe: set[Cell] = set()
    for s in steps[: max(0, step - 1)]:
        known_mines.update(s.mines)
        known_safe.update(s.safe)
    current = steps[step - 1] if step else None
    highlight: dict[str, list[str]] = {}
    proof = facts.proof
    layouts = None
    if proof is not None and selected is not None:
        if proof.layouts is not None:
            with_mine, without = proof.layouts
            layouts = (
                layout_grid(position, with_mine, "l0-"),
                layout_grid(position, without, "l1-"),
            )
        highlight["hl-number"] = ids(board, proof.numbers, "a-")
        highlight["hl-target"] = ids(board, [selected], "a-")
        highlight[verdict_mark(proof.verdict)] = ids(board, [selected], "a-")
    if current is not None:
        highlight["hl-number"] = ids(board, current.numbers, "a-")
        highlight["hl-known"] = ids(board, current.known, "a-")
        highlight["hl-new-safe"] = ids(board, current.safe, "a-")
        highlight["hl-new-mine"] = ids(board, current.mines, "a-")

    def classes_of(cell: Cell) -> str:
        out = []
        v = verdicts.get(cell)
        if v is not None and not draw:
            out.append(f"v-{v.value}")
        elif cell in facts.undecided and not draw:
            out.append("v-undecided")
        if cell in known_mines:
            out.append("known-mine")
        if cell in known_safe:
            out.append("known-safe")
        if cell == selected:
            out.append("selected")
        p = probs.get(cell)
        if p is not None and not draw and position.is_covered(cell):
            out.append(f"heat-{heat_bucket(p)}")
        return " ".join(out)

    def action_of(cell: Cell) -> str | None:
        """Cells are buttons of one GET form (``p`` and the rest ride in hidden fields), so a
        100x100 board does not repeat its ``p`` in 10,000 links."""
        if draw:
            return "toggle"
        return "cell" if position.is_covered(cell) else None

    def tip_of(cell: Cell) -> str:
        p = probs.get(cell)
        v = verdicts.get(cell)
        if p is None or v is None or draw:
            return ""
        return f"{v.value}, mine probability {_percent(p)}"

    rows, board_classes = grid_rows(position, classes_of, lambda c: None, tip_of, "a-", action_of)
    where: dict[str, Any] = dict([position_param(line)])
    links = {
        "share": analyse_url(line, count),
        "text": url_for("teach.export_text", count=count.value, **where),
        "svg": url_for("teach.export_svg", count=count.value, **where),
        "png": url_for("ledger.export_png", count=count.value, **where),
        "draw": analyse_url(line, count, draw=1),
        "done": analyse_url(line, count),
        "first": analyse_url(line, count, step=1) if steps else "",
        "back": analyse_url(line, count, step=step - 1) if step > 1 else "",
        "clear": analyse_url(line, count) if step else "",
        "forward": analyse_url(line, count, step=step + 1) if step < len(steps) else "",
        "last": analyse_url(line, count, step=len(steps)) if steps else "",
    }
    sel = None if selected is None else position.where(selected)
    return Analysis(
        position=position,
        line=line,
        count=count.value,
        rows=rows,
        board_classes=board_classes,
        summary=summary,
        error=error,
        stopped=facts.stopped,
        selected=sel,
        selected_chance=""
        if selected is None or selected not in probs
        else _percent(probs[selected]),
        heat=bool(probs) and not draw,
        proof=proof,
        proof_steps=proof.steps if proof else (),
        proof_level=level_text(proof.level) if proof else "",
        layouts=layouts,
        steps_total=len(steps),
        step=step,
        step_view=current,
        step_text=current.text if current else (),
        step_rule=current.technique_name if current else "",
        level=max((s.level for s in steps), default=0),
        draw=draw,
        highlight=highlight,
        links=links,
    )


HEAT_BUCKETS = 10
"""The heat map's colours: a cell with mine probability p gets ``heat-<round(10 p)>``."""


def heat_bucket(p: float) -> int:
    """0 only for a certainly safe cell and 10 only for a certain mine (a 3% cell is 1, not 0)."""
    bucket = round(p * HEAT_BUCKETS)
    if p > 0:
        bucket = max(bucket, 1)
    if p < 1:
        bucket = min(bucket, HEAT_BUCKETS - 1)
    return bucket


def _percent(p: float) -> str:
    if 0 < p < 0.01:
        return "<1%"
    if 0.99 < p < 1:
        return ">99%"
    return f"{round(p * 100)}%"


@dataclass(frozen=True)
class PasteForm:
    """The paste form as the player left it, and what was wrong with it (empty: nothing)."""

    text: str = ""
    topology: str = ""
    mines: str = ""
    error: str = ""
    fmt: str = ""
    """The format chosen in the form (empty: detect)."""
    note: str = ""
    """How the last pasted text was read, when that is worth saying (``FormatReport.note``)."""
