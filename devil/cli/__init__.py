"""``devil-check``, the command line: ``check`` (arguments, the question to the solver, exit
codes, ``main``), ``reading`` (bounded input), ``sections`` (the report and the output) and
``annotate`` (``--annotate``: a replay file's annotation)."""

from devil.cli.check import main, run

__all__ = ["main", "run"]
