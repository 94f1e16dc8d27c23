"""The hint ladder of a running game: one question per rung, each answer from the visible
position only (the solver's verdicts on it are public knowledge)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from app.heavy import run_heavy
from app.lru import Lru
from app.play.loaded import LoadedGame
from app.settings import settings
from app.teach.facts import confirmed_flags, easiest_proof, ids, level_text, verdict_mark
from devil import solver
from devil.analysis import Verdict
from devil.board import Board, Cell
from devil.budget import Budget, BudgetExceeded, metering
from devil.game import Status
from devil.position import Position
from devil.rules import Count, Rules
from devil.teach.proof import Proof
from devil.teach.wording import sentence

RUNGS = (
    "Is there a safe cell at all?",
    "Where should I look?",
    "Which cell?",
    "Why is it safe?",
)
"""The hint ladder, one question per rung."""


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
    graph: bool = False
    """A graph board: cells are named by label, never by row and column."""

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
    undecided: int = 0
    """Covered cells the engine budget left without a verdict (0: the answer is complete)."""


HINT_SECONDS = 2.0
"""The engine budget of one position's hints (verdicts, then up to ``PROOF_CANDIDATES``
proofs): a hint on a huge board says what it could not decide instead of running on."""


def hint_facts_within(position: Position, count: Count, seconds: float) -> _HintFacts:
    """What the ladder says about ``position``, within ``seconds`` of engine work."""
    if next(position.revealed_cells(), None) is None:
        return _HintFacts(frozenset(), None, frozenset(), first_click=True)
    meter = Budget(seconds=seconds).start()
    verdicts = solver.classify(position, count, budget=Budget(seconds=seconds))
    safe = verdicts.safe_cells()
    known = confirmed_flags(position, verdicts)
    proof = None
    if safe:
        try:
            with metering(Budget(seconds=max(meter.remaining() or 0.0, 0.001)).start()):
                proof = easiest_proof(position, count, safe, known)
        except BudgetExceeded:
            proof = None
    return _HintFacts(safe, proof, known, undecided=len(verdicts.undecided))


_facts: Lru[tuple[str, int, bytes], _HintFacts] = Lru(256)


def hint_facts(loaded: LoadedGame) -> _HintFacts:
    """The hint facts of a game's position: in a heavy-work child (``app.heavy``), within
    ``HINT_SECONDS``, cached per position."""
    game = loaded.game
    key = (loaded.id, len(game.moves), game.position.grid)
    seconds = settings().hint_seconds
    args = (game.position, game.params.rules.count, seconds)
    return _facts.get_or_compute(key, lambda: run_heavy(hint_facts_within, args, seconds))


def ladder_top(facts: _HintFacts) -> int:
    return len(RUNGS) if facts.safe else 1


def region_of(board: Board, cell: Cell, radius: int = 2) -> tuple[list[Cell], str]:
    """The cells around ``cell`` (a window of rows and columns; on a graph board, the cells
    within ``radius`` steps) and how to say where they are without naming ``cell``."""
    if board.graph is not None:
        near = {cell}
        edge = [cell]
        for _ in range(radius):
            edge = [n for e in edge for n in board.neighbours(e) if n not in near]
            near.update(edge)
        return sorted(near), f"the {len(near)} highlighted cells"
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
    position: Position, rules: Rules, facts: _HintFacts, rung: int
) -> tuple[list[HintAnswer], dict[str, list[str]]]:
    """The answers to the first ``rung`` questions, and what to highlight on the board."""
    board = position.board
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
        elif facts.undecided:
            answers.append(
                HintAnswer(
                    RUNGS[0],
                    "Too hard to tell within the time limit: no provably safe cell turned up, "
                    f"and {facts.undecided} covered cells were left undecided.",
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
        shown = text if board.graph is not None else f"{text} (highlighted)"
        answers.append(HintAnswer(RUNGS[1], f"Look at {shown}."))
        highlight["hl-region"] = ids(board, region)
    if rung >= 3:
        said = sentence(position.the_cell(proof.cell))
        answers.append(HintAnswer(RUNGS[2], f"{said} is safe."))
        highlight.pop("hl-region", None)
        highlight["hl-target"] = ids(board, [proof.cell])
        highlight[verdict_mark(Verdict.SAFE)] = ids(board, [proof.cell])
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
    """The panel: the rungs climbed since the last move (``loaded.ladder``), for the player of
    a running game only."""
    game = loaded.game
    if game.status is not Status.PLAYING or not mover:
        return None
    rung = loaded.ladder
    graph = game.params.graph is not None
    if rung == 0:
        return HintView(loaded.id, 0, (), RUNGS[0], loaded.hints, mover, graph=graph)
    facts = hint_facts(loaded)
    top = ladder_top(facts)
    rung = min(rung, top)
    answers, highlight = hint_answers(game.position, game.params.rules, facts, rung)
    nxt = RUNGS[rung] if rung < top else None
    return HintView(
        loaded.id, rung, tuple(answers), nxt, loaded.hints, mover, highlight, graph=graph
    )
