"""``python -m devil.graphs``: the ``devil-graph`` command."""

from devil.graphs.command import run

run()
