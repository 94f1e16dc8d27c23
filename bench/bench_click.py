"""Per-click cost in running games, printed as a table.

    .venv/bin/python bench/bench_click.py                 # 40 expert games per rule
    .venv/bin/python bench/bench_click.py --quick         # 10 games per rule
    .venv/bin/python bench/bench_click.py --gc on         # the collector as it is (default:
                                                          # gc.freeze() after each game's setup)
    .venv/bin/python bench/bench_click.py --big           # also 300x300 games
    .venv/bin/python bench/bench_click.py --huge          # also a 1000x1000 game
    .venv/bin/python bench/bench_click.py --samples       # clicks on every sample position

A bot plays expert games (30x16, 99 mines, fair mercy, no no-guess generation) through
``devil.game.Game``, under the classic and the counted rule. It chooses its moves with its
own ``Solver`` (untimed), so the game's solver sees exactly what a server's would: one
position after another. Per turn, after the first click (which draws the layout: not
counted, shown apart):

- **safe click**: ``game.play(reveal)`` of a random provably safe cell: the analysis of the
  position the click is made on (the solver's incremental update from the previous one,
  pieces cached by content), the judgement, the cascade. When no cell is provably safe
  the bot clicks a random undecided cell instead: a **mercy click** (the redraw's witness,
  a consistent layout with the cell safe, then the cascade).
- **losing click**: on a shadow copy of the game (the same position and layout, its own
  solver, kept in lockstep by replaying the bot's moves untimed), ``play(reveal)`` of a
  random undecided cell while some cell is provably safe: the same analysis, the judgement
  and the loss's witness (a consistent layout with the cell mined, drawn at random, exactly
  the total when one exists).

Every click is timed as CPU time of this thread (``time.thread_time``: free of the time the
shared machine gives other processes) and wall time. ``--gc freeze`` (the default) calls
``gc.freeze()`` once a game is set up, so collections do not walk the long-lived objects
of earlier games (what a server does after start-up); ``--gc on`` leaves the collector
alone; ``--gc off`` disables it while a game is played (to see what the collector costs);
the table says how many collections ran during timed clicks.

``--samples``: on every position of ``tests/data/positions``, under both rules, up to
``--clicks`` random covered cells (seeded); a click is what the devil rule needs: the
verdict of the cell and, when it could be a mine, a witness (counted: with exactly the
position's total). "cold" is the first click on a position (a fresh ``Solver``: the
whole analysis), "warm" every later one (the solver's piece cache is warm, as in a game).
Each position runs in a child process with a time limit (``--timeout``).
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from devil.analysis import Verdict
from devil.game import Game, GameParams, Move, Status
from devil.game.state import _Memo, _Shared
from devil.rules import Count, Mercy, Rules
from devil.solver import Solver

Sample = tuple[float, float]
"""(wall seconds, CPU seconds of this thread)."""


class Clock:
    def __init__(self) -> None:
        self.collections = sum(s["collections"] for s in gc.get_stats())
        self.wall = time.perf_counter()
        self.cpu = time.thread_time()

    def stop(self) -> tuple[Sample, int]:
        wall, cpu = time.perf_counter(), time.thread_time()
        collections = sum(s["collections"] for s in gc.get_stats()) - self.collections
        return (wall - self.wall, cpu - self.cpu), collections


@dataclass
class Timings:
    first: list[Sample] = field(default_factory=list)
    safe: list[Sample] = field(default_factory=list)
    mercy: list[Sample] = field(default_factory=list)
    loss: list[Sample] = field(default_factory=list)
    collections: int = 0

    def add(self, bucket: list[Sample], clock: Clock) -> None:
        sample, collections = clock.stop()
        bucket.append(sample)
        self.collections += collections


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def shadow_of(game: Game) -> Game:
    """The same game value with its own solver (cold caches, as the game's were)."""
    memo = game._memo
    return replace(
        game, _memo=_Memo(_Shared(game.params.rules.count), memo.counts, memo.counts_layout)
    )


def play_one(
    params: GameParams, rng: random.Random, clicks: int, out: Timings, freeze: bool
) -> None:
    board = params.board()
    first = Move.reveal(board.height // 2, board.width // 2)
    game = Game.new(params)
    clock = Clock()
    game = game.play(first)
    out.add(out.first, clock)
    shadow = shadow_of(game)
    bot = Solver(params.rules.count)
    if freeze:
        gc.freeze()
    done = 0
    while game.status is Status.PLAYING and done < clicks:
        verdicts = bot.analyse(game.position).classification().verdicts
        safe = [c for c, v in verdicts.items() if v is Verdict.SAFE]
        either = [c for c, v in verdicts.items() if v is Verdict.EITHER]
        if safe and either:
            lose = Move.reveal(*board.coord(rng.choice(either)))
            clock = Clock()
            lost = shadow.play(lose)
            out.add(out.loss, clock)
            assert lost.status is Status.LOST
        if not safe and not either:
            break
        move = Move.reveal(*board.coord(rng.choice(safe) if safe else rng.choice(either)))
        clock = Clock()
        game = game.play(move)
        out.add(out.safe if safe else out.mercy, clock)
        shadow = shadow.play(move)  # untimed: keeps the shadow in lockstep
        assert shadow.position == game.position
        done += 1


HEADS = ["cpu p50", "p90", "p99", "max", "wall p50", "p99", "max"]


def row(name: str, samples: list[Sample]) -> str:
    if not samples:
        return f"| {name:<30} | {0:>5} | " + " | ".join(f"{'-':>8}" for _ in HEADS) + " |"
    wall = [w * 1000 for w, _ in samples]
    cpu = [c * 1000 for _, c in samples]
    cells = [
        statistics.median(cpu),
        percentile(cpu, 0.90),
        percentile(cpu, 0.99),
        max(cpu),
        statistics.median(wall),
        percentile(wall, 0.99),
        max(wall),
    ]
    return f"| {name:<30} | {len(wall):>5} | " + " | ".join(f"{v:>8.3f}" for v in cells) + " |"


SAMPLE_CHILD = r"""
import json, random, sys, time
sys.path.insert(0, {root!r})
from devil.position import Position
from devil.rules import Count
from devil.solver import Solver

path, rule, clicks, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
position = Position.from_text(open(path).read())
count = Count(rule)
rng = random.Random(seed)
covered = sorted(position.covered_cells())
cells = rng.sample(covered, min(clicks, len(covered)))
solver = Solver(count)
out = []
cpu = []
for i, cell in enumerate(cells):
    t, c = time.perf_counter(), time.process_time()
    analysis = solver.analyse(position)
    verdict = analysis.verdict(cell)
    if verdict.could_be_mine:
        layout = analysis.witness(cell, True, random.Random(seed + i))
        assert layout is not None and cell in layout
        if count is Count.COUNTED:
            assert len(layout) == position.mines
    out.append((time.perf_counter() - t) * 1000)
    cpu.append((time.process_time() - c) * 1000)
print(json.dumps([out, cpu]))
"""


def sample_clicks(args: argparse.Namespace) -> None:
    """Per-click time on every sample position (see the module docstring)."""
    import json
    import subprocess
    from collections import defaultdict

    root = Path(__file__).resolve().parent.parent
    positions = sorted((root / "tests" / "data" / "positions").glob("*.txt"))
    code = SAMPLE_CHILD.format(root=str(root))
    rows: dict[tuple[str, str], list[list[float]]] = defaultdict(list)
    cpus: dict[tuple[str, str], list[list[float]]] = defaultdict(list)
    timeouts: dict[tuple[str, str], int] = defaultdict(int)
    for path in positions:
        text = path.read_text()
        cls = next(
            (ln.split(":", 1)[1].strip() for ln in text.splitlines() if ln.startswith("# class:")),
            path.stem,
        )
        if args.classes and cls not in args.classes.split(","):
            continue
        for rule in ("classic", "counted"):
            if rule == "counted" and "# mines:" not in text:
                continue
            cmd = [sys.executable, "-c", code, str(path), rule, str(args.clicks), str(args.seed)]
            try:
                done = subprocess.run(
                    cmd, capture_output=True, text=True, timeout=args.timeout, check=True
                )
            except subprocess.TimeoutExpired:
                timeouts[(cls, rule)] += 1
                continue
            wall, cpu = json.loads(done.stdout.strip().splitlines()[-1])
            rows[(cls, rule)].append(wall)
            cpus[(cls, rule)].append(cpu)
    heads = ["positions", "clicks", "cold max", "warm med", "warm p99", "worst", "over 100"]
    heads += ["cpu cold", "cpu worst", "cpu >100"]
    print("Per click on every sample position (verdict + witness), milliseconds;")
    print("wall clock, then CPU time of the child (free of other processes' time slices)")
    print()
    print(f"| {'class':<12} | {'rule':<7} | " + " | ".join(f"{h:>9}" for h in heads) + " |")
    print(f"|{'-' * 14}|{'-' * 9}|" + "|".join("-" * 11 for _ in heads) + "|")
    for (cls, rule), runs in sorted(rows.items()):
        cold = [r[0] for r in runs if r]
        warm = [x for r in runs for x in r[1:]]
        every = [x for r in runs for x in r]
        over = sum(1 for x in every if x > 100)
        cpu_runs = cpus[(cls, rule)]
        cpu_every = [x for r in cpu_runs for x in r]
        cpu_cold = [r[0] for r in cpu_runs if r]
        cells = [
            f"{len(runs) + timeouts[(cls, rule)]:>9}",
            f"{len(every):>9}",
            f"{max(cold):>9.2f}" if cold else f"{'-':>9}",
            f"{statistics.median(warm):>9.3f}" if warm else f"{'-':>9}",
            f"{percentile(warm, 0.99):>9.3f}" if warm else f"{'-':>9}",
            f"{max(every):>9.2f}" if every else f"{'-':>9}",
            f"{over:>9}",
            f"{max(cpu_cold):>9.2f}" if cpu_cold else f"{'-':>9}",
            f"{max(cpu_every):>9.2f}" if cpu_every else f"{'-':>9}",
            f"{sum(1 for x in cpu_every if x > 100):>9}",
        ]
        note = f" ({timeouts[(cls, rule)]} timed out)" if timeouts[(cls, rule)] else ""
        print(f"| {cls:<12} | {rule:<7} | " + " | ".join(cells) + " |" + note)
    for key, n in sorted(timeouts.items()):
        if key not in rows:
            print(f"| {key[0]:<12} | {key[1]:<7} | {n} positions timed out after {args.timeout} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="10 games per rule instead of 40")
    ap.add_argument("--games", type=int, default=0, help="games per rule (default 40)")
    ap.add_argument("--big", action="store_true", help="also 300x300 games")
    ap.add_argument("--huge", action="store_true", help="also a 1000x1000 game")
    ap.add_argument("--gc", choices=("freeze", "on", "off"), default="freeze")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--samples", action="store_true", help="clicks on every sample position")
    ap.add_argument("--clicks", type=int, default=20, help="--samples: clicks per position")
    ap.add_argument("--timeout", type=float, default=120.0, help="--samples: s per position")
    ap.add_argument("--classes", default="", help="--samples: only these classes (a,b)")
    args = ap.parse_args()
    if args.samples:
        sample_clicks(args)
        return
    rng = random.Random(args.seed)
    games = args.games or (10 if args.quick else 40)
    presets = []
    for count in (Count.CLASSIC, Count.COUNTED):
        rules = Rules(count, Mercy.FAIR)
        presets.append((f"expert {count.value}", GameParams(16, 30, 99, rules=rules), games, 400))
    if args.big:
        rules = Rules(Count.CLASSIC, Mercy.FAIR)
        presets.append(("300x300 classic", GameParams(300, 300, 18000, rules=rules), 2, 200))
    if args.huge:
        rules = Rules(Count.CLASSIC, Mercy.FAIR)
        params = GameParams(1000, 1000, 150_000, rules=rules)
        presets.append(("1000x1000 classic", params, 1, 30))
    print("Per click in running games (fair mercy), milliseconds: CPU time of this thread and")
    print(f"wall time; gc: {args.gc}")
    print()
    print(f"| {'what':<30} | {'n':>5} | " + " | ".join(f"{h:>8}" for h in HEADS) + " |")
    print(f"|{'-' * 32}|{'-' * 7}|" + "|".join("-" * 10 for _ in HEADS) + "|")
    for name, base, n_games, clicks in presets:
        out = Timings()
        for g in range(n_games):
            params = GameParams(
                base.height, base.width, base.mines, rules=base.rules, no_guess=False,
                seed=rng.randrange(1 << 30) + g,
            )  # fmt: skip
            if args.gc == "off":
                gc.disable()
            play_one(params, rng, clicks, out, args.gc == "freeze")
            gc.unfreeze()
            gc.enable()
        every = out.safe + out.mercy + out.loss
        print(row(f"{name}: every click", every))
        print(row("  safe click", out.safe))
        print(row("  mercy click (redraw)", out.mercy))
        print(row("  losing click (witness)", out.loss))
        print(row("  first click (not in 'every')", out.first))
        print(f"|   collections during timed clicks: {out.collections}")
    print()
    print("target (issue 12): expert p99 under 0.3 ms per click, the witness included")


if __name__ == "__main__":
    main()
