"""Issue 17: Devil World under attack, one regression test per finding (small scale).

Finding 2 (scoreboard quadratic, shared, paged), 4 (``who?seqs=``), 5 and 6 (identities, drops,
views and lookups cost something), 3 and 7 (streams: the worker's room, slots freed when the
client leaves, outages end a stream cleanly, 503s carry Retry-After) and idempotent rafts.
Finding 1 (bounded judgements) is tested with the world rule (``devil/world``).
"""

from __future__ import annotations

import random
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import given
from hypothesis import strategies as st

from app.world.scoreboard import ScoreboardCache, pareto_frontier
from tests.helpers.world import CpuGaps, World, dropped

Json = dict[str, Any]


@pytest.fixture
def api(client: FlaskClient) -> World:
    return World(client)


def beaten_quadratic(teams: list[tuple[str, int, int, int]]) -> list[str]:
    """The frontier by its definition (every pair): the oracle of ``pareto_frontier``."""

    def beats(a: tuple[str, int, int, int], b: tuple[str, int, int, int]) -> bool:
        return a[1] >= b[1] and a[2] >= b[2] and a[3] <= b[3] and a[1:] != b[1:]

    return sorted(t[0] for t in teams if not any(beats(o, t) for o in teams))


triples = st.lists(
    st.tuples(st.integers(0, 6), st.integers(0, 6), st.integers(0, 6)), max_size=40
).map(lambda ts: [(f"t{i}", *t) for i, t in enumerate(ts)])


@given(triples)
def test_the_pareto_frontier_matches_its_definition(teams: list[tuple[str, int, int, int]]) -> None:
    assert pareto_frontier(teams) == beaten_quadratic(teams)


def test_the_pareto_frontier_of_many_teams_is_fast() -> None:
    """25,000 teams (the count whose scoreboard timed a worker out): about 0.1 s here, the
    quadratic definition would take minutes; 5 s leaves room for a loaded machine."""
    rng = random.Random(7)
    teams = [(f"t{i}", rng.randrange(10**6), rng.randrange(10**4), rng.randrange(100))
             for i in range(25_000)]  # fmt: skip
    started = time.perf_counter()
    frontier = pareto_frontier(teams)
    assert time.perf_counter() - started < 5.0
    sample = rng.sample(teams, 300) + [t for t in teams if t[0] in set(frontier)][:50]
    assert set(beaten_quadratic(sample)) >= set(frontier) & {t[0] for t in sample}


# -- the scoreboard: built once per change, shared ----------------------------------------


def test_the_scoreboard_is_built_once_per_change_not_per_request(api: World) -> None:
    red, _ = api.join("Ada", "red", 1)
    cache: ScoreboardCache = api.client.application.extensions["mine_devil.world.scoreboards"]
    first = api.client.get("/api/worlds/main/scoreboard").get_json()
    builds = cache.builds
    for _ in range(20):
        assert api.client.get("/api/worlds/main/scoreboard").get_json() == first
        api.client.get("/world/main/scoreboard")
    assert cache.builds == builds  # twenty readers of each kind, no rebuild
    dropped(api, red)
    after = api.client.get("/api/worlds/main/scoreboard").get_json()
    assert cache.builds == builds + 1 and after["teams"][0]["drops"] == 1  # a change: fresh


def test_a_big_world_is_rebuilt_at_most_once_per_interval() -> None:
    """Changes faster than ``min_seconds`` in a world over ``small`` rows cost one build per
    interval; another process's change is seen once the probe moves."""
    from app.world.scoreboard import Row

    now = [0.0]
    state = {"seq": 1, "teams": 600}

    def read(world: str, pause: Callable[[], None]) -> tuple[list[Row], list[Row]]:
        return [(f"t{i}", 0, 0, 0, 0, 0, None, None) for i in range(state["teams"])], []

    cache = ScoreboardCache(read, lambda w: (state["seq"], 0, state["teams"]),
                            clock=lambda: now[0])  # fmt: skip
    assert len(cache.get("w").teams) == 600 and cache.builds == 1
    for step in range(10):  # ten local changes in 0.9 s: no rebuild
        cache.changed("w")
        now[0] = step * 0.09
        assert cache.builds == 1 and cache.get("w") is not None
    now[0] = 1.0
    cache.get("w")
    assert cache.builds == 2
    state["teams"] = 601  # another process: seen after max_seconds
    now[0] = 1.5
    assert len(cache.get("w").teams) == 600
    now[0] = 2.01
    assert len(cache.get("w").teams) == 601 and cache.builds == 3
    now[0] = 3.5
    cache.get("w")
    assert cache.builds == 3  # probed, nothing moved: no rebuild


