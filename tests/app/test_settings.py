"""``app.settings``: one typed, frozen object of every setting, read once, each documented."""

from __future__ import annotations

import ast
import dataclasses
import itertools
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from flask import Flask

from app import settings as settings_module
from app.config import MAX_CONTENT_LENGTH
from app.gate import BODY_SECONDS, CLIENT_REQUESTS
from app.live.routes import HEARTBEAT_SECONDS as LIVE_HEARTBEAT
from app.notify.wire import DEFAULT_CHANNEL
from app.settings import Settings, settings
from app.teach.analysis import ANALYSE_SECONDS
from app.teach.hints import HINT_SECONDS
from app.teach.svg import SVG_SECONDS
from app.world.feed import HEARTBEAT_SECONDS as WORLD_HEARTBEAT

APP = Path(__file__).resolve().parents[2] / "app"


def test_the_defaults_are_the_modules_own() -> None:
    """Functions called outside an app keep their own defaults: they must agree."""
    default = Settings()
    assert default.svg_seconds == SVG_SECONDS
    assert default.analyse_seconds == ANALYSE_SECONDS
    assert default.hint_seconds == HINT_SECONDS
    assert default.live_heartbeat_seconds == LIVE_HEARTBEAT == WORLD_HEARTBEAT
    assert default.client_requests == CLIENT_REQUESTS
    assert default.body_seconds == BODY_SECONDS
    assert default.notify_channel == DEFAULT_CHANNEL
    assert default.max_content_length == MAX_CONTENT_LENGTH


def test_every_field_is_documented() -> None:
    tree = ast.parse(Path(settings_module.__file__).read_text())
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Settings"]
    body = cls.body
    documented = {
        node.target.id
        for node, after in itertools.pairwise(body)
        if isinstance(node, ast.AnnAssign)
        and isinstance(node.target, ast.Name)
        and isinstance(after, ast.Expr)
        and isinstance(after.value, ast.Constant)
        and len(str(after.value.value)) > 10
    }
    assert documented == {f.name for f in dataclasses.fields(Settings)}


def test_the_environment_is_read_once_and_typed(
    make_app: Callable[..., Flask], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MINE_DEVIL_WORLD_DROP_SECONDS", "7.5")
    monkeypatch.setenv("MINE_DEVIL_WORLD_STREAMS_MAX", "12")
    monkeypatch.setenv("MINE_DEVIL_PROXY_HOPS", "1")
    monkeypatch.setenv("MINE_DEVIL_METRICS_TOKEN", "s3cret")
    app = make_app(RATELIMIT_ENABLED="off", LIVE_MAX_SECONDS=20)
    monkeypatch.setenv("MINE_DEVIL_WORLD_DROP_SECONDS", "99")  # too late: read once
    options = settings(app)
    assert options.world_drop_seconds == 7.5
    assert options.world_streams_max == 12
    assert options.proxy_hops == 1
    assert options.ratelimit_enabled is False
    assert options.live_max_seconds == 20.0 and isinstance(options.live_max_seconds, float)
    assert "s3cret" not in repr(options)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.proxy_hops = 2  # type: ignore[misc]


def test_a_bad_value_names_its_setting() -> None:
    with pytest.raises(ValueError, match=r"WORLD_STREAMS_MAX: 'many' is not a int"):
        Settings.from_config({"WORLD_STREAMS_MAX": "many"})


def test_no_code_reads_settings_from_the_flask_config_by_hand() -> None:
    """Flask's and its extensions' own keys aside (``MAX_CONTENT_LENGTH``, Flask-WTF's
    ``WTF_*``), settings are read from ``settings()``."""
    pattern = re.compile(r"config\.get\((?!\"WTF_)|config\[\"(?!MAX_CONTENT_LENGTH|WTF_)")
    offenders = [
        f"{path.relative_to(APP)}:{n}"
        for path in sorted(APP.rglob("*.py"))
        if path.name not in {"config.py", "settings.py"}
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line) and not line.lstrip().startswith(('"""', "#"))
    ]
    assert offenders == []
