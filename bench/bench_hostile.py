"""Hostile load (issue 8 "Proof"): the real server (``mine-devil``: gunicorn + gevent) on
loopback, rate limits on, while an attacker sends everything that used to take it down and a
player plays an expert game.

Two clients, told apart by ``X-Forwarded-For`` (the server trusts one proxy hop here):

attacker ``10.0.0.66``, for ``--seconds``:
    lattice analyses (``GET /analyse`` of a 14x14 and a 40x40 lattice under the counted rule,
    as fast as the rate limit lets through), page views of a 1000x1000 game (the page, its
    ``?since=0`` fragment, its replay), ``--streams`` live streams held open, malformed
    bodies (a superscript digit, ``--3``, JSON nested 1,000 deep, not JSON at all);
player ``10.0.0.7``:
    expert games (16x30, 99 mines, no-guess) through the JSON API, one click every
    ``--think`` seconds, each a cell the engine proves safe on the visible board;
a prober:
    ``GET /healthz`` every 0.2 s (a miss: no 200 within 1 s).

Three processes drive it: the player alone in this one (its timings wait for no other thread
of ours), the attacker in another, the prober and an RSS sampler in a third.

Reported: the player's click latency (median, p99, worst; the first reveal of each game,
which draws the no-guess layout, apart) and the same clicks as the server saw them
(``Server-Timing``: wall time in the app, the worker's CPU meanwhile), healthz probes and
misses, what the attacker got (statuses per kind), the number of 5xx answers seen by anyone,
the server's peak RSS (sum over its process group: master, workers, engine children), the
worst latency of anything, and the CPU seconds of the server and of the player's process
with the load average: a click slow in the client but quick in the app waited outside it (a
worker busy with other requests, or a busy machine).

    .venv/bin/python bench/bench_hostile.py                 # 20 s, 500 streams
    .venv/bin/python bench/bench_hostile.py --seconds 60
    .venv/bin/python bench/bench_hostile.py --seconds 12 --attacks 3   # as the test attacks
    .venv/bin/python bench/bench_hostile.py --seconds 12 --attacks 3 --app-root /tmp/old
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import multiprocessing
import os
import random
import socket
import statistics
import sys
import threading
import time
import urllib.parse
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_web import group_cpu_seconds, running_server  # noqa: E402
from lattice import lattice  # noqa: E402
from quantiles import quantile  # noqa: E402

ATTACKER = "10.0.0.66"
PLAYER = "10.0.0.7"
PROBER = "10.0.0.9"


@dataclass
class Tally:
    """Everything measured in one run (threads append; read after they stopped)."""

    clicks: list[float] = field(default_factory=list)
    click_app: list[float] = field(default_factory=list)
    """The same clicks in the server: seconds in the app (``Server-Timing: app``)."""
    click_cpu: list[float] = field(default_factory=list)
    """... and the worker's CPU seconds meanwhile (``Server-Timing: cpu``)."""
    first_reveals: list[float] = field(default_factory=list)
    games: Counter[str] = field(default_factory=Counter)
    probes: int = 0
    probe_misses: int = 0
    probe_worst: float = 0.0
    attacker: dict[str, Counter[int]] = field(default_factory=dict)
    attacker_worst: float = 0.0
    server_errors: int = 0
    streams_open: int = 0
    peak_rss_mb: float = 0.0
    server_cpu: float = 0.0
    """CPU seconds of the server's processes during the run."""
    worker_cpu: float = 0.0
    """... of which its gunicorn workers' (the rest: the master and the engine children,
    which run analyses niced)."""
    player_cpu: float = 0.0
    """CPU seconds of the player's process (this one) during the run."""
    load: tuple[float, float] = (0.0, 0.0)
    """The 1-minute load average at the start and at the end."""
    problems: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def seen(self, kind: str, status: int, seconds: float) -> None:
        with self.lock:
            self.attacker.setdefault(kind, Counter())[status] += 1
            self.attacker_worst = max(self.attacker_worst, seconds)
            if status >= 500:
                self.server_errors += 1

    def p99(self) -> float:
        return quantile(self.clicks, 0.99)

    @property
    def worst(self) -> float:
        everything = [*self.clicks, *self.first_reveals, self.probe_worst, self.attacker_worst]
        return max(everything, default=0.0)


