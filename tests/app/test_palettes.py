"""The boards' palettes, read from the style sheets: a covered cell and an opened one differ by
3:1 or more in both themes (WCAG 2.2's 1.4.11: the state is shown by the fill alone). Dark
Devil World drew them 1.9:1 apart and a dark sphere's net 1.8:1 (axe does not check fills).
No browser: the colours are the sheets' custom properties."""

from __future__ import annotations

import colorsys
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


# -- the keyboard cursor's ring on graph boards ------------------------------------------------

SHADES = {"--g-covered": ("", "-x", "-z"), "--g-open": ("", "-x", "-z")}
"""A net's faces (``g.fx``, ``g.fz``) set these two to their own shades: a fill naming one
can be any of the three."""


def _var(expr: str, colours: dict[str, str]) -> list[str]:
    """``var(--name)`` or ``var(--name, #fallback)``: every colour it can be."""
    match = re.fullmatch(r"var\((--[\w-]+)(?:,\s*(#[0-9a-fA-F]{6}))?\)", expr.strip())
    assert match, f"a fill the check does not read: {expr!r}"
    name, fallback = match.groups()
    if name in SHADES:
        return [colours[name + s] for s in SHADES[name]]
    return [colours.get(name) or str(fallback)]


def _mix(a: str, share: float, b: str) -> str:
    """CSS ``color-mix(in srgb, a share, b)``."""
    return "#" + "".join(
        f"{round(int(a[i : i + 2], 16) * share + int(b[i : i + 2], 16) * (1 - share)):02x}"
        for i in (1, 3, 5)
    )


MIX = r"color-mix\(in srgb, (var\([^)]*\)) (\d+)%, (var\([^)]*\))\)"


def cell_fills(sheet: str, colours: dict[str, str]) -> set[str]:
    """Every colour a cell of ``sheet``'s boards can be filled with: each ``fill`` of a rule
    on a cell (not its text, not a ring's ``none``), in either theme's rules (literal colours
    are taken from both: more fills than either theme draws, never fewer)."""
    text = re.sub(r"/\*.*?\*/", "", (ROOT / "static" / sheet).read_text(), flags=re.S)
    fills: set[str] = set()
    for selector, body in re.findall(r"([^{}]+)\{([^{}]*)\}", text):
        if "text" in selector or "label" in selector or "hatch" in selector:
            continue
        for value in re.findall(r"(?<![\w-])fill:\s*([^;]+)", body):
            value = value.replace("!important", "").strip()
            if value == "none":
                continue
            mix = re.fullmatch(MIX, value)
            if mix:
                share = int(mix.group(2)) / 100
                fills |= {
                    _mix(a, share, b)
                    for a in _var(mix.group(1), colours)
                    for b in _var(mix.group(3), colours)
                }
            elif value.startswith("var("):
                fills |= set(_var(value, colours))
            else:  # "#rrggbb", or a hatch pattern over one: its ground and its lines
                found = re.findall(r"#[0-9a-fA-F]{6}\b", value)
                assert found, f"{sheet}: a fill the check does not read: {value!r}"
                fills |= set(found)
    return fills


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("sheet", ["graph-game.css", "graph.css"])
def test_the_keyboard_cursors_ring_shows_on_every_fill_of_a_graph_board(
    scheme: str, sheet: str
) -> None:
    """The ring (a game's ``g.focus-ring``, the analysis board's ``.focus-ring``) is two
    bands, black under the focus colour. WCAG's technique C40: two colours 9:1 or more apart
    are each 3:1 or more from... at least one of them is, from any colour next to them; so
    every fill a cell can have is 3:1 or more from one band. Amber alone was 2:1 on a light
    covered cell, 1.4:1 on a light opened cell the cursor tints."""
    sheets = ("game.css", "teach.css", "graph-game.css")  # the pages load all three
    colours = {k: v for sheet_ in sheets for k, v in palettes(sheet_)[scheme].items()}
    edge, core = colours["--focus-edge"], colours["--focus"]
    assert contrast(edge, core) >= 9
    analysis = (ROOT / "static" / "graph.css").read_text()
    hatch = re.findall(r"\.hatch-line \{ stroke: (#[0-9a-fA-F]{6})", analysis)
    fills = cell_fills(sheet, colours) | (set(hatch) if sheet == "graph.css" else set())
    assert len(fills) >= (12 if sheet == "graph-game.css" else 10), fills
    worst = min(fills, key=lambda f: max(contrast(edge, f), contrast(core, f)))
    best = max(contrast(edge, worst), contrast(core, worst))
    assert best >= 3, f"{scheme} {sheet}: on {worst} the ring's bands are {best:.2f}:1"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_hints_numbers_used_have_their_own_colour_3_to_1_on_opened_cells(scheme: str) -> None:
    """A hint marks the numbers it uses (opened cells) in a colour of their own: it was the
    amber of the keyboard cursor and of the neighbours' outline, so a player could not tell
    "the numbers this hint reads" from "the cells around the one I touched"."""
    colours = {k: v for s in ("game.css", "teach.css", "graph-game.css")
               for k, v in palettes(s)[scheme].items()}  # fmt: skip
    mark = colours["--g-number-hl"]
    sheet = (ROOT / "static" / "graph-game.css").read_text()
    assert "g.hl-number > polygon { stroke: var(--g-number-hl); }" in sheet
    opened = [colours[f"--g-open{s}"] for s in SHADES["--g-open"]]
    worst = min(contrast(mark, o) for o in opened)
    assert worst >= 3, f"{scheme}: {worst:.2f}:1"
    # the cursor's and the neighbours' amber: another hue altogether
    apart = abs(_hue(mark) - _hue(colours["--focus"])) % 360
    assert min(apart, 360 - apart) >= 90


def _hue(colour: str) -> float:
    """The hue of ``#rrggbb`` in degrees."""
    r, g, b = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return colorsys.rgb_to_hsv(r, g, b)[0] * 360
