"""Devil World under concurrency and across hosts: threads on one team, live feeds woken by
the notifier (in-process on SQLite, LISTEN/NOTIFY on PostgreSQL), two app instances on one
PostgreSQL."""

from __future__ import annotations

import queue
import random
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from flask import Flask

from app.world.store import WorldStore
from tests.helpers.world import WOKEN_WITHIN, World, opening, parse_sse, stream_lines

URL_VIEW = (
    "/api/worlds/main/teams/{team}/events?colour={colour}&x0={x0}&y0={y0}&width={w}&height={h}"
)


def next_cells(chunks: queue.Queue[str], timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        assert remaining > 0, "no cells event arrived in time"
        chunk = chunks.get(timeout=remaining)
        events = parse_sse(chunk)
        if events:
            return events[0]


@pytest.fixture
def live_apps(make_app: Callable[..., Flask], db_url: str) -> Iterator[tuple[Flask, Flask]]:
    """Two app instances (separate engines and notifiers) on one database."""
    channel = f"test_{uuid.uuid4().hex[:12]}"  # PostgreSQL channels are database-wide
    first = make_app(DATABASE_URL=db_url, LIVE_MAX_SECONDS=20, NOTIFY_CHANNEL=channel)
    second = make_app(
        DATABASE_URL=db_url, LIVE_MAX_SECONDS=20, AUTO_MIGRATE=False, NOTIFY_CHANNEL=channel
    )
    yield first, second


def test_a_move_through_one_app_reaches_the_other_apps_feed(
    live_apps: tuple[Flask, Flask], db_url: str
) -> None:
    """Each app has its own engine and notifier: on PostgreSQL the watcher learns of the move
    through LISTEN/NOTIFY, on SQLite (one host) through the host notifier's datagram."""
    mover = World(live_apps[0].test_client())
    token, _ = mover.join(colour=1)
    first, _, found = opening(mover, token, 1)
    x0, y0 = first["at"]
    url = URL_VIEW.format(team="red", colour=1, x0=x0 - 40, y0=y0 - 40, w=81, h=81)
    cell = sorted(found.safe)[0]
    with stream_lines(live_apps[1], url) as chunks:
        started = time.monotonic()
        (result,) = mover.moves(token, [{"kind": "reveal", "x": cell[0], "y": cell[1]}])["results"]
        event = next_cells(chunks, timeout=WOKEN_WITHIN)
        latency = time.monotonic() - started
    assert event["seq"] == result["seq"]
    assert event["cells"] == result["cells"]
    assert latency < WOKEN_WITHIN  # woken by the notifier, not by the 15 s heartbeat


def test_a_raft_reaches_a_live_stream_in_one_write(make_app: Callable[..., Flask]) -> None:
    """The events one read of the log brings go to the watcher as one chunk (one send per
    raft, not one per move), each with its own ``id``, in order, none left out."""
    app = make_app(LIVE_MAX_SECONDS=20)
    api = World(app.test_client())
    token, _ = api.join(colour=0)
    first, _, found = opening(api, token, 0)
    x0, y0 = first["at"]
    url = URL_VIEW.format(team="red", colour=0, x0=x0 - 40, y0=y0 - 40, w=81, h=81)
    raft = [{"kind": "reveal", "x": x, "y": y} for x, y in sorted(found.safe)]
    raft += [{"kind": "flag", "x": x, "y": y} for x, y in sorted(found.mines)]
    with stream_lines(app, url) as chunks:
        results = api.moves(token, raft)["results"]
        chunk = chunks.get(timeout=WOKEN_WITHIN)
    events = parse_sse(chunk)
    inside = [
        (r["seq"], [[x, y, s] for x, y, s in r["cells"] if abs(x - x0) <= 40 and abs(y - y0) <= 40])
        for r in results
    ]
    shown = [(seq, cells) for seq, cells in inside if cells]  # a cell a cascade opened: none
    assert [(e["seq"], e["cells"]) for e in events] == shown
    assert len(events) >= 2


def test_a_live_stream_is_woken_by_the_notifier_not_by_polling(
    make_app: Callable[..., Flask],
) -> None:
    app = make_app(LIVE_MAX_SECONDS=20)
    api = World(app.test_client())
    token, _ = api.join(colour=0)
    first, _, found = opening(api, token, 0)
    x0, y0 = first["at"]
    url = URL_VIEW.format(team="red", colour=0, x0=x0 - 40, y0=y0 - 40, w=81, h=81)
    store: WorldStore = app.extensions["mine_devil.world.store"]
    reads = Counter[str]()
    original = store.team_events

    def counted(*args: Any, **kwargs: Any) -> Any:
        reads["team_events"] += 1
        return original(*args, **kwargs)

    store.team_events = counted  # type: ignore[method-assign]
    with stream_lines(app, url) as chunks:
        time.sleep(1.0)
        assert reads["team_events"] <= 1  # the first read, then nothing while nothing moves
        for x, y in sorted(found.safe)[:3]:
            started = time.monotonic()
            (result,) = api.moves(token, [{"kind": "reveal", "x": x, "y": y}])["results"]
            if not result["cells"]:
                continue
            event = next_cells(chunks, timeout=WOKEN_WITHIN)
            assert event["seq"] == result["seq"]
            assert time.monotonic() - started < WOKEN_WITHIN


def test_threads_on_one_team_and_the_same_cells_lose_nothing_and_count_once(
    make_app: Callable[..., Flask], db_url: str
) -> None:
    app = make_app(DATABASE_URL=db_url)
    api = World(app.test_client())
    tokens = [api.join(f"p{i}", "red", 3)[0] for i in range(8)]
    first, _, found = opening(api, tokens[0], 3)
    cells = sorted(found.safe)
    flags = sorted(found.mines)
    before = api.client.get("/api/worlds/main/scoreboard").get_json()["teams"][0]
    errors: list[BaseException] = []
    answers: list[dict[str, Any]] = []
    lock = threading.Lock()
    barrier = threading.Barrier(len(tokens))

    def player(i: int) -> None:
        client = World(app.test_client())
        rng = random.Random(i)
        moves = [{"kind": "reveal", "x": x, "y": y} for x, y in cells]
        moves += [{"kind": "flag", "x": x, "y": y} for x, y in flags]
        rng.shuffle(moves)
        try:
            barrier.wait()
            for start in range(0, len(moves), 7):
                results = client.moves(tokens[i], moves[start : start + 7])["results"]
                with lock:
                    answers.extend(results)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=player, args=(i,)) for i in range(len(tokens))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert errors == []
    store: WorldStore = app.extensions["mine_devil.world.store"]
    log = store.events("main", after=first["seq"], limit=100_000)
    assert [e.seq for e in log] == list(range(first["seq"] + 1, first["seq"] + 1 + len(answers)))
    assert sorted(a["seq"] for a in answers) == [e.seq for e in log]
    opened = Counter((x, y) for e in log for x, y, _ in e.cells)
    assert opened and max(opened.values()) == 1  # no cell opened twice
    assert set(cells) | set(flags) <= set(opened)
    after = api.client.get("/api/worlds/main/scoreboard").get_json()["teams"][0]
    revealed = sum(1 for e in log for *_, s in e.cells if s != "F")
    assert after["revealed"] - before["revealed"] == revealed
    assert after["flags"] - before["flags"] == len(flags)
    assert after["moves"] - before["moves"] == len(answers)
    assert after["errors"] == before["errors"] == 0
    # the feed replays exactly the log: nothing lost, nothing twice
    x0, y0 = first["at"]
    box = (x0 - 128, y0 - 128, 256, 256)
    feed = World(app.test_client()).events("red", 3, box, first["seq"])
    assert [e["seq"] for e in feed] == [e.seq for e in log if e.cells]
    assert [c for e in feed for c in e["cells"]] == [
        [x, y, s]
        for e in log
        for x, y, s in e.cells
        if 0 <= x - box[0] < 256 and 0 <= y - box[1] < 256
    ]


