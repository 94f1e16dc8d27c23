"""The ``devil-play`` command line, read into the engine's ``GameParams``.

The presets are the web app's (``app.play.params.PRESETS``; a test keeps the two equal): this
package needs only the engine, not Flask.
"""

from __future__ import annotations

import argparse
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from devil.board import Topology, hole_pattern
from devil.game import GameParams, ParamsError
from devil.rules import Count, Mercy, Rules

PROG = "devil-play"

PRESETS: dict[str, tuple[int, int, int]] = {
    "beginner": (9, 9, 10),
    "intermediate": (16, 16, 40),
    "expert": (16, 30, 99),
}
"""name -> (height, width, mines), as on the web app's home page."""

HOLES = "holes"
"""The "square with holes" shape (as on the web app's home page)."""

MAX_SIDE = 200
"""Largest width or height (as in the browser; a terminal shows less and scrolls)."""


@dataclass(frozen=True)
class Options:
    params: GameParams
    save_to: Path
    """Where ``s`` saves the move list."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description=(
            "Play Mine Devil in a terminal: every click that could be a mine is one. "
            "Arrows move, space opens (on a number: chords), f flags, c chords, "
            "s saves the move list, n starts again, q quits. The mouse works where the "
            "terminal has one (left click opens, right click flags)."
        ),
    )
    p.add_argument(
        "preset",
        nargs="?",
        choices=sorted(PRESETS),
        default="beginner",
        help="board size and mines (default: beginner, 9x9 with 10 mines)",
    )
    p.add_argument("--width", type=int, help="columns (overrides the preset)")
    p.add_argument("--height", type=int, help="rows (overrides the preset)")
    p.add_argument("--mines", type=int, help="mines (overrides the preset)")
    p.add_argument(
        "--topology",
        choices=[*(t.value for t in Topology), HOLES],
        default="square",
        help="square, torus (edges wrap), hex (6 neighbours) or holes (a square with gaps)",
    )
    p.add_argument(
        "--count",
        choices=[c.value for c in Count],
        default="classic",
        help="classic: the total is not counted; counted: it is",
    )
    p.add_argument(
        "--mercy",
        choices=[m.value for m in Mercy],
        default="strict",
        help="fair: when no cell is provably safe, a click that could be safe is",
    )
    p.add_argument(
        "--guess",
        action="store_true",
        help="allow boards that need a guess (default: no-guess boards)",
    )
    p.add_argument("--seed", type=int, help="decides the layout (default: a random one)")
    p.add_argument(
        "--save",
        type=Path,
        default=Path("devil-game.txt"),
        help="where s writes the move list (default: devil-game.txt)",
    )
    return p


def read_options(argv: Sequence[str] | None = None) -> Options:
    """The command line as ``Options``; a bad size exits with argparse's usage message."""
    p = parser()
    args = p.parse_args(argv)
    height, width, mines = PRESETS[args.preset]
    sized = args.width is not None or args.height is not None
    height = args.height if args.height is not None else height
    width = args.width if args.width is not None else width
    if args.mines is not None:
        mines = args.mines
    elif sized:
        mines = max(1, round(height * width * PRESETS["expert"][2] / (16 * 30)))
    for name, side in (("--width", width), ("--height", height)):
        if not 1 <= side <= MAX_SIDE:
            p.error(f"{name} {side} is outside 1..{MAX_SIDE}")
    seed = args.seed if args.seed is not None else secrets.randbelow(2**63)
    holes: frozenset[int] = frozenset()
    topology = Topology.SQUARE if args.topology == HOLES else Topology(args.topology)
    if args.topology == HOLES:
        holes = frozenset(r * width + c for r, c in hole_pattern(height, width))
    try:
        params = GameParams(
            height=height,
            width=width,
            mines=mines,
            topology=topology,
            holes=holes,
            rules=Rules(Count(args.count), Mercy(args.mercy)),
            no_guess=not args.guess,
            seed=seed,
        )
    except ParamsError as e:
        p.error(str(e))
    return Options(params, args.save)
