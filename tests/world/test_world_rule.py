"""The world devil rule against the brute-force oracle, its witnesses, and its locality."""

from __future__ import annotations

from unittest.mock import patch

import pytest
from hypothesis import given
from hypothesis import strategies as st

from devil.world import (
    MemoryKnowledge,
    OutOfWorld,
    WindowTooLarge,
    Witness,
    judge_flag,
    judge_reveal,
)
from devil.world.component import InconsistentKnowledge
from devil.world.rule import WorldVerdict
from tests.helpers.strategies import profile
from tests.world.worlds import (
    XY,
    Scene,
    answer,
    around,
    component,
    numbers,
    oracle,
    scenes,
)


def clicks(scene: Scene) -> list[XY]:
    """Every cell of the scene and a ring just outside it (deep cells)."""
    xs = range(scene.x0 - 1, scene.x0 + scene.width + 1)
    ys = range(scene.y0 - 1, scene.y0 + scene.height + 1)
    return [(x, y) for y in ys for x in xs if abs(x) <= 2**62 and abs(y) <= 2**62]


@profile()
@given(scenes())
def test_reveal_and_flag_agree_with_the_oracle(scene: Scene) -> None:
    agree_with_oracle(scene)


@profile()
@given(scenes())
def test_proofs_from_the_nearest_numbers_agree_with_the_oracle(scene: Scene) -> None:
    """With tiny stages most clicks are first tried on one or three numbers only."""
    with patch("devil.world.rule.STAGES", (1, 3, None)):
        agree_with_oracle(scene)


def agree_with_oracle(scene: Scene) -> None:
    symbols = scene.symbols()
    table = oracle(symbols)
    for x, y in clicks(scene):
        truth = answer(symbols, table, (x, y))
        reveal = judge_reveal(scene.knowledge, scene.board, x, y)
        flag = judge_flag(scene.knowledge, scene.board, x, y)
        assert reveal.proved == (not truth.can_mine), (x, y)
        assert flag.proved == (not truth.can_safe), (x, y)
        assert (reveal.witness is None) == reveal.proved
        assert (flag.witness is None) == flag.proved


def check_witness(
    symbols: dict[XY, str], click: XY, witness: Witness, mine: bool, side: int | None = None
) -> None:
    """The witness is a consistent layout of the click's component (see ``Witness``);
    ``side``: the crop in force (every component number is then checked only when its
    neighbourhood lies inside the rows), None: no crop, every one must be inside."""
    assert witness.covers(*click)
    mines = witness.mines()
    assert (click in mines) == mine
    comp = component(symbols, click)
    nums = numbers(symbols)
    for c in comp:
        inside = all(witness.covers(*n) for n in [c, *around(*c)])
        assert inside or side is not None, c
        if inside:
            assert sum(1 for n in around(*c) if n in mines) == nums[c], c
    allowed = {u for c in comp for u in around(*c) if symbols.get(u, ".") in ".F"}
    for m in mines:
        assert symbols.get(m, ".") in ".F", f"witness mine on known safe cell {m}"
        assert m == click or m in allowed, f"witness mine {m} outside the component"
    if side is not None:
        assert witness.width <= side and witness.height <= side


@profile()
@given(scenes())
def test_witnesses_are_consistent_layouts(scene: Scene) -> None:
    symbols = scene.symbols()
    for x, y in clicks(scene):
        for judge, mine in ((judge_reveal, True), (judge_flag, False)):
            got = judge(scene.knowledge, scene.board, x, y)
            if got.witness is not None:
                check_witness(symbols, (x, y), got.witness, mine)


@profile()
@given(scenes(), st.integers(1, 4))
def test_witnesses_are_cropped_around_the_click(scene: Scene, side: int) -> None:
    symbols = scene.symbols()
    with patch("devil.world.rule.WITNESS_SIDE", side):
        for x, y in clicks(scene):
            for judge, mine in ((judge_reveal, True), (judge_flag, False)):
                got = judge(scene.knowledge, scene.board, x, y)
                if got.witness is not None:
                    check_witness(symbols, (x, y), got.witness, mine, side)


