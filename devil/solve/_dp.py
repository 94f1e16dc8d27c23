"""Exact dynamic programme over a path decomposition of one piece (``GroupProblem``).

The groups are placed one at a time in an order chosen to keep few constraints open
(``plan``): a breadth-first order of the constraint graph, or a sweep along the board's
rows or columns when the caller gives each group a position, whichever keeps the fewest
constraints open at once (a 2-D lattice swept along its short side keeps one band of
numbers open, a breadth-first order from a corner twice that). The programme's state is
the residual need of every open constraint, packed into one integer (``bits`` bits per
slot; a constraint keeps its slot from its first group to its last, so a step changes a
state with one addition). From the same layers come:

- ``totals``: the achievable mine totals of the piece (a bitmask);
- ``window_bounds``: per group, its lowest and highest value among the solutions whose
  total is allowed (the counted rule's verdicts);
- ``counts``: exact layout counts split by total and per group (probabilities); the
  polynomials are packed into big integers (one coefficient per ``width`` bits), so a
  shift, a sum or a product of polynomials is one big-integer operation;
- ``sample``: one solution with a given total and given domains (witnesses).

Every layer charges the running ``devil.budget`` meter with its number of states, and a
layer with more than ``limit`` states raises ``TooWide`` (the caller falls back to the
search).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from math import comb

from devil.solve._search import GroupProblem
from devil.solve.budget import Meter, current

__all__ = ["DEFAULT_LIMIT", "Plan", "TooWide", "counts", "plan", "sample", "totals"]

DEFAULT_LIMIT = 50_000
"""States per layer before ``TooWide``."""

Position2 = tuple[int, int]


class TooWide(Exception):
    """A layer of the programme has more states than its limit."""


class Step:
    """How placing one group changes a packed state."""

    __slots__ = ("add", "checks", "group", "size", "unit")

    def __init__(
        self, group: int, size: int, add: int, checks: tuple[tuple[int, int], ...], unit: int
    ) -> None:
        self.group = group
        self.size = size
        self.add = add
        """The needs of the constraints this group opens, at their slots."""
        self.checks = checks
        """Per constraint containing the group: (slot shift, capacity of its later groups)."""
        self.unit = unit
        """One at every slot of a constraint containing the group."""


class Plan:
    """The steps of the programme for one piece, in the chosen order."""

    __slots__ = ("bits", "cells", "mask", "n", "open_max", "order", "sizes", "steps")

    def __init__(self, problem: GroupProblem, order: Sequence[int]) -> None:
        sizes = problem.sizes
        cons = problem.cons
        self.n = problem.n
        self.sizes = sizes
        self.cells = sum(sizes)
        self.order = tuple(order)
        top = 0
        for _, need in cons:
            if need > top:
                top = need
        self.bits = max(top.bit_length(), 1)
        self.mask = (1 << self.bits) - 1
        last, left = spans(problem, self.order)
        slot_of = [-1] * len(cons)
        free: list[int] = []
        slots = 0
        open_now = 0
        self.open_max = 0
        steps: list[Step] = []
        for i, v in enumerate(self.order):
            add = 0
            unit = 0
            checks: list[tuple[int, int]] = []
            for c in problem.var_cons[v]:
                if slot_of[c] < 0:
                    if free:
                        slot_of[c] = free.pop()
                    else:
                        slot_of[c] = slots
                        slots += 1
                    add += cons[c][1] << (slot_of[c] * self.bits)
                    open_now += 1
                shift = slot_of[c] * self.bits
                left[c] = left[c] - sizes[v]
                checks.append((shift, left[c]))
                unit += 1 << shift
            if open_now > self.open_max:
                self.open_max = open_now
            for c in problem.var_cons[v]:
                if last[c] == i:
                    free.append(slot_of[c])
                    open_now -= 1
            free.sort(reverse=True)
            steps.append(Step(v, sizes[v], add, tuple(checks), unit))
        self.steps = steps


def spans(problem: GroupProblem, order: Sequence[int]) -> tuple[list[int], list[int]]:
    """Per constraint: the step placing its last group in ``order``, and its cells."""
    sizes = problem.sizes
    at = [0] * problem.n
    for i, v in enumerate(order):
        at[v] = i
    last: list[int] = []
    cells_of: list[int] = []
    for vs, _ in problem.cons:  # loops, not generators (mypyc compiles loops natively)
        most = -1
        cells = 0
        for v in vs:
            if at[v] > most:
                most = at[v]
            cells += sizes[v]
        last.append(most)
        cells_of.append(cells)
    return last, cells_of


def _advance(step: Step, state: int, a: int, mask: int) -> int:
    """The state after giving the group the value ``a``; -1 when a constraint breaks."""
    q = state + step.add
    for shift, rest in step.checks:
        r = ((q >> shift) & mask) - a
        if r < 0 or r > rest:
            return -1
    return q - a * step.unit


def _orders(problem: GroupProblem, where: Sequence[Position2] | None) -> list[Sequence[int]]:
    out: list[Sequence[int]] = [problem.order]
    if where is not None and len(where) == problem.n:
        rows: list[int] = []
        columns: list[int] = []
        for row, column in where:
            rows.append(row)
            columns.append(column)
        out.append(_sweep(rows, columns))
        out.append(_sweep(columns, rows))
    return out


def _sweep(major: list[int], minor: list[int]) -> list[int]:
    """The groups sorted by ``major``, then ``minor``, then index (a stable sort by the
    place): each key packed into one number, so the sort compares plain numbers and calls
    no key function."""
    n = len(major)
    if n == 0:
        return []
    low_major = major[0]
    for a in major:  # loops: the builtins min and max compare boxed numbers
        if a < low_major:
            low_major = a
    low_minor = high_minor = minor[0]
    for b in minor:
        if b < low_minor:
            low_minor = b
        elif b > high_minor:
            high_minor = b
    span = high_minor - low_minor + 1
    keys: list[int] = []
    for g in range(n):
        keys.append(((major[g] - low_major) * span + minor[g] - low_minor) * n + g)
    keys.sort()
    return [k % n for k in keys]


def open_most(problem: GroupProblem, order: Sequence[int]) -> int:
    """The most constraints open at once when the groups are placed in ``order``: the
    ``open_max`` of ``Plan(problem, order)``, without building its steps. A constraint is
    open from the step of its first group to the step of its last, both included."""
    at = [0] * problem.n
    for i, v in enumerate(order):
        at[v] = i
    change = [0] * (len(order) + 1)
    for vs, _ in problem.cons:
        if not vs:
            continue
        first = last = at[vs[0]]
        for v in vs:
            i = at[v]
            if i < first:
                first = i
            elif i > last:
                last = i
        change[first] = change[first] + 1
        change[last + 1] = change[last + 1] - 1
    most = 0
    now = 0
    for d in change:
        now += d
        if now > most:
            most = now
    return most


def _best_order(
    problem: GroupProblem, where: Sequence[Position2] | None
) -> tuple[Sequence[int], int]:
    """The order with the fewest constraints open at once (the first such order) and that
    number (``open_most``)."""
    orders = _orders(problem, where)
    best = orders[0]
    fewest = open_most(problem, best)
    for order in orders[1:]:
        got = open_most(problem, order)
        if got < fewest:
            best, fewest = order, got
    return best, fewest


def plan(problem: GroupProblem, where: Sequence[Position2] | None = None) -> Plan:
    """The plan with the fewest constraints open at once (the first such order).

    ``where``: a (row, column) per group (of one of its cells) to try board sweeps too.
    Only the chosen order's steps are built.
    """
    return Plan(problem, _best_order(problem, where)[0])


def fewest_open(problem: GroupProblem, where: Sequence[Position2] | None = None) -> int:
    """``plan(problem, where).open_max`` without building the plan (what choosing an
    engine needs: most pieces never run the programme)."""
    return _best_order(problem, where)[1]


Domains = tuple[Sequence[int], Sequence[int]]


def _values(step: Step, domains: Domains | None) -> range:
    if domains is None:
        return range(step.size + 1)
    lo, hi = domains
    return range(lo[step.group], hi[step.group] + 1)


MAX_OPEN = 16
"""Constraints open at once past which ``forward_masks`` gives up at once (``TooWide``):
each open constraint multiplies the states by its possible residual needs, so a plan
this wide (a 2-D lattice over 30 cells across) blows past any limit, only later."""


def _charge(meter: Meter | None, units: int, layer: int, limit: int) -> None:
    if meter is not None:
        meter.charge(units)
    if layer > limit:
        raise TooWide


def forward_masks(
    p: Plan, domains: Domains | None = None, limit: int = DEFAULT_LIMIT
) -> list[dict[int, int]]:
    """Per step: state after it -> bitmask of the mine counts placed so far."""
    if p.open_max > MAX_OPEN:
        raise TooWide
    meter = current()
    mask = p.mask
    layers: list[dict[int, int]] = []
    prev: dict[int, int] = {0: 1}
    for step in p.steps:
        nxt: dict[int, int] = {}
        values = _values(step, domains)
        add, unit, checks = step.add, step.unit, step.checks
        for state, got in prev.items():
            # the values ``_advance`` accepts, at once: a <= r and a >= r - rest per check
            q = state + add
            low, high = values.start, values.stop - 1
            for shift, rest in checks:
                r = (q >> shift) & mask
                if r < high:
                    high = r
                if r - rest > low:
                    low = r - rest
            q -= low * unit
            for a in range(low, high + 1):
                nxt[q] = nxt.get(q, 0) | (got << a)
                q -= unit
        _charge(meter, len(prev), len(nxt), limit)
        layers.append(nxt)
        prev = nxt
    return layers


def backward_masks(
    p: Plan, forward: list[dict[int, int]], domains: Domains | None = None
) -> list[dict[int, int]]:
    """Per step i: state after step i -> bitmask of the mine counts the rest can add."""
    meter = current()
    mask = p.mask
    n = len(p.steps)
    back: list[dict[int, int]] = [{} for _ in range(n)]
    if n == 0:
        return back
    back[n - 1] = {0: 1} if 0 in forward[n - 1] else {}
    for i in range(n - 1, 0, -1):
        step = p.steps[i]
        here = back[i]
        out: dict[int, int] = {}
        values = _values(step, domains)
        for state in forward[i - 1]:
            acc = 0
            for a in values:
                q = _advance(step, state, a, mask)
                if q >= 0:
                    got = here.get(q)
                    if got is not None:
                        acc |= got << a
            if acc:
                out[state] = acc
        if meter is not None:
            meter.charge(len(forward[i - 1]))
        back[i - 1] = out
    return back


def totals(p: Plan, limit: int = DEFAULT_LIMIT) -> int:
    """Bitmask of the achievable mine totals of the piece."""
    if not p.steps:
        return 1
    return forward_masks(p, None, limit)[-1].get(0, 0)


def _fits(rest: int, allowed: int) -> int:
    """Prefix totals x such that x + r is allowed for some r in ``rest``."""
    ok = 0
    while rest:
        low = rest & -rest
        ok |= allowed >> (low.bit_length() - 1)
        rest ^= low
    return ok


def window_bounds(p: Plan, allowed: int, limit: int = DEFAULT_LIMIT) -> tuple[list[int], list[int]]:
    """Per group: the lowest and highest value in a solution whose total is in ``allowed``.

    Groups get ``(size + 1, -1)`` when no solution fits.
    """
    forward = forward_masks(p, None, limit)
    back = backward_masks(p, forward)
    mask = p.mask
    low = [s + 1 for s in p.sizes]
    high = [-1] * p.n
    prev: dict[int, int] = {0: 1}
    for i, step in enumerate(p.steps):
        here = back[i]
        fits: dict[int, int] = {}
        v = step.group
        for state, got in prev.items():
            for a in range(step.size + 1):
                if low[v] <= a <= high[v]:
                    continue
                q = _advance(step, state, a, mask)
                if q < 0:
                    continue
                rest = here.get(q)
                if rest is None:
                    continue
                ok = fits.get(q)
                if ok is None:
                    ok = fits[q] = _fits(rest, allowed)
                if (got << a) & ok:
                    if a < low[v]:
                        low[v] = a
                    if a > high[v]:
                        high[v] = a
        prev = forward[i]
    return low, high


class Counts:
    """Exact layout counts of a piece: ``total[k]`` layouts with k mines, and per group
    ``mined[g][k]``: the mines in group g summed over those layouts."""

    __slots__ = ("mined", "total")

    def __init__(self, total: list[int], mined: list[list[int]]) -> None:
        self.total = total
        self.mined = mined


def _unpack(value: int, width: int, length: int) -> list[int]:
    field = (1 << width) - 1
    out = [0] * length
    k = 0
    while value and k < length:
        out[k] = value & field
        value >>= width
        k += 1
    return out


def _forward_counts(p: Plan, combs: list[list[int]], limit: int) -> list[dict[int, int]]:
    """Per step: state after it -> the number of layouts of the groups placed so far."""
    if p.open_max > MAX_OPEN:
        raise TooWide
    meter = current()
    mask = p.mask
    layers: list[dict[int, int]] = []
    prev: dict[int, int] = {0: 1}
    for step, ways in zip(p.steps, combs, strict=True):
        nxt: dict[int, int] = {}
        for state, got in prev.items():
            for a in range(step.size + 1):
                q = _advance(step, state, a, mask)
                if q >= 0:
                    nxt[q] = nxt.get(q, 0) + got * ways[a]
        _charge(meter, len(prev), len(nxt), limit)
        layers.append(nxt)
        prev = nxt
    return layers


def counts(p: Plan, limit: int = DEFAULT_LIMIT) -> Counts:
    """Exact counts by a backward pass (packed polynomials) and one forward pass."""
    n = p.n
    top = p.cells + 1
    if not p.steps:
        return Counts([1], [[0] for _ in range(n)])
    meter = current()
    mask = p.mask
    steps = p.steps
    combs = [[comb(s.size, a) for a in range(s.size + 1)] for s in steps]
    forward = _forward_counts(p, combs, limit)  # reachable states, and the layouts in all
    layouts = forward[n - 1].get(0, 0)
    width = (layouts * max(p.sizes)).bit_length() + 1
    """Every coefficient below counts distinct layouts of the piece (a live prefix and a
    completion make one layout), at most ``layouts``, times a group's size for the mined
    counts: ``width`` bits hold any of them, so packed products never carry over."""
    # backward: state after step i -> packed polynomial of the completions' mine counts
    back: list[dict[int, int]] = [{} for _ in range(n)]
    back[n - 1] = {0: 1} if 0 in forward[n - 1] else {}
    for i in range(n - 1, 0, -1):
        step = steps[i]
        here = back[i]
        ways = combs[i]
        out: dict[int, int] = {}
        for state in forward[i - 1]:
            acc = 0
            for a in range(step.size + 1):
                q = _advance(step, state, a, mask)
                if q >= 0:
                    got = here.get(q)
                    if got is not None:
                        acc += (got * ways[a]) << (a * width)
            if acc:
                out[state] = acc
        if meter is not None:
            meter.charge(len(forward[i - 1]))
        back[i - 1] = out
    forward.clear()
    # forward, accumulating per group the mined counts (packed) and the total
    mined_packed = [0] * n
    prev: dict[int, int] = {0: 1}
    for i, step in enumerate(steps):
        here = back[i]
        ways = combs[i]
        nxt: dict[int, int] = {}
        weighted: dict[int, int] = {}  # q -> sum of the value times the partial counts
        for state, poly in prev.items():
            for a in range(step.size + 1):
                q = _advance(step, state, a, mask)
                if q < 0 or q not in here:
                    continue
                moved = (poly * ways[a]) << (a * width)
                nxt[q] = nxt.get(q, 0) + moved
                if a:
                    weighted[q] = weighted.get(q, 0) + moved * a
        if meter is not None:
            meter.charge(len(prev))
        row = 0
        for q, part in weighted.items():
            row += part * here[q]
        mined_packed[step.group] = row
        back[i] = {}
        prev = nxt
    total = _unpack(prev.get(0, 0), width, top)
    mined = [_unpack(x, width, top) for x in mined_packed]
    return Counts(total, mined)


def sample(
    p: Plan,
    allowed: int,
    domains: Domains | None = None,
    rng: random.Random | None = None,
    limit: int = DEFAULT_LIMIT,
    forward: list[dict[int, int]] | None = None,
) -> list[int] | None:
    """Group values of one solution within ``domains`` whose total is in ``allowed``.

    None when there is none. With ``rng`` the choices are random (not uniform over
    layouts), otherwise the lowest value that can still be completed. ``forward``: the
    layers of ``forward_masks(p, domains)`` when the caller has them already.
    """
    if forward is None:
        forward = forward_masks(p, domains, limit)
    n = len(p.steps)
    if n == 0:
        return [] if allowed & 1 else None
    end = forward[-1].get(0, 0) & allowed
    if not end:
        return None
    target = (end & -end).bit_length() - 1
    if rng is not None:
        options = [k for k in range(end.bit_length()) if (end >> k) & 1]
        target = rng.choice(options)
    # walk backwards: at step i we are in state ``state`` (after step i) with ``need`` mines
    # still to come from steps 0..i
    mask = p.mask
    values = [0] * p.n
    state = 0
    need = target
    for i in range(n - 1, -1, -1):
        step = p.steps[i]
        before = forward[i - 1] if i > 0 else {0: 1}
        choices: list[tuple[int, int]] = []
        for prior, got in before.items():
            for a in _values(step, domains):
                if a > need or not (got >> (need - a)) & 1:
                    continue
                if _advance(step, prior, a, mask) == state:
                    choices.append((prior, a))
                    if rng is None:
                        break
            if choices and rng is None:
                break
        assert choices, "a reachable state has a predecessor"
        prior, a = choices[0] if rng is None else rng.choice(choices)
        values[step.group] = a
        state = prior
        need -= a
    return values
