"""``devil-graph``: write a graph-board file of a built-in tiling (blank, or mid-game).

    devil-graph penrose --preset expert > board.json
    devil-graph triangle --size 16 30 --midgame --seed 7 > puzzle.json
    devil-graph --list

The file is the ``mine-devil-graph`` format (``devil.graphs.fileformat``); ``devil-check``
reads it. Exit codes: 0 written, 2 bad usage.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from devil.graphs.fileformat import write_graph
from devil.graphs.positions import blank, midgame
from devil.graphs.tilings import TILINGS, tiling, tiling_board

PROG = "devil-graph"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Write a graph-board file (mine-devil-graph) of a built-in tiling.",
        epilog="devil-graph --list shows the tilings, their sizes and presets",
    )
    parser.add_argument("tiling", nargs="?", choices=sorted(TILINGS), metavar="TILING")
    parser.add_argument("--list", action="store_true", help="list the tilings and presets")
    parser.add_argument(
        "--preset",
        choices=("beginner", "intermediate", "expert"),
        default="beginner",
        help="size and mine density (default beginner)",
    )
    parser.add_argument(
        "--size",
        type=int,
        nargs="+",
        metavar="N",
        help="a custom size: rows and cols for the plane tilings, cells for penrose, "
        "n for the cube, the frequency for geodesic",
    )
    parser.add_argument("--mines", type=int, metavar="N", help="total mines (default: preset)")
    parser.add_argument(
        "--sides",
        action="store_true",
        help="neighbours share a side (default: a corner, the classic rule)",
    )
    parser.add_argument(
        "--midgame",
        action="store_true",
        help="a random position part-way through a game instead of a blank board",
    )
    parser.add_argument("--seed", type=int, default=0, help="the random seed of --midgame")
    parser.add_argument(
        "--fraction",
        type=float,
        default=0.4,
        help="with --midgame: about this fraction of the safe cells open (default 0.4)",
    )
    return parser


def listing() -> str:
    lines = []
    for name, spec in TILINGS.items():
        presets = ", ".join(f"{p.name} {'x'.join(map(str, p.size))}" for p in spec.presets)
        lines.append(f"{name:17} {spec.description}; size: {' '.join(spec.size_names)}")
        lines.append(f"{'':17} presets: {presets}")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 2
    if args.list:
        sys.stdout.write(listing())
        return 0
    if args.tiling is None:
        parser.print_usage(sys.stderr)
        print(f"{PROG}: error: name a TILING (or --list)", file=sys.stderr)
        return 2
    spec = tiling(args.tiling)
    preset = spec.preset(args.preset)
    size = tuple(args.size) if args.size else preset.size
    try:
        board = tiling_board(args.tiling, size, args.sides)
    except ValueError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    mines = args.mines if args.mines is not None else preset.mines(board.cell_count)
    if not 0 <= mines < board.cell_count:
        print(f"{PROG}: --mines {mines}: between 0 and {board.cell_count - 1}", file=sys.stderr)
        return 2
    if not 0 < args.fraction <= 1:
        print(f"{PROG}: --fraction {args.fraction}: between 0 and 1", file=sys.stderr)
        return 2
    position = (
        midgame(board, mines, args.seed, args.fraction) if args.midgame else blank(board, mines)
    )
    sys.stdout.write(write_graph(position))
    return 0


def run() -> None:
    sys.exit(main())
