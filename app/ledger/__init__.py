"""The luck ledger on the web: annotations of finished games, records, exports and imports.

The engine side is ``devil.ledger`` (``annotate``: judgements, luck, metrics; ``replays``:
formats). Here: ``service`` computes a finished game's annotation once, in the background
when the game ends, and keeps it (memory and the ``ledger`` table, keyed by the annotation
version, so a new engine recomputes); ``store`` holds the ledger rows and players' display
names; ``routes`` serves the JSON API (``/api/games/<id>/annotations``, ``/api/records``), the
records and "my games" pages, the end panel's luck sentence, replay notes and exports.
"""
