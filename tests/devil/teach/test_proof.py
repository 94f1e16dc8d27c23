"""Proofs, levels and step-by-step deduction (``devil.teach.proof``, ``devil.teach.levels``).

Every proof is checked independently of the code that found it: ``forced_by`` below
enumerates, by brute force, every assignment of the cells the proof's numbers touch and
asks whether any gives the cell the other value. The verdicts are compared with the
brute-force oracle (``devil.oracle``), never with the solver.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import Iterable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from devil import oracle
from devil.analysis import Verdict
from devil.board import Board, Cell, Topology
from devil.errors import InconsistentPosition, InvalidMove
from devil.position import Position
from devil.rules import Count
from devil.teach.bounds import Bound
from devil.teach.levels import Deducer, board_level, deduction_steps, grade, pair_forced
from devil.teach.proof import Proof, prove
from tests.helpers.paths import POSITIONS
from tests.helpers.strategies import Scenario, profile, scenarios

# -- the independent check ----------------------------------------------------------------


def numbers_around(position: Position, source: Cell) -> tuple[int, list[Cell]]:
    board = position.board
    value = position.number(source)
    assert value is not None, f"{board.coord(source)} is not a revealed number"
    covered = [n for n in board.neighbours(source) if position.is_covered(n)]
    return value, covered


def forced_by(
    position: Position,
    numbers: Iterable[Cell],
    cell: Cell,
    mine: bool,
    counted: bool = False,
    known: Iterable[Cell] = (),
) -> bool:
    """Whether these numbers alone (and the total, when ``counted``) force ``cell``.

    Tries every assignment of the covered cells the numbers touch (plus ``cell``) with
    ``cell`` given the other value. Under ``counted`` the covered cells outside may hold
    anything from none to all of them, so the inside must hold between
    ``mines - outside`` and ``mines``. ``known`` cells are mines.
    """
    rules = [numbers_around(position, n) for n in numbers]
    known = set(known)
    cells = sorted({c for _, cov in rules for c in cov} | {cell} | known)
    outside = sum(1 for _ in position.covered_cells()) - len(cells)
    for bits in itertools.product((0, 1), repeat=len(cells)):
        value = dict(zip(cells, bits, strict=True))
        if value[cell] == int(mine) or any(value[k] == 0 for k in known):
            continue
        if not all(sum(value[c] for c in cov) == v for v, cov in rules):
            continue
        if counted:
            assert position.mines is not None
            if not position.mines - outside <= sum(bits) <= position.mines:
                continue
        return False
    return True


def check_proof(position: Position, proof: Proof, count: Count) -> None:
    """The proof's own promises, checked by brute force and the oracle."""
    cell = proof.cell
    if proof.verdict is Verdict.EITHER:
        assert proof.layouts is not None and proof.numbers == ()
        with_mine, without = proof.layouts
        assert cell in with_mine and cell not in without
        for layout in proof.layouts:
            assert oracle.is_consistent(position, layout, count)
        return
    mine = proof.verdict is Verdict.MINE
    counted = proof.level == 4
    assert proof.layouts is None
    assert counted == proof.counted
    if counted:
        assert count is Count.COUNTED
        assert not forced_by(position, proof.numbers, cell, mine), "level 4 needs the count"
    assert forced_by(position, proof.numbers, cell, mine, counted), "numbers do not force it"
    for drop in proof.numbers:
        rest = [n for n in proof.numbers if n != drop]
        assert not forced_by(position, rest, cell, mine, counted), (
            f"not minimal: still forced without {position.board.coord(drop)}"
        )
    if not counted:
        assert proof.level == min(len(proof.numbers), 3)
    assert proof.steps and all(isinstance(s, str) and s for s in proof.steps)


# -- hand-made positions: one per level -----------------------------------------------------


def cell_of(position: Position, row: int, col: int) -> Cell:
    return position.board.cell(row, col)


def test_level_1_a_number_with_no_room_to_spare() -> None:
    position = Position.from_line("3./..")
    proof = prove(position, cell_of(position, 1, 1))
    assert (proof.verdict, proof.level, proof.numbers) == (Verdict.MINE, 1, (0,))
    assert "the 3 at row 0, col 0" in proof.steps[0].lower()
    check_proof(position, proof, Count.CLASSIC)


