"""The annotated replay in Chromium: win a game, read the luck line, step the replay and see
each move judged, follow "Why?" to the analysis board.

Safe cells are decided from the board the page shows by the engine's solver.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from devil.rules import Count
from tests.helpers.browser import (
    act,
    cell_selector,
    click,
    open_first,
    safe_covered,
    start_game,
    status_text,
)
from tests.helpers.browser import visible as visible_position
from tests.helpers.ledger import ledger_row

pytestmark = pytest.mark.browser


def test_the_annotated_replay(page: Page, live_server: str, shots: Path) -> None:
    page.set_viewport_size({"width": 1280, "height": 900})
    game_id = start_game(page, live_server, preset="beginner", count="counted", seed="4")
    position = open_first(page, 4, 4)
    clicks = 1
    while status_text(page) == "Playing":
        safe = safe_covered(visible_position(page, 10), Count.COUNTED)
        click(page, cell_selector(position, safe[0]))
        clicks += 1
        assert clicks < 81
    luck = page.locator("#luck .luck-sentence")
    expect(luck).to_have_text("You needed no luck: every move you made was safe by proof.")
    expect(page.locator("#luck .luck-metrics")).to_contain_text("3BV")
    page.screenshot(path=str(shots / "ledger-end-panel.png"), full_page=True)
    # the replay, from the end panel's link: move 1 is the free first click
    page.click("#end-panel a:has-text('replay with every move judged')")
    page.wait_for_url(re.compile(rf"/g/{game_id}/replay/1$"))
    note = page.locator("#move-note")
    expect(note).to_contain_text("Move 1 was a forced guess: safe by the rules (the first click)")
    # stepping shows each move's proof and level
    act(page, lambda: page.click(".replay-steps a:has-text('Next')"), "answered")
    expect(page.locator("#replay-view")).to_have_attribute("data-n", "2")
    page.wait_for_url(re.compile(rf"/g/{game_id}/replay/2$"))  # the address follows the step
    expect(note).to_have_text(re.compile(r"^Move 2 was a proof, level [1-4] \("))
    expect(note).to_have_class(re.compile(r"\bproof\b"))
    act(page, lambda: page.fill("#replay-n", str(clicks)), "answered")
    expect(note).to_contain_text(f"Move {clicks} was a proof")
    page.screenshot(path=str(shots / "ledger-replay-note.png"), full_page=True)
    # "Why?" opens the analysis board on the position before the move, the cell selected
    page.click("#move-note a.why")
    page.wait_for_url(re.compile(r"/analyse\?"))
    assert "cell=" in page.url
    expect(page.locator("body")).to_contain_text("safe")
    # "my games" lists the game; on a phone its wide table scrolls inside its own box
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server}/my-games")
    expect(page.locator(f".ledger-table a[href='/g/{game_id}/replay/1']")).to_have_count(1)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    box = page.locator(".table-scroll")
    assert box.evaluate("el => el.scrollWidth > el.clientWidth")  # it does scroll, inside


def test_records_per_board_on_desktop_and_phone(
    page: Page, live_app: Any, live_server: str, shots: Path
) -> None:
    """Penrose records at two sizes: one table each, headed by the board and its size, on a
    desktop and on a 390 px phone (the page itself never scrolls sideways)."""
    client = live_app.test_client()
    store = live_app.extensions["mine_devil.ledger"].store
    eighty, two_fifty = "penrose 80: 80 cells, 10 mines", "penrose 250: 250 cells, 39 mines"
    wins = (
        ("beginner", eighty, 21.5),
        ("intermediate", two_fifty, 64.0),
        ("beginner", eighty, 33.0),
    )
    for preset, size, seconds in wins:
        game = client.post("/api/games", json={"tiling": "penrose", "preset": preset}).get_json()
        store.save(ledger_row(game["id"], seconds, preset="penrose", board=f"penrose/{preset}",
                              board_size=size))  # fmt: skip
    for name, viewport in (("desktop", (1280, 900)), ("phone", (390, 844))):
        page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
        page.goto(f"{live_server}/records?preset=penrose")
        headings = page.locator("h2.records-board")
        expect(headings).to_have_count(2)
        expect(headings.nth(0)).to_have_text("beginner · penrose 80: 80 cells, 10 mines")
        expect(headings.nth(1)).to_have_text("intermediate · penrose 250: 250 cells, 39 mines")
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport[0]
        page.screenshot(path=str(shots / f"records-per-board-{name}.png"), full_page=True)
