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
        if not known.keys().isdisjoint(cells):
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
        self.dirty.add(source)
        if not cells:
            self.cons.pop(source, None)
            return
        self.cons[source] = (cells, need)
        sources_of = self.sources_of
        for c in cells:
            got = sources_of.get(c)
            if got is None:
                sources_of[c] = {source}
            else:
                got.add(source)
        self.queue.append(source)

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

    def _shrink(self, source: Cell, cells: frozenset[Cell], need: int) -> None:
        """``_replace`` when the cells left out no longer list ``source`` in ``sources_of``
        (a decided or revealed cell, whose entry the caller popped)."""
        if need < 0 or need > len(cells):
            raise InconsistentPosition.unsatisfiable(self.position, source)
        self.dirty.add(source)
        if cells:
            self.cons[source] = (cells, need)
            self.queue.append(source)
        else:
            del self.cons[source]

    def _decide(self, cells: frozenset[Cell], value: int) -> None:
        known = self.known
        sources_of = self.sources_of
        cons = self.cons
        for c in cells:
            if c in known:
                continue
            known[c] = value
            for s in sources_of.pop(c, ()):
                s_cells, s_need = cons[s]
                self._shrink(s, s_cells - {c}, s_need - value)

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

        Every rule reads only sizes: ``s``'s, the other constraint's and how many cells
        the two share, counted once per pair (``shared``). Most calls fire no rule, and
        then they build no set. When one fires, the pairs are visited in the order of the
        set of sharing sources (the order the rules have always fired in: it decides the
        residual constraints, hence the pieces and every first solution drawn from them).
        Within the visit only the visited constraint changes (or ``s``, which ends it), so
        the counts taken at the start stay true for the pairs not yet visited.
        """
        shared: dict[Cell, int] = {}
        for c in cells:
            for t in sources_of[c]:
                shared[t] = shared.get(t, 0) + 1
        size = len(cells)
        for t, k in shared.items():
            if t != s:
                t_cells, t_need = cons[t]
                if _fires(size, need, len(t_cells), t_need, k):
                    break
        else:
            return
        others: set[Cell] = set()
        for c in cells:
            others |= sources_of[c]
        others.discard(s)
        for t in others:
            got = cons.get(t)
            if got is None:
                continue
            t_cells, t_need = got
            t_size = len(t_cells)
            k = shared[t]
            if k == size:  # cells <= t_cells
                if t_size == size:  # the same cells
                    if t_need != need:
                        raise InconsistentPosition.unsatisfiable(self.position, t)
                    self._drop(t)
                else:
                    self._replace(t, t_cells - cells, t_need - need)
                continue
            if k == t_size:  # t_cells < cells
                self._replace(s, cells - t_cells, need - t_need)
                return
            # Overlap: the side needing more mines has them all in the cells it does not
            # share, and the other side's cells it does not share are safe.
            more = need - t_need
            if more > 0 and more == size - k:
                self._decide(cells - t_cells, 1)
                self._decide(t_cells - cells, 0)
                return
            if more < 0 and -more == t_size - k:
                self._decide(t_cells - cells, 1)
                self._decide(cells - t_cells, 0)
                return
            if s not in cons:
                return

    def take_dirty(self) -> set[Cell]:
        out = self.dirty
        self.dirty = set()
        return out


def _fires(size: int, need: int, t_size: int, t_need: int, shared: int) -> bool:
    """Whether a rule of ``Frontier._pairs`` applies to two constraints: sizes, needs
    and how many cells they share."""
    if shared in (size, t_size):  # one holds the other (or they are equal)
        return True
    more = need - t_need
    if more > 0:
        return more == size - shared
    return more < 0 and -more == t_size - shared
