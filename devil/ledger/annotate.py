"""Every move judged: proofs, forced guesses, fatal guesses, and the luck ledger.

``annotate(params, moves, layout)`` replays a move log on the game's final board
(``devil.ledger.board_replay``) and judges each board move on the position the player saw before it
(``docs/annotations.md``):

- ``proof``: the clicked cell (every cell a chord opened) was provably safe; ``level`` is the
  proof level 1-4 of the teaching side (``devil.teach.move_level``), the highest over a
  chord's cells.
- ``forced``: no covered cell was provably safe and the click survived (fair mercy's redraw, or
  the free first click); ``p_safe`` is the exact probability that the cell was safe under the
  game's count rule, a ``Fraction``, and ``bits = -log2(p_safe)`` the luck it spent.
- ``guess``: only on imported boards (no devil): a safe cell existed, the click could have been
  a mine, and the board let it live. ``p_safe`` and ``bits`` as for a forced guess.
- ``fatal``: the move lost (a safe cell existed and the devil struck, or the rules allowed no
  mercy, or the cell was a mine).
- ``flag``: a flag or unflag.

Reveals and chords list the cells they ``opened``. Annotations are derived, never stored as
truth: ``ANNOTATION_VERSION`` changes whenever the judgement of a log could, so caches keyed by
it recompute. The work is bounded by ``max_seconds`` (``AnnotationTooLong`` names the move
reached): every solver call inside runs under the same deadline (``devil.budget``), so one
hard position cannot run past it either. A replay whose board cannot explain its own numbers
(a file whose mine count and layout disagree) raises ``AnnotationError`` naming the move.
"""

from __future__ import annotations

import enum
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from devil.analysis import Layout, Verdict
from devil.board import Board, Cell
from devil.budget import Budget
from devil.errors import BudgetExceeded, InconsistentPosition
from devil.game import Game, GameParams, Move, MoveKind, Status, changed_between, said
from devil.ledger.board_replay import ReplayStep, replay_on_board
from devil.ledger.metrics import Metrics, bbbv, solved_bbbv
from devil.position import COVERED, Position
from devil.rules import Count
from devil.solve.grid import neighbour_fn
from devil.solve.solver import PositionAnalysis, Solver
from devil.teach.move_level import proof_level

ANNOTATION_VERSION = 2
"""Bump when a judgement, level or probability of some log could change."""

DEFAULT_MAX_SECONDS = 30.0
"""Default bound on the work of one annotation."""


class AnnotationError(ValueError):
    """A log that cannot be judged; ``move`` is the number of the move it stopped at."""

    def __init__(self, message: str, move: int) -> None:
        super().__init__(message)
        self.move = move


class AnnotationTooLong(AnnotationError):
    """Annotating took longer than allowed; ``move`` is the move number reached."""


class MoveJudgement(enum.Enum):
    """What a board move was."""

    PROOF = "proof"
    """Every cell it revealed was provably safe."""

    FORCED = "forced"
    """No covered cell was provably safe; the click survived."""

    GUESS = "guess"
    """Imported boards only: a safe cell existed, the click could have been a mine, it was not."""

    FATAL = "fatal"
    """The move lost."""

    FLAG = "flag"
    """A flag or unflag: marks never risk anything."""


@dataclass(frozen=True)
class MoveNote:
    """The annotation of move ``n`` (counting from 1)."""

    n: int
    move: Move
    judgement: MoveJudgement
    level: int | None = None
    p_safe: Fraction | None = None
    opened: tuple[Cell, ...] = ()

    @property
    def bits(self) -> float | None:
        """Luck spent: ``-log2(p_safe)`` for guesses that survived, else None."""
        if self.p_safe is None:
            return None
        return -math.log2(self.p_safe) if self.p_safe < 1 else 0.0

    def to_json(self, board: Board) -> dict[str, Any]:
        bits = self.bits
        return {
            "n": self.n,
            "kind": self.move.kind.value,
            "row": self.move.row,
            "col": self.move.col,
            "judgement": self.judgement.value,
            "level": self.level,
            "p_safe": None if self.p_safe is None else float(self.p_safe),
            "p_safe_exact": None if self.p_safe is None else str(self.p_safe),
            "bits": None if bits is None else round(bits, 4),
            "opened": [list(board.coord(c)) for c in self.opened],
        }


