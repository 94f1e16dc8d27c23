"""Tests for ``devil-check``: every flag, every exit code, every error message, JSON shape.

Expected answers for the example files in ``tests/data`` are worked out by hand in the
comments, and checked against the brute-force oracle where the oracle can say.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from devil import oracle
from devil.board import Topology
from devil.cli.check import main
from devil.cli.sections import percent
from devil.formats import read_position
from devil.rules import Count
from tests.helpers.paths import DATA, POSITIONS
from tests.helpers.strategies import Scenario, profile, scenarios


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def data(name: str) -> str:
    return str(DATA / name)


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code, out, _ = run(capsys, *argv, "--format", "json")
    assert out.count("\n") == 1, "json output is one object on one line"
    return code, json.loads(out)


def oracle_board(path: Path, count: Count = Count.CLASSIC, **kwargs: Any) -> list[str]:
    position = read_position(path.read_text(), **kwargs)
    verdicts = oracle.classify(position, count).verdicts
    rows = []
    for r, row in enumerate(position.rows()):
        line = ""
        for c, ch in enumerate(row):
            cell = position.board.cell(r, c)
            line += verdicts[cell].letter if position.is_covered(cell) else ch
        rows.append(line)
    return rows


# -- the board picture and the summary line --------------------------------------------------

# Each expected picture is worked out by hand:
# native: the 1 at (2,0) touches only the flag (1,0): a mine. The 2 at (1,1) touches (0,2) and
#   (1,0): both mines. The 1 at (1,2) touches (0,2) and (0,3): (0,3) is safe. (0,0) is a hole.
# codewars: the 1 at (2,3) touches only (1,2): a mine; so (0,2) is safe (the 1 at (0,3)) and
#   (1,1) is safe (the 1 at (2,2)); the 1 at (2,0) then needs (1,0). (0,0),(0,1) are deep.
# jsminesweeper: the 2 at (1,2) touches (0,1) and (0,3): both mines; the 1 at (1,3) then makes
#   (0,4) safe. The flag at (0,1) is shown by its verdict.
# minesweepr: the 1 at (2,2) touches only (1,1): a mine; (0,1) and (1,0) are then safe by the 1s
#   at (0,2) and (2,0); (0,0) is deep. Revealed zeros ('.') print as 0.
EXPECTED = {
    "native.txt": (["#2MS", "M211", "1100"], "3 covered: 1 safe, 2 mine, 0 either"),
    "codewars.txt": (
        ["??S10", "MSM10", "12110", "00000"],
        "6 covered: 2 safe, 2 mine, 2 either",
    ),
    "jsminesweeper.txt": (["1M2MS", "11211", "00000"], "3 covered: 1 safe, 2 mine, 0 either"),
    "minesweepr.txt": (["?S10", "SM10", "1110", "0000"], "4 covered: 2 safe, 1 mine, 1 either"),
}


# The notes on stderr (issue 7): the format when it is not native, and why; a total in the
# file that the classic rule does not use.
UNUSED = "is not used: the classic rule ignores the total, add --counted to use it"
EXPECTED_NOTES = {
    "native.txt": [f"the total of 2 mines (the '# mines: 2' header on line 2) {UNUSED}"],
    "codewars.txt": [
        "read as codewars ('?' covered, cells separated by spaces): board lines hold "
        "space-separated tokens (line 1, column 2)"
    ],
    "jsminesweeper.txt": [
        "read as jsminesweeper (a WxHxM size line, then 'H' hidden, 'F' or 'M' flagged): the "
        "first board line is a WxHxM size line '5x3x2' (line 1)",
        f"the total of 2 mines (the size line on line 1) {UNUSED}",
    ],
    "minesweepr.txt": [
        "read as minesweepr ('x' covered, '.' a revealed 0): board lines use 'x' for covered "
        "cells (line 1, column 1)"
    ],
}


def notes_err(name: str) -> str:
    return "".join(f"devil-check: note: {note}\n" for note in EXPECTED_NOTES[name])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_board_and_summary_for_each_format(capsys: pytest.CaptureFixture[str], name: str) -> None:
    rows, summary = EXPECTED[name]
    code, out, err = run(capsys, data(name))
    assert code == 0 and err == notes_err(name)
    assert out == "\n".join([*rows, f"{summary} (classic rule)"]) + "\n"
    assert rows == oracle_board(DATA / name)


def test_stdin_dash(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO((DATA / "minesweepr.txt").read_text()))
    code, out, _ = run(capsys, "-")
    assert code == 0
    assert out.splitlines()[:4] == EXPECTED["minesweepr.txt"][0]


def test_input_format_flag_forces_a_reader(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "b.txt"
    path.write_text("1.\n11\n")
    # native: '.' is covered, and the 1s force it to be a mine
    assert run(capsys, str(path))[1].splitlines()[0] == "1M"
    # minesweepr: '.' is a revealed zero, nothing is covered, and the 1s cannot hold
    code, _, err = run(capsys, str(path), "--input-format", "minesweepr")
    assert code == 3 and "inconsistent position" in err


# -- --cell and its exit codes ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("cell", "code", "text"),
    [
        ("0,3", 0, "cell 0,3: safe (no consistent layout has a mine there)"),
        # a certain mine "is a mine" (issue 7), the exit code is still 1
        ("0,2", 1, "cell 0,2: is a mine (every consistent layout has a mine there)"),
        # the flagged cell: flags are marks only, it is asked about like any covered cell
        ("1,0", 1, "cell 1,0: is a mine (every consistent layout has a mine there)"),
    ],
)
def test_cell_exit_codes(
    capsys: pytest.CaptureFixture[str], cell: str, code: int, text: str
) -> None:
    got, out, _ = run(capsys, data("native.txt"), "--cell", cell)
    assert got == code
    assert out.splitlines()[-1] == text


def test_cell_either_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, data("codewars.txt"), "--cell", " 0, 0")
    assert code == 1
    assert out.splitlines()[-1] == (
        "cell 0,0: could be a mine (some consistent layouts have a mine there, some do not)"
    )


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("3,0", "--cell 3,0 is off the 3x4 board (rows 0-2, columns 0-3)"),
        ("0,4", "--cell 0,4 is off the 3x4 board (rows 0-2, columns 0-3)"),
        # negative coordinates (issue 8): off the board, not argparse's "expected one argument"
        ("-1,2", "--cell -1,2 is off the 3x4 board (rows 0-2, columns 0-3)"),
        ("0,-1", "--cell 0,-1 is off the 3x4 board (rows 0-2, columns 0-3)"),
        ("0,2", None),
        ("0,0", "--cell 0,0 is a hole: it does not exist"),
        ("1,1", "--cell 1,1 is already revealed (a 2): ask about a covered cell"),
    ],
)
def test_cell_not_a_covered_cell(
    capsys: pytest.CaptureFixture[str], cell: str, message: str | None
) -> None:
    # both spellings, "--cell R,C" and "--cell=R,C", reach the same check
    for argv in (["--cell", cell], [f"--cell={cell}"]):
        code, out, err = run(capsys, data("native.txt"), *argv)
        if message is None:  # a covered cell: answered
            assert code == 1 and out
            continue
        assert code == 2 and out == ""
        assert err == f"devil-check: {message}\n"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("x", "expected ROW,COL (two whole numbers, zero-based), got 'x'"),
        ("1", "expected ROW,COL (two whole numbers, zero-based), got '1'"),
        ("1,2,3", "expected ROW,COL (two whole numbers, zero-based), got '1,2,3'"),
        ("+1,2", "expected ROW,COL (two whole numbers, zero-based), got '+1,2'"),
        ("1_0,2", "expected ROW,COL (two whole numbers, zero-based), got '1_0,2'"),
        (
            "\u0661,2",
            "'\u0661' (ARABIC-INDIC DIGIT ONE) in '\u0661,2' is not an ASCII digit "
            "(numbers are written with 0-9 only)",
        ),
        (
            "1,\uff12",
            "'\uff12' (FULLWIDTH DIGIT TWO) in '1,\uff12' is not an ASCII digit "
            "(numbers are written with 0-9 only)",
        ),
    ],
)
def test_bad_cell_syntax(capsys: pytest.CaptureFixture[str], value: str, message: str) -> None:
    code, out, err = run(capsys, data("native.txt"), f"--cell={value}")
    assert code == 2 and out == ""
    assert f"argument --cell: {message}" in err


# -- --mines, --counted ----------------------------------------------------------------------


def test_mines_switches_to_the_counted_rule(capsys: pytest.CaptureFixture[str]) -> None:
    # minesweepr.txt: (1,1) is a mine; the deep cell (0,0) is either under the classic rule.
    # With 1 mine in total it must be safe, with 2 it must be a mine.
    code, out, _ = run(capsys, data("minesweepr.txt"), "--mines", "1")
    assert code == 0
    assert out.splitlines()[0] == "SS10"
    assert out.splitlines()[-1] == "4 covered: 3 safe, 1 mine, 0 either (counted rule, 1 mine)"
    code, out, _ = run(capsys, data("minesweepr.txt"), "--mines", "2", "--cell", "0,0")
    assert code == 1
    assert out.splitlines()[0] == "MS10"
    assert "(counted rule, 2 mines)" in out


def test_mines_overrides_the_header(capsys: pytest.CaptureFixture[str]) -> None:
    # native.txt says 2 mines; its layout is forced to exactly 2, so 3 is inconsistent
    code, out, err = run(capsys, data("native.txt"), "--mines", "3")
    assert code == 3 and out == ""
    assert err.startswith("devil-check: inconsistent position: ")


def test_header_mines_alone_keep_the_classic_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert "(classic rule)" in run(capsys, data("native.txt"))[1]


def test_counted_uses_the_header(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, data("native.txt"), "--counted")
    assert code == 0 and "(counted rule, 2 mines)" in out


def test_counted_without_a_total(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, data("codewars.txt"), "--counted")
    assert code == 2 and out == ""
    assert err == (
        "devil-check: --counted needs a total: give --mines N or a '# mines: N' header\n"
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("-1", "must be >= 0, got -1"),
        ("many", "expected a whole number, got 'many'"),
        ("1_000", "expected a whole number, got '1_000'"),
        ("1" * 101, f"expected a whole number of at most 100 digits, got '{'1' * 37}'..."),
        ("\u0663", "'\u0663' (ARABIC-INDIC DIGIT THREE) in '\u0663' is not an ASCII digit"),
        ("\uff13", "'\uff13' (FULLWIDTH DIGIT THREE) in '\uff13' is not an ASCII digit"),
        ("\u00b2", "'\u00b2' (SUPERSCRIPT TWO) in '\u00b2' is not an ASCII digit"),
    ],
)
def test_bad_mines(capsys: pytest.CaptureFixture[str], value: str, message: str) -> None:
    code, _, err = run(capsys, data("native.txt"), f"--mines={value}")
    assert code == 2 and f"argument --mines: {message}" in err
    if value.startswith("-"):  # "--mines -1" too (issue 8), not "expected one argument"
        code, _, err = run(capsys, data("native.txt"), "--mines", value)
        assert code == 2 and f"argument --mines: {message}" in err


# -- --witness -------------------------------------------------------------------------------


def test_witness_has_a_mine_on_the_cell_and_is_consistent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, data("codewars.txt"), "--cell", "0,1", "--witness")
    assert code == 1
    lines = out.splitlines()
    head = lines.index("witness: a consistent layout with a mine at 0,1 ('*' mine, '.' no mine):")
    rows = lines[head + 1 : head + 5]
    assert rows[0][1] == "*"
    assert rows[2:] == ["12110", "00000"]  # revealed numbers as they are
    position = read_position((DATA / "codewars.txt").read_text())
    layout = {
        position.board.cell(r, c)
        for r, row in enumerate(rows)
        for c, ch in enumerate(row)
        if ch == "*"
    }
    assert all(ch in "*.0123456789" for row in rows for ch in row)
    assert oracle.is_consistent(position, layout)


def test_witness_counted_rule_has_exactly_the_total(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = run_json(capsys, data("codewars.txt"), "--cell", "0,0", "--witness", "--mines", "3")
    assert code == 1
    rows = doc["witness"]
    position = read_position((DATA / "codewars.txt").read_text(), mines=3)
    layout = {
        position.board.cell(r, c)
        for r, row in enumerate(rows)
        for c, ch in enumerate(row)
        if ch == "*"
    }
    assert position.board.cell(0, 0) in layout
    assert len(layout) == 3
    assert oracle.is_consistent(position, layout, Count.COUNTED)


def test_witness_of_a_safe_cell_is_none(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, data("native.txt"), "--cell", "0,3", "--witness")
    assert code == 0
    assert "witness: none, no consistent layout has a mine at 0,3" in out.splitlines()
    code, doc = run_json(capsys, data("native.txt"), "--cell", "0,3", "--witness")
    assert code == 0 and doc["witness"] is None


def test_witness_needs_a_cell(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, data("native.txt"), "--witness")
    assert code == 2 and out == ""
    assert err == "devil-check: --witness needs --cell ROW,COL\n"


# -- --probabilities -------------------------------------------------------------------------


def test_probabilities_text_grid(capsys: pytest.CaptureFixture[str]) -> None:
    # minesweepr.txt has no total, so the classic density is 0.2: the deep (0,0) gets 20%
    code, out, _ = run(capsys, data("minesweepr.txt"), "--probabilities")
    assert code == 0
    lines = out.splitlines()
    start = lines.index("mine probabilities (%):")
    assert lines[start + 1 : start + 5] == [
        " 20%   0%    1    0",
        "  0% 100%    1    0",
        "   1    1    1    0",
        "   0    0    0    0",
    ]


def test_probabilities_json_match_the_oracle(capsys: pytest.CaptureFixture[str]) -> None:
    for count_args, count in (((), Count.CLASSIC), (("--mines", "3"), Count.COUNTED)):
        code, doc = run_json(capsys, data("codewars.txt"), "--probabilities", *count_args)
        assert code == 0
        position = read_position(
            (DATA / "codewars.txt").read_text(), mines=3 if count_args else None
        )
        exact = oracle.probabilities(position, count)
        got = {
            position.board.cell(e["row"], e["col"]): e["probability"] for e in doc["probabilities"]
        }
        assert got.keys() == exact.keys()
        for cell, p in exact.items():
            assert got[cell] == pytest.approx(float(p), abs=1e-9)


def test_percent_is_0_or_100_only_when_exact() -> None:
    assert [percent(p) for p in (0.0, 0.001, 0.2, 0.5, 0.996, 1.0)] == [0, 1, 20, 50, 99, 100]


# -- --format json ---------------------------------------------------------------------------


def test_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = run_json(capsys, data("native.txt"), "--cell", "0,2")
    assert code == 1
    assert doc["board"] == ["#2MS", "M211", "1100"]
    assert doc["cells"] == [
        {"row": 0, "col": 2, "verdict": "mine"},
        {"row": 0, "col": 3, "verdict": "safe"},
        {"row": 1, "col": 0, "verdict": "mine"},
    ]
    assert doc["summary"] == {"covered": 3, "safe": 1, "mine": 2, "either": 0}
    assert doc["rule"] == "classic"
    assert doc["mines"] == 2
    assert doc["topology"] == "square"
    assert doc["input_format"] == "native"
    assert doc["cell"] == {"row": 0, "col": 2, "verdict": "mine", "could_be_mine": True}
    assert "probabilities" not in doc and "witness" not in doc


def test_json_board_is_the_text_picture(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, data("codewars.txt"))
    _, doc = run_json(capsys, data("codewars.txt"), "--probabilities", "--cell", "0,0", "--witness")
    assert doc["board"] == out.splitlines()[:-1]
    assert {"board", "cells", "summary", "rule", "probabilities", "witness", "cell"} <= doc.keys()
    assert doc["rule"] == "classic"


# -- --topology ------------------------------------------------------------------------------


def test_hex_header_and_override(capsys: pytest.CaptureFixture[str]) -> None:
    # odd-r hex: the 6 at (1,1) (an odd row) touches (1,0),(1,2),(0,1),(0,2),(2,1),(2,2): all
    # six are mines; (0,0) and (2,0) are not its neighbours. On a square board it has 8
    # covered neighbours for 6 mines: every one is either.
    # text output draws a hex board as it looks: cells a space apart, odd rows half a cell right
    _, out, _ = run(capsys, data("hex.txt"))
    assert out.splitlines()[:3] == ["? M M", " M 6 M", "? M M"]
    _, out, _ = run(capsys, data("hex.txt"), "--topology", "square")
    assert out.splitlines()[:3] == ["???", "?6?", "???"]
    assert oracle_board(DATA / "hex.txt") == ["?MM", "M6M", "?MM"]
    _, doc = run_json(capsys, data("hex.txt"))
    assert doc["topology"] == "hex"
    assert doc["board"] == ["?MM", "M6M", "?MM"], "JSON keeps one character a cell"


def test_hex_witness_and_probabilities_are_shifted_too(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, data("hex.txt"), "--cell", "0,0", "--witness", "--probabilities")
    lines = out.splitlines()
    head = lines.index("mine probabilities (%):")
    odd = lines[head + 2]
    assert odd.startswith("  ") and not lines[head + 1].startswith("  "), lines[head : head + 4]
    start = next(i for i, line in enumerate(lines) if line.startswith("witness:"))
    witness = lines[start + 1 : start + 4]
    assert witness[1].startswith(" ") and not witness[0].startswith(" ")
    assert [row.replace(" ", "") for row in witness] == ["*" + witness[0].replace(" ", "")[1:],
        *[row.replace(" ", "") for row in witness[1:]]]  # fmt: skip


@pytest.mark.parametrize("backend", ["search", "cpsat"])
def test_a_total_larger_than_the_covered_cells_is_said_first(
    capsys: pytest.CaptureFixture[str], backend: str, tmp_path: Path
) -> None:
    if backend == "cpsat":
        pytest.importorskip("ortools")
    board = tmp_path / "board.txt"
    board.write_text("1..\n...\n")
    code, out, err = run(capsys, "--mines", "500", "--backend", backend, str(board))
    assert code == 3 and out == ""
    assert err == (
        "devil-check: inconsistent position: 500 mines do not fit: there are only 5 covered cells\n"
    )
    assert run(capsys, "--mines", "5", "--backend", backend, str(board))[0] == 3  # the 1 says no
    assert run(capsys, "--mines", "1", "--backend", backend, str(board))[0] == 0


def test_torus_wraps(capsys: pytest.CaptureFixture[str]) -> None:
    # the 0 at (0,0): on a square its 3 neighbours are safe; on a 4x4 torus it touches rows
    # 3,0,1 and columns 3,0,1, so 8 cells are safe.
    _, out, _ = run(capsys, data("torus.txt"))
    assert out.splitlines()[:4] == ["0S??", "SS??", "????", "????"]
    _, out, _ = run(capsys, data("torus.txt"), "--topology", "torus")
    assert out.splitlines()[:4] == ["0S?S", "SS?S", "????", "SS?S"]
    assert oracle_board(DATA / "torus.txt", topology=Topology.TORUS) == [
        "0S?S",
        "SS?S",
        "????",
        "SS?S",
    ]


def test_bad_topology(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, data("torus.txt"), "--topology", "klein")
    assert code == 2 and "argument --topology: invalid choice: 'klein'" in err


# -- --backend -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["native.txt", "codewars.txt", "hex.txt", "minesweepr.txt"])
def test_cpsat_backend_gives_the_same_board(capsys: pytest.CaptureFixture[str], name: str) -> None:
    pytest.importorskip("ortools")
    search = run(capsys, data(name))
    cpsat = run(capsys, data(name), "--backend", "cpsat")
    assert search == cpsat


def test_cpsat_backend_witness(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("ortools")
    code, doc = run_json(
        capsys, data("codewars.txt"), "--backend", "cpsat", "--cell", "0,0", "--witness"
    )
    assert code == 1 and doc["witness"][0][0] == "*"


def test_cpsat_backend_without_ortools(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ortools", "ortools.sat", "ortools.sat.python", "ortools.sat.python.cp_model"):
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "devil.cpsat", raising=False)
    code, out, err = run(capsys, data("native.txt"), "--backend", "cpsat")
    assert code == 2 and out == ""
    assert err == (
        "devil-check: the cpsat backend needs OR-Tools, which is not installed "
        "(pip install 'mine-devil[cpsat]'), or use --backend search\n"
    )


def test_cpsat_timeout_is_reported(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cpsat = pytest.importorskip("devil.cpsat")

    def give_up(*args: object, **kwargs: object) -> None:
        raise cpsat.CpSatTimeout("one solve took more than 30 s")

    monkeypatch.setattr(cpsat, "classify", give_up)
    code, out, err = run(capsys, data("native.txt"), "--backend", "cpsat")
    assert code == 2 and out == ""
    assert err == (
        "devil-check: the cpsat backend gave up (one solve took more than 30 s); "
        "try --backend search\n"
    )


def test_bad_backend(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, data("native.txt"), "--backend", "magic")
    assert code == 2 and "argument --backend: invalid choice: 'magic'" in err


# -- inconsistent positions: exit 3 ----------------------------------------------------------


def test_inconsistent_position(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, data("inconsistent.txt"), "--cell", "0,0")
    assert code == 3 and out == ""
    assert err == (
        "devil-check: inconsistent position: the 3 at row 0, col 1 has only 2 covered neighbours\n"
    )


def test_inconsistent_in_json_mode_still_exits_3(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, data("inconsistent.txt"), "--format", "json")
    assert code == 3 and out == "" and "inconsistent position" in err


# -- unreadable input and bad usage: exit 2 --------------------------------------------------


def test_bad_character_names_line_and_column(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("# mines: 1\n1..\n.z.\n")
    code, out, err = run(capsys, str(path))
    assert code == 2 and out == ""
    assert err == (
        f"devil-check: {path}: line 3, column 2: unexpected character 'z' "
        "(expected 0-8, '.', '?', 'F' or '#')\n"
    )


def test_bad_stdin_is_named(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("1 2\n1\n"))
    code, _, err = run(capsys, "-")
    assert code == 2
    assert err == (
        "devil-check: <stdin>: line 2, column 2: row has 1 cells but the first row has 2\n"
    )


def test_empty_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code, _, err = run(capsys, "-")
    assert code == 2 and err == "devil-check: <stdin>: empty input: no board rows\n"


def test_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "nope.txt"
    code, out, err = run(capsys, str(path))
    assert code == 2 and out == ""
    assert err == f"devil-check: cannot read {path}: No such file or directory\n"


def test_directory_is_unreadable(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, str(tmp_path))
    assert code == 2 and err.startswith(f"devil-check: cannot read {tmp_path}: ")


def test_binary_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "b.bin"
    path.write_bytes(b"\xff\xfe\x00junk")
    code, _, err = run(capsys, str(path))
    assert code == 2 and err == (
        f"devil-check: cannot read {path}: not UTF-8 text (line 1, column 1: byte 0xff)\n"
    )
    # the bad byte is named where it is
    path.write_bytes("# name: \u00e9\n1.\n.".encode() + b"\xe9\xff\n")
    code, _, err = run(capsys, str(path))
    assert err.endswith(": not UTF-8 text (line 3, column 2: byte 0xe9)\n")


def test_jsminesweeper_header_conflict(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "js.txt"
    path.write_text("# mines: 3\n2x1x1\nH1\n")
    code, _, err = run(capsys, str(path))
    assert code == 2
    assert err == (
        f"devil-check: {path}: line 1: mines header says 3 but the size line on line 2 says 1\n"
    )


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        ([], "the following arguments are required: FILE"),
        (["x.txt", "--frobnicate"], "unrecognized arguments: --frobnicate"),
        (["x.txt", "--format", "xml"], "argument --format: invalid choice: 'xml'"),
    ],
)
def test_argparse_errors_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("usage: devil-check")
    assert fragment in err


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for flag in ("--cell", "--mines", "--witness", "--probabilities", "--format", "--backend"):
        assert flag in out


# -- notes: how the input was read (issue 7) -------------------------------------------------


def test_json_carries_the_detection_and_the_notes_and_stderr_stays_empty(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, data("minesweepr.txt"), "--format", "json")
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc["input_format"] == "minesweepr"
    assert doc["detection"] == {
        "format": "minesweepr",
        "detected": True,
        "reason": "board lines use 'x' for covered cells (line 1, column 1)",
        "line": 1,
        "column": 1,
        "passed_over": None,
        "legend": "'x' covered, '.' a revealed 0",
        "note": EXPECTED_NOTES["minesweepr.txt"][0],
    }
    assert doc["notes"] == EXPECTED_NOTES["minesweepr.txt"]
    _, doc = run_json(capsys, data("native.txt"))
    assert doc["detection"]["format"] == "native" and doc["detection"]["note"] is None
    assert doc["notes"] == EXPECTED_NOTES["native.txt"]


def test_forced_format_has_no_note(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, data("minesweepr.txt"), "--input-format", "minesweepr")
    assert code == 0 and err == ""
    _, doc = run_json(capsys, data("minesweepr.txt"), "--input-format", "minesweepr")
    assert doc["detection"]["detected"] is False and doc["notes"] == []


@pytest.mark.parametrize("rule", [["--counted"], ["--mines", "2"]])
def test_a_used_total_gets_no_note(capsys: pytest.CaptureFixture[str], rule: list[str]) -> None:
    code, _, err = run(capsys, data("native.txt"), *rule)
    assert code == 0 and err == ""


def test_the_unused_total_note_says_what_it_still_does(capsys: pytest.CaptureFixture[str]) -> None:
    _, _, err = run(capsys, data("native.txt"), "--probabilities")
    assert err == (
        f"devil-check: note: the total of 2 mines (the '# mines: 2' header on line 2) {UNUSED}"
        "; it only sets the density behind --probabilities\n"
    )


def test_inconsistent_after_a_detected_format_says_how_it_was_read(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # a Codewars board whose 4 has only 3 neighbours: the note comes first, then the error
    code, out, err = run_stdin("4 ?\n? ?\n")
    assert code == 3 and out == ""
    assert err.splitlines() == [
        "devil-check: note: read as codewars ('?' covered, cells separated by spaces): board "
        "lines hold space-separated tokens (line 1, column 2)",
        "devil-check: inconsistent position: the 4 at row 0, col 0 has only 3 covered neighbours",
    ]


def test_a_stray_x_in_a_native_board_names_it(capsys: pytest.CaptureFixture[str]) -> None:
    # issue 7: not a silent switch to minesweepr and a baffling "only 0 covered neighbours"
    code, out, err = run_stdin("# mines: 3\n....\n.21.\n...x\n")
    assert code == 2 and out == ""
    assert err == (
        "devil-check: <stdin>: line 4, column 4: unexpected character 'x' (expected 0-8, '.', "
        "'?', 'F' or '#'): for a covered cell write '.' (not minesweepr: as minesweepr ('x' "
        "covered, '.' a revealed 0) its 2 at line 3, column 2 would have only 0 covered "
        "neighbours)\n"
    )


def test_a_stray_tab_in_a_native_board_names_it() -> None:
    code, _, err = run_stdin("1..\n.\t.\n...\n")
    assert code == 2
    assert err.startswith(
        "devil-check: <stdin>: line 2, column 2: unexpected character '\\t' (a tab; expected"
    )


def test_unknown_header_is_an_error_naming_line_and_header() -> None:
    code, out, err = run_stdin("# name: x\n# mine: 3\n1.\n..\n")
    assert code == 2 and out == ""
    assert err.startswith(
        "devil-check: <stdin>: line 2: unknown header '# mine:' (did you mean 'mines'?): "
        "the headers are mines, topology;"
    )


# -- bounded input (issue 8) -----------------------------------------------------------------


class Endless:
    """A byte stream that never ends and records how much was asked of it."""

    def __init__(self) -> None:
        self.asked = 0

    def read(self, size: int = -1) -> bytes:
        assert size >= 0, "an unbounded read of an endless stream"
        self.asked += size
        return b"." * size

    def __enter__(self) -> Endless:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def test_stdin_is_read_bounded(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import devil.cli.reading

    stream = Endless()
    monkeypatch.setattr(devil.cli.reading, "MAX_INPUT_BYTES", 1000)
    monkeypatch.setattr(sys, "stdin", SimpleNamespace(buffer=stream))
    code, out, err = run(capsys, "-")
    assert code == 2 and out == ""
    assert err == (
        "devil-check: cannot read <stdin>: larger than 1000 bytes, the most devil-check reads\n"
    )
    assert stream.asked == 1001


def test_a_file_is_read_bounded(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import devil.cli.reading

    stream = Endless()
    monkeypatch.setattr(devil.cli.reading, "open", lambda path, mode: stream, raising=False)
    code, _, err = run(capsys, "big.txt")
    assert code == 2
    assert err == (
        "devil-check: cannot read big.txt: larger than 16777216 bytes (16 MiB), "
        "the most devil-check reads\n"
    )
    assert stream.asked == 16 * 2**20 + 1


def test_a_500_mb_file_is_refused_quickly(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "huge.txt"
    with path.open("wb") as f:
        f.truncate(500 * 2**20)  # sparse: no disk used
    code, _, err = run(capsys, str(path))
    assert code == 2 and "larger than 16777216 bytes (16 MiB)" in err


def test_input_at_the_limit_is_read(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import devil.cli.reading

    text = (DATA / "minesweepr.txt").read_bytes()
    path = tmp_path / "b.txt"
    path.write_bytes(text)
    monkeypatch.setattr(devil.cli.reading, "MAX_INPUT_BYTES", len(text))
    assert run(capsys, str(path))[0] == 0
    monkeypatch.setattr(devil.cli.reading, "MAX_INPUT_BYTES", len(text) - 1)
    assert run(capsys, str(path))[0] == 2


def test_console_script_refuses_endless_input() -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    done = subprocess.run([script(), "/dev/zero"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == (
        "devil-check: cannot read /dev/zero: larger than 16777216 bytes (16 MiB), "
        "the most devil-check reads\n"
    )
    with open("/dev/zero", "rb") as zero:
        done = subprocess.run(
            [script(), "-"], stdin=zero, capture_output=True, text=True, timeout=60
        )
    assert done.returncode == 2 and "cannot read <stdin>: larger than" in done.stderr


# -- arguments: negative values reach their own checks (issue 8) -----------------------------


def test_negative_values_are_glued_to_their_option() -> None:
    from devil.cli.check import _glue_negative_values

    assert _glue_negative_values(["f", "--cell", "-1,0", "--mines", "-3"]) == [
        "f",
        "--cell=-1,0",
        "--mines=-3",
    ]
    # only values that start like a negative number, never after '--' or 'opt=value'
    assert _glue_negative_values(["--cell=1,2", "-", "--", "-1.txt", "--cell", "-x"]) == [
        "--cell=1,2",
        "-",
        "--",
        "-1.txt",
        "--cell",
        "-x",
    ]


@given(st.integers(-50, 50), st.integers(-50, 50), st.booleans())
def test_any_cell_gets_an_answer_or_a_message_naming_it(row: int, col: int, glued: bool) -> None:
    # native.txt is 3x4: every --cell is answered, or refused with its own coordinates
    argv = [f"--cell={row},{col}"] if glued else ["--cell", f"{row},{col}"]
    text = (DATA / "native.txt").read_text()
    code, out, err = run_stdin(text, *argv)
    if 0 <= row < 3 and 0 <= col < 4:
        assert code in (0, 1, 2)
        if code == 2:
            assert err == f"devil-check: --cell {row},{col} is a hole: it does not exist\n" or (
                f"--cell {row},{col} is already revealed" in err
            )
        return
    assert code == 2 and out == ""
    assert err == (
        f"devil-check: --cell {row},{col} is off the 3x4 board (rows 0-2, columns 0-3)\n"
    )


# -- the shared sample positions against their truth files -----------------------------------


def shared(names: list[str]) -> list[Path]:
    return [POSITIONS / f"{n}.txt" for n in names if (POSITIONS / f"{n}.txt").exists()]


SAMPLES = ["inter_g00_s0", "inter_g03_s2", "expert_g01_s1", "expert_g05_s3", "adv-band_L200"]


@pytest.mark.skipif(not POSITIONS.is_dir(), reason="tests/data/positions not present")
@pytest.mark.parametrize("path", shared(SAMPLES), ids=lambda p: p.stem)
def test_shared_positions_match_truth(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    truth = json.loads(path.with_suffix(".truth.json").read_text())
    position = read_position(path.read_text())
    frontier = sorted(position.edge)
    code, doc = run_json(capsys, str(path))
    assert code == 0
    letters = "".join(doc["board"][r][c] for r, c in map(position.board.coord, frontier))
    assert letters == truth["local"]
    # the counted rule, with the file's own total
    code, doc = run_json(capsys, str(path), "--counted")
    assert code == 0 and doc["rule"] == "counted"
    letters = "".join(doc["board"][r][c] for r, c in map(position.board.coord, frontier))
    assert letters == truth["global"]


# -- the installed console script ------------------------------------------------------------


def script() -> str:
    path = Path(sys.executable).parent / "devil-check"
    if not path.exists():
        pytest.skip("devil-check console script not installed")
    return str(path)


def test_console_script_cell_exit_code() -> None:
    done = subprocess.run(
        [script(), data("native.txt"), "--cell", "0,2"], capture_output=True, text=True
    )
    assert done.returncode == 1
    assert done.stdout.splitlines()[-1].startswith("cell 0,2: is a mine")
    done = subprocess.run(
        [script(), data("native.txt"), "--cell", "0,3"], capture_output=True, text=True
    )
    assert done.returncode == 0


def test_console_script_stdin_json_and_errors() -> None:
    text = (DATA / "jsminesweeper.txt").read_text()
    done = subprocess.run(
        [script(), "-", "--format", "json"], input=text, capture_output=True, text=True
    )
    assert done.returncode == 0
    assert json.loads(done.stdout)["board"] == EXPECTED["jsminesweeper.txt"][0]
    done = subprocess.run([script(), data("inconsistent.txt")], capture_output=True, text=True)
    assert done.returncode == 3 and "Traceback" not in done.stderr
    done = subprocess.run([script(), "-"], input="1?\nzz\n", capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "line 2, column 1: unexpected character 'z'" in done.stderr
    raw = subprocess.run([script(), "-"], input=b"\xff\xfe1?", capture_output=True)
    assert raw.returncode == 2
    assert raw.stderr == (
        b"devil-check: cannot read <stdin>: not UTF-8 text (line 1, column 1: byte 0xff)\n"
    )


# -- end to end on random positions, against the oracle --------------------------------------


def run_stdin(text: str, *argv: str) -> tuple[int, str, str]:
    """``main`` on ``text`` given as stdin, without pytest fixtures (usable under hypothesis)."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["-", *argv])
    finally:
        sys.stdin = saved
    return code, out.getvalue(), err.getvalue()