def many_rows(n: int) -> tuple[list[Any], list[Any]]:
    """``n`` teams of one player each, with random counters, as the store reads them
    (``app.world.scoreboard.Row``: teams by name, players by team)."""
    rng = random.Random(3)
    teams = sorted(
        (f"t{i}", rng.randrange(100), rng.randrange(10**4), rng.randrange(500),
         rng.randrange(20), 1, None, None) for i in range(n)
    )  # fmt: skip
    players = [(f"p{i}", *t[1:6], t[0], f"id{i}") for i, t in enumerate(teams)]
    return teams, players


def test_a_big_scoreboard_is_built_in_slices_and_kept_out_of_the_collector() -> None:
    """A build handles at most ``SLICE`` rows between two pauses (the worker's other requests
    run in them: measured in this thread's CPU time, with the collector off so that only the
    build is measured), answers as the plain definition does, and keeps its rows as plain
    tuples, which the garbage collector stops walking (full collections stay short)."""
    import gc

    from app.world.scoreboard import Scoreboard, as_standing

    rows, people = many_rows(20_000)
    teams = [as_standing(r) for r in rows]
    players = [as_standing(r) for r in people]
    gc.disable()
    try:
        pause = CpuGaps()
        board = Scoreboard.build("w", rows, people, pause)
    finally:
        gc.enable()
    gaps = pause.gaps
    assert len(gaps) >= 80 and max(gaps) < 0.05, (len(gaps), max(gaps))
    ranked = sorted(teams, key=lambda t: (-t.counts.revealed, t.counts.errors, t.name))
    assert list(board.ranked) == ranked and list(board.teams) == teams
    assert board.team("t7") == next(t for t in teams if t.name == "t7")
    assert list(board.players_of("t7")) == [p for p in players if p.team == "t7"]
    assert board.player("id5") == players[5] and board.player("nobody") is None
    body = board.to_json()
    assert body["teams"][0] == {"team": teams[0].name, "moves": teams[0].counts.moves,
                                "revealed": teams[0].counts.revealed,
                                "flags": teams[0].counts.flags,
                                "errors": teams[0].counts.errors, "drops": 1}  # fmt: skip
    assert body["players"][5]["player"] == "id5" and len(body["players"]) == 20_000
    gc.collect()
    assert not any(gc.is_tracked(row) for row in board.ranked._rows)


def test_a_costly_scoreboard_is_rebuilt_less_often(monkeypatch: pytest.MonkeyPatch) -> None:
    """A big world whose build took 0.5 s of the worker's time is not rebuilt for
    ``COST_RATIO`` times that, however often it changes: building takes at most a tenth of
    the worker."""
    from app.world import scoreboard

    teams, players = many_rows(600)
    now = [0.0]
    cache = ScoreboardCache(lambda w, pause: (teams, players), lambda w: (1, 600, 600),
                            clock=lambda: now[0])  # fmt: skip
    monkeypatch.setattr(scoreboard._Stopwatch, "stop", lambda self: 0.5)
    cache.get("w")
    for step in range(1, 10):
        cache.changed("w")
        now[0] = step * 0.5
        cache.get("w")
        assert cache.builds == (1 if now[0] < 5.0 else 2), now[0]


def test_the_scoreboard_panel_pages(client: Any) -> None:
    for i in range(40):
        r = client.post("/api/worlds/main/players", json={"name": f"p{i}", "team": f"t{i:02d}"})
        assert r.status_code == 201
    first = client.get("/world/main/scoreboard").get_data(as_text=True)
    second = client.get("/world/main/scoreboard?page=2").get_data(as_text=True)
    third = client.get("/world/main/scoreboard?page=3").get_data(as_text=True)
    assert first.count('class="team') == second.count('class="team') == 15
    assert third.count('class="team') == 10
    teams = [t for page in (first, second, third) for t in page.split('data-team="')[1:]]
    assert len({t.split('"')[0] for t in teams}) == 40  # every team once
    assert "page=2" in first and "page=1" in second
    r = client.get("/world/main/scoreboard?page=4")
    assert r.status_code == 400


