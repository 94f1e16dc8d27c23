"""Small worlds for the world engine's tests, and an independent brute-force oracle.

A ``Scene`` is a true colouring of a small rectangle of the world plus a team's knowledge
drawn from it (so the knowledge is consistent by construction): revealed cells of several
boards with their true numbers, and flags naming their true colour.

The oracle reads only the scene's symbols for one board and enumerates, with
``itertools.product``, every colour-``i`` mine set over the unknown cells that touch a
revealed number, keeping those that satisfy every number (flags of colour ``i`` count
as mines, every other known cell as safe). It shares no code with ``devil.world`` or
``devil.solver``: its neighbour function is written out here.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field

from hypothesis import assume
from hypothesis import strategies as st

from devil.world.knowledge import MemoryKnowledge
from devil.world.rule import Witness

XY = tuple[int, int]
LIMIT = 2**62
MAX_EDGE = 13
"""Most unknown cells next to numbers a scene may have (the oracle tries 2**edge sets)."""


def around(x: int, y: int) -> list[XY]:
    """The cells touching (x, y) inside the world, written independently of the engine."""
    out = []
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if (dx or dy) and abs(x + dx) <= LIMIT and abs(y + dy) <= LIMIT:
                out.append((x + dx, y + dy))
    return out


@dataclass
class Scene:
    colours: int
    board: int
    """The colour under test (the player's colour)."""
    x0: int
    y0: int
    width: int
    height: int
    truth: dict[XY, int]
    knowledge: MemoryKnowledge = field(default_factory=MemoryKnowledge)

    def cells(self) -> list[XY]:
        return sorted(self.truth)

    def colour(self, x: int, y: int) -> int:
        return self.truth[x, y]

    def symbols(self) -> dict[XY, str]:
        """Every known cell of board ``board`` (symbols other than ``.``)."""
        out = {}
        for xy in self.truth:
            s = self.knowledge.symbol(self.board, *xy)
            if s != ".":
                out[xy] = s
        return out


@st.composite
def scenes(draw: st.DrawFn, max_side: int = 7, max_edge: int = MAX_EDGE) -> Scene:
    colours = draw(st.integers(2, 4))
    board = draw(st.integers(0, colours - 1))
    width = draw(st.integers(4, max_side))
    height = draw(st.integers(4, max_side))
    x0 = draw(st.sampled_from([0, -3, 1000, -(10**12), LIMIT - width + 1]))
    y0 = draw(st.sampled_from([0, 5, -1000, 10**15, -LIMIT]))
    cells = [(x0 + i, y0 + j) for j in range(height) for i in range(width)]
    truth = dict(
        zip(
            cells,
            draw(st.lists(st.integers(0, colours - 1), min_size=len(cells), max_size=len(cells))),
            strict=True,
        )
    )
    scene = Scene(colours, board, x0, y0, width, height, truth)
    inner = [c for c in cells if all(n in truth for n in around(*c))]
    rnd = draw(st.randoms(use_true_random=False))
    density = draw(st.sampled_from([0.4, 0.7, 0.9, 1.0]))
    for b in {board, draw(st.integers(0, colours - 1))}:
        for c in inner:
            if truth[c] != b and rnd.random() < density:
                scene.knowledge.reveal(b, *c, sum(1 for n in around(*c) if truth[n] == b))
    flags = draw(st.sampled_from([0.0, 0.2, 0.5]))
    for c in cells:
        if rnd.random() < flags and c not in scene.knowledge.numbers.get(truth[c], {}):
            scene.knowledge.flag(truth[c], *c)
    assume(len(edge(scene.symbols())) <= max_edge)
    return scene


def numbers(symbols: dict[XY, str]) -> dict[XY, int]:
    return {c: int(s) for c, s in symbols.items() if s.isdigit()}


def edge(symbols: dict[XY, str]) -> list[XY]:
    """Unknown cells touching a revealed number."""
    out = {n for c in numbers(symbols) for n in around(*c) if n not in symbols}
    return sorted(out)


def layouts(symbols: dict[XY, str]) -> Iterator[frozenset[XY]]:
    """Every set of colour-``i`` mines among the edge cells that satisfies every number."""
    nums = numbers(symbols)
    cells = edge(symbols)
    for bits in itertools.product((0, 1), repeat=len(cells)):
        mines = {c for c, b in zip(cells, bits, strict=True) if b}
        if all(
            sum(1 for n in around(*c) if n in mines or symbols.get(n) == "F") == v
            for c, v in nums.items()
        ):
            yield frozenset(mines)


@dataclass(frozen=True)
class Answer:
    can_mine: bool
    can_safe: bool


def oracle(symbols: dict[XY, str]) -> dict[XY, Answer]:
    """For each edge cell whether some consistent layout mines it / leaves it safe.

    Cells not in the result are decided without enumeration: ``F`` always a mine, other
    known cells always safe, unknown cells off the edge free (classic rule).
    """
    cells = edge(symbols)
    mined: set[XY] = set()
    safe: set[XY] = set()
    for layout in layouts(symbols):
        mined.update(layout)
        safe.update(c for c in cells if c not in layout)
    return {c: Answer(c in mined, c in safe) for c in cells}


def answer(symbols: dict[XY, str], table: dict[XY, Answer], cell: XY) -> Answer:
    if cell in table:
        return table[cell]
    s = symbols.get(cell, ".")
    if s == ".":
        return Answer(True, True)
    return Answer(s == "F", s != "F")


def component(symbols: dict[XY, str], click: XY) -> set[XY]:
    """The numbers linked to the click through shared unknown cells (by definition)."""
    nums = numbers(symbols)
    todo = [n for n in around(*click) if n in nums]
    seen = set(todo)
    while todo:
        c = todo.pop()
        for u in around(*c):
            if u in symbols:
                continue
            for m in around(*u):
                if m in nums and m not in seen:
                    seen.add(m)
                    todo.append(m)
    return seen


def clicks(scene: Scene) -> list[XY]:
    """Every cell of the scene and a ring just outside it (deep cells)."""
    xs = range(scene.x0 - 1, scene.x0 + scene.width + 1)
    ys = range(scene.y0 - 1, scene.y0 + scene.height + 1)
    return [(x, y) for y in ys for x in xs if abs(x) <= 2**62 and abs(y) <= 2**62]


def check_witness(
    symbols: dict[XY, str], click: XY, witness: Witness, mine: bool, side: int | None = None
) -> None:
    """The witness is a consistent layout of the click's component and of every number
    it is drawn over (see ``Witness``); ``side``: the crop in force (every component number
    is then checked only when its neighbourhood lies inside the rows), None: no crop,
    every component number must be inside."""
    assert witness.covers(*click)
    mines = witness.mines()
    assert (click in mines) == mine
    nums = numbers(symbols)
    for c in component(symbols, click):
        inside = all(witness.covers(*n) for n in [c, *around(*c)])
        assert inside or side is not None, c
    check_drawn_numbers(symbols, witness)
    for m in mines:
        assert symbols.get(m, ".") in ".F", f"witness mine on known safe cell {m}"
        assert m == click or symbols.get(m) == "F" or any(n in nums for n in around(*m)), m
    if side is not None:
        assert witness.width <= side and witness.height <= side


def check_drawn_numbers(symbols: dict[XY, str], witness: Witness) -> None:
    """Every number of the board whose neighbours all lie in the witness's rows sees
    exactly its value in mines there, and every known mine in the rows is drawn: a
    player checking any number under the drawing finds it satisfied (issue 18, item 4)."""
    mines = witness.mines()
    for c, value in numbers(symbols).items():
        if all(witness.covers(*n) for n in [c, *around(*c)]):
            assert sum(1 for n in around(*c) if n in mines) == value, c
    for c, s in symbols.items():
        if s == "F" and witness.covers(*c):
            assert c in mines, c
        elif s != "F":
            assert c not in mines, c
