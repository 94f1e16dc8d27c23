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

import hashlib
import json
import logging
import os
import secrets
import socket
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from flask import Flask, current_app
from sqlalchemy.engine import Connection

log = logging.getLogger(__name__)

DEFAULT_CHANNEL = "mine_devil"
MAX_PAYLOAD_BYTES = 7900
"""PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; stay clearly below."""

MAX_TOPIC_LENGTH = 200

Payload = Mapping[str, Any]


class NotifyError(ValueError):
    """A topic or payload the notifier cannot carry (names the problem)."""


def encode(topic: str, payload: Payload | None) -> str:
    """The wire form: ``{"t": topic, "p": payload}`` as compact JSON, size-checked."""
    if not topic or len(topic) > MAX_TOPIC_LENGTH:
        raise NotifyError(f"topic must be 1 to {MAX_TOPIC_LENGTH} characters, got {topic!r:.80}")
    text = json.dumps({"t": topic, "p": dict(payload or {})}, separators=(",", ":"))
    if len(text.encode("utf-8")) > MAX_PAYLOAD_BYTES:
        raise NotifyError(
            f"notification for {topic!r} is {len(text.encode('utf-8'))} bytes, over "
            f"{MAX_PAYLOAD_BYTES}: send what changed (ids, seq), not the change itself"
        )
    return text


def decode(text: str) -> tuple[str, dict[str, Any]] | None:
    """``(topic, payload)`` of a wire message, None for anything else on the channel."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    topic, payload = data.get("t"), data.get("p")
    if not isinstance(topic, str) or not isinstance(payload, dict):
        return None
    return topic, payload


# -- waiting ---------------------------------------------------------------------------


class _Topic:
    """The waiters of one topic: a version counter under a condition."""

    __slots__ = ("cond", "payload", "subscribers", "version")

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.version = 0
        self.payload: dict[str, Any] | None = None
        self.subscribers = 0

    def bump(self, payload: dict[str, Any] | None) -> None:
        with self.cond:
            self.version += 1
            if payload is not None:
                self.payload = payload
            self.cond.notify_all()


class Subscription:
    """One waiter on one topic. ``wait`` returns True when the topic was published since
    the last ``wait`` (or since subscribing); use it as a context manager or ``close`` it."""

    def __init__(self, board: _Board, topic: str, entry: _Topic):
        self.topic = topic
        self._board = board
        self._entry = entry
        with entry.cond:
            self._seen = entry.version
        self._closed = False

    @property
    def payload(self) -> dict[str, Any] | None:
        """The payload of the newest publication this process saw on the topic."""
        return self._entry.payload

    def wait(self, timeout: float) -> bool:
        entry = self._entry
        deadline = time.monotonic() + max(0.0, timeout)
        with entry.cond:
            while entry.version == self._seen:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                entry.cond.wait(remaining)
            self._seen = entry.version
            return True

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._board.release(self.topic)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Board:
    """Topics with at least one subscriber; a topic nobody waits on costs nothing."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._topics: dict[str, _Topic] = {}

    def subscribe(self, topic: str) -> Subscription:
        with self._lock:
            entry = self._topics.get(topic)
            if entry is None:
                entry = self._topics[topic] = _Topic()
            entry.subscribers += 1
        return Subscription(self, topic, entry)

    def release(self, topic: str) -> None:
        with self._lock:
            entry = self._topics.get(topic)
            if entry is None:
                return
            entry.subscribers -= 1
            if entry.subscribers <= 0:
                del self._topics[topic]

    def deliver(self, topic: str, payload: dict[str, Any] | None) -> None:
        with self._lock:
            entry = self._topics.get(topic)
        if entry is not None:
            entry.bump(payload)

    def wake_all(self) -> None:
        with self._lock:
            entries = list(self._topics.values())
        for entry in entries:
            entry.bump(None)

    def subscribers(self) -> int:
        with self._lock:
            return sum(entry.subscribers for entry in self._topics.values())


# -- notifiers -------------------------------------------------------------------------


class Outbox:
    """The notifications of one transaction (see ``Notifier.outbox``)."""

    def __init__(self, notifier: Notifier):
        self._notifier = notifier
        self._pending: list[tuple[str, dict[str, Any]]] = []

    def add(self, conn: Connection | None, topic: str, payload: Payload | None = None) -> None:
        """Notify ``topic`` when ``conn``'s transaction commits (``conn`` None: after the
        outbox closes). Add each topic once per transaction: each add is one notification."""
        data = dict(payload or {})
        encode(topic, data)  # refuse a bad topic or an oversized payload inside the transaction
        self._pending.append((topic, data))
        self._notifier._stage(conn, topic, data)

    def _flush(self) -> None:
        for topic, payload in self._pending:
            self._notifier._committed(topic, payload)
        self._pending.clear()


