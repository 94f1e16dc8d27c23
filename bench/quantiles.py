"""Small statistics the benchmarks share."""

from __future__ import annotations

from collections.abc import Sequence


def quantile(values: Sequence[float], q: float) -> float:
    """The nearest-rank ``q`` quantile of ``values`` (0.0 for none): the value below which
    a fraction ``q`` of them lie."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
