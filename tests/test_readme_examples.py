"""Every ``devil-check`` example in the README runs as written on the files in the repository
(``examples/positions/``) and exits as its comment says (``exit N``; 0 otherwise); the graph
boards' ``devil-graph`` / ``devil-check`` block runs as written, in order."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COMMAND = ".venv/bin/devil-check"


def readme_examples() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## `devil-check`") :]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert block is not None, "the devil-check section has no command block"
    return [line for line in block.group(1).splitlines() if COMMAND in line]


def test_the_readme_has_examples_and_their_files_exist() -> None:
    examples = readme_examples()
    assert len(examples) >= 6
    for line in examples:
        for word in shlex.split(line.split("#", 1)[0]):
            if word.startswith("examples/"):
                assert (ROOT / word).is_file(), f"{word} (in the README) is missing"


@pytest.mark.parametrize("line", readme_examples())
def test_a_readme_example_runs_as_written(line: str) -> None:
    command, _, comment = line.partition("#")
    expected = re.search(r"\bexit (\d)\b", comment)
    runnable = command.replace(COMMAND, f"{shlex.quote(sys.executable)} -m devil.cli")
    result = subprocess.run(
        ["bash", "-o", "pipefail", "-c", runnable],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == (int(expected.group(1)) if expected else 0), result.stderr
    assert result.stdout.strip(), "every example prints something"
    assert "Traceback" not in result.stderr


def test_the_graph_board_examples_run_in_order(tmp_path: Path) -> None:
    """``devil-graph ... --midgame`` without a seed drew a new position each run, so the
    ``--cell k37`` after it was sometimes already revealed (exit 2)."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("### Graph boards") :]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert block is not None and "devil-graph" in block.group(1)
    python = shlex.quote(sys.executable)
    script = (
        block.group(1)
        .replace(".venv/bin/devil-graph", f"{python} -m devil.graphs")
        .replace(COMMAND, f"{python} -m devil.cli")
    )
    result = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},  # the commands run in a scratch directory
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "cell k37: safe" in result.stdout and "proof: safe" in result.stdout
