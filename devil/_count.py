"""Exact layout counts of one piece, split by the piece's number of mines.

``PieceCounts.total[k]``: how many layouts of the piece's cells have ``k`` mines;
``PieceCounts.mined[g][k]``: summed over those layouts, how many mines lie in group
``g`` (so a cell of ``g`` is mined in ``mined[g][k] / size[g]`` of them). Plain
Python ints, so probabilities built from them are exact.

``count_by_search`` enumerates every solution with the search.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

from devil._search import GroupProblem, Search

Poly = list[int]


@dataclass(frozen=True, slots=True)
class PieceCounts:
    total: Poly
    mined: list[Poly]


def _add_into(acc: Poly, poly: Poly, shift: int, factor: int) -> None:
    need = len(poly) + shift
    if len(acc) < need:
        acc.extend([0] * (need - len(acc)))
    for i, x in enumerate(poly):
        if x:
            acc[i + shift] += x * factor


def count_by_search(problem: GroupProblem) -> PieceCounts:
    """Enumerate every solution (exponential; for small or awkward pieces)."""
    sizes = problem.sizes
    n = problem.n
    top = sum(sizes) + 1
    total = [0] * top
    mined = [[0] * top for _ in range(n)]

    def on_solution(sol: list[int]) -> bool:
        weight = 1
        k = 0
        for v in range(n):
            a = sol[v]
            k += a
            if a and a != sizes[v]:
                weight *= comb(sizes[v], a)
        total[k] += weight
        for v in range(n):
            a = sol[v]
            if a:
                mined[v][k] += weight * a
        return False

    Search(problem).solve([0] * n, list(sizes), on_solution=on_solution)
    return PieceCounts(total, mined)
