"""Devil World under attack (issue 17): each attack against a real server, one at a time.

The server is ``python -m app.serve`` (gunicorn, gevent workers) of this checkout on loopback,
rate limits on, one trusted proxy hop (clients are told apart by ``X-Forwarded-For``). During
each attack a bystander (another team, its own address) plays a move every ``--think`` seconds
and a prober asks ``/healthz`` every 0.1 s. The attacker runs in a process of its own, so its
work never delays the bystander's clock.

Attacks (``--attacks``, default all), after issue 17's findings:

``judgement``  1: a team that never flags grows one region and sends rafts of 60 clicks it
               cannot prove (each a judgement of everything the team knows, unbounded before)
``teams``      2: the world seeded with ``--seed-teams`` teams (one player each, straight into
               the database), a flood of new players and teams from many addresses, and the
               API's scoreboard and the page's panel read as fast as possible
``streams``    3: ``--streams`` idle event streams from 100 addresses (20 each), held open
``who``        4: ``who?seqs=`` with out-of-range, huge and over-long lists on a log of
               ``--log-events`` events
``drops``      5: a fresh player per drop, from a handful of addresses
``views``      6: 16 clients of 256x256 views as fast as they are answered
``reconnect``  7: 20 streams of one address opened, closed, and opened again at once

Per attack: the attacker's requests, the 5xx anyone saw, the attacker's worst answer, the
bystander's move p99 and the worst ``/healthz``; and whether each met issue 17's targets
(0 5xx, ``/healthz`` worst < 250 ms, bystander p99 < 250 ms, attacker worst < 5 s).

    .venv/bin/python bench/bench_world_hostile.py --scale small      # checks it runs (~2 min)
    .venv/bin/python bench/bench_world_hostile.py --scale full       # issue 17's scale
    .venv/bin/python bench/bench_world_hostile.py --attacks streams,who --seconds 10
    MINE_DEVIL_DATABASE_URL=postgresql+psycopg://... bench/bench_world_hostile.py --workers 2
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import resource
import socket
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_hostile import connect  # noqa: E402
from bench_web import running_server  # noqa: E402
from quantiles import quantile  # noqa: E402

BYSTANDER = "10.9.0.7"
PROBER = "10.9.0.9"
WORLD = "main"

SCALES: dict[str, dict[str, Any]] = {
    "small": {
        "seconds": 6.0,
        "streams": 200,
        "seed_teams": 2000,
        "log_events": 2000,
        "view_clients": 4,
    },
    "full": {
        "seconds": 30.0,
        "streams": 2000,
        "seed_teams": 25_000,
        "log_events": 300_000,
        "view_clients": 16,
    },
}
TARGETS = {"5xx": 0, "healthz_ms": 250.0, "bystander_p99_ms": 250.0, "attacker_worst_s": 5.0}


# -- HTTP ------------------------------------------------------------------------------------


def call(
    conn: http.client.HTTPConnection,
    method: str,
    path: str,
    client: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, bytes, float, dict[str, str]]:
    """(status, body, seconds, headers) of one request on a keep-alive connection."""
    sent = {"X-Forwarded-For": client, "Accept": "application/json", **(headers or {})}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        sent["Content-Type"] = "application/json"
    start = time.perf_counter()
    conn.request(method, path, body=data, headers=sent)
    response = conn.getresponse()
    payload = response.read()
    return response.status, payload, time.perf_counter() - start, dict(response.getheaders())


def join(base: str, client: str, name: str, team: str, colour: int = 0) -> str | None:
    """A new player's token (None if refused: the limits work)."""
    conn = connect(base)
    try:
        status, data, _, _ = call(
            conn,
            "POST",
            f"/api/worlds/{WORLD}/players",
            client,
            {"name": name, "team": team, "colour": colour},
        )
    finally:
        conn.close()
    return json.loads(data)["token"] if status == 201 else None


# -- what everyone saw -----------------------------------------------------------------------


