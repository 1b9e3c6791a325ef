#!/usr/bin/env python3
"""Measures the figures the README's results quote and writes or checks them.

Each figure block sits in README.md (or docs/cortex_m.md) between
  <!-- figures:NAME:begin (scripts/figures.sh) -->  and  <!-- figures:NAME:end -->
and is generated here from what the code measures now:
  arena         `microarena run --json` per shared model (the minimum arena, head,
                lower bound) and `run --overlap`, next to ../shared/golden/tflm_arena.csv
  best          bench/ram_ratios.py: every shared model `optimize --overlap`d (kernel data in
                flash, the whole plan stored) and run, next to TFLM's minimum arena and tail
  overlap       docs/overlap.md: `run` without and with `--overlap` (exact and greedy) per
                shared model and the demo model, and `plan --overlap` for the overlap-aware bound
  tiling        `run --tile` and `run --tile --overlap` per shared model a tiling applies to,
                and `run --overlap` of the `optimize --overlap --tile`d file (every technique),
                next to TFLM's minimum arena; outputs compared with TFLM's goldens
  instructions  bench/callgrind_invoke.sh (valgrind callgrind, instructions per Invoke)
  solver        `microarena solve` on ../shared/dsa (head, lower bound, search nodes),
                next to MiniMalloc's figures from ../shared/dsa/README.md
  cortex-m      kws_ref_model on the Cortex-M4 against TFLM, from the results file
                scripts/cortex_m.sh writes (build/cortex_m/figures.txt)
  cortex-m-sizes, cortex-m-models (docs/cortex_m.md)
  cortex-m-speed  instructions per Invoke of the MLPerf models at -Os and -O2
                against TFLM's reference and CMSIS-NN kernels (same results file)
                the demo's and kws's flash and RAM split, and every model's figures
                on the Cortex-M4, from the same file (models: a run of every model)
Every figure is deterministic and held exactly, except the solver's wall time,
a column labelled as such that --check leaves out.
Usage: see scripts/figures.sh.
"""
import argparse
import concurrent.futures
import csv
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCKS = ["arena", "best", "overlap", "tiling", "instructions", "solver", "cortex-m", "cortex-m-sizes", "cortex-m-models",
          "cortex-m-speed"]
# Where each block lives.
BLOCK_FILES = {"arena": "README.md", "best": "README.md", "overlap": "docs/overlap.md", "tiling": "README.md", "instructions": "README.md", "solver": "README.md", "cortex-m": "README.md",
               "cortex-m-sizes": "docs/cortex_m.md", "cortex-m-models": "docs/cortex_m.md", "cortex-m-speed": "README.md"}
WALL_TIME_HEADER = "wall time (not checked)"
SOLVER_CAPACITY = 1048576
# Search nodes the proof of a minimum may take when --capacity leaves it open (a
# node limit, unlike a time limit, gives the same answer on every machine). Only
# D needs it (C is proven in 672 nodes): 6,000,000 nodes, about 6 s, bring its
# best plan below MiniMalloc's best (2,000,000 only meet it).
MINIMISE_NODE_LIMIT = 6000000
MISSING_EXIT = 5  # scripts/figures.sh turns it into a failure or a skip (MICROARENA_STRICT)


class Missing(Exception):
    """A tool or data set the figures need is absent."""


def thousands(n):
    return f"{int(n):,}"


def ratio(a, b):
    return f"{a / b:.3f}"


def table(header, rows, align):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def run(cmd, ok_codes=(0,)):
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode not in ok_codes:
        sys.stderr.write(proc.stderr)
        raise RuntimeError(f"{' '.join(cmd)} exited with {proc.returncode}")
    return proc.stdout


def read_tflm_csv(path):
    if not os.path.isfile(path):
        raise Missing(path)
    with open(path, newline="") as f:
        return {row["model"]: row for row in csv.DictReader(f)}


# ---------------------------------------------------------------- arena


