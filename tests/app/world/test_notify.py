"""The notifier: in-process wake-ups, PostgreSQL LISTEN/NOTIFY across engines, gevent."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa

from app.notify import (
    LocalNotifier,
    Notifier,
    NotifyError,
    PostgresNotifier,
    make_notifier,
)
from app.notify.wire import MAX_PAYLOAD_BYTES, decode, encode
from tests.helpers.web import postgres_base_url

ROOT = Path(__file__).resolve().parents[3]


# -- wire format -----------------------------------------------------------------------


def test_encode_round_trips_and_refuses_what_postgres_cannot_carry() -> None:
    assert decode(encode("world:main:red:2", {"seq": 7})) == ("world:main:red:2", {"seq": 7})
    with pytest.raises(NotifyError, match="topic"):
        encode("", None)
    with pytest.raises(NotifyError, match=str(MAX_PAYLOAD_BYTES)):
        encode("t", {"cells": "x" * MAX_PAYLOAD_BYTES})
    for garbage in ("", "not json", "[1]", '{"t": 1, "p": {}}', '{"t": "a", "p": 3}'):
        assert decode(garbage) is None


# -- in-process ------------------------------------------------------------------------


def test_a_publication_wakes_its_topic_once_and_only_its_topic() -> None:
    notifier = LocalNotifier()
    with notifier.subscribe("a") as a, notifier.subscribe("b") as b:
        assert not a.wait(0.01)
        notifier.publish("a", {"seq": 1})
        assert a.wait(1.0)
        assert a.payload == {"seq": 1}
        assert not a.wait(0.01)  # consumed
        assert not b.wait(0.01)
        assert notifier.subscribers() == 2
    assert notifier.subscribers() == 0


def test_a_publication_before_wait_is_not_lost() -> None:
    notifier = LocalNotifier()
    sub = notifier.subscribe("t")
    notifier.publish("t")
    notifier.publish("t")
    assert sub.wait(0.0)  # already there: no waiting at all (not a wall-clock bound)
    sub.close()
    sub.close()  # idempotent


def test_outbox_delivers_after_the_block_and_nothing_when_it_raises() -> None:
    notifier = LocalNotifier()
    with notifier.subscribe("t") as sub:
        with pytest.raises(RuntimeError), notifier.outbox() as box:
            box.add(None, "t", {"seq": 1})
            raise RuntimeError("rolled back")
        assert not sub.wait(0.05)
        with notifier.outbox() as box:
            box.add(None, "t", {"seq": 2})
            assert not sub.wait(0.01)  # not before the commit
        assert sub.wait(1.0)
        assert sub.payload == {"seq": 2}


def test_outbox_refuses_an_oversized_payload_inside_the_transaction() -> None:
    notifier = LocalNotifier()
    with pytest.raises(NotifyError), notifier.outbox() as box:
        box.add(None, "t", {"x": "y" * 10_000})


def wake_many(notifier: Notifier, waiters: int, topic: str, publish: object) -> list[float]:
    """Start ``waiters`` threads waiting on ``topic``, publish, return each wake-up delay."""
    ready = threading.Barrier(waiters + 1)
    delays: list[float] = []
    lock = threading.Lock()
    published: list[float] = []

    def wait() -> None:
        with notifier.subscribe(topic) as sub:
            ready.wait()
            if sub.wait(10.0):
                with lock:
                    delays.append(time.monotonic() - published[0])

    threads = [threading.Thread(target=wait) for _ in range(waiters)]
    for thread in threads:
        thread.start()
    ready.wait()
    published.append(time.monotonic())
    assert callable(publish)
    publish()
    for thread in threads:
        thread.join(15)
    return delays


def test_one_publication_wakes_every_waiter_of_the_topic() -> None:
    notifier = LocalNotifier()
    delays = wake_many(notifier, 100, "hot", lambda: notifier.publish("hot", {"seq": 1}))
    assert len(delays) == 100
    assert max(delays) < 5.0  # generous: the machine is shared
    assert notifier.subscribers() == 0


def test_make_notifier_picks_the_local_notifier_for_sqlite_in_memory() -> None:
    engine = sa.create_engine("sqlite://")
    assert isinstance(make_notifier(engine), LocalNotifier)
    engine.dispose()


def test_the_app_has_one_notifier(app) -> None:  # type: ignore[no-untyped-def]
    from app.notify import EXTENSION, HostNotifier

    assert isinstance(app.extensions[EXTENSION], HostNotifier)


# -- PostgreSQL ------------------------------------------------------------------------


@pytest.fixture
def pg_engines() -> Iterator[tuple[sa.Engine, sa.Engine]]:
    """Two engines on one PostgreSQL, as two app processes would have."""
    base = postgres_base_url()
    assert base is not None
    first, second = sa.create_engine(base), sa.create_engine(base)
    yield first, second
    first.dispose()
    second.dispose()


def channel() -> str:
    return f"test_notify_{os.getpid()}_{time.monotonic_ns() % 10**9}"


@contextmanager
def sender_and_receiver(
    engines: tuple[sa.Engine, sa.Engine], poll_seconds: float = 1.0
) -> Iterator[tuple[PostgresNotifier, PostgresNotifier, str]]:
    """Two notifiers on a fresh channel, as two processes would have (the receiver on the
    second engine, polling every ``poll_seconds``), closed afterwards; and the channel."""
    name = channel()
    sender = PostgresNotifier(engines[0], channel=name)
    receiver = PostgresNotifier(engines[1], channel=name, poll_seconds=poll_seconds)
    try:
        yield sender, receiver, name
    finally:
        sender.close()
        receiver.close()


@pytest.mark.postgres
def test_a_notify_in_one_transaction_wakes_the_other_process_at_commit(
    pg_engines: tuple[sa.Engine, sa.Engine],
) -> None:
    with (
        sender_and_receiver(pg_engines) as (sender, receiver, _),
        receiver.subscribe("world:w:t:0") as sub,
    ):
        assert receiver.listening
        with sender.outbox() as box, pg_engines[0].begin() as conn:
            box.add(conn, "world:w:t:0", {"seq": 5})
            assert not sub.wait(0.3)  # PostgreSQL holds it until the commit
        assert sub.wait(5.0)
        assert sub.payload == {"seq": 5}
        # a rolled-back transaction notifies nobody
        with pytest.raises(RuntimeError), sender.outbox() as box, pg_engines[0].begin() as conn:
            box.add(conn, "world:w:t:0", {"seq": 6})
            raise RuntimeError("rollback")
        assert not sub.wait(0.5)
        # outside a transaction
        sender.publish("world:w:t:0", {"seq": 7})
        assert sub.wait(5.0)
        assert sub.payload == {"seq": 7}


@pytest.mark.postgres
def test_one_listening_connection_serves_many_waiters(
    pg_engines: tuple[sa.Engine, sa.Engine],
) -> None:
    with sender_and_receiver(pg_engines) as (sender, receiver, name):
        with receiver.subscribe("warm"):
            pass  # the listener is up before the waiters race
        with pg_engines[0].connect() as conn:
            before = listeners(conn, name)
        delays = wake_many(receiver, 60, "many", lambda: sender.publish("many", {"seq": 1}))
        assert len(delays) == 60
        assert max(delays) < 5.0
        with pg_engines[0].connect() as conn:
            assert listeners(conn, name) == before == 1


def listeners(conn: sa.Connection, name: str) -> int:
    """Backends whose last statement was ``LISTEN <name>``."""
    query = sa.text("SELECT count(*) FROM pg_stat_activity WHERE query = :q")
    return int(conn.execute(query, {"q": f"LISTEN {name}"}).scalar_one())


@pytest.mark.postgres
def test_a_broken_listener_reconnects_and_wakes_everyone(
    pg_engines: tuple[sa.Engine, sa.Engine],
) -> None:
    with (
        sender_and_receiver(pg_engines, poll_seconds=0.2) as (sender, receiver, name),
        receiver.subscribe("t") as sub,
    ):
        with pg_engines[0].connect() as conn:
            conn.execute(
                sa.text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = :q"),
                {"q": f"LISTEN {name}"},
            )
            conn.commit()
        # notifications may have been missed while it was down: everyone re-reads
        assert sub.wait(10.0)
        assert receiver.reconnects >= 1
        deadline = time.monotonic() + 10
        while not receiver.listening and time.monotonic() < deadline:
            time.sleep(0.05)
        sender.publish("t", {"seq": 9})
        assert sub.wait(5.0)
        assert sub.payload == {"seq": 9}


# -- gevent ----------------------------------------------------------------------------

GEVENT_SCRIPT = """
from gevent import monkey
monkey.patch_all()
import sys, time
import gevent
import sqlalchemy as sa
from app.notify import LocalNotifier, PostgresNotifier

