"""The Devil World pages (app/world/pages.py): joining kept in the signed HttpOnly session,
watching without joining, the colour switch, moves authenticated by the session (and CSRF),
the scoreboard, activity and who-made-it fragments, and what they may not reveal."""

from __future__ import annotations

import re

from flask.testing import FlaskClient

from devil.world.deduce import deduce
from tests.helpers.web import CSRF


def csrf(client: FlaskClient, world: str = "main") -> str:
    page = client.get(f"/world/{world}")
    assert page.status_code == 200
    found = CSRF.search(page.get_data(as_text=True))
    assert found
    return found.group(1)


def join(client: FlaskClient, name: str, team: str, colour: int = 0, world: str = "main") -> str:
    token = csrf(client, world)
    form = {"csrf_token": token, "name": name, "team": "", "new_team": team, "colour": str(colour)}
    r = client.post(f"/world/{world}/join", data=form)
    assert r.status_code == 303, r.get_data(as_text=True)
    return token


def move(client: FlaskClient, token: str, kind: str, x: int, y: int) -> dict:  # type: ignore[type-arg]
    r = client.post(
        "/api/worlds/main/moves",
        json={"moves": [{"kind": kind, "x": x, "y": y}]},
        headers={"X-CSRFToken": token},
    )
    assert r.status_code == 200, r.get_data(as_text=True)
    result: dict = r.get_json()["results"][0]  # type: ignore[type-arg]
    return result


def test_world_redirects_to_the_default_world(client: FlaskClient) -> None:
    r = client.get("/world")
    assert r.status_code == 302 and r.headers["Location"].endswith("/world/main")


def test_watching_needs_no_joining(client: FlaskClient) -> None:
    page = client.get("/world/main").get_data(as_text=True)
    assert 'id="world-board"' in page and "Join to play" in page
    assert 'id="drop"' not in page  # watchers cannot drop
    assert client.get("/world/nowhere").status_code == 404


def test_an_unknown_world_is_the_sites_own_404_page(client: FlaskClient) -> None:
    r = client.get("/world/nowhere")
    assert r.status_code == 404
    page = r.get_data(as_text=True)
    assert 'class="site-header' in page and "No world “nowhere”" in page
    assert 'href="/world/main"' in page


def test_join_keeps_the_token_in_the_httponly_session_only(client: FlaskClient) -> None:
    join(client, "ana", "reds", colour=2)
    cookie = client.get_cookie("mine_devil")
    assert cookie is not None and cookie.http_only
    page = client.get("/world/main").get_data(as_text=True)
    assert 'id="my-name">ana<' in page and 'data-team="reds"' in page and 'data-colour="2"' in page
    # the page never carries the bearer token, which lives in the signed cookie only
    assert (
        re.search(r"token\W*[:=]", page.replace("csrf-token", "").replace("csrf_token", "")) is None
    )


def test_join_refuses_bad_names_teams_and_colours(client: FlaskClient) -> None:
    token = csrf(client)
    base = {"csrf_token": token, "name": "ana", "team": "", "new_team": "reds", "colour": "0"}
    for field, value in (("name", ""), ("new_team", "no spaces"), ("colour", "6")):
        r = client.post("/world/main/join", data={**base, field: value})
        assert r.status_code == 400
        assert r.get_json()["field"] == ("team" if field == "new_team" else field)


def test_a_browser_gets_its_join_form_back_naming_the_mistake(client: FlaskClient) -> None:
    """A browser's bad join is the world page again (not a bare JSON answer): the form open,
    the mistake said, what was typed kept."""
    token = csrf(client)
    html = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    base = {"csrf_token": token, "name": "ana", "team": "", "new_team": "reds", "colour": "2"}
    for field, value, said in (
        ("name", "   ", "name: must be 1 to 32"),
        ("new_team", "no spaces", "team: 1 to 32 of A-Z"),
    ):
        r = client.post("/world/main/join", data={**base, field: value}, headers=html)
        assert r.status_code == 400 and r.mimetype == "text/html"
        page = r.get_data(as_text=True)
        assert 'id="world-board"' in page and '<details class="join" id="join" open>' in page
        assert re.search(r'id="join-error"[^>]*>' + re.escape(said), page), page
        kept = ('value="ana"', 'value="no spaces"') if field == "new_team" else ('value="reds"',)
        assert all(k in page for k in kept), kept
    assert client.get("/world/main").get_data(as_text=True).count('id="join-error"') == 0


