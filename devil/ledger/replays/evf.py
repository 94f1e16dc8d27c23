"""EVF, the open Minesweeper video format (eee555's; read by ms-toollib and Metasweeper).

Written here from the published specification (docs/annotations.md lists the fields used).
All integers are big-endian. Writing produces version 0.3 (absolute 3-byte millisecond
timestamps, absolute pixel positions, no checksum); reading takes versions 0.3 and 0.4.

Version 0.3: version byte 3; summary byte (bit 7 completed, bit 5 fair, bit 4 no flags);
settings byte (bit 7 question marks off); rows u8; columns u8; mines u16; cell size u8; mode
u16; 3BV u16; time u24 (ms); eight NUL-terminated UTF-8 strings (software, player, race,
unique id, start time, end time, country, device uuid); the board, one bit per cell in row
order, most significant bit first, 1 a mine; mouse events (type u8 1-12, time u24 ms, x u16,
y u16); a terminator byte (0: a 32-byte checksum follows, 255: none).

Version 0.4: version byte 4; summary; settings; rows u8; columns u8; mines u16; cell size u8;
mode u16; 3BV u16; time u32 (ms); country 2 bytes; start u64; end u64 (microseconds); NUL-
terminated strings (software; when the summary's bit 3 says transcoded, the transcoder and the
text encoding; player; race; unique id); uuid length u16 and uuid; the board bits; custom
metric count u16 and that many NUL-terminated names; events (type u8; mouse 1-12: time delta
u8, dx i16, dy i16; game state 81-99: delta u8; board 100-121: delta u8, column u8, row u8;
metric 200/201: delta u8, index u16, then f64 or a string; pause 255: delta u16) until a 0
byte; checksum length u16 and checksum.

Mine Devil games map to EVF modes by their mercy: strict to 6 ("strong solvable": any click on
a cell that could be a mine loses) and fair to 7 ("weak solvable": when nothing is provably
safe the next click cannot lose). EVF boards are square, without holes, at most 255x255.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from devil.analysis import Layout
from devil.board import Board, Topology
from devil.game import GameParams, Move, MoveKind
from devil.ledger.board_replay import BoardPlay
from devil.ledger.metrics import bbbv
from devil.ledger.replays.model import Replay, ReplayFormatError
from devil.ledger.replays.mouse import MOUSE_KINDS, MouseEvent, click_events, read_clicks
from devil.rules import Mercy, Rules

CELL_SIZE = 16
SOFTWARE = "Mine Devil"
"""The software string of Mine Devil's exports; an import with another is judged without
the devil (``devil.ledger.annotate``'s ``devil=False``)."""
MAX_SIDE = 255
_MOUSE_CODES = {kind: code for code, kind in enumerate(MOUSE_KINDS, start=1)}
_CODE_KINDS = {
    1: "mv", 2: "lc", 3: "lr", 4: "rc", 5: "rr", 6: "mc", 7: "mr",
    8: "pf", 9: "cc", 10: "l", 11: "r", 12: "m",
}  # fmt: skip
_MODES = {Mercy.STRICT: 6, Mercy.FAIR: 7}


class EvfError(ReplayFormatError):
    """An EVF file that cannot be read (or a game EVF cannot hold)."""


def check_exportable(params: GameParams) -> None:
    """Raise ``EvfError`` when EVF cannot hold the board (topology, holes, size)."""
    if params.topology is not Topology.SQUARE:
        raise EvfError(f"EVF holds square boards only, not {params.topology.value}")
    if params.holes:
        raise EvfError("EVF boards have no holes")
    if params.height > MAX_SIDE or params.width > MAX_SIDE:
        raise EvfError(
            f"EVF boards are at most {MAX_SIDE}x{MAX_SIDE}, not {params.height}x{params.width}"
        )


def write_evf(
    params: GameParams,
    moves: Sequence[Move],
    times: Sequence[float | None],
    layout: Layout,
    *,
    won: bool,
    player: str = "",
) -> bytes:
    """The EVF (v0.3) video of a game: its final board and a press and release per click."""
    check_exportable(params)
    board = params.board()
    clock = _clock(times, len(moves))
    summary = (0x80 if won else 0) | (0x20 if won else 0)
    if not any(m.kind in (MoveKind.FLAG, MoveKind.UNFLAG) for m in moves):
        summary |= 0x10
    millis = round(clock[-1] * 1000) if clock else 0
    out = bytearray([3, summary, 0x80, params.height, params.width])
    value = min(bbbv(board, layout), 0xFFFF)
    out += struct.pack(">HBHH", len(layout), CELL_SIZE, _MODES[params.rules.mercy], value)
    out += millis.to_bytes(3, "big")
    for text in (SOFTWARE, player, "", "", "", "", "", ""):
        out += text.encode("utf-8").replace(b"\0", b"") + b"\0"
    out += _board_bits(board, layout)
    for move, t in zip(moves, clock, strict=True):
        for e in click_events(move, t, CELL_SIZE):
            ms = round(e.time * 1000)
            out += bytes([_MOUSE_CODES[e.kind]]) + ms.to_bytes(3, "big")
            out += struct.pack(">HH", e.x, e.y)
    out.append(255)
    return bytes(out)


def _clock(times: Sequence[float | None], n: int) -> list[float]:
    """Seconds from the first move; a move without a time comes 0.1 s after the one before."""
    base = next((t for t in times if t is not None), 0.0)
    out: list[float] = []
    for i in range(n):
        t = times[i] if i < len(times) else None
        previous = out[-1] if out else 0.0
        out.append(previous + 0.1 if t is None else max(t - base, previous))
    if out and out[-1] * 1000 >= 1 << 24:
        raise EvfError(f"EVF v0.3 holds videos up to 4.6 hours, not {out[-1]:.0f} s")
    return out


def _board_bits(board: Board, layout: Layout) -> bytes:
    n = board.height * board.width
    out = bytearray((n + 7) // 8)
    for cell in layout:
        out[cell // 8] |= 0x80 >> (cell % 8)
    return bytes(out)


# -- reading ------------------------------------------------------------------------------------


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def take(self, n: int, what: str) -> bytes:
        if self.at + n > len(self.data):
            raise EvfError(f"the file ends inside {what}", offset=self.at)
        chunk = self.data[self.at : self.at + n]
        self.at += n
        return chunk

    def u(self, n: int, what: str) -> int:
        return int.from_bytes(self.take(n, what), "big")

    def i16(self, what: str) -> int:
        return int.from_bytes(self.take(2, what), "big", signed=True)

    def text(self, what: str) -> str:
        end = self.data.find(b"\0", self.at)
        if end < 0:
            raise EvfError(f"{what} has no terminating NUL byte", offset=self.at)
        raw = self.data[self.at : end]
        start, self.at = self.at, end + 1
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise EvfError(f"{what} is not UTF-8", offset=start) from None


def read_evf(data: bytes) -> Replay:
    """Read an EVF video (v0.3 or v0.4) into its board and moves."""
    r = _Reader(data)
    version = r.u(1, "the version")
    if version not in (3, 4):
        raise EvfError(f"EVF version {version} is not supported (0.3 and 0.4 are)", offset=0)
    summary = r.u(1, "the summary")
    r.u(1, "the settings")
    rows, cols = r.u(1, "the rows"), r.u(1, "the columns")
    if not rows or not cols:
        raise EvfError(f"a {rows}x{cols} board has no cells", offset=3)
    mines_at = r.at
    mines = r.u(2, "the mine count")
    size = r.u(1, "the cell size")
    if size < 1:
        raise EvfError("cell size 0", offset=r.at - 1)
    mode = r.u(2, "the mode")
    r.u(2, "the 3BV")
    player = ""
    if version == 3:
        r.u(3, "the time")
        software = r.text("the software")
        player = r.text("the player")
        for what in ("race", "unique id", "start time", "end time", "country", "uuid"):
            r.text(f"the {what}")
    else:
        r.take(4 + 2 + 8 + 8, "the time, country and timestamps")
        software = r.text("the software")
        if summary & 0x08:
            r.text("the transcoder")
            r.text("the text encoding")
        player = r.text("the player")
        r.text("the race")
        r.text("the unique id")
        r.take(r.u(2, "the uuid length"), "the uuid")
    board_at = r.at
    bits = r.take((rows * cols + 7) // 8, "the board")
    layout = frozenset(i for i in range(rows * cols) if bits[i // 8] & (0x80 >> (i % 8)))
    if len(layout) != mines:
        raise EvfError(
            f"the board has {len(layout)} mines but the header says {mines}", offset=board_at
        )
    events = _events_v3(r) if version == 3 else _events_v4(r)
    rules = Rules(mercy=Mercy.FAIR if mode == 7 else Mercy.STRICT)
    try:
        params = GameParams(rows, cols, mines, rules=rules, no_guess=mode in (5, 6, 7, 9))
    except ValueError as e:
        raise EvfError(str(e), offset=mines_at) from None
    play = BoardPlay(params.board(), mines, layout)
    moves, times = read_clicks(events, play, size)
    return Replay(params, layout, tuple(moves), tuple(times), player, software)


def _events_v3(r: _Reader) -> list[MouseEvent]:
    events: list[MouseEvent] = []
    while True:
        at = r.at
        code = r.u(1, "an event")
        if code in (0, 255):
            return events
        if code not in _CODE_KINDS:
            raise EvfError(f"unknown mouse event type {code}", offset=at)
        ms = r.u(3, "an event time")
        x, y = r.u(2, "an event position"), r.u(2, "an event position")
        events.append(MouseEvent(ms / 1000, _CODE_KINDS[code], x, y))


def _events_v4(r: _Reader) -> list[MouseEvent]:
    metrics = r.u(2, "the custom metric count")
    for i in range(metrics):
        r.text(f"custom metric name {i + 1}")
    events: list[MouseEvent] = []
    ms = x = y = 0
    while True:
        at = r.at
        code = r.u(1, "an event")
        if code == 0:
            return events
        if code == 255:
            ms += r.u(2, "a pause")
        elif code in _CODE_KINDS:
            ms += r.u(1, "an event time")
            x += r.i16("an event position")
            y += r.i16("an event position")
            events.append(MouseEvent(ms / 1000, _CODE_KINDS[code], x, y))
        elif 81 <= code <= 99:
            ms += r.u(1, "an event time")
        elif 100 <= code <= 121:
            ms += r.u(1, "an event time")
            r.take(2, "a board event")
        elif code in (200, 201):
            ms += r.u(1, "an event time")
            r.u(2, "a metric index")
            if code == 200:
                r.take(8, "a metric value")
            else:
                r.text("a metric value")
        else:
            raise EvfError(f"unknown event type {code}", offset=at)
