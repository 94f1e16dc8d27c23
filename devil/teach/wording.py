"""The English of proofs and deduction steps: how cells, numbers and reasoning are named.

Pure wording over the logic of ``devil.teach.bounds``: ``explain`` turns a set of bounds that
forces a cell into sentences (one number, the subset and overlap rules, else a proof by
contradiction with cases), ``explain_counted`` does the same when the total count is
needed, ``explain_either`` for a cell that could be either. Cells are named as
``Position.where`` names them (``row 4, col 7``, zero-based).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from devil.analysis import Layout
from devil.board import Cell
from devil.position import Position
from devil.teach.bounds import Bound, Totals, count_mask, inside_outside, mask_counts

__all__ = [
    "at",
    "cell_list",
    "covered_around",
    "explain",
    "explain_counted",
    "explain_either",
    "layout_rows",
    "number_name",
    "sentence",
]


def layout_rows(position: Position, layout: Layout) -> list[str]:
    """The position's rows with ``*`` a mine and ``.`` a covered cell without one."""
    grid = bytearray(position.grid)
    for cell in position.covered_cells():
        grid[cell] = ord("*") if cell in layout else ord(".")
    text = grid.decode("ascii")
    w = position.board.width
    return [text[i : i + w] for i in range(0, len(text), w)]


def at(position: Position, cell: Cell) -> str:
    """``row 4, col 7``: how proofs name a cell (``Position.where``: zero-based, as
    ``devil-check --cell 4,7`` and the JSON API count)."""
    return position.where(cell)


def cell_list(position: Position, cells: Iterable[Cell], parens: bool = False) -> str:
    """``row 1, col 2`` for one cell; ``(row 1, col 2), (row 1, col 3) and (row 2, col 3)``
    for several, each in brackets so the commas inside a name cannot be misread. ``parens``
    brackets a single name too (for a list set off by commas in a sentence). Names without a
    comma (a graph board's ``cell k55``) need no brackets: ``cell k55, cell k65 and cell t75``."""
    names = [at(position, c) for c in sorted(cells)]
    if len(names) == 1 and not parens:
        return names[0]
    if any("," in n for n in names):
        names = [f"({n})" for n in names]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def number_name(position: Position, bound: Bound) -> str:
    """``the 2 at row 4, col 6``."""
    assert bound.source is not None
    return f"the {bound.value} at {at(position, bound.source)}"


def sentence(text: str) -> str:
    """``text`` with its first letter capitalised and nothing else touched (``str.capitalize``
    would lower the rest: a graph cell labelled ``Delta`` would read ``delta``)."""
    return text[:1].upper() + text[1:]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _mines_phrase(n: int) -> str:
    return "no mine" if n == 0 else "one mine" if n == 1 else f"{n} mines"


def _shared_mines(position: Position, shared: frozenset[Cell], at_least: int) -> str:
    """``both row 2, col 6 and row 3, col 7 are mines`` when every shared cell must be one,
    else ``at least one mine lies in ...`` / ``at least 2 mines lie in ...``."""
    cells = cell_list(position, shared)
    if at_least == len(shared):
        if at_least == 1:
            return f"{cells} is a mine"
        return f"{'both' if at_least == 2 else 'all of'} {cells} are mines"
    verb = "lies" if at_least == 1 else "lie"
    return f"at least {_mines_phrase(at_least)} {verb} in {cells}"


def _needs(bound: Bound, position: Position | None = None) -> str:
    """``needs one mine`` or, when some are known, ``needs one more mine besides the one at
    row 2, col 3``."""
    if bound.known:
        if position is not None and bound.known_at:
            where = cell_list(position, bound.known_at)
            besides = f"the one at {where}" if bound.known == 1 else f"those at {where}"
        else:
            besides = _mines_phrase(bound.known) + " already found"
        more = "no more mines" if bound.exact == 0 else f"{_mines_phrase(bound.exact)} more"
        return f"needs {more} besides {besides}"
    return f"needs {_mines_phrase(bound.exact)}"


