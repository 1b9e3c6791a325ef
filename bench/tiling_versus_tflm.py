#!/usr/bin/env python3
"""Tiled execution next to TFLM on the same models, in the same run.

For every model (the shared image models, and MobileNetV2-style models written by
build/release/bench/write_mobilenet_v2), runs TFLM itself (../shared/tools/tflm_oracle: its
minimum arena, head and outputs) and microarena (`plan --json` without and with `--tile`,
`run --tile`, and every technique at once: `optimize --overlap --tile`, then `run --overlap` of
the written file), and reports per model: TFLM's head and arena, microarena's head untiled and
tiled, the ratios of the tiled head and arena to TFLM's, the untiled lower bound the tiled head
goes below, the arena with every technique and its ratio, the extra MACs (line buffers: 0) and
whether the tiled runs' outputs equal TFLM's byte for byte. A model whose tiled outputs differ
from TFLM's fails the run.

  bench/tiling_versus_tflm.py [--cli build/release/tools/microarena/microarena]
      [--writer build/release/bench/write_mobilenet_v2] [--shared ../shared]
      [--mobilenet SIZE:WIDTH ...] [--json FILE]

Default MobileNetV2 variants: 224:100 (the issue's model: 224x224, width 1.0) and 96:35.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"tiling_versus_tflm: {' '.join(cmd)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return done.stdout


def tflm_figures(oracle, model, out_dir):
    line = run([oracle, model, "--seed", "1", "--out-dir", out_dir])
    figures = dict(re.findall(r"(\w+)=(\d+)", line))
    return int(figures["min_arena_bytes"]), int(figures["head_bytes"])


def same_outputs(dir_a, dir_b):
    names = sorted(n for n in os.listdir(dir_a) if n.startswith("output_"))
    if not names:
        return False
    for name in names:
        with open(os.path.join(dir_a, name), "rb") as a, open(os.path.join(dir_b, name), "rb") as b:
            if a.read() != b.read():
                return False
    return True


def measure(cli, oracle, model, tmp):
    label = os.path.basename(model)
    tflm_dir = os.path.join(tmp, label + ".tflm")
    ours_dir = os.path.join(tmp, label + ".tiled")
    os.makedirs(tflm_dir, exist_ok=True)
    tflm_arena, tflm_head = tflm_figures(oracle, model, tflm_dir)
    untiled = json.loads(run([cli, "plan", model, "--json", "--time-limit", "10"]))
    tiled = json.loads(run([cli, "plan", model, "--json", "--tile", "--time-limit", "10"]))
    ran = json.loads(run([cli, "run", model, "--tile", "--seed", "1", "--json", "--output-dir", ours_dir]))
    optimized = os.path.join(tmp, label + ".every.tflite")
    every_dir = os.path.join(tmp, label + ".every")
    run([cli, "optimize", model, "-o", optimized, "--overlap", "--tile"])
    every = json.loads(run([cli, "run", optimized, "--overlap", "--seed", "1", "--json", "--output-dir", every_dir]))
    tiling = tiled.get("tiling", {})
    return {
        "model": label,
        "tflm_head_bytes": tflm_head,
        "tflm_arena_bytes": tflm_arena,
        "head_bytes": untiled["head_bytes"],
        "tiled_head_bytes": tiled["head_bytes"],
        "tiled_arena_bytes": ran["arena_used_bytes"],
        "untiled_lower_bound_bytes": tiling.get("untiled_lower_bound_bytes", untiled["lower_bound_bytes"]),
        "segments": tiling.get("segments", []),
        "extra_macs": tiling.get("extra_macs", 0),
        "every_arena_bytes": every["arena_used_bytes"],
        "every_temp_peak_bytes": every["temp_peak_bytes"],
        "bit_exact": same_outputs(tflm_dir, ours_dir) and same_outputs(tflm_dir, every_dir),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", default="build/release/tools/microarena/microarena")
    parser.add_argument("--writer", default="build/release/bench/write_mobilenet_v2")
    parser.add_argument("--shared", default=os.environ.get("MICROARENA_SHARED_DIR", "../shared"))
    parser.add_argument("--mobilenet", nargs="*", default=["224:100", "96:35"])
    parser.add_argument("--json", help="also write the rows as JSON to this file")
    args = parser.parse_args()
    oracle = os.path.join(args.shared, "tools", "tflm_oracle")
    for tool in (args.cli, oracle):
        if not os.access(tool, os.X_OK):
            sys.exit(f"tiling_versus_tflm: {tool} is missing (build the project; ../shared holds the oracle)")
    with tempfile.TemporaryDirectory() as tmp:
        models = [os.path.join(args.shared, "models", m) for m in ("vww_96_int8.tflite", "pretrainedResnet_quant.tflite")]
        for variant in args.mobilenet:
            size, width = variant.split(":")
            path = os.path.join(tmp, f"mobilenet_v2_{size}_{width}.tflite")
            if not os.access(args.writer, os.X_OK):
                sys.exit(f"tiling_versus_tflm: {args.writer} is missing (cmake --build build/release)")
            run([args.writer, "-o", path, "--input-size", size, "--width-percent", width])
            models.append(path)
        rows = [measure(args.cli, oracle, m, tmp) for m in models]
    print(f"{'model':34} {'TFLM head':>11} {'untiled':>11} {'tiled':>11} {'head/TFLM':>9} "
          f"{'TFLM arena':>11} {'arena':>11} {'arena/TFLM':>10} {'bound':>11} {'every':>11} {'every/TFLM':>10} "
          f"bit-exact")
    failed = False
    for r in rows:
        print(f"{r['model']:34} {r['tflm_head_bytes']:>11,} {r['head_bytes']:>11,} {r['tiled_head_bytes']:>11,} "
              f"{r['tiled_head_bytes'] / r['tflm_head_bytes']:>9.3f} {r['tflm_arena_bytes']:>11,} "
              f"{r['tiled_arena_bytes']:>11,} {r['tiled_arena_bytes'] / r['tflm_arena_bytes']:>10.3f} "
              f"{r['untiled_lower_bound_bytes']:>11,} {r['every_arena_bytes']:>11,} "
              f"{r['every_arena_bytes'] / r['tflm_arena_bytes']:>10.3f} {'yes' if r['bit_exact'] else 'NO'}")
        for s in r["segments"]:
            print(f"    tiled ops {s['first_op']}-{s['last_op']}, band of {s['band_rows']} row(s), "
                  f"{len(s['windows'])} windows; extra MACs {r['extra_macs']}")
        failed |= not r["bit_exact"]
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=2)
    if failed:
        sys.exit("tiling_versus_tflm: a tiled run's outputs differ from TFLM's")


if __name__ == "__main__":
    main()
