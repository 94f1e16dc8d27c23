"""A refused mine count reads as English: "1 mine does not fit", "its 1 cell holds"."""

from __future__ import annotations

import random

import pytest

from devil.board import Board
from devil.errors import InconsistentPosition, do_not_fit
from devil.game import GameParams, ParamsError
from devil.generate import GenerateError, draw_layout
from devil.graphs.positions import layout


def test_one_mine_is_singular() -> None:
    assert do_not_fit(1) == "1 mine does not fit"
    assert do_not_fit(2) == "2 mines do not fit" and do_not_fit(0) == "0 mines do not fit"
    assert str(InconsistentPosition.too_many_mines(1, 0)).startswith("1 mine does not fit")
    with pytest.raises(ParamsError) as e:
        GameParams(1, 1, 1)
    assert str(e.value) == (
        "1 mine does not fit on the 1x1 board: the first click and its neighbours (up to 1 "
        "cell) are always kept free of mines, so its 1 cell holds at most 0 mines"
    )
    with pytest.raises(ValueError, match=r"^1 mine does not fit on a board of 1 cell$"):
        layout(Board(1, 1), 1, random.Random(0), 0)
    with pytest.raises(GenerateError, match=r"^1 mine does not fit on the 1x1 board"):
        draw_layout(Board(1, 1), 1, frozenset({0}), random.Random(0))
