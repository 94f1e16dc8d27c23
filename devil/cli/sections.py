"""``devil-check``'s output: the :class:`Report` (the question and the solver's answers) and
one small function per part of the output (``SECTIONS``), each returning a :class:`Section`
with its text lines and its JSON fields; ``render_text`` and ``render_json`` put them
together."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from devil.analysis import Classification, Layout, Verdict
from devil.board import Cell, Topology
from devil.formats import FormatReport
from devil.position import Position
from devil.rules import Count

UNDECIDED = "-"
"""How the board draws a cell the time limit left undecided."""


@dataclass(frozen=True)
class Report:
    """Everything the output sections show: the question and the solver's answers."""

    position: Position
    count: Count
    detection: FormatReport
    classification: Classification
    cell: Cell | None = None
    witness_asked: bool = False
    witness: Layout | None = None
    probabilities: Mapping[Cell, float] | None = None
    notes: tuple[str, ...] = ()
    """Notes about the input (``reading_notes``): stderr in text mode, ``notes`` in JSON."""
    extra: dict[str, object] = field(default_factory=dict)
    """Room for later sections' data without changing this class."""

    @property
    def input_format(self) -> str:
        return self.detection.format

    def verdict(self, cell: Cell) -> Verdict:
        return self.classification.verdict(cell)

    def letter(self, cell: Cell) -> str:
        """``S``, ``M``, ``?``, or ``-`` for a cell the time limit left undecided."""
        got = self.classification.verdicts.get(cell)
        return UNDECIDED if got is None else got.letter

    @property
    def probabilities_reason(self) -> str | None:
        return getattr(self.probabilities, "reason", None)

    @property
    def undecided(self) -> frozenset[Cell]:
        """Covered cells without an answer when ``--timeout`` ran out (empty otherwise)."""
        out = set(self.classification.undecided)
        if self.probabilities is not None:
            out.update(c for c in self.position.covered_cells() if c not in self.probabilities)
        return frozenset(out)

    def where(self, cell: Cell) -> str:
        if self.position.board.graph is not None:
            return self.position.board.graph.id(cell)
        row, col = self.position.board.coord(cell)
        return f"{row},{col}"


# -- output sections ------------------------------------------------------------------------


@dataclass(frozen=True)
class Section:
    """One part of the output: its text lines and its JSON fields (either may be empty)."""

    lines: list[str] = field(default_factory=list)
    fields: dict[str, object] = field(default_factory=dict)


def _picture(position: Position, covered: Callable[[Cell], str]) -> list[str]:
    """The board as rows: numbers and holes as is, covered cells drawn by ``covered``."""
    width = position.board.width
    rows = []
    for r in range(position.board.height):
        row = []
        for cell in range(r * width, (r + 1) * width):
            row.append(covered(cell) if position.is_covered(cell) else chr(position.grid[cell]))
        rows.append("".join(row))
    return rows


def shown_rows(position: Position, rows: list[str]) -> list[str]:
    """Rows as the text output prints them: a hex board as it looks, its cells one space apart
    and its odd rows half a cell (one column) to the right; other boards as they are. JSON
    keeps the plain rows (one character a cell)."""
    if position.board.topology is not Topology.HEX:
        return rows
    return [(" " if r % 2 else "") + " ".join(row) for r, row in enumerate(rows)]


def board_rows(report: Report) -> list[str]:
    """The board with every covered cell replaced by ``S``, ``M`` or ``?``."""
    return _picture(report.position, report.letter)


def section_board(report: Report) -> Section:
    rows = board_rows(report)
    verdicts = report.classification.verdicts
    cells = [
        {"row": r, "col": c, "verdict": v.value if (v := verdicts.get(cell)) else "undecided"}
        for cell in report.position.covered_cells()
        for r, c in [report.position.board.coord(cell)]
    ]
    return Section(shown_rows(report.position, rows), {"board": rows, "cells": cells})


def _rule_text(report: Report) -> str:
    if report.count is Count.COUNTED:
        mines = report.position.mines
        return f"counted rule, {mines} {'mine' if mines == 1 else 'mines'}"
    return "classic rule"


def section_summary(report: Report) -> Section:
    verdicts = [report.classification.verdicts.get(c) for c in report.position.covered_cells()]
    safe = sum(v is Verdict.SAFE for v in verdicts)
    mine = sum(v is Verdict.MINE for v in verdicts)
    either = sum(v is Verdict.EITHER for v in verdicts)
    line = (
        f"{len(verdicts)} covered: {safe} safe, {mine} mine, {either} either ({_rule_text(report)})"
    )
    board = report.position.board
    summary = {"covered": len(verdicts), "safe": safe, "mine": mine, "either": either}
    undecided = sum(v is None for v in verdicts)
    if undecided:  # --timeout ran out
        line = line.replace(" (", f", {undecided} undecided (", 1)
        summary["undecided"] = undecided
    return Section(
        [line],
        {
            "summary": summary,
            "rule": report.count.value,
            "mines": report.position.mines,
            "topology": board.topology.value,
            "size": [board.height, board.width],
            "input_format": report.input_format,
        },
    )


def percent(p: float) -> int:
    """``p`` as a whole percentage that is 0 only when ``p`` is 0 and 100 only when it is 1."""
    if p <= 0:
        return 0
    if p >= 1:
        return 100
    return min(99, max(1, round(p * 100)))


