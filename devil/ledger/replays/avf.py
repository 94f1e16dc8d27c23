"""AVF, Minesweeper Arbiter's video format (read only).

AVF was never published; these are the facts the community's parsers agree on (RAWVF, Flop
Player, ms-toollib), as docs/annotations.md lists them:

- byte 0 the Arbiter version, bytes 1-4 unused, byte 5 the level: 3 beginner (8x8, 10 mines),
  4 intermediate (16x16, 40), 5 expert (16 rows x 30 columns, 99), 6 custom, followed by
  columns - 1, rows - 1 and the mine count (u16, big-endian);
- one byte pair per mine: row + 1, column + 1;
- a text header: the question-mark setting (17 on, 127 off) two bytes before the first ``[``,
  then ``[`` timestamp ``|`` ... with ``B`` 3BV ``T`` seconds ``.`` hundredths ``]``;
- mouse events of 8 bytes: ``code, x_hi, sec_lo, x_lo, hundredths, y_hi, sec_hi, y_lo`` with
  the time ``sec_hi*256 + sec_lo - 1`` seconds plus hundredths, x and y in pixels (16 per
  cell), codes 1 move, 3 left press, 5 and 21 left release, 9 right press, 17 and 145 right
  release, 33 middle press, 65 and 193 middle release; the first event is a move at time 0
  (its ``x_hi <= 1`` and ``sec_lo == 1`` find it), and a record with a negative time ends
  the list (a text footer follows).
"""

from __future__ import annotations

from devil.game import GameParams
from devil.ledger.board_replay import BoardPlay
from devil.ledger.replays.model import Replay, ReplayFormatError
from devil.ledger.replays.mouse import MouseEvent, read_clicks

CELL_SIZE = 16
_LEVELS = {3: (8, 8, 10), 4: (16, 16, 40), 5: (16, 30, 99)}
_CODES = {1: "mv", 3: "lc", 5: "lr", 21: "lr", 9: "rc", 17: "rr", 145: "rr", 33: "mc",
          65: "mr", 193: "mr"}  # fmt: skip


class AvfError(ReplayFormatError):
    """An AVF file that cannot be read."""


def _byte(data: bytes, at: int, what: str) -> int:
    if at >= len(data):
        raise AvfError(f"the file ends inside {what}", offset=at)
    return data[at]


def read_avf(data: bytes) -> Replay:
    """Read an Arbiter video into its board and moves."""
    level = _byte(data, 5, "the level")
    at = 6
    if level in _LEVELS:
        rows, cols, mines = _LEVELS[level]
    elif level == 6:
        cols = _byte(data, 6, "the width") + 1
        rows = _byte(data, 7, "the height") + 1
        mines = _byte(data, 8, "the mine count") * 256 + _byte(data, 9, "the mine count")
        at = 10
    else:
        raise AvfError(f"unknown level byte {level} (3-6 expected)", offset=5)
    layout: set[int] = set()
    for i in range(mines):
        row = _byte(data, at, f"mine {i + 1}") - 1
        col = _byte(data, at + 1, f"mine {i + 1}") - 1
        if not (0 <= row < rows and 0 <= col < cols):
            raise AvfError(
                f"mine {i + 1} at row {row}, col {col} is off the {rows}x{cols} board", offset=at
            )
        cell = row * cols + col
        if cell in layout:
            raise AvfError(f"mine {i + 1} at row {row}, col {col} is given twice", offset=at)
        layout.add(cell)
        at += 2
    bracket = data.find(b"[", at)
    if bracket < 0:
        raise AvfError("no '[' starts the text header", offset=at)
    end = data.find(b"]", bracket)
    if end < 0:
        raise AvfError("the text header has no closing ']'", offset=bracket)
    events = _events(data, end + 1)
    try:
        params = GameParams(rows, cols, mines, no_guess=False)
    except ValueError as e:
        raise AvfError(str(e), offset=5) from None
    play = BoardPlay(params.board(), mines, frozenset(layout))
    moves, times = read_clicks(events, play, CELL_SIZE)
    return Replay(params, frozenset(layout), tuple(moves), tuple(times), "", "Arbiter")


def _events(data: bytes, at: int) -> list[MouseEvent]:
    start = at
    while start + 2 < len(data) and not (data[start + 2] == 1 and data[start + 1] <= 1):
        start += 1
    if start + 8 > len(data):
        raise AvfError("no mouse events after the text header", offset=at)
    events: list[MouseEvent] = []
    at = start
    while True:
        if at + 8 > len(data):
            raise AvfError("the file ends inside a mouse event", offset=at)
        code, x_hi, sec_lo, x_lo, hun, y_hi, sec_hi, y_lo = data[at : at + 8]
        seconds = sec_hi * 256 + sec_lo - 1
        if seconds < 0:
            return events
        kind = _CODES.get(code)
        if kind is not None:
            events.append(
                MouseEvent(seconds + hun / 100, kind, x_hi * 256 + x_lo, y_hi * 256 + y_lo)
            )
        at += 8
