"""Devil World page measurements (printed; run with -s): the time from a teammate's move to
its cell on screen, and the page's size after panning 1,000 screens over known ground."""

from __future__ import annotations

import json
import statistics
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
    wait_symbol,
)

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}

PAGE_SIZE = """() => ({
  nodes: document.getElementsByTagName('*').length,
  tiles: window.worldBoard.state().tiles,
  heap: performance.memory ? performance.memory.usedJSHeapSize : null,
})"""


PAN_SCREENS = """async ([dx, screens]) => {
  // every screen's tiles land before the next pan (a tile panned out of view before its
  // answer came is dropped uncounted, so without this wait how much known ground the page
  // receives would depend on the machine's load); the loop runs in the page, one call in all
  const landed = () => new Promise((resolve) => {
    const check = () =>
      document.querySelector('.wtile.loading') ? requestAnimationFrame(check) : resolve();
    check();
  });
  let spent = 0;
  for (let i = 0; i < screens; i++) {
    const t = performance.now();
    window.worldBoard.panBy(dx, 0);
    spent += performance.now() - t;
    await landed();
  }
  return spent;
}"""
"""Pans ``screens`` times by ``dx`` pixels, each time waiting for the new tiles to land;
returns the main thread's time inside the pans (tiles built and dropped), in ms."""


@pytest.mark.alone  # a latency bound: no other test beside it (tests/helpers/alone.py)
def test_teammate_move_to_screen_latency(browser: Browser, live_server: str) -> None:
    world = new_world(live_server)
    a_ctx = browser.new_context(viewport=DESKTOP)
    b_ctx = browser.new_context(viewport=DESKTOP)
    try:
        a, b = a_ctx.new_page(), b_ctx.new_page()
        join(a, live_server, world, "ana", "fast", colour=0)
        join(b, live_server, world, "bob", "fast", colour=0)
        b.wait_for_function("() => window.worldBoard.state().live")
        # a drop with a provably safe cell near it (a random world's first drop may have none)
        x, y, _, _ = drop_with_mine(a, live_server, world, "fast", 0, want="safe")
        b.evaluate(f"() => window.worldBoard.goTo({x}, {y})")
        wait_symbol(b, x, y, "0")
        latencies: list[float] = []
        for _ in range(12):
            safe, _ = provable(live_server, world, "fast", 0, x, y)
            fresh = sorted(c for c in safe if symbol(a, *c) == ".")
            if not fresh:
                break
            sx, sy = fresh[0]
            t0 = a.evaluate("() => Date.now()")
            click_cell(a, sx, sy)
            wait_symbol(b, sx, sy, "012345678")
            seq = b.evaluate("([x, y]) => +window.worldBoard.cellEl(x, y).dataset.seq", [sx, sy])
            b.wait_for_function(f"() => window.worldBoard.applied().some(e => e.seq === {seq})")
            shown: dict[str, Any] = b.evaluate(
                f"() => window.worldBoard.applied().find(e => e.seq === {seq})"
            )
            latencies.append(shown["at"] - t0)
            wait_symbol(a, sx, sy, "012345678")
        assert latencies
        print(
            f"\nteammate move -> cell painted on the other screen, n={len(latencies)}: "
            f"median {statistics.median(latencies):.0f} ms, max {max(latencies):.0f} ms"
        )
        assert statistics.median(latencies) < 1000
    finally:
        a_ctx.close()
        b_ctx.close()


def test_memory_after_panning_1000_screens(browser: Browser, live_server: str) -> None:
    world = new_world(live_server)
    ctx = browser.new_context(viewport=DESKTOP)
    try:
        page = ctx.new_page()
        join(page, live_server, world, "roamer", "roam", colour=0)
        # known ground along the path: one raft of drops every 40 cells (no drop limit here)
        created = api(
            live_server,
            f"/api/worlds/{world}/players",
            {"name": "seed", "team": "roam", "colour": 0},
        )
        known_total = 0
        for start in range(0, 40 * 1024, 40 * 256):
            raft = [{"kind": "drop", "x": start + 40 * i, "y": 0} for i in range(256)]
            req = urllib.request.Request(
                f"{live_server}/api/worlds/{world}/moves",
                data=json.dumps({"moves": raft}).encode(),
                headers={
                    "Content-Type": "application/json",
                    "Authorization": f"Bearer {created['token']}",
                },
            )
            with urllib.request.urlopen(req, timeout=60) as r:
                opened = sum(len(m["cells"]) for m in json.loads(r.read())["results"])
                assert opened > 0
                known_total += opened
        page.evaluate("() => window.worldBoard.goTo(0, 0)")
        page.wait_for_function("() => !document.querySelector('.wtile.loading')")
        before = page.evaluate(PAGE_SIZE)
        width = DESKTOP["width"] - 300
        spent = page.evaluate(PAN_SCREENS, [width * 0.9, 1000])
        page.wait_for_timeout(500)
        after = page.evaluate(PAGE_SIZE)
        known = page.evaluate("() => document.querySelectorAll('.wtile i[class]').length")
        print(
            f"\nbefore panning: {before}; after 1,000 screens: {after}; "
            f"known cells in view: {known}; main-thread time per screen panned "
            f"(tiles built and dropped): {spent / 1000:.2f} ms; known cells received while "
            f"panning: {page.evaluate('() => window.worldBoard.state().seen')} "
            f"(the drops opened {known_total})"
        )
        assert page.evaluate("() => window.worldBoard.state().seen") >= 10_000
        assert after["tiles"] <= before["tiles"] * 2
        assert after["nodes"] <= before["nodes"] * 2
    finally:
        ctx.close()
