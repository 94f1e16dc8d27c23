"""Wake waiting streams when something changed: in-process, or across hosts by PostgreSQL.

A notification says *that* a topic changed (a small payload such as world, team, colour,
seq), never *what* changed: a woken subscriber re-reads the store. So a lost notification
costs latency, never data, and every subscriber also wakes on its own timeout.

``topic``
    any short string naming what changed, e.g. ``"world:main:red:2"`` or ``"game:abc"``.
``Notifier.outbox()``
    the writer's side: collect notifications for one transaction, delivered only if the
    transaction commits, once::

        with notifier.outbox() as outbox:
            with store_engine.begin() as conn:
                ...                                   # the writes
                outbox.add(conn, "world:main:red:2", {"seq": 41})
        # SQLite: the in-process waiters wake here, after the commit
        # PostgreSQL: pg_notify ran inside the transaction; PostgreSQL delivers it at
        #             commit to every listening process, this one included

    ``notifier.publish(topic, payload)`` is the same outside any transaction.
``Notifier.subscribe(topic)``
    the reader's side: a ``Subscription`` whose ``wait(timeout)`` returns True as soon as
    the topic was published since the last wait (or since subscribing), False on timeout.
    Many subscribers may wait on one topic; each publication wakes them all.
``Notifier.subscribe_any(topics)``
    one waiter over several topics (a duel's stream waits on both games and the duel).

Implementations (``make_notifier(url)`` picks by the database URL):

``LocalNotifier``
    one process: publications wake waiters directly (an in-memory database, tests).
``HostNotifier``
    the processes of one host sharing a SQLite file (``mine-devil`` runs a worker per
    core): waiters in this process wake directly, and one datagram per publication goes
    to each other process that has subscribers (Linux abstract UNIX sockets, registered
    as files in ``<database>.notify/``). A process with no subscribers opens no socket.
``PostgresNotifier``
    ``LISTEN``/``NOTIFY`` on one channel (default ``mine_devil``). Each process holds ONE
    listening psycopg connection, opened when the first subscriber arrives, in a daemon
    thread that dispatches each notification to the waiters of its topic. If that
    connection breaks it reconnects (with back-off) and wakes every subscriber, since
    notifications may have been missed meanwhile.

gevent: the app runs under gunicorn's gevent worker, which monkey-patches ``threading``
before the app is built, so the listener thread is a greenlet, the conditions are gevent
conditions, and psycopg (imported after the patching) waits cooperatively. Without gevent
(tests, the sync worker) they are ordinary threads.
"""

from __future__ import annotations

import sys
from pathlib import Path

import sqlalchemy as sa
from flask import Flask, current_app

from app.notify.base import LocalNotifier, Notifier, Outbox
from app.notify.host import HostNotifier
from app.notify.postgres import PostgresNotifier
from app.notify.topics import AnySubscription, Subscription
from app.notify.wire import DEFAULT_CHANNEL, NotifyError
from app.settings import settings


def make_notifier(engine: sa.Engine, channel: str = DEFAULT_CHANNEL) -> Notifier:
    """``PostgresNotifier`` for PostgreSQL; ``HostNotifier`` for a SQLite file on Linux
    (its processes share ``<file>.notify/``); ``LocalNotifier`` otherwise."""
    if engine.dialect.name == "postgresql":
        return PostgresNotifier(engine, channel=channel)
    database = engine.url.database
    on_file = engine.dialect.name == "sqlite" and database and database != ":memory:"
    if on_file and sys.platform.startswith("linux"):
        return HostNotifier(Path(str(database) + ".notify"))
    return LocalNotifier()


# -- Flask glue ------------------------------------------------------------------------

EXTENSION = "mine_devil.notifier"


def get_notifier() -> Notifier:
    notifier: Notifier = current_app.extensions[EXTENSION]
    return notifier


def init_app(app: Flask, engine: sa.Engine) -> Notifier:
    """One notifier per app, sending on ``engine`` (the store's); ``NOTIFY_CHANNEL`` names
    the PostgreSQL channel."""
    existing: Notifier | None = app.extensions.get(EXTENSION)
    if existing is not None:
        return existing
    notifier = make_notifier(engine, settings(app).notify_channel)
    app.extensions[EXTENSION] = notifier
    return notifier


__all__ = [
    "DEFAULT_CHANNEL",
    "AnySubscription",
    "HostNotifier",
    "LocalNotifier",
    "Notifier",
    "NotifyError",
    "Outbox",
    "PostgresNotifier",
    "Subscription",
    "get_notifier",
    "init_app",
    "make_notifier",
]
