"""A Devil World bot: read a viewport, play every provable move in rafts, drop when stuck.

Run it against a server (``mine-devil`` on http://127.0.0.1:8000) with one command::

    python examples/bot.py --team bots --name bot1 --colour 0 --seconds 60

It joins the world (or uses ``--token``), drops in near ``--at`` (default: a random spot),
then loops: fetch the ``--view``-sized viewport of its team's board around its focus, let
``devil.world.deduce`` find every provably safe cell and every provable mine (from the view
alone: what the bot sees is a part of what its team knows, so a proof from it is a proof on
the server too), and play them as rafts of up to 256 moves. With nothing provable left in
view it moves its focus to the edge of what is open, and once that is exhausted it drops
somewhere new (one drop per 30 s per player: it waits). A 429 makes it wait ``Retry-After``
seconds: the per-player and per-team limits keep one bot from starving the people playing.

Every raft carries an ``Idempotency-Key`` (a fresh UUID per raft): when an answer is lost
(a timeout, a dropped connection, a 503 while the server restarts) the bot sends the same
raft with the same key again, and the server answers the first result instead of playing
the moves twice.

Like the Oursweeper design's ``should_test``/``should_flag`` views, the bot proposes only
provable clicks, so it never makes a devil error. It uses the standard library and the
``devil`` package only; ``Bot`` takes any ``Transport`` (tests drive it through Flask's
test client).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from devil.world import deduce

RAFT = 256


RETRIES = 5
"""Times a raft whose answer was lost is sent again (same key) before the bot gives up."""


class Transport(Protocol):
    def __call__(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], Any]:
        """``(status, headers, JSON body)`` of one request; ``OSError`` when no answer came."""
        ...


def http_transport(server: str) -> Transport:
    def call(
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(server.rstrip("/") + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, dict(response.headers), json.loads(response.read())
        except urllib.error.HTTPError as error:
            try:
                answer = json.loads(error.read() or b"null")
            except ValueError:
                answer = None
            return error.code, dict(error.headers), answer

    return call


@dataclass
class Stats:
    rafts: int = 0
    moves: int = 0
    opened: int = 0
    flags: int = 0
    drops: int = 0
    devil: int = 0
    waited: float = 0.0
    views: int = 0


@dataclass
class Bot:
    call: Transport
    world: str
    team: str
    name: str
    colour: int
    view: int = 64
    token: str | None = None
    sleep: Callable[[float], None] = time.sleep
    rng: random.Random = field(default_factory=random.Random)
    stats: Stats = field(default_factory=Stats)
    focus: tuple[int, int] | None = None
    log: Callable[[str], None] = lambda line: None

    def join(self) -> None:
        if self.token is not None:
            return
        status, _, body = self.call(
            "POST",
            f"/api/worlds/{self.world}/players",
            {"name": self.name, "team": self.team, "colour": self.colour},
        )
        if status != 201:
            raise SystemExit(f"bot: joining failed ({status}): {body}")
        self.token = body["token"]
        self.log(f"joined {self.world} as {body['player']} ({self.team}, colour {self.colour})")

    def moves(self, raft: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Play a raft; on a 429 wait ``Retry-After`` and go on in halves (a raft larger than
        a limit's whole window would never pass). A lost answer (no answer, a 5xx) is asked
        again with the raft's idempotency key: the moves are played once."""
        key = {"Idempotency-Key": str(uuid.uuid4())}
        lost = 0
        while True:
            try:
                status, headers, body = self.call(
                    "POST", f"/api/worlds/{self.world}/moves", {"moves": raft}, self.token, key
                )
            except OSError as error:
                status, headers, body = 0, {}, str(error)
            if (status == 0 or status >= 500) and lost < RETRIES:
                lost += 1
                wait = float(headers.get("Retry-After", "1"))
                self.stats.waited += wait
                self.sleep(wait)
                continue
            if status == 429:
                wait = float(headers.get("Retry-After", "1"))
                self.stats.waited += wait
                self.sleep(wait)
                if len(raft) > 1:
                    half = len(raft) // 2
                    return self.moves(raft[:half]) + self.moves(raft[half:])
                continue
            if status != 200:
                raise SystemExit(f"bot: moves refused ({status}): {body}")
            results: list[dict[str, Any]] = body["results"]
            self.stats.rafts += 1
            self.stats.moves += len(results)
            for result in results:
                self.stats.opened += sum(1 for *_, s in result["cells"] if s != "F")
                self.stats.flags += sum(1 for *_, s in result["cells"] if s == "F")
                self.stats.devil += result["outcome"] == "devil"
            return results

    def drop(self, x: int, y: int) -> bool:
        (result,) = self.moves([{"kind": "drop", "x": x, "y": y}])
        self.stats.drops += 1
        if result["outcome"] != "dropped":
            return False
        self.focus = (result["at"][0], result["at"][1])
        self.log(f"dropped at {self.focus}")
        return True

    def look(self) -> tuple[int, int, list[str]]:
        assert self.focus is not None
        half = self.view // 2
        x0, y0 = self.focus[0] - half, self.focus[1] - half
        query = f"colour={self.colour}&x0={x0}&y0={y0}&width={self.view}&height={self.view}"
        status, _, body = self.call(
            "GET", f"/api/worlds/{self.world}/teams/{self.team}/view?{query}"
        )
        if status != 200:
            raise SystemExit(f"bot: view refused ({status}): {body}")
        self.stats.views += 1
        return x0, y0, body["rows"]

    def step(self) -> int:
        """One round: look, play what is provable; returns the moves played (0: stuck)."""
        x0, y0, rows = self.look()
        found = deduce(rows, x0, y0)
        raft = [{"kind": "reveal", "x": x, "y": y} for x, y in sorted(found.safe)]
        raft += [{"kind": "flag", "x": x, "y": y} for x, y in sorted(found.mines)]
        for start in range(0, len(raft), RAFT):
            self.moves(raft[start : start + RAFT])
        if not raft:
            return 0
        # recentre on the newest frontier: the open cell nearest to the view's edge
        edge = [(x, y) for x, y in found.safe]
        self.focus = max(edge, key=lambda c: abs(c[0] - self.focus[0]) + abs(c[1] - self.focus[1]))  # type: ignore[index]
        return len(raft)

    def run(
        self, seconds: float, at: tuple[int, int] | None = None, rounds: int | None = None
    ) -> Stats:
        self.join()
        start = at or (self.rng.randrange(-(10**6), 10**6), self.rng.randrange(-(10**6), 10**6))
        self.drop(*start)
        deadline = time.monotonic() + seconds
        done = 0
        while time.monotonic() < deadline and (rounds is None or done < rounds):
            done += 1
            if self.focus is None or self.step() == 0:
                jump = (self.rng.randrange(-(10**6), 10**6), self.rng.randrange(-(10**6), 10**6))
                self.drop(*jump)
        self.log(f"done: {self.stats}")
        return self.stats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", default="http://127.0.0.1:8000")
    parser.add_argument("--world", default="main")
    parser.add_argument("--team", default="bots")
    parser.add_argument("--name", default="bot")
    parser.add_argument("--colour", type=int, default=0)
    parser.add_argument("--token", help="play as an existing player instead of joining")
    parser.add_argument("--view", type=int, default=64, help="viewport side (at most 256)")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--at", help="first drop near X,Y (default: random)")
    args = parser.parse_args(argv)
    at = None
    if args.at:
        x, _, y = args.at.partition(",")
        at = (int(x), int(y))
    bot = Bot(
        http_transport(args.server), args.world, args.team, args.name, args.colour,
        view=args.view, token=args.token, log=lambda line: print(line, flush=True),
    )  # fmt: skip
    stats = bot.run(args.seconds, at)
    return 0 if stats.devil == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
