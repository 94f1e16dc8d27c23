"""The counted rule's arithmetic: combining independent pieces under a known mine total.

With ``m`` mines left and ``d`` deep cells (covered cells no number touches), a choice of
layouts for the pieces with ``s`` mines in all leaves ``m - s`` mines for the deep cells.

- Which totals each piece may take (``piece_windows``, ``single_window``): the achievable
  totals of the other pieces plus anything from 0 to ``d`` deep mines must make ``m``.
- How much each piece layout weighs (``convolve``, ``divide``, ``binomials_down``,
  ``piece_weights``): the pieces' layout-count polynomials are multiplied (convolution over
  the pieces); a layout with ``s`` mines in all weighs ``C(d, m - s)``, the ways to place the
  rest in the deep cells.

Pure functions over integers: ``devil.solver`` calls them, ``devil.solve.bits`` holds the sets.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

from devil.solve._search import TotalWindow
from devil.solve.bits import interval, lowest, members, sumset

__all__ = [
    "binomials_down",
    "binomials_scaled",
    "convolve",
    "divide",
    "piece_weights",
    "piece_windows",
    "prefix_suffix",
    "product",
    "single_window",
    "trim",
]


# -- windows on each piece's total ----------------------------------------------------------


def single_window(mines_left: int, deep: int, piece_cells: int) -> TotalWindow:
    """One piece: its total must leave between 0 and ``deep`` mines for the deep cells.

    The piece holds at most its own cells: clamped before anyone builds a mask of it.
    """
    return TotalWindow(max(0, mines_left - deep), min(mines_left, piece_cells))


def prefix_suffix(totals: Sequence[int]) -> tuple[list[int], list[int]]:
    """Achievable totals of the first ``i`` pieces (``prefix[i]``) and of the pieces from
    ``i`` on (``suffix[i]``); ``prefix[-1]`` is every piece together."""
    k = len(totals)
    prefix = [1] * (k + 1)
    for i in range(k):
        prefix[i + 1] = sumset(prefix[i], totals[i])
    suffix = [1] * (k + 1)
    for i in range(k - 1, -1, -1):
        suffix[i] = sumset(suffix[i + 1], totals[i])
    return prefix, suffix


def piece_windows(
    totals: Sequence[int], prefix: Sequence[int], suffix: Sequence[int], mines_left: int, deep: int
) -> list[TotalWindow]:
    """Each piece's window: it may take total ``k`` when the other pieces and the deep cells
    can make up ``mines_left - k``. ``totals[i]``: bitmask of piece ``i``'s achievable totals;
    ``prefix``, ``suffix`` from ``prefix_suffix``. Call it only once the total fits (a huge
    ``mines_left`` would build huge masks)."""
    m, d = mines_left, deep
    windows: list[TotalWindow] = []
    room = interval(0, d)
    for i in range(len(totals)):
        others = sumset(prefix[i], suffix[i + 1])
        spread = sumset(others, room)  # others + deep mines
        allowed = 0
        for x in members(spread & interval(0, m)):
            allowed |= 1 << (m - x)
        allowed &= totals[i]
        windows.append(TotalWindow(lowest(allowed), allowed.bit_length() - 1, allowed))
    return windows


# -- weights: polynomials of layout counts --------------------------------------------------


def trim(poly: list[int]) -> list[int]:
    """Without trailing zeros (keeps at least one coefficient)."""
    end = len(poly)
    while end > 1 and poly[end - 1] == 0:
        end -= 1
    return poly[:end]


def convolve(a: list[int], b: list[int]) -> list[int]:
    """The product of two polynomials (coefficient lists, lowest power first)."""
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                if y:
                    out[i + j] += x * y
    return out


def product(polys: Sequence[list[int]]) -> list[int]:
    """The product of every polynomial: layouts of all pieces by their total."""
    everything = [1]
    for poly in polys:
        everything = convolve(everything, poly)
    return everything


def divide(a: list[int], b: list[int]) -> list[int]:
    """The polynomial ``q`` with ``q * b == a`` (exact; ``b`` divides ``a``)."""
    low = next(i for i, x in enumerate(b) if x)
    bb = b[low:]
    aa = trim(a[low:])
    lead = bb[0]
    n = len(aa) - len(bb) + 1
    q = [0] * max(n, 1)
    rest = list(aa)
    for i in range(n):
        coef = rest[i]
        if coef:
            value, remainder = divmod(coef, lead)
            assert remainder == 0, "polynomial division is not exact"
            q[i] = value
            for t in range(1, len(bb)):
                if bb[t]:
                    rest[i + t] -= value * bb[t]
    return q


def binomials_down(d: int, m: int, count: int) -> list[int]:
    """``[C(d, m - x) for x in range(count)]`` by the ratio of neighbouring binomials."""
    out = [0] * count
    if count == 0:
        return out
    # start where C(d, m - x) first becomes non-zero: m - x <= d
    x0 = max(0, m - d)
    if x0 >= count or m - x0 < 0:
        return out
    value = comb(d, m - x0)
    for x in range(x0, count):
        y = m - x  # C(d, y); next is C(d, y - 1) = C(d, y) * y / (d - y + 1)
        if y < 0:
            break
        out[x] = value
        value = value * y // (d - y + 1)
    return out


def binomials_scaled(d: int, m: int, count: int) -> list[int]:
    """``binomials_down(d, m, count)`` times one positive constant, as small as it gets.

    ``C(d, m - x) = K * (m! / (m - x)!) * ((d - m + T)! / (d - m + x)!)`` with ``T =
    count - 1`` and ``K = d! / (m! (d - m + T)!)`` the same for every ``x``: probabilities
    are ratios of sums of these weights, so ``K`` cancels, and the two falling factorials
    have some ``T * log2(d)`` bits instead of the ``d`` bits of a binomial (20,000 deep
    cells: ~7,000 bits instead of ~20,000)."""
    out = [0] * count
    if count == 0:
        return out
    top = count - 1
    base = d - m
    # right[x] = prod(base + j for j in x + 1 .. top); left[x] = prod(m - j for j in 0 .. x - 1)
    right = [1] * count
    for x in range(top - 1, -1, -1):
        right[x] = right[x + 1] * (base + x + 1)
    left = 1
    for x in range(count):
        if x > 0:
            left *= m - (x - 1)
        if left == 0:
            break
        out[x] = left * right[x] if base + x >= 0 else 0  # C(d, m - x) = 0 when m - x > d
    return out


def piece_weights(others: list[int], ways: list[int], length: int) -> list[int]:
    """The weight of a piece's layouts with ``k`` mines, ``k < length``: the sum over the
    other pieces' totals ``s`` (``others``, their polynomial) of ``ways[k + s]``."""
    weights = []
    for kk in range(length):
        weights.append(
            sum(t * ways[kk + s] for s, t in enumerate(others) if t and kk + s < len(ways))
        )
    return weights
