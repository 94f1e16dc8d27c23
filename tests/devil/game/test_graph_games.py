"""Games on graph boards (``GameParams.graph``): a random player's every click judged as the
brute-force oracle says, under both rules, on small built-in tilings and on random graphs
(any degree, disconnected pieces, isolated cells); chords and zero cascades along the graph's
neighbours (numbers above 8 too); no-guess boards won by safe reveals; the stored form."""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import pytest

from devil import oracle
from devil.analysis import Verdict
from devil.board import Topology
from devil.errors import IllegalMove
from devil.game import (
    FIRST_VERSION,
    LATEST_VERSION,
    Game,
    GameParams,
    GraphSpec,
    GraphSpecError,
    Move,
    MoveKind,
    ParamsError,
    Status,
    keep_free,
    said,
)
from devil.rules import Count, Mercy, Rules
from devil.solver import classify
from tests.helpers.games import covered_zero_neighbours

SMALL_TILINGS = [
    ("penrose", (30,)),
    ("cube", (2,)),
    ("triangle", (4, 4)),
    ("geodesic", (1,)),
    ("cairo", (3, 3)),
    ("snub-square", (3, 3)),
    ("truncated-square", (3, 3)),
    ("rhombille", (3, 3)),
]


def graph_file(cells: list[str], edges: list[tuple[str, str]], **extra: Any) -> dict[str, Any]:
    return {
        "format": "mine-devil-graph",
        "version": 1,
        "cells": [{"id": c, "state": "."} for c in cells],
        "edges": [list(e) for e in edges],
        **extra,
    }


def random_graph(rng: random.Random) -> GraphSpec:
    """8-16 cells, random pairs (some dense, some isolated cells, often several pieces)."""
    n = rng.randint(8, 16)
    ids = [f"v{i}" for i in range(n)]
    p = rng.choice([0.15, 0.3, 0.6])
    edges = [(ids[i], ids[j]) for i in range(n) for j in range(i + 1, n) if rng.random() < p]
    return GraphSpec.custom(graph_file(ids, edges))


def play_against_oracle(params: GameParams, rng: random.Random) -> tuple[int, int]:
    """A random player (reveals, marks, chords); every judgement checked against the oracle.
    Returns (losses, wins)."""
    board = params.board()
    count = params.rules.count
    cells = list(board.cells())
    game = Game.new(params).play(Move.reveal(*board.coord(rng.choice(cells))))
    while game.status is Status.PLAYING:
        try:
            verdicts = oracle.classify(game.position, count).verdicts
        except ValueError:
            break  # too big for the oracle
        roll = rng.random()
        if roll < 0.2:  # marks never change a verdict
            mark = rng.choice(sorted(verdicts))
            kind = MoveKind.UNFLAG if game.position.is_flagged(mark) else MoveKind.FLAG
            game = game.play(Move(kind, *board.coord(mark)))
            continue
        if roll < 0.35:
            chords = [
                c
                for c in cells
                if (v := game.position.number(c)) is not None
                and sum(game.position.is_flagged(n) for n in board.neighbours(c)) == v
                and any(
                    game.position.is_covered(n) and not game.position.is_flagged(n)
                    for n in board.neighbours(c)
                )
            ]
            if chords:
                cell = rng.choice(chords)
                targets = [
                    n
                    for n in board.neighbours(cell)
                    if game.position.is_covered(n) and not game.position.is_flagged(n)
                ]
                after = game.play(Move.chord(*board.coord(cell)))
                if all(verdicts[t] is Verdict.SAFE for t in targets):
                    assert after.status is not Status.LOST
                if after.status is Status.LOST:
                    assert after.loss in targets and verdicts[after.loss] is not Verdict.SAFE
                game = after
                continue
        cell = rng.choice(sorted(c for c in verdicts if not game.position.is_flagged(c)))
        after = game.play(Move.reveal(*board.coord(cell)))
        if verdicts[cell] is Verdict.SAFE:
            assert after.status is not Status.LOST
            assert covered_zero_neighbours(after.position, game.position) == []
        else:
            assert after.status is Status.LOST and after.loss == cell
            assert after.witness is not None and cell in after.witness
            assert oracle.is_consistent(game.position, after.witness, count)
        game = after
    return int(game.status is Status.LOST), int(game.status is Status.WON)


