"""An imported replay (EVF, AVF, MBF, move list) as a page: its moves judged, each a link to
the analysis board on the position before it; a board without moves links its opening."""

from __future__ import annotations

from dataclasses import dataclass

from app.errors import InputError
from app.ledger.notes import note_text
from app.teach.query import analyse_url
from devil.annotate import AnnotationTooLong, annotate
from devil.board_replay import replay_on_board
from devil.errors import MoveError
from devil.game import Move
from devil.generate import mine_counts
from devil.luck import luck_sentence
from devil.position import Position
from devil.replays import Replay, ReplayFormatError, read_replay
from devil.replays.evf import SOFTWARE

MAX_IMPORT_CELLS = 10_000
MAX_IMPORT_MOVES = 20_000


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
    """The analysis board after the first move (or at the board's opening)."""


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
    try:
        replay = read_replay(data, name=filename)
    except ReplayFormatError as exc:
        raise InputError("replay", f"cannot read {filename}: {exc}") from None
    params = replay.params
    if params.height * params.width > MAX_IMPORT_CELLS:
        raise InputError("replay", f"boards up to {MAX_IMPORT_CELLS} cells can be imported")
    if len(replay.moves) > MAX_IMPORT_MOVES:
        raise InputError("replay", f"replays up to {MAX_IMPORT_MOVES} moves can be imported")
    if replay.layout is None:
        raise InputError("replay", f"{filename} does not say where the mines are (no layout)")
    moves = replay.moves
    opening = _opening(replay) if not moves else None
    if opening is not None:
        moves = (opening,)
    native = replay.software in ("", SOFTWARE)
    count = params.rules.count
    try:
        annotation = annotate(
            params, moves, replay.layout, seconds=replay.seconds, devil=native,
            first_free=native, max_seconds=10.0,
        )  # fmt: skip
        steps = list(replay_on_board(params.board(), params.mines, replay.layout, moves))
    except (MoveError, AnnotationTooLong) as exc:
        raise InputError("replay", f"cannot replay {filename}: {exc}") from None
    data_moves = annotation.to_json()["moves"]
    rows = []
    for note, step in zip(data_moves, steps, strict=True):
        study = analyse_url(step.before.line, count, cell=f"{note['row']},{note['col']}")
        rows.append(ImportedMove(note["n"], note["judgement"], note_text(note), study))
    first = steps[0].after if steps else Position.covered(params.board(), params.mines)
    start = analyse_url(first.line, count)
    what = replay.software or "Mine Devil"
    title = f"{filename}: {params.height}x{params.width}, {params.mines} mines ({what})"
    return ImportedView(
        title, tuple(rows), luck_sentence(annotation), annotation.metrics.to_json(), start
    )
