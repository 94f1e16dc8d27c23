"""Benchmark the teaching side: proofs, the analysis page, boards and puzzles by level.

    .venv/bin/python bench/bench_proof.py            # everything (a few minutes)
    .venv/bin/python bench/bench_proof.py --quick    # fewer samples

Prints three tables:

1. ``devil.teach.proof.prove`` on every frontier cell of the sample positions in
   ``tests/data/positions`` (classes ``inter`` and ``expert``), per count rule:
   median / p90 / max milliseconds per cell and the spread of proof levels.
   Target (issue 4): expert median under 50 ms.
2. The analysis page (``GET /analyse``) of each expert position, server time through the
   Flask test client (classification, probabilities, every deduction step, a selected
   cell's proof, the template): median / max. Target: under 300 ms.
3. Generation per preset and level: ``devil.teach.puzzles.level_layout`` (a no-guess board
   whose level is exactly L, the "boards by level") and ``devil.teach.puzzles.make_puzzle``:
   success rate and median / max seconds per success (failures cost their full time too).

Timings are wall-clock on whatever machine runs this; treat them as noisy on a shared box.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from quantiles import quantile  # noqa: E402

from devil.board import Board  # noqa: E402
from devil.position import Position  # noqa: E402
from devil.rules import Count  # noqa: E402
from devil.teach.proof import prove  # noqa: E402
from devil.teach.puzzles import level_layout, make_puzzle  # noqa: E402

POSITIONS = Path(__file__).resolve().parents[1] / "tests" / "data" / "positions"
PRESETS = {"beginner": (9, 9, 10), "intermediate": (16, 16, 40), "expert": (16, 30, 99)}


def load(cls: str) -> list[tuple[str, Position]]:
    out = []
    for path in sorted(POSITIONS.glob(f"{cls}_*.txt")):
        out.append((path.stem, Position.from_text(path.read_text())))
    return out


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.2f}"


def table(title: str, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) for i, h in enumerate(header)]
    print(f"\n{title}")
    print("  ".join(str(h).rjust(w) for h, w in zip(header, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print("  ".join(str(v).rjust(w) for v, w in zip(row, widths, strict=True)))


# -- 1. proofs -------------------------------------------------------------------------------


def bench_proofs(classes: Sequence[str], every: int) -> None:
    rows = []
    for cls in classes:
        positions = load(cls)
        for count in (Count.CLASSIC, Count.COUNTED):
            times: list[float] = []
            levels: Counter[int] = Counter()
            for _, position in positions:
                for cell in sorted(position.edge)[::every]:
                    start = time.perf_counter()
                    proof = prove(position, cell, count)
                    times.append(time.perf_counter() - start)
                    levels[proof.level] += 1
            spread = " ".join(f"L{k}:{levels[k]}" for k in sorted(levels))
            rows.append(
                (
                    cls,
                    count.value,
                    len(positions),
                    len(times),
                    ms(statistics.median(times)),
                    ms(quantile(times, 0.9)),
                    ms(max(times)),
                    spread,
                )
            )
    table(
        "1. prove(): one frontier cell (ms; L0 = either-cell, two layouts)",
        ("class", "rule", "positions", "cells", "median", "p90", "max", "levels"),
        rows,
    )


# -- 2. the analysis page --------------------------------------------------------------------


def bench_page(limit: int) -> None:
    from app import create_app

    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(
            {
                "TESTING": True,
                "SECRET_KEY": "bench",
                "DATA_DIR": tmp,
                "DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite3",
                "RATELIMIT_ENABLED": False,
            }
        )
        client = app.test_client()
        client.get("/analyse")  # warm the templates
        rows = []
        for count in (Count.CLASSIC, Count.COUNTED):
            times = []
            for _, position in load("expert")[:limit]:
                edge = sorted(position.edge)
                r, c = position.board.coord(edge[len(edge) // 2])
                query = {"p": position.line, "count": count.value, "cell": f"{r},{c}"}
                start = time.perf_counter()
                response = client.get("/analyse", query_string=query)
                times.append(time.perf_counter() - start)
                assert response.status_code == 200, response.status_code
            rows.append((count.value, len(times), ms(statistics.median(times)), ms(max(times))))
        app.extensions["mine_devil.store"].dispose()
    table(
        "2. GET /analyse of an expert position with a cell selected (server ms)",
        ("rule", "positions", "median", "max"),
        rows,
    )


# -- 3. generation by level ------------------------------------------------------------------


def timed(make: Callable[[random.Random], object | None], seeds: int) -> tuple[int, list[float]]:
    ok = 0
    times = []
    for seed in range(seeds):
        start = time.perf_counter()
        found = make(random.Random(seed))
        times.append(time.perf_counter() - start)
        ok += found is not None
    return ok, times


def _board(
    board: Board, mines: int, first: int, level: int, count: Count, rng: random.Random
) -> object | None:
    return level_layout(board, mines, first, level, count, rng, max_tries=20)


def _puzzle(
    board: Board, mines: int, level: int, count: Count, rng: random.Random
) -> object | None:
    return make_puzzle(board, mines, level, count, rng, max_tries=10)


def bench_generation(seeds: int, presets: Sequence[str]) -> None:
    rows = []
    for preset in presets:
        h, w, m = PRESETS[preset]
        board = Board(h, w)
        first = board.cell(h // 2, w // 2)
        for level, count in ((1, Count.CLASSIC), (2, Count.CLASSIC), (3, Count.CLASSIC),
                             (4, Count.COUNTED)):  # fmt: skip
            ok, times = timed(partial(_board, board, m, first, level, count), seeds)
            pok, ptimes = timed(partial(_puzzle, board, m, level, count), seeds)
            rows.append(
                (
                    preset,
                    level,
                    count.value,
                    f"{ok}/{seeds}",
                    f"{statistics.median(times):.2f}",
                    f"{max(times):.2f}",
                    f"{pok}/{seeds}",
                    f"{statistics.median(ptimes):.2f}",
                    f"{max(ptimes):.2f}",
                )
            )
            print(".", end="", flush=True)
    table(
        "3. Generation by level (seconds per call; board: up to 20 no-guess layouts, "
        "puzzle: up to 10)",
        ("preset", "level", "rule", "boards ok", "median", "max", "puzzles ok", "median", "max"),
        rows,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer samples")
    parser.add_argument(
        "--only", choices=("proofs", "page", "generation"), help="run one table only"
    )
    args = parser.parse_args(argv)
    every = 3 if args.quick else 1
    if args.only in (None, "proofs"):
        bench_proofs(("inter", "expert"), every)
    if args.only in (None, "page"):
        bench_page(10 if args.quick else 100)
    if args.only in (None, "generation"):
        bench_generation(3 if args.quick else 8, tuple(PRESETS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
