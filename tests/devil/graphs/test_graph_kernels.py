"""The graph reader's compiled kernels against the plain Python they replace: the edges
read from their text (``pair_ends``), repeated pairs, polygon centres and heights (also
read from the polygons' text)."""

from __future__ import annotations

import json
import random
from itertools import chain

import pytest

from devil.graphs._fast import ends_of
from devil.graphs.cells import polygon_centre
from devil.solve.graph_lists import (
    levels,
    names_twice,
    pair_ends,
    polygon_placement,
    polygon_text_placement,
)


def _reference(pairs: list[list[str]], ids: list[str]) -> tuple[list[int], list[int]] | None:
    return ends_of(list(chain.from_iterable(pairs)), {c: i for i, c in enumerate(ids)})


def _ends(text: str, ids: list[str], most: int = 1_000_000) -> tuple[list[int], list[int]] | None:
    index = {c: i for i, c in enumerate(ids)}
    return pair_ends(text.encode(), [c.encode() for c in ids], index, most)


@pytest.mark.parametrize("seed", range(40))
def test_pair_ends_reads_any_order_and_layout_as_json_does(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(1, 30)
    ids = [rng.choice(["c", "é", "r1c", "x y"]) + str(i) for i in range(n)]
    pairs = [[ids[a], ids[b]] for a in range(n) for b in range(n) if a != b and rng.random() < 0.3]
    if seed % 2:
        rng.shuffle(pairs)
    dumps = [
        json.dumps(pairs),
        json.dumps(pairs, indent=rng.randint(0, 3)),
        json.dumps(pairs, separators=(",", ":")),
        json.dumps(pairs, ensure_ascii=False).replace(", ", " ,\t\r\n "),
    ]
    for text in dumps:
        expected = _reference(pairs, ids)
        got = _ends(text, ids)
        if "\\" in text:  # an escaped id (ensure_ascii): pair_ends leaves it to msgspec
            assert got is None or got == expected
        else:
            assert got == expected


@pytest.mark.parametrize(
    ("text", "most"),
    [
        ('[["a", "zz"]]', 9),  # unknown id
        ('[["a", "a"]]', 9),  # self pair
        ('[["a", "b"], ["b", "c"]]', 1),  # over the bound
        ('[["a", "b", "c"]]', 9),
        ('[["a"]]', 9),
        ('[["a", 1]]', 9),
        ('[["a", "b"],]', 9),
        ('[["a", "b"]] x', 9),
        ('[["\\u0061", "b"]]', 9),  # an escape: msgspec decodes it
        ('[["a\tb", "b"]]', 9),  # a control character
        ('{"a": "b"}', 9),
        ('[["a", "b"] ["b", "c"]]', 9),
    ],
)
def test_pair_ends_leaves_anything_else_to_the_json_decoder(text: str, most: int) -> None:
    assert _ends(text, ["a", "b", "c"], most) is None


@pytest.mark.parametrize("text", ["[]", " [ ] ", '[["a","b"]]', '[ [ "a" , "b" ] ]\n'])
def test_pair_ends_reads_short_lists(text: str) -> None:
    expected = ([], []) if '"' not in text else ([0], [1])
    assert _ends(text, ["a", "b"]) == expected


@pytest.mark.parametrize("seed", range(20))
def test_names_twice_finds_a_list_naming_an_item_twice(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(1, 12)
    lists = [tuple(rng.sample(range(n), rng.randint(0, n))) for _ in range(n)]
    if seed % 3 == 0:
        k = rng.randrange(n)
        lists[k] = lists[k] + lists[k][:1]
    assert names_twice(tuple(lists)) == any(len(set(near)) != len(near) for near in lists)


def test_polygon_placement_is_sum_max_and_min() -> None:
    rng = random.Random(3)
    polygons = [
        tuple(
            (rng.choice([0.0, -0.0, 0.5, 1 / 3, 1e16]), rng.choice([0.0, -0.0, 0.866, 1e-9]))
            for _ in range(rng.randint(3, 8))
        )
        for _ in range(200)
    ]
    got = polygon_placement(polygons)
    assert got is not None
    xs, ys, heights = got
    for polygon, x, y, height in zip(polygons, xs, ys, heights, strict=True):
        cx, cy = polygon_centre(polygon)
        tall = max(p[1] for p in polygon) - min(p[1] for p in polygon)
        assert repr((x, y, height)) == repr((cx, cy, tall))


def test_polygon_placement_leaves_whole_numbers_to_python() -> None:
    assert polygon_placement([((0.0, 0.0), (1, 0.0), (0.5, 1.0))]) is None


def _levels_by_sets(neighbours: list[tuple[int, ...]], starts: list[int]) -> list[list[int]]:
    """The walk as the reader did it before it was compiled (dicts and sets)."""
    seen: set[int] = set()
    out: list[list[int]] = []
    for start in starts:
        if start in seen:
            continue
        seen.add(start)
        level = [start]
        while level:
            out.append(level)
            found = dict.fromkeys(chain.from_iterable(neighbours[c] for c in level))
            level = [c for c in found if c not in seen]
            seen.update(level)
    return out


@pytest.mark.parametrize("seed", range(30))
def test_levels_walk_as_sets_and_dicts_did(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(1, 40)
    near: list[list[int]] = [[] for _ in range(n)]
    for _ in range(rng.randint(0, 3 * n)):
        a, b = rng.randrange(n), rng.randrange(n)
        if a != b:
            near[a].append(b)
            near[b].append(a)
    neighbours = [tuple(x) for x in near]
    starts = list(range(n))
    rng.shuffle(starts)
    assert levels(tuple(neighbours), starts) == _levels_by_sets(neighbours, starts)


@pytest.mark.parametrize("seed", range(20))
def test_polygon_text_placement_is_polygon_placement_of_the_decoded_text(seed: int) -> None:
    rng = random.Random(seed)
    xs = [rng.uniform(-1e9, 1e9), round(rng.uniform(-9, 9), 3), 1e-7, -0.0]
    ys = [0.866, rng.uniform(-1, 1), 5e-324, 123456.789e-3, 0.30000000000000004]
    polygons = [
        [[rng.choice(xs), rng.choice(ys)] for _ in range(rng.randint(3, 9))] for _ in range(30)
    ]
    expected = polygon_placement(json.loads(json.dumps(polygons)))
    for text in (
        json.dumps(polygons),
        json.dumps(polygons, indent=rng.randint(0, 2)),
        json.dumps(polygons, separators=(",", ":")).replace(",", " ,\t\r\n "),
    ):
        got = polygon_text_placement(text.encode(), 1e9, 64)
        assert repr(got) == repr(expected)


@pytest.mark.parametrize(
    "text",
    [
        "[[[0, 0.5], [1.0, 0.5], [0.5, 1.0]]]",  # an integer: json keeps it an int
        "[null, [[0.0, 0.5], [1.0, 0.5], [0.5, 1.0]]]",  # a cell without a polygon
        "[[[0.0, 0.5], [1.0, 0.5]]]",  # two corners
        "[[[0.0, 0.5], [1.0, 0.5], [0.5, 2e9]]]",  # beyond the bound
        "[[[0.0, 0.5], [1.0, 0.5], [0.5, 1.0, 2.0]]]",
        "[[[0.0, 0.5], [1.0, 0.5], [0.5, true]]]",
        "[[[0.0, 0.5], [1.0, 0.5], [0.5, 1.0]],]",
        "[[[0.0, 0.5], [1.0, 0.5], [0.5, 1.0]]] x",
        "[[[0.0, 0.5], [1.0, 0.5], [0.5, 1.]]]",
        "[[[0.0, 0.5], [1.0, 0.5], [0.5, 1e]]]",
        "[[[0.0, 0.5], [1.0, 0.5], [0.5, 01.0]]]",
    ],
)
def test_polygon_text_placement_leaves_anything_else_to_the_json_decoder(text: str) -> None:
    assert polygon_text_placement(text.encode(), 1e9, 64) is None
