"""Teaching pages: the hint ladder, loss and win lessons, the analysis board, puzzles.

Routes (blueprint ``teach``)::

    POST /g/<id>/hint        climb one rung of the hint ladder (owner only, game running);
                             each new rung is logged in the game's record (``record_hint``)
    GET  /g/<id>/hints       the hint panel as it stands (refreshed after every move)
    GET  /analyse            the analysis board: ``p`` a position in the one-line form,
                             ``count`` classic|counted, ``cell`` r,c (zero-based) selected,
                             ``step`` a deduction step to show, ``draw`` 1 for drawing mode,
                             ``toggle`` r,c cycles a cell (drawing; 303 to the new ``p``),
                             ``new`` HxW for an empty board to draw on
    POST /analyse            pasted text in any format ``devil-check`` reads -> 303 to GET
    GET  /analyse/export.txt the position as native text; ``export.svg`` as a picture
    GET  /puzzle             a generated mid-game position: find a safe cell
                             (``preset``, ``level``, ``count``, ``seed``; ``answer`` r,c)
    POST /levels/new         a no-guess game whose level is the one asked for

Rate limits: hints and the analysis page share the moves' bucket (``limit_moves``); puzzles and
boards by level, which generate boards, share the new games' bucket (``limit_creates``).

The hint ladder and the lessons only ever read the *visible* position while a game runs
(the solver's verdicts on it are public knowledge); the layout is read only once the game
has ended (the win's board level). Cell names in hints, lessons, proofs and puzzles are
zero-based and spelled out, ``row 3, col 5`` (``Position.where``), exactly as ``devil-check``,
its ``--explain`` proofs and the JSON API count: the top-left cell is row 0, col 0.
"""

from __future__ import annotations