def gen_arena(ctx):
    tflm = read_tflm_csv(os.path.join(ctx.shared, "golden", "tflm_arena.csv"))
    rows = []
    figures = {}
    with tempfile.TemporaryDirectory() as tmp:
        def measure(model, *flags):
            path = os.path.join(ctx.shared, "models", model + ".tflite")
            return json.loads(run([ctx.cli, "run", path, "--json", "--seed", "1", "--output-dir", tmp, *flags]))

        for model, t in tflm.items():
            if not os.path.isfile(os.path.join(ctx.shared, "models", model + ".tflite")):
                continue
            m = measure(model)
            figures[model] = m
            tflm_arena = int(t["min_arena_bytes"])
            rows.append([model, thousands(t["head_bytes"]), thousands(m["head_bytes"]), thousands(m["lower_bound_bytes"]),
                         thousands(tflm_arena), thousands(m["arena_bytes"]), ratio(m["arena_bytes"], tflm_arena)])
        if not rows:
            raise Missing(os.path.join(ctx.shared, "models"))
        overlap_model = "vww_96_int8"
        o = measure(overlap_model, "--overlap")
    lines = table(["model", "TFLM head", "microarena head", "lower bound", "TFLM arena", "microarena arena", "ratio"],
                  rows, ["---"] + ["---:"] * 6)
    lines.append("")
    base = figures[overlap_model]
    below = "below" if o["head_bytes"] < base["lower_bound_bytes"] else "not below"
    sentences = []
    sentences.append(f"With `--overlap` (docs/overlap.md; the exact planner under a node limit) the head goes {below} "
                     f"the lower bound: {overlap_model} runs in {thousands(o['arena_bytes'])} B "
                     f"(head {thousands(o['head_bytes'])} B, lower bound {thousands(base['lower_bound_bytes'])} B), "
                     f"{ratio(o['arena_bytes'], int(tflm[overlap_model]['min_arena_bytes']))} x TFLM's minimum arena.")
    planners = sorted({m["planner"] for m in figures.values()})
    over = [name for name, m in figures.items() if m["head_bytes"] > m["lower_bound_bytes"]]
    reached = "all of these" if not over else "all of these but " + ", ".join(over)
    tflm_over = [f"{name} by {100 * (int(tflm[name]['head_bytes']) / m['lower_bound_bytes'] - 1):.0f}%"
                 for name, m in figures.items() if int(tflm[name]["head_bytes"]) > m["lower_bound_bytes"]]
    tflm_sentence = ("TFLM's greedy planner misses it on " + ", ".join(tflm_over)) if tflm_over else \
        "so does TFLM's greedy planner"
    sentences.append(f"The runtime's default device planner (`{'`, `'.join(planners)}`) reaches the lower bound on "
                     f"{reached}; {tflm_sentence}.")
    # Wrapped as the README's prose is.
    return lines + textwrap.wrap(" ".join(sentences), width=92, break_long_words=False, break_on_hyphens=False)


# ------------------------------------------------------------------ best


def gen_best(ctx):
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import ram_ratios  # noqa: E402 (bench/ram_ratios.py: the one measurement, shared with the benchmark)
    if not os.path.isfile(os.path.join(ctx.shared, "golden", "tflm_arena.csv")):
        raise Missing(os.path.join(ctx.shared, "golden", "tflm_arena.csv"))
    rows = []
    for r in ram_ratios.measure(ctx.cli, ctx.shared):
        rows.append([r["model"], thousands(r["tflm_min_arena_bytes"]), thousands(r["arena_bytes"]),
                     ratio(r["arena_bytes"], r["tflm_min_arena_bytes"]), thousands(r["head_bytes"]),
                     thousands(r["temp_peak_bytes"]), thousands(r["persistent_bytes"] - r["variable_state_bytes"]),
                     thousands(r["tflm_tail_without_variables"]),
                     ratio(r["persistent_bytes"] - r["variable_state_bytes"], r["tflm_tail_without_variables"]),
                     thousands(r["kernel_data_flash_bytes"])])
    if not rows:
        raise Missing(os.path.join(ctx.shared, "models"))
    return table(["model", "TFLM arena", "microarena arena", "ratio", "head", "temp peak", "persistent",
                  "TFLM tail", "ratio", "kernel data in flash"], rows, ["---"] + ["---:"] * 9)


# --------------------------------------------------------------- overlap

