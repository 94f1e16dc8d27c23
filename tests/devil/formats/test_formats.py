"""Tests for ``devil.formats``: every format, detection, headers, and every error message."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from devil import formats
from devil.board import Topology
from devil.formats import (
    DESCRIPTION_HEADERS,
    DETECTION_RULES,
    FORMATS,
    HEADERS,
    FormatReport,
    detect,
    detect_format,
    explain_format,
    read_position,
)
from devil.position import Position, PositionError
from tests.helpers.paths import DATA, POSITIONS


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
    topology = draw(st.sampled_from(list(Topology.grids())))
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


def square_neighbours(rows: list[str], r: int, c: int) -> list[str]:
    """The characters around (r, c) on a square board (written out here, not devil.board)."""
    return [
        rows[i][j]
        for i in range(r - 1, r + 2)
        for j in range(c - 1, c + 2)
        if (i, j) != (r, c) and 0 <= i < len(rows) and 0 <= j < len(rows[0])
    ]


def minesweepr_numbers_fit(rows: list[str]) -> bool:
    """Every number of a minesweepr board has at least that many 'x' neighbours (square)."""
    return all(
        int(ch) <= square_neighbours(rows, r, c).count("x")
        for r, row in enumerate(rows)
        for c, ch in enumerate(row)
        if ch in "12345678"
    )


@settings(max_examples=60)
@given(positions(flags=False, holes=False))
def test_minesweepr_round_trip(p: Position) -> None:
    text = "\n".join(_ms_rows(p))
    q = read_position(text, p.board.topology, p.mines, fmt="minesweepr")
    assert q == p
    if "x" in text and not re.fullmatch(r"\d+x\d+x\d+", text.splitlines()[0]):
        # detected as minesweepr exactly when that reading leaves every number possible;
        # otherwise it is a native board whose 'x' is a stray character, named by the error
        if minesweepr_numbers_fit(_ms_rows(p)):
            assert detect_format(text) == "minesweepr"
            assert formats.read(text).report.note is not None
        else:
            assert detect_format(text) == "native"
            assert detect(text).passed_over == "minesweepr"
            message = error(text)
            assert "unexpected character 'x'" in message or "unexpected character 'X'" in message
            assert "not minesweepr" in message


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


# -- detection says which format and why (issue 7: a stray 'x' or tab must not switch) -------


def test_a_stray_x_in_a_native_board_is_an_error_not_minesweepr() -> None:
    # read as minesweepr, every '.' would be a revealed 0 and the 2 would touch one 'x'
    text = "# mines: 3\n....\n.21.\n...x\n"
    report = detect(text)
    assert report.format == "native" and report.passed_over == "minesweepr"
    assert (report.line, report.column) == (3, 2)
    assert error(text) == (
        "line 4, column 4: unexpected character 'x' (expected 0-8, '.', '?', 'F' or '#'): "
        "for a covered cell write '.' (not minesweepr: as minesweepr ('x' covered, '.' a "
        "revealed 0) its 2 at line 3, column 2 would have only 0 covered neighbours)"
    )
    # forcing the format still reads it (and the solver then finds it inconsistent)
    assert read_position(text, fmt="minesweepr").rows() == ["0000", "0210", "000."]


def test_a_stray_x_next_to_a_native_only_character_stays_native() -> None:
    # '?' is not minesweepr: both readings have one stray character, and native wins ties
    assert detect_format("1?\n.x") == "native"
    assert error("1?\n.x").startswith("line 2, column 2: unexpected character 'x'")


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("1.\t..\n.....\n", "line 1, column 3: unexpected character '\\t' (a tab; expected"),
        ("1. ..\n.....\n", "line 1, column 3: unexpected character ' ' (a space; expected"),
        ("11\n1\t1\n", "line 2, column 2: unexpected character '\\t' (a tab; expected"),
    ],
)
def test_a_stray_tab_or_space_in_a_native_board_is_an_error_not_codewars(
    text: str, where: str
) -> None:
    assert detect_format(text) == "native"
    assert error(text).startswith(where)


def test_codewars_with_a_bad_token_is_still_codewars() -> None:
    assert detect_format("? 1 z\n? 1 0\n") == "codewars"
    assert error("? 1 z\n? 1 0\n") == (
        "line 1, column 5: unexpected token 'z' (expected 0-8 or '?', separated by spaces)"
    )


@pytest.mark.parametrize(
    ("name", "fmt", "line", "column", "reason"),
    [
        ("native.txt", "native", None, None, "one character per cell and no 'x'"),
        ("codewars.txt", "codewars", 1, 2, "board lines hold space-separated tokens"),
        ("jsminesweeper.txt", "jsminesweeper", 1, 1, "the first board line is a WxHxM size"),
        ("minesweepr.txt", "minesweepr", 1, 1, "board lines use 'x' for covered cells"),
    ],
)
def test_the_report_names_the_format_and_where_it_was_decided(
    name: str, fmt: str, line: int | None, column: int | None, reason: str
) -> None:
    reading = formats.read((DATA / name).read_text())
    report = reading.report
    assert (report.format, report.line, report.column, report.detected) == (
        fmt,
        line,
        column,
        True,
    )
    assert report.reason.startswith(reason)
    if fmt == "native":
        assert report.note is None  # nothing surprising to say
    else:
        assert report.note == f"read as {fmt} ({formats.LEGENDS[fmt]}): {report.reason}"
        assert f"line {line}" in report.reason


def test_report_json_shape() -> None:
    report = formats.read("xx1.\n111.\n").report
    assert report.to_json() == {
        "format": "minesweepr",
        "detected": True,
        "reason": "board lines use 'x' for covered cells (line 1, column 1)",
        "line": 1,
        "column": 1,
        "passed_over": None,
        "legend": "'x' covered, '.' a revealed 0",
        "note": (
            "read as minesweepr ('x' covered, '.' a revealed 0): "
            "board lines use 'x' for covered cells (line 1, column 1)"
        ),
    }
    forced = formats.read("1.\n11\n", fmt="minesweepr").report
    assert forced == FormatReport("minesweepr", "named by the caller", detected=False)
    assert forced.note is None


def test_detection_uses_the_topology() -> None:
    # on a torus the 3 at (0,0) touches the 'x' cells around the wrap: minesweepr is possible
    text = "3..x\n....\n....\nx..x\n"
    assert detect(text).format == "native"
    assert detect(text, Topology.TORUS).format == "minesweepr"
    assert detect("# topology: torus\n" + text).format == "minesweepr"


def test_total_from_says_where_the_total_came_from() -> None:
    assert formats.read("# mines: 2\n1.\n..\n").total_from == "the '# mines: 2' header on line 1"
    assert formats.read("2x1x1\nH1\n").total_from == "the size line on line 1"
    assert formats.read("# mines: 2\n1.\n..\n", mines=1).total_from is None
    assert formats.read("1.\n..\n").total_from is None


# -- headers: known, descriptions, and everything else an error -----------------------------


def test_description_headers_and_x_prefix_are_ignored() -> None:
    lines = [f"# {key}: anything: at all" for key in DESCRIPTION_HEADERS]
    text = "\n".join([*lines, "# x-my-tool: v2", "# Name: case does not matter", "1.", ".."])
    assert read_position(text).rows() == ["1.", ".."]
    assert set(HEADERS) == {"mines", "topology"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "# mine: 10\n1.\n",
            "line 1: unknown header '# mine:' (did you mean 'mines'?): the headers are mines, "
            "topology; class, comment, generator, name, note, source and any key starting "
            "'x-' are descriptions and are ignored",
        ),
        ("# name: a\n# topolgy: hex\n1.\n", "line 2: unknown header '# topolgy:' (did you mean"),
        ("# foo: bar\n1.\n", "line 1: unknown header '# foo:': the headers are mines, topology"),
    ],
)
def test_unknown_headers_are_errors(text: str, message: str) -> None:
    assert error(text).startswith(message)


def test_a_hash_line_that_is_not_one_word_and_a_colon_is_a_comment() -> None:
    assert read_position("# seen in game 12: nice\n#   no colon\n1.\n..\n").rows() == ["1.", ".."]


def test_a_second_meaningful_header_is_an_error() -> None:
    assert error("# mines: 3\n# mines: 4\n1.\n") == (
        "line 2: second '# mines:' header (the first is on line 1)"
    )
    assert read_position("# note: a\n# note: b\n1.\n..").rows() == ["1.", ".."]


def test_comment_after_the_board_is_a_row_with_a_stray_space() -> None:
    # '#' starts a native row (a hole), so after the board it is read as a row
    assert error("1.\n..\n# 1\n").startswith(
        "line 3, column 2: unexpected character ' ' (a space; expected"
    )


# -- numbers are ASCII digits only -----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "# mines: \u0663\n1.\n",  # ARABIC-INDIC DIGIT THREE
            "line 1: mines header '\u0663': '\u0663' (ARABIC-INDIC DIGIT THREE) is not an ASCII "
            "digit (numbers are written with 0-9 only)",
        ),
        (
            "# mines: \uff13\n1.\n",  # FULLWIDTH DIGIT THREE
            "line 1: mines header '\uff13': '\uff13' (FULLWIDTH DIGIT THREE) is not an ASCII",
        ),
        ("# mines: " + "1" * 101 + "\n1.\n", "line 1: mines header '111"),
        (
            "1\u0663\n..\n",
            "line 1, column 2: unexpected character '\u0663' (ARABIC-INDIC DIGIT THREE): not an "
            "ASCII digit",
        ),
        ("12\n1\u00b2\n", "line 2, column 2: unexpected character '\u00b2' (SUPERSCRIPT TWO)"),
        ("? \uff11\n1 1\n", "line 1, column 3: unexpected token '\uff11': '\uff11' (FULLWIDTH"),
        ("\u0663x1x0\nH11\n", "line 1, column 1: unexpected character '\u0663'"),
        ("1" * 101 + "x1x0\nH\n", "line 1, column 1: size line '111"),
        (
            "2x1x\uff11\nH1\n",
            "line 1, column 5: unexpected character '\uff11' (FULLWIDTH DIGIT ONE): not an ASCII",
        ),
    ],
)
def test_only_ascii_digits_are_numbers(text: str, message: str) -> None:
    assert error(text).startswith(message)


def test_invisible_characters_are_named() -> None:
    assert error("1\u00a0.\n...\n").startswith(
        "line 1, column 2: unexpected character '\\xa0' (NO-BREAK SPACE; expected"
    )


def test_only_newlines_break_lines() -> None:
    # a vertical tab or LINE SEPARATOR is a character on its line, not a new line
    assert error("1.\n.\x0b.\n").startswith("line 2, column 2: unexpected character '\\x0b'")
    assert error("1.\u2028..\n").startswith("line 1, column 3: unexpected character '\\u2028'")
    assert read_position("1.\r..\r").rows() == ["1.", ".."]


# -- properties: stray characters are named where they are -----------------------------------

STRAYS = "xXz* \t\u00a0\u0663\uff15\u00b2"


@settings(max_examples=200)
@given(
    st.integers(2, 6),
    st.integers(3, 6),
    st.data(),
    st.sampled_from(STRAYS),
    st.integers(0, 2),
    st.integers(0, 3),
)
def test_a_stray_character_in_a_native_board_is_named_by_line_and_column(
    height: int, width: int, data: st.DataObject, stray: str, headers: int, indent: int
) -> None:
    # a native board with a character only native reads ('F' or '#'), so no other format
    # can read more of it; then one cell replaced by a stray character
    cells = list(
        data.draw(st.text("012345678.?F#", min_size=height * width, max_size=height * width))
    )
    cells[data.draw(st.integers(0, len(cells) - 1))] = data.draw(st.sampled_from("F#"))
    where = data.draw(st.integers(0, len(cells) - 1).filter(lambda i: cells[i] not in "F#"))
    cells[where] = stray
    row, col = divmod(where, width)
    # blanks at either end of a line are indentation, not stray characters
    assume(stray not in " \t" or 0 < col < width - 1)
    # a first line "# ..." is a comment by definition (documented), not a row of holes
    assume(not (row == 0 and col == 1 and stray in " \t" and cells[0] == "#"))
    rows = ["".join(cells[r * width : (r + 1) * width]) for r in range(height)]
    head = ["# name: t", "# mines: 3"][:headers]
    text = "\n".join([*head, *(" " * indent + row for row in rows)]) + "\n"
    with pytest.raises(PositionError) as info:
        read_position(text)
    assert (info.value.line, info.value.column) == (len(head) + row + 1, indent + col + 1)
    assert detect_format(text) == "native"


@settings(max_examples=200)
@given(
    st.lists(st.text("12345678.x", min_size=3, max_size=3), min_size=1, max_size=4),
)
def test_minesweepr_is_detected_exactly_when_its_numbers_fit(rows: list[str]) -> None:
    text = "\n".join(rows)
    if "x" not in text or re.fullmatch(r"\d+x\d+x\d+", rows[0]):
        return
    expected = "minesweepr" if minesweepr_numbers_fit(rows) else "native"
    assert detect_format(text) == expected


@settings(max_examples=60)
@given(positions())
def test_every_format_round_trips_with_its_report(p: Position) -> None:
    # native (always), and the others where they can write the position (minesweepr only
    # where its numbers fit: otherwise the text is a native board with stray 'x's)
    texts = {"native": p.to_text()}
    plain = all(ch not in "F#" for row in p.rows() for ch in row)
    if plain and p.board.width > 1:
        texts["codewars"] = as_codewars(p)
    if "#" not in "".join(p.rows()):
        texts["jsminesweeper"] = as_jsminesweeper(p, p.mines or 0)
    ms_rows = _ms_rows(p)
    ms_text = "\n".join(ms_rows)
    if (
        plain
        and p.board.topology is Topology.SQUARE
        and "x" in ms_text
        and minesweepr_numbers_fit(ms_rows)
        and not re.fullmatch(r"\d+x\d+x\d+", ms_rows[0])
    ):
        texts["minesweepr"] = ms_text
    for fmt, text in texts.items():
        reading = formats.read(text, p.board.topology, p.mines if fmt != "native" else None)
        assert reading.report.format == fmt
        assert reading.position.rows() == p.rows()
        assert (reading.report.note is None) == (fmt == "native")


@st.composite
def played_rows(draw: st.DrawFn) -> list[str]:
    """Native rows of a position a real game could show: numbers counted from a layout,
    mines always covered, any other cell revealed or not."""
    height, width = draw(st.integers(1, 6)), draw(st.integers(2, 6))
    cells = [(r, c) for r in range(height) for c in range(width)]
    mines = draw(st.sets(st.sampled_from(cells)))
    shown = draw(st.sets(st.sampled_from(cells)))
    rows = []
    for r in range(height):
        row = ""
        for c in range(width):
            around = sum((i, j) in mines for i in range(r - 1, r + 2) for j in range(c - 1, c + 2))
            row += str(around) if (r, c) in shown and (r, c) not in mines else "."
        rows.append(row)
    return rows


@settings(max_examples=100)
@given(played_rows())
def test_a_played_position_in_minesweepr_is_detected_and_round_trips(rows: list[str]) -> None:
    ms_rows = [row.replace(".", "x").replace("0", ".") for row in rows]
    text = "\n".join(ms_rows)
    assume("x" in text and not re.fullmatch(r"\d+x\d+x\d+", ms_rows[0]))
    reading = formats.read(text)
    assert reading.report.format == "minesweepr"
    assert reading.report.note is not None
    first_x = next((i, row.index("x")) for i, row in enumerate(ms_rows) if "x" in row)
    assert (reading.report.line, reading.report.column) == (first_x[0] + 1, first_x[1] + 1)
    assert reading.position.rows() == rows


@pytest.mark.parametrize("value", ["\u0663", "\uff13", "-1", "x", "1" * 101])
def test_the_one_line_form_and_native_headers_take_ascii_digits_only(value: str) -> None:
    # the URL form (/analyse?p=...) and Position.from_text parse numbers too
    with pytest.raises(PositionError, match="not a whole number >= 0 in ASCII digits"):
        Position.from_line(f"1./..;mines={value}")
    with pytest.raises(PositionError, match="line 1: mines header"):
        Position.from_text(f"# mines: {value}\n1.\n..\n")
    assert Position.from_line("1./..;mines=3").mines == 3
