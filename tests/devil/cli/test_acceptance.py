"""Acceptance checks: the contracts written in issues 2, 3 and 4, used the way a user would.

- ``devil-check`` in process (``devil.cli.main``): the exit codes, the JSON object's keys,
  every input format, errors naming line and column, the truth files.
- The JSON API through the Flask test client: a bot that plays with ``devil.solver.classify``
  on the visible board to the end, the exact ``state`` fields before and after the end, the
  status codes of issue 3, and malformed requests that must leave the stored game untouched.
- The browser pages of a running game carry nothing that tells mines from safe cells.

Answers are checked independently: witnesses and layouts against the revealed numbers by
counting neighbours here, verdicts against the brute-force oracle or the truth files.
"""

from __future__ import annotations

import base64
import io
import json
import re
import zlib
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from devil import oracle
from devil.analysis import Verdict
from devil.board import Board, Topology
from devil.cli import check as cli
from devil.position import Position
from devil.rules import Count
from devil.solver import classify
from tests.helpers.paths import POSITIONS

ISSUE_STATE_FIELDS = {
    "id", "width", "height", "mines", "topology", "count", "mercy", "status", "moves", "board",
}  # fmt: skip
ENDED_ONLY = {"layout", "witness", "loss"}
BEGINNER = {"width": 9, "height": 9, "mines": 10, "seed": 42}


# -- devil-check ---------------------------------------------------------------------------


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def small(tmp_path: Path) -> Path:
    # (0,0)=1 and (1,0)=1 share (0,1),(1,1): (2,0),(2,1) are safe, the rest either.
    path = tmp_path / "small.txt"
    path.write_text("1??\n1??\n...\n")
    return path


@pytest.fixture
def forced(tmp_path: Path) -> Path:
    # the 1 at (0,0) has one covered neighbour: (0,1) is a mine in every layout.
    path = tmp_path / "forced.txt"
    path.write_text("1?\n11\n")
    return path


def test_cli_exit_codes_follow_issue_2(
    capsys: pytest.CaptureFixture[str], small: Path, forced: Path, tmp_path: Path
) -> None:
    assert run_cli(capsys, "--cell", "2,0", str(small))[0] == 0  # safe
    assert run_cli(capsys, "--cell", "0,1", str(small))[0] == 1  # either
    assert run_cli(capsys, "--cell", "0,1", str(forced))[0] == 1  # certain mine
    assert run_cli(capsys, "--cell", "9,9", str(small))[0] == 2  # off the board
    assert run_cli(capsys, "--witness", str(small))[0] == 2  # --witness without --cell
    bad = tmp_path / "bad.txt"
    bad.write_text("1??\n1?z\n")
    assert run_cli(capsys, str(bad))[0] == 2
    assert run_cli(capsys, str(tmp_path / "missing.txt"))[0] == 2
    inconsistent = tmp_path / "inconsistent.txt"
    inconsistent.write_text("3?\n11\n")
    code, _, err = run_cli(capsys, str(inconsistent))
    assert code == 3
    assert "3 at row 0, col 0" in err


def test_cli_text_output_replaces_covered_cells_and_keeps_holes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "holes.txt"
    path.write_text("#1?\n#1?\n???\n")
    code, out, _ = run_cli(capsys, str(path))
    assert code == 0
    lines = out.splitlines()
    # the 1s share (0,2) and (1,2), so one of them is the mine and the bottom row is safe
    assert lines[:3] == ["#1?", "#1?", "SSS"]
    assert "covered" in lines[3]  # the summary line


def neighbours_mined(board: Board, layout: set[int], cell: int) -> int:
    return sum(1 for n in board.neighbours(cell) if n in layout)


