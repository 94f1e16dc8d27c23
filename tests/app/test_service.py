"""The game service behind the API and the pages (``app.play.service``): the log over the cache,
clicks resolved on the newest state, hints as logged events, bounded caches, replays."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

from app.play.moves import Action, Click, parse_click
from tests.helpers.web import SMALL, Api, play_to_win, safe_or_any


def service_of(app: Flask):  # -> app.play.service.GameService
    return app.extensions["mine_devil.games"]


def test_cache_is_never_trusted_over_the_log(app: Flask, api: Api) -> None:
    """Another process appends to the log: the next load sees it, not the stale cache."""
    from app.play.service import GameService
    from app.store.log import Store

    game = api.create(**SMALL)
    state = api.move(game, "reveal", 2, 2)
    cell = safe_or_any(state)
    other = GameService(Store(app.config["DATABASE_URL"]))
    other.play(game["id"], Click(Action.FLAG, *cell))
    assert api.state(game["id"])["board"][cell[0]][cell[1]] == "F"
    assert service_of(app).load(game["id"]).seq == 2
    other.store.dispose()


def test_click_reveals_covered_cells_and_chords_numbers(app: Flask, api: Api) -> None:
    game = api.create(width=7, height=7, mines=7, seed=3)
    service = service_of(app)
    _, after = service.play(game["id"], Click(Action.OPEN, 3, 3))
    assert after.game.moves[-1].kind.value == "reveal"
    number = next(
        (r, c)
        for r, row in enumerate(after.game.position.rows())
        for c, ch in enumerate(row)
        if ch in "12345678"
    )
    from devil.errors import IllegalMove

    with pytest.raises(IllegalMove, match=r"^chord .* flagged neighbours"):
        service.play(game["id"], Click(Action.OPEN, *number))  # a chord, refused: no flags around
    with pytest.raises(ValueError, match="action must be one of"):
        parse_click("explode", 0, 0, service.params(service.record(game["id"])))


def test_changed_cells_lists_what_a_click_changed(app: Flask, api: Api) -> None:
    from devil.game import changed_between

    game = api.create(**SMALL)
    before, after = service_of(app).play(game["id"], Click(Action.REVEAL, 2, 2))
    board = after.game.position.board
    changed = [board.coord(c) for c in changed_between(before.game.position, after.game.position)]
    old, new = before.game.position.rows(), after.game.position.rows()
    expected = [(r, c) for r in range(6) for c in range(6) if old[r][c] != new[r][c]]
    assert changed == expected and (2, 2) in changed
    _, flagged = service_of(app).play(
        game["id"], Click(Action.FLAG, *safe_or_any(after_state(after)))
    )
    assert [
        board.coord(c) for c in changed_between(after.game.position, flagged.game.position)
    ] == [safe_or_any(after_state(after))]


def after_state(loaded: Any) -> dict[str, Any]:
    return {"board": loaded.game.position.rows()}


def test_hints_are_logged_events_that_do_not_change_the_game(app: Flask, api: Api) -> None:
    from app.errors import InputError

    game = api.create(**SMALL)
    state = api.move(game, "reveal", 2, 2)
    service = service_of(app)
    assert service.hints_used(game["id"]) == 0
    assert service.record_hint(game["id"], 1) == 1
    assert service.record_hint(game["id"], 2, row=0, col=1) == 2
    assert service.hints_used(game["id"]) == 2
    log = api.log(game["id"])
    assert [(m["seq"], m["kind"]) for m in log] == [(1, "reveal"), (2, "hint"), (3, "hint")]
    assert (log[2]["level"], log[2]["row"], log[2]["col"]) == (2, 0, 1)
    assert api.state(game["id"]) == state  # a hint is not a move
    assert client_replay(api, game["id"], 1) == state
    after = api.move(game, "flag", *safe_or_any(state))
    assert after["moves"] == 2 and api.log(game["id"])[-1]["seq"] == 4
    for bad in (-1, True, "2", 101):
        with pytest.raises(InputError) as info:
            service.record_hint(game["id"], bad)  # type: ignore[arg-type]
        assert info.value.field == "level"
    with pytest.raises(InputError):
        service.record_hint(game["id"], 1, row=6, col=0)
    assert service.hints_used(game["id"]) == 2
    # a fresh service (a restart) counts the hints from the log
    from app.play.service import GameService

    assert GameService(service.store).hints_used(game["id"]) == 2


def client_replay(api: Api, game_id: str, n: int) -> dict[str, Any]:
    response = api.client.get(f"/api/games/{game_id}/replay/{n}")
    assert response.status_code == 200
    body: dict[str, Any] = response.get_json()
    return body


def test_browser_games_are_limited_to_200_per_side() -> None:
    from app.errors import InputError
    from app.play.params import BROWSER_MAX_SIDE, parse_params

    assert parse_params({"width": 200, "height": 200}, max_side=BROWSER_MAX_SIDE).width == 200
    with pytest.raises(InputError, match="width 201 is out of range: allowed 1 to 200"):
        parse_params({"width": 201}, max_side=BROWSER_MAX_SIDE)
    params = parse_params({"preset": "beginner", "no_guess": "off", "seed": "42"})
    assert (params.height, params.width, params.mines) == (9, 9, 10)
    assert params.no_guess is False and params.seed == 42
    scaled = parse_params({"width": 100, "height": 100})
    assert scaled.mines == round(100 * 100 * 99 / 480)  # expert density
    assert parse_params({}).seed != parse_params({}).seed  # a secret random seed by default


def test_caches_are_bounded_by_board_cells(app: Flask, api: Api) -> None:
    service = service_of(app)
    service.cache_cells = 25_000
    ids = [api.create(width=100, height=100, mines=10, seed=i)["id"] for i in range(4)]
    for game_id in ids:
        service.load(game_id)
    assert list(service._live) == ids[-2:]  # two 100x100 games fit in 25,000 cells
    for game_id in ids:  # evicted games still load, from the log
        assert api.state(game_id)["width"] == 100


def test_replays_built_from_cached_prefixes_match_a_fresh_replay(app: Flask, api: Api) -> None:
    import random

    from devil.game import Game, GameParams, Move, MoveKind

    game = api.create(**SMALL)
    play_to_win(api, game, (2, 2))
    store = app.extensions["mine_devil.store"]
    row = store.get_game(game["id"])
    moves = [Move(MoveKind(e.kind), e.row, e.col) for e in store.events(game["id"])]
    params = GameParams.from_dict(dict(row.params))
    order = list(range(len(moves) + 1))
    random.Random(5).shuffle(order)
    service_of(app).forget()
    for n in order + order:
        got = service_of(app).replay(game["id"], n)
        fresh = Game.replay(params, moves[:n])
        assert (got.position, got.status, got.moves) == (fresh.position, fresh.status, fresh.moves)