import base64
import json
import random
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from flask import (
    Blueprint,
    Response,
    current_app,
    g,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import Forbidden

from app import games, render
from app.games import PRESETS, InputError, LoadedGame
from app.security import can_move, ensure_owner, limit_creates, limit_moves
from devil import solver
from devil.analysis import Classification, Verdict
from devil.board import Board, BoardError, Cell, Topology
from devil.errors import InconsistentPosition, InvalidMove
from devil.formats import read_position
from devil.game import Game, GameParams, Move, MoveKind, Status
from devil.levels import Step, deduction_steps, grade, make_puzzle
from devil.position import COVERED, FLAG, HOLE, ZERO, Position, PositionError
from devil.proof import LEVEL_NAMES, Proof, prove
from devil.rules import Count, Rules

bp = Blueprint("teach", __name__)

ANALYSE_MAX_CELLS = 10_000
"""Largest position the analysis board accepts (e.g. 100x100)."""

ANALYSE_MAX_TEXT = 200_000
"""Largest pasted text, in characters."""

MAX_STEPS = 500
"""The deduction stepper stops after this many steps."""

PROOF_CANDIDATES = 40
"""How many safe cells the hint ladder compares to find the easiest proof."""

LEVEL_PRESETS = ("beginner", "intermediate", "expert")

RUNGS = (
    "Is there a safe cell at all?",
    "Where should I look?",
    "Which cell?",
    "Why is it safe?",
)
"""The hint ladder, one question per rung."""

DEFAULT_POSITION = (
    "11001.11./.1001111./11000012./0000001../01110012./12.10002./1.210002./11211002./"
    "001.1001.;mines=10"
)

T = TypeVar("T")


# -- small helpers --------------------------------------------------------------------------


def name(board: Board, cell: Cell) -> str:
    """``row 3, col 5``: zero-based, as the engine's proofs, ``devil-check`` and the API."""
    r, c = board.coord(cell)
    return f"row {r}, col {c}"


def ids(board: Board, cells: Iterable[Cell], prefix: str = "") -> list[str]:
    return [prefix + render.cell_id(*board.coord(c)) for c in sorted(cells)]


def names(board: Board, cells: Iterable[Cell], limit: int = 12) -> str:
    listed = sorted(cells)
    shown = "; ".join(name(board, c) for c in listed[:limit])
    if len(listed) > limit:
        shown += f" and {len(listed) - limit} more"
    return shown


class _Memo:
    """A small thread-safe LRU for results that depend only on their key."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self.items: OrderedDict[Any, Any] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: Any, compute: Callable[[], T]) -> T:
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]  # type: ignore[no-any-return]
        value = compute()
        with self.lock:
            self.items[key] = value
            while len(self.items) > self.size:
                self.items.popitem(last=False)
        return value


_hint_memo = _Memo()
_lesson_memo = _Memo()


def classify(position: Position, count: Count) -> Classification:
    return solver.classify(position, count)


def confirmed_flags(position: Position, verdicts: Classification) -> frozenset[Cell]:
    """The player's flags that are provably mines: knowledge a proof may use."""
    return frozenset(
        c for c, v in verdicts.verdicts.items() if v is Verdict.MINE and position.is_flagged(c)
    )


def easiest_proof(
    position: Position, count: Count, cells: Iterable[Cell], known: frozenset[Cell]
) -> Proof | None:
    """The proof with the lowest level (then fewest numbers) among ``cells``."""
    best: Proof | None = None
    for cell in sorted(cells)[:PROOF_CANDIDATES]:
        proof = prove(position, cell, count, known)
        if best is None or (proof.level, len(proof.numbers)) < (best.level, len(best.numbers)):
            best = proof
            if proof.level == 1:
                break
    return best


def level_text(level: int) -> str:
    if level == 0:
        return "no proof: it could be either"
    return f"level {level} ({LEVEL_NAMES[level]})"


# -- the hint ladder ------------------------------------------------------------------------


@dataclass(frozen=True)
class HintAnswer:
    question: str
    answer: str
    steps: tuple[str, ...] = ()


@dataclass(frozen=True)
class HintView:
    """The hint panel of a running game."""

    game_id: str
    rung: int
    answers: tuple[HintAnswer, ...]
    next_question: str | None
    hints_used: int
    can_ask: bool
    highlight: dict[str, list[str]] = field(default_factory=dict)

    @property
    def highlight_json(self) -> str:
        return json.dumps(self.highlight, sort_keys=True)


@dataclass(frozen=True)
class _HintFacts:
    """What the ladder can say about one visible position (public knowledge only)."""

    safe: frozenset[Cell]
    proof: Proof | None
    known: frozenset[Cell]
    first_click: bool = False


def _hint_facts(position: Position, count: Count) -> _HintFacts:
    if next(position.revealed_cells(), None) is None:
        return _HintFacts(frozenset(), None, frozenset(), first_click=True)
    verdicts = classify(position, count)
    safe = verdicts.safe_cells()
    known = confirmed_flags(position, verdicts)
    proof = easiest_proof(position, count, safe, known) if safe else None
    return _HintFacts(safe, proof, known)


def hint_facts(game_id: str, game: Game) -> _HintFacts:
    key = (game_id, len(game.moves), game.position.grid)
    return _hint_memo.get(key, lambda: _hint_facts(game.position, game.params.rules.count))


def hint_rung(game_id: str) -> int:
    """How many rungs the player climbed since their last move (hints after the last move)."""
    rung = 0
    for event in games.move_log(game_id):
        rung = rung + 1 if event["kind"] == "hint" else 0
    return rung


def ladder_top(facts: _HintFacts) -> int:
    return len(RUNGS) if facts.safe else 1


def region_of(board: Board, cell: Cell, radius: int = 2) -> tuple[list[Cell], str]:
    r, c = board.coord(cell)
    top, bottom = max(0, r - radius), min(board.height - 1, r + radius)
    left, right = max(0, c - radius), min(board.width - 1, c + radius)
    cells = [
        board.cell(row, col)
        for row in range(top, bottom + 1)
        for col in range(left, right + 1)
        if board.exists(board.cell(row, col))
    ]
    text = f"rows {top} to {bottom}, cols {left} to {right}"
    return cells, text


def hint_answers(
    board: Board, rules: Rules, facts: _HintFacts, rung: int
) -> tuple[list[HintAnswer], dict[str, list[str]]]:
    """The answers to the first ``rung`` questions, and what to highlight on the board."""
    answers: list[HintAnswer] = []
    highlight: dict[str, list[str]] = {}
    if rung >= 1:
        if facts.first_click:
            answers.append(
                HintAnswer(
                    RUNGS[0],
                    "Yes: your first click is always safe, anywhere, and opens an empty region.",
                )
            )
        elif facts.safe:
            n = len(facts.safe)
            answers.append(
                HintAnswer(
                    RUNGS[0],
                    f"Yes: {n} covered {'cell is' if n == 1 else 'cells are'} provably safe.",
                )
            )
        else:
            mercy = (
                " Under fair mercy the devil lets you off: a cell that could be safe will be."
                if rules.mercy.value == "fair"
                else " Every covered cell could hide a mine: any click is a guess."
            )
            answers.append(HintAnswer(RUNGS[0], "No: no covered cell is provably safe." + mercy))
    proof = facts.proof
    if proof is None:
        return answers, highlight
    if rung >= 2:
        region, text = region_of(board, proof.cell)
        answers.append(HintAnswer(RUNGS[1], f"Look at {text} (highlighted)."))
        highlight["hl-region"] = ids(board, region)
    if rung >= 3:
        answers.append(HintAnswer(RUNGS[2], f"The cell at {name(board, proof.cell)} is safe."))
        highlight.pop("hl-region", None)
        highlight["hl-target"] = ids(board, [proof.cell])
    if rung >= 4:
        used = " and the mines you found" if proof.known else ""
        answers.append(
            HintAnswer(
                RUNGS[3],
                f"A {level_text(proof.level)} proof from the highlighted numbers{used}:",
                proof.steps,
            )
        )
        highlight["hl-number"] = ids(board, proof.numbers)
        if proof.known:
            highlight["hl-known"] = ids(board, proof.known)
    return answers, highlight


def hint_view(loaded: LoadedGame, mover: bool) -> HintView | None:
    game = loaded.game
    if game.status is not Status.PLAYING or not mover:
        return None
    rung = hint_rung(loaded.id)
    if rung == 0:
        return HintView(loaded.id, 0, (), RUNGS[0], loaded.hints, mover)
    facts = hint_facts(loaded.id, game)
    top = ladder_top(facts)
    rung = min(rung, top)
    answers, highlight = hint_answers(game.position.board, game.params.rules, facts, rung)
    nxt = RUNGS[rung] if rung < top else None
    return HintView(loaded.id, rung, tuple(answers), nxt, loaded.hints, mover, highlight)


@bp.post("/g/<game_id>/hint")
@limit_moves
def hint(game_id: str) -> ResponseReturnValue:
    record = games.game_record(game_id)
    if not can_move(record):
        raise Forbidden("You are watching this game: only its player can ask for hints.")
    loaded = games.load_game(game_id)
    if loaded.game.status is not Status.PLAYING:
        return _teach_error(409, "This game is over: hints are for running games.")
    rung = hint_rung(game_id)
    top = 1 if rung == 0 else ladder_top(hint_facts(game_id, loaded.game))
    if rung < top:
        facts = hint_facts(game_id, loaded.game) if rung + 1 >= 3 else None
        row = col = None
        if facts is not None and facts.proof is not None:
            row, col = loaded.game.position.board.coord(facts.proof.cell)
        games.record_hint(game_id, rung + 1, row, col)
        loaded = games.load_game(game_id)
    if not _is_htmx():
        return redirect(url_for("views.game", game_id=game_id), 303)
    return _hints_fragment(loaded, True)


@bp.get("/g/<game_id>/hints")
def hints(game_id: str) -> ResponseReturnValue:
    loaded = games.load_game(game_id)
    return _hints_fragment(loaded, can_move(loaded.record))


def _hints_fragment(loaded: LoadedGame, mover: bool) -> ResponseReturnValue:
    hv = hint_view(loaded, mover)
    response = make_response(
        render_template("_hints.html", hv=hv, win=None, fragment=True, game_id=loaded.id)
    )
    response.vary.add("HX-Request")
    return response


# -- lessons when a game ends ---------------------------------------------------------------


@dataclass(frozen=True)
class LossLesson:
    """What the player could have done at the moment of the losing click."""

    safe_count: int
    safe_names: str
    proof_cell: str
    proof_level: str
    steps: tuple[str, ...]
    highlight: dict[str, list[str]]

    @property
    def highlight_json(self) -> str:
        return json.dumps(self.highlight, sort_keys=True)


@dataclass(frozen=True)
class WinLesson:
    level: int | None
    level_name: str
    hints_used: int
    steps: dict[int, int]


def loss_lesson(loaded: LoadedGame) -> LossLesson:
    game = loaded.game
    before = games.replay_game(loaded.id, len(game.moves) - 1) if game.moves else game
    position = before.position
    board = position.board
    count = game.params.rules.count
    verdicts = classify(position, count)
    safe = verdicts.safe_cells()
    highlight: dict[str, list[str]] = {}
    if not safe:
        return LossLesson(0, "", "", "", (), highlight)
    known = confirmed_flags(position, verdicts)
    proof = easiest_proof(position, count, safe, known)
    assert proof is not None
    highlight["hl-safe"] = ids(board, safe)
    highlight["hl-number"] = ids(board, proof.numbers)
    if proof.known:
        highlight["hl-known"] = ids(board, proof.known)
    return LossLesson(
        len(safe),
        names(board, safe),
        name(board, proof.cell),
        level_text(proof.level),
        proof.steps,
        highlight,
    )


def first_reveal(game: Game) -> Cell | None:
    board = game.position.board
    for move in game.moves:
        if move.kind is MoveKind.REVEAL:
            return board.cell(move.row, move.col)
    return None


def win_lesson(loaded: LoadedGame) -> WinLesson:
    game = loaded.game
    first = first_reveal(game)
    if game.layout is None or first is None:
        return WinLesson(None, "", loaded.hints, {})
    result = grade(game.position.board, game.layout, first, game.params.rules.count)
    level = result.level if result.cleared else None
    level_name = LEVEL_NAMES.get(level or 0, "") if level else "the first click cleared it"
    if level is None:
        level_name = "a guess was needed"
    return WinLesson(level, level_name, loaded.hints, dict(sorted(result.steps.items())))


@dataclass(frozen=True)
class Teaching:
    """What the game page's teaching includes show for one game."""

    hints: HintView | None = None
    loss: LossLesson | None = None
    win: WinLesson | None = None


def teaching_for(gv: render.GameView) -> Teaching | None:
    """The hints, loss lesson or win lesson of the game a template is showing.

    Teaching is an extra: if it fails, the game page still renders (without it) and the
    error is logged.
    """
    cache: dict[str, Teaching | None] = g.setdefault("_teaching", {})
    if gv.id not in cache:
        try:
            cache[gv.id] = _teaching(gv.id)
        except Exception:  # a bug here must not break playing
            current_app.logger.exception("teaching panel for game %s failed", gv.id)
            cache[gv.id] = None
    return cache[gv.id]


def _teaching(game_id: str) -> Teaching | None:
    try:
        loaded = games.load_game(game_id)
    except games.UnknownGame:
        return None
    status = loaded.game.status
    if status is Status.PLAYING:
        return Teaching(hints=hint_view(loaded, can_move(loaded.record)))
    if status is Status.LOST:
        key = ("loss", loaded.id, loaded.moves)
        return Teaching(loss=_lesson_memo.get(key, lambda: loss_lesson(loaded)))
    key = ("win", loaded.id, loaded.moves)
    win = _lesson_memo.get(key, lambda: win_lesson(loaded))
    return Teaching(win=replace(win, hints_used=loaded.hints))


@bp.app_context_processor
def teaching_helpers() -> dict[str, Any]:
    return {"teaching": teaching_for}


# -- the analysis board ---------------------------------------------------------------------


@dataclass(frozen=True)
class ACell:
    """One cell of the analysis board."""

    id: str
    row: int
    col: int
    classes: str
    text: str
    label: str
    href: str | None
    tip: str = ""
    ghost: bool = False
    action: str | None = None
    """When set, the cell is a button of ``#analyse-form`` sending ``action=row,col``."""


@dataclass(frozen=True)
class ARow:
    classes: str
    cells: tuple[ACell, ...]
    ghost: bool = False


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
    selected: str | None = None
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


def parse_count(text: str | None) -> Count:
    try:
        return Count((text or "classic").strip().lower())
    except ValueError:
        raise InputError("count", f"count must be classic or counted, not {text!r}") from None


def parse_line(text: str) -> Position:
    """The ``p`` parameter: a position in the one-line form, checked for size."""
    if len(text) > ANALYSE_MAX_TEXT:
        raise InputError("p", f"the position is longer than {ANALYSE_MAX_TEXT} characters")
    try:
        position = Position.from_line(text)
    except (PositionError, BoardError, ValueError) as exc:
        raise InputError("p", f"p is not a one-line position: {exc}") from None
    check_size(position)
    return position


def check_size(position: Position) -> None:
    board = position.board
    if board.size > ANALYSE_MAX_CELLS:
        raise InputError(
            "p",
            f"the board is {board.height}x{board.width}: the analysis board takes at most "
            f"{ANALYSE_MAX_CELLS} cells",
        )


def parse_cell_arg(board: Board, text: str | None, field_name: str = "cell") -> Cell | None:
    if not text:
        return None
    row, sep, col = text.partition(",")
    try:
        r, c = int(row), int(col)
    except ValueError:
        raise InputError(field_name, f"{field_name} must be 'row,col', not {text!r}") from None
    if not sep or not (0 <= r < board.height and 0 <= c < board.width):
        raise InputError(
            field_name,
            f"{field_name} {text!r} is off the {board.height}x{board.width} board "
            "(rows and columns count from 0 here)",
        )
    return board.cell(r, c)


def parse_int_arg(text: str | None, field_name: str, low: int, high: int, default: int) -> int:
    if text is None or text == "":
        return default
    try:
        value = int(text)
    except ValueError:
        raise InputError(field_name, f"{field_name} must be a whole number, not {text!r}") from None
    if not low <= value <= high:
        raise InputError(field_name, f"{field_name} {value} is outside {low}..{high}")
    return value


_CYCLE = {COVERED: ZERO, FLAG: ZERO, ZERO + 8: HOLE, HOLE: COVERED}


def cycled(position: Position, cell: Cell) -> Position:
    """Drawing: covered -> 0 -> 1 ... 8 -> hole -> covered."""
    byte = position.grid[cell]
    nxt = _CYCLE.get(byte, byte + 1)
    rows = position.with_cells({cell: nxt}).rows()
    return Position.from_rows(rows, position.board.topology, position.mines)


COMPACT_OVER = 1500
"""Positions whose one-line form is longer than this travel in URLs compressed (``z``):
servers cap the request line (gunicorn at 4094 bytes), and a 100x100 board is 10,100 bytes."""


def position_param(line: str) -> tuple[str, str]:
    """``("p", line)`` for a short position, ``("z", compressed)`` for a long one."""
    if len(line) <= COMPACT_OVER:
        return "p", line
    packed = base64.urlsafe_b64encode(zlib.compress(line.encode("ascii"), 9)).decode("ascii")
    return "z", packed.rstrip("=")


def unpack_line(packed: str) -> str:
    """The one-line form from a ``z`` parameter (size-limited: no decompression bombs)."""
    try:
        raw = base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4))
        inflater = zlib.decompressobj()
        text = inflater.decompress(raw, ANALYSE_MAX_TEXT + 1)
        if len(text) > ANALYSE_MAX_TEXT:
            raise InputError("z", f"the position is longer than {ANALYSE_MAX_TEXT} characters")
        if not inflater.eof:  # not zlib data at all, or a link cut short
            raise InputError("z", "z is not a compressed position (damaged link?)")
        return text.decode("ascii")
    except (ValueError, zlib.error) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError("z", "z is not a compressed position (damaged link?)") from None


