"""Games on graph boards in Chromium: a Penrose game and a cube game started from the home
page's form and won by proofs alone through real clicks on the SVG board (the test asks the
engine which cells the player's public knowledge proves safe, read from ``/api/games/<id>/graph``,
and clicks only those); the keyboard cursor; a flag; the replay page. Screenshots on desktop
(1366x768) and phone (390x844), light and dark, in ``shots``."""

from __future__ import annotations

import json
import re
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from devil.analysis import Verdict
from devil.graphs.fileformat import read_graph
from devil.rules import Count
from devil.solver import classify
from tests.helpers.accessibility import audit
from tests.helpers.browser import act
from tests.helpers.graph_games import ISOLATED

DESKTOP: ViewportSize = {"width": 1366, "height": 768}
PHONE: ViewportSize = {"width": 390, "height": 844}


def _board_file(live_server: str, game_id: str) -> str:
    with urllib.request.urlopen(f"{live_server}/api/games/{game_id}/graph", timeout=30) as r:
        text: str = r.read().decode()
    return text


def _proved(live_server: str, game_id: str) -> tuple[list[str], list[str]]:
    """(safe ids, mine ids) that the visible position proves (the classic rule)."""
    position = read_graph(_board_file(live_server, game_id))
    layout = position.board.graph
    assert layout is not None
    verdicts = classify(position, Count.CLASSIC).verdicts
    safe = [layout.id(c) for c, v in verdicts.items() if v is Verdict.SAFE]
    mines = [layout.id(c) for c, v in verdicts.items() if v is Verdict.MINE]
    return safe, mines


def _start(page: Page, live_server: str, tiling: str, seed: int, preset: str = "beginner") -> str:
    page.goto(f"{live_server}/")
    page.check(f"input[name=preset][value={preset}]")
    page.click("details.tilings > summary")  # the tilings are folded away on the home page
    page.check(f"input[name=topology][value={tiling}]")
    page.set_checked("input[name=no_guess]", True)
    page.fill("input[name=seed]", str(seed))
    page.click("button[type=submit]:has-text('Start')")
    page.wait_for_url("**/g/*")
    return page.url.rsplit("/", 1)[1]


def _click(page: Page, cell_id: str, button: str = "left") -> None:
    cell = page.locator(f'svg.graph-game g[data-cell="{cell_id}"]')
    act(page, lambda: cell.click(button=button))  # type: ignore[arg-type]


def _win(page: Page, live_server: str, game_id: str, shots: Path, name: str) -> None:
    first = page.locator("svg.graph-game g[data-cell]").first
    _click(page, str(first.get_attribute("data-cell")))
    flagged = False
    for _ in range(200):
        if page.locator("#game.won").count():
            return
        expect(page.locator("#game.lost")).to_have_count(0)
        safe, mines = _proved(live_server, game_id)
        if not flagged and mines:
            _click(page, mines[0], "right")  # a flag: a mark only, the count goes down
            expect(page.locator(f'g[data-cell="{mines[0]}"]')).to_have_class(
                re.compile(r"^gcell covered flag\b")
            )
            flagged = True
            page.screenshot(path=str(shots / f"graph-game-{name}-midgame.png"), full_page=True)
            continue
        assert safe, "a no-guess board always has a proved-safe cell until it is won"
        _click(page, safe[0])
    raise AssertionError("the game was not won in 200 clicks")


