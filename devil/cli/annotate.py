"""``devil-check --annotate FILE``: every move of a replay judged, the luck ledger, metrics.

FILE is a Mine Devil move list (docs/annotations.md), an EVF or AVF video, or ``-`` for
stdin; the format comes from the extension or the content. A move list needs ``layout`` (the
final board) or ``seed`` (the game is then replayed by the engine). Games recorded elsewhere
are judged without the devil: a guess that a safe cell could have replaced is a ``guess``,
and the first click is not assumed safe.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from devil.analysis import Layout
from devil.board import Board
from devil.cli import reading
from devil.errors import MoveError
from devil.game import Game
from devil.graphs.ids import shown_id
from devil.ledger.annotate import (
    DEFAULT_MAX_SECONDS,
    AnnotationError,
    AnnotationTooLong,
    GameAnnotation,
    annotate,
    final_board,
    with_cell_ids,
)
from devil.ledger.luck import luck_sentence, odds
from devil.ledger.replays import Replay, ReplayFormatError, read_replay
from devil.ledger.replays.evf import SOFTWARE


class AnnotateError(ValueError):
    """A replay that cannot be annotated (the message says why)."""


class AnnotateTimeout(AnnotateError):
    """``--timeout`` ran out before every move was judged (the message names the move)."""


@dataclass(frozen=True)
class Annotated:
    replay: Replay
    annotation: GameAnnotation


def _read(path: str) -> tuple[str, bytes]:
    """The file's bytes, at most ``devil.cli.reading.MAX_INPUT_BYTES`` of them: a bigger file is
    refused after reading one byte more, never read whole."""
    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            data = sys.stdin.buffer.read(reading.MAX_INPUT_BYTES + 1)
        else:
            with Path(path).open("rb") as f:
                data = f.read(reading.MAX_INPUT_BYTES + 1)
    except OSError as e:
        raise AnnotateError(f"cannot read {path}: {e.strerror}") from None
    if len(data) > reading.MAX_INPUT_BYTES:
        raise AnnotateError(f"cannot read {name}: larger than {reading.MAX_INPUT_BYTES} bytes")
    return name, data


def annotate_replay(
    replay: Replay, native: bool, max_seconds: float | None = DEFAULT_MAX_SECONDS
) -> GameAnnotation:
    """Annotate a replay read from a file. ``native``: recorded by Mine Devil."""
    layout: Layout | None = replay.layout
    if layout is None:
        if not replay.params.seed and native:
            raise AnnotateError(
                "the move list has neither 'layout' nor 'seed': nothing says where the mines are"
            )
        layout = final_board(Game.replay(replay.params, replay.moves))
        if layout is None:
            raise AnnotateError("the moves never reveal a cell: there is no board to judge")
    return annotate(
        replay.params,
        replay.moves,
        layout,
        seconds=replay.seconds,
        devil=native,
        first_free=native,
        max_seconds=max_seconds,
    )


def load(path: str, timeout: float | None = None) -> Annotated:
    """Read and annotate ``path``; ``timeout``: seconds the judging may take (``--timeout``;
    None: ``DEFAULT_MAX_SECONDS``), past which ``AnnotateTimeout`` names the move reached."""
    name, data = _read(path)
    try:
        replay = read_replay(data, name=name if name != "<stdin>" else None)
    except ReplayFormatError as e:
        raise AnnotateError(f"{name}: {e}") from None
    native = replay.software == SOFTWARE
    limit = DEFAULT_MAX_SECONDS if timeout is None else timeout
    try:
        return Annotated(replay, annotate_replay(replay, native, limit))
    except AnnotationTooLong as e:
        raise AnnotateTimeout(f"{name}: {e}") from None
    except (MoveError, AnnotationError) as e:
        raise AnnotateError(f"{name}: {e}") from None


def render_text(annotated: Annotated) -> str:
    a = annotated.annotation
    lines = [f"{'move':>5}  {'kind':<6}  {'cell':<7}  {'judgement':<9}  level  p(safe)  bits"]
    for note in a.moves:
        level = "" if note.level is None else str(note.level)
        p = "" if note.p_safe is None else odds(note.p_safe)
        bits = "" if note.bits is None else f"{note.bits:.2f}"
        cell = _cell_name(a.board, note.move.row, note.move.col)
        lines.append(
            f"{note.n:>5}  {note.move.kind.value:<6}  {cell:<7}  {note.judgement.value:<9}  "
            f"{level:>5}  {p:>7}  {bits:>4}".rstrip()
        )
    m = a.metrics
    lines.append("")
    lines.append(luck_sentence(a))
    solved = f"3BV {m.bbbv}" if m.solved_bbbv == m.bbbv else f"solved 3BV {m.solved_bbbv}/{m.bbbv}"
    parts = [solved, f"clicks {m.clicks}"]
    if m.efficiency is not None:
        parts.append(f"efficiency {m.efficiency:.2f}")
    if m.seconds is not None:
        parts.append(f"time {m.seconds:.2f} s")
    if m.bbbv_per_s is not None:
        parts.append(f"3BV/s {m.bbbv_per_s:.2f}")
    parts.append(f"highest proof level {m.max_level if m.max_level is not None else '-'}")
    lines.append(", ".join(parts))
    return "\n".join(lines) + "\n"


def _cell_name(board: Board, row: int, col: int) -> str:
    """``ROW,COL``; a graph board's cell by its id (the moves name its virtual grid's slot),
    quoted as the move list quotes it when it holds a space or an invisible character."""
    if board.graph is None:
        return f"{row},{col}"
    return shown_id(board.cell_id(row, col))


def render_json(annotated: Annotated) -> str:
    """The annotation's JSON (docs/annotations.md); on a graph board each move names its
    ``cell`` and ``opened_cells`` by id too, as the API's annotations do."""
    annotation = annotated.annotation
    body = annotation.to_json()
    if annotation.board.graph is not None:
        body = with_cell_ids(body, annotation.board)
    return json.dumps(body) + "\n"


def run(path: str, fmt: str, prog: str, timeout: float | None = None) -> int:
    """Print the annotation of the replay at ``path``; returns the exit code (0; 2 when the
    file cannot be read or replayed; 4 when ``timeout`` ran out first, 2 when the default
    limit did)."""
    try:
        annotated = load(path, timeout)
    except AnnotateError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 4 if isinstance(e, AnnotateTimeout) and timeout is not None else 2
    render = render_json if fmt == "json" else render_text
    try:
        sys.stdout.write(render(annotated))
        sys.stdout.flush()
    except BrokenPipeError:
        sys.stderr.close()
    return 0
