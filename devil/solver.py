"""The exact solver: a verdict for every covered cell, probabilities and witnesses.

The pipeline (each step its own module):

1. ``devil._frontier``: read the revealed numbers that touch covered cells.
2. ``devil._propagate``: counting, subset and overlap rules; decided cells are
   substituted out of the constraints (known mines stay covered in a position, so
   without this every component would grow into the whole board).
3. ``devil._components``: split what is left into independent pieces and condense
   each piece into groups of cells with identical constraints.
4. ``devil._search``: per piece, a backbone computation by exact search decides for
   each group whether it can hold a mine and whether it can hold a safe cell.
5. Counted rule: when the total cannot bind (every achievable frontier total leaves
   room in the deep cells) the classic answers stand; otherwise each piece's
   achievable mine totals are combined exactly and each piece is re-decided inside
   the window of totals the other pieces and the deep cells allow.

Pieces are cached by content (their residual constraints), so a ``Solver`` shared
by successive positions only recomputes the pieces a click touched.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Iterator, Sequence
from fractions import Fraction
from math import comb

from devil._bulk import settle
from devil._cdcl import Cdcl, cdcl_backbone
from devil._components import Piece, PieceKey, connected_sources, make_piece
from devil._count import (
    PieceCounts,
    count_by_frontier,
    count_by_search,
    totals_by_frontier,
    window_bounds_by_frontier,
)
from devil._frontier import covered_count, frontier_sources, neighbour_fn, read_number
from devil._propagate import Frontier
from devil._search import (
    Backbone,
    GroupProblem,
    Search,
    TooHard,
    Window,
    backbone,
    make_problem,
)
from devil.analysis import Classification, Layout, Verdict
from devil.board import Cell
from devil.errors import InconsistentPosition
from devil.position import Position
from devil.rules import Count

__all__ = ["PositionAnalysis", "Solver", "classify", "probabilities", "witness"]

BACKENDS = ("search", "cpsat")
CLASSIC_DENSITY_DEFAULT = Fraction(1, 5)
_COVERED_RE = re.compile(b"[.F]")
_CACHE_LIMIT = 50_000


# -- per-piece facts (cached by content) ----------------------------------------------


class _PieceInfo:
    """What is known about one piece; every field is filled on first use."""

    __slots__ = ("_backbone", "_counts", "_range", "_totals", "_windowed", "piece")

    def __init__(self, piece: Piece) -> None:
        self.piece = piece
        self._backbone: Backbone | None = None
        self._range: tuple[int, int] | None = None
        self._totals: int | None = None
        self._counts: PieceCounts | None = None
        self._windowed: dict[Window, Backbone | None] = {}

    def backbone(self) -> Backbone | None:
        if self._backbone is None:
            self._backbone = _backbone(self.piece.problem, None)
        return self._backbone

    def windowed(self, window: Window) -> Backbone | None:
        """The backbone among solutions whose total lies in the window."""
        if window not in self._windowed:
            lo, hi, allowed = window
            if allowed is None:
                allowed = _interval(lo, hi)
            got = window_bounds_by_frontier(self.piece.problem, allowed)
            if got is not None:
                low, high = got
                ok = all(h >= 0 for h in high)
                self._windowed[window] = Backbone(low, high, []) if ok else None
            else:
                self._windowed[window] = _windowed_backbone(
                    self.piece.problem, allowed, self.backbone()
                )
        return self._windowed[window]

    def mine_range(self) -> tuple[int, int]:
        """The fewest and most mines a solution of the piece can have."""
        if self._range is None:
            problem = self.piece.problem
            if self._totals is None:
                self._totals = totals_by_frontier(problem)
            if self._totals is not None:
                mask = self._totals
                self._range = (_lowest(mask), mask.bit_length() - 1)
            else:
                self._range = (_extreme(problem, lowest=True), _extreme(problem, lowest=False))
        return self._range

    def totals(self) -> int:
        """Bitmask of the achievable mine totals of the piece."""
        if self._totals is None:
            self._totals = totals_by_frontier(self.piece.problem)
        if self._totals is None:
            low, high = self.mine_range()
            problem = self.piece.problem
            mask = 0
            for k in range(low, high + 1):
                if Cdcl(problem, (k, k, None)).solve() is not None:
                    mask |= 1 << k
            self._totals = mask
        return self._totals

    def counts(self) -> PieceCounts:
        if self._counts is None:
            problem = self.piece.problem
            self._counts = count_by_frontier(problem) or count_by_search(problem)
        return self._counts


def _extreme(problem: GroupProblem, lowest: bool) -> int:
    """The fewest (or most) mines of a solution: improve a solution until none is better."""
    best = Cdcl(problem).solve()
    if best is None:
        raise ValueError("piece has no solution")
    value = sum(best)
    total = sum(problem.sizes)
    while True:
        window: Window = (0, value - 1, None) if lowest else (value + 1, total, None)
        if window[0] > window[1]:
            return value
        sol = Cdcl(problem, window).solve()
        if sol is None:
            return value
        value = sum(sol)


def _dp_totals(info: _PieceInfo) -> bool:
    """Whether the piece's achievable totals are known (computing them by the programme)."""
    if info._totals is None:
        info._totals = totals_by_frontier(info.piece.problem)
    return info._totals is not None