def section_probabilities(report: Report) -> Section:
    if report.probabilities is None:
        return Section()
    probs = report.probabilities
    position = report.position
    width = position.board.width
    lines = ["mine probabilities (%):"]
    for r in range(position.board.height):
        cells = []
        for cell in range(r * width, (r + 1) * width):
            if position.is_covered(cell):
                p = probs.get(cell)
                cells.append(f"{UNDECIDED:>4}" if p is None else f"{percent(p):>3}%")
            else:
                cells.append(f"{chr(position.grid[cell]):>4}")
        shift = "  " if position.board.topology is Topology.HEX and r % 2 else ""
        lines.append(shift + " ".join(cells))
    listed = [
        {"row": r, "col": c, "probability": None if (p := probs.get(cell)) is None else float(p)}
        for cell in position.covered_cells()
        for r, c in [position.board.coord(cell)]
    ]
    return Section(lines, {"probabilities": listed})


def witness_rows(position: Position, layout: Layout) -> list[str]:
    """A layout drawn on the board: ``*`` a mine, ``.`` a covered cell without one."""
    return _picture(position, lambda cell: "*" if cell in layout else ".")


def section_witness(report: Report) -> Section:
    if not report.witness_asked or report.cell is None:
        return Section()
    where = report.where(report.cell)
    if "witness_stopped" in report.extra or report.cell in report.undecided:
        return Section([f"witness: none found within --timeout for {where}"], {"witness": None})
    if report.witness is None:
        return Section(
            [f"witness: none, no consistent layout has a mine at {where}"], {"witness": None}
        )
    rows = witness_rows(report.position, report.witness)
    head = f"witness: a consistent layout with a mine at {where} ('*' mine, '.' no mine):"
    return Section([head, *shown_rows(report.position, rows)], {"witness": rows})


_CELL_TEXT = {
    Verdict.SAFE: "safe (no consistent layout has a mine there)",
    Verdict.MINE: "is a mine (every consistent layout has a mine there)",
    Verdict.EITHER: "could be a mine (some consistent layouts have a mine there, some do not)",
}


def section_cell(report: Report) -> Section:
    if report.cell is None:
        return Section()
    row, col = report.position.board.coord(report.cell)
    if report.cell not in report.classification.verdicts:
        text = f"cell {row},{col}: undecided (too hard within --timeout)"
        return Section([text], {"cell": {"row": row, "col": col, "verdict": "undecided"}})
    verdict = report.verdict(report.cell)
    fields: dict[str, object] = {
        "row": row,
        "col": col,
        "verdict": verdict.value,
        "could_be_mine": verdict.could_be_mine,
    }
    return Section([f"cell {row},{col}: {_CELL_TEXT[verdict]}"], {"cell": fields})


def section_explain(report: Report) -> Section:
    """``--explain``: the proof (``devil.teach.proof``) for ``--cell``."""
    from devil.teach.proof import LEVEL_NAMES, Proof
    from devil.teach.wording import cell_list, layout_rows

    proof = report.extra.get("proof")
    if not isinstance(proof, Proof):
        return Section()
    data = proof.to_json(report.position)
    level = f"level {proof.level} ({LEVEL_NAMES[proof.level]})" if proof.level else "no proof"
    lines = [f"proof: {proof.verdict.value}, {level}"]
    if proof.layouts is None:
        names = cell_list(report.position, proof.numbers) or "none"
        lines.append(f"numbers used: {names}" + (" and the mine total" if proof.counted else ""))
    lines.extend(f"  {step}" for step in proof.steps)
    if proof.layouts is not None:
        for title, layout in zip(("with a mine", "without a mine"), proof.layouts, strict=True):
            lines.append(f"layout {title} ('*' mine, '.' no mine):")
            lines.extend(shown_rows(report.position, layout_rows(report.position, layout)))
    return Section(lines, {"proof": data})


def section_undecided(report: Report) -> Section:
    """``--timeout``: the cells left undecided, and why (nothing when all were decided)."""
    undecided = sorted(report.undecided)
    if not undecided:
        return Section()
    coords = [report.position.board.coord(c) for c in undecided]
    timeout = report.extra.get("timeout")
    reason = (
        f"too hard within --timeout {timeout:g} s" if isinstance(timeout, float) else "too hard"
    )
    listed = " ".join(f"{r},{c}" for r, c in coords)
    lines = [f"undecided: {len(coords)} cells ({reason}): {listed}"]
    return Section(
        lines, {"undecided": [{"row": r, "col": c} for r, c in coords], "stopped": reason}
    )


def section_input(report: Report) -> Section:
    """How the input was read (JSON only: text mode prints the notes on stderr)."""
    return Section([], {"detection": report.detection.to_json(), "notes": list(report.notes)})


SECTIONS: list[Callable[[Report], Section]] = [
    section_board,
    section_summary,
    section_input,
    section_probabilities,
    section_witness,
    section_cell,
    section_explain,
    section_undecided,
]
"""The output, in order. Text prints each section's lines; JSON merges their fields."""


def render_text(report: Report, sections: list[Callable[[Report], Section]] = SECTIONS) -> str:
    lines = (line for section in sections for line in section(report).lines)
    return "\n".join(lines) + "\n"


def render_json(report: Report, sections: list[Callable[[Report], Section]] = SECTIONS) -> str:
    out: dict[str, object] = {}
    for section in sections:
        out.update(section(report).fields)
    return json.dumps(out) + "\n"
