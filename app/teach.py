"""Teaching pages: hints, proofs, analysis board (placeholder; the teaching engineer replaces this)."""

from flask import Blueprint

bp = Blueprint("teach", __name__)
