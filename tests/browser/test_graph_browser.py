"""The graph analysis board in Chromium: a Penrose and a cube board drawn, a safe cell chosen
by click and by keyboard, its proof shown; screenshots on desktop and phone, light and dark."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, ViewportSize, expect

DESKTOP: ViewportSize = {"width": 1366, "height": 768}
PHONE: ViewportSize = {"width": 390, "height": 844}


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("tiling=penrose&preset=beginner&seed=2", "penrose"),
        ("tiling=cube&preset=intermediate&seed=5&view=flat", "cube"),
    ],
)
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_choose_a_safe_cell_and_read_why(
    page: Page, live_server: str, shots: Path, query: str, name: str, scheme: str
) -> None:
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(size)
        page.goto(f"{live_server}/analyse/graph?{query}")
        if label == "phone":  # 216 cells: the cube's net, turned a quarter, fits the frame
            frame = page.locator(".graph-frame")
            assert frame.evaluate("(el) => el.scrollWidth <= el.clientWidth"), "it scrolls sideways"
        safe = page.locator(".graph-board .cell.safe:not(.back)").first
        expect(safe).to_be_visible()
        cell_id = safe.get_attribute("data-cell")
        safe.focus()  # its ring is drawn over its neighbours (its outline was half under theirs)
        expect(page.locator(".graph-board .focus-ring")).to_have_count(1)
        safe.click()
        proof = page.locator("#graph-proof")
        expect(proof).to_contain_text(f"{cell_id}: safe")
        expect(proof.locator("li").last).to_contain_text(f"{cell_id} is safe")
        page.screenshot(path=str(shots / f"graph-{name}-{label}-{scheme}.png"), full_page=True)


def test_keyboard_chooses_a_cell(page: Page, live_server: str) -> None:
    page.set_viewport_size(DESKTOP)
    page.goto(f"{live_server}/analyse/graph?tiling=geodesic&preset=beginner&seed=3")
    mine = page.locator(".graph-board .cell.mine:not(.back)").first
    cell_id = mine.get_attribute("data-cell")
    mine.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#graph-proof")).to_contain_text(f"{cell_id}: mine")
    # the board is one tab stop, the chosen cell; the arrow keys move on to another cell
    stop = page.locator('.graph-board [data-cell][tabindex="0"]')
    expect(stop).to_have_count(1)
    assert stop.get_attribute("data-cell") == cell_id
    stop.focus()
    page.keyboard.press("ArrowLeft")
    moved = page.evaluate("() => document.activeElement.dataset.cell")
    assert moved and moved != cell_id


def test_paste_a_bad_file_names_the_path(page: Page, live_server: str) -> None:
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server}/analyse/graph")
    page.fill(
        "#graph-text",
        '{"format": "mine-devil-graph", "version": 1, "cells": [{"id": "a", "state": "."}],'
        ' "edges": [["a", "b"]]}',
    )
    page.click("#graph-paste button[name=to_step]")
    expect(page.locator("#graph-error")).to_contain_text("edges[0]: unknown id 'b'")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_step_by_step_highlights_each_deduction(
    page: Page, live_server: str, shots: Path, scheme: str
) -> None:
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(size)
        page.goto(f"{live_server}/analyse/graph?tiling=penrose&preset=beginner&seed=2")
        expect(page.locator("#steps-summary")).to_contain_text("Start with First")
        page.click("#graph-stepper .step-first")
        expect(page.locator("#step-head")).to_contain_text("Step 1 of")
        found = page.locator(".graph-board .hl-new-safe, .graph-board .hl-new-mine")
        expect(found.first).to_be_visible()
        cell_id = found.first.get_attribute("data-cell")
        expect(page.locator("#step-text")).to_contain_text(f"cell {cell_id}")
        page.click("#graph-stepper .step-forward")
        expect(page.locator("#step-head")).to_contain_text("Step 2 of")
        expect(page.locator(f'.graph-board [data-cell="{cell_id}"]')).to_have_class(
            re.compile(r"known-(safe|mine)")
        )
        page.screenshot(path=str(shots / f"graph-steps-{label}-{scheme}.png"), full_page=True)


def _front_ids(page: Page) -> set[str]:
    ids: list[str] = page.eval_on_selector_all(
        ".graph-board.solid [data-p3]:not(.back)", "els => els.map(e => e.dataset.cell)"
    )
    return set(ids)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_sphere_turns_by_drag_keys_and_buttons(
    page: Page, live_server: str, shots: Path, scheme: str
) -> None:
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    page.set_viewport_size(DESKTOP)
    page.goto(f"{live_server}/analyse/graph?tiling=geodesic&preset=intermediate&seed=3")
    board = page.locator(".graph-board.solid")
    expect(board).to_be_visible()
    page.screenshot(path=str(shots / f"graph-sphere-desktop-{scheme}.png"), full_page=True)
    start = _front_ids(page)
    assert 0.35 < len(start) / board.locator("[data-p3]").count() < 0.65
    box = board.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 120, y, steps=6)
    page.mouse.up()
    dragged = _front_ids(page)
    assert dragged != start
    assert "#graph-proof" not in page.url and page.locator("#graph-proof").count() == 0
    board.focus()
    for _ in range(6):
        page.keyboard.press("ArrowUp")
    keyed = _front_ids(page)
    assert keyed != dragged
    page.set_viewport_size(PHONE)
    page.locator(".solid-turn[data-turn=left]").click()
    assert _front_ids(page) != keyed
    page.screenshot(path=str(shots / f"graph-sphere-phone-{scheme}.png"), full_page=True)
    # a cell brought to the front is chosen by a click, and the turn survives the page load
    sizes: dict[str, float] = page.eval_on_selector_all(
        ".graph-board.solid [data-p3]:not(.back)",
        "els => Object.fromEntries(els.map(e => {"
        " const b = e.getBoundingClientRect(); return [e.dataset.cell, b.width * b.height]; }))",
    )
    newly = sorted(set(sizes) - start, key=lambda c: -sizes[c])
    assert newly
    page.locator(f'.graph-board [data-cell="{newly[0]}"]').click()
    expect(page.locator("#graph-proof")).to_contain_text(f"{newly[0]}:")
    assert newly[0] in _front_ids(page)
    # faces turned away are hidden from sight, not from a screen reader: every cell keeps its
    # accessible name, and a hidden cell that takes the focus is turned into sight
    expect(board.get_by_role("button")).to_have_count(board.locator("[data-p3]").count())
    hidden = str(page.locator(".graph-board.solid [data-p3].back").first.get_attribute("data-cell"))
    page.locator(f'.graph-board [data-cell="{hidden}"]').focus()
    assert hidden in _front_ids(page)


@pytest.mark.parametrize("seed", [4, 7])  # seeds whose old first view hid them
def test_a_solids_first_view_shows_its_covered_cells(
    page: Page, live_server: str, seed: int
) -> None:
    """A mid-game cube: its first view turns the covered cells (what the board is about) to
    the viewer when most were turned away or at the rim."""
    page.set_viewport_size(DESKTOP)
    page.goto(f"{live_server}/analyse/graph?tiling=cube&preset=beginner&seed={seed}&view=solid")
    board = page.locator(".graph-board.solid")
    expect(board).to_be_visible()
    shown = page.eval_on_selector_all(
        ".graph-board.solid .covered[data-p3]",
        "els => els.map(e => { const b = e.getBoundingClientRect();"
        " return !e.classList.contains('back') && Math.min(b.width, b.height) > 12; })",
    )
    assert shown and sum(shown) * 2 >= len(shown), (
        f"{sum(shown)} of {len(shown)} covered cells seen"
    )


def test_a_solid_fills_a_phones_frame(page: Page, live_server: str) -> None:
    """The sphere on a 390 px phone spans (nearly) the frame's width, as the game page's, and
    the frame spans the phone's (the page's and the panel's paddings left it 303 px)."""
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server}/analyse/graph?tiling=geodesic&preset=beginner&seed=3")
    expect(page.locator(".graph-board.solid")).to_be_visible()
    frame, drawn = page.evaluate(
        "() => { const s = document.querySelector('.graph-board.solid');"
        " let lo = Infinity, hi = -Infinity;"
        " s.querySelectorAll('.cell:not(.back)').forEach(c => {"
        "  const b = c.getBoundingClientRect();"
        "  lo = Math.min(lo, b.left); hi = Math.max(hi, b.right);"
        " });"
        " return [s.parentElement.getBoundingClientRect().width, hi - lo]; }"
    )
    assert drawn > 0.9 * frame, f"the sphere is {drawn:.0f} px wide in a {frame:.0f} px frame"
    assert frame >= PHONE["width"] - 10, f"the frame is {frame:.0f} px wide on a 390 px phone"
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    # over 300 cells a board pans in its frame, its typical cell 24 px (an expert cube's net,
    # turned); the page never scrolls sideways
    page.goto(f"{live_server}/analyse/graph?tiling=cube&preset=expert&seed=3&view=flat")
    expect(page.locator(".graph-board.turned")).to_be_visible()
    sideways, cell = page.evaluate(
        "() => { const f = document.querySelector('.graph-frame');"
        " const w = Array.from(f.querySelectorAll('.cell'), c => c.getBoundingClientRect())"
        "  .map(b => Math.min(b.width, b.height)).sort((a, b) => a - b);"
        " return [f.scrollWidth - f.clientWidth, w[w.length >> 1]]; }"
    )
    assert sideways > 100 and 23 <= cell <= 30, (sideways, cell)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]