def _has_total(info: _PieceInfo, low: int, high: int) -> bool:
    """Whether some solution of the piece has between ``low`` and ``high`` mines."""
    if high < low:
        return False
    if info._totals is None:
        info._totals = totals_by_frontier(info.piece.problem)
    if info._totals is not None:
        return bool(info._totals & _interval(low, high))
    return Cdcl(info.piece.problem, (low, high, None)).solve() is not None


def _cpsat_installed() -> bool:
    try:
        import ortools  # noqa: F401
    except ImportError:
        return False
    return True


_WINDOW_CONFLICTS: int | None = 1_000 if _cpsat_installed() else None
"""A window on a piece's total (counted rule, no room in the deep cells) is one
cardinality over every cell, which clause learning handles badly: past this many
conflicts the position goes to ``devil.cpsat`` when it is installed. Without it the
pure-Python search carries on to the exact answer, however long it takes."""

SEARCH_BUDGET = 3_000
"""Values the plain search may try per query before a piece goes to the CDCL solver."""


def _backbone(
    problem: GroupProblem,
    window: Window | None,
    base: Backbone | None = None,
    max_conflicts: int | None = None,
) -> Backbone | None:
    """Plain search first; the conflict-driven solver when it thrashes.

    ``base``: the backbone without the window; groups it proves all-safe or all-mine stay
    so (a window only removes solutions), which spares the searches proving them again.
    """
    lo: list[int] | None = None
    hi: list[int] | None = None
    if base is not None:
        sizes = problem.sizes
        lo = [sizes[g] if base.low[g] == sizes[g] else 0 for g in range(problem.n)]
        hi = [0 if base.high[g] == 0 else sizes[g] for g in range(problem.n)]
    try:
        return backbone(problem, window, lo, hi, budget=SEARCH_BUDGET)
    except TooHard:
        got = cdcl_backbone(problem, window, lo, hi, max_conflicts)
        return None if got is None else Backbone(*got)


def _windowed_backbone(
    problem: GroupProblem, allowed: int, base: Backbone | None = None
) -> Backbone | None:
    """Raises ``TooHard`` when CP-SAT is installed and the CDCL solver struggles."""
    """The backbone among solutions whose total is in ``allowed`` (one run per run of bits)."""
    merged: Backbone | None = None
    k = 0
    while allowed >> k:
        if not (allowed >> k) & 1:
            k += 1
            continue
        start = k
        while (allowed >> k) & 1:
            k += 1
        got = _backbone(problem, (start, k - 1, None), base, _WINDOW_CONFLICTS)
        if got is None:
            continue
        if merged is None:
            merged = got
        else:
            merged = Backbone(
                [min(a, b) for a, b in zip(merged.low, got.low, strict=True)],
                [max(a, b) for a, b in zip(merged.high, got.high, strict=True)],
                merged.solution,
            )
    return merged


