"""The devil rule: what happens when a player reveals a covered cell, as one pure function.

``judge(analysis, cell, rules, seed)`` answers from the solver's analysis of the visible
position alone (never from the hidden layout):

- ``Safe()``: no consistent layout has a mine on ``cell``; the game opens it.
- ``Lose(witness)``: the cell could be a mine (it is a mine in some consistent layout) and
  the rules do not spare the player; ``witness`` is such a layout, the devil's proof. It
  looks like a real board: a random solution of the numbers, the mines no number forces
  spread uniformly over the deep cells (covered cells no number touches), and exactly the
  position's total whenever a layout with the cell mined can have it (always under the
  counted rule); otherwise, under the classic rule, the count nearest that total.
- ``Redraw(layout)``: fair mercy only: the cell could be safe but no covered cell is
  provably safe, so the hidden layout becomes ``layout``, a consistent layout with the cell
  safe; the game then opens it.

Which one, by ``rules`` (``devil.rules.Rules``): a cell that is a mine in every consistent
layout always loses; one that could be either loses under strict mercy, and under fair mercy
while some covered cell is provably safe; otherwise it is redrawn. ``rules.count`` must be
the count rule the analysis was made under (counted: the total is known too).

``seed`` makes every random choice (``random.Random(seed)``): the same analysis, cell, rules
and seed always give the same judgement. ``devil.game`` passes ``move_seed(game seed, move
number, chord cell)``.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field

from devil.analysis import Layout, Verdict
from devil.board import Cell
from devil.rules import Mercy, Rules
from devil.solve.solver import PositionAnalysis

__all__ = ["Judgement", "Lose", "Redraw", "Safe", "judge", "move_seed"]


@dataclass(frozen=True)
class Safe:
    """The cell is provably safe: open it."""


@dataclass(frozen=True)
class Lose:
    """The player loses; ``witness`` is a consistent layout with a mine on the cell."""

    witness: Layout


@dataclass(frozen=True)
class Redraw:
    """Fair mercy: the hidden layout becomes ``layout`` (consistent, the cell safe); open it.

    ``layout`` is the new secret: left out of ``repr``.
    """

    layout: Layout = field(repr=False)


Judgement = Safe | Lose | Redraw


def judge(
    analysis: PositionAnalysis, cell: Cell, rules: Rules, seed: int, version: int = 1
) -> Judgement:
    """The devil's answer to a reveal on the covered cell ``cell`` (see the module docstring).

    ``version``: the game's (``devil.game.params.GameParams.version``); from 2 the witness or
    the redrawn layout is drawn the quicker way (``devil.solve.quick_witness``): the same
    promises, other layouts for the same seed. Version 1 is how stored games replay.

    Raises ``ValueError`` when ``cell`` is not a covered cell of the analysed position or
    when ``rules.count`` is not the rule the analysis was made under.
    """
    if analysis.count is not rules.count:
        raise ValueError(
            f"the analysis was made under the {analysis.count.value} rule, "
            f"not the {rules.count.value} rule of {rules}"
        )
    verdict = analysis.verdict(cell)
    if verdict is Verdict.SAFE:
        return Safe()
    where = analysis.position.where(cell)
    rng = random.Random(seed)
    if verdict is Verdict.MINE or rules.mercy is Mercy.STRICT or analysis.any_safe():
        witness = analysis.witness(cell, True, rng, nearest_total=True, version=version)
        if witness is None:
            raise AssertionError(f"no witness for a mine at {where}")
        return Lose(witness)
    layout = analysis.witness(cell, False, rng, version=version)
    if layout is None:
        raise AssertionError(f"no safe witness at {where}")
    return Redraw(layout)


def move_seed(game_seed: int, move_number: int, chord_cell: Cell | None = None) -> int:
    """The seed of the devil's choices on one move: from the game's seed, the move's index
    in the game (0 for the first move) and, for a chord, the cell being opened.

    It is the integer ``random.Random`` derives from the text
    ``mercy/{game_seed}/{move_number}/{chord_cell}``, which games before ``judge`` used as
    the seed, so stored games redraw exactly as they did.
    """
    text = f"mercy/{game_seed}/{move_number}/{chord_cell}".encode()
    return int.from_bytes(text + hashlib.sha512(text).digest())
