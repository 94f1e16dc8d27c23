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


DESCRIPTION = """\
Write a board of a built-in tiling as a graph-board file (JSON, "format":
"mine-devil-graph") on standard output: every cell with its id, its polygon
(and its 3-D corners on the cube and the sphere), the pairs of neighbours, and
"mines", the board's total. A blank board has every cell covered; --midgame
places mines at random and opens cells as a player who only clicks safe cells
would, so its numbers always fit a real layout (the mines themselves are not in
the file). Nothing promises that a --midgame position can be finished without
guessing: ask devil-check.

Use the file as a puzzle's starting point: edit the states ("." covered, "F"
flagged, a number revealed), then check it with devil-check FILE (which cells
are safe, mines or either; --counted uses the file's total), paste it on the
graph analysis board (/analyse/graph), or start a game on its board (the
new-game form's custom board, or POST /api/games with {"graph": ...}: a game
starts with every cell covered). The format is docs/graph-boards.md."""

EPILOG = """\
examples:
  devil-graph --list                                  the tilings, sizes, presets
  devil-graph penrose --preset expert > board.json    a blank expert Penrose board
  devil-graph triangle --size 16 30 --midgame --seed 7 > puzzle.json
  devil-graph cube --size 5 --sides --mines 20 > cube.json
  devil-check puzzle.json                              what can be deduced

exit codes: 0 written, 2 bad usage (the message names the option)"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "tiling",
        nargs="?",
        choices=sorted(TILINGS),
        metavar="TILING",
        help=f"the tiling: {', '.join(TILINGS)} (--list describes them)",
    )
    parser.add_argument(
        "--list", action="store_true", help="list the tilings, their sizes and presets, and stop"
    )
    parser.add_argument(
        "--preset",
        choices=("beginner", "intermediate", "expert"),
        default="beginner",
        help="the board's size and mine density, like Minesweeper's levels (default "
        "beginner); with --size, only the density",
    )
    parser.add_argument(
        "--size",
        type=int,
        nargs="+",
        metavar="N",
        help="a custom size: rows and cols for the plane tilings (square, hex, torus, "
        "triangle, truncated-square, rhombille, cairo, snub-square), cells for penrose, "
        "squares along a face's edge for cube, the frequency for geodesic",
    )
    parser.add_argument(
        "--mines",
        type=int,
        metavar="N",
        help="the board's total of mines (default: the preset's density on its cells)",
    )
    parser.add_argument(
        "--sides",
        action="store_true",
        help="neighbours are cells that share a side (default: cells that share a corner, "
        "the classic rule: 8 neighbours on squares, 12 on an inner triangle)",
    )
    parser.add_argument(
        "--midgame",
        action="store_true",
        help="a random position part-way through a game instead of a blank board",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="with --midgame: which random position (the same seed writes the same file; "
        "default 0)",
    )
    parser.add_argument(
        "--fraction",
        type=float,
        default=0.4,
        help="with --midgame: about this fraction of the safe cells is open (above 0, at "
        "most 1; default 0.4)",
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
