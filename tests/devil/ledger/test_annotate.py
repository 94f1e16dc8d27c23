"""Annotations checked against the brute-force oracle on small real games.

Games are played by a random player (reveals, flags, unflags and chords on random cells) under
every rule set; each annotation is then checked against ``devil.oracle`` on the position the
player saw: a proof's cells are safe in every layout, a forced guess had no safe cell and its
``p_safe`` equals the oracle's exact fraction, a fatal move really lost, and a proof's level is
the level ``devil.teach.proof.prove`` gives with the flags the oracle confirms as known mines.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from devil import oracle
from devil.analysis import Verdict
from devil.board import Board
from devil.errors import IllegalMove, InvalidMove
from devil.game import Game, GameParams, Move, MoveKind, Status
from devil.ledger.annotate import (
    ANNOTATION_VERSION,
    AnnotationError,
    AnnotationTooLong,
    MoveJudgement,
    annotate,
    annotate_game,
    final_board,
)
from devil.ledger.board_replay import replay_on_board
from devil.ledger.metrics import bbbv
from devil.position import COVERED, FLAG, Position
from devil.rules import Count, Mercy, Rules
from devil.teach.proof import prove
from tests.helpers.games import random_game, small_games
from tests.helpers.strategies import profile


def confirmed_flags(position: Position, verdicts: dict[int, Verdict]) -> list[int]:
    return [
        c
        for c in position.board.cells()
        if position.grid[c] == FLAG and verdicts[c] is Verdict.MINE
    ]


@profile()
@given(small_games())
def test_every_annotation_agrees_with_the_oracle(game: Game) -> None:
    count = game.params.rules.count
    notes = annotate_game(game).moves
    assert [n.move for n in notes] == list(game.moves)
    for note in notes:
        before = game.at(note.n - 1).position
        after = game.at(note.n).position
        board = before.board
        cell = board.cell(note.move.row, note.move.col)
        if note.move.kind in (MoveKind.FLAG, MoveKind.UNFLAG):
            assert note.judgement is MoveJudgement.FLAG
            assert note.level is None and note.p_safe is None and note.opened == ()
            continue
        opened = sorted(c for c in board.cells() if before.grid[c] != after.grid[c])
        assert list(note.opened) == opened
        if note.n == 1 or not any(before.number(c) is not None for c in board.cells()):
            assert note.judgement is MoveJudgement.FORCED and note.p_safe == 1 and note.bits == 0
            continue
        verdicts = dict(oracle.classify(before, count).verdicts)
        targets = (
            [cell]
            if note.move.kind is MoveKind.REVEAL
            else [n for n in board.neighbours(cell) if before.grid[n] == COVERED]
        )
        if note.judgement is MoveJudgement.PROOF:
            assert all(verdicts[t] is Verdict.SAFE for t in targets)
            known = confirmed_flags(before, verdicts)
            levels = [prove(before, t, count, known_mines=known).level for t in targets]
            assert note.level == max(levels)
        elif note.judgement is MoveJudgement.FORCED:
            assert game.params.rules.mercy is Mercy.FAIR
            assert note.n < len(game.moves) or game.status is not Status.LOST
            unsafe = [t for t in targets if verdicts[t] is not Verdict.SAFE]
            if note.move.kind is MoveKind.REVEAL:
                assert Verdict.SAFE not in verdicts.values()
            p = oracle.probabilities(before, count)[unsafe[0]]
            assert note.p_safe == 1 - p
            assert isinstance(note.p_safe, Fraction)
            assert note.bits == pytest.approx(-math.log2(note.p_safe))
        elif note.judgement is MoveJudgement.FATAL:
            assert note.n == len(game.moves) and game.status is Status.LOST
            assert game.loss in targets
            assert verdicts[game.loss] is not Verdict.SAFE
            if note.move.kind is MoveKind.REVEAL:
                assert (
                    verdicts[cell] is Verdict.MINE
                    or game.params.rules.mercy is Mercy.STRICT
                    or Verdict.SAFE in verdicts.values()
                )
        else:
            pytest.fail(f"a Mine Devil game cannot have the judgement {note.judgement}")


@profile()
@given(small_games())
def test_replay_on_the_final_board_shows_what_the_game_showed(game: Game) -> None:
    layout = final_board(game)
    if layout is None:
        return
    steps = list(replay_on_board(game.params.board(), game.params.mines, layout, game.moves))
    for step in steps:
        assert step.after == game.at(step.n).position
    if steps:
        assert steps[-1].won == (game.status is Status.WON)
        assert (steps[-1].lost_at is not None) == (game.status is Status.LOST)


@profile()
@given(small_games())
def test_luck_ledger_adds_up(game: Game) -> None:
    annotation = annotate_game(game, seconds=12.5, hints=2)
    bits = [n.bits for n in annotation.moves if n.bits is not None]
    assert annotation.bits == pytest.approx(sum(bits))
    data = annotation.to_json()
    assert data["version"] == ANNOTATION_VERSION
    assert set(data) >= {"moves", "bits", "metrics"}
    assert set(data["metrics"]) == {
        "3bv", "solved_3bv", "3bv_per_s", "clicks", "efficiency", "seconds", "hints", "max_level"
    }  # fmt: skip
    for move in data["moves"]:
        assert set(move) >= {"n", "kind", "row", "col", "judgement", "level", "p_safe", "bits",
                             "opened"}  # fmt: skip
        assert (move["level"] is not None) == (move["judgement"] == "proof")
        assert (move["p_safe"] is not None) == (move["judgement"] in ("forced", "guess"))
    assert data["metrics"]["clicks"] == len(game.moves)
    assert data["metrics"]["hints"] == 2


@st.composite
def imported_games(draw: st.DrawFn) -> tuple[GameParams, frozenset[int], list[Move]]:
    """A fixed board (no devil) and reveals a random player made on it until the end."""
    height, width = draw(st.integers(4, 5)), draw(st.integers(4, 5))
    board = Board(height, width)
    cells = st.sampled_from(list(board.cells()))
    layout = frozenset(draw(st.sets(cells, max_size=height * width // 3)))
    params = GameParams(height, width, len(layout), no_guess=False)
    rng = random.Random(draw(st.integers(0, 10**6)))
    order = list(board.cells())
    rng.shuffle(order)
    moves: list[Move] = []
    steps_cells: set[int] = set()
    for c in order:
        if c in steps_cells:
            continue
        moves.append(Move.reveal(*board.coord(c)))
        last = list(replay_on_board(board, len(layout), layout, moves))[-1]
        steps_cells.update(c for c in board.cells() if last.after.grid[c] != COVERED)
        if last.won or last.lost_at is not None:
            break
    return params, layout, moves


@profile()
@given(imported_games())
def test_guesses_on_an_imported_board_survive_and_are_named(
    game: tuple[GameParams, frozenset[int], list[Move]],
) -> None:
    """Without the devil a lucky guess lives: ``guess`` when a safe cell existed, with the
    oracle's exact odds; ``fatal`` exactly when a mine was hit."""
    params, layout, moves = game
    notes = annotate(params, moves, layout, devil=False, first_free=False).moves
    steps = list(replay_on_board(params.board(), len(layout), layout, moves))
    for note, step in zip(notes, steps, strict=True):
        cell = params.board().cell(note.move.row, note.move.col)
        assert (note.judgement is MoveJudgement.FATAL) == (step.lost_at is not None)
        if note.judgement is MoveJudgement.FATAL:
            continue
        verdicts = oracle.classify(step.before, Count.CLASSIC).verdicts
        if note.judgement is MoveJudgement.PROOF:
            assert verdicts[cell] is Verdict.SAFE
            continue
        assert note.judgement in (MoveJudgement.GUESS, MoveJudgement.FORCED)
        assert verdicts[cell] is Verdict.EITHER
        assert (note.judgement is MoveJudgement.GUESS) == (Verdict.SAFE in verdicts.values())
        assert note.p_safe == 1 - oracle.probabilities(step.before, Count.CLASSIC)[cell]


