"""The plain-text move list (docs/annotations.md): a game's parameters and moves, one a line.

```
# Mine Devil move list 1
board 9x9 square
mines 10
rules classic/strict
no-guess yes
layout 0,3 1,7 2,2 4,4 5,0 6,6 7,1 8,8 8,2 3,5
moves
0.000 reveal 4 4
1.250 flag 0 3
2.031 chord 1 3
```

The first line is the header (``# Mine Devil move list 1``; the number is the format version).
Then ``key value`` lines, in any order, until the line ``moves``: ``board HxW [topology]`` and
``mines N`` are required; ``rules COUNT/MERCY``, ``no-guess yes|no``, ``seed N``, ``holes
R,C ...`` and ``layout R,C ...`` (the final board's mines: needed to annotate, since a seed
only replays on the same engine version; after a loss under the classic rule the devil's
witness may hold a different number of mines than ``mines``) are optional. After ``moves``,
one move a line: an optional time in seconds from the first move (non-decreasing, all lines
or none), then ``reveal|flag|unflag|chord ROW COL`` counting from 0 as everywhere in Mine
Devil. Blank lines and lines starting with ``#`` are ignored. Errors name the line and
column (from 1).

A graph game (``board HxW graph``: H and W are its virtual grid, ``devil.graphs.layout``)
names its board on one more line: ``tiling NAME SIZE... corners|sides`` for a built-in
tiling (``tiling penrose 80 corners``), or ``graph {...}`` for a custom board, the
graph-board file (``docs/graph-boards.md``) on one line. ``game-version N`` says how the
game drew its layouts and witnesses (``GameParams.version``; 1 when absent, as every grid
game). Its moves and layout name cells by id, a JSON string (``reveal "t17"``, ``layout
"t3" "North pole"``: ``devil.graphs.ids.quote_id``); the reader also takes the ``ROW COL`` /
``R,C`` of the virtual grid that files written before named them by, and refuses those
when the rebuilt board's grid is not ``HxW`` (they would name other cells). Grid files are
written exactly as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from devil.analysis import Layout
from devil.board import Board, Cell, Topology
from devil.game import (
    FIRST_VERSION,
    LATEST_VERSION,
    GameParams,
    GraphSpec,
    GraphSpecError,
    Move,
    MoveKind,
    ParamsError,
)
from devil.graphs.ids import quote_id
from devil.ledger.replays.cell_names import OnBoard, Word, words
from devil.ledger.replays.model import Replay, ReplayFormatError
from devil.rules import Count, Mercy, Rules

HEADER = "# Mine Devil move list 1"
SOFTWARE = "Mine Devil"
"""What a move list says recorded it (``Replay.software``): it is Mine Devil's own format."""
_HEADER_RE = re.compile(r"#\s*Mine Devil move list\s+(\S+)\s*$", re.IGNORECASE)
_BOARD_RE = re.compile(r"(\d+)x(\d+)$")
_KEYS = ("board", "tiling", "graph", "game-version", "mines", "rules", "no-guess", "seed",
         "holes", "layout")  # fmt: skip
MAX_MOVES = 1_000_000


@dataclass(frozen=True)
class _Field:
    value: str
    line: int
    column: int  # of the value


def write_movelist(
    params: GameParams,
    moves: Sequence[Move],
    times: Sequence[float | None] | None = None,
    layout: Layout | None = None,
    *,
    seed: bool = False,
) -> str:
    """The move list of a game. ``seed``: include ``params.seed`` (only once the game is over:
    it decides the layout)."""
    board = params.board()
    lines = [
        HEADER,
        f"board {params.height}x{params.width} {params.topology.value}",
        *_graph_lines(params),
        f"mines {params.mines}",
        f"rules {params.rules.count.value}/{params.rules.mercy.value}",
        f"no-guess {'yes' if params.no_guess else 'no'}",
    ]
    if seed:
        lines.append(f"seed {params.seed}")
    if params.holes:
        lines.append("holes " + _cells_text(board, params.holes))
    if layout is not None:
        lines.append("layout " + _cells_text(board, layout))
    lines.append("moves")
    stamped = times is not None and all(t is not None for t in times)
    for i, move in enumerate(moves):
        said = _move_text(board, move)
        if stamped:
            assert times is not None
            t = times[i]
            assert t is not None
            lines.append(f"{t:.3f} {said}")
        else:
            lines.append(said)
    return "\n".join(lines) + "\n"


