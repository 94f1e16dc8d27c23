"""Build hook: compile the engine's hot loops with mypyc when a C compiler is there.

``pip install .`` and ``pip install -e .`` both run it (hatchling's custom hook). It
copies ``devil/`` to a scratch directory, compiles every module of ``devil/solve/`` there
with mypyc (the list is ``devil.native.compiled_modules``, the folder's listing; one shared
library ``devil/solve/_native__mypyc*.so`` plus a small extension per module) and then:

- regular wheel: adds the extensions to the wheel (the wheel becomes platform specific);
- editable install: copies them next to the sources in ``devil/solve/``.

Either way it writes ``devil/solve/_native.json``: the SHA-256 of every compiled source. At
import ``devil.native`` loads the compiled modules only when every hash still matches
(an edited source falls back to the pure-Python engine instead of running stale code)
and ``MINE_DEVIL_PURE`` is not set.

Without a compiler (or with ``MINE_DEVIL_PURE_BUILD=1``, or when mypyc takes longer than
``MINE_DEVIL_BUILD_SECONDS``, default 900) the build prints why and installs the
pure-Python engine: same answers, slower.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def _load_native() -> ModuleType:
    """``devil/native.py`` loaded by its path: the hook cannot import the package it builds,
    and the list of compiled modules is written once, there (the listing of devil/solve/)."""
    spec = importlib.util.spec_from_file_location(
        "_mine_devil_native", Path(__file__).resolve().parent / "devil" / "native.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NATIVE = _load_native()
PACKAGE = "devil/solve"
"""Where the compiled modules live, relative to the project root."""
MODULES: tuple[str, ...] = NATIVE.compiled_modules(Path(__file__).resolve().parent / PACKAGE)
GROUP = "devil.solve._native"
STAMP = "_native.json"
TIMEOUT_ENV = "MINE_DEVIL_BUILD_SECONDS"
"""Seconds mypyc may take (default 900; a busy shared machine may need more)."""

_SETUP = """
import sys
from setuptools import setup
from mypyc.build import mypycify
setup(
    name="mine-devil-native",
    ext_modules=mypycify(sys.argv[1:], group_name={group!r}, opt_level="3"),
    script_args=["build_ext", "--inplace"],
)
"""


def _say(message: str) -> None:
    print(f"mine-devil build: {message}", file=sys.stderr, flush=True)


def source_hashes(package: Path) -> dict[str, str]:
    return {m: hashlib.sha256((package / f"{m}.py").read_bytes()).hexdigest() for m in MODULES}


def _native_files(package: Path) -> list[Path]:
    return sorted(
        p for p in package.glob("*.so") if p.name.split(".")[0] in (*MODULES, "_native__mypyc")
    )


def _remove_old_builds(root: Path) -> None:
    """Never leave extensions of older sources behind (editable installs): the current
    ones, and those of the layout before devil/solve/ (they sat in devil/ itself, where an
    extension would shadow a module of the same name)."""
    for old in [*_native_files(root / PACKAGE), *(root / "devil").glob("*.so")]:
        old.unlink()
    (root / PACKAGE / STAMP).unlink(missing_ok=True)
    (root / "devil" / STAMP).unlink(missing_ok=True)


class MypycHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        package = root / PACKAGE
        editable = version == "editable"
        if editable:
            _remove_old_builds(root)
        if os.environ.get("MINE_DEVIL_PURE_BUILD"):
            _say("MINE_DEVIL_PURE_BUILD is set: installing the pure-Python engine")
            return
        scratch = Path(tempfile.mkdtemp(prefix="mine-devil-mypyc-"))
        try:
            built = self._compile(root, scratch)
        except (OSError, subprocess.SubprocessError) as error:
            _say(f"mypyc could not run ({error}): installing the pure-Python engine")
            shutil.rmtree(scratch, ignore_errors=True)
            return
        if built is None:
            shutil.rmtree(scratch, ignore_errors=True)
            return
        stamp = json.dumps(source_hashes(package), indent=1, sort_keys=True) + "\n"
        if editable:
            for path in built:
                shutil.copy2(path, package / path.name)
            (package / STAMP).write_text(stamp)
        else:
            (scratch / PACKAGE / STAMP).write_text(stamp)
            for path in [*built, scratch / PACKAGE / STAMP]:
                build_data["force_include"][str(path)] = f"{PACKAGE}/{path.name}"
            build_data["pure_python"] = False
            build_data["infer_tag"] = True
        self._scratch = scratch
        _say(f"compiled {len(MODULES)} engine modules of {PACKAGE}/ with mypyc")

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        scratch = getattr(self, "_scratch", None)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)

    def _compile(self, root: Path, scratch: Path) -> list[Path] | None:
        shutil.copytree(
            root / "devil", scratch / "devil", ignore=shutil.ignore_patterns("*.so", "__pycache__")
        )
        # mypy follows the engine's imports into devil/cpsat.py; OR-Tools is an optional extra
        # that the build environment may lack (it is installed after the build on a fresh venv)
        (scratch / "mypy.ini").write_text(
            "[mypy]\n\n[mypy-ortools.*]\nignore_missing_imports = True\n"
        )
        sources = [f"{PACKAGE}/{m}.py" for m in MODULES]
        done = subprocess.run(
            [sys.executable, "-c", _SETUP.format(group=GROUP), *sources],
            cwd=scratch,
            capture_output=True,
            text=True,
            timeout=float(os.environ.get(TIMEOUT_ENV) or 900),
            check=False,
        )
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-8:])
            _say(f"mypyc failed, installing the pure-Python engine:\n{tail}")
            return None
        return _native_files(scratch / PACKAGE)
