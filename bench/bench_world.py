"""Devil World benchmark: ``mine-devil`` servers on one PostgreSQL, driven over HTTP.

    .venv/bin/python bench/bench_world.py                 # the issue's scenario, prints tables
    .venv/bin/python bench/bench_world.py --quick         # small and short (a smoke run)
    .venv/bin/python bench/bench_world.py --phases bots --processes 1,2,3   # scaling table
    .venv/bin/python bench/bench_world.py --phases bots --app-root /tmp/old # older code

Starts a throwaway PostgreSQL (``scripts/start-postgres``; or uses
``MINE_DEVIL_TEST_POSTGRES_URL``) and ``--processes`` servers (``app.serve``, one gevent worker
each, ``MINE_DEVIL_RATELIMIT=0``; two by default; ``1,2,3`` runs the whole benchmark once per
count, each on a fresh PostgreSQL, and tables the bots phase side by side: throughput, raft
p50/p99, the commit's parts, moves per app and per PostgreSQL CPU-second), then measures,
each on the same world ``main``:

1. ``reveal``: single-move rafts on provably safe cells (found with ``devil.world.deduce``
   on the team's view), server time from the ``Server-Timing`` header, then the same after
   1,000,000 known cells were added to that team's knowledge (chunks written straight into
   the database, far from the play: the request must not load them).
2. ``view 128x128``: server time of a 128x128 view, over play and over the million cells.
3. ``bots``: ``--bots`` players in ``--teams`` teams (mixed colours), each in a loop: view
   32x32 around its focus, deduce, play every provable move as one raft (at most 64), drop
   when stuck; clients in ``--client-procs`` processes, requests spread over the servers.
   moves/s, per-request p50/p99 (client and server time), and with one live watcher per team
   (256x256 around its area, board 0, from the team's seq before the phase): no event twice,
   every colour-0 event of the log inside the viewport received, the live feed equal to the
   same feed resumed from the log afterwards, and the log's seqs gapless (per team; per
   world for code from before migration 0007) with every acknowledged move in it. (Another
   colour's flag shows on board 0 as ``*`` unless the cell is a number there when the feed
   reads it, so those events may differ between a live and a later read.)
4. ``watchers``: ``--watchers`` SSE streams on one team split over the servers; a player
   makes moves; latency from sending a move to each watcher receiving its event (p50/p99),
   and bytes per event per watcher.
5. ``storage``/``costs``: bytes per logged move (events table and index) and per chunk,
   PostgreSQL CPU per move during ``bots`` (moves per PostgreSQL CPU-second), app CPU per move,
   and the cost of a commit with ``NOTIFY`` against one without (psycopg, 2000 each).
6. RSS of each server (master + worker) at start and end.

The machine has 2 cores shared by the servers, PostgreSQL and the clients: client CPU
(deduction) competes with the server, so the throughput here is a floor.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import re
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devil.world import deduce  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pgstats  # noqa: E402

WORLD = "main"
TIMING = re.compile(r"app;dur=([0-9.]+)")
CPU = re.compile(r"cpu;dur=([0-9.]+)")
METRIC = re.compile(r"(\w+);dur=([0-9.]+)")


# -- processes -------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def postgres(url: str | None = None, processes: int = 2) -> Iterator[tuple[str, Path | None]]:
    """The database: ``url``, else a throwaway server taking enough connections for
    ``processes`` servers (each pools up to 40: three exceed PostgreSQL's default 100)."""
    given = url or os.environ.get("MINE_DEVIL_TEST_POSTGRES_URL")
    if given:
        yield given, None
        return
    out = subprocess.run(
        ["bash", str(ROOT / "scripts" / "start-postgres")],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "MINE_DEVIL_PG_MAX_CONNECTIONS": str(50 * processes + 50)},
    ).stdout
    env = dict(re.findall(r"export (\w+)=['\"]?([^'\"\n]+)", out))
    url, pgdir = env["MINE_DEVIL_TEST_POSTGRES_URL"], Path(env["MINE_DEVIL_PGDIR"])
    try:
        yield url, pgdir
    finally:
        subprocess.run(["bash", str(ROOT / "scripts" / "stop-postgres"), str(pgdir)], check=False)


@dataclass
class Server:
    port: int
    process: subprocess.Popen[bytes]
    log: Path


@contextmanager
def servers(db_url: str, count: int, streams: int, app_root: Path = ROOT) -> Iterator[list[Server]]:
    """``count`` servers (one gevent worker each) running the ``app`` of ``app_root`` (another
    checkout: the code before a change, on this benchmark's load)."""
    env = {
        **os.environ,
        "MINE_DEVIL_DATABASE_URL": db_url,
        "MINE_DEVIL_RATELIMIT": "0",
        "MINE_DEVIL_WORLD_STREAMS_PER_CLIENT": str(streams),
        # every simulated person connects from 127.0.0.1: one client to the per-client gate
        "MINE_DEVIL_CLIENT_REQUESTS": str(streams + 400),
    }
    started: list[Server] = []
    data = Path(tempfile.mkdtemp(prefix="bench-world-"))
    data.mkdir(exist_ok=True)
    try:
        for i in range(count):
            port = free_port()
            log = open(data / f"s{i}.log", "wb")  # noqa: SIM115 - kept open while it runs
            process = subprocess.Popen(
                [
                    *(sys.executable, "-m", "app.serve", "--port", str(port)),
                    *("--data", str(data / f"s{i}"), "--workers", "1", "--log-level", "warning"),
                    *("--worker-connections", str(streams + 200)),
                ],
                cwd=app_root,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=log,
                start_new_session=True,
            )
            log.close()
            started.append(Server(port, process, data / f"s{i}.log"))
        for server in started:
            wait_up(server)
        yield started
    finally:
        for server in started:
            if server.process.poll() is None:
                os.killpg(server.process.pid, signal.SIGTERM)
            try:
                server.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(server.process.pid, signal.SIGKILL)
            errors = server.log.read_text(errors="replace").strip()
            if errors:
                print(
                    f"--- server on port {server.port} logged:\n{errors[-3000:]}", file=sys.stderr
                )
        shutil.rmtree(data, ignore_errors=True)  # the servers' data dirs and logs


def wait_up(server: Server) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            err = server.log.read_text(errors="replace")
            raise SystemExit(f"server exited {server.process.returncode}: {err[-2000:]}")
        try:
            status, *_ = Conn(server.port).call("GET", "/healthz")
            if status == 200:
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("server did not come up")


