"""How much work one engine call may do: ``Budget`` (a deadline and/or a node budget).

The implementation lives with the loops that charge it, in ``devil.solve.budget`` (it is
compiled with them); this module keeps the names every caller imports.
"""

from devil.solve.budget import (
    CLOCK_EVERY,
    Budget,
    BudgetExceeded,
    Meter,
    Share,
    bounded,
    charge,
    current,
    metering,
    outer_exceeded,
)

__all__ = [
    "CLOCK_EVERY",
    "Budget",
    "BudgetExceeded",
    "Meter",
    "Share",
    "bounded",
    "charge",
    "current",
    "metering",
    "outer_exceeded",
]
