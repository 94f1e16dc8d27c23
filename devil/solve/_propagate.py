"""Step 2 of the solver: local deductions on the revealed numbers.

A ``Frontier`` holds the *residual* constraints: for each revealed number, the
covered cells not yet decided and how many mines among them are still needed.
Deductions, applied until nothing changes (a work queue, so an update only
revisits the constraints it touched):

- counting rules: need 0 -> every cell safe; need == cells -> every cell a mine;
- subset rule: A's cells inside B's -> B becomes ``B \\ A`` with ``B - A`` mines;
- overlap rule: ``need(A) - need(B) == |A \\ B|`` -> ``A \\ B`` all mines and
  ``B \\ A`` all safe.

Decided cells move to ``known`` and are substituted out of every constraint, so
known mines (which stay covered in a position) never glue pieces together.
Every rule only rewrites true linear facts about the layout, so what stays is
equivalent to the original numbers plus ``known``.
"""

from __future__ import annotations

from typing import cast

from devil.board import Cell
from devil.errors import InconsistentPosition
from devil.position import Position

Residual = tuple[frozenset[Cell], int]


class Frontier:
    """Residual constraints, decided cells and a work queue (mutable, owned by one solver)."""

    __slots__ = ("cons", "dirty", "known", "position", "queue", "sources_of")

    def __init__(self, position: Position) -> None:
        self.position = position
        self.cons: dict[Cell, Residual] = {}
        self.sources_of: dict[Cell, set[Cell]] = {}
        self.known: dict[Cell, int] = {}
        self.queue: list[Cell] = []
        self.dirty: set[Cell] = set()
        """Sources whose residual changed (or vanished) since the last ``take_dirty``."""

    # -- building ----------------------------------------------------------------------

    def add(self, source: Cell, cells: frozenset[Cell], need: int) -> None:
        """Add (or replace) the constraint of the revealed number at ``source``."""
        if source in self.cons:
            self._drop(source)
        known = self.known
        if known and not known.keys().isdisjoint(cells):  # a graph board: none known yet
            need -= sum(known.get(c, 0) for c in cells)
            cells = frozenset(c for c in cells if c not in known)
        self._store(source, cells, need)

    def reveal(self, cell: Cell) -> None:
        """``cell`` is no longer covered: it held no mine."""
        value = self.known.pop(cell, 0)
        if value:
            raise InconsistentPosition(
                f"{self.position.the_cell(cell)} was revealed but must hold a mine",
                cell,
            )
        for s in self.sources_of.pop(cell, ()):
            cells, need = self.cons[s]
            self._shrink(s, cells - {cell}, need)

    def remove_source(self, source: Cell) -> None:
        if source in self.cons:
            self._drop(source)

    # -- internals ---------------------------------------------------------------------

    def _store(self, source: Cell, cells: frozenset[Cell], need: int) -> None:
        if need < 0 or need > len(cells):
            raise InconsistentPosition.unsatisfiable(self.position, source)
        src: object = source  # boxed once for the four containers (see _link)
        cast("set[object]", self.dirty).add(src)
        if not cells:
            self.cons.pop(source, None)
            return
        cast("dict[object, Residual]", self.cons)[src] = (cells, need)
        _link(self.sources_of, src, cells)
        cast("list[object]", self.queue).append(src)

    def _drop(self, source: Cell) -> None:
        cells, _ = self.cons.pop(source)
        self.dirty.add(source)
        sources_of = self.sources_of
        for c in cells:
            got = sources_of[c]
            got.discard(source)
            if not got:
                del sources_of[c]

    def _replace(self, source: Cell, cells: frozenset[Cell], need: int) -> None:
        """Shrink the constraint at ``source`` to ``cells`` (a subset of its cells)."""
        old, _ = self.cons[source]
        sources_of = self.sources_of
        for c in old - cells:
            got = sources_of.get(c)
            if got is not None:
                got.discard(source)
                if not got:
                    del sources_of[c]
        self._shrink(source, cells, need)

    def _shrink(self, src: object, cells: frozenset[Cell], need: int) -> None:
        """``_replace`` when the cells left out no longer list the source ``src`` in
        ``sources_of`` (a decided or revealed cell, whose entry the caller popped). The
        source comes boxed, as the containers hold it (see _link)."""
        if need < 0 or need > len(cells):
            raise InconsistentPosition.unsatisfiable(self.position, cast(Cell, src))
        cast("set[object]", self.dirty).add(src)
        by_source = cast("dict[object, Residual]", self.cons)
        if len(cells):
            by_source[src] = (cells, need)
            cast("list[object]", self.queue).append(src)
        else:
            del by_source[src]

    def _decide(self, cells: frozenset[Cell], value: int) -> None:
        known = cast("dict[object, int]", self.known)  # see _link
        by_cell = cast("dict[object, set[object]]", self.sources_of)
        by_source = cast("dict[object, tuple[frozenset[object], int]]", self.cons)
        members: frozenset[object] = cells
        for c in members:
            if c in known:
                continue
            known[c] = value
            for s in by_cell.pop(c, ()):
                s_cells, s_need = by_source[s]
                rest = cast("frozenset[Cell]", s_cells - {c})
                self._shrink(s, rest, s_need - value)

    # -- deduction ---------------------------------------------------------------------

    def run(self) -> None:
        """Apply the rules until the queue is empty."""
        cons = self.cons
        sources_of = self.sources_of
        queue = self.queue
        while queue:
            s = queue.pop()
            got = cons.get(s)
            if got is None:
                continue
            cells, need = got
            if need == 0:
                self._decide(cells, 0)
                continue
            if need == len(cells):
                self._decide(cells, 1)
                continue
            self._pairs(s, cells, need, cons, sources_of)

    def _pairs(
        self,
        s: Cell,
        cells: frozenset[Cell],
        need: int,
        cons: dict[Cell, Residual],
        sources_of: dict[Cell, set[Cell]],
    ) -> None:
        """Subset and overlap rules between ``s`` and every constraint sharing a cell.

        The pairs are visited in the order of the set of sharing sources: the order the
        rules have always fired in (it decides the residual constraints, hence the pieces
        and every first solution drawn from them). Only the visited constraint changes
        during the visit (or ``s``, which ends it), so ``s`` stays in ``cons`` throughout.
        """
        by_cell = cast("dict[object, set[object]]", sources_of)  # see _link
        by_source = cast("dict[object, Residual]", cons)
        members: frozenset[object] = cells
        others: set[object] = set()
        for c in members:
            others.update(by_cell[c])  # the same set as ``|=`` (one C call, no dispatch)
        others.discard(s)
        size = len(cells)
        for t in others:
            got = by_source.get(t)
            if got is None:
                continue
            t_cells, t_need = got
            t_size = len(t_cells)
            more = need - t_need
            # The sizes first: equal sets have equal sizes, a proper subset is smaller.
            if t_size == size:
                if more == 0:  # equal sets: one is dropped; else no rule can fire
                    if t_cells == cells:
                        self._drop(cast(Cell, t))
                    continue
                # Different needs: equal sets cannot both hold; else both differences
                # have as many cells, and the overlap rule below fires when that is how
                # many more mines one side needs.
                gap = more if more > 0 else -more
                missing = _missing(members, t_cells, gap)
                if missing == 0:
                    raise InconsistentPosition.unsatisfiable(self.position, cast(Cell, t))
                if missing == gap:
                    if more > 0:
                        self._decide(cells - t_cells, 1)
                        self._decide(t_cells - cells, 0)
                    else:
                        self._decide(t_cells - cells, 1)
                        self._decide(cells - t_cells, 0)
                    return
                continue
            if size < t_size:
                if cells < t_cells:
                    self._replace(cast(Cell, t), t_cells - cells, t_need - need)
                    continue
            elif t_cells < cells:
                self._replace(s, cells - t_cells, need - t_need)
                return
            # Neither set holds the other here, so both differences are non-empty: the
            # overlap rule can only fire on the side with more mines needed, and only when
            # that side's difference can have that size: ``cells - t_cells`` has between
            # ``size - t_size`` and ``size`` cells (``size - 1`` at most, as the two share
            # a cell). Its size is counted first (only as far as it can match); the
            # differences (new sets) are built only when the rule fires.
            if more > 0 and size - t_size <= more <= size:
                if _missing(members, t_cells, more) == more:
                    self._decide(cells - t_cells, 1)
                    self._decide(t_cells - cells, 0)
                    return
            elif (
                more < 0
                and t_size - size <= -more <= t_size
                and _missing(t_cells, members, -more) == -more
            ):
                self._decide(t_cells - cells, 1)
                self._decide(cells - t_cells, 0)
                return

    def take_dirty(self) -> set[Cell]:
        out = self.dirty
        self.dirty = set()
        return out


# The cells stay Python ints (``object``) in ``_pairs``, ``_decide``, ``_shrink`` and
# below: a compiled loop over ``int`` unboxes each cell and boxes it again for every
# dictionary or set it meets, a new object each time for cells above 256.


def _missing(a: frozenset[object], b: frozenset[object], most: int) -> int:
    """How many cells of ``a`` are not in ``b`` (``len(a - b)`` with no new set), counted
    only up to ``most + 1``: the callers need to know whether it is 0 or ``most``."""
    count = 0
    for c in a:
        if c not in b:
            count += 1
            if count > most:
                break
    return count


def _link(sources_of: dict[Cell, set[Cell]], src: object, cells: frozenset[Cell]) -> None:
    """List the source ``src`` under each of its ``cells`` in ``sources_of``."""
    by_cell = cast("dict[object, set[object]]", sources_of)
    members: frozenset[object] = cells
    for c in members:
        got = by_cell.get(c)
        if got is None:
            by_cell[c] = {src}
        else:
            got.add(src)
