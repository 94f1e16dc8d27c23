"""Browser-test fixtures: a live Mine Devil server and Debian's Chromium driven by Playwright.

``live_server``   base URL of the app served by werkzeug in a thread (free port, tmp SQLite,
                  CSRF on, rate limits off); one server per test session
``browser_type_launch_args``  pytest-playwright's launch options, pointed at /usr/bin/chromium
``shots``         a directory for screenshots (``MINE_DEVIL_SHOTS``, default /tmp/shots)
``base_url``      the live server (so ``page.goto("/")`` works)

Playwright's ``expect`` retries its assertion for ``EXPECT_TIMEOUT_MS`` here, not its default 5 s:
on a loaded 2-core machine a 100x100 board can take longer than 5 s to render, and a retrying
assertion passes as soon as it holds, so a longer limit only makes a real failure slower.

Helpers that read the board from a page and drive it live in ``tests/helpers/browser.py``.

Every test under ``tests/browser`` is marked ``browser``. Without Chromium they skip locally and
fail under ``CI``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from werkzeug.serving import make_server

from app import create_app

CHROMIUM = Path(os.environ.get("MINE_DEVIL_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


EXPECT_TIMEOUT_MS = 20_000

expect.set_options(timeout=EXPECT_TIMEOUT_MS)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    if not CHROMIUM.exists():
        message = f"{CHROMIUM} is missing: apt-get install -y chromium"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return {**browser_type_launch_args, "executable_path": str(CHROMIUM), "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def live_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    data = tmp_path_factory.mktemp("live-data")
    app = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "browser-test-secret",
            "DATA_DIR": str(data),
            "DATABASE_URL": f"sqlite:///{data / 'live.sqlite3'}",
            "RATELIMIT_ENABLED": False,
        }
    )
    yield app
    app.extensions["mine_devil.store"].dispose()


def _static_closed(app: Any) -> Any:
    """``app`` with each static file read whole and closed before werkzeug writes it.
    werkzeug's development server closes a response only after writing all of it, so a
    request Chromium drops (a favicon on navigation) left its file open, and the garbage
    collector's ResourceWarning failed whichever test was running (gunicorn, which serves
    the app, closes it). Static files are small; other answers (feeds) still stream."""

    def wsgi(environ: dict[str, Any], start_response: Any) -> Any:
        body = app(environ, start_response)
        if not environ.get("PATH_INFO", "").startswith("/static/"):
            return body
        try:
            return [b"".join(body)]
        finally:
            if hasattr(body, "close"):
                body.close()

    return wsgi


@pytest.fixture(scope="session")
def live_server(live_app: Any) -> Iterator[str]:
    server = make_server("127.0.0.1", 0, _static_closed(live_app), threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=5)
        server.server_close()


@pytest.fixture(scope="session")
def shots() -> Path:
    path = Path(os.environ.get("MINE_DEVIL_SHOTS", "/tmp/shots"))
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="session")
def base_url(live_server: str) -> str:
    """Overrides pytest-base-url's fixture (which warns under pytest 9): pages open on the
    live server, so ``page.goto("/")`` works."""
    return live_server
