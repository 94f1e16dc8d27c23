"""A cell graph's neighbour lists, from its pairs: the graph-board reader's hot loops
(``devil.graphs``), here to be compiled with the rest of ``devil/solve/`` (a million pairs
is the file's bound).

The cells are handled as ``object``s and ``cast`` to ``int`` only to index: compiled, an
``int`` read from a list is unboxed, and storing it again would make a new Python int per
append (two million of them); an ``object`` is stored as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

Lists = tuple[tuple[int, ...], ...]


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


def names_one_twice(lists: Sequence[Sequence[int]]) -> bool:
    """True when one of ``lists`` names an item twice (a pair of the graph repeats another)."""
    return any(len(set(near)) != len(near) for near in lists)
