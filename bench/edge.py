"""Run the repository's edge (``deploy/nginx/mine-devil.conf``) with Debian's nginx in the
foreground, on a free port, with every file under a temporary prefix. Used by
``bench/bench_faults.py`` and the tests (``tests/helpers/servers.py``)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EDGE_CONFIG = ROOT / "deploy" / "nginx" / "mine-devil.conf"


def nginx_binary() -> str | None:
    found = shutil.which("nginx")
    if found is None and Path("/usr/sbin/nginx").exists():
        found = "/usr/sbin/nginx"
    return found


def edge_config(port: int, upstreams: list[int]) -> str:
    """The edge config listening on ``port`` in front of ``upstreams``: only the listen
    address and the upstream's server lines change."""
    text = EDGE_CONFIG.read_text()
    servers = "".join(f"    server 127.0.0.1:{p} max_fails=1 fail_timeout=5s;\n" for p in upstreams)
    text, listens = re.subn(r"(?m)^    listen 80;$", f"    listen 127.0.0.1:{port};", text)
    text, lines = re.subn(r"(?m)^    server 127\.0\.0\.1:800\d .*;\n", "", text)
    if listens != 1 or lines != 3:
        raise ValueError(f"{EDGE_CONFIG} changed shape: cannot point it at the test processes")
    return text.replace("    keepalive 32;\n", servers + "    keepalive 32;\n", 1)


def start_nginx(
    binary: str, prefix: Path, port: int, upstreams: list[int]
) -> subprocess.Popen[bytes]:
    """nginx in the foreground (its own session) serving the edge on ``port``."""
    prefix.mkdir(parents=True, exist_ok=True)
    (prefix / "mine-devil.conf").write_text(edge_config(port, upstreams))
    temp = "".join(
        f"    {kind}_temp_path {prefix / kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    user = "user root root;\n" if os.geteuid() == 0 else ""
    (prefix / "nginx.conf").write_text(
        f"{user}daemon off;\nworker_processes 1;\npid {prefix / 'nginx.pid'};\n"
        f"error_log {prefix / 'error.log'} warn;\n"
        "events { worker_connections 1024; }\n"
        f"http {{\n    access_log off;\n{temp}    include {prefix / 'mine-devil.conf'};\n}}\n"
    )
    command = [binary, "-p", str(prefix), "-c", str(prefix / "nginx.conf")]
    command += ["-e", str(prefix / "error.log")]
    return subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
