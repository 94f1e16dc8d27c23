"""The move list's quick read of the usual line (``movelist._quick``) against its full read,
word by word: on any file, the same moves and times or the same error (line, column, words).

The full read is the reference (it names where every error is); the quick one only skips
its work on lines it can read alone. Lines are drawn from pieces near every edge: comments,
blanks, times out of order, NaN, ``-0.0``, non-ASCII digits, unknown kinds, ids with
spaces, quotes, backslashes and escapes, a missing space after a closing quote."""

from __future__ import annotations

import itertools
import json

import pytest

from devil.game import GameParams, GraphSpec
from devil.ledger.replays import ReplayFormatError, movelist
from devil.ledger.replays.cell_names import OnBoard
from devil.ledger.replays.movelist import HEADER, read_movelist

IDS = ["t1", "b ", " b", "a b", 'q"t', "back\\s", "back\\\\s", "a\tb", "é", "x\x7fy", "e"]
"""Ids near the edges; ``back\\\\s`` is what ``"back\\\\s"`` would name if its escape were
not read, ``a\\tb`` what a raw tab between quotes would (JSON refuses it)."""
_CELLS = [{"id": i, "state": ".", "at": [k % 3, k // 3]} for k, i in enumerate(IDS)]
_EDGES = [[IDS[k], IDS[k + 1]] for k in range(len(IDS) - 1)]
GRAPH = GraphSpec.custom({"format": "mine-devil-graph", "version": 1, "cells": _CELLS,
                          "edges": _EDGES})  # fmt: skip
_PARAMS = GameParams(mines=2, graph=GRAPH, version=2)
GRAPH_HEAD = [HEADER, f"board {_PARAMS.height}x{_PARAMS.width} graph", f"graph {GRAPH.file}",
              "game-version 2", "mines 2"]  # fmt: skip
GRID_HEAD = [HEADER, "board 4x5", "mines 3"]

TIMES = ["0", "0.5", "1", "1.0", "2.5", "1e1", "-0.0", "-1", "nan", "inf", "1_0", "#2", "x"]
KINDS = ["reveal", "REVEAL", "flag", "Unflag", "chord", "open", "#", "#reveal"]
PLACES = ["0 0", "1 2", "3 4", "9 9", "٣ 1", "-1 0", "0", "0 0 0", "a b"]
QUOTED = [json.dumps(i) for i in IDS] + ['"\\u0074\\u0031"', '"t1"x', '"t1', '"nope"', '"b"',
                                          '"e" "e"', '""', '"\\n"']  # fmt: skip


OTHER = ["", "   ", "# a comment", '# reveal "t1"', "#1 flag 0 0", "#", '"t1"', "reveal",
         'reveal"t1"', '0.5 flag"e"', '9 reveal "a\tb"', 'reveal "a\tb"']  # fmt: skip


def candidates(graph: bool) -> list[str]:
    """Every line of the pieces above: with a time or not, each kind, each cell; with the
    kind ``flag`` also spaced oddly (a leading space, a tab, a trailing space)."""
    places = PLACES + (QUOTED if graph else [])
    out = list(OTHER)
    for time, kind, place in itertools.product([None, *TIMES], KINDS, places):
        words = [kind, place] if time is None else [time, kind, place]
        out.append(" ".join(words))
        if kind == "flag":
            out.append(" " + "\t".join(words) + " ")
    return out


def _read(lines: list[str], on: OnBoard) -> object:
    try:
        return movelist._moves(lines, 0, on)
    except ReplayFormatError as exc:
        return str(exc)


@pytest.mark.parametrize("board", ["grid", "graph", "misplaced graph"])
def test_the_quick_read_agrees_with_the_full_read(board: str) -> None:
    """Each line after a first move with a time and after one without (the file's moves
    then must or must not have times), and a move after it (times must not go back)."""
    params = GameParams(mines=2, graph=GRAPH, version=2) if "graph" in board else None
    on = OnBoard(params.board() if params else GameParams(4, 5, 3).board())
    if board == "misplaced graph":  # a file written with another placement of its cells
        on = OnBoard(on.board, ReplayFormatError("misplaced", line=2, column=7))
    files = []
    for line in candidates(params is not None):
        for first, after in (("0.5 flag 1 1", "9 flag 1 1"), ("flag 1 1", "flag 1 1")):
            if params is not None:
                first, after = (m.replace("1 1", '"e"') for m in (first, after))
            files.append([first, line, after])
    quick = [_read(lines, on) for lines in files]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(movelist, "_quick", lambda *_: None)
        full = [_read(lines, on) for lines in files]
    assert len(files) > 1000
    for lines, a, b in zip(files, quick, full, strict=True):
        assert a == b, lines


def test_the_quick_read_reads_the_usual_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: after the first move (which sets whether moves have times), a written
    file's move lines are all read quickly, grid and graph."""
    seen: list[object] = []
    real = movelist._quick

    def counted(raw: str, stamped: bool, on: OnBoard) -> object:
        seen.append(real(raw, stamped, on))
        return seen[-1]

    monkeypatch.setattr(movelist, "_quick", counted)
    grid = [*GRID_HEAD, "moves", "0.000 reveal 1 2", "0.500 flag 3 4", "1 chord 0 0"]
    assert len(read_movelist("\n".join(grid)).moves) == 3
    graph = [*GRAPH_HEAD, "moves", 'reveal "t1"', 'flag "b "', 'unflag "a b"', 'flag "\u00e9"']
    assert len(read_movelist("\n".join(graph)).moves) == 4
    assert len(seen) == 5 and all(s is not None for s in seen)
