"""Graph boards (issue 20): speed per built-in tiling, printed as a table.

    .venv/bin/python bench/bench_graphs.py            # the issue's scales
    .venv/bin/python bench/bench_graphs.py --quick    # a few positions, small big boards

Per tiling at its expert preset (about 500 cells, mines at the expert density), on
mid-game positions (``devil.graphs.positions.midgame``: about 40% of the safe cells open):

- **classify p50**: ``devil.solver.classify`` of the whole position (classic rule), ms:
  the median over the positions of one run each (the issue's figure); **of 3**: each
  position classified three times in a row, the median over the positions of each
  position's median (steadier on a busy machine, where one run can take twice as long;
  each run on its own copy of the position, so only the board's caches are shared, as
  they are between the positions);
- **click p99**: a click as the devil rule needs it, from a fresh ``Solver``: the analysis,
  the cell's verdict and, when it could be a mine, a witness (random covered cells), ms;
  **click v2 p99**: the same clicks in a game of version 2 (``GameParams.version``: new graph
  games draw witnesses by ``devil.solve.quick_witness``; the first column is stored games');
- **no-guess**: ``devil.generate.no_guess_layout`` as a game on that board draws it (the
  method and tries of ``devil.game.params`` for a game of ``--game-version``, default the
  latest: version 1 perturbs, version 2 repairs, at most 300 tries on graph boards) from a
  random first cell at the beginner preset (``--no-guess-preset``): the share of boards
  guaranteed and the time per board (mean, and the worst after a slash);

then the classification of 10,000-cell Penrose and triangle boards (cells with 12 or more
neighbours), and reading 100,000-cell graph files (``devil.graphs.fileformat.read_graph``):
a triangle board with polygons and a synthetic graph of a million edges.
Times are CPU time of this thread (``time.thread_time``); reading also gives wall time.
Each figure is followed by its target (issue 20): ``ok`` or ``MISS``. The engine (compiled
or pure), the JSON decoder and the load average are printed with the table.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from devil import native
from devil.board import Cell
from devil.budget import Budget, BudgetExceeded
from devil.game.params import LATEST_VERSION, no_guess_method, no_guess_tries
from devil.generate import no_guess_layout
from devil.graphs import _fast
from devil.graphs.fileformat import read_graph, write_graph
from devil.graphs.positions import midgame
from devil.graphs.tilings import TILINGS, tiling, tiling_board
from devil.position import Position
from devil.rules import Rules
from devil.solver import Solver, classify


def _ms(work: Callable[[], object]) -> float:
    start = time.thread_time()
    work()
    return (time.thread_time() - start) * 1000


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


CLASSIFY_RUNS = 3
"""Runs per position for the steadier classify column (``of 3``)."""

CLICK_CAP = 10.0
"""A click still running after this many seconds is stopped (its budget) and counted as
taking that long; the row says how many were stuck and ``STUCK`` lists them."""
STUCK: list[str] = []


def _mark(value: float, target: float) -> str:
    return f"{value:.1f} {'ok' if value < target else 'MISS'}"


def per_tiling(
    name: str,
    positions: int,
    clicks: int,
    boards: int,
    no_guess: str = "beginner",
    version: int = LATEST_VERSION,
) -> list[str]:
    spec = tiling(name)
    expert = spec.preset("expert")
    board = tiling_board(name, expert.size)
    mines = expert.mines(board.cell_count)
    rng = random.Random(1)
    classify_ms: list[float] = []
    classify3_ms: list[float] = []
    click_ms: list[float] = []
    click2_ms: list[float] = []
    stuck: list[str] = []
    layout = board.graph
    assert layout is not None
    for seed in range(positions):
        position = midgame(board, mines, seed)
        copies = [Position(board, position.grid, position.mines) for _ in range(CLASSIFY_RUNS)]
        runs = [_ms(partial(classify, copy)) for copy in copies]  # no position's cache shared
        classify_ms.append(runs[0])
        classify3_ms.append(statistics.median(runs))
        covered = list(position.covered_cells())
        for cell in rng.sample(covered, min(clicks, len(covered))):
            for version, times in ((1, click_ms), (2, click2_ms)):

                def click(p: Position = position, c: Cell = cell, v: int = version) -> None:
                    analysis = Solver().analyse(p, budget=Budget(seconds=CLICK_CAP))
                    if analysis.verdict(c).could_be_mine:
                        analysis.witness(c, True, random.Random(c), nearest_total=True, version=v)

                try:
                    times.append(_ms(click))
                except BudgetExceeded:
                    times.append(CLICK_CAP * 1000)
                    stuck.append(f"{name} seed {seed} cell {layout.id(cell)} version {version}")
    chosen = spec.preset(no_guess)
    small = tiling_board(name, chosen.size)
    small_mines = chosen.mines(small.cell_count)
    tries, method = no_guess_tries(small), no_guess_method(small, version)
    made = 0
    gen_ms: list[float] = []
    cells = list(small.cells())
    for seed in range(boards):
        gen_rng = random.Random(seed)
        first = gen_rng.choice(cells)
        got: list[bool] = []

        def generate(r: random.Random = gen_rng, f: Cell = first, out: list[bool] = got) -> None:
            made = no_guess_layout(small, small_mines, f, Rules(), r, tries, method)
            out.append(made.guaranteed)

        gen_ms.append(_ms(generate))
        made += got[0]
    STUCK.extend(stuck)
    return [
        name,
        f"{board.cell_count}",
        f"{mines}",
        _mark(statistics.median(classify_ms), 5),
        _mark(statistics.median(classify3_ms), 5),
        _mark(_quantile(click_ms, 0.99), 50) + (f" ({len(stuck)} stuck)" if stuck else ""),
        _mark(_quantile(click2_ms, 0.99), 50),
        f"{small.cell_count}/{small_mines}",
        f"{made}/{boards}",
        f"{statistics.mean(gen_ms):.0f}/{max(gen_ms):.0f}",
    ]


def big(name: str, size: tuple[int, ...], runs: int = 3) -> str:
    board = tiling_board(name, size)
    times = []
    for seed in range(5, 5 + runs):
        position = midgame(board, round(0.16 * board.cell_count), seed)
        times.append(_ms(partial(classify, position)))
    ms = statistics.median(times)
    return (
        f"{name} {board.cell_count} cells: classify p50 {ms:.0f} ms "
        f"({'ok' if ms < 200 else 'MISS'}: 200), max {max(times):.0f} ms over {runs} positions"
    )


def _read_line(what: str, text: str, edges: int) -> str:
    best_cpu = best_wall = float("inf")
    for _ in range(3):
        wall, cpu = time.perf_counter(), time.thread_time()
        read_graph(text)
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.thread_time() - cpu)
    gc.disable()  # as read_graph does: json.loads alone, not the cycle collector
    start = time.thread_time()
    json.loads(text)
    plain = time.thread_time() - start
    gc.enable()
    return (
        f"read {what} ({len(text) // 1024:,} KiB, {edges:,} edges): best of 3 "
        f"{best_cpu:.2f} s CPU ({'ok' if best_cpu < 1 else 'MISS'}: 1 s), {best_wall:.2f} s wall;"
        f" json.loads alone {plain:.2f} s CPU"
    )


def reading(size: tuple[int, int], synthetic: int) -> list[str]:
    board = tiling_board("triangle", size)
    text = write_graph(midgame(board, round(0.16 * board.cell_count), 5))
    layout = board.graph
    assert layout is not None
    out = [_read_line(f"a {board.cell_count:,}-cell triangle board", text, len(layout.graph.edges))]
    n = synthetic
    cells = [{"id": f"c{i}", "state": "."} for i in range(n)]
    pairs = [[f"c{i}", f"c{(i + k) % n}"] for i in range(n) for k in range(1, 11)]
    data = {"format": "mine-devil-graph", "version": 1, "cells": cells, "edges": pairs}
    out.append(_read_line(f"a {n:,}-cell graph, no drawing", json.dumps(data), len(pairs)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--tilings", nargs="*", default=list(TILINGS))
    parser.add_argument("--positions", type=int, default=0, help="mid-game positions per tiling")
    parser.add_argument("--skip-big", action="store_true", help="only the per-tiling table")
    parser.add_argument("--no-guess-preset", default="beginner", help="preset of no-guess boards")
    parser.add_argument(
        "--game-version", type=int, default=LATEST_VERSION, help="no-guess boards as games of it"
    )
    args = parser.parse_args()
    positions, clicks, boards = (2, 5, 2) if args.quick else (20, 20, 20)
    decoder = "msgspec" if _fast.available() else "json (install the fast extra for msgspec)"
    print(f"engine: {native.ENGINE} ({native.REASON}); graph files: {decoder}")
    print("load average at the start: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    head = ["tiling", "cells", "mines", "classify p50 ms", "of 3", "click p99 ms",
            "click v2 p99", "no-guess board", "guaranteed", "ms/board mean/max"]  # fmt: skip
    widths = [16, 5, 5, 15, 8, 22, 12, 14, 10, 17]
    print("  ".join(cell.rjust(w) for cell, w in zip(head, widths, strict=True)), flush=True)
    for name in args.tilings:  # row by row: a slow tiling does not hide the others
        sizes = (args.positions or positions, clicks, boards)
        row = per_tiling(name, *sizes, args.no_guess_preset, args.game_version)
        print("  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True)), flush=True)
    for where in STUCK:
        print(f"stuck past {CLICK_CAP:.0f} s: {where}")
    print()
    if args.skip_big:
        return
    scale = (1_000, (25, 40)) if args.quick else (10_000, (100, 100))
    print(big("penrose", (scale[0],)), flush=True)
    print(big("triangle", scale[1]), flush=True)
    for line in reading(*(((60, 100), 6_000) if args.quick else ((250, 400), 100_000))):
        print(line, flush=True)
    print("load average at the end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
