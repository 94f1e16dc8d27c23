"""The graph analysis board in Chromium: a Penrose and a cube board drawn, a safe cell chosen
by click and by keyboard, its proof shown; screenshots on desktop and phone, light and dark."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("tiling=penrose&preset=beginner&seed=2", "penrose"),
        ("tiling=cube&preset=beginner&seed=5", "cube"),
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
        safe = page.locator(".graph-board .cell.safe").first
        expect(safe).to_be_visible()
        cell_id = safe.get_attribute("data-cell")
        safe.click()
        proof = page.locator("#graph-proof")
        expect(proof).to_contain_text(f"{cell_id}: safe")
        expect(proof.locator("li").last).to_contain_text(f"{cell_id} is safe")
        page.screenshot(path=str(shots / f"graph-{name}-{label}-{scheme}.png"), full_page=True)


def test_keyboard_chooses_a_cell(page: Page, live_server: str) -> None:
    page.set_viewport_size(DESKTOP)
    page.goto(f"{live_server}/analyse/graph?tiling=geodesic&preset=beginner&seed=3")
    mine = page.locator(".graph-board .cell.mine").first
    cell_id = mine.get_attribute("data-cell")
    mine.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#graph-proof")).to_contain_text(f"{cell_id}: mine")


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
