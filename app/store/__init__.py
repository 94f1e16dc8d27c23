"""The game store (package): games and their append-only event logs, in SQLite or PostgreSQL.

SQLAlchemy Core, two tables:

``games``
    one row per game: ``id`` (short random URL-safe string), ``params`` (JSON,
    ``GameParams.to_dict()``), ``owner`` (browser owner id or NULL), ``token_hash``
    (sha256 hex of the API bearer token), ``created_at``, and a *derived* summary
    (``status``, ``moves``, ``last_seq``, ``updated_at``) that is kept up to date on
    every append and can be rebuilt from the log at any time.
``events``
    the log: ``(game_id, seq)`` is the primary key, so a duplicated sequence number
    is impossible; ``seq`` starts at 1 and has no gaps. ``kind`` is one of
    ``reveal``/``flag``/``unflag``/``chord`` (moves) or ``hint`` (``extra`` = level).

``append_event(game_id, expected_seq, ...)`` is the only writer of the log. It takes
a write lock first (``BEGIN IMMEDIATE`` on SQLite, ``SELECT ... FOR UPDATE`` of the
game row on PostgreSQL), checks that the log really ends at ``expected_seq - 1``
and raises ``SequenceConflict`` otherwise: a race fails instead of duplicating.

The schema is created by the alembic migrations in ``app/migrations`` (``migrate``),
never by ``metadata.create_all``.

Modules: ``schema`` (tables, statements built once), ``records`` (row values, errors),
``database`` (SQLAlchemy engines per dialect), ``log`` (``Store``, ``LogWriter``: every read and
write), ``setup`` (the Flask extension: ``init_app``, ``get_store``, ``flask init-db``).
"""
