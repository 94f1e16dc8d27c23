"""Bot rafts played in process on PostgreSQL: the server's CPU and PostgreSQL's CPU per move.

No web and no other load: 40 bots in 10 teams take turns in a seeded order, each reading its
32x32 view (``view``, the view's statement) and playing every move ``devil.world.deduce``
proves as one raft of at most 64 through ``play_raft`` (the judged-ahead flight, the check,
the commit), dropping when there is none. It prints the CPU this process spent in the
views and rafts (the bots' own deduction left out), the CPU PostgreSQL spent meanwhile,
both per move, and a digest of every answer: two checkouts that judge and number alike
print the same digest, whatever their speed. On a shared machine run the two one after the
other, several times (``bench/bench_world.py`` measures the same under the full load).

    .venv/bin/python bench/bench_world_commit.py                        # this checkout
    .venv/bin/python bench/bench_world_commit.py --root /tmp/old        # another one
    .venv/bin/python bench/bench_world_commit.py --root /tmp/old --root . --repeat 3

Each run is a process of its own (``--root``'s code, this Python) on a fresh schema of one
throwaway PostgreSQL (``scripts/start-postgres``; or ``MINE_DEVIL_TEST_POSTGRES_URL`` with
``--pgdir`` for its CPU).
"""

from __future__ import annotations

import argparse
import hashlib
import random
import subprocess
import sys
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent

TEAMS, BOTS = 10, 40
KEY = bytes(range(32))


def play(root: Path, url: str, pgdir: Path | None, turns: int) -> str:
    """One run in this process with ``root``'s code: its line of results."""
    sys.path.insert(0, str(root))
    import sqlalchemy as sa

    from app.notify.base import LocalNotifier
    from app.store.log import Store
    from app.world.judging import MoveRequest
    from app.world.service import Colourings, play_raft, view
    from app.world.store import WorldStore
    from devil.world import deduce

    sys.path.insert(1, str(HERE))  # after root's code, imported above: it stays the one run
    from bench_world import cpu_seconds, postgres_pids

    schema = f"bench_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(url)
    with admin.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    here = sa.make_url(url).update_query_dict({"options": f"-csearch_path={schema}"})
    base = Store(here.render_as_string(hide_password=False))
    base.migrate()
    try:
        adding = WorldStore(base.engine)
        players = [
            adding.add_player("main", f"p{i}", f"t{i % TEAMS}", (i // TEAMS) % 6).player
            for i in range(BOTS)
        ]
        with base.engine.begin() as conn:  # the same world on every run
            conn.execute(sa.text("UPDATE world_worlds SET secret_key = :k"), {"k": KEY})
        store = WorldStore(base.engine)  # a store caches the world's row: read it again
        colourings, notifier = Colourings(), LocalNotifier()
        bots = []
        for i, player in enumerate(players):
            rng = random.Random(i)
            x = (i % TEAMS) * 100_000 + 5_000_000 + rng.randint(-50, 50)
            bots.append([player, rng, (x, 5_000_000 + rng.randint(-50, 50)), True])
        order = random.Random(7)
        digest = hashlib.sha256()
        moves, served = 0, 0.0
        pg_before = cpu_seconds(postgres_pids(pgdir), with_children=True)
        for _ in range(turns):
            bot = bots[order.randrange(len(bots))]
            player, rng, (fx, fy), dropping = bot
            raft = [MoveRequest("drop", fx, fy)]
            if not dropping:
                started = time.process_time()
                _, rows = view(store, "main", player.team, player.colour, fx - 16, fy - 16, 32, 32)
                served += time.process_time() - started
                found = deduce(rows, fx - 16, fy - 16)
                raft = [MoveRequest("reveal", x, y) for x, y in sorted(found.safe)]
                raft += [MoveRequest("flag", x, y) for x, y in sorted(found.mines)]
                rng.shuffle(raft)
                raft = raft[:64]
                if not raft:
                    bot[2] = (fx + rng.randint(-300, 300), fy + rng.randint(-300, 300))
                    bot[3] = True
                    continue
            started = time.process_time()
            answers = play_raft(store, notifier, colourings, player, raft, drop_seconds=0)
            served += time.process_time() - started
            moves += len(answers)
            for a in answers:
                digest.update(repr((player.team, a.kind, a.outcome, a.cells, a.seq)).encode())
            if dropping:
                at = next((a.at for a in answers if a.at is not None), (fx, fy))
                bot[2], bot[3] = (at[0], at[1]), False
            else:
                bot[2] = (raft[0].x, raft[0].y)
        pg = cpu_seconds(postgres_pids(pgdir), with_children=True) - pg_before
    finally:
        base.dispose()
        with admin.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
    pg_part = f"PostgreSQL CPU {pg / moves * 1e3:.3f} ms" if pgdir else "PostgreSQL CPU unknown"
    return (
        f"{moves} moves in {turns} turns: server CPU {served / moves * 1e3:.3f} ms, "
        f"{pg_part} per move; answers digest {digest.hexdigest()[:16]}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, action="append", help="checkouts, in order")
    parser.add_argument("--turns", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=1, help="run the --root list this often")
    parser.add_argument("--pgdir", type=Path, help="with MINE_DEVIL_TEST_POSTGRES_URL")
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)  # a run: URL and PGDIR
    args = parser.parse_args()
    if args.one:
        url, pgdir = args.one
        roots = args.root or [HERE.parent]
        print(play(roots[0], url, Path(pgdir) if pgdir else None, args.turns), flush=True)
        return
    sys.path.insert(0, str(HERE))
    from bench_world import postgres

    with postgres() as (url, pgdir):
        pgdir = pgdir or args.pgdir
        for _ in range(args.repeat):
            for root in args.root or [HERE.parent]:
                one = ["--root", str(root), "--turns", str(args.turns), "--one", url]
                done = subprocess.run(
                    [sys.executable, __file__, *one, str(pgdir or "")],
                    capture_output=True,
                    text=True,
                    check=False,
                )
                line = done.stdout.strip() or done.stderr.strip()[-2000:]
                print(f"{root}: {line}", flush=True)


if __name__ == "__main__":
    main()
