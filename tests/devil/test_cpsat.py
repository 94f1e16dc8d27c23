"""The CP-SAT backend: against the oracle on random positions and the truth files."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from devil import oracle
from devil.analysis import Verdict
from devil.board import Cell
from devil.errors import InconsistentPosition
from devil.position import Position
from devil.rules import Count
from tests.helpers.paths import POSITIONS, ROOT
from tests.helpers.strategies import (
    Scenario,
    inconsistent_positions,
    profile,
    scenarios,
    tiny_scenarios,
)

cpsat = pytest.importorskip("devil.cpsat", reason="OR-Tools is not installed")


# -- hand-checked positions ------------------------------------------------------------


def letters(position: Position, count: Count = Count.CLASSIC) -> str:
    verdicts = cpsat.classify(position, count).verdicts
    return "".join(verdicts[c].letter for c in sorted(verdicts))


def test_classify_small_positions() -> None:
    assert letters(Position.from_line("121/...")) == "MSM"
    p = Position.from_line("1../...;mines=1")
    assert letters(p, Count.CLASSIC) == "?????"
    assert letters(p, Count.COUNTED) == "?S??S"  # cells 1, 2, 3, 4, 5
    assert letters(p.with_mines(3), Count.COUNTED) == "?M??M"
    assert letters(Position.from_line("0F")) == "S"


def test_inconsistent_numbers_are_named() -> None:
    with pytest.raises(InconsistentPosition, match=r"the 1 at row 0, col 0 cannot be satisfied"):
        cpsat.classify(Position.from_line("131/..."))
    with pytest.raises(InconsistentPosition, match=r"the 4 at row 0, col 0 has only 3"):
        cpsat.classify(Position.from_line("4./.."))


def test_inconsistent_total() -> None:
    with pytest.raises(InconsistentPosition, match="exactly 4 mines") as info:
        cpsat.classify(Position.from_line("1../...;mines=4"), Count.COUNTED)
    assert info.value.cell is None


def test_counted_rule_needs_a_total() -> None:
    with pytest.raises(ValueError, match="total number of mines"):
        cpsat.classify(Position.from_line("1../..."), Count.COUNTED)


def test_witness_small() -> None:
    p = Position.from_line("121/...;mines=2")
    assert cpsat.witness(p, 3, mine=True) == frozenset({3, 5})
    assert cpsat.witness(p, 4, mine=True) is None
    q = Position.from_line("1../...;mines=1")
    # Counted: a deep cell cannot hold the only mine, which the 1 needs.
    assert cpsat.witness(q, 2, mine=True, count=Count.COUNTED) is None
    # Classic: it can, with one more mine for the 1.
    w = cpsat.witness(q, 2, mine=True)
    assert w is not None and 2 in w and oracle.is_consistent(q, w)
    with pytest.raises(ValueError, match="row 0, col 0 is not a covered cell"):
        cpsat.witness(q, 0)


def test_witness_prefers_the_total_under_classic() -> None:
    q = Position.from_line("1.../....;mines=3")
    for cell in (1, 2, 7):
        w = cpsat.witness(q, cell, mine=True)
        assert w is not None and cell in w and len(w) == 3 and oracle.is_consistent(q, w)


def test_witness_of_inconsistent_position_raises() -> None:
    with pytest.raises(InconsistentPosition):
        cpsat.witness(Position.from_line("131/..."), 3)


def test_unsat_core_small() -> None:
    # Cell 4 (below the 2) cannot be a mine: both 1s and the 2 are needed to show it.
    p = Position.from_line("121/...")
    assert cpsat.unsat_core(p, 4, True) == [0, 1, 2]
    # Cell 3 cannot be safe: the 2 needs two mines and the right 1 allows only one of
    # cells 4 and 5. The left 1 is not needed (alone with the 2 it allows 4 and 5).
    assert cpsat.unsat_core(p, 3, False) == [1, 2]
    with pytest.raises(ValueError, match="row 1, col 0 can be a mine"):
        cpsat.unsat_core(p, 3, True)
    # Counted: the deep cell 2 cannot be free with 3 mines; the 1 and the total show it.
    q = Position.from_line("1../...;mines=3")
    assert cpsat.unsat_core(q, 2, False, Count.COUNTED) == [0]
    # Counted with no mines at all: the total alone decides.
    assert cpsat.unsat_core(Position.from_line("..;mines=0"), 0, True, Count.COUNTED) == []


def test_missing_ortools_message() -> None:
    code = (
        "import sys; sys.modules['ortools'] = None\n"
        "try:\n    import devil.cpsat\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert "install mine-devil[cpsat]" in out.stdout


# -- against the oracle ----------------------------------------------------------------


@profile()
@given(scenarios(), st.sampled_from(Count))
def test_classify_matches_oracle(scenario: Scenario, count: Count) -> None:
    position = scenario.position
    assert cpsat.classify(position, count) == oracle.classify(position, count)


@profile()
@given(scenarios(), st.sampled_from(Count), st.data())
def test_witness_matches_oracle(scenario: Scenario, count: Count, data: st.DataObject) -> None:
    position = scenario.position
    covered = sorted(position.covered_cells())
    assume(covered)
    cell = data.draw(st.sampled_from(covered))
    mine = data.draw(st.booleans())
    verdict = oracle.classify(position, count).verdict(cell)
    w = cpsat.witness(position, cell, mine, count)
    if verdict is (Verdict.SAFE if mine else Verdict.MINE):
        assert w is None
        return
    assert w is not None
    assert (cell in w) is mine
    assert oracle.is_consistent(position, w, count)
    if count is Count.COUNTED or oracle.classify(position, Count.COUNTED).verdict(cell) is not (
        Verdict.SAFE if mine else Verdict.MINE
    ):
        assert position.mines is not None and len(w) == position.mines


@profile()
@given(inconsistent_positions())
def test_inconsistent_positions_raise(position: Position) -> None:
    try:
        oracle.classify(position)
    except InconsistentPosition:
        with pytest.raises(InconsistentPosition) as info:
            cpsat.classify(position)
        assert info.value.cell is not None and position.number(info.value.cell) is not None
    else:
        cpsat.classify(position)


def satisfiable_with(
    position: Position, numbers: list[Cell], cell: Cell, value: bool, count: Count
) -> bool:
    """Literal check: does some layout satisfy just ``numbers`` with ``cell`` = ``value``?"""
    board = position.board
    covered = list(position.covered_cells())
    for bits in itertools.product((False, True), repeat=len(covered)):
        mined = {c for c, b in zip(covered, bits, strict=True) if b}
        if (cell in mined) is not value:
            continue
        if count is Count.COUNTED and len(mined) != position.mines:
            continue
        if all(
            sum(n in mined for n in board.neighbours(num)) == position.number(num)
            for num in numbers
        ):
            return True
    return False


@profile()
@given(tiny_scenarios(max_covered=10), st.sampled_from(Count), st.data())
def test_unsat_cores_are_sufficient_and_irreducible(
    scenario: Scenario, count: Count, data: st.DataObject
) -> None:
    position = scenario.position
    verdicts = oracle.classify(position, count).verdicts
    decided = sorted(c for c, v in verdicts.items() if v is not Verdict.EITHER)
    if not decided:
        return
    cell = data.draw(st.sampled_from(decided))
    impossible = verdicts[cell] is Verdict.SAFE  # then "mine" is what cannot happen
    core = cpsat.unsat_core(position, cell, impossible, count)
    assert all(position.number(c) is not None for c in core)
    assert not satisfiable_with(position, core, cell, impossible, count)
    for dropped in core:
        rest = [c for c in core if c != dropped]
        assert satisfiable_with(position, rest, cell, impossible, count), dropped


# -- the truth files -------------------------------------------------------------------


def truth_sample() -> list[Path]:
    if not POSITIONS.is_dir():
        return []
    files = sorted(POSITIONS.glob("inter_*.txt")) + sorted(POSITIONS.glob("expert_*.txt"))
    return files[::5]


@pytest.mark.skipif(not POSITIONS.is_dir(), reason=f"no sample positions at {POSITIONS}")
@pytest.mark.parametrize("path", truth_sample(), ids=lambda p: p.stem)
def test_truth_files(path: Path) -> None:
    position = Position.from_text(path.read_text())
    truth = json.loads(path.with_suffix("").with_suffix(".truth.json").read_text())
    frontier = sorted(position.edge)
    assert len(frontier) == truth["n_frontier"]
    for count, key in ((Count.CLASSIC, "local"), (Count.COUNTED, "global")):
        verdicts = cpsat.classify(position, count).verdicts
        assert "".join(verdicts[c].letter for c in frontier) == truth[key], key


LARGER = ["big100_g00_s0", "adv-band_L200", "adv-ring_n60", "adv-ring3_n60", "adv-lattice_16x16"]


@pytest.mark.slow
@pytest.mark.skipif(not POSITIONS.is_dir(), reason=f"no sample positions at {POSITIONS}")
@pytest.mark.parametrize("name", LARGER)
def test_truth_files_larger(name: str) -> None:
    test_truth_files(POSITIONS / f"{name}.txt")


def test_time_limit_raises_instead_of_guessing() -> None:
    p = Position.from_line("1.1./..../..../1.1.")
    with pytest.raises(cpsat.CpSatTimeout, match=r"status UNKNOWN after 0.0 s"):
        cpsat.classify(p, time_limit=0.0)
    with pytest.raises(cpsat.CpSatTimeout):
        cpsat.witness(p, 1, time_limit=0.0)
