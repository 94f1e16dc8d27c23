"""Devil World as a stranger meets it (issue 18): joining a new team starts on open ground and a
click on the middle costs no devil error; a click far from the team is a drop request; the
three-step guide; colours explained with their counts and free cells; the minimap; teammates'
presence; the witness that lets the next click through; the time-lapse; coordinates and the
feed's state on load. Each in a new browser context, as a stranger; screenshots in ``shots``."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from devil.world.deduce import deduce
from tests.helpers.browser_world import (
    api,
    click_cell,
    drop_with_mine,
    join,
    new_world,
    state,
    symbol,
    team_view,
    wait_ready,
    wait_symbol,
)

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
HUMAN = "Object.defineProperty(navigator, 'webdriver', {get: () => false})"
"""A stranger's browser (Playwright's says it is automated, and the page then skips the guide)."""


def stranger(browser: Browser, size: dict[str, int] = DESKTOP, **options: Any) -> BrowserContext:
    phone = size == PHONE
    ctx = browser.new_context(viewport=size, has_touch=phone, is_mobile=phone, **options)
    ctx.add_init_script(HUMAN)
    return ctx


def errors_of(base: str, world: str, name: str) -> int:
    board = api(base, f"/api/worlds/{world}/scoreboard")
    (me,) = [p for p in board["players"] if p["name"] == name]
    return int(me["errors"])


def dismiss_guide(page: Page) -> None:
    if page.locator("#guide").is_visible():
        page.click("#guide-close")


@contextmanager
def newcomer(
    browser: Browser, live_server: str, name: str, team: str, colour: int
) -> Iterator[tuple[Page, str]]:
    """A stranger's page on a new world, its guide dismissed, joined as ``name`` of ``team``
    on board ``colour``; (the page, the world). The browser context is closed afterwards."""
    world = new_world(live_server)
    ctx = stranger(browser)
    try:
        page = ctx.new_page()
        page.goto(f"{live_server}/world/{world}")
        dismiss_guide(page)
        join(page, live_server, world, name, team, colour=colour)
        yield page, world
    finally:
        ctx.close()


def board_centre(page: Page) -> tuple[float, float]:
    box = page.locator("#world-board").bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_a_stranger_on_a_phone_joins_with_one_tap(browser: Browser, live_server: str) -> None:
    """A name and (no team yet) a team are suggested: "Join" alone starts a game; before, a
    stranger had to invent both, and an empty team was refused."""
    world = new_world(live_server)
    ctx = stranger(browser, PHONE)
    try:
        page = ctx.new_page()
        page.goto(f"{live_server}/world/{world}")
        page.locator(".join-form button[type=submit]").tap()
        expect(page.locator("#my-name")).to_have_text(re.compile(r"^guest-\d{4}$"))
        wait_ready(page)
        assert state(page)["seen"] > 0 and re.fullmatch(r"team-\d{4}", state(page)["team"])
    finally:
        ctx.close()


def test_a_stranger_joins_a_new_team_and_clicks_the_middle(
    browser: Browser, live_server: str
) -> None:
    world = new_world(live_server)
    ctx = stranger(browser)
    try:
        page = ctx.new_page()
        page.goto(f"{live_server}/world/{world}")
        # nobody plays yet: said so, not "offline"; the join form is open, the guide waits
        expect(page.locator("#live")).to_have_text("no team is playing yet")
        expect(page.locator("#guide")).to_be_hidden()
        join(page, live_server, world, "Carol", "newcomers", colour=0)
        # a new team starts on a drop made on joining: open cells in view, said so
        expect(page.locator("#wmsg")).to_contain_text("Welcome")
        assert state(page)["seen"] > 0
        # the guide: three steps, one at a time, remembered once dismissed
        expect(page.locator("#guide")).to_be_visible()
        steps = page.locator("#guide .guide-steps li:visible")
        expect(steps).to_have_text(re.compile("Only proofs open cells"))
        page.click("#guide-next")
        expect(steps).to_contain_text("Each colour is its own board")
        page.click("#guide-next")
        expect(steps).to_contain_text("Flags help the other colours")
        page.click("#guide-close")
        expect(page.locator("#guide")).to_be_hidden()
        page.reload()
        wait_ready(page)
        expect(page.locator("#guide")).to_be_hidden()  # remembered
        page.mouse.click(*board_centre(page))
        page.wait_for_timeout(600)
        assert errors_of(live_server, world, "Carol") == 0
        # far from anything the team knows, the middle of the board is a drop request
        page.evaluate("() => window.worldBoard.goTo(5000, 5000)")
        wait_ready(page)
        with page.expect_response(lambda r: r.url.endswith("/moves")) as info:
            page.mouse.click(*board_centre(page))
        (result,) = info.value.json()["results"]
        assert result["kind"] == "drop", result
        expect(page.locator("#wmsg")).to_contain_text("Dropped in at")
        assert result["outcome"] == "dropped" and len(result["cells"]) > 1
        wait_symbol(page, *result["at"], "0")  # the drop's cells open on the board
        assert errors_of(live_server, world, "Carol") == 0
        # during the cooldown the click says how long to wait, and sends nothing
        page.evaluate("() => window.worldBoard.startCooldown(25)")
        page.evaluate("() => window.worldBoard.goTo(-9000, 7000)")
        wait_ready(page)
        sent: list[str] = []
        page.on("request", lambda r: sent.append(r.url) if r.url.endswith("/moves") else None)
        page.mouse.click(*board_centre(page))
        expect(page.locator("#wmsg")).to_contain_text("your next drop is possible in 2")
        expect(page.locator("#wmsg .msg-action")).to_have_text("Back to my team")
        assert sent == []
        page.click("#wmsg .msg-action")
        wait_ready(page)
        assert errors_of(live_server, world, "Carol") == 0
    finally:
        ctx.close()


def test_coordinates_and_the_feed_are_right_on_load(browser: Browser, live_server: str) -> None:
    world = new_world(live_server)
    ctx = stranger(browser)
    try:
        page = ctx.new_page()
        page.goto(f"{live_server}/world/{world}?x=80&y=0")
        expect(page.locator("#coords")).to_have_text("x 80, y 0")
        expect(page.locator("#live")).to_have_text("no team is playing yet")
        # a styled Join: the accent button, not a bare link
        colour = page.eval_on_selector(".join summary", "e => getComputedStyle(e).backgroundColor")
        assert colour not in ("rgba(0, 0, 0, 0)", "transparent"), colour
    finally:
        ctx.close()


def flagged_mine(page: Page, base: str, world: str, team: str, colour: int) -> tuple[int, int]:
    x, y, _, mines = drop_with_mine(page, base, world, team, colour)
    mx, my = min(mines, key=lambda c: (abs(c[0] - x) + abs(c[1] - y), c))
    click_cell(page, mx, my, button="right")
    wait_symbol(page, mx, my, "F")
    return mx, my


def test_switching_colour_says_what_the_board_holds(browser: Browser, live_server: str) -> None:
    with newcomer(browser, live_server, "Dana", "painters", colour=0) as (page, world):
        mx, my = flagged_mine(page, live_server, world, "painters", 0)
        # the picker counts the team's cells and flags per board
        page.wait_for_function(
            "() => /· [1-9][0-9]* open · [1-9][0-9]* ⚑/.test("
            "document.querySelector('#colour-select option[value=\"0\"]').textContent)",
        )
        page.select_option("#colour-select", "2")
        message = page.locator("#wmsg")
        expect(message).to_contain_text(
            "Each colour is its own board: your team has 0 cells open as green, and"
        )
        expect(message).to_contain_text("free cell")
        expect(message).not_to_contain_text("and 0 free cells")
        # go to the nearest free cell: it is the red flag, a safe ✱ on green
        message.locator(".msg-action", has_text="nearest free cell").click()
        wait_symbol(page, mx, my, "*")
        cursor = state(page)["cursor"]
        assert cursor is not None and symbol(page, cursor["x"], cursor["y"]) == "*"
        expect(page.locator("#free-count")).to_contain_text("free cell")
        expect(page.locator("#free-count")).to_contain_text("in view")
        # a ✱ is provably safe on green: clicking it opens it, no devil error
        click_cell(page, cursor["x"], cursor["y"])
        wait_symbol(page, cursor["x"], cursor["y"], "012345678")
        assert errors_of(live_server, world, "Dana") == 0


def test_the_minimap_moves_the_view(browser: Browser, live_server: str) -> None:
    with newcomer(browser, live_server, "Eve", "mappers", colour=1) as (page, _):
        expect(page.locator("#minimap")).to_be_visible()
        before = page.evaluate("() => window.worldBoard.centre()")
        box = page.locator("#minimap-canvas").bounding_box()
        assert box is not None
        page.mouse.click(box["x"] + 6, box["y"] + 6)  # the map's top-left corner
        expect(page.locator("#wmsg")).to_contain_text("from the map")
        after = page.evaluate("() => window.worldBoard.centre()")
        assert after["x"] < before["x"] - 64 and after["y"] < before["y"] - 64, (before, after)
        # back to my team: where the team was busy
        page.click("#back-to-team")
        back = page.evaluate("() => window.worldBoard.centre()")
        assert abs(back["x"] - before["x"]) <= 64 and abs(back["y"] - before["y"]) <= 64


def test_a_teammates_presence_appears_and_disappears(browser: Browser, live_server: str) -> None:
    world = new_world(live_server)
    a_ctx, b_ctx = stranger(browser), stranger(browser)
    try:
        a, b = a_ctx.new_page(), b_ctx.new_page()
        for page in (a, b):
            page.goto(f"{live_server}/world/{world}")
            dismiss_guide(page)
        join(a, live_server, world, "Finn", "pairs", colour=0)
        join(b, live_server, world, "Gus", "pairs", colour=3)
        b.wait_for_function("() => window.worldBoard.state().live")
        a.evaluate("() => window.worldBoard.panBy(40, 0)")  # a view change: reported
        mate = b.locator(".wmate", has_text="Finn")
        expect(mate).to_be_visible()
        assert "c0" in (mate.get_attribute("class") or "")  # Finn plays red
        # nothing of a cell in what presence sent
        mates = b.evaluate("() => window.worldMates()")
        assert all(set(m) <= {"p", "n", "c", "x0", "y0", "w", "h", "x", "y"} for m in mates)
        # Finn leaves the page: gone from Gus's board
        a.goto("about:blank")
        expect(b.locator(".wmate", has_text="Finn")).to_have_count(0)
    finally:
        a_ctx.close()
        b_ctx.close()


def frontier_risk(
    base: str, world: str, team: str, colour: int, sx: int, sy: int
) -> tuple[int, int] | None:
    """A covered frontier cell, not provable either way, nearest the safe cell (sx, sy)."""
    rows = team_view(base, world, team, colour, sx - 32, sy - 32)
    found = deduce(rows, sx - 32, sy - 32)

    def at(x: int, y: int) -> str:
        return rows[y - sy + 32][x - sx + 32]

    risky = [
        (x, y)
        for x in range(sx - 8, sx + 9)
        for y in range(sy - 6, sy + 7)
        if at(x, y) == "."
        and (x, y) not in found.safe | found.mines
        and any(at(x + dx, y + dy) in "12345678" for dx in (-1, 0, 1) for dy in (-1, 0, 1))
    ]
    return min(risky, key=lambda c: (abs(c[0] - sx) + abs(c[1] - sy), c)) if risky else None


def test_the_next_click_closes_the_witness_and_plays(browser: Browser, live_server: str) -> None:
    with newcomer(browser, live_server, "Hal", "testers", colour=0) as (page, world):
        _, _, safe, _ = drop_with_mine(page, live_server, world, "testers", 0, want="safe")
        sx, sy = sorted(safe)[0]
        risky = frontier_risk(live_server, world, "testers", 0, sx, sy) or (sx + 400, sy)
        page.evaluate("([x, y]) => window.worldBoard.move('reveal', x, y)", list(risky))
        expect(page.locator(".wwitness")).to_be_visible()
        expect(page.locator("#wmsg")).to_contain_text("Devil error")
        page.wait_for_timeout(7000)  # longer than any message lasts: the witness's stays
        expect(page.locator("#wmsg")).to_contain_text("Devil error")
        page.evaluate(f"() => window.worldBoard.goTo({sx}, {sy})")
        wait_ready(page)
        click_cell(page, sx, sy)  # through the witness, if it covers the cell
        wait_symbol(page, sx, sy, "012345678")
        expect(page.locator(".wwitness")).to_have_count(0)
        expect(page.locator("#wmsg")).not_to_contain_text("Devil error")
        # Esc and the close button close it too
        for close in ("Escape", ".wclose"):
            page.evaluate("([x, y]) => window.worldBoard.move('reveal', x, y)", [sx + 700, sy])
            expect(page.locator(".wwitness")).to_be_visible()
            if close == "Escape":
                page.locator("#world-board").focus()
                page.keyboard.press("Escape")
            else:
                page.click(".wclose")
            expect(page.locator(".wwitness")).to_have_count(0)


def test_the_time_lapse_plays_from_empty_to_now(browser: Browser, live_server: str) -> None:
    with newcomer(browser, live_server, "Ivy", "lapsers", colour=0) as (page, world):
        x, y, safe, _ = drop_with_mine(page, live_server, world, "lapsers", 0)
        for cell in sorted(safe)[:3]:
            page.evaluate("([x, y]) => window.worldBoard.move('reveal', x, y)", list(cell))
        page.wait_for_timeout(300)
        page.evaluate(f"() => window.worldBoard.goTo({x}, {y})")
        wait_ready(page)
        page.click("#timelapse-link")
        page.wait_for_function("() => window.timelapse && window.timelapse.state().loaded")
        page.wait_for_function(
            "() => { const s = window.timelapse.state();"
            " return s.frames > 0 && s.shown === s.frames; }"
        )
        link = page.url
        box = page.locator("#lapse")
        x0, y0 = int(box.get_attribute("data-x0") or 0), int(box.get_attribute("data-y0") or 0)
        w, h = int(box.get_attribute("data-width") or 0), int(box.get_attribute("data-height") or 0)
        assert w <= 256 and h <= 256
        rows = page.evaluate("() => window.timelapse.rows()")
        query = f"colour=0&x0={x0}&y0={y0}&width={w}&height={h}"
        view = api(live_server, f"/api/worlds/{world}/teams/lapsers/view?{query}")["rows"]
        assert rows == view  # the last frame is the team's knowledge now
        page.evaluate("() => window.timelapse.show(0)")
        assert all(set(r) == {"."} for r in page.evaluate("() => window.timelapse.rows()"))
        # the link is shareable: a watcher who never joined opens it and sees the same
        other = stranger(browser)
        try:
            watcher = other.new_page()
            watcher.goto(link)
            watcher.wait_for_function("() => window.timelapse && window.timelapse.state().loaded")
            watcher.wait_for_function(
                "() => { const s = window.timelapse.state(); return s.shown === s.frames; }"
            )
            assert watcher.evaluate("() => window.timelapse.rows()") == view
        finally:
            other.close()


def test_screenshots_of_the_first_minutes(browser: Browser, live_server: str, shots: Path) -> None:
    """Desktop and phone, light and dark: the guide, play with a teammate and the map, a
    colour switch explained, a witness, the time-lapse."""
    with newcomer(browser, live_server, "Mona", "shots", 2) as (mate, world):
        mx, my = flagged_mine(mate, live_server, world, "shots", 2)
        for size_name, size in (("desktop", DESKTOP), ("phone", PHONE)):
            for scheme in ("light", "dark"):
                tag = f"{size_name}-{scheme}"
                ctx = stranger(browser, size, color_scheme=scheme)
                try:
                    page = ctx.new_page()
                    page.goto(f"{live_server}/world/{world}")
                    expect(page.locator("#guide")).to_be_visible()
                    wait_ready(page)
                    page.screenshot(path=str(shots / f"world18-guide-{tag}.png"))
                    dismiss_guide(page)
                    join(page, live_server, world, f"Nia-{tag}", "shots", colour=0)
                    page.evaluate(f"() => window.worldBoard.goTo({mx}, {my})")
                    wait_ready(page)
                    mate.evaluate(f"() => window.worldBoard.goTo({mx + 6}, {my + 4})")
                    expect(page.locator(".wmate", has_text="Mona")).to_be_visible()
                    page.wait_for_timeout(400)
                    page.screenshot(path=str(shots / f"world18-play-{tag}.png"))
                    page.select_option("#colour-select", "1")
                    expect(page.locator("#wmsg")).to_contain_text("Each colour is its own board")
                    page.wait_for_timeout(300)
                    page.screenshot(path=str(shots / f"world18-colour-{tag}.png"))
                    page.select_option("#colour-select", "0")
                    page.wait_for_timeout(300)
                    c = page.evaluate("() => window.worldBoard.centre()")
                    page.evaluate(
                        "([x, y]) => window.worldBoard.move('reveal', x, y)",
                        [c["x"] + 3, c["y"] - 3],
                    )
                    expect(page.locator(".wwitness")).to_be_visible()
                    page.wait_for_timeout(2600)
                    page.screenshot(path=str(shots / f"world18-witness-{tag}.png"))
                    page.click("#timelapse-link")
                    page.wait_for_function(
                        "() => window.timelapse && window.timelapse.state().loaded"
                    )
                    page.wait_for_function(
                        "() => { const s = window.timelapse.state(); return s.shown === s.frames; }"
                    )
                    page.screenshot(path=str(shots / f"world18-timelapse-{tag}.png"))
                    width = page.evaluate("() => document.documentElement.scrollWidth")
                    assert width <= size["width"], (tag, width)
                finally:
                    ctx.close()


def test_presence_reports_are_coalesced(browser: Browser, live_server: str) -> None:
    """Panning a whole second sends a few presence reports, not one per frame."""
    with newcomer(browser, live_server, "Ola", "panners", colour=0) as (page, _):
        page.wait_for_timeout(500)
        sent: list[Any] = []
        page.on(
            "request",
            lambda r: (
                sent.append(json.loads(r.post_data or "{}"))
                if r.url.endswith("/presence")
                else None
            ),
        )
        started = time.monotonic()
        for _ in range(60):  # 60 view changes
            page.evaluate("() => window.worldBoard.panBy(7, 3)")
            page.wait_for_timeout(16)
        page.wait_for_timeout(700)
        seconds = time.monotonic() - started
        # one report a second at most, whatever the number of changes
        assert 1 <= len(sent) <= seconds / 1.0 + 1, (len(sent), seconds)
        assert len(sent) < 30
        assert all("cells" not in s for s in sent)
