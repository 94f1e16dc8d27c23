"""An imported replay (EVF, AVF, MBF, move list) as a page: its moves judged, each a link to
the analysis board on the position before it; a board without moves links its opening.

Judging a file is engine work whose size the file decides (clicks can build a numbers
lattice whose exact odds take minutes), so it runs in a heavy-work child (``app.heavy``)
under a deadline of ``IMPORT_SECONDS`` that every analysis inside obeys, never on the
worker's event loop; past it the answer is a 400 naming the move reached.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.errors import InputError
from app.graphs.routes import WEB_MAX_TEXT
from app.heavy import run_heavy
from app.ledger.notes import note_text
from app.teach.query import analyse_url
from devil.errors import MoveError
from devil.game import Move, said
from devil.generate import mine_counts
from devil.ledger.annotate import AnnotationError, annotate
from devil.ledger.board_replay import replay_on_board
from devil.ledger.luck import luck_sentence
from devil.ledger.replays import Replay, ReplayFormatError, read_replay
from devil.ledger.replays.evf import SOFTWARE
from devil.position import Position
from devil.rules import Count

MAX_IMPORT_CELLS = 10_000
MAX_IMPORT_MOVES = 20_000
IMPORT_SECONDS = 10.0
"""The most judging one imported file may take (its annotation's deadline)."""


@dataclass(frozen=True)
class ImportedMove:
    n: int
    judgement: str
    text: str
    study: str


@dataclass(frozen=True)
class ImportedView:
    title: str
    moves: tuple[ImportedMove, ...]
    luck: str
    metrics: dict[str, object]
    start: str
    """The analysis board after the first move (or at the board's opening); empty on a
    graph board, whose analysis board takes its position by form, not by link."""
    graph_file: str = ""
    """A graph board's move list as text, which the page's form posts back with a move
    number (``POST /import/study``) to open the position before or after that move on the
    graph analysis board; empty on a grid (its links carry each position), or when the
    file is longer than that route reads."""
    graph_moves: int = 0
    """How many moves that file holds (a file without moves is judged on its opening)."""
    name: str = ""
    """The file's name, which the form posts back to title the analysis board."""


@dataclass(frozen=True)
class _Judged:
    """What the heavy-work child sends back: the view's values, with positions as one-line
    texts (the URLs are built in the request, which has the app to build them)."""

    title: str
    moves: tuple[tuple[int, str, str, str, str], ...]
    """Per move: its number, judgement, note, the position before it, the cell."""
    luck: str
    metrics: dict[str, object]
    start: str
    count: Count
    graph_file: str
    graph_moves: int


def _opening(replay: Replay) -> Move | None:
    """A click on the board's first zero (row-major), for boards imported without moves."""
    if replay.layout is None:
        return None
    board = replay.params.board()
    counts = mine_counts(board, replay.layout)
    for cell in board.cells():
        if cell not in replay.layout and counts[cell] == 0:
            return Move.reveal(*board.coord(cell))
    return None


def imported_view(data: bytes, filename: str) -> ImportedView:
    """The page of an uploaded file, judged in a heavy-work child (``Overloaded``, 429, when
    every child is busy); ``InputError`` naming ``replay`` when it cannot be read or judged."""
    outcome = run_heavy(judge_import, (data, filename), IMPORT_SECONDS)
    if isinstance(outcome, str):
        raise InputError("replay", outcome)
    count = outcome.count

    def study(line: str, cell: str | None = None) -> str:
        return analyse_url(line, count, cell=cell) if line else ""

    moves = tuple(
        ImportedMove(n, judgement, text, study(before, cell))
        for n, judgement, text, before, cell in outcome.moves
    )
    start = study(outcome.start)
    return ImportedView(
        outcome.title, moves, outcome.luck, outcome.metrics, start,
        graph_file=outcome.graph_file, graph_moves=outcome.graph_moves, name=filename,
    )  # fmt: skip


def judge_import(data: bytes, filename: str) -> _Judged | str:
    """The page of a file, or why it cannot be imported (a plain value: this runs in a
    heavy-work child and travels back by pickle)."""
    try:
        return _judged(data, filename)
    except InputError as exc:
        return str(exc)


def _judged(data: bytes, filename: str) -> _Judged:
    try:
        replay = read_replay(data, name=filename)
    except ReplayFormatError as exc:
        raise InputError("replay", f"cannot read {filename}: {exc}") from None
    params = replay.params
    grid = params.graph is None  # a graph's virtual grid may hold empty places: count cells
    cells = params.height * params.width if grid else params.board().cell_count
    if cells > MAX_IMPORT_CELLS:
        raise InputError("replay", f"boards up to {MAX_IMPORT_CELLS} cells can be imported")
    if len(replay.moves) > MAX_IMPORT_MOVES:
        raise InputError("replay", f"replays up to {MAX_IMPORT_MOVES} moves can be imported")
    if replay.layout is None:
        raise InputError("replay", f"{filename} does not say where the mines are (no layout)")
    moves = replay.moves
    opening = _opening(replay) if not moves else None
    if opening is not None:
        moves = (opening,)
    native = replay.software == SOFTWARE
    count = params.rules.count
    try:
        annotation = annotate(
            params, moves, replay.layout, seconds=replay.seconds, devil=native,
            first_free=native, max_seconds=IMPORT_SECONDS,
        )  # fmt: skip
        steps = list(replay_on_board(params.board(), params.mines, replay.layout, moves))
    except (MoveError, AnnotationError) as exc:
        raise InputError("replay", f"cannot replay {filename}: {exc}") from None
    data_moves = annotation.to_json()["moves"]
    # the grid analysis board reads a position from its link; a graph board's is rebuilt
    # from the posted file (``app.ledger.study``), and each note names its cell by id
    on = params.board()
    rows = tuple(
        (note["n"], note["judgement"], note_text(note, "" if grid else said(on, step.move)),
         step.before.line if grid else "", f"{note['row']},{note['col']}")
        for note, step in zip(data_moves, steps, strict=True)
    )  # fmt: skip
    first = steps[0].after if steps else Position.covered(params.board(), params.mines)
    what = replay.software or "unknown software"
    board = f"{params.height}x{params.width}" if params.graph is None else params.graph.name
    title = f"{filename}: {board}, {params.mines} mines ({what})"
    metrics = annotation.metrics.to_json()
    start = first.line if grid else ""
    # a graph board comes only in a move list (UTF-8 text: it was read as one)
    graph_file = "" if grid else data.decode("utf-8")
    if len(graph_file) > WEB_MAX_TEXT:  # a custom board of long ids and many pairs
        graph_file = ""  # the study route would refuse it: offer no form
    return _Judged(
        title, rows, luck_sentence(annotation), metrics, start, count, graph_file,
        len(replay.moves),
    )  # fmt: skip
