"""``devil-check --annotate`` and the luck sentence."""

from __future__ import annotations

import io
import itertools
import json
from fractions import Fraction
from pathlib import Path

import pytest

from devil.board import Board
from devil.cli.check import main
from devil.game import Move
from devil.ledger.annotate import (
    ANNOTATION_VERSION,
    GameAnnotation,
    MoveJudgement,
    MoveNote,
    annotate,
)
from devil.ledger.luck import luck_sentence, odds
from devil.ledger.metrics import Metrics
from devil.ledger.replays.movelist import read_movelist
from tests.helpers.paths import REPLAYS


def test_text_lists_every_move_then_luck_and_metrics(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--annotate", str(REPLAYS / "won-chords.moves")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["move", "kind", "cell", "judgement", "level", "p(safe)", "bits"]
    assert out[1].split() == ["1", "reveal", "1,8", "forced", "certain", "0.00"]
    assert "You needed no luck" in out[-2]
    assert out[-1].startswith("3BV 11, clicks 21, efficiency 0.52")


def test_json_is_the_annotation(capsys: pytest.CaptureFixture[str]) -> None:
    path = REPLAYS / "won-chords.moves"
    assert main(["--annotate", "--format", "json", str(path)]) == 0
    data = json.loads(capsys.readouterr().out)
    replay = read_movelist(path.read_text())
    assert replay.layout is not None
    assert data == annotate(replay.params, replay.moves, replay.layout).to_json()
    assert data["version"] == ANNOTATION_VERSION


def test_videos_from_elsewhere_are_judged_without_the_devil(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--annotate", "--format", "json", str(REPLAYS / "lost.evf")]) == 0
    moves = json.loads(capsys.readouterr().out)["moves"]
    assert moves[-1]["judgement"] == "fatal"


def test_stdin_and_errors(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    head = "# Mine Devil move list 1\nboard 4x4\nmines 2\nlayout 0,0 0,3\n"
    text = head + "moves\nreveal 3 0\nreveal 3 0\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    assert main(["--annotate", "-"]) == 2
    assert "<stdin>: move 2 (reveal 3 0): the cell is already revealed" in capsys.readouterr().err
    bad = "# Mine Devil move list 1\nboard 4x4\nmines two\nmoves\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(bad.encode())))
    assert main(["--annotate", "-"]) == 2
    assert "line 3, column 7: mines 'two'" in capsys.readouterr().err
    nothing = "# Mine Devil move list 1\nboard 4x4\nmines 2\nmoves\nreveal 0 0\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(nothing.encode())))
    assert main(["--annotate", "-"]) == 2
    assert "neither 'layout' nor 'seed'" in capsys.readouterr().err
    assert main(["--annotate", "/no/such/file.moves"]) == 2
    assert "cannot read /no/such/file.moves" in capsys.readouterr().err


def test_big_and_lying_files_get_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file over the input limit is refused without being read whole; a file whose layout
    contradicts its own mine count under the counted rule is named by line and column (it
    raised InconsistentPosition with a traceback)."""
    monkeypatch.setattr("devil.cli.reading.MAX_INPUT_BYTES", 100)
    big = tmp_path / "big.moves"
    big.write_text("# Mine Devil move list 1\n" + "# padding\n" * 20)
    assert main(["--annotate", str(big)]) == 2
    assert f"cannot read {big}: larger than 100 bytes" in capsys.readouterr().err
    monkeypatch.undo()
    lie = tmp_path / "lie.moves"
    lie.write_text(
        "# Mine Devil move list 1\nboard 4x4\nmines 5\nrules counted/strict\n"
        "layout 0,0 0,3\nmoves\nreveal 3 0\nreveal 0 1\n"
    )
    assert main(["--annotate", str(lie)]) == 2
    err = capsys.readouterr().err
    assert "line 5, column 8: the layout has 2 mines but 'mines' says 5" in err
    assert "Traceback" not in err


def test_timeout_bounds_the_judging_and_exits_4(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--timeout`` is the annotation's deadline (it was ignored: always 30 s); running out
    is exit 4, as for a position, with the move reached named."""
    path = str(REPLAYS / "won-chords.moves")
    assert main(["--annotate", "--timeout", "1e-9", path]) == 4
    assert "annotating took over 1e-09 s; stopped" in capsys.readouterr().err
    assert main(["--annotate", "--timeout", "60", path]) == 0


def test_a_seed_replays_the_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.moves"
    path.write_text("# Mine Devil move list 1\nboard 9x9\nmines 10\nseed 4\nmoves\nreveal 4 4\n")
    assert main(["--annotate", str(path)]) == 0
    assert "forced" in capsys.readouterr().out


def test_a_graph_game_names_its_cells_by_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A graph game's moves name slots of its virtual grid; the output names the cells
    (text: the id; JSON: ``cell`` and ``opened_cells``, as the API's annotations)."""
    path = tmp_path / "game.moves"
    moves = "reveal 2 2\nflag 0 1\n"  # front0-0, then top0-1 (their slots)
    path.write_text(f"# Mine Devil move list 1\nboard 6x8 graph\ntiling cube 2 corners\n"
                    f"mines 3\nseed 4\nmoves\n{moves}")  # fmt: skip
    assert main(["--annotate", str(path)]) == 0
    rows = [line.split()[:3] for line in capsys.readouterr().out.splitlines()[1:3]]
    assert main(["--annotate", "--format", "json", str(path)]) == 0
    notes = json.loads(capsys.readouterr().out)["moves"]
    assert [row[2] for row in rows] == [n["cell"] for n in notes] == ["front0-0", "top0-1"]
    assert notes[0]["cell"] in notes[0]["opened_cells"] and notes[1]["kind"] == "flag"


def test_an_id_with_spaces_or_tabs_is_quoted_in_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The table printed "b " as "b" and a tab inside an id as a tab; an id a reader could
    misread is quoted as the move list quotes it."""
    ids = ["t0", "b ", "tab\there", "t3"]
    cells = [{"id": i, "state": ".", "at": [k, 0]} for k, i in enumerate(ids)]
    edges = [[a, b] for a, b in itertools.pairwise(ids)]
    board = json.dumps({"format": "mine-devil-graph", "version": 1, "cells": cells,
                        "edges": edges})  # fmt: skip
    path = tmp_path / "game.moves"
    moves = 'reveal "t0"\nflag "b "\nflag "tab\\there"\nunflag "tab\\there"\n'
    path.write_text(f"# Mine Devil move list 1\nboard 1x4 graph\ngraph {board}\nmines 1\n"
                    f'layout "b "\nmoves\n{moves}')  # fmt: skip
    assert main(["--annotate", str(path)]) == 0
    out = capsys.readouterr().out
    cells_said = [line[15:].split("  ")[0] for line in out.splitlines()[1:4]]
    assert cells_said == ["t0", '"b "', '"tab\\there"']
    # a move the board refuses is named by its cell's id too (it said "move 5 (flag 0 1)")
    path.write_text(path.read_text() + 'flag "t0"\n')
    assert main(["--annotate", str(path)]) == 2
    assert "move 5 (flag t0): the cell is already revealed" in capsys.readouterr().err


def ledger(*ps: Fraction | None, fatal: bool = False) -> GameAnnotation:
    notes = [
        MoveNote(
            i + 1, Move.reveal(0, i), MoveJudgement.FORCED if p else MoveJudgement.PROOF, p_safe=p
        )
        for i, p in enumerate(ps)
    ]
    if fatal:
        notes.append(MoveNote(len(notes) + 1, Move.reveal(1, 0), MoveJudgement.FATAL))
    bits = sum(n.bits or 0 for n in notes)
    return GameAnnotation(1, Board(5, 5), tuple(notes), Metrics(1, len(notes), None, 0, 1, bits))


@pytest.mark.parametrize(
    ("ps", "fatal", "sentence"),
    [
        ((None, Fraction(1)), False, "You needed no luck: every move you made was safe by proof."),
        ((None,), True, "You spent no luck before the fatal click."),
        ((Fraction(1, 3),), False, "You needed 1.6 bits of luck: one 1-in-3 guess."),
        ((Fraction(1, 2),), False, "You needed 1.0 bit of luck: one 1-in-2 guess."),
        (
            (Fraction(1, 2), Fraction(2, 3)),
            True,
            "You spent 1.6 bits of luck: 2 guesses (1-in-2 and 2-in-3).",
        ),
        (
            (Fraction(1, 2),) * 4 + (Fraction(17, 40),),
            False,
            "You needed 5.2 bits of luck: 5 guesses, the longest odds 42%.",
        ),
    ],
)
def test_luck_sentences(ps: tuple[Fraction | None, ...], fatal: bool, sentence: str) -> None:
    assert luck_sentence(ledger(*ps, fatal=fatal)) == sentence


def test_odds() -> None:
    assert odds(Fraction(1)) == "certain"
    assert odds(Fraction(5, 8)) == "5-in-8"
    assert odds(Fraction(37, 100)) == "37%"
