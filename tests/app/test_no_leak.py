"""Nothing sent before a game ends reveals where the mines are.

Two checks, over every GET route the app has (API, HTML pages and fragments, teaching
pages: found through ``app.url_map``, so routes added later are covered too):

1. Scan: play whole games, keep every response (body and headers) sent before the end,
   and look in them for the hidden layout in any obvious serialization, the numbers
   under the covered cells, and the seed.
2. Twins: two games whose visible history is the same but whose hidden layouts differ
   must get byte-identical responses (after replacing ids, tokens and times).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.routing import Rule

from app.play.service import GameService
from app.security import ensure_owner
from devil.game import LATEST_VERSION, Game, GameParams, GraphSpec, Move, Status
from tests.helpers.web import Api, safe_unflagged

SEED_BASE = 7_340_000_000_000  # long seeds: an accidental match in a page is impossible
ID_ARGS = re.compile(r"(^|_)id$|^game$|^gid$")
NUMBER_ARGS = {"n", "seq", "move", "k", "step", "number"}
SKIP_ENDPOINTS = {"static"}


@pytest.fixture
def leak_app(make_app) -> Flask:
    # The snapshots hold every response (event streams included) open until compared.
    app: Flask = make_app(WTF_CSRF_ENABLED=False, LIVE_STREAMS_PER_CLIENT=64)

    @app.get("/test-only/claim")
    def claim() -> str:
        return ensure_owner()

    return app


def service(app: Flask) -> GameService:
    games: GameService = app.extensions["mine_devil.games"]
    return games


def hidden(app: Flask, game_id: str) -> Game:
    return service(app).load(game_id).game


# -- collecting every response ---------------------------------------------------------


def get_rules(app: Flask) -> list[Rule]:
    rules = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint in SKIP_ENDPOINTS or rule.rule.startswith("/test-only"):
            continue
        if "GET" not in (rule.methods or set()):
            continue
        rules.append(rule)
    return rules


def fill(rule: Rule, game_id: str, moves: int) -> Iterator[str]:
    """URLs for ``rule`` about this game (every move number for number arguments)."""
    args = rule.arguments
    if not args:
        if rule.rule.startswith("/api/games") or rule.rule == "/healthz":
            yield rule.rule
        else:  # pages without arguments: with the game's id as every usual query
            yield rule.rule
            yield f"{rule.rule}?id={game_id}&game={game_id}&since=0&n={moves}"
        return
    values: dict[str, list[Any]] = {}
    for name in args:
        if ID_ARGS.search(name):
            values[name] = [game_id]
        elif name in NUMBER_ARGS:
            values[name] = sorted({0, max(0, moves - 1), moves})
        else:
            return  # an argument we cannot fill
    names = list(values)

    def build(i: int, chosen: dict[str, Any]) -> Iterator[str]:
        if i == len(names):
            path = rule.build(chosen, append_unknown=False)[1]
            yield path
            yield f"{path}?since=0"
            yield f"{path}?since={max(0, moves - 1)}"
            yield f"{path}?n={moves}"
            return
        for v in values[names[i]]:
            yield from build(i + 1, {**chosen, names[i]: v})

    yield from build(0, {})


def about_the_game(rule: Rule) -> bool:
    """Routes that take a game id, and the home page (this browser's recent games)."""
    return rule.rule == "/" or any(ID_ARGS.search(name) for name in rule.arguments)


def snapshot(
    app: Flask, clients: list[FlaskClient], game_id: str, moves: int, only_game: bool = False
) -> list[Any]:
    """Every GET response about the game, for each client, plain and as htmx.

    ``only_game``: skip pages that do not take a game (e.g. a random puzzle)."""
    out = []
    for rule in get_rules(app):
        if only_game and not about_the_game(rule):
            continue
        for url in fill(rule, game_id, moves):
            for who, client in enumerate(clients):
                for htmx in (False, True):
                    headers = {"HX-Request": "true"} if htmx else {}
                    response = client.get(url, headers=headers)
                    out.append((url, who, htmx, response))
    return out


def flatten(response: Any) -> str:
    headers = "\n".join(f"{k}: {v}" for k, v in response.headers.items())
    return f"{response.status}\n{headers}\n\n{response.get_data(as_text=True)}"


# -- playing through both the API and the HTML routes ----------------------------------


def html_move_url(app: Flask, game_id: str) -> str | None:
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "views.move" and "POST" in (rule.methods or set()):
            args = {name: game_id for name in rule.arguments}
            return rule.build(args, append_unknown=False)[1]
    return None


def move(app: Flask, client: FlaskClient, game: dict[str, Any], kind: str, r: int, c: int,
         via_html: bool) -> Any:  # fmt: skip
    url = html_move_url(app, game["id"]) if via_html else None
    if url is not None:
        return client.post(
            url, data={"kind": kind, "at": f"{r},{c}"}, headers={"HX-Request": "true"}
        )
    return client.post(
        f"/api/games/{game['id']}/{kind}",
        json={"row": r, "col": c},
        headers={"Authorization": f"Bearer {game['token']}"},
    )


# -- 1. scanning a whole game ----------------------------------------------------------


def secret_forms(game: Game) -> list[str]:
    """The hidden layout written in every way a careless page might write it."""
    assert game.layout is not None
    board = game.position.board
    mines = sorted(game.layout)
    coords = [list(board.coord(c)) for c in mines]
    rows = [
        "".join("*" if r * board.width + c in game.layout else "." for c in range(board.width))
        for r in range(board.height)
    ]
    solution = "".join(
        "*" if cell in game.layout else str(sum(n in game.layout for n in board.neighbours(cell)))
        for cell in range(board.size)
    )
    forms = [
        json.dumps(mines),
        json.dumps(coords),
        json.dumps(rows),
        ",".join(map(str, mines)),
        " ".join(map(str, mines)),
        "/".join(rows),
        "\n".join(rows),
        solution,
        "/".join(solution[i : i + board.width] for i in range(0, board.size, board.width)),
        str(game.params.seed),
    ]
    forms += [f'data-mine="{x}"' for x in ("1", "true")]
    forms += ['class="mine"', "class='mine'"]
    return forms


def test_a_whole_game_never_shows_its_mines(leak_app: Flask) -> None:
    owner = leak_app.test_client()
    owner.get("/test-only/claim")
    watcher = leak_app.test_client()
    api = Api(owner)
    seed = SEED_BASE + 1
    created = owner.post("/api/games", json={"width": 8, "height": 8, "mines": 10, "seed": seed})
    game = created.get_json()
    sent: list[Any] = [("create", 0, False, created)]
    sent += snapshot(leak_app, [owner, watcher], game["id"], 0)
    state = game["state"]
    first = True
    step = 0
    while state["status"] == "playing":
        if first:
            target, first = (0, 0), False
        else:
            target = safe_unflagged(state)[0]
        # flag and unflag a covered cell between reveals: marks must not leak either
        response = move(leak_app, owner, game, "reveal", *target, via_html=step % 2 == 1)
        assert response.status_code == 200, response.get_data(as_text=True)
        state = api.state(game["id"])
        if state["status"] != "playing":
            break  # this response ended the game: it may show the mines
        sent.append(("move", 0, True, response))
        sent += snapshot(leak_app, [owner, watcher], game["id"], state["moves"])
        step += 1
    assert state["status"] == "won"
    final = hidden(leak_app, game["id"])
    forms = secret_forms(final)
    before_end = [flatten(r) for *_, r in sent]
    assert len(before_end) > 50
    for text in before_end:
        for form in forms:
            assert form not in text, f"a response before the end contains {form!r}"
    # and after the end the layout *is* shown, so the scan would have found it
    after = api.state(game["id"])
    assert after["layout"] == json.loads(forms[2])


# -- 2. twins: same visible history, different hidden layouts --------------------------


def twin_seeds(
    params_of: Callable[[int], GameParams], first: Move, tries: int = 5000
) -> tuple[int, int]:
    """Two seeds whose games show the same board after ``first`` but hide different mines."""
    seen: dict[bytes, tuple[int, frozenset[int] | None]] = {}
    for seed in range(SEED_BASE, SEED_BASE + tries):
        game = Game.replay(params_of(seed), [first])
        if game.status is not Status.PLAYING:
            continue
        key = game.position.grid
        if key in seen and seen[key][1] != game.layout:
            return seen[key][0], seed
        seen.setdefault(key, (seed, game.layout))
    pytest.fail("no two seeds give the same opening with different layouts")


def normalise(text: str, ids: dict[str, str]) -> str:
    for value, name in ids.items():
        text = text.replace(value, name)
    text = re.sub(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?", "<time>", text)
    text = re.sub(r'data-(start|end)="[^"]*"', r'data-\1="<t>"', text)
    text = re.sub(r'(class="clock-text">)[^<]*<', r"\1<t><", text)
    text = re.sub(r"[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{10,}", "<csrf>", text)
    text = re.sub(r" at 0x[0-9a-f]+", " at <address>", text)  # a repr() in a page
    headers = r"Date|Set-Cookie|Content-Length|Server-Timing|X-RateLimit-[A-Za-z]+|X-Request-ID"
    text = re.sub(rf"(?im)^({headers}): .*$", "", text)
    return text


class Twins:
    """Two games, one per owner (and an optional watcher each), made from ``bodies`` by the
    API: whatever they answer must be byte-identical once ids and tokens are masked."""

    def __init__(self, app: Flask, bodies: list[dict[str, Any]], watched: bool) -> None:
        self.app = app
        self.owners: list[FlaskClient] = []
        self.watchers: list[FlaskClient] = []
        self.games: list[dict[str, Any]] = []
        for body in bodies:
            owner = app.test_client()
            owner.get("/test-only/claim")
            self.owners.append(owner)
            if watched:
                self.watchers.append(app.test_client())
            self.games.append(owner.post("/api/games", json=body).get_json())
        self.ids = [{g["id"]: "<id>", g["token"]: "<token>"} for g in self.games]

    def compare(self, label: str, pair: list[Any]) -> None:
        a, b = (normalise(flatten(r), i) for r, i in zip(pair, self.ids, strict=True))
        assert a == b, f"{label}: the twins' responses differ"

    def compare_everything(self) -> None:
        """Every page, fragment and API answer a game has, for its owner and watcher."""
        moves = Api(self.owners[0]).state(self.games[0]["id"])["moves"]
        shots = []
        for i, game in enumerate(self.games):
            clients = [self.owners[i], *self.watchers[i : i + 1]]
            shots.append(snapshot(self.app, clients, game["id"], moves, only_game=True))
        assert len(shots[0]) == len(shots[1]) > 10
        for (url, who, htmx, ra), (_, _, _, rb) in zip(*shots, strict=True):
            self.compare(f"GET {url} client {who} htmx={htmx}", [ra, rb])

    def hidden(self) -> list[Game]:
        return [hidden(self.app, g["id"]) for g in self.games]


def test_twin_games_get_identical_responses_until_the_end(leak_app: Flask) -> None:
    params = {"height": 8, "width": 8, "mines": 10, "no_guess": True}
    first = (0, 0)
    seeds = twin_seeds(
        lambda seed: GameParams(8, 8, 10, no_guess=True, seed=seed), Move.reveal(*first)
    )
    twins = Twins(leak_app, [{**params, "seed": s} for s in seeds], True)
    owners, games, compare_everything = twins.owners, twins.games, twins.compare_everything

    def both(kind: str, r: int, c: int, via_html: bool) -> None:
        responses = [move(leak_app, owners[i], games[i], kind, r, c, via_html) for i in (0, 1)]
        twins.compare(f"{kind} {r} {c} html={via_html}", responses)

    compare_everything()
    both("reveal", *first, via_html=False)
    layouts = [g.layout for g in twins.hidden()]
    assert layouts[0] != layouts[1]
    compare_everything()
    state = Api(owners[0]).state(games[0]["id"])
    covered = [
        (r, c) for r, row in enumerate(state["board"]) for c, ch in enumerate(row) if ch == "."
    ]
    both("flag", *covered[0], via_html=False)
    both("flag", *covered[1], via_html=True)
    both("unflag", *covered[0], via_html=False)
    compare_everything()
    # refused requests must not differ either
    both("reveal", *first, via_html=False)  # already revealed: 409
    both("chord", *covered[2], via_html=True)  # not a number
    both("reveal", 99, 0, via_html=False)  # off the board: 400
    both("reveal", *covered[1], via_html=True)  # flagged
    # a safe reveal that shows the same numbers in both games keeps them twins
    games_now = twins.hidden()
    for cell in safe_unflagged(Api(owners[0]).state(games[0]["id"])):
        after = [g.play(Move.reveal(*cell)) for g in games_now]
        if after[0].position == after[1].position and after[0].status is Status.PLAYING:
            both("reveal", *cell, via_html=False)
            break
    compare_everything()
    assert [g.status for g in twins.hidden()] == [Status.PLAYING] * 2


def test_twin_graph_games_get_identical_responses_until_the_end(leak_app: Flask) -> None:
    """The twins test on a graph board (moves by cell id; the SVG page, the board file,
    replays): two games with one visible history and different mines answer alike."""
    spec, mines = GraphSpec("penrose", (80,)), 16
    first = spec.board().graph.graph.ids[0]  # type: ignore[union-attr]
    body = {"tiling": "penrose", "size": [80], "mines": mines, "no_guess": True}
    board = spec.board()
    opening = Move.reveal(*board.coord(board.graph.cell(first)))  # type: ignore[union-attr]
    seeds = twin_seeds(
        lambda seed: GameParams(
            mines=mines, no_guess=True, seed=seed, graph=spec, version=LATEST_VERSION
        ),
        opening,
        1000,
    )
    twins = Twins(leak_app, [{**body, "seed": s} for s in seeds], False)
    owners, games, compare_everything = twins.owners, twins.games, twins.compare_everything

    def both(kind: str, cell: str, via_html: bool) -> None:
        responses = []
        for owner, game in zip(owners, games, strict=True):
            if via_html:
                responses.append(owner.post(f"/g/{game['id']}/move", headers={"HX-Request": "true"},
                                            data={"kind": kind, "cell": cell}))  # fmt: skip
            else:
                responses.append(owner.post(
                    f"/api/games/{game['id']}/{kind}", json={"cell": cell},
                    headers={"Authorization": f"Bearer {game['token']}"},
                ))  # fmt: skip
        twins.compare(f"{kind} {cell} html={via_html}", responses)

    both("reveal", first, via_html=False)  # before it, no layout: the seed is the secret
    layouts = [g.layout for g in twins.hidden()]
    assert layouts[0] != layouts[1]
    compare_everything()
    state = Api(owners[0]).state(games[0]["id"])
    covered = [c["id"] for c in state["cells"] if c["state"] == "."]
    both("flag", covered[0], via_html=False)
    both("flag", covered[1], via_html=True)
    both("unflag", covered[0], via_html=False)
    compare_everything()
    both("reveal", first, via_html=False)  # already revealed
    both("chord", covered[2], via_html=False)  # not a number
    both("reveal", "no-such-cell", via_html=False)
    both("reveal", covered[1], via_html=True)  # flagged
    compare_everything()
    assert [g.status for g in twins.hidden()] == [Status.PLAYING] * 2