@pytest.mark.parametrize(("tiling", "seed"), [("penrose", 11), ("cube", 7)])
def test_win_a_graph_game_by_proofs(
    page: Page, live_server: str, shots: Path, tiling: str, seed: int
) -> None:
    page.set_viewport_size(DESKTOP)
    game_id = _start(page, live_server, tiling, seed)
    expect(page.locator("svg.graph-game.live")).to_be_visible()
    _win(page, live_server, game_id, shots, tiling)
    expect(page.locator("#game.won")).to_be_visible()
    expect(page.locator("#announce")).to_contain_text("You won")
    state = json.loads(urllib.request.urlopen(f"{live_server}/api/games/{game_id}").read())
    assert state["status"] == "won" and state["graph"]["tiling"] == tiling
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme="dark" if scheme == "dark" else "light")
        for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
            page.set_viewport_size(size)
            page.screenshot(
                path=str(shots / f"graph-game-{tiling}-won-{label}-{scheme}.png"), full_page=True
            )
    page.goto(f"{live_server}/g/{game_id}/replay/2")
    expect(page.locator("svg.graph-game g[data-cell]")).not_to_have_count(0)
    # "Move 2 of n: open cell k5": the replay rings k5 (a stranger could not find it)
    moved = page.locator("svg.graph-game g.moved")
    expect(moved).to_have_count(1)
    named = re.search(r"cell (\S+)\.", str(page.locator(".replay-caption").text_content()))
    assert named and moved.get_attribute("data-cell") == named.group(1)
    expect(page.locator(".replay-key")).to_be_visible()
    page.screenshot(path=str(shots / f"graph-game-{tiling}-replay.png"), full_page=True)


RING_JS = """() => {
  const cell = document.activeElement, ring = window.MineDevilFocusRing();
  if (!ring) return 'no ring';
  if (ring.parentNode.lastElementChild !== ring) return 'under a cell';
  const shape = cell.querySelector('polygon');
  const bands = Array.from(ring.children), points = shape.getAttribute('points');
  return bands.length === 2 && bands.every(b => b.getAttribute('points') === points)
    ? 'on top' : 'elsewhere';
}"""


def test_keyboard_moves_to_the_nearest_neighbour(page: Page, live_server: str, shots: Path) -> None:
    page.set_viewport_size(PHONE)
    _start(page, live_server, "cube", 3)
    board = page.locator("svg.graph-game")
    # the phone fits a small board: no sideways scrolling; the cube's net, wider than tall,
    # is turned a quarter so its cells are big enough to tap
    assert board.bounding_box()["width"] <= PHONE["width"]  # type: ignore[index]
    expect(board).to_have_class(re.compile(r"\bturned\b"))
    smallest = page.evaluate(
        "() => Math.min(...Array.from(document.querySelectorAll('svg.graph-game polygon'),"
        " p => Math.min(p.getBoundingClientRect().width, p.getBoundingClientRect().height)))"
    )
    assert smallest >= 24, f"cells {smallest:.1f} px across are too small to tap"
    expect(page.locator("#first-click")).to_be_visible()  # "your first click is always safe"
    first = page.locator('svg.graph-game g[tabindex="0"]')
    first.focus()
    start = first.get_attribute("id")
    page.keyboard.press("ArrowDown")
    moved = page.evaluate("() => document.activeElement.id")
    near = str(page.locator(f"#{start}").get_attribute("data-near")).split()
    assert moved != start and moved in near
    # on the turned board the arrow still follows the screen
    y0, y1 = (page.locator(f"#{c}").bounding_box()["y"] for c in (start, moved))  # type: ignore[index]
    assert y1 > y0
    # the cursor's ring is drawn over every cell, on the cursor's outline
    assert page.evaluate(RING_JS) == "on top", "the keyboard cursor's ring"
    act(page, lambda: page.keyboard.press("Enter"))
    expect(page.locator("#first-click")).to_have_count(0)
    label = page.locator(f"#{moved}").get_attribute("aria-label")
    assert label is not None and "covered" not in label
    assert page.evaluate("() => document.activeElement.id") == moved
    # the cube itself, turned by a drag or by the cursor: faces turned away are hidden, the
    # cursor's cell is always one the player sees, a drag opens nothing
    page.click("[data-graph-view=solid]")
    expect(board).to_have_class(re.compile(r"\bball\b"))
    expect(board).not_to_have_class(re.compile(r"\bturned\b"))
    expect(page.locator("svg.graph-game g.back")).not_to_have_count(0)
    page.locator('svg.graph-game g[tabindex="0"]').focus()  # Tab's stop: a face in sight
    for key in ("ArrowRight",) * 6 + ("ArrowUp",) * 6:
        page.keyboard.press(key)
        now = page.locator(f"#{page.evaluate('() => document.activeElement.id')}")
        expect(now).not_to_have_class(re.compile(r"\bback\b"))
    assert page.evaluate(RING_JS) == "on top", "the ring follows a solid's turned cell"
    box = board.bounding_box()
    assert box is not None
    moves = page.locator("#status").get_attribute("data-moves")
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 80, y + 30, steps=5)
    page.mouse.up()
    page.screenshot(path=str(shots / "graph-game-cube-solid-phone.png"), full_page=True)
    assert page.locator("#status").get_attribute("data-moves") == moves
    problem = audit(page, "a cube drawn as a solid on a phone")
    assert not problem, problem
    page.click("[data-graph-view=net]")
    expect(board).to_have_class(re.compile(r"\bturned\b"))


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_graph_game_passes_axe(page: Page, live_server: str, scheme: str) -> None:
    """axe at WCAG 2.2 AA (``test_accessibility.audit``) on a running and a lost Penrose game."""
    page.emulate_media(color_scheme="dark" if scheme == "dark" else "light")
    page.set_viewport_size(DESKTOP)
    game_id = _start(page, live_server, "penrose", 5)
    first = page.locator("svg.graph-game g[data-cell]").first
    _click(page, str(first.get_attribute("data-cell")))
    problems = [audit(page, f"a running Penrose game ({scheme})")]
    position = read_graph(_board_file(live_server, game_id))
    layout = position.board.graph
    assert layout is not None
    risky = next(c for c, v in classify(position).verdicts.items() if v is not Verdict.SAFE)
    _click(page, layout.id(risky))
    expect(page.locator("#game.lost")).to_be_visible()
    problems.append(audit(page, f"a lost Penrose game ({scheme})"))
    assert not any(problems), "\n".join(problems)


