"""Layout drawing and no-guess generation, checked against an independent sweep.

The reference sweep here reveals cells one at a time with its own cascade and asks the
brute-force oracle (small boards) or ``devil.solver.classify`` from scratch (presets)
which cells are safe; it shares no code with ``devil.generate``'s simulation.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable

import pytest

from devil import oracle
from devil.analysis import Classification, Layout, Verdict
from devil.board import Board, Cell, Topology
from devil.game import Game, GameParams, Move
from devil.game.graph_params import GraphSpec
from devil.game.params import FIRST_VERSION, LATEST_VERSION, no_guess_method, no_guess_tries
from devil.generate import GenerateError, draw_layout, no_guess_layout, solvable
from devil.graphs.tilings import TILINGS, tiling_board
from devil.position import Position
from devil.rules import Count, Rules

Classifier = Callable[[Position, Count], Classification]


def reference_clears(
    board: Board, layout: Layout, first: Cell, count: Count, classify: Classifier
) -> bool:
    """Reveal only cells ``classify`` proves safe, from ``first``, until stuck."""
    grid = bytearray(Position.covered(board).grid)

    def number(c: Cell) -> int:
        return sum(1 for n in board.neighbours(c) if n in layout)

    def open_cell(c: Cell) -> None:
        todo = [c]
        while todo:
            x = todo.pop()
            if grid[x] != ord("."):
                continue
            assert x not in layout, "reference sweep opened a mine"
            grid[x] = ord("0") + number(x)
            if number(x) == 0:
                todo.extend(board.neighbours(x))

    open_cell(first)
    while True:
        position = Position(board, bytes(grid), len(layout))
        covered = list(position.covered_cells())
        if len(covered) == len(layout):
            return True
        safe = classify(position, count).safe_cells()
        if not safe:
            return False
        for c in sorted(safe):
            open_cell(c)


def oracle_classify(position: Position, count: Count) -> Classification:
    return oracle.classify(position, count)


def solver_classify(position: Position, count: Count) -> Classification:
    from devil.solver import classify

    return classify(position, count)


# -- draw_layout --------------------------------------------------------------------------


def test_draw_layout_places_exactly_the_mines_outside_the_safe_cells() -> None:
    board = Board(16, 30)
    safe = board.neighbourhood(board.cell(5, 5))
    for seed in range(20):
        layout = draw_layout(board, 99, safe, random.Random(seed))
        assert len(layout) == 99
        assert not layout & safe
        assert all(board.exists(c) for c in layout)


def test_draw_layout_avoids_holes() -> None:
    holes = frozenset(range(0, 50, 3))
    board = Board(5, 10, holes=holes)
    layout = draw_layout(board, board.cell_count - 1, frozenset({1}), random.Random(0))
    assert not layout & holes
    assert 1 not in layout


def test_draw_layout_is_uniform() -> None:
    board = Board(2, 3)
    rng = random.Random(7)
    tally = Counter(draw_layout(board, 2, frozenset({0}), rng) for _ in range(5000))
    # C(5, 2) = 10 layouts, each expected 500 times
    assert len(tally) == 10
    assert all(400 < n < 600 for n in tally.values()), tally


def test_draw_layout_is_deterministic() -> None:
    board = Board(9, 9)
    a = draw_layout(board, 10, frozenset(), random.Random(42))
    b = draw_layout(board, 10, frozenset(), random.Random(42))
    assert a == b


def test_draw_layout_says_when_mines_do_not_fit() -> None:
    board = Board(3, 3)
    with pytest.raises(GenerateError, match=r"5 mines do not fit on the 3x3 board.*at most 4"):
        draw_layout(board, 5, frozenset(range(5)), random.Random(0))
    with pytest.raises(GenerateError, match="negative"):
        draw_layout(board, -1, frozenset(), random.Random(0))


# -- solvable -----------------------------------------------------------------------------


def small_cases(
    count: int, topology: Topology = Topology.SQUARE
) -> list[tuple[Board, Layout, Cell]]:
    """Random small boards with a first click that keeps its neighbourhood free."""
    out = []
    rng = random.Random(1234 + count)
    for _ in range(count):
        board = Board(rng.randint(4, 6), rng.randint(4, 6), topology)
        first = rng.randrange(board.size)
        keep = board.neighbourhood(first)
        mines = rng.randint(1, min(7, board.cell_count - len(keep)))
        out.append((board, draw_layout(board, mines, keep, rng), first))
    return out


@pytest.mark.parametrize("count", [Count.CLASSIC, Count.COUNTED])
@pytest.mark.parametrize("topology", list(Topology.grids()))
def test_solvable_agrees_with_the_oracle_sweep(count: Count, topology: Topology) -> None:
    results: Counter[bool] = Counter()
    for board, layout, first in small_cases(60, topology):
        want = reference_clears(board, layout, first, count, oracle_classify)
        assert solvable(board, layout, first, Rules(count)) == want, (board, sorted(layout), first)
        results[want] += 1
    assert results[True] and results[False], results  # both outcomes were exercised


def test_counted_rule_solves_more_than_classic() -> None:
    both: Counter[tuple[bool, bool]] = Counter()
    for board, layout, first in small_cases(120):
        classic = solvable(board, layout, first, Rules(Count.CLASSIC))
        counted = solvable(board, layout, first, Rules(Count.COUNTED))
        assert counted or not classic  # knowing the total never hurts
        both[classic, counted] += 1
    assert both[False, True] > 0, both


def test_a_fifty_fifty_is_not_solvable() -> None:
    # 2x5, first click top-left; the two 1s both see (0,3) and (1,3): a coin flip
    board = Board(2, 5)
    layout = frozenset({board.cell(0, 3)})
    first = board.cell(0, 0)
    for count in Count:
        assert not solvable(board, layout, first, Rules(count))
        assert not reference_clears(board, layout, first, count, oracle_classify)


def test_an_empty_board_is_solvable() -> None:
    board = Board(5, 7, Topology.HEX)
    assert solvable(board, frozenset(), 0, Rules())


def test_solvable_names_a_bad_first_cell() -> None:
    board = Board(4, 4)
    with pytest.raises(GenerateError, match="row 0, col 1 holds a mine"):
        solvable(board, frozenset({1}), 1, Rules())


# -- no_guess_layout ----------------------------------------------------------------------


@pytest.mark.parametrize("count", [Count.CLASSIC, Count.COUNTED])
@pytest.mark.parametrize("method", ["redraw", "perturb", "repair"])
def test_no_guess_boards_are_clearable_by_safe_reveals(count: Count, method: str) -> None:
    board = Board(6, 6)
    first = board.cell(2, 3)
    for seed in range(8):
        made = no_guess_layout(
            board,
            6,
            first,
            Rules(count),
            random.Random(seed),
            500,
            method,  # type: ignore[arg-type]
        )
        assert made.guaranteed
        assert len(made.layout) == 6
        assert not made.layout & board.neighbourhood(first)
        assert reference_clears(board, made.layout, first, count, oracle_classify)


@pytest.mark.parametrize("count", [Count.CLASSIC, Count.COUNTED])
def test_no_guess_beginner_board_checked_by_the_solver(count: Count) -> None:
    board = Board(9, 9)
    first = board.cell(4, 4)
    made = no_guess_layout(board, 10, first, Rules(count), random.Random(3), 1000, "redraw")
    assert made.guaranteed
    assert reference_clears(board, made.layout, first, count, solver_classify)


def test_no_guess_on_hex_and_torus_boards() -> None:
    for topology in (Topology.HEX, Topology.TORUS):
        board = Board(7, 7, topology)
        first = board.cell(3, 3)
        made = no_guess_layout(board, 7, first, Rules(Count.COUNTED), random.Random(5), 500)
        assert made.guaranteed
        assert reference_clears(board, made.layout, first, Count.COUNTED, oracle_classify)


def test_no_guess_is_deterministic() -> None:
    board = Board(8, 8)
    a = no_guess_layout(board, 10, 27, Rules(), random.Random(9), 300)
    b = no_guess_layout(board, 10, 27, Rules(), random.Random(9), 300)
    assert a == b


def test_no_guess_falls_back_to_the_best_attempt_and_says_so() -> None:
    # a dense classic board: three tries essentially never give a no-guess layout
    board = Board(8, 8)
    first = board.cell(0, 0)
    made = no_guess_layout(board, 40, first, Rules(), random.Random(1), 3)
    assert not made.guaranteed
    assert made.tries == 3
    assert len(made.layout) == 40
    assert not made.layout & board.neighbourhood(first)
    assert "guaranteed=False" in repr(made) and str(sorted(made.layout)[0]) not in repr(made)


def test_no_guess_rejects_bad_arguments() -> None:
    board = Board(5, 5)
    with pytest.raises(GenerateError, match="max_tries 0"):
        no_guess_layout(board, 3, 0, Rules(), random.Random(0), 0)
    with pytest.raises(GenerateError, match=r"unknown no-guess method 'magic'.*'repair'"):
        no_guess_layout(board, 3, 0, Rules(), random.Random(0), 5, "magic")  # type: ignore[arg-type]
    with pytest.raises(GenerateError, match="do not fit"):
        no_guess_layout(board, 20, 12, Rules(), random.Random(0), 5)


def test_verdicts_of_a_guaranteed_board_never_force_a_guess() -> None:
    # every position the simulated player reaches has a safe cell until the end
    board = Board(6, 6)
    first = board.cell(0, 0)
    made = no_guess_layout(board, 5, first, Rules(Count.COUNTED), random.Random(2), 500)
    assert made.guaranteed
    grid = bytearray(Position.covered(board).grid)

    def number(c: Cell) -> int:
        return sum(1 for n in board.neighbours(c) if n in made.layout)

    todo = [first]
    while True:
        while todo:
            x = todo.pop()
            if grid[x] == ord("."):
                grid[x] = ord("0") + number(x)
                if number(x) == 0:
                    todo.extend(board.neighbours(x))
        position = Position(board, bytes(grid), 5)
        covered = list(position.covered_cells())
        if len(covered) == 5:
            break
        verdicts = oracle.classify(position, Count.COUNTED).verdicts
        safe = [c for c, v in verdicts.items() if v is Verdict.SAFE]
        assert safe, position.to_text()
        todo.append(min(safe))


@pytest.mark.parametrize("count", [Count.CLASSIC, Count.COUNTED])
def test_perturbed_expert_boards_are_clearable(count: Count) -> None:
    """Perturbation carries on from stuck points; the result must still clear from scratch."""
    board = Board(16, 30)
    first = board.cell(8, 15)
    perturbed = 0
    for seed in range(3):
        made = no_guess_layout(board, 99, first, Rules(count), random.Random(seed), 400, "perturb")
        assert made.guaranteed and len(made.layout) == 99
        assert not made.layout & board.neighbourhood(first)
        assert reference_clears(board, made.layout, first, count, solver_classify)
        perturbed += made.tries > 1
    assert perturbed  # the perturbation path was exercised


# -- repair (version-2 games) ---------------------------------------------------------------


SMALL_SIZES: dict[str, tuple[int, ...]] = {
    "penrose": (40,), "cube": (2,), "geodesic": (1,), "rhombille": (4, 4), "torus": (5, 6),
    "snub-square": (4, 4), "cairo": (5, 5), "truncated-square": (5, 5),
}  # fmt: skip
"""Sizes of 20-48 cells whose edges stay within the oracle's reach (others: 6 x 7)."""