def run(notifier, sender):
    woken = []
    def waiter():
        with notifier.subscribe("g") as sub:
            if sub.wait(10):
                woken.append(time.monotonic())
    greenlets = [gevent.spawn(waiter) for _ in range(200)]
    gevent.sleep(0.2)
    ticks = []
    ticker = gevent.spawn(lambda: [ticks.append(gevent.sleep(0.01)) for _ in range(20)])
    sender.publish("g", {"seq": 1})
    gevent.joinall(greenlets + [ticker], timeout=15)
    assert len(woken) == 200, len(woken)
    assert len(ticks) == 20, "the hub stayed responsive"

local = LocalNotifier()
run(local, local)
url = sys.argv[1] if len(sys.argv) > 1 else ""
if url:
    sender_engine, receiver_engine = sa.create_engine(url), sa.create_engine(url)
    channel = "test_notify_gevent_%d" % __import__("os").getpid()
    receiver = PostgresNotifier(receiver_engine, channel=channel)
    sender = PostgresNotifier(sender_engine, channel=channel)
    run(receiver, sender)
    receiver.close()
print("ok")
"""


def run_gevent(*args: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", GEVENT_SCRIPT, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "ok"


def test_under_gevent_200_greenlets_wait_without_blocking_the_hub() -> None:
    run_gevent()


@pytest.mark.postgres
def test_under_gevent_the_postgres_listener_is_cooperative() -> None:
    base = postgres_base_url()
    assert base is not None
    run_gevent(base)


# -- one host, several processes (SQLite) ----------------------------------------------


def test_make_notifier_picks_the_host_notifier_for_a_sqlite_file(tmp_path: Path) -> None:
    from app.notify import HostNotifier

    engine = sa.create_engine(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    notifier = make_notifier(engine)
    assert isinstance(notifier, HostNotifier)
    assert notifier.directory == tmp_path / "x.sqlite3.notify"
    engine.dispose()


def test_host_notifiers_on_one_directory_wake_each_other(tmp_path: Path) -> None:
    from app.notify import HostNotifier

    first, second = HostNotifier(tmp_path / "n"), HostNotifier(tmp_path / "n")
    try:
        with second.subscribe("t") as sub, first.subscribe("t") as own:
            first.publish("t", {"seq": 1})
            assert own.wait(1.0)  # this process: directly
            assert sub.wait(2.0)  # the other: by datagram
            assert sub.payload == {"seq": 1}
            assert not sub.wait(0.05)
        assert len(list((tmp_path / "n").iterdir())) == 2
    finally:
        first.close()
        second.close()
    assert list((tmp_path / "n").iterdir()) == []


def test_a_host_notifier_forgets_a_dead_peer(tmp_path: Path) -> None:
    from app.notify import HostNotifier

    directory = tmp_path / "n"
    directory.mkdir()
    (directory / "999999-dead").touch()  # a peer that died without cleaning up
    notifier = HostNotifier(directory)
    notifier.publish("t", {})
    assert not (directory / "999999-dead").exists()
    notifier.close()


HOST_SCRIPT = """
import sys, time
from pathlib import Path
from app.notify import HostNotifier
n = HostNotifier(Path(sys.argv[1]))
with n.subscribe("t") as sub:
    print("ready", flush=True)
    print("woken" if sub.wait(10) else "timeout", sub.payload, flush=True)
n.close()
"""


def test_a_host_notifier_wakes_another_process(tmp_path: Path) -> None:
    from app.notify import HostNotifier

    child = subprocess.Popen(
        [sys.executable, "-c", HOST_SCRIPT, str(tmp_path / "n")],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        notifier = HostNotifier(tmp_path / "n")
        notifier.publish("t", {"seq": 3})
        assert child.stdout.readline().strip() == "woken {'seq': 3}"
        notifier.close()
    finally:
        child.wait(10)
        if child.stdout is not None:
            child.stdout.close()
