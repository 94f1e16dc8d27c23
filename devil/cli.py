"""``devil-check``: classify every covered cell of a position read from a file or stdin.

The flags, the output and the exit codes are a contract scripts rely on (see
``docs/devil-check.md``): extend them, never rename them.

How it works, as a pipeline of small steps:

1. ``build_parser`` / ``_parse_args``: the command line (argparse errors exit 2).
2. ``_load``: the text (a file or ``-`` for stdin), read by ``devil.formats.read_position``.
3. ``analyse``: the solver's answers, gathered into a :class:`Report`.
4. ``SECTIONS``: one small function per part of the output. Each returns a :class:`Section`
   holding its text lines and its JSON fields; ``render_text`` / ``render_json`` put them
   together. To add a part of the output (``--explain``, say): add the flag in
   ``build_parser``, compute what it needs in ``analyse`` (a new ``Report`` field), and append a
   ``section_...`` function to ``SECTIONS``.

Exit codes: 0 success (with ``--cell``: the cell is safe), 1 the ``--cell`` could be a mine,
2 bad usage or unreadable input, 3 an inconsistent position.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from devil.analysis import Classification, Layout, Verdict
from devil.board import Cell, Coord, Topology
from devil.errors import InconsistentPosition
from devil.formats import FORMATS, detect_format, read_position
from devil.position import Position, PositionError
from devil.rules import Count

PROG = "devil-check"

EXIT_OK = 0
"""Success; with ``--cell``, the cell is safe."""
EXIT_COULD_BE_MINE = 1
"""With ``--cell``: the cell could be a mine (a certain mine or either)."""
EXIT_USAGE = 2
"""Bad usage or unreadable input (argparse errors too)."""
EXIT_INCONSISTENT = 3
"""No layout of mines fits the revealed numbers."""

BACKENDS = ("search", "cpsat")


class UsageError(Exception):
    """A user error: printed as one line on stderr, exit code 2."""


# -- command line ---------------------------------------------------------------------------


def _cell_arg(text: str) -> Coord:
    parts = text.split(",")
    try:
        row, col = (int(p.strip()) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected ROW,COL (two whole numbers, zero-based), got {text!r}"
        ) from None
    if row < 0 or col < 0:
        raise argparse.ArgumentTypeError(f"ROW and COL must be >= 0, got {text!r}")
    return row, col


def _mines_arg(text: str) -> int:
    try:
        mines = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if mines < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {mines}")
    return mines


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=(
            "Classify every covered cell of a Minesweeper position as S (safe in every "
            "consistent layout), M (a mine in every one) or ? (either)."
        ),
        epilog=(
            "exit codes: 0 success (--cell: the cell is safe), 1 --cell could be a mine, "
            "2 bad usage or unreadable input, 3 inconsistent position"
        ),
    )
    parser.add_argument("file", metavar="FILE", help="position file, or - for stdin")
    parser.add_argument(
        "--cell",
        type=_cell_arg,
        metavar="ROW,COL",
        help="zero-based cell to ask about; exit 0 if safe, 1 if it could be a mine",
    )
    parser.add_argument(
        "--mines",
        type=_mines_arg,
        metavar="N",
        help="total number of mines: switches to the counted rule (overrides a header)",
    )
    parser.add_argument(
        "--counted",
        action="store_true",
        help="counted rule with the mine total from the file's '# mines:' header",
    )
    parser.add_argument(
        "--witness",
        action="store_true",
        help="print a consistent layout with a mine on --cell ('*' mine, '.' no mine)",
    )
    parser.add_argument(
        "--probabilities",
        action="store_true",
        help="print every covered cell's exact mine probability (text: rounded percent)",
    )
    parser.add_argument(
        "--explain",
        action="store_true",
        help="with --cell: print why (the fewest numbers that force it, or two layouts)",
    )
    parser.add_argument(
        "--annotate",
        action="store_true",
        help="FILE is a replay (move list, EVF, AVF): judge every move (docs/annotations.md)",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--backend", choices=BACKENDS, default="search")
    parser.add_argument(
        "--topology",
        choices=[t.value for t in Topology],
        help="board topology (default: the file's '# topology:' header, else square)",
    )
    parser.add_argument(
        "--input-format",
        choices=("auto", *FORMATS),
        default="auto",
        help="input format (default: auto-detect)",
    )
    return parser


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace | int:
    """The parsed arguments, or the exit code argparse chose (2 on errors, 0 for --help)."""
    try:
        return build_parser().parse_args(argv)
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else EXIT_USAGE


# -- input ----------------------------------------------------------------------------------


def _read_text(path: str) -> tuple[str, str]:
    """``(display name, text)`` of ``path``; ``-`` is stdin."""
    if path == "-":
        return "<stdin>", _read_stdin()
    try:
        return path, Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"cannot read {path}: not UTF-8 text") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None


def _read_stdin() -> str:
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:  # a text stream without bytes underneath (tests use StringIO)
        return sys.stdin.read()
    try:
        return bytes(buffer.read()).decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError("cannot read <stdin>: not UTF-8 text") from None


def _load(args: argparse.Namespace) -> tuple[Position, str]:
    """The position and the name of the format it was read in."""
    name, text = _read_text(args.file)
    topology = Topology(args.topology) if args.topology else None
    fmt = None if args.input_format == "auto" else args.input_format
    try:
        position = read_position(text, topology, args.mines, fmt)
        return position, fmt or detect_format(text)
    except PositionError as exc:
        raise UsageError(f"{name}: {exc}") from None


def _count(args: argparse.Namespace, position: Position) -> Count:
    if args.mines is None and not args.counted:
        return Count.CLASSIC
    if position.mines is None:
        raise UsageError("--counted needs a total: give --mines N or a '# mines: N' header")
    return Count.COUNTED


def _target(args: argparse.Namespace, position: Position) -> Cell | None:
    """The ``--cell`` as a cell, checked to be a covered cell of the board."""
    if args.cell is None:
        if args.witness:
            raise UsageError("--witness needs --cell ROW,COL")
        return None
    row, col = args.cell
    board = position.board
    if row >= board.height or col >= board.width:
        raise UsageError(
            f"--cell {row},{col} is off the {board.height}x{board.width} board "
            f"(rows 0-{board.height - 1}, columns 0-{board.width - 1})"
        )
    cell = board.cell(row, col)
    if not board.exists(cell):
        raise UsageError(f"--cell {row},{col} is a hole: it does not exist")
    number = position.number(cell)
    if number is not None:
        raise UsageError(
            f"--cell {row},{col} is already revealed (a {number}): ask about a covered cell"
        )
    return cell


def _check_backend(backend: str) -> None:
    if backend != "cpsat":
        return
    try:
        import ortools.sat.python.cp_model  # noqa: F401

        import devil.cpsat  # noqa: F401
    except ImportError:
        raise UsageError(
            "the cpsat backend needs OR-Tools, which is not installed "
            "(pip install 'mine-devil[cpsat]'), or use --backend search"
        ) from None


# -- analysis -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Report:
    """Everything the output sections show: the question and the solver's answers."""

    position: Position
    count: Count
    input_format: str
    classification: Classification
    cell: Cell | None = None
    witness_asked: bool = False
    witness: Layout | None = None
    probabilities: Mapping[Cell, float] | None = None
    extra: dict[str, object] = field(default_factory=dict)
    """Room for later sections' data without changing this class."""

    def verdict(self, cell: Cell) -> Verdict:
        return self.classification.verdict(cell)

    def where(self, cell: Cell) -> str:
        row, col = self.position.board.coord(cell)
        return f"{row},{col}"