def _other_cells(position: Position, cells: Iterable[Cell], mine: bool) -> str:
    """``its other cell, (row 1, col 1), is safe`` / ``its other cells, (row 1, col 1) and
    (row 1, col 2), are mines``."""
    listed = sorted(cells)
    names = cell_list(position, listed, parens=True)
    if len(listed) == 1:
        return f"its other cell, {names}, is {'a mine' if mine else 'safe'}"
    return f"its other cells, {names}, are {'all mines' if mine else 'safe'}"


def explain(position: Position, cell: Cell, mine: bool, bounds: Sequence[Bound]) -> list[str]:
    """Readable steps showing that ``bounds`` alone force ``cell`` (a mine when ``mine``)."""
    target = at(position, cell)
    verdict = "a mine" if mine else "safe"
    if len(bounds) == 1:
        return _explain_single(position, cell, mine, bounds[0])
    if len(bounds) == 2:
        pair = _explain_pair(position, cell, mine, bounds[0], bounds[1])
        if pair is not None:
            return pair
    out = _explain_by_contradiction(position, cell, mine, bounds)
    out.append(f"So {target} is {verdict}.")
    return out


def covered_around(position: Position, sources: Iterable[Cell]) -> frozenset[Cell]:
    """The covered cells (flagged or not) next to any of ``sources``."""
    board = position.board
    return frozenset(n for s in sources for n in board.neighbours(s) if position.is_covered(n))


def _open_word(position: Position, bounds: Sequence[Bound]) -> str:
    """``covered`` when ``bounds`` hold every covered cell their numbers touch, else
    ``undecided`` (some were taken out as known mines or cells shown safe)."""
    sources = [r.source for r in bounds if r.source is not None]
    cells = frozenset(c for r in bounds for c in r.cells)
    return "covered" if cells == covered_around(position, sources) else "undecided"


def _explain_single(position: Position, cell: Cell, mine: bool, bound: Bound) -> list[str]:
    name = number_name(position, bound)
    covered = cell_list(position, bound.cells, parens=True)
    target = at(position, cell)
    n = len(bound.cells)
    word = _open_word(position, [bound])
    if mine:
        if n == 1:
            return [
                f"{sentence(name)} touches 1 {word} cell, {covered}, and "
                f"{_needs(bound, position)} there, so {target} is a mine."
            ]
        return [
            f"{sentence(name)} touches {_plural(n, word + ' cell')}, {covered}, and "
            f"{_needs(bound, position)} among them, so all of them are mines: {target} is a mine."
        ]
    if n == 1:
        return [
            f"{sentence(name)} {_needs(bound, position)} on its one {word} cell, {covered}, "
            f"so {target} is safe."
        ]
    return [
        f"{sentence(name)} {_needs(bound, position)} among its {n} {word} cells, {covered}, "
        f"so all of them are safe: {target} is safe."
    ]


