"""HTML pages (placeholder; the UI engineer replaces this)."""

from flask import Blueprint

bp = Blueprint("views", __name__)
