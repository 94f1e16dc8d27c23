"""Web benchmark: the real server (``mine-devil``: gunicorn + gevent) on loopback, driven
through the JSON API by concurrent players who click only cells the engine proves safe.

    .venv/bin/python bench/bench_web.py                     # default scenarios, prints tables
    .venv/bin/python bench/bench_web.py --players 50 --duration 20 --think 0.1:0.4
    .venv/bin/python bench/bench_web.py --url http://127.0.0.1:8000   # an already running server

Scenarios (each bounded by --duration seconds and --max-clicks clicks):
- ``players``: every player waits a random think time (--think, seconds) between clicks, like
  people do, and players join over the first --ramp seconds (50 players do not all start a
  game in the same millisecond); the latency targets (median < 10 ms, p99 < 30 ms) apply here.
- ``saturation``: no think time; every player clicks as fast as the server answers. This
  measures the most requests per second the machine serves; latency then is mostly queueing.

Each player: ``POST /api/games`` (expert, no-guess, classic, strict), the first reveal in the
middle (always safe; the server draws the layout then), then reveals the cells that
``devil.solver.classify`` proves safe on the visible board until the game is won; then a new
game. A loss would mean the engine is wrong, so losses are counted and reported.
Clients run in several processes (threads inside) so the client's own GIL does not inflate
the latency it measures; they share the 2 cores with the server, as real load would not.

Rows: ``create`` (POST /api/games), ``first reveal`` (the click that draws the no-guess
layout: the heavy one), ``reveal`` (every later click: the ordinary click the targets are
about) and ``reveal, quiet`` (the reveals during which no game was being created or
first revealed anywhere).

Then the server CPU each kind of request costs, measured one request at a time on the
warmed-up, quiet again server (``cost``), and last the size of a click's response on a
100x100 board (JSON API and the browser's htmx answer).

``--app-root DIR`` serves another checkout of the project (e.g. ``git archive <commit>``
unpacked in a temp dir) with this benchmark, for before/after numbers.
"""

from __future__ import annotations

import argparse
import http.client
import http.cookiejar
import json
import multiprocessing
import os
import random
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from devil.board import Topology  # noqa: E402
from devil.position import Position  # noqa: E402

SECRET_KEYS = {"layout", "witness", "loss"}  # only once the game has ended
TARGET_MEDIAN_MS = 10.0
TARGET_P99_MS = 30.0


# -- results ---------------------------------------------------------------------------


@dataclass
class Sample:
    kind: str  # "create", "first reveal", "reveal"
    seconds: float
    status: int
    size: int
    done: float  # time.time() when the answer was read


@dataclass
class PlayerLog:
    samples: list[Sample] = field(default_factory=list)
    outcomes: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Server:
    base: str
    group: int | None  # process group of a server we started (for its CPU time)
    log: Path | None = None  # its output
    data: Path | None = None  # its data directory (a server we started)

    def log_tail(self, lines: int = 25) -> str:
        if self.log is None or not self.log.exists():
            return "(no server log)"
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


@dataclass(frozen=True)
class Run:
    logs: list[PlayerLog]
    seconds: float  # from the first request sent to the last answer read
    client_cpu: float
    server_cpu: float | None


@dataclass(frozen=True)
class Scenario:
    name: str
    players: int
    think: tuple[float, float]
    duration: float
    max_clicks: int
    game: tuple[int, int, int] = (30, 16, 99)  # width, height, mines: expert
    ramp: float = 0.0  # players join at random times in the first `ramp` seconds


# -- the server ------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_until_up(base: str, process: subprocess.Popen[bytes] | None, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    last = "no answer"
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise SystemExit(f"the server exited with status {process.returncode} while starting")
        conn = connect(base)
        try:
            status, _, _ = request(conn, "GET", "/healthz")
            if status == 200:
                return
            last = f"GET /healthz answered {status}"
        except (OSError, http.client.HTTPException) as error:
            last = str(error)
        finally:
            conn.close()
        time.sleep(0.2)
    raise SystemExit(f"the server at {base} did not come up in {timeout:.0f} s ({last})")


