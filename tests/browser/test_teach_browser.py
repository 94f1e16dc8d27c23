"""The teaching side in Chromium: the analysis board (proofs, steps, paste, share), the hint
ladder on a running game, the lesson after a loss, and a puzzle. Screenshots go to ``shots``.

Verdicts are checked against the brute-force oracle on positions read back from the page.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from devil import oracle
from devil.analysis import Verdict
from devil.position import Position
from devil.solver import classify
from tests.helpers.browser import LINE, act, risky_covered, safe_covered, start_game, visible

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
SHOT_DESKTOP = {"width": 1366, "height": 768}


def test_analysis_board_colours_proves_and_steps(page: Page, live_server: str, shots: Path) -> None:
    page.set_viewport_size(DESKTOP)
    page.goto(f"{live_server}/analyse?p={LINE}")
    position = Position.from_line(LINE)
    truth = oracle.classify(position)
    for cell, verdict in truth.verdicts.items():
        r, c = position.board.coord(cell)
        expect(page.locator(f"#a-c-{r}-{c}")).to_have_class(re.compile(rf"\bv-{verdict.value}\b"))
    # hover shows the probability
    page.hover("#a-c-1-1")
    expect(page.locator("#a-c-1-1")).to_have_attribute("data-tip", re.compile("mine probability"))

    # select the safe cell (1,2): its proof appears, with its numbers highlighted by the script
    page.click("#a-c-1-2")
    page.wait_for_url(re.compile(r"cell=1%2C2|cell=1,2"))
    expect(page.locator("#proof")).to_contain_text("row 1, col 2 is safe")
    expect(page.locator("#a-c-1-2")).to_have_class(re.compile(r"\bhl-target\b"))
    expect(page.locator(".cell.hl-number")).not_to_have_count(0)  # waits for the script
    page.screenshot(path=str(shots / "teach-analyse-proof.png"), full_page=True)

    # step through the deduction forward and back
    page.click(".step-first")
    expect(page.locator("#step-head")).to_contain_text("Step 1 of")
    page.click(".step-forward")
    expect(page.locator("#step-head")).to_contain_text("Step 2 of")
    expect(page.locator(".cell.hl-number")).not_to_have_count(0)  # waits for the script
    page.click(".step-back")
    expect(page.locator("#step-head")).to_contain_text("Step 1 of")
    page.click(".step-last")
    expect(page.locator("#step-head")).to_contain_text(re.compile(r"Step (\d+) of \1"))
    page.screenshot(path=str(shots / "teach-analyse-steps.png"), full_page=True)


def test_paste_a_position_and_share_it(page: Page, live_server: str, shots: Path) -> None:
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server}/analyse")
    page.fill("#paste-text", "1 2 1\n? ? ?\n")
    page.click("#paste-button")
    page.wait_for_url(re.compile(r"p=121"))
    expect(page.locator("#a-c-1-0")).to_have_class(re.compile(r"\bv-mine\b"))
    expect(page.locator("#a-c-1-1")).to_have_class(re.compile(r"\bv-safe\b"))
    share = page.locator("#share-url").input_value()
    assert "p=121" in share.replace("%2F", "/")
    page.screenshot(path=str(shots / "teach-analyse-phone.png"), full_page=True)
    # the shared link opens the same position in a fresh page
    page.goto(share)
    expect(page.locator("#a-c-1-2")).to_have_class(re.compile(r"\bv-mine\b"))


def test_hint_ladder_in_a_game(page: Page, live_server: str, shots: Path) -> None:
    page.set_viewport_size(DESKTOP)
    for seed in range(1, 30):
        start_game(page, live_server, preset="beginner", seed=str(seed))
        act(page, lambda: page.click("#c-4-4"))
        position = visible(page)
        if page.locator("#game.playing").count() and safe_covered(position):
            break
    else:
        pytest.fail("no running beginner game with a safe cell")

    button = page.locator("#hint-button")
    expect(button).to_have_text("Is there a safe cell at all?")
    for n, question in enumerate(
        ("Where should I look?", "Which cell?", "Why is it safe?"), start=1
    ):
        button.click()
        expect(page.locator("#hints .hint-answer")).to_have_count(n)
        expect(page.locator("#hint-button")).to_have_text(question)
    page.locator("#hint-button").click()
    expect(page.locator("#hints .hint-answer")).to_have_count(4)
    expect(page.locator("#hint-button")).to_have_count(0)
    expect(page.locator("#hints-used")).to_have_text("4")

    target = page.locator(".cell.hl-target")
    expect(target).to_have_count(1)
    target_id = target.get_attribute("id") or ""
    m = re.fullmatch(r"c-(\d+)-(\d+)", target_id)
    assert m
    cell = position.board.cell(int(m.group(1)), int(m.group(2)))
    assert classify(position).verdict(cell) is Verdict.SAFE
    expect(page.locator(".cell.hl-number")).not_to_have_count(0)  # waits for the script
    page.screenshot(path=str(shots / "teach-hints.png"), full_page=True)

    # opening the hinted cell resets the ladder
    act(page, lambda: page.click(f"#{target_id}"))
    expect(page.locator("#hints .hint-answer")).to_have_count(0)
    expect(page.locator("#hint-button")).to_have_text("Is there a safe cell at all?")
    expect(page.locator(".cell.hl-target")).to_have_count(0)


def test_loss_lesson_shows_what_was_safe(page: Page, live_server: str, shots: Path) -> None:
    page.set_viewport_size(DESKTOP)
    for seed in range(1, 40):
        start_game(page, live_server, preset="beginner", seed=str(seed))
        act(page, lambda: page.click("#c-4-4"))
        position = visible(page)
        if page.locator("#game.playing").count() and safe_covered(position):
            risky = [
                c
                for c in risky_covered(position)
                if classify(position).verdict(c) is Verdict.EITHER
            ]
            if risky:
                break
    else:
        pytest.fail("no losable game")
    safe = safe_covered(position)
    r, c = position.board.coord(risky[0])
    act(page, lambda: page.click(f"#c-{r}-{c}"))
    lesson = page.locator("#loss-teaching")
    expect(lesson).to_be_visible()
    expect(lesson).to_contain_text(f"{len(safe)} covered")
    expect(page.locator(".cell.hl-safe")).to_have_count(len(safe))
    page.screenshot(path=str(shots / "teach-loss.png"), full_page=True)


def test_puzzle_answer(page: Page, live_server: str, shots: Path) -> None:
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server}/puzzle?preset=beginner&level=2&seed=3")
    link = page.locator("a[href*='/analyse?p=']").first.get_attribute("href") or ""
    from urllib.parse import parse_qs, urlparse

    line = parse_qs(urlparse(link).query)["p"][0]
    position = Position.from_line(line)
    known = [c for c in position.covered_cells() if position.is_flagged(c)]
    safe = [c for c in classify(position).safe_cells() if c not in known]
    assert safe
    r, c = position.board.coord(safe[0])
    page.click(f"#a-c-{r}-{c}")
    expect(page.locator("#puzzle-verdict")).to_contain_text("Right")
    expect(page.locator("#proof")).to_be_visible()
    page.screenshot(path=str(shots / "teach-puzzle-phone.png"), full_page=True)


def test_analysis_board_by_keyboard(page: Page, live_server: str) -> None:
    page.set_viewport_size(DESKTOP)
    page.goto(f"{live_server}/analyse?p={LINE}")
    page.focus("#a-c-1-1")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#a-c-1-2")).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"cell=1%2C2|cell=1,2"))
    expect(page.locator("#proof")).to_contain_text("row 1, col 2 is safe")


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("viewport", [SHOT_DESKTOP, PHONE], ids=["desktop", "phone"])
def test_play_a_board_of_a_chosen_level(
    page: Page, live_server: str, shots: Path, viewport: dict[str, int], scheme: str
) -> None:
    page.set_viewport_size(viewport)
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    page.goto(f"{live_server}/puzzle?preset=beginner&level=2&seed=1")
    form = page.locator("form.level-form")
    form.locator("select[name=level]").select_option("2")
    form.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"/g/[\w-]+$"))
    expect(page.locator("#game")).to_be_visible()
    # the board is labelled with its level and untouched: the player makes the first move
    note = page.locator("#level-note")
    expect(note).to_contain_text("Level 2 board: start on the centre cell, row 4, col 4")
    assert page.locator("#board .cell.open").count() == 0
    name = f"{'desktop' if viewport is SHOT_DESKTOP else 'phone'}-{scheme}"
    page.screenshot(path=str(shots / f"teach-level-board-{name}.png"))
    page.click("#c-4-4")
    expect(page.locator("#board .cell.open").first).to_be_visible()
    expect(note).to_contain_text("Level 2 board")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_puzzle_tools_headings_clear_the_buttons(
    page: Page, live_server: str, shots: Path, viewport: dict[str, int]
) -> None:
    """QA: "Play a whole board of one level" sat right on the "New puzzle" button."""
    page.set_viewport_size(viewport)
    page.goto(f"{live_server}/puzzle?preset=beginner&level=2&seed=1")
    tools = page.locator(".puzzle-tools")
    pairs = [
        (tools.locator("form.puzzle-form button"), tools.locator("h2").nth(1)),
        (tools.locator("form.level-form button"), tools.locator("h3")),
    ]
    for button, heading in pairs:
        above = button.bounding_box()
        below = heading.bounding_box()
        assert above and below
        gap = below["y"] - (above["y"] + above["height"])
        assert gap >= 16, f"{heading.inner_text()!r} is {gap:.0f}px under its button"
    name = "desktop" if viewport == DESKTOP else "phone"
    tools.screenshot(path=str(shots / f"teach-puzzle-tools-{name}.png"))


def test_a_bad_paste_keeps_the_text_and_shows_the_error_beside_it(
    page: Page, live_server: str, shots: Path
) -> None:
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server}/analyse?p={LINE}")
    pasted = "1 2 1\n? z ?\n"
    page.fill("#paste-text", pasted)
    page.locator("#paste-form select[name=topology]").select_option("hex")
    page.click("#paste-button")
    error = page.locator("#paste-error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("line 2")
    expect(error).to_contain_text("column")
    expect(page.locator("#paste-text")).to_have_value(pasted)
    expect(page.locator("#paste-text")).to_be_focused()
    expect(page.locator("#paste-form select[name=topology]")).to_have_value("hex")
    expect(page.locator("#a-c-0-0")).to_be_visible()  # still the board being analysed
    page.screenshot(path=str(shots / "teach-paste-error.png"), full_page=True)
    # fix the typo in place and analyse: no retyping
    page.fill("#paste-text", pasted.replace("z", "?"))
    page.locator("#paste-form select[name=topology]").select_option("square")
    page.click("#paste-button")
    page.wait_for_url(re.compile(r"/analyse\?p=121"))
    expect(page.locator("#paste-error")).to_have_count(0)
