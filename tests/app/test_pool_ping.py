"""PostgreSQL's pooled connections: pinged only when the server spoke while they sat idle
(``app.store.database._ping_if_told``), so a server that ended them costs no request."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from app.store.database import make_engine


@pytest.mark.parametrize(
    "db_url", [pytest.param("postgresql", marks=pytest.mark.postgres)], indirect=True
)
def test_connections_the_server_ended_are_replaced_at_checkout(db_url: str) -> None:
    engine = make_engine(db_url)
    try:
        held = [engine.connect() for _ in range(3)]
        pids = [c.execute(sa.text("SELECT pg_backend_pid()")).scalar_one() for c in held]
        for conn in held:
            conn.close()  # back in the pool, idle
        other = sa.create_engine(db_url, poolclass=sa.pool.NullPool)
        with other.connect() as killer:  # as a restart does: each told, then closed
            for pid in pids:
                killer.execute(sa.text("SELECT pg_terminate_backend(:p, 5000)"), {"p": pid})  # gone
        other.dispose()
        for _ in range(4):
            with engine.connect() as conn:
                assert conn.execute(sa.text("SELECT 1")).scalar_one() == 1
    finally:
        engine.dispose()
