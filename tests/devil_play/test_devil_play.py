"""``devil-play``, the terminal game: driven headlessly by Textual's pilot (keys and mouse),
its rules checked against the brute-force oracle, its saved move list read back by the engine,
by ``devil-check --annotate`` and by the web app's importer."""

from __future__ import annotations

import asyncio
import io
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from app.play.params import PRESETS as WEB_PRESETS
from devil import oracle
from devil.analysis import Verdict
from devil.game import Game, Status
from devil.ledger.replays.movelist import read_movelist
from devil_play.drawing import board_lines, cell_at
from devil_play.options import PRESETS, read_options
from devil_play.session import Session
from devil_play.tui import DevilPlay
from tests.helpers.web import csrf

ROOT = Path(__file__).resolve().parents[2]


def test_presets_are_the_web_apps() -> None:
    assert PRESETS == WEB_PRESETS


def test_options_read_presets_topologies_and_rules(tmp_path: Path) -> None:
    o = read_options(["expert", "--topology", "hex", "--count", "counted", "--seed", "3"])
    p = o.params
    assert (p.height, p.width, p.mines, p.topology.value) == (16, 30, 99, "hex")
    assert p.rules.count.value == "counted" and p.no_guess and p.seed == 3
    assert not read_options(["--guess"]).params.no_guess
    holed = read_options(["intermediate", "--topology", "holes", "--seed", "1"]).params
    assert holed.topology.value == "square" and len(holed.holes) == 16
    game = Session.start(holed).open().game
    assert all(c in game.position.board.holes for c in holed.holes)
    assert "#" not in "".join(board_lines(game)).replace(" ", "")
    with pytest.raises(SystemExit):
        read_options(["--width", "0"])
    with pytest.raises(SystemExit):
        read_options(["--mines", "80"])  # 9x9 keeps the first click's 9 cells free


def run_pilot(argv: list[str], script: list[str | tuple[int, ...]]) -> DevilPlay:
    """Run the app headlessly: strings are key presses, (x, y) pairs left clicks on the board
    widget's content (its padding is 2 columns and 1 line), (x, y, 3) right clicks."""

    async def go() -> DevilPlay:
        app = DevilPlay(read_options(argv))
        async with app.run_test(size=(90, 30)) as pilot:
            for step in script:
                if isinstance(step, tuple):
                    button = step[2] if len(step) > 2 else 1
                    await pilot.click("#board", offset=(step[0] + 2, step[1] + 1), button=button)
                else:
                    await pilot.press(step)
                await pilot.pause()
        return app

    # its own thread, so its own event loop: the browser tests' Playwright keeps one running
    # on the main thread for the whole session, where asyncio.run() refuses to start
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, go()).result()


def test_keyboard_opens_moves_and_flags() -> None:
    app = run_pilot(["--seed", "5"], ["space", "up", "up", "up", "up", "left"])
    session = app.session
    assert session.game.moves[0].kind.value == "reveal"
    assert (session.game.moves[0].row, session.game.moves[0].col) == (4, 4)
    assert (session.row, session.col) == (0, 3)
    assert session.game.status is Status.PLAYING
    covered = next(c for c in session.game.position.covered_cells())
    row, col = session.game.position.board.coord(covered)
    flagged = session.at(row, col).flag()
    assert flagged.game.position.is_flagged(covered)
    assert "mines left 9" in flagged.status_line()
    assert flagged.flag().game.position.is_flagged(covered) is False


def test_mouse_left_opens_and_the_status_line_says_what_a_number_means() -> None:
    # the board widget draws cell (row, col) at x = 2*col (+1 on odd hex rows), y = row
    app = run_pilot(["--seed", "7"], [(2 * 4, 4)])
    game = app.session.game
    assert len(game.moves) == 1 and (game.moves[0].row, game.moves[0].col) == (4, 4)
    assert game.position.number(game.position.board.cell(4, 4)) == 0
    status = app.session.status_line()
    assert status.startswith("playing · 9x9 square · classic/strict · no-guess · mines left 10")


