"""Clicks proved together (``devil.world.together``): proofs of the oracle, the verdicts
the rule gives each click alone, and nothing taken from numbers out of a click's reach."""

from __future__ import annotations

from unittest.mock import patch

from hypothesis import given
from hypothesis import strategies as st

from devil.world import MemoryKnowledge, judge_flag, judge_reveal
from devil.world.rule import WINDOW_RADIUS
from devil.world.together import MAX_SIDE, NONE, Proofs, prove_together
from devil.world.window import Box, analyse
from tests.helpers.strategies import profile
from tests.helpers.worlds import Scene, answer, clicks, oracle, scenes


@profile()
@given(scenes(), st.data())
def test_proofs_found_together_are_the_rules_own(scene: Scene, data: st.DataObject) -> None:
    symbols = scene.symbols()
    table = oracle(symbols)
    cells = data.draw(st.lists(st.sampled_from(clicks(scene)), min_size=1, max_size=12))
    proofs = prove_together(scene.knowledge, scene.board, cells)
    for x, y in cells:
        truth = answer(symbols, table, (x, y))
        for judge, mine in ((judge_reveal, True), (judge_flag, False)):
            alone = judge(scene.knowledge, scene.board, x, y)
            if proofs.settles(x, y, mine):
                assert alone.proved and not (truth.can_mine if mine else truth.can_safe)
            helped = judge(scene.knowledge, scene.board, x, y, proofs=proofs)
            assert (helped.proved, helped.witness, helped.undecided) == (
                alone.proved,
                alone.witness,
                alone.undecided,
            )


def test_one_analysis_proves_what_needs_two_numbers() -> None:
    """``1 2`` over three unknown cells with the row above known safe: the cell under
    the 1's far side is safe and the one under the 2's far side a mine, which no single
    number shows; both are proved by the one analysis of the pair."""
    k = MemoryKnowledge()
    k.reveal(0, 1, 0, 1)
    k.reveal(0, 2, 0, 2)
    for x in range(-1, 5):
        k.flag(1, x, -1)
    k.flag(1, 0, 0)
    k.flag(1, 3, 0)
    with patch("devil.world.together.analyse", wraps=analyse) as solved:
        proofs = prove_together(k, 0, [(0, 1), (3, 1), (1, 1)])
    assert solved.call_count == 1
    assert proofs.safe == {(0, 1)} and proofs.mines == {(3, 1)}
    assert proofs.settles(0, 1, True) and proofs.settles(3, 1, False)
    assert not proofs.settles(1, 1, True) and not proofs.settles(1, 1, False)
    assert judge_reveal(k, 0, 0, 1).proved and judge_flag(k, 0, 3, 1).proved


def test_a_proof_is_taken_only_for_clicks_in_reach_of_every_number_read() -> None:
    far = Proofs(Box(-WINDOW_RADIUS - 1, 0, 4, 4), frozenset({(0, 0)}), frozenset())
    assert not far.settles(0, 0, True)
    near = Proofs(Box(-WINDOW_RADIUS, 0, 4, 4), frozenset({(0, 0)}), frozenset())
    assert near.settles(0, 0, True) and not near.settles(0, 0, False)
    k = MemoryKnowledge()
    k.reveal(0, 0, 0, 0)
    assert prove_together(k, 0, [(1, 1), (MAX_SIDE + 1, 1)]) == NONE  # spread too wide
    assert prove_together(k, 0, [(1, 1), (MAX_SIDE - 1, 1)]).settles(1, 1, True)
    assert not prove_together(k, 0, [(1, 1), (MAX_SIDE, 1)]).settles(1, 1, True)  # the 0 is
    # beyond the region then: its margin shrinks to keep every number in every click's reach