# -- HTTP --------------------------------------------------------------------------------


def connect(base: str, timeout: float = 30.0) -> http.client.HTTPConnection:
    url = urllib.parse.urlsplit(base)
    return http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port or 80, timeout=timeout)


def timed_call(
    conn: http.client.HTTPConnection,
    method: str,
    path: str,
    client: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, bytes, float, dict[str, float]]:
    """(status, body, seconds) of one request on a keep-alive connection, and the answer's
    ``Server-Timing`` in seconds by name (``app``, ``cpu``)."""
    sent = {"X-Forwarded-For": client, "Accept": "application/json", **(headers or {})}
    if body is not None:
        sent.setdefault("Content-Type", "application/json")
    start = time.perf_counter()
    conn.request(method, path, body=body, headers=sent)
    response = conn.getresponse()
    data = response.read()
    seconds = time.perf_counter() - start
    return response.status, data, seconds, server_timing(response.getheader("Server-Timing"))


def server_timing(header: str | None) -> dict[str, float]:
    """``app;dur=1.5, cpu;dur=0.7`` -> {"app": 0.0015, "cpu": 0.0007} (seconds)."""
    timings: dict[str, float] = {}
    for part in (header or "").split(","):
        name, _, rest = part.strip().partition(";")
        key, _, value = rest.partition("=")
        if key.strip() == "dur":
            with contextlib.suppress(ValueError):
                timings[name] = float(value) / 1000
    return timings


# -- the player ----------------------------------------------------------------------------


def safe_cell(board: list[str], mines: int) -> tuple[int, int] | None:
    """A covered cell the engine proves safe on the visible board (None: no such cell)."""
    from devil.analysis import Verdict
    from devil.position import Position
    from devil.solver import classify

    position = Position.from_rows(list(board), mines=mines)
    verdicts = classify(position).verdicts
    safe = sorted(c for c, v in verdicts.items() if v is Verdict.SAFE)
    if not safe:
        return None
    return position.board.coord(random.choice(safe[:8]))


def player(base: str, tally: Tally, stop_at: float, think: float) -> None:
    conn = connect(base)
    try:
        play_games(conn, tally, stop_at, think)
    finally:
        conn.close()


def play_games(
    conn: http.client.HTTPConnection, tally: Tally, stop_at: float, think: float
) -> None:
    while time.monotonic() < stop_at:
        body = json.dumps({"width": 30, "height": 16, "mines": 99, "no_guess": True}).encode()
        status, data, _, _ = timed_call(conn, "POST", "/api/games", PLAYER, body)
        if status != 201 and status != 200:
            tally.problems.append(f"player create: {status} {data[:200]!r}")
            return
        created = json.loads(data)
        game, auth = created["id"], {"Authorization": f"Bearer {created['token']}"}
        cell: tuple[int, int] | None = (8, 15)
        first = True
        while cell is not None and time.monotonic() < stop_at:
            move = json.dumps({"row": cell[0], "col": cell[1]}).encode()
            status, data, seconds, server = timed_call(
                conn, "POST", f"/api/games/{game}/reveal", PLAYER, move, auth
            )
            if status >= 500:
                with tally.lock:
                    tally.server_errors += 1
            if status == 429:  # its own rate limit (30 clicks/s): wait as told, click again
                tally.games["throttled"] += 1
                time.sleep(1.0)
                continue
            if status != 200:
                tally.problems.append(f"player click: {status} {data[:200]!r}")
                return
            if first:
                tally.first_reveals.append(seconds)
            else:
                tally.clicks.append(seconds)
                if "app" in server and "cpu" in server:  # an older server sends none
                    tally.click_app.append(server["app"])
                    tally.click_cpu.append(server["cpu"])
            first = False
            state = json.loads(data)
            if state["status"] != "playing":
                tally.games[state["status"]] += 1
                break
            cell = safe_cell(state["board"], 99)
            time.sleep(think)
        if cell is None:
            tally.games["stuck"] += 1


