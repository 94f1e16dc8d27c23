"""Tests for ``devil.formats``: every format, detection, headers, and every error message."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from devil.board import Topology
from devil.formats import (
    DETECTION_RULES,
    FORMATS,
    detect_format,
    explain_format,
    read_position,
)
from devil.position import Position, PositionError

DATA = Path(__file__).parent / "data"
POSITIONS = Path(__file__).resolve().parent / "data" / "positions"


def read(name: str, **kwargs: object) -> Position:
    return read_position((DATA / name).read_text(), **kwargs)  # type: ignore[arg-type]


def error(text: str, **kwargs: object) -> str:
    with pytest.raises(PositionError) as info:
        read_position(text, **kwargs)  # type: ignore[arg-type]
    return str(info.value)


# -- the example files, one per format -------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "fmt", "line", "mines"),
    [
        ("native.txt", "native", "#2../F211/1100", 2),
        ("codewars.txt", "codewars", "...10/...10/12110/00000", None),
        ("jsminesweeper.txt", "jsminesweeper", "1F2../11211/00000", 2),
        ("minesweepr.txt", "minesweepr", "..10/..10/1110/0000", None),
    ],
)
def test_example_files_parse_and_are_detected(
    name: str, fmt: str, line: str, mines: int | None
) -> None:
    text = (DATA / name).read_text()
    assert detect_format(text) == fmt
    position = read_position(text)
    assert "/".join(position.rows()) == line
    assert position.mines == mines
    assert position.board.topology is Topology.SQUARE


def test_native_flags_are_covered_marks_and_holes_do_not_exist() -> None:
    p = read("native.txt")
    board = p.board
    flag = board.cell(1, 0)
    assert p.is_covered(flag) and p.is_flagged(flag)
    assert not board.exists(board.cell(0, 0))
    assert board.holes == frozenset({board.cell(0, 0)})
    # the flag is no constraint: the 1 at (2,0) still lists the flagged cell as covered
    con = next(c for c in p.constraints if c.source == board.cell(2, 0))
    assert con.cells == frozenset({flag}) and con.mines == 1


def test_topology_header_is_read() -> None:
    assert read("hex.txt").board.topology is Topology.HEX


def test_topology_argument_overrides_header() -> None:
    assert read("hex.txt", topology=Topology.SQUARE).board.topology is Topology.SQUARE
    assert read("torus.txt", topology=Topology.TORUS).board.topology is Topology.TORUS


def test_mines_argument_overrides_header_and_size_line() -> None:
    assert read("native.txt", mines=7).mines == 7
    assert read("jsminesweeper.txt", mines=5).mines == 5


# -- native ----------------------------------------------------------------------------------


def test_native_question_mark_and_dot_are_both_covered() -> None:
    assert read_position("?.\n11").rows() == ["..", "11"]


def test_native_headers_unknown_keys_and_comments_ignored() -> None:
    text = "# name: x\n# class: inter\n#   a free comment\n# generator: a b=c\n\n1.\n..\n"
    p = read_position(text)
    assert p.rows() == ["1.", ".."]
    assert p.mines is None


def test_native_row_of_holes_is_a_row_not_a_header() -> None:
    p = read_position("##\n1.")
    assert p.board.holes == frozenset({0, 1})


def test_blank_lines_around_the_board_are_fine() -> None:
    assert read_position("\n\n1.\n..\n\n\n").rows() == ["1.", ".."]


def test_byte_order_mark_is_ignored() -> None:
    assert read_position("\ufeff# mines: 1\n1.\n..\n").mines == 1


def test_windows_line_endings() -> None:
    assert read_position("# mines: 1\r\n1.\r\n..\r\n").rows() == ["1.", ".."]


# -- codewars --------------------------------------------------------------------------------


def test_codewars_tokens_with_extra_spaces_and_tabs() -> None:
    p = read_position("?  1\t0\n1 1 0")
    assert detect_format("?  1\t0\n1 1 0") == "codewars"
    assert p.rows() == [".10", "110"]


def test_codewars_single_column_board_reads_as_native() -> None:
    # one token per line has no spaces: it is also a valid native board with the same meaning
    assert detect_format("?\n1") == "native"
    assert read_position("?\n1").rows() == [".", "1"]


# -- JSMinesweeper ---------------------------------------------------------------------------


def test_jsminesweeper_width_comes_first() -> None:
    p = read_position("3x2x1\nH11\n111\n")
    assert (p.board.height, p.board.width, p.mines) == (2, 3, 1)


def test_jsminesweeper_m_is_a_flag() -> None:
    p = read_position("2x1x1\nM1\n")
    assert p.is_flagged(0)


def test_jsminesweeper_with_matching_mines_header() -> None:
    assert read_position("# mines: 1\n2x1x1\nH1\n").mines == 1


def test_jsminesweeper_with_hex_topology_header() -> None:
    p = read_position("# topology: hex\n2x2x1\nH1\n11\n")
    assert p.board.topology is Topology.HEX


def test_minesweepr_row_that_looks_like_a_size_line() -> None:
    # "1x1x1" is a size line only if the rows fit it or are not a minesweepr board
    text = "1x1x1\n11111\n"
    assert detect_format(text) == "minesweepr"
    assert read_position(text).rows() == ["1.1.1", "11111"]


# -- minesweepr ------------------------------------------------------------------------------


def test_minesweepr_capital_x_and_dot_zero() -> None:
    assert read_position("X1.\nx1.").rows() == [".10", ".10"]


def test_minesweepr_fully_revealed_board_without_x_is_native() -> None:
    # no 'x' anywhere: '.' is read as native covered, so say so in the detection reason
    assert detect_format("1.\n11") == "native"
    assert "no 'x'" in explain_format("1.\n11")


# -- forcing a format ------------------------------------------------------------------------


def test_fmt_argument_forces_a_reader() -> None:
    # as minesweepr, '.' is a zero; as native it is covered
    assert read_position("1.\n11", fmt="minesweepr").rows() == ["10", "11"]
    assert read_position("1.\n11", fmt="native").rows() == ["1.", "11"]


def test_unknown_fmt_names_the_choices() -> None:
    message = error("1.", fmt="bogus")
    assert "unknown format 'bogus'" in message
    for name in FORMATS:
        assert name in message


# -- detection is explainable ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "fmt", "reason"),
    [
        ("3x1x0\n000\n", "jsminesweeper", "WxHxM"),
        ("? 1\n1 1\n", "codewars", "space-separated"),
        ("x1\n11\n", "minesweepr", "'x'"),
        ("?1\n11\n", "native", "one character per cell"),
    ],
)
def test_explain_format(text: str, fmt: str, reason: str) -> None:
    explanation = explain_format(text)
    assert explanation.startswith(f"{fmt}: ")
    assert reason in explanation


def test_every_format_has_a_detection_rule() -> None:
    assert [name for name, _, _ in DETECTION_RULES] == [
        "jsminesweeper",
        "codewars",
        "minesweepr",
        "native",
    ]
    assert set(FORMATS) == {name for name, _, _ in DETECTION_RULES}


# -- errors: each names the line and column ---------------------------------------------------


def test_unexpected_character_names_line_column_and_character() -> None:
    message = error("# mines: 2\n1..\n.1.\n..z\n")
    assert message == (
        "line 4, column 3: unexpected character 'z' (expected 0-8, '.', '?', 'F' or '#')"
    )


def test_column_counts_leading_blanks() -> None:
    assert error("  1.\n  .9").startswith("line 2, column 4: unexpected character '9'")


def test_native_ragged_rows() -> None:
    assert error("1..\n1.\n...") == "line 2, column 3: row has 2 cells but the first row has 3"
    assert error("1..\n1...\n") == "line 2, column 4: row has 4 cells but the first row has 3"


def test_codewars_bad_token() -> None:
    message = error("? 1 0\n? 12 0\n")
    assert message == (
        "line 2, column 3: unexpected token '12' (expected 0-8 or '?', separated by spaces)"
    )


def test_codewars_ragged_rows() -> None:
    assert error("? 1 0\n? 1\n") == "line 2, column 4: row has 2 cells but the first row has 3"
    assert error("? 1\n? 1 0\n") == "line 2, column 5: row has 3 cells but the first row has 2"


def test_minesweepr_bad_character() -> None:
    assert error("x1.\nx?.\n") == (
        "line 2, column 2: unexpected character '?' (expected 'x', '.' or 0-8)"
    )


def test_minesweepr_ragged_rows() -> None:
    assert error("x1.\nx1\n") == "line 2, column 3: row has 2 cells but the first row has 3"


def test_jsminesweeper_bad_character() -> None:
    assert error("2x2x1\nH1\n1?\n") == (
        "line 3, column 2: unexpected character '?' (expected 'H', 'F', 'M' or 0-8)"
    )


def test_jsminesweeper_wrong_row_width() -> None:
    assert error("3x2x1\nH11\nH1\n") == (
        "line 3, column 3: row has 2 cells but size line '3x2x1' says 3"
    )


def test_jsminesweeper_wrong_row_count() -> None:
    assert error("3x3x1\nH11\nHHH\n") == "line 1: size line '3x3x1' says 3 rows but 2 follow"


def test_jsminesweeper_zero_size() -> None:
    assert error("0x1x0\nH\n").startswith("line 1: size line '0x1x0': width and height")


def test_jsminesweeper_mines_header_disagrees_with_size_line() -> None:
    assert error("# name: t\n# mines: 5\n2x1x1\nH1\n") == (
        "line 2: mines header says 5 but the size line on line 3 says 1"
    )


def test_forced_jsminesweeper_without_a_size_line() -> None:
    assert error("H1\n11\n", fmt="jsminesweeper") == (
        "line 1, column 1: expected a size line WxHxM (width x height x mines), got 'H1'"
    )


def test_board_too_big(monkeypatch: pytest.MonkeyPatch) -> None:
    import devil.board

    monkeypatch.setattr(devil.board, "MAX_CELLS", 10)
    assert error("....\n....\n....\n") == "board size 3x4 has more than 10 cells"


def test_mines_header_not_a_number() -> None:
    assert error("# mines: lots\n1.\n") == (
        "line 1: mines header 'lots' is not a whole number >= 0"
    )
    assert error("# mines: -3\n1.\n") == "line 1: mines header '-3' is not a whole number >= 0"


def test_bad_topology_header() -> None:
    message = error("# topology: cube\n1.\n")
    assert message.startswith("line 1: topology header: unknown topology 'cube'")
    assert "square, torus, hex" in message


def test_empty_input() -> None:
    assert error("") == "empty input: no board rows"
    assert error("\n  \n\n") == "empty input: no board rows"


def test_only_headers() -> None:
    assert error("# mines: 3\n# name: x\n") == "empty input: only headers, no board rows"


def test_blank_line_inside_the_board() -> None:
    assert error("1.\n\n..\n") == "line 2: blank line inside the board"


def test_negative_mines_argument() -> None:
    assert error("1.\n..", mines=-1) == "total mines -1 is negative"


def test_header_after_the_board_is_a_bad_row() -> None:
    assert error("1.\n..\n# mines: 2\n") == (
        "line 3: header after the board: '# key: value' lines go first"
    )


# -- round trips: each format written out by the test is read back ---------------------------


@st.composite
def positions(draw: st.DrawFn, flags: bool = True, holes: bool = True) -> Position:
    height = draw(st.integers(1, 6))
    width = draw(st.integers(1, 6))
    alphabet = "012345678." + ("F" if flags else "") + ("#" if holes else "")
    cells = draw(st.text(alphabet=alphabet, min_size=height * width, max_size=height * width))
    rows = [cells[i : i + width] for i in range(0, len(cells), width)]
    mines = draw(st.none() | st.integers(0, 40))
    topology = draw(st.sampled_from(list(Topology)))
    return Position.from_rows(rows, topology, mines)


def as_codewars(p: Position) -> str:
    return "\n".join(" ".join("?" if ch == "." else ch for ch in row) for row in p.rows())


def _ms_rows(p: Position) -> list[str]:
    # covered first to 'x', then zeros to '.'
    return [row.replace(".", "x").replace("0", ".") for row in p.rows()]


def as_jsminesweeper(p: Position, mines: int) -> str:
    size = f"{p.board.width}x{p.board.height}x{mines}"
    return "\n".join([size, *(row.replace(".", "H") for row in p.rows())])


@settings(max_examples=60)
@given(positions())
def test_native_round_trip(p: Position) -> None:
    q = read_position(p.to_text())
    assert q == p


@settings(max_examples=60)
@given(positions(flags=False, holes=False))
def test_codewars_round_trip(p: Position) -> None:
    text = as_codewars(p)
    q = read_position(text, p.board.topology, p.mines)
    if p.board.width > 1:
        assert detect_format(text) == "codewars"
    assert q == p


@settings(max_examples=60)
@given(positions(flags=False, holes=False))
def test_minesweepr_round_trip(p: Position) -> None:
    text = "\n".join(_ms_rows(p))
    q = read_position(text, p.board.topology, p.mines, fmt="minesweepr")
    assert q == p
    if "x" in text and not re.fullmatch(r"\d+x\d+x\d+", text.splitlines()[0]):
        assert detect_format(text) == "minesweepr"


@settings(max_examples=60)
@given(positions(holes=False), st.integers(0, 99))
def test_jsminesweeper_round_trip(p: Position, mines: int) -> None:
    text = as_jsminesweeper(p, mines)
    assert detect_format(text) == "jsminesweeper"
    q = read_position(text, p.board.topology)
    assert q == Position(p.board, p.grid, mines)


# -- the shared sample positions -------------------------------------------------------------


def sample_files() -> list[Path]:
    if not POSITIONS.is_dir():
        return []
    small = [p for p in sorted(POSITIONS.glob("*.txt")) if p.stat().st_size < 20_000]
    return small[:: max(1, len(small) // 12)]


@pytest.mark.skipif(not POSITIONS.is_dir(), reason="tests/data/positions not present")
@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.stem)
def test_shared_positions_read_as_native(path: Path) -> None:
    text = path.read_text()
    assert detect_format(text) == "native"
    p = read_position(text)
    header = re.search(r"^# mines: (\d+)$", text, re.M)
    assert header is not None and p.mines == int(header.group(1))
    body = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert p.rows() == [line.replace("?", ".") for line in body]
