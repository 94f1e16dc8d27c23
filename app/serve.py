"""``mine-devil``: serve the app with gunicorn and the gevent worker.

    mine-devil                                  # http://127.0.0.1:8000, data in ./data
    mine-devil --host 0.0.0.0 --port 8080 --data /srv/mine-devil --workers 4

Steps: settle the data directory and database URL, run the migrations once in the
master process, then start gunicorn programmatically (``BaseApplication``). Each
worker builds its own app with ``create_app`` *after* gevent has monkey-patched it
(the app is not preloaded), so SQLAlchemy's pool, sqlite3 and psycopg all run under
the patched ``threading``/``socket``. The master imports as little as it can.

Each worker starts two engine child processes (``app.play.offload``) for first reveals, whose
no-guess search would otherwise hold the worker's GIL for 10-150 ms; ordinary clicks
on small boards run inline, moves on big boards in gevent's thread pool.

``MINE_DEVIL_DATABASE_URL`` switches to PostgreSQL; the other ``MINE_DEVIL_*``
settings are described in ``app.config``.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_DATA = "data"


def default_workers() -> int:
    """One gevent worker per core (at most 4).

    A worker answers an ordinary click in about 1.3 ms of CPU, so one per core keeps
    both cores busy; the heavy first reveals run in each worker's engine child processes
    (``app.play.offload``), off the worker's GIL, so more workers are not needed to keep one
    heavy click from stalling the others. Measured on 2 cores (bench/bench_web.py,
    50 players): 3 workers gave worse tail latency than 2 (more processes than cores)."""
    return max(1, min(4, os.cpu_count() or 1))


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="mine-devil",
        description="Serve Mine Devil (gunicorn, gevent worker; SQLite in the data directory "
        "unless MINE_DEVIL_DATABASE_URL names another database).",
    )
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"address to bind ({DEFAULT_HOST})")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port ({DEFAULT_PORT})")
    parser.add_argument(
        "--data",
        default=os.environ.get("MINE_DEVIL_DATA") or DEFAULT_DATA,
        help="data directory: SQLite database and secret key (./data, or $MINE_DEVIL_DATA)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=default_workers(),
        help="gunicorn worker processes (default: CPU count, at most 4)",
    )
    parser.add_argument(
        "--worker-class",
        default="gevent",
        choices=["gevent", "sync", "gthread"],
        help="gunicorn worker class (gevent; sync/gthread as a fallback)",
    )
    parser.add_argument("--worker-connections", type=int, default=1000)
    parser.add_argument("--timeout", type=int, default=60, help="worker timeout in seconds")
    parser.add_argument("--log-level", default="info")
    parser.add_argument("--access-log", action="store_true", help="log every request")
    parser.add_argument(
        "--migrate-only", action="store_true", help="create or upgrade the database and exit"
    )
    args = parser.parse_args(argv)
    if not 0 < args.port < 65536:
        parser.error(f"--port {args.port} is not a TCP port (1-65535)")
    if args.workers < 1:
        parser.error(f"--workers {args.workers} must be at least 1")
    return args


def prepare(data: str) -> Path:
    """Point the app at ``data`` (env, inherited by workers), create it, migrate the DB.

    The migration runs in a child process: the master must not import the database
    drivers, because psycopg picks its (non-cooperative) wait function at import time,
    and workers forked from a master that imported it would inherit that choice
    instead of noticing gevent's monkey-patching."""
    directory = Path(data).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    os.environ["MINE_DEVIL_DATA"] = str(directory)

    from app.config import defaults

    defaults()  # creates the persisted secret key before the workers race for it
    # The migration writes no metrics: without the workers' metrics directory (which may not
    # exist yet) a migration that imports the app's modules keeps its numbers in memory.
    env = {key: value for key, value in os.environ.items() if key != METRICS_DIR_ENV}
    done = subprocess.run(
        [sys.executable, "-m", "app.serve", "--migrate-only", "--data", str(directory)],
        check=False,
        env=env,
    )
    if done.returncode != 0:
        raise SystemExit(f"mine-devil: migrating the database failed (exit {done.returncode})")
    return directory


def migrate() -> None:
    """Bring the configured database to the newest schema (``--migrate-only``)."""
    from app.config import defaults
    from app.store.log import Store

    store = Store(defaults()["DATABASE_URL"])
    try:
        store.migrate()
    finally:
        store.dispose()


METRICS_DIR_ENV = "PROMETHEUS_MULTIPROC_DIR"


