"""The brute-force oracle on hand-checked positions, and against the literal rule.

Everything else is tested against ``devil.oracle``, so it is checked here on its own:
on positions whose answers were worked out by hand (noted beside each), and on random
tiny positions against ``full_layouts``, which tries every assignment of every covered
cell and checks it with ``is_consistent``.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from devil import oracle
from devil.analysis import Verdict
from devil.board import Board, Cell
from devil.errors import InconsistentPosition
from devil.position import Position
from devil.rules import Count
from tests.helpers.paths import POSITIONS
from tests.helpers.strategies import (
    Scenario,
    inconsistent_positions,
    profile,
    scenarios,
    tiny_scenarios,
)

S, M, E = Verdict.SAFE, Verdict.MINE, Verdict.EITHER


def letters(position: Position, count: Count = Count.CLASSIC) -> list[str]:
    """The verdicts as rows of letters, covered cells only (``-`` elsewhere)."""
    verdicts = oracle.classify(position, count).verdicts
    w = position.board.width
    return [
        "".join(verdicts[r * w + c].letter if r * w + c in verdicts else "-" for c in range(w))
        for r in range(position.board.height)
    ]


def probs(position: Position, count: Count = Count.CLASSIC) -> list[list[Fraction | None]]:
    p = oracle.probabilities(position, count)
    w = position.board.width
    return [[p.get(r * w + c) for c in range(w)] for r in range(position.board.height)]


# -- hand-checked positions ------------------------------------------------------------


def test_lone_one_with_two_covered_neighbours() -> None:
    # ".1." on a single row: the 1 sees exactly the two covered cells; one of them is a mine.
    p = Position.from_line(".1.")
    assert letters(p) == ["?-?"]
    assert sorted(map(sorted, oracle.edge_layouts(p))) == [[0], [2]]
    assert probs(p) == [[Fraction(1, 2), None, Fraction(1, 2)]]
    assert oracle.count_layouts(p) == 2
    assert oracle.count_layouts(p.with_mines(1), Count.COUNTED) == 2
    assert letters(p.with_mines(1), Count.COUNTED) == ["?-?"]


def test_one_two_one_pattern() -> None:
    # 1-2-1 over a covered row: the only fit is mine, safe, mine.
    p = Position.from_line("121/...;mines=2")
    for count in Count:
        assert letters(p, count) == ["---", "MSM"]
        assert probs(p, count)[1] == [1, 0, 1]
    assert oracle.count_layouts(p) == 1
    assert oracle.edge_layouts(p) == [frozenset({3, 5})]


def test_counted_rule_makes_deep_cells_safe() -> None:
    # The 1 sees 3 edge cells with exactly one mine; with 1 mine in total, the two deep
    # cells (right column) are safe under the counted rule, unknown under the classic one.
    p = Position.from_line("1../...;mines=1")
    assert letters(p, Count.CLASSIC) == ["-??", "???"]
    assert letters(p, Count.COUNTED) == ["-?S", "??S"]
    third = Fraction(1, 3)
    assert probs(p, Count.COUNTED) == [[None, third, 0], [third, third, 0]]
    # classic: p = 1 mine / 6 cells for the deep cells; the edge layouts all have k=1.
    sixth = Fraction(1, 6)
    assert probs(p, Count.CLASSIC) == [[None, third, sixth], [third, third, sixth]]
    assert oracle.count_layouts(p, Count.CLASSIC) == 3 * 4
    assert oracle.count_layouts(p, Count.COUNTED) == 3


def test_counted_rule_makes_deep_cells_mines() -> None:
    p = Position.from_line("1../...;mines=3")
    assert letters(p, Count.COUNTED) == ["-?M", "??M"]
    assert oracle.count_layouts(p, Count.COUNTED) == 3


def test_weights_differ_by_edge_mine_count() -> None:
    # 1.1 over a covered row, a deep bottom row (3 cells), 2 mines in total.
    # Edge layouts: {(0,1)} and {(1,1)} with k=1, {(1,0),(1,2)} with k=2.
    # Counted: weights C(3,1)=3, 3 and C(3,0)=1, total 7.
    p = Position.from_line("1.1/.../...;mines=2")
    assert probs(p, Count.COUNTED) == [
        [None, Fraction(3, 7), None],
        [Fraction(1, 7), Fraction(3, 7), Fraction(1, 7)],
        [Fraction(2, 7)] * 3,  # (3*(1/3) + 3*(1/3) + 1*0) / 7
    ]
    # Classic: p = 2/9, a k=2 layout weighs p/(1-p) = 2/7 of a k=1 layout: total 16/7.
    assert probs(p, Count.CLASSIC) == [
        [None, Fraction(7, 16), None],
        [Fraction(1, 8), Fraction(7, 16), Fraction(1, 8)],
        [Fraction(2, 9)] * 3,
    ]
    assert letters(p, Count.COUNTED) == ["-?-", "???", "???"]
    assert oracle.count_layouts(p, Count.COUNTED) == 3 + 3 + 1
    assert oracle.count_layouts(p, Count.CLASSIC) == 3 * 8


def test_classic_density_defaults_to_a_fifth_without_a_total() -> None:
    p = Position.from_line("1.../....")
    assert oracle.probabilities(p)[3] == Fraction(1, 5)


def test_flags_are_only_marks() -> None:
    # A wrong flag next to a 0 is safe; a flag is a covered cell like any other.
    assert letters(Position.from_line("0F")) == ["-S"]
    assert letters(Position.from_line("1F")) == ["-M"]
    assert letters(Position.from_line("F1F")) == ["?-?"]


def test_hex_neighbours() -> None:
    # odd-r: (0,0) touches (0,1) and (1,0) but not (1,1), which stays deep.
    p = Position.from_line("1./..;mines=1;topology=hex")
    assert letters(p, Count.CLASSIC) == ["-?", "??"]
    assert letters(p, Count.COUNTED) == ["-?", "?S"]
    # odd row: (1,0) touches (0,0), (0,1), (1,1); a 3 there makes all three mines.
    q = Position.from_line("../3.;topology=hex")
    assert letters(q) == ["MM", "-M"]


def test_torus_wraps() -> None:
    # On a 3x3 torus every cell touches the other eight: a 1 makes each of them 1/8.
    p = Position.from_line("1../.../...;topology=torus")
    assert set(oracle.probabilities(p).values()) == {Fraction(1, 8)}
    # The corner 0 on a torus clears the opposite corner too.
    q = Position.from_line("0../.../...;topology=torus")
    assert letters(q) == ["-SS", "SSS", "SSS"]


def test_holes_are_not_cells() -> None:
    # A hole is never a mine nor a neighbour: the 1 at (0,0) touches the holes (0,1) and
    # (1,1) and the covered (1,0), which must be its mine; the right column is deep.
    p = Position.from_line("1#./.#.")
    assert letters(p) == ["--?", "M-?"]


# -- inconsistent positions and bad input ------------------------------------------------


def test_number_with_too_few_covered_neighbours() -> None:
    with pytest.raises(InconsistentPosition, match=r"the 4 at row 0, col 0 has only 3 covered"):
        oracle.classify(Position.from_line("4./.."))


def test_unsatisfiable_numbers_name_one() -> None:
    # The 3 mines the whole row, so the 1 on its left would see two mines.
    with pytest.raises(InconsistentPosition, match=r"the 3 at row 0, col 1") as info:
        oracle.classify(Position.from_line("131/..."))
    assert info.value.cell == 1
    assert oracle.count_layouts(Position.from_line("131/...")) == 0


def test_total_that_cannot_fit() -> None:
    p = Position.from_line("1../...;mines=4")  # at most 1 edge mine + 2 deep
    assert letters(p, Count.CLASSIC) == ["-??", "???"]
    with pytest.raises(InconsistentPosition, match="exactly 4 mines"):
        oracle.classify(p, Count.COUNTED)
    assert oracle.count_layouts(p, Count.COUNTED) == 0


def test_counted_rule_needs_a_total() -> None:
    with pytest.raises(ValueError, match="total number of mines"):
        oracle.classify(Position.from_line("1../..."), Count.COUNTED)


def test_refuses_large_positions() -> None:
    # A 1 in every other cell of the top row of a wide board: 2 * 13 + ... edge cells.
    width = 26
    p = Position.from_rows(["0" * width, "." * width])
    assert len(p.edge) == width
    with pytest.raises(ValueError, match=r"at most 22 edge cells; this position has 26"):
        oracle.classify(p)
    with pytest.raises(ValueError, match=r"at most 16 covered cells"):
        oracle.full_layouts(p)


def test_is_consistent() -> None:
    p = Position.from_line("121/...;mines=2")
    assert oracle.is_consistent(p, {3, 5})
    assert oracle.is_consistent(p, {3, 5}, Count.COUNTED)
    assert not oracle.is_consistent(p, {3, 4})
    assert not oracle.is_consistent(p, {3})
    assert not oracle.is_consistent(p, {0, 3, 5})  # a revealed cell cannot hold a mine
    assert not oracle.is_consistent(p, {3, 5, 99})  # off the board
    q = Position.from_line("1../...;mines=2")
    assert oracle.is_consistent(q, {1})
    assert not oracle.is_consistent(q, {1}, Count.COUNTED)
    assert oracle.is_consistent(q, {1, 5}, Count.COUNTED)


def test_is_consistent_ignores_holes_as_mines() -> None:
    p = Position.from_line("0#/..")
    assert not oracle.is_consistent(p, {1})
    assert oracle.is_consistent(p, set())


# -- against the literal rule on random tiny positions --------------------------------------


def literal_probabilities(
    position: Position, layouts: list[frozenset[Cell]], count: Count
) -> dict[Cell, Fraction]:
    """Marginals over full layouts: uniform (counted), or weighted by density (classic)."""
    covered = list(position.covered_cells())
    if count is Count.COUNTED:
        weights = [Fraction(1)] * len(layouts)
    else:
        p = oracle.classic_density(position)
        weights = [p ** len(lay) * (1 - p) ** (len(covered) - len(lay)) for lay in layouts]
    total = sum(weights, Fraction(0))
    return {
        c: sum((w for w, lay in zip(weights, layouts, strict=True) if c in lay), Fraction(0))
        / total
        for c in covered
    }


@profile()
@given(tiny_scenarios(), st.sampled_from(Count))
def test_oracle_matches_literal_enumeration(scenario: Scenario, count: Count) -> None:
    position = scenario.position
    layouts = oracle.full_layouts(position, count)
    assert scenario.layout in layouts  # the true layout always fits
    assert oracle.count_layouts(position, count) == len(layouts)
    verdicts = oracle.classify(position, count).verdicts
    assert set(verdicts) == set(position.covered_cells())
    for cell, verdict in verdicts.items():
        mined = sum(cell in lay for lay in layouts)
        expected = S if mined == 0 else M if mined == len(layouts) else E
        assert verdict is expected, (cell, verdict)
    assert oracle.probabilities(position, count) == literal_probabilities(position, layouts, count)


@profile()
@given(inconsistent_positions(max_edge=12))
def test_oracle_raises_exactly_when_nothing_fits(position: Position) -> None:
    try:
        layouts = oracle.full_layouts(position)
    except InconsistentPosition:
        layouts = []  # a number larger than its covered neighbours
    except ValueError:
        return  # too many covered cells for the literal check
    if layouts:
        oracle.classify(position)
    else:
        with pytest.raises(InconsistentPosition) as info:
            oracle.classify(position)
        assert info.value.cell is not None
        assert position.number(info.value.cell) is not None


@profile()
@given(scenarios())
def test_edge_layouts_are_consistent_and_include_the_truth(scenario: Scenario) -> None:
    position = scenario.position
    edge = position.edge
    found = oracle.edge_layouts(position)
    assert len(set(found)) == len(found)
    assert scenario.layout & edge in found
    for layout in found:
        assert layout <= edge
        assert oracle.is_consistent(position, layout)


def test_board_helper_sanity() -> None:
    # Guards the hand-checked hex case above against a change of convention.
    b = Board(2, 2)
    assert sorted(b.neighbours(0)) == [1, 2, 3]


# -- the truth files -------------------------------------------------------------------


def small_truth_files() -> list[Path]:
    """Sample positions with few enough edge cells for the oracle."""
    if not POSITIONS.is_dir():
        return []
    return [
        path
        for path in sorted(POSITIONS.glob("inter_*.txt"))
        if len(Position.from_text(path.read_text()).edge) <= oracle.MAX_EDGE
    ]


@pytest.mark.skipif(not POSITIONS.is_dir(), reason=f"no sample positions at {POSITIONS}")
@pytest.mark.parametrize("path", small_truth_files(), ids=lambda p: p.stem)
def test_truth_files(path: Path) -> None:
    position = Position.from_text(path.read_text())
    truth = json.loads(path.with_suffix("").with_suffix(".truth.json").read_text())
    frontier = sorted(position.edge)
    for count, key in ((Count.CLASSIC, "local"), (Count.COUNTED, "global")):
        verdicts = oracle.classify(position, count).verdicts
        assert "".join(verdicts[c].letter for c in frontier) == truth[key], key