def line_arg(args: Mapping[str, str], default: str | None = None) -> Position:
    """The position of a request: ``p`` (one-line form) or ``z`` (compressed)."""
    if args.get("z"):
        return parse_line(unpack_line(args["z"]))
    line = args.get("p") or default
    if not line:
        raise InputError("p", "p is missing: give a position in the one-line form")
    return parse_line(line)


def analyse_url(line: str, count: Count, **extra: Any) -> str:
    key, value = position_param(line)
    args: dict[str, Any] = {key: value}
    if count is Count.COUNTED:
        args["count"] = "counted"
    args.update({k: str(v) for k, v in extra.items() if v is not None and v != ""})
    return url_for("teach.analyse", **args)


def zero_based_label(label: str, row: int, col: int) -> str:
    """A board cell's label with the game's cell name swapped for the teaching pages' one
    (``row 3, col 5``, zero-based like every proof and hint on these pages)."""
    game_name = render.where(row, col)
    if label.startswith(game_name):
        return f"row {row}, col {col}" + label[len(game_name) :]
    return label


def _grid_rows(
    position: Position,
    classes_of: Callable[[Cell], str],
    href_of: Callable[[Cell], str | None],
    tip_of: Callable[[Cell], str],
    prefix: str,
    action_of: Callable[[Cell], str | None] | None = None,
) -> tuple[tuple[ARow, ...], str]:
    view = render.board_view(position, interactive=False)
    rows = []
    for row in view.rows:
        cells = []
        for c in row.cells:
            if c.ghost:
                cells.append(ACell("", c.row, c.col, c.classes, c.text, "", None, ghost=True))
                continue
            cell = position.board.cell(c.row, c.col)
            extra = classes_of(cell)
            tip = tip_of(cell)
            label = zero_based_label(c.label, c.row, c.col) + (f", {tip}" if tip else "")
            cells.append(
                ACell(
                    prefix + c.id,
                    c.row,
                    c.col,
                    f"{c.classes} {extra}".strip(),
                    c.text,
                    label,
                    href_of(cell),
                    tip,
                    action=action_of(cell) if action_of is not None else None,
                )
            )
        rows.append(ARow(row.classes, tuple(cells), row.ghost))
    return tuple(rows), view.classes.replace("readonly", "analysis")