def _move_text(board: Board, move: Move) -> str:
    """``reveal 3 4``; on a graph board ``reveal "t17"``, the cell by its id."""
    if board.graph is None:
        return str(move)
    return f"{move.kind.value} {quote_id(board.cell_id(move.row, move.col))}"


def _graph_lines(params: GameParams) -> list[str]:
    """A graph game's board (a tiling or the custom file) and its version; a grid game's
    version only when it is not the first (never, today: grid files stay as they were)."""
    graph = params.graph
    if graph is None:
        return [] if params.version == FIRST_VERSION else [f"game-version {params.version}"]
    if graph.tiling:
        size = " ".join(map(str, graph.size))
        board = f"tiling {graph.tiling} {size} {'sides' if graph.sides else 'corners'}"
    else:
        board = f"graph {graph.file}"  # canonical JSON: one line
    return [board, f"game-version {params.version}"]


def _cells_text(board: Board, cells: Iterable[Cell]) -> str:
    """``R,C R,C``; a graph board's cells by id, in the board file's order."""
    graph = board.graph
    if graph is not None:
        return " ".join(quote_id(graph.id(c)) for c in sorted(cells, key=graph.index))
    return " ".join("{},{}".format(*board.coord(c)) for c in sorted(cells))


def read_movelist(text: str) -> Replay:
    """Read a move list; ``ReplayFormatError`` names the line and column of the first error."""
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        raise ReplayFormatError("empty move list: expected the header " + repr(HEADER), line=1)
    match = _HEADER_RE.match(lines[first].strip())
    if match is None:
        raise ReplayFormatError(f"expected the header {HEADER!r}", line=first + 1, column=1)
    if match.group(1) != "1":
        column = lines[first].index(match.group(1)) + 1
        raise ReplayFormatError(
            f"move list version {match.group(1)!r} is not known (this reader knows 1)",
            line=first + 1,
            column=column,
        )
    fields: dict[str, _Field] = {}
    index = first + 1
    while True:
        if index >= len(lines):
            raise ReplayFormatError("no 'moves' line: the moves start after it", line=index + 1)
        raw = lines[index]
        index += 1
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.lower() == "moves":
            break
        key, _, value = stripped.partition(" ")
        key_column = raw.index(key) + 1
        if key.lower() not in _KEYS:
            raise ReplayFormatError(
                f"unknown field {key!r} (known: {', '.join(_KEYS)}, then 'moves')",
                line=index,
                column=key_column,
            )
        if key.lower() in fields:
            raise ReplayFormatError(f"field {key!r} given twice", line=index, column=key_column)
        value = value.strip()
        value_column = raw.index(value, key_column) + 1 if value else len(raw) + 1
        fields[key.lower()] = _Field(value, index, value_column)
    params, misplaced = _params(fields, first + 2)
    board = OnBoard(params.board(), misplaced)
    layout = _cells(board, fields["layout"]) if "layout" in fields else None
    if layout is not None and params.rules.count is Count.COUNTED and len(layout) != params.mines:
        f = fields["layout"]
        raise ReplayFormatError(
            f"the layout has {len(layout)} mines but 'mines' says {params.mines}: under the "
            "counted rule the final board holds exactly the game's mines",
            line=f.line,
            column=f.column,
        )
    moves, times = _moves(lines, index, board)
    return Replay(params, layout, moves, times, software=SOFTWARE)


def _need(fields: dict[str, _Field], key: str, header_line: int) -> _Field:
    if key not in fields:
        raise ReplayFormatError(f"missing field {key!r} before 'moves'", line=header_line)
    return fields[key]