def test_cells_named_in_a_hint_link_to_the_board(page: Page, live_server: str) -> None:
    page.set_viewport_size(DESKTOP)
    _start(page, live_server, "penrose", 5)
    _click(page, str(page.locator("svg.graph-game g[data-cell]").first.get_attribute("data-cell")))
    for _ in range(3):  # is there a safe cell, where, which one
        act(page, lambda: page.click("#hints button[type=submit]"), "answered")
    link = page.locator("#hints a.cell-ref").first
    expect(link).to_be_visible()
    target = str(link.get_attribute("data-cell"))
    link.hover()
    expect(page.locator(f"#{target}")).to_have_class(re.compile(r"\bhl-ref\b"))


# a covered thin rhomb in sight with a wider covered neighbour across a side: both centres
# (client px) and the direction from the first to the second
THIN_RHOMB_JS = """() => {
  const screen = g => { const s = g.querySelector('polygon'), m = s.getScreenCTM();
    const at = (x, y) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f];
    return { c: at(+g.dataset.x, +g.dataset.y), pts: Array.from(s.points, p => at(p.x, p.y)) }; };
  const narrow = g => window.MineDevilIsNarrow(g);
  const common = (a, b) => a.pts.filter(p => b.pts.some(q => Math.hypot(p[0] - q[0],
    p[1] - q[1]) < 0.5));
  const inSight = ([x, y]) => x > 30 && y > 30 && x < innerWidth - 30 && y < innerHeight - 30;
  for (const t of document.querySelectorAll('svg.graph-game g.covered[data-cell]')) {
    const T = screen(t);
    if (!narrow(t) || !inSight(T.c)) continue;
    for (const n of t.dataset.near.split(' ').map(id => document.getElementById(id))) {
      const W = screen(n), side = common(T, W);
      if (narrow(n) || !n.classList.contains('covered') || side.length !== 2) continue;
      const d = [W.c[0] - T.c[0], W.c[1] - T.c[1]];
      return { at: t.dataset.at, wideAt: n.dataset.at, width: window.MineDevilNarrowest(t),
        centre: T.c, wideCentre: W.c, dir: d.map(v => v / Math.hypot(...d)) };
    }
  }
  return null;
}"""


