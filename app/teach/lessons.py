"""The lessons of an ended game: after a loss, what was provably safe when the player
clicked (and one proof); after a win, how hard the board was."""

from __future__ import annotations

import json
from dataclasses import dataclass

from app.play.loaded import LoadedGame
from app.play.service import GameService
from app.teach.facts import confirmed_flags, easiest_proof, ids, level_text, names
from devil import solver
from devil.analysis import Verdict
from devil.board import Cell
from devil.game import Game, MoveKind
from devil.position import Position
from devil.rules import Count
from devil.teach.levels import grade
from devil.teach.proof import LEVEL_NAMES


@dataclass(frozen=True)
class LossLesson:
    """What the player could have done at the moment of the losing click."""

    safe_count: int
    safe_names: str
    proof_cell: str
    proof_level: str
    steps: tuple[str, ...]
    highlight: dict[str, list[str]]
    counted_note: str = ""
    """Under the classic rule: what counting the total would have said about the click."""

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
    note = counted_note(game, position)
    if not safe:
        return LossLesson(0, "", "", "", (), highlight, note)
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
        note,
    )


COUNTED_NOTE_CELLS = 2500
"""Up to this many cells the loss note asks the counted rule about the click; on bigger boards
it only says that the classic rule ignores the total (the question is not worth its time)."""


def counted_note(game: Game, before: Position) -> str:
    """A classic-rule loss, said plainly: the classic rule ignores the total, and what the
    counted rule (the same position with the total as a clue) says about the clicked cell.
    Empty under the counted rule or without a loss."""
    if game.params.rules.count is not Count.CLASSIC or game.loss is None:
        return ""
    total = game.params.mines
    verdict = None
    if before.board.size <= COUNTED_NOTE_CELLS:
        verdict = solver.classify(before, Count.COUNTED).verdicts.get(game.loss)
    where = before.where(game.loss)
    shown = len(game.witness or ())
    layout = (
        f"The devil's layout has {plural(shown, 'mine')} while the game has {total}: "
        if shown != total
        else ""
    )
    opening = f"{layout}under the classic rule only the numbers count, not the total."
    if verdict is Verdict.SAFE:
        said = (
            f"With the total of {total} counted (the counted rule), your click on {where} "
            "was provably safe."
        )
    elif verdict is Verdict.MINE:
        said = f"With the total of {total} counted, {where} was a mine all the same."
    elif verdict is Verdict.EITHER:
        said = f"With the total of {total} counted, {where} could still have been a mine."
    else:
        said = "The counted rule (the total as a clue too) is a choice on the new-game form."
    return f"{opening[:1].upper()}{opening[1:]} {said}"


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


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
