"""Shared fixtures for the web app (Flask tutorial shape).

``app``       an app on a fresh SQLite file in ``tmp_path``, rate limits off, CSRF on
``client``    its test client; ``runner`` its CLI runner
``make_app``  build more apps: ``make_app(DATABASE_URL=..., RATELIMIT_ENABLED=True)``
``db_url``    parametrized over SQLite and PostgreSQL. PostgreSQL comes from
              ``MINE_DEVIL_TEST_POSTGRES_URL`` (a fresh schema per test); without it the
              postgres cases skip, except under ``CI`` where they fail.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient, FlaskCliRunner

from app import create_app

POSTGRES_ENV = "MINE_DEVIL_TEST_POSTGRES_URL"


def app_config(data_dir: Path, **overrides: Any) -> dict[str, Any]:
    config: dict[str, Any] = {
        "TESTING": True,
        "SECRET_KEY": "test-secret-key",
        "DATA_DIR": str(data_dir),
        "DATABASE_URL": f"sqlite:///{data_dir / 'test.sqlite3'}",
        "RATELIMIT_ENABLED": False,
    }
    config.update(overrides)
    return config


@pytest.fixture
def make_app(tmp_path: Path) -> Iterator[Callable[..., Flask]]:
    apps: list[Flask] = []

    def make(**overrides: Any) -> Flask:
        app = create_app(app_config(tmp_path, **overrides))
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.extensions["mine_devil.store"].dispose()


@pytest.fixture
def app(make_app: Callable[..., Flask]) -> Flask:
    return make_app()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def runner(app: Flask) -> FlaskCliRunner:
    return app.test_cli_runner()


def postgres_base_url() -> str | None:
    url = os.environ.get(POSTGRES_ENV, "").strip()
    if url:
        return url
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but {POSTGRES_ENV} is not: the PostgreSQL tests cannot run")
    pytest.skip(f"{POSTGRES_ENV} is not set: PostgreSQL tests skipped (they run in CI)")
    return None


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database URL with an empty database: a SQLite file or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.sqlite3'}"
        return
    base = postgres_base_url()
    assert base is not None
    schema = f"test_{uuid.uuid4().hex[:16]}"
    admin = sa.create_engine(base)
    with admin.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    url = sa.make_url(base).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
