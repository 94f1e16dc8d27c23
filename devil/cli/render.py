"""``devil-check``'s output put together: the sections of a report (``SECTIONS``, or
``GRAPH_SECTIONS`` on a graph board) as text or as one JSON object."""

from __future__ import annotations

import json
from collections.abc import Callable

from devil.cli.graph_sections import GRAPH_SECTIONS
from devil.cli.sections import SECTIONS, Report, Section


def sections_of(report: Report) -> list[Callable[[Report], Section]]:
    """``SECTIONS``, or on a graph board ``devil.cli.graph_sections.GRAPH_SECTIONS``."""
    if report.position.board.graph is None:
        return SECTIONS
    return GRAPH_SECTIONS


def render_text(report: Report) -> str:
    lines = (line for section in sections_of(report) for line in section(report).lines)
    return "\n".join(lines) + "\n"


def render_json(report: Report) -> str:
    out: dict[str, object] = {}
    for section in sections_of(report):
        out.update(section(report).fields)
    return json.dumps(out) + "\n"
