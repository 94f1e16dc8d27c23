"""Faults under load: three ``mine-devil`` processes behind nginx, on PostgreSQL and Redis.

    .venv/bin/python bench/bench_faults.py             # 12 bots, 20 s per phase
    .venv/bin/python bench/bench_faults.py --quick     # 6 bots, 8 s per phase (the test)

Starts a throwaway PostgreSQL (``scripts/start-postgres``) and Redis (``scripts/start-redis``),
three app processes (one gevent worker each, ``MINE_DEVIL_PROXY_HOPS=1``, rate limits on and
counted in Redis) and the repository's nginx edge in front (``bench/edge.py``). Bots (threads)
join Devil World's ``main`` in a few teams (colour 0, the watchers' board) and send rafts of
1-4 flags through nginx (and a drop every tenth raft), each on a cell no move used before, so
a move found twice in the log was applied twice. A bot whose request failed sends new moves
(it never repeats one whose answer it did not get). Three watchers per team read its live
feed through nginx (spread over the processes), reconnecting with
``Last-Event-ID`` whenever the stream breaks.

Phases (each: load, the fault in the middle, load on):

``kill -9``     one app process killed (its whole group) and started again after 2 s
``pg restart``  ``pg_ctl restart -m fast``
``redis stop``  Redis stopped, started again 3 s later

Per phase: moves acknowledged; lost (acknowledged, not in the log as acknowledged);
duplicated (a move twice in the log); answers by status; ``/healthz`` answers seen while
the fault lasted; recovery (seconds from the fault until every process answers ``/healthz``
and a move is acknowledged again). At the end every watcher must have received each event of
its team's log exactly once. The last line is the summary as JSON; the exit status is 1 if
anything was lost, duplicated, answered 500, or a watcher missed or repeated an event.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parent))
import contextlib

from edge import nginx_binary, start_nginx

ROOT = Path(__file__).resolve().parent.parent
BOX = 256
"""Each team's bots flag cells of one 256 x 256 box, its watcher's view."""
DROP_GRID = range(16, BOX - 15, 8)
"""Where in the box a bot drops (every tenth raft): a drop opens cells, so its event reaches
the watcher (a flag on an unproven cell is the devil's and changes nothing)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def exports(script: str) -> dict[str, str]:
    """The ``export NAME=value`` lines a ``scripts/start-*`` prints."""
    out = subprocess.run(
        ["bash", str(ROOT / "scripts" / script)], check=True, capture_output=True, text=True
    ).stdout
    found = {}
    for line in out.splitlines():
        if line.startswith("export "):
            name, _, value = line[len("export ") :].partition("=")
            found[name] = shlex.split(value)[0]
    return found


def get(port: int, path: str, timeout: float = 5) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def post(port: int, path: str, body: Any, token: str | None = None) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        conn.request("POST", path, json.dumps(body), headers)
        response = conn.getresponse()
        data = response.read()
        try:
            return response.status, json.loads(data or b"null")
        except ValueError:
            return response.status, None
    finally:
        conn.close()


def healthy(port: int) -> bool:
    try:
        return get(port, "/healthz", timeout=2)[0] == 200
    except OSError:
        return False


def wait_until(check: Any, seconds: float, what: str) -> float:
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        if check():
            return time.monotonic() - started
        time.sleep(0.1)
    raise RuntimeError(f"{what} within {seconds:g} s")


# -- the cluster ---------------------------------------------------------------------------


@dataclass
class Cluster:
    work: Path
    pg: dict[str, str]
    redis: dict[str, str]
    ports: list[int]
    edge: int
    apps: list[subprocess.Popen[bytes] | None] = field(default_factory=list)
    nginx: subprocess.Popen[bytes] | None = None

    @property
    def db_url(self) -> str:
        return self.pg["MINE_DEVIL_TEST_POSTGRES_URL"]

    def app_env(self, n: int) -> dict[str, str]:
        env = {**os.environ}
        env.update(
            MINE_DEVIL_DATABASE_URL=self.db_url,
            MINE_DEVIL_RATELIMIT_STORAGE=self.redis["MINE_DEVIL_TEST_REDIS_URL"],
            MINE_DEVIL_PROXY_HOPS="1",
            MINE_DEVIL_RATELIMIT="1",
            MINE_DEVIL_SECRET_KEY="bench-faults",
            MINE_DEVIL_CLIENT_REQUESTS="4096",  # every bot comes from 127.0.0.1
            MINE_DEVIL_RATELIMIT_WORLD_JOIN_CLIENT="1000 per minute",  # so does every join
            MINE_DEVIL_WORLD_DROP_SECONDS="0",
        )
        # in the work folder: a process killed with kill -9 never removes a folder of its own
        env["PROMETHEUS_MULTIPROC_DIR"] = str(self.work / f"metrics{n}")
        return env

    def start_app(self, n: int) -> None:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "app.serve",
                "--port",
                str(self.ports[n]),
                "--data",
                str(self.work / f"data{n}"),
                "--workers",
                "1",
                "--log-level",
                "error",
            ],
            cwd=ROOT,
            env=self.app_env(n),
            stdout=subprocess.DEVNULL,
            stderr=open(self.work / f"app{n}.log", "ab"),  # noqa: SIM115
            start_new_session=True,
        )
        if n < len(self.apps):
            self.apps[n] = process
        else:
            self.apps.append(process)
        wait_until(lambda: healthy(self.ports[n]), 60, f"app {n} did not answer")

    def kill_app(self, n: int) -> None:
        process = self.apps[n]
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)
        self.apps[n] = None

    def pg_ctl(self, *args: str) -> None:
        pgdir = self.pg["MINE_DEVIL_PGDIR"]
        binary = next(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run(  # the server's output to its log: a pipe would stay open with it
            [
                *prefix,
                str(binary),
                *args,
                "--pgdata",
                f"{pgdir}/data",
                "--wait",
                "--log",
                f"{pgdir}/server.log",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd="/",
        )

    def redis_port(self) -> int:
        return int(self.redis["MINE_DEVIL_TEST_REDIS_URL"].rsplit(":", 1)[1].split("/")[0])

    def stop_redis(self) -> None:
        pid = int((Path(self.redis["MINE_DEVIL_REDISDIR"]) / "redis.pid").read_text())
        os.kill(pid, signal.SIGTERM)
        wait_until(lambda: not _alive(pid), 10, "redis did not stop")

    def start_redis(self) -> None:
        directory = self.redis["MINE_DEVIL_REDISDIR"]
        subprocess.run(
            [
                "redis-server",
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.redis_port()),
                "--dir",
                directory,
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "yes",
                "--pidfile",
                f"{directory}/redis.pid",
                "--logfile",
                f"{directory}/redis.log",
            ],
            check=True,
        )

    def close(self) -> None:
        for n in range(len(self.apps)):
            self.kill_app(n)
        if self.nginx is not None and self.nginx.poll() is None:
            os.killpg(self.nginx.pid, signal.SIGTERM)
            self.nginx.wait(10)
        if self.redis:
            subprocess.run(
                ["bash", str(ROOT / "scripts" / "stop-redis"), self.redis["MINE_DEVIL_REDISDIR"]],
                check=False,
            )
        if self.pg:
            subprocess.run(
                ["bash", str(ROOT / "scripts" / "stop-postgres"), self.pg["MINE_DEVIL_PGDIR"]],
                check=False,
            )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def start_cluster(work: Path, processes: int) -> Cluster:
    binary = nginx_binary()
    if binary is None:
        raise SystemExit("bench_faults: nginx is not installed (scripts/install-system-deps)")
    cluster = Cluster(work, {}, {}, [free_port() for _ in range(processes)], free_port())
    try:
        cluster.pg = exports("start-postgres")
        cluster.redis = exports("start-redis")
        for n in range(processes):
            cluster.start_app(n)
        cluster.nginx = start_nginx(binary, work / "nginx", cluster.edge, cluster.ports)
        wait_until(lambda: healthy(cluster.edge), 20, "nginx did not answer")
    except BaseException:
        cluster.close()
        raise
    return cluster


# -- load ----------------------------------------------------------------------------------


@dataclass
class Tally:
    lock: threading.Lock = field(default_factory=threading.Lock)
    acked: list[tuple[str, int, str, int, int]] = field(default_factory=list)
    """(team, seq, player, x, y) of every acknowledged move."""
    statuses: Counter[str] = field(default_factory=Counter)
    last_ack: float = 0.0
    ack_times: list[float] = field(default_factory=list)

    def answer(self, status: str) -> None:
        with self.lock:
            self.statuses[status] += 1


class Team:
    def __init__(self, name: str, origin: int):
        self.name = name
        self.origin = origin
        self.next_cell = 0
        self.next_drop = 0
        self.lock = threading.Lock()

    def drop_spot(self) -> tuple[int, int] | None:
        """A place no drop used before, inside the box (None when all were used)."""
        side = len(DROP_GRID)
        with self.lock:
            k, self.next_drop = self.next_drop, self.next_drop + 1
        if k >= side * side:
            return None
        return self.origin + DROP_GRID[k % side], DROP_GRID[k // side]

    def cells(self, count: int) -> list[tuple[int, int]]:
        """``count`` cells no move used before (none when the box is full)."""
        with self.lock:
            first, self.next_cell = self.next_cell, min(BOX * BOX, self.next_cell + count)
            count = self.next_cell - first
        return [(self.origin + k % BOX, k // BOX) for k in range(first, first + count)]


def bot(
    edge: int,
    team: Team,
    token: str,
    player: str,
    tally: Tally,
    stop: threading.Event,
    pause: float,
) -> None:
    rafts = 0
    while not stop.is_set():
        rafts += 1
        cells = team.cells(1 + rafts % 4)
        if not cells:
            return
        moves = [{"kind": "flag", "x": x, "y": y} for x, y in cells]
        spot = team.drop_spot() if rafts % 10 == 0 else None
        if spot is not None:
            moves.append({"kind": "drop", "x": spot[0], "y": spot[1]})
        try:
            status, body = post(edge, "/api/worlds/main/moves", {"moves": moves}, token)
        except (OSError, http.client.HTTPException) as exc:  # the process died under it
            tally.answer(type(exc).__name__)
            time.sleep(0.2)
            continue
        tally.answer(str(status))
        if status == 200:
            with tally.lock:
                for result in body["results"]:
                    # an undecided move (the judgement's budget ran out) is not applied:
                    # no seq, nothing acknowledged
                    if result["kind"] == "flag" and result["seq"] is not None:
                        x, y = int(result["x"]), int(result["y"])
                        tally.acked.append((team.name, int(result["seq"]), player, x, y))
                tally.last_ack = time.monotonic()
                tally.ack_times.append(tally.last_ack)
        elif status in (429, 503):
            time.sleep(0.5)
        time.sleep(pause)


class Watcher(threading.Thread):
    """A team's live feed through nginx; reconnects with ``Last-Event-ID``."""

    def __init__(self, edge: int, team: Team, after: int):
        super().__init__(daemon=True)
        self.edge = edge
        self.team = team
        self.last = after
        self.seqs: list[int] = []
        self.reconnects = 0
        self.stopping = threading.Event()
        self.conn: http.client.HTTPConnection | None = None

    def run(self) -> None:
        path = (
            f"/api/worlds/main/teams/{self.team.name}/events?colour=0"
            f"&x0={self.team.origin}&y0=0&width={BOX}&height={BOX}"
        )
        while not self.stopping.is_set():
            try:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.edge, timeout=70)
                self.conn.request("GET", path, headers={"Last-Event-ID": str(self.last)})
                response = self.conn.getresponse()
                if response.status != 200:
                    response.read()
                    raise OSError(f"feed answered {response.status}")
                while line := response.readline():
                    if line.startswith(b"id: "):
                        seq = int(line[4:])
                        self.seqs.append(seq)
                        self.last = seq
            except (OSError, ValueError, http.client.HTTPException):
                pass
            if not self.stopping.is_set():
                self.reconnects += 1
                time.sleep(0.3)

    def close(self) -> None:
        self.stopping.set()
        if self.conn is not None and self.conn.sock is not None:
            with contextlib.suppress(OSError):
                self.conn.sock.shutdown(socket.SHUT_RDWR)
        self.join(10)


# -- phases --------------------------------------------------------------------------------


@dataclass
class Phase:
    name: str
    acked: int = 0
    lost: int = 0
    duplicated: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    healthz: list[str] = field(default_factory=list)
    first_ack: float = 0.0
    """Seconds from the fault to the first move acknowledged after it (through nginx)."""
    recovery: float = 0.0
    """Seconds from the fault until every process answers /healthz and moves are acked."""

    def row(self) -> str:
        fives = sum(n for s, n in self.statuses.items() if s.startswith("5"))
        answers = ", ".join(f"{s}: {n}" for s, n in sorted(self.statuses.items()))
        return (
            f"| {self.name} | {self.acked} | {self.lost} | {self.duplicated} | {fives} "
            f"| {self.first_ack:.1f} | {self.recovery:.1f} | {answers} |"
        )


def say(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def run_phase(
    cluster: Cluster,
    teams: list[Team],
    tokens: list[tuple[Team, str, str]],
    name: str,
    fault: Any,
    seconds: float,
    pause: float,
) -> Phase:
    tally = Tally()
    stop = threading.Event()
    bots = [
        threading.Thread(
            target=bot, args=(cluster.edge, team, token, player, tally, stop, pause), daemon=True
        )
        for team, token, player in tokens
    ]
    for thread in bots:
        thread.start()
    time.sleep(seconds / 2)
    phase = Phase(name)
    say(f"{name}: striking")
    struck = time.monotonic()
    seen: set[str] = set()

    def probe() -> None:
        for port in cluster.ports:
            try:
                status, body = get(port, "/healthz", timeout=2)
            except OSError as exc:
                seen.add(f"{type(exc).__name__}")
                continue
            if status != 200:
                seen.add(f"{status} {body.decode(errors='replace').strip()}")

    fault(probe)
    probe()
    recovered_at = None
    deadline = struck + 60
    while time.monotonic() < deadline:
        probe()
        if all(healthy(p) for p in cluster.ports) and tally.last_ack > struck + 0.01:
            recovered_at = time.monotonic()
            break
        time.sleep(0.1)
    phase.recovery = (recovered_at or deadline) - struck
    with tally.lock:
        after = [t for t in tally.ack_times if t > struck]
    phase.first_ack = min(after) - struck if after else float("nan")
    say(f"{name}: recovered after {phase.recovery:.1f} s")
    time.sleep(max(0.0, seconds / 2 - (time.monotonic() - struck)))
    stop.set()
    for thread in bots:
        thread.join(40)
    phase.healthz = sorted(seen)
    phase.statuses = dict(tally.statuses)
    phase.acked = len(tally.acked)
    logged = log_moves(cluster.db_url)
    for team_name, seq, player, x, y in tally.acked:
        if logged.get((team_name, seq)) != (player, x, y):
            phase.lost += 1
    phase.duplicated = sum(n - 1 for n in Counter(logged.values()).values() if n > 1)
    return phase


def log_moves(db_url: str) -> dict[tuple[str, int], tuple[str, int, int]]:
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                sa.text(
                    "SELECT team, seq, player, x, y FROM world_events "
                    "WHERE world = 'main' AND kind = 'flag'"
                )
            ).all()
    finally:
        engine.dispose()
    return {(r.team, int(r.seq)): (r.player, int(r.x), int(r.y)) for r in rows}


def team_seqs(db_url: str, team: str, after: int) -> list[int]:
    """The team's logged events a watcher of its box is sent: those that changed a cell (a
    flag on a cell that is no mine of the player's colour is the devil's: nothing changes)."""
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                sa.text(
                    "SELECT seq FROM world_events WHERE world = 'main' AND team = :t AND seq > :a "
                    "AND changes IS NOT NULL ORDER BY seq"
                ),
                {"t": team, "a": after},
            ).all()
    finally:
        engine.dispose()
    return [int(r.seq) for r in rows]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="6 bots, 8 s per phase")
    parser.add_argument("--bots", type=int, default=12)
    parser.add_argument("--teams", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each phase")
    parser.add_argument("--pause", type=float, default=0.05, help="a bot's rest between rafts")
    args = parser.parse_args(argv)
    if args.quick:
        args.bots, args.teams, args.seconds = 6, 2, 8.0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the cluster on the way out
    work = Path(tempfile.mkdtemp(prefix="mine-devil-faults-"))
    say("starting PostgreSQL, Redis, 3 app processes and nginx")
    cluster = start_cluster(work, 3)
    say("cluster up")
    try:
        teams = [Team(f"t{n}", n * 1000) for n in range(args.teams)]
        tokens = []
        for b in range(args.bots):
            team = teams[b % len(teams)]
            status, body = post(
                cluster.edge,
                "/api/worlds/main/players",
                {"name": f"bot{b}", "team": team.name, "colour": 0},
            )
            if status != 201:
                raise RuntimeError(f"join answered {status}: {body}")
            tokens.append((team, body["token"], body["player"]))
        # three per team: nginx (least_conn) spreads them over the processes, so the killed
        # one holds some
        watchers = [Watcher(cluster.edge, team, 0) for team in teams for _ in range(3)]
        for watcher in watchers:
            watcher.start()
        time.sleep(0.5)

        def kill(_probe: Any) -> None:
            cluster.kill_app(0)
            time.sleep(2)
            cluster.start_app(0)

        def pg_restart(probe: Any) -> None:
            done = threading.Thread(target=cluster.pg_ctl, args=("restart", "--mode=fast"))
            done.start()
            while done.is_alive():
                probe()
                time.sleep(0.05)

        def redis_stop(_probe: Any) -> None:
            cluster.stop_redis()
            time.sleep(3)
            cluster.start_redis()

        phases = [
            run_phase(cluster, teams, tokens, name, fault, args.seconds, args.pause)
            for name, fault in (
                ("kill -9", kill),
                ("pg restart", pg_restart),
                ("redis stop", redis_stop),
            )
        ]
        time.sleep(1.5)
        for watcher in watchers:
            watcher.close()
        exact = True
        watched = []
        for watcher in watchers:
            logged = team_seqs(cluster.db_url, watcher.team.name, 0)
            ok = watcher.seqs == logged
            exact = exact and ok
            watched.append(
                {
                    "team": watcher.team.name,
                    "events": len(logged),
                    "received": len(watcher.seqs),
                    "distinct": len(set(watcher.seqs)),
                    "reconnects": watcher.reconnects,
                    "exact": ok,
                }
            )
    finally:
        cluster.close()
        shutil.rmtree(work, ignore_errors=True)
    print(
        f"\n{args.bots} bots in {args.teams} teams, 3 app processes behind nginx, "
        f"PostgreSQL, Redis; {args.seconds:g} s per phase\n"
    )
    print(
        "| fault | moves acknowledged | lost | duplicated | 5xx | first move after, s "
        "| all processes healthy, s | answers by status |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for phase in phases:
        print(phase.row())
    print()
    for phase in phases:
        print(f"{phase.name}: /healthz while it lasted: {phase.healthz or ['always 200']}")
    for w in watched:
        print(
            f"watcher {w['team']}: {w['received']} events received for {w['events']} logged "
            f"({w['distinct']} distinct, {w['reconnects']} reconnects): "
            f"{'exactly once each' if w['exact'] else 'NOT EXACT'}"
        )
    summary = {
        "phases": [vars(p) for p in phases],
        "watchers": watched,
        "ok": exact
        and all(p.lost == 0 and p.duplicated == 0 and "500" not in p.statuses for p in phases),
    }
    print(json.dumps(summary))
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
