"""The fast click path: a move on a game this process knows is one write transaction,
and a cached state that another process has overtaken is never trusted over the log."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from flask import Flask

from app.play.moves import Action, Click
from app.play.service import GameService
from app.store.log import Store
from app.store.records import SequenceConflict
from devil.game import Game, GameParams, Move
from tests.helpers.web import Api, covered_cells, replayed

PARAMS = {"width": 9, "height": 9, "mines": 10, "seed": 5}


@contextmanager
def statements(app: Flask) -> Iterator[list[str]]:
    """Every SQL statement the app's engine sends while the block runs."""
    engine = app.extensions["mine_devil.store"].engine
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(" ".join(statement.split()))

    sa.event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        sa.event.remove(engine, "before_cursor_execute", record)


def verbs(seen: list[str]) -> list[str]:
    return [s.split()[0].upper() + (" FOR UPDATE" if "FOR UPDATE" in s else "") for s in seen]


def two_workers(make_app: Any, db_url: str) -> tuple[Api, Api, Store]:
    first, second = make_app(DATABASE_URL=db_url), make_app(DATABASE_URL=db_url)
    return Api(first.test_client()), Api(second.test_client()), Store(db_url)


def test_a_click_on_a_known_game_is_one_write_transaction(make_app: Any, db_url: str) -> None:
    app = make_app(DATABASE_URL=db_url)
    api = Api(app.test_client())
    game = api.create(**PARAMS)
    start = api.move(game, "reveal", 4, 4)
    row, col = covered_cells(start)[0]
    with statements(app) as seen:
        state = api.move(game, "flag", row, col)
    assert state["board"][row][col] == "F"
    if app.extensions["mine_devil.store"].dialect == "sqlite":
        # BEGIN IMMEDIATE, log end (one statement: the write lock is held), insert, summary.
        assert verbs(seen) == ["BEGIN", "SELECT", "INSERT", "UPDATE"], seen
        assert seen[0] == "BEGIN IMMEDIATE"
        assert "max(events.seq)" in seen[1]
    else:
        # The write transaction, then (issue 8) the live streams' NOTIFY once it committed.
        assert verbs(seen) == ["SELECT FOR UPDATE", "SELECT", "INSERT", "UPDATE", "SELECT"], seen
        assert "pg_notify" in seen[-1]
    assert [(m["seq"], m["kind"]) for m in api.log(game["id"])] == [(1, "reveal"), (2, "flag")]


def test_a_stale_cache_is_brought_forward_by_the_log(make_app: Any, db_url: str) -> None:
    """Worker B flags a cell; worker A, whose cache predates that, unflags it: on A's copy
    the unflag is illegal, but the log says it is not, so it is played on the log."""
    a, b, store = two_workers(make_app, db_url)
    game = a.create(**PARAMS)
    start = a.move(game, "reveal", 4, 4)
    row, col = covered_cells(start)[0]
    assert b.move(game, "flag", row, col)["board"][row][col] == "F"
    state = a.move(game, "unflag", row, col)
    assert state["board"][row][col] == "." and state["moves"] == 3
    assert [(m["seq"], m["kind"]) for m in a.log(game["id"])] == [
        (1, "reveal"),
        (2, "flag"),
        (3, "unflag"),
    ]
    assert replayed(store, game["id"]).position.rows() == state["board"]
    store.dispose()


def test_a_move_made_illegal_by_another_worker_is_refused_and_not_written(
    make_app: Any, db_url: str
) -> None:
    a, b, store = two_workers(make_app, db_url)
    game = a.create(**PARAMS)
    start = a.move(game, "reveal", 4, 4)
    row, col = covered_cells(start)[0]
    b.move(game, "flag", row, col)
    # Legal on A's stale copy (the cell is covered there), illegal on the log (flagged).
    a.move(game, "reveal", row, col, expect=409)
    assert [m["seq"] for m in a.log(game["id"])] == [1, 2]
    assert a.state(game["id"])["board"][row][col] == "F"
    store.dispose()


def test_workers_taking_turns_keep_one_gapless_log(make_app: Any, db_url: str) -> None:
    a, b, store = two_workers(make_app, db_url)
    game = a.create(**PARAMS)
    start = a.move(game, "reveal", 4, 4)
    cells = covered_cells(start)[:6]
    expected = {cell: False for cell in cells}
    for turn in range(24):
        worker = (a, b)[turn % 3 % 2]  # A, B, A, A, B, A, ...: both caches go stale
        cell = cells[turn % len(cells)]
        state = worker.move(game, "flag", *cell)
        expected[cell] = not expected[cell]
        flagged = {c for c in cells if state["board"][c[0]][c[1]] == "F"}
        assert flagged == {c for c, on in expected.items() if on}
    log = a.log(game["id"])
    assert [m["seq"] for m in log] == list(range(1, 26))
    truth = replayed(store, game["id"]).position.rows()
    assert a.state(game["id"])["board"] == b.state(game["id"])["board"] == truth
    row = store.get_game(game["id"])
    assert row is not None and (row.moves, row.last_seq) == (25, 25)
    store.dispose()


