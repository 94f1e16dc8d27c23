"""The one least-recently-used cache of the web layer (games, replays, hints, lessons, puzzles).

``Lru(count, weight=..., budget=...)`` keeps at most ``count`` entries and, with a ``weight``
function, at most ``budget`` in total weight (board cells, for games); the newest entry always
stays. Thread-safe: every method holds the cache's lock.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Lru(Generic[K, V]):
    """A bounded mapping that forgets the least recently used entries first."""

    def __init__(
        self, count: int, weight: Callable[[V], int] | None = None, budget: int | None = None
    ) -> None:
        self.count = count
        self.budget = budget
        self._weight = weight or (lambda _value: 0)
        self._items: OrderedDict[K, V] = OrderedDict()
        self._total = 0
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value (now the most recently used), or None."""
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: K, value: V, keep_if: Callable[[V], bool] | None = None) -> None:
        """Store ``value`` as the most recent entry, unless the entry already there passes
        ``keep_if`` (e.g. it is newer); then trim to the bounds."""
        with self._lock:
            old = self._items.get(key)
            if old is not None:
                if keep_if is not None and keep_if(old):
                    return
                self._total -= self._weight(old)
            self._items[key] = value
            self._items.move_to_end(key)
            self._total += self._weight(value)
            while len(self._items) > 1 and (
                len(self._items) > self.count
                or (self.budget is not None and self._total > self.budget)
            ):
                _, evicted = self._items.popitem(last=False)
                self._total -= self._weight(evicted)

    def get_or_compute(self, key: K, compute: Callable[[], V]) -> V:
        """The cached value, else ``compute()`` (outside the lock), stored."""
        value = self.get(key)
        if value is None:
            value = compute()
            self.put(key, value)
        return value

    def pop(self, key: K) -> None:
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._total -= self._weight(old)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._total = 0

    def __iter__(self) -> Iterator[K]:
        """The keys, least recently used first (a snapshot)."""
        with self._lock:
            return iter(list(self._items))