def test_the_streams_of_a_team_share_one_read_per_change(make_app: Callable[..., Flask]) -> None:
    app = make_app(LIVE_MAX_SECONDS=20)
    api = World(app.test_client())
    token, _ = api.join(colour=0)
    first, _, found = opening(api, token, 0)
    x0, y0 = first["at"]
    url = URL_VIEW.format(team="red", colour=0, x0=x0 - 40, y0=y0 - 40, w=81, h=81)
    cache = app.extensions["mine_devil.world.feeds"]
    with ExitStack() as stack:
        streams = [stack.enter_context(stream_lines(app, url)) for _ in range(20)]
        time.sleep(0.5)
        before = cache.reads
        for x, y in sorted(found.safe)[:3]:
            (result,) = api.moves(token, [{"kind": "reveal", "x": x, "y": y}])["results"]
            if not result["cells"]:
                continue
            for chunks in streams:
                assert next_cells(chunks, timeout=5.0)["seq"] == result["seq"]
        assert cache.reads - before <= 3  # one per change, not one per stream


def test_the_feed_cache_keeps_a_complete_window() -> None:
    from app.world.feedcache import FeedCache
    from app.world.records import WorldEvent
    from app.world.store import WorldStore

    log = [
        WorldEvent("w", seq, "t", "p", 0, "reveal", 0, 0, "revealed", 1, ((0, seq, "1"),), None)  # type: ignore[arg-type]
        for seq in range(1, 30)
    ]
    calls: list[int] = []

    class FakeStore:
        def team_events(self, world: str, team: str, after: int, limit: int) -> list[WorldEvent]:
            calls.append(after)
            return [e for e in log if e.seq > after][:limit]

    cache = FeedCache(FakeStore(), events=10)  # type: ignore[arg-type]
    assert [e.seq for e in cache.after("w", "t", 5, 100, first=True)] == list(range(6, 30))
    assert calls == [5]
    # a notification for seq 29 is covered: no read; the window kept the newest 10
    assert [e.seq for e in cache.after("w", "t", 25, 100, known=29)] == [26, 27, 28, 29]
    assert calls == [5]
    # behind the window: straight from the log
    assert [e.seq for e in cache.after("w", "t", 6, 3, known=29)] == [7, 8, 9]
    assert calls == [5, 6]
    # a newer seq than the window: one read brings it up to date
    log.append(WorldEvent("w", 30, "t", "p", 0, "flag", 0, 0, "flagged", 1, ((1, 1, "F"),), None))  # type: ignore[arg-type]
    assert [e.seq for e in cache.after("w", "t", 29, 100, known=30)] == [30]
    assert calls == [5, 6, 29]
    assert isinstance(cache.store, FakeStore) and not isinstance(cache.store, WorldStore)