def _params(
    fields: dict[str, _Field], header_line: int
) -> tuple[GameParams, ReplayFormatError | None]:
    """The game's parameters, and for a graph board whose cells sit on another virtual grid
    than its ``board HxW`` line says, the error to raise if a cell is named by ROW COL (a
    file naming cells by id does not depend on where the engine places them)."""
    board_field = _need(fields, "board", header_line)
    size, _, topo = board_field.value.partition(" ")
    match = _BOARD_RE.match(size)
    if match is None:
        raise ReplayFormatError(
            f"board {size!r}: expected HEIGHTxWIDTH, e.g. 16x30",
            line=board_field.line,
            column=board_field.column,
        )
    height, width = int(match.group(1)), int(match.group(2))
    topo_column = board_field.column + len(size) + 1
    topology = Topology.SQUARE
    graph = topo.strip().lower() == Topology.GRAPH.value
    if topo.strip() and not graph:
        try:
            topology = Topology.parse(topo)
        except ValueError:
            raise ReplayFormatError(
                f"unknown topology {topo.strip()!r} (square, torus, hex or graph)",
                line=board_field.line,
                column=topo_column,
            ) from None
    mines = _integer(_need(fields, "mines", header_line), "mines")
    rules = Rules()
    if "rules" in fields:
        rules = _rules(fields["rules"])
    no_guess = False
    if "no-guess" in fields:
        f = fields["no-guess"]
        if f.value.lower() not in ("yes", "no"):
            raise ReplayFormatError(
                f"no-guess {f.value!r}: expected yes or no", line=f.line, column=f.column
            )
        no_guess = f.value.lower() == "yes"
    seed = _integer(fields["seed"], "seed") if "seed" in fields else 0
    version = FIRST_VERSION
    if "game-version" in fields:
        f = fields["game-version"]
        version = _integer(f, "game-version")
        if not FIRST_VERSION <= version <= LATEST_VERSION:
            raise ReplayFormatError(
                f"game-version {version} is not known (this reader knows {FIRST_VERSION} to "
                f"{LATEST_VERSION})",
                line=f.line,
                column=f.column,
            )
    if graph:
        spec, spec_field = _graph_spec(fields, board_field, topo_column)
        try:
            params = GameParams(
                mines=mines, rules=rules, no_guess=no_guess, seed=seed, graph=spec,
                version=version,
            )  # fmt: skip
        except ParamsError as e:
            raise ReplayFormatError(
                str(e), line=spec_field.line, column=spec_field.column
            ) from None
        misplaced = None
        if (params.height, params.width) != (height, width):
            misplaced = ReplayFormatError(
                f"board {size}: this graph's cells sit on a {params.height}x{params.width} "
                "grid here (a ROW COL names a cell by its place on it): the file was written "
                "with another placement of the board's cells; name them by id instead",
                line=board_field.line,
                column=board_field.column,
            )
        return params, misplaced
    for key in ("tiling", "graph"):
        if key in fields:
            f = fields[key]
            raise ReplayFormatError(
                f"{key!r} names a graph board: the board line must say 'graph', not "
                f"{topology.value!r}",
                line=f.line,
                column=f.column - len(key) - 1,
            )
    try:
        bare = Board(height, width, topology)
    except ValueError as e:
        raise ReplayFormatError(str(e), line=board_field.line, column=board_field.column) from None
    holes = _cells(OnBoard(bare), fields["holes"]) if "holes" in fields else frozenset()
    try:
        return GameParams(
            height, width, mines, topology, holes, rules, no_guess, seed, version=version
        ), None
    except ParamsError as e:
        raise ReplayFormatError(str(e), line=board_field.line, column=board_field.column) from None


def _graph_spec(
    fields: dict[str, _Field], board_field: _Field, topo_column: int
) -> tuple[GraphSpec, _Field]:
    """A graph game's board: its ``tiling`` line or its ``graph`` line (the file)."""
    if "holes" in fields:
        f = fields["holes"]
        raise ReplayFormatError(
            "holes are for grid boards: a graph board lists only its cells",
            line=f.line,
            column=f.column,
        )
    given = [k for k in ("tiling", "graph") if k in fields]
    if len(given) != 1:
        if not given:
            raise ReplayFormatError(
                "a graph board needs a 'tiling' line (a built-in tiling) or a 'graph' line "
                "(the board's file) before 'moves'",
                line=board_field.line,
                column=topo_column,
            )
        f = fields["graph"]
        raise ReplayFormatError(
            "give a 'tiling' line or a 'graph' line, not both",
            line=f.line,
            column=f.column,
        )
    f = fields[given[0]]
    try:
        if given[0] == "graph":
            return GraphSpec.stored(f.value), f
        return _tiling(f), f
    except GraphSpecError as e:
        raise ReplayFormatError(str(e), line=f.line, column=f.column) from None