def test_level_1_a_zero_makes_its_neighbours_safe() -> None:
    position = Position.from_line("0./..")
    proof = prove(position, cell_of(position, 0, 1))
    assert (proof.verdict, proof.level) == (Verdict.SAFE, 1)
    check_proof(position, proof, Count.CLASSIC)


def test_level_2_the_one_two_subset_rule() -> None:
    # the 1 at (0,0) touches only (1,0) and (1,1); the 2 at (0,1) touches those and (1,2)
    position = Position.from_line("121/...")
    proof = prove(position, cell_of(position, 1, 2))
    assert (proof.verdict, proof.level) == (Verdict.MINE, 2)
    assert set(proof.numbers) == {cell_of(position, 0, 0), cell_of(position, 0, 1)} or set(
        proof.numbers
    ) == {cell_of(position, 0, 1), cell_of(position, 0, 2)}
    text = " ".join(proof.steps)
    assert "touches only" in text and "row 1, col 2" in text
    check_proof(position, proof, Count.CLASSIC)


def test_level_3_needs_three_numbers() -> None:
    # (1,1) is safe only because both 1s and the 2 are read together
    position = Position.from_line("121/...")
    proof = prove(position, cell_of(position, 1, 1))
    assert (proof.verdict, proof.level, len(proof.numbers)) == (Verdict.SAFE, 3, 3)
    assert proof.steps[0].startswith("Suppose row 1, col 1 were a mine")
    check_proof(position, proof, Count.CLASSIC)


def test_level_4_needs_the_total_count() -> None:
    # the 1 holds the only mine, so the cells far from it are safe: only with the count
    position = Position.from_line("1../...;mines=1")
    far = cell_of(position, 1, 2)
    assert prove(position, far, Count.CLASSIC).verdict is Verdict.EITHER
    proof = prove(position, far, Count.COUNTED)
    assert (proof.verdict, proof.level, proof.numbers) == (Verdict.SAFE, 4, (0,))
    assert set(proof.to_json(position)) == {"verdict", "numbers", "level", "steps"}
    check_proof(position, proof, Count.COUNTED)


def test_level_4_without_any_number() -> None:
    position = Position.from_line("...;mines=3")
    proof = prove(position, 1, Count.COUNTED)
    assert (proof.verdict, proof.level, proof.numbers) == (Verdict.MINE, 4, ())
    check_proof(position, proof, Count.COUNTED)


def test_either_cell_gets_two_layouts() -> None:
    position = Position.from_line("1./..")
    proof = prove(position, cell_of(position, 0, 1))
    assert proof.verdict is Verdict.EITHER and proof.level == 0
    check_proof(position, proof, Count.CLASSIC)
    data = proof.to_json(position)
    assert set(data) == {"verdict", "layouts", "level", "steps"}
    with_mine, without = data["layouts"]
    assert with_mine[0][1] == "*" and without[0][1] == "."


def test_known_mines_make_a_one_number_proof() -> None:
    position = Position.from_line("121/...")
    left_mine = cell_of(position, 1, 0)
    proof = prove(position, cell_of(position, 1, 1), known_mines=[left_mine])
    assert (proof.verdict, proof.level, proof.numbers) == (Verdict.SAFE, 1, (0,))
    assert proof.known == (left_mine,)
    assert "besides the one at row 1, col 0" in proof.steps[0]
    assert proof.to_json(position)["known"] == [[1, 0]]
    # checked by brute force with the known mine placed: the 1 at (0,0) alone forces it
    with_mine = Position.from_line("121/...")
    rules_value, cov = numbers_around(with_mine, 0)
    assert rules_value == 1 and left_mine in cov


def test_known_mine_that_breaks_a_number_is_refused() -> None:
    position = Position.from_line("1../...")
    with pytest.raises(InconsistentPosition, match="known mines"):
        prove(position, 2, known_mines=[3, 4])