class _Cache:
    """Piece facts by content, shared by every position a ``Solver`` sees."""

    def __init__(self) -> None:
        self.pieces: dict[PieceKey, _PieceInfo] = {}

    def info(self, sources: list[Cell], frontier: Frontier) -> _PieceInfo:
        cons = frontier.cons
        key = frozenset(cons[s] for s in sources)
        got = self.pieces.get(key)
        if got is None:
            if len(self.pieces) > _CACHE_LIMIT:
                self.pieces.clear()
            got = self.pieces[key] = _PieceInfo(make_piece(sources, cons))
        return got


# -- bit sets of mine totals -----------------------------------------------------------


def _sumset(a: int, b: int) -> int:
    """``{x + y : x in a, y in b}`` for bitmask sets."""
    if a.bit_count() > b.bit_count():
        a, b = b, a
    out = 0
    while a:
        low = a & -a
        out |= b << (low.bit_length() - 1)
        a ^= low
    return out


def _bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _interval(lo: int, hi: int) -> int:
    """Bitmask of ``lo..hi`` (negative numbers dropped)."""
    lo = max(lo, 0)
    if hi < lo:
        return 0
    return ((1 << (hi - lo + 1)) - 1) << lo


# -- the analysis of one position ------------------------------------------------------


class PositionAnalysis:
    """Everything the solver knows about one position under one count rule."""

    def __init__(
        self,
        position: Position,
        count: Count,
        known: dict[Cell, int],
        infos: list[_PieceInfo],
        covered: int,
    ) -> None:
        self.position = position
        self.count = count
        self._known = known
        self._infos = infos
        self._where: dict[Cell, tuple[int, int]] = {}
        for i, info in enumerate(infos):
            for g, cells in enumerate(info.piece.groups):
                for c in cells:
                    self._where[c] = (i, g)
        self._covered = covered
        self.deep_count = covered - len(known) - len(self._where)
        self.mines_left: int | None = None
        if position.mines is not None:
            self.mines_left = position.mines - sum(known.values())
        self._windows: list[Window] | None = None
        self._deep_verdict = Verdict.EITHER
        self._override: Classification | None = None
        """Verdicts from another backend (``Solver(backend="cpsat")``)."""
        self._decide()

    # -- deciding ----------------------------------------------------------------------

    def _decide(self) -> None:
        for i, info in enumerate(self._infos):
            if info.backbone() is None:
                _raise_unsatisfiable(self.position, info.piece, i)
        if self.count is Count.COUNTED:
            try:
                self._decide_counted()
                if self._windows is not None:
                    for i in range(len(self._infos)):
                        self._group_backbone(i)
            except TooHard:
                from devil import cpsat

                self._override = cpsat.classify(self.position, Count.COUNTED)

    def _decide_counted(self) -> None:
        if self.mines_left is None:
            raise ValueError("the counted rule needs the position's total number of mines")
        m = self.mines_left
        d = self.deep_count
        low = 0
        high = sum(info.piece.cell_count for info in self._infos)
        if not (m - high >= 1 and m - low <= d - 1):
            if len(self._infos) > 1 and not all(_dp_totals(info) for info in self._infos):
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
                self._deep_verdict = _verdict(m - low >= 1, m - high <= d - 1)
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
        merged = _PieceInfo(Piece(key, tuple(sources), tuple(groups), make_problem(sizes, cons)))
        self._infos = [merged]
        self._where = {c: (0, g) for g, cells in enumerate(groups) for c in cells}

    def _decide_single(self, m: int, d: int) -> None:
        """One piece: its total must leave between 0 and ``d`` mines for the deep cells.

        No need for the piece's achievable totals: the window goes straight into the
        search (a 2-D lattice is too wide for the totals programme).
        """
        info = self._infos[0]
        # the piece holds at most its own cells: clamp before building a mask of the window
        window: Window = (max(0, m - d), min(m, info.piece.cell_count), None)
        if window[0] > window[1] or info.windowed(window) is None:
            raise InconsistentPosition(
                f"the {self.position.mines} mines cannot all be placed: no layout of the "
                f"numbers leaves between 0 and {d} mines for the other covered cells"
            )
        self._windows = [window]
        if d:
            self._deep_verdict = _verdict(
                _has_total(info, max(0, m - d), m - 1), _has_total(info, max(0, m - d + 1), m)
            )

    def _decide_exact(self, m: int, d: int) -> None:
        totals = [info.totals() for info in self._infos]
        k = len(totals)
        prefix = [1] * (k + 1)
        for i in range(k):
            prefix[i + 1] = _sumset(prefix[i], totals[i])
        suffix = [1] * (k + 1)
        for i in range(k - 1, -1, -1):
            suffix[i] = _sumset(suffix[i + 1], totals[i])
        everything = prefix[k]
        # no total above everything's top bit is reachable: clamping keeps a huge ``m`` from
        # building a huge mask (same answer, bounded by the board)
        fits = everything & _interval(m - d, min(m, everything.bit_length()))
        if not fits:
            raise InconsistentPosition(
                f"the {self.position.mines} mines cannot all be placed: the numbers need "
                f"between {_lowest(everything)} and {everything.bit_length() - 1} mines "
                f"besides the {sum(self._known.values())} already decided, and there are "
                f"{d} other covered cells"
            )
        if d:
            self._deep_verdict = _verdict(
                bool(everything & _interval(m - d, m - 1)),
                bool(everything & _interval(m - d + 1, m)),
            )
        windows: list[Window] = []
        room = _interval(0, d)
        for i in range(k):
            others = _sumset(prefix[i], suffix[i + 1])
            spread = _sumset(others, room)  # others + deep mines
            allowed = 0
            for x in _bits(spread & _interval(0, m)):
                allowed |= 1 << (m - x)
            allowed &= totals[i]
            windows.append((_lowest(allowed), allowed.bit_length() - 1, allowed))
        self._windows = windows

    def _group_backbone(self, i: int) -> Backbone:
        info = self._infos[i]
        got = info.backbone() if self._windows is None else info.windowed(self._windows[i])
        assert got is not None
        return got

    # -- queries -----------------------------------------------------------------------

    def _check_covered(self, cell: Cell) -> None:
        if not (0 <= cell < self.position.board.size) or not self.position.is_covered(cell):
            raise ValueError(f"the cell {cell} is not a covered cell of this position")

    def verdict(self, cell: Cell) -> Verdict:
        if self._override is not None:
            if cell not in self._override.verdicts:
                self._check_covered(cell)
            return self._override.verdict(cell)
        value = self._known.get(cell)
        if value is not None:
            return Verdict.MINE if value else Verdict.SAFE
        where = self._where.get(cell)
        if where is None:
            self._check_covered(cell)
            return self._deep_verdict
        i, g = where
        bb = self._group_backbone(i)
        size = self._infos[i].piece.problem.sizes[g]
        return _verdict(bb.high[g] >= 1, bb.low[g] <= size - 1)

    def classification(self) -> Classification:
        if self._override is not None:
            return self._override
        grid = self.position.grid
        verdicts = dict.fromkeys(
            (m.start() for m in _COVERED_RE.finditer(grid)), self._deep_verdict
        )
        for c, value in self._known.items():
            verdicts[c] = Verdict.MINE if value else Verdict.SAFE
        for i, info in enumerate(self._infos):
            bb = self._group_backbone(i)
            sizes = info.piece.problem.sizes
            for g, cells in enumerate(info.piece.groups):
                v = _verdict(bb.high[g] >= 1, bb.low[g] <= sizes[g] - 1)
                for c in cells:
                    verdicts[c] = v
        return Classification(verdicts)

    def any_safe(self) -> bool:
        if any(v == 0 for v in self._known.values()):
            return True
        for i in range(len(self._infos)):
            bb = self._group_backbone(i)
            if any(h == 0 for h in bb.high):
                return True
        return self._deep_verdict is Verdict.SAFE and self.deep_count > 0

    # -- probabilities -----------------------------------------------------------------

    def probabilities(self) -> dict[Cell, float]:
        exact = self.exact_probabilities()
        return {c: float(p) for c, p in exact.items()}

    def exact_probabilities(self) -> dict[Cell, Fraction]:
        out: dict[Cell, Fraction] = {}
        for c, value in self._known.items():
            out[c] = Fraction(value)
        if self.count is Count.CLASSIC:
            deep_p = self._classic_pieces(out)
        else:
            deep_p = self._counted_pieces(out)
        for m in _COVERED_RE.finditer(self.position.grid):
            c = m.start()
            if c not in out:
                out[c] = deep_p
        return out

    def _classic_pieces(self, out: dict[Cell, Fraction]) -> Fraction:
        position = self.position
        if position.mines is None:
            p = CLASSIC_DENSITY_DEFAULT
        else:
            if position.mines > position.board.cell_count:  # p > 1: negative weights
                raise InconsistentPosition(
                    f"the {position.mines} mines do not fit in the "
                    f"{position.board.cell_count} cells of the board"
                )
            p = Fraction(position.mines, position.board.cell_count)
        w1, w0 = p.numerator, p.denominator - p.numerator
        known = set(self._known.values())
        if (w1 == 0 and 1 in known) or (w0 == 0 and 0 in known):
            raise self._degenerate_density(p)
        for info in self._infos:
            counts = info.counts()
            n = info.piece.cell_count
            weights = [w1**k * w0 ** (n - k) for k in range(len(counts.total))]
            norm = sum(w * t for w, t in zip(weights, counts.total, strict=False))
            if norm == 0:
                raise self._degenerate_density(p)
            _spread(out, info.piece, counts, weights, norm)
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
        polys = [_trim(info.counts().total) for info in self._infos]
        everything = [1]
        for poly in polys:
            everything = _convolve(everything, poly)
        ways = _binomials_down(d, m, len(everything) + 1)  # ways[x] = C(d, m - x)
        norm = sum(t * ways[s] for s, t in enumerate(everything) if t)
        if norm == 0:
            raise InconsistentPosition(
                f"the {self.position.mines} mines cannot all be placed consistently"
            )
        for info, poly in zip(self._infos, polys, strict=True):
            others = _divide(everything, poly)
            counts = info.counts()
            weights = []
            for kk in range(len(counts.total)):
                weights.append(
                    sum(t * ways[kk + s] for s, t in enumerate(others) if t and kk + s < len(ways))
                )
            _spread(out, info.piece, counts, weights, norm)
        if d == 0:
            return Fraction(0)
        deep_mines = sum(t * ways[s] * (m - s) for s, t in enumerate(everything) if t)
        return Fraction(deep_mines, norm * d)

    # -- witnesses ---------------------------------------------------------------------

    def witness(
        self, cell: Cell, mine: bool = True, rng: random.Random | None = None
    ) -> Layout | None:
        return _Witness(self, cell, mine, rng).build()