@dataclass
class Tally:
    requests: int = 0
    server_errors: int = 0
    attacker_worst: float = 0.0
    statuses: dict[int, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def seen(self, status: int, seconds: float) -> None:
        with self.lock:
            self.requests += 1
            self.statuses[status] = self.statuses.get(status, 0) + 1
            self.attacker_worst = max(self.attacker_worst, seconds)
            if status >= 500 or status == 0:
                self.server_errors += 1

    def as_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "server_errors": self.server_errors,
            "attacker_worst": self.attacker_worst,
            "statuses": self.statuses,
            "problems": self.problems[:10],
        }


@dataclass
class Watch:
    """The bystander's moves and the prober's answers during one attack."""

    moves: list[float] = field(default_factory=list)
    move_errors: int = 0
    slowest: tuple[float, str] = (0.0, "")
    """The bystander's slowest move: seconds and its ``Server-Timing`` (where it waited)."""
    probes: list[float] = field(default_factory=list)
    probe_misses: int = 0


# -- the bystander and the prober ----------------------------------------------------------------


def bystander(
    base: str, token: str, at: tuple[int, int], watch: Watch, stop_at: float, think: float
) -> None:
    """Another team's player: a move every ``think`` seconds (a reveal of its opened drop
    point: the whole move path, lock, judgement and log, at the cost of an ordinary move)."""
    conn = connect(base, timeout=30)
    auth = {"Authorization": f"Bearer {token}"}
    raft = {"moves": [{"kind": "reveal", "x": at[0], "y": at[1]}]}
    while time.monotonic() < stop_at:
        try:
            status, _, seconds, headers = call(
                conn, "POST", f"/api/worlds/{WORLD}/moves", BYSTANDER, raft, auth
            )
        except (OSError, http.client.HTTPException):
            status, seconds, headers = 0, 30.0, {}
            conn.close()
            conn = connect(base, timeout=30)
        watch.moves.append(seconds)
        if seconds > watch.slowest[0]:
            watch.slowest = (seconds, headers.get("Server-Timing", ""))
        if status != 200:
            watch.move_errors += 1
        time.sleep(think)
    conn.close()


def prober(base: str, watch: Watch, stop_at: float) -> None:
    while time.monotonic() < stop_at:
        conn = connect(base, timeout=5.0)
        try:
            status, _, seconds, _ = call(conn, "GET", "/healthz", PROBER)
            if status != 200:
                watch.probe_misses += 1
        except (OSError, http.client.HTTPException):
            watch.probe_misses += 1
            seconds = 5.0
        finally:
            conn.close()
        watch.probes.append(seconds)
        time.sleep(0.1)


# -- the attacks (each runs in the attacker's process) ---------------------------------------------


def flood(
    base: str,
    tally: Tally,
    stop_at: float,
    client: Callable[[], str],
    requests: Callable[[], Iterator[tuple[str, str, Any, dict[str, str] | None]]],
) -> None:
    """Send ``requests()`` round and round until ``stop_at``, each from ``client()``."""
    conn = connect(base)
    while time.monotonic() < stop_at:
        for method, path, body, headers in requests():
            if time.monotonic() >= stop_at:
                break
            try:
                status, _, seconds, _ = call(conn, method, path, client(), body, headers)
            except (OSError, http.client.HTTPException) as exc:
                tally.seen(0, 0.0)
                tally.problems.append(f"{path[:60]}: {type(exc).__name__}: {exc}")
                conn.close()
                conn = connect(base)
                continue
            tally.seen(status, seconds)
    conn.close()