OVERLAP_MODELS = ["vww_96_int8", "pretrainedResnet_quant", "kws_ref_model", "demo model", "micro_speech_quantized",
                  "simple_add_model", "keyword_scrambled_8bit", "trained_lstm_int8", "ad01_int8", "hello_world_int8",
                  "hello_world_float"]


def gen_overlap(ctx):
    tflm = read_tflm_csv(os.path.join(ctx.shared, "golden", "tflm_arena.csv"))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        def measure(path, *flags):
            return json.loads(run([ctx.cli, "run", path, "--json", "--seed", "1", "--output-dir", tmp, *flags]))

        for model in OVERLAP_MODELS:
            if model == "demo model":
                path = os.path.join(tmp, "demo.tflite")
                run([ctx.cli, "demo-model", "-o", path])
            else:
                path = os.path.join(ctx.shared, "models", model + ".tflite")
                if not os.path.isfile(path):
                    raise Missing(path)
            plain, exact = measure(path), measure(path, "--overlap")
            greedy = measure(path, "--overlap", "--planner", "greedy")
            tflm_arena = thousands(tflm[model]["min_arena_bytes"]) if model in tflm else "–"
            rows.append([model, thousands(plain["head_bytes"]), thousands(plain["lower_bound_bytes"]),
                         thousands(plain["arena_bytes"]), thousands(exact["head_bytes"]), thousands(exact["arena_bytes"]),
                         thousands(greedy["head_bytes"]), thousands(greedy["arena_bytes"]), tflm_arena])
            if model == OVERLAP_MODELS[0]:
                first = (plain, exact, json.loads(run([ctx.cli, "plan", path, "--overlap", "--json", "--planner",
                                                       "greedy"])))
    lines = table(["model", "head", "no-overlap bound", "arena", "head, overlap (exact)", "arena, overlap (exact)",
                   "head, overlap (greedy)", "arena, overlap (greedy)", "TFLM min arena"], rows,
                  ["---"] + ["---:"] * 8)
    plain, exact, plan = first
    model = OVERLAP_MODELS[0]
    below = 100 * (1 - exact["head_bytes"] / plain["lower_bound_bytes"])
    sentence = (f"On {model} the head is {below:.0f}% below the no-overlap lower bound (the overlap-aware bound is "
                f"{thousands(plan['overlap_lower_bound_bytes'])} B) and the arena is "
                f"{ratio(exact['arena_bytes'], int(tflm[model]['min_arena_bytes']))} x TFLM's minimum.")
    return lines + [""] + textwrap.wrap(sentence, width=76, break_long_words=False, break_on_hyphens=False)


# ---------------------------------------------------------------- tiling

TILING_MODELS = ["vww_96_int8", "pretrainedResnet_quant", "kws_ref_model"]


def gen_tiling(ctx):
    tflm = read_tflm_csv(os.path.join(ctx.shared, "golden", "tflm_arena.csv"))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        def measure(path, *flags):
            out = os.path.join(tmp, "out")
            shutil.rmtree(out, ignore_errors=True)
            figures = json.loads(run([ctx.cli, "run", path, "--json", "--seed", "1", "--output-dir", out, *flags]))
            with open(os.path.join(out, "output_0.bin"), "rb") as f:
                figures["output"] = f.read()
            return figures

        for model in TILING_MODELS:
            path = os.path.join(ctx.shared, "models", model + ".tflite")
            golden = os.path.join(ctx.shared, "golden", model, "seed1", "output_0.bin")
            for needed in (path, golden):
                if not os.path.isfile(needed):
                    raise Missing(needed)
            with open(golden, "rb") as f:
                golden_output = f.read()
            optimized = os.path.join(tmp, model + ".optimized.tflite")
            run([ctx.cli, "optimize", path, "-o", optimized, "--overlap", "--tile"])
            plain, tiled = measure(path), measure(path, "--tile")
            overlap, every = measure(path, "--tile", "--overlap"), measure(optimized, "--overlap")
            exact = all(m["output"] == golden_output for m in (tiled, overlap, every))
            tflm_arena = int(tflm[model]["min_arena_bytes"])
            rows.append([model, thousands(tflm_arena), thousands(plain["lower_bound_bytes"]),
                         thousands(tiled["head_bytes"]), thousands(overlap["head_bytes"]),
                         f"{100 * (1 - overlap['head_bytes'] / plain['lower_bound_bytes']):.1f} %",
                         thousands(every["arena_bytes"]), thousands(every["temp_peak_bytes"]),
                         ratio(every["arena_bytes"], tflm_arena),
                         "yes" if exact else "NO"])
    return table(["model", "TFLM arena", "untiled lower bound", "head, --tile", "head, --tile --overlap",
                  "below the bound", "arena, every technique", "temp peak", "ratio", "bit-exact"], rows,
                 ["---"] + ["---:"] * 8 + ["---"])


