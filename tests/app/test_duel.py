"""Devil duels (app/duel): names, the shared start, the pushed race panel, the end state on
both sides, secrets while the other still plays, rematches, ratings and the duel history."""

from __future__ import annotations

import re
import threading
import time
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from app.duel import rating, store
from app.duel.race import race
from app.ledger.routes import get_ledger
from app.notify import LocalNotifier
from app.play.moves import Action, Click
from app.play.setup import get_service
from app.store.setup import get_store
from devil.analysis import Verdict
from devil.solver import classify
from tests.helpers.web import CSRF


def token(client: FlaskClient, path: str) -> str:
    found = CSRF.search(client.get(path).get_data(as_text=True))
    assert found
    return found.group(1)


def create(client: FlaskClient, preset: str = "beginner", name: str = "Alice") -> str:
    data = {"csrf_token": token(client, "/duel"), "preset": preset, "name": name}
    r = client.post("/duel", data=data)
    assert r.status_code == 303, r.get_data(as_text=True)
    return str(r.headers["Location"])


def join(client: FlaskClient, link: str, name: str = "Bob") -> None:
    r = client.post(link + "/join", data={"csrf_token": token(client, link), "name": name})
    assert r.status_code == 303


def duel_of(app: Flask, link: str) -> store.Duel:
    with app.app_context():
        return store.get(get_store(app).engine, link.rsplit("/", 1)[1])


def clear(app: Flask, game_id: str) -> None:
    """Open provably safe cells until the game is won (a no-guess board always has one)."""
    with app.app_context():
        service = get_service()
        while True:
            game = service.load(game_id).game
            if game.over:
                assert game.status.value == "won"
                return
            verdicts = classify(game.position, game.params.rules.count).verdicts
            safe = min(c for c, v in verdicts.items() if v is Verdict.SAFE)
            row, col = game.position.board.coord(safe)
            service.play(game_id, Click(Action.REVEAL, row, col))


def die(app: Flask, game_id: str) -> None:
    """Reveal a cell that could be a mine: the devil makes it one."""
    with app.app_context():
        service = get_service()
        game = service.load(game_id).game
        verdicts = classify(game.position, game.params.rules.count).verdicts
        risky = min(c for c, v in verdicts.items() if v is not Verdict.SAFE)
        row, col = game.position.board.coord(risky)
        _, after = service.play(game_id, Click(Action.REVEAL, row, col))
        assert after.game.status.value == "lost"


def panel(client: FlaskClient, link: str) -> str:
    return client.get(link + "/status").get_data(as_text=True)


def started_duel(app: Flask) -> tuple[FlaskClient, FlaskClient, str, store.Duel]:
    host, guest = app.test_client(), app.test_client()
    link = create(host)
    join(guest, link)
    return host, guest, link, duel_of(app, link)


def test_players_race_under_their_names_from_the_same_opened_cell(app: Flask) -> None:
    host, guest, third = app.test_client(), app.test_client(), app.test_client()
    link = create(host, "intermediate", "Alice")
    page = host.get(link).get_data(as_text=True)
    # before the race starts the board is not shown: nobody gets a head start
    assert 'id="board"' not in page and "accept-duel" not in page and "not here yet" in page
    assert "accept-duel" in guest.get(link).get_data(as_text=True)
    join(guest, link, "Bob")
    for client in (host, guest):
        text = client.get(link).get_data(as_text=True)
        assert 'id="board"' in text and "Alice" in text and "Bob" in text
        shown = re.sub(r"<[^>]+>", " ", panel(client, link))  # what a player reads
        assert not re.search(r"\b(Host|Guest|host|guest)\b", shown)
    assert "(you)" in panel(host, link)
    third_page = third.get(link).get_data(as_text=True)
    assert "accept-duel" not in third_page and "watching" in third_page
    third.post(link + "/join", data={"csrf_token": token(third, link), "name": "Carol"})
    duel = duel_of(app, link)
    assert (duel.host_name, duel.guest_name) == ("Alice", "Bob")
    with app.app_context():
        a, b = (get_service().load(g).game for g in (duel.host_game, duel.guest_game or ""))
        assert a.params == b.params and (a.params.height, a.params.width) == (16, 16)
        # the duel opened the middle cell for both: one real layout, the same start
        assert len(a.moves) == len(b.moves) == 1 and a.position == b.position
        assert a.layout == b.layout
    # the name is this browser's display name from now on (the records page's)
    with app.app_context():
        owner = get_service().record(duel.host_game).owner
        assert owner is not None and get_ledger().store.name(owner) == "Alice"


