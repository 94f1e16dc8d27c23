"""A devil duel played to the end by two browser contexts: the host creates it, the guest
accepts through the share link, each sees the other's progress live, the first to clear wins."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from devil.rules import Count
from tests.browser.test_play import (
    cell_selector,
    click,
    open_first,
    risky_covered,
    safe_covered,
    status_text,
    visible,
)

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def opened(page: Page, label: str) -> int:
    return int(page.get_attribute(f".racer[data-label={label}]", "data-opened") or -1)


def test_a_duel_played_to_the_end(browser: Browser, live_server: str, shots: Path) -> None:
    host_ctx = browser.new_context(viewport=DESKTOP)
    guest_ctx = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    try:
        host, guest = host_ctx.new_page(), guest_ctx.new_page()
        host.goto(f"{live_server}/duel")
        host.check("input[name=preset][value=beginner]")
        host.click(".duel-form button[type=submit]")
        link = host.input_value("#duel-link")
        assert "/duel/" in link
        expect(host.locator(".racer.waiting")).to_contain_text("not here yet")

        guest.goto(link)
        guest.click("#accept-duel")
        expect(guest.locator(".racer.me")).to_have_attribute("data-label", "Guest")
        expect(host.locator(".racer[data-label=Guest]")).to_be_visible()  # live, no reload

        # both boards are the same game: same size, mines and seed
        position = open_first(host, 4, 4)
        expect(guest.locator(".racer[data-label=Host]")).not_to_have_attribute("data-opened", "0")
        guest_position = open_first(guest, 4, 4)
        assert guest_position.to_text() == position.to_text()  # same seed, same first click

        # the guest guesses and the devil takes them
        risky = risky_covered(guest_position)
        if risky:
            click(guest, cell_selector(guest_position, risky[0]))
            expect(host.locator(".racer[data-label=Guest]")).to_have_attribute("data-state", "dead")

        # the host clears the board with proofs only
        clicks = 0
        while status_text(host) == "Playing":
            safe = safe_covered(visible(host, 10), Count.CLASSIC)
            assert safe, "a no-guess board always has a provable cell"
            click(host, cell_selector(position, safe[0]))
            clicks += 1
            assert clicks < 81
        expect(host.locator("#duel-race .verdict")).to_have_text("You won the duel!")
        expect(guest.locator("#duel-race .verdict")).to_have_text("Host won the duel.")
        expect(guest.locator(".racer[data-label=Host]")).to_have_attribute("data-state", "cleared")
        host.screenshot(path=str(shots / "duel-desktop.png"), full_page=True)
        guest.screenshot(path=str(shots / "duel-phone.png"), full_page=True)
    finally:
        host_ctx.close()
        guest_ctx.close()


def test_the_duel_buttons_are_the_sites_own(
    browser: Browser, live_server: str, shots: Path
) -> None:
    """Start and Accept look like the home page's Start (they were bare native buttons)."""
    # The guest is its own browser context: clearing the host's cookies instead raced with the
    # duel page's status poll, whose answer could set the host's session cookie again.
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
        guest.screenshot(path=str(shots / "duel-accept-phone.png"), full_page=True)
    finally:
        host_ctx.close()
        guest_ctx.close()
