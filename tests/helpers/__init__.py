"""What the tests share, imported one way (``from tests.helpers.x import ...``; a test module
imports nothing from another test module, ``tests/test_quality.py`` checks it):
``strategies`` (hypothesis strategies and profiles), ``graph_strategies`` (graph boards),
``arbiter`` (Minesweeper Arbiter videos), ``games`` (randomly played games), ``problems``
(solver problems in group form), ``paths`` (the test data), ``web`` (the web tests' app
config, JSON API and form helpers), ``teach`` (the teaching views' helpers), ``world`` (a
test client speaking the world API, its streams), ``world_hosts`` (the world API over a real
server's port), ``worlds`` (world engine scenes), ``servers`` (real ``mine-devil``, Redis
and nginx processes), ``engine_work`` (functions an engine child imports by name),
``browser`` and ``browser_world`` (Playwright helpers)."""
