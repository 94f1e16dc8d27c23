"""Lint, types and project wiring, enforced as tests so CI fails on them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHELL_SCRIPTS = sorted(
    [p for p in (ROOT / "scripts").iterdir() if p.is_file()]
    + [ROOT / ".ci" / "run", ROOT / "bench" / "run_all"]
)


def run(*command: str, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False
    )


def test_ruff_check_is_clean() -> None:
    result = run(sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format=concise")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean() -> None:
    """One layout everywhere (tests and benches too): a file ``ruff format`` would change
    fails here, naming it, rather than in the next person's diff."""
    result = run(sys.executable, "-m", "ruff", "format", "--check", "--no-cache")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_on_the_engine() -> None:
    result = run(sys.executable, "-m", "mypy", "--strict", "-p", "devil")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_on_the_web_layer() -> None:
    result = run(sys.executable, "-m", "mypy", "--strict", "-p", "app")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_checks_both_packages_by_default() -> None:
    """Plain ``mypy`` (the pyproject's ``packages``) covers the web layer as well."""
    assert re.search(r'packages = \[[^]]*"app"', (ROOT / "pyproject.toml").read_text())


VULTURE_KEEPS = {
    "permanent": "session.permanent = True: read by Flask",
    "isolation_level": "set on sqlite3 connections: read by the driver",
    "load_config": "gunicorn's BaseApplication calls it",
    "updated_at": "a column of games: GameRow mirrors the whole row",
    "handle_starttag": "HTMLParser hook (tests)",
    "handle_endtag": "HTMLParser hook (tests)",
    "regex": "a Werkzeug URL converter's pattern: read by the router",
    "log_exception": "Flask calls it for every unhandled error",
    "max_content_length": "set on Flask's request for one view: read by Werkzeug",
    "world_started": "set on flask.g, read back with g.get",
    "metrics_started": "set on flask.g, read back with g.pop",
    "pytestmark": "read by pytest: marks every test of the module",
    "STORAGE_SCHEME": "the limits library registers a storage class under these URI schemes",
}
"""Names vulture cannot see used, each called or read by a framework."""

VULTURE_FRAMEWORK_DECORATORS = (
    "@*.get", "@*.post", "@*.errorhandler", "@*.command", "@*.listens_for", "@pytest.fixture",
    "@*.before_request", "@*.after_request",
)  # fmt: skip
"""Functions registered by decorator are called by Flask, click, SQLAlchemy or pytest."""


WEB_TEST_HELPERS = ("web", "world", "world_hosts", "servers", "engine_work", "teach")
"""The helpers of the web tests (``tests/helpers/``), read with them."""


def template_names() -> str:
    """Every identifier inside ``{{ }}`` / ``{% %}`` of the templates, as Python attribute
    reads: view-model fields only templates read are used, not dead."""
    import keyword

    names: set[str] = set()
    for path in sorted((ROOT / "templates").glob("*.html")):
        for block in re.findall(r"\{\{.*?\}\}|\{%.*?%\}", path.read_text(), re.DOTALL):
            names.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", block))
    return "".join(f"_.{name}\n" for name in sorted(names) if not keyword.iskeyword(name))