def test_a_finger_opens_a_thin_rhomb_in_one_tap(
    browser: Browser, live_server: str, shots: Path
) -> None:
    """Intermediate Penrose (250 cells) fits a phone: its thin rhombs are 13 px at their
    narrowest, its fat ones 21 px (WCAG 2.2's minimum target is 24). A finger's tap goes to
    the cell whose centre is nearest (the one it most likely aimed at), so a tap on a thin
    rhomb opens it at once; a tap near the line between it and a neighbour rings the nearer
    one and asks for a second. Real taps; the moves are caught before they reach the server.
    Then every board up to 300 cells fits the phone's width and a bigger one pans in its
    own frame, never the page (issue 20)."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    _start(page, live_server, "penrose", 11, "intermediate")
    act(page, lambda: page.locator('svg.graph-game g[tabindex="0"]').tap())
    page.locator("svg.graph-game").scroll_into_view_if_needed()
    page.route(re.compile(r"/move$"), lambda route: route.fulfill(status=204))
    rhomb = page.evaluate(THIN_RHOMB_JS)
    assert rhomb and 10 < rhomb["width"] < 16, rhomb
    (cx, cy), (dx, dy) = rhomb["centre"], rhomb["dir"]
    picked = page.locator("svg.graph-game g.picked")

    def sent_by_tap(x: float, y: float) -> str:
        with page.expect_request(re.compile(r"/move$"), timeout=5_000) as request:
            page.touchscreen.tap(x, y)
        return urllib.parse.parse_qs(str(request.value.post_data))["at"][0]

    # inside: its centre and 4 px either way towards its long sides open it at once
    for x, y in ((cx, cy), (cx + 4 * dx, cy + 4 * dy), (cx - 4 * dx, cy - 4 * dy)):
        assert sent_by_tap(x, y) == rhomb["at"], (x, y)
    expect(picked).to_have_count(0)
    # just outside it, in the wide neighbour, 1 px nearer the thin rhomb's centre than the wide
    # one's: too near the line between them to be sure, the thin rhomb is ringed, and a
    # second tap opens it
    (wx, wy) = rhomb["wideCentre"]
    x, y = (cx + wx) / 2 - dx, (cy + wy) / 2 - dy
    under = page.evaluate(f"() => document.elementFromPoint({x}, {y}).closest('g').dataset.at")
    assert under == rhomb["wideAt"]
    page.touchscreen.tap(x, y)
    expect(picked).to_have_attribute("data-at", rhomb["at"])
    expect(page.locator("#tap-note")).to_contain_text("Tap it again to open it")
    page.screenshot(path=str(shots / "graph-game-penrose-picked-phone.png"))  # not full: it scrolls
    assert sent_by_tap(x, y) == rhomb["at"]
    expect(page.locator("#tap-note")).to_be_empty()
    # the wide neighbour's centre opens it at once
    assert sent_by_tap(*rhomb["wideCentre"]) == rhomb["wideAt"]
    page.unroute(re.compile(r"/move$"))
    assert _phone_fit(page) == {"page": 390, "sideways": 0, "board": 366}, "Penrose 250"
    page.screenshot(path=str(shots / "graph-game-penrose-250-phone.png"), full_page=True)
    # intermediate Cairo: the whole board in sight, its cells 24.6 px (they were 23 px, drawn
    # bigger and scrolled sideways)
    _start(page, live_server, "cairo", 11, "intermediate")
    assert _phone_fit(page) == {"page": 390, "sideways": 0, "board": 366}, "Cairo 242"
    # its replay is only looked at: never grown, it fits the panel (grown, it ran off the
    # panel's right edge and looked clipped)
    page.goto(page.url + "/replay/0")
    expect(page.locator("#replay-board svg.graph-game g[data-cell]")).not_to_have_count(0)
    page.wait_for_load_state("load")
    expect(page.locator("#replay-board svg.graph-game")).not_to_have_class(re.compile(r"\bgrown\b"))
    fits = page.evaluate(
        "() => { const s = document.querySelector('.replay-view .scroller');"
        " return s.scrollWidth <= s.clientWidth + 1 && s.getBoundingClientRect().right <= 390; }"
    )
    assert fits, "the replay's board runs past the phone's edge"
    # an expert cube (486 cells) pans in its own frame: turned a quarter (less sideways) at
    # 28 px cells (at 46 px its net was 1,665 px wide), the zoom buttons and "swipe it" above
    _start(page, live_server, "cube", 11, "expert")
    expect(page.locator("svg.graph-game")).to_have_class(re.compile(r"\bturned\b"))
    fit = _phone_fit(page)
    assert fit["page"] == 390 and 300 < fit["sideways"] < 500, fit
    expect(page.locator(".graph-zoom .hint")).to_be_visible()
    for _ in range(4):
        page.click("[data-graph-zoom=out]")  # 41%: it fits
    expect(page.locator(".graph-zoom .hint")).to_be_hidden()
    assert _phone_fit(page)["sideways"] == 0
    context.close()


TYPICAL_CELL_JS = """() => {
  const cells = Array.from(document.querySelectorAll('#board svg.graph-game g[data-cell]'));
  const widths = cells.map(g => window.MineDevilNarrowest(g)).sort((a, b) => a - b);
  return widths[Math.floor(widths.length / 2)];
}"""

FRAME_JS = """() => { const f = document.querySelector('#board').closest('.scroller');
  return { left: f.scrollLeft, top: f.scrollTop }; }"""


IN_VIEW_JS = """(ids) => {
  const f = document.querySelector('#board').closest('.scroller'), box = f.getBoundingClientRect();
  const cell = id => document.querySelector(`svg.graph-game g[data-cell="${id}"]`);
  const seen = id => { const r = cell(id).getBoundingClientRect();
    return r.left > box.left + 6 && r.right < box.right - 6 && r.top > box.top + 6 &&
      r.bottom < box.bottom - 6 && r.bottom < window.innerHeight - 6 && r.top > 6; };
  const id = ids.find(seen);
  if (id) return id;
  const r = cell(ids[0]).getBoundingClientRect();  // none in sight: the frame pans to one
  f.scrollLeft += r.left + r.width / 2 - (box.left + box.width / 2);
  f.scrollTop += r.top + r.height / 2 - (box.top + box.height / 2);
  cell(ids[0]).scrollIntoView({ block: 'center', inline: 'nearest' });
  return ids[0];
}"""


def test_a_fitting_board_zooms_in_and_pans_on_a_phone(
    browser: Browser, live_server: str, shots: Path
) -> None:
    """Intermediate Penrose (250 cells) fits a phone, its typical cell about 20 px: the zoom
    bar's + makes it bigger (by touch, mouse or keyboard), the board then pans in its own
    frame (never the page), a move keeps the view where the player left it, Reset fits it
    again, and the level is remembered. Screenshots of the zoomed board: phone and desktop,
    light and dark."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    game_id = _start(page, live_server, "penrose", 11, "intermediate")
    bar = page.get_by_role("group", name="Zoom the board")
    level = bar.locator("[data-graph-zoom-level]")
    expect(level).to_have_text("100%")
    expect(bar.locator(".hint")).to_be_hidden()
    assert _phone_fit(page) == {"page": 390, "sideways": 0, "board": 366}
    fitted = page.evaluate(TYPICAL_CELL_JS)
    assert 17 < fitted < 24, fitted
    # zooming out of a board that fits does nothing: 100% is the least (and it says so)
    zoom_out = bar.get_by_role("button", name="Zoom out")
    expect(zoom_out).to_have_attribute("aria-disabled", "true")
    zoom_out.tap(force=True)  # a player may still tap it
    expect(level).to_have_text("100%")
    act(page, lambda: page.locator('svg.graph-game g[tabindex="0"]').tap())  # the first click
    bar.get_by_role("button", name="Zoom in").tap()
    bar.get_by_role("button", name="Zoom in").tap()
    expect(level).to_have_text("156%")
    expect(zoom_out).to_have_attribute("aria-disabled", "false")
    expect(page.locator("#board svg.graph-game")).to_have_class(re.compile(r"\bzoomed\b"))
    fit = _phone_fit(page)
    assert fit["page"] == 390, "the page itself never scrolls sideways"
    assert 560 <= fit["board"] <= 580 and fit["sideways"] > 150, fit
    assert page.evaluate(TYPICAL_CELL_JS) > 1.5 * fitted
    expect(bar.locator(".hint")).to_be_visible()
    # the zoom kept the middle of the board in the middle of the frame
    view = page.evaluate(FRAME_JS)
    assert view["left"] > 50, view
    page.screenshot(path=str(shots / "graph-game-penrose-zoomed-phone-light.png"))
    # a tap opens a cell, and the answer (the whole game swapped) keeps the view
    safe, _ = _proved(live_server, game_id)
    target = page.locator(f'svg.graph-game g[data-cell="{page.evaluate(IN_VIEW_JS, safe)}"]')
    before = page.evaluate(FRAME_JS)
    moves = page.locator("#status").get_attribute("data-moves")
    act(page, lambda: target.tap())
    expect(page.locator("#status")).not_to_have_attribute("data-moves", str(moves))
    expect(page.locator("#board svg.graph-game")).to_have_class(re.compile(r"\bzoomed\b"))
    assert page.evaluate(FRAME_JS) == before, "the view jumped after a move"
    # remembered: a reload keeps 156%
    page.reload()
    expect(level).to_have_text("156%")
    page.emulate_media(color_scheme="dark")
    page.screenshot(path=str(shots / "graph-game-penrose-zoomed-phone-dark.png"))
    # the keyboard: Tab to Reset, Enter: fitted again
    reset = bar.get_by_role("button", name="Reset zoom: fit the screen")
    reset.focus()
    page.keyboard.press("Enter")
    expect(level).to_have_text("100%")
    expect(page.locator("#board svg.graph-game")).not_to_have_class(re.compile(r"\bzoomed\b"))
    assert _phone_fit(page) == {"page": 390, "sideways": 0, "board": 366}
    context.close()
    # a desktop and a mouse: the same bar
    desk = browser.new_context(viewport=DESKTOP)
    page = desk.new_page()
    page.goto(f"{live_server}/g/{game_id}")
    bar = page.get_by_role("group", name="Zoom the board")
    board = page.locator("#board svg.graph-game")
    width = board.bounding_box()["width"]  # type: ignore[index]
    bar.get_by_role("button", name="Zoom in").click()
    expect(bar.locator("[data-graph-zoom-level]")).to_have_text("125%")
    assert board.bounding_box()["width"] > 1.2 * width  # type: ignore[index]
    assert page.evaluate("() => document.documentElement.scrollWidth") == DESKTOP["width"]
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        page.screenshot(path=str(shots / f"graph-game-penrose-zoomed-desktop-{scheme}.png"))
    problems = audit(page, "a zoomed Penrose game")
    assert not problems, problems
    desk.close()


