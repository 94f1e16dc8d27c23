"""Devil World's JSON API: every route and error, the live feed, limits, and no leaks."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from app import openapi
from app.world.records import MoveRecord
from app.world.store import WorldStore
from devil.world import Colouring
from devil.world.cells import neighbours
from tests.helpers.world import Json, World, dropped, opening


@pytest.fixture
def api(client: FlaskClient) -> World:
    return World(client)


def truth(app: Flask, world: str = "main") -> Colouring:
    store: WorldStore = app.extensions["mine_devil.world.store"]
    row = store.world(world)
    return Colouring(row.key, row.id, row.colours)


# -- worlds ----------------------------------------------------------------------------


def test_create_and_show_worlds(client: FlaskClient) -> None:
    r = client.post("/api/worlds", json={"id": "duo", "colours": 2})
    assert r.status_code == 201
    assert r.get_json() == {"id": "duo", "colours": 2}
    assert r.headers["Location"] == "/api/worlds/duo"
    assert client.post("/api/worlds", json={"id": "duo", "colours": 3}).status_code == 409
    assert client.post("/api/worlds", json={"id": "six"}).get_json()["colours"] == 6
    body = client.get("/api/worlds/duo").get_json()
    assert body["id"] == "duo" and body["colours"] == 2
    assert (body["players"], body["teams"], body["moves"]) == (0, 0, 0)
    main = client.get("/api/worlds/main").get_json()
    assert main["colours"] == 6
    assert "key" not in json.dumps(main) and "secret" not in json.dumps(main)


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"id": "Bad Id"}, "id"),
        ({"id": "-x"}, "id"),
        ({"id": "x" * 33}, "id"),
        ({"id": 5}, "id"),
        ({}, "id"),
        ({"id": "ok", "colours": 1}, "colours"),
        ({"id": "ok", "colours": 9}, "colours"),
        ({"id": "ok", "colours": "6"}, "colours"),
        ({"id": "ok", "colours": True}, "colours"),
        ({"id": "ok", "colours": 6.0}, "colours"),
    ],
)
def test_bad_worlds_are_400_naming_the_field(
    client: FlaskClient, payload: Json, field: str
) -> None:
    r = client.post("/api/worlds", json=payload)
    assert r.status_code == 400
    assert r.get_json()["field"] == field
    assert field in r.get_json()["error"]


@pytest.mark.parametrize("raw", [b"", b"not json", b"[1, 2]", b"[" * 5000 + b"]" * 5000])
def test_bodies_that_are_not_a_json_object_are_400(client: FlaskClient, raw: bytes) -> None:
    r = client.post("/api/worlds", data=raw, content_type="application/json")
    assert r.status_code in (400, 413)
    assert "error" in r.get_json()


def test_unknown_worlds_are_404_everywhere(api: World) -> None:
    token, _ = api.join()
    c = api.client
    for response in (
        c.get("/api/worlds/nope"),
        c.post("/api/worlds/nope/players", json={"name": "a", "team": "b", "colour": 0}),
        c.post("/api/worlds/nope/moves", json={"moves": []}, headers={"Authorization": token}),
        c.post("/api/worlds/nope/players/me/colour", json={"colour": 1}),
        c.get("/api/worlds/nope/teams/red/view?colour=0&x0=0&y0=0"),
        c.get("/api/worlds/nope/teams/red/events?colour=0&x0=0&y0=0"),
        c.get("/api/worlds/nope/scoreboard"),
        c.get("/api/worlds/main/teams/nobody/view?colour=0&x0=0&y0=0"),
        c.get("/api/worlds/main/teams/nobody/events?colour=0&x0=0&y0=0"),
    ):
        assert response.status_code == 404, response.request.path
        assert "error" in response.get_json()


# -- players ---------------------------------------------------------------------------


def test_players_join_teams_and_get_a_token(api: World) -> None:
    token, body = api.join("Ada", "red", 5)
    assert set(body) == {"player", "token", "name", "team", "colour"}
    assert (body["name"], body["team"], body["colour"]) == ("Ada", "red", 5)
    other, _ = api.join("Bob", "red", 0)
    assert token != other
    summary = api.client.get("/api/worlds/main").get_json()
    assert (summary["players"], summary["teams"]) == (2, 1)


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"team": "red", "colour": 0}, "name"),
        ({"name": "", "team": "red", "colour": 0}, "name"),
        ({"name": "x" * 33, "team": "red", "colour": 0}, "name"),
        ({"name": "a\nb", "team": "red", "colour": 0}, "name"),
        ({"name": "Ada", "colour": 0}, "team"),
        ({"name": "Ada", "team": "red team", "colour": 0}, "team"),
        ({"name": "Ada", "team": "../x", "colour": 0}, "team"),
        ({"name": "Ada", "team": "red", "colour": 6}, "colour"),
        ({"name": "Ada", "team": "red", "colour": -1}, "colour"),
        ({"name": "Ada", "team": "red", "colour": "1"}, "colour"),
    ],
)
def test_bad_players_are_400_naming_the_field(api: World, payload: Json, field: str) -> None:
    r = api.client.post("/api/worlds/main/players", json=payload)
    assert r.status_code == 400
    assert r.get_json()["field"] == field


def test_colour_switch_needs_the_token_of_this_world(api: World) -> None:
    token, _ = api.join(colour=1)
    api.client.post("/api/worlds", json={"id": "other", "colours": 3})
    other_token, _ = World(api.client, "other").join()
    url = "/api/worlds/main/players/me/colour"
    r = api.client.post(url, json={"colour": 2})
    assert r.status_code == 401 and "Bearer" in r.headers["WWW-Authenticate"]
    r = api.client.post(url, json={"colour": 2}, headers={"Authorization": "Bearer nope"})
    assert r.status_code == 401
    r = api.client.post(url, json={"colour": 2}, headers={"Authorization": f"Bearer {other_token}"})
    assert r.status_code == 403 and "'other'" in r.get_json()["error"]
    bad = api.client.post(url, json={"colour": 6}, headers={"Authorization": f"Bearer {token}"})
    assert bad.status_code == 400 and bad.get_json()["field"] == "colour"
    r = api.client.post(url, json={"colour": 2}, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200
    assert r.get_json()["colour"] == 2
    result = dropped(api, token)
    assert result["cells"]  # it played colour 2 now: all its cells are not colour 2
    colours = truth(api.client.application)
    assert all(colours.colour(x, y) != 2 for x, y, _ in result["cells"])


# -- moves -----------------------------------------------------------------------------


def test_moves_need_a_token(api: World) -> None:
    api.moves(None, [{"kind": "drop", "x": 0, "y": 0}], status=401)
    api.moves("wrong", [{"kind": "drop", "x": 0, "y": 0}], status=401)
    api.client.post("/api/worlds", json={"id": "other"})
    token, _ = World(api.client, "other").join()
    api.moves(token, [{"kind": "drop", "x": 0, "y": 0}], status=403)


@pytest.mark.parametrize(
    ("moves", "field", "index"),
    [
        ([], "moves", None),
        ("reveal", "moves", None),
        ([{"kind": "reveal", "x": 0, "y": 0}] * 257, "moves", None),
        ([{"kind": "reveal", "x": 0, "y": 0}, 3], "moves[1]", 1),
        ([{"kind": "boom", "x": 0, "y": 0}], "moves[0].kind", 0),
        ([{"x": 0, "y": 0}], "moves[0].kind", 0),
        ([{"kind": "reveal", "y": 0}], "moves[0].x", 0),
        ([{"kind": "reveal", "x": 0, "y": 0}, {"kind": "flag", "x": "3", "y": 0}], "moves[1].x", 1),
        ([{"kind": "reveal", "x": 0, "y": True}], "moves[0].y", 0),
        ([{"kind": "reveal", "x": 1.5, "y": 0}], "moves[0].x", 0),
        ([{"kind": "reveal", "x": 2**62 + 1, "y": 0}], "moves[0].x", 0),
        ([{"kind": "reveal", "x": 0, "y": -(2**62) - 1}], "moves[0].y", 0),
        ([{"kind": "reveal", "x": 0, "y": 10**30}], "moves[0].y", 0),
    ],
)
def test_bad_rafts_are_400_naming_the_move_and_field(
    api: World, moves: Any, field: str, index: int | None
) -> None:
    token, _ = api.join()
    body = api.moves(token, moves, status=400)
    assert body["field"] == field
    assert body.get("move") == index
    assert field in body["error"]
    assert api.client.get("/api/worlds/main").get_json()["moves"] == 0  # nothing logged


def test_the_world_edge_is_playable(api: World) -> None:
    token, _ = api.join()
    edge = 2**62
    (result,) = api.moves(token, [{"kind": "reveal", "x": edge, "y": -edge}])["results"]
    assert result["outcome"] == "devil"
    assert (result["x"], result["y"]) == (edge, -edge)


def test_a_drop_then_provable_moves_open_only_what_is_proved(api: World) -> None:
    token, _ = api.join(colour=1)
    colours = truth(api.client.application)
    result, _, found = opening(api, token, 1)
    x0, y0 = result["at"]
    assert colours.colour(x0, y0) != 1
    assert all(colours.colour(nx, ny) != 1 for nx, ny in neighbours(x0, y0))
    done = result["seq"]
    raft = [{"kind": "reveal", "x": x, "y": y} for x, y in sorted(found.safe)]
    raft += [{"kind": "flag", "x": x, "y": y} for x, y in sorted(found.mines)]
    results = api.moves(token, raft[:256])["results"]
    assert [r["seq"] for r in results] == list(range(done + 1, done + 1 + len(results)))
    assert {r["outcome"] for r in results} <= {"revealed", "flagged"}
    for r in results:
        for x, y, sym in r["cells"]:
            if sym == "F":
                assert colours.colour(x, y) == 1
            else:
                assert colours.colour(x, y) != 1
                assert int(sym) == sum(colours.colour(*n) == 1 for n in neighbours(x, y))
    # the same reveal again changes nothing and is still logged
    first = next(r for r in results if r["kind"] == "reveal")
    (again,) = api.moves(token, [{"kind": "reveal", "x": first["x"], "y": first["y"]}])["results"]
    assert again["outcome"] == "revealed" and again["cells"] == []
    assert api.client.get("/api/worlds/main").get_json()["moves"] == len(results) + done + 1


def test_an_unproved_reveal_is_a_devil_error_with_a_witness(api: World) -> None:
    token, _ = api.join(colour=3)
    (r,) = api.moves(token, [{"kind": "reveal", "x": 500, "y": -500}])["results"]
    assert r["outcome"] == "devil" and r["cells"] == []
    w = r["witness"]
    assert w["x0"] <= 500 < w["x0"] + len(w["rows"][0])
    assert w["rows"][-500 - w["y0"]][500 - w["x0"]] == "*"
    (f,) = api.moves(token, [{"kind": "flag", "x": 7, "y": 7}])["results"]
    assert f["outcome"] == "devil"
    assert f["witness"]["rows"][7 - f["witness"]["y0"]][7 - f["witness"]["x0"]] == "."
    board = api.client.get("/api/worlds/main/scoreboard").get_json()
    assert board["teams"][0]["errors"] == 2
    assert board["teams"][0]["revealed"] == 0
    view = api.view("red", 3, 490, -510, 20, 20)
    assert all(set(row) == {"."} for row in view["rows"])


def test_flags_are_knowledge_for_every_colour(api: World) -> None:
    token, _ = api.join(colour=2)
    _, _, found = opening(api, token, 2)
    mines = found.mines
    flags = api.moves(token, [{"kind": "flag", "x": x, "y": y} for x, y in sorted(mines)])
    assert {r["outcome"] for r in flags["results"]} == {"flagged"}
    mine = sorted(mines)[0]
    own = api.view("red", 2, mine[0], mine[1], 1, 1)["rows"]
    other = api.view("red", 4, mine[0], mine[1], 1, 1)["rows"]
    assert (own, other) == (["F"], ["*"])
    board = api.client.get("/api/worlds/main/scoreboard").get_json()
    assert board["teams"][0]["flags"] == len(mines)


# -- views -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("x0=0&y0=0", "colour"),
        ("colour=6&x0=0&y0=0", "colour"),
        ("colour=0&y0=0", "x0"),
        ("colour=0&x0=--3&y0=0", "x0"),
        ("colour=0&x0=%D9%A1%D9%A2&y0=0", "x0"),  # Arabic-Indic digits
        ("colour=0&x0=%EF%BC%93&y0=0", "x0"),  # a fullwidth digit
        ("colour=0&x0=1e3&y0=0", "x0"),
        ("colour=0&x0=0&y0=4611686018427387905", "y0"),
        ("colour=0&x0=0&y0=0&width=257", "width"),
        ("colour=0&x0=0&y0=0&height=0", "height"),
        ("colour=0&x0=4611686018427387900&y0=0&width=10", "width"),
    ],
)
def test_bad_views_are_400_naming_the_parameter(api: World, query: str, field: str) -> None:
    api.join()
    for route in ("view", "events"):
        r = api.client.get(f"/api/worlds/main/teams/red/{route}?{query}")
        assert r.status_code == 400, (route, r.get_data(as_text=True))
        assert r.get_json()["field"] == field


def test_a_view_is_at_most_256_square_and_anyone_may_watch(api: World) -> None:
    token, _ = api.join(colour=0)
    dropped(api, token)
    body = api.view("red", 0, -128, -128, 256, 256)
    assert set(body) == {"x0", "y0", "colour", "seq", "rows"}
    assert len(body["rows"]) == 256 and {len(r) for r in body["rows"]} == {256}
    assert body["seq"] == 1
    opened = sum(ch != "." for row in body["rows"] for ch in row)
    assert opened > 0


# -- the live feed ---------------------------------------------------------------------


def test_the_feed_sends_only_changed_cells_and_resumes_after_last_event_id(api: World) -> None:
    token, _ = api.join(colour=1)
    first, _, found = opening(api, token, 1)
    x0, y0 = first["at"]
    box = (x0 - 40, y0 - 40, 81, 81)
    raft = [{"kind": "reveal", "x": x, "y": y} for x, y in sorted(found.safe)][:10]
    later = api.moves(token, raft)["results"]
    everything = api.events("red", 1, box, 0)
    at = first["seq"]
    mine = [e for e in everything if e["seq"] >= at]
    assert [e["seq"] for e in mine] == [at] + [r["seq"] for r in later if r["cells"]]
    assert mine[0]["cells"] == [c for c in first["cells"] if in_box(c, box)]
    resumed = api.events("red", 1, box, at)
    assert resumed == mine[1:]
    assert api.events("red", 1, box, everything[-1]["seq"]) == []
    # a viewport elsewhere, or another colour's board, sees none of these cells
    assert api.events("red", 1, (x0 + 1000, y0, 10, 10), 0) == []
    assert api.events("red", 4, box, 0) == []
    # the feed replayed onto an empty board gives the view
    rows = [["."] * box[2] for _ in range(box[3])]
    for event in everything:
        for x, y, sym in event["cells"]:
            rows[y - box[1]][x - box[0]] = sym
    assert ["".join(r) for r in rows] == api.view("red", 1, *box)["rows"]


def in_box(cell: list[Any], box: tuple[int, int, int, int]) -> bool:
    return 0 <= cell[0] - box[0] < box[2] and 0 <= cell[1] - box[1] < box[3]


def test_other_colours_see_flags_as_safe_cells(api: World) -> None:
    token, _ = api.join(colour=2)
    first, _, found = opening(api, token, 2)
    x0, y0 = first["at"]
    box = (x0 - 40, y0 - 40, 81, 81)
    mines = sorted(found.mines)
    api.moves(token, [{"kind": "flag", "x": x, "y": y} for x, y in mines])
    seen = api.events("red", 5, box, 0)  # the drop was on board 2: only the flags show
    assert len(seen) == len(mines)
    assert sorted(c for e in seen for c in e["cells"]) == sorted([x, y, "*"] for x, y in mines)


def test_the_feed_rejects_a_bad_last_event_id(api: World) -> None:
    api.join()
    r = api.client.get(
        "/api/worlds/main/teams/red/events?colour=0&x0=0&y0=0",
        headers={"Last-Event-ID": "-1"},
    )
    assert r.status_code == 400 and r.get_json()["field"] == "Last-Event-ID"
    r = api.client.get("/api/worlds/main/teams/red/events?colour=0&x0=0&y0=0&after=abc")
    assert r.status_code == 400 and r.get_json()["field"] == "after"  # was "Last-Event-ID"


# -- scoreboard ------------------------------------------------------------------------


def test_scoreboard_counts_and_pareto_frontier(api: World) -> None:
    red, _ = api.join("Ada", "red", 1)
    blue, _ = api.join("Bob", "blue", 1)
    api.join("Cy", "green", 1)
    dropped(api, red)
    api.moves(blue, [{"kind": "reveal", "x": 9000, "y": 9000}])  # a devil error
    board = api.client.get("/api/worlds/main/scoreboard").get_json()
    teams = {t["team"]: t for t in board["teams"]}
    assert teams["red"]["revealed"] > 0 and teams["red"]["drops"] == 1
    assert teams["blue"]["errors"] == 1 and teams["blue"]["revealed"] == 0
    assert board["pareto"] == ["red"]
    assert {p["name"] for p in board["players"]} == {"Ada", "Bob", "Cy"}
    for p in board["players"]:
        assert set(p) == {"player", "name", "team", "moves", "revealed", "flags", "errors", "drops"}


def test_pareto_keeps_teams_trading_errors_for_cells() -> None:
    from app.world.api import pareto

    teams = [("a", 10, 0, 5), ("b", 5, 0, 0), ("c", 5, 0, 1), ("d", 10, 0, 5), ("e", 0, 3, 9)]
    assert pareto(teams) == ["a", "b", "d", "e"]
    assert pareto([]) == []


# -- limits ----------------------------------------------------------------------------


def test_move_limits_per_player_and_per_team(make_app: Callable[..., Flask]) -> None:
    app = make_app(
        RATELIMIT_ENABLED=True,
        WORLD_PLAYER_RATE_LIMIT="5 per minute",
        WORLD_TEAM_RATE_LIMIT="7 per minute",
        WORLD_DROP_SECONDS=30,
    )
    api = World(app.test_client())
    ada, _ = api.join("Ada", "red")
    bob, _ = api.join("Bob", "red")
    cy, _ = api.join("Cy", "blue")
    far = [{"kind": "reveal", "x": 10**6 + i, "y": 0} for i in range(3)]
    api.moves(ada, far)
    r = api.client.post(
        "/api/worlds/main/moves", json={"moves": far}, headers={"Authorization": f"Bearer {ada}"}
    )
    assert r.status_code == 429
    assert int(r.headers["Retry-After"]) >= 1
    assert "player" in r.get_json()["error"]
    api.moves(bob, far)  # the team has 7: 6 used
    body = api.moves(bob, far[:2], status=429)  # Bob could (5), the team cannot (8)
    assert "team" in body["error"]
    api.moves(cy, far)  # another team is not slowed down
    # one drop per 30 s
    api.moves(cy, [{"kind": "drop", "x": 0, "y": 0}])
    body = api.moves(cy, [{"kind": "drop", "x": 5, "y": 5}], status=429)
    assert "drop" in body["error"]


def test_open_streams_are_capped_per_client(make_app: Callable[..., Flask]) -> None:
    app = make_app(WORLD_STREAMS_PER_CLIENT=2, LIVE_MAX_SECONDS=30)
    api = World(app.test_client())
    api.join()
    url = "/api/worlds/main/teams/red/events?colour=0&x0=0&y0=0"
    held = [api.client.get(url, buffered=False) for _ in range(2)]
    assert [r.status_code for r in held] == [200, 200]
    for r in held:
        assert next(iter(r.response)) == b": stream open\n\n"
    third = api.client.get(url)
    assert third.status_code == 429
    held[0].close()
    fourth = api.client.get(url, buffered=False)
    assert fourth.status_code == 200
    fourth.close()
    held[1].close()
    assert app.extensions["mine_devil.world.streams"].held() == 0
    assert app.extensions["mine_devil.notifier"].subscribers() == 0


# -- nothing leaks ---------------------------------------------------------------------


def test_a_devil_answer_depends_on_knowledge_only_never_on_the_key(
    make_app: Callable[..., Flask],
) -> None:
    """Two worlds with different keys, the same knowledge: the same devil answers."""
    app = make_app()
    client = app.test_client()
    client.post("/api/worlds", json={"id": "one", "colours": 4})
    client.post("/api/worlds", json={"id": "two", "colours": 4})
    store: WorldStore = app.extensions["mine_devil.world.store"]
    numbers = [(0, 0, "1"), (1, 0, "1"), (2, 0, "2"), (0, 1, "0"), (1, 1, "1")]
    answers = []
    for world in ("one", "two"):
        token, body = World(client, world).join(colour=0)
        with store.team(world, "red") as tx:  # the same knowledge in both worlds
            tx.knowledge.apply(0, numbers)
            tx.record(body["player"], MoveRecord("reveal", 0, 0, "revealed", 0, tuple(numbers)))
            tx.finish()
        results = World(client, world).moves(token, unproved_raft(numbers))["results"]
        answers.append([{k: v for k, v in r.items() if k != "seq"} for r in results])
    assert answers[0] == answers[1]
    assert {r["outcome"] for r in answers[0]} == {"devil"}
    assert any("*" in "".join(r["witness"]["rows"]) for r in answers[0])
    assert store.world("one").key != store.world("two").key


def unproved_raft(numbers: list[tuple[int, int, str]]) -> list[Json]:
    """Reveals and flags around ``numbers`` that this knowledge does not prove: each is a
    devil error, so the raft never reaches the truth and the knowledge stays the same."""
    from devil.world import MemoryKnowledge, judge_flag, judge_reveal

    k = MemoryKnowledge()
    k.apply(0, numbers)
    raft = []
    for x in range(-1, 4):
        for y in range(-1, 3):
            if k.symbol(0, x, y) != ".":
                continue
            if not judge_reveal(k, 0, x, y).proved:
                raft.append({"kind": "reveal", "x": x, "y": y})
            if not judge_flag(k, 0, x, y).proved:
                raft.append({"kind": "flag", "x": x, "y": y})
    assert len(raft) >= 4
    return raft


# -- bodies read by the shared reader (app.jsonbody) -------------------------------------


@pytest.mark.parametrize(
    ("moves", "field", "index"),
    [
        ([{"kind": "reveal", "x": 0, "y": 0, "colour": 1}], "moves[0].colour", 0),
        (
            [{"kind": "reveal", "x": 0, "y": 0}, {"kind": "drop", "x": 0, "y": None}],
            "moves[1].y",
            1,
        ),
    ],
)
def test_moves_with_unknown_or_null_fields_are_400_naming_the_move(
    api: World, moves: Any, field: str, index: int
) -> None:
    token, _ = api.join()
    body = api.moves(token, moves, status=400)
    assert (body["field"], body["move"]) == (field, index)
    assert field in body["error"]


def test_a_raft_nested_too_deep_is_refused_before_parsing(api: World) -> None:
    token, _ = api.join()
    raw = b'{"moves": [' + b"[" * 40 + b"]" * 40 + b"]}"
    r = api.client.post(
        "/api/worlds/main/moves",
        data=raw,
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 400
    body = r.get_json()
    assert body["field"] == "body" and "nests 42 levels deep" in body["error"]
    assert "move" not in body


def test_every_world_body_error_names_the_field_in_the_published_error_schema(
    client: FlaskClient,
) -> None:
    """The world's 400s are the document's Error: error, field and (for a move) move."""
    error = openapi.document(client.application)["components"]["schemas"]["Error"]
    r = client.post("/api/worlds", json={"id": "ok", "colour": 3})
    assert r.status_code == 400
    assert set(r.get_json()) <= set(error["properties"])
    assert r.get_json()["field"] == "colour"
