"""What the tests share, imported one way (``from tests.helpers.x import ...``):
``strategies`` (hypothesis strategies and profiles), ``arbiter`` (Minesweeper Arbiter
videos), ``games`` (randomly played games), ``problems`` (solver problems in group form),
``paths`` (the test data), ``web`` (the web tests' app config and JSON API helpers)."""
