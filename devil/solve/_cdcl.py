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

Literals: ``2 * var`` is "var is a mine", ``2 * var + 1`` "var is safe".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from devil.solve._search import GroupProblem, TooHard, TotalWindow
from devil.solve.budget import current

_UNSET: Final = -1
"""An open cell's value. ``Final``, as ``_NO_REASON``: mypyc then inlines it (a module global
is a dict lookup each time it is read, in the hottest loops)."""
_NO_REASON: Final = -1
"""A cell's reason (why propagation set it) is ``2 * card`` or ``2 * clause + 1``; a decision,
an assumption or a fact has none."""


class Cdcl:
    """A CDCL solver over one piece, optionally restricted to a window of totals."""

    def __init__(self, problem: GroupProblem, window: TotalWindow | None = None) -> None:
        self.problem = problem
        sizes = problem.sizes
        first: list[int] = []  # first cell variable of each group
        group_of: list[int] = []  # the group of each cell variable
        n_vars = 0
        for g, size in enumerate(sizes):
            first.append(n_vars)
            n_vars += size
            for _ in range(size):
                group_of.append(g)
        self.first = first
        self.group_of = group_of
        self.n = n_vars
        card_vars: list[list[int]] = []
        card_lo: list[int] = []
        card_hi: list[int] = []
        for groups, need in problem.cons:
            card_vars.append([first[g] + i for g in groups for i in range(sizes[g])])
            card_lo.append(need)
            card_hi.append(need)
        if window is not None:
            card_vars.append(list(range(n_vars)))
            card_lo.append(window[0])
            card_hi.append(window[1])
        self.card_vars = card_vars
        self.card_lo = card_lo
        self.card_hi = card_hi
        self.card_size = [len(vs) for vs in card_vars]
        self.card_room = [len(card_vars[c]) - card_lo[c] for c in range(len(card_vars))]
        var_cards: list[list[int]] = [[] for _ in range(n_vars)]
        for ci, vs in enumerate(card_vars):
            for v in vs:
                var_cards[v].append(ci)
        self.var_cards = var_cards
        n_cards = len(card_vars)
        self.value = [_UNSET] * n_vars
        self.level = [0] * n_vars
        self.reason = [_NO_REASON] * n_vars  # 2 * card or 2 * clause + 1 (``_card``, ``_clause``)
        self.trail_pos = [0] * n_vars
        # the cells set, in order: cells, not literals (Python allocates no int up to 256)
        self.trail: list[int] = []
        self.limits: list[int] = []  # trail length at each decision level
        self.n_true = [0] * n_cards
        self.n_false = [0] * n_cards
        self.epoch = 0
        """Backtracks so far: a cell set stays set until the next one."""
        self.filled = [-1] * n_cards
        """Per card, the ``epoch`` in which propagation last set all its open cells: until
        the next backtrack none is open, and scanning it again would set nothing."""
        self.clauses: list[list[int]] = []
        # per literal, the clauses watching it; None until one does (most never are)
        self.watches: list[list[int] | None] = [None] * (2 * n_vars)
        self.phase = [1] * n_vars  # 1: try safe first
        self.mark = [0] * n_vars
        """Per variable, the conflict (``stamp``) whose analysis last met it."""
        self.stamp = 0
        order = [first[g] + i for g in problem.order for i in range(sizes[g])]
        self.order = order
        order_at = [0] * n_vars
        for i, var in enumerate(order):
            order_at[var] = i
        self.order_at = order_at
        self.scan = 0
        self.head = 0
        # guided search (``guide``): a known solution's cell values; per card the sum of
        # the guide over its cells and how far the counted cells stray from it
        self.guided = False
        self.guide = [0] * n_vars
        self.guide_groups = [0] * len(sizes)
        """Per group the guide's value (the sum of ``guide`` over its cells)."""
        # per group, 1 when no solution the caller (``CdclBackbone``) has seen puts a mine
        # in it / leaves a cell of it safe: guided repairs prefer to show such values
        self.unseen_mine = [0] * len(sizes)
        self.unseen_safe = [0] * len(sizes)
        self.moved: list[int] = []
        """The groups whose value in the last solution differs from the guide's then (some
        may be listed twice)."""
        self.guide_sum = [0] * n_cards
        self.excess = [0] * n_cards
        self.is_bad = [False] * n_cards
        self.bad_stack: list[int] = []
        self.conflicts = 0
        """Conflicts in every search of this instance (what the tests bound)."""
        self.ok = all(
            lo <= hi and hi >= 0 and lo <= len(vs)
            for vs, lo, hi in zip(self.card_vars, self.card_lo, self.card_hi, strict=True)
        )
        for g, size in enumerate(sizes):  # symmetry: x[i+1] -> x[i]
            base = first[g]
            for i in range(size - 1):
                self._add_clause([2 * (base + i + 1) + 1, 2 * (base + i)])

    # -- clauses ---------------------------------------------------------------------------

    def _add_clause(self, lits: list[int]) -> int:
        idx = len(self.clauses)
        self.clauses.append(lits)
        if len(lits) >= 2:
            self._watch(lits[0], idx)
            self._watch(lits[1], idx)
        return idx

    def _watch(self, lit: int, clause: int) -> None:
        watching = self.watches[lit]
        if watching is None:
            self.watches[lit] = [clause]
        else:
            watching.append(clause)

    def _lit_value(self, lit: int) -> int:
        """1 true, 0 false, -1 unset."""
        v = self.value[lit >> 1]
        if v == _UNSET:
            return _UNSET
        return 1 if v == (1 - (lit & 1)) else 0

    # -- assignment ------------------------------------------------------------------------

    def _assign(self, lit: int, reason: int) -> None:
        var = lit >> 1
        self.value[var] = 1 - (lit & 1)
        self.level[var] = len(self.limits)
        self.reason[var] = reason
        self.trail_pos[var] = len(self.trail)
        self.trail.append(var)

    def _backtrack(self, level: int) -> None:
        if len(self.limits) <= level:
            return
        keep = self.limits[level]
        value = self.value
        n_true, n_false = self.n_true, self.n_false
        var_cards, trail = self.var_cards, self.trail
        guided, guide, phase = self.guided, self.guide, self.phase
        order_at, head, scan = self.order_at, self.head, self.scan
        for p in range(len(trail) - 1, keep - 1, -1):
            var = trail[p]
            x = value[var]
            if p < head:  # counted by _propagate
                if x == 1:
                    for c in var_cards[var]:
                        n_true[c] = n_true[c] - 1
                else:
                    for c in var_cards[var]:
                        n_false[c] = n_false[c] - 1
                if guided and x != guide[var]:
                    self._stray(var_cards[var], guide[var] - x)
            phase[var] = 1 - x  # 0: try "mine" first next time
            value[var] = _UNSET
            at = order_at[var]
            if at < scan:
                scan = at
        self.scan = scan
        del trail[keep:]
        del self.limits[level:]
        self.head = min(head, keep)
        self.epoch = self.epoch + 1

    # -- propagation -----------------------------------------------------------------------

    def _propagate(self) -> int:
        """Unit propagation from ``self.head``; a conflict as a reason (``_card``,
        ``_clause``), or ``_NO_REASON``."""
        value = self.value
        level, reason, trail_pos = self.level, self.reason, self.trail_pos
        n_true, n_false = self.n_true, self.n_false
        card_vars, card_lo, card_hi = self.card_vars, self.card_lo, self.card_hi
        card_size, card_room = self.card_size, self.card_room
        var_cards, trail = self.var_cards, self.trail
        clauses, watches = self.clauses, self.watches
        guided, guide = self.guided, self.guide
        excess, guide_sum, is_bad = self.excess, self.guide_sum, self.is_bad
        bad_stack, filled, epoch = self.bad_stack, self.filled, self.epoch
        depth = len(self.limits)  # propagation makes no decision: every cell set is at it
        head = self.head
        while head < len(trail):
            var = trail[head]
            head += 1
            self.head = head
            x = value[var]
            step = x - guide[var] if guided else 0  # how far the cell strays from the guide
            # count the cell (and its stray: ``_stray``) in each card and check the card at
            # once; after a conflict the counting goes on (backtracking uncounts every card)
            conflict = _NO_REASON
            for c in var_cards[var]:
                if x == 1:
                    t = n_true[c] + 1
                    n_true[c] = t
                    f = n_false[c]
                else:
                    t = n_true[c]
                    f = n_false[c] + 1
                    n_false[c] = f
                hi = card_hi[c]
                if step != 0:
                    e = excess[c] + step
                    excess[c] = e
                    total = guide_sum[c] + e
                    bad = total < card_lo[c] or total > hi
                    if bad != is_bad[c]:
                        is_bad[c] = bad
                        if bad:
                            bad_stack.append(c)
                if conflict != _NO_REASON:
                    continue
                room = card_room[c]
                if t > hi or f > room:
                    conflict = 2 * c
                    continue
                if filled[c] != epoch and t + f < card_size[c]:
                    if t == hi:  # every open cell safe
                        for w in card_vars[c]:
                            if value[w] == _UNSET:
                                value[w] = 0
                                level[w] = depth
                                reason[w] = 2 * c
                                trail_pos[w] = len(trail)
                                trail.append(w)
                        filled[c] = epoch
                    elif f == room:  # every open cell a mine
                        for w in card_vars[c]:
                            if value[w] == _UNSET:
                                value[w] = 1
                                level[w] = depth
                                reason[w] = 2 * c
                                trail_pos[w] = len(trail)
                                trail.append(w)
                        filled[c] = epoch
            if conflict != _NO_REASON:
                return conflict
            # clauses watching the literal that just became false
            false_lit = 2 * var + x  # the literal just set, negated
            watching = watches[false_lit]
            if watching is None or not watching:
                continue
            i = 0
            while i < len(watching):
                ci = watching[i]
                clause = clauses[ci]
                if clause[0] == false_lit:
                    clause[0], clause[1] = clause[1], clause[0]
                first = clause[0]
                fv = value[first >> 1]
                if fv != _UNSET and fv == 1 - (first & 1):
                    i += 1
                    continue
                moved = False
                for k in range(2, len(clause)):
                    other = clause[k]
                    ov = value[other >> 1]
                    if ov == _UNSET or ov == 1 - (other & 1):
                        clause[1], clause[k] = other, clause[1]
                        self._watch(other, ci)
                        watching[i] = watching[-1]
                        watching.pop()
                        moved = True
                        break
                if moved:
                    continue
                if fv != _UNSET:
                    return 2 * ci + 1
                self._assign(first, 2 * ci + 1)
                i += 1
        return _NO_REASON

    def _stray(self, cards: list[int], step: int) -> None:
        """A counted cell in ``cards`` strays from the guide by ``step`` more (or less):
        those cards may stop (or start) being completable by the guide (``_propagate``
        does this in its own loop over the cell's cards)."""
        excess, guide_sum, is_bad = self.excess, self.guide_sum, self.is_bad
        card_lo, card_hi = self.card_lo, self.card_hi
        for c in cards:
            e = excess[c] + step
            excess[c] = e
            total = guide_sum[c] + e
            bad = total < card_lo[c] or total > card_hi[c]
            if bad != is_bad[c]:
                is_bad[c] = bad
                if bad:
                    self.bad_stack.append(c)

    def set_guide(self, groups: Sequence[int]) -> None:
        """Guide the next searches by a solution (group values): each search repairs it
        around its assumptions, deciding only cells of cards the guide no longer completes,
        and stops as soon as the guide completes every card (``_pick_guided``)."""
        self._backtrack(0)
        guide = self.guide
        for g, size in enumerate(self.problem.sizes):
            base = self.first[g]
            a = groups[g]
            self.guide_groups[g] = a
            for i in range(size):
                guide[base + i] = 1 if i < a else 0
        value, card_vars = self.value, self.card_vars
        for c, vs in enumerate(card_vars):
            self.guide_sum[c] = sum(guide[v] for v in vs)
            self.excess[c] = 0
            self.is_bad[c] = False
        self.bad_stack.clear()
        self.guided = True
        for p in range(self.head):
            var = self.trail[p]
            if value[var] != guide[var]:
                self._stray(self.var_cards[var], value[var] - guide[var])

    def unguide(self) -> None:
        """Search in the graph order again (``_pick``), as before ``set_guide``."""
        self._backtrack(0)
        self.guided = False

    def _rebase(self) -> None:
        """The solution just found (the guide where cells are open) guides from now on: the
        cells set take their values, and each card's guided sum moves by its excess."""
        guide, value = self.guide, self.value
        guide_groups, group_of = self.guide_groups, self.group_of
        excess, guide_sum = self.excess, self.guide_sum
        var_cards = self.var_cards
        for var in self.trail:
            x = value[var]
            step = x - guide[var]
            if step:
                g = group_of[var]
                guide_groups[g] = guide_groups[g] + step
                guide[var] = x
            # only the cards of cells set (and counted: every one, at a solution) stray
            for c in var_cards[var]:
                e = excess[c]
                if e:
                    guide_sum[c] = guide_sum[c] + e
                    excess[c] = 0

    def _explain(self, reason: int, lit: int | None) -> list[int]:
        """The false literals that, with ``reason``, force ``lit`` (or the conflict)."""
        idx = reason >> 1
        if reason & 1:
            return [x for x in self.clauses[idx] if x != lit]
        value = self.value
        limit = self.trail_pos[lit >> 1] if lit is not None else len(self.trail)
        pos = self.trail_pos
        vars_ = self.card_vars[idx]
        if lit is not None:
            want_mine = (lit & 1) == 1  # lit "safe" was forced by enough mines
        else:
            t = sum(1 for w in vars_ if value[w] == 1 and pos[w] < limit)
            want_mine = t > self.card_hi[idx]
        out = []
        for w in vars_:
            if value[w] == _UNSET or pos[w] >= limit:
                continue
            if want_mine and value[w] == 1:
                out.append(2 * w + 1)
            elif not want_mine and value[w] == 0:
                out.append(2 * w)
        return out

    def _analyse(self, conflict: int) -> tuple[list[int], int]:
        """First-UIP learned clause and the level to jump back to."""
        mark = self.mark
        self.stamp = stamp = self.stamp + 1  # a variable is met when mark[var] == stamp
        learned: list[int] = []
        current = len(self.limits)
        counter = 0
        lits = self._explain(conflict, None)
        index = len(self.trail) - 1
        pivot: int | None = None
        while True:
            for x in lits:
                var = x >> 1
                if mark[var] == stamp or self.level[var] == 0:
                    continue
                mark[var] = stamp
                if self.level[var] == current:
                    counter += 1
                else:
                    learned.append(x)
            while mark[self.trail[index]] != stamp:
                index -= 1
            var = self.trail[index]
            pivot = 2 * var + 1 - self.value[var]  # the literal set
            index -= 1
            counter -= 1
            if counter == 0:
                break
            reason = self.reason[pivot >> 1]
            assert reason != _NO_REASON
            lits = self._explain(reason, pivot)
        learned.insert(0, pivot ^ 1)
        if len(learned) == 1:
            return learned, 0
        level = self.level
        best = 1  # the first literal of the highest level (a loop: a key function is a call)
        for k in range(2, len(learned)):
            if level[learned[k] >> 1] > level[learned[best] >> 1]:
                best = k
        learned[1], learned[best] = learned[best], learned[1]
        return learned, level[learned[1] >> 1]

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
        value = self.value
        order = self.order
        i = self.scan
        n = len(order)
        while i < n and value[order[i]] != _UNSET:
            i += 1
        self.scan = i
        if i == n:
            return -1
        var = order[i]
        return 2 * var + self.phase[var]

    def _pick_guided(self) -> int:
        """A cell of a card the guide no longer completes, set to bring the card's total back
        towards its bounds: of the cells that can, the one whose other cards the change
        helps most (those off the same way) and harms least (those the guide completes),
        between equals one that shows a value ``unseen_mine``/``unseen_safe`` mark;
        -1 when the guide completes every card (the open cells take the guide's values: a
        solution)."""
        stack, is_bad, value, guide = self.bad_stack, self.is_bad, self.value, self.guide
        excess, guide_sum, card_hi = self.excess, self.guide_sum, self.card_hi
        var_cards, group_of = self.var_cards, self.group_of
        while stack:
            c = stack[-1]
            if not is_bad[c]:
                stack.pop()
                continue
            over = guide_sum[c] + excess[c] > card_hi[c]
            want = 1 if over else 0  # the guide's value of the cells to change
            best = -1
            best_score = -(1 << 30)
            unseen = self.unseen_mine if want == 0 else self.unseen_safe
            for w in self.card_vars[c]:
                if value[w] != _UNSET or guide[w] != want:
                    continue
                score = 0
                for d in var_cards[w]:
                    if is_bad[d]:
                        if (guide_sum[d] + excess[d] > card_hi[d]) == over:
                            score += 1
                    else:
                        score -= 1
                score = 2 * score + unseen[group_of[w]]  # ties: show a value not seen yet
                if score > best_score:
                    best, best_score = w, score
            if best < 0:
                raise AssertionError("a card out of the guide's reach has no open cell")
            return 2 * best + want
        return -1

    def _groups(self) -> list[int]:
        """Group values of the assignment (open cells take the guide's values): the guide's,
        moved by the cells set (every cell set is on the trail)."""
        value, guide, group_of = self.value, self.guide, self.group_of
        out = list(self.guide_groups)
        moved = self.moved
        moved.clear()
        for var in self.trail:
            step = value[var] - guide[var]
            if step:
                g = group_of[var]
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
