"""A board a screen reader can play, checked on the accessibility tree (Playwright's ARIA
snapshot), not by looking: each cell's accessible name says its state and, for a number, what
it means now; a polite live region says what a move opened or why the devil won; the hint
ladder is reached and climbed with the keyboard alone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from devil.board import Cell
from devil.position import Position
from tests.helpers.browser import (
    DESKTOP,
    act,
    focused_id,
    risky_covered,
    safe_covered,
    start_game,
    visible,
    walk_to,
)

pytestmark = pytest.mark.browser


def counts(position: Position, cell: Cell) -> tuple[int, int]:
    """(flagged, covered and unflagged) neighbours of ``cell``, counted here by hand."""
    around = position.board.neighbours(cell)
    flagged = sum(1 for n in around if position.is_flagged(n))
    covered = sum(1 for n in around if position.is_covered(n)) - flagged
    return flagged, covered


def gridcell_names(page: Page) -> dict[str, str]:
    """``row R, col C`` -> the rest of the cell's accessible name, read from the ARIA tree."""
    snapshot = page.locator("#board").aria_snapshot()
    names = re.findall(r'gridcell "(row \d+, col \d+), ([^"]*)"', snapshot)
    return dict(names)


def test_cells_say_what_their_numbers_mean_and_moves_are_announced(
    page: Page, live_server: str
) -> None:
    page.set_viewport_size(DESKTOP)
    start_game(page, live_server, preset="beginner", seed="4")
    page.locator("#board .cell[tabindex='0']").focus()
    walk_to(page, (4, 4))
    act(page, lambda: page.keyboard.press("Space"))
    position = visible(page, 10)
    expect(page.locator("#announce")).to_have_text(
        re.compile(r"^Opened \d+ cells from row 4, col 4\.$")
    )
    names = gridcell_names(page)
    assert len(names) == 81, "every cell is a named gridcell"
    for cell in position.board.cells():
        where = position.where(cell)
        n = position.number(cell)
        if n is None:
            assert names[where] == ("flagged" if position.is_flagged(cell) else "covered")
        elif n == 0:
            assert names[where] == "empty"
        else:
            flagged, covered = counts(position, cell)
            assert names[where].startswith(f"{n}: "), names[where]
            if covered and 0 < n < covered:
                mines = "mine" if n == 1 else "mines"
                assert names[where] == f"{n}: {n} {mines} among {covered} covered"
    # a flag beside a number changes what the number says (its label is swapped too)
    number = next(
        c for c in position.revealed_cells()
        if (position.number(c) or 0) > 0 and counts(position, c)[1] >= 2
    )  # fmt: skip
    target = next(n for n in position.board.neighbours(number) if position.is_covered(n))
    walk_to(page, position.board.coord(target))
    act(page, lambda: page.keyboard.press("f"))
    flagged_position = visible(page, 10)
    flagged, covered = counts(flagged_position, number)
    label = gridcell_names(page)[position.where(number)]
    assert label.startswith(f"{position.number(number)}: {flagged} flagged neighbour"), label
    assert f"{covered} covered" in label or "covered are" in label or "covered one" in label
    expect(page.locator("#announce")).to_contain_text(f"Flagged {position.where(target)}")
    act(page, lambda: page.keyboard.press("f"))  # unflag again
    # opening one numbered cell says the number and what it means
    safe = safe_covered(visible(page, 10))
    walk_to(page, position.board.coord(safe[0]))
    act(page, lambda: page.keyboard.press("Enter"))
    after = visible(page, 10)
    n = after.number(safe[0])
    if n:
        expect(page.locator("#announce")).to_have_text(
            re.compile(rf"^{re.escape(after.where(safe[0]))}: {n}: .+\.$")
        )
    # the devil's win is announced, naming the cell
    risky = risky_covered(after)
    walk_to(page, after.board.coord(risky[0]))
    act(page, lambda: page.keyboard.press("Enter"))
    expect(page.locator("#announce")).to_contain_text(
        f"Boom: {after.where(risky[0])} could be a mine"
    )


def test_the_hint_ladder_is_climbed_by_keyboard(page: Page, live_server: str) -> None:
    page.set_viewport_size(DESKTOP)
    start_game(page, live_server, preset="beginner", seed="4")
    page.locator("#board .cell[tabindex='0']").focus()
    walk_to(page, (4, 4))
    act(page, lambda: page.keyboard.press("Space"))
    for _ in range(40):
        page.keyboard.press("Tab")
        if focused_id(page) == "hint-button":
            break
    assert focused_id(page) == "hint-button", "Tab reaches the hint ladder"
    answers = page.locator("#hints .hint-answer")
    for rung in range(1, 4):
        question = page.locator("#hint-button").text_content()
        act(page, lambda: page.keyboard.press("Enter"), "answered")
        expect(answers).to_have_count(rung)
        expect(answers.nth(rung - 1)).to_contain_text((question or "").strip())
        if page.locator("#hint-button").count() == 0:
            assert page.evaluate("() => document.activeElement.classList.contains('hint-answer')")
            break
        assert focused_id(page) == "hint-button", "focus stays on the ladder after each answer"
    snapshot = page.locator("#hints").aria_snapshot()
    assert "Stuck? Climb the hint ladder" in snapshot
    assert re.search(r"row \d+, col \d+", snapshot), "the answers name cells"
