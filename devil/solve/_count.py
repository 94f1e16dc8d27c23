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

from devil.solve._search import GroupProblem, Search

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


class Tally:
    """Layout counts summed over solutions added one at a time (a solution: how many mines
    each group holds)."""

    def __init__(self, sizes: tuple[int, ...]) -> None:
        self.sizes = sizes
        top = sum(sizes) + 1
        self.total: Poly = [0] * top
        self.mined: list[Poly] = [[0] * top for _ in sizes]

    def add(self, sol: list[int]) -> None:
        sizes = self.sizes
        n = len(sizes)
        weight = 1
        k = 0
        for v in range(n):
            a = sol[v]
            k += a
            if a and a != sizes[v]:
                weight *= comb(sizes[v], a)
        self.total[k] += weight
        mined = self.mined
        for v in range(n):
            a = sol[v]
            if a:
                mined[v][k] += weight * a

    def counts(self) -> PieceCounts:
        return PieceCounts(self.total, self.mined)


def count_by_search(problem: GroupProblem) -> PieceCounts:
    """Enumerate every solution (exponential; for small or awkward pieces)."""
    tally = Tally(problem.sizes)

    def on_solution(sol: list[int]) -> bool:
        tally.add(sol)
        return False

    Search(problem).solve([0] * problem.n, list(problem.sizes), on_solution=on_solution)
    return tally.counts()


# -- the dynamic programme along the group order ----------------------------------------

MAX_STATES = 4_000
"""The programme gives up (returns None) beyond this many states at one step."""

State = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class _Step:
    """How placing one group changes the state (the residual needs of open constraints)."""

    group: int
    size: int
    carry: tuple[tuple[int, int, int, int], ...]
    """Per constraint open after the step: (index in the previous state or -1, need if
    new, 1 if the group is in it else 0, capacity of its groups still to come)."""
    closing: tuple[tuple[int, int], ...]
    """Per constraint whose last group this is: (index in the previous state or -1, need)."""


def _steps(problem: GroupProblem) -> list[_Step]:
    sizes = problem.sizes
    cons = problem.cons
    order = problem.order
    n = problem.n
    at = {v: i for i, v in enumerate(order)}
    first = [min(at[v] for v in vs) for vs, _ in cons]
    last = [max(at[v] for v in vs) for vs, _ in cons]
    steps: list[_Step] = []
    prev_open: list[int] = []
    for i in range(n):
        v = order[i]
        index = {c: j for j, c in enumerate(prev_open)}
        here = set(problem.var_cons[v])
        now_open = [c for c in prev_open if last[c] != i]
        now_open += [c for c in problem.var_cons[v] if first[c] == i and last[c] != i]
        carry = []
        for c in now_open:
            rest = sum(sizes[w] for w in cons[c][0] if at[w] > i)
            carry.append((index.get(c, -1), cons[c][1], 1 if c in here else 0, rest))
        closing = tuple((index.get(c, -1), cons[c][1]) for c in here if last[c] == i)
        steps.append(_Step(v, sizes[v], tuple(carry), closing))
        prev_open = now_open
    return steps


def _advance(step: _Step, state: State, a: int) -> State | None:
    for idx, need in step.closing:
        if (state[idx] if idx >= 0 else need) != a:
            return None
    out = []
    for idx, need, dec, rest in step.carry:
        r = (state[idx] if idx >= 0 else need) - a * dec
        if r < 0 or r > rest:
            return None
        out.append(r)
    return tuple(out)


class Frontier:
    """Forward layers of reachable states of the programme (None if too wide)."""

    def __init__(self, problem: GroupProblem) -> None:
        self.problem = problem
        self.steps = _steps(problem)

    def masks(self) -> list[dict[State, int]] | None:
        """Forward: per step, state -> bitmask of achievable mine counts so far."""
        layers: list[dict[State, int]] = []
        prev: dict[State, int] = {(): 1}
        for step in self.steps:
            nxt: dict[State, int] = {}
            for state, mask in prev.items():
                for a in range(step.size + 1):
                    q = _advance(step, state, a)
                    if q is not None:
                        nxt[q] = nxt.get(q, 0) | (mask << a)
            if len(nxt) > MAX_STATES:
                return None
            layers.append(nxt)
            prev = nxt
        return layers

    def backward_masks(self, forward: list[dict[State, int]]) -> list[dict[State, int]]:
        """Per step i: state after step i -> bitmask of achievable counts of the rest."""
        n = len(self.steps)
        back: list[dict[State, int]] = [{} for _ in range(n)]
        if n == 0:
            return back
        back[n - 1] = dict.fromkeys(forward[n - 1], 1)
        for i in range(n - 1, 0, -1):
            step = self.steps[i]
            here = back[i]
            out: dict[State, int] = {}
            for p in forward[i - 1]:
                acc = 0
                for a in range(step.size + 1):
                    q = _advance(step, p, a)
                    if q is not None and q in here:
                        acc |= here[q] << a
                if acc:
                    out[p] = acc
            back[i - 1] = out
        return back


