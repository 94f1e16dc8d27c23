"""Sets of small non-negative integers (mine totals) as bitmasks: bit ``k`` set means ``k``.

The counted rule adds up the achievable mine totals of independent pieces; as bitmasks a
set of totals is one ``int`` and the sum of two sets is a few shifts and ors.
"""

from __future__ import annotations

from collections.abc import Iterator

__all__ = ["interval", "lowest", "members", "runs", "sumset"]


def sumset(a: int, b: int) -> int:
    """``{x + y : x in a, y in b}`` for bitmask sets."""
    if a.bit_count() > b.bit_count():
        a, b = b, a
    out = 0
    while a:
        low = a & -a
        out |= b << (low.bit_length() - 1)
        a ^= low
    return out


def members(mask: int) -> Iterator[int]:
    """The numbers in the set, smallest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def interval(lo: int, hi: int) -> int:
    """Bitmask of ``lo..hi`` (negative numbers dropped)."""
    lo = max(lo, 0)
    if hi < lo:
        return 0
    return ((1 << (hi - lo + 1)) - 1) << lo


def lowest(mask: int) -> int:
    """The smallest number in a non-empty set."""
    return (mask & -mask).bit_length() - 1


def runs(mask: int) -> list[tuple[int, int]]:
    """The set's runs of consecutive numbers as ``(low, high)``, smallest first."""
    out: list[tuple[int, int]] = []
    k = 0
    while mask >> k:
        if not (mask >> k) & 1:
            k += 1
            continue
        start = k
        while (mask >> k) & 1:
            k += 1
        out.append((start, k - 1))
    return out
