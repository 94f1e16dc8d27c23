"""Graph games the web tests share: a move through the API, a cube game lost on its second
move (the cell it was lost on is one the public position does not prove safe: the devil makes
it a mine)."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from devil.analysis import Verdict
from devil.graphs.fileformat import from_json
from devil.solver import classify

ISOLATED = {
    "format": "mine-devil-graph",
    "version": 1,
    "cells": [{"id": f"c{i}", "state": "."} for i in range(10)],
    "edges": [],
}
"""Ten cells with no neighbours: no layout of 2 mines is clearable without guessing."""


def reveal(client: FlaskClient, game: dict[str, Any], cell: str) -> dict[str, Any]:
    """Open ``cell`` (an id) of ``game`` (as ``POST /api/games`` answered it): the state."""
    headers = {"Authorization": f"Bearer {game['token']}"}
    answer = client.post(f"/api/games/{game['id']}/reveal", json={"cell": cell}, headers=headers)
    out: dict[str, Any] = answer.get_json()
    return out


def lost_cube(client: FlaskClient) -> tuple[dict[str, Any], str]:
    """A cube game lost on its second move: the game and the cell it was lost on."""
    answer = client.post("/api/games", json={"tiling": "cube", "preset": "beginner", "seed": 1})
    game: dict[str, Any] = answer.get_json()
    reveal(client, game, game["state"]["cells"][0]["id"])
    position = from_json(client.get(f"/api/games/{game['id']}/graph").get_json())
    layout = position.board.graph
    assert layout is not None
    # a cell the public position does not prove safe: the devil makes it a mine
    risky = next(c for c, v in classify(position).verdicts.items() if v is not Verdict.SAFE)
    assert reveal(client, game, layout.id(risky))["status"] == "lost"
    return game, layout.id(risky)
