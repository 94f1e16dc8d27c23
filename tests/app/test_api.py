"""The JSON API: every route, every error code, the state's exact fields."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from app.api.routes import GRAPH_BODY_MAX
from app.play.setup import get_service
from tests.helpers.web import SMALL, Api, oracle_verdicts, play_to_win, safe_or_any

STATE_FIELDS = {
    "id", "width", "height", "mines", "topology", "count", "mercy", "no_guess",
    "no_guess_asked", "no_guess_note", "status", "moves", "board",
}  # fmt: skip


def covered(state: dict[str, Any]) -> int:
    return sum(row.count(".") + row.count("F") for row in state["board"])


# -- creating ------------------------------------------------------------------------------


def test_create_with_defaults_is_an_expert_game(client: FlaskClient) -> None:
    response = client.post("/api/games")
    assert response.status_code == 201
    assert response.headers["Location"].endswith(f"/api/games/{response.json['id']}")
    body = response.get_json()
    assert set(body) == {"id", "token", "state"}
    assert re.fullmatch(r"[A-Za-z0-9_-]{8,32}", body["id"])
    assert len(body["token"]) >= 32
    state = body["state"]
    assert set(state) == STATE_FIELDS
    assert (state["width"], state["height"], state["mines"]) == (30, 16, 99)
    assert (state["topology"], state["count"], state["mercy"]) == ("square", "classic", "strict")
    assert state["no_guess"] is True
    assert (state["status"], state["moves"], state["id"]) == ("playing", 0, body["id"])
    assert state["board"] == ["." * 30] * 16


def test_create_with_every_parameter(api: Api) -> None:
    body = api.create(
        width=12,
        height=7,
        mines=20,
        topology="hex",
        count="counted",
        mercy="fair",
        no_guess=False,
        seed=5,
    )
    state = body["state"]
    assert (state["width"], state["height"], state["mines"]) == (12, 7, 20)
    assert (state["topology"], state["count"], state["mercy"]) == ("hex", "counted", "fair")
    assert state["no_guess"] is False
    assert len(state["board"]) == 7 and all(len(r) == 12 for r in state["board"])
    assert "seed" not in state and "layout" not in state


def test_create_with_holes_shows_them(api: Api) -> None:
    state = api.create(width=5, height=4, mines=3, holes=[[0, 0], [3, 4]])["state"]
    assert state["board"][0][0] == "#" and state["board"][3][4] == "#"
    assert covered(state) == 18


def test_two_games_get_different_ids_and_tokens(api: Api) -> None:
    a, b = api.create(**SMALL), api.create(**SMALL)
    assert a["id"] != b["id"] and a["token"] != b["token"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"width": "wide"}, "width"),
        ({"width": 0}, "width"),
        ({"width": 1001}, "width"),
        ({"height": -3}, "height"),
        ({"height": True}, "height"),
        ({"width": 9, "height": 9, "mines": 73}, "mines"),
        ({"mines": 2.5}, "mines"),
        ({"topology": "cube"}, "topology"),
        ({"count": "approximately"}, "count"),
        ({"mercy": "lots"}, "mercy"),
        ({"no_guess": "maybe"}, "no_guess"),
        ({"seed": -1}, "seed"),
        ({"seed": 2**70}, "seed"),
        ({"holes": "everywhere"}, "holes"),
        ({"width": 4, "height": 4, "holes": [[9, 9]]}, "holes[0] row"),
    ],
)
def test_create_rejects_bad_parameters_naming_the_field(
    client: FlaskClient, body: dict[str, Any], field: str
) -> None:
    response = client.post("/api/games", json=body)
    assert response.status_code == 400
    assert response.json["field"] == field
    assert field.split("[")[0] in response.json["error"]


@pytest.mark.parametrize("raw", ["[1, 2]", "{not json", '"text"'])
def test_create_rejects_a_body_that_is_not_an_object(client: FlaskClient, raw: str) -> None:
    response = client.post("/api/games", data=raw, content_type="application/json")
    assert response.status_code == 400
    assert "JSON object" in response.json["error"]


def test_create_api_limit_is_1000_per_side(api: Api) -> None:
    state = api.create(width=1000, height=3, mines=10, no_guess=False)["state"]
    assert state["width"] == 1000


# -- reading -------------------------------------------------------------------------------


def test_get_state_and_unknown_game(api: Api, client: FlaskClient) -> None:
    game = api.create(**SMALL)
    assert api.state(game["id"]) == game["state"]
    for missing in ("nope", "x" * 40):
        response = client.get(f"/api/games/{missing}")
        assert response.status_code == 404
        assert "does not exist" in response.json["error"]
    for path in ("/api/games/nope/moves", "/api/games/nope/replay/0"):
        assert client.get(path).status_code == 404
    response = client.post("/api/games/nope/reveal", json={"row": 0, "col": 0})
    assert response.status_code == 404


# -- moving --------------------------------------------------------------------------------


def test_first_reveal_opens_a_zero_region(api: Api) -> None:
    game = api.create(**SMALL, no_guess=False)
    state = api.move(game, "reveal", 2, 3)
    assert state["board"][2][3] == "0"
    assert state["moves"] == 1 and state["status"] in ("playing", "won")
    assert covered(state) < 36 - 8


def test_flag_toggles_and_unflag_unflags(api: Api) -> None:
    game = api.create(**SMALL)
    assert api.move(game, "flag", 0, 0)["board"][0][0] == "F"
    assert api.move(game, "flag", 0, 0)["board"][0][0] == "."
    api.move(game, "unflag", 0, 0, expect=409)
    api.move(game, "flag", 0, 0)
    state = api.move(game, "unflag", 0, 0)
    assert state["board"][0][0] == "." and state["moves"] == 4
    assert [(m["kind"], m["row"], m["col"]) for m in api.log(game["id"])] == [
        ("flag", 0, 0),
        ("unflag", 0, 0),
        ("flag", 0, 0),
        ("unflag", 0, 0),
    ]


def test_reveal_on_a_revealed_or_flagged_cell_is_409(api: Api) -> None:
    game = api.create(**SMALL)
    api.move(game, "reveal", 2, 2)
    response = api.move(game, "reveal", 2, 2, expect=409)
    assert "already revealed" in response["error"]
    covered_cell = next(
        (r, c) for r, row in enumerate(api.state(game["id"])["board"]) for c, ch in enumerate(row)
        if ch == "."
    )  # fmt: skip
    api.move(game, "flag", *covered_cell)
    assert "flagged" in api.move(game, "reveal", *covered_cell, expect=409)["error"]
    assert len(api.log(game["id"])) == 2


def test_chord_reveals_around_a_satisfied_number(api: Api) -> None:
    """Flag the provable mines next to some number, then chord it."""
    for seed in range(40):
        game = api.create(width=7, height=7, mines=7, seed=seed)
        state = api.move(game, "reveal", 3, 3)
        verdicts = oracle_verdicts(state)
        target = _chordable(state, verdicts)
        if target is None:
            continue
        (r, c), mines = target
        for m in mines:
            state = api.move(game, "flag", *m)
        after = api.move(game, "chord", r, c)
        assert covered(after) < covered(state)
        assert after["status"] != "lost"
        assert api.log(game["id"])[-1]["kind"] == "chord"
        return
    pytest.fail("no seed gave a number with a provable mine and a safe neighbour")


def _chordable(state: dict[str, Any], verdicts: dict[tuple[int, int], str]) -> Any:
    board = state["board"]
    h, w = state["height"], state["width"]
    for r in range(h):
        for c in range(w):
            if not board[r][c].isdigit() or board[r][c] == "0":
                continue
            near = [
                (r + dr, c + dc)
                for dr in (-1, 0, 1)
                for dc in (-1, 0, 1)
                if (dr or dc) and 0 <= r + dr < h and 0 <= c + dc < w
            ]
            cov = [n for n in near if n in verdicts]
            mines = [n for n in cov if verdicts[n] == "M"]
            safe = [n for n in cov if verdicts[n] == "S"]
            if (
                mines
                and safe
                and len(mines) == int(board[r][c])
                and len(mines) + len(safe) == len(cov)
            ):
                return (r, c), mines
    return None


def test_chord_on_a_covered_cell_is_409(api: Api) -> None:
    game = api.create(**SMALL)
    state = api.move(game, "reveal", 2, 2)
    cell = safe_or_any(state)
    assert "not a revealed number" in api.move(game, "chord", *cell, expect=409)["error"]
    assert "nothing left" in api.move(game, "chord", 2, 2, expect=409)["error"]
    assert len(api.log(game["id"])) == 1


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"col": 1}, "row", "missing"),
        ({"row": 1}, "col", "missing"),
        ({"row": "one", "col": 1}, "row", "whole number"),
        ({"row": 1, "col": 1.5}, "col", "whole number"),
        ({"row": True, "col": 1}, "row", "whole number"),
        ({"row": 6, "col": 1}, "row", "off the board"),
        ({"row": 1, "col": -1}, "col", "off the board"),
        ({"row": None, "col": 1}, "row", "missing"),
        ({"row": [1], "col": 1}, "row", "whole number"),
    ],
)
def test_bad_coordinates_are_400_and_write_nothing(
    api: Api, client: FlaskClient, body: dict[str, Any], field: str, words: str
) -> None:
    game = api.create(**SMALL)
    for kind in ("reveal", "flag", "unflag", "chord"):
        response = client.post(
            f"/api/games/{game['id']}/{kind}",
            json=body,
            headers={"Authorization": f"Bearer {game['token']}"},
        )
        assert response.status_code == 400, (kind, response.json)
        assert response.json["field"] == field
        assert field in response.json["error"] and words in response.json["error"]
    assert api.log(game["id"]) == []


@pytest.mark.parametrize(
    ("data", "content_type"),
    [("", "application/json"), ("[0, 0]", "application/json"), ("row=1&col=2", "text/plain")],
)
def test_move_body_must_be_a_json_object(
    api: Api, client: FlaskClient, data: str, content_type: str
) -> None:
    game = api.create(**SMALL)
    response = client.post(
        f"/api/games/{game['id']}/reveal",
        data=data,
        content_type=content_type,
        headers={"Authorization": f"Bearer {game['token']}"},
    )
    assert response.status_code == 400
    assert response.json["field"] == "body"
    assert api.log(game["id"]) == []


def test_a_hole_is_not_a_cell(api: Api) -> None:
    game = api.create(width=5, height=5, mines=3, holes=[[0, 0]])
    response = api.move(game, "reveal", 0, 0, expect=400)
    assert "hole" in response["error"]


# -- who may move --------------------------------------------------------------------------


def test_moves_need_the_games_token(api: Api, client: FlaskClient) -> None:
    game = api.create(**SMALL)
    other = api.create(**SMALL)
    path = f"/api/games/{game['id']}/reveal"
    no_token = client.post(path, json={"row": 1, "col": 1})
    assert no_token.status_code == 403 and "Bearer" in no_token.json["error"]
    for header in (
        "Bearer wrong",
        f"Bearer {other['token']}",
        f"Basic {game['token']}",
        "Bearer ",
    ):
        response = client.post(path, json={"row": 1, "col": 1}, headers={"Authorization": header})
        assert response.status_code == 403, header
        assert "error" in response.json
    assert api.log(game["id"]) == []
    assert api.state(game["id"]) == game["state"]
    # the right token, in any case of the scheme word
    response = client.post(
        path, json={"row": 1, "col": 1}, headers={"Authorization": f"bearer {game['token']}"}
    )
    assert response.status_code == 200


def test_forbidden_is_checked_before_the_body(api: Api, client: FlaskClient) -> None:
    game = api.create(**SMALL)
    response = client.post(f"/api/games/{game['id']}/reveal", json={"row": "x"})
    assert response.status_code == 403


def test_watchers_can_read_without_a_token(api: Api, app: Flask) -> None:
    game = api.create(**SMALL)
    api.move(game, "reveal", 2, 2)
    watcher = app.test_client()
    assert watcher.get(f"/api/games/{game['id']}").status_code == 200
    assert watcher.get(f"/api/games/{game['id']}/moves").status_code == 200
    assert watcher.get(f"/api/games/{game['id']}/replay/1").status_code == 200


# -- game over -----------------------------------------------------------------------------


def test_win_shows_layout_and_further_moves_are_409(api: Api) -> None:
    game = api.create(**SMALL)
    states = play_to_win(api, game, (2, 2))
    final = states[-1]
    assert final["status"] == "won"
    assert set(final) == STATE_FIELDS | {"layout", "seed"}
    assert final["seed"] == SMALL["seed"]
    layout = final["layout"]
    assert sum(row.count("*") for row in layout) == SMALL["mines"]
    for r, row in enumerate(layout):
        for c, ch in enumerate(row):
            assert (ch == "*") == (final["board"][r][c] == "."), (r, c)
    for kind in ("reveal", "flag", "unflag", "chord"):
        response = api.move(game, kind, 0, 0, expect=409)
        assert "won" in response["error"]
    assert len(api.log(game["id"])) == len(states)
    assert api.state(game["id"]) == final


def test_loss_shows_witness_and_loss_cell(api: Api) -> None:
    game = api.create(width=8, height=8, mines=12, seed=3, no_guess=False)
    state = api.move(game, "reveal", 4, 4)
    verdicts = oracle_verdicts(state)
    risky = next(rc for rc, v in sorted(verdicts.items()) if v != "S")
    lost = api.move(game, "reveal", *risky)
    assert lost["status"] == "lost"
    assert set(lost) == STATE_FIELDS | {"layout", "witness", "loss", "seed"}
    assert lost["loss"] == list(risky)
    assert lost["witness"][risky[0]][risky[1]] == "*"
    # the witness agrees with every number on the board
    h, w = lost["height"], lost["width"]
    for r in range(h):
        for c in range(w):
            ch = lost["board"][r][c]
            if ch.isdigit():
                near = sum(
                    lost["witness"][r + dr][c + dc] == "*"
                    for dr in (-1, 0, 1)
                    for dc in (-1, 0, 1)
                    if (dr or dc) and 0 <= r + dr < h and 0 <= c + dc < w
                )
                assert near == int(ch), (r, c)
    assert api.move(game, "reveal", *safe_or_any(lost), expect=409)["error"]
    assert api.state(game["id"]) == lost


# -- the log and replays -------------------------------------------------------------------


def test_moves_lists_the_log(api: Api) -> None:
    game = api.create(**SMALL)
    state = api.move(game, "reveal", 2, 2)
    api.move(game, "flag", *safe_or_any(state))
    log = api.log(game["id"])
    assert [m["kind"] for m in log] == ["reveal", "flag"]
    assert [m["seq"] for m in log] == list(range(1, len(log) + 1))
    assert log[0]["kind"] == "reveal" and (log[0]["row"], log[0]["col"]) == (2, 2)
    for entry in log:
        assert set(entry) == {"seq", "kind", "row", "col", "at", "n"}
        assert re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", entry["at"])


def test_moves_number_board_moves_apart_from_hints(app: Flask, api: Api) -> None:
    game = api.create(**SMALL)
    opened = api.move(game, "reveal", 2, 2)
    with app.app_context():
        get_service().record_hint(game["id"], 1)
    state = api.move(game, "flag", *safe_or_any(opened))
    log = api.log(game["id"])
    assert [(m["kind"], m["seq"], m["n"]) for m in log] == [
        ("reveal", 1, 1),
        ("hint", 2, 1),
        ("flag", 3, 2),
    ]
    assert state["moves"] == log[-1]["n"]
    replayed = api.client.get(f"/api/games/{game['id']}/replay/{log[-1]['n']}").json
    assert replayed["board"] == state["board"]


def test_replay_steps_through_the_game(api: Api, client: FlaskClient) -> None:
    game = api.create(**SMALL)
    states = [game["state"], *play_to_win(api, game, (2, 2))]
    for n, expected in enumerate(states):
        response = client.get(f"/api/games/{game['id']}/replay/{n}")
        assert response.status_code == 200
        assert response.json == expected, n
    beyond = client.get(f"/api/games/{game['id']}/replay/{len(states)}")
    assert beyond.status_code == 404 and "does not exist" in beyond.json["error"]
    assert client.get(f"/api/games/{game['id']}/replay/-1").status_code == 404


def test_replay_of_a_running_game_never_shows_mines(api: Api, client: FlaskClient) -> None:
    game = api.create(**SMALL)
    api.move(game, "reveal", 2, 2)
    for n in (0, 1):
        state = client.get(f"/api/games/{game['id']}/replay/{n}").json
        assert state["status"] == "playing"
        assert not {"layout", "witness", "loss", "seed"} & set(state)


# -- HTTP-level errors ---------------------------------------------------------------------


def test_too_large_body_is_413_json(api: Api, client: FlaskClient) -> None:
    game = api.create(**SMALL)
    big = '{"row": 1, "col": 1, "pad": "' + "x" * 20_000 + '"}'
    response = client.post(
        f"/api/games/{game['id']}/reveal",
        data=big,
        content_type="application/json",
        headers={"Authorization": f"Bearer {game['token']}"},
    )
    assert response.status_code == 413
    assert "bytes" in response.json["error"]
    assert api.log(game["id"]) == []
    # a new game may carry a custom graph board: its limit is higher, and holds as well
    bigger = '{"pad": "' + "x" * GRAPH_BODY_MAX + '"}'
    response = client.post("/api/games", data=bigger, content_type="application/json")
    assert response.status_code == 413


def test_wrong_method_and_unknown_route_are_json(client: FlaskClient) -> None:
    response = client.get("/api/games/abc/reveal")
    assert response.status_code == 405 and "not allowed" in response.json["error"]
    response = client.delete("/api/games")
    assert response.status_code == 405 and response.is_json
    response = client.get("/api/teapot")
    assert response.status_code == 404 and "no such endpoint" in response.json["error"]


def test_api_responses_carry_security_headers(client: FlaskClient) -> None:
    response = client.post("/api/games", json=SMALL)
    headers = response.headers
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"]
    assert headers["Cache-Control"] == "no-store"


def test_limits_endpoint_states_the_limits(client: FlaskClient) -> None:
    body = client.get("/api/limits").json
    assert body["api_max_side"] == 1000 and body["browser_max_side"] == 200
    assert body["max_body_bytes"] == 16 * 1024


def test_api_needs_no_csrf_token_but_other_posts_do(make_app) -> None:
    app = make_app(WTF_CSRF_ENABLED=True)

    @app.post("/test-only-form")
    def form() -> str:
        return "ok"

    client = app.test_client()
    assert client.post("/api/games", json=SMALL).status_code == 201
    response = client.post("/test-only-form", data={"x": "1"})
    assert response.status_code == 400
    assert b"CSRF" in response.data


def test_rate_limit_gives_429_to_the_flooder_only(make_app) -> None:
    app = make_app(RATELIMIT_ENABLED=True, MOVE_RATE_LIMIT="5 per minute")
    flooder = Api(app.test_client())
    flooder.client.environ_base["REMOTE_ADDR"] = "10.0.0.1"
    other = Api(app.test_client())
    other.client.environ_base["REMOTE_ADDR"] = "10.0.0.2"
    game = flooder.create(**SMALL)
    mine = other.create(**SMALL)
    codes = []
    for i in range(8):
        response = flooder.client.post(
            f"/api/games/{game['id']}/flag",
            json={"row": 0, "col": i % 6},
            headers={"Authorization": f"Bearer {game['token']}"},
        )
        codes.append(response.status_code)
    assert codes[:5] == [200] * 5
    assert codes[5:] == [429] * 3
    limited = flooder.client.post(
        f"/api/games/{game['id']}/flag",
        json={"row": 1, "col": 1},
        headers={"Authorization": f"Bearer {game['token']}"},
    )
    assert limited.status_code == 429 and "rate limit" in limited.json["error"]
    assert int(limited.headers["Retry-After"]) >= 1  # never "0": that invites hammering
    assert other.move(mine, "flag", 0, 0)["board"][0][0] == "F"
    assert len(flooder.log(game["id"])) == 5
    # reading is not limited
    assert flooder.client.get(f"/api/games/{game['id']}").status_code == 200


@pytest.mark.slow
def test_a_1000x1000_api_game_is_playable(api: Api) -> None:
    game = api.create(width=1000, height=1000, mines=50_000, seed=1)
    assert len(game["state"]["board"]) == 1000
    state = api.move(game, "reveal", 500, 500)
    assert state["board"][500][500] == "0"
    opened = sum(ch != "." for row in state["board"] for ch in row)
    assert opened > 10_000  # the first click cascades
    flagged = api.move(game, "flag", *safe_or_any(state))
    assert flagged["moves"] == 2
    assert api.state(game["id"])["board"] == flagged["board"]


def test_api_moves_ignore_the_owner_cookie(make_app) -> None:
    """The API is CSRF-exempt, so a browser's owner cookie alone must not move."""
    from app.security import ensure_owner

    app = make_app()

    @app.get("/test-only/claim")
    def claim() -> str:
        return ensure_owner()

    browser = Api(app.test_client())
    browser.client.get("/test-only/claim")
    game = browser.create(**SMALL)
    row = app.extensions["mine_devil.store"].get_game(game["id"])
    assert row.owner is not None  # the browser owns the game...
    response = browser.client.post(f"/api/games/{game['id']}/reveal", json={"row": 1, "col": 1})
    assert response.status_code == 403  # ...but the API wants the token
    assert "Bearer" in response.json["error"]
    assert browser.move(game, "reveal", 1, 1)["moves"] == 1
