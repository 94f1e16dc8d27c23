"""The exact solver: a verdict for every covered cell, probabilities and witnesses.

The pipeline (each step its own module):

1. ``devil.solve._frontier``: read the revealed numbers that touch covered cells.
2. ``devil.solve._propagate``: counting, subset and overlap rules; decided cells are
   substituted out of the constraints (known mines stay covered in a position, so
   without this every piece would grow into the whole board).
3. ``devil.solve._pieces``: split what is left into independent pieces and condense
   each piece into groups of cells with identical constraints.
4. ``devil.solve.piece_facts``: per piece, a backbone computation by exact search
   (``devil.solve._search``, then ``devil.solve._cdcl``) decides for each group whether it can hold
   a mine and whether it can hold a safe cell; cached by content.
5. Counted rule (``devil.solve.counted``, over ``devil.solve.bits`` sets of totals): when the total
   cannot bind (every achievable frontier total leaves room in the deep cells) the
   classic answers stand; otherwise each piece's achievable mine totals are combined
   exactly and each piece is re-decided inside the window of totals the other pieces
   and the deep cells allow.
6. Answers: ``PositionAnalysis`` gives verdicts, exact probabilities (weights from
   ``devil.solve.counted`` under the counted rule) and witnesses (``devil.solve.witness``).

Pieces are cached by content (their residual constraints), so a ``Solver`` shared
by successive positions only recomputes the pieces a click touched.

Every entry point takes an optional ``devil.budget.Budget`` (None: unbounded, exact).
When it runs out the answer is partial, never wrong: ``Classification.undecided`` and
``Probabilities.undecided`` name the covered cells left without an answer and ``reason``
says why; a witness or a single verdict raises ``devil.errors.BudgetExceeded``."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from fractions import Fraction

from devil.analysis import Classification, Layout, Probabilities, Verdict
from devil.board import Cell
from devil.errors import BudgetExceeded, InconsistentPosition, do_not_fit
from devil.position import Position
from devil.rules import Count
from devil.solve import counted, quick_witness
from devil.solve import witness as _witness
from devil.solve._frontier import (
    covered_list,
    deep_list,
)
from devil.solve._pieces import Piece
from devil.solve._search import Backbone, Search, TooHard, TotalWindow, make_problem
from devil.solve.bits import interval, lowest
from devil.solve.budget import Meter, metering
from devil.solve.piece_facts import PieceInfo
from devil.solve.verdicts import Verdicts, spread, verdict_of

__all__ = ["PositionAnalysis"]

CLASSIC_DENSITY_DEFAULT = Fraction(1, 5)
_CERTAIN = (Fraction(0), Fraction(1))
"""The probabilities of known cells (fractions are immutable: shared, not made per cell)."""


# -- the analysis of one position ------------------------------------------------------


class PositionAnalysis:
    """Everything the solver knows about one position under one count rule."""

    def __init__(
        self,
        position: Position,
        count: Count,
        known: dict[Cell, int],
        infos: list[PieceInfo],
        covered: int,
        meter: Meter | None = None,
    ) -> None:
        self.position = position
        self.count = count
        self._known = known
        self._infos = infos
        self._where_map: dict[Cell, tuple[int, int]] | None = None
        """``(piece, group)`` per piece cell, built on first use (a click asks one cell)."""
        in_pieces = sum(info.piece.cell_count for info in infos)
        self._covered = covered
        self._deep: list[Cell] | None = None
        self._known_mines: list[Cell] | None = None
        self.deep_count = covered - len(known) - in_pieces
        self.mines_left: int | None = None
        if position.mines is not None:
            self.mines_left = position.mines - sum(known.values())
        self._windows: list[TotalWindow] | None = None
        self._deep_verdict = Verdict.EITHER
        self._override: Classification | None = None
        """Verdicts from another backend (``Solver(backend="cpsat")``)."""
        self._meter = meter
        self._stopped: str | None = None
        """Why the budget stopped the analysis (None: it did not)."""
        self._counted_done = self.count is Count.CLASSIC
        """Counted rule: the windows and the deep cells' verdict are known."""
        with metering(meter):
            try:
                self._decide()
            except BudgetExceeded as stop:
                self._stopped = str(stop)

    # -- deciding ----------------------------------------------------------------------

    def _decide(self) -> None:
        for i, info in enumerate(self._infos):
            if info.solution() is None:
                raise_unsatisfiable(self.position, info.piece, i)
        if self.count is Count.COUNTED:
            try:
                self._decide_counted()
                self._counted_done = True
                if self._windows is not None:
                    for i, info in enumerate(self._infos):
                        if not info.answers_alone(self._windows[i]):  # else when asked
                            self._group_backbone(i)
            except TooHard:
                self._override = self._cpsat_counted()

    def _cpsat_counted(self) -> Classification:
        """The counted rule by CP-SAT (a window too hard for clause learning); under a
        deadline each CP-SAT solve gets the time left."""
        from devil import cpsat

        meter = self._meter
        left = None if meter is None else meter.remaining()
        if meter is None or left is None:
            return cpsat.classify(self.position, Count.COUNTED)
        try:
            return cpsat.classify(self.position, Count.COUNTED, time_limit=max(left, 0.01))
        except cpsat.CpSatTimeout as timeout:
            meter.check()  # raises when the deadline has passed
            raise BudgetExceeded(str(timeout), meter.budget.describe()) from timeout

    def _decide_counted(self) -> None:
        if self.mines_left is None:
            raise ValueError("the counted rule needs the position's total number of mines")
        m = self.mines_left
        d = self.deep_count
        low = 0
        high = sum(info.piece.cell_count for info in self._infos)
        if not (m - high >= 1 and m - low <= d - 1):
            if len(self._infos) > 1 and not all(
                info.cheap_totals() is not None for info in self._infos
            ):
                self._merge_pieces()  # some piece is too wide for exact totals
            if len(self._infos) == 1:
                self._decide_single(m, d)
                return
        if not (m - high >= 1 and m - low <= d - 1):
            ranges = [info.mine_range() for info in self._infos]
            low = sum(r[0] for r in ranges)
            high = sum(r[1] for r in ranges)
        if m - high >= 0 and m - low <= d:
            # the total never binds the frontier; the extremes are achievable totals
            if d:
                self._deep_verdict = verdict_of(m - low >= 1, m - high <= d - 1)
            return
        self._decide_exact(m, d)

    def _merge_pieces(self) -> None:
        """Treat every piece as one (disjoint) piece, so one window covers the total."""
        groups: list[tuple[Cell, ...]] = []
        cons: list[tuple[tuple[int, ...], int]] = []
        sources: list[Cell] = []
        for info in self._infos:
            piece = info.piece
            offset = len(groups)
            groups.extend(piece.groups)
            sources.extend(piece.sources)
            cons.extend((tuple(g + offset for g in gs), need) for gs, need in piece.problem.cons)
        sizes = [len(g) for g in groups]
        key = frozenset().union(*(info.piece.key for info in self._infos))
        piece = Piece(key, tuple(sources), tuple(groups), make_problem(sizes, cons))
        wide = any(info.wide() for info in self._infos)
        merged = PieceInfo(piece, self.position.board.width, wide)
        self._infos = [merged]
        self._where_map = None

    def _decide_single(self, m: int, d: int) -> None:
        """One piece: its total must leave between 0 and ``d`` mines for the deep cells.

        No need for the piece's achievable totals: the window goes straight into the
        search (a 2-D lattice is too wide for the totals programme).
        """
        info = self._infos[0]
        window = counted.single_window(m, d, info.piece.cell_count)
        if window[0] > window[1] or not info.has_window_solution(window):
            raise InconsistentPosition(
                f"the {self.position.mines} mines cannot all be placed: no layout of the "
                f"numbers leaves between 0 and {d} mines for the other covered cells"
            )
        self._windows = [window]
        if d:
            self._deep_verdict = verdict_of(
                info.has_total(max(0, m - d), m - 1), info.has_total(max(0, m - d + 1), m)
            )

    def _decide_exact(self, m: int, d: int) -> None:
        totals = [info.totals() for info in self._infos]
        prefix, suffix = counted.prefix_suffix(totals)
        everything = prefix[-1]
        # no total above everything's top bit is reachable: clamping keeps a huge ``m`` from
        # building a huge mask (same answer, bounded by the board)
        fits = everything & interval(m - d, min(m, everything.bit_length()))
        if not fits:
            known = sum(self._known.values())
            total = self.position.mines
            assert total is not None  # the counted rule's total (``_decide_counted``)
            raise InconsistentPosition(
                f"{do_not_fit(total)}: the numbers need "
                f"{_between(known + lowest(everything), known + everything.bit_length() - 1)}"
                f", and {_room(d)}"
            )
        if d:
            self._deep_verdict = verdict_of(
                bool(everything & interval(m - d, m - 1)),
                bool(everything & interval(m - d + 1, m)),
            )
        self._windows = counted.piece_windows(totals, prefix, suffix, m, d)

    def _group_backbone(self, i: int) -> Backbone:
        info = self._infos[i]
        got = info.backbone() if self._windows is None else info.windowed(self._windows[i])
        assert got is not None
        return got

    # -- queries -----------------------------------------------------------------------

    def check_covered(self, cell: Cell) -> None:
        """Raises ``ValueError`` unless ``cell`` is a covered cell of the position."""
        if not (0 <= cell < self.position.board.size) or not self.position.is_covered(cell):
            raise ValueError(f"the cell {cell} is not a covered cell of this position")

    def verdict(self, cell: Cell) -> Verdict:
        """The cell's verdict; raises ``BudgetExceeded`` when the budget left it undecided."""
        with metering(self._meter):
            got = self._verdict_of(cell)
        if got is None:
            raise BudgetExceeded(self._stopped or "too hard within the budget")
        return got

    def _verdict_of(self, cell: Cell) -> Verdict | None:
        if self._override is not None:
            if cell not in self._override.verdicts:
                self.check_covered(cell)
            return self._override.verdict(cell)
        value = self._known.get(cell)
        if value is not None:
            return Verdict.MINE if value else Verdict.SAFE
        where = self.group_of(cell)
        if where is None:
            self.check_covered(cell)
            return self._deep_verdict if self._counted_done else None
        i, g = where
        window = None if self._windows is None else self._windows[i]
        if self._counted_done and self._infos[i].answers_alone(window):
            try:
                return self._groupverdict_of(i, g)
            except TooHard:  # a window clause learning cannot settle (CP-SAT installed)
                self._override = self._cpsat_counted()
                return self._override.verdict(cell)
        got = self._piece_verdicts(i)
        return None if got is None else got[g]

    def _groupverdict_of(self, i: int, g: int) -> Verdict | None:
        """One group's verdict, asked of its piece alone (``PieceInfo.can_hold``: a wide
        piece does not decide all its groups for one click); None when the budget ran
        out first."""
        info = self._infos[i]
        window = None if self._windows is None else self._windows[i]
        try:
            return verdict_of(info.can_hold(g, True, window), info.can_hold(g, False, window))
        except BudgetExceeded as stop:
            self._stopped = self._stopped or str(stop)
            return None

    def _piece_verdicts(self, i: int) -> list[Verdict | None] | None:
        """Per group of piece ``i``: its verdict, None for a group the budget left
        undecided; None when the piece is undecided altogether."""
        info = self._infos[i]
        sizes = info.piece.problem.sizes
        if self._counted_done:
            try:
                bb = self._group_backbone(i)
            except BudgetExceeded as stop:
                self._stopped = self._stopped or str(stop)
            else:
                return [
                    verdict_of(bb.high[g] >= 1, bb.low[g] <= sizes[g] - 1)
                    for g in range(len(sizes))
                ]
        # partial: what the numbers alone force stays forced under any total
        base = info.known_backbone()
        if base is None:
            return None
        out: list[Verdict | None] = []
        for g, size in enumerate(sizes):
            v = verdict_of(base.high[g] >= 1, base.low[g] <= size - 1)
            out.append(None if v is Verdict.EITHER and self.count is Count.COUNTED else v)
        return out

    def classification(self) -> Classification:
        if self._override is not None:
            return self._override
        with metering(self._meter):
            return self._classification()

    def _classification(self) -> Classification:
        deep = self._deep_verdict if self._counted_done else None
        frontier: dict[Cell, Verdict] = {}
        undecided: set[Cell] = set()
        for c, value in self._known.items():
            frontier[c] = Verdict.MINE if value else Verdict.SAFE
        for i, info in enumerate(self._infos):
            got = self._piece_verdicts(i)
            for g, cells in enumerate(info.piece.groups):
                v = None if got is None else got[g]
                if v is None:
                    undecided.update(cells)
                else:
                    for c in cells:
                        frontier[c] = v
        if deep is None:
            undecided.update(c for c in self.deep_cells())
        verdicts = Verdicts(self.position, frontier, frozenset(undecided), deep)
        reason = self._stopped if undecided else None
        return Classification(verdicts, frozenset(undecided), reason)

    @property
    def reason(self) -> str | None:
        """Why the budget left something undecided (None: the analysis is complete)."""
        return self._stopped

    def any_safe(self) -> bool:
        """Whether some covered cell is provably safe (raises ``BudgetExceeded`` when the
        budget ran out before that was known)."""
        with metering(self._meter):
            if self._override is not None:
                return bool(self._override.safe_cells())
            if any(v == 0 for v in self._known.values()):
                return True
            for i in range(len(self._infos)):
                got = self._piece_verdicts(i)
                if got is not None and Verdict.SAFE in got:
                    return True
            if self._stopped is not None:
                raise BudgetExceeded(self._stopped)
            return self._deep_verdict is Verdict.SAFE and self.deep_count > 0

    # -- probabilities -----------------------------------------------------------------

    def probabilities(self) -> Probabilities[float]:
        return self.exact_probabilities().floats()

    def exact_probabilities(self) -> Probabilities[Fraction]:
        """Exact probabilities; under a budget, partial (see ``Probabilities``)."""
        out: dict[Cell, Fraction] = {}
        for c, value in self._known.items():
            out[c] = _CERTAIN[value]
        skipped: set[Cell] = set()
        deep_p: Fraction | None = None
        with metering(self._meter):
            try:
                if self._stopped is not None:
                    raise BudgetExceeded(self._stopped)
                if self.count is Count.CLASSIC:
                    deep_p = self._classic_pieces(out, skipped)
                else:
                    deep_p = self._counted_pieces(out)
            except BudgetExceeded as stop:
                self._stopped = self._stopped or str(stop)
                if self.count is Count.CLASSIC:  # pieces are independent: keep the finished
                    deep_p = self._classic_density()
                else:
                    out = {c: p for c, p in out.items() if c in self._known}
        undecided: set[Cell] = set()
        where = self._where()
        for c in covered_list(self.position.grid):
            if c in out:
                continue
            if c in skipped or deep_p is None or c in where:
                undecided.add(c)
            else:
                out[c] = deep_p
        reason = self._stopped if undecided else None
        return Probabilities(out, frozenset(undecided), reason)

    def _classic_pieces(self, out: dict[Cell, Fraction], skipped: set[Cell]) -> Fraction:
        """Each piece on its own; a piece the budget stops goes to ``skipped`` and the
        next piece is tried (whose programme may be cheap) until every piece was tried."""
        p = self._classic_density()
        w1, w0 = p.numerator, p.denominator - p.numerator
        known = set(self._known.values())
        if (w1 == 0 and 1 in known) or (w0 == 0 and 0 in known):
            raise self._degenerate_density(p)
        stop: BudgetExceeded | None = None
        for info in self._infos:
            try:
                counts = info.counts()
            except BudgetExceeded as error:
                stop = error
                skipped.update(c for cells in info.piece.groups for c in cells)
                continue
            n = info.piece.cell_count
            weights = [w1**k * w0 ** (n - k) for k in range(len(counts.total))]
            norm = sum(w * t for w, t in zip(weights, counts.total, strict=False))
            if norm == 0:
                raise self._degenerate_density(p)
            spread(out, info.piece, counts, weights, norm)
        if stop is not None:
            self._stopped = self._stopped or str(stop)
        return p

    def _classic_density(self) -> Fraction:
        position = self.position
        if position.mines is None:
            p = CLASSIC_DENSITY_DEFAULT
        else:
            if position.mines > position.board.cell_count:  # p > 1: negative weights
                raise InconsistentPosition(
                    f"the {do_not_fit(position.mines)} in the "
                    f"{position.board.cell_count} cells of the board"
                )
            p = Fraction(position.mines, position.board.cell_count)
        return p

    def _degenerate_density(self, p: Fraction) -> InconsistentPosition:
        """Density 0 or 1 weighs every consistent layout zero: no probability is defined."""
        mines = self.position.mines
        cells = self.position.board.cell_count
        what = "no cell" if p == 0 else "every cell"
        return InconsistentPosition(
            f"the {mines} mines on {cells} cells put a mine on {what} (density {p}), "
            "but the numbers rule that out: no consistent layout has any weight"
        )

    def _counted_pieces(self, out: dict[Cell, Fraction]) -> Fraction:
        """Each combination of piece layouts with ``s`` mines weighs ``C(deep, left - s)``.

        A piece's layouts with ``k`` mines weigh the sum over the other pieces' totals;
        those come from dividing the product of every piece's polynomial by the piece's
        own (exact integer long division), not from re-multiplying the others.
        """
        assert self.mines_left is not None
        m = self.mines_left
        d = self.deep_count
        polys = [counted.trim(info.counts().total) for info in self._infos]
        everything = counted.product(polys)
        # ways[x] = C(d, m - x) up to one constant factor, which cancels in every ratio
        ways = counted.binomials_scaled(d, m, len(everything) + 1)
        norm = sum(t * ways[s] for s, t in enumerate(everything) if t)
        if norm == 0:
            raise InconsistentPosition(
                f"the {self.position.mines} mines cannot all be placed consistently"
            )
        by_poly: dict[tuple[int, ...], list[int]] = {}  # pieces with equal polynomials
        meter = self._meter  # share the others' weights (most pieces of a big board
        for info, poly in zip(self._infos, polys, strict=True):  # are a few shapes)
            counts = info.counts()
            key = tuple(poly)
            weights = by_poly.get(key)
            if weights is None or len(weights) < len(counts.total):
                others = counted.divide(everything, poly)
                weights = counted.piece_weights(others, ways, len(counts.total))
                by_poly[key] = weights
                if meter is not None:
                    meter.charge(len(others) * len(weights))
            spread(out, info.piece, counts, weights, norm)
        if d == 0:
            return Fraction(0)
        deep_mines = sum(t * ways[s] * (m - s) for s, t in enumerate(everything) if t)
        return Fraction(deep_mines, norm * d)

    # -- witnesses (``devil.solve.witness``) -------------------------------------------------

    @property
    def known(self) -> Mapping[Cell, int]:
        """Covered cells decided by propagation alone: 1 a mine, 0 safe."""
        return self._known

    def known_mines(self) -> list[Cell]:
        """The covered cells propagation alone proves mined (``known`` cells of value 1)."""
        if self._known_mines is None:
            self._known_mines = [c for c, v in self._known.items() if v]
        return self._known_mines

    @property
    def pieces(self) -> Sequence[Piece]:
        """The independent pieces of the undecided frontier, in group form."""
        return [info.piece for info in self._infos]

    def facts(self, index: int) -> PieceInfo:
        """The cached facts of piece ``index`` (witnesses draw solutions from them)."""
        return self._infos[index]

    def group_of(self, cell: Cell) -> tuple[int, int] | None:
        """``(piece, group)`` holding ``cell``, None for a known or deep cell."""
        if self._where_map is not None:
            return self._where_map.get(cell)
        for i, info in enumerate(self._infos):
            g = info.group_index().get(cell)
            if g is not None:
                return (i, g)
        return None

    def _where(self) -> dict[Cell, tuple[int, int]]:
        if self._where_map is None:
            self._where_map = {
                c: (i, g)
                for i, info in enumerate(self._infos)
                for c, g in info.group_index().items()
            }
        return self._where_map

    def deep_cells(self) -> list[Cell]:
        """The covered cells no number touches (undecided, in no piece), in board order
        (a new list: the caller may change it)."""
        if self._deep is None:
            self._deep = deep_list(self.position.grid, self._known, self._where())
        return list(self._deep)

    def witness(
        self,
        cell: Cell,
        mine: bool = True,
        rng: random.Random | None = None,
        nearest_total: bool = False,
        version: int = 1,
    ) -> Layout | None:
        """A full consistent layout with ``cell`` mined (or safe); None when none exists.

        ``rng`` and ``nearest_total``: see ``devil.solve.witness.build``. ``version``: the
        game's (``devil.game.params.GameParams.version``): 2 and later draw the quicker way
        of ``devil.solve.quick_witness`` (other layouts for the same ``rng``). Raises
        ``BudgetExceeded`` when the budget runs out first.
        """
        with metering(self._meter):
            if self._stopped is not None:
                raise BudgetExceeded(self._stopped)
            if version >= 2:
                return quick_witness.build(self, cell, mine, rng, nearest_total)
            return _witness.build(self, cell, mine, rng, nearest_total)


def raise_unsatisfiable(position: Position, piece: Piece, index: int) -> None:
    """Name a number of an unsatisfiable piece: the first whose addition breaks it."""
    cons = piece.problem.cons
    for upto in range(1, len(cons) + 1):
        sub = make_problem(piece.problem.sizes, cons[:upto])
        n = sub.n
        if Search(sub).solve([0] * n, list(sub.sizes)) is None:
            raise InconsistentPosition.unsatisfiable(position, piece.sources[upto - 1])
    raise AssertionError("piece reported unsatisfiable but every prefix is satisfiable")


def _between(low: int, high: int) -> str:
    """``exactly 2 mines``, ``between 3 and 5 mines``."""
    if low == high:
        return f"exactly {low} mine" if low == 1 else f"exactly {low} mines"
    return f"between {low} and {high} mines"


def _room(deep: int) -> str:
    """What the covered cells away from every number (``deep``) can hold besides."""
    if deep == 0:
        return "there is no other covered cell"
    cells = "cell" if deep == 1 else "cells"
    return f"the {deep} other covered {cells} can hold 0 to {deep} more"
