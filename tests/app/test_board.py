"""The board as drawn (``app.play.board``, ``app.play.cells``, ``app.play.view``): cell views
before and after the end, torus ghosts, the status counter and clock, and markup that never
needs escaping."""

from __future__ import annotations

from app.play import board as render
from app.play.cells import Ending, cell_view
from app.play.view import StatusView, format_duration
from devil.board import Board, Topology
from devil.position import Position


def test_status_counter_and_clock_formats() -> None:
    assert format_duration(0) == "0:00"
    assert format_duration(75) == "1:15"
    assert format_duration(3725) == "1:02:05"
    bar = StatusView(10, 0, "classic", "playing", None, None)
    assert bar.lcd_mines == "010" and bar.clock == "0:00"
    assert StatusView(-3, 0, "", "playing", None, None).lcd_mines == "-03"
    assert StatusView(9, 5, "", "won", 1.0, 2.0).lcd_mines == "000"
    assert StatusView(9, 5, "", "lost", 1.0, 2.0).lcd_mines == "009"


def test_torus_ghosts_follow_their_cells() -> None:
    board = Board(3, 4, Topology.TORUS)
    assert set(render.ghost_positions(board, 0, 0)) == {(3, 0), (0, 4), (3, 4)}
    assert set(render.ghost_positions(board, 2, 3)) == {(-1, 3), (2, -1), (-1, -1)}
    assert list(render.ghost_positions(board, 1, 1)) == []
    position = Position.covered(board, 2).with_cells({0: ord("1")})
    views = render.changed_views(position, [0])
    assert {v.id for v in views} == {"c-0-0", "g-3-0", "g-0-4", "g-3-4"}
    assert all(v.text == "1" for v in views)
    square = Board(3, 4)
    assert list(render.ghost_positions(square, 0, 0)) == []


def test_cell_views_before_and_after_the_end() -> None:
    position = Position.from_rows(["1F.", "..."], mines=2)
    playing = [cell_view(position, c) for c in range(6)]
    assert [v.kind for v in playing[:3]] == ["open", "flag", "covered"]
    assert all(not {"rm", "wm"} & set(v.classes.split()) for v in playing)
    ending = Ending(won=False, layout=frozenset({1, 4}), witness=frozenset({2, 4}), loss=2)
    ended = [cell_view(position, c, ending) for c in range(6)]
    assert set(ended[1].classes.split()) >= {"flag", "rm", "wrong-w"}
    assert set(ended[2].classes.split()) >= {"wm", "boom"}
    assert "your click" in ended[2].label and "mine in the devil's layout" in ended[2].label
    assert set(ended[4].classes.split()) >= {"wm", "rm"}


def test_cell_markup_needs_no_escaping() -> None:
    """cells.cell_html writes CellView values unescaped: they must never hold HTML syntax."""
    rows = ["12345678", "0.F#....", "........"]
    position = Position.from_rows(rows, Topology.SQUARE, 5)
    ending = Ending(False, frozenset({9, 16}), frozenset({10, 17}), 10)
    for topology in Topology.grids():
        pos = Position(Board(3, 8, topology, position.board.holes), position.grid, 5)
        for end in (None, ending):
            board = render.board_view(pos, interactive=end is None, ending=end)
            for row in board.rows:
                for view in row.cells:
                    for value in (view.id, view.classes, view.text, view.label, view.at):
                        assert not set(value) & set('<>&"'), value
                html = str(render.row_html(row, board.interactive, board.focus_id))
                assert html.count("<") == 2 * len(row.cells) + 2


def test_torus_rows_bring_their_ghost_rows() -> None:
    board = Board(3, 4, Topology.TORUS)
    position = Position.covered(board, 2).with_cells({0: ord("1"), 5: ord("2")})
    rows = render.changed_rows(position, [0, 5])
    assert [r.index for r in rows] == [0, 1, 3]  # row 0 is repeated by the ghost row below
    ghost_row = rows[-1]
    assert ghost_row.ghost and [c.text for c in ghost_row.cells][1] == "1"
    html = str(render.oob_rows_html(rows, True))
    assert 'id="r-3"' in html and 'aria-hidden="true" hx-swap-oob="true"' in html
