"""Team knowledge as symbols per colour board."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from devil.world import MemoryKnowledge
from devil.world.knowledge import Knowledge, KnowledgeError, ViewKnowledge

Change = Callable[[MemoryKnowledge], object]


def test_symbols_per_board() -> None:
    k: Knowledge
    k = mem = MemoryKnowledge()
    mem.reveal(0, 1, 1, 3)
    mem.flag(2, 1, 1)  # revealed on board 0 and known to be colour 2: both true
    mem.flag(0, 5, -5)
    assert k.symbol(0, 1, 1) == "3"
    assert k.symbol(1, 1, 1) == "*"
    assert k.symbol(2, 1, 1) == "F"
    assert k.symbol(0, 5, -5) == "F"
    assert k.symbol(3, 5, -5) == "*"
    assert k.symbol(0, 0, 0) == "."
    assert len(mem) == 3


def test_apply_records_move_cells() -> None:
    k = MemoryKnowledge()
    k.apply(1, [(0, 0, "0"), (1, 0, "2"), (4, 4, "F")])
    assert [k.symbol(1, 0, 0), k.symbol(1, 1, 0), k.symbol(1, 4, 4)] == ["0", "2", "F"]
    assert k.symbol(0, 4, 4) == "*"


@pytest.mark.parametrize(
    "setup, move, words",
    [
        (lambda k: k.flag(0, 1, 2), lambda k: k.reveal(0, 1, 2, 1), "(1, 2) is flagged"),
        (lambda k: k.reveal(0, 1, 2, 1), lambda k: k.flag(0, 1, 2), "(1, 2) is revealed"),
        (lambda k: k.flag(0, 1, 2), lambda k: k.flag(1, 1, 2), "already flagged"),
        (lambda k: k.reveal(0, 1, 2, 1), lambda k: k.reveal(0, 1, 2, 2), "already shows 1"),
        (lambda k: None, lambda k: k.reveal(0, 1, 2, 9), "number 9"),
        (lambda k: None, lambda k: k.apply(0, [(1, 2, "*")]), "symbol '*'"),
    ],
)
def test_contradictions_are_refused(
    setup: Callable[[MemoryKnowledge], object],
    move: Callable[[MemoryKnowledge], object],
    words: str,
) -> None:
    k = MemoryKnowledge()
    setup(k)
    with pytest.raises(KnowledgeError, match=words.replace("(", r"\(").replace(")", r"\)")):
        move(k)


def test_view_knowledge() -> None:
    view = ViewKnowledge(["1F", "*."], 10, 20, colour=3)
    assert [view.symbol(3, x, y) for y in (20, 21) for x in (10, 11)] == ["1", "F", "*", "."]
    assert view.symbol(3, 9, 20) == "."
    assert view.symbol(2, 10, 20) == "."


@pytest.mark.parametrize(
    "rows, words",
    [(["12", "3"], "row 1 has 1 cells"), (["1x"], "row 0, column 1 \\(cell \\(11, 20\\)\\)")],
)
def test_bad_views_name_the_place(rows: list[str], words: str) -> None:
    with pytest.raises(KnowledgeError, match=words):
        ViewKnowledge(rows, 10, 20)
