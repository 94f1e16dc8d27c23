"""A game of Mine Devil: ``Game`` (an immutable value, ``devil.game.state``), its
``GameParams`` (``devil.game.params``) and its ``Move`` values (``devil.game.moves``).

The devil rule itself is ``devil.devil_rule.judge``; ``Game.play`` asks it about every
cell a reveal opens."""

from devil.game.graph_params import GRAPH_GAME_MAX_CELLS, GraphSpec, GraphSpecError
from devil.game.moves import Move, MoveKind, Status, said
from devil.game.params import (
    FIRST_VERSION,
    LATEST_VERSION,
    NO_GUESS_CELL_LIMIT,
    UNIFORM_CELL_LIMIT,
    GameParams,
    ParamsError,
    keep_free,
    no_guess_method,
    no_guess_tries,
)
from devil.game.state import Game, changed_between

__all__ = [
    "FIRST_VERSION",
    "GRAPH_GAME_MAX_CELLS",
    "LATEST_VERSION",
    "NO_GUESS_CELL_LIMIT",
    "UNIFORM_CELL_LIMIT",
    "Game",
    "GameParams",
    "GraphSpec",
    "GraphSpecError",
    "Move",
    "MoveKind",
    "ParamsError",
    "Status",
    "changed_between",
    "keep_free",
    "no_guess_method",
    "no_guess_tries",
    "said",
]