# ---------------------------------------------------------- instructions


# Host instructions per Invoke against TFLM's reference build, at most.
HOST_INSTRUCTIONS_LIMIT = 0.5


def gen_instructions(ctx):
    if shutil.which("valgrind") is None:
        raise Missing("valgrind (apt-get install valgrind; scripts/deps.sh installs it)")
    read_tflm_csv(os.path.join(ctx.shared, "golden", "tflm_arena.csv"))
    out = run([os.path.join(ROOT, "bench", "callgrind_invoke.sh"), ctx.build])
    rows = []
    for line in out.splitlines()[1:]:
        model, ours, theirs, r = line.split()
        # The fast int8 kernels' host target (docs/kernels.md): fail, whatever
        # the README says, when a model needs more.
        if float(r) > HOST_INSTRUCTIONS_LIMIT:
            raise RuntimeError(f"{model}: {ours} instructions per Invoke on the host, {r} x TFLM's {theirs}; "
                               f"the limit is {HOST_INSTRUCTIONS_LIMIT} x")
        rows.append([model, thousands(ours), thousands(theirs), r])
    return table(["model", "microarena", "TFLM", "ratio"], rows, ["---", "---:", "---:", "---:"])


# ---------------------------------------------------------------- solver


def solve(ctx, path, *flags):
    # Exit 3 and 4 (infeasible, undecided) still print the figures.
    out = run([ctx.cli, "solve", path, "--time-limit", "0", *flags], ok_codes=(0, 3, 4))
    fields = dict(re.findall(r"^([a-z ]+):\s+(.*)$", out, re.M))
    return {
        "buffers": int(re.search(r"\((\d+) buffers", fields["problem"]).group(1)),
        "head": int(fields["head"].split()[0]),
        "lower": int(fields["lower bound"].split()[0]),
        "proven": fields["proven"].startswith("yes"),
        "nodes": int(fields["nodes"]),
        "seconds": float(fields["time"].split()[0]),
    }


def minimalloc_figures(shared):
    """MiniMalloc's time and proven minimum per problem, from ../shared/dsa/README.md."""
    path = os.path.join(shared, "dsa", "README.md")
    if not os.path.isfile(path):
        raise Missing(path)
    result = {}
    with open(path) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 6 and re.fullmatch(r"[A-Z]", cells[0]):
                result[cells[0]] = {"time": cells[4], "minimum": cells[5]}
    return result


def gen_solver(ctx):
    minimalloc = minimalloc_figures(ctx.shared)
    problems = sorted(minimalloc)
    paths = {p: os.path.join(ctx.shared, "dsa", f"{p}.{SOLVER_CAPACITY}.csv") for p in problems}
    # Two at a time (the machine's two cores): the nodes do not depend on it, only the time.
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        solved = dict(zip(problems, pool.map(lambda p: solve(ctx, paths[p], "--capacity", str(SOLVER_CAPACITY)),
                                             problems)))
    rows = []
    for problem in problems:
        path, s = paths[problem], solved[problem]
        if s["head"] == s["lower"]:
            minimum = thousands(s["lower"])
        else:
            m = solve(ctx, path, "--node-limit", str(MINIMISE_NODE_LIMIT))
            if m["proven"]:
                minimum = f"{thousands(m['head'])} (minimising: {thousands(m['nodes'])} nodes)"
            else:
                best = re.search(r"best found ([\d,]+)", minimalloc[problem]["minimum"])
                # The proven interval: the bound, and the best plan's head.
                minimum = (f"open: {thousands(m['lower'])} to {thousands(m['head'])} (best plan in "
                           f"{thousands(MINIMISE_NODE_LIMIT)} nodes"
                           + (f"; MiniMalloc's best: {best.group(1)})" if best else ")"))
        rows.append([problem, s["buffers"], thousands(s["lower"]), thousands(s["head"]), thousands(s["nodes"]),
                     f"{s['seconds']:.2f} s", minimalloc[problem]["time"], minimum])
    return table(["problem", "buffers", "lower bound", f"`solve --capacity {SOLVER_CAPACITY}`", "search nodes",
                  WALL_TIME_HEADER, "MiniMalloc's time", "proven minimum height"],
                 rows, ["---"] + ["---:"] * 6 + ["---"])