def attack_judgement(base: str, tally: Tally, stop_at: float, scale: dict[str, Any]) -> None:
    """Finding 1: reveal what is provable, never flag, then rafts of 60 unprovable clicks."""
    from devil.world import deduce

    tokens = [join(base, f"10.6.0.{i}", f"grower{i}", "growers") for i in range(4)]
    tokens_ok = [t for t in tokens if t]
    if not tokens_ok:
        tally.problems.append("judgement: no player could join")
        return
    conn = connect(base, timeout=60)
    auth = {"Authorization": f"Bearer {tokens_ok[0]}"}
    status, data, seconds, _ = call(
        conn,
        "POST",
        f"/api/worlds/{WORLD}/moves",
        "10.6.0.0",
        {"moves": [{"kind": "drop", "x": 0, "y": 0}]},
        auth,
    )
    tally.seen(status, seconds)
    if status != 200:
        tally.problems.append(f"judgement: drop {status} {data[:120]!r}")
        return
    fx, fy = json.loads(data)["results"][0]["at"]
    turn = 0
    while time.monotonic() < stop_at:
        turn += 1
        token = tokens_ok[turn % len(tokens_ok)]
        auth = {"Authorization": f"Bearer {token}"}
        x0, y0 = fx - 64, fy - 64
        status, data, seconds, _ = call(
            conn,
            "GET",
            f"/api/worlds/{WORLD}/teams/growers/view?colour=0&x0={x0}&y0={y0}&width=128&height=128",
            f"10.6.1.{turn % 200}",
        )
        tally.seen(status, seconds)
        if status != 200:
            time.sleep(0.2)
            continue
        rows = json.loads(data)["rows"]
        found = deduce(rows, x0, y0)
        safe = sorted(found.safe)[:256]
        covered_edge = [
            (x0 + x, y0 + y)
            for y, row in enumerate(rows)
            for x, ch in enumerate(row)
            if ch == "."
            and (x0 + x, y0 + y) not in found.safe
            and any(
                0 <= y + dy < len(rows)
                and 0 <= x + dx < len(row)
                and rows[y + dy][x + dx] in "12345678"
                for dx in (-1, 0, 1)
                for dy in (-1, 0, 1)
            )
        ]
        if safe and turn % 3:
            raft = [{"kind": "reveal", "x": x, "y": y} for x, y in safe]
        elif covered_edge:
            raft = [
                {"kind": "reveal", "x": x, "y": y}
                for x, y in random.sample(covered_edge, min(60, len(covered_edge)))
            ]
        else:
            continue
        status, data, seconds, headers = call(
            conn,
            "POST",
            f"/api/worlds/{WORLD}/moves",
            f"10.6.2.{turn % 200}",
            {"moves": raft},
            auth,
        )
        tally.seen(status, seconds)
        if status == 429:
            time.sleep(float(headers.get("Retry-After", "1")))
    conn.close()


def seed_teams(database_url: str, count: int) -> None:
    """``count`` teams of one player each, straight into the database (days of free teams)."""
    import sqlalchemy as sa

    from app.world.records import hash_token, utcnow
    from app.world.schema import players, teams

    engine = sa.create_engine(database_url)
    now = utcnow()
    rng = random.Random(3)
    team_rows, player_rows = [], []
    for i in range(count):
        name = f"seed{i}"
        counts = {
            "moves": rng.randrange(100),
            "revealed": rng.randrange(10_000),
            "flags": rng.randrange(500),
            "errors": rng.randrange(20),
            "drops": 1,
        }
        team_rows.append({"world": WORLD, "name": name, "created_at": now, **counts})
        player_rows.append(
            {
                "id": f"seed-{i}",
                "world": WORLD,
                "team": name,
                "name": f"p{i}",
                "colour": 0,
                "token_hash": hash_token(f"seed-{i}"),
                "created_at": now,
                **counts,
            }
        )
    with engine.begin() as conn:
        for start in range(0, count, 5000):
            conn.execute(teams.insert(), team_rows[start : start + 5000])
            conn.execute(players.insert(), player_rows[start : start + 5000])
    engine.dispose()


