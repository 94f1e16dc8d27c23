"""Regenerate the EVF v0.4 fixtures with ms-toollib's own writer (run by hand, dev extra).

Each fixture is a game played by the tests' random player, recorded click by click with
``ms_toollib.BaseVideo`` and saved with ``generate_evf_v4_raw_data``; next to it the same game
as a Mine Devil move list (with its layout), which ``tests/test_evf.py`` expects our EVF reader
to reproduce. ms-toollib's recorder aborts the process now and then (a panic inside the
library), so this runs outside the test suite and each recording in a child process.

    .venv/bin/python tests/data/replays/make_evf_fixtures.py
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parents[2]
SEEDS = {"won-chords": (9, 9, 10, 20), "lost": (8, 8, 10, 4), "fair": (9, 9, 12, 31)}


def record(name: str) -> None:
    sys.path.insert(0, str(ROOT))
    import ms_toollib as ms

    from devil.game import GameParams, MoveKind, Status
    from devil.ledger.annotate import final_board
    from devil.ledger.replays.mouse import click_events
    from devil.ledger.replays.movelist import write_movelist
    from devil.rules import Mercy, Rules
    from tests.helpers.games import random_game

    height, width, mines, seed = SEEDS[name]
    mercy = Mercy.FAIR if name == "fair" else Mercy.STRICT
    for attempt in range(seed, seed + 500):
        params = GameParams(height, width, mines, rules=Rules(mercy=mercy), seed=attempt)
        game = random_game(params, random.Random(attempt), max_moves=200)
        layout = final_board(game)
        kinds = {m.kind for m in game.moves}
        wanted = (game.status is Status.WON) == name.startswith("won")
        if name.startswith("won"):
            wanted = wanted and MoveKind.CHORD in kinds
        if layout is None or not game.moves or game.moves[0].kind is not MoveKind.REVEAL:
            continue
        if wanted and MoveKind.FLAG in kinds:
            break
    board = params.board()
    grid = [[-1 if board.cell(r, c) in layout else 0 for c in range(width)] for r in range(height)]
    video = ms.BaseVideo(ms.cal_board_numbers(grid), 16)
    for move in game.moves:
        for e in click_events(move, 0.0, 16):
            video.step(e.kind, (e.y, e.x))
    video.generate_evf_v4_raw_data()
    (HERE / f"{name}.evf").write_bytes(bytes(video.raw_data))
    (HERE / f"{name}.moves").write_text(write_movelist(params, game.moves, None, layout))


def main() -> None:
    if len(sys.argv) > 1:
        record(sys.argv[1])
        return
    for name in SEEDS:
        for _ in range(20):
            done = subprocess.run([sys.executable, __file__, name], check=False)
            if done.returncode == 0:
                break


if __name__ == "__main__":
    main()
