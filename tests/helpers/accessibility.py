"""The accessibility audit the browser tests share: axe-core at WCAG 2.2 AA (``audit``),
with the one exception the board's scroll frame needs."""

from __future__ import annotations

from typing import Any

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page

WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


GRID_SCROLL_FRAME = ".scroller"
"""The board's scroll frame (``tests/browser/test_accessibility.py`` says why one rule skips it)."""


AXE = Axe()


def audit(page: Page, what: str) -> str:
    """Run axe on the page as it is now: its violations and their elements, or ''."""
    page.wait_for_load_state("load")
    context = {"exclude": []}
    options = {"runOnly": {"type": "tag", "values": WCAG_TAGS}, "resultTypes": ["violations"]}
    results = AXE.run(page, context=context, options=options)
    violations = [v for v in results.response["violations"] if not _grid_frame_scroll(v)]
    report = "\n".join(
        f"- {v['id']} ({v['impact']}): {v['help']}\n    "
        + "\n    ".join(
            f"{' '.join(map(str, n['target']))}: {n['failureSummary'].splitlines()[-1].strip()}"
            for n in v["nodes"][:6]
        )
        for v in violations
    )
    return f"axe finds {len(violations)} WCAG violations on {what}:\n{report}" if violations else ""


def _grid_frame_scroll(violation: dict[str, Any]) -> bool:
    """The one exception: scrollable-region-focusable on the board's scroll frame only."""
    if violation["id"] != "scrollable-region-focusable":
        return False
    return all(
        any(GRID_SCROLL_FRAME in str(t) for t in node["target"]) for node in violation["nodes"]
    )
