"""The lessons of an ended game: after a loss, what was provably safe when the player
clicked (and one proof); after a win, how hard the board was."""

from __future__ import annotations

import json
from dataclasses import dataclass

from app.play.loaded import LoadedGame
from app.play.service import GameService
from app.teach.facts import confirmed_flags, easiest_proof, ids, level_text, names
from devil import solver
from devil.board import Cell
from devil.game import Game, MoveKind
from devil.levels import grade
from devil.proof import LEVEL_NAMES


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


def loss_lesson(service: GameService, loaded: LoadedGame) -> LossLesson:
    game = loaded.game
    before = service.replay(loaded.id, len(game.moves) - 1) if game.moves else game
    position = before.position
    board = position.board
    count = game.params.rules.count
    verdicts = solver.classify(position, count)
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
        names(position, safe),
        position.where(proof.cell),
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
