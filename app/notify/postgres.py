"""``PostgresNotifier``: ``NOTIFY`` in the writer's transaction, one ``LISTEN`` per process."""

from __future__ import annotations

import logging
import threading
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from app.notify.base import Notifier
from app.notify.topics import Subscription
from app.notify.wire import DEFAULT_CHANNEL, NotifyError, Payload, decode, encode

log = logging.getLogger(__name__)

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
    def sql_wire(self, topic: str, payload: Payload, key: str) -> tuple[str, str, str]:
        marker = -(2**63)  # as long as any value: the size check covers every value
        text = encode(topic, {**payload, key: marker})
        head, found, tail = text.partition(f'"{key}":{marker}')
        if not found or str(marker) in head + tail:
            raise NotifyError(f"cannot place {key!r} in the notification for {topic!r}")
        return self.channel, f'{head}"{key}":', tail

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
                        self._registry.wake_all()  # notifications may have been missed
                    self._listening.set()
                    backoff = 0.1
                    while not self._stopped.is_set():
                        for note in conn.notifies(timeout=self._poll):
                            message = decode(note.payload)
                            if message is not None:
                                self._registry.deliver(*message)
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
