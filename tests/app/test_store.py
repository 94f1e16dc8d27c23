"""The event-log store on SQLite and PostgreSQL: schema, append, sequence, races."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from app.store.log import Store
from app.store.records import NoSuchGame, SequenceConflict, Summary, hash_token
from app.store.schema import events


@pytest.fixture
def store(db_url: str):
    s = Store(db_url)
    s.migrate()
    yield s
    s.dispose()


def new_game(store: Store, game_id: str = "g1", owner: str | None = "owner-1"):
    return store.insert_game(game_id, {"height": 9, "width": 9}, hash_token("tok"), owner)


def test_migrate_creates_schema_at_head_and_is_idempotent(db_url: str) -> None:
    store = Store(db_url)
    assert store.revision() is None
    store.migrate()
    store.migrate()
    assert store.revision() == "0008_ledger_board"  # head: .. 0007 world log per team, 0008 boards
    tables = set(sa.inspect(store.engine).get_table_names())
    assert {"games", "events", "alembic_version"} <= tables
    store.ping()
    store.dispose()


def test_game_round_trips(store: Store) -> None:
    row = new_game(store)
    loaded = store.get_game("g1")
    assert loaded is not None
    assert loaded.params == {"height": 9, "width": 9}
    assert loaded.owner == "owner-1"
    assert loaded.token_hash == hash_token("tok") != "tok"
    assert loaded.status == "playing" and loaded.moves == 0 and loaded.last_seq == 0
    assert loaded.created_at.tzinfo is not None
    assert abs((loaded.created_at - row.created_at).total_seconds()) < 1e-3
    assert store.get_game("nope") is None


def test_duplicate_game_id_is_rejected(store: Store) -> None:
    new_game(store)
    with pytest.raises(sa.exc.IntegrityError):
        new_game(store)


def test_append_numbers_events_from_one_and_updates_summary(store: Store) -> None:
    new_game(store)
    at = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
    store.append_event("g1", 1, "reveal", 3, 4, at=at, summary=Summary("playing", 1))
    store.append_event("g1", 2, "hint", extra=2)
    store.append_event("g1", 3, "flag", 0, 0, summary=Summary("playing", 2))
    log = store.events("g1")
    assert [(e.seq, e.kind, e.row, e.col, e.extra) for e in log] == [
        (1, "reveal", 3, 4, None),
        (2, "hint", None, None, 2),
        (3, "flag", 0, 0, None),
    ]
    assert log[0].at == at
    assert [e.is_move for e in log] == [True, False, True]
    assert [e.seq for e in store.events("g1", after=1)] == [2, 3]
    assert [e.seq for e in store.events("g1", after=0, upto=2)] == [1, 2]
    assert store.last_seq("g1") == 3
    row = store.get_game("g1")
    assert row is not None
    assert (row.status, row.moves, row.last_seq) == ("playing", 2, 3)


def test_append_with_a_stale_sequence_fails_and_changes_nothing(store: Store) -> None:
    new_game(store)
    store.append_event("g1", 1, "reveal", 1, 1)
    for wrong in (1, 3, 0):
        with pytest.raises(SequenceConflict) as info:
            store.append_event("g1", wrong, "reveal", 2, 2)
        assert info.value.last_seq == 1
        assert "g1" in str(info.value)
    assert [e.seq for e in store.events("g1")] == [1]


def test_append_to_unknown_game_fails(store: Store) -> None:
    with pytest.raises(NoSuchGame, match="nope"):
        store.append_event("nope", 1, "reveal", 0, 0)


def test_unknown_kind_is_refused_before_the_database(store: Store) -> None:
    new_game(store)
    with pytest.raises(ValueError, match="'explode'"):
        store.append_event("g1", 1, "explode", 0, 0)
    assert store.events("g1") == []


def test_database_itself_refuses_duplicate_sequence_and_bad_kind(store: Store) -> None:
    """The primary key and checks hold even for a writer that bypasses append_event."""
    new_game(store)
    store.append_event("g1", 1, "reveal", 0, 0)
    now = datetime.now(UTC)
    with pytest.raises(sa.exc.IntegrityError), store.engine.begin() as conn:
        conn.execute(events.insert().values(game_id="g1", seq=1, kind="flag", at=now))
    with pytest.raises(sa.exc.IntegrityError), store.engine.begin() as conn:
        conn.execute(events.insert().values(game_id="g1", seq=2, kind="boom", at=now))
    with pytest.raises(sa.exc.IntegrityError), store.engine.begin() as conn:
        conn.execute(events.insert().values(game_id="g1", seq=0, kind="flag", at=now))
    with pytest.raises(sa.exc.IntegrityError), store.engine.begin() as conn:
        conn.execute(events.insert().values(game_id="ghost", seq=1, kind="flag", at=now))
    assert [e.seq for e in store.events("g1")] == [1]


def test_racing_appenders_never_duplicate_or_skip(store: Store) -> None:
    """Many threads each try to append the next event: every seq is taken exactly once."""
    new_game(store)
    threads_n, per_thread = 8, 6
    won: list[int] = []
    lost = 0
    lock = threading.Lock()
    barrier = threading.Barrier(threads_n)

    def worker() -> None:
        nonlocal lost
        barrier.wait()
        done = 0
        while done < per_thread:
            seq = store.last_seq("g1") + 1
            try:
                store.append_event("g1", seq, "flag", 0, 0)
            except SequenceConflict:
                with lock:
                    lost += 1
                continue
            with lock:
                won.append(seq)
            done += 1

    threads = [threading.Thread(target=worker) for _ in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    total = threads_n * per_thread
    assert sorted(won) == list(range(1, total + 1))
    assert [e.seq for e in store.events("g1")] == list(range(1, total + 1))
    row = store.get_game("g1")
    assert row is not None and row.last_seq == total


def test_games_by_owner_newest_first(store: Store) -> None:
    for i, owner in enumerate(["a", "b", "a", None, "a"]):
        store.insert_game(
            f"g{i}",
            {},
            hash_token("t"),
            owner,
            created_at=datetime(2026, 1, 1, 0, 0, i, tzinfo=UTC),
        )
    assert [g.id for g in store.games_by_owner("a")] == ["g4", "g2", "g0"]
    assert [g.id for g in store.games_by_owner("a", limit=2)] == ["g4", "g2"]
    assert store.games_by_owner("nobody") == []


def test_update_summary_rewrites_derived_columns(store: Store) -> None:
    new_game(store)
    store.append_event("g1", 1, "reveal", 0, 0, summary=Summary("won", 1))
    store.update_summary("g1", Summary("playing", 7), 1)
    row = store.get_game("g1")
    assert row is not None and (row.status, row.moves) == ("playing", 7)


def test_deleting_a_game_deletes_its_log(store: Store) -> None:
    new_game(store)
    store.append_event("g1", 1, "reveal", 0, 0)
    with store.engine.begin() as conn:
        conn.execute(sa.text("DELETE FROM games WHERE id = 'g1'"))
    assert store.events("g1") == []


def test_sqlite_connections_use_wal_busy_timeout_and_foreign_keys(tmp_path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 1000
    store.dispose()


def test_sqlite_data_directory_is_created(tmp_path) -> None:
    target = tmp_path / "deep" / "er" / "db.sqlite3"
    store = Store(f"sqlite:///{target}")
    store.migrate()
    assert target.exists()
    store.dispose()
