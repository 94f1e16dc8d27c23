"""Devil duels (app/duel): create, the share link, the guest seat (taken once), the race."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient

from tests.web.test_world_pages import CSRF


def token(client: FlaskClient, path: str) -> str:
    found = CSRF.search(client.get(path).get_data(as_text=True))
    assert found
    return found.group(1)


def create(client: FlaskClient, preset: str = "beginner") -> str:
    r = client.post("/duel", data={"csrf_token": token(client, "/duel"), "preset": preset})
    assert r.status_code == 303
    return str(r.headers["Location"])


def test_a_duel_pairs_two_games_with_the_same_parameters(app: Flask) -> None:
    host, guest, third = app.test_client(), app.test_client(), app.test_client()
    link = create(host, "intermediate")
    page = host.get(link).get_data(as_text=True)
    assert 'id="board"' in page and "accept-duel" not in page and "not here yet" in page
    assert "accept-duel" in guest.get(link).get_data(as_text=True)
    r = guest.post(link + "/join", data={"csrf_token": token(guest, link)})
    assert r.status_code == 303
    assert 'id="board"' in guest.get(link).get_data(as_text=True)
    # the seat is taken: a third browser watches
    third_page = third.get(link).get_data(as_text=True)
    assert "accept-duel" not in third_page and "watching" in third_page
    third.post(link + "/join", data={"csrf_token": token(third, link)})
    status = host.get(link + "/status").get_data(as_text=True)
    games = re.findall(r'href="/g/([^"]+)"', status)
    assert len(games) == 1  # the other side's watch link (not one's own)
    from app.play.setup import get_service

    with app.app_context():
        duel_id = link.rsplit("/", 1)[1]
        from app.duel import store
        from app.store.setup import get_store

        duel = store.get(get_store(app).engine, duel_id)
        assert duel.guest_game is not None
        a = get_service().load(duel.host_game).params
        b = get_service().load(duel.guest_game).params
        assert a == b and (a.height, a.width, a.mines) == (16, 16, 40)


def test_the_host_cannot_take_the_guest_seat_and_unknown_duels_404(client: FlaskClient) -> None:
    link = create(client)
    client.post(link + "/join", data={"csrf_token": token(client, link)})
    assert "not here yet" in client.get(link + "/status").get_data(as_text=True)
    assert client.get("/duel/nope").status_code == 404
    assert client.get("/duel/nope/status").status_code == 404
