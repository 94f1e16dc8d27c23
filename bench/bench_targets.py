"""The hard cases of issue 12, each against its target, one child process per row.

    .venv/bin/python bench/bench_targets.py [--timeout SECONDS] [--only lattice]

Rows: exact counted probabilities of 14x14 lattices (``bench/lattice.py``, seeds 1-6),
of expert and 300x300 sample positions; the counted rule on the sample lattices with
CP-SAT hidden (the pure engine alone) under a 10 s budget, which answers partially
("too hard within the budget") where it cannot finish. Times are wall clock (median of
the rows' positions, best of 3 runs each) and CPU seconds of the child.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
POSITIONS = ROOT / "tests" / "data" / "positions"

CHILD = r"""
import json, sys, time
sys.path.insert(0, {root!r})
sys.path.insert(0, {bench!r})
if sys.argv[3] == "nocpsat":
    sys.modules["ortools"] = None  # find_spec answers None, import fails: CP-SAT hidden
from devil import native, solver
from devil.budget import Budget
from devil.position import Position
from devil.rules import Count
from lattice import lattice

what, source = sys.argv[1], sys.argv[2]
if source.startswith("lattice:"):
    size, seed = map(int, source.split(":")[1:])
    text = lattice(size, seed)
else:
    text = open(source).read()
position = Position.from_text(text)
budget = Budget(seconds=10) if sys.argv[3] == "nocpsat" else None

def run():
    if what == "probabilities":
        got = solver.exact_probabilities(position, Count.COUNTED, budget=budget)
    else:
        got = solver.classify(position, Count.COUNTED, budget=budget)
    return len(got.undecided), got.reason

best, cpu = 1e9, 0.0
for _ in range({repeats}):
    t, c = time.perf_counter(), time.process_time()
    undecided, reason = run()
    best = min(best, time.perf_counter() - t)
    cpu = time.process_time() - c
print(json.dumps({{"ms": best * 1000, "cpu": cpu, "undecided": undecided, "reason": reason,
                  "engine": native.ENGINE}}))
"""

ROWS = [
    ("14x14 lattice, counted probabilities", "probabilities", "lattice14", 1000.0),
    ("expert, counted probabilities", "probabilities", "expert", 2.0),
    ("300x300, counted probabilities", "probabilities", "huge300", 250.0),
    ("lattice 16x16, counted, no CP-SAT", "classify", "adv-lattice_16x16", 2000.0),
    ("lattice 16x30, counted, no CP-SAT", "classify", "adv-lattice_16x30", 2000.0),
    ("lattice 40x40, counted, no CP-SAT", "classify", "adv-lattice_40x40", 2000.0),
]


def sources(key: str) -> list[str]:
    if key == "lattice14":
        return [f"lattice:14:{seed}" for seed in range(1, 7)]
    if key.startswith("adv-"):
        return [str(POSITIONS / f"{key}.txt")]
    out = []
    for path in sorted(POSITIONS.glob("*.txt")):
        if f"# class: {key}\n" in path.read_text():
            out.append(str(path))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--only", default="", help="only the rows whose case contains this")
    args = parser.parse_args()
    head = f"| {'case':<38} | {'n':>3} | {'ms median':>10} | {'ms worst':>10} | {'target':>7} |"
    print(head + " cpu s worst | notes")
    print("|" + "-" * (len(head) - 2) + "|")
    for label, what, key, target in ROWS:
        if args.only not in label:
            continue
        mode = "nocpsat" if "no CP-SAT" in label else "all"
        repeats = 1 if key.startswith("adv-lattice_40") or key == "huge300" else 3
        code = CHILD.format(root=str(ROOT), bench=str(ROOT / "bench"), repeats=repeats)
        results = []
        for source in sources(key):
            cmd = [sys.executable, "-c", code, what, source, mode]
            try:
                done = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
                results.append(json.loads(done.stdout.strip().splitlines()[-1]))
            except (subprocess.TimeoutExpired, IndexError, json.JSONDecodeError):
                results.append({"timeout": True})
        times = [r["ms"] for r in results if "ms" in r]
        partial = [r for r in results if r.get("undecided")]
        notes = []
        if partial:
            notes.append(f"{len(partial)} partial: {partial[0]['reason']}")
        if len(times) < len(results):
            notes.append(f"{len(results) - len(times)} timed out")
        engines = {r.get("engine") for r in results if "engine" in r}
        notes.append("/".join(sorted(e for e in engines if e)))
        med = f"{statistics.median(times):10.1f}" if times else f"{'-':>10}"
        worst = f"{max(times):10.1f}" if times else f"{'-':>10}"
        cpu = max((r["cpu"] for r in results if "cpu" in r), default=0.0)
        print(
            f"| {label:<38} | {len(results):>3} | {med} | {worst} | {target:>7g} |"
            f" {cpu:11.2f} | {'; '.join(notes)}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
