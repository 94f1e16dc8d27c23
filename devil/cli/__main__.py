"""``python -m devil.cli``: the same as the ``devil-check`` command."""

from devil.cli.check import run

run()
