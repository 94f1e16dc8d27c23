"""No-guess generation: success rate and time per preset, count rule and method.

For each (preset, count rule) this generates boards with ``devil.generate.no_guess_layout``
from fixed seeds, first click in the middle, and prints:

- rate: share of uniform draws that are no-guess (boards / layouts tried) for
  ``redraw``; for ``perturb`` the share of boards found within the try budget;
- tries: mean layouts examined per board (draws + perturbations);
- ms/board: mean and max wall time per board (including failures);
- found: boards found / boards asked (the rest hit ``max_tries``).

    .venv/bin/python bench/bench_generate.py           # all presets, both rules, both methods
    .venv/bin/python bench/bench_generate.py --quick   # fewer boards
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from devil.board import Board
from devil.generate import no_guess_layout
from devil.rules import Count, Rules

PRESETS = [
    ("beginner 9x9/10", 9, 9, 10),
    ("intermediate 16x16/40", 16, 16, 40),
    ("expert 30x16/99", 16, 30, 99),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer boards")
    ap.add_argument("--boards", type=int, default=None, help="boards per row")
    ap.add_argument("--max-tries", type=int, default=1000)
    ap.add_argument("--methods", default="redraw,perturb")
    args = ap.parse_args()
    boards = args.boards or (4 if args.quick else 20)
    methods = args.methods.split(",")
    print(f"No-guess generation, {boards} boards per row, first click in the middle, "
          f"max_tries={args.max_tries}")  # fmt: skip
    print()
    head = (
        f"| {'preset':<22} | {'count':<7} | {'method':<7} | {'rate':>7} | {'tries':>7} | "
        f"{'ms/board':>9} | {'max ms':>8} | {'found':>7} |"
    )
    print(head)
    print("|" + "|".join("-" * len(c) for c in head.split("|")[1:-1]) + "|")
    for name, height, width, mines in PRESETS:
        board = Board(height, width)
        first = board.cell(height // 2, width // 2)
        for count in (Count.CLASSIC, Count.COUNTED):
            for method in methods:
                tries: list[int] = []
                times: list[float] = []
                found = 0
                for seed in range(boards):
                    rng = random.Random(seed * 7919 + mines)
                    t0 = time.perf_counter()
                    made = no_guess_layout(
                        board,
                        mines,
                        first,
                        Rules(count),
                        rng,
                        args.max_tries,
                        method,  # type: ignore[arg-type]
                    )
                    times.append(time.perf_counter() - t0)
                    tries.append(made.tries)
                    found += made.guaranteed
                rate = found / sum(tries) if method == "redraw" else found / boards
                print(
                    f"| {name:<22} | {count.value:<7} | {method:<7} | {rate:>7.2%} | "
                    f"{statistics.mean(tries):>7.1f} | {statistics.mean(times) * 1000:>9.1f} | "
                    f"{max(times) * 1000:>8.1f} | {found:>3}/{boards:<3} |"
                )


if __name__ == "__main__":
    main()
