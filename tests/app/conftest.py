"""Fixtures shared by the web tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.play.offload import EngineProcess


@pytest.fixture
def engine() -> Iterator[EngineProcess]:
    """A started engine child process, closed after the test."""
    process = EngineProcess()
    process.start()
    yield process
    process.close()
