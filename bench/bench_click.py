"""Per-click cost in a running game, printed as a table.

A bot plays games through ``devil.game.Game``: after the first click it clicks a random
provably safe cell, or, when there is none, a random undecided cell (fair mercy: the
layout is redrawn). One click is timed (and split) as ``game.play(move)`` plus the analysis of the
resulting position (``game.analysis()``), i.e. everything the next verdict needs: the
state update, the cascade, and the solver recomputing only the components the click
touched. Choosing the bot's move (a full classification) is not timed.

Also timed, on the same positions:
- a losing click's witness (``analysis.witness(cell)`` on a random undecided cell);
- for expert, ms-toollib's whole-board ``get_all_not_and_is_mine_on_board``.

    .venv/bin/python bench/bench_click.py            # expert + 300x300
    .venv/bin/python bench/bench_click.py --quick    # fewer games
    .venv/bin/python bench/bench_click.py --huge     # also a 1000x1000 game
    .venv/bin/python bench/bench_click.py --samples  # clicks on every sample position

``--samples``: on every position of ``tests/data/positions``, under both rules, up to
``--clicks`` random covered cells (seeded); a click is what the devil rule needs: the
verdict of the cell and, when it could be a mine, a witness (counted: with exactly the
position's total). "cold" is the first click on a position (a fresh ``Solver``: the
whole analysis), "warm" every later one (the solver's piece cache is warm, as in a game).
Each position runs in a child process with a time limit (``--timeout``).
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

Sample = tuple[float, float]
"""(wall seconds, CPU seconds of this process): CPU time leaves out the time the shared
machine's scheduler gave to other processes, which dominates wall-clock p99 here."""


class Clock:
    def __init__(self) -> None:
        self.wall = time.perf_counter()
        self.cpu = time.process_time()

    def lap(self) -> Sample:
        wall, cpu = time.perf_counter(), time.process_time()
        out = (wall - self.wall, cpu - self.cpu)
        self.wall, self.cpu = wall, cpu
        return out


def add(a: Sample, b: Sample) -> Sample:
    return (a[0] + b[0], a[1] + b[1])


@dataclass
class Timings:
    first: list[Sample] = field(default_factory=list)
    click: list[Sample] = field(default_factory=list)
    update: list[Sample] = field(default_factory=list)
    solve: list[Sample] = field(default_factory=list)
    mercy: list[Sample] = field(default_factory=list)
    witness: list[Sample] = field(default_factory=list)
    toollib: list[Sample] = field(default_factory=list)
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
    clock = Clock()
    game = start.play(Move.reveal(board.height // 2, board.width // 2))
    if game.status is Status.PLAYING:
        game.analysis()
    out.first.append(clock.lap())
    done = 0
    while game.status is Status.PLAYING and done < clicks:
        analysis = game.analysis()
        verdicts = analysis.classification().verdicts
        safe = [c for c, v in verdicts.items() if v is Verdict.SAFE]
        either = [c for c, v in verdicts.items() if v is Verdict.EITHER]
        if either:
            cell = rng.choice(either)
            clock = Clock()
            analysis.witness(cell, True)
            out.witness.append(clock.lap())
        out.positions.append(game.position)
        target = rng.choice(safe) if safe else rng.choice(either)
        bucket = out.click if safe else out.mercy
        move = Move.reveal(*board.coord(target))
        clock = Clock()
        game = game.play(move)
        update = clock.lap()
        if game.status is Status.PLAYING:
            game.analysis()
        solve = clock.lap()
        bucket.append(add(update, solve))
        if safe:
            out.update.append(update)
            out.solve.append(solve)
        done += 1


def time_toollib(out: Timings) -> None:
    try:
        import ms_toollib
    except ImportError:
        return
    for position in out.positions:
        grid = ms_board(position)
        clock = Clock()
        ms_toollib.get_all_not_and_is_mine_on_board(grid)
        out.toollib.append(clock.lap())


def row(name: str, samples: list[Sample]) -> str:
    if not samples:
        return f"| {name:<34} | {0:>5} | " + " | ".join(f"{'-':>8}" for _ in range(5)) + " |"
    wall = [w * 1000 for w, _ in samples]
    cpu = [c * 1000 for _, c in samples]
    cells = [
        statistics.median(wall),
        percentile(wall, 0.99),
        max(wall),
        statistics.median(cpu),
        percentile(cpu, 0.99),
    ]
    return f"| {name:<34} | {len(wall):>5} | " + " | ".join(f"{v:>8.3f}" for v in cells) + " |"


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
    ap.add_argument("--quick", action="store_true", help="fewer games")
    ap.add_argument("--huge", action="store_true", help="also play a 1000x1000 game")
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
    rules = Rules(Count.CLASSIC, Mercy.FAIR)
    quick = args.quick
    presets = [
        ("expert 30x16/99", GameParams(16, 30, 99, rules=rules), 10 if quick else 40, 400),
        ("300x300/18000 (20%)", GameParams(300, 300, 18000, rules=rules), 1 if quick else 3, 250),
    ]
    if args.huge:
        presets.append(("1000x1000/150000", GameParams(1000, 1000, 150_000, rules=rules), 1, 30))
    print("Per-click time in a running game (classic count, fair mercy), milliseconds;")
    print("wall clock, and CPU time of this process (free of other processes' time slices)")
    print()
    heads = ["median", "p99", "max", "cpu med", "cpu p99"]
    print(f"| {'what':<34} | {'n':>5} | " + " | ".join(f"{h:>8}" for h in heads) + " |")
    print(f"|{'-' * 36}|{'-' * 7}|" + "|".join("-" * 10 for _ in heads) + "|")
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
        print(row("  of which Game.play", out.update))
        print(row("  of which the analysis", out.solve))
        print(row(f"{name}: mercy click", out.mercy))
        print(row(f"{name}: loss witness", out.witness))
        print(row(f"{name}: first click", out.first))
        if name.startswith("expert"):
            time_toollib(out)
            print(row("expert: ms-toollib whole board", out.toollib))
            if out.toollib and out.click:
                ours = statistics.median(w for w, _ in out.click)
                theirs = statistics.median(w for w, _ in out.toollib)
                summary.append(
                    f"expert: our median click is {theirs / ours:.1f}x faster than "
                    "ms-toollib's whole-board call on the same positions"
                )
    print()
    for line in summary:
        print(line)
    print("targets: expert median < 0.2 ms, p99 < 1 ms; 300x300 median < 5 ms, p99 < 50 ms")


if __name__ == "__main__":
    main()