def assert_consistent(rows: list[str], picture: list[str], topology: Topology) -> set[int]:
    """``picture``: rows with ``*`` for mines. Every revealed number of ``rows`` must count
    exactly its mined neighbours, and no mine may sit on a revealed cell."""
    height, width = len(rows), len(rows[0])
    holes = frozenset(
        r * width + c for r in range(height) for c in range(width) if rows[r][c] == "#"
    )
    board = Board(height, width, topology, holes)
    mines = {r * width + c for r in range(height) for c in range(width) if picture[r][c] == "*"}
    for cell in board.cells():
        ch = rows[cell // width][cell % width]
        if ch.isdigit():
            assert cell not in mines, f"mine on the revealed cell {divmod(cell, width)}"
            assert neighbours_mined(board, mines, cell) == int(ch), divmod(cell, width)
    return mines


def test_cli_json_has_the_board_picture_and_the_extra_keys(
    capsys: pytest.CaptureFixture[str], small: Path
) -> None:
    code, text_out, _ = run_cli(capsys, str(small))
    picture = text_out.splitlines()[:3]
    code, out, _ = run_cli(
        capsys, "--format", "json", "--cell", "0,1", "--witness", "--probabilities", str(small)
    )
    assert code == 1
    report = json.loads(out)
    assert report["board"] == picture == ["1??", "1??", "SS?"]
    for key in ("cells", "summary", "probabilities", "witness"):
        assert key in report, key
    assert report["witness"][0][1] == "*"
    assert_consistent(["1..", "1..", "..."], report["witness"], Topology.SQUARE)
    probs = {(p["row"], p["col"]): p["probability"] for p in report["probabilities"]}
    assert probs[(0, 1)] == pytest.approx(0.5)
    assert probs[(2, 0)] == 0.0


def test_cli_counted_rule_with_mines(capsys: pytest.CaptureFixture[str], small: Path) -> None:
    code, out, _ = run_cli(capsys, "--format", "json", "--mines", "1", str(small))
    assert code == 0
    # one mine in all: it must be among (0,1),(1,1); the right column is safe
    assert json.loads(out)["board"] == ["1?S", "1?S", "SSS"]


def test_cli_every_input_format_reads_the_same_position(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = {
        "native": "1??\n1??\n...\n",
        "codewars": "1 ? ?\n1 ? ?\n? ? ?\n",
        "jsminesweeper": "3x3x2\n1HH\n1HH\nHHH\n",
        "minesweepr": "1xx\n1xx\nxxx\n",
    }
    for name, text in texts.items():
        monkeypatch.setattr("sys.stdin", io.StringIO(text))
        code, out, err = run_cli(capsys, "--format", "json", "-")
        assert code == 0, (name, err)
        report = json.loads(out)
        assert report["board"] == ["1??", "1??", "SS?"], name
        assert report["input_format"] == name


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("1??\n1?\n???\n", "line 2"),
        ("1??\n1?z\n???\n", "line 2, column 3"),
        ("3x3x2\n1HH\n1H\nHHH\n", "line 3"),
        ("1 ? ?\n1 ? x\n? ? ?\n", "line 2, column 5"),
        ("# mines: lots\n1??\n", "line 1"),
    ],
)
def test_cli_unreadable_input_names_line_and_column(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, text: str, where: str
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    code, out, err = run_cli(capsys, "-")
    assert code == 2
    assert where in err
    assert "Traceback" not in err and out == ""


def test_cli_absurd_mine_total_is_inconsistent_not_a_crash(
    capsys: pytest.CaptureFixture[str], small: Path
) -> None:
    code, _, err = run_cli(capsys, "--mines", "9" * 20, str(small))
    assert code == 3
    assert "mines" in err and "Traceback" not in err


def classic_probabilities_exit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, total: int
) -> tuple[int, str]:
    path = tmp_path / f"dense{total}.txt"
    path.write_text(f"# mines: {total}\n1??\n1??\n...\n")
    code, _, err = run_cli(capsys, "--probabilities", str(path))
    return code, err


