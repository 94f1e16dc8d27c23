"""Team knowledge in 64x64 chunks, and ``ChunkKnowledge``: the engine's ``Knowledge`` over them.

A chunk is 4096 bytes, row by row, for one (world, team, layer, cx, cy) with
``cx = x >> 6``, ``cy = y >> 6`` (floor division, also for negative coordinates):

- layer ``c`` (0..7), board ``c``'s numbers: ``.`` unknown, ``0``-``8`` revealed;
- layer ``FLAGS`` (-1), the team's flags: ``.`` none, ``0``-``7`` the colour the cell was
  established to be (a mine of that board, a safe cell of every other).

``ChunkKnowledge`` answers ``symbol(colour, x, y)`` from at most two chunks (that board's
numbers, then the flags), fetching each chunk the first time it is needed (both layers of a
spot in one query) and keeping it for the rest of the request: a request loads only the
chunks it touches, whatever the team knows elsewhere. ``apply`` records a move's cells and
remembers which chunks changed, for the store to write in the same transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

SIDE = 64
SHIFT = 6
MASK = SIDE - 1
CELLS = SIDE * SIDE
FLAGS = -1
"""The flags layer."""

DOT = ord(".")
ZERO = ord("0")
EMPTY = b"." * CELLS
_SYMBOL = {ZERO + n: str(n) for n in range(9)}

ChunkKey = tuple[int, int, int]
"""``(layer, cx, cy)`` inside one team's knowledge."""


@dataclass(frozen=True)
class StoredChunk:
    cells: bytes
    version: int


ChunkLoader = Callable[[Collection[ChunkKey]], Mapping[ChunkKey, StoredChunk]]
"""Load the given chunks (absent ones are simply missing from the answer)."""


class KnowledgeConflict(RuntimeError):
    """A recorded cell contradicts what the chunk already holds (names the cell)."""


def chunk_of(x: int, y: int) -> tuple[int, int]:
    return x >> SHIFT, y >> SHIFT


def index(x: int, y: int) -> int:
    return ((y & MASK) << SHIFT) | (x & MASK)


def chunk_range(x0: int, y0: int, width: int, height: int) -> tuple[int, int, int, int]:
    """``(cx0, cy0, cx1, cy1)``: the chunks covering a rectangle, inclusive."""
    return x0 >> SHIFT, y0 >> SHIFT, (x0 + width - 1) >> SHIFT, (y0 + height - 1) >> SHIFT


