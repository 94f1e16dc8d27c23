"""The luck ledger in words: "You needed 1.6 bits of luck: one 1-in-3 guess."

Shared by the end panel, the replay and ``devil-check --annotate`` so they say the same thing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from devil.ledger.annotate import GameAnnotation, MoveJudgement

LISTED = 4
"""Most guesses named one by one; more are counted."""


def odds(p_safe: Fraction) -> str:
    """``1-in-3`` for a guess that was safe with probability 1/3 (``2-in-3``, ``5-in-8``...);
    a percentage when the fraction has no small form; ``certain`` for 1."""
    if p_safe == 1:
        return "certain"
    if p_safe.denominator <= 20:
        return f"{p_safe.numerator}-in-{p_safe.denominator}"
    return f"{float(p_safe):.0%}"


def bits_text(bits: float) -> str:
    return f"{bits:.1f} {'bit' if round(bits, 1) == 1 else 'bits'}"


def sentence(guesses: Sequence[Fraction], lost: bool) -> str:
    """The sentence for a game whose surviving guesses had these chances (each < 1)."""
    if not guesses:
        if lost:
            return "You spent no luck before the fatal click."
        return "You needed no luck: every move you made was safe by proof."
    bits = sum(-math.log2(p) for p in guesses)
    head = f"You {'spent' if lost else 'needed'} {bits_text(bits)} of luck: "
    named = [odds(p) for p in guesses]
    if len(named) == 1:
        return head + f"one {named[0]} guess."
    if len(named) <= LISTED:
        listed = ", ".join(named[:-1]) + " and " + named[-1]
        return head + f"{len(named)} guesses ({listed})."
    return head + f"{len(named)} guesses, the longest odds {odds(min(guesses))}."


def luck_sentence(annotation: GameAnnotation) -> str:
    """One sentence about the luck a game needed."""
    lost = any(m.judgement is MoveJudgement.FATAL for m in annotation.moves)
    return sentence([g.p_safe for g in annotation.guesses if g.p_safe is not None], lost)


def luck_sentence_json(body: Mapping[str, Any]) -> str:
    """``luck_sentence`` of an annotation's JSON form (``GameAnnotation.to_json``)."""
    moves = body["moves"]
    guesses = [Fraction(m["p_safe_exact"]) for m in moves if m["p_safe_exact"] is not None]
    lost = any(m["judgement"] == "fatal" for m in moves)
    return sentence([p for p in guesses if p < 1], lost)