def server_command(
    how: str, port: int, data: str, extra_args: list[str], app_root: Path = ROOT
) -> list[str]:
    """``mine-devil`` (the project's command), or gunicorn run directly with the gevent worker.

    With another ``app_root`` the server runs from that directory (``python -m app.serve``:
    the current directory comes first on ``sys.path``, so its ``app`` package is served)."""
    bindir = str(Path(sys.executable).parent)
    if how == "module" or (how == "mine-devil" and app_root.resolve() != ROOT):
        return [
            sys.executable, "-m", "app.serve", "--host", "127.0.0.1", "--port", str(port),
            "--data", data, *extra_args,
        ]  # fmt: skip
    if how == "mine-devil":
        command = shutil.which("mine-devil", path=bindir)
        if command is None:
            raise SystemExit(
                "mine-devil is not installed next to this Python: pip install -e .[web]"
            )
        return [command, "--host", "127.0.0.1", "--port", str(port), "--data", data, *extra_args]
    return [
        sys.executable, "-m", "gunicorn", "--worker-class", "gevent", "--workers", "2",
        "--bind", f"127.0.0.1:{port}", "--log-level", "warning", *extra_args, "app:create_app()",
    ]  # fmt: skip


@contextmanager
def running_server(
    how: str,
    extra_args: list[str],
    app_root: Path = ROOT,
    env: dict[str, str] | None = None,
    prefix: str = "mine-devil-bench-",
    keep_log: str | None = None,
    timeout: float = 60.0,
) -> Iterator[Server]:
    """Start the server (``server_command``: ``module`` is ``python -m app.serve`` of
    ``app_root``) on a free loopback port with a temp data dir, rate limits off unless
    ``env`` says otherwise; stop it after. Its log is printed if it failed or holds a
    traceback or a worker timeout, and copied to ``keep_log`` if given."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix=prefix) as data:
        environ = {**os.environ, "MINE_DEVIL_RATELIMIT": "0", "MINE_DEVIL_DATA": data}
        environ.update(env or {})
        args = server_command(how, port, data, extra_args, app_root)
        log_path = Path(data) / "server.log"
        with open(log_path, "wb") as log:
            process = subprocess.Popen(
                args,
                cwd=app_root,
                env=environ,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            base = f"http://127.0.0.1:{port}"
            print(f"server: {' '.join(args)} (in {app_root})", file=sys.stderr)
            try:
                wait_until_up(base, process, timeout=timeout)
                yield Server(base, process.pid, log_path, Path(data))
            finally:
                stop(process)
                text = log_path.read_text(errors="replace")
                if keep_log:
                    Path(keep_log).write_text(text)
                failed = process.returncode not in (0, -signal.SIGTERM)
                if failed or "Traceback" in text or "WORKER TIMEOUT" in text:
                    print(
                        f"server exited {process.returncode}; log (tail):\n{text[-3000:]}",
                        file=sys.stderr,
                    )


def group_cpu_seconds(group: int, parent: int | None = None) -> float:
    """User + system CPU seconds of the live processes in a process group (Linux /proc);
    with ``parent``, only of its children in the group (a gunicorn master's workers)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue  # the process ended meanwhile
        ppid, pgrp = int(fields[1]), int(fields[2])  # after "(comm)": state, ppid, pgrp, ...
        if pgrp == group and (parent is None or ppid == parent):
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


def children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the server's process group (gunicorn master and its workers), then SIGKILL."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=15)


# -- HTTP ------------------------------------------------------------------------------


def connect(base: str) -> http.client.HTTPConnection:
    url = urllib.parse.urlsplit(base)
    return http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port or 80, timeout=60)


