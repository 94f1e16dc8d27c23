"""Driving the Devil World page (``/world/<w>``) from Playwright: joining, reading the board
through ``window.worldBoard`` (the page's own model of the cells it shows), clicking cells by
their world coordinates, and the team's knowledge through the JSON API."""

from __future__ import annotations

import json
import secrets
import urllib.request
from typing import Any

from playwright.sync_api import Page, expect

from devil.world.deduce import deduce

VIEW = 64  # side of the API view read around a drop by the tests


def api(base: str, path: str, payload: dict[str, Any] | None = None) -> Any:
    data = None if payload is None else json.dumps(payload).encode()
    req = urllib.request.Request(
        base + path, data=data, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def new_world(base: str, colours: int = 6) -> str:
    world = "w" + secrets.token_hex(4)
    api(base, "/api/worlds", {"id": world, "colours": colours})
    return world


def team_view(
    base: str, world: str, team: str, colour: int, x0: int, y0: int, side: int = VIEW
) -> list[str]:
    query = f"colour={colour}&x0={x0}&y0={y0}&width={side}&height={side}"
    rows: list[str] = api(base, f"/api/worlds/{world}/teams/{team}/view?{query}")["rows"]
    return rows


def join(page: Page, base: str, world: str, name: str, team: str, colour: int = 0) -> None:
    page.goto(f"{base}/world/{world}")
    join = page.locator("#join")
    if join.get_attribute("open") is None:
        page.click("#join summary")
    page.fill("input[name=name]", name)
    options = page.locator("select[name=team] option").all_text_contents()
    if team in options:
        page.select_option("select[name=team]", team)
    else:
        page.fill("input[name=new_team]", team)
    page.check(f"input[name=colour][value='{colour}']")
    page.click(".join-form button[type=submit]")
    expect(page.locator("#my-name")).to_have_text(name)
    wait_ready(page)


def wait_ready(page: Page) -> None:
    page.wait_for_function("() => window.worldBoard && window.worldBoard.state().tiles > 0")
    page.wait_for_function("() => !document.querySelector('.wtile.loading')")


def state(page: Page) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate("() => window.worldBoard.state()")
    return found


def symbol(page: Page, x: int, y: int) -> str | None:
    found: str | None = page.evaluate("([x, y]) => window.worldBoard.symbol(x, y)", [x, y])
    return found


def wait_symbol(page: Page, x: int, y: int, allowed: str, timeout: float = 20_000) -> None:
    page.wait_for_function(
        "([x, y, allowed]) => { const s = window.worldBoard.symbol(x, y);"
        " return s !== null && allowed.includes(s); }",
        arg=[x, y, allowed],
        timeout=timeout,
    )


def cell_point(page: Page, x: int, y: int) -> tuple[float, float]:
    """The page coordinates of the centre of cell (x, y) (it must be in view)."""
    box = page.locator("#world-board").bounding_box()
    assert box is not None
    s = state(page)
    # whole-number parts first (exact in Python), then the small fractional offsets
    px = box["x"] + ((x - s["ax"]) - s["rx"]) * s["cs"] + s["cs"] / 2
    py = box["y"] + ((y - s["ay"]) - s["ry"]) * s["cs"] + s["cs"] / 2
    assert box["x"] <= px <= box["x"] + box["width"], f"cell ({x}, {y}) is out of view"
    assert box["y"] <= py <= box["y"] + box["height"], f"cell ({x}, {y}) is out of view"
    return px, py


def click_cell(page: Page, x: int, y: int, button: str = "left") -> None:
    px, py = cell_point(page, x, y)
    page.mouse.click(px, py, button=button)  # type: ignore[arg-type]


def drop(page: Page) -> tuple[int, int]:
    """Press "Drop here"; the view centres on the drop. Returns where it landed."""
    with page.expect_response(lambda r: r.url.endswith("/moves")) as info:
        page.click("#drop")
    result = info.value.json()["results"][0]
    assert result["outcome"] == "dropped", result
    x, y = result["at"]
    wait_symbol(page, x, y, "0")
    return int(x), int(y)


def provable(
    base: str, world: str, team: str, colour: int, x: int, y: int
) -> tuple[set[tuple[int, int]], set[tuple[int, int]]]:
    """Covered cells the team's knowledge proves safe, and provable mines, around (x, y)."""
    x0, y0 = x - VIEW // 2, y - VIEW // 2
    rows = team_view(base, world, team, colour, x0, y0)
    found = deduce(rows, x0, y0)
    near = lambda c: abs(c[0] - x) <= 8 and abs(c[1] - y) <= 6  # noqa: E731 (in view on a phone too)
    return {c for c in found.safe if near(c)}, {c for c in found.mines if near(c)}


def drop_with_mine(
    page: Page, base: str, world: str, team: str, colour: int, tries: int = 6, want: str = "mine"
) -> tuple[int, int, set[tuple[int, int]], set[tuple[int, int]]]:
    """Drop (moving 300 cells away between tries) until a provable mine (``want="mine"``) or
    a provably safe covered cell (``"safe"``) is near the drop.

    Returns the drop's cell, the provably safe cells and the provable mines near it."""
    for attempt in range(tries):
        if attempt:
            page.evaluate(f"() => window.worldBoard.goTo({300 * attempt}, {-200 * attempt})")
            wait_ready(page)
        x, y = drop(page)
        safe, mines = provable(base, world, team, colour, x, y)
        if mines if want == "mine" else safe:
            return x, y, safe, mines
    raise AssertionError(f"no provable {want} near {tries} drops")
