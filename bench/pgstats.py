"""PostgreSQL's CPU per statement for the benchmarks: ``pg_stat_statements`` on a throwaway server.

    enable(url, pgdir)      # once, on a server of scripts/start-postgres: restarts it
    reset(url)              # before the measured phase
    top(url, moves)         # after it: the statements that took PostgreSQL's time

The extension must be loaded at the server's start (``shared_preload_libraries``), so
``enable`` sets it with ``ALTER SYSTEM`` and restarts the server (as its owner, like
``scripts/stop-postgres``). Planning is tracked too (``track_planning``): a statement sent
with its values in its text (the simple protocol) is parsed and planned on every call, a
prepared one is not. Tracking costs the server a little on every statement, so the
benchmark turns it on only when asked (``--pg-statements``).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any


def _connect(url: str) -> Any:
    import psycopg
    import sqlalchemy as sa

    plain = sa.make_url(url).set(drivername="postgresql").render_as_string(False)
    return psycopg.connect(plain, autocommit=True)


def _pg_ctl() -> str:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), key=lambda p: p.parts[4])
    return str(found[-1]) if found else "pg_ctl"


def enable(url: str, pgdir: Path) -> None:
    """Load ``pg_stat_statements`` into the server of ``pgdir`` (restarting it)."""
    with _connect(url) as conn:
        conn.execute("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'")
    owner = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
    subprocess.run(
        [*owner, _pg_ctl(), "restart", "--wait", "--mode=fast", f"--pgdata={pgdir / 'data'}"],
        check=True,
        cwd=pgdir,
        stdout=subprocess.DEVNULL,
    )
    with _connect(url) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        conn.execute("ALTER SYSTEM SET pg_stat_statements.track_planning = on")
        conn.execute("SELECT pg_reload_conf()")


def reset(url: str) -> None:
    with _connect(url) as conn:
        conn.execute("SELECT pg_stat_statements_reset()")


TOP = """
SELECT calls, total_exec_time, total_plan_time, plans, rows,
    regexp_replace(left(query, 400), '\\s+', ' ', 'g')
FROM pg_stat_statements
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
ORDER BY total_exec_time + total_plan_time DESC LIMIT %s
"""


def top(url: str, moves: int, n: int = 8) -> list[tuple[str, str]]:
    """Rows for the benchmark's table: the ``n`` statements that took the most time in
    PostgreSQL since ``reset``: calls, mean execution and planning us, time per move."""
    with _connect(url) as conn:
        found = conn.execute(TOP, (n,)).fetchall()
    rows = []
    for calls, exec_ms, plan_ms, plans, _, query in found:
        text = " ".join(query.split())
        if text.upper().startswith("WITH S AS"):
            text = "flight: " + text[:40]
        rows.append(
            (
                f"  PG statement: {text[:58]}",
                f"{calls} calls, exec {exec_ms / max(calls, 1) * 1e3:.0f} us, "
                f"plan {plan_ms / max(plans, 1) * 1e3:.0f} us x {plans}; "
                f"{(exec_ms + plan_ms) / max(moves, 1) * 1e3:.1f} us per move",
            )
        )
    return rows