def metrics_dir() -> Path | None:
    """Where the workers write their Prometheus numbers (``app.metrics``, multiprocess mode):
    ``$PROMETHEUS_MULTIPROC_DIR`` emptied of an earlier run's files, or a fresh temp dir
    (returned: it is removed when the server stops). Set in the environment before any
    worker starts (the client reads it at import)."""
    given = os.environ.get(METRICS_DIR_ENV)
    if given:
        directory = Path(given)
        directory.mkdir(parents=True, exist_ok=True)
        for stale in directory.glob("*.db"):
            stale.unlink()
        return None
    made = Path(tempfile.mkdtemp(prefix="mine-devil-metrics-"))
    os.environ[METRICS_DIR_ENV] = str(made)
    return made


def worker_exited(_server: Any, worker: Any) -> None:
    """gunicorn's ``child_exit`` hook, in the master: a dead worker's live gauges (streams
    open, connections in use) stop counting. ``prometheus_client`` is imported by ``main``
    before the workers start: this hook runs in a signal handler (SIGCHLD), and importing
    it here, when two workers ended at once, ran the import again inside itself (a
    circular ``ImportError`` that made the master exit 1 on shutdown)."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


def gunicorn_options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {
        "bind": f"{args.host}:{args.port}",
        "workers": args.workers,
        "worker_class": args.worker_class,
        "worker_connections": args.worker_connections,
        "timeout": args.timeout,
        "graceful_timeout": 10,
        "keepalive": 5,
        "loglevel": args.log_level,
        "errorlog": "-",
        "preload_app": False,
        "proc_name": "mine-devil",
        "child_exit": worker_exited,
    }
    if args.access_log:
        options["accesslog"] = "-"
    if args.worker_class == "gthread":
        options["threads"] = 8
    return options


SWITCH_INTERVAL = 0.001
"""Seconds between GIL hand-offs in a worker: engine work on big boards (and replays)
runs in a thread (see ``app.play.runner.cpu_runner``), and a short interval lets the gevent hub
answer cheap requests meanwhile (Python's default is 0.005)."""


def app_factory() -> Any:
    """Build the app inside a worker (after gevent's monkey-patching); the master migrated.

    Then freeze what exists (``gc.freeze``): the ~85,000 objects of the imported modules
    and the app live as long as the worker, and without this every full (generation 2)
    collection walks them all, stopping the worker's every request for 30-40 ms
    (measured); afterwards a full collection only walks objects made since."""
    from app import create_app

    sys.setswitchinterval(SWITCH_INTERVAL)
    app = create_app({"AUTO_MIGRATE": False})
    warm(app)
    gc.collect()
    gc.freeze()  # the compiled templates too
    return app


def warm(app: Flask) -> int:
    """Build now, before the worker takes a request, what the app otherwise builds on first
    use; the number of templates compiled.

    Jinja compiles a template on its first render: the analysis page's first render took
    107 ms of the worker's CPU instead of 5 ms, a game page's 29 ms instead of 6 (measured,
    ``CPU time``). After a deploy that first render fell to whichever request came first
    (a hostile load's lattice analyses and page views), while every other request of the
    worker (a player's click) waited behind it or shared the GIL with it. Also the
    database's first connection (its settings, the first query), which ``/healthz`` and
    the first click otherwise pay."""
    from app.store.setup import get_store

    env = app.jinja_env
    names = env.list_templates(extensions=TEMPLATE_EXTENSIONS)
    for name in names:
        env.get_template(name)
    with app.app_context(), contextlib.suppress(Exception):  # a database down: /healthz says
        get_store(app).ping()
    return len(names)


TEMPLATE_EXTENSIONS = ("html",)
"""The files under ``templates/`` that ``warm`` compiles."""


def make_server(options: dict[str, Any], load: Callable[[], Any] = app_factory) -> Any:
    from gunicorn.app.base import BaseApplication  # type: ignore[import-untyped]

    class MineDevilServer(BaseApplication):  # type: ignore[misc]
        def load_config(self) -> None:
            for key, value in options.items():
                if key in self.cfg.settings and value is not None:
                    self.cfg.set(key, value)

        def load(self) -> Any:
            return load()

    return MineDevilServer()


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.migrate_only:
        os.environ["MINE_DEVIL_DATA"] = str(Path(args.data).resolve())
        migrate()
        return 0
    directory = prepare(args.data)
    if args.worker_class == "gevent":  # the workers' stream cap leaves room (app.live.slots)
        os.environ["MINE_DEVIL_WORKER_CONNECTIONS"] = str(args.worker_connections)
    made_metrics_dir = metrics_dir()
    import prometheus_client.multiprocess  # noqa: F401  # after metrics_dir: see worker_exited

    print(
        f"mine-devil: serving on http://{args.host}:{args.port}/ with {args.workers} "
        f"{args.worker_class} worker(s), data in {directory}",
        file=sys.stderr,
        flush=True,
    )
    try:
        make_server(gunicorn_options(args)).run()
    finally:
        if made_metrics_dir is not None:
            shutil.rmtree(made_metrics_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
