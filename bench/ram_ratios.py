#!/usr/bin/env python3
"""Arena of every shared model with microarena's best setup, as a ratio to TFLM's minimum.

For each model in <shared>/models: `optimize --overlap` (exact plan with kernel-approved
overlap, the whole plan stored in the file so nothing is planned at boot, and the kernels'
data stored for the runtime to read from flash), then `run` of the written file with
--overlap, on the host and counted for a Cortex-M (`plan --target cortex-m`). Prints the
arena against TFLM's minimum arena (golden/tflm_arena.csv), the persistent area other than
variable state against TFLM's tail other than variable tensors, and the temp peak against
the head. Every figure comes from the commands run here; TFLM's from the shared table.

  bench/ram_ratios.py [--cli build/release/tools/microarena/microarena] [--shared ../shared]
                      [--models a,b] [--json]
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"ram_ratios: {' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


def measure(cli, shared, names=None):
    """One row per model (every model of golden/tflm_arena.csv with a file when `names` is None)."""
    table = os.path.join(shared, "golden/tflm_arena.csv")
    tflm = {row["model"]: row for row in csv.DictReader(open(table))}
    if names is None:
        names = sorted(n for n in tflm if os.path.isfile(os.path.join(shared, "models", n + ".tflite")))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            model = os.path.join(shared, "models", name + ".tflite")
            out = os.path.join(tmp, name + ".tflite")
            run([cli, "optimize", model, "-o", out, "--overlap", "--json"])
            host = json.loads(run([cli, "run", out, "--overlap", "--json", "--seed", "1", "--output-dir", tmp]))
            device = json.loads(run([cli, "plan", out, "--overlap", "--target", "cortex-m", "--json"]))
            t = tflm[name]
            tflm_min = int(t["min_arena_bytes"])
            tflm_tail = int(t["tail_bytes"]) - int(t["variable_tensor_bytes"])
            variables = int(device["persistent"]["by_use"]["variable_state"])
            rows.append({
                "model": name,
                "tflm_min_arena_bytes": tflm_min,
                "arena_bytes": host["arena_used_bytes"],
                "arena_ratio": host["arena_used_bytes"] / tflm_min,
                "head_bytes": host["head_bytes"],
                "temp_peak_bytes": host["temp_peak_bytes"],
                "persistent_bytes": host["persistent_bytes"],
                "variable_state_bytes": variables,
                "tflm_tail_without_variables": tflm_tail,
                "persistent_ratio": (host["persistent_bytes"] - variables) / tflm_tail,
                "kernel_data_ops": host["kernel_data"]["ops_in_flash"],
                "kernel_data_flash_bytes": host["kernel_data"]["flash_bytes"],
                "planner": host["planner"],
                "cortex_m_arena_bytes": device["arena_bytes"],
                "cortex_m_persistent_bytes": device["persistent_bytes"],
            })
    return rows


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=os.path.join(root, "build/release/tools/microarena/microarena"))
    parser.add_argument("--shared", default=os.environ.get("MICROARENA_SHARED_DIR", os.path.join(root, "../shared")))
    parser.add_argument("--models", default="", help="comma-separated model names (default: every shared model)")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    args = parser.parse_args()
    table = os.path.join(args.shared, "golden/tflm_arena.csv")
    if not os.path.exists(table) or not os.path.exists(args.cli):
        sys.exit(f"ram_ratios: needs {table} and the CLI {args.cli}")
    rows = measure(args.cli, args.shared, args.models.split(",") if args.models else None)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'model':24} {'TFLM min':>9} {'arena':>8} {'ratio':>6} {'head':>8} {'temp':>6} {'persist':>8} "
          f"{'var':>6} {'TFLM tail':>9} {'ratio':>6} {'flash kd':>9} {'M4 arena':>9}")
    for r in rows:
        print(f"{r['model']:24} {r['tflm_min_arena_bytes']:9} {r['arena_bytes']:8} {r['arena_ratio']:6.3f} "
              f"{r['head_bytes']:8} {r['temp_peak_bytes']:6} {r['persistent_bytes']:8} {r['variable_state_bytes']:6} "
              f"{r['tflm_tail_without_variables']:9} {r['persistent_ratio']:6.3f} {r['kernel_data_flash_bytes']:9} "
              f"{r['cortex_m_arena_bytes']:9}")


if __name__ == "__main__":
    main()