@dataclass(frozen=True)
class GameAnnotation:
    """A whole game's annotations, luck ledger and metrics."""

    version: int
    board: Board
    moves: tuple[MoveNote, ...]
    metrics: Metrics

    @property
    def bits(self) -> float:
        """Total luck spent: the sum of every guess's bits."""
        return sum((m.bits or 0.0) for m in self.moves)

    @property
    def guesses(self) -> tuple[MoveNote, ...]:
        """The surviving guesses (forced or imported), in order."""
        return tuple(m for m in self.moves if m.p_safe is not None and m.p_safe < 1)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "moves": [m.to_json(self.board) for m in self.moves],
            "bits": round(self.bits, 4),
            "metrics": self.metrics.to_json(),
        }


def with_cell_ids(body: dict[str, Any], board: Board) -> dict[str, Any]:
    """A graph game's annotation with its cells named by id too: each move's ``cell`` and
    ``opened_cells`` beside the ``row``/``col`` of the board's virtual grid."""
    assert board.graph is not None
    name = board.cell_id
    moves = []
    for move in body.get("moves", []):
        extra: dict[str, Any] = {}
        if isinstance(move.get("row"), int) and isinstance(move.get("col"), int):
            extra["cell"] = name(move["row"], move["col"])
        if isinstance(move.get("opened"), list):
            extra["opened_cells"] = [name(r, c) for r, c in move["opened"]]
        moves.append({**move, **extra})
    return {**body, "moves": moves}


# -- the judge ----------------------------------------------------------------------------------


class _Judge:
    """Judges moves in order with one incremental solver per count rule in use."""

    def __init__(
        self, params: GameParams, devil: bool, first_free: bool, deadline: float | None = None
    ) -> None:
        self.deadline = deadline
        """``time.monotonic()`` past which every analysis stops (None: no limit)."""
        self.count = params.rules.count
        self.devil = devil
        self.first_free = first_free
        self.solver = Solver(self.count)
        self._classic = Solver(Count.CLASSIC)
        self._classic_last: tuple[Position, PositionAnalysis] | None = None
        self._last: tuple[Position, PositionAnalysis] | None = None
        self.started = False
        self.nb = neighbour_fn(params.board())

    def budget(self) -> Budget | None:
        """What is left of the deadline, for one analysis and every query on it."""
        if self.deadline is None:
            return None
        return Budget(seconds=max(self.deadline - time.monotonic(), 1e-6))

    def analysis(self, position: Position) -> PositionAnalysis:
        last = self._last
        if last is not None and last[0].grid == position.grid:
            return last[1]
        changed = None if last is None else changed_between(last[0], position)
        analysis = self.solver.analyse(position, changed, budget=self.budget())
        self._last = (position, analysis)
        return analysis

    def _current(self, position: Position) -> bool:
        return self._last is not None and self._last[0].grid == position.grid

    def latest(self, position: Position) -> PositionAnalysis:
        """The newest analysis made, of ``position`` or of an earlier position of the game.

        Verdicts only sharpen as a game goes on (every layout consistent with a later position
        is consistent with an earlier one), so SAFE and MINE from an earlier analysis still
        hold: annotating asks the solver again only when an older answer is not enough."""
        last = self._last
        return self.analysis(position) if last is None else last[1]

    def classic(self, position: Position) -> PositionAnalysis:
        """The classic rule's analysis (numbers alone), for telling level 3 from level 4."""
        if self.count is Count.CLASSIC:
            return self.analysis(position)
        last = self._classic_last
        if last is not None and last[0].grid == position.grid:
            return last[1]
        changed = None if last is None else changed_between(last[0], position)
        analysis = self._classic.analyse(position, changed, budget=self.budget())
        self._classic_last = (position, analysis)
        return analysis

    def judge(self, step: ReplayStep) -> MoveNote:
        move = step.move
        if move.kind is MoveKind.FLAG or move.kind is MoveKind.UNFLAG:
            return MoveNote(step.n, move, MoveJudgement.FLAG)
        before = step.before
        board = before.board
        cell = board.cell(move.row, move.col)
        if not self.started:
            # nothing revealed yet: the first click, safe by the rules when first_free
            self.started = True
            if step.lost_at is not None:
                return MoveNote(step.n, move, MoveJudgement.FATAL, opened=step.opened)
            p = Fraction(1) if self.first_free else self._p_safe(before, cell)
            return MoveNote(step.n, move, MoveJudgement.FORCED, p_safe=p, opened=step.opened)
        targets = _targets(before, move, cell)
        analysis = self.latest(before)
        unsafe = [t for t in targets if analysis.verdict(t) is not Verdict.SAFE]
        if unsafe and not self._current(before):
            analysis = self.analysis(before)
            unsafe = [t for t in targets if analysis.verdict(t) is not Verdict.SAFE]
        if not unsafe:
            level = max(self._level(before, analysis, t) for t in targets)
            return MoveNote(step.n, move, MoveJudgement.PROOF, level=level, opened=step.opened)
        if step.lost_at is not None:
            return MoveNote(step.n, move, MoveJudgement.FATAL, opened=step.opened)
        p = self._p_safe(before, unsafe[0])
        guess = not self.devil and analysis.any_safe()
        judgement = MoveJudgement.GUESS if guess else MoveJudgement.FORCED
        return MoveNote(step.n, move, judgement, p_safe=p, opened=step.opened)

    def _p_safe(self, position: Position, cell: Cell) -> Fraction:
        probs = self.analysis(position).exact_probabilities()
        if cell in probs.undecided:
            raise BudgetExceeded(probs.reason or "too hard within the budget")
        return 1 - probs[cell]

    def _level(self, position: Position, analysis: PositionAnalysis, cell: Cell) -> int:
        def confirmed(flag: Cell) -> bool:
            if analysis.verdict(flag) is Verdict.MINE:
                return True
            return self.analysis(position).verdict(flag) is Verdict.MINE

        def numbers_decide() -> bool:
            last = self._classic_last if self.count is Count.COUNTED else self._last
            if last is not None and last[1].verdict(cell) is Verdict.SAFE:
                return True
            return self.classic(position).verdict(cell) is Verdict.SAFE

        return proof_level(position, cell, False, confirmed, numbers_decide, self.nb)