def _explain_pair(
    position: Position, cell: Cell, mine: bool, a: Bound, b: Bound
) -> list[str] | None:
    """The subset rule and the overlap rule in words, or None to fall back to cases."""
    target = at(position, cell)
    verdict = "a mine" if mine else "safe"
    for small, big in ((a, b), (b, a)):
        if small.cells <= big.cells and cell in big.cells - small.cells:
            rest = big.cells - small.cells
            left = big.exact - small.exact
            still = "" if _open_word(position, [small]) == "covered" else " still undecided"
            first = (
                f"{sentence(number_name(position, small))} touches only "
                f"{cell_list(position, small.cells)}{still} and {_needs(small, position)} there"
            )
            big_name = number_name(position, big)
            those = "that cell" if len(small.cells) == 1 else "those"
            if left == 0:
                second = f"{big_name} touches {those} too and {_needs(big, position)}, so " + (
                    f"{cell_list(position, rest)} {'is' if len(rest) == 1 else 'are'} safe"
                )
            elif left == len(rest):
                second = f"{big_name} touches {those} too and {_needs(big, position)}, so " + (
                    f"its last mine must be at {cell_list(position, rest)}"
                    if left == 1
                    else f"its other {left} mines must be at {cell_list(position, rest)}"
                )
            else:
                second = (
                    f"{big_name} touches {those} too and {_needs(big, position)}, so "
                    f"{cell_list(position, rest)} hold {_mines_phrase(left)}"
                )
            if rest == {cell} and left in (0, len(rest)):  # the second clause says it already
                return [f"{first}; {second}."]
            return [f"{first}; {second}.", f"So {target} is {verdict}."]
    for one, other in ((a, b), (b, a)):
        if cell not in other.cells - one.cells:
            continue
        shared = one.cells & other.cells
        only_one = one.cells - other.cells
        only_other = other.cells - one.cells
        # mines the first number must put in the shared cells
        at_least = one.exact - len(only_one)
        at_most = min(one.exact, len(shared))
        if mine and other.exact - at_most == len(only_other) and at_most >= 0:
            return [
                f"{sentence(number_name(position, one))} {_needs(one, position)} and can put "
                f"at most {_mines_phrase(at_most)} in the cells it shares with "
                f"{number_name(position, other)}, {cell_list(position, shared)}.",
                f"{sentence(number_name(position, other))} {_needs(other, position)}, so "
                f"{_other_cells(position, only_other, True)}.",
                f"So {target} is {verdict}.",
            ]
        if not mine and at_least > 0 and other.exact - at_least == 0:
            return [
                f"{sentence(number_name(position, one))} {_needs(one, position)} but has only "
                f"{_plural(len(only_one), 'cell')} outside the cells it shares with "
                f"{number_name(position, other)}, so {_shared_mines(position, shared, at_least)}.",
                f"That already satisfies {number_name(position, other)}, so "
                f"{_other_cells(position, only_other, False)}.",
                f"So {target} is {verdict}.",
            ]
    return None


def _explain_by_contradiction(
    position: Position, cell: Cell, mine: bool, bounds: Sequence[Bound], depth: int = 0
) -> list[str]:
    """Suppose the opposite, follow what the numbers force, reach an impossibility."""
    target = at(position, cell)
    opposite = "safe" if mine else "a mine"
    lines = [f"Suppose {target} were {opposite}."]
    lines.extend(_trace(position, bounds, {cell: not mine}, depth))
    return lines


def _trace(
    position: Position, bounds: Sequence[Bound], fixed: dict[Cell, bool], depth: int
) -> list[str]:
    """Follow what ``fixed`` forces, in words, until a number breaks; split cases if stuck."""
    known = dict(fixed)
    lines: list[str] = []
    changed = True
    while changed:
        changed = False
        for bound in bounds:
            unknown = [c for c in bound.cells if c not in known]
            mines = sum(1 for c in bound.cells if known.get(c) is True)
            if mines > bound.hi or mines + len(unknown) < bound.lo:
                lines.append(_broken(position, bound, mines, len(unknown)))
                return lines
            if not unknown:
                continue
            if mines == bound.hi:
                for c in unknown:
                    known[c] = False
                lines.append(_forced(position, bound, unknown, mine=False))
                changed = True
            elif mines + len(unknown) == bound.lo:
                for c in unknown:
                    known[c] = True
                lines.append(_forced(position, bound, unknown, mine=True))
                changed = True
    # stuck: split on an undecided cell shared by most bounds
    undecided = [c for r in bounds for c in r.cells if c not in known]
    if not undecided or depth >= 2:
        cells = {c for r in bounds for c in r.cells}
        word = _open_word(position, bounds)
        lines.append(
            f"Trying every way to place mines on the {len(cells)} {word} cells these numbers "
            "touch shows none fits them all."
        )
        return lines
    pivot = max(sorted(set(undecided)), key=undecided.count)
    for value in (True, False):
        lines.append(f"Case: {at(position, pivot)} is {'a mine' if value else 'safe'}.")
        sub = _trace(position, bounds, {**known, pivot: value}, depth + 1)
        lines.extend("  " + s for s in sub)
    lines.append("Both cases are impossible.")
    return lines