def test_cli_classic_probabilities_with_more_mines_than_cells_is_inconsistent(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # classic probabilities weight layouts by the density mines/cells: above 1 the weights
    # went negative
    code, err = classic_probabilities_exit(capsys, tmp_path, 100)
    assert code == 3, err
    assert "100 mines" in err and "Traceback" not in err


def test_cli_classic_probabilities_with_as_many_mines_as_cells_is_inconsistent(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, err = classic_probabilities_exit(capsys, tmp_path, 9)
    assert code == 3, err
    assert "9 mines" in err


def frontier_letters(picture: list[str], rows: list[str]) -> str:
    height, width = len(rows), len(rows[0])
    letters = []
    for r in range(height):
        for c in range(width):
            if rows[r][c] not in ".?":
                continue
            near = (
                (r + dr, c + dc)
                for dr in (-1, 0, 1)
                for dc in (-1, 0, 1)
                if (dr or dc) and 0 <= r + dr < height and 0 <= c + dc < width
            )
            if any(rows[rr][cc].isdigit() for rr, cc in near):
                letters.append(picture[r][c])
    return "".join(letters)


TRUTH_SAMPLE = ["inter_g00_s0", "inter_g01_s2", "expert_g00_s2", "adv-band_L200"]


@pytest.mark.parametrize("name", TRUTH_SAMPLE)
def test_cli_json_matches_the_truth_files(capsys: pytest.CaptureFixture[str], name: str) -> None:
    source = POSITIONS / f"{name}.txt"
    if not source.exists():
        pytest.skip(f"{source} is not on this machine")
    truth = json.loads((POSITIONS / f"{name}.truth.json").read_text())
    lines = source.read_text().splitlines()
    rows = [line for line in lines if line and not line.startswith("#")]
    mines = next(int(line.split(":")[1]) for line in lines if line.startswith("# mines:"))
    for rule, extra in (("local", []), ("global", ["--mines", str(mines)])):
        code, out, err = run_cli(capsys, "--format", "json", *extra, str(source))
        assert code == 0, err
        assert frontier_letters(json.loads(out)["board"], rows) == truth[rule], rule


# -- the JSON API: a bot plays a game --------------------------------------------------------


class Bot:
    def __init__(self, client: FlaskClient) -> None:
        self.client = client

    def create(self, **params: Any) -> dict[str, Any]:
        response = self.client.post("/api/games", json=params)
        assert response.status_code == 201, response.json
        body = response.json
        assert set(body) == {"id", "token", "state"}
        return body

    def state(self, game_id: str) -> dict[str, Any]:
        response = self.client.get(f"/api/games/{game_id}")
        assert response.status_code == 200
        return response.json

    def post(self, game: dict[str, Any], action: str, body: Any = None, **kw: Any) -> Any:
        headers = {"Authorization": f"Bearer {kw.pop('token', game['token'])}"}
        if "data" in kw:
            return self.client.post(
                f"/api/games/{game['id']}/{action}",
                data=kw["data"],
                headers={**headers, "Content-Type": "application/json"},
            )
        return self.client.post(f"/api/games/{game['id']}/{action}", json=body, headers=headers)

    def move(self, game: dict[str, Any], action: str, row: int, col: int) -> dict[str, Any]:
        response = self.post(game, action, {"row": row, "col": col})
        assert response.status_code == 200, response.json
        return response.json

    def snapshot(self, game: dict[str, Any]) -> tuple[Any, Any]:
        moves = self.client.get(f"/api/games/{game['id']}/moves").json["moves"]
        return self.state(game["id"]), [(m["seq"], m["kind"], m["row"], m["col"]) for m in moves]


@pytest.fixture
def bot(client: FlaskClient) -> Bot:
    return Bot(client)


def visible(state: dict[str, Any]) -> tuple[Board, bytes, Position]:
    height, width = state["height"], state["width"]
    rows = state["board"]
    holes = frozenset(
        r * width + c for r in range(height) for c in range(width) if rows[r][c] == "#"
    )
    board = Board(height, width, Topology(state["topology"]), holes)
    grid = "".join(rows).encode("ascii")
    return board, grid, Position(board, grid, state["mines"])


def assert_running_state(state: dict[str, Any]) -> None:
    assert set(state) >= ISSUE_STATE_FIELDS
    assert not ENDED_ONLY & set(state), "a running game's state shows layout/witness/loss"
    assert state["status"] == "playing"
    assert len(state["board"]) == state["height"]
    assert all(len(row) == state["width"] for row in state["board"])
    assert all(set(row) <= set("012345678.F#") for row in state["board"])


def test_a_bot_wins_a_no_guess_game_with_the_solver(bot: Bot) -> None:
    game = bot.create(**BEGINNER)
    state = game["state"]
    assert_running_state(state)
    assert (state["width"], state["height"], state["mines"]) == (9, 9, 10)
    assert (state["topology"], state["count"], state["mercy"]) == ("square", "classic", "strict")
    state = bot.move(game, "reveal", 4, 4)
    assert sum(row.count(".") for row in state["board"]) < 81 - 9  # a zero region opened
    for _ in range(81):
        if state["status"] != "playing":
            break
        assert_running_state(state)
        board, grid, position = visible(state)
        safe = sorted(c for c in classify(position).safe_cells() if grid[c] == ord("."))
        assert safe, "a no-guess board left the bot without a safe cell"
        state = bot.move(game, "reveal", *board.coord(safe[0]))
    assert state["status"] == "won"
    assert "layout" in state and "witness" not in state and "loss" not in state
    mines = assert_consistent(state["board"], state["layout"], Topology.SQUARE)
    assert len(mines) == 10
    # every covered cell is a mine, every mine covered
    covered = {r * 9 + c for r in range(9) for c in range(9) if state["board"][r][c] in ".F"}
    assert covered == mines
    log = bot.client.get(f"/api/games/{game['id']}/moves").json
    assert [m["seq"] for m in log["moves"]] == list(range(1, state["moves"] + 1))
    assert {m["kind"] for m in log["moves"]} == {"reveal"}
    after = bot.post(game, "reveal", {"row": 0, "col": 0})
    assert after.status_code == 409 and "error" in after.json
    assert bot.state(game["id"]) == state


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"topology": "hex"},
        {"topology": "torus"},
        {"count": "counted"},
        {"mercy": "fair", "no_guess": False},
        {"holes": [[0, 0], [0, 1], [8, 8]]},
    ],
)
def test_a_loss_shows_a_consistent_witness_with_a_mine_on_the_click(
    bot: Bot, extra: dict[str, Any]
) -> None:
    game = bot.create(**{**BEGINNER, "width": 12, "height": 12, "mines": 20, **extra})
    state = bot.move(game, "reveal", 6, 6)
    board, grid, position = visible(state)
    count = Count(state["count"])
    try:
        verdicts: Any = oracle.classify(position, count).verdicts
    except ValueError:  # too many edge cells for brute force
        verdicts = None
    decided = classify(position, count)
    either = [
        c for c in board.cells() if grid[c] == ord(".") and decided.verdict(c) is Verdict.EITHER
    ]
    assert either
    target = either[0]
    if verdicts is not None:
        assert verdicts[target] is Verdict.EITHER
    row, col = board.coord(target)
    state = bot.move(game, "reveal", row, col)
    if state["status"] == "playing":  # fair mercy may redraw; then nothing is shown yet
        assert extra.get("mercy") == "fair"
        assert_running_state(state)
        return
    assert state["status"] == "lost"
    assert set(state) >= ENDED_ONLY
    assert state["loss"] == [row, col]
    topology = Topology(state["topology"])
    witness = assert_consistent(state["board"], state["witness"], topology)
    layout = assert_consistent(state["board"], state["layout"], topology)
    assert target in witness
    assert len(layout) == state["mines"]
    if state["count"] == "counted":
        assert len(witness) == state["mines"]
    for picture in (state["witness"], state["layout"]):
        for r, line in enumerate(picture):
            for c, ch in enumerate(line):
                assert (ch == "#") == (state["board"][r][c] == "#")


