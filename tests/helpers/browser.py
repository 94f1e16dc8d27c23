"""Reading the board from a page and driving it (shared by the browser tests)."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page

from devil import oracle
from devil.analysis import Verdict
from devil.board import Cell, Topology
from devil.game import Game, GameParams, Move, Status
from devil.position import Position
from devil.rules import Count, Rules
from devil.solver import classify

# -- reading and driving the board -----------------------------------------------------

CELL_ID = re.compile(r"^(?:rp-)?c-(\d+)-(\d+)$")

READ_BOARD_JS = """(gridId) => {
  const grid = document.getElementById(gridId);
  return {
    rows: +grid.dataset.rows, cols: +grid.dataset.cols, topology: grid.dataset.topology,
    cells: Array.from(grid.querySelectorAll('.cell:not(.ghost)'))
      .map(c => [c.id, c.className, c.textContent]),
  };
}"""


def cell_char(classes: str, text: str) -> str:
    """The native position character of one rendered cell."""
    names = classes.split()
    if "hole" in names:
        return "#"
    if "flag" in names:
        return "F"
    if "covered" in names:
        return "."
    match = [n for n in names if re.fullmatch(r"n[0-8]", n)]
    assert match, f"cell with classes {classes!r} is neither covered, flagged, hole nor number"
    assert text.strip() in ("", match[0][1]), f"cell text {text!r} disagrees with {classes!r}"
    return match[0][1]


def read_rows(page: Any, grid_id: str = "board") -> tuple[list[str], str]:
    """The board as native rows (``0-8 . F #``) read from the DOM, and its topology."""
    data = page.evaluate(READ_BOARD_JS, grid_id)
    grid = [["?"] * data["cols"] for _ in range(data["rows"])]
    for cell_id, classes, text in data["cells"]:
        m = CELL_ID.match(cell_id)
        assert m, f"unexpected cell id {cell_id!r}"
        grid[int(m.group(1))][int(m.group(2))] = cell_char(classes, text)
    rows = ["".join(r) for r in grid]
    assert all("?" not in r for r in rows), "some cells are missing from the grid"
    return rows, data["topology"]


def start_game(page: Any, base: str, **fields: str) -> str:
    """Fill the home page's form (``preset``, ``width``... as the form names them) and start.

    Returns the game id."""
    page.goto(base + "/")
    preset = fields.pop("preset", "beginner")
    page.check(f"input[name=preset][value={preset}]")
    for name in ("topology", "count", "mercy"):
        if name in fields:
            page.check(f"input[name={name}][value={fields.pop(name)}]")
    no_guess = fields.pop("no_guess", True)
    page.set_checked("input[name=no_guess]", bool(no_guess))
    for name, value in fields.items():
        page.fill(f"input[name={name}]", str(value))
    page.click("button[type=submit]:has-text('Start')")
    page.wait_for_url(re.compile(r"/g/[\w-]+$"))
    return page.url.rsplit("/", 1)[1]


def answered(page: Any, key: str = "moved") -> int:
    """How many htmx requests the page has finished: ``moved`` counts answers to moves
    (``/move``), ``answered`` everything else (game.js keeps both counts on <html>)."""
    return int(page.evaluate(f"() => +(document.documentElement.dataset.{key} || 0)"))


def act(page: Any, action: Any, key: str = "moved") -> None:
    """Run ``action()`` (a click, a key press) and wait until its htmx answer is on the page.

    ``key="answered"`` waits for a request that is not a move (replay steps...)."""
    before = answered(page, key)
    action()
    page.wait_for_function(f"(n) => +(document.documentElement.dataset.{key} || 0) > n", arg=before)


# -- a classic-rule game that reaches a cell only the total proves safe -------------------


def counted_only_safe(position: Position) -> list[Cell]:
    """Covered cells the classic rule cannot clear but the counted rule proves safe (oracle)."""
    classic = oracle.classify(position).verdicts
    counted = oracle.classify(position, Count.COUNTED).verdicts
    return sorted(
        c
        for c, v in counted.items()
        if v is Verdict.SAFE and classic[c] is not Verdict.SAFE and not position.is_flagged(c)
    )


def classic_counted_seed() -> tuple[int, list[tuple[int, int]], tuple[int, int]]:
    """A beginner seed (classic rule, no-guess) whose game, played by safe clicks, reaches a
    cell only the total proves safe: (seed, the safe clicks, that cell). Found by playing the
    engine's games (the server draws the same board from the same seed), verdicts from the
    oracle."""
    for seed in range(1, 200):
        params = GameParams(height=9, width=9, mines=10, rules=Rules(), no_guess=True, seed=seed)
        game = Game.new(params).play(Move.reveal(4, 4))
        clicks = [(4, 4)]
        while game.status is Status.PLAYING:
            position = game.position
            target = counted_only_safe(position)
            if target:
                return seed, clicks, position.board.coord(target[0])
            verdicts = oracle.classify(position).verdicts
            safe = sorted(c for c, v in verdicts.items() if v is Verdict.SAFE)
            if not safe:
                break
            row, col = position.board.coord(safe[0])
            clicks.append((row, col))
            game = game.play(Move.reveal(row, col))
    raise AssertionError("no seed reaches a cell only the total proves safe")


DESKTOP = {"width": 1280, "height": 900}


PHONE = {"width": 390, "height": 844}


def visible(page: Page, mines: int | None = None, grid: str = "board") -> Position:
    rows, topology = read_rows(page, grid)
    return Position.from_rows(rows, Topology(topology), mines)


def cell_selector(position: Position, cell: Cell, prefix: str = "") -> str:
    row, col = position.board.coord(cell)
    return f"#{prefix}c-{row}-{col}"


def click(page: Page, selector: str, button: str = "left") -> None:
    act(page, lambda: page.click(selector, button=button))  # type: ignore[arg-type]


def safe_covered(position: Position, count: Count = Count.CLASSIC) -> list[Cell]:
    verdicts = classify(position, count).verdicts
    return sorted(
        c for c, v in verdicts.items() if v is Verdict.SAFE and not position.is_flagged(c)
    )


def risky_covered(position: Position) -> list[Cell]:
    verdicts = classify(position).verdicts
    return sorted(
        c for c, v in verdicts.items() if v is not Verdict.SAFE and not position.is_flagged(c)
    )


def status_text(page: Page) -> str:
    return (page.text_content("#status .pill") or "").strip()


def open_first(page: Page, row: int, col: int) -> Position:
    click(page, f"#c-{row}-{col}")
    return visible(page)


def focused_id(page: Page) -> str:
    return str(page.evaluate("() => document.activeElement && document.activeElement.id"))


def walk_to(page: Page, target: tuple[int, int]) -> None:
    row, col = (int(x) for x in focused_id(page).split("-")[1:])
    keys = ["ArrowDown" if target[0] > row else "ArrowUp"] * abs(target[0] - row)
    keys += ["ArrowRight" if target[1] > col else "ArrowLeft"] * abs(target[1] - col)
    for key in keys:
        page.keyboard.press(key)
    assert focused_id(page) == f"c-{target[0]}-{target[1]}"


LINE = "1110/1..1/1..1/0111"
