"""The rest of the engine on graph boards: the incremental solver a game uses, deduction
steps, proofs and no-guess generation, checked against the oracle."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from devil import oracle
from devil.analysis import Verdict
from devil.generate import no_guess_layout
from devil.graphs.fileformat import read_graph
from devil.graphs.tilings import TILINGS, tiling_board
from devil.rules import Count, Rules
from devil.solver import Solver
from devil.teach.levels import board_level, deduction_steps
from devil.teach.proof import prove
from tests.helpers.graph_strategies import graph_boards, tiling_boards
from tests.helpers.strategies import Scenario, Step, profile, reveal_sequences, scenarios

BOARDS = graph_boards() | tiling_boards()


@profile()
@given(reveal_sequences(BOARDS), st.sampled_from(Count))
def test_incremental_analysis_matches_the_oracle(
    sequence: tuple[Scenario, list[Step]], count: Count
) -> None:
    start, steps = sequence
    solver = Solver(count)
    for position, changed in [(start.position, None), *((s.position, s.changed) for s in steps)]:
        analysis = solver.analyse(position, changed=changed)
        truth = oracle.classify(position, count)
        for cell in position.covered_cells():
            assert analysis.verdict(cell) is truth.verdict(cell), position.where(cell)


@profile()
@given(scenarios(BOARDS), st.sampled_from(Count), st.data())
def test_proofs_and_steps_agree_with_the_oracle(
    scenario: Scenario, count: Count, data: st.DataObject
) -> None:
    position = scenario.position
    truth = oracle.classify(position, count)
    decided = [c for c in position.covered_cells() if truth.verdict(c) is not Verdict.EITHER]
    if decided:
        cell = data.draw(st.sampled_from(sorted(decided)))
        proof = prove(position, cell, count)
        assert proof.verdict is truth.verdict(cell)
        assert all("row " not in step for step in proof.steps)  # cells are named by label
    for step in deduction_steps(position, count, limit=20):
        for cell in step.safe:
            assert truth.verdict(cell) is Verdict.SAFE
        for cell in step.mines:
            assert truth.verdict(cell) is Verdict.MINE


@pytest.mark.parametrize("name", sorted(TILINGS))
def test_no_guess_generation_on_every_tiling(name: str) -> None:
    preset = TILINGS[name].preset("beginner")
    board = tiling_board(name, preset.size)
    mines = max(1, board.cell_count // 10)
    rng = random.Random(7)
    first = rng.choice(list(board.cells()))
    for _ in range(3):
        made = no_guess_layout(board, mines, first, Rules(), rng, 300)
        assert len(made.layout) == mines
        assert not made.layout & board.neighbourhood(first)
        if made.guaranteed:
            assert board_level(board, made.layout, first) is not None
            return
    pytest.fail(f"no no-guess {name} board in 900 tries")


def test_graph_is_not_a_grid_topology_anywhere_text_names_one() -> None:
    from devil.board import Topology
    from devil.game.params import GameParams, ParamsError

    with pytest.raises(ValueError, match="expected one of square, torus, hex"):
        Topology.parse("graph")
    with pytest.raises(ParamsError, match="unknown topology 'graph'"):
        GameParams.from_dict({"topology": "graph"})
    with pytest.raises(ParamsError, match="grid Topology"):
        GameParams(topology=Topology.GRAPH)


LABELLED = {
    "format": "mine-devil-graph",
    "version": 1,
    "cells": [
        {"id": "a", "label": "Alpha", "state": "."},
        {"id": "b", "label": "Bravo", "state": 1},
        {"id": "c", "label": "Charlie", "state": "."},
        {"id": "d", "label": "Delta", "state": 1},
        {"id": "e", "label": "Echo", "state": "."},
        {"id": "z", "label": "Zulu", "state": 0},
        {"id": "y", "label": "Yankee", "state": "."},
    ],
    "edges": [["a", "b"], ["b", "c"], ["c", "d"], ["d", "e"], ["b", "e"], ["z", "y"]],
}


def test_proofs_and_steps_keep_a_label_as_written() -> None:
    """A label starting a sentence keeps its capitals (``str.capitalize`` made "Delta"
    "delta"), and a graph cell is "cell Charlie", never "the cell at cell Charlie"."""
    position = read_graph(json.dumps(LABELLED))
    graph = position.board.graph
    assert graph is not None
    assert prove(position, graph.cell("a")).steps[0].startswith("The 1 at cell Delta (id d) ")
    assert (
        prove(position, graph.cell("c"))
        .steps[0]
        .startswith("Cell Charlie (id c) could be either: ")
    )
    steps = [step.text[0] for step in deduction_steps(position, Count.CLASSIC)]
    assert steps[0].startswith("The 0 at cell Zulu (id z) has no mine around it")
    assert steps[1].startswith("The 1 at cell Delta (id d) ")