def test_a_known_position_gets_known_judgements() -> None:
    """A 1x12 strip with one mine at the end: the first click opens every safe cell."""
    params = GameParams(1, 12, 1, no_guess=False)
    layout = frozenset({11})
    moves = [Move.flag(0, 11), Move.reveal(0, 0)]
    annotation = annotate(params, moves, layout)
    flag, first = annotation.moves
    assert first.judgement is MoveJudgement.FORCED and first.p_safe == 1
    assert first.opened == tuple(range(11))
    assert flag.judgement is MoveJudgement.FLAG
    assert annotation.metrics.bbbv == 1
    assert annotation.metrics.clicks == 2
    assert annotation.metrics.efficiency == 0.5


def test_a_confirmed_flag_makes_a_one_number_proof() -> None:
    """Mines in the top corners of a 4x4 board; the first click opens the bottom three rows.
    Row 0's middle cells need two numbers, or one number once its corner mine is flagged."""
    params = GameParams(4, 4, 2, no_guess=False)
    board = params.board()
    layout = frozenset({board.cell(0, 0), board.cell(0, 3)})
    unflagged = annotate(params, [Move.reveal(3, 0), Move.reveal(0, 1)], layout).moves
    assert unflagged[1].judgement is MoveJudgement.PROOF and unflagged[1].level == 2
    moves = [Move.reveal(3, 0), Move.flag(0, 0), Move.flag(0, 3), Move.reveal(0, 1)]
    notes = annotate(params, [*moves, Move.reveal(0, 2)], layout).moves
    J = MoveJudgement
    assert [n.judgement for n in notes] == [J.FORCED, J.FLAG, J.FLAG, J.PROOF, J.PROOF]
    assert notes[3].level == notes[4].level == 1


