"""The boards' palettes, read from the style sheets: a covered cell and an opened one differ by
3:1 or more in both themes (WCAG 2.2's 1.4.11: the state is shown by the fill alone). Dark
Devil World drew them 1.9:1 apart and a dark sphere's net 1.8:1 (axe does not check fills).
No browser: the colours are the sheets' custom properties."""

from __future__ import annotations

import itertools
import re

import pytest

from tests.helpers.paths import ROOT

DARK = "@media (prefers-color-scheme: dark)"


def luminance(colour: str) -> float:
    """WCAG's relative luminance of ``#rrggbb``."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def palettes(sheet: str) -> dict[str, dict[str, str]]:
    """The first ``:root`` block's colours (light) and the dark scheme's over them."""
    text = (ROOT / "static" / sheet).read_text()
    light_block = text[text.index(":root") : text.index("}", text.index(":root"))]
    dark_start = text.index(DARK)
    dark_block = text[dark_start : text.index("}", text.index(":root", dark_start))]

    def colours(block: str) -> dict[str, str]:
        return dict(re.findall(r"(--[\w-]+):\s*(#[0-9a-fA-F]{6})\b", block))

    light = colours(light_block)
    return {"light": light, "dark": {**light, **colours(dark_block)}}


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_devil_worlds_covered_and_opened_cells_differ_by_3_to_1(scheme: str) -> None:
    colours = palettes("world.css")[scheme]
    assert contrast(colours["--covered"], colours["--open"]) >= 3
    # a flag is drawn in ink on a covered cell
    assert contrast(colours["--ink"], colours["--covered"]) >= 4.5


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_graph_games_every_covered_shade_and_opened_shade_differ_by_3_to_1(
    scheme: str,
) -> None:
    """A net's faces come in three shades, so any covered shade can touch any opened one."""
    colours = palettes("graph-game.css")[scheme]
    covered = [colours[f"--g-covered{s}"] for s in ("", "-x", "-z")]
    opened = [colours[f"--g-open{s}"] for s in ("", "-x", "-z")]
    worst = min(contrast(c, o) for c, o in itertools.product(covered, opened))
    assert worst >= 3, f"{scheme}: {worst:.2f}:1"
