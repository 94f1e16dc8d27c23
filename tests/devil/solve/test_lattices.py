"""2-D lattices, the hard case for the exact engine: probabilities, witnesses, budgets.

``tests/data/lattice14.txt``: a 14x14 board with numbers on even rows and columns from a
random 30% layout (``bench/lattice.py 14 4``), every other cell covered; the sample
corpus has the 16x16, 16x30 and 40x40 lattices with truth files.
"""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import pytest

from devil import oracle, solver
from devil.analysis import Verdict
from devil.budget import Budget
from devil.position import Position
from devil.rules import Count
from tests.helpers.paths import DATA


def load(path: Path) -> Position:
    return Position.from_text(path.read_text())


def test_counted_probabilities_of_a_14x14_lattice_add_up_to_the_total() -> None:
    position = load(DATA / "lattice14.txt")
    assert position.mines is not None
    probs = solver.exact_probabilities(position, Count.COUNTED)
    assert probs.reason is None and not probs.undecided
    assert set(probs) == set(position.covered_cells())
    # the expected number of mines over all layouts with the total is the total
    assert sum(probs.values(), Fraction(0)) == position.mines
    verdicts = solver.classify(position, Count.COUNTED).verdicts
    for cell, p in probs.items():
        want = {Verdict.SAFE: p == 0, Verdict.MINE: p == 1, Verdict.EITHER: 0 < p < 1}
        assert want[verdicts[cell]], (cell, p, verdicts[cell])


def test_a_14x14_lattice_under_a_tiny_budget_is_partial() -> None:
    position = load(DATA / "lattice14.txt")
    probs = solver.exact_probabilities(position, Count.COUNTED, budget=Budget(nodes=50))
    assert probs.undecided and probs.reason is not None
    assert set(probs) | probs.undecided == set(position.covered_cells())


@pytest.mark.parametrize(
    ("name", "count"),
    [
        ("adv-lattice_40x40", Count.CLASSIC),
        ("adv-lattice_40x40", Count.COUNTED),
        ("adv-lattice_16x30", Count.COUNTED),
        ("adv-lattice_16x30", Count.CLASSIC),
    ],
)
def test_lattice_witnesses_are_consistent(name: str, count: Count) -> None:
    position = load(DATA / "positions" / f"{name}.txt")
    analysis = solver.Solver(count).analyse(position)
    verdicts = analysis.classification().verdicts
    rng = random.Random(7)
    either = sorted(c for c, v in verdicts.items() if v is Verdict.EITHER)
    for cell in rng.sample(either, 3):
        for mine in (True, False):
            layout = analysis.witness(cell, mine, random.Random(cell))
            assert layout is not None
            assert (cell in layout) is mine
            assert oracle.is_consistent(position, layout, count)
            if count is Count.COUNTED:
                assert len(layout) == position.mines


def test_counted_lattices_need_no_cpsat(monkeypatch: pytest.MonkeyPatch) -> None:
    """The counted rule on the sample lattices (40x40: 20 numbers across, too wide for
    the programme) decides every covered cell without CP-SAT, as the truth file says."""
    import json

    def no_cpsat(self: object) -> None:
        raise AssertionError("the counted rule went to CP-SAT")

    monkeypatch.setattr(solver.PositionAnalysis, "_cpsat_counted", no_cpsat)
    for name in ("adv-lattice_16x30", "adv-lattice_40x40"):
        position = load(DATA / "positions" / f"{name}.txt")
        truth = json.loads((DATA / "positions" / f"{name}.truth.json").read_text())
        result = solver.classify(position, Count.COUNTED)
        assert not result.undecided
        frontier = [
            c
            for c in position.board.cells()
            if position.is_covered(c)
            and any(position.number(n) is not None for n in position.board.neighbours(c))
        ]
        assert "".join(result.verdict(c).letter for c in frontier) == truth["global"]
