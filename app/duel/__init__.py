"""Devil duels (single-player side): two players race on the same adversarial board.

A duel is two ordinary games with the same parameters and seed (the host's, then the
guest's, created from the host game's parameters when the guest accepts the share link).
Each plays their own game on the usual board; the duel page shows both players' progress
(cells opened, alive or dead, won), refreshed live, and names the winner: the first to
clear their board. ``store`` keeps the pairing (table ``duels``, migration 0003),
``routes`` the pages.
"""

from __future__ import annotations

from flask import Flask


def init_app(app: Flask) -> None:
    from app.duel.routes import bp

    app.register_blueprint(bp)


__all__ = ["init_app"]
