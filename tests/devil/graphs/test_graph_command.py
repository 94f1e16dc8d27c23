"""``devil-graph``: a board file of each built-in tiling, blank or mid-game."""

from __future__ import annotations

import pytest

from devil.graphs.command import main
from devil.graphs.fileformat import read_graph
from devil.graphs.tilings import TILINGS, tiling_graph


@pytest.mark.parametrize("sides", [False, True], ids=["corners", "sides"])
@pytest.mark.parametrize("name", sorted(TILINGS))
def test_each_tiling_writes_a_blank_and_a_midgame_board_that_read_back(
    name: str, sides: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    rule = ["--sides"] if sides else []
    assert main([name, *rule]) == 0
    position = read_graph(capsys.readouterr().out)
    preset = TILINGS[name].preset("beginner")
    assert position.mines == preset.mines(position.board.cell_count)
    assert all(position.is_covered(c) for c in position.board.cells())
    layout = position.board.graph
    assert layout is not None  # the neighbours of the rule asked for
    assert layout.graph.edges == tiling_graph(name, preset.size, sides).edges
    assert main([name, *rule, "--midgame", "--seed", "2"]) == 0
    midgame = read_graph(capsys.readouterr().out)
    assert midgame.board == position.board and sum(1 for _ in midgame.revealed_cells()) > 0


def test_help_tells_a_puzzle_maker_what_the_file_is_for(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    for words in ("standard output", "mine-devil-graph", "devil-check", "/analyse/graph",
                  "--midgame", "share a side", "penrose", "exit codes"):  # fmt: skip
        assert words in text


def test_a_midgame_position_is_part_way_and_reproducible(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["penrose", "--size", "120", "--midgame", "--seed", "4", "--sides"]) == 0
    first = capsys.readouterr().out
    assert main(["penrose", "--size", "120", "--midgame", "--seed", "4", "--sides"]) == 0
    assert capsys.readouterr().out == first
    position = read_graph(first)
    assert position.board.cell_count == 120
    revealed = sum(1 for _ in position.revealed_cells())
    assert 0 < revealed < 120
    assert max(len(position.board.neighbours(c)) for c in position.board.cells()) == 4


def test_a_one_cell_board_gets_no_mine_rather_than_an_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The preset's density rounds up to 1 mine: on 1 cell that left no cell free, and the
    command refused a ``--mines 1`` nobody typed."""
    assert main(["square", "--size", "1", "1"]) == 0
    position = read_graph(capsys.readouterr().out)
    assert position.board.cell_count == 1 and position.mines == 0
    assert [TILINGS["square"].preset("beginner").mines(n) for n in (1, 2, 100)] == [0, 1, 12]


def test_list_and_bad_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list"]) == 0
    assert "penrose" in capsys.readouterr().out
    assert main([]) == 2
    assert "name a TILING" in capsys.readouterr().err
    assert main(["cube", "--size", "2", "3"]) == 2
    assert "cube takes 1 size number >= 1" in capsys.readouterr().err
    assert main(["square", "--mines", "81"]) == 2
    assert main(["heptagons"]) == 2