PHONE_FIT_JS = """() => {
  const frame = document.querySelector('#board').closest('.scroller');
  return { page: document.documentElement.scrollWidth,
    sideways: frame.scrollWidth - frame.clientWidth,
    board: Math.round(frame.querySelector('svg.graph-game').getBoundingClientRect().width) };
}"""


def _phone_fit(page: Page) -> dict[str, int]:
    """The page's scroll width, how far the board's frame scrolls sideways, the board's
    width (px)."""
    expect(page.locator("#board svg.graph-game")).to_be_visible()
    fit: dict[str, int] = page.evaluate(PHONE_FIT_JS)
    return fit


def test_every_cell_of_a_solid_is_reached_by_a_screen_reader(
    page: Page, live_server: str, shots: Path
) -> None:
    """The cube drawn as a solid: faces turned away are hidden from sight but not from a
    screen reader (every cell keeps its accessible name); a cell the focus moves to (a
    screen reader's cursor, a cell named in a panel) is turned to face the player. A move's
    answer leaves out the corners the page kept, and the solid still draws."""
    page.set_viewport_size(DESKTOP)
    _start(page, live_server, "cube", 3)
    first = page.locator("svg.graph-game g[data-cell]").first
    _click(page, str(first.get_attribute("data-cell")))
    page.click("[data-graph-view=solid]")
    board = page.locator("svg.graph-game")
    expect(board).to_have_class(re.compile(r"\bball\b"))
    # the note under it is true of the solid too (it said "The surface of a cube, unfolded")
    expect(page.locator(".board-note").last).not_to_contain_text("cube, unfolded")
    away = page.locator("svg.graph-game g.back")
    expect(away).not_to_have_count(0)
    cells = page.locator("svg.graph-game g[data-cell]").count()
    expect(page.get_by_role("button", name=re.compile(r"^cell "))).to_have_count(cells)
    target = str(away.first.get_attribute("id"))
    page.locator(f"#{target}").focus()  # where a screen reader's cursor puts the focus
    expect(page.locator(f"#{target}")).not_to_have_class(re.compile(r"\bback\b"))
    assert float(str(page.locator(f"#{target}").get_attribute("data-tilt"))) >= 0.5
    # a move: its answer has no corners (the page kept them), the cells get them back
    safe, _ = _proved(live_server, page.url.rsplit("/", 1)[1])
    cell = page.locator(f'svg.graph-game g[data-cell="{safe[0]}"]')
    cell.dispatch_event("graph:reach")
    with page.expect_response(re.compile(r"/move$")) as answer:
        act(page, lambda: cell.click())
    assert answer.value.request.headers.get("mine-devil-corners") == "kept"
    assert "data-p3=" not in answer.value.text()
    expect(board).to_have_class(re.compile(r"\bball\b"))
    assert page.locator("svg.graph-game g[data-cell]:not([data-p3])").count() == 0
    expect(page.get_by_role("button", name=re.compile(r"^cell "))).to_have_count(cells)
    page.screenshot(path=str(shots / "graph-game-cube-solid-reached.png"), full_page=True)
    problem = audit(page, "a cube drawn as a solid, after a move")
    assert not problem, problem