def test_a_name_against_the_rule_is_refused_naming_it(client: FlaskClient) -> None:
    r = client.post(
        "/duel", data={"csrf_token": token(client, "/duel"), "preset": "beginner", "name": "<b>"}
    )
    assert r.status_code == 400
    text = r.get_data(as_text=True)
    assert "1 to 24 letters" in text and 'aria-invalid="true"' in text and "&lt;b&gt;" in text


def test_an_unnamed_player_is_player_1_or_2_never_host(app: Flask) -> None:
    host, guest = app.test_client(), app.test_client()
    link = create(host, name="")
    join(guest, link, name="")
    text = panel(guest, link)
    assert "Player 1" in text and "Player 2" in text and "Host" not in text


def test_both_panels_reach_the_end_state(app: Flask) -> None:
    """The guest clears, then the host dies: the host's panel says so (it used to stay at
    "alive": the polling stopped at the first result)."""
    host, guest, link, duel = started_duel(app)
    assert duel.guest_game is not None
    clear(app, duel.guest_game)
    mid = panel(host, link)
    assert 'data-seat="guest" data-name="Bob" data-state="cleared"' in mid
    assert "Bob won the duel." in host.get(link).get_data(as_text=True)
    assert "You are still playing" in mid
    die(app, duel.host_game)
    for client, verdict in ((host, "Bob won the duel."), (guest, "You won the duel!")):
        text = panel(client, link)
        assert 'data-seat="host" data-name="Alice" data-state="dead"' in text
        assert 'data-seat="guest" data-name="Bob" data-state="cleared"' in text
        assert "still playing" not in text
        assert verdict in client.get(link).get_data(as_text=True)
    # one rule for both: the same 3BV (the real layout's), the loser's solved part below it
    figures = re.findall(r"<td>(\d+) / (\d+)</td>", panel(host, link))
    assert len(figures) == 2 and figures[0][1] == figures[1][1]
    assert int(figures[0][0]) < int(figures[0][1]) and figures[1][0] == figures[1][1]
    assert "counted on it for both players" in panel(guest, link)
    settled = duel_of(app, link)
    assert settled.winner == "guest" and settled.ended_at is not None
    # the stream carries the news for screen readers: what the other one did
    assert '"notice":"Alice fell to the devil."' in guest.get(link + "/events").get_data(
        as_text=True
    )
    assert '"verdict":"Bob won the duel."' in host.get(link + "/events").get_data(as_text=True)


def test_the_panel_is_pushed_when_a_side_moves(make_app: Any) -> None:
    """The event stream wakes on the other game's move at once (no polling: the heartbeat
    is 30 s here)."""
    app = make_app(LIVE_MAX_SECONDS=20, LIVE_HEARTBEAT_SECONDS=30)
    host, _guest, link, duel = started_duel(app)
    assert duel.guest_game is not None
    response = host.get(link + "/events", buffered=False)
    chunks = iter(response.response)
    first = next(chunks)
    first = first.decode() if isinstance(first, bytes) else first
    assert first.startswith("event: race") and '\\"opened\\"' not in first
    guest_game = duel.guest_game
    threading.Timer(0.3, lambda: die(app, guest_game)).start()
    began = time.monotonic()
    second = next(chunks)
    second = second.decode() if isinstance(second, bytes) else second
    assert time.monotonic() - began < 5
    assert "event: race" in second and 'data-state=\\"dead\\"' in second
    response.close()


