"""A cell graph's neighbour lists, from its pairs: the graph-board reader's hot loops
(``devil.graphs``), here to be compiled with the rest of ``devil/solve/`` (a million pairs
is the file's bound; compiled, a pair costs a few nanoseconds instead of a hundred)."""

from __future__ import annotations

from collections.abc import Sequence


def neighbour_lists(
    size: int, firsts: Sequence[int], seconds: Sequence[int], places: Sequence[int]
) -> tuple[tuple[int, ...], ...]:
    """Per place ``0 .. size-1``, the neighbours' places, for the pairs ``firsts[k]``,
    ``seconds[k]`` of indices mapped through ``places``, in the order of the pairs."""
    out: list[list[int]] = [[] for _ in range(size)]
    for k in range(len(firsts)):
        a = places[firsts[k]]
        b = places[seconds[k]]
        out[a].append(b)
        out[b].append(a)
    return tuple([tuple(near) for near in out])


def placed(
    size: int, lists: Sequence[Sequence[int]], places: Sequence[int]
) -> tuple[tuple[int, ...], ...]:
    """``lists`` (per index, its neighbours' indices) moved to places ``0 .. size-1``:
    index ``i`` to ``places[i]``; a place no index moves to has ``()``."""
    out: list[tuple[int, ...]] = [()] * size
    for i in range(len(lists)):
        out[places[i]] = tuple([places[j] for j in lists[i]])
    return tuple(out)


def names_one_twice(lists: Sequence[Sequence[int]]) -> bool:
    """True when one of ``lists`` names an item twice (a pair of the graph repeats another)."""
    return any(len(set(near)) != len(near) for near in lists)
