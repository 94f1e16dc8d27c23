"""Where the test data lives."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The project root."""
DATA = ROOT / "tests" / "data"
POSITIONS = DATA / "positions"
"""The golden corpus of sample positions with truth files (absent locally: its tests skip)."""
REPLAYS = DATA / "replays"
