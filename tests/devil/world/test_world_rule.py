"""The world devil rule against the brute-force oracle, its witnesses, and its locality."""

from __future__ import annotations

from unittest.mock import patch

import pytest
from hypothesis import given
from hypothesis import strategies as st

from devil.world import (
    Colouring,
    MemoryKnowledge,
    OutOfWorld,
    Witness,
    drop,
    judge_flag,
    judge_reveal,
)
from devil.world.component import InconsistentKnowledge
from devil.world.rule import WINDOW_RADIUS, WorldVerdict
from tests.helpers.strategies import profile
from tests.helpers.worlds import (
    XY,
    Scene,
    answer,
    around,
    check_witness,
    clicks,
    component,
    oracle,
    scenes,
)


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
    """Knowledge that raises when asked about a cell far from the allowed ones (or, with
    ``record``, notes it in ``far``)."""

    def __init__(self, inner: MemoryKnowledge, near: set[XY], reach: int = 2, record: bool = False):
        self.inner = inner
        self.near = near
        self.reach = reach
        self.record = record
        self.asked = 0
        self.far: set[XY] = set()

    def symbol(self, colour: int, x: int, y: int) -> str:
        self.asked += 1
        if not any(max(abs(x - a), abs(y - b)) <= self.reach for a, b in self.near):
            if not self.record:
                raise AssertionError(f"asked about ({x}, {y}), far from the component")
            self.far.add((x, y))
        return self.inner.symbol(colour, x, y)


@profile()
@given(scenes())
def test_judgement_reads_only_around_the_component(scene: Scene) -> None:
    """Besides the scene, the team knows a big block 50 cells away; the judgement never
    reads it: a proof reads nothing more than two cells from the click's component, a
    devil error also the witness's rows and the cells next to them (to draw the other
    numbers there)."""
    far_x = scene.x0 - 60 if scene.x0 > 0 else scene.x0 + 60
    for i in range(30):
        for j in range(30):
            scene.knowledge.reveal(scene.board, far_x + i, scene.y0 + j, 0)
    symbols = scene.symbols()
    for x, y in clicks(scene):
        near = {(x, y), *component(symbols, (x, y))}
        for judge in (judge_reveal, judge_flag):
            fenced = Fenced(scene.knowledge, near, record=True)
            got = judge(fenced, scene.board, x, y)
            w = got.witness
            if w is None:
                assert not fenced.far
                continue
            for a, b in fenced.far:
                assert w.x0 - 1 <= a <= w.x0 + w.width and w.y0 - 1 <= b <= w.y0 + w.height


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


def test_a_number_next_to_the_click_settles_it_without_the_solver() -> None:
    """A 1 with its mine flagged proves its other neighbours safe, a 2 with two unknown
    neighbours proves both mines: no window is built, no solver runs; a click no single
    number settles still goes to the solver and gets the same verdicts as before."""
    k = MemoryKnowledge()
    k.reveal(0, 0, 0, 1)
    k.flag(0, -1, -1)
    k.reveal(0, 10, 0, 2)
    for c in around(10, 0)[2:]:
        k.flag(1, *c)
    with patch("devil.world.rule.analyse", side_effect=AssertionError("the solver ran")):
        assert judge_reveal(k, 0, 1, 1).proved
        assert judge_flag(k, 0, 9, -1).proved and judge_flag(k, 0, 10, -1).proved
    devil = judge_reveal(k, 0, 9, -1)  # the devil's: a witness, from the solver
    assert devil.witness is not None and (9, -1) in devil.witness.mines()


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


def test_a_component_beyond_the_window_is_undecided_not_a_devil_error() -> None:
    """A diagonal chain of 1s 2,100 cells long is one component spanning over MAX_CELLS
    cells (it was refused whole); a click next to its start cannot be proved from the
    numbers within the window, and no witness of the whole chain is sought: undecided,
    after reading only the window."""
    k = MemoryKnowledge()
    for i in range(0, 2100, 2):
        k.reveal(0, i, i, 1)
    fenced = Fenced(k, {(1, 0)}, reach=WINDOW_RADIUS + 2)
    got = judge_reveal(fenced, 0, 1, 0)
    assert not got.proved and got.witness is None and not got.devil
    assert got.undecided is not None and "beyond 32 cells" in got.undecided
    assert got.numbers <= WINDOW_RADIUS // 2 + 1
    assert fenced.asked < 40 * WINDOW_RADIUS


def test_proofs_read_only_near_the_click_on_a_long_frontier() -> None:
    """A 5,000-number chain (one component): under it known safe cells, above it unknown
    ones, mines above every x = 2 (mod 3); the 0 at its start settles everything by
    propagation. Proofs near the start read a few hundred cells; a guess reads the window
    only."""
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
    fenced = Fenced(k, {(8, -1)}, reach=WINDOW_RADIUS + 2)
    guess = judge_reveal(fenced, 0, 8, -1)
    # the numbers in reach make it a mine, so every layout of the whole chain does: a devil
    # error, shown by the click alone (a witness of the chain would need every number)
    assert guess.devil and guess.witness == Witness(8, -1, ("*",))
    assert guess.numbers == 8 + WINDOW_RADIUS + 1 and fenced.asked < 20 * WINDOW_RADIUS


def test_a_witness_on_the_world_edge_places_no_mine_beyond_it() -> None:
    """A 4 on the top edge has five neighbours: the witness mines four of them (the
    rectangle drawn around it never reaches beyond the edge for the missing ones)."""
    top = -(2**62)
    k = MemoryKnowledge()
    k.reveal(0, 1, top, 4)
    k.reveal(0, 4, top, 4)  # another island inside the drawn rectangle
    got = judge_reveal(k, 0, 0, top)
    assert got.witness is not None and got.witness.y0 == top
    symbols = {(1, top): "4", (4, top): "4"}
    check_witness(symbols, (0, top), got.witness, True)
    assert len(got.witness.mines() & set(around(1, top))) == 4


@pytest.mark.parametrize("seed", range(3))
def test_witnesses_over_nearby_islands_satisfy_their_numbers(seed: int) -> None:
    """Issue 18, item 4's probe: six drops near each other, then unprovable reveals on
    the frontier. The old rule's witnesses drew over a nearby island's numbers and left
    their mines out (64 of 272 there; 144 of 235 witnesses of these three seeds); every
    number under a witness must now be satisfied."""
    colouring = Colouring(bytes([seed]) * 32, "probe", 6)
    k = MemoryKnowledge()
    for i in range(6):
        got = drop(k, colouring.colour, 0, 12 * (i % 3), 12 * (i // 3))
        k.apply(0, got.cells)
    known = dict(k.numbers[0])
    frontier = sorted(
        {n for c in known for n in around(*c) if k.symbol(0, *n) == "."},
    )
    witnesses = 0
    for x, y in frontier[::2]:
        got = judge_reveal(k, 0, x, y)
        if got.witness is None:
            continue
        witnesses += 1
        w = got.witness
        symbols = {
            (a, b): k.symbol(0, a, b)
            for a in range(w.x0 - 1, w.x0 + w.width + 1)
            for b in range(w.y0 - 1, w.y0 + w.height + 1)
            if k.symbol(0, a, b) != "."
        }
        check_witness(symbols, (x, y), w, True, 64)
    assert witnesses >= 10
