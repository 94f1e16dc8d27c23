"""Engine benchmark: classify every covered cell of the sample positions (classic rule).

    .venv/bin/python bench/bench_engine.py [--quick] [--timeout SECONDS] [--classes a,b]

Prints one table row per class: per-position time (best of a few runs, after a
warm-up) as median / worst over the class for the search backend, whether it matched
the truth file, then the same for the CP-SAT backend (``devil.cpsat``) and for
``ms_toollib.get_all_not_and_is_mine_on_board`` as ratios (their time / ours), with
how many positions they missed deductions on (vs the truth) or timed out. Every
engine runs in a child process with a time limit per position. Last, the peak memory
of classifying a 300x300 position (tracemalloc, Python allocations only) and the
child's peak resident set size.

Timings on a shared machine are noisy: compare orders of magnitude, not percent.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
POSITIONS = ROOT / "tests" / "data" / "positions"
CLASSES = [
    "inter",
    "expert",
    "big100",
    "huge300",
    "adv-band",
    "adv-ring",
    "adv-ring3",
    "adv-lattice",
]
TARGETS = {
    "inter": "1 / 3",
    "expert": "1.5 / 5",
    "big100": "50 / 150",
    "huge300": "250 / 500",
    "adv-band": "150",
    "adv-ring": "1000",
    "adv-ring3": "1000",
    "adv-lattice": "2000",
}

# -- child process: time one engine on one position --------------------------------------

CHILD = r"""
import json, sys, time, tracemalloc, resource
sys.path.insert(0, {root!r})
from devil.position import Position
from devil.rules import Count

path, engine, repeats, memory = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
mode = sys.argv[5]
text = open(path).read()
position = Position.from_text(text)
truth_file = json.load(open(path[:-4] + ".truth.json"))
truth = truth_file["local" if mode == "classic" else "global"]
board = position.board
frontier = [c for c in board.cells() if position.is_covered(c)
            and any(position.number(n) is not None for n in board.neighbours(c))]
count = Count.CLASSIC if mode == "classic" else Count.COUNTED

def letter(p):
    return "S" if p == 0 else "M" if p == 1 else "?"

if engine == "search" and mode == "probabilities":
    from devil.solver import exact_probabilities
    def run():
        r = exact_probabilities(position, Count.COUNTED)
        return "".join(letter(r[c]) for c in frontier)
elif engine == "search":
    from devil.solver import classify
    def run():
        r = classify(position, count)
        return "".join(r.verdict(c).letter for c in frontier)
elif engine == "cpsat":
    from devil import cpsat
    def run():
        r = cpsat.classify(position, count)
        return "".join(r.verdict(c).letter for c in frontier)
