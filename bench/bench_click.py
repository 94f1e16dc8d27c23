"""Per-click cost in a running game, printed as a table.

A bot plays games through ``devil.game.Game``: after the first click it clicks a random
provably safe cell, or, when there is none, a random undecided cell (fair mercy: the
layout is redrawn). One click is timed as ``game.play(move)`` plus the analysis of the
resulting position (``game.analysis()``), i.e. everything the next verdict needs: the
state update, the cascade, and the solver recomputing only the components the click
touched. Choosing the bot's move (a full classification) is not timed.

Also timed, on the same positions:
- a losing click's witness (``analysis.witness(cell)`` on a random undecided cell);
- for expert, ms-toollib's whole-board ``get_all_not_and_is_mine_on_board``.

    .venv/bin/python bench/bench_click.py            # expert + 300x300
    .venv/bin/python bench/bench_click.py --quick    # fewer games
    .venv/bin/python bench/bench_click.py --huge     # also a 1000x1000 game
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from devil.analysis import Verdict
from devil.game import Game, GameParams, Move, Status
from devil.position import Position
from devil.rules import Count, Mercy, Rules


@dataclass
class Timings:
    first: list[float] = field(default_factory=list)
    click: list[float] = field(default_factory=list)
    mercy: list[float] = field(default_factory=list)
    witness: list[float] = field(default_factory=list)
    toollib: list[float] = field(default_factory=list)
    positions: list[Position] = field(default_factory=list)


def ms_board(position: Position) -> list[list[int]]:
    """ms-toollib's board_of_game: 0-8 numbers, 10 covered."""
    out = []
    for row in position.rows():
        out.append([10 if ch in ".F" else int(ch) for ch in row])
    return out


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def play_one(params: GameParams, rng: random.Random, clicks: int, out: Timings) -> None:
    board = params.board()
    start = Game.new(params)
    t0 = time.perf_counter()
    game = start.play(Move.reveal(board.height // 2, board.width // 2))
    if game.status is Status.PLAYING:
        game.analysis()
    out.first.append(time.perf_counter() - t0)
    done = 0
    while game.status is Status.PLAYING and done < clicks:
        analysis = game.analysis()
        verdicts = analysis.classification().verdicts
        safe = [c for c, v in verdicts.items() if v is Verdict.SAFE]
        either = [c for c, v in verdicts.items() if v is Verdict.EITHER]
        if either:
            cell = rng.choice(either)
            t0 = time.perf_counter()
            analysis.witness(cell, True)
            out.witness.append(time.perf_counter() - t0)
        out.positions.append(game.position)
        target = rng.choice(safe) if safe else rng.choice(either)
        bucket = out.click if safe else out.mercy
        move = Move.reveal(*board.coord(target))
        t0 = time.perf_counter()
        game = game.play(move)
        if game.status is Status.PLAYING:
            game.analysis()
        bucket.append(time.perf_counter() - t0)
        done += 1


def time_toollib(out: Timings) -> None:
    try:
        import ms_toollib
    except ImportError:
        return
    for position in out.positions:
        grid = ms_board(position)
        t0 = time.perf_counter()
        ms_toollib.get_all_not_and_is_mine_on_board(grid)
        out.toollib.append(time.perf_counter() - t0)


def row(name: str, values: list[float]) -> str:
    if not values:
        return f"| {name:<28} | {0:>6} | {'-':>9} | {'-':>9} | {'-':>9} |"
    ms = [v * 1000 for v in values]
    return (
        f"| {name:<28} | {len(ms):>6} | {statistics.median(ms):>9.3f} | "
        f"{percentile(ms, 0.99):>9.3f} | {max(ms):>9.3f} |"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer games")
    ap.add_argument("--huge", action="store_true", help="also play a 1000x1000 game")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    rules = Rules(Count.CLASSIC, Mercy.FAIR)
    quick = args.quick
    presets = [
        ("expert 30x16/99", GameParams(16, 30, 99, rules=rules), 10 if quick else 40, 400),
        ("300x300/18000 (20%)", GameParams(300, 300, 18000, rules=rules), 1 if quick else 3, 250),
    ]
    if args.huge:
        presets.append(("1000x1000/150000", GameParams(1000, 1000, 150_000, rules=rules), 1, 30))
    print("Per-click time in a running game (classic count, fair mercy), milliseconds")
    print()
    print(f"| {'what':<28} | {'n':>6} | {'median':>9} | {'p99':>9} | {'max':>9} |")
    print(f"|{'-' * 30}|{'-' * 8}|{'-' * 11}|{'-' * 11}|{'-' * 11}|")
    summary = []
    for name, base, games, clicks in presets:
        out = Timings()
        for g in range(games):
            params = GameParams(
                base.height, base.width, base.mines, rules=base.rules, no_guess=False,
                seed=rng.randrange(1 << 30) + g,
            )  # fmt: skip
            play_one(params, rng, clicks, out)
        print(row(f"{name}: safe click", out.click))
        print(row(f"{name}: mercy click", out.mercy))
        print(row(f"{name}: loss witness", out.witness))
        print(row(f"{name}: first click", out.first))
        if name.startswith("expert"):
            time_toollib(out)
            print(row("expert: ms-toollib whole board", out.toollib))
            if out.toollib and out.click:
                summary.append(
                    f"expert: our median click is "
                    f"{statistics.median(out.toollib) / statistics.median(out.click):.1f}x "
                    "faster than ms-toollib's whole-board call on the same positions"
                )
    print()
    for line in summary:
        print(line)
    print("targets: expert median < 0.2 ms, p99 < 1 ms; 300x300 median < 5 ms, p99 < 50 ms")


if __name__ == "__main__":
    main()
