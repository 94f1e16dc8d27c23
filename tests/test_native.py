"""Compiled (mypyc) and pure-Python engines: the right one is chosen, both are right.

The install compiles ``devil.native.MODULES`` when it can (``hatch_build.py``); this
suite then runs against the compiled engine, and ``test_property_tests_pass_on_the_pure
_engine`` runs the property tests once more with ``MINE_DEVIL_PURE=1``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import devil
from devil import native

ROOT = Path(__file__).resolve().parent.parent


def run_python(code: str, **env: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
        cwd=ROOT,
        check=True,
    )
    return done.stdout.strip()


PROBE = (
    "import devil, devil._search, devil._dp, devil.budget\n"
    "from devil import native\n"
    "print(native.ENGINE, sorted(k for k, v in native.loaded().items() if v))"
)


def test_loaded_modules_match_the_chosen_engine() -> None:
    import devil._dp
    import devil._search  # noqa: F401

    loaded = native.loaded()
    assert loaded["_search"] is (native.ENGINE == "compiled")
    assert set(loaded.values()) == {native.ENGINE == "compiled"}, native.REASON


def test_the_environment_variable_forces_the_pure_engine() -> None:
    assert run_python(PROBE, MINE_DEVIL_PURE="1") == "pure []"


def test_the_modules_list_matches_the_build_hook() -> None:
    hook = (ROOT / "hatch_build.py").read_text()
    for name in native.MODULES:
        assert f'"{name}",' in hook
        assert (Path(devil.__file__).parent / f"{name}.py").exists()


@pytest.mark.skipif(
    not os.environ.get("CI") or shutil.which("cc") is None,
    reason="CI with a C compiler: the install must have compiled the engine",
)
def test_ci_runs_the_compiled_engine() -> None:
    assert native.ENGINE == "compiled", native.REASON


@pytest.mark.skipif(native.ENGINE == "pure", reason="already pure: the whole run is the pure one")
def test_property_tests_pass_on_the_pure_engine() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/test_properties.py",
            "tests/test_dp.py",
            "tests/test_cut.py",
            "tests/test_ask.py",
        ],
        capture_output=True,
        text=True,
        timeout=1500,
        env={**os.environ, "MINE_DEVIL_PURE": "1"},
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout
