"""What a revealed number means now (the screen reader's and the terminal's words)."""

from __future__ import annotations

import pytest

from devil.formats import FormatError, read_position
from devil.position import Position
from devil.teach.number_words import number_meaning
from devil.teach.wording import _shared_mines


@pytest.mark.parametrize(
    ("rows", "cell", "words"),
    [
        (["FF.", "03.", "000"], (1, 1), "3: 2 flagged neighbours, 1 more mine among 2 covered"),
        (["2..", "...", "..."], (0, 0), "2: 2 mines among 3 covered"),
        (["1..", "...", "..."], (0, 0), "1: 1 mine among 3 covered"),
        (["1F.", "...", "..."], (0, 0), "1: 1 flagged neighbour, the other 2 covered are safe"),
        (["2F", "F."], (0, 0), "2: 2 flagged neighbours, the covered one is safe"),
        (["1F", "F."], (0, 0), "1: 2 flagged neighbours, 1 flag too many"),
        (["3..", "..0", "000"], (0, 0), "3: all 3 covered are mines"),
        (["2F.", "11.", "..."], (1, 0), "1: 1 flagged neighbour, the other 2 covered are safe"),
        (["00", "00"], (0, 0), "empty"),
        (["1F", "11"], (0, 0), "1: 1 flagged neighbour, no covered neighbours"),
    ],
)
def test_number_meaning(rows: list[str], cell: tuple[int, int], words: str) -> None:
    position = Position.from_rows(rows)
    assert number_meaning(position, position.board.cell(*cell)) == words


def test_a_covered_cell_has_no_meaning() -> None:
    position = Position.from_rows(["1.", ".."])
    with pytest.raises(ValueError, match="row 0, col 1 holds no revealed number"):
        number_meaning(position, 1)


# -- the wording fixes of issue 21 (devil.teach.wording) ---------------------------------------


@pytest.mark.parametrize(
    ("rows", "cells", "at_least", "words"),
    [
        (["..", ".."], [(0, 0), (1, 1)], 2, "both (row 0, col 0) and (row 1, col 1) are mines"),
        (["..", ".."], [(0, 0)], 1, "row 0, col 0 is a mine"),
        (["..", ".."], [(0, 0), (0, 1), (1, 1)], 3, "all of (row 0, col 0), (row 0, col 1) and "
         "(row 1, col 1) are mines"),
        (["..", ".."], [(0, 0), (1, 1)], 1, "at least one mine lies in (row 0, col 0) and "
         "(row 1, col 1)"),
        (["..", ".."], [(0, 0), (0, 1), (1, 1)], 2, "at least 2 mines lie in (row 0, col 0), "
         "(row 0, col 1) and (row 1, col 1)"),
    ],
)  # fmt: skip
def test_mines_in_shared_cells_are_said_plainly(
    rows: list[str], cells: list[tuple[int, int]], at_least: int, words: str
) -> None:
    position = Position.from_rows(rows)
    shared = frozenset(position.board.cell(r, c) for r, c in cells)
    assert _shared_mines(position, shared, at_least) == words


def test_a_minesweepr_reading_counts_one_neighbour_in_the_singular() -> None:
    with pytest.raises(FormatError) as caught:
        read_position("...\n.2x\n...\nx.x\n")
    assert str(caught.value).endswith(
        "its 2 at line 2, column 2 would have only 1 covered neighbour)"
    )
