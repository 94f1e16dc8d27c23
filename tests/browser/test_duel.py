"""A devil duel played to the end by two named browser contexts: Alice creates it, Bob accepts
through the share link, the race starts for both at once from the same opened cell, Bob
clears, then Alice falls: both panels show the end state (pushed, no reload); then a rematch
starts with Bob creating it. Screenshots desktop 1366x768 and phone 390x844, light and dark."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from devil.rules import Count
from tests.helpers.browser import (
    cell_selector,
    click,
    risky_covered,
    safe_covered,
    status_text,
    visible,
)

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}


def racer(page: Page, name: str) -> str:
    return f"#duel-race .racer[data-name='{name}']"


def clear_board(page: Page) -> None:
    clicks = 0
    while status_text(page) == "Playing":
        position = visible(page, 10)
        safe = safe_covered(position, Count.CLASSIC)
        assert safe, "a no-guess board always has a provable cell"
        click(page, cell_selector(position, safe[0]))
        clicks += 1
        assert clicks < 81


def shoot(page: Page, shots: Path, name: str) -> None:
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
        page.screenshot(path=str(shots / f"{name}-{scheme}.png"), full_page=True)


def test_a_duel_played_to_the_end_then_a_rematch(
    browser: Browser, live_server: str, shots: Path
) -> None:
    alice_ctx = browser.new_context(viewport=DESKTOP)
    bob_ctx = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    try:
        alice, bob = alice_ctx.new_page(), bob_ctx.new_page()
        alice.goto(f"{live_server}/duel")
        alice.get_by_label("Your name").fill("Alice")
        alice.check("input[name=preset][value=beginner]")
        alice.click(".duel-form button[type=submit]")
        link = alice.input_value("#duel-link")
        assert "/duel/" in link
        expect(alice.locator(".racer.waiting")).to_contain_text("not here yet")
        expect(alice.locator("#board")).to_have_count(0)  # no head start
        alice.screenshot(path=str(shots / "duel-waiting-desktop.png"), full_page=True)

        bob.goto(link)
        bob.get_by_label("Your name").fill("Bob")
        bob.screenshot(path=str(shots / "duel-accept-phone.png"), full_page=True)
        bob.click("#accept-duel")
        expect(bob.locator(racer(bob, "Bob"))).to_have_class("racer playing me")
        # Alice's page is told the race started: her board appears without a click
        expect(alice.locator("#board")).to_be_visible()
        expect(alice.locator("#duel-title")).to_have_text("Devil duel: Alice vs Bob")
        for page in (alice, bob):
            expect(page.locator("#duel-race")).not_to_contain_text("Host")
            expect(page.locator("#duel-race")).not_to_contain_text("Guest")
        # one board for both: the same first cell is open on both
        assert visible(alice, 10).to_text() == visible(bob, 10).to_text()

        clear_board(bob)
        expect(bob.locator("#duel-verdict")).to_have_text("You won the duel!")
        expect(alice.locator("#duel-verdict")).to_have_text("Bob won the duel.")
        expect(alice.locator("#duel-race .still")).to_have_text(
            "You are still playing: finish your board."
        )
        expect(bob.locator("#duel-race .still")).to_have_text("Alice is still playing.")
        alice.screenshot(path=str(shots / "duel-still-playing-desktop.png"), full_page=True)

        position = visible(alice, 10)
        click(alice, cell_selector(position, risky_covered(position)[0]))
        for page in (alice, bob):  # both panels at the end state, pushed
            expect(page.locator(racer(page, "Alice"))).to_have_attribute("data-state", "dead")
            expect(page.locator(racer(page, "Bob"))).to_have_attribute("data-state", "cleared")
            expect(page.locator("#duel-race .still")).to_have_count(0)
            expect(page.locator("#duel-race .duel-figures tbody tr")).to_have_count(2)
            expect(page.locator("#duel-race")).not_to_contain_text("still playing")
        expect(alice.locator("#duel-verdict")).to_have_attribute("role", "status")
        # the end panel leads nowhere solo: the rematch is in the race panel
        expect(alice.get_by_role("button", name="Play again")).to_have_count(0)
        shoot(alice, shots, "duel-end-desktop")
        shoot(bob, shots, "duel-end-phone")

        alice.click("#rematch")
        expect(alice.locator(".rematch-wait")).to_have_text(
            "Rematch asked: waiting for Bob to accept."
        )
        accept = bob.locator("#rematch")
        expect(accept).to_have_text("Accept Alice's rematch")
        accept.click()
        # both pages move to the rematch; Bob created it this time (named first)
        for page in (alice, bob):
            expect(page.locator("#duel-title")).to_have_text("Devil duel: Bob vs Alice")
            expect(page.locator("#board")).to_be_visible()
        assert alice.url == bob.url != link
        assert visible(alice, 10).to_text() == visible(bob, 10).to_text()
        shoot(alice, shots, "duel-rematch-desktop")
        shoot(bob, shots, "duel-rematch-phone")

        # the first duel is rated (both named) and listed with the history
        for page, name in ((alice, "duel-records-desktop"), (bob, "duel-records-phone")):
            page.goto(f"{live_server}/records#duels")
            ratings = page.locator(".duel-ratings tbody")
            expect(ratings).to_contain_text("Bob")
            expect(ratings).to_contain_text("Alice")
            expect(page.locator(".duel-history")).to_contain_text("Alice vs Bob")
            page.locator("#duels").scroll_into_view_if_needed()
            shoot(page, shots, name)
    finally:
        alice_ctx.close()
        bob_ctx.close()


def test_the_duel_buttons_are_the_sites_own(
    browser: Browser, live_server: str, shots: Path
) -> None:
    """Start and Accept look like the home page's Start (they were bare native buttons)."""
    host_ctx = browser.new_context(viewport=PHONE)
    guest_ctx = browser.new_context(viewport=PHONE)
    try:
        host, guest = host_ctx.new_page(), guest_ctx.new_page()
        host.goto(f"{live_server}/")
        home = host.eval_on_selector("#start", "(el) => getComputedStyle(el).backgroundColor")
        host.goto(f"{live_server}/duel")
        start = host.locator(".duel-form button[type=submit]")
        assert start.evaluate("(el) => getComputedStyle(el).backgroundColor") == home
        start.click()
        link = host.input_value("#duel-link")
        guest.goto(link)
        accept = guest.locator("#accept-duel")
        assert accept.evaluate("(el) => getComputedStyle(el).backgroundColor") == home
    finally:
        host_ctx.close()
        guest_ctx.close()
