"""Step 3 of the solver: split the residual constraints into independent pieces.

Two residual constraints belong to the same piece when they share an undecided
cell. Each piece is condensed into *group form* (``devil.solve._search.GroupProblem``):
cells lying in exactly the same constraints form one group. A piece is identified
by its *content*, the set of its residual ``(cells, need)`` pairs, so results can be
cached across positions and games.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import cast

from devil.board import Cell
from devil.solve._search import GroupProblem, problem_of

Residual = tuple[frozenset[Cell], int]
PieceKey = frozenset[Residual]


@dataclass(frozen=True, slots=True)
class Piece:
    """One independent piece of the residual constraints, in group form."""

    key: PieceKey
    sources: tuple[Cell, ...]
    """The revealed numbers whose residual constraints make up the piece (sorted)."""
    groups: tuple[tuple[Cell, ...], ...]
    problem: GroupProblem

    @property
    def cell_count(self) -> int:
        return sum(self.problem.sizes)


def connected_sources(
    starts: Iterable[Cell],
    cons: dict[Cell, Residual],
    sources_of: dict[Cell, set[Cell]],
) -> list[list[Cell]]:
    """The connected groups of constraint sources reachable from ``starts``."""
    # Sources and cells stay Python ints (``object``) here: a compiled loop over ``int``
    # would unbox each and box it again for every set and dictionary it meets (a new
    # object each time above 256).
    by_source = cast("dict[object, Residual]", cons)
    by_cell = cast("dict[object, set[object]]", sources_of)
    seen: set[object] = set()
    walked: set[object] = set()  # cells whose sources are all in ``seen`` already
    out: list[list[Cell]] = []
    for start in starts:
        if start in seen or start not in cons:
            continue
        seen.add(start)
        comp: list[object] = [start]
        i = 0
        while i < len(comp):
            s = comp[i]
            i += 1
            cells: frozenset[object] = by_source[s][0]
            for c in cells:
                if c in walked:
                    continue
                walked.add(c)
                for t in by_cell[c]:
                    if t not in seen:
                        seen.add(t)
                        comp.append(t)
        comp.sort()
        out.append(cast("list[Cell]", comp))
    return out


def make_piece(
    sources: list[Cell], cons: dict[Cell, Residual], key: PieceKey | None = None
) -> Piece:
    """Condense the constraints at ``sources`` (connected through shared cells) into a piece;
    ``key``: its content when the caller has it already (``piece_key``).

    The groups come out sorted (each one's cells in order, the groups by their first cell:
    disjoint sorted tuples compare by their first cells), as ``sorted`` would give them.
    """
    by_source = cast("dict[object, Residual]", cons)  # cells as objects: connected_sources
    boxed = cast("list[object]", sources)
    # Each cell's signature (the sources holding it) as one number, the 1-based indices of
    # its sources as digits in base len(sources) + 1: equal numbers, equal signatures. A
    # number, not a tuple: nothing for the garbage collector to track.
    base = len(boxed) + 1
    code: dict[object, int] = {}
    for i, s in enumerate(boxed, 1):
        cells: frozenset[object] = by_source[s][0]
        for c in cells:
            code[c] = code.get(c, 0) * base + i
    in_order = cast("list[Cell]", list(code))
    in_order.sort()
    ordered = cast("list[object]", in_order)
    codes_boxed = cast("dict[object, object]", code)  # read as stored: no new int each
    group_of: dict[object, int] = {}
    group_cells: list[list[object]] = []
    codes: list[int] = []
    for c in ordered:
        k = codes_boxed[c]
        g = group_of.get(k)
        if g is None:
            group_of[k] = len(group_cells)
            group_cells.append([c])
            cast("list[object]", codes).append(k)
        else:
            group_cells[g].append(c)
    # Each group's sources (its constraints) read off its number: the digits come out
    # last first. Each source's groups: the groups in order, so each list comes sorted.
    of_source: list[list[int]] = [[] for _ in boxed]
    of_group: list[list[int]] = []
    for g in range(len(codes)):
        k = codes[g]
        sig: list[int] = []
        while k:
            j = k % base - 1
            of_source[j].append(g)
            sig.append(j)
            k //= base
        sig.reverse()
        of_group.append(sig)
    group_cons: list[tuple[tuple[int, ...], int]] = []
    for j in range(len(boxed)):
        group_cons.append((tuple(of_source[j]), by_source[boxed[j]][1]))
    groups = cast("tuple[tuple[Cell, ...], ...]", tuple([tuple(g) for g in group_cells]))
    problem = problem_of([len(g) for g in group_cells], group_cons, of_group)
    if key is None:
        key = piece_key(sources, cons)
    return Piece(key, tuple(sources), groups, problem)


def piece_key(sources: list[Cell], cons: Mapping[Cell, Residual]) -> PieceKey:
    """A piece's content: the set of its residual constraints (what caches key it by)."""
    return frozenset([cons[s] for s in sources])