def test_flags_are_ignored() -> None:
    plain = Position.from_line("121/...")
    flagged = Position.from_line("121/F.F")
    for cell in plain.covered_cells():
        a, b = prove(plain, cell), prove(flagged, cell)
        assert (a.verdict, a.numbers, a.level) == (b.verdict, b.numbers, b.level)


def test_proof_json_shape() -> None:
    position = Position.from_line("121/...")
    data = prove(position, cell_of(position, 1, 0)).to_json(position)
    assert data["verdict"] == "mine"
    assert data["level"] == 2
    assert all(isinstance(rc, list) and len(rc) == 2 for rc in data["numbers"])
    assert json.loads(json.dumps(data)) == data


def test_hex_and_torus_proofs() -> None:
    for topology in (Topology.HEX, Topology.TORUS):
        position = Position.from_rows(["1110", "....", "0000"], topology)
        try:
            truth = oracle.classify(position)
        except InconsistentPosition:
            continue
        for cell in position.covered_cells():
            proof = prove(position, cell)
            assert proof.verdict is truth.verdict(cell)
            check_proof(position, proof, Count.CLASSIC)


# -- bad input --------------------------------------------------------------------------------


def test_revealed_cell_is_refused_by_name() -> None:
    position = Position.from_line("121/...")
    with pytest.raises(InvalidMove, match=r"cell at row 0, col 1 is revealed \(2\)"):
        prove(position, 1)


def test_hole_and_off_board_are_refused() -> None:
    position = Position.from_line("1#/..")
    with pytest.raises(InvalidMove, match="hole"):
        prove(position, 1)
    with pytest.raises(InvalidMove, match="outside"):
        prove(position, 99)


def test_inconsistent_position_names_the_number() -> None:
    position = Position.from_line("0.2/...")
    with pytest.raises(InconsistentPosition, match="row 0"):
        prove(position, cell_of(position, 1, 2))


def test_counted_needs_a_total() -> None:
    position = Position.from_line("1../...")
    with pytest.raises(ValueError, match="total number of mines"):
        prove(position, cell_of(position, 1, 2), Count.COUNTED)


# -- properties ---------------------------------------------------------------------------


@profile()
@given(scenarios(flags=True), st.sampled_from(tuple(Count)))
def test_proofs_agree_with_the_oracle_and_check_out(scenario: Scenario, count: Count) -> None:
    position = scenario.position
    truth = oracle.classify(position, count)
    for cell in position.covered_cells():
        proof = prove(position, cell, count)
        assert proof.verdict is truth.verdict(cell), (position.line, position.board.coord(cell))
        check_proof(position, proof, count)


@profile()
@given(scenarios(flags=False))
def test_proofs_use_the_fewest_numbers_up_to_three(scenario: Scenario) -> None:
    """No smaller set of numbers forces the cell (checked exhaustively for sizes 1 and 2)."""
    position = scenario.position
    near = [c.source for c in position.constraints]
    for cell in position.covered_cells():
        proof = prove(position, cell)
        if proof.verdict is Verdict.EITHER:
            continue
        mine = proof.verdict is Verdict.MINE
        for size in range(1, min(len(proof.numbers), 3)):
            for group in itertools.combinations(near, size):
                assert not forced_by(position, group, cell, mine)


@profile()
@given(scenarios(flags=False), st.data())
def test_proofs_with_known_mines_check_out(scenario: Scenario, data: st.DataObject) -> None:
    position = scenario.position
    truth = oracle.classify(position)
    mines = sorted(truth.mine_cells())
    known = data.draw(st.sets(st.sampled_from(mines)) if mines else st.just(set()))
    for cell in position.covered_cells():
        if cell in known:
            continue
        proof = prove(position, cell, known_mines=known)
        assert proof.verdict is truth.verdict(cell)
        if proof.verdict is Verdict.EITHER:
            continue
        mine = proof.verdict is Verdict.MINE
        assert set(proof.known) <= known
        assert forced_by(position, proof.numbers, cell, mine, known=known)
        for drop in proof.numbers:
            rest = [n for n in proof.numbers if n != drop]
            assert not forced_by(position, rest, cell, mine, known=known)


# -- step-by-step deduction -----------------------------------------------------------------