def test_the_error_counter_starts_from_the_players_errors(client: FlaskClient) -> None:
    token = join(client, "ana", "reds")
    counter = re.compile(r'<output id="error-count">(\d+)</output>')
    assert counter.findall(client.get("/world/main").get_data(as_text=True)) == ["0"]
    assert move(client, token, "reveal", 5000, 5000)["outcome"] == "devil"
    assert move(client, token, "reveal", 7000, 5000)["outcome"] == "devil"
    page = client.get("/world/main").get_data(as_text=True)
    assert counter.findall(page) == ["2"] and 'data-errors="2"' in page


def test_moves_need_a_player_and_csrf(client: FlaskClient) -> None:
    token = csrf(client)
    r = client.post("/api/worlds/main/moves", json={"moves": [{"kind": "drop", "x": 0, "y": 0}]},
                    headers={"X-CSRFToken": token})  # fmt: skip
    assert r.status_code == 401
    join(client, "ana", "reds")
    r = client.post("/api/worlds/main/moves", json={"moves": [{"kind": "drop", "x": 0, "y": 0}]})
    assert r.status_code == 400  # no CSRF token
    r = client.post("/api/worlds/main/moves", json={"moves": [{"kind": "jump", "x": 0, "y": 0}]},
                    headers={"X-CSRFToken": token})  # fmt: skip
    assert r.status_code == 400 and r.get_json()["field"] == "moves[0].kind"


def test_play_through_the_page_and_the_panels(client: FlaskClient) -> None:
    token = join(client, "ana", "reds", colour=0)
    dropped = move(client, token, "drop", 0, 0)
    assert dropped["outcome"] == "dropped" and dropped["cells"]
    x, y = dropped["at"]
    view = client.get(f"/api/worlds/main/teams/reds/view?colour=0&x0={x - 32}&y0={y - 32}")
    found = deduce(view.get_json()["rows"], x - 32, y - 32)
    if found.safe:
        sx, sy = sorted(found.safe)[0]
        assert move(client, token, "reveal", sx, sy)["outcome"] == "revealed"
    far = move(client, token, "reveal", x + 1000, y)
    assert far["outcome"] == "devil" and far["witness"]["rows"]
    board = client.get("/world/main/scoreboard?team=reds").get_data(as_text=True)
    assert "reds" in board and "ana" in board and "pareto" in board
    feed = client.get("/world/main/activity").get_data(as_text=True)
    assert "ana" in feed and "devil error" in feed and "dropped in" in feed
    assert f"{x + 1000}" not in feed  # no coordinates in the public feed
    who = client.get(f"/world/main/teams/reds/who?seqs={dropped['seq']}").get_json()
    assert who == {str(dropped["seq"]): f"ana dropped in, {len(dropped['cells'])} cells opened"}
    assert client.get("/world/main/teams/reds/who?seqs=1,x").status_code == 400


def test_colour_switch_and_leave(client: FlaskClient) -> None:
    token = join(client, "ana", "reds", colour=0)
    r = client.post("/world/main/colour", json={"colour": 4}, headers={"X-CSRFToken": token})
    assert r.status_code == 200 and r.get_json()["colour"] == 4
    assert 'data-colour="4"' in client.get("/world/main").get_data(as_text=True)
    bad = client.post("/world/main/colour", json={"colour": 9}, headers={"X-CSRFToken": token})
    assert bad.status_code == 400
    client.post("/world/main/leave", data={"csrf_token": token})
    assert "Join to play" in client.get("/world/main").get_data(as_text=True)