def _lowest(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _binom(n: int, k: int) -> int:
    return comb(n, k) if 0 <= k <= n else 0


def _trim(poly: list[int]) -> list[int]:
    """Without trailing zeros (keeps at least one coefficient)."""
    end = len(poly)
    while end > 1 and poly[end - 1] == 0:
        end -= 1
    return poly[:end]


def _divide(a: list[int], b: list[int]) -> list[int]:
    """The polynomial ``q`` with ``q * b == a`` (exact; ``b`` divides ``a``)."""
    low = next(i for i, x in enumerate(b) if x)
    bb = b[low:]
    aa = _trim(a[low:])
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


def _binomials_down(d: int, m: int, count: int) -> list[int]:
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


def _convolve(a: list[int], b: list[int]) -> list[int]:
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                if y:
                    out[i + j] += x * y
    return out


def _spread(
    out: dict[Cell, Fraction],
    piece: Piece,
    counts: PieceCounts,
    weights: Sequence[int],
    norm: int,
) -> None:
    sizes = piece.problem.sizes
    for g, cells in enumerate(piece.groups):
        mined = counts.mined[g]
        num = sum(w * x for w, x in zip(weights, mined, strict=False))
        p = Fraction(num, norm * sizes[g])
        for c in cells:
            out[c] = p


def _verdict(can_mine: bool, can_safe: bool) -> Verdict:
    if can_mine and can_safe:
        return Verdict.EITHER
    if can_mine:
        return Verdict.MINE
    if can_safe:
        return Verdict.SAFE
    raise AssertionError("a consistent position has a value for every cell")


def _raise_unsatisfiable(position: Position, piece: Piece, index: int) -> None:
    """Name a number of an unsatisfiable piece: the first whose addition breaks it."""
    cons = piece.problem.cons
    for upto in range(1, len(cons) + 1):
        sub = make_problem(piece.problem.sizes, cons[:upto])
        n = sub.n
        if Search(sub).solve([0] * n, list(sub.sizes)) is None:
            raise InconsistentPosition.unsatisfiable(position, piece.sources[upto - 1])
    raise AssertionError("piece reported unsatisfiable but every prefix is satisfiable")


# -- witness construction --------------------------------------------------------------


class _Witness:
    """Builds one full layout for ``PositionAnalysis.witness``."""

    def __init__(
        self, analysis: PositionAnalysis, cell: Cell, mine: bool, rng: random.Random | None
    ) -> None:
        self.a = analysis
        self.cell = cell
        self.mine = mine
        self.rng = rng

    def build(self) -> Layout | None:
        a = self.a
        cell, mine = self.cell, self.mine
        value = a._known.get(cell)
        target: tuple[int, int] | None = None
        if value is not None:
            if bool(value) != mine:
                return None
        else:
            target = a._where.get(cell)
            if target is None:
                a._check_covered(cell)
        deep_target = value is None and target is None
        d = a.deep_count
        d_lo = 1 if deep_target and mine else 0
        d_hi = d - 1 if deep_target and not mine else d
        if d_lo > d_hi:
            return None
        domains = [self._domains(i, target) for i in range(len(a._infos))]
        m = a.mines_left
        exact = m is not None
        if a.count is Count.COUNTED and m is None:
            raise ValueError("the counted rule needs the position's total number of mines")
        values = self._cheap(domains)
        if values is None:
            return None
        if exact and m is not None:
            total = sum(sum(v) for v in values)
            if not d_lo <= m - total <= d_hi:
                better = self._exact(domains, m, d_lo, d_hi)
                if better is not None:
                    values = better
                elif a.count is Count.COUNTED:
                    return None
                else:
                    exact = False
        total = sum(sum(v) for v in values)
        deep_mines = m - total if exact and m is not None else d_lo
        return self._layout(values, deep_mines, deep_target)

    def _domains(self, i: int, target: tuple[int, int] | None) -> tuple[list[int], list[int]]:
        sizes = self.a._infos[i].piece.problem.sizes
        lo = [0] * len(sizes)
        hi = list(sizes)
        if target is not None and target[0] == i:
            g = target[1]
            if self.mine:
                lo[g] = 1
            else:
                hi[g] = sizes[g] - 1
        return lo, hi

    def _cheap(self, domains: list[tuple[list[int], list[int]]]) -> list[list[int]] | None:
        out = []
        for i, info in enumerate(self.a._infos):
            lo, hi = domains[i]
            sol = Search(info.piece.problem).solve(lo, hi, None, None, self.rng)
            if sol is None:
                return None
            out.append(sol)
        return out

    def _exact(
        self, domains: list[tuple[list[int], list[int]]], m: int, d_lo: int, d_hi: int
    ) -> list[list[int]] | None:
        """Solutions per piece whose totals plus some deep count make exactly ``m``."""
        infos = self.a._infos
        searches = [Search(info.piece.problem) for info in infos]
        totals: list[int] = []
        for i in range(len(infos)):
            lo, hi = domains[i]
            mask = 0
            for k in range(sum(lo), sum(hi) + 1):
                if searches[i].solve(lo, hi, (k, k, None)) is not None:
                    mask |= 1 << k
            totals.append(mask)
        reach = [1]
        for mask in totals:
            reach.append(_sumset(reach[-1], mask))
        goal = reach[-1] & _interval(m - d_hi, m - d_lo)
        if not goal:
            return None
        s = _lowest(goal) if self.rng is None else self.rng.choice(list(_bits(goal)))
        picks: list[int] = [0] * len(totals)
        for i in range(len(totals) - 1, -1, -1):
            options = [k for k in _bits(totals[i]) if s - k >= 0 and (reach[i] >> (s - k)) & 1]
            k = options[0] if self.rng is None else self.rng.choice(options)
            picks[i] = k
            s -= k
        out = []
        for i in range(len(totals)):
            lo, hi = domains[i]
            sol = searches[i].solve(lo, hi, (picks[i], picks[i], None), None, self.rng)
            assert sol is not None
            out.append(sol)
        return out

    def _layout(self, values: list[list[int]], deep_mines: int, deep_target: bool) -> Layout:
        a = self.a
        mined: set[Cell] = {c for c, v in a._known.items() if v}
        rng = self.rng
        for info, sol in zip(a._infos, values, strict=True):
            for g, cells in enumerate(info.piece.groups):
                k = sol[g]
                if not k:
                    continue
                pool = list(cells)
                if self.cell in cells:
                    pool.remove(self.cell)
                    if self.mine:
                        mined.add(self.cell)
                        k -= 1
                if rng is not None:
                    mined.update(rng.sample(pool, k))
                else:
                    mined.update(pool[:k])
        if deep_mines:
            deep = [
                c
                for m in _COVERED_RE.finditer(a.position.grid)
                if (c := m.start()) not in a._known and c not in a._where
            ]
            if deep_target:
                deep.remove(self.cell)
                if self.mine:
                    mined.add(self.cell)
                    deep_mines -= 1
            if rng is not None:
                mined.update(rng.sample(deep, deep_mines))
            else:
                mined.update(deep[:deep_mines])
        return frozenset(mined)


# -- the solver ------------------------------------------------------------------------


def _check_backend(backend: str) -> None:
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}: expected one of {', '.join(BACKENDS)}")


