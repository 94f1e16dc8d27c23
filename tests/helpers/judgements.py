"""Test helper: a devil-rule judgement checked against the brute-force oracle."""

from __future__ import annotations

from devil import oracle
from devil.analysis import Verdict
from devil.board import Cell
from devil.devil_rule import Judgement, Lose, Redraw, Safe
from devil.position import Position
from devil.rules import Count, Mercy


def assert_judged_as_the_oracle_says(
    got: Judgement, position: Position, cell: Cell, count: Count, mercy: Mercy
) -> None:
    """A safe cell opens; otherwise the click loses with a layout the oracle accepts that
    mines it, or (fair mercy, no safe cell anywhere) redraws to a layout leaving it free."""
    truth = oracle.classify(position, count)
    verdict = truth.verdict(cell)
    if verdict is Verdict.SAFE:
        assert got == Safe()
    elif verdict is Verdict.MINE or mercy is Mercy.STRICT or truth.safe_cells():
        assert isinstance(got, Lose)
        assert cell in got.witness
        assert oracle.is_consistent(position, got.witness, count)
    else:
        assert isinstance(got, Redraw)
        assert cell not in got.layout
        assert oracle.is_consistent(position, got.layout, count)
