"""bench_web's cost table and staggered players, small, against the real server. Asserts
what was measured, never how fast."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import bench_web  # noqa: E402


@pytest.fixture(scope="module")
def server() -> Iterator[bench_web.Server]:
    with bench_web.running_server("mine-devil", ["--workers", "1"]) as running:
        yield running


def test_costs_measure_every_kind_of_request(server: bench_web.Server) -> None:
    costs = {cost.kind: cost for cost in bench_web.request_costs(server, games=2, clicks=12)}
    assert list(costs) == ["create", "first reveal", "reveal"]
    assert costs["create"].count == costs["first reveal"].count == 2
    assert costs["reveal"].count == 12
    assert all(cost.cpu_ms >= 0 and cost.median_ms > 0 for cost in costs.values())
    # The first reveal draws a no-guess layout: it must have cost the server some CPU.
    assert costs["first reveal"].cpu_ms > 0


def test_players_joining_over_a_ramp_still_finish_their_games(server: bench_web.Server) -> None:
    scenario = bench_web.Scenario(
        "ramp", players=2, think=(0.0, 0.0), duration=300, max_clicks=60, game=(9, 9, 10), ramp=0.5
    )
    run = bench_web.run_scenario(server, scenario, processes=1)
    assert [error for log in run.logs for error in log.errors] == []
    outcomes = {name for log in run.logs for name in log.outcomes}
    assert outcomes <= {"won", "unfinished"} and "won" in outcomes


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_first_reveals_run_in_the_workers_engine_children(server: bench_web.Server) -> None:
    """Under gunicorn + gevent the no-guess search runs in app.play.offload's child processes,
    not in the worker (whose GIL the other players need)."""
    assert server.group is not None
    found = subprocess.run(
        ["pgrep", "-g", str(server.group), "-f", "app.play.offload"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    assert len(found) == 2, found  # one worker, its pool of two engine children
    children = [int(pid) for pid in found]
    before = sum(_cpu_seconds(pid) for pid in children)
    costs = bench_web.request_costs(server, games=10, clicks=1)
    assert costs[1].kind == "first reveal" and costs[1].count == 10
    # expert no-guess first reveals: tens of ms each, spent in the children
    assert sum(_cpu_seconds(pid) for pid in children) - before > 0


def test_browser_costs_measure_htmx_clicks_on_no_guess_games(server: bench_web.Server) -> None:
    costs = {cost.kind: cost for cost in bench_web.browser_costs(server, games=2, clicks=6)}
    assert list(costs) == ["htmx 1st click", "htmx click"]
    assert costs["htmx 1st click"].count == 2
    assert costs["htmx click"].count >= 6  # a round over the live games may go past
    assert all(cost.cpu_ms >= 0 and cost.median_ms > 0 for cost in costs.values())