# -- the JSON API: status codes and malformed requests --------------------------------------


def test_status_codes_of_issue_3(bot: Bot, client: FlaskClient) -> None:
    game = bot.create(**BEGINNER)
    assert client.get(f"/api/games/{game['id']}").status_code == 200
    assert client.get("/api/games/no-such-game").status_code == 404
    assert client.get("/api/games/no-such-game/moves").status_code == 404
    unknown = client.post(
        "/api/games/no-such-game/reveal",
        json={"row": 0, "col": 0},
        headers={"Authorization": f"Bearer {game['token']}"},
    )
    assert unknown.status_code == 404
    assert bot.post(game, "reveal", {"row": 0, "col": 0}, token="wrong").status_code == 403
    no_token = client.post(f"/api/games/{game['id']}/reveal", json={"row": 0, "col": 0})
    assert no_token.status_code == 403
    off = bot.post(game, "reveal", {"row": 9, "col": 0})
    assert off.status_code == 400 and off.json["field"] == "row"
    huge = bot.post(game, "flag", data=b'{"row": 0, "col": 0, "pad": "' + b"x" * 20000 + b'"}')
    assert huge.status_code == 413
    other = bot.create(**BEGINNER)
    assert bot.post(other, "reveal", {"row": 4, "col": 4}, token=game["token"]).status_code == 403


