"""Migration ``0007_team_seq``: a world logged with one world-wide seq, renumbered per team.

A log written at ``0006`` (teams interleaved in one sequence, a remembered raft) is brought to
the head: each team's events keep their order and are numbered 1, 2, 3..., the raft answers
its new seqs, the summary still counts every move, the feeds read what they read before, and
the next move of a team takes the team's next number. The downgrade gives the world-wide
numbers back.
"""

from __future__ import annotations

import json
import zlib
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from app.store.log import MIGRATIONS, Store
from app.world.idempotency import RaftKey, recall
from app.world.records import MoveRecord, hash_token
from app.world.store import WorldStore

T0 = datetime(2026, 11, 1, tzinfo=UTC)
TEAMS = ("red", "blue", "red", "red", "green", "blue", "red", "green", "blue", "red")
"""The team of each old world-wide seq 1..10."""


def _config(store: Store) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def _to(store: Store, revision: str, down: bool = False) -> None:
    config = _config(store)
    with store.engine.begin() as conn:
        config.attributes["connection"] = conn
        (command.downgrade if down else command.upgrade)(config, revision)


def _old_world(store: Store) -> None:
    """World ``main`` at 0006: three teams' events numbered world-wide, a keyed raft of
    red's old seqs 3 and 4 (red's 2nd and 3rd events)."""
    with store.engine.begin() as conn:
        for team in ("red", "blue", "green"):
            conn.execute(
                sa.text(
                    "INSERT INTO world_teams (world, name, created_at) VALUES ('main', :t, :at)"
                ),
                {"t": team, "at": T0},
            )
            conn.execute(
                sa.text(
                    "INSERT INTO world_players (id, world, team, name, colour, token_hash, "
                    "created_at) VALUES (:p, 'main', :t, :t, 0, :h, :at)"
                ),
                {"p": f"p-{team}", "t": team, "h": hash_token(team), "at": T0},
            )
        for seq, team in enumerate(TEAMS, 1):
            conn.execute(
                sa.text(
                    "INSERT INTO world_events (world, seq, team, player, colour, kind, x, y, "
                    "outcome, opened, changes, at) VALUES ('main', :s, :t, :p, 0, 'flag', :s, "
                    ":y, 'flagged', 1, '[[0,0,\"F\"]]', :at)"
                ),
                {"s": seq, "t": team, "p": f"p-{team}", "y": 100 + seq,
                 "at": T0 + timedelta(seconds=seq)},
            )  # fmt: skip
        conn.execute(sa.text("UPDATE world_worlds SET last_seq = 10, moves = 10 WHERE id = 'main'"))
        for team in ("red", "blue", "green"):  # the counters kept beside the log
            conn.execute(
                sa.text("UPDATE world_teams SET moves = :n, flags = :n WHERE name = :t"),
                {"n": TEAMS.count(team), "t": team},
            )
        answer = zlib.compress(json.dumps([{"outcome": "flagged"}] * 2).encode())
        conn.execute(
            sa.text(
                "INSERT INTO world_rafts (world, player, key, digest, answer, last_seq, moves, "
                "created_at) VALUES ('main', 'p-red', 'k1', 'd1', :a, 4, 2, :at)"
            ),
            {"a": answer, "at": datetime.now(UTC)},
        )


def _log(store: Store) -> list[tuple[int, str, int]]:
    with store.engine.connect() as conn:
        rows = conn.execute(
            sa.text("SELECT seq, team, x FROM world_events WHERE world = 'main' ORDER BY x")
        )
        return [(int(s), str(t), int(x)) for s, t, x in rows]


def test_a_world_wide_log_is_renumbered_per_team_and_keeps_its_feeds(db_url: str) -> None:
    store = Store(db_url)
    _to(store, "0006_raft_keys")
    _old_world(store)
    store.migrate()
    world = WorldStore(store.engine)

    # each team: 1, 2, 3... in the old order (x is the old seq)
    for team in ("red", "blue", "green"):
        feed = world.team_events("main", team, 0, 100)
        old = [seq for seq, t in enumerate(TEAMS, 1) if t == team]
        assert [(e.seq, e.x) for e in feed] == [(i + 1, x) for i, x in enumerate(old)]
        assert world.team_head("main", team) == len(old)
        # resuming a feed mid-way reads the rest, in order
        assert [e.x for e in world.team_events("main", team, 2, 100)] == old[2:]
    assert world.summary("main") == {"players": 3, "teams": 3, "moves": 10, "seq": 10}
    assert world.head("main") == 10

    # the raft's old seqs 3, 4 are red's 2nd and 3rd events
    key = RaftKey("k1", "d1", datetime.now(UTC) - timedelta(days=1))
    with store.engine.connect() as conn:
        remembered = recall(conn, "main", "p-red", key)
    assert remembered is not None and remembered.last_seq == 3
    assert [r["seq"] for r in remembered.answer()] == [2, 3]

    # the next move of a team takes the team's next number; other teams' heads stay
    with world.team("main", "blue") as tx:
        tx.record("p-blue", MoveRecord("flag", 500, 500, "flagged", 0, ((500, 500, "F"),)))
        assert tx.finish_and_commit() == [4]
    assert world.team_head("main", "red") == 5 and world.team_head("main", "blue") == 4
    assert world.summary("main")["moves"] == 11

    # the world's newest events come by time: the activity feed's order
    newest = world.newest_events_without_cells("main", 3)
    assert [(e.team, e.seq) for e in newest] == [("blue", 3), ("red", 5), ("blue", 4)]
    store.dispose()


def test_the_downgrade_numbers_the_world_again(db_url: str) -> None:
    store = Store(db_url)
    _to(store, "0006_raft_keys")
    _old_world(store)
    before = _log(store)
    store.migrate()
    assert _log(store) != before
    _to(store, "0006_raft_keys", down=True)
    assert _log(store) == before  # times follow the old seqs: the same numbers come back
    with store.engine.connect() as conn:
        assert conn.execute(sa.text("SELECT last_seq, moves FROM world_worlds")).one() == (10, 10)
        assert conn.execute(sa.text("SELECT last_seq FROM world_rafts")).scalar_one() == 4
    store.migrate()  # and up again
    assert [seq for seq, team, _ in _log(store) if team == "red"] == [1, 2, 3, 4, 5]
    store.dispose()
