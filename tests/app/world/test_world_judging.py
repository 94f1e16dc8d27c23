"""Judging on the server (issue 17, finding 1): every judgement within a budget per move
and per raft; a move the window or the budget cannot decide is ``undecided`` (not logged,
not a devil error), the raft's other moves stand, and the work is charged to the limits."""

from __future__ import annotations

import functools
import gc
import random
import sqlite3
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask

from app.world.records import Cell, MoveRecord
from app.world.store import WorldStore
from devil.world import MemoryKnowledge, judge_reveal
from tests.helpers.world import CpuGaps, World

Json = dict[str, Any]
SIDE = 100
AT = 5_000
"""The never-flagged region's corner (far from the drops)."""


@functools.cache
def region() -> tuple[tuple[Cell, ...], tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """A ``SIDE`` square on board 0 with every safe cell revealed and no mine flagged (mines
    1 in 6, also on the ring around it): one big component. Its cells, the frontier cells
    around it whose reveal the window cannot decide (undecided), and its unflagged mines
    inside (a reveal there is a devil error: the numbers in reach make it a mine)."""
    rng = random.Random(3)
    span = range(-1, SIDE + 1)
    mines = {(AT + x, AT + y) for y in span for x in span if rng.random() < 1 / 6}
    cells = tuple(
        (x, y, str(sum((x + dx, y + dy) in mines for dx in (-1, 0, 1) for dy in (-1, 0, 1))))
        for y in range(AT, AT + SIDE)
        for x in range(AT, AT + SIDE)
        if (x, y) not in mines
    )
    k = MemoryKnowledge()
    k.apply(0, cells)
    ring = [(AT + x, AT - 1) for x in range(SIDE)] + [(AT - 1, AT + y) for y in range(SIDE)]
    ring += [(AT + x, AT + SIDE) for x in range(SIDE)] + [(AT + SIDE, AT + y) for y in range(SIDE)]
    undecided = tuple(c for c in ring if judge_reveal(k, 0, *c).undecided)
    inside = tuple(sorted(c for c in mines if min(c) >= AT and max(c) < AT + SIDE))
    return cells, undecided, inside


def never_flagged(app: Flask, player: str, team: str = "red") -> list[tuple[int, int]]:
    """Give ``team`` the ``region`` (the store's knowledge only: no truth is asked, nothing
    is proved) and return its undecided frontier cells."""
    cells, undecided, _ = region()
    assert len(undecided) >= 3
    store: WorldStore = app.extensions["mine_devil.world.store"]
    with store.team("main", team) as tx:
        tx.knowledge.apply(0, cells)
        tx.record(player, MoveRecord("reveal", AT, AT, "revealed", 0, cells))
        tx.finish()
    return list(undecided)


def counts(api: World, team: str = "red") -> Json:
    r = api.client.get(f"/api/worlds/{api.world}/scoreboard")
    (row,) = [t for t in r.get_json()["teams"] if t["team"] == team]
    return row


def test_a_click_beyond_the_window_is_undecided_and_the_raft_still_commits(
    make_app: Callable[..., Flask],
) -> None:
    app = make_app()
    api = World(app.test_client())
    token, me = api.join("Ada", "red", colour=0)
    mines = never_flagged(app, me["player"])
    before = counts(api)
    x, y = mines[0]
    mine = region()[2][0]
    raft = [
        {"kind": "drop", "x": 10**6, "y": 0},
        {"kind": "reveal", "x": x, "y": y},
        {"kind": "reveal", "x": mine[0], "y": mine[1]},  # forced a mine: a devil error
    ]
    dropped, undecided, devil = api.moves(token, raft)["results"]
    assert dropped["outcome"] == "dropped" and dropped["seq"] is not None
    assert undecided["outcome"] == "undecided" and undecided["seq"] is None
    assert undecided["cells"] == [] and "witness" not in undecided
    assert "beyond 32 cells" in undecided["reason"]
    assert devil["outcome"] == "devil" and devil["seq"] == dropped["seq"] + 1
    assert devil["witness"] == {"x0": mine[0], "y0": mine[1], "rows": ["*"]}
    after = counts(api)
    assert after["errors"] == before["errors"] + 1  # the devil error only
    assert after["moves"] == before["moves"] + 2  # the undecided move was not logged
    view = api.view("red", 0, x, y, 1, 1)
    assert view["rows"] == ["."] and view["seq"] == devil["seq"]


def test_a_raft_of_undecided_moves_logs_nothing(make_app: Callable[..., Flask]) -> None:
    app = make_app()
    api = World(app.test_client())
    token, me = api.join("Ada", "red", colour=0)
    mines = never_flagged(app, me["player"])
    head = api.view("red", 0, 0, 0, 1, 1)["seq"]
    results = api.moves(token, [{"kind": "reveal", "x": x, "y": y} for x, y in mines[:3]])
    assert {r["outcome"] for r in results["results"]} == {"undecided"}
    assert api.view("red", 0, 0, 0, 1, 1)["seq"] == head


def test_a_spent_move_budget_is_undecided_naming_the_budget(
    make_app: Callable[..., Flask],
) -> None:
    app = make_app(WORLD_JUDGE_MOVE_NODES=30)
    api = World(app.test_client())
    token, me = api.join("Ada", "red", colour=0)
    x, y = never_flagged(app, me["player"])[0]
    (got,) = api.moves(token, [{"kind": "reveal", "x": x, "y": y}])["results"]
    assert got["outcome"] == "undecided" and got["seq"] is None
    assert "judging budget" in got["reason"] and "30 nodes" in got["reason"]
    (far,) = api.moves(token, [{"kind": "reveal", "x": 10**9, "y": 0}])["results"]
    assert far["outcome"] == "devil"  # a cheap judgement still fits


def test_once_the_raft_budget_is_spent_the_rest_is_undecided(
    make_app: Callable[..., Flask],
) -> None:
    app = make_app(WORLD_JUDGE_RAFT_NODES=8_000)
    api = World(app.test_client())
    token, me = api.join("Ada", "red", colour=0)
    mines = never_flagged(app, me["player"])
    raft = [{"kind": "reveal", "x": x, "y": y} for x, y in (mines * 8)[:8]]
    raft.append({"kind": "flag", "x": -(10**6), "y": 7})
    results = api.moves(token, raft)["results"]
    reasons = [r.get("reason", "") for r in results]
    assert any("beyond 32 cells" in why for why in reasons)  # judged in full first
    assert "raft's judging budget" in reasons[-1]  # then refused unjudged
    assert all(r["outcome"] == "undecided" for r in results)


def test_judging_work_is_charged_to_the_move_limits(make_app: Callable[..., Flask]) -> None:
    """Undecided moves are not free to repeat: their judging counts against the limits."""
    app = make_app(
        RATELIMIT_ENABLED=True,
        WORLD_PLAYER_RATE_LIMIT="10 per minute",
        WORLD_JUDGE_NODES_PER_MOVE=50,
    )
    api = World(app.test_client())
    token, me = api.join("Ada", "red", colour=0)
    mines = never_flagged(app, me["player"])
    x, y = mines[0]
    (got,) = api.moves(token, [{"kind": "reveal", "x": x, "y": y}])["results"]
    assert got["outcome"] == "undecided"  # over 600 cells read: over 12 more moves charged
    body = api.moves(token, [{"kind": "reveal", "x": x, "y": y}], status=429)
    assert "player" in body["error"]
    bob, _ = api.join("Bob", "blue", colour=0)  # another team is not slowed down
    (far,) = api.moves(bob, [{"kind": "reveal", "x": 10**9, "y": 0}])["results"]
    assert far["outcome"] == "devil"


def test_undecided_moves_on_either_database(store: WorldStore) -> None:
    """``play_raft`` on SQLite and PostgreSQL (its commit in one flight): an all-undecided
    raft logs nothing; a mixed one logs only the decided moves, with consecutive seqs."""
    from app.notify.base import LocalNotifier
    from app.world.judging import Judging, MoveRequest
    from app.world.service import Colourings, play_raft

    me = store.add_player("main", "Ada", "red", 0).player
    tiny = Judging(raft_nodes=1)  # spent by the first cell read
    notifier = LocalNotifier()
    head = store.region("main", "red", (0,), 0, 0, 1, 1)[0]
    raft = [MoveRequest("reveal", 10**9, 0), MoveRequest("flag", 10**9, 1)]
    answers = play_raft(store, notifier, Colourings(), me, raft, drop_seconds=0, judging=tiny)
    assert [a.outcome for a in answers] == ["undecided", "undecided"]
    assert [a.seq for a in answers] == [None, None]
    assert store.region("main", "red", (0,), 0, 0, 1, 1)[0] == head
    mixed = [MoveRequest("drop", 10**6, 0), *raft, MoveRequest("reveal", -(10**9), 0)]
    answers = play_raft(store, notifier, Colourings(), me, mixed, drop_seconds=0)
    assert [a.outcome for a in answers] == ["dropped", "devil", "devil", "devil"]
    seqs = [a.seq for a in answers]
    assert seqs == list(range(head + 1, head + 5))


# -- judging never stalls the worker ----------------------------------------------------------


def test_a_raft_is_judged_outside_the_sqlite_write_lock(
    make_app: Callable[..., Flask], monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite has one write lock for every team's moves: a raft is judged before its write
    transaction (``app.world.judging``), so the lock is free while the judgement runs."""
    from app.world import judging

    app = make_app()
    api = World(app.test_client())
    token, me = api.join("Ada", "red", colour=0)
    mines = never_flagged(app, me["player"])
    store: WorldStore = app.extensions["mine_devil.world.store"]
    path = store.engine.url.database
    assert path
    free: list[bool] = []
    judge_one = judging.judge_one

    def probing(*args: Any) -> Any:
        other = sqlite3.connect(path, timeout=0)  # a held write lock fails at once
        try:
            other.execute("BEGIN IMMEDIATE")
            other.rollback()
            free.append(True)
        except sqlite3.OperationalError:
            free.append(False)
        finally:
            other.close()
        return judge_one(*args)

    monkeypatch.setattr(judging, "judge_one", probing)
    raft = [{"kind": "reveal", "x": x, "y": y} for x, y in mines[:3]]
    raft.append({"kind": "drop", "x": 10**6, "y": 0})
    results = api.moves(token, raft)["results"]
    assert [r["outcome"] for r in results] == ["undecided"] * 3 + ["dropped"]
    assert free == [True] * 4


def test_a_team_changed_meanwhile_is_judged_again_in_the_transaction(
    make_app: Callable[..., Flask], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process may change the team between the judgement ahead and the write: the
    write sees the chunk versions moved and judges again, so nothing is counted twice."""
    from app.world import service

    app = make_app()
    api = World(app.test_client())
    token, _ = api.join("Ada", "red", colour=0)
    _, bob = api.join("Bob", "red", colour=0)
    store: WorldStore = app.extensions["mine_devil.world.store"]
    judge_ahead = service._Raft.judged_ahead_on_sqlite
    taken: list[Cell] = []

    def meddling(raft: Any) -> Any:
        ahead = judge_ahead(raft)
        cell = ahead.judged[0][1].cells[0]
        taken.append(cell)
        with store.team("main", "red") as tx:  # as another process would, meanwhile
            tx.knowledge.apply(0, [cell])
            tx.record(bob["player"], MoveRecord("reveal", cell[0], cell[1], "revealed", 0, (cell,)))
            tx.finish()
        return ahead

    monkeypatch.setattr(service._Raft, "judged_ahead_on_sqlite", meddling)
    (got,) = api.moves(token, [{"kind": "drop", "x": 0, "y": 0}])["results"]
    (cell,) = taken
    assert got["outcome"] == "dropped" and list(cell) not in got["cells"]
    x0, y0 = got["at"][0] - 40, got["at"][1] - 40
    rows = api.view("red", 0, x0, y0, 81, 81)["rows"]
    known = sum(ch in "012345678" for row in rows for ch in row)
    assert counts(api)["revealed"] == known == len(got["cells"]) + 1


def test_a_long_judgement_pauses_every_few_ms_of_its_cpu() -> None:
    """``PausingClock``: a judgement lets the worker's other requests run every few ms of its
    CPU (measured in CPU time, with the collector off: the test holds under any load)."""
    from app.world.chunks import ChunkKnowledge
    from app.world.judging import Judging, MoveRequest, PausingClock, judge_moves
    from devil.world import Colouring

    cells, undecided, _ = region()
    k = ChunkKnowledge(lambda keys: {})
    k.apply(0, cells)
    pause = CpuGaps()
    clock = PausingClock(every=0.004, pause=pause)
    moves = [MoveRequest("reveal", x, y) for x, y in undecided[:20]]
    colouring = Colouring(b"k" * 32, "main", 2)
    gc.disable()  # the collector's pauses are not the judgement's (see the scoreboard's test)
    try:
        judged = judge_moves(k, colouring, 0, moves, Judging(raft_seconds=0.3), clock)
    finally:
        gc.enable()
    assert {r.outcome for _, r, _ in judged} == {"undecided"}
    gaps = pause.gaps
    assert len(gaps) >= 5 and max(gaps) < 0.05, (len(gaps), max(gaps))


@pytest.mark.parametrize("seed", [1, 2])
def test_rafts_proved_together_answer_as_moves_judged_alone(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bots' rafts (every provable move of a 32x32 view, shuffled, at most 64, a drop
    when there is none) played on two copies of a team's knowledge, one proving each
    raft's clicks together first and one judging every move alone: the same results,
    move by move, and the same knowledge after."""
    from app.world import judging
    from app.world.chunks import ChunkKnowledge
    from app.world.judging import Judging, MoveRequest, judge_moves
    from app.world.service import render_rows
    from devil.world import Colouring, deduce

    colouring = Colouring(bytes(range(32)), "main", 3)
    rng = random.Random(seed)
    together, alone = ChunkKnowledge(lambda keys: {}), ChunkKnowledge(lambda keys: {})
    focus = (rng.randint(-500, 500), rng.randint(-500, 500))
    moves = [MoveRequest("drop", *focus)]
    for _ in range(12):
        results = []
        for k, least in ((together, judging.TOGETHER), (alone, 10**9)):
            monkeypatch.setattr(judging, "TOGETHER", least)
            results.append([r for _, r, _ in judge_moves(k, colouring, 0, moves, Judging())])
        assert results[0] == results[1]
        opened = [r.at for r in results[0] if r.at is not None]
        focus = opened[0] if opened else focus
        rows = render_rows(together, 0, focus[0] - 16, focus[1] - 16, 32, 32)
        assert rows == render_rows(alone, 0, focus[0] - 16, focus[1] - 16, 32, 32)
        found = deduce(rows, focus[0] - 16, focus[1] - 16)
        moves = [MoveRequest("reveal", x, y) for x, y in sorted(found.safe)]
        moves += [MoveRequest("flag", x, y) for x, y in sorted(found.mines)]
        rng.shuffle(moves)
        moves = moves[:64] or [MoveRequest("drop", focus[0] + 40, focus[1])]
    assert together.cached() and together.dirty() == alone.dirty()
