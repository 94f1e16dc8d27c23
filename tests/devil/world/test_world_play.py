"""Moves: reveal with its bounded cascade, flag, drop; the truth only behind a proof."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from devil.world import Colouring, MemoryKnowledge, MoveResult, drop, flag, reveal
from devil.world.play import CASCADE_LIMIT, Colours, UnsoundKnowledge, ring
from tests.helpers.strategies import profile
from tests.helpers.worlds import XY, Scene, around, scenes


class Truth:
    """A truth callback that records what it was asked."""

    def __init__(self, colour_of: Callable[[int, int], int]):
        self.colour_of = colour_of
        self.asked: set[XY] = set()

    def __call__(self, x: int, y: int) -> int:
        self.asked.add((x, y))
        return self.colour_of(x, y)


def check_opened(k: MemoryKnowledge, truth: Truth, colour: int, result: MoveResult) -> None:
    """Opened cells are safe, show their true numbers, appear once, were not revealed
    before; without truncation every opened 0 has all its neighbours open."""
    cells = [(x, y) for x, y, _ in result.cells]
    assert len(set(cells)) == len(cells)
    for x, y, sym in result.cells:
        assert truth.colour_of(x, y) != colour
        assert sym == str(sum(1 for n in around(x, y) if truth.colour_of(*n) == colour))
        assert not k.symbol(colour, x, y).isdigit()
    if not result.truncated:
        opened = set(cells)
        for x, y, sym in result.cells:
            if sym == "0":
                for n in around(x, y):
                    assert n in opened or k.symbol(colour, *n).isdigit(), n


@profile()
@given(scenes())
def test_the_truth_is_reached_only_through_a_proof(scene: Scene) -> None:
    """A devil error never asks the truth; a reveal asks only about opened cells and
    their neighbours (cells outside the scene are colour ``board + 1``: never mines)."""
    for y in range(scene.y0, scene.y0 + scene.height):
        for x in range(scene.x0, scene.x0 + scene.width):
            truth = Truth(lambda a, b: scene.truth.get((a, b), (scene.board + 1) % scene.colours))
            got = reveal(scene.knowledge, truth, scene.board, x, y, limit=60)
            if got.outcome == "devil":
                assert truth.asked == set() and got.cells == () and got.witness is not None
                continue
            assert got.outcome == "revealed"
            check_opened(scene.knowledge, truth, scene.board, got)
            near = {c for x1, y1, _ in got.cells for c in [(x1, y1), *around(x1, y1)]}
            assert truth.asked <= near
            if scene.knowledge.symbol(scene.board, x, y).isdigit():
                assert got.cells == () and truth.asked == set()
            else:
                assert got.cells[0][:2] == (x, y) and got.at == (x, y)


@profile()
@given(st.binary(min_size=16, max_size=16), st.integers(3, 8), st.data())
def test_a_team_playing_proved_moves_only_opens_safe_cells(
    key: bytes, colours: int, data: st.DataObject
) -> None:
    """Drop, then random reveals and flags near the known cells: every opened cell is
    safe with its true number, every accepted flag is a mine, errors change nothing, and
    a move undecided within the window (the team never flags: a piece beyond
    ``WINDOW_RADIUS``) changes nothing and says why."""
    colouring = Colouring(key, "test", colours)
    truth = Truth(colouring.colour)
    k = MemoryKnowledge()
    first = drop(k, truth, 0, 0, 0)
    if first.outcome == "none":
        return
    assert first.outcome == "dropped" and first.at is not None
    check_opened(k, truth, 0, first)
    k.apply(0, first.cells)
    for _ in range(30):
        known = sorted(k.numbers[0])
        x, y = data.draw(st.sampled_from(known))
        dx, dy = data.draw(st.integers(-2, 2)), data.draw(st.integers(-2, 2))
        if data.draw(st.booleans()):
            got = reveal(k, truth, 0, x + dx, y + dy)
            check_opened(k, truth, 0, got)
        else:
            got = flag(k, 0, x + dx, y + dy)
            assert got.outcome in ("flagged", "devil", "undecided")
            if got.cells:
                assert colouring.colour(x + dx, y + dy) == 0
        assert (got.outcome == "devil") == (got.witness is not None)
        if got.outcome == "undecided":
            assert got.cells == () and got.reason
        k.apply(0, got.cells)


def test_cascade_stops_at_its_limit_and_resumes() -> None:
    """Board 0 of a world without colour 0: every cell is a 0 and the cascade is endless."""
    k = MemoryKnowledge()
    k.reveal(0, 0, 0, 0)
    first = reveal(k, lambda x, y: 1, 0, 1, 0)
    assert first.outcome == "revealed" and first.truncated
    assert len(first.cells) == CASCADE_LIMIT
    k.apply(0, first.cells)
    small = reveal(k, lambda x, y: 1, 0, 0, 1, limit=7)
    assert small == MoveResult("revealed")  # (0, 1) was opened by the first cascade
    edge = max(x for x, y in k.numbers[0] if y == 0)
    more = reveal(k, lambda x, y: 1, 0, edge + 1, 0, limit=7)
    assert more.truncated and len(more.cells) == 7
    assert not {c[:2] for c in more.cells} & set(k.numbers[0])


def test_cascade_that_fits_is_not_truncated() -> None:
    """Colour 0 on the border of a 5x5 square: the cascade opens its 3x3 inside."""

    def colour(x: int, y: int) -> int:
        return 0 if max(abs(x), abs(y)) == 2 else 1

    k = MemoryKnowledge()
    got = drop(k, colour, 0, 0, 0)
    assert got.outcome == "dropped" and got.at == (0, 0) and not got.truncated
    assert sorted(c[:2] for c in got.cells) == sorted(
        (x, y) for x in (-1, 0, 1) for y in (-1, 0, 1)
    )
    assert got.cells[0] == (0, 0, "0")


def test_known_cells() -> None:
    k = MemoryKnowledge()
    k.reveal(0, 0, 0, 2)
    k.flag(1, 1, 1)
    k.flag(0, 2, 2)
    never = Truth(lambda x, y: pytest.fail("the truth was asked"))
    assert reveal(k, never, 0, 0, 0) == MoveResult("revealed")
    assert flag(k, 0, 2, 2) == MoveResult("flagged")
    mine = reveal(k, never, 0, 2, 2)
    assert mine.outcome == "devil" and mine.witness is not None and mine.cells == ()
    opened = reveal(k, lambda x, y: 1 if (x, y) != (2, 2) else 0, 0, 1, 1)
    assert opened == MoveResult("revealed", ((1, 1, "1"),), None, False, (1, 1))


def test_flag_accepted_only_when_proved() -> None:
    k = MemoryKnowledge()
    k.reveal(0, 0, 0, 8)
    assert flag(k, 0, 1, 1) == MoveResult("flagged", ((1, 1, "F"),), at=(1, 1))
    guess = flag(k, 0, 5, 5)
    assert guess.outcome == "devil" and guess.cells == () and guess.witness is not None
    assert guess.witness.mines() == frozenset()


def test_moves_sharing_their_colours_ask_the_truth_once_per_cell() -> None:
    """Neighbouring reveals given one ``Colours`` (as a raft's moves are) ask the keyed
    hash about each cell once, and open what they open alone."""
    colouring = Colouring(b"k" * 16, "test", 2)
    alone = MemoryKnowledge()
    first = drop(alone, colouring.colour, 0, 0, 0)
    assert first.outcome == "dropped"
    alone.apply(0, first.cells)
    shared = MemoryKnowledge()
    shared.apply(0, first.cells)
    truth = Truth(colouring.colour)
    colours = Colours(truth)
    asked = 0
    for x, y, _ in first.cells:
        for n in around(x, y):
            got = reveal(shared, colours, 0, *n)
            assert got == reveal(alone, colouring.colour, 0, *n)
            shared.apply(0, got.cells)
            alone.apply(0, got.cells)
            asked += len(got.cells)
    assert asked and len(colours.seen) == len(truth.asked)


def test_unsound_knowledge_is_reported() -> None:
    k = MemoryKnowledge()
    k.flag(1, 0, 0)  # the team believes (0, 0) is colour 1, but it is colour 0
    with pytest.raises(UnsoundKnowledge, match=r"\(0, 0\)"):
        reveal(k, lambda x, y: 0, 0, 0, 0)


@pytest.mark.parametrize("r", [0, 1, 2, 5])
def test_ring_walks_clockwise_from_the_top_left(r: int) -> None:
    cells = ring(10, -3, r)
    assert len(cells) == max(1, 8 * r) == len(set(cells))
    assert cells[0] == (10 - r, -3 - r)
    assert all(max(abs(x - 10), abs(y + 3)) == r for x, y in cells)
    for (x1, y1), (x2, y2) in zip(cells, cells[1:] + cells[:1], strict=True):
        if r:
            assert max(abs(x1 - x2), abs(y1 - y2)) == 1
    if r:
        assert cells[1] == (10 - r + 1, -3 - r)  # clockwise: along the top to the right


@profile()
@given(st.binary(min_size=16, max_size=16), st.integers(2, 8), st.integers(0, 6), st.data())
def test_drop_opens_the_nearest_free_cell(
    key: bytes, colours: int, radius: int, data: st.DataObject
) -> None:
    colouring = Colouring(key, "drop", colours)
    k = MemoryKnowledge()
    for x, y in data.draw(st.lists(st.tuples(st.integers(-4, 4), st.integers(-4, 4)))):
        if colouring.colour(x, y) != 1:
            k.reveal(1, x, y, sum(1 for n in around(x, y) if colouring.colour(*n) == 1))
        else:
            k.flag(1, x, y)

    def free(c: XY) -> bool:
        return (
            k.symbol(1, *c) == "."
            and colouring.colour(*c) != 1
            and all(colouring.colour(*n) != 1 for n in around(*c))
        )

    got = drop(k, colouring.colour, 1, 0, 0, radius=radius)
    candidates = [(x, y) for x in range(-radius, radius + 1) for y in range(-radius, radius + 1)]
    best = min((max(abs(x), abs(y)) for x, y in candidates if free((x, y))), default=None)
    if best is None:
        assert got.outcome == "none" and got.reason and got.cells == () and got.at is None
        return
    assert got.outcome == "dropped" and got.at is not None and free(got.at)
    assert max(abs(got.at[0]), abs(got.at[1])) == best
    order = ring(0, 0, best)
    assert not any(free(c) for c in order[: order.index(got.at)])
    assert got.cells[0] == (*got.at, "0")
    check_opened(k, Truth(colouring.colour), 1, got)
    assert drop(k, colouring.colour, 1, 0, 0, radius=radius) == got


def test_drop_finds_nothing_in_a_world_of_mines() -> None:
    got = drop(MemoryKnowledge(), lambda x, y: 3, 3, 7, 7)
    assert got.outcome == "none"
    assert got.reason == "no unknown cell within 32 of (7, 7) is free of mines around it"


def test_drop_skips_known_cells() -> None:
    k = MemoryKnowledge()
    k.flag(2, 0, 0)
    got = drop(k, lambda x, y: 2, 0, 0, 0, radius=1)
    assert got.at == (-1, -1)