# -- who ------------------------------------------------------------------------------------


def test_who_answers_a_bounded_number_of_seqs_in_range_reading_only_those(
    api: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.world.pages import MAX_WHO

    red, _ = api.join("Ada", "red", 1)
    seq = dropped(api, red)["seq"]
    c = api.client
    for seqs in ("0", f"0,{2**63 - 1}", f"1,{2**63}", "-5"):
        r = c.get(f"/world/main/teams/red/who?seqs={seqs}")
        assert r.status_code == 400 and r.get_json()["field"] == "seqs", seqs
    many = ",".join(str(i) for i in range(1, MAX_WHO + 2))
    r = c.get(f"/world/main/teams/red/who?seqs={many}")
    assert r.status_code == 400 and r.get_json()["field"] == "seqs"
    assert str(MAX_WHO) in r.get_json()["error"]
    asked: list[int] = []
    store = c.application.extensions["mine_devil.world.store"]
    real = store.team_events_at

    def spy(world: str, team: str, seqs: Any) -> Any:
        asked.extend(seqs)
        return real(world, team, seqs)

    monkeypatch.setattr(store, "team_events_at", spy)
    r = c.get(f"/world/main/teams/red/who?seqs={seq},{2**63 - 1}")
    assert r.status_code == 200 and list(r.get_json()) == [str(seq)]
    assert sorted(asked) == [seq, 2**63 - 1]  # the seqs asked, not the range between


# -- identities, drops, views and lookups cost something -------------------------------


def limited_app(make_app: Callable[..., Flask], **limits: Any) -> Flask:
    quiet = {
        "WORLD_JOIN_CLIENT_RATE_LIMIT": "1000 per minute",
        "WORLD_JOIN_RATE_LIMIT": "1000 per minute",
        "WORLD_TEAM_CLIENT_RATE_LIMIT": "1000 per minute",
        "WORLD_NEW_TEAM_RATE_LIMIT": "1000 per minute",
        "WORLD_DROP_SECONDS": "0",
    }
    return make_app(RATELIMIT_ENABLED=True, PROXY_HOPS=1, **{**quiet, **limits})


def join_as(client: Any, address: str, name: str, team: str) -> Any:
    return client.post(
        "/api/worlds/main/players",
        json={"name": name, "team": team},
        headers={"X-Forwarded-For": address},
    )


def test_new_players_and_teams_are_limited_per_address_and_per_world(
    make_app: Callable[..., Flask],
) -> None:
    app = limited_app(
        make_app,
        WORLD_JOIN_CLIENT_RATE_LIMIT="4 per minute",
        WORLD_TEAM_CLIENT_RATE_LIMIT="2 per minute",
        WORLD_JOIN_RATE_LIMIT="7 per minute",
    )
    c = app.test_client()
    statuses = [join_as(c, "10.0.0.1", f"p{i}", f"t{i}").status_code for i in range(3)]
    assert statuses == [201, 201, 429]  # a third new team from one address
    r = join_as(c, "10.0.0.1", "q", "t0")
    assert r.status_code == 201  # joining an existing team is a player, not a team
    r = join_as(c, "10.0.0.1", "q2", "t1")
    assert r.status_code == 201
    r = join_as(c, "10.0.0.1", "q3", "t1")
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    assert "client address" in r.get_json()["error"]
    # other addresses go on until the world's own limit (7 joins a minute) is spent
    got = [join_as(c, f"10.0.1.{i}", f"r{i}", "t0").status_code for i in range(5)]
    assert got == [201, 201, 201, 429, 429]
    assert "world" in join_as(c, "10.0.2.1", "s", "t0").get_json()["error"]


def test_drops_are_limited_per_address_whoever_drops(make_app: Callable[..., Flask]) -> None:
    app = limited_app(make_app, WORLD_DROP_CLIENT_RATE_LIMIT="3 per minute")
    api = World(app.test_client())
    headers = {"X-Forwarded-For": "10.0.0.5"}
    statuses = []
    for i in range(5):  # a fresh player per drop: the per-player rule bounds nobody
        token = join_as(api.client, "10.0.0.5", f"p{i}", "red").get_json()["token"]
        r = api.client.post(
            "/api/worlds/main/moves",
            json={"moves": [{"kind": "drop", "x": 1000 * i, "y": 0}]},
            headers={**headers, "Authorization": f"Bearer {token}"},
        )
        statuses.append(r.status_code)
    assert statuses == [200, 200, 200, 429, 429]


def test_views_and_who_are_limited_per_address(make_app: Callable[..., Flask]) -> None:
    app = limited_app(make_app, WORLD_VIEW_RATE_LIMIT="40 per minute",
                      WORLD_WHO_RATE_LIMIT="3 per minute")  # fmt: skip
    c = app.test_client()
    join_as(c, "10.0.0.1", "ana", "red")
    big = "/api/worlds/main/teams/red/view?colour=0&x0=0&y0=0&width=256&height=256"
    small = "/api/worlds/main/teams/red/view?colour=0&x0=0&y0=0&width=64&height=64"
    h = {"X-Forwarded-For": "10.0.0.9"}
    assert [c.get(big, headers=h).status_code for _ in range(3)] == [200, 200, 429]  # 16 each
    assert c.get(small, headers=h).status_code == 200  # 33 of 40 spent: a small one fits
    assert c.get(small, headers={"X-Forwarded-For": "10.0.0.10"}).status_code == 200
    who = "/world/main/teams/red/who?seqs=1"
    assert [c.get(who, headers=h).status_code for _ in range(4)] == [200, 200, 200, 429]


# -- streams ----------------------------------------------------------------------------


def test_the_stream_room_leaves_a_quarter_of_the_worker_free() -> None:
    from app.live.slots import stream_room_size

    assert stream_room_size(1000) == 750
    assert stream_room_size(4000) == 3000
    assert stream_room_size(150) == 75
    assert stream_room_size(None) > 10**6


def test_world_and_game_streams_share_the_workers_room(make_app: Callable[..., Flask]) -> None:
    app = make_app(WORKER_CONNECTIONS=6, LIVE_MAX_SECONDS=30)  # room: 3 streams
    api = World(app.test_client())
    api.join()
    url = "/api/worlds/main/teams/red/events?colour=0&x0=0&y0=0"
    held = [api.client.get(url, buffered=False, headers={"X-Forwarded-For": f"10.0.0.{i}"})
            for i in range(3)]  # fmt: skip
    assert [r.status_code for r in held] == [200, 200, 200]
    refused = api.client.get(url)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
    game = api.client.post("/api/games", json={"width": 9, "height": 9, "mines": 10})
    assert api.client.get(f"/api/games/{game.get_json()['id']}/events").status_code == 429
    assert api.client.get("/healthz").status_code == 200
    for r in held:
        r.close()
    assert app.extensions["mine_devil.stream_room"].held() == 0


@pytest.mark.parametrize("busy", [False, True], ids=["idle team", "busy team"])
def test_a_stream_lets_its_slot_go_within_a_second_of_its_client_leaving(
    app: Flask, busy: bool
) -> None:
    """The stream sees the client's socket end (``app.gate.client_gone``) while it waits,
    also when the team's moves wake it ten times a second (moves that change nothing it
    shows, so it never writes: a failed write would not tell it)."""
    from app.gate import client_gone
    from app.notify import get_notifier
    from app.world.feed import event_stream
    from app.world.service import Viewport, topic

    World(app.test_client()).join()
    server, client = socket.socketpair()
    gone = client_gone({"gunicorn.socket": server})
    assert gone is not None and not gone()
    with app.app_context():
        stream = event_stream(
            app.extensions["mine_devil.world.feeds"],
            app.extensions["mine_devil.world.store"],
            get_notifier(),
            "main",
            "red",
            Viewport(0, 0, 0, 8, 8),
            0,
            max_seconds=60,
            gone=gone,
        )
        assert next(stream) == ": stream open\n\n"
        client.close()
        stop = threading.Event()
        notifier = get_notifier()

        def moves() -> None:
            while not stop.wait(0.1):
                notifier.publish(topic("main", "red"), {"s": 0})

        mover = threading.Thread(target=moves, daemon=True)
        if busy:
            mover.start()
        started = time.monotonic()
        try:
            assert list(stream) == []  # it ended: no heartbeat, no 15 s wait
        finally:
            stop.set()
        assert time.monotonic() - started < 2.0  # 0.5 s polls; a loaded machine is slower
    server.close()


def test_a_stream_meeting_a_database_outage_ends_cleanly(
    app: Flask, caplog: pytest.LogCaptureFixture
) -> None:
    from app.notify import get_notifier
    from app.world.feed import event_stream
    from app.world.service import Viewport

    World(app.test_client()).join()
    store = app.extensions["mine_devil.world.store"]

    def down(*args: Any, **kwargs: Any) -> Any:
        raise sa.exc.OperationalError("SELECT", {}, Exception("connection refused"))

    store.team_events = down
    with app.app_context():
        chunks = list(event_stream(app.extensions["mine_devil.world.feeds"], store,
                                   get_notifier(), "main", "red", Viewport(0, 0, 0, 8, 8), 0,
                                   max_seconds=5))  # fmt: skip
    assert chunks[0] == ": stream open\n\n" and chunks[-1].startswith("retry: ")
    assert "Last-Event-ID" in caplog.text and "Traceback" not in caplog.text
    assert all(r.exc_info is None for r in caplog.records)


def test_every_503_says_retry_after(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    store = app.extensions["mine_devil.world.store"]

    def down(*args: Any, **kwargs: Any) -> Any:
        raise sa.exc.OperationalError("SELECT", {}, Exception("connection refused"))

    monkeypatch.setattr(store, "summary", down)
    monkeypatch.setattr(store, "head", down)
    c = app.test_client()
    for path in ("/api/worlds/main", "/world/main/activity"):
        r = c.get(path)
        assert r.status_code == 503 and int(r.headers["Retry-After"]) >= 1, path


# -- idempotent rafts ---------------------------------------------------------------------


def test_a_retried_raft_gets_its_first_answer_and_logs_nothing_twice(api: World) -> None:
    red, _ = api.join("Ada", "red", 1)
    raft = {"moves": [{"kind": "drop", "x": 0, "y": 0}]}
    c = api.client
    auth = {"Authorization": f"Bearer {red}", "Idempotency-Key": "k-1"}
    first = c.post("/api/worlds/main/moves", json=raft, headers=auth)
    assert first.status_code == 200 and "Idempotent-Replayed" not in first.headers
    again = c.post("/api/worlds/main/moves", json=raft, headers=auth)
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()
    by_body = c.post("/api/worlds/main/moves", json={**raft, "idempotency_key": "k-1"},
                     headers={"Authorization": f"Bearer {red}"})  # fmt: skip
    assert by_body.get_json() == first.get_json()
    summary = c.get("/api/worlds/main").get_json()
    assert summary["moves"] == 1  # logged once
    other = c.post("/api/worlds/main/moves",
                   json={"moves": [{"kind": "reveal", "x": 5, "y": 5}]}, headers=auth)  # fmt: skip
    assert other.status_code == 422 and other.get_json()["field"] == "Idempotency-Key"
    bad = c.post("/api/worlds/main/moves", json=raft,
                 headers={**auth, "Idempotency-Key": "has space"})  # fmt: skip
    assert bad.status_code == 400 and bad.get_json()["field"] == "Idempotency-Key"
    clash = c.post("/api/worlds/main/moves", json={**raft, "idempotency_key": "k-2"},
                   headers=auth)  # fmt: skip
    assert clash.status_code == 400 and clash.get_json()["field"] == "idempotency_key"
    # another player's same key is its own
    blue, _ = api.join("Bob", "red", 1)
    blue_auth = {"Authorization": f"Bearer {blue}", "Idempotency-Key": "k-1"}
    mine = c.post("/api/worlds/main/moves", json=raft, headers=blue_auth)
    assert mine.status_code == 200 and "Idempotent-Replayed" not in mine.headers


def test_a_kept_answer_survives_the_process(make_app: Callable[..., Flask]) -> None:
    """Stored with the raft's transaction: a new app (a restarted worker) replays it."""
    api = World(make_app().test_client())
    red, _ = api.join("Ada", "red", 1)
    raft = {"moves": [{"kind": "drop", "x": 0, "y": 0}], "idempotency_key": "after-kill"}
    auth = {"Authorization": f"Bearer {red}"}
    first = api.client.post("/api/worlds/main/moves", json=raft, headers=auth).get_json()
    fresh = make_app().test_client()
    again = fresh.post("/api/worlds/main/moves", json=raft, headers=auth)
    assert again.headers.get("Idempotent-Replayed") == "true" and again.get_json() == first
    assert fresh.get("/api/worlds/main").get_json()["moves"] == 1


def test_a_replay_inside_the_lock_plays_nothing(api: World) -> None:
    """Two copies at once: the second finds the first's answer under the team's lock."""
    from app.world.idempotency import RaftReplayed, raft_key
    from app.world.judging import MoveRequest
    from app.world.service import play_raft

    _, joined = api.join("Ada", "red", 1)
    app = api.client.application
    store = app.extensions["mine_devil.world.store"]
    player = store.player(joined["player"])
    key = raft_key("twice", [{"kind": "drop", "x": 0, "y": 0}], 3600)
    with app.app_context():
        from app.notify import get_notifier

        args = (store, get_notifier(), app.extensions["mine_devil.world.colourings"], player,
                [MoveRequest("drop", 0, 0)])  # fmt: skip
        first = play_raft(*args, drop_seconds=0, key=key)
        with pytest.raises(RaftReplayed) as replay:
            play_raft(*args, drop_seconds=0, key=key)
    assert replay.value.remembered.answer() == [a.to_json() for a in first]
    assert store.summary("main")["moves"] == 1


def test_a_kept_answer_on_either_database(make_app: Callable[..., Flask], db_url: str) -> None:
    """On PostgreSQL the answer rides in the raft's single flight (``app.world.flight``)."""
    app = make_app(DATABASE_URL=db_url)
    api = World(app.test_client())
    red, _ = api.join("Ada", "red", 1)
    auth = {"Authorization": f"Bearer {red}", "Idempotency-Key": "pg-1"}
    raft = {"moves": [{"kind": "drop", "x": 0, "y": 0}, {"kind": "reveal", "x": 900, "y": 0}]}
    first = app.test_client().post("/api/worlds/main/moves", json=raft, headers=auth)
    assert first.status_code == 200
    seqs = [r["seq"] for r in first.get_json()["results"]]
    again = (
        make_app(DATABASE_URL=db_url)
        .test_client()
        .post("/api/worlds/main/moves", json=raft, headers=auth)
    )
    assert again.get_json() == first.get_json() and seqs == [seqs[0], seqs[0] + 1]
    assert api.client.get("/api/worlds/main").get_json()["moves"] == 2


def test_a_kept_answer_gives_seqs_to_logged_moves_only() -> None:
    """A move the judging budget left undecided logged nothing: its replayed seq is None and
    the logged moves keep their consecutive seqs."""
    from app.world.idempotency import Remembered

    results = (
        {"kind": "reveal", "outcome": "revealed"},
        {"kind": "reveal", "outcome": "undecided"},
        {"kind": "flag", "outcome": "flagged"},
    )
    answer = Remembered("d", results, last_seq=41).answer()
    assert [r["seq"] for r in answer] == [40, None, 41]


def test_a_game_stream_also_lets_its_slot_go_when_its_client_leaves(app: Flask) -> None:
    """The games' streams share the worker's room: they check for a departed client too."""
    from app.gate import client_gone
    from app.live.routes import updates
    from app.notify import get_notifier
    from app.play.setup import get_service

    game = app.test_client().post("/api/games", json={"width": 9, "height": 9, "mines": 10})
    server, client = socket.socketpair()
    with app.app_context():
        stream = updates(get_service().store, game.get_json()["id"], get_notifier(), 60,
                         gone=client_gone({"gunicorn.socket": server}))  # fmt: skip
        assert next(stream).startswith("event: move")
        client.close()
        started = time.monotonic()
        assert list(stream) == []
        assert time.monotonic() - started < 2.0  # 0.5 s polls; a loaded machine is slower
    server.close()
