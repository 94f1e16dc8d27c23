"""The game engine: first click, cascade, flags, chord, the devil rule, mercy, replay.

Verdicts are checked against the brute-force oracle (``devil.oracle``) on small boards,
and witnesses against the board's numbers directly; never against the solver itself.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from devil import oracle
from devil.analysis import Layout, Verdict
from devil.board import Board, Cell, Topology
from devil.errors import GameOver, IllegalMove, InvalidMove
from devil.game import Game, GameParams, Move, MoveKind, ParamsError, Status
from devil.position import Position
from devil.rules import Count, Mercy, Rules
from tests.helpers.games import covered_zero_neighbours
from tests.helpers.paths import ROOT
from tests.helpers.strategies import boards, profile

ZERO = ord("0")


def numbers_match(position: Position, layout: Iterable[Cell]) -> bool:
    """Every revealed number equals its mined neighbours, and no mine is revealed."""
    mined = frozenset(layout)
    board = position.board
    for cell in board.cells():
        value = position.number(cell)
        if value is None:
            continue
        if cell in mined:
            return False
        if sum(1 for n in board.neighbours(cell) if n in mined) != value:
            return False
    return True


def verdicts_of(position: Position, count: Count = Count.CLASSIC) -> dict[Cell, Verdict]:
    """Exact verdicts: the oracle when the edge is small enough, else the solver's classify.

    Used to choose moves; assertions about the devil rule itself use ``oracle_only``.
    """
    try:
        return dict(oracle.classify(position, count).verdicts)
    except ValueError as e:
        if "oracle enumerates" not in str(e):
            raise
    from devil.solver import classify

    return dict(classify(position, count).verdicts)


def made_game(params: GameParams, position: Position, layout: Layout) -> Game:
    """A game in the middle: ``position`` shown, ``layout`` hidden, no moves yet."""
    assert numbers_match(position, layout)
    revealed = sum(1 for _ in position.revealed_cells())
    return Game(params, position, layout, revealed_count=revealed)


def play_safe_until_stuck(game: Game, count: Count) -> Game:
    """Reveal every exactly-safe cell, round after round, until the game ends or none is."""
    board = game.params.board()
    while game.status is Status.PLAYING:
        verdicts = verdicts_of(game.position, count)
        safe = sorted(c for c, v in verdicts.items() if v is Verdict.SAFE)
        if not safe:
            break
        for cell in safe:  # still safe after other reveals: verdicts only sharpen
            if game.status is Status.PLAYING and game.position.grid[cell] == ord("."):
                game = game.play(Move.reveal(*board.coord(cell)))
                assert game.status is not Status.LOST
    return game


# -- parameters ---------------------------------------------------------------------------


def test_params_defaults_are_expert() -> None:
    p = GameParams()
    assert (p.height, p.width, p.mines) == (16, 30, 99)
    assert p.board() == Board(16, 30)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"height": 0}, "board size 0x30"),
        ({"width": -2}, "board size 16x-2"),
        ({"mines": -1}, "mines -1 is negative"),
        (
            {"height": 9, "width": 9, "mines": 73},
            "73 mines do not fit on the 9x9 board.*at most 72",
        ),
        ({"height": 5, "width": 5, "topology": Topology.HEX, "mines": 19}, "at most 18"),
        ({"height": 3, "width": 3, "holes": frozenset({9})}, "hole 9 lies outside"),
        ({"mines": 2.5}, "mines must be a whole number"),
        ({"no_guess": "yes"}, "no_guess must be true or false"),
        ({"height": 3000, "width": 3000}, "more than"),
        ({"holes": frozenset({"a"})}, "hole must be a whole number, not 'a'"),
        ({"version": 0}, "version must be 1 to 2, not 0"),
        ({"version": "2"}, "version must be a whole number"),
    ],
)
def test_params_reject_bad_values_by_name(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ParamsError, match=message):
        GameParams(**kwargs)  # type: ignore[arg-type]


def test_too_many_mines_explains_the_first_click_safe_zone() -> None:
    # issue 7: "mines out of range" must say why: the first click and its neighbours stay free
    with pytest.raises(ParamsError) as info:
        GameParams(height=9, width=9, mines=73)
    assert str(info.value) == (
        "73 mines do not fit on the 9x9 board: the first click and its neighbours (up to 9 "
        "cells) are always kept free of mines, so its 81 cells hold at most 72 mines"
    )
    with pytest.raises(ParamsError, match=r"neighbours \(up to 7 cells\).*at most 18 mines"):
        GameParams(height=5, width=5, topology=Topology.HEX, mines=19)


def test_params_round_trip_through_a_dict() -> None:
    p = GameParams(
        8, 10, 12, Topology.HEX, frozenset({3, 17}), Rules(Count.COUNTED, Mercy.FAIR), False, 77
    )
    d = p.to_dict()
    assert GameParams.from_dict(d) == p
    import json

    assert GameParams.from_dict(json.loads(json.dumps(d))) == p
    assert GameParams.from_dict({}) == GameParams()


@pytest.mark.parametrize(
    ("d", "message"),
    [
        ({"colour": "red"}, "unknown game parameter 'colour'"),
        ({"topology": "cube"}, "unknown topology 'cube'"),
        ({"count": "maybe"}, "unknown count rule 'maybe'"),
        ({"mercy": "kind"}, "unknown mercy rule 'kind'"),
        ({"holes": 4}, "holes must be a list"),
        ({"height": "9"}, "height must be a whole number"),
    ],
)
def test_params_from_dict_names_the_bad_key(d: dict[str, object], message: str) -> None:
    with pytest.raises(ParamsError, match=message):
        GameParams.from_dict(d)


def test_params_repr_hides_the_seed() -> None:
    assert "12345" not in repr(GameParams(seed=12345))


# -- moves --------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["reveal 3 4", "flag 0 0", "unflag 15 29", "chord 7 1"])
def test_moves_round_trip(text: str) -> None:
    move = Move.parse(text)
    assert str(move) == text
    assert Move.parse(str(move)) == move
    assert eval(repr(move)) == move


def test_move_parse_is_lenient_about_spacing_and_case() -> None:
    assert Move.parse("  REVEAL   3\t4 ") == Move(MoveKind.REVEAL, 3, 4)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("reveal 3", "expected 'KIND ROW COL'"),
        ("", "expected 'KIND ROW COL'"),
        ("jump 1 2", "unknown kind 'jump'"),
        ("reveal -1 2", "row '-1' is not a whole number"),
        ("reveal 1 x", "column 'x' is not a whole number"),
        ("reveal 1 2 3", "expected 'KIND ROW COL'"),
    ],
)
def test_move_parse_errors_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(InvalidMove, match=message):
        Move.parse(text)


def test_moves_off_the_board_or_on_holes_are_invalid() -> None:
    params = GameParams(5, 6, 3, holes=frozenset({Board(5, 6).cell(0, 5)}), no_guess=False)
    game = Game.new(params)
    with pytest.raises(InvalidMove, match=r"row 5, col 0 is off the 5x6 board"):
        game.play(Move.reveal(5, 0))
    with pytest.raises(InvalidMove, match=r"row 0, col 5 is a hole"):
        game.play(Move.flag(0, 5))
    with pytest.raises(InvalidMove, match="must be a whole number >= 0"):
        Move(MoveKind.REVEAL, -1, 0)


# -- first click and cascade --------------------------------------------------------------


@pytest.mark.parametrize("topology", list(Topology.grids()))
@pytest.mark.parametrize("no_guess", [False, True])
def test_first_click_is_safe_and_opens_a_zero(topology: Topology, no_guess: bool) -> None:
    for seed in range(6):
        params = GameParams(9, 9, 10, topology, no_guess=no_guess, seed=seed)
        r, c = (seed * 3) % 9, (seed * 5) % 9
        game = Game.new(params).play(Move.reveal(r, c))
        board = params.board()
        cell = board.cell(r, c)
        assert game.status is not Status.LOST
        assert game.position.number(cell) == 0
        assert game.layout is not None and len(game.layout) == 10
        assert not game.layout & board.neighbourhood(cell)
        assert numbers_match(game.position, game.layout)
        assert covered_zero_neighbours(game.position) == []
        assert game.revealed_count == sum(1 for _ in game.position.revealed_cells())
        assert game.position.mines == 10


def test_layout_is_drawn_from_the_seed() -> None:
    a = Game.new(GameParams(seed=1, no_guess=False)).play(Move.reveal(8, 8))
    b = Game.new(GameParams(seed=1, no_guess=False)).play(Move.reveal(8, 8))
    c = Game.new(GameParams(seed=2, no_guess=False)).play(Move.reveal(8, 8))
    assert a.layout == b.layout != c.layout


def test_cascade_on_a_million_cells_does_not_recurse() -> None:
    params = GameParams(1000, 1000, 10, no_guess=False, seed=5)
    game = Game.new(params).play(Move.reveal(500, 500))
    # ten scattered mines cannot wall anything off: one click opens every safe cell
    assert game.status is Status.WON
    assert game.revealed_count == 1_000_000 - 10
    assert game.position.grid.count(b".") == 10


def test_cascade_leaves_flags_alone() -> None:
    params = GameParams(9, 9, 10, no_guess=False, seed=3)
    flagged = Game.new(params).play(Move.flag(0, 0)).play(Move.reveal(4, 4))
    plain = Game.new(params).play(Move.reveal(4, 4))
    assert flagged.position.is_flagged(0)
    assert flagged.mines_left == 9
    if plain.position.number(0) is not None:  # the cascade reached the corner
        assert flagged.revealed_count == plain.revealed_count - 1


# -- flags --------------------------------------------------------------------------------


def test_flag_and_unflag_toggle_marks_only() -> None:
    game = Game.new(GameParams(9, 9, 10, no_guess=False)).play(Move.reveal(4, 4))
    r, c = next(game.params.board().coord(x) for x in game.position.covered_cells())
    flagged = game.play(Move.flag(r, c))
    assert flagged.position.is_flagged(flagged.params.board().cell(r, c))
    assert flagged.mines_left == 9 and flagged.flag_count == 1
    assert flagged.layout == game.layout and flagged.revealed_count == game.revealed_count
    with pytest.raises(IllegalMove, match="already flagged"):
        flagged.play(Move.flag(r, c))
    with pytest.raises(IllegalMove, match="is flagged; unflag it first"):
        flagged.play(Move.reveal(r, c))
    back = flagged.play(Move.unflag(r, c))
    assert back.position == game.position and back.mines_left == 10
    with pytest.raises(IllegalMove, match="not flagged"):
        back.play(Move.unflag(r, c))
    assert flagged.changed_cells(game) == {game.params.board().cell(r, c)}


def test_revealed_cells_cannot_be_flagged_or_revealed_again() -> None:
    game = Game.new(GameParams(9, 9, 10, no_guess=False)).play(Move.reveal(4, 4))
    with pytest.raises(IllegalMove, match=r"row 4, col 4 is already revealed"):
        game.play(Move.flag(4, 4))
    with pytest.raises(IllegalMove, match=r"row 4, col 4 is already revealed"):
        game.play(Move.reveal(4, 4))


def test_flags_before_the_first_click() -> None:
    game = Game.new(GameParams(9, 9, 10, no_guess=False)).play(Move.flag(0, 0))
    assert game.layout is None and game.mines_left == 9


# -- the devil rule -----------------------------------------------------------------------


def test_a_click_that_could_be_a_mine_loses_with_a_witness() -> None:
    params = GameParams(9, 9, 10, no_guess=False, seed=4)
    game = Game.new(params).play(Move.reveal(4, 4))
    board = params.board()
    verdicts = verdicts_of(game.position)
    risky = min(c for c, v in verdicts.items() if v is not Verdict.SAFE)
    r, c = board.coord(risky)
    lost = game.play(Move.reveal(r, c))
    assert lost.status is Status.LOST
    assert lost.loss == risky
    assert lost.witness is not None and risky in lost.witness
    assert oracle.is_consistent(game.position, lost.witness)
    assert len(lost.witness) == 10  # a witness that looks like a real board
    assert lost.position == game.position  # the losing cell stays covered
    with pytest.raises(GameOver, match="the game is lost"):
        lost.play(Move.reveal(0, 0))
    with pytest.raises(GameOver):
        lost.play(Move.flag(0, 0))


@pytest.mark.parametrize("count", [Count.CLASSIC, Count.COUNTED])
@pytest.mark.parametrize("topology", list(Topology.grids()))
def test_every_click_is_judged_like_the_oracle_says(count: Count, topology: Topology) -> None:
    """Random games: a click loses exactly when the oracle says it could be a mine."""
    rng = random.Random(f"{count.value}/{topology.value}")  # the same games in every run
    losses = wins = 0
    for seed in range(25):
        params = GameParams(6, 6, 5, topology, rules=Rules(count), no_guess=False, seed=seed)
        board = params.board()
        game = Game.new(params).play(Move.reveal(rng.randrange(6), rng.randrange(6)))
        while game.status is Status.PLAYING:
            try:
                verdicts = oracle.classify(game.position, count).verdicts
            except ValueError:
                break  # too big for the oracle: this game cannot be checked further
            cells = sorted(c for c in verdicts if not game.position.is_flagged(c))
            if rng.random() < 0.25:  # marks in between must not disturb the verdicts
                mark = rng.choice(sorted(verdicts))
                kind = MoveKind.UNFLAG if game.position.is_flagged(mark) else MoveKind.FLAG
                game = game.play(Move(kind, *board.coord(mark)))
                continue
            cell = rng.choice(cells)
            after = game.play(Move.reveal(*board.coord(cell)))
            if verdicts[cell] is Verdict.SAFE:
                assert after.status is not Status.LOST
                assert numbers_match(after.position, after.layout or ())
                assert covered_zero_neighbours(after.position, game.position) == []
            else:
                assert after.status is Status.LOST and after.loss == cell
                assert after.witness is not None and cell in after.witness
                assert oracle.is_consistent(game.position, after.witness, count)
                losses += 1
            game = after
        wins += game.status is Status.WON
    assert losses > 0


def test_winning_a_no_guess_game_by_safe_reveals() -> None:
    for count in Count:
        params = GameParams(9, 9, 10, rules=Rules(count), no_guess=True, seed=11)
        game = Game.new(params).play(Move.reveal(4, 4))
        assert game.guaranteed
        game = play_safe_until_stuck(game, count)
        assert game.status is Status.WON
        assert game.revealed_count == 81 - 10
        assert game.layout is not None
        assert set(game.position.covered_cells()) == set(game.layout)
        with pytest.raises(GameOver, match="the game is won"):
            game.play(Move.flag(0, 0))


@pytest.mark.parametrize(
    "params",
    [
        GameParams(7, 9, 8, Topology.HEX, rules=Rules(Count.COUNTED), seed=1),
        GameParams(8, 8, 9, Topology.TORUS, rules=Rules(Count.COUNTED), seed=2),
        GameParams(7, 8, 6, holes=frozenset({9, 10, 17, 18, 40}), seed=3),
    ],
    ids=["hex", "torus", "holes"],
)
def test_other_topologies_play_to_the_end(params: GameParams) -> None:
    first = params.board().coord(params.board().size // 2 + 2)
    game = Game.new(params).play(Move.reveal(*first))
    assert game.layout is not None and not game.layout & params.holes
    assert numbers_match(game.position, game.layout)
    game = play_safe_until_stuck(game, params.rules.count)
    if game.guaranteed:
        assert game.status is Status.WON
    assert numbers_match(game.position, game.layout or ())


def test_big_boards_use_perturbation_and_stay_clearable() -> None:
    params = GameParams(40, 40, 250, rules=Rules(Count.COUNTED), no_guess=True, seed=6)
    game = Game.new(params).play(Move.reveal(20, 20))
    assert game.guaranteed
    assert game.layout is not None and len(game.layout) == 250
    game = play_safe_until_stuck(game, Count.COUNTED)
    assert game.status is Status.WON


def test_no_guess_is_skipped_on_huge_boards_and_said_so() -> None:
    params = GameParams(101, 100, 1000, no_guess=True, seed=6)
    game = Game.new(params).play(Move.reveal(50, 50))
    assert not game.guaranteed
    plain = Game.new(GameParams(9, 9, 10, no_guess=False)).play(Move.reveal(4, 4))
    assert not plain.guaranteed


# -- chord --------------------------------------------------------------------------------


def find_chord(game: Game) -> tuple[Cell, list[Cell]] | None:
    """A number whose oracle-proven mines equal its value and that has other covered cells."""
    board = game.params.board()
    verdicts = verdicts_of(game.position)
    for cell in game.position.revealed_cells():
        value = game.position.number(cell)
        near = [n for n in board.neighbours(cell) if game.position.is_covered(n)]
        mines = [n for n in near if verdicts[n] is Verdict.MINE]
        if value and len(mines) == value and len(near) > value:
            return cell, mines
    return None


def test_chord_reveals_the_other_neighbours() -> None:
    for seed in range(40):
        params = GameParams(9, 9, 10, no_guess=False, seed=seed)
        board = params.board()
        game = Game.new(params).play(Move.reveal(4, 4))
        found = find_chord(game)
        if found is None:
            continue
        cell, mines = found
        for m in mines:
            game = game.play(Move.flag(*board.coord(m)))
        after = game.play(Move.chord(*board.coord(cell)))
        assert after.status is not Status.LOST
        assert all(
            not after.position.is_covered(n) or after.position.is_flagged(n)
            for n in board.neighbours(cell)
        )
        assert after.moves[-1] == Move.chord(*board.coord(cell))
        assert numbers_match(after.position, after.layout or ())
        changed = after.changed_cells(game)
        assert changed and all(after.position.number(c) is not None for c in changed)
        return
    pytest.fail("no chord situation found in 40 games")


def test_chord_with_a_wrong_flag_loses_on_the_first_risky_cell() -> None:
    for seed in range(60):
        params = GameParams(9, 9, 10, no_guess=False, seed=seed)
        board = params.board()
        game = Game.new(params).play(Move.reveal(4, 4))
        verdicts = verdicts_of(game.position)
        for cell in game.position.revealed_cells():
            if game.position.number(cell) != 1:
                continue
            near = [n for n in board.neighbours(cell) if game.position.is_covered(n)]
            if len(near) != 2 or any(verdicts[n] is not Verdict.EITHER for n in near):
                continue
            # a 1 with two undecided neighbours: flag one, chord -> the other could be a mine
            flagged = game.play(Move.flag(*board.coord(near[0])))
            lost = flagged.play(Move.chord(*board.coord(cell)))
            assert lost.status is Status.LOST and lost.loss == near[1]
            assert lost.witness is not None and near[1] in lost.witness
            assert oracle.is_consistent(flagged.position, lost.witness)
            return
    pytest.fail("no 1 with two undecided neighbours found")


def test_chord_needs_matching_flags() -> None:
    game = Game.new(GameParams(9, 9, 10, no_guess=False, seed=4)).play(Move.reveal(4, 4))
    board = game.params.board()
    number = next(c for c in game.position.revealed_cells() if game.position.number(c))
    r, c = board.coord(number)
    with pytest.raises(IllegalMove, match=r"has 0 flagged neighbours, not [1-8]"):
        game.play(Move.chord(r, c))
    covered = next(game.position.covered_cells())
    with pytest.raises(IllegalMove, match="is not a revealed number"):
        game.play(Move.chord(*board.coord(covered)))


# -- mercy --------------------------------------------------------------------------------


def stuck_positions(count: Count, n: int) -> list[tuple[GameParams, Position, Layout, Cell]]:
    """Positions with no provably safe cell and a clicked cell that could be safe."""
    out = []
    rng = random.Random(99 + len(count.value))
    tries = 0
    while len(out) < n and tries < 5000:
        tries += 1
        board = Board(4, 5)
        layout = frozenset(rng.sample(range(20), 4))
        grid = bytearray(b"." * 20)
        for c in rng.sample([c for c in range(20) if c not in layout], rng.randint(3, 10)):
            grid[c] = ZERO + sum(1 for x in board.neighbours(c) if x in layout)
        position = Position(board, bytes(grid), 4)
        verdicts = oracle.classify(position, count).verdicts
        if any(v is Verdict.SAFE for v in verdicts.values()):
            continue
        choices = [c for c, v in verdicts.items() if v is Verdict.EITHER and c in layout]
        if not choices:
            continue
        params = GameParams(4, 5, 4, rules=Rules(count, Mercy.FAIR), no_guess=False, seed=tries)
        out.append((params, position, layout, rng.choice(choices)))
    assert len(out) == n
    return out


@pytest.mark.parametrize("count", [Count.CLASSIC, Count.COUNTED])
def test_fair_mercy_redraws_a_consistent_layout_where_the_click_is_safe(count: Count) -> None:
    for params, position, layout, cell in stuck_positions(count, 15):
        game = made_game(params, position, layout)
        move = Move.reveal(*params.board().coord(cell))
        after = game.play(move)
        assert after.status is not Status.LOST
        assert after.layout is not None and cell not in after.layout
        assert oracle.is_consistent(position, after.layout, count)
        if oracle.classify(position, Count.COUNTED).verdict(cell).could_be_safe:
            assert len(after.layout) == params.mines  # a redraw that looks like a real board
        assert after.position.number(cell) is not None
        assert numbers_match(after.position, after.layout)
        assert not after.guaranteed
        # deterministic: the same move on the same game redraws the same layout
        assert made_game(params, position, layout).play(move) == after


def test_a_fair_mercy_redraw_says_the_board_is_no_longer_guess_free() -> None:
    for params, position, layout, cell in stuck_positions(Count.CLASSIC, 3):
        asked = replace(params, no_guess=True)
        game = Game(asked, position, layout, guaranteed=True,
                    revealed_count=sum(1 for _ in position.revealed_cells()))  # fmt: skip
        assert game.no_guess and game.no_guess_note == "" and not game.redrawn
        after = game.play(Move.reveal(*params.board().coord(cell)))
        assert after.redrawn and not after.no_guess
        assert after.no_guess_note.startswith("No longer guaranteed guess-free: fair mercy")
        flagged = next(c for c in after.position.covered_cells() if c != cell)
        kept = after.play(Move.flag(*params.board().coord(flagged)))
        assert kept.redrawn and kept.no_guess_note == after.no_guess_note
        assert (
            not made_game(params, position, layout)
            .play(Move.reveal(*params.board().coord(cell)))
            .no_guess_note
        )  # never asked: nothing to say


@pytest.mark.parametrize("count", [Count.CLASSIC, Count.COUNTED])
def test_strict_mercy_loses_in_the_same_spot(count: Count) -> None:
    for _, position, layout, cell in stuck_positions(count, 10):
        strict = GameParams(4, 5, 4, rules=Rules(count, Mercy.STRICT), no_guess=False)
        after = made_game(strict, position, layout).play(Move.reveal(*strict.board().coord(cell)))
        assert after.status is Status.LOST and after.loss == cell
        assert after.witness is not None and cell in after.witness
        assert oracle.is_consistent(position, after.witness, count)


def test_fair_mercy_still_loses_while_a_safe_cell_exists() -> None:
    params = GameParams(9, 9, 10, rules=Rules(Count.CLASSIC, Mercy.FAIR), no_guess=False, seed=4)
    game = Game.new(params).play(Move.reveal(4, 4))
    verdicts = verdicts_of(game.position)
    assert any(v is Verdict.SAFE for v in verdicts.values())
    risky = min(c for c, v in verdicts.items() if v is Verdict.EITHER)
    lost = game.play(Move.reveal(*params.board().coord(risky)))
    assert lost.status is Status.LOST


def test_fair_mercy_never_saves_a_certain_mine() -> None:
    # 4x4, 4 mines, counted: the 2 at (3,0) sees only (2,0) and (3,1): both certain
    # mines; nothing is provably safe
    position = Position.from_line("..../..../.3../2...;mines=4")
    board = position.board
    verdicts = oracle.classify(position, Count.COUNTED).verdicts
    assert not any(v is Verdict.SAFE for v in verdicts.values())
    certain = board.cell(2, 0)
    assert verdicts[certain] is Verdict.MINE
    layout = frozenset({0, 5, 8, 13})
    params = GameParams(4, 4, 4, rules=Rules(Count.COUNTED, Mercy.FAIR), no_guess=False, seed=1)
    game = made_game(params, position, layout)
    lost = game.play(Move.reveal(2, 0))
    assert lost.status is Status.LOST and lost.loss == certain
    # while an undecided cell mined in the real layout is redrawn in the player's favour
    saved = game.play(Move.reveal(1, 1))
    assert saved.status is not Status.LOST
    assert saved.layout is not None and board.cell(1, 1) not in saved.layout
    assert {certain, board.cell(3, 1)} <= saved.layout
    assert oracle.is_consistent(position, saved.layout, Count.COUNTED)


# -- replay, history, secrecy -------------------------------------------------------------


def some_moves(params: GameParams, n: int, seed: int) -> list[Move]:
    rng = random.Random(seed)
    game = Game.new(params)
    moves: list[Move] = []
    board = params.board()
    while len(moves) < n and game.status is Status.PLAYING:
        covered = list(game.position.covered_cells())
        cell = rng.choice(covered)
        kind = MoveKind.FLAG if rng.random() < 0.2 and game.layout else MoveKind.REVEAL
        if game.position.is_flagged(cell):
            kind = MoveKind.UNFLAG
        move = Move(kind, *board.coord(cell))
        game = game.play(move)
        moves.append(move)
    return moves


@pytest.mark.parametrize("mercy", list(Mercy))
def test_replay_is_deterministic(mercy: Mercy) -> None:
    params = GameParams(8, 8, 8, rules=Rules(Count.COUNTED, mercy), no_guess=False, seed=21)
    for seed in range(6):
        moves = some_moves(params, 12, seed)
        a = Game.replay(params, moves)
        b = Game.replay(params, [str(m) for m in moves])
        assert a == b
        assert a.moves == tuple(moves)
        assert a.layout == b.layout and a.witness == b.witness


def test_at_gives_the_state_after_a_prefix() -> None:
    params = GameParams(8, 8, 8, no_guess=False, seed=5)
    moves = some_moves(params, 10, 3)
    game = Game.replay(params, moves)
    for n in range(len(moves) + 1):
        assert game.at(n) == Game.replay(params, moves[:n])
    assert game.at(0) == Game.new(params)
    with pytest.raises(IndexError, match=r"outside 0\.\."):
        game.at(len(moves) + 1)


def test_changed_cells_lists_what_a_move_opened() -> None:
    params = GameParams(9, 9, 10, no_guess=False, seed=8)
    start = Game.new(params)
    first = start.play(Move.reveal(4, 4))
    assert first.changed_cells(start) == frozenset(first.position.revealed_cells())
    assert first.changed_cells(first) == frozenset()


def test_nothing_about_the_layout_shows_in_repr_or_str() -> None:
    params = GameParams(9, 9, 10, no_guess=False, seed=8)
    game = Game.new(params).play(Move.reveal(4, 4))
    assert game.layout is not None
    for text in (repr(game), str(game)):
        assert "layout" not in text and "frozenset" not in text
    for text in (repr(game), str(game), repr(params)):
        assert "seed" not in text
    assert "playing" in repr(game)


def test_games_are_values() -> None:
    params = GameParams(9, 9, 10, no_guess=False, seed=8)
    start = Game.new(params)
    after = start.play(Move.reveal(4, 4))
    assert start.layout is None and start.moves == ()
    assert after != start
    assert hash(after) == hash(Game.replay(params, [Move.reveal(4, 4)]))


# -- property test ------------------------------------------------------------------------


@st.composite
def games_and_moves(draw: st.DrawFn) -> tuple[GameParams, list[Move]]:
    board = draw(boards(max_height=5, max_width=6))
    keep = min(9 if board.topology is not Topology.HEX else 7, board.cell_count)
    mines = draw(st.integers(0, board.cell_count - keep))
    rules = Rules(draw(st.sampled_from(list(Count))), draw(st.sampled_from(list(Mercy))))
    params = GameParams(
        board.height, board.width, mines, board.topology, board.holes, rules,
        no_guess=draw(st.booleans()), seed=draw(st.integers(0, 2**31)),
    )  # fmt: skip
    moves = draw(
        st.lists(
            st.builds(
                Move,
                st.sampled_from(list(MoveKind)),
                st.integers(0, board.height - 1),
                st.integers(0, board.width - 1),
            ),
            min_size=1,
            max_size=25,
        )
    )
    return params, moves


@profile()
@given(games_and_moves())
def test_random_games_keep_their_invariants(case: tuple[GameParams, list[Move]]) -> None:
    params, moves = case
    board = params.board()
    count = params.rules.count
    game = Game.new(params)
    played: list[Move] = []
    for move in moves:
        try:
            after = game.play(move)
        except (InvalidMove, IllegalMove) as e:
            cell = move.row * board.width + move.col
            assert isinstance(e, InvalidMove) == (cell in board.holes)
            continue
        played.append(move)
        cell = board.cell(move.row, move.col)
        if move.kind is MoveKind.REVEAL and game.layout is not None:
            try:
                verdict = oracle.classify(game.position, count).verdict(cell)
            except ValueError:
                verdict = None  # too big for the oracle
            if verdict is Verdict.SAFE:
                assert after.status is not Status.LOST
            elif verdict is not None and params.rules.mercy is Mercy.STRICT:
                assert after.status is Status.LOST and after.loss == cell
        if after.status is Status.LOST:
            assert after.witness is not None and after.loss in after.witness
            assert oracle.is_consistent(after.position, after.witness, Count.CLASSIC)
        if after.layout is not None:
            assert numbers_match(after.position, after.layout)
        assert after.revealed_count == sum(1 for _ in after.position.revealed_cells())
        assert after.flag_count == after.position.grid.count(b"F")
        game = after
        if game.over:
            break
    assert Game.replay(params, played) == game


def test_games_built_by_hand_or_replaced_do_not_reuse_caches() -> None:
    import dataclasses

    params = GameParams(9, 9, 10, no_guess=False, seed=4)
    game = Game.new(params).play(Move.reveal(4, 4))
    game.analysis()
    verdicts = verdicts_of(game.position)
    safe = min(c for c, v in verdicts.items() if v is Verdict.SAFE)
    # a hand-built copy (fresh caches) plays a safe cell like the original
    copy = made_game(params, game.position, game.layout or frozenset())
    move = Move.reveal(*params.board().coord(safe))
    assert copy.play(move).position == game.play(move).position
    # replace() keeps the memo object; the caches notice the position changed
    replaced = dataclasses.replace(game, position=copy.play(move).position)
    covered = set(replaced.position.covered_cells())
    assert set(replaced.analysis().classification().verdicts) == covered
    assert safe not in covered


def test_replay_is_the_same_in_another_process() -> None:
    """Gunicorn workers replay each other's games: nothing may depend on hash seeds."""
    import subprocess
    import sys

    script = (
        "from devil.game import *\n"
        "from devil.rules import *\n"
        "p = GameParams(36, 36, 200, rules=Rules(Count.COUNTED, Mercy.FAIR), seed=3)\n"
        "g = Game.new(p)\n"
        "for m in ['flag 0 0', 'reveal 18 18', 'reveal 0 35', 'reveal 35 0']:\n"
        "    if not g.over:\n"
        "        g = g.play(Move.parse(m))\n"
        "print(sorted(g.layout or ()), sorted(g.witness or ()), g.status, g.guaranteed)\n"
        "print(g.position.line)\n"
    )
    root = ROOT
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            cwd=root,
            env={"PYTHONHASHSEED": str(seed), "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in (1, 2)
    }
    assert len(outputs) == 1