def attack_teams(base: str, tally: Tally, stop_at: float, scale: dict[str, Any]) -> None:
    """Finding 2: new players and teams from many addresses, the scoreboards read meanwhile."""
    counter = iter(range(10**9))

    def creations() -> Iterator[tuple[str, str, Any, dict[str, str] | None]]:
        n = next(counter)
        yield "POST", f"/api/worlds/{WORLD}/players", {"name": f"x{n}", "team": f"x{n}"}, None

    def boards() -> Iterator[tuple[str, str, Any, dict[str, str] | None]]:
        yield "GET", f"/api/worlds/{WORLD}/scoreboard", None, None
        yield "GET", f"/world/{WORLD}/scoreboard", None, {"HX-Request": "true"}
        yield "GET", f"/world/{WORLD}/activity", None, {"HX-Request": "true"}

    rng = random.Random(11)
    threads = [
        threading.Thread(
            target=flood,
            args=(
                base,
                tally,
                stop_at,
                lambda: f"10.2.{rng.randrange(256)}.{rng.randrange(256)}",
                creations,
            ),
        )
        for _ in range(2)
    ] + [
        threading.Thread(
            target=flood,
            args=(base, tally, stop_at, lambda: f"10.3.0.{rng.randrange(256)}", boards),
        )
        for _ in range(4)
    ]
    run_all(threads)


def attack_streams(base: str, tally: Tally, stop_at: float, scale: dict[str, Any]) -> None:
    """Finding 3: idle streams from 100 addresses, 20 each, held until the end."""
    url = urllib.parse.urlsplit(base)
    held: list[socket.socket] = []
    path = f"/api/worlds/{WORLD}/teams/bystanders/events?colour=0&x0=0&y0=0&width=64&height=64"
    try:
        for i in range(int(scale["streams"])):
            if time.monotonic() >= stop_at:
                break
            address = f"10.3.{i % 100}.1"
            sock = socket.create_connection((url.hostname, url.port), timeout=10)
            started = time.perf_counter()
            try:
                sock.sendall(
                    f"GET {path} HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: {address}\r\n"
                    "Accept: text/event-stream\r\n\r\n".encode()
                )
                status = int(sock.recv(64).split(b"\r\n", 1)[0].split()[1])
            except (OSError, ValueError, IndexError) as exc:
                tally.seen(0, time.perf_counter() - started)
                tally.problems.append(f"stream: {exc}")
                sock.close()
                continue
            tally.seen(status, time.perf_counter() - started)
            if status == 200:
                held.append(sock)
            else:
                sock.close()
        while time.monotonic() < stop_at:
            time.sleep(0.1)
    finally:
        for sock in held:
            sock.close()


def attack_who(base: str, tally: Tally, stop_at: float, scale: dict[str, Any]) -> None:
    """Finding 4: out-of-range, huge and over-long ``seqs`` (the log was seeded long)."""
    top = 2**63 - 1
    lists = [
        "0",
        f"0,{top}",
        f"1,{top}",
        f"1,{2**63}",
        ",".join(str(i) for i in range(1, 200)),
        "1,2,3",
        f"1,{top - 1}",
    ]

    def asks() -> Iterator[tuple[str, str, Any, dict[str, str] | None]]:
        for seqs in lists:
            yield "GET", f"/world/{WORLD}/teams/bystanders/who?seqs={seqs}", None, None

    rng = random.Random(5)
    threads = [
        threading.Thread(
            target=flood, args=(base, tally, stop_at, lambda: f"10.4.0.{rng.randrange(64)}", asks)
        )
        for _ in range(4)
    ]
    run_all(threads)


