"""Deductions for bots against the brute-force oracle."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from devil.world import deduce
from devil.world.component import InconsistentKnowledge
from devil.world.knowledge import KnowledgeError
from tests.helpers.strategies import profile
from tests.helpers.worlds import Scene, answer, oracle, scenes


@profile()
@given(scenes(), st.data())
def test_deduce_agrees_with_the_oracle_on_any_view(scene: Scene, data: st.DataObject) -> None:
    """A view cropped anywhere from the scene: numbers on its edge see unknown cells
    beyond it, and the oracle is given exactly the view."""
    left = data.draw(st.integers(0, scene.width - 1))
    top = data.draw(st.integers(0, scene.height - 1))
    width = data.draw(st.integers(1, scene.width - left))
    height = data.draw(st.integers(1, scene.height - top))
    x0, y0 = scene.x0 + left, scene.y0 + top
    rows = [
        "".join(scene.knowledge.symbol(scene.board, x, y) for x in range(x0, x0 + width))
        for y in range(y0, y0 + height)
    ]
    symbols = {
        (x0 + j, y0 + i): s for i, row in enumerate(rows) for j, s in enumerate(row) if s != "."
    }
    table = oracle(symbols)
    unknown = [
        (x0 + j, y0 + i) for i, row in enumerate(rows) for j, s in enumerate(row) if s == "."
    ]
    got = deduce(rows, x0, y0)
    assert got.safe == {c for c in unknown if not answer(symbols, table, c).can_mine}
    assert got.mines == {c for c in unknown if not answer(symbols, table, c).can_safe}


def test_deduce_example() -> None:
    """``1`` with two known neighbours below: the cells above are free, so nothing is
    proved; with flags of other colours around, the last cell is a mine."""
    assert deduce(["...", ".1.", "..."], 0, 0).mines == frozenset()
    got = deduce(["**.", "*1*", "***"], 10, 20)
    assert got.mines == {(12, 20)} and got.safe == frozenset()
    got = deduce(["F..", ".1.", "..."], 0, 0)
    assert got.safe == {(1, 0), (2, 0), (0, 1), (2, 1), (0, 2), (1, 2), (2, 2)}


def test_deduce_errors_name_the_cell() -> None:
    with pytest.raises(InconsistentKnowledge, match=r"\(1, 1\)"):
        deduce(["FF.", ".1.", "..."], 0, 0)
    with pytest.raises(KnowledgeError, match="row 1, column 2"):
        deduce(["...", "..?"], 0, 0)
    assert deduce([], 0, 0).safe == frozenset()
