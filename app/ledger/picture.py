"""A move of a finished game as a PNG picture: ``GET /g/<id>/picture.png?move=N``, the replay
note's "Picture (PNG)" on a graph board (``app.ledger.notes``).

The picture is the position after move ``N`` as the player saw it: numbers, flags and covered
cells, no verdicts and no mines, except after the last move of a lost game, which shows what
the replay shows there: the click that lost and the devil's mines (its witness, public once
the game is lost). Bounded as the study route (``app.ledger.study``) is: a running game is
refused (409), the position is rebuilt under the replay budget (``GameService.replay``), a
board over ``MAX_PNG_CELLS`` cells is a 400 before any rebuilding, and the drawing runs off
the event loop. A grid game goes on to the grid's position picture (303), as a grid note links.
"""

from __future__ import annotations

from collections.abc import Mapping

from flask import redirect
from flask.typing import ResponseReturnValue

from app.errors import InputError
from app.graphs.png import MAX_PNG_CELLS, Loss, graph_png
from app.heavy import off_loop
from app.ledger.download import download
from app.ledger.notes import grid_picture_url
from app.ledger.study import finished_move
from app.play.service import GameService
from devil.game import Game, Status


def move_picture(games: GameService, game_id: str, args: Mapping[str, str]) -> ResponseReturnValue:
    """``GET /g/<id>/picture.png?move=N``: the PNG of the position after ``N`` moves."""
    loaded, n = finished_move(games, game_id, args)
    params = loaded.params
    if params.graph is None:
        position = games.replay(game_id, n).position
        return redirect(grid_picture_url(position, params.rules.count), 303)
    cells = params.board().cell_count
    if cells > MAX_PNG_CELLS:
        raise InputError(
            "game", f"this board has {cells:,} cells; a PNG shows at most {MAX_PNG_CELLS:,}"
        )
    game = loaded.game if n == loaded.moves else games.replay(game_id, n)
    loss = _loss(game) if n == loaded.moves else None
    picture = off_loop(lambda: graph_png(game.position, {}, loss=loss))
    return download(picture, "image/png", f"mine-devil-{game_id}-move-{n}.png")


def _loss(game: Game) -> Loss | None:
    """A lost game's end as its replay draws it; None for any other game."""
    if game.status is not Status.LOST or game.loss is None or game.witness is None:
        return None
    return Loss(game.loss, game.witness)
