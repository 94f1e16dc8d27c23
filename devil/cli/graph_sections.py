"""``devil-check``'s output on a graph board (``devil.graphs``): cells named by id.

The same parts as a grid board's output (``devil.cli.sections``), in the same order, with
the board picture replaced by one line per covered cell in the file's order (``ID S``,
``ID M``, ``ID ?``, ``ID -`` when ``--timeout`` left it undecided) and every cell in the
JSON named ``{"id": ...}`` instead of ``{"row": ..., "col": ...}``. ``GRAPH_SECTIONS``
replaces ``SECTIONS`` for a graph board.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from devil.analysis import Layout
from devil.board import Cell
from devil.cli.sections import (
    _CELL_TEXT,
    UNDECIDED,
    Report,
    Section,
    percent,
    section_input,
    section_summary,
)
from devil.graphs.fileformat import covered_in_order
from devil.graphs.layout import GraphLayout


def _layout(report: Report) -> GraphLayout:
    layout = report.position.board.graph
    assert layout is not None, "graph sections on a grid board"
    return layout


def _ids(report: Report, cells: Iterable[Cell]) -> list[str]:
    """The ids of ``cells`` in the file's order."""
    layout = _layout(report)
    return [layout.id(c) for c in sorted(cells, key=layout.index)]


def section_cells(report: Report) -> Section:
    layout = _layout(report)
    verdicts = report.classification.verdicts
    lines = []
    cells = []
    for cell in covered_in_order(report.position):
        cell_id = layout.id(cell)
        lines.append(f"{cell_id} {report.letter(cell)}")
        verdict = verdicts.get(cell)
        cells.append({"id": cell_id, "verdict": verdict.value if verdict else "undecided"})
    return Section(lines, {"cells": cells})


def section_graph_summary(report: Report) -> Section:
    """The summary line and fields as on a grid; ``size`` is the number of cells."""
    got = section_summary(report)
    fields = dict(got.fields)
    fields["size"] = [report.position.board.cell_count]
    return Section(got.lines, fields)


def section_probabilities(report: Report) -> Section:
    if report.probabilities is None:
        return Section()
    layout = _layout(report)
    probs = report.probabilities
    lines = ["mine probabilities (%):"]
    listed = []
    for cell in covered_in_order(report.position):
        p = probs.get(cell)
        lines.append(f"{layout.id(cell)} {UNDECIDED if p is None else f'{percent(p)}%'}")
        listed.append({"id": layout.id(cell), "probability": None if p is None else float(p)})
    return Section(lines, {"probabilities": listed})


def section_witness(report: Report) -> Section:
    if not report.witness_asked or report.cell is None:
        return Section()
    where = _layout(report).id(report.cell)
    if "witness_stopped" in report.extra or report.cell in report.undecided:
        return Section([f"witness: none found within --timeout for {where}"], {"witness": None})
    if report.witness is None:
        return Section(
            [f"witness: none, no consistent layout has a mine at {where}"], {"witness": None}
        )
    mined = _ids(report, report.witness)
    head = f"witness: a consistent layout with a mine at {where}, mines at:"
    return Section([head, " ".join(mined)], {"witness": mined})


def section_cell(report: Report) -> Section:
    if report.cell is None:
        return Section()
    cell_id = _layout(report).id(report.cell)
    if report.cell not in report.classification.verdicts:
        text = f"cell {cell_id}: undecided (too hard within --timeout)"
        return Section([text], {"cell": {"id": cell_id, "verdict": "undecided"}})
    verdict = report.verdict(report.cell)
    fields: dict[str, object] = {
        "id": cell_id,
        "verdict": verdict.value,
        "could_be_mine": verdict.could_be_mine,
    }
    return Section([f"cell {cell_id}: {_CELL_TEXT[verdict]}"], {"cell": fields})


def section_explain(report: Report) -> Section:
    """``--explain``: the proof for ``--cell``, cells named by label in the sentences and
    by id in the JSON (numbers used, known mines, the two layouts' mined cells)."""
    from devil.teach.proof import LEVEL_NAMES, Proof
    from devil.teach.wording import cell_list

    proof = report.extra.get("proof")
    if not isinstance(proof, Proof):
        return Section()
    level = f"level {proof.level} ({LEVEL_NAMES[proof.level]})" if proof.level else "no proof"
    lines = [f"proof: {proof.verdict.value}, {level}"]
    data: dict[str, object] = {"verdict": proof.verdict.value}
    if proof.layouts is None:
        names = cell_list(report.position, proof.numbers) or "none"
        lines.append(f"numbers used: {names}" + (" and the mine total" if proof.counted else ""))
        data["numbers"] = _ids(report, proof.numbers)
        if proof.known:
            data["known"] = _ids(report, proof.known)
    lines.extend(f"  {step}" for step in proof.steps)
    if proof.layouts is not None:
        layouts = [_ids(report, _mined(report, layout)) for layout in proof.layouts]
        data["layouts"] = layouts
        for title, mined in zip(("with a mine", "without a mine"), layouts, strict=True):
            lines.append(f"layout {title}, mines at: {' '.join(mined) or 'none'}")
    data["level"] = proof.level
    data["steps"] = list(proof.steps)
    return Section(lines, {"proof": data})


def _mined(report: Report, layout: Layout) -> list[Cell]:
    covered = set(report.position.covered_cells())
    return [c for c in layout if c in covered]


def section_undecided(report: Report) -> Section:
    undecided = _ids(report, report.undecided)
    if not undecided:
        return Section()
    timeout = report.extra.get("timeout")
    reason = (
        f"too hard within --timeout {timeout:g} s" if isinstance(timeout, float) else "too hard"
    )
    lines = [f"undecided: {len(undecided)} cells ({reason}): {' '.join(undecided)}"]
    return Section(lines, {"undecided": [{"id": i} for i in undecided], "stopped": reason})


GRAPH_SECTIONS: list[Callable[[Report], Section]] = [
    section_cells,
    section_graph_summary,
    section_input,
    section_probabilities,
    section_witness,
    section_cell,
    section_explain,
    section_undecided,
]
"""The output on a graph board, in the grid's order (``devil.cli.sections.SECTIONS``)."""
