"""The world engine's costs (``devil.world``), printed as a table. No store, no web.

- **judge next to a big known region**: the team knows a solved square of side ``s``
  (every cell of it: numbers on the safe ones, flags on the mines; ``s = 1000`` is
  1,000,000 known cells in a ``MemoryKnowledge`` dict), and clicks unknown cells just
  outside it. Its frontier is then one ring-shaped component of about ``4s`` numbers.
  A provable click is settled from its nearest numbers (``rule.STAGES``); a devil error
  needs the whole component for its witness, so it grows with the ring, not with the
  known area: a click far from the region (``far``) costs the same whatever ``s``.
- **never flagged** (issue 17, finding 1): a team that reveals every safe cell of a square
  and flags nothing has one component threading through all its unknown mines. Per
  judgement (reveals and flags of its frontier, reveals of its unflagged mines): CPU
  time, budget units spent (cells read + window cells / 16 + solver nodes), cells read and
  the outcomes, at 859 / 42k / 169k / 409k known cells. ``--before`` judges the whole
  component as the rule did before the window (``rule.WINDOW_RADIUS`` unbounded).
- **reveal**: a provably safe click including its cascade (``play.reveal``).
- **cascade**: 10,000 cells in one move (the limit), with a free truth (engine cost) and
  with the keyed hash (colour 0 recoloured so that the cascade runs to its limit).
- **colour**: ``Colouring.colour`` per cell, ``Colouring.region`` of a 64x64 chunk per
  cell, and the one-shot ``cell_colour`` (builds the keyed state every call).
- **drop** and **deduce** (a bot's 128x128 view of the region's corner).

Times are per operation: wall-clock p50 / p99 and the median CPU time of this thread
(the machine is shared; CPU time leaves out other people's jobs).

    .venv/bin/python bench/bench_world_engine.py           # s = 100, 316, 1000
    .venv/bin/python bench/bench_world_engine.py --quick   # s = 100, 316
    .venv/bin/python bench/bench_world_engine.py --never-flagged 859,42000 --only-never-flagged
    .venv/bin/python bench/bench_world_engine.py --only-never-flagged --before  # the old rule
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from devil.budget import Budget
from devil.world import (
    Colouring,
    MemoryKnowledge,
    cell_colour,
    deduce,
    drop,
    judge_flag,
    judge_reveal,
)
from devil.world import rule as world_rule
from devil.world.play import reveal
from devil.world.shares import Share

KEY = bytes(range(32))
COLOURS = 6
ROWS: list[tuple[str, int, str, str, str, str]] = []


def timed(fn: Callable[[], object]) -> tuple[float, float, object]:
    wall, cpu = time.perf_counter(), time.thread_time()
    out = fn()
    return time.perf_counter() - wall, time.thread_time() - cpu, out


def row(name: str, walls: list[float], cpus: list[float], note: str = "", per: int = 1) -> None:
    walls = sorted(w / per for w in walls)
    cpus = sorted(c / per for c in cpus)
    p99 = walls[min(len(walls) - 1, round(0.99 * (len(walls) - 1)))]
    unit = 1e6 if per > 1 else 1e3
    fmt = "{:.2f}"
    ROWS.append(
        (
            name + (" (us/cell)" if per > 1 else ""),
            len(walls),
            fmt.format(statistics.median(walls) * unit),
            fmt.format(p99 * unit),
            fmt.format(statistics.median(cpus) * unit),
            note,
        )
    )
    print(f"  {ROWS[-1]}", file=sys.stderr)


def solved_square(colouring: Colouring, side: int) -> MemoryKnowledge:
    """Every cell of the square [0, side)^2 known on board 0: a number or a flag."""
    k = MemoryKnowledge()
    w = side + 2
    colours = colouring.region(-1, -1, w, w)
    mine = [c == 0 for c in colours]
    numbers: dict[tuple[int, int], int] = {}
    for y in range(side):
        base = (y + 1) * w + 1
        up, down = base - w, base + w
        for x in range(side):
            i = base + x
            if mine[i]:
                k.flags[x, y] = 0
            else:
                numbers[x, y] = (
                    mine[up + x - 1] + mine[up + x] + mine[up + x + 1]
                    + mine[i - 1] + mine[i + 1]
                    + mine[down + x - 1] + mine[down + x] + mine[down + x + 1]
                )  # fmt: skip
    k.numbers[0] = numbers
    return k


def judge_region(side: int, clicks: int, rng: random.Random) -> None:
    colouring = Colouring(KEY, "bench", COLOURS)
    t0 = time.perf_counter()
    k = solved_square(colouring, side)
    build = time.perf_counter() - t0
    outside = [(x, -1) for x in range(side)] + [(side, y) for y in range(side)]
    outside += [(x, side) for x in range(side)] + [(-1, y) for y in range(side)]
    proved: tuple[list[float], list[float]] = ([], [])
    devil: tuple[list[float], list[float]] = ([], [])
    comps: list[int] = []
    for x, y in rng.sample(outside, min(clicks, len(outside))):
        wall, cpu, got = timed(lambda x=x, y=y: judge_reveal(k, 0, x, y))
        bucket = proved if got.proved else devil  # type: ignore[attr-defined]
        bucket[0].append(wall)
        bucket[1].append(cpu)
        if not got.proved:  # type: ignore[attr-defined]
            comps.append(got.numbers)  # type: ignore[attr-defined]
    known = len(k)
    note = f"{known:,} known cells (built in {build:.1f} s)"
    if proved[0]:
        row(f"judge reveal, proved safe, s={side}", *proved, note)
    if devil[0]:
        ring = statistics.median(comps) if comps else 0
        row(f"judge reveal, devil error, s={side}", *devil, f"{note}; component {ring:.0f} numbers")
    far: tuple[list[float], list[float]] = ([], [])
    for i in range(clicks):
        wall, cpu, _ = timed(lambda i=i: judge_reveal(k, 0, 10**6 + 7 * i, -(10**6)))
        far[0].append(wall)
        far[1].append(cpu)
    row(f"judge reveal far from the region, s={side}", *far, note)
    safe = [c for c in outside if judge_reveal(k, 0, *c).proved][:clicks]
    walls, cpus, sizes = [], [], []
    for x, y in safe:
        wall, cpu, got = timed(lambda x=x, y=y: reveal(k, colouring.colour, 0, x, y))
        walls.append(wall)
        cpus.append(cpu)
        sizes.append(len(got.cells))  # type: ignore[attr-defined]
    if walls:
        row(
            f"reveal proved cell + cascade, s={side}",
            walls,
            cpus,
            f"median {statistics.median(sizes):.0f} cells opened (not recorded)",
        )
    if side >= 128:
        view = ["".join(k.symbol(0, x, y) for x in range(-64, 64)) for y in range(-64, 64)]
        walls, cpus = [], []
        for _ in range(5):
            wall, cpu, got = timed(lambda: deduce(view, -64, -64))
            walls.append(wall)
            cpus.append(cpu)
        found = len(got.safe) + len(got.mines)  # type: ignore[attr-defined]
        row("deduce a 128x128 view at the corner", walls, cpus, f"{found} provable cells")


def ring_component(side: int, clicks: int, rng: random.Random) -> None:
    """The worst case for a devil error: a fully revealed square whose whole border is
    one component (mines only outside it, on every third cell of the surrounding ring),
    so a guess next to it needs all ~4s border numbers for its witness."""

    def colour(x: int, y: int) -> int:
        outside = not (0 <= x < side and 0 <= y < side)
        return 0 if outside and (x + 2 * y) % 3 == 0 else 1

    k = MemoryKnowledge()
    k.numbers[0] = {
        (x, y): sum(colour(x + dx, y + dy) == 0 for dx in (-1, 0, 1) for dy in (-1, 0, 1))
        for y in range(side)
        for x in range(side)
    }
    outside = [(x, -1) for x in range(side)] + [(-1, y) for y in range(side)]
    walls, cpus, sizes = [], [], []
    for x, y in rng.sample(outside, min(clicks, len(outside))):
        wall, cpu, got = timed(lambda x=x, y=y: judge_reveal(k, 0, x, y))
        if not got.proved:  # type: ignore[attr-defined]
            walls.append(wall)
            cpus.append(cpu)
            sizes.append(got.numbers)  # type: ignore[attr-defined]
    if walls:
        row(
            f"judge reveal, devil error, one ring, s={side}",
            walls,
            cpus,
            f"{len(k):,} known cells; component {statistics.median(sizes):.0f} numbers",
        )


def never_flagged(known: int, clicks: int, rng: random.Random) -> None:
    """A square with about ``known`` revealed cells (mines 1 in ``COLOURS``, inside it and
    on the ring around it, none flagged) and ``clicks`` judgements: reveals and flags of its
    frontier (the ring) and reveals of its unflagged mines nearest the middle."""
    colouring = Colouring(KEY, "bench", COLOURS)
    side = max(4, round((known * COLOURS / (COLOURS - 1)) ** 0.5))
    w = side + 4
    mine = [c == 0 for c in colouring.region(-2, -2, w, w)]
    k = MemoryKnowledge()
    board: dict[tuple[int, int], int] = {}
    inside: list[tuple[int, int]] = []
    for y in range(side):
        for x in range(side):
            i = (y + 2) * w + x + 2
            if mine[i]:
                inside.append((x, y))
            else:
                board[x, y] = sum(mine[i + dy * w + dx] for dy in (-1, 0, 1) for dx in (-1, 0, 1))
    k.numbers[0] = board
    middle = side // 2
    inside.sort(key=lambda c: max(abs(c[0] - middle), abs(c[1] - middle)))
    ring = [(x, -1) for x in range(side)] + [(side, y) for y in range(side)]
    ring += [(x, side) for x in range(side)] + [(-1, y) for y in range(side)]
    picked = [(c, judge_reveal) for c in rng.sample(ring, min(len(ring), clicks // 2))]
    picked += [(c, judge_flag) for c, _ in picked]
    picked += [(c, judge_reveal) for c in inside[: max(1, clicks // 4)]]
    walls, cpus, units, reads = [], [], [], []
    outcomes: dict[str, int] = {}
    for (x, y), judge in picked:
        meter = Budget(nodes=10**15).start()
        wall, cpu, got = timed(lambda x=x, y=y, m=meter, j=judge: j(k, 0, x, y, Share(within=m)))
        walls.append(wall)
        cpus.append(cpu)
        units.append(meter.used)
        reads.append(got.reads)  # type: ignore[attr-defined]
        undecided = got.undecided  # type: ignore[attr-defined]
        kind = "proved" if got.proved else "undecided" if undecided else "devil"  # type: ignore[attr-defined]
        outcomes[kind] = outcomes.get(kind, 0) + 1
    mix = ", ".join(f"{n} {kind}" for kind, n in sorted(outcomes.items()))
    row(
        f"never flagged, {len(k):,} known cells",
        walls,
        cpus,
        f"units p50 {statistics.median(units):,.0f} max {max(units):,}; cells read max "
        f"{max(reads):,}; {mix}",
    )


def cascades(runs: int) -> None:
    colouring = Colouring(KEY, "bench", COLOURS)
    walls, cpus = [], []
    for i in range(runs):
        k = MemoryKnowledge()
        k.reveal(0, 10_000 * i, 0, 0)
        wall, cpu, got = timed(lambda i=i, k=k: reveal(k, lambda x, y: 1, 0, 10_000 * i + 1, 0))
        assert len(got.cells) == 10_000 and got.truncated  # type: ignore[attr-defined]
        walls.append(wall)
        cpus.append(cpu)
    row("cascade of 10,000 cells, free truth", walls, cpus, "engine only")
    walls, cpus = [], []
    for i in range(runs):
        k = MemoryKnowledge()
        k.reveal(0, 10_000 * i, 0, 0)

        def truth(x: int, y: int) -> int:
            return colouring.colour(x, y) or 1

        wall, cpu, got = timed(lambda i=i, t=truth, k=k: reveal(k, t, 0, 10_000 * i + 1, 0))
        assert len(got.cells) == 10_000  # type: ignore[attr-defined]
        walls.append(wall)
        cpus.append(cpu)
    row("cascade of 10,000 cells, keyed hash", walls, cpus, "~10,400 cells hashed")


def drops(runs: int, rng: random.Random) -> None:
    colouring = Colouring(KEY, "bench", COLOURS)
    walls, cpus = [], []
    for _ in range(runs):
        x, y = rng.randrange(-(10**9), 10**9), rng.randrange(-(10**9), 10**9)
        wall, cpu, _ = timed(lambda x=x, y=y: drop(MemoryKnowledge(), colouring.colour, 0, x, y))
        walls.append(wall)
        cpus.append(cpu)
    row("drop on fresh ground", walls, cpus, f"k={COLOURS}")


def hashing(rng: random.Random) -> None:
    colouring = Colouring(KEY, "bench", COLOURS)
    cells = [
        (rng.randrange(-(2**62), 2**62), rng.randrange(-(2**62), 2**62)) for _ in range(20_000)
    ]
    walls, cpus = [], []
    for _ in range(5):
        wall, cpu, _ = timed(lambda: [colouring.colour(x, y) for x, y in cells])
        walls.append(wall)
        cpus.append(cpu)
    row("Colouring.colour", walls, cpus, "20,000 cells per run", per=len(cells))
    walls, cpus = [], []
    for i in range(5):
        wall, cpu, _ = timed(lambda i=i: colouring.region(64 * i, 0, 64, 64))
        walls.append(wall)
        cpus.append(cpu)
    row("Colouring.region 64x64 chunk", walls, cpus, "one chunk per run", per=64 * 64)
    walls, cpus = [], []
    for _ in range(5):
        wall, cpu, _ = timed(lambda: [cell_colour(KEY, "bench", x, y, 6) for x, y in cells[:2000]])
        walls.append(wall)
        cpus.append(cpu)
    row("cell_colour (one-shot)", walls, cpus, "2,000 cells per run", per=2000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="sides 100 and 316 only")
    parser.add_argument("--clicks", type=int, default=200, help="clicks per region (200)")
    parser.add_argument(
        "--never-flagged",
        default="859,42000,169000,409000",
        help="known cells of the never-flagged regions (comma-separated)",
    )
    parser.add_argument(
        "--only-never-flagged", action="store_true", help="run the never-flagged rows only"
    )
    parser.add_argument(
        "--before",
        action="store_true",
        help="judge whole components (no window), as the rule did before issue 17",
    )
    args = parser.parse_args()
    rng = random.Random(1)
    if args.before:
        world_rule.WINDOW_RADIUS = 2**62
    for known in (int(n) for n in args.never_flagged.split(",") if n):
        never_flagged(known, min(args.clicks, 20), rng)
    if not args.only_never_flagged:
        others(args, rng)
    head = ("measurement", "n", "p50 ms", "p99 ms", "cpu p50 ms", "notes")
    widths = [max(len(str(r[i])) for r in [head, *ROWS]) for i in range(6)]
    for r in [head, tuple("-" * w for w in widths), *ROWS]:
        print(" | ".join(str(v).ljust(w) for v, w in zip(r, widths, strict=True)).rstrip())


def others(args: argparse.Namespace, rng: random.Random) -> None:
    hashing(rng)
    cascades(5)
    drops(50, rng)
    for side in (100, 316) if args.quick else (100, 316, 1000):
        judge_region(side, args.clicks, rng)
    for side in (100, 316) if args.quick else (100, 316, 1000):
        ring_component(side, 10, rng)


if __name__ == "__main__":
    main()
