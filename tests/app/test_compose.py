"""``compose.yaml`` (next to the Dockerfile): the multi-host shape on one machine, checked by
reading it (no Docker engine here, no images pulled): PostgreSQL, Redis, three app processes
and nginx, wired as docs/deploy.md says."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "compose.yaml"
EDGE = ROOT / "deploy" / "nginx" / "mine-devil.conf"


def services() -> dict[str, Any]:
    document = yaml.safe_load(COMPOSE.read_text())  # anchors and merge keys resolved
    found: dict[str, Any] = document["services"]
    return found


def apps() -> dict[str, Any]:
    return {
        name: s
        for name, s in services().items()
        if s.get("command", [""])[0] == "mine-devil" and "--migrate-only" not in s["command"]
    }


def option(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def test_it_has_postgres_redis_nginx_and_three_app_processes() -> None:
    assert {"postgres", "redis", "nginx", "migrate"} <= set(services())
    assert len(apps()) == 3


def test_the_app_processes_are_the_dockerfile_and_share_database_limits_and_key() -> None:
    assert (COMPOSE.parent / "Dockerfile").is_file()
    environments = []
    for name, app in apps().items():
        assert app["build"] == ".", name
        env = app["environment"]
        assert env["MINE_DEVIL_DATABASE_URL"].startswith("postgresql+psycopg://")
        assert "@postgres:5432/" in env["MINE_DEVIL_DATABASE_URL"]
        assert env["MINE_DEVIL_RATELIMIT_STORAGE"] == "redis://redis:6379/0"
        assert env["MINE_DEVIL_PROXY_HOPS"] == "1"  # behind exactly one proxy: nginx
        assert env["MINE_DEVIL_SECRET_KEY"].startswith("${MINE_DEVIL_SECRET_KEY:?")
        assert app["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        assert app["depends_on"]["redis"]["condition"] == "service_healthy"
        environments.append(env)
    assert all(env == environments[0] for env in environments)
    migrate = services()["migrate"]
    assert migrate["environment"] == environments[0]
    assert migrate["depends_on"]["postgres"]["condition"] == "service_healthy"


def test_nginx_serves_the_repositorys_edge_config_in_front_of_exactly_these_processes() -> None:
    nginx = services()["nginx"]
    assert "./deploy/nginx/mine-devil.conf:/etc/nginx/conf.d/default.conf:ro" in nginx["volumes"]
    upstream = {int(p) for p in re.findall(r"server 127\.0\.0\.1:(\d+)", EDGE.read_text())}
    ports = set()
    for name, app in apps().items():
        assert app["network_mode"] == "service:nginx", name  # 127.0.0.1 is nginx's
        command = app["command"]
        assert option(command, "--host") == "127.0.0.1"
        port = int(option(command, "--port"))
        assert f"http://127.0.0.1:{port}/healthz" in " ".join(app["healthcheck"]["test"]), name
        ports.add(port)
    assert ports == upstream and len(ports) == 3
    assert re.search(r"listen 80;", EDGE.read_text())
    assert any(p.endswith(":80") for p in nginx["ports"])


def test_the_backing_services_say_when_they_are_ready() -> None:
    for name in ("postgres", "redis"):
        assert services()[name]["healthcheck"]["test"][0] == "CMD", name
    assert "--save" in services()["redis"]["command"]  # limits are not worth a disk
