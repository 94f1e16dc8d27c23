"""Annotating finished games (devil.ledger.annotate), printed as a table.

A bot plays games through ``devil.game.Game`` (a random provably safe cell each click, a random
undecided one under fair mercy when none is safe, flagging a proven mine now and then); then
the finished game is annotated with ``annotate_game`` several times and the best and median
wall and CPU times are printed with the move count and what the moves were judged. Playing is
not timed. Targets (issue 11): expert under 100 ms, 100x100 under 2 s.

    .venv/bin/python bench/bench_annotate.py            # expert (strict and fair) + 100x100
    .venv/bin/python bench/bench_annotate.py --quick    # one game each, one run
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from devil.analysis import Verdict
from devil.game import Game, GameParams, Move
from devil.ledger.annotate import annotate_game
from devil.rules import Count, Mercy, Rules

CASES = {
    "expert classic/strict no-guess": (GameParams(16, 30, 99), 0.1),
    "expert counted/fair": (
        GameParams(16, 30, 99, rules=Rules(Count.COUNTED, Mercy.FAIR), no_guess=False),
        0.1,
    ),
    "100x100 2000 classic/fair": (
        GameParams(100, 100, 2000, rules=Rules(Count.CLASSIC, Mercy.FAIR), no_guess=False),
        2.0,
    ),
}


def play(params: GameParams, rng: random.Random) -> Game:
    board = params.board()
    game = Game.new(params).play(Move.reveal(params.height // 2, params.width // 2))
    flags: set[int] = set()
    while not game.over:
        verdicts = game.analysis().classification().verdicts
        safe = sorted(c for c, v in verdicts.items() if v is Verdict.SAFE)
        mines = [c for c, v in verdicts.items() if v is Verdict.MINE and c not in flags]
        if mines and rng.random() < 0.1:
            mine = rng.choice(mines)
            flags.add(mine)
            game = game.play(Move.flag(*board.coord(mine)))
            continue
        pool = safe or sorted(c for c, v in verdicts.items() if v is Verdict.EITHER)
        game = game.play(Move.reveal(*board.coord(rng.choice(pool))))
    return game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    games, runs = (1, 1) if args.quick else (3, 3)
    print(f"{'case':<32} {'moves':>6} {'wall best':>10} {'wall med':>9} {'cpu med':>8} "
          f"{'target':>7}  judgements")  # fmt: skip
    for name, (params, target) in CASES.items():
        for seed in range(games):
            game = play(dataclasses.replace(params, seed=seed), random.Random(seed))
            walls, cpus = [], []
            for _ in range(runs):
                w, c = time.perf_counter(), time.process_time()
                annotation = annotate_game(game)
                walls.append(time.perf_counter() - w)
                cpus.append(time.process_time() - c)
            kinds = Counter(m.judgement.value for m in annotation.moves)
            wall, cpu = statistics.median(walls) * 1000, statistics.median(cpus) * 1000
            print(
                f"{name:<32} {len(game.moves):>6} {min(walls) * 1000:>8.0f}ms {wall:>7.0f}ms "
                f"{cpu:>6.0f}ms {target * 1000:>5.0f}ms  {dict(kinds)} {game.status.value}"
            )


if __name__ == "__main__":
    main()
