"""Teaching, seen as a first-time player sees it: the probability heat map on /analyse (colours
with a legend, the exact percentage on hover and on tap) and the replay board kept in view when
the replay is opened and stepped. Screenshots on a desktop (1366x768) and a phone (390x844),
light and dark, in ``shots``."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from app.teach.analysis import heat_bucket
from devil import oracle
from devil.position import Position
from tests.helpers.browser import (
    PHONE,
    act,
    cell_selector,
    click,
    open_first,
    safe_covered,
    start_game,
    visible,
)

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1366, "height": 768}
VIEWPORTS = [DESKTOP, PHONE]
LINE = "..10001../1110001../000001221/121101.10/...101110/...200000/...101110/...213.20/.......20"
"""Beginner seed 3 after its first click: probabilities 0, 12, 88 and 100 per cent."""


def name(viewport: dict[str, int], scheme: str) -> str:
    return f"{'desktop' if viewport is DESKTOP else 'phone'}-{scheme}"


def percent(p: Fraction) -> str:
    if 0 < p < Fraction(1, 100):
        return "<1%"
    if Fraction(99, 100) < p < 1:
        return ">99%"
    return f"{round(p * 100)}%"


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("viewport", VIEWPORTS, ids=["desktop", "phone"])
def test_the_heat_map_colours_cells_by_their_mine_probability(
    page: Page, live_server: str, shots: Path, viewport: dict[str, int], scheme: str
) -> None:
    page.set_viewport_size(viewport)
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    page.goto(f"{live_server}/analyse?p={LINE}")
    position = Position.from_line(LINE)
    chances = oracle.probabilities(position)
    legend = page.locator("#heat-legend")
    expect(legend).to_be_hidden()
    page.check("#heat-toggle")
    expect(legend).to_be_visible()
    expect(legend.locator(".heat-swatch")).to_have_count(11)
    swatch = {
        n: legend.locator(f".heat-{n}").evaluate("(el) => getComputedStyle(el).backgroundColor")
        for n in range(11)
    }
    assert len(set(swatch.values())) == 11, "every tenth has its own colour"
    for cell, p in chances.items():
        selector = "#a-" + cell_selector(position, cell)[1:]
        bucket = heat_bucket(float(p))
        shown = page.eval_on_selector(selector, "(el) => getComputedStyle(el).backgroundColor")
        assert shown == swatch[bucket], f"{position.where(cell)} at {p} is not coloured {bucket}"
    page.screenshot(path=str(shots / f"teach-heat-map-{name(viewport, scheme)}.png"))
    # the exact percentage: on hover (the tip) and on a tap (the proof panel says it)
    either = next(c for c, p in sorted(chances.items()) if 0 < p < 1)
    selector = "#a-" + cell_selector(position, either)[1:]
    expect(page.locator(selector)).to_have_attribute(
        "data-tip", f"either, mine probability {percent(chances[either])}"
    )
    page.click(selector)
    page.wait_for_url(re.compile(r"cell="))
    expect(page.locator("#proof-chance")).to_contain_text(
        f"Mine probability: {percent(chances[either])}"
    )
    figure = page.locator(".layouts figure").first
    expect(figure).to_be_visible()
    width = page.eval_on_selector("#l0-c-0-0", "(el) => el.getBoundingClientRect().width")
    assert width >= 20, f"the example layouts are readable ({width:.0f} px cells)"
    page.check("#heat-toggle")
    star = page.eval_on_selector(
        ".layouts .cell.lay-mine", "(el) => getComputedStyle(el, '::after').content"
    )
    assert star not in ("none", "normal", ""), "the heat map keeps the example layouts' mines"
    page.screenshot(
        path=str(shots / f"teach-heat-tap-{name(viewport, scheme)}.png"), full_page=True
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("viewport", VIEWPORTS, ids=["desktop", "phone"])
def test_the_replay_board_stays_in_view(
    page: Page, live_server: str, shots: Path, viewport: dict[str, int], scheme: str
) -> None:
    page.set_viewport_size(viewport)
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    start_game(page, live_server, preset="beginner", seed="4")
    position = open_first(page, 4, 4)
    for _ in range(3):
        safe = safe_covered(visible(page))
        click(page, cell_selector(position, safe[0]))
    act(page, lambda: page.click("#replay > summary"), "answered")
    board = page.locator("#replay-board")
    expect(board).to_be_visible()

    def in_view() -> bool:
        box = board.bounding_box()
        assert box is not None
        return bool(box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"])

    assert in_view(), "opening the replay brings its board into view"
    act(page, lambda: page.click(".replay-steps a:has-text('First')"), "answered")
    expect(page.locator("#replay-view")).to_have_attribute("data-n", "0")
    assert in_view(), "stepping keeps the board in view"
    act(page, lambda: page.click(".replay-steps a:has-text('Next')"), "answered")
    expect(page.locator("#replay-view")).to_have_attribute("data-n", "1")
    assert in_view()
    page.screenshot(path=str(shots / f"replay-in-view-{name(viewport, scheme)}.png"))
