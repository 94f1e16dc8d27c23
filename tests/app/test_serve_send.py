"""gunicorn's responses with their headers and body in one send (``app.serve``)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from gunicorn.config import Config  # type: ignore[import-untyped]
from gunicorn.http import wsgi  # type: ignore[import-untyped]

from app.serve import one_send_per_response


class Sock:
    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        self.sent.append(data)


def respond(headers: list[tuple[str, str]], body: list[bytes]) -> list[bytes]:
    sock = Sock()
    request = SimpleNamespace(version=(1, 1), method="GET", headers=(), should_close=lambda: False)
    response: Any = wsgi.Response(request, sock, Config())
    response.start_response("200 OK", headers)
    for part in body:
        response.write(part)
    response.close()
    return sock.sent


def test_a_response_goes_out_in_one_send_and_a_stream_as_before() -> None:
    plain = wsgi.Response.write
    sized = [("Content-Type", "application/json"), ("Content-Length", "11")]
    streamed = [("Content-Type", "text/event-stream")]
    before = respond(sized, [b'{"a": 1}', b"abc", b"too much"]), respond(streamed, [b"x", b"yz"])
    try:
        one_send_per_response()
        one_send_per_response()  # once only
        after = respond(sized, [b'{"a": 1}', b"abc", b"too much"]), respond(streamed, [b"x", b"yz"])
    finally:
        wsgi.Response.write = plain

    def same(sent: list[bytes]) -> bytes:  # the Date header changes between seconds
        return b"".join(line for line in b"".join(sent).split(b"\r\n") if b"Date:" not in line)

    assert len(before[0]) == 3 and len(after[0]) == 2  # headers + body, then the rest
    assert after[0][0].endswith(b'\r\n\r\n{"a": 1}')
    assert same(after[0]) == same(before[0])  # the same bytes: nothing past Content-Length
    assert after[1] == before[1] or same(after[1]) == same(before[1])  # chunked: unchanged
    assert len(after[1]) == len(before[1])