def test_nothing_of_the_other_board_while_it_runs(app: Flask) -> None:
    host, guest, link, duel = started_duel(app)
    assert duel.guest_game is not None
    die(app, duel.host_game)
    # the host is out, the guest still plays the same layout: the host's game keeps its
    # real layout and seed hidden (page, API, exports) and the guest's id is not sent
    with app.app_context():
        layout = get_service().load(duel.host_game).game.layout
    assert layout is not None
    state = host.get(f"/api/games/{duel.host_game}").get_json()
    assert state["status"] == "lost" and "layout" not in state and "seed" not in state
    assert "witness" in state
    assert host.get(f"/g/{duel.host_game}/export.moves").status_code == 409
    page = host.get(f"/g/{duel.host_game}").get_data(as_text=True)
    assert "show-real" not in page and "still playing on this board" in page
    # the guest, still racing, is never sent the host's game (whose end shows the layout),
    # nor is a watcher; the host, out of the race, may watch the guest's board
    watcher = app.test_client()
    for client in (guest, watcher):
        for path in (link, link + "/status", link + "/events", "/records"):
            assert duel.host_game not in client.get(path).get_data(as_text=True)
    assert duel.guest_game in panel(host, link)
    clear(app, duel.guest_game)
    # over: everything is public again
    assert duel.host_game in panel(guest, link) and duel.host_game in panel(watcher, link)
    state = host.get(f"/api/games/{duel.host_game}").get_json()
    assert "layout" in state and "seed" in state
    assert "show-real" in host.get(f"/g/{duel.host_game}").get_data(as_text=True)


def test_a_duel_game_ends_with_the_way_back_not_a_solo_game(app: Flask) -> None:
    host, _guest, _link, duel = started_duel(app)
    die(app, duel.host_game)
    page = host.get(f"/g/{duel.host_game}").get_data(as_text=True)
    assert "Back to the duel" in page and 'action="/new"' not in page
    assert "Play again" not in page


def test_a_rematch_swaps_the_seats_on_a_new_seed(app: Flask) -> None:
    host, guest, link, duel = started_duel(app)
    assert duel.guest_game is not None
    third = app.test_client()
    r = host.post(link + "/rematch", data={"csrf_token": token(host, link)})
    assert r.status_code == 409  # not over yet
    die(app, duel.host_game)
    die(app, duel.guest_game)
    assert "Both fell to the devil: no winner." in host.get(link).get_data(as_text=True)
    assert third.post(link + "/rematch", data={"csrf_token": token(third, link)}).status_code == 409
    host.post(link + "/rematch", data={"csrf_token": token(host, link)})
    assert "waiting for Bob" in panel(host, link)
    assert "Accept Alice's rematch" in panel(guest, link)
    r = guest.post(link + "/rematch", data={"csrf_token": token(guest, link)})
    assert r.status_code == 303
    old = duel_of(app, link)
    assert old.rematch is not None
    new = duel_of(app, "/duel/" + old.rematch)
    assert (new.host_name, new.guest_name) == ("Bob", "Alice")
    with app.app_context():
        service = get_service()
        owners = [service.record(g).owner for g in (new.host_game, new.guest_game or "")]
        before = [service.record(g).owner for g in (duel.guest_game, duel.host_game)]
        assert owners == before
        a, b = (service.load(g).game for g in (new.host_game, new.guest_game or ""))
        assert a.params.seed == b.params.seed != service.load(duel.host_game).params.seed
        assert len(a.moves) == len(b.moves) == 1  # started: the same first cell opened
    # both old panels lead to it; asking again changes nothing
    for client in (host, guest):
        assert f"/duel/{old.rematch}" in panel(client, link)
    host.post(link + "/rematch", data={"csrf_token": token(host, link)})
    assert duel_of(app, link).rematch == old.rematch