def test_a_resumed_feed_longer_than_one_batch_arrives_whole(
    make_app: Callable[..., Flask], monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.world import feed

    monkeypatch.setattr(feed, "BATCH", 3)
    app = make_app(LIVE_MAX_SECONDS=0)
    api = World(app.test_client())
    token, _ = api.join(colour=0)
    first, _, found = opening(api, token, 0)
    x0, y0 = first["at"]
    raft = [{"kind": "reveal", "x": x, "y": y} for x, y in sorted(found.safe)]
    raft += [{"kind": "flag", "x": x, "y": y} for x, y in sorted(found.mines)]
    results = api.moves(token, raft)["results"]
    box = (x0 - 40, y0 - 40, 81, 81)
    events = api.events("red", 0, box, first["seq"] - 1)
    assert [e["seq"] for e in events] == [first["seq"]] + [r["seq"] for r in results if r["cells"]]


def test_an_idle_stream_reads_nothing_between_heartbeats(make_app: Callable[..., Flask]) -> None:
    from app.world.feed import event_stream
    from app.world.service import Viewport

    app = make_app()
    World(app.test_client()).join(colour=0)
    cache = app.extensions["mine_devil.world.feeds"]
    stream = event_stream(
        cache,
        app.extensions["mine_devil.world.store"],
        app.extensions["mine_devil.notifier"],
        "main",
        "red",
        Viewport(0, 0, 0, 16, 16),
        0,
        max_seconds=30,  # a loaded machine sleeps late: the test stops at 5 heartbeats
        heartbeat=0.05,
    )
    chunks = [next(stream)]
    while chunks.count(": keep-alive\n\n") < 5:
        chunks.append(next(stream))
    stream.close()
    assert chunks[0] == ": stream open\n\n"
    assert set(chunks[1:]) == {": keep-alive\n\n"}
    assert cache.reads == 1  # the first read only
