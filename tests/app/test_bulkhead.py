"""``app.bulkhead``: a few of one kind of heavy work at a time, the rest waiting their turn,
refused with a 429 after the wait bound."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from flask import Flask

from app.bulkhead import Bulkhead
from app.busy import Overloaded
from tests.helpers.world import World


def test_at_most_the_slots_run_at_once() -> None:
    bulkhead = Bulkhead("views", 2, wait_seconds=5.0)
    running, most = [0], [0]
    guard = threading.Lock()

    def work() -> None:
        with bulkhead.slot():
            with guard:
                running[0] += 1
                most[0] = max(most[0], running[0])
            time.sleep(0.02)
            with guard:
                running[0] -= 1

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most[0] == 2


def test_a_request_that_waits_too_long_is_refused_and_the_slot_comes_back() -> None:
    bulkhead = Bulkhead("views", 1, wait_seconds=0.05)
    with bulkhead.slot():
        with pytest.raises(Overloaded, match="busy with other views") as refused, bulkhead.slot():
            pass
        assert refused.value.code == 429
    with bulkhead.slot():  # released after the block, also when it raised
        pass


def test_a_bulkhead_needs_a_slot() -> None:
    with pytest.raises(ValueError, match="at least 1 slot"):
        Bulkhead("views", 0, 1.0)


def test_a_view_waits_for_a_slot_and_says_so_when_none_comes(
    make_app: Callable[..., Flask],
) -> None:
    app = make_app(WORLD_VIEW_SLOTS=1, WORLD_VIEW_WAIT_SECONDS=0.05)
    api = World(app.test_client())
    api.join("Ada", "red", colour=0)
    views: Bulkhead = app.extensions["mine_devil.world.views"]
    with views.slot():  # another view at work
        r = api.client.get(
            "/api/worlds/main/teams/red/view",
            query_string={"colour": 0, "x0": 0, "y0": 0, "width": 8, "height": 8},
        )
    assert r.status_code == 429
    assert "busy with other views" in r.get_json()["error"]
    assert int(r.headers["Retry-After"]) >= 1
    assert api.view("red", 0, 0, 0, 8, 8)["rows"]  # and with the slot free it is drawn