def test_pair_rule_closed_form() -> None:
    a = Bound(0, frozenset({10, 11}), 1, 1, value=1)
    b = Bound(1, frozenset({10, 11, 12}), 2, 2, value=2)
    assert pair_forced(a, b) == (set(), {12})
    c = Bound(2, frozenset({11, 12}), 1, 1, value=1)
    assert pair_forced(b, c) == (set(), {10})


def test_steps_on_the_one_two_one() -> None:
    position = Position.from_line("121/...")
    steps = list(deduction_steps(position))
    assert [s.level for s in steps][:1] == [2]
    found_safe = {c for s in steps for c in s.safe}
    found_mines = {c for s in steps for c in s.mines}
    assert found_mines == {cell_of(position, 1, 0), cell_of(position, 1, 2)}
    assert found_safe == {cell_of(position, 1, 1)}
    # after the first pair of numbers, single numbers finish the job
    assert [s.level for s in steps[1:]] == [1] * (len(steps) - 1)


@profile()
@given(scenarios(), st.sampled_from(tuple(Count)))
def test_deduction_steps_are_sound_and_complete(scenario: Scenario, count: Count) -> None:
    position = scenario.position
    truth = oracle.classify(position, count)
    safe: set[Cell] = set()
    mines: set[Cell] = set()
    last_level = 0
    for step in deduction_steps(position, count):
        assert step.safe or step.mines
        assert all(truth.verdict(c) is Verdict.SAFE for c in step.safe)
        assert all(truth.verdict(c) is Verdict.MINE for c in step.mines)
        assert all(c in mines for c in step.known), "a step used a mine not yet found"
        assert 1 <= step.level <= (4 if count is Count.COUNTED else 3)
        assert step.level != 4 or step.technique == "count"
        assert step.text
        safe |= set(step.safe)
        mines |= set(step.mines)
        last_level = max(last_level, step.level)
    assert safe == truth.safe_cells(), "the steps stop before every safe cell is found"
    assert mines == truth.mine_cells()


# -- grading boards ---------------------------------------------------------------------------


def oracle_player_clears(board: Board, layout: frozenset[Cell], first: Cell, count: Count) -> bool:
    """A player who reveals every cell the oracle proves safe, until stuck."""
    counts = [sum(n in layout for n in board.neighbours(c)) for c in range(board.size)]
    grid = bytearray(Position.covered(board).grid)

    def reveal(cell: Cell) -> None:
        stack = [cell]
        while stack:
            c = stack.pop()
            if grid[c] != ord("."):
                continue
            grid[c] = ord("0") + counts[c]
            if counts[c] == 0:
                stack.extend(board.neighbours(c))

    reveal(first)
    while True:
        position = Position(board, bytes(grid), len(layout))
        safe = oracle.classify(position, count).safe_cells()
        if not safe:
            return all(grid[c] != ord(".") or c in layout for c in board.cells())
        for c in safe:
            reveal(c)


@profile()
@given(st.integers(0, 10_000), st.sampled_from(tuple(Count)))
def test_grade_clears_exactly_when_a_perfect_player_does(seed: int, count: Count) -> None:
    rng = random.Random(seed)
    board = Board(rng.randint(3, 5), rng.randint(3, 6), rng.choice(list(Topology.grids())))
    first = rng.randrange(board.size)
    free = [c for c in board.cells() if c not in board.neighbourhood(first)]
    layout = frozenset(rng.sample(free, min(len(free), rng.randint(1, 5))))
    result = grade(board, layout, first, count)
    assert result.cleared == oracle_player_clears(board, layout, first, count)
    level = board_level(board, layout, first, count)
    assert level == (result.level if result.cleared else None)
    assert result.level == max(result.steps, default=0)


def test_board_level_of_a_one_two_one_wall() -> None:
    # a 3x3 board, mines at (2,0) and (2,2): from (0,1) the player sees 000 / 121 / ...
    board = Board(3, 3)
    layout = frozenset({board.cell(2, 0), board.cell(2, 2)})
    result = grade(board, layout, board.cell(0, 1))
    assert result.cleared and result.level == 2


