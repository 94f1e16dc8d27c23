"""A game's parameters (``GameParams``: board, mines, rules, no-guess, seed) and the limits
that decide how its first layout is drawn."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from devil.board import MAX_CELLS, Board, BoardError, Cell, Topology
from devil.errors import do_not_fit
from devil.game.graph_params import GraphSpec, GraphSpecError
from devil.generate import Method
from devil.rules import Count, Mercy, Rules


class ParamsError(ValueError):
    """Game parameters that cannot make a game (the message names the bad field)."""


# -- parameters ---------------------------------------------------------------------------

_KEEP_FREE = {Topology.SQUARE: 9, Topology.TORUS: 9, Topology.HEX: 7}
"""Most cells a first click keeps mine-free (the cell and its neighbours)."""

NO_GUESS_CELL_LIMIT = 10_000
"""Boards with more cells than this skip no-guess generation (it would take many seconds)."""

UNIFORM_CELL_LIMIT = 1_000
"""Boards up to this size get uniform no-guess boards (``redraw``); bigger ones ``perturb``."""

FIRST_VERSION = 1
"""How every game stored before versions existed draws its layouts and witnesses."""

LATEST_VERSION = 2
"""How new graph games draw their layouts and witnesses. A stored game keeps the version it
was created with, so it replays identically when a newer version draws differently:
1. the first way;
2. graph games: the witness and the no-guess layout are drawn by the faster methods named in
   ``devil.devil_rule`` and ``devil.game.state``; a no-guess layout that is not drawn by
   rejection is repaired where the simulated player gets stuck (``no_guess_method``).