class Solver:
    """The incremental solver used by games; caches piece results by content.

    It remembers the last position it analysed. When the next one only reveals
    cells (the normal course of a game), ``analyse`` updates the residual
    constraints around the changed cells, re-propagates from there and rebuilds
    only the pieces that changed; anything else (cells covered again, another
    board) falls back to a full build. Every ``PositionAnalysis`` it returns is an
    independent value: later calls do not change it.
    """

    def __init__(self, count: Count = Count.CLASSIC, backend: str = "search") -> None:
        _check_backend(backend)
        self.count = count
        self.backend = backend
        self._cache = _Cache()
        self._last: Position | None = None
        self._frontier: Frontier | None = None
        self._piece_of: dict[Cell, int] = {}
        self._pieces: dict[int, tuple[list[Cell], _PieceInfo]] = {}
        self._next_id = 0
        self._covered = 0

    def analyse(
        self, position: Position, changed: Iterable[Cell] | None = None
    ) -> PositionAnalysis:
        """The analysis of ``position``; ``changed``: cells that differ from the last one."""
        if self.backend == "cpsat":
            return self._analyse_cpsat(position)
        if not self._update(position, changed):
            self._rebuild(position)
        assert self._frontier is not None
        infos = [info for _, info in self._pieces.values()]
        return PositionAnalysis(
            position, self.count, dict(self._frontier.known), infos, self._covered
        )

    def _analyse_cpsat(self, position: Position) -> PositionAnalysis:
        """The cpsat backend: verdicts from ``devil.cpsat``, the rest from the search."""
        from devil import cpsat

        self._rebuild(position)
        assert self._frontier is not None
        infos = [info for _, info in self._pieces.values()]
        analysis = PositionAnalysis(
            position, self.count, dict(self._frontier.known), infos, self._covered
        )
        analysis._override = cpsat.classify(position, self.count)
        return analysis

    # -- full build --------------------------------------------------------------------

    def _rebuild(self, position: Position) -> None:
        self._last = None
        frontier = Frontier(position)
        settled = settle(position)
        if settled is not None:
            known, residual = settled
            frontier.known = known
            for s in sorted(residual):
                cells, need = residual[s]
                frontier.add(s, cells, need)
        else:
            nb = neighbour_fn(position.board)
            for s in frontier_sources(position):
                cells, need = read_number(position, s, nb)
                frontier.add(s, cells, need)
        frontier.run()
        frontier.take_dirty()
        self._frontier = frontier
        self._piece_of = {}
        self._pieces = {}
        self._register(connected_sources(sorted(frontier.cons), frontier.cons, frontier.sources_of))
        self._covered = covered_count(position)
        self._last = position

    def _register(self, comps: list[list[Cell]]) -> None:
        assert self._frontier is not None
        piece_of = self._piece_of
        for comp in comps:
            pid = self._next_id
            self._next_id += 1
            for src in comp:
                old = piece_of.get(src)
                if old is not None:  # an untouched piece merged into this one
                    self._pieces.pop(old, None)
                piece_of[src] = pid
            self._pieces[pid] = (comp, self._cache.info(comp, self._frontier))

    # -- incremental update ------------------------------------------------------------

    def _update(self, position: Position, changed: Iterable[Cell] | None) -> bool:
        """Apply the difference from the last position; False when a full build is needed."""
        last = self._last
        frontier = self._frontier
        if last is None or frontier is None or last.board != position.board:
            return False
        if changed is None:
            changed = _diff(last.grid, position.grid)
        cells = list(changed)
        if len(cells) * 4 > position.board.size:
            return False
        old, new = last.grid, position.grid
        revealed: list[Cell] = []
        for c in cells:
            a, b = old[c], new[c]
            if a == b:
                continue
            if a in _COVERED_BYTES and b in _COVERED_BYTES:
                continue  # a flag placed or removed: not a constraint
            if a in _COVERED_BYTES and _ZERO <= b <= _ZERO + 8:
                revealed.append(c)
                continue
            return False
        self._last = None  # until the update succeeds
        try:
            frontier.position = position
            for c in revealed:
                frontier.reveal(c)
            nb = neighbour_fn(position.board)
            for c in revealed:
                got, need = read_number(position, c, nb)
                if got:
                    frontier.add(c, got, need)
            frontier.run()
        except InconsistentPosition:
            return False  # the full build names the unsatisfiable number
        self._refresh_pieces(frontier.take_dirty())
        self._covered -= len(revealed)
        self._last = position
        return True

    def _refresh_pieces(self, dirty: set[Cell]) -> None:
        frontier = self._frontier
        assert frontier is not None
        starts: set[Cell] = set()
        for src in dirty:
            pid = self._piece_of.pop(src, None)
            if pid is not None and pid in self._pieces:
                comp, _ = self._pieces.pop(pid)
                starts.update(comp)
            starts.add(src)
        for src in starts:
            self._piece_of.pop(src, None)
        live = sorted(s for s in starts if s in frontier.cons)
        self._register(connected_sources(live, frontier.cons, frontier.sources_of))