def test_changed_between_finds_every_differing_cell() -> None:
    from devil.game import changed_between

    rng = random.Random(3)
    for height, width in ((1, 1), (16, 30), (64, 64), (65, 129)):
        board = Board(height, width)
        before = bytearray(b"." * board.size)
        after = bytearray(before)
        picks = rng.sample(range(board.size), min(board.size, 7))
        picks += [0, board.size - 1, min(board.size - 1, 4095), min(board.size - 1, 4096)]
        for c in picks:
            after[c] = ord("3")
        a, b = Position(board, bytes(before)), Position(board, bytes(after))
        assert changed_between(a, b) == sorted(set(picks))
        assert changed_between(a, a) == []


def test_no_guess_is_promised_only_where_it_is_delivered() -> None:
    small = Game.new(GameParams(9, 9, 10, seed=1))
    assert small.no_guess  # before the first click: small enough to generate
    opened = small.play(Move.reveal(4, 4))
    assert opened.no_guess == opened.guaranteed
    assert not Game.new(GameParams(9, 9, 10, no_guess=False, seed=1)).no_guess
    big = Game.new(GameParams(100, 101, 1500, seed=3))
    assert big.params.no_guess and not big.no_guess  # 10,100 cells: above the limit
    assert not big.play(Move.reveal(50, 50)).no_guess