def request(
    conn: http.client.HTTPConnection,
    method: str,
    path: str,
    body: dict[str, Any] | None = None,
    token: str | None = None,
) -> tuple[int, bytes, float]:
    """(status, body, seconds) for one request on a keep-alive connection."""
    headers = {"Accept": "application/json"}
    payload = None
    if body is not None:
        payload = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    start = time.perf_counter()
    conn.request(method, path, body=payload, headers=headers)
    response = conn.getresponse()
    data = response.read()
    return response.status, data, time.perf_counter() - start


def state_of(data: bytes) -> dict[str, Any]:
    """The game state in an answer: the body itself, or its ``state`` key (create)."""
    value = json.loads(data)
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, got {type(value).__name__}")
    state = value["state"] if "state" in value and "board" not in value else value
    if not isinstance(state, dict):
        raise ValueError("the state is not a JSON object")
    return state


# -- a player --------------------------------------------------------------------------


def safe_cells(state: dict[str, Any]) -> list[tuple[int, int]]:
    """Covered cells the engine proves safe on the visible board, in reading order."""
    from devil.solver import classify

    rows: list[str] = state["board"]
    position = Position.from_rows(rows, Topology.SQUARE, state.get("mines"))
    width = position.board.width
    return sorted(divmod(cell, width) for cell in classify(position).safe_cells())


class Player:
    def __init__(self, base: str, scenario: Scenario, seed: int, deadline: float) -> None:
        self.base = base
        self.scenario = scenario
        self.rng = random.Random(seed)
        self.deadline = deadline
        self.log = PlayerLog()
        self.conn = connect(base)

    def call(
        self, kind: str, method: str, path: str, body: dict[str, Any] | None, token: str | None
    ) -> tuple[int, bytes]:
        try:
            status, data, seconds = request(self.conn, method, path, body, token)
        except (http.client.HTTPException, ConnectionError):
            self.conn.close()  # the server closed the keep-alive connection: reconnect once
            self.conn = connect(self.base)
            status, data, seconds = request(self.conn, method, path, body, token)
        self.log.samples.append(Sample(kind, seconds, status, len(data), time.time()))
        return status, data

    def think(self) -> None:
        low, high = self.scenario.think
        if high > 0:
            time.sleep(self.rng.uniform(low, high))

    def play(self, clicks_left: Budget) -> PlayerLog:
        try:
            if self.scenario.ramp > 0:
                time.sleep(self.rng.uniform(0, self.scenario.ramp))
            while time.monotonic() < self.deadline and clicks_left.take():
                self.log.outcomes[self.play_one_game(clicks_left)] += 1
        except Exception as error:  # a benchmark reports, it does not crash mid-table
            self.log.errors.append(f"{type(error).__name__}: {error}")
        finally:
            self.conn.close()
        return self.log

    def play_one_game(self, clicks_left: Budget) -> str:
        width, height, mines = self.scenario.game
        game = {"width": width, "height": height, "mines": mines}
        game |= {"no_guess": True, "seed": self.rng.randrange(2**31)}
        status, data = self.call("create", "POST", "/api/games", game, None)
        if status != 201:
            return f"create answered {status}"
        created = json.loads(data)
        game_id, token = created["id"], created["token"]
        path = f"/api/games/{game_id}/reveal"
        self.think()
        middle = {"row": height // 2, "col": width // 2}
        status, data = self.call("first reveal", "POST", path, middle, token)
        if status != 200:
            return f"reveal answered {status}"
        state = state_of(data)
        queue: list[tuple[int, int]] = []
        while state["status"] == "playing":
            if time.monotonic() >= self.deadline or not clicks_left.take():
                return "unfinished"
            queue = [(r, c) for r, c in queue if state["board"][r][c] == "."]
            if not queue:
                queue = safe_cells(state)
                if not queue:
                    return "stuck (no safe cell on a no-guess board)"
            row, col = queue.pop(0)
            self.think()
            status, data = self.call("reveal", "POST", path, {"row": row, "col": col}, token)
            if status != 200:
                return f"reveal answered {status}"
            state = state_of(data)
            if state["status"] == "playing" and SECRET_KEYS & state.keys():
                return f"LEAK: a running game's state has {sorted(SECRET_KEYS & state.keys())}"
        return str(state["status"])


class Budget:
    """A click budget shared by the threads of one process."""

    def __init__(self, clicks: int) -> None:
        self.left = clicks
        self.lock = threading.Lock()

    def take(self) -> bool:
        with self.lock:
            if self.left <= 0:
                return False
            self.left -= 1
            return True


def run_client_process(
    base: str, scenario: Scenario, seeds: list[int], deadline_in: float, clicks: int
) -> list[PlayerLog]:
    """One client process: one thread per player; the deadline is relative to its start."""
    deadline = time.monotonic() + deadline_in
    budget = Budget(clicks)
    players = [Player(base, scenario, seed, deadline) for seed in seeds]
    logs: list[PlayerLog] = [PlayerLog() for _ in players]

    def run(index: int) -> None:
        logs[index] = players[index].play(budget)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(players))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return logs


