"""Engine benchmark: every tool classifies every covered cell of the sample positions.

    .venv/bin/python bench/bench_engine.py [--quick] [--timeout SECONDS] [--classes a,b]
        [--modes classic,counted,probabilities] [--repeats N] [--no-cpsat]

One table per mode (``--modes``), side by side in one run with both of ms-toollib's entry
points on the same positions:

- ``classic``: our ``classify(position)`` (classic rule, no mine total);
- ``counted``: our ``classify(position, Count.COUNTED)`` (verdicts under the mine total);
- ``probabilities``: our ``exact_probabilities(position, Count.COUNTED)`` (exact fractions);
- ms-toollib ``get_all_not_and_is_mine_on_board(board)``: its classic deductions (no total;
  its answer is checked against the classic truth) and ``cal_probability_onboard(board,
  mines)``: probabilities under the total (its 0/1 values are its verdicts, checked against
  the counted truth). So the like-for-like pairs are classic vs get_all_not_and_is_mine_on_board
  and counted / probabilities vs cal_probability_onboard; every table shows both.

What is timed is the entry point alone, each tool's answer in its own form, from its own
input (our ``Position``, their list of rows): the conversion to letters for the truth check
happens once, untimed. Per position: the best of ``--repeats`` runs after a warm-up, CPU
time of the child (process time: every thread) and wall time; per class: median and worst;
ratio: their time / ours, median over the positions. "missed" means a tool left a decidable
frontier cell undecided (or got it wrong) vs the truth file. Every tool runs in a child
process with a time limit per position. Last, the peak memory of classifying a 300x300
position (tracemalloc, Python allocations only) and the child's peak resident set size.

Timings on a shared machine are noisy: CPU time is the steadier figure; say the load.
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
board = position.board
frontier = [c for c in board.cells() if position.is_covered(c)
            and any(position.number(n) is not None for n in board.neighbours(c))]
count = Count.CLASSIC if mode == "classic" else Count.COUNTED
rule = "local" if mode == "classic" else "global"

def letter(p):
    return "S" if p == 0 else "M" if p == 1 else "?"

# run(): the entry point alone, its answer in its own form (timed);
# answer(result): that answer as the truth file's letters per frontier cell (not timed)
if engine == "search" and mode == "probabilities":
    from devil.solver import exact_probabilities
    def run():
        return exact_probabilities(position, Count.COUNTED)
    def answer(r):
        return "".join(letter(r[c]) for c in frontier)
elif engine in ("search", "cpsat"):
    if engine == "search":
        from devil.solver import classify
    else:
        from devil.cpsat import classify
    def run():
        return classify(position, count)
    def answer(r):
        return "".join(r.verdict(c).letter for c in frontier)
else:
    import ms_toollib
    rows = position.rows()
    grid = [[10 if ch in ".F" else (int(ch) if ch.isdigit() else 10) for ch in row] for row in rows]
    if engine == "ms_classic":
        rule = "local"  # it never uses the mine total: checked against the classic truth
        def run():
            return ms_toollib.get_all_not_and_is_mine_on_board(grid)
        def answer(r):
            _, safe, mine = r
            safe = {{board.cell(a, b) for a, b in safe}}
            mine = {{board.cell(a, b) for a, b in mine}}
            return "".join("S" if c in safe else "M" if c in mine else "?" for c in frontier)
    else:
        rule = "global"  # it uses the mine total: checked against the counted truth
        total = float(position.mines)
        def run():
            return ms_toollib.cal_probability_onboard(grid, total)
        def answer(r):
            probs = r[0]
            return "".join(letter(probs[c // board.width][c % board.width]) for c in frontier)

got = answer(run())  # warm-up (imports, per-board caches) and the answer check
walls, cpus = [], []
for _ in range(repeats):
    c = time.process_time()
    t = time.perf_counter()
    run()
    walls.append(time.perf_counter() - t)
    cpus.append(time.process_time() - c)
out = {{"ms": min(walls) * 1000, "cpu": min(cpus) * 1000, "ok": got == truth_file[rule]}}
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


def summarise(results: list[dict], key: str = "cpu") -> tuple[str, list[float | None]]:
    """``med / worst`` of ``key`` (``cpu`` or ``ms``) and the per-position times (None:
    no time: a timeout or an error)."""
    times = [r.get(key) for r in results]
    got = [t for t in times if t is not None]
    wrong = sum(1 for r in results if key in r and not r["ok"])
    timeouts = sum(1 for r in results if r.get("timeout"))
    errors = sum(1 for r in results if r.get("error"))
    text = f"{statistics.median(got):7.3f} / {max(got):7.3f}" if got else f"{'-':>7} / {'-':>7}"
    notes = []
    if wrong:
        notes.append(f"{wrong} missed")
    if timeouts:
        notes.append(f"{timeouts} timeout")
    if errors:
        notes.append(f"{errors} error")
    return text + (" " + ",".join(notes) if notes else ""), times


def ratio(ours: list[float | None], theirs: list[float | None]) -> str:
    """Median over the positions both finished of their time / ours."""
    pairs = [(o, t) for o, t in zip(ours, theirs, strict=True) if o and t is not None]
    if not pairs:
        return "-"
    return f"x{statistics.median(t / o for o, t in pairs):.2f}"


MODES = {
    "classic": "classic rule: our classify(position) [no mine total]",
    "counted": "counted rule: our classify(position, COUNTED) [verdicts under the mine total]",
    "probabilities": "counted rule: our exact_probabilities(position, COUNTED) [exact fractions]",
}
OTHERS = {
    "ms_classic": "get_all_not_and_is_mine_on_board",
    "ms_prob": "cal_probability_onboard",
}
"""ms-toollib's two entry points: the classic deductions (no mine total: checked against
the classic truth) and probabilities with the mine total (0/1 as its verdicts: checked
against the counted truth)."""


def engine_line() -> str:
    code = "import devil.native as n; print(n.ENGINE, '-', n.REASON)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    return done.stdout.strip() or done.stderr.strip()[-200:]


def table(
    mode: str, by_class: dict[str, list[Path]], classes: list[str], args: argparse.Namespace
) -> None:
    repeats = 1 if args.quick else args.repeats
    others: list[str] = []
    if not args.no_others and available("ms_toollib"):
        others = list(OTHERS)
    if (
        mode != "probabilities"
        and not args.no_others
        and not args.no_cpsat
        and available("ortools")
    ):
        others.insert(0, "cpsat")
    print(f"\n## {MODES[mode]}\n")
    print("CPU ms per position (process time, best of the runs), median / worst over the class;")
    print("ratio: their CPU time / ours, median over the positions (wall-clock ratio after /)\n")
    header = f"{'class':12} {'n':>3} {'ours med / worst':>24}"
    for e in others:
        name = OTHERS.get(e, e)
        header += f" | {name + ' med / worst':>40} {'ratio cpu/wall':>15}"
    print(header)
    print("-" * len(header))
    for cls in classes:
        paths = by_class.get(cls, [])
        if args.quick:
            paths = paths[:: max(1, len(paths) // 4)][:4]
        if not paths:
            continue
        ours = [run_child(p, "search", repeats, args.timeout, mode=mode) for p in paths]
        text, our_cpu = summarise(ours)
        _, our_wall = summarise(ours, "ms")
        row = f"{cls:12} {len(paths):3} {text:>24}"
        for e in others:
            theirs = [run_child(p, e, repeats, args.timeout, mode=mode) for p in paths]
            their_text, their_cpu = summarise(theirs)
            _, their_wall = summarise(theirs, "ms")
            both = f"{ratio(our_cpu, their_cpu)}/{ratio(our_wall, their_wall)}"
            row += f" | {their_text:>40} {both:>15}"
        print(row, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="few positions, one run each")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per position")
    parser.add_argument("--classes", default=",".join(CLASSES))
    parser.add_argument(
        "--modes", default=",".join(MODES), help=f"comma-separated: {', '.join(MODES)}"
    )
    parser.add_argument("--repeats", type=int, default=9, help="timed runs per position")
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
