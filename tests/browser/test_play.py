"""Play Mine Devil in Chromium: win by clicking, flag by right click, lose and read the
witness, step the replay, play by keyboard, watch read-only.

Which cells are safe is decided from the board the page shows (read from the DOM) by the
engine's solver (``devil.solver.classify``): the tests never look at the hidden layout.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from devil.analysis import Verdict
from devil.board import Cell
from devil.position import Position
from devil.rules import Count
from devil.solver import classify
from tests.helpers.browser import (
    DESKTOP,
    PHONE,
    act,
    cell_selector,
    click,
    focused_id,
    open_first,
    read_rows,
    risky_covered,
    safe_covered,
    start_game,
    status_text,
    visible,
    walk_to,
)

pytestmark = pytest.mark.browser


# -- helpers -----------------------------------------------------------------------------


def mines_counter(page: Page) -> int:
    text = (page.text_content("#status .mines-left") or "").replace("Mines left:", "").strip()
    return int(text)


def shows_mine(page: Page, selector: str) -> bool:
    """Whether the cell draws a mine (its ::before has a mine picture)."""
    return bool(
        page.eval_on_selector(
            selector,
            "(el) => { const s = getComputedStyle(el, '::before');"
            " return s.content !== 'none' && s.backgroundImage.includes('circle'); }",
        )
    )


# -- tests -------------------------------------------------------------------------------


def test_win_by_clicking(page: Page, live_server: str, shots: Path) -> None:
    page.set_viewport_size(DESKTOP)
    start_game(page, live_server, preset="beginner", count="counted", seed="4")
    expect(page.locator("#status .pill")).to_have_text("Playing")
    position = open_first(page, 4, 4)
    clicks = 1
    while status_text(page) == "Playing":
        safe = safe_covered(visible(page, 10), Count.COUNTED)
        assert safe, "no provably safe cell on a no-guess board:\n" + position.to_text()
        click(page, cell_selector(position, safe[0]))
        clicks += 1
        assert clicks < 81
    expect(page.locator("#status .pill")).to_have_text("Won")
    panel = page.locator("#end-panel")
    expect(panel).to_contain_text("You beat the devil")
    expect(panel).to_contain_text(f"{clicks} moves")
    expect(panel.locator(".end-stats strong").first).to_have_text(re.compile(r"^\d+:\d\d$"))
    # the board is finished: no more buttons, every remaining covered cell shows its mine
    assert page.locator("#board button").count() == 0
    final = visible(page, 10)
    covered = list(final.covered_cells())
    assert len(covered) == 10
    assert all(shows_mine(page, cell_selector(final, c)) for c in covered)
    page.screenshot(path=str(shots / "won-desktop.png"), full_page=True)


def test_flag_by_right_click(page: Page, live_server: str) -> None:
    start_game(page, live_server, preset="beginner", seed="8")
    position = open_first(page, 4, 4)
    target = next(iter(position.covered_cells()))
    selector = cell_selector(position, target)
    assert mines_counter(page) == 10
    click(page, selector, "right")
    cell = page.locator(selector)
    expect(cell).to_have_class(re.compile(r"\bflag\b"))
    expect(cell).to_have_attribute("aria-label", re.compile(r", flagged$"))
    assert mines_counter(page) == 9
    expect(page.locator("#announce")).to_contain_text("Flagged")
    # a left click on a flag does nothing but explain
    click(page, selector)
    expect(cell).to_have_class(re.compile(r"\bflag\b"))
    expect(page.locator("#toast")).to_contain_text("flagged")
    # right click again removes it
    click(page, selector, "right")
    expect(cell).not_to_have_class(re.compile(r"\bflag\b"))
    assert mines_counter(page) == 10
    assert status_text(page) == "Playing"


LONG_PRESS_JS = """(selector) => new Promise((resolve) => {
  const cell = document.querySelector(selector);
  const touch = {pointerType: "touch", isPrimary: true, bubbles: true, cancelable: true};
  document.addEventListener("htmx:beforeRequest", function sent() {
    document.removeEventListener("htmx:beforeRequest", sent);
    setTimeout(() => {
      cell.dispatchEvent(new PointerEvent("pointerup", touch));
      cell.dispatchEvent(new MouseEvent("click", {bubbles: true, cancelable: true, button: 0}));
      resolve();
    }, 0);
  });
  cell.dispatchEvent(new PointerEvent("pointerdown", touch));
})"""


def test_long_press_flags_on_touch(page: Page, live_server: str) -> None:
    page.set_viewport_size(PHONE)
    start_game(page, live_server, preset="beginner", seed="8")
    position = open_first(page, 4, 4)
    target = next(iter(position.covered_cells()))
    selector = cell_selector(position, target)

    def long_press() -> None:
        # the finger stays down until the press has sent its flag (not for a fixed time: a
        # loaded machine can fire the page's 450 ms timer late); the lift and the click that
        # ends the press follow at once, as on a phone (the click is swallowed)
        page.evaluate(LONG_PRESS_JS, selector)

    act(page, long_press)
    page.wait_for_timeout(200)
    expect(page.locator(selector)).to_have_class(re.compile(r"\bflag\b"))
    assert mines_counter(page) == 9
    assert status_text(page) == "Playing"


def witness_is_consistent(page: Page, position: Position, mark: str) -> None:
    """Every number on the board counts exactly the cells marked ``mark`` around it."""
    marked = {
        cell
        for cell in position.covered_cells()
        if mark in (page.get_attribute(cell_selector(position, cell), "class") or "").split()
    }
    board = position.board
    for cell in position.revealed_cells():
        number = position.number(cell)
        around = sum(1 for n in board.neighbours(cell) if n in marked)
        assert around == number, f"the {number} at {position.where(cell)} sees {around} mines"


def test_lose_and_see_the_witness(page: Page, live_server: str, shots: Path) -> None:
    page.set_viewport_size(DESKTOP)
    start_game(page, live_server, preset="beginner", seed="3")
    position = open_first(page, 4, 4)
    risky = risky_covered(position)
    assert risky, "the first click cleared the board"
    loss = risky[len(risky) // 2]
    click(page, cell_selector(position, loss))
    expect(page.locator("#status .pill")).to_have_text("Lost")
    panel = page.locator("#end-panel")
    expect(panel).to_contain_text("The devil wins")
    row, col = position.board.coord(loss)
    expect(panel).to_contain_text(f"row {row}, col {col}")
    boom = page.locator(cell_selector(position, loss))
    expect(boom).to_have_class(re.compile(r"\bboom\b"))
    expect(boom).to_have_class(re.compile(r"\bwm\b"))
    expect(boom).to_have_attribute("aria-label", re.compile("your click"))
    assert shows_mine(page, cell_selector(position, loss))
    final = visible(page)
    witness_is_consistent(page, final, "wm")
    # the devil's mines are drawn; switching to the real layout draws the real ones instead
    devil = [c for c in final.covered_cells() if shows_mine(page, cell_selector(final, c))]
    assert loss in devil and len(devil) >= 1
    page.screenshot(path=str(shots / "lost-desktop.png"), full_page=True)
    page.check("#show-real")
    witness_is_consistent(page, final, "rm")
    for cell in final.covered_cells():
        classes = (page.get_attribute(cell_selector(final, cell), "class") or "").split()
        if "flag" not in classes:
            assert shows_mine(page, cell_selector(final, cell)) == ("rm" in classes)
    page.screenshot(path=str(shots / "lost-real-desktop.png"), full_page=True)


def test_step_the_replay(page: Page, live_server: str) -> None:
    game_id = start_game(page, live_server, preset="beginner", count="counted", seed="4")
    position = open_first(page, 4, 4)
    opened = [sum(1 for _ in position.revealed_cells())]
    for _ in range(3):
        safe = safe_covered(visible(page, 10), Count.COUNTED)
        click(page, cell_selector(position, safe[0]))
        opened.append(sum(1 for _ in visible(page).revealed_cells()))
    click(page, cell_selector(position, risky_or_flaggable(visible(page))), "right")
    total = 5
    assert status_text(page) == "Playing"
    act(page, lambda: page.click("#replay > summary"), "answered")
    view = page.locator("#replay-view")
    expect(view).to_have_attribute("data-n", str(total))
    expect(page.locator(".replay-caption")).to_contain_text(f"Move {total} of {total}: flag")
    # a running game's replay shows no mines
    assert page.locator("#replay-board .wm, #replay-board .rm").count() == 0
    act(page, lambda: page.click(".replay-steps a:has-text('Back')"), "answered")
    expect(view).to_have_attribute("data-n", str(total - 1))
    assert page.input_value("#replay-n") == str(total - 1)
    assert sum(1 for _ in visible(page, grid="replay-board").revealed_cells()) == opened[3]
    act(page, lambda: page.click(".replay-steps a:has-text('First')"), "answered")
    expect(view).to_have_attribute("data-n", "0")
    start = visible(page, grid="replay-board")
    assert sum(1 for _ in start.revealed_cells()) == 0
    # the slider shows any move
    act(page, lambda: page.fill("#replay-n", "2"), "answered")
    expect(view).to_have_attribute("data-n", "2")
    assert sum(1 for _ in visible(page, grid="replay-board").revealed_cells()) == opened[1]
    share = page.get_attribute(".share-link", "href")
    assert share == f"/g/{game_id}/replay/2"
    # the share link opens the same moment on its own page
    page.goto(live_server + share)
    expect(page.locator("#replay-view")).to_have_attribute("data-n", "2")
    assert sum(1 for _ in visible(page, grid="replay-board").revealed_cells()) == opened[1]
    act(page, lambda: page.click(".replay-steps a:has-text('Next')"), "answered")
    expect(page.locator("#replay-view")).to_have_attribute("data-n", "3")


def risky_or_flaggable(position: Position) -> Cell:
    verdicts = classify(position).verdicts
    mines = [c for c, v in verdicts.items() if v is Verdict.MINE]
    return min(mines) if mines else min(verdicts)


def test_play_by_keyboard(page: Page, live_server: str) -> None:
    start_game(page, live_server, preset="beginner", count="counted", seed="4")
    # Tab reaches the board: a single tab stop on the first cell
    page.focus("#status")
    first = page.locator("#board .cell[tabindex='0']")
    expect(first).to_have_count(1)
    first.focus()
    assert focused_id(page) == "c-0-0"
    expect(first).to_have_attribute("aria-label", "row 0, col 0, covered")
    for key in ["ArrowDown"] * 4 + ["ArrowRight"] * 4:
        page.keyboard.press(key)
    assert focused_id(page) == "c-4-4"
    act(page, lambda: page.keyboard.press("Space"))
    assert status_text(page) == "Playing"
    expect(page.locator("#announce")).to_contain_text("Opened")
    assert focused_id(page) == "c-4-4", "focus stays on the cell after the update"
    expect(page.locator("#board .cell[tabindex='0']")).to_have_count(1)
    position = visible(page, 10)
    assert position.number(position.board.cell(4, 4)) == 0
    # walk to a provably safe cell with the arrow keys and open it with Enter
    target = safe_covered(position, Count.COUNTED)[0]
    walk_to(page, position.board.coord(target))
    act(page, lambda: page.keyboard.press("Enter"))
    after = visible(page, 10)
    assert not after.is_covered(target)
    # F flags a cell the solver proves is a mine
    mines = sorted(classify(after, Count.COUNTED).mine_cells())
    if mines:
        walk_to(page, after.board.coord(mines[0]))
        act(page, lambda: page.keyboard.press("f"))
        assert visible(page, 10).is_flagged(mines[0])
        expect(page.locator("#announce")).to_contain_text("Flagged")
    # Home/End jump along the row
    page.keyboard.press("End")
    assert focused_id(page).endswith("-8")
    page.keyboard.press("Home")
    assert focused_id(page).endswith("-0")
    page.keyboard.press("Control+End")
    assert focused_id(page) == "c-8-8"
    page.keyboard.press("Control+Home")
    assert focused_id(page) == "c-0-0"
    page.keyboard.press("Control+ArrowDown")
    assert focused_id(page) == "c-8-0"
    expect(page.locator("#board .cell[tabindex='0']")).to_have_count(1)


def test_watchers_see_the_game_read_only(page: Page, live_server: str, browser: Any) -> None:
    game_id = start_game(page, live_server, preset="beginner", seed="8")
    watcher_context = browser.new_context(base_url=live_server)
    try:
        watcher = watcher_context.new_page()
        watcher.goto(f"/g/{game_id}")
        expect(watcher.locator(".watch-note")).to_contain_text("watching")
        assert watcher.locator("#board button").count() == 0
        assert watcher.locator("#board-form, #flag-form, .move-form").count() == 0
        expect(watcher.locator("#board")).to_have_attribute("aria-readonly", "true")

        # the owner plays; the watcher's board catches up by itself, pushed by the event
        # stream (well before the 10 s fallback poll)
        def caught_up(moves: int) -> None:
            watcher.wait_for_function(
                "(n) => document.querySelector('#status').dataset.moves == n",
                arg=str(moves),
                timeout=6_000,
            )
            assert read_rows(watcher) == read_rows(page)

        position = open_first(page, 4, 4)
        caught_up(1)
        click(page, cell_selector(position, next(iter(position.covered_cells()))), "right")
        caught_up(2)
        # a watcher's click is refused and changes nothing
        response = watcher.request.post(
            f"/g/{game_id}/move",
            form={"kind": "open", "at": "0,0"},
            headers={"X-CSRFToken": watcher.get_attribute("meta[name=csrf-token]", "content")},
        )
        assert response.status == 403
        assert read_rows(page) == read_rows(watcher)
    finally:
        watcher_context.close()


def test_clicking_a_satisfied_number_chords(page: Page, live_server: str) -> None:
    start_game(page, live_server, preset="intermediate", count="counted", seed="9")
    open_first(page, 8, 8)
    for _ in range(40):
        position = visible(page, 40)
        classification = classify(position, Count.COUNTED)
        board = position.board
        # a number whose covered neighbours are all decided, with a mine and a safe cell
        for number in position.revealed_cells():
            near = [n for n in board.neighbours(number) if position.is_covered(n)]
            verdicts = [classification.verdict(n) for n in near if not position.is_flagged(n)]
            mines = [n for n in near if classification.verdict(n) is Verdict.MINE]
            safe = [n for n in near if classification.verdict(n) is Verdict.SAFE]
            if mines and safe and Verdict.EITHER not in verdicts:
                break
        else:
            click(page, cell_selector(position, safe_covered(position, Count.COUNTED)[0]))
            continue
        for mine in mines:
            if not position.is_flagged(mine):
                click(page, cell_selector(position, mine), "right")
        click(page, cell_selector(position, number))
        after = visible(page, 40)
        assert all(not after.is_covered(n) for n in safe), "the chord opened the safe cells"
        assert all(after.is_flagged(n) for n in mines)
        expect(page.locator("#announce")).to_contain_text("Opened")
        return
    pytest.fail("never found a number to chord")


def test_a_big_board_plays(page: Page, live_server: str) -> None:
    """100x100: a cascade answered by whole rows, then single cells; the page always shows
    exactly what the server's log says (the public API state)."""
    game_id = start_game(
        page, live_server, preset="custom", width="100", height="100", mines="700",
        no_guess=False, seed="5",
    )  # fmt: skip

    def server_rows() -> list[str]:
        body = page.request.get(f"/api/games/{game_id}").json()
        return list(body["board"])

    click(page, "#c-50-50")
    rows, _ = read_rows(page)
    assert rows == server_rows()
    assert sum(r.count(".") for r in rows) < 9000, "the first click opened a big region"
    position = visible(page)
    for cell in sorted(safe_covered(position))[:3]:
        click(page, cell_selector(position, cell))
    mine = sorted(classify(visible(page)).mine_cells())[0]
    click(page, cell_selector(position, mine), "right")
    assert read_rows(page)[0] == server_rows()
    expect(page.locator("#board .cell[tabindex='0']")).to_have_count(1)


