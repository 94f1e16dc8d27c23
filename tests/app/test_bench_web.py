"""bench/bench_web.py end to end, small: the real server (mine-devil: gunicorn + gevent) on
loopback, API players clicking only cells the engine proves safe. Bounded by a click budget,
never by time: asserts outcomes, not speed."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import bench_web  # noqa: E402


@pytest.fixture(scope="module")
def server() -> Iterator[bench_web.Server]:
    with bench_web.running_server("mine-devil", ["--workers", "2"]) as running:
        yield running


def test_safe_clicks_win_beginner_games_through_the_real_server(server: bench_web.Server) -> None:
    scenario = bench_web.Scenario(
        "test", players=2, think=(0.0, 0.0), duration=300, max_clicks=120, game=(9, 9, 10)
    )
    run = bench_web.run_scenario(server, scenario, processes=2)
    outcomes: Counter[str] = Counter()
    for log in run.logs:
        outcomes.update(log.outcomes)
    assert [error for log in run.logs for error in log.errors] == []
    statuses = Counter(sample.status for log in run.logs for sample in log.samples)
    assert set(statuses) <= {200, 201}, statuses
    # A proved-safe click never loses and never leaks; only the budget cuts a game short.
    assert set(outcomes) <= {"won", "unfinished"}, outcomes
    assert outcomes["won"] >= 2
    assert run.server_cpu is not None and run.server_cpu > 0


def test_a_click_on_a_100x100_board_answers_the_whole_board(server: bench_web.Server) -> None:
    sizes = dict(bench_web.response_sizes(server.base))
    later = [size for label, size in sizes.items() if label.startswith("a later safe reveal")]
    assert later, sizes
    # 100 rows of 100 cells, quoted and comma-separated, plus the other state keys.
    assert 100 * 103 <= later[0] < 100 * 103 + 1000


def test_an_htmx_click_answers_only_what_changed(server: bench_web.Server) -> None:
    sizes = dict(bench_web.html_response_sizes(server.base))
    page = sizes["full page GET /g/<id>"]
    later = sizes["htmx click: a later safe reveal"]
    assert page > 100 * 100 * 10  # every one of the 10,000 cells is in the page
    assert later < page / 50, sizes
