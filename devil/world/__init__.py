"""Devil World's engine: one endless board shared by teams, one colour per player.

Pure functions and values, no web imports. The server (``app/world/``) stores team
knowledge and calls these:

- ``colour``: the keyed colour of a cell (the only way to the truth);
- ``knowledge``: what a team knows, as symbols per colour board;
- ``rule``: the world devil rule (is a reveal / flag proved by the team's knowledge?);
- ``play``: reveal with its cascade, flag, drop;
- ``deduce``: every provable cell of a view, for bots.

Coordinates are ``(x, y)`` with y growing downward and ``|x|, |y| <= 2**62``.
"""

from devil.world.cells import MAX_COORD, OutOfWorld
from devil.world.colour import Colouring, cell_colour
from devil.world.deduce import Deductions, deduce
from devil.world.knowledge import Knowledge, MemoryKnowledge
from devil.world.play import MoveResult, drop, flag, reveal
from devil.world.rule import InconsistentKnowledge, Witness, WorldVerdict, judge_flag, judge_reveal
from devil.world.window import WindowTooLarge

__all__ = [
    "MAX_COORD",
    "Colouring",
    "Deductions",
    "InconsistentKnowledge",
    "Knowledge",
    "MemoryKnowledge",
    "MoveResult",
    "OutOfWorld",
    "WindowTooLarge",
    "Witness",
    "WorldVerdict",
    "cell_colour",
    "deduce",
    "drop",
    "flag",
    "judge_flag",
    "judge_reveal",
    "reveal",
]
