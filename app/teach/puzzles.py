"""Puzzles (a generated mid-game position: find a safe cell) and no-guess games whose board
needs exactly a chosen level."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from app.errors import InputError
from app.heavy import run_heavy
from app.lru import Lru
from app.play.params import PRESETS
from app.teach.facts import ids, level_text, verdict_mark
from app.teach.grid import ARow
from app.teach.query import parse_count, parse_int_arg
from devil.analysis import Verdict
from devil.board import Board, Cell
from devil.budget import Budget, BudgetExceeded, metering
from devil.game import Game, GameParams, Move
from devil.position import Position
from devil.rules import Count, Rules
from devil.teach.levels import grade
from devil.teach.proof import prove
from devil.teach.puzzles import Puzzle, make_puzzle

LEVEL_PRESETS = ("beginner", "intermediate", "expert")


LEVEL_GAME_TRIES = 5000
PUZZLE_TRIES = 5000
GRADE_SECONDS = 2.0
"""The engine budget of grading one answer (its proof)."""

GENERATION_SECONDS = 4.0
"""Puzzles and boards by level give up after this long (rare levels: level 3 on beginner)."""


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


def parse_preset(text: str | None) -> str:
    preset = (text or "beginner").strip().lower()
    if preset not in PRESETS:
        raise InputError("preset", f"preset must be one of {', '.join(PRESETS)}, not {text!r}")
    return preset


def graded(
    view: PuzzleView,
    position: Position,
    count: Count,
    answer: Cell,
    known: frozenset[Cell],
    level: int,
) -> PuzzleView:
    board = position.board
    if not position.is_covered(answer) or answer in known:
        message = "Pick a covered, unflagged cell."
        return replace(view, answer=position.where(answer), message=message)
    try:
        with metering(Budget(seconds=GRADE_SECONDS).start()):
            proof = prove(position, answer, count, known)
    except BudgetExceeded:
        message = f"Too hard to grade {position.where(answer)} within the time limit."
        return replace(view, answer=position.where(answer), message=message)
    highlight = {
        "hl-target": ids(board, [answer], "a-"),
        "hl-number": ids(board, proof.numbers, "a-"),
        verdict_mark(proof.verdict): ids(board, [answer], "a-"),
    }
    if proof.known:
        highlight["hl-known"] = ids(board, proof.known, "a-")
    correct = proof.verdict is Verdict.SAFE
    if correct:
        if proof.level <= level:
            message = f"Right: {position.where(answer)} is safe, a level {proof.level} deduction."
        else:
            message = (
                f"Right: {position.where(answer)} is safe, but it takes level {proof.level}; "
                f"a level {level} deduction was available."
            )
    elif proof.verdict is Verdict.MINE:
        message = f"No: {position.where(answer)} is a mine."
    else:
        message = f"No: {position.where(answer)} could be a mine. It is a guess."
    return replace(
        view,
        answer=position.where(answer),
        correct=correct,
        verdict=proof.verdict.value,
        answer_level=level_text(proof.level),
        steps=proof.steps,
        message=message,
        highlight=highlight,
    )


def parse_level_choice(values: Mapping[str, str]) -> tuple[str, Count, int]:
    """Preset name, count rule and level from a query or form;
    level 4 (the total count) exists only under the counted rule."""
    preset = parse_preset(values.get("preset"))
    count = parse_count(values.get("count"))
    top = 4 if count is Count.COUNTED else 3
    return preset, count, parse_int_arg(values.get("level"), "level", 1, top, 2)


_puzzles: Lru[tuple[str, int, Count, int], tuple[Puzzle | None]] = Lru(64)


def generate_puzzle(preset: str, level: int, count: Count, seed: int) -> Puzzle | None:
    """A new puzzle of a preset, level, rule and seed (None when none turned up in
    ``GENERATION_SECONDS``): plain values in and out, for a heavy-work child."""
    h, w, m = PRESETS[preset]
    return make_puzzle(
        Board(h, w),
        m,
        level,
        count,
        random.Random(seed),
        max_tries=PUZZLE_TRIES,
        deadline=time.monotonic() + GENERATION_SECONDS,
    )


def find_puzzle(preset: str, level: int, count: Count, seed: int) -> Puzzle | None:
    """The puzzle of a preset, level, rule and seed, generated in a heavy-work child
    (``app.heavy``) and cached."""

    def generate() -> tuple[Puzzle | None]:
        args = (preset, level, count, seed)
        return (run_heavy(generate_puzzle, args, GENERATION_SECONDS),)

    return _puzzles.get_or_compute((preset, level, count, seed), generate)[0]


def level_params(preset: str, level: int, count: Count) -> GameParams | None:
    """A no-guess game of ``preset`` whose board needs exactly ``level`` once its centre is
    opened (None when none turned up in ``GENERATION_SECONDS``)."""
    h, w, m = PRESETS[preset]
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
            return params
    return None
