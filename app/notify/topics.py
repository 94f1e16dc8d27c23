"""In-process waiting: topics with their subscribers, woken by a version counter."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

RECENT = 32
"""Payloads a topic remembers, so a waiter woken once for several publications can read
them all (``Subscription.payloads``)."""


class Topic:
    """The waiters of one topic: a version counter under a condition."""

    __slots__ = ("cond", "listeners", "payload", "recent", "subscribers", "version")

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.version = 0
        self.payload: dict[str, Any] | None = None
        self.recent: deque[tuple[int, dict[str, Any] | None]] = deque(maxlen=RECENT)
        self.subscribers = 0
        self.listeners: list[Callable[[], None]] = []
        """Called after each bump (``AnySubscription``: one waiter over several topics)."""

    def bump(self, payload: dict[str, Any] | None) -> None:
        """Wake the waiters; ``payload`` None means "something may have changed, unknown
        what" (notifications may have been lost): waiters then re-read everything."""
        with self.cond:
            self.version += 1
            self.payload = payload
            self.recent.append((self.version, payload))
            self.cond.notify_all()
            listeners = list(self.listeners)
        for listener in listeners:
            listener()


class Subscription:
    """One waiter on one topic. ``wait`` returns True when the topic was published since
    the last ``wait`` (or since subscribing); use it as a context manager or ``close`` it."""

    def __init__(self, registry: TopicRegistry, topic: str, entry: Topic):
        self.topic = topic
        self._registry = registry
        self._entry = entry
        with entry.cond:
            self._seen = entry.version
        self._closed = False
        self._batch: list[dict[str, Any] | None] = []

    @property
    def payload(self) -> dict[str, Any] | None:
        """The payload of the newest publication this process saw on the topic."""
        return self._entry.payload

    @property
    def payloads(self) -> list[dict[str, Any] | None]:
        """Every publication the last successful ``wait`` woke for, oldest first; a None in
        it stands for "unknown" (a wake-up without payload, or more publications than the
        topic remembers)."""
        return self._batch

    def wait(self, timeout: float) -> bool:
        entry = self._entry
        with entry.cond:
            if not entry.cond.wait_for(lambda: entry.version != self._seen, max(0.0, timeout)):
                return False
            since, self._seen = self._seen, entry.version
            batch = [p for v, p in entry.recent if v > since]
            if len(batch) < self._seen - since:
                batch.insert(0, None)  # some were forgotten: the caller re-reads
            self._batch = batch
            return True

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._registry.release(self.topic)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AnySubscription:
    """One waiter over several subscriptions: ``wait`` returns True when any of their topics
    was published since the last ``wait`` (or since subscribing). Closing it closes them."""

    def __init__(self, subscriptions: Sequence[Subscription]):
        self._subscriptions = tuple(subscriptions)
        self._cond = threading.Condition()
        self._version = 0
        self._seen = 0
        for subscription in self._subscriptions:
            entry = subscription._entry
            with entry.cond:
                entry.listeners.append(self._poke)
                if entry.version != subscription._seen:  # published before we listened
                    self._version += 1

    def _poke(self) -> None:
        with self._cond:
            self._version += 1
            self._cond.notify_all()

    def wait(self, timeout: float) -> bool:
        with self._cond:
            if not self._cond.wait_for(lambda: self._version != self._seen, max(0.0, timeout)):
                return False
            self._seen = self._version
            return True

    def close(self) -> None:
        for subscription in self._subscriptions:
            entry = subscription._entry
            with entry.cond:
                if self._poke in entry.listeners:
                    entry.listeners.remove(self._poke)
            subscription.close()

    def __enter__(self) -> AnySubscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class TopicRegistry:
    """Topics with at least one subscriber; a topic nobody waits on costs nothing."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._topics: dict[str, Topic] = {}

    def subscribe(self, topic: str) -> Subscription:
        with self._lock:
            entry = self._topics.get(topic)
            if entry is None:
                entry = self._topics[topic] = Topic()
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
