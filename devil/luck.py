"""The luck ledger in words: "You needed 1.6 bits of luck: one 1-in-3 guess."

Shared by the end panel, the replay and ``devil-check --annotate`` so they say the same thing.
"""

from __future__ import annotations

from fractions import Fraction

from devil.annotate import GameAnnotation, Judgement

LISTED = 4
"""Most guesses named one by one; more are counted."""


def odds(p_safe: Fraction) -> str:
    """``1-in-3`` for a guess that was safe with probability 1/3 (``2-in-3``, ``5-in-8``...);
    a percentage when the fraction has no small form."""
    if p_safe == 1:
        return "certain"
    if p_safe.denominator <= 20:
        return f"{p_safe.numerator}-in-{p_safe.denominator}"
    return f"{float(p_safe):.0%}"


def bits_text(bits: float) -> str:
    return f"{bits:.1f} {'bit' if round(bits, 1) == 1 else 'bits'}"


def luck_sentence(annotation: GameAnnotation) -> str:
    """One sentence about the luck a game needed."""
    guesses = annotation.guesses
    lost = any(m.judgement is Judgement.FATAL for m in annotation.moves)
    if not guesses:
        if lost:
            return "You spent no luck before the fatal click."
        return "You needed no luck: every move you made was safe by proof."
    named = [odds(g.p_safe) for g in guesses if g.p_safe is not None]
    verb = "spent" if lost else "needed"
    head = f"You {verb} {bits_text(annotation.bits)} of luck: "
    if len(named) == 1:
        return head + f"one {named[0]} guess."
    if len(named) <= LISTED:
        listed = ", ".join(named[:-1]) + " and " + named[-1]
        return head + f"{len(named)} guesses ({listed})."
    return head + f"{len(named)} guesses, the longest odds {guesses_p(annotation)[0]}."


def guesses_p(annotation: GameAnnotation) -> list[str]:
    """The odds of every guess, longest odds first."""
    ps = sorted(g.p_safe for g in annotation.guesses if g.p_safe is not None)
    return [odds(p) for p in ps]