# -- the attacker ----------------------------------------------------------------------------


def lattice_line(size: int, seed: int) -> str:
    from devil.formats import read_position

    return read_position(lattice(size, seed)).line


def flood(
    base: str, tally: Tally, stop_at: float, kind: str, requests: Callable[[], Iterator[Any]]
) -> None:
    """Send ``requests()`` (method, path, body) round and round until ``stop_at``."""
    conn = connect(base)
    while time.monotonic() < stop_at:
        for method, path, body, extra in requests():
            if time.monotonic() >= stop_at:
                conn.close()
                return
            try:
                status, _, seconds, _ = timed_call(conn, method, path, ATTACKER, body, extra)
            except (OSError, http.client.HTTPException) as exc:
                tally.seen(kind, 0, 0.0)
                tally.problems.append(f"{kind}: {type(exc).__name__}: {exc}")
                conn.close()
                conn = connect(base)
                continue
            tally.seen(kind, status, seconds)
    conn.close()


def analyses() -> Iterator[Any]:
    for size, seed in ((14, 1), (14, 2), (40, 1)):
        query = urllib.parse.urlencode({"p": lattice_line(size, seed), "count": "counted"})
        yield "GET", f"/analyse?{query}", None, None


def page_views(game: str) -> Callable[[], Iterator[Any]]:
    def views() -> Iterator[Any]:
        yield "GET", f"/g/{game}", None, {"Accept": "text/html"}
        yield "GET", f"/g/{game}?since=0", None, {"HX-Request": "true"}
        yield "GET", f"/g/{game}/replay/0", None, {"Accept": "text/html"}

    return views


def malformed(game: str, token: str) -> Callable[[], Iterator[Any]]:
    auth = {"Authorization": f"Bearer {token}"}
    deep = b"[" * 1000 + b"]" * 1000

    def bodies() -> Iterator[Any]:
        yield "POST", "/api/games", '{"width": "\u00b2"}'.encode(), None
        yield "POST", f"/api/games/{game}/reveal", b'{"row": "--3", "col": 1}', auth
        yield "POST", f"/api/games/{game}/reveal", deep, auth
        yield "POST", f"/api/games/{game}/flag", b"not json", auth

    return bodies


def streams(base: str, tally: Tally, stop_at: float, game: str, count: int) -> None:
    """Open ``count`` live streams (one socket each), keep the accepted ones open."""
    url = urllib.parse.urlsplit(base)
    held: list[socket.socket] = []
    request = (
        f"GET /api/games/{game}/events HTTP/1.1\r\nHost: {url.hostname}\r\n"
        f"X-Forwarded-For: {ATTACKER}\r\nAccept: text/event-stream\r\n\r\n"
    ).encode()
    try:
        for _ in range(count):
            if time.monotonic() >= stop_at:
                break
            sock = socket.create_connection((url.hostname, url.port), timeout=10)
            start = time.perf_counter()
            try:
                sock.sendall(request)
                line = sock.recv(64).split(b"\r\n", 1)[0]
                status = int(line.split()[1])
            except (OSError, ValueError, IndexError) as exc:
                tally.problems.append(f"stream: {exc}")
                sock.close()
                continue
            tally.seen("stream", status, time.perf_counter() - start)
            if status == 200:
                held.append(sock)
            else:
                sock.close()
            time.sleep(0.005)
        with tally.lock:
            tally.streams_open = len(held)
        while time.monotonic() < stop_at:
            time.sleep(0.1)
    finally:
        for sock in held:
            sock.close()


