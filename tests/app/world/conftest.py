"""Fixtures shared by the world server's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.store.log import Store
from app.world.store import WorldStore


@pytest.fixture
def store(db_url: str) -> Iterator[WorldStore]:
    """A migrated world store on ``db_url`` (SQLite or PostgreSQL), disposed after the test."""
    base = Store(db_url)
    base.migrate()
    yield WorldStore(base.engine)
    base.dispose()
