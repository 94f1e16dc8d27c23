"""The analysis board: verdicts and proofs like the oracle and devil-check, stepping, drawing,
pasting, settings, export, position links."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from devil import oracle
from devil.analysis import Verdict
from devil.position import Position
from devil.rules import Count
from tests.helpers.teach import (
    cell_classes,
    cell_of_id,
    proof_items,
)


@pytest.mark.parametrize(
    ("line", "count"),
    [
        ("121/...", "classic"),
        ("1110/1..1/1..1/0111", "classic"),
        ("1../...;mines=1", "counted"),
        ("011/.../011;topology=hex", "classic"),
        ("111/1.1/111;topology=torus", "classic"),
    ],
)
def test_analysis_colours_every_covered_cell_like_the_oracle(
    client: FlaskClient, line: str, count: str
) -> None:
    response = client.get("/analyse", query_string={"p": line, "count": count})
    assert response.status_code == 200
    body = response.get_data(as_text=True)
    position = Position.from_line(line)
    truth = oracle.classify(position, Count(count))
    probs = oracle.probabilities(position, Count(count))
    classes = cell_classes(body)
    for cell, verdict in truth.verdicts.items():
        r, c = position.board.coord(cell)
        assert f"v-{verdict.value}" in classes[(r, c)].split()
        tip = re.search(rf'id="a-c-{r}-{c}"[^>]*data-tip="([^"]*)"', body)
        assert tip and f"{verdict.value}, mine probability" in tip.group(1)
        shown = tip.group(1).rsplit(" ", 1)[1]
        p = float(probs[cell])
        if shown.startswith(("<", ">")):
            assert 0 < p < 0.01 or 0.99 < p < 1
        else:
            assert int(shown.rstrip("%")) == round(p * 100)


def test_selecting_a_cell_shows_its_proof_with_numbers_highlighted(client: FlaskClient) -> None:
    body = client.get("/analyse?p=121/...&cell=1,2").get_data(as_text=True)
    assert 'id="proof"' in body and "row 1, col 2 is a mine" in body
    section = re.search(r'data-highlight="([^"]*)"', body)
    assert section
    marks = json.loads(html.unescape(section.group(1)))
    assert marks["hl-target"] == ["a-c-1-2"]
    assert len(marks["hl-number"]) == 2
    assert "level 2" in body


def test_either_cell_shows_two_consistent_layouts(client: FlaskClient) -> None:
    body = client.get("/analyse?p=1./..&cell=0,1").get_data(as_text=True)
    assert "A layout with a mine on row 0, col 1" in body
    assert "A layout with row 0, col 1 safe" in body
    position = Position.from_line("1./..")
    for prefix, has_mine in (("l0-", True), ("l1-", False)):
        classes = cell_classes(body, prefix)
        layout = {
            position.board.cell(*rc) for rc, cls in classes.items() if "lay-mine" in cls.split()
        }
        assert oracle.is_consistent(position, layout)
        assert (position.board.cell(0, 1) in layout) is has_mine


def test_stepping_through_the_deduction(client: FlaskClient) -> None:
    line = "1110/1..1/1..1/0111"
    body = client.get("/analyse", query_string={"p": line}).get_data(as_text=True)
    total = re.search(r"(\d+) steps? deduce every cell", body)
    assert total
    n = int(total.group(1))
    seen_mines: set[tuple[int, int]] = set()
    truth = oracle.classify(Position.from_line(line))
    for step in range(1, n + 1):
        page = client.get("/analyse", query_string={"p": line, "step": step}).get_data(as_text=True)
        assert f"Step {step} of {n}" in page
        found = re.search(r'data-highlight="([^"]*)"', page)
        assert found
        marks = json.loads(html.unescape(found.group(1)))
        for cell_id in marks.get("hl-new-mine", []):
            rc = cell_of_id(cell_id)
            seen_mines.add(rc)
            assert truth.verdict(Position.from_line(line).board.cell(*rc)) is Verdict.MINE
        if step > 1:
            assert "step-back" in page and f"step={step - 1}" in html.unescape(page)
        hide = re.search(r'class="btn step-clear" href="([^"]*)"', page)
        assert hide and hide.group(1).startswith("/analyse?"), "Hide steps links to the analysis"
    mines = {Position.from_line(line).board.coord(c) for c in truth.mine_cells()}
    assert seen_mines == mines


def test_paste_any_format_redirects_to_a_shareable_url(client: FlaskClient) -> None:
    response = client.post("/analyse", data={"text": "1 1 ?\n? ? ?\n", "count": "classic"})
    assert response.status_code == 303
    location = response.headers["Location"]
    assert "/analyse?p=11./..." in location.replace("%2F", "/")
    assert client.get(location).status_code == 200


def test_paste_errors_name_line_and_column(client: FlaskClient) -> None:
    response = client.post("/analyse", data={"text": "12\n1z\n"})
    assert response.status_code == 400
    body = response.get_data(as_text=True)
    assert "line 2" in body and "column" in body


def test_empty_paste_is_refused(client: FlaskClient) -> None:
    response = client.post("/analyse", data={"text": "  "})
    assert response.status_code == 400
    assert "text box is empty" in response.get_data(as_text=True)


def test_inconsistent_position_is_explained(client: FlaskClient) -> None:
    body = client.get("/analyse?p=0.2/...").get_data(as_text=True)
    assert 'id="analyse-error"' in body and "No layout of mines fits" in body
    assert 'id="analyse-summary"' not in body  # no "0 safe 0 mines 0 either" beside it


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"p": "12x/..."}, "p is not a one-line position"),
        ({"p": "1./..", "cell": "5,5"}, "off the 2x2 board"),
        ({"p": "1./..", "cell": "a"}, "cell must be 'row,col'"),
        ({"p": "1./..", "count": "maybe"}, "count must be classic or counted"),
        ({"p": "1./..", "step": "-1"}, "step -1 is outside"),
        ({"p": "/".join(["." * 101] * 100)}, "at most 10000 cells"),
        ({"new": "0x5"}, "height and width must be 1 to 100"),
    ],
)
def test_bad_analysis_queries_are_400(
    client: FlaskClient, query: dict[str, str], message: str
) -> None:
    response = client.get("/analyse", query_string=query)
    assert response.status_code == 400
    assert message in html.unescape(response.get_data(as_text=True))


def test_selecting_a_revealed_cell_shows_no_proof(client: FlaskClient) -> None:
    body = client.get("/analyse?p=121/...&cell=0,0").get_data(as_text=True)
    assert 'id="proof"' not in body


def test_counted_without_a_total_says_so(client: FlaskClient) -> None:
    body = client.get("/analyse?p=121/...&count=counted").get_data(as_text=True)
    assert "needs the total number of mines" in body


def test_drawing_cycles_a_cell(client: FlaskClient) -> None:
    response = client.get("/analyse?new=2x3")
    assert response.status_code == 303
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert re.search(r'id="a-c-0-0"[^>]*name="toggle" value="0,0"', page)
    step = client.get("/analyse", query_string={"p": ".../...", "toggle": "0,0"})
    assert step.status_code == 303
    location = html.unescape(step.headers["Location"]).replace("%2F", "/")
    assert "p=0../..." in location and "draw=1" in location
    # 8 -> hole -> covered
    hole = client.get("/analyse", query_string={"p": "8../...", "toggle": "0,0"})
    assert "p=%23../..." in hole.headers["Location"].replace("%2F", "/")


def test_cells_are_buttons_of_one_form_so_big_boards_stay_small(client: FlaskClient) -> None:
    line = "/".join(["." * 60] * 60)
    body = client.get("/analyse", query_string={"p": line}).get_data(as_text=True)
    assert body.count(line) < 10, "the position is repeated per cell"
    assert len(body) < 250 * 3600, f"{len(body)} bytes for 3600 cells"
    assert 'name="cell" value="59,59"' in body


def test_settings_change_topology_and_mines(client: FlaskClient) -> None:
    response = client.post(
        "/analyse/settings", data={"p": "121/...", "topology": "torus", "mines": "2"}
    )
    assert response.status_code == 303
    assert "topology%3Dtorus" in response.headers["Location"] or "topology=torus" in html.unescape(
        response.headers["Location"]
    )


def test_export_text_and_svg(client: FlaskClient) -> None:
    text = client.get("/analyse/export.txt?p=121/...;mines=2")
    assert text.status_code == 200 and text.mimetype == "text/plain"
    assert text.get_data(as_text=True) == "# mines: 2\n121\n...\n"
    counted = client.get("/analyse/export.txt?p=121/...;mines=2&count=counted")
    lines = counted.get_data(as_text=True).splitlines()
    assert lines[0].startswith("# analysed under the counted rule") and lines[1:] == [
        "# mines: 2", "121", "...",
    ]  # fmt: skip
    page = client.get("/analyse?p=121/...;mines=2&count=counted").get_data(as_text=True)
    link = re.search(r'id="export-text" href="([^"]+)"', page)
    assert link and "count=counted" in link.group(1)
    svg = client.get("/analyse/export.svg?p=121/...")
    assert svg.mimetype == "image/svg+xml"
    body = svg.get_data(as_text=True)
    assert body.startswith("<svg") and body.count("<rect") == 6
    assert ">M<" in body and ">S<" in body


def test_analysis_page_shares_its_url(client: FlaskClient) -> None:
    body = client.get("/analyse?p=121/...").get_data(as_text=True)
    share = re.search(r'id="share-url" type="text" readonly value="([^"]+)"', body)
    assert share and "p=121" in html.unescape(share.group(1)).replace("%2F", "/")


def test_big_positions_travel_compressed(client: FlaskClient) -> None:
    """Servers cap the request line (gunicorn: 4094 bytes): long positions use ``z``."""
    rows = ["0" * 80] + ["1" * 80] + ["." * 80] * 78
    line = "/".join(rows)
    response = client.post("/analyse", data={"text": "\n".join(rows)})
    assert response.status_code == 303
    location = response.headers["Location"]
    assert "z=" in location and "p=" not in location and len(location) < 4000
    page = client.get(location)
    assert page.status_code == 200
    body = page.get_data(as_text=True)
    assert 'name="z"' in body
    assert (
        client.get(location.replace("/analyse?", "/analyse/export.txt?")).get_data(as_text=True)
        == line.replace("/", "\n") + "\n"
    )


def test_damaged_compressed_link_is_400(client: FlaskClient) -> None:
    response = client.get("/analyse?z=not-a-position")
    assert response.status_code == 400
    assert "damaged link" in response.get_data(as_text=True)


def test_analysis_proof_is_word_for_word_the_devil_check_proof(
    client: FlaskClient, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from devil.cli import check as cli

    line = "121/...;mines=2"
    position = Position.from_line(line)
    path = tmp_path / "p.txt"
    path.write_text(position.to_text())
    for r, c in ((1, 0), (1, 1), (1, 2)):
        for count in ("classic", "counted"):
            body = client.get(f"/analyse?p={line}&cell={r},{c}&count={count}").get_data(
                as_text=True
            )
            flags = ["--counted"] if count == "counted" else []
            cli.main([str(path), "--cell", f"{r},{c}", "--explain", "--format", "json", *flags])
            proof = json.loads(capsys.readouterr().out)["proof"]
            assert proof_items(body, "proof") == proof["steps"]
            heading = re.search(r'<h3 id="proof-title">The cell at row (\d+), col (\d+) is', body)
            assert heading and (int(heading.group(1)), int(heading.group(2))) == (r, c)
            label = re.search(rf'id="a-c-{r}-{c}"[^>]*aria-label="([^"]*)"', body)
            assert label and label.group(1).startswith(f"row {r}, col {c},")


def test_analysis_errors_name_cells_zero_based(client: FlaskClient) -> None:
    body = html.unescape(client.get("/analyse?p=0.2/...").get_data(as_text=True))
    assert "the 2 at row 0, col 2" in body


def test_bad_paste_reshows_the_form_with_the_text_and_the_error(client: FlaskClient) -> None:
    pasted = "12\n1z\n"
    response = client.post(
        "/analyse", data={"text": pasted, "mines": "3", "topology": "torus", "p": "1./.."}
    )
    assert response.status_code == 400
    body = response.get_data(as_text=True)
    assert 'id="paste-form"' in body, "the analysis page again, not a dead-end error page"
    textarea = re.search(r'<textarea id="paste-text"[^>]*>\n?(.*?)</textarea>', body, re.S)
    assert textarea and html.unescape(textarea.group(1)) == pasted
    assert 'aria-describedby="paste-error"' in body
    error = re.search(r'<p class="form-error" role="alert" id="paste-error">(.*?)</p>', body, re.S)
    assert error and "line 2" in error.group(1) and "column 2" in error.group(1)
    form = body[body.index('id="paste-form"') :]
    assert '<option value="torus" selected>' in form and 'name="mines"' in form
    assert re.search(r'name="mines"[^>]*value="3"', form)
    # the board the player was looking at is still there, and said to be the old one
    assert 'id="a-c-1-1"' in body and 'id="a-c-2-0"' not in body
    assert 'id="paste-kept"' in body and "still the one from before" in body
    assert "Start a new game" not in body


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"text": "  "}, "text box is empty"),
        ({"text": "1.\n..\n", "mines": "-1"}, "ines -1 is outside"),
        ({"text": "1.\n..\n", "topology": "sphere"}, "sphere"),
    ],
)
def test_every_bad_paste_keeps_the_form(
    client: FlaskClient, data: dict[str, str], message: str
) -> None:
    response = client.post("/analyse", data=data)
    assert response.status_code == 400
    body = response.get_data(as_text=True)
    error = re.search(r'id="paste-error">(.*?)</p>', body, re.S)
    assert error and message in html.unescape(error.group(1))
    assert 'id="paste-form"' in body


def test_bad_paste_with_a_damaged_board_field_falls_back_to_the_sample(client: FlaskClient) -> None:
    response = client.post("/analyse", data={"text": "1z", "p": "not a position"})
    assert response.status_code == 400
    assert 'id="paste-error"' in response.get_data(as_text=True)
