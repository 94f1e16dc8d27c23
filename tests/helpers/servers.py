"""Real processes for the operations tests: ``mine-devil`` servers, a private Redis, nginx.

Each starts in its own session on a free loopback port and is stopped by its context
manager (the process group is killed), so a failing test leaves nothing behind."""

from __future__ import annotations

import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def stop(process: subprocess.Popen[bytes], sig: int = signal.SIGKILL) -> None:
    if process.poll() is None:
        os.killpg(process.pid, sig)
    process.wait(timeout=30)
    if process.stderr:
        process.stderr.close()


def status(port: int, method: str, path: str, body: bytes | None = None) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method, path, body, headers)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def wait_for(port: int, process: subprocess.Popen[bytes], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            err = process.stderr.read().decode(errors="replace") if process.stderr else ""
            pytest.fail(f"{what} exited with {process.returncode}:\n{err[-3000:]}")
        try:
            if status(port, "GET", "/healthz") == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    stop(process)
    pytest.fail(f"{what} did not answer /healthz on port {port} within {seconds:g} s")


def start_server(
    data: Path, port: int, env: Mapping[str, str] | None = None, workers: int = 1
) -> subprocess.Popen[bytes]:
    """``python -m app.serve`` on ``port`` in a session of its own (not waited for); ``env``
    adds to (or, with "", removes from) ours.

    Its Prometheus folder (``PROMETHEUS_MULTIPROC_DIR``) is ``metrics-<port>`` beside
    ``data``, in the test's own temporary folder: a server left to make its own in ``/tmp``
    removes it when it stops cleanly, and the tests stop theirs with ``kill -9``."""
    environ = {**os.environ, "MINE_DEVIL_RATELIMIT": "0"}
    environ.pop("MINE_DEVIL_DATABASE_URL", None)
    environ["PROMETHEUS_MULTIPROC_DIR"] = str(data.parent / f"metrics-{port}")
    for key, value in (env or {}).items():
        if value:
            environ[key] = value
        else:
            environ.pop(key, None)
    return subprocess.Popen(
        [
            *(sys.executable, "-m", "app.serve", "--port", str(port), "--data", str(data)),
            *("--workers", str(workers), "--log-level", "warning"),
        ],
        cwd=ROOT,
        env=environ,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


@contextmanager
def mine_devil(
    data: Path, port: int, env: Mapping[str, str] | None = None, workers: int = 1
) -> Iterator[subprocess.Popen[bytes]]:
    """``start_server``, waited for until it answers, stopped at the end."""
    process = start_server(data, port, env, workers)
    try:
        wait_for(port, process, "mine-devil")
        yield process
    finally:
        stop(process)


def redis_binary() -> str:
    found = shutil.which("redis-server")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but redis-server is missing (scripts/install-system-deps)")
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    return found


@contextmanager
def redis_server(port: int, workdir: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A private Redis in the foreground on ``port`` (nothing on disk)."""
    workdir.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen(
        [
            redis_binary(),
            *("--bind", "127.0.0.1", "--port", str(port), "--dir", str(workdir)),
            *("--save", "", "--appendonly", "no"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 10
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    break
        except OSError:
            pass
        if time.monotonic() > deadline or process.poll() is not None:
            stop(process)
            pytest.fail(f"redis-server did not answer on port {port}")
        time.sleep(0.05)
    try:
        yield process
    finally:
        stop(process, signal.SIGTERM)


sys.path.insert(0, str(ROOT / "bench"))
from edge import EDGE_CONFIG, nginx_binary, start_nginx  # noqa: E402


@contextmanager
def nginx(prefix: Path, port: int, upstreams: list[int]) -> Iterator[subprocess.Popen[bytes]]:
    """Debian's nginx in the foreground with its files under ``prefix``, serving the
    repository's edge configuration on ``port`` (``bench/edge.py``)."""
    binary = nginx_binary()
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but nginx is missing (scripts/install-system-deps)")
        pytest.skip("nginx is not installed (apt-get install nginx-light)")
    process = start_nginx(binary, prefix, port, upstreams)
    try:
        wait_for(port, process, "nginx", seconds=20)
        yield process
    finally:
        stop(process, signal.SIGTERM)


__all__ = ["EDGE_CONFIG"]
