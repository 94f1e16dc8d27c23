"""``/api/openapi.json``: a valid OpenAPI 3.1 document that describes exactly the app's ``/api``
routes, blueprint by blueprint, with the very schemas the views validate with."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Blueprint, Flask
from flask.testing import FlaskClient
from openapi_spec_validator import validate
from openapi_spec_validator.validation import OpenAPIV31SpecValidator

from app import openapi
from app.api.schemas import CELL, NEW_GAME

IGNORED_METHODS = {"HEAD", "OPTIONS"}


def rule_path(rule: str) -> str:
    """A Werkzeug rule as an OpenAPI path: ``/g/<int:n>`` -> ``/g/{n}``."""
    return re.sub(r"<(?:[a-z_]+:)?([a-z_]+)>", r"{\1}", rule)


def served(app: Flask) -> dict[str, set[tuple[str, str]]]:
    """``{blueprint: {(METHOD, path)}}`` of every ``/api`` rule of the app."""
    routes: dict[str, set[tuple[str, str]]] = {}
    for rule in app.url_map.iter_rules():
        if not (rule.rule == "/api" or rule.rule.startswith("/api/")):
            continue
        blueprint = rule.endpoint.rpartition(".")[0] or "(app)"
        for method in (rule.methods or set()) - IGNORED_METHODS:
            routes.setdefault(blueprint, set()).add((method, rule_path(rule.rule)))
    return routes


def documented(paths: dict[str, Any]) -> set[tuple[str, str]]:
    methods = {"get", "put", "post", "delete", "patch"}
    return {(m.upper(), path) for path, item in paths.items() for m in item if m in methods}


def test_the_document_is_valid_openapi_3_1(client: FlaskClient) -> None:
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    document = response.get_json()
    assert document["openapi"].startswith("3.1")
    validate(document, cls=OpenAPIV31SpecValidator)


NOT_YET_PUBLISHED: dict[str, str] = {}
"""Blueprints that arrived on main before describing their ``/api`` routes, each with what it
owes. The list may only shrink: a listed blueprint that publishes, or disappears, fails."""


def test_every_api_route_is_documented_and_every_documented_path_is_served(app: Flask) -> None:
    """Blueprint by blueprint: each one serving ``/api`` routes publishes exactly those
    (``app.openapi.publish(bp, paths)`` next to its views). A new blueprint is checked the
    moment it is registered."""
    routes = served(app)
    published = openapi.published(app)
    for blueprint in NOT_YET_PUBLISHED:
        assert blueprint in routes, f"{blueprint} serves no /api route: drop it from the list"
        assert blueprint not in published, f"{blueprint} publishes now: drop it from the list"
        del routes[blueprint]
    for blueprint, rules in sorted(routes.items()):
        assert blueprint in published, (
            f"blueprint {blueprint} serves {sorted(rules)} under /api but publishes no "
            "OpenAPI paths: call app.openapi.publish(bp, paths, schemas) next to its views"
        )
        paths, _ = published[blueprint]
        described = documented(paths)
        assert rules - described == set(), f"{blueprint}: served but not documented"
        assert described - rules == set(), f"{blueprint}: documented but not served"
    everything = documented(openapi.document(app)["paths"])
    assert everything == set().union(*routes.values())


def test_the_document_holds_the_schemas_the_views_validate_with(app: Flask) -> None:
    schemas = openapi.document(app)["components"]["schemas"]
    assert schemas["NewGame"] is NEW_GAME
    assert schemas["Cell"] is CELL


def test_a_blueprint_plugs_its_paths_in_by_publishing_them(make_app: Any) -> None:
    """How Devil World's routes join the document: publish next to the views, register."""
    extra = Blueprint("extra_api", __name__)

    @extra.get("/<name>/view")
    def view(name: str) -> str:
        return name

    openapi.publish(
        extra,
        {
            "/{name}/view": {
                "get": {
                    "parameters": [openapi.path_parameter("name", {"type": "string"}, "a name")],
                    "responses": {"200": {"description": "a view"}},
                }
            }
        },
        schemas={"Extra": {"type": "object"}},
    )
    app = make_app()
    app.register_blueprint(extra, url_prefix="/api/extra")
    document = openapi.document(app)
    assert "/api/extra/{name}/view" in document["paths"]
    assert "Extra" in document["components"]["schemas"]
    assert ("GET", "/api/extra/{name}/view") in served(app)["extra_api"]
    validate(document, cls=OpenAPIV31SpecValidator)


def test_two_blueprints_cannot_publish_the_same_path(make_app: Any) -> None:
    one, two = Blueprint("one", __name__), Blueprint("two", __name__)
    item = {"get": {"responses": {"200": {"description": "x"}}}}
    openapi.publish(one, {"/x": item})
    openapi.publish(two, {"/x": item})
    app = make_app()
    app.register_blueprint(one, url_prefix="/api/same")
    app.register_blueprint(two, url_prefix="/api/same")
    with pytest.raises(ValueError, match="already published"):
        openapi.document(app)
