"""The devil rule as one function (``devil.devil_rule.judge``), checked against the oracle.

- ``Safe`` exactly when the oracle says the cell is safe;
- ``Lose`` when the oracle says mine, under strict mercy, or under fair mercy while the
  oracle finds a provably safe covered cell; its witness is a layout the oracle deems
  consistent, with a mine on the cell;
- ``Redraw`` otherwise (fair mercy, no safe cell anywhere), its layout consistent with
  the cell safe;
- the same arguments give the same judgement; ``move_seed`` seeds ``random`` exactly as
  the text seeds games used before ``judge`` existed.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from devil import oracle
from devil.analysis import Verdict
from devil.devil_rule import Lose, Redraw, Safe, judge, move_seed
from devil.position import Position
from devil.rules import Count, Mercy, Rules
from devil.solver import Solver
from tests.helpers.strategies import Scenario, profile, scenarios

RULES = st.builds(Rules, st.sampled_from(Count), st.sampled_from(Mercy))


@profile()
@given(scenarios(), RULES, st.integers(0, 2**64), st.data())
def test_judge_agrees_with_oracle(
    scenario: Scenario, rules: Rules, seed: int, data: st.DataObject
) -> None:
    position = scenario.position
    covered = sorted(position.covered_cells())
    assume(covered)
    cell = data.draw(st.sampled_from(covered), label="cell")
    truth = oracle.classify(position, rules.count)
    analysis = Solver(rules.count).analyse(position)
    got = judge(analysis, cell, rules, seed)
    verdict = truth.verdict(cell)
    if verdict is Verdict.SAFE:
        assert got == Safe()
        return
    some_safe = bool(truth.safe_cells())
    if verdict is Verdict.MINE or rules.mercy is Mercy.STRICT or some_safe:
        assert isinstance(got, Lose)
        assert cell in got.witness
        assert oracle.is_consistent(position, got.witness, rules.count)
    else:
        assert isinstance(got, Redraw)
        assert cell not in got.layout
        assert oracle.is_consistent(position, got.layout, rules.count)
    assert judge(analysis, cell, rules, seed) == got


def test_judge_rejects_a_rule_the_analysis_was_not_made_under() -> None:
    position = Position.from_line("1../...;mines=2")
    analysis = Solver(Count.CLASSIC).analyse(position)
    with pytest.raises(ValueError, match="classic rule, not the counted rule"):
        judge(analysis, 1, Rules(Count.COUNTED), 0)


def test_judge_rejects_a_revealed_cell() -> None:
    position = Position.from_line("1../...;mines=2")
    analysis = Solver(Count.CLASSIC).analyse(position)
    with pytest.raises(ValueError, match="the cell 0 is not a covered cell"):
        judge(analysis, 0, Rules(), 0)


def test_redraw_keeps_its_layout_out_of_repr() -> None:
    assert repr(Redraw(frozenset({3, 4}))) == "Redraw()"


@pytest.mark.parametrize(
    ("game_seed", "move", "chord"), [(0, 0, None), (123456789, 17, None), (2**63, 4, 35)]
)
def test_move_seed_seeds_as_the_old_text_seed(game_seed: int, move: int, chord: int | None) -> None:
    old = random.Random(f"mercy/{game_seed}/{move}/{chord}")
    new = random.Random(move_seed(game_seed, move, chord))
    assert new.getstate() == old.getstate()


def test_move_seed_differs_by_move_and_chord_cell() -> None:
    seeds = {move_seed(7, n, c) for n in range(5) for c in (None, 0, 1)}
    assert len(seeds) == 15
