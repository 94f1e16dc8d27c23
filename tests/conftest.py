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
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient, FlaskCliRunner

from app import create_app
from tests.helpers import alone
from tests.helpers.strategies import load_profile
from tests.helpers.web import Api, app_config, postgres_base_url

load_profile()  # hypothesis: no deadline anywhere; ``ci`` derandomized (tests.helpers.strategies)

SAMPLE_POSITIONS = Path(__file__).resolve().parent / "data" / "positions"


def pytest_sessionstart(session: pytest.Session) -> None:
    """Under CI the golden corpus must be there: its tests skip locally, never silently in CI."""
    if os.environ.get("CI") and not SAMPLE_POSITIONS.is_dir():
        raise pytest.UsageError(
            f"CI is set but the sample positions are missing at {SAMPLE_POSITIONS}: "
            "the truth-file tests would be skipped"
        )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    """Under pytest-xdist, a test marked ``alone`` runs with no other test beside it
    (``tests.helpers.alone``); without xdist every test runs alone already."""
    if not hasattr(item.config, "workerinput"):
        return (yield)
    # xdist gives each worker ``--basetemp <the session's basetemp>/<worker>``: its parent
    # is the one folder every worker of this run shares
    folder = Path(item.config.option.basetemp).parent
    with alone.turn(folder, item.get_closest_marker(alone.MARK) is not None):
        return (yield)


@pytest.fixture
def make_app(tmp_path: Path) -> Iterator[Callable[..., Flask]]:
    apps: list[Flask] = []

    def make(**overrides: Any) -> Flask:
        app = create_app(app_config(tmp_path, **overrides))
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.extensions["mine_devil.notifier"].close()
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


# -- playing through the JSON API ------------------------------------------------------


@pytest.fixture
def api(client: FlaskClient) -> Api:
    return Api(client)
