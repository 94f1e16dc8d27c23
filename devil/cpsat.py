"""The optional OR-Tools CP-SAT backend: the same answers as ``devil.solver``, another way.

The only module that imports ``ortools`` (install it with ``mine-devil[cpsat]``).

The model (``_build``):

- one Boolean per edge cell (a covered cell touching a revealed number);
- one integer ``deep`` in ``0..D`` for how many of the ``D`` deep cells hold a mine
  (deep cells are interchangeable, so they need no variable each);
- per revealed number, ``sum(its covered neighbours) == value``; for ``unsat_core``
  each of these is enforced by its own literal, assumed true, so that an infeasible
  answer comes with the numbers responsible;
- the total ``sum(edge) + deep == mines``: hard under the counted rule; under the
  classic rule (when the position has a total) enforced by a literal that
  ``witness`` assumes first, to prefer a layout that looks like a real board;
- two literals for the deep cells, ``deep >= 1`` (some deep cell can be a mine) and
  ``deep <= D - 1`` (some deep cell can be free).

``classify`` computes the backbone with assumptions: one solve, then for each cell
not yet seen both ways, one solve assuming the opposite of what was seen. Every
solution found marks all cells it shows, so most cells need no solve of their own.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NoReturn

try:
    from ortools.sat.python import cp_model
except ImportError as exc:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        "devil.cpsat needs OR-Tools, which is not installed: install mine-devil[cpsat] "
        "(pip install 'mine-devil[cpsat]')"
    ) from exc

from devil.analysis import Classification, Layout, Verdict
from devil.board import Cell
from devil.errors import InconsistentPosition
from devil.position import Position
from devil.rules import Count

TIME_LIMIT = 30.0
"""Seconds one CP-SAT solve may take before ``CpSatTimeout``."""

WORKERS = 1
"""CP-SAT search workers per solve (the machine is shared; one is deterministic too)."""


class CpSatTimeout(RuntimeError):
    """CP-SAT reached its time limit without deciding a question."""


@dataclass
class _Model:
    """A CP-SAT model of one position, with handles to its variables."""

    model: cp_model.CpModel
    position: Position
    edge: tuple[Cell, ...]
    deep: tuple[Cell, ...]
    cell_vars: dict[Cell, cp_model.IntVar]
    deep_count: cp_model.IntVar
    deep_mined: cp_model.IntVar | None
    """Literal enforcing ``deep >= 1``; None without deep cells."""
    deep_free: cp_model.IntVar | None
    """Literal enforcing ``deep <= D - 1``; None without deep cells."""
    total_exact: cp_model.IntVar | None
    """Classic rule with a known total: literal enforcing ``sum == mines``."""
    number_lits: dict[Cell, cp_model.IntVar] = field(default_factory=dict)
    """Revealed number -> the literal enforcing it (models built ``with_sources``)."""
    sources: dict[int, Cell] = field(default_factory=dict)
    """Variable index of each number's enforcement literal -> the number's cell."""
    time_limit: float = TIME_LIMIT


def _build(
    position: Position, count: Count, with_sources: bool = False, time_limit: float = TIME_LIMIT
) -> _Model:
    """The model of ``position`` under ``count``; see the module docstring."""
    constraints = position.constraints  # raises for a number with too few covered cells
    edge = tuple(sorted(position.edge))
    deep = tuple(position.deep_cells())
    model = cp_model.CpModel()
    cell_vars = {c: model.new_bool_var(f"m{c}") for c in edge}
    deep_count = model.new_int_var(0, len(deep), "deep")
    number_lits: dict[Cell, cp_model.IntVar] = {}
    sources: dict[int, Cell] = {}
    for con in constraints:
        ct = model.add(sum(cell_vars[c] for c in con.cells) == con.mines)
        if with_sources:
            lit = model.new_bool_var(f"n{con.source}")
            ct.only_enforce_if(lit)
            number_lits[con.source] = lit
            sources[lit.index] = con.source
    total = sum(cell_vars.values()) + deep_count
    total_exact = None
    if count is Count.COUNTED:
        model.add(total == _total_mines(position))
    elif position.mines is not None:
        total_exact = model.new_bool_var("total")
        model.add(total == position.mines).only_enforce_if(total_exact)
    deep_mined = deep_free = None
    if deep:
        deep_mined = model.new_bool_var("deep_mined")
        model.add(deep_count >= 1).only_enforce_if(deep_mined)
        deep_free = model.new_bool_var("deep_free")
        model.add(deep_count <= len(deep) - 1).only_enforce_if(deep_free)
    return _Model(
        model,
        position,
        edge,
        deep,
        cell_vars,
        deep_count,
        deep_mined,
        deep_free,
        total_exact,
        number_lits,
        sources,
        time_limit,
    )


def _total_mines(position: Position) -> int:
    if position.mines is None:
        raise ValueError("the counted rule needs the position's total number of mines")
    return position.mines


def _run(m: _Model, assumptions: Sequence[cp_model.LiteralT]) -> tuple[bool, cp_model.CpSolver]:
    """Solve under ``assumptions``: whether feasible, and the solver (values or core)."""
    m.model.clear_assumptions()
    m.model.add_assumptions(assumptions)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = m.time_limit
    solver.parameters.num_workers = WORKERS
    status = solver.solve(m.model)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return True, solver
    if status == cp_model.INFEASIBLE:
        return False, solver
    raise CpSatTimeout(
        f"CP-SAT stopped with status {solver.status_name(status)} after {m.time_limit} s "
        f"on a position with {len(m.edge)} edge cells"
    )


def _solve(m: _Model, assumptions: Sequence[cp_model.LiteralT]) -> cp_model.CpSolver | None:
    """The solver holding a solution under ``assumptions``, or None when infeasible."""
    feasible, solver = _run(m, assumptions)
    return solver if feasible else None


def _literal(m: _Model, cell: Cell, mine: bool) -> cp_model.LiteralT | None:
    """The assumption meaning "``cell`` is a mine" (or free); None when nothing to assume.

    A deep cell under the classic rule can always be either, so it needs no literal.
    """
    var = m.cell_vars.get(cell)
    if var is not None:
        return var if mine else var.Not()
    if cell not in m.deep:
        r, c = m.position.board.coord(cell)
        raise ValueError(f"cell at row {r}, col {c} is not a covered cell")
    return m.deep_mined if mine else m.deep_free


def _raise_inconsistent(position: Position, time_limit: float) -> NoReturn:
    """Raise ``InconsistentPosition`` naming a number from an unsatisfiable core."""
    # The numbers alone first (classic rule): if they fit, the mine total is to blame.
    m = _build(position.with_mines(None), Count.CLASSIC, with_sources=True, time_limit=time_limit)
    core = _core(m, list(m.number_lits))
    if core:
        raise InconsistentPosition.unsatisfiable(position, min(core))
    raise InconsistentPosition(
        f"no layout satisfying the numbers leaves room for exactly {position.mines} mines "
        f"with {len(m.deep)} covered cells away from the numbers"
    )


# -- classify ----------------------------------------------------------------------------


@dataclass
class _Seen:
    """Which values each cell has taken in the solutions found so far."""

    mine: set[Cell] = field(default_factory=set)
    free: set[Cell] = field(default_factory=set)
    deep_mined: bool = False
    deep_free: bool = False

    def record(self, m: _Model, solver: cp_model.CpSolver) -> None:
        for cell, var in m.cell_vars.items():
            (self.mine if solver.boolean_value(var) else self.free).add(cell)
        deep = solver.value(m.deep_count)
        self.deep_mined |= deep >= 1
        self.deep_free |= deep <= len(m.deep) - 1


def classify(
    position: Position, count: Count = Count.CLASSIC, time_limit: float = TIME_LIMIT
) -> Classification:
    """The verdict for every covered cell (flags are ignored), by CP-SAT with assumptions.

    Raises ``InconsistentPosition`` naming an unsatisfiable number, ``CpSatTimeout`` when
    one solve takes longer than ``time_limit`` seconds.
    """
    if count is Count.COUNTED:
        position.check_total()  # first, as the search backend does
    m = _build(position, count, time_limit=time_limit)
    first = _solve(m, [])
    if first is None:
        _raise_inconsistent(position, time_limit)
    seen = _Seen()
    seen.record(m, first)
    for round_ in itertools.count():
        flips = _open_questions(m, count, seen)
        if not flips:
            break
        # "Some open question goes the other way": one literal per cell (or deep-cell
        # fact) seen only one way. Infeasible means every one of them is decided.
        ask = m.model.new_bool_var(f"ask{round_}")
        m.model.add_bool_or(flips).only_enforce_if(ask)
        solver = _solve(m, [ask])
        if solver is None:
            break
        seen.record(m, solver)
    verdicts: dict[Cell, Verdict] = {c: _verdict(c in seen.mine, c in seen.free) for c in m.edge}
    if m.deep:
        deep = (
            Verdict.EITHER if count is Count.CLASSIC else _verdict(seen.deep_mined, seen.deep_free)
        )
        verdicts.update(dict.fromkeys(m.deep, deep))
    return Classification(verdicts)


def _open_questions(m: _Model, count: Count, seen: _Seen) -> list[cp_model.LiteralT]:
    """Literals for the values not seen yet, where the other value has been seen.

    Also hints every such cell towards its unseen value, so one solution answers many.
    """
    out: list[cp_model.LiteralT] = []
    m.model.clear_hints()  # type: ignore[no-untyped-call]  # untyped in OR-Tools 9.15
    for cell, var in m.cell_vars.items():
        if cell not in seen.free:
            out.append(var.Not())
            m.model.add_hint(var, False)
        elif cell not in seen.mine:
            out.append(var)
            m.model.add_hint(var, True)
    if count is Count.COUNTED:
        if not seen.deep_mined and m.deep_mined is not None:
            out.append(m.deep_mined)
        if not seen.deep_free and m.deep_free is not None:
            out.append(m.deep_free)
    return out


def _verdict(ever_mined: bool, ever_free: bool) -> Verdict:
    if ever_mined and ever_free:
        return Verdict.EITHER
    return Verdict.MINE if ever_mined else Verdict.SAFE


# -- witness -----------------------------------------------------------------------------


def witness(
    position: Position,
    cell: Cell,
    mine: bool = True,
    count: Count = Count.CLASSIC,
    time_limit: float = TIME_LIMIT,
) -> Layout | None:
    """A full consistent layout with ``cell`` mined (``mine=True``) or free; None if none.

    Counted rule: exactly ``position.mines`` mines. Classic rule with a known total: a
    layout with exactly that many mines when one exists, else any. Raises
    ``InconsistentPosition`` when no layout fits at all, ``ValueError`` when ``cell`` is
    not covered.
    """
    m = _build(position, count, time_limit=time_limit)
    lit = _literal(m, cell, mine)
    wanted = [] if lit is None else [lit]
    solver = None
    if m.total_exact is not None:
        solver = _solve(m, [*wanted, m.total_exact])
    if solver is None:
        solver = _solve(m, wanted)
    if solver is None:
        if _solve(m, []) is None:
            _raise_inconsistent(position, time_limit)
        return None
    return _layout(m, solver, cell, mine)


def _layout(m: _Model, solver: cp_model.CpSolver, cell: Cell, mine: bool) -> Layout:
    """The solution as mined cells; deep mines go first on ``cell`` (if wanted there)."""
    mined = {c for c, var in m.cell_vars.items() if solver.boolean_value(var)}
    deep_mines = solver.value(m.deep_count)
    if cell in m.deep:
        if mine and deep_mines == 0:
            deep_mines = 1  # classic rule: the deep count is free
        order = [cell] if mine else []
        order += [c for c in m.deep if c != cell]
    else:
        order = list(m.deep)
    mined.update(order[:deep_mines])
    return frozenset(mined)


# -- unsat cores -------------------------------------------------------------------------


def unsat_core(
    position: Position,
    cell: Cell,
    value: bool,
    count: Count = Count.CLASSIC,
    minimal: bool = True,
    time_limit: float = TIME_LIMIT,
) -> list[Cell]:
    """Revealed numbers that together rule out ``cell`` being a mine (``value=True``) / free.

    The numbers' cells, sorted. With ``minimal`` (the default) no number can be left out
    (an irreducible core; not necessarily the smallest one). Under the counted rule the
    mine total is always part of the argument, so the list can be empty when the total
    alone decides. Raises ``ValueError`` when ``cell`` can take ``value``: there is
    nothing to explain.
    """
    m = _build(position, count, with_sources=True, time_limit=time_limit)
    lit = _literal(m, cell, value)
    r, c = position.board.coord(cell)
    if lit is None:
        raise ValueError(
            f"the deep cell at row {r}, col {c} can be either under the classic rule: "
            "no numbers rule it out"
        )
    m.model.add_bool_or([lit])
    core = _core(m, list(m.number_lits))
    if core is None:
        what = "a mine" if value else "free"
        raise ValueError(
            f"the cell at row {r}, col {c} can be {what}: there is no contradiction to explain"
        )
    if minimal:
        core = _shrink(m, core)
    return sorted(core)


def _core(m: _Model, numbers: Sequence[Cell]) -> list[Cell] | None:
    """Some of ``numbers`` (revealed cells) that the model cannot satisfy together.

    Only ``numbers`` are enforced; None when they can all be satisfied.
    """
    feasible, solver = _run(m, [m.number_lits[c] for c in numbers])
    if feasible:
        return None
    return [m.sources[i] for i in solver.sufficient_assumptions_for_infeasibility()]


def _shrink(m: _Model, core: list[Cell]) -> list[Cell]:
    """Deletion-based minimisation: drop each number whose absence keeps it infeasible."""
    kept = list(core)
    for number in core:
        if number not in kept:
            continue
        trial = [c for c in kept if c != number]
        smaller = _core(m, trial)
        if smaller is not None:
            kept = [c for c in trial if c in smaller]
    return kept
