"""How fast a duel's race panel reaches the other player: from a committed move of one side
to the ``race`` event on the other side's stream (``GET /duel/<d>/events``).

In-process (Flask test clients on a SQLite file, the app's notifier): it measures the push
path (notifier wake-up, reading both games, rendering the panel), not the network. The
panel used to be polled every second: 500 ms on average, 1 s at worst, before any network.

    python -m bench.bench_duel --moves 30
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from pathlib import Path

from app import create_app
from app.duel import store
from app.play.moves import Action, Click
from app.play.setup import get_service
from app.store.setup import get_store
from devil.analysis import Verdict
from devil.solver import classify


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=30, help="moves of the second player")
    presets = ("beginner", "intermediate", "expert")
    parser.add_argument("--preset", default="expert", choices=presets)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        app = create_app(
            {
                "SECRET_KEY": "bench",
                "LIVE_HEARTBEAT_SECONDS": 1,
                "DATA_DIR": data,
                "DATABASE_URL": f"sqlite:///{Path(data) / 'bench.sqlite3'}",
                "RATELIMIT_ENABLED": False,
                "WTF_CSRF_ENABLED": False,
                "LIVE_MAX_SECONDS": 600,
            }
        )
        host, guest = app.test_client(), app.test_client()
        link = host.post("/duel", data={"preset": args.preset, "name": "A"}).headers["Location"]
        guest.post(link + "/join", data={"name": "B"})
        with app.app_context():
            duel = store.get(get_store(app).engine, link.rsplit("/", 1)[1])
        assert duel.guest_game is not None
        arrivals: list[float] = []
        clicks: list[float] = []
        moves: list[float] = []
        guest_game = duel.guest_game

        def play() -> None:  # the other side's moves, in a thread
            with app.app_context():
                service = get_service()
                for _ in range(args.moves):
                    time.sleep(0.05)
                    game = service.load(guest_game).game
                    if game.over:
                        break
                    verdicts = classify(game.position, game.params.rules.count).verdicts
                    safe = [c for c, v in verdicts.items() if v is Verdict.SAFE]
                    if not safe:
                        break
                    row, col = game.position.board.coord(min(safe))
                    clicks.append(time.perf_counter())
                    service.play(guest_game, Click(Action.REVEAL, row, col))
                    moves.append((time.perf_counter() - clicks[-1]) * 1000)
                    seen = len(clicks)
                    while len(arrivals) < seen + 1:  # the first event is the connect's
                        time.sleep(0.0005)

        # the stream is read where it was opened (its request context lives in this thread)
        response = host.get(link + "/events", buffered=False)
        chunks = iter(response.response)
        next(chunks)
        arrivals.append(time.perf_counter())
        player = threading.Thread(target=play, daemon=True)
        player.start()
        while player.is_alive():
            chunk = next(chunks)
            text = chunk.decode() if isinstance(chunk, bytes) else chunk
            if "event: race" in text:
                arrivals.append(time.perf_counter())
        latencies = [(a - c) * 1000 for a, c in zip(arrivals[1:], clicks, strict=False)]
        response.close()
        app.extensions["mine_devil.notifier"].close()
        app.extensions["mine_devil.store"].dispose()
    if not latencies:
        print("no events measured")
        return
    latencies.sort()
    p95 = latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))]
    print(f"duel panel push, {args.preset}, {len(latencies)} moves of the other player")
    print(
        f"  click -> the other's race event: median {statistics.median(latencies):.1f} ms, "
        f"p95 {p95:.1f} ms, max {latencies[-1]:.1f} ms"
    )
    print(
        f"  of which the move itself (engine + commit): median {statistics.median(moves):.1f} ms"
        " (the 1 s poll it replaces added 500 ms on average, 1000 ms at worst)"
    )


if __name__ == "__main__":
    main()