def test_the_tiling_menu_fits_the_side_column(page: Page, live_server: str) -> None:
    """Each tiling's name fits the closed menu on a desktop; its description is under it."""
    page.set_viewport_size(DESKTOP)
    page.goto(f"{live_server}/analyse/graph?tiling=penrose&preset=beginner&seed=2")
    menu = page.locator(".graph-side select[name=tiling]")
    overflow = menu.evaluate(
        "m => { const c = document.createElement('canvas').getContext('2d');"
        " c.font = getComputedStyle(m).font; const room = m.clientWidth - 24;"
        " return [...m.options].filter(o => c.measureText(o.text).width > room)"
        "  .map(o => o.text); }"
    )
    assert overflow == []
    menu.select_option("geodesic")
    expect(page.locator("#tiling-about")).to_have_text(re.compile("geodesic sphere"))


def test_a_cell_named_in_the_proof_is_shown_on_the_board(page: Page, live_server: str) -> None:
    """The proof names cells by ids the board does not show ("cell k31"): each is a link, and
    pointing at it rings that cell on the board; a click keeps the ring while the page scrolls
    to the cell."""
    page.set_viewport_size(DESKTOP)
    page.goto(f"{live_server}/analyse/graph?tiling=penrose&preset=beginner&seed=2&cell=t0")
    links = page.locator("#graph-proof a.graph-ref")
    expect(links.first).to_be_visible()
    ring = page.locator(".graph-board .ref-ring")
    link = links.nth(2)
    named = str(link.get_attribute("data-ref"))
    assert link.text_content() == f"cell {named}"
    link.hover()
    expect(ring).to_have_count(1)
    cell = page.locator(f'.graph-board [data-cell="{named}"]')
    assert ring.get_attribute("points") == cell.get_attribute("points")
    page.mouse.move(0, 0)
    expect(ring).to_have_count(0)
    link.click()
    expect(cell).to_be_in_viewport()
    expect(ring).to_have_count(1)
    assert ring.get_attribute("points") == cell.get_attribute("points")
