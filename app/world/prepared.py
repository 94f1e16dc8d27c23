"""Statements PostgreSQL keeps parsed and planned per session: the flights' statements.

The commit's flight (``app.world.flight``) binds its values in the client so that several
statements travel as one simple-protocol message, and PostgreSQL parsed and planned each of
them again on every raft. ``pg_stat_statements`` under the bots of ``bench/bench_world.py``
(``--pg-statements``): the append's planning took 1.8-2.3 ms a raft beside 4.7-8.8 ms of
execution, and the judged-ahead check 1.4 ms of planning beside 0.4 ms of execution: about
a third of the time PostgreSQL spent in the world's statements. ``PREPARE name AS ...``
once per connection, then ``EXECUTE name(values)`` in the same one-message flights: the
values still travel as literals in the message (one round trip), but the statement's parse
tree is kept, and from its first execution PostgreSQL plans it once for good (``GENERIC``).

A prepared statement belongs to the session: it survives ``ROLLBACK`` and errors (checked
on PostgreSQL 15), so each connection prepares a statement once, in a round trip of its
own before its first use, and remembers it here (a connection PostgreSQL ended is replaced
by a new object, which prepares again). Behind a pooler in transaction mode (PgBouncer)
sessions are not kept: this path, like psycopg's own automatic prepare, needs a session
per connection.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

_PARAM = re.compile(r"%\((\w+)\)s")


@dataclass(frozen=True)
class Prepared:
    """One statement: its name, its ``PREPARE`` (values as ``$n``), and its ``EXECUTE`` with
    the same named placeholders as the statement it was made from (``%(name)s``)."""

    name: str
    prepare: str
    execute: str


def prepared(sql: str) -> Prepared:
    """``sql`` (``%(name)s`` placeholders, each a value of one type) as a prepared statement,
    named after its text: a changed statement is a new name, never a stale plan."""
    names = list(dict.fromkeys(_PARAM.findall(sql)))
    numbered = _PARAM.sub(lambda m: f"${names.index(m.group(1)) + 1}", sql)
    name = "md_" + hashlib.sha256(sql.encode()).hexdigest()[:16]
    values = ", ".join(f"%({n})s" for n in names)
    return Prepared(name, f"PREPARE {name} AS {numbered}", f"EXECUTE {name}({values})")


GENERIC = "SELECT set_config('plan_cache_mode', 'force_generic_plan', false)"
"""Plan the session's prepared statements once, from their first execution: they look rows
up by their keys, where the values cannot change the plan, and with PostgreSQL's default
(``auto``) each connection planned each statement five more times before it settled on the
generic plan (about half the calls of a 30 s run of the benchmark, on 80 connections).
Only named prepared statements follow this setting (psycopg's are off, its unnamed
statements are planned with their values as before); a ``ROLLBACK`` of the transaction it
was set in undoes it, which costs plans, never results."""

_DONE: WeakKeyDictionary[Any, set[str]] = WeakKeyDictionary()
"""Per psycopg connection, the names prepared on it."""


def prepare(raw: Any, *statements: Prepared) -> None:
    """Prepare ``statements`` on the psycopg connection ``raw`` unless it has them (a round
    trip each, once per connection; inside the caller's transaction if one is open: a
    prepared statement outlives it)."""
    done = _DONE.get(raw)
    if done is None:
        done = _DONE[raw] = set()
        raw.execute(GENERIC)
    for statement in statements:
        if statement.name not in done:
            raw.execute(statement.prepare)
            done.add(statement.name)
