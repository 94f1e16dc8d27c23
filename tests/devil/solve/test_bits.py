"""The bitmask sets of mine totals (``devil.solve.bits``) against plain Python sets."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from devil.solve.bits import runs

SETS = st.frozensets(st.integers(0, 80), max_size=30)


@given(SETS)
def test_runs_cover_the_set_in_maximal_runs_smallest_first(numbers: frozenset[int]) -> None:
    found = runs(sum(1 << n for n in numbers))
    assert {n for low, high in found for n in range(low, high + 1)} == numbers
    assert all(low <= high for low, high in found)
    assert all(a[1] + 1 < b[0] for a, b in pairwise(found))  # maximal