def test_named_duels_are_rated_and_listed(app: Flask) -> None:
    host, guest, link, duel = started_duel(app)
    assert duel.guest_game is not None
    clear(app, duel.host_game)
    die(app, duel.guest_game)
    panel(host, link)  # reading the race settles it
    with app.app_context():
        board = rating.leaderboard(get_store(app).engine)
    assert [r.name for r in board] == ["Alice", "Bob"]
    assert board[0].shown > board[1].shown and (board[0].wins, board[1].wins) == (1, 0)
    panel(guest, link)  # settled once: read again, rated again? no
    with app.app_context():
        assert [r.duels for r in rating.leaderboard(get_store(app).engine)] == [1, 1]
    records = app.test_client().get("/records").get_data(as_text=True)
    assert "Duels" in records and "Alice vs Bob" in records and "duel ratings" in records
    assert app.test_client().get("/records?duels_page=x").status_code == 400
    # an unnamed player's duel is listed but not rated
    a, b = app.test_client(), app.test_client()
    link2 = create(a, name="Carol")
    join(b, link2, name="")
    second = duel_of(app, link2)
    die(app, second.host_game)
    die(app, second.guest_game or "")
    panel(a, link2)
    with app.app_context():
        assert "Carol" not in [r.name for r in rating.leaderboard(get_store(app).engine)]
    assert "Carol vs anonymous" in app.test_client().get("/records").get_data(as_text=True)


def test_openskill_ranks_a_win_and_a_draw(app: Flask) -> None:
    with app.app_context(), get_store(app).engine.begin() as conn:
        winner, loser = rating.rate(conn, "a", "b", "host")
        assert winner.mu > loser.mu and winner.sigma < rating.fresh("a").sigma
        again = rating.rate(conn, "a", "b", "nobody")
        assert again[0].mu < winner.mu and again[1].mu > loser.mu  # a draw pulls together
    assert not rating.rated("a", "a", ("x", "y")) and not rating.rated("a", "b", ("x", None))


def test_a_stored_duel_from_before_names_replays(app: Flask) -> None:
    """A duel row as migration 0004 left it (no names, no result) reads as before."""
    with app.app_context():
        service = get_service()
        params = service.load(create_game(app)).params
        guest = service.create(params).loaded.id
        engine = get_store(app).engine
        made = store.create(engine, create_game(app))
        store.take_guest_seat(engine, made.id, guest)
        old = store.get(engine, made.id)
        now = race(old, service, get_ledger().store)
        assert [s.name for s in now.sides] == ["Player 1", "Player 2"] and now.winner is None
        # before 0005 each player opened their own first cell: two layouts, each counted
        service.play(old.host_game, Click(Action.REVEAL, 0, 0))
        service.play(guest, Click(Action.REVEAL, 8, 8))
    die(app, old.host_game)
    die(app, guest)
    with app.app_context():
        now = race(old, get_service(), get_ledger().store)
        assert now.over and now.winner == "nobody" and not now.one_layout
        assert all(s.figures is not None for s in now.sides)
    text = app.test_client().get(f"/duel/{old.id}/status").get_data(as_text=True)
    assert "each played their own real layout" in text


def create_game(app: Flask) -> str:
    from app.play.new_game import params_from_form

    with app.app_context():
        params = params_from_form({"preset": "beginner", "no_guess": "on", "mercy": "strict"})
        return get_service().create(params).loaded.id


def test_any_of_several_topics_wakes_one_waiter() -> None:
    notifier = LocalNotifier()
    with notifier.subscribe_any(["a", "b"]) as waiter:
        assert not waiter.wait(0.01)
        threading.Timer(0.05, lambda: notifier.publish("b")).start()
        assert waiter.wait(2)
        assert not waiter.wait(0.01)
        notifier.publish("c")
        assert not waiter.wait(0.01)
    assert notifier.subscribers() == 0


def test_unknown_duels_404(client: FlaskClient) -> None:
    assert client.get("/duel/nope").status_code == 404
    assert client.get("/duel/nope/status").status_code == 404
    assert client.get("/duel/nope/events").status_code == 404