def _tiling(f: _Field) -> GraphSpec:
    """``tiling NAME SIZE... corners|sides``: a built-in tiling (``GraphSpec`` checks the
    name, the size and the cell bound before building anything big)."""
    words = f.value.split()
    if len(words) < 2:
        raise ReplayFormatError(
            f"tiling {f.value!r}: expected NAME SIZE... corners|sides, e.g. 'penrose 80 corners'",
            line=f.line,
            column=f.column,
        )
    rule = "corners"
    if words[-1].lower() in ("corners", "sides"):
        rule = words.pop().lower()
    for word in words[1:]:
        if not (word.isascii() and word.isdigit() and len(word) <= 9):
            raise ReplayFormatError(
                f"tiling size {word!r} is not a whole number",
                line=f.line,
                column=f.column + f.value.index(word, len(words[0])),
            )
    return GraphSpec(words[0], tuple(int(w) for w in words[1:]), rule == "sides")


def _integer(f: _Field, name: str) -> int:
    if not f.value.isdigit() or not f.value.isascii():
        raise ReplayFormatError(
            f"{name} {f.value!r} is not a whole number >= 0", line=f.line, column=f.column
        )
    return int(f.value)


def _rules(f: _Field) -> Rules:
    count_text, _, mercy_text = f.value.partition("/")
    try:
        count = Count(count_text.strip().lower())
    except ValueError:
        raise ReplayFormatError(
            f"unknown count rule {count_text!r} (classic or counted)", line=f.line, column=f.column
        ) from None
    try:
        mercy = Mercy(mercy_text.strip().lower() or "strict")
    except ValueError:
        raise ReplayFormatError(
            f"unknown mercy rule {mercy_text!r} (strict or fair)",
            line=f.line,
            column=f.column + len(count_text) + 1,
        ) from None
    return Rules(count, mercy)


def _cells(on: OnBoard, f: _Field) -> frozenset[Cell]:
    """``R,C ...``; on a graph board also ``"ID" ...`` (the two may mix)."""
    out: set[Cell] = set()
    for token in words(f.value, f.column, f.line):
        said = quote_id(token.text) if token.quoted else token.text
        if token.quoted:
            cell = on.named(token.text, f.line, token.column, "ROW,COL")
        else:
            parts = token.text.split(",")
            if len(parts) != 2 or not all(p.isdigit() and p.isascii() for p in parts):
                expected = "ROW,COL counting from 0"
                if on.board.graph is not None:
                    expected = 'a cell id in double quotes ("t17") or ' + expected
                raise ReplayFormatError(
                    f"cell {said!r}: expected {expected}", line=f.line, column=token.column
                )
            cell = on.slot(int(parts[0]), int(parts[1]), f.line, token.column, said)
        if cell in out:
            raise ReplayFormatError(f"cell {said!r} given twice", line=f.line, column=token.column)
        out.add(cell)
    return frozenset(out)


def _move(tokens: list[Word], line: int, on: OnBoard) -> Move:
    """``KIND ROW COL`` or ``KIND "ID"`` (graph boards); only the last word may be quoted."""
    word = tokens[0]
    try:
        kind = MoveKind(word.text.lower())
    except ValueError:
        kinds = ", ".join(k.value for k in MoveKind)
        raise ReplayFormatError(
            f"unknown move {word.text!r} (expected {kinds})", line=line, column=word.column
        ) from None
    if len(tokens) == 2:
        cell = on.named(tokens[1].text, line, tokens[1].column, "ROW COL")
        return Move(kind, *on.board.coord(cell))
    row, col = tokens[1], tokens[2]
    for name, token in (("row", row), ("column", col)):
        if not _plain(token.text):
            raise ReplayFormatError(
                f"{name} {token.text!r} is not a whole number >= 0", line=line, column=token.column
            )
    if on.misplaced is not None:  # a graph file whose board sits on another grid
        raise on.misplaced
    return Move(kind, int(row.text), int(col.text))


_KINDS = {k.value: k for k in MoveKind}
_INF = float("inf")


def _plain(text: str) -> bool:
    """A row or column as both reads take it: ASCII digits."""
    return text.isdigit() and text.isascii()