def _forced(position: Position, bound: Bound, cells: Sequence[Cell], mine: bool) -> str:
    where = cell_list(position, cells)
    if bound.source is None:
        return f"Then the mine count makes {where} {'mines' if mine else 'safe'}."
    name = number_name(position, bound)
    if mine:
        return f"Then {name} needs {where} to be {'a mine' if len(cells) == 1 else 'mines'}."
    return f"Then {name} is satisfied, so {where} {'is' if len(cells) == 1 else 'are'} safe."


def _broken(position: Position, bound: Bound, mines: int, unknown: int) -> str:
    if bound.source is None:
        return "But then the total number of mines cannot be right: impossible."
    name = number_name(position, bound)
    if mines > bound.hi:
        return f"But then {name} would have too many mines around it: impossible."
    return f"But then {name} could not get enough mines: impossible."


def explain_either(position: Position, cell: Cell) -> list[str]:
    """Why ``cell`` could be either (the proof shows a layout of each kind)."""
    name, the_cell = at(position, cell), sentence(position.the_cell(cell))
    steps = [
        f"{the_cell} could be either: one layout fits every number with a mine on {name}, "
        f"another fits them all with {name} safe.",
    ]
    if cell not in position.edge:
        steps.append(f"{the_cell} touches no revealed number, so no number says anything about it.")
    return steps


def explain_counted(
    position: Position, cell: Cell, mine: bool, bounds: Sequence[Bound], totals: Totals
) -> list[str]:
    """Why the numbers plus the total count force ``cell``."""
    target = at(position, cell)
    inside, outside = inside_outside(totals, bounds, cell)
    touched = frozenset(c for r in bounds for c in r.cells)
    counts = mask_counts(count_mask(bounds, {cell: not mine}))
    opposite = "safe" if mine else "a mine"
    verdict = "a mine" if mine else "safe"
    total = totals.mines
    low = max(0, total - outside)
    shown = " or ".join(str(k) for k in counts[:8]) + (" ..." if len(counts) > 8 else "")
    left = "" if total == position.mines else " left to find"
    lines = [
        f"The numbers alone allow {target} to be either; the total of "
        f"{_plural(total, 'mine')}{left} decides."
    ]
    allowed = "only " + (f"{shown} mines" if counts != [1] else "1 mine")
    if bounds:
        names = ", ".join(number_name(position, r) for r in bounds[:6])
        if len(bounds) > 6:
            names += f" and {len(bounds) - 6} more"
        word = _open_word(position, bounds) + " cell"
        if len(bounds) == 1:
            nearby = f"the number nearby ({names}) allows"
            they = "it touches"
        else:
            nearby = f"the numbers nearby ({names}) allow"
            they = "they touch"
        where = (
            f"among the {_plural(len(touched), word)} {they}, {target} included"
            if cell in touched
            else f"among the {_plural(len(touched), word)} {they} and {target} itself"
        )
        lines.append(f"If {target} were {opposite}, {nearby} {allowed} {where}.")
    else:
        lines.append(f"If {target} were {opposite}, it would hold {allowed}.")
    if outside:
        lines.append(
            f"The other {_plural(outside, 'covered cell')} hold at most {outside}, so those "
            f"{_plural(inside, 'cell')} must hold between {low} and {total}: "
            "none of the allowed totals fits."
        )
    else:
        lines.append(
            f"No other covered cell is left, so they must hold exactly {total}: "
            "none of the allowed totals fits."
        )
    lines.append(f"So {target} is {verdict}.")
    return lines
