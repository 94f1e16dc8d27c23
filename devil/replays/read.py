"""Which reader a replay file needs: from its name's extension, else from its content."""

from __future__ import annotations

from devil.replays.evf import read_evf
from devil.replays.model import Replay, ReplayFormatError
from devil.replays.movelist import read_movelist

FORMATS = ("movelist", "evf")
_EXTENSIONS = {".txt": "movelist", ".moves": "movelist", ".evf": "evf"}


def detect(data: bytes, name: str | None = None) -> str:
    """The format of ``data``: by ``name``'s extension when it has a known one, else the move
    list by its header and EVF by its version byte (3 or 4)."""
    if name is not None:
        dot = name.rfind(".")
        fmt = _EXTENSIONS.get(name[dot:].lower()) if dot >= 0 else None
        if fmt is not None:
            return fmt
    head = data.lstrip()[:40].lower()
    if head.startswith(b"#") and b"mine devil move list" in head:
        return "movelist"
    if data[:1] in (b"\x03", b"\x04"):
        return "evf"
    raise ReplayFormatError(
        "not a replay this reader knows (a Mine Devil move list or an EVF video)", offset=0
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
    if fmt == "evf":
        return read_evf(data)
    raise ReplayFormatError(f"unknown replay format {fmt!r} (known: {', '.join(FORMATS)})")