def group_pids(pgid: int) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.getpgid(int(entry)) == pgid:
                    pids.append(int(entry))
            except OSError:
                pass
    return pids


def rss_mb(pgid: int) -> float:
    total = 0
    for pid in group_pids(pgid):
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def cpu_seconds(pids: list[int], with_children: bool = False) -> float:
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
        if with_children:
            total += int(fields[13]) + int(fields[14])
    return total / tick


def run_delay(pids: list[int]) -> float:
    """Seconds the processes were ready to run but waited for a CPU (``/proc/*/schedstat``,
    the kernel's run-queue delay, summed over their threads)."""
    total = 0
    for pid in pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            with suppress(OSError, IndexError, ValueError):
                total += int(Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()[1])
    return total / 1e9


def postgres_pids(pgdir: Path | None) -> list[int]:
    if pgdir is None:
        return []
    try:
        master = int((pgdir / "data" / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError):
        return []
    pids = [master]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == master:
                pids.append(int(entry))
    return pids


# -- HTTP ------------------------------------------------------------------------------


class Conn:
    """A keep-alive connection: ``call`` -> (status, body, client seconds, server ms)."""

    def __init__(self, port: int):
        self.port = port
        self.http: http.client.HTTPConnection | None = None
        self.cpu: float | None = None
        """The last answer's server CPU ms (``Server-Timing: cpu``)."""
        self.timings: dict[str, float] = {}
        """The last answer's ``Server-Timing`` metrics (ms by name)."""

    def call(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any, float, float | None]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = None if body is None else json.dumps(body)
        for attempt in range(2):
            if self.http is None:
                self.http = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            started = time.perf_counter()
            try:
                self.http.request(method, path, data, headers)
                response = self.http.getresponse()
                raw = response.read()
            except (OSError, http.client.HTTPException):
                self.http.close()
                self.http = None
                if attempt:
                    raise
                continue
            elapsed = time.perf_counter() - started
            header = response.headers.get("Server-Timing", "")
            timing, cpu = TIMING.search(header), CPU.search(header)
            server = float(timing.group(1)) if timing else None
            self.cpu = float(cpu.group(1)) if cpu else None
            self.timings = {k: float(v) for k, v in METRIC.findall(header)}
            return response.status, json.loads(raw or b"null"), elapsed, server
        raise AssertionError("unreachable")


def join(conn: Conn, name: str, team: str, colour: int) -> str:
    status, body, *_ = conn.call(
        "POST", f"/api/worlds/{WORLD}/players", {"name": name, "team": team, "colour": colour}
    )
    assert status == 201, body
    token: str = body["token"]
    return token


# -- a player that only plays proved moves ---------------------------------------------


@dataclass
class Player:
    conn: Conn
    token: str
    team: str
    colour: int
    rng: random.Random
    focus: tuple[int, int] = (0, 0)
    side: int = 32
    requests: list[tuple[float, float | None, int, float | None]] = field(default_factory=list)
    rafts: list[tuple[float, float, int, dict[str, float]]] = field(default_factory=list)
    """Per raft: (sent, monotonic), client seconds, moves, server timings (ms)."""
    seqs: list[tuple[str, int]] = field(default_factory=list)
    """(team, seq) of every logged move acknowledged."""
    errors: int = 0
    refused: int = 0
    """Views answered 429 (the process's view slots busy past their wait), then retried."""
    views: int = 0
    """Views read (a bot behind its schedule skips the second look before a raft)."""

    def moves(self, raft: list[dict[str, Any]]) -> list[dict[str, Any]]:
        sent = time.monotonic()
        status, body, elapsed, server = self.conn.call(
            "POST", f"/api/worlds/{WORLD}/moves", {"moves": raft}, self.token
        )
        assert status == 200, body
        self.requests.append((elapsed, server, len(raft), self.conn.cpu))
        self.rafts.append((sent, elapsed, len(raft), self.conn.timings))
        results: list[dict[str, Any]] = body["results"]
        self.seqs.extend((self.team, r["seq"]) for r in results if r["seq"] is not None)
        self.errors += sum(r["outcome"] == "devil" for r in results)
        return results

    def drop(self, x: int, y: int) -> None:
        (result,) = self.moves([{"kind": "drop", "x": x, "y": y}])
        if result["outcome"] == "dropped":
            self.focus = (result["at"][0], result["at"][1])

    def provable(self) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        half = self.side // 2
        x0, y0 = self.focus[0] - half, self.focus[1] - half
        query = f"colour={self.colour}&x0={x0}&y0={y0}&width={self.side}&height={self.side}"
        path = f"/api/worlds/{WORLD}/teams/{self.team}/view?{query}"
        self.views += 1
        status, body, *_ = self.conn.call("GET", path)
        while status == 429:  # the view slots stayed busy (a loaded machine): as a client would
            self.refused += 1
            time.sleep(self.rng.uniform(0.5, 1.5))
            status, body, *_ = self.conn.call("GET", path)
        assert status == 200, body
        found = deduce(body["rows"], x0, y0)
        return sorted(found.safe), sorted(found.mines)

    def raft(self, cap: int) -> list[dict[str, Any]]:
        """Every provable move in the view, shuffled, at most ``cap``."""
        safe, mines = self.provable()
        raft: list[dict[str, Any]] = [{"kind": "reveal", "x": x, "y": y} for x, y in safe]
        raft += [{"kind": "flag", "x": x, "y": y} for x, y in mines]
        self.rng.shuffle(raft)
        return raft[:cap]

    def step(self, cap: int = 64, wait: Callable[[int], bool] | None = None) -> int:
        """Play a raft of provable moves (or drop when there is none); ``wait(n)`` rests
        before a raft of ``n`` moves (True if it rested: the view is read again and at most
        ``n`` moves are played). The moves played."""
        raft = self.raft(cap)
        if wait is not None and wait(max(1, len(raft))):
            raft = self.raft(max(1, len(raft)))
        if not raft:
            fx, fy = self.focus
            self.drop(fx + self.rng.randint(-300, 300), fy + self.rng.randint(-300, 300))
            return 1
        self.moves(raft)
        self.focus = (int(raft[0]["x"]), int(raft[0]["y"]))
        return len(raft)


def bot_process(
    port_list: list[int],
    bots: list[tuple[str, str, int, tuple[int, int]]],
    start_at: float,
    seconds: float,
    seed: int,
    pace: float = 0.0,
    ramp: float = 0.0,
    poisson: bool = True,
) -> dict[str, Any]:
    """Run ``bots`` (token, team, colour, origin) as threads from ``start_at`` (monotonic,
    the same clock in every process) for ``ramp + seconds``.

    Each bot starts at a random moment in the first ``ramp`` seconds (0: all at once).
    ``pace``: seconds each bot rests per move it plays (0: no rest, the servers saturate;
    ``bots / rate``: together the bots offer ``rate`` moves/s, like players who think):
    a bot reads its view, rests ``pace`` per move it found (from when its previous raft
    was due), reads the view again and plays (at most as many moves). With ``poisson`` the
    rest is drawn from an exponential distribution of that mean (each bot's moves then
    arrive as a Poisson process, stationary from the start), else it is fixed."""
    time.sleep(max(0.0, start_at - time.monotonic()))
    deadline = start_at + ramp + seconds
    cpu_before = time.process_time()
    players: list[Player] = []

    def run(i: int, token: str, team: str, colour: int, origin: tuple[int, int]) -> None:
        rng = random.Random(seed * 1000 + i)
        player = Player(Conn(port_list[i % len(port_list)]), token, team, colour, rng)
        players.append(player)
        time.sleep(rng.uniform(0.0, ramp))
        player.drop(origin[0] + rng.randint(-100, 100), origin[1] + rng.randint(-100, 100))
        due = time.monotonic()

        def wait(n: int) -> bool:
            # a raft of n moves is due a rest of n * pace after the previous one was due
            # (paid before it is played, so a window counts only moves whose rest it
            # holds); a bot behind its schedule plays at once
            nonlocal due
            mean = n * pace
            due += rng.expovariate(1.0 / mean) if poisson else mean
            pause = min(due, deadline) - time.monotonic()
            if pause <= 0:
                return False
            time.sleep(pause)
            return True

        while time.monotonic() < deadline:
            player.step(wait=wait if pace > 0 else None)

    threads = [threading.Thread(target=run, args=(i, *bot)) for i, bot in enumerate(bots)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {
        "requests": [r for p in players for r in p.requests],
        "rafts": [r for p in players for r in p.rafts],
        "seqs": [s for p in players for s in p.seqs],
        "errors": sum(p.errors for p in players),
        "refused": sum(p.refused for p in players),
        "views": sum(p.views for p in players),
        "cpu": time.process_time() - cpu_before,
    }


# -- live streams ----------------------------------------------------------------------


class Sampler:
    """A daemon thread that calls ``_run`` while the ``with`` block lasts; ``_run`` loops on
    ``self.ticks()`` (every ``every`` seconds until the block ends)."""

    def __init__(self, every: float) -> None:
        self.every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)

    def ticks(self) -> Iterator[None]:
        while not self._stop.wait(self.every):
            yield None

    def _run(self) -> None:
        raise NotImplementedError


class LockSampler(Sampler):
    """Samples ``pg_stat_activity`` every ``every`` seconds: which statements run, and which
    of them wait for a lock: ``open`` takes the team's row, ``close`` the seqs (the team's
    row again since migration 0007; the world's row before), ``other`` the rest. A backend
    ``active`` in ``ClientRead`` waits for the rest of a pipeline from its client."""

    SQL = (
        "SELECT CASE WHEN query LIKE '%%FROM world_teams%%FOR UPDATE%%' THEN 'open'"
        " WHEN query LIKE '%%SET last_seq%%' THEN 'close' ELSE 'other' END,"
        " CASE WHEN state <> 'active' THEN 'idle' WHEN wait_event_type = 'Lock' THEN 'waits'"
        " ELSE 'runs' END, coalesce(wait_event, 'cpu')"
        " FROM pg_stat_activity WHERE datname = current_database()"
        " AND state IN ('active', 'idle in transaction') AND pid <> pg_backend_pid()"
    )

    def __init__(self, db_url: str, every: float = 0.05):
        super().__init__(every)
        self.url = db_url
        self.samples = 0
        self.counts: Counter[tuple[str, str]] = Counter()
        self.events: Counter[str] = Counter()

    def _run(self) -> None:
        import psycopg
        import sqlalchemy as sa

        url = sa.make_url(self.url).set(drivername="postgresql").render_as_string(False)
        with psycopg.connect(url, autocommit=True) as conn:
            for _ in self.ticks():
                rows = conn.execute(self.SQL).fetchall()
                self.samples += 1
                self.counts.update((str(kind), str(state)) for kind, state, _ in rows)
                self.events.update(f"{kind}:{event}" for kind, state, event in rows)

    def summary(self) -> str:
        """Average backends per sample, per statement kind (the last one, for a backend idle
        in a transaction): running / waiting for a lock / idle in the transaction."""
        n = max(1, self.samples)
        parts = [
            f"{kind} "
            + " / ".join(
                f"{self.counts[kind, state] / n:.2f}" for state in ("runs", "waits", "idle")
            )
            for kind in ("open", "close", "other")
        ]
        return ", ".join(parts) + f" ({self.samples} samples)"


class Probe(Sampler):
    """``GET /healthz`` on each server every ``every`` seconds over its own connection: the
    time a trivial request waits in a busy worker (its event loop's lag)."""

    def __init__(self, ports: list[int], every: float = 0.05):
        super().__init__(every)
        self.ports = ports
        self.times: list[float] = []

    def _run(self) -> None:
        conns = [Conn(port) for port in self.ports]
        for _ in self.ticks():
            for conn in conns:
                self.times.append(conn.call("GET", "/healthz")[2] * 1e3)


class Streams:
    """Many SSE streams read by one selector thread: per stream, (seq, arrival time)."""

    ID = re.compile(rb"(?m)^id: (\d+)\n")

    def __init__(self) -> None:
        self.selector = selectors.DefaultSelector()
        self.seen: dict[int, list[tuple[int, float]]] = defaultdict(list)
        self.bytes = 0
        self.status: dict[int, str] = {}
        """Per stream, the status code of its answer (a refused stream is not a watcher)."""
        self.socks: list[socket.socket] = []
        self._tail: dict[int, bytes] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def open(self, port: int, path: str, index: int) -> None:
        sock = socket.create_connection(("127.0.0.1", port))
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        sock.setblocking(False)
        self.selector.register(sock, selectors.EVENT_READ, index)
        self.socks.append(sock)
        self._tail[index] = b""

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            for key, _ in self.selector.select(timeout=0.2):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                try:
                    data = sock.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    self.selector.unregister(sock)
                    continue
                now = time.monotonic()
                self.bytes += len(data)
                buffer = self._tail[key.data] + data
                if key.data not in self.status and b"\r\n" in buffer:
                    self.status[key.data] = buffer.split(b"\r\n", 1)[0].split(b" ")[1].decode()
                end = buffer.rfind(b"\n\n")  # parse whole SSE events only; keep the rest
                if end < 0:
                    self._tail[key.data] = buffer
                    continue
                for match in self.ID.finditer(buffer, 0, end + 2):
                    self.seen[key.data].append((int(match.group(1)), now))
                self._tail[key.data] = buffer[end + 2 :]

    def settle(self, quiet: float, limit: float) -> None:
        """Wait until no byte arrived for ``quiet`` seconds (at most ``limit``)."""
        deadline = time.monotonic() + limit
        last, since = self.bytes, time.monotonic()
        while time.monotonic() < deadline and time.monotonic() - since < quiet:
            time.sleep(0.2)
            if self.bytes != last:
                last, since = self.bytes, time.monotonic()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        for sock in self.socks:
            sock.close()


# -- phases ----------------------------------------------------------------------------


LOG_SQL = "SELECT seq, team, x, y, changes FROM world_events WHERE world = :w ORDER BY team, seq"
SEQS_SQL = "SELECT team, seq FROM world_events WHERE world = :w ORDER BY team, seq"
SIZES_SQL = (
    "SELECT pg_total_relation_size('world_events'), pg_total_relation_size('world_chunks'),"
    " (SELECT count(*) FROM world_events), (SELECT count(*) FROM world_chunks),"
    " (SELECT coalesce(sum(revealed + flags), 0) FROM world_teams)"
)


def both(times: tuple[list[float], list[float]]) -> str:
    """``wall p50 / p99; CPU p50 / p99`` in ms."""
    return f"{pct(times[0])}; CPU {pct(times[1])}"


def pct3(values: list[float]) -> str:
    """``p50 / p99 / max`` in ms, one decimal."""
    top = max(values, default=float("nan"))
    return f"{pct(values, 1)} / {top:.1f}"


def pct(values: list[float], digits: int = 2) -> str:
    """``p50 / p99``."""
    return f"{percentile(values, 50):.{digits}f} / {percentile(values, 99):.{digits}f}"


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def reveal_times(
    player: Player, samples: int, per_opening: int = 40
) -> tuple[list[float], list[float]]:
    """Server ms of single reveals of provably safe cells; after ``per_opening`` samples the
    player drops far away, so the samples come from frontiers of the size a bot's usually
    is (a judgement's cost grows with the click's component, not with what else is known)."""
    times: list[float] = []
    cpus: list[float] = []
    here = 0
    while len(times) < samples:
        safe, _ = player.provable()
        if not safe or here >= per_opening:
            fx, fy = player.focus
            jump = 100_000 if here >= per_opening else 200
            here = 0
            player.drop(fx + player.rng.randint(-jump, jump), fy + player.rng.randint(-jump, jump))
            continue
        for x, y in safe[: samples - len(times)]:
            before = len(player.requests)
            (result,) = player.moves([{"kind": "reveal", "x": x, "y": y}])
            server = player.requests[before][1]
            if result["outcome"] == "revealed" and result["cells"] and server is not None:
                times.append(server)
                cpus.append(player.conn.cpu or 0.0)
                here += 1
        player.focus = safe[-1]
    return times, cpus


def seed_million(db_url: str, team: str, colour: int) -> int:
    """Write 16x16 full chunks (1,048,576 known cells) of ``team`` far from any play."""
    import sqlalchemy as sa

    rng = random.Random(1)
    engine = sa.create_engine(db_url)
    rows = []
    for cx in range(10_000, 10_016):
        for cy in range(10_000, 10_016):
            cells = bytes(rng.choice(b"0123") for _ in range(4096))
            rows.append({"world": WORLD, "team": team, "layer": colour, "cx": cx, "cy": cy,
                         "cells": cells, "version": 1})  # fmt: skip
    with engine.begin() as conn:
        conn.execute(sa.text(
            "INSERT INTO world_chunks (world, team, layer, cx, cy, cells, version) "
            "VALUES (:world, :team, :layer, :cx, :cy, :cells, :version)"
        ), rows)  # fmt: skip
    engine.dispose()
    return len(rows) * 4096


def view_times(
    conn: Conn, team: str, colour: int, x0: int, y0: int, samples: int
) -> tuple[list[float], list[float]]:
    times: list[float] = []
    cpus: list[float] = []
    for i in range(samples):
        query = f"colour={colour}&x0={x0 + i % 7}&y0={y0}&width=128&height=128"
        status, body, _, server = conn.call("GET", f"/api/worlds/{WORLD}/teams/{team}/view?{query}")
        assert status == 200, body
        if server is not None:
            times.append(server)
            cpus.append(conn.cpu or 0.0)
    return times, cpus


def notify_commit_cost(db_url: str, n: int) -> tuple[float, float]:
    """Microseconds per commit of one small insert, without and with a NOTIFY in it."""
    import psycopg
    import sqlalchemy as sa

    url = sa.make_url(db_url).set(drivername="postgresql").render_as_string(False)
    with psycopg.connect(url) as conn:
        conn.execute("CREATE TEMP TABLE bench_notify (v int)")
        conn.commit()
        costs = {False: 0.0, True: 0.0}
        for i in range(2 * n):  # alternating, so drift in the disk's speed hits both alike
            notify = bool(i % 2)
            started = time.perf_counter()
            conn.execute("INSERT INTO bench_notify VALUES (%s)", (i,))
            if notify:
                conn.execute(
                    "SELECT pg_notify('bench_world_x', %s)", ('{"t":"world:main:x","p":{"s":1}}',)
                )
            conn.commit()
            costs[notify] += time.perf_counter() - started
    return costs[False] / n * 1e6, costs[True] / n * 1e6


def team_head(conn: Conn, team: str) -> int:
    """The seq a view of ``team`` names: where its feed resumes (the team's head; the world's
    before the log was numbered per team, which the team's feed takes as well)."""
    status, body, *_ = conn.call(
        "GET", f"/api/worlds/{WORLD}/teams/{team}/view?colour=0&x0=0&y0=0&width=1&height=1"
    )
    assert status == 200, body
    return int(body["seq"])


def log_numbering(seqs: list[tuple[str, int]]) -> tuple[str, bool]:
    """How the log is numbered (``per team`` or ``per world``) and whether it is gapless so."""
    by_team: dict[str, list[int]] = defaultdict(list)
    for team, seq in seqs:
        by_team[team].append(seq)
    if all(v == list(range(1, len(v) + 1)) for v in by_team.values()):
        return "per team", True
    everything = sorted(seq for _, seq in seqs)
    return "per world", everything == list(range(1, len(everything) + 1))


def app_label(app_root: Path) -> str:
    """The app's checkout and commit, for the tables' titles."""
    done = subprocess.run(
        ["git", "-C", str(app_root), "log", "-1", "--format=%h %s"],
        capture_output=True,
        text=True,
        check=False,
    )
    return f"{app_root} at {done.stdout.strip()[:60] or 'unknown commit'}"


SWEEP_ROWS = (
    "moves/s",
    "raft server p50 / p99",
    "raft client p50 / p99",
    "queue p50 / p99",
    "lock p50 / p99",
    "judge p50 / p99",
    "judgewait p50 / p99",
    "commit p50 / p99",
    "held p50 / p99",
    "seqhold p50 / p99",
    "moves per app CPU-s",
    "moves per PG CPU-s",
    "/healthz p50 / p99",
    "CPU wait s, servers / PG",
    "driver cores (share)",
    "views per raft",
    "lost / dup",
    "load",
)


def sweep_table(summaries: list[dict[str, str]], label: str) -> None:
    """The bots phase side by side, one column per number of app processes (ms)."""
    print(f"\nBots phase by app processes (ms; app: {label})")
    width = max(len(r) for r in SWEEP_ROWS)
    print(
        f"  {'app processes'.ljust(width)}  "
        + "  ".join(s["processes"].rjust(17) for s in summaries)
    )
    for row in SWEEP_ROWS:
        if any(row in s for s in summaries):
            values = "  ".join(s.get(row, "-").rjust(17) for s in summaries)
            print(f"  {row.ljust(width)}  {values}")


# -- main ------------------------------------------------------------------------------


def table(title: str, rows: list[tuple[str, str]]) -> None:
    print(f"\n{title}")
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        print(f"  {name.ljust(width)}  {value}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small, short run")
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--teams", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--watchers", type=int, default=500)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--client-procs", type=int, default=4)
    parser.add_argument(
        "--rate",
        type=float,
        default=500.0,
        help="moves/s the bots offer together (each rests before a raft, Poisson arrivals): "
        "the issue's 500 by default; 0: no rest, the servers saturate and latency is queueing",
    )
    parser.add_argument(
        "--ramp",
        type=float,
        default=5.0,
        help="bots start at random moments over this many seconds; the measurement window "
        "(--seconds) begins after it (0: every bot starts at once, measured from the start)",
    )
    parser.add_argument(
        "--fixed",
        action="store_true",
        help="with --rate: fixed rests instead of exponential ones (Poisson arrivals)",
    )
    parser.add_argument(
        "--phases",
        default="reveal,bots,watchers,costs",
        help="comma-separated subset of reveal,bots,watchers,costs (default: all)",
    )
    parser.add_argument(
        "--nice",
        type=int,
        default=0,
        help="run everything this benchmark starts (PostgreSQL, servers, bots) at this "
        "niceness; below 0 (needs root) measures the servers rather than other jobs of a "
        "shared machine",
    )
    parser.add_argument(
        "--database-url",
        help="an empty PostgreSQL database or schema to use (default: a throwaway server, "
        "a new one for each --processes count)",
    )
    parser.add_argument(
        "--processes",
        default="2",
        help="app processes (one gevent worker each): a number, or a comma-separated sweep "
        "such as 1,2,3 (each on a fresh PostgreSQL; the bots phase is then tabled side by side)",
    )
    parser.add_argument(
        "--pg-statements",
        action="store_true",
        help="load pg_stat_statements into the throwaway PostgreSQL and table the statements "
        "that took its time during bots (calls, execution and planning per call, per move); "
        "tracking costs the server a little, so compare runs that both have it",
    )
    parser.add_argument(
        "--app-root",
        type=Path,
        default=ROOT,
        help="run the servers from this checkout (e.g. a clone of the code before a change; "
        "same Python): compares two versions under the same benchmark",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.bots, args.teams, args.seconds = 20, 4, 5.0
        args.watchers, args.samples, args.client_procs = 40, 30, 2
        args.rate, args.ramp = min(args.rate, 50.0), 1.0  # each bot at the full run's pace

    if args.nice:
        os.setpriority(os.PRIO_PROCESS, 0, args.nice)  # inherited by all it starts
    phases = set(args.phases.split(","))
    if not phases <= {"reveal", "bots", "watchers", "costs"}:
        parser.error(f"--phases {args.phases!r}: choose among reveal,bots,watchers,costs")
    try:
        counts = [int(n) for n in args.processes.split(",")]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        parser.error(f"--processes {args.processes!r}: whole numbers from 1, e.g. 2 or 1,2,3")
    if args.database_url and len(counts) > 1:
        parser.error("--database-url takes one --processes count (a sweep needs fresh databases)")
    label = app_label(args.app_root)
    summaries = []
    for processes in counts:
        with postgres(args.database_url, processes) as (db_url, pgdir):
            if args.pg_statements and pgdir is not None:
                pgstats.enable(db_url, pgdir)
            results, summary = run_once(args, phases, processes, db_url, pgdir)
        table(
            f"Devil World benchmark ({processes} servers x 1 gevent worker, PostgreSQL, "
            f"this machine; app: {label})",
            results,
        )
        summaries.append(summary)
    if "bots" in phases:
        sweep_table(summaries, label)
    return 0


def run_once(
    args: argparse.Namespace, phases: set[str], processes: int, db_url: str, pgdir: Path | None
) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """One benchmark on ``processes`` servers: the rows of its table, and the sweep's row."""
    results: list[tuple[str, str]] = []
    summary: dict[str, str] = {"processes": str(processes)}
    with servers(db_url, processes, args.watchers + 50, args.app_root) as running:
        ports = [s.port for s in running]
        rss_start = [rss_mb(s.process.pid) for s in running]
        load_start = os.getloadavg()[0]
        a = Conn(ports[0])

        if "reveal" in phases:
            # 1-2. reveal and view times, before and after a million known cells
            solo = Player(a, join(a, "solo", "solo", 0), "solo", 0, random.Random(3), side=64)
            solo.drop(0, 0)
            before = reveal_times(solo, args.samples)
            views_play = view_times(a, "solo", 0, solo.focus[0] - 64, solo.focus[1] - 64, 50)
            known = seed_million(db_url, "solo", 0)
            after = reveal_times(solo, args.samples)
            views_million = view_times(a, "solo", 0, 10_000 * 64 + 100, 10_000 * 64 + 100, 50)
            results += [
                ("reveal: server ms p50 / p99 (wall; CPU)", f"{both(before)}  n={len(before[0])}"),
                (f"reveal, team knows {known:,} more", f"{both(after)}  n={len(after[0])}"),
                ("view 128x128 over play", both(views_play)),
                ("view 128x128 over 1M known cells", both(views_million)),
            ]

        if "bots" in phases:
            # 3. bots with one watcher per team
            bots = []
            origins = {}
            for t in range(args.teams):
                team = f"t{t:02d}"
                origins[team] = (t * 100_000 + 5_000_000, 5_000_000)
            for i in range(args.bots):
                team = f"t{i % args.teams:02d}"
                colour = (i // args.teams) % 6
                token = join(Conn(ports[i % len(ports)]), f"bot{i}", team, colour)
                bots.append((token, team, colour, origins[team]))
            # each team's head (a view's seq): the feed's numbers are the team's own
            start = {team: team_head(Conn(ports[0]), team) for team in origins}
            watch = Streams()
            for t, (team, (ox, oy)) in enumerate(origins.items()):
                path = (f"/api/worlds/{WORLD}/teams/{team}/events?colour=0&x0={ox - 128}"
                        f"&y0={oy - 128}&width=256&height=256&after={start[team]}")  # fmt: skip
                watch.open(
                    ports[t % len(ports)], path, t
                )  # from the team's head: a stream served late misses nothing
            watch.start()
            sessions_before = pg_sessions(db_url)
            pg_before = cpu_seconds(postgres_pids(pgdir), with_children=True)
            app_before = sum(cpu_seconds(group_pids(s.process.pid)) for s in running)
            app_pids = [pid for s in running for pid in group_pids(s.process.pid)]
            delay_before = run_delay(app_pids), run_delay(postgres_pids(pgdir))
            if args.pg_statements and pgdir is not None:
                pgstats.reset(db_url)
            # the driver: this process's threads (watchers, probe, sampler) and the bots
            driver_before = time.process_time()
            chunks = [bots[i :: args.client_procs] for i in range(args.client_procs)]
            pace = args.bots / args.rate if args.rate else 0.0
            with (
                Probe(ports) as probe,
                LockSampler(db_url) as sampler,
                multiprocessing.get_context("spawn").Pool(args.client_procs) as pool,
            ):
                start_at = time.monotonic() + 3.0  # the pool's processes are up by then
                window = (start_at + args.ramp, start_at + args.ramp + args.seconds)
                outs = pool.starmap(
                    bot_process,
                    [
                        (ports, chunk, start_at, args.seconds, i, pace, args.ramp, not args.fixed)
                        for i, chunk in enumerate(chunks)
                    ],
                )
            elapsed = time.monotonic() - start_at
            pg_cpu = cpu_seconds(postgres_pids(pgdir), with_children=True) - pg_before
            app_cpu = sum(cpu_seconds(group_pids(s.process.pid)) for s in running) - app_before
            client_cpu = sum(o["cpu"] for o in outs)
            own_cpu = time.process_time() - driver_before
            views_per_raft = sum(o["views"] for o in outs) / max(
                1, sum(len(o["rafts"]) for o in outs)
            )
            driver_cores = (client_cpu + own_cpu) / elapsed
            busy = max(client_cpu + own_cpu + app_cpu + pg_cpu, 1e-9) / elapsed
            app_delay = run_delay(app_pids) - delay_before[0]
            pg_delay = run_delay(postgres_pids(pgdir)) - delay_before[1]
            sessions = pg_sessions(db_url) - sessions_before
            watch.settle(quiet=3.0, limit=60.0)  # a loaded machine delivers late, not never
            watch.close()
            requests = [r for o in outs for r in o["requests"]]
            seqs = [s for o in outs for s in o["seqs"]]
            all_moves = sum(r[2] for r in requests)
            # steady state: rafts sent inside the window (after the ramp)
            rafts = [r for o in outs for r in o["rafts"] if window[0] <= r[0] < window[1]]
            moves = sum(r[2] for r in rafts)
            client_ms = [r[1] * 1e3 for r in rafts]
            server_ms = [r[3]["app"] for r in rafts if "app" in r[3]]
            parts = ("queue", "connect", "read", "lock", "judge", "judgewait", "work", "commit",
                     "seqhold")  # fmt: skip
            breakdown = {k: [r[3][k] for r in rafts if k in r[3]] for k in parts}
            # the team's row is held from taking it to the commit seen, on every version
            breakdown["held"] = [r[3]["work"] + r[3]["commit"] for r in rafts
                                 if "work" in r[3] and "commit" in r[3]]  # fmt: skip
            breakdown = {k: v for k, v in breakdown.items() if v}  # seqhold: world-wide seqs
            # the log: gapless, every acknowledged move once; the watchers: each event once
            import sqlalchemy as sa

            engine = sa.create_engine(db_url)
            with engine.connect() as conn:
                log = [
                    row
                    for row in conn.execute(sa.text(LOG_SQL), {"w": WORLD})
                    if row[0] > start.get(row[1], 0)
                ]
                all_seqs = [
                    (str(t), int(q)) for t, q in conn.execute(sa.text(SEQS_SQL), {"w": WORLD})
                ]
            engine.dispose()
            numbering, gapless = log_numbering(all_seqs)
            dup_ack = len(seqs) - len(set(seqs))
            missing_ack = len(set(seqs) - {(r[1], r[0]) for r in log})
            expected: dict[int, list[int]] = defaultdict(list)
            teams = list(origins)
            for seq, team, x, y, changes in log:
                if not changes or team not in origins:
                    continue
                ox, oy = origins[team]
                t = teams.index(team)
                cells = json.loads(changes)
                # watcher t sees board 0: events of colour 0 and flags of any colour
                if any(
                    0 <= x + dx - (ox - 128) < 256 and 0 <= y + dy - (oy - 128) < 256
                    for dx, dy, _ in cells
                ):
                    expected[t].append(seq)
            dup = extra = 0
            for t in range(len(teams)):
                got = Counter(s for s, _ in watch.seen.get(t, []))
                dup += sum(c - 1 for c in got.values() if c > 1)
                extra += len(set(got) - set(expected[t]))
            results += [
                (
                    f"bots: {args.bots} players in {args.teams} teams, "
                    + (
                        f"offering {args.rate:.0f} moves/s ({'fixed' if args.fixed else 'Poisson'}"
                        " rests)"
                        if args.rate
                        else "no rest"
                    )
                    + f", starts spread over {args.ramp:g} s, measured {args.seconds:g} s after",
                    f"{moves / args.seconds:.0f} moves/s ({moves} moves in {len(rafts)} rafts, "
                    f"{moves / max(1, len(rafts)):.1f}/raft)",
                ),
                ("bots: raft client ms p50 / p99 / max", pct3(client_ms)),
                ("bots: raft server ms p50 / p99 / max", pct3(server_ms)),
                *[(f"  server {k} ms p50 / p99 / max", pct3(v)) for k, v in breakdown.items()],
                (
                    "PG backends: running / waiting for a lock / idle in transaction",
                    sampler.summary(),
                ),
                (
                    "PG backends by wait event (average)",
                    ", ".join(
                        f"{k} {v / max(1, sampler.samples):.2f}"
                        for k, v in sampler.events.most_common(8)
                    ),
                ),
                ("PostgreSQL connections opened during bots", str(sessions)),
                (
                    "waiting for a CPU (run-queue delay): servers / PostgreSQL",
                    f"{app_delay:.1f} s / {pg_delay:.1f} s in {elapsed:.1f} s",
                ),
                ("GET /healthz ms during bots (event loop lag) p50 / p99 / max", pct3(probe.times)),
                (
                    "driver CPU: bots + this process (watchers, probe, sampler)",
                    f"{client_cpu:.1f} + {own_cpu:.1f} s in {elapsed:.1f} s = "
                    f"{driver_cores:.2f} cores, {driver_cores / busy:.0%} of the "
                    f"{busy:.2f} cores used by driver, servers and PostgreSQL",
                ),
                ("bots: devil errors", str(sum(o["errors"] for o in outs))),
                ("bots: views refused (429, retried)", str(sum(o["refused"] for o in outs))),
                (
                    "bots: views read per raft (2: none behind its schedule)",
                    f"{views_per_raft:.2f}",
                ),
                (
                    "bots: rafts judged again in the lock (the team moved meanwhile)",
                    f"{sum(1 for r in rafts if 'again' in r[3])} of {len(rafts)}",
                ),
                (
                    "log: gapless / acknowledged missing / dup",
                    f"{gapless} / {missing_ack} / {dup_ack}",
                ),
                ("log: numbered", numbering),
                ("watchers (1 per team): duplicated / not in log", f"{dup} / {extra}"),
                (
                    "PostgreSQL CPU during bots",
                    f"{pg_cpu:.1f} s = {all_moves / max(pg_cpu, 1e-9):.0f} moves per PG CPU-second",
                ),
                (
                    f"app CPU during bots ({processes} servers)",
                    f"{app_cpu:.1f} s = {app_cpu / max(all_moves, 1) * 1e3:.2f} ms per move = "
                    f"{all_moves / max(app_cpu, 1e-9):.0f} moves per app CPU-second",
                ),
            ]
            if args.pg_statements and pgdir is not None:
                results.append(("PG statements during bots (pg_stat_statements)", "by time"))
                results += pgstats.top(db_url, all_moves)
            waited = f"{app_delay:.1f} / {pg_delay:.1f} in {elapsed:.0f}"
            summary.update(
                {
                    "moves/s": f"{moves / args.seconds:.0f}",
                    "raft server p50 / p99": pct(server_ms, 1),
                    "raft client p50 / p99": pct(client_ms, 1),
                    **{f"{k} p50 / p99": pct(v, 1) for k, v in breakdown.items() if k != "work"},
                    "moves per app CPU-s": f"{all_moves / max(app_cpu, 1e-9):.0f}",
                    "moves per PG CPU-s": f"{all_moves / max(pg_cpu, 1e-9):.0f}",
                    "/healthz p50 / p99": pct(probe.times, 1),
                    "CPU wait s, servers / PG": waited,
                    "driver cores (share)": f"{driver_cores:.2f} ({driver_cores / busy:.0%})",
                    "views per raft": f"{views_per_raft:.2f}",
                    "lost / dup": f"{missing_ack} / {dup_ack}",
                }
            )
            # watcher completeness: a stream only sends events with visible cells (board 0 of the
            # viewport); compare with the log's events of colour 0 inside it
            complete = check_watchers(db_url, start, origins, watch)
            results.append(("watchers (1 per team): log events not received", str(complete)))
            # the same viewports read again from the log (Last-Event-ID resume): the live
            # streams must have had exactly these
            replay = Streams()
            for t, (team, (ox, oy)) in enumerate(origins.items()):
                path = (f"/api/worlds/{WORLD}/teams/{team}/events?colour=0&x0={ox - 128}"
                        f"&y0={oy - 128}&width=256&height=256&after={start[team]}")  # fmt: skip
                replay.open(ports[(t + 1) % len(ports)], path, t)
            replay.start()
            replay.settle(quiet=2.0, limit=60.0)
            replay.close()
            # only events of board 0's own colour: another colour's flag shows as "*" unless the
            # cell is a number on board 0 *when the feed reads it*, so a later read may skip it
            own = own_colour_seqs(db_url, start)
            differ = sum(
                {s for s, _ in replay.seen.get(t, [])} & own[team]
                != {s for s, _ in watch.seen.get(t, [])} & own[team]
                for t, team in enumerate(origins)
            )
            results.append(("watchers (1 per team): live != resumed feed", f"{differ} teams"))

        if "watchers" in phases:
            # 4. many watchers of one team
            hot = Player(
                Conn(ports[0]),
                join(Conn(ports[0]), "hot", "hot", 0),
                "hot",
                0,
                random.Random(9),
                side=64,
            )
            hot.drop(-5_000_000, 0)
            fx, fy = hot.focus
            many = Streams()
            box = f"x0={fx - 128}&y0={fy - 128}&width=256&height=256"
            head = team_head(Conn(ports[0]), "hot")
            path = f"/api/worlds/{WORLD}/teams/hot/events?colour=0&{box}&after={head}"
            for i in range(args.watchers):
                many.open(ports[i % len(ports)], path, i)
            many.start()
            time.sleep(2.0)
            opened_bytes = many.bytes
            sent: dict[int, float] = {}
            for _ in range(40):
                safe, _ = hot.provable()
                if not safe:
                    hot.drop(fx + random.randint(-100, 100), fy + random.randint(-100, 100))
                    continue
                x, y = safe[0]
                t0 = time.monotonic()
                (result,) = hot.moves([{"kind": "reveal", "x": x, "y": y}])
                if result["cells"] and all(
                    abs(cx - fx) < 128 and abs(cy - fy) < 128 for cx, cy, _ in result["cells"][:1]
                ):
                    sent[result["seq"]] = t0
                hot.focus = (x, y)
                time.sleep(0.25)
            many.settle(quiet=3.0, limit=60.0)
            many.close()
            latencies = []
            delivered = 0
            for i in range(args.watchers):
                arrivals = dict(many.seen.get(i, []))
                for seq, t0 in sent.items():
                    if seq in arrivals:
                        delivered += 1
                        latencies.append((arrivals[seq] - t0) * 1e3)
            events_n = max(1, len(sent))
            results += [
                (
                    f"watchers: {args.watchers} streams on one team, {len(sent)} moves",
                    f"delivered {delivered}/{len(sent) * args.watchers}",
                ),
                (
                    "watchers: streams answered 200 (others: their statuses)",
                    f"{sum(c == '200' for c in many.status.values())}/{args.watchers} "
                    f"{sorted(c for c in many.status.values() if c != '200')[:5]}",
                ),
                (
                    "watchers: latency ms p50 / p99 / max",
                    f"{pct(latencies, 1)} / {max(latencies, default=float('nan')):.1f}",
                ),
                (
                    "watchers: bytes per event per watcher",
                    f"{(many.bytes - opened_bytes) / events_n / args.watchers:.0f}",
                ),
            ]

        if "costs" in phases:
            # 5. storage and commit costs
            import sqlalchemy as sa

            engine = sa.create_engine(db_url)
            with engine.connect() as conn:
                sizes = conn.execute(sa.text(SIZES_SQL)).one()
            engine.dispose()
            ev_bytes, ch_bytes, ev_count, ch_count, known_cells = sizes
            plain, notified = notify_commit_cost(db_url, 2000)
            results += [
                (
                    "storage: events (table + index)",
                    f"{ev_bytes / 1e6:.1f} MB / {ev_count} events = "
                    f"{ev_bytes / max(ev_count, 1):.0f} B/move",
                ),
                (
                    "storage: chunks (table + index + TOAST)",
                    f"{ch_bytes / 1e6:.1f} MB / {ch_count} chunks = "
                    f"{ch_bytes / max(ch_count, 1):.0f} B/chunk",
                ),
                ("storage: cells known by teams (counters)", f"{known_cells}"),
                ("commit us: plain / with NOTIFY", f"{plain:.0f} / {notified:.0f}"),
            ]
        rss_end = [rss_mb(s.process.pid) for s in running]
        change = [f"{s:.0f} -> {e:.0f}" for s, e in zip(rss_start, rss_end, strict=True)]
        results.append(("RSS MB per server: start -> end", ", ".join(change)))
        results.append(
            (
                "machine load average (1 min): start, end",
                f"{load_start:.1f}, {os.getloadavg()[0]:.1f}",
            )
        )
    summary["load"] = results[-1][1]
    return results, summary


def pg_sessions(db_url: str) -> int:
    """Connections PostgreSQL has opened so far (``pg_stat_database.sessions``, all
    databases; the statistics lag by up to half a second)."""
    import sqlalchemy as sa

    engine = sa.create_engine(db_url)
    with engine.connect() as conn:
        total = conn.execute(sa.text("SELECT sum(sessions) FROM pg_stat_database")).scalar()
    engine.dispose()
    return int(total or 0)


def own_colour_seqs(db_url: str, start: dict[str, int]) -> dict[str, set[int]]:
    """Per team, seqs of colour-0 events after ``start[team]`` (deterministic on board 0's
    feeds)."""
    import sqlalchemy as sa

    engine = sa.create_engine(db_url)
    found: dict[str, set[int]] = {team: set() for team in start}
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text("SELECT team, seq FROM world_events WHERE world = :w AND colour = 0"),
            {"w": WORLD},
        )
        for team, seq in rows:
            if team in start and seq > start[team]:
                found[team].add(int(seq))
    engine.dispose()
    return found


def check_watchers(
    db_url: str, start: dict[str, int], origins: dict[str, tuple[int, int]], watch: Streams
) -> int:
    """Events of the log a team watcher (board 0, 256x256 at the team's origin, from the
    team's head ``start[team]``) should have received and did not."""
    import sqlalchemy as sa

    engine = sa.create_engine(db_url)
    with engine.connect() as conn:
        rows = conn.execute(sa.text(
            "SELECT seq, team, colour, x, y, changes FROM world_events "
            "WHERE world = :w AND changes IS NOT NULL ORDER BY team, seq"),
            {"w": WORLD}).all()  # fmt: skip
    engine.dispose()
    teams = list(origins)
    lost = 0
    for seq, team, colour, x, y, changes in rows:
        if team not in origins or seq <= start[team]:
            continue
        ox, oy = origins[team]
        visible = [
            s for dx, dy, s in json.loads(changes)
            if 0 <= x + dx - (ox - 128) < 256 and 0 <= y + dy - (oy - 128) < 256
            and colour == 0  # see own_colour_seqs
        ]  # fmt: skip
        if not visible:
            continue
        got = {s for s, _ in watch.seen.get(teams.index(team), [])}
        if seq not in got:
            lost += 1
    return lost


if __name__ == "__main__":
    raise SystemExit(main())