def test_grade_stops_at_max_level() -> None:
    board = Board(3, 3)
    layout = frozenset({board.cell(2, 0), board.cell(2, 2)})
    result = grade(board, layout, board.cell(0, 1), max_level=1)
    assert not result.cleared


def test_deducer_reads_flags_as_covered() -> None:
    position = Position.from_line("121/FFF")
    deducer = Deducer(position.board, position.grid, None, Count.CLASSIC)
    assert deducer.known_mines == set()
    assert len(deducer.bounds()) == 3


# -- devil-check --explain ------------------------------------------------------------------


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from devil.cli import check as cli

    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def one_two_one(tmp_path: Path) -> str:
    path = tmp_path / "p.txt"
    path.write_text("121\n...\n")
    return str(path)


def test_cli_explain_text(capsys: pytest.CaptureFixture[str], one_two_one: str) -> None:
    code, out, _ = run_cli(capsys, one_two_one, "--cell", "1,1", "--explain")
    assert code == 0
    assert "proof: safe, level 3" in out
    assert "numbers used: (row 0, col 0), (row 0, col 1) and (row 0, col 2)" in out
    assert "Suppose row 1, col 1 were a mine." in out


def test_cli_explain_json(capsys: pytest.CaptureFixture[str], one_two_one: str) -> None:
    code, out, _ = run_cli(capsys, one_two_one, "--cell", "1,2", "--explain", "--format", "json")
    assert code == 1
    proof = json.loads(out)["proof"]
    assert set(proof) == {"verdict", "numbers", "level", "steps"}
    assert proof["verdict"] == "mine" and proof["level"] == 2
    assert proof["numbers"] in ([[0, 0], [0, 1]], [[0, 1], [0, 2]])
    position = Position.from_line("121/...")
    numbers = [position.board.cell(r, c) for r, c in proof["numbers"]]
    assert forced_by(position, numbers, position.board.cell(1, 2), True)


def test_cli_explain_either_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "e.txt"
    path.write_text("1.\n..\n")
    code, out, _ = run_cli(capsys, str(path), "--cell", "0,1", "--explain", "--format", "json")
    assert code == 1
    proof = json.loads(out)["proof"]
    assert set(proof) == {"verdict", "layouts", "level", "steps"}
    with_mine, without = proof["layouts"]
    assert with_mine[0] == "1*" and without[0][1] == "."


