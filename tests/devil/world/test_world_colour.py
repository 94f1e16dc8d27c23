"""The keyed colour hash: fixed-width messages, HMAC-SHA256, uniform colours, bounds."""

from __future__ import annotations

import hashlib
import hmac
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from devil.world import Colouring, OutOfWorld, cell_colour
from devil.world.colour import ColourError, encode
from tests.helpers.strategies import profile

KEY = bytes(range(32))
OTHER_KEY = bytes(range(1, 33))

CHI2_1E6 = {1: 23.93, 2: 27.63, 3: 30.66, 4: 33.38, 5: 35.89, 6: 38.26, 7: 40.52}
"""Chi-square critical values at p = 1e-6 by degrees of freedom (a false alarm one run in
a million)."""

WINDOW = [(x, y) for y in range(-100, 100) for x in range(-100, 100)]
"""200x200 cells around the origin."""


def test_messages_of_nearby_cells_never_collide() -> None:
    messages = {encode("main", x, y) for x, y in WINDOW}
    assert len(messages) == len(WINDOW)
    colouring = Colouring(KEY, "main", 6)
    digests = {colouring.digest(x, y) for x, y in WINDOW}
    assert len(digests) == len(WINDOW)


@pytest.mark.parametrize(
    "a, b",
    [
        (("w", 1, 23), ("w", 12, 3)),
        (("w", 12, 3), ("w", 1, 23)),
        (("a1", 2, 3), ("a", 12, 3)),
        (("w", -1, 0), ("w", 0, -1)),
        (("w", 2**62, -(2**62)), ("w", -(2**62), 2**62)),
    ],
)
def test_no_separator_ambiguity(a: tuple[str, int, int], b: tuple[str, int, int]) -> None:
    assert encode(*a) != encode(*b)
    assert len(encode(*a)) - len(a[0].encode()) == len(encode(*b)) - len(b[0].encode())


@given(
    st.text(min_size=1, max_size=20),
    st.integers(-(2**62), 2**62),
    st.integers(-(2**62), 2**62),
)
@profile()
def test_colour_is_hmac_sha256_of_the_message_mod_k(world: str, x: int, y: int) -> None:
    for key in (KEY, b"k" * 100):  # keys longer than a SHA-256 block are hashed first
        want = hmac.new(key, encode(world, x, y), hashlib.sha256).digest()
        assert Colouring(key, world, 5).digest(x, y) == want
        for k in range(2, 9):
            assert cell_colour(key, world, x, y, k) == int.from_bytes(want, "big") % k


@pytest.mark.parametrize("k", range(2, 9))
def test_colours_are_uniform(k: int) -> None:
    counts = [0] * k
    for c in Colouring(KEY, "main", k).region(-100, -100, 200, 200):
        counts[c] += 1
    expected = len(WINDOW) / k
    chi2 = sum((n - expected) ** 2 / expected for n in counts)
    assert chi2 < CHI2_1E6[k - 1], counts


def test_neighbouring_cells_are_independent() -> None:
    """Pairs (colour at x, colour at x+1) are uniform over the 36 pairs (k=6)."""
    colours = Colouring(KEY, "main", 6).region(-100, -100, 200, 200)
    pairs = [0] * 36
    for row in range(200):
        line = colours[row * 200 : row * 200 + 200]
        for a, b in itertools.pairwise(line):
            pairs[a * 6 + b] += 1
    expected = sum(pairs) / 36
    chi2 = sum((n - expected) ** 2 / expected for n in pairs)
    assert chi2 < 70.0  # 35 degrees of freedom: 70 is beyond p = 1e-4


@pytest.mark.parametrize(
    "other",
    [Colouring(OTHER_KEY, "main", 6), Colouring(KEY, "main2", 6), Colouring(KEY, "mai", 6)],
)
def test_other_keys_and_worlds_colour_differently(other: Colouring) -> None:
    """Two independent colourings agree on about 1/6 of the cells."""
    mine = Colouring(KEY, "main", 6).region(-100, -100, 200, 200)
    theirs = other.region(-100, -100, 200, 200)
    same = sum(1 for a, b in zip(mine, theirs, strict=True) if a == b) / len(mine)
    assert abs(same - 1 / 6) < 0.01


def test_region_is_the_cells_row_by_row() -> None:
    colouring = Colouring(KEY, "main", 7)
    region = colouring.region(2**62 - 3, -5, 4, 3)
    assert list(region) == [
        colouring.colour(x, y) for y in range(-5, -2) for x in range(2**62 - 3, 2**62 + 1)
    ]


@pytest.mark.parametrize(
    "x, y", [(2**62 + 1, 0), (0, 2**62 + 1), (-(2**62) - 1, 0), (0, -(2**63)), (2**64, 2**64)]
)
def test_cells_beyond_2_62_are_rejected(x: int, y: int) -> None:
    with pytest.raises(OutOfWorld, match="2\\*\\*62"):
        cell_colour(KEY, "main", x, y, 6)
    with pytest.raises(OutOfWorld):
        encode("main", x, y)
    assert 0 <= cell_colour(KEY, "main", max(min(x, 2**62), -(2**62)), 0, 6) < 6


def test_region_beyond_the_edge_is_rejected() -> None:
    with pytest.raises(OutOfWorld):
        Colouring(KEY, "main", 6).region(2**62 - 1, 0, 3, 1)


@pytest.mark.parametrize(
    "key, world, k, field",
    [
        (b"short", "main", 6, "key"),
        ("text" * 8, "main", 6, "key"),
        (KEY, "", 6, "world"),
        (KEY, "w" * 256, 6, "world"),
        (KEY, "main", 1, "colours"),
        (KEY, "main", 9, "colours"),
        (KEY, "main", True, "colours"),
    ],
)
def test_bad_parameters_are_named(key: bytes, world: str, k: int, field: str) -> None:
    with pytest.raises(ColourError, match=field):
        Colouring(key, world, k)
