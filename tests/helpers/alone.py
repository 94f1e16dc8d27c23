"""Tests that time themselves run alone when the suite runs on two workers (pytest-xdist).

A test marked ``alone`` (a latency bound, a measurement gated on a quiet machine) must not
share the cores with another test. While the suite runs on several workers, every test holds
a shared lock on one file from its setup to its teardown, and an ``alone`` test holds it
exclusively. A second file, the turnstile, keeps a stream of other tests from starving an
``alone`` test: every test passes through it (locks it for a moment) before taking its shared
lock, and an ``alone`` test keeps it locked while it waits and runs, so once it waits no other
test starts, and it starts as soon as the tests already running end.

The locks are ``flock`` locks on files in the session's temporary folder (shared by the
workers, ``tmp_path_factory``'s base's parent): the kernel drops them when a worker dies.
Outside xdist (``pytest`` with no ``-n``, or a test's own pytest in a subprocess) nothing is
locked: every test already runs alone.
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

MARK = "alone"


@contextmanager
def turn(folder: Path, alone: bool) -> Iterator[None]:
    """Hold the suite's lock for one test: shared, or exclusive when ``alone``."""
    with open(folder / "turnstile.lock", "ab") as gate, open(folder / "tests.lock", "ab") as tests:
        fcntl.flock(gate, fcntl.LOCK_EX)
        try:
            fcntl.flock(tests, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        finally:
            if not alone:
                fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(tests, fcntl.LOCK_UN)
            if alone:
                fcntl.flock(gate, fcntl.LOCK_UN)
