"""What teammates' presence costs the live feed: a team's feed latency with and without
presence reports from many players.

    .venv/bin/python bench/bench_world_presence.py                 # 200 players, 2 reports/s
    .venv/bin/python bench/bench_world_presence.py --players 40 --moves 12   # a smoke run

One ``mine-devil`` server (``app.serve``, one gevent worker, SQLite, rate limits off). A mover
drops at ``--moves`` spots of a 256x256 region; ``--watchers`` event streams of its team watch
the region; the latency is from sending a move to each watcher receiving its ``cells`` event.
Measured twice: quiet, then while ``--players`` players in ``--teams`` teams (the mover's
included) each report their view ``--rate`` times a second (``POST .../presence``, the page's
coalesced reports are at most one a second while panning, one per 15 s when still). The
issue's bound: presence from 200 players costs the others' feed latency at most 20%.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_world import Conn, join, servers  # noqa: E402

SIDE = 256


class Watcher(threading.Thread):
    """One event stream; records when each seq arrived (perf_counter)."""

    def __init__(self, port: int, path: str):
        super().__init__(daemon=True)
        self.port, self.path = port, path
        self.arrived: dict[int, float] = {}
        self.presences = 0
        self.ready = threading.Event()
        self.stop = False

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        conn.request("GET", self.path)
        response = conn.getresponse()
        assert response.status == 200, response.status
        self.ready.set()
        event = ""
        while not self.stop:
            line = response.fp.readline()
            if not line:
                return
            text = line.decode().rstrip("\n")
            if text.startswith("event: "):
                event = text[7:]
            elif text.startswith("data: ") and event == "cells":
                self.arrived.setdefault(json.loads(text[6:])["seq"], time.perf_counter())
            elif text.startswith("data: ") and event == "presence":
                self.presences += 1


def reporters(port: int, tokens: list[str], rate: float, stop: threading.Event) -> list[int]:
    """Threads posting presence for ``tokens`` at ``rate`` per second each; counts sent."""
    sent = [0]
    lock = threading.Lock()
    per_thread = 25

    def run(chunk: list[str]) -> None:
        conn = Conn(port)
        period = 1.0 / rate
        i = 0
        while not stop.is_set():
            started = time.perf_counter()
            for token in chunk:
                i += 1
                body = {"x0": i % 500, "y0": 0, "width": 80, "height": 40}
                try:
                    status, *_ = conn.call("POST", "/api/worlds/main/presence", body, token)
                except OSError:
                    return  # the server stopped
                assert status == 204, status
                with lock:
                    sent[0] += 1
            time.sleep(max(0.0, period - (time.perf_counter() - started)))

    for k in range(0, len(tokens), per_thread):
        threading.Thread(target=run, args=(tokens[k : k + per_thread],), daemon=True).start()
    return sent


def phase(
    port: int, mover: str, team: str, origin: tuple[int, int], watchers: int, moves: int
) -> list[float]:
    x0, y0 = origin
    path = (
        f"/api/worlds/main/teams/{team}/events?colour=0&x0={x0}&y0={y0}&width={SIDE}&height={SIDE}"
    )
    streams = [Watcher(port, path) for _ in range(watchers)]
    for w in streams:
        w.start()
    for w in streams:
        w.ready.wait(30)
    time.sleep(0.5)
    conn = Conn(port)
    latencies: list[float] = []
    side = int(moves**0.5) + 1
    step = SIDE // (side + 1)
    for i in range(moves):
        x, y = x0 + step * (1 + i % side), y0 + step * (1 + i // side)
        sent = time.perf_counter()
        status, body, *_ = conn.call(
            "POST", "/api/worlds/main/moves", {"moves": [{"kind": "drop", "x": x, "y": y}]}, mover
        )
        assert status == 200, body
        (result,) = body["results"]
        if result["outcome"] != "dropped":
            continue
        deadline = time.perf_counter() + 5
        while time.perf_counter() < deadline and not all(
            result["seq"] in w.arrived for w in streams
        ):
            time.sleep(0.002)
        latencies += [
            (w.arrived[result["seq"]] - sent) * 1e3 for w in streams if result["seq"] in w.arrived
        ]
        time.sleep(0.05)
    for w in streams:
        w.stop = True
    return latencies


def summary(values: list[float]) -> str:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"p50 {statistics.median(ordered):.1f} ms, p99 {p99:.1f} ms (n={len(ordered)})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--teams", type=int, default=20)
    parser.add_argument("--rate", type=float, default=2.0, help="reports per player per second")
    parser.add_argument("--watchers", type=int, default=10)
    parser.add_argument("--moves", type=int, default=30)
    args = parser.parse_args(argv)
    data = Path(tempfile.mkdtemp(prefix="bench-presence-"))
    db = f"sqlite:///{data / 'presence.sqlite3'}"
    with servers(db, 1, args.watchers * 2 + 50) as (server,):
        conn = Conn(server.port)
        mover = join(conn, "mover", "t0", 0)
        tokens = [join(conn, f"p{i}", f"t{i % args.teams}", i % 6) for i in range(args.players)]
        phase(server.port, mover, "t0", (-4096, 0), args.watchers, 2)  # warm up
        quiet = phase(server.port, mover, "t0", (0, 0), args.watchers, args.moves)
        stop = threading.Event()
        sent = reporters(server.port, tokens, args.rate, stop)
        time.sleep(1.0)
        started, before = time.perf_counter(), sent[0]
        busy = phase(server.port, mover, "t0", (4096, 0), args.watchers, args.moves)
        rate = (sent[0] - before) / (time.perf_counter() - started)
        stop.set()
        time.sleep(0.5)
    q, b = statistics.median(quiet), statistics.median(busy)
    print(f"feed latency, quiet:                       {summary(quiet)}")
    print(f"feed latency, {args.players} players' presence ({rate:.0f} reports/s): {summary(busy)}")
    print(f"median latency with presence / without: {b / q:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