def test_a_solids_replay_is_a_solid_too(page: Page, live_server: str, shots: Path) -> None:
    """A cube game played as a solid replays as a solid (the player's choice is kept), turned
    so each step's cell is in sight; a step's answer leaves out the corners the page kept."""
    page.set_viewport_size(PHONE)
    game_id = _start(page, live_server, "cube", 5)
    page.click("[data-graph-view=solid]")
    first = str(page.locator("svg.graph-game g[data-cell]").first.get_attribute("data-cell"))
    for n in range(3):  # the first click is always safe, then cells the numbers prove safe
        target = first if n == 0 else _proved(live_server, game_id)[0][0]
        cell = page.locator(f'svg.graph-game g[data-cell="{target}"]')
        cell.dispatch_event("graph:reach")
        act(page, cell.click)
    page.goto(f"{live_server}/g/{game_id}/replay/1")
    board = page.locator("#replay-board svg.graph-game")
    expect(board).to_have_class(re.compile(r"\bball\b"))
    expect(page.locator("[data-board=replay-board] [data-graph-view=solid]")).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(page.locator("#replay-board g.moved")).not_to_have_class(re.compile(r"\bback\b"))
    with page.expect_response(re.compile(r"/replay/2$")) as answer:
        act(page, lambda: page.click(".replay-steps a:has-text('Next')"), "answered")
    assert answer.value.request.headers.get("mine-devil-corners") == "kept"
    assert "data-p3=" not in answer.value.text()
    expect(page.locator(".replay-caption")).to_contain_text("Move 2 of")
    expect(board).to_have_class(re.compile(r"\bball\b"))
    expect(page.locator("#replay-board g.moved")).not_to_have_class(re.compile(r"\bback\b"))
    assert page.locator("#replay-board g[data-cell]:not([data-p3])").count() == 0
    page.screenshot(path=str(shots / "graph-game-cube-solid-replay-phone.png"), full_page=True)
    problem = audit(page, "a cube's replay drawn as a solid on a phone")
    assert not problem, problem
    page.click("[data-board=replay-board] [data-graph-view=net]")
    expect(board).not_to_have_class(re.compile(r"\bball\b"))
    # on a wide screen the game page's replay panel sits in the side column: its board fits
    page.click("[data-board=replay-board] [data-graph-view=solid]")
    page.set_viewport_size(DESKTOP)
    page.goto(f"{live_server}/g/{game_id}")
    page.click("#replay > summary")
    expect(board).to_have_class(re.compile(r"\bball\b"))
    fits = page.evaluate(
        "() => document.querySelector('#replay-board svg').getBoundingClientRect().right"
        " <= document.querySelector('#replay').getBoundingClientRect().right"
    )
    assert fits, "the replay's board runs past its panel"