def around(colour: int, cells: Iterable[tuple[int, int]], limit: int = 72) -> list[ChunkKey]:
    """The chunks moves at ``cells`` are likely to read: each cell's chunk and the 8 around
    it, for board ``colour`` and the flags (at most ``limit`` keys; beyond that only the
    cells' own chunks). A judgement explores the click's component, which rarely leaves
    that block."""
    spots = dict.fromkeys((x >> SHIFT, y >> SHIFT) for x, y in cells)
    block = dict.fromkeys(
        (cx + dx, cy + dy) for cx, cy in spots for dx in (-1, 0, 1) for dy in (-1, 0, 1)
    )
    chosen = block if 2 * len(block) <= limit else spots
    return [(layer, cx, cy) for cx, cy in list(chosen)[: limit // 2] for layer in (colour, FLAGS)]


class ChunkKnowledge:
    """``Knowledge`` over one team's chunks with a per-request cache (see the module doc)."""

    __slots__ = ("_cache", "_dirty", "_load", "_staged", "_versions", "fetches")

    def __init__(self, load: ChunkLoader):
        self._load = load
        self._cache: dict[ChunkKey, bytearray | None] = {}
        self._versions: dict[ChunkKey, int] = {}
        self._dirty: set[ChunkKey] = set()
        self._staged: dict[ChunkKey, StoredChunk | None] = {}
        """Chunks read but not yet looked at (``stage``): taken into the cache when first
        needed, without a query."""
        self.fetches = 0
        """Queries made (for tests: a request must not load what it does not need)."""

    # -- loading --
    def prefetch(self, keys: Iterable[ChunkKey]) -> None:
        """Load every chunk of ``keys`` not yet cached, in one query (staged ones without)."""
        wanted = [key for key in dict.fromkeys(keys) if key not in self._cache]
        if self._staged:
            staged = {key: self._staged.pop(key) for key in wanted if key in self._staged}
            if staged:
                self.preload(staged, {k: v for k, v in staged.items() if v is not None})
                self.fetches -= 1  # no query
                wanted = [key for key in wanted if key not in staged]
        if wanted:
            self.preload(wanted, self._load(wanted))

    def stage(self, keys: Iterable[ChunkKey], found: Mapping[ChunkKey, StoredChunk]) -> None:
        """Keep ``keys`` as loaded by one query (``found``: the stored ones among them) without
        looking at them yet: only those the caller then reads count in ``read_versions`` (a
        raft judged ahead is checked against the chunks its judgement used, not every chunk
        read around its cells)."""
        for key in keys:
            if key not in self._cache:
                self._staged[key] = found.get(key)

    def prefetch_around(
        self, colour: int, cells: Iterable[tuple[int, int]], limit: int = 72
    ) -> None:
        """Load, in one query, the chunks a move at each of ``cells`` is likely to read
        (``around``); anything further is fetched on demand."""
        self.prefetch(around(colour, cells, limit))

    def preload(self, keys: Iterable[ChunkKey], found: Mapping[ChunkKey, StoredChunk]) -> None:
        """Take ``keys`` as loaded by one query (``found``: the stored ones among them); keys
        already cached keep what they hold."""
        self.fetches += 1
        for key in keys:
            if key in self._cache:
                continue
            stored = found.get(key)
            if stored is None:
                self._cache[key] = None
            else:
                self._cache[key] = bytearray(stored.cells)
                self._versions[key] = stored.version

    def _fetch(self, key: ChunkKey, colour: int) -> bytearray | None:
        _, cx, cy = key
        self.prefetch(((colour, cx, cy), (FLAGS, cx, cy)))
        return self._cache[key]

    def raw(self, layer: int, cx: int, cy: int) -> bytearray | None:
        """A cached chunk's bytes (None: absent), fetching it if needed."""
        key = (layer, cx, cy)
        if key not in self._cache:
            self.prefetch((key,))
        return self._cache[key]

    def read_versions(self) -> dict[ChunkKey, int | None]:
        """Every chunk slot looked at, with the version it was loaded at (None: absent then);
        staged chunks never looked at are not among them."""
        return {key: self._versions.get(key) for key in self._cache}

    def cached(self) -> int:
        """How many chunk slots (present or known absent) this request has looked at."""
        return len(self._cache)

    # -- Knowledge --
    def symbol(self, colour: int, x: int, y: int) -> str:
        cx, cy = x >> SHIFT, y >> SHIFT
        i = ((y & MASK) << SHIFT) | (x & MASK)
        cache = self._cache
        key = (colour, cx, cy)
        numbers = cache[key] if key in cache else self._fetch(key, colour)
        if numbers is not None:
            value = numbers[i]
            if value != DOT:
                return _SYMBOL[value]
        key = (FLAGS, cx, cy)
        flags = cache[key] if key in cache else self._fetch(key, colour)
        if flags is not None:
            value = flags[i]
            if value != DOT:
                return "F" if value - ZERO == colour else "*"
        return "."

    # -- recording --
    def _writable(self, key: ChunkKey, colour: int) -> bytearray:
        chunk = self._cache[key] if key in self._cache else self._fetch(key, colour)
        if chunk is None:
            chunk = self._cache[key] = bytearray(EMPTY)
        self._dirty.add(key)
        return chunk

    def apply(self, colour: int, cells: Iterable[tuple[int, int, str]]) -> None:
        """Record a move's cells on board ``colour``: digits revealed, ``F`` flagged."""
        for x, y, sym in cells:
            cx, cy, i = x >> SHIFT, y >> SHIFT, index(x, y)
            if sym == "F":
                chunk, value = self._writable((FLAGS, cx, cy), colour), ZERO + colour
            elif len(sym) == 1 and "0" <= sym <= "8":
                chunk, value = self._writable((colour, cx, cy), colour), ord(sym)
            else:
                raise KnowledgeConflict(f"cell ({x}, {y}): cannot record symbol {sym!r}")
            old = chunk[i]
            if old not in (DOT, value):
                raise KnowledgeConflict(
                    f"cell ({x}, {y}) on board {colour}: recording {sym!r} over {chr(old)!r}"
                )
            chunk[i] = value

    def dirty(self) -> dict[ChunkKey, tuple[bytes, int | None]]:
        """Changed chunks: ``key -> (cells, version loaded or None if new)``."""
        out: dict[ChunkKey, tuple[bytes, int | None]] = {}
        for key in sorted(self._dirty):
            chunk = self._cache[key]
            assert chunk is not None
            out[key] = (bytes(chunk), self._versions.get(key))
        return out

    def written(self, versions: Mapping[ChunkKey, int]) -> None:
        """The store wrote the dirty chunks at ``versions``."""
        self._versions.update(versions)
        self._dirty.clear()
