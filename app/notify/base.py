"""The notifier protocol (outbox on the writer's side, subscriptions on the reader's) and the
in-process ``LocalNotifier``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy.engine import Connection

from app.notify.topics import AnySubscription, Subscription, TopicRegistry
from app.notify.wire import Payload, encode


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
        self._registry = TopicRegistry()
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
        return self._registry.subscribe(topic)

    def subscribe_any(self, topics: list[str]) -> AnySubscription:
        """One waiter over several topics (each subscribed as ``subscribe`` does)."""
        subscriptions: list[Subscription] = []
        try:
            for topic in topics:
                subscriptions.append(self.subscribe(topic))
        except BaseException:
            for subscription in subscriptions:
                subscription.close()
            raise
        return AnySubscription(subscriptions)

    def subscribers(self) -> int:
        """How many subscriptions are open in this process."""
        return self._registry.subscribers()

    def close(self) -> None:
        """Stop background work (the PostgreSQL listener); wakes every waiter."""
        self._closed = True
        self._registry.wake_all()

    def sql_wire(self, topic: str, payload: Payload, key: str) -> tuple[str, str, str] | None:
        """For a notification whose ``payload[key]`` (an integer) only the database knows
        when the writing statement runs: ``(channel, head, tail)`` such that ``pg_notify(
        channel, head || value || tail)`` in that transaction sends it. None when this
        notifier does not travel through PostgreSQL (add it to the outbox instead)."""
        return None

    # transport hooks
    def _stage(self, conn: Connection | None, topic: str, payload: dict[str, Any]) -> None:
        """Called as a notification is added, inside the transaction."""

    def _committed(self, topic: str, payload: dict[str, Any]) -> None:
        """Called after the transaction committed."""


class LocalNotifier(Notifier):
    """One process: a publication wakes this process's waiters after the commit."""

    def _committed(self, topic: str, payload: dict[str, Any]) -> None:
        self._registry.deliver(topic, payload)
