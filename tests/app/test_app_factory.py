"""create_app: settings from the environment, test config, blueprints, health, headers."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskCliRunner

from app import create_app
from app.config import MAX_CONTENT_LENGTH
from app.security import ensure_owner

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in list(os.environ):
        if name.startswith("MINE_DEVIL_"):
            monkeypatch.delenv(name)
    data = tmp_path / "data"
    monkeypatch.setenv("MINE_DEVIL_DATA", str(data))
    return data


def test_defaults_come_from_the_environment(clean_env: Path) -> None:
    app = create_app()
    assert app.config["DATA_DIR"] == str(clean_env.resolve())
    assert app.config["DATABASE_URL"] == f"sqlite:///{clean_env.resolve() / 'mine-devil.sqlite3'}"
    assert (clean_env / "mine-devil.sqlite3").exists()
    assert app.config["MAX_CONTENT_LENGTH"] == MAX_CONTENT_LENGTH == 16 * 1024
    assert app.config["SESSION_COOKIE_HTTPONLY"] is True
    assert app.config["SESSION_COOKIE_SAMESITE"] == "Lax"
    assert app.config["SESSION_COOKIE_SECURE"] is False
    assert app.config["RATELIMIT_ENABLED"] is True
    assert not app.testing
    app.extensions["mine_devil.store"].dispose()


def test_secret_key_is_persisted_privately_and_reused(clean_env: Path) -> None:
    first = create_app()
    key_file = clean_env / "secret_key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert first.config["SECRET_KEY"] == key_file.read_text().strip()
    assert len(first.config["SECRET_KEY"]) >= 32
    second = create_app()
    assert second.config["SECRET_KEY"] == first.config["SECRET_KEY"]
    for app in (first, second):
        app.extensions["mine_devil.store"].dispose()


def test_environment_overrides(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = clean_env.parent / "elsewhere.sqlite3"
    monkeypatch.setenv("MINE_DEVIL_SECRET_KEY", "from-the-env")
    monkeypatch.setenv("MINE_DEVIL_DATABASE_URL", f"sqlite:///{other}")
    monkeypatch.setenv("MINE_DEVIL_SECURE_COOKIES", "1")
    monkeypatch.setenv("MINE_DEVIL_RATELIMIT", "0")
    monkeypatch.setenv("MINE_DEVIL_RATELIMIT_MOVES", "2 per second")
    app = create_app()
    assert app.config["SECRET_KEY"] == "from-the-env"
    assert not (clean_env / "secret_key").exists()
    assert app.config["DATABASE_URL"] == f"sqlite:///{other}"
    assert other.exists()
    assert app.config["SESSION_COOKIE_SECURE"] is True
    assert app.config["RATELIMIT_ENABLED"] is False
    assert app.config["MOVE_RATE_LIMIT"] == "2 per second"
    app.extensions["mine_devil.store"].dispose()


def test_test_config_wins_and_never_touches_the_default_data_dir(
    clean_env: Path, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'mine.sqlite3'}"
    app = create_app({"TESTING": True, "SECRET_KEY": "k", "DATABASE_URL": url})
    assert app.testing and app.config["SECRET_KEY"] == "k"
    assert app.config["DATABASE_URL"] == url
    assert not clean_env.exists()
    app.extensions["mine_devil.store"].dispose()


def test_blueprints_and_asset_folders(app: Flask) -> None:
    assert {"api", "play", "teach"} <= set(app.blueprints)
    assert Path(app.template_folder or "") == ROOT / "templates"
    assert Path(app.static_folder or "") == ROOT / "static"
    assert any(r.rule.startswith("/api/games") for r in app.url_map.iter_rules())


def test_healthz_checks_the_database(app: Flask) -> None:
    client = app.test_client()
    response = client.get("/healthz")
    assert response.status_code == 200 and response.json == {"status": "ok"}
    store = app.extensions["mine_devil.store"]

    def broken() -> None:
        raise ConnectionError("database gone")

    store.ping = broken
    response = client.get("/healthz")
    assert response.status_code == 503
    assert "database unavailable" in response.json["error"]


def test_every_response_has_security_headers(app: Flask) -> None:
    client = app.test_client()
    for path in ("/healthz", "/api/limits", "/api/games/missing", "/no-such-page"):
        headers = client.get(path).headers
        csp = headers["Content-Security-Policy"]
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Referrer-Policy"] == "same-origin"
        assert headers["X-Frame-Options"] == "DENY"


def test_owner_cookie_is_signed_httponly_and_samesite_lax(make_app) -> None:
    app = make_app(SESSION_COOKIE_SECURE=True)

    @app.get("/test-only/claim")
    def claim() -> str:
        return ensure_owner()

    response = app.test_client().get("/test-only/claim")
    cookie = response.headers["Set-Cookie"]
    assert cookie.startswith("mine_devil=")
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" in cookie
    assert response.get_data(as_text=True) not in cookie  # signed and encoded, not the raw id


def test_init_db_command(runner: FlaskCliRunner) -> None:
    result = runner.invoke(args=["init-db"])
    assert result.exit_code == 0, result.output
    assert "revision 0008_ledger_board" in result.output  # head: .. 0007 team seqs, 0008 boards


def test_nothing_happens_at_import_time() -> None:
    import app as package

    assert not hasattr(package, "app")  # no module-level app object
    assert callable(package.create_app)


def test_rebuild_summaries_command_restores_derived_columns(app: Flask) -> None:
    from app.store.records import Summary
    from tests.helpers.web import Api

    api = Api(app.test_client())
    game = api.create(width=6, height=6, mines=4, seed=11)
    state = api.move(game, "reveal", 2, 2)
    covered = next(
        (r, c) for r, row in enumerate(state["board"]) for c, ch in enumerate(row) if ch == "."
    )
    api.move(game, "flag", *covered)
    store = app.extensions["mine_devil.store"]
    truth = store.get_game(game["id"])
    assert (truth.moves, truth.last_seq) == (2, 2)
    store.update_summary(game["id"], Summary("lost", 99), 42)
    result = app.test_cli_runner().invoke(args=["rebuild-summaries"])
    assert result.exit_code == 0, result.output
    assert "1 games" in result.output
    row = store.get_game(game["id"])
    assert (row.status, row.moves, row.last_seq) == (truth.status, truth.moves, truth.last_seq)


def test_database_failure_is_a_503_not_a_crash(app: Flask) -> None:
    import sqlalchemy as sa

    client = app.test_client()
    game = client.post("/api/games", json={"width": 5, "height": 5, "mines": 2}).json
    store = app.extensions["mine_devil.store"]

    def locked(*args: object, **kwargs: object) -> None:
        raise sa.exc.OperationalError("SELECT 1", {}, Exception("database is locked"))

    store.get_head = locked
    response = client.get(f"/api/games/{game['id']}")
    assert response.status_code == 503
    assert "try again" in response.json["error"]
