"""Which reader a replay file needs: from its name's extension, else from its content."""

from __future__ import annotations

from devil.ledger.replays.avf import read_avf
from devil.ledger.replays.evf import read_evf
from devil.ledger.replays.mbf import read_mbf
from devil.ledger.replays.model import Replay, ReplayFormatError
from devil.ledger.replays.movelist import read_movelist

FORMATS = ("movelist", "evf", "avf", "mbf")
_EXTENSIONS = {".txt": "movelist", ".moves": "movelist", ".evf": "evf", ".avf": "avf",
               ".mbf": "mbf"}  # fmt: skip


def detect(data: bytes, name: str | None = None) -> str:
    """The format of ``data``: by ``name``'s extension when it has a known one, else the move
    list by its header, AVF by its level byte and text header, MBF by its exact length and
    EVF by its version byte (3 or 4)."""
    if name is not None:
        dot = name.rfind(".")
        fmt = _EXTENSIONS.get(name[dot:].lower()) if dot >= 0 else None
        if fmt is not None:
            return fmt
    head = data.lstrip()[:40].lower()
    if head.startswith(b"#") and b"mine devil move list" in head:
        return "movelist"
    if len(data) > 5 and 3 <= data[5] <= 6 and b"|B" in data and b"cs=" in data:
        return "avf"
    if len(data) >= 4 and len(data) == 4 + 2 * int.from_bytes(data[2:4], "big"):
        return "mbf"
    if data[:1] in (b"\x03", b"\x04"):
        return "evf"
    raise ReplayFormatError(
        "not a replay this reader knows (a Mine Devil move list, EVF, AVF or MBF)", offset=0
    )


def read_replay(data: bytes, fmt: str | None = None, name: str | None = None) -> Replay:
    """Read ``data`` in ``fmt`` (detected from ``name`` and the content when None)."""
    fmt = fmt or detect(data, name)
    if fmt == "movelist":
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ReplayFormatError("a move list is UTF-8 text", offset=e.start) from None
        return read_movelist(text)
    readers = {"evf": read_evf, "avf": read_avf, "mbf": read_mbf}
    if fmt in readers:
        return readers[fmt](data)
    raise ReplayFormatError(f"unknown replay format {fmt!r} (known: {', '.join(FORMATS)})")
