"""Ledger rows (a finished game's annotation and metrics) and players' display names."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from app.duel.store import racing_games
from app.ledger.boards import board_title, table_title
from app.ledger.schema import ledger, players
from app.store.records import as_utc

RECORDS_LIMIT = 50


@dataclass(frozen=True)
class LedgerRow:
    """One finished game in the ledger. ``body`` is the annotation's JSON."""

    game_id: str
    version: int
    body: Mapping[str, Any]
    status: str
    preset: str
    count: str
    mercy: str
    no_guess: bool
    seconds: float | None
    bbbv: int
    bbbv_per_s: float | None
    hints: int
    bits: float
    guesses: int
    max_level: int | None
    owner: str | None
    finished_at: datetime
    name: str | None = None
    board: str = ""
    """The records table the game ranks in (``app.ledger.boards``)."""
    board_size: str = ""
    """The board in words (``16x30, 99 mines``, ``penrose 80: 79 cells, 10 mines``)."""

    @property
    def table(self) -> str:
        """The records table the row ranks in: its board, or its preset for a row whose
        board could not be read (``0008_ledger_board`` left it empty)."""
        return self.board or self.preset

    @property
    def board_title(self) -> str:
        """The board in words, with its preset's name when it has one."""
        return board_title(self.table, self.board_size, self.preset)

    @property
    def table_title(self) -> str:
        """The heading of the records table this row ranks in."""
        return table_title(self.table, self.board_size, self.preset)

    @property
    def helped(self) -> bool:
        """Hints or fair-mercy guesses: shown with a mark on the records, never hidden."""
        return self.hints > 0 or self.guesses > 0


_COLUMNS = [c.name for c in ledger.columns]


def _row(mapping: Mapping[Any, Any]) -> LedgerRow:
    values = {k: mapping[k] for k in _COLUMNS}
    values["finished_at"] = as_utc(values["finished_at"])
    return LedgerRow(**values, name=mapping.get("name"))


class LedgerStore:
    """Reads and writes ``ledger`` and ``players`` on the app's engine. Thread-safe."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        """A write transaction (``BEGIN IMMEDIATE`` on SQLite, as the game store's)."""
        with self.engine.connect() as conn:
            if self.engine.dialect.name == "sqlite":
                conn = conn.execution_options(sqlite_begin="IMMEDIATE")
            with conn.begin():
                yield conn

    def get(self, game_id: str) -> LedgerRow | None:
        query = (
            sa.select(ledger, players.c.name)
            .select_from(ledger.outerjoin(players, players.c.owner == ledger.c.owner))
            .where(ledger.c.game_id == game_id)
        )
        with self.engine.connect() as conn:
            found = conn.execute(query).mappings().first()
        return None if found is None else _row(found)

    def save(self, row: LedgerRow) -> None:
        values = {k: getattr(row, k) for k in _COLUMNS}
        with self._write() as conn:
            conn.execute(ledger.delete().where(ledger.c.game_id == row.game_id))
            conn.execute(ledger.insert().values(**values))

    def records(
        self,
        preset: str | None = None,
        count: str | None = None,
        mercy: str | None = None,
        no_guess: bool | None = None,
        board: str | None = None,
        limit: int = RECORDS_LIMIT,
    ) -> list[LedgerRow]:
        """Won games, fastest first (then higher 3BV/s, then earlier), filtered; not the
        games of a duel that is not over (a won board shows the other player's layout)."""
        query = (
            sa.select(ledger, players.c.name)
            .select_from(ledger.outerjoin(players, players.c.owner == ledger.c.owner))
            .where(ledger.c.status == "won", ledger.c.seconds.is_not(None))
            .where(ledger.c.game_id.not_in(racing_games()))
        )
        for column, value in (("preset", preset), ("count", count), ("mercy", mercy),
                              ("no_guess", no_guess), ("board", board)):  # fmt: skip
            if value is not None:
                query = query.where(ledger.c[column] == value)
        query = query.order_by(
            ledger.c.seconds, ledger.c.bbbv_per_s.desc(), ledger.c.finished_at
        ).limit(limit)
        with self.engine.connect() as conn:
            return [_row(m) for m in conn.execute(query).mappings()]

    def by_owner(self, owner: str, limit: int = RECORDS_LIMIT) -> list[LedgerRow]:
        """One browser's finished games, newest first."""
        query = (
            sa.select(ledger, players.c.name)
            .select_from(ledger.outerjoin(players, players.c.owner == ledger.c.owner))
            .where(ledger.c.owner == owner)
            .order_by(ledger.c.finished_at.desc())
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return [_row(m) for m in conn.execute(query).mappings()]

    def name(self, owner: str) -> str | None:
        with self.engine.connect() as conn:
            return conn.execute(
                sa.select(players.c.name).where(players.c.owner == owner)
            ).scalar_one_or_none()

    def set_name(self, owner: str, name: str | None) -> None:
        """Set (or with None, remove) the display name of a browser."""
        with self._write() as conn:
            conn.execute(players.delete().where(players.c.owner == owner))
            if name is not None:
                conn.execute(players.insert().values(owner=owner, name=name))
