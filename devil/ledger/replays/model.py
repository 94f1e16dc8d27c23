"""The value every replay reader returns, and the error they raise."""

from __future__ import annotations

from dataclasses import dataclass

from devil.analysis import Layout
from devil.game import GameParams, Move


class ReplayFormatError(ValueError):
    """A replay file that cannot be read, with where: ``line``/``column`` (text, counting
    from 1) or ``offset`` (binary, bytes from the start)."""

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        column: int | None = None,
        offset: int | None = None,
    ) -> None:
        where = ""
        if line is not None:
            where = f"line {line}" + (f", column {column}" if column is not None else "") + ": "
        elif offset is not None:
            where = f"byte {offset}: "
        super().__init__(where + message)
        self.line = line
        self.column = column
        self.offset = offset


@dataclass(frozen=True)
class Replay:
    """A game from a file: ``params`` (the seed means nothing for imported games),
    ``layout`` the final board when known, ``moves`` and per-move ``times`` (seconds from the
    first move, or None when the file has none), and who and what recorded it."""

    params: GameParams
    layout: Layout | None
    moves: tuple[Move, ...]
    times: tuple[float | None, ...]
    player: str = ""
    software: str = ""

    @property
    def seconds(self) -> float | None:
        """Time from the first move to the last, when the file has times."""
        known = [t for t in self.times if t is not None]
        return None if not known else max(known) - min(known)