def _classify(position: Position, count: Count, backend: str) -> Classification:
    if backend == "cpsat":
        from devil import cpsat

        try:
            return cpsat.classify(position, count)
        except cpsat.CpSatTimeout as exc:
            raise UsageError(f"the cpsat backend gave up ({exc}); try --backend search") from None
    from devil import solver

    return solver.classify(position, count)


def _solver_witness(position: Position, cell: Cell, count: Count, backend: str) -> Layout | None:
    if backend == "cpsat":
        from devil import cpsat

        return cpsat.witness(position, cell, True, count)
    from devil import solver

    return solver.witness(position, cell, True, count)


def analyse(args: argparse.Namespace, position: Position, input_format: str) -> Report:
    """Ask the solver what the arguments want. Raises InconsistentPosition, UsageError."""
    from devil import solver

    count = _count(args, position)
    cell = _target(args, position)
    _check_backend(args.backend)
    classification = _classify(position, count, args.backend)
    witness = None
    if args.witness and cell is not None and classification.verdict(cell).could_be_mine:
        witness = _solver_witness(position, cell, count, args.backend)
    probabilities = solver.probabilities(position, count) if args.probabilities else None
    extra: dict[str, object] = {}
    if args.explain:
        if cell is None:
            raise UsageError("--explain needs --cell ROW,COL")
        from devil.proof import prove

        extra["proof"] = prove(position, cell, count)
    return Report(
        position=position,
        count=count,
        input_format=input_format,
        classification=classification,
        cell=cell,
        witness_asked=args.witness,
        witness=witness,
        probabilities=probabilities,
        extra=extra,
    )


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