@pytest.mark.parametrize("count", list(Count))
@pytest.mark.parametrize(("name", "size"), SMALL_TILINGS)
def test_tiling_games_agree_with_the_oracle(count: Count, name: str, size: tuple[int, ...]) -> None:
    rng = random.Random(f"{name}/{count.value}")
    losses = 0
    for seed in range(6):
        spec = GraphSpec(name, size, sides=seed % 3 == 2)
        cells = spec.board().cell_count
        mines = max(1, min(cells - keep_free(spec.board()), cells // 6))
        params = GameParams(mines=mines, rules=Rules(count), no_guess=False, seed=seed, graph=spec)
        losses += play_against_oracle(params, rng)[0]
    assert losses > 0  # the random player did click cells that could be mines


@pytest.mark.parametrize("count", list(Count))
def test_random_graph_games_agree_with_the_oracle(count: Count) -> None:
    rng = random.Random(f"graphs/{count.value}")
    played = 0
    for seed in range(30):
        spec = random_graph(rng)
        board = spec.board()
        room = board.cell_count - keep_free(board)
        if room < 1:
            continue
        params = GameParams(
            mines=rng.randint(1, room), rules=Rules(count), no_guess=False, seed=seed, graph=spec
        )
        play_against_oracle(params, rng)
        played += 1
    assert played >= 10


def test_fair_mercy_on_a_graph_never_punishes_a_forced_guess() -> None:
    rng = random.Random(5)
    for seed in range(10):
        spec = GraphSpec("penrose", (30,))
        params = GameParams(
            mines=6, rules=Rules(Count.CLASSIC, Mercy.FAIR), no_guess=False, seed=seed, graph=spec
        )
        board = params.board()
        game = Game.new(params).play(Move.reveal(*board.coord(board.graph.slots[0])))  # type: ignore[union-attr]
        while game.status is Status.PLAYING:
            verdicts = oracle.classify(game.position).verdicts
            open_ = sorted(c for c, v in verdicts.items() if v is not Verdict.MINE)
            cell = rng.choice(open_)
            after = game.play(Move.reveal(*board.coord(cell)))
            if not any(v is Verdict.SAFE for v in verdicts.values()):
                assert after.status is not Status.LOST
            game = after


@pytest.mark.parametrize(("name", "size"), [("penrose", (80,)), ("cube", (4,))])
@pytest.mark.parametrize("count", list(Count))
def test_no_guess_graph_games_are_won_by_safe_reveals(
    name: str, size: tuple[int, ...], count: Count
) -> None:
    spec = GraphSpec(name, size)
    board = spec.board()
    params = GameParams(mines=board.cell_count // 8, rules=Rules(count), seed=3, graph=spec)
    game = Game.new(params).play(Move.reveal(*board.coord(next(board.cells()))))
    assert game.guaranteed and game.no_guess
    while game.status is Status.PLAYING:
        verdicts = classify(game.position, count).verdicts
        safe = [c for c, v in verdicts.items() if v is Verdict.SAFE]
        assert safe
        game = game.play(Move.reveal(*board.coord(safe[0])))
    assert game.status is Status.WON


def two_hubs() -> GraphSpec:
    """Two hubs of 12 leaves each, joined by a path of 5: numbers above 8."""
    ids = ["a", "b", *(f"a{i}" for i in range(12)), *(f"b{i}" for i in range(12))]
    ids += [f"p{i}" for i in range(5)]
    edges = [("a", f"a{i}") for i in range(12)] + [("b", f"b{i}") for i in range(12)]
    edges += [("a", "p0"), ("p0", "p1"), ("p1", "p2"), ("p2", "p3"), ("p3", "p4"), ("p4", "b")]
    return GraphSpec.custom(graph_file(ids, edges))


def test_chords_and_numbers_above_eight() -> None:
    spec = two_hubs()
    board = spec.board()
    layout = board.graph
    assert layout is not None
    start = board.coord(layout.cell("p2"))
    for seed in range(400):
        params = GameParams(mines=17, no_guess=False, seed=seed, graph=spec)
        game = Game.new(params).play(Move.reveal(*start))
        hub = layout.cell("a")
        value = game.position.number(hub)
        if value is None or value < 9:
            continue
        assert game.layout is not None
        for leaf in board.neighbours(hub):
            if leaf in game.layout:
                game = game.play(Move.flag(*board.coord(leaf)))
        targets = [n for n in board.neighbours(hub) if not game.position.is_flagged(n)]
        verdicts = classify(game.position).verdicts
        after = game.play(Move.chord(*board.coord(hub)))  # legal above 8 too
        if after.status is Status.LOST:  # the devil: an unflagged leaf could be a mine
            assert after.loss in targets and verdicts[after.loss] is not Verdict.SAFE
        else:
            assert all(not after.position.is_covered(n) for n in targets)
        assert Game.replay(params, [str(m) for m in after.moves]) == after
        return
    pytest.fail("no seed put 9 or more mines around the hub")


def test_a_chord_on_a_number_with_the_wrong_flags_is_illegal() -> None:
    spec = GraphSpec("cube", (3,))
    params = GameParams(mines=8, no_guess=False, seed=2, graph=spec)
    board = params.board()
    game = Game.new(params).play(Move.reveal(*board.coord(next(board.cells()))))
    number = next(c for c in board.cells() if (game.position.number(c) or 0) > 0)
    with pytest.raises(IllegalMove, match="flagged neighbours"):
        game.play(Move.chord(*board.coord(number)))


def test_a_refused_move_names_the_cell_by_id_not_by_row_and_col() -> None:
    """Row and column of a graph cell are the engine's own: a refusal quotes the move
    and the cell by id ("reveal front0-0: cell front0-0 is already revealed")."""
    params = GameParams(mines=8, no_guess=False, seed=2, graph=GraphSpec("cube", (3,)))
    board = params.board()
    graph = board.graph
    assert graph is not None
    first = next(board.cells())
    game = Game.new(params).play(Move.reveal(*board.coord(first)))
    covered = next(c for c in board.cells() if game.position.is_covered(c))
    flagged = game.play(Move.flag(*board.coord(covered)))
    name, other = graph.id(first), graph.id(covered)
    refused = [
        (game, Move.reveal(*board.coord(first)), f"reveal {name}: cell {name} is already revealed"),
        (game, Move.flag(*board.coord(first)), f"flag {name}: cell {name} is already revealed"),
        (game, Move.unflag(*board.coord(covered)), f"unflag {other}: cell {other} is not flagged"),
        (flagged, Move.reveal(*board.coord(covered)), f"reveal {other}: cell {other} is flagged"),
        (game, Move.chord(*board.coord(covered)), f"chord {other}: cell {other} is not a"),
    ]
    for before, move, words in refused:
        with pytest.raises(IllegalMove) as refusal:
            before.play(move)
        assert str(refusal.value).startswith(words)


def test_an_id_with_spaces_or_quotes_is_quoted_in_every_message() -> None:
    """A refused move's message and a replay's error say a cell the same way: bare when its
    id is plain, quoted as the move list writes it otherwise (``cell "b "``: a bare ``b ``
    read as ``b``)."""
    ids = ["b ", 'say "hi"', "plain", "x", "y"]
    edges = [("b ", "x"), ('say "hi"', "x"), ("plain", "y"), ("x", "y")]
    spec = GraphSpec.custom(graph_file(ids, edges))
    board = GameParams(mines=1, no_guess=False, seed=1, graph=spec).board()
    graph = board.graph
    assert graph is not None
    game = Game.new(GameParams(mines=1, no_guess=False, seed=1, graph=spec))
    for cell_id, shown in [("b ", '"b "'), ('say "hi"', '"say \\"hi\\""'), ("plain", "plain")]:
        cell = graph.find(cell_id)
        assert cell is not None
        move = Move.unflag(*board.coord(cell))
        with pytest.raises(IllegalMove) as refusal:
            game.play(move)
        assert str(refusal.value) == f"unflag {shown}: cell {shown} is not flagged"
        assert said(board, move) == f"unflag {shown}"


# -- stored form ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec",
    [
        GraphSpec("penrose", (80,)),
        GraphSpec("cube", (4,), sides=True),
        GraphSpec("triangle", (5, 6)),
        two_hubs(),
    ],
)
def test_graph_params_round_trip_and_replay(spec: GraphSpec) -> None:
    params = GameParams(mines=5, rules=Rules(Count.COUNTED, Mercy.FAIR), seed=9, graph=spec)
    stored = json.loads(json.dumps(params.to_dict()))
    back = GameParams.from_dict(stored)
    assert back == params and back.board() == params.board()
    assert back.topology is Topology.GRAPH
    board = params.board()
    game = Game.new(params).play(Move.reveal(*board.coord(next(board.cells()))))
    assert Game.replay(back, [str(m) for m in game.moves]).position == game.position


def test_a_game_keeps_its_version_and_games_stored_without_one_are_the_first() -> None:
    spec = GraphSpec("penrose", (80,))
    latest = GameParams(mines=5, seed=9, graph=spec, version=LATEST_VERSION)
    stored = json.loads(json.dumps(latest.to_dict()))
    assert stored["version"] == LATEST_VERSION
    assert GameParams.from_dict(stored) == latest
    del stored["version"]  # as every game stored before versions existed
    assert GameParams.from_dict(stored).version == FIRST_VERSION
    assert "version" not in GameParams(mines=5, seed=9, graph=spec).to_dict()


def test_grid_params_store_exactly_as_before() -> None:
    params = GameParams(9, 9, 10, Topology.HEX, frozenset({3}), Rules(), True, seed=4)
    assert params.to_dict() == {
        "height": 9, "width": 9, "mines": 10, "topology": "hex", "holes": [3],
        "count": "classic", "mercy": "strict", "no_guess": True, "seed": 4,
    }  # fmt: skip
    assert GameParams.from_dict(params.to_dict()) == params
    assert params.graph is None


@pytest.mark.parametrize(
    ("stored", "message"),
    [
        ({"graph": {"tiling": "pentagon", "size": [3]}}, "graph.tiling: unknown tiling"),
        ({"graph": {"tiling": "cube", "size": [2, 2]}}, "graph.size: cube takes 1"),
        ({"graph": {"tiling": "penrose", "size": [90000]}}, "graph.size: penrose at"),
        ({"graph": {"tiling": "cube", "size": [3], "colour": 1}}, "graph.colour: unknown key"),
        ({"graph": {}}, "graph: give either a tiling or a custom board file"),
        ({"graph": {"file": "{}"}}, "graph.file"),
        ({"graph": {"tiling": "cube", "size": [2]}, "mines": 100}, "do not fit on the cube 2"),
    ],
)
def test_bad_graph_params_name_the_field(stored: dict[str, Any], message: str) -> None:
    with pytest.raises((ParamsError, GraphSpecError), match=message):
        GameParams.from_dict(stored)


def test_a_custom_board_error_names_the_json_path() -> None:
    bad = graph_file(["a", "b"], [("a", "c")])
    with pytest.raises(GraphSpecError, match=r"graph\.edges\[0\]: unknown id 'c'") as caught:
        GraphSpec.custom(bad, "graph")
    assert caught.value.path == "graph.edges[0]"


def test_a_stored_far_flung_board_still_loads_though_new_ones_are_refused() -> None:
    """Drawing coordinates are bounded (1e9) since custom boards of 1e308 broke the layout;
    a game stored before, drawn at 1e12, must keep loading and replaying."""
    far = {
        "format": "mine-devil-graph",
        "version": 1,
        "cells": [
            {"id": "a", "state": ".", "at": [0, 0]},
            {"id": "b", "state": ".", "at": [5e10, 1e12]},
            {"id": "c", "state": ".", "polygon": [[0, 0], [1e12, 0], [0, 3]]},
            {"id": "d", "state": ".", "at": [-1e12, 0]},
            {"id": "e", "state": ".", "at": [-2e12, 0]},
        ],
        "edges": [["a", "b"], ["b", "c"], ["a", "d"], ["d", "e"]],
    }
    with pytest.raises(GraphSpecError, match=r"graph\.cells\[1\]\.at: must be a point"):
        GraphSpec.custom(far, "graph")
    stored = {"graph": {"file": json.dumps(far)}, "mines": 1, "seed": 5}
    params = GameParams.from_dict(stored)
    board = params.board()
    assert board.cell_count == 5
    game = Game.new(params).play(Move.reveal(*board.coord(next(board.cells()))))
    assert Game.replay(params, [str(m) for m in game.moves]) == game


@pytest.mark.parametrize(
    ("name", "size", "digest"),
    [
        ("penrose", (80,), "cc7385c7be7e74a9"),
        ("cube", (4,), "f8090476343a288d"),
        ("geodesic", (2,), "4e2ae7ff74e68887"),
        ("triangle", (9, 9), "1596ee02dfafe427"),
    ],
)
def test_stored_tiling_games_keep_their_cells(
    name: str, size: tuple[int, ...], digest: str
) -> None:
    """A stored graph game is its tiling's name and size plus moves by slot: if a tiling's
    cells, ids, edges or their slots on the virtual grid change, stored games replay
    differently. Change this digest only together with a way to replay the old games."""
    board = GraphSpec(name, size).board()
    assert board.graph is not None
    graph = board.graph.graph
    text = repr((board.height, board.width, board.graph.slots, [c.id for c in graph.cells],
                 graph.edges))  # fmt: skip
    assert hashlib.sha256(text.encode()).hexdigest()[:16] == digest
