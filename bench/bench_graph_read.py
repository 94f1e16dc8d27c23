"""Reading graph-board files (issue 20's bound: 100,000 cells, 1,000,000 edges, under 1 s).

    .venv/bin/python bench/bench_graph_read.py            # the issue's scale
    .venv/bin/python bench/bench_graph_read.py --quick    # small files, a smoke test
    .venv/bin/python bench/bench_graph_read.py FILE...    # files of your own

Times, per file, what ``devil-check`` does before it classifies: ``looks_like_graph``
(auto-detection) and ``read_graph`` (text to the position on its graph board), plus the first
collection of the cycle collector after it (it walks whatever the reader left tracked).
Wall and CPU time, the best and the median of ``--repeat`` runs. The generated files: a
triangle tiling at 250 x 400 (100,000 cells with polygons, a position part-way through a
game) and a 100,000-cell graph without drawing where each cell touches the next ten
(1,000,000 edges).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from devil import native
from devil.graphs import _fast
from devil.graphs.fileformat import looks_like_graph, read_graph, write_graph
from devil.graphs.positions import midgame
from devil.graphs.tilings import tiling_board


def triangle_file(rows: int, cols: int) -> str:
    board = tiling_board("triangle", (rows, cols))
    return write_graph(midgame(board, round(0.16 * board.cell_count), 5))


def ring_file(cells: int, reach: int) -> str:
    """``cells`` cells in a ring, each touching the next ``reach`` (no drawing)."""
    data = {
        "format": "mine-devil-graph",
        "version": 1,
        "cells": [{"id": f"c{i}", "state": "."} for i in range(cells)],
        "edges": [
            [f"c{i}", f"c{(i + k) % cells}"] for i in range(cells) for k in range(1, reach + 1)
        ],
    }
    return json.dumps(data)


def _once(text: str) -> tuple[float, float, int, int]:
    wall, cpu = time.perf_counter(), time.process_time()
    assert looks_like_graph(text)
    position = read_graph(text)
    gc.collect(0)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    layout = position.board.graph
    assert layout is not None
    return wall, cpu, position.board.cell_count, sum(map(len, layout.adjacency)) // 2


def measure(name: str, text: str, repeat: int) -> str:
    runs = [_once(text) for _ in range(repeat)]
    walls, cpus = [r[0] for r in runs], [r[1] for r in runs]
    _, _, cells, edges = runs[0]
    verdict = "ok" if min(walls) < 1 else "MISS"
    return (
        f"{name}: {len(text) / 2**20:.1f} MiB, {cells:,} cells, {edges:,} edges: "
        f"wall best {min(walls):.2f} s, median {statistics.median(walls):.2f} s ({verdict}: 1 s); "
        f"CPU best {min(cpus):.2f} s, median {statistics.median(cpus):.2f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="graph-board files to time (default: generated)")
    parser.add_argument("--quick", action="store_true", help="small generated files")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    decoder = "msgspec" if _fast.available() else "json (install the fast extra for msgspec)"
    if _fast.available():
        decoder += ", edges and polygons " + (
            "read from their text" if _fast.READ_AS_TEXT else "decoded"
        )
    print(f"engine: {native.ENGINE} ({native.REASON}); graph files: {decoder}")
    print("load average at the start: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()), flush=True)
    if args.files:
        texts = [(name, Path(name).read_text()) for name in args.files]
    else:
        rows, cols, cells = (20, 50, 1_000) if args.quick else (250, 400, 100_000)
        texts = [
            (f"triangles {rows}x{cols}", triangle_file(rows, cols)),
            (f"ring of {cells:,}, reach 10", ring_file(cells, 10)),
        ]
    for name, text in texts:
        print(measure(name, text, args.repeat), flush=True)
    print("load average at the end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