def board_rows(report: Report) -> list[str]:
    """The board with every covered cell replaced by ``S``, ``M`` or ``?``."""
    return _picture(report.position, lambda cell: report.verdict(cell).letter)


def section_board(report: Report) -> Section:
    rows = board_rows(report)
    cells = [
        {"row": r, "col": c, "verdict": report.verdict(cell).value}
        for cell in report.position.covered_cells()
        for r, c in [report.position.board.coord(cell)]
    ]
    return Section(rows, {"board": rows, "cells": cells})


def _rule_text(report: Report) -> str:
    if report.count is Count.COUNTED:
        mines = report.position.mines
        return f"counted rule, {mines} {'mine' if mines == 1 else 'mines'}"
    return "classic rule"


def section_summary(report: Report) -> Section:
    verdicts = [report.verdict(c) for c in report.position.covered_cells()]
    safe = sum(v is Verdict.SAFE for v in verdicts)
    mine = sum(v is Verdict.MINE for v in verdicts)
    either = sum(v is Verdict.EITHER for v in verdicts)
    line = (
        f"{len(verdicts)} covered: {safe} safe, {mine} mine, {either} either ({_rule_text(report)})"
    )
    board = report.position.board
    summary = {"covered": len(verdicts), "safe": safe, "mine": mine, "either": either}
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
                cells.append(f"{percent(probs[cell]):>3}%")
            else:
                cells.append(f"{chr(position.grid[cell]):>4}")
        lines.append(" ".join(cells))
    listed = [
        {"row": r, "col": c, "probability": float(probs[cell])}
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
    if report.witness is None:
        return Section(
            [f"witness: none, no consistent layout has a mine at {where}"], {"witness": None}
        )
    rows = witness_rows(report.position, report.witness)
    head = f"witness: a consistent layout with a mine at {where} ('*' mine, '.' no mine):"
    return Section([head, *rows], {"witness": rows})


_CELL_TEXT = {
    Verdict.SAFE: "safe (no consistent layout has a mine there)",
    Verdict.MINE: "could be a mine (every consistent layout has a mine there)",
    Verdict.EITHER: "could be a mine (some consistent layouts have a mine there, some do not)",
}


def section_cell(report: Report) -> Section:
    if report.cell is None:
        return Section()
    verdict = report.verdict(report.cell)
    row, col = report.position.board.coord(report.cell)
    fields: dict[str, object] = {
        "row": row,
        "col": col,
        "verdict": verdict.value,
        "could_be_mine": verdict.could_be_mine,
    }
    return Section([f"cell {row},{col}: {_CELL_TEXT[verdict]}"], {"cell": fields})


def section_explain(report: Report) -> Section:
    """``--explain``: the proof (``devil.proof``) for ``--cell``."""
    from devil.proof import LEVEL_NAMES, Proof, cell_list, layout_rows

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
            lines.extend(layout_rows(report.position, layout))
    return Section(lines, {"proof": data})


SECTIONS: list[Callable[[Report], Section]] = [
    section_board,
    section_summary,
    section_probabilities,
    section_witness,
    section_cell,
    section_explain,
]
"""The output, in order. Text prints each section's lines; JSON merges their fields."""


def render_text(report: Report) -> str:
    return "\n".join(line for section in SECTIONS for line in section(report).lines) + "\n"


def render_json(report: Report) -> str:
    out: dict[str, object] = {}
    for section in SECTIONS:
        out.update(section(report).fields)
    return json.dumps(out) + "\n"


def exit_code(report: Report) -> int:
    if report.cell is not None and report.verdict(report.cell).could_be_mine:
        return EXIT_COULD_BE_MINE
    return EXIT_OK


# -- main -----------------------------------------------------------------------------------


def _error(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run ``devil-check`` with ``argv`` (default ``sys.argv[1:]``); returns the exit code."""
    args = _parse_args(argv)
    if isinstance(args, int):
        return args
    if args.annotate:
        from devil import annotate_cli

        return annotate_cli.run(args.file, args.format, PROG)
    try:
        position, input_format = _load(args)
        report = analyse(args, position, input_format)
    except UsageError as exc:
        _error(str(exc))
        return EXIT_USAGE
    except InconsistentPosition as exc:
        _error(f"inconsistent position: {exc}")
        return EXIT_INCONSISTENT
    render = render_json if args.format == "json" else render_text
    try:
        sys.stdout.write(render(report))
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. `devil-check big.txt | head`
        sys.stderr.close()
    return exit_code(report)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
