"""Every sample position in ``tests/data/positions`` (the corpus) against its truth file.

Both count rules: ``local`` (classic) and ``global`` (counted). The truth strings
list the frontier cells (covered cells touching a revealed number) in row-major
order; the deep cells are checked separately (always ``?`` under the classic rule).
Every position under both rules, the counted 40x40 lattice included (a second or so:
``devil.solve._cut`` conditions it on cuts; CP-SAT is not needed).
"""

from __future__ import annotations

import json

import pytest

from devil.analysis import Classification, Verdict
from devil.position import Position
from devil.rules import Count
from devil.solver import classify
from tests.helpers.paths import POSITIONS


def _names() -> list[str]:
    if not POSITIONS.is_dir():
        return []
    return sorted(p.name[: -len(".txt")] for p in POSITIONS.glob("*.txt"))


def _load(name: str) -> tuple[Position, dict[str, object]]:
    position = Position.from_text((POSITIONS / f"{name}.txt").read_text())
    truth = json.loads((POSITIONS / f"{name}.truth.json").read_text())
    return position, truth


def _frontier(position: Position) -> list[int]:
    """Covered cells touching a revealed cell, row-major (as the truth files list them)."""
    board = position.board
    return [
        c
        for c in board.cells()
        if position.is_covered(c)
        and any(position.number(n) is not None for n in board.neighbours(c))
    ]


def _letters(result: Classification, cells: list[int]) -> str:
    return "".join(result.verdict(c).letter for c in cells)


NAMES = _names()
pytestmark = pytest.mark.skipif(
    not NAMES, reason=f"sample positions not found in {POSITIONS} (the corpus in the repo)"
)


@pytest.mark.parametrize("name", NAMES)
def test_classic_rule_matches_truth(name: str) -> None:
    position, truth = _load(name)
    frontier = _frontier(position)
    assert len(frontier) == truth["n_frontier"]
    result = classify(position, Count.CLASSIC)
    assert _letters(result, frontier) == truth["local"]
    edge = set(frontier)
    deep = [c for c in position.covered_cells() if c not in edge]
    assert all(result.verdict(c) is Verdict.EITHER for c in deep)
    assert set(result.verdicts) == set(position.covered_cells())


@pytest.mark.parametrize("name", NAMES)
def test_counted_rule_matches_truth(name: str) -> None:
    position, truth = _load(name)
    assert position.mines is not None
    frontier = _frontier(position)
    result = classify(position, Count.COUNTED)
    assert _letters(result, frontier) == truth["global"]
    edge = set(frontier)
    deep = [c for c in position.covered_cells() if c not in edge]
    assert len({result.verdict(c) for c in deep}) <= 1
