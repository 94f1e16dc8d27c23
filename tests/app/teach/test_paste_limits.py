"""What a new player tripped over on the analysis board (issue 7 section 2): a big paste is
read (the board takes 10,000 cells, more than the site's 16 KiB body limit once form-encoded),
an over-limit body and an unknown address get the site's own pages, the format a pasted text
was read in is said when it is not native, and the step count is worded right."""

from __future__ import annotations

from flask.testing import FlaskClient

from app.config import MAX_CONTENT_LENGTH
from app.teach.query import ANALYSE_MAX_BODY, ANALYSE_MAX_CELLS
from devil.formats import read


def big_board_text(side: int = 100) -> str:
    """A covered ``side`` x ``side`` board in the Codewars format (``?`` covered, spaces
    between cells): about 20,000 characters for 100 x 100, 40 KB form-encoded."""
    return "\n".join(" ".join("?" * side) for _ in range(side))


def test_a_100x100_paste_is_read_though_it_is_over_the_site_body_limit(
    client: FlaskClient,
) -> None:
    text = big_board_text()
    assert len(text) > MAX_CONTENT_LENGTH  # the size the old limit refused with a bare 413
    assert ANALYSE_MAX_CELLS >= 100 * 100
    response = client.post("/analyse", data={"text": text, "count": "classic"})
    assert response.status_code == 303, response.get_data(as_text=True)[:400]
    assert "/analyse?z=" in response.headers["Location"]


def test_other_routes_keep_the_site_body_limit(client: FlaskClient) -> None:
    response = client.post("/analyse/settings", data={"p": "1.", "x": "a" * 20_000})
    assert response.status_code == 413
    body = response.get_data(as_text=True)
    assert 'class="site-header"' in body, "the site's own page"
    assert f"{MAX_CONTENT_LENGTH:,} bytes" in body


def test_an_over_limit_paste_gets_the_site_page_naming_the_limit(client: FlaskClient) -> None:
    response = client.post("/analyse", data={"text": "." * (ANALYSE_MAX_BODY + 10)})
    assert response.status_code == 413
    body = response.get_data(as_text=True)
    assert 'class="site-header"' in body and "Too much at once" in body
    assert f"{ANALYSE_MAX_BODY:,} bytes" in body


def test_an_over_long_paste_keeps_the_text_in_the_box(client: FlaskClient) -> None:
    text = "." * 200_001
    response = client.post("/analyse", data={"text": text})
    assert response.status_code == 400
    body = response.get_data(as_text=True)
    assert "longer than 200000 characters" in body
    assert text in body, "the text is kept in the box"


def test_unknown_addresses_get_the_site_404_page(client: FlaskClient) -> None:
    for path in ("/no/such/page", "/analyse/nope", "/static/nope.css"):
        response = client.get(path)
        assert response.status_code == 404, path
        body = response.get_data(as_text=True)
        assert 'class="site-header"' in body, path
        assert "Page not found" in body or "No such" in body, path
    assert "There is no page at /no/such/page" in client.get("/no/such/page").get_data(as_text=True)
    api = client.get("/api/nope")
    assert api.status_code == 404 and api.is_json, "the API still answers JSON"


def test_a_format_other_than_native_is_said_after_the_paste(client: FlaskClient) -> None:
    text = "x1.\n11.\n"
    note = read(text).report.note
    assert note is not None
    response = client.post("/analyse", data={"text": text}, follow_redirects=True)
    assert response.status_code == 200
    body = response.get_data(as_text=True)
    assert 'id="format-note"' in body
    assert "minesweepr" in body and "line 1, column 1" in body
    # said once: the next visit of the page does not repeat it
    again = client.get("/analyse?p=.10/110").get_data(as_text=True)
    assert 'id="format-note"' not in again


def test_a_native_paste_says_nothing_about_formats(client: FlaskClient) -> None:
    response = client.post("/analyse", data={"text": "1110\n1..1\n1..1\n0111"})
    assert response.status_code == 303
    assert 'id="format-note"' not in client.get(response.headers["Location"]).get_data(as_text=True)


def test_a_stray_character_is_named_next_to_the_paste(client: FlaskClient) -> None:
    text = "1110\n1.x1\n1..1\n0111"
    response = client.post("/analyse", data={"text": text})
    assert response.status_code == 400
    body = response.get_data(as_text=True)
    error = body[body.index('id="paste-error"') :]
    error = error[: error.index("</p>")]
    assert "line 2, column 3" in error and "&#39;x&#39;" in error
    assert "--input-format" not in body, "the web names its own control, not the CLI flag"


def test_the_format_can_be_chosen(client: FlaskClient) -> None:
    response = client.post("/analyse", data={"text": "x1.\n11.", "format": "minesweepr"})
    assert response.status_code == 303
    bad = client.post("/analyse", data={"text": "11", "format": "nope"})
    assert bad.status_code == 400 and "ormat must be one of" in bad.get_data(as_text=True)


def test_steps_are_counted_in_words_that_agree(client: FlaskClient) -> None:
    one = client.get("/analyse?p=1.").get_data(as_text=True)
    assert "1 step deduces every cell" in one
    many = client.get("/analyse?p=1110/1..1/1..1/0111").get_data(as_text=True)
    assert " steps deduce every cell" in many and "1 step deduce " not in many
