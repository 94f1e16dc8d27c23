"""``devil-check --timeout``: partial answers, never wrong, a distinct exit code (4)."""

from __future__ import annotations

import json

import pytest

from devil.cli import check as cli
from tests.helpers.paths import POSITIONS

LATTICE = str(POSITIONS / "adv-lattice_40x40.txt")
SMALL = str(POSITIONS / "adv-lattice_16x16.txt")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def truth(name: str, key: str) -> str:
    value = json.loads((POSITIONS / f"{name}.truth.json").read_text())[key]
    assert isinstance(value, str)
    return value


def test_a_lattice_past_its_timeout_lists_the_undecided_cells(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, LATTICE, "--counted", "--timeout", "0.05")
    assert code == cli.EXIT_UNDECIDED == 4
    assert err == ""
    lines = out.splitlines()
    assert "undecided (counted rule, 261 mines)" in lines[-2]
    assert lines[-1].startswith("undecided: ")
    assert "too hard within --timeout 0.05 s" in lines[-1]
    # every decided letter on the board agrees with the truth file
    board = lines[:40]
    letters = [ch for row in board for ch in row if ch in "SM?-"]
    expected = truth("adv-lattice_40x40", "global")
    assert len(letters) == len(expected)
    assert all(got in ("-", want) for got, want in zip(letters, expected, strict=True))
    assert letters.count("-") == int(lines[-1].split()[1])


def test_json_names_the_undecided_cells(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, LATTICE, "--counted", "--timeout", "0.05", "--format", "json")
    data = json.loads(out)
    assert code == 4
    assert data["summary"]["undecided"] == len(data["undecided"]) > 0
    undecided = {(c["row"], c["col"]) for c in data["undecided"]}
    marked = {(c["row"], c["col"]) for c in data["cells"] if c["verdict"] == "undecided"}
    assert undecided == marked
    assert data["stopped"] == "too hard within --timeout 0.05 s"


def test_an_undecided_cell_exits_4_with_no_witness(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, LATTICE, "--counted", "--timeout", "0.05", "--cell", "0,0", "--witness"
    )
    assert code == 4
    assert "cell 0,0: undecided (too hard within --timeout)" in out
    assert "witness: none found within --timeout for 0,0" in out


def test_enough_time_gives_the_full_answer(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, SMALL, "--counted", "--timeout", "60")
    assert code == 0
    assert "undecided" not in out
    letters = "".join(ch for row in out.splitlines()[:16] for ch in row if ch in "SM?")
    assert letters == truth("adv-lattice_16x16", "global")


@pytest.mark.parametrize("bad", ["0", "-1", "nan", "inf", "soon"])
def test_bad_timeouts_are_usage_errors(capsys: pytest.CaptureFixture[str], bad: str) -> None:
    code, _, err = run(capsys, SMALL, "--timeout", bad)
    assert code == 2
    assert "--timeout" in err and "positive number of seconds" in err