def attack_drops(base: str, tally: Tally, stop_at: float, scale: dict[str, Any]) -> None:
    """Finding 5: a fresh player per drop, from a handful of addresses."""
    rng = random.Random(8)
    n = 0
    conn = connect(base, timeout=30)
    while time.monotonic() < stop_at:
        n += 1
        address = f"10.5.0.{n % 8}"
        started = time.perf_counter()
        token = join(base, address, f"d{n}", "droppers")
        tally.seen(201 if token else 429, time.perf_counter() - started)
        if token is None:
            continue
        x, y = rng.randrange(-(10**6), 10**6), rng.randrange(-(10**6), 10**6)
        status, _, seconds, _ = call(
            conn,
            "POST",
            f"/api/worlds/{WORLD}/moves",
            address,
            {"moves": [{"kind": "drop", "x": x, "y": y}]},
            {"Authorization": f"Bearer {token}"},
        )
        tally.seen(status, seconds)
    conn.close()


def attack_views(base: str, tally: Tally, stop_at: float, scale: dict[str, Any]) -> None:
    """Finding 6: clients of 256x256 views, as fast as they are answered."""

    def views() -> Iterator[tuple[str, str, Any, dict[str, str] | None]]:
        x, y = random.randrange(-5000, 5000), random.randrange(-5000, 5000)
        yield (
            "GET",
            f"/api/worlds/{WORLD}/teams/bystanders/view?colour=0&x0={x}&y0={y}"
            "&width=256&height=256",
            None,
            None,
        )

    threads = [
        threading.Thread(
            target=flood, args=(base, tally, stop_at, (lambda i=i: f"10.6.9.{i}"), views)
        )
        for i in range(int(scale["view_clients"]))
    ]
    run_all(threads)


def attack_reconnect(base: str, tally: Tally, stop_at: float, scale: dict[str, Any]) -> None:
    """Finding 7: one address's 20 streams closed and opened again at once (a reload)."""
    url = urllib.parse.urlsplit(base)
    path = f"/api/worlds/{WORLD}/teams/bystanders/events?colour=0&x0=0&y0=0"
    while time.monotonic() < stop_at:
        held = []
        for _ in range(20):
            sock = socket.create_connection((url.hostname, url.port), timeout=10)
            started = time.perf_counter()
            sock.sendall(
                f"GET {path} HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 10.7.0.1\r\n\r\n".encode()
            )
            try:
                head = sock.recv(2048)
                status = int(head.split(b"\r\n", 1)[0].split()[1])
            except (OSError, ValueError, IndexError):
                head, status = b"", 0
            tally.seen(status, time.perf_counter() - started)
            if status != 200 and len(tally.problems) < 3:
                tally.problems.append(f"reconnect {status}: {head[-200:]!r}")
            held.append(sock)
        time.sleep(0.5)
        for sock in held:
            sock.close()
        time.sleep(1.0)  # the slots are free within a second of the close


ATTACKS: dict[str, Callable[[str, Tally, float, dict[str, Any]], None]] = {
    "judgement": attack_judgement,
    "teams": attack_teams,
    "streams": attack_streams,
    "who": attack_who,
    "drops": attack_drops,
    "views": attack_views,
    "reconnect": attack_reconnect,
}


def run_all(threads: list[threading.Thread]) -> None:
    for thread in threads:
        thread.daemon = True
        thread.start()
    for thread in threads:
        thread.join()


def attacker_process(
    name: str,
    base: str,
    seconds: float,
    scale: dict[str, Any],
    out: multiprocessing.Queue[dict[str, Any]],
) -> None:
    tally = Tally()
    try:
        ATTACKS[name](base, tally, time.monotonic() + seconds, scale)
    except Exception as exc:  # reported, not raised: the other attacks still run
        tally.problems.append(f"{name}: {type(exc).__name__}: {exc}")
    out.put(tally.as_dict())


# -- a run ----------------------------------------------------------------------------------


