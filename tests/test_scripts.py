"""The provisioning scripts, run against fake apt/dpkg/sudo so nothing is installed."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def write_tool(directory: Path, name: str, body: str) -> None:
    tool = directory / name
    tool.write_text("#!/bin/bash\n" + body)
    tool.chmod(0o755)


@pytest.fixture
def fake_system(tmp_path: Path) -> Path:
    """A bin dir whose dpkg-query knows only the packages listed in $FAKE_INSTALLED and
    whose apt-get and sudo only log their arguments to $FAKE_LOG."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    write_tool(
        bin_dir,
        "dpkg-query",
        'pkg="${!#}"\n'
        'case " $FAKE_INSTALLED " in *" $pkg "*) echo "install ok installed";; *) exit 1;; esac\n',
    )
    write_tool(bin_dir, "apt-get", 'echo "apt-get $*" >>"$FAKE_LOG"\n')
    write_tool(bin_dir, "sudo", 'echo "sudo $1" >>"$FAKE_LOG"\nexec "$@"\n')
    write_tool(
        bin_dir, "id", 'if [ "$1" = -u ]; then echo "$FAKE_UID"; else exec /usr/bin/id "$@"; fi\n'
    )
    return bin_dir


def install(
    bin_dir: Path, purpose: str, installed: str, uid: int = 0, sudo: bool = True
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    log = bin_dir.parent / "log"
    log.write_text("")
    if not sudo:
        (bin_dir / "sudo").unlink()
    env = {
        **os.environ,
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "FAKE_INSTALLED": installed,
        "FAKE_LOG": str(log),
        "FAKE_UID": str(uid),
    }
    result = subprocess.run(
        ["bash", str(ROOT / "scripts" / "install-system-deps"), purpose],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return result, log.read_text().splitlines()


def test_installs_only_what_is_missing_after_apt_update(fake_system: Path) -> None:
    result, calls = install(fake_system, "test", installed="postgresql redis-server nginx-light")
    assert result.returncode == 0, result.stderr
    assert calls[0] == "apt-get update -q"
    assert calls[1].startswith("apt-get install -y -q --no-install-recommends")
    requested = set(calls[1].split("--no-install-recommends")[1].split())
    assert requested == {"chromium", "fonts-liberation"}


def test_does_nothing_when_everything_is_present(fake_system: Path) -> None:
    result, calls = install(
        fake_system,
        "test",
        installed="chromium fonts-liberation postgresql redis-server nginx-light",
    )
    assert result.returncode == 0, result.stderr
    assert calls == []
    assert "present" in result.stderr


def test_app_needs_no_browser_and_no_database(fake_system: Path) -> None:
    result, calls = install(fake_system, "app", installed="")
    assert result.returncode == 0, result.stderr
    assert calls == []


def test_uses_sudo_when_not_root(fake_system: Path) -> None:
    result, calls = install(fake_system, "test", installed="", uid=1000)
    assert result.returncode == 0, result.stderr
    assert calls[:2] == ["sudo apt-get", "apt-get update -q"]
    assert "sudo env" in calls


def test_names_the_packages_when_it_cannot_become_root(fake_system: Path) -> None:
    result, calls = install(
        fake_system, "test", installed="postgresql redis-server nginx-light", uid=1000, sudo=False
    )
    assert result.returncode != 0
    assert calls == []
    assert "need root" in result.stderr and "apt-get update" in result.stderr
    assert "chromium fonts-liberation" in result.stderr


def test_rejects_an_unknown_purpose(fake_system: Path) -> None:
    result, _ = install(fake_system, "deploy", installed="")
    assert result.returncode != 0
    assert "unknown purpose 'deploy'" in result.stderr


@pytest.mark.postgres
def test_throwaway_postgres_starts_on_loopback_and_is_removed() -> None:
    import psycopg

    started = subprocess.run(
        ["bash", str(ROOT / "scripts" / "start-postgres")],
        env={**os.environ, "MINE_DEVIL_PG_PORT": "54390"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert started.returncode == 0, started.stderr
    exported = dict(
        shlex.split(line.removeprefix("export "))[0].split("=", 1)
        for line in started.stdout.splitlines()
    )
    pgdir = Path(exported["MINE_DEVIL_PGDIR"])
    url = exported["MINE_DEVIL_TEST_POSTGRES_URL"]
    try:
        assert url.startswith("postgresql+psycopg://postgres@127.0.0.1:")
        with psycopg.connect(url.replace("+psycopg", "")) as conn:
            settings = dict(
                conn.execute(
                    "select name, setting from pg_settings"
                    " where name in ('listen_addresses', 'port')"
                ).fetchall()
            )
            database = conn.execute("select current_database()").fetchone()
        assert settings["listen_addresses"] == "127.0.0.1"
        assert int(settings["port"]) >= 54390
        assert database == ("mine_devil_test",)
    finally:
        stopped = subprocess.run(
            ["bash", str(ROOT / "scripts" / "stop-postgres"), str(pgdir)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert stopped.returncode == 0, stopped.stderr
    assert not pgdir.exists()


def test_stop_postgres_refuses_a_foreign_directory(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    result = subprocess.run(
        ["bash", str(ROOT / "scripts" / "stop-postgres"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode != 0
    assert "refusing to delete" in result.stderr
    assert (tmp_path / "data").exists()
