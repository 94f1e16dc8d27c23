"""``devil-check``: classify every covered cell of a position read from a file or stdin.

The flags, the output and the exit codes are a contract scripts rely on (see
``docs/devil-check.md``): extend them, never rename them.

How it works, as a pipeline of small steps:

1. ``build_parser`` / ``_parse_args`` (here): the command line (argparse errors exit 2).
2. ``_load`` (here, with ``devil.cli.reading``): the text (a file or ``-`` for stdin, at most
   ``MAX_INPUT_BYTES``), read by ``devil.formats.read`` into a ``Reading`` (the position and
   how its format was detected).
3. ``analyse`` (here): the solver's answers and the notes for the user, gathered into a
   ``devil.cli.sections.Report``.
4. ``devil.cli.sections.SECTIONS``: one small function per part of the output. Each
   returns a ``Section`` holding its text lines and its JSON fields; ``render_text`` /
   ``render_json`` put them together. To add a part of the output (``--explain``, say): add
   the flag in ``build_parser``, compute what it needs in ``analyse`` (a new ``Report``
   field), and append a ``section_...`` function to ``SECTIONS``.

Exit codes: 0 success (with ``--cell``: the cell is safe), 1 the ``--cell`` could be a mine,
2 bad usage or unreadable input, 3 an inconsistent position, 4 ``--timeout`` ran out with
cells left undecided.

Notes (the format detected when it is not native, a total the classic rule does not use) go
to stderr as ``devil-check: note: ...``; with ``--format json`` they are the ``notes`` key
instead, so stderr stays empty on success.
"""

from __future__ import annotations

import argparse
import re
import signal
import sys
from collections.abc import Sequence

from devil.analysis import Classification, Layout
from devil.board import Cell, Coord, Topology
from devil.budget import Budget, Meter
from devil.cli.graph_sections import GRAPH_SECTIONS
from devil.cli.reading import UsageError, read_text
from devil.cli.sections import SECTIONS, UNDECIDED, Report, render_json, render_text
from devil.errors import BudgetExceeded, InconsistentPosition
from devil.formats import FORMATS, MAX_DIGITS, FormatReport, Reading, non_ascii_digit, read
from devil.graphs.fileformat import (
    ANY_COORDINATE,
    FORMAT,
    GraphFileError,
    looks_like_graph,
    read_graph,
)
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
BACKENDS = ("search", "cpsat")

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
        metavar="ROW,COL|ID",
        help="zero-based cell to ask about (a graph board's cell: its id); exit 0 if safe, "
        "1 if it could be a mine (a certain mine or either)",
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
        help="counted rule with the mine total from the file's '# mines:' header "
        '(a graph file\'s "mines")',
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
        choices=("auto", *FORMATS, "graph"),
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


def _load(args: argparse.Namespace) -> Reading:
    """The position, and how its format was detected. Raises UsageError, and
    InconsistentPosition for a graph board's impossible number."""
    name, text = read_text(args.file)
    if args.input_format == "graph" or (args.input_format == "auto" and looks_like_graph(text)):
        return _load_graph(args, name, text)
    if args.input_format == "auto" and text.lstrip().startswith("{"):
        if FORMAT in text:  # names the format but is not such an object: the reader says why
            return _load_graph(args, name, text)  # (not JSON at line 3, a wrong "format")
        # no grid format starts with "{": a graph-board file that does not say what it is
        raise UsageError(
            f'{name}: a JSON object without "format": "mine-devil-graph" at its top: '
            "add it, or read the file as a graph board with --input-format graph"
        )
    topology = Topology(args.topology) if args.topology else None
    fmt = None if args.input_format == "auto" else args.input_format
    try:
        return read(text, topology, args.mines, fmt)
    except PositionError as exc:
        raise UsageError(f"{name}: {exc}") from None


def _load_graph(args: argparse.Namespace, name: str, text: str) -> Reading:
    """A graph-board file (``devil.graphs.fileformat``)."""
    if args.topology is not None:
        raise UsageError("--topology is for grid boards: a graph board has its own neighbours")
    try:
        # devil-check never draws the board: any finite coordinate is read (as a stored
        # game's board is); the web's +-1e9 bound is for boards it draws
        position = read_graph(
            text, max_coordinate=ANY_COORDINATE, undeclared=args.input_format == "graph"
        )
    except GraphFileError as exc:
        raise UsageError(f"{name}: {exc}") from None
    total_from = None
    if args.mines is not None:
        position = position.with_mines(args.mines)
    elif position.mines is not None:
        total_from = 'the file\'s "mines"'
    detected = args.input_format == "auto"
    why = 'a JSON object with "format": "mine-devil-graph"'
    return Reading(position, FormatReport("graph", why, detected), total_from)


def _graph_cell(text: str, position: Position) -> Cell:
    """A graph board's ``--cell``: a covered cell's id."""
    layout = position.board.graph
    assert layout is not None
    cell = layout.find(text)  # the exact id first, then without spaces at either end
    if cell is None:
        raise UsageError(f"--cell {_shown(text)}: no cell of the board has that id")
    number = position.number(cell)
    if number is not None:
        raise UsageError(
            f"--cell {_shown(text)} is already revealed (a {number}): ask about a covered cell"
        )
    return cell


def _count(args: argparse.Namespace, position: Position) -> Count:
    if args.mines is None and not args.counted:
        return Count.CLASSIC
    if position.mines is None:
        raise UsageError("--counted needs a total: give --mines N or a '# mines: N' header")
    return Count.COUNTED


def _cell_form(position: Position) -> str:
    """How ``--cell`` names a cell of this board: ``ROW,COL``, or a graph board's ``ID``."""
    return "ROW,COL" if position.board.graph is None else "ID"


def _target(args: argparse.Namespace, position: Position) -> Cell | None:
    """The ``--cell`` as a cell, checked to be a covered cell of the board."""
    if args.cell is None:
        if args.witness:
            raise UsageError(f"--witness needs --cell {_cell_form(position)}")
        return None
    if position.board.graph is not None:
        return _graph_cell(args.cell, position)
    try:
        row, col = _cell_arg(args.cell)
    except argparse.ArgumentTypeError as exc:
        raise UsageError(f"argument --cell: {exc}") from None
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
    from devil.solve import solver

    return solver.classify(position, count, budget=_left(meter))


def _solver_witness(
    position: Position, cell: Cell, count: Count, backend: str, meter: Meter | None = None
) -> Layout | None:
    if backend == "cpsat":
        from devil import cpsat

        return cpsat.witness(position, cell, True, count)
    from devil.solve import solver

    return solver.witness(position, cell, True, count, budget=_left(meter))


def analyse(args: argparse.Namespace, reading: Reading) -> Report:
    """Ask the solver what the arguments want. Raises InconsistentPosition, UsageError."""
    from devil.solve import solver

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
        raise UsageError(f"--explain needs --cell {_cell_form(position)}")
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
        from devil.teach.proof import prove

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
        from devil.cli import annotate as annotate_cli

        return annotate_cli.run(args.file, args.format, PROG, args.timeout)
    try:
        reading = _load(args)
    except UsageError as exc:
        _error(str(exc))
        return EXIT_USAGE
    except InconsistentPosition as exc:  # a graph board's number above its neighbours
        _error(f"inconsistent position: {exc}")
        return EXIT_INCONSISTENT
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
    sections = SECTIONS if report.position.board.graph is None else GRAPH_SECTIONS
    try:
        sys.stdout.write(render(report, sections))
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