def test_illegal_moves_name_the_move_number_and_cell() -> None:
    params = GameParams(4, 4, 1, no_guess=False)
    corner = frozenset({0})
    with pytest.raises(
        IllegalMove, match=r"move 2 \(flag 3 3\): the cell is already revealed"
    ) as e:
        two = GameParams(4, 4, 2, no_guess=False)
        annotate(two, [Move.reveal(3, 3), Move.flag(3, 3)], frozenset({0, 5}), devil=False)
    assert e.value.coord == (3, 3)
    with pytest.raises(InvalidMove, match=r"move 1 \(reveal 5 0\): row 5, col 0 is off the 4x4"):
        annotate(params, [Move.reveal(5, 0)], corner)
    with pytest.raises(IllegalMove, match=r"move 2 \(reveal 0 0\): the game is already over"):
        annotate(params, [Move.reveal(3, 3), Move.reveal(0, 0)], corner, devil=False)


def test_the_budget_stops_long_work_and_names_the_move() -> None:
    params = GameParams(16, 30, 99, seed=3)
    game = random_game(params, random.Random(3), max_moves=30)
    layout = final_board(game)
    assert layout is not None
    with pytest.raises(AnnotationTooLong) as e:
        annotate(params, game.moves, layout, max_seconds=0.0)
    assert e.value.move == 1


def lattice_replay(size: int) -> tuple[GameParams, frozenset[int], list[Move]]:
    """Reveals that build the numbers lattice of issue 8 (numbers on even rows and columns,
    every other cell covered): positions whose analysis needs real search."""
    numbered = [(r, c) for r in range(0, size, 2) for c in range(0, size, 2)]
    board = Board(size, size)
    others = [c for c in board.cells() if board.coord(c) not in set(numbered)]
    layout = frozenset(others[i] for i in range(0, len(others), 3))  # fixed: 1 in 3
    params = GameParams(size, size, len(layout), no_guess=False)
    return params, layout, [Move.reveal(r, c) for r, c in numbered]


def test_the_budget_reaches_inside_a_move(monkeypatch: pytest.MonkeyPatch) -> None:
    """The deadline is not only checked between moves: every analysis runs under it, so one
    hard position (a lattice in an imported file) stops at the deadline, not after it."""
    from devil.budget import Budget
    from devil.ledger import annotate as module

    params, layout, moves = lattice_replay(10)
    complete = annotate(params, moves, layout, devil=False, first_free=False)
    assert len(complete.moves) == len(moves)  # fine without the tiny budget
    monkeypatch.setattr(module._Judge, "budget", lambda self: Budget(nodes=1))
    with pytest.raises(AnnotationTooLong, match="stopped at move") as e:
        annotate(params, moves, layout, devil=False, first_free=False, max_seconds=1000.0)
    assert e.value.move < len(moves)


def test_a_board_that_does_not_explain_its_numbers_is_an_error_naming_the_move() -> None:
    """A lying file: counted rule, a layout of 2 mines, a header of 5. No traceback, no
    InconsistentPosition leaking out: an AnnotationError (a ValueError) naming the move."""
    params = GameParams(4, 4, 5, rules=Rules(count=Count.COUNTED), no_guess=False)
    layout = frozenset({0, 3})  # row 0, cols 0 and 3
    moves = [Move.reveal(3, 0), Move.reveal(0, 1)]
    with pytest.raises(AnnotationError, match=r"move 2 \(reveal 0 1\): the board does not"):
        annotate(params, moves, layout)


def test_3bv_agrees_with_ms_toollib() -> None:
    ms = pytest.importorskip("ms_toollib")
    rng = random.Random(11)
    for _ in range(30):
        h, w = rng.randint(2, 12), rng.randint(2, 12)
        board = Board(h, w)
        layout = frozenset(rng.sample(range(h * w), rng.randint(0, h * w // 3)))
        grid = [[-1 if board.cell(r, c) in layout else 0 for c in range(w)] for r in range(h)]
        numbers = ms.cal_board_numbers(grid)
        assert bbbv(board, layout) == ms.cal_bbbv(numbers)


def test_a_flag_the_count_proved_can_make_the_count_unnecessary() -> None:
    """Counted 4x4, 5 mines, the corner flagged. Before row 2, col 0 is opened the numbers
    alone do not decide it (classic rule: either), the count proves the flagged corner a mine,
    and with that mine known three numbers decide the cell: level 3, as ``prove`` says."""
    params = GameParams(4, 4, 5, rules=Rules(Count.COUNTED, Mercy.FAIR), no_guess=False)
    board = params.board()
    layout = frozenset(board.cell(r, c) for r, c in [(0, 0), (0, 2), (0, 3), (1, 0), (3, 0)])
    moves = [Move.flag(0, 0), Move.reveal(2, 2), Move.reveal(2, 0)]
    notes = annotate(params, moves, layout).moves
    before = list(replay_on_board(board, 5, layout, moves))[-1].before
    cell, corner = board.cell(2, 0), board.cell(0, 0)
    assert oracle.classify(before, Count.CLASSIC).verdicts[cell] is Verdict.EITHER
    assert oracle.classify(before, Count.COUNTED).verdicts[corner] is Verdict.MINE
    assert prove(before, cell, Count.COUNTED, known_mines=[corner]).level == 3
    assert notes[2].judgement is MoveJudgement.PROOF and notes[2].level == 3