def test_a_finger_on_a_spheres_rim_turns_the_cell_into_sight(
    browser: Browser, live_server: str
) -> None:
    """A covered cell at the rim of the solid sphere is a sliver on a phone: a finger's tap
    picks it and turns the sphere to face it, so the second tap is on a cell as wide as the
    others."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    _start(page, live_server, "geodesic", 3)
    page.click("[data-graph-view=solid]")
    act(page, lambda: page.locator("svg.graph-game g[data-cell]:not(.back)").first.tap())
    rim = page.evaluate(
        "() => { const g = Array.from(document.querySelectorAll("
        "'svg.graph-game g.covered:not(.back):not(.flag)')).find(g => +g.dataset.tilt < 0.3"
        " && window.MineDevilNarrowest(g) < 24); return g && g.id; }"
    )
    assert rim, "no sliver at the sphere's rim"
    cell = page.locator(f"#{rim}")
    cell.tap(force=True)
    expect(cell).to_have_class(re.compile(r"\bpicked\b"))
    assert float(str(cell.get_attribute("data-tilt"))) >= 0.5
    assert page.evaluate(f"() => window.MineDevilNarrowest(document.getElementById('{rim}'))") >= 24
    assert page.locator("#status").get_attribute("data-moves") == "1"
    context.close()


@pytest.mark.parametrize("tiling", ["penrose", "cube", "geodesic", "truncated-square"])
def test_the_arrows_reach_every_cell(page: Page, live_server: str, tiling: str) -> None:
    """From the board's tab stop, the four arrows (graph-game.js's step, walked in the page)
    reach every cell of the drawing: a rhomb at a beginner Penrose board's edge was reached
    by none, nor any small square of octagons and squares, so a keyboard player could not
    open them."""
    page.set_viewport_size(DESKTOP)
    _start(page, live_server, tiling, 2)
    missed = page.evaluate(
        "() => { const dirs = [[0, -1], [0, 1], [-1, 0], [1, 0]];"
        " const all = Array.from(document.querySelectorAll('svg.graph-game g[data-cell]'));"
        " const first = document.querySelector('svg.graph-game g[tabindex=\"0\"]');"
        " const seen = new Set([first.id]), todo = [first];"
        " while (todo.length) { const g = todo.pop(); for (const [dx, dy] of dirs) {"
        "   const n = window.MineDevilStep(g, dx, dy);"
        "   if (n && !seen.has(n.id)) { seen.add(n.id); todo.push(n); } } }"
        " return all.filter(g => !seen.has(g.id)).map(g => g.dataset.cell); }"
    )
    assert not missed, f"no arrow reaches {missed}"


def test_a_big_boards_solid_fits_a_phone(page: Page, live_server: str) -> None:
    """An intermediate geodesic sphere (320 cells, a big board: its net scrolls) drawn as the
    solid fits a phone's frame: it was 1021 px wide, and since a finger drags the solid
    rather than scrolling it, the page could not be scrolled past it."""
    page.set_viewport_size(PHONE)
    _start(page, live_server, "geodesic", 3, "intermediate")
    page.click("[data-graph-view=solid]")
    board = page.locator("svg.graph-game")
    expect(board).to_have_class(re.compile(r"\bball\b"))
    box = board.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]


def api_json(live_server: str, path: str, body: object, token: str | None = None) -> Any:
    """POST ``body`` as JSON to the live server's ``path`` (with a game's token): the answer."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(
        live_server + path, json.dumps(body).encode(), headers, method="POST"
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def test_an_impossible_no_guess_board_says_so_on_a_phone(
    page: Page, live_server: str, shots: Path
) -> None:
    """Ten isolated cells and 2 mines, asked to be guess-free: after the first click the
    status bar says, in words, why the board is not promised guess-free."""
    body = {"graph": ISOLATED, "mines": 2, "no_guess": True, "seed": 3}
    game = api_json(live_server, "/api/games", body)
    api_json(live_server, f"/api/games/{game['id']}/reveal", {"cell": "c0"}, game["token"])
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server}/g/{game['id']}")
    note = page.locator("#status .no-guess-note")
    expect(note).to_contain_text("Not guaranteed guess-free: no layout solvable by logic alone")
    expect(note).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(shots / "no-guess-note-phone.png"), full_page=True)
