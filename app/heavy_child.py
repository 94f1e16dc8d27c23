"""A heavy-work child of ``app.heavy`` (``python -m app.heavy_child``): the click children's
loop (``app.play.offload.main``) at a lower CPU priority, with the heavy work imported first.

Its own module, so ``app.heavy`` (imported by the teaching and ledger views that send work
here) does not import those views back."""

from __future__ import annotations

import os

from app.play.offload import main

NICENESS = 10
"""Heavy-work children run at a lower CPU priority than the workers and the click children:
an analysis never takes a core from a player's click."""


def _warm() -> None:
    """Import what the heavy work runs before the first request (the child's first answer
    must not spend its time limit importing)."""
    import app.ledger.imports
    import app.teach.analysis
    import app.teach.hints
    import app.teach.puzzles
    import app.teach.svg  # noqa: F401


if __name__ == "__main__":
    os.nice(NICENESS)
    _warm()
    raise SystemExit(main())