def _targets(position: Position, move: Move, cell: Cell) -> list[Cell]:
    if move.kind is MoveKind.REVEAL:
        return [cell]
    grid = position.grid
    return [n for n in position.board.neighbours(cell) if grid[n] == COVERED]


# -- entry points -------------------------------------------------------------------------------


def annotate(
    params: GameParams,
    moves: Sequence[Move],
    layout: Layout,
    *,
    seconds: float | None = None,
    hints: int = 0,
    devil: bool = True,
    first_free: bool = True,
    max_seconds: float | None = DEFAULT_MAX_SECONDS,
) -> GameAnnotation:
    """Annotate ``moves`` played on the final board ``layout`` under ``params``' rules.

    ``devil``: the log is a Mine Devil game (a surviving guess while a safe cell existed is
    then impossible); False for imported replays, whose guesses can survive (``guess``).
    ``first_free``: the first click is safe by the rules (probability 1). ``seconds`` and
    ``hints`` come from the caller's log and go into the metrics.
    """
    board = params.board()
    start = time.monotonic()
    deadline = None if max_seconds is None else start + max_seconds
    judge = _Judge(params, devil, first_free, deadline)
    notes: list[MoveNote] = []
    revealed: set[Cell] = set()
    for step in replay_on_board(board, params.mines, layout, moves):
        try:
            notes.append(judge.judge(step))
        except BudgetExceeded:
            raise AnnotationTooLong(
                f"annotating took over {max_seconds} s; stopped at move {step.n} of {len(moves)}",
                step.n,
            ) from None
        except InconsistentPosition as e:
            raise AnnotationError(
                f"move {step.n} ({said(board, step.move)}): the board does not explain the "
                "position before "
                f"it: {e}",
                step.n,
            ) from None
        revealed.update(step.opened)
        if max_seconds is not None and time.monotonic() - start > max_seconds:
            raise AnnotationTooLong(
                f"annotating took over {max_seconds} s; stopped after move {step.n} "
                f"of {len(moves)}",
                step.n,
            )
    levels = [m.level for m in notes if m.level is not None]
    bits = sum((m.bits or 0.0) for m in notes)
    metrics = Metrics(
        bbbv(board, layout),
        len(notes),
        seconds,
        hints,
        max(levels, default=None),
        bits,
        solved_bbbv(board, layout, revealed),
    )
    return GameAnnotation(ANNOTATION_VERSION, board, tuple(notes), metrics)


def final_board(game: Game) -> Layout | None:
    """The board that explains every number ``game`` showed: the devil's witness after a loss,
    else the hidden layout (None before the first reveal). Public only once the game is over."""
    if game.status is Status.LOST:
        return game.witness
    return game.layout


def annotate_game(
    game: Game,
    *,
    seconds: float | None = None,
    hints: int = 0,
    max_seconds: float | None = DEFAULT_MAX_SECONDS,
) -> GameAnnotation:
    """Annotate a Mine Devil game (normally a finished one: its board must not leak before)."""
    layout = final_board(game)
    if layout is None:
        layout = frozenset()
    return annotate(
        game.params,
        game.moves,
        layout,
        seconds=seconds,
        hints=hints,
        max_seconds=max_seconds,
    )
