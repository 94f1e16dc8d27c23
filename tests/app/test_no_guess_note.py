"""A game asked to be guess-free that is not promised to be says so, in words, on its page and
in the API's state (``no_guess_asked``, ``no_guess_note``): the flag never drops silently."""

from __future__ import annotations

import re

from flask.testing import FlaskClient

from tests.helpers.graph_games import ISOLATED, reveal
from tests.helpers.web import Api

NOTE = re.compile(r'<p class="no-guess-note" role="status">([^<]*)</p>')


def test_an_impossible_no_guess_board_says_why_after_the_first_click(
    client: FlaskClient,
) -> None:
    answer = client.post("/api/games", json={"graph": ISOLATED, "mines": 2, "no_guess": True,
                                             "seed": 3})  # fmt: skip
    assert answer.status_code == 201, answer.get_data(as_text=True)
    game = answer.get_json()
    before = game["state"]
    assert (before["no_guess"], before["no_guess_asked"], before["no_guess_note"]) == (
        True, True, ""
    )  # fmt: skip
    assert not NOTE.search(client.get(f"/g/{game['id']}").get_data(as_text=True))
    state = reveal(client, game, "c0")
    assert state["status"] == "playing"
    assert (state["no_guess"], state["no_guess_asked"]) == (False, True)
    assert "no layout solvable by logic alone was found" in state["no_guess_note"]
    page = client.get(f"/g/{game['id']}").get_data(as_text=True)
    shown = NOTE.search(page)
    assert shown and shown.group(1) == state["no_guess_note"]
    assert client.get(f"/api/games/{game['id']}").get_json()["no_guess_note"] == shown.group(1)


def test_a_guaranteed_board_and_an_unasked_one_say_nothing(api: Api, client: FlaskClient) -> None:
    for asked in (True, False):
        game = api.create(width=9, height=9, mines=10, seed=5, no_guess=asked)
        state = api.move(game, "reveal", 4, 4)
        assert state["no_guess"] is asked and state["no_guess_asked"] is asked
        assert state["no_guess_note"] == ""
        assert not NOTE.search(client.get(f"/g/{game['id']}").get_data(as_text=True))


def test_a_board_too_big_to_generate_says_so_before_any_click(api: Api) -> None:
    state = api.create(width=101, height=100, mines=100, no_guess=True)["state"]
    assert (state["no_guess"], state["no_guess_asked"]) == (False, True)
    assert "generated up to 10,000 cells and this one has 10,100" in state["no_guess_note"]
