"""Module-level functions for the engine-child tests (a child imports them by name)."""


def spin(n: int) -> int:
    """Burn CPU forever."""
    while True:
        n += 1


def double(x: int) -> int:
    return x * 2