def test_rate_limit_answers_429_json(make_app: Any) -> None:
    app: Flask = make_app(RATELIMIT_ENABLED=True, MOVE_RATE_LIMIT="3 per minute")
    bot = Bot(app.test_client())
    game = bot.create(**BEGINNER)
    codes = [bot.post(game, "flag", {"row": 0, "col": i}).status_code for i in range(5)]
    assert codes == [200, 200, 200, 429, 429]
    limited = bot.post(game, "flag", {"row": 1, "col": 1})
    assert limited.status_code == 429 and "error" in limited.json
    assert len(bot.snapshot(game)[1]) == 3


GARBAGE: list[tuple[str, Any]] = [
    ("reveal", {"row": -1, "col": 0}),
    ("reveal", {"row": 0, "col": -1}),
    ("reveal", {"row": 9, "col": 0}),
    ("reveal", {"row": 10**30, "col": 0}),
    ("reveal", {"row": 1.5, "col": 0}),
    ("reveal", {"row": True, "col": 0}),
    ("reveal", {"row": None, "col": 0}),
    ("reveal", {"row": [1], "col": {}}),
    ("reveal", {"col": 0}),
    ("reveal", {}),
    ("reveal", [4, 4]),
    ("reveal", "4,4"),
    ("reveal", None),
    ("flag", {"row": 4, "col": 4}),  # revealed
    ("chord", {"row": 0, "col": 0}),  # covered
    ("unflag", {"row": 0, "col": 0}),  # not flagged
]
RAW_GARBAGE = [b'{"row": 0,', b"\xff\xfe\x00", b"NaN", b'{"row": NaN, "col": 0}', b"[]", b""]


def test_malformed_requests_never_change_a_stored_game(bot: Bot) -> None:
    game = bot.create(**BEGINNER)
    bot.move(game, "reveal", 4, 4)
    bot.move(game, "flag", 0, 8)
    before = bot.snapshot(game)
    for action, body in GARBAGE:
        response = bot.post(game, action, body)
        assert 400 <= response.status_code < 500, (action, body, response.status_code)
        assert "error" in response.json, (action, body)
    for raw in RAW_GARBAGE:
        for action in ("reveal", "flag", "chord", "unflag"):
            response = bot.post(game, action, data=raw)
            assert 400 <= response.status_code < 500, (action, raw, response.status_code)
    assert bot.snapshot(game) == before


def test_moves_after_the_end_are_409_and_change_nothing(bot: Bot) -> None:
    game = bot.create(**BEGINNER)
    bot.move(game, "reveal", 4, 4)
    state = bot.state(game["id"])
    board, grid, position = visible(state)
    decided = classify(position)
    risky = next(
        c for c in board.cells() if grid[c] == ord(".") and decided.verdict(c) is not Verdict.SAFE
    )
    assert bot.move(game, "reveal", *board.coord(risky))["status"] == "lost"
    ended = bot.snapshot(game)
    for action in ("reveal", "flag", "unflag", "chord"):
        for row, col in ((0, 0), (4, 4), *[board.coord(risky)]):
            response = bot.post(game, action, {"row": row, "col": col})
            assert response.status_code in (400, 409), (action, row, col)
            assert response.status_code == 409 or "field" in response.json
    assert bot.snapshot(game) == ended


# -- secrets --------------------------------------------------------------------------------


def covered_cell_tags(html: str) -> dict[tuple[int, int], str]:
    """Every tag of a covered, unflagged board cell (any id prefix), coordinates stripped."""
    found = {}
    pattern = r'<(?:button|div|span|a)\b[^>]*\bid="(?:[\w]+-)?c-(\d+)-(\d+)"[^>]*>'
    for match in re.finditer(pattern, html):
        tag = match.group(0)
        if "covered" not in tag or re.search(r'class="[^"]*\bflag', tag):
            continue  # flags are the player's own marks
        tag = re.sub(r'\b(id|value|aria-label|tabindex|href|hx-vals)="[^"]*"', "", tag)
        found[(int(match.group(1)), int(match.group(2)))] = re.sub(r"\s+", " ", tag)
    return found


META_CSRF = re.compile(r'<meta name="csrf-token" content="([^"]+)">')


