"""Which reader a replay file needs, decided from its content."""

from __future__ import annotations

from devil.replays.model import Replay, ReplayFormatError
from devil.replays.movelist import read_movelist

FORMATS = ("movelist",)


def detect(data: bytes) -> str:
    """The format of ``data``: ``movelist`` (text starting with the move list header)."""
    head = data.lstrip()[:40].lower()
    if head.startswith(b"#") and b"mine devil move list" in head:
        return "movelist"
    raise ReplayFormatError("not a replay this reader knows (a Mine Devil move list)", offset=0)


def read_replay(data: bytes, fmt: str | None = None) -> Replay:
    """Read ``data`` in ``fmt`` (detected when None)."""
    fmt = fmt or detect(data)
    if fmt == "movelist":
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ReplayFormatError("a move list is UTF-8 text", offset=e.start) from None
        return read_movelist(text)
    raise ReplayFormatError(f"unknown replay format {fmt!r} (known: {', '.join(FORMATS)})")
