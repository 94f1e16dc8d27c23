"""Replays in and out: the plain-text move list, EVF (read and write), AVF and MBF (read).

Every reader returns a ``Replay``: the board, its final layout when the file has one, the
moves as Mine Devil ``Move`` values and their times. ``read_replay(data)`` picks the reader
from the content (``detect``). Errors are ``ReplayFormatError`` naming where the file is
wrong: a line and column for text, a byte offset for binary formats.
"""

from __future__ import annotations

from devil.ledger.replays.model import Replay, ReplayFormatError
from devil.ledger.replays.read import detect, read_replay

__all__ = ["Replay", "ReplayFormatError", "detect", "read_replay"]