# -------------------------------------------------------------- cortex-m


def read_cortex_m_results(path):
    """`<model> <field> <value>` lines, as scripts/cortex_m.sh writes them."""
    if not os.path.isfile(path):
        raise Missing(f"{path} (written by scripts/cortex_m.sh)")
    figures = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3:
                figures.setdefault(parts[0], {})[parts[1]] = parts[2]
    return figures


def gen_cortex_m(ctx):
    figures = read_cortex_m_results(ctx.cortex_m_results)
    model = "kws_ref_model"
    if model not in figures or "tflm" not in figures:
        raise Missing(f"{model}'s figures in {ctx.cortex_m_results} (run scripts/cortex_m.sh with it)")

    def numbers(d):
        return {key: int(v) for key, v in d.items() if v.isdigit()}

    k, t = numbers(figures[model]), numbers(figures["tflm"])
    demo = figures.get("demo", {})
    core, tflm_core = k["runtime"] + k["kernels"], t["runtime"] + t["kernels"]

    def row(name, ours, theirs):
        return [name, thousands(ours), thousands(theirs) if theirs is not None else "–",
                ratio(ours, theirs) if theirs else "–"]

    rows = [
        row("arena (header = device minimum)", k["header"], t["arena"]),
        row("stack, LoadModel", k["load"], t["load"]),
        row("stack, AllocateTensors", k["alloc"], t["alloc"]),
        row("stack, Invoke", k["invoke"], t["invoke"]),
        row("RAM: arena + peak stack", k["ram"], t["arena"] + t["invoke"]),
        row("instructions per Invoke (-icount)", k["instructions"], None),
        row("flash: runtime + kernels", core, tflm_core),
        row("flash: runtime", k["runtime"], t["runtime"]),
        row("flash: kernels (the model's resolver)", k["kernels"], t["kernels"]),
    ]
    if "kernels_reference" in k and "runtime_reference" in k:
        rows.append(row("flash: runtime + kernels, reference int8 kernels", k["runtime_reference"] +
                        k["kernels_reference"], tflm_core))
    if "runtime" in demo:
        rows.append(row("flash: runtime, verifying and planning on the device (demo)", int(demo["runtime"]), t["runtime"]))
    return table([f"{model}, Cortex-M4F, -Os (bytes)", "microarena", "TFLM", "ratio"], rows,
                 ["---", "---:", "---:", "---:"])


def gen_cortex_m_models(ctx):
    figures = read_cortex_m_results(ctx.cortex_m_results)
    if figures.get("run", {}).get("all_models") != "1":
        raise Missing(f"a run of every model in {ctx.cortex_m_results} (scripts/cortex_m.sh without "
                      "MICROARENA_CORTEX_M_MODELS)")
    rows = []
    # The demo first, then the shared models by name, as the stage runs them.
    for model in sorted((m for m in figures if m not in ("tflm", "run")), key=lambda m: (m != "demo", m)):
        f = figures[model]

        def cell(key):
            return thousands(f[key]) if f.get(key, "-").isdigit() else "–"

        tflm_ram = f.get("tflm_ram", "-")
        rows.append([model] + [cell(k) for k in ("header", "minimum", "persistent", "load", "alloc", "invoke", "ram")]
                    + [cell("tflm_ram"), ratio(int(f["ram"]), int(tflm_ram)) if tflm_ram.isdigit() else "–"]
                    + [cell(k) for k in ("instructions", "runtime", "kernels")])
    return table(["model", "header arena", "device minimum", "persistent", "LoadModel", "AllocateTensors", "Invoke",
                  "RAM", "TFLM", "RAM / TFLM", "instructions per Invoke", "flash: runtime", "flash: kernels"],
                 rows, ["---"] + ["---:"] * 12)


