"""``devil-check``: classify every covered cell of a position read from a file or stdin.

The flags, the output and the exit codes are a contract scripts rely on (see
``docs/devil-check.md``): extend them, never rename them.

How it works, as a pipeline of small steps:

1. ``build_parser`` / ``_parse_args``: the command line (argparse errors exit 2).
2. ``_load``: the text (a file or ``-`` for stdin, at most :data:`MAX_INPUT_BYTES`), read by
   ``devil.formats.read`` into a ``Reading`` (the position and how its format was detected).
3. ``analyse``: the solver's answers and the notes for the user, gathered into a
   :class:`Report`.
4. ``SECTIONS``: one small function per part of the output. Each returns a :class:`Section`
   holding its text lines and its JSON fields; ``render_text`` / ``render_json`` put them
   together. To add a part of the output (``--explain``, say): add the flag in
   ``build_parser``, compute what it needs in ``analyse`` (a new ``Report`` field), and append a
   ``section_...`` function to ``SECTIONS``.

Exit codes: 0 success (with ``--cell``: the cell is safe), 1 the ``--cell`` could be a mine,
2 bad usage or unreadable input, 3 an inconsistent position, 4 ``--timeout`` ran out with
cells left undecided.

Notes (the format detected when it is not native, a total the classic rule does not use) go
to stderr as ``devil-check: note: ...``; with ``--format json`` they are the ``notes`` key
instead, so stderr stays empty on success.
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO

from devil.analysis import Classification, Layout, Verdict
from devil.board import Cell, Coord, Topology
from devil.budget import Budget, Meter
from devil.errors import BudgetExceeded, InconsistentPosition
from devil.formats import FORMATS, MAX_DIGITS, FormatReport, Reading, non_ascii_digit, read
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
EXIT_UNDECIDED = 4
"""``--timeout`` ran out: some covered cells (or the ``--cell``) were left undecided."""
UNDECIDED = "-"
"""How the board draws a cell the time limit left undecided."""

BACKENDS = ("search", "cpsat")

MAX_INPUT_BYTES = 16 * 1024 * 1024
"""Largest input read (16 MiB: the biggest board, 4,000,000 cells, in any format, fits).
A larger file or stdin is refused after reading ``MAX_INPUT_BYTES + 1`` bytes."""


class UsageError(Exception):
    """A user error: printed as one line on stderr, exit code 2."""


# -- command line ---------------------------------------------------------------------------


_NUMBER = f"(-?[0-9]{{1,{MAX_DIGITS}}})"
_CELL = re.compile(rf"[ \t]*{_NUMBER}[ \t]*,[ \t]*{_NUMBER}[ \t]*")
_WHOLE = re.compile(rf"[ \t]*{_NUMBER}[ \t]*")


def _shown(text: str) -> str:
    """``text`` quoted for a message, cut short when long."""
    return repr(text) if len(text) <= 40 else repr(text[:37]) + "..."


def _ascii_only(text: str) -> None:
    digit = non_ascii_digit(text)
    if digit is not None:
        raise argparse.ArgumentTypeError(
            f"{digit} in {_shown(text)} is not an ASCII digit (numbers are written with 0-9 only)"
        )


def _cell_arg(text: str) -> Coord:
    """``ROW,COL`` in ASCII digits; negative numbers parse (``_target`` says they are off
    the board, with the board's size)."""
    _ascii_only(text)
    match = _CELL.fullmatch(text)
    if match is None:
        raise argparse.ArgumentTypeError(
            f"expected ROW,COL (two whole numbers, zero-based), got {_shown(text)}"
        )
    return int(match.group(1)), int(match.group(2))


def _mines_arg(text: str) -> int:
    _ascii_only(text)
    match = _WHOLE.fullmatch(text)
    if match is None:
        too_long = re.fullmatch(r"[ \t]*-?[0-9]+[ \t]*", text)
        what = f"a whole number of at most {MAX_DIGITS} digits" if too_long else "a whole number"
        raise argparse.ArgumentTypeError(f"expected {what}, got {_shown(text)}")
    mines = int(match.group(1))
    if mines < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {mines}")
    return mines


def _seconds_arg(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (0 < value < float("inf")):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def _glue_negative_values(argv: Sequence[str]) -> list[str]:
    """``--opt -1,0`` as ``--opt=-1,0``: argparse takes a value starting with ``-`` for an
    option and answers "expected one argument"; glued, the value reaches the option's own
    check (``--cell -1,0`` is off the board, ``--mines -1`` must be >= 0)."""
    out: list[str] = []
    for arg in argv:
        option = out[-1] if out else ""
        if (
            option.startswith("--")
            and option != "--"
            and "=" not in option
            and re.match(r"-[0-9]", arg)
        ):
            out[-1] = f"{out[-1]}={arg}"
        else:
            out.append(arg)
    return out


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=(
            "Classify every covered cell of a Minesweeper position as S (safe in every "
            "consistent layout), M (a mine in every one) or ? (either)."
        ),
        epilog=(
            "exit codes: 0 success (--cell: the cell is safe), 1 --cell could be a mine, "
            "2 bad usage or unreadable input, 3 inconsistent position, "
            "4 --timeout left cells undecided"
        ),
    )
    parser.add_argument("file", metavar="FILE", help="position file, or - for stdin")
    parser.add_argument(
        "--cell",
        type=_cell_arg,
        metavar="ROW,COL",
        help="zero-based cell to ask about; exit 0 if safe, 1 if it could be a mine "
        "(a certain mine or either)",
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
        "--timeout",
        type=_seconds_arg,
        metavar="SECONDS",
        help=(
            "stop the analysis after about SECONDS; cells left undecided print as "
            f"'{UNDECIDED}' and are listed, exit code 4"
        ),
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
        choices=[t.value for t in Topology.grids()],
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
    args = _glue_negative_values(sys.argv[1:] if argv is None else argv)
    try:
        return build_parser().parse_args(args)
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else EXIT_USAGE


# -- input ----------------------------------------------------------------------------------


def _read_bounded(stream: IO[bytes], name: str) -> bytes:
    """At most ``MAX_INPUT_BYTES`` from ``stream``: having read one byte more, refuse."""
    data = stream.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        mib = f" ({MAX_INPUT_BYTES // 2**20} MiB)" if MAX_INPUT_BYTES % 2**20 == 0 else ""
        raise UsageError(
            f"cannot read {name}: larger than {MAX_INPUT_BYTES} bytes{mib}, "
            "the most devil-check reads"
        )
    return data


def _decode(data: bytes, name: str) -> str:
    """``data`` as UTF-8; an invalid byte is named by its line and column."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        line = data.count(b"\n", 0, exc.start) + 1
        column = len(data[line_start : exc.start].decode("utf-8", errors="replace")) + 1
        raise UsageError(
            f"cannot read {name}: not UTF-8 text "
            f"(line {line}, column {column}: byte 0x{data[exc.start]:02x})"
        ) from None


def _read_text(path: str) -> tuple[str, str]:
    """``(display name, text)`` of ``path``; ``-`` is stdin. Bounded by MAX_INPUT_BYTES."""
    if path == "-":
        return "<stdin>", _read_stdin()
    try:
        with open(path, "rb") as stream:
            data = _read_bounded(stream, path)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    return path, _decode(data, path)


def _read_stdin() -> str:
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:  # a text stream without bytes underneath (tests use StringIO)
        text = sys.stdin.read(MAX_INPUT_BYTES + 1)
        if len(text) > MAX_INPUT_BYTES:
            raise UsageError(f"cannot read <stdin>: larger than {MAX_INPUT_BYTES} characters")
        return text
    return _decode(_read_bounded(buffer, "<stdin>"), "<stdin>")


def _load(args: argparse.Namespace) -> Reading:
    """The position, and how its format was detected."""
    name, text = _read_text(args.file)
    topology = Topology(args.topology) if args.topology else None
    fmt = None if args.input_format == "auto" else args.input_format
    try:
        return read(text, topology, args.mines, fmt)
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
    if not (0 <= row < board.height and 0 <= col < board.width):
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
        import devil.cpsat  # noqa: F401
    except ImportError:
        raise UsageError(
            "the cpsat backend needs OR-Tools, which is not installed "
            "(pip install 'mine-devil[cpsat]'), or use --backend search"
        ) from None


# -- analysis -------------------------------------------------------------------------------


def reading_notes(args: argparse.Namespace, reading: Reading) -> tuple[str, ...]:
    """What the user should know about how the input was read: the format when it is not
    native (and why), and a total from the file that the classic rule does not use."""
    notes = []
    if reading.report.note is not None:
        notes.append(reading.report.note)
    if reading.total_from is not None and args.mines is None and not args.counted:
        mines = reading.position.mines
        used = "; it only sets the density behind --probabilities" if args.probabilities else ""
        notes.append(
            f"the total of {mines} {'mine' if mines == 1 else 'mines'} ({reading.total_from}) "
            "is not used: the classic rule ignores the total, add --counted to use it" + used
        )
    return tuple(notes)


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
        row, col = self.position.board.coord(cell)
        return f"{row},{col}"


def _left(meter: Meter | None) -> Budget | None:
    """What is left of ``--timeout`` for the next step (None: no limit)."""
    if meter is None:
        return None
    left = meter.remaining()
    return Budget(seconds=max(left if left is not None else 0.0, 0.001))


def _classify(
    position: Position, count: Count, backend: str, meter: Meter | None = None
) -> Classification:
    if backend == "cpsat":
        from devil import cpsat

        try:
            return cpsat.classify(position, count)
        except cpsat.CpSatTimeout as exc:
            raise UsageError(f"the cpsat backend gave up ({exc}); try --backend search") from None
    from devil import solver

    return solver.classify(position, count, budget=_left(meter))


def _solver_witness(
    position: Position, cell: Cell, count: Count, backend: str, meter: Meter | None = None
) -> Layout | None:
    if backend == "cpsat":
        from devil import cpsat

        return cpsat.witness(position, cell, True, count)
    from devil import solver

    return solver.witness(position, cell, True, count, budget=_left(meter))


def analyse(args: argparse.Namespace, reading: Reading) -> Report:
    """Ask the solver what the arguments want. Raises InconsistentPosition, UsageError."""
    from devil import solver

    position = reading.position
    count = _count(args, position)
    cell = _target(args, position)
    _check_backend(args.backend)
    if args.backend == "cpsat" and args.timeout is not None:
        raise UsageError(
            "--timeout bounds the search backend only: CP-SAT would run past it, "
            "so use --backend search with --timeout"
        )
    meter = None if args.timeout is None else Budget(seconds=args.timeout).start()
    classification = _classify(position, count, args.backend, meter)
    witness = None
    extra: dict[str, object] = {}
    if args.explain and cell is None:
        raise UsageError("--explain needs --cell ROW,COL")
    decided = cell is None or cell in classification.verdicts
    if args.witness and cell is not None and decided and classification.verdict(cell).could_be_mine:
        try:
            witness = _solver_witness(position, cell, count, args.backend, meter)
        except BudgetExceeded as stop:
            extra["witness_stopped"] = str(stop)
    probabilities = None
    if args.probabilities:
        probabilities = solver.probabilities(position, count, budget=_left(meter))
    if args.explain and cell is not None and decided:
        from devil.budget import metering
        from devil.proof import prove

        limit = _left(meter)
        try:
            with metering(None if limit is None else limit.start()):
                extra["proof"] = prove(position, cell, count)
        except BudgetExceeded as stop:
            extra["proof_stopped"] = str(stop)
    if args.timeout is not None:
        extra["timeout"] = args.timeout
    return Report(
        position=position,
        count=count,
        detection=reading.report,
        classification=classification,
        cell=cell,
        witness_asked=args.witness,
        witness=witness,
        probabilities=probabilities,
        notes=reading_notes(args, reading),
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
    return _picture(report.position, report.letter)


def section_board(report: Report) -> Section:
    rows = board_rows(report)
    verdicts = report.classification.verdicts
    cells = [
        {"row": r, "col": c, "verdict": v.value if (v := verdicts.get(cell)) else "undecided"}
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
        lines.append(" ".join(cells))
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
    return Section([head, *rows], {"witness": rows})


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
    """``--explain``: the proof (``devil.proof``) for ``--cell``."""
    from devil.proof import LEVEL_NAMES, Proof
    from devil.wording import cell_list, layout_rows

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


def render_text(report: Report) -> str:
    return "\n".join(line for section in SECTIONS for line in section(report).lines) + "\n"


def render_json(report: Report) -> str:
    out: dict[str, object] = {}
    for section in SECTIONS:
        out.update(section(report).fields)
    return json.dumps(out) + "\n"


def exit_code(report: Report) -> int:
    """With ``--cell``: the cell's answer (4 only when it is undecided); else 4 when
    ``--timeout`` left any cell undecided."""
    if report.cell is not None:
        if report.cell not in report.classification.verdicts:
            return EXIT_UNDECIDED
    elif report.undecided:
        return EXIT_UNDECIDED
    if report.cell is not None and report.verdict(report.cell).could_be_mine:
        return EXIT_COULD_BE_MINE
    return EXIT_OK


# -- main -----------------------------------------------------------------------------------


def _error(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr)


def _print_notes(notes: Sequence[str]) -> None:
    for note in notes:
        _error(f"note: {note}")


def main(argv: list[str] | None = None) -> int:
    """Run ``devil-check`` with ``argv`` (default ``sys.argv[1:]``); returns the exit code."""
    args = _parse_args(argv)
    if isinstance(args, int):
        return args
    if args.annotate:
        from devil import annotate_cli

        return annotate_cli.run(args.file, args.format, PROG, args.timeout)
    try:
        reading = _load(args)
    except UsageError as exc:
        _error(str(exc))
        return EXIT_USAGE
    try:
        report = analyse(args, reading)
    except UsageError as exc:
        _error(str(exc))
        return EXIT_USAGE
    except InconsistentPosition as exc:
        # the numbers may be impossible only as read: say how, when it was not native
        _print_notes([reading.report.note] if reading.report.note else [])
        _error(f"inconsistent position: {exc}")
        return EXIT_INCONSISTENT
    if args.format != "json":
        _print_notes(report.notes)
    render = render_json if args.format == "json" else render_text
    try:
        sys.stdout.write(render(report))
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. `devil-check big.txt | head`
        sys.stderr.close()
    return exit_code(report)


def run() -> None:
    """The ``devil-check`` command: ``main`` with Ctrl-C stopping the process at once, the
    shell's way (exit status 130, no traceback), even inside the compiled engine's loops,
    which do not look at Python's signal handlers."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    run()