def run_attack(
    name: str,
    base: str,
    seconds: float,
    scale: dict[str, Any],
    token: str,
    at: tuple[int, int],
    think: float,
) -> dict[str, Any]:
    watch = Watch()
    context = multiprocessing.get_context("fork")
    results: multiprocessing.Queue[dict[str, Any]] = context.Queue()
    attacker = context.Process(
        target=attacker_process, args=(name, base, seconds, scale, results), daemon=True
    )
    attacker.start()
    stop_at = time.monotonic() + seconds
    watchers = [
        threading.Thread(target=bystander, args=(base, token, at, watch, stop_at, think)),
        threading.Thread(target=prober, args=(base, watch, stop_at)),
    ]
    run_all(watchers)
    seen = results.get(timeout=seconds + 120)
    attacker.join(30)
    return {
        "attack": name,
        **seen,
        "bystander_moves": len(watch.moves),
        "bystander_errors": watch.move_errors,
        "bystander_p99": quantile(watch.moves, 0.99),
        "healthz_worst": max(watch.probes, default=0.0),
        "healthz_misses": watch.probe_misses,
        "bystander_slowest": f"{watch.slowest[0] * 1e3:.0f} ms ({watch.slowest[1]})",
    }


def verdict(row: dict[str, Any]) -> str:
    misses = []
    if row["server_errors"] + row["bystander_errors"] * 0 > TARGETS["5xx"]:
        misses.append("5xx")
    if row["healthz_worst"] * 1e3 >= TARGETS["healthz_ms"] or row["healthz_misses"]:
        misses.append("healthz")
    if row["bystander_p99"] * 1e3 >= TARGETS["bystander_p99_ms"]:
        misses.append("bystander")
    if row["attacker_worst"] >= TARGETS["attacker_worst_s"]:
        misses.append("attacker")
    return "ok" if not misses else "MISSED " + ",".join(misses)


