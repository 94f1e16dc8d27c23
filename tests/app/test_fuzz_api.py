"""Fuzz the JSON API from its own OpenAPI document (schemathesis), in process: requests go to
the app through WSGI, no socket is opened and nothing leaves the machine.

For every documented operation, valid and invalid requests (bounded: ``EXAMPLES`` each),
against unknown games and worlds, and against a real game and a real world (a team of it)
with their bearer tokens (so move bodies and rafts reach the parsers and the engine). No
answer may be a 5xx, and every answer must be one the document describes: its status code,
content type and body schema.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode, checks

from app import create_app
from tests.helpers.web import app_config

EXAMPLES = 25
"""Examples per operation, mode and target game."""

CPU_BUDGET_SECONDS = 60
"""CPU time of the whole run (generation, app, checks; about 15 s on one core): CI's two-minute
patience with room to spare. CPU, not wall time: the machine may be shared."""

CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
]


@pytest.fixture(scope="module")
def fuzzed_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    directory = Path(tmp_path_factory.mktemp("fuzz"))
    app = create_app(app_config(directory, PROPAGATE_EXCEPTIONS=False))
    yield app
    app.extensions["mine_devil.store"].dispose()


def run_operation(
    operation: Any,
    mode: GenerationMode,
    path_parameters: dict[str, Any],
    headers: dict[str, str],
    statuses: Counter[int],
) -> None:
    strategy = operation.as_strategy(
        generation_mode=mode, path_parameters=path_parameters or None, headers=headers or None
    )

    @given(case=strategy)
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def fuzz(case: schemathesis.Case) -> None:
        response = case.call_and_validate(checks=CHECKS)
        statuses[response.status_code] += 1

    try:
        fuzz()
    except Unsatisfiable:
        if mode is GenerationMode.POSITIVE:
            raise
        # nothing of this request can be made invalid (path and headers fixed, no body)


def test_the_api_answers_every_request_as_documented_and_never_with_a_5xx(
    fuzzed_app: Flask,
) -> None:
    client = fuzzed_app.test_client()
    game = client.post("/api/games", json={"width": 9, "height": 9, "mines": 10, "seed": 7}).json
    real = {"game_id": game["id"]}
    token = {"Authorization": f"Bearer {game['token']}"}
    assert client.post("/api/worlds", json={"id": "fuzz", "colours": 3}).status_code == 201
    player = client.post(
        "/api/worlds/fuzz/players", json={"name": "Ada", "team": "red", "colour": 1}
    ).json
    world = {"world": "fuzz", "team": "red"}
    player_token = {"Authorization": f"Bearer {player['token']}"}
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", fuzzed_app)
    started, cpu = time.monotonic(), time.process_time()
    statuses: Counter[int] = Counter()
    for result in schema.get_all_operations():
        operation = result.ok()
        targets: list[tuple[dict[str, Any], dict[str, str]]] = [({}, {})]
        if "{game_id}" in operation.path:
            targets.append((real, token))
        if "{world}" in operation.path:
            named = {k: v for k, v in world.items() if f"{{{k}}}" in operation.path}
            targets.append((named, player_token))
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            for path_parameters, headers in targets:
                run_operation(operation, mode, path_parameters, headers, statuses)
    used = time.process_time() - cpu
    print(
        f"fuzz: {sum(statuses.values())} requests, statuses {dict(sorted(statuses.items()))}, "
        f"{time.monotonic() - started:.1f} s wall, {used:.1f} s CPU"
    )
    assert not any(code >= 500 for code in statuses)
    assert used < CPU_BUDGET_SECONDS