def test_vulture_finds_no_dead_code_in_the_web_layer(tmp_path: Path) -> None:
    """Dead code in app/ (and the web tests): nothing, apart from the justified names above.
    Alembic's migration scripts are read by name and are left out."""
    used = tmp_path / "templates_use.py"
    used.write_text(template_names())
    result = run(
        sys.executable, "-m", "vulture", "app", "tests/app", "tests/conftest.py",
        *(f"tests/helpers/{name}.py" for name in WEB_TEST_HELPERS), str(used),
        "--min-confidence", "0", "--exclude", "app/migrations",
        "--ignore-decorators", ",".join(VULTURE_FRAMEWORK_DECORATORS),
        "--ignore-names", ",".join(["test_*", "pytest_*", *VULTURE_KEEPS]),
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_web_module_is_over_500_lines() -> None:
    sizes = {
        str(path.relative_to(ROOT)): len(path.read_text().splitlines())
        for path in sorted((ROOT / "app").rglob("*.py"))
    }
    assert {path: n for path, n in sizes.items() if n > 500} == {}


def test_no_module_is_over_600_lines() -> None:
    sizes = {
        str(path.relative_to(ROOT)): len(path.read_text().splitlines())
        for package in ("devil", "app")
        for path in sorted((ROOT / package).rglob("*.py"))
    }
    assert {path: n for path, n in sizes.items() if n > 600} == {}


def test_the_engine_keeps_at_most_16_modules_at_its_top() -> None:
    """Everything else lives in a feature package (solve, teach, ledger, cli, formats, ...)."""
    top = sorted(path.name for path in (ROOT / "devil").glob("*.py"))
    assert len(top) <= 16, top


def _imports(path: Path, module: str, modules: set[str]) -> set[str]:
    """The project modules ``path`` imports, type-only imports (``if TYPE_CHECKING:``) left out."""
    import ast

    tree = ast.parse(path.read_text())
    type_only = {
        id(node)
        for branch in ast.walk(tree)
        if isinstance(branch, ast.If) and "TYPE_CHECKING" in ast.unparse(branch.test)
        for node in ast.walk(branch)
    }
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                name = f"{base}.{alias.name}"
                found.add(name if name in modules else base)
    return (found & modules) - {module}


def test_no_import_circles() -> None:
    """No module imports (directly or through others) a module that imports it back; a
    type-only import under ``TYPE_CHECKING`` does not count."""
    import graphlib

    paths = {}
    for package in ("devil", "app"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            paths[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {module: _imports(path, module, set(paths)) for module, path in paths.items()}
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as circle:
        raise AssertionError(f"import circle: {' -> '.join(circle.args[1])}") from None


def test_tests_share_helpers_only_through_tests_helpers() -> None:
    """A test module imports nothing from another test module or a helper kept beside the
    tests: what tests share lives in ``tests/helpers/`` and is imported from there, one way
    (pytest's fixtures come from the ``conftest.py`` files without an import)."""
    import ast

    offenders = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom):
                names = ["." * node.level + (node.module or "")]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                shared = name == "tests.helpers" or name.startswith("tests.helpers.")
                if name.startswith(".") or (name.split(".")[0] == "tests" and not shared):
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
    assert offenders == [], offenders


def test_engine_never_imports_the_web_layer() -> None:
    pattern = re.compile(r"^\s*(from|import)\s+(app|flask|sqlalchemy|werkzeug)\b", re.MULTILINE)
    offenders = [
        f"{path.relative_to(ROOT)}: {match.group(0).strip()}"
        for path in sorted((ROOT / "devil").rglob("*.py"))
        for match in pattern.finditer(path.read_text())
    ]
    assert offenders == []


@pytest.mark.parametrize("script", SHELL_SCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_shell_script_parses_and_is_strict(script: Path) -> None:
    result = run("bash", "-n", str(script))
    assert result.returncode == 0, result.stderr
    text = script.read_text()
    assert text.startswith("#!/usr/bin/env bash") or script.name == "lib.sh"
    if script.name == "run_all":  # goes on after a failing benchmark, so no -e
        assert "set -uo pipefail" in text
    elif script.name not in {"lib.sh", "run"}:
        assert "set -euo pipefail" in text


def readme_commands() -> list[str]:
    """The commands of the README's first fenced block."""
    text = (ROOT / "README.md").read_text()
    match = re.search(r"```[a-z]*\n(.*?)```", text, re.DOTALL)
    assert match is not None, "README.md has no fenced command block"
    commands = (line.split("#", 1)[0].strip() for line in match.group(1).splitlines())
    return [command for command in commands if command]


def test_readme_starts_with_the_run_and_test_commands() -> None:
    text = (ROOT / "README.md").read_text()
    first_block = text.index("```")
    assert first_block < text.index("\n## "), "the commands must come before any section"
    assert readme_commands() == ["bash scripts/run-app", "bash scripts/test"]


def test_ci_runs_exactly_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    lines = [x.strip() for x in ci.splitlines() if x.strip() and not x.startswith("#")]
    assert lines[-1] == f"exec {readme_commands()[1]}"


@pytest.mark.parametrize(("pytest_status", "ours"), [(0, 0), (1, 1), (2, 2), (5, 1)])
def test_no_tests_collected_is_a_failure(pytest_status: int, ours: int) -> None:
    result = run("bash", "-c", f"source scripts/lib.sh && fail_on_no_tests {pytest_status}")
    assert result.returncode == ours
    assert ("collected no tests" in result.stderr) == (pytest_status == 5)


def test_test_script_maps_pytest_status_and_updates_apt_first() -> None:
    assert 'fail_on_no_tests "$status"' in (ROOT / "scripts" / "test").read_text()
    deps = (ROOT / "scripts" / "install-system-deps").read_text()
    assert deps.index("apt-get update") < deps.index("apt-get install")
