"""What every page's layout (``base.html``) and the board templates need: the htmx settings,
the site navigation, and the fast cell writers of ``app.play.board``."""

from __future__ import annotations

from typing import Any

from flask import Flask, current_app

from app.play.board import oob_cells_html, oob_rows_html, row_html

HTMX_CONFIG: dict[str, Any] = {
    "includeIndicatorStyles": False,  # htmx would inject a <style>: blocked by our CSP
    "allowEval": False,
    "allowScriptTags": False,
    "allowNestedOobSwaps": False,
    "historyCacheSize": 0,
    "refreshOnHistoryMiss": True,
    "defaultFocusScroll": False,
    "defaultSettleDelay": 0,  # no attribute "settling": a swapped cell shows its new state at once
    # settling copies old attributes onto swapped elements; a "style" one (the board's --cols,
    # set by game.js) would be an inline style our CSP blocks (a console error at every game end)
    "attributesToSettle": ["class", "width", "height"],
    # 4xx answers carry a message (out-of-band) for the player: swap them too.
    "responseHandling": [
        {"code": "204", "swap": False},
        {"code": "[23]..", "swap": True},
        {"code": "4..", "swap": True, "error": False},
        {"code": "...", "swap": False, "error": True},
    ],
}

NAV = (
    ("Analyse a position", "teach.analyse"),
    ("Graph boards", "graphs.analyse_graph"),
    ("Puzzles", "teach.puzzle"),
    ("Records", "ledger.records_page"),
    ("My games", "ledger.my_games"),
    ("Devil World", "world.default_world"),
    ("Duel", "duel.new"),
)
"""Links after "New game" in the site header (shown when their blueprint is registered)."""


def layout_globals() -> dict[str, Any]:
    """What ``base.html`` needs on every page."""
    nav = [(label, endpoint) for label, endpoint in NAV if endpoint in current_app.view_functions]
    return {"htmx_config": HTMX_CONFIG, "extra_nav": nav}


def init_app(app: Flask) -> None:
    app.context_processor(layout_globals)
    app.jinja_env.globals.update(
        row_html=row_html, oob_cells_html=oob_cells_html, oob_rows_html=oob_rows_html
    )