def totals_by_frontier(problem: GroupProblem) -> int | None:
    """Bitmask of the achievable mine totals of a piece; None if the programme is too wide."""
    if problem.n == 0:
        return 1
    layers = Frontier(problem).masks()
    if layers is None:
        return None
    return layers[-1].get((), 0)


def window_bounds_by_frontier(
    problem: GroupProblem, allowed: int
) -> tuple[list[int], list[int]] | None:
    """Per group: the lowest and highest value in a solution whose total is in ``allowed``.

    None if the programme is too wide. Groups get ``(size + 1, -1)`` when no solution fits.
    """
    fr = Frontier(problem)
    forward = fr.masks()
    if forward is None:
        return None
    back = fr.backward_masks(forward)
    sizes = problem.sizes
    low = [s + 1 for s in sizes]
    high = [-1] * len(sizes)
    prev: dict[State, int] = {(): 1}
    for i, step in enumerate(fr.steps):
        here = back[i]
        fits: dict[State, int] = {}  # q -> prefix counts x with x + (some rest) in allowed
        v = step.group
        for p, mask in prev.items():
            for a in range(step.size + 1):
                q = _advance(step, p, a)
                if q is None or q not in here:
                    continue
                if low[v] <= a <= high[v]:
                    continue
                ok = fits.get(q)
                if ok is None:
                    ok = 0
                    rest = here[q]
                    while rest:
                        lowbit = rest & -rest
                        ok |= allowed >> (lowbit.bit_length() - 1)
                        rest ^= lowbit
                    fits[q] = ok
                if (mask << a) & ok:
                    low[v] = min(low[v], a)
                    high[v] = max(high[v], a)
        prev = forward[i]
    return low, high


def count_by_frontier(problem: GroupProblem) -> PieceCounts | None:
    """Exact counts by the forward-backward programme; None if too wide."""
    sizes = problem.sizes
    n = problem.n
    top = sum(sizes) + 1
    if n == 0:
        return PieceCounts([1], [])
    fr = Frontier(problem)
    steps = fr.steps
    forward: list[dict[State, Poly]] = []
    prev: dict[State, Poly] = {(): [1]}
    for step in steps:
        nxt: dict[State, Poly] = {}
        for state, poly in prev.items():
            for a in range(step.size + 1):
                q = _advance(step, state, a)
                if q is not None:
                    acc = nxt.get(q)
                    if acc is None:
                        acc = nxt[q] = []
                    _add_into(acc, poly, a, comb(step.size, a))
        if len(nxt) > MAX_STATES:
            return None
        forward.append(nxt)
        prev = nxt
    back: list[dict[State, Poly]] = [{} for _ in range(n)]
    back[n - 1] = {key: [1] for key in forward[n - 1]}
    for i in range(n - 1, 0, -1):
        step = steps[i]
        here_b = back[i]
        out: dict[State, Poly] = {}
        for p in forward[i - 1]:
            acc = []
            for a in range(step.size + 1):
                q = _advance(step, p, a)
                if q is not None and q in here_b:
                    _add_into(acc, here_b[q], a, comb(step.size, a))
            if acc:
                out[p] = acc
        back[i - 1] = out
    total = [0] * top
    for k, x in enumerate(forward[n - 1].get((), [])):
        total[k] = x
    mined = [[0] * top for _ in range(n)]
    prev = {(): [1]}
    for i, step in enumerate(steps):
        here_b = back[i]
        row = mined[step.group]
        for p, poly in prev.items():
            for a in range(1, step.size + 1):
                q = _advance(step, p, a)
                if q is None or q not in here_b:
                    continue
                factor = a * comb(step.size, a)
                rest = here_b[q]
                for x, fx in enumerate(poly):
                    if not fx:
                        continue
                    base = x + a
                    for y, by in enumerate(rest):
                        if by:
                            row[base + y] += fx * by * factor
        prev = forward[i]
    return PieceCounts(total, mined)
