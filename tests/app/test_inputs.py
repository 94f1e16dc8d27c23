"""The strict input layer (issue 8, finding 5): every form field, query argument and JSON body
is read by ``app.fields`` / ``app.jsonbody`` / ``app.schema``; a bad one is a 400 naming it,
never a 500, and only ASCII digits make numbers."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.api.schemas import CELL, NEW_GAME
from app.errors import InputError
from app.fields import integer_text, number_pair
from app.jsonbody import MAX_DEPTH, nesting_depth, parse_json
from app.schema import check_schema, json_shown, validate
from tests.helpers.strategies import profile
from tests.helpers.web import HX, Api, csrf_token, move, new_game

NOT_ASCII_NUMBERS = [
    "\u00b2",  # superscript two: str.isdigit() says yes, int() says no (the 500 of finding 5)
    "--3",  # lstrip("-") made it look like a number
    "\u0663",  # Arabic-Indic three: int() takes it
    "\uff13",  # fullwidth three: int() takes it
    "1_0",  # int() takes underscores
    "+3",
    "3.0",
    "0x1f",
    "",
    " ",
    "1" * 21,
]


# -- the exact inputs of finding 5 ------------------------------------------------------------


def test_a_superscript_width_is_a_400_not_a_500(client: FlaskClient) -> None:
    response = client.post("/api/games", json={"width": "\u00b2"})
    assert response.status_code == 400
    assert response.json["field"] == "width"
    assert "whole number" in response.json["error"]


def test_a_double_minus_row_is_a_400_not_a_500(api: Api, client: FlaskClient) -> None:
    game = api.create(width=6, height=6, mines=4, seed=1)
    response = client.post(
        f"/api/games/{game['id']}/reveal",
        json={"row": "--3", "col": 1},
        headers={"Authorization": f"Bearer {game['token']}"},
    )
    assert response.status_code == 400
    assert response.json["field"] == "row"
    assert api.log(game["id"]) == []


@pytest.mark.parametrize("text", NOT_ASCII_NUMBERS[:4])
@pytest.mark.parametrize("name", ["width", "height", "mines", "seed"])
def test_the_new_game_form_refuses_numbers_that_are_not_ascii(
    client: FlaskClient, name: str, text: str
) -> None:
    form = {"preset": "custom", "width": "9", "height": "9", "mines": "10", "seed": "3",
            "topology": "square", "count": "classic", "mercy": "strict"}  # fmt: skip
    form[name] = text
    form["csrf_token"] = csrf_token(client)
    response = client.post("/new", data=form)
    assert response.status_code == 400
    assert f"{name} must be a whole number" in response.get_data(as_text=True)


@pytest.mark.parametrize(
    ("at", "part"),
    [("--1,2", "row '--1'"), ("1,--2", "col '--2'"), ("\u0663,2", "row '\u0663'"),
     ("1,\uff13", "col '\uff13'"), ("\u00b2,1", "row '\u00b2'"), ("1,2,3", None)],
)  # fmt: skip
def test_the_move_form_names_the_bad_part_of_at(
    client: FlaskClient, at: str, part: str | None
) -> None:
    game_id = new_game(client)
    response = move(client, game_id, at)
    assert response.status_code == 400
    text = response.get_data(as_text=True)
    assert "at must be" in text
    if part is not None:
        assert f"the {part} is not a whole number" in text.replace("&#39;", "'")
    assert len(client.get(f"/api/games/{game_id}/moves").json["moves"]) == 0


@pytest.mark.parametrize("value", ["--3", "\u0663", "\uff13", "\u00b2"])
def test_the_move_form_row_and_col_fields_are_strict(client: FlaskClient, value: str) -> None:
    game_id = new_game(client)
    headers = {"X-CSRFToken": csrf_token(client), **HX}
    response = client.post(
        f"/g/{game_id}/move", data={"kind": "open", "row": value, "col": "1"}, headers=headers
    )
    assert response.status_code == 400
    assert "row must be a whole number" in response.get_data(as_text=True).replace("&#39;", "'")


@pytest.mark.parametrize("depth", [1000, 20, MAX_DEPTH + 1])
@pytest.mark.parametrize("opener", ["[", '{"a":'])
def test_deeply_nested_json_is_a_400_before_any_parsing(
    api: Api, client: FlaskClient, depth: int, opener: str
) -> None:
    closer = "]" if opener == "[" else "}"
    body = opener * depth + "1" + closer * depth
    game = api.create(width=6, height=6, mines=4, seed=1)
    for path, headers in (
        ("/api/games", {}),
        (f"/api/games/{game['id']}/reveal", {"Authorization": f"Bearer {game['token']}"}),
    ):
        response = client.post(path, data=body, content_type="application/json", headers=headers)
        assert response.status_code == 400, response.json
        assert response.json["field"] == "body"
        assert f"nests {depth} levels deep" in response.json["error"]


def test_json_nested_100000_deep_within_the_body_limit_is_a_400(
    app: Flask, client: FlaskClient
) -> None:
    depth = app.config["MAX_CONTENT_LENGTH"] - 1
    response = client.post("/api/games", data="[" * depth, content_type="application/json")
    assert response.status_code == 400
    assert "levels deep" in response.json["error"]


# -- JSON bodies: schemas name the bad field ----------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"width": "9"}, "width", "whole number"),  # JSON numbers are JSON numbers
        ({"width": "\u0663"}, "width", "whole number"),
        ({"width": "\uff13"}, "width", "whole number"),
        ({"width": 9.0}, "width", "whole number"),
        ({"colour": "red"}, "colour", "not a field"),
        ({"no_guess": 1}, "no_guess", "true or false"),
        ({"preset": "Expert"}, "preset", "one of beginner, intermediate, expert"),
        ({"holes": [[1, 2, 3]]}, "holes[0]", "at most 2 items"),
        ({"holes": [[1]]}, "holes[0]", "at least 2 items"),
        ({"holes": [[1, "2"]]}, "holes[0][1]", "whole number"),
        ({"width": None}, "width", "whole number"),
    ],
)
def test_new_game_bodies_are_checked_against_the_schema(
    client: FlaskClient, body: dict[str, Any], field: str, words: str
) -> None:
    response = client.post("/api/games", json=body)
    assert response.status_code == 400
    assert response.json["field"] == field
    assert words in response.json["error"]


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ('{"row": NaN, "col": 1}', "NaN is not a JSON number"),
        ('{"row": Infinity, "col": 1}', "Infinity is not a JSON number"),
        ('{"row": 1, "col": 1', "not valid JSON"),
        ('{"row": 1' + "0" * 5000 + ', "col": 1}', "not valid JSON"),
        (b'{"row": 1, "col": "\xff"}', "not UTF-8"),
        ('{"row": 1, "col": 1, "kind": "reveal"}', "kind is not a field of this request"),
    ],
)
def test_move_bodies_are_checked_against_the_schema(
    api: Api, client: FlaskClient, raw: str | bytes, words: str
) -> None:
    game = api.create(width=6, height=6, mines=4, seed=1)
    response = client.post(
        f"/api/games/{game['id']}/reveal",
        data=raw,
        content_type="application/json",
        headers={"Authorization": f"Bearer {game['token']}"},
    )
    assert response.status_code == 400
    assert words in response.json["error"]
    assert api.log(game["id"]) == []


# -- query arguments -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("p=1./..&step=\u0663", "step"),
        ("p=1./..&step=--1", "step"),
        ("p=1./..&cell=\u0663,0", "cell"),
        ("p=1./..&cell=0,\uff13", "cell"),
        ("p=1./..&toggle=\u00b2,0", "toggle"),
        ("new=\uff18x8", "new"),
        ("new=8x--8", "new"),
        ("new=8x8&mines=\u0663", "mines"),
    ],
)
def test_analysis_query_numbers_are_ascii_only(client: FlaskClient, query: str, field: str) -> None:
    response = client.get(f"/analyse?{query}")
    assert response.status_code == 400
    assert field in response.get_data(as_text=True)


def test_replay_and_watch_numbers_are_ascii_only(client: FlaskClient) -> None:
    game_id = new_game(client)
    assert move(client, game_id, "4,4").status_code == 200
    for path in (
        f"/g/{game_id}/replay/\u0660",
        f"/g/{game_id}/replay?n=\u0660",
        f"/g/{game_id}/replay/--1",
    ):
        response = client.get(path)
        assert response.status_code == 400, path
        assert "n must be a move number" in response.get_data(as_text=True)
    response = client.get(f"/g/{game_id}?since=\u0660", headers=HX)
    assert response.status_code == 400
    assert client.get(f"/api/games/{game_id}/replay/\u0660").status_code == 404
    assert client.get(f"/api/games/{game_id}/replay/0").status_code == 200


def test_puzzle_seed_and_level_are_ascii_only(client: FlaskClient) -> None:
    for query in ("level=\uff12&seed=1", "level=2&seed=\u0663", "level=2&seed=1_0"):
        response = client.get(f"/puzzle?preset=beginner&{query}")
        assert response.status_code == 400, query


# -- the layer itself ----------------------------------------------------------------------------


@pytest.mark.parametrize("text", NOT_ASCII_NUMBERS)
def test_integer_text_refuses_anything_but_ascii_digits(text: str) -> None:
    with pytest.raises(InputError) as caught:
        integer_text(text, "n")
    assert caught.value.field == "n"


@profile()
@given(st.integers(min_value=-(10**19), max_value=10**19))
def test_integer_text_reads_every_number_python_writes(n: int) -> None:
    assert integer_text(str(n), "n") == n
    assert integer_text(f" {n}\t", "n") == n


@profile()
@given(st.text(max_size=12))
def test_integer_text_reads_exactly_ascii_numbers(text: str) -> None:
    ascii_number = re.fullmatch(r"-?[0-9]{1,20}", text.strip(" \t\r\n"), re.ASCII)
    try:
        value = integer_text(text, "n")
    except InputError:
        assert ascii_number is None
    else:
        assert ascii_number is not None and value == int(text)


@profile()
@given(st.text(max_size=12))
def test_number_pair_answers_or_names_the_field(text: str) -> None:
    try:
        row, col = number_pair(text, "at")
    except InputError as exc:
        assert exc.field == "at"
    else:
        assert f"{row},{col}" == ",".join(part.strip(" \t\r\n") for part in text.split(","))


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)
FIELDS = st.sampled_from([*NEW_GAME["properties"], "row", "col", "x"])


@profile()
@given(st.dictionaries(FIELDS, JSON_VALUES, max_size=5) | JSON_VALUES)
def test_the_schemas_accept_or_name_a_field(value: Any) -> None:
    for schema in (NEW_GAME, CELL):
        try:
            validate(value, schema)
        except InputError as exc:
            named = exc.field
            keys = value if isinstance(value, dict) else {}
            assert (
                named == "body"
                or named in schema.get("required", ())
                or any(
                    named in (k, json_shown(k)) or named.startswith((f"{k}[", f"{k}."))
                    for k in keys
                )
            ), named
            assert str(exc)


@profile()
@given(st.binary(max_size=64) | JSON_VALUES.map(lambda v: json.dumps(v).encode()))
def test_parse_json_answers_or_names_the_body(raw: bytes) -> None:
    try:
        parse_json(raw)
    except InputError as exc:
        assert exc.field == "body"


@profile()
@given(JSON_VALUES)
def test_nesting_depth_is_the_depth_of_the_value(value: Any) -> None:
    def depth(v: Any) -> int:
        if isinstance(v, list):
            return 1 + max((depth(x) for x in v), default=0)
        if isinstance(v, dict):
            return 1 + max((depth(x) for x in v.values()), default=0)
        return 0

    assert nesting_depth(json.dumps(value).encode()) == depth(value)


def test_schemas_use_only_what_the_validator_checks() -> None:
    check_schema(NEW_GAME)
    check_schema(CELL)
    with pytest.raises(ValueError, match="pattern"):
        check_schema({"type": "string", "pattern": "^a"})
    with pytest.raises(ValueError, match="additionalProperties"):
        check_schema({"type": "object", "properties": {}})
    for schema in (NEW_GAME, CELL):
        for example in schema["examples"]:
            validate(example, schema)


# -- the pages' fields: any text is an answer, never a 500 ----------------------------------------

TEXT = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=12)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(field=st.sampled_from(["width", "height", "mines", "seed", "preset", "topology", "count",
                              "mercy", "no_guess"]), text=TEXT)  # fmt: skip
def test_any_text_in_the_new_game_form_is_an_answer(app: Flask, field: str, text: str) -> None:
    client = app.test_client()
    form = {"preset": "custom", "width": "5", "height": "5", "mines": "3", field: text,
            "csrf_token": csrf_token(client)}  # fmt: skip
    assert client.post("/new", data=form).status_code in (303, 400)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(at=TEXT, row=TEXT, kind=st.sampled_from(["open", "flag", "chord", "x"]))
def test_any_text_in_the_move_form_is_an_answer(app: Flask, at: str, row: str, kind: str) -> None:
    client = app.test_client()
    game_id = new_game(client)
    headers = {"X-CSRFToken": csrf_token(client), **HX}
    for data in ({"kind": kind, "at": at}, {"kind": kind, "row": row, "col": "1"}):
        assert client.post(f"/g/{game_id}/move", data=data, headers=headers).status_code in (
            200, 400, 409,
        )  # fmt: skip


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(name=st.sampled_from(["step", "cell", "toggle", "new", "mines", "count", "n", "since"]),
       text=TEXT)  # fmt: skip
def test_any_text_in_a_query_argument_is_an_answer(app: Flask, name: str, text: str) -> None:
    client = app.test_client()
    response = client.get("/analyse", query_string={"p": "1./..", name: text})
    assert response.status_code in (200, 303, 400)
    response = client.get(
        "/puzzle", query_string={"preset": "beginner", "level": text, "seed": "1"}
    )
    assert response.status_code in (200, 303, 400)


def test_a_key_given_twice_is_a_400_naming_it(api: Api, client: FlaskClient) -> None:
    """Parsers disagree on which of two equal keys wins ({"x": 4, "x": 5}): refused, not
    guessed, in every JSON body."""
    with pytest.raises(InputError, match="gives 'x' twice"):
        parse_json(b'{"moves": [{"kind": "reveal", "x": 4, "x": 5, "y": 0}]}')
    game = api.create(width=9, height=9, mines=10, seed=3)
    r = client.post(
        f"/api/games/{game['id']}/reveal",
        data=b'{"row": 1, "row": 2, "col": 0}',
        headers={"Authorization": f"Bearer {game['token']}", "Content-Type": "application/json"},
    )
    assert r.status_code == 400 and "gives 'row' twice" in r.get_json()["error"]
    assert parse_json(b'{"a": {"x": 1}, "b": {"x": 2}}') == {"a": {"x": 1}, "b": {"x": 2}}
