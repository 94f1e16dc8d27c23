"""Where the rate limits count: shared by every worker of a host, or by every host.

Flask-Limiter counts in the storage named by ``RATELIMIT_STORAGE_URI``
(``MINE_DEVIL_RATELIMIT_STORAGE``). Its own default, ``memory://``, counts per process: with
one gunicorn worker per core every client got workers x its limit. So:

``sqlite:///<data>/ratelimits.sqlite3`` (the default)
    one small SQLite file in the data directory, shared by every worker of the host (fixed
    windows, one ``UPSERT ... RETURNING`` per hit, WAL, no fsync: counters are worth less
    than a disk flush). No extra service; a client gets its configured limit on this host.
``redis://host:port/db``
    several hosts: every process of every host counts in one Redis (Flask-Limiter's own
    storage, here with short socket timeouts so a lost Redis costs 0.5 s, never a hang).
``memory://``
    per process (tests; one-worker setups).

When the shared store fails (Redis stopped or unreachable, the SQLite file unwritable), the
process does not fail the request: it **counts in its own memory** (limits then hold per
process, i.e. at most processes x limit), logs one warning when the outage starts and one
when the store answers again, and tries the store again every ``RETRY_SECONDS``. Nothing
the limits guard answers 500 because of them.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from limits.storage import MemoryStorage, RedisStorage, Storage

log = logging.getLogger("mine_devil.limits")

T = TypeVar("T")

RETRY_SECONDS = 5.0
"""While the shared store is down, seconds between attempts to use it again."""
REDIS_SOCKET_SECONDS = 0.5
"""Connect and read timeout of the Redis client: an unreachable Redis costs this much once
per ``RETRY_SECONDS``, not a hung request."""
PURGE_EVERY = 1000
"""The SQLite store deletes expired counters once every this many hits."""


class Fallback:
    """The per-process memory a shared store falls back to while it fails."""

    def __init__(self, name: str, errors: type[Exception] | tuple[type[Exception], ...]):
        self.name = name
        self.errors = errors
        self.memory = MemoryStorage()
        self._down_until = 0.0
        self._down = False
        self._lock = threading.Lock()

    def call(self, shared: Callable[[], T], local: Callable[[MemoryStorage], T]) -> T:
        """``shared()``, or ``local(memory)`` while the store is down or when it just failed."""
        if self._down and time.monotonic() < self._down_until:
            return local(self.memory)
        try:
            result = shared()
        except self.errors as exc:
            with self._lock:
                if not self._down:
                    log.warning(
                        "rate limit store %s unreachable (%s: %s): counting per process "
                        "until it answers (retried every %g s)",
                        self.name, type(exc).__name__, exc, RETRY_SECONDS,
                    )  # fmt: skip
                self._down = True
                self._down_until = time.monotonic() + RETRY_SECONDS
            return local(self.memory)
        if self._down:
            with self._lock:
                if self._down:
                    log.warning("rate limit store %s answers again: limits shared", self.name)
                self._down = False
        return result


class FallbackStorage(Storage):
    """Fixed-window operations of a shared storage, through a ``Fallback``."""

    fallback: Fallback

    def _shared_incr(self, key: str, expiry: int, amount: int) -> int:
        raise NotImplementedError

    def _shared_get(self, key: str) -> int:
        raise NotImplementedError

    def _shared_get_expiry(self, key: str) -> float:
        raise NotImplementedError

    def _shared_clear(self, key: str) -> None:
        raise NotImplementedError

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        return self.fallback.call(
            lambda: self._shared_incr(key, expiry, amount),
            lambda memory: memory.incr(key, expiry, amount),
        )

    def get(self, key: str) -> int:
        return self.fallback.call(lambda: self._shared_get(key), lambda m: m.get(key))

    def get_expiry(self, key: str) -> float:
        return self.fallback.call(lambda: self._shared_get_expiry(key), lambda m: m.get_expiry(key))

    def clear(self, key: str) -> None:
        self.fallback.call(lambda: self._shared_clear(key), lambda m: m.clear(key))


class SharedRedisStorage(FallbackStorage, RedisStorage):
    """Flask-Limiter's Redis storage with short timeouts and the per-process fallback."""

    STORAGE_SCHEME = ["redis", "rediss", "redis+unix"]  # noqa: RUF012  # as limits declares it

    def __init__(self, uri: str, **options: Any) -> None:
        options.setdefault("socket_connect_timeout", REDIS_SOCKET_SECONDS)
        options.setdefault("socket_timeout", REDIS_SOCKET_SECONDS)
        super().__init__(uri, **options)
        self.fallback = Fallback(uri.split("@")[-1], self.base_exceptions)

    def _shared_incr(self, key: str, expiry: int, amount: int) -> int:
        return RedisStorage.incr(self, key, expiry, amount)

    def _shared_get(self, key: str) -> int:
        return RedisStorage.get(self, key)

    def _shared_get_expiry(self, key: str) -> float:
        return RedisStorage.get_expiry(self, key)

    def _shared_clear(self, key: str) -> None:
        RedisStorage.clear(self, key)

    # Storage's own hooks wrap these on every subclass: name Redis's here, or the abstract
    # ones of ``FallbackStorage`` would shadow them.
    def check(self) -> bool:
        return RedisStorage.check(self)

    def reset(self) -> int | None:
        return RedisStorage.reset(self)


