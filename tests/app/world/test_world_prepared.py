"""The flights' statements are prepared once per PostgreSQL session (``app.world.prepared``)
and stay prepared through rollbacks and the pool's reset."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from app.world import flight
from app.world.prepared import prepared
from app.world.store import WorldStore

ON_POSTGRES = pytest.mark.parametrize(
    "db_url", [pytest.param("postgresql", marks=pytest.mark.postgres)], indirect=True
)


def test_a_statement_is_numbered_by_first_use_and_executed_by_name() -> None:
    statement = prepared("SELECT %(b)s::int + %(a)s::int, %(b)s::int WHERE %(c)s::text <> ''")
    assert statement.name.startswith("md_")
    assert statement.prepare == (
        f"PREPARE {statement.name} AS SELECT $1::int + $2::int, $1::int WHERE $3::text <> ''"
    )
    assert statement.execute == f"EXECUTE {statement.name}(%(b)s, %(a)s, %(c)s)"
    assert prepared("SELECT %(a)s::int").name != prepared("SELECT %(a)s::bigint").name


@pytest.fixture
def engine(store: WorldStore) -> Iterator[sa.engine.Engine]:
    yield store.engine


def _prepared_here(conn: sa.Connection) -> list[str]:
    return list(conn.execute(sa.text("SELECT name FROM pg_prepared_statements")).scalars())


@ON_POSTGRES
def test_a_session_prepares_once_and_keeps_its_statements(engine: sa.engine.Engine) -> None:
    """The team's opening flight prepares its statements on the connection's first use;
    a rolled back transaction (the pool's reset, an error) keeps them, and the next flight
    on the same connection runs without preparing again. (psycopg's automatic prepare,
    off in ``app.store.database``, would have dropped them at the first rollback.)"""
    with engine.connect() as conn:
        assert flight.open_team(conn, "main", "t0", "p", [(0, 0, 0)]) == (False, None, {})
        names = _prepared_here(conn)
        assert sorted(names) == sorted([flight._LOCK.name, flight._CHUNKS.name])
        for _ in range(6):  # psycopg would prepare it, then DEALLOCATE ALL on the rollback
            conn.execute(sa.text("SELECT 1 WHERE :a = 1"), {"a": 1})
        conn.rollback()
        with pytest.raises(sa.exc.ProgrammingError):
            conn.execute(sa.text("SELECT * FROM no_such_table"))
        conn.rollback()
    with engine.connect() as conn:  # the pool's one connection again, reset by a rollback
        assert sorted(_prepared_here(conn)) == sorted(names)
        assert flight.open_team(conn, "main", "t0", "p", []) == (False, None, {})
        assert flight.read_ahead(conn, "main", "t0", "p", [(0, 1, 2)]) == (None, {})
        assert sorted(_prepared_here(conn)) == sorted(names)
        conn.rollback()