@pytest.mark.parametrize("count", [Count.CLASSIC, Count.COUNTED])
@pytest.mark.parametrize("name", sorted(TILINGS))
def test_repaired_tiling_boards_clear_by_the_oracles_proofs(name: str, count: Count) -> None:
    """Small dense boards of every tiling: the repaired layout clears from the first click
    when every step is proved by the brute-force oracle."""
    board = tiling_board(name, SMALL_SIZES.get(name, (6, 7)))
    rng = random.Random(11)
    repaired = 0
    for _ in range(3):
        first = rng.choice(list(board.cells()))
        keep = board.neighbourhood(first)
        mines = min(board.cell_count - len(keep) - 1, round(0.4 * board.cell_count))
        made = no_guess_layout(board, mines, first, Rules(count), rng, 300, "repair")
        assert made.guaranteed and len(made.layout) == mines and not made.layout & keep
        assert reference_clears(board, made.layout, first, count, oracle_classify)
        repaired += made.tries > 1
    # the smallest sphere (20 cells, 9 neighbours each) needs no repair; bigger ones have
    # too many cells on the edge for the oracle
    assert repaired or name == "geodesic", "the repair was not exercised"


@pytest.mark.parametrize("count", [Count.CLASSIC, Count.COUNTED])
def test_expert_rhombille_boards_are_repaired_and_clear_from_scratch(count: Count) -> None:
    """The tiling version 1 never found a no-guess expert board on: the result, solved again
    from the first click by the exact solver from scratch, needs no guess."""
    preset = TILINGS["rhombille"].preset("expert")
    board = tiling_board("rhombille", preset.size)
    mines = preset.mines(board.cell_count)
    rng = random.Random(5)
    first = rng.choice(list(board.cells()))
    made = no_guess_layout(board, mines, first, Rules(count), rng, no_guess_tries(board), "repair")
    assert made.guaranteed and made.tries > 1
    assert len(made.layout) == mines and not made.layout & board.neighbourhood(first)
    assert reference_clears(board, made.layout, first, count, solver_classify)


