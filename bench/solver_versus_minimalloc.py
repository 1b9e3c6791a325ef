#!/usr/bin/env python3
"""The exact planner next to MiniMalloc on the same problems, in the same run.

For every problem (../shared/dsa A-F, and/or a generated suite written by
build/release/bench/generate_problems: seeded problems shaped like A-E, each with a known plan
within its capacity), runs `minimalloc --capacity` and `microarena solve --capacity --output`
(each writes its plan to a file) one after the other (never at once; which goes first
alternates), each with the same time limit (a problem both solve in under --repeat-below
seconds, 1 by default, runs --repeats times, 3 by default, still alternating, and each tool's
best time counts: the machine's jitter, added to both times, weighs more on the faster tool's), and
reports per problem both wall times, both answers and the speed-up (MiniMalloc's time /
microarena's). The summary: how many each solved (a plan within the capacity, or a proof that
there is none) within the limit, the geometric mean of the speed-ups over the problems both
solved and over those of them where MiniMalloc took more than 0.2 s, the problems where
MiniMalloc took more than 0.2 s and microarena was slower, and each tool's start-up (its time
on a one-buffer problem: the floor under every time, which most generated problems barely
exceed for either tool).
A generated problem answered "infeasible" is a wrong answer (it has a plan) and fails the run.

  bench/solver_versus_minimalloc.py [--suite dsa|generated|both|none] [--count 200] [--first-seed 1]
      [--family cut|like-a-k|like-a-f]
      [--problems FILE...] [--time-limit 60] [--repeats 3] [--repeat-below 1]
      [--cli build/release/tools/microarena/microarena]
      [--generator build/release/bench/generate_problems] [--shared ../shared] [--json FILE]

--problems adds problem files named X.<capacity>.csv, e.g. MiniMalloc's other benchmarks
(google/minimalloc, benchmarks/asplos2024/G-K), which head their columns buffer,start,end,size:
microarena reads that; the MiniMalloc in ../shared/tools (commit 9f5cf81) answers such a file
NOT_FOUND in milliseconds, so it gets a copy headed id,lower,upper,size.
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
import time


def timed(cmd, limit):
    start = time.monotonic()
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=limit + 30)
        code = done.returncode
        out = done.stdout + done.stderr
    except subprocess.TimeoutExpired:
        code, out = -1, "killed after the limit + 30 s"
    return time.monotonic() - start, code, out


def capacity_of(path):
    # A-F and generated problems name their capacity: X.1048576.csv
    return int(os.path.basename(path).split(".")[1])


def minimalloc_input(path, tmp):
    """The problem as the bundled MiniMalloc reads it: columns headed id,lower,upper,size."""
    with open(path) as f:
        header, rest = f.readline(), f.read()
    names = [n.strip() for n in header.strip().split(",")]
    renamed = [{"buffer": "id", "start": "lower", "end": "upper"}.get(n, n) for n in names]
    if renamed == names:
        return path
    copy = os.path.join(tmp, "minimalloc_input", os.path.basename(path))
    os.makedirs(os.path.dirname(copy), exist_ok=True)
    with open(copy, "w") as f:
        f.write(",".join(renamed) + "\n" + rest)
    return copy


def run_minimalloc(tool, path, limit, tmp):
    path = minimalloc_input(path, tmp)
    cmd = [tool, f"--input={path}", f"--output={os.path.join(tmp, 'mm.csv')}",
           f"--capacity={capacity_of(path)}", f"--timeout={limit}s"]
    seconds, code, out = timed(cmd, limit)
    # MiniMalloc exits 0 with a solution, non-zero otherwise; it does not say "infeasible"
    # apart from a timeout, so a non-zero exit under the limit counts as not solved either.
    return seconds, "fits" if code == 0 else "unsolved"


def run_microarena(cli, path, limit, tmp):
    # Writes its plan, as MiniMalloc does: the same work delivered by both.
    cmd = [cli, "solve", path, "--capacity", str(capacity_of(path)), "--time-limit", str(limit),
           "--output", os.path.join(tmp, "ma.csv")]
    seconds, code, out = timed(cmd, limit)
    answer = {0: "fits", 3: "infeasible", 4: "unsolved"}.get(code)
    if answer is None:
        sys.exit(f"solver_versus_minimalloc: {' '.join(cmd)} failed ({code}):\n{out}")
    return seconds, answer


# Generated families (generate_problems options). "cut": the whole rectangle cut up, 0-6 pieces
# dropped: area shares 0.98-1.00 and the capacity reached at most steps, tighter than any of
# MiniMalloc's A-K. "like-a-k": 200-500 pieces cut on a 512 x 512 grid, then dropped down to
# an area share drawn in 0.58-0.98 with the peak kept at 0.94 of the capacity or more: the
# ranges of A-K (whose capacity is reached at 0-59 % of the steps; 154-454 buffers; 0.19-0.55
# distinct sizes per buffer, where the 1024 grid gives 0.45-0.67).
# "like-a-f": 150-300 pieces on the 512 grid, cut across space with probability 0.65 (longer
# lifetimes, more of them nested), dropped to area shares 0.66-0.98 with the peak at 0.94 or
# more: A-F's own ranges (154-296 buffers; 90th-percentile lifetimes 0.16-0.95 of the steps and
# 0.68-0.83 of the overlapping pairs nested in A-E, F 0.05 and 0.29), where the other two families' lifetimes
# end at about 0.2 and 0.58-0.65 of their pairs nest.
FAMILIES = {
    "cut": [],
    "like-a-f": ["--grid", "512", "--min-buffers", "150", "--max-buffers", "300", "--min-area-permille", "660",
                 "--max-area-permille", "980", "--min-peak-permille", "940", "--space-cut-permille", "650"],
    "like-a-k": ["--grid", "512", "--min-buffers", "200", "--max-buffers", "500", "--min-area-permille", "580",
                 "--max-area-permille", "980", "--min-peak-permille", "940"],
}


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", choices=["dsa", "generated", "both", "none"], default="both")
    parser.add_argument("--problems", nargs="*", default=[], help="more problem files (X.<capacity>.csv)")
    parser.add_argument("--count", type=int, default=200, help="generated problems")
    parser.add_argument("--family", choices=sorted(FAMILIES), default="cut",
                        help="generated problems: the cut rectangle (generate_problems' defaults), "
                             "dropped down to A-K's area shares and peaks, or also with A-F's longer, "
                             "nested lifetimes")
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per solver and problem")
    parser.add_argument("--repeats", type=int, default=3,
                        help="runs of each tool on a problem both solved in under --repeat-below seconds; "
                             "the best time of each counts")
    parser.add_argument("--repeat-below", type=float, default=1.0, help="seconds (see --repeats)")
    parser.add_argument("--cli", default=os.path.join(root, "build/release/tools/microarena/microarena"))
    parser.add_argument("--generator", default=os.path.join(root, "build/release/bench/generate_problems"))
    parser.add_argument("--shared", default=os.environ.get("MICROARENA_SHARED_DIR", os.path.join(root, "../shared")))
    parser.add_argument("--json", help="write every row and the summary here")
    args = parser.parse_args()
    if args.repeats < 1:
        sys.exit("solver_versus_minimalloc: --repeats must be 1 or more")

    minimalloc = os.path.join(args.shared, "tools/minimalloc")
    for tool in (minimalloc, args.cli):
        if not os.access(tool, os.X_OK):
            sys.exit(f"solver_versus_minimalloc: {tool} is missing (build, or pass --shared / --cli)")
    with tempfile.TemporaryDirectory() as tmp:
        problems = []
        if args.suite in ("dsa", "both"):
            dsa = os.path.join(args.shared, "dsa")
            problems += [os.path.join(dsa, f"{p}.1048576.csv") for p in "ABCDEF"]
        if args.suite in ("generated", "both"):
            gen_dir = os.path.join(tmp, "generated")
            done = subprocess.run([args.generator, "--out", gen_dir, "--count", str(args.count),
                                   "--first-seed", str(args.first_seed), *FAMILIES[args.family]],
                                  capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"solver_versus_minimalloc: generate_problems failed: {done.stderr}")
            problems += [os.path.join(gen_dir, f"g{row['problem'][1:]}.1048576.csv")
                         for row in csv.DictReader(done.stdout.splitlines())]
        for path in args.problems:
            if not os.path.isfile(path):
                sys.exit(f"solver_versus_minimalloc: {path}: no such file")
            problems.append(os.path.abspath(path))
        # Each tool's time on a one-buffer problem: process start, reading, writing. Most
        # generated problems take little more than this for both.
        one = os.path.join(tmp, "one.1024.csv")
        with open(one, "w") as f:
            f.write("id,lower,upper,size\n0,0,1,1024\n")
        startup = {}
        for name, run in (("minimalloc", lambda: run_minimalloc(minimalloc, one, 10, tmp)),
                          ("microarena", lambda: run_microarena(args.cli, one, 10, tmp))):
            times = []
            for _ in range(5):
                seconds, answer = run()
                if answer != "fits":
                    sys.exit(f"solver_versus_minimalloc: {name} answered {answer} on a one-buffer problem")
                times.append(seconds)
            startup[name] = min(times)
        rows = []

        def run_pair(path, turn):
            """Both tools on `path`, one after the other; which goes first alternates with `turn`."""
            if turn % 2 == 0:
                mm = run_minimalloc(minimalloc, path, args.time_limit, tmp)
                return mm, run_microarena(args.cli, path, args.time_limit, tmp)
            ma = run_microarena(args.cli, path, args.time_limit, tmp)
            return run_minimalloc(minimalloc, path, args.time_limit, tmp), ma

        print(f"{'problem':>8} {'minimalloc s':>13} {'microarena s':>13} {'speed-up':>9}  answers")
        for index, path in enumerate(problems):
            name = os.path.basename(path).split(".")[0]
            mm, ma = run_pair(path, index)
            # Quick problems again, alternating on, each tool's best time kept (as for the
            # start-up): a few milliseconds of the machine's own jitter, added to both times,
            # would otherwise count for more in the faster tool's.
            quick = mm[1] != "unsolved" and ma[1] != "unsolved" and max(mm[0], ma[0]) < args.repeat_below
            runs = 1
            for repeat in range(1, args.repeats if quick else 1):
                mm_again, ma_again = run_pair(path, index + repeat)
                if (mm_again[1], ma_again[1]) != (mm[1], ma[1]):
                    # Not expected under a limit far above these times; the first answers stand.
                    print(f"{name:>8}: answers changed on repeat {repeat + 1} "
                          f"({mm_again[1]} / {ma_again[1]}); the first run's times kept", flush=True)
                    break
                runs += 1
                mm = (min(mm[0], mm_again[0]), mm[1])
                ma = (min(ma[0], ma_again[0]), ma[1])
            generated = os.path.exists(path.replace(".csv", ".witness.csv"))
            if generated and ma[1] == "infeasible":
                sys.exit(f"solver_versus_minimalloc: {name} answered infeasible but has a plan")
            row = {"problem": name, "minimalloc_s": mm[0], "minimalloc": mm[1],
                   "microarena_s": ma[0], "microarena": ma[1], "runs": runs}
            row["speedup"] = mm[0] / ma[0] if mm[1] != "unsolved" and ma[1] != "unsolved" else None
            rows.append(row)
            speedup = f"{row['speedup']:.2f}x" if row["speedup"] else "-"
            print(f"{name:>8} {mm[0]:13.3f} {ma[0]:13.3f} {speedup:>9}  {mm[1]} / {ma[1]}", flush=True)

    both = [r["speedup"] for r in rows if r["speedup"]]
    hard = [r["speedup"] for r in rows if r["speedup"] and r["minimalloc_s"] > 0.2]
    slower = [r["problem"] for r in rows
              if r["minimalloc"] != "unsolved" and r["minimalloc_s"] > 0.2
              and (r["microarena"] == "unsolved" or r["microarena_s"] > r["minimalloc_s"])]
    summary = {
        "problems": len(rows),
        "time_limit_s": args.time_limit,
        "repeats": args.repeats,
        "repeat_below_s": args.repeat_below,
        "minimalloc_solved": sum(r["minimalloc"] != "unsolved" for r in rows),
        "microarena_solved": sum(r["microarena"] != "unsolved" for r in rows),
        "both_solved": len(both),
        "geomean_speedup": geomean(both),
        "both_solved_minimalloc_over_0.2s": len(hard),
        "geomean_speedup_where_minimalloc_over_0.2s": geomean(hard),
        "startup_s": startup,
        "slower_where_minimalloc_over_0.2s": slower,
        "solved_only_by_microarena": [r["problem"] for r in rows
                                      if r["microarena"] != "unsolved" and r["minimalloc"] == "unsolved"],
        "solved_only_by_minimalloc": [r["problem"] for r in rows
                                      if r["minimalloc"] != "unsolved" and r["microarena"] == "unsolved"],
    }
    if args.repeats > 1:
        print(f"\ntimes: best of {args.repeats} runs each where both tools took under {args.repeat_below:g} s")
    print(f"\nsolved within {args.time_limit:g} s: microarena {summary['microarena_solved']}/{len(rows)}, "
          f"MiniMalloc {summary['minimalloc_solved']}/{len(rows)}")
    if both:
        print(f"geometric mean speed-up (MiniMalloc time / microarena time) over the {len(both)} "
              f"both solved: {summary['geomean_speedup']:.2f}x")
    if hard:
        print(f"geometric mean speed-up over the {len(hard)} both solved where MiniMalloc took more than "
              f"0.2 s: {summary['geomean_speedup_where_minimalloc_over_0.2s']:.2f}x")
    print(f"start-up (a one-buffer problem, best of 5): MiniMalloc {startup['minimalloc'] * 1000:.1f} ms, "
          f"microarena {startup['microarena'] * 1000:.1f} ms: the floor of every time above")
    print(f"solved only by microarena: {' '.join(summary['solved_only_by_microarena']) or '-'}")
    print(f"solved only by MiniMalloc: {' '.join(summary['solved_only_by_minimalloc']) or '-'}")
    print(f"MiniMalloc over 0.2 s and microarena slower: {' '.join(slower) or 'none'}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"rows": rows, "summary": summary}, out, indent=1)


if __name__ == "__main__":
    main()
