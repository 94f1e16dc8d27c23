"""Test helper: an Arbiter video (AVF) synthesised from the format facts in devil/replays/avf.py.

Arbiter itself does not run here, so the tests build videos the way its files are laid out and
check that our reader and ms-toollib's read them the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

from devil.board import Board
from devil.game import Move
from devil.ledger.replays.mouse import click_events

CODES = {"mv": 1, "lc": 3, "lr": 5, "rc": 9, "rr": 17}


def arbiter_video(board: Board, layout: frozenset[int], moves: Sequence[Move]) -> bytes:
    out = bytearray([52, 1, 2, 3, 4])
    levels = {(8, 8, 10): 3, (16, 16, 40): 4, (16, 30, 99): 5}
    level = levels.get((board.height, board.width, len(layout)), 6)
    out.append(level)
    if level == 6:
        out += bytes([board.width - 1, board.height - 1]) + len(layout).to_bytes(2, "big")
    for cell in sorted(layout):
        row, col = board.coord(cell)
        out += bytes([row + 1, col + 1])
    out += b"\x00" * 24  # checksum digits and the country byte Arbiter writes here
    custom = f"W{board.width}H{board.height}M{len(layout)}|" if level == 6 else ""
    out += b"\x7f<[" + str(level - 3).encode() + b"|" + custom.encode()
    out += b"26.10.2022.23:13:27:2236|26.23:13:29:7764|B7T3.52]\xff\xff"
    events = [(0.0, "mv", 0, 0)]
    for i, move in enumerate(moves):
        events += [(e.time, e.kind, e.x, e.y) for e in click_events(move, 0.5 + i * 0.25, 16)]
    for time, kind, x, y in events:
        sec, hun = int(time), round((time - int(time)) * 100)
        stored = sec + 1
        out += bytes(
            [CODES[kind], x >> 8, stored & 255, x & 255, hun, y >> 8, stored >> 8, y & 255]
        )
    out += bytes(8)
    out += b"cs=0123456789abcdef0Realtime: 3.52\rSkin: Classic\rAnn\r"
    return bytes(out)
