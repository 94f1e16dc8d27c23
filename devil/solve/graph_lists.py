"""A cell graph's neighbour lists, from its pairs: the graph-board reader's hot loops
(``devil.graphs``), here to be compiled with the rest of ``devil/solve/`` (a million pairs
is the file's bound).

The cells are handled as ``object``s and ``cast`` to ``int`` only to index: compiled, an
``int`` read from a list is unboxed, and storing it again would make a new Python int per
append (two million of them); an ``object`` is stored as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, cast

Lists = tuple[tuple[int, ...], ...]

_QUOTE: Final = 34
_COMMA: Final = 44
_OPEN: Final = 91
_CLOSE: Final = 93
_BACKSLASH: Final = 92
_SPACE: Final = 32
_TAB: Final = 9
_LINE: Final = 10
_RETURN: Final = 13


def neighbour_lists(
    size: int, firsts: Sequence[int], seconds: Sequence[int], places: Sequence[int]
) -> Lists:
    """Per place ``0 .. size-1``, the neighbours' places, for the pairs ``firsts[k]``,
    ``seconds[k]`` of indices mapped through ``places``, in the order of the pairs."""
    ones: list[object] = list(firsts)
    others: list[object] = list(seconds)
    at: list[object] = list(places)
    out: list[list[object]] = [[] for _ in range(size)]
    for k in range(len(ones)):
        a = at[cast(int, ones[k])]
        b = at[cast(int, others[k])]
        out[cast(int, a)].append(b)
        out[cast(int, b)].append(a)
    return cast(Lists, tuple([tuple(near) for near in out]))


def placed(size: int, lists: Sequence[Sequence[int]], places: Sequence[int]) -> Lists:
    """``lists`` (per index, its neighbours' indices) moved to places ``0 .. size-1``:
    index ``i`` to ``places[i]``; a place no index moves to has ``()``."""
    at: list[object] = list(places)
    out: list[object] = [()] * size
    for i in range(len(lists)):
        out[cast(int, at[i])] = tuple([at[j] for j in lists[i]])
    return cast(Lists, tuple(out))


def levels(neighbours: Sequence[Sequence[int]], starts: Sequence[int]) -> list[list[int]]:
    """The breadth-first levels of every piece in turn, each walk from the first cell of
    ``starts`` not yet reached; a level lists its cells in the order the walk finds them
    (each the first time one of the previous level's cells names it)."""
    reached: list[bool] = [False] * len(neighbours)
    out: list[list[object]] = []
    for start in starts:
        if reached[start]:
            continue
        reached[start] = True
        level: list[object] = [start]
        while level:
            out.append(level)
            found: list[object] = []
            for cell in level:
                near: Sequence[object] = neighbours[cast(int, cell)]
                for other in near:
                    if not reached[cast(int, other)]:
                        reached[cast(int, other)] = True
                        found.append(other)
            level = found
    return cast("list[list[int]]", out)


def names_twice(lists: Sequence[Sequence[int]]) -> bool:
    """True when one of ``lists`` names an item twice (a pair of the graph repeats another):
    one pass over the items, each list's marked in a flag per place (``lists[p]`` names
    places ``0 .. len(lists)-1``), not a set per list."""
    marked: list[bool] = [False] * len(lists)
    for near in lists:
        for q in near:
            if marked[q]:
                return True
            marked[q] = True
        for q in near:
            marked[q] = False
    return False


def polygon_placement(
    polygons: Sequence[Sequence[Sequence[object]]],
) -> tuple[list[float], list[float], list[float]] | None:
    """Each polygon's centre (``xs[i]``, ``ys[i]``: the mean of its corners) and height
    (highest ``y`` less lowest), in one loop; None when a coordinate is not a float (the
    caller computes such polygons with ``sum``, ``max`` and ``min``).

    The same arithmetic as ``sum(x) / len`` (added from 0 in order), ``max(y) - min(y)``
    (the first extreme kept), so the layout is the same whichever computes it."""
    xs: list[float] = []
    ys: list[float] = []
    heights: list[float] = []
    for polygon in polygons:
        sx = 0.0
        sy = 0.0
        top = 0.0
        bottom = 0.0
        first = True
        for corner in polygon:
            x = corner[0]
            y = corner[1]
            if not (isinstance(x, float) and isinstance(y, float)):
                return None
            sx += x
            sy += y
            if first:
                top = bottom = y
                first = False
            elif y > bottom:
                bottom = y
            elif y < top:
                top = y
        size = len(polygon)
        xs.append(sx / size)
        ys.append(sy / size)
        heights.append(bottom - top)
    return xs, ys, heights


def pair_ends(
    text: bytes, names: list[bytes], index: dict[str, int], most: int
) -> tuple[list[int], list[int]] | None:
    """The pairs' first and second cell indices, read from the JSON text of the edges
    (``[["a", "b"], ...]``) without a Python string per id; None when the text is anything
    else (escapes, more than ``most`` pairs, an unknown id, a self pair...): the caller
    then decodes it as JSON, whose checks name what is wrong.

    ``names[i]`` is cell ``i``'s id in UTF-8, ``index`` the cell index by id. Files list
    a cell's pairs together, in a pattern repeated from cell to cell (a writer walks its
    cells; tilings alternate two kinds of cell), so each id is first guessed and the guess
    checked byte by byte: the first id is the previous pair's or the next cell's, the
    second at the offset the previous (else the one before) first cell's pair of the same
    rank had. Only a wrong guess decodes the id and looks it up."""
    n = len(names)
    nums: list[object] = list(range(n))  # stored as they are: no new int per pair
    lookup = cast("dict[object, object]", index)
    firsts: list[object] = []
    seconds: list[object] = []
    end = len(text)
    i = _skip(text, 0, end)
    if i >= end or text[i] != _OPEN:
        return None
    i = _skip(text, i + 1, end)
    if i < end and text[i] == _CLOSE:
        return ([], []) if _skip(text, i + 1, end) == end else None
    a = -1
    rank = 0
    group: list[object] = []  # the second cells of this first cell's pairs
    last: list[object] = []  # ... of the previous first cell, last_a
    last_a = 0
    older: list[object] = []  # ... of the one before, older_a
    older_a = 0
    while True:
        if i >= end or text[i] != _OPEN or len(firsts) == most:
            return None
        i = _opening(text, i + 1, end)
        if i < 0:
            return None
        if a >= 0 and _names(text, i, end, names[a]):
            i += len(names[a])
            rank += 1
        else:
            older, older_a, last, last_a = last, last_a, group, a
            group = []
            rank = 0
            if a + 1 < n and _names(text, i, end, names[a + 1]):
                a += 1
                i += len(names[a])
            else:
                i, a = _looked_up(text, i, end, lookup)
                if a < 0:
                    return None
        i = _after(text, i + 1, end, _COMMA)
        if i < 0:
            return None
        i = _opening(text, i + 1, end)
        if i < 0:
            return None
        b = -1
        if rank < len(last):
            guess = cast(int, last[rank]) + a - last_a
            if 0 <= guess < n and _names(text, i, end, names[guess]):
                b = guess
        if b < 0 and rank < len(older):
            guess = cast(int, older[rank]) + a - older_a
            if 0 <= guess < n and _names(text, i, end, names[guess]):
                b = guess
        if b >= 0:
            i += len(names[b])
        else:
            i, b = _looked_up(text, i, end, lookup)
            if b < 0:
                return None
        if a == b:
            return None
        group.append(nums[b])
        firsts.append(nums[a])
        seconds.append(nums[b])
        i = _after(text, i + 1, end, _CLOSE)
        if i < 0:
            return None
        i = _skip(text, i + 1, end)
        if i < end and text[i] == _CLOSE:
            break
        if i >= end or text[i] != _COMMA:
            return None
        i = _skip(text, i + 1, end)
    if _skip(text, i + 1, end) != end:
        return None
    return cast("list[int]", firsts), cast("list[int]", seconds)


def _skip(text: bytes, i: int, end: int) -> int:
    """The first index from ``i`` that is not JSON whitespace."""
    while i < end:
        c = text[i]
        if c in (_SPACE, _LINE, _RETURN, _TAB):
            i += 1
        else:
            return i
    return i


def _after(text: bytes, i: int, end: int, mark: int) -> int:
    """The index of ``mark`` when only whitespace comes before it from ``i``; else -1."""
    if i < end and text[i] != mark:
        i = _skip(text, i, end)
    return i if i < end and text[i] == mark else -1


def _opening(text: bytes, i: int, end: int) -> int:
    """The index after a string's opening quote, whitespace before it allowed; else -1."""
    i = _after(text, i, end, _QUOTE)
    return i + 1 if i >= 0 else -1


def _names(text: bytes, i: int, end: int, name: bytes) -> bool:
    """True when the string starting at ``text[i]`` (after its quote) is ``name``."""
    size = len(name)
    if i + size >= end or text[i + size] != _QUOTE:
        return False
    return all(text[i + t] == name[t] for t in range(size))


def _looked_up(text: bytes, i: int, end: int, lookup: dict[object, object]) -> tuple[int, int]:
    """The string starting at ``text[i]``: the index of its closing quote and its cell
    (-1: not a known id, or a string with escapes or control characters)."""
    start = i
    while i < end:
        c = text[i]
        if c == _QUOTE:
            break
        if c == _BACKSLASH or c < _SPACE:
            return i, -1
        i += 1
    if i >= end:
        return i, -1
    try:
        found = lookup.get(text[start:i].decode())
    except UnicodeDecodeError:
        return i, -1
    return i, -1 if found is None else cast(int, found)
