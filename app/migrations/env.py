"""Alembic environment: runs on the connection ``Store.migrate`` hands over.

Standalone use (``alembic -x url=sqlite:///data/mine-devil.sqlite3 upgrade head``
with ``script_location`` pointing here) opens its own connection.
"""

from alembic import context
from sqlalchemy import Connection

from app.store.database import make_engine
from app.store.schema import metadata


def run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def main() -> None:
    connection = context.config.attributes.get("connection")
    if connection is not None:
        run(connection)
        return
    url = context.get_x_argument(as_dictionary=True).get("url") or context.config.get_main_option(
        "sqlalchemy.url"
    )
    if not url:
        raise SystemExit("alembic: pass the database with -x url=... or sqlalchemy.url")
    engine = make_engine(url)
    with engine.begin() as conn:
        run(conn)
    engine.dispose()


main()
