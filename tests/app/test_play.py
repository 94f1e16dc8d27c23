"""The HTML pages through the Flask test client: every page and fragment route, status codes,
``Vary: HX-Request``, out-of-band answers that carry only the changed cells, watchers who
cannot move, CSRF on every POST, and nothing about mines in the HTML while a game runs.

Which cells are safe or risky is asked of the brute-force oracle (``tests.conftest``), on
the public API state: these tests never read the hidden layout.
"""

from __future__ import annotations

import gzip
import json
import re
from html.parser import HTMLParser
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from app.api.routes import GRAPH_BODY_MAX
from app.play.params import BROWSER_MAX_SIDE
from app.play.routes import CELL_SWAP_LIMIT, NEW_GAME_FORM_MAX
from devil.board import hole_pattern
from tests.helpers.web import (
    HX,
    META_CSRF,
    chunked_post,
    csrf_token,
    move,
    new_game,
    oracle_verdicts,
)

X = "\u00d7"  # the multiplication sign the pages write sizes with


# -- helpers -----------------------------------------------------------------------------


class Elements(HTMLParser):
    """Collects every start tag as (tag, attributes)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs)))


def elements(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = Elements()
    parser.feed(html)
    return parser.found


class FormDepth(HTMLParser):
    """Records the ids of elements that sit inside a <form>."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.inside: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "form":
            self.depth += 1
        element_id = dict(attrs).get("id")
        if self.depth and element_id:
            self.inside.add(element_id)

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.depth -= 1


def ids_inside_forms(html: str) -> set[str]:
    parser = FormDepth()
    parser.feed(html)
    return parser.inside


def by_id(html: str) -> dict[str, tuple[str, dict[str, str | None]]]:
    return {a["id"]: (t, a) for t, a in elements(html) if a.get("id")}


def cells(html: str) -> dict[str, dict[str, str | None]]:
    """Real board cells (ids c-R-C) -> attributes."""
    return {
        a["id"]: a
        for _, a in elements(html)
        if a.get("id") and re.fullmatch(r"c-\d+-\d+", a["id"] or "")
    }


def state(client: FlaskClient, game_id: str) -> dict[str, Any]:
    response = client.get(f"/api/games/{game_id}")
    assert response.status_code == 200
    body: dict[str, Any] = response.get_json()
    return body


def log_length(client: FlaskClient, game_id: str) -> int:
    return len(client.get(f"/api/games/{game_id}/moves").get_json()["moves"])


def cells_by_verdict(client: FlaskClient, game_id: str, letter: str) -> list[tuple[int, int]]:
    st = state(client, game_id)
    return [
        rc for rc, v in sorted(oracle_verdicts(st).items())
        if v == letter and st["board"][rc[0]][rc[1]] == "."
    ]  # fmt: skip