def prober(base: str, tally: Tally, stop_at: float) -> None:
    while time.monotonic() < stop_at:
        conn = connect(base, timeout=1.0)
        try:
            status, _, seconds, _ = timed_call(conn, "GET", "/healthz", PROBER)
            ok = status == 200
        except (OSError, http.client.HTTPException):
            ok, seconds = False, 1.0
        finally:
            conn.close()
        with tally.lock:
            tally.probes += 1
            tally.probe_misses += not ok
            tally.probe_worst = max(tally.probe_worst, seconds)
        time.sleep(0.2)


def rss_sampler(group: int, tally: Tally, stop_at: float) -> None:
    while time.monotonic() < stop_at:
        tally.peak_rss_mb = max(tally.peak_rss_mb, group_rss_mb(group))
        time.sleep(0.5)


def group_rss_mb(group: int) -> float:
    """Resident memory of the live processes of a process group, in MB (Linux /proc)."""
    total_kb = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
            if int(fields[2]) != group:
                continue
            status = (stat.parent / "status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total_kb += int(line.split()[1])
    return total_kb / 1024


# -- a run ---------------------------------------------------------------------------------


def setup_targets(base: str) -> tuple[str, str, str]:
    """The attacker's 1000x1000 game (for page views and streams) and a small game with its
    token (for malformed moves)."""
    conn = connect(base, timeout=120)
    body = json.dumps({"width": 1000, "height": 1000, "mines": 150_000}).encode()
    status, data, _, _ = timed_call(conn, "POST", "/api/games", ATTACKER, body)
    if status not in (200, 201):
        raise SystemExit(f"could not create the 1000x1000 game: {status} {data[:200]!r}")
    big = json.loads(data)["id"]
    body = json.dumps({"width": 9, "height": 9, "mines": 10}).encode()
    status, data, _, _ = timed_call(conn, "POST", "/api/games", ATTACKER, body)
    small = json.loads(data)
    conn.close()
    return big, small["id"], small["token"]


def hostile_run(
    base: str,
    group: int | None,
    seconds: float,
    stream_count: int = 500,
    think: float = 0.04,
    attack: bool = True,
) -> Tally:
    """The attack and the player at once for ``seconds``; the tally of what everyone saw.
    ``attack=False``: the player and the prober alone (the baseline).

    The player plays in this process, alone: the prober and the RSS sampler (``observe``)
    and the attacker run in processes of their own, so a click's time never includes
    waiting for another thread of ours to hand over the GIL (the RSS sampler reads every
    process's ``/proc`` files twice a second)."""
    tally = Tally()
    big, small, token = setup_targets(base)
    fork = multiprocessing.get_context("fork")
    results: multiprocessing.Queue[dict[str, Any]] = fork.Queue()
    helpers = [fork.Process(target=observe, args=(base, group, seconds, results), daemon=True)]
    if attack:
        helpers.append(
            fork.Process(
                target=attack_process,
                args=(base, seconds, big, small, token, stream_count, results),
                daemon=True,
            )
        )
    load = os.getloadavg()[0]
    cpu = process_cpu_seconds()
    server_cpu = 0.0 if group is None else group_cpu_seconds(group)
    worker_cpu = 0.0 if group is None else group_cpu_seconds(group, parent=group)
    for helper in helpers:
        helper.start()
    try:
        player(base, tally, time.monotonic() + seconds, think)
    finally:
        tally.player_cpu = process_cpu_seconds() - cpu
        if group is not None:
            tally.server_cpu = group_cpu_seconds(group) - server_cpu
            tally.worker_cpu = group_cpu_seconds(group, parent=group) - worker_cpu
        for _ in helpers:
            merge(tally, results.get(timeout=seconds + 60))
        for helper in helpers:
            helper.join(30)
        tally.load = (load, os.getloadavg()[0])
    return tally


def process_cpu_seconds() -> float:
    """User + system CPU seconds of this process so far (its own, not its children's)."""
    times = os.times()
    return times.user + times.system


def merge(tally: Tally, seen: dict[str, Any]) -> None:
    """What a helper process saw (``observe``, ``attack_process``), into ``tally``."""
    for kind, statuses in seen.get("attacker", {}).items():
        tally.attacker[kind] = Counter({int(k): v for k, v in statuses.items()})
    tally.attacker_worst = max(tally.attacker_worst, seen.get("worst", 0.0))
    tally.server_errors += seen.get("server_errors", 0)
    tally.streams_open = max(tally.streams_open, seen.get("streams_open", 0))
    tally.probes += seen.get("probes", 0)
    tally.probe_misses += seen.get("probe_misses", 0)
    tally.probe_worst = max(tally.probe_worst, seen.get("probe_worst", 0.0))
    tally.peak_rss_mb = max(tally.peak_rss_mb, seen.get("peak_rss_mb", 0.0))
    tally.problems.extend(seen.get("problems", []))


def observe(
    base: str, group: int | None, seconds: float, results: multiprocessing.Queue[dict[str, Any]]
) -> None:
    """The prober and the RSS sampler, in a process of their own; what they saw to
    ``results``."""
    tally = Tally()
    stop_at = time.monotonic() + seconds
    threads = [threading.Thread(target=prober, args=(base, tally, stop_at), daemon=True)]
    if group is not None:
        threads.append(
            threading.Thread(target=rss_sampler, args=(group, tally, stop_at), daemon=True)
        )
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(seconds + 30)
    results.put(
        {
            "probes": tally.probes,
            "probe_misses": tally.probe_misses,
            "probe_worst": tally.probe_worst,
            "peak_rss_mb": tally.peak_rss_mb,
            "problems": tally.problems[:20],
        }
    )


def attack_process(
    base: str,
    seconds: float,
    big: str,
    small: str,
    token: str,
    stream_count: int,
    results: multiprocessing.Queue[dict[str, Any]],
) -> None:
    """The attacker's threads, in a process of their own; what they saw goes to ``results``."""
    tally = Tally()
    stop_at = time.monotonic() + seconds
    threads = [
        threading.Thread(target=flood, args=(base, tally, stop_at, "analysis", analyses)),
        threading.Thread(target=flood, args=(base, tally, stop_at, "page", page_views(big))),
        threading.Thread(
            target=flood, args=(base, tally, stop_at, "malformed", malformed(small, token))
        ),
        threading.Thread(target=streams, args=(base, tally, stop_at, big, stream_count)),
    ]
    only = os.environ.get("HOSTILE_ONLY")  # one kind of attack, to see what each costs
    if only:
        names = ["analysis", "page", "malformed", "stream"]
        threads = [t for t, name in zip(threads, names, strict=True) if name in only.split(",")]
    for thread in threads:
        thread.daemon = True
        thread.start()
    for thread in threads:
        thread.join(seconds + 30)
    results.put(
        {
            "attacker": {kind: dict(c) for kind, c in tally.attacker.items()},
            "worst": tally.attacker_worst,
            "server_errors": tally.server_errors,
            "streams_open": tally.streams_open,
            "problems": tally.problems[:20],
        }
    )


@contextmanager
def hostile_server(workers: int | None = None, app_root: Path = ROOT) -> Iterator[tuple[str, int]]:
    """``mine-devil`` on a free loopback port, rate limits on, one trusted proxy hop (so the
    clients' ``X-Forwarded-For`` tells them apart); (base URL, process group). ``app_root``:
    serve another checkout (its ``app``), e.g. an older commit, with this driver."""
    extra = ["--log-level", "warning"] + ([] if workers is None else ["--workers", str(workers)])
    hostile = {"MINE_DEVIL_RATELIMIT": "1", "MINE_DEVIL_PROXY_HOPS": "1"}
    with running_server(
        "mine-devil", extra, app_root, env=hostile, prefix="mine-devil-hostile-"
    ) as server:
        assert server.group is not None
        yield server.base, server.group


def table(tally: Tally, seconds: float, streams: int) -> str:
    ms = 1000.0
    clicks = tally.clicks
    lines = [
        f"# bench_hostile: {seconds:g} s of attack, {streams} streams asked for",
        "",
        "| measure | value |",
        "|---|---|",
        f"| player clicks | {len(clicks)} (games: {dict(tally.games)}) |",
        f"| click latency median / p99 / worst | "
        f"{statistics.median(clicks) * ms if clicks else 0:.1f} / {tally.p99() * ms:.1f} / "
        f"{max(clicks, default=0) * ms:.1f} ms |",
        f"| the same clicks in the app: median / p99 / worst | {spread(tally.click_app)} ms |",
        f"| the worker's CPU meanwhile: median / p99 / worst | {spread(tally.click_cpu)} ms |",
        f"| first reveals (no-guess draw): worst of {len(tally.first_reveals)} | "
        f"{max(tally.first_reveals, default=0) * ms:.1f} ms |",
        f"| /healthz probes / misses / worst | {tally.probes} / {tally.probe_misses} / "
        f"{tally.probe_worst * ms:.1f} ms |",
        f"| streams held open | {tally.streams_open} |",
        f"| 5xx answers (anyone) | {tally.server_errors} |",
        f"| worst latency of any request | {tally.worst * ms:.1f} ms |",
        f"| peak server RSS (all processes) | {tally.peak_rss_mb:.0f} MB |",
        f"| CPU: server (its workers) / player's process | {tally.server_cpu:.1f} "
        f"({tally.worker_cpu:.1f}) / {tally.player_cpu:.1f} s |",
        f"| load average at the start / end | {tally.load[0]:.1f} / {tally.load[1]:.1f} |",
    ]
    for kind, statuses in sorted(tally.attacker.items()):
        lines.append(f"| attacker {kind} | {dict(sorted(statuses.items()))} |")
    if tally.problems:
        lines.append("")
        lines.append(f"problems ({len(tally.problems)}): " + "; ".join(tally.problems[:5]))
    return "\n".join(lines)


def spread(values: list[float]) -> str:
    """``median / p99 / worst`` of seconds, in milliseconds."""
    if not values:
        return "- / - / -"
    ms = 1000.0
    median, p99, worst = statistics.median(values), quantile(values, 0.99), max(values)
    return f"{median * ms:.1f} / {p99 * ms:.1f} / {worst * ms:.1f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--streams", type=int, default=500)
    parser.add_argument("--think", type=float, default=0.04, help="player pause between clicks")
    parser.add_argument("--workers", type=int, default=None, help="gunicorn workers")
    parser.add_argument(
        "--baseline", action="store_true", help="also run the player alone first, for comparison"
    )
    parser.add_argument(
        "--attacks",
        type=int,
        default=0,
        help="as the test does: this many attacks, each on a fresh server after 3 s of the "
        "player alone; one line per attack",
    )
    parser.add_argument("--app-root", type=Path, default=ROOT, help="the checkout to serve")
    args = parser.parse_args(argv)
    for attack in range(args.attacks):
        with hostile_server(args.workers, args.app_root) as (base, group):
            hostile_run(base, group, 3.0, 0, args.think, attack=False)
            tally = hostile_run(base, group, args.seconds, args.streams, args.think)
        print(
            f"attack {attack + 1}: clicks {len(tally.clicks)}, click p99 {tally.p99() * 1000:.0f}"
            f" ms, in the app median / p99 / worst {spread(tally.click_app)} ms, server CPU "
            f"{tally.server_cpu:.1f} s (workers {tally.worker_cpu:.1f} s), load "
            f"{tally.load[0]:.1f} -> {tally.load[1]:.1f}, "
            f"attacker pages {dict(sorted(tally.attacker.get('page', {}).items()))}",
            flush=True,
        )
    if args.attacks:
        return 0
    with hostile_server(args.workers, args.app_root) as (base, group):
        if args.baseline:
            alone = hostile_run(base, group, args.seconds, 0, args.think, attack=False)
            print(table(alone, args.seconds, 0).replace("of attack", "WITHOUT attack"))
            print()
        tally = hostile_run(base, group, args.seconds, args.streams, args.think)
    print(table(tally, args.seconds, args.streams))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
