"""A lost expert cube game on a 390 px phone: its board's frame starts on the opened cells,
not on the net's empty corner; its replay's last move says "Why?", which opens the position
before it on the graph analysis board with the fatal cell chosen. Screenshots in ``shots``."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, ViewportSize, expect

from devil.analysis import Verdict
from devil.graphs.fileformat import read_graph
from devil.solver import classify

PHONE: ViewportSize = {"width": 390, "height": 844}
FRAME_JS = """() => { const f = document.querySelector('#board').closest('.scroller');
  const r = f.getBoundingClientRect(), inside = (c) =>
    c.right > r.left && c.left < r.right && c.bottom > r.top && c.top < r.bottom;
  const seen = [...f.querySelectorAll('g.gcell.open')].filter(
    (g) => inside(g.getBoundingClientRect())).length;
  return { left: f.scrollLeft, wide: f.scrollWidth > f.clientWidth, seen: seen }; }"""


def _api(live_server: str, path: str, body: Any = None, token: str = "") -> Any:
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(live_server + path, data, headers)
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.load(answer)


def test_a_lost_cube_game_on_a_phone_opens_its_fatal_move_on_the_analysis_board(
    page: Page, live_server: str, shots: Path
) -> None:
    game = _api(live_server, "/api/games", {"tiling": "cube", "preset": "expert", "seed": 3})
    gid, token = game["id"], game["token"]
    cells = game["state"]["cells"]
    _api(live_server, f"/api/games/{gid}/reveal", {"cell": cells[len(cells) // 2]["id"]}, token)
    with urllib.request.urlopen(f"{live_server}/api/games/{gid}/graph", timeout=30) as answer:
        position = read_graph(answer.read().decode())
    layout = position.board.graph
    assert layout is not None
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server}/g/{gid}")
    frame = page.evaluate(FRAME_JS)
    assert frame["wide"] and frame["left"] > 0 and frame["seen"] > 0, frame
    page.screenshot(path=str(shots / "graph-study-cube-phone-game.png"))
    # lose on a cell the public position does not prove safe
    risky = next(c for c, v in classify(position).verdicts.items() if v is not Verdict.SAFE)
    fatal = layout.id(risky)
    assert _api(live_server, f"/api/games/{gid}/reveal", {"cell": fatal}, token)["status"] == "lost"
    page.goto(f"{live_server}/g/{gid}/replay/2")
    why = page.locator("#move-note a.why")
    expect(why).to_be_visible()
    page.screenshot(path=str(shots / "graph-study-cube-phone-replay.png"), full_page=True)
    why.click()
    page.wait_for_url("**/study?**")
    expect(page.locator("#graph-origin")).to_contain_text("Move 2 of 2 of this game (open cell")
    expect(page.locator("#graph-proof h3")).to_contain_text(layout.label(risky))
    assert page.locator("textarea#graph-text").input_value().startswith("{")
    page.screenshot(path=str(shots / "graph-study-cube-phone-why.png"), full_page=True)
    assert fatal in page.url
