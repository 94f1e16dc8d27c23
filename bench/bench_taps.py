"""Finger taps on a phone's graph board, simulated with the page's own hit rule.

    MINE_DEVIL_CHROMIUM=$(command -v chromium) .venv/bin/python bench/bench_taps.py
    ... bench_taps.py --tiling truncated-square --preset intermediate --spread 3 5 7
    ... bench_taps.py --zoom 1 1.5 2     # the board zoomed in (the zoom bar's level)

Starts the app (SQLite in a temporary directory) and a game on a 390x844 touch phone in
Chromium, opens its first cell, then aims ``--taps`` taps at the centre of every cell with a
Gaussian spread (``--spread``, px, each axis). Each tap point goes through what a real tap
meets: the cell drawn under it, then ``graph-game.js``'s ``fingerHit`` (the nearest centre;
a doubt when near the line between a narrow cell and another). Per spread, for cells under
24 px ("narrow") and the others: the share opened at once, asked about (ringed, a second tap
needed) and sent to another cell, and the same over all cells ("all": the share of taps
that get "tap again to open"); and, for comparison, what the drawn cell alone did before
(a narrow cell always asked; a tap outside the aimed cell reached another). ``--zoom``: at
each of these levels of the zoom bar (1: fitted to the phone; a fitting board's zoom,
``graph-game.js``), the page reloaded on the same game.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.sync_api import sync_playwright
from werkzeug.serving import make_server

from app import create_app

FIT_ZOOM_KEY = "mine-devil-graph-fit-zoom"
"""Where ``graph-game.js`` keeps a fitting board's zoom."""

SIMULATE = """([spreads, taps]) => {
  const cells = Array.from(document.querySelectorAll('svg.graph-game g[data-cell]'));
  const screen = g => { const s = g.querySelector('polygon'), m = s.getScreenCTM();
    const at = (x, y) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f];
    return { c: at(+g.dataset.x, +g.dataset.y), pts: Array.from(s.points, p => at(p.x, p.y)),
      narrow: window.MineDevilNarrowest(g) < 24 }; };
  const seen = new Map(cells.map(g => [g, screen(g)]));
  const inside = (P, x, y) => {
    let c = false;
    for (let i = 0, j = P.length - 1; i < P.length; j = i++) {
      const [xi, yi] = P[i], [xj, yj] = P[j];
      if ((yi > y) !== (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi) c = !c;
    }
    return c;
  };
  let seed = 1;
  const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const gauss = () => Math.sqrt(-2 * Math.log(rnd())) * Math.cos(2 * Math.PI * rnd());
  return spreads.map(sigma => {
    const rows = {};
    for (const g of cells) {
      const me = seen.get(g), kind = me.narrow ? 'narrow' : 'wide';
      const r = rows[kind] = rows[kind] || { cells: 0, taps: 0, open: 0, ask: 0, other: 0,
        oldAsk: 0, oldOther: 0 };
      r.cells++;
      for (let k = 0; k < taps; k++) {
        const x = me.c[0] + sigma * gauss(), y = me.c[1] + sigma * gauss();
        const near = [g].concat(g.dataset.near.split(' ').map(id => document.getElementById(id)));
        const under = near.find(n => n && inside(seen.get(n).pts, x, y)) ||
          cells.find(n => inside(seen.get(n).pts, x, y));
        if (!under) continue;  // off the board: nothing happens, then or now
        r.taps++;
        const hit = window.MineDevilFingerHit(under, x, y);
        if (hit.doubt) r.ask++; else if (hit.cell === g) r.open++; else r.other++;
        if (under !== g) r.oldOther++; else if (me.narrow) r.oldAsk++;
      }
    }
    return [sigma, rows];
  });
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiling", default="penrose")
    parser.add_argument("--preset", default="intermediate")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--spread", type=float, nargs="+", default=[3.0, 5.0, 7.0])
    parser.add_argument("--taps", type=int, default=40, help="taps aimed at each cell")
    parser.add_argument(
        "--zoom", type=float, nargs="+", default=[1.0], help="zoom levels (1: fitted)"
    )
    args = parser.parse_args()
    data = tempfile.mkdtemp(prefix="bench-taps-")
    app = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "bench-taps",
            "DATA_DIR": data,
            "DATABASE_URL": f"sqlite:///{data}/taps.sqlite3",
            "RATELIMIT_ENABLED": False,
        }
    )
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    chromium = os.environ.get("MINE_DEVIL_CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_context(
            viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
        ).new_page()
        page.goto(f"{base}/")
        page.check(f"input[name=preset][value={args.preset}]")
        page.click("details.tilings > summary")
        page.check(f"input[name=topology][value={args.tiling}]")
        page.fill("input[name=seed]", str(args.seed))
        page.click("button[type=submit]:has-text('Start')")
        page.wait_for_url("**/g/*")
        page.locator('svg.graph-game g[tabindex="0"]').tap()
        page.wait_for_selector("#first-click", state="detached")
        results: list[tuple[float, list[Any]]] = []
        for level in args.zoom:
            page.evaluate(f"() => localStorage.setItem('{FIT_ZOOM_KEY}', '{level}')")
            page.reload()
            page.wait_for_selector("svg.graph-game g[data-cell]")
            results.append((level, page.evaluate(SIMULATE, [args.spread, args.taps])))
        browser.close()
    server.shutdown()
    print(f"{args.tiling} {args.preset} (seed {args.seed}) on a 390x844 phone, {args.taps} taps")
    for level, spreads in results:
        print(f"zoom {level:.0%}")
        print("spread px  cells   taps    open at once   asks   another | before: asks   another")
        for sigma, rows in spreads:
            rows["all"] = {
                key: sum(r[key] for r in rows.values()) for key in next(iter(rows.values()))
            }
            for kind in ("narrow", "wide", "all"):
                r = rows.get(kind)
                if not r or not r["taps"]:
                    continue
                n = r["taps"]
                print(
                    f"{sigma:8.1f}  {kind:6} {r['cells']:4} {n:6}   {r['open'] / n:11.1%}"
                    f"  {r['ask'] / n:6.1%}  {r['other'] / n:7.1%} |"
                    f"       {r['oldAsk'] / n:6.1%}  {r['oldOther'] / n:7.1%}"
                )


if __name__ == "__main__":
    main()