def test_cli_explain_counted(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "c.txt"
    path.write_text("1..\n...\n")
    code, out, _ = run_cli(capsys, str(path), "--cell", "1,2", "--mines", "1", "--explain")
    assert code == 0
    assert "level 4 (the mine count)" in out and "and the mine total" in out


def test_cli_explain_needs_a_cell(capsys: pytest.CaptureFixture[str], one_two_one: str) -> None:
    code, _, err = run_cli(capsys, one_two_one, "--explain")
    assert code == 2
    assert "--explain needs --cell ROW,COL" in err


def brute_level(board: Board, layout: frozenset[Cell], first: Cell) -> int | None:
    """The board's level by brute force: at each point, the fewest numbers (1, 2, else 3 when
    the oracle still finds a safe or mine cell) that, with the mines found so far, decide some
    cell; apply what they decide and go on. None when stuck before the board is clear."""
    counts = [sum(n in layout for n in board.neighbours(c)) for c in range(board.size)]
    grid = bytearray(Position.covered(board).grid)
    known: set[Cell] = set()

    def reveal(cell: Cell) -> None:
        stack = [cell]
        while stack:
            c = stack.pop()
            if grid[c] != ord("."):
                continue
            grid[c] = ord("0") + counts[c]
            if counts[c] == 0:
                stack.extend(n for n in board.neighbours(c) if n not in known)

    def decided_by(rules: list[tuple[frozenset[Cell], int]]) -> dict[Cell, int]:
        cells = sorted(set().union(*(cells for cells, _ in rules)))
        seen: dict[Cell, set[int]] = {c: set() for c in cells}
        for bits in itertools.product((0, 1), repeat=len(cells)):
            value = dict(zip(cells, bits, strict=True))
            if all(sum(value[c] for c in cs) == need for cs, need in rules):
                for c in cells:
                    seen[c].add(value[c])
        return {c: next(iter(v)) for c, v in seen.items() if len(v) == 1}

    reveal(first)
    level = 0
    target = board.cell_count - len(layout)
    while sum(1 for c in board.cells() if grid[c] != ord(".")) < target:
        rules = []
        for c in board.cells():
            if grid[c] == ord(".") or grid[c] == ord("#"):
                continue
            around = [n for n in board.neighbours(c) if grid[n] == ord(".")]
            unknown = frozenset(n for n in around if n not in known)
            if unknown:
                rules.append((unknown, counts[c] - sum(n in known for n in around)))
        found: dict[Cell, int] = {}
        step = 0
        for size in (1, 2):
            for combo in itertools.combinations(rules, size):
                if size == 2 and not combo[0][0] & combo[1][0]:
                    continue
                found = decided_by(list(combo))
                if found:
                    break
            if found:
                step = size
                break
        if not found:
            position = Position(board, bytes(grid), len(layout))
            verdicts = oracle.classify(position).verdicts
            found = {
                c: int(v is Verdict.MINE)
                for c, v in verdicts.items()
                if v is not Verdict.EITHER and c not in known
            }
            if not found:
                return None
            step = 3
        level = max(level, step)
        for c, mine in found.items():
            if mine:
                known.add(c)
            else:
                reveal(c)
    return level


@profile()
@given(st.integers(0, 100_000))
def test_board_level_matches_a_brute_force_grader(seed: int) -> None:
    rng = random.Random(seed)
    board = Board(rng.randint(3, 5), rng.randint(3, 6), rng.choice(list(Topology.grids())))
    first = rng.randrange(board.size)
    free = [c for c in board.cells() if c not in board.neighbourhood(first)]
    layout = frozenset(rng.sample(free, min(len(free), rng.randint(1, 6))))
    assert board_level(board, layout, first) == brute_level(board, layout, first)


# -- the words of a proof are true ------------------------------------------------------------
#
# Proof steps make claims a player checks on the board: "the 1 at row 0, col 0 touches only
# (row 1, col 0) and (row 1, col 1)". These tests read every such claim back out of the text and
# check it against the board's real neighbours, never against the code that wrote it.

SAMPLE_POSITIONS = POSITIONS
NAME = r"row (\d+), col (\d+)"
_LIST = rf"\({NAME}\)(?:(?:, | and )\({NAME}\))*|{NAME}"
_TOUCH_CLAIM = re.compile(
    rf"\bthe (?P<value>\d) at (?P<subject>{NAME}) touches "
    r"(?:(?P<too>(?:those|that cell) too)|(?P<only>only )?"
    r"(?:(?P<k>\d+) (?P<word>covered|undecided) cells?, )?"
    rf"(?P<list>{_LIST})(?P<still> still undecided)?)",
    re.IGNORECASE,
)
_NO_NUMBER = re.compile(rf"(?P<subject>{NAME}) touches no revealed number")
_NEARBY = re.compile(
    r"the numbers? nearby \((?P<names>[^()]*)\) allows? only [\d or.]+ mines? among the "
    r"(?P<k>\d+) (?P<word>covered|undecided) cells? (?:it touches|they touch)"
    rf"(?:, (?P<inc>{NAME}) included| and (?P<itself>{NAME}) itself)"
)
_AMONG_ITS = re.compile(
    rf"\bthe (?P<value>\d) at (?P<subject>{NAME}) needs [^.;:]*? (?:among|on) its "
    rf"(?:one|(?P<k>\d+)) (?P<word>covered|undecided) cells?, (?P<list>{_LIST})",
    re.IGNORECASE,
)
_TRIED = re.compile(r"the (?P<k>\d+) (?P<word>covered|undecided) cells these numbers touch")
_STEP_COUNT = re.compile(r"among the \d+ undecided cells they touch,")  # a step, not _NEARBY
_NUMBER = re.compile(rf"\bthe (\d) at {NAME}", re.IGNORECASE)


def named_cells(position: Position, text: str) -> list[Cell]:
    return [position.board.cell(int(r), int(c)) for r, c in re.findall(NAME, text)]


def covered_next_to(position: Position, sources: Iterable[Cell]) -> set[Cell]:
    board = position.board
    return {n for s in sources for n in board.neighbours(s) if position.is_covered(n)}


def check_sentence(position: Position, sentence: str, numbers: Iterable[Cell]) -> int:
    """Check every "touches" claim and every "the N at row r, col c" in ``sentence`` against
    the board; return how many claims were checked. ``numbers``: the numbers the proof (or
    step) uses. Fails on a "touch" the patterns below do not read."""
    board = position.board
    for value, r, c in _NUMBER.findall(sentence):
        cell = board.cell(int(r), int(c))
        assert position.number(cell) == int(value), f"no {value} at row {r}, col {c}: {sentence}"
    checked = 0
    previous: set[Cell] = set()
    for m in _TOUCH_CLAIM.finditer(sentence):
        (subject,) = named_cells(position, m["subject"])
        around = covered_next_to(position, [subject])
        if m["too"]:
            assert previous and previous <= around, (
                f"{m['subject']} does not touch those: {sentence}"
            )
        else:
            listed = set(named_cells(position, m["list"]))
            assert listed <= around, f"{m['subject']} does not touch all of {m['list']}: {sentence}"
            if m["k"]:
                assert int(m["k"]) == len(listed), sentence
            if m["word"] == "covered" or (m["only"] and not m["still"]):
                assert listed == around, f"{m['subject']} touches more than {m['list']}: {sentence}"
            previous = listed
        checked += 1
    for m in _NO_NUMBER.finditer(sentence):
        (subject,) = named_cells(position, m["subject"])
        assert all(position.number(n) is None for n in board.neighbours(subject)), sentence
        checked += 1
    nearby_spans: list[tuple[int, int]] = []
    for m in _NEARBY.finditer(sentence):
        nearby_spans.append(m.span())
        sources = [board.cell(int(r), int(c)) for _, r, c in _NUMBER.findall(m["names"])]
        assert sources, sentence
        touched = covered_next_to(position, sources)
        if " more" not in m["names"]:
            if m["word"] == "covered":
                assert int(m["k"]) == len(touched), f"they touch {len(touched)}: {sentence}"
            else:
                assert int(m["k"]) <= len(touched), sentence
        if m["inc"]:
            (inc,) = named_cells(position, m["inc"])
            assert inc in touched, f"{m['inc']} is not next to those numbers: {sentence}"
        if m["itself"] and " more" not in m["names"] and m["word"] == "covered":
            (itself,) = named_cells(position, m["itself"])
            assert itself not in touched, sentence
        checked += 1
    for m in _TRIED.finditer(sentence):
        touched = covered_next_to(position, numbers)
        if m["word"] == "covered":
            assert int(m["k"]) == len(touched), f"they touch {len(touched)}: {sentence}"
        else:
            assert int(m["k"]) <= len(touched), sentence
        checked += 1
    checked += sum(  # a step's count, unless _NEARBY above already read that very claim
        1
        for m in _STEP_COUNT.finditer(sentence)
        if not any(start <= m.start() < end for start, end in nearby_spans)
    )
    for m in _AMONG_ITS.finditer(sentence):  # "needs no mine among its 2 covered cells, ..."
        (subject,) = named_cells(position, m["subject"])
        around = covered_next_to(position, [subject])
        listed = set(named_cells(position, m["list"]))
        assert listed <= around, f"{m['subject']} does not touch all of {m['list']}: {sentence}"
        assert len(listed) == int(m["k"] or 1), sentence
        if m["word"] == "covered":
            assert listed == around, f"{m['subject']} touches more than {m['list']}: {sentence}"
        previous = listed
    assert len(re.findall(r"\btouch(?:es)?\b", sentence)) == checked, f"unread claim: {sentence}"
    return checked


def check_proof_words(position: Position, proof: Proof) -> int:
    return sum(check_sentence(position, s, proof.numbers) for s in proof.steps)


def test_counted_proof_does_not_say_a_number_touches_a_far_cell() -> None:
    # QA: "the numbers nearby (the 1 at (0,0)) allow only 2 mines among the 3 cells they
    # touch, (2,2) included" -- (0,0) is not next to (2,2).
    position = Position.from_text("# mines: 1\n1??\n1??\n...\n")
    for r, c in ((2, 2), (1, 2), (0, 2)):
        proof = prove(position, cell_of(position, r, c), Count.COUNTED)
        assert proof.level == 4
        assert check_proof_words(position, proof) >= 1
        assert "the total of 1 mine decides" in proof.steps[0]
        assert f"and row {r}, col {c} itself" in " ".join(proof.steps)


def test_the_touch_checker_catches_false_claims() -> None:
    position = Position.from_line("1../...")
    with pytest.raises(AssertionError):
        check_sentence(position, "The 1 at row 0, col 0 touches only row 0, col 2.", ())
    with pytest.raises(AssertionError):  # true cells, but it touches more
        check_sentence(position, "The 1 at row 0, col 0 touches only row 0, col 1.", ())
    with pytest.raises(AssertionError):
        check_sentence(position, "The 2 at row 0, col 0 touches only row 0, col 1.", ())
    with pytest.raises(AssertionError):  # a touch claim the checker does not read
        check_sentence(position, "The 1 touches a cell somewhere.", ())
    ok = "The 1 at row 0, col 0 touches only (row 0, col 1), (row 1, col 0) and (row 1, col 1)."
    assert check_sentence(position, ok, ()) == 1


@profile()
@given(scenarios(flags=True), st.sampled_from(tuple(Count)), st.data())
def test_every_touch_claim_in_a_proof_is_true(
    scenario: Scenario, count: Count, data: st.DataObject
) -> None:
    position = scenario.position
    truth = oracle.classify(position, count)
    mines = sorted(truth.mine_cells())
    known = data.draw(st.sets(st.sampled_from(mines)) if mines else st.just(set()))
    for cell in position.covered_cells():
        check_proof_words(position, prove(position, cell, count))
        if cell not in known:
            check_proof_words(position, prove(position, cell, count, known_mines=known))


@profile()
@given(scenarios(), st.sampled_from(tuple(Count)))
def test_every_touch_claim_in_a_deduction_step_is_true(scenario: Scenario, count: Count) -> None:
    position = scenario.position
    for step in deduction_steps(position, count):
        for sentence in step.text:
            check_sentence(position, sentence, step.numbers)


def sample_positions() -> list[Path]:
    picked = sorted(SAMPLE_POSITIONS.glob("inter_*.txt"))[:6]
    return picked + sorted(SAMPLE_POSITIONS.glob("expert_*.txt"))[:6]


@pytest.mark.skipif(not SAMPLE_POSITIONS.is_dir(), reason="tests/data/positions not found")
@pytest.mark.parametrize("path", sample_positions(), ids=lambda p: p.stem)
def test_touch_claims_on_the_sample_positions(path: Path) -> None:
    """Real mid-game positions: proofs for a spread of covered cells, both rules, and the
    whole step-by-step deduction under the counted rule."""
    position = Position.from_text(path.read_text())
    edge = sorted(position.edge)
    rng = random.Random(path.name)
    cells = rng.sample(edge, min(12, len(edge)))
    claims = 0
    for cell in cells:
        for count in Count:
            claims += check_proof_words(position, prove(position, cell, count))
    for step in deduction_steps(position, Count.COUNTED, limit=60):
        for sentence in step.text:
            claims += check_sentence(position, sentence, step.numbers)
    assert claims > 0


def test_a_subset_proof_does_not_repeat_its_conclusion() -> None:
    """When the subset rule's second clause names the cell alone ("so row 0, col 2 is
    safe"), no separate "So row 0, col 2 is safe." repeats it."""
    from devil.teach.bounds import number_bounds
    from devil.teach.wording import explain

    position = Position.from_text("...\n111")  # the 1s at (1,0) and (1,1): (0,2) is safe
    board = position.board
    by_source = {b.source: b for b in number_bounds(position)}
    pair = [by_source[board.cell(1, 0)], by_source[board.cell(1, 1)]]
    steps = explain(position, board.cell(0, 2), False, pair)
    assert len(steps) == 1 and steps[0].endswith("so row 0, col 2 is safe."), steps
