"""bench/bench_world.py runs end to end (its --quick mode) and reports a sound run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.slow
@pytest.mark.parametrize(
    "db_url", [pytest.param("postgresql", marks=pytest.mark.postgres)], indirect=True
)
def test_the_world_benchmark_runs_and_finds_nothing_lost(db_url: str) -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "bench_world.py"),
            "--quick",
            "--database-url",
            db_url,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = {
        line.split("  ")[1].strip(): line.strip().split("  ")[-1].strip()
        for line in done.stdout.splitlines()
        if line.startswith("  ") and len(line.split("  ")) > 2
    }
    table = done.stdout
    assert "bots: devil errors" in table
    assert rows.get("bots: devil errors") == "0", table
    assert rows.get("log: gapless / acknowledged missing / dup") == "True / 0 / 0", table
    assert rows.get("watchers (1 per team): duplicated / not in log") == "0 / 0", table
    assert rows.get("watchers (1 per team): live != resumed feed") == "0 teams", table
