"""An automated accessibility audit: axe-core (``axe-playwright-python``, which ships axe's
script) on every page type, desktop and phone, light and dark, at WCAG 2.2 A and AA.

Every rule runs on every element, with one exception, named here with its reason:

``scrollable-region-focusable`` is not run on a game board's scroll frame (``.scroller``).
A wide board scrolls inside that frame, and axe wants the frame itself to take focus so a
keyboard user can scroll it. The board is an ARIA grid with a roving tab stop: the arrow keys
move focus from cell to cell and the browser scrolls the focused cell into view, so a focusable
frame would only add a useless tab stop before the grid (keyboard play is tested in
``test_play.py::test_play_by_keyboard``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from devil import oracle
from devil.analysis import Verdict
from devil.position import Position
from tests.helpers.accessibility import audit
from tests.helpers.browser import LINE, PHONE, act, start_game
from tests.helpers.browser_world import join, new_world

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1366, "height": 768}


# -- reaching each page ---------------------------------------------------------------


def new_game(page: Page, seed: int) -> tuple[str, str, Position]:
    """A beginner game made through the API by this browser (which owns it, having started a
    game on the home page), its first click made."""
    made = page.request.post("/api/games", data={"preset": "beginner", "seed": seed}).json()
    game_id, token = made["id"], made["token"]
    state = move(page, game_id, token, "reveal", 4, 4)
    return game_id, token, Position.from_rows(state["board"])


def move(page: Page, game_id: str, token: str, kind: str, row: int, col: int) -> dict[str, Any]:
    response = page.request.post(
        f"/api/games/{game_id}/{kind}",
        data={"row": row, "col": col},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.ok, response.text()
    state: dict[str, Any] = response.json()
    return state


def verdicts(position: Position) -> dict[int, Verdict]:
    return dict(oracle.classify(position).verdicts)


def lose(page: Page, game_id: str, token: str, position: Position) -> None:
    risky = sorted(c for c, v in verdicts(position).items() if v is not Verdict.SAFE)
    move(page, game_id, token, "reveal", *position.board.coord(risky[0]))


def win(page: Page, game_id: str, token: str, position: Position) -> None:
    for _ in range(81):
        safe = sorted(c for c, v in verdicts(position).items() if v is Verdict.SAFE)
        if not safe:
            return
        state = move(page, game_id, token, "reveal", *position.board.coord(safe[0]))
        if state["status"] != "playing":
            assert state["status"] == "won"
            return
        position = Position.from_rows(state["board"])


def pages(page: Page, base: str, browser: Browser) -> Iterator[str]:
    """Open each page type in turn, yielding its name once it is ready to audit."""
    page.goto("/")
    yield "the home page"
    start_game(page, base, preset="beginner", seed="3")  # this browser now owns its games
    act(page, lambda: page.click("#c-4-4"))
    yield "a game being played"
    page.click("#hint-button")
    expect(page.locator("#hints .hint-answer")).to_have_count(1)
    yield "a game with a hint answered"
    game_id, token, position = new_game(page, 3)
    lose(page, game_id, token, position)
    page.goto(f"/g/{game_id}")
    expect(page.locator("#end-panel")).to_contain_text("The devil wins")
    yield "a lost game"
    page.goto(f"/g/{game_id}/replay/1")
    yield "a replay"
    won_id, won_token, won_position = new_game(page, 4)
    win(page, won_id, won_token, won_position)
    page.goto(f"/g/{won_id}")
    expect(page.locator("#end-panel")).to_contain_text("You beat the devil")
    yield "a won game"
    page.goto(f"/analyse?p={LINE}&cell=1,1")
    yield "the analysis board, an either cell's proof"
    page.check("#heat-toggle")
    yield "the analysis board's heat map"
    page.goto("/analyse/graph?tiling=geodesic&preset=beginner&seed=3")
    yield "the graph analysis board"
    page.goto("/puzzle")
    yield "the puzzle page"
    page.locator("form.level-form button[type=submit]").click()
    expect(page.locator("#level-note")).to_be_visible()
    yield "a level board"
    page.goto("/records")
    yield "the records"
    page.goto("/my-games")
    yield "my games"
    world = new_world(base)
    page.goto(f"/world/{world}")
    yield "a world watched"
    join(page, base, world, "Ada", "Reds")
    yield "a world joined"
    page.goto("/duel")
    yield "the new-duel page"
    page.check("input[name=preset][value=beginner]")
    page.click(".duel-form button[type=submit]")
    expect(page.locator(".racer.waiting")).to_contain_text("not here yet")
    yield "a duel"
    response = page.goto("/no/such/page")
    assert response is not None and response.status == 404
    yield "the 404 page"
    response = page.goto("/g/nosuchgame")
    assert response is not None and response.status == 404
    yield "an unknown game"


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_every_page_passes_axe_at_wcag_22_aa(
    browser: Browser, live_server: str, viewport: dict[str, int], scheme: str
) -> None:
    context = browser.new_context(
        base_url=live_server,
        viewport=viewport,
        color_scheme=scheme,  # type: ignore[arg-type]
        is_mobile=viewport is PHONE,
        has_touch=viewport is PHONE,
    )
    try:
        page = context.new_page()
        audited, failures = [], []
        for what in pages(page, live_server, browser):
            size = f"{viewport['width']}x{viewport['height']}"
            failures.append(audit(page, f"{what} ({scheme}, {size})"))
            audited.append(what)
        assert len(audited) == 19
        assert not any(failures), "\n".join(f for f in failures if f)
    finally:
        context.close()


def test_a_phones_targets_are_a_finger_wide(page: Page) -> None:
    """On a 390 px phone the site's links and a game's controls are at least 24 px in both
    directions (WCAG 2.5.8): the header's links were 23 px tall (three rows of them), the
    replay's slider 16 px."""
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    page.goto("/")
    page.click("button[type=submit]:has-text('Start')")
    page.wait_for_url("**/g/*")
    page.click("#replay > summary")  # its slider was 16 px tall
    expect(page.locator("#replay-view:not(.pending)")).to_be_visible()
    small = page.evaluate(
        "() => Array.from(document.querySelectorAll('.site-header a, #main button, #main select,"
        " #main input:not([type=hidden])')).map(e => [e, e.getBoundingClientRect()])"
        ".filter(([e, r]) => e.checkVisibility() && (r.width < 24 || r.height < 24)"
        "  && !e.closest('label'))"
        ".map(([e, r]) => `${e.outerHTML.slice(0, 60)} ${r.width | 0}x${r.height | 0}`)"
    )
    assert small == [], small