def browser_game(client: FlaskClient) -> tuple[str, str]:
    """A beginner game started from the home page form, as a browser does: (id, csrf)."""
    match = META_CSRF.search(client.get("/").get_data(as_text=True))
    assert match, "the home page has no csrf-token meta tag"
    csrf = match.group(1)
    form = {"preset": "beginner", "topology": "square", "count": "classic", "mercy": "strict",
            "no_guess": "on", "csrf_token": csrf}  # fmt: skip
    response = client.post("/new", data=form)
    assert response.status_code == 303
    game_id = response.headers["Location"].rsplit("/", 1)[1]
    return game_id, csrf


def test_nothing_sent_during_a_browser_game_tells_mines_from_safe_cells(
    client: FlaskClient,
) -> None:
    gid, csrf = browser_game(client)
    htmx = {"HX-Request": "true", "X-CSRFToken": csrf}
    sent: list[str] = []

    def get(path: str, **headers: str) -> None:
        sent.append(client.get(path, headers=headers).get_data(as_text=True))

    def play(kind: str, cell: int | None = None, at: str | None = None) -> None:
        if at is None:
            row, col = board.coord(cell)
            at = f"{row},{col}"
        data = {"kind": kind, "at": at}
        sent.append(client.post(f"/g/{gid}/move", data=data, headers=htmx).get_data(as_text=True))

    get(f"/g/{gid}")
    play("open", at="4,4")
    board, grid, position = visible(client.get(f"/api/games/{gid}").json)
    mines_now = sorted(c for c in classify(position).mine_cells() if grid[c] == ord("."))
    if mines_now:
        play("flag", mines_now[0])
    for _ in range(4):
        sent.append(client.post(f"/g/{gid}/hint", headers=htmx).get_data(as_text=True))
    for n in range(client.get(f"/api/games/{gid}").json["moves"] + 1):
        get(f"/g/{gid}/replay/{n}")
        get(f"/g/{gid}/replay/{n}", **{"HX-Request": "true"})
        get(f"/api/games/{gid}/replay/{n}")
    for path in (f"/api/games/{gid}", f"/api/games/{gid}/moves", f"/api/games/{gid}/events",
                 f"/g/{gid}/hints"):  # fmt: skip
        get(path)
    get(f"/g/{gid}", **{"HX-Request": "true"})
    watcher = client.application.test_client()
    sent.append(watcher.get(f"/g/{gid}").get_data(as_text=True))
    # now lose on purpose, learn the layout, and look back at everything that was sent
    board, grid, position = visible(client.get(f"/api/games/{gid}").json)
    decided = classify(position)
    unflagged = [c for c in position.covered_cells() if grid[c] == ord(".")]
    # an undecided cell if there is one; on a board the opening decided whole, a known mine
    risky = sorted(unflagged, key=lambda c: decided.verdict(c) is not Verdict.EITHER)
    play("open", next(c for c in risky if decided.verdict(c) is not Verdict.SAFE))
    sent.pop()  # the losing answer may show everything
    ended = client.get(f"/api/games/{gid}").json
    assert ended["status"] == "lost"
    mines = {
        (r, c) for r, line in enumerate(ended["layout"]) for c, ch in enumerate(line) if ch == "*"
    }
    seed = str(ended["seed"])
    tagged = 0
    for body in sent:
        assert seed not in body, "the secret seed was sent before the end"
        for word in ('"layout"', '"witness"', '"loss"'):
            assert word not in body, word
        tags = covered_cell_tags(body)
        tagged += len(tags)
        on_mines = {t for cell, t in tags.items() if cell in mines}
        on_safe = {t for cell, t in tags.items() if cell not in mines}
        assert not on_safe or on_mines <= on_safe, on_mines - on_safe
    assert tagged > 100, "the scan found no covered cells: the page format changed?"


def analyse_status(client: FlaskClient, total: str, count: str) -> int:
    query = {"p": f"1../1../...;mines={total}", "count": count}
    return client.get("/analyse", query_string=query).status_code


def test_analysis_link_with_an_absurd_mine_total_is_a_clear_answer(client: FlaskClient) -> None:
    assert analyse_status(client, "9" * 20, "counted") in (200, 400)
    assert analyse_status(client, "100", "classic") in (200, 400)


