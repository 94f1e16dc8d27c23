"""What the teaching pages say about a visible position: proofs, flags that are known mines,
proof levels in words, and cell names/ids for highlighting."""

from __future__ import annotations

from collections.abc import Iterable

from app.play.cells import cell_id
from devil.analysis import Classification, Verdict
from devil.board import Board, Cell
from devil.budget import BudgetExceeded
from devil.position import Position
from devil.rules import Count
from devil.teach.proof import LEVEL_NAMES, Proof, prove

PROOF_CANDIDATES = 40
"""How many safe cells the hint ladder compares to find the easiest proof."""


def ids(board: Board, cells: Iterable[Cell], prefix: str = "") -> list[str]:
    """The element ids of ``cells`` on a board drawn with id ``prefix``."""
    return [prefix + cell_id(*board.coord(c)) for c in sorted(cells)]


def names(position: Position, cells: Iterable[Cell], limit: int = 12) -> str:
    listed = sorted(cells)
    shown = "; ".join(position.where(c) for c in listed[:limit])
    if len(listed) > limit:
        shown += f" and {len(listed) - limit} more"
    return shown


def confirmed_flags(position: Position, verdicts: Classification) -> frozenset[Cell]:
    """The player's flags that are provably mines: knowledge a proof may use."""
    return frozenset(
        c for c, v in verdicts.verdicts.items() if v is Verdict.MINE and position.is_flagged(c)
    )


def easiest_proof(
    position: Position, count: Count, cells: Iterable[Cell], known: frozenset[Cell]
) -> Proof | None:
    """The proof with the lowest level (then fewest numbers) among ``cells``; when an engine
    budget (``devil.budget``) runs out, the best found so far (``BudgetExceeded`` if none)."""
    best: Proof | None = None
    for cell in sorted(cells)[:PROOF_CANDIDATES]:
        try:
            proof = prove(position, cell, count, known)
        except BudgetExceeded:
            if best is None:
                raise
            return best
        if best is None or (proof.level, len(proof.numbers)) < (best.level, len(best.numbers)):
            best = proof
            if proof.level == 1:
                break
    return best


def verdict_mark(verdict: Verdict) -> str:
    """The highlight class that colours a selected cell by what it is: green only when it is
    safe (``hl-is-safe``), red when it is a mine, neutral when it could be either."""
    return f"hl-is-{verdict.value}"


def level_text(level: int) -> str:
    if level == 0:
        return "no proof: it could be either"
    return f"level {level} ({LEVEL_NAMES[level]})"