@profile()
@given(scenes(), st.data())
def test_other_boards_and_their_numbers_do_not_leak(scene: Scene, data: st.DataObject) -> None:
    """Only board i's numbers and the flags matter: a copy without the other boards'
    numbers gives the same verdicts."""
    bare = MemoryKnowledge()
    for c, n in scene.knowledge.numbers.get(scene.board, {}).items():
        bare.reveal(scene.board, *c, n)
    for c, colour in scene.knowledge.flags.items():
        bare.flag(colour, *c)
    x, y = data.draw(st.sampled_from(clicks(scene)))
    for judge in (judge_reveal, judge_flag):
        a = judge(scene.knowledge, scene.board, x, y)
        b = judge(bare, scene.board, x, y)
        assert a == b


class Fenced:
    """Knowledge that raises when asked about a cell far from the allowed ones."""

    def __init__(self, inner: MemoryKnowledge, near: set[XY], reach: int = 2):
        self.inner = inner
        self.near = near
        self.reach = reach
        self.asked = 0

    def symbol(self, colour: int, x: int, y: int) -> str:
        self.asked += 1
        if not any(max(abs(x - a), abs(y - b)) <= self.reach for a, b in self.near):
            raise AssertionError(f"asked about ({x}, {y}), far from the component")
        return self.inner.symbol(colour, x, y)


@profile()
@given(scenes())
def test_judgement_reads_only_around_the_component(scene: Scene) -> None:
    """Besides the scene, the team knows a big block 50 cells away; the judgement never
    reads it (nor anything more than two cells from the click's component)."""
    far_x = scene.x0 - 60 if scene.x0 > 0 else scene.x0 + 60
    for i in range(30):
        for j in range(30):
            scene.knowledge.reveal(scene.board, far_x + i, scene.y0 + j, 0)
    symbols = scene.symbols()
    for x, y in clicks(scene):
        near = {(x, y), *component(symbols, (x, y))}
        fenced = Fenced(scene.knowledge, near)
        judge_reveal(fenced, scene.board, x, y)
        judge_flag(fenced, scene.board, x, y)


def test_cost_does_not_depend_on_known_cells_elsewhere() -> None:
    """The same click reads the same cells whether the team knows 0 or 40,000 other cells."""
    k = MemoryKnowledge()
    k.reveal(0, 0, 0, 1)
    counts = []
    for extra in (0, 200):
        for i in range(extra):
            for j in range(extra):
                k.reveal(0, 1000 + i, j, 0)
        fenced = Fenced(k, {(0, 0), (1, 1)}, reach=10**9)
        assert not judge_reveal(fenced, 0, 1, 1).proved
        counts.append(fenced.asked)
    assert counts[0] == counts[1]


def test_a_one_in_a_corner_proves_the_last_cell() -> None:
    """``1`` at (0,0) with every neighbour known safe but (1,1): (1,1) is a mine."""
    k = MemoryKnowledge()
    k.reveal(0, 0, 0, 1)
    for c in [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1)]:
        k.flag(1, *c)
    assert judge_flag(k, 0, 1, 1).proved
    verdict = judge_reveal(k, 0, 1, 1)
    assert not verdict.proved and verdict.witness is not None
    assert verdict.witness.mines() == {(1, 1)}
    assert not judge_flag(k, 1, 1, 1).proved  # board 1 knows nothing of it


