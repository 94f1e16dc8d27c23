"""Lattice positions for the benchmarks and the hardening tests (issue 8 finding 1).

``lattice(size, seed, density)``: a ``size x size`` board, numbers on even rows and
columns computed from a random layout of the given density (the numbered cells are never
mines), every other cell covered; the header carries the total, so both rules apply.

    .venv/bin/python bench/lattice.py 14 1     # print one (paste into /analyse or devil-check)
"""

from __future__ import annotations

import random
import sys


def lattice(size: int, seed: int, density: float = 0.3) -> str:
    rng = random.Random(seed)
    numbered = {(r, c) for r in range(0, size, 2) for c in range(0, size, 2)}
    mines = {
        (r, c)
        for r in range(size)
        for c in range(size)
        if (r, c) not in numbered and rng.random() < density
    }
    rows = []
    for r in range(size):
        row = []
        for c in range(size):
            if (r, c) in numbered:
                near = sum(
                    (r + dr, c + dc) in mines for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc
                )
                row.append(str(near))
            else:
                row.append(".")
        rows.append("".join(row))
    return f"# mines: {len(mines)}\n" + "\n".join(rows) + "\n"


if __name__ == "__main__":
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 14
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    sys.stdout.write(lattice(size, seed))