SHOWN = "() => getComputedStyle(document.getElementById('board-busy')).opacity === '1'"


def test_a_slow_move_shows_the_busy_indicator(page: Page, live_server: str, shots: Path) -> None:
    """While a move's request is in flight the board says so (held here until the test lets
    it through); the indicator is fixed text, gone again once the answer is in."""
    page.set_viewport_size(DESKTOP)
    start_game(page, live_server, preset="intermediate", seed="8")
    busy = page.locator("#board-busy")
    expect(busy).to_be_hidden()
    held: list[Any] = []
    page.route("**/move", lambda route: held.append(route))
    page.click("#c-8-8")
    page.wait_for_function("() => document.querySelector('#board-busy.htmx-request') !== null")
    expect(busy).to_be_visible()  # after its short delay
    expect(busy).to_have_text("Thinking…")
    assert page.locator("#board .cell.covered").count() == 16 * 16, "nothing answered yet"
    page.wait_for_function(SHOWN)
    page.screenshot(path=str(shots / "busy-desktop.png"))
    spin = busy.locator(".spinner").evaluate("(el) => getComputedStyle(el).animationName")
    assert spin != "none"
    page.emulate_media(reduced_motion="reduce")
    still = busy.locator(".spinner").evaluate("(el) => getComputedStyle(el).animationName")
    assert still == "none", "no spinning for prefers-reduced-motion"
    assert len(held) == 1
    act(page, held[0].continue_)
    page.unroute("**/move")
    expect(busy).to_be_hidden()
    assert page.locator("#board .cell.covered").count() < 16 * 16, "the answer is on the board"


def test_the_busy_indicator_stays_in_view_on_a_big_board(
    page: Page, live_server: str, shots: Path
) -> None:
    page.set_viewport_size(PHONE)
    start_game(
        page, live_server, preset="custom", width="100", height="100", mines="700",
        no_guess=False, seed="6",
    )  # fmt: skip
    held: list[Any] = []
    page.route("**/move", lambda route: held.append(route))
    page.click("#c-3-3")
    busy = page.locator("#board-busy")
    expect(busy).to_be_visible()
    page.wait_for_function(SHOWN)
    box = busy.bounding_box()
    assert box is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], box
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    page.screenshot(path=str(shots / "busy-phone-100x100.png"))
    act(page, held[0].continue_)
    page.unroute("**/move")
    expect(busy).to_be_hidden()
