"""Issue 8's findings 1-3 and 8 replayed against the real server (``mine-devil``, rate limits
on), one request at a time: how long each takes and how big its answer is.

    .venv/bin/python bench/bench_findings.py
"""

from __future__ import annotations

import json
import sys
import threading
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_hostile import call, connect, hostile_server, lattice_line


def once(
    base: str,
    method: str,
    path: str,
    client: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, bytes, float]:
    """One request on a new connection (keep-alive connections time out between phases)."""
    conn = connect(base, timeout=120)
    try:
        return call(conn, method, path, client, body, headers)
    finally:
        conn.close()


def main() -> int:
    rows: list[tuple[str, str]] = []
    with hostile_server() as (base, _group):
        for size, count in ((14, "classic"), (14, "counted"), (40, "counted")):
            query = urllib.parse.urlencode({"p": lattice_line(size, 1), "count": count})
            status, data, seconds = once(base, "GET", f"/analyse?{query}", "10.1.0.1")
            partial = b'id="analyse-stopped"' in data
            rows.append(
                (f"GET /analyse {size}x{size} lattice, {count}",
                 f"{status}, {seconds:.2f} s, {len(data) // 1024} KB, partial={partial}")
            )  # fmt: skip
        query = urllib.parse.urlencode({"p": lattice_line(40, 1)})
        status, data, seconds = once(base, "GET", f"/analyse/export.svg?{query}", "10.1.0.2")
        rows.append(("GET /analyse/export.svg 40x40 lattice", f"{status}, {seconds:.2f} s"))
        # finding 1's outage: three lattice GETs one second apart, /healthz probed meanwhile
        misses, probes = [0], [0]
        stop = time.monotonic() + 8

        def probe() -> None:
            while time.monotonic() < stop:
                c = connect(base, timeout=1.0)
                try:
                    ok = call(c, "GET", "/healthz", "10.1.0.9")[0] == 200
                except OSError:
                    ok = False
                finally:
                    c.close()
                probes[0] += 1
                misses[0] += not ok
                time.sleep(0.2)

        prober = threading.Thread(target=probe)
        prober.start()
        for i in range(3):
            c = connect(base, timeout=60)
            q = urllib.parse.urlencode({"p": lattice_line(14, 10 + i), "count": "counted"})
            threading.Thread(target=call, args=(c, "GET", f"/analyse?{q}", "10.1.0.3")).start()
            time.sleep(1)
        prober.join()
        rows.append(("3 lattice GETs 1 s apart: /healthz misses", f"{misses[0]} of {probes[0]}"))
        body = json.dumps({"width": 1000, "height": 1000, "mines": 150_000}).encode()
        status, data, seconds = once(base, "POST", "/api/games", "10.1.0.4", body)
        game = json.loads(data)["id"]
        rows.append(("POST /api/games 1000x1000", f"{status}, {seconds:.2f} s"))
        for path, headers in (
            (f"/g/{game}", {"Accept": "text/html"}),
            (f"/g/{game}?since=0", {"HX-Request": "true"}),
            (f"/g/{game}/replay/0", {"Accept": "text/html"}),
        ):
            status, data, seconds = once(base, "GET", path, "10.1.0.4", None, headers)
            rows.append((f"GET {path.replace(game, '<id>')} (1000x1000)",
                         f"{status}, {seconds * 1000:.0f} ms, {len(data)} bytes"))  # fmt: skip
    print("| request | answer |\n|---|---|")
    for what, answer in rows:
        print(f"| {what} | {answer} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
