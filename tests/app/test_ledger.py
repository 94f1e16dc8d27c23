"""The ledger on the web: annotations API, luck line, replay notes, exports, records, imports."""

from __future__ import annotations

import io
import re
import time
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from devil import oracle
from devil.ledger.annotate import ANNOTATION_VERSION
from devil.ledger.replays.evf import read_evf
from devil.ledger.replays.movelist import read_movelist
from devil.rules import Count
from tests.helpers.ledger import ledger_row
from tests.helpers.web import Api, csrf, oracle_verdicts, play_to_win, safe_unflagged, visible

SMALL = {"width": 6, "height": 6, "mines": 4, "seed": 11}
MOVE_FIELDS = {"n", "kind", "row", "col", "judgement", "level", "p_safe", "bits", "opened"}
METRICS = {
    "3bv", "solved_3bv", "3bv_per_s", "clicks", "efficiency", "seconds", "hints", "max_level"
}  # fmt: skip
REPLAYS = Path(__file__).resolve().parent.parent / "data" / "replays"


def won_game(api: Api, **params: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    game = api.create(**{**SMALL, **params})
    states = play_to_win(api, game, (0, 0))
    assert states[-1]["status"] == "won"
    return game, states


def test_annotations_are_refused_while_the_game_runs(api: Api, client: FlaskClient) -> None:
    game = api.create(**SMALL)
    api.move(game, "reveal", 0, 0)
    response = client.get(f"/api/games/{game['id']}/annotations")
    assert response.status_code == 409
    assert "still being played" in response.get_json()["error"]
    assert client.get("/api/games/nosuchgame/annotations").status_code == 404
    assert client.get(f"/g/{game['id']}/export.evf").status_code == 409


def test_annotations_of_a_won_game_follow_the_contract(api: Api, client: FlaskClient) -> None:
    game, states = won_game(api)
    response = client.get(f"/api/games/{game['id']}/annotations")
    assert response.status_code == 200
    body = response.get_json()
    assert body["version"] == ANNOTATION_VERSION
    assert set(body["metrics"]) == METRICS
    assert body["metrics"]["clicks"] == len(states)
    assert body["metrics"]["hints"] == 0
    assert body["bits"] == 0
    moves = body["moves"]
    assert [m["n"] for m in moves] == list(range(1, len(states) + 1))
    assert moves[0]["judgement"] == "forced" and moves[0]["p_safe"] == 1
    for move, before in zip(moves[1:], states, strict=False):
        assert set(move) >= MOVE_FIELDS
        assert move["judgement"] == "proof" and move["level"] in (1, 2, 3, 4)
        verdicts = oracle.classify(visible(before), Count.CLASSIC).verdicts
        cell = visible(before).board.cell(move["row"], move["col"])
        assert verdicts[cell].letter == "S"  # each proof: provably safe by the oracle
        assert move["p_safe"] is None and move["bits"] is None
    opened = {tuple(c) for m in moves for c in m["opened"]}
    assert len(opened) == 36 - 4


def test_the_end_panel_asks_for_the_luck_line(api: Api, client: FlaskClient) -> None:
    game, _ = won_game(api)
    page = client.get(f"/g/{game['id']}").get_data(as_text=True)
    assert f'hx-get="/g/{game["id"]}/luck"' in page
    assert f'href="/g/{game["id"]}/export.evf"' in page
    luck = client.get(f"/g/{game['id']}/luck", headers={"HX-Request": "true"})
    assert luck.status_code == 200
    text = luck.get_data(as_text=True)
    assert "You needed no luck" in text and "3BV" in text
    # the two levels of a won game are stated in one voice: what the player's hardest click
    # needed (from what was open then) and what the board needs at its easiest, and why the
    # first can be higher
    hardest = re.search(r"your hardest click needed level (\d)", text)
    assert hardest is not None, text
    assert "the board's own level, below, opens every easier cell first" in text
    board = re.search(r"The board needed <strong>level (\d)</strong>", page)
    assert board is not None
    assert int(board.group(1)) <= int(hardest.group(1))
    assert "Your hardest click (above) can" in page and "need a higher level" in page


def test_a_lost_games_end_panel_counts_only_the_3bv_it_solved(
    api: Api, client: FlaskClient
) -> None:
    """Issue 11 follow-up: after an early loss the panel reads "solved 3BV a/b" (a < b) and
    3BV/s and efficiency are rated on the a solved, not on the whole board."""
    game = api.create(**SMALL)
    state = api.move(game, "reveal", 0, 0)
    while state["status"] == "playing":
        risky = [rc for rc, v in sorted(oracle_verdicts(state).items()) if v != "S"]
        if risky:  # not provably safe: the devil puts a mine there
            state = api.move(game, "reveal", *risky[0])
        else:
            state = api.move(game, "reveal", *safe_unflagged(state)[0])
    assert state["status"] == "lost"
    metrics = client.get(f"/api/games/{game['id']}/annotations").get_json()["metrics"]
    solved, whole = metrics["solved_3bv"], metrics["3bv"]
    assert 0 <= solved < whole
    assert metrics["efficiency"] == pytest.approx(solved / metrics["clicks"], abs=1e-4)
    seconds, rate = metrics["seconds"], metrics["3bv_per_s"]
    if rate is not None:  # both rounded to 4 decimals: the true time is within 1e-4 of seconds
        assert solved / (seconds + 1e-4) - 1e-4 <= rate
        assert seconds <= 1e-4 or rate <= solved / (seconds - 1e-4) + 1e-4
    luck = client.get(f"/g/{game['id']}/luck", headers={"HX-Request": "true"})
    text = luck.get_data(as_text=True)
    assert f"solved 3BV {solved}/{whole}" in text


def test_replay_notes_say_what_each_move_was_and_link_why(api: Api, client: FlaskClient) -> None:
    game, _ = won_game(api)
    page = client.get(f"/g/{game['id']}/replay/2").get_data(as_text=True)
    assert 'class="move-note proof"' in page
    assert "Move 2 was a proof, level" in page
    assert 'class="why" href="/analyse?p=' in page and "cell=" in page
    picture = page.split('class="picture" href="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    png = client.get(picture)
    assert png.status_code == 200 and png.mimetype == "image/png"
    first = client.get(f"/g/{game['id']}/replay/1", headers={"HX-Request": "true"})
    assert "safe by the rules (the first click)" in first.get_data(as_text=True)


def test_a_grid_games_picture_is_the_grid_notes_picture(api: Api, client: FlaskClient) -> None:
    game, _ = won_game(api)
    note = client.get(f"/g/{game['id']}/replay/2").get_data(as_text=True)
    link = re.search(r'class="picture" href="([^"]+)"', note)
    assert link
    moved = client.get(f"/g/{game['id']}/picture.png?move=2")
    assert moved.status_code == 303
    assert moved.headers["Location"] == link.group(1).replace("&amp;", "&")
    assert client.get(moved.headers["Location"]).data.startswith(b"\x89PNG\r\n\x1a\n")


def test_running_games_have_no_notes(api: Api, client: FlaskClient) -> None:
    game = api.create(**SMALL)
    api.move(game, "reveal", 0, 0)
    page = client.get(f"/g/{game['id']}/replay/1").get_data(as_text=True)
    assert "move-note" not in page


def test_exports_read_back_as_the_game(api: Api, client: FlaskClient) -> None:
    game, _ = won_game(api)
    evf = client.get(f"/g/{game['id']}/export.evf")
    assert evf.status_code == 200
    assert "attachment" in evf.headers["Content-Disposition"]
    replay = read_evf(evf.data)
    moves = [(m["kind"], m["row"], m["col"]) for m in api.log(game["id"])]
    assert [(m.kind.value, m.row, m.col) for m in replay.moves] == moves
    text = client.get(f"/g/{game['id']}/export.moves").get_data(as_text=True)
    listed = read_movelist(text)
    assert [(m.kind.value, m.row, m.col) for m in listed.moves] == moves
    assert listed.params.seed == SMALL["seed"]
    assert listed.layout == replay.layout


def test_a_finished_game_is_annotated_in_the_background(app: Flask, api: Api) -> None:
    game, _ = won_game(api)
    store = app.extensions["mine_devil.ledger"].store
    deadline = time.monotonic() + 10
    while store.get(game["id"]) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    row = store.get(game["id"])
    assert row is not None and row.status == "won" and row.version == ANNOTATION_VERSION


def test_concurrent_requests_annotate_a_game_once(
    make_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many requests for a just-finished game's annotations (the end panel, the API, a
    hostile client's burst) wait for one computation instead of each starting their own."""
    import threading

    import app.ledger.service as service

    app = make_app(LEDGER_WARM=False)
    api = Api(app.test_client())
    game, _ = won_game(api)
    real = service.annotate_game
    calls = {"n": 0}
    started = threading.Event()

    def slow(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        started.set()
        time.sleep(0.3)  # long enough for the others to arrive while it runs
        return real(*args, **kwargs)

    monkeypatch.setattr(service, "annotate_game", slow)
    ledger = app.extensions["mine_devil.ledger"]
    answers: list[dict[str, Any]] = []
    first = threading.Thread(target=lambda: answers.append(ledger.annotation(game["id"])))
    first.start()
    started.wait(5)
    others = [
        threading.Thread(target=lambda: answers.append(ledger.annotation(game["id"])))
        for _ in range(4)
    ]
    for t in others:
        t.start()
    for t in [first, *others]:
        t.join(10)
    assert calls["n"] == 1
    assert len(answers) == 5 and all(a == answers[0] for a in answers)


def test_records_are_the_fastest_won_games_per_rule_set(app: Flask, api: Api) -> None:
    store = app.extensions["mine_devil.ledger"].store
    ids = [api.create(**SMALL)["id"] for _ in range(5)]
    store.save(ledger_row(ids[0], 30.0))
    store.save(ledger_row(ids[1], 12.5, hints=2))
    store.save(ledger_row(ids[2], 20.0, mercy="fair", guesses=1, bits=1.58))
    store.save(ledger_row(ids[3], 5.0, status="lost"))
    store.save(ledger_row(ids[4], 25.0, preset="expert"))
    client = app.test_client()
    everything = client.get("/api/records").get_json()["records"]
    assert [r["game_id"] for r in everything] == [ids[1], ids[2], ids[4], ids[0]]
    assert [r["rank"] for r in everything] == [1, 2, 3, 4]
    assert everything[0]["helped"] is True and everything[3]["helped"] is False
    strict = client.get("/api/records?preset=beginner&mercy=strict&count=classic").get_json()
    assert [r["game_id"] for r in strict["records"]] == [ids[1], ids[0]]
    fair = client.get("/api/records?mercy=fair&no_guess=true").get_json()["records"]
    assert [(r["game_id"], r["bits"], r["guesses"]) for r in fair] == [(ids[2], 1.58, 1)]
    page = client.get("/records?preset=beginner").get_data(as_text=True)
    assert page.index(ids[1]) < page.index(ids[0])
    assert "helped-mark" in page


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("preset=huge", "preset"),
        ("count=both", "count"),
        ("mercy=kind", "mercy"),
        ("no_guess=maybe", "no_guess"),
    ],
)
def test_record_filters_are_validated(client: FlaskClient, query: str, field: str) -> None:
    response = client.get(f"/api/records?{query}")
    assert response.status_code == 400
    assert response.get_json()["field"] == field


def test_display_names_are_optional_and_validated(app: Flask, api: Api) -> None:
    client = app.test_client()
    token = csrf(client)
    bad = client.post("/records/name", data={"name": "<script>", "csrf_token": token})
    assert bad.status_code == 400
    assert (
        client.post("/records/name", data={"name": "x" * 25, "csrf_token": token}).status_code
        == 400
    )
    page = bad.get_data(as_text=True)  # the records page again: the rule said, the text kept
    assert 'id="name-error"' in page and "any alphabet" in page
    assert 'value="&lt;script&gt;"' in page and 'aria-invalid="true"' in page
    good = client.post("/records/name", data={"name": "Ann B.", "csrf_token": token})
    assert good.status_code == 303 and good.headers["Location"].endswith("/records?saved=1")
    assert "Saved: your games show as <b>Ann B.</b>" in client.get("/records?saved=1").get_data(
        as_text=True
    )
    accented = client.post("/records/name", data={"name": "Émile 日本", "csrf_token": token})
    assert accented.status_code == 303  # any alphabet, in the browser too (no ASCII pattern)
    assert 'pattern="' not in client.get("/records").get_data(as_text=True)
    client.post("/records/name", data={"name": "Ann B.", "csrf_token": token})
    store = app.extensions["mine_devil.ledger"].store
    with client.session_transaction() as session:
        owner = session["owner"]
    game_id = api.create(**SMALL)["id"]
    store.save(ledger_row(game_id, 9.0, owner=owner))
    records = client.get("/api/records").get_json()["records"]
    assert records[0]["name"] == "Ann B."
    assert 'value="Ann B."' in client.get("/records").get_data(as_text=True)
    mine = client.get("/my-games").get_data(as_text=True)
    assert game_id in mine
    assert client.post("/records/name", data={"name": "", "csrf_token": token}).status_code == 303
    assert client.get("/api/records").get_json()["records"][0]["name"] is None


def test_importing_a_replay_lists_its_moves_with_study_links(client: FlaskClient) -> None:
    token = csrf(client, "/analyse")
    data = (REPLAYS / "won-chords.evf").read_bytes()
    response = client.post(
        "/import",
        data={"replay": (io.BytesIO(data), "won-chords.evf"), "csrf_token": token},
        content_type="multipart/form-data",
    )
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert page.count("Study the position before it") == 21
    assert "Move 1 was" in page and 'href="/analyse?p=' in page
    bad = client.post(
        "/import",
        data={"replay": (io.BytesIO(b"\x09garbage"), "x.evf"), "csrf_token": token},
        content_type="multipart/form-data",
    )
    assert bad.status_code == 400
    assert "cannot read x.evf" in bad.get_data(as_text=True)


def test_importing_runs_in_the_heavy_child_and_a_lying_file_is_a_400(make_app: Any) -> None:
    """Judging a file is engine work the file sizes (its clicks can build a numbers lattice):
    it runs in the heavy-work child, never on the worker's loop (three imports of such a file
    once stalled /healthz for seconds), busy children answer 429 at once, and a file whose
    layout contradicts its mine count is a 400 naming the line (it was a 500)."""
    app = make_app(ENGINE_WORK_PROCESSES=1)
    pool = app.extensions["mine_devil.work_pool"]
    try:
        client = app.test_client()
        token = csrf(client, "/analyse")

        def upload(data: bytes, name: str) -> Any:
            return client.post(
                "/import",
                data={"replay": (io.BytesIO(data), name), "csrf_token": token},
                content_type="multipart/form-data",
            )

        good = (REPLAYS / "won-chords.evf").read_bytes()
        assert upload(good, "won-chords.evf").status_code == 200
        assert pool.engines[0]._child is not None  # it ran there
        lie = (
            b"# Mine Devil move list 1\nboard 4x4\nmines 5\nrules counted/strict\n"
            b"layout 0,0 0,3\nmoves\nreveal 3 0\nreveal 0 1\n"
        )
        refused = upload(lie, "lie.moves")
        assert refused.status_code == 400
        assert "line 5, column 8: the layout has 2 mines" in refused.get_data(as_text=True)
        with pool.engines[0]._lock:  # the only child is busy: refused at once
            started = time.monotonic()
            busy = upload(good, "won-chords.evf")
            assert busy.status_code == 429 and busy.headers["Retry-After"] == "1"
            assert time.monotonic() - started < 2.0
    finally:
        pool.close()


def test_positions_export_as_png(client: FlaskClient) -> None:
    from PIL import Image

    response = client.get("/analyse/export.png?p=1..1/1221/0000&count=classic")
    assert response.status_code == 200
    assert response.mimetype == "image/png"
    image = Image.open(io.BytesIO(response.data))
    assert image.size == (4 * 24, 3 * 24)
    safe_green = (0x8F, 0xD6, 0x94)
    mine_red = (0xF0, 0x8A, 0x84)
    # row 0: 1 . . 1 over 1 2 2 1: the two covered cells are both mines
    assert image.getpixel((24 + 3, 3)) == mine_red
    assert safe_green not in [image.getpixel((x * 24 + 3, 3)) for x in range(4)]
    page = client.get("/analyse?p=1..1/1221/0000").get_data(as_text=True)
    assert 'id="export-png" href="/analyse/export.png?' in page
    assert client.get("/analyse/export.png?p=1..1/12x1").status_code == 400


def test_boards_too_big_to_annotate_are_refused_without_work(api: Api, client: FlaskClient) -> None:
    game = api.create(width=250, height=200, mines=1, seed=1, no_guess=False)
    state = api.move(game, "reveal", 0, 0)
    assert state["status"] == "won"
    response = client.get(f"/api/games/{game['id']}/annotations")
    assert response.status_code == 422
    assert "boards over 40000 cells are not annotated" in response.get_json()["error"]
    luck = client.get(f"/g/{game['id']}/luck", headers={"HX-Request": "true"})
    assert "too big for the luck ledger" in luck.get_data(as_text=True)


def test_the_ledger_on_both_databases(make_app: Any, db_url: str) -> None:
    """A won game's entry is computed, saved and read back; records and names work on
    SQLite and PostgreSQL alike."""
    app = make_app(DATABASE_URL=db_url, LEDGER_WARM=False)
    client = app.test_client()
    api = Api(client)
    game, _ = won_game(api)
    body = client.get(f"/api/games/{game['id']}/annotations").get_json()
    ledger = app.extensions["mine_devil.ledger"]
    row = ledger.store.get(game["id"])
    assert row is not None and dict(row.body) == body and row.status == "won"
    ledger.store.set_name("someone", "Zoë")
    ledger.store.save(ledger_row(api.create(**SMALL)["id"], 1.5, owner="someone"))
    records = client.get("/api/records?preset=beginner").get_json()["records"]
    assert records[0]["name"] == "Zoë" and records[0]["seconds"] == 1.5
    custom = client.get("/api/records?preset=custom").get_json()["records"]
    assert [r["game_id"] for r in custom] == [game["id"]]


def test_rebuild_ledger_recomputes_finished_games(app: Flask, api: Api) -> None:
    game, _ = won_game(api)
    running = api.create(**SMALL)
    store = app.extensions["mine_devil.ledger"].store
    result = app.test_cli_runner().invoke(args=["rebuild-ledger"])
    assert result.exit_code == 0, result.output
    assert "Annotated 1 finished games again." in result.output
    assert store.get(game["id"]) is not None
    assert store.get(running["id"]) is None


def test_why_of_a_chord_explains_a_cell_the_chord_opened() -> None:
    """A chord's number is open already, so its proof is no answer: the link explains the
    first neighbour the chord opened (the cascade's farther cells are not the chord's own)."""
    from app.ledger.notes import explained_cell
    from devil.board import Board, Topology

    board = Board(5, 5)
    chord = {"kind": "chord", "row": 1, "col": 1, "opened": [[4, 4], [0, 2], [2, 0]]}
    assert explained_cell(board, chord) == (0, 2)
    reveal = {"kind": "reveal", "row": 3, "col": 3, "opened": [[3, 3], [4, 4]]}
    assert explained_cell(board, reveal) == (3, 3)
    wrapped = {"kind": "chord", "row": 0, "col": 0, "opened": [[4, 4]]}
    assert explained_cell(Board(5, 5, Topology.TORUS), wrapped) == (4, 4)
    assert explained_cell(board, wrapped) == (0, 0)  # nothing around it opened: itself
