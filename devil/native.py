"""Which engine runs: the mypyc-compiled hot loops or the pure-Python sources.

The install (``hatch_build.py``) compiles ``MODULES`` with mypyc when a C compiler is
there (every module of ``devil/solve/``, read from the folder) and records the SHA-256 of
each compiled source in ``devil/solve/_native.json``.
``devil/__init__.py`` calls ``select()`` before anything imports those modules:

- ``MINE_DEVIL_PURE=1`` in the environment forces the pure-Python sources (the tests
  run the property tests once this way);
- so does a missing build or any source whose hash no longer matches the build (an
  edited module runs as edited, never as its stale compiled copy).

``ENGINE`` says which was chosen (``"compiled"`` or ``"pure"``), ``REASON`` why.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

PACKAGE = Path(__file__).resolve().parent
COMPILED = PACKAGE / "solve"
"""The compiled package: every module of ``devil/solve/`` and nothing else."""
COMPILED_PACKAGE = "devil.solve"
STAMP = COMPILED / "_native.json"


def compiled_modules(folder: Path = COMPILED) -> tuple[str, ...]:
    """The modules mypyc compiles: the ``.py`` files of ``folder`` but its ``__init__``.

    ``hatch_build.py`` loads this file by path and calls it too, so the list exists once:
    the folder's listing."""
    return tuple(sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__"))


MODULES = compiled_modules()

PURE_ENV = "MINE_DEVIL_PURE"

ENGINE = "pure"
REASON = "not selected yet"


class _PureFinder(importlib.abc.MetaPathFinder):
    """Finds ``devil.solve.<module>`` for the compiled modules in their ``.py`` source."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        if package != COMPILED_PACKAGE or name not in MODULES:
            return None
        source = COMPILED / f"{name}.py"
        return importlib.util.spec_from_file_location(fullname, source)


def _built() -> str | None:
    """Why the compiled modules cannot be used (None: they can)."""
    if os.environ.get(PURE_ENV, "") not in ("", "0"):
        return f"{PURE_ENV} is set"
    try:
        recorded = json.loads(STAMP.read_text())
    except (OSError, ValueError):
        return "no compiled build (installed without a C compiler or mypyc)"
    for name in MODULES:
        source = COMPILED / f"{name}.py"
        try:
            digest = hashlib.sha256(source.read_bytes()).hexdigest()
        except OSError:
            return f"devil/solve/{name}.py is missing"
        if recorded.get(name) != digest:
            return f"devil/solve/{name}.py changed since it was compiled (reinstall to recompile)"
    if set(recorded) != set(MODULES):
        return "devil/solve/ has other modules than were compiled (reinstall to recompile)"
    return None


def select() -> str:
    """Choose the engine once per process; returns ``ENGINE``."""
    global ENGINE, REASON
    if REASON != "not selected yet":
        return ENGINE
    why = _built()
    if why is None:
        ENGINE, REASON = "compiled", "mypyc build matches the sources"
    else:
        ENGINE, REASON = "pure", why
        if not any(isinstance(f, _PureFinder) for f in sys.meta_path):
            sys.meta_path.insert(0, _PureFinder())
    return ENGINE


def loaded() -> dict[str, bool]:
    """Per compiled module already imported: whether it runs compiled."""
    out = {}
    for name in MODULES:
        module = sys.modules.get(f"{COMPILED_PACKAGE}.{name}")
        if module is not None:
            out[name] = not str(getattr(module, "__file__", "")).endswith(".py")
    return out
