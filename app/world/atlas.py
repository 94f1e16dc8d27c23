"""What a team knows around a place, at a glance: the minimap and the per-colour counts.

``atlas(store, world, team, colours, x, y)`` answers, for the page's minimap and colour picker:

- ``map``: which 64x64 chunks around (x, y) hold any of the team's knowledge (``MAP_RADIUS``
  chunks each way: 49x49 chunks, about 3,100 cells a side), each with a bit per board that has
  numbers there (bit ``c``) and bit 8 for flags. Only the chunks' keys are read.
- ``boards``: per colour, over the ``COUNT_RADIUS`` chunks around (x, y) (9x9 chunks, 576
  cells a side): the team's open cells on that board, its flags of that colour (``F``), the free
  cells (``✱``: another colour's flag where that board shows no number: safe to reveal) and the
  free cell nearest (x, y).

Everything here is the team's knowledge as the view API serves it (counted, not shown); the
work is bounded by the two rectangles, whatever the team knows elsewhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from app.world.chunks import CELLS, FLAGS, SHIFT, ZERO
from app.world.schema import chunks
from app.world.store import WorldStore

MAP_RADIUS = 24
COUNT_RADIUS = 4
FLAG_BIT = 8
_UNKNOWN = bytes(1 if b == ord(".") else 0 for b in range(256))
_ALL_UNKNOWN = int.from_bytes(b"\x01" * CELLS, "big")


@dataclass(frozen=True)
class BoardCounts:
    colour: int
    open: int
    flags: int
    free: int
    nearest_free: tuple[int, int] | None

    def to_json(self) -> dict[str, Any]:
        nearest = None if self.nearest_free is None else list(self.nearest_free)
        return {
            "colour": self.colour,
            "open": self.open,
            "flags": self.flags,
            "free": self.free,
            "nearest_free": nearest,
        }


def _other_flags(colour: int) -> bytes:
    """Translate a flags chunk to 1 where another colour's flag is, 0 elsewhere."""
    table = bytearray(256)
    for c in range(8):
        table[ZERO + c] = 1 if c != colour else 0
    return bytes(table)


_OTHER_FLAGS = [_other_flags(c) for c in range(8)]


def _nearest(mask: int, cx: int, cy: int, x: int, y: int) -> tuple[int, tuple[int, int]] | None:
    """The set cell of a chunk's 0/1 mask nearest (x, y): (squared distance, cell)."""
    raw = mask.to_bytes(CELLS, "big")
    best: tuple[int, tuple[int, int]] | None = None
    i = raw.find(1)
    while i >= 0:
        cell = ((cx << SHIFT) + (i & 63), (cy << SHIFT) + (i >> SHIFT))
        d = (cell[0] - x) ** 2 + (cell[1] - y) ** 2
        if best is None or d < best[0]:
            best = (d, cell)
        i = raw.find(1, i + 1)
    return best


def board_counts(
    found: Mapping[tuple[int, int, int], bytes], colour: int, x: int, y: int
) -> BoardCounts:
    """One board's counts over the loaded chunks ``(layer, cx, cy) -> cells``."""
    opened = flags = free = 0
    best: tuple[int, tuple[int, int]] | None = None
    spots = {(cx, cy) for _, cx, cy in found}
    for cx, cy in spots:
        numbers = found.get((colour, cx, cy))
        flagged = found.get((FLAGS, cx, cy))
        unknown = _ALL_UNKNOWN
        if numbers is not None:
            opened += CELLS - numbers.count(b".")
            unknown = int.from_bytes(numbers.translate(_UNKNOWN), "big")
        if flagged is None:
            continue
        flags += flagged.count(ZERO + colour)
        mask = int.from_bytes(flagged.translate(_OTHER_FLAGS[colour]), "big") & unknown
        if mask:
            free += mask.bit_count()
            here = _nearest(mask, cx, cy, x, y)
            if here is not None and (best is None or here[0] < best[0]):
                best = here
    return BoardCounts(colour, opened, flags, free, None if best is None else best[1])


def atlas(store: WorldStore, world: str, team: str, colours: int, x: int, y: int) -> dict[str, Any]:
    cx, cy = x >> SHIFT, y >> SHIFT
    base = sa.and_(chunks.c.world == world, chunks.c.team == team)
    keys = sa.select(chunks.c.layer, chunks.c.cx, chunks.c.cy).where(
        base,
        chunks.c.cx.between(cx - MAP_RADIUS, cx + MAP_RADIUS),
        chunks.c.cy.between(cy - MAP_RADIUS, cy + MAP_RADIUS),
    )
    near = sa.select(chunks.c.layer, chunks.c.cx, chunks.c.cy, chunks.c.cells).where(
        base,
        chunks.c.cx.between(cx - COUNT_RADIUS, cx + COUNT_RADIUS),
        chunks.c.cy.between(cy - COUNT_RADIUS, cy + COUNT_RADIUS),
    )
    bits: dict[tuple[int, int], int] = {}
    with store.engine.connect() as conn:
        for layer, kx, ky in conn.execute(keys):
            bit = FLAG_BIT if layer == FLAGS else int(layer)
            spot = (int(kx), int(ky))
            bits[spot] = bits.get(spot, 0) | (1 << bit)
        found = {
            (int(layer), int(kx), int(ky)): bytes(cells)
            for layer, kx, ky, cells in conn.execute(near)
        }
    return {
        "x": x,
        "y": y,
        "map": {
            "cx0": cx - MAP_RADIUS,
            "cy0": cy - MAP_RADIUS,
            "side": 2 * MAP_RADIUS + 1,
            "chunk": 1 << SHIFT,
            "known": [[kx, ky, b] for (kx, ky), b in sorted(bits.items())],
        },
        "near": {
            "x0": (cx - COUNT_RADIUS) << SHIFT,
            "y0": (cy - COUNT_RADIUS) << SHIFT,
            "side": (2 * COUNT_RADIUS + 1) << SHIFT,
        },
        "boards": [board_counts(found, c, x, y).to_json() for c in range(colours)],
    }