def test_repair_is_deterministic_and_gives_up_within_its_tries() -> None:
    board = tiling_board("rhombille", (9, 10))
    a = no_guess_layout(board, 60, 40, Rules(), random.Random(3), 300, "repair")
    b = no_guess_layout(board, 60, 40, Rules(), random.Random(3), 300, "repair")
    assert a == b and a.guaranteed
    short = no_guess_layout(board, 60, 40, Rules(), random.Random(3), 2, "repair")
    assert not short.guaranteed and short.tries == 2 and len(short.layout) == 60


def test_games_draw_no_guess_layouts_by_their_version() -> None:
    """Version 1 keeps the old methods (stored games replay); version 2 repairs."""
    graph = tiling_board("rhombille", (5, 6))
    big_grid, grid = Board(40, 40), Board(16, 30)
    assert [no_guess_method(b, FIRST_VERSION) for b in (graph, big_grid, grid)] == [
        "perturb",
        "perturb",
        "redraw",
    ]
    assert [no_guess_method(b, LATEST_VERSION) for b in (graph, big_grid, grid)] == [
        "repair",
        "repair",
        "redraw",
    ]
    preset = TILINGS["rhombille"].preset("expert")
    spec = GraphSpec("rhombille", preset.size)
    mines = preset.mines(spec.board().cell_count)
    params = GameParams(mines=mines, graph=spec, seed=1, version=LATEST_VERSION)
    cell = list(params.board().cells())[200]
    game = Game.new(params).play(Move.reveal(*params.board().coord(cell)))
    assert game.guaranteed and game.no_guess  # version 1 finds none (0 of 20 seeds)


@pytest.mark.parametrize(
    ("name", "preset", "digest"),
    [
        ("rhombille", "beginner", "29c05156407060a5"),
        ("penrose", "intermediate", "d2c6017b15962b4b"),
        ("truncated-square", "expert", "f4a08e4f31beafd2"),
    ],
)
def test_version_1_graph_games_keep_their_no_guess_layouts(
    name: str, preset: str, digest: str
) -> None:
    """A stored game re-derives its layout from its seed: version 1's no-guess layouts must
    not change. Change a digest only together with a way to replay the old games."""
    chosen = TILINGS[name].preset(preset)
    spec = GraphSpec(name, chosen.size)
    params = GameParams(mines=chosen.mines(spec.board().cell_count), graph=spec, seed=4)
    layouts = []
    cells = list(params.board().cells())
    for cell in (cells[0], cells[len(cells) // 2]):
        game = Game.new(params).play(Move.reveal(*params.board().coord(cell)))
        layouts.append((sorted(game.layout or ()), game.guaranteed))
    assert hashlib.sha256(repr(layouts).encode()).hexdigest()[:16] == digest
