"""How the game looks: screenshots on a desktop and a phone-sized viewport (in ``shots``,
default /tmp/shots), plus the layout facts a screenshot shows: the page never scrolls
sideways on a phone (a wide board scrolls inside its frame), hex rows are offset, a torus
shows its wrapped edges, holes are gaps, focus is visible, dark mode changes the palette.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from devil.rules import Count
from tests.helpers.browser import (
    DESKTOP,
    PHONE,
    act,
    cell_selector,
    click,
    open_first,
    risky_covered,
    safe_covered,
    start_game,
    visible,
)

pytestmark = pytest.mark.browser


def box(page: Page, selector: str) -> dict[str, float]:
    found = page.locator(selector).bounding_box()
    assert found is not None, selector
    return dict(found)


def page_width(page: Page) -> int:
    return int(page.evaluate("() => document.documentElement.scrollWidth"))


def play_some(
    page: Page, steps: int, count: Count = Count.CLASSIC, mines: int | None = None
) -> None:
    for _ in range(steps):
        position = visible(page, mines)
        safe = safe_covered(position, count)
        if not safe:
            return
        click(page, cell_selector(position, safe[0]))


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_pages_look_right(page: Page, live_server: str, shots: Path, viewport: Any) -> None:
    name = "desktop" if viewport is DESKTOP else "phone"
    page.set_viewport_size(viewport)
    page.goto("/")
    page.screenshot(path=str(shots / f"home-{name}.png"), full_page=True)
    assert page_width(page) <= viewport["width"], "the home page scrolls sideways"

    start_game(page, live_server, preset="expert", seed="12")
    open_first(page, 8, 15)
    play_some(page, 6)
    page.screenshot(path=str(shots / f"expert-{name}.png"), full_page=True)
    assert page_width(page) <= viewport["width"], "the game page scrolls sideways"
    scroller = page.locator("#game .scroller")
    wide = scroller.evaluate("(el) => el.scrollWidth > el.clientWidth")
    assert wide == (viewport is PHONE), "an expert board scrolls inside its frame on a phone only"
    cell = box(page, "#c-0-0")
    assert cell["width"] >= 24, "cells stay big enough to tap"

    start_game(page, live_server, preset="beginner", seed="12")
    open_first(page, 4, 4)
    assert page.locator("#game .scroller").evaluate("(el) => el.scrollWidth <= el.clientWidth"), (
        "a beginner board fits without scrolling"
    )
    page.screenshot(path=str(shots / f"beginner-{name}.png"), full_page=True)
    page.emulate_media(color_scheme="dark")
    page.screenshot(path=str(shots / f"beginner-dark-{name}.png"), full_page=True)
    covered = cell_selector(visible(page), next(iter(visible(page).covered_cells())))
    dark = page.eval_on_selector(covered, "(el) => getComputedStyle(el).backgroundColor")
    page.emulate_media(color_scheme="light")
    light = page.eval_on_selector(covered, "(el) => getComputedStyle(el).backgroundColor")
    assert dark != light, "dark mode has its own palette"


def test_shapes_render(page: Page, live_server: str, shots: Path) -> None:
    page.set_viewport_size(DESKTOP)
    start_game(page, live_server, preset="intermediate", topology="hex", seed="11")
    open_first(page, 8, 8)
    play_some(page, 4)
    even, odd = box(page, "#c-2-3"), box(page, "#c-3-3")
    shift = odd["x"] - even["x"]
    assert abs(shift - even["width"] / 2) <= 2, f"odd hex rows are shifted half a cell ({shift})"
    assert odd["y"] - even["y"] < even["height"] * 0.8, "hex rows interlock"
    page.screenshot(path=str(shots / "hex-desktop.png"), full_page=True)

    start_game(page, live_server, preset="intermediate", topology="torus", seed="11")
    open_first(page, 8, 8)
    play_some(page, 4)
    ghosts = page.locator("#board .ghost")
    expect(ghosts).to_have_count(2 * 16 + 2 * 16 + 4)
    # a ghost shows what its cell shows
    for ghost_id, real_id in (("g--1-5", "c-15-5"), ("g-3-16", "c-3-0"), ("g-16--1", "c-0-15")):
        ghost_class = page.get_attribute(f"#{ghost_id}", "class") or ""
        real_class = page.get_attribute(f"#{real_id}", "class") or ""
        assert ghost_class.replace(" ghost", "") == real_class
        assert page.text_content(f"#{ghost_id}") == page.text_content(f"#{real_id}")
    assert float(page.eval_on_selector("#g--1-5", "(el) => getComputedStyle(el).opacity")) < 0.6
    page.screenshot(path=str(shots / "torus-desktop.png"), full_page=True)

    start_game(page, live_server, preset="intermediate", topology="holes", seed="11")
    open_first(page, 8, 8)
    holes = page.locator("#board .cell.hole")
    expect(holes).to_have_count(16)
    assert page.locator("#board .cell.hole[tabindex]").count() == 0, "holes are not focusable"
    page.screenshot(path=str(shots / "holes-desktop.png"), full_page=True)


def test_focus_ring_and_end_panels_on_a_phone(page: Page, live_server: str, shots: Path) -> None:
    page.set_viewport_size(PHONE)
    start_game(page, live_server, preset="beginner", seed="3")
    position = open_first(page, 4, 4)
    page.focus("#c-4-4")
    page.keyboard.press("ArrowUp")
    outline = page.eval_on_selector("#c-3-4", "(el) => getComputedStyle(el).outlineStyle")
    assert outline == "solid", "the focused cell has a visible ring"
    page.screenshot(path=str(shots / "focus-phone.png"))
    risky = risky_covered(position)
    click(page, cell_selector(position, risky[len(risky) // 2]))
    expect(page.locator("#end-panel")).to_contain_text("The devil wins")
    assert page_width(page) <= PHONE["width"]
    page.screenshot(path=str(shots / "lost-phone.png"), full_page=True)

    start_game(page, live_server, preset="beginner", count="counted", seed="4")
    open_first(page, 4, 4)
    while (page.text_content("#status .pill") or "").strip() == "Playing":
        position = visible(page, 10)
        click(page, cell_selector(position, safe_covered(position, Count.COUNTED)[0]))
    expect(page.locator("#end-panel")).to_contain_text("You beat the devil")
    act(page, lambda: page.click("#replay > summary"), "answered")
    expect(page.locator("#replay-view")).to_have_attribute(
        "data-n", str(page.input_value("#replay-n"))
    )
    page.screenshot(path=str(shots / "won-phone.png"), full_page=True)