def test_drop_cooldown_is_shown_and_enforced(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app(RATELIMIT_ENABLED=True, WORLD_DROP_SECONDS="30")
    client = app.test_client()
    token = join(client, "ana", "reds")  # a new team: the join made the first drop
    page = client.get("/world/main").get_data(as_text=True)
    wait = int(re.search(r'data-drop-wait="(\d+)"', page).group(1))  # type: ignore[union-attr]
    assert 25 <= wait <= 30
    r = client.post("/api/worlds/main/moves", json={"moves": [{"kind": "drop", "x": 5, "y": 5}]},
                    headers={"X-CSRFToken": token})  # fmt: skip
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1


def test_the_scoreboard_panel_is_bounded(client: FlaskClient) -> None:
    from app.world.pages import SCOREBOARD_TEAMS, TEAM_PLAYERS

    for i in range(SCOREBOARD_TEAMS + 3):
        client.post("/api/worlds/main/players", json={"name": f"p{i}", "team": f"t{i:02d}"})
    for i in range(TEAM_PLAYERS + 2):
        client.post("/api/worlds/main/players", json={"name": f"q{i}", "team": "t00"})
    html = client.get("/world/main/scoreboard?team=t17").get_data(as_text=True)
    assert html.count('class="team') == SCOREBOARD_TEAMS + 1  # the top ones and mine
    assert 'data-team="t17"' in html and "and 2 more teams" in html
    assert html.count('data-player="') <= (SCOREBOARD_TEAMS + 1) * TEAM_PLAYERS


def test_who_refuses_seqs_beyond_the_store_and_answers_nothing_for_none(
    client: FlaskClient,
) -> None:
    """A seq past 2**63 - 1 (the column's range) or one in other digits than ASCII is a 400
    naming ``seqs`` (it was a 500: SQLite's OverflowError); no seqs asked is no answer."""
    join(client, "ana", "reds")
    for seqs in ("9999999999999999999", "1,9999999999999999999", "²", "1,", "-1"):
        r = client.get(f"/world/main/teams/reds/who?seqs={seqs}")
        assert r.status_code == 400 and r.get_json()["field"] == "seqs", seqs
    r = client.get("/world/main/teams/reds/who?seqs=")
    assert r.status_code == 200 and r.get_json() == {}


def test_colours_are_checked_against_the_worlds_own_number(client: FlaskClient) -> None:
    """A 3-colour world names 0 to 2 whatever the colour (not the schema's 0 to 7), and a
    colour in other digits is a 400 (str.isdigit took "²", int() then failed: a 500)."""
    assert client.post("/api/worlds", json={"id": "trio", "colours": 3}).status_code == 201
    for colour in (-1, 3, 9):
        r = client.post(
            "/api/worlds/trio/players", json={"name": "z", "team": "t", "colour": colour}
        )
        assert r.status_code == 400 and r.get_json()["field"] == "colour"
        assert "allowed 0 to 2" in r.get_json()["error"], r.get_json()
    token = csrf(client, "trio")
    base = {"csrf_token": token, "name": "ana", "team": "", "new_team": "reds"}
    for typed in ("²", "3", "-1", "1.0"):
        r = client.post("/world/trio/join", data={**base, "colour": typed})
        assert r.status_code == 400 and r.get_json()["field"] == "colour", typed
        assert "0 to 2" in r.get_json()["error"]
    join(client, "ana", "reds", colour=1, world="trio")
    for sent in ("²", 3):
        r = client.post("/world/trio/colour", json={"colour": sent}, headers={"X-CSRFToken": token})
        assert r.status_code == 400 and "0 to 2" in r.get_json()["error"], sent


def test_an_unknown_team_is_named_in_the_404(client: FlaskClient) -> None:
    r = client.get("/api/worlds/main/teams/blue/view?colour=0&x0=0&y0=0")
    assert r.status_code == 404
    assert r.get_json()["error"] == "world 'main' has no team 'blue'"
    assert client.get("/api/worlds/main/nothing").get_json()["error"].startswith("no such endpoint")


def test_a_watcher_asking_for_a_missing_team_or_colour_is_told(client: FlaskClient) -> None:
    """The page says what it shows instead (it showed the first team in the list while the
    board followed team '', empty and offline), and bad colours never reach int()."""
    empty = client.get("/world/main?team=nope").get_data(as_text=True)
    assert "No team &#39;nope&#39; in this world: nobody has joined yet." in empty
    join(client, "ana", "reds")
    client.post("/world/main/leave", data={"csrf_token": csrf(client)})
    page = client.get("/world/main?team=nope&colour=²")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'data-team="reds"' in html and "watching reds" in html
    assert "does not exist here (0 to 5): showing 0." in html and 'data-colour="0"' in html
    quiet = client.get("/world/main?team=reds&colour=3").get_data(as_text=True)
    assert 'data-colour="3"' in quiet and 'aria-live="polite"></output>' in quiet


def test_the_activity_feed_sums_up_a_players_run_of_moves(client: FlaskClient) -> None:
    """One busy player is one line per run of like moves, so the others stay in view."""
    from app.world.pages import ACTIVITY_ROWS

    ana = join(client, "ana", "reds")
    assert move(client, ana, "reveal", 9000, 9000)["outcome"] == "devil"
    client.post("/world/main/leave", data={"csrf_token": ana})
    bot = join(client, "bot", "blues")
    guesses = [{"kind": "reveal", "x": 5000 + 3 * i, "y": 5000} for i in range(ACTIVITY_ROWS + 5)]
    r = client.post("/api/worlds/main/moves", json={"moves": guesses}, headers={"X-CSRFToken": bot})
    assert r.status_code == 200
    feed = client.get("/world/main/activity").get_data(as_text=True)
    assert f"made {ACTIVITY_ROWS + 5} devil errors" in feed
    assert "<b>ana</b>" in feed and "made a devil error (reveal)" in feed
    assert feed.count("<li") == 4  # each new team's first drop, made on joining, is a line
    assert feed.count("dropped in") == 2


def test_a_move_that_opened_nothing_is_not_said_to_reveal() -> None:
    """A chord on a number whose covered neighbours are flagged opens nothing: the feed said
    "revealed 0 cells" (a stranger's first reading: the tap was lost)."""
    from datetime import UTC, datetime

    from app.world.pages import describe, describe_run
    from app.world.records import WorldEvent

    def event(kind: str, opened: int) -> WorldEvent:
        return WorldEvent("main", 1, "reds", "ana", 0, kind, 0, 0, "revealed", opened, (),
                          datetime.now(UTC))  # fmt: skip

    assert describe(event("chord", 0)) == "chord: nothing new"
    assert describe(event("reveal", 1)) == "revealed 1 cell"
    assert describe_run([event("chord", 0)] * 2) == "made 2 moves that changed nothing"
    assert describe_run([event("chord", 0), event("reveal", 3)]) == "revealed 3 cells in 2 moves"


def test_big_counters_are_short_in_the_scoreboard() -> None:
    from app.world.pages import compact

    assert [compact(n) for n in (0, 9999, 10_000, 231_828, 999_999, 1_234_567)] == [
        "0", "9999", "10k", "231k", "999k", "1.2M",
    ]  # fmt: skip


def test_joining_comes_back_where_the_player_was_looking(client: FlaskClient) -> None:
    token = csrf(client)
    form = {"csrf_token": token, "name": "ana", "team": "", "new_team": "reds", "colour": "1"}
    r = client.post("/world/main/join", data={**form, "x": "-1200", "y": "35"})
    # a new team: its first drop is made there on joining, and the page opens on it
    assert r.status_code == 303 and r.headers["Location"].endswith("&welcome=drop")
    found = re.search(r"x=(-?\d+)&y=(-?\d+)", r.headers["Location"])
    assert found and abs(int(found[1]) + 1200) <= 32 and abs(int(found[2]) - 35) <= 32
    form = {**form, "new_team": "", "team": "reds"}  # joining that team: no drop, same place
    r = client.post("/world/main/join", data={**form, "x": "-1200", "y": "35"})
    assert r.status_code == 303 and r.headers["Location"].endswith("/world/main?x=-1200&y=35")
    r = client.post("/world/main/join", data={**form, "x": "abc", "y": ""})
    assert r.status_code == 303 and r.headers["Location"].endswith("/world/main")
    # without a place the page opens where the team was busy: where it dropped
    page = client.get("/world/main").get_data(as_text=True)
    assert 'data-start-x="-1200" data-start-y="35"' in page


def test_a_watcher_opens_on_the_liveliest_team(client: FlaskClient) -> None:
    join(client, "ana", "quiet")
    csrf_token = join(client, "bob", "busy")
    for i in range(3):
        move(client, csrf_token, "flag", 7000 + i, 7000)
    client.post("/world/main/leave", data={"csrf_token": csrf_token})
    page = client.get("/world/main").get_data(as_text=True)
    assert 'data-team="busy"' in page and "<option selected>busy</option>" in page


def test_the_page_plays_through_the_apis_one_raft_endpoint(client: FlaskClient) -> None:
    """Issue 19 item 5: the page's twin ``/world/<w>/moves`` is gone; the API's endpoint
    takes the page's session (with its CSRF token) or a bearer token, and nothing else."""
    token = join(client, "ana", "reds")
    raft = {"moves": [{"kind": "flag", "x": 9000, "y": 9000}]}
    assert client.post(
        "/world/main/moves", json=raft, headers={"X-CSRFToken": token}
    ).status_code in (404, 405)
    r = client.post("/api/worlds/main/moves", json=raft, headers={"X-CSRFToken": token})
    assert r.status_code == 200 and r.get_json()["results"][0]["kind"] == "flag"
    r = client.post("/api/worlds/main/moves", json=raft, headers={"X-CSRFToken": "forged"})
    assert r.status_code == 400  # the cookie alone never moves
    assert client.post("/api/worlds", json={"id": "other"}).status_code == 201
    r = client.post("/api/worlds/other/moves", json=raft, headers={"X-CSRFToken": token})
    assert r.status_code == 401  # the session holds no player of that world
    r = client.post("/api/worlds/main/moves", json=raft, headers={"Authorization": "Bearer nope"})
    assert r.status_code == 401  # a header present is the header's answer, cookie or not