_COVERED_BYTES = frozenset(b".F")
_ZERO = ord("0")
_NONZERO_RE = re.compile(b"[^\x00]")


def _diff(old: bytes, new: bytes) -> list[Cell]:
    """Cells whose byte differs (byte-wise XOR of the grids as big integers)."""
    x = int.from_bytes(old, "little") ^ int.from_bytes(new, "little")
    if not x:
        return []
    data = x.to_bytes(len(old), "little")
    return [m.start() for m in _NONZERO_RE.finditer(data)]


# -- module functions ------------------------------------------------------------------


def classify(
    position: Position, count: Count = Count.CLASSIC, backend: str = "search"
) -> Classification:
    """The verdict for every covered cell (flags are ignored).

    Raises ``InconsistentPosition`` naming an unsatisfiable number, ``ValueError`` for the
    counted rule without a mine total or an unknown backend.
    """
    _check_backend(backend)
    if backend == "cpsat":
        from devil import cpsat

        return cpsat.classify(position, count)
    return Solver(count).analyse(position).classification()


def probabilities(position: Position, count: Count = Count.CLASSIC) -> dict[Cell, float]:
    """The exact mine probability of every covered cell (see ARCHITECTURE.md)."""
    return Solver(count).analyse(position).probabilities()


def exact_probabilities(position: Position, count: Count = Count.CLASSIC) -> dict[Cell, Fraction]:
    """``probabilities`` as exact fractions."""
    return Solver(count).analyse(position).exact_probabilities()


def witness(
    position: Position,
    cell: Cell,
    mine: bool = True,
    count: Count = Count.CLASSIC,
    rng: random.Random | None = None,
) -> Layout | None:
    """A full consistent layout with ``cell`` mined (or safe); None when none exists."""
    return Solver(count).analyse(position).witness(cell, mine, rng)
