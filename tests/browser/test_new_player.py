"""What a new player tripped over (issue 7 section 2), in Chromium on a desktop (1366x768) and
a phone (390x844), with screenshots of each (in ``shots``, default /tmp/shots):

- a classic-rule loss says what the counted rule would have said; the form explains both;
- boards up to 16 columns fit a phone; wider ones have a zoom and a scroll cue;
- error pages are the site's own; the analysis board takes the 10,000 cells it promises;
- the format a paste was read in is said; a stray character is named next to the paste;
- colours: a flag and its M both show, a selected or answered cell is green only when safe;
- an expert loss shows "The devil wins" without scrolling; face and Start above the fold;
- row/column numbers (a remembered toggle) and cell names in texts that highlight the cell.

Which cells are safe or mines is decided by the brute-force oracle on the board read back from
the page (never from the hidden layout).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from devil import oracle
from devil.analysis import Verdict
from devil.board import Cell, Topology
from devil.position import Position
from devil.rules import Count
from tests.helpers.browser import act, cell_char, classic_counted_seed, read_rows, start_game

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
VIEWPORTS = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])


def name_of(viewport: dict[str, int]) -> str:
    return "desktop" if viewport is DESKTOP else "phone"


def visible(page: Page, mines: int | None = None, grid: str = "board") -> Position:
    rows, topology = read_rows(page, grid)
    return Position.from_rows(rows, Topology(topology), mines)


def read_teaching_board(page: Page, selector: str) -> Position:
    """A teaching board (cells ``a-c-<row>-<col>``) read back from the page."""
    data = page.locator(selector).evaluate(
        "(grid) => ({rows: +grid.dataset.rows, cols: +grid.dataset.cols,"
        " topology: grid.dataset.topology, cells: Array.from("
        "grid.querySelectorAll('.cell:not(.ghost)')).map(c => [c.id, c.className, c.textContent])})"
    )
    grid = [["?"] * data["cols"] for _ in range(data["rows"])]
    for cell_id, classes, text in data["cells"]:
        match = re.fullmatch(r"a-c-(\d+)-(\d+)", cell_id)
        assert match, cell_id
        grid[int(match.group(1))][int(match.group(2))] = cell_char(classes, text)
    return Position.from_rows(["".join(r) for r in grid], Topology(data["topology"]))


def click_cell(page: Page, row: int, col: int) -> None:
    act(page, lambda: page.click(f"#c-{row}-{col}"))


def page_scrolls_sideways(page: Page) -> bool:
    return bool(page.evaluate("() => document.documentElement.scrollWidth > innerWidth"))


def overflows(page: Page, selector: str) -> bool:
    return bool(page.locator(selector).evaluate("(el) => el.scrollWidth > el.clientWidth + 1"))


def box(page: Page, selector: str) -> dict[str, float]:
    found = page.locator(selector).first.bounding_box()
    assert found is not None, selector
    return dict(found)


# -- the classic rule and the total -------------------------------------------------------


@VIEWPORTS
def test_a_classic_loss_says_what_the_counted_rule_would_have_said(
    page: Page, live_server: str, shots: Path, viewport: Any
) -> None:
    page.set_viewport_size(viewport)
    seed, clicks, (row, col) = classic_counted_seed()
    start_game(page, live_server, preset="beginner", seed=str(seed))
    for r, c in clicks:
        click_cell(page, r, c)
    before = visible(page, 10)
    cell = before.board.cell(row, col)
    assert oracle.classify(before).verdicts[cell] is not Verdict.SAFE
    assert oracle.classify(before, Count.COUNTED).verdicts[cell] is Verdict.SAFE
    click_cell(page, row, col)
    panel = page.locator("#end-panel")
    expect(panel).to_contain_text("The devil wins")
    note = page.locator("#counted-note")
    expect(note).to_contain_text("under the classic rule only the numbers count, not the total")
    expect(note).to_contain_text(f"your click on row {row}, col {col} was provably safe")
    expect(note).to_contain_text("With the total of 10 counted (the counted rule)")
    page.screenshot(path=str(shots / f"new-classic-loss-{name_of(viewport)}.png"))


def test_the_form_explains_the_count_rules_and_the_safe_zone(
    page: Page, live_server: str, shots: Path
) -> None:
    page.set_viewport_size(DESKTOP)
    page.goto(live_server + "/")
    expect(page.locator("#classic-note")).to_have_text(
        "only the numbers are clues; the total is not"
    )
    expect(page.locator("#counted-note")).to_have_text("the total number of mines is a clue too")
    page.check("input[name=preset][value=custom]")
    page.fill("input[name=width]", "9")
    page.fill("input[name=height]", "9")
    page.fill("input[name=mines]", "80")
    page.click("#start")
    error = page.locator("#form-error")
    expect(error).to_contain_text("80 mines do not fit on the 9x9 board")
    expect(error).to_contain_text("the first click and its neighbours")
    expect(error).to_contain_text("hold at most 72 mines")
    page.screenshot(path=str(shots / "new-form-error-desktop.png"))


# -- phones: fit, zoom, scroll cue ----------------------------------------------------------


def test_boards_up_to_16_columns_fit_a_phone(page: Page, live_server: str, shots: Path) -> None:
    page.set_viewport_size(PHONE)
    for preset, first in (("intermediate", (8, 8)), ("beginner", (4, 4))):
        start_game(page, live_server, preset=preset, seed="5")
        click_cell(page, *first)
        assert not overflows(page, "#game .scroller"), f"a {preset} board fits a phone"
        assert not page_scrolls_sideways(page)
        right = box(page, f"#c-0-{visible(page).board.width - 1}")
        assert right["x"] + right["width"] <= PHONE["width"], "the last column is on screen"
        assert page.locator(".zoom-bar").count() == 0, "no zoom needed: it fits"
        page.screenshot(path=str(shots / f"new-{preset}-phone.png"), full_page=True)


@pytest.mark.parametrize("topology", ["hex", "torus"])
@pytest.mark.parametrize("coords", [False, True], ids=["plain", "numbered"])
def test_16_column_hex_and_torus_boards_fit_a_phone(
    page: Page, live_server: str, shots: Path, topology: str, coords: bool
) -> None:
    """Odd hexagon rows sit half a cell right and a torus draws ghost columns: the board
    still fits, with and without row and column numbers."""
    page.set_viewport_size(PHONE)
    page.goto(live_server + "/")
    page.evaluate(f"() => localStorage.setItem('mine-devil-coords', '{int(coords)}')")
    start_game(page, live_server, preset="intermediate", topology=topology, seed="7")
    assert not overflows(page, "#game .scroller"), f"a 16-column {topology} board fits a phone"
    assert not page_scrolls_sideways(page)
    frame = box(page, "#game .scroller")
    right = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('#board .cell')]"
        ".map(c => c.getBoundingClientRect().right))"
    )
    assert right <= frame["x"] + frame["width"], "every cell is inside the frame"
    assert page.locator(".zoom-bar:visible").count() == 0, "no zoom needed: it fits"
    page.screenshot(path=str(shots / f"new-{topology}-{int(coords)}-phone.png"))
    page.evaluate("() => localStorage.removeItem('mine-devil-coords')")


def test_wider_boards_get_a_zoom_and_a_scroll_cue(
    page: Page, live_server: str, shots: Path
) -> None:
    page.set_viewport_size(PHONE)
    start_game(page, live_server, preset="expert", seed="12")
    click_cell(page, 8, 15)
    bar = page.locator(".zoom-bar")
    expect(bar).to_be_visible()
    expect(bar.locator(".scroll-cue")).to_be_visible()
    expect(bar.locator(".scroll-cue")).to_contain_text("swipe it sideways")
    assert overflows(page, "#game .scroller")
    assert box(page, "#c-0-0")["width"] >= 24, "unzoomed cells stay big enough to tap"
    page.screenshot(path=str(shots / "new-expert-zoom-phone.png"))

    bar.locator("[data-zoom=fit]").click()
    page.wait_for_function(
        "() => { const s = document.querySelector('#game .scroller');"
        " return s.scrollWidth <= s.clientWidth + 1; }"
    )
    expect(bar.locator(".scroll-cue")).to_be_hidden()
    expect(bar.locator(".zoom-level")).not_to_have_text("100%")
    page.screenshot(path=str(shots / "new-expert-fit-phone.png"))

    page.reload()  # the zoom is remembered
    assert not overflows(page, "#game .scroller")
    page.locator(".zoom-bar [data-zoom=in]").click()
    page.locator(".zoom-bar [data-zoom=in]").click()
    page.locator(".zoom-bar [data-zoom=in]").click()
    page.wait_for_function(
        "() => { const s = document.querySelector('#game .scroller');"
        " return s.scrollWidth > s.clientWidth + 1; }"
    )
    assert not page_scrolls_sideways(page), "the board scrolls inside its frame, not the page"
    page.evaluate("() => localStorage.removeItem('mine-devil-zoom')")


# -- error pages and what the analysis board takes -------------------------------------------


@VIEWPORTS
def test_unknown_pages_are_the_sites_own(
    page: Page, live_server: str, shots: Path, viewport: Any
) -> None:
    page.set_viewport_size(viewport)
    response = page.goto(live_server + "/no/such/page")
    assert response is not None and response.status == 404
    expect(page.locator(".site-header")).to_be_visible()
    expect(page.locator("h1")).to_have_text("Page not found")
    expect(page.locator(".error-page")).to_contain_text("There is no page at /no/such/page")
    page.screenshot(path=str(shots / f"new-404-{name_of(viewport)}.png"))


def test_the_analysis_board_takes_a_100x100_paste(
    page: Page, live_server: str, shots: Path
) -> None:
    page.set_viewport_size(DESKTOP)
    page.goto(live_server + "/analyse")
    text = "\n".join(" ".join("?" * 100) for _ in range(100))  # Codewars: ~20,000 characters
    assert len(text.encode()) > 16 * 1024
    page.fill("#paste-text", text)
    page.click("#paste-button")
    page.wait_for_url(re.compile(r"/analyse\?z="))
    grid = page.locator(".analyse-main [role=grid]").first
    expect(grid).to_have_attribute("data-rows", "100")
    expect(grid).to_have_attribute("data-cols", "100")
    expect(page.locator("#format-note")).to_contain_text("codewars")

    too_long = "." * 200_001
    page.fill("#paste-text", too_long)
    url = page.url
    page.click("#paste-button")
    expect(page.locator("#paste-error")).to_contain_text("at most 200,000")
    assert page.url == url, "nothing was sent"
    assert len(page.input_value("#paste-text")) == len(too_long), "the text is kept"
    page.screenshot(path=str(shots / "new-paste-too-long-desktop.png"))


# -- format detection ------------------------------------------------------------------------


@VIEWPORTS
def test_the_format_read_is_said_and_stray_characters_are_named(
    page: Page, live_server: str, shots: Path, viewport: Any
) -> None:
    page.set_viewport_size(viewport)
    page.goto(live_server + "/analyse")
    page.fill("#paste-text", "x1.\n11.")
    page.click("#paste-button")
    page.wait_for_url(re.compile(r"/analyse\?p="))
    note = page.locator("#format-note")
    expect(note).to_contain_text("Read as minesweepr")
    expect(note).to_contain_text("line 1, column 1")
    page.screenshot(path=str(shots / f"new-format-note-{name_of(viewport)}.png"))

    stray = "1110\n1.x1\n1..1\n0111"
    page.fill("#paste-text", stray)
    page.click("#paste-button")
    error = page.locator("#paste-error")
    expect(error).to_contain_text("line 2, column 3")
    expect(error).to_contain_text("unexpected character 'x'")
    expect(error).to_contain_text("for a covered cell write '.'")  # the likeliest intent
    assert "--input-format" not in (error.text_content() or ""), "no command-line lecture"
    assert page.input_value("#paste-text").strip() == stray, "the paste is kept"
    error.scroll_into_view_if_needed()
    page.screenshot(path=str(shots / f"new-stray-char-{name_of(viewport)}.png"))


# -- colours ----------------------------------------------------------------------------------


def background(page: Page, selector: str) -> str:
    return str(page.eval_on_selector(selector, "(el) => getComputedStyle(el).backgroundColor"))


def test_flags_selection_and_answers_are_coloured_by_what_they_are(
    page: Page, live_server: str, shots: Path
) -> None:
    page.set_viewport_size(DESKTOP)
    safe_bg = "rgb(191, 232, 200)"
    # (0,1) is flagged and a mine; (0,3) is safe; (2,*) could be either
    line = "1F1./111./0000;mines=1"
    position = Position.from_line(line)
    truth = oracle.classify(position).verdicts
    assert truth[position.board.cell(0, 1)] is Verdict.MINE
    page.goto(f"{live_server}/analyse?p={line}")
    after = page.eval_on_selector(
        "#a-c-0-1",
        "(el) => { const a = getComputedStyle(el, '::after'), b = getComputedStyle(el, '::before');"
        " return [a.content, a.position, b.right, b.bottom]; }",
    )
    assert after[0] == '"M"' and after[1] == "absolute", after
    assert float(after[2].rstrip("px")) > 5, "the flag keeps to the top-left corner"
    page.screenshot(path=str(shots / "new-flag-m-desktop.png"), clip=dict(box(page, ".scroller")))

    either_line = "1./.."
    either = Position.from_line(either_line)
    assert oracle.classify(either).verdicts[either.board.cell(1, 1)] is Verdict.EITHER
    page.goto(f"{live_server}/analyse?p={either_line}")
    page.click("#a-c-1-1")
    page.wait_for_url(re.compile(r"cell="))
    expect(page.locator("#a-c-1-1")).to_have_class(re.compile(r"\bhl-is-either\b"))
    assert background(page, "#a-c-1-1") != safe_bg, "an either cell is not safe-green"
    page.screenshot(path=str(shots / "new-selected-either-desktop.png"))
    page.goto(f"{live_server}/analyse?p={line}")
    page.click("#a-c-0-3")
    page.wait_for_url(re.compile(r"cell=0%2C3|cell=0,3"))
    assert background(page, "#a-c-0-3") == safe_bg, "a safe selected cell is green"
    page.screenshot(path=str(shots / "new-selected-desktop.png"))

    # a puzzle answered with a mine is red, not green
    page.goto(f"{live_server}/puzzle?preset=beginner&level=1&count=classic&seed=5")
    puzzle = read_teaching_board(page, ".puzzle-main [role=grid]")
    verdicts = oracle.classify(puzzle).verdicts
    mines = [m for m, v in verdicts.items() if v is Verdict.MINE and not puzzle.is_flagged(m)]
    assert mines, "the puzzle shows a provable mine"
    r, c = puzzle.board.coord(mines[0])
    page.click(f"#a-c-{r}-{c}")
    expect(page.locator("#puzzle-verdict")).to_contain_text("is a mine")
    expect(page.locator(f"#a-c-{r}-{c}")).to_have_class(re.compile(r"\bhl-is-mine\b"))
    assert background(page, f"#a-c-{r}-{c}") != safe_bg, "a wrong answer is not green"
    page.screenshot(path=str(shots / "new-puzzle-mine-desktop.png"))


def contrast(fore: str, back: str) -> float:
    """WCAG contrast ratio of two computed ``rgb(...)`` colours."""

    def luminance(colour: str) -> float:
        channels = [float(v) / 255 for v in re.findall(r"[\d.]+", colour)[:3]]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((luminance(fore), luminance(back)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_verdict_colours_read_in_dark_mode(browser: Any, live_server: str, shots: Path) -> None:
    """The verdict chips and the S / M letters on the analysis board keep a readable contrast
    on their dark fills (the "either" chip was light grey text on light grey)."""
    context = browser.new_context(viewport=PHONE, color_scheme="dark")
    page = context.new_page()
    try:
        page.goto(f"{live_server}/analyse?p=1F1./111./0000/....;mines=1")
        pairs = page.evaluate(
            """() => {
              const s = (el, pseudo) => getComputedStyle(el, pseudo || null);
              const out = {};
              for (const v of ['safe', 'mine', 'either']) {
                const chip = document.querySelector('.chip.v-' + v);
                out['chip ' + v] = [s(chip).color, s(chip).backgroundColor];
              }
              for (const v of ['safe', 'mine']) {
                const cell = document.querySelector('.board.analysis .cell.covered.v-' + v);
                const badge = s(cell, '::after');
                const back = badge.backgroundColor === 'rgba(0, 0, 0, 0)'
                  ? s(cell).backgroundColor : badge.backgroundColor;
                out['letter ' + v] = [badge.color, back];
              }
              return out;
            }"""
        )
        for name, (fore, back) in pairs.items():
            assert contrast(fore, back) >= 3, f"{name}: {fore} on {back}"
        page.screenshot(path=str(shots / "new-analyse-dark-phone.png"), full_page=True)
    finally:
        context.close()


# -- above the fold ---------------------------------------------------------------------------


def test_an_expert_loss_shows_the_devil_wins_without_scrolling(
    page: Page, live_server: str, shots: Path
) -> None:
    page.set_viewport_size(DESKTOP)
    page.goto(live_server + "/")
    start = box(page, "#start")
    assert start["y"] + start["height"] <= DESKTOP["height"], "Start is above the fold"
    page.screenshot(path=str(shots / "new-home-desktop.png"))

    game_id = start_game(page, live_server, preset="expert", seed="12")
    click_cell(page, 8, 15)
    position = visible(page)
    risky = sorted(c for c, v in oracle_or_solver(position).items() if v is not Verdict.SAFE)
    r, c = position.board.coord(risky[len(risky) // 2])
    click_cell(page, r, c)
    title = page.locator("#end-title")
    expect(title).to_have_text("The devil wins")
    assert page.evaluate("() => scrollY") == 0
    seen = box(page, "#end-title")
    assert seen["y"] + seen["height"] <= DESKTOP["height"], "the outcome is above the fold"
    board = box(page, "#game .scroller")
    assert seen["x"] > board["x"] + board["width"], "the outcome is beside the board"
    assert box(page, "#status")["y"] < board["y"]
    expect(page.locator("#status #restart.face.lost")).to_be_visible()
    page.screenshot(path=str(shots / "new-expert-loss-desktop.png"))

    page.click("a.help-link")
    expect(page.locator("#help")).to_have_attribute("open", "")
    expect(page.locator("#help")).to_contain_text("right-click")

    page.click("#restart")
    page.wait_for_url(re.compile(r"/g/[\w-]+$"))
    assert not page.url.endswith(game_id), "the face starts a new game"
    expect(page.locator("#status .pill")).to_have_text("Playing")
    expect(page.locator("#board")).to_have_attribute("data-cols", "30")


def oracle_or_solver(position: Position) -> dict[Cell, Verdict]:
    """Verdicts of an expert position: the solver (too many edge cells for brute force)."""
    from devil.solver import classify

    return dict(classify(position).verdicts)


@VIEWPORTS
def test_the_status_bar_has_a_face_and_help(
    page: Page, live_server: str, shots: Path, viewport: Any
) -> None:
    page.set_viewport_size(viewport)
    start_game(page, live_server, preset="beginner", seed="3")
    click_cell(page, 4, 4)
    face = page.locator("#status #restart")
    expect(face).to_be_visible()
    expect(face).to_have_class(re.compile(r"\bplaying\b"))
    for part in (".mines-left", ".clock", ".help-link", ".moves"):
        found = box(page, f"#status {part}")
        assert found["x"] >= 0 and found["x"] + found["width"] <= viewport["width"], part
    assert not page_scrolls_sideways(page)
    page.screenshot(path=str(shots / f"new-status-{name_of(viewport)}.png"))


# -- coordinates ------------------------------------------------------------------------------


def test_row_and_column_numbers_and_cell_links(page: Page, live_server: str, shots: Path) -> None:
    page.set_viewport_size(DESKTOP)
    page.goto(live_server + "/")
    page.evaluate("() => localStorage.removeItem('mine-devil-coords')")
    start_game(page, live_server, preset="beginner", seed="3")
    position = visible(page)
    click_cell(page, 4, 4)
    header = page.locator("#board > .coord-cols")
    expect(header).to_be_hidden()
    page.check("[data-coords-toggle]")
    expect(header).to_be_visible()
    expect(header.locator("span")).to_have_count(position.board.width)
    expect(header.locator("span").last).to_have_text(str(position.board.width - 1))
    label = page.eval_on_selector(
        "#r-3",
        "(el) => { const s = getComputedStyle(el, '::before'); return [s.content, s.width]; }",
    )
    assert label[0] == "counter(coord-row)" and float(label[1].rstrip("px")) > 10, label
    page.reload()
    expect(page.locator("#board > .coord-cols")).to_be_visible()  # remembered
    expect(page.locator("[data-coords-toggle]")).to_be_checked()

    # the hint ladder names a cell: its name is a link that marks the cell
    for _ in range(3):
        act(page, lambda: page.click("#hint-button"), "answered")
    link = page.locator("#hints a.cell-ref").first
    expect(link).to_be_visible()
    target = link.get_attribute("data-cell")
    assert target and re.fullmatch(r"c-\d+-\d+", target)
    link.hover()
    expect(page.locator(f"#{target}")).to_have_class(re.compile(r"\bhl-ref\b"))
    link.click()
    expect(page.locator(f"#{target}")).to_have_class(re.compile(r"\bhl-flash\b"))
    page.screenshot(path=str(shots / "new-coords-hint-desktop.png"))

    # after a loss every cell named in the panels is a link
    losing = visible(page)
    verdicts = oracle_or_solver(losing)
    risky = sorted(c for c, v in verdicts.items() if v is not Verdict.SAFE)
    r, c = losing.board.coord(risky[len(risky) // 2])
    click_cell(page, r, c)
    loss_link = page.locator("#end-panel a.cell-ref").first
    expect(loss_link).to_have_text(f"row {r}, col {c}")
    expect(loss_link).to_have_attribute("data-cell", f"c-{r}-{c}")
    assert page.locator("#loss-teaching a.cell-ref").count() >= 1
    page.locator("#loss-teaching a.cell-ref").first.hover()
    assert page.locator("#board .cell.hl-ref").count() == 1
    page.screenshot(path=str(shots / "new-coords-loss-desktop.png"))
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(shots / "new-coords-loss-phone.png"))
    page.evaluate("() => localStorage.removeItem('mine-devil-coords')")


def test_proof_cells_on_the_analysis_board_are_links(
    page: Page, live_server: str, shots: Path
) -> None:
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server}/analyse?p=1110/1..1/1..1/0111&cell=1,2")
    links = page.locator("#proof a.cell-ref")
    assert links.count() >= 2
    first = links.first
    target = first.get_attribute("data-cell")
    assert target and target.startswith("a-c-")
    first.click()
    expect(page.locator(f"#{target}")).to_have_class(re.compile(r"\bhl-ref\b"))
    page.screenshot(path=str(shots / "new-proof-links-phone.png"))


def test_two_fingers_pinch_a_wide_board(browser: Any, live_server: str, shots: Path) -> None:
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    try:
        start_game(page, live_server, preset="expert", seed="12")
        cdp = context.new_cdp_session(page)
        cell = box(page, "#c-5-5")
        x, y = cell["x"] + 5, cell["y"] + 5

        def touch(kind: str, points: list[tuple[float, float]]) -> None:
            cdp.send(
                "Input.dispatchTouchEvent",
                {
                    "type": kind,
                    "touchPoints": [
                        {"x": px, "y": py, "id": i} for i, (px, py) in enumerate(points)
                    ],
                },
            )

        touch("touchStart", [(x, y), (x + 120, y)])
        for step in range(1, 9):
            touch("touchMove", [(x + 5 * step, y), (x + 120 - 5 * step, y)])
        touch("touchEnd", [])
        page.wait_for_function(
            "() => { const s = document.querySelector('#game .scroller');"
            " return s.scrollWidth <= s.clientWidth + 1; }"
        )
        zoom = float(page.evaluate("() => localStorage.getItem('mine-devil-zoom')"))
        assert 0.25 <= zoom < 0.5, zoom
        expect(page.locator("#status .pill")).to_have_text("Playing")
        assert page.locator("#board .cell.open").count() == 0, "pinching opened nothing"
        page.screenshot(path=str(shots / "new-expert-pinched-phone.png"))
    finally:
        context.close()