def test_mouse_right_click_flags() -> None:
    app = run_pilot(["--seed", "7"], [(2 * 4, 4), (0, 0, 3)])
    game = app.session.game
    assert [str(m) for m in game.moves] == ["reveal 4 4", "flag 0 0"]
    assert game.position.is_flagged(0) and "mines left 9" in app.session.status_line()


def test_the_engine_never_imports_the_terminal_game() -> None:
    pattern = re.compile(r"^\s*(from|import)\s+devil_play\b", re.MULTILINE)
    offenders = [
        str(path) for path in (ROOT / "devil").rglob("*.py") if pattern.search(path.read_text())
    ]
    assert offenders == []
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'devil-play = "devil_play.tui:main"' in pyproject
    assert pyproject.count('"devil_play"]') == 2, "wheel packages and mypy packages"


def test_hex_rows_are_drawn_shifted_and_clicks_land_on_the_shifted_cells() -> None:
    game = Game.new(read_options(["--topology", "hex", "--seed", "1"]).params)
    lines = board_lines(game)
    assert lines[0].startswith("·") and lines[1].startswith(" ·")
    assert cell_at(game, 1, 1) == (1, 0) and cell_at(game, 0, 1) is None
    assert cell_at(game, 2, 0) == (0, 1) and cell_at(game, 3, 0) is None


def lose(session: Session) -> Session:
    """Open a covered cell the oracle says could be a mine."""
    verdicts = oracle.classify(session.game.position).verdicts
    risky = sorted(c for c, v in verdicts.items() if v is not Verdict.SAFE)
    row, col = session.game.position.board.coord(risky[0])
    return session.at(row, col).open()


def test_a_loss_draws_the_witness_with_the_clicked_cell_marked(tmp_path: Path) -> None:
    session = Session.start(read_options(["--seed", "11"]).params).open()
    lost = lose(session)
    game = lost.game
    assert game.status is Status.LOST and game.witness is not None and game.loss is not None
    assert "The devil wins" in lost.message
    # the witness fits every shown number (checked cell by cell, not by the solver)
    board = game.position.board
    for cell in game.position.revealed_cells():
        around = sum(1 for n in board.neighbours(cell) if n in game.witness)
        assert around == game.position.number(cell)
    lines = board_lines(game)
    row, col = board.coord(game.loss)
    assert lines[row][2 * col] == "X"
    stars = sum(line.count("*") for line in lines)
    assert stars == len(game.witness) - 1  # every witness mine but the clicked one


def test_a_saved_game_replays_and_devil_check_annotates_it(tmp_path: Path) -> None:
    session = lose(Session.start(read_options(["--seed", "11"]).params).open())
    path = tmp_path / "game.txt"
    saved = session.save(path)
    assert saved.message.startswith("saved 2 moves")
    replay = read_movelist(path.read_text())
    assert replay.params == session.game.params and replay.layout == session.game.witness
    again = Game.replay(session.game.params, replay.moves)
    assert again.position == session.game.position and again.status is Status.LOST
    result = subprocess.run(
        [sys.executable, "-m", "devil.cli", "--annotate", str(path)],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines()]
    assert rows[1][:2] == ["1", "reveal"] and rows[2][:2] == ["2", "reveal"]
    assert "fatal" in rows[2] and "clicks 2" in result.stdout


def test_the_web_importer_reads_a_saved_game(client: FlaskClient, tmp_path: Path) -> None:
    session = lose(Session.start(read_options(["--seed", "11"]).params).open())
    token = csrf(client, "/analyse")
    response = client.post(
        "/import",
        data={"replay": (io.BytesIO(session.move_list().encode()), "game.txt"),
              "csrf_token": token},
        content_type="multipart/form-data",
    )  # fmt: skip
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    assert response.get_data(as_text=True).count("Study the position before it") == 2