else:
    import ms_toollib
    rows = position.rows()
    grid = [[10 if ch in ".F" else (int(ch) if ch.isdigit() else 10) for ch in row] for row in rows]
    if mode == "classic":
        def run():
            _, safe, mine = ms_toollib.get_all_not_and_is_mine_on_board(grid)
            safe = {{board.cell(r, c) for r, c in safe}}
            mine = {{board.cell(r, c) for r, c in mine}}
            return "".join("S" if c in safe else "M" if c in mine else "?" for c in frontier)
    else:
        total = float(position.mines)
        def run():
            probs, _ = ms_toollib.cal_probability_onboard(grid, total)
            return "".join(letter(probs[c // board.width][c % board.width]) for c in frontier)

run()  # warm-up: imports, per-board caches
times = []
for _ in range(repeats):
    t = time.perf_counter()
    got = run()
    times.append(time.perf_counter() - t)
out = {{"ms": min(times) * 1000, "ok": got == truth}}
if memory:
    tracemalloc.start()
    run()
    out["traced_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def run_child(
    path: Path,
    engine: str,
    repeats: int,
    timeout: float,
    memory: bool = False,
    mode: str = "classic",
) -> dict:
    code = CHILD.format(root=str(ROOT))
    flag = "1" if memory else "0"
    cmd = [sys.executable, "-c", code, str(path), engine, str(repeats), flag, mode]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"timeout": True}
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        return {"error": last[:80]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def available(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


# -- the table ---------------------------------------------------------------------------


def summarise(results: list[dict]) -> tuple[str, list[float]]:
    times = [r["ms"] for r in results if "ms" in r]
    wrong = sum(1 for r in results if "ms" in r and not r["ok"])
    timeouts = sum(1 for r in results if r.get("timeout"))
    errors = sum(1 for r in results if r.get("error"))
    if times:
        text = f"{statistics.median(times):8.2f} / {max(times):8.2f}"
    else:
        text = f"{'-':>8} / {'-':>8}"
    notes = []
    if wrong:
        notes.append(f"{wrong} missed")
    if timeouts:
        notes.append(f"{timeouts} timeout")
    if errors:
        notes.append(f"{errors} error")
    return text + (" " + ",".join(notes) if notes else ""), times


def ratio(ours: list[float], theirs: list[dict]) -> str:
    pairs = [(o, t["ms"]) for o, t in zip(ours, theirs, strict=False) if "ms" in t]
    if not pairs:
        return "-"
    return f"x{statistics.median(t / o for o, t in pairs):.2f}"


MODES = {
    "classic": "classic rule: classify (ms_toollib: get_all_not_and_is_mine_on_board)",
    "counted": "counted rule: classify with the total (ms_toollib: cal_probability_onboard)",
    "probabilities": "counted exact probabilities (ms_toollib: cal_probability_onboard)",
}


def engine_line() -> str:
    code = "import devil.native as n; print(n.ENGINE, '-', n.REASON)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    return done.stdout.strip() or done.stderr.strip()[-200:]


def table(
    mode: str, by_class: dict[str, list[Path]], classes: list[str], args: argparse.Namespace
) -> None:
    repeats = 1 if args.quick else 3
    others = [] if args.no_others else ["ms_toollib"] if available("ms_toollib") else []
    if (
        mode != "probabilities"
        and not args.no_others
        and not args.no_cpsat
        and available("ortools")
    ):
        others.insert(0, "cpsat")
    print(f"\n## {MODES[mode]}\n")
    header = f"{'class':12} {'n':>3} {'ours ms med / worst':>24} {'target':>10}"
    for e in others:
        header += f" | {e + ' med/worst':>30} {'ratio':>7}"
    print(header)
    print("-" * len(header))
    for cls in classes:
        paths = by_class.get(cls, [])
        if args.quick:
            paths = paths[:: max(1, len(paths) // 4)][:4]
        if not paths:
            continue
        ours = [run_child(p, "search", repeats, args.timeout, mode=mode) for p in paths]
        text, our_times = summarise(ours)
        target = TARGETS.get(cls, "") if mode == "classic" else ""
        row = f"{cls:12} {len(paths):3} {text:>24} {target:>10}"
        for e in others:
            theirs = [run_child(p, e, repeats, args.timeout, mode=mode) for p in paths]
            their_text, _ = summarise(theirs)
            matched = [t for o, t in zip(ours, theirs, strict=True) if "ms" in o]
            row += f" | {their_text:>30} {ratio(our_times, matched):>7}"
        print(row, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="few positions, one run each")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per position")
    parser.add_argument("--classes", default=",".join(CLASSES))
    parser.add_argument(
        "--modes", default=",".join(MODES), help=f"comma-separated: {', '.join(MODES)}"
    )
    parser.add_argument("--no-others", action="store_true", help="skip CP-SAT and ms_toollib")
    parser.add_argument("--no-cpsat", action="store_true", help="skip CP-SAT (keep ms_toollib)")
    args = parser.parse_args(argv)
    if not POSITIONS.is_dir():
        print(f"no sample positions at {POSITIONS}", file=sys.stderr)
        return 2
    by_class: dict[str, list[Path]] = defaultdict(list)
    for path in sorted(POSITIONS.glob("*.txt")):
        for line in path.read_text().splitlines():
            if line.startswith("# class:"):
                by_class[line.split(":", 1)[1].strip()].append(path)
                break
    print(f"engine: {engine_line()}")
    started = time.perf_counter()
    classes = args.classes.split(",")
    for mode in args.modes.split(","):
        if mode not in MODES:
            print(f"unknown mode {mode!r}: expected one of {', '.join(MODES)}", file=sys.stderr)
            return 2
        table(mode, by_class, classes, args)
    huge = by_class.get("huge300", [])
    if huge and "huge300" in classes:
        mem = run_child(huge[-1], "search", 1, args.timeout * 2, memory=True)
        if "traced_mb" in mem:
            print(
                f"\nmemory at 300x300 ({huge[-1].name}): peak traced {mem['traced_mb']:.1f} MB, "
                f"peak RSS of the child {mem['rss_mb']:.1f} MB"
            )
    print(f"\n(total {time.perf_counter() - started:.0f} s; ratio = their time / ours, median)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
