"""A cell graph's neighbour lists, from its pairs: the graph-board reader's hot loops
(``devil.graphs``), here to be compiled with the rest of ``devil/solve/`` (a million pairs
is the file's bound).

The cells are handled as ``object``s and ``cast`` to ``int`` only to index: compiled, an
``int`` read from a list is unboxed, and storing it again would make a new Python int per
append (two million of them); an ``object`` is stored as it is. Positions in a text and
loop counters are ``i64`` (machine integers, compiled); the lists of lists are typed as
the tuples they are (``Lists``), which the compiled loops index without asking Python.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, cast

if TYPE_CHECKING:  # annotations only: compiled, a machine integer; else never evaluated
    from mypy_extensions import i64

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
_MINUS: Final = 45
_DOT: Final = 46
_ZERO: Final = 48
_NINE: Final = 57
_E: Final = 101
_BIG_E: Final = 69
_PLUS: Final = 43
_EXACT_MANTISSA: Final = 2**53
"""A decimal mantissa up to this is a double exactly (so is ``10**k`` up to ``10**22``)."""
_POWERS_OF_TEN: tuple[float, ...] = (  # not Final: mypyc left a Final tuple of floats unset
    1.0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
)  # fmt: skip


def neighbour_lists(
    size: int, firsts: Sequence[int], seconds: Sequence[int], places: Sequence[int]
) -> Lists:
    """Per place ``0 .. size-1``, the neighbours' places, for the pairs ``firsts[k]``,
    ``seconds[k]`` of indices mapped through ``places``, in the order of the pairs."""
    ones: list[object] = list(firsts)
    others: list[object] = list(seconds)
    at: list[object] = list(places)
    out: list[list[object]] = [[] for _ in range(size)]
    pairs: i64 = len(ones)
    k: i64 = 0
    while k < pairs:
        a = at[cast(int, ones[k])]
        b = at[cast(int, others[k])]
        out[cast(int, a)].append(b)
        out[cast(int, b)].append(a)
        k += 1
    return cast(Lists, tuple([tuple(near) for near in out]))


def placed(size: int, lists: Lists, places: Sequence[int]) -> Lists:
    """``lists`` (per index, its neighbours' indices) moved to places ``0 .. size-1``:
    index ``i`` to ``places[i]``; a place no index moves to has ``()``."""
    at: list[object] = list(places)
    out: list[object] = [()] * size
    count: i64 = len(lists)
    i: i64 = 0
    while i < count:
        near = lists[i]
        out[cast(int, at[i])] = tuple(at[j] for j in near)
        i += 1
    return cast(Lists, tuple(out))


def levels(neighbours: Lists, starts: Sequence[int]) -> list[list[int]]:
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
                near = cast("tuple[object, ...]", neighbours[cast(int, cell)])
                for other in near:  # kept as objects: appended as they are
                    if not reached[cast(int, other)]:
                        reached[cast(int, other)] = True
                        found.append(other)
            level = found
    return cast("list[list[int]]", out)


def names_twice(lists: Lists) -> bool:
    """True when one of ``lists`` names an item twice (a pair of the graph repeats another):
    one pass over the items, each marked with a stamp (an object new for each list) in a
    slot per place (``lists[p]`` names places ``0 .. len(lists)-1``), not a set per list."""
    marked: list[object] = [None] * len(lists)
    for near in lists:
        stamp: object = []
        for q in near:
            if marked[q] is stamp:
                return True
            marked[q] = stamp
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
        xs.append(sx / float(size))  # as sx / len(polygon): the count is exact
        ys.append(sy / float(size))
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
    rank had. Only a wrong guess decodes the id and looks it up.

    Positions and cells are ``i64`` (machine integers, compiled): the loop per byte
    does no tagged-integer arithmetic."""
    n: i64 = len(names)
    nums: list[object] = list(range(n))  # stored as they are: no new int per pair
    lookup = cast("dict[object, object]", index)
    firsts: list[object] = []
    seconds: list[object] = []
    bound: i64 = most
    count: i64 = 0
    end: i64 = len(text)
    i = _skip(text, 0, end)
    if i >= end or text[i] != _OPEN:
        return None
    i = _skip(text, i + 1, end)
    if i < end and text[i] == _CLOSE:
        return ([], []) if _skip(text, i + 1, end) == end else None
    a: i64 = -1
    rank: i64 = 0
    # The second cells of this first cell's pairs are seconds[group:], those of the
    # previous first cell (last_a) seconds[last:group], of the one before seconds[older:last].
    group: i64 = 0
    last: i64 = 0
    last_a: i64 = 0
    older: i64 = 0
    older_a: i64 = 0
    while True:
        if i >= end or text[i] != _OPEN or count == bound:
            return None
        i = _opening(text, i + 1, end)
        if i < 0:
            return None
        if a >= 0 and _names(text, i, end, names[a]):
            i += len(names[a])
            rank += 1
        else:
            older, older_a, last, last_a = last, last_a, group, a
            group = count
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
        b: i64 = -1
        if last + rank < group:
            guess: i64 = cast(int, seconds[last + rank]) + a - last_a
            if 0 <= guess < n and _names(text, i, end, names[guess]):
                b = guess
        if b < 0 and older + rank < last:
            guess = cast(int, seconds[older + rank]) + a - older_a
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
        firsts.append(nums[a])
        seconds.append(nums[b])
        count += 1
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


def _unboxed(cell: object) -> i64:
    """A cell stored as an ``object`` (a Python int) as a machine integer."""
    return cast(int, cell)


def _skip(text: bytes, i: i64, end: i64) -> i64:
    """The first index from ``i`` that is not JSON whitespace."""
    while i < end:
        c = text[i]
        if c in (_SPACE, _LINE, _RETURN, _TAB):
            i += 1
        else:
            return i
    return i


def _after(text: bytes, i: i64, end: i64, mark: int) -> i64:
    """The index of ``mark`` when only whitespace comes before it from ``i``; else -1."""
    if i < end and text[i] != mark:
        i = _skip(text, i, end)
    if i < end and text[i] == mark:
        return i
    return -1  # (no conditional expression: one of an i64 and a literal is boxed)


def _opening(text: bytes, i: i64, end: i64) -> i64:
    """The index after a string's opening quote, whitespace before it allowed; else -1."""
    i = _after(text, i, end, _QUOTE)
    if i < 0:
        return -1
    return i + 1


def _names(text: bytes, i: i64, end: i64, name: bytes) -> bool:
    """True when the string starting at ``text[i]`` (after its quote) is ``name``."""
    size: i64 = len(name)
    if i + size >= end or text[i + size] != _QUOTE:
        return False
    t: i64 = 0
    while t < size:
        if text[i + t] != name[t]:
            return False
        t += 1
    return True


def _looked_up(text: bytes, i: i64, end: i64, lookup: dict[object, object]) -> tuple[i64, i64]:
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
    if found is None:
        return i, -1
    return i, _unboxed(found)


def polygon_text_placement(
    text: bytes, limit: float, most_corners: int
) -> tuple[list[float], list[float], list[float]] | None:
    """``polygon_placement`` of the polygons in the JSON text of one list of them
    (``[[[x, y], ...], ...]``), without a Python object per corner or per number; None
    when the text is anything else or anything doubtful (a cell without a polygon, an
    integer coordinate (``1``: its JSON type is kept, and Python's ``sum`` then does the
    arithmetic), one beyond ``limit``, fewer than 3 or more than ``most_corners``
    corners, escapes...): the caller then decodes the polygons, whose checks say what is
    wrong.

    A number reads as ``float()`` reads its text: a mantissa and a power of ten that are
    both exact doubles make it in one correctly rounded operation (Clinger's fast path),
    anything longer is read by ``float`` itself."""
    xs: list[float] = []
    ys: list[float] = []
    heights: list[float] = []
    powers = _POWERS_OF_TEN
    end: i64 = len(text)
    i = _skip(text, 0, end)
    if i >= end or text[i] != _OPEN:
        return None
    i = _skip(text, i + 1, end)
    while True:
        if i >= end or text[i] != _OPEN:
            return None
        i = _skip(text, i + 1, end)
        size: i64 = 0
        sx = 0.0
        sy = 0.0
        top = 0.0
        bottom = 0.0
        while True:
            x, y, i = _point(text, i, end, powers)
            if i < 0 or not (-limit <= x <= limit and -limit <= y <= limit):
                return None
            sx += x
            sy += y
            if size == 0:
                top = y
                bottom = y
            elif y > bottom:
                bottom = y
            elif y < top:
                top = y
            size += 1
            i, closed = _next_item(text, i + 1, end)
            if i < 0:
                return None
            if closed:
                break
        if size < 3 or size > most_corners:
            return None
        xs.append(sx / float(size))  # as sx / len(polygon): the count is exact
        ys.append(sy / float(size))
        heights.append(bottom - top)
        i, closed = _next_item(text, i + 1, end)
        if i < 0:
            return None
        if closed:
            break
    if _skip(text, i + 1, end) != end:
        return None
    return xs, ys, heights


def _point(text: bytes, i: i64, end: i64, powers: tuple[float, ...]) -> tuple[float, float, i64]:
    """The point ``[x, y]`` at ``text[i]`` (numbers read by ``_number``) and the index of
    its closing bracket; ``(0.0, 0.0, -1)`` for anything else."""
    if i >= end or text[i] != _OPEN:
        return 0.0, 0.0, -1
    x, i = _number(text, _skip(text, i + 1, end), end, powers)
    if i >= 0:
        i = _after(text, i, end, _COMMA)
    if i < 0:
        return 0.0, 0.0, -1
    y, i = _number(text, _skip(text, i + 1, end), end, powers)
    if i >= 0:
        i = _after(text, i, end, _CLOSE)
    return x, y, i


def _next_item(text: bytes, i: i64, end: i64) -> tuple[i64, bool]:
    """After an item of a list, from ``text[i]``: the index of the next item and False
    (a comma came), or of the list's closing bracket and True; ``(-1, False)`` else."""
    i = _skip(text, i, end)
    if i < end and text[i] == _COMMA:
        return _skip(text, i + 1, end), False
    if i < end and text[i] == _CLOSE:
        return i, True
    return -1, False


def _number(text: bytes, i: i64, end: i64, powers: tuple[float, ...]) -> tuple[float, i64]:
    """The JSON number with a fraction or an exponent at ``text[i]`` as ``float`` reads
    it, and the index after it; ``(0.0, -1)`` for anything else (an integer too).
    ``powers`` are ``_POWERS_OF_TEN`` (an argument: a global is looked up in a dict)."""
    start = i
    negative = i < end and text[i] == _MINUS
    if negative:
        i += 1
    mantissa: i64 = 0
    exact = True
    scale: i64 = 0  # the power of ten of the mantissa's last digit
    digit = _digit(text, i, end)
    if digit == 0:
        i += 1
    elif digit > 0:
        while digit >= 0:
            if exact:
                mantissa = mantissa * 10 + digit
                exact = mantissa <= _EXACT_MANTISSA
            i += 1
            digit = _digit(text, i, end)
    else:
        return 0.0, -1
    fraction = i < end and text[i] == _DOT
    if fraction:
        i += 1
        digit = _digit(text, i, end)
        if digit < 0:
            return 0.0, -1
        while digit >= 0:
            if exact:
                mantissa = mantissa * 10 + digit
                exact = mantissa <= _EXACT_MANTISSA
                scale -= 1
            i += 1
            digit = _digit(text, i, end)
    exponent = i < end and (text[i] == _E or text[i] == _BIG_E)
    if exponent:
        i += 1
        sign: i64 = 1
        if i < end and (text[i] == _MINUS or text[i] == _PLUS):
            if text[i] == _MINUS:
                sign = -1
            i += 1
        digit = _digit(text, i, end)
        if digit < 0:
            return 0.0, -1
        power: i64 = 0
        while digit >= 0:
            if power < 10_000:
                power = power * 10 + digit
            i += 1
            digit = _digit(text, i, end)
        scale += sign * power
    if not (fraction or exponent):
        return 0.0, -1
    if not exact or scale < -22 or scale > 22:  # float reads it (correctly rounded)
        return float(text[start:i]), i
    value = float(mantissa)
    value = value / powers[-scale] if scale < 0 else value * powers[scale]
    if negative:
        value = -value
    return value, i


def _digit(text: bytes, i: i64, end: i64) -> i64:
    """The decimal digit at ``text[i]``; -1 for any other byte and past the end."""
    if i < end:
        c: i64 = text[i]
        if _ZERO <= c <= _NINE:
            return c - _ZERO
    return -1
