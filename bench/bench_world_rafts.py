"""Bot rafts replayed offline through the world server's judgement, for its CPU per move.

No database, no web: the bots of ``bench_world.py`` (200 in 20 teams, colours mixed, each
reading a 32x32 view around its focus, playing every move ``devil.world.deduce`` proves
as one raft of at most 64, dropping when there is none) take turns in a seeded order on
in-memory chunks, each raft judged by ``app.world.judging.judge_moves`` on a fresh
``ChunkKnowledge`` as a request would. It prints the judgement's CPU time per move and
a digest of every move's result: two checkouts that judge alike print the same digest
(the world's events and colours do not change), whatever their speed.

    .venv/bin/python bench/bench_world_rafts.py                     # this checkout
    .venv/bin/python bench/bench_world_rafts.py --root /tmp/base4   # another one
    .venv/bin/python bench/bench_world_rafts.py --rafts 300 --profile out.prof
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import random
import sys
import time
from pathlib import Path

KEY = bytes(range(32))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--rafts", type=int, default=1500)
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--teams", type=int, default=20)
    parser.add_argument("--profile", help="write a cProfile of the judgements here")
    args = parser.parse_args()
    sys.path.insert(0, str(args.root))
    from app.world.chunks import ChunkKey, ChunkKnowledge, StoredChunk
    from app.world.judging import Judging, MoveRequest, PausingClock, judge_moves
    from app.world.service import render_rows
    from devil.world import Colouring, deduce

    colouring = Colouring(KEY, "main", 6)
    stores: dict[str, dict[ChunkKey, StoredChunk]] = {}
    digest = hashlib.sha256()
    profile = cProfile.Profile() if args.profile else None
    cpu, played = 0.0, 0

    def knowledge(team: str) -> ChunkKnowledge:
        store = stores.setdefault(team, {})
        return ChunkKnowledge(lambda keys: {k: store[k] for k in keys if k in store})

    def play(team: str, colour: int, moves: list[MoveRequest]) -> list[tuple[int, int]]:
        nonlocal cpu, played
        k = knowledge(team)
        k.prefetch_around(colour, [(m.x, m.y) for m in moves])
        started = time.thread_time()
        if profile is not None:
            profile.enable()
        judged = judge_moves(k, colouring, colour, moves, Judging(), PausingClock(pause=_no))
        if profile is not None:
            profile.disable()
        cpu += time.thread_time() - started
        played += len(moves)
        for key, (cells, version) in k.dirty().items():
            stores[team][key] = StoredChunk(cells, (version or 0) + 1)
        for move, r, _ in judged:
            line = (team, colour, move, r.outcome, r.cells, r.witness, r.truncated, r.at, r.reason)
            digest.update(repr(line).encode())
        return [r.at for _, r, _ in judged if r.at is not None]

    bots = []
    for i in range(args.bots):
        rng = random.Random(i)
        t = i % args.teams
        focus = (
            t * 100_000 + 5_000_000 + rng.randint(-100, 100),
            5_000_000 + rng.randint(-100, 100),
        )
        bots.append([f"t{t:02d}", (i // args.teams) % 6, rng, focus, True])
    order = random.Random(7)
    for _ in range(args.rafts):
        bot = bots[order.randrange(len(bots))]
        team, colour, rng, (fx, fy), dropping = bot
        if dropping:
            opened = play(team, colour, [MoveRequest("drop", fx, fy)])
            bot[3], bot[4] = (opened[0] if opened else (fx, fy)), False
            continue
        rows = render_rows(knowledge(team), colour, fx - 16, fy - 16, 32, 32)
        found = deduce(rows, fx - 16, fy - 16)
        raft = [MoveRequest("reveal", x, y) for x, y in sorted(found.safe)]
        raft += [MoveRequest("flag", x, y) for x, y in sorted(found.mines)]
        rng.shuffle(raft)
        if not raft:
            bot[3], bot[4] = (fx + rng.randint(-300, 300), fy + rng.randint(-300, 300)), True
            continue
        play(team, colour, raft[:64])
        bot[3] = (raft[0].x, raft[0].y)
    print(
        f"{played} moves in {args.rafts} turns: judge CPU {cpu:.2f} s = "
        f"{cpu / max(1, played) * 1e3:.3f} ms per move; results digest {digest.hexdigest()[:16]}"
    )
    if profile is not None:
        profile.dump_stats(args.profile)


def _no() -> None:
    """No pause: nothing else runs here."""


if __name__ == "__main__":
    main()