class SQLiteStorage(FallbackStorage):
    """Fixed-window counters in one SQLite file, shared by the processes of one host.

    URI as SQLAlchemy writes them: ``sqlite:///relative/path`` or ``sqlite:////absolute``."""

    STORAGE_SCHEME = ["sqlite"]  # noqa: RUF012  # as limits declares it

    def __init__(self, uri: str, wrap_exceptions: bool = False, **options: Any) -> None:
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        self.path = Path(uri.split("://", 1)[1][1:])
        self.fallback = Fallback(str(self.path), sqlite3.Error)
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._hits = 0

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return sqlite3.Error

    def _connect(self) -> sqlite3.Connection:
        if self._connection is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(
                self.path, timeout=2.0, isolation_level=None, check_same_thread=False
            )
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=OFF")
            connection.execute(
                "CREATE TABLE IF NOT EXISTS counters "
                "(key TEXT PRIMARY KEY, value INTEGER NOT NULL, expires REAL NOT NULL)"
            )
            self._connection = connection
        return self._connection

    def _run(self, sql: str, args: tuple[Any, ...] | dict[str, Any] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._connect().execute(sql, args).fetchall()
            except sqlite3.Error:
                self._close()
                raise

    def _close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _shared_incr(self, key: str, expiry: int, amount: int) -> int:
        now = time.time()
        self._hits += 1
        if self._hits % PURGE_EVERY == 0:
            self._run("DELETE FROM counters WHERE expires <= ?", (now,))
        rows = self._run(
            "INSERT INTO counters (key, value, expires) VALUES (:key, :amount, :ends) "
            "ON CONFLICT (key) DO UPDATE SET "
            "value = CASE WHEN expires <= :now THEN :amount ELSE value + :amount END, "
            "expires = CASE WHEN expires <= :now THEN :ends ELSE expires END "
            "RETURNING value",
            {"key": key, "amount": amount, "ends": now + expiry, "now": now},
        )
        return int(rows[0][0])

    def _shared_get(self, key: str) -> int:
        rows = self._run(
            "SELECT value FROM counters WHERE key = ? AND expires > ?", (key, time.time())
        )
        return int(rows[0][0]) if rows else 0

    def _shared_get_expiry(self, key: str) -> float:
        now = time.time()
        rows = self._run("SELECT expires FROM counters WHERE key = ? AND expires > ?", (key, now))
        return float(rows[0][0]) if rows else now

    def _shared_clear(self, key: str) -> None:
        self._run("DELETE FROM counters WHERE key = ?", (key,))

    def check(self) -> bool:
        try:
            self._run("SELECT 1")
        except sqlite3.Error:
            return False
        return True

    def reset(self) -> int | None:
        rows = self._run("DELETE FROM counters RETURNING key")
        return len(rows)


def default_uri(data_dir: Path) -> str:
    """The default storage: the SQLite file in the data directory."""
    return f"sqlite:///{data_dir / 'ratelimits.sqlite3'}"