def test_flags_of_another_colour_are_safe_and_own_flags_are_mines() -> None:
    k = MemoryKnowledge()
    k.flag(2, 5, 5)
    k.flag(0, 6, 6)
    assert judge_reveal(k, 0, 5, 5) == WorldVerdict(True, None)
    assert judge_flag(k, 0, 6, 6) == WorldVerdict(True, None)
    reveal_mine = judge_reveal(k, 0, 6, 6)
    assert not reveal_mine.proved and reveal_mine.witness is not None
    assert reveal_mine.witness.mines() == {(6, 6)}
    flag_safe = judge_flag(k, 0, 5, 5)
    assert not flag_safe.proved and flag_safe.witness is not None
    assert flag_safe.witness.mines() == frozenset()


def test_deep_cells_are_never_proved() -> None:
    k = MemoryKnowledge()
    for judge in (judge_reveal, judge_flag):
        got = judge(k, 0, 10**18, -(10**18))
        assert not got.proved
        assert got.witness == Witness(10**18, -(10**18), ("*" if judge is judge_reveal else ".",))


@pytest.mark.parametrize("x, y", [(2**62 + 1, 0), (0, -(2**62) - 1), (2**63, 2**63)])
def test_cells_beyond_the_world_are_rejected(x: int, y: int) -> None:
    with pytest.raises(OutOfWorld) as err:
        judge_reveal(MemoryKnowledge(), 0, x, y)
    assert (err.value.x, err.value.y) == (x, y)
    assert "2**62" in str(err.value)


def test_cells_on_the_world_edge_have_fewer_neighbours() -> None:
    """A 1 in the world's corner has three neighbours; two known safe prove the third."""
    edge = 2**62
    k = MemoryKnowledge()
    k.reveal(0, edge, edge, 1)
    k.flag(1, edge - 1, edge)
    k.flag(1, edge, edge - 1)
    assert judge_flag(k, 0, edge - 1, edge - 1).proved


def test_inconsistent_knowledge_names_the_number() -> None:
    k = MemoryKnowledge()
    k.reveal(0, 3, 4, 2)
    for c in around(3, 4)[:7]:
        k.flag(1, *c)
    with pytest.raises(InconsistentKnowledge) as err:
        judge_reveal(k, 0, 4, 5)
    assert err.value.cell == (3, 4)
    assert "(3, 4)" in str(err.value)


def test_a_component_too_big_for_the_solver_is_refused_by_name() -> None:
    """A diagonal chain of 1s 2,100 cells long is one component spanning over MAX_CELLS
    cells; a click next to its start cannot be proved from the nearest numbers."""
    k = MemoryKnowledge()
    for i in range(0, 2100, 2):
        k.reveal(0, i, i, 1)
    with pytest.raises(WindowTooLarge, match="spans 2101x2101 cells from \\(-1, -1\\)"):
        judge_reveal(k, 0, 1, 0)


def test_proofs_read_only_near_the_click_on_a_long_frontier() -> None:
    """A 5,000-number chain (one component): under it known safe cells, above it unknown
    ones, mines above every x = 2 (mod 3); the 0 at its start settles everything by
    propagation. Proofs near the start read a few hundred cells; a devil error (whose
    witness needs every number) reads the whole chain."""
    n = 5_000
    k = MemoryKnowledge()
    for x in range(-1, n + 1):
        k.flag(1, x, 1)
    k.flag(1, -1, 0)
    k.flag(1, -1, -1)
    for x in range(n):
        k.reveal(0, x, 0, sum(1 for c in (x - 1, x, x + 1) if c >= 0 and c % 3 == 2))
    assert k.symbol(0, 0, 0) == "0"
    for judge, x, proved in ((judge_reveal, 1, True), (judge_flag, 2, True), (judge_flag, 8, True)):
        fenced = Fenced(k, {(0, 0)}, reach=10**9)
        got = judge(fenced, 0, x, -1)
        assert got.proved == proved and got.numbers <= 32
        assert fenced.asked < 600
    fenced = Fenced(k, {(0, 0)}, reach=10**9)
    devil = judge_reveal(fenced, 0, 8, -1)
    assert not devil.proved and devil.numbers == n
    assert fenced.asked > 3 * n
