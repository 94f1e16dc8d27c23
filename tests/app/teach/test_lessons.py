"""The lessons of an ended game: what was provably safe at the losing click, how hard a won
board was."""

from __future__ import annotations

import html
import re

from flask.testing import FlaskClient

from devil.board import Board
from devil.rules import Count
from devil.teach.levels import grade
from tests.helpers.teach import (
    HX,
    NAMED,
    cell_of_id,
    check_numbers_named_like_the_api,
    click,
    highlights,
    lose,
    playing_game_with_safe_cell,
    proof_items,
    state,
)
from tests.helpers.web import oracle_verdicts


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
