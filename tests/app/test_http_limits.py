"""Issue 8, finding 7 (web): no 429 says ``Retry-After: 0``, whichever limiter sent it; the
body limit holds on every view but the few that declare a larger one, and its error is clear
JSON under ``/api`` and a page elsewhere."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

import pytest
from flask import Flask, request

from app.hooks import BODY_LIMIT_ATTR, body_limit
from app.play.routes import NEW_GAME_FORM_MAX
from app.retry_after import RetryAfterFloor, retry_after_floor
from app.security import _LIMIT_ATTR
from tests.helpers.web import HX, chunked_post, csrf_token, new_game

LIMITED = "2 per second"

LARGER_BODIES = {
    "teach.analyse_paste": 1024 * 1024,
    "graphs.analyse_graph_paste": 6 * 1024 * 1024,
    "graphs.export_graph": 6 * 1024 * 1024,
    "api.create": 2 * 1024 * 1024,
    "play.new_game": 6 * 1024 * 1024,
    "ledger.study_import": 6 * 1024 * 1024,
}
"""Views allowed a larger body than ``MAX_CONTENT_LENGTH`` and the most each may declare: the
analysis paste (a 10,000-cell position, form-encoded; ``ui`` sets it with ``body_limit``) and the
graph board's paste and export (a 5,000-cell graph file with polygons, form-encoded), and a new
game, which may carry such a file (JSON for the API, form-encoded for the page), and an
imported graph move list posted back to study one of its moves (as long as that paste)."""


def test_no_429_of_any_limiter_says_retry_after_0(make_app: Callable[..., Flask]) -> None:
    """Per-second windows: Flask-Limiter writes int(reset - now), 0 inside the window."""
    app = make_app(RATELIMIT_ENABLED=True, MOVE_RATE_LIMIT=LIMITED, CREATE_RATE_LIMIT=LIMITED)
    client = app.test_client()
    game_id = new_game(client)
    api_game = client.post("/api/games", json={"width": 6, "height": 6, "mines": 4}).json
    auth = {"Authorization": f"Bearer {api_game['token']}"}
    token = csrf_token(client)
    requests: list[Callable[[], Any]] = [
        lambda: client.post("/api/games", json={"width": 6, "height": 6, "mines": 4}),
        lambda: client.post(
            f"/api/games/{api_game['id']}/flag", json={"row": 0, "col": 0}, headers=auth
        ),
        lambda: client.get("/analyse?p=1./.."),
        lambda: client.post(
            f"/g/{game_id}/move",
            data={"kind": "flag", "at": "0,0"},
            headers={"X-CSRFToken": token, **HX},
        ),
        lambda: client.post("/new", data={"preset": "beginner", "csrf_token": token}),
    ]
    retry_after: list[str | None] = []
    # at least 1.5 s (every window's end, where int(reset - now) is 0), and on until the 429s
    # are in: a loaded machine may send too few requests in 1.5 s to pass a limit
    started = time.monotonic()
    while time.monotonic() < started + 1.5 or (
        len(retry_after) < len(requests) and time.monotonic() < started + 60
    ):
        for send in requests:
            response = send()
            if response.status_code == 429:
                retry_after.append(response.headers.get("Retry-After"))
    assert len(retry_after) >= len(requests), "every limiter answered 429"
    assert all(value is not None and int(value) >= 1 for value in retry_after), retry_after


@pytest.mark.parametrize(
    ("given", "sent"),
    [(None, "1"), ("0", "1"), ("-3", "1"), ("5", "5"),
     ("Wed, 21 Oct 2026 07:28:00 GMT", "Wed, 21 Oct 2026 07:28:00 GMT")],
)  # fmt: skip
def test_the_floor_on_retry_after(given: str | None, sent: str) -> None:
    headers = [("Content-Type", "application/json")]
    if given is not None:
        headers.append(("Retry-After", given))
    assert retry_after_floor(headers) == [
        ("Content-Type", "application/json"),
        ("Retry-After", sent),
    ]


def test_the_floor_touches_only_429s_and_503s() -> None:
    """Every 429 and 503 says Retry-After of at least 1 (a 503 without one gets one: issue 17);
    other answers keep their headers."""

    def inner(status: str) -> Any:
        def wsgi(environ: Any, start_response: Any) -> Iterable[bytes]:
            start_response(status, [("Retry-After", "0")])
            return [b""]

        return wsgi

    for status, expected in (("429 TOO MANY REQUESTS", "1"), ("200 OK", "0"), ("503 X", "1")):
        seen: list[list[tuple[str, str]]] = []

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            seen.append(headers)  # noqa: B023

        RetryAfterFloor(inner(status))({}, start)
        assert dict(seen[0])["Retry-After"] == expected


# -- body limits ------------------------------------------------------------------------------


def test_only_the_analysis_paste_may_take_a_larger_body(app: Flask) -> None:
    for endpoint, view in app.view_functions.items():
        declared = getattr(view, BODY_LIMIT_ATTR, None)
        if declared is not None:
            assert endpoint in LARGER_BODIES, f"{endpoint} declares a {declared}-byte body"
            assert declared <= LARGER_BODIES[endpoint]


def test_a_view_marked_with_a_larger_limit_takes_it_and_no_more(
    make_app: Callable[..., Flask],
) -> None:
    app = make_app(WTF_CSRF_ENABLED=False)

    @body_limit(40_000)
    def paste() -> str:
        return str(len(request.form.get("text", "")))

    app.add_url_rule("/paste-test", "paste_test", paste, methods=["POST"])
    client = app.test_client()
    assert client.post("/paste-test", data={"text": "x" * 30_000}).get_data() == b"30000"
    big = client.post("/paste-test", data={"text": "x" * 50_000})
    assert big.status_code == 413
    streamed = chunked_post(
        client, "/paste-test", b"text=" + b"x" * 30_000,
        content_type="application/x-www-form-urlencoded",
    )  # fmt: skip
    assert streamed.get_data() == b"30000"
    over = chunked_post(
        client, "/paste-test", b"text=" + b"x" * 50_000,
        content_type="application/x-www-form-urlencoded",
    )  # fmt: skip
    assert over.status_code == 413
    # every other view keeps the app's limit
    limit = app.config["MAX_CONTENT_LENGTH"]
    over_app = client.post("/api/worlds", data=b" " * (limit + 1), content_type="application/json")
    assert over_app.status_code == 413


def test_the_body_limit_error_is_clear_json_and_a_clear_page(app: Flask) -> None:
    client = app.test_client()
    limit = app.config["MAX_CONTENT_LENGTH"]
    api = client.post("/api/worlds", data=b" " * (limit + 1), content_type="application/json")
    assert api.status_code == 413
    assert api.json == {"error": f"the request body is larger than {limit} bytes"}
    form = NEW_GAME_FORM_MAX  # a new game's form may carry a graph file: its own limit
    token = csrf_token(client)
    page = client.post("/new", data={"preset": "x" * (form + 10), "csrf_token": token})
    assert page.status_code == 413
    assert page.mimetype == "text/html"
    assert f"more than this page takes ({form:,} bytes)" in page.get_data(as_text=True)
    toast = client.post(
        "/new", data={"preset": "x" * (form + 10)}, headers={"X-CSRFToken": token, **HX}
    )
    assert toast.status_code == 413
    assert f"({form:,} bytes)" in toast.get_data(as_text=True)


def test_rate_limited_views_are_all_known(app: Flask) -> None:
    """The limiter paths the Retry-After test drives cover every kind of limit there is."""
    kinds = {getattr(v, _LIMIT_ATTR, None) for v in app.view_functions.values()} - {None}
    assert kinds == {"MOVE_RATE_LIMIT", "CREATE_RATE_LIMIT"}
