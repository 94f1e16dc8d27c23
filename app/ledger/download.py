"""A file the browser saves rather than shows: its body, type and name."""

from __future__ import annotations

from flask import Response


def download(body: bytes | str, mimetype: str, filename: str) -> Response:
    """``body`` sent as ``filename`` (``Content-Disposition: attachment``)."""
    response = Response(body, mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
