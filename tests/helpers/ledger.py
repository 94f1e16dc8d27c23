"""Ledger rows the web and browser tests write straight into the ledger table."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from app.ledger.store import LedgerRow
from devil.ledger.annotate import ANNOTATION_VERSION


def ledger_row(game_id: str, seconds: float, **extra: Any) -> LedgerRow:
    values: dict[str, Any] = {
        "game_id": game_id, "version": ANNOTATION_VERSION, "body": {}, "status": "won",
        "preset": "beginner", "count": "classic", "mercy": "strict", "no_guess": True,
        "seconds": seconds, "bbbv": 20, "bbbv_per_s": 20 / seconds, "hints": 0, "bits": 0.0,
        "guesses": 0, "max_level": 2, "owner": None,
        "finished_at": datetime(2026, 11, 23, tzinfo=UTC) + timedelta(seconds=seconds),
    }  # fmt: skip
    values.update(extra)
    return LedgerRow(**values)
