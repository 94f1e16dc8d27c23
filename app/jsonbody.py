"""Request bodies as JSON, read strictly: bounded depth before any parsing, no ``NaN`` or
``Infinity``, UTF-8 only, then checked against the route's schema (``app.schema``).

``json_body(schema)`` is the only way a view reads a JSON body. Every refusal is an
``InputError`` (400) naming ``body`` or the bad field; nothing here can raise anything else
(a body nested 100,000 deep is refused by a linear scan, before ``json.loads`` could recurse).
"""

from __future__ import annotations

import json
import re
from typing import Any

from flask import request

from app.errors import InputError
from app.schema import BODY, Schema, validate

MAX_DEPTH = 16
"""Deepest nesting of arrays and objects a body may have (the API's bodies need 3)."""

_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)
"""Strings (skipped whole, brackets inside them do not count) and brackets."""


def nesting_depth(raw: bytes) -> int:
    """How deep the arrays and objects of ``raw`` nest (a linear scan, no recursion)."""
    depth = deepest = 0
    for match in _TOKENS.finditer(raw):
        token = match.group()
        if token in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        elif token in (b"]", b"}"):
            depth -= 1
    return deepest


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are all different: ``{"x": 4, "x": 5}`` is ambiguous (parsers
    disagree on which one wins), so it is refused naming the key."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise InputError(BODY, f"the request body gives {key!r} twice in one object")
        found[key] = value
    return found


def parse_json(raw: bytes, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value of ``raw``; InputError naming ``body`` when it is not JSON or nests
    deeper than ``max_depth``."""
    depth = nesting_depth(raw)
    if depth > max_depth:
        raise InputError(BODY, f"the request body nests {depth} levels deep: at most {max_depth}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(BODY, f"the request body is not UTF-8 (byte {exc.start})") from None
    try:
        return json.loads(text, parse_constant=_constant, object_pairs_hook=_no_repeats)
    except json.JSONDecodeError as exc:
        raise InputError(
            BODY,
            f"the request body must be a JSON object, and is not valid JSON: {exc.msg} "
            f"at line {exc.lineno}, column {exc.colno}",
        ) from None
    except (ValueError, RecursionError) as exc:  # NaN, a number of over 4,300 digits
        raise InputError(
            BODY, f"the request body must be a JSON object, and is not valid JSON: {exc}"
        ) from None


def json_body(schema: Schema, optional: bool = False) -> dict[str, Any]:
    """This request's JSON body, checked against ``schema`` (an object schema). An empty
    body is ``{}`` when ``optional``, else an error showing the schema's example."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        if optional:
            return {}
        example = schema.get("examples", [{}])[0]
        raise InputError(
            BODY,
            f"the request body must be a JSON object like {json.dumps(example)}",
        )
    value = parse_json(raw)
    if not isinstance(value, dict):
        raise InputError(
            BODY, f"the request body must be a JSON object, not {type(value).__name__}"
        )
    validate(value, schema)
    return value