def table(rows: list[dict[str, Any]], args: argparse.Namespace) -> str:
    lines = [
        f"# bench_world_hostile: scale {args.scale}, {args.seconds:g} s per attack, "
        f"{args.workers} worker(s), {'PostgreSQL' if args.database_url else 'SQLite'}",
        "",
        "| attack | requests | 5xx | attacker worst | bystander p99 (moves) | /healthz worst "
        "| statuses | verdict |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        statuses = ", ".join(f"{k}: {v}" for k, v in sorted(r["statuses"].items()))
        lines.append(
            f"| {r['attack']} | {r['requests']} | {r['server_errors']} | "
            f"{r['attacker_worst'] * 1e3:.0f} ms | {r['bystander_p99'] * 1e3:.1f} ms "
            f"({r['bystander_moves']}) | {r['healthz_worst'] * 1e3:.1f} ms | {statuses} | "
            f"{verdict(r)} |"
        )
    lines += ["", "the bystander's slowest move, with its Server-Timing (ms in the app):"]
    lines += [f"- {r['attack']}: {r['bystander_slowest']}" for r in rows]
    problems = [f"{r['attack']}: {p}" for r in rows for p in r["problems"]]
    if problems:
        lines += ["", "problems: " + "; ".join(problems[:10])]
    return "\n".join(lines)


@contextmanager
def world_server(
    workers: int, database_url: str | None, keep_log: str | None = None
) -> Iterator[tuple[str, str]]:
    """This checkout's server (``python -m app.serve``) on a free port, rate limits on, one
    trusted proxy hop; (base URL, the database URL it uses). ``keep_log``: where to copy
    the server's log at the end."""
    env = {"MINE_DEVIL_RATELIMIT": "1", "MINE_DEVIL_PROXY_HOPS": "1"}
    if database_url:
        env["MINE_DEVIL_DATABASE_URL"] = database_url
    extra = ["--workers", str(workers), "--log-level", "warning"]
    with running_server(
        "module", extra, env=env, prefix="mine-devil-world-hostile-", keep_log=keep_log,
        timeout=90,
    ) as server:  # fmt: skip
        assert server.data is not None
        yield server.base, database_url or f"sqlite:///{server.data / 'mine-devil.sqlite3'}"


def seed_log(database_url: str, events: int) -> None:
    """The bystanders' log grown by ``events`` events (for ``who``), straight into the
    database: no-op flags of the bystander, seqs taken from the team's head (the log is
    numbered per team)."""
    import sqlalchemy as sa

    from app.world.records import utcnow
    from app.world.schema import events as log
    from app.world.schema import players, teams

    engine = sa.create_engine(database_url)
    with engine.begin() as conn:
        player = conn.execute(
            sa.select(players.c.id).where(players.c.world == WORLD, players.c.team == "bystanders")
        ).scalar_one()
        bystanders = (teams.c.world == WORLD) & (teams.c.name == "bystanders")
        head = conn.execute(sa.select(teams.c.last_seq).where(bystanders)).scalar_one()
        now = utcnow()
        for start in range(0, events, 10_000):
            rows = [
                {
                    "world": WORLD,
                    "seq": head + 1 + i,
                    "team": "bystanders",
                    "player": player,
                    "colour": 0,
                    "kind": "flag",
                    "x": 10**9,
                    "y": 10**9,
                    "outcome": "none",
                    "opened": 0,
                    "changes": None,
                    "at": now,
                }
                for i in range(start, min(events, start + 10_000))
            ]
            conn.execute(log.insert(), rows)
        conn.execute(teams.update().where(bystanders).values(last_seq=head + events))
    engine.dispose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", choices=sorted(SCALES), default="small")
    parser.add_argument("--attacks", default=",".join(ATTACKS), help="comma-separated")
    parser.add_argument("--seconds", type=float, default=None, help="per attack")
    parser.add_argument("--streams", type=int, default=None)
    parser.add_argument("--seed-teams", type=int, default=None)
    parser.add_argument("--log-events", type=int, default=None)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--think", type=float, default=0.1, help="bystander's pause")
    parser.add_argument("--database-url", default=os.environ.get("MINE_DEVIL_DATABASE_URL"))
    parser.add_argument("--json", action="store_true", help="print the rows as JSON too")
    parser.add_argument(
        "--server-log",
        help="keep the server's log in this file (with GEVENT_MONITOR_THREAD_ENABLE=1 "
        "GEVENT_MAX_BLOCKING_TIME=0.05 it names what held the worker)",
    )
    args = parser.parse_args(argv)
    scale = dict(SCALES[args.scale])
    for key in ("seconds", "streams", "seed_teams", "log_events"):
        if getattr(args, key) is not None:
            scale[key] = getattr(args, key)
    args.seconds = scale["seconds"]
    names = [n.strip() for n in args.attacks.split(",") if n.strip()]
    unknown = [n for n in names if n not in ATTACKS]
    if unknown:
        parser.error(f"unknown attacks {unknown}: choose from {', '.join(ATTACKS)}")
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # thousands of streams
    rows = []
    with world_server(args.workers, args.database_url, args.server_log) as (base, url):
        token = join(base, BYSTANDER, "bystander", "bystanders")
        assert token is not None, "the bystander could not join"
        conn = connect(base)
        status, data, _, _ = call(
            conn,
            "POST",
            f"/api/worlds/{WORLD}/moves",
            BYSTANDER,
            {"moves": [{"kind": "drop", "x": 0, "y": 0}]},
            {"Authorization": f"Bearer {token}"},
        )
        conn.close()
        assert status == 200, data[:200]
        at = tuple(json.loads(data)["results"][0]["at"])
        if "teams" in names and scale["seed_teams"]:
            seed_teams(url, int(scale["seed_teams"]))
        if "who" in names and scale["log_events"]:
            seed_log(url, int(scale["log_events"]))
        for name in names:
            row = run_attack(name, base, float(scale["seconds"]), scale, token, at, args.think)  # type: ignore[arg-type]
            rows.append(row)
            print(f"{name}: {verdict(row)}", file=sys.stderr, flush=True)
            time.sleep(1.5)  # streams and limits of one attack settle before the next
    print(table(rows, args))
    if args.json:
        print(json.dumps(rows, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