def gen_cortex_m_sizes(ctx):
    figures = read_cortex_m_results(ctx.cortex_m_results)
    parts = ["runtime", "kernels", "model", "tensor_arena", "startup+libc"]
    rows = []
    for model, label in (("demo", "demo (verifies and plans on the device)"), ("kws_ref_model", "kws_ref_model (lean)")):
        if model not in figures:
            raise Missing(f"{model}'s figures in {ctx.cortex_m_results} (run scripts/cortex_m.sh with it)")
        for memory in ("flash", "ram"):
            values = [int(figures[model][f"{memory}_{p}"]) for p in parts]
            rows.append([f"{label}, {'flash' if memory == 'flash' else 'RAM'}"] + [thousands(v) for v in values]
                        + [thousands(sum(values))])
    return table(["firmware", "runtime", "kernels", "model", "tensor_arena", "startup + libc", "total"], rows,
                 ["---"] + ["---:"] * 6)


def gen_cortex_m_speed(ctx):
    figures = read_cortex_m_results(ctx.cortex_m_results)
    rows = []
    for model in ("kws_ref_model", "vww_96_int8", "pretrainedResnet_quant", "ad01_int8"):
        f = figures.get(model, {})
        if "instructions_o2" not in f:
            raise Missing(f"{model}'s -O2 figures in {ctx.cortex_m_results} (scripts/cortex_m.sh with every model)")
        os_count, o2, cmsis, ref = (int(f[k]) for k in ("instructions", "instructions_o2", "cmsis_o2",
                                                          "tflm_reference_o2"))
        rows.append([model, thousands(os_count), thousands(o2), thousands(ref), thousands(cmsis), ratio(o2, cmsis),
                     ratio(os_count, cmsis), ratio(ref, o2)])
    return table(["model", "microarena -Os", "microarena -O2", "TFLM reference -O2", "TFLM + CMSIS-NN -O2",
                  "-O2 / CMSIS-NN", "-Os / CMSIS-NN", "speed-up over TFLM reference"], rows,
                 ["---"] + ["---:"] * 7)


GENERATORS = {"arena": gen_arena, "best": gen_best, "overlap": gen_overlap, "tiling": gen_tiling, "instructions": gen_instructions, "solver": gen_solver, "cortex-m": gen_cortex_m,
              "cortex-m-sizes": gen_cortex_m_sizes, "cortex-m-models": gen_cortex_m_models,
              "cortex-m-speed": gen_cortex_m_speed}

# ------------------------------------------------------------ the blocks


def markers(name):
    return f"<!-- figures:{name}:begin (scripts/figures.sh) -->", f"<!-- figures:{name}:end -->"


def find_block(text, name, path):
    begin, end = markers(name)
    b, e = text.find(begin), text.find(end)
    if b < 0 or e < b:
        raise RuntimeError(f"{path}: no block between '{begin}' and '{end}'")
    return b + len(begin) + 1, e  # the lines between the markers


def without_wall_time(lines):
    """The block with the wall-time column blanked: it is not held."""
    column = None
    out = []
    for line in lines:
        cells = line.split("|")
        if any(c.strip() == WALL_TIME_HEADER for c in cells):
            column = [c.strip() for c in cells].index(WALL_TIME_HEADER)
        if column is not None and line.startswith("|") and len(cells) > column:
            if not re.fullmatch(r"-+:?", cells[column].strip()) and cells[column].strip() != WALL_TIME_HEADER:
                cells[column] = " * "
        out.append("|".join(cells))
    return out


