"""What the server logs (issue 8, finding 6 and "logs carry no tracebacks for expected
outcomes"): answers a client caused (400, 403, 404, 409, 413, 429) log nothing; a real failure
is logged once, with its request id, which the answer shows; every answer has an id."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from flask import Flask

from app.requests_log import HEADER
from tests.helpers.web import Api

ROOT = Path(__file__).resolve().parents[2]

GEVENT_SCRIPT = textwrap.dedent(
    """
    from gevent import monkey
    monkey.patch_all()
    import sys
    from app import create_app
    from tests.helpers.web import app_config
    from pathlib import Path

    app = create_app(app_config(Path(sys.argv[1]), ENGINE_OFFLOAD=False))
    assert app.extensions["mine_devil.games"]._run is not None, "no thread pool: not gevent"
    client = app.test_client()
    game = client.post("/api/games", json={"width": 70, "height": 70, "mines": 400,
                                           "no_guess": False, "seed": 3}).json
    auth = {"Authorization": "Bearer " + game["token"]}
    url = "/api/games/" + game["id"]
    codes = [client.post(url + "/chord", json={"row": 5, "col": 5}, headers=auth).status_code]
    codes.append(client.post(url + "/flag", json={"row": 0, "col": 0}, headers=auth).status_code)
    for _ in range(20):
        codes.append(client.post(url + "/reveal", json={"row": 0, "col": 0},
                                 headers=auth).status_code)
        codes.append(client.post(url + "/chord", json={"row": 9, "col": 9},
                                 headers=auth).status_code)
    print("codes", sorted(set(codes)))
    """
)


def test_refused_moves_on_big_boards_print_no_traceback(tmp_path: Path) -> None:
    """Finding 6: on boards over 4,096 cells moves run in gevent's thread pool, which printed
    a traceback for every IllegalMove (an ordinary 409)."""
    result = subprocess.run(
        [sys.executable, "-c", GEVENT_SCRIPT, str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 0, result.stderr
    assert "codes [200, 409]" in result.stdout
    assert "Traceback" not in result.stderr
    assert "failed with" not in result.stderr
    assert result.stderr.strip() == ""


def test_expected_answers_log_nothing(
    api: Api, app: Flask, caplog: pytest.LogCaptureFixture
) -> None:
    client = app.test_client()
    game = api.create(width=6, height=6, mines=4, seed=1)
    auth = {"Authorization": f"Bearer {game['token']}"}
    caplog.clear()
    with caplog.at_level(logging.INFO):
        assert client.post("/api/games", json={"width": "\u00b2"}).status_code == 400
        assert client.post(f"/api/games/{game['id']}/reveal", json={"row": 1}).status_code == 403
        assert client.get("/api/games/nope").status_code == 404
        chord = client.post(
            f"/api/games/{game['id']}/chord", json={"row": 1, "col": 1}, headers=auth
        )
        assert chord.status_code == 409
        big = client.post("/api/worlds", data=b" " * 20_000, content_type="application/json")
        assert big.status_code == 413
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


@pytest.fixture
def failing_app(make_app: Callable[..., Flask]) -> Flask:
    app = make_app(PROPAGATE_EXCEPTIONS=False)

    def boom() -> str:
        raise RuntimeError("a bug")

    app.add_url_rule("/api/boom", "boom", boom)
    app.add_url_rule("/boom", "page_boom", boom)
    return app


def test_a_server_error_is_logged_once_with_the_request_id_it_shows(
    failing_app: Flask, caplog: pytest.LogCaptureFixture
) -> None:
    client = failing_app.test_client()
    with caplog.at_level(logging.INFO):
        response = client.get("/api/boom")
    assert response.status_code == 500
    rid = response.headers[HEADER]
    assert response.json == {"error": "internal server error", "request_id": rid}
    errors = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(errors) == 1
    assert rid in errors[0].getMessage() and "GET /api/boom" in errors[0].getMessage()
    assert errors[0].exc_info is not None and errors[0].exc_info[0] is RuntimeError
    caplog.clear()
    with caplog.at_level(logging.INFO):
        page = client.get("/boom", headers={HEADER: "report-42"})
    assert page.status_code == 500
    assert page.headers[HEADER] == "report-42"
    assert "request id report-42" in page.get_data(as_text=True)
    assert len([r for r in caplog.records if r.levelno >= logging.WARNING]) == 1


@pytest.mark.parametrize("given", ["", "a b", "x" * 65, "\u0663", "<script>"])
def test_a_bad_request_id_is_replaced(app: Flask, given: str) -> None:
    response = app.test_client().get("/healthz", headers={HEADER: given})
    rid = response.headers[HEADER]
    assert rid != given and len(rid) == 32


def test_every_answer_has_a_request_id_and_a_good_one_is_kept(app: Flask) -> None:
    client = app.test_client()
    ids = {client.get(path).headers[HEADER] for path in ("/", "/healthz", "/api/limits", "/x")}
    assert len(ids) == 4
    assert client.get("/healthz", headers={HEADER: "abc.DEF_1-2"}).headers[HEADER] == "abc.DEF_1-2"
