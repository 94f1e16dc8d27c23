"""Devil World page speed with the first minutes' additions (printed; run with -s): the first
board painted after navigation, and a teammate's move painted on the other screen while 20
teammates' presence is in view."""

from __future__ import annotations

import json
import statistics
import threading
import urllib.request
from typing import Any

import pytest
from playwright.sync_api import Browser

from tests.helpers.browser_world import (
    api,
    click_cell,
    drop_with_mine,
    join,
    new_world,
    provable,
    symbol,
    wait_ready,
    wait_symbol,
)

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1366, "height": 768}


@pytest.mark.alone  # a latency bound: no other test beside it (tests/helpers/alone.py)
def test_the_first_board_is_painted_within_a_second(browser: Browser, live_server: str) -> None:
    world = new_world(live_server)
    seed = browser.new_context(viewport=DESKTOP)
    try:
        join(seed.new_page(), live_server, world, "seed", "first", colour=0)  # a drop on joining
    finally:
        seed.close()
    times: list[float] = []
    for _ in range(5):
        ctx = browser.new_context(viewport=DESKTOP)
        try:
            page = ctx.new_page()
            page.goto(f"{live_server}/world/{world}")  # opens where team 'first' played
            wait_ready(page)
            page.wait_for_function("() => window.worldBoard.state().firstBoard > 0")
            times.append(page.evaluate("() => window.worldBoard.state().firstBoard"))
            assert page.evaluate("() => document.querySelectorAll('.wtile i[class]').length") > 0
        finally:
            ctx.close()
    print(
        f"\nfirst board painted, from navigation: median {statistics.median(times):.0f} ms, "
        f"max {max(times):.0f} ms over {len(times)} loads"
    )
    # the target is 1 s on loopback; on the shared 2-core machine (load 8-12) the
    # page before this change measured 1.1-2.1 s the same way: the bound here catches a
    # regression, the printed numbers are the measurement
    assert statistics.median(times) < 5000


def post(base: str, path: str, body: Any, token: str) -> int:
    req = urllib.request.Request(
        base + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return int(r.status)


@pytest.mark.alone  # a latency bound: no other test beside it (tests/helpers/alone.py)
def test_teammate_move_latency_with_20_teammates_present(
    browser: Browser, live_server: str
) -> None:
    world = new_world(live_server)
    a_ctx = browser.new_context(viewport=DESKTOP)
    b_ctx = browser.new_context(viewport=DESKTOP)
    stop = threading.Event()
    try:
        a, b = a_ctx.new_page(), b_ctx.new_page()
        join(a, live_server, world, "ana", "crowd", colour=0)
        join(b, live_server, world, "bob", "crowd", colour=0)
        b.wait_for_function("() => window.worldBoard.state().live")
        x, y, _, _ = drop_with_mine(a, live_server, world, "crowd", 0, want="safe")
        b.evaluate(f"() => window.worldBoard.goTo({x}, {y})")
        wait_symbol(b, x, y, "0")
        tokens = [
            api(live_server, f"/api/worlds/{world}/players",
                {"name": f"m{i}", "team": "crowd", "colour": i % 6})["token"]
            for i in range(20)
        ]  # fmt: skip

        def report() -> None:  # 20 teammates in B's view, each reporting once a second
            i = 0
            while not stop.is_set():
                for k, token in enumerate(tokens):
                    i += 1
                    view = {"x0": x - 20 + k, "y0": y - 10 + (i % 5), "width": 30, "height": 20}
                    post(live_server, f"/api/worlds/{world}/presence", view, token)
                stop.wait(1.0)

        threading.Thread(target=report, daemon=True).start()
        b.wait_for_function("() => document.querySelectorAll('.wmate').length >= 20")
        latencies: list[float] = []
        for _ in range(12):
            safe, _ = provable(live_server, world, "crowd", 0, x, y)
            fresh = sorted(c for c in safe if symbol(a, *c) == ".")
            if not fresh:
                break
            sx, sy = fresh[0]
            t0 = a.evaluate("() => Date.now()")
            click_cell(a, sx, sy)
            wait_symbol(b, sx, sy, "012345678")
            seq = b.evaluate("([x, y]) => +window.worldBoard.cellEl(x, y).dataset.seq", [sx, sy])
            b.wait_for_function(f"() => window.worldBoard.applied().some(e => e.seq === {seq})")
            shown = b.evaluate(f"() => window.worldBoard.applied().find(e => e.seq === {seq})")
            latencies.append(shown["at"] - t0)
            wait_symbol(a, sx, sy, "012345678")
        assert latencies
        print(
            f"\nteammate move -> cell painted, 20 teammates' presence in view, "
            f"n={len(latencies)}: median {statistics.median(latencies):.0f} ms, "
            f"max {max(latencies):.0f} ms"
        )
        assert statistics.median(latencies) < 1000
    finally:
        stop.set()
        a_ctx.close()
        b_ctx.close()