@profile()
@given(scenarios(), st.sampled_from([Count.CLASSIC, Count.COUNTED]), st.data())
def test_random_positions_match_the_oracle(
    scenario: Scenario, count: Count, data: st.DataObject
) -> None:
    position = scenario.position
    rule = ["--counted"] if count is Count.COUNTED else []
    code, out, err = run_stdin(position.to_text(), "--format", "json", *rule)
    assert code == 0 and err == ""
    doc = json.loads(out)
    verdicts = oracle.classify(position, count).verdicts
    for cell, verdict in verdicts.items():
        r, c = position.board.coord(cell)
        assert doc["board"][r][c] == verdict.letter
    assert doc["summary"]["covered"] == len(verdicts)
    assert doc["topology"] == position.board.topology.value
    if not verdicts:
        return  # everything revealed: no cell to ask about
    # ask about one covered cell: the exit code and the witness follow its verdict
    cell = data.draw(st.sampled_from(sorted(verdicts)))
    r, c = position.board.coord(cell)
    code, out, err = run_stdin(
        position.to_text(), "--format", "json", "--cell", f"{r},{c}", "--witness", *rule
    )
    assert err == ""
    assert code == (1 if verdicts[cell].could_be_mine else 0)
    doc = json.loads(out)
    if not verdicts[cell].could_be_mine:
        assert doc["witness"] is None
        return
    layout = {
        position.board.cell(i, j)
        for i, row in enumerate(doc["witness"])
        for j, ch in enumerate(row)
        if ch == "*"
    }
    assert cell in layout
    assert oracle.is_consistent(position, layout, count)
    for i, row in enumerate(position.rows()):
        for j, ch in enumerate(row):
            if not position.is_covered(position.board.cell(i, j)):
                assert doc["witness"][i][j] == ch


def test_a_timeout_with_the_cpsat_backend_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """CP-SAT runs past --timeout (a 40x40 lattice took 15 s under --timeout 1): refused."""
    pytest.importorskip("devil.cpsat")
    code, out, err = run(capsys, data("native.txt"), "--backend", "cpsat", "--timeout", "1")
    assert code == 2 and out == ""
    assert "--timeout bounds the search backend only" in err


def test_ctrl_c_stops_the_command_at_once_without_a_traceback() -> None:
    """SIGINT in the middle of a long count: the process ends at once the shell's way (it
    was ignored inside the compiled loops, or printed a traceback, or aborted)."""
    import signal
    import time

    lattice = str(DATA / "positions" / "adv-lattice_40x40.txt")
    proc = subprocess.Popen(
        [script(), "--probabilities", "--counted", lattice],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(1.5)  # well into the count (it runs for minutes)
    assert proc.poll() is None
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=10)
    assert proc.returncode == -signal.SIGINT, (proc.returncode, err)
    assert "Traceback" not in err and "fatal" not in err
