"""The ledger as a Flask extension: the ``Ledger`` over the game service, its blueprint, the
hook that annotates a game in the background as soon as a move ends it, and ``flask
rebuild-ledger`` (recompute every finished game's annotation)."""

from __future__ import annotations

import click
from flask import Flask, current_app
from flask.cli import with_appcontext

from app.ledger.routes import bp
from app.ledger.service import Ledger
from app.ledger.store import LedgerStore
from app.play.runner import cpu_runner
from app.play.service import GameService
from app.settings import settings
from app.store.setup import get_store


def init_app(app: Flask) -> None:
    """Call after ``app.play.setup.init_app`` (it needs the game service)."""
    games: GameService = app.extensions["mine_devil.games"]
    ledger = Ledger(
        games,
        LedgerStore(get_store(app).engine),
        cpu_runner(settings(app).engine_runner),
    )
    app.extensions["mine_devil.ledger"] = ledger
    if settings(app).ledger_warm:
        games.on_end.append(ledger.warm)
    app.register_blueprint(bp)
    app.cli.add_command(rebuild_ledger_command)


@click.command("rebuild-ledger")
@with_appcontext
def rebuild_ledger_command() -> None:
    """Recompute every finished game's annotation (after an engine change, say)."""
    ledger: Ledger = current_app.extensions["mine_devil.ledger"]
    done = sum(1 for game_id in ledger.games.store.game_ids() if ledger.rebuild(game_id))
    click.echo(f"Annotated {done} finished games again.")
