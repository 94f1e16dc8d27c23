"""The teaching pages' tests post forms without CSRF tokens (CSRF itself is tested apart)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from flask import Flask


@pytest.fixture
def app(make_app: Callable[..., Flask]) -> Flask:
    return make_app(WTF_CSRF_ENABLED=False)