def test_analysis_link_with_density_one_is_a_clear_answer(client: FlaskClient) -> None:
    assert analyse_status(client, "9", "classic") in (200, 400)


def test_a_damaged_compressed_analysis_link_says_so(client: FlaskClient) -> None:
    line = "/".join(["1" + "." * 300] * 30)
    packed = base64.urlsafe_b64encode(zlib.compress(line.encode(), 9)).decode().rstrip("=")
    assert client.get("/analyse", query_string={"z": packed}).status_code == 200
    for damaged in ("!!!", packed[: len(packed) // 2]):
        response = client.get("/analyse", query_string={"z": damaged})
        assert response.status_code == 400
        text = response.get_data(as_text=True)
        assert "damaged link" in text
        assert "longer than" not in text


def test_htmx_never_settles_inline_styles_our_csp_would_block(client: FlaskClient) -> None:
    html = client.get("/").get_data(as_text=True)
    csp = client.get("/").headers["Content-Security-Policy"]
    assert "unsafe-inline" not in csp
    match = re.search(r"<meta name=\"htmx-config\" content='([^']*)'>", html)
    assert match, "no htmx-config meta tag"
    config = json.loads(match.group(1).replace("&#34;", '"').replace("&quot;", '"'))
    # htmx's default settles "style" too: at a game's end the whole board is swapped and the
    # board's old style attribute was copied back, which the CSP refused (console errors)
    assert "style" not in config.get("attributesToSettle", ["style"])
    assert config.get("includeIndicatorStyles") is False


def issue_neighbours(
    topology: str, height: int, width: int, r: int, c: int
) -> set[tuple[int, int]]:
    """Neighbours exactly as issue 2 words them (written here, not taken from devil.board)."""
    if topology == "hex":
        rows = (-1, 0) if r % 2 == 0 else (0, 1)
        steps = [(0, -1), (0, 1)] + [(dr, dc) for dr in (-1, 1) for dc in rows]
        return {
            (r + dr, c + dc) for dr, dc in steps if 0 <= r + dr < height and 0 <= c + dc < width
        }
    around = {(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)} - {(0, 0)}
    if topology == "torus":
        return {((r + dr) % height, (c + dc) % width) for dr, dc in around} - {(r, c)}
    return {(r + dr, c + dc) for dr, dc in around if 0 <= r + dr < height and 0 <= c + dc < width}


@pytest.mark.parametrize("topology", ["hex", "torus", "square"])
def test_cli_witnesses_follow_the_issues_neighbour_rules(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, topology: str
) -> None:
    rows = ["........", "..2.1...", "...1....", ".2......", "....3...", "........"]
    path = tmp_path / "pos.txt"
    path.write_text("\n".join(rows) + "\n")
    height, width = len(rows), len(rows[0])
    code, out, err = run_cli(capsys, "--format", "json", "--topology", topology, str(path))
    assert code == 0, err
    verdicts = {(c["row"], c["col"]): c["verdict"] for c in json.loads(out)["cells"]}
    checked = 0
    for (r, c), verdict in sorted(verdicts.items()):
        if verdict == "safe":
            continue
        code, out, err = run_cli(
            capsys, "--format", "json", "--topology", topology, "--cell", f"{r},{c}",
            "--witness", str(path),
        )  # fmt: skip
        assert code == 1, err
        witness = json.loads(out)["witness"]
        assert witness[r][c] == "*"
        for rr in range(height):
            for cc in range(width):
                if rows[rr][cc].isdigit():
                    near = issue_neighbours(topology, height, width, rr, cc)
                    mined = sum(1 for y, x in near if witness[y][x] == "*")
                    assert mined == int(rows[rr][cc]), (topology, (r, c), (rr, cc))
        checked += 1
    assert checked >= 5


def test_a_board_too_big_for_no_guess_does_not_claim_to_be_no_guess(bot: Bot) -> None:
    game = bot.create(width=101, height=100, mines=1500, seed=3)
    assert game["state"]["no_guess"] is False  # 10,100 cells: above the generator's limit
    state = bot.move(game, "reveal", 50, 50)
    assert state["no_guess"] is False
    small = bot.create(width=9, height=9, mines=10, seed=3)
    assert small["state"]["no_guess"] is True
    assert bot.move(small, "reveal", 4, 4)["no_guess"] is True  # verified when drawn
