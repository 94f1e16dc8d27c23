"""Games played by a random player (reveals, flags, unflags and chords), for the ledger and
replay tests: ``random_game`` and the hypothesis strategy ``small_games``; and the cascade
check ``covered_zero_neighbours``."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from devil.analysis import Verdict
from devil.errors import IllegalMove
from devil.game import Game, GameParams, Move
from devil.position import COVERED, FLAG, Position
from devil.rules import Count, Mercy, Rules


def random_game(params: GameParams, rng: random.Random, max_moves: int = 60) -> Game:
    """A game played by a player who mostly reveals safe cells and flags mines (asking the
    game's solver), chords where the flags allow, and otherwise clicks at random."""
    game = Game.new(params)
    board = params.board()
    for _ in range(max_moves):
        if game.over:
            break
        grid = game.position.grid
        covered = [c for c in board.cells() if grid[c] == COVERED]
        flagged = [c for c in board.cells() if grid[c] == FLAG]
        chords = [
            c
            for c in board.cells()
            if (v := game.position.number(c)) is not None
            and sum(grid[n] == FLAG for n in board.neighbours(c)) == v
            and any(grid[n] == COVERED for n in board.neighbours(c))
        ]
        verdicts = game.analysis().classification().verdicts if game.layout else {}
        safe = [c for c in covered if verdicts.get(c) is Verdict.SAFE]
        mines = [c for c in covered if verdicts.get(c) is Verdict.MINE]
        roll = rng.random()
        if chords and roll < 0.15:
            move = Move.chord(*board.coord(rng.choice(chords)))
        elif flagged and roll < 0.2:
            move = Move.unflag(*board.coord(rng.choice(flagged)))
        elif roll < 0.35 and (mines or covered):
            move = Move.flag(*board.coord(rng.choice(mines or covered)))
        elif safe and roll < 0.9:
            move = Move.reveal(*board.coord(rng.choice(safe)))
        elif covered:
            move = Move.reveal(*board.coord(rng.choice(covered)))
        else:
            break
        try:
            game = game.play(move)
        except IllegalMove:
            continue
    return game


@st.composite
def small_games(draw: st.DrawFn) -> Game:
    height = draw(st.integers(3, 5))
    width = draw(st.integers(4, 5))
    mines = draw(st.integers(1, height * width - 9))
    rules = Rules(draw(st.sampled_from(list(Count))), draw(st.sampled_from(list(Mercy))))
    params = GameParams(
        height,
        width,
        mines,
        rules=rules,
        no_guess=draw(st.booleans()),
        seed=draw(st.integers(0, 99)),
    )
    return random_game(params, random.Random(draw(st.integers(0, 10**6))))


def covered_zero_neighbours(after: Position, before: Position | None = None) -> list[int]:
    """Covered, unflagged cells next to a 0 that ``after`` shows and ``before`` did not: a
    finished cascade leaves none. Zeros revealed earlier are skipped: a cell flagged while
    its zero cascaded, and unflagged since, rightly stays covered."""
    board = after.board
    return [
        n
        for c in board.cells()
        if after.number(c) == 0 and (before is None or before.number(c) != 0)
        for n in board.neighbours(c)
        if after.is_covered(n) and not after.is_flagged(n)
    ]
