"""The teaching panels of the game page, built by the views (templates never load them):
the hint ladder while the game runs, the loss or win lesson once it has ended."""

from __future__ import annotations

from dataclasses import dataclass, replace

from flask import current_app

from app.lru import Lru
from app.play.loaded import LoadedGame
from app.play.setup import get_service
from app.teach.hints import HintView, hint_view
from app.teach.lessons import LossLesson, WinLesson, loss_lesson, win_lesson
from devil.game import Status

_lessons: Lru[tuple[str, str, int], LossLesson | WinLesson] = Lru(256)


@dataclass(frozen=True)
class Teaching:
    """What the game page's teaching includes show for one game."""

    hints: HintView | None = None
    loss: LossLesson | None = None
    win: WinLesson | None = None


def teaching(loaded: LoadedGame, mover: bool) -> Teaching | None:
    """The panels for ``loaded`` as ``mover`` (the player) or a watcher sees it.

    Teaching is an extra: if it fails, the game page still renders (without it) and the
    error is logged.
    """
    try:
        return _teaching(loaded, mover)
    except Exception:  # a bug here must not break playing
        current_app.logger.exception("teaching panel for game %s failed", loaded.id)
        return None


def _teaching(loaded: LoadedGame, mover: bool) -> Teaching:
    status = loaded.game.status
    if status is Status.PLAYING:
        return Teaching(hints=hint_view(loaded, mover))
    if status is Status.LOST:
        loss = _lessons.get_or_compute(
            ("loss", loaded.id, loaded.moves), lambda: loss_lesson(get_service(), loaded)
        )
        assert isinstance(loss, LossLesson)
        return Teaching(loss=loss)
    win = _lessons.get_or_compute(("win", loaded.id, loaded.moves), lambda: win_lesson(loaded))
    assert isinstance(win, WinLesson)
    return Teaching(win=replace(win, hints_used=loaded.hints))
