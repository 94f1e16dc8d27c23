"""The store as a Flask extension: one ``Store`` per app, migrated at startup, ``flask init-db``."""

from __future__ import annotations

import click
import sqlalchemy as sa
from flask import Flask, current_app
from flask.cli import with_appcontext

from app.settings import settings
from app.store.log import Store


def get_store(app: Flask | None = None) -> Store:
    """The app's store (the current app's by default): one per app, shared by all requests
    and threads."""
    store: Store = (app or current_app).extensions["mine_devil.store"]
    return store


def init_app(app: Flask) -> None:
    """Open the store for ``app.config["DATABASE_URL"]``, migrate it, add ``init-db``."""
    store = Store(settings(app).database_url)
    app.extensions["mine_devil.store"] = store
    if settings(app).auto_migrate:
        store.migrate()
    app.cli.add_command(init_db_command)


@click.command("init-db")
@with_appcontext
def init_db_command() -> None:
    """Create or upgrade the database schema (alembic migrations)."""
    store = get_store()
    store.migrate()
    click.echo(f"Database at revision {store.revision()}: {_safe_url(store.url)}")


def _safe_url(url: str) -> str:
    return sa.make_url(url).render_as_string(hide_password=True)