def test_an_unknown_game_is_still_a_404_after_known_ones_are_cached(api: Api) -> None:
    game = api.create(**PARAMS)
    api.move(game, "reveal", 4, 4)
    missing = {**game, "id": game["id"][:-1] + ("A" if game["id"][-1] != "A" else "B")}
    response = api.client.post(
        f"/api/games/{missing['id']}/flag",
        json={"row": 0, "col": 0},
        headers={"Authorization": f"Bearer {game['token']}"},
    )
    assert response.status_code == 404


def test_a_worker_freezes_its_startup_objects_out_of_full_collections(
    tmp_path: Any, monkeypatch: Any
) -> None:
    import gc
    import sys

    from app import serve

    monkeypatch.setenv("MINE_DEVIL_DATA", str(tmp_path))
    interval = sys.getswitchinterval()
    try:
        app = serve.app_factory()
    finally:
        frozen = gc.get_freeze_count()
        gc.unfreeze()
        sys.setswitchinterval(interval)
    app.extensions["mine_devil.store"].dispose()
    assert frozen > 10_000  # modules and the app: never walked by a collection again
    assert "mine_devil.games" in app.extensions


def test_a_worker_compiles_every_template_before_its_first_request(
    tmp_path: Any, monkeypatch: Any
) -> None:
    """The first render of a template compiled it (107 ms for the analysis page), paid by
    whichever request came first after a deploy while the worker's others waited."""
    from jinja2 import Environment

    from app import create_app, serve

    monkeypatch.setenv("MINE_DEVIL_DATA", str(tmp_path))
    app = create_app()
    compiled: list[str] = []
    original = Environment.compile

    def counting(self: Environment, source: Any, name: Any = None, *args: Any, **kw: Any) -> Any:
        compiled.append(name)
        return original(self, source, name, *args, **kw)

    monkeypatch.setattr(Environment, "compile", counting)
    count = serve.warm(app)
    assert count == len(compiled) >= 40 and "analyse.html" in compiled
    compiled.clear()
    client = app.test_client()
    assert client.get("/analyse").status_code == 200
    assert client.get("/").status_code == 200
    assert compiled == []  # rendered from what warm compiled
    app.extensions["mine_devil.store"].dispose()


# -- regressions: a commit that fails ------------------------------------------------


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    store = Store(f"sqlite:///{tmp_path / 'click.db'}")
    store.migrate()
    yield store
    store.dispose()


def test_a_move_whose_commit_fails_is_not_kept_in_the_cache(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pessimistic path cached its move before the transaction committed: if the
    commit failed, the cache held an event the log never got, and once another process
    wrote that sequence number, the next click was computed on the phantom state."""
    worker = GameService(store)
    params = GameParams(height=9, width=9, mines=10, no_guess=False, seed=11)
    created = worker.create(params)
    game_id = created.id
    opened = Game.new(params).play(Move.parse("reveal 8 8"))
    cell = next(c for c in opened.position.board.cells() if opened.position.is_covered(c))
    row, col = opened.position.board.coord(cell)

    def always_overtaken(game_id: str, expected_seq: int, *args: Any, **kwargs: Any) -> Any:
        raise SequenceConflict(game_id, expected_seq, expected_seq)

    real_locked = store.locked

    @contextmanager
    def commit_fails(game_id: str) -> Iterator[Any]:
        with real_locked(game_id) as log:
            yield log
            raise OSError("disk I/O error at commit")  # rolls the transaction back

    monkeypatch.setattr(store, "append_event", always_overtaken)
    monkeypatch.setattr(store, "locked", commit_fails)
    with pytest.raises(OSError):
        worker.play(game_id, Click(Action.FLAG, row, col))
    monkeypatch.undo()
    assert store.last_seq(game_id) == 0  # the log never got the flag

    # Another worker plays event 1 for real: a reveal that leaves (row, col) covered.
    other = GameService(store)
    other.play(game_id, Click(Action.REVEAL, 8, 8))

    # This worker's next click toggles the flag there: on the log's state it flags (on
    # the phantom state it unflagged, and the log got a move it cannot replay).
    _, after = worker.play(game_id, Click(Action.FLAG, row, col))
    truth = GameService(store).load(game_id)  # a fresh process: the log only
    assert truth.seq == after.seq
    assert truth.game == after.game
    assert after.game.position.is_flagged(cell)
