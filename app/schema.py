"""JSON Schema (2020-12) for request bodies: the one description both the validator here and
the OpenAPI document (``app.api.openapi``) use.

Only a small subset of the vocabulary is understood, the one the API needs; ``check_schema``
refuses any other keyword, so a schema never says more in the document than the validator
enforces. ``validate(value, schema)`` raises ``InputError`` naming the first bad field by its
path (``width``, ``holes[2][0]``) with a sentence saying what was expected:

- missing required field: ``row is missing from the request body``
- unknown field: ``colour is not a field of this request: expected one of row, col``
- wrong type: ``width must be a whole number, not '10'`` (JSON integers only: no strings,
  floats or booleans), ``no_guess must be true or false, not 1``
- out of range: ``width 0 is out of range: allowed 1 to 1000``

It walks at most the depth of the schema, so it never recurses deeper than the schema does
(the body's own depth is bounded before it is parsed: ``app.jsonbody``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from app.errors import InputError


def json_shown(value: Any) -> str:
    """A JSON value quoted as JSON for an error message (``"7"``, ``true``, ``null``), at
    most 40 characters."""
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= 40 else text[:37] + "..."


Schema = Mapping[str, Any]

READER = "x-reader"
"""An object schema's annotation: this value is any JSON object, read whole by the function
named here (which names the bad part by its JSON path): the validator checks only that it is
an object. For documents that have their own format (a custom graph board)."""

KEYWORDS = frozenset(
    {
        # checked
        "type", "properties", "required", "additionalProperties", "enum", "minimum",
        "maximum", "items", "prefixItems", "minItems", "maxItems", "minLength", "maxLength",
        # annotations only
        "title", "description", "examples", "default", "$comment",
        # an object read whole by its own reader (named here), which names the bad part
        READER,
    }
)  # fmt: skip
"""The keywords a request schema may use."""

TYPES = frozenset({"object", "array", "integer", "boolean", "string"})

BODY = "body"
"""The field name of the whole body in errors."""


def check_schema(schema: Schema, where: str = "schema") -> None:
    """Raise ``ValueError`` if ``schema`` uses anything the validator does not enforce."""
    unknown = set(schema) - KEYWORDS
    if unknown:
        raise ValueError(f"{where} uses keywords the validator does not check: {sorted(unknown)}")
    kind = schema.get("type")
    if kind not in TYPES:
        raise ValueError(f"{where} must have one type of {sorted(TYPES)}, not {kind!r}")
    if kind == "object" and READER not in schema:
        extra = schema.get("additionalProperties", True)
        if extra is not False:
            raise ValueError(f"{where}: request objects must say additionalProperties: false")
        for name, sub in schema.get("properties", {}).items():
            check_schema(sub, f"{where}.{name}")
        missing = set(schema.get("required", ())) - set(schema.get("properties", {}))
        if missing:
            raise ValueError(f"{where} requires undeclared properties {sorted(missing)}")
    for i, sub in enumerate(schema.get("prefixItems", ())):
        check_schema(sub, f"{where}[{i}]")
    if "items" in schema and schema["items"] is not False:
        check_schema(schema["items"], f"{where}[]")


def validate(value: Any, schema: Schema, path: str = "") -> None:
    """Raise ``InputError`` naming the first part of ``value`` that ``schema`` refuses."""
    field = path or BODY
    kind = schema["type"]
    if kind == "object":
        _object(value, schema, path)
    elif kind == "array":
        _array(value, schema, path)
    elif kind == "integer":
        if not isinstance(value, int) or isinstance(value, bool):
            raise InputError(field, f"{field} must be a whole number, not {json_shown(value)}")
        _range(value, schema, field)
    elif kind == "boolean":
        if not isinstance(value, bool):
            raise InputError(field, f"{field} must be true or false, not {json_shown(value)}")
    elif kind == "string":
        if not isinstance(value, str):
            raise InputError(field, f"{field} must be a string, not {json_shown(value)}")
        if len(value) > schema.get("maxLength", len(value)):
            raise InputError(field, f"{field} is longer than {schema['maxLength']} characters")
        if len(value) < schema.get("minLength", 0):
            raise InputError(field, f"{field} is shorter than {schema['minLength']} characters")
    if "enum" in schema and value not in schema["enum"]:
        options = ", ".join(str(option) for option in schema["enum"])
        raise InputError(field, f"{field} must be one of {options}, not {json_shown(value)}")


def _object(value: Any, schema: Schema, path: str) -> None:
    if not isinstance(value, dict):
        what = path if path else "the request body"
        raise InputError(path or BODY, f"{what} must be a JSON object, not {json_shown(value)}")
    if READER in schema:
        return  # read whole by its own reader
    properties: Mapping[str, Schema] = schema.get("properties", {})
    for name in value:
        if name not in properties:
            expected = ", ".join(properties) or "no fields"
            named = name if name.isidentifier() and len(name) <= 40 else json_shown(name)
            raise InputError(
                _join(path, named),
                f"{_join(path, named)} is not a field of this request: expected one of {expected}",
            )
    for name in schema.get("required", ()):
        if value.get(name) is None:
            where = path if path else "the request body"
            null = "" if name not in value else " (it is null)"
            raise InputError(
                _join(path, name), f"{_join(path, name)} is missing from {where}{null}"
            )
    for name, sub in properties.items():
        if name in value:
            validate(value[name], sub, _join(path, name))


def _array(value: Any, schema: Schema, path: str) -> None:
    field = path or BODY
    if not isinstance(value, list):
        raise InputError(field, f"{field} must be a list, not {json_shown(value)}")
    if len(value) < schema.get("minItems", 0):
        least = schema["minItems"]
        items = "item" if least == 1 else "items"
        raise InputError(field, f"{field} must have at least {least} {items}")
    if len(value) > schema.get("maxItems", len(value)):
        raise InputError(field, f"{field} must have at most {schema['maxItems']} items")
    prefix = schema.get("prefixItems", ())
    for i, item in enumerate(value):
        if i < len(prefix):
            validate(item, prefix[i], f"{field}[{i}]")
        elif schema.get("items") is False:
            raise InputError(field, f"{field} must have at most {len(prefix)} items")
        elif "items" in schema:
            validate(item, schema["items"], f"{field}[{i}]")


def _range(number: int, schema: Schema, field: str) -> None:
    low, high = schema.get("minimum"), schema.get("maximum")
    if (low is not None and number < low) or (high is not None and number > high):
        allowed = (
            f"allowed {low} to {high}"
            if low is not None and high is not None
            else f"at least {low}"
            if low is not None
            else f"at most {high}"
        )
        raise InputError(field, f"{field} {number} is out of range: {allowed}")


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name
