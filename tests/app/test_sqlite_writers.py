"""SQLite writers wait for each other without freezing a gevent worker (``app.store.database``).

A gevent worker serves every request of its process on one thread. SQLite's own busy
timeout sleeps in C, so a writer waiting there froze the whole process: health probes and
other teams' moves waited, and the writer holding the lock could not even finish (it
waits on the same hub) until the timeout ran out.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from app.store import database
from app.store.database import make_engine

ROOT = Path(__file__).resolve().parents[2]


def _engine(path: Path) -> sa.Engine:
    engine = make_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE IF NOT EXISTS t (v INTEGER)")
    return engine


def _write(engine: sa.Engine, value: int) -> None:
    with engine.connect() as raw:
        conn = raw.execution_options(sqlite_begin="IMMEDIATE")
        with conn.begin():
            conn.exec_driver_sql(f"INSERT INTO t VALUES ({value})")


def test_a_writer_waits_for_the_other_and_then_writes(tmp_path: Path) -> None:
    first, second = _engine(tmp_path / "db"), _engine(tmp_path / "db")
    holding = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with first.connect() as raw:
            conn = raw.execution_options(sqlite_begin="IMMEDIATE")
            with conn.begin():
                conn.exec_driver_sql("INSERT INTO t VALUES (1)")
                holding.set()
                release.wait(5)

    holder = threading.Thread(target=hold)
    holder.start()
    assert holding.wait(5)
    threading.Timer(0.3, release.set).start()
    started = time.monotonic()
    _write(second, 2)
    waited = time.monotonic() - started
    holder.join(5)
    assert waited >= 0.25  # it waited for the holder rather than failing at once
    with second.connect() as conn:
        assert sorted(v for (v,) in conn.exec_driver_sql("SELECT v FROM t")) == [1, 2]
    first.dispose()
    second.dispose()


def test_a_writer_gives_up_with_an_operational_error_after_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(database, "BUSY_SECONDS", 0.2)
    first, second = _engine(tmp_path / "db"), _engine(tmp_path / "db")
    with first.connect() as raw:
        conn = raw.execution_options(sqlite_begin="IMMEDIATE")
        with conn.begin():
            started = time.monotonic()
            with pytest.raises(sa.exc.OperationalError, match="locked"):
                _write(second, 2)
            assert time.monotonic() - started < 2.0
    _write(second, 3)  # the connection that gave up is usable again, with the lock free
    first.dispose()
    second.dispose()


GEVENT_SCRIPT = textwrap.dedent(
    """
    from gevent import monkey

    monkey.patch_all()

    import sys
    import time

    import gevent

    sys.path.insert(0, sys.argv[2])
    from app.store.database import make_engine

    url = "sqlite:///" + sys.argv[1]
    holder, waiter = make_engine(url), make_engine(url)
    with holder.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE t (v INTEGER)")
    ticks = []

    def ticker():
        for _ in range(30):
            ticks.append(time.monotonic())
            gevent.sleep(0.01)

    def write():
        with waiter.connect() as raw:
            conn = raw.execution_options(sqlite_begin="IMMEDIATE")
            with conn.begin():
                conn.exec_driver_sql("INSERT INTO t VALUES (2)")

    def hold():
        with holder.connect() as raw:
            conn = raw.execution_options(sqlite_begin="IMMEDIATE")
            with conn.begin():
                conn.exec_driver_sql("INSERT INTO t VALUES (1)")
                gevent.sleep(0.3)  # a writer that yields while it holds the lock

    started = time.monotonic()
    jobs = [gevent.spawn(hold), gevent.spawn(ticker)]
    gevent.sleep(0.02)
    jobs.append(gevent.spawn(write))
    gevent.joinall(jobs, raise_error=True)
    print(len(ticks), round(time.monotonic() - started, 3))
    """
)


def test_a_waiting_writer_leaves_a_gevent_hub_free(tmp_path: Path) -> None:
    """Under gevent, the holder finishes and other greenlets keep running while a second
    writer waits: no freeze, no deadlock until the busy timeout."""
    script = tmp_path / "script.py"
    script.write_text(GEVENT_SCRIPT)
    out = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "db"), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    ticks, seconds = out.stdout.split()
    assert int(ticks) == 30  # the ticker ran on while the writer waited
    assert float(seconds) < 5.0  # before: about 30 s, SQLite's busy timeout
