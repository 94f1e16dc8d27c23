"""Records per board: a graph game ranks with games of its tiling at the same preset (or size
and mines), every row says its board's size, ``preset=penrose`` still answers every Penrose
game, ``board=`` asks for one table, and ledger rows written before boards were kept land in
the right table (migration ``0008_ledger_board``)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from flask import Flask

from app.ledger.boards import board_title, record_board
from app.ledger.store import LedgerStore
from app.store.log import MIGRATIONS, Store
from devil.game import GameParams, GraphSpec
from devil.rules import Mercy, Rules
from tests.helpers.graph_games import ISOLATED
from tests.helpers.ledger import ledger_row
from tests.helpers.web import Api


@pytest.mark.parametrize(
    ("params", "key", "size"),
    [
        (GameParams(16, 30, 99), "expert", "16x30, 99 mines"),
        (GameParams(9, 9, 10), "beginner", "9x9, 10 mines"),
        (GameParams(20, 20, 1), "custom", "20x20, 1 mine"),
        (GameParams(mines=10, graph=GraphSpec("penrose", (80,))), "penrose/beginner",
         "penrose 80: 80 cells, 10 mines"),
        (GameParams(mines=11, graph=GraphSpec("penrose", (80,))), "penrose/80/11",
         "penrose 80: 80 cells, 11 mines"),
        (GameParams(mines=10, graph=GraphSpec("penrose", (80,), sides=True)),
         "penrose/beginner/sides", "penrose 80 (sides): 80 cells, 10 mines"),
        (GameParams(mines=20, graph=GraphSpec("cube", (5,))), "cube/5/20",
         "cube 5: 150 cells, 20 mines"),
    ],
)  # fmt: skip
def test_each_board_has_its_own_records_table(params: GameParams, key: str, size: str) -> None:
    assert record_board(params).key == key
    assert record_board(params).size == size


def test_a_custom_graph_board_is_keyed_by_its_file() -> None:
    other = {**ISOLATED, "cells": [*ISOLATED["cells"], {"id": "c10", "state": "."}]}
    one = record_board(GameParams(mines=2, graph=GraphSpec.custom(ISOLATED)))
    two = record_board(GameParams(mines=2, graph=GraphSpec.custom(other)))
    assert one.key.startswith("graph/") and one.key.endswith("/2") and one.key != two.key
    assert one.size == "custom graph: 10 cells, 2 mines"
    # a digest that happens to be all letters is still no board's name
    assert board_title("graph/abcdefabcd/2", one.size, "graph") == one.size
    assert board_title("penrose/expert", "penrose 480: 480 cells, 99 mines", "penrose") == (
        "expert · penrose 480: 480 cells, 99 mines"
    )


def _penrose_records(app: Flask, api: Api) -> list[str]:
    """Three won Penrose games (80 cells twice, 250 cells once) and a grid one, in the
    ledger; their ids, fastest first: 250 (8 s), 80 (10 s), grid (12 s), 80 (15 s)."""
    store = app.extensions["mine_devil.ledger"].store
    ids = [api.create(tiling="penrose", preset="beginner")["id"] for _ in range(2)]
    ids.insert(0, api.create(tiling="penrose", preset="intermediate")["id"])
    grid = api.create(width=6, height=6, mines=4)["id"]
    beginner = {"preset": "penrose", "board": "penrose/beginner",
                "board_size": "penrose 80: 80 cells, 10 mines"}  # fmt: skip
    store.save(ledger_row(ids[0], 8.0, preset="penrose", board="penrose/intermediate",
                          board_size="penrose 250: 250 cells, 39 mines"))  # fmt: skip
    store.save(ledger_row(ids[1], 10.0, **beginner))
    store.save(ledger_row(grid, 12.0, preset="custom", board="custom", board_size="6x6, 4 mines"))
    store.save(ledger_row(ids[2], 15.0, **beginner))
    return [ids[0], ids[1], grid, ids[2]]


def test_penrose_records_say_their_board_and_rank_within_it(app: Flask, api: Api) -> None:
    fastest = _penrose_records(app, api)
    client = app.test_client()
    every = client.get("/api/records?preset=penrose").get_json()
    rows = [(r["game_id"], r["board"], r["board_rank"], r["rank"]) for r in every["records"]]
    assert rows == [
        (fastest[0], "penrose/intermediate", 1, 1),
        (fastest[1], "penrose/beginner", 1, 2),
        (fastest[3], "penrose/beginner", 2, 3),
    ]
    assert every["records"][0]["board_size"] == "penrose 250: 250 cells, 39 mines"
    one = client.get("/api/records?board=penrose/beginner").get_json()
    assert [r["game_id"] for r in one["records"]] == [fastest[1], fastest[3]]
    assert one["board"] == "penrose/beginner"
    grid = client.get("/api/records?preset=custom").get_json()["records"]
    assert [(r["board"], r["board_size"]) for r in grid] == [("custom", "6x6, 4 mines")]


def test_the_records_page_has_one_table_per_board(app: Flask, api: Api) -> None:
    fastest = _penrose_records(app, api)
    page = app.test_client().get("/records?preset=penrose").get_data(as_text=True)
    headings = page.split('<h2 class="records-board">')[1:]
    assert len(headings) == 2
    assert "intermediate · penrose 250: 250 cells, 39 mines" in headings[0]
    assert "beginner · penrose 80: 80 cells, 10 mines" in headings[1]
    assert fastest[0] in headings[0] and fastest[0] not in headings[1]
    assert fastest[1] in headings[1] and fastest[3] in headings[1]
    assert "board=penrose/beginner" in headings[1]  # the heading asks for its table alone
    rows = headings[1].split("<tr class=")[1:]
    assert [r.split("<td>")[1].split("<")[0] for r in rows] == ["1", "2"]  # ranks in the table
    assert all("penrose 80: 80 cells, 10 mines" in r for r in rows)


@pytest.mark.parametrize("board", ["Penrose/../x", "penrose expert", "x" * 65, "/penrose"])
def test_a_bad_board_filter_is_a_named_400(app: Flask, board: str) -> None:
    response = app.test_client().get("/api/records", query_string={"board": board})
    assert response.status_code == 400 and response.get_json()["field"] == "board"


def test_the_openapi_document_describes_the_board(app: Flask) -> None:
    spec = app.test_client().get("/api/openapi.json").get_json()
    names = [p["name"] for p in spec["paths"]["/api/records"]["get"]["parameters"]]
    assert "board" in names
    record = spec["components"]["schemas"]["Record"]["properties"]
    assert {"board", "board_size", "board_rank"} <= set(record)
    state = spec["components"]["schemas"]["State"]["properties"]
    assert {"no_guess_asked", "no_guess_note"} <= set(state)


# -- stored rows: the migration --------------------------------------------------------------

_games = sa.table(
    "games",
    sa.column("id", sa.String),
    sa.column("params", sa.JSON),
    sa.column("owner", sa.String),
    sa.column("token_hash", sa.String),
    sa.column("created_at", sa.DateTime(timezone=True)),
    sa.column("status", sa.String),
    sa.column("moves", sa.Integer),
    sa.column("last_seq", sa.Integer),
    sa.column("updated_at", sa.DateTime(timezone=True)),
)
_OLD_LEDGER = sa.table(
    "ledger",
    *(sa.column(c, t) for c, t in [
        ("game_id", sa.String), ("version", sa.Integer), ("body", sa.JSON),
        ("status", sa.String), ("preset", sa.String), ("count", sa.String),
        ("mercy", sa.String), ("no_guess", sa.Boolean), ("seconds", sa.Float),
        ("bbbv", sa.Integer), ("bbbv_per_s", sa.Float), ("hints", sa.Integer),
        ("bits", sa.Float), ("guesses", sa.Integer), ("max_level", sa.Integer),
        ("owner", sa.String), ("finished_at", sa.DateTime(timezone=True)),
    ]),
)  # fmt: skip
"""The ledger as ``0003`` made it (no board): rows written by the app before this change."""

T0 = datetime(2026, 11, 20, tzinfo=UTC)
OLD_GAMES: dict[str, tuple[GameParams, str, float]] = {
    "g-expert-1": (GameParams(16, 30, 99), "expert", 90.0),
    "g-expert-2": (GameParams(16, 30, 99, rules=Rules(mercy=Mercy.FAIR)), "expert", 80.0),
    "g-beginner": (GameParams(9, 9, 10), "beginner", 7.0),
    "g-custom": (GameParams(10, 12, 20), "custom", 30.0),
    "g-pen-80": (GameParams(mines=10, graph=GraphSpec("penrose", (80,))), "penrose", 20.0),
    "g-pen-250": (GameParams(mines=39, graph=GraphSpec("penrose", (250,))), "penrose", 9.0),
}


def _migrate(store: Store, revision: str) -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with store.engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, revision)


def _old_rows(store: Store) -> None:
    with store.engine.begin() as conn:
        for game_id, (params, preset, seconds) in OLD_GAMES.items():
            conn.execute(_games.insert().values(
                id=game_id, params=params.to_dict(), owner=None, token_hash="x" * 64,
                created_at=T0, status="won", moves=3, last_seq=3, updated_at=T0,
            ))  # fmt: skip
            conn.execute(_OLD_LEDGER.insert().values(
                game_id=game_id, version=1, body={}, status="won", preset=preset,
                count="classic", mercy=params.rules.mercy.value, no_guess=True,
                seconds=seconds, bbbv=10, bbbv_per_s=10 / seconds, hints=0, bits=0.0,
                guesses=0, max_level=1, owner=None, finished_at=T0,
            ))  # fmt: skip


def _ranked(store: LedgerStore, **filters: Any) -> list[str]:
    return [r.game_id for r in store.records(**filters)]


def _ranked_before(store: Store, **filters: Any) -> list[str]:
    """The records as the ledger before boards ranked them (its query on ``0007``'s table)."""
    query = sa.select(_OLD_LEDGER.c.game_id).where(_OLD_LEDGER.c.status == "won")
    for column, value in filters.items():
        query = query.where(_OLD_LEDGER.c[column] == value)
    query = query.order_by(
        _OLD_LEDGER.c.seconds, _OLD_LEDGER.c.bbbv_per_s.desc(), _OLD_LEDGER.c.finished_at
    )
    with store.engine.connect() as conn:
        return list(conn.execute(query).scalars())


def test_stored_rows_land_in_their_boards_tables(db_url: str) -> None:
    store = Store(db_url)
    _migrate(store, "0007_team_seq")
    _old_rows(store)
    before = {
        json.dumps(f): _ranked_before(store, **f)
        for f in ({}, {"preset": "expert"}, {"preset": "beginner"}, {"preset": "custom"},
                  {"preset": "expert", "mercy": "fair"}, {"preset": "penrose"})
    }  # fmt: skip
    _migrate(store, "head")
    ledger = LedgerStore(store.engine)
    after = {f: _ranked(ledger, **json.loads(f)) for f in before}
    assert after == before  # every filter a stored row answered still ranks the same
    boards = {r.game_id: (r.board, r.board_size) for r in ledger.records()}
    assert boards["g-expert-1"] == ("expert", "16x30, 99 mines")
    assert boards["g-custom"] == ("custom", "10x12, 20 mines")
    assert boards["g-pen-80"] == ("penrose/beginner", "penrose 80: 80 cells, 10 mines")
    assert boards["g-pen-250"][0] == "penrose/intermediate"
    assert _ranked(ledger, board="penrose/beginner") == ["g-pen-80"]
    assert _ranked(ledger, board="expert") == ["g-expert-2", "g-expert-1"]
    store.dispose()