def layout_grid(position: Position, layout: frozenset[Cell], prefix: str) -> tuple[ARow, ...]:
    """A read-only copy of the board with ``layout``'s mines marked (an either-cell's proof)."""

    def classes_of(cell: Cell) -> str:
        return "lay-mine" if cell in layout else ""

    rows, _ = _grid_rows(position, classes_of, lambda c: None, lambda c: "", prefix)
    return rows


def analysis_of(
    position: Position,
    count: Count,
    selected: Cell | None,
    step: int,
    draw: bool,
) -> Analysis:
    board = position.board
    line = position.line
    error = None
    verdicts: Mapping[Cell, Verdict] = {}
    probs: Mapping[Cell, float] = {}
    if count is Count.COUNTED and position.mines is None:
        error = "The counted rule needs the total number of mines: set it below."
        count = Count.CLASSIC
    try:
        verdicts = classify(position, count).verdicts
        probs = solver.probabilities(position, count)
    except InconsistentPosition as exc:
        error = "No layout of mines fits this position: " + str(exc) + "."
    summary = {
        "covered": sum(1 for _ in position.covered_cells()),
        "safe": sum(1 for v in verdicts.values() if v is Verdict.SAFE),
        "mine": sum(1 for v in verdicts.values() if v is Verdict.MINE),
        "either": sum(1 for v in verdicts.values() if v is Verdict.EITHER),
    }
    steps: list[Step] = []
    if error is None and not draw:
        steps = list(deduction_steps(position, count, limit=MAX_STEPS))
    step = max(0, min(step, len(steps)))
    known_mines: set[Cell] = set()
    known_safe: set[Cell] = set()
    for s in steps[: max(0, step - 1)]:
        known_mines.update(s.mines)
        known_safe.update(s.safe)
    current = steps[step - 1] if step else None
    highlight: dict[str, list[str]] = {}
    proof = None
    layouts = None
    if error is None and selected is not None and position.is_covered(selected) and not draw:
        proof = prove(position, selected, count)
        if proof.layouts is not None:
            with_mine, without = proof.layouts
            layouts = (
                layout_grid(position, with_mine, "l0-"),
                layout_grid(position, without, "l1-"),
            )
        highlight["hl-number"] = ids(board, proof.numbers, "a-")
        highlight["hl-target"] = ids(board, [selected], "a-")
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
        if cell in known_mines:
            out.append("known-mine")
        if cell in known_safe:
            out.append("known-safe")
        if cell == selected:
            out.append("selected")
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

    rows, board_classes = _grid_rows(position, classes_of, lambda c: None, tip_of, "a-", action_of)
    where: dict[str, Any] = dict([position_param(line)])
    links = {
        "share": analyse_url(line, count),
        "text": url_for("teach.export_text", **where),
        "svg": url_for("teach.export_svg", count=count.value, **where),
        "draw": analyse_url(line, count, draw=1),
        "done": analyse_url(line, count),
        "first": analyse_url(line, count, step=1) if steps else "",
        "back": analyse_url(line, count, step=step - 1) if step > 1 else "",
        "clear": analyse_url(line, count) if step else "",
        "forward": analyse_url(line, count, step=step + 1) if step < len(steps) else "",
        "last": analyse_url(line, count, step=len(steps)) if steps else "",
    }
    sel = None if selected is None else name(board, selected)
    return Analysis(
        position=position,
        line=line,
        count=count.value,
        rows=rows,
        board_classes=board_classes,
        summary=summary,
        error=error,
        selected=sel,
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


def _percent(p: float) -> str:
    if 0 < p < 0.01:
        return "<1%"
    if 0.99 < p < 1:
        return ">99%"
    return f"{round(p * 100)}%"


@bp.get("/analyse")
@limit_moves
def analyse() -> ResponseReturnValue:
    args = request.args
    count = parse_count(args.get("count"))
    new = args.get("new")
    if new:
        return redirect(analyse_url(blank_board(new, args.get("mines")).line, count, draw=1), 303)
    position = line_arg(args, DEFAULT_POSITION)
    toggle = parse_cell_arg(position.board, args.get("toggle"), "toggle")
    if toggle is not None:
        return redirect(analyse_url(cycled(position, toggle).line, count, draw=1), 303)
    selected = parse_cell_arg(position.board, args.get("cell"))
    step = parse_int_arg(args.get("step"), "step", 0, MAX_STEPS, 0)
    draw = args.get("draw") == "1"
    started = time.perf_counter()
    view = analysis_of(position, count, selected, step, draw)
    response = make_response(analyse_page(view, PasteForm()))
    response.headers["Server-Timing"] = f"analyse;dur={(time.perf_counter() - started) * 1000:.1f}"
    return response


@dataclass(frozen=True)
class PasteForm:
    """The paste form as the player left it, and what was wrong with it (empty: nothing)."""

    text: str = ""
    topology: str = ""
    mines: str = ""
    error: str = ""


def analyse_page(view: Analysis, paste: PasteForm) -> str:
    return render_template(
        "analyse.html", a=view, paste=paste, topologies=[t.value for t in Topology]
    )


def blank_board(size: str, mines_text: str | None) -> Position:
    height, sep, width = size.lower().partition("x")
    try:
        h, w = int(height), int(width)
    except ValueError:
        raise InputError("new", f"new must be HEIGHTxWIDTH, e.g. 8x8, not {size!r}") from None
    if not sep or not (1 <= h <= 100 and 1 <= w <= 100):
        raise InputError("new", f"new board {size!r}: height and width must be 1 to 100")
    mines = parse_int_arg(mines_text, "mines", 0, h * w, -1)
    return Position.covered(Board(h, w), None if mines < 0 else mines)


@bp.post("/analyse")
def analyse_paste() -> ResponseReturnValue:
    """A pasted position -> 303 to its analysis; bad input -> the analysis page again (400),
    the pasted text kept in the box and the error (naming line and column) next to it."""
    form = request.form
    try:
        return pasted_position(form)
    except InputError as exc:
        paste = PasteForm(
            form.get("text", ""), form.get("topology", ""), form.get("mines", ""), str(exc)
        )
    try:  # the board and rule the player was looking at when they pasted
        count = parse_count(form.get("count"))
        position = line_arg(form, DEFAULT_POSITION)
        check_size(position)
    except InputError:
        count, position = Count.CLASSIC, parse_line(DEFAULT_POSITION)
    return analyse_page(analysis_of(position, count, None, 0, False), paste), 400


def pasted_position(form: Mapping[str, str]) -> ResponseReturnValue:
    text = form.get("text", "")
    if not text.strip():
        raise InputError("text", "paste a position first: the text box is empty")
    if len(text) > ANALYSE_MAX_TEXT:
        raise InputError("text", f"the text is longer than {ANALYSE_MAX_TEXT} characters")
    topology = None
    if form.get("topology"):
        try:
            topology = Topology.parse(form["topology"])
        except ValueError as exc:
            raise InputError("topology", str(exc)) from None
    mines = None
    if form.get("mines", "").strip():
        mines = parse_int_arg(form["mines"].strip(), "mines", 0, ANALYSE_MAX_CELLS, 0)
    try:
        position = read_position(text, topology, mines)
    except (PositionError, BoardError) as exc:
        raise InputError("text", f"cannot read the position: {exc}") from None
    check_size(position)
    count = parse_count(form.get("count"))
    return redirect(analyse_url(position.line, count), 303)


@bp.post("/analyse/settings")
def analyse_settings() -> ResponseReturnValue:
    """Change topology, total mines or count rule of the position being analysed."""
    form = request.form
    position = line_arg(form)
    topology = position.board.topology
    if form.get("topology"):
        try:
            topology = Topology.parse(form["topology"])
        except ValueError as exc:
            raise InputError("topology", str(exc)) from None
    mines_text = form.get("mines", "").strip()
    mines = None if not mines_text else parse_int_arg(mines_text, "mines", 0, 10**6, 0)
    rebuilt = Position.from_rows(position.rows(), topology, mines)
    count = parse_count(form.get("count"))
    draw = "1" if form.get("draw") == "1" else None
    return redirect(analyse_url(rebuilt.line, count, draw=draw), 303)


@bp.get("/analyse/export.txt")
def export_text() -> ResponseReturnValue:
    position = line_arg(request.args)
    response = Response(position.to_text(), mimetype="text/plain")
    response.headers["Content-Disposition"] = 'attachment; filename="position.txt"'
    return response


@bp.get("/analyse/export.svg")
def export_svg() -> ResponseReturnValue:
    position = line_arg(request.args)
    count = parse_count(request.args.get("count"))
    verdicts: Mapping[Cell, Verdict] = {}
    if count is Count.CLASSIC or position.mines is not None:
        try:
            verdicts = classify(position, count).verdicts
        except InconsistentPosition:
            verdicts = {}
    response = Response(position_svg(position, verdicts), mimetype="image/svg+xml")
    response.headers["Content-Disposition"] = 'attachment; filename="position.svg"'
    return response


SVG_CELL = 24
SVG_COLOURS = {
    "open": "#e0e0e0",
    "covered": "#c6c6c6",
    "safe": "#8fd694",
    "mine": "#f08a84",
    "either": "#c6c6c6",
    "line": "#8a8a8a",
}
NUMBER_COLOURS = (
    "",
    "#0000ff",
    "#007b00",
    "#ff0000",
    "#00007b",
    "#7b0000",
    "#007b7b",
    "#000",
    "#7b7b7b",
)


def position_svg(position: Position, verdicts: Mapping[Cell, Verdict]) -> str:
    """The position as an SVG picture: numbers, covered cells coloured by verdict."""
    board = position.board
    s = SVG_CELL
    hexagonal = board.topology is Topology.HEX
    width = board.width * s + (s // 2 if hexagonal else 0)
    height = board.height * s
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="Arial, sans-serif" '
        f'font-weight="bold" font-size="{s * 0.6:.0f}">',
        f"<title>Mine Devil position {board.height}x{board.width}</title>",
    ]
    for cell in range(board.size):
        byte = position.grid[cell]
        if byte == HOLE:
            continue
        r, c = board.coord(cell)
        x = c * s + (s // 2 if hexagonal and r % 2 else 0)
        y = r * s
        number = position.number(cell)
        if number is not None:
            fill = SVG_COLOURS["open"]
        else:
            verdict = verdicts.get(cell)
            fill = SVG_COLOURS[verdict.value] if verdict is not None else SVG_COLOURS["covered"]
        out.append(
            f'<rect x="{x}" y="{y}" width="{s}" height="{s}" fill="{fill}" '
            f'stroke="{SVG_COLOURS["line"]}" stroke-width="1"/>'
        )
        label = ""
        colour = "#000"
        if number:
            label, colour = str(number), NUMBER_COLOURS[number]
        elif byte == FLAG:
            label, colour = "F", "#c0262d"
        elif number is None and cell in verdicts and verdicts[cell] is not Verdict.EITHER:
            label = verdicts[cell].letter
        if label:
            out.append(
                f'<text x="{x + s / 2:.1f}" y="{y + s * 0.72:.1f}" text-anchor="middle" '
                f'fill="{colour}">{label}</text>'
            )
    out.append("</svg>")
    return "\n".join(out) + "\n"


# -- puzzles and boards by level ------------------------------------------------------------


@dataclass(frozen=True)
class PuzzleView:
    preset: str
    level: int
    count: str
    seed: int
    position: Position | None
    rows: tuple[ARow, ...] = ()
    board_classes: str = ""
    answer: str | None = None
    correct: bool | None = None
    verdict: str = ""
    answer_level: str = ""
    steps: tuple[str, ...] = ()
    message: str = ""
    highlight: dict[str, list[str]] = field(default_factory=dict)

    @property
    def highlight_json(self) -> str:
        return json.dumps(self.highlight, sort_keys=True)


def parse_preset(text: str | None) -> tuple[str, int, int, int]:
    preset = (text or "beginner").strip().lower()
    if preset not in PRESETS:
        raise InputError("preset", f"preset must be one of {', '.join(PRESETS)}, not {text!r}")
    h, w, m = PRESETS[preset]
    return preset, h, w, m


_puzzle_memo = _Memo(64)


def parse_level_choice(
    values: Mapping[str, str],
) -> tuple[str, int, int, int, Count, int]:
    """Preset (name, height, width, mines), count rule and level from a query or form;
    level 4 (the total count) exists only under the counted rule."""
    preset, h, w, m = parse_preset(values.get("preset"))
    count = parse_count(values.get("count"))
    top = 4 if count is Count.COUNTED else 3
    return preset, h, w, m, count, parse_int_arg(values.get("level"), "level", 1, top, 2)


@bp.get("/puzzle")
@limit_creates
def puzzle() -> ResponseReturnValue:
    args = request.args
    preset, h, w, m, count, level = parse_level_choice(args)
    if not args.get("seed"):
        seed = random.SystemRandom().randrange(1_000_000)
        return redirect(
            url_for("teach.puzzle", preset=preset, level=level, count=count.value, seed=seed), 303
        )
    seed = parse_int_arg(args.get("seed"), "seed", 0, 2**31 - 1, 0)
    board = Board(h, w)
    key = (preset, level, count, seed)
    found = _puzzle_memo.get(
        key,
        lambda: make_puzzle(
            board,
            m,
            level,
            count,
            random.Random(seed),
            max_tries=PUZZLE_TRIES,
            deadline=time.monotonic() + GENERATION_SECONDS,
        ),
    )
    if found is None:
        view = PuzzleView(
            preset,
            level,
            count.value,
            seed,
            None,
            message=(
                f"No level {level} puzzle turned up for seed {seed} on {preset}: try another seed."
            ),
        )
        return render_template("puzzle.html", pz=view, presets=LEVEL_PRESETS), 200
    position = found.position
    known = found.known_mines
    answer = parse_cell_arg(position.board, args.get("answer"), "answer")

    def href_of(cell: Cell) -> str | None:
        if not position.is_covered(cell) or position.is_flagged(cell):
            return None
        r, c = position.board.coord(cell)
        return url_for(
            "teach.puzzle",
            preset=preset,
            level=level,
            count=count.value,
            seed=seed,
            answer=f"{r},{c}",
        )

    def classes_of(cell: Cell) -> str:
        return "selected" if cell == answer else ""

    rows, board_classes = _grid_rows(position, classes_of, href_of, lambda c: "", "a-")
    view = PuzzleView(preset, level, count.value, seed, position, rows, board_classes)
    if answer is not None:
        view = _graded(view, position, count, answer, known, found.level)
    return render_template("puzzle.html", pz=view, presets=LEVEL_PRESETS)


def _graded(
    view: PuzzleView,
    position: Position,
    count: Count,
    answer: Cell,
    known: frozenset[Cell],
    level: int,
) -> PuzzleView:
    board = position.board
    if not position.is_covered(answer) or answer in known:
        return replace(view, answer=name(board, answer), message="Pick a covered, unflagged cell.")
    proof = prove(position, answer, count, known)
    highlight = {
        "hl-target": ids(board, [answer], "a-"),
        "hl-number": ids(board, proof.numbers, "a-"),
    }
    if proof.known:
        highlight["hl-known"] = ids(board, proof.known, "a-")
    correct = proof.verdict is Verdict.SAFE
    if correct:
        if proof.level <= level:
            message = f"Right: {name(board, answer)} is safe, a level {proof.level} deduction."
        else:
            message = (
                f"Right: {name(board, answer)} is safe, but it takes level {proof.level}; "
                f"a level {level} deduction was available."
            )
    elif proof.verdict is Verdict.MINE:
        message = f"No: {name(board, answer)} is a mine."
    else:
        message = f"No: {name(board, answer)} could be a mine. It is a guess."
    return replace(
        view,
        answer=name(board, answer),
        correct=correct,
        verdict=proof.verdict.value,
        answer_level=level_text(proof.level),
        steps=proof.steps,
        message=message,
        highlight=highlight,
    )


LEVEL_GAME_TRIES = 5000
PUZZLE_TRIES = 5000
GENERATION_SECONDS = 4.0
"""Puzzles and boards by level give up after this long (rare levels: level 3 on beginner)."""


@bp.post("/levels/new")
@limit_creates
def level_game() -> ResponseReturnValue:
    """A no-guess game of the preset whose board needs exactly the chosen level."""
    form = request.form
    preset, h, w, m, count, level = parse_level_choice(form)
    base = GameParams(height=h, width=w, mines=m, rules=Rules(count=count), no_guess=True)
    first = base.board().cell(h // 2, w // 2)
    rng = random.SystemRandom()
    deadline = time.monotonic() + GENERATION_SECONDS
    for _ in range(LEVEL_GAME_TRIES):
        if time.monotonic() > deadline:
            break
        params = replace(base, seed=rng.randrange(2**62))
        game = Game.new(params).play(Move.reveal(h // 2, w // 2))
        if game.layout is None or not game.guaranteed:
            continue
        result = grade(params.board(), game.layout, first, count, max_level=level)
        if result.cleared and result.level == level:
            created = games.create_game(params, owner=ensure_owner())
            games.play(created.id, "reveal", h // 2, w // 2)
            return redirect(url_for("views.game", game_id=created.id), 303)
    return _teach_error(
        503,
        f"No {preset} board of level {level} turned up in {GENERATION_SECONDS:.0f} seconds "
        "(level 3 is rare on small boards): try again or pick another level.",
    )


# -- errors ---------------------------------------------------------------------------------


def _is_htmx() -> bool:
    return request.headers.get("HX-Request") == "true"


def _teach_error(code: int, message: str) -> ResponseReturnValue:
    if _is_htmx():
        return render_template("_toast.html", message=message), code
    return render_template("error.html", code=code, title="Not now", message=message), code


@bp.errorhandler(InputError)
def bad_input(exc: InputError) -> ResponseReturnValue:
    return _teach_error(400, str(exc))


@bp.errorhandler(InvalidMove)
def bad_cell(exc: InvalidMove) -> ResponseReturnValue:
    return _teach_error(400, str(exc))
