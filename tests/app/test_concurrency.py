"""Many clicks on one game at once: serialized, nothing lost, duplicated or skipped."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

from flask import Flask

from app.play.moves import Action, Click
from app.play.service import GameService
from app.store.log import Store
from app.store.records import SequenceConflict
from tests.helpers.web import Api, covered_cells, replayed

THREADS = 16
TOGGLES = 6
PARAMS = {"width": 9, "height": 9, "mines": 10, "seed": 5}


def run_threads(target: Callable[[int], None], n: int = THREADS) -> None:
    errors: list[BaseException] = []
    barrier = threading.Barrier(n)

    def wrapped(i: int) -> None:
        try:
            barrier.wait()
            target(i)
        except BaseException as exc:  # re-raised in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=wrapped, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def toggle_storm(apps: list[Flask], game: dict[str, Any], cells: list[tuple[int, int]]) -> None:
    """Thread i toggles the flag on cells[i] TOGGLES times through apps[i % len(apps)]."""

    def click(i: int) -> None:
        client = apps[i % len(apps)].test_client()
        r, c = cells[i]
        for _ in range(TOGGLES):
            response = client.post(
                f"/api/games/{game['id']}/flag",
                json={"row": r, "col": c},
                headers={"Authorization": f"Bearer {game['token']}"},
            )
            assert response.status_code == 200, response.json

    run_threads(click)


def check_log(store: Store, game_id: str, cells: list[tuple[int, int]], first: int) -> None:
    log = store.events(game_id)
    total = first + THREADS * TOGGLES
    assert [e.seq for e in log] == list(range(1, total + 1))
    per_cell: dict[tuple[int, int], list[str]] = {}
    for e in log[first:]:
        assert e.row is not None and e.col is not None
        per_cell.setdefault((e.row, e.col), []).append(e.kind)
    assert set(per_cell) == set(cells)
    for kinds in per_cell.values():
        assert kinds == ["flag", "unflag"] * (TOGGLES // 2)


def test_threads_clicking_one_game_keep_a_gapless_log(make_app, db_url: str) -> None:
    app = make_app(DATABASE_URL=db_url)
    api = Api(app.test_client())
    game = api.create(**PARAMS)
    start = api.move(game, "reveal", 4, 4)
    cells = covered_cells(start)[:THREADS]
    assert len(cells) == THREADS
    toggle_storm([app], game, cells)
    store: Store = app.extensions["mine_devil.store"]
    check_log(store, game["id"], cells, first=1)
    final = api.state(game["id"])
    assert final["moves"] == 1 + THREADS * TOGGLES
    assert final["board"] == start["board"]  # every cell toggled an even number of times
    rebuilt = replayed(store, game["id"])
    assert rebuilt.position.rows() == final["board"]
    assert rebuilt.status.value == final["status"]
    row = store.get_game(game["id"])
    assert row is not None and row.last_seq == row.moves == final["moves"]


def test_two_workers_on_one_database_share_one_log(make_app, db_url: str) -> None:
    """Two apps = two gunicorn workers: separate caches and locks, one database."""
    first, second = make_app(DATABASE_URL=db_url), make_app(DATABASE_URL=db_url)
    api = Api(first.test_client())
    game = api.create(**PARAMS)
    start = api.move(game, "reveal", 4, 4)
    cells = covered_cells(start)[:THREADS]
    Api(second.test_client()).state(game["id"])  # warm the second worker's cache
    toggle_storm([first, second], game, cells)
    store: Store = first.extensions["mine_devil.store"]
    check_log(store, game["id"], cells, first=1)
    one = Api(first.test_client()).state(game["id"])
    two = Api(second.test_client()).state(game["id"])
    assert one == two
    assert replayed(store, game["id"]).position.rows() == one["board"]


def test_simultaneous_reveals_of_one_cell_count_once(make_app, db_url: str) -> None:
    app = make_app(DATABASE_URL=db_url)
    api = Api(app.test_client())
    game = api.create(**PARAMS)
    codes: Counter[int] = Counter()
    lock = threading.Lock()

    def click(_: int) -> None:
        response = app.test_client().post(
            f"/api/games/{game['id']}/reveal",
            json={"row": 4, "col": 4},
            headers={"Authorization": f"Bearer {game['token']}"},
        )
        with lock:
            codes[response.status_code] += 1

    run_threads(click)
    assert codes == Counter({200: 1, 409: THREADS - 1})
    assert [(m["seq"], m["kind"]) for m in api.log(game["id"])] == [(1, "reveal")]


def test_a_move_that_loses_the_race_is_replayed_on_the_new_log(make_app, db_url: str) -> None:
    """Another process appends between our load and our append: we retry, nothing is lost."""
    app = make_app(DATABASE_URL=db_url)
    api = Api(app.test_client())
    game = api.create(**PARAMS)
    start = api.move(game, "reveal", 4, 4)
    (r1, c1), (r2, c2) = covered_cells(start)[:2]
    service: GameService = app.extensions["mine_devil.games"]
    other = GameService(Store(db_url))  # a second worker
    real_append = service.store.append_event
    conflicts: list[SequenceConflict] = []

    def append_after_a_rival(*args: Any, **kwargs: Any) -> Any:
        if not conflicts:
            other.play(game["id"], Click(Action.FLAG, r2, c2))
        try:
            return real_append(*args, **kwargs)
        except SequenceConflict as exc:
            conflicts.append(exc)
            raise

    service.store.append_event = append_after_a_rival  # type: ignore[method-assign]
    state = api.move(game, "flag", r1, c1)
    assert len(conflicts) == 1
    assert state["board"][r1][c1] == "F" and state["board"][r2][c2] == "F"
    assert [(m["seq"], m["row"], m["col"]) for m in api.log(game["id"])][1:] == [
        (2, r2, c2),
        (3, r1, c1),
    ]
    other.store.dispose()