def _quick(raw: str, stamped: bool, on: OnBoard) -> tuple[Move, float | None] | None:
    """The usual line (``1.250 reveal 3 4``, ``1.250 reveal "t17"``) read by splitting it,
    without the words' columns: its move and time (``stamped``: the file's moves have
    times), or None for anything else (a comment, a blank, an error, an id with a backslash
    or an unusual character), which ``_moves`` reads word by word and, if wrong, says
    where. The two agree on every line this one reads; the caller checks the time's order.
    Reading a move list cost ~27 % more once ids could be quoted: this takes it back."""
    if '"' in raw:
        graph = on.board.graph
        head, _, rest = raw.partition('"')
        cell_id, closed, tail = rest.partition('"')
        # a JSON string without a backslash or a control character is its text as written
        plain = "\\" not in cell_id and cell_id.isprintable()
        if graph is None or not (closed and plain and head[-1:].isspace()) or tail.strip():
            return None
        parts = head.split()
        if len(parts) != (2 if stamped else 1):
            return None
        kind = _KINDS.get(parts[-1].lower())
        cell = graph.find(cell_id)
        if kind is None or cell is None:
            return None
        where = on.board.coord(cell)
    else:
        parts = raw.split()
        if len(parts) != (4 if stamped else 3) or on.misplaced is not None:
            return None
        kind = _KINDS.get(parts[-3].lower())
        row, col = parts[-2], parts[-1]
        if kind is None or not (_plain(row) and _plain(col)):
            return None
        where = (int(row), int(col))
    seconds = _seconds(parts[0]) if stamped else None
    if stamped and seconds is None:
        return None
    return Move(kind, *where), seconds


def _seconds(text: str) -> float | None:
    """A move's time as both reads take it (a number >= 0, not infinite), else None."""
    try:
        seconds = float(text)
    except ValueError:
        return None
    return seconds if 0 <= seconds < _INF else None


def _moves(
    lines: list[str], start: int, on: OnBoard
) -> tuple[tuple[Move, ...], tuple[float | None, ...]]:
    moves: list[Move] = []
    times: list[float | None] = []
    stamped: bool | None = None
    last = 0.0
    for index in range(start, len(lines)):
        raw = lines[index]
        quick = None if stamped is None or len(moves) >= MAX_MOVES else _quick(raw, stamped, on)
        if quick is not None and (quick[1] is None or last <= quick[1]):
            moves.append(quick[0])
            times.append(quick[1])
            last = last if quick[1] is None else quick[1]
            continue
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        line = index + 1
        tokens = words(raw, 1, line)
        by_id = tokens[-1].quoted
        has_time = len(tokens) == (3 if by_id else 4)
        stray = next((w for w in tokens[:-1] if w.quoted), None) if '"' in raw else None
        if stray is not None or len(tokens) not in ((2, 3) if by_id else (3, 4)):
            example = "'1.250 reveal 3 4'"
            if on.board.graph is not None:
                example = """'1.250 reveal "t17"' (a cell id in double quotes) or """ + example
            raise ReplayFormatError(
                f"expected a move: [SECONDS] KIND CELL, e.g. {example}",
                line=line,
                column=(stray or tokens[0]).column,
            )
        if stamped is None:
            stamped = has_time
        elif stamped != has_time:
            what = "has no time" if stamped else "has a time"
            other = "others do not" if has_time else "earlier moves have one"
            raise ReplayFormatError(
                f"this move {what} but {other}: give times on all moves or none",
                line=line,
                column=tokens[0].column,
            )
        t: float | None = None
        if has_time:
            first = tokens.pop(0)
            text, column = first.text, first.column
            t = None if first.quoted else _seconds(text)
            if t is None:
                raise ReplayFormatError(
                    f"time {text!r} is not a number of seconds >= 0", line=line, column=column
                )
            if t < last:
                raise ReplayFormatError(
                    f"time {text} is earlier than the move before ({last:g})",
                    line=line,
                    column=column,
                )
            last = t
        move = _move(tokens, line, on)
        if len(moves) >= MAX_MOVES:
            raise ReplayFormatError(f"more than {MAX_MOVES} moves", line=line, column=1)
        moves.append(move)
        times.append(t)
    return tuple(moves), tuple(times)
