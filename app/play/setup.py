"""The game service as a Flask extension: one ``GameService`` per app, ``flask
rebuild-summaries``."""

from __future__ import annotations

from functools import partial

import click
from flask import Flask, current_app
from flask.cli import with_appcontext

from app import heavy
from app.notify import EXTENSION as NOTIFIER
from app.notify import Notifier
from app.play.runner import cpu_runner, engine_offload
from app.play.service import GameService
from app.settings import settings
from app.store.setup import get_store


def get_service() -> GameService:
    """The current app's game service."""
    service: GameService = current_app.extensions["mine_devil.games"]
    return service


def init_app(app: Flask) -> None:
    """The service over the app's store (call after ``app.store.setup.init_app`` and
    ``app.notify.init_app``); each committed event is published on the app's notifier (topic
    ``game:<id>``, payload ``seq``)."""
    notifier: Notifier | None = app.extensions.get(NOTIFIER)
    options = settings(app)
    app.extensions["mine_devil.games"] = GameService(
        get_store(app),
        options.game_cache_size,
        cpu_runner(options.engine_runner),
        engine_offload(app),
        on_event=None if notifier is None else partial(_publish, notifier),
        queue=options.game_queue,
        wait_seconds=options.game_wait_seconds,
    )
    work = options.engine_work_processes
    if work is None:  # default: one heavy-work child under gevent, inline elsewhere
        gevent = cpu_runner(options.engine_runner) is not None
        work = 1 if gevent else 0
    heavy.init_app(app, int(work))
    app.cli.add_command(rebuild_summaries_command)


@click.command("rebuild-summaries")
@with_appcontext
def rebuild_summaries_command() -> None:
    """Recompute every game's derived columns (status, moves, last_seq) from its log."""
    count = get_service().rebuild_summaries()
    click.echo(f"Rebuilt the summaries of {count} games from their logs.")


def game_topic(game_id: str) -> str:
    """The notifier topic a game's new events are published on."""
    return f"game:{game_id}"


def _publish(notifier: Notifier, game_id: str, seq: int) -> None:
    notifier.publish(game_topic(game_id), {"seq": seq})
