"""The exact solver on hand-made positions, checked against hand answers and the oracle."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from devil import oracle
from devil.analysis import Verdict
from devil.board import Board, Cell, Topology
from devil.errors import InconsistentPosition
from devil.position import Position
from devil.rules import Count
from devil.solver import Solver, classify, exact_probabilities, probabilities, witness

S, M, E = Verdict.SAFE, Verdict.MINE, Verdict.EITHER


def verdicts(line: str, count: Count = Count.CLASSIC) -> dict[tuple[int, int], Verdict]:
    position = Position.from_line(line)
    result = classify(position, count)
    return {position.board.coord(c): v for c, v in result.verdicts.items()}


def assert_matches_oracle(position: Position, count: Count) -> None:
    assert classify(position, count).verdicts == oracle.classify(position, count).verdicts


# -- patterns ------------------------------------------------------------------------------


def test_one_two_one_pattern() -> None:
    got = verdicts(".../121")
    assert got == {(0, 0): M, (0, 1): S, (0, 2): M}


def test_one_two_one_inside_a_longer_wall() -> None:
    position = Position.from_line("......./0112110")
    got = classify(position)
    assert [got.verdict(c).letter for c in range(7)] == list("SSMSMSS")
    assert_matches_oracle(position, Count.CLASSIC)


def test_subset_rule_frees_the_extra_cell() -> None:
    # the left 1 sees (0,0),(0,1); the middle 1 sees those and (0,2): (0,2) is safe
    got = verdicts("...#/11##")
    assert got == {(0, 0): E, (0, 1): E, (0, 2): S}


def test_overlap_rule() -> None:
    # the 2 sees a, b, c; the 1 sees b, c: a is a mine
    got = verdicts("..../#21#")
    assert got[(0, 0)] is M
    assert_matches_oracle(Position.from_line("..../#21#"), Count.CLASSIC)


def test_flags_are_not_constraints() -> None:
    plain = verdicts(".../121")
    flagged = verdicts("F.F/121")
    assert plain == flagged
    # a wrong flag changes nothing either
    assert verdicts(".F./121") == plain


def test_deep_cells_are_either_under_classic() -> None:
    got = verdicts("1../.../...")
    assert got[(2, 2)] is E
    assert got[(0, 1)] is E


def test_zero_frees_every_neighbour() -> None:
    got = verdicts("0../...")
    assert got[(0, 1)] is S and got[(1, 0)] is S and got[(1, 1)] is S
    assert got[(0, 2)] is E


# -- topologies ----------------------------------------------------------------------------


def test_torus_wraps_both_ways() -> None:
    position = Position.from_line("0.../..../....;topology=torus")
    got = {position.board.coord(c): v for c, v in classify(position).verdicts.items()}
    # (0,0) touches (0,3), (2,0), (2,3), (1,3) only through the wrap
    for cell in [(0, 3), (2, 0), (2, 3), (1, 3), (0, 1), (1, 1)]:
        assert got[cell] is S, cell
    assert got[(0, 2)] is E
    assert_matches_oracle(position, Count.CLASSIC)


def test_hex_odd_r_neighbours() -> None:
    # the 0 at (1,1) (odd row) frees (1,0),(1,2),(0,1),(0,2),(2,1),(2,2)
    position = Position.from_line(".../.0./...;topology=hex")
    got = {position.board.coord(c): v for c, v in classify(position).verdicts.items()}
    for cell in [(1, 0), (1, 2), (0, 1), (0, 2), (2, 1), (2, 2)]:
        assert got[cell] is S, cell
    assert got[(0, 0)] is E and got[(2, 0)] is E
    assert_matches_oracle(position, Count.COUNTED if position.mines else Count.CLASSIC)


def test_hex_one_two_chain_matches_oracle() -> None:
    position = Position.from_line("..../1221/....;topology=hex;mines=3")
    for count in Count:
        assert_matches_oracle(position, count)


def test_holes_are_neither_cells_nor_neighbours() -> None:
    got = verdicts("#1#/#.#/###")
    assert got == {(1, 1): M}
    got = verdicts("1#./...")
    assert got[(0, 2)] is E  # the hole does not carry the 1 over to (0,2)


# -- counted rule --------------------------------------------------------------------------


def test_counted_deep_cells_safe_when_frontier_takes_every_mine() -> None:
    got = verdicts("1../...;mines=1", Count.COUNTED)
    assert got[(0, 2)] is S and got[(1, 2)] is S
    assert got[(0, 1)] is E


def test_counted_deep_cells_mines_when_all_are_needed() -> None:
    got = verdicts("1../...;mines=3", Count.COUNTED)
    assert got[(0, 2)] is M and got[(1, 2)] is M
    assert got[(0, 1)] is E


def test_counted_total_decides_the_frontier() -> None:
    # the 1 on the left and the 1 on the right: either one mine in the middle or two outside
    # with one mine in all, it must be one both numbers see
    line = ".../1.1/...;mines=1"
    position = Position.from_line(line)
    classic = classify(position, Count.CLASSIC)
    counted = classify(position, Count.COUNTED)
    assert classic.verdict(position.board.cell(0, 0)) is E
    assert counted.verdict(position.board.cell(0, 0)) is S
    assert counted.verdict(position.board.cell(1, 1)) is E
    for count in Count:
        assert_matches_oracle(position, count)


def test_counted_needs_the_total() -> None:
    with pytest.raises(ValueError, match="total number of mines"):
        classify(Position.from_line("1../..."), Count.COUNTED)


def test_counted_rule_picks_between_centre_and_corners() -> None:
    # either the centre alone (1 mine) or two opposite corners (2 mines)
    position = Position.from_line(".1./1.1/.1.;mines=2")
    counted = classify(position, Count.COUNTED)
    assert counted.verdict(4) is S and counted.verdict(0) is E
    one = classify(position.with_mines(1), Count.COUNTED)
    assert one.verdict(4) is M and one.verdict(0) is S
    with pytest.raises(InconsistentPosition):
        classify(position.with_mines(3), Count.COUNTED)
    for count in Count:
        assert_matches_oracle(position, count)


# -- inconsistent positions ---------------------------------------------------------------


def test_too_few_covered_neighbours_message() -> None:
    with pytest.raises(InconsistentPosition) as info:
        classify(Position.from_line("4./.."))
    assert str(info.value) == "the 4 at row 0, col 0 has only 3 covered neighbours"
    assert info.value.cell == 0


def test_isolated_number_message() -> None:
    with pytest.raises(InconsistentPosition) as info:
        classify(Position.from_line("000/020/000"))
    assert str(info.value) == "the 2 at row 1, col 1 has only 0 covered neighbours"


def test_contradicting_numbers_message() -> None:
    with pytest.raises(InconsistentPosition) as info:
        classify(Position.from_line("1.0"))
    message = str(info.value)
    assert message in (
        "the 1 at row 0, col 0 cannot be satisfied together with the numbers around it",
        "the 0 at row 0, col 2 cannot be satisfied together with the numbers around it",
    )
    assert info.value.cell in (0, 2)


def test_numbers_fine_alone_but_not_with_the_total() -> None:
    position = Position.from_line("3..3/....;mines=2")
    assert classify(position, Count.CLASSIC).mine_cells()
    with pytest.raises(InconsistentPosition) as raised:
        classify(position, Count.COUNTED)
    assert str(raised.value) == (
        "2 mines do not fit: the numbers need exactly 6 mines, and there is no other covered cell"
    )
    with pytest.raises(InconsistentPosition) as raised:  # a deep cell: row 2
        classify(Position.from_line("3..3/..../....;mines=2"), Count.COUNTED)
    assert str(raised.value) == (
        "2 mines do not fit: the numbers need exactly 6 mines, "
        "and the 4 other covered cells can hold 0 to 4 more"
    )


def test_counted_total_too_small() -> None:
    with pytest.raises(InconsistentPosition, match="mines"):
        classify(Position.from_line("2../...;mines=1"), Count.COUNTED)


# -- probabilities -------------------------------------------------------------------------


def test_probabilities_one_two_one() -> None:
    probs = probabilities(Position.from_line(".../121"))
    assert probs == {0: 1.0, 1: 0.0, 2: 1.0}


def test_probabilities_classic_density_weighting() -> None:
    # one of two cells: symmetric, so 1/2 whatever the density
    position = Position.from_line("1./..;mines=1")
    exact = exact_probabilities(position)
    assert exact == oracle.probabilities(position)
    assert sum(exact.values()) != 0


@pytest.mark.parametrize(
    "line",
    ["1../...;mines=2", "..../1221/....;mines=2", ".2./.../...;mines=4", "1.1/...;mines=2"],
)
def test_probabilities_match_oracle(line: str) -> None:
    position = Position.from_line(line)
    for count in Count:
        assert exact_probabilities(position, count) == oracle.probabilities(position, count)


# -- random positions against the oracle -----------------------------------------------------


def random_position(rng: random.Random, max_side: int = 6) -> tuple[Position, frozenset[Cell]]:
    topology = rng.choice(list(Topology.grids()))
    height, width = rng.randint(1, max_side), rng.randint(2, max_side)
    holes = frozenset(c for c in range(height * width) if rng.random() < 0.08)
    board = Board(height, width, topology, holes)
    cells = list(board.cells())
    density = 0.1 + 0.35 * rng.random()
    mines = frozenset(c for c in cells if rng.random() < density)
    grid = bytearray(b"#" * board.size)
    for c in cells:
        if c in mines or rng.random() < 0.45:
            grid[c] = ord("F") if rng.random() < 0.1 else ord(".")
        else:
            grid[c] = ord("0") + sum(n in mines for n in board.neighbours(c))
    return Position(board, bytes(grid), len(mines)), mines


def test_random_positions_agree_with_oracle() -> None:
    rng = random.Random(2024)
    checked = 0
    while checked < 150:
        position, _ = random_position(rng)
        if not any(position.is_covered(c) for c in range(position.board.size)):
            continue
        try:
            oracle.classify(position, Count.CLASSIC)
        except ValueError:
            continue  # too big for the oracle, or inconsistent
        for count in Count:
            assert_matches_oracle(position, count)
            assert exact_probabilities(position, count) == oracle.probabilities(position, count)
        checked += 1


# -- witnesses -----------------------------------------------------------------------------


def test_witnesses_are_consistent_and_exist_exactly_when_possible() -> None:
    rng = random.Random(7)
    checked = 0
    while checked < 80:
        position, _ = random_position(rng, 5)
        for count in Count:
            truth = oracle.classify(position, count)
            for cell, verdict in truth.verdicts.items():
                for mine in (True, False):
                    chooser = random.Random(checked) if checked % 2 else None
                    layout = witness(position, cell, mine, count, rng=chooser)
                    possible = verdict.could_be_mine if mine else verdict.could_be_safe
                    assert (layout is not None) == possible, (position, cell, mine, count)
                    if layout is not None:
                        assert (cell in layout) == mine
                        assert oracle.is_consistent(position, layout, count)
                        if count is Count.COUNTED:
                            assert len(layout) == position.mines
        checked += 1


def test_classic_witness_prefers_the_real_total() -> None:
    position = Position.from_line("1../.../...;mines=4")
    layout = witness(position, position.board.cell(2, 2), True, Count.CLASSIC)
    assert layout is not None and len(layout) == 4


def test_witness_of_decided_cells() -> None:
    position = Position.from_line(".../121")
    assert witness(position, 1, mine=True) is None
    assert witness(position, 0, mine=True) == frozenset({0, 2})


def test_witness_rejects_revealed_cell() -> None:
    position = Position.from_line(".../121")
    with pytest.raises(ValueError, match="not a covered cell"):
        witness(position, 4)


# -- the incremental solver ----------------------------------------------------------------


@pytest.mark.parametrize("count", list(Count))
@pytest.mark.parametrize("seed", range(6))
def test_incremental_solver_matches_fresh_classify(count: Count, seed: int) -> None:
    rng = random.Random(seed)
    topology = [Topology.SQUARE, Topology.TORUS, Topology.HEX][seed % 3]
    board = Board(9, 11, topology)
    cells = list(board.cells())
    mines = frozenset(rng.sample(cells, 20))
    grid = bytearray(b"." * board.size)
    solver = Solver(count)
    safe = [c for c in cells if c not in mines]
    rng.shuffle(safe)
    for step in range(12):
        changed: list[Cell] = []
        for c in safe[step * 3 : step * 3 + 3]:
            grid[c] = ord("0") + sum(n in mines for n in board.neighbours(c))
            changed.append(c)
        flag = rng.choice(cells)
        if grid[flag] in b".F":
            grid[flag] = ord("F") if grid[flag] == ord(".") else ord(".")
            changed.append(flag)
        position = Position(board, bytes(grid), len(mines))
        given = changed if step % 3 else None
        analysis = solver.analyse(position, given)
        fresh = classify(position, count)
        assert analysis.classification().verdicts == fresh.verdicts
        for c in list(fresh.verdicts)[:5]:
            assert analysis.verdict(c) is fresh.verdict(c)
        assert analysis.any_safe() == any(v is S for v in fresh.verdicts.values())


def test_old_analysis_unchanged_by_later_updates() -> None:
    board = Board(4, 4)
    first = Position.from_line("..../..../..../0...")
    solver = Solver()
    before = solver.analyse(first)
    snapshot = dict(before.classification().verdicts)
    second = Position.from_line("..../..../1.../01..")
    solver.analyse(second, [board.cell(2, 0), board.cell(3, 1)])
    assert dict(before.classification().verdicts) == snapshot


def test_solver_recovers_from_covering_cells_again() -> None:
    solver = Solver()
    later = Position.from_line(".../121")
    solver.analyse(later)
    earlier = Position.from_line(".../1..")
    got = solver.analyse(earlier, [4, 5])
    assert got.classification().verdicts == classify(earlier).verdicts


def test_verdict_rejects_revealed_cell() -> None:
    analysis = Solver().analyse(Position.from_line(".../121"))
    with pytest.raises(ValueError, match="not a covered cell"):
        analysis.verdict(4)


def test_unknown_backend() -> None:
    with pytest.raises(ValueError, match="unknown backend"):
        classify(Position.from_line(".../121"), backend="magic")


def test_cpsat_backend_agrees() -> None:
    pytest.importorskip("ortools")
    position = Position.from_line("..../1221/....;mines=2")
    for count in Count:
        assert classify(position, count, backend="cpsat") == classify(position, count)


def test_exact_fractions() -> None:
    exact = exact_probabilities(Position.from_line("1../...;mines=2"), Count.COUNTED)
    assert all(isinstance(p, Fraction) for p in exact.values())


# -- the private engines against each other -------------------------------------------------


def _random_problem(rng: random.Random) -> tuple[list[int], list[tuple[tuple[int, ...], int]]]:
    """Groups and sum constraints built around a hidden solution (sometimes broken)."""
    n = rng.randint(1, 10)
    sizes = [rng.choice([1, 1, 1, 2, 3]) for _ in range(n)]
    hidden = [rng.randint(0, s) for s in sizes]
    cons: list[tuple[tuple[int, ...], int]] = []
    for _ in range(rng.randint(1, 9)):
        groups = tuple(sorted(rng.sample(range(n), rng.randint(1, min(n, 4)))))
        need = sum(hidden[g] for g in groups) + rng.choice([0, 0, 0, 0, 0, 1, -1])
        cons.append((groups, max(need, 0)))
    used = {g for groups, _ in cons for g in groups}
    cons += [((g,), hidden[g]) for g in range(n) if g not in used]
    return sizes, cons


def test_cdcl_and_dp_agree_with_plain_search() -> None:
    from devil.solve._ask import cdcl_backbone
    from devil.solve._count import count_by_frontier, count_by_search, totals_by_frontier
    from devil.solve._search import TotalWindow, backbone, make_problem

    rng = random.Random(11)
    for _ in range(400):
        sizes, cons = _random_problem(rng)
        problem = make_problem(sizes, cons)
        window = None
        if rng.random() < 0.3:
            low = rng.randint(0, sum(sizes))
            window = TotalWindow(low, low + rng.randint(0, 2))
        plain = backbone(problem, window)
        learned = cdcl_backbone(problem, window)
        assert (plain is None) == (learned is None)
        if plain is not None and learned is not None:
            low_l, high_l, _ = learned
            assert [h >= 1 for h in plain.high] == [h >= 1 for h in high_l]
            assert [lo < s for lo, s in zip(plain.low, sizes, strict=True)] == [
                lo < s for lo, s in zip(low_l, sizes, strict=True)
            ]
        enumerated = count_by_search(problem)
        programmed = count_by_frontier(problem)
        assert programmed is not None
        top = len(enumerated.total)
        assert programmed.total[:top] == enumerated.total
        assert [row[:top] for row in programmed.mined] == enumerated.mined
        totals = totals_by_frontier(problem)
        assert totals == sum(1 << k for k, t in enumerate(enumerated.total) if t)


@pytest.mark.parametrize("count", [Count.CLASSIC, Count.COUNTED])
def test_an_analysis_leaves_no_cyclic_garbage(count: Count) -> None:
    """Pieces and their engines are freed by reference counting, not left to the garbage
    collector (a cycle per piece cost every click a share of a collection)."""
    import gc

    from tests.helpers.paths import POSITIONS

    position = Position.from_text((POSITIONS / "expert_g00_s0.txt").read_text())
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        analysis = Solver(count).analyse(position)
        analysis.classification()
        layout = analysis.witness(next(iter(position.covered_cells())), True, random.Random(1))
        assert layout is not None
        del analysis
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()