def run_scenario(server: Server, scenario: Scenario, processes: int) -> Run:
    base = server.base
    processes = max(1, min(processes, scenario.players))
    seeds = list(range(scenario.players))
    groups = [seeds[i::processes] for i in range(processes)]
    clicks = [scenario.max_clicks * len(g) // scenario.players for g in groups]
    context = multiprocessing.get_context("spawn")
    client_before = children_cpu_seconds()
    server_before = None if server.group is None else group_cpu_seconds(server.group)
    with context.Pool(processes) as pool:
        results = pool.starmap(
            run_client_process,
            [
                (base, scenario, group, scenario.duration, n)
                for group, n in zip(groups, clicks, strict=True)
            ],
        )
    server_cpu = None if server.group is None else group_cpu_seconds(server.group)
    if server_cpu is not None and server_before is not None:
        server_cpu -= server_before
    client_cpu = children_cpu_seconds() - client_before  # pool workers are reaped by now
    logs = [log for group_logs in results for log in group_logs]
    samples = [s for log in logs for s in log.samples]
    window = 0.0
    if samples:
        window = max(s.done for s in samples) - min(s.done - s.seconds for s in samples)
    return Run(logs, window, client_cpu, server_cpu)


# -- server CPU per kind of request ------------------------------------------------------


@dataclass(frozen=True)
class Cost:
    kind: str
    count: int
    cpu_ms: float  # server CPU per request (all processes of the server)
    median_ms: float  # wall time per request, alone


def request_costs(server: Server, games: int = 20, clicks: int = 400) -> list[Cost]:
    """Server CPU per request of each kind, one request at a time on an otherwise quiet
    server (CPU read from /proc for the server's process group around each phase)."""
    if server.group is None:
        return []
    group = server.group
    conn = connect(server.base)
    rng = random.Random(2026)
    made: list[tuple[str, str]] = []
    states: dict[str, dict[str, Any]] = {}
    times: dict[str, list[float]] = {"create": [], "first reveal": [], "reveal": []}
    cpu: dict[str, float] = {}

    def phase(kind: str, work: Any) -> None:
        start = group_cpu_seconds(group)
        work()
        cpu[kind] = group_cpu_seconds(group) - start

    def create() -> None:
        for _ in range(games):
            game = {"no_guess": True, "seed": rng.randrange(2**31)}
            status, data, seconds = request(conn, "POST", "/api/games", game)
            if status == 201:
                body = json.loads(data)
                made.append((body["id"], body["token"]))
                times["create"].append(seconds)

    def first() -> None:
        for game_id, token in made:
            path = f"/api/games/{game_id}/reveal"
            status, data, seconds = request(conn, "POST", path, {"row": 8, "col": 15}, token)
            if status == 200:
                states[game_id] = state_of(data)
                times["first reveal"].append(seconds)

    def later() -> None:
        queues = {game_id: safe_cells(state) for game_id, state in states.items()}
        tokens = dict(made)
        while len(times["reveal"]) < clicks and queues:
            for game_id in list(queues):
                board = states[game_id]["board"]
                queue = [(r, c) for r, c in queues[game_id] if board[r][c] == "."]
                if not queue and states[game_id]["status"] == "playing":
                    queue = safe_cells(states[game_id])
                if not queue or states[game_id]["status"] != "playing":
                    del queues[game_id]
                    continue
                (row, col), queues[game_id] = queue[0], queue[1:]
                path = f"/api/games/{game_id}/reveal"
                body = {"row": row, "col": col}
                status, data, seconds = request(conn, "POST", path, body, tokens[game_id])
                if status != 200:
                    del queues[game_id]
                    continue
                states[game_id] = state_of(data)
                times["reveal"].append(seconds)

    # The client's own work (the solver picking safe cells) runs between requests in this
    # process, not in the server, so it does not count.
    phase("create", create)
    phase("first reveal", first)
    phase("reveal", later)
    conn.close()
    return [
        Cost(
            kind,
            len(times[kind]),
            cpu[kind] / len(times[kind]) * 1000,
            statistics.median(times[kind]) * 1000,
        )
        for kind in ("create", "first reveal", "reveal")
        if times[kind]
    ]


class Browser:
    """A browser's session on one keep-alive connection: cookies, CSRF token, form posts
    (redirects followed) and htmx requests."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.conn = connect(base)
        self.cookies: dict[str, str] = {}
        self.token = ""

    def _send(
        self, method: str, path: str, body: bytes | None, headers: dict[str, str]
    ) -> http.client.HTTPResponse:
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, body=body, headers=headers)
                return self.conn.getresponse()
            except (http.client.HTTPException, ConnectionError):
                self.conn.close()  # the server closed the idle connection: reconnect once
                self.conn = connect(self.base)
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def fetch(
        self, path: str, form: dict[str, str] | None = None, htmx: bool = False
    ) -> tuple[int, str, bytes, float]:
        """(status, final path, body, seconds); a page's csrf-token is kept for later posts."""
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        if htmx:
            headers |= {"HX-Request": "true", "X-CSRFToken": self.token}
        start = time.perf_counter()
        response = self._send("POST" if form is not None else "GET", path, body, headers)
        data = response.read()
        seconds = time.perf_counter() - start
        for cookie in response.headers.get_all("Set-Cookie") or []:
            name, _, value = cookie.split(";", 1)[0].partition("=")
            self.cookies[name.strip()] = value.strip()
        location = response.headers.get("Location")
        if response.status in (301, 302, 303) and location:
            return self.fetch(urllib.parse.urlsplit(location).path)
        found = re.search(rb'name="csrf-token" content="([^"]+)"', data)
        if found is not None:
            self.token = found.group(1).decode()
        return response.status, path, data, seconds

    def new_game(self, fields: dict[str, str]) -> tuple[str, bytes]:
        """Create a game with the home page's form; (game id, its page)."""
        if not self.token:
            self.fetch("/")
        if not self.token:
            raise ValueError("no csrf-token meta tag on the home page")
        status, path, page, _ = self.fetch("/new", {"csrf_token": self.token, **fields})
        if status != 200:
            raise ValueError(f"creating a game from the form answered {status}")
        return path.rstrip("/").rsplit("/", 1)[-1], page

    def click(self, game_id: str, row: int, col: int) -> tuple[int, float]:
        """(status, seconds) of an htmx click (``open``) on a cell."""
        move = {"csrf_token": self.token, "kind": "open", "at": f"{row},{col}"}
        status, _, _, seconds = self.fetch(f"/g/{game_id}/move", move, htmx=True)
        return status, seconds

    def close(self) -> None:
        self.conn.close()


def browser_costs(server: Server, games: int = 10, clicks: int = 200) -> list[Cost]:
    """Server CPU of a browser's htmx clicks (the page's own move route) on expert
    no-guess games: the first click of each game, then cells the solver proves safe on
    the board read once per game before the measured window (a cell a cascade opened
    meanwhile answers 409; those requests count too). One keep-alive connection, like a
    browser's."""
    if server.group is None:
        return []
    group = server.group
    browser = Browser(server.base)
    rng = random.Random(7)
    made = []
    for _ in range(games):
        fields = {"preset": "expert", "seed": str(rng.randrange(2**31)), "topology": "square"}
        fields["no_guess"] = "on"  # a checkbox: absent means off
        made.append(browser.new_game(fields)[0])
    firsts: list[float] = []
    start = group_cpu_seconds(group)
    for game_id in made:
        status, seconds = browser.click(game_id, 8, 15)
        if status != 200:
            raise ValueError(f"an htmx first click answered {status}")
        firsts.append(seconds)
    first_cpu = group_cpu_seconds(group) - start
    conn = connect(server.base)
    plan: list[tuple[str, int, int]] = []
    for game_id in made:
        status, data, _ = request(conn, "GET", f"/api/games/{game_id}")
        if status == 200:
            cells = safe_cells(state_of(data))[: max(1, clicks // games)]
            plan += [(game_id, row, col) for row, col in cells]
    conn.close()
    times: list[float] = []
    start = group_cpu_seconds(group)
    for game_id, row, col in plan:
        status, seconds = browser.click(game_id, row, col)
        if status == 200:  # else 409: an earlier cascade opened the cell
            times.append(seconds)
    click_cpu = group_cpu_seconds(group) - start
    browser.close()
    costs = [Cost("htmx 1st click", len(firsts), first_cpu / len(firsts) * 1000,
                  statistics.median(firsts) * 1000)]  # fmt: skip
    if times:
        costs.append(Cost("htmx click", len(plan), click_cpu / len(plan) * 1000,
                          statistics.median(times) * 1000))  # fmt: skip
    return costs


def print_costs(costs: list[Cost]) -> None:
    print("\n## cost: server CPU per request, one request at a time on a quiet server")
    print(f"{'request':<14} {'count':>6} {'CPU ms':>8} {'alone ms':>9}")
    for cost in costs:
        print(f"{cost.kind:<14} {cost.count:>6} {cost.cpu_ms:>8.2f} {cost.median_ms:>9.2f}")
    print("(CPU ms: the server's processes' user+system time / requests, /proc ticks;")
    print(" alone ms: median wall time of one request with nothing else running;")
    print(" htmx rows: a browser's clicks on expert games through the page's move route)")


# -- the 100x100 response size -----------------------------------------------------------


def response_sizes(base: str) -> list[tuple[str, int]]:
    conn = connect(base)
    game = {"width": 100, "height": 100, "mines": 1500, "no_guess": False, "seed": 7}
    status, data, _ = request(conn, "POST", "/api/games", game)
    if status != 201:
        return [(f"create 100x100 answered {status}", len(data))]
    created = json.loads(data)
    path = f"/api/games/{created['id']}/reveal"
    sizes = [("create (201, whole state)", len(data))]
    status, data, _ = request(conn, "POST", path, {"row": 50, "col": 50}, created["token"])
    sizes.append((f"first reveal ({status})", len(data)))
    if status == 200:
        cells = safe_cells(state_of(data))
        if cells:
            row, col = cells[len(cells) // 2]
            body = {"row": row, "col": col}
            status, data, _ = request(conn, "POST", path, body, created["token"])
            sizes.append((f"a later safe reveal ({status})", len(data)))
    conn.close()
    return sizes


def html_response_sizes(base: str) -> list[tuple[str, int]]:
    """The browser's side: the full game page, and what an htmx click answers (only the
    cells that changed, as out-of-band swaps) on the same 100x100 board."""
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
    )

    def fetch(path: str, form: dict[str, str] | None = None, htmx: str = "") -> tuple[str, bytes]:
        data = None if form is None else urllib.parse.urlencode(form).encode()
        req = urllib.request.Request(base + path, data=data)
        if htmx:
            req.add_header("HX-Request", "true")
            req.add_header("X-CSRFToken", htmx)
        with opener.open(req, timeout=60) as response:
            return response.geturl(), response.read()

    def csrf(page: bytes) -> str:
        found = re.search(rb'name="csrf-token" content="([^"]+)"', page)
        if found is None:
            raise ValueError("no csrf-token meta tag on the page")
        return found.group(1).decode()

    _, home = fetch("/")
    form = {"csrf_token": csrf(home), "preset": "custom", "width": "100", "height": "100"}
    form |= {"mines": "1500", "seed": "7", "topology": "square"}
    url, page = fetch("/new", form)  # 303 to the game page, followed
    game_id = urllib.parse.urlsplit(url).path.rstrip("/").rsplit("/", 1)[-1]
    token = csrf(page)
    sizes = [("full page GET /g/<id>", len(page))]

    def click(row: int, col: int) -> int:
        move = {"csrf_token": token, "kind": "open", "at": f"{row},{col}"}
        return len(fetch(f"/g/{game_id}/move", move, htmx=token)[1])

    sizes.append(("htmx click: first reveal", click(50, 50)))
    conn = connect(base)
    status, data, _ = request(conn, "GET", f"/api/games/{game_id}")
    conn.close()
    cells = safe_cells(state_of(data)) if status == 200 else []
    if cells:
        sizes.append(("htmx click: a later safe reveal", click(*cells[len(cells) // 2])))
    return sizes


# -- report ----------------------------------------------------------------------------


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def overlaps(sample: Sample, intervals: list[tuple[float, float]]) -> bool:
    start = sample.done - sample.seconds
    return any(begin < sample.done and start < end for begin, end in intervals)


def verdict(value: float, limit: float) -> str:
    return "ok" if value < limit else "MISSED"


def print_scenario(scenario: Scenario, run: Run) -> None:
    logs, elapsed = run.logs, max(run.seconds, 1e-9)
    samples = [s for log in logs for s in log.samples]
    ok = [s for s in samples if s.status in (200, 201)]
    think = "none" if scenario.think[1] == 0 else f"{scenario.think[0]}-{scenario.think[1]} s"
    ramp = f", joining over {scenario.ramp:g} s" if scenario.ramp > 0 else ""
    print(
        f"\n## {scenario.name}: {scenario.players} players{ramp}, think time {think}, "
        f"{elapsed:.1f} s"
    )
    print(
        f"{'request':<14} {'count':>6} {'median ms':>10} {'p90 ms':>8} {'p99 ms':>8} "
        f"{'max ms':>8} {'mean bytes':>10}"
    )
    starts = [(x.done - x.seconds, x.done) for x in ok if x.kind in ("create", "first reveal")]
    rows = {
        kind: [x for x in ok if x.kind == kind] for kind in ("create", "first reveal", "reveal")
    }
    rows["reveal, quiet"] = [x for x in rows["reveal"] if not overlaps(x, starts)]
    for kind, chosen in rows.items():
        times = [x.seconds * 1000 for x in chosen]
        if not times:
            continue
        print(
            f"{kind:<14} {len(times):>6} {statistics.median(times):>10.2f} "
            f"{percentile(times, 0.90):>8.2f} {percentile(times, 0.99):>8.2f} "
            f"{max(times):>8.2f} {statistics.mean(x.size for x in chosen):>10.0f}"
        )
    print("(reveal, quiet: the reveals during which no game was being created or first revealed)")
    reveals = [s.seconds * 1000 for s in ok if s.kind == "reveal"]
    print(f"requests/s (all kinds, answered 2xx): {len(ok) / elapsed:.0f}")
    if run.server_cpu is not None and ok:
        per_request = run.server_cpu / len(ok) * 1000
        print(
            f"server CPU: {run.server_cpu:.1f} s = {per_request:.1f} ms per request "
            f"(so at most ~{(os.cpu_count() or 1) * 1000 / per_request:.0f} requests/s "
            f"on {os.cpu_count()} cores); client CPU: {run.client_cpu:.1f} s"
        )
    if reveals and scenario.think[1] > 0:
        median, p99 = statistics.median(reveals), percentile(reveals, 0.99)
        print(
            f"targets for a click: median {median:.2f} < {TARGET_MEDIAN_MS} ms "
            f"{verdict(median, TARGET_MEDIAN_MS)}, p99 {p99:.2f} < {TARGET_P99_MS} ms "
            f"{verdict(p99, TARGET_P99_MS)}"
        )
    outcomes = Counter[str]()
    for log in logs:
        outcomes.update(log.outcomes)
    print("games: " + ", ".join(f"{name} {n}" for name, n in sorted(outcomes.items())))
    failures = Counter(s.status for s in samples if s.status not in (200, 201))
    if failures:
        print("non-2xx answers: " + ", ".join(f"{code}: {n}" for code, n in failures.items()))
    errors = Counter(error for log in logs for error in log.errors)
    for error, n in errors.most_common(5):
        print(f"player error x{n}: {error}")


def parse_think(text: str) -> tuple[float, float]:
    low, _, high = text.partition(":")
    bounds = (float(low), float(high or low))
    if not 0 <= bounds[0] <= bounds[1]:
        raise argparse.ArgumentTypeError(f"think time {text!r}: expected LOW:HIGH seconds")
    return bounds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--think", type=parse_think, default=(0.1, 0.4), metavar="LOW:HIGH")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds per scenario")
    parser.add_argument(
        "--ramp", type=float, default=5.0, help="players join over this many seconds (players)"
    )
    parser.add_argument("--max-clicks", type=int, default=20000, help="per scenario")
    parser.add_argument("--processes", type=int, default=4, help="client processes")
    parser.add_argument("--scenario", choices=["players", "saturation", "both"], default="both")
    parser.add_argument("--no-cost", action="store_true", help="skip the CPU-per-request table")
    parser.add_argument(
        "--app-root",
        type=Path,
        default=ROOT,
        help="serve the project checked out in this directory (before/after comparisons)",
    )
    parser.add_argument("--url", help="benchmark this running server instead of starting one")
    parser.add_argument(
        "--server",
        choices=["mine-devil", "gunicorn"],
        default="mine-devil",
        help="start the project's mine-devil command, or gunicorn -k gevent directly",
    )
    parser.add_argument(
        "--server-arg", action="append", default=[], help="extra argument for the server"
    )
    args = parser.parse_args(argv)

    scenarios = []
    if args.scenario in ("players", "both"):
        scenarios.append(
            Scenario(
                "players",
                args.players,
                args.think,
                args.duration,
                args.max_clicks,
                ramp=args.ramp,
            )
        )
    if args.scenario in ("saturation", "both"):
        scenarios.append(
            Scenario("saturation", args.players, (0.0, 0.0), args.duration / 2, args.max_clicks)
        )

    print("# bench_web: JSON API through gunicorn (gevent worker) on loopback")
    print(f"cpus: {os.cpu_count()}, client processes: {args.processes}, expert 30x16/99 no-guess")

    @contextmanager
    def given(url: str) -> Iterator[Server]:
        wait_until_up(url, None, timeout=10)
        yield Server(url, None, None)

    if args.url:
        server = given(args.url)
    else:
        server = running_server(args.server, args.server_arg, args.app_root.resolve())
    with server as running:
        for scenario in scenarios:
            print_scenario(scenario, run_scenario(running, scenario, args.processes))
        if not args.no_cost:  # after the scenarios: a warmed-up server, quiet again
            costs = request_costs(running)
            try:
                costs += browser_costs(running)
            except (OSError, ValueError) as error:
                print(f"browser costs: not measured ({type(error).__name__}: {error})")
            print_costs(costs)
        print("\n## response size of a click on a 100x100 board (1500 mines)")
        print(f"{'answer':<40} {'bytes':>8}")
        for label, size in response_sizes(running.base):
            print(f"{'JSON API: ' + label:<40} {size:>8}")
        try:
            for label, size in html_response_sizes(running.base):
                print(f"{'browser: ' + label:<40} {size:>8}")
        except (OSError, ValueError) as error:
            print(f"browser: not measured ({type(error).__name__}: {error})")
            print(running.log_tail())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
