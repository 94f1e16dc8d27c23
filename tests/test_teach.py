"""The teaching side of the web app (``app/teach.py``): hint ladder, lessons, analysis board,
puzzles and boards by level. Answers are checked against the brute-force oracle."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from devil import oracle
from devil.analysis import Verdict
from devil.board import Board
from devil.levels import grade
from devil.position import Position
from devil.rules import Count
from tests.conftest import oracle_verdicts, visible

HX = {"HX-Request": "true"}


@pytest.fixture
def app(make_app: Callable[..., Flask]) -> Flask:
    return make_app(WTF_CSRF_ENABLED=False)


# -- helpers ----------------------------------------------------------------------------------


def new_game(client: FlaskClient, **form: str) -> str:
    data = {"preset": "beginner", "count": "classic", "mercy": "strict", "no_guess": "on"}
    data.update(form)
    response = client.post("/new", data=data)
    assert response.status_code == 303, response.get_data(as_text=True)
    match = re.search(r"/g/([\w-]+)$", response.headers["Location"])
    assert match
    return match.group(1)


def click(client: FlaskClient, game_id: str, row: int, col: int, kind: str = "open") -> None:
    response = client.post(f"/g/{game_id}/move", data={"kind": kind, "at": f"{row},{col}"})
    assert response.status_code in (200, 303), response.get_data(as_text=True)


def state(client: FlaskClient, game_id: str) -> dict[str, Any]:
    response = client.get(f"/api/games/{game_id}")
    assert response.status_code == 200
    body: dict[str, Any] = response.get_json()
    return body


def log(client: FlaskClient, game_id: str) -> list[dict[str, Any]]:
    moves: list[dict[str, Any]] = client.get(f"/api/games/{game_id}/moves").get_json()["moves"]
    return moves


def highlights(body: str, element_id: str) -> dict[str, list[str]]:
    match = re.search(rf'id="{element_id}"[^>]*data-highlight="([^"]*)"', body)
    assert match, f"no data-highlight on #{element_id}"
    data: dict[str, list[str]] = json.loads(html.unescape(match.group(1)))
    return data


def cell_of_id(cell_id: str) -> tuple[int, int]:
    match = re.search(r"c-(\d+)-(\d+)$", cell_id)
    assert match
    return int(match.group(1)), int(match.group(2))


def started_game(client: FlaskClient, **form: str) -> str:
    game_id = new_game(client, **form)
    click(client, game_id, 4, 4)
    assert state(client, game_id)["status"] in ("playing", "won")
    return game_id


def playing_game_with_safe_cell(client: FlaskClient) -> str:
    for seed in range(1, 40):
        game_id = started_game(client, seed=str(seed))
        s = state(client, game_id)
        if s["status"] == "playing" and "S" in oracle_verdicts(s).values():
            return game_id
    raise AssertionError("no beginner game with a safe cell after the first click")


# -- the hint ladder --------------------------------------------------------------------------


def test_hint_ladder_climbs_one_rung_at_a_time_and_is_recorded(client: FlaskClient) -> None:
    game_id = playing_game_with_safe_cell(client)
    page = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert 'id="hints"' in page and "Is there a safe cell at all?" in page

    bodies = []
    for _ in range(4):
        response = client.post(f"/g/{game_id}/hint", headers=HX)
        assert response.status_code == 200
        bodies.append(response.get_data(as_text=True))
    assert "Yes:" in bodies[0] and "Where should I look?" in bodies[0]
    assert "Look at rows" in bodies[1] and "hl-region" in highlights(bodies[1], "hints")
    assert "is safe." in bodies[2]
    assert "Why is it safe?" in bodies[2]

    final = highlights(bodies[3], "hints")
    (target,) = final["hl-target"]
    verdicts = oracle_verdicts(state(client, game_id))
    assert verdicts[cell_of_id(target)] == "S"
    board_rows = state(client, game_id)["board"]
    for number in final["hl-number"]:
        r, c = cell_of_id(number)
        assert board_rows[r][c] in "12345678", "a highlighted number is not a revealed number"
    assert 'class="proof-steps"' in bodies[3]

    hints = [e for e in log(client, game_id) if e["kind"] == "hint"]
    assert [e["level"] for e in hints] == [1, 2, 3, 4]
    assert (hints[2]["row"], hints[2]["col"]) == cell_of_id(target)

    # the top of the ladder: asking again records nothing more
    client.post(f"/g/{game_id}/hint", headers=HX)
    assert len([e for e in log(client, game_id) if e["kind"] == "hint"]) == 4
    assert 'id="hints-used">4<' in client.get(f"/g/{game_id}").get_data(as_text=True)


def test_a_move_resets_the_ladder(client: FlaskClient) -> None:
    game_id = playing_game_with_safe_cell(client)
    for _ in range(3):
        client.post(f"/g/{game_id}/hint", headers=HX)
    target = highlights(client.get(f"/g/{game_id}/hints").get_data(as_text=True), "hints")
    r, c = cell_of_id(target["hl-target"][0])
    click(client, game_id, r, c)
    panel = client.get(f"/g/{game_id}/hints").get_data(as_text=True)
    assert "Is there a safe cell at all?" in panel and "hint-answer" not in panel
    assert 'id="hints-used">3<' in panel


def test_before_the_first_click_the_hint_says_it_is_safe(client: FlaskClient) -> None:
    game_id = new_game(client)
    body = client.post(f"/g/{game_id}/hint", headers=HX).get_data(as_text=True)
    assert "your first click is always safe" in body
    assert 'id="hint-button"' not in body, "nothing more to ask before the first click"


def test_hints_without_htmx_redirect_to_the_game(client: FlaskClient) -> None:
    game_id = playing_game_with_safe_cell(client)
    response = client.post(f"/g/{game_id}/hint")
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"/g/{game_id}")


def test_watchers_cannot_ask_for_hints(app: Flask, client: FlaskClient) -> None:
    game_id = playing_game_with_safe_cell(client)
    watcher = app.test_client()
    assert watcher.post(f"/g/{game_id}/hint", headers=HX).status_code == 403
    assert 'id="hints"' not in watcher.get(f"/g/{game_id}").get_data(as_text=True)
    assert not [e for e in log(client, game_id) if e["kind"] == "hint"]


def test_hint_on_unknown_game_is_404(client: FlaskClient) -> None:
    assert client.post("/g/nope/hint", headers=HX).status_code == 404


def test_hints_need_the_csrf_token(make_app: Callable[..., Flask]) -> None:
    client = make_app(WTF_CSRF_ENABLED=True).test_client()
    page = client.get("/").get_data(as_text=True)
    token = re.search(r'name="csrf-token" content="([^"]+)"', page)
    assert token
    response = client.post("/new", data={"preset": "beginner", "csrf_token": token.group(1)})
    game_id = response.headers["Location"].rsplit("/", 1)[1]
    assert client.post(f"/g/{game_id}/hint", headers=HX).status_code == 400
    ok = client.post(f"/g/{game_id}/hint", headers={**HX, "X-CSRFToken": token.group(1)})
    assert ok.status_code == 200


def test_hints_reveal_nothing_the_position_does_not_prove(client: FlaskClient) -> None:
    """Every cell the ladder names or marks safe is provably safe (oracle)."""
    for seed in (3, 4, 5):
        game_id = started_game(client, seed=str(seed))
        for _ in range(4):
            body = client.post(f"/g/{game_id}/hint", headers=HX).get_data(as_text=True)
        s = state(client, game_id)
        if s["status"] != "playing":
            continue
        verdicts = oracle_verdicts(s)
        marks = highlights(body, "hints")
        for cell_id in marks.get("hl-target", []):
            assert verdicts[cell_of_id(cell_id)] == "S"
        for cell_id in marks.get("hl-known", []):
            assert verdicts[cell_of_id(cell_id)] == "M"


# -- lessons when the game ends ---------------------------------------------------------------


def lose(client: FlaskClient) -> tuple[str, dict[str, Any]]:
    """A strict game lost by clicking an either-cell while safe cells existed."""
    for seed in range(1, 60):
        game_id = started_game(client, seed=str(seed))
        before = state(client, game_id)
        if before["status"] != "playing":
            continue
        verdicts = oracle_verdicts(before)
        either = sorted(rc for rc, v in verdicts.items() if v == "?")
        if either and "S" in verdicts.values():
            click(client, game_id, *either[0])
            assert state(client, game_id)["status"] == "lost"
            return game_id, before
    raise AssertionError("no losable game found")


def test_loss_shows_the_cells_that_were_safe_and_one_proof(client: FlaskClient) -> None:
    game_id, before = lose(client)
    page = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert 'id="loss-teaching"' in page
    truth = oracle_verdicts(before)
    safe = {rc for rc, v in truth.items() if v == "S"}
    count = re.search(r"When you clicked, <strong>(\d+)</strong>", page)
    assert count and int(count.group(1)) == len(safe)
    marks = highlights(page, "loss-teaching")
    assert {cell_of_id(i) for i in marks["hl-safe"]} == safe
    assert marks["hl-number"], "the proof's numbers are highlighted"
    assert 'class="proof-steps"' in page
    assert 'id="hints"' not in page


def test_win_shows_the_board_level_and_hints_used(client: FlaskClient) -> None:
    game_id = playing_game_with_safe_cell(client)
    client.post(f"/g/{game_id}/hint", headers=HX)
    s = state(client, game_id)
    while s["status"] == "playing":
        verdicts = oracle_verdicts(s)
        safe = sorted(
            rc for rc, v in verdicts.items() if v == "S" and s["board"][rc[0]][rc[1]] == "."
        )
        assert safe
        click(client, game_id, *safe[0])
        s = state(client, game_id)
    assert s["status"] == "won"
    page = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert 'id="win-lesson"' in page
    board = Board(s["height"], s["width"])
    layout = frozenset(
        board.cell(r, c)
        for r, row in enumerate(s["layout"])
        for c, ch in enumerate(row)
        if ch == "*"
    )
    expected = grade(board, layout, board.cell(4, 4), Count.CLASSIC)
    assert expected.cleared
    if expected.level:
        assert f"<strong>level {expected.level}</strong>" in page
    assert re.search(r"Hints used: <strong>1</strong>", page)


# -- the analysis board -----------------------------------------------------------------------


def cell_classes(body: str, prefix: str = "a-") -> dict[tuple[int, int], str]:
    out = {}
    for match in re.finditer(rf'id="{prefix}c-(\d+)-(\d+)" class="([^"]*)"', body):
        out[(int(match.group(1)), int(match.group(2)))] = match.group(3)
    return out


@pytest.mark.parametrize(
    ("line", "count"),
    [
        ("121/...", "classic"),
        ("1110/1..1/1..1/0111", "classic"),
        ("1../...;mines=1", "counted"),
        ("011/.../011;topology=hex", "classic"),
        ("111/1.1/111;topology=torus", "classic"),
    ],
)
def test_analysis_colours_every_covered_cell_like_the_oracle(
    client: FlaskClient, line: str, count: str
) -> None:
    response = client.get("/analyse", query_string={"p": line, "count": count})
    assert response.status_code == 200
    body = response.get_data(as_text=True)
    position = Position.from_line(line)
    truth = oracle.classify(position, Count(count))
    probs = oracle.probabilities(position, Count(count))
    classes = cell_classes(body)
    for cell, verdict in truth.verdicts.items():
        r, c = position.board.coord(cell)
        assert f"v-{verdict.value}" in classes[(r, c)].split()
        tip = re.search(rf'id="a-c-{r}-{c}"[^>]*data-tip="([^"]*)"', body)
        assert tip and f"{verdict.value}, mine probability" in tip.group(1)
        shown = tip.group(1).rsplit(" ", 1)[1]
        p = float(probs[cell])
        if shown.startswith(("<", ">")):
            assert 0 < p < 0.01 or 0.99 < p < 1
        else:
            assert int(shown.rstrip("%")) == round(p * 100)


def test_selecting_a_cell_shows_its_proof_with_numbers_highlighted(client: FlaskClient) -> None:
    body = client.get("/analyse?p=121/...&cell=1,2").get_data(as_text=True)
    assert 'id="proof"' in body and "row 1, col 2 is a mine" in body
    section = re.search(r'data-highlight="([^"]*)"', body)
    assert section
    marks = json.loads(html.unescape(section.group(1)))
    assert marks["hl-target"] == ["a-c-1-2"]
    assert len(marks["hl-number"]) == 2
    assert "level 2" in body


def test_either_cell_shows_two_consistent_layouts(client: FlaskClient) -> None:
    body = client.get("/analyse?p=1./..&cell=0,1").get_data(as_text=True)
    assert "A layout with a mine on row 0, col 1" in body
    assert "A layout with row 0, col 1 safe" in body
    position = Position.from_line("1./..")
    for prefix, has_mine in (("l0-", True), ("l1-", False)):
        classes = cell_classes(body, prefix)
        layout = {
            position.board.cell(*rc) for rc, cls in classes.items() if "lay-mine" in cls.split()
        }
        assert oracle.is_consistent(position, layout)
        assert (position.board.cell(0, 1) in layout) is has_mine


def test_stepping_through_the_deduction(client: FlaskClient) -> None:
    line = "1110/1..1/1..1/0111"
    body = client.get("/analyse", query_string={"p": line}).get_data(as_text=True)
    total = re.search(r"(\d+) steps? deduce every cell", body)
    assert total
    n = int(total.group(1))
    seen_mines: set[tuple[int, int]] = set()
    truth = oracle.classify(Position.from_line(line))
    for step in range(1, n + 1):
        page = client.get("/analyse", query_string={"p": line, "step": step}).get_data(as_text=True)
        assert f"Step {step} of {n}" in page
        found = re.search(r'data-highlight="([^"]*)"', page)
        assert found
        marks = json.loads(html.unescape(found.group(1)))
        for cell_id in marks.get("hl-new-mine", []):
            rc = cell_of_id(cell_id)
            seen_mines.add(rc)
            assert truth.verdict(Position.from_line(line).board.cell(*rc)) is Verdict.MINE
        if step > 1:
            assert "step-back" in page and f"step={step - 1}" in html.unescape(page)
        hide = re.search(r'class="btn step-clear" href="([^"]*)"', page)
        assert hide and hide.group(1).startswith("/analyse?"), "Hide steps links to the analysis"
    mines = {Position.from_line(line).board.coord(c) for c in truth.mine_cells()}
    assert seen_mines == mines


def test_paste_any_format_redirects_to_a_shareable_url(client: FlaskClient) -> None:
    response = client.post("/analyse", data={"text": "1 1 ?\n? ? ?\n", "count": "classic"})
    assert response.status_code == 303
    location = response.headers["Location"]
    assert "/analyse?p=11./..." in location.replace("%2F", "/")
    assert client.get(location).status_code == 200


def test_paste_errors_name_line_and_column(client: FlaskClient) -> None:
    response = client.post("/analyse", data={"text": "12\n1z\n"})
    assert response.status_code == 400
    body = response.get_data(as_text=True)
    assert "line 2" in body and "column" in body


def test_empty_paste_is_refused(client: FlaskClient) -> None:
    response = client.post("/analyse", data={"text": "  "})
    assert response.status_code == 400
    assert "text box is empty" in response.get_data(as_text=True)


def test_inconsistent_position_is_explained(client: FlaskClient) -> None:
    body = client.get("/analyse?p=0.2/...").get_data(as_text=True)
    assert 'id="analyse-error"' in body and "No layout of mines fits" in body


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"p": "12x/..."}, "p is not a one-line position"),
        ({"p": "1./..", "cell": "5,5"}, "off the 2x2 board"),
        ({"p": "1./..", "cell": "a"}, "cell must be 'row,col'"),
        ({"p": "1./..", "count": "maybe"}, "count must be classic or counted"),
        ({"p": "1./..", "step": "-1"}, "step -1 is outside"),
        ({"p": "/".join(["." * 101] * 100)}, "at most 10000 cells"),
        ({"new": "0x5"}, "height and width must be 1 to 100"),
    ],
)
def test_bad_analysis_queries_are_400(
    client: FlaskClient, query: dict[str, str], message: str
) -> None:
    response = client.get("/analyse", query_string=query)
    assert response.status_code == 400
    assert message in html.unescape(response.get_data(as_text=True))


def test_selecting_a_revealed_cell_shows_no_proof(client: FlaskClient) -> None:
    body = client.get("/analyse?p=121/...&cell=0,0").get_data(as_text=True)
    assert 'id="proof"' not in body


def test_counted_without_a_total_says_so(client: FlaskClient) -> None:
    body = client.get("/analyse?p=121/...&count=counted").get_data(as_text=True)
    assert "needs the total number of mines" in body


def test_drawing_cycles_a_cell(client: FlaskClient) -> None:
    response = client.get("/analyse?new=2x3")
    assert response.status_code == 303
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert re.search(r'id="a-c-0-0"[^>]*name="toggle" value="0,0"', page)
    step = client.get("/analyse", query_string={"p": ".../...", "toggle": "0,0"})
    assert step.status_code == 303
    location = html.unescape(step.headers["Location"]).replace("%2F", "/")
    assert "p=0../..." in location and "draw=1" in location
    # 8 -> hole -> covered
    hole = client.get("/analyse", query_string={"p": "8../...", "toggle": "0,0"})
    assert "p=%23../..." in hole.headers["Location"].replace("%2F", "/")


def test_cells_are_buttons_of_one_form_so_big_boards_stay_small(client: FlaskClient) -> None:
    line = "/".join(["." * 60] * 60)
    body = client.get("/analyse", query_string={"p": line}).get_data(as_text=True)
    assert body.count(line) < 10, "the position is repeated per cell"
    assert len(body) < 250 * 3600, f"{len(body)} bytes for 3600 cells"
    assert 'name="cell" value="59,59"' in body


def test_settings_change_topology_and_mines(client: FlaskClient) -> None:
    response = client.post(
        "/analyse/settings", data={"p": "121/...", "topology": "torus", "mines": "2"}
    )
    assert response.status_code == 303
    assert "topology%3Dtorus" in response.headers["Location"] or "topology=torus" in html.unescape(
        response.headers["Location"]
    )


def test_export_text_and_svg(client: FlaskClient) -> None:
    text = client.get("/analyse/export.txt?p=121/...;mines=2")
    assert text.status_code == 200 and text.mimetype == "text/plain"
    assert text.get_data(as_text=True) == "# mines: 2\n121\n...\n"
    svg = client.get("/analyse/export.svg?p=121/...")
    assert svg.mimetype == "image/svg+xml"
    body = svg.get_data(as_text=True)
    assert body.startswith("<svg") and body.count("<rect") == 6
    assert ">M<" in body and ">S<" in body


def test_analysis_page_shares_its_url(client: FlaskClient) -> None:
    body = client.get("/analyse?p=121/...").get_data(as_text=True)
    share = re.search(r'id="share-url" type="text" readonly value="([^"]+)"', body)
    assert share and "p=121" in html.unescape(share.group(1)).replace("%2F", "/")


# -- puzzles and boards by level --------------------------------------------------------------


def test_puzzle_without_seed_redirects_to_a_shareable_one(client: FlaskClient) -> None:
    response = client.get("/puzzle?preset=beginner&level=1")
    assert response.status_code == 303 and "seed=" in response.headers["Location"]


def test_puzzle_grades_answers_with_the_oracle(client: FlaskClient) -> None:
    page = client.get("/puzzle?preset=beginner&level=2&seed=3").get_data(as_text=True)
    assert "Find a safe cell" in page
    line = re.search(r"/analyse\?p=([^&\"]+)", html.unescape(page))
    assert line
    from urllib.parse import unquote

    position = Position.from_line(unquote(line.group(1)))
    truth = oracle.classify(position)
    answers = re.findall(r'href="(/puzzle[^"]*answer=(\d+),(\d+))"', page)
    assert answers
    checked = set()
    for href, r, c in answers:
        verdict = truth.verdict(position.board.cell(int(r), int(c)))
        if verdict.value in checked:
            continue
        checked.add(verdict.value)
        body = client.get(html.unescape(href)).get_data(as_text=True)
        message = re.search(r'id="puzzle-verdict"[^>]*>([^<]*)<', body)
        assert message
        assert message.group(1).startswith("Right" if verdict is Verdict.SAFE else "No")


def test_puzzle_bad_level_is_400(client: FlaskClient) -> None:
    response = client.get("/puzzle?preset=beginner&level=4&seed=1")
    assert response.status_code == 400
    assert "level 4 is outside 1..3" in response.get_data(as_text=True)


def test_level_game_has_the_level_asked_for(app: Flask, client: FlaskClient) -> None:
    response = client.post("/levels/new", data={"preset": "beginner", "level": "2"})
    assert response.status_code == 303
    game_id = response.headers["Location"].rsplit("/", 1)[1]
    s = state(client, game_id)
    assert s["status"] in ("playing", "won") and "layout" not in s
    with app.app_context():
        from app import games

        game = games.load_game(game_id).game
        assert game.layout is not None
        board = game.position.board
        result = grade(board, game.layout, board.cell(4, 4), Count.CLASSIC)
    assert result.cleared and result.level == 2
    assert visible(s).board.height == 9


def test_hints_and_puzzles_are_rate_limited(make_app: Callable[..., Flask]) -> None:
    app = make_app(
        WTF_CSRF_ENABLED=False,
        RATELIMIT_ENABLED=True,
        MOVE_RATE_LIMIT="3 per minute",
        CREATE_RATE_LIMIT="2 per minute",
    )
    client = app.test_client()
    game_id = new_game(client)  # one create
    codes = [client.post(f"/g/{game_id}/hint", headers=HX).status_code for _ in range(4)]
    assert codes[:3] == [200, 200, 200] and codes[3] == 429
    assert client.get("/puzzle?preset=beginner&level=1&seed=1").status_code == 200
    assert client.get("/puzzle?preset=beginner&level=1&seed=1").status_code == 429


def test_big_positions_travel_compressed(client: FlaskClient) -> None:
    """Servers cap the request line (gunicorn: 4094 bytes): long positions use ``z``."""
    rows = ["0" * 80] + ["1" * 80] + ["." * 80] * 78
    line = "/".join(rows)
    response = client.post("/analyse", data={"text": "\n".join(rows)})
    assert response.status_code == 303
    location = response.headers["Location"]
    assert "z=" in location and "p=" not in location and len(location) < 4000
    page = client.get(location)
    assert page.status_code == 200
    body = page.get_data(as_text=True)
    assert 'name="z"' in body
    assert (
        client.get(location.replace("/analyse?", "/analyse/export.txt?")).get_data(as_text=True)
        == line.replace("/", "\n") + "\n"
    )


def test_damaged_compressed_link_is_400(client: FlaskClient) -> None:
    response = client.get("/analyse?z=not-a-position")
    assert response.status_code == 400
    assert "damaged link" in response.get_data(as_text=True)


def test_a_teaching_failure_does_not_break_the_game_page(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    import app.teach

    game_id = playing_game_with_safe_cell(client)

    def broken(*args: Any) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(app.teach, "hint_view", broken)
    response = client.get(f"/g/{game_id}")
    assert response.status_code == 200
    assert 'id="board"' in response.get_data(as_text=True)
    assert 'id="hints"' not in response.get_data(as_text=True)


# -- one way of naming cells: zero-based, spelled out, as devil-check and the API ---------------

NAMED = re.compile(r"row (\d+), col (\d+)")
NUMBER_AT = re.compile(r"\bthe (\d) at row (\d+), col (\d+)", re.IGNORECASE)


def proof_items(body: str, section_id: str) -> list[str]:
    start = body.index(f'id="{section_id}"')
    block = body[start:]
    steps = re.search(r'<ol class="proof-steps"[^>]*>(.*?)</ol>', block, re.S)
    assert steps, f"no proof steps in #{section_id}"
    return [html.unescape(s) for s in re.findall(r"<li>(.*?)</li>", steps.group(1), re.S)]


def check_numbers_named_like_the_api(steps: list[str], board_rows: list[str]) -> None:
    """Every "the N at row r, col c" is the number N at board[r][c] counting from 0."""
    named = [m for s in steps for m in NUMBER_AT.findall(s)]
    assert named, f"the steps name no number: {steps}"
    for value, r, c in named:
        assert board_rows[int(r)][int(c)] == value, f"no {value} at row {r}, col {c}"


def test_hints_name_cells_as_the_api_and_devil_check_do(client: FlaskClient) -> None:
    game_id = playing_game_with_safe_cell(client)
    bodies = [client.post(f"/g/{game_id}/hint", headers=HX).get_data(as_text=True)]
    for _ in range(3):
        bodies.append(client.post(f"/g/{game_id}/hint", headers=HX).get_data(as_text=True))
    logged = [e for e in log(client, game_id) if e["kind"] == "hint"][2]
    which = re.search(r"The cell at row (\d+), col (\d+) is safe\.", html.unescape(bodies[2]))
    assert which, "rung 3 names the cell"
    assert (int(which.group(1)), int(which.group(2))) == (logged["row"], logged["col"])
    (target,) = highlights(bodies[2], "hints")["hl-target"]
    assert cell_of_id(target) == (logged["row"], logged["col"])

    region = re.search(r"Look at rows (\d+) to (\d+), cols (\d+) to (\d+)", bodies[1])
    assert region
    top, bottom, left, right = map(int, region.groups())
    marked = [cell_of_id(i) for i in highlights(bodies[1], "hints")["hl-region"]]
    assert (top, bottom) == (min(r for r, _ in marked), max(r for r, _ in marked))
    assert (left, right) == (min(c for _, c in marked), max(c for _, c in marked))

    board_rows = state(client, game_id)["board"]
    steps = proof_items(bodies[3], "hints")
    check_numbers_named_like_the_api(steps, board_rows)
    numbers = {cell_of_id(i) for i in highlights(bodies[3], "hints")["hl-number"]}
    named = {(int(r), int(c)) for s in steps for _, r, c in NUMBER_AT.findall(s)}
    assert numbers <= named, "the highlighted numbers are the ones the steps name"
    assert "counting from 1" not in bodies[3]


def test_loss_lesson_names_cells_as_the_api_does(client: FlaskClient) -> None:
    game_id, before = lose(client)
    page = html.unescape(client.get(f"/g/{game_id}").get_data(as_text=True))
    safe = {rc for rc, v in oracle_verdicts(before).items() if v == "S"}
    listed = re.search(r"provably safe\s+\(outlined in green\): (.*?)\.</p>", page, re.S)
    assert listed
    named = {(int(r), int(c)) for r, c in NAMED.findall(listed.group(1))}
    assert named == set(sorted(safe)[:12])
    example = re.search(r"For example <strong>row (\d+), col (\d+)</strong>", page)
    assert example and (int(example.group(1)), int(example.group(2))) in safe
    check_numbers_named_like_the_api(proof_items(page, "loss-teaching"), before["board"])
    assert "counting from 1" not in page


def test_analysis_proof_is_word_for_word_the_devil_check_proof(
    client: FlaskClient, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from devil import cli

    line = "121/...;mines=2"
    position = Position.from_line(line)
    path = tmp_path / "p.txt"
    path.write_text(position.to_text())
    for r, c in ((1, 0), (1, 1), (1, 2)):
        for count in ("classic", "counted"):
            body = client.get(f"/analyse?p={line}&cell={r},{c}&count={count}").get_data(
                as_text=True
            )
            flags = ["--counted"] if count == "counted" else []
            cli.main([str(path), "--cell", f"{r},{c}", "--explain", "--format", "json", *flags])
            proof = json.loads(capsys.readouterr().out)["proof"]
            assert proof_items(body, "proof") == proof["steps"]
            heading = re.search(r'<h3 id="proof-title">The cell at row (\d+), col (\d+) is', body)
            assert heading and (int(heading.group(1)), int(heading.group(2))) == (r, c)
            label = re.search(rf'id="a-c-{r}-{c}"[^>]*aria-label="([^"]*)"', body)
            assert label and label.group(1).startswith(f"row {r}, col {c},")


def test_analysis_errors_name_cells_zero_based(client: FlaskClient) -> None:
    body = html.unescape(client.get("/analyse?p=0.2/...").get_data(as_text=True))
    assert "the 2 at row 0, col 2" in body


# -- a bad paste keeps the text and says what is wrong, next to it --------------------------


def test_bad_paste_reshows_the_form_with_the_text_and_the_error(client: FlaskClient) -> None:
    pasted = "12\n1z\n"
    response = client.post(
        "/analyse", data={"text": pasted, "mines": "3", "topology": "torus", "p": "1./.."}
    )
    assert response.status_code == 400
    body = response.get_data(as_text=True)
    assert 'id="paste-form"' in body, "the analysis page again, not a dead-end error page"
    textarea = re.search(r'<textarea id="paste-text"[^>]*>\n?(.*?)</textarea>', body, re.S)
    assert textarea and html.unescape(textarea.group(1)) == pasted
    assert 'aria-describedby="paste-error"' in body
    error = re.search(r'<p class="form-error" role="alert" id="paste-error">(.*?)</p>', body, re.S)
    assert error and "line 2" in error.group(1) and "column 2" in error.group(1)
    form = body[body.index('id="paste-form"') :]
    assert '<option value="torus" selected>' in form and 'name="mines"' in form
    assert re.search(r'name="mines"[^>]*value="3"', form)
    # the board the player was looking at is still there
    assert 'id="a-c-1-1"' in body and 'id="a-c-2-0"' not in body
    assert "Start a new game" not in body


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"text": "  "}, "text box is empty"),
        ({"text": "1.\n..\n", "mines": "-1"}, "ines -1 is outside"),
        ({"text": "1.\n..\n", "topology": "sphere"}, "sphere"),
    ],
)
def test_every_bad_paste_keeps_the_form(
    client: FlaskClient, data: dict[str, str], message: str
) -> None:
    response = client.post("/analyse", data=data)
    assert response.status_code == 400
    body = response.get_data(as_text=True)
    error = re.search(r'id="paste-error">(.*?)</p>', body, re.S)
    assert error and message in html.unescape(error.group(1))
    assert 'id="paste-form"' in body


def test_bad_paste_with_a_damaged_board_field_falls_back_to_the_sample(client: FlaskClient) -> None:
    response = client.post("/analyse", data={"text": "1z", "p": "not a position"})
    assert response.status_code == 400
    assert 'id="paste-error"' in response.get_data(as_text=True)
