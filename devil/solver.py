"""The exact solver's public face: ``classify``, ``probabilities``, ``witness``, ``Solver``.

The solver lives in ``devil/solve/`` (the pipeline is described in
``devil.solve.position_analysis``); this module keeps the names callers import.
"""

from devil.solve.position_analysis import PositionAnalysis
from devil.solve.solver import (
    BACKENDS,
    Solver,
    classify,
    exact_probabilities,
    probabilities,
    witness,
)

__all__ = [
    "BACKENDS",
    "PositionAnalysis",
    "Solver",
    "classify",
    "exact_probabilities",
    "probabilities",
    "witness",
]
