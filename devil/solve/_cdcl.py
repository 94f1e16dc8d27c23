"""Conflict-driven search for pieces where plain backtracking thrashes (2-D lattices).

Cells are boolean variables; each group of ``size`` interchangeable cells is
ordered (``x0 >= x1 >= ...``) so a group value ``a`` has exactly one cell
pattern. Constraints are cardinalities ``lo <= sum(vars) <= hi`` (a number:
``lo == hi == need``; the window on a piece's total: one constraint on every
cell). On a conflict the solver learns a clause (first unique implication point)
and jumps back, so a wrong early choice is not retried in every combination of
the choices after it. Learned clauses follow from the constraints alone, so
they are kept across calls on the same instance; calls differ by assumptions.

A guided search (``set_guide``, what ``devil.solve._ask.CdclBackbone`` asks with) starts
from a known solution and repairs it: it decides only cells of cards (numbers, the window)
whose total the guide no longer reaches given the cells set so far, and stops as soon as the
guide completes every card; the solution is the cells set plus the guide's values
elsewhere. On a geodesic sphere's dense pieces that sets about half the cells a search from
scratch does (a question changes the solution near its group only). Any decision order
keeps the search complete, so the answers stay exact; the first solution of an instance is
never guided (witnesses and the cuts start from it). A decision order can also make a
complete search exponential (a 40x40 counted lattice ran minutes instead of 0.6 s), so a
guided question gets at most ``devil.solve._ask.GUIDED_CONFLICTS`` conflicts; past them the
instance drops the guide for good and asks in the graph order, as without one (what was
learned meanwhile stays valid and is kept).

Literals: ``2 * var`` is "var is a mine", ``2 * var + 1`` "var is safe". Each cell and each
card is a small object (``_Var``, ``_Card``) whose fields the compiled loops read and write
in place: a ``list[int]`` makes mypyc box every value it stores (a new object above 256).
The cells and the cards refer to each other; the solver, which nothing refers back to,
breaks those cycles when it goes (``Cdcl.__del__``), so reference counting frees a finished
search at once instead of leaving it to the cycle collector.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, cast, final

from devil.solve._search import GroupProblem, TooHard, TotalWindow
from devil.solve.budget import current

_UNSET: Final = -1
"""An open cell's value. ``Final``, as ``_NO_REASON``: mypyc then inlines it (a module global
is a dict lookup each time it is read, in the hottest loops)."""
_NO_REASON: Final = -1
"""A cell's reason (why propagation set it) is ``2 * card`` or ``2 * clause + 1``; a decision,
an assumption or a fact has none."""


@final
class _Var:
    """One cell variable: its value (``_UNSET``, 0 safe, 1 mine) and search state."""

    __slots__ = (
        "cards",
        "group",
        "guide",
        "index",
        "level",
        "mark",
        "order_at",
        "phase",
        "reason",
        "trail_pos",
        "value",
    )

    def __init__(self, index: int, group: int, cards: list[_Card]) -> None:
        self.index = index
        self.group = group
        self.cards = cards
        """The cards counting the cell, in order (one list shared by the group's cells)."""
        self.value = _UNSET
        self.level = 0
        self.reason = _NO_REASON  # 2 * card or 2 * clause + 1 (``_card``, ``_clause``)
        self.trail_pos = 0
        self.phase = 1  # 1: try safe first
        self.mark = 0
        """The conflict (``Cdcl.stamp``) whose analysis last met the variable."""
        self.guide = 0
        """The value of the solution guiding the search (``Cdcl.set_guide``)."""
        self.order_at = 0


@final
class _Card:
    """A cardinality ``lo <= sum(cells) <= hi``, counting the cells propagation has met."""

    __slots__ = ("bad", "cells", "gap", "hi", "hi_left", "index", "lo", "room_left", "total")

    def __init__(self, index: int, cells: list[_Var], lo: int, hi: int) -> None:
        self.index = index
        self.cells = cells
        self.lo = lo
        self.hi = hi
        self.hi_left = hi
        """Mines it may still count (below 0: a conflict; 0: every open cell safe)."""
        self.room_left = len(cells) - lo
        """Safe cells it may still count (below 0: a conflict; 0: every open cell a mine)."""
        self.gap = hi - lo  # open cells: hi_left + room_left - gap
        self.total = 0
        """The guide's total over the cells, the counted cells at their values."""
        self.bad = False
        """Whether ``total`` is out of bounds (the guide no longer completes the card)."""


class Cdcl:
    """A CDCL solver over one piece, optionally restricted to a window of totals."""

    def __init__(self, problem: GroupProblem, window: TotalWindow | None = None) -> None:
        self.problem = problem
        sizes = problem.sizes
        first: list[int] = []  # first cell variable of each group
        variables: list[_Var] = []
        group_cards: list[list[_Card]] = []
        for g, size in enumerate(sizes):
            first.append(len(variables))
            cards_of: list[_Card] = []
            group_cards.append(cards_of)
            for _ in range(size):
                variables.append(_Var(len(variables), g, cards_of))
        self.first = first
        self.vars = variables
        self.n = n_vars = len(variables)
        cards: list[_Card] = []
        for groups, need in problem.cons:
            cells: list[_Var] = []
            for g in groups:
                base = first[g]
                for i in range(sizes[g]):
                    cells.append(variables[base + i])
            card = _Card(len(cards), cells, need, need)
            for g in groups:
                group_cards[g].append(card)
            cards.append(card)
        if window is not None:
            card = _Card(len(cards), list(variables), window[0], window[1])
            for cards_of in group_cards:
                cards_of.append(card)
            cards.append(card)
        self.cards = cards
        self.trail: list[_Var] = []  # the cells set, in order
        self.limits: list[int] = []  # trail length at each decision level
        self.clauses: list[list[int]] = []
        # per literal, the clauses watching it; None until one does (most never are)
        self.watches: list[list[int] | None] = [None] * (2 * n_vars)
        self.stamp = 0
        order = [variables[first[g] + i] for g in problem.order for i in range(sizes[g])]
        self.order = order
        for i, var in enumerate(order):
            var.order_at = i
        self.scan = 0
        self.head = 0
        # guided search (``guide``): a known solution's cell values (``_Var.guide``)
        self.guided = False
        self.guide_groups = [0] * len(sizes)
        """Per group the guide's value (the sum of the guide over its cells)."""
        # per group, 1 when no solution the caller (``CdclBackbone``) has seen puts a mine
        # in it / leaves a cell of it safe: guided repairs prefer to show such values
        self.unseen_mine = [0] * len(sizes)
        self.unseen_safe = [0] * len(sizes)
        self.moved: list[int] = []
        """The groups whose value in the last solution differs from the guide's then (some
        may be listed twice)."""
        self.bad_stack: list[_Card] = []
        self.conflicts = 0
        """Conflicts in every search of this instance (what the tests bound)."""
        self.ok = all(c.lo <= c.hi and c.hi >= 0 and c.lo <= len(c.cells) for c in cards)
        for g, size in enumerate(sizes):  # symmetry: x[i+1] -> x[i]
            base = first[g]
            for i in range(size - 1):
                self._add_clause([2 * (base + i + 1) + 1, 2 * (base + i)])

    def __del__(self) -> None:
        # A card's cells -> each cell's cards -> the card: empty the cards' lists so that
        # nothing is left in a cycle when the solver goes (and nothing outlives it).
        for card in self.cards:
            card.cells = []

    def set_phases(self, phases: Sequence[int]) -> None:
        """Each cell's first value (0: mine, 1: safe) when the graph order decides it."""
        for var, phase in zip(self.vars, phases, strict=True):
            var.phase = phase

    def set_phase(self, var: int, phase: int) -> None:
        self.vars[var].phase = phase

    # -- clauses ---------------------------------------------------------------------------

    def _add_clause(self, lits: list[int]) -> int:
        idx = len(self.clauses)
        self.clauses.append(lits)
        if len(lits) >= 2:
            self._watch(lits[0], idx)
            self._watch(lits[1], idx)
        return idx

    def _watch(self, lit: int, clause: object) -> None:
        """``clause`` (an index, boxed: stored as it comes) watches ``lit``."""
        watching = cast("list[list[object] | None]", self.watches)[lit]
        if watching is None:
            cast("list[list[object] | None]", self.watches)[lit] = [clause]
        else:
            watching.append(clause)

    def _lit_value(self, lit: int) -> int:
        """1 true, 0 false, -1 unset."""
        v = self.vars[lit >> 1].value
        if v == _UNSET:
            return _UNSET
        return 1 if v == (1 - (lit & 1)) else 0

    # -- assignment ------------------------------------------------------------------------

    def _assign(self, lit: int, reason: int) -> None:
        var = self.vars[lit >> 1]
        var.value = 1 - (lit & 1)
        var.level = len(self.limits)
        var.reason = reason
        var.trail_pos = len(self.trail)
        self.trail.append(var)

    def _backtrack(self, level: int) -> None:
        limits = self.limits
        if len(limits) <= level:
            return
        keep = limits[level]
        trail = self.trail
        guided, head, scan = self.guided, self.head, self.scan
        for p in range(len(trail) - 1, keep - 1, -1):
            var = trail[p]
            x = var.value
            if p < head:  # counted by _propagate: uncount it (and its stray from the guide)
                for card in var.cards:
                    if x == 1:
                        card.hi_left = card.hi_left + 1
                    else:
                        card.room_left = card.room_left + 1
                if guided and x != var.guide:
                    self._stray(var.cards, var.guide - x)
            var.phase = 1 - x  # 0: try "mine" first next time
            var.value = _UNSET
            if var.order_at < scan:
                scan = var.order_at
        self.scan = scan
        del trail[keep:]
        del limits[level:]
        self.head = min(head, keep)

    # -- propagation -----------------------------------------------------------------------

    def _propagate(self) -> int:
        """Unit propagation from ``self.head``; a conflict as a reason (``_card``,
        ``_clause``), or ``_NO_REASON``."""
        variables, trail = self.vars, self.trail
        clauses = self.clauses
        watches = cast("list[list[object] | None]", self.watches)
        guided, bad_stack = self.guided, self.bad_stack
        depth = len(self.limits)  # propagation makes no decision: every cell set is at it
        head = self.head
        while head < len(trail):
            var = trail[head]
            head += 1
            self.head = head
            x = var.value
            step = x - var.guide if guided else 0  # how far the cell strays from the guide
            # count the cell (and its stray) in each card and check the card at once: only
            # the count that moved can reach its bound; after a conflict the counting goes
            # on (backtracking uncounts every card)
            conflict = _NO_REASON
            for card in var.cards:
                if step != 0:
                    total = card.total + step
                    card.total = total
                    bad = total < card.lo or total > card.hi
                    if bad != card.bad:
                        card.bad = bad
                        if bad:
                            bad_stack.append(card)
                if x == 1:
                    left = card.hi_left - 1
                    card.hi_left = left
                else:
                    left = card.room_left - 1
                    card.room_left = left
                if left > 0 or conflict != _NO_REASON:
                    continue
                if left < 0:
                    conflict = 2 * card.index
                elif card.hi_left + card.room_left > card.gap:  # open cells: the other value
                    fill = 1 - x
                    reason = 2 * card.index
                    for w in card.cells:
                        if w.value == _UNSET:
                            w.value = fill
                            w.level = depth
                            w.reason = reason
                            w.trail_pos = len(trail)
                            trail.append(w)
            if conflict != _NO_REASON:
                return conflict
            # clauses watching the literal that just became false
            false_lit = 2 * var.index + x  # the literal just set, negated
            watching = watches[false_lit]
            if watching is None or not watching:
                continue
            i = 0
            while i < len(watching):
                ci = watching[i]
                clause = clauses[cast(int, ci)]
                boxed = cast("list[object]", clause)  # literals move without re-boxing
                if clause[0] == false_lit:
                    boxed[0], boxed[1] = boxed[1], boxed[0]
                first = clause[0]
                fv = variables[first >> 1].value
                if fv != _UNSET and fv == 1 - (first & 1):
                    i += 1
                    continue
                moved = False
                for k in range(2, len(clause)):
                    other = clause[k]
                    ov = variables[other >> 1].value
                    if ov == _UNSET or ov == 1 - (other & 1):
                        boxed[1], boxed[k] = boxed[k], boxed[1]
                        self._watch(other, ci)
                        watching[i] = watching[-1]
                        watching.pop()
                        moved = True
                        break
                if moved:
                    continue
                if fv != _UNSET:
                    return 2 * cast(int, ci) + 1
                self._assign(first, 2 * cast(int, ci) + 1)
                i += 1
        return _NO_REASON

    def _stray(self, cards: list[_Card], step: int) -> None:
        """A counted cell in ``cards`` strays from the guide by ``step`` more (or less):
        those cards may stop (or start) being completable by the guide (``_propagate`` does
        this in its own loop over the cell's cards, where it counts the cell)."""
        for card in cards:
            total = card.total + step
            card.total = total
            bad = total < card.lo or total > card.hi
            if bad != card.bad:
                card.bad = bad
                if bad:
                    self.bad_stack.append(card)

    def set_guide(self, groups: Sequence[int]) -> None:
        """Guide the next searches by a solution (group values): each search repairs it
        around its assumptions, deciding only cells of cards the guide no longer completes,
        and stops as soon as the guide completes every card (``_pick_guided``)."""
        self._backtrack(0)
        variables = self.vars
        for g, size in enumerate(self.problem.sizes):
            base = self.first[g]
            a = groups[g]
            self.guide_groups[g] = a
            for i in range(size):
                variables[base + i].guide = 1 if i < a else 0
        for card in self.cards:
            card.total = sum(w.guide for w in card.cells)
            card.bad = False
        self.bad_stack.clear()
        self.guided = True
        for p in range(self.head):
            var = self.trail[p]
            if var.value != var.guide:
                self._stray(var.cards, var.value - var.guide)

    def unguide(self) -> None:
        """Search in the graph order again (``_pick``), as before ``set_guide``."""
        self._backtrack(0)
        self.guided = False

    def _rebase(self) -> None:
        """The solution just found (the guide where cells are open) guides from now on: the
        cells set take their values (each card's ``total`` already counts them so)."""
        guide_groups = self.guide_groups
        for var in self.trail:
            x = var.value
            step = x - var.guide
            if step:
                g = var.group
                guide_groups[g] = guide_groups[g] + step
                var.guide = x

    def _explain(self, reason: int, lit: int | None) -> list[int]:
        """The false literals that, with ``reason``, force ``lit`` (or the conflict)."""
        idx = reason >> 1
        if reason & 1:
            return [x for x in self.clauses[idx] if x != lit]
        limit = self.vars[lit >> 1].trail_pos if lit is not None else len(self.trail)
        card = self.cards[idx]
        if lit is not None:
            want_mine = (lit & 1) == 1  # lit "safe" was forced by enough mines
        else:
            t = sum(1 for w in card.cells if w.value == 1 and w.trail_pos < limit)
            want_mine = t > card.hi
        out = []
        for w in card.cells:
            if w.value == _UNSET or w.trail_pos >= limit:
                continue
            if want_mine and w.value == 1:
                out.append(2 * w.index + 1)
            elif not want_mine and w.value == 0:
                out.append(2 * w.index)
        return out

    def _analyse(self, conflict: int) -> tuple[list[int], int]:
        """First-UIP learned clause and the level to jump back to."""
        variables, trail = self.vars, self.trail
        self.stamp = stamp = self.stamp + 1  # a variable is met when its mark == stamp
        learned: list[int] = []
        current = len(self.limits)
        counter = 0
        lits = self._explain(conflict, None)
        index = len(trail) - 1
        pivot: int | None = None
        while True:
            for x in lits:
                var = variables[x >> 1]
                if var.mark == stamp or var.level == 0:
                    continue
                var.mark = stamp
                if var.level == current:
                    counter += 1
                else:
                    learned.append(x)
            while trail[index].mark != stamp:
                index -= 1
            met = trail[index]
            pivot = 2 * met.index + 1 - met.value  # the literal set
            index -= 1
            counter -= 1
            if counter == 0:
                break
            assert met.reason != _NO_REASON
            lits = self._explain(met.reason, pivot)
        learned.insert(0, pivot ^ 1)
        if len(learned) == 1:
            return learned, 0
        best = 1  # the first literal of the highest level (a loop: a key function is a call)
        for k in range(2, len(learned)):
            if variables[learned[k] >> 1].level > variables[learned[best] >> 1].level:
                best = k
        learned[1], learned[best] = learned[best], learned[1]
        return learned, variables[learned[1] >> 1].level

    # -- solving ---------------------------------------------------------------------------

    def solve(
        self, assumptions: Sequence[int] = (), max_conflicts: int | None = None
    ) -> list[int] | None:
        """Group values of a solution with every assumption literal true, or None.

        Raises ``TooHard`` after ``max_conflicts`` conflicts.
        """
        self._backtrack(0)
        if not self.ok:
            return None
        conflict = self._propagate()
        if conflict != _NO_REASON:
            self.ok = False
            return None
        conflicts = 0
        restart_at = 100
        meter = current()
        while True:
            if meter is not None and meter.spend():
                self._backtrack(0)
                meter.check()
            conflict = self._propagate()
            if conflict != _NO_REASON:
                if not self.limits:
                    self.ok = False
                    return None
                if len(self.limits) <= len(assumptions):
                    self._backtrack(0)
                    return None
                conflicts += 1
                self.conflicts += 1
                if max_conflicts is not None and conflicts > max_conflicts:
                    self._backtrack(0)
                    raise TooHard
                learned, jump = self._analyse(conflict)
                self._backtrack(jump)
                if len(learned) == 1:
                    self._backtrack(0)
                    self._assign(learned[0], _NO_REASON)
                else:
                    ci = self._add_clause(learned)
                    self._assign(learned[0], 2 * ci + 1)
                if conflicts >= restart_at:
                    restart_at = int(restart_at * 1.5)
                    self._backtrack(0)
                continue
            depth = len(self.limits)
            if depth < len(assumptions):
                lit = assumptions[depth]
                val = self._lit_value(lit)
                if val == 0:
                    self._backtrack(0)
                    return None
                self.limits.append(len(self.trail))
                if val == _UNSET:
                    self._assign(lit, _NO_REASON)
                continue
            lit = self._pick_guided() if self.guided else self._pick()
            if lit < 0:
                out = self._groups()
                if self.guided:
                    self._rebase()
                self._backtrack(0)
                return out
            self.limits.append(len(self.trail))
            self._assign(lit, _NO_REASON)

    def _pick(self) -> int:
        """The first open cell in the graph order (a pointer that backtracking rewinds), to
        its saved phase; -1 when every cell is set."""
        order = self.order
        i = self.scan
        n = len(order)
        while i < n and order[i].value != _UNSET:
            i += 1
        self.scan = i
        if i == n:
            return -1
        var = order[i]
        return 2 * var.index + var.phase

    def _pick_guided(self) -> int:
        """A cell of a card the guide no longer completes, set to bring the card's total back
        towards its bounds: of the cells that can, the one whose other cards the change
        helps most (those off the same way) and harms least (those the guide completes),
        between equals one that shows a value ``unseen_mine``/``unseen_safe`` mark;
        -1 when the guide completes every card (the open cells take the guide's values: a
        solution)."""
        stack = self.bad_stack
        while stack:
            card = stack[-1]
            if not card.bad:
                stack.pop()
                continue
            over = card.total > card.hi
            want = 1 if over else 0  # the guide's value of the cells to change
            best: _Var | None = None
            best_score = -(1 << 30)
            unseen = self.unseen_mine if want == 0 else self.unseen_safe
            for w in card.cells:
                if w.value != _UNSET or w.guide != want:
                    continue
                score = 0
                for d in w.cards:
                    if d.bad:
                        if (d.total > d.hi) == over:
                            score += 1
                    else:
                        score -= 1
                score = 2 * score + unseen[w.group]  # ties: show a value not seen yet
                if score > best_score:
                    best, best_score = w, score
            if best is None:
                raise AssertionError("a card out of the guide's reach has no open cell")
            return 2 * best.index + want
        return -1

    def _groups(self) -> list[int]:
        """Group values of the assignment (open cells take the guide's values): the guide's,
        moved by the cells set (every cell set is on the trail)."""
        out = list(self.guide_groups)
        moved = self.moved
        moved.clear()
        for var in self.trail:
            step = var.value - var.guide
            if step:
                g = var.group
                out[g] = out[g] + step
                moved.append(g)
        return out

    # -- queries in group terms --------------------------------------------------------------

    def group_literal(self, group: int, mine: bool) -> int:
        """The literal "group ``group`` has a mine" (first cell) or "has a safe cell" (last)."""
        base = self.first[group]
        if mine:
            return 2 * base
        return 2 * (base + self.problem.sizes[group] - 1) + 1

    def fix(self, lit: int) -> None:
        """Make ``lit`` true for good (a proven fact)."""
        self._backtrack(0)
        if self._lit_value(lit) == 0:
            self.ok = False
        elif self._lit_value(lit) == _UNSET:
            self._assign(lit, _NO_REASON)