def cell_differences(name, documented, measured):
    """'figure: documented value, measured value' for each table cell that differs."""
    def rows(lines):
        """{row name: {column: value}} over the block's tables."""
        result, header = {}, None
        for line in lines:
            if not line.startswith("|"):
                header = None
                continue
            c = [x.strip() for x in line.strip().strip("|").split("|")]
            if header is None:
                header = c
            elif not all(re.fullmatch(r"-+:?", x) for x in c):
                result[c[0]] = dict(zip(header[1:], c[1:]))
        return result

    a, b = rows(documented), rows(measured)
    messages = []
    for row in b:
        if row not in a:
            messages.append(f"{name}: {row}: a row only measured")
            continue
        for column, value in b[row].items():
            if a[row].get(column) != value:
                messages.append(f"{name}: {row}, {column}: documented {a[row].get(column, '(no such column)')}, "
                                f"measured {value}")
    messages += [f"{name}: {row}: a row only documented" for row in a if row not in b]
    return messages


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite the blocks with the measured figures")
    mode.add_argument("--check", action="store_true", help="exit 1, with a diff, when a block differs")
    parser.add_argument("--only", default=None,
                        help="comma-separated blocks: " + ", ".join(BLOCKS) + " (default: all; the cortex-m ones "
                        "are then left out, saying why, when scripts/cortex_m.sh's results lack them)")
    parser.add_argument("--cortex-m-results", default=None, help="default: build/cortex_m/figures.txt")
    parser.add_argument("build", nargs="?", default="build/release")
    args = parser.parse_args()

    ctx = argparse.Namespace()
    ctx.build = os.path.abspath(os.path.join(ROOT, args.build))
    ctx.cli = os.path.join(ctx.build, "tools", "microarena", "microarena")
    ctx.shared = os.path.abspath(os.environ.get("MICROARENA_SHARED_DIR") or os.path.join(ROOT, "..", "shared"))
    ctx.cortex_m_results = os.path.abspath(args.cortex_m_results or os.path.join(ROOT, "build", "cortex_m", "figures.txt"))

    names = [n for n in (args.only or ",".join(BLOCKS)).split(",") if n]
    unknown = [n for n in names if n not in GENERATORS]
    if unknown:
        parser.error(f"--only: unknown block(s) {', '.join(unknown)} (one of: {', '.join(BLOCKS)})")
    if any(not n.startswith("cortex-m") for n in names) and not os.access(ctx.cli, os.X_OK):
        raise Missing(f"{ctx.cli} (cmake --preset release && cmake --build --preset release)")

    failed = False
    for name in names:
        path = os.path.join(ROOT, BLOCK_FILES[name])
        try:
            measured = GENERATORS[name](ctx)
        except Missing as missing:
            if args.only is not None or not name.startswith("cortex-m"):
                raise
            # The Cortex-M figures come from a run of scripts/cortex_m.sh (minutes), not from here.
            print(f"figures: {name}: left out: missing {missing}")
            continue
        with open(path) as f:
            text = f.read()
        start, stop = find_block(text, name, path)
        documented = text[start:stop].rstrip("\n").split("\n")
        if args.write:
            if documented != measured:
                text = text[:start] + "\n".join(measured) + "\n" + text[stop:]
                with open(path, "w") as f:
                    f.write(text)
                print(f"figures: {name}: rewritten in {BLOCK_FILES[name]}")
            else:
                print(f"figures: {name}: {BLOCK_FILES[name]} already up to date")
        elif args.check:
            if without_wall_time(documented) == without_wall_time(measured):
                print(f"figures: {name}: {BLOCK_FILES[name]} matches what the code measures")
                continue
            failed = True
            print(f"!! figures: {name}: {BLOCK_FILES[name]} differs from what the code measures now "
                  f"(scripts/figures.sh --write --only {name} rewrites it):", file=sys.stderr)
            for message in cell_differences(name, without_wall_time(documented), without_wall_time(measured)):
                print("   " + message, file=sys.stderr)
            sys.stderr.writelines(difflib.unified_diff([l + "\n" for l in without_wall_time(documented)],
                                                       [l + "\n" for l in without_wall_time(measured)],
                                                       f"{BLOCK_FILES[name]} ({name})", "measured"))
        else:
            print("\n".join([markers(name)[0]] + measured + [markers(name)[1]]))
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Missing as missing:
        print(f"figures: missing {missing}", file=sys.stderr)
        sys.exit(MISSING_EXIT)
