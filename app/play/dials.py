"""The dials every new game shares, read from JSON or form fields: the count and mercy
rules, no-guess and the layout's seed (``app.play.params`` for grids,
``app.play.graph_params`` for graph boards)."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from app.fields import bounded, choice, present, true_or_false
from devil.rules import Count, Mercy, Rules

MAX_SEED = 2**63 - 1


def game_dials(data: Mapping[str, Any]) -> tuple[Rules, bool, int]:
    """``(rules, no_guess, seed)``: ``count`` (classic/counted), ``mercy`` (strict/fair),
    ``no_guess`` (default true), ``seed`` (default random, secret)."""
    count = Count.CLASSIC
    if present(data, "count"):
        count = Count(choice(data["count"], "count", (c.value for c in Count)))
    mercy = Mercy.STRICT
    if present(data, "mercy"):
        mercy = Mercy(choice(data["mercy"], "mercy", (m.value for m in Mercy)))
    no_guess = true_or_false(data["no_guess"], "no_guess") if "no_guess" in data else True
    if present(data, "seed"):
        seed = bounded(data["seed"], "seed", 0, MAX_SEED)
    else:
        seed = secrets.randbelow(MAX_SEED)
    return Rules(count, mercy), no_guess, seed