def lose(client: FlaskClient, game_id: str) -> tuple[int, int]:
    risky = cells_by_verdict(client, game_id, "?") or cells_by_verdict(client, game_id, "M")
    cell = risky[len(risky) // 2]
    assert move(client, game_id, f"{cell[0]},{cell[1]}").status_code == 200
    assert state(client, game_id)["status"] == "lost"
    return cell


def win(client: FlaskClient, game_id: str) -> int:
    moves = log_length(client, game_id)
    while state(client, game_id)["status"] == "playing":
        safe = cells_by_verdict(client, game_id, "S")
        assert safe, "stuck on a no-guess board"
        assert move(client, game_id, f"{safe[0][0]},{safe[0][1]}").status_code == 200
        moves += 1
    assert state(client, game_id)["status"] == "won"
    return moves


MINE_CLASSES = re.compile(r'class="[^"]*\b(rm|wm|boom|wrong-r|wrong-w)\b')


# -- home and new games ------------------------------------------------------------------


def test_home_page_has_the_new_game_form(client: FlaskClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    tags = elements(html)
    radios = {(a.get("name"), a.get("value")) for t, a in tags if a.get("type") == "radio"}
    for preset in ("beginner", "intermediate", "expert", "custom"):
        assert ("preset", preset) in radios
    for topology in ("square", "torus", "hex", "holes"):
        assert ("topology", topology) in radios
    rules = {("count", "classic"), ("count", "counted"), ("mercy", "strict"), ("mercy", "fair")}
    assert rules <= radios
    no_guess = next(a for t, a in tags if a.get("name") == "no_guess")
    assert "checked" in no_guess, "no-guess is on by default"
    assert any(a.get("name") == "seed" for t, a in tags)
    assert f"up to {BROWSER_MAX_SIDE}{X}{BROWSER_MAX_SIDE} in the browser" in html
    for size in (f"9{X}9, 10 mines", f"16{X}16, 40 mines", f"30{X}16, 99 mines"):
        assert size in html
    assert "Games you start in this browser appear here." in html
    # base layout: CSRF for htmx, vendored scripts only
    assert META_CSRF.search(html)
    body = next(a for t, a in tags if t == "body")
    assert '"X-CSRFToken"' in (body.get("hx-headers") or "")
    scripts = [a.get("src") or "" for t, a in tags if t == "script"]
    assert "/static/vendor/htmx.min.js" in scripts
    assert all(src.startswith("/static/") for src in scripts), scripts
    assert not any(a.get("style") for _, a in tags), "inline styles break the CSP"


@pytest.mark.parametrize(
    ("fields", "size", "holes"),
    [
        ({"preset": "beginner"}, (9, 9), 0),
        ({"preset": "intermediate"}, (16, 16), 0),
        ({"preset": "expert"}, (16, 30), 0),
        ({"preset": "custom", "width": "12", "height": "7", "mines": "15"}, (7, 12), 0),
        ({"preset": "intermediate", "topology": "holes"}, (16, 16), 16),
    ],
)
def test_new_game_from_the_form(
    client: FlaskClient, fields: dict[str, str], size: tuple[int, int], holes: int
) -> None:
    game_id = new_game(client, **fields)
    st = state(client, game_id)
    assert (st["height"], st["width"]) == size
    assert sum(row.count("#") for row in st["board"]) == holes
    html = client.get(f"/g/{game_id}").get_data(as_text=True)
    board_cells = cells(html)
    assert len(board_cells) == size[0] * size[1]
    assert sum("hole" in (a.get("class") or "") for a in board_cells.values()) == holes
    # the owner gets buttons (outside any form: replacing form controls is O(n^2) in
    # Chromium), a tiny hidden form per kind of move, and one tab stop
    buttons = [a for a in board_cells.values() if a.get("type") == "button"]
    assert not ids_inside_forms(html) & (set(board_cells) | {"board"})
    assert {"board-form", "flag-form"} <= set(by_id(html))
    assert len(buttons) == size[0] * size[1] - holes
    assert sum(a.get("tabindex") == "0" for a in board_cells.values()) == 1
    assert all(a.get("role") == "gridcell" for a in board_cells.values())
    assert 'role="grid"' in html and html.count('role="row"') == size[0]
    assert board_cells["c-0-0"]["aria-label"] == "row 0, col 0, covered"
    # and it is listed as a recent game of this browser
    assert f'href="/g/{game_id}"' in client.get("/").get_data(as_text=True)


def test_new_game_counted_fair_no_guess_off(client: FlaskClient) -> None:
    game_id = new_game(client, count="counted", mercy="fair", no_guess="", seed="")
    st = state(client, game_id)
    assert (st["count"], st["mercy"], st["no_guess"]) == ("counted", "fair", False)
    html = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert "counted · fair" in html and "no-guess" not in html.split('class="rules"')[1][:80]


@pytest.mark.parametrize(
    ("fields", "field_named"),
    [
        ({"preset": "custom", "width": "500", "height": "10", "mines": "5"}, "width 500"),
        ({"preset": "custom", "width": "10", "height": "0", "mines": "5"}, "height 0"),
        ({"preset": "custom", "width": "5", "height": "5", "mines": "20"}, "mines"),
        ({"preset": "custom", "width": "", "height": "5", "mines": "2"}, "width is missing"),
        ({"preset": "huge"}, "preset"),
        ({"topology": "dodecahedron"}, "topology"),  # "cube" is a tiling now
        ({"count": "many"}, "count"),
        ({"seed": "abc"}, "seed"),
    ],
)
def test_new_game_rejects_bad_fields(
    client: FlaskClient, fields: dict[str, str], field_named: str
) -> None:
    form = {"preset": "beginner", "topology": "square", "csrf_token": csrf_token(client)}
    form.update(fields)
    response = client.post("/new", data=form)
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    error = re.search(r'<p class="form-error"[^>]*>([^<]*)</p>', html)
    assert error and field_named in error.group(1), error
    assert 'name="preset"' in html, "the form is shown again"


def test_hex_and_torus_boards_render_their_shape(client: FlaskClient) -> None:
    hex_html = client.get(f"/g/{new_game(client, topology='hex')}").get_data(as_text=True)
    assert "topo-hex" in hex_html
    assert hex_html.count('class="row odd"') == 4  # rows 1, 3, 5, 7 of 9 are shifted
    torus_id = new_game(client, topology="torus")
    torus_html = client.get(f"/g/{torus_id}").get_data(as_text=True)
    ghosts = [a for _, a in elements(torus_html) if (a.get("id") or "").startswith("g-")]
    assert len(ghosts) == 2 * 9 + 2 * 9 + 4  # a ring around the 9x9 board
    assert all(a.get("aria-hidden") == "true" and "ghost" in (a.get("class") or "") for a in ghosts)
    assert "the left edge touches the right edge" in torus_html


# -- the game page and its fragments -------------------------------------------------------


def test_game_page_and_fragment_vary_on_hx_request(client: FlaskClient) -> None:
    game_id = new_game(client)
    page = client.get(f"/g/{game_id}")
    fragment = client.get(f"/g/{game_id}", headers=HX)
    assert page.status_code == fragment.status_code == 200
    for response in (page, fragment):
        assert "HX-Request" in response.headers.get("Vary", "")
    assert page.get_data(as_text=True).lstrip().startswith("<!doctype html>")
    body = fragment.get_data(as_text=True).strip()
    assert body.startswith('<div id="game"') and "<html" not in body
    assert cells(body).keys() == cells(page.get_data(as_text=True)).keys()


def check_answer(html: str, before: list[str], after: list[str]) -> tuple[set[str], set[str]]:
    """A move's answer holds exactly the changed cells and the numbers beside them (whose
    labels count their flagged and covered neighbours), or exactly the rows holding those
    (``CELL_SWAP_LIMIT``), each as an out-of-band swap showing the new state.

    Returns the ids swapped: (cells, rows)."""
    height, width = len(after), len(after[0])
    changed = {(r, c) for r in range(height) for c in range(width) if before[r][c] != after[r][c]}
    changed |= {
        (r + dr, c + dc)
        for r, c in changed
        for dr in (-1, 0, 1)
        for dc in (-1, 0, 1)
        if 0 <= r + dr < height and 0 <= c + dc < width and after[r + dr][c + dc] in "12345678"
    }
    oob = {a["id"] for _, a in elements(html) if a.get("hx-swap-oob") and a.get("id")}
    cell_ids = {i for i in oob if re.fullmatch(r"c-\d+-\d+", i)}
    row_ids = {i for i in oob if re.fullmatch(r"r-\d+", i)}
    if len(changed) <= CELL_SWAP_LIMIT:
        assert cell_ids == {f"c-{r}-{c}" for r, c in changed} and not row_ids
    else:
        assert row_ids == {f"r-{r}" for r, _ in changed} and not cell_ids
    assert oob - cell_ids - row_ids <= {"status", "announce", "toast", "watch-poll", "hints"}
    sent = cells(html)
    assert set(sent) == (cell_ids or {f"c-{r[2:]}-{c}" for r in row_ids for c in range(width)}), (
        "row answers hold every cell of their rows"
    )
    for cell_id, attrs in sent.items():
        r, c = (int(x) for x in cell_id.split("-")[1:])
        value = after[r][c]
        expected = {".": "covered", "F": "flagged", "0": "empty"}.get(value, f"{value}: ")
        assert attrs["aria-label"].startswith(f"row {r}, col {c}, {expected}")
        if value in "012345678":
            assert f"n{value}" in (attrs.get("class") or "").split()
    return cell_ids, row_ids


def test_a_click_answers_with_only_the_changed_cells(client: FlaskClient) -> None:
    game_id = new_game(client, preset="intermediate", seed="21")
    before = state(client, game_id)["board"]
    response = move(client, game_id, "8,8")
    assert response.status_code == 200
    assert "HX-Request" in response.headers.get("Vary", "")
    html = response.get_data(as_text=True)
    after = state(client, game_id)["board"]
    check_answer(html, before, after)
    ids = by_id(html)
    assert ids["status"][1].get("hx-swap-oob") == "true"
    assert "announce" in ids and "board" not in ids and "game" not in ids
    # small changes answer cell by cell
    safe = cells_by_verdict(client, game_id, "S")
    if safe:
        one = move(client, game_id, f"{safe[0][0]},{safe[0][1]}").get_data(as_text=True)
        newer = state(client, game_id)["board"]
        cell_ids, row_ids = check_answer(one, after, newer)
        assert cell_ids and not row_ids
        after = newer
    # flagging answers with exactly one cell and the status bar
    target = next((r, c) for r in range(16) for c in range(16) if after[r][c] == ".")
    flagged = move(client, game_id, f"{target[0]},{target[1]}", kind="flag")
    sent = cells(flagged.get_data(as_text=True))
    assert next(iter(sent)) == f"c-{target[0]}-{target[1]}"
    beside = [tuple(int(x) for x in i.split("-")[1:]) for i in list(sent)[1:]]
    assert all(max(abs(r - target[0]), abs(c - target[1])) == 1 for r, c in beside)
    assert all(after[r][c] in "12345678" for r, c in beside), "only the numbers beside it"
    assert "flag" in (sent[f"c-{target[0]}-{target[1]}"].get("class") or "").split()
    assert "039" in flagged.get_data(as_text=True)  # mines left in the status bar


def test_a_plain_form_post_redirects_back(client: FlaskClient) -> None:
    game_id = new_game(client)
    response = move(client, game_id, "4,4", htmx=False)
    assert response.status_code == 303
    assert response.headers["Location"] == f"/g/{game_id}"
    assert log_length(client, game_id) == 1


def test_watchers_see_a_read_only_board_and_cannot_move(app: Flask, client: FlaskClient) -> None:
    game_id = new_game(client)
    move(client, game_id, "4,4")
    watcher = app.test_client()
    html = watcher.get(f"/g/{game_id}").get_data(as_text=True)
    assert "board-form" not in html and "flag-form" not in html
    assert not [a for a in cells(html).values() if a.get("type") == "button"]
    assert 'aria-readonly="true"' in html and "You are watching this game" in html
    poll = by_id(html)["watch-poll"][1]
    assert poll["hx-get"] == f"/g/{game_id}?since=1", "the watcher's page fetches changes"
    assert poll["hx-trigger"] == "sse:move, sse:end, every 10s"
    assert by_id(html)["watch"][1]["sse-connect"] == f"/api/games/{game_id}/events"
    assert "/static/vendor/htmx-ext-sse.min.js" in html
    for kind in ("open", "flag"):
        response = move(watcher, game_id, "0,0", kind=kind)
        assert response.status_code == 403
        assert "only the browser that started it can play" in response.get_data(as_text=True)
    assert log_length(client, game_id) == 1


def test_watch_polling_answers_changes_since_a_move(app: Flask, client: FlaskClient) -> None:
    game_id = new_game(client)
    watcher = app.test_client()
    assert watcher.get(f"/g/{game_id}?since=0", headers=HX).status_code == 204
    move(client, game_id, "4,4")
    response = watcher.get(f"/g/{game_id}?since=0", headers=HX)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    check_answer(html, ["." * 9] * 9, state(client, game_id)["board"])
    assert not [a for a in cells(html).values() if a.get("type") == "button"], "watchers get spans"
    poll = by_id(html)["watch-poll"][1]
    assert poll["hx-get"] == f"/g/{game_id}?since=1" and poll["hx-swap-oob"] == "true"
    assert "watch" not in by_id(html), "the event stream's element stays (no reconnect)"
    assert watcher.get(f"/g/{game_id}?since=1", headers=HX).status_code == 204
    assert watcher.get(f"/g/{game_id}?since=7", headers=HX).status_code == 400
    assert watcher.get(f"/g/{game_id}?since=x", headers=HX).status_code == 400


# -- errors --------------------------------------------------------------------------------


def test_posts_without_a_csrf_token_are_refused(client: FlaskClient) -> None:
    game_id = new_game(client)
    response = client.post(f"/g/{game_id}/move", data={"kind": "open", "at": "4,4"}, headers=HX)
    assert response.status_code == 400
    assert "security token" in response.get_data(as_text=True)
    assert log_length(client, game_id) == 0
    response = client.post("/new", data={"preset": "beginner"})
    assert response.status_code == 400
    bad = client.post(
        f"/g/{game_id}/move", data={"kind": "open", "at": "4,4"},
        headers={"X-CSRFToken": "forged", **HX},
    )  # fmt: skip
    assert bad.status_code == 400
    assert log_length(client, game_id) == 0


@pytest.mark.parametrize(
    ("form", "code", "text"),
    [
        ({"kind": "open", "at": "x"}, 400, "at must be"),
        ({"kind": "open", "at": "4;4"}, 400, "at must be"),
        ({"kind": "open", "at": "9,0"}, 400, "row 9 is off the board"),
        ({"kind": "open", "at": "0,-1"}, 400, "col -1 is off the board"),
        ({"kind": "boom", "at": "1,1"}, 400, "kind must be one of"),
        ({"kind": "open", "row": "1"}, 400, "col is missing"),
    ],
)
def test_bad_moves_get_400_and_change_nothing(
    client: FlaskClient, form: dict[str, str], code: int, text: str
) -> None:
    game_id = new_game(client)
    headers = {"X-CSRFToken": csrf_token(client), **HX}
    response = client.post(f"/g/{game_id}/move", data=form, headers=headers)
    assert response.status_code == code
    html = response.get_data(as_text=True)
    assert text in html
    assert 'id="toast"' in html and "c-" not in html, "an error answers with a message only"
    assert log_length(client, game_id) == 0
    token = {"X-CSRFToken": headers["X-CSRFToken"]}
    page = client.post(f"/g/{game_id}/move", data=form, headers=token)
    assert page.status_code == code and "<!doctype html>" in page.get_data(as_text=True)


def test_unknown_games_are_404(client: FlaskClient) -> None:
    for path in ("/g/nope", "/g/nope/replay/0", "/g/nope/replay?n=0"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert "There is no game with the id nope here." in response.get_data(as_text=True)
    assert move(client, "nope", "0,0").status_code == 404


def test_illegal_moves_get_409_with_an_explanation(client: FlaskClient) -> None:
    game_id = new_game(client)
    move(client, game_id, "4,4")
    board = state(client, game_id)["board"]
    covered = next((r, c) for r in range(9) for c in range(9) if board[r][c] == ".")
    move(client, game_id, f"{covered[0]},{covered[1]}", kind="flag")
    response = move(client, game_id, f"{covered[0]},{covered[1]}")
    assert response.status_code == 409
    assert f"The cell at row {covered[0]}, col {covered[1]} is flagged" in response.get_data(
        as_text=True
    )
    revealed = next((r, c) for r in range(9) for c in range(9) if board[r][c] in "12345678")
    chord = move(client, game_id, f"{revealed[0]},{revealed[1]}")
    assert chord.status_code == 409 and "flagged neighbours" in chord.get_data(as_text=True)
    assert log_length(client, game_id) == 2


def test_moves_after_the_end_are_409(client: FlaskClient) -> None:
    game_id = new_game(client)
    move(client, game_id, "4,4")
    lose(client, game_id)
    moves = log_length(client, game_id)
    response = move(client, game_id, "0,0")
    assert response.status_code == 409
    assert "This game is over" in response.get_data(as_text=True)
    assert log_length(client, game_id) == moves


# -- endings -------------------------------------------------------------------------------


def test_losing_shows_the_witness_and_the_real_layout(client: FlaskClient) -> None:
    game_id = new_game(client)
    move(client, game_id, "4,4")
    running = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert not MINE_CLASSES.search(running)
    risky = cells_by_verdict(client, game_id, "?") or cells_by_verdict(client, game_id, "M")
    loss = risky[len(risky) // 2]
    response = move(client, game_id, f"{loss[0]},{loss[1]}")
    html = response.get_data(as_text=True)
    ids = by_id(html)
    assert ids["game"][1].get("hx-swap-oob") == "true", "the end swaps the whole game"
    st = state(client, game_id)
    assert st["status"] == "lost" and tuple(st["loss"]) == loss
    board_cells = cells(html)
    boom = board_cells[f"c-{loss[0]}-{loss[1]}"]
    assert {"boom", "wm"} <= set((boom.get("class") or "").split())
    for r, row in enumerate(st["witness"]):
        for c, ch in enumerate(row):
            classes = set((board_cells[f"c-{r}-{c}"].get("class") or "").split())
            assert ("wm" in classes) == (ch == "*")
            assert ("rm" in classes) == (st["layout"][r][c] == "*")
    assert "The devil wins" in html and 'id="show-real"' in html and 'id="show-witness"' in html
    assert f"row {loss[0]}, col {loss[1]}" in html
    assert "Boom" in ids["announce"][1].get("hx-swap-oob", "") or "Boom" in html
    assert not [a for a in board_cells.values() if a.get("type") == "button"], "no more buttons"


def test_winning_shows_time_and_moves(client: FlaskClient) -> None:
    game_id = new_game(client, count="counted", seed="4")
    move(client, game_id, "4,4")
    moves = win(client, game_id)
    html = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert "You beat the devil" in html
    stats = rf"Cleared in <strong>\d+:\d\d</strong> with <strong>{moves} moves</strong>"
    assert re.search(stats, html)
    assert "Play again" in html
    assert 'data-end="' in html, "the clock has stopped"


LCD_MINES = re.compile(
    r'<div class="lcd mines-left"[^>]*><span class="sr-only">[^<]*</span>([^<]*)</div>'
)


def test_the_mine_counter_shows_000_on_a_win_only(client: FlaskClient) -> None:
    game_id = new_game(client, seed="4")
    first = move(client, game_id, "4,4").get_data(as_text=True)
    assert LCD_MINES.findall(first) == ["010"], "playing: mines minus flags"
    mine = cells_by_verdict(client, game_id, "M")
    flagged = move(client, game_id, f"{mine[0][0]},{mine[0][1]}", kind="flag")
    assert LCD_MINES.findall(flagged.get_data(as_text=True)) == ["009"]
    last = None
    while state(client, game_id)["status"] == "playing":
        cell = cells_by_verdict(client, game_id, "S")[0]
        last = move(client, game_id, f"{cell[0]},{cell[1]}").get_data(as_text=True)
    assert state(client, game_id)["status"] == "won" and last is not None
    assert LCD_MINES.findall(last) == ["000"], "the winning click's status bar"
    page = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert LCD_MINES.findall(page) == ["000"], "the won game's page"


def test_the_mine_counter_keeps_mines_minus_flags_on_a_loss(client: FlaskClient) -> None:
    game_id = new_game(client)
    move(client, game_id, "4,4")
    covered = cells_by_verdict(client, game_id, "?") or cells_by_verdict(client, game_id, "M")
    flag = covered[0]
    move(client, game_id, f"{flag[0]},{flag[1]}", kind="flag")
    risky = [c for c in covered if c != flag]
    answer = move(client, game_id, f"{risky[-1][0]},{risky[-1][1]}").get_data(as_text=True)
    assert state(client, game_id)["status"] == "lost"
    assert LCD_MINES.findall(answer) == ["009"]
    page = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert LCD_MINES.findall(page) == ["009"]


# -- replay ---------------------------------------------------------------------------------


def test_replay_pages_and_fragments(client: FlaskClient) -> None:
    game_id = new_game(client)
    move(client, game_id, "4,4")
    board = state(client, game_id)["board"]
    covered = next((r, c) for r in range(9) for c in range(9) if board[r][c] == ".")
    move(client, game_id, f"{covered[0]},{covered[1]}", kind="flag")
    for n in (0, 1, 2):
        page = client.get(f"/g/{game_id}/replay/{n}")
        fragment = client.get(f"/g/{game_id}/replay/{n}", headers=HX)
        assert page.status_code == fragment.status_code == 200
        assert "HX-Request" in page.headers["Vary"] and "HX-Request" in fragment.headers["Vary"]
        body = fragment.get_data(as_text=True).strip()
        assert body.startswith('<div id="replay-view"') and f'data-n="{n}"' in body
        assert f'href="/g/{game_id}/replay/{n}"' in body, "share link"
        replay_cells = {
            a["id"]: a for _, a in elements(body) if (a.get("id") or "").startswith("rp-c-")
        }
        assert len(replay_cells) == 81
        assert not MINE_CLASSES.search(body), "a running game's replay shows no mines"
    start = client.get(f"/g/{game_id}/replay/0", headers=HX).get_data(as_text=True)
    assert start.count("cell covered") == 81 and "Before the first move." in start
    last = client.get(f"/g/{game_id}/replay/2", headers=HX).get_data(as_text=True)
    assert f"Move 2 of 2: flag row {covered[0]}, col {covered[1]}." in last
    # the slider's form: fragment for htmx, a redirect to the share URL otherwise
    assert 'data-n="1"' in client.get(f"/g/{game_id}/replay?n=1", headers=HX).get_data(as_text=True)
    assert 'data-n="2"' in client.get(f"/g/{game_id}/replay", headers=HX).get_data(as_text=True)
    plain = client.get(f"/g/{game_id}/replay?n=1")
    assert plain.status_code == 303 and plain.headers["Location"] == f"/g/{game_id}/replay/1"
    for bad in ("/replay/3", "/replay?n=-1", "/replay?n=x"):
        assert client.get(f"/g/{game_id}{bad}", headers=HX).status_code in (400, 404), bad


def page_parts(html: str) -> tuple[str, str]:
    """The error page's heading and first paragraph (the site's own page, not Werkzeug's)."""
    page = r'<section class="panel error-page">\s*<h1>([^<]*)</h1>\s*<p>([^<]*)</p>'
    match = re.search(page, html)
    assert match, html[:300]
    return match.group(1), match.group(2).replace("&#39;", "'")


def test_the_replay_pages_address_follows_the_slider(client: FlaskClient) -> None:
    """On the replay page a step swaps in the new move and the address says it (reload and
    copy stay on that move); the game page's replay panel leaves the game's address."""
    game_id = new_game(client)
    move(client, game_id, "4,4")
    on_replay = {**HX, "HX-Current-URL": f"http://localhost/g/{game_id}/replay/0"}
    for url in (f"/g/{game_id}/replay/1", f"/g/{game_id}/replay?n=1"):
        step = client.get(url, headers=on_replay)
        assert (
            step.status_code == 200 and step.headers["HX-Replace-Url"] == f"/g/{game_id}/replay/1"
        )
    on_game = {**HX, "HX-Current-URL": f"http://localhost/g/{game_id}"}
    assert "HX-Replace-Url" not in client.get(f"/g/{game_id}/replay?n=1", headers=on_game).headers


@pytest.mark.parametrize(
    ("url", "code", "message"),
    [
        ("/replay?n=-1", 404, "move -1 does not exist: this game has 2 moves"),
        ("/replay/-1", 404, "move -1 does not exist: this game has 2 moves"),
        ("/replay?n=3", 404, "move 3 does not exist: this game has 2 moves"),
        ("/replay/99", 404, "move 99 does not exist: this game has 2 moves"),
        ("/replay?n=x", 400, "n must be a move number, not 'x'"),
        ("/replay/1.5", 400, "n must be a move number, not '1.5'"),
    ],
)
def test_a_replay_of_a_move_that_does_not_exist_gets_the_sites_error_page(
    client: FlaskClient, url: str, code: int, message: str
) -> None:
    game_id = new_game(client)
    move(client, game_id, "4,4")
    move(client, game_id, "0,0", kind="flag")
    assert log_length(client, game_id) == 2
    page = client.get(f"/g/{game_id}{url}")
    assert page.status_code == code, "an error page, not a redirect to one"
    assert page.mimetype == "text/html"
    title, text = page_parts(page.get_data(as_text=True))
    assert text == message
    assert title == ("No such move" if code == 404 else "That did not work")
    fragment = client.get(f"/g/{game_id}{url}", headers=HX)
    assert fragment.status_code == code
    assert 'class="toast-msg"' in fragment.get_data(as_text=True), "htmx gets a toast"


def test_replay_of_a_finished_game_shows_its_mines(client: FlaskClient) -> None:
    game_id = new_game(client)
    move(client, game_id, "4,4")
    lose(client, game_id)
    last = client.get(f"/g/{game_id}/replay/2", headers=HX).get_data(as_text=True)
    assert " wm" in last and " boom" in last and "The game was lost." in last
    first = client.get(f"/g/{game_id}/replay/1", headers=HX).get_data(as_text=True)
    assert " wm" in first and " boom" not in first


# -- the new-game form and big answers ------------------------------------------------------


def test_hole_pattern_is_symmetric_and_leaves_room() -> None:
    assert hole_pattern(4, 4) == []
    assert sorted(map(tuple, hole_pattern(9, 9))) == [(3, 3), (3, 4), (4, 3), (4, 4)]
    holes = {tuple(h) for h in hole_pattern(16, 16)}
    assert len(holes) == 16
    assert holes == {(15 - r, 15 - c) for r, c in holes}


def _without_tokens(page: bytes) -> bytes:
    token = re.search(rb'name="csrf-token" content="([^"]+)"', page)
    assert token is not None
    return page.replace(token.group(1), b"TOKEN")


def test_big_pages_are_gzipped_for_clients_that_accept_it(client: FlaskClient) -> None:
    game_id = new_game(client, preset="expert")
    plain = client.get(f"/g/{game_id}")
    zipped = client.get(f"/g/{game_id}", headers={"Accept-Encoding": "gzip, deflate"})
    assert "Content-Encoding" not in plain.headers
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in zipped.headers["Vary"] and "HX-Request" in zipped.headers["Vary"]
    # The CSRF token carries a timestamp, so two fetches differ in it across a second boundary.
    assert _without_tokens(gzip.decompress(zipped.get_data())) == _without_tokens(plain.get_data())
    assert len(zipped.get_data()) * 5 < len(plain.get_data())
    small = client.get("/", headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in small.headers, "small pages are sent as they are"


def test_a_big_cascade_answers_with_rows(client: FlaskClient) -> None:
    game_id = new_game(client, preset="custom", width="40", height="30", mines="20", no_guess="")
    before = state(client, game_id)["board"]
    html = move(client, game_id, "15,20").get_data(as_text=True)
    after = state(client, game_id)["board"]
    cell_ids, row_ids = check_answer(html, before, after)
    assert not cell_ids and 1 < len(row_ids) <= 30
    assert html.count('hx-swap-oob="true"') == len(row_ids) + 2  # the rows, status, hints


def test_a_flood_of_clicks_gets_429_with_a_message(make_app: Any) -> None:
    app = make_app(RATELIMIT_ENABLED=True, MOVE_RATE_LIMIT="3 per minute")
    client = app.test_client()
    game_id = new_game(client, preset="intermediate")
    codes = [move(client, game_id, f"0,{c}", kind="flag").status_code for c in range(5)]
    assert codes == [200, 200, 200, 429, 429]
    flood = move(client, game_id, "0,9", kind="flag")
    assert flood.status_code == 429
    assert "Too many clicks too fast" in flood.get_data(as_text=True)
    assert 'id="toast"' in flood.get_data(as_text=True)
    assert log_length(client, game_id) == 3


def test_game_pages_are_never_cached(client) -> None:  # type: ignore[no-untyped-def]
    for path in ("/", "/analyse"):
        assert client.get(path).headers["Cache-Control"] == "no-store", path


# -- request body limit (app/hooks.py) -----------------------------------------------------


def test_a_chunked_body_over_the_limit_is_413_like_a_long_content_length(
    app: Flask, client: FlaskClient
) -> None:
    limit = GRAPH_BODY_MAX  # a new game may carry a graph board: its own, higher limit
    big = json.dumps({"width": 9, "height": 9, "mines": 10, "pad": "x" * limit}).encode()
    assert len(big) > limit
    declared = client.post("/api/games", data=big, content_type="application/json")
    chunked = chunked_post(client, "/api/games", big, content_type="application/json")
    assert declared.status_code == chunked.status_code == 413
    assert chunked.get_json() == declared.get_json()
    assert chunked.get_json() == {"error": f"the request body is larger than {limit} bytes"}


def test_a_chunked_body_within_the_limit_is_read_whole(app: Flask, client: FlaskClient) -> None:
    limit = app.config["MAX_CONTENT_LENGTH"]
    fields = {"width": 9, "height": 9, "mines": 10, "seed": 5}
    padding = limit - len(json.dumps(fields).encode())  # JSON whitespace: no unknown field
    exact = json.dumps(fields).encode() + b" " * padding
    assert len(exact) == limit, "exactly at the limit is allowed"
    created = chunked_post(client, "/api/games", exact, content_type="application/json")
    assert created.status_code == 201, created.get_data(as_text=True)
    assert created.get_json()["state"]["width"] == 9, "the body was read, not dropped"
    game = created.get_json()
    reveal = json.dumps({"row": 4, "col": 4}).encode()
    answer = chunked_post(
        client, f"/api/games/{game['id']}/reveal", reveal,
        content_type="application/json", headers={"Authorization": f"Bearer {game['token']}"},
    )  # fmt: skip
    assert answer.status_code == 200, answer.get_data(as_text=True)
    assert answer.get_json()["moves"] == 1


def test_a_chunked_form_over_the_limit_gets_the_413_page(client: FlaskClient) -> None:
    token = csrf_token(client)
    form = f"csrf_token={token}&preset=beginner&pad={'x' * NEW_GAME_FORM_MAX}".encode()
    page = chunked_post(client, "/new", form, content_type="application/x-www-form-urlencoded")
    assert page.status_code == 413
    assert page.mimetype == "text/html"
    assert 'class="panel error-page"' in page.get_data(as_text=True)


def test_the_board_has_a_busy_indicator_for_moves_in_flight(
    app: Flask, client: FlaskClient
) -> None:
    game_id = new_game(client)
    html = client.get(f"/g/{game_id}").get_data(as_text=True)
    found = by_id(html)
    assert "board-busy" in found, "the indicator is on the page"
    _tag, attrs = found["board-busy"]
    assert attrs.get("aria-hidden") == "true" and "htmx-request" not in (attrs.get("class") or "")
    for form_id in ("board-form", "flag-form"):
        assert found[form_id][1].get("hx-indicator") == "#board-busy", form_id
    busy = re.search(r'<div id="board-busy"[^>]*>(.*?)</div>', html)
    assert busy and re.sub(r"<[^>]+>", "", busy.group(1)) == "Thinking\u2026", "fixed text only"
    watcher = app.test_client()
    assert 'id="board-busy"' not in watcher.get(f"/g/{game_id}").get_data(as_text=True)
