"""Compiled (mypyc) and pure-Python engines: the right one is chosen, both are right.

The install compiles every module of ``devil/solve/`` when it can (``hatch_build.py``); this
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
from tests.helpers.paths import ROOT


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
    "import devil, devil.solve._search, devil.solve._dp, devil.budget\n"
    "from devil import native\n"
    "print(native.ENGINE, sorted(k for k, v in native.loaded().items() if v))"
)


def test_loaded_modules_match_the_chosen_engine() -> None:
    import devil.solve._dp
    import devil.solve._search  # noqa: F401

    loaded = native.loaded()
    assert loaded["_search"] is (native.ENGINE == "compiled")
    assert set(loaded.values()) == {native.ENGINE == "compiled"}, native.REASON


def test_the_environment_variable_forces_the_pure_engine() -> None:
    assert run_python(PROBE, MINE_DEVIL_PURE="1") == "pure []"


def test_the_compiled_set_is_exactly_the_solve_package() -> None:
    """One list, read from the folder: every module of devil/solve/ but its ``__init__``."""
    solve = Path(devil.__file__).parent / "solve"
    on_disk = {p.stem for p in solve.glob("*.py")} - {"__init__"}
    assert set(native.MODULES) == on_disk
    assert "_search" in native.MODULES and "solver" in native.MODULES


def test_the_build_hook_compiles_the_list_of_devil_native() -> None:
    """``hatch_build.py`` takes its list from ``devil/native.py`` (loaded by path), never a
    copy of its own."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_hatch_build_probe", ROOT / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(hook)
    except ImportError:  # hatchling absent: the hook's source must still read the list there
        source = (ROOT / "hatch_build.py").read_text()
        assert "compiled_modules(" in source and '"_search",' not in source
        return
    assert hook.MODULES == native.MODULES
    assert hook.GROUP.startswith(native.COMPILED_PACKAGE + ".")


def test_the_pure_finder_finds_solve_modules_only() -> None:
    finder = native._PureFinder()
    spec = finder.find_spec("devil.solve._search", None)
    assert spec is not None and str(spec.origin).endswith("devil/solve/_search.py")
    assert finder.find_spec("devil.game", None) is None
    assert finder.find_spec("devil._search", None) is None


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
            "tests/devil/solve/test_properties.py",
            "tests/devil/solve/test_dp.py",
            "tests/devil/solve/test_cut.py",
            "tests/devil/solve/test_ask.py",
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