class Notifier:
    """Base: subscribers and the outbox protocol; subclasses say how a publication travels."""

    def __init__(self) -> None:
        self._board = _Board()
        self._closed = False

    @property
    def closed(self) -> bool:
        """True once ``close`` ran: long waits (streams) should end."""
        return self._closed

    @contextmanager
    def outbox(self) -> Iterator[Outbox]:
        """Collect notifications of one transaction; open it *around* the transaction, so
        that its end (after the commit) can deliver them. Nothing is delivered if the
        block raises."""
        box = Outbox(self)
        yield box
        box._flush()

    def publish(self, topic: str, payload: Payload | None = None) -> None:
        """Notify ``topic`` now (outside any transaction)."""
        with self.outbox() as box:
            box.add(None, topic, payload)

    def subscribe(self, topic: str) -> Subscription:
        encode(topic, None)
        return self._board.subscribe(topic)

    def subscribers(self) -> int:
        """How many subscriptions are open in this process."""
        return self._board.subscribers()

    def close(self) -> None:
        """Stop background work (the PostgreSQL listener); wakes every waiter."""
        self._closed = True
        self._board.wake_all()

    # transport hooks
    def _stage(self, conn: Connection | None, topic: str, payload: dict[str, Any]) -> None:
        """Called as a notification is added, inside the transaction."""

    def _committed(self, topic: str, payload: dict[str, Any]) -> None:
        """Called after the transaction committed."""


class LocalNotifier(Notifier):
    """One process: a publication wakes this process's waiters after the commit."""

    def _committed(self, topic: str, payload: dict[str, Any]) -> None:
        self._board.deliver(topic, payload)


class HostNotifier(Notifier):
    """In-process wake-ups plus a datagram to every other subscribed process of this host.

    ``directory`` names the host-wide group (one per SQLite file): each subscribed process
    binds an abstract UNIX datagram socket and drops a file of the same name there, so a
    publisher knows whom to tell. A peer that died is noticed on the next send (refused)
    and its file removed. A full peer buffer drops the datagram: latency, never data."""

    def __init__(self, directory: Path, poll_seconds: float = 1.0):
        super().__init__()
        self.directory = directory
        self._group = hashlib.sha256(str(directory.resolve()).encode()).hexdigest()[:16]
        self._name = f"{os.getpid()}-{secrets.token_hex(6)}"
        self._poll = poll_seconds
        self._lock = threading.Lock()
        self._receiver: socket.socket | None = None
        self._sender: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._stopped = threading.Event()

    def _address(self, name: str) -> str:
        return f"\0mine-devil-notify-{self._group}-{name}"

    # -- sending --
    def _committed(self, topic: str, payload: dict[str, Any]) -> None:
        self._board.deliver(topic, payload)
        try:
            peers = [name for name in os.listdir(self.directory) if name != self._name]
        except FileNotFoundError:
            return
        if not peers:
            return
        data = encode(topic, payload).encode("utf-8")
        with self._lock:
            if self._sender is None:
                self._sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
                self._sender.setblocking(False)
            sender = self._sender
        for name in peers:
            try:
                sender.sendto(data, self._address(name))
            except (ConnectionRefusedError, FileNotFoundError):
                self._forget(name)  # that process is gone
            except OSError:
                pass  # a full buffer: the peer's waiters fall back on their timeouts

    def _forget(self, name: str) -> None:
        with suppress(FileNotFoundError):
            (self.directory / name).unlink()

    # -- receiving --
    def subscribe(self, topic: str) -> Subscription:
        subscription = super().subscribe(topic)
        self._ensure_receiver()
        return subscription

    def _ensure_receiver(self) -> None:
        with self._lock:
            if self._receiver is not None or self._stopped.is_set():
                return
            receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            receiver.bind(self._address(self._name))
            receiver.settimeout(self._poll)
            self.directory.mkdir(parents=True, exist_ok=True)
            (self.directory / self._name).touch()
            self._receiver = receiver
            self._thread = threading.Thread(
                target=self._run, args=(receiver,), name="notify-host", daemon=True
            )
            self._thread.start()

    def _run(self, receiver: socket.socket) -> None:
        while not self._stopped.is_set():
            try:
                data = receiver.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                break
            message = decode(data.decode("utf-8", "replace"))
            if message is not None:
                self._board.deliver(*message)

    def close(self) -> None:
        self._stopped.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(self._poll + 2.0)
        with self._lock:
            for sock in (self._receiver, self._sender):
                if sock is not None:
                    sock.close()
            if self._receiver is not None:
                self._forget(self._name)
            self._receiver = self._sender = None
        super().close()


_NOTIFY = sa.text("SELECT pg_notify(:channel, :payload)")


def psycopg_conninfo(url: str) -> str:
    """A libpq URI for a SQLAlchemy URL (``postgresql+psycopg://...`` -> ``postgresql://...``)."""
    parsed = sa.make_url(url).set(drivername="postgresql")
    return parsed.render_as_string(hide_password=False)


class PostgresNotifier(Notifier):
    """``NOTIFY`` inside the writer's transaction; one ``LISTEN`` connection per process.

    ``engine`` sends (``publish`` outside a transaction borrows one of its connections);
    ``url`` is where the listener connects. The listener starts with the first
    ``subscribe`` and ``subscribe`` waits (up to ``connect_timeout``) until it listens,
    so a subscriber never misses a notification sent after it subscribed."""

    def __init__(
        self,
        engine: sa.Engine,
        url: str | None = None,
        channel: str = DEFAULT_CHANNEL,
        poll_seconds: float = 1.0,
        connect_timeout: float = 5.0,
    ):
        super().__init__()
        if not channel.isidentifier() or not channel.isascii() or len(channel) > 63:
            raise NotifyError(f"channel must be a plain SQL identifier, got {channel!r}")
        self.engine = engine
        self.channel = channel
        self._conninfo = psycopg_conninfo(url or engine.url.render_as_string(False))
        self._poll = poll_seconds
        self._connect_timeout = connect_timeout
        self._start_lock = threading.Lock()
        self._listening = threading.Event()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        self.reconnects = 0

    # -- sending --
    def _stage(self, conn: Connection | None, topic: str, payload: dict[str, Any]) -> None:
        params = {"channel": self.channel, "payload": encode(topic, payload)}
        if conn is not None:
            conn.execute(_NOTIFY, params)  # PostgreSQL delivers it if and when this commits
            return
        with self.engine.connect() as own:
            own.execute(_NOTIFY, params)
            own.commit()

    # -- listening --
    def subscribe(self, topic: str) -> Subscription:
        subscription = super().subscribe(topic)
        self._ensure_listener()
        if not self._listening.wait(self._connect_timeout):
            log.warning(
                "notify: not listening on %s yet; subscribers rely on timeouts", self.channel
            )
        return subscription

    @property
    def listening(self) -> bool:
        return self._listening.is_set()

    def _ensure_listener(self) -> None:
        with self._start_lock:
            if self._thread is not None or self._stopped.is_set():
                return
            self._thread = threading.Thread(
                target=self._run, name=f"notify-listen-{self.channel}", daemon=True
            )
            self._thread.start()

    def _run(self) -> None:
        import psycopg

        backoff = 0.1
        while not self._stopped.is_set():
            try:
                with psycopg.connect(self._conninfo, autocommit=True, connect_timeout=10) as conn:
                    conn.execute(f"LISTEN {self.channel}")
                    if self.reconnects:
                        self._board.wake_all()  # notifications may have been missed
                    self._listening.set()
                    backoff = 0.1
                    while not self._stopped.is_set():
                        for note in conn.notifies(timeout=self._poll):
                            message = decode(note.payload)
                            if message is not None:
                                self._board.deliver(*message)
            except Exception as exc:  # a broken connection, or anything else: listen again
                self._listening.clear()
                if self._stopped.is_set():
                    break
                self.reconnects += 1
                log.warning("notify: listener lost its connection (%s); reconnecting", exc)
                self._stopped.wait(backoff)
                backoff = min(backoff * 2, 5.0)
        self._listening.clear()

    def close(self) -> None:
        self._stopped.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(self._poll + 5.0)
        super().close()


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
    notifier = make_notifier(engine, str(app.config.get("NOTIFY_CHANNEL", DEFAULT_CHANNEL)))
    app.extensions[EXTENSION] = notifier
    return notifier


__all__ = [
    "DEFAULT_CHANNEL",
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