"""

VERSIONS = range(FIRST_VERSION, LATEST_VERSION + 1)


def keep_free(board: Board) -> int:
    """Most cells a first click keeps mine-free on ``board`` (the cell and its neighbours)."""
    if board.graph is not None:
        most = max((len(near) for near in board.graph.graph.neighbours), default=0)
        return min(1 + most, board.cell_count)
    return min(_KEEP_FREE[board.topology], board.cell_count)


GRAPH_NO_GUESS_TRIES = 300
"""Most layouts no-guess generation tries on a graph board (version 1 on a rhombille board
at expert density, which rarely finds one, takes a few seconds to give up; version 2 needs
at most a few dozen stuck points repaired there)."""


def no_guess_tries(board: Board) -> int:
    """How many layouts (``"repair"``: stuck points) no-guess generation may try on this
    board (deterministic: part of how a stored game's layout is drawn)."""
    most = GRAPH_NO_GUESS_TRIES if board.graph is not None else 1000
    return max(1, min(most, 500_000 // max(1, board.cell_count)))


def no_guess_method(board: Board, version: int = FIRST_VERSION) -> Method:
    """Rejection sampling (uniform) on grids up to expert size, mine moving beyond and on
    every graph board: their dense neighbourhoods (Penrose, 4.8.8) leave rejection sampling
    without a no-guess board after 1,000 draws at expert density.

    Version 1 moves mines by ``"perturb"`` (a fresh draw after 40 moves), which finds a
    Penrose board in a few dozen tries but no rhombille board at expert density; version 2
    by ``"repair"`` (never a fresh draw), which finds both in a few dozen."""
    if board.graph is None and board.cell_count <= UNIFORM_CELL_LIMIT:
        return "redraw"
    return "perturb" if version < 2 else "repair"


def _require_int(name: str, value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ParamsError(f"{name} must be a whole number, not {value!r}")
    return value


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _check_room(mines: int, board: Board, name: str) -> None:
    """``ParamsError`` unless ``mines`` fit on ``board`` (named ``name`` in the message) with
    the first click and its neighbours kept free."""
    if mines < 0:
        raise ParamsError(f"mines {mines} is negative")
    keep = keep_free(board)
    room = board.cell_count - keep
    if mines > room:
        raise ParamsError(
            f"{do_not_fit(mines)} on the {name} board: the first click and its neighbours "
            f"(up to {_count(keep, 'cell')}) are always kept free of mines, so its "
            f"{_count(board.cell_count, 'cell')} "
            f"{'holds' if board.cell_count == 1 else 'hold'} at most {_count(room, 'mine')}"
        )


@dataclass(frozen=True)
class GameParams:
    """What a player chooses when starting a game. Validated on construction.

    ``seed`` decides the layout: keep it on the server while the game runs (it is left
    out of ``repr``).
    """

    height: int = 16
    width: int = 30
    mines: int = 99
    topology: Topology = Topology.SQUARE
    holes: frozenset[Cell] = frozenset()
    rules: Rules = field(default_factory=Rules)
    no_guess: bool = True
    seed: int = field(default=0, repr=False)
    graph: GraphSpec | None = None
    """A game on a graph board (a tiling or a custom file): ``height``, ``width`` and
    ``topology`` then describe its virtual grid (``devil.graphs.layout``) and are derived."""
    version: int = FIRST_VERSION
    """How the game draws its layouts and witnesses (``LATEST_VERSION``): part of the stored
    game, so that a game replays the way it was played."""

    def __post_init__(self) -> None:
        version = _require_int("version", self.version)
        if version not in VERSIONS:
            raise ParamsError(f"version must be {FIRST_VERSION} to {LATEST_VERSION}, not {version}")
        if self.graph is not None:
            self._graph_post_init(self.graph)
            return
        height = _require_int("height", self.height)
        width = _require_int("width", self.width)
        mines = _require_int("mines", self.mines)
        _require_int("seed", self.seed)
        if self.topology not in Topology.grids():
            raise ParamsError(f"topology must be a grid Topology, not {self.topology!r}")
        if not isinstance(self.rules, Rules):
            raise ParamsError(f"rules must be Rules, not {self.rules!r}")
        if not isinstance(self.no_guess, bool):
            raise ParamsError(f"no_guess must be true or false, not {self.no_guess!r}")
        if not isinstance(self.holes, frozenset):
            object.__setattr__(self, "holes", frozenset(self.holes))
        for hole in self.holes:
            _require_int("hole", hole)
        if height < 1 or width < 1:
            raise ParamsError(f"board size {height}x{width}: height and width must be at least 1")
        if height * width > MAX_CELLS:
            raise ParamsError(f"board size {height}x{width} has more than {MAX_CELLS} cells")
        try:
            board = self.board()
        except BoardError as e:
            raise ParamsError(str(e)) from None
        _check_room(mines, board, f"{height}x{width}")

    def _graph_post_init(self, graph: GraphSpec) -> None:
        if not isinstance(graph, GraphSpec):
            raise ParamsError(f"graph must be a GraphSpec, not {graph!r}")
        mines = _require_int("mines", self.mines)
        _require_int("seed", self.seed)
        if not isinstance(self.rules, Rules):
            raise ParamsError(f"rules must be Rules, not {self.rules!r}")
        if not isinstance(self.no_guess, bool):
            raise ParamsError(f"no_guess must be true or false, not {self.no_guess!r}")
        board = graph.board()
        object.__setattr__(self, "height", board.height)
        object.__setattr__(self, "width", board.width)
        object.__setattr__(self, "topology", Topology.GRAPH)
        object.__setattr__(self, "holes", frozenset())
        _check_room(mines, board, graph.name)

    def board(self) -> Board:
        return self._board

    @cached_property
    def _board(self) -> Board:
        if self.graph is not None:
            return self.graph.board()
        return Board(self.height, self.width, self.topology, self.holes)

    # -- storage ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form for the store (includes the secret ``seed``); a graph game adds
        ``graph`` (``GraphSpec.to_dict``), a grid game's form is unchanged."""
        out: dict[str, Any] = {
            "height": self.height,
            "width": self.width,
            "mines": self.mines,
            "topology": self.topology.value,
            "holes": sorted(self.holes),
            "count": self.rules.count.value,
            "mercy": self.rules.mercy.value,
            "no_guess": self.no_guess,
            "seed": self.seed,
        }
        if self.graph is not None:
            out["graph"] = self.graph.to_dict()
        if self.version != FIRST_VERSION:  # games stored before versions existed lack it
            out["version"] = self.version
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> GameParams:
        """Inverse of ``to_dict``; missing keys take the defaults. Errors name the key."""
        known = {"height", "width", "mines", "topology", "holes", "count", "mercy",
                 "no_guess", "seed", "graph", "version"}  # fmt: skip
        unknown = sorted(set(d) - known)
        if unknown:
            raise ParamsError(f"unknown game parameter {unknown[0]!r}")
        default = cls()
        graph = None
        topology = default.topology
        if d.get("graph") is not None:
            try:
                graph = GraphSpec.from_dict(d["graph"])
            except GraphSpecError as exc:
                raise ParamsError(str(exc)) from None
        else:
            try:
                topology = Topology.parse(str(d.get("topology", default.topology.value)))
            except ValueError:
                raise ParamsError(f"unknown topology {d.get('topology')!r}") from None
        try:
            count = Count(d.get("count", default.rules.count.value))
        except ValueError:
            raise ParamsError(f"unknown count rule {d.get('count')!r}") from None
        try:
            mercy = Mercy(d.get("mercy", default.rules.mercy.value))
        except ValueError:
            raise ParamsError(f"unknown mercy rule {d.get('mercy')!r}") from None
        holes = d.get("holes", [])
        if not isinstance(holes, list | tuple | set | frozenset):
            raise ParamsError(f"holes must be a list of cells, not {holes!r}")
        return cls(
            height=d.get("height", default.height),
            width=d.get("width", default.width),
            mines=d.get("mines", default.mines),
            topology=topology,
            holes=frozenset(_require_int("hole", h) for h in holes),
            rules=Rules(count, mercy),
            no_guess=d.get("no_guess", default.no_guess),
            seed=d.get("seed", default.seed),
            graph=graph,
            version=d.get("version", FIRST_VERSION),
        )


# -- moves --------------------------------------------------------------------------------
