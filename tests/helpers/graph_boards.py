"""A small graph board the graph pages' tests share, and what a drawn board says of each cell."""

from __future__ import annotations

import html
import re
from typing import Any

HUB_BOARD: dict[str, Any] = {  # a 10 with ten covered neighbours: one step finds them all mines
    "format": "mine-devil-graph",
    "version": 1,
    "cells": [
        {"id": "hub", "state": 10, "label": "the hub", "at": [0, 0]},
        *({"id": f"s{i}", "state": ".", "at": [i, 1]} for i in range(10)),
        {"id": "far", "state": ".", "polygon": [[5, 3], [6, 3], [5.5, 4]]},
    ],
    "edges": [*(["hub", f"s{i}"] for i in range(10)), ["s9", "far"]],
    "mines": 11,
}

_CELL = re.compile(r'<(?:polygon|circle) class="([^"]*)" data-cell="([^"]*)"')


def drawn_classes(body: str) -> dict[str, set[str]]:
    """Each drawn cell's CSS classes, by id."""
    return {html.unescape(cid): set(cls.split()) for cls, cid in _CELL.findall(body)}