def test_a_duel_stored_at_0004_upgrades_and_replays(db_url: str) -> None:
    """Migration 0005 adds columns and a table: a duel saved before reads the same."""
    from alembic import command
    from alembic.config import Config

    from app.store.log import MIGRATIONS, Store
    from app.store.records import hash_token

    old = Store(db_url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with old.engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0004")
    for game in ("g1", "g2"):
        old.insert_game(game, {"height": 9, "width": 9, "mines": 10}, hash_token("t"), "o")
    with old.engine.begin() as conn:
        conn.execute(
            store.duels.insert().values(
                id="d1", host_game="g1", guest_game="g2", created_at=store.utcnow()
            )
        )
    old.migrate()
    from alembic.script import ScriptDirectory

    assert old.revision() == ScriptDirectory.from_config(config).get_current_head()
    duel = store.get(old.engine, "d1")
    assert (duel.host_game, duel.guest_game) == ("g1", "g2")
    assert duel.host_name is None and duel.winner is None
    assert store.of_game(old.engine, "g2") == duel and store.of_game(old.engine, "g3") is None
    assert rating.leaderboard(old.engine) == []
    old.dispose()


def test_a_start_cut_short_is_finished_by_the_next_page(app: Flask) -> None:
    """The seat was taken but the first cells were not opened (a fault in between): the next
    view of the duel opens them, so both still play one layout from the same cell."""
    host, guest = app.test_client(), app.test_client()
    link = create(host)
    duel = duel_of(app, link)
    with app.app_context():
        service = get_service()
        params = service.load(duel.host_game).params
        owner = ensure_guest_owner(guest, link)
        seat = service.create(params, owner=owner).loaded.id
        assert store.take_guest_seat(get_store(app).engine, duel.id, seat, "Bob")
    assert 'id="board"' in guest.get(link).get_data(as_text=True)
    with app.app_context():
        a, b = (get_service().load(g).game for g in (duel.host_game, seat))
        assert len(a.moves) == len(b.moves) == 1 and a.layout == b.layout


def ensure_guest_owner(client: FlaskClient, link: str) -> str:
    """The owner id of ``client``'s browser (it gets one by opening any game page)."""
    from app.security import OWNER_KEY

    client.get(link)
    with client.session_transaction() as session:
        owner = session.get(OWNER_KEY)
        if owner is None:
            session[OWNER_KEY] = owner = "guest-owner"
    return str(owner)


def test_a_fault_while_settling_leaves_the_page_up(app: Flask, monkeypatch: Any) -> None:
    import sqlalchemy as sa

    host, guest, link, duel = started_duel(app)
    die(app, duel.host_game)
    die(app, duel.guest_game or "")

    def broken(*args: object, **kwargs: object) -> bool:
        raise sa.exc.OperationalError("UPDATE duels", {}, Exception("database is locked"))

    monkeypatch.setattr(store, "decide", broken)
    assert "Both fell to the devil" in host.get(link).get_data(as_text=True)
    assert duel_of(app, link).winner is None
    monkeypatch.undo()
    guest.get(link)  # the next reader settles it
    assert duel_of(app, link).winner == "nobody"


def test_the_duel_history_is_paged(app: Flask) -> None:
    from datetime import timedelta

    game = create_game(app)
    engine = get_store(app).engine
    start = store.utcnow()
    with engine.begin() as conn:
        for i in range(21):
            conn.execute(
                store.duels.insert().values(
                    id=f"d{i:02d}",
                    host_game=game,
                    guest_game=game,
                    host_name=f"A{i:02d}",
                    guest_name="B",
                    winner="host",
                    created_at=start,
                    ended_at=start + timedelta(minutes=i),
                )
            )
    client = app.test_client()
    first = client.get("/records").get_data(as_text=True)
    assert first.count("A20 vs B") == 1 and "A01 vs B" in first and "A00 vs B" not in first
    assert "duels_page=2" in first and "Older duels" in first
    second = client.get("/records?duels_page=2").get_data(as_text=True)
    assert "A00 vs B" in second and "A01 vs B" not in second and "Newer duels" in second
    assert client.get("/records?duels_page=501").status_code == 400
