"""``devil-check``'s input: a file or stdin, read whole but never more than
:data:`MAX_INPUT_BYTES`, decoded as UTF-8 with a bad byte named by line and column."""

from __future__ import annotations

import sys
from typing import IO

MAX_INPUT_BYTES = 16 * 1024 * 1024
"""Largest input read (16 MiB: the biggest board, 4,000,000 cells, in any format, fits).
A larger file or stdin is refused after reading ``MAX_INPUT_BYTES + 1`` bytes."""


MAX_GRAPH_BYTES = 128 * 1024 * 1024
"""Largest graph-board file read (``devil.graphs.fileformat.MAX_BYTES``: 100,000 cells and
1,000,000 edges fit): a JSON object may run past ``MAX_INPUT_BYTES`` up to this."""


class UsageError(Exception):
    """A user error: printed as one line on stderr, exit code 2."""


def read_bounded(stream: IO[bytes], name: str) -> bytes:
    """At most ``MAX_INPUT_BYTES`` from ``stream``: having read one byte more, refuse."""
    data = stream.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES and data.lstrip()[:1] == b"{":  # a graph-board file
        data += stream.read(MAX_GRAPH_BYTES - len(data) + 1)
        if len(data) > MAX_GRAPH_BYTES:
            raise UsageError(
                f"cannot read {name}: larger than {MAX_GRAPH_BYTES} bytes "
                f"({MAX_GRAPH_BYTES // 2**20} MiB), the most devil-check reads of a graph board"
            )
        return data
    if len(data) > MAX_INPUT_BYTES:
        mib = f" ({MAX_INPUT_BYTES // 2**20} MiB)" if MAX_INPUT_BYTES % 2**20 == 0 else ""
        raise UsageError(
            f"cannot read {name}: larger than {MAX_INPUT_BYTES} bytes{mib}, "
            "the most devil-check reads"
        )
    return data


def decode(data: bytes, name: str) -> str:
    """``data`` as UTF-8; an invalid byte is named by its line and column."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        line = data.count(b"\n", 0, exc.start) + 1
        column = len(data[line_start : exc.start].decode("utf-8", errors="replace")) + 1
        raise UsageError(
            f"cannot read {name}: not UTF-8 text "
            f"(line {line}, column {column}: byte 0x{data[exc.start]:02x})"
        ) from None


def read_text(path: str) -> tuple[str, str]:
    """``(display name, text)`` of ``path``; ``-`` is stdin. Bounded by MAX_INPUT_BYTES."""
    if path == "-":
        return "<stdin>", read_stdin()
    try:
        with open(path, "rb") as stream:
            data = read_bounded(stream, path)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    return path, decode(data, path)


def read_stdin() -> str:
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:  # a text stream without bytes underneath (tests use StringIO)
        text = sys.stdin.read(MAX_INPUT_BYTES + 1)
        if len(text) > MAX_INPUT_BYTES:
            raise UsageError(f"cannot read <stdin>: larger than {MAX_INPUT_BYTES} characters")
        return text
    return decode(read_bounded(buffer, "<stdin>"), "<stdin>")
